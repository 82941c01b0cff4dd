//! Metewand's public schemas, embedded byte for byte, with their repository paths and `$id`s.
//!
//! Validation never reads a schema from disk or the network: these bytes are the ones checked in under
//! `schemas/`, compiled into the crate.

/// One embedded public schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EmbeddedSchema {
    /// The schema's name, as in its `$id`.
    pub name: &'static str,
    /// The schema's `$id`.
    pub id: &'static str,
    /// Where the schema lives in the repository, relative to its root.
    pub path: &'static str,
    /// The exact bytes of the checked-in file.
    pub bytes: &'static [u8],
}

macro_rules! embedded {
    ($const_name:ident, $name:literal) => {
        #[doc = concat!("The `", $name, "` schema.")]
        pub const $const_name: EmbeddedSchema = EmbeddedSchema {
            name: $name,
            id: concat!("urn:metewand:schema:", $name, ":1"),
            path: concat!("schemas/", $name, ".schema.json"),
            bytes: include_bytes!(concat!("../../schemas/", $name, ".schema.json")),
        };
    };
}

embedded!(COMMON, "common");
embedded!(WORKER_PROTOCOL_MESSAGE, "worker-protocol-message");
embedded!(ARTIFACT_MANIFEST, "artifact-manifest");
embedded!(RESULT_MANIFEST, "result-manifest");
embedded!(METRICS, "metrics");
embedded!(ATTEMPT_RECORD, "attempt-record");
embedded!(DATASET_PUBLISHED, "dataset-published");
embedded!(DATASET_MATERIALIZATION, "dataset-materialization");
embedded!(SLURM_SUBMISSION, "slurm-submission");
embedded!(CAMPAIGN_FILE, "campaign-file");
embedded!(CAMPAIGN_INDEX, "campaign-index");
embedded!(CAMPAIGN_TABLE, "campaign-table");
embedded!(BUNDLE_MANIFEST, "bundle-manifest");
embedded!(REPOSITORY_DEFINITION, "repository-definition");
embedded!(AUDIT, "audit");

/// Every embedded public schema.
pub const ALL: [EmbeddedSchema; 15] = [
    COMMON,
    WORKER_PROTOCOL_MESSAGE,
    ARTIFACT_MANIFEST,
    RESULT_MANIFEST,
    METRICS,
    ATTEMPT_RECORD,
    DATASET_PUBLISHED,
    DATASET_MATERIALIZATION,
    SLURM_SUBMISSION,
    CAMPAIGN_FILE,
    CAMPAIGN_INDEX,
    CAMPAIGN_TABLE,
    BUNDLE_MANIFEST,
    REPOSITORY_DEFINITION,
    AUDIT,
];

/// A validator of `definition` of the embedded schema `schema` (its root when `None`), resolving cross-document
/// references among the embedded schemas and nowhere else.
///
/// ```
/// use metewand_protocol::schema;
///
/// let role = schema::validator(schema::COMMON, Some("role"));
/// assert!(role.is_valid(&serde_json::json!("implementation")));
/// assert!(!role.is_valid(&serde_json::json!("solver")));
/// ```
///
/// # Panics
///
/// If `definition` names no definition of `schema`: the embedded schemas are fixed at build time.
pub fn validator(schema: EmbeddedSchema, definition: Option<&str>) -> jsonschema::Validator {
    let mut root = parse(&schema);
    if let Some(definition) = definition {
        assert!(root["$defs"].get(definition).is_some(), "{} has no definition {definition}", schema.name);
        let object = root.as_object_mut().expect("an embedded schema is an object");
        for keyword in ["anyOf", "oneOf", "type", "properties", "required", "additionalProperties"] {
            object.remove(keyword);
        }
        object.insert("$ref".to_owned(), serde_json::Value::from(format!("#/$defs/{definition}")));
    }
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .with_registry(registry(&schema))
        .with_base_uri(schema.id.to_owned())
        .build(&root)
        .expect("an embedded schema compiles")
}

fn parse(embedded: &EmbeddedSchema) -> serde_json::Value {
    serde_json::from_slice(embedded.bytes).expect("an embedded schema is valid JSON")
}

/// The registry `schema`'s references resolve in: it and the embedded schemas it refers to, directly or through
/// another, parsed once per process. A worker process compiles a validator or two, and parsing and preparing every
/// schema for each of them was most of a session's start-up.
fn registry(schema: &EmbeddedSchema) -> &'static jsonschema::Registry<'static> {
    static REGISTRIES: [std::sync::OnceLock<jsonschema::Registry<'static>>; ALL.len()] =
        [const { std::sync::OnceLock::new() }; ALL.len()];
    let index = ALL.iter().position(|embedded| embedded.id == schema.id).expect("an embedded schema is in ALL");
    REGISTRIES[index].get_or_init(|| {
        let mut needed = vec![*schema];
        let mut next = 0;
        while let Some(current) = needed.get(next).copied() {
            next += 1;
            for embedded in ALL {
                let quoted = format!("\"{}", embedded.id);
                let refers = current.bytes.windows(quoted.len()).any(|window| window == quoted.as_bytes());
                if refers && !needed.contains(&embedded) {
                    needed.push(embedded);
                }
            }
        }
        jsonschema::Registry::new()
            .extend(
                needed
                    .iter()
                    .map(|embedded| (embedded.id, jsonschema::Draft::Draft202012.create_resource(parse(embedded)))),
            )
            .and_then(jsonschema::RegistryBuilder::prepare)
            .expect("the embedded schemas form a registry")
    })
}
