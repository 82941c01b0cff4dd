//! `metewand run` end to end: the example benchmark run in place, and copies of it in temporary folders with
//! misbehaving workers added. Every test checks the exit status and, where an attempt started, that
//! `attempt.json` is its own canonical form and valid against the embedded `attempt-record` schema.

mod confinement;
mod folders;
mod outcomes;
mod signals;
mod store;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;
use tempfile::TempDir;

use metewand_testkit::sdk_src as sdk;

use crate::{command, run as metewand, text};

/// The example benchmark in the checkout.
fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/least-squares").canonicalize().unwrap()
}

/// A copy of the example in a temporary folder (its schemas, and its workers gathered in one folder `workers/`),
/// whose workers find the checkout's SDK, with the state folder and attempt folders beside it.
struct Bench {
    dir: TempDir,
}

impl Bench {
    fn new() -> Bench {
        Bench::build(false)
    }

    /// A bench whose workers find their own copy of the SDK in the bench ([`Bench::sdk`]), for attacks that would
    /// change the checkout's SDK should they succeed.
    fn with_sdk_copy() -> Bench {
        Bench::build(true)
    }

    fn build(own_sdk: bool) -> Bench {
        let dir = tempfile::tempdir().unwrap();
        let sdk = if own_sdk {
            // In the repository, where a worker's environment may name it: the rest of the temporary folder is
            // hidden from the workers.
            let copy = dir.path().join("repo/sdk");
            fs::create_dir_all(dir.path().join("repo")).unwrap();
            let status = Command::new("cp").arg("-R").arg(sdk()).arg(&copy).status().unwrap();
            assert!(status.success(), "copying the SDK failed");
            copy
        } else {
            sdk()
        };
        let repo = dir.path().join("repo");
        let copy_files = |from: &Path, to: &Path| {
            fs::create_dir_all(to).unwrap();
            for entry in fs::read_dir(from).unwrap() {
                let entry = entry.unwrap();
                if entry.file_type().unwrap().is_file() {
                    fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
                }
            }
        };
        copy_files(&example().join("schemas"), &repo.join("schemas"));
        // Every worker's folder gathered into one, with the shared package beside them, so that a test can put a
        // worker of its own beside the example's and import their classes.
        for entry in fs::read_dir(example().join("workers")).unwrap() {
            copy_files(&entry.unwrap().path(), &repo.join("workers"));
        }
        copy_files(&example().join("ridge"), &repo.join("workers/ridge"));
        let mut manifest = fs::read_to_string(example().join("metewand.toml"))
            .unwrap()
            .replace("${repo}/../../sdk-python/src", sdk.to_str().unwrap())
            .replace("include = [\"ridge\"]\n", "");
        for worker in ["generate", "cholesky", "conjugate-gradient", "direct-protocol", "judge"] {
            manifest = manifest.replace(&format!("source = \"workers/{worker}\""), "source = \"workers\"");
        }
        fs::write(repo.join("metewand.toml"), manifest).unwrap();
        Bench { dir }
    }

    /// The bench's own copy of `sdk-python/src`, made by [`Bench::with_sdk_copy`].
    fn sdk(&self) -> PathBuf {
        self.dir.path().join("repo/sdk")
    }

    /// A bench without a repository copy, for runs of the example in place.
    fn empty() -> Bench {
        Bench { dir: tempfile::tempdir().unwrap() }
    }

    fn repo(&self) -> PathBuf {
        self.dir.path().join("repo")
    }

    fn state(&self) -> PathBuf {
        self.dir.path().join("state")
    }

    fn out(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Adds a worker file to `workers/`.
    fn worker_file(&self, name: &str, text: &str) {
        fs::write(self.repo().join("workers").join(name), text).unwrap();
    }

    /// Appends to `metewand.toml`.
    fn append(&self, toml: &str) {
        let path = self.repo().join("metewand.toml");
        let text = fs::read_to_string(&path).unwrap() + toml;
        fs::write(path, text).unwrap();
    }

    /// Replaces text in `metewand.toml`.
    fn replace(&self, from: &str, to: &str) {
        let path = self.repo().join("metewand.toml");
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.contains(from), "{from:?} is not in metewand.toml");
        fs::write(path, text.replacen(from, to, 1)).unwrap();
    }

