//! The fixed-dataset attempt runner: one attempt of an implementation on a dataset and problem, end to end, in the
//! order below, recorded as an [`AttemptRecord`] whatever happens.
//!
//! 1. The dataset comes from the content-addressed store `<state>/datasets/<key>/` when it validates and matches
//!    the executor's record `<key>.published` beside it, or is materialized into a locked staging folder
//!    `datasets/.tmp-<random>/`, validated after its session, recorded, made read-only and renamed into place only
//!    if the key is still absent (a concurrent winner is reused). The entry's folder is held open for the whole
//!    attempt: one evicted or replaced by another run is resolved again before the next session that needs it.
//! 2. The implementation is prepared and executed under the implementation envelope, the evaluator evaluates under
//!    the evaluation envelope; each role runs in its own session, in the store's read-only copy of its source
//!    (`STATE/sources/<key>/`, checked against the source and include trees before each use), with its log in
//!    `logs/<role>.log`. Where Landlock keeps each worker out of the other's folders, the evaluator's session starts
//!    beside the implementation's (the two hellos at once) and is stopped, every process of it, until the
//!    implementation's session has ended; its places must then be as its hello left them.
//! 3. Every session is shut down and its processes reaped **before** anything it wrote is validated. After each
//!    session that received the dataset it is re-verified (a change is `dataset_modified` and evicts it), and the
//!    result is re-verified after the evaluator's session.
//!
//! Every file and folder the runner creates is created exclusively without following links ([`Dir`]), just
//! before the session it is for; an entry found in its place is the invalid output of the last worker that ran.
//!
//! Every event maps to the record's outcome, role, phase and kind by the event table in
//! docs/decisions/the-attempt-records-event-table.md; the first failure ends the attempt and is the one recorded.
//!
//! An attempt runs as stages that pass typed values on, as a runner's steps do: an immutable context
//! (`Attempt` in `run.rs`: the plan, the attempt folder, the state folder's places, the dataset's key and entry,
//! what the workers run under), a journal (`journal.rs`: what the record will say, noted as each stage goes and
//! passed by `&mut`, and turned into the record at the end), and each stage made from the one before it: the
//! folders (`run.rs`), the dataset held (`dataset.rs`), the implementation sealed (`seal.rs`, with `prestart.rs`
//! the evaluator started beside it, `timed.rs` its timed requests and seal, `reuse.rs` reused and `ahead.rs`
//! started-ahead sessions, `profile.rs` a streamed attempt's checkpoints), the evaluator's judgement (`judge.rs`).
//! Every stage fails with the same `Failure` (`failure.rs`), and the first one ends the attempt.
//!
//! Each file uses only those listed before it (and this module's plan): `record.rs` (the record's parts, names
//! and timestamps, and its writing), `source.rs` and `store.rs`; `failure.rs`; `journal.rs`; `run.rs`; `held.rs`
//! (what holds sessions between attempts), `dataset.rs` and `verify.rs` (a sealed result checked again);
//! `prestart.rs` and `profile.rs`; `timed.rs`; `ahead.rs`; `reuse.rs`; `seal.rs`; `judge.rs`.
//!
//! This module holds the plan ([`AttemptPlan`], [`RunOptions`], what the workers' confinement would be) and runs
//! the stages in order (`Attempt::stages`); `store.rs` is the dataset store and `source.rs` the workers' source
//! copies.

mod ahead;
mod dataset;
mod failure;
mod held;
mod journal;
mod judge;
mod prestart;
mod profile;
mod record;
mod reuse;
mod run;
mod seal;
mod timed;
mod verify;

pub(crate) mod source;
pub(crate) mod store;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::Sender;
use std::time::SystemTime;

use metewand_protocol::common::{Capability, Role};
use metewand_protocol::generated::attempt_record as rec;
use metewand_protocol::generated::attempt_record::{AttemptRecord, FailureKind};
use metewand_protocol::strict::SafeUint;

