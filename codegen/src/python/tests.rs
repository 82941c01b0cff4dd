//! The Python generator's unit tests: the real schemas' modules, refusals at their pointers, supported forms, and
//! the pattern and literal rules.

use super::render::qualify_builtins;
use super::text::{check_pattern, py_pattern};
use super::*;
use crate::pointer_join;
use serde_json::Value;

fn schema(name: &str, value: Value) -> Schema {
    Schema { name: name.to_owned(), value }
}

fn real_schemas() -> Vec<Schema> {
    let sources = [
        ("artifact-manifest", include_str!("../../../schemas/artifact-manifest.schema.json")),
        ("attempt-record", include_str!("../../../schemas/attempt-record.schema.json")),
        ("common", include_str!("../../../schemas/common.schema.json")),
        ("metrics", include_str!("../../../schemas/metrics.schema.json")),
        ("result-manifest", include_str!("../../../schemas/result-manifest.schema.json")),
        ("worker-protocol-message", include_str!("../../../schemas/worker-protocol-message.schema.json")),
    ];
    sources.iter().map(|(name, text)| schema(name, serde_json::from_str(text).unwrap())).collect()
}

/// A schema whose one definition `thing` is an object with the single property `field`.
fn with_field(field: Value) -> Schema {
    schema(
        "test",
        serde_json::json!({
            "$defs": {
                "thing": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["field"],
                    "properties": { "field": field }
                },
                "other": { "type": "object", "additionalProperties": false, "properties": {} }
            },
            "anyOf": [{ "$ref": "#/$defs/thing" }]
        }),
    )
}

fn refusal(schema: Schema) -> (String, String) {
    match generate(&[schema]) {
        Err(Error::Unsupported { pointer, reason, .. }) => (pointer, reason),
        Err(other) => panic!("expected Unsupported, got {other}"),
        Ok(files) => panic!("expected Unsupported, got {} files", files.len()),
    }
}

#[test]
fn the_real_schemas_generate_one_module_each_and_the_package() {
    let files = generate(&real_schemas()).unwrap();
    let paths: Vec<&str> = files.iter().map(|file| file.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "sdk-python/src/metewand/models/artifact_manifest.py",
            "sdk-python/src/metewand/models/attempt_record.py",
            "sdk-python/src/metewand/models/common.py",
            "sdk-python/src/metewand/models/metrics.py",
            "sdk-python/src/metewand/models/result_manifest.py",
            "sdk-python/src/metewand/models/worker_protocol_message.py",
            "sdk-python/src/metewand/models/__init__.py",
        ]
    );
    for file in &files {
        let first = file.contents.lines().next().unwrap();
        assert!(first.starts_with("# Generated from schemas/"), "{first}");
        assert!(first.ends_with(&format!("do not edit. Regenerate with: {REGENERATE_COMMAND}")), "{first}");
        assert!(file.contents.ends_with('\n') && !file.contents.ends_with("\n\n"), "{}", file.path);
    }
    let init = &files[6].contents;
    assert!(!init.contains("\nimport ") && !init.contains("\nfrom "), "the package imports nothing");
    assert_eq!(generate(&real_schemas()).unwrap(), files, "the output is deterministic");
}

#[test]
fn classes_and_names_follow_the_schema() {
    let files = generate(&real_schemas()).unwrap();
    let common = &files[2].contents;
    for expected in [
        "    Role: TypeAlias = Literal[\"dataset_materializer\", \"implementation\", \"problem_evaluator\"]\n",
        "ROLE_VALUES: frozenset[Role] = frozenset(\n    {\"dataset_materializer\", \"implementation\", \"problem_evaluator\"}\n)\n",
        "def _safe_uint(value: object, path: str) -> int:\n",
        "    return check_integer(value, path, minimum=0, maximum=9007199254740991)\n",
        "pattern=r\"^mw1-resolved-worker-[0-9a-f]{64}$\"",
        "class SdkInfo:\n",
    ] {
        assert!(common.contains(expected), "missing {expected:?}");
    }
    let protocol = &files[5].contents;
    for expected in [
        "class HelloRequest:\n",
        "class FailureResponse:\n",
        "    \"hello_request\": HelloRequest,\n",
        "from metewand.models.common import (\n    SdkInfo,\n",
        "    from metewand.models.common import Capability, FailureCode, Role, Verdict\n",
    ] {
        assert!(protocol.contains(expected), "missing {expected:?}");
    }
    for shared in ["ROLE_VALUES", "def _safe_uint", "class SdkInfo", "mw1-resolved-worker"] {
        assert!(!protocol.contains(shared), "{shared} is defined again in the protocol's module");
    }
    assert!(!protocol.contains("None: "), "a union root gets no class");
    assert!(files[1].contents.contains("class AttemptRecord:\n"));
    assert!(files[0].contents.contains("DEFINITIONS: dict[str | None, type] = {None: ArtifactManifest}\n"));
    assert!(files[3].contents.contains("class Metrics:\n"));
    for file in &files {
        // A pattern is kept whole, as the schema writes it, however long.
        for line in file.contents.lines().skip(1).filter(|line| !line.trim_start().starts_with("pattern=")) {
            assert!(line.chars().count() <= WIDTH, "{}: {line:?} is too long", file.path);
        }
    }
}

