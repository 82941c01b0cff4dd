//! The handshake: negotiation and the six checks, each failing with its own error.

use metewand_protocol::common::{Capability, Role, WorkerId};
use metewand_protocol::handshake::{HandshakeError, hello_request};
use metewand_protocol::messages::{HelloRequest, HelloResponse, RequestId};
use metewand_protocol::{decode_message, frame::Frame, validate_hello_response};
use serde_json::{Value, json};

const WORKER_ID: &str = "mw1-resolved-worker-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
const OTHER_ID: &str = "mw1-resolved-worker-fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210";

fn request(role: Role) -> HelloRequest {
    hello_request(RequestId::try_from("0").unwrap(), role, WorkerId::try_from(WORKER_ID).unwrap())
}

fn response(changes: Value) -> HelloResponse {
    let mut value = json!({
        "capabilities": ["one_shot"], "id": "0", "ok": true, "protocol": 1,
        "sdk": {"name": "metewand-python", "version": "0.1.0"}, "worker_id": WORKER_ID
    });
    for (key, change) in changes.as_object().unwrap() {
        value[key] = change.clone();
    }
    let line = serde_json::to_vec(&value).unwrap();
    decode_message(&Frame::parse(line).unwrap()).unwrap()
}

#[test]
fn the_normative_handshake_succeeds_and_records_the_report() {
    let request = request(Role::Implementation);
    assert_eq!(
        serde_json::to_string(&request).unwrap(),
        format!(r#"{{"id":"0","method":"hello","protocols":[1],"role":"implementation","worker_id":"{WORKER_ID}"}}"#)
    );
    let handshake = validate_hello_response(&request, &response(json!({})), &[Capability::OneShot]).unwrap();
    assert_eq!(handshake.protocol, 1);
    assert_eq!(handshake.selected, [Capability::OneShot]);
    let sdk = handshake.sdk.unwrap();
    assert_eq!((sdk.name.as_str(), sdk.version.as_str()), ("metewand-python", "0.1.0"));
}

#[test]
fn reserved_capabilities_may_be_reported_and_are_recorded_but_inert() {
    let all = json!(["applicability", "fresh_sequence", "one_shot", "streaming_profile"]);
    let handshake =
        validate_hello_response(&request(Role::Implementation), &response(json!({"capabilities": all})), &[]).unwrap();
    assert_eq!(handshake.reported.len(), 4);
    assert!(handshake.selected.is_empty());
}

#[test]
fn each_check_fails_with_its_own_error() {
    let implementation = request(Role::Implementation);
    assert_eq!(
        validate_hello_response(&implementation, &response(json!({"id": "1"})), &[]).unwrap_err(),
        HandshakeError::IdMismatch { expected: "0".into(), observed: "1".into() }
    );

    let mut not_offered: HelloRequest = implementation.clone();
    not_offered.protocols = serde_json::from_value(json!([2])).unwrap();
    assert_eq!(
        validate_hello_response(&not_offered, &response(json!({})), &[]).unwrap_err(),
        HandshakeError::ProtocolNotOffered { offered: vec![2] }
    );

    assert!(matches!(
        validate_hello_response(&implementation, &response(json!({"worker_id": OTHER_ID})), &[]).unwrap_err(),
        HandshakeError::WorkerIdMismatch { .. }
    ));

    assert_eq!(
        validate_hello_response(&implementation, &response(json!({"capabilities": []})), &[Capability::OneShot])
            .unwrap_err(),
        HandshakeError::CapabilityNotReported { capability: Capability::OneShot, reported: vec![] }
    );

    assert_eq!(
        validate_hello_response(&request(Role::ProblemEvaluator), &response(json!({})), &[Capability::OneShot])
            .unwrap_err(),
        HandshakeError::CapabilitySelectedForRole { role: Role::ProblemEvaluator }
    );

    let reported = json!(["one_shot", "applicability"]);
    assert_eq!(
        validate_hello_response(
            &implementation,
            &response(json!({"capabilities": reported})),
            &[Capability::OneShot, Capability::Applicability]
        )
        .unwrap_err(),
        HandshakeError::ReservedCapabilitySelected { capability: Capability::Applicability }
    );
    let reported = json!(["fresh_sequence", "streaming_profile"]);
    assert_eq!(
        validate_hello_response(
            &implementation,
            &response(json!({"capabilities": reported})),
            &[Capability::StreamingProfile, Capability::FreshSequence]
        )
        .unwrap_err(),
        HandshakeError::ReservedCapabilitySelected { capability: Capability::FreshSequence }
    );
}

#[test]
fn streaming_profile_may_be_selected_alone_or_with_one_shot() {
    let implementation = request(Role::Implementation);
    let both = response(json!({"capabilities": ["one_shot", "streaming_profile"]}));
    for selected in [&[Capability::StreamingProfile][..], &[Capability::OneShot, Capability::StreamingProfile]] {
        let handshake = validate_hello_response(&implementation, &both, selected).unwrap();
        assert_eq!(handshake.selected, selected);
    }
    assert_eq!(
        validate_hello_response(&implementation, &response(json!({})), &[Capability::StreamingProfile]).unwrap_err(),
        HandshakeError::CapabilityNotReported {
            capability: Capability::StreamingProfile,
            reported: vec![Capability::OneShot]
        }
    );
}

#[test]
fn a_direct_protocol_worker_reports_no_sdk() {
    let handshake =
        validate_hello_response(&request(Role::DatasetMaterializer), &response(json!({"sdk": null})), &[]).unwrap();
    assert_eq!(handshake.sdk, None);
}

#[test]
fn the_exact_schema_bytes_path_and_id_are_exported() {
    let schema = metewand_protocol::schema::WORKER_PROTOCOL_MESSAGE;
    assert_eq!(schema.id, "urn:metewand:schema:worker-protocol-message:1");
    assert_eq!(schema.path, "schemas/worker-protocol-message.schema.json");
    let on_disk = std::fs::read(crate::support::workspace_root().join(schema.path)).unwrap();
    assert_eq!(schema.bytes, &on_disk[..]);
    for embedded in metewand_protocol::schema::ALL {
        let value: Value = serde_json::from_slice(embedded.bytes).unwrap();
        assert_eq!(value["$id"], embedded.id);
    }
}
