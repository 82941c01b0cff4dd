//! `metewand check [REPO] [--dataset-seed N]`: load and check a benchmark repository and print its identities.

use std::path::PathBuf;

use metewand_protocol::strict::SafeUint;
use metewand_runtime::attempt::{RunOptions, expected_confinement};
use metewand_runtime::session::{ConfinementReport, KernelSupport};

use crate::{Failure, parse_seed, print_out};

const LONG_ABOUT: &str =
    "Loads REPO/metewand.toml (REPO defaults to the current directory) and checks it: every key and
value, the schema catalog (the repository's schema files, its inline schemas and Metewand's public schemas, nothing
fetched), every reference, every worker's source directory and every parameter set. A mistake is reported as one
sentence with its file, line and column.

On success, prints one line per identity, fields separated by single spaces:
  source NAME sha256:HEX                      the source tree digest of worker NAME
  worker NAME mw1-resolved-worker-HEX         the resolved worker identity of worker NAME
  contract NAME mw1-problem-contract-HEX      the contract id of problem NAME
  dataset NAME SEED HEX                       the key of dataset NAME for seed SEED
Names are printed in byte order within each kind.";

/// `metewand check`.
#[derive(clap::Args)]
#[command(
    about = "check a benchmark repository; print its source tree digests, worker identities, contract ids and \
             dataset keys",
    long_about = LONG_ABOUT,
    after_help = "exit statuses: 0 the repository is valid, 2 the repository is invalid, sets a limit this machine \
                  cannot hold, or a usage or I/O error"
)]
pub(crate) struct Args {
    /// the benchmark repository (default: the current directory)
    #[arg(value_name = "REPO")]
    repo: Option<PathBuf>,
    /// the seed of the printed dataset keys, 0 <= N <= 9007199254740991 (default 0)
    #[arg(
        long,
        value_name = "N",
        default_value = "0",
        hide_default_value = true,
        allow_negative_numbers = true,
        value_parser = parse_seed
    )]
    dataset_seed: SafeUint,
    /// accept a limit `[limits]` sets that cannot be held for a worker on this machine (a warning names it);
    /// by default that is an error (exit 2), as `run` and `campaign run` would refuse to start
    #[arg(long)]
    allow_unenforced_limits: bool,
}

pub(crate) fn run(args: Args) -> Result<(), Failure> {
    let seed = args.dataset_seed;
    let repo = args.repo.unwrap_or_else(|| PathBuf::from("."));
    let repo = repo.as_path();
    let repository = crate::gate::load(repo)?;
    // A limit the repository sets must be one this machine holds for every worker, as a run would require.
    let kernel = KernelSupport::probe();
    let options = RunOptions::new(repository.root().join(".metewand"));
    let expected: Vec<(String, ConfinementReport)> = repository
        .workers()
        .iter()
        .map(|(name, worker)| (name.clone(), expected_confinement(worker, repository.limits(), &kernel, &options)))
        .collect();
    crate::gate::limits_gate("check", &repository, &expected, args.allow_unenforced_limits)?;
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
    print_out("check", &out)
}