#[test]
fn unsupported_keywords_are_refused_at_their_pointer() {
    let field = "/$defs/thing/properties/field";
    let cases = [
        (serde_json::json!({"type": "string", "maxLength": 3}), format!("{field}/maxLength")),
        (serde_json::json!({"type": "string", "format": "date-time"}), format!("{field}/format")),
        (serde_json::json!({"type": "number"}), format!("{field}/type")),
        (serde_json::json!({"type": ["string", "null"]}), format!("{field}/type")),
        (serde_json::json!({"type": "integer", "exclusiveMinimum": 0}), format!("{field}/exclusiveMinimum")),
        (serde_json::json!({"type": "integer", "minimum": 0.5}), format!("{field}/minimum")),
        (serde_json::json!({"type": "array", "items": {"type": "string"}, "maxItems": 2}), format!("{field}/maxItems")),
        (serde_json::json!({"type": "array"}), field.to_owned()),
        (
            serde_json::json!({"type": "array", "items": {"$ref": "#/$defs/other"}, "uniqueItems": true}),
            format!("{field}/uniqueItems"),
        ),
        (
            serde_json::json!({"type": "array", "items": {"type": "array", "items": {"type": "string"}}}),
            format!("{field}/items"),
        ),
        (
            serde_json::json!({"type": "array", "items": {"oneOf": [
                {"type": "array", "items": {"type": "string"}}, {"type": "null"}
            ]}}),
            format!("{field}/items"),
        ),
        (serde_json::json!({"anyOf": [{"type": "string"}, {"type": "null"}]}), format!("{field}/anyOf")),
        (serde_json::json!({"oneOf": [{"type": "string"}, {"type": "integer"}]}), format!("{field}/oneOf")),
        (serde_json::json!({"$ref": "other.json#/$defs/thing"}), format!("{field}/$ref")),
        (serde_json::json!({"$ref": "#/$defs/missing"}), format!("{field}/$ref")),
        (serde_json::json!({"$ref": "#/$defs/other", "description": "x", "default": {}}), format!("{field}/default")),
        (serde_json::json!({"type": "object", "properties": {}}), field.to_owned()),
        (serde_json::json!({"type": "object", "additionalProperties": true}), format!("{field}/additionalProperties")),
        (serde_json::json!({"type": "string", "enum": ["a", "b"], "minLength": 1}), format!("{field}/minLength")),
        (serde_json::json!({"type": "string", "enum": ["a", "a"]}), format!("{field}/enum")),
        (serde_json::json!({"const": 1.5}), format!("{field}/const")),
        (serde_json::json!({"const": null}), format!("{field}/const")),
        (serde_json::json!({"type": "string", "const": true}), format!("{field}/const")),
        (serde_json::json!({"enum": ["a"]}), format!("{field}/enum")),
        (serde_json::json!({"type": "string", "pattern": "[a-z]+"}), format!("{field}/pattern")),
        (serde_json::json!({"type": "string", "pattern": "^a.b$"}), format!("{field}/pattern")),
        (serde_json::json!({"type": "string", "pattern": "^\\w+$"}), format!("{field}/pattern")),
        (serde_json::json!({"type": "string", "description": 7}), format!("{field}/description")),
        (serde_json::json!(true), field.to_owned()),
    ];
    for (field_schema, pointer) in cases {
        let (got, reason) = refusal(with_field(field_schema.clone()));
        assert_eq!(got, pointer, "{field_schema}: {reason}");
    }
}

