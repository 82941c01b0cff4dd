//! The fixed-dataset attempt runner: one attempt of an implementation on a dataset and problem, end to end, in the
//! order below, recorded as an [`AttemptRecord`] whatever happens.
//!
//! 1. The dataset comes from the content-addressed store `<state>/datasets/<key>/` when it validates and matches
//!    the executor's record `<key>.published` beside it, or is materialized into a locked staging folder
//!    `datasets/.tmp-<random>/`, validated after its session, recorded, made read-only and renamed into place only
//!    if the key is still absent (a concurrent winner is reused). The entry's folder is held open for the whole
//!    attempt: one evicted or replaced by another run is resolved again before the next session that needs it.
//! 2. The implementation is prepared and executed under the implementation envelope, the evaluator evaluates under
//!    the evaluation envelope; each role runs in its own session, from a fresh private copy of its source
//!    (`work/source-<role>/`, checked against the source tree digest), with its log in `logs/<role>.log`.
//! 3. Every session is shut down and its processes reaped **before** anything it wrote is validated. After each
//!    session that received the dataset it is re-verified (a change is `dataset_modified` and evicts it), and the
//!    result is re-verified after the evaluator's session.
//!
//! Every file and folder the runner creates is created exclusively without following links ([`Dir`]), just
//! before the session it is for; an entry found in its place is the invalid output of the last worker that ran.
//!
//! Every event maps to the record's outcome, role, phase and kind by the event table in ARCHITECTURE.md; the
//! first failure ends the attempt and is the one recorded.

mod record;
pub(crate) mod store;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Instant, SystemTime};

use metewand_protocol::generated::attempt_record as rec;
use metewand_protocol::generated::attempt_record::{AttemptRecord, FailureKind};
use metewand_protocol::handshake::Handshake;
use metewand_protocol::messages::{Role, Verdict, WorkerId};
use metewand_protocol::strict::{JsonObject, SafeUint};
use serde::Serialize;
use serde::de::DeserializeOwned;

pub use crate::files::{Dir, FsError};
pub use record::{RECORD_FILE, RECORD_TEMPORARY, canonical_bytes, compact_utc, parse_rfc3339, rfc3339, write_record};
pub use store::{PUBLISHED_SUFFIX, Published, PublishedFile, STAGING_PREFIX, remove_tree};

use crate::cpus::{CpuPlacement, CpuSet};
use crate::protocol::Method;
use crate::repository::{Dataset, Implementation, Problem, Worker};
use crate::session::{
    CapabilityConfinement, Confinement, ConfinementReport, EvaluateParams, ExecuteParams, FilesystemConfinement,
    IpcConfinement, KernelSupport, LimitMechanism, LimitReport, MaterializeParams, MountConfinement,
    NetworkConfinement, PhaseTimeouts, PhaseTiming, PrepareParams, ProcessConfinement, ProcessIsolation, Resources,
    SessionError, SessionErrorKind, SignalConfinement,
};
use crate::validate::{ValidatedDataset, ValidatedFile, ValidatedResult, ValidationError};
use crate::{CheckedRepository, SessionConfig, WorkerCommand, WorkerOutputValidator};

/// Where a dataset's manifest lives in its folder. `prepare` and `evaluate` carry only the dataset folder, so an
/// implementation can find the manifest only at a fixed place: a materializer that names another is invalid.
pub const DATASET_MANIFEST: &str = "dataset-manifest.json";

/// What a plan could not find in the repository; no attempt starts.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// The repository has no such problem, dataset or implementation.
    #[error("the repository has no {kind} named {name:?} (it has: {known})")]
    Unknown {
        /// `problem`, `dataset` or `implementation`.
        kind: &'static str,
        /// The name asked for.
        name: String,
        /// The names the repository has, comma-separated.
        known: String,
    },
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
        }
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
            map: &'a std::collections::BTreeMap<String, T>,
            kind: &'static str,
            name: &str,
        ) -> Result<&'a T, PlanError> {
            map.get(name).ok_or_else(|| PlanError::Unknown {
                kind,
                name: name.to_owned(),
                known: map.keys().cloned().collect::<Vec<_>>().join(", "),
            })
        }
        Ok(AttemptPlan {
            repository,
            problem: find(repository.problems(), "problem", problem)?,
            dataset: find(repository.datasets(), "dataset", dataset)?,
            implementation: find(repository.implementations(), "implementation", implementation)?,
            dataset_seed,
            implementation_seed,
        })
    }

    /// The confinement each of the attempt's three workers would run under on this machine, as `kernel` (from
    /// [`KernelSupport::probe`]) offers it, in the order materializer, implementation, evaluator. Where any is not
    /// [full](ConfinementReport::is_full), a caller that requires confinement refuses to start the attempt.
    pub fn expected_confinement(&self, kernel: &KernelSupport, options: &RunOptions) -> Vec<(Role, ConfinementReport)> {
        let workers = [
            (Role::DatasetMaterializer, self.dataset.materializer()),
            (Role::Implementation, self.implementation.worker()),
            (Role::ProblemEvaluator, self.problem.evaluator()),
        ];
        workers
            .into_iter()
            .map(|(role, name)| (role, expected_confinement(self.worker(name), kernel, options)))
            .collect()
    }

    fn worker(&self, name: &str) -> &'r Worker {
        self.repository.worker(name).expect("a checked repository's references resolve")
    }

    /// Runs the attempt in `folder` (an existing, empty folder: the attempt has started) and returns its record,
    /// complete whatever happened. The caller writes it with [`write_record`].
    pub fn run(&self, folder: &Path, options: &RunOptions) -> AttemptRecord {
        let started_at = SystemTime::now();
        let mut run = Run::new(self, folder, options);
        if let Err(failure) = run.steps() {
            run.failure = Some(failure);
        }
        if let Err(failure) = run.clear_record_names() {
            run.failure.get_or_insert(failure);
        }
        run.into_record(started_at)
    }
}

/// How materializing a dataset alone ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MaterializationOutcome {
    /// The dataset is in the store, verified (reused or materialized).
    Ok,
    /// The materialization failed; `failure` says how.
    Failed,
    /// It was cancelled.
    Cancelled,
}

