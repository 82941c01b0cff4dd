//! One array task of a submission (`metewand campaign work DIR --submission N --dataset I | --pack I`): it checks
//! that this node sees the campaign folder, builds the campaign's plan again from `campaign.json` and the
//! repository, and materializes its dataset or runs its pack of attempts through the local pool's own functions
//! (same attempt ids, dataset keys, folders and records, each record written in place atomically).
//!
//! Many tasks write one folder at once: each holds its lock shared (a local `campaign run`, which holds it
//! exclusively, cannot run beside them). An attempt that already has a terminal record is skipped, so a task that
//! Slurm requeues does not run its attempts twice. On the cancel flag (the task's SIGTERM: `--signal`, a time
//! limit, `scancel`) the running attempt is cancelled and recorded, and the task stops starting attempts.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use metewand_protocol::generated::attempt_record::SessionMode;
use metewand_runtime::CheckedRepository;
use metewand_runtime::attempt::{DatasetMaterializationOutcome, HeldSessions, remove_tree};
use metewand_runtime::cpus::SlotPlan;
use metewand_runtime::protocol::generated::slurm_submission::External;
use metewand_runtime::session::ProcessIsolation;

use super::{Error, SlurmSubmission, io_error, nonempty, read_submission};
use crate::error::RunError;
use crate::folder::{CAMPAIGN_FILE, CampaignFolder, Found, read_attempt, read_campaign, read_materialization};
use crate::plan::{CampaignPlan, recorded_axes, recorded_name};
use crate::prepared::PreparedCampaign;
use crate::runner::{Observer, materialize, run_attempt, shared_failure};
use metewand_runtime::exit::Exit;

/// How long a task waits for a lock held exclusively (a submission writing `campaign.json`) before it fails.
pub const LOCK_WAIT: Duration = Duration::from_secs(60);

/// What one task runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Task {
    /// The submission's dataset `I`.
    Dataset(u64),
    /// The submission's pack `I`.
    Pack(u64),
}

/// What one task did.
#[derive(Debug, Default)]
pub struct WorkSummary {
    /// Attempts (or materializations) this task recorded.
    pub ran: usize,
    /// Attempts of its pack that already had a terminal record.
    pub skipped: usize,
    /// Records of this task, by outcome.
    pub by_outcome: BTreeMap<String, usize>,
    /// Attempts left without a record because their dataset has no usable materialization record (its task was
    /// lost or cancelled): the next submission runs them.
    pub not_ready: Vec<String>,
    /// The campaign's own I/O failures (a record that could not be written); the task stopped at the first.
    pub errors: Vec<RunError>,
    /// Whether the cancel flag stopped the task.
    pub cancelled: bool,
}

impl WorkSummary {
    /// How the task ends: success when everything it was given is recorded (whatever the outcome), cancelled,
    /// or failed when something is left without a record.
    pub fn exit(&self) -> Exit {
        if self.cancelled {
            Exit::Cancelled
        } else if !self.not_ready.is_empty() || !self.errors.is_empty() {
            Exit::Failed
        } else {
            Exit::Success
        }
    }
}

/// The host name, for saying which node could not see the folder.
fn host() -> String {
    crate::environment::host_name().unwrap_or_else(|| "unknown".to_owned())
}

/// The repository of the campaign in `dir`, loaded again from the path `campaign.json` names with the external
/// folders `submission` records joined again, and the axes and the name `campaign.json` records (the plan of the
/// campaign as asked).
pub fn recorded(
    dir: &Path,
    submission: &SlurmSubmission,
) -> Result<(CheckedRepository, crate::plan::Axes, String), Error> {
    let file = read_campaign(dir)?;
    let mut repository = CheckedRepository::load(Path::new(&file.repository))
        .map_err(|error| Error::Repository { message: format!("{}: {}", file.repository, error.kind()) })?;
    join_externals(&mut repository, submission)?;
    let axes = recorded_axes(&file.definition).ok_or_else(|| Error::Repository {
        message: "campaign.json holds a seed axis that is neither a list nor a first and a count".to_owned(),
    })?;
    Ok((repository, axes, file.name.to_string()))
}

/// The external folders joined to `repository`, each with its identity, as a submission records them.
pub(super) fn externals(repository: &CheckedRepository) -> Result<Vec<External>, Error> {
    repository
        .externals()
        .iter()
        .map(|folder| {
            let identity = repository.external_identity(folder).expect("a joined folder has an identity");
            Ok(External { folder: nonempty(folder)?, identity })
        })
        .collect()
}