pub use crate::files::{Dir, FsError};
pub use held::{HeldSessions, SESSIONS_DIR};
pub use metewand_protocol::generated::dataset_materialization::{
    DatasetMaterialization, DatasetMaterializationOutcome,
};
pub use record::{
    RECORD_FILE, RECORD_TEMPORARY, canonical_bytes, compact_utc, environment_record, parse_rfc3339, rfc3339, timestamp,
    write_record,
};
pub use source::{SOURCES_DIR, SourceChanges, compare_copy, copy_key, stored_copy, worker_copy_key};
pub use store::{PUBLISHED_SUFFIX, STAGING_PREFIX, remove_tree};

use crate::cpus::CpuSet;
use crate::repository::{Dataset, DefinitionKind, Implementation, Problem, SelectionError, SelectionErrorKind, Worker};
use crate::session::{Confinement, ConfinementReport, KernelSupport, PhaseTimeouts, ProcessIsolation};
use crate::{CheckedRepository, WorkerCommand};
use failure::Failure;
use held::Reuse;
use journal::Journal;
use journal::worker_session;
use record::{log_path, phase_records};
use run::{Attempt, Folders};
use seal::Sealed;

/// Where a dataset's manifest lives in its folder. `prepare` and `evaluate` carry only the dataset folder, so an
/// implementation can find the manifest only at a fixed place: a materializer that names another is invalid.
pub const DATASET_MANIFEST: &str = "dataset-manifest.json";

/// What a plan could not find in the repository; no attempt starts.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// The repository has no such problem, dataset or implementation.
    #[error("the repository has no {kind} named {name:?}{} (it has: {known})", guess(.name, .known))]
    Unknown {
        /// `problem`, `dataset` or `implementation`.
        kind: &'static str,
        /// The name asked for.
        name: String,
        /// The names the repository has, comma-separated.
        known: String,
    },
    /// A selection of grid points that names none.
    #[error("{0}")]
    Selection(SelectionError),
    /// A selection that names several points where an attempt needs one.
    #[error("{kind} {name:?} names {count} points and an attempt needs one: name one, such as {first:?}")]
    Several {
        /// `problem`, `dataset` or `implementation`.
        kind: &'static str,
        /// The selection given.
        name: String,
        /// How many points it names.
        count: usize,
        /// The first of them.
        first: String,
    },
}

/// ` (did you mean "x"?)` when one of the comma-separated `known` names is close to `name`.
pub fn guess(name: &str, known: &str) -> String {
    crate::diagnostic::did_you_mean(name, known.split(", "))
        .map_or_else(String::new, |close| format!(" (did you mean {close:?}?)"))
}

/// One attempt to be run: the problem, dataset and implementation of a checked repository, and the two seeds.
#[derive(Debug)]
pub struct AttemptPlan<'r> {
    repository: &'r CheckedRepository,
    problem: &'r Problem,
    dataset: &'r Dataset,
    implementation: &'r Implementation,
    dataset_seed: SafeUint,
    implementation_seed: SafeUint,
}

/// A campaign's cell: the problem, dataset and its seed, implementation and its seed that an attempt's repetitions
/// share ([`AttemptPlan::cell`]).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cell {
    problem: String,
    dataset: String,
    dataset_seed: SafeUint,
    implementation: String,
    implementation_seed: SafeUint,
}