/// What [`AttemptPlan::materialize_dataset`] did: the dataset of one key obtained alone, before the attempts that
/// need it (a campaign records it as `datasets/<key>.json`).
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct DatasetMaterialization {
    /// The dataset key.
    pub key: String,
    /// The dataset's name.
    pub dataset: String,
    /// Its seed.
    pub seed: SafeUint,
    /// How it ended.
    pub outcome: MaterializationOutcome,
    /// What failed, if it did not end `ok`.
    pub failure: Option<rec::Failure>,
    /// Whether a verified store entry was reused (null if the store was never reached).
    pub reused: Option<bool>,
    /// The materializer's identity and what its session reported.
    pub materializer: rec::WorkerSession,
    /// The dataset's files, once validated.
    pub files: Option<rec::FileRecords>,
    /// One entry per request sent to the materializer.
    pub phases: Vec<rec::PhaseRecord>,
    /// When it started and finished.
    pub started_at: rec::Timestamp,
    /// When it finished.
    pub finished_at: rec::Timestamp,
    /// The materializer's log, relative to the folder it ran in, if its session started.
    pub log: Option<String>,
}

impl AttemptPlan<'_> {
    /// Obtains the attempt's dataset alone, exactly as [`run`](AttemptPlan::run) would before the implementation
    /// (reused from the store when verified, otherwise materialized and published), in `folder` (an existing,
    /// empty folder for the session's log and source copy). Later attempts of the same key then reuse the entry.
    pub fn materialize_dataset(&self, folder: &Path, options: &RunOptions) -> DatasetMaterialization {
        let started_at = SystemTime::now();
        let mut run = Run::new(self, folder, options);
        if let Err(failure) = run.dataset_steps() {
            run.failure = Some(failure);
        }
        let plan = self;
        let outcome = match &run.failure {
            None => MaterializationOutcome::Ok,
            Some(failure) if failure.kind == FailureKind::Cancelled => MaterializationOutcome::Cancelled,
            Some(_) => MaterializationOutcome::Failed,
        };
        DatasetMaterialization {
            key: run.key.clone(),
            dataset: plan.dataset.name().to_owned(),
            seed: plan.dataset_seed,
            outcome,
            reused: run.reused,
            materializer: worker_session(plan.worker(plan.dataset.materializer()), &run.materializer),
            files: run.dataset.as_ref().map(|dataset| file_records(dataset.files())),
            phases: phase_records(&run.phases),
            started_at: record::timestamp(started_at),
            finished_at: record::timestamp(SystemTime::now()),
            log: run.logs[0].then(|| LOG_PATHS[0].to_owned()),
            failure: run.failure.map(Failure::into_record),
        }
    }

    /// The record of this attempt when it cannot run because a failure outside it (its dataset's materialization,
    /// run once for a campaign) already decided it: outcome `failed` with that failure, no session run.
    pub fn record_without_running(&self, failure: rec::Failure, options: &RunOptions) -> AttemptRecord {
        let started_at = SystemTime::now();
        let mut record = Run::new(self, Path::new("."), options).into_record(started_at);
        record.outcome =
            if failure.kind == FailureKind::Cancelled { rec::Outcome::Cancelled } else { rec::Outcome::Failed };
        record.failure = Some(failure);
        record
    }

    /// The dataset key of the attempt.
    pub fn dataset_key(&self) -> crate::identity::DatasetKey {
        self.dataset.key(self.dataset_seed)
    }
}

