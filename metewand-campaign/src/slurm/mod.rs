//! Campaigns on Slurm: [`submit`] plans what is missing into job arrays and exits, each array task runs
//! [`work::work`] over its dataset or its pack of attempts (through the same code as the local pool), [`status`]
//! joins the folder's records with the jobs' Slurm states, and [`cancel`] ends the jobs.
//!
//! A submission is numbered in the campaign folder: `slurm/<n>/submission.json` (what it runs, the job ids as
//! they are submitted), one readable batch script per job (`datasets-<j>.sh`, `attempts-<j>.sh`, `export.sh`),
//! each beginning with the exact `sbatch` command that submitted it, and `logs/` for the tasks' output.
//!
//! - The datasets still missing are one array (one dataset a task); the attempts to run are packed K at a time
//!   (`--pack`, default [`DEFAULT_PACK`]) into arrays that depend on the dataset arrays with `afterany`, and a
//!   last job writes the exports once every attempt array ended.
//! - `MaxArraySize` bounds the largest array index, so an array never holds more tasks than it: a longer one is
//!   split, every part indexed from 0, and each part's script adds its own offset to `SLURM_ARRAY_TASK_ID`.
//! - `--max-parallel N` is each array's `%N` throttle; when an array had to be split, each part also depends
//!   (`afterany`) on the one before, so that no more than N tasks of the submission run at once.
//! - A task's time limit is its worst case under the repository's phase limits and budgets, times K for an
//!   attempt pack, plus [`TIME_MARGIN`], in whole minutes, unless `--time` is given; tasks get
//!   `--signal=B:TERM@120`, on which the running attempt is cancelled and recorded and the task stops.
//! - A submission refuses to start while a job of an earlier one is still pending or running; what it submits
//!   is what the local pool would run: attempts without a record, cancelled ones, and failed ones with
//!   `--retry-failed`. An attempt whose task ended (or that Slurm forgot) without a record is *lost*: the next
//!   submission runs it again.
//! - A round of `--until-decided` ([`SubmitConfig::until_decided`]) records the cap, the thresholds and the
//!   options of the next rounds in its submission, and ends in a decide job (`decide.sh`, `campaign decide`) in
//!   place of the export job; that job submits the next round as any submission ([`SubmitConfig::next_round`],
//!   leaving itself out of the refusal above) and records what it decided ([`record_decision`]).

mod command;
mod rounds;
pub mod work;

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::fs;
use std::io;
use std::num::NonZeroU64;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use metewand_protocol::generated::attempt_record::SessionMode;
use metewand_runtime::CheckedRepository;
use metewand_runtime::attempt::{DatasetMaterializationOutcome, phase_timeouts, remove_tree};
use metewand_runtime::protocol::common::Format;
pub use metewand_runtime::protocol::generated::slurm_submission::{
    Decision, Job, JobKind, SlurmSubmission, UntilDecided,
};
use metewand_runtime::protocol::generated::slurm_submission::{JobScript, Sessions};
use metewand_runtime::protocol::strict::SafeUint;

pub use command::{
    Activity, Slurm, SlurmError, TaskState, activity, error_lines, parse_job_id, parse_max_array_size, parse_queue,
};
pub use rounds::record_decision;

use crate::environment::Environment;
use crate::folder::{
    CAMPAIGN_FILE, CampaignFolder, FolderError, open_own, parse_own, read_materialization, write_atomically,
};
use crate::plan::CampaignPlan;
use crate::runner::{held, is_terminal};
use metewand_runtime::document::read_document;

/// The folder of the submissions inside a campaign folder.
pub const SLURM_DIR: &str = "slurm";
/// A submission's record, in `slurm/<n>/`.
pub const SUBMISSION_FILE: &str = "submission.json";
/// Attempts a task runs by default: a task costs about a second of scheduling on a small cluster, which packs of
/// 8 spread over attempts of a tenth of a second or more, while a campaign of a few hundred attempts still spreads
/// over dozens of tasks.
pub const DEFAULT_PACK: u64 = 8;
/// Added to a task's worst case: Slurm may send `--signal` up to 60 s before the 120 s asked for, and the executor's
/// own work (copies, hashing, records) is not in the phase limits.
pub const TIME_MARGIN: Duration = Duration::from_secs(300);
/// The signal a task gets before its time limit: the batch shell (the `metewand` it became) gets SIGTERM 120 s
/// before the limit.
pub const SIGNAL: &str = "B:TERM@120";
/// The time limit of the job that writes the exports, and of a round's decide job (which reads the records, may
/// submit the next round, and otherwise writes the exports).
const EXPORT_MINUTES: u64 = 10;

