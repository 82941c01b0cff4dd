//! `metewand run`: one attempt end to end, recorded in `attempt.json`, summarised on stdout.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use metewand_protocol::generated::attempt_record::{AttemptRecord, Outcome, Phase, Role};
use metewand_protocol::strict::SafeUint;
use metewand_runtime::attempt::{self, AttemptPlan, RECORD_FILE, RunOptions};

use crate::{Failure, parse_seed};

const USAGE: &str = "usage: metewand run [REPO] --problem P --dataset D --implementation I [options]

Runs one attempt of implementation I on dataset D and problem P of the benchmark repository REPO (default: the
current directory): the dataset is taken from the store (re-verified) or materialized, the implementation is
prepared and executed, and the problem's evaluator judges the result. Every worker runs as its own process from a
private copy of its source, under the repository's phase limits and scientific budgets, and everything it writes
is validated after it has exited.

The attempt folder holds attempt.json (the attempt record: canonical JSON, valid against Metewand's
attempt-record schema, written atomically whatever happens), logs/<role>.log (each worker's stderr) and work/
(the workers' private source copies, the result and the metrics). A short summary is printed on stdout.

options:
  --problem P              the problem to attempt (required)
  --dataset D              the dataset to attempt it on (required)
  --implementation I       the implementation to run (required)
  --dataset-seed N         the dataset's seed, 0 <= N <= 9007199254740991 (default 0)
  --implementation-seed N  the implementation's seed, same range (default 0)
  --out DIR                the attempt folder; must not exist or be an empty folder
                           (default: STATE/attempts/<UTC time>-<random>/)
  --state-dir STATE        the state folder holding datasets/ and attempts/ (default: REPO/.metewand/)
  -h, --help               print this help

exit statuses: 0 verdict reached or not_required, 1 verdict not_reached or invalid, 2 usage, repository or
--out error (no attempt started), 3 the attempt failed, 130 cancelled (Ctrl-C or SIGTERM; the attempt is recorded)";

/// Set by the SIGINT and SIGTERM handler; the runner ends the running worker and records `cancelled`.
static CANCEL: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    CANCEL.store(true, Ordering::SeqCst);
}

fn install_signal_handlers() -> Result<(), Failure> {
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: the handler only stores to an atomic, which is async-signal-safe; `action` is fully initialised
        // (zeroed, then the handler and an empty mask set) before it is passed, and the old action is not wanted.
        let status = unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut())
        };
        if status != 0 {
            let error = std::io::Error::last_os_error();
            return Err(Failure::Usage(format!("run: cannot install a signal handler: {error}")));
        }
    }
    Ok(())
}

struct Args {
    repo: PathBuf,
    problem: String,
    dataset: String,
    implementation: String,
    dataset_seed: SafeUint,
    implementation_seed: SafeUint,
    out: Option<PathBuf>,
    state_dir: Option<PathBuf>,
}

fn usage(message: &str) -> Failure {
    Failure::Usage(format!("run: {message}; run `metewand run --help`"))
}

fn parse_args(args: &[String]) -> Result<Option<Args>, Failure> {
    let mut repo = None;
    let (mut problem, mut dataset, mut implementation) = (None, None, None);
    let (mut dataset_seed, mut implementation_seed) = (SafeUint::ZERO, SafeUint::ZERO);
    let (mut out, mut state_dir) = (None, None);
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag, Some(value.to_owned())),
            _ => (arg.as_str(), None),
        };
        let mut value = |name: &str| -> Result<String, Failure> {
            match inline.clone() {
                Some(value) => Ok(value),
                None => rest.next().cloned().ok_or_else(|| usage(&format!("{name} needs a value"))),
            }
        };
        match flag {
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(None);
            }
            "--problem" => problem = Some(value(flag)?),
            "--dataset" => dataset = Some(value(flag)?),
            "--implementation" => implementation = Some(value(flag)?),
            "--dataset-seed" => dataset_seed = parse_seed(flag, &value(flag)?).map_err(|e| usage(&e))?,
            "--implementation-seed" => implementation_seed = parse_seed(flag, &value(flag)?).map_err(|e| usage(&e))?,
            "--out" => out = Some(PathBuf::from(value(flag)?)),
            "--state-dir" => state_dir = Some(PathBuf::from(value(flag)?)),
            flag if flag.starts_with('-') => return Err(usage(&format!("unknown option {flag:?}"))),
            path if repo.is_none() => repo = Some(PathBuf::from(path)),
            _ => return Err(usage("run takes at most one REPO")),
        }
    }
    let required = |value: Option<String>, flag: &str| value.ok_or_else(|| usage(&format!("{flag} is required")));
    Ok(Some(Args {
        repo: repo.unwrap_or_else(|| PathBuf::from(".")),
        problem: required(problem, "--problem")?,
        dataset: required(dataset, "--dataset")?,
        implementation: required(implementation, "--implementation")?,
        dataset_seed,
        implementation_seed,
        out,
        state_dir,
    }))
}