    /// Adds an implementation `name` served by `python3 misbehave.py MODE`. Two of one mode run the same worker, so
    /// each gets its name as a parameter: otherwise they would be twins, which `check` refuses.
    fn misbehaving_implementation(&self, name: &str, mode: &str) {
        self.worker_file("misbehave.py", MISBEHAVE);
        self.append(&format!(
            "\n[workers.{name}]\nrole = \"implementation\"\ncommand = [\"python3\", \"misbehave.py\", \"{mode}\", \"${{repo}}\"]\n\
             source = \"workers\"\n\n[implementations.{name}]\nworker = \"{name}\"\nparameters = {{ variant = \"{name}\" }}\n"
        ));
    }

    fn args(&self, implementation: &str, out: &str) -> Vec<String> {
        let repo = self.repo();
        let mut args = run_args(&repo, implementation, &self.state());
        args.extend(["--out".to_owned(), self.out(out).to_str().unwrap().to_owned()]);
        args
    }

    fn run(&self, implementation: &str, out: &str) -> Output {
        metewand(&self.args(implementation, out))
    }
}

impl Drop for Bench {
    /// Published datasets are read-only: make them writable so the temporary folder can be removed (as a user
    /// who is not root could not otherwise).
    fn drop(&mut self) {
        let _ = Command::new("chmod").args(["-R", "u+w"]).arg(self.dir.path()).status();
    }
}

fn run_args(repo: &Path, implementation: &str, state: &Path) -> Vec<String> {
    let mut args: Vec<String> = vec!["run".into(), repo.to_str().unwrap().into()];
    for (flag, value) in [("--problem", "ridge"), ("--dataset", "small"), ("--implementation", implementation)] {
        args.extend([flag.to_owned(), value.to_owned()]);
    }
    args.extend(["--state-dir".to_owned(), state.to_str().unwrap().to_owned()]);
    args
}

/// Reads `attempt.json`: it must be its own canonical form and valid against the attempt-record schema.
fn record(folder: &Path) -> Value {
    let bytes = fs::read(folder.join("attempt.json")).unwrap();
    let value: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(metewand_protocol::to_canonical_vec(&value), bytes, "attempt.json is not canonical");
    let validator = metewand_protocol::schema::validator(metewand_protocol::schema::ATTEMPT_RECORD, None);
    let errors: Vec<String> = validator.iter_errors(&value).map(|error| format!("{error}")).collect();
    assert!(errors.is_empty(), "attempt.json is not a valid attempt record: {errors:?}\n{value:#}");
    value
}

/// Checks the exit status and the failure's role, phase and kind; returns the record.
fn failed(output: &Output, folder: &Path, role: &str, phase: &str, kind: &str) -> Value {
    assert_eq!(output.status.code(), Some(3), "stdout: {}\nstderr: {}", text(&output.stdout), text(&output.stderr));
    let record = record(folder);
    assert_eq!(record["outcome"], "failed");
    let failure = &record["failure"];
    assert_eq!((failure["role"].as_str(), failure["phase"].as_str()), (Some(role), Some(phase)), "{failure}");
    assert_eq!(failure["kind"], kind, "{failure}");
    assert!(text(&output.stdout).contains(&format!("failure      {kind}")), "{}", text(&output.stdout));
    record
}

fn log(folder: &Path, role: &str) -> String {
    fs::read_to_string(folder.join("logs").join(format!("{role}.log"))).unwrap()
}

/// A direct-protocol implementation that solves the problem like the example's and misbehaves as `argv[1]` says.
const MISBEHAVE: &str = r#"
import hashlib, json, os, sys, time
import ridge

protocol = sys.stdout
sys.stdout = sys.stderr
mode, _, argument = sys.argv[1].partition(":")

def send(message):
    protocol.write(json.dumps(message, sort_keys=True, separators=(",", ":")) + "\n")
    protocol.flush()

state = {}
def read_all(label):
    # Every place the argument names: read a file, list a folder, connect to a socket; each outcome reported.
    for target in argument.split(","):
        try:
            if target.endswith(".sock"):
                import socket
                socket.socket(socket.AF_UNIX).connect(target)
            elif os.path.isdir(target):
                os.listdir(target)
            else:
                with open(target, "rb") as file:
                    file.read()
            print(label + " " + target + ": ok", file=sys.stderr, flush=True)
        except OSError as error:
            print(label + " " + target + ": errno " + str(error.errno), file=sys.stderr, flush=True)

if mode == "early":
    # Before hello, the inputs the argument names (the dataset this attempt will get, found beforehand).
    read_all("early read")
