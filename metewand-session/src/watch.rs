//! The output watch: while a worker runs, a thread measures everything it may write (its output folder and
//! `TMPDIR`, the confinement's writable folders) and kills it once they take more than `[limits] output_bytes`.
//!
//! # Overshoot
//!
//! The kernel has no quota for a folder, so the limit is kept by measuring: every [`LEAST_INTERVAL`] at the
//! most often, and never spending more than a twentieth of one core on it (a measurement that took `t` waits
//! `20 t` before the next one, so a tree of a million entries is measured about every few seconds). A worker can
//! therefore write past the limit for one interval before it is killed: at most what it writes in that time,
//! and no single file larger than the limit (`RLIMIT_FSIZE`). When the session ends the folders are measured once
//! more, with the worker gone, so an attempt whose writes ended past the limit fails whatever the watch saw.

use std::os::fd::OwnedFd;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError, mpsc};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use super::sys;
use metewand_tree::usage;

/// The shortest time between two measurements.
pub(crate) const LEAST_INTERVAL: Duration = Duration::from_millis(20);

/// How many times its own duration a measurement waits before the next one.
const PAUSE_FACTOR: u32 = 20;

/// A session's output watch; stopped when dropped.
pub(super) struct OutputWatch {
    dirs: Vec<PathBuf>,
    limit: u64,
    /// What the folders took when the watch found them past the limit, once it has.
    exceeded: Arc<Mutex<Option<u64>>>,
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl OutputWatch {
    /// Starts measuring `dirs` against `limit`; past it, the worker behind `pidfd` is killed.
    pub(super) fn start(
        dirs: Vec<PathBuf>,
        limit: u64,
        pidfd: Arc<OwnedFd>,
        name: String,
    ) -> std::io::Result<OutputWatch> {
        let exceeded = Arc::new(Mutex::new(None));
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = {
            let (dirs, exceeded) = (dirs.clone(), Arc::clone(&exceeded));
            thread::Builder::new().name(name).spawn(move || {
                let mut pause = LEAST_INTERVAL;
                while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(pause) {
                    let started = Instant::now();
                    let used = measure(&dirs);
                    if used > limit {
                        *exceeded.lock().unwrap_or_else(PoisonError::into_inner) = Some(used);
                        let _ = sys::pidfd_kill(&pidfd);
                        return;
                    }
                    pause = LEAST_INTERVAL.max(started.elapsed() * PAUSE_FACTOR);
                }
            })?
        };
        Ok(OutputWatch { dirs, limit, exceeded, stop: Some(stop), thread: Some(thread) })
    }

    /// The limit watched.
    pub(super) fn limit(&self) -> u64 {
        self.limit
    }

    /// Stops the watch, then tells whether the folders went past the limit: what they took when the watch found
    /// them so, or, if it did not, what they take now if that is past it (the worker must have ended, so that
    /// this last measurement is final).
    pub(super) fn finish(&mut self) -> Option<u64> {
        self.stop();
        let seen = *self.exceeded.lock().unwrap_or_else(PoisonError::into_inner);
        seen.or_else(|| Some(measure(&self.dirs)).filter(|used| *used > self.limit))
    }

    fn stop(&mut self) {
        self.stop.take();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for OutputWatch {
    fn drop(&mut self) {
        self.stop();
    }
}

/// What `dirs` take together, at least (see [`usage`]: a walk a worker disturbs counts what it met).
fn measure(dirs: &[PathBuf]) -> u64 {
    dirs.iter().map(|dir| usage(dir)).fold(0, u64::saturating_add)
}
