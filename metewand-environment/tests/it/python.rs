//! The Python distributions an interpreter imports, read from a virtual environment the test makes with the
//! machine's `python3 -m venv`, into which the test installs a wheel it writes itself (a zip holding a package and
//! its `dist-info`), with pip and no index: nothing is downloaded, and reading the environment runs nothing.

use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use metewand_environment::{python_environment, python_interpreter, site_packages};

/// Writes the wheel `tiny-<version>-py3-none-any.whl` into `dir` and returns its path.
fn wheel(dir: &Path, version: &str) -> std::path::PathBuf {
    let path = dir.join(format!("tiny-{version}-py3-none-any.whl"));
    let script = format!(
        "import zipfile, sys\n\
         info = 'tiny-{version}.dist-info'\n\
         with zipfile.ZipFile(sys.argv[1], 'w') as z:\n\
         \x20   z.writestr('tiny/__init__.py', 'VERSION = \"{version}\"\\n')\n\
         \x20   z.writestr(info + '/METADATA', 'Metadata-Version: 2.1\\nName: tiny\\nVersion: {version}\\n')\n\
         \x20   z.writestr(info + '/WHEEL', 'Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n')\n\
         \x20   z.writestr(info + '/RECORD', '')\n"
    );
    let status = Command::new("python3").arg("-c").arg(script).arg(&path).status().unwrap();
    assert!(status.success());
    path
}

/// Installs `wheel` into the environment `venv` with its own pip, offline.
fn install(venv: &Path, wheel: &Path) {
    let output = Command::new(venv.join("bin/python3"))
        .args(["-m", "pip", "install", "--no-index", "--no-deps", "--disable-pip-version-check", "--quiet"])
        .arg(wheel)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
}

/// A wheel installed in a virtual environment is recorded by name, version and `RECORD` digest; the environment is
/// read once while its folder stays as it was, and read again once another version replaced it.
#[test]
fn a_virtual_environments_distributions_are_read_from_its_files_and_cached_until_they_change() {
    let dir = tempfile::tempdir().unwrap();
    let venv = dir.path().join("venv");
    let made = Command::new("python3").args(["-m", "venv"]).arg(&venv).output().unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    install(&venv, &wheel(dir.path(), "1.0"));

    let python = venv.join("bin/python3");
    let interpreter = python_interpreter(Some(&python), None, None).expect("a virtual environment's python3");
    assert_eq!(interpreter, python);
    let folders = site_packages(&interpreter);
    assert_eq!(folders.len(), 1, "{folders:?}");
    assert!(folders[0].starts_with(&venv) && folders[0].ends_with("site-packages"), "{folders:?}");

    let environment = python_environment(&interpreter).expect("an environment");
    let tiny = environment.distributions.iter().find(|d| d.name == "tiny").expect("the wheel installed");
    assert_eq!(tiny.version, "1.0");
    let record = fs::read(folders[0].join("tiny-1.0.dist-info/RECORD")).unwrap();
    assert_eq!(tiny.record_sha256, Some(metewand_protocol::Sha256Digest::of(&record)));
    assert!(environment.distributions.iter().any(|d| d.name == "pip"), "{environment:?}");
    let again = python_environment(&interpreter).unwrap();
    assert!(Arc::ptr_eq(&environment, &again), "read once while the folder is unchanged");

    install(&venv, &wheel(dir.path(), "2.0"));
    let upgraded = python_environment(&interpreter).unwrap();
    let tiny = upgraded.distributions.iter().find(|d| d.name == "tiny").unwrap();
    assert_eq!(tiny.version, "2.0");
    assert_ne!(upgraded.digest, environment.digest);
}

/// A program that is not Python, a script run by a virtual environment's interpreter, and a file named like an
/// interpreter with no `site-packages` (a version manager's shim).
#[test]
fn scripts_run_by_an_environments_interpreter_name_it_and_other_programs_name_none() {
    let dir = tempfile::tempdir().unwrap();
    let venv = dir.path().join("venv");
    fs::create_dir_all(venv.join("bin")).unwrap();
    fs::create_dir_all(venv.join("lib/python3.12/site-packages")).unwrap();
    fs::write(venv.join("pyvenv.cfg"), "home = /nowhere\n").unwrap();
    fs::write(venv.join("bin/python3"), "").unwrap();
    fs::set_permissions(venv.join("bin/python3"), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let script = dir.path().join("solve");
    let mut file = fs::File::create(&script).unwrap();
    writeln!(file, "#!{}\nprint()", venv.join("bin/python3").display()).unwrap();
    assert_eq!(python_interpreter(Some(&script), None, None), Some(venv.join("bin/python3")));
    let env_script = dir.path().join("solve-env");
    fs::write(&env_script, "#!/usr/bin/env -S python3\n").unwrap();
    let path_var = std::ffi::OsString::from(venv.join("bin"));
    assert_eq!(python_interpreter(Some(&env_script), None, Some(&path_var)), Some(venv.join("bin/python3")));
    assert_eq!(python_interpreter(Some(Path::new("/bin/sh")), Some(Path::new("/bin/sh")), None), None);
    let shims = dir.path().join("shims");
    fs::create_dir(&shims).unwrap();
    fs::write(shims.join("python3"), "#!/bin/sh\n").unwrap();
    assert_eq!(python_interpreter(Some(&shims.join("python3")), None, None), None);
    let environment = python_environment(&venv.join("bin/python3")).unwrap();
    assert!(environment.distributions.is_empty());
}