/// Where an attempt runs and what may stop it.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// The state folder, holding `datasets/` (and, for the CLI's default attempt folders, `attempts/`).
    pub state_dir: PathBuf,
    /// A flag that cancels the attempt once set (a signal handler's): the running worker is ended and the attempt
    /// is recorded as `cancelled`.
    pub cancel: Option<&'static AtomicBool>,
    /// How the workers' processes are kept together: a PID namespace where possible (the default), or the
    /// freezing sweep only.
    pub process_isolation: ProcessIsolation,
    /// Folders hidden from every worker's view besides the repository, the state folder and the attempt folder
    /// (a campaign's folder, with its peers' attempts and its records).
    pub hidden: Vec<PathBuf>,
    /// The CPUs every worker of the attempt starts on (a campaign slot's), or `None` for the executor's own.
    pub cpus: Option<CpuSet>,
    /// The discarded prepare, execute and reset cycles a fresh implementation session runs on the attempt's own
    /// inputs before the timed ones (a reused session's are [`HeldSessions::warmup`]), so that first-call costs
    /// (imports, caches, a JIT) are left out of the time when the benchmark chooses so; recorded as the session's
    /// `warmup`.
    pub warmup: u64,
}

impl RunOptions {
    /// Options for attempts whose state folder is `state_dir`, with nothing to cancel them.
    pub fn new(state_dir: impl Into<PathBuf>) -> RunOptions {
        RunOptions {
            state_dir: state_dir.into(),
            cancel: None,
            process_isolation: ProcessIsolation::default(),
            hidden: Vec::new(),
            cpus: None,
            warmup: 0,
        }
    }

    /// Runs `cycles` discarded cycles in each fresh implementation session before the timed ones (see
    /// [`RunOptions::warmup`]).
    #[must_use]
    pub fn warmup(mut self, cycles: u64) -> RunOptions {
        self.warmup = cycles;
        self
    }

    /// Hides `dir` from every worker's view too.
    #[must_use]
    pub fn hide(mut self, dir: impl Into<PathBuf>) -> RunOptions {
        self.hidden.push(dir.into());
        self
    }

    /// Keeps every worker's processes together as `isolation` says ([`ProcessIsolation::Sweep`] forces the
    /// fallback used where namespaces are refused).
    #[must_use]
    pub fn process_isolation(mut self, isolation: ProcessIsolation) -> RunOptions {
        self.process_isolation = isolation;
        self
    }

    /// Starts every worker on `cpus` ([`SessionConfig::cpus`]).
    #[must_use]
    pub fn cpus(mut self, cpus: CpuSet) -> RunOptions {
        self.cpus = Some(cpus);
        self
    }

    /// Cancels the attempt once `flag` is set.
    #[must_use]
    pub fn cancel_on(mut self, flag: &'static AtomicBool) -> RunOptions {
        self.cancel = Some(flag);
        self
    }
}

