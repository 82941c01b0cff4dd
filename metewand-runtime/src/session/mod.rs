//! Worker sessions: one worker process for one role, driven through the version-1 protocol from `hello` to
//! `shutdown`, with every phase under a deadline and every process it started killed and reaped at the end.

mod error;
mod process;
mod record;
mod sys;
mod timeouts;

pub use error::{ExitCause, ProtocolViolation, SessionError, SessionErrorKind};
pub use process::{INHERITED_ENV, REAP_LIMIT, WorkerCommand};
pub use record::{PhaseTiming, SessionSummary};
pub use timeouts::PhaseTimeouts;
