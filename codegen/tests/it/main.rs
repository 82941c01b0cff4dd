//! The generator refuses every schema construct it cannot make strict in both languages, naming where it is, and
//! its output is deterministic.

#![allow(clippy::disallowed_methods, reason = "tests make and read their own files in temporary folders")]

mod methods;

use codegen::{Error, SchemaSource, generate};
use serde_json::{Value, json};

fn schema(defs: Value) -> SchemaSource {
    let document = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "urn:metewand:schema:probe:1",
        "anyOf": [{"$ref": "#/$defs/message"}],
        "$defs": defs,
    });
    SchemaSource { name: "probe".to_owned(), text: document.to_string() }
}

fn message(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "additionalProperties": false, "required": required, "properties": properties})
}

fn unsupported(defs: Value) -> (String, String) {
    match generate(&[schema(defs)]) {
        Err(Error::Unsupported { pointer, reason, .. }) => (pointer, reason),
        other => panic!("expected an unsupported construct, got {other:?}"),
    }
}

#[test]
fn a_supported_schema_generates_rust_and_python_deterministically() {
    let defs = json!({
        "count": {"type": "integer", "minimum": 0, "maximum": 9007199254740991_u64},
        "message": message(json!({"n": {"$ref": "#/$defs/count"}, "kind": {"const": "probe"}}), &["n", "kind"]),
    });
    let first = generate(&[schema(defs.clone())]).unwrap();
    let second = generate(&[schema(defs)]).unwrap();
    assert_eq!(first, second);
    let paths: Vec<&str> = first.iter().map(|f| f.path.as_str()).collect();
    assert!(paths.contains(&"metewand-protocol/src/generated/probe.rs"), "{paths:?}");
    assert!(paths.contains(&"sdk-python/src/metewand/models/probe.py"), "{paths:?}");
    for file in &first {
        let first_line = file.contents.lines().next().unwrap();
        assert!(first_line.contains("Generated") && first_line.contains("cargo xtask codegen"), "{first_line}");
    }
    let rust = &first.iter().find(|f| f.path.ends_with("probe.rs")).unwrap().contents;
    assert!(rust.contains("pub n: crate::strict::SafeUint"), "{rust}");
    assert!(rust.contains("pub kind: KindProbe"), "{rust}");
}

