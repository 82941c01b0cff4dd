//! `metewand run` end to end: the example benchmark run in place, and copies of it in temporary folders with
//! misbehaving workers added. Every test checks the exit status and, where an attempt started, that
//! `attempt.json` is its own canonical form and valid against the embedded `attempt-record` schema.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tempfile::TempDir;

use metewand_testkit::{ConfinementRequired, Requirement, has_cap_sys_admin, skip, udp_echo};

use crate::{Tmpfs, command, run as metewand, text};

/// The example benchmark in the checkout.
fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/least-squares").canonicalize().unwrap()
}

use metewand_testkit::sdk_src as sdk;

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

#[test]
fn the_direct_solver_reaches_the_verdict_in_place_and_a_second_attempt_reuses_the_dataset() {
    // Whatever the checkout already holds (a user may have run the example in place, leaving its `.metewand/`),
    // these runs add nothing to it.
    let before = tree(&example());
    let bench = Bench::empty();
    let state = bench.state();
    let out = bench.out("first");
    let mut args = run_args(&example(), "cholesky", &state);
    args.extend(["--out".to_owned(), out.to_str().unwrap().to_owned()]);
    let first = metewand(&args);
    let stdout = text(&first.stdout);
    assert_eq!(first.status.code(), Some(0), "stdout: {stdout}\nstderr: {}", text(&first.stderr));
    assert!(stdout.starts_with("outcome      reached (verdict: reached)\n"), "{stdout}");
    assert!(stdout.contains("measured by metewand; worker reported"), "{stdout}");
    assert!(stdout.contains(&format!("attempt      {}", out.display())), "{stdout}");
    let first = record(&out);
    assert_eq!(first["verdict"], "reached");
    assert_eq!(first["failure"], Value::Null);
    assert_eq!(first["dataset"]["reused"], false);
    assert_eq!((&first["dataset"]["seed"], &first["implementation"]["seed"]), (&0.into(), &0.into()));
    assert_eq!(first["repository"], example().to_str().unwrap());
    assert!(first["metrics"]["relative_gap"].is_number(), "{}", first["metrics"]);
    let phases: Vec<(&str, &str)> = first["phases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|phase| (phase["role"].as_str().unwrap(), phase["phase"].as_str().unwrap()))
        .collect();
    let expected = [
        ("dataset_materializer", "hello"),
        ("dataset_materializer", "materialize"),
        ("dataset_materializer", "shutdown"),
        ("implementation", "hello"),
        ("implementation", "prepare"),
        ("implementation", "execute"),
        ("implementation", "shutdown"),
        ("problem_evaluator", "hello"),
        ("problem_evaluator", "evaluate"),
        ("problem_evaluator", "shutdown"),
    ];
    assert_eq!(phases, expected);
    for role in ["dataset_materializer", "implementation", "problem_evaluator"] {
        assert!(out.join("logs").join(format!("{role}.log")).is_file());
    }
    // The attempt keeps what a reader needs; each worker ran in the store's read-only copy of its own folder, with
    // the shared package where the worker includes it.
    let mut kept: Vec<String> = fs::read_dir(out.join("work"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    kept.sort_unstable();
    assert_eq!(kept, ["metrics", "result"]);
    let mut copies: Vec<Vec<String>> = fs::read_dir(state.join("sources"))
        .unwrap()
        .map(|entry| {
            let copy = entry.unwrap().path();
            assert!(fs::metadata(&copy).unwrap().permissions().readonly(), "{}", copy.display());
            let mut files: Vec<String> = ["generate.py", "cholesky.py", "judge.py", "ridge/__init__.py"]
                .into_iter()
                .filter(|file| copy.join(file).is_file())
                .map(str::to_owned)
                .collect();
            files.sort_unstable();
            files
        })
        .collect();
    copies.sort_unstable();
    assert_eq!(
        copies,
        [vec!["cholesky.py", "ridge/__init__.py"], vec!["generate.py"], vec!["judge.py", "ridge/__init__.py"]]
    );
    let key = first["dataset"]["key"].as_str().unwrap();
    let entry = state.join("datasets").join(key);
    assert!(fs::metadata(entry.join("matrix.csv")).unwrap().permissions().readonly(), "published read-only");

    // The second attempt, in a default attempt folder, reuses the verified dataset; seeds are recorded.
    let mut args = run_args(&example(), "cholesky-direct", &state);
    args.extend(["--implementation-seed".to_owned(), "7".to_owned()]);
    let second = metewand(&args);
    assert_eq!(second.status.code(), Some(0), "{}", text(&second.stderr));
    let attempts: Vec<PathBuf> =
        fs::read_dir(state.join("attempts")).unwrap().map(|entry| entry.unwrap().path()).collect();
    assert_eq!(attempts.len(), 1);
    let second = record(&attempts[0]);
    assert_eq!(second["dataset"]["reused"], true);
    assert_eq!(second["dataset"]["key"], key);
    assert_eq!(second["dataset"]["materializer"]["sdk"], Value::Null, "the materializer did not run");
    assert_eq!(second["implementation"]["sdk"], Value::Null, "a direct protocol worker");
    assert_eq!(second["implementation"]["seed"], 7);
    assert_eq!(second["logs"]["dataset_materializer"], Value::Null);
    assert_eq!(tree(&example()), before, "nothing is written into the checkout");
}

#[test]
fn the_conjugate_gradient_streams_a_profile_whose_residual_falls_as_its_time_grows() {
    let bench = Bench::new();
    let mut args = bench.args("cg", "profile");
    let problem = args.iter().position(|arg| arg == "ridge").unwrap();
    args[problem] = "ridge-profile".to_owned();
    let output = metewand(&args);
    assert_eq!(output.status.code(), Some(0), "stderr: {}", text(&output.stderr));
    let stdout = text(&output.stdout);
    let line = stdout.lines().find(|line| line.starts_with("profile      ")).expect("a profile line");
    assert!(line.contains(" checkpoints, the last at ") && line.contains("; first reached: checkpoint "), "{line}");
    let record = record(&bench.out("profile"));
    assert_eq!(record["implementation"]["selected"], json!(["streaming_profile"]));
    let profile = record["implementation"]["profile"].as_array().expect("a profile");
    assert!(profile.len() >= 10, "{profile:?}");
    let times: Vec<u64> = profile.iter().map(|point| point["time_ns"].as_u64().unwrap()).collect();
    assert!(times.windows(2).all(|pair| pair[0] < pair[1]), "the times grow: {times:?}");
    let residuals: Vec<f64> = profile.iter().map(|point| point["metrics"]["residual"].as_f64().unwrap()).collect();
    // Conjugate gradients on this dataset: the residual falls at each checkpoint until it is at rounding level.
    for pair in residuals.windows(2) {
        assert!(pair[1] < pair[0] || pair[0] < 1e-9, "the residual falls: {residuals:?}");
    }
    assert!(residuals[0] > 1.0 && *residuals.last().unwrap() < 1e-9, "{residuals:?}");
    let verdicts: Vec<&str> = profile.iter().map(|point| point["verdict"].as_str().unwrap()).collect();
    assert_eq!(verdicts[0], "not_reached");
    assert_eq!(*verdicts.last().unwrap(), "reached");
    // The execute phase is the executor's time, the held intervals left out: the last checkpoint came within it.
    let execute = record["phases"].as_array().unwrap().iter().find(|phase| phase["phase"] == "execute").unwrap();
    assert!(execute["duration_ns"].as_u64().unwrap() >= *times.last().unwrap(), "{execute}");
}

#[test]
fn too_few_iterations_do_not_reach_the_verdict() {
    let bench = Bench::empty();
    let out = bench.out("attempt");
    let mut args = run_args(&example(), "cg-too-few", &bench.state());
    args.extend(["--out".to_owned(), out.to_str().unwrap().to_owned()]);
    let output = metewand(&args);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let record = record(&out);
    assert_eq!((&record["outcome"], &record["verdict"]), (&"not_reached".into(), &"not_reached".into()));
    assert_eq!(record["implementation"]["statistics"]["iterations"], 2);
}

#[test]
fn tampering_with_the_result_after_its_manifest_is_invalid_output() {
    let bench = Bench::new();
    bench.misbehaving_implementation("tamper", "tamper");
    let output = bench.run("tamper", "attempt");
    let record = failed(&output, &bench.out("attempt"), "implementation", "execute", "invalid_output");
    assert!(record["failure"]["message"].as_str().unwrap().contains("solution.json"), "{}", record["failure"]);
    assert_eq!(record["implementation"]["files"], Value::Null);
    assert_eq!(record["verdict"], Value::Null);
}

#[test]
fn modifying_the_dataset_is_dataset_modified_and_the_next_attempt_rebuilds_it() {
    // A worker cannot write the store any more: the test changes the entry while the implementation's session
    // runs, as an unconfined process could.
    let bench = Bench::new();
    let output = run_paused(&bench, "vandal", "first", || {
        let datasets = bench.state().join("datasets");
        let entry = fs::read_dir(&datasets)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .find(|path| path.is_dir())
            .expect("the published entry");
        make_writable(&entry);
        let mut rhs = fs::OpenOptions::new().append(true).open(entry.join("rhs.csv")).unwrap();
        std::io::Write::write_all(&mut rhs, b"0.0\n").unwrap();
    });
    let record = failed(&output, &bench.out("first"), "implementation", "execute", "dataset_modified");
    let key = record["dataset"]["key"].as_str().unwrap();
    assert!(!bench.state().join("datasets").join(key).exists(), "a modified dataset is evicted");
    let again = bench.run("cholesky", "second");
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    assert_eq!(self::record(&bench.out("second"))["dataset"]["reused"], false);
}

/// Another run replaces the store's entry (the same dataset, in another folder) while the implementation runs: the
/// evaluator started beside the implementation was shown the entry it replaced, so it is ended (its hello recorded),
/// and a new one evaluates on the entry resolved again. Nothing is blamed on a worker.
#[test]
fn an_entry_replaced_by_another_run_during_the_implementation_gets_a_new_evaluator() {
    let bench = Bench::new();
    let output = run_paused(&bench, "patient", "attempt", || {
        let entry = entry_of_running(&bench);
        let copy = entry.with_file_name(".replacement");
        let status = Command::new("cp").arg("-a").arg(&entry).arg(&copy).status().unwrap();
        assert!(status.success());
        fs::rename(&entry, entry.with_file_name(".replaced")).unwrap();
        fs::rename(&copy, &entry).unwrap();
    });
    assert_eq!(output.status.code(), Some(0), "stdout: {}\nstderr: {}", text(&output.stdout), text(&output.stderr));
    let record = record(&bench.out("attempt"));
    assert_eq!(record["verdict"], "reached", "{}", record["failure"]);
    let evaluator: Vec<&str> = record["phases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|phase| phase["role"] == "problem_evaluator")
        .map(|phase| phase["phase"].as_str().unwrap())
        .collect();
    if evaluator_beside() {
        assert_eq!(evaluator, ["hello", "hello", "evaluate", "shutdown"], "the started evaluator, then a new one");
    } else {
        assert_eq!(evaluator, ["hello", "evaluate", "shutdown"], "one evaluator, started after the implementation");
    }
    assert_eq!(record["logs"]["problem_evaluator"], "logs/problem_evaluator.log", "the new evaluator's log");
    assert!(bench.out("attempt/logs/problem_evaluator.log").is_file());
    assert!(record["metrics"]["relative_gap"].is_number(), "{}", record["metrics"]);
}

#[test]
fn an_out_folder_is_made_with_its_missing_parents() {
    let bench = Bench::new();
    let output = bench.run("cholesky", "not/yet/there");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(record(&bench.out("not/yet/there"))["outcome"], "reached");
}

#[test]
fn a_broken_repository_starts_no_attempt() {
    let bench = Bench::new();
    bench.replace("format = 1", "format = 1\nbogus = true");
    let output = bench.run("cholesky", "attempt");
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("metewand.toml:") && stderr.ends_with('\n'), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one sentence: {stderr}");
    assert!(!bench.out("attempt").exists() && !bench.state().exists(), "nothing was touched");
}

#[test]
fn usage_errors_and_a_non_empty_out_start_no_attempt() {
    let bench = Bench::new();
    let unknown = bench.run("no-such-implementation", "attempt");
    assert_eq!(unknown.status.code(), Some(2));
    assert!(text(&unknown.stderr).contains("no implementation named \"no-such-implementation\""));
    fs::create_dir(bench.out("full")).unwrap();
    fs::write(bench.out("full/keep.txt"), "mine").unwrap();
    let full = bench.run("cholesky", "full");
    assert_eq!(full.status.code(), Some(2));
    assert!(text(&full.stderr).contains("is not empty"), "{}", text(&full.stderr));
    assert_eq!(fs::read_dir(bench.out("full")).unwrap().count(), 1, "nothing touched");
    let missing = metewand(&["run".to_owned(), bench.repo().to_str().unwrap().to_owned()]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("--problem <P>"));
    let help = metewand(&["run".to_owned(), "--help".to_owned()]);
    assert_eq!(help.status.code(), Some(0));
    for flag in ["--problem", "--dataset", "--implementation", "--dataset-seed", "--implementation-seed", "--out"] {
        assert!(text(&help.stdout).contains(flag), "{flag}");
    }
    assert!(!bench.state().exists());
}

#[test]
fn a_worker_command_that_does_not_exist_is_spawn_failed() {
    let bench = Bench::new();
    bench.replace("command = [\"python3\", \"cholesky.py\"]", "command = [\"metewand-no-such-program\"]");
    let output = bench.run("cholesky", "attempt");
    let record = failed(&output, &bench.out("attempt"), "implementation", "hello", "spawn_failed");
    let message = record["failure"]["message"].as_str().unwrap();
    assert!(message.contains("cannot start \"metewand-no-such-program\": No such file"), "{message}");
    assert!(text(&output.stdout).contains("small seed 0 (materialized)"), "{}", text(&output.stdout));
    assert_eq!(record["implementation"]["capabilities"], Value::Null);
    assert_eq!(record["logs"]["implementation"], "logs/implementation.log");
}

#[test]
fn a_materializer_that_cannot_start_names_its_program_and_the_summary_says_materialization_failed() {
    let bench = Bench::new();
    bench.replace("command = [\"python3\", \"generate.py\"]", "command = [\"python3x-metewand-missing\"]");
    let output = bench.run("cholesky", "attempt");
    let record = failed(&output, &bench.out("attempt"), "dataset_materializer", "hello", "spawn_failed");
    let message = record["failure"]["message"].as_str().unwrap();
    assert!(
        message.contains("cannot start \"python3x-metewand-missing\": No such file or directory (os error 2)"),
        "{message}"
    );
    let stdout = text(&output.stdout);
    assert!(stdout.contains("cannot start \"python3x-metewand-missing\""), "{stdout}");
    let dataset_line = stdout.lines().find(|line| line.starts_with("dataset ")).unwrap();
    assert!(dataset_line.contains("(materialization failed)"), "{stdout}");
    assert_eq!(record["dataset"]["files"], Value::Null);
}

#[test]
fn a_crashing_worker_is_worker_exit_with_its_log_kept() {
    let bench = Bench::new();
    bench.misbehaving_implementation("crash", "crash");
    let output = bench.run("crash", "attempt");
    failed(&output, &bench.out("attempt"), "implementation", "execute", "worker_exit");
    assert!(log(&bench.out("attempt"), "implementation").contains("executing in mode crash"));
    let stdout = text(&output.stdout);
    let log = bench.out("attempt/logs/implementation.log");
    assert!(stdout.contains(&format!("worker log   {}\n", log.display())), "{stdout}");
}

#[test]
fn a_worker_that_dies_before_hello_says_why_through_its_last_stderr_line_made_printable() {
    let bench = Bench::new();
    bench.worker_file(
        "no_sdk.py",
        "import sys\nsys.stderr.write('Traceback (most recent call last):\\n')\n\
         sys.stderr.write(\"\\x1b[2JModuleNotFoundError: No module named 'metewand'\\n\\n\")\nsys.exit(1)\n",
    );
    bench.append(
        "\n[workers.no-sdk]\nrole = \"implementation\"\ncommand = [\"python3\", \"no_sdk.py\"]\nsource = \"workers\"\n\n\
         [implementations.no-sdk]\nworker = \"no-sdk\"\nparameters = {}\n",
    );
    let output = bench.run("no-sdk", "attempt");
    let record = failed(&output, &bench.out("attempt"), "implementation", "hello", "worker_exit");
    let message = record["failure"]["message"].as_str().unwrap();
    assert!(
        message.ends_with("its stderr ended with: \\u{1b}[2JModuleNotFoundError: No module named 'metewand'"),
        "{message}"
    );
    let stdout = text(&output.stdout);
    assert!(stdout.contains("No module named 'metewand'") && !stdout.contains('\u{1b}'), "{stdout}");
}

#[test]
fn garbage_on_stdout_is_a_protocol_violation() {
    let bench = Bench::new();
    bench.misbehaving_implementation("garbage", "garbage");
    let output = bench.run("garbage", "attempt");
    failed(&output, &bench.out("attempt"), "implementation", "execute", "protocol_violation");
    assert!(log(&bench.out("attempt"), "implementation").contains("executing in mode garbage"));
}

#[test]
fn a_hanging_worker_ends_at_its_phase_limit_or_its_scientific_budget() {
    let bench = Bench::new();
    bench.misbehaving_implementation("hang", "hang");
    bench.replace("execute = 120", "execute = 1");
    let output = bench.run("hang", "phase");
    failed(&output, &bench.out("phase"), "implementation", "execute", "phase_timeout");
    assert!(log(&bench.out("phase"), "implementation").contains("executing in mode hang"));
    bench.replace("execute = 1", "execute = 120");
    bench.replace("implementation = 120", "implementation = 1.5");
    let output = bench.run("hang", "budget");
    failed(&output, &bench.out("budget"), "implementation", "execute", "scientific_timeout");
}

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

/// Sends `signal` to `metewand run` while its implementation hangs in `execute`: the worker is ended, the attempt
/// recorded `cancelled` in the implementation's `execute`, and the exit status is 130.
fn cancelled_during_execute_by(name: &str) {
    let bench = Bench::new();
    bench.misbehaving_implementation("hang", "hang");
    let child = command(&bench.args("hang", "attempt")).spawn().unwrap();
    let log = bench.out("attempt/logs/implementation.log");
    wait_for("execute", || fs::read_to_string(&log).is_ok_and(|text| text.contains("executing")));
    let pid = worker_pid(child.id(), "misbehave.py").expect("the worker runs below metewand");
    // Where the evaluator was started beside the implementation, it waits, stopped, for the implementation's end.
    let judge = worker_pid(child.id(), "judge.py");
    assert_eq!(judge.is_some(), evaluator_beside(), "{name}: the evaluator runs only where it starts beside");
    if let Some(judge) = &judge {
        assert!(metewand_testkit::held(judge.parse().unwrap()), "{name}: it is stopped: {:?}", process_state(judge));
    }
    signal(&child, name);
    // The worker would hang for ten minutes: a run that ends within the guard ended it.
    let output = wait_guarded(child, Duration::from_secs(60));
    assert_eq!(output.status.code(), Some(130), "{name}: {}", text(&output.stderr));
    assert!(!Path::new("/proc").join(&pid).exists(), "{name}: the worker {pid} was ended and reaped");
    if let Some(judge) = judge {
        assert!(
            !Path::new("/proc").join(&judge).exists(),
            "{name}: the started evaluator {judge} was ended and reaped"
        );
    }
    let record = record(&bench.out("attempt"));
    assert_eq!(record["outcome"], "cancelled");
    let failure = &record["failure"];
    assert_eq!(
        (&failure["role"], &failure["phase"], &failure["kind"]),
        (&"implementation".into(), &"execute".into(), &"cancelled".into())
    );
    evaluator_never_evaluated(&record);
    assert!(text(&output.stdout).starts_with("outcome      cancelled"), "{}", text(&output.stdout));
}

#[test]
fn ctrl_c_during_execute_ends_the_worker_and_records_a_cancelled_attempt() {
    cancelled_during_execute_by("-INT");
}

#[test]
fn sigterm_during_execute_ends_the_worker_and_records_a_cancelled_attempt() {
    cancelled_during_execute_by("-TERM");
}

#[test]
fn a_closed_terminal_during_execute_ends_the_worker_and_records_a_cancelled_attempt() {
    cancelled_during_execute_by("-HUP");
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

/// Half a matrix row in the materializer's output (its fourth argument), flushed and left open.
const PARTIAL: &str = r#"partial = args[3].open("matrix.csv"); partial.write("0.5,"); partial.flush()"#;

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

#[test]
fn sigkill_during_materialize_publishes_nothing_and_the_next_run_cleans_up() {
    let bench = Bench::new();
    bench.worker_file("hang_generate.py", &hanging_sdk_worker("generate", "Generate", "materialize", PARTIAL));
    bench.replace("[\"python3\", \"generate.py\"]", "[\"python3\", \"hang_generate.py\", \"hang\"]");
    let mut child = command(&bench.args("cholesky", "killed")).spawn().unwrap();
    let pid = hanging_worker(&child, &bench.out("killed/logs/dataset_materializer.log"), "hang_generate.py");
    signal(&child, "-KILL");
    child.wait().unwrap();
    assert_worker_dies(&pid);
    let left = staging_folders(&bench.state());
    assert!(left.iter().all(|name| name.starts_with(".tmp-")), "only staging folders: {left:?}");
    assert_eq!(left.len(), 1, "{left:?}");
    let partial = bench.state().join("datasets").join(&left[0]).join("matrix.csv");
    assert_eq!(fs::read_to_string(partial).unwrap(), "0.5,", "the half-written file stayed in staging");
    if bench.out("killed/attempt.json").exists() {
        record(&bench.out("killed"));
    }
    bench.replace("\"hang_generate.py\", \"hang\"]", "\"hang_generate.py\"]");
    let next = bench.run("cholesky", "next");
    assert_eq!(next.status.code(), Some(0), "{}", text(&next.stderr));
    assert_eq!(record(&bench.out("next"))["dataset"]["reused"], false);
    let now = staging_folders(&bench.state());
    assert!(now.iter().all(|name| !name.starts_with(".tmp-")), "the leftover was cleaned: {now:?}");
}

#[test]
fn sigkill_during_evaluate_leaves_no_half_written_record_and_the_next_run_succeeds() {
    let bench = Bench::new();
    bench.worker_file("hang_judge.py", &hanging_sdk_worker("judge", "Judge", "evaluate", "pass"));
    bench.replace("[\"python3\", \"judge.py\"]", "[\"python3\", \"hang_judge.py\", \"hang\"]");
    let mut child = command(&bench.args("cholesky", "killed")).spawn().unwrap();
    let pid = hanging_worker(&child, &bench.out("killed/logs/problem_evaluator.log"), "hang_judge.py");
    signal(&child, "-KILL");
    child.wait().unwrap();
    assert_worker_dies(&pid);
    if bench.out("killed/attempt.json").exists() {
        record(&bench.out("killed"));
    }
    bench.replace("\"hang_judge.py\", \"hang\"]", "\"hang_judge.py\"]");
    let next = bench.run("cholesky", "next");
    assert_eq!(next.status.code(), Some(0), "{}", text(&next.stderr));
    assert_eq!(record(&bench.out("next"))["dataset"]["reused"], true);
}

#[test]
fn a_worker_reported_failure_keeps_its_code_and_details() {
    let bench = Bench::new();
    bench.misbehaving_implementation("fail", "fail");
    let output = bench.run("fail", "attempt");
    let record = failed(&output, &bench.out("attempt"), "implementation", "execute", "worker_failure");
    assert_eq!(record["failure"]["code"], "operation_failed");
    assert_eq!(record["failure"]["details"], json!({"iterations": 100}));
    assert!(record["failure"]["message"].as_str().unwrap().contains("did not converge"));
}

#[test]
fn exiting_non_zero_after_shutdown_is_worker_exit_in_shutdown() {
    let bench = Bench::new();
    bench.misbehaving_implementation("unclean", "unclean-exit");
    let output = bench.run("unclean", "attempt");
    let record = failed(&output, &bench.out("attempt"), "implementation", "shutdown", "worker_exit");
    assert_eq!(record["implementation"]["files"], Value::Null, "nothing was validated");
    assert_eq!(record["metrics"], Value::Null, "the evaluator, started beside the implementation, never evaluated");
}

/// Replaces the command `python3 SCRIPT` with `python3 FILE`, where `FILE` (written here) subclasses a worker.
fn replace_worker(bench: &Bench, script: &str, file: &str, text: &str) {
    bench.worker_file(file, text);
    bench.replace(&format!("command = [\"python3\", \"{script}\"]"), &format!("command = [\"python3\", \"{file}\"]"));
}

#[test]
fn a_materializer_whose_output_is_invalid_publishes_nothing() {
    let bench = Bench::new();
    let text = "import metewand\nfrom generate import Generate\n\nclass Bad(Generate):\n    \
                def materialize(self, source_dir, parameters, seed, output):\n        \
                super().materialize(source_dir, parameters, seed, output)\n        output.data = {}\n\n\
                metewand.run(Bad)\n";
    replace_worker(&bench, "generate.py", "bad_generate.py", text);
    let output = bench.run("cholesky", "attempt");
    let record = failed(&output, &bench.out("attempt"), "dataset_materializer", "materialize", "invalid_output");
    assert_eq!(record["dataset"]["reused"], false);
    assert_eq!(record["dataset"]["files"], Value::Null);
    assert_eq!(record["logs"]["implementation"], Value::Null, "the implementation never ran");
    assert!(staging_folders(&bench.state()).is_empty(), "nothing published, nothing left");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("small seed 0 (materialization failed)"), "{stdout}");
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

#[test]
fn an_evaluator_that_changes_the_result_is_invalid_output_beside_its_verdict() {
    // The evaluator cannot write the result any more; the test changes it while the evaluator's session runs.
    let bench = Bench::new();
    let output = paused_evaluator(&bench, || fs::write(bench.out("attempt/work/result/solution.json"), "{}").unwrap());
    let record = failed(&output, &bench.out("attempt"), "problem_evaluator", "evaluate", "invalid_output");
    assert_eq!(record["verdict"], "reached", "a verdict already obtained is recorded beside the failure");
    assert!(record["failure"]["message"].as_str().unwrap().contains("the result changed"), "{}", record["failure"]);
    assert_eq!(record["metrics"], Value::Null);
}

#[test]
fn an_evaluator_that_modifies_the_dataset_is_dataset_modified() {
    // The evaluator cannot write the store any more; the test removes a file while the evaluator's session runs.
    let bench = Bench::new();
    let output = paused_evaluator(&bench, || {
        let datasets = bench.state().join("datasets");
        let entry = fs::read_dir(&datasets).unwrap().map(|entry| entry.unwrap().path()).find(|path| path.is_dir());
        let entry = entry.expect("the published entry");
        make_writable(&entry);
        fs::remove_file(entry.join("rhs.csv")).unwrap();
    });
    let record = failed(&output, &bench.out("attempt"), "problem_evaluator", "evaluate", "dataset_modified");
    let key = record["dataset"]["key"].as_str().unwrap();
    assert!(!bench.state().join("datasets").join(key).exists(), "evicted");
}

#[test]
fn a_stored_dataset_changed_between_attempts_is_rebuilt() {
    let bench = Bench::new();
    let first = bench.run("cholesky", "first");
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let key = record(&bench.out("first"))["dataset"]["key"].as_str().unwrap().to_owned();
    let entry = bench.state().join("datasets").join(&key);
    let status = Command::new("chmod").args(["-R", "u+w"]).arg(&entry).status().unwrap();
    assert!(status.success());
    fs::write(entry.join("rhs.csv"), "1.0\n").unwrap();
    let second = bench.run("cholesky", "second");
    assert_eq!(second.status.code(), Some(0), "{}", text(&second.stderr));
    let second = record(&bench.out("second"));
    assert_eq!(second["dataset"]["reused"], false, "re-verification failed, so it was rebuilt");
    assert_eq!(second["dataset"]["key"], key.as_str());
}

#[test]
fn concurrent_attempts_on_a_new_dataset_publish_it_once() {
    let bench = Bench::new();
    let children: Vec<Child> =
        ["one", "two", "three"].iter().map(|out| command(&bench.args("cholesky", out)).spawn().unwrap()).collect();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    }
    let keys: Vec<Value> =
        ["one", "two", "three"].iter().map(|out| record(&bench.out(out))["dataset"]["key"].clone()).collect();
    assert!(keys.iter().all(|key| *key == keys[0]));
    let key = keys[0].as_str().unwrap();
    let expected = vec![key.to_owned(), format!("{key}.published")];
    assert_eq!(staging_folders(&bench.state()), expected, "one entry beside its record, no leftovers");
}

/// Runs `metewand`, killing it (and failing) if it has not ended within two minutes: the attacks below used to make
/// it block forever. This bounds a hang; it measures nothing.
fn metewand_bounded(args: &[String]) -> Output {
    let mut child = command(args).spawn().unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let output = child.wait_with_output().unwrap();
            panic!("metewand hung; stdout: {}\nstderr: {}", text(&output.stdout), text(&output.stderr));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
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

use metewand_testkit::mkfifo;

/// An executor error with no role or phase, whose message names `path`; returns the record.
fn executor_error(output: &Output, folder: &Path, path: &str) -> Value {
    assert_eq!(output.status.code(), Some(3), "stdout: {}\nstderr: {}", text(&output.stdout), text(&output.stderr));
    let record = record(folder);
    let failure = &record["failure"];
    assert_eq!((&failure["role"], &failure["phase"]), (&Value::Null, &Value::Null), "{failure}");
    assert_eq!(failure["kind"], "executor_error", "{failure}");
    assert!(failure["message"].as_str().unwrap().contains(path), "{failure}");
    record
}

#[test]
fn a_fifo_or_a_link_at_the_records_temporary_name_is_an_executor_error_not_a_hang() {
    // Workers cannot write the attempt folder any more; the test puts the entry there during a session.
    let bench = Bench::new();
    let output = run_paused(&bench, "fifo", "fifo", || mkfifo(&bench.out("fifo/.attempt.json.tmp")));
    let record = executor_error(&output, &bench.out("fifo"), ".attempt.json.tmp");
    assert!(record["failure"]["message"].as_str().unwrap().contains("FIFO"), "{}", record["failure"]);
    assert_eq!(record["verdict"], "reached", "the sessions themselves succeeded and are recorded");
    assert!(!bench.out("fifo/.attempt.json.tmp").exists());

    let stolen = bench.out("stolen.json");
    let output = run_paused(&bench, "link", "link", || {
        std::os::unix::fs::symlink(&stolen, bench.out("link/.attempt.json.tmp")).unwrap();
    });
    executor_error(&output, &bench.out("link"), ".attempt.json.tmp");
    let metadata = fs::symlink_metadata(bench.out("link/attempt.json")).unwrap();
    assert!(metadata.is_file(), "attempt.json is a regular file, not the worker's link");
    assert!(!stolen.exists(), "the write was not redirected");
    assert!(fs::symlink_metadata(bench.out("link/.attempt.json.tmp")).is_err(), "nothing is left at the name");
}

#[test]
fn a_fifo_at_the_evaluators_log_is_the_implementations_invalid_output_not_a_hang() {
    let bench = Bench::new();
    // Where the evaluator starts beside the implementation, its log is made before either worker runs; a foreign
    // writer replaces it with a FIFO (elsewhere, puts one where it will be made).
    let output = run_paused(&bench, "fifo", "attempt", || {
        if evaluator_beside() {
            fs::remove_file(bench.out("attempt/logs/problem_evaluator.log")).unwrap();
        }
        mkfifo(&bench.out("attempt/logs/problem_evaluator.log"));
    });
    let record = failed(&output, &bench.out("attempt"), "implementation", "execute", "invalid_output");
    let message = record["failure"]["message"].as_str().unwrap();
    assert!(message.contains("logs/problem_evaluator.log") && message.contains("FIFO"), "{message}");
    evaluator_never_evaluated(&record);
    assert!(record["implementation"]["files"].is_array(), "the implementation's own result was valid");
}

#[test]
fn what_the_implementation_leaves_in_the_evaluators_folders_is_blamed_on_the_implementation() {
    // What the implementation's session left there: put by the test while that session runs.
    let bench = Bench::new();
    let output = run_paused(&bench, "notes", "notes", || {
        fs::create_dir_all(bench.out("notes/work/metrics")).unwrap();
        fs::write(bench.out("notes/work/metrics/notes.txt"), "the evaluator wrote this\n").unwrap();
    });
    let record = failed(&output, &bench.out("notes"), "implementation", "execute", "invalid_output");
    assert!(record["failure"]["message"].as_str().unwrap().contains("work/metrics"), "{}", record["failure"]);
    evaluator_never_evaluated(&record);

    let output = run_paused(&bench, "squatter", "squatter", || {
        fs::create_dir_all(bench.out("squatter/work/tmp-problem_evaluator/squat")).unwrap();
    });
    let record = failed(&output, &bench.out("squatter"), "implementation", "execute", "invalid_output");
    let message = record["failure"]["message"].as_str().unwrap();
    assert!(message.contains("work/tmp-problem_evaluator"), "{message}");
}

/// Rewrites an entry's `rhs.csv` with zeros and its manifest to match, so that the entry still validates against
/// its own manifest (Python, for its stdlib SHA-256).
fn rewrite_consistently(entry: &Path) {
    make_writable(entry);
    let script = r#"
import hashlib, json, os, sys
entry = sys.argv[1]
manifest_path = os.path.join(entry, "dataset-manifest.json")
manifest = json.load(open(manifest_path))
rhs = os.path.join(entry, manifest["data"]["rhs"])
rows = len(open(rhs).read().splitlines())
open(rhs, "w").write("0.0\n" * rows)
content = open(rhs, "rb").read()
for record in manifest["files"]:
    if record["path"] == manifest["data"]["rhs"]:
        record["sha256"], record["size"] = hashlib.sha256(content).hexdigest(), len(content)
open(manifest_path, "w").write(json.dumps(manifest, sort_keys=True, separators=(",", ":")))
"#;
    let status = Command::new("python3").arg("-c").arg(script).arg(entry).status().unwrap();
    assert!(status.success());
}

#[test]
fn an_entry_rewritten_consistently_by_another_attempts_worker_is_never_reused() {
    // Another attempt's worker can no longer write the store; the test rewrites the entry between attempts, as
    // any process outside the sandbox could.
    let bench = Bench::new();
    let genuine = metewand(&bench.args_with("cholesky", "genuine", &["--dataset-seed", "1"]));
    assert_eq!(genuine.status.code(), Some(0), "{}", text(&genuine.stderr));
    let genuine = record(&bench.out("genuine"));
    let key = genuine["dataset"]["key"].as_str().unwrap().to_owned();
    assert_eq!(key, bench.key(1));
    rewrite_consistently(&bench.state().join("datasets").join(&key));
    let rhs = fs::read_to_string(bench.state().join("datasets").join(&key).join("rhs.csv")).unwrap();
    assert!(rhs.lines().all(|line| line == "0.0"), "the attack did rewrite the entry");

    let again = metewand(&bench.args_with("cholesky", "again", &["--dataset-seed", "1"]));
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    assert!(text(&again.stdout).contains("(materialized)"), "{}", text(&again.stdout));
    let again = record(&bench.out("again"));
    assert_eq!(again["dataset"]["key"], key.as_str(), "the same entry was looked up");
    assert_eq!(again["dataset"]["reused"], false, "the rewritten entry does not match its record");
    assert_eq!(again["dataset"]["files"], genuine["dataset"]["files"], "the genuine data was rebuilt");
}

#[test]
fn a_forged_entry_for_a_key_never_materialized_is_never_reused() {
    // A worker can no longer plant entries in the store; the test plants a copy of another attempt's entry
    // (data and manifest) under a key never materialized, as a process outside the sandbox could.
    let bench = Bench::new();
    let key = bench.key(7);
    let attack = metewand(&bench.args("cholesky", "attack"));
    assert_eq!(attack.status.code(), Some(0), "{}", text(&attack.stderr));
    let forged = record(&bench.out("attack"));
    let own = entry_of(&bench, "attack");
    let planted = bench.state().join("datasets").join(&key);
    fs::create_dir(&planted).unwrap();
    for file in fs::read_dir(&own).unwrap() {
        let file = file.unwrap();
        fs::copy(file.path(), planted.join(file.file_name())).unwrap();
    }
    assert!(planted.join("dataset-manifest.json").is_file(), "planted");

    let victim = metewand(&bench.args_with("cholesky", "victim", &["--dataset-seed", "7"]));
    assert_eq!(victim.status.code(), Some(0), "{}", text(&victim.stderr));
    let victim = record(&bench.out("victim"));
    assert_eq!(victim["dataset"]["key"], key.as_str());
    assert_eq!(victim["dataset"]["reused"], false, "an entry without the executor's record is rebuilt");
    assert_ne!(victim["dataset"]["files"], forged["dataset"]["files"], "the seed-7 data, not the forged copy");
    assert!(bench.state().join("datasets").join(format!("{key}.published")).is_file());
}

#[test]
fn an_entry_evicted_by_another_attempt_during_a_session_is_resolved_again_not_blamed() {
    let bench = Bench::new();
    bench.misbehaving_implementation("patient", "pause");
    let patient = command(&bench.args("patient", "patient")).spawn().unwrap();
    let log_path = bench.out("patient/logs/implementation.log");
    wait_for("the pause", || fs::read_to_string(&log_path).is_ok_and(|text| text.contains("paused")));
    // The shared entry changes while another attempt's implementation runs (changed by the test: no worker can
    // write the store); that attempt evicts it and blames its own session.
    let vandal = run_paused(&bench, "vandal", "vandal", || {
        let entry = entry_of_running(&bench);
        make_writable(&entry);
        let mut rhs = fs::OpenOptions::new().append(true).open(entry.join("rhs.csv")).unwrap();
        std::io::Write::write_all(&mut rhs, b"0.0\n").unwrap();
    });
    let vandal = failed(&vandal, &bench.out("vandal"), "implementation", "execute", "dataset_modified");
    assert_eq!(vandal["dataset"]["reused"], true, "the vandal used the patient attempt's entry");
    go_ahead(&bench, "patient", "implementation");
    let output = patient.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0), "stdout: {}\nstderr: {}", text(&output.stdout), text(&output.stderr));
    let record = record(&bench.out("patient"));
    assert_eq!(record["failure"], Value::Null);
    assert_eq!(record["verdict"], "reached");
    let materializations =
        record["phases"].as_array().unwrap().iter().filter(|phase| phase["phase"] == "materialize").count();
    assert_eq!(materializations, 2, "the evicted dataset was rebuilt before the evaluator's session");
    assert!(bench.out("patient/logs/dataset_materializer-1.log").is_file(), "the first materializer's log is kept");
}

#[test]
fn a_full_disk_records_and_prints_the_first_failure_and_leaves_nothing_half_written() {
    let bench = Bench::new();
    // A source larger than the whole state folder: copying it is what fills the disk.
    fs::write(bench.repo().join("workers/padding.bin"), vec![7u8; 512 * 1024]).unwrap();
    let Some(tmpfs) = Tmpfs::mount(&bench.state(), "256k") else { return };
    let out = bench.state().join("attempt");
    let mut args = run_args(&bench.repo(), "cholesky", &bench.state());
    args.extend(["--out".to_owned(), out.to_str().unwrap().to_owned()]);
    let output = metewand_bounded(&args);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(3), "stdout: {stdout}\nstderr: {}", text(&output.stderr));
    assert!(
        stdout.contains("failure      executor_error") && stdout.contains("copying the worker's source"),
        "{stdout}"
    );
    assert!(stdout.contains("No space left on device"), "{stdout}");
    let record = executor_error(&output, &out, "No space left on device");
    assert_eq!(record["logs"]["implementation"], Value::Null);
    assert!(!out.join(".attempt.json.tmp").exists(), "no temporary record is left");
    let sources: Vec<_> = fs::read_dir(bench.state().join("sources")).unwrap().collect();
    assert!(sources.is_empty(), "no half-written source copy is left: {sources:?}");
    drop(tmpfs);
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

#[test]
fn a_state_or_attempt_folder_inside_a_worker_source_is_refused_before_anything_is_created() {
    let bench = Bench::new();
    let before = tree(bench.dir.path());
    std::os::unix::fs::symlink(bench.repo().join("workers"), bench.out("link")).unwrap();
    let workers = bench.repo().join("workers");
    let inside = [
        ("--state-dir", workers.join("state")),
        ("--state-dir", workers.clone()),
        ("--state-dir", workers.join("new/deeper/../state")),
        ("--state-dir", bench.out("link/state")),
        ("--state-dir", bench.repo().join("schemas/../workers/state")),
        ("--out", workers.join("attempt")),
        ("--out", bench.out("link/attempt")),
    ];
    for (flag, path) in inside {
        let mut args = run_args(&bench.repo(), "cholesky", &bench.state());
        if flag == "--state-dir" {
            *args.last_mut().unwrap() = path.to_str().unwrap().to_owned();
        } else {
            args.extend([flag.to_owned(), path.to_str().unwrap().to_owned()]);
        }
        let output = metewand(&args);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{flag} {}: {stderr}", path.display());
        assert_eq!(stderr.lines().count(), 1, "one sentence: {stderr}");
        assert!(
            stderr.contains(&format!("{flag} {}", path.display()))
                && stderr.contains("source folder \"workers\" of worker \"cholesky\""),
            "{stderr}"
        );
        assert!(output.stdout.is_empty());
        let mut now = tree(bench.dir.path());
        now.remove(&bench.out("link"));
        assert_eq!(now, before, "{flag} {}: nothing was created", path.display());
    }
    // A folder the source walk skips is not in the source.
    let mut args = run_args(&bench.repo(), "cholesky", &workers.join(".metewand"));
    args.extend(["--out".to_owned(), bench.out("attempt").to_str().unwrap().to_owned()]);
    let output = metewand(&args);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
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

/// The judge in a source folder of its own, `judge-src/`, so that no earlier session of the attempt has made its
/// copy in the store.
fn judge_alone(bench: &Bench) {
    fs::create_dir_all(bench.repo().join("judge-src/ridge")).unwrap();
    fs::copy(bench.repo().join("workers/judge.py"), bench.repo().join("judge-src/judge.py")).unwrap();
    fs::copy(bench.repo().join("workers/ridge/__init__.py"), bench.repo().join("judge-src/ridge/__init__.py")).unwrap();
    bench.replace(
        "command = [\"python3\", \"judge.py\"]\nsource = \"workers\"",
        "command = [\"python3\", \"judge.py\"]\nsource = \"judge-src\"",
    );
}

/// Where the evaluator's session starts beside the implementation's, its source is checked and copied before either
/// worker runs, so what replaces the repository's evaluator source during the implementation's session, an edit, a
/// FIFO or a link to `/dev/zero`, changes nothing in this attempt: the evaluator runs the checked copy. Elsewhere the
/// copy is made after the implementation's session, and fails at once naming the file.
fn source_attack(mode: &str) {
    // A worker can no longer write the repository; the test replaces the file during the implementation's session.
    let bench = Bench::new();
    judge_alone(&bench);
    let output = run_paused(&bench, "attacker", "attempt", || {
        let judge = bench.repo().join("judge-src").join("judge.py");
        if mode == "edit-judge" {
            let mut file = fs::OpenOptions::new().append(true).open(&judge).unwrap();
            std::io::Write::write_all(&mut file, b"import sys\nprint('PLANTED JUDGE RAN', file=sys.stderr)\n").unwrap();
        } else {
            fs::remove_file(&judge).unwrap();
            if mode == "fifo-judge" {
                mkfifo(&judge);
            } else {
                std::os::unix::fs::symlink("/dev/zero", &judge).unwrap();
            }
        }
    });
    let record = record(&bench.out("attempt"));
    if evaluator_beside() {
        assert_eq!(output.status.code(), Some(0), "stdout: {}\nstderr: {}", text(&output.stdout), text(&output.stderr));
        assert_eq!(record["verdict"], "reached", "{mode}: {}", record["failure"]);
        assert!(record["metrics"]["relative_gap"].is_number(), "{mode}: the evaluator evaluated");
        assert!(!log(&bench.out("attempt"), "problem_evaluator").contains("PLANTED"), "{mode}: the checked code ran");
        return;
    }
    // Elsewhere the evaluator's copy is made after the implementation's session: it fails at once with an executor
    // error naming the file, and no evaluator runs.
    assert_eq!(output.status.code(), Some(3), "stdout: {}\nstderr: {}", text(&output.stdout), text(&output.stderr));
    let failure = &record["failure"];
    assert_eq!((&failure["role"], &failure["kind"]), (&Value::Null, &"executor_error".into()), "{mode}: {failure}");
    let message = failure["message"].as_str().unwrap();
    assert!(message.contains("the source of worker \"judge\" no longer matches"), "{mode}: {message}");
    assert!(message.contains("\"judge.py\""), "{mode}: {message}");
    assert_eq!(record["logs"]["problem_evaluator"], Value::Null, "{mode}: the evaluator never started");
}

#[test]
fn a_fifo_in_place_of_the_evaluator_source_during_the_implementation_changes_nothing() {
    source_attack("fifo-judge");
}

#[test]
fn a_link_to_dev_zero_in_place_of_the_evaluator_source_during_the_implementation_changes_nothing() {
    source_attack("zero-judge");
}

#[test]
fn an_evaluator_source_changed_during_the_implementation_changes_nothing_the_checked_copy_runs() {
    source_attack("edit-judge");
}

/// Once the store holds the verified copy of a source (here made by the materializer, whose folder the judge
/// shares), a change to the repository's files after the check changes nothing: the evaluator runs the checked code.
#[test]
fn an_evaluator_source_changed_after_its_copy_was_made_runs_the_checked_code() {
    let bench = Bench::new();
    let output = run_paused(&bench, "attacker", "attempt", || {
        let judge = bench.repo().join("workers").join("judge.py");
        let mut file = fs::OpenOptions::new().append(true).open(&judge).unwrap();
        std::io::Write::write_all(&mut file, b"import sys\nprint('PLANTED JUDGE RAN', file=sys.stderr)\n").unwrap();
    });
    assert_eq!(output.status.code(), Some(0), "stdout: {}\nstderr: {}", text(&output.stdout), text(&output.stderr));
    assert!(text(&output.stdout).starts_with("outcome      reached"), "{}", text(&output.stdout));
    assert!(!log(&bench.out("attempt"), "problem_evaluator").contains("PLANTED"), "the checked judge ran");
}

#[test]
fn ctrl_c_while_a_huge_result_is_hashed_is_cancelled() {
    let bench = Bench::new();
    // 1 TiB of holes, within a 2 TiB output limit: hashing it takes far longer than the guard below waits, so a run
    // that ends within the guard stopped hashing when interrupted.
    bench.misbehaving_implementation("sparse", "sparse:1024");
    bench.append("\n[limits]\noutput_bytes = 2199023255552\n");
    let child = command(&bench.args("sparse", "attempt")).spawn().unwrap();
    let log = bench.out("attempt/logs/implementation.log");
    wait_for("the execute", || fs::read_to_string(&log).is_ok_and(|text| text.contains("executing in mode")));
    // The worker answers once its holes are made, and the result is sealed (hashed) at once, the worker stopped
    // meanwhile; interrupt the hashing a moment in.
    std::thread::sleep(Duration::from_millis(1500));
    signal(&child, "-INT");
    let output = wait_guarded(child, Duration::from_secs(60));
    assert_eq!(output.status.code(), Some(130), "stdout: {}\nstderr: {}", text(&output.stdout), text(&output.stderr));
    let record = record(&bench.out("attempt"));
    assert_eq!(record["outcome"], "cancelled");
    assert_eq!(record["failure"]["kind"], "cancelled", "{}", record["failure"]);
    assert_eq!(record["implementation"]["files"], Value::Null, "the result was never accepted");
    assert_eq!(record["metrics"], Value::Null, "the evaluator, started beside the implementation, never evaluated");
}

#[test]
fn a_result_declaring_more_than_the_output_limit_is_invalid_without_reading_it() {
    let bench = Bench::new();
    bench.misbehaving_implementation("sparse", "sparse");
    bench.append("\n[limits]\noutput_bytes = 1048576\n");
    let output = bench.run("sparse", "attempt");
    let record = failed(&output, &bench.out("attempt"), "implementation", "execute", "invalid_output");
    let message = record["failure"]["message"].as_str().unwrap();
    assert!(message.contains("more than the repository's limit of 1048576"), "{message}");
    assert!(!message.contains("SHA-256"), "nothing was hashed: {message}");
}

/// What `metewand doctor`, run by `command`, says this machine offers, by key (`landlock abi`, `pid namespace`,
/// `user namespace`, `processes`, `confinement`).
fn doctor_of(mut command: Command) -> std::collections::BTreeMap<String, String> {
    let output = command.output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let keys = ["landlock abi", "pid namespace", "user namespace", "processes", "confinement"];
    text(&output.stdout)
        .lines()
        .filter_map(|line| {
            let key = keys.iter().find(|key| line.starts_with(&format!("{key} ")))?;
            Some(((*key).to_owned(), line[key.len() + 1..].to_owned()))
        })
        .collect()
}

/// `metewand` with `args`, as a process without `CAP_SYS_ADMIN` in which a worker's PID namespace can only come
/// from a user namespace of its own: as this test runs when it is already such a process (an ordinary user);
/// otherwise as the unprivileged user 65534 (`setpriv`), who is given the bench's folder first, with a copy of the
/// binary in it (a bench made by [`Bench::with_sdk_copy`] has the SDK in it too).
fn unprivileged(bench: &Bench, args: &[String]) -> Command {
    if !has_cap_sys_admin() {
        return command(args);
    }
    // The checkout may lie in a folder that user cannot pass through (a private clone): the binary goes into the
    // bench, which is given to that user.
    let binary = bench.dir.path().join("metewand");
    if !binary.exists() {
        fs::copy(env!("CARGO_BIN_EXE_metewand"), &binary).unwrap();
    }
    let status = Command::new("chown").args(["-R", "65534:65534"]).arg(bench.dir.path()).status().unwrap();
    assert!(status.success(), "chown failed");
    let mut setpriv = Command::new("setpriv");
    setpriv.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"]).arg(&binary).args(args);
    setpriv.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    setpriv
}

/// The confinement every session of the attempt in `folder` recorded, materializer, implementation, evaluator.
fn confinements(folder: &Path) -> Vec<Value> {
    let record = record(folder);
    [&record["dataset"]["materializer"], &record["implementation"], &record["evaluator"]]
        .into_iter()
        .map(|session| session["confinement"].clone())
        .collect()
}

/// Checks one session's recorded confinement against what this machine must give (`METEWAND_CONFINEMENT_REQUIRED`)
/// and whether `metewand` ran with `CAP_SYS_ADMIN` (`privileged`), never against `metewand doctor`; returns whether
/// it is full confinement (nothing recorded as a fallback).
fn check_recorded(confinement: &Value, privileged: bool) -> bool {
    let required = ConfinementRequired::from_env();
    let abi = confinement["landlock_abi"].as_u64();
    match confinement["filesystem"].as_str() {
        Some("landlock") => assert!(abi.is_some_and(|abi| abi >= 1), "{confinement}"),
        Some("none") => assert_eq!(abi, None, "{confinement}"),
        _ => panic!("{confinement}"),
    }
    if required.landlock_abi >= 1 {
        assert!(abi.is_some_and(|abi| abi >= u64::from(required.landlock_abi)), "{confinement}");
    }
    if required.landlock_abi >= 6 {
        assert_eq!(confinement["signals"], "scoped", "{confinement}");
    }
    // A PID namespace comes inside a user namespace exactly when metewand could not make it itself.
    let namespaced = (Value::from("pid-namespace"), Value::Bool(!privileged));
    let route = (confinement["processes"].clone(), confinement["user_namespace"].clone());
    if required.pid_namespace {
        assert_eq!(route, namespaced, "{confinement}");
    } else {
        assert!(route == namespaced || route == ("sweep".into(), false.into()), "{confinement}");
    }
    // The network and IPC namespaces come with the PID namespace (the example's workers use no network).
    if route == namespaced {
        let namespaces = (&confinement["network"], &confinement["ipc"], &confinement["mounts"]);
        assert_eq!(namespaces, (&"namespace".into(), &"namespace".into(), &"private".into()), "{confinement}");
    } else {
        assert_eq!((&confinement["ipc"], &confinement["mounts"]), (&"host".into(), &"host".into()), "{confinement}");
        let network = if abi.is_some_and(|abi| abi >= 4) { "denied" } else { "unrestricted" };
        assert_eq!(confinement["network"], network, "{confinement}");
    }
    assert_eq!(confinement["capabilities"], "none", "{confinement}");
    if required.seccomp {
        assert_eq!((&confinement["syscall_filter"], &confinement["syscalls"]), (&"default".into(), &json!([])));
    }
    // Run by root, a worker is never root: it runs as the identity metewand gives it (the default, here); run
    // without privileges, as the user metewand ran as (uid 65534 where this test, as root, started it so).
    let own = fs::metadata("/proc/self").unwrap();
    let (uid, gid) = (std::os::unix::fs::MetadataExt::uid(&own), std::os::unix::fs::MetadataExt::gid(&own));
    let user = match (privileged, has_cap_sys_admin()) {
        (true, _) => json!({"uid": 65530, "gid": 65530}),
        (false, true) => json!({"uid": 65534, "gid": 65534}),
        (false, false) => json!({"uid": uid, "gid": gid}),
    };
    assert_eq!(confinement["user"], user, "{confinement}");
    // The example sets no [limits]: the defaults, each with how it was kept.
    let limits = &confinement["limits"];
    assert_eq!(limits["memory_bytes"], json!({"value": null, "mechanism": "none"}), "{confinement}");
    assert_eq!(limits["output_bytes"], json!({"value": 68719476736u64, "mechanism": "watched"}), "{confinement}");
    assert_eq!(limits["processes"]["value"], 4096, "{confinement}");
    if required.pid_max && route == namespaced {
        assert_eq!(limits["processes"]["mechanism"], "pid_max", "{confinement}");
    }
    confinement["filesystem"] == "landlock"
        && limits["processes"]["mechanism"] != "none"
        && confinement["network"] == "namespace"
        && confinement["mounts"] == "private"
        && confinement["processes"] == "pid-namespace"
        && confinement["signals"] == "scoped"
}

#[test]
fn every_session_records_its_confinement_and_resources() {
    let bench = Bench::new();
    let output = bench.run("cholesky", "attempt");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let record = record(&bench.out("attempt"));
    assert_eq!(record["problem"]["timed"], "execute", "the example's problem ranks by execute, the default");
    let mut full = true;
    for session in [&record["dataset"]["materializer"], &record["implementation"], &record["evaluator"]] {
        full &= check_recorded(&session["confinement"], has_cap_sys_admin());
        let resources = &session["resources"];
        assert!(resources["peak_rss_bytes"].as_u64().unwrap() > 0, "{resources}");
        assert!(resources["user_cpu_ns"].is_u64() && resources["system_cpu_ns"].is_u64(), "{resources}");
    }
    // The warning says what the records show, and `doctor` what the sessions got.
    assert_eq!(text(&output.stderr).contains("weaker than full confinement"), !full, "{}", text(&output.stderr));
    let said = text(&metewand(&["doctor".to_owned()]).stdout);
    assert_eq!(said.contains("confinement full"), full, "{said}");
    if !full {
        skip(Requirement::Landlock(6), "the attempt ran with weaker than full confinement, as its record says");
    }
}

#[test]
fn forcing_the_sweep_warns_and_require_confinement_then_refuses_before_anything_starts() {
    let bench = Bench::new();
    let mut args = bench.args("cholesky", "swept");
    args.push("--sweep-processes".to_owned());
    let output = metewand(&args);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let warnings: Vec<String> =
        text(&output.stderr).lines().filter(|line| line.contains("weaker than full")).map(str::to_owned).collect();
    assert_eq!(warnings.len(), 1, "one warning line: {}", text(&output.stderr));
    assert!(warnings[0].contains("no PID namespace"), "{warnings:?}");
    assert_eq!(record(&bench.out("swept"))["implementation"]["confinement"]["processes"], "sweep");

    let mut args = bench.args("cholesky", "refused");
    args.extend(["--sweep-processes".to_owned(), "--require-confinement".to_owned()]);
    let output = metewand(&args);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("--require-confinement") && stderr.contains("no PID namespace"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one sentence: {stderr}");
    assert!(!bench.out("refused").exists(), "no attempt folder was created");
}

/// Adds the implementation `writer`, which tries to write each of `targets` (and its dataset entry) during
/// `prepare`, appending to a file or creating `planted` in a folder, and leaves what it wrote; returns the targets
/// as it names them.
fn writer(bench: &Bench, targets: &[PathBuf]) -> Vec<String> {
    let list: Vec<String> = targets.iter().map(|path| path.display().to_string()).collect();
    bench.misbehaving_implementation("writer", &format!("write-all:{}", list.join(",")));
    list
}

/// Asserts what the writer of the attempt `attempt` reported for each of `targets` and its dataset entry: refused
/// under the Landlock its record shows (EACCES; in its private view a hidden target is absent, ENOENT, and the
/// empty folder hiding it is read-only, EROFS); without Landlock (the fallback, allowed only where Landlock is not
/// required) each write went through, as documented. Returns whether the writes were refused.
fn assert_writes_refused(bench: &Bench, targets: &[String]) -> bool {
    let attempt = bench.out("attempt");
    let log = log(&attempt, "implementation");
    let entry = entry_of(bench, "attempt");
    let confinement = record(&attempt)["implementation"]["confinement"].clone();
    let landlock = confinement["filesystem"] == "landlock";
    assert!(landlock || ConfinementRequired::from_env().landlock_abi == 0, "Landlock is required here");
    let refusals: &[&str] =
        if confinement["mounts"] == "private" { &["errno 13", "errno 2", "errno 30"] } else { &["errno 13"] };
    for target in targets.iter().chain([&entry.display().to_string()]) {
        let line = format!("write {target}: ");
        let outcome = log.lines().find_map(|text| text.strip_prefix(&line)).unwrap_or_else(|| panic!("{log}"));
        if landlock {
            assert!(refusals.contains(&outcome), "{target}: {log}");
        } else {
            assert_eq!(outcome, "ok", "{target}: {log}");
        }
    }
    if !landlock {
        skip(Requirement::Landlock(1), "the writer ran without Landlock: its writes went through");
    }
    landlock
}

#[test]
fn a_worker_cannot_write_the_repository_the_sdk_the_store_other_attempts_its_attempt_the_logs_or_tmp() {
    let bench = Bench::with_sdk_copy();
    let first = bench.run("cholesky", "first");
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let attempt = bench.out("attempt");
    let planted_in_tmp = std::env::temp_dir().join("planted");
    assert!(!planted_in_tmp.exists(), "{} is left from elsewhere", planted_in_tmp.display());
    let targets = [
        bench.repo().join("metewand.toml"),
        bench.repo().join("workers"),
        bench.sdk().join("metewand/worker.py"),
        bench.sdk().join("metewand"),
        bench.out("first"),
        bench.out("first/attempt.json"),
        attempt.clone(),
        attempt.join("logs"),
        attempt.join("logs/implementation.log"),
        std::env::temp_dir(),
        // Its working directory: the store's copy of its source, which every session of that source shares.
        PathBuf::from("."),
        bench.state().join("sources"),
    ];
    let list = writer(&bench, &targets);
    let before = [tree(&bench.repo()), tree(&bench.sdk()), tree(&bench.out("first"))];
    let output = bench.run("writer", "attempt");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let after = [tree(&bench.repo()), tree(&bench.sdk()), tree(&bench.out("first"))];
    if assert_writes_refused(&bench, &list) {
        assert_eq!(after, before, "the repository, the SDK and the other attempt are unchanged");
        assert!(!planted_in_tmp.exists());
    } else {
        assert_ne!(after, before);
        fs::remove_file(&planted_in_tmp).unwrap();
    }
}

#[test]
fn without_privileges_each_worker_runs_in_a_pid_namespace_in_a_user_namespace_and_cannot_write_outside_its_folders() {
    let bench = Bench::with_sdk_copy();
    let attempt = bench.out("attempt");
    let targets = [
        bench.repo().join("metewand.toml"),
        bench.repo().join("workers"),
        attempt.clone(),
        attempt.join("logs"),
        attempt.join("logs/implementation.log"),
        std::env::temp_dir(),
        PathBuf::from("."),
        bench.state().join("sources"),
    ];
    let list = writer(&bench, &targets);
    let before = tree(&bench.repo());
    let output = unprivileged(&bench, &bench.args("writer", "attempt")).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let confinements = confinements(&attempt);
    for confinement in &confinements {
        check_recorded(confinement, false);
    }
    let offers = doctor_of(unprivileged(&bench, &["doctor".to_owned()]));
    assert_eq!(offers["pid namespace"], "no", "{offers:?}");
    if confinements[0]["processes"] == "pid-namespace" {
        assert_eq!(offers["processes"], "pid-namespace in a user namespace", "doctor says what the sessions got");
    } else {
        // The kernel refused user namespaces to this user: the recorded, announced and doctor's fallback is the
        // sweep.
        assert_eq!(offers["processes"], "sweep");
        assert!(text(&output.stderr).contains("no PID namespace"), "{}", text(&output.stderr));
        skip(Requirement::UserNamespace, "the workers ran under the sweep, not in a user namespace");
    }
    if offers["confinement"] == "full" {
        assert!(!text(&output.stderr).contains("weaker than full"), "{}", text(&output.stderr));
    }
    if assert_writes_refused(&bench, &list) {
        assert_eq!(tree(&bench.repo()), before, "the repository is unchanged");
        assert!(!std::env::temp_dir().join("planted").exists());
    } else {
        let _ = fs::remove_file(std::env::temp_dir().join("planted"));
    }
}

/// A worker reads nothing of the state, the repository (an evaluator's private folder included), other attempts
/// (their results, records, logs and dataset entries), its own attempt's records or `/tmp`: in its private view they are absent (ENOENT), while its own
/// dataset reads as usual (it reaches its verdict). Without a namespace route (the fallback) the view is the
/// host's, and the reads go through, as documented.
#[test]
fn a_worker_reads_no_peers_result_no_record_no_repository_and_nothing_in_tmp() {
    let bench = Bench::new();
    // The peer runs on another dataset seed: its entry is another than the reader's own.
    bench.misbehaving_implementation("reader", "read-all:");
    let mut args = bench.args("cholesky", "first");
    args.extend(["--dataset-seed".to_owned(), "1".to_owned()]);
    let first = metewand(&args);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let elsewhere = tempfile::tempdir().unwrap();
    let socket = elsewhere.path().join("service.sock");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let peer_entry = entry_of(&bench, "first");
    // Data an evaluator would keep in a source folder of its own, as the example's README says.
    let private = bench.repo().join("judge-only/answers.json");
    fs::create_dir_all(private.parent().unwrap()).unwrap();
    fs::write(&private, "{}").unwrap();
    let hidden = [
        private,
        bench.out("first/work/result/solution.json"),
        bench.out("first/attempt.json"),
        bench.out("first/logs/implementation.log"),
        peer_entry.join("matrix.csv"),
        peer_entry.with_extension("published"),
        bench.repo().join("metewand.toml"),
        bench.out("reader/logs"),
        socket.clone(),
    ];
    let list: Vec<String> = hidden.iter().map(|path| path.display().to_string()).collect();
    bench.replace("read-all:", &format!("read-all:{}", list.join(",")));
    let output = bench.run("reader", "reader");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let record = record(&bench.out("reader"));
    assert_ne!(bench.state().join("datasets").join(record["dataset"]["key"].as_str().unwrap()), peer_entry);
    let log = log(&bench.out("reader"), "implementation");
    let read = |target: &String| {
        let line = format!("read {target}: ");
        log.lines().find_map(|text| text.strip_prefix(&line)).unwrap_or_else(|| panic!("{target}: {log}")).to_owned()
    };
    let confinement = &record["implementation"]["confinement"];
    if confinement["mounts"] == "private" {
        for target in &list {
            assert_eq!(read(target), "errno 2", "{target}: {log}");
        }
    } else {
        assert_eq!(confinement["processes"], "sweep", "{confinement}");
        for target in &list {
            assert_eq!(read(target), "ok", "{target}: {log}");
        }
        skip(Requirement::PidNamespace, "the reader had no private view: it read what the host shows");
    }
}

/// Descriptors `metewand` was started with (3 and 4 here, open for appending to a file outside every folder a
/// worker may write) do not reach its workers: writing to them fails with EBADF, and the file stays empty.
#[test]
fn descriptors_metewand_inherited_do_not_reach_its_workers() {
    let bench = Bench::new();
    let outside = bench.out("outside.txt");
    fs::write(&outside, "").unwrap();
    bench.misbehaving_implementation("fd3", "write-fd:3");
    bench.misbehaving_implementation("fd4", "write-fd:4");
    for (name, fd) in [("fd3", "3"), ("fd4", "4")] {
        let mut line = vec!["exec 3>>\"$0\" 4>>\"$0\"; exec \"$@\"".to_owned(), outside.display().to_string()];
        line.push(env!("CARGO_BIN_EXE_metewand").to_owned());
        line.extend(bench.args(name, name));
        let output = Command::new("sh").arg("-c").args(&line).stdin(Stdio::null()).output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        let log = log(&bench.out(name), "implementation");
        assert!(log.contains(&format!("write-fd {fd}: errno 9")), "{log}");
    }
    assert_eq!(fs::read_to_string(&outside).unwrap(), "", "nothing was written through an inherited descriptor");
}

/// A worker of `metewand` run by root holds no capability (every set of `/proc/self/status` empty), and its
/// datagram to an echo on this machine's loopback reaches nothing: the echo never hears it, and the worker's wait
/// for an answer times out. Without a network namespace (the fallback) the echo answers, as documented.
#[test]
fn a_worker_holds_no_capability_and_its_datagrams_reach_nobody() {
    let bench = Bench::new();
    let (port, listener) = udp_echo(Duration::from_secs(10));
    bench.misbehaving_implementation("prober", &format!("caps-udp:{port}"));
    let output = bench.run("prober", "attempt");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let log = log(&bench.out("attempt"), "implementation");
    for set in ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"] {
        assert!(log.contains(&format!("caps {set}=0000000000000000")), "{set}: {log}");
    }
    let confinement = &record(&bench.out("attempt"))["implementation"]["confinement"];
    assert_eq!(confinement["capabilities"], "none", "{confinement}");
    if confinement["network"] == "namespace" {
        assert!(log.contains(&format!("udp {port}: timed out")), "{log}");
        // Nothing arrives: the listener waits out its guard.
        assert_eq!(listener.join().unwrap(), None, "a datagram reached this machine's loopback");
    } else {
        assert!(log.contains(&format!("udp {port}: ok")), "{log}");
        assert_eq!(listener.join().unwrap().as_deref(), Some(b"ping".as_slice()));
        skip(Requirement::PidNamespace, "the worker had no network namespace: its datagram reached the host");
    }
}

/// `[limits]` bound a worker `metewand` runs, each recorded with how it was kept: an allocation past
/// `memory_bytes` raises `MemoryError` and a `fork` past `processes` fails with EAGAIN (the worker goes on and
/// reaches its verdict); a worker filling its `TMPDIR` past `output_bytes` is stopped long before it has written
/// what it meant to, the attempt fails `resource_limit` naming the limit, and its `TMPDIR` is gone.
#[test]
fn the_limits_bound_a_workers_memory_processes_and_output() {
    let bench = Bench::new();
    bench.misbehaving_implementation("greedy", "bounds:1073741824,600");
    bench.misbehaving_implementation("filler", "fill:1024");
    bench.append("\n[limits]\nmemory_bytes = 536870912\nprocesses = 400\noutput_bytes = 16777216\n");
    let output = bench.run("greedy", "greedy");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let record = record(&bench.out("greedy"));
    assert_eq!(record["outcome"], "reached", "{}", record["failure"]);
    let limits = &record["implementation"]["confinement"]["limits"];
    assert_eq!(limits["memory_bytes"], json!({"value": 536870912, "mechanism": "rlimit"}), "{limits}");
    assert_eq!(limits["output_bytes"], json!({"value": 16777216, "mechanism": "watched"}), "{limits}");
    assert_eq!(limits["processes"]["value"], 400, "{limits}");
    let log = log(&bench.out("greedy"), "implementation");
    assert!(log.contains("allocate: MemoryError"), "{log}");
    if limits["processes"]["mechanism"] == "none" {
        assert!(log.contains("spawn: ok after 600"), "{log}");
        skip(Requirement::PidMax, "no process limit could be kept for root: the worker started 600 processes");
    } else {
        assert_eq!(limits["processes"]["mechanism"], "pid_max", "{limits}");
        assert!(log.contains("spawn: errno 11 after "), "{log}");
    }

    let output = bench.run("filler", "filler");
    let record = failed(&output, &bench.out("filler"), "implementation", "prepare", "resource_limit");
    let message = record["failure"]["message"].as_str().unwrap();
    assert!(message.contains("`[limits] output_bytes`") && message.contains("limit of 16777216"), "{message}");
    let observed: u64 = message.split("output_bytes`: ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
    assert!(observed > 16 << 20 && observed < 512 << 20, "stopped long before 1 GiB: {message}");
    assert!(!bench.out("filler/work/tmp-implementation").exists(), "its TMPDIR is removed");
}

/// Work moved after the execute answer never counts: the result is sealed when the implementation answers, so a
/// worker that answers at once and writes its result during shutdown has no result at the seal
/// (`invalid_output` in `execute`), and one that answers with a wrong result and writes the right one during
/// shutdown breaks the seal (`invalid_output` in `shutdown`). Neither is judged, let alone `reached`.
#[test]
fn a_result_written_after_the_execute_answer_is_never_accepted() {
    let bench = Bench::new();
    bench.misbehaving_implementation("late", "after-answer");
    bench.misbehaving_implementation("rewriter", "rewrite");
    let output = bench.run("late", "late");
    let record = failed(&output, &bench.out("late"), "implementation", "execute", "invalid_output");
    assert_eq!(record["verdict"], Value::Null, "{}", record["failure"]);
    let output = bench.run("rewriter", "rewriter");
    let record = failed(&output, &bench.out("rewriter"), "implementation", "shutdown", "invalid_output");
    let message = record["failure"]["message"].as_str().unwrap();
    assert!(message.contains("the result changed after the implementation worker answered execute"), "{message}");
    assert_eq!(record["verdict"], Value::Null);
    evaluator_never_evaluated(&record);
}

/// Work before hello cannot use the inputs: an implementation that knows where its dataset will be (the store
/// entry an earlier attempt made) finds nothing there before its hello is answered, as root and without
/// privileges, then gets the same dataset in `prepare` and reaches its verdict. Without a private view (the
/// fallback) it reads it early, as documented.
#[test]
fn an_implementation_sees_its_dataset_only_after_its_hello_is_answered() {
    // The SDK is copied into the bench: uid 65534 may not reach the checkout's.
    let bench = Bench::with_sdk_copy();
    // Registered first: its file joins the workers' source folder, on which the dataset's key depends.
    bench.misbehaving_implementation("early", "early:");
    let first = bench.run("cholesky", "first");
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let manifest = entry_of(&bench, "first").join("dataset-manifest.json");
    bench.replace("early:", &format!("early:{}", manifest.display()));
    for (name, privileged) in [("root", true), ("user", false)] {
        let args = bench.args("early", name);
        let output = if privileged { metewand(&args) } else { unprivileged(&bench, &args).output().unwrap() };
        let record = record(&bench.out(name));
        assert_eq!(record["outcome"], "reached", "{name}: {}\n{}", record["failure"], text(&output.stdout));
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        assert_eq!(entry_of(&bench, name), entry_of(&bench, "first"), "the same dataset, from the store");
        let log = log(&bench.out(name), "implementation");
        let early = format!("early read {}: ", manifest.display());
        let got = log.lines().find_map(|line| line.strip_prefix(&early)).unwrap_or_else(|| panic!("{log}"));
        if record["implementation"]["confinement"]["mounts"] == "private" {
            assert_eq!(got, "errno 2", "{log}");
        } else {
            assert_eq!(got, "ok", "{log}");
            skip(Requirement::PidNamespace, "no private view: the implementation read its dataset before hello");
        }
        if !has_cap_sys_admin() {
            break;
        }
    }
}

/// The parent pid and start time of a process, from `/proc/<pid>/stat`.
fn parent_and_start(pid: &str) -> (String, String) {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let fields: Vec<&str> = stat.rsplit_once(')').unwrap().1.split_whitespace().collect();
    (fields[1].to_owned(), fields[19].to_owned())
}

#[test]
fn without_privileges_sigkill_during_execute_leaves_no_worker_and_no_supervisor() {
    let bench = Bench::with_sdk_copy();
    bench.worker_file("hang_cholesky.py", &hanging_sdk_worker("cholesky", "Cholesky", "execute", "pass"));
    bench.replace("[\"python3\", \"cholesky.py\"]", "[\"python3\", \"hang_cholesky.py\", \"hang\"]");
    let mut child = unprivileged(&bench, &bench.args("cholesky", "killed")).spawn().unwrap();
    let worker = hanging_worker(&child, &bench.out("killed/logs/implementation.log"), "hang_cholesky.py");
    let (parent, parent_start) = parent_and_start(&worker);
    let namespace = |pid: &str, kind: &str| fs::read_link(format!("/proc/{pid}/ns/{kind}")).unwrap();
    let me = std::process::id().to_string();
    // Which route the worker took, seen from outside: its own PID namespace, or this one.
    let supervised = namespace(&worker, "pid") != namespace(&me, "pid");
    if supervised {
        // The worker is pid 1 of its own PID namespace, in a user namespace of its own; its parent, the supervisor,
        // is metewand's child.
        assert_ne!(namespace(&worker, "user"), namespace(&me, "user"));
        assert_eq!(parent_and_start(&parent).0, child.id().to_string(), "the supervisor is metewand's child");
    } else {
        assert!(!ConfinementRequired::from_env().user_namespace, "the worker runs in no namespace of its own");
        assert_eq!(parent, child.id().to_string(), "without a namespace the worker is metewand's child");
    }
    signal(&child, "-KILL");
    child.wait().unwrap();
    assert_worker_dies(&worker);
    if bench.out("killed/attempt.json").exists() {
        record(&bench.out("killed"));
    }
    if !supervised {
        skip(Requirement::UserNamespace, "the worker ran under the sweep: there was no supervisor to outlive metewand");
        return;
    }
    wait_for("the supervisor to die with metewand", || {
        process_state(&parent).is_none_or(|(state, start)| start != parent_start || state == "Z")
    });
}

#[test]
fn without_cap_sys_admin_and_user_namespaces_the_sweep_is_recorded_announced_and_refused_when_required() {
    let bench = Bench::new();
    // Root without any capability: it may not make a PID namespace, nor map uid 0 in a user namespace (that needs
    // CAP_SETFCAP), so the kernel refuses both routes.
    let stripped = |args: &[String]| {
        let mut setpriv = Command::new("setpriv");
        setpriv.args(["--inh-caps=-all", "--bounding-set=-all", "--", env!("CARGO_BIN_EXE_metewand")]).args(args);
        setpriv.stdin(Stdio::null());
        setpriv
    };
    if !has_cap_sys_admin() {
        skip(
            Requirement::Root,
            "this test cannot drop privileges it does not have: the refused routes were not played",
        );
        return;
    }
    let offers = doctor_of(stripped(&["doctor".to_owned()]));
    assert_eq!((offers["pid namespace"].as_str(), offers["user namespace"].as_str()), ("no", "no"), "{offers:?}");
    assert_eq!(offers["processes"], "sweep");
    let output = stripped(&bench.args("cholesky", "swept")).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let warnings: Vec<&str> =
        std::str::from_utf8(&output.stderr).unwrap().lines().filter(|line| line.contains("weaker than full")).collect();
    assert_eq!(warnings.len(), 1, "{}", text(&output.stderr));
    assert!(warnings[0].contains("no PID namespace"), "{warnings:?}");
    for confinement in confinements(&bench.out("swept")) {
        assert_eq!((&confinement["processes"], &confinement["user_namespace"]), (&"sweep".into(), &false.into()));
    }
    let mut args = bench.args("cholesky", "refused");
    args.push("--require-confinement".to_owned());
    let output = stripped(&args).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    assert!(text(&output.stderr).contains("no PID namespace"), "{}", text(&output.stderr));
    assert!(!bench.out("refused").exists(), "no attempt folder was created");
}

/// A limit the repository sets that this machine cannot hold for a worker refuses to start, in one sentence naming
/// the limit, the worker and what to do (exit 2, nothing created); allowed, it runs, warns, and each session
/// records it as not enforced. Here: a process limit with workers swept.
#[test]
fn a_limit_this_machine_cannot_hold_refuses_to_start_unless_allowed() {
    let bench = Bench::new();
    bench.append("\n[limits]\nprocesses = 500\n");
    let mut args = bench.args("cholesky", "refused");
    args.push("--sweep-processes".to_owned());
    let output = metewand(&args);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    let stderr = text(&output.stderr);
    let sentence = stderr.lines().find(|line| line.contains("[limits]")).expect("the refusal");
    assert!(
        sentence.starts_with("metewand: run: [limits] processes = 500 cannot be held here for worker"),
        "{sentence}"
    );
    assert!(sentence.contains("--allow-unenforced-limits"), "{sentence}");
    assert!(!bench.out("refused").exists(), "nothing was created");
    args = bench.args("cholesky", "allowed");
    args.extend(["--sweep-processes".to_owned(), "--allow-unenforced-limits".to_owned()]);
    let output = metewand(&args);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(text(&output.stderr).contains("warning: [limits] processes = 500 is not held for worker"));
    for confinement in confinements(&bench.out("allowed")) {
        assert_eq!(confinement["limits"]["processes"], json!({"value": 500, "mechanism": "none"}), "{confinement}");
    }
    // Where the workers get their PID namespace, the same limit is held: the run starts.
    let output = bench.run("cholesky", "held");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    for confinement in confinements(&bench.out("held")) {
        assert_ne!(confinement["limits"]["processes"]["mechanism"], "none", "{confinement}");
    }
}
