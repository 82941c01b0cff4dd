//! The table of request methods, generated from the annotations of the schema's request definitions: it says what
//! the schema says, every definition it names is a message with a type, and each role's methods are as specified.

use metewand_protocol::Phase;
use metewand_protocol::common::{Capability, Role};
use metewand_protocol::decode::{MESSAGE_DEFINITIONS, precompile_requests};
use metewand_protocol::methods::{REQUEST_METHODS, RequestMethod};
use serde_json::Value;

/// One method as a test reads it: name, roles (sorted), phase, capability, request and response definitions.
type Row = (String, Vec<Role>, Phase, Option<Capability>, String, String);

#[test]
fn the_table_says_what_the_request_definitions_say() {
    let schema: Value = serde_json::from_slice(metewand_protocol::schema::WORKER_PROTOCOL_MESSAGE.bytes).unwrap();
    let mut expected: Vec<Row> = Vec::new();
    for entry in schema["anyOf"].as_array().unwrap() {
        let name = entry["$ref"].as_str().unwrap().strip_prefix("#/$defs/").unwrap();
        let def = &schema["$defs"][name];
        let Some(method) = def["properties"]["method"]["const"].as_str() else {
            assert!(def.get("x-accepted-by").is_none(), "{name} is no request, yet annotated");
            continue;
        };
        let text = |value: &Value| value.as_str().unwrap().to_owned();
        let mut roles: Vec<Role> =
            def["x-accepted-by"].as_array().unwrap().iter().map(|role| text(role).parse().unwrap()).collect();
        roles.sort();
        let phase = def.get("x-phase").map_or_else(|| method.to_owned(), text).parse().unwrap();
        let capability = def.get("x-capability").map(|capability| text(capability).parse().unwrap());
        expected.push((method.to_owned(), roles, phase, capability, name.to_owned(), text(&def["x-response"])));
    }
    let table: Vec<Row> = REQUEST_METHODS
        .iter()
        .map(|method| {
            let mut roles = method.accepted_by.to_vec();
            roles.sort();
            let (request, response) = (method.request.to_owned(), method.response.to_owned());
            (method.name.to_owned(), roles, method.phase, method.capability, request, response)
        })
        .collect();
    assert_eq!(table, expected);
}

#[test]
fn every_definition_the_table_names_is_a_message_with_a_type() {
    for method in &REQUEST_METHODS {
        assert!(MESSAGE_DEFINITIONS.contains(&method.request), "{method:?}");
        assert!(MESSAGE_DEFINITIONS.contains(&method.response), "{method:?}");
        assert_eq!(RequestMethod::named(method.name), Some(method));
    }
    assert_eq!(RequestMethod::named("compute"), None);
    for role in [Role::DatasetMaterializer, Role::Implementation, Role::ProblemEvaluator] {
        // Every definition the table names has a validator to compile.
        precompile_requests(role);
    }
}

#[test]
fn each_role_accepts_its_methods_in_the_schemas_order() {
    let names = |role| RequestMethod::of_role(role).map(|method| method.name).collect::<Vec<_>>();
    assert_eq!(names(Role::DatasetMaterializer), ["hello", "materialize", "shutdown"]);
    assert_eq!(names(Role::Implementation), ["hello", "prepare", "execute", "execute_stream", "reset", "shutdown"]);
    assert_eq!(names(Role::ProblemEvaluator), ["hello", "evaluate", "shutdown"]);
}

#[test]
fn execute_stream_is_an_implementations_execute_phase_for_those_that_report_streaming_profile() {
    let stream = RequestMethod::named("execute_stream").unwrap();
    assert_eq!(stream.accepted_by, [Role::Implementation]);
    assert_eq!((stream.phase, stream.capability), (Phase::Execute, Some(Capability::StreamingProfile)));
    assert_eq!((stream.request, stream.response), ("execute_stream_request", "execute_response"));
    let others = REQUEST_METHODS.iter().filter(|method| method.name != "execute_stream");
    assert!(others.clone().all(|method| method.capability.is_none()), "every other method is every worker's");
    assert!(others.clone().all(|method| method.phase.as_str() == method.name), "the others name their phase");
}
