//! Command workers: a benchmark whose three roles are shell commands run by Metewand's adapter, end to end; a
//! command that fails, one that tries to write outside its folders, and a placeholder that does not exist.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::{run as metewand, text};

/// The fixture in a temporary folder, with a folder outside every worker's reach for the intruder to try.
struct Bench {
    dir: tempfile::TempDir,
}

impl Bench {
    fn new() -> Bench {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        fs::create_dir_all(repo.join("src")).unwrap();
        fs::write(repo.join("src/README"), "the workers are shell commands\n").unwrap();
        fs::create_dir(dir.path().join("outside")).unwrap();
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/fixtures/command/metewand.toml");
        let toml =
            fs::read_to_string(fixture).unwrap().replace("@PLANT@", dir.path().join("outside").to_str().unwrap());
        fs::write(repo.join("metewand.toml"), toml).unwrap();
        Bench { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn run(&self, implementation: &str) -> (std::process::Output, PathBuf) {
        self.run_with(implementation, implementation, &[])
    }

    fn run_with(&self, implementation: &str, name: &str, extra: &[&str]) -> (std::process::Output, PathBuf) {
        let out = self.path(name);
        let (repo, state) = (self.path("repo"), self.path("state"));
        let args = [
            "run",
            repo.to_str().unwrap(),
            "--problem",
            "echo",
            "--dataset",
            "seeds",
            "--implementation",
            implementation,
            "--dataset-seed",
            "5",
            "--state-dir",
            state.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ];
        let args: Vec<String> = args.iter().chain(extra).map(|arg| (*arg).to_owned()).collect();
        (metewand(&args), out)
    }
}

fn record(folder: &Path) -> Value {
    serde_json::from_slice(&fs::read(folder.join("attempt.json")).unwrap()).unwrap()
}

#[test]
fn shell_commands_serve_every_role_conform_and_reach() {
    let bench = Bench::new();
    let repo = bench.path("repo");
    let check = metewand(&["check".to_owned(), repo.to_str().unwrap().to_owned()]);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stderr));
    for worker in ["make", "solve", "judge"] {
        let args =
            ["conformance", repo.to_str().unwrap(), "--worker", worker, "--dataset", "seeds", "--problem", "echo"];
        let output = metewand(&args.map(str::to_owned));
        assert_eq!(output.status.code(), Some(0), "{worker}: {}", text(&output.stdout));
        assert!(text(&output.stdout).contains(&format!(" {worker}: conforms")), "{}", text(&output.stdout));
    }
    let (output, out) = bench.run("solve");
    assert_eq!(output.status.code(), Some(0), "{}{}", text(&output.stdout), text(&output.stderr));
    let record = record(&out);
    assert_eq!(record["outcome"], "reached", "{record}");
    assert_eq!(record["implementation"]["sdk"]["name"], "metewand-adapter", "{record}");
    let manifest: Value = serde_json::from_slice(&fs::read(out.join("work/result/result.json")).unwrap()).unwrap();
    assert_eq!(manifest["data"], serde_json::json!({"seed": 0}), "the implementation's own seed: {manifest}");
    assert_eq!(fs::read_to_string(out.join("work/result/answer.txt")).unwrap(), "5\n", "the dataset's seed");
}

#[test]
fn a_command_that_exits_badly_fails_its_attempt_with_its_status() {
    let bench = Bench::new();
    let (output, out) = bench.run("crash");
    assert_eq!(output.status.code(), Some(3), "{}", text(&output.stderr));
    let record = record(&out);
    let failure = &record["failure"];
    assert_eq!(failure["kind"], "worker_failure", "{record}");
    assert_eq!(failure["details"], serde_json::json!({"exit_status": 4}), "{record}");
    assert_eq!(failure["code"], "operation_failed", "{record}");
    assert!(failure["message"].as_str().unwrap().contains("the command exited with status 4"), "{record}");
    assert!(fs::read_to_string(out.join("logs/implementation.log")).unwrap().contains("giving up"));
}

