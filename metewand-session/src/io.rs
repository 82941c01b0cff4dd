//! The protocol I/O of a session: every request is written, and every response read, by the session's own thread,
//! each wait a `poll` bounded by the request's deadline and the cancel flag, so that nothing a worker does can
//! block the session and no other thread stands between the worker's line and the session that times it.
//!
//! No call here waits in a way only the worker can end: writes are non-blocking, and both directions wait in `poll`
//! on the pipe and the worker's pidfd (so a worker that exits while a grandchild holds its stdout is noticed at
//! once, not at an end-of-file that never comes), in slices short enough to see the cancel flag. Only bytes and
//! frames are moved here; matching, decoding and deadlines belong to the session.

use std::io::{self, BufReader, Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::process::{ChildStdin, ChildStdout};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use metewand_protocol::frame::{Frame, FrameError, FrameReader, MAX_LINE_BYTES};

use super::sys;

/// How often a wait looks at the cancel flag, when the session has one.
const CANCEL_POLL: Duration = Duration::from_millis(20);

/// What became of a write or a read that gave no frame.
#[derive(Debug)]
pub(super) enum Reply {
    /// The worker wrote output before the request was sent: a complete frame, or bytes without a line feed.
    Unsolicited(Result<Frame, usize>),
    /// The worker wrote output after a checkpoint, before its answer was sent.
    Early,
    /// The line the worker wrote is not a frame.
    BadFrame(FrameError),
    /// The worker's stdout ended before a response.
    StdoutClosed,
    /// The worker's stdin was closed before the request was written.
    StdinClosed,
    /// The worker exited before answering, and nothing it wrote is left to read.
    Exited,
    /// The deadline passed.
    TimedOut,
    /// The cancel flag was set.
    Cancelled,
    /// Reading or writing failed for another reason.
    Failed(io::Error),
}

/// How long a wait may last: until `deadline`, or until the cancel flag, if any, is set.
#[derive(Clone, Copy)]
pub(super) struct Until {
    pub(super) deadline: Instant,
    pub(super) cancel: Option<&'static AtomicBool>,
}

impl Until {
    /// Why waiting must end now, if it must; otherwise how long the next slice of it may be.
    fn slice(&self) -> Result<Duration, Stopped> {
        if self.cancel.is_some_and(|flag| flag.load(Ordering::SeqCst)) {
            return Err(Stopped::Cancelled);
        }
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(Stopped::TimedOut);
        }
        Ok(if self.cancel.is_some() { left.min(CANCEL_POLL) } else { left })
    }
}

/// A worker's stdin and stdout, as the session's protocol I/O.
pub(super) struct ProtocolIo {
    stdin: Option<ChildStdin>,
    stdout: BufReader<Watched>,
    pidfd: Arc<OwnedFd>,
}

impl ProtocolIo {
    /// The protocol I/O over a worker's stdin and stdout; `pidfd` becomes readable when the worker exits.
    pub(super) fn new(stdin: ChildStdin, stdout: ChildStdout, pidfd: Arc<OwnedFd>) -> io::Result<ProtocolIo> {
        sys::set_nonblocking(stdin.as_fd())?;
        let until = Until { deadline: Instant::now(), cancel: None };
        let watched = Watched { stdout, pidfd: Arc::clone(&pidfd), until };
        Ok(ProtocolIo { stdin: Some(stdin), stdout: BufReader::with_capacity(64 << 10, watched), pidfd })
    }

    /// Writes one encoded request and reads the frame that answers it, both within `until`.
    pub(super) fn exchange(&mut self, line: &[u8], until: Until) -> Result<Frame, Reply> {
        if let Some(unsolicited) = self.unsolicited() {
            return Err(unsolicited);
        }
        self.write(line, until)?;
        self.read(until)
    }

    /// Writes as much of the answer to a checkpoint as the pipe takes without waiting, and returns how much that
    /// was; called while the worker is stopped. An answer goes only to a worker that wrote nothing since its
    /// checkpoint: not even bytes still in the pipe ([`Reply::Early`]).
    pub(super) fn answer_now(&mut self, line: &[u8]) -> Result<usize, Reply> {
        let early = !self.stdout.buffer().is_empty()
            || sys::ready_now(self.stdout.get_ref().stdout.as_fd(), libc::POLLIN).unwrap_or(false);
        if early {
            return Err(Reply::Early);
        }
        self.fill(line)
    }

    /// Writes as much of a request as the pipe takes without waiting, and returns how much that was; called while
    /// the worker is stopped, before it is let go. Output it wrote since its last answer is refused first, as
    /// [`exchange`](ProtocolIo::exchange) refuses it.
    pub(super) fn write_now(&mut self, line: &[u8]) -> Result<usize, Reply> {
        if let Some(unsolicited) = self.unsolicited() {
            return Err(unsolicited);
        }
        self.fill(line)
    }