/// Makes the attempt folder `--out` names: it must not exist (it is created) or be an empty folder.
fn prepare_out(out: &Path) -> Result<PathBuf, Failure> {
    let refuse = |why: String| Failure::Usage(format!("run: --out {}: {why}", out.display()));
    match std::fs::symlink_metadata(out) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir(out).map_err(|error| refuse(format!("cannot be created: {error}")))?;
        }
        Err(error) => return Err(refuse(format!("cannot be examined: {error}"))),
        Ok(metadata) if !metadata.is_dir() => return Err(refuse("exists and is not a folder".to_owned())),
        Ok(_) => {
            let mut entries = std::fs::read_dir(out).map_err(|error| refuse(format!("cannot be read: {error}")))?;
            if entries.next().is_some() {
                return Err(refuse("is not empty; give a new or empty folder".to_owned()));
            }
        }
    }
    Ok(out.to_owned())
}

pub(crate) fn run(args: &[String]) -> Result<(), Failure> {
    let Some(args) = parse_args(args)? else { return Ok(()) };
    let repository = crate::check::load(&args.repo)?;
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
    install_signal_handlers()?;
    let folder = match &args.out {
        Some(out) => prepare_out(out)?,
        None => attempt::create_attempt_folder(&state_dir).map_err(|error| {
            Failure::Usage(format!(
                "run: cannot create an attempt folder under {}: {error}",
                state_dir.join("attempts").display()
            ))
        })?,
    };
    // The attempt has started: from here on, attempt.json is always written.
    let options = RunOptions { state_dir, cancel: Some(&CANCEL) };
    let record = plan.run(&folder, &options);
    // The summary comes first, so the attempt's own first failure is printed even when the record cannot be
    // written (a full disk); the record's write failure is then the second, separate sentence.
    print!("{}", summary(&record, &folder));
    if let Err(error) = attempt::write_record(&folder, &record) {
        eprintln!("metewand: run: cannot write {}: {error}", folder.join(RECORD_FILE).display());
        return Err(Failure::Status(3));
    }
    Err(match record.outcome {
        Outcome::Reached | Outcome::NotRequired => return Ok(()),
        Outcome::NotReached | Outcome::Invalid => Failure::Status(1),
        Outcome::Failed => Failure::Status(3),
        Outcome::Cancelled => Failure::Status(130),
    })
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
    let reused = match record.dataset.reused {
        Some(true) => "reused from the store",
        Some(false) => "materialized",
        None => "not reached",
    };
    out.push_str(&format!(
        "dataset      {} seed {} ({reused}), key {}\n",
        record.dataset.name.as_str(),
        record.dataset.seed,
        record.dataset.key.as_str()
    ));
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
    let failed_log = record.failure.as_ref().and_then(|failure| match failure.role? {
        Role::DatasetMaterializer => record.logs.dataset_materializer.as_ref().map(|path| path.to_string()),
        Role::Implementation => record.logs.implementation.as_ref().map(|path| path.to_string()),
        Role::ProblemEvaluator => record.logs.problem_evaluator.as_ref().map(|path| path.to_string()),
    });
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
