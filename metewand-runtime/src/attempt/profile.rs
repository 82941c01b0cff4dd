//! A streamed attempt (`streaming_profile`, DESIGN §20): the implementation's `execute_stream`, each checkpoint
//! sealed while the worker is stopped; each checkpoint checked again after the session, and judged by the
//! evaluator, one `evaluate` each in its one session before the final result's; the record's
//! `implementation.profile`.
//!
//! A checkpoint lies in `checkpoints/<n>/` of the result directory, its manifest `result.json` there, validated as
//! a result of its own (its folder opened without following links); the final result is the rest of the directory.
//! A streamed attempt runs in fresh sessions.

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use metewand_protocol::common::{Role, Verdict};
use metewand_protocol::generated::attempt_record as rec;
use metewand_protocol::generated::attempt_record::FailureKind;
use metewand_protocol::strict::SafeUint;

use super::failure::Failure;
use super::run::Attempt;
use super::store::remove_tree;
use crate::files::FsError;
use crate::protocol::Phase;
use crate::protocol::messages::ExecuteResponse;
use crate::session::{
    Checkpoint, EvaluateParams, Evaluator, ExecuteParams, ExecuteStreamParams, Implementation, Sealed, SessionError,
};
use crate::validate::{RESULT_MANIFEST, ResultLayout, ValidatedMetrics, ValidatedResult, ValidationError};

/// A checkpoint of the attempt: when it came, its seal, and how the evaluator judged it.
pub(super) struct StreamedCheckpoint {
    pub(super) number: u64,
    pub(super) time: Duration,
    pub(super) sealed: Result<ValidatedResult, ValidationError>,
    pub(super) judged: Option<(Verdict, Result<ValidatedMetrics, ValidationError>)>,
}

impl Attempt<'_, '_> {
    /// Where the final result lies in the result directory.
    pub(super) fn result_layout(&self) -> ResultLayout {
        if self.plan.streams() { ResultLayout::Streamed } else { ResultLayout::Whole }
    }

    /// The implementation's `execute_stream`: every checkpoint sealed while the worker is stopped (an invalid one
    /// ends the stream: the attempt has failed), and kept for the checks and the evaluation after the session.
    pub(super) fn execute_streamed(
        &self,
        session: &mut crate::Session<Implementation>,
        execute: ExecuteParams,
        result_dir: &Path,
    ) -> Result<(ExecuteResponse, Vec<StreamedCheckpoint>), SessionError> {
        let plan = self.plan;
        let validator = self.validator();
        let max = plan.problem.profile().expect("a streamed attempt's problem has a profile");
        let params = ExecuteStreamParams {
            result_dir: execute.result_dir,
            max_checkpoints: SafeUint::try_from(max).expect("a profile allows at most MAX_CHECKPOINTS"),
        };
        let streamed = session.execute_stream(params, |checkpoint: &Checkpoint| {
            let layout = ResultLayout::Checkpoint(checkpoint.number);
            let sealed = validator.validate_result_in(plan.problem, result_dir, layout, RESULT_MANIFEST);
            let go_on = sealed.is_ok();
            Sealed { value: sealed, go_on }
        })?;
        let checkpoints = streamed
            .checkpoints
            .into_iter()
            .map(|(checkpoint, sealed)| StreamedCheckpoint {
                number: checkpoint.number,
                time: checkpoint.time,
                sealed,
                judged: None,
            })
            .collect();
        Ok((streamed.response, checkpoints))
    }

    /// A streamed result's `checkpoints/` holding only the announced checkpoints, and every checkpoint valid at its
    /// seal and unchanged since: anything else is `role`'s invalid output in `phase`, a change's message saying it
    /// changed `when`.
    pub(super) fn verify_checkpoints(
        &self,
        checkpoints: &[StreamedCheckpoint],
        role: Role,
        phase: Phase,
        when: &str,
    ) -> Result<(), Failure> {
        if !self.plan.streams() {
            return Ok(());
        }
        let validator = self.validator();
        // Nothing in `checkpoints/` but the announced checkpoints' folders: every byte left there is validated.
        let announced = checkpoints.len() as u64;
        if let Err(error) = validator.check_checkpoint_folders(&self.folder.join("work/result"), announced) {
            if let Some(cancelled) = Failure::cancelled(&error) {
                return Err(cancelled);
            }
            return Err(Failure::output(role, phase, &error));
        }
        for checkpoint in checkpoints {
            let original = match &checkpoint.sealed {
                Ok(original) => original,
                Err(error) => return Err(Failure::output(Role::Implementation, Phase::Execute, error)),
            };
            if let Some(problem) = self.change_since(original)? {
                let message = format!("checkpoint {} changed {when}: {problem}", checkpoint.number);
                return Err(Failure::new(Some(role), Some(phase), FailureKind::InvalidOutput, message));
            }
        }
        Ok(())
    }

