//! One request's way through a session: begun on the tracker with its deadline (the earlier of its phase's limit
//! and the scientific deadline), written and its answer read under that deadline and the cancel flag, decoded and
//! matched to its id, and recorded; and what a failure does, which is to discard the worker with everything it
//! started.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant, SystemTime};

use metewand_protocol::decode::ResponseId;
use metewand_protocol::messages::RequestId;
use metewand_protocol::{Frame, FrameError, Message, Phase, Response, StreamError, TrackerError, decode_response};

use super::io::{self, Until};
use super::{Ended, ExitCause, PhaseTiming, ProtocolViolation, SessionError, SessionErrorKind, WorkerSession};

/// How long a session waits, after the worker's stdout or stdin closed, to learn whether that was the worker
/// exiting (files are closed a moment before the exit is announced).
const EXIT_GRACE: Duration = Duration::from_millis(200);

/// Where a deadline lands when its limit is too large to add to the monotonic clock.
const FAR_FUTURE: Duration = Duration::from_secs(10 * 365 * 24 * 60 * 60);

/// A protocol violation as the kind of session error it is.
pub(super) fn violation(violation: ProtocolViolation) -> SessionErrorKind {
    SessionErrorKind::ProtocolViolation(violation)
}

/// A request begun: its id, when it started, and which deadline bounds it.
pub(super) struct Pending {
    method: Phase,
    pub(super) id: RequestId,
    /// The id a raw exchange's line carries, recorded instead of `id` (see [`WorkerSession::exchange_raw`]).
    raw_id: Option<String>,
    started: Instant,
    started_at: SystemTime,
    pub(super) deadline: Instant,
    /// How long the worker was held stopped while the request was pending (its checkpoints being sealed): not
    /// the request's time.
    pub(super) paused: Duration,
    timeout: fn(Duration) -> SessionErrorKind,
    limit: Duration,
}

impl Pending {
    pub(super) fn timed_out(&self) -> SessionErrorKind {
        (self.timeout)(self.limit)
    }

    /// The request's time so far: since it started, less the intervals the worker was held stopped.
    pub(super) fn elapsed(&self) -> Duration {
        self.started.elapsed().saturating_sub(self.paused)
    }
}

impl WorkerSession {
    /// Begins a request: refuses it locally if the session is unusable or the role does not accept the method,
    /// otherwise allocates its id and fixes its deadline.
    pub(super) fn begin(&mut self, method: Phase) -> Result<Pending, SessionError> {
        if self.live.is_none() {
            return Err(self.local(method, SessionErrorKind::Unusable));
        }
        // A paused worker stays paused until the request is in its pipe (`transmit`).
        let id = self.tracker.begin(method).map_err(|error| {
            let kind = match error {
                TrackerError::WrongRole { .. } => SessionErrorKind::WrongRole(error),
                // One request at a time is guaranteed by `&mut self`, and a request that never completed
                // discarded the worker; a busy tracker therefore means the session cannot go on.
                _ => SessionErrorKind::Unusable,
            };
            self.local(method, kind)
        })?;
        Ok(self.pending(method, id, None))
    }

    /// A request's deadline and timing, from now.
    pub(super) fn pending(&self, method: Phase, id: RequestId, raw_id: Option<String>) -> Pending {
        let started = Instant::now();
        let limit = self.timeouts.limit(method);
        // A limit too large to add to the clock is, in effect, a decade.
        let phase_deadline = started.checked_add(limit).unwrap_or_else(|| started + FAR_FUTURE);
        let (deadline, timeout): (Instant, fn(Duration) -> SessionErrorKind) = match self.scientific_deadline {
            Some(scientific) if scientific <= phase_deadline => (scientific, |_| SessionErrorKind::ScientificTimeout),
            _ => (phase_deadline, |limit| SessionErrorKind::PhaseTimeout { limit }),
        };
        let paused = Duration::ZERO;
        Pending { method, id, raw_id, started, started_at: SystemTime::now(), deadline, paused, timeout, limit }
    }

    /// Exchanges a request and records its timing as successful.
    pub(super) fn complete<T: Message + ResponseId>(
        &mut self,
        pending: &Pending,
        line: Result<Vec<u8>, FrameError>,
    ) -> Result<T, SessionError> {
        let response = self.exchange(pending, line)?;
        self.record(pending, true);
        Ok(response)
    }

    /// [`complete`](WorkerSession::complete) for `execute`, whose answer is sealed: the worker is stopped as soon as
    /// its answer is read, before it is decoded, and stays paused
    /// ([`stop_at_answer`](WorkerSession::stop_at_answer)).
    pub(super) fn complete_sealed<T: Message + ResponseId>(
        &mut self,
        pending: &mut Pending,
        line: Result<Vec<u8>, FrameError>,
    ) -> Result<T, SessionError> {
        let line = match line {
            Ok(line) => line,
            Err(error) => return Err(self.fail(pending, SessionErrorKind::InvalidRequest(error))),
        };
        let frame = self.transmit(pending, line).and_then(|frame| self.stop_at_answer(pending).map(|()| frame));
        let response = frame.and_then(|frame| self.response(pending, &frame));
        let response = self.conclude(pending, response)?;
        self.record(pending, true);
        Ok(response)
    }

