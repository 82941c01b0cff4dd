//! Audits: a seeded sample of a campaign's done attempts run again, each in fresh sessions and in another order
//! than the campaign's, through the same functions as the local pool, and each compared with its record (its
//! outcome and verdict) and with its cell's repetitions (its time). What a re-run tells that no record can: an
//! implementation that answers from what it kept of an earlier attempt, or whose time depends on something it was
//! not given (the order, the moment, where it runs).
//!
//! An audit is recorded beside the campaign, in `audits/<id>/`: the re-runs' ordinary attempt folders
//! (`attempts/<attempt id>/`, each record written in place atomically) and, last and atomically, `audit.json`
//! (schema `audit`). A folder without `audit.json` is an audit that did not finish.

use std::collections::HashMap;
use std::io;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::SystemTime;

use metewand_protocol::common::{AttemptId, Format, Verdict};
use metewand_protocol::generated::attempt_record::{Outcome, SessionMode};
use metewand_protocol::strict::SafeUint;
use metewand_runtime::CheckedRepository;
use metewand_runtime::attempt::{Cell, HeldSessions};
use metewand_runtime::cpus::SlotPlan;
use metewand_runtime::session::ProcessIsolation;

pub use metewand_protocol::generated::audit::{Audit, AuditedAttempt, Interval, Observation};

use crate::changes::{ChangedWorker, ProgramCheck};
use crate::error::RunError;
use crate::folder::{CampaignFolder, FolderError, read_campaign, write_atomically};
use crate::index::{Check, IndexEntry, Rebuild};
use crate::own::Found;
use crate::plan::{CampaignPlan, recorded_axes, recorded_name};
use crate::prepared::{PrepareError, PrepareWarning, PreparedCampaign, Refusals, default_state_dir};

/// The folder of a campaign folder that holds its audits.
pub const AUDITS_DIR: &str = "audits";
/// An audit's record in its folder.
pub const AUDIT_FILE: &str = "audit.json";
/// How far beyond its cell's fastest and slowest time a re-run may fall, in percent of them, unless told.
pub const DEFAULT_TOLERANCE_PERCENT: u64 = 50;
/// The nanoseconds every interval is widened by on each side besides its percentage, unless told: 10 ms, below
/// which a time says more about the machine's moment than about the implementation.
pub const SLACK_NS: u64 = 10_000_000;
/// How long an audit waits for a run holding the folder to finish before it gives up.
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// How an audit runs.
#[derive(Clone, Debug)]
pub struct AuditConfig {
    /// How many done attempts to run again.
    pub sample: NonZeroUsize,
    /// The seed the sample and its order are drawn with; by default one from the clock, recorded.
    pub seed: Option<SafeUint>,
    /// How far beyond its cell's fastest and slowest time a re-run may fall, in percent of them.
    pub tolerance_percent: u64,
    /// The nanoseconds every interval is widened by on each side besides ([`SLACK_NS`] unless told).
    pub slack_ns: u64,
    /// The repository to run the attempts from, when not the one `campaign.json` names (a bundle's `repository/`,
    /// unpacked elsewhere): it must plan the very attempts the campaign recorded.
    pub repository: Option<PathBuf>,
    /// The state folder holding the dataset store (by default the repository's `.metewand/`).
    pub state_dir: Option<PathBuf>,
    /// How the workers' processes are kept together.
    pub isolation: ProcessIsolation,
    /// What the checks before anything is written refuse instead of warning of, as for a campaign's run.
    pub refusals: Refusals,
    /// The CPUs of the one slot the re-runs run on, as a campaign run `-j 1` divides them; `None` to share all.
    pub cpus: Option<SlotPlan>,
    /// Set by a signal handler: the running re-run is cancelled, no other starts, and no `audit.json` is written.
    pub cancel: Option<&'static AtomicBool>,
}

