//! The table of request methods: read from the annotations of the protocol schema's request definitions, generated
//! in both languages, and refused at its JSON pointer wherever an annotation is missing, unknown or misplaced.

use codegen::{Error, GeneratedFile, SchemaSource, generate};
use serde_json::{Value, json};

/// A `common` with two roles, two phases and one capability.
fn common() -> Value {
    json!({
        "$id": "urn:metewand:schema:common:1",
        "$defs": {
            "role": {"type": "string", "enum": ["alpha", "beta"]},
            "phase": {"type": "string", "enum": ["ping", "stop"]},
            "capability": {"type": "string", "enum": ["fast"]}
        }
    })
}

/// A protocol of one request, `ping`, which `alpha` accepts and `pong_response` answers.
fn protocol() -> Value {
    json!({
        "$id": "urn:metewand:schema:worker-protocol-message:1",
        "anyOf": [{"$ref": "#/$defs/ping_request"}, {"$ref": "#/$defs/pong_response"}],
        "$defs": {
            "ping_request": {
                "description": "Asks whether the worker is there.",
                "x-accepted-by": ["alpha"],
                "x-response": "pong_response",
                "type": "object",
                "additionalProperties": false,
                "required": ["method"],
                "properties": {"method": {"const": "ping"}}
            },
            "pong_response": {
                "type": "object",
                "additionalProperties": false,
                "required": ["ok"],
                "properties": {"ok": {"const": true}}
            }
        }
    })
}

fn sources(common: Value, protocol: Value) -> Vec<SchemaSource> {
    vec![
        SchemaSource { name: "common".to_owned(), text: common.to_string() },
        SchemaSource { name: "worker-protocol-message".to_owned(), text: protocol.to_string() },
    ]
}

fn file<'a>(files: &'a [GeneratedFile], path: &str) -> &'a str {
    &files.iter().find(|file| file.path == path).unwrap_or_else(|| panic!("no {path}")).contents
}

/// The schema, pointer and reason of the refusal of `protocol` changed by `change`.
fn refusal(common: Value, change: impl FnOnce(&mut Value)) -> (String, String, String) {
    let mut protocol = protocol();
    change(&mut protocol);
    match generate(&sources(common, protocol)) {
        Err(Error::Unsupported { schema, pointer, reason }) => (schema, pointer, reason),
        other => panic!("expected an unsupported construct, got {:?}", other.map(|files| files.len())),
    }
}

#[test]
fn the_annotations_become_a_table_in_each_language_and_its_index() {
    let files = generate(&sources(common(), protocol())).unwrap();
    let rust = file(&files, "metewand-protocol/src/generated/worker_protocol_methods.rs");
    assert!(rust.starts_with("// Generated from schemas/worker-protocol-message.schema.json by codegen"), "{rust}");
    assert!(rust.lines().next().unwrap().ends_with("Regenerate with: cargo xtask codegen"), "{rust}");
    for expected in [
        "/// `ping`: Asks whether the worker is there.\npub const PING: RequestMethod = RequestMethod {\n",
        "    accepted_by: &[super::common::Role::Alpha],\n",
        "    phase: super::common::Phase::Ping,\n",
        "    capability: ::std::option::Option::None,\n",
        "    request: \"ping_request\",\n    response: \"pong_response\",\n",
        "pub static REQUEST_METHODS: [RequestMethod; 1] = [PING];\n",
    ] {
        assert!(rust.contains(expected), "missing {expected:?} in\n{rust}");
    }
    let python = file(&files, "sdk-python/src/metewand/models/worker_protocol_methods.py");
    assert!(python.starts_with("# Generated from schemas/worker-protocol-message.schema.json by codegen"));
    for expected in [
        "from metewand.models.worker_protocol_message import (\n    PingRequest,\n    PongResponse,\n)\n",
        "REQUEST_METHODS: tuple[str, ...] = (\n    \"ping\",\n)\n",
        "ROLE_METHODS: dict[str, tuple[str, ...]] = {\n    \"alpha\": (\"ping\",),\n    \"beta\": (),\n}\n",
        "PHASES: dict[str, Phase] = {\n    \"ping\": \"ping\",\n}\n",
        "CAPABILITIES: dict[str, Capability] = {}\n",
        "REQUESTS: dict[str, Any] = {\n    \"ping\": PingRequest,\n}\n",
        "RESPONSES: dict[str, Any] = {\n    \"ping\": PongResponse,\n}\n",
    ] {
        assert!(python.contains(expected), "missing {expected:?} in\n{python}");
    }
    assert!(file(&files, "metewand-protocol/src/generated/mod.rs").contains("pub mod worker_protocol_methods;\n"));
    let init = file(&files, "sdk-python/src/metewand/models/__init__.py");
    assert!(init.contains("- ``metewand.models.worker_protocol_methods``: "), "{init}");
    assert_eq!(generate(&sources(common(), protocol())).unwrap(), files, "the output is deterministic");
}

