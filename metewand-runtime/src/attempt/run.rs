//! The attempt in progress: its folders, its sessions one after the other, what each left, and the first failure,
//! which ends it. [`Run`] goes through the order of the crate's [`attempt`](super) documentation; its
//! dataset is resolved and re-verified in `dataset.rs`, its record comes from `record.rs`.

use super::record::*;
use super::*;

/// An execute answer, with what validating its result at the answer found (see [`Run::timed_requests`]).
pub(super) type Sealed = (crate::protocol::messages::ExecuteResponse, Result<ValidatedResult, ValidationError>);

/// What ended an attempt, before it becomes the record's `failure`.
#[derive(Debug)]
pub(super) struct Failure {
    pub(super) role: Option<Role>,
    pub(super) phase: Option<Phase>,
    pub(super) kind: FailureKind,
    pub(super) message: String,
    pub(super) code: Option<FailureCode>,
    pub(super) details: Option<JsonObject>,
}

impl Failure {
    pub(super) fn new(role: Option<Role>, phase: Option<Phase>, kind: FailureKind, message: String) -> Failure {
        Failure { role, phase, kind, message, code: None, details: None }
    }

    pub(super) fn executor(action: &str, error: impl std::fmt::Display) -> Failure {
        Failure::new(None, None, FailureKind::ExecutorError, format!("the executor failed {action}: {error}"))
    }

    /// A validation the cancel flag ended: the attempt is cancelled, with no role or phase (no session runs while
    /// the executor validates).
    pub(super) fn cancelled(error: &ValidationError) -> Option<Failure> {
        error.is_cancelled().then(|| {
            let message = format!("the attempt was cancelled while the {} output was validated", error.artifact());
            Failure::new(None, None, FailureKind::Cancelled, message)
        })
    }

    pub(super) fn into_record(self) -> rec::AttemptFailure {
        rec::AttemptFailure {
            code: self.code,
            details: self.details,
            kind: self.kind,
            message: parse(&one_line(&self.message)),
            phase: self.phase,
            role: self.role,
        }
    }

    pub(super) fn session(error: &SessionError) -> Failure {
        let kind = error.failure_kind().unwrap_or(FailureKind::ExecutorError);
        // The kind may quote the worker (a failure's message), so the whole sentence is made printable.
        let mut message = printable(&format!("{} worker failed in {}: {}", error.role(), error.phase(), error.kind()));
        // A worker that died before answering usually said why on stderr (an import that failed, a traceback's
        // last line): the last line it wrote belongs in the one sentence a user reads first.
        if let SessionErrorKind::WorkerExit { .. } | SessionErrorKind::SpawnFailed { .. } = error.kind()
            && let Some(last) = error.stderr_tail().iter().rev().find(|line| !line.trim().is_empty())
        {
            message.push_str(&format!("; its stderr ended with: {}", printable(last.trim())));
        }
        let mut failure = Failure::new(Some(error.role()), Some(error.phase()), kind, message);
        if let SessionErrorKind::WorkerFailure { code, details, .. } = error.kind() {
            failure.code = Some(*code);
            failure.details = details.clone();
        }
        failure
    }

