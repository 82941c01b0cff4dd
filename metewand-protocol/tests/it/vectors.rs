//! The shared vectors of `schemas/vectors/`: jsonschema and the generated Rust types must agree on every one.
//!
//! Each valid vector must pass the schema, decode into its generated type and encode back to the same value.
//! Each schema-level invalid vector (a valid one with one change) must fail the schema with an error at the
//! expected JSON path, so that nothing is rejected for the wrong reason, and must fail to decode.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;

use metewand_protocol::generated::{
    artifact_manifest, attempt_record, audit, bundle_manifest, campaign_file, campaign_index, campaign_table, common,
    dataset_materialization, dataset_published, metrics, repository_definition, result_manifest, slurm_submission,
};
use metewand_protocol::messages;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::support::{normalize_numbers, workspace_root};

/// Decodes a value as a generated type and encodes it back.
type RoundTrip = fn(&Value) -> Result<Value, String>;

fn round_trip<T: DeserializeOwned + Serialize>(value: &Value) -> Result<Value, String> {
    let typed: T = serde_json::from_value(value.clone()).map_err(|err| err.to_string())?;
    serde_json::to_value(&typed).map_err(|err| err.to_string())
}

/// The generated type for each (schema, definition) a vector may name; `None` is the schema's root.
fn decoders() -> BTreeMap<(&'static str, Option<&'static str>), RoundTrip> {
    let mut table: BTreeMap<(&'static str, Option<&'static str>), RoundTrip> = BTreeMap::new();
    let protocol = "worker-protocol-message";
    table.insert((protocol, Some("hello_request")), round_trip::<messages::HelloRequest>);
    table.insert((protocol, Some("materialize_request")), round_trip::<messages::MaterializeRequest>);
    table.insert((protocol, Some("prepare_request")), round_trip::<messages::PrepareRequest>);
    table.insert((protocol, Some("execute_request")), round_trip::<messages::ExecuteRequest>);
    table.insert((protocol, Some("execute_stream_request")), round_trip::<messages::ExecuteStreamRequest>);
    table.insert((protocol, Some("checkpoint_answer")), round_trip::<messages::CheckpointAnswer>);
    table.insert((protocol, Some("reset_request")), round_trip::<messages::ResetRequest>);
    table.insert((protocol, Some("evaluate_request")), round_trip::<messages::EvaluateRequest>);
    table.insert((protocol, Some("shutdown_request")), round_trip::<messages::ShutdownRequest>);
    table.insert((protocol, Some("hello_response")), round_trip::<messages::HelloResponse>);
    table.insert((protocol, Some("materialize_response")), round_trip::<messages::MaterializeResponse>);
    table.insert((protocol, Some("execute_response")), round_trip::<messages::ExecuteResponse>);
    table.insert((protocol, Some("checkpoint_message")), round_trip::<messages::CheckpointMessage>);
    table.insert((protocol, Some("evaluate_response")), round_trip::<messages::EvaluateResponse>);
    table.insert((protocol, Some("ack_response")), round_trip::<messages::AckResponse>);
    table.insert((protocol, Some("failure_response")), round_trip::<messages::FailureResponse>);
    table.insert(("common", Some("file_record")), round_trip::<common::FileRecord>);
    table.insert(("common", Some("sdk_info")), round_trip::<common::SdkInfo>);
    table.insert(("artifact-manifest", None), round_trip::<artifact_manifest::ArtifactManifest>);
    table.insert(("result-manifest", None), round_trip::<result_manifest::ResultManifest>);
    table.insert(("metrics", None), round_trip::<metrics::Metrics>);
    table.insert(("attempt-record", None), round_trip::<attempt_record::AttemptRecord>);
    table.insert(("dataset-published", None), round_trip::<dataset_published::DatasetPublished>);
    table.insert(("dataset-materialization", None), round_trip::<dataset_materialization::DatasetMaterialization>);
    table.insert(("slurm-submission", None), round_trip::<slurm_submission::SlurmSubmission>);
    table.insert(("campaign-file", None), round_trip::<campaign_file::CampaignFile>);
    table.insert(("campaign-index", None), round_trip::<campaign_index::CampaignIndex>);
    table.insert(("campaign-table", None), round_trip::<campaign_table::CampaignTable>);
    table.insert(("bundle-manifest", None), round_trip::<bundle_manifest::BundleManifest>);
    table.insert(("audit", None), round_trip::<audit::Audit>);
    table.insert(("repository-definition", None), round_trip::<repository_definition::RepositoryDefinition>);
    table
}

