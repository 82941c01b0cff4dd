//! Environments built from a declaration: pins checked before anything is built, an attempt never using an
//! environment not built, changed since, or left unfinished by a build cut short, scripts that name the
//! environment's final paths, and one build at a time per declaration.

use std::fs;
use std::process::Command;

use metewand_runtime::CheckedRepository;
use metewand_runtime::environment::{
    Condition, ENVS_DIR, EnvironmentError, Pins, build, declaration_digest, first_unpinned, list, verified_environment,
};

#[test]
fn a_requirement_is_pinned_only_with_one_exact_version() {
    let pinned = "# comment\n--no-index\n--find-links wheels\nnumpy==2.1.3 --hash=sha256:ab \\\n  --hash=sha256:cd\n\
                  scipy[extra]===1.0 ; python_version >= \"3.9\"  # why\n-i https://example.org/simple\n";
    assert_eq!(first_unpinned(pinned), None);
    for (text, package) in [
        ("numpy>=1\n", "numpy"),
        ("numpy\n", "numpy"),
        ("ok==1\nnumpy==1.*\n", "numpy"),
        ("numpy==1,<2\n", "numpy"),
        ("numpy ~= 1.2\n", "numpy"),
        ("./local/wheel.whl\n", "./local/wheel.whl"),
    ] {
        assert_eq!(first_unpinned(text).map(|(found, _)| found).as_deref(), Some(package), "{text:?}");
    }
    assert_eq!(first_unpinned("a==1\nb>=2  # later\n"), Some(("b".to_owned(), "b>=2".to_owned())));
}

#[test]
fn a_pyprojects_unpinned_dependency_is_refused_before_anything_is_built() {
    let repo = tempfile::tempdir().unwrap();
    fs::create_dir(repo.path().join("src")).unwrap();
    fs::write(repo.path().join("src/run.py"), "").unwrap();
    fs::write(repo.path().join("src/pyproject.toml"), "[project]\nname = \"w\"\ndependencies = [\"scipy>=1\"]\n")
        .unwrap();
    let toml = "format = 1\n[workers.w]\nrole = \"implementation\"\ncommand = [\"python3\", \"run.py\"]\n\
                source = \"src\"\npython = { requirements = \"src/pyproject.toml\" }\n";
    fs::write(repo.path().join("metewand.toml"), toml).unwrap();
    let repository = CheckedRepository::load(repo.path()).unwrap();
    let envs = repo.path().join("state").join(ENVS_DIR);
    let python = repository.worker("w").unwrap().python().unwrap();
    let error = build(python, &envs, Pins::Required, &mut |_| {}).unwrap_err();
    assert!(
        matches!(&error, EnvironmentError::Unpinned { file, package, .. }
            if file == "src/pyproject.toml" && package == "scipy"),
        "{error}"
    );
    assert!(!envs.exists());
}

#[test]
fn an_attempt_never_uses_an_environment_not_built_or_changed_since() {
    let repo = tempfile::tempdir().unwrap();
    fs::create_dir(repo.path().join("src")).unwrap();
    fs::write(repo.path().join("src/run.py"), "print('run')\n").unwrap();
    fs::write(repo.path().join("requirements.txt"), "# the standard library only\n").unwrap();
    let toml = "format = 1\n[workers.w]\nrole = \"implementation\"\ncommand = [\"python3\", \"run.py\"]\n\
                source = \"src\"\npython = { requirements = \"requirements.txt\" }\n";
    fs::write(repo.path().join("metewand.toml"), toml).unwrap();
    let repository = CheckedRepository::load(repo.path()).unwrap();
    let worker = repository.worker("w").unwrap();
    let state = tempfile::tempdir().unwrap();
    let envs = state.path().join(ENVS_DIR);
    let error = verified_environment(worker, &envs).unwrap_err();
    assert_eq!(
        error.to_string(),
        "the environment of worker \"w\" (requirements.txt) is not built: run `metewand env build` to build it \
         before running the worker"
    );
    let mut steps = Vec::new();
    let folder =
        build(worker.python().unwrap(), &envs, Pins::Required, &mut |line| steps.push(line.to_owned())).unwrap();
    assert_eq!(folder, envs.join(declaration_digest(worker.python().unwrap()).unwrap()));
    assert!(steps.iter().any(|step| step.contains("creating the virtual environment")), "{steps:?}");
    let venv = verified_environment(worker, &envs).unwrap().unwrap();
    assert_eq!(venv, folder.join("venv"));
    assert!(venv.join("bin/python3").exists());
    // A file planted in it: refused, naming it, until built again.
    let _ = Command::new("chmod").args(["-R", "u+w"]).arg(&folder).status();
    fs::write(venv.join("planted.py"), "").unwrap();
    let error = verified_environment(worker, &envs).unwrap_err();
    assert!(error.to_string().contains("has \"planted.py\" changed or added since it was built"), "{error}");
    build(worker.python().unwrap(), &envs, Pins::Required, &mut |_| {}).unwrap();
    assert!(!venv.join("planted.py").exists());
    assert!(verified_environment(worker, &envs).is_ok());
    let entries: Vec<_> = fs::read_dir(&envs).unwrap().map(|entry| entry.unwrap().file_name()).collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    let _ = Command::new("chmod").args(["-R", "u+w"]).arg(state.path()).status();
}

