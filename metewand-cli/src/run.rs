//! `metewand run`: one attempt end to end, recorded in `attempt.json`, summarised on stdout.

use std::path::{Path, PathBuf};
use std::time::Duration;

use metewand_protocol::common::{Phase, Role, Verdict};

use metewand_protocol::generated::attempt_record::{AttemptRecord, Outcome};
use metewand_protocol::strict::SafeUint;
use metewand_runtime::attempt::{self, AttemptPlan, RECORD_FILE, RunOptions};
use metewand_runtime::environment::Pins;
use metewand_runtime::preflight;
use metewand_runtime::session::{KernelSupport, ProcessIsolation};

use crate::gate::{confinement_gate, install_signal_handlers, limits_gate, preflight_failure};
use crate::{Failure, parse_seed, print_out, say};
use metewand_runtime::exit::Exit;

const LONG_ABOUT: &str =
    "Runs one attempt of implementation I on dataset D and problem P of the benchmark repository REPO
(default: the current directory): the dataset is taken from the store (re-verified) or materialized, the
implementation is prepared and executed, and the problem's evaluator judges the result. Every worker runs as its own
process from a private copy of its source, under the repository's phase limits and scientific budgets, and
everything it writes is validated after it has exited.

The attempt folder holds attempt.json (the attempt record: canonical JSON, valid against Metewand's attempt-record
schema, written atomically whatever happens), logs/<role>.log (each worker's stderr) and work/ (the workers' private
source copies, the result and the metrics). A short summary is printed on stdout.";

/// `metewand run`.
#[derive(clap::Args)]
#[command(
    about = "run one attempt end to end and record it in attempt.json",
    long_about = LONG_ABOUT,
    after_help = "exit statuses: 0 verdict reached or not_required, 1 verdict not_reached or invalid, 2 usage, \
                  repository or\n--out error, or a declared Python environment that cannot be built (no attempt \
                  started), 3 the attempt\nfailed, 130 cancelled (Ctrl-C, SIGTERM or SIGHUP; the attempt is recorded)"
)]
pub(crate) struct Args {
    /// the benchmark repository (default: the current directory)
    #[arg(value_name = "REPO")]
    repo: Option<PathBuf>,
    /// the problem to attempt (required)
    #[arg(long, value_name = "P")]
    problem: String,
    /// the dataset to attempt it on (required)
    #[arg(long, value_name = "D")]
    dataset: String,
    /// the implementation to run (required)
    #[arg(long, value_name = "I")]
    implementation: String,
    /// a folder outside the repository holding metewand-implementation.toml: its workers and implementations join
    /// the repository's for this run (I may then name one of them), which is left as it is
    #[arg(long, value_name = "DIR")]
    implementation_from: Option<PathBuf>,
    /// the dataset's seed, 0 <= N <= 9007199254740991 (default 0)
    #[arg(long, value_name = "N", default_value = "0", hide_default_value = true, allow_negative_numbers = true,
          value_parser = parse_seed)]
    dataset_seed: SafeUint,
    /// the implementation's seed, same range (default 0)
    #[arg(long, value_name = "N", default_value = "0", hide_default_value = true, allow_negative_numbers = true,
          value_parser = parse_seed)]
    implementation_seed: SafeUint,
    /// the attempt folder, new or empty (default: STATE/attempts/<UTC time>-<random>/)
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// the state folder holding datasets/ and attempts/ (default: REPO/.metewand/)
    #[arg(long, value_name = "STATE")]
    state_dir: Option<PathBuf>,
    /// refuse to start (exit 2) unless every worker would run fully confined (Landlock filesystem, network and
    /// signal rules, and a PID namespace); by default what the kernel lacks is recorded and printed as a warning
    #[arg(long)]
    require_confinement: bool,
    /// run even where a limit `[limits]` sets cannot be held for a worker here (each session records it as not
    /// enforced, and a warning names it); by default that refuses to start (exit 2)
    #[arg(long)]
    allow_unenforced_limits: bool,
    /// keep each worker's processes together with the freezing sweep instead of a PID namespace (the fallback
    /// used where namespaces are refused)
    #[arg(long)]
    sweep_processes: bool,
    /// discarded prepare and execute cycles the implementation's session runs on the attempt's inputs before the
    /// timed one (default 0)
    #[arg(long, value_name = "K", default_value = "0", hide_default_value = true,
          value_parser = clap::value_parser!(u64).range(0..=1000))]
    warmup: u64,
    /// refuse (exit 2) a worker's Python requirements that are not pinned to one version each (`numpy==2.1.3`),
    /// as campaigns always do; by default a single run builds them as written, for trying a worker out
    #[arg(long)]
    require_pinned: bool,
}

