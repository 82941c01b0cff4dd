//! `execute_stream`: the implementation's `execute` with a checkpoint exchange nested in it (the
//! `streaming_profile` capability), with the clock stopped while each checkpoint is sealed.
//!
//! At each checkpoint the session notes the time (the executor's, from the request, less the intervals already
//! held), stops every process of the worker, lets the caller seal the checkpoint, writes the answer while the
//! worker is still stopped (so that output it wrote instead of waiting is found in the pipe), and lets it go on.
//! The held interval counts neither in the request's time nor against its deadlines. An answer to `execute`,
//! streamed or not, stops the worker the same way (`stop_at_answer`), and it stays stopped for the seal.

use std::time::{Duration, Instant};

use metewand_protocol::decode::decode_value;
use metewand_protocol::messages::{
    CheckpointMessage, ExecuteResponse, ExecuteStreamRequest, MethodExecuteStream, Path,
};
use metewand_protocol::stream::{CheckpointStream, is_checkpoint};
use metewand_protocol::strict::SafeUint;
use metewand_protocol::{Phase, decode_response, encode_message};

use super::exchange::{Pending, violation};
use super::{Hold, ProtocolViolation, STOP_LIMIT, SessionError, SessionErrorKind, WorkerSession};

/// Where a streaming implementation writes its result, and how many checkpoints it may send on the way.
#[derive(Clone, Debug, PartialEq)]
pub struct ExecuteStreamParams {
    /// The empty directory the result, and each checkpoint under `checkpoints/<n>/`, is written to.
    pub result_dir: Path,
    /// The most checkpoints the stream may send.
    pub max_checkpoints: SafeUint,
}

/// A checkpoint the worker sent, as the session took it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checkpoint {
    /// Its number, from 1.
    pub number: u64,
    /// Its manifest, relative to the result directory: `checkpoints/<n>/result.json`.
    pub manifest: String,
    /// The executor's time from the `execute_stream` request to the checkpoint message, less the intervals the
    /// worker was held stopped for earlier checkpoints.
    pub time: Duration,
}

/// What the caller's seal of a checkpoint gave, and whether the stream may go on after it.
#[derive(Debug)]
pub struct Sealed<T> {
    /// What the seal made of the checkpoint.
    pub value: T,
    /// Whether the worker may go on (it is told to stop anyway after its last allowed checkpoint, or when its
    /// scientific deadline would pass before another).
    pub go_on: bool,
}

/// A stream that ended with the worker's success response.
#[derive(Debug)]
pub struct Streamed<T> {
    /// The final response, naming the final result's manifest.
    pub response: ExecuteResponse,
    /// Every checkpoint, in order, with what its seal gave.
    pub checkpoints: Vec<(Checkpoint, T)>,
}

impl ExecuteStreamParams {
    fn into_request(self, id: metewand_protocol::messages::RequestId) -> ExecuteStreamRequest {
        ExecuteStreamRequest {
            id,
            max_checkpoints: self.max_checkpoints,
            method: MethodExecuteStream,
            result_dir: self.result_dir,
        }
    }
}

impl WorkerSession {
    /// **For the conformance kit (`metewand_runtime::conformance`) only; attempts never use it.** The role-typed
    /// [`Session::execute_stream`](super::Session) for a session whose role is chosen at run time: whatever the
    /// role, the request is sent, and a worker that does not serve it fails as it would.
    pub fn execute_stream_unchecked<T>(
        &mut self,
        params: ExecuteStreamParams,
        seal: impl FnMut(&Checkpoint) -> Sealed<T>,
    ) -> Result<Streamed<T>, SessionError> {
        self.execute_stream(params, seal)
    }