for line in sys.stdin:
    request = json.loads(line)
    rid, method = request["id"], request["method"]
    if method == "hello":
        send({"capabilities": ["one_shot"], "id": rid, "ok": True, "protocol": 1, "sdk": None,
              "worker_id": request["worker_id"]})
    elif method == "prepare":
        root = request["dataset_dir"]
        with open(os.path.join(root, "dataset-manifest.json")) as file:
            data = json.load(file)["data"]
        state["a"] = ridge.read_matrix(os.path.join(root, data["matrix"]))
        state["b"] = ridge.read_vector(os.path.join(root, data["rhs"]))
        state["lambda"] = request["problem_parameters"]["lambda"]
        if mode == "write-all":
            # Every place named (and the dataset entry): append to a file, create a file in a folder, and leave
            # what was written, so that a test sees any write that went through.
            for target in argument.split(",") + [root]:
                try:
                    if os.path.isdir(target):
                        with open(os.path.join(target, "planted"), "x") as file:
                            file.write("planted\n")
                    else:
                        with open(target, "a") as file:
                            file.write("forged\n")
                    print("write " + target + ": ok", file=sys.stderr, flush=True)
                except OSError as error:
                    print("write " + target + ": errno " + str(error.errno), file=sys.stderr, flush=True)
        if mode == "write-fd":
            # A descriptor metewand was started with, were it to reach this worker.
            try:
                os.write(int(argument), b"forged")
                print("write-fd " + argument + ": ok", file=sys.stderr, flush=True)
            except OSError as error:
                print("write-fd " + argument + ": errno " + str(error.errno), file=sys.stderr, flush=True)
        if mode == "caps-udp":
            # What it holds, and whether a datagram to the port named reaches anything that answers.
            with open("/proc/self/status") as file:
                for line in file:
                    if line.startswith("Cap"):
                        print("caps " + line.strip().replace(":\t", "="), file=sys.stderr, flush=True)
            import socket
            udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            udp.settimeout(1.0)
            try:
                udp.sendto(b"ping", ("127.0.0.1", int(argument)))
                udp.recv(16)
                print("udp " + argument + ": ok", file=sys.stderr, flush=True)
            except TimeoutError:
                print("udp " + argument + ": timed out", file=sys.stderr, flush=True)
            except OSError as error:
                print("udp " + argument + ": errno " + str(error.errno), file=sys.stderr, flush=True)
        if mode == "bounds":
            # Past [limits] memory_bytes and processes: an allocation of the first number of bytes, then as many
            # processes as the second number, each outcome reported.
            size, count = (int(value) for value in argument.split(","))
            try:
                bytearray(size)
                print("allocate: ok", file=sys.stderr, flush=True)
            except MemoryError:
                print("allocate: MemoryError", file=sys.stderr, flush=True)
            children, outcome = [], "ok"
            for _ in range(count):
                try:
                    pid = os.fork()
                except OSError as error:
                    outcome = "errno " + str(error.errno)
                    break
                if pid == 0:
                    time.sleep(600)
                    os._exit(0)
                children.append(pid)
            for pid in children:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
            print("spawn: " + outcome + " after " + str(len(children)), file=sys.stderr, flush=True)
        if mode == "fill":
            # The MiB the argument gives into TMPDIR, 512 KiB a millisecond, then a result as usual.
            chunk = b"\7" * (512 << 10)
            for index in range(2 * int(argument)):
                with open(os.path.join(os.environ["TMPDIR"], "fill-" + str(index)), "wb") as file:
                    file.write(chunk)
                time.sleep(0.001)
        if mode == "read-all":
            read_all("read")
        send({"id": rid, "ok": True})
    elif method == "execute":
        print("executing in mode " + mode, file=sys.stderr, flush=True)
        if mode == "crash":
            sys.exit(3)
        if mode == "hang":
            # Longer than any test waits: a run that ends must have ended the worker.
            time.sleep(600)
        if mode == "pause":
            # The test writes the go-ahead into this session's TMPDIR: the one folder of the test's both can see.
            print("paused", file=sys.stderr, flush=True)
            for _ in range(6000):
                if os.path.exists(os.path.join(os.environ["TMPDIR"], "go")):
                    break
                time.sleep(0.01)
        if mode == "fail":
            send({"error": {"code": "operation_failed", "details": {"iterations": 100},
                            "message": "did not converge"}, "id": rid, "ok": False})
            continue
        if mode == "garbage":
            protocol.write("this is not json\n")
            protocol.flush()
            continue
        gram, rhs = ridge.normal_equations(state["a"], state["b"], state["lambda"])
        x = ridge.cholesky_solve(gram, rhs)
        out = request["result_dir"]
        state["out"], state["x"] = out, x
        if mode == "after-answer":
            # Answers at once; the result is written during shutdown.
            send({"id": rid, "implementation_time_ns": None, "ok": True, "result": {"manifest": "result.json"},
                  "statistics": {}})
            continue
        if mode == "rewrite":
            # A valid but wrong answer now; the right one during shutdown.
            x = [0.0 for _ in x]
        with open(os.path.join(out, "solution.json"), "w") as file:
            json.dump({"x": x}, file)
        with open(os.path.join(out, "solution.json"), "rb") as file:
            content = file.read()
        files = [{"path": "solution.json", "sha256": hashlib.sha256(content).hexdigest(), "size": len(content)}]
        if mode == "sparse":
            # Holes (20 GiB, or the GiB the argument gives), declared with a digest they do not have: hashing them
            # takes long.
            size = int(argument or "20") << 30
            with open(os.path.join(out, "huge.bin"), "wb") as file:
                try:
                    file.truncate(size)
                except OSError:
                    # Past [limits] output_bytes (RLIMIT_FSIZE): the declaration alone must be refused.
                    pass
            files.append({"path": "huge.bin", "sha256": "0" * 64, "size": size})
        objective = ridge.objective(state["a"], state["b"], state["lambda"], x)
        with open(os.path.join(out, "result.json"), "w") as file:
            json.dump({"data": {"objective": objective, "solution": "solution.json"}, "files": files}, file)
        if mode == "tamper":
            with open(os.path.join(out, "solution.json"), "w") as file:
                json.dump({"x": [0.0 for _ in x]}, file)
        send({"id": rid, "implementation_time_ns": None, "ok": True, "result": {"manifest": "result.json"},
              "statistics": {}})
    elif method == "shutdown":
        print("shutting down", file=sys.stderr, flush=True)
        if mode in ("after-answer", "rewrite"):
            out, x = state["out"], state["x"]
            with open(os.path.join(out, "solution.json"), "w") as file:
                json.dump({"x": x}, file)
            with open(os.path.join(out, "solution.json"), "rb") as file:
                content = file.read()
            files = [{"path": "solution.json", "sha256": hashlib.sha256(content).hexdigest(), "size": len(content)}]
            objective = ridge.objective(state["a"], state["b"], state["lambda"], x)
            with open(os.path.join(out, "result.json"), "w") as file:
                json.dump({"data": {"objective": objective, "solution": "solution.json"}, "files": files}, file)
        send({"id": rid, "ok": True})
        sys.exit(1 if mode == "unclean-exit" else 0)
