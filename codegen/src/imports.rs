//! Cross-document references: a definition one schema shares with others, written once.
//!
//! A schema may refer to another's definition as `urn:metewand:schema:<name>:1#/$defs/<definition>` (the shared
//! concepts live in `schemas/common.schema.json`). Both generators see such a schema through [`localize`]: every
//! cross-document reference rewritten as a local `#/$defs/<definition>`, the definition added under `$defs`, and the
//! name of the schema that owns it, so that each generator refers to the owner's type instead of emitting a second
//! one.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::{Error, Schema};

/// The prefix of every cross-document reference.
const PREFIX: &str = "urn:metewand:schema:";

/// A schema as the generators see it, with the definitions it takes from other schemas.
pub(crate) struct Imports {
    /// The schema, each cross-document reference rewritten as a local one and each definition it names added under
    /// `$defs`.
    pub(crate) schema: Schema,
    /// Each added definition, with the name of the schema that defines it.
    pub(crate) imported: BTreeMap<String, String>,
}

/// Rewrites `schema`'s cross-document references as local ones, refusing any that `schemas` cannot resolve.
pub(crate) fn localize(schema: &Schema, schemas: &[Schema]) -> Result<Imports, Error> {
    let mut value = schema.value.clone();
    let mut imported = BTreeMap::new();
    rewrite(schema, schemas, "", &mut value, &mut imported)?;
    let Some(root) = value.as_object_mut() else { return Ok(Imports { schema: schema.clone(), imported }) };
    if !imported.is_empty() {
        let defs = root.entry("$defs").or_insert_with(|| Value::Object(Default::default()));
        let Some(defs) = defs.as_object_mut() else {
            return Err(schema.unsupported("/$defs", "$defs must be an object"));
        };
        for (name, home) in &imported {
            if defs.contains_key(name) {
                return Err(schema.unsupported(
                    &format!("/$defs/{name}"),
                    format!("{name} is defined here and also taken from schema {home}: keep one"),
                ));
            }
            defs.insert(name.clone(), definition(schemas, home, name).cloned().unwrap_or(Value::Null));
        }
    }
    Ok(Imports { schema: Schema { name: schema.name.clone(), value }, imported })
}