#[test]
fn a_command_is_confined_as_any_worker() {
    let bench = Bench::new();
    let (output, out) = bench.run("intrude");
    let stderr = text(&output.stderr);
    assert!(!bench.path("outside/planted").exists(), "a folder outside its reach: {stderr}");
    let entry =
        fs::read_dir(bench.path("state/datasets")).unwrap().filter_map(Result::ok).find(|entry| entry.path().is_dir());
    assert!(!entry.unwrap().path().join("planted").exists(), "the dataset is read-only to it");
    assert_eq!(record(&out)["outcome"], "reached", "its own folders still work: {stderr}");
    assert!(!out.join("work/result/kept").exists());
}

#[test]
fn a_placeholder_that_does_not_exist_is_refused_at_check() {
    let bench = Bench::new();
    let toml = bench.path("repo/metewand.toml");
    fs::write(&toml, fs::read_to_string(&toml).unwrap().replacen("{result}/answer.txt", "{resutl}/answer.txt", 1))
        .unwrap();
    let output = metewand(&["check".to_owned(), bench.path("repo").to_str().unwrap().to_owned()]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("workers.solve.command[2]") && stderr.contains("holds {resutl}"), "{stderr}");
    assert!(stderr.contains("(did you mean {result}?)"), "{stderr}");
}

/// `--warmup K` runs K discarded cycles in the fresh session before the timed one: the command, counting its runs in
/// the session's `TMPDIR`, says in its timed result that it ran K + 1 times; the record says K, and keeps only the
/// timed cycle's phases.
#[test]
fn a_fresh_session_warms_up_before_it_is_timed() {
    let bench = Bench::new();
    for (warmup, runs) in [("0", 1), ("2", 3)] {
        let (output, out) = bench.run_with("count", &format!("count-{warmup}"), &["--warmup", warmup]);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        let manifest: Value = serde_json::from_slice(&fs::read(out.join("work/result/result.json")).unwrap()).unwrap();
        assert_eq!(manifest["data"]["runs"], runs, "{manifest}");
        let record = record(&out);
        assert_eq!(record["implementation"]["session"]["warmup"], warmup.parse::<u64>().unwrap(), "{record}");
        let executes = record["phases"].as_array().unwrap().iter().filter(|phase| phase["phase"] == "execute").count();
        assert_eq!(executes, 1, "the warm-up's phases are not the attempt's: {record}");
    }
}

/// With `result_data`, the result's data is the JSON object the command left in that file; `result_data` on a worker
/// that speaks the protocol itself is refused at check.
#[test]
fn a_command_s_data_may_come_from_a_file_it_leaves() {
    let bench = Bench::new();
    let (output, out) = bench.run("leave");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let manifest: Value = serde_json::from_slice(&fs::read(out.join("work/result/result.json")).unwrap()).unwrap();
    assert_eq!(manifest["data"], serde_json::json!({"seed": 0}), "{manifest}");
    let toml = bench.path("repo/metewand.toml");
    let text_of = fs::read_to_string(&toml).unwrap();
    fs::write(&toml, text_of.replacen("adapter = \"command\"\nresult_data", "result_data", 1)).unwrap();
    let check = metewand(&["check".to_owned(), bench.path("repo").to_str().unwrap().to_owned()]);
    assert_eq!(check.status.code(), Some(2));
    let stderr = text(&check.stderr);
    assert!(stderr.contains("workers.leave.result_data") && stderr.contains("is for a command worker"), "{stderr}");
}

/// A command worker's session runs the adapter, so its records name the adapter's program; the plan holds them
/// against that program, not against the command's first word, and a campaign that ran has no program change to
/// name.
#[test]
fn a_command_worker_s_program_is_the_adapter_s() {
    let bench = Bench::new();
    let (repo, state) = (bench.path("repo"), bench.path("state"));
    let (repo, state) = (repo.to_str().unwrap(), state.to_str().unwrap());
    let axes = ["--problem", "echo", "--dataset", "seeds", "--implementation", "solve", "--state-dir", state];
    let args = |command: &[&str]| command.iter().chain(&axes).map(|arg| (*arg).to_owned()).collect::<Vec<_>>();
    let output = metewand(&args(&["campaign", "run", repo, "-q"]));
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let output = metewand(&args(&["campaign", "plan", repo]));
    let out = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{out}");
    assert!(out.contains("done         1 of 1 (0 to run)"), "{out}");
    assert!(!out.contains("program "), "no program changed since the run: {out}");
}

