//! The serial request rule: session-local decimal ids from `"0"`, and one pending request at a time.

use crate::Phase;
use crate::common::Role;
use crate::messages::RequestId;

/// Why a request could not begin, or a response could not be matched.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TrackerError {
    /// A request is still waiting for its response.
    #[error("cannot begin {method}: request {pending_id} ({pending_method}) is still pending")]
    Busy {
        /// The method that could not begin.
        method: Phase,
        /// The pending request's id.
        pending_id: String,
        /// The pending request's method.
        pending_method: Phase,
    },
    /// The worker's role does not accept the method; no id was consumed.
    #[error("a {role} worker does not accept {method}")]
    WrongRole {
        /// The worker's role.
        role: Role,
        /// The refused method.
        method: Phase,
    },
    /// A response's id is not the pending request's; the request stays pending.
    #[error("response has id {observed:?}, but the pending request has id {expected:?}")]
    Mismatch {
        /// The pending request's id.
        expected: String,
        /// The response's id.
        observed: String,
    },
    /// A response arrived with no request pending.
    #[error("extra response with id {observed:?}: no request is pending")]
    ExtraResponse {
        /// The response's id.
        observed: String,
    },
}

/// A request that was begun and has not been answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PendingRequest {
    /// Its id.
    pub id: RequestId,
    /// Its method.
    pub method: Phase,
}

/// Allocates request ids and enforces one pending request per session.
///
/// ```
/// use metewand_protocol::Phase;
/// use metewand_protocol::common::Role;
/// use metewand_protocol::tracker::{RequestTracker, TrackerError};
///
/// let mut tracker = RequestTracker::new(Role::Implementation);
/// let hello = tracker.begin(Phase::Hello).unwrap();
/// assert_eq!(hello.as_str(), "0");
/// assert!(matches!(tracker.begin(Phase::Prepare), Err(TrackerError::Busy { .. })));
/// tracker.complete("0").unwrap();
/// assert!(matches!(tracker.begin(Phase::Evaluate), Err(TrackerError::WrongRole { .. })));
/// assert_eq!(tracker.begin(Phase::Prepare).unwrap().as_str(), "1", "the refused call consumed no id");
/// ```
#[derive(Debug)]
pub struct RequestTracker {
    role: Role,
    next_id: u64,
    pending: Option<PendingRequest>,
}

impl RequestTracker {
    /// A tracker for a session with a worker serving `role`.
    pub fn new(role: Role) -> RequestTracker {
        RequestTracker { role, next_id: 0, pending: None }
    }

    /// The session's role.
    pub fn role(&self) -> Role {
        self.role
    }

    /// The request waiting for its response, if any.
    pub fn pending(&self) -> Option<&PendingRequest> {
        self.pending.as_ref()
    }

    /// Begins a request: checks the role accepts the method and that nothing is pending, then allocates the next id.
    pub fn begin(&mut self, method: Phase) -> Result<RequestId, TrackerError> {
        if !method.accepted_by(self.role) {
            return Err(TrackerError::WrongRole { role: self.role, method });
        }
        if let Some(pending) = &self.pending {
            return Err(TrackerError::Busy {
                method,
                pending_id: pending.id.to_string(),
                pending_method: pending.method,
            });
        }
        let id = RequestId::try_from(self.next_id.to_string()).expect("a decimal id is never empty");
        self.next_id += 1;
        self.pending = Some(PendingRequest { id: id.clone(), method });
        Ok(id)
    }

    /// Matches a response's id with the pending request and completes it.
    ///
    /// A mismatched id leaves the request pending; a response with nothing pending is an extra response.
    pub fn complete(&mut self, response_id: &str) -> Result<PendingRequest, TrackerError> {
        match &self.pending {
            None => Err(TrackerError::ExtraResponse { observed: response_id.to_owned() }),
            Some(pending) if pending.id.as_str() != response_id => {
                Err(TrackerError::Mismatch { expected: pending.id.to_string(), observed: response_id.to_owned() })
            }
            Some(_) => Ok(self.pending.take().expect("checked above")),
        }
    }
}
