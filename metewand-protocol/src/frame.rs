//! Frames: one canonical JSON message per line, each line at most 1 MiB including its `\n`.
//!
//! [`encode_message`] writes a message's canonical bytes and one line feed. [`FrameReader`] reads from any
//! [`BufRead`] one complete line at a time, never holding more than the limit for one line, and parses it in the
//! restricted domain, so invalid UTF-8, a byte-order mark, duplicate keys and malformed JSON are frame errors.

use std::io::{self, BufRead};

use serde::Serialize;
use serde_json::Value;

use crate::canonical::{self, ParseError};

/// The largest complete line, its `\n` included: 1 MiB.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Why a frame could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    /// A line, its `\n` included, is longer than [`MAX_LINE_BYTES`].
    #[error("line longer than {MAX_LINE_BYTES} bytes (at least {observed} bytes)")]
    LineTooLong {
        /// How many bytes the line had when it was refused: for a line being read, the first count past the limit.
        observed: usize,
    },
    /// The stream ended after bytes that no `\n` terminated.
    #[error("stream ended inside a line after {bytes} bytes without a line feed")]
    EarlyEof {
        /// The bytes after the last `\n`.
        bytes: usize,
    },
    /// The line is not one document of the restricted JSON domain.
    #[error("invalid frame: {0}")]
    Parse(#[from] ParseError),
    /// A message could not be represented as JSON at all.
    #[error("message cannot be encoded: {0}")]
    Encode(String),
    /// Reading the stream failed.
    #[error("reading the stream failed: {0}")]
    Io(#[from] io::Error),
    /// An earlier error left the stream in the middle of a line, so no later frame can be trusted.
    #[error("the stream is unusable after an earlier framing error")]
    Poisoned,
}

/// One line read from a peer: its bytes (without the `\n`) and the value they hold.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    line: Vec<u8>,
    value: Value,
}

impl Frame {
    /// The line's bytes, without the terminating `\n`.
    pub fn line(&self) -> &[u8] {
        &self.line
    }

    /// The parsed value.
    pub fn value(&self) -> &Value {
        &self.value
    }

    /// The parsed value, taken out of the frame.
    pub fn into_value(self) -> Value {
        self.value
    }

    /// Parses one line (without its `\n`) as a frame.
    pub fn parse(line: Vec<u8>) -> Result<Frame, FrameError> {
        if line.len() + 1 > MAX_LINE_BYTES {
            return Err(FrameError::LineTooLong { observed: line.len() + 1 });
        }
        let value = canonical::parse(&line)?;
        Ok(Frame { line, value })
    }
}

/// Writes a message as its canonical JSON bytes followed by exactly one `\n`.
///
/// Refuses a message whose complete line would be longer than [`MAX_LINE_BYTES`].
///
/// ```
/// use metewand_protocol::frame::encode_message;
/// use serde_json::json;
///
/// let line = encode_message(&json!({"ok": true, "id": "1"})).unwrap();
/// assert_eq!(line, b"{\"id\":\"1\",\"ok\":true}\n");
/// ```
pub fn encode_message<T: Serialize + ?Sized>(message: &T) -> Result<Vec<u8>, FrameError> {
    let value = serde_json::to_value(message).map_err(|err| FrameError::Encode(err.to_string()))?;
    encode_value(&value)
}

/// Writes a JSON value as a frame: canonical bytes and one `\n`, at most [`MAX_LINE_BYTES`] in all.
pub fn encode_value(value: &Value) -> Result<Vec<u8>, FrameError> {
    let mut line = Vec::with_capacity(128);
    canonical::write_canonical(value, &mut line);
    line.push(b'\n');
    if line.len() > MAX_LINE_BYTES {
        return Err(FrameError::LineTooLong { observed: line.len() });
    }
    Ok(line)
}

/// Reads frames from a byte stream, one complete line at a time.
///
/// The reader holds at most [`MAX_LINE_BYTES`] of a line: a longer line is refused as soon as the limit is
/// passed, without reading the rest. After any error that leaves the stream inside a line, the reader is unusable.
///
/// ```
/// use metewand_protocol::frame::{FrameError, FrameReader};
///
/// let mut reader = FrameReader::new(&b"{\"id\":\"0\"}\n{\"id\":\"1\"}"[..]);
/// assert_eq!(reader.read_frame().unwrap().unwrap().value()["id"], "0");
/// assert!(matches!(reader.read_frame(), Err(FrameError::EarlyEof { bytes: 10 })));
///
/// let mut reader = FrameReader::new(&b""[..]);
/// assert!(reader.read_frame().unwrap().is_none(), "a clean end of stream");
/// ```
#[derive(Debug)]
pub struct FrameReader<R> {
    reader: R,
    line: Vec<u8>,
    poisoned: bool,
}

impl<R: BufRead> FrameReader<R> {
    /// A reader over `reader`.
    pub fn new(reader: R) -> FrameReader<R> {
        FrameReader { reader, line: Vec::new(), poisoned: false }
    }

    /// The underlying reader.
    pub fn get_ref(&self) -> &R {
        &self.reader
    }

    /// Reads the next line and parses it; `None` at a clean end of stream.
    pub fn read_frame(&mut self) -> Result<Option<Frame>, FrameError> {
        let Some(line) = self.read_line()? else { return Ok(None) };
        Frame::parse(line).map(Some)
    }

    /// Reads the next line's bytes, without the `\n`; `None` at a clean end of stream.
    pub fn read_line(&mut self) -> Result<Option<Vec<u8>>, FrameError> {
        if self.poisoned {
            return Err(FrameError::Poisoned);
        }
        let result = self.read_line_inner();
        if result.is_err() {
            self.poisoned = true;
        }
        result
    }

    fn read_line_inner(&mut self) -> Result<Option<Vec<u8>>, FrameError> {
        self.line.clear();
        loop {
            let available = match self.reader.fill_buf() {
                Ok(available) => available,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) => return Err(err.into()),
            };
            if available.is_empty() {
                if self.line.is_empty() {
                    return Ok(None);
                }
                return Err(FrameError::EarlyEof { bytes: self.line.len() });
            }
            let (taken, complete) = match available.iter().position(|&byte| byte == b'\n') {
                Some(index) => (index + 1, true),
                None => (available.len(), false),
            };
            // Count the line feed too: the limit is on the complete line.
            let line_length = self.line.len() + taken;
            if line_length > MAX_LINE_BYTES || (!complete && line_length == MAX_LINE_BYTES) {
                // A line that has reached the limit without its `\n` can only grow past it.
                let observed = if complete { line_length } else { line_length + 1 };
                return Err(FrameError::LineTooLong { observed });
            }
            let body = if complete { &available[..taken - 1] } else { available };
            self.line.extend_from_slice(body);
            self.reader.consume(taken);
            if complete {
                return Ok(Some(std::mem::take(&mut self.line)));
            }
        }
    }
}