/// Why an audit could not be made; nothing was run, unless the error says so.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// The folder is not a campaign folder.
    #[error("{} is not a campaign folder: it has no campaign.json; give the folder a campaign run wrote", path.display())]
    NotACampaign {
        /// The folder.
        path: PathBuf,
    },
    /// The folder's `campaign.json`, or the folder itself, cannot be read or taken.
    #[error(transparent)]
    Folder(Box<FolderError>),
    /// The repository the campaign ran from cannot be loaded or no longer plans the campaign.
    #[error("the repository {repository} cannot plan the campaign again: {message}")]
    Repository {
        /// The repository, as given or as `campaign.json` names it.
        repository: String,
        /// Why.
        message: String,
    },
    /// The repository changed since the campaign's records: its attempts would not be the ones recorded.
    #[error(
        "the repository changed since the campaign in {} ran ({what}); an audit runs the recorded attempts again, \
         so run the campaign again first or audit with the repository as it was",
        path.display()
    )]
    Changed {
        /// The campaign folder.
        path: PathBuf,
        /// What changed.
        what: String,
    },
    /// The checks a campaign's run makes before anything is written refused.
    #[error(transparent)]
    Prepare(Box<PrepareError>),
    /// The sample is larger than the campaign's done attempts.
    #[error(
        "a sample of {sample} is more than the {done} done attempts (judged to the end) of the campaign in {}",
        path.display()
    )]
    SampleTooLarge {
        /// The campaign folder.
        path: PathBuf,
        /// The sample asked for.
        sample: usize,
        /// The done attempts.
        done: usize,
    },
    /// The audit's own folder or record could not be written.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// What was being done.
        action: &'static str,
        /// On what.
        path: PathBuf,
        /// The system's reason.
        source: io::Error,
    },
    /// A re-run's folder or record could not be written.
    #[error(transparent)]
    Run(Box<RunError>),
    /// The cancel flag stopped the audit; its folder has no `audit.json`.
    #[error("the audit was cancelled; {} holds its re-runs so far, and no audit.json", path.display())]
    Cancelled {
        /// The audit's folder.
        path: PathBuf,
    },
}

impl From<FolderError> for AuditError {
    fn from(error: FolderError) -> AuditError {
        AuditError::Folder(Box::new(error))
    }
}

impl From<PrepareError> for AuditError {
    fn from(error: PrepareError) -> AuditError {
        AuditError::Prepare(Box::new(error))
    }
}

impl From<RunError> for AuditError {
    fn from(error: RunError) -> AuditError {
        AuditError::Run(Box::new(error))
    }
}

/// A finished audit: its folder and its record.
#[derive(Debug)]
pub struct AuditReport {
    /// `audits/<id>/` of the campaign folder.
    pub path: PathBuf,
    /// What `audit.json` holds.
    pub audit: Audit,
}

impl AuditReport {
    /// The re-runs whose outcome or verdict is not the record's.
    pub fn verdict_changes(&self) -> impl Iterator<Item = &AuditedAttempt> {
        self.audit.attempts.iter().filter(|attempt| attempt.verdict_changed)
    }

    /// The re-runs timed outside their cell's interval (or not timed).
    pub fn times_outside(&self) -> impl Iterator<Item = &AuditedAttempt> {
        self.audit.attempts.iter().filter(|attempt| attempt.time_outside)
    }

    /// Whether every re-run agreed with its record and its cell.
    pub fn passed(&self) -> bool {
        self.verdict_changes().next().is_none() && self.times_outside().next().is_none()
    }
}

/// What the campaign holds of one done attempt: its plan index, its record's outcome, verdict and time.
struct Done {
    index: usize,
    entry: Box<IndexEntry>,
}