"#;

/// Waits until `ready` holds; the limit only guards against a hang.
fn wait_for(what: &str, mut ready: impl FnMut() -> bool) {
    let started = Instant::now();
    while !ready() {
        assert!(started.elapsed() < Duration::from_secs(300), "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Lets a worker paused in the attempt `out` go on: the go-ahead goes into its session's TMPDIR, which its private
/// view shows.
fn go_ahead(bench: &Bench, out: &str, role: &str) {
    fs::write(bench.out(&format!("{out}/work/tmp-{role}/go")), "").unwrap();
}

/// Runs the `pause` implementation `name` into `out` and, once it is paused in `execute`, plays the foreign writer
/// with `act` (what no confined worker can do: a process outside the sandbox changing files under the attempt's
/// feet), then lets it go on; returns the finished run.
fn run_paused(bench: &Bench, name: &str, out: &str, act: impl FnOnce()) -> Output {
    bench.misbehaving_implementation(name, "pause");
    let child = command(&bench.args(name, out)).spawn().unwrap();
    let log_path = bench.out(&format!("{out}/logs/implementation.log"));
    wait_for("the pause", || fs::read_to_string(&log_path).is_ok_and(|text| text.contains("paused")));
    act();
    go_ahead(bench, out, "implementation");
    wait_guarded(child, Duration::from_secs(120))
}

/// The pid, as this machine's `/proc` names it, of the process below `ancestor` whose command line holds `script`:
/// a worker in a PID namespace of its own cannot tell it.
fn worker_pid(ancestor: u32, script: &str) -> Option<String> {
    let mut parents = std::collections::BTreeMap::new();
    let mut candidates = Vec::new();
    for entry in fs::read_dir("/proc").ok()?.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let stat = fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let Some(ppid) =
            stat.rsplit_once(')').and_then(|(_, tail)| tail.split_whitespace().nth(1)?.parse::<u32>().ok())
        else {
            continue;
        };
        parents.insert(pid, ppid);
        let cmdline = fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if cmdline.split(|&byte| byte == 0).any(|word| word.ends_with(script.as_bytes())) {
            candidates.push(pid);
        }
    }
    candidates
        .into_iter()
        .find(|&pid| {
            let mut current = pid;
            while let Some(&parent) = parents.get(&current) {
                if parent == ancestor {
                    return true;
                }
                current = parent;
            }
            false
        })
        .map(|pid| pid.to_string())
}

/// Whether an attempt here starts its evaluator beside its implementation: where Landlock is in force and the
/// attempt's workers (this test's CPUs, which `metewand` inherits) have two CPUs or more.
fn evaluator_beside() -> bool {
    metewand_runtime::session::KernelSupport::probe().landlock_abi > 0
        && metewand_runtime::cpus::CpuSet::of_current_thread().is_ok_and(|cpus| cpus.len() >= 2)
}

/// For an attempt that ended before its evaluation: the evaluator, where it started beside the implementation, said
/// hello and nothing else (its log kept); elsewhere it never started.
fn evaluator_never_evaluated(record: &Value) {
    let evaluator: Vec<&Value> =
        record["phases"].as_array().unwrap().iter().filter(|phase| phase["role"] == "problem_evaluator").collect();
    if evaluator_beside() {
        assert_eq!(record["logs"]["problem_evaluator"], "logs/problem_evaluator.log", "the evaluator was started");
        assert_eq!(evaluator.len(), 1, "only the evaluator's hello ran: {evaluator:?}");
        assert_eq!(evaluator[0]["phase"], "hello");
    } else {
        assert_eq!(record["logs"]["problem_evaluator"], Value::Null, "the evaluator never started");
        assert!(evaluator.is_empty(), "{evaluator:?}");
    }
}

/// Makes a published (read-only) store entry writable again, as its owner outside any sandbox can.
fn make_writable(path: &Path) {
    let status = Command::new("chmod").args(["-R", "u+w"]).arg(path).status().unwrap();
    assert!(status.success());
}

/// The one published entry of the store, while attempts still run.
fn entry_of_running(bench: &Bench) -> PathBuf {
    let datasets = bench.state().join("datasets");
    let entries: Vec<PathBuf> = fs::read_dir(&datasets)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_dir() && !path.file_name().unwrap().to_string_lossy().starts_with('.'))
        .collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    entries[0].clone()
}

/// The store entry an attempt uses.
fn entry_of(bench: &Bench, out: &str) -> PathBuf {
    let key = record(&bench.out(out))["dataset"]["key"].as_str().unwrap().to_owned();
    bench.state().join("datasets").join(key)
}

fn signal(child: &Child, signal: &str) {
    let status = Command::new("kill").args([signal, &child.id().to_string()]).status().unwrap();
    assert!(status.success());
}

/// An SDK worker that serves normally unless its command line ends with `hang`, in which case it runs `partial`
/// (Python, which may leave a half-written file in its output), says `hanging` on stderr and hangs in `method` for
/// longer than [`wait_for`] waits, so that a worker which outlives a killed `metewand` fails the test rather than
/// ending on its own first. (What the test could put elsewhere, its private view would not show.)
fn hanging_sdk_worker(module: &str, class: &str, method: &str, partial: &str) -> String {
    format!(
        r#"import os, sys, time
import metewand
from {module} import {class}

class Hanging({class}):
    def {method}(self, *args):
        if sys.argv[-1] == "hang":
            {partial}
            print("hanging", file=sys.stderr, flush=True)
            time.sleep(600)
        return super().{method}(*args)

if __name__ == "__main__":
    metewand.run(Hanging)
"#
    )
}

/// The state and start time of a process from `/proc/<pid>/stat`, or `None` once it is gone.
fn process_state(pid: &str) -> Option<(String, String)> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    Some((fields.first()?.to_string(), fields.get(19)?.to_string()))
}

