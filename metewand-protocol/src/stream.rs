//! The checkpoint exchange nested in an `execute_stream` request (the `streaming_profile` capability): what a
//! frame read while the stream is pending is, and the rules its checkpoints keep.
//!
//! The exchange stays inside one request, so the serial rule holds: while the stream is pending the worker may
//! send checkpoints of that request only, numbered from 1 without a gap, at most `max_checkpoints` of them, each
//! with its manifest at `checkpoints/<n>/result.json` and each waiting for its answer; none after an answer that
//! said `continue: false`. The stream ends with the execute-shaped success response or a failure. A checkpoint
//! after that final response answers no pending request, which the session's tracker already refuses.

use serde_json::Value;

use crate::decode::{DecodeError, Response, decode_response, decode_value};
use crate::frame::Frame;
use crate::messages::{CheckpointAnswer, CheckpointMessage, ExecuteResponse, RequestId};
use crate::strict::SafeUint;

/// A frame read while an `execute_stream` request is pending.
#[derive(Clone, Debug, PartialEq)]
pub enum StreamFrame {
    /// A checkpoint, still to be checked against the stream's rules.
    Checkpoint(CheckpointMessage),
    /// The stream's end: the execute-shaped success response or a failure.
    Final(Response<ExecuteResponse>),
}

/// Decodes a frame read while a stream is pending: a frame with `ok` is the final response, any other a checkpoint.
///
/// ```
/// use metewand_protocol::frame::Frame;
/// use metewand_protocol::stream::{StreamFrame, decode_stream_frame};
///
/// let line = br#"{"checkpoint":1,"id":"2","result":{"manifest":"checkpoints/1/result.json"}}"#;
/// let frame = Frame::parse(line.to_vec()).unwrap();
/// assert!(matches!(decode_stream_frame(&frame).unwrap(), StreamFrame::Checkpoint(_)));
///
/// let line = br#"{"id":"2","implementation_time_ns":null,"ok":true,"result":{"manifest":"result.json"},"statistics":{}}"#;
/// let frame = Frame::parse(line.to_vec()).unwrap();
/// assert!(matches!(decode_stream_frame(&frame).unwrap(), StreamFrame::Final(_)));
/// ```
pub fn decode_stream_frame(frame: &Frame) -> Result<StreamFrame, DecodeError> {
    if is_checkpoint(frame) {
        decode_value(frame.value()).map(StreamFrame::Checkpoint)
    } else {
        decode_response(frame).map(StreamFrame::Final)
    }
}

/// Whether a frame read while a stream is pending is a checkpoint (an object without `ok`), which
/// [`decode_stream_frame`] then decodes as one; telling it costs no decoding, so that a session can stop the worker
/// first and decode after.
pub fn is_checkpoint(frame: &Frame) -> bool {
    matches!(frame.value(), Value::Object(members) if !members.contains_key("ok"))
}

/// Where checkpoint `n`'s manifest must be, relative to the stream's result directory.
pub fn checkpoint_manifest(n: u64) -> String {
    format!("checkpoints/{n}/result.json")
}

/// How a checkpoint broke the stream's rules.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StreamError {
    /// The checkpoint names another request than the pending stream.
    #[error("checkpoint {checkpoint} has id {observed:?}, but the pending execute_stream request has id {expected:?}")]
    OtherId {
        /// The stream's id.
        expected: String,
        /// The checkpoint's id.
        observed: String,
        /// The checkpoint's number.
        checkpoint: u64,
    },
    /// A checkpoint came after the answer that ended the stream's checkpoints.
    #[error("checkpoint {observed} came after checkpoint {stopped_at} was answered with continue false")]
    AfterStop {
        /// The checkpoint answered with `continue: false`.
        stopped_at: u64,
        /// The checkpoint's number.
        observed: u64,
    },
    /// The checkpoint's number is past the stream's `max_checkpoints`.
    #[error("checkpoint {observed} is past the request's max_checkpoints of {max}")]
    PastMax {
        /// The request's `max_checkpoints`.
        max: u64,
        /// The checkpoint's number.
        observed: u64,
    },
    /// The checkpoint is not the next one.
    #[error("checkpoint {observed} is out of order: the next checkpoint is {expected}")]
    OutOfOrder {
        /// The next checkpoint's number.
        expected: u64,
        /// The checkpoint's number.
        observed: u64,
    },
    /// The checkpoint's manifest is not where checkpoint `n`'s must be.
    #[error("checkpoint {checkpoint} names its manifest {observed:?}, not {expected:?}")]
    ManifestPath {
        /// The checkpoint's number.
        checkpoint: u64,
        /// Where its manifest must be.
        expected: String,
        /// Where the worker said it is.
        observed: String,
    },
    /// The worker wrote again before its checkpoint was answered.
    #[error("the worker wrote output after checkpoint {checkpoint} before it was answered")]
    DidNotWait {
        /// The checkpoint whose answer the worker did not wait for.
        checkpoint: u64,
    },
}

