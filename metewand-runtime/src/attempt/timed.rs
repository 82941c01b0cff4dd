//! The implementation's timed requests and the seal at its answer, as a fresh or a held session (`reuse.rs`) runs
//! them: `prepare` then `execute` (or `execute_stream`, `profile.rs`) under its budget, and its result validated
//! while every process of the worker is stopped; an [`Answer`] is what they come to.

use std::path::Path;
use std::time::Instant;

use metewand_protocol::common::Role;

use super::journal::Journal;
use super::profile::StreamedCheckpoint;
use super::run::Attempt;
use crate::protocol::Phase;
use crate::protocol::messages::ExecuteResponse;
use crate::session::{ExecuteParams, Implementation, PrepareParams, SessionError};
use crate::validate::{ValidatedResult, ValidationError};

/// An execute answer, with what validating its result at the answer found, and a streamed attempt's checkpoints,
/// each sealed when it was announced (see [`Attempt::timed_requests`]).
pub(super) struct Answer {
    pub(super) response: ExecuteResponse,
    pub(super) sealed: Result<ValidatedResult, ValidationError>,
    pub(super) checkpoints: Vec<StreamedCheckpoint>,
}

impl Attempt<'_, '_> {
    /// The implementation's timed requests, `prepare` then `execute` under its budget, and the seal: the result is
    /// validated (walked and hashed) at the execute answer, while every process of the worker is stopped, before the
    /// session goes on. What the worker does after its answer can only break the seal, never count. Returns the last
    /// request sent, which becomes the attempt's last worker. A session to be `held` for another attempt stays
    /// stopped after the seal (paused).
    pub(super) fn timed_requests(
        &self,
        journal: &mut Journal,
        session: &mut crate::Session<Implementation>,
        prepare: PrepareParams,
        execute: ExecuteParams,
        result_dir: &Path,
        held: bool,
    ) -> (Phase, Result<Answer, SessionError>) {
        let plan = self.plan;
        if let Some(budget) = plan.repository.budgets().implementation {
            session.set_scientific_deadline(Instant::now() + budget);
        }
        let mut last = Phase::Prepare;
        let outcome = session.prepare(prepare).and_then(|()| {
            last = Phase::Execute;
            if plan.streams() {
                self.execute_streamed(session, execute, result_dir)
            } else {
                session.execute(execute).map(|response| (response, Vec::new()))
            }
        });
        let validator = self.validator();
        let layout = self.result_layout();
        let outcome = outcome.and_then(|(response, checkpoints)| {
            let manifest = &response.result.manifest;
            let seal = || validator.validate_result_in(plan.problem, result_dir, layout, manifest);
            let sealed = if held { session.while_paused(seal)? } else { session.while_stopped(seal)? };
            Ok(Answer { response, sealed, checkpoints })
        });
        journal.last_worker = Some((Role::Implementation, last));
        if let Some(over) = &self.timed_over {
            let _ = over.send(());
        }
        (last, outcome)
    }
}
