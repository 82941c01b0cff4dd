//! Session errors: what went wrong, in which role and phase, with the last lines of the worker's stderr.
//!
//! [`SessionError::role`], [`SessionError::phase`] and [`SessionError::failure_kind`] are the three columns of the
//! attempt record's failure table, so the attempt runner maps an error without interpreting its message.

use std::ffi::OsString;
use std::fmt;
use std::io;
use std::process::ExitStatus;
use std::time::Duration;

use metewand_protocol::generated::attempt_record::FailureKind;
use metewand_protocol::strict::JsonObject;
use metewand_protocol::{DecodeError, FrameError, HandshakeError, StreamError, TrackerError};

use super::record::PhaseTiming;
use crate::protocol::Phase;
use crate::protocol::common::{FailureCode, Role};

/// A session operation failed: the role, the phase, what happened, and the end of the worker's stderr.
#[derive(Debug)]
pub struct SessionError {
    // Boxed: errors are rare, and every `Result` of a session carries one.
    details: Box<Details>,
}

#[derive(Debug)]
struct Details {
    role: Role,
    phase: Phase,
    kind: SessionErrorKind,
    stderr_tail: Vec<String>,
    timing: Option<PhaseTiming>,
}

impl SessionError {
    pub(super) fn new(
        role: Role,
        phase: Phase,
        kind: SessionErrorKind,
        stderr_tail: Vec<String>,
        timing: Option<PhaseTiming>,
    ) -> SessionError {
        SessionError { details: Box::new(Details { role, phase, kind, stderr_tail, timing }) }
    }

    /// The role of the worker the session ran.
    pub fn role(&self) -> Role {
        self.details.role
    }

    /// The phase the error happened in: the request that failed, `hello` for a worker that could not be started.
    pub fn phase(&self) -> Phase {
        self.details.phase
    }

    /// What happened.
    pub fn kind(&self) -> &SessionErrorKind {
        &self.details.kind
    }

    /// Takes the kind out of the error.
    pub fn into_kind(self) -> SessionErrorKind {
        self.details.kind
    }

    /// The last lines the worker wrote to stderr when the error was reported (after the worker was stopped, for
    /// an error that discarded it), oldest first.
    pub fn stderr_tail(&self) -> &[String] {
        &self.details.stderr_tail
    }

    /// The timing of the request that failed, when one was sent.
    pub fn timing(&self) -> Option<&PhaseTiming> {
        self.details.timing.as_ref()
    }

    /// The attempt record's failure kind for this error, or `None` for a caller's mistake that no worker caused
    /// ([`SessionErrorKind::WrongRole`], [`SessionErrorKind::Unusable`]).
    pub fn failure_kind(&self) -> Option<FailureKind> {
        self.details.kind.failure_kind()
    }

    /// Whether the error discarded the worker: the session's process is gone and the session is unusable.
    pub fn discarded_worker(&self) -> bool {
        self.details.kind.discards_worker(self.details.phase)
    }
}

impl fmt::Display for SessionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let details = &self.details;
        write!(f, "{} worker failed in {}: {}", details.role, details.phase, details.kind)?;
        if details.stderr_tail.is_empty() {
            write!(f, "; its stderr has no output to show")
        } else {
            write!(f, "; last lines of its stderr:")?;
            for line in &details.stderr_tail {
                write!(f, "\n    {line}")?;
            }
            Ok(())
        }
    }
}

impl std::error::Error for SessionError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.details.kind)
    }
}