    /// Sends `execute_stream` and serves its checkpoints until the final response; `seal` runs while every process
    /// of the worker is stopped. Not public: the role-typed [`Session`](super::Session) offers it to an
    /// implementation only (a public method here would reach every role's typed session through `Deref`); the
    /// conformance kit drives a dynamic session with it ([`WorkerSession::execute_stream_unchecked`]). A checkpoint that breaks the stream's
    /// rules (another id, out of order, past `max_checkpoints`, after the answer that stopped the stream, its
    /// manifest elsewhere, or output before its answer) is a protocol violation and discards the worker.
    pub(crate) fn execute_stream<T>(
        &mut self,
        params: ExecuteStreamParams,
        mut seal: impl FnMut(&Checkpoint) -> Sealed<T>,
    ) -> Result<Streamed<T>, SessionError> {
        let mut pending = self.begin(Phase::Execute)?;
        let max = params.max_checkpoints.get();
        let line = match encode_message(&params.into_request(pending.id.clone())) {
            Ok(line) => line,
            Err(error) => return Err(self.fail(&pending, SessionErrorKind::InvalidRequest(error))),
        };
        let mut stream = CheckpointStream::new(pending.id.clone(), max);
        let mut checkpoints = Vec::new();
        let mut next = self.transmit(&pending, line);
        loop {
            let frame = match next {
                Ok(frame) => frame,
                Err(kind) => return Err(self.fail(&pending, kind)),
            };
            if !is_checkpoint(&frame) {
                if let Err(kind) = self.stop_at_answer(&mut pending) {
                    return Err(self.fail(&pending, kind));
                }
                let decoded = self.not_repeated(&frame, &pending).and_then(|()| {
                    decode_response(&frame).map_err(|error| violation(ProtocolViolation::Decode(error)))
                });
                let response = match decoded {
                    Ok(response) => self.complete_id(response),
                    Err(kind) => return Err(self.fail(&pending, kind)),
                };
                let response = self.conclude(&pending, response)?;
                self.record(&pending, true);
                return Ok(Streamed { response, checkpoints });
            }
            // The checkpoint's time: its message was just read. The worker is stopped at once, and only once every
            // thread of it is does the held interval begin; decoding and checking the message wait until then.
            let time = pending.elapsed();
            let (hold, stopped, stop_uncounted) = match self.stop_now() {
                Ok(stop) => stop,
                // Never sealed while a thread of it runs: the worker is discarded.
                Err(kind) => return Err(self.fail(&pending, kind)),
            };
            let accepted = self.not_repeated(&frame, &pending).and_then(|()| {
                let message: CheckpointMessage =
                    decode_value(frame.value()).map_err(|error| violation(ProtocolViolation::Decode(error)))?;
                let number = stream.accept(&message).map_err(|error| violation(ProtocolViolation::Stream(error)))?;
                Ok(Checkpoint { number, manifest: message.result.manifest.to_string(), time })
            });
            let checkpoint = match accepted {
                Ok(checkpoint) => checkpoint,
                Err(kind) => {
                    // The worker is discarded as it would be running: let go first.
                    self.live.as_ref().expect("a held worker is live").release(hold);
                    return Err(self.fail(&pending, kind));
                }
            };
            let previous = checkpoints.last().map_or(Duration::ZERO, |(last, _): &(Checkpoint, T)| last.time);
            let sealed = seal(&checkpoint);
            // Another checkpoint as far apart as the last would come after the deadline: better to stop here.
            let room = self.scientific_deadline.map(|deadline| deadline.saturating_duration_since(stopped));
            let go_on = sealed.go_on && room.is_none_or(|room| room > checkpoint.time - previous);
            let answer = encode_message(&stream.answer(checkpoint.number, go_on)).expect("an answer is small");
            let live = self.live.as_mut().expect("a held worker is live");
            // The answer is tiny and the pipe empty, so all of it is written now, while the worker is stopped (or
            // refused, for early output); the rest, if its stdin is somehow full, once it runs again.
            let written = live.io.answer_now(&answer);
            // The held interval ends before the worker is let go: it cannot run before this, and a thread of ours
            // descheduled after it would otherwise take the worker's running time out of its time.
            let resumed = Instant::now();
            live.release(hold);
            self.held(&mut pending, resumed - stopped + stop_uncounted);
            let number = checkpoint.number;
            checkpoints.push((checkpoint, sealed.value));
            let until = self.until(&pending);
            let live = self.live.as_mut().expect("a released worker is live");
            let reply = written.and_then(|written| live.io.write_then_read(&answer[written..], until));
            next = self.frame_or_error(&pending, reply, Some(number));
        }
    }

    /// Stops every thread of the worker at once, its answer to `execute` just read, and leaves it paused: what
    /// the answer names is sealed while nothing of it runs, and nothing it did after answering goes uncounted. Of
    /// the stop, what counts in the request's time is what the worker could have used of it ([`stop_counted`]), as
    /// of a checkpoint's; the next request lets it go on. A stop the kernel does not confirm is a protocol
    /// violation, as a checkpoint's is.
    pub(super) fn stop_at_answer(&mut self, pending: &mut Pending) -> Result<(), SessionErrorKind> {
        let (hold, _, uncounted) = self.stop_now()?;
        self.live.as_mut().expect("a held worker is live").paused = Some(hold);
        self.held(pending, uncounted);
        Ok(())
    }