/// Joins the submission's external folders to `repository` again, refusing one whose identity is not the one
/// recorded: its implementations' ids would be planned from other files than those submitted.
fn join_externals(repository: &mut CheckedRepository, submission: &SlurmSubmission) -> Result<(), Error> {
    for external in &submission.externals {
        let folder = PathBuf::from(external.folder.as_str());
        repository
            .add_external(&folder, &metewand_runtime::CheckOptions::default())
            .map_err(|error| Error::External { folder: folder.clone(), message: error.to_string() })?;
        let joined = repository.externals().last().cloned().unwrap_or_default();
        if repository.external_identity(&joined) != Some(external.identity) {
            return Err(Error::ExternalChanged { folder });
        }
    }
    Ok(())
}

/// Runs task `task` of submission `number` of the campaign folder `dir`, reporting to `observer`, stopping on
/// `cancel`.
pub fn work(
    dir: &Path,
    number: u64,
    task: Task,
    cancel: Option<&'static AtomicBool>,
    observer: &dyn Observer,
) -> Result<WorkSummary, Error> {
    if let Err(error) = std::fs::metadata(dir.join(CAMPAIGN_FILE)) {
        return Err(Error::Invisible { path: dir.to_owned(), host: host(), reason: error.to_string() });
    }
    let submission = read_submission(dir, number)?;
    let (repository, mut axes, name) = recorded(dir, &submission)?;
    // A round of --until-decided plans with the cap's repetitions, so that the repetitions a round added are in
    // the plan with the ids they were submitted under.
    if let Some(until) = &submission.until_decided {
        axes.repetitions = Some(until.max_repetitions.get());
    }
    let name = recorded_name(&name);
    let isolation = if submission.sweep_processes { ProcessIsolation::Sweep } else { ProcessIsolation::default() };
    let prepared = PreparedCampaign::submitted(
        CampaignPlan::new(&repository, name, &axes)?,
        PathBuf::from(submission.state_dir.as_str()),
        dir.to_owned(),
        isolation,
    );
    let plan = prepared.plan();
    let folder = CampaignFolder::join(dir, LOCK_WAIT)?;
    let mut options = prepared.options().clone();
    if let Some(sessions) = &submission.sessions {
        options = options.warmup(sessions.warmup.get());
    }
    if let Some(flag) = cancel {
        options = options.cancel_on(flag);
    }
    let cancelled = || cancel.is_some_and(|flag| flag.load(Ordering::SeqCst));
    let mut summary = WorkSummary::default();
    // A task runs its pack one attempt after another, as a pool slot does: a reused session serves the
    // consecutive attempts of its worker, and is ended when the task ends.
    let mut sessions = match &submission.sessions {
        Some(sessions) => {
            HeldSessions::new(sessions.mode).warmup(sessions.warmup.get()).refuse(sessions.refused.iter().cloned())
        }
        None => HeldSessions::new(SessionMode::Fresh),
    };
    let ahead = submission
        .sessions
        .as_ref()
        .is_some_and(|sessions| sessions.mode == SessionMode::Fresh && sessions.ahead == Some(true));
    if ahead
        && let Ok(cpus) = SlotPlan::probe_with_ahead(1)
        && let Some(executor) = cpus.executor()
    {
        // As a local pool's one slot: the workers on the allocation's other cores, this thread and the workers
        // started ahead on the first.
        if executor.apply_to_current_thread().is_ok() {
            options = options.cpus(cpus.slots()[0].clone());
            sessions = sessions.ahead_on(executor.clone());
        }
    }
    match task {
        Task::Dataset(index) => {
            let key = submission.datasets.get(index as usize).ok_or_else(|| no_such(&submission, task))?;
            let Some(slot) = plan.keys().iter().position(|planned| planned.key == *key) else {
                return Err(Error::Changed { what: format!("dataset {key}") });
            };
            if read_materialization(folder.path(), key).is_some_and(|r| r.outcome == DatasetMaterializationOutcome::Ok)
            {
                summary.skipped += 1;
                return Ok(summary);
            }
            let first =
                plan.attempts().iter().position(|attempt| attempt.key as usize == slot).expect("a key has attempts");
            let dataset = &plan.keys()[slot];
            observer.dataset_started(plan, dataset);
            let started = Instant::now();
            match materialize(plan, &folder, slot as u32, first, &options) {
                Ok(record) => {
                    summary.ran += 1;
                    *summary.by_outcome.entry(format!("{:?}", record.outcome).to_lowercase()).or_default() += 1;
                    observer.dataset_finished(plan, &record, started.elapsed());
                }
                Err(error) => summary.errors.push(error),
            }
        }
        Task::Pack(index) => {
            let ids = submission.pack(index).ok_or_else(|| no_such(&submission, task))?;
            // An attempt another cell shares runs as its first cell's, as on the local pool.
            let by_id: HashMap<&str, usize> =
                plan.attempts().iter().enumerate().rev().map(|(index, attempt)| (attempt.id.as_str(), index)).collect();
            let indices: Vec<usize> = ids
                .iter()
                .map(|id| {
                    by_id.get(id.as_str()).copied().ok_or_else(|| Error::Changed { what: format!("attempt {id}") })
                })
                .collect::<Result<_, _>>()?;
            observer.begin(ids.len(), 0, 0, ids.len());
            // What the task runs, decided first, so that each attempt knows the one after it (whose workers it may
            // start ahead).
            let mut to_run = Vec::new();
            for index in indices {
                let attempt = &plan.attempts()[index];
                let found = read_attempt(folder.path(), attempt.id.as_str());
                if found.outcome().is_some_and(|outcome| crate::runner::is_terminal(outcome, false)) {
                    summary.skipped += 1;
                    continue;
                }
                if !matches!(found, Found::Missing) {
                    let path = folder.attempt_dir(&attempt.id);
                    remove_tree(&path).map_err(io_error("remove", &path))?;
                }
                let key = &plan.keys()[attempt.key as usize].key;
                let failure = match read_materialization(folder.path(), key) {
                    Some(record) if record.outcome == DatasetMaterializationOutcome::Ok => None,
                    Some(record) if record.outcome == DatasetMaterializationOutcome::Failed => {
                        Some(shared_failure(&record))
                    }
                    _ => {
                        summary.not_ready.push(attempt.id.as_str().to_owned());
                        continue;
                    }
                };
                to_run.push((index, failure));
            }
            // With reused sessions a worker's attempts run one after another (otherwise in plan order), as a pool
            // slot takes them: one start per worker and task, where the plan's order alternates workers; and among a
            // worker's, each repetition's in turn, since a session serves each cell once (a session then serves one
            // repetition of every cell, where a cell's repetitions one after another would each end it).
            if sessions.mode() == SessionMode::Reuse {
                let worker_of = |index: usize| plan.implementation_worker(plan.attempts()[index].implementation);
                let mut rank: HashMap<&str, usize> = HashMap::new();
                for (index, _) in &to_run {
                    let next = rank.len();
                    rank.entry(worker_of(*index)).or_insert(next);
                }
                to_run.sort_by_key(|(index, _)| (rank[&worker_of(*index)], plan.attempts()[*index].repetition));
            }
            for (position, (index, failure)) in to_run.iter().enumerate() {
                if cancelled() {
                    break;
                }
                let attempt = &plan.attempts()[*index];
                let next = match to_run.get(position + 1) {
                    Some((next, None)) if failure.is_none() => Some(&plan.attempts()[*next]),
                    _ => None,
                };
                observer.attempt_started(plan, attempt);
                let started = Instant::now();
                match run_attempt(
                    plan,
                    &folder,
                    attempt,
                    failure.clone(),
                    &options,
                    submission.concurrency.get(),
                    &mut sessions,
                    next,
                ) {
                    Ok(record) => {
                        summary.ran += 1;
                        *summary.by_outcome.entry(record.outcome.to_string()).or_default() += 1;
                        observer.attempt_finished(plan, attempt, &record, started.elapsed());
                    }
                    Err(error) => {
                        summary.errors.push(error);
                        break;
                    }
                }
            }
        }
    }
    summary.cancelled = cancelled();
    Ok(summary)
}

fn no_such(submission: &SlurmSubmission, task: Task) -> Error {
    let what = match task {
        Task::Dataset(index) => {
            format!("submission {} has {} datasets, no dataset {index}", submission.number, submission.datasets.len())
        }
        Task::Pack(index) => {
            format!("submission {} has {} packs, no pack {index}", submission.number, submission.packs())
        }
    };
    Error::NoSuchTask { what }
}
