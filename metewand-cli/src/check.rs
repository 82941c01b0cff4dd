//! `metewand check [REPO] [--dataset-seed N]`: load and check a benchmark repository and print its identities.

use std::path::{Path, PathBuf};

use metewand_protocol::strict::SafeUint;
use metewand_runtime::{CheckError, CheckedRepository};

use crate::{Failure, parse_seed};

const USAGE: &str = "usage: metewand check [REPO] [--dataset-seed N]

Loads REPO/metewand.toml (REPO defaults to the current directory) and checks it: every key and value, the schema
catalog (the repository's schema files, its inline schemas and Metewand's public schemas, nothing fetched), every
reference, every worker's source directory and every parameter set. A mistake is reported as one sentence with its
file, line and column.

On success, prints one line per identity, fields separated by single spaces:
  source NAME sha256:HEX                      the source tree digest of worker NAME
  worker NAME mw1-resolved-worker-HEX         the resolved worker identity of worker NAME
  contract NAME mw1-problem-contract-HEX      the contract id of problem NAME
  dataset NAME SEED HEX                       the key of dataset NAME for seed SEED
Names are printed in byte order within each kind.

options:
  --dataset-seed N   the seed of the printed dataset keys, 0 <= N <= 9007199254740991 (default 0)
  -h, --help         print this help

exit statuses: 0 the repository is valid, 2 the repository is invalid, or a usage or I/O error";

pub(crate) fn run(args: &[String]) -> Result<(), Failure> {
    let mut repo: Option<&str> = None;
    let mut seed = SafeUint::ZERO;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            "--dataset-seed" => {
                let value = rest.next().ok_or_else(|| usage("--dataset-seed needs a value"))?;
                seed = parse_seed("--dataset-seed", value).map_err(|e| usage(&e))?;
            }
            flag if flag.starts_with("--dataset-seed=") => {
                seed = parse_seed("--dataset-seed", &flag["--dataset-seed=".len()..]).map_err(|e| usage(&e))?
            }
            flag if flag.starts_with('-') && flag != "-" => return Err(usage(&format!("unknown option {flag:?}"))),
            path if repo.is_none() => repo = Some(path),
            _ => return Err(usage("check takes at most one REPO")),
        }
    }
    let repo = Path::new(repo.unwrap_or("."));
    let repository = load(repo)?;
    let mut out = String::new();
    for (name, worker) in repository.workers() {
        out.push_str(&format!("source {name} {}\n", worker.source_tree().digest()));
    }
    for (name, worker) in repository.workers() {
        out.push_str(&format!("worker {name} {}\n", worker.identity()));
    }
    for (name, problem) in repository.problems() {
        out.push_str(&format!("contract {name} {}\n", problem.contract_id()));
    }
    for (name, dataset) in repository.datasets() {
        out.push_str(&format!("dataset {name} {seed} {}\n", dataset.key(seed)));
    }
    print!("{out}");
    Ok(())
}

fn usage(message: &str) -> Failure {
    Failure::Usage(format!("check: {message}; run `metewand check --help`"))
}

/// Loads a repository, turning a check error into one sentence whose file is named as the user can open it.
pub(crate) fn load(repo: &Path) -> Result<CheckedRepository, Failure> {
    CheckedRepository::load(repo).map_err(|error| Failure::Usage(describe(repo, &error)))
}

/// `REPO/metewand.toml:12:9: ...`: the location joined to the repository path the user gave.
pub(crate) fn describe(repo: &Path, error: &CheckError) -> String {
    let location = error.location();
    let file: PathBuf = if location.file.is_relative() { repo.join(&location.file) } else { location.file.clone() };
    match location.position {
        Some((line, column)) => format!("{}:{line}:{column}: {}", file.display(), error.kind()),
        None => format!("{}: {}", file.display(), error.kind()),
    }
}
