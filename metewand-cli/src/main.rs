//! The `metewand` command: Metewand's tools for benchmark authors, worker authors and the people who run them.
//!
//! Each command reports a failure as one sentence on stderr and an exit status; the logic lives in the libraries.

mod canon;
mod check;
mod conformance;
mod run;
mod validate;

use std::process::ExitCode;

const USAGE: &str = "usage: metewand <command> [arguments]

Runs scientific benchmark attempts with untrusted worker processes.

commands:
  check [REPO] [--dataset-seed N]
                   check a benchmark repository and print its source tree digests, worker
                   identities, problem contract ids and dataset keys
  run [REPO] --problem P --dataset D --implementation I [--dataset-seed N]
      [--implementation-seed N] [--out DIR] [--state-dir DIR]
                   run one attempt end to end and record it in attempt.json
  validate dataset DIR --repo R --dataset D
  validate result|metrics DIR --repo R --problem P
                   validate a directory a worker wrote, exactly as the runtime would
  conformance [REPO] --worker W | REPO --all | --role ROLE [--source DIR] -- CMD [ARG...]
      [--json] [--strict]
                   drive a worker through every check of the worker protocol and print
                   a table of pass, fail, skip and warn
  canon [FILE]     print a JSON document's canonical form (RFC 8785) after checking it in
                   Metewand's restricted domain; reads stdin when FILE is absent or -

options:
  -h, --help       print this help (or a command's, after the command)
  -V, --version    print the version

exit statuses: 0 success, 1 the input was rejected, 2 usage, repository or I/O error
(`check` reports an invalid repository with 2; `conformance` uses 1 when a check failed);
`run` also uses 1 for a verdict not reached, 3 for a failed attempt and 130 for a cancelled
one (see `metewand run --help`)";

/// What a command's failure means for the exit status.
pub(crate) enum Failure {
    /// The input was read and rejected: exit 1.
    Rejected(String),
    /// The command could not do its work (usage, I/O): exit 2.
    Usage(String),
    /// The command reported what happened itself and ends with this status.
    Status(u8),
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("-V" | "--version") => {
            println!("metewand {}", env!("CARGO_PKG_VERSION"));
            Ok(())
        }
        Some("-h" | "--help" | "help") | None => {
            println!("{USAGE}");
            Ok(())
        }
        Some("canon") => canon::run(&args[1..]),
        Some("check") => check::run(&args[1..]),
        Some("conformance") => conformance::run(&args[1..]),
        Some("run") => run::run(&args[1..]),
        Some("validate") => validate::run(&args[1..]),
        Some(other) => {
            Err(Failure::Usage(format!("unknown command {other:?}; run `metewand --help` for the commands")))
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Rejected(message)) => {
            eprintln!("metewand: {message}");
            ExitCode::from(1)
        }
        Err(Failure::Usage(message)) => {
            eprintln!("metewand: {message}");
            ExitCode::from(2)
        }
        Err(Failure::Status(status)) => ExitCode::from(status),
    }
}

/// A seed given on the command line: an integer from 0 to 2^53 − 1. The error names the flag; the command adds
/// its own context.
pub(crate) fn parse_seed(flag: &str, text: &str) -> Result<metewand_protocol::strict::SafeUint, String> {
    text.parse::<u64>()
        .ok()
        .and_then(|n| metewand_protocol::strict::SafeUint::try_from(n).ok())
        .ok_or_else(|| format!("{flag} must be an integer from 0 to 9007199254740991, not {text:?}"))
}