/// Audits the campaign in `folder`: rebuilds its plan from `campaign.json` and the repository it names (refusing
/// when the repository changed since), makes the checks a run makes (a shortfall the refusals let pass goes to
/// `warn`), draws `config.sample` of its done attempts with the seed, runs them again one after the other, each in
/// fresh sessions, into `audits/<id>/`, and writes `audit.json` there.
pub fn audit(
    folder: &Path,
    config: &AuditConfig,
    warn: &mut dyn FnMut(PrepareWarning<'_>),
) -> Result<AuditReport, AuditError> {
    let file = match read_campaign(folder) {
        Err(FolderError::NoPlan { .. }) => return Err(AuditError::NotACampaign { path: folder.to_owned() }),
        found => found?,
    };
    let root = config.repository.clone().unwrap_or_else(|| PathBuf::from(&file.repository));
    let shown = root.display().to_string();
    let repository = CheckedRepository::load(&root)
        .map_err(|error| AuditError::Repository { repository: shown.clone(), message: error.kind().to_string() })?;
    let unplanned = |message: String| AuditError::Repository { repository: shown.clone(), message };
    let axes = recorded_axes(&file.definition).ok_or_else(|| {
        unplanned("campaign.json holds a seed axis that is neither a list nor a first and a count".into())
    })?;
    let plan = CampaignPlan::new(&repository, recorded_name(&file.name), &axes)
        .map_err(|error| unplanned(error.to_string()))?;
    let state_dir = config.state_dir.clone().unwrap_or_else(|| default_state_dir(repository.root()));
    let same = plan.attempts().len() == file.attempts.len()
        && plan.attempts().iter().zip(&file.attempts).all(|(planned, recorded)| planned.id == recorded.id);
    if !same {
        let what = describe_workers(&crate::changes::changed_workers(&plan, folder, &state_dir));
        return Err(AuditError::Changed { path: folder.to_owned(), what });
    }
    let mut prepared =
        PreparedCampaign::new(plan, state_dir, folder.to_owned(), config.isolation, config.refusals, warn)?;
    prepared.settle_state_dir()?;
    let held = CampaignFolder::join(folder, LOCK_WAIT)?;
    let plan = prepared.plan();
    let done = done_attempts(plan, &held);
    if config.sample.get() > done.len() {
        return Err(AuditError::SampleTooLarge {
            path: folder.to_owned(),
            sample: config.sample.get(),
            done: done.len(),
        });
    }
    let environment = crate::environment::capture(plan.repository());
    let programs = ProgramCheck::new(plan, &environment);
    let seed = config.seed.unwrap_or_else(clock_seed);
    let sample = draw(done.len(), config.sample.get(), seed.get());
    for &at in &sample {
        if let Some(change) = programs.changes(plan, &done[at].entry).first() {
            let what = format!("worker {} ran {}, its command finds {} now", change.worker, change.then, change.now);
            return Err(AuditError::Changed { path: folder.to_owned(), what });
        }
    }
    let cells = cell_times(plan, &done);
    let started = SystemTime::now();
    let dir = make_audit_dir(held.path(), started)?;
    let mut options = prepared.options().clone();
    if let Some(flag) = config.cancel {
        options = options.cancel_on(flag);
    }
    let mut attempts = Vec::with_capacity(sample.len());
    let ran: Result<(), AuditError> = std::thread::scope(|scope| {
        // On a thread of its own, so that the CPUs it keeps to for the executor are not the caller's from then on.
        scope
            .spawn(|| {
                let options = on_slot(options, config.cpus.as_ref());
                for &at in &sample {
                    if config.cancel.is_some_and(|flag| flag.load(Ordering::SeqCst)) {
                        break;
                    }
                    let attempt = &plan.attempts()[done[at].index];
                    let rerun_dir = dir.join("attempts").join(attempt.id.as_str());
                    let mut sessions = HeldSessions::new(SessionMode::Fresh);
                    let (record, _) = crate::runner::run_attempt_in(
                        plan,
                        &rerun_dir,
                        attempt,
                        None,
                        &options,
                        1,
                        &mut sessions,
                        None,
                    )?;
                    sessions.close();
                    let recorded = observe(done[at].entry.outcome, done[at].entry.verdict, done[at].entry.timed_time());
                    let rerun = observe(record.outcome, record.verdict, record.timed_time());
                    let (low, high, repetitions) = cells[&plan.attempt_plan(attempt).cell()];
                    let interval = widen(low, high, repetitions, config.tolerance_percent, config.slack_ns);
                    attempts.push(compare(&attempt.id, recorded, rerun, interval));
                }
                Ok(())
            })
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    });
    ran?;
    if config.cancel.is_some_and(|flag| flag.load(Ordering::SeqCst)) {
        return Err(AuditError::Cancelled { path: dir });
    }
    let audit = Audit {
        format: Format,
        campaign: file.name.as_str().to_owned(),
        repository: shown,
        seed,
        sample: safe(sample.len() as u64),
        done: safe(done.len() as u64),
        tolerance_percent: safe(config.tolerance_percent),
        slack_ns: safe(config.slack_ns),
        started_at: metewand_runtime::attempt::timestamp(started),
        finished_at: metewand_runtime::attempt::timestamp(SystemTime::now()),
        attempts,
    };
    let value = serde_json::to_value(&audit).expect("an audit serializes");
    write_atomically(&dir, AUDIT_FILE, |out| out.write_all(&metewand_protocol::to_canonical_vec(&value)))
        .map_err(|source| AuditError::Io { action: "write", path: dir.join(AUDIT_FILE), source })?;
    Ok(AuditReport { path: dir, audit })
}

/// The workers that changed, as one clause: each with the parts of its identity that differ.
fn describe_workers(changed: &[ChangedWorker]) -> String {
    if changed.is_empty() {
        return "its plan's attempts are not the ones campaign.json lists".to_owned();
    }
    let workers: Vec<String> = changed
        .iter()
        .map(|worker| match worker.parts.is_empty() {
            true => format!("worker {}", worker.worker),
            false => format!("worker {}: {}", worker.worker, worker.parts.join(", ")),
        })
        .collect();
    workers.join("; ")
}

/// The plan's done attempts (judged to the end), in plan order, as the folder's index gives them.
fn done_attempts(plan: &CampaignPlan<'_>, folder: &CampaignFolder) -> Vec<Done> {
    let ids: Vec<&str> = plan.attempts().iter().map(|attempt| attempt.id.as_str()).collect();
    let found: Mutex<Vec<Option<Box<IndexEntry>>>> = Mutex::new((0..ids.len()).map(|_| None).collect());
    crate::index::scan(folder.path(), &ids, Rebuild::To(folder.index()), Check::Records, |slot, entry| {
        if let Found::Record(entry) = entry
            && crate::index::judged(&entry)
        {
            found.lock().unwrap_or_else(|poisoned| poisoned.into_inner())[slot] = Some(entry);
        }
    });
    let found = found.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner());
    found.into_iter().enumerate().filter_map(|(index, entry)| Some(Done { index, entry: entry? })).collect()
}

