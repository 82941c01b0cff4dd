//! Environments built from a declaration (`python = { requirements = FILE }`): `init`'s repository with its
//! implementation declaring a requirements file that names a wheel the test writes (installed with `--no-index
//! --find-links`, no network), built once and reused, verified before use, rebuilt when changed by hand, listed as
//! unfinished without its manifest, and never written by the worker that runs in it; unpinned and missing packages
//! refused by name, leaving nothing behind.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::init::{in_venv, sdk_venv};
use crate::{run as metewand, text};

/// A wheel of the package `tinypkg` at version 1.0, written with Python's `zipfile`, in `folder`.
fn write_wheel(folder: &Path) {
    fs::create_dir_all(folder).unwrap();
    let script = r#"
import base64, hashlib, sys, zipfile
def digest(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
files = {
    "tinypkg/__init__.py": b"VALUE = 42\n",
    "tinypkg-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: tinypkg\nVersion: 1.0\n",
    "tinypkg-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
record = "".join(f"{path},{digest(data)},{len(data)}\n" for path, data in files.items())
with zipfile.ZipFile(sys.argv[1] + "/tinypkg-1.0-py3-none-any.whl", "w") as wheel:
    for path, data in files.items():
        wheel.writestr(path, data)
    wheel.writestr("tinypkg-1.0.dist-info/RECORD", record + "tinypkg-1.0.dist-info/RECORD,,\n")
"#;
    let made = std::process::Command::new("python3").args(["-c", script]).arg(folder).status().unwrap();
    assert!(made.success(), "writing the wheel failed");
}

/// `init`'s repository in `place/bench`, its workers declaring `requirements.txt` (here holding `requirements`), its
/// implementation `mean` importing `tinypkg`, after trying to change the package in its environment (which it must not
/// manage); the wheel in `bench/wheels`.
fn bench(place: &Path, requirements: &str) -> PathBuf {
    let repo = place.join("bench");
    let init = metewand(&["init".into(), repo.to_str().unwrap().into(), "--name".into(), "demo".into()]);
    assert_eq!(init.status.code(), Some(0), "{}", text(&init.stderr));
    write_wheel(&repo.join("wheels"));
    fs::write(repo.join("requirements.txt"), requirements).unwrap();
    let toml = fs::read_to_string(repo.join("metewand.toml")).unwrap();
    assert_eq!(toml.matches("python = { requirements = \"requirements.txt\" }\n").count(), 3, "{toml}");
    let solver = repo.join("workers/mean/mean.py");
    let attack = "import pathlib\nimport tinypkg\ntry:\n    pathlib.Path(tinypkg.__file__).write_text(\"VALUE = 0\\n\")\n\
                  except OSError:\n    pass\nassert tinypkg.VALUE == 42\n";
    fs::write(&solver, format!("{attack}{}", fs::read_to_string(&solver).unwrap())).unwrap();
    repo
}

fn envs_of(state: &Path) -> Vec<String> {
    match fs::read_dir(state.join("envs")) {
        Ok(entries) => entries.map(|entry| entry.unwrap().file_name().into_string().unwrap()).collect(),
        Err(_) => Vec::new(),
    }
}

fn stderr(output: &Output) -> String {
    text(&output.stderr)
}

#[test]
fn a_declared_environment_is_built_once_used_read_only_and_rebuilt_when_changed_by_hand() {
    let place = tempfile::tempdir().unwrap();
    let venv = sdk_venv(place.path());
    let repo = bench(place.path(), "--no-index\n--find-links wheels\ntinypkg==1.0 # the measured one\n");
    let (repo_text, state) = (repo.to_str().unwrap(), place.path().join("state"));
    let state_text = state.to_str().unwrap();

    let build = in_venv(&venv, &["env", "build", repo_text, "--state-dir", state_text]);
    assert_eq!(build.status.code(), Some(0), "{}", stderr(&build));
    for step in ["creating the virtual environment", "installing its requirements", "adding the Metewand SDK"] {
        assert!(stderr(&build).contains(step), "{}", stderr(&build));
    }
    let built = envs_of(&state);
    assert_eq!(built.len(), 1, "{built:?}");
    let digest = &built[0];

    // Used by attempts: built nothing more, the worker's python3 is the environment's, which it cannot change.
    let run_mean = [
        "run",
        repo_text,
        "--problem",
        "mean",
        "--dataset",
        "small",
        "--implementation",
        "mean",
        "--state-dir",
        state_text,
    ];
    let run = in_venv(&venv, &run_mean);
    assert_eq!(run.status.code(), Some(0), "{}{}", text(&run.stdout), stderr(&run));
    assert!(
        stderr(&run).contains("built and verified, kept") && !stderr(&run).contains("creating"),
        "{}",
        stderr(&run)
    );
    let campaign = in_venv(&venv, &["campaign", "run", repo_text, "main", "--state-dir", state_text]);
    assert_eq!(campaign.status.code(), Some(0), "{}{}", text(&campaign.stdout), stderr(&campaign));
    assert!(!stderr(&campaign).contains("creating"), "{}", stderr(&campaign));
    let attempts = fs::read_dir(state.join("attempts")).unwrap().next().unwrap().unwrap().path();
    let record: serde_json::Value = serde_json::from_slice(&fs::read(attempts.join("attempt.json")).unwrap()).unwrap();
    let environment = &record["implementation"]["environment"];
    let site = environment["site_packages"][0].as_str().unwrap();
    assert!(site.starts_with(state.join("envs").join(digest).to_str().unwrap()), "{environment}");
    // The SDK was compiled when the environment was built: its worker, which cannot write beside it, imports bytecode.
    let bytecode = fs::read_dir(Path::new(site).join("metewand/__pycache__")).unwrap();
    let compiled: Vec<String> = bytecode.map(|entry| entry.unwrap().file_name().into_string().unwrap()).collect();
    assert!(compiled.iter().any(|name| name.starts_with("worker.") && name.ends_with(".pyc")), "{compiled:?}");
    let names: Vec<&str> =
        environment["distributions"].as_array().unwrap().iter().map(|d| d["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"tinypkg"), "{environment}");
    let list = in_venv(&venv, &["env", "list", repo_text, "--state-dir", state_text]);
    assert_eq!(list.status.code(), Some(0), "{}", stderr(&list));
    assert!(text(&list.stdout).starts_with(&format!("{digest} generate,judge,mean ")), "{}", text(&list.stdout));
    assert!(text(&list.stdout).trim_end().ends_with(" verified"), "the worker changed nothing: {}", text(&list.stdout));

    // Changed by hand: listed as changed, and built again before the next attempt runs.
    let package = Path::new(site).join("tinypkg/__init__.py");
    let _ = std::process::Command::new("chmod").args(["-R", "u+w"]).arg(state.join("envs")).status();
    fs::write(&package, "VALUE = 0\n").unwrap();
    let list = in_venv(&venv, &["env", "list", repo_text, "--state-dir", state_text]);
    assert!(text(&list.stdout).contains("changed (has \""), "{}", text(&list.stdout));
    let again = in_venv(&venv, &run_mean);
    assert_eq!(again.status.code(), Some(0), "{}{}", text(&again.stdout), stderr(&again));
    assert!(stderr(&again).contains("removing it to build it again"), "{}", stderr(&again));
    assert_eq!(fs::read_to_string(&package).unwrap(), "VALUE = 42\n");

    // A build cut short before its manifest: listed as unfinished (no build holds its lock), never used.
    let _ = std::process::Command::new("chmod").args(["-R", "u+w"]).arg(state.join("envs")).status();
    fs::remove_file(state.join("envs").join(digest).join("manifest.json")).unwrap();
    let list = in_venv(&venv, &["env", "list", repo_text, "--state-dir", state_text]);
    assert!(
        text(&list.stdout).starts_with(&format!("{digest} generate,judge,mean 0 built-unix:0  unfinished (its build")),
        "{}",
        text(&list.stdout)
    );

    // Pruned when nothing declares it.
    let prune = in_venv(&venv, &["env", "prune", "--all", "--state-dir", state_text]);
    assert_eq!(text(&prune.stdout), format!("removed {digest}\n"), "{}", stderr(&prune));
    assert!(envs_of(&state).is_empty());
}

#[test]
fn unpinned_and_missing_packages_are_refused_by_name_and_leave_nothing_in_envs() {
    let place = tempfile::tempdir().unwrap();
    let venv = sdk_venv(place.path());
    let repo = bench(place.path(), "--no-index\n--find-links wheels\ntinypkg>=1\n");
    let (repo_text, state) = (repo.to_str().unwrap(), place.path().join("state"));
    let state_text = state.to_str().unwrap();
    let refused = in_venv(&venv, &["env", "build", repo_text, "--state-dir", state_text]);
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(
        stderr(&refused),
        "metewand: env build: worker \"generate\": requirement \"tinypkg>=1\" in requirements.txt is not pinned: write \
         tinypkg==VERSION (an exact version), so that a rebuild installs what was measured\n"
    );
    let campaign = in_venv(&venv, &["campaign", "run", repo_text, "main", "--state-dir", state_text]);
    assert_eq!(campaign.status.code(), Some(2), "{}", stderr(&campaign));
    assert!(stderr(&campaign).contains("\"tinypkg>=1\" in requirements.txt is not pinned"), "{}", stderr(&campaign));
    assert!(envs_of(&state).is_empty());

    fs::write(repo.join("requirements.txt"), "--no-index\n--find-links wheels\ntinypkg==1.0\nnosuchpkg==2.0\n")
        .unwrap();
    let missing = in_venv(&venv, &["env", "build", repo_text, "--state-dir", state_text]);
    assert_eq!(missing.status.code(), Some(2), "{}", stderr(&missing));
    let last = stderr(&missing).lines().last().unwrap().to_owned();
    assert!(
        last.starts_with(
            "metewand: env build: worker \"generate\": package \"nosuchpkg\" named in requirements.txt cannot be installed"
        ),
        "{last}"
    );
    assert!(envs_of(&state).is_empty(), "nothing half-built is kept: {:?}", envs_of(&state));
}

/// `env list` of a repository that does not load is refused in one sentence (its state folder is the repository's,
/// so an empty listing would say nothing true); given a state folder, it lists that folder whatever the repository.
#[test]
fn env_list_refuses_a_repository_it_cannot_load_unless_given_a_state_folder() {
    let place = tempfile::tempdir().unwrap();
    let missing = place.path().join("missing");
    let state = place.path().join("state");
    fs::create_dir(&state).unwrap();
    let refused = metewand(&["env".into(), "list".into(), missing.to_str().unwrap().into()]);
    let said = text(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{said}");
    assert!(said.contains("cannot read repository"), "{said}");
    assert_eq!(said.trim().lines().count(), 1, "{said}");
    let listed = metewand(&[
        "env".into(),
        "list".into(),
        missing.to_str().unwrap().into(),
        "--state-dir".into(),
        state.to_str().unwrap().into(),
    ]);
    assert_eq!(listed.status.code(), Some(0), "{}", text(&listed.stderr));
    assert_eq!(text(&listed.stdout), "", "no environment is built in the state folder");
}

#[test]
fn an_environment_is_built_and_used_under_a_state_folder_named_relative_to_the_working_folder() {
    let place = tempfile::tempdir().unwrap();
    let venv = sdk_venv(place.path());
    bench(place.path(), "--no-index\n--find-links wheels\ntinypkg==1.0\n");
    // The installer runs in the requirements file's folder, so a path relative to here would name another place.
    let here = |args: &[&str]| {
        let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
        let mut command = crate::command(&args);
        command.env("PATH", crate::campaign::path_with(&venv.join("bin"))).current_dir(place.path());
        command.output().unwrap()
    };
    let build = here(&["env", "build", "bench", "--state-dir", "state"]);
    assert_eq!(build.status.code(), Some(0), "{}", stderr(&build));
    assert_eq!(envs_of(&place.path().join("state")).len(), 1);
    let run = here(&[
        "run",
        "bench",
        "--problem",
        "mean",
        "--dataset",
        "small",
        "--implementation",
        "mean",
        "--state-dir",
        "state",
    ]);
    assert_eq!(run.status.code(), Some(0), "{}{}", text(&run.stdout), stderr(&run));
    assert!(text(&run.stdout).contains("reached (verdict: reached)"), "{}", text(&run.stdout));
}
