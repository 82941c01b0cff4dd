//! Phases and which role accepts which: a phase is named after the method of the request it runs, everywhere (in
//! types, errors, timeouts and attempt records), and is the one generated type `common::Phase`. Which roles accept
//! a request, and the phase it runs, are the generated table of request methods ([`crate::methods`]), read from the
//! annotations of the schema's request definitions.

use crate::common::{Phase, Role};
use crate::methods::{REQUEST_METHODS, RequestMethod};

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

    /// Whether a worker serving `role` accepts a request that runs this phase: the gate-1 role/method matrix, read
    /// from the table of request methods.
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
        REQUEST_METHODS.iter().any(|method| method.phase == self && method.accepts(role))
    }
}

impl RequestMethod {
    /// The method of protocol version 1 named `name` on the wire, if there is one.
    ///
    /// ```
    /// use metewand_protocol::Phase;
    /// use metewand_protocol::common::{Capability, Role};
    /// use metewand_protocol::methods::RequestMethod;
    ///
    /// let stream = RequestMethod::named("execute_stream").unwrap();
    /// assert_eq!((stream.phase, stream.capability), (Phase::Execute, Some(Capability::StreamingProfile)));
    /// assert!(stream.accepts(Role::Implementation) && !stream.accepts(Role::ProblemEvaluator));
    /// assert!(RequestMethod::named("Execute").is_none());
    /// ```
    pub fn named(name: &str) -> Option<&'static RequestMethod> {
        REQUEST_METHODS.iter().find(|method| method.name == name)
    }

    /// Whether a worker serving `role` accepts the request (a worker that does not report the method's
    /// [`capability`](RequestMethod::capability) refuses it all the same).
    pub fn accepts(&self, role: Role) -> bool {
        self.accepted_by.contains(&role)
    }

    /// The methods a worker serving `role` accepts, in the schema's order.
    pub fn of_role(role: Role) -> impl Iterator<Item = &'static RequestMethod> {
        REQUEST_METHODS.iter().filter(move |method| method.accepts(role))
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
