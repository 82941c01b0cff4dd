//! Metewand's development tasks.
//!
//! - `cargo xtask codegen` regenerates the Rust types and Python models from `schemas/`, rewriting only the files
//!   whose contents changed and removing generated files no schema produces any more.
//! - `cargo xtask codegen --check` fails, naming each stale file, when any generated file is out of date.
//! - `cargo xtask test` is the project's one test command: formatting, clippy with warnings denied, every Rust
//!   test, the drift check, and the Python tests in a virtual environment it prepares under `target/`. Under
//!   `CI=true` it first brings up a single-node Slurm cluster (`xtask/slurm-cluster.sh start`, as root) and the
//!   Slurm tests must run against it; elsewhere they run when `sbatch` reaches a cluster and say they were skipped
//!   otherwise.

mod codegen_files;
mod python;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

const USAGE: &str = "usage: cargo xtask <command>

commands:
  codegen           regenerate the Rust types and Python models from schemas/
  codegen --check   fail if any generated file is out of date
  test              run every check and test: fmt, clippy, Rust tests, drift check, Python tests
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
        reachable_without_privileges(root)?;
    }
    // Under CI the Slurm tests must run: they fail instead of saying they were skipped.
    let required = if ci { "1" } else { "0" };
    cargo_with(root, &["test", "--workspace", "--locked"], &[(SLURM_REQUIRED, required)])?;
    step("cargo xtask codegen --check");
    codegen_files::check(root)?;
    python::test(root)?;
    println!("xtask test: every check passed");
    Ok(())
}

fn step(what: &str) {
    println!("\n==> {what}");
}

/// Set to 1 for the tests: a Slurm test fails when no cluster answers instead of saying it was skipped.
const SLURM_REQUIRED: &str = "METEWAND_SLURM_REQUIRED";

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

/// The tests of the unprivileged confinement route run `metewand` as uid 65534, which must be able to pass through
/// every folder above the checkout: a clone made in a private temporary folder (mode 0700) is not. Only the search
/// bit is added for others, so nothing becomes listable or readable that was not.
fn reachable_without_privileges(root: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    for folder in root.ancestors() {
        let metadata = std::fs::metadata(folder).with_context(|| format!("could not examine {}", folder.display()))?;
        let mode = metadata.permissions().mode();
        if mode & 0o001 == 0 {
            step(&format!("chmod o+x {} (the unprivileged tests must reach the checkout)", folder.display()));
            std::fs::set_permissions(folder, std::fs::Permissions::from_mode(mode | 0o001))
                .with_context(|| format!("could not add the search bit to {}", folder.display()))?;
        }
    }
    Ok(())
}
