//! Metewand's development tasks.
//!
//! - `cargo xtask codegen` regenerates the Rust types and Python models from `schemas/`, rewriting only the files
//!   whose contents changed and removing generated files no schema produces any more.
//! - `cargo xtask codegen --check` fails, naming each stale file, when any generated file is out of date.
//! - `cargo xtask test` is the project's one test command: formatting, clippy with warnings denied, every Rust
//!   test, the drift check, and the Python tests in a virtual environment it prepares under `target/`.

mod codegen_files;
mod python;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

const USAGE: &str = "usage: cargo xtask <command>

commands:
  codegen           regenerate the Rust types and Python models from schemas/
  codegen --check   fail if any generated file is out of date
  test              run every check and test: fmt, clippy, Rust tests, drift check, Python tests";

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
    cargo(root, &["test", "--workspace", "--locked"])?;
    step("cargo xtask codegen --check");
    codegen_files::check(root)?;
    python::test(root)?;
    println!("xtask test: every check passed");
    Ok(())
}

fn step(what: &str) {
    println!("\n==> {what}");
}

fn cargo(root: &Path, args: &[&str]) -> Result<()> {
    step(&format!("cargo {}", args.join(" ")));
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args(args)
        .current_dir(root)
        .status()
        .with_context(|| format!("could not run cargo {}", args.join(" ")))?;
    if !status.success() {
        bail!("cargo {} failed ({status})", args.join(" "));
    }
    Ok(())
}