#[test]
fn object_rules_are_enforced() {
    let optional_nullable = schema(
        "test",
        serde_json::json!({
            "type": "object", "additionalProperties": false,
            "properties": { "x": { "oneOf": [{ "type": "string" }, { "type": "null" }] } }
        }),
    );
    assert_eq!(refusal(optional_nullable).0, "/properties/x");
    let open = schema("test", serde_json::json!({ "type": "object", "properties": {} }));
    assert_eq!(refusal(open).0, "");
    let keyword_clash = schema(
        "test",
        serde_json::json!({
            "type": "object", "additionalProperties": false,
            "properties": { "class": { "type": "string" }, "class_": { "type": "string" } }
        }),
    );
    assert_eq!(refusal(keyword_clash).0, "/properties/class");
    let reserved = schema(
        "test",
        serde_json::json!({ "type": "object", "additionalProperties": false, "properties": { "to_dict": { "type": "string" } } }),
    );
    assert_eq!(refusal(reserved).0, "/properties/to_dict");
    let unknown_required = schema(
        "test",
        serde_json::json!({ "type": "object", "additionalProperties": false, "properties": {}, "required": ["x"] }),
    );
    assert_eq!(refusal(unknown_required).0, "/required");
    let root_keyword = schema(
        "test",
        serde_json::json!({ "type": "object", "additionalProperties": false, "properties": {}, "examples": [] }),
    );
    assert_eq!(refusal(root_keyword).0, "/examples");
    let clash = schema(
        "test",
        serde_json::json!({
            "type": "object", "additionalProperties": false, "properties": {},
            "$defs": { "test": { "type": "object", "additionalProperties": false, "properties": {} } }
        }),
    );
    assert_eq!(refusal(clash).0, "/$defs/test");
    let cycle = schema(
        "test",
        serde_json::json!({
            "$defs": { "a": { "$ref": "#/$defs/b" }, "b": { "$ref": "#/$defs/a" } },
            "anyOf": [{ "$ref": "#/$defs/a" }]
        }),
    );
    assert!(refusal(cycle).0.starts_with("/$defs/"));
}

#[test]
fn supported_forms_generate() {
    let value = serde_json::json!({
        "type": "object", "additionalProperties": false, "required": ["a", "b", "c", "d", "e"],
        "properties": {
            "a": { "type": "array", "items": { "type": "string", "minLength": 2 }, "minItems": 1 },
            "b": { "type": "array", "items": { "type": "string", "enum": ["x", "y"] }, "uniqueItems": true },
            "c": { "oneOf": [{ "type": "null" }, { "type": "integer", "maximum": 3 }] },
            "d": { "type": "boolean" },
            "e": { "type": "string", "const": "e" },
            "f": { "type": "object" },
            "g": { "$ref": "#/$defs/empty" },
            "h": { "type": "array", "items": { "oneOf": [{ "type": "integer", "minimum": 0 }, { "type": "null" }] } },
            "i": { "type": "array", "items": { "oneOf": [{ "type": "null" }, { "type": "string" }] } }
        },
        "$defs": { "empty": { "type": "object", "additionalProperties": false, "properties": {} } }
    });
    let files = generate(&[schema("sample-doc", value)]).unwrap();
    let module = &files[0].contents;
    assert_eq!(files[0].path, "sdk-python/src/metewand/models/sample_doc.py");
    for expected in [
        "class SampleDoc:\n",
        "class Empty:\n",
        "def _sample_doc_a_item(value: object, path: str) -> str:\n",
        "_SAMPLE_DOC_B_ITEM_VALUES: frozenset[_SampleDocBItem] = frozenset({\"x\", \"y\"})\n",
        "    _SampleDocBItem: TypeAlias = Literal[\"x\", \"y\"]\n",
        "check_array(b, \"/b\", check_enum, _SAMPLE_DOC_B_ITEM_VALUES, unique=True)",
        "None if c is None else check_integer(c, \"/c\", maximum=3)",
        "e: Literal[\"e\"] = \"e\"",
        "f: dict[str, Any] | None = None",
        "    __slots__ = ()\n",
        "def _sample_doc_h_item(value: object, path: str) -> int:\n",
        "check_array(h, \"/h\", check_nullable, _sample_doc_h_item)",
        "h: list[int | None] | None = None",
        "check_array(i, \"/i\", check_nullable, check_string)",
    ] {
        assert!(module.contains(expected), "missing {expected:?} in\n{module}");
    }
}

