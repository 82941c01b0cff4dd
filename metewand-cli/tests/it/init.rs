//! `metewand init`: the repository it writes passes `check`, `conformance --all --strict` and `run` as written, with
//! the SDK installed in a virtual environment first on `PATH` (no path into this checkout); bad input is refused.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::campaign::path_with;
use crate::{command, run as metewand, text};
use metewand_testkit::sdk_src;

/// A virtual environment where the SDK is installed: its package copied into the environment's site-packages, as
/// `pip install` puts it. In `/tmp`, which a worker's view hides but for what its command names: a program found in
/// a virtual environment names the environment, packages included (a `.pth` naming this checkout would not do, as
/// a checkout in `/tmp` stays hidden).
pub(crate) fn sdk_venv(at: &Path) -> PathBuf {
    let venv = at.join("venv");
    let made = Command::new("python3").args(["-m", "venv", "--without-pip"]).arg(&venv).status().unwrap();
    assert!(made.success(), "python3 -m venv failed");
    let python = venv.join("bin/python3");
    let purelib = Command::new(&python)
        .args(["-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
        .output()
        .unwrap();
    let purelib = PathBuf::from(text(&purelib.stdout).trim());
    let copied = Command::new("cp").arg("-R").arg(sdk_src().join("metewand")).arg(&purelib).status().unwrap();
    assert!(copied.success(), "copying the SDK into {} failed", purelib.display());
    venv
}

/// `metewand` with `args`, the virtual environment first on `PATH`.
pub(crate) fn in_venv(venv: &Path, args: &[&str]) -> Output {
    let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
    let mut command = command(&args);
    command.env("PATH", path_with(&venv.join("bin")));
    command.output().unwrap()
}

#[test]
fn init_writes_a_repository_that_passes_check_conformance_and_run_with_the_installed_sdk() {
    let place = tempfile::tempdir().unwrap();
    let venv = sdk_venv(place.path());
    let repo = place.path().join("new/bench");
    let repo_text = repo.to_str().unwrap();
    let output = metewand(&["init".into(), repo_text.into(), "--name".into(), "demo".into()]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(text(&output.stdout).starts_with(&format!("benchmark    demo in {repo_text} (11 files)\n")));
    let toml = fs::read_to_string(repo.join("metewand.toml")).unwrap();
    assert!(toml.contains("urn:demo:dataset:1") && !toml.contains("@NAME@"), "{toml}");
    assert!(!toml.contains("sdk-python") && !toml.contains("PYTHONPATH"), "workers find the installed SDK: {toml}");
    let siblings: Vec<String> = fs::read_dir(place.path().join("new"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(siblings, ["bench"], "nothing left beside it");

    let check = in_venv(&venv, &["check", repo_text]);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stderr));
    let conformance = in_venv(&venv, &["conformance", repo_text, "--all", "--strict"]);
    assert_eq!(conformance.status.code(), Some(0), "{}{}", text(&conformance.stdout), text(&conformance.stderr));
    for worker in ["generate", "mean", "judge"] {
        assert!(text(&conformance.stdout).contains(&format!(" {worker}: conforms")), "{}", text(&conformance.stdout));
    }
    let state = place.path().join("state");
    let args = ["run", repo_text, "--problem", "mean", "--dataset", "small", "--implementation", "mean"];
    let mut args: Vec<&str> = args.to_vec();
    args.extend(["--state-dir", state.to_str().unwrap()]);
    let run = in_venv(&venv, &args);
    assert_eq!(run.status.code(), Some(0), "{}{}", text(&run.stdout), text(&run.stderr));
    assert!(text(&run.stdout).starts_with("outcome      reached (verdict: reached)\n"), "{}", text(&run.stdout));

    // A second init into it, and a name that cannot be part of a schema id, are refused, and change nothing.
    let before = fs::read_to_string(repo.join("metewand.toml")).unwrap();
    let again = metewand(&["init".into(), repo_text.into()]);
    assert_eq!(again.status.code(), Some(2));
    assert_eq!(text(&again.stderr), format!("metewand: init: {repo_text} is not empty: give a new or empty folder\n"));
    assert_eq!(fs::read_to_string(repo.join("metewand.toml")).unwrap(), before);
    let other = place.path().join("other");
    let bad = metewand(&["init".into(), other.to_str().unwrap().into(), "--name".into(), "two words".into()]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("\"two words\" is not a benchmark name"), "{}", text(&bad.stderr));
    assert!(!other.exists());
}

#[test]
fn init_names_the_benchmark_after_its_folder_or_a_default() {
    let place = tempfile::tempdir().unwrap();
    let named = place.path().join("sorting-bench");
    let output = metewand(&["init".into(), named.to_str().unwrap().into()]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(fs::read_to_string(named.join("metewand.toml")).unwrap().contains("urn:sorting-bench:result:1"));
    let unnamed = place.path().join("-odd name");
    let output = metewand(&["init".into(), unnamed.to_str().unwrap().into()]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(fs::read_to_string(unnamed.join("metewand.toml")).unwrap().contains("urn:benchmark:result:1"));
    // An empty folder is taken.
    let empty = place.path().join("empty");
    fs::create_dir(&empty).unwrap();
    let output = metewand(&["init".into(), empty.to_str().unwrap().into()]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(empty.join("workers/judge/judge.py").is_file());
}

#[test]
fn init_with_the_command_adapter_writes_a_repository_of_commands_that_checks_and_runs() {
    let place = tempfile::tempdir().unwrap();
    let repo = place.path().join("sums");
    let repo_text = repo.to_str().unwrap();
    let output = metewand(&["init".into(), repo_text.into(), "--adapter".into(), "command".into()]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let said = text(&output.stdout);
    assert!(said.starts_with(&format!("benchmark    sums in {repo_text} (7 files)\n")), "{said}");
    assert!(said.contains("cc -O2 -o workers/sum-c/sum workers/sum-c/sum.c"), "the build is said: {said}");
    let toml = fs::read_to_string(repo.join("metewand.toml")).unwrap();
    assert_eq!(toml.matches("\nadapter = \"command\"\n").count(), 4, "every worker is a command: {toml}");

    let check = metewand(&["check".into(), repo_text.into()]);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stderr));
    let state = place.path().join("state");
    let run = |implementation: &str, out: &str| {
        let out = place.path().join(out);
        let args = [
            "run",
            repo_text,
            "--problem",
            "sum",
            "--dataset",
            "small",
            "--implementation",
            implementation,
            "--state-dir",
            state.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ];
        let output = metewand(&args.map(str::to_owned));
        let record: serde_json::Value = serde_json::from_slice(&fs::read(out.join("attempt.json")).unwrap()).unwrap();
        (output, record)
    };
    // The shell implementation is reached: its sum, printed by awk, is the judge's.
    let (output, record) = run("sum-sh", "sh");
    assert_eq!(output.status.code(), Some(0), "{}{}", text(&output.stdout), text(&output.stderr));
    assert_eq!(record["verdict"], "reached");
    assert_eq!(record["metrics"]["error"], 0);
    assert!(record["implementation"]["implementation_time_ns"].as_u64().is_some(), "the adapter timed sum.sh");

    // The C implementation, once built with the command the README gives, is reached too.
    let built = Command::new("sh").arg("-c").arg(metewand_runtime::scaffold::C_BUILD).current_dir(&repo).output();
    let built = built.expect("a C compiler (cc) on PATH, to build the C implementation");
    assert!(built.status.success(), "{}", text(&built.stderr));
    let (output, record) = run("sum-c", "c");
    assert_eq!(output.status.code(), Some(0), "{}{}", text(&output.stdout), text(&output.stderr));
    assert_eq!(record["verdict"], "reached");
    assert_eq!(record["metrics"]["error"], 0);
}
