//! The evaluator's stage, from the implementation's [`Sealed`] result: its session, a fresh one (started beside the
//! implementation's, see `prestart.rs`, or after it), one started ahead of the attempt (`ahead.rs`), or a reused
//! one; its verdict and metrics noted in the journal for the record.
//!
//! With reused sessions (DESIGN §19) one evaluator process judges the consecutive attempts of a slot, as a held
//! implementation session serves its worker's (see `reuse.rs`).
//!
//! It lives in a held folder of its own: it may write only `work/` (its `TMPDIR` and one `work/metrics-<n>/` per
//! attempt), and its view has two mount points where each attempt's dataset (`dataset/`) and result (`result/`, the
//! attempt's validated copy) are shown read-only in place of the last. Its metrics are sealed at the `evaluate` answer
//! (validated while it is stopped), copied into the attempt's `work/metrics/` and checked to be what was sealed; it
//! stays stopped until the next attempt's `evaluate`. A failure of a session that already judged an attempt ends it,
//! and the attempt is judged again by a new one.

use std::path::Path;
use std::time::Instant;

use metewand_protocol::common::Role;
use metewand_protocol::generated::attempt_record::FailureKind;

use super::ahead::end_ahead;
use super::dataset::DatasetHeld;
use super::failure::{Failure, Tmpdir};
use super::held::{Held, Reuse, request_folder};
use super::journal::Journal;
use super::prestart::{Prestarted, discard};
use super::profile::{checkpoint_folders, checkpoint_metrics};
use super::record::{LOG_PATHS, ahead_session, fresh_session, reused_session, role_index};
use super::run::{Attempt, Folders};
use super::seal::Sealed;
use super::store::remove_tree;
use crate::protocol::Phase;
use crate::session::{EvaluateParams, Evaluator};
use crate::validate::{ValidatedMetrics, ValidatedResult};

impl Attempt<'_, '_> {
    /// The evaluator's stage, from the [`Sealed`] implementation: by a held session (reused, or started ahead of the
    /// attempt) where there is one, otherwise by a fresh one (the one started beside the implementation's, or new).
    pub(super) fn judge(
        &self,
        folders: &Folders,
        dataset: &mut DatasetHeld,
        mut sealed: Sealed,
        journal: &mut Journal,
        reuse: &mut Option<Reuse>,
    ) -> Result<(), Failure> {
        if self.evaluator_held(reuse) {
            discard(journal, sealed.evaluator.take());
            return self.held_evaluation(folders, dataset, sealed, journal, reuse);
        }
        self.fresh_evaluation(folders, dataset, sealed, journal)
    }

    /// The evaluator's fresh session: the one started beside the implementation's, or a new one. A started session is
    /// used only while the dataset entry it was shown is still the store's (another run may have replaced it since,
    /// which a session's view cannot follow); otherwise it is ended, its places removed, and a new one started.
    fn fresh_evaluation(
        &self,
        folders: &Folders,
        dataset: &mut DatasetHeld,
        sealed: Sealed,
        journal: &mut Journal,
    ) -> Result<(), Failure> {
        let plan = self.plan;
        let Sealed { result, mut checkpoints, evaluator: prestarted } = sealed;
        let prestarted = match prestarted {
            Some(prestarted) if !dataset.is_held(self) => {
                discard(journal, Some(prestarted));
                self.remove_places(journal, Role::ProblemEvaluator)?;
                None
            }
            prestarted => prestarted,
        };
        dataset.ensure(self, folders, journal)?;
        let metrics_dir = self.folder.join("work/metrics");
        let (mut session, tmpdir, params) = match prestarted {
            Some(Prestarted::Ready { session, tmpdir, params }) => (*session, tmpdir, params),
            Some(Prestarted::Failed(failure, timing)) => {
                journal.phases.extend(timing);
                return Err(dataset.after_session(self, failure, Role::ProblemEvaluator, Phase::Hello));
            }
            None => {
                // What is found in the evaluator's places now is the last worker's (the implementation's) doing.
                let (config, tmpdir, params) = self.evaluator_session_config(folders, journal)?;
                journal.last_worker = Some((Role::ProblemEvaluator, Phase::Evaluate));
                let session = match journal.connect::<Evaluator>(config) {
                    Ok(session) => session,
                    Err(failure) => {
                        return Err(dataset.after_session(self, failure, Role::ProblemEvaluator, Phase::Hello));
                    }
                };
                journal.saw(&session);
                (session, tmpdir, params)
            }
        };
        journal.last_worker = Some((Role::ProblemEvaluator, Phase::Evaluate));
        journal.evaluator.session = Some(fresh_session(0));
        checkpoint_folders(&checkpoints, &metrics_dir)?;
        let outcome = self.evaluate_checkpoints(&mut session, &params, &metrics_dir, &mut checkpoints).and_then(|()| {
            if let Some(budget) = plan.repository.budgets().evaluation {
                session.set_scientific_deadline(Instant::now() + budget);
            }
            session.evaluate(params)
        });
        journal.profile = self.profile_record(&checkpoints).unwrap_or_default();
        if let Ok(response) = &outcome {
            journal.verdict = Some(response.verdict);
        }
        if let Err(failure) = journal.settle(session, outcome, Role::ProblemEvaluator) {
            return Err(dataset.after_session(self, failure, Role::ProblemEvaluator, Phase::Evaluate));
        }
        tmpdir.remove()?;
        dataset.verify(self, Role::ProblemEvaluator, Phase::Evaluate)?;
        let during = "during the problem_evaluator worker's session";
        self.verify_checkpoints(&checkpoints, Role::ProblemEvaluator, Phase::Evaluate, during)?;
        self.verify_result(&result, Role::ProblemEvaluator, Phase::Evaluate, during)?;
        checkpoint_metrics(&checkpoints)?;
        let metrics = self
            .validator()
            .validate_metrics(plan.problem, &metrics_dir)
            .map_err(|e| Failure::output(Role::ProblemEvaluator, Phase::Evaluate, &e))?;
        journal.metrics = Some(metrics.metrics().metrics.clone());
        Ok(())
    }