/// A wheel of `tinypkg` 1.0 in `folder`, written with Python's `zipfile`, whose console script `tinycli` prints 42.
fn write_wheel_with_script(folder: &std::path::Path) {
    fs::create_dir_all(folder).unwrap();
    let script = r#"
import base64, hashlib, sys, zipfile
def digest(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
info = "tinypkg-1.0.dist-info/"
files = {
    "tinypkg/__init__.py": b"def main():\n    print(42)\n",
    info + "METADATA": b"Metadata-Version: 2.1\nName: tinypkg\nVersion: 1.0\n",
    info + "WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    info + "entry_points.txt": b"[console_scripts]\ntinycli = tinypkg:main\n",
}
record = "".join(f"{path},{digest(data)},{len(data)}\n" for path, data in files.items())
with zipfile.ZipFile(sys.argv[1] + "/tinypkg-1.0-py3-none-any.whl", "w") as wheel:
    for path, data in files.items():
        wheel.writestr(path, data)
    wheel.writestr(info + "RECORD", record + info + "RECORD,,\n")
"#;
    let made = Command::new("python3").args(["-c", script]).arg(folder).status().unwrap();
    assert!(made.success(), "writing the wheel failed");
}

#[test]
fn scripts_name_the_final_paths_one_build_runs_at_a_time_and_an_unfinished_one_is_built_again() {
    let repo = tempfile::tempdir().unwrap();
    fs::create_dir(repo.path().join("src")).unwrap();
    fs::write(repo.path().join("src/run.py"), "").unwrap();
    write_wheel_with_script(&repo.path().join("wheels"));
    fs::write(repo.path().join("requirements.txt"), "--no-index\n--find-links wheels\ntinypkg==1.0\n").unwrap();
    let toml = "format = 1\n[workers.w]\nrole = \"implementation\"\ncommand = [\"python3\", \"run.py\"]\n\
                source = \"src\"\npython = { requirements = \"requirements.txt\" }\n";
    fs::write(repo.path().join("metewand.toml"), toml).unwrap();
    let repository = CheckedRepository::load(repo.path()).unwrap();
    let worker = repository.worker("w").unwrap();
    let state = tempfile::tempdir().unwrap();
    let envs = state.path().join(ENVS_DIR);

    // Two builds of one declaration at once: one builds, the other waits for it and keeps what it built.
    let steps: Vec<Vec<String>> = std::thread::scope(|scope| {
        let builds: Vec<_> = (0..2)
            .map(|_| {
                scope.spawn(|| {
                    let mut steps = Vec::new();
                    build(worker.python().unwrap(), &envs, Pins::Required, &mut |line| steps.push(line.to_owned()))
                        .unwrap();
                    steps
                })
            })
            .collect();
        builds.into_iter().map(|build| build.join().unwrap()).collect()
    });
    let built = steps.iter().filter(|steps| steps.iter().any(|step| step.contains("creating the virtual"))).count();
    let kept = steps.iter().filter(|steps| steps.iter().any(|step| step.contains("built and verified, kept"))).count();
    assert_eq!((built, kept), (1, 1), "{steps:?}");
    let entries: Vec<_> = fs::read_dir(&envs).unwrap().map(|entry| entry.unwrap().file_name()).collect();
    assert_eq!(entries.len(), 1, "no lock file nor staging folder is left: {entries:?}");

    // The installer's script runs from where the environment is, naming its interpreter there.
    let venv = verified_environment(worker, &envs).unwrap().unwrap();
    let script = venv.join("bin/tinycli");
    let first_line = fs::read_to_string(&script).unwrap().lines().next().unwrap().to_owned();
    assert!(first_line.starts_with(&format!("#!{}", venv.join("bin/python").display())), "{first_line}");
    let ran = Command::new(&script).output().unwrap();
    assert_eq!((ran.status.success(), String::from_utf8_lossy(&ran.stdout).into_owned()), (true, "42\n".to_owned()));

    // A build cut short before its manifest: listed as unfinished, never used, built again by the next build.
    let folder = venv.parent().unwrap().to_owned();
    let _ = Command::new("chmod").args(["-R", "u+w"]).arg(&folder).status();
    fs::remove_file(folder.join("manifest.json")).unwrap();
    let listed = list(&envs).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].1, Condition::Unfinished);
    let error = verified_environment(worker, &envs).unwrap_err();
    assert!(error.to_string().contains("(requirements.txt) is not built"), "{error}");
    let mut steps = Vec::new();
    build(worker.python().unwrap(), &envs, Pins::Required, &mut |line| steps.push(line.to_owned())).unwrap();
    assert!(steps.iter().any(|step| step.contains("its build was cut short; removing it")), "{steps:?}");
    assert_eq!(list(&envs).unwrap()[0].1, Condition::Verified);
    assert!(verified_environment(worker, &envs).is_ok());
    let _ = Command::new("chmod").args(["-R", "u+w"]).arg(state.path()).status();
}
