//! The Python half of `cargo xtask test`: a virtual environment under `target/` with the pinned test packages,
//! then pytest over `sdk-python/tests`, the syntax-version linter and a strict type check over the SDK's sources, and
//! the README's Quick start run as written (its `pip install` of the command and the SDK into a fresh virtual
//! environment, then `init`, a campaign and a report), and the example run through that installed command with
//! nothing but its environment on `PATH` (no cargo, no checkout binary); and `cargo xtask dist`, the release wheels.

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
    quick_start(root)
}

/// The README's Quick start, run as written: its commands, taken from the README's first `sh` block under
/// "Quick start", in a fresh folder that holds the checkout's `metewand-cli` and `sdk-python` (links), so that its
/// `pip install ./metewand-cli ./sdk-python` builds and installs the command and the SDK into a new virtual
/// environment, and its `init`, `campaign run` and `report` run through them. The command's wheel is a debug build
/// over the tests' own (`MATURIN_PEP517_ARGS`): what is proven is the commands and the packaging; `cargo xtask
/// dist` builds the release wheels. Then the example's check, a campaign and its report through the installed
/// command with only that environment on `PATH` (no cargo, no checkout binary).
fn quick_start(root: &Path) -> Result<()> {
    let target = target_dir(root);
    let scratch = target.join("quick-start");
    if scratch.exists() {
        remove_writable(&scratch).with_context(|| format!("could not remove {}", scratch.display()))?;
    }
    fs::create_dir_all(&scratch).with_context(|| format!("could not create {}", scratch.display()))?;
    for folder in ["metewand-cli", "sdk-python"] {
        std::os::unix::fs::symlink(root.join(folder), scratch.join(folder))
            .with_context(|| format!("could not link {folder} into {}", scratch.display()))?;
    }
    let readme = fs::read_to_string(root.join("README.md")).context("could not read README.md")?;
    let commands = quick_start_commands(&readme).context("README.md has no sh block under its Quick start")?;
    step("the README's Quick start, as written");
    for line in commands.lines() {
        println!("    {line}");
    }
    run(
        Command::new("bash")
            .args(["-e", "-o", "pipefail", "-c", &commands])
            .env("CARGO_TARGET_DIR", &target)
            .env("MATURIN_PEP517_ARGS", "--profile dev")
            .env("PIP_DISABLE_PIP_VERSION_CHECK", "1")
            .env_remove("VIRTUAL_ENV")
            .current_dir(&scratch),
        "the README's Quick start",
    )?;
    for made in ["my-benchmark/metewand.toml", "report.html"] {
        if !scratch.join(made).is_file() {
            bail!("the README's Quick start left no {made}");
        }
    }

    step("the installed metewand, with only its environment on PATH");
    let bin = scratch.join(".venv/bin");
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
    let report = scratch.join("example.html");
    metewand(&[os("report"), campaign.as_os_str(), os("--out"), report.as_os_str()], "metewand report")
}

/// The commands of the first `sh` block after the heading `## Quick start` in `readme`.
fn quick_start_commands(readme: &str) -> Option<String> {
    let section = &readme[readme.find("\n## Quick start\n")?..];
    let block = &section[section.find("\n```sh\n")? + "\n```sh\n".len()..];
    Some(block[..block.find("\n```")? + 1].to_owned())
}

/// `cargo xtask dist`: the two wheels a machine without Rust installs, built once into `target/dist/`: the
/// `metewand` command (a release build, stripped) and the Python SDK.
pub(crate) fn dist(root: &Path) -> Result<()> {
    let venv = root.join(VENV);
    prepare_venv(root, &venv)?;
    let dist = target_dir(root).join("dist");
    if dist.exists() {
        fs::remove_dir_all(&dist).with_context(|| format!("could not remove {}", dist.display()))?;
    }
    step("maturin build --release --strip: the metewand wheel");
    run(
        Command::new(venv.join("bin/maturin"))
            .args(["build", "--release", "--strip", "--locked", "--manifest-path", "metewand-cli/Cargo.toml", "--out"])
            .arg(&dist)
            .current_dir(root),
        "maturin build",
    )?;
    step("pip wheel: the metewand-python wheel");
    run(
        Command::new(venv.join("bin/python"))
            .args(["-m", "pip", "wheel", "--quiet", "--disable-pip-version-check", "--no-deps", "--wheel-dir"])
            .arg(&dist)
            .arg(root.join("sdk-python"))
            .current_dir(root),
        "pip wheel",
    )?;
    let mut wheels: Vec<(String, u64)> = fs::read_dir(&dist)
        .with_context(|| format!("could not read {}", dist.display()))?
        .filter_map(Result::ok)
        .filter(|entry| entry.path().extension().is_some_and(|extension| extension == "whl"))
        .map(|entry| (entry.path().display().to_string(), entry.metadata().map_or(0, |metadata| metadata.len())))
        .collect();
    wheels.sort();
    for (path, size) in &wheels {
        println!("{path}  {:.1} MB", *size as f64 / 1e6);
    }
    println!("install them with: pip install {}/*.whl", dist.display());
    Ok(())
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

    /// The Quick start that `cargo xtask test` runs is the README's: its `sh` block, whole, and nothing after it.
    #[test]
    fn the_quick_start_run_is_the_readmes() {
        let readme = fs::read_to_string(crate::workspace_root().join("README.md")).unwrap();
        let commands = quick_start_commands(&readme).unwrap();
        let lines: Vec<&str> = commands.lines().collect();
        assert!(lines[0].starts_with("python3 -m venv .venv && . .venv/bin/activate"), "{commands}");
        assert!(lines[1].starts_with("pip install ./metewand-cli ./sdk-python "), "{commands}");
        assert!(lines.last().unwrap().starts_with("metewand report my-benchmark/"), "{commands}");
        assert!(!commands.contains("```"), "{commands}");
        let text = "intro\n```sh\nnot this\n```\n\n## Quick start\n\ntext\n\n```sh\na\nb\n```\n```sh\nc\n```\n";
        assert_eq!(quick_start_commands(text).as_deref(), Some("a\nb\n"));
        assert_eq!(quick_start_commands("## Quick start\n```sh\na\n"), None);
    }

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