/// What went wrong with a submission, a status or a cancel.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// One of Slurm's commands failed.
    #[error(transparent)]
    Slurm(#[from] SlurmError),
    /// The campaign folder.
    #[error(transparent)]
    Folder(#[from] FolderError),
    /// Jobs of an earlier submission are still pending or running.
    #[error(
        "jobs {} of an earlier submission are still pending or running; wait for them to end, or cancel them with \
         `metewand campaign cancel {}`",
        jobs.iter().map(u64::to_string).collect::<Vec<_>>().join(", "),
        folder.display()
    )]
    StillQueued {
        /// The campaign folder.
        folder: PathBuf,
        /// Their job ids.
        jobs: Vec<u64>,
    },
    /// A submission's record cannot be read.
    #[error("{} is not a submission record: {message}", path.display())]
    BadSubmission {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// The folder has no such submission, or the submission no such task.
    #[error("{what}")]
    NoSuchTask {
        /// What was asked for and what exists.
        what: String,
    },
    /// A path the submission must record is not UTF-8, so no batch script could name it.
    #[error("{} is not a UTF-8 path, so no batch script can name it: use a path of UTF-8 names", path.display())]
    NotUtf8 {
        /// The path.
        path: PathBuf,
    },
    /// An I/O failure.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// What was being done.
        action: &'static str,
        /// On what.
        path: PathBuf,
        /// The system's reason.
        source: io::Error,
    },
    /// The task's node cannot see the campaign folder.
    #[error(
        "this node ({host}) cannot see the campaign folder {} ({reason}): it must be on a filesystem that the \
         submitting machine and every node share",
        path.display()
    )]
    Invisible {
        /// The folder.
        path: PathBuf,
        /// The node's host name.
        host: String,
        /// The system's reason.
        reason: String,
    },
    /// The repository cannot be loaded again on the node.
    #[error("the campaign's repository cannot be loaded here: {message}")]
    Repository {
        /// Why.
        message: String,
    },
    /// An external folder the submission joined cannot be joined again on the node.
    #[error("the external folder {} of the submission cannot be joined here: {message}", folder.display())]
    External {
        /// The folder, as the submission recorded it.
        folder: PathBuf,
        /// Why.
        message: String,
    },
    /// An external folder the submission joined is not what it was when the campaign was submitted.
    #[error(
        "the external folder {} changed since the submission (its metewand-implementation.toml or a worker's \
         files), so this task runs nothing under the ids planned from it; restore it, or submit again",
        folder.display()
    )]
    ExternalChanged {
        /// The folder, as the submission recorded it.
        folder: PathBuf,
    },
    /// The plan the node builds is not the submitted one.
    #[error(
        "{what} of this task is not in the campaign's plan any more: the repository or the campaign changed since \
         the submission; submit again"
    )]
    Changed {
        /// The attempt or dataset, e.g. `attempt mw1-attempt-...`.
        what: String,
    },
    /// The plan cannot be built again on the node.
    #[error(transparent)]
    Plan(#[from] crate::plan::PlanError),
}

fn io_error<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(io::Error) -> Error + 'a {
    move |source| Error::Io { action, path: path.to_owned(), source }
}

/// A count or an id as the submission records it; Slurm's and ours stay far below 2^53.
fn safe(n: u64) -> SafeUint {
    SafeUint::try_from(n).unwrap_or(SafeUint::MAX)
}

/// An absolute path as the submission records it, refusing one that is not valid UTF-8 (every node must read it
/// back as it was written).
pub(super) fn nonempty<T: std::str::FromStr>(path: &Path) -> Result<T, Error> {
    path.to_str().and_then(|text| text.parse().ok()).ok_or_else(|| Error::NotUtf8 { path: path.to_owned() })
}

