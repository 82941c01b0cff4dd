//! Methods and phases, and which role accepts which method.
//!
//! Phases are named after the methods everywhere: in types, errors, timeouts and attempt records.

use std::fmt;

use crate::common::Role;

/// A request method of protocol version 1, which is also the name of the phase it runs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Method {
    /// The handshake.
    Hello,
    /// A dataset materializer builds a dataset.
    Materialize,
    /// An implementation receives the attempt's state.
    Prepare,
    /// An implementation solves the problem.
    Execute,
    /// An implementation forgets the prepared attempt.
    Reset,
    /// A problem evaluator judges a result.
    Evaluate,
    /// The final request of every session.
    Shutdown,
}

impl Method {
    /// Every method, in the order a session may send them.
    pub const ALL: [Method; 7] = [
        Method::Hello,
        Method::Materialize,
        Method::Prepare,
        Method::Execute,
        Method::Reset,
        Method::Evaluate,
        Method::Shutdown,
    ];

    /// The method's name on the wire, which is also its phase's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Hello => "hello",
            Method::Materialize => "materialize",
            Method::Prepare => "prepare",
            Method::Execute => "execute",
            Method::Reset => "reset",
            Method::Evaluate => "evaluate",
            Method::Shutdown => "shutdown",
        }
    }

    /// Whether a worker serving `role` accepts this method: the gate-1 role/method matrix.
    ///
    /// ```
    /// use metewand_protocol::Method;
    /// use metewand_protocol::common::Role;
    ///
    /// assert!(Method::Execute.accepted_by(Role::Implementation));
    /// assert!(!Method::Evaluate.accepted_by(Role::Implementation));
    /// assert!(Method::Shutdown.accepted_by(Role::ProblemEvaluator));
    /// ```
    pub fn accepted_by(self, role: Role) -> bool {
        match self {
            Method::Hello | Method::Shutdown => true,
            Method::Materialize => role == Role::DatasetMaterializer,
            Method::Prepare | Method::Execute | Method::Reset => role == Role::Implementation,
            Method::Evaluate => role == Role::ProblemEvaluator,
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