/// What went wrong in a session.
///
/// Every kind discards the worker (its processes are killed and reaped before the error is returned, and the
/// session accepts no further request) except [`WrongRole`](SessionErrorKind::WrongRole), [`Unusable`](
/// SessionErrorKind::Unusable), and [`WorkerFailure`](SessionErrorKind::WorkerFailure) outside `hello`, `reset`
/// and `shutdown`.
#[derive(Debug, thiserror::Error)]
pub enum SessionErrorKind {
    /// The worker's command could not be started (a missing program, a missing working directory, a refused
    /// permission).
    #[error("cannot start {program:?}: {source}")]
    SpawnFailed {
        /// The program, as the command names it.
        program: OsString,
        /// Why it could not be started.
        source: io::Error,
    },
    /// The worker answered with a structured failure. Only a failed `hello`, `reset` or `shutdown` discards the
    /// worker.
    #[error("the worker reported {code}: {message}")]
    WorkerFailure {
        /// The worker-owned failure code.
        code: FailureCode,
        /// The worker's message.
        message: String,
        /// The worker's details, when it sent them.
        details: Option<JsonObject>,
    },
    /// The worker broke the protocol: a bad frame, a response that is not the expected message, an id that does
    /// not match, output with no request pending, or a failed handshake check.
    #[error("protocol violation: {0}")]
    ProtocolViolation(#[source] ProtocolViolation),
    /// The phase's operational limit passed before the worker answered (for `shutdown`: before it acknowledged
    /// and exited).
    #[error("the {limit:?} limit of the phase passed before the worker finished it")]
    PhaseTimeout {
        /// The phase's limit.
        limit: Duration,
    },
    /// The scientific deadline passed before the worker answered, earlier than the phase's own limit.
    #[error("the scientific deadline passed before the worker finished the phase")]
    ScientificTimeout,
    /// The worker exited, or closed one of its protocol streams, before answering; or exited with a status other
    /// than 0 after acknowledging `shutdown`.
    #[error("{cause} ({})", describe_status(.status))]
    WorkerExit {
        /// What the worker did.
        cause: ExitCause,
        /// The worker's exit status once reaped (a worker that closed a stream and kept running was killed), or
        /// `None` when it could not be reaped in time.
        status: Option<ExitStatus>,
    },
    /// The worker went past one of its session's resource limits (`[limits]` in `metewand.toml`), and was killed
    /// for it.
    #[error("the worker went past `[limits] {limit}`: {observed} {unit}, more than the limit of {value}")]
    ResourceLimit {
        /// The limit's name in `[limits]`.
        limit: &'static str,
        /// The limit.
        value: u64,
        /// What the worker took when it was found past the limit.
        observed: u64,
        /// What the numbers count.
        unit: &'static str,
    },
    /// The request could not be encoded as a frame (it is larger than a frame may be); the worker was discarded
    /// because the request had already been given its id.
    #[error("the request cannot be sent: {0}")]
    InvalidRequest(#[source] FrameError),
    /// The executor's own I/O failed: the stderr log could not be written, or a thread could not be started.
    #[error("the executor failed {action}: {source}")]
    ExecutorIo {
        /// What the executor was doing.
        action: &'static str,
        /// The underlying error.
        source: io::Error,
    },
    /// The caller's cancel flag was set while the request was pending or about to be sent (see
    /// [`SessionConfig::cancel_flag`](super::SessionConfig::cancel_flag)).
    #[error("the attempt was cancelled")]
    Cancelled,
    /// The worker's role does not accept the method: nothing was sent, no request id was consumed, and the
    /// session stays usable.
    #[error("the request was refused before sending: {0}")]
    WrongRole(#[source] TrackerError),
    /// An earlier error discarded the worker, or the session was shut down: nothing was sent.
    #[error("the session is unusable: an earlier error discarded its worker")]
    Unusable,
}

impl SessionErrorKind {
    /// The attempt record's failure kind, or `None` for a caller's mistake.
    pub fn failure_kind(&self) -> Option<FailureKind> {
        Some(match self {
            SessionErrorKind::SpawnFailed { .. } => FailureKind::SpawnFailed,
            SessionErrorKind::WorkerFailure { .. } => FailureKind::WorkerFailure,
            SessionErrorKind::ProtocolViolation(_) => FailureKind::ProtocolViolation,
            SessionErrorKind::PhaseTimeout { .. } => FailureKind::PhaseTimeout,
            SessionErrorKind::ScientificTimeout => FailureKind::ScientificTimeout,
            SessionErrorKind::WorkerExit { .. } => FailureKind::WorkerExit,
            SessionErrorKind::ResourceLimit { .. } => FailureKind::ResourceLimit,
            SessionErrorKind::InvalidRequest(_) | SessionErrorKind::ExecutorIo { .. } => FailureKind::ExecutorError,
            SessionErrorKind::Cancelled => FailureKind::Cancelled,
            SessionErrorKind::WrongRole(_) | SessionErrorKind::Unusable => return None,
        })
    }

    /// Whether this kind, in this phase, discards the worker.
    pub fn discards_worker(&self, phase: Phase) -> bool {
        match self {
            // A failed hello leaves no session, and a failed reset or shutdown leaves a worker in an unknown state.
            SessionErrorKind::WorkerFailure { .. } => matches!(phase, Phase::Hello | Phase::Reset | Phase::Shutdown),
            SessionErrorKind::WrongRole(_) => false,
            // The worker was discarded earlier, which this error reports again.
            SessionErrorKind::Unusable => true,
            _ => true,
        }
    }
}

/// How a worker broke the protocol.
#[derive(Debug, thiserror::Error)]
pub enum ProtocolViolation {
    /// A line is not a frame: too long, not UTF-8, a byte-order mark, malformed or duplicate-key JSON, or a
    /// stream that ended inside a line.
    #[error("bad frame: {0}")]
    Frame(#[source] FrameError),
    /// The frame is not the response the request expects, by its schema definition.
    #[error("unexpected response: {0}")]
    Decode(#[source] DecodeError),
    /// The response's id is not the pending request's, or a response arrived with no request pending.
    #[error("{0}")]
    Tracker(#[source] TrackerError),
    /// The worker wrote bytes with no request pending that do not form a complete line.
    #[error("the worker wrote {bytes} bytes with no request pending")]
    UnsolicitedOutput {
        /// How many bytes were waiting when the next request was about to be sent.
        bytes: usize,
    },
    /// A handshake check failed.
    #[error("handshake failed: {0}")]
    Handshake(#[source] HandshakeError),
    /// A checkpoint of a pending `execute_stream` request broke the stream's rules.
    #[error("{0}")]
    Stream(#[source] StreamError),
    /// The worker could not be stopped (every thread of every process of it) within the limit, where it had to be:
    /// to seal what it wrote, or to hold it between requests.
    #[error("the worker could not be stopped: a thread of it was still running {limit:?} after it was asked to stop")]
    NotStopped {
        /// How long the stop waited.
        limit: Duration,
    },
}

/// What a worker did instead of answering.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExitCause {
    /// The worker process ended before answering the pending request.
    #[error("the worker exited before answering")]
    Exited,
    /// The worker closed its stdout before answering.
    #[error("the worker closed its stdout before answering")]
    ClosedStdout,
    /// The worker closed its stdin before the request was written.
    #[error("the worker closed its stdin before the request was written")]
    ClosedStdin,
    /// The worker acknowledged `shutdown` and exited with a status other than 0.
    #[error("the worker acknowledged shutdown but did not exit with status 0")]
    UncleanShutdown,
}

fn describe_status(status: &Option<ExitStatus>) -> String {
    match status {
        Some(status) => status.to_string(),
        None => "exit status unknown: the worker could not be reaped".to_owned(),
    }
}
