//! What lets one session serve more than one attempt (reused sessions, DESIGN §19): every process of the worker
//! stopped between requests, a log file per attempt, and each attempt's dataset shown on the same mount point of
//! the worker's view in place of the last.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::time::Instant;

use metewand_protocol::Phase;

use super::{STOP_LIMIT, SessionError, SessionErrorKind, WorkerSession, create_log, sys};

impl WorkerSession {
    /// Stops every process of the worker (`SIGSTOP`, as [`WorkerSession::while_stopped`] does) until
    /// [`resume`](WorkerSession::resume): nothing of a held session runs between the attempts it serves. Stopping
    /// a stopped session does nothing; a session whose worker was discarded is
    /// [`Unusable`](SessionErrorKind::Unusable).
    pub fn pause(&mut self) -> Result<(), SessionError> {
        let Some(live) = self.live.as_mut() else {
            return Err(self.local(Phase::Reset, SessionErrorKind::Unusable));
        };
        if live.paused.is_none() {
            let (stopped, _) = live.process.stop_all(Instant::now() + STOP_LIMIT);
            live.paused = Some(stopped);
        }
        Ok(())
    }

    /// Lets the processes [`pause`](WorkerSession::pause) stopped go on.
    pub fn resume(&mut self) {
        if let Some(live) = self.live.as_mut()
            && let Some(stopped) = live.paused.take()
        {
            live.process.continue_stopped(&stopped);
        }
    }

    /// Whether the worker still runs: not discarded, and its process has not exited (a held worker may have died
    /// between attempts).
    pub fn is_running(&self) -> bool {
        self.live.as_ref().is_some_and(|live| !live.process.has_exited())
    }

    /// Writes what the worker writes to stderr from now on to a new log file at `path` (created as the first one
    /// was, never over an existing file), with the log cap counted afresh.
    pub fn redirect_log(&mut self, path: &Path) -> Result<(), SessionError> {
        let log = create_log(path).map_err(|source| {
            self.local(
                Phase::Prepare,
                SessionErrorKind::ExecutorIo { action: "creating the worker's log file", source },
            )
        })?;
        let Some(live) = self.live.as_ref() else {
            return Err(self.local(Phase::Prepare, SessionErrorKind::Unusable));
        };
        live.stderr.redirect(log);
        self.log_path = path.to_owned();
        Ok(())
    }

    /// Shows the host's folder `source` read-only at `target` in the worker's private view, in place of what was
    /// shown there: `target` must be a path the view defers
    /// ([`Confinement::readable_after_hello`](super::Confinement::readable_after_hello)). A failure discards the
    /// worker, as the executor's own.
    pub fn show_in_place_of(&mut self, source: &Path, target: &Path) -> Result<(), SessionError> {
        if self.confinement.mounts != super::MountConfinement::Private {
            // Without a view of its own, the mount would be made in the host's namespace: never.
            let source = std::io::Error::other("the worker has no private view");
            let kind = SessionErrorKind::ExecutorIo { action: "showing the dataset in the worker's view", source };
            return Err(self.local(Phase::Prepare, kind));
        }
        let paths = CString::new(source.as_os_str().as_bytes())
            .and_then(|source| CString::new(target.as_os_str().as_bytes()).map(|target| (source, target)));
        let shown = match (paths, self.live.as_ref().and_then(|live| live.process.worker_pid())) {
            (Ok((source, target)), Some(pid)) => sys::show_in_view_at(pid, &source, &target, true),
            (Err(_), _) => Err(std::io::Error::from(std::io::ErrorKind::InvalidInput)),
            (_, None) => Err(std::io::Error::from_raw_os_error(libc::ESRCH)),
        };
        shown.map_err(|source| {
            let kind = SessionErrorKind::ExecutorIo { action: "showing the dataset in the worker's view", source };
            if self.live.is_some() {
                self.end();
            }
            SessionError::new(self.role, Phase::Prepare, kind, self.final_tail.clone(), None)
        })
    }
}