/// The confinement `worker` would run under on this machine, as `kernel` (from [`KernelSupport::probe`]) offers
/// it, with `options`.
pub fn expected_confinement(worker: &Worker, kernel: &KernelSupport, options: &RunOptions) -> ConfinementReport {
    kernel.expected_with(worker.network(), options.process_isolation)
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

/// A repository worker's command, run in `source` (its private copy of the source) with `TMPDIR` (when given) and
/// then its declared environment, which may set it otherwise.
pub(crate) fn worker_command(worker: &Worker, source: &Path, tmpdir: Option<&Path>) -> WorkerCommand {
    let expanded = worker.expanded_command();
    let mut command = WorkerCommand::new(expanded[0].clone(), source).args(expanded[1..].iter().cloned());
    if let Some(tmpdir) = tmpdir {
        command = command.env("TMPDIR", tmpdir);
    }
    for (name, value) in worker.expanded_env() {
        command = command.env(name, value);
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

/// What ended an attempt, before it becomes the record's `failure`.
#[derive(Debug)]
struct Failure {
    role: Option<Role>,
    phase: Option<Method>,
    kind: FailureKind,
    message: String,
    code: Option<String>,
    details: Option<JsonObject>,
}

impl Failure {
    fn new(role: Option<Role>, phase: Option<Method>, kind: FailureKind, message: String) -> Failure {
        Failure { role, phase, kind, message, code: None, details: None }
    }

    fn executor(action: &str, error: impl std::fmt::Display) -> Failure {
        Failure::new(None, None, FailureKind::ExecutorError, format!("the executor failed {action}: {error}"))
    }

    /// A validation the cancel flag ended: the attempt is cancelled, with no role or phase (no session runs while
    /// the executor validates).
    fn cancelled(error: &ValidationError) -> Option<Failure> {
        error.is_cancelled().then(|| {
            let message = format!("the attempt was cancelled while the {} output was validated", error.artifact());
            Failure::new(None, None, FailureKind::Cancelled, message)
        })
    }

    fn into_record(self) -> rec::Failure {
        rec::Failure {
            code: self.code.as_deref().map(parse),
            details: self.details,
            kind: self.kind,
            message: parse(&one_line(&self.message)),
            phase: self.phase.map(|phase| parse(phase.as_str())),
            role: self.role.map(|role| parse(&role.to_string())),
        }
    }

    fn session(error: &SessionError) -> Failure {
        let kind = error.failure_kind().unwrap_or(FailureKind::ExecutorError);
        let message = format!("{} worker failed in {}: {}", error.role(), error.phase(), error.kind());
        let mut failure = Failure::new(Some(error.role()), Some(error.phase()), kind, message);
        if let SessionErrorKind::WorkerFailure { code, details, .. } = error.kind() {
            failure.code = Some(code.to_string());
            failure.details = details.clone();
        }
        failure
    }

    fn output(role: Role, phase: Method, error: &ValidationError) -> Failure {
        if let Some(cancelled) = Failure::cancelled(error) {
            return cancelled;
        }
        if error.is_io_error() {
            return Failure::executor("reading worker output", error);
        }
        let message = format!("{role} worker's output is invalid: {error}");
        Failure::new(Some(role), Some(phase), FailureKind::InvalidOutput, message)
    }
}

/// A session's private `TMPDIR`, `work/tmp-<role>/`, made with its places: removed once the session has ended,
/// however it ended, so that an attempt folder keeps none of a worker's temporary files (however large, or nested
/// deeper than a path can name). After a session that succeeded, [`Tmpdir::remove`] removes it and a failure to do
/// so is the attempt's; when this is dropped instead, a failure already ends the attempt and is the one recorded.
struct Tmpdir(Option<PathBuf>);

impl Tmpdir {
    fn remove(mut self) -> Result<(), Failure> {
        let Some(path) = self.0.take() else { return Ok(()) };
        remove_tree(&path).map_err(|source| {
            Failure::executor("removing a worker's temporary folder", FsError::Io { action: "remove", path, source })
        })
    }
}

impl Drop for Tmpdir {
    fn drop(&mut self) {
        if let Some(path) = self.0.take() {
            let _ = remove_tree(&path);
        }
    }
}

/// What a session left for the record: once its handshake completed, the worker's report (capabilities, SDK).
#[derive(Debug, Default)]
struct Seen {
    handshake: Option<Handshake>,
    confinement: Option<ConfinementReport>,
    cpus: Option<CpuPlacement>,
    resources: Option<Resources>,
}

/// The attempt in progress.
struct Run<'p, 'r> {
    plan: &'p AttemptPlan<'r>,
    folder: PathBuf,
    /// The attempt folder and its `logs/` and `work/`, held from their creation.
    root: Option<Dir>,
    logs_dir: Option<Dir>,
    work_dir: Option<Dir>,
    datasets: PathBuf,
    store: Option<store::Store>,
    key: String,
    entry: PathBuf,
    /// The store entry this attempt verified and uses, held open so its eviction or replacement shows.
    entry_dir: Option<Dir>,
    /// The entry's `.published` record, as first resolved.
    published: Option<Published>,
    /// How many materializer sessions this attempt ran.
    materializations: u32,
    /// The last worker that ran in this attempt and its last scientific request: the only one that can have left
    /// something where the executor is about to create its own entries.
    last_worker: Option<(Role, Method)>,
    cancel: Option<&'static AtomicBool>,
    process_isolation: ProcessIsolation,
    cpus: Option<CpuSet>,
    /// What every worker's private view hides besides the repository: the state folder, the attempt folder and
    /// the options' folders.
    hidden: Vec<PathBuf>,
    failure: Option<Failure>,
    phases: Vec<PhaseTiming>,
    reused: Option<bool>,
    dataset: Option<ValidatedDataset>,
    materializer: Seen,
    implementation: Seen,
    evaluator: Seen,
    implementation_time_ns: Option<SafeUint>,
    statistics: Option<JsonObject>,
    result: Option<ValidatedResult>,
    verdict: Option<Verdict>,
    metrics: Option<JsonObject>,
    logs: [bool; 3],
}

impl<'p, 'r> Run<'p, 'r> {
    fn new(plan: &'p AttemptPlan<'r>, folder: &Path, options: &RunOptions) -> Run<'p, 'r> {
        let folder = std::path::absolute(folder).unwrap_or_else(|_| folder.to_owned());
        let state = std::path::absolute(&options.state_dir).unwrap_or_else(|_| options.state_dir.clone());
        let datasets = state.join("datasets");
        let key = plan.dataset.key(plan.dataset_seed).as_str().to_owned();
        let entry = datasets.join(&key);
        let hidden = [state.clone(), folder.clone()].into_iter().chain(options.hidden.iter().cloned()).collect();
        Run {
            plan,
            folder,
            root: None,
            logs_dir: None,
            work_dir: None,
            datasets,
            store: None,
            key,
            entry,
            entry_dir: None,
            published: None,
            materializations: 0,
            last_worker: None,
            cancel: options.cancel,
            process_isolation: options.process_isolation,
            cpus: options.cpus.clone(),
            hidden,
            failure: None,
            phases: Vec::new(),
            reused: None,
            dataset: None,
            materializer: Seen::default(),
            implementation: Seen::default(),
            evaluator: Seen::default(),
            implementation_time_ns: None,
            statistics: None,
            result: None,
            verdict: None,
            metrics: None,
            logs: [false; 3],
        }
    }

    fn steps(&mut self) -> Result<(), Failure> {
        self.dataset_steps()?;
        self.check_cancel()?;
        self.run_implementation()?;
        self.check_cancel()?;
        self.run_evaluator()?;
        // A cancellation that arrived during the last shutdown or the last checks is still honoured.
        self.check_cancel()
    }

    /// The attempt's folders, the store, and the dataset (reused or materialized).
    fn dataset_steps(&mut self) -> Result<(), Failure> {
        self.check_cancel()?;
        // No worker has run yet: whatever is in the way of the executor's own folders is the executor's problem.
        let root = Dir::open(&self.folder).map_err(|e| Failure::executor("opening the attempt folder", e))?;
        self.logs_dir =
            Some(root.create_dir("logs").map_err(|e| Failure::executor("creating the attempt folders", e))?);
        self.work_dir =
            Some(root.create_dir("work").map_err(|e| Failure::executor("creating the attempt folders", e))?);
        self.root = Some(root);
        let store = store::Store::open(&self.datasets, self.cancel)
            .map_err(|e| self.store_failure("opening the dataset store", e))?;
        self.store = Some(store);
        store::clean_leftovers(&self.datasets).map_err(|e| Failure::executor("cleaning the dataset store", e))?;
        self.obtain_dataset()
    }

    /// After the last session: the record's names in the attempt folder must be free for `write_record`. Any
    /// worker of the attempt could have put something there, so it is an executor error naming the path (not
    /// blamed on a worker), and the entry is removed (never followed) so that the record can still be written.
    fn clear_record_names(&mut self) -> Result<(), Failure> {
        let Some(root) = &self.root else { return Ok(()) };
        let mut first = None;
        for name in [RECORD_TEMPORARY, RECORD_FILE] {
            let Ok(Some(found)) = root.entry(name) else { continue };
            let path = root.join(name);
            let removed = if found == "folder" { remove_tree(&path) } else { Ok(()) }
                .map_err(|source| FsError::Io { action: "remove", path: path.clone(), source })
                .and_then(|()| root.remove_file(name));
            let error = match removed {
                Ok(()) => FsError::Unexpected { path, found },
                Err(error) => error,
            };
            first.get_or_insert(Failure::executor("writing the attempt record", error));
        }
        first.map_or(Ok(()), Err)
    }

    fn check_cancel(&self) -> Result<(), Failure> {
        if self.cancel.is_some_and(|flag| flag.load(Ordering::SeqCst)) {
            return Err(Failure::new(None, None, FailureKind::Cancelled, "the attempt was cancelled".to_owned()));
        }
        Ok(())
    }

    fn validator(&self) -> WorkerOutputValidator<'r> {
        let validator = WorkerOutputValidator::new(self.plan.repository);
        match self.cancel {
            Some(flag) => validator.with_cancel(flag),
            None => validator,
        }
    }

    fn path(&self, path: &Path) -> Result<crate::protocol::messages::Path, Failure> {
        let text = path.to_str().ok_or_else(|| Failure::executor("naming a folder", "the path is not UTF-8"))?;
        crate::protocol::messages::Path::try_from(text.to_owned())
            .map_err(|e| Failure::executor("naming a folder", e.to_string()))
    }

    fn store(&self) -> &store::Store {
        self.store.as_ref().expect("the store is opened before any dataset step")
    }

    fn store_failure(&self, action: &str, error: store::StoreError) -> Failure {
        match error {
            store::StoreError::Cancelled => {
                Failure::new(None, None, FailureKind::Cancelled, "the attempt was cancelled".to_owned())
            }
            error => Failure::executor(action, error),
        }
    }

    /// Makes sure nothing is in the way of what the executor is about to create for `role`'s session (its log and
    /// source copy, and its `TMPDIR` and output folder, which are created here): the attempt's `logs/` and `work/`
    /// must still be the folders the executor made, and the places must be empty. Only a worker of this attempt
    /// that already ran can have put something there (no worker runs while this is checked), so an unexpected entry
    /// is that worker's invalid output, attributed to its last scientific request; before any worker ran it is an
    /// executor error. Returns the `TMPDIR`, which goes when the session has ended.
    fn prepare_places(&mut self, role: Role) -> Result<Tmpdir, Failure> {
        let (Some(logs), Some(work)) = (&self.logs_dir, &self.work_dir) else {
            return Err(Failure::executor("preparing a session", "the attempt folders were not created"));
        };
        for (dir, name) in [(logs, "logs"), (work, "work")] {
            if !dir.is_at(&self.folder.join(name)) {
                let found = Dir::open(&self.folder.join(name)).err().map_or("folder", |error| match error {
                    FsError::Unexpected { found, .. } => found,
                    FsError::Io { .. } => "entry",
                });
                return Err(self.unexpected(FsError::Unexpected { path: self.folder.join(name), found }));
            }
        }
        let checked = logs
            .expect_absent(&format!("{role}.log"))
            .and_then(|()| work.expect_absent(&format!("source-{role}")))
            .and_then(|()| work.create_dir(&format!("tmp-{role}")));
        let tmpdir = Tmpdir(Some(checked.map_err(|error| self.unexpected(error))?.path().to_owned()));
        let output = match role {
            Role::Implementation => work.create_dir("result").map(drop),
            Role::ProblemEvaluator => work.create_dir("metrics").map(drop),
            Role::DatasetMaterializer => Ok(()),
        };
        output.map_err(|error| self.unexpected(error))?;
        Ok(tmpdir)
    }

    /// An entry found where the executor creates its own, blamed as [`prepare_places`](Run::prepare_places) says.
    fn unexpected(&self, error: FsError) -> Failure {
        match (&error, self.last_worker) {
            (FsError::Unexpected { .. }, Some((role, phase))) => Failure::new(
                Some(role),
                Some(phase),
                FailureKind::InvalidOutput,
                format!("{role} worker's output is invalid: it left an {error}"),
            ),
            _ => Failure::executor("preparing a session", error),
        }
    }

    /// A session's configuration: a fresh private copy of the worker's source as its working directory, the
    /// repository's phase limits over the documented defaults, and the log `logs/<role>.log`.
    ///
    /// The worker is confined: it may write only `output` and its private `work/tmp-<role>/` (its `TMPDIR`), TCP
    /// only if it declares `network = true`, and no file larger than `[limits] output_bytes`; its private view
    /// hides the repository, the state folder and the attempt folder but for those two folders, its source copy
    /// and what its requests name.
    fn session_config(
        &mut self,
        worker: &Worker,
        role: Role,
        output: &Path,
    ) -> Result<(SessionConfig, PathBuf, Tmpdir), Failure> {
        let tmpdir = self.prepare_places(role)?;
        let tmp = self.folder.join("work").join(format!("tmp-{role}"));
        let source = self.folder.join("work").join(format!("source-{role}"));
        if let Err(error) = store::copy_source(self.plan.repository, worker, &source) {
            // Nothing half-copied is left: on a full disk this also frees the room the record needs.
            let _ = remove_tree(&source);
            return Err(Failure::executor("copying the worker's source", error));
        }
        let timeouts = phase_timeouts(self.plan.repository);
        let command = worker_command(worker, &source, Some(&tmp));
        let worker_id = WorkerId::try_from(worker.identity().as_str())
            .map_err(|e| Failure::executor("naming the worker", e.to_string()))?;
        let index = role_index(role);
        self.logs[index] = true;
        let log = self.folder.join(LOG_PATHS[index]);
        let mut confinement = Confinement::new()
            .writable(output)
            .writable(&tmp)
            .network(worker.network())
            .limits(self.plan.repository.limits())
            .process_isolation(self.process_isolation)
            .private_view();
        // The repository is hidden but for what the worker's command and environment name there; the state, the
        // attempt and the options' folders are hidden but for what this session's requests name.
        confinement = confinement.hide_unless_named(self.plan.repository.root());
        for hidden in &self.hidden {
            confinement = confinement.hide(hidden);
        }
        // What the role's requests name, read-only; its source copy is its working directory, shown too. An
        // implementation's dataset only once its hello is answered: nothing it does before can use its inputs.
        match role {
            Role::DatasetMaterializer => {}
            Role::Implementation => confinement = confinement.readable_after_hello(&self.entry),
            Role::ProblemEvaluator => {
                confinement = confinement.readable(&self.entry).readable(self.folder.join("work/result"));
            }
        }
        let mut config = SessionConfig::new(command, worker_id, timeouts, log).confine(confinement);
        if let Some(flag) = self.cancel {
            config = config.cancel_flag(flag);
        }
        if let Some(cpus) = &self.cpus {
            config = config.cpus(cpus.clone());
        }
        Ok((config, source, tmpdir))
    }

    /// The dataset, reused from the store when an entry validates and matches its `.published` record, otherwise
    /// materialized and published. A concurrent run publishing the key first, or an entry replaced while it was
    /// being verified, starts the resolution again (a few rounds at most).
    fn obtain_dataset(&mut self) -> Result<(), Failure> {
        for _ in 0..3 {
            if self.reuse_stored()? {
                self.reused.get_or_insert(self.materializations == 0);
                return Ok(());
            }
            self.check_cancel()?;
            if self.build_dataset()? {
                return Ok(());
            }
        }
        Err(Failure::executor("resolving the dataset", "its store entry kept being replaced by other runs"))
    }

    /// Takes the stored entry if it validates, has a valid record and matches it, and is still the folder that was
    /// validated; otherwise evicts it (unless it was replaced meanwhile) and returns `false`.
    fn reuse_stored(&mut self) -> Result<bool, Failure> {
        let key = self.key.clone();
        let found = self.store().lookup(&key).map_err(|e| self.store_failure("reading the dataset store", e))?;
        let Some(store::Found { dir, record }) = found else { return Ok(false) };
        let validated = self.validator().validate_dataset(self.plan.dataset, &self.entry, DATASET_MANIFEST);
        if let Err(error) = &validated
            && let Some(cancelled) = Failure::cancelled(error)
        {
            return Err(cancelled);
        }
        if let (Ok(validated), Some(record)) = (&validated, &record)
            && record.matches(validated)
            && dir.is_at(&self.entry)
        {
            self.accept(validated.clone(), dir, record.clone())?;
            return Ok(true);
        }
        // An entry that fails re-verification, has no valid record or differs from it is evicted and rebuilt; that
        // is not a failure.
        self.store().evict(&key, Some(&dir)).map_err(|e| self.store_failure("evicting a dataset entry", e))?;
        Ok(false)
    }

    /// Holds `dir` as the attempt's dataset. A dataset resolved again during the attempt must be the same one.
    fn accept(&mut self, validated: ValidatedDataset, dir: Dir, record: Published) -> Result<(), Failure> {
        if let Some(first) = &self.published
            && (&first.files, &first.manifest) != (&record.files, &record.manifest)
        {
            let message = "the dataset was replaced in the store by different content during the attempt";
            return Err(Failure::executor("resolving the dataset again", message));
        }
        self.published.get_or_insert(record);
        self.dataset = Some(validated);
        self.entry_dir = Some(dir);
        Ok(())
    }

    /// Materializes, validates and publishes the dataset; `false` if another run published the key first.
    fn build_dataset(&mut self) -> Result<bool, Failure> {
        let dataset = self.plan.dataset;
        if self.materializations > 0 {
            self.retire_materializer_session()?;
        }
        self.materializations += 1;
        self.reused.get_or_insert(false);
        let staging = store::Staging::create(&self.datasets)
            .map_err(|e| Failure::executor("creating a dataset staging folder", e))?;
        let outcome = self.materialize(staging.path());
        let remove_staging = |staging: &store::Staging| {
            remove_tree(staging.path()).map_err(|e| Failure::executor("removing a staging folder", e))
        };
        let manifest = match outcome {
            Ok(manifest) => manifest,
            Err(failure) => {
                remove_staging(&staging)?;
                return Err(failure);
            }
        };
        let role = Role::DatasetMaterializer;
        if manifest != DATASET_MANIFEST {
            remove_staging(&staging)?;
            let message = format!(
                "{role} worker's output is invalid: it named its manifest {manifest:?}, but a dataset's manifest must \
                 be {DATASET_MANIFEST:?} at its root (implementations receive only the folder)"
            );
            return Err(Failure::new(Some(role), Some(Method::Materialize), FailureKind::InvalidOutput, message));
        }
        let validated = match self.validator().validate_dataset(dataset, staging.path(), DATASET_MANIFEST) {
            Ok(validated) => validated,
            Err(error) => {
                remove_staging(&staging)?;
                return Err(Failure::output(role, Method::Materialize, &error));
            }
        };
        let materializer = self.plan.worker(dataset.materializer()).identity().as_str().to_owned();
        let record = Published::new(&self.key, &validated, &materializer, SystemTime::now());
        let published = self
            .store()
            .publish(staging, &self.key, &record)
            .map_err(|e| self.store_failure("publishing the dataset", e))?;
        if let store::Publication::Exists = published {
            return Ok(false);
        }
        let dir = Dir::open(&self.entry).map_err(|e| Failure::executor("opening the published dataset", e))?;
        let again = self.validator().validate_dataset(dataset, &self.entry, DATASET_MANIFEST).map_err(|e| {
            Failure::cancelled(&e).unwrap_or_else(|| Failure::executor("re-verifying the published dataset", e))
        })?;
        if !record.matches(&again) || !dir.is_at(&self.entry) {
            return Ok(false);
        }
        self.accept(again, dir, record)?;
        Ok(true)
    }

    /// Before a second materialization in one attempt, the first one's source copy (the executor's own) is removed
    /// and its log kept as `logs/dataset_materializer-<n>.log`, so the new session's places are fresh (its
    /// `TMPDIR` went when its session ended).
    fn retire_materializer_session(&mut self) -> Result<(), Failure> {
        let role = Role::DatasetMaterializer;
        remove_tree(&self.folder.join("work").join(format!("source-{role}")))
            .map_err(|e| Failure::executor("removing an earlier source copy", e))?;
        if let Some(logs) = &self.logs_dir
            && logs.entry(&format!("{role}.log")).ok().flatten().is_some()
        {
            logs.rename_new(&format!("{role}.log"), &format!("{role}-{}.log", self.materializations))
                .map_err(|e| Failure::executor("keeping an earlier log", e))?;
        }
        Ok(())
    }

    /// Runs the materializer's session into `output`; returns the manifest path it named, once it has exited.
    fn materialize(&mut self, output: &Path) -> Result<String, Failure> {
        let worker = self.plan.worker(self.plan.dataset.materializer());
        let (config, source, tmpdir) = self.session_config(worker, Role::DatasetMaterializer, output)?;
        let params = MaterializeParams {
            source_dir: self.path(&source)?,
            dataset_parameters: self.plan.dataset.parameters().clone(),
            dataset_seed: self.plan.dataset_seed,
            output_dir: self.path(output)?,
        };
        self.last_worker = Some((Role::DatasetMaterializer, Method::Materialize));
        let mut session = self.connect::<crate::session::Materializer>(config)?;
        self.materializer.handshake = Some(session.handshake().clone());
        self.materializer.confinement = Some(session.confinement());
        if let Some(budget) = self.plan.repository.budgets().materialization {
            session.set_scientific_deadline(Instant::now() + budget);
        }
        let response = session.materialize(params);
        let response = self.settle(session, response, Role::DatasetMaterializer)?;
        tmpdir.remove()?;
        Ok(response.dataset.manifest.to_string())
    }

    fn seen(&mut self, role: Role) -> &mut Seen {
        match role {
            Role::DatasetMaterializer => &mut self.materializer,
            Role::Implementation => &mut self.implementation,
            Role::ProblemEvaluator => &mut self.evaluator,
        }
    }

    fn connect<R: crate::session::SessionRole>(&mut self, config: SessionConfig) -> Result<crate::Session<R>, Failure> {
        crate::Session::<R>::connect(config).map_err(|error| {
            self.phases.extend(error.timing().cloned());
            Failure::session(&error)
        })
    }

    /// Ends a session after its last scientific request: on success the deadline is cleared and the worker shut
    /// down; either way its timings are recorded and its processes are gone when this returns.
    fn settle<R: crate::session::SessionRole, T>(
        &mut self,
        mut session: crate::Session<R>,
        outcome: Result<T, SessionError>,
        role: Role,
    ) -> Result<T, Failure> {
        let value = match outcome {
            Ok(value) => value,
            Err(error) => {
                self.phases.extend(session.phases().iter().cloned());
                drop(session);
                return Err(Failure::session(&error));
            }
        };
        session.clear_scientific_deadline();
        let before = session.phases().to_vec();
        match session.shutdown() {
            Ok(summary) => {
                self.phases.extend(summary.phases);
                self.seen(role).resources = Some(summary.resources);
                Ok(value)
            }
            Err(error) => {
                self.phases.extend(before);
                self.phases.extend(error.timing().cloned());
                Err(Failure::session(&error))
            }
        }
    }

    /// Before a session that receives the dataset: if its store entry is no longer the folder this attempt holds
    /// (another run evicted or replaced it), the dataset is resolved again (re-verified or rebuilt) and must be
    /// the same inventory; nobody is blamed.
    fn ensure_dataset(&mut self) -> Result<(), Failure> {
        if self.entry_dir.as_ref().is_some_and(|dir| dir.is_at(&self.entry)) {
            return Ok(());
        }
        self.entry_dir = None;
        self.obtain_dataset()
    }

    fn run_implementation(&mut self) -> Result<(), Failure> {
        let plan = self.plan;
        self.ensure_dataset()?;
        let worker = self.plan.worker(plan.implementation.worker());
        let result_dir = self.folder.join("work/result");
        let (mut config, _source, tmpdir) = self.session_config(worker, Role::Implementation, &result_dir)?;
        for &capability in plan.implementation.capabilities() {
            config = config.select(capability);
        }
        let prepare = PrepareParams {
            dataset_dir: self.path(&self.entry)?,
            problem_contract_id: contract_id(plan.problem)?,
            problem_parameters: plan.problem.parameters().clone(),
            implementation_parameters: plan.implementation.parameters().clone(),
            implementation_seed: plan.implementation_seed,
        };
        let execute = ExecuteParams { result_dir: self.path(&result_dir)? };
        self.last_worker = Some((Role::Implementation, Method::Prepare));
        let mut session = match self.connect::<crate::session::Implementation>(config) {
            Ok(session) => session,
            Err(failure) => return Err(self.after_dataset_session(failure, Role::Implementation, Method::Hello)),
        };
        self.implementation.handshake = Some(session.handshake().clone());
        self.implementation.confinement = Some(session.confinement());
        self.implementation.cpus = Some(session.cpus().clone());
        if let Some(budget) = plan.repository.budgets().implementation {
            session.set_scientific_deadline(Instant::now() + budget);
        }
        let mut last = Method::Prepare;
        let outcome = session.prepare(prepare).and_then(|()| {
            last = Method::Execute;
            session.execute(execute)
        });
        // The result is sealed at the execute answer: validated (walked and hashed) while every process of the
        // worker is stopped, before the session goes on to shutdown. What the worker does after its answer can
        // only break the seal, never count.
        let validator = self.validator();
        let outcome = outcome.and_then(|response| {
            let sealed = session
                .while_stopped(|| validator.validate_result(plan.problem, &result_dir, &response.result.manifest))?;
            Ok((response, sealed))
        });
        self.last_worker = Some((Role::Implementation, last));
        let settled = self.settle(session, outcome, Role::Implementation);
        let (response, sealed) = match settled {
            Ok(settled) => settled,
            Err(failure) => return Err(self.after_dataset_session(failure, Role::Implementation, last)),
        };
        tmpdir.remove()?;
        self.implementation_time_ns = response.implementation_time_ns;
        self.statistics = Some(response.statistics.clone());
        self.verify_dataset(Role::Implementation, last)?;
        self.result = Some(sealed.map_err(|e| Failure::output(Role::Implementation, Method::Execute, &e))?);
        self.verify_result(Role::Implementation, Method::Shutdown, "after the implementation worker answered execute")
    }

    fn run_evaluator(&mut self) -> Result<(), Failure> {
        let plan = self.plan;
        self.ensure_dataset()?;
        let worker = self.plan.worker(plan.problem.evaluator());
        let metrics_dir = self.folder.join("work/metrics");
        let (config, _source, tmpdir) = self.session_config(worker, Role::ProblemEvaluator, &metrics_dir)?;
        let params = EvaluateParams {
            dataset_dir: self.path(&self.entry)?,
            result_dir: self.path(&self.folder.join("work/result"))?,
            metrics_path: self.path(&metrics_dir.join("metrics.json"))?,
            problem_contract_id: contract_id(plan.problem)?,
            problem_parameters: plan.problem.parameters().clone(),
        };
        self.last_worker = Some((Role::ProblemEvaluator, Method::Evaluate));
        let mut session = match self.connect::<crate::session::Evaluator>(config) {
            Ok(session) => session,
            Err(failure) => return Err(self.after_dataset_session(failure, Role::ProblemEvaluator, Method::Hello)),
        };
        self.evaluator.handshake = Some(session.handshake().clone());
        self.evaluator.confinement = Some(session.confinement());
        if let Some(budget) = plan.repository.budgets().evaluation {
            session.set_scientific_deadline(Instant::now() + budget);
        }
        let outcome = session.evaluate(params);
        if let Ok(response) = &outcome {
            self.verdict = Some(response.verdict);
        }
        if let Err(failure) = self.settle(session, outcome, Role::ProblemEvaluator) {
            return Err(self.after_dataset_session(failure, Role::ProblemEvaluator, Method::Evaluate));
        }
        tmpdir.remove()?;
        self.verify_dataset(Role::ProblemEvaluator, Method::Evaluate)?;
        self.verify_result(Role::ProblemEvaluator, Method::Evaluate, "during the problem_evaluator worker's session")?;
        let metrics = self
            .validator()
            .validate_metrics(plan.problem, &metrics_dir)
            .map_err(|e| Failure::output(Role::ProblemEvaluator, Method::Evaluate, &e))?;
        self.metrics = Some(metrics.metrics().metrics.clone());
        Ok(())
    }

    /// After a session that received the dataset failed: the dataset is still re-verified (and evicted if it
    /// changed), but the session's own failure is what ends the attempt.
    fn after_dataset_session(&mut self, failure: Failure, role: Role, phase: Method) -> Failure {
        match self.verify_dataset(role, phase) {
            Err(error) if error.kind == FailureKind::ExecutorError => error,
            _ => failure,
        }
    }

    /// Re-verifies the dataset after a session that could see it, through the entry folder this attempt holds.
    /// If the store's entry is still that folder, a change was made in place while the session could see it: it
    /// is `dataset_modified`, attributed to `role` and `phase`, and evicts the entry. If the entry is gone or is
    /// another folder, another run evicted or replaced it (each run blames only a change it sees in place), so
    /// this session is not blamed and the next session resolves the dataset again.
    fn verify_dataset(&mut self, role: Role, phase: Method) -> Result<(), Failure> {
        let (Some(original), Some(dir)) = (&self.dataset, &self.entry_dir) else { return Ok(()) };
        if !dir.is_at(&self.entry) {
            self.entry_dir = None;
            return Ok(());
        }
        let again = self.validator().validate_dataset(self.plan.dataset, &self.entry, DATASET_MANIFEST);
        if let Err(error) = &again
            && let Some(cancelled) = Failure::cancelled(error)
        {
            return Err(cancelled);
        }
        if !dir.is_at(&self.entry) {
            self.entry_dir = None;
            return Ok(());
        }
        let again = again.as_ref().map(|again| (again.files(), again.manifest_file()));
        let Some(problem) = change((original.files(), original.manifest_file()), again) else { return Ok(()) };
        let dir = self.entry_dir.take();
        self.store()
            .evict(&self.key, dir.as_ref())
            .map_err(|e| self.store_failure("evicting a modified dataset", e))?;
        let message = format!("the dataset changed during the {role} worker's session and was evicted: {problem}");
        Err(Failure::new(Some(role), Some(phase), FailureKind::DatasetModified, message))
    }

    /// Re-verifies the result against what was validated: after the implementation's session (it must be what was
    /// sealed at the execute answer) and after the evaluator's. A change is `role`'s invalid output in `phase`,
    /// the message saying it changed `when`.
    fn verify_result(&mut self, role: Role, phase: Method, when: &str) -> Result<(), Failure> {
        let Some(original) = &self.result else { return Ok(()) };
        let manifest = original.manifest_file().path().as_str().to_owned();
        let again = self.validator().validate_result(self.plan.problem, original.root(), &manifest);
        if let Err(error) = &again
            && let Some(cancelled) = Failure::cancelled(error)
        {
            return Err(cancelled);
        }
        let again = again.as_ref().map(|again| (again.files(), again.manifest_file()));
        let Some(problem) = change((original.files(), original.manifest_file()), again) else { return Ok(()) };
        let message = format!("the result changed {when}: {problem}");
        Err(Failure::new(Some(role), Some(phase), FailureKind::InvalidOutput, message))
    }

    fn into_record(self, started_at: SystemTime) -> AttemptRecord {
        let plan = self.plan;
        let outcome = match (&self.failure, self.verdict) {
            (Some(failure), _) if failure.kind == FailureKind::Cancelled => rec::Outcome::Cancelled,
            (Some(_), _) | (None, None) => rec::Outcome::Failed,
            (None, Some(verdict)) => parse(&verdict.to_string()),
        };
        let failure = self.failure.map(Failure::into_record);
        let materializer = plan.worker(plan.dataset.materializer());
        let implementer = plan.worker(plan.implementation.worker());
        let evaluator = plan.worker(plan.problem.evaluator());
        let implementation_handshake = self.implementation.handshake.clone();
        AttemptRecord {
            campaign: None,
            metewand_version: parse(env!("CARGO_PKG_VERSION")),
            started_at: record::timestamp(started_at),
            finished_at: record::timestamp(SystemTime::now()),
            repository: parse(&plan.repository.root().to_string_lossy()),
            outcome,
            verdict: self.verdict.map(|verdict| parse(&verdict.to_string())),
            failure,
            problem: rec::Problem {
                contract_id: parse(plan.problem.contract_id().as_str()),
                name: parse(plan.problem.name()),
                parameters: plan.problem.parameters().clone(),
                timed: Some(plan.problem.timed()),
            },
            dataset: rec::Dataset {
                files: self.dataset.as_ref().map(|dataset| file_records(dataset.files())),
                key: parse(plan.dataset.key(plan.dataset_seed).as_str()),
                materializer: worker_session(materializer, &self.materializer),
                name: parse(plan.dataset.name()),
                parameters: plan.dataset.parameters().clone(),
                reused: self.reused,
                seed: plan.dataset_seed,
            },
            implementation: rec::Implementation {
                capabilities: implementation_handshake.as_ref().map(|handshake| convert(&handshake.reported)),
                confinement: self.implementation.confinement.as_ref().map(confinement_record),
                cpus: self.implementation.cpus.as_ref().map(cpus_record),
                resources: self.implementation.resources.as_ref().map(resources_record),
                files: self.result.as_ref().map(|result| file_records(result.files())),
                implementation_time_ns: self.implementation_time_ns,
                name: parse(plan.implementation.name()),
                parameters: plan.implementation.parameters().clone(),
                sdk: implementation_handshake.as_ref().and_then(sdk),
                seed: plan.implementation_seed,
                selected: convert(&plan.implementation.capabilities().to_vec()),
                statistics: self.statistics,
                worker_id: parse(implementer.identity().as_str()),
            },
            evaluator: worker_session(evaluator, &self.evaluator),
            metrics: self.metrics,
            phases: phase_records(&self.phases),
            logs: rec::Logs {
                dataset_materializer: self.logs[0].then(|| parse(LOG_PATHS[0])),
                implementation: self.logs[1].then(|| parse(LOG_PATHS[1])),
                problem_evaluator: self.logs[2].then(|| parse(LOG_PATHS[2])),
            },
        }
    }
}

/// Each role's log, relative to the attempt folder, in the order of [`role_index`].
const LOG_PATHS: [&str; 3] = ["logs/dataset_materializer.log", "logs/implementation.log", "logs/problem_evaluator.log"];

fn role_index(role: Role) -> usize {
    match role {
        Role::DatasetMaterializer => 0,
        Role::Implementation => 1,
        Role::ProblemEvaluator => 2,
    }
}

fn contract_id(problem: &Problem) -> Result<crate::protocol::messages::ProblemContractId, Failure> {
    crate::protocol::messages::ProblemContractId::try_from(problem.contract_id().as_str())
        .map_err(|e| Failure::executor("naming the problem contract", e.to_string()))
}

/// How an artifact's second validation differs from its first (files and manifest, by path, size and digest), or
/// `None` if it does not.
fn change(
    before: (&[ValidatedFile], &ValidatedFile),
    after: Result<(&[ValidatedFile], &ValidatedFile), &ValidationError>,
) -> Option<String> {
    let key = |file: &ValidatedFile| (file.path().as_str().to_owned(), file.size(), file.sha256());
    match after {
        Err(error) => Some(error.to_string()),
        Ok((files, manifest)) => {
            let same = before.0.len() == files.len()
                && before.0.iter().zip(files).all(|(x, y)| key(x) == key(y))
                && key(before.1) == key(manifest);
            (!same).then(|| "its files differ from the validated inventory".to_owned())
        }
    }
}

fn phase_records(phases: &[PhaseTiming]) -> Vec<rec::PhaseRecord> {
    phases
        .iter()
        .map(|timing| rec::PhaseRecord {
            duration_ns: nanos(timing.duration),
            ok: timing.ok,
            phase: parse(timing.phase.as_str()),
            role: parse(&timing.role.to_string()),
            started_at: record::timestamp(timing.started_at),
        })
        .collect()
}

fn file_records(files: &[ValidatedFile]) -> rec::FileRecords {
    rec::FileRecords(
        files
            .iter()
            .map(|file| rec::FileRecord {
                path: parse(file.path().as_str()),
                sha256: parse(&file.sha256().to_string()),
                size: SafeUint::try_from(file.size()).unwrap_or(SafeUint::MAX),
            })
            .collect(),
    )
}

fn worker_session(worker: &Worker, seen: &Seen) -> rec::WorkerSession {
    rec::WorkerSession {
        capabilities: seen.handshake.as_ref().map(|handshake| convert(&handshake.reported)),
        confinement: seen.confinement.as_ref().map(confinement_record),
        resources: seen.resources.as_ref().map(resources_record),
        sdk: seen.handshake.as_ref().and_then(sdk),
        worker_id: parse(worker.identity().as_str()),
    }
}

fn cpus_record(placement: &CpuPlacement) -> rec::Cpus {
    let list: Vec<SafeUint> = placement.cpus.iter().map(SafeUint::from).collect();
    rec::Cpus { binding: placement.binding, list: list.try_into().expect("a CPU set is nonempty and ascending") }
}

fn confinement_record(report: &ConfinementReport) -> rec::Confinement {
    let (filesystem, landlock_abi) = match report.filesystem {
        FilesystemConfinement::Landlock { abi } => (rec::ConfinementFilesystem::Landlock, Some(SafeUint::from(abi))),
        FilesystemConfinement::None => (rec::ConfinementFilesystem::None, None),
    };
    rec::Confinement {
        filesystem,
        landlock_abi,
        network: match report.network {
            NetworkConfinement::Namespace => rec::ConfinementNetwork::Namespace,
            NetworkConfinement::Denied => rec::ConfinementNetwork::Denied,
            NetworkConfinement::Allowed => rec::ConfinementNetwork::Allowed,
            NetworkConfinement::Unrestricted => rec::ConfinementNetwork::Unrestricted,
        },
        processes: match report.processes {
            ProcessConfinement::PidNamespace => rec::ConfinementProcesses::PidNamespace,
            ProcessConfinement::Sweep => rec::ConfinementProcesses::Sweep,
        },
        user_namespace: Some(report.user_namespace),
        signals: match report.signals {
            SignalConfinement::Scoped => rec::ConfinementSignals::Scoped,
            SignalConfinement::Unscoped => rec::ConfinementSignals::Unscoped,
        },
        ipc: Some(match report.ipc {
            IpcConfinement::Namespace => rec::ConfinementIpc::Namespace,
            IpcConfinement::Host => rec::ConfinementIpc::Host,
        }),
        capabilities: Some(match report.capabilities {
            CapabilityConfinement::None => rec::ConfinementCapabilities::None,
            CapabilityConfinement::Kept => rec::ConfinementCapabilities::Kept,
        }),
        mounts: Some(match report.mounts {
            MountConfinement::Private => rec::ConfinementMounts::Private,
            MountConfinement::Host => rec::ConfinementMounts::Host,
        }),
        limits: Some(rec::ResourceLimits {
            memory_bytes: limit_record(report.limits.memory_bytes),
            processes: limit_record(report.limits.processes),
            output_bytes: limit_record(report.limits.output_bytes),
        }),
    }
}

fn limit_record(limit: LimitReport) -> rec::ResourceLimit {
    rec::ResourceLimit {
        // A limit past the largest safe integer is recorded as that integer: the record cannot hold more.
        value: limit.value.map(|value| SafeUint::try_from(value).unwrap_or(SafeUint::MAX)),
        mechanism: match limit.mechanism {
            LimitMechanism::Rlimit => rec::ResourceLimitMechanism::Rlimit,
            LimitMechanism::PidMax => rec::ResourceLimitMechanism::PidMax,
            LimitMechanism::Cgroup => rec::ResourceLimitMechanism::Cgroup,
            LimitMechanism::Watched => rec::ResourceLimitMechanism::Watched,
            LimitMechanism::None => rec::ResourceLimitMechanism::None,
        },
    }
}

/// A duration in nanoseconds as the record holds it, saturating at the largest safe integer.
fn nanos(duration: std::time::Duration) -> SafeUint {
    SafeUint::try_from(u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)).unwrap_or(SafeUint::MAX)
}

fn resources_record(resources: &Resources) -> rec::Resources {
    rec::Resources {
        peak_rss_bytes: SafeUint::try_from(resources.peak_rss_bytes).unwrap_or(SafeUint::MAX),
        system_cpu_ns: nanos(resources.system_cpu),
        user_cpu_ns: nanos(resources.user_cpu),
    }
}

fn sdk(handshake: &Handshake) -> Option<rec::SdkInfo> {
    handshake.sdk.as_ref().map(|(name, version)| convert(&serde_json::json!({"name": name, "version": version})))
}

/// A string the executor produced (a name, an identity, a timestamp) as the record's checked type. Every value
/// passed here was checked by the same schema's rules where it came from, so a refusal is a bug.
fn parse<T: std::str::FromStr>(text: &str) -> T
where
    T::Err: std::fmt::Display,
{
    text.parse().unwrap_or_else(|error| panic!("{text:?} does not fit the attempt record: {error}"))
}

/// A value of one generated type as the same schema definition's type in the attempt record.
fn convert<T: Serialize, U: DeserializeOwned>(value: &T) -> U {
    serde_json::from_value(serde_json::to_value(value).expect("generated types serialize"))
        .expect("the same schema definition in both documents")
}

fn one_line(message: &str) -> String {
    let line = message.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.is_empty() { "no message".to_owned() } else { line }
}