    /// Stops every thread of the worker at once, a frame of it just read (a checkpoint, or the answer to
    /// `execute`): the hold, the moment the kernel confirmed the stop, and how much of the stop does not count in
    /// the request's time (all but what the worker could have used of it, [`stop_counted`]). A stop the kernel
    /// does not confirm within [`STOP_LIMIT`] is a protocol violation.
    fn stop_now(&self) -> Result<(Hold, Instant, Duration), SessionErrorKind> {
        let live = self.live.as_ref().expect("a pending request has a live worker");
        let cpu_used = || live.cgroup.as_ref().and_then(|cgroup| cgroup.cpu_used());
        let used_before = cpu_used();
        let read = Instant::now();
        let Ok(hold) = live.hold(read + STOP_LIMIT) else {
            return Err(violation(ProtocolViolation::NotStopped { limit: STOP_LIMIT }));
        };
        let stopped = Instant::now();
        let ran = used_before.zip(cpu_used()).map(|(before, after)| after.saturating_sub(before));
        Ok((hold, stopped, (stopped - read) - stop_counted(stopped - read, ran)))
    }

    /// Takes an interval the worker was held stopped out of the pending request's time and deadlines.
    fn held(&mut self, pending: &mut Pending, interval: Duration) {
        pending.paused += interval;
        pending.deadline += interval;
        if let Some(deadline) = &mut self.scientific_deadline {
            *deadline += interval;
        }
    }
}

/// The most of a checkpoint's stop that may go uncounted: the time, before every thread of the worker was
/// confirmed stopped, when none of them ran.
pub(crate) const STOP_UNCOUNTED_LIMIT: Duration = Duration::from_millis(1);

/// What counts of the `stop` between reading a checkpoint's message and the kernel's confirming every thread of the
/// worker stopped, given the CPU time its threads `ran` in it (`None` where the kernel does not say).
///
/// The worker runs until it is stopped, so the stop cannot simply go uncounted; but most of it is the kernel's
/// freezer at work and each thread's wait for a CPU to enter it, which is no work of the worker's. A stop counts as
/// its wall time where any thread of the worker ran for as long (threads on several CPUs), and otherwise as at least
/// the CPU time they had, since work that took that much CPU had at least that much wall time in which some thread of
/// the worker ran. What else the worker did (an uninterruptible wait for a disk, which takes no CPU) goes uncounted
/// only up to [`STOP_UNCOUNTED_LIMIT`] a checkpoint. The CPU time read before the stop may lag a running thread's by
/// its last tick, which only counts more.
pub(crate) fn stop_counted(stop: Duration, ran: Option<Duration>) -> Duration {
    match ran {
        Some(ran) => stop.min(ran.max(stop.saturating_sub(STOP_UNCOUNTED_LIMIT))),
        None => stop,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);
    const US: Duration = Duration::from_micros(1);

    #[test]
    fn a_stop_counts_whole_without_the_cpu_time_or_when_the_worker_ran_throughout() {
        assert_eq!(stop_counted(300 * US, None), 300 * US);
        assert_eq!(stop_counted(300 * US, Some(300 * US)), 300 * US);
        // Two threads on two CPUs ran twice the stop: it counts once.
        assert_eq!(stop_counted(300 * US, Some(600 * US)), 300 * US);
    }

    #[test]
    fn a_stop_counts_the_cpu_time_the_worker_had_in_it() {
        assert_eq!(stop_counted(300 * US, Some(Duration::ZERO)), Duration::ZERO);
        assert_eq!(stop_counted(300 * US, Some(40 * US)), 40 * US);
    }

    #[test]
    fn no_more_than_the_limit_of_a_stop_goes_uncounted() {
        assert_eq!(stop_counted(5 * MS, Some(Duration::ZERO)), 4 * MS);
        assert_eq!(stop_counted(5 * MS, Some(2 * MS)), 4 * MS);
        assert_eq!(stop_counted(5 * MS, Some(4500 * US)), 4500 * US);
        assert_eq!(stop_counted(STOP_UNCOUNTED_LIMIT, Some(Duration::ZERO)), Duration::ZERO);
    }
}
