//! Metewand's development tasks.
//!
//! - `cargo xtask codegen` regenerates the Rust types and Python models from `schemas/`, rewriting only the files
//!   whose contents changed and removing generated files no schema produces any more.
//! - `cargo xtask codegen --check` fails, naming each stale file, when any generated file is out of date.
//! - `cargo xtask test` is the project's one test command: formatting, clippy with warnings denied, every Rust
//!   test, the drift check, and the Python tests in a virtual environment it prepares under `target/`. Under
//!   `CI=true` it first brings up a single-node Slurm cluster (`xtask/slurm-cluster.sh start`, as root) and
//!   installs Chromium when it is missing (for the report's layout test); there
//!   the tests require what CI's machine gives (`metewand-testkit`), so a test that would skip for lack of it
//!   fails instead. Elsewhere a test that cannot play its attack says so, and either way the skipped tests are
//!   counted and listed at the end.

#![allow(
    clippy::disallowed_methods,
    reason = "the development tasks read and write this checkout, which is no worker's"
)]
#![forbid(unsafe_code)]

mod codegen_files;
mod python;
#[cfg(test)]
mod tidy;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

const USAGE: &str = "usage: cargo xtask <command>

commands:
  codegen           regenerate the Rust types and Python models from schemas/
  codegen --check   fail if any generated file is out of date
  test              run every check and test: fmt, clippy, Rust tests, drift check, Python tests, the
                    README's Quick start as written
  dist              build the release wheels (the metewand command, stripped, and the Python SDK) into
                    target/dist/
                    (with CI=true, first start the single-node Slurm cluster of xtask/slurm-cluster.sh)";

fn main() {
    if let Err(err) = run(std::env::args().skip(1).collect()) {
        eprintln!("error: {err:#}");
        std::process::exit(1);
    }
}

fn run(args: Vec<String>) -> Result<()> {
    let root = workspace_root();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        ["codegen"] => {
            let report = codegen_files::write(&root)?;
            if report.is_empty() {
                println!("generated files are up to date");
            }
            for line in report {
                println!("{line}");
            }
            Ok(())
        }
        ["codegen", "--check"] => codegen_files::check(&root),
        ["test"] => test(&root),
        ["dist"] => python::dist(&root),
        ["help" | "--help" | "-h"] | [] => {
            println!("{USAGE}");
            Ok(())
        }
        _ => bail!("unknown arguments {:?}\n\n{USAGE}", args.join(" ")),
    }
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask lives one level below the workspace root").to_owned()
}

fn test(root: &Path) -> Result<()> {
    cargo(root, &["fmt", "--all", "--check"])?;
    cargo(root, &["clippy", "--workspace", "--all-targets", "--locked", "--", "-D", "warnings"])?;
    let ci = std::env::var("CI").is_ok_and(|value| value == "true");
    if ci {
        slurm_cluster(root)?;
        chromium()?;
    }
    let skip_log = python::target_dir(root).join("xtask/skipped-tests.tsv");
    fs::create_dir_all(skip_log.parent().expect("a file in a folder"))
        .and_then(|()| match fs::remove_file(&skip_log) {
            Err(error) if error.kind() != std::io::ErrorKind::NotFound => Err(error),
            _ => Ok(()),
        })
        .with_context(|| format!("could not start a new skip log at {}", skip_log.display()))?;
    let log = skip_log.display().to_string();
    let env = [(SKIP_LOG, log.as_str())];
    let outcome = (|| {
        cargo_with(root, &["test", "--workspace", "--locked"], &env)?;
        step("cargo xtask codegen --check");
        codegen_files::check(root)?;
        python::test(root, &env)
    })();
    report_skips(&skip_log)?;
    outcome?;
    println!("xtask test: every check passed");
    Ok(())
}

/// The file each skipped test appends its line to (`metewand-testkit`, and `sdk-python/tests/conftest.py`).
const SKIP_LOG: &str = "METEWAND_SKIP_LOG";

/// Prints how many tests were skipped and why, from the skip log (`test`, requirement, why per line).
fn report_skips(log: &Path) -> Result<()> {
    step("skipped tests");
    let text = match fs::read_to_string(log) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(error) => return Err(error).with_context(|| format!("could not read the skip log {}", log.display())),
    };
    let mut lines: Vec<String> = text
        .lines()
        .map(|line| {
            let mut fields = line.splitn(3, '\t');
            let (test, missing, why) = (fields.next(), fields.next(), fields.next());
            format!("{} (needs {}: {})", test.unwrap_or(""), missing.unwrap_or("?"), why.unwrap_or(""))
        })
        .collect();
    lines.sort();
    lines.dedup();
    match lines.len() {
        0 => println!("no test skipped"),
        count => {
            println!("{count} test{} skipped:", if count == 1 { "" } else { "s" });
            for line in lines {
                println!("  {line}");
            }
        }
    }
    Ok(())
}

fn step(what: &str) {
    println!("\n==> {what}");
}

/// Brings up the single-node Slurm cluster the Slurm tests run against (`xtask/slurm-cluster.sh start`: it installs
/// Slurm's Debian packages when missing and must run as root); a running one is left as it is.
fn slurm_cluster(root: &Path) -> Result<()> {
    step("xtask/slurm-cluster.sh start");
    let script = root.join("xtask/slurm-cluster.sh");
    let status = Command::new("bash")
        .arg(&script)
        .arg("start")
        .current_dir(root)
        .status()
        .with_context(|| format!("could not run {}", script.display()))?;
    if !status.success() {
        bail!("{} start failed ({status}): the Slurm tests need the single-node cluster", script.display());
    }
    Ok(())
}

/// Makes sure headless Chromium is on `PATH`, for the test that lays out the HTML report: Debian's `chromium`
/// package is installed when it is missing (as root, like the Slurm packages).
fn chromium() -> Result<()> {
    let found = Command::new("chromium").arg("--version").output().is_ok_and(|output| output.status.success());
    if found {
        return Ok(());
    }
    step("apt-get install chromium");
    for args in [&["update", "-qq"][..], &["install", "-y", "-qq", "--no-install-recommends", "chromium"][..]] {
        let status = Command::new("apt-get")
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .context("could not run apt-get")?;
        if !status.success() {
            bail!("apt-get {} failed ({status}): the report's layout test needs Chromium", args.join(" "));
        }
    }
    Ok(())
}

fn cargo(root: &Path, args: &[&str]) -> Result<()> {
    cargo_with(root, args, &[])
}

fn cargo_with(root: &Path, args: &[&str], env: &[(&str, &str)]) -> Result<()> {
    step(&format!("cargo {}", args.join(" ")));
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args(args)
        .envs(env.iter().copied())
        .current_dir(root)
        .status()
        .with_context(|| format!("could not run cargo {}", args.join(" ")))?;
    if !status.success() {
        bail!("cargo {} failed ({status})", args.join(" "));
    }
    Ok(())
}