#[test]
fn patterns_must_mean_the_same_in_both_dialects() {
    for ok in ["^[0-9a-f]{64}$", "^mw1-x-[0-9]{1,9}$", "^(?:a|b)[a-z]*\\.json$", "^\\d{2,}$", "^[^\\]]+$"] {
        assert_eq!(check_pattern(ok), Ok(()), "{ok}");
    }
    for bad in
        ["[0-9]+", "^a|b$", "^a.b$", "^\\s$", "^a{,3}$", "^(?i)a$", "^[[a]]$", "^a\\$", "^[]a]$", "^(a$", "^\\ba$"]
    {
        assert!(check_pattern(bad).is_err(), "{bad}");
    }
}

#[test]
fn python_literals_are_escaped() {
    assert_eq!(py_str("a\"b\\c\n\u{e9}\u{1f600}"), "\"a\\\"b\\\\c\\n\\xe9\\U0001f600\"");
    assert_eq!(py_pattern("^[0-9]{4}(\\.[0-9])?$"), "r\"^[0-9]{4}(\\.[0-9])?$\"");
    assert_eq!(py_pattern("^\"$"), "\"^\\\"$\"");
    assert_eq!(escape_docstring("a \"\"\" b \\ c"), "a \\\"\\\"\\\" b \\\\ c");
    assert_eq!(pointer_join("/a", "b/c~d"), "/a/b~1c~0d");
}

#[test]
fn a_field_named_like_a_builtin_type_leaves_the_builtin_to_the_annotations() {
    assert_eq!(qualify_builtins("list[str] | None", &["list", "str"]), "builtins.list[builtins.str] | None");
    assert_eq!(qualify_builtins("dict[str, Any]", &["list"]), "dict[str, Any]");
    let literal = "Literal[\"list\", \"a list\"] | x.list";
    assert_eq!(qualify_builtins(literal, &["list"]), literal, "neither a string nor an attribute is a name");
    assert_eq!(qualify_builtins("list[int]", &[]), "list[int]");
    let value = serde_json::json!({
        "$defs": {
            "thing": {
                "type": "object",
                "additionalProperties": false,
                "required": ["list"],
                "properties": { "list": { "type": "array", "items": { "type": "string" } } }
            }
        },
        "anyOf": [{ "$ref": "#/$defs/thing" }]
    });
    let files = generate(&[schema("test", value)]).unwrap();
    let module = &files[0].contents;
    assert!(module.contains("    list: builtins.list[str]\n"), "{module}");
    assert!(module.contains("def __init__(self, *, list: builtins.list[str]) -> None:"), "{module}");
    assert!(module.contains("    import builtins\n"), "{module}");
}

#[test]
fn a_property_named_like_a_keyword_is_the_attribute_with_a_trailing_underscore() {
    let value = serde_json::json!({
        "$defs": {
            "answer": {
                "type": "object",
                "additionalProperties": false,
                "required": ["continue", "id"],
                "properties": { "continue": { "type": "boolean" }, "id": { "type": "string" } }
            }
        },
        "anyOf": [{ "$ref": "#/$defs/answer" }]
    });
    let files = generate(&[schema("test", value)]).unwrap();
    let module = &files[0].contents;
    assert!(module.contains("__slots__ = (\"continue_\", \"id\")"), "{module}");
    assert!(module.contains("_PROPERTIES = frozenset((\"continue\", \"id\"))"), "{module}");
    assert!(module.contains("_REQUIRED = (\"continue\", \"id\")"), "{module}");
    assert!(module.contains("def __init__(self, *, continue_: bool, id: str) -> None:"), "{module}");
    assert!(module.contains("model.continue_ = check_boolean(fields[\"continue\"], path + \"/continue\")"), "{module}");
    assert!(module.contains("\"continue\": self.continue_"), "{module}");
}