/// The host pid of the hanging worker running `script` below `metewand`, once its log (`log`) says it hangs.
fn hanging_worker(metewand: &Child, log: &Path, script: &str) -> String {
    wait_for("the worker to hang", || fs::read_to_string(log).is_ok_and(|text| text.contains("hanging")));
    worker_pid(metewand.id(), script).expect("the hanging worker runs below metewand")
}

/// After `metewand` was SIGKILLed, its worker (`pid`) dies too, by its parent-death signal: nobody kills it here.
/// Waits for that event (the limit only guards against a hang); a zombie left for init counts as gone.
fn assert_worker_dies(pid: &str) {
    let (_, start) = process_state(pid).expect("the worker ran when metewand was killed");
    wait_for("the worker to die with metewand", || match process_state(pid) {
        None => true,
        Some((state, now)) => now != start || state == "Z",
    });
}

fn staging_folders(state: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(state.join("datasets"))
        .map(|entries| entries.map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    // The directory's order is the file system's: sorted, the entry comes before its `.published` record.
    names.sort();
    names
}

/// Replaces the command `python3 SCRIPT` with `python3 FILE`, where `FILE` (written here) subclasses a worker.
fn replace_worker(bench: &Bench, script: &str, file: &str, text: &str) {
    bench.worker_file(file, text);
    bench.replace(&format!("command = [\"python3\", \"{script}\"]"), &format!("command = [\"python3\", \"{file}\"]"));
}

/// Runs `cholesky` into `attempt` with an evaluator that, once it has its answer, pauses in `evaluate` until the
/// test has played the foreign writer with `act`.
fn paused_evaluator(bench: &Bench, act: impl FnOnce()) -> Output {
    let text = "import os, sys, time\nimport metewand\nfrom judge import Judge\n\nclass Paused(Judge):\n    \
         def evaluate(self, dataset, result, problem):\n        \
         answer = super().evaluate(dataset, result, problem)\n        print('paused', file=sys.stderr, flush=True)\n        \
         while not os.path.exists(os.path.join(os.environ['TMPDIR'], 'go')):\n            time.sleep(0.01)\n        \
         return answer\n\nmetewand.run(Paused)\n";
    replace_worker(bench, "judge.py", "paused_judge.py", text);
    let child = command(&bench.args("cholesky", "attempt")).spawn().unwrap();
    let log_path = bench.out("attempt/logs/problem_evaluator.log");
    wait_for("the pause", || fs::read_to_string(&log_path).is_ok_and(|text| text.contains("paused")));
    act();
    go_ahead(bench, "attempt", "problem_evaluator");
    wait_guarded(child, Duration::from_secs(120))
}

impl Bench {
    fn args_with(&self, implementation: &str, out: &str, extra: &[&str]) -> Vec<String> {
        let mut args = self.args(implementation, out);
        args.extend(extra.iter().map(|arg| (*arg).to_owned()));
        args
    }

    /// The dataset key of `small` for `seed`, as `metewand check` prints it (as an attacker would compute it).
    fn key(&self, seed: u64) -> String {
        let output = metewand(&[
            "check".to_owned(),
            self.repo().to_str().unwrap().to_owned(),
            "--dataset-seed".to_owned(),
            seed.to_string(),
        ]);
        let stdout = text(&output.stdout);
        let prefix = format!("dataset small {seed} ");
        stdout.lines().find_map(|line| line.strip_prefix(&prefix)).unwrap_or_else(|| panic!("{stdout}")).to_owned()
    }
}

/// One entry of a [`tree`]: what a write would change.
#[derive(Debug, PartialEq, Eq)]
enum Entry {
    Folder,
    File(Vec<u8>),
    Link(PathBuf),
}

/// All entries under `root`, recursively, without following links, with each file's contents and each link's
/// target.
fn tree(root: &Path) -> std::collections::BTreeMap<PathBuf, Entry> {
    let mut found = std::collections::BTreeMap::new();
    let mut pending = vec![root.to_owned()];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let kind = entry.file_type().unwrap();
            let seen = if kind.is_dir() {
                pending.push(entry.path());
                Entry::Folder
            } else if kind.is_symlink() {
                Entry::Link(fs::read_link(entry.path()).unwrap())
            } else {
                Entry::File(fs::read(entry.path()).unwrap())
            };
            found.insert(entry.path(), seen);
        }
    }
    found
}

/// Waits for `child`, killing it (by its own handle) if it has not ended after `limit`: a guard, so that a run that
/// hangs fails the test instead of blocking it.
fn wait_guarded(mut child: Child, limit: Duration) -> Output {
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            child.kill().unwrap();
            let output = child.wait_with_output().unwrap();
            panic!("metewand run did not end within {limit:?}; stdout: {}", text(&output.stdout));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}