#[test]
fn a_phase_and_a_capability_are_written_where_the_schema_gives_them() {
    let mut protocol = protocol();
    let ping = &mut protocol["$defs"]["ping_request"];
    ping["properties"]["method"]["const"] = json!("ping_fast");
    ping["x-phase"] = json!("ping");
    ping["x-capability"] = json!("fast");
    ping["x-accepted-by"] = json!(["beta", "alpha"]);
    let files = generate(&sources(common(), protocol)).unwrap();
    let rust = file(&files, "metewand-protocol/src/generated/worker_protocol_methods.rs");
    assert!(rust.contains("pub const PING_FAST: RequestMethod"), "{rust}");
    assert!(rust.contains("Option::Some(super::common::Capability::Fast)"), "{rust}");
    assert!(rust.contains("accepted_by: &[super::common::Role::Alpha, super::common::Role::Beta]"), "{rust}");
    let python = file(&files, "sdk-python/src/metewand/models/worker_protocol_methods.py");
    assert!(python.contains("PHASES: dict[str, Phase] = {\n    \"ping_fast\": \"ping\",\n}\n"), "{python}");
    assert!(python.contains("CAPABILITIES: dict[str, Capability] = {\n    \"ping_fast\": \"fast\",\n}\n"), "{python}");
}

#[test]
fn no_protocol_schema_no_table() {
    let files = generate(&[SchemaSource { name: "common".to_owned(), text: common().to_string() }]).unwrap();
    assert!(files.iter().all(|file| !file.path.contains("worker_protocol_methods")), "{files:?}");
    assert!(!file(&files, "metewand-protocol/src/generated/mod.rs").contains("worker_protocol_methods"));
}

#[test]
fn a_missing_unknown_or_misplaced_annotation_is_refused_at_its_pointer() {
    let ping = "/$defs/ping_request";
    type Change = Box<dyn FnOnce(&mut Value)>;
    let cases: Vec<(Change, String, &str)> = vec![
        (
            Box::new(|p| drop(p["$defs"]["ping_request"].as_object_mut().unwrap().remove("x-accepted-by"))),
            format!("{ping}/x-accepted-by"),
            "must list the roles",
        ),
        (
            Box::new(|p| p["$defs"]["ping_request"]["x-accepted-by"] = json!([])),
            format!("{ping}/x-accepted-by"),
            "must list",
        ),
        (
            Box::new(|p| p["$defs"]["ping_request"]["x-accepted-by"] = json!(["alpha", "gamma"])),
            format!("{ping}/x-accepted-by/1"),
            "not a role of common: alpha, beta",
        ),
        (
            Box::new(|p| p["$defs"]["ping_request"]["x-accepted-by"] = json!(["alpha", "alpha"])),
            format!("{ping}/x-accepted-by"),
            "listed twice",
        ),
        (
            Box::new(|p| p["$defs"]["ping_request"]["x-response"] = json!("ping_request")),
            format!("{ping}/x-response"),
            "success response",
        ),
        (
            Box::new(|p| p["$defs"]["ping_request"]["x-response"] = json!("nothing")),
            format!("{ping}/x-response"),
            "success response",
        ),
        (
            Box::new(|p| p["$defs"]["ping_request"]["x-phase"] = json!("start")),
            format!("{ping}/x-phase"),
            "not a phase of common",
        ),
        (
            Box::new(|p| p["$defs"]["ping_request"]["properties"]["method"]["const"] = json!("pong")),
            ping.to_owned(),
            "no phase of common: say which it runs with x-phase",
        ),
        (
            Box::new(|p| p["$defs"]["ping_request"]["x-capability"] = json!("slow")),
            format!("{ping}/x-capability"),
            "not a capability",
        ),
        (
            Box::new(|p| p["$defs"]["ping_request"]["x-roles"] = json!(["alpha"])),
            format!("{ping}/x-roles"),
            "not an annotation",
        ),
        (
            Box::new(|p| p["$defs"]["pong_response"]["x-accepted-by"] = json!(["alpha"])),
            "/$defs/pong_response/x-accepted-by".to_owned(),
            "only a request",
        ),
        (
            Box::new(|p| p["anyOf"] = json!([{"$ref": "#/$defs/pong_response"}])),
            ping.to_owned(),
            "listed in the root anyOf",
        ),
    ];
    for (change, pointer, reason) in cases {
        let (schema, at, why) = refusal(common(), change);
        assert_eq!((schema.as_str(), at.as_str()), ("worker-protocol-message", pointer.as_str()), "{why}");
        assert!(why.contains(reason), "{pointer}: {why}");
    }
    let mut annotated = common();
    annotated["$defs"]["role"]["x-accepted-by"] = json!(["alpha"]);
    let (schema, pointer, reason) = refusal(annotated, |_| {});
    assert_eq!((schema.as_str(), pointer.as_str()), ("common", "/$defs/role/x-accepted-by"));
    assert!(reason.contains("only the requests of worker-protocol-message"), "{reason}");
}