#[test]
fn an_object_lists_its_property_names_in_the_order_written() {
    // json! sorts members, so the schema is given as text, its members out of alphabetical order.
    let text = r##"{"$id": "urn:metewand:schema:probe:1", "anyOf": [{"$ref": "#/$defs/message"}], "$defs": {
        "message": {"type": "object", "additionalProperties": false, "required": [],
            "properties": {"zeta": {"type": "string"}, "alpha": {"type": "boolean"}}}}}"##;
    let files = generate(&[SchemaSource { name: "probe".into(), text: text.into() }]).unwrap();
    let rust = &files.iter().find(|f| f.path.ends_with("probe.rs")).unwrap().contents;
    assert!(rust.contains(r#"pub const PROPERTIES: &'static [&'static str] = &["zeta", "alpha"];"#), "{rust}");
}

#[test]
fn an_inline_integer_range_must_be_a_definition() {
    let (pointer, reason) = unsupported(json!({
        "message": message(json!({"n": {"type": "integer", "minimum": 0, "maximum": 5}}), &["n"]),
    }));
    assert_eq!(pointer, "/$defs/message/properties/n");
    assert!(reason.contains("$defs"), "{reason}");
}

#[test]
fn integer_ranges_within_the_safe_range_are_bounded_and_others_refused() {
    let defs = json!({
        "small": {"type": "integer", "minimum": 1, "maximum": 10},
        "message": message(json!({"n": {"$ref": "#/$defs/small"}}), &["n"]),
    });
    let files = generate(&[schema(defs)]).unwrap();
    let rust = &files.iter().find(|f| f.path.ends_with("probe.rs")).unwrap().contents;
    assert!(rust.contains("pub n: crate::strict::BoundedUint<1, 10>"), "{rust}");
    for small in [
        json!({"type": "integer", "minimum": -1, "maximum": 10}),
        json!({"type": "integer", "minimum": 0, "maximum": 9007199254740992_u64}),
        json!({"type": "integer", "minimum": 0}),
        json!({"type": "integer", "minimum": 5, "maximum": 4}),
    ] {
        let (pointer, _) = unsupported(json!({"small": small}));
        assert_eq!(pointer, "/$defs/small", "{small}");
    }
}

#[test]
fn a_list_of_at_least_one_item_is_nonempty_and_may_repeat_them() {
    let defs = json!({
        "word": {"type": "string", "minLength": 1},
        "words": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/word"}},
        "message": message(json!({"w": {"$ref": "#/$defs/words"}}), &["w"]),
    });
    let files = generate(&[schema(defs)]).unwrap();
    let rust = &files.iter().find(|f| f.path.ends_with("probe.rs")).unwrap().contents;
    assert!(rust.contains("pub w: crate::strict::NonEmptyVec<Word>"), "{rust}");
    let (pointer, reason) = unsupported(json!({
        "word": {"type": "string"},
        "words": {"type": "array", "minItems": 2, "items": {"$ref": "#/$defs/word"}},
    }));
    assert_eq!(pointer, "/$defs/words");
    assert!(reason.contains("minItems"), "{reason}");
}

#[test]
fn an_optional_nullable_property_is_refused() {
    let (pointer, reason) = unsupported(json!({
        "message": message(json!({"n": {"oneOf": [{"type": "string"}, {"type": "null"}]}}), &[]),
    }));
    assert_eq!(pointer, "/$defs/message/properties/n");
    assert!(reason.contains("nullable"), "{reason}");
}

#[test]
fn objects_must_refuse_unknown_properties() {
    let (pointer, reason) = unsupported(json!({
        "message": {"type": "object", "required": [], "properties": {"a": {"type": "string"}}},
    }));
    assert_eq!(pointer, "/$defs/message");
    assert!(reason.contains("additionalProperties"), "{reason}");
}

#[test]
fn unknown_keywords_and_foreign_references_are_refused() {
    let (_, reason) = unsupported(json!({
        "message": message(json!({"a": {"type": "string", "maxLength": 3}}), &["a"]),
    }));
    assert!(reason.contains("maxLength"), "{reason}");
    let (pointer, _) = unsupported(json!({
        "message": message(json!({"a": {"$ref": "urn:elsewhere#/x"}}), &["a"]),
    }));
    assert_eq!(pointer, "/$defs/message/properties/a");
}

#[test]
fn a_schema_whose_id_does_not_match_its_name_is_refused() {
    let mut source = schema(json!({}));
    source.name = "other".to_owned();
    match generate(&[source]) {
        Err(Error::Unsupported { pointer, .. }) => assert_eq!(pointer, "/$id"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_shared_digest_is_the_hand_written_type_and_only_as_written_for() {
    let common = |pattern: &str| {
        let document = json!({
            "$id": "urn:metewand:schema:common:1",
            "$defs": {
                "sha256": {"description": "A lowercase hexadecimal SHA-256 digest.", "type": "string", "pattern": pattern},
            },
        });
        SchemaSource { name: "common".to_owned(), text: document.to_string() }
    };
    let user = {
        let document = json!({
            "$id": "urn:metewand:schema:user:1", "type": "object", "additionalProperties": false,
            "required": ["key"], "properties": {"key": {"$ref": "urn:metewand:schema:common:1#/$defs/sha256"}},
        });
        SchemaSource { name: "user".to_owned(), text: document.to_string() }
    };
    let files = generate(&[common("^[0-9a-f]{64}$"), user.clone()]).unwrap();
    let text = |path: &str| &files.iter().find(|file| file.path.ends_with(path)).unwrap().contents;
    assert!(
        text("generated/user.rs").contains("pub key: crate::digest::Sha256Digest"),
        "{}",
        text("generated/user.rs")
    );
    assert!(!text("generated/common.rs").contains("pub struct Sha256"), "{}", text("generated/common.rs"));

    // A digest of another spelling is no longer what the hand type checks: refused, not silently kept.
    match generate(&[common("^[0-9a-fA-F]{64}$"), user]) {
        Err(Error::Unsupported { schema, pointer, reason }) => {
            assert_eq!((schema.as_str(), pointer.as_str()), ("common", "/$defs/sha256"), "{reason}");
            assert!(reason.contains("Sha256Digest"), "{reason}");
        }
        other => panic!("expected the changed digest to be refused, got {:?}", other.map(|files| files.len())),
    }
}

#[test]
fn maps_positive_numbers_and_unions_of_distinct_types_are_strict_in_both_languages() {
    let defs = json!({
        "label": {"type": "string", "minLength": 1},
        "seconds": {"type": "number", "exclusiveMinimum": 0},
        "either": {"oneOf": [{"type": "string"}, {"$ref": "#/$defs/range"}]},
        "range": message(json!({"from": {"type": "string"}}), &["from"]),
        "message": message(
            json!({
                "timeouts": {
                    "type": "object",
                    "propertyNames": {"$ref": "#/$defs/label"},
                    "additionalProperties": {"$ref": "#/$defs/seconds"}
                },
                "target": {"$ref": "#/$defs/either"}
            }),
            &["timeouts", "target"],
        ),
    });
    let files = generate(&[schema(defs)]).unwrap();
    let rust = &files.iter().find(|f| f.path.ends_with("probe.rs")).unwrap().contents;
    assert!(
        rust.contains("pub timeouts: ::std::collections::BTreeMap<Label, crate::strict::PositiveNumber>"),
        "{rust}"
    );
    assert!(rust.contains("#[serde(untagged)]\npub enum Either"), "{rust}");
    let python = &files.iter().find(|f| f.path.ends_with("probe.py")).unwrap().contents;
    assert!(python.contains("check_map(timeouts, \"/timeouts\", _seconds, key=_label)"), "{python}");
    assert!(python.contains("if isinstance(value, str):\n        return check_string(value, path)"), "{python}");
}

#[test]
fn a_union_must_be_a_definition_of_distinct_json_types() {
    let (pointer, reason) = unsupported(json!({
        "either": {"oneOf": [{"type": "string"}, {"type": "string", "minLength": 1}]},
        "message": message(json!({"a": {"$ref": "#/$defs/either"}}), &["a"]),
    }));
    assert_eq!(pointer, "/$defs/either/oneOf/1", "{reason}");
    let (pointer, _) = unsupported(json!({
        "message": message(json!({"a": {"oneOf": [{"type": "string"}, {"type": "boolean"}]}}), &["a"]),
    }));
    assert_eq!(pointer, "/$defs/message/properties/a");
}

#[test]
fn a_map_needs_a_subschema_for_its_values_and_a_string_definition_for_its_names() {
    let map = |names: Value, values: Value| {
        json!({
            "label": {"type": "string", "minLength": 1},
            "message": message(
                json!({"m": {"type": "object", "propertyNames": names, "additionalProperties": values}}),
                &["m"],
            ),
        })
    };
    let (pointer, _) = unsupported(map(json!({"$ref": "#/$defs/label"}), json!(true)));
    assert_eq!(pointer, "/$defs/message/properties/m/additionalProperties");
    let (pointer, _) = unsupported(map(json!({"type": "string"}), json!({"type": "string"})));
    assert_eq!(pointer, "/$defs/message/properties/m/propertyNames");
    let (pointer, _) = unsupported(map(json!({"$ref": "#/$defs/label"}), json!({"type": "number"})));
    assert_eq!(pointer, "/$defs/message/properties/m/additionalProperties");
}
