//! The attempt's context and its first stage: [`Attempt`], what an attempt is given and never changes (its plan,
//! its folder, the state folder's places, its dataset's key, what its workers run under); [`Folders`], the attempt
//! folder with its `logs/` and `work/` held from their creation (and, after the last session, the record's names
//! cleared in it); and what every session of the attempt is started with: its places made fresh
//! ([`Attempt::prepare_places`]) and its configuration ([`Attempt::session_config`]). Every stage fails with a
//! [`Failure`] (`failure.rs`).
//!
//! The stages built on this context pass typed values on, in the order `mod.rs` runs them: the folders to the
//! dataset (`dataset.rs`, a `DatasetHeld`), the dataset to the implementation's session (`seal.rs`, a `Sealed`), the
//! sealed result to the evaluator's (`judge.rs`). What the record will say is noted in the [`Journal`] as each stage
//! goes (`journal.rs`).

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;

use metewand_protocol::common::Role;
use metewand_protocol::generated::attempt_record::FailureKind;

use super::failure::{Failure, Tmpdir};
use super::journal::Journal;
use super::record::{LOG_PATHS, RECORD_FILE, RECORD_TEMPORARY, output_folder, role_index};
use super::source::{SOURCES_DIR, stored_copy};
use super::store::{self, remove_tree};
use super::{AttemptPlan, RunOptions, phase_timeouts, worker_command, worker_confinement};
use crate::cpus::CpuSet;
use crate::files::{Dir, FsError};
use crate::repository::Worker;
use crate::session::ProcessIsolation;
use crate::{SessionConfig, WorkerOutputValidator};

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
    /// The state folder's built Python environments (`envs/`).
    pub(super) envs: PathBuf,
    /// The dataset key, and the path of its store entry.
    pub(super) key: crate::identity::DatasetKey,
    pub(super) entry: PathBuf,
    pub(super) cancel: Option<&'static AtomicBool>,
    pub(super) process_isolation: ProcessIsolation,
    pub(super) cpus: Option<CpuSet>,
    /// The discarded prepare, execute and reset cycles a fresh implementation session runs before the timed one.
    pub(super) warmup: u64,
    /// What every worker's private view hides besides the repository: the state folder, the attempt folder and
    /// the options' folders.
    pub(super) hidden: Vec<PathBuf>,
    /// Told when the implementation's timed requests are over (answered and sealed, or failed), or dropped with
    /// the attempt: the next attempt's workers start then (see `ahead.rs`).
    pub(super) timed_over: Option<Sender<()>>,
}

impl<'p, 'r> Attempt<'p, 'r> {
    /// The attempt of `plan` in `folder`, run as `options` say; `timed_over` is told when its implementation is no
    /// longer timed.
    pub(super) fn new(
        plan: &'p AttemptPlan<'r>,
        folder: &Path,
        options: &RunOptions,
        timed_over: Option<Sender<()>>,
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
        timed_over: Option<Sender<()>>,
    ) -> Attempt<'p, 'r> {
        let state = std::path::absolute(&options.state_dir).unwrap_or_else(|_| options.state_dir.clone());
        let datasets = state.join("datasets");
        let key = plan.dataset.key(plan.dataset_seed);
        let entry = datasets.join(key.to_string());
        let hidden = [state.clone(), hide.to_owned()].into_iter().chain(options.hidden.iter().cloned()).collect();
        Attempt {
            plan,
            folder,
            sources: state.join(SOURCES_DIR),
            envs: state.join(crate::environment::ENVS_DIR),
            datasets,
            key,
            entry,
            cancel: options.cancel,
            process_isolation: options.process_isolation,
            cpus: options.cpus.clone(),
            warmup: options.warmup,
            hidden,
            timed_over,
        }
    }
    /// A cancelled attempt's failure, once the cancel flag is set.
    pub(super) fn check_cancel(&self) -> Result<(), Failure> {
        if self.cancel.is_some_and(|flag| flag.load(Ordering::SeqCst)) {
            return Err(Failure::new(None, None, FailureKind::Cancelled, "the attempt was cancelled".to_owned()));
        }
        Ok(())
    }

