//! A sealed result checked again: validated where it lies and compared with what was sealed, after the
//! implementation's session and after the evaluator's (the final result, or a streamed attempt's checkpoint).

use metewand_protocol::common::Role;
use metewand_protocol::generated::attempt_record::FailureKind;

use super::failure::Failure;
use super::record::change;
use super::run::Attempt;
use crate::protocol::Phase;
use crate::validate::ValidatedResult;

impl Attempt<'_, '_> {
    /// Re-verifies the result against what was validated: after the implementation's session (it must be what was
    /// sealed at the execute answer) and after the evaluator's. A change is `role`'s invalid output in `phase`,
    /// the message saying it changed `when`.
    pub(super) fn verify_result(
        &self,
        original: &ValidatedResult,
        role: Role,
        phase: Phase,
        when: &str,
    ) -> Result<(), Failure> {
        let Some(problem) = self.change_since(original)? else { return Ok(()) };
        let message = format!("the result changed {when}: {problem}");
        Err(Failure::new(Some(role), Some(phase), FailureKind::InvalidOutput, message))
    }

    /// What changed in a result (or a checkpoint) since it was validated: validated again where it was, and
    /// compared; a cancellation met on the way is the failure.
    pub(super) fn change_since(&self, original: &ValidatedResult) -> Result<Option<String>, Failure> {
        let again = self.validator().revalidate_result(self.plan.problem, original);
        if let Err(error) = &again
            && let Some(cancelled) = Failure::cancelled(error)
        {
            return Err(cancelled);
        }
        let again = again.as_ref().map(|again| (again.files(), again.manifest_file()));
        Ok(change((original.files(), original.manifest_file()), again))
    }
}
