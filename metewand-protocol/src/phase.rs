//! Phases and which role accepts which: a phase is named after the method of the request it runs, everywhere (in
//! types, errors, timeouts and attempt records), and is the one generated type `common::Phase`.

use crate::common::{Phase, Role};

impl Phase {
    /// Every phase, in the order a session may send their requests.
    pub const ALL: [Phase; 7] = [
        Phase::Hello,
        Phase::Materialize,
        Phase::Prepare,
        Phase::Execute,
        Phase::Reset,
        Phase::Evaluate,
        Phase::Shutdown,
    ];

    /// The method's name on the wire, which is also the phase's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Hello => "hello",
            Phase::Materialize => "materialize",
            Phase::Prepare => "prepare",
            Phase::Execute => "execute",
            Phase::Reset => "reset",
            Phase::Evaluate => "evaluate",
            Phase::Shutdown => "shutdown",
        }
    }

    /// Whether a worker serving `role` accepts this phase's request: the gate-1 role/method matrix.
    ///
    /// ```
    /// use metewand_protocol::Phase;
    /// use metewand_protocol::common::Role;
    ///
    /// assert!(Phase::Execute.accepted_by(Role::Implementation));
    /// assert!(!Phase::Evaluate.accepted_by(Role::Implementation));
    /// assert!(Phase::Shutdown.accepted_by(Role::ProblemEvaluator));
    /// ```
    pub fn accepted_by(self, role: Role) -> bool {
        match self {
            Phase::Hello | Phase::Shutdown => true,
            Phase::Materialize => role == Role::DatasetMaterializer,
            Phase::Prepare | Phase::Execute | Phase::Reset => role == Role::Implementation,
            Phase::Evaluate => role == Role::ProblemEvaluator,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_phase_is_spelled_as_the_schema_spells_it() {
        for phase in Phase::ALL {
            assert_eq!(phase.as_str(), phase.to_string());
            assert_eq!(phase.as_str().parse::<Phase>().unwrap(), phase);
        }
    }
}