impl<'r> AttemptPlan<'r> {
    /// Names the attempt's parts; an unknown name is an error before anything starts.
    pub fn new(
        repository: &'r CheckedRepository,
        problem: &str,
        dataset: &str,
        implementation: &str,
        dataset_seed: SafeUint,
        implementation_seed: SafeUint,
    ) -> Result<AttemptPlan<'r>, PlanError> {
        fn find<'a, T>(
            repository: &CheckedRepository,
            map: &'a std::collections::BTreeMap<String, T>,
            kind: DefinitionKind,
            name: &str,
        ) -> Result<&'a T, PlanError> {
            let points = repository.select(kind, name).map_err(|error| match error.into_kind() {
                SelectionErrorKind::UnknownName { kind, name, known, .. } => PlanError::Unknown { kind, name, known },
                other => PlanError::Selection(other.into()),
            })?;
            match points[..] {
                [point] => Ok(&map[point]),
                _ => Err(PlanError::Several {
                    kind: kind.as_str(),
                    name: name.to_owned(),
                    count: points.len(),
                    first: points.first().map_or_else(String::new, |first| (*first).to_owned()),
                }),
            }
        }
        Ok(AttemptPlan {
            repository,
            problem: find(repository, repository.problems(), DefinitionKind::Problem, problem)?,
            dataset: find(repository, repository.datasets(), DefinitionKind::Dataset, dataset)?,
            implementation: find(
                repository,
                repository.implementations(),
                DefinitionKind::Implementation,
                implementation,
            )?,
            dataset_seed,
            implementation_seed,
        })
    }

    /// The confinement each of the attempt's three workers would run under on this machine, as `kernel` (from
    /// [`KernelSupport::probe`]) offers it, by worker name, in the order materializer, implementation, evaluator.
    /// Where any is not [full](ConfinementReport::is_full), a caller that requires confinement refuses to start the
    /// attempt.
    pub fn expected_confinement(
        &self,
        kernel: &KernelSupport,
        options: &RunOptions,
    ) -> Vec<(String, ConfinementReport)> {
        let workers = [
            (Role::DatasetMaterializer, self.dataset.materializer()),
            (Role::Implementation, self.implementation.worker()),
            (Role::ProblemEvaluator, self.problem.evaluator()),
        ];
        workers
            .into_iter()
            .map(|(_, name)| {
                (name.to_owned(), expected_confinement(self.worker(name), self.repository.limits(), kernel, options))
            })
            .collect()
    }

    /// The capabilities the plan selects for the implementation: `streaming_profile` where the problem has a
    /// `profile` and the implementation declares it, `one_shot` otherwise.
    pub fn selected(&self) -> Capability {
        if self.streams() { Capability::StreamingProfile } else { Capability::OneShot }
    }

    /// Whether the implementation streams: its problem has a `profile` and it declares `streaming_profile`.
    pub fn streams(&self) -> bool {
        self.problem.profile_for(self.implementation).is_some()
    }

    fn worker(&self, name: &str) -> &'r Worker {
        self.repository.worker(name).expect("a checked repository's references resolve")
    }

    /// Runs the attempt in `folder` (an existing, empty folder: the attempt has started) and returns its record,
    /// complete whatever happened. The caller writes it with [`write_record`].
    pub fn run(&self, folder: &Path, options: &RunOptions) -> AttemptRecord {
        self.run_holding(folder, options, &mut HeldSessions::new(rec::SessionMode::Fresh))
    }

    /// Like [`run`](AttemptPlan::run), with the implementation session `sessions` holds for this worker when it
    /// reuses sessions (see [`HeldSessions`]); a session kept for the next attempt is left in `sessions`.
    pub fn run_holding(&self, folder: &Path, options: &RunOptions, sessions: &mut HeldSessions) -> AttemptRecord {
        self.run_telling(folder, options, sessions, None)
    }

    /// [`run_holding`](AttemptPlan::run_holding), telling `timed_over` when the implementation's timed requests
    /// are over (or dropping it with the attempt).
    fn run_telling(
        &self,
        folder: &Path,
        options: &RunOptions,
        sessions: &mut HeldSessions,
        timed_over: Option<Sender<()>>,
    ) -> AttemptRecord {
        let started_at = SystemTime::now();
        let attempt = Attempt::new(self, folder, options, timed_over);
        let mut journal = Journal::new(sessions.failed_ahead());
        let mut reuse = sessions.lend();
        if self.streams() {
            // A streamed attempt runs in fresh sessions: what is held is ended, as another worker's would be.
            if let Some(reuse) = reuse.take() {
                reuse.end();
            }
        }
        let failure = match attempt.folders() {
            Ok(folders) => {
                let failure = attempt.stages(&folders, &mut journal, &mut reuse).err();
                // The record's names are cleared whatever happened; a failure that ended the attempt comes first.
                failure.or(folders.clear_record_names().err())
            }
            Err(failure) => Some(failure),
        };
        sessions.give_back(reuse);
        journal.into_record(self, started_at, failure)
    }
}

impl Attempt<'_, '_> {
    /// The stages after the folders, each from the last one's output: the dataset (reused or materialized), the
    /// implementation's session up to its seal, the evaluator's judgement. The first failure ends the attempt.
    fn stages(&self, folders: &Folders, journal: &mut Journal, reuse: &mut Option<Reuse>) -> Result<(), Failure> {
        let mut dataset = self.obtain_dataset(folders, journal)?;
        self.check_cancel()?;
        let sealed: Sealed = self.seal(folders, &mut dataset, journal, reuse)?;
        self.check_cancel()?;
        self.judge(folders, &mut dataset, sealed, journal, reuse)?;
        // A cancellation that arrived during the last shutdown or the last checks is still honoured.
        self.check_cancel()
    }
}

