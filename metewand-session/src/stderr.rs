//! Draining a worker's stderr, continuously and on its own thread, into its log file and a bounded tail.
//!
//! A worker that writes to a full stderr pipe blocks, so the pipe is read whatever else the session is doing. The
//! log file keeps the first [`DEFAULT_LOG_CAP`] bytes (or the configured cap) and then one line saying where it
//! was cut; reading goes on after the cut, so the worker never blocks. The last [`TAIL_BYTES`] stay in memory, and
//! their last [`TAIL_LINES`] lines go into every error report. The log is made (or, for a later session of the same
//! attempt, opened again) here too, never through a link or a FIFO.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, PipeReader, PipeWriter, Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::path::Path;
use std::process::ChildStderr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};

use super::sys;

/// The default cap on a worker's log file: 64 MiB of what it wrote, then the line saying where it was cut.
pub const DEFAULT_LOG_CAP: u64 = 64 << 20;
/// How many of the latest stderr bytes are kept in memory, whatever the log cap.
pub const TAIL_BYTES: usize = 64 << 10;
/// How many of the latest stderr lines an error report shows.
pub const TAIL_LINES: usize = 20;
/// The longest line an error report shows, in characters; longer ones are shortened.
const TAIL_LINE_CHARS: usize = 400;
/// How much one turn of the drain thread reads before letting a waiting caller take the lock.
const TURN_BYTES: usize = 1 << 20;

/// The stderr drain of one worker: its thread, and the state the session reads the tail from.
pub(super) struct StderrDrain {
    pipe: Arc<File>,
    state: Arc<Mutex<DrainState>>,
    cancel: Option<PipeWriter>,
    thread: Option<JoinHandle<()>>,
}

struct DrainState {
    log: Option<File>,
    cap: u64,
    logged: u64,
    last_logged: u8,
    cut: bool,
    tail: VecDeque<u8>,
    tail_dropped: bool,
    eof: bool,
    log_error: Option<io::Error>,
    buffer: Vec<u8>,
}

impl StderrDrain {
    /// Starts draining `stderr` into `log`, keeping at most `cap` bytes of the worker's output in the file.
    pub(super) fn start(stderr: ChildStderr, log: File, cap: u64, name: String) -> io::Result<StderrDrain> {
        let pipe = Arc::new(File::from(OwnedFd::from(stderr)));
        sys::set_nonblocking(pipe.as_fd())?;
        let state = Arc::new(Mutex::new(DrainState {
            log: Some(log),
            cap,
            logged: 0,
            last_logged: b'\n',
            cut: false,
            tail: VecDeque::with_capacity(TAIL_BYTES),
            tail_dropped: false,
            eof: false,
            log_error: None,
            buffer: vec![0; 64 << 10],
        }));
        let (cancel_reader, cancel) = io::pipe()?;
        let thread = {
            let (pipe, state) = (Arc::clone(&pipe), Arc::clone(&state));
            thread::Builder::new().name(name).spawn(move || run(&pipe, &state, &cancel_reader))?
        };
        Ok(StderrDrain { pipe, state, cancel: Some(cancel), thread: Some(thread) })
    }

    /// Reads what the pipe holds right now (up to a bound, against a worker that floods it) and returns the last
    /// lines, so that a report made now includes what the worker wrote before its answer.
    pub(super) fn tail_now(&self) -> Vec<String> {
        let mut state = lock(&self.state);
        state.drain(&self.pipe, TURN_BYTES);
        state.tail_lines()
    }

    /// Appends a line of the executor's own to the log (not to the tail), after whatever the worker wrote.
    pub(super) fn note(&self, line: &str) {
        let mut state = lock(&self.state);
        state.drain(&self.pipe, TURN_BYTES);
        let newline = if state.last_logged == b'\n' { "" } else { "\n" };
        if let Some(log) = &mut state.log
            && let Err(error) = log.write_all(format!("{newline}{line}\n").as_bytes())
        {
            state.log_error.get_or_insert(error);
        }
        state.last_logged = b'\n';
    }

    /// Writes what the worker writes from now on to `log`, with the cap counted afresh, after flushing what the
    /// pipe holds now into the last file (a reused session's next attempt: each attempt's log holds its own part).
    pub(super) fn redirect(&self, log: File) {
        let mut state = lock(&self.state);
        state.drain(&self.pipe, TURN_BYTES);
        if let Some(last) = &mut state.log
            && let Err(error) = last.flush()
        {
            state.log_error.get_or_insert(error);
        }
        state.log = Some(log);
        state.logged = 0;
        state.last_logged = b'\n';
        state.cut = false;
    }

    /// After the worker's processes are gone: reads what is left in the pipe, stops and joins the thread, and
    /// returns the last lines and any error writing the log.
    pub(super) fn finish(&mut self) -> (Vec<String>, Option<io::Error>) {
        let mut state = lock(&self.state);
        // Every writer is dead, so the pipe ends; the bound only matters if a process we could not kill holds it.
        state.drain(&self.pipe, 16 * TURN_BYTES);
        if let Some(log) = &mut state.log
            && let Err(error) = log.flush()
        {
            state.log_error.get_or_insert(error);
        }
        let tail = state.tail_lines();
        let log_error = state.log_error.take();
        drop(state);
        self.stop();
        (tail, log_error)
    }

