//! What lets one session serve more than one attempt (reused sessions, DESIGN §19): every process of the worker
//! stopped between requests, a log file per attempt, and each attempt's dataset shown on the same mount point of
//! the worker's view in place of the last (left there when it is the same folder). Showing a worker its inputs,
//! after its hello or in place of the last, stops it first: it runs again only once its next request is in its
//! pipe, so that nothing it does with its inputs falls outside a request's time.

use std::ffi::{CStr, CString};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::Instant;

use metewand_protocol::Phase;

use super::stderr::create_log;
use super::{STOP_LIMIT, SessionError, SessionErrorKind, WorkerSession, sys};

impl WorkerSession {
    /// Stops every thread of every process of the worker (as [`WorkerSession::while_stopped`] does, failing closed
    /// the same way) until [`resume`](WorkerSession::resume) or the next request, which lets it go on only once the
    /// request is written to its stdin: nothing of a held session runs between the attempts it serves, and a
    /// paused worker never runs without a request pending. Stopping a stopped session does nothing; a session
    /// whose worker was discarded is [`Unusable`](SessionErrorKind::Unusable).
    pub fn pause(&mut self) -> Result<(), SessionError> {
        let Some(live) = self.live.as_ref() else {
            return Err(self.local(Phase::Reset, SessionErrorKind::Unusable));
        };
        if live.paused.is_none() {
            let hold = self.hold_or_discard(Instant::now() + STOP_LIMIT)?;
            self.live.as_mut().expect("a held worker is live").paused = Some(hold);
        }
        Ok(())
    }

    /// Pauses the worker (as [`pause`](WorkerSession::pause) does) and runs `f` while it is paused: the seal of a
    /// held session's answer, after which it stays stopped until [`resume`](WorkerSession::resume). One stop serves
    /// both, where [`while_stopped`](WorkerSession::while_stopped) then `pause` would let the worker go on between
    /// them and stop it again.
    pub fn while_paused<T>(&mut self, f: impl FnOnce() -> T) -> Result<T, SessionError> {
        self.pause()?;
        Ok(f())
    }

    /// Lets the processes [`pause`](WorkerSession::pause) stopped go on.
    pub fn resume(&mut self) {
        if let Some(live) = self.live.as_mut()
            && let Some(hold) = live.paused.take()
        {
            live.release(hold);
        }
    }

