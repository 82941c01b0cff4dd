//! The local pool: `-j N` threads, each running one job at a time through the runtime's attempt runner. A job is
//! a dataset's materialization (each distinct key once, before its attempts, up to N at once) or an attempt (only
//! once its key's materialization ended). Attempts of a key whose materialization failed are recorded `failed`
//! with that failure, without a session. Resume is decided before the pool starts, from what the folder holds.

use std::collections::{BTreeMap, VecDeque};
use std::fs;
use std::num::NonZeroUsize;
use std::sync::atomic::Ordering;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use metewand_protocol::common::{Message, WorkerId};
use metewand_protocol::generated::attempt_record::{self as rec, AttemptRecord, Outcome, SessionMode};
use metewand_protocol::strict::SafeUint;
use metewand_runtime::attempt::{
    DatasetMaterialization, DatasetMaterializationOutcome, HeldSessions, RunOptions, remove_tree, write_record,
};
use metewand_runtime::cpus::SlotPlan;

use crate::changes::ProgramCheck;
use crate::error::{ReuseRefusal, RunError};
use crate::folder::{CampaignFolder, Found, read_materialization, write_atomically};
use crate::index::Check;
use crate::plan::{CampaignPlan, PlannedAttempt, PlannedDataset};
use metewand_runtime::exit::Exit;

/// How a campaign runs.
#[derive(Clone, Debug)]
pub struct RunConfig {
    /// How many jobs at once (`-j`).
    pub jobs: NonZeroUsize,
    /// The CPUs of each job's slot and of the executor's own threads ([`SlotPlan::probe`] for `jobs`), or `None`
    /// for every worker to inherit the executor's CPUs.
    pub cpus: Option<SlotPlan>,
    /// Re-run attempts (and materializations) recorded `failed`.
    pub retry_failed: bool,
    /// The programs the workers' commands find now, to hold each done attempt's record against.
    pub programs: ProgramCheck,
    /// Re-run done attempts whose workers ran another program than their commands find now (`--rerun-changed`).
    pub rerun_changed: bool,
    /// Whether an implementation's session serves consecutive attempts of its worker on a slot (`--sessions
    /// reuse`), or each attempt starts its own (the default).
    pub sessions: SessionMode,
    /// The warm-up cycles of each new reused session (see [`HeldSessions::warmup`]), and of each fresh one (see
    /// [`RunOptions::warmup`]).
    pub warmup: u64,
    /// The implementation workers whose sessions are never reused ([`refused_for_reuse`]).
    pub refused: Vec<WorkerId>,
    /// With fresh sessions, whether each slot starts the workers of the attempt it runs next while one runs, on
    /// the executor's CPUs (see [`HeldSessions::ahead_on`]): only where `cpus` keeps any for the executor.
    pub ahead: bool,
    /// How every attempt runs: the state folder holding the dataset store, how workers' processes are kept
    /// together, and the cancel flag (set by a signal handler: no job starts after it, running ones are cancelled
    /// and recorded).
    pub options: RunOptions,
}