impl AttemptPlan<'_> {
    /// Obtains the attempt's dataset alone, exactly as [`run`](AttemptPlan::run) would before the implementation
    /// (reused from the store when verified, otherwise materialized and published), in `folder` (an existing,
    /// empty folder for the session's log and source copy). Later attempts of the same key then reuse the entry.
    ///
    /// A campaign records what it did as `datasets/<key>.json` ([`DatasetMaterialization`]).
    pub fn materialize_dataset(&self, folder: &Path, options: &RunOptions) -> DatasetMaterialization {
        let started_at = SystemTime::now();
        let attempt = Attempt::new(self, folder, options, None);
        let mut journal = Journal::default();
        let failure = attempt.folders().and_then(|folders| attempt.obtain_dataset(&folders, &mut journal)).err();
        let plan = self;
        let outcome = match &failure {
            None => DatasetMaterializationOutcome::Ok,
            Some(failure) if failure.kind == FailureKind::Cancelled => DatasetMaterializationOutcome::Cancelled,
            Some(_) => DatasetMaterializationOutcome::Failed,
        };
        DatasetMaterialization {
            format: Default::default(),
            key: attempt.key,
            dataset: plan.dataset.checked_name().clone(),
            seed: plan.dataset_seed,
            outcome,
            reused: journal.reused,
            materializer: worker_session(plan.worker(plan.dataset.materializer()), &journal.materializer),
            files: journal.dataset,
            phases: phase_records(&journal.phases),
            started_at: timestamp(started_at),
            finished_at: timestamp(SystemTime::now()),
            log: journal.logs[0].then(|| log_path(0)),
            failure: failure.map(Failure::into_record),
        }
    }

    /// The record of this attempt when it cannot run because a failure outside it (its dataset's materialization,
    /// run once for a campaign) already decided it: outcome `failed` with that failure, no session run.
    pub fn record_without_running(&self, failure: rec::AttemptFailure, _options: &RunOptions) -> AttemptRecord {
        let started_at = SystemTime::now();
        let mut record = Journal::default().into_record(self, started_at, None);
        record.outcome =
            if failure.kind == FailureKind::Cancelled { rec::Outcome::Cancelled } else { rec::Outcome::Failed };
        record.failure = Some(failure);
        record
    }

    /// The attempt's cell: what its repetitions share (DESIGN §13). A reused session serves a cell at most once, so
    /// that memoizing across repetitions cannot shorten a time.
    pub fn cell(&self) -> Cell {
        Cell {
            problem: self.problem.name().to_owned(),
            dataset: self.dataset.name().to_owned(),
            dataset_seed: self.dataset_seed,
            implementation: self.implementation.name().to_owned(),
            implementation_seed: self.implementation_seed,
        }
    }

    /// The dataset key of the attempt.
    pub fn dataset_key(&self) -> crate::identity::DatasetKey {
        self.dataset.key(self.dataset_seed)
    }
}

/// The confinement `worker` would run under on this machine with `limits`, as `kernel` (from
/// [`KernelSupport::probe`]) offers it, with `options`.
pub fn expected_confinement(
    worker: &Worker,
    limits: crate::Limits,
    kernel: &KernelSupport,
    options: &RunOptions,
) -> ConfinementReport {
    kernel.expected_for(&worker_confinement(worker, limits).process_isolation(options.process_isolation))
}

/// What every session of `worker` is confined by, whichever folders it is then given: its network access, its
/// declared system call groups, the repository's `limits`, and a private view.
pub(crate) fn worker_confinement(worker: &Worker, limits: crate::Limits) -> Confinement {
    Confinement::new().network(worker.network()).syscalls(worker.syscalls()).limits(limits).private_view()
}