struct VectorFile {
    schema_name: String,
    schema: Value,
    valid: Vec<Value>,
    invalid: Vec<Value>,
}

fn vector_files() -> Vec<VectorFile> {
    let root = workspace_root();
    let mut files = Vec::new();
    for entry in fs::read_dir(root.join("schemas/vectors")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|ext| ext != "json") {
            continue;
        }
        let document: Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
        let schema_name = document["schema"].as_str().unwrap().to_owned();
        let schema_path = root.join(format!("schemas/{schema_name}.schema.json"));
        let schema = serde_json::from_slice(&fs::read(&schema_path).unwrap()).unwrap();
        files.push(VectorFile {
            schema_name,
            schema,
            valid: document["valid"].as_array().unwrap().clone(),
            invalid: document["invalid"].as_array().unwrap().clone(),
        });
    }
    files.sort_by(|a, b| a.schema_name.cmp(&b.schema_name));
    files
}

/// A validator for one definition of the named schema, or of its root: the embedded schema, which the vectors'
/// file must match byte for byte.
fn validator(schema_name: &str, schema: &Value, definition: Option<&str>) -> jsonschema::Validator {
    let embedded = metewand_protocol::schema::ALL.into_iter().find(|embedded| embedded.name == schema_name).unwrap();
    assert_eq!(
        &serde_json::from_slice::<Value>(embedded.bytes).unwrap(),
        schema,
        "{schema_name} is not the embedded one"
    );
    metewand_protocol::schema::validator(embedded, definition)
}

/// Applies one JSON Patch operation (`replace`, `add` or `remove`).
fn apply(base: &Value, change: &Value) -> Value {
    let mut result = base.clone();
    let path = change["path"].as_str().unwrap();
    let (parent, last) = path.rsplit_once('/').unwrap();
    let last = last.replace("~1", "/").replace("~0", "~");
    if change["op"] == "replace" {
        *result.pointer_mut(path).unwrap_or_else(|| panic!("nothing to replace at {path}")) = change["value"].clone();
        return result;
    }
    let target = result.pointer_mut(parent).unwrap_or_else(|| panic!("no parent at {path}"));
    match (change["op"].as_str().unwrap(), target) {
        ("add", Value::Object(members)) => {
            members.insert(last, change["value"].clone());
        }
        ("add", Value::Array(items)) => {
            let index = if last == "-" { items.len() } else { last.parse().unwrap() };
            items.insert(index, change["value"].clone());
        }
        ("remove", Value::Object(members)) => {
            members.remove(&last).unwrap_or_else(|| panic!("nothing to remove at {path}"));
        }
        ("remove", Value::Array(items)) => {
            items.remove(last.parse().unwrap());
        }
        (op, _) => panic!("unsupported change {op} at {path}"),
    }
    result
}

fn definition(vector: &Value) -> Option<&str> {
    vector["definition"].as_str()
}

/// Every error's instance location with its message, including the alternatives' errors under `oneOf` and
/// `anyOf`: the nullable fields report the real mistake there.
fn collect_error_paths(error: &jsonschema::ValidationError<'_>, out: &mut Vec<(String, String)>) {
    out.push((error.instance_path().to_string(), error.to_string()));
    if let jsonschema::error::ValidationErrorKind::OneOfNotValid { context }
    | jsonschema::error::ValidationErrorKind::AnyOf { context } = error.kind()
    {
        for alternative in context {
            for nested in alternative {
                collect_error_paths(nested, out);
            }
        }
    }
}

#[test]
fn every_schema_has_vectors_and_every_definition_a_decoder() {
    let files = vector_files();
    let names: BTreeSet<&str> = files.iter().map(|f| f.schema_name.as_str()).collect();
    let decoders = decoders();
    let covered: BTreeSet<&str> = decoders.keys().map(|(schema, _)| *schema).collect();
    assert_eq!(names, covered, "every schema has a vector file and a row in the decoder table");
    for file in &files {
        for vector in &file.valid {
            let key = (file.schema_name.as_str(), definition(vector));
            assert!(decoders.keys().any(|k| k.0 == key.0 && k.1 == key.1), "no decoder for {key:?}");
        }
        let used: BTreeSet<Option<&str>> = file.valid.iter().map(definition).collect();
        for (schema, def) in decoders.keys() {
            if *schema == file.schema_name {
                assert!(used.contains(def), "{schema} {def:?} has no valid vector");
            }
        }
    }
}