/// What a run reports as it goes; every method has an empty default. Called from the pool's threads.
pub trait Observer: Sync {
    /// Before the pool starts: the plan's size, attempts skipped (already terminal), attempts another cell's run
    /// serves ([`PlannedAttempt::shared_with`]), and attempts to run.
    fn begin(&self, _planned: usize, _skipped: usize, _shared: usize, _to_run: usize) {}
    /// Before [`begin`](Observer::begin), when done attempts ran another program than their workers' commands find
    /// now: each change with its number of attempts, and whether they run again (`--rerun-changed`).
    fn programs_changed(&self, _changes: &[(crate::changes::ProgramChange, usize)], _rerun: bool) {}
    /// A dataset's materialization starts.
    fn dataset_started(&self, _plan: &CampaignPlan<'_>, _dataset: &PlannedDataset) {}
    /// A dataset's materialization ended.
    fn dataset_finished(&self, _plan: &CampaignPlan<'_>, _record: &DatasetMaterialization, _elapsed: Duration) {}
    /// An attempt starts.
    fn attempt_started(&self, _plan: &CampaignPlan<'_>, _attempt: &PlannedAttempt) {}
    /// An attempt ended and its record was written.
    fn attempt_finished(
        &self,
        _plan: &CampaignPlan<'_>,
        _attempt: &PlannedAttempt,
        _record: &AttemptRecord,
        _elapsed: Duration,
    ) {
    }
}

/// An observer that reports nothing.
pub struct Silent;
impl Observer for Silent {}

/// How a run ended.
#[derive(Debug, Default)]
pub struct RunSummary {
    /// Attempts in the plan.
    pub planned: usize,
    /// Attempts skipped because they already had a terminal record.
    pub skipped: usize,
    /// Attempts of the plan another cell's attempt serves, never run themselves ([`PlannedAttempt::shared_with`]).
    pub shared: usize,
    /// Attempts recorded by this run.
    pub ran: usize,
    /// Records of this run, by outcome.
    pub by_outcome: BTreeMap<String, usize>,
    /// Failures of the campaign's own I/O (a record that could not be written: a full disk); the run stopped
    /// starting jobs at the first.
    pub errors: Vec<RunError>,
    /// Whether the cancel flag stopped the run.
    pub cancelled: bool,
    /// Attempts of the plan with a record holding a verdict, after the run.
    pub with_verdict: usize,
    /// Attempts of the plan recorded `failed`, after the run.
    pub failed: usize,
}

impl RunSummary {
    /// How `metewand campaign run` ends: cancelled; failed when any attempt failed (or a record could not be
    /// written); success when every planned attempt has a record with a verdict.
    pub fn exit(&self) -> Exit {
        if self.cancelled {
            Exit::Cancelled
        } else if self.failed > 0 || !self.errors.is_empty() || self.with_verdict < self.planned {
            Exit::Failed
        } else {
            Exit::Success
        }
    }
}

#[derive(Clone, Debug)]
enum KeyState {
    Pending,
    Ready,
    Failed(rec::AttemptFailure),
}

struct State {
    to_materialize: VecDeque<u32>,
    materializing: usize,
    ready: VecDeque<u32>,
    pending: Vec<VecDeque<usize>>,
    keys: Vec<KeyState>,
    stop: bool,
}

enum Job {
    Materialize(u32),
    Attempt(usize, Option<rec::AttemptFailure>),
}

struct Pool<'a, 'r> {
    plan: &'a CampaignPlan<'r>,
    folder: &'a CampaignFolder,
    config: &'a RunConfig,
    observer: &'a dyn Observer,
    state: Mutex<State>,
    wake: Condvar,
    summary: Mutex<RunSummary>,
    /// Each implementation's worker identity, by index into [`CampaignPlan::implementations`].
    workers: Vec<Option<WorkerId>>,
}

/// How far into a dataset's pending attempts a slot looks for one its held session can serve.
const PREFER_WITHIN: usize = 1024;

fn cancelled(config: &RunConfig) -> bool {
    config.options.cancel.is_some_and(|flag| flag.load(Ordering::SeqCst))
}

/// Whether an attempt's record ends it for good: any outcome but `cancelled`, and `failed` only without
/// `--retry-failed`.
pub(crate) fn is_terminal(outcome: Outcome, retry_failed: bool) -> bool {
    match outcome {
        Outcome::Cancelled => false,
        Outcome::Failed => !retry_failed,
        _ => true,
    }
}

/// Runs (or resumes) the campaign in `folder`, `config.jobs` jobs at once, then writes the exports.
pub fn run(
    plan: &CampaignPlan<'_>,
    folder: &CampaignFolder,
    config: &RunConfig,
    observer: &dyn Observer,
) -> Result<RunSummary, RunError> {
    let keys = plan.keys().len();
    let mut pending: Vec<VecDeque<usize>> = vec![VecDeque::new(); keys];
    let mut skipped = 0;
    let mut to_run = 0;
    let mut changed_programs: BTreeMap<crate::changes::ProgramChange, usize> = BTreeMap::new();
    let programs = Some(&config.programs);
    for (index, (attempt, held)) in plan.attempts().iter().zip(held(plan, folder, programs)).enumerate() {
        if attempt.shared_with.is_some() {
            // Run once, for the first cell that has it.
            continue;
        }
        for change in &held.changes {
            *changed_programs.entry(change.clone()).or_default() += 1;
        }
        let program_changed = config.rerun_changed && !held.changes.is_empty();
        if !program_changed && held.outcome.is_some_and(|outcome| is_terminal(outcome, config.retry_failed)) {
            skipped += 1;
            continue;
        }
        if held.exists {
            // An unfinished folder, an invalid record, or one to run again: it is removed first.
            let dir = folder.attempt_dir(&attempt.id);
            remove_tree(&dir).map_err(|source| RunError::Remove { path: dir, source })?;
        }
        pending[attempt.key as usize].push_back(index);
        to_run += 1;
    }
    let seed = crate::order::order_seed(plan.name());
    for list in &mut pending {
        *list = crate::order::interleave(plan, list.make_contiguous(), seed).into();
    }
    let mut state = State {
        to_materialize: VecDeque::new(),
        materializing: 0,
        ready: VecDeque::new(),
        pending,
        keys: vec![KeyState::Pending; keys],
        stop: false,
    };
    for key in 0..keys {
        if state.pending[key].is_empty() {
            continue;
        }
        let dataset = &plan.keys()[key];
        match read_materialization(folder.path(), &dataset.key) {
            Some(record) if record.outcome == DatasetMaterializationOutcome::Ok => {
                state.keys[key] = KeyState::Ready;
                state.ready.push_back(key as u32);
            }
            Some(record) if record.outcome == DatasetMaterializationOutcome::Failed && !config.retry_failed => {
                state.keys[key] = KeyState::Failed(shared_failure(&record));
                state.ready.push_back(key as u32);
            }
            _ => state.to_materialize.push_back(key as u32),
        }
    }
    if !changed_programs.is_empty() {
        let changes: Vec<_> = changed_programs.into_iter().collect();
        observer.programs_changed(&changes, config.rerun_changed);
    }
    let shared = plan.shared();
    observer.begin(plan.attempts().len(), skipped, shared, to_run);
    let pool = Pool {
        plan,
        folder,
        config,
        observer,
        state: Mutex::new(state),
        wake: Condvar::new(),
        summary: Mutex::new(RunSummary { planned: plan.attempts().len(), skipped, shared, ..RunSummary::default() }),
        workers: (0..plan.implementations().len() as u32)
            .map(|index| Some(plan.repository().worker(plan.implementation_worker(index))?.identity().clone()))
            .collect(),
    };
    std::thread::scope(|scope| {
        for slot in 0..config.jobs.get() {
            let pool = &pool;
            scope.spawn(move || pool.work(slot));
        }
    });
    let mut summary = pool.summary.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner());
    summary.cancelled = cancelled(config);
    // The exports read every record once; their count is the run's. Only when they cannot be written are the
    // records read again for it.
    let status = crate::export::write_merging(folder).unwrap_or_else(|error| {
        summary.errors.push(RunError::Export(error));
        crate::status::Status::of_plan(folder.path(), plan, Check::Records)
    });
    summary.with_verdict = status.with_verdict;
    summary.failed = status.by_outcome.get("failed").copied().unwrap_or(0);
    Ok(summary)
}

/// What one planned attempt's folder holds, as far as deciding whether to run it goes.
#[derive(Debug, Default)]
pub(crate) struct Held {
    /// The outcome of its valid record.
    pub(crate) outcome: Option<Outcome>,
    /// Whether its folder exists (with or without a record).
    pub(crate) exists: bool,
    /// Its workers that ran another program than their commands find now, when `programs` was given.
    pub(crate) changes: Vec<crate::changes::ProgramChange>,
}

/// What every planned attempt's folder holds, in plan order, read through the index (in parallel), whose parts are
/// merged on the way (the caller holds the folder's lock).
pub(crate) fn held(plan: &CampaignPlan<'_>, folder: &CampaignFolder, programs: Option<&ProgramCheck>) -> Vec<Held> {
    let ids: Vec<&str> = plan.attempts().iter().map(|attempt| attempt.id.as_str()).collect();
    let held: Mutex<Vec<Held>> = Mutex::new((0..ids.len()).map(|_| Held::default()).collect());
    crate::index::scan(
        folder.path(),
        &ids,
        crate::index::Rebuild::Merge(folder.index()),
        Check::Records,
        |slot, found| {
            let made = Held {
                outcome: found.outcome(),
                exists: !matches!(found, Found::Missing),
                changes: match (&found, programs) {
                    (Found::Record(entry), Some(programs)) => programs.changes(plan, entry),
                    _ => Vec::new(),
                },
            };
            held.lock().unwrap_or_else(|poisoned| poisoned.into_inner())[slot] = made;
        },
    );
    held.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The failure recorded for each attempt of a key whose materialization failed: the materialization's own,
/// pointing at its record.
pub(crate) fn shared_failure(record: &DatasetMaterialization) -> rec::AttemptFailure {
    let mut failure = record.failure.clone().unwrap_or_else(|| rec::AttemptFailure {
        code: None,
        details: None,
        kind: rec::FailureKind::ExecutorError,
        message: Message::try_from("the dataset's materialization failed").expect("the message is not empty"),
        phase: None,
        role: None,
    });
    let message = format!(
        "the dataset's materialization, run once for the campaign, failed (datasets/{}.json): {}",
        record.key,
        failure.message.as_str()
    );
    failure.message = Message::try_from(message).unwrap_or(failure.message);
    failure
}

impl Pool<'_, '_> {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The next job. With a held session, an attempt of its worker on any ready dataset, or else the materialization
    /// of a dataset its worker's attempts wait for: the held session serves every attempt of its worker the slot can
    /// give it before another worker's start ends it (one start per worker and slot, not one per dataset). Otherwise
    /// the first ready dataset's first attempt. Each dataset's pending attempts are searched at most
    /// [`PREFER_WITHIN`] ahead.
    fn next(&self, sessions: &HeldSessions) -> Option<Job> {
        let held = sessions.held_worker();
        let mut state = self.lock();
        loop {
            if state.stop || cancelled(self.config) {
                return None;
            }
            if let Some(held) = held {
                // First what the held session serves itself: an attempt of a cell it has not served, the dataset
                // such an attempt waits for; then another repetition of a cell it served (for a new session).
                let anew = |pending: &VecDeque<usize>| self.pending_of(pending, held, Some(sessions));
                if let Some(job) = self.held_attempt(&mut state, anew) {
                    return Some(job);
                }
                let waits = |key: &u32| anew(&state.pending[*key as usize]).is_some();
                if let Some(position) = state.to_materialize.iter().position(waits) {
                    let key = state.to_materialize.remove(position).expect("a position found in the queue");
                    state.materializing += 1;
                    return Some(Job::Materialize(key));
                }
                if let Some(job) = self.held_attempt(&mut state, |pending| self.pending_of(pending, held, None)) {
                    return Some(job);
                }
                let waits = |key: &u32| self.pending_of(&state.pending[*key as usize], held, None).is_some();
                if let Some(position) = state.to_materialize.iter().position(waits) {
                    let key = state.to_materialize.remove(position).expect("a position found in the queue");
                    state.materializing += 1;
                    return Some(Job::Materialize(key));
                }
            }
            if let Some(job) = self.ready_attempt(&mut state) {
                return Some(job);
            }
            if let Some(key) = state.to_materialize.pop_front() {
                state.materializing += 1;
                return Some(Job::Materialize(key));
            }
            if state.materializing == 0 {
                return None;
            }
            // A signal handler cannot notify the condition variable, so the wait wakes now and then to see the
            // cancel flag.
            state = self
                .wake
                .wait_timeout(state, Duration::from_millis(100))
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .0;
        }
    }

    /// Where among `pending` (within [`PREFER_WITHIN`]) the first attempt of `held`'s worker is; with `sessions`,
    /// the first whose cell the session held there has not served (it serves each cell once).
    fn pending_of(&self, pending: &VecDeque<usize>, held: &WorkerId, sessions: Option<&HeldSessions>) -> Option<usize> {
        pending.iter().take(PREFER_WITHIN).position(|&index| {
            let attempt = &self.plan.attempts()[index];
            self.workers.get(attempt.implementation as usize).and_then(Option::as_ref) == Some(held)
                && sessions.is_none_or(|sessions| sessions.serves_anew(&self.plan.attempt_plan(attempt).cell()))
        })
    }

    /// The attempt `find` picks among a ready dataset's pending ones, taken from the queue, if there is one now.
    fn held_attempt(&self, state: &mut State, find: impl Fn(&VecDeque<usize>) -> Option<usize>) -> Option<Job> {
        let (at, position) =
            state.ready.iter().enumerate().find_map(|(at, &key)| Some((at, find(&state.pending[key as usize])?)))?;
        let key = state.ready[at];
        let index = state.pending[key as usize].remove(position)?;
        if state.pending[key as usize].is_empty() {
            state.ready.remove(at);
        }
        Some(Job::Attempt(index, Self::failure_of(state, key)))
    }

    /// An attempt of the first ready dataset, as [`Pool::next`] picks it, if there is one now.
    fn ready_attempt(&self, state: &mut State) -> Option<Job> {
        while let Some(&key) = state.ready.front() {
            let index = state.pending[key as usize].pop_front();
            if state.pending[key as usize].is_empty() {
                state.ready.pop_front();
            }
            let Some(index) = index else { continue };
            return Some(Job::Attempt(index, Self::failure_of(state, key)));
        }
        None
    }

    /// What the attempts of `key` are recorded as failing with, when its materialization failed.
    fn failure_of(state: &State, key: u32) -> Option<rec::AttemptFailure> {
        match &state.keys[key as usize] {
            KeyState::Failed(failure) => Some(failure.clone()),
            _ => None,
        }
    }

    /// The attempt this slot runs after the one it is about to run, taken from the queue now so that its workers
    /// can be started ahead (no other slot takes it): one whose dataset is ready and needs its workers.
    fn reserve(&self) -> Option<Job> {
        let mut state = self.lock();
        if state.stop || cancelled(self.config) {
            return None;
        }
        self.ready_attempt(&mut state)
    }

    fn stop(&self, error: RunError) {
        self.lock().stop = true;
        self.wake.notify_all();
        self.summary.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).errors.push(error);
    }

    fn work(&self, slot: usize) {
        // A fresh session warms up as a new reused one does.
        let mut options = self.config.options.clone().warmup(self.config.warmup);
        let mut sessions = HeldSessions::new(self.config.sessions)
            .warmup(self.config.warmup)
            .refuse(self.config.refused.iter().cloned());
        // Whether the slot starts its next attempt's workers ahead: only on the executor's CPUs, so only where
        // there are some (otherwise nothing is reserved, and no slot keeps an attempt from another).
        let mut ahead = false;
        if let Some(cpus) = self.config.cpus.as_ref().filter(|cpus| cpus.is_divided()) {
            // The slot's workers start on its CPUs; this thread (and the session threads it starts) keep to the
            // executor's, off every slot's where there are CPUs to spare. Where this thread cannot be moved, it
            // stays where it is: only the workers' CPUs count.
            if let Some(executor) = cpus.executor() {
                let _ = executor.apply_to_current_thread();
                if self.config.ahead && self.config.sessions == SessionMode::Fresh {
                    sessions = sessions.ahead_on(executor.clone());
                    ahead = true;
                }
            }
            options = options.cpus(cpus.slots()[slot % cpus.slots().len()].clone());
        }
        let mut reserved: Option<Job> = None;
        loop {
            let job = match reserved.take() {
                // A reserved attempt is run unless the run stops: then the next run runs it.
                Some(_) if self.lock().stop || cancelled(self.config) => break,
                Some(job) => job,
                None => match self.next(&sessions) {
                    Some(job) => job,
                    None => break,
                },
            };
            match job {
                Job::Materialize(key) => self.materialize(key, &options),
                Job::Attempt(index, failure) => {
                    if ahead && failure.is_none() {
                        reserved = self.reserve();
                    }
                    let next = match &reserved {
                        Some(Job::Attempt(next, None)) => Some(*next),
                        _ => None,
                    };
                    self.attempt(index, failure, &options, &mut sessions, next);
                }
            }
        }
        sessions.close();
    }

    fn materialize(&self, key: u32, options: &RunOptions) {
        let dataset = &self.plan.keys()[key as usize];
        let first = self.lock().pending[key as usize].front().copied();
        let finish = |state: KeyState| {
            let mut guard = self.lock();
            guard.materializing -= 1;
            guard.keys[key as usize] = state.clone();
            if !matches!(state, KeyState::Pending) {
                guard.ready.push_back(key);
            }
            drop(guard);
            self.wake.notify_all();
        };
        let Some(first) = first else {
            finish(KeyState::Ready);
            return;
        };
        self.observer.dataset_started(self.plan, dataset);
        let started = Instant::now();
        let written = materialize(self.plan, self.folder, key, first, options);
        let record = match written {
            Ok(record) => record,
            Err(error) => {
                finish(KeyState::Pending);
                self.stop(error);
                return;
            }
        };
        self.observer.dataset_finished(self.plan, &record, started.elapsed());
        finish(match record.outcome {
            DatasetMaterializationOutcome::Ok => KeyState::Ready,
            DatasetMaterializationOutcome::Failed => KeyState::Failed(shared_failure(&record)),
            DatasetMaterializationOutcome::Cancelled => KeyState::Pending,
        });
    }

    fn attempt(
        &self,
        index: usize,
        failure: Option<rec::AttemptFailure>,
        options: &RunOptions,
        sessions: &mut HeldSessions,
        next: Option<usize>,
    ) {
        let attempt = &self.plan.attempts()[index];
        self.observer.attempt_started(self.plan, attempt);
        let started = Instant::now();
        let concurrency = self.config.jobs.get() as u64;
        let next = next.map(|next| &self.plan.attempts()[next]);
        let record = match run_attempt(self.plan, self.folder, attempt, failure, options, concurrency, sessions, next) {
            Ok(record) => record,
            Err(error) => {
                self.stop(error);
                return;
            }
        };
        {
            let mut summary = self.summary.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            summary.ran += 1;
            *summary.by_outcome.entry(record.outcome.to_string()).or_default() += 1;
        }
        self.observer.attempt_finished(self.plan, attempt, &record, started.elapsed());
    }
}

/// A worker the plan would reuse sessions of, refused because its check failed ([`refused_for_reuse`]): its
/// attempts start fresh sessions.
#[derive(Debug)]
pub struct RefusedForReuse {
    /// The worker's name in the repository.
    pub worker: String,
    /// Its resolved identity.
    pub worker_id: WorkerId,
    /// Why, as the check found it.
    pub why: ReuseRefusal,
}

/// Whether starting workers ahead pays with the slots and the executor's CPUs of `plan`, where a run does not say:
/// the default of `campaign run` with fresh sessions. A slot starts its two workers side by side where it has two
/// CPUs and one after the other on one; ahead, every slot's starts share the executor's CPUs instead. They pay, in
/// the model of the paired benchmark (`benches/ahead.py`), where the executor has at least as many CPUs as the
/// slots would start their workers on (two a slot, or one a slot of one CPU): the starts are then no slower than
/// plainly, and what the running attempt does after its timed window hides them. One slot never qualifies, since
/// starting ahead would take a core from it.
pub fn ahead_pays(plan: &SlotPlan) -> bool {
    let (slots, executor) = (plan.slots(), plan.executor());
    let Some(executor) = executor.filter(|_| slots.len() > 1) else {
        return false;
    };
    let starts: usize = slots.iter().map(|slot| slot.len().min(2)).sum();
    executor.len() >= starts
}

/// Whether a run's workers are started ahead of their attempts: as the run asks (`Some`: `--ahead` or
/// `--no-ahead`), or else where it pays ([`ahead_pays`]) for `jobs` slots on this machine's CPUs and nothing is
/// warmed up (a worker started ahead is not). Never for sessions other than fresh ones (a reused session's worker
/// is started once for many attempts) or for slots that share every CPU (`share_cpus`), which leave no executor's
/// CPUs to start workers on.
pub fn starts_ahead(asked: Option<bool>, jobs: usize, sessions: SessionMode, warmup: u64, share_cpus: bool) -> bool {
    if share_cpus || sessions != SessionMode::Fresh {
        return false;
    }
    asked.unwrap_or_else(|| warmup == 0 && SlotPlan::probe(jobs).is_ok_and(|plan| ahead_pays(&plan)))
}

/// The implementation workers of `plan` whose sessions may not be reused. The check is real work, so that nothing a
/// worker sees tells it from the campaign's (DESIGN §24): the first two attempts of the worker's first two cells
/// (in plan order) run through one reused session, exactly as a pool slot would serve them (the same folders of a
/// held session, the same datasets from the run's store, the same seeds and requests), into attempt folders of
/// their own under the state folder `options` names (removed after); the second, served after a `reset`, must
/// succeed where the first did. A worker with a single cell is refused too: a session serves a cell once, so it
/// would never serve a second attempt.
pub fn refused_for_reuse(plan: &CampaignPlan<'_>, options: &RunOptions) -> Vec<RefusedForReuse> {
    let repository = plan.repository();
    let mut workers: Vec<&str> =
        (0..plan.implementations().len() as u32).map(|index| plan.implementation_worker(index)).collect();
    workers.sort_unstable();
    workers.dedup();
    workers
        .into_iter()
        .filter_map(|worker| {
            let why = reuse_check(plan, worker, options).err()?;
            let worker_id = repository.worker(worker)?.identity().clone();
            Some(RefusedForReuse { worker: worker.to_owned(), worker_id, why })
        })
        .collect()
}

/// [`refused_for_reuse`]'s check of `worker`: why its sessions may not be reused, if they may not.
fn reuse_check(plan: &CampaignPlan<'_>, worker: &str, options: &RunOptions) -> Result<(), ReuseRefusal> {
    let mut cells = Vec::new();
    for attempt in plan.attempts().iter().filter(|attempt| plan.implementation_worker(attempt.implementation) == worker)
    {
        let cell = plan.attempt_plan(attempt).cell();
        if cells.iter().all(|(seen, _)| *seen != cell) {
            cells.push((cell, attempt));
        }
        if cells.len() == 2 {
            break;
        }
    }
    let [(_, first), (_, second)] = cells[..] else {
        return Err(ReuseRefusal::OneCell);
    };
    // A first run's state folder may not exist yet: its runs make it, and the check's folders go in it.
    let place = options.state_dir.join(format!(".reuse-check-{}-{worker}", std::process::id()));
    let _ = remove_tree(&place);
    let mut sessions = HeldSessions::new(SessionMode::Reuse);
    let mut records = Vec::new();
    for (name, attempt) in [("first", first), ("second", second)] {
        let folder = place.join(name);
        if let Err(source) = fs::create_dir_all(&folder) {
            let _ = remove_tree(&place);
            return Err(ReuseRefusal::CheckNotRun { path: folder, source });
        }
        records.push(plan.attempt_plan(attempt).run_holding(&folder, options, &mut sessions));
    }
    sessions.close();
    let _ = remove_tree(&place);
    let failed = |record: &AttemptRecord| {
        matches!(record.outcome, Outcome::Failed | Outcome::Cancelled)
            .then(|| record.failure.as_ref().map_or_else(|| "failed".to_owned(), |failure| failure.message.to_string()))
    };
    if let Some(why) = failed(&records[0]) {
        return Err(ReuseRefusal::FirstFailed { why });
    }
    if let Some(why) = failed(&records[1]) {
        return Err(ReuseRefusal::FailedAfterReset { why });
    }
    Ok(())
}

/// Materializes the dataset of key `key` (index into [`CampaignPlan::keys`]) into `datasets/<key>/` of the folder,
/// through the session of attempt `first` (one that needs it), and writes its record `datasets/<key>.json`
/// atomically. The local pool and a Slurm dataset task both materialize through this. The error says that the
/// folder could not be prepared or the record written.
pub(crate) fn materialize(
    plan: &CampaignPlan<'_>,
    folder: &CampaignFolder,
    key: u32,
    first: usize,
    options: &RunOptions,
) -> Result<DatasetMaterialization, RunError> {
    let dataset = &plan.keys()[key as usize];
    let attempt = &plan.attempts()[first];
    let datasets = folder.path().join("datasets");
    let dir = datasets.join(dataset.key.to_string());
    remove_tree(&dir)
        .and_then(|()| fs::create_dir(&dir))
        .map_err(|source| RunError::DatasetFolder { path: dir.clone(), source })?;
    let record = plan.attempt_plan(attempt).materialize_dataset(&dir, options);
    let name = format!("{}.json", dataset.key);
    let value = serde_json::to_value(&record).expect("a materialization record serializes");
    write_atomically(&datasets, &name, |out| out.write_all(&metewand_protocol::to_canonical_vec(&value)))
        .map_err(|source| RunError::DatasetRecord { path: datasets.join(&name), source })?;
    Ok(record)
}

/// Runs `attempt` in its folder `attempts/<id>/` (which must not exist), or records it `failed` with `failure`
/// without a session (its dataset's materialization failed), and writes its record in place, atomically, saying
/// the campaign and `concurrency` it ran under. The local pool and a Slurm attempt task both run attempts through
/// this. The error says that the folder could not be created or the record written (the folder is then left
/// without a record, which the next run removes and runs again). `next`, the attempt run after this one with the same
/// `sessions`, has its workers started meanwhile where `sessions` starts them ahead.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_attempt(
    plan: &CampaignPlan<'_>,
    folder: &CampaignFolder,
    attempt: &PlannedAttempt,
    failure: Option<rec::AttemptFailure>,
    options: &RunOptions,
    concurrency: u64,
    sessions: &mut HeldSessions,
    next: Option<&PlannedAttempt>,
) -> Result<AttemptRecord, RunError> {
    let (record, bytes) =
        run_attempt_in(plan, &folder.attempt_dir(&attempt.id), attempt, failure, options, concurrency, sessions, next)?;
    // The index is a cache of the records: an entry that cannot be written is made again by the next reader.
    let _ = folder.index().record_written(&record, &bytes);
    Ok(record)
}

/// [`run_attempt`] in the attempt folder `dir` (which must not exist) of any folder, its record's bytes returned
/// beside it: what an audit runs its attempts again through, in folders of its own.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_attempt_in(
    plan: &CampaignPlan<'_>,
    dir: &std::path::Path,
    attempt: &PlannedAttempt,
    failure: Option<rec::AttemptFailure>,
    options: &RunOptions,
    concurrency: u64,
    sessions: &mut HeldSessions,
    next: Option<&PlannedAttempt>,
) -> Result<(AttemptRecord, Vec<u8>), RunError> {
    fs::create_dir(dir).map_err(|source| RunError::AttemptFolder { path: dir.to_owned(), source })?;
    let runtime_plan = plan.attempt_plan(attempt);
    let next = next.map(|next| plan.attempt_plan(next));
    let mut record = match failure {
        Some(failure) => runtime_plan.record_without_running(failure, options),
        None => runtime_plan.run_ahead(dir, options, sessions, next.as_ref()),
    };
    record.campaign = Some(rec::Campaign {
        attempt_id: attempt.id.clone(),
        concurrency: SafeUint::try_from(concurrency).unwrap_or(SafeUint::MAX),
        name: plan.definition().name.clone(),
        repetition: SafeUint::try_from(attempt.repetition).unwrap_or(SafeUint::MAX),
    });
    let bytes = write_record(dir, &record)
        .map_err(|source| RunError::AttemptRecord { attempt: attempt.id.as_str().to_owned(), source })?;
    Ok((record, bytes))
}