/// Each cell's fastest and slowest timed attempt among `done`, and how many were timed.
fn cell_times(plan: &CampaignPlan<'_>, done: &[Done]) -> HashMap<Cell, (u64, u64, u64)> {
    let mut cells: HashMap<Cell, (u64, u64, u64)> = HashMap::new();
    for attempt in done {
        let Some(time) = attempt.entry.timed_time() else { continue };
        let cell = plan.attempt_plan(&plan.attempts()[attempt.index]).cell();
        let ns = time.ns();
        let slot = cells.entry(cell).or_insert((ns, ns, 0));
        *slot = (slot.0.min(ns), slot.1.max(ns), slot.2 + 1);
    }
    cells
}

/// A seed from the clock, within the safe integers a record holds.
fn clock_seed() -> SafeUint {
    let nanos = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |since| since.as_nanos());
    safe((nanos as u64) & SafeUint::MAX.get())
}

fn safe(value: u64) -> SafeUint {
    SafeUint::try_from(value).unwrap_or(SafeUint::MAX)
}

/// `k` positions among `done` done attempts, drawn with `seed` (the first `k` steps of a Fisher–Yates shuffle), in the order they
/// run: the order drawn, unless that is the campaign's own (plan order), which is then reversed.
fn draw(done: usize, k: usize, seed: u64) -> Vec<usize> {
    let mut positions: Vec<usize> = (0..done).collect();
    let mut generator = crate::order::SplitMix64::new(seed);
    for i in 0..k {
        let j = i + generator.below(done - i);
        positions.swap(i, j);
    }
    positions.truncate(k);
    if positions.len() > 1 && positions.is_sorted() {
        positions.reverse();
    }
    positions
}

/// The interval of a cell whose timed attempts took `low` to `high` nanoseconds: widened by `percent` of each and by
/// `slack` nanoseconds.
fn widen(low: u64, high: u64, repetitions: u64, percent: u64, slack: u64) -> Interval {
    let scaled = |ns: u64, percent: u64| (u128::from(ns) * u128::from(percent) / 100).min(u128::from(u64::MAX)) as u64;
    let low = scaled(low, 100u64.saturating_sub(percent)).saturating_sub(slack);
    let high = scaled(high, 100 + percent.min(u64::MAX - 100)).saturating_add(slack);
    Interval { low_ns: safe(low), high_ns: safe(high), repetitions: safe(repetitions) }
}

