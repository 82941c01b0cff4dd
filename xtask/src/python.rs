//! The Python half of `cargo xtask test`: a virtual environment under `target/` with the pinned test packages,
//! then pytest over `sdk-python/tests` and the syntax-version linter over the SDK's sources.

use std::fs;
use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::step;

const REQUIREMENTS: &str = "sdk-python/test-requirements.txt";
const VENV: &str = "target/python-venv";
/// Beside the environment, the requirements it was built from: a changed pin rebuilds it.
const STAMP: &str = "installed-requirements.txt";

/// Runs pytest (with `env` added, the skip log among it) and vermin.
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

fn run(command: &mut Command, what: &str) -> Result<()> {
    let status = command.status().with_context(|| format!("could not start {what}"))?;
    if !status.success() {
        bail!("{what} failed ({status})");
    }
    Ok(())
}