/// A command worker whose command is named in `metewand.toml` by `fields` (TOML lines), as `name`.
fn command_worker(name: &str, fields: &str) -> String {
    format!(
        "\n[workers.{name}]\nrole = \"implementation\"\nadapter = \"command\"\n{fields}source = \"src\"\n\n\
         [implementations.{name}]\nworker = \"{name}\"\nparameters = {{}}\n"
    )
}

/// A command whose first word is a virtual environment's `python3` (a link to the base interpreter), by its path, or
/// found on the `PATH` the worker declares or on the one its declared environment heads, starts and runs as that
/// environment (its `sys.prefix` the environment's): the adapter's view shows the environment, read-only, as a direct
/// worker's would. The command tries to write a file into the environment, which stays unwritten.
#[test]
fn a_command_in_a_virtual_environment_runs_as_it_read_only() {
    let bench = Bench::new();
    let venv = bench.path("place/venv");
    let made = std::process::Command::new("python3").args(["-m", "venv", "--without-pip"]).arg(&venv).output().unwrap();
    assert!(made.status.success(), "{}", text(&made.stderr));
    let venv_text = venv.to_str().unwrap();
    // Braces are the command's placeholders: the script builds its object with `dict`.
    let script = "import json, pathlib, sys\ntry:\n    pathlib.Path(sys.prefix, 'planted').write_text('x')\n\
                  except OSError:\n    pass\nprint(json.dumps(dict(seed=int(open('{dataset}/seed.txt').read()), \
                  prefix=sys.prefix)))";
    let python = venv.join("bin/python3");
    let path = format!("{venv_text}/bin:/usr/local/bin:/usr/bin:/bin");
    let workers = [
        command_worker("venv", &format!("command = [{:?}, \"-c\", {script:?}]\n", python.to_str().unwrap())),
        command_worker(
            "onpath",
            &format!("command = [\"python3\", \"-c\", {script:?}]\nenv = {{ PATH = {path:?} }}\n"),
        ),
        command_worker(
            "declared",
            &format!(
                "command = [\"python3\", \"-c\", {script:?}]\npython = {{ requirements = \"requirements.txt\" }}\n"
            ),
        ),
    ];
    let toml = bench.path("repo/metewand.toml");
    fs::write(&toml, fs::read_to_string(&toml).unwrap() + &workers.concat()).unwrap();
    // No requirements: the environment is built from the interpreter alone, with no network.
    fs::write(bench.path("repo/requirements.txt"), "").unwrap();
    for implementation in ["venv", "onpath", "declared"] {
        let (output, out) = bench.run(implementation);
        let attempt = fs::read_to_string(out.join("attempt.json")).unwrap_or_default();
        assert_eq!(output.status.code(), Some(0), "{implementation}: {}{attempt}", text(&output.stderr));
        let manifest: Value = serde_json::from_slice(&fs::read(out.join("work/result/result.json")).unwrap()).unwrap();
        assert_eq!(manifest["data"]["seed"], 5, "{implementation}: {manifest}");
        let prefix = PathBuf::from(manifest["data"]["prefix"].as_str().unwrap());
        match implementation {
            "declared" => assert!(
                prefix.starts_with(bench.path("state/envs")) && prefix.ends_with("venv"),
                "the declared environment's: {manifest}"
            ),
            _ => assert_eq!(prefix, venv, "{implementation}: {manifest}"),
        }
        assert!(prefix.is_dir() && !prefix.join("planted").exists(), "{implementation}: its environment is read-only");
    }
}