    /// The attempt's evaluation by the held evaluator session of its worker, or by a new one that is then held.
    fn held_evaluation(
        &self,
        folders: &Folders,
        dataset: &mut DatasetHeld,
        sealed: Sealed,
        journal: &mut Journal,
        reuse: &mut Option<Reuse>,
    ) -> Result<(), Failure> {
        let worker = self.plan.worker(self.plan.problem.evaluator());
        let held = reuse.as_mut().and_then(|reuse| reuse.evaluator.take());
        let held = match held {
            Some(held) if &held.worker == worker.identity() && held.session.is_running() => Some(held),
            Some(other) => {
                other.end();
                None
            }
            None => None,
        };
        if held.is_none() && !reuse.as_ref().is_some_and(|reuse| reuse.keeps) {
            // The evaluator started ahead is gone: a fresh session judges, as it would have without one.
            return self.fresh_evaluation(folders, dataset, sealed, journal);
        }
        let result = &sealed.result;
        let judged = held.as_ref().is_some_and(|held| held.served > 0);
        let phases = journal.phases.len();
        match self.evaluate_held(folders, dataset, result, journal, reuse, held) {
            Err(failure) if judged && failure.kind != FailureKind::Cancelled => {
                journal.phases.truncate(phases);
                journal.verdict = None;
                self.clear_for_new_evaluator(journal, &failure)?;
                self.evaluate_held(folders, dataset, result, journal, reuse, None)
            }
            judged => judged,
        }
    }

    /// The held evaluator session taken up for this attempt (its log the attempt's, and, started ahead, moved to
    /// the attempt's CPUs), or a new one started in a held folder when `held` is `None`; with its `TMPDIR` in the
    /// attempt.
    fn evaluator_for_held(
        &self,
        folders: &Folders,
        dataset: &mut DatasetHeld,
        journal: &mut Journal,
        held: Option<Held<Evaluator>>,
    ) -> Result<(Held<Evaluator>, Tmpdir), Failure> {
        let worker = self.plan.worker(self.plan.problem.evaluator());
        let Some(mut held) = held else {
            let place = self.held_folder()?;
            let metrics_dir = self.folder.join("work/metrics");
            let made = self.session_config_in(
                folders,
                journal,
                worker,
                Role::ProblemEvaluator,
                &metrics_dir,
                Some(place.path()),
            );
            let (config, _source, tmpdir) = match made {
                Ok(made) => made,
                Err(failure) => {
                    let _ = remove_tree(place.path());
                    return Err(failure);
                }
            };
            let session = match journal.connect::<Evaluator>(config) {
                Ok(session) => session,
                Err(failure) => {
                    let _ = remove_tree(place.path());
                    return Err(dataset.after_session(self, failure, Role::ProblemEvaluator, Phase::Hello));
                }
            };
            let worker = worker.identity().clone();
            let skip = 0..0;
            let cells = Default::default();
            return Ok((
                Held { session, worker, place, served: 0, cells, since: 0, warmup: 0, skip, ahead: None },
                tmpdir,
            ));
        };
        let tmpdir = self.prepare_places(folders, journal, Role::ProblemEvaluator, true)?;
        let log = self.folder.join(LOG_PATHS[role_index(Role::ProblemEvaluator)]);
        held.since = held.session.phases().len();
        let taken = match held.ahead {
            Some(_) => {
                held.since = 0;
                self.adopt(&mut held, Role::ProblemEvaluator)
            }
            None => held.session.redirect_log(&log),
        };
        if let Err(error) = taken {
            journal.phases.extend(held.session.phases()[held.since..].iter().cloned());
            held.end();
            return Err(dataset.after_session(self, Failure::session(&error), Role::ProblemEvaluator, Phase::Evaluate));
        }
        journal.logs[role_index(Role::ProblemEvaluator)] = true;
        Ok((held, tmpdir))
    }