    pub(super) fn output(role: Role, phase: Phase, error: &ValidationError) -> Failure {
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

/// A worker's text as a message may show it: control characters (a terminal's escape sequences among them) spelled
/// out, so a worker cannot write to the user's terminal through a failure's message.
fn printable(text: &str) -> String {
    text.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect()
}

/// A session's private `TMPDIR`, `work/tmp-<role>/`, made with its places: removed once the session has ended,
/// however it ended, so that an attempt folder keeps none of a worker's temporary files (however large, or nested
/// deeper than a path can name). After a session that succeeded, [`Tmpdir::remove`] removes it and a failure to do
/// so is the attempt's; when this is dropped instead, a failure already ends the attempt and is the one recorded.
pub(super) struct Tmpdir(Option<PathBuf>);

impl Tmpdir {
    pub(super) fn remove(mut self) -> Result<(), Failure> {
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

/// What an attempt is given and never changes: its plan, its folder and the state folder's places, its dataset's
/// key and store entry, and what its workers run under. Set once when the attempt starts.
pub(super) struct Attempt<'p, 'r> {
    pub(super) plan: &'p AttemptPlan<'r>,
    /// The attempt folder, absolute.
    pub(super) folder: PathBuf,
    /// The state folder's dataset store (`datasets/`).
    pub(super) datasets: PathBuf,
    /// The state folder's verified source copies (`sources/`).
    pub(super) sources: PathBuf,
    /// The dataset key, and the path of its store entry.
    pub(super) key: String,
    pub(super) entry: PathBuf,
    pub(super) cancel: Option<&'static AtomicBool>,
    pub(super) process_isolation: ProcessIsolation,
    pub(super) cpus: Option<CpuSet>,
    /// What every worker's private view hides besides the repository: the state folder, the attempt folder and
    /// the options' folders.
    pub(super) hidden: Vec<PathBuf>,
    /// Told when the implementation's timed requests are over (answered and sealed, or failed), or dropped with
    /// the attempt: the next attempt's workers start then (see `ahead.rs`).
    pub(super) timed_over: Option<std::sync::mpsc::Sender<()>>,
}

impl<'p, 'r> Attempt<'p, 'r> {
    /// The attempt of `plan` in `folder`, run as `options` say; `timed_over` is told when its implementation is no
    /// longer timed.
    pub(super) fn new(
        plan: &'p AttemptPlan<'r>,
        folder: &Path,
        options: &RunOptions,
        timed_over: Option<std::sync::mpsc::Sender<()>>,
    ) -> Attempt<'p, 'r> {
        let folder = std::path::absolute(folder).unwrap_or_else(|_| folder.to_owned());
        Attempt::beneath(plan, folder.clone(), &folder, options, timed_over)
    }

    /// A session started ahead (see `ahead.rs`), whose held folder `place` stands for its attempt's folder: its view
    /// hides what its attempt's will, the state folder (which holds `place`) in place of the attempt folder.
    pub(super) fn ahead(plan: &'p AttemptPlan<'r>, place: &Path, options: &RunOptions) -> Attempt<'p, 'r> {
        let state = std::path::absolute(&options.state_dir).unwrap_or_else(|_| options.state_dir.clone());
        Attempt::beneath(plan, place.to_owned(), &state, options, None)
    }

    fn beneath(
        plan: &'p AttemptPlan<'r>,
        folder: PathBuf,
        hide: &Path,
        options: &RunOptions,
        timed_over: Option<std::sync::mpsc::Sender<()>>,
    ) -> Attempt<'p, 'r> {
        let state = std::path::absolute(&options.state_dir).unwrap_or_else(|_| options.state_dir.clone());
        let datasets = state.join("datasets");
        let key = plan.dataset.key(plan.dataset_seed).as_str().to_owned();
        let entry = datasets.join(&key);
        let hidden = [state.clone(), hide.to_owned()].into_iter().chain(options.hidden.iter().cloned()).collect();
        Attempt {
            plan,
            folder,
            sources: state.join(SOURCES_DIR),
            datasets,
            key,
            entry,
            cancel: options.cancel,
            process_isolation: options.process_isolation,
            cpus: options.cpus.clone(),
            hidden,
            timed_over,
        }
    }
}

/// The attempt in progress: its context, its journal, and what its stages hold so far.
pub(super) struct Run<'p, 'r> {
    pub(super) attempt: Attempt<'p, 'r>,
    pub(super) journal: Journal,
    /// The attempt folder and its `logs/` and `work/`, held from their creation.
    pub(super) root: Option<Dir>,
    pub(super) logs_dir: Option<Dir>,
    pub(super) work_dir: Option<Dir>,
    pub(super) store: Option<store::Store>,
    /// The store entry this attempt verified and uses, held open so its eviction or replacement shows.
    pub(super) entry_dir: Option<Dir>,
    /// The entry's `.published` record, as first resolved.
    pub(super) published: Option<DatasetPublished>,
    pub(super) failure: Option<Failure>,
    pub(super) dataset: Option<ValidatedDataset>,
    pub(super) result: Option<ValidatedResult>,
    /// With reused sessions: the session held for this attempt, and given back after it.
    pub(super) reuse: Option<Reuse>,
    /// A streamed attempt's checkpoints (see `profile.rs`).
    pub(super) checkpoints: Vec<StreamedCheckpoint>,
}

impl<'p, 'r> Run<'p, 'r> {
    pub(super) fn new(attempt: Attempt<'p, 'r>) -> Run<'p, 'r> {
        Run {
            attempt,
            journal: Journal::default(),
            root: None,
            logs_dir: None,
            work_dir: None,
            store: None,
            entry_dir: None,
            published: None,
            failure: None,
            dataset: None,
            result: None,
            reuse: None,
            checkpoints: Vec::new(),
        }
    }

    pub(super) fn steps(&mut self) -> Result<(), Failure> {
        self.dataset_steps()?;
        self.check_cancel()?;
        let evaluator = self.run_implementation()?;
        self.check_cancel()?;
        self.run_evaluator(evaluator)?;
        // A cancellation that arrived during the last shutdown or the last checks is still honoured.
        self.check_cancel()
    }

    /// The attempt's folders, the store, and the dataset (reused or materialized).
    pub(super) fn dataset_steps(&mut self) -> Result<(), Failure> {
        self.check_cancel()?;
        // No worker has run yet: whatever is in the way of the executor's own folders is the executor's problem.
        let root = Dir::open(&self.attempt.folder).map_err(|e| Failure::executor("opening the attempt folder", e))?;
        self.logs_dir =
            Some(root.create_dir("logs").map_err(|e| Failure::executor("creating the attempt folders", e))?);
        self.work_dir =
            Some(root.create_dir("work").map_err(|e| Failure::executor("creating the attempt folders", e))?);
        self.root = Some(root);
        let store = store::Store::open(&self.attempt.datasets, self.attempt.cancel)
            .map_err(|e| self.store_failure("opening the dataset store", e))?;
        self.store = Some(store);
        store::clean_leftovers(&self.attempt.datasets)
            .map_err(|e| Failure::executor("cleaning the dataset store", e))?;
        self.obtain_dataset()
    }

    /// After the last session: the record's names in the attempt folder must be free for `write_record`. Any
    /// worker of the attempt could have put something there, so it is an executor error naming the path (not
    /// blamed on a worker), and the entry is removed (never followed) so that the record can still be written.
    pub(super) fn clear_record_names(&mut self) -> Result<(), Failure> {
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

    pub(super) fn check_cancel(&self) -> Result<(), Failure> {
        if self.attempt.cancel.is_some_and(|flag| flag.load(Ordering::SeqCst)) {
            return Err(Failure::new(None, None, FailureKind::Cancelled, "the attempt was cancelled".to_owned()));
        }
        Ok(())
    }

    pub(super) fn validator(&self) -> WorkerOutputValidator<'r> {
        let validator = WorkerOutputValidator::new(self.attempt.plan.repository);
        match self.attempt.cancel {
            Some(flag) => validator.with_cancel(flag),
            None => validator,
        }
    }

    pub(super) fn path(&self, path: &Path) -> Result<crate::protocol::messages::Path, Failure> {
        let text = path.to_str().ok_or_else(|| Failure::executor("naming a folder", "the path is not UTF-8"))?;
        crate::protocol::messages::Path::try_from(text.to_owned())
            .map_err(|e| Failure::executor("naming a folder", e.to_string()))
    }

    pub(super) fn store(&self) -> &store::Store {
        self.store.as_ref().expect("the store is opened before any dataset step")
    }

    pub(super) fn store_failure(&self, action: &str, error: store::StoreError) -> Failure {
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
    pub(super) fn prepare_places(&mut self, role: Role) -> Result<Tmpdir, Failure> {
        let (Some(logs), Some(work)) = (&self.logs_dir, &self.work_dir) else {
            return Err(Failure::executor("preparing a session", "the attempt folders were not created"));
        };
        for (dir, name) in [(logs, "logs"), (work, "work")] {
            if !dir.is_at(&self.attempt.folder.join(name)) {
                let found = Dir::open(&self.attempt.folder.join(name)).err().map_or("folder", |error| match error {
                    FsError::Unexpected { found, .. } => found,
                    FsError::Io { .. } => "entry",
                });
                return Err(self.unexpected(FsError::Unexpected { path: self.attempt.folder.join(name), found }));
            }
        }
        let index = role_index(role);
        if let Some(why) = self.journal.failed_ahead[index].take() {
            // The failed try is this attempt's to show: its log begins with it, and the new session appends.
            let note = format!(
                "[metewand: the {role} worker started ahead for this attempt failed ({why}); the attempt started its own]\n"
            );
            let name = format!("{role}.log");
            let mut file = logs.create_file(&name).map_err(|error| self.unexpected(error))?;
            io::Write::write_all(&mut file, note.as_bytes()).map_err(|source| {
                Failure::executor(
                    "preparing a session",
                    FsError::Io { action: "write", path: logs.join(&name), source },
                )
            })?;
            self.journal.log_continues[index] = true;
            self.journal.logs[index] = true;
        }
        let continues = self.journal.log_continues[index];
        let checked = if continues { Ok(()) } else { logs.expect_absent(&format!("{role}.log")) }
            .and_then(|()| work.create_dir(&format!("tmp-{role}")));
        let tmpdir = Tmpdir(Some(checked.map_err(|error| self.unexpected(error))?.path().to_owned()));
        if let Some(output) = output_folder(role) {
            work.create_dir(output).map_err(|error| self.unexpected(error))?;
        }
        Ok(tmpdir)
    }

    /// An entry found where the executor creates its own, blamed as [`prepare_places`](Run::prepare_places) says.
    pub(super) fn unexpected(&self, error: FsError) -> Failure {
        match (&error, self.journal.last_worker) {
            (FsError::Unexpected { .. }, Some((role, phase))) => Failure::new(
                Some(role),
                Some(phase),
                FailureKind::InvalidOutput,
                format!("{role} worker's output is invalid: it left an {error}"),
            ),
            _ => Failure::executor("preparing a session", error),
        }
    }

    /// A session's configuration: the verified copy of the worker's source in the store as its working directory, the
    /// repository's phase limits over the documented defaults, and the log `logs/<role>.log`.
    ///
    /// The worker is confined: it may write only `output` and its private `work/tmp-<role>/` (its `TMPDIR`), TCP
    /// only if it declares `network = true`, and no file larger than `[limits] output_bytes`; its private view
    /// hides the repository, the state folder and the attempt folder but for those two folders, its source copy
    /// and what its requests name.
    pub(super) fn session_config(
        &mut self,
        worker: &Worker,
        role: Role,
        output: &Path,
    ) -> Result<(SessionConfig, PathBuf, Tmpdir), Failure> {
        self.session_config_in(worker, role, output, None)
    }

    /// [`Run::session_config`], for a session held in `held` (see `reuse.rs`) when given: it writes only
    /// `held/work/` (its `TMPDIR` `work/tmp/` there) and is shown its datasets at `held/dataset/`.
    pub(super) fn session_config_in(
        &mut self,
        worker: &Worker,
        role: Role,
        output: &Path,
        held: Option<&Path>,
    ) -> Result<(SessionConfig, PathBuf, Tmpdir), Failure> {
        let tmpdir = self.prepare_places(role)?;
        let tmp = match held {
            Some(held) => held.join("work/tmp"),
            None => self.attempt.folder.join("work").join(format!("tmp-{role}")),
        };
        let writable = match held {
            Some(held) => held.join("work"),
            None => output.to_owned(),
        };
        let source = stored_copy(self.attempt.plan.repository, worker, &self.attempt.sources)
            .map_err(|error| Failure::executor("copying the worker's source", error))?;
        let timeouts = phase_timeouts(self.attempt.plan.repository);
        let command = worker_command(worker, &source, Some(&tmp));
        let worker_id = worker.identity().clone();
        let index = role_index(role);
        self.journal.logs[index] = true;
        let log = self.attempt.folder.join(LOG_PATHS[index]);
        let mut confinement = Confinement::new()
            .writable(&writable)
            .writable(&tmp)
            .network(worker.network())
            .syscalls(worker.syscalls())
            .limits(self.attempt.plan.repository.limits())
            .process_isolation(self.attempt.process_isolation)
            .private_view();
        // The repository is hidden but for what the worker's command and environment name there; the state, the
        // attempt and the options' folders are hidden but for what this session's requests name.
        confinement = confinement.hide_unless_named(self.attempt.plan.repository.root());
        for hidden in &self.attempt.hidden {
            confinement = confinement.hide(hidden);
        }
        // What the role's requests name, read-only; its source copy is its working directory, shown too. An
        // implementation's dataset only once its hello is answered: nothing it does before can use its inputs.
        match role {
            Role::DatasetMaterializer => {}
            Role::Implementation => {
                let dataset = held.map_or_else(|| self.attempt.entry.clone(), |held| held.join("dataset"));
                confinement = confinement.readable_after_hello(dataset);
            }
            Role::ProblemEvaluator => match held {
                Some(held) => {
                    confinement = confinement.readable_after_hello(held.join("dataset"));
                    confinement = confinement.readable_after_hello(held.join("result"));
                }
                None => {
                    confinement =
                        confinement.readable(&self.attempt.entry).readable(self.attempt.folder.join("work/result"))
                }
            },
        }
        let mut config = SessionConfig::new(command, worker_id, timeouts, log).confine(confinement);
        if self.journal.log_continues[role_index(role)] {
            config = config.continue_log();
        }
        if let Some(flag) = self.attempt.cancel {
            config = config.cancel_flag(flag);
        }
        if let Some(cpus) = &self.attempt.cpus {
            config = config.cpus(cpus.clone());
        }
        Ok((config, source, tmpdir))
    }

    /// The implementation's session, with the evaluator's started beside it where it may be (see
    /// [`Run::evaluator_config`]): both hellos run at once, and the evaluator is then stopped, every process of
    /// it, until the implementation's session has ended, so nothing of it runs while the implementation is timed.
    /// Returns the evaluator's session for [`Run::run_evaluator`].
    pub(super) fn run_implementation(&mut self) -> Result<Option<Prestarted>, Failure> {
        let plan = self.attempt.plan;
        self.ensure_dataset()?;
        let worker = self.attempt.plan.worker(plan.implementation.worker());
        let result_dir = self.attempt.folder.join("work/result");
        let (start, tmpdir) = self.implementation_start(worker, &result_dir)?;
        let prepare = self.prepare_params(start.dataset_dir())?;
        let execute = ExecuteParams { result_dir: self.path(&result_dir)? };
        let evaluator = self.evaluator_config()?;
        self.journal.last_worker = Some((Role::Implementation, Phase::Prepare));
        let (connected, evaluator) = std::thread::scope(|scope| {
            let evaluator = evaluator.map(|(config, tmpdir, params)| {
                let connecting = std::thread::Builder::new()
                    .name("mw-prestart".to_owned())
                    .spawn_scoped(scope, move || crate::Session::<crate::session::Evaluator>::connect(config));
                (connecting, tmpdir, params)
            });
            let connected = self.serve(start, worker.identity(), &prepare);
            let evaluator = evaluator.map(|(connecting, tmpdir, params)| {
                let session = connecting
                    .map(|handle| handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
                    .map_err(|source| Failure::executor("starting a session thread", source));
                (session, tmpdir, params)
            });
            (connected, evaluator)
        });
        let mut evaluator = evaluator.map(|(session, tmpdir, params)| match session {
            Ok(Ok(session)) => {
                self.journal.saw(&session);
                Prestarted::Ready { session: Box::new(session), tmpdir, params }
            }
            Ok(Err(error)) => Prestarted::Failed(Failure::session(&error), error.timing().cloned()),
            Err(failure) => Prestarted::Failed(failure, None),
        });
        let session = match connected {
            Ok(session) => session,
            Err(failure) => {
                self.discard(evaluator);
                return Err(self.after_dataset_session(failure, Role::Implementation, Phase::Hello));
            }
        };
        let ran = match &mut evaluator {
            Some(Prestarted::Ready { session: stopped, .. }) => stopped
                .while_stopped(|| {
                    // What the evaluator made of its places in its hello is its own; what changes there while it is
                    // stopped is the implementation's doing (which Landlock forbids it: a foreign writer's).
                    let before = self.places(Role::ProblemEvaluator);
                    self.serving_session(session, prepare, execute, &result_dir, tmpdir)?;
                    self.places_unchanged(Role::ProblemEvaluator, &before)
                })
                .unwrap_or_else(|error| Err(Failure::session(&error))),
            _ => self.serving_session(session, prepare, execute, &result_dir, tmpdir),
        };
        if let Err(failure) = ran {
            self.discard(evaluator);
            return Err(failure);
        }
        Ok(evaluator)
    }

    /// `prepare` of the attempt, naming the dataset at `dataset_dir` (a held session's mount point) or at its entry.
    fn prepare_params(&self, dataset_dir: Option<PathBuf>) -> Result<PrepareParams, Failure> {
        let plan = self.attempt.plan;
        Ok(PrepareParams {
            dataset_dir: self.path(dataset_dir.as_deref().unwrap_or(&self.attempt.entry))?,
            problem_contract_id: plan.problem.contract_id().into(),
            problem_parameters: plan.problem.parameters().clone(),
            implementation_parameters: plan.implementation.parameters().clone(),
            implementation_seed: plan.implementation_seed,
        })
    }

    /// The implementation's part in the session serving it. A failure is the attempt's whichever session served
    /// it, a reused one as a fresh one (DESIGN §24: every try is recorded, none run again): its record's `session`
    /// says which, and how many attempts that session served before.
    fn serving_session(
        &mut self,
        serving: Serving,
        prepare: PrepareParams,
        execute: ExecuteParams,
        result_dir: &Path,
        tmpdir: Tmpdir,
    ) -> Result<(), Failure> {
        let held = match serving {
            Serving::Fresh(session) => {
                self.journal.implementation.session = Some(fresh_session());
                return self.implementation_session(*session, prepare, execute, result_dir, tmpdir);
            }
            Serving::Held(held) => *held,
        };
        self.held_session(held, prepare, tmpdir)
    }

    /// The implementation's timed requests, `prepare` then `execute` under its budget, and the seal: the result is
    /// validated (walked and hashed) at the execute answer, while every process of the worker is stopped, before the
    /// session goes on. What the worker does after its answer can only break the seal, never count. Returns the last
    /// request sent, which becomes the attempt's last worker. A session to be `held` for another attempt stays
    /// stopped after the seal (paused).
    pub(super) fn timed_requests(
        &mut self,
        session: &mut crate::Session<crate::session::Implementation>,
        prepare: PrepareParams,
        execute: ExecuteParams,
        result_dir: &Path,
        held: bool,
    ) -> (Phase, Result<Sealed, SessionError>) {
        let plan = self.attempt.plan;
        if let Some(budget) = plan.repository.budgets().implementation {
            session.set_scientific_deadline(Instant::now() + budget);
        }
        let mut last = Phase::Prepare;
        let outcome = session.prepare(prepare).and_then(|()| {
            last = Phase::Execute;
            if plan.streams() { self.execute_streamed(session, execute, result_dir) } else { session.execute(execute) }
        });
        let validator = self.validator();
        let layout = self.result_layout();
        let outcome = outcome.and_then(|response| {
            let manifest = &response.result.manifest;
            let seal = || validator.validate_result_in(plan.problem, result_dir, layout, manifest);
            let sealed = if held { session.while_paused(seal)? } else { session.while_stopped(seal)? };
            Ok((response, sealed))
        });
        self.journal.last_worker = Some((Role::Implementation, last));
        if let Some(over) = self.attempt.timed_over.take() {
            let _ = over.send(());
        }
        (last, outcome)
    }

    /// The implementation's requests once its session is connected, its seal, its end, and the checks after it.
    fn implementation_session(
        &mut self,
        mut session: crate::Session<crate::session::Implementation>,
        prepare: PrepareParams,
        execute: ExecuteParams,
        result_dir: &Path,
        tmpdir: Tmpdir,
    ) -> Result<(), Failure> {
        self.journal.saw(&session);
        self.journal.implementation.cpus = Some(session.cpus().clone());
        let (last, outcome) = self.timed_requests(&mut session, prepare, execute, result_dir, false);
        let settled = self.journal.settle(session, outcome, Role::Implementation);
        let (response, sealed) = match settled {
            Ok(settled) => settled,
            Err(failure) => return Err(self.after_dataset_session(failure, Role::Implementation, last)),
        };
        tmpdir.remove()?;
        self.journal.implementation_time_ns = response.implementation_time_ns;
        self.journal.statistics = Some(response.statistics.clone());
        self.verify_dataset(Role::Implementation, last)?;
        self.result = Some(sealed.map_err(|e| Failure::output(Role::Implementation, Phase::Execute, &e))?);
        self.verify_checkpoints(Role::Implementation, Phase::Shutdown, "after it was sealed")?;
        self.verify_result(Role::Implementation, Phase::Shutdown, "after the implementation worker answered execute")
    }

    /// Re-verifies the result against what was validated: after the implementation's session (it must be what was
    /// sealed at the execute answer) and after the evaluator's. A change is `role`'s invalid output in `phase`,
    /// the message saying it changed `when`.
    pub(super) fn verify_result(&mut self, role: Role, phase: Phase, when: &str) -> Result<(), Failure> {
        let Some(original) = &self.result else { return Ok(()) };
        let Some(problem) = self.change_since(original)? else { return Ok(()) };
        let message = format!("the result changed {when}: {problem}");
        Err(Failure::new(Some(role), Some(phase), FailureKind::InvalidOutput, message))
    }

    /// What changed in a result (or a checkpoint) since it was validated: validated again where it was, and
    /// compared; a cancellation met on the way is the failure.
    pub(super) fn change_since(&self, original: &ValidatedResult) -> Result<Option<String>, Failure> {
        let again = self.validator().revalidate_result(self.attempt.plan.problem, original);
        if let Err(error) = &again
            && let Some(cancelled) = Failure::cancelled(error)
        {
            return Err(cancelled);
        }
        let again = again.as_ref().map(|again| (again.files(), again.manifest_file()));
        Ok(change((original.files(), original.manifest_file()), again))
    }

    pub(super) fn into_record(self, started_at: SystemTime) -> AttemptRecord {
        let plan = self.attempt.plan;
        let outcome = match (&self.failure, self.journal.verdict) {
            (Some(failure), _) if failure.kind == FailureKind::Cancelled => rec::Outcome::Cancelled,
            (Some(_), _) | (None, None) => rec::Outcome::Failed,
            (None, Some(verdict)) => verdict.into(),
        };
        let profile = self.profile_record().unwrap_or_default();
        let failure = self.failure.map(Failure::into_record);
        let materializer = plan.worker(plan.dataset.materializer());
        let implementer = plan.worker(plan.implementation.worker());
        let evaluator = plan.worker(plan.problem.evaluator());
        let implementation_handshake = self.journal.implementation.handshake.clone();
        AttemptRecord {
            campaign: None,
            metewand_version: parse(env!("CARGO_PKG_VERSION")),
            started_at: timestamp(started_at),
            finished_at: timestamp(SystemTime::now()),
            repository: parse(&plan.repository.root().to_string_lossy()),
            outcome,
            verdict: self.journal.verdict,
            failure,
            problem: rec::Problem {
                contract_id: plan.problem.contract_id().clone(),
                name: parse(plan.problem.name()),
                parameters: plan.problem.parameters().clone(),
                timed: Some(plan.problem.timed()),
            },
            dataset: rec::Dataset {
                files: self.dataset.as_ref().map(|dataset| file_records(dataset.files())),
                key: plan.dataset.key(plan.dataset_seed),
                materializer: worker_session(materializer, &self.journal.materializer),
                name: parse(plan.dataset.name()),
                parameters: plan.dataset.parameters().clone(),
                reused: self.journal.reused,
                seed: plan.dataset_seed,
            },
            implementation: rec::Implementation {
                capabilities: implementation_handshake.as_ref().map(|handshake| handshake.reported.clone()),
                confinement: self.journal.implementation.confinement.as_ref().map(confinement_record),
                cpus: self.journal.implementation.cpus.as_ref().map(cpus_record),
                resources: self.journal.implementation.resources.as_ref().map(resources_record),
                files: self.result.as_ref().map(|result| file_records(result.files())),
                identity: Some(identity_record(implementer)),
                program: self.journal.implementation.program.as_ref().map(program_record),
                session: self.journal.implementation.session.clone(),
                profile,
                implementation_time_ns: self.journal.implementation_time_ns,
                name: parse(plan.implementation.name()),
                parameters: plan.implementation.parameters().clone(),
                sdk: implementation_handshake.as_ref().and_then(sdk),
                seed: plan.implementation_seed,
                selected: UniqueVec::try_from(vec![plan.selected()]).expect("one capability is unique"),
                statistics: self.journal.statistics,
                worker_id: implementer.identity().clone(),
            },
            evaluator: worker_session(evaluator, &self.journal.evaluator),
            metrics: self.journal.metrics,
            phases: phase_records(&self.journal.phases),
            logs: rec::Logs {
                dataset_materializer: self.journal.logs[0].then(|| parse(LOG_PATHS[0])),
                implementation: self.journal.logs[1].then(|| parse(LOG_PATHS[1])),
                problem_evaluator: self.journal.logs[2].then(|| parse(LOG_PATHS[2])),
            },
        }
    }
}
