//! Sessions started ahead of their attempt (DESIGN §19, with fresh sessions): while a slot's attempt is judged and
//! shut down (from the end of its implementation's timed requests), the workers of the attempt it runs next are
//! spawned and say hello on CPUs outside every timed slot's, so that the next attempt waits for no interpreter and no
//! start-up competes with a timed phase, neither on the slot's CPUs nor on the executor's, where the threads that
//! time the running attempt are.
//!
//! Each is started as a held session is (`held.rs`): in a folder of its own, `STATE/sessions/.tmp-<random>/`,
//! whose `work/` is all it may write, with mount points where its attempt's inputs are shown once it is taken up;
//! its log is `logs/<role>.log` there. After its hello every process of it is stopped. Its attempt takes it up: the
//! log becomes the attempt's, every thread of every process of it is moved to the attempt's CPUs while it is
//! stopped (a confined worker cannot move itself back), and only then is it shown the attempt's inputs. It serves
//! that one attempt, as a fresh session does (sealed at its answer, its output copied out while it is stopped and
//! checked against the seal), then is shut down; the record says where it was started
//! (`session.started_on`). A session that could not be started ahead, or that is gone when its attempt comes, is
//! not the attempt's: the attempt starts its own session, as it would have. That try is recorded all the same: a
//! start that failed ahead (a failed hello) is said, with why, atop the attempt's log of its role, so that no start
//! of a worker is unseen.

use std::path::Path;
use std::sync::atomic::Ordering;

use metewand_protocol::common::Role;
use metewand_protocol::generated::attempt_record::AttemptRecord;

use super::failure::Failure;
use super::held::{Ahead, Held, HeldSessions};
use super::journal::Journal;
use super::record::{LOG_PATHS, output_folder, role_index};
use super::run::{Attempt, Folders};
use super::store::remove_tree;
use super::{AttemptPlan, RunOptions};
use crate::cpus::CpuSet;
use crate::files::{Dir, FsError};
use crate::protocol::common::Capability;
use crate::repository::Worker;
use crate::session::{Evaluator, KernelSupport, MountConfinement, SessionError, SessionRole};