fn observe(outcome: Outcome, verdict: Option<Verdict>, time: Option<metewand_protocol::TimedTime>) -> Observation {
    Observation { outcome, verdict, time_ns: time.map(|time| safe(time.ns())) }
}

/// One re-run held against its record and its cell's interval.
fn compare(id: &AttemptId, recorded: Observation, rerun: Observation, interval: Interval) -> AuditedAttempt {
    let verdict_changed = recorded.outcome != rerun.outcome || recorded.verdict != rerun.verdict;
    let time_outside =
        rerun.time_ns.is_none_or(|ns| ns.get() < interval.low_ns.get() || ns.get() > interval.high_ns.get());
    AuditedAttempt {
        attempt_id: id.clone(),
        folder: format!("attempts/{}", id.as_str()),
        recorded,
        rerun,
        interval,
        verdict_changed,
        time_outside,
    }
}

/// Makes `audits/<id>/attempts/` in the campaign folder, `<id>` the UTC time `started` to the second
/// (`20261206T114704Z`), with `-2`, `-3`... after it when audits start within one second.
fn make_audit_dir(campaign: &Path, started: SystemTime) -> Result<PathBuf, AuditError> {
    let audits = campaign.join(AUDITS_DIR);
    std::fs::create_dir_all(&audits).map_err(|source| AuditError::Io {
        action: "create",
        path: audits.clone(),
        source,
    })?;
    let stamp = metewand_runtime::attempt::timestamp(started);
    let compact: String = stamp.as_str()[..19].chars().filter(|c| *c != '-' && *c != ':').collect();
    for suffix in 1.. {
        let name = if suffix == 1 { format!("{compact}Z") } else { format!("{compact}Z-{suffix}") };
        let dir = audits.join(name);
        match std::fs::create_dir(&dir) {
            Ok(()) => {
                let attempts = dir.join("attempts");
                std::fs::create_dir(&attempts).map_err(|source| AuditError::Io {
                    action: "create",
                    path: attempts,
                    source,
                })?;
                return Ok(dir);
            }
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(source) => return Err(AuditError::Io { action: "create", path: dir, source }),
        }
    }
    unreachable!("some suffix is free")
}

/// `options` on the slot's CPUs of a campaign run `-j 1`, the calling thread moved to the executor's.
fn on_slot(
    options: metewand_runtime::attempt::RunOptions,
    cpus: Option<&SlotPlan>,
) -> metewand_runtime::attempt::RunOptions {
    let Some(cpus) = cpus.filter(|cpus| cpus.is_divided()) else { return options };
    if let Some(executor) = cpus.executor() {
        let _ = executor.apply_to_current_thread();
    }
    options.cpus(cpus.slots()[0].clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same seed draws the same sample, without repeats, and never in the campaign's own order.
    #[test]
    fn a_seed_draws_the_same_sample_in_another_order() {
        let first = draw(10, 4, 7);
        assert_eq!(first, draw(10, 4, 7));
        assert_eq!(first.len(), 4);
        let mut distinct = first.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 4);
        assert_ne!(first, draw(10, 4, 8), "another seed, another sample");
        // Every done attempt drawn: a permutation, never the plan's order.
        for seed in 0..50 {
            assert!(!draw(3, 3, seed).is_sorted(), "seed {seed}");
        }
    }

    /// The interval is the cell's range widened by the percentage of each end and by the slack.
    #[test]
    fn an_interval_is_the_range_widened() {
        let interval = widen(100_000_000, 200_000_000, 3, 50, SLACK_NS);
        assert_eq!(interval.low_ns.get(), 50_000_000 - SLACK_NS);
        assert_eq!(interval.high_ns.get(), 300_000_000 + SLACK_NS);
        assert_eq!(widen(1_000, 2_000, 1, 50, SLACK_NS).low_ns.get(), 0, "never below zero");
        assert_eq!(widen(100, 100, 1, 150, SLACK_NS).low_ns.get(), 0);
    }
}
