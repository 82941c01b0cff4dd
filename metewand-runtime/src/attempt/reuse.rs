//! Reused implementation sessions (DESIGN §19, opt-in): one worker process serves consecutive attempts of the same
//! worker, `reset` between them, where the worker has a private view to show each attempt's dataset in.
//!
//! A held session lives in a folder of its own, `STATE/sessions/.tmp-<random>/` (locked while it lives): `work/` is all
//! it may write (its `TMPDIR` `work/tmp/`, which it keeps between attempts, and one `work/result-<n>/` per attempt),
//! `dataset/` is the mount point of its view where each attempt's dataset is shown in place of the last. Between
//! attempts every process of it is stopped. Its result is sealed as a fresh session's is, then copied into the
//! attempt's `work/result/` while it is stopped and checked to be the sealed inventory: the copy is out of its reach,
//! so no later write of its counts. A failure while it serves an attempt is that attempt's (the session is ended, and
//! the record says it was reused): no try is run again unrecorded. A session serves each cell at most once: one whose
//! next attempt is another repetition of a cell it served is ended, and a new one serves it.
//!
//! This module is the implementation's part: how its session starts (held, taken up, or new), warmed up, served and
//! kept. What holds the sessions between attempts ([`Held`], [`Reuse`], `HeldSessions`) is `held.rs`'s.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;

use metewand_protocol::common::Role;
use metewand_protocol::generated::attempt_record::FailureKind;

use super::ahead::end_ahead;
use super::dataset::DatasetHeld;
use super::failure::{Failure, Tmpdir};
use super::held::{Held, Reuse, request_folder};
use super::journal::Journal;
use super::record::{LOG_PATHS, ahead_session, change, file_records, reused_session, role_index};
use super::run::{Attempt, Folders};
use super::store::{self, remove_tree};
use super::timed::Answer;
use crate::SessionConfig;
use crate::files::FsError;
use crate::protocol::Phase;
use crate::protocol::common::WorkerId;
use crate::repository::Worker;
use crate::session::{ExecuteParams, Implementation, PrepareParams};
use crate::validate::ValidatedResult;

/// How the attempt's implementation session starts.
pub(super) enum Start {
    /// A new session, kept for later attempts when `folder` is its held folder.
    New { config: Box<SessionConfig>, folder: Option<store::Staging> },
    /// The session held for this worker, reset and shown this attempt's dataset.
    Held(Box<Held>),
}

impl Start {
    /// The folder the session is shown the dataset in, when it is not the store entry's own path.
    pub(super) fn dataset_dir(&self) -> Option<PathBuf> {
        match self {
            Start::New { folder, .. } => folder.as_ref().map(|folder| folder.path().join("dataset")),
            Start::Held(held) => Some(held.place.path().join("dataset")),
        }
    }
}

/// The implementation's session as it serves the attempt.
pub(super) enum Serving {
    /// A fresh session, with the range of its phases its warm-up took (not the attempt's).
    Fresh(Box<crate::Session<Implementation>>, std::ops::Range<usize>),
    /// A session kept for later attempts: new, or held for earlier ones.
    Held(Box<Held>),
}

impl Attempt<'_, '_> {
    /// How the implementation's session starts: the session held for its worker, taken up, or a new one (kept for
    /// later attempts when sessions are reused and may be), its places made. Returns its `TMPDIR` in the attempt.
    pub(super) fn implementation_start(
        &self,
        folders: &Folders,
        journal: &mut Journal,
        reuse: &mut Option<Reuse>,
        worker: &Worker,
        result_dir: &Path,
    ) -> Result<(Start, Tmpdir), Failure> {
        if let Some(held) = self.held_for(reuse, worker.identity()) {
            let tmpdir = self.prepare_places(folders, journal, Role::Implementation, true)?;
            match self.take_up(journal, held) {
                Some(held) => return Ok((Start::Held(Box::new(held)), tmpdir)),
                None => {
                    drop(tmpdir);
                    self.remove_places(journal, Role::Implementation)?;
                }
            }
        }
        let folder = match reuse {
            Some(reuse)
                if reuse.keeps
                    && !reuse.refused.contains(worker.identity())
                    && reuse.private_view(worker, self.process_isolation) =>
            {
                Some(self.held_folder()?)
            }
            _ => None,
        };
        let held = folder.as_ref().map(store::Staging::path);
        let made = self.session_config_in(folders, journal, worker, Role::Implementation, result_dir, held);
        let (mut config, _source, tmpdir) = made.inspect_err(|_| {
            if let Some(folder) = &folder {
                let _ = remove_tree(folder.path());
            }
        })?;
        config = config.select(self.plan.selected());
        Ok((Start::New { config: Box::new(config), folder }, tmpdir))
    }