/// The state of one pending `execute_stream` request: which checkpoint comes next, and whether the stream was
/// told to stop.
///
/// ```
/// use metewand_protocol::messages::{CheckpointMessage, ManifestRef, RequestId};
/// use metewand_protocol::stream::{CheckpointStream, StreamError, checkpoint_manifest};
///
/// let id = RequestId::try_from("2").unwrap();
/// let checkpoint = |n: u64| CheckpointMessage {
///     checkpoint: n.try_into().unwrap(),
///     id: id.clone(),
///     result: ManifestRef { manifest: checkpoint_manifest(n).try_into().unwrap() },
/// };
/// let mut stream = CheckpointStream::new(id.clone(), 2);
/// assert_eq!(stream.accept(&checkpoint(1)).unwrap(), 1);
/// assert!(stream.answer(1, true).continue_);
/// assert_eq!(stream.accept(&checkpoint(3)).unwrap_err(), StreamError::PastMax { max: 2, observed: 3 });
/// assert_eq!(stream.accept(&checkpoint(2)).unwrap(), 2);
/// assert!(!stream.answer(2, true).continue_, "the last allowed checkpoint is told to stop");
/// assert!(matches!(stream.accept(&checkpoint(3)), Err(StreamError::AfterStop { stopped_at: 2, .. })));
/// ```
#[derive(Clone, Debug)]
pub struct CheckpointStream {
    id: RequestId,
    max: u64,
    received: u64,
    stopped_at: Option<u64>,
}

impl CheckpointStream {
    /// The stream of the `execute_stream` request `id`, allowed `max_checkpoints` checkpoints.
    pub fn new(id: RequestId, max_checkpoints: u64) -> CheckpointStream {
        CheckpointStream { id, max: max_checkpoints, received: 0, stopped_at: None }
    }

    /// How many checkpoints were accepted.
    pub fn received(&self) -> u64 {
        self.received
    }

    /// Checks a checkpoint against the stream's rules and accepts it; returns its number.
    pub fn accept(&mut self, message: &CheckpointMessage) -> Result<u64, StreamError> {
        let observed = message.checkpoint.get();
        if message.id != self.id {
            return Err(StreamError::OtherId {
                expected: self.id.to_string(),
                observed: message.id.to_string(),
                checkpoint: observed,
            });
        }
        if let Some(stopped_at) = self.stopped_at {
            return Err(StreamError::AfterStop { stopped_at, observed });
        }
        if observed > self.max {
            return Err(StreamError::PastMax { max: self.max, observed });
        }
        let expected = self.received + 1;
        if observed != expected {
            return Err(StreamError::OutOfOrder { expected, observed });
        }
        let manifest = checkpoint_manifest(observed);
        if message.result.manifest.as_str() != manifest {
            return Err(StreamError::ManifestPath {
                checkpoint: observed,
                expected: manifest,
                observed: message.result.manifest.to_string(),
            });
        }
        self.received = observed;
        Ok(observed)
    }

    /// The answer to checkpoint `n`, which was just accepted: `continue` is `go_on`, but never past the stream's
    /// last allowed checkpoint. An answer that stops the stream refuses every later checkpoint.
    pub fn answer(&mut self, n: u64, go_on: bool) -> CheckpointAnswer {
        let go_on = go_on && n < self.max;
        if !go_on {
            self.stopped_at = Some(n);
        }
        CheckpointAnswer {
            checkpoint: SafeUint::try_from(n).expect("an accepted checkpoint's number"),
            continue_: go_on,
            id: self.id.clone(),
        }
    }
}
