//! Decoding frames as the message the session expects: schema first, then the generated type; `ok` decides
//! between a request's success shape and a failure.

use metewand_protocol::decode::{MESSAGE_DEFINITIONS, decode_response};
use metewand_protocol::frame::Frame;
use metewand_protocol::messages::{AckResponse, ExecuteResponse, HelloResponse, ResetRequest, ShutdownRequest};
use metewand_protocol::{DecodeError, Response, decode_message};
use serde_json::Value;

fn frame(text: &str) -> Frame {
    Frame::parse(text.as_bytes().to_vec()).unwrap()
}

#[test]
fn a_failure_answers_any_request_and_ok_true_is_the_success_shape() {
    let failure = frame(
        r#"{"error":{"code":"operation_failed","details":{"iterations":100},"message":"The implementation did not converge."},"id":"2","ok":false}"#,
    );
    match decode_response::<ExecuteResponse>(&failure).unwrap() {
        Response::Failure(failure) => {
            assert_eq!(failure.error.message.as_str(), "The implementation did not converge.")
        }
        Response::Success(_) => panic!("decoded a failure as a success"),
    }
    assert_eq!(decode_response::<AckResponse>(&failure).unwrap().id(), "2");

    let ack = frame(r#"{"id":"1","ok":true}"#);
    assert!(matches!(decode_response::<AckResponse>(&ack).unwrap(), Response::Success(_)));
    // An acknowledgment is not an execute response: the expected shape decides, nothing is guessed.
    assert!(decode_response::<ExecuteResponse>(&ack).is_err());
}

#[test]
fn a_failure_shape_with_ok_true_is_refused() {
    let wrong = frame(r#"{"error":{"code":"internal_error","message":"x"},"id":"2","ok":true}"#);
    let error = decode_response::<AckResponse>(&wrong).unwrap_err();
    assert!(matches!(error, DecodeError::Schema { definition: "ack_response", .. }), "{error}");
}

#[test]
fn shutdown_is_not_decoded_as_reset() {
    let shutdown = frame(r#"{"id":"5","method":"shutdown"}"#);
    assert!(decode_message::<ShutdownRequest>(&shutdown).is_ok());
    let error = decode_message::<ResetRequest>(&shutdown).unwrap_err();
    let DecodeError::Schema { diagnostics, .. } = &error else { panic!("{error}") };
    assert_eq!(diagnostics[0].instance_path, "/method");
}

#[test]
fn schema_errors_name_the_definition_and_the_json_path() {
    let hello = frame(
        r#"{"capabilities":["one_shot","one_shot"],"id":"0","ok":true,"protocol":1,"sdk":null,"worker_id":"mw1-resolved-worker-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}"#,
    );
    let error = decode_message::<HelloResponse>(&hello).unwrap_err().to_string();
    assert!(error.starts_with("not a valid hello_response message: at /capabilities:"), "{error}");
}

#[test]
fn every_message_of_the_schema_has_a_message_type_in_its_order() {
    let schema: Value = serde_json::from_slice(metewand_protocol::schema::WORKER_PROTOCOL_MESSAGE.bytes).unwrap();
    let messages: Vec<&str> = schema["anyOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|alternative| alternative["$ref"].as_str().unwrap().strip_prefix("#/$defs/").unwrap())
        .collect();
    assert_eq!(messages, MESSAGE_DEFINITIONS);
}
