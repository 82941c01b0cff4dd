//! Worker sessions: one worker process for one role, driven through the version-1 protocol from `hello` to
//! `shutdown`, with every phase under a deadline and every process it started killed and reaped at the end.

mod error;
mod io;
mod process;
mod record;
mod stderr;
mod sys;
mod timeouts;

pub use error::{ExitCause, ProtocolViolation, SessionError, SessionErrorKind};
pub use process::{INHERITED_ENV, REAP_LIMIT, WorkerCommand};
pub use record::{PhaseTiming, SessionSummary};
pub use stderr::{DEFAULT_LOG_CAP, TAIL_BYTES, TAIL_LINES};
pub use timeouts::PhaseTimeouts;