/// Reads `slurm/<number>/submission.json` of `folder`, its format checked.
pub fn read_submission(folder: &Path, number: u64) -> Result<SlurmSubmission, Error> {
    let dir = submission_dir(folder, number);
    let path = dir.join(SUBMISSION_FILE);
    // Like every document of the folder: no link followed, no FIFO waited on, its size bounded.
    let bytes = match open_own(&dir, SUBMISSION_FILE) {
        Ok(Some(mut file)) => read_document(&mut file).map_err(|error| Error::Io {
            action: "read",
            path: path.clone(),
            source: io::Error::other(error),
        })?,
        Ok(None) => {
            return Err(Error::NoSuchTask {
                what: format!("the campaign folder {} has no submission {number}", folder.display()),
            });
        }
        Err(error) => {
            return Err(Error::Io { action: "read", path, source: io::Error::other(error.to_string()) });
        }
    };
    parse_own(&bytes).map_err(|message| Error::BadSubmission { path, message })
}

fn write_submission(submission: &SlurmSubmission, folder: &Path) -> Result<(), Error> {
    let dir = submission_dir(folder, submission.number.get());
    write_atomically(&dir, SUBMISSION_FILE, |out| {
        serde_json::to_writer_pretty(&mut *out, submission).map_err(io::Error::other)?;
        out.write_all(b"\n")
    })
    .map_err(io_error("write", &dir.join(SUBMISSION_FILE)))
}

/// `slurm/<number>/` of a campaign folder.
pub fn submission_dir(folder: &Path, number: u64) -> PathBuf {
    folder.join(SLURM_DIR).join(number.to_string())
}

/// Every submission of the folder, oldest first (a folder of `slurm/` without its record is none yet).
pub fn submissions(folder: &Path) -> Result<Vec<SlurmSubmission>, Error> {
    let dir = folder.join(SLURM_DIR);
    let entries = match fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => return Err(Error::Io { action: "read", path: dir, source }),
    };
    let mut numbers: Vec<u64> = Vec::new();
    for entry in entries {
        let entry = entry.map_err(io_error("read", &dir))?;
        if let Some(number) = entry.file_name().to_str().and_then(|name| name.parse().ok()) {
            numbers.push(number);
        }
    }
    numbers.sort_unstable();
    // A folder without its record yet is a submission being made (by a round's decide job, while others read):
    // it is not a submission until its record is written.
    numbers
        .into_iter()
        .filter(|&number| submission_dir(folder, number).join(SUBMISSION_FILE).exists())
        .map(|number| read_submission(folder, number))
        .collect()
}

/// How a campaign is submitted.
#[derive(Clone, Debug)]
pub struct SubmitConfig {
    /// The `metewand` the tasks run: an absolute path every node can run.
    pub binary: PathBuf,
    /// The state folder holding the dataset store, on a filesystem every node sees.
    pub state_dir: PathBuf,
    /// Attempts per task (`--pack`).
    pub pack: NonZeroU64,
    /// `--max-parallel`: each array's throttle.
    pub max_parallel: Option<NonZeroU64>,
    /// `--time`, given to `sbatch` as it is, instead of the limit worked out from the repository.
    pub time: Option<String>,
    /// `--partition`.
    pub partition: Option<String>,
    /// `--account`.
    pub account: Option<String>,
    /// `--sbatch-arg`, each given to `sbatch` before the script, after Metewand's own options.
    pub sbatch_args: Vec<String>,
    /// Submit failed attempts (and failed materializations) again.
    pub retry_failed: bool,
    /// Submit done attempts again whose workers ran another program than their commands find now, as this check
    /// (made on the submitting node) says; `None` keeps them.
    pub rerun_changed: Option<crate::changes::ProgramCheck>,
    /// Keep workers' processes together with the freezing sweep instead of a PID namespace.
    pub sweep_processes: bool,
    /// How each task's implementation sessions serve its attempts, and a reused session's warm-up cycles.
    pub sessions: (SessionMode, u64),
    /// The implementation workers whose sessions are never reused ([`crate::refused_for_reuse`]).
    pub refused: Vec<metewand_protocol::common::WorkerId>,
    /// With fresh sessions, whether each task starts the workers of the attempt it runs next ahead (see
    /// [`crate::RunConfig::ahead`]), where its allocation has a core to keep for that.
    pub ahead: bool,
    /// A round of `--until-decided`: recorded in the submission, whose last job is then a decide job
    /// (`campaign decide`) in place of the export job.
    pub until_decided: Option<UntilDecided>,
    /// The job this submission is made from (a round's decide job), which the refusal to submit while jobs of
    /// earlier submissions are pending or running leaves out.
    pub own_job: Option<u64>,
}