    pub(super) fn validator(&self) -> WorkerOutputValidator<'r> {
        let validator = WorkerOutputValidator::new(self.plan.repository);
        match self.cancel {
            Some(flag) => validator.with_cancel(flag),
            None => validator,
        }
    }

    pub(super) fn path(&self, path: &Path) -> Result<crate::protocol::messages::Path, Failure> {
        let text = path.to_str().ok_or_else(|| Failure::executor("naming a folder", "the path is not UTF-8"))?;
        crate::protocol::messages::Path::try_from(text.to_owned())
            .map_err(|e| Failure::executor("naming a folder", e.to_string()))
    }

    pub(super) fn store_failure(&self, action: &str, error: store::StoreError) -> Failure {
        match error {
            store::StoreError::Cancelled => {
                Failure::new(None, None, FailureKind::Cancelled, "the attempt was cancelled".to_owned())
            }
            error => Failure::executor(action, error),
        }
    }

    /// The first stage: the attempt folder opened, and its `logs/` and `work/` created in it. No worker has run
    /// yet: whatever is in the way of the executor's own folders is the executor's problem.
    pub(super) fn folders(&self) -> Result<Folders, Failure> {
        self.check_cancel()?;
        let root = Dir::open(&self.folder).map_err(|e| Failure::executor("opening the attempt folder", e))?;
        let logs = root.create_dir("logs").map_err(|e| Failure::executor("creating the attempt folders", e))?;
        let work = root.create_dir("work").map_err(|e| Failure::executor("creating the attempt folders", e))?;
        Ok(Folders { root, logs, work })
    }

    /// Makes sure nothing is in the way of what the executor is about to create for `role`'s session (its log and
    /// source copy, and its `TMPDIR` and output folder, which are created here): the attempt's `logs/` and `work/`
    /// must still be the folders the executor made, and the places must be empty. Only a worker of this attempt
    /// that already ran can have put something there (no worker runs while this is checked), so an unexpected entry
    /// is that worker's invalid output, attributed to its last scientific request; before any worker ran it is an
    /// executor error. Returns the `TMPDIR`, which goes when the session has ended; a `held` session has its own in
    /// its folder (`held.rs`), and none is made in the attempt.
    pub(super) fn prepare_places(
        &self,
        folders: &Folders,
        journal: &mut Journal,
        role: Role,
        held: bool,
    ) -> Result<Tmpdir, Failure> {
        let (logs, work) = (&folders.logs, &folders.work);
        for (dir, name) in [(logs, "logs"), (work, "work")] {
            if !dir.is_at(&self.folder.join(name)) {
                let found = Dir::open(&self.folder.join(name)).err().map_or("folder", |error| match error {
                    FsError::Unexpected { found, .. } => found,
                    FsError::Io { .. } => "entry",
                });
                return Err(journal.unexpected(FsError::Unexpected { path: self.folder.join(name), found }));
            }
        }
        let index = role_index(role);
        if let Some(why) = journal.failed_ahead[index].take() {
            // The failed try is this attempt's to show: its log begins with it, and the new session appends.
            let note = format!(
                "[metewand: the {role} worker started ahead for this attempt failed ({why}); the attempt started its own]\n"
            );
            let name = format!("{role}.log");
            let mut file = logs.create_file(&name).map_err(|error| journal.unexpected(error))?;
            io::Write::write_all(&mut file, note.as_bytes()).map_err(|source| {
                Failure::executor(
                    "preparing a session",
                    FsError::Io { action: "write", path: logs.join(&name), source },
                )
            })?;
            journal.log_continues[index] = true;
            journal.logs[index] = true;
        }
        let continues = journal.log_continues[index];
        let checked = if continues { Ok(()) } else { logs.expect_absent(&format!("{role}.log")) };
        checked.map_err(|error| journal.unexpected(error))?;
        let tmp = format!("tmp-{role}");
        let tmpdir = if held {
            // Nothing is made there, and nothing may be in its way all the same.
            work.expect_absent(&tmp).map_err(|error| journal.unexpected(error))?;
            Tmpdir(None)
        } else {
            let made = work.create_dir(&tmp).map_err(|error| journal.unexpected(error))?;
            Tmpdir(Some(made.path().to_owned()))
        };
        if let Some(output) = output_folder(role) {
            work.create_dir(output).map_err(|error| journal.unexpected(error))?;
        }
        Ok(tmpdir)
    }

    /// A session's configuration: the verified copy of the worker's source in the store as its working directory, the
    /// repository's phase limits over the documented defaults, and the log `logs/<role>.log`.
    ///
    /// The worker is confined: it may write only `output` and its private `work/tmp-<role>/` (its `TMPDIR`), TCP
    /// only if it declares `network = true`, and no file larger than `[limits] output_bytes`; its private view
    /// hides the repository, the state folder and the attempt folder but for those two folders, its source copy
    /// and what its requests name.
    pub(super) fn session_config(
        &self,
        folders: &Folders,
        journal: &mut Journal,
        worker: &Worker,
        role: Role,
        output: &Path,
    ) -> Result<(SessionConfig, PathBuf, Tmpdir), Failure> {
        self.session_config_in(folders, journal, worker, role, output, None)
    }

    /// [`Attempt::session_config`], for a session held in `held` (see `reuse.rs`) when given: it writes only
    /// `held/work/` (its `TMPDIR` `work/tmp/` there) and is shown its datasets at `held/dataset/`.
    pub(super) fn session_config_in(
        &self,
        folders: &Folders,
        journal: &mut Journal,
        worker: &Worker,
        role: Role,
        output: &Path,
        held: Option<&Path>,
    ) -> Result<(SessionConfig, PathBuf, Tmpdir), Failure> {
        let tmpdir = self.prepare_places(folders, journal, role, held.is_some())?;
        let tmp = match held {
            Some(held) => held.join("work/tmp"),
            None => self.folder.join("work").join(format!("tmp-{role}")),
        };
        let writable = match held {
            Some(held) => held.join("work"),
            None => output.to_owned(),
        };
        let source = stored_copy(worker, &self.sources)
            .map_err(|error| Failure::executor("copying the worker's source", error))?;
        let timeouts = phase_timeouts(self.plan.repository);
        let environment = crate::environment::verified_environment(worker, &self.envs)
            .map_err(|error| Failure::executor("verifying the worker's Python environment", error))?;
        let command = worker_command(worker, &source, Some(&tmp), environment.as_deref());
        let worker_id = worker.identity().clone();
        let index = role_index(role);
        journal.logs[index] = true;
        let log = self.folder.join(LOG_PATHS[index]);
        let mut confinement = worker_confinement(worker, self.plan.repository.limits())
            .writable(&writable)
            .writable(&tmp)
            .process_isolation(self.process_isolation);
        // Its environment, read-only: the state folder holding it is hidden.
        if let Some(venv) = &environment {
            confinement = confinement.readable(venv);
        }
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
            Role::Implementation => {
                let dataset = held.map_or_else(|| self.entry.clone(), |held| held.join("dataset"));
                confinement = confinement.readable_after_hello(dataset);
            }
            Role::ProblemEvaluator => match held {
                Some(held) => {
                    confinement = confinement.readable_after_hello(held.join("dataset"));
                    confinement = confinement.readable_after_hello(held.join("result"));
                }
                None => confinement = confinement.readable(&self.entry).readable(self.folder.join("work/result")),
            },
        }
        let mut config = SessionConfig::new(command, worker_id, timeouts, log).confine(confinement);
        if journal.log_continues[role_index(role)] {
            config = config.continue_log();
        }
        if let Some(flag) = self.cancel {
            config = config.cancel_flag(flag);
        }
        if let Some(cpus) = &self.cpus {
            config = config.cpus(cpus.clone());
        }
        Ok((config, source, tmpdir))
    }
}

/// The attempt folder and its `logs/` and `work/`, held open from their creation, so that one replaced by a worker
/// shows.
pub(super) struct Folders {
    pub(super) root: Dir,
    pub(super) logs: Dir,
    pub(super) work: Dir,
}

impl Folders {
    /// After the last session: the record's names in the attempt folder must be free for `write_record`. Any
    /// worker of the attempt could have put something there, so it is an executor error naming the path (not
    /// blamed on a worker), and the entry is removed (never followed) so that the record can still be written.
    pub(super) fn clear_record_names(&self) -> Result<(), Failure> {
        let root = &self.root;
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
}
