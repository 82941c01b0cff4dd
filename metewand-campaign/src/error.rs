//! `RunError`: what stops a campaign's run, the local pool's or a Slurm task's. It is always the campaign's own
//! I/O (a folder that cannot be made or removed, a record that cannot be written), never an attempt's failure,
//! which its record holds.

use std::io;
use std::path::PathBuf;

use metewand_runtime::attempt::FsError;

use crate::folder::FolderError;

/// A failure of the campaign's own work: what was being done, and on what. An attempt whose folder could not be
/// made, or whose record could not be written, is left without a record, and the next run runs it again.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A folder to run again (an unfinished attempt's, an invalid or a failed record's) could not be removed
    /// before anything started.
    #[error("cannot remove {}: {source}", path.display())]
    Remove {
        /// The folder.
        path: PathBuf,
        /// The system's reason.
        source: io::Error,
    },
    /// A dataset's folder `datasets/<key>/` could not be made for its materialization.
    #[error("cannot create {}: {source}", path.display())]
    DatasetFolder {
        /// The folder.
        path: PathBuf,
        /// The system's reason.
        source: io::Error,
    },
    /// A materialization's record `datasets/<key>.json` could not be written.
    #[error("cannot write {}: {source}", path.display())]
    DatasetRecord {
        /// The record's path.
        path: PathBuf,
        /// The system's reason.
        source: io::Error,
    },
    /// An attempt's folder `attempts/<id>/` could not be made.
    #[error("cannot create the attempt folder {}: {source}", path.display())]
    AttemptFolder {
        /// The folder.
        path: PathBuf,
        /// The system's reason.
        source: io::Error,
    },
    /// An attempt's record could not be written.
    #[error("cannot write the record of attempt {attempt}: {source}")]
    AttemptRecord {
        /// The attempt's id.
        attempt: String,
        /// Why, with the path concerned.
        source: FsError,
    },
    /// The exports (and the campaign table) could not be written after the run.
    #[error(transparent)]
    Export(FolderError),
}

/// Why an implementation worker's sessions are not reused ([`crate::refused_for_reuse`]): its attempts then start
/// fresh sessions.
#[derive(Debug, thiserror::Error)]
pub enum ReuseRefusal {
    /// The plan gives the worker a single cell, and a session serves a cell once.
    #[error("the plan gives it one cell, whose repetitions a session serves one each")]
    OneCell,
    /// The check's own folder could not be made.
    #[error("the check could not run: cannot create {}: {source}", path.display())]
    CheckNotRun {
        /// The folder.
        path: PathBuf,
        /// The system's reason.
        source: io::Error,
    },
    /// The check's first attempt failed (or was cancelled).
    #[error("its first attempt failed: {why}")]
    FirstFailed {
        /// Its record's failure message.
        why: String,
    },
    /// The check's second attempt, served by the same session after a `reset`, failed where the first did not.
    #[error("its attempt after a reset failed: {why}")]
    FailedAfterReset {
        /// Its record's failure message.
        why: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each error is one sentence that names what was being done and on what, as `campaign run` prints it.
    #[test]
    fn each_error_names_what_was_being_done_and_on_what() {
        let denied = || io::Error::from(io::ErrorKind::PermissionDenied);
        let folder = RunError::AttemptFolder { path: PathBuf::from("c/attempts/a"), source: denied() };
        assert_eq!(folder.to_string(), format!("cannot create the attempt folder c/attempts/a: {}", denied()));
        let record = RunError::DatasetRecord { path: PathBuf::from("c/datasets/k.json"), source: denied() };
        assert_eq!(record.to_string(), format!("cannot write c/datasets/k.json: {}", denied()));
        let refusal = ReuseRefusal::FailedAfterReset { why: "the result was rejected".to_owned() };
        assert_eq!(refusal.to_string(), "its attempt after a reset failed: the result was rejected");
    }
}