/// What a submission did.
#[derive(Clone, Debug, Default)]
pub struct SubmitSummary {
    /// The campaign folder, resolved.
    pub folder: PathBuf,
    /// Attempts in the plan.
    pub planned: usize,
    /// Attempts already done (a terminal record).
    pub done: usize,
    /// The submission, when anything was submitted.
    pub submission: Option<SlurmSubmission>,
    /// The attempt tasks' time limit in minutes, when worked out (no `--time`).
    pub minutes: Option<u64>,
}

/// The longest an attempt can take under the repository's phase limits and budgets: both workers' starts and
/// shutdowns, the implementation's `prepare` and `execute` (or its budget, if shorter) and the evaluation.
pub fn attempt_bound(repository: &CheckedRepository) -> Duration {
    let limits = phase_timeouts(repository);
    let budgets = repository.budgets();
    let solve = (limits.prepare + limits.execute).min(budgets.implementation.unwrap_or(Duration::MAX));
    let evaluate = limits.evaluate.min(budgets.evaluation.unwrap_or(Duration::MAX));
    (limits.hello + limits.shutdown) * 2 + solve + evaluate
}

/// The longest a dataset's materialization can take under the repository's phase limits and budget.
pub fn materialization_bound(repository: &CheckedRepository) -> Duration {
    let limits = phase_timeouts(repository);
    let budget = repository.budgets().materialization.unwrap_or(Duration::MAX);
    limits.hello + limits.materialize.min(budget) + limits.shutdown
}

/// A task's time limit in whole minutes (Slurm's unit): `count` times `bound`, plus [`TIME_MARGIN`], rounded up.
pub fn minutes(bound: Duration, count: u64) -> u64 {
    let seconds = bound.as_secs().saturating_add(u64::from(bound.subsec_nanos() > 0));
    seconds.saturating_mul(count).saturating_add(TIME_MARGIN.as_secs()).div_ceil(60)
}