impl AttemptPlan<'_> {
    /// [`run_holding`](AttemptPlan::run_holding), and meanwhile, where `sessions` starts sessions ahead
    /// ([`HeldSessions::ahead_on`]) on CPUs apart from the attempt's own, the sessions of `next` (the attempt run
    /// after this one with the same `sessions`) started there, once this attempt's implementation is no longer
    /// timed, and held for it.
    pub fn run_ahead(
        &self,
        folder: &Path,
        options: &RunOptions,
        sessions: &mut HeldSessions,
        next: Option<&AttemptPlan<'_>>,
    ) -> AttemptRecord {
        let apart = |on: &CpuSet| options.cpus.as_ref().is_some_and(|cpus| cpus.is_disjoint(on));
        let on = sessions.ahead().filter(|on| apart(on)).cloned();
        let (Some(next), Some(on)) = (next, on) else {
            return self.run_holding(folder, options, sessions);
        };
        let kernel = sessions.kernel();
        let (timed_over, wait) = std::sync::mpsc::channel();
        std::thread::scope(|scope| {
            let on = &on;
            let starting = std::thread::Builder::new().name("mw-ahead".to_owned()).spawn_scoped(scope, move || {
                // Not before this attempt's timed requests are over: then no start-up runs while it is timed,
                // not even on the executor's CPUs, where the threads that time it run.
                let _ = wait.recv();
                next.start_ahead(options, on, kernel)
            });
            let record = self.run_telling(folder, options, sessions, Some(timed_over));
            let (implementation, evaluator) = match starting {
                Ok(handle) => handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                Err(_) => (Err(None), Err(None)),
            };
            sessions.hold_ahead(implementation, evaluator);
            record
        })
    }

    /// This attempt's implementation and evaluator sessions, each started on `on` and stopped after its hello, or
    /// why not: `None` where it is not tried (without a private view to show its inputs in, or cancelled), what
    /// happened where its start failed (its attempt then starts it, and says so).
    fn start_ahead(
        &self,
        options: &RunOptions,
        on: &CpuSet,
        kernel: KernelSupport,
    ) -> (Ahead<Held>, Ahead<Held<Evaluator>>) {
        if self.streams() {
            // A streamed attempt runs in fresh sessions (see `run_telling`).
            return (Err(None), Err(None));
        }
        let options = options.clone().cpus(on.clone());
        let selected = [self.selected()];
        let (implementation, capabilities) = (self.worker(self.implementation.worker()), &selected[..]);
        let evaluator = || self.start_one(&options, self.worker(self.problem.evaluator()), &[], on, kernel);
        if on.len() < 2 {
            // On one CPU two starts at once only take turns, each the slower for the other.
            let implementation = self.start_one(&options, implementation, capabilities, on, kernel);
            return (implementation, evaluator());
        }
        std::thread::scope(|scope| {
            let evaluator = std::thread::Builder::new().name("mw-ahead".to_owned()).spawn_scoped(scope, evaluator);
            let implementation = self.start_one(&options, implementation, capabilities, on, kernel);
            let evaluator = match evaluator {
                Ok(handle) => handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                Err(_) => Err(None),
            };
            (implementation, evaluator)
        })
    }

    fn start_one<R: SessionRole>(
        &self,
        options: &RunOptions,
        worker: &Worker,
        capabilities: &[Capability],
        on: &CpuSet,
        kernel: KernelSupport,
    ) -> Ahead<Held<R>> {
        let private = kernel.expected_with(worker.network(), options.process_isolation).mounts;
        if private != MountConfinement::Private || options.cancel.is_some_and(|flag| flag.load(Ordering::SeqCst)) {
            return Err(None);
        }
        // The session's places are made as an attempt's are, with its held folder as the attempt folder.
        let place = Attempt::new(self, &options.state_dir, options, None)
            .held_folder()
            .map_err(|failure| Some(failure.message.to_string()))?;
        let attempt = Attempt::ahead(self, place.path(), options);
        let started = (|| {
            let made = |error: FsError| error.to_string();
            let root = Dir::open(place.path()).map_err(made)?;
            let logs = root.create_dir("logs").map_err(made)?;
            let work = Dir::open(&place.path().join("work")).map_err(made)?;
            let folders = Folders { root, logs, work };
            let output =
                place.path().join("work").join(output_folder(R::ROLE).ok_or("a materializer is never started ahead")?);
            let (mut config, _source, _tmpdir) = attempt
                .session_config_in(&folders, &mut Journal::default(), worker, R::ROLE, &output, Some(place.path()))
                .map_err(|failure| failure.message.to_string())?;
            for &capability in capabilities {
                config = config.select(capability);
            }
            let mut session = crate::Session::<R>::connect(config).map_err(|error| error.to_string())?;
            session.pause().map_err(|error| error.to_string())?;
            Ok(session)
        })();
        let session = match started {
            Ok(session) => session,
            Err(why) => {
                let _ = remove_tree(place.path());
                return Err(Some(why));
            }
        };
        let worker = worker.identity().clone();
        let cells = Default::default();
        Ok(Held { session, worker, place, served: 0, cells, since: 0, warmup: 0, skip: 0..0, ahead: Some(on.clone()) })
    }
}

impl Attempt<'_, '_> {
    /// Takes up a session started ahead for this attempt, stopped: its log (what it wrote in its hello) becomes the
    /// attempt's log of its role, and it is moved to the attempt's CPUs.
    pub(super) fn adopt<R: SessionRole>(&self, held: &mut Held<R>, role: Role) -> Result<(), SessionError> {
        held.session.move_log(&self.folder.join(LOG_PATHS[role_index(role)]))?;
        match &self.cpus {
            Some(cpus) => held.session.move_to(cpus),
            None => Ok(()),
        }
    }
}

/// Ends a session started ahead once it served its attempt: shut down as a fresh session is, its shutdown and
/// resources recorded, its folder removed.
pub(super) fn end_ahead<R: SessionRole>(journal: &mut Journal, held: Held<R>) -> Result<(), Failure> {
    let Held { session, place, .. } = held;
    let before = session.phases().len();
    let ended = session.shutdown();
    let _ = remove_tree(place.path());
    match ended {
        Ok(summary) => {
            journal.phases.extend(summary.phases.into_iter().skip(before));
            journal.seen(R::ROLE).resources = Some(summary.resources);
            Ok(())
        }
        Err(error) => {
            journal.phases.extend(error.timing().cloned());
            Err(Failure::session(&error))
        }
    }
}
