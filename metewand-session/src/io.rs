//! The protocol-I/O thread: every request is written, and every response read, on one dedicated thread per
//! session, so that the caller waits on a channel with a deadline and nothing a worker does can block it.
//!
//! The thread never makes a blocking call that only the worker can end: writes are non-blocking, and both
//! directions wait in `poll` on the pipe, the worker's pidfd (so a worker that exits while a grandchild holds its
//! stdout is noticed at once, not at an end-of-file that never comes) and a cancel pipe that the session closes
//! to stop the thread whenever it ends. The thread only moves bytes and frames; matching, decoding and deadlines
//! belong to the session.

use std::io::{self, BufReader, PipeReader, PipeWriter, Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::process::{ChildStdin, ChildStdout};
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::{self, JoinHandle};
use std::time::Instant;

use metewand_protocol::frame::{Frame, FrameError, FrameReader, MAX_LINE_BYTES};

use super::sys;

/// What the thread is asked to do.
enum Command {
    /// Write one encoded request, then read one frame.
    Exchange(Vec<u8>),
    /// Write the answer to a checkpoint, say so, then read one frame. Sent while the worker is stopped: anything
    /// it wrote since its checkpoint, buffered or still in the pipe, means it did not wait for the answer.
    Answer(Vec<u8>, Sender<()>),
    /// Close the worker's stdin (after `shutdown` was acknowledged).
    CloseStdin,
}

/// What became of one exchange.
#[derive(Debug)]
pub(super) enum Reply {
    /// The worker answered with a frame (not yet decoded or matched).
    Frame(Frame),
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
    /// Reading or writing failed for another reason.
    Failed(io::Error),
}

/// The session's side of its protocol-I/O thread.
pub(super) struct ProtocolIo {
    commands: Option<Sender<Command>>,
    replies: Receiver<Reply>,
    cancel: Option<PipeWriter>,
    thread: Option<JoinHandle<()>>,
}

/// Waiting for a reply ended without one.
pub(super) enum Wait {
    /// The deadline passed.
    TimedOut,
    /// The thread is gone (it only stops when cancelled, so this is a bug or a panic in it).
    Lost,
}

impl ProtocolIo {
    /// Starts the thread for a worker's stdin and stdout; `pidfd` becomes readable when the worker exits.
    pub(super) fn start(
        stdin: ChildStdin,
        stdout: ChildStdout,
        pidfd: Arc<OwnedFd>,
        name: String,
    ) -> io::Result<ProtocolIo> {
        sys::set_nonblocking(stdin.as_fd())?;
        let (cancel_reader, cancel) = io::pipe()?;
        let (command_sender, commands) = mpsc::channel();
        let (reply_sender, replies) = mpsc::channel();
        let worker = Worker {
            stdin: Some(stdin),
            stdout: BufReader::with_capacity(
                64 << 10,
                Watched { stdout, pidfd: Arc::clone(&pidfd), cancel: cancel_reader },
            ),
            pidfd,
        };
        let thread = thread::Builder::new().name(name).spawn(move || worker.run(&commands, &reply_sender))?;
        Ok(ProtocolIo { commands: Some(command_sender), replies, cancel: Some(cancel), thread: Some(thread) })
    }

    /// Hands one encoded request to the thread; its reply is then awaited with [`ProtocolIo::wait`].
    pub(super) fn send(&self, line: Vec<u8>) -> bool {
        self.commands.as_ref().is_some_and(|commands| commands.send(Command::Exchange(line)).is_ok())
    }

    /// Hands the answer to a checkpoint to the thread; the returned receiver hears once it is written, or once the
    /// thread found early output instead (never when it could not write). The reply, awaited with
    /// [`ProtocolIo::wait`], says which.
    pub(super) fn send_answer(&self, line: Vec<u8>) -> Option<Receiver<()>> {
        let (written, heard) = mpsc::channel();
        let sent = self.commands.as_ref().is_some_and(|commands| commands.send(Command::Answer(line, written)).is_ok());
        sent.then_some(heard)
    }

    /// Waits for the reply to the request last sent, until `deadline`.
    pub(super) fn wait(&self, deadline: Instant) -> Result<Reply, Wait> {
        match self.replies.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(reply) => Ok(reply),
            Err(RecvTimeoutError::Timeout) => Err(Wait::TimedOut),
            Err(RecvTimeoutError::Disconnected) => Err(Wait::Lost),
        }
    }

    /// Closes the worker's stdin, in order after anything already sent.
    pub(super) fn close_stdin(&self) {
        if let Some(commands) = &self.commands {
            let _ = commands.send(Command::CloseStdin);
        }
    }

    /// Stops the thread wherever it is blocked, and joins it.
    pub(super) fn stop(&mut self) {
        self.cancel = None;
        self.commands = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for ProtocolIo {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The thread's side: the worker's stdin, and its stdout behind a reader that also watches exit and cancel.
struct Worker {
    stdin: Option<ChildStdin>,
    stdout: BufReader<Watched>,
    pidfd: Arc<OwnedFd>,
}

/// Reading stopped because the worker exited or the session cancelled the thread.
#[derive(Debug)]
enum Interrupted {
    Exited,
    Cancelled,
}

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Interrupted::Exited => "the worker exited",
            Interrupted::Cancelled => "the session stopped the protocol-I/O thread",
        })
    }
}