/// Quotes `text` for a POSIX shell.
fn quote(text: &str) -> String {
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_./=:,%@+".contains(&b)) {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// The job name every job of a submission carries, unique to the folder and the submission: a task that cannot
/// see the folder cancels its submission's jobs by it.
fn job_name(plan: &CampaignPlan<'_>, folder: &Path, number: u64) -> String {
    let digest = metewand_runtime::Sha256Digest::of(format!("{}\n{number}", folder.display()).as_bytes()).to_string();
    format!("metewand-{}-{}", plan.name(), &digest[..8])
}

/// The folder's submissions, or [`Error::StillQueued`] when a job of one of them (other than `own`) is pending or
/// running.
fn refuse_active(folder: &Path, slurm: &Slurm, own: Option<u64>) -> Result<Vec<SlurmSubmission>, Error> {
    let earlier = submissions(folder)?;
    let jobs: Vec<u64> = earlier
        .iter()
        .flat_map(|s| s.jobs.iter().map(|job| job.job_id.get()))
        .filter(|&job| Some(job) != own)
        .collect();
    let active = slurm.active(&jobs)?;
    if active.is_empty() {
        Ok(earlier)
    } else {
        Err(Error::StillQueued { folder: folder.to_owned(), jobs: active.into_keys().collect() })
    }
}

/// Submits what the campaign of `plan` in the folder `path` still needs and returns at once: nothing of Metewand
/// stays running.
///
/// It refuses while an earlier submission's jobs are pending or running; then it opens the folder (taking its lock
/// and recording the plan and `environment` in `campaign.json`, as a local run does) and removes what will run
/// again (unfinished folders, invalid, cancelled, with `retry_failed` failed records, and with `rerun_changed` the
/// records of attempts whose workers ran another program). If an `sbatch` fails, the
/// jobs this submission already queued are cancelled.
pub fn submit(
    plan: &CampaignPlan<'_>,
    path: &Path,
    environment: Environment,
    config: &SubmitConfig,
    slurm: &Slurm,
) -> Result<SubmitSummary, Error> {
    // Asked before the folder is opened (running tasks hold its lock shared, which would only say "in use"), and
    // again once this submission holds the lock, so that two submissions never take the same number.
    refuse_active(path, slurm, config.own_job)?;
    let concurrency = config.max_parallel.map_or(0, NonZeroU64::get);
    let folder = CampaignFolder::open(path, plan, concurrency, environment)?;
    let root = folder.path();
    let earlier = refuse_active(root, slurm, config.own_job)?;
    let max_array = slurm.max_array_size().max(1);

    let mut summary =
        SubmitSummary { planned: plan.attempts().len(), folder: root.to_owned(), ..SubmitSummary::default() };
    let mut to_run: Vec<usize> = Vec::new();
    for (index, (attempt, held)) in
        plan.attempts().iter().zip(held(plan, &folder, config.rerun_changed.as_ref())).enumerate()
    {
        if attempt.shared_with.is_some() {
            continue;
        }
        let program_changed = !held.changes.is_empty();
        if !program_changed && held.outcome.is_some_and(|outcome| is_terminal(outcome, config.retry_failed)) {
            summary.done += 1;
            continue;
        }
        if held.exists {
            let dir = folder.attempt_dir(&attempt.id);
            remove_tree(&dir).map_err(io_error("remove", &dir))?;
        }
        to_run.push(index);
    }
    if to_run.is_empty() {
        return Ok(summary);
    }
    // Interleaved within each dataset, as on the local pool, and the datasets in plan order: packs are cut from
    // this order.
    let seed = crate::order::order_seed(plan.name());
    let mut by_key: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for &index in &to_run {
        by_key.entry(plan.attempts()[index].key).or_default().push(index);
    }
    let to_run: Vec<usize> =
        by_key.values().flat_map(|indices| crate::order::interleave(plan, indices, seed)).collect();
    let mut keys: Vec<u32> = to_run.iter().map(|&index| plan.attempts()[index].key).collect();
    keys.sort_unstable();
    keys.dedup();
    let datasets: Vec<_> = keys
        .into_iter()
        .map(|key| &plan.keys()[key as usize].key)
        .filter(|key| match read_materialization(root, key) {
            Some(record) if record.outcome == DatasetMaterializationOutcome::Ok => false,
            Some(record) if record.outcome == DatasetMaterializationOutcome::Failed => config.retry_failed,
            _ => true,
        })
        .cloned()
        .collect();

    let number = earlier.iter().map(|s| s.number.get()).max().unwrap_or(0) + 1;
    let dir = submission_dir(root, number);
    fs::create_dir_all(dir.join("logs")).map_err(io_error("create", &dir))?;
    let packs = to_run.len().div_ceil(config.pack.get() as usize) as u64;
    let concurrency = config.max_parallel.map_or(packs, |n| n.get().min(packs));
    let mut submission = SlurmSubmission {
        format: Format,
        number: safe(number),
        submitted_at: metewand_runtime::attempt::timestamp(std::time::SystemTime::now()),
        binary: nonempty(&config.binary)?,
        state_dir: nonempty(&config.state_dir)?,
        sweep_processes: config.sweep_processes,
        sessions: Some(Sessions {
            mode: config.sessions.0,
            warmup: safe(config.sessions.1),
            refused: config.refused.clone(),
            ahead: Some(config.sessions.0 == SessionMode::Fresh && config.ahead),
        }),
        pack_size: safe(config.pack.get()),
        concurrency: safe(concurrency),
        datasets,
        attempts: to_run.iter().map(|&index| plan.attempts()[index].id.clone()).collect(),
        jobs: Vec::new(),
        until_decided: config.until_decided.clone(),
        externals: work::externals(plan.repository())?,
    };
    write_submission(&submission, root)?;

    let repository = plan.repository();
    let attempt_minutes = minutes(attempt_bound(repository), config.pack.get());
    let dataset_minutes = minutes(materialization_bound(repository), 1);
    if config.time.is_none() {
        summary.minutes = Some(attempt_minutes);
    }
    let mut queuer = Queuer {
        plan,
        root,
        config,
        slurm,
        name: job_name(plan, root, number),
        max_array,
        submission: &mut submission,
    };
    let queued = queuer.queue_all(dataset_minutes, attempt_minutes);
    if let Err(error) = queued {
        let ids: Vec<u64> = submission.jobs.iter().map(|job| job.job_id.get()).collect();
        if ids.is_empty() {
            // Nothing was queued: the submission is not kept.
            let _ = remove_tree(&dir);
        } else {
            // Nothing of a failed submission stays queued; its record keeps the ids of what was cancelled.
            let _ = slurm.scancel(&[], &ids);
        }
        return Err(error);
    }
    summary.submission = Some(submission);
    Ok(summary)
}

/// Writes and queues the jobs of one submission, recording each id as soon as `sbatch` gives it.
struct Queuer<'a, 'p> {
    plan: &'a CampaignPlan<'p>,
    root: &'a Path,
    config: &'a SubmitConfig,
    slurm: &'a Slurm,
    name: String,
    max_array: u64,
    submission: &'a mut SlurmSubmission,
}

impl Queuer<'_, '_> {
    fn queue_all(&mut self, dataset_minutes: u64, attempt_minutes: u64) -> Result<(), Error> {
        let dataset_jobs =
            self.queue_arrays(JobKind::Datasets, self.submission.datasets.len() as u64, &[], dataset_minutes)?;
        let packs = self.submission.packs();
        let attempt_jobs = self.queue_arrays(JobKind::Attempts, packs, &dataset_jobs, attempt_minutes)?;
        let after: Vec<u64> = dataset_jobs.iter().chain(&attempt_jobs).copied().collect();
        if self.submission.until_decided.is_some() {
            self.queue(JobKind::Decide, 0, 1, &after, EXPORT_MINUTES, "decide.sh".to_owned())?;
        } else {
            self.queue(JobKind::Export, 0, 1, &after, EXPORT_MINUTES, "export.sh".to_owned())?;
        }
        Ok(())
    }

    /// Queues `count` tasks of `kind` as arrays of at most `MaxArraySize` tasks, each after `after`.
    fn queue_arrays(&mut self, kind: JobKind, count: u64, after: &[u64], minutes: u64) -> Result<Vec<u64>, Error> {
        let mut ids = Vec::new();
        let mut first = 0;
        let prefix = if kind == JobKind::Datasets { "datasets" } else { "attempts" };
        while first < count {
            let tasks = (count - first).min(self.max_array);
            let mut dependencies = after.to_vec();
            // A split array under a throttle waits for the part before it: the throttle is per array.
            if self.config.max_parallel.is_some()
                && let Some(&previous) = ids.last()
            {
                dependencies.push(previous);
            }
            let script = format!("{prefix}-{}.sh", ids.len());
            ids.push(self.queue(kind, first, tasks, &dependencies, minutes, script)?);
            first += tasks;
        }
        Ok(ids)
    }

    fn queue(
        &mut self,
        kind: JobKind,
        first: u64,
        tasks: u64,
        after: &[u64],
        minutes: u64,
        script_name: String,
    ) -> Result<u64, Error> {
        let number = self.submission.number.get();
        let dir = submission_dir(self.root, number);
        let stem = script_name.trim_end_matches(".sh");
        let mut args = vec![format!("--job-name={}", self.name)];
        if kind.single() {
            args.push(format!("--output={}", dir.join("logs").join(format!("{stem}-%j.out")).display()));
            args.push(format!("--time={minutes}"));
        } else {
            let throttle = self.config.max_parallel.map_or(String::new(), |n| format!("%{n}"));
            args.push(format!("--array=0-{}{throttle}", tasks - 1));
            args.push(format!("--output={}", dir.join("logs").join(format!("{stem}-%A_%a.out")).display()));
            args.push(format!("--time={}", self.config.time.clone().unwrap_or_else(|| minutes.to_string())));
            args.push(format!("--signal={SIGNAL}"));
        }
        if !after.is_empty() {
            let ids: Vec<String> = after.iter().map(u64::to_string).collect();
            args.push(format!("--dependency=afterany:{}", ids.join(":")));
        }
        if let Some(partition) = &self.config.partition {
            args.push(format!("--partition={partition}"));
        }
        if let Some(account) = &self.config.account {
            args.push(format!("--account={account}"));
        }
        args.extend(self.config.sbatch_args.iter().cloned());
        let script = dir.join(&script_name);
        let text = self.script(kind, first, tasks, &args, &script);
        #[allow(
            clippy::disallowed_methods,
            reason = "a batch script in the submission's own new folder, where no worker writes"
        )]
        fs::write(&script, text).map_err(io_error("write", &script))?;
        let job_id = self.slurm.sbatch(&dir, &args, &script)?;
        self.submission.jobs.push(Job {
            job_id: safe(job_id),
            kind,
            script: JobScript::try_from(format!("{SLURM_DIR}/{number}/{script_name}"))
                .expect("a script's path starts with the Slurm folder's name"),
            first: safe(first),
            tasks: safe(tasks),
        });
        write_submission(self.submission, self.root)?;
        Ok(job_id)
    }

    fn script(&self, kind: JobKind, first: u64, tasks: u64, args: &[String], path: &Path) -> String {
        let number = self.submission.number;
        let binary = quote(&self.config.binary.to_string_lossy());
        let folder = quote(&self.root.to_string_lossy());
        let mut text = String::from("#!/bin/bash\n");
        let _ = writeln!(
            text,
            "# Campaign {:?}, submission {number}, written by `metewand campaign submit`.",
            self.plan.name()
        );
        let _ = match kind {
            JobKind::Datasets => writeln!(
                text,
                "# Datasets {first} to {} of slurm/{number}/{SUBMISSION_FILE}: one a task, SLURM_ARRAY_TASK_ID + {first}.",
                first + tasks - 1
            ),
            JobKind::Attempts => writeln!(
                text,
                "# Packs {first} to {} of {} ({} attempts a pack) of slurm/{number}/{SUBMISSION_FILE}: one a task, \
                 SLURM_ARRAY_TASK_ID + {first}.",
                first + tasks - 1,
                self.submission.packs(),
                self.submission.pack_size
            ),
            JobKind::Export => {
                writeln!(text, "# Writes results.csv, results.jsonl and profiles.csv once every task above ended.")
            }
            JobKind::Decide => writeln!(
                text,
                "# A round of --until-decided: once every task above ended, decides from the records whether another \
                 round is due and submits it, or writes results.csv, results.jsonl and profiles.csv."
            ),
        };
        let quoted: Vec<String> = args.iter().map(|arg| quote(arg)).collect();
        let _ = writeln!(
            text,
            "# Submitted as:\n#   sbatch --parsable {} {}",
            quoted.join(" "),
            quote(&path.to_string_lossy())
        );
        let _ = writeln!(text, "set -u\nfolder={folder}");
        let _ = writeln!(
            text,
            "if [ ! -r \"$folder/{CAMPAIGN_FILE}\" ]; then\n  \
             echo \"metewand: node $(hostname) cannot see the campaign folder $folder: it must be on a filesystem \
             every node shares; cancelling the jobs of this submission\" >&2\n  \
             scancel --name={}\n  exit 1\nfi",
            quote(&self.name)
        );
        let _ = match kind {
            JobKind::Datasets => writeln!(
                text,
                "exec {binary} campaign work \"$folder\" --submission {number} --dataset \"$((SLURM_ARRAY_TASK_ID + {first}))\""
            ),
            JobKind::Attempts => writeln!(
                text,
                "exec {binary} campaign work \"$folder\" --submission {number} --pack \"$((SLURM_ARRAY_TASK_ID + {first}))\""
            ),
            JobKind::Export => writeln!(text, "exec {binary} campaign export \"$folder\""),
            JobKind::Decide => writeln!(text, "exec {binary} campaign decide \"$folder\" --submission {number}"),
        };
        text
    }
}

