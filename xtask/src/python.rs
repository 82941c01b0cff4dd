//! The Python half of `cargo xtask test`: a virtual environment under `target/` with the pinned test packages,
//! then pytest over `sdk-python/tests`, the syntax-version linter and a strict type check over the SDK's sources, and
//! the `metewand` wheel:
//! built with maturin, installed into a fresh virtual environment with the SDK, and run there with nothing but
//! that environment on `PATH` (no cargo, no checkout binary).

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::step;

const REQUIREMENTS: &str = "sdk-python/test-requirements.txt";
const VENV: &str = "target/python-venv";
/// Beside the environment, the requirements it was built from: a changed pin rebuilds it.
const STAMP: &str = "installed-requirements.txt";

/// Runs pytest (with `env` added, the skip log among it), vermin and mypy.
pub(crate) fn test(root: &Path, env: &[(&str, &str)]) -> Result<()> {
    let venv = root.join(VENV);
    let python = venv.join("bin/python");
    prepare_venv(root, &venv)?;

    step("pytest sdk-python/tests");
    run(
        Command::new(&python)
            .args(["-m", "pytest", "-q", "sdk-python/tests"])
            .env("PYTHONPATH", root.join("sdk-python/src"))
            // `cargo test` has just built the CLI; the cross-language identity tests compare with its output.
            .env("METEWAND_BIN", target_dir(root).join("debug/metewand"))
            .envs(env.iter().copied())
            .current_dir(root),
        "pytest",
    )?;

    step("vermin -t=3.10- --violations sdk-python/src");
    run(
        Command::new(venv.join("bin/vermin"))
            .args(["-t=3.10-", "--violations", "--no-tips", "sdk-python/src"])
            .current_dir(root),
        "vermin",
    )?;

    // The SDK ships `py.typed`: what it promises, a strict type checker holds it to, generated models included.
    step("mypy --strict sdk-python/src/metewand");
    run(
        Command::new(venv.join("bin/mypy"))
            .args(["--strict", "--cache-dir"])
            .arg(target_dir(root).join("mypy-cache"))
            .arg("sdk-python/src/metewand")
            .current_dir(root),
        "mypy",
    )?;
    wheel(root, &venv)
}

/// Builds the `metewand` wheel (a debug build: what is proven is the packaging), installs it with the SDK into a
/// fresh virtual environment, and runs the example's check, a campaign and its report, and `init` then `run` of a
/// new repository outside the checkout, through the installed command with only that environment on `PATH`.
fn wheel(root: &Path, venv: &Path) -> Result<()> {
    let target = target_dir(root);
    let wheels = target.join("wheels");
    let installed = target.join("wheel-venv");
    let scratch = target.join("wheel-check");
    for old in [&wheels, &installed, &scratch] {
        if old.exists() {
            remove_writable(old).with_context(|| format!("could not remove {}", old.display()))?;
        }
    }
    step("maturin build: the metewand wheel");
    run(
        Command::new(venv.join("bin/maturin"))
            .args(["build", "--locked", "--manifest-path", "metewand-cli/Cargo.toml", "--out"])
            .arg(&wheels)
            .current_dir(root),
        "maturin build",
    )?;
    let built: Vec<_> = fs::read_dir(&wheels)
        .with_context(|| format!("could not read {}", wheels.display()))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|extension| extension == "whl"))
        .collect();
    let [wheel] = built.as_slice() else { bail!("maturin built {} wheels, not one", built.len()) };

    step("the wheel and the SDK in a fresh virtual environment");
    run(Command::new("python3").args(["-m", "venv"]).arg(&installed), "python3 -m venv")?;
    run(
        Command::new(installed.join("bin/python"))
            .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check"])
            .arg(root.join("sdk-python"))
            .arg(wheel),
        "pip install of the wheel",
    )?;

    step("the installed metewand, with only its environment on PATH");
    let bin = installed.join("bin");
    let metewand = |args: &[&std::ffi::OsStr], what: &str| {
        run(Command::new("metewand").args(args).env("PATH", &bin).current_dir(root), what)
    };
    let os = |text: &'static str| std::ffi::OsStr::new(text);
    let (state, campaign) = (scratch.join("state"), scratch.join("campaign"));
    let example = root.join("examples/least-squares");
    metewand(&[os("check"), example.as_os_str()], "metewand check of the example")?;
    metewand(
        &[
            os("campaign"),
            os("run"),
            example.as_os_str(),
            os("--problem"),
            os("ridge"),
            os("--dataset"),
            os("small"),
            os("--implementation"),
            os("cholesky"),
            os("--implementation"),
            os("cg"),
            os("--state-dir"),
            state.as_os_str(),
            os("--out"),
            campaign.as_os_str(),
            os("--quiet"),
        ],
        "metewand campaign run of the example",
    )?;
    let report = scratch.join("report.html");
    metewand(&[os("report"), campaign.as_os_str(), os("--out"), report.as_os_str()], "metewand report")?;
    let bench = scratch.join("bench");
    metewand(&[os("init"), bench.as_os_str()], "metewand init")?;
    metewand(
        &[
            os("run"),
            bench.as_os_str(),
            os("--problem"),
            os("mean"),
            os("--dataset"),
            os("small"),
            os("--implementation"),
            os("mean"),
            os("--state-dir"),
            state.as_os_str(),
        ],
        "metewand run of a new repository, its workers importing the installed SDK",
    )
}

