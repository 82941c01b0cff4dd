//! `metewand conformance`: drive one worker (or every worker of a repository) through the conformance kit and
//! print its checks as a table, or as JSON.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use metewand_runtime::conformance::{self, BareCommand, ConformanceOptions, Outcome, Report, Subject};
use metewand_runtime::protocol::common::Role;
use metewand_runtime::protocol::strict::SafeUint;

use crate::gate::load_with_externals;
use crate::{Failure, print_out};
use metewand_runtime::exit::Exit;

const LONG_ABOUT: &str = "usage: metewand conformance [REPO] --worker W [--implementation-from DIR] [--problem P]
                            [--dataset D] [--dataset-seed S] [--json] [--strict]
       metewand conformance REPO --all [--implementation-from DIR] [--problem P] [--dataset D] [--dataset-seed S]
                            [--json] [--strict]
       metewand conformance --role ROLE [--source DIR] [--env NAME=VALUE]... [--dataset DIR] [--result DIR]
                            [--json] [--strict] -- CMD [ARG...]

Drives a worker through the worker side of Metewand's protocol, one check after another, each in a fresh session
where an earlier check could spoil it: hello (protocol 1, the worker id echoed, the SDK's shape, one_shot for an
implementation); a second hello refused; another role's request refused with unsupported_operation, the session
still usable; malformed requests and unknown fields refused with invalid_request; unusual ids echoed verbatim; a
line without an id not answered; execute before prepare refused, and reset then a second prepare and execute
working (implementations); the output accepted by the validator; determinism (the same seed twice gives the same
validated output, another seed another one: a warning, a failure with --strict); shutdown acknowledged with exit
status 0 within its limit; nothing left running; only frames on stdout.

A repository worker (W of REPO, default the current directory) runs as an attempt runs it, and the kit makes the
dataset (and result) its requests need with the repository's own workers: problem P and dataset D of seed S
(default: the first problem by name, or the first the evaluator judges; the first dataset by name, or the first
the materializer makes; seed 0), which the table's first line names. A large dataset makes every check slow:
choose a small one. With --implementation-from DIR, the workers of DIR's metewand-implementation.toml join the
repository's (a submission checked before it is run). A bare command (after --) runs in
--source DIR (default an empty folder) with only PATH, LANG, LC_ALL, TMPDIR and each --env; it has no repository
to validate its output against, so outputs and determinism are skipped, and an implementation's requests need
--dataset DIR (a folder with dataset-manifest.json), an evaluator's also --result DIR (with result.json).

Prints the problem and dataset the requests posed, then one line per check (check, outcome, time, why), and for a failed check what was sent, what came back and
the end of the worker's stderr. --json prints {\"passed\": ..., \"workers\": [...]} instead.";

const EXIT_STATUSES: &str =
    "exit statuses: 0 no check failed (skips and warnings allowed), 1 a check failed, 2 usage, repository or I/O
error";

/// `metewand conformance`.
#[derive(clap::Args)]
#[command(
    about = "drive a worker through every check of the worker protocol and print a table of pass, fail, skip and \
             warn",
    long_about = LONG_ABOUT,
    after_help = EXIT_STATUSES
)]
pub(crate) struct Args {
    /// the benchmark repository (default: the current directory)
    #[arg(value_name = "REPO")]
    repo: Option<PathBuf>,
    /// the repository worker to check
    #[arg(long, value_name = "W")]
    worker: Option<String>,
    /// a folder holding metewand-implementation.toml whose workers join the repository's, as `run
    /// --implementation-from` joins them
    #[arg(long, value_name = "DIR")]
    implementation_from: Option<PathBuf>,
    /// check every worker of the repository, in name order
    #[arg(long)]
    all: bool,
    /// the bare command's role: dataset_materializer, implementation or problem_evaluator
    #[arg(long, value_name = "ROLE", value_parser = parse_role)]
    role: Option<Role>,
    /// the bare command's working directory and source_dir
    #[arg(long, value_name = "DIR")]
    source: Option<PathBuf>,
    /// an environment variable for the bare command (repeatable)
    #[arg(long = "env", value_name = "NAME=VALUE", value_parser = parse_env)]
    env: Vec<(OsString, OsString)>,
    /// the dataset the requests carry: a repository's dataset by name (default: the first), or for a bare
    /// implementation or evaluator a folder with dataset-manifest.json
    #[arg(long, value_name = "D|DIR")]
    dataset: Option<PathBuf>,
    /// the repository's problem the requests pose (default: the first, or the first the evaluator judges)
    #[arg(long, value_name = "P")]
    problem: Option<String>,
    /// the seed of the repository's dataset, 0 <= S <= 9007199254740991 (default 0)
    #[arg(long, value_name = "S", allow_negative_numbers = true, value_parser = crate::parse_seed)]
    dataset_seed: Option<SafeUint>,
    /// a result folder for a bare evaluator's requests
    #[arg(long, value_name = "DIR")]
    result: Option<PathBuf>,
    /// let the bare command use TCP (what `network = true` declares for a repository's worker)
    #[arg(long)]
    network: bool,
    /// print JSON instead of the table
    #[arg(long)]
    json: bool,
    /// make a determinism warning a failure
    #[arg(long)]
    strict: bool,
    /// the bare command and its arguments, after --
    #[arg(last = true, value_name = "CMD")]
    command: Vec<OsString>,
}

fn usage(message: &str) -> Failure {
    Failure::Usage(format!("conformance: {message}; run `metewand conformance --help`"))
}

fn parse_role(text: &str) -> Result<Role, String> {
    text.parse()
        .map_err(|_| format!("a role is dataset_materializer, implementation or problem_evaluator, not {text:?}"))
}