/// The Slurm side of a campaign's status.
#[derive(Clone, Debug, Default)]
pub struct SlurmStatus {
    /// Each job of each submission with its tasks counted by state (Slurm's names in lower case; `gone` for tasks
    /// Slurm no longer knows, which ended more than `MinJobAge` ago).
    pub jobs: Vec<(u64, Job, BTreeMap<String, usize>)>,
    /// Attempts without a terminal record whose task waits.
    pub pending: usize,
    /// Attempts without a terminal record whose task runs (the attempt itself may still wait its turn in the pack).
    pub running: usize,
    /// Attempts whose task ended, or that Slurm forgot, without a record: the next submission runs them.
    pub lost: usize,
    /// Attempts without a terminal record that no submission included.
    pub not_submitted: usize,
}

/// Joins the records of the campaign in `folder` with the Slurm state of its submissions' jobs; `None` when it was
/// never submitted.
pub fn status(folder: &Path, slurm: &Slurm) -> Result<Option<SlurmStatus>, Error> {
    let all = submissions(folder)?;
    if all.is_empty() {
        return Ok(None);
    }
    let ids: Vec<u64> = all.iter().flat_map(|s| s.jobs.iter().map(|job| job.job_id.get())).collect();
    let tasks: HashMap<(u64, Option<u64>), TaskState> =
        slurm.queue(&ids)?.into_iter().map(|task| ((task.job, task.task), task)).collect();
    let state_of = |job: &Job, index: u64| {
        let key = (job.job_id.get(), (!job.kind.single()).then_some(index));
        tasks.get(&key)
    };
    let mut status = SlurmStatus::default();
    for submission in &all {
        for job in &submission.jobs {
            let mut states: BTreeMap<String, usize> = BTreeMap::new();
            for index in 0..job.tasks.get() {
                let name = state_of(job, index).map_or("gone".to_owned(), |task| task.state.to_lowercase());
                *states.entry(name).or_default() += 1;
            }
            status.jobs.push((submission.number.get(), job.clone(), states));
        }
    }
    // The latest submission that included each attempt, and its pack there.
    let mut latest: HashMap<&str, (&SlurmSubmission, u64)> = HashMap::new();
    for submission in &all {
        for (position, id) in submission.attempts.iter().enumerate() {
            latest.insert(id.as_str(), (submission, position as u64 / submission.pack_size.get().max(1)));
        }
    }
    let (ids, outcomes) = crate::status::outcomes(folder)?;
    for (id, outcome) in ids.iter().zip(outcomes) {
        if outcome.is_some_and(|outcome| is_terminal(outcome, false)) {
            continue;
        }
        let Some(&(submission, pack)) = latest.get(id.as_str()) else {
            status.not_submitted += 1;
            continue;
        };
        let activity = submission
            .task_of(JobKind::Attempts, pack)
            .and_then(|(job_id, index)| {
                submission.jobs.iter().find(|job| job.job_id.get() == job_id).map(|job| (job, index))
            })
            .and_then(|(job, index)| state_of(job, index))
            .map_or(Activity::Ended, TaskState::activity);
        match activity {
            Activity::Pending => status.pending += 1,
            Activity::Running => status.running += 1,
            Activity::Ended if outcome.is_none() => status.lost += 1,
            // A cancelled record: counted cancelled by the folder's own status.
            Activity::Ended => {}
        }
    }
    Ok(Some(status))
}