    /// One `evaluate` per checkpoint, in order, in the evaluator's session, before the final result's: each judges
    /// `checkpoints/<n>/` of the result and writes its metrics in a folder of its own beside the final metrics' place,
    /// sealed at the answer (validated while the evaluator is stopped) and then removed.
    pub(super) fn evaluate_checkpoints(
        &self,
        session: &mut crate::Session<Evaluator>,
        params: &EvaluateParams,
        metrics_dir: &Path,
        checkpoints: &mut [StreamedCheckpoint],
    ) -> Result<(), SessionError> {
        let plan = self.plan;
        let validator = self.validator();
        let metrics_parent = params.metrics_path.as_str().rsplit_once('/').map_or("", |(parent, _)| parent);
        for checkpoint in checkpoints {
            let n = checkpoint.number;
            let folder = metrics_dir.join(format!("checkpoint-{n}"));
            let wire = |text: String| crate::protocol::messages::Path::try_from(text).expect("a nonempty path");
            let params = EvaluateParams {
                result_dir: wire(format!("{}/{}/{n}", params.result_dir.as_str(), ResultLayout::CHECKPOINTS)),
                metrics_path: wire(format!("{metrics_parent}/checkpoint-{n}/{}", crate::validate::METRICS_FILE)),
                ..params.clone()
            };
            if let Some(budget) = plan.repository.budgets().evaluation {
                session.set_scientific_deadline(Instant::now() + budget);
            }
            let response = session.evaluate(params)?;
            let sealed = session.while_stopped(|| {
                let sealed = validator.validate_metrics(plan.problem, &folder);
                // Out of the final metrics' place; what the evaluator writes there later is its invalid output.
                let _ = remove_tree(&folder);
                sealed
            })?;
            checkpoint.judged = Some((response.verdict, sealed));
        }
        Ok(())
    }

    /// The record's `implementation.profile`: once every checkpoint was judged.
    pub(super) fn profile_record(&self, checkpoints: &[StreamedCheckpoint]) -> Option<Vec<rec::ProfilePoint>> {
        if !self.plan.streams() || checkpoints.iter().any(|checkpoint| checkpoint.judged.is_none()) {
            return None;
        }
        checkpoints
            .iter()
            .map(|checkpoint| {
                let (verdict, metrics) = checkpoint.judged.as_ref()?;
                let metrics = metrics.as_ref().ok()?;
                Some(rec::ProfilePoint {
                    checkpoint: SafeUint::try_from(checkpoint.number).ok()?,
                    time_ns: SafeUint::try_from(u64::try_from(checkpoint.time.as_nanos()).ok()?).ok()?,
                    metrics: metrics.metrics().metrics.clone(),
                    verdict: *verdict,
                })
            })
            .collect()
    }
}

/// The folder of each checkpoint's metrics, `checkpoint-<n>/` in the evaluator's output folder, made before
/// its session judges anything and given to the identity it runs as.
pub(super) fn checkpoint_folders(checkpoints: &[StreamedCheckpoint], metrics_dir: &Path) -> Result<(), Failure> {
    for checkpoint in checkpoints {
        let dir = metrics_dir.join(format!("checkpoint-{}", checkpoint.number));
        fs::create_dir(&dir).and_then(|()| crate::session::hand_over(&dir)).map_err(|source| {
            Failure::executor(
                "preparing the evaluation of a checkpoint",
                FsError::Io { action: "create", path: dir, source },
            )
        })?;
    }
    Ok(())
}

/// Every checkpoint's metrics as sealed, or the evaluator's invalid output.
pub(super) fn checkpoint_metrics(checkpoints: &[StreamedCheckpoint]) -> Result<(), Failure> {
    for checkpoint in checkpoints {
        if let Some((_, Err(error))) = &checkpoint.judged {
            return Err(Failure::output(Role::ProblemEvaluator, Phase::Evaluate, error));
        }
    }
    Ok(())
}
