//! The evaluator's session: a fresh one (started beside the implementation's, see `prestart.rs`, or after it), one
//! started ahead of the attempt (`ahead.rs`), or a reused one.
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

use super::reuse::*;
use super::run::*;
use super::*;

use crate::session::Evaluator;

impl Run<'_, '_> {
    /// The attempt's evaluation: by a held session (reused, or started ahead of the attempt) where there is one,
    /// otherwise by a fresh one (`prestarted` beside the implementation's, or new).
    pub(super) fn run_evaluator(&mut self, prestarted: Option<Prestarted>) -> Result<(), Failure> {
        if self.evaluator_held() {
            self.discard(prestarted);
            return self.held_evaluation();
        }
        self.fresh_evaluation(prestarted)
    }

    /// The evaluator's fresh session: the one started beside the implementation's, or a new one. A started session is
    /// used only while the dataset entry it was shown is still the store's (another run may have replaced it since,
    /// which a session's view cannot follow); otherwise it is ended, its places removed, and a new one started.
    pub(super) fn fresh_evaluation(&mut self, prestarted: Option<Prestarted>) -> Result<(), Failure> {
        let plan = self.attempt.plan;
        let held = self.entry_dir.as_ref().is_some_and(|dir| dir.is_at(&self.attempt.entry));
        let prestarted = match prestarted {
            Some(prestarted) if !held => {
                self.discard(Some(prestarted));
                self.remove_places(Role::ProblemEvaluator)?;
                None
            }
            prestarted => prestarted,
        };
        self.ensure_dataset()?;
        let metrics_dir = self.attempt.folder.join("work/metrics");
        let (mut session, tmpdir, params) = match prestarted {
            Some(Prestarted::Ready { session, tmpdir, params }) => (*session, tmpdir, params),
            Some(Prestarted::Failed(failure, timing)) => {
                self.journal.phases.extend(timing);
                return Err(self.after_dataset_session(failure, Role::ProblemEvaluator, Phase::Hello));
            }
            None => {
                // What is found in the evaluator's places now is the last worker's (the implementation's) doing.
                let (config, tmpdir, params) = self.evaluator_session_config()?;
                self.journal.last_worker = Some((Role::ProblemEvaluator, Phase::Evaluate));
                let session = match self.journal.connect::<Evaluator>(config) {
                    Ok(session) => session,
                    Err(failure) => {
                        return Err(self.after_dataset_session(failure, Role::ProblemEvaluator, Phase::Hello));
                    }
                };
                self.journal.saw(&session);
                (session, tmpdir, params)
            }
        };
        self.journal.last_worker = Some((Role::ProblemEvaluator, Phase::Evaluate));
        self.journal.evaluator.session = Some(fresh_session());
        self.checkpoint_folders(&metrics_dir)?;
        let outcome = self.evaluate_checkpoints(&mut session, &params, &metrics_dir).and_then(|()| {
            if let Some(budget) = plan.repository.budgets().evaluation {
                session.set_scientific_deadline(Instant::now() + budget);
            }
            session.evaluate(params)
        });
        if let Ok(response) = &outcome {
            self.journal.verdict = Some(response.verdict);
        }
        if let Err(failure) = self.journal.settle(session, outcome, Role::ProblemEvaluator) {
            return Err(self.after_dataset_session(failure, Role::ProblemEvaluator, Phase::Evaluate));
        }
        tmpdir.remove()?;
        self.verify_dataset(Role::ProblemEvaluator, Phase::Evaluate)?;
        let during = "during the problem_evaluator worker's session";
        self.verify_checkpoints(Role::ProblemEvaluator, Phase::Evaluate, during)?;
        self.verify_result(Role::ProblemEvaluator, Phase::Evaluate, during)?;
        self.checkpoint_metrics()?;
        let metrics = self
            .validator()
            .validate_metrics(plan.problem, &metrics_dir)
            .map_err(|e| Failure::output(Role::ProblemEvaluator, Phase::Evaluate, &e))?;
        self.journal.metrics = Some(metrics.metrics().metrics.clone());
        Ok(())
    }

    /// Whether this attempt's evaluation goes through a held evaluator session: with reused sessions, where the
    /// evaluator has a private view to be shown each attempt's inputs in; with fresh ones, where its evaluator was
    /// started ahead of it.
    pub(super) fn evaluator_held(&self) -> bool {
        let worker = self.attempt.plan.worker(self.attempt.plan.problem.evaluator());
        self.reuse.as_ref().is_some_and(|reuse| {
            let started = reuse.evaluator.as_ref().is_some_and(|held| &held.worker == worker.identity());
            (reuse.keeps || started) && reuse.private_view(worker, self.attempt.process_isolation)
        })
    }

    /// The attempt's evaluation by the held evaluator session of its worker, or by a new one that is then held.
    pub(super) fn held_evaluation(&mut self) -> Result<(), Failure> {
        let worker = self.attempt.plan.worker(self.attempt.plan.problem.evaluator());
        let held = self.reuse.as_mut().and_then(|reuse| reuse.evaluator.take());
        let held = match held {
            Some(held) if &held.worker == worker.identity() && held.session.is_running() => Some(held),
            Some(other) => {
                other.end();
                None
            }
            None => None,
        };
        if held.is_none() && !self.reuse.as_ref().is_some_and(|reuse| reuse.keeps) {
            // The evaluator started ahead is gone: a fresh session judges, as it would have without one.
            return self.fresh_evaluation(None);
        }
        let judged = held.as_ref().is_some_and(|held| held.served > 0);
        let phases = self.journal.phases.len();
        match self.evaluate_held(held) {
            Err(failure) if judged && failure.kind != FailureKind::Cancelled => {
                self.journal.phases.truncate(phases);
                self.journal.verdict = None;
                self.clear_for_new_evaluator(&failure)?;
                self.evaluate_held(None)
            }
            judged => judged,
        }
    }