/// Each way `reports` fall short of full confinement, once, in the order found: what a caller warns about, or
/// refuses to start over when it requires confinement.
pub fn confinement_shortfalls<'a>(reports: impl IntoIterator<Item = &'a ConfinementReport>) -> Vec<&'static str> {
    let mut missing: Vec<&'static str> = Vec::new();
    for report in reports {
        for weakness in report.weaknesses() {
            if !missing.contains(&weakness) {
                missing.push(weakness);
            }
        }
    }
    missing
}

/// The phase limits a repository's workers run under: its `[timeouts]` over the documented defaults.
pub fn phase_timeouts(repository: &CheckedRepository) -> PhaseTimeouts {
    let mut timeouts = PhaseTimeouts::documented_defaults();
    for (&method, &limit) in repository.timeouts() {
        *timeouts.limit_mut(method) = limit;
    }
    timeouts
}

/// The program a command worker's adapter is: set by the program that runs attempts (the `metewand` executable
/// itself), else `METEWAND_ADAPTER`, else `metewand` found on `PATH`.
static ADAPTER_PROGRAM: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// Sets the program that serves command workers (`metewand adapter`); the first call wins.
pub fn set_adapter_program(program: PathBuf) {
    let _ = ADAPTER_PROGRAM.set(program);
}

/// The program that serves command workers, as [`set_adapter_program`] set it: what a command worker's session
/// runs, and so the program its records name.
pub fn adapter_program() -> std::ffi::OsString {
    ADAPTER_PROGRAM
        .get()
        .map(|program| program.as_os_str().to_owned())
        .or_else(|| std::env::var_os("METEWAND_ADAPTER"))
        .unwrap_or_else(|| "metewand".into())
}

/// A repository worker's command, run in `source` (its private copy of the source) with `TMPDIR` (when given) and
/// then its declared environment, which may set it otherwise. A command worker's is the adapter's, serving its role
/// and running the declared command per request.
///
/// With `environment` (the `venv/` of the environment the worker declares), its `bin/` comes first on the worker's
/// `PATH`, so that the worker's `python3` is the environment's.
pub(crate) fn worker_command(
    worker: &Worker,
    source: &Path,
    tmpdir: Option<&Path>,
    environment: Option<&Path>,
) -> WorkerCommand {
    let expanded = worker.expanded_command();
    let mut command = if worker.command_adapter() {
        let role = worker.role().to_string();
        let mut adapter = WorkerCommand::new(adapter_program(), source).args(["adapter", "--role", &role]);
        if let Some(file) = worker.result_data() {
            adapter = adapter.args(["--result-data", file]);
        }
        adapter.arg("--").args(expanded.iter().cloned())
    } else {
        WorkerCommand::new(expanded[0].clone(), source).args(expanded[1..].iter().cloned())
    };
    if let Some(tmpdir) = tmpdir {
        command = command.env("TMPDIR", tmpdir);
    }
    for (name, value) in worker.expanded_env() {
        command = command.env(name, value);
    }
    if let Some(venv) = environment {
        let path = command.environment().remove(std::ffi::OsStr::new("PATH")).unwrap_or_default();
        let mut joined = venv.join("bin").into_os_string();
        if !path.is_empty() {
            joined.push(":");
            joined.push(path);
        }
        command = command.env("PATH", joined);
    }
    command
}

/// Creates a new attempt folder `<state>/attempts/<UTC time>-<random>/`, exclusively.
pub fn create_attempt_folder(state_dir: &Path) -> io::Result<PathBuf> {
    let attempts = state_dir.join("attempts");
    fs::create_dir_all(&attempts)?;
    loop {
        let path = attempts.join(format!("{}-{}", compact_utc(SystemTime::now()), store::random_hex(4)?));
        match fs::create_dir(&path) {
            Ok(()) => return Ok(path),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(error) => return Err(error),
        }
    }
}