/// The names of the schemas `schema` refers to, in name order.
pub(crate) fn dependencies(schema: &Schema) -> Vec<String> {
    fn collect(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::Object(object) => {
                if let Some((home, _)) = object.get("$ref").and_then(Value::as_str).and_then(split) {
                    out.push(home.to_owned());
                }
                object.values().for_each(|value| collect(value, out));
            }
            Value::Array(items) => items.iter().for_each(|value| collect(value, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    collect(&schema.value, &mut out);
    out.sort();
    out.dedup();
    out.retain(|home| *home != schema.name);
    out
}

/// The schemas in an order where each comes after every schema it refers to (name order otherwise).
pub(crate) fn ordered(schemas: &[Schema]) -> Result<Vec<&Schema>, Error> {
    let mut done: Vec<&Schema> = Vec::with_capacity(schemas.len());
    let mut pending: Vec<&Schema> = schemas.iter().collect();
    while !pending.is_empty() {
        let ready = pending.iter().position(|schema| {
            dependencies(schema).iter().all(|home| done.iter().any(|d| &d.name == home) || !known(schemas, home))
        });
        match ready {
            Some(index) => done.push(pending.remove(index)),
            None => {
                let schema = pending[0];
                return Err(schema.unsupported("", "schemas that refer to each other in a cycle are not supported"));
            }
        }
    }
    Ok(done)
}

fn known(schemas: &[Schema], name: &str) -> bool {
    schemas.iter().any(|schema| schema.name == name)
}

fn definition<'a>(schemas: &'a [Schema], home: &str, name: &str) -> Option<&'a Value> {
    schemas.iter().find(|schema| schema.name == home)?.value.get("$defs")?.get(name)
}

/// `(schema name, definition)` of a reference `urn:metewand:schema:<name>:1#/$defs/<definition>`.
fn split(reference: &str) -> Option<(&str, &str)> {
    let rest = reference.strip_prefix(PREFIX)?;
    let (document, fragment) = rest.split_once('#').unwrap_or((rest, ""));
    let home = document.strip_suffix(":1").unwrap_or(document);
    Some((home, fragment.strip_prefix("/$defs/").unwrap_or("")))
}

fn rewrite(
    schema: &Schema,
    schemas: &[Schema],
    pointer: &str,
    value: &mut Value,
    imported: &mut BTreeMap<String, String>,
) -> Result<(), Error> {
    match value {
        Value::Object(object) => {
            if let Some(reference) = object.get("$ref").and_then(Value::as_str).map(str::to_owned)
                && reference.starts_with(PREFIX)
            {
                let at = format!("{pointer}/$ref");
                let shape = || {
                    schema.unsupported(
                        &at,
                        format!(
                            "{reference} must be {PREFIX}<schema>:1#/$defs/<definition>, a definition's name alone"
                        ),
                    )
                };
                let Some((home, name)) = split(&reference) else { return Err(shape()) };
                if !reference.starts_with(&format!("{PREFIX}{home}:1#/$defs/")) || name.is_empty() || name.contains('/')
                {
                    return Err(shape());
                }
                if home == schema.name {
                    return Err(schema.unsupported(&at, "a reference within a schema must be local: #/$defs/<name>"));
                }
                if !known(schemas, home) {
                    return Err(schema.unsupported(&at, format!("{reference} names no schema in schemas/")));
                }
                if definition(schemas, home, name).is_none() {
                    return Err(schema.unsupported(&at, format!("{reference} names no definition of schema {home}")));
                }
                if let Some(other) = imported.insert(name.to_owned(), home.to_owned())
                    && other != home
                {
                    return Err(schema.unsupported(
                        &at,
                        format!("the definition name {name} is taken from both schema {other} and schema {home}"),
                    ));
                }
                object.insert("$ref".to_owned(), Value::from(format!("#/$defs/{name}")));
            }
            for (key, child) in object.iter_mut() {
                rewrite(schema, schemas, &crate::pointer_join(pointer, key), child, imported)?;
            }
            Ok(())
        }
        Value::Array(items) => {
            for (index, child) in items.iter_mut().enumerate() {
                rewrite(schema, schemas, &format!("{pointer}/{index}"), child, imported)?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::{Error, SchemaSource, generate};

    fn source(name: &str, value: serde_json::Value) -> SchemaSource {
        SchemaSource { name: name.to_owned(), text: value.to_string() }
    }

    fn shared() -> SchemaSource {
        source(
            "shared",
            json!({
                "$id": "urn:metewand:schema:shared:1",
                "$defs": {
                    "colour": { "type": "string", "enum": ["red", "blue"] },
                    "version": { "description": "The version.", "const": 2 },
                    "count": { "type": "integer", "minimum": 0, "maximum": 9007199254740991u64 },
                    "colours": { "type": "array", "items": { "$ref": "#/$defs/colour" }, "uniqueItems": true },
                    "pair": {
                        "type": "object", "additionalProperties": false, "required": ["colour"],
                        "properties": { "colour": { "$ref": "#/$defs/colour" } }
                    }
                }
            }),
        )
    }

    /// A document whose one property `field` is `field`.
    fn user(field: serde_json::Value) -> SchemaSource {
        source(
            "user",
            json!({
                "$id": "urn:metewand:schema:user:1", "type": "object", "additionalProperties": false,
                "required": ["field"], "properties": { "field": field }
            }),
        )
    }

    fn refusal(sources: &[SchemaSource]) -> (String, String, String) {
        match generate(sources) {
            Err(Error::Unsupported { schema, pointer, reason }) => (schema, pointer, reason),
            other => panic!("expected Unsupported, got {:?}", other.map(|files| files.len())),
        }
    }

    #[test]
    fn a_shared_definition_is_generated_once_and_referred_to() {
        let reference = |name: &str| json!({ "$ref": format!("urn:metewand:schema:shared:1#/$defs/{name}") });
        for (name, rust, python) in [
            ("colour", "pub field: super::shared::Colour", "from metewand.models.shared import _colour"),
            ("pair", "pub field: super::shared::Pair", "from metewand.models.shared import Pair"),
            ("count", "pub field: crate::strict::SafeUint", "from metewand.models.shared import _count"),
            ("version", "pub field: super::shared::Version", "from metewand.models.shared import _version"),
            (
                "colours",
                "pub field: crate::strict::UniqueVec<super::shared::Colour>",
                "from metewand.models.shared import _colour",
            ),
        ] {
            let files = generate(&[shared(), user(reference(name))]).unwrap();
            let text = |path: &str| &files.iter().find(|file| file.path.ends_with(path)).unwrap().contents;
            assert!(text("generated/user.rs").contains(rust), "{name}: {}", text("generated/user.rs"));
            assert!(!text("generated/user.rs").contains("pub enum Colour"), "{name}: Colour is emitted again");
            assert!(text("models/user.py").contains(python), "{name}: {}", text("models/user.py"));
            assert!(!text("models/user.py").contains("COLOUR_VALUES"), "{name}: the enum is emitted again");
            assert!(text("generated/shared.rs").contains("pub enum Colour"));
            assert!(text("generated/shared.rs").contains("pub struct Version;"));
            assert!(!text("generated/user.rs").contains("pub struct Version"), "{name}: Version is emitted again");
            assert!(!text("generated/user.rs").contains("pub struct Field2"), "{name}: a const is emitted again");
        }
        // A shared const is still the constructor's default, as an inline one is.
        let files = generate(&[shared(), user(reference("version"))]).unwrap();
        let python = &files.iter().find(|file| file.path.ends_with("models/user.py")).unwrap().contents;
        assert!(python.contains("field: Literal[2] = 2"), "{python}");
    }

    #[test]
    fn unresolvable_or_ambiguous_references_are_refused_at_their_pointer() {
        let cases = [
            ("urn:metewand:schema:missing:1#/$defs/colour", "names no schema"),
            ("urn:metewand:schema:shared:1#/$defs/size", "names no definition"),
            ("urn:metewand:schema:shared:2#/$defs/colour", "must be"),
            ("urn:metewand:schema:shared:1#/properties/colour", "must be"),
            ("urn:metewand:schema:user:1#/$defs/colour", "must be local"),
        ];
        for (reference, why) in cases {
            let (schema, pointer, reason) = refusal(&[shared(), user(json!({ "$ref": reference }))]);
            assert_eq!((schema.as_str(), pointer.as_str()), ("user", "/properties/field/$ref"), "{reference}");
            assert!(reason.contains(why), "{reference}: {reason}");
        }

        let mut clash = user(json!({ "$ref": "urn:metewand:schema:shared:1#/$defs/colour" }));
        let mut value: serde_json::Value = serde_json::from_str(&clash.text).unwrap();
        value["$defs"] = json!({ "colour": { "type": "string" } });
        clash.text = value.to_string();
        let (_, pointer, reason) = refusal(&[shared(), clash]);
        assert_eq!(pointer, "/$defs/colour", "{reason}");

        let a = source(
            "a",
            json!({ "$id": "urn:metewand:schema:a:1", "$defs": { "x": { "$ref": "urn:metewand:schema:b:1#/$defs/y" } } }),
        );
        let b = source(
            "b",
            json!({ "$id": "urn:metewand:schema:b:1", "$defs": { "y": { "$ref": "urn:metewand:schema:a:1#/$defs/x" } } }),
        );
        let (_, _, reason) = refusal(&[a, b]);
        assert!(reason.contains("cycle"), "{reason}");
    }
}