    /// Moves every process of a paused worker, each of its threads, onto `cpus` (DESIGN §19: a session started
    /// ahead on the executor's CPUs goes to its attempt's slot). Nothing of it runs while it is paused, and a
    /// stopped process starts no thread, so none is left behind; what it starts later inherits `cpus`. A confined
    /// worker cannot change its affinity itself, but the executor can. The placement's binding is kept.
    pub fn move_to(&mut self, cpus: &crate::cpus::CpuSet) -> Result<(), SessionError> {
        let moving = |source| SessionErrorKind::ExecutorIo { action: "moving the worker to its slot's CPUs", source };
        let Some(live) = self.live.as_ref() else {
            return Err(self.local(Phase::Prepare, SessionErrorKind::Unusable));
        };
        let Some(hold) = live.paused.as_ref() else {
            return Err(self.local(Phase::Prepare, moving(std::io::Error::other("the worker is not paused"))));
        };
        let mut failed = None;
        for tid in live.threads(Some(hold)) {
            match cpus.apply_to_thread(tid) {
                // A thread that is gone has nothing left to move.
                Err(error) if error.raw_os_error() != Some(libc::ESRCH) => failed = Some(error),
                _ => {}
            }
        }
        if let Some(source) = failed {
            return Err(self.local(Phase::Prepare, moving(source)));
        }
        self.cpus.cpus = cpus.clone();
        Ok(())
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

    /// Gives the log file the name `path` instead (a link made only where nothing is, then the old name removed), so
    /// that what the worker wrote so far is there and its next lines follow; where no link can be made there
    /// (another file system), its next lines go to a new log at `path` ([`redirect_log`](WorkerSession::redirect_log)).
    pub fn move_log(&mut self, path: &Path) -> Result<(), SessionError> {
        if std::fs::hard_link(&self.log_path, path).is_ok() {
            let _ = std::fs::remove_file(&self.log_path);
            self.log_path = path.to_owned();
            return Ok(());
        }
        self.redirect_log(path)
    }

    /// Shows the paths the worker's view defers (see
    /// [`Confinement::readable_after_hello`](super::Confinement::readable_after_hello)), now that its hello has been
    /// answered. The worker is paused first, and stays paused until its next request is written (see
    /// [`pause`](WorkerSession::pause)). A failure discards the worker, as the executor's own.
    pub(super) fn show_deferred(&mut self, deferred: &[CString]) -> Result<(), SessionError> {
        self.pause()?;
        let live = self.live.as_ref().expect("a paused worker is live");
        let shown = match live.process.worker_pid() {
            Some(pid) => sys::show_in_view(pid, deferred),
            None => Err(std::io::Error::from_raw_os_error(libc::ESRCH)),
        };
        shown.map_err(|source| {
            let kind = SessionErrorKind::ExecutorIo { action: "showing the dataset in the worker's view", source };
            self.end();
            SessionError::new(self.role, Phase::Hello, kind, self.final_tail.clone(), None)
        })
    }

    /// Shows the host's folder `source` read-only at `target` in the worker's private view, in place of what was
    /// shown there: `target` must be a path the view defers
    /// ([`Confinement::readable_after_hello`](super::Confinement::readable_after_hello)). The worker is paused
    /// first, even where the folder is left shown, and stays paused until its next request is written. A failure
    /// discards the worker, as the executor's own.
    pub fn show_in_place_of(&mut self, source: &Path, target: &Path) -> Result<(), SessionError> {
        self.show_all_in_place_of(&[(source, target)])
    }

    /// Like [`show_in_place_of`](WorkerSession::show_in_place_of) for each pair of `pairs`, in order, all at once
    /// (one thread enters the view for all of them). A folder its target already shows (the same path, still the
    /// same folder: its device and inode) is left there: its detach and mount would wait for the kernel (an RCU
    /// grace period) to show the same thing again.
    pub fn show_all_in_place_of(&mut self, pairs: &[(&Path, &Path)]) -> Result<(), SessionError> {
        self.pause()?;
        if self.confinement.mounts != super::MountConfinement::Private {
            // Without a view of its own, the mount would be made in the host's namespace: never.
            let source = std::io::Error::other("the worker has no private view");
            let kind = SessionErrorKind::ExecutorIo { action: "showing the dataset in the worker's view", source };
            return Err(self.local(Phase::Prepare, kind));
        }
        let identity = |path: &Path| std::fs::metadata(path).ok().map(|metadata| (metadata.dev(), metadata.ino()));
        let wanted: Vec<_> = pairs.iter().map(|&(source, target)| (source, target, identity(source))).collect();
        let pairs: Vec<(&Path, &Path)> = wanted
            .iter()
            .filter(|&&(source, target, folder)| {
                !self.shown.iter().any(|(was, at, then)| was == source && at == target && Some(*then) == folder)
            })
            .map(|&(source, target, _)| (source, target))
            .collect();
        self.shown.retain(|(_, at, _)| !pairs.iter().any(|&(_, target)| at == target));
        let paths: Result<Vec<(CString, CString)>, _> = pairs
            .iter()
            .map(|(source, target)| {
                CString::new(source.as_os_str().as_bytes())
                    .and_then(|source| CString::new(target.as_os_str().as_bytes()).map(|target| (source, target)))
            })
            .collect();
        let shown = match (paths, self.live.as_ref().and_then(|live| live.process.worker_pid())) {
            (Ok(paths), Some(pid)) => {
                let pairs: Vec<(&CStr, &CStr)> =
                    paths.iter().map(|(source, target)| (source.as_c_str(), target.as_c_str())).collect();
                sys::show_in_view_at(pid, &pairs, true)
            }
            (Err(_), _) => Err(std::io::Error::from(std::io::ErrorKind::InvalidInput)),
            (_, None) => Err(std::io::Error::from_raw_os_error(libc::ESRCH)),
        };
        if shown.is_ok() {
            let made = wanted.iter().filter(|(_, target, _)| pairs.iter().any(|&(_, shown)| shown == *target));
            let kept =
                made.filter_map(|&(source, target, folder)| Some((source.to_owned(), target.to_owned(), folder?)));
            self.shown.extend(kept.collect::<Vec<_>>());
        }
        shown.map_err(|source| {
            self.shown.clear();
            let kind = SessionErrorKind::ExecutorIo { action: "showing the dataset in the worker's view", source };
            if self.live.is_some() {
                self.end();
            }
            SessionError::new(self.role, Phase::Prepare, kind, self.final_tail.clone(), None)
        })
    }
}
