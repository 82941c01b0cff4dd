//! The checkpoint exchange of `execute_stream`: decoding what a pending stream reads, and each rule a checkpoint
//! can break failing with its own error.

use metewand_protocol::frame::Frame;
use metewand_protocol::messages::{CheckpointMessage, RequestId};
use metewand_protocol::stream::{CheckpointStream, StreamError, StreamFrame, checkpoint_manifest, decode_stream_frame};
use metewand_protocol::{DecodeError, Response};
use serde_json::json;

fn checkpoint(id: &str, n: u64, manifest: &str) -> CheckpointMessage {
    serde_json::from_value(json!({"checkpoint": n, "id": id, "result": {"manifest": manifest}})).unwrap()
}

fn next(id: &str, n: u64) -> CheckpointMessage {
    checkpoint(id, n, &checkpoint_manifest(n))
}

fn stream(max: u64) -> CheckpointStream {
    CheckpointStream::new(RequestId::try_from("2").unwrap(), max)
}

fn frame(value: serde_json::Value) -> Frame {
    Frame::parse(serde_json::to_vec(&value).unwrap()).unwrap()
}

#[test]
fn a_frame_is_a_checkpoint_unless_it_carries_ok() {
    let read = decode_stream_frame(&frame(json!({"checkpoint": 1, "id": "2", "result": {"manifest": "m"}}))).unwrap();
    assert_eq!(read, StreamFrame::Checkpoint(checkpoint("2", 1, "m")));
    let failure = json!({"error": {"code": "operation_failed", "message": "diverged"}, "id": "2", "ok": false});
    assert!(matches!(decode_stream_frame(&frame(failure)).unwrap(), StreamFrame::Final(Response::Failure(_))));
    // A checkpoint that also says ok is neither message, and is refused as the final response it claims to be.
    let both = json!({"checkpoint": 1, "id": "2", "ok": true, "result": {"manifest": "m"}});
    let error = decode_stream_frame(&frame(both)).unwrap_err();
    assert!(matches!(error, DecodeError::Schema { definition: "execute_response", .. }), "{error}");
    let stray = json!({"checkpoint": "1", "id": "2", "result": {"manifest": "m"}});
    let error = decode_stream_frame(&frame(stray)).unwrap_err();
    assert!(matches!(error, DecodeError::Schema { definition: "checkpoint_message", .. }), "{error}");
    assert!(decode_stream_frame(&frame(json!([1]))).is_err());
}

#[test]
fn checkpoints_run_from_one_without_gaps_and_are_told_to_stop_at_the_last_allowed() {
    let mut stream = stream(3);
    for n in 1..=3 {
        assert_eq!(stream.accept(&next("2", n)).unwrap(), n);
        let answer = stream.answer(n, true);
        assert_eq!((answer.checkpoint.get(), answer.continue_, answer.id.as_str()), (n, n < 3, "2"));
    }
    assert_eq!(stream.received(), 3);
    assert_eq!(
        serde_json::to_string(&stream.answer(3, true)).unwrap(),
        r#"{"checkpoint":3,"continue":false,"id":"2"}"#
    );
}

#[test]
fn each_broken_rule_has_its_own_error() {
    assert_eq!(
        stream(5).accept(&next("7", 1)).unwrap_err(),
        StreamError::OtherId { expected: "2".into(), observed: "7".into(), checkpoint: 1 }
    );
    assert_eq!(stream(5).accept(&next("2", 2)).unwrap_err(), StreamError::OutOfOrder { expected: 1, observed: 2 });
    assert_eq!(stream(5).accept(&next("2", 0)).unwrap_err(), StreamError::OutOfOrder { expected: 1, observed: 0 });
    let mut repeated = stream(5);
    repeated.accept(&next("2", 1)).unwrap();
    repeated.answer(1, true);
    assert_eq!(repeated.accept(&next("2", 1)).unwrap_err(), StreamError::OutOfOrder { expected: 2, observed: 1 });
    assert_eq!(stream(2).accept(&next("2", 3)).unwrap_err(), StreamError::PastMax { max: 2, observed: 3 });
    assert_eq!(
        stream(5).accept(&checkpoint("2", 1, "result.json")).unwrap_err(),
        StreamError::ManifestPath {
            checkpoint: 1,
            expected: "checkpoints/1/result.json".into(),
            observed: "result.json".into()
        }
    );
    let mut stopped = stream(5);
    stopped.accept(&next("2", 1)).unwrap();
    assert!(!stopped.answer(1, false).continue_);
    assert_eq!(stopped.accept(&next("2", 2)).unwrap_err(), StreamError::AfterStop { stopped_at: 1, observed: 2 });
}