    /// Connects the session `start` says, and shows a new held session its dataset.
    pub(super) fn serve(
        &self,
        journal: &mut Journal,
        start: Start,
        worker: &WorkerId,
        prepare: &PrepareParams,
        cycles: u64,
        at_hello: Option<Sender<()>>,
    ) -> Result<Serving, Failure> {
        match start {
            Start::Held(held) => Ok(Serving::Held(held)),
            Start::New { config, folder: None } => {
                let mut session = journal.connect_telling::<Implementation>(*config, at_hello)?;
                match self.warm_up_fresh(&mut session, prepare, cycles) {
                    Ok(skip) => Ok(Serving::Fresh(Box::new(session), skip)),
                    Err(failure) => {
                        journal.phases.extend(session.phases().iter().cloned());
                        Err(failure)
                    }
                }
            }
            Start::New { config, folder: Some(place) } => {
                let folder = place.path().to_owned();
                let connected = journal.connect_telling::<Implementation>(*config, at_hello).and_then(|mut session| {
                    let warmed = session
                        .show_in_place_of(&self.entry, &folder.join("dataset"))
                        .map_err(|error| Failure::session(&error))
                        .and_then(|()| self.warm_up(&mut session, &folder, prepare, cycles));
                    match warmed {
                        Ok(skip) => Ok((session, skip)),
                        Err(failure) => {
                            journal.phases.extend(session.phases().iter().cloned());
                            Err(failure)
                        }
                    }
                });
                match connected {
                    Ok((session, skip)) => Ok(Serving::Held(Box::new(Held {
                        session,
                        worker: worker.clone(),
                        place,
                        served: 0,
                        cells: Default::default(),
                        since: 0,
                        warmup: cycles,
                        skip,
                        ahead: None,
                    }))),
                    Err(failure) => {
                        let _ = remove_tree(&folder);
                        Err(failure)
                    }
                }
            }
        }
    }

    /// Runs `cycles` discarded prepare, execute and reset cycles on this attempt's inputs in a new held session,
    /// each result in `work/warmup-<i>/`, removed after it. Returns the session's phases they took, which are not the
    /// attempt's; a failure is the attempt's, as the same requests' would be.
    fn warm_up(
        &self,
        session: &mut crate::Session<Implementation>,
        folder: &Path,
        prepare: &PrepareParams,
        cycles: u64,
    ) -> Result<std::ops::Range<usize>, Failure> {
        let first = session.phases().len();
        for cycle in 0..cycles {
            let dir = request_folder(folder, &format!("warmup-{cycle}"))?;
            let execute = ExecuteParams { result_dir: self.path(&dir)? };
            session
                .prepare(prepare.clone())
                .and_then(|()| session.execute(execute))
                .and_then(|_| session.reset())
                .map_err(|error| Failure::session(&error))?;
            remove_tree(&dir).map_err(|source| {
                Failure::executor("warming up a session", FsError::Io { action: "remove", path: dir, source })
            })?;
        }
        Ok(first..session.phases().len())
    }