    /// Sends one encoded request and waits for its response until the pending deadline. Every failure is
    /// recorded; all but a worker-reported failure outside `hello`, `reset` and `shutdown` discard the worker.
    pub(super) fn exchange<T: Message + ResponseId>(
        &mut self,
        pending: &Pending,
        line: Result<Vec<u8>, FrameError>,
    ) -> Result<T, SessionError> {
        let line = match line {
            Ok(line) => line,
            Err(error) => return Err(self.fail(pending, SessionErrorKind::InvalidRequest(error))),
        };
        let response = self.transmit(pending, line).and_then(|frame| self.response(pending, &frame));
        self.conclude(pending, response)
    }

    /// A frame as the answer to the pending request: decoded as its success shape or a failure, and matched with
    /// the request by its id, which completes it.
    pub(super) fn response<T: Message + ResponseId>(
        &mut self,
        pending: &Pending,
        frame: &Frame,
    ) -> Result<Response<T>, SessionErrorKind> {
        self.not_repeated(frame, pending)?;
        let response = decode_response::<T>(frame).map_err(|error| violation(ProtocolViolation::Decode(error)))?;
        self.complete_id(response)
    }

    /// Completes the pending request with the response's id.
    pub(super) fn complete_id<T: ResponseId>(
        &mut self,
        response: Response<T>,
    ) -> Result<Response<T>, SessionErrorKind> {
        match self.tracker.complete(response.id()) {
            Ok(_) => Ok(response),
            Err(error) => Err(violation(ProtocolViolation::Tracker(error))),
        }
    }

    /// Refuses a frame that answers an earlier request of this session instead of the pending one.
    pub(super) fn not_repeated(&self, frame: &Frame, pending: &Pending) -> Result<(), SessionErrorKind> {
        match self.repeated_answer(frame, pending) {
            Some(observed) => Err(violation(ProtocolViolation::Tracker(TrackerError::ExtraResponse { observed }))),
            None => Ok(()),
        }
    }

    /// Ends the pending request with what became of it: its success shape is returned (and recorded by the
    /// caller); a failure is recorded, and discards the worker unless it is a worker-reported failure outside
    /// `hello`, `reset` and `shutdown`.
    pub(super) fn conclude<T>(
        &mut self,
        pending: &Pending,
        response: Result<Response<T>, SessionErrorKind>,
    ) -> Result<T, SessionError> {
        let kind = match response {
            Ok(Response::Success(success)) => return Ok(success),
            Ok(Response::Failure(failure)) => SessionErrorKind::WorkerFailure {
                code: failure.error.code,
                message: failure.error.message.to_string(),
                details: failure.error.details,
            },
            Err(kind) => kind,
        };
        if kind.discards_worker(pending.method) {
            return Err(self.fail(pending, kind));
        }
        // A worker-reported failure the session survives: the tail is what the worker wrote up to now.
        self.record(pending, false);
        let stderr_tail = self.stderr_tail();
        Err(SessionError::new(self.role, pending.method, kind, stderr_tail, self.phases.last().cloned()))
    }

    /// Writes one encoded line and reads the frame that answers it, until the pending deadline. Whatever is not
    /// a frame (output with no request pending, a bad line, an exit, a closed stream, the deadline, the cancel
    /// flag) is the kind of error it is; every one of them discards the worker.
    pub(super) fn transmit(&mut self, pending: &Pending, line: Vec<u8>) -> Result<Frame, SessionErrorKind> {
        if Instant::now() >= pending.deadline {
            // Already past the deadline (a scientific deadline that passed between requests): nothing is sent.
            return Err(pending.timed_out());
        }
        if self.cancelled() {
            return Err(SessionErrorKind::Cancelled);
        }
        let until = self.until(pending);
        let live = self.live.as_mut().expect("begin checked the session is usable");
        let reply = match live.paused.take() {
            None => live.io.exchange(&line, until),
            // A paused worker is let go only once the request is in its pipe (all of it, unless the pipe is full):
            // what it was shown while paused, its inputs, it finds with a request pending, never without one. The
            // request's time runs from before the write, so the release is in it.
            Some(hold) => {
                let written = live.io.write_now(&line);
                live.release(hold);
                written.and_then(|written| live.io.write_then_read(&line[written..], until))
            }
        };
        self.frame_or_error(pending, reply, None)
    }

    /// How long a wait for the pending request may last: until its deadline, or the cancel flag.
    pub(super) fn until(&self, pending: &Pending) -> Until {
        Until { deadline: pending.deadline, cancel: self.cancel }
    }

