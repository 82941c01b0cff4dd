//! Worker sessions: one worker process for one role, driven through the version-1 protocol from `hello` to
//! `shutdown`, with every phase under a deadline.

mod error;
mod record;
mod timeouts;

pub use error::{ExitCause, ProtocolViolation, SessionError, SessionErrorKind};
pub use record::{PhaseTiming, SessionSummary};
pub use timeouts::PhaseTimeouts;