impl std::error::Error for Interrupted {}

fn is_cancel(error: &io::Error) -> bool {
    matches!(interrupted(error), Some(Interrupted::Cancelled))
}

fn interrupted(error: &io::Error) -> Option<&Interrupted> {
    error.get_ref()?.downcast_ref::<Interrupted>()
}

impl Worker {
    fn run(mut self, commands: &Receiver<Command>, replies: &Sender<Reply>) {
        while let Ok(command) = commands.recv() {
            let reply = match command {
                Command::CloseStdin => {
                    self.stdin = None;
                    continue;
                }
                Command::Exchange(line) => self.exchange(&line, None),
                Command::Answer(line, written) => self.exchange(&line, Some(written)),
            };
            // A cancelled exchange has nobody waiting for it: the session is ending.
            let cancelled = matches!(&reply, Reply::Failed(error) if is_cancel(error));
            if cancelled || replies.send(reply).is_err() {
                return;
            }
        }
    }

    /// Writes `line` and reads the frame that answers it. An answer to a checkpoint (`written` is where to say it
    /// was written) goes only to a worker that wrote nothing since: not even bytes still in the pipe.
    fn exchange(&mut self, line: &[u8], written: Option<Sender<()>>) -> Reply {
        if let Some(written) = &written {
            let early = !self.stdout.buffer().is_empty()
                || sys::ready_now(self.stdout.get_ref().stdout.as_fd(), libc::POLLIN).unwrap_or(false);
            if early {
                // Nothing is written; the session, waiting to resume the worker, hears that the answer is done.
                let _ = written.send(());
                return Reply::Early;
            }
        } else if let Some(unsolicited) = self.unsolicited() {
            return unsolicited;
        }
        if let Err(reply) = self.write(line) {
            return reply;
        }
        if let Some(written) = written {
            let _ = written.send(());
        }
        match FrameReader::new(&mut self.stdout).read_frame() {
            Ok(Some(frame)) => Reply::Frame(frame),
            Ok(None) => Reply::StdoutClosed,
            Err(FrameError::Io(error)) => match interrupted(&error) {
                Some(Interrupted::Exited) => Reply::Exited,
                _ => Reply::Failed(error),
            },
            Err(error) => Reply::BadFrame(error),
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

    /// Writes the whole request, waiting for room in the pipe without ever blocking in `write`.
    fn write(&mut self, mut line: &[u8]) -> Result<(), Reply> {
        debug_assert!(line.len() <= MAX_LINE_BYTES);
        let Some(stdin) = &mut self.stdin else { return Err(Reply::StdinClosed) };
        while !line.is_empty() {
            match stdin.write(line) {
                Ok(written) => line = &line[written..],
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) if error.kind() == io::ErrorKind::BrokenPipe => return Err(Reply::StdinClosed),
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => {
                    let cancel = &self.stdout.get_ref().cancel;
                    let mut fds = [
                        sys::interest(stdin.as_fd(), sys::WRITABLE),
                        sys::interest(self.pidfd.as_fd(), libc::POLLIN),
                        sys::interest(cancel.as_fd(), sys::READABLE),
                    ];
                    sys::poll(&mut fds, None).map_err(Reply::Failed)?;
                    if fds[2].revents != 0 {
                        return Err(Reply::Failed(io::Error::other(Interrupted::Cancelled)));
                    }
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

/// The worker's stdout, read only once `poll` says it is ready, so that exit and cancellation are noticed while
/// waiting.
struct Watched {
    stdout: ChildStdout,
    pidfd: Arc<OwnedFd>,
    cancel: PipeReader,
}

impl Read for Watched {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        loop {
            let mut fds = [
                sys::interest(self.stdout.as_fd(), sys::READABLE),
                sys::interest(self.pidfd.as_fd(), libc::POLLIN),
                sys::interest(self.cancel.as_fd(), sys::READABLE),
            ];
            sys::poll(&mut fds, None)?;
            if fds[0].revents != 0 {
                // Readable or at its end: this read does not wait.
                return self.stdout.read(buffer);
            }
            if fds[2].revents != 0 {
                return Err(io::Error::other(Interrupted::Cancelled));
            }
            if fds[1].revents != 0 {
                // Whatever the worker wrote before exiting is in the pipe by now; read it before reporting the exit.
                if sys::ready_now(self.stdout.as_fd(), libc::POLLIN)? {
                    return self.stdout.read(buffer);
                }
                return Err(io::Error::other(Interrupted::Exited));
            }
        }
    }
}