    /// The frame that answers what was just written, or the kind of error the protocol I/O met instead.
    /// `answered` is the checkpoint an answer was sent to, whose early output is the worker's not waiting for it.
    pub(super) fn frame_or_error(
        &self,
        pending: &Pending,
        reply: Result<Frame, io::Reply>,
        answered: Option<u64>,
    ) -> Result<Frame, SessionErrorKind> {
        Err(match reply {
            Ok(frame) => return Ok(frame),
            Err(io::Reply::Unsolicited(Ok(frame))) => match frame.value().get("id").and_then(|id| id.as_str()) {
                Some(id) => {
                    violation(ProtocolViolation::Tracker(TrackerError::ExtraResponse { observed: id.to_owned() }))
                }
                None => violation(ProtocolViolation::UnsolicitedOutput { bytes: frame.line().len() + 1 }),
            },
            Err(io::Reply::Unsolicited(Err(bytes))) => violation(ProtocolViolation::UnsolicitedOutput { bytes }),
            Err(io::Reply::BadFrame(error)) => violation(ProtocolViolation::Frame(error)),
            Err(io::Reply::Early) => {
                let checkpoint = answered.expect("only an answer to a checkpoint looks for early output");
                violation(ProtocolViolation::Stream(StreamError::DidNotWait { checkpoint }))
            }
            Err(io::Reply::Exited) => SessionErrorKind::WorkerExit { cause: ExitCause::Exited, status: None },
            Err(io::Reply::StdoutClosed) => self.closed(ExitCause::ClosedStdout),
            Err(io::Reply::StdinClosed) => self.closed(ExitCause::ClosedStdin),
            Err(io::Reply::Failed(source)) => {
                SessionErrorKind::ExecutorIo { action: "reading or writing the worker's pipes", source }
            }
            Err(io::Reply::TimedOut) => pending.timed_out(),
            Err(io::Reply::Cancelled) => SessionErrorKind::Cancelled,
        })
    }

    /// Whether the cancel flag, if any, is set.
    fn cancelled(&self) -> bool {
        self.cancel.is_some_and(|flag| flag.load(Ordering::SeqCst))
    }

    /// A closed stream is the worker exiting if its exit follows within [`EXIT_GRACE`].
    fn closed(&self, cause: ExitCause) -> SessionErrorKind {
        let exited = self.live.as_ref().is_some_and(|live| live.process.wait_for_exit(Instant::now() + EXIT_GRACE));
        SessionErrorKind::WorkerExit { cause: if exited { ExitCause::Exited } else { cause }, status: None }
    }

    /// The id of a frame that answers an earlier request of this session instead of the pending one: a second
    /// answer, written when no request was pending and read only now, whatever its shape.
    fn repeated_answer(&self, frame: &Frame, pending: &Pending) -> Option<String> {
        let id = frame.value().get("id")?.as_str()?;
        let earlier = id != pending.id.as_str() && self.phases.iter().any(|timing| timing.request_id == id);
        earlier.then(|| id.to_owned())
    }

    pub(super) fn record(&mut self, pending: &Pending, ok: bool) {
        self.phases.push(PhaseTiming {
            role: self.role,
            phase: pending.method,
            request_id: pending.raw_id.clone().unwrap_or_else(|| pending.id.to_string()),
            started: pending.started,
            started_at: pending.started_at,
            duration: pending.elapsed(),
            ok,
        });
    }

    /// Records a failed request, discards the worker, and reports `kind` with the final stderr tail.
    pub(super) fn fail(&mut self, pending: &Pending, mut kind: SessionErrorKind) -> SessionError {
        // The request's duration ends at the failure, not after the cleanup.
        self.record(pending, false);
        let mut ended = self.end();
        if let SessionErrorKind::WorkerExit { status, .. } = &mut kind {
            *status = ended.termination.status;
        }
        // A cancelled attempt is the caller's doing, whatever the worker wrote.
        if let Some(exceeded) = ended.exceeded.take().filter(|_| !matches!(kind, SessionErrorKind::Cancelled)) {
            kind = exceeded;
        } else if let Some(limited) = ended.limited.take().filter(|_| !matches!(kind, SessionErrorKind::Cancelled)) {
            kind = limited;
        }
        SessionError::new(self.role, pending.method, kind, ended.tail, self.phases.last().cloned())
    }

    /// Records a request that failed after the worker was already ended.
    pub(super) fn failed(
        &mut self,
        pending: &Pending,
        kind: SessionErrorKind,
        stderr_tail: Vec<String>,
    ) -> SessionError {
        self.record(pending, false);
        SessionError::new(self.role, pending.method, kind, stderr_tail, self.phases.last().cloned())
    }

    /// An error for a request that was never sent.
    pub(super) fn local(&self, method: Phase, kind: SessionErrorKind) -> SessionError {
        SessionError::new(self.role, method, kind, self.stderr_tail(), None)
    }

    /// Ends the worker: kills and reaps every process, finishes the stderr drain.
    pub(super) fn end(&mut self) -> Ended {
        let live = self.live.take().expect("a worker is ended once");
        let ended = live.end();
        self.final_tail = ended.tail.clone();
        ended
    }
}