    fn stop(&mut self) {
        // Closing the cancel pipe wakes the thread's poll whatever the worker's stderr does.
        self.cancel = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for StderrDrain {
    fn drop(&mut self) {
        self.stop();
    }
}

fn lock(state: &Mutex<DrainState>) -> MutexGuard<'_, DrainState> {
    // A panic while holding the lock leaves at worst a partial chunk in the log; draining must go on.
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The drain thread: wait for output or cancellation, then read under the lock.
fn run(pipe: &File, state: &Mutex<DrainState>, cancel: &PipeReader) {
    loop {
        let mut fds = [sys::interest(pipe.as_fd(), sys::READABLE), sys::interest(cancel.as_fd(), sys::READABLE)];
        if sys::poll(&mut fds, None).is_err() || fds[1].revents != 0 {
            return;
        }
        if fds[0].revents != 0 {
            let mut state = lock(state);
            state.drain(pipe, TURN_BYTES);
            if state.eof {
                return;
            }
        }
    }
}

impl DrainState {
    /// Reads from the non-blocking pipe until it is empty, ends, or `budget` bytes were read.
    fn drain(&mut self, mut pipe: &File, budget: usize) {
        let mut read = 0;
        while !self.eof && read < budget {
            let mut buffer = std::mem::take(&mut self.buffer);
            let result = pipe.read(&mut buffer);
            match result {
                Ok(0) => self.eof = true,
                Ok(count) => {
                    self.record(&buffer[..count]);
                    read += count;
                }
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => {
                    self.buffer = buffer;
                    return;
                }
                Err(_) => self.eof = true,
            }
            self.buffer = buffer;
        }
    }

    fn record(&mut self, bytes: &[u8]) {
        if bytes.len() >= TAIL_BYTES {
            self.tail.clear();
            self.tail.extend(&bytes[bytes.len() - TAIL_BYTES..]);
            self.tail_dropped = true;
        } else {
            let excess = (self.tail.len() + bytes.len()).saturating_sub(TAIL_BYTES);
            if excess > 0 {
                self.tail.drain(..excess);
                self.tail_dropped = true;
            }
            self.tail.extend(bytes);
        }
        if self.cut {
            return;
        }
        let Some(log) = &mut self.log else { return };
        let room = usize::try_from(self.cap - self.logged).unwrap_or(usize::MAX);
        let kept = &bytes[..bytes.len().min(room)];
        let mut result = log.write_all(kept);
        if result.is_ok() {
            self.logged += kept.len() as u64;
            if let Some(&last) = kept.last() {
                self.last_logged = last;
            }
            if kept.len() < bytes.len() {
                self.cut = true;
                let newline = if self.last_logged == b'\n' { "" } else { "\n" };
                let cap = self.cap;
                let marker = format!(
                    "{newline}[metewand: log cut here: the worker wrote more than {cap} bytes to stderr; \
                     the rest is not kept]\n"
                );
                result = log.write_all(marker.as_bytes());
            }
        }
        if let Err(error) = result {
            // The executor's own I/O failed; keep draining so the worker never blocks, and report it at the end.
            self.log_error.get_or_insert(error);
            self.log = None;
            self.cut = true;
        }
    }

    /// The last [`TAIL_LINES`] lines, lossily decoded, each at most [`TAIL_LINE_CHARS`] characters.
    fn tail_lines(&self) -> Vec<String> {
        let bytes: Vec<u8> = self.tail.iter().copied().collect();
        let text = String::from_utf8_lossy(&bytes);
        let mut lines: Vec<&str> = text.lines().collect();
        if self.tail_dropped && lines.len() > 1 {
            // The first line lost its beginning when older bytes were dropped.
            lines.remove(0);
        }
        let first = lines.len().saturating_sub(TAIL_LINES);
        lines[first..]
            .iter()
            .map(|line| {
                if line.chars().count() > TAIL_LINE_CHARS {
                    let mut short: String = line.chars().take(TAIL_LINE_CHARS).collect();
                    short.push('…');
                    short
                } else {
                    (*line).to_owned()
                }
            })
            .collect()
    }
}

/// Creates a session's log: `O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK`, so a prepared FIFO cannot block the
/// executor and a prepared link cannot redirect the log.
pub(crate) fn create_log(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let flags = rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK;
    #[allow(
        clippy::disallowed_methods,
        reason = "created exclusively, following no link and blocking on no FIFO, as files/ would"
    )]
    std::fs::OpenOptions::new().write(true).create_new(true).custom_flags(flags.bits() as i32).open(path)
}

/// Opens a log the executor made earlier for appending, with `O_NOFOLLOW | O_NONBLOCK`, and only a regular file.
pub fn append_log(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let flags = rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK;
    #[allow(clippy::disallowed_methods, reason = "following no link and blocking on no FIFO, as files/ would")]
    let file = std::fs::OpenOptions::new().append(true).custom_flags(flags.bits() as i32).open(path)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::other("the log is not a regular file"));
    }
    Ok(file)
}