    /// Runs `cycles` discarded prepare, execute and reset cycles in a fresh session, each result in the attempt's
    /// own result folder (the one folder besides its `TMPDIR` the session may write), emptied after each, so that the
    /// timed execute finds it as a session without warm-up would. Returns the session's phases they took.
    fn warm_up_fresh(
        &self,
        session: &mut crate::Session<Implementation>,
        prepare: &PrepareParams,
        cycles: u64,
    ) -> Result<std::ops::Range<usize>, Failure> {
        let first = session.phases().len();
        let dir = self.folder.join("work/result");
        for _ in 0..cycles {
            let execute = ExecuteParams { result_dir: self.path(&dir)? };
            session
                .prepare(prepare.clone())
                .and_then(|()| session.execute(execute))
                .and_then(|_| session.reset())
                .map_err(|error| Failure::session(&error))?;
            empty_folder(&dir).map_err(|source| {
                Failure::executor("warming up a session", FsError::Io { action: "empty", path: dir.clone(), source })
            })?;
        }
        Ok(first..session.phases().len())
    }

    /// A held session's requests for this attempt, its seal, and the copy of its result: the session is kept (see
    /// [`Attempt::keep`]) or, on any failure, ended.
    pub(super) fn held_session(
        &self,
        dataset: &mut DatasetHeld,
        journal: &mut Journal,
        reuse: &mut Option<Reuse>,
        mut held: Held,
        prepare: PrepareParams,
        tmpdir: Tmpdir,
    ) -> Result<ValidatedResult, Failure> {
        journal.saw(&held.session);
        journal.implementation.cpus = Some(held.session.cpus().clone());
        journal.implementation.session = Some(match &held.ahead {
            Some(on) => ahead_session(on),
            None => reused_session(held.served, held.warmup),
        });
        let result_dir = held.place.path().join(format!("work/result-{}", held.served));
        let execute = match request_folder(held.place.path(), &format!("result-{}", held.served))
            .and_then(|dir| self.path(&dir))
        {
            Ok(path) => ExecuteParams { result_dir: path },
            Err(failure) => {
                held.end();
                return Err(failure);
            }
        };
        // Timed and sealed as a fresh session's requests are; the worker then stays stopped.
        let (last, outcome) = self.timed_requests(journal, &mut held.session, prepare, execute, &result_dir, true);
        held.session.clear_scientific_deadline();
        let skip = held.skip.clone();
        let phases = held.session.phases().iter().enumerate().skip(held.since);
        journal.phases.extend(phases.filter(|(i, _)| !skip.contains(i)).map(|(_, phase)| phase.clone()));
        let Answer { response, sealed, .. } = match outcome {
            Ok(done) => done,
            Err(error) => {
                held.end();
                return Err(dataset.after_session(self, Failure::session(&error), Role::Implementation, last));
            }
        };
        journal.implementation_time_ns = response.implementation_time_ns;
        journal.statistics = Some(response.statistics.clone());
        let checked = tmpdir
            .remove()
            .and_then(|()| dataset.verify(self, Role::Implementation, last))
            .and_then(|()| sealed.map_err(|error| Failure::output(Role::Implementation, Phase::Execute, &error)));
        match checked {
            Ok(sealed) => {
                let result = self.keep(journal, reuse, held, sealed, &result_dir)?;
                journal.result = Some(file_records(result.files()));
                Ok(result)
            }
            Err(failure) => {
                held.end();
                Err(failure)
            }
        }
    }

    /// After the evaluator's reused session failed to judge this attempt (and was ended): says so in the attempt's
    /// evaluator log, which the next session appends to, and removes the places made for the ended one. Only the
    /// evaluator is given a new session: an implementation's failure is its attempt's, whichever session served it.
    pub(super) fn clear_for_new_evaluator(&self, journal: &mut Journal, failure: &Failure) -> Result<(), Failure> {
        let role = Role::ProblemEvaluator;
        let index = role_index(role);
        let log = self.folder.join(LOG_PATHS[index]);
        let note = format!(
            "[metewand: the reused evaluator session failed ({}); the attempt is judged again by a new session]\n",
            failure.message
        );
        if let Ok(mut file) = crate::session::append_log(&log) {
            let _ = io::Write::write_all(&mut file, note.as_bytes());
        }
        journal.log_continues[index] = journal.logs[index] && fs::symlink_metadata(&log).is_ok();
        self.remove_session_folders(role).map_err(|error| Failure::executor("ending a reused session", error))
    }

