//! The implementation stage: from the [`DatasetHeld`], the implementation's session (fresh, started ahead, or
//! reused, see `reuse.rs`), with the evaluator's started beside it where it may be (`prestart.rs`); its timed
//! requests and its result sealed at the execute answer (`timed.rs`); its end, and the checks after it (`verify.rs`).
//! Its output is a [`Sealed`]: what the evaluator's stage judges.

use std::path::PathBuf;
use std::sync::mpsc;

use metewand_protocol::common::Role;

use super::dataset::DatasetHeld;
use super::failure::{Failure, Tmpdir};
use super::held::Reuse;
use super::journal::Journal;
use super::prestart::{Prestarted, discard};
use super::profile::StreamedCheckpoint;
use super::record::{file_records, fresh_session};
use super::reuse::Serving;
use super::run::{Attempt, Folders};
use super::timed::Answer;
use crate::protocol::Phase;
use crate::session::{Evaluator, ExecuteParams, Implementation, PrepareParams};
use crate::validate::ValidatedResult;

/// The implementation's requests in a fresh session's attempt folder, and its `TMPDIR` there, which goes when the
/// session has ended.
pub(super) struct Requests {
    pub(super) prepare: PrepareParams,
    pub(super) execute: ExecuteParams,
    pub(super) tmpdir: Tmpdir,
}

/// The implementation stage's output: its session settled, and its result validated at the answer (and, from a
/// held session, copied into the attempt's `work/result/` and found the same).
pub(super) struct Sealed {
    pub(super) result: ValidatedResult,
    /// A streamed attempt's checkpoints, sealed and checked again after the session (see `profile.rs`).
    pub(super) checkpoints: Vec<StreamedCheckpoint>,
    /// The evaluator's session started beside the implementation's, if one was.
    pub(super) evaluator: Option<Prestarted>,
}

