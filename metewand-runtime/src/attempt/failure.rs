//! [`Failure`], the error of every stage of the attempt, before it becomes the record's `failure`, from a session's
//! error, a worker's invalid output, a cancellation or the executor's own; and [`Tmpdir`], a session's private
//! `TMPDIR`, removed once the session has ended.

use std::path::PathBuf;

use metewand_protocol::common::{FailureCode, Role};
use metewand_protocol::generated::attempt_record as rec;
use metewand_protocol::generated::attempt_record::FailureKind;
use metewand_protocol::strict::JsonObject;

use super::record::one_line;
use super::store::remove_tree;
use crate::files::FsError;
use crate::protocol::Phase;
use crate::session::{SessionError, SessionErrorKind};
use crate::validate::ValidationError;

/// What ended an attempt, before it becomes the record's `failure`.
#[derive(Debug)]
pub(super) struct Failure {
    pub(super) role: Option<Role>,
    pub(super) phase: Option<Phase>,
    pub(super) kind: FailureKind,
    pub(super) message: String,
    pub(super) code: Option<FailureCode>,
    pub(super) details: Option<JsonObject>,
}

impl Failure {
    pub(super) fn new(role: Option<Role>, phase: Option<Phase>, kind: FailureKind, message: String) -> Failure {
        Failure { role, phase, kind, message, code: None, details: None }
    }

    pub(super) fn executor(action: &str, error: impl std::fmt::Display) -> Failure {
        Failure::new(None, None, FailureKind::ExecutorError, format!("the executor failed {action}: {error}"))
    }

    /// A validation the cancel flag ended: the attempt is cancelled, with no role or phase (no session runs while
    /// the executor validates).
    pub(super) fn cancelled(error: &ValidationError) -> Option<Failure> {
        error.is_cancelled().then(|| {
            let message = format!("the attempt was cancelled while the {} output was validated", error.artifact());
            Failure::new(None, None, FailureKind::Cancelled, message)
        })
    }

    pub(super) fn into_record(self) -> rec::AttemptFailure {
        rec::AttemptFailure {
            code: self.code,
            details: self.details,
            kind: self.kind,
            message: one_line(&self.message),
            phase: self.phase,
            role: self.role,
        }
    }

    pub(super) fn session(error: &SessionError) -> Failure {
        let kind = error.failure_kind().unwrap_or(FailureKind::ExecutorError);
        // The kind may quote the worker (a failure's message), so the whole sentence is made printable.
        let mut message = printable(&format!("{} worker failed in {}: {}", error.role(), error.phase(), error.kind()));
        // A worker that died before answering usually said why on stderr (an import that failed, a traceback's
        // last line): the last line it wrote belongs in the one sentence a user reads first.
        if let SessionErrorKind::WorkerExit { .. } | SessionErrorKind::SpawnFailed { .. } = error.kind()
            && let Some(last) = error.stderr_tail().iter().rev().find(|line| !line.trim().is_empty())
        {
            message.push_str(&format!("; its stderr ended with: {}", printable(last.trim())));
        }
        let mut failure = Failure::new(Some(error.role()), Some(error.phase()), kind, message);
        if let SessionErrorKind::WorkerFailure { code, details, .. } = error.kind() {
            failure.code = Some(*code);
            failure.details = details.clone();
        }
        failure
    }

    pub(super) fn output(role: Role, phase: Phase, error: &ValidationError) -> Failure {
        if let Some(cancelled) = Failure::cancelled(error) {
            return cancelled;
        }
        if error.is_io_error() {
            return Failure::executor("reading worker output", error);
        }
        let message = format!("{role} worker's output is invalid: {error}");
        Failure::new(Some(role), Some(phase), FailureKind::InvalidOutput, message)
    }
}

/// A worker's text as a message may show it: control characters (a terminal's escape sequences among them) spelled
/// out, so a worker cannot write to the user's terminal through a failure's message.
fn printable(text: &str) -> String {
    text.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect()
}

/// A session's private `TMPDIR`, `work/tmp-<role>/`, made with its places: removed once the session has ended,
/// however it ended, so that an attempt folder keeps none of a worker's temporary files (however large, or nested
/// deeper than a path can name). After a session that succeeded, [`Tmpdir::remove`] removes it and a failure to do
/// so is the attempt's; when this is dropped instead, a failure already ends the attempt and is the one recorded.
pub(super) struct Tmpdir(pub(super) Option<PathBuf>);

impl Tmpdir {
    pub(super) fn remove(mut self) -> Result<(), Failure> {
        let Some(path) = self.0.take() else { return Ok(()) };
        remove_tree(&path).map_err(|source| {
            Failure::executor("removing a worker's temporary folder", FsError::Io { action: "remove", path, source })
        })
    }
}

impl Drop for Tmpdir {
    fn drop(&mut self) {
        if let Some(path) = self.0.take() {
            let _ = remove_tree(&path);
        }
    }
}