pub(crate) fn target_dir(root: &Path) -> std::path::PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), Into::into)
}

fn prepare_venv(root: &Path, venv: &Path) -> Result<()> {
    let requirements =
        fs::read_to_string(root.join(REQUIREMENTS)).with_context(|| format!("could not read {REQUIREMENTS}"))?;
    let stamp = venv.join(STAMP);
    if fs::read_to_string(&stamp).ok().as_deref() == Some(requirements.as_str()) && venv.join("bin/python").exists() {
        return Ok(());
    }
    step(&format!("python3 -m venv {VENV} and pip install -r {REQUIREMENTS}"));
    if venv.exists() {
        fs::remove_dir_all(venv).with_context(|| format!("could not remove the old {VENV}"))?;
    }
    run(Command::new("python3").args(["-m", "venv"]).arg(venv), "python3 -m venv")?;
    run(
        Command::new(venv.join("bin/python"))
            .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r"])
            .arg(root.join(REQUIREMENTS)),
        "pip install",
    )?;
    fs::write(&stamp, requirements).with_context(|| format!("could not write {}", stamp.display()))
}

/// Removes a folder an earlier run left, its folders made writable first: the dataset store's entries and source
/// copies under the check's state folder are read-only, which keeps anyone but root from removing what is in them.
fn remove_writable(path: &Path) -> std::io::Result<()> {
    fn writable(path: &Path) -> std::io::Result<()> {
        let metadata = fs::symlink_metadata(path)?;
        if metadata.is_dir() {
            let mut permissions = metadata.permissions();
            permissions.set_mode(permissions.mode() | 0o700);
            fs::set_permissions(path, permissions)?;
            for entry in fs::read_dir(path)? {
                writable(&entry?.path())?;
            }
        }
        Ok(())
    }
    writable(path)?;
    fs::remove_dir_all(path)
}

fn run(command: &mut Command, what: &str) -> Result<()> {
    let status = command.status().with_context(|| format!("could not start {what}"))?;
    if !status.success() {
        bail!("{what} failed ({status})");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a run of the wheel's check leaves (a published dataset: a read-only folder holding a file) is removed by
    /// the next run, whoever runs it (a user without root's privileges could not otherwise).
    #[test]
    #[allow(clippy::disallowed_methods, reason = "the test makes its own files in a temporary folder")]
    fn a_read_only_folder_left_by_an_earlier_run_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        let entry = dir.path().join("wheel-check/state/datasets/key");
        fs::create_dir_all(&entry).unwrap();
        fs::write(entry.join("data.csv"), "1,2\n").unwrap();
        std::os::unix::fs::symlink("/", entry.join("link")).unwrap();
        fs::set_permissions(&entry, fs::Permissions::from_mode(0o555)).unwrap();
        remove_writable(&dir.path().join("wheel-check")).unwrap();
        assert!(!dir.path().join("wheel-check").exists());
    }
}