impl Attempt<'_, '_> {
    /// The implementation stage: its session, with the evaluator's started beside it where it may be (see
    /// [`Attempt::evaluator_config`]): both hellos run at once, and the evaluator is then stopped, every process of
    /// it, until the implementation's session has ended, so nothing of it runs while the implementation is timed.
    pub(super) fn seal(
        &self,
        folders: &Folders,
        dataset: &mut DatasetHeld,
        journal: &mut Journal,
        reuse: &mut Option<Reuse>,
    ) -> Result<Sealed, Failure> {
        let plan = self.plan;
        dataset.ensure(self, folders, journal)?;
        let worker = plan.worker(plan.implementation.worker());
        let result_dir = self.folder.join("work/result");
        let (start, tmpdir) = self.implementation_start(folders, journal, reuse, worker, &result_dir)?;
        let prepare = self.prepare_params(start.dataset_dir())?;
        let execute = ExecuteParams { result_dir: self.path(&result_dir)? };
        let evaluator = self.evaluator_config(folders, journal, reuse)?;
        let cycles = reuse.as_ref().map_or(self.warmup, |reuse| reuse.warmup);
        journal.last_worker = Some((Role::Implementation, Phase::Prepare));
        // The evaluator's start waits until the implementation's hello is under way: begun at once, the two took
        // turns on the CPUs, and the implementation's start (counted as the executor's, up to its hello) waited
        // for the evaluator's. Its hello then runs beside the implementation's.
        let (at_hello, implementation_greeted) = mpsc::channel();
        let at_hello = evaluator.is_some().then_some(at_hello);
        let (connected, evaluator) = std::thread::scope(|scope| {
            let evaluator = evaluator.map(|(config, tmpdir, params)| {
                let connecting =
                    std::thread::Builder::new().name("mw-prestart".to_owned()).spawn_scoped(scope, move || {
                        // Told, or the implementation's start ended without a hello: either way the evaluator starts.
                        let _ = implementation_greeted.recv();
                        crate::Session::<Evaluator>::connect(config)
                    });
                (connecting, tmpdir, params)
            });
            let connected = self.serve(journal, start, worker.identity(), &prepare, cycles, at_hello);
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
                journal.saw(&session);
                Prestarted::Ready { session: Box::new(session), tmpdir, params }
            }
            Ok(Err(error)) => Prestarted::Failed(Failure::session(&error), error.timing().cloned()),
            Err(failure) => Prestarted::Failed(failure, None),
        });
        let serving = match connected {
            Ok(serving) => serving,
            Err(failure) => {
                discard(journal, evaluator);
                return Err(dataset.after_session(self, failure, Role::Implementation, Phase::Hello));
            }
        };
        let requests = Requests { prepare, execute, tmpdir };
        let ran = match &mut evaluator {
            Some(Prestarted::Ready { session: stopped, .. }) => stopped
                .while_stopped(|| {
                    // What the evaluator made of its places in its hello is its own; what changes there while it is
                    // stopped is the implementation's doing (which Landlock forbids it: a foreign writer's).
                    let before = self.places(Role::ProblemEvaluator);
                    let served = self.serving_session(dataset, journal, reuse, serving, requests)?;
                    self.places_unchanged(journal, Role::ProblemEvaluator, &before).map(|()| served)
                })
                .unwrap_or_else(|error| Err(Failure::session(&error))),
            _ => self.serving_session(dataset, journal, reuse, serving, requests),
        };
        match ran {
            Ok((result, checkpoints)) => Ok(Sealed { result, checkpoints, evaluator }),
            Err(failure) => {
                discard(journal, evaluator);
                Err(failure)
            }
        }
    }

    /// `prepare` of the attempt, naming the dataset at `dataset_dir` (a held session's mount point) or at its entry.
    fn prepare_params(&self, dataset_dir: Option<PathBuf>) -> Result<PrepareParams, Failure> {
        let plan = self.plan;
        Ok(PrepareParams {
            dataset_dir: self.path(dataset_dir.as_deref().unwrap_or(&self.entry))?,
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
        &self,
        dataset: &mut DatasetHeld,
        journal: &mut Journal,
        reuse: &mut Option<Reuse>,
        serving: Serving,
        requests: Requests,
    ) -> Result<(ValidatedResult, Vec<StreamedCheckpoint>), Failure> {
        match serving {
            Serving::Fresh(session, skip) => {
                journal.implementation.session = Some(fresh_session(self.warmup));
                // The warm-up's phases are not the attempt's: they come first among the session's, wherever the
                // session's phases land in the journal.
                let base = journal.phases.len();
                let ran = self.implementation_session(dataset, journal, *session, requests);
                let end = (base + skip.end).min(journal.phases.len());
                journal.phases.drain((base + skip.start).min(end)..end);
                ran
            }
            Serving::Held(held) => {
                let Requests { prepare, tmpdir, .. } = requests;
                let result = self.held_session(dataset, journal, reuse, *held, prepare, tmpdir)?;
                Ok((result, Vec::new()))
            }
        }
    }

    /// The implementation's requests once its fresh session is connected, its seal, its end, and the checks after
    /// it.
    fn implementation_session(
        &self,
        dataset: &mut DatasetHeld,
        journal: &mut Journal,
        mut session: crate::Session<Implementation>,
        requests: Requests,
    ) -> Result<(ValidatedResult, Vec<StreamedCheckpoint>), Failure> {
        let Requests { prepare, execute, tmpdir } = requests;
        let result_dir = self.folder.join("work/result");
        journal.saw(&session);
        journal.implementation.cpus = Some(session.cpus().clone());
        let (last, outcome) = self.timed_requests(journal, &mut session, prepare, execute, &result_dir, false);
        let settled = journal.settle(session, outcome, Role::Implementation);
        let Answer { response, sealed, checkpoints } = match settled {
            Ok(settled) => settled,
            Err(failure) => return Err(dataset.after_session(self, failure, Role::Implementation, last)),
        };
        tmpdir.remove()?;
        journal.implementation_time_ns = response.implementation_time_ns;
        journal.statistics = Some(response.statistics.clone());
        dataset.verify(self, Role::Implementation, last)?;
        let result = sealed.map_err(|e| Failure::output(Role::Implementation, Phase::Execute, &e))?;
        journal.result = Some(file_records(result.files()));
        self.verify_checkpoints(&checkpoints, Role::Implementation, Phase::Shutdown, "after it was sealed")?;
        let when = "after the implementation worker answered execute";
        self.verify_result(&result, Role::Implementation, Phase::Shutdown, when)?;
        Ok((result, checkpoints))
    }
}