    /// One evaluation in `held`, or in a new held session when `None`: sealed at the answer, its metrics copied out
    /// and checked; the session is then kept (or, started ahead, ended), or ended on any failure.
    fn evaluate_held(
        &self,
        folders: &Folders,
        dataset: &mut DatasetHeld,
        result: &ValidatedResult,
        journal: &mut Journal,
        reuse: &mut Option<Reuse>,
        held: Option<Held<Evaluator>>,
    ) -> Result<(), Failure> {
        let plan = self.plan;
        dataset.ensure(self, folders, journal)?;
        journal.last_worker = Some((Role::ProblemEvaluator, Phase::Evaluate));
        let (mut held, tmpdir) = self.evaluator_for_held(folders, dataset, journal, held)?;
        journal.saw(&held.session);
        journal.evaluator.session = Some(match &held.ahead {
            Some(on) => ahead_session(on),
            None => reused_session(held.served, 0),
        });
        let folder = held.place.path().to_owned();
        let metrics_dir = folder.join(format!("work/metrics-{}", held.served));
        let (result_dir, dataset_at, result_at) =
            (self.folder.join("work/result"), folder.join("dataset"), folder.join("result"));
        let shown = held
            .session
            .show_all_in_place_of(&[(&self.entry, &dataset_at), (&result_dir, &result_at)])
            .map_err(|error| Failure::session(&error))
            .and_then(|()| request_folder(&folder, &format!("metrics-{}", held.served)).map(drop));
        let params = shown.and_then(|()| {
            Ok(EvaluateParams {
                dataset_dir: self.path(&folder.join("dataset"))?,
                result_dir: self.path(&folder.join("result"))?,
                metrics_path: self.path(&metrics_dir.join("metrics.json"))?,
                problem_contract_id: plan.problem.contract_id().into(),
                problem_parameters: plan.problem.parameters().clone(),
            })
        });
        let params = match params {
            Ok(params) => params,
            Err(failure) => {
                journal.phases.extend(held.session.phases()[held.since..].iter().cloned());
                held.end();
                return Err(failure);
            }
        };
        if let Some(budget) = plan.repository.budgets().evaluation {
            held.session.set_scientific_deadline(Instant::now() + budget);
        }
        let session = &mut held.session;
        let validator = self.validator();
        let outcome = session.evaluate(params).and_then(|response| {
            // Sealed at the answer, as an implementation's result is; the worker then stays stopped.
            let sealed = session.while_paused(|| validator.validate_metrics(plan.problem, &metrics_dir))?;
            session.clear_scientific_deadline();
            Ok((response, sealed))
        });
        journal.phases.extend(held.session.phases()[held.since..].iter().cloned());
        let (response, sealed) = match outcome {
            Ok(done) => done,
            Err(error) => {
                held.end();
                let failure = Failure::session(&error);
                return Err(dataset.after_session(self, failure, Role::ProblemEvaluator, Phase::Evaluate));
            }
        };
        journal.verdict = Some(response.verdict);
        let during = "during the problem_evaluator worker's session";
        let checked = tmpdir
            .remove()
            .and_then(|()| dataset.verify(self, Role::ProblemEvaluator, Phase::Evaluate))
            .and_then(|()| self.verify_result(result, Role::ProblemEvaluator, Phase::Evaluate, during))
            .and_then(|()| sealed.map_err(|e| Failure::output(Role::ProblemEvaluator, Phase::Evaluate, &e)))
            .and_then(|sealed| self.copy_metrics(&sealed, &metrics_dir));
        let _ = remove_tree(&metrics_dir);
        match checked {
            Ok(metrics) if held.ahead.is_some() => {
                journal.metrics = Some(metrics.metrics().metrics.clone());
                end_ahead(journal, held)
            }
            Ok(metrics) => {
                journal.metrics = Some(metrics.metrics().metrics.clone());
                held.served += 1;
                if let Some(reuse) = reuse.as_mut() {
                    reuse.evaluator = Some(held);
                }
                Ok(())
            }
            Err(failure) => {
                held.end();
                Err(failure)
            }
        }
    }

    /// The sealed metrics copied into the attempt's `work/metrics/`, validated there and found to be what was sealed.
    fn copy_metrics(&self, sealed: &ValidatedMetrics, from: &Path) -> Result<ValidatedMetrics, Failure> {
        let target = self.folder.join("work/metrics");
        crate::files::copy_beneath(from, &target, [sealed.file().path()])
            .map_err(|source| Failure::executor("copying a reused session's metrics", source))?;
        let copied = self
            .validator()
            .validate_metrics(self.plan.problem, &target)
            .map_err(|error| Failure::output(Role::ProblemEvaluator, Phase::Evaluate, &error))?;
        if copied.file().sha256() != sealed.file().sha256() || copied.file().size() != sealed.file().size() {
            let message = "the metrics changed while they were copied out of the reused session".to_owned();
            return Err(Failure::new(
                Some(Role::ProblemEvaluator),
                Some(Phase::Evaluate),
                FailureKind::InvalidOutput,
                message,
            ));
        }
        Ok(copied)
    }
}