    /// Writes as much of `line` as the pipe takes now.
    fn fill(&mut self, line: &[u8]) -> Result<usize, Reply> {
        let Some(stdin) = &mut self.stdin else { return Err(Reply::StdinClosed) };
        let mut written = 0;
        while written < line.len() {
            match stdin.write(&line[written..]) {
                Ok(count) => written += count,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) if error.kind() == io::ErrorKind::BrokenPipe => return Err(Reply::StdinClosed),
                // The worker's stdin is full: the rest is written once it runs again.
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => break,
                Err(error) => return Err(Reply::Failed(error)),
            }
        }
        Ok(written)
    }

    /// Writes what is left of a line written in part while the worker was stopped (an answer to a checkpoint, or a
    /// request to a paused worker: nothing, almost always) and reads the next frame, both within `until`.
    pub(super) fn write_then_read(&mut self, rest: &[u8], until: Until) -> Result<Frame, Reply> {
        self.write(rest, until)?;
        self.read(until)
    }

    /// Closes the worker's stdin (after `shutdown` was acknowledged).
    pub(super) fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Reads one frame within `until`.
    fn read(&mut self, until: Until) -> Result<Frame, Reply> {
        self.stdout.get_mut().until = until;
        match FrameReader::new(&mut self.stdout).read_frame() {
            Ok(Some(frame)) => Ok(frame),
            Ok(None) => Err(Reply::StdoutClosed),
            Err(FrameError::Io(error)) => Err(match stopped(&error) {
                Some(Stopped::Exited) => Reply::Exited,
                Some(Stopped::TimedOut) => Reply::TimedOut,
                Some(Stopped::Cancelled) => Reply::Cancelled,
                None => Reply::Failed(error),
            }),
            Err(error) => Err(Reply::BadFrame(error)),
        }
    }

    /// Output the worker wrote after its previous answer and that was read with it: a second answer, or anything
    /// else. Only the buffer is looked at, which costs no system call; output that arrives later is read as the
    /// next response, and the session tells a repeated answer by its id.
    fn unsolicited(&mut self) -> Option<Reply> {
        let buffered = self.stdout.buffer();
        if buffered.is_empty() {
            return None;
        }
        if !buffered.contains(&b'\n') {
            return Some(Reply::Unsolicited(Err(buffered.len())));
        }
        // A complete line is buffered, so reading it does not wait.
        Some(match FrameReader::new(&mut self.stdout).read_frame() {
            Ok(Some(frame)) => Reply::Unsolicited(Ok(frame)),
            Ok(None) => return None,
            Err(error) => Reply::BadFrame(error),
        })
    }

    /// Writes the whole line within `until`, waiting for room in the pipe without ever blocking in `write`.
    fn write(&mut self, mut line: &[u8], until: Until) -> Result<(), Reply> {
        debug_assert!(line.len() <= MAX_LINE_BYTES);
        if line.is_empty() {
            return Ok(());
        }
        let Some(stdin) = &mut self.stdin else { return Err(Reply::StdinClosed) };
        while !line.is_empty() {
            match stdin.write(line) {
                Ok(written) => line = &line[written..],
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) if error.kind() == io::ErrorKind::BrokenPipe => return Err(Reply::StdinClosed),
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => {
                    let slice = until.slice().map_err(Stopped::reply)?;
                    let mut fds =
                        [sys::interest(stdin.as_fd(), sys::WRITABLE), sys::interest(self.pidfd.as_fd(), libc::POLLIN)];
                    sys::poll(&mut fds, Some(slice)).map_err(Reply::Failed)?;
                    if fds[0].revents == 0 && fds[1].revents != 0 {
                        return Err(Reply::Exited);
                    }
                }
                Err(error) => return Err(Reply::Failed(error)),
            }
        }
        Ok(())
    }
}

/// Why a wait ended without the pipe being ready.
#[derive(Debug)]
enum Stopped {
    Exited,
    TimedOut,
    Cancelled,
}

impl Stopped {
    fn reply(self) -> Reply {
        match self {
            Stopped::Exited => Reply::Exited,
            Stopped::TimedOut => Reply::TimedOut,
            Stopped::Cancelled => Reply::Cancelled,
        }
    }
}

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Stopped::Exited => "the worker exited",
            Stopped::TimedOut => "the deadline passed",
            Stopped::Cancelled => "the session was cancelled",
        })
    }
}

impl std::error::Error for Stopped {}

fn stopped(error: &io::Error) -> Option<&Stopped> {
    error.get_ref()?.downcast_ref::<Stopped>()
}

/// The worker's stdout, read only once `poll` says it is ready, so that an exit, the deadline and the cancel flag
/// are noticed while waiting.
struct Watched {
    stdout: ChildStdout,
    pidfd: Arc<OwnedFd>,
    /// How long the read under way may wait.
    until: Until,
}

impl Read for Watched {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        loop {
            let slice = self.until.slice().map_err(io::Error::other)?;
            let mut fds =
                [sys::interest(self.stdout.as_fd(), sys::READABLE), sys::interest(self.pidfd.as_fd(), libc::POLLIN)];
            sys::poll(&mut fds, Some(slice))?;
            if fds[0].revents != 0 {
                // Readable or at its end: this read does not wait.
                return self.stdout.read(buffer);
            }
            if fds[1].revents != 0 {
                // Whatever the worker wrote before exiting is in the pipe by now; read it before reporting the exit.
                if sys::ready_now(self.stdout.as_fd(), libc::POLLIN)? {
                    return self.stdout.read(buffer);
                }
                return Err(io::Error::other(Stopped::Exited));
            }
        }
    }
}
