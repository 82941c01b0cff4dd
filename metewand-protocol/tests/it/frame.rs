//! Frames: bounded line reading, every framing error typed, and canonical encoding with one line feed.

use std::io::{BufReader, Read};

use metewand_protocol::frame::{FrameError, FrameReader, MAX_LINE_BYTES, encode_message, encode_value};
use metewand_protocol::{ParseErrorKind, canonical};
use proptest::prelude::*;
use serde_json::json;

fn frames(bytes: &[u8]) -> Vec<Result<Option<serde_json::Value>, String>> {
    let mut reader = FrameReader::new(bytes);
    let mut out = Vec::new();
    loop {
        match reader.read_frame() {
            Ok(Some(frame)) => out.push(Ok(Some(frame.into_value()))),
            Ok(None) => {
                out.push(Ok(None));
                return out;
            }
            Err(err) => {
                out.push(Err(err.to_string()));
                return out;
            }
        }
    }
}

fn parse_kind(bytes: &[u8]) -> ParseErrorKind {
    match FrameReader::new(bytes).read_frame() {
        Err(FrameError::Parse(error)) => error.kind().clone(),
        other => panic!("expected a parse error, got {other:?}"),
    }
}

#[test]
fn reads_one_complete_line_at_a_time_and_ends_cleanly() {
    let read = frames(b"{\"id\":\"0\"}\n[1,2]\n\"x\"\n");
    assert_eq!(read, vec![Ok(Some(json!({"id": "0"}))), Ok(Some(json!([1, 2]))), Ok(Some(json!("x"))), Ok(None)]);
}

#[test]
fn a_carriage_return_is_not_a_terminator_but_is_json_white_space() {
    let mut reader = FrameReader::new(&b"{}\r\n{\"a\":\r1}\n"[..]);
    assert_eq!(reader.read_frame().unwrap().unwrap().line(), b"{}\r");
    assert_eq!(reader.read_frame().unwrap().unwrap().into_value(), json!({"a": 1}));
}

#[test]
fn bytes_after_the_last_line_feed_are_an_early_eof() {
    let mut reader = FrameReader::new(&b"{}\n{\"id\""[..]);
    reader.read_frame().unwrap().unwrap();
    assert!(matches!(reader.read_frame(), Err(FrameError::EarlyEof { bytes: 5 })));
    assert!(matches!(reader.read_frame(), Err(FrameError::Poisoned)), "nothing is read after a framing error");
}

#[test]
fn invalid_utf8_a_bom_duplicate_keys_and_malformed_json_are_typed_errors() {
    assert!(matches!(parse_kind(b"\"\xff\"\n"), ParseErrorKind::InvalidUtf8));
    assert!(matches!(parse_kind(b"\xef\xbb\xbf{}\n"), ParseErrorKind::ByteOrderMark));
    assert!(matches!(parse_kind(b"{\"id\":\"0\",\"id\":\"1\"}\n"), ParseErrorKind::DuplicateKey { .. }));
    assert!(matches!(parse_kind(b"{\"id\":}\n"), ParseErrorKind::UnexpectedCharacter { .. }));
    assert!(matches!(parse_kind(b"\n"), ParseErrorKind::UnexpectedEnd));
}

#[test]
fn a_line_of_exactly_one_mebibyte_is_accepted_and_one_byte_more_is_not() {
    // A string value padded so that the line, its line feed included, is exactly the limit.
    let mut line = b"\"".to_vec();
    line.resize(MAX_LINE_BYTES - 2, b'a');
    line.extend_from_slice(b"\"\n");
    assert_eq!(line.len(), MAX_LINE_BYTES);
    let frame = FrameReader::new(&line[..]).read_frame().unwrap().unwrap();
    assert_eq!(frame.line().len(), MAX_LINE_BYTES - 1);

    line.insert(1, b'a');
    assert!(matches!(
        FrameReader::new(&line[..]).read_frame(),
        Err(FrameError::LineTooLong { observed }) if observed == MAX_LINE_BYTES + 1
    ));
}

/// An endless line, counting what was read from it.
struct Endless {
    read: usize,
}

impl Read for Endless {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        buf.fill(b'a');
        self.read += buf.len();
        Ok(buf.len())
    }
}

#[test]
fn an_endless_line_is_refused_as_soon_as_it_passes_the_limit() {
    let mut reader = FrameReader::new(BufReader::new(Endless { read: 0 }));
    assert!(matches!(reader.read_frame(), Err(FrameError::LineTooLong { .. })));
    let read = reader.get_ref().get_ref().read;
    // The reader stops within one buffer of the limit instead of reading on.
    assert!(read <= MAX_LINE_BYTES + 8192, "read {read} bytes");
}

#[test]
fn encode_writes_canonical_bytes_and_one_line_feed() {
    let message = json!({"ok": true, "id": "2", "statistics": {"b": 1.0, "a": 1e21}, "implementation_time_ns": null});
    assert_eq!(
        encode_message(&message).unwrap(),
        b"{\"id\":\"2\",\"implementation_time_ns\":null,\"ok\":true,\"statistics\":{\"a\":1e+21,\"b\":1}}\n"
    );
}

#[test]
fn encode_refuses_a_line_over_one_mebibyte() {
    let fits = "a".repeat(MAX_LINE_BYTES - 3);
    assert_eq!(encode_value(&json!(fits)).unwrap().len(), MAX_LINE_BYTES);
    let too_long = "a".repeat(MAX_LINE_BYTES - 2);
    assert!(matches!(
        encode_value(&json!(too_long)),
        Err(FrameError::LineTooLong { observed }) if observed == MAX_LINE_BYTES + 1
    ));
}

#[test]
fn an_encoded_message_reads_back_as_itself() {
    let message = json!({"error": {"code": "operation_failed", "details": {"x": [1, 2.5, "\u{1f600}"]}, "message": "no"}, "id": "9", "ok": false});
    let line = encode_message(&message).unwrap();
    let frame = FrameReader::new(&line[..]).read_frame().unwrap().unwrap();
    assert_eq!(frame.value(), &message);
    assert_eq!(canonical::to_canonical_vec(frame.value()), line[..line.len() - 1]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_bytes_never_panic_the_reader(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let mut reader = FrameReader::new(&bytes[..]);
        // Every call either yields a frame, ends, or fails; the loop ends because each frame consumes a line.
        while let Ok(Some(_)) = reader.read_frame() {}
    }

    #[test]
    fn arbitrary_lines_of_json_like_bytes_never_panic(
        lines in proptest::collection::vec("[\\[\\]{}\":,0-9a-z\\\\ .eE+-]{0,40}", 0..8)
    ) {
        let text = lines.join("\n");
        let mut reader = FrameReader::new(text.as_bytes());
        while let Ok(Some(_)) = reader.read_frame() {}
    }
}