pub(crate) fn run(args: Args) -> Result<(), Failure> {
    let repo = args.repo.clone().unwrap_or_else(|| PathBuf::from("."));
    let externals: Vec<PathBuf> = args.implementation_from.iter().cloned().collect();
    let repository = crate::gate::load_with_externals(&repo, &externals)?;
    let plan = AttemptPlan::new(
        &repository,
        &args.problem,
        &args.dataset,
        &args.implementation,
        args.dataset_seed,
        args.implementation_seed,
    )
    .map_err(|error| Failure::Usage(format!("run: {error}")))?;
    let state_dir = args.state_dir.clone().unwrap_or_else(|| repository.root().join(".metewand"));
    preflight::outside_sources(&repository, "--state-dir", &state_dir).map_err(preflight_failure("run"))?;
    if let Some(out) = &args.out {
        preflight::outside_sources(&repository, "--out", out).map_err(preflight_failure("run"))?;
    }
    let mut options = RunOptions::new(&state_dir);
    if args.sweep_processes {
        options = options.process_isolation(ProcessIsolation::Sweep);
    }
    options = options.warmup(args.warmup);
    let expected = plan.expected_confinement(&KernelSupport::probe(), &options);
    let missing = attempt::confinement_shortfalls(expected.iter().map(|(_, report)| report));
    confinement_gate("run", &missing, args.require_confinement)?;
    limits_gate("run", &repository, &expected, args.allow_unenforced_limits)?;
    let mut folders = vec![("--state-dir", state_dir.as_path())];
    folders.extend(args.out.as_deref().map(|out| ("--out", out)));
    folders.extend(args.implementation_from.as_deref().map(|folder| ("--implementation-from", folder)));
    preflight::reachable_by_workers(
        &repository,
        expected.iter().map(|(name, report)| (name.as_str(), report)),
        &folders,
    )
    .map_err(preflight_failure("run"))?;
    let pins = if args.require_pinned { Pins::Required } else { Pins::Optional };
    crate::env::build_declared("run", &repository, &state_dir, pins)?;
    let cancel = install_signal_handlers()?;
    let folder = match &args.out {
        Some(out) => preflight::new_or_empty_folder("--out", out).map_err(preflight_failure("run"))?,
        None => attempt::create_attempt_folder(&state_dir).map_err(|error| {
            Failure::Usage(format!(
                "run: cannot create an attempt folder under {}: {error}",
                state_dir.join("attempts").display()
            ))
        })?,
    };
    // The attempt has started: from here on, attempt.json is always written.
    let options = options.cancel_on(cancel);
    let record = plan.run(&folder, &options);
    // The summary comes first, so the attempt's own first failure is printed even when the record cannot be
    // written (a full disk); the record's write failure is then the second, separate sentence.
    // A summary that cannot be printed (the terminal is gone) changes nothing.
    let _ = print_out("run", &summary(&record, &folder));
    if let Err(error) = attempt::write_record(&folder, &record) {
        say(&format!("run: cannot write {}: {error}", folder.join(RECORD_FILE).display()));
        return Err(Failure::Status(Exit::Failed));
    }
    match Exit::from(record.outcome) {
        Exit::Success => Ok(()),
        exit => Err(Failure::Status(exit)),
    }
}

fn summary(record: &AttemptRecord, folder: &Path) -> String {
    let mut out = String::new();
    let verdict = record.verdict.map_or("none".to_owned(), |verdict| verdict.to_string());
    out.push_str(&format!("outcome      {} (verdict: {verdict})\n", record.outcome));
    if let Some(failure) = &record.failure {
        let role = failure.role.map_or("executor".to_owned(), |role| role.to_string());
        let phase = failure.phase.map_or(String::new(), |phase| format!(" in {phase}"));
        out.push_str(&format!("failure      {} ({role}{phase}): {}\n", failure.kind, failure.message.as_str()));
    }
    // `reused: false` says the materializer was run, not that it succeeded: the dataset exists only if its files
    // were validated.
    let reused = match (record.dataset.reused, &record.dataset.files) {
        (Some(true), _) => "reused from the store",
        (Some(false), Some(_)) => "materialized",
        (Some(false), None) if record.outcome == Outcome::Cancelled => "materialization cancelled",
        (Some(false), None) => "materialization failed",
        (None, _) => "not reached",
    };
    out.push_str(&format!(
        "dataset      {} seed {} ({reused}), key {}\n",
        record.dataset.name.as_str(),
        record.dataset.seed,
        record.dataset.key
    ));
    if let Some(origin) = &record.implementation.origin {
        out.push_str(&format!(
            "external     implementation {} from {}\n",
            record.implementation.name.as_str(),
            origin.folder.as_str()
        ));
    }
    let execute =
        record.phases.iter().find(|phase| phase.role == Role::Implementation && phase.phase == Phase::Execute);
    if let Some(execute) = execute {
        let reported = record
            .implementation
            .implementation_time_ns
            .map_or("none".to_owned(), |ns| format_duration(Duration::from_nanos(ns.get())));
        out.push_str(&format!(
            "execute      {} measured by metewand; worker reported {reported}\n",
            format_duration(Duration::from_nanos(execute.duration_ns.get()))
        ));
    }
    let profile = &record.implementation.profile;
    if let Some(last) = profile.last() {
        let reached = profile.iter().find(|point| point.verdict == Verdict::Reached).map_or_else(
            || "none reached".to_owned(),
            |point| {
                let at = format_duration(Duration::from_nanos(point.time_ns.get()));
                format!("first reached: checkpoint {} at {at}", point.checkpoint)
            },
        );
        out.push_str(&format!(
            "profile      {} checkpoints, the last at {}; {reached}\n",
            profile.len(),
            format_duration(Duration::from_nanos(last.time_ns.get()))
        ));
    }
    let failed_log = record.failure.as_ref().and_then(|failure| record.logs.of(failure.role?));
    if let Some(log) = failed_log {
        out.push_str(&format!("worker log   {}\n", folder.join(log).display()));
    }
    out.push_str(&format!("attempt      {}\n", folder.display()));
    out
}

fn format_duration(duration: Duration) -> String {
    let seconds = duration.as_secs_f64();
    if seconds >= 1.0 { format!("{seconds:.3} s") } else { format!("{:.3} ms", seconds * 1000.0) }
}