/// What [`cancel`] did.
#[derive(Clone, Debug, Default)]
pub struct CancelSummary {
    /// The jobs that were pending or running.
    pub cancelled: Vec<u64>,
    /// Jobs still pending or running when the wait ended (empty unless Slurm did not end them in time).
    pub remaining: Vec<u64>,
}

/// Cancels every job of the campaign in `folder` that is still pending or running and waits up to `wait` for them
/// to end. Pending tasks are cancelled at once; running ones get SIGTERM in their batch shell first, so that the
/// running attempt is recorded `cancelled`, and are cancelled outright after half of `wait`.
pub fn cancel(folder: &Path, slurm: &Slurm, wait: Duration) -> Result<CancelSummary, Error> {
    let ids: Vec<u64> = submissions(folder)?.iter().flat_map(|s| s.jobs.iter().map(|job| job.job_id.get())).collect();
    let active = slurm.active(&ids)?;
    let mut summary = CancelSummary { cancelled: active.keys().copied().collect(), remaining: Vec::new() };
    if active.is_empty() {
        return Ok(summary);
    }
    slurm.scancel(&["--state=PENDING"], &summary.cancelled)?;
    let running: Vec<u64> = active
        .iter()
        .filter(|(_, tasks)| tasks.iter().any(|task| task.activity() == Activity::Running))
        .map(|(&job, _)| job)
        .collect();
    slurm.scancel(&["--batch", "--signal=TERM"], &running)?;
    let started = Instant::now();
    let mut forced = false;
    loop {
        let left: Vec<u64> = slurm.active(&summary.cancelled)?.into_keys().collect();
        if left.is_empty() {
            return Ok(summary);
        }
        if !forced && started.elapsed() >= wait / 2 {
            slurm.scancel(&[], &left)?;
            forced = true;
        }
        if started.elapsed() >= wait {
            summary.remaining = left;
            return Ok(summary);
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}