    /// The session held for `worker`, if one is, still runs and has not served this attempt's cell (another
    /// repetition of it); a held session of another worker, one that died while held, or one that served the cell
    /// is ended.
    pub(super) fn held_for(&self, reuse: &mut Option<Reuse>, worker: &WorkerId) -> Option<Held> {
        let held = reuse.as_mut()?.held.take()?;
        if &held.worker == worker && held.session.is_running() && !held.cells.contains(&self.plan.cell()) {
            return Some(held);
        }
        held.end();
        None
    }

    /// Takes up the held session for this attempt: its log is the attempt's from now on, it is reset, and this
    /// attempt's dataset is shown in its view. `None` when that failed: the session is ended, and the attempt
    /// starts a new one (a held session's failure is never an attempt's).
    pub(super) fn take_up(&self, journal: &mut Journal, mut held: Held) -> Option<Held> {
        held.since = held.session.phases().len();
        let taken = if held.ahead.is_some() {
            // Started ahead: never served an attempt, so nothing to reset; its hello is this attempt's.
            held.since = 0;
            self.adopt(&mut held, Role::Implementation)
        } else {
            let log = self.folder.join(LOG_PATHS[role_index(Role::Implementation)]);
            held.session.redirect_log(&log).and_then(|()| held.session.reset())
        };
        let taken = taken.and_then(|()| held.session.show_in_place_of(&self.entry, &held.place.path().join("dataset")));
        match taken {
            Ok(()) => {
                journal.logs[role_index(Role::Implementation)] = true;
                Some(held)
            }
            Err(_) => {
                // What the ended session wrote to the log is the session's: the caller removes it with the places.
                held.end();
                None
            }
        }
    }

    /// The end of a held session's attempt once its result was sealed in `sealed_dir`: the result is copied into
    /// the attempt's `work/result/` and must be the sealed inventory there; the worker stays stopped and is kept.
    pub(super) fn keep(
        &self,
        journal: &mut Journal,
        reuse: &mut Option<Reuse>,
        mut held: Held,
        sealed: ValidatedResult,
        sealed_dir: &Path,
    ) -> Result<ValidatedResult, Failure> {
        let target = self.folder.join("work/result");
        let copied = held.session.pause().map_err(|error| Failure::session(&error)).and_then(|()| {
            let files = sealed.files().iter().chain([sealed.manifest_file()]).map(|file| file.path());
            crate::files::copy_beneath(sealed_dir, &target, files)
                .map_err(|source| Failure::executor("copying a reused session's result", source))
        });
        let copied = copied.and_then(|()| {
            let manifest = sealed.manifest_file().path().as_str().to_owned();
            let again = self.validator().validate_result(self.plan.problem, &target, &manifest);
            if let Err(error) = &again
                && let Some(cancelled) = Failure::cancelled(error)
            {
                return Err(cancelled);
            }
            let compared = again.as_ref().map(|again| (again.files(), again.manifest_file()));
            if let Some(problem) = change((sealed.files(), sealed.manifest_file()), compared) {
                let message = format!("the result changed while it was copied out of the reused session: {problem}");
                return Err(Failure::new(
                    Some(Role::Implementation),
                    Some(Phase::Execute),
                    FailureKind::InvalidOutput,
                    message,
                ));
            }
            again.map_err(|error| Failure::output(Role::Implementation, Phase::Execute, &error))
        });
        let _ = remove_tree(sealed_dir);
        match copied {
            Ok(result) if held.ahead.is_some() => end_ahead(journal, held).map(|()| result),
            Ok(result) => {
                held.served += 1;
                held.cells.insert(self.plan.cell());
                if let Some(reuse) = reuse.as_mut() {
                    reuse.held = Some(held);
                }
                Ok(result)
            }
            Err(failure) => {
                held.end();
                Err(failure)
            }
        }
    }
}

/// Removes everything in `dir` and keeps the folder itself (which its worker was handed).
fn empty_folder(dir: &Path) -> io::Result<()> {
    for entry in fs::read_dir(dir)? {
        remove_tree(&entry?.path())?;
    }
    Ok(())
}