    /// One evaluation in `held`, or in a new held session when `None`.
    fn evaluate_held(&mut self, held: Option<Held<Evaluator>>) -> Result<(), Failure> {
        let plan = self.attempt.plan;
        let worker = plan.worker(plan.problem.evaluator());
        self.ensure_dataset()?;
        self.journal.last_worker = Some((Role::ProblemEvaluator, Phase::Evaluate));
        let (mut held, tmpdir) = match held {
            Some(mut held) => {
                let tmpdir = self.prepare_places(Role::ProblemEvaluator)?;
                let log = self.attempt.folder.join(LOG_PATHS[role_index(Role::ProblemEvaluator)]);
                held.since = held.session.phases().len();
                let taken = match held.ahead {
                    Some(_) => {
                        held.since = 0;
                        self.adopt(&mut held, Role::ProblemEvaluator)
                    }
                    None => held.session.redirect_log(&log),
                };
                if let Err(error) = taken {
                    self.journal.phases.extend(held.session.phases()[held.since..].iter().cloned());
                    held.end();
                    return Err(self.after_dataset_session(
                        Failure::session(&error),
                        Role::ProblemEvaluator,
                        Phase::Evaluate,
                    ));
                }
                self.journal.logs[role_index(Role::ProblemEvaluator)] = true;
                (held, tmpdir)
            }
            None => {
                let place = self.attempt.held_folder()?;
                let metrics_dir = self.attempt.folder.join("work/metrics");
                let made = self.session_config_in(worker, Role::ProblemEvaluator, &metrics_dir, Some(place.path()));
                let (config, _source, tmpdir) = match made {
                    Ok(made) => made,
                    Err(failure) => {
                        let _ = remove_tree(place.path());
                        return Err(failure);
                    }
                };
                let session = match self.journal.connect::<Evaluator>(config) {
                    Ok(session) => session,
                    Err(failure) => {
                        let _ = remove_tree(place.path());
                        return Err(self.after_dataset_session(failure, Role::ProblemEvaluator, Phase::Hello));
                    }
                };
                let worker = worker.identity().clone();
                let skip = 0..0;
                let cells = Default::default();
                (Held { session, worker, place, served: 0, cells, since: 0, warmup: 0, skip, ahead: None }, tmpdir)
            }
        };
        self.journal.saw(&held.session);
        self.journal.evaluator.session = Some(match &held.ahead {
            Some(on) => ahead_session(on),
            None => reused_session(held.served, 0),
        });
        let folder = held.place.path().to_owned();
        let metrics_dir = folder.join(format!("work/metrics-{}", held.served));
        let shown = held
            .session
            .show_in_place_of(&self.attempt.entry, &folder.join("dataset"))
            .and_then(|()| {
                held.session.show_in_place_of(&self.attempt.folder.join("work/result"), &folder.join("result"))
            })
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
                self.journal.phases.extend(held.session.phases()[held.since..].iter().cloned());
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
        self.journal.phases.extend(held.session.phases()[held.since..].iter().cloned());
        let (response, sealed) = match outcome {
            Ok(done) => done,
            Err(error) => {
                held.end();
                return Err(self.after_dataset_session(
                    Failure::session(&error),
                    Role::ProblemEvaluator,
                    Phase::Evaluate,
                ));
            }
        };
        self.journal.verdict = Some(response.verdict);
        let checked = tmpdir
            .remove()
            .and_then(|()| self.verify_dataset(Role::ProblemEvaluator, Phase::Evaluate))
            .and_then(|()| {
                self.verify_result(
                    Role::ProblemEvaluator,
                    Phase::Evaluate,
                    "during the problem_evaluator worker's session",
                )
            })
            .and_then(|()| sealed.map_err(|e| Failure::output(Role::ProblemEvaluator, Phase::Evaluate, &e)))
            .and_then(|sealed| self.copy_metrics(&sealed, &metrics_dir));
        let _ = remove_tree(&metrics_dir);
        match checked {
            Ok(metrics) if held.ahead.is_some() => {
                self.journal.metrics = Some(metrics.metrics().metrics.clone());
                self.end_ahead(held)
            }
            Ok(metrics) => {
                self.journal.metrics = Some(metrics.metrics().metrics.clone());
                held.served += 1;
                if let Some(reuse) = self.reuse.as_mut() {
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
    fn copy_metrics(
        &self,
        sealed: &crate::validate::ValidatedMetrics,
        from: &Path,
    ) -> Result<crate::validate::ValidatedMetrics, Failure> {
        let target = self.attempt.folder.join("work/metrics");
        crate::files::copy_beneath(from, &target, [sealed.file().path()])
            .map_err(|source| Failure::executor("copying a reused session's metrics", source))?;
        let copied = self
            .validator()
            .validate_metrics(self.attempt.plan.problem, &target)
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