fn parse_env(text: &str) -> Result<(OsString, OsString), String> {
    text.split_once('=')
        .filter(|(name, _)| !name.is_empty())
        .map(|(name, value)| (name.into(), value.into()))
        .ok_or_else(|| format!("--env takes NAME=VALUE, not {text:?}"))
}

pub(crate) fn run(args: Args) -> Result<(), Failure> {
    let command = (!args.command.is_empty()).then(|| args.command.clone());
    let mut options = ConformanceOptions::new(std::env::temp_dir());
    options.strict = args.strict;
    let reports = match (&command, args.role) {
        (Some(command), Some(role)) => {
            if args.repo.is_some() || args.worker.is_some() || args.all || args.implementation_from.is_some() {
                return Err(usage(
                    "a bare command (--role ... -- CMD) takes no REPO, --worker, --all or --implementation-from",
                ));
            }
            if args.problem.is_some() || args.dataset_seed.is_some() {
                return Err(usage("--problem and --dataset-seed are for a repository's worker"));
            }
            let bare = BareCommand {
                role,
                command: command.clone(),
                source_dir: args.source.clone().map(absolute).transpose()?,
                env: args.env.clone(),
                dataset_dir: args.dataset.clone().map(absolute).transpose()?,
                result_dir: args.result.clone().map(absolute).transpose()?,
                network: args.network,
            };
            vec![
                conformance::run(&Subject::Command(bare), &options)
                    .map_err(|e| Failure::Usage(format!("conformance: {e}")))?,
            ]
        }
        (Some(_), None) => return Err(usage("a bare command needs --role ROLE")),
        (None, Some(_)) => return Err(usage("--role is for a bare command, given after --")),
        (None, None) => {
            let bare_only = args.source.is_some() || args.result.is_some();
            if bare_only || !args.env.is_empty() || args.network {
                return Err(usage("--source, --env, --result and --network are for a bare command"));
            }
            if let Some(problem) = &args.problem {
                options = options.problem(problem);
            }
            if let Some(dataset) = &args.dataset {
                let name = dataset.to_str().ok_or_else(|| usage("--dataset names a dataset of the repository"))?;
                options = options.dataset(name);
            }
            if let Some(seed) = args.dataset_seed {
                options = options.dataset_seed(seed);
            }
            let repo = args.repo.clone().unwrap_or_else(|| PathBuf::from("."));
            let externals: Vec<PathBuf> = args.implementation_from.iter().cloned().collect();
            let repository = load_with_externals(&repo, &externals)?;
            // Its workers run as attempts do, in the environments they declare, built in the default state folder.
            let state_dir = metewand_campaign::prepared::default_state_dir(repository.root());
            crate::env::build_declared(
                "conformance",
                &repository,
                &state_dir,
                metewand_runtime::environment::Pins::Optional,
            )?;
            let workers: Vec<String> = match (&args.worker, args.all) {
                (Some(worker), false) => vec![worker.clone()],
                (None, true) => repository.workers().keys().cloned().collect(),
                (Some(_), true) => return Err(usage("give --worker W or --all, not both")),
                (None, false) => return Err(usage("name the worker to check with --worker W (or --all)")),
            };
            let mut reports = Vec::new();
            for worker in workers {
                let subject = Subject::Repository { repository: &repository, worker };
                reports.push(
                    conformance::run(&subject, &options).map_err(|e| Failure::Usage(format!("conformance: {e}")))?,
                );
            }
            reports
        }
    };
    let out = if args.json {
        format!("{}\n", conformance::reports_json(&reports))
    } else {
        let mut out = String::new();
        for report in &reports {
            table(&mut out, report, reports.len() > 1);
        }
        out
    };
    print_out("conformance", &out)?;
    if reports.iter().all(Report::passed) { Ok(()) } else { Err(Failure::Status(Exit::Rejected)) }
}

/// A path the worker is given, absolute: workers run in their own working directory.
fn absolute(path: PathBuf) -> Result<PathBuf, Failure> {
    std::path::absolute(&path)
        .map_err(|error| Failure::Usage(format!("conformance: cannot resolve {}: {error}", path.display())))
}

fn table(out: &mut String, report: &Report, heading: bool) {
    if heading {
        out.push_str(&format!("worker {} ({})\n", report.worker, report.role));
    }
    if let Some(posed) = &report.posed {
        out.push_str(&format!("on {}\n", posed.line()));
    }
    let width = report.checks.iter().map(|result| result.check.name().len()).max().unwrap_or(0);
    for result in &report.checks {
        out.push_str(&format!(
            "{:<width$}  {:<4}  {:>10}  {}\n",
            result.check.name(),
            result.outcome.name(),
            time(result.duration),
            result.why
        ));
        if result.outcome == Outcome::Fail {
            let indent = " ".repeat(width + 2);
            if let Some(sent) = &result.sent {
                out.push_str(&format!("{indent}sent:     {sent}\n"));
            }
            if let Some(received) = &result.received {
                out.push_str(&format!("{indent}received: {received}\n"));
            }
            for line in &result.stderr_tail {
                out.push_str(&format!("{indent}stderr:   {line}\n"));
            }
        }
    }
    let failed = report.checks.iter().filter(|result| result.outcome == Outcome::Fail).count();
    let summary = if failed == 0 { "conforms".to_owned() } else { format!("{failed} check(s) failed") };
    out.push_str(&format!("{} {}: {summary}\n", report.role, report.worker));
    if heading {
        out.push('\n');
    }
}

fn time(duration: Duration) -> String {
    if duration.is_zero() { "-".to_owned() } else { format!("{:.1} ms", duration.as_secs_f64() * 1000.0) }
}