#[test]
fn valid_vectors_pass_the_schema_and_round_trip_through_the_generated_types() {
    let decoders = decoders();
    let mut checked = 0;
    for file in vector_files() {
        for vector in &file.valid {
            let name = vector["name"].as_str().unwrap();
            let definition = definition(vector);
            let instance = &vector["instance"];
            let errors: Vec<String> = validator(&file.schema_name, &file.schema, definition)
                .iter_errors(instance)
                .map(|e| e.to_string())
                .collect();
            assert!(errors.is_empty(), "{}: {name}: jsonschema rejects it: {errors:?}", file.schema_name);
            let decode = decoders
                .iter()
                .find(|((s, d), _)| *s == file.schema_name && *d == definition)
                .map(|(_, f)| *f)
                .unwrap();
            let encoded = decode(instance).unwrap_or_else(|err| panic!("{name}: the generated type rejects it: {err}"));
            assert_eq!(
                normalize_numbers(&encoded),
                normalize_numbers(instance),
                "{name}: the generated type does not round-trip"
            );
            checked += 1;
        }
    }
    assert!(checked > 50, "only {checked} valid vectors");
}

#[test]
fn schema_level_invalid_vectors_fail_the_schema_at_their_path_and_the_generated_types() {
    let decoders = decoders();
    let mut checked = 0;
    for file in vector_files() {
        let bases: BTreeMap<&str, &Value> = file.valid.iter().map(|v| (v["name"].as_str().unwrap(), v)).collect();
        for vector in file.invalid.iter().filter(|v| v["level"] == "schema") {
            let name = vector["name"].as_str().unwrap();
            let base = bases[vector["base"].as_str().unwrap_or_else(|| panic!("{name}: no base"))];
            let definition = definition(base);
            let instance = apply(&base["instance"], &vector["change"]);
            let error_path = vector["error_path"].as_str().unwrap();

            let validator = validator(&file.schema_name, &file.schema, definition);
            let mut errors = Vec::new();
            for error in validator.iter_errors(&instance) {
                collect_error_paths(&error, &mut errors);
            }
            assert!(!errors.is_empty(), "{}: {name}: jsonschema accepts it", file.schema_name);
            assert!(
                errors.iter().any(|(path, _)| path == error_path),
                "{name}: jsonschema reports {errors:?}, none at {error_path:?}"
            );

            let decode = decoders
                .iter()
                .find(|((s, d), _)| *s == file.schema_name && *d == definition)
                .map(|(_, f)| *f)
                .unwrap();
            assert!(decode(&instance).is_err(), "{name}: the generated type accepts {instance}");
            checked += 1;
        }
    }
    assert!(checked > 300, "only {checked} invalid vectors");
}

#[test]
fn vector_names_are_unique_and_bases_exist() {
    for file in vector_files() {
        let mut names = BTreeSet::new();
        for vector in file.valid.iter().chain(&file.invalid) {
            let name = vector["name"].as_str().unwrap();
            assert!(names.insert(name), "{}: the name {name:?} is used twice", file.schema_name);
        }
        for vector in &file.invalid {
            match vector["level"].as_str() {
                Some("schema") => {
                    let base = vector["base"].as_str().unwrap();
                    assert!(file.valid.iter().any(|v| v["name"] == base), "no valid vector named {base:?}");
                    let op = vector["change"]["op"].as_str().unwrap();
                    assert!(["replace", "add", "remove"].contains(&op), "{op}");
                }
                Some("parser") => assert!(vector["text"].is_string()),
                other => panic!("unknown level {other:?}"),
            }
        }
    }
}

#[test]
fn parser_level_invalid_vectors_fail_the_restricted_domain() {
    let mut checked = 0;
    for file in vector_files() {
        for vector in file.invalid.iter().filter(|v| v["level"] == "parser") {
            let name = vector["name"].as_str().unwrap();
            let text = vector["text"].as_str().unwrap();
            let error = metewand_protocol::parse(text.as_bytes());
            assert!(error.is_err(), "{name}: the restricted domain accepts {text:?}");
            checked += 1;
        }
    }
    assert!(checked >= 15, "only {checked} parser-level vectors");
}

#[test]
fn valid_vectors_round_trip_through_their_canonical_bytes() {
    for file in vector_files() {
        for vector in &file.valid {
            let name = vector["name"].as_str().unwrap();
            let canonical = metewand_protocol::to_canonical_vec(&vector["instance"]);
            let reparsed = metewand_protocol::parse(&canonical).unwrap_or_else(|err| panic!("{name}: {err}"));
            assert_eq!(reparsed, normalize_numbers(&vector["instance"]), "{name}: canonical bytes change the value");
            assert_eq!(metewand_protocol::to_canonical_vec(&reparsed), canonical, "{name}: not a fixed point");
        }
    }
}
