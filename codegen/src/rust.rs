//! Rust types through typify, made strict where typify alone is not.
//!
//! typify turns `additionalProperties: false`, `enum`, `pattern` and `minLength` into types that serde enforces,
//! but it maps `const`, integer ranges, `uniqueItems` and `minItems` onto plain types that accept anything of the
//! right shape. This module walks each schema first and routes every such construct to a checked type:
//!
//! - each `const` becomes a unit struct generated here, a `crate::strict::Constant` that serializes as its value
//!   and refuses any other; a `const` that is a definition of its own is that definition's type;
//! - a `$defs` entry that is an integer from 0 to 2^53 - 1 becomes `crate::strict::SafeUint`, and one with other
//!   bounds within that range `crate::strict::BoundedUint<MIN, MAX>`;
//! - a `$defs` entry that is a list of unique items becomes `crate::strict::UniqueVec<T>`, or
//!   `crate::strict::NonEmptyUniqueVec<T>` with `minItems: 1`; a list with `minItems: 1` alone becomes
//!   `crate::strict::NonEmptyVec<T>`;
//! - a `$defs` entry that is a free-form object becomes `crate::strict::JsonObject`, declared without `Default` so
//!   that an optional one is an `Option` and a `{}` that was sent survives re-encoding;
//! - a `$defs` entry that is a number greater than zero (`exclusiveMinimum: 0`) becomes
//!   `crate::strict::PositiveNumber`;
//! - an object with `additionalProperties` but no `properties` is a map (a `BTreeMap`, keyed by the definition
//!   `propertyNames` refers to), and a definition that is a `oneOf` of branches of distinct JSON types is typify's
//!   untagged enum, which cannot pick a wrong branch;
//! - a definition with a hand-written type ([`HAND_TYPES`]: `common`'s `sha256` is `crate::digest::Sha256Digest`)
//!   becomes that type, so that a concept the protocol crate already holds is not generated a second time.
//!
//! Any other constraint that neither typify nor this module enforces is an [`Error::Unsupported`], so a schema
//! change cannot silently weaken the generated types.

use std::collections::BTreeMap;

use heck::ToUpperCamelCase;
use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote};
use serde_json::{Map, Value};
use typify::{TypeSpace, TypeSpaceSettings};

use crate::imports::Imports;
use crate::methods;
use crate::order::Order;
use crate::{Error, GeneratedFile, REGENERATE_COMMAND, Schema, wrap};

/// Where the generated modules live, relative to the workspace root.
const OUTPUT_DIR: &str = "metewand-protocol/src/generated";

/// The largest integer every JSON reader represents exactly: 2^53 - 1.
const MAX_SAFE_INTEGER: u64 = 9_007_199_254_740_991;

/// Definitions whose type is written by hand in `metewand-protocol`: the schema that owns each, its name, the
/// exact definition the hand type is written for (so that a changed definition is refused, never silently kept
/// by the old type) and the type.
const HAND_TYPES: &[(&str, &str, &str, &str)] = &[(
    "common",
    "sha256",
    r#"{"description":"A lowercase hexadecimal SHA-256 digest.","pattern":"^[0-9a-f]{64}$","type":"string"}"#,
    "crate::digest::Sha256Digest",
)];

/// The Rust module of each schema, and their index; `orders` holds each schema's member order, by schema name.
pub(crate) fn generate(schemas: &[Schema], orders: &BTreeMap<String, Order>) -> Result<Vec<GeneratedFile>, Error> {
    let mut files = Vec::with_capacity(schemas.len() + 1);
    let unordered = Order::new();
    for schema in schemas {
        let order = orders.get(&schema.name).unwrap_or(&unordered);
        files.push(GeneratedFile {
            path: format!("{OUTPUT_DIR}/{}.rs", module_name(&schema.name)),
            contents: generate_module(schema, schemas, order)?,
        });
    }
    files.push(GeneratedFile { path: format!("{OUTPUT_DIR}/mod.rs"), contents: index_module(schemas) });
    Ok(files)
}

fn module_name(schema_name: &str) -> String {
    schema_name.replace('-', "_")
}

fn header(source: &str) -> String {
    format!("// Generated from {source} by codegen; do not edit. Regenerate with: {REGENERATE_COMMAND}\n")
}

fn index_module(schemas: &[Schema]) -> String {
    let mut out = header("schemas/*.schema.json");
    out.push_str(
        "//! Types generated from Metewand's JSON Schemas, one module per schema.\n\
         //!\n\
         //! Each type accepts exactly what its schema accepts: unknown fields, missing fields, wrong constants, \n\
         //! integers outside 0..=2^53 - 1, repeated list items and strings that miss their pattern are refused \n\
         //! when deserializing, and constrained values cannot be built around their checks.\n\n",
    );
    for schema in schemas {
        let description = schema.value.get("title").and_then(Value::as_str).unwrap_or(&schema.name);
        out.push_str(&format!("/// {description}: `schemas/{}.schema.json`.\n", schema.name));
        out.push_str(&format!("pub mod {};\n", module_name(&schema.name)));
        if schema.name == methods::SCHEMA {
            out.push_str(&format!("/// {}: `schemas/{}.schema.json`.\n", methods::SUMMARY, schema.name));
            out.push_str(&format!("pub mod {};\n", methods::MODULE));
        }
    }
    out
}

/// A `const` found in a schema, with the unit struct that stands for it.
struct Const {
    type_name: String,
    value: Value,
    /// The subschema the const appears in, exactly as written.
    schema: Value,
    /// Whether the const is a definition of its own (`common`'s `format`), named after it; other schemas refer to
    /// it by its path, so this one need not use it.
    definition: bool,
}

/// What the walk found: how typify must be configured for this schema.
#[derive(Default)]
struct Plan {
    /// `$defs` names (as typify names their types) mapped to the checked type that replaces them.
    replacements: BTreeMap<String, String>,
    /// Each distinct `const` subschema, by its exact JSON (a definition's by its pointer), with the type generated
    /// for it.
    consts: BTreeMap<String, Const>,
}

fn generate_module(original: &Schema, schemas: &[Schema], order: &Order) -> Result<String, Error> {
    let expected_id = format!("urn:metewand:schema:{}:1", original.name);
    if original.value.get("$id").and_then(Value::as_str) != Some(expected_id.as_str()) {
        return Err(original.unsupported("/$id", format!("the $id must be {expected_id:?}")));
    }
    let Imports { schema, imported } = crate::imports::localize(original, schemas)?;
    let schema = &schema;
    let root = schema.value.as_object().ok_or_else(|| schema.unsupported("", "a schema must be an object"))?;
    let empty = Map::new();
    let defs = match root.get("$defs") {
        None => &empty,
        Some(Value::Object(defs)) => defs,
        Some(_) => return Err(schema.unsupported("/$defs", "$defs must be an object")),
    };

    let mut plan = Plan::default();
    for (name, def) in defs {
        match imported.get(name) {
            Some(home) => {
                plan.replacements.insert(type_name(name), imported_type(home, name, schemas)?);
            }
            None => plan_definition(schema, defs, &imported, None, name, def, &mut plan)?,
        }
    }
    let root_is_type = root.get("type").is_some();
    if root_is_type {
        walk(schema, defs, "", &schema.value, None, &mut plan)?;
    } else {
        // A root without a type only names the definitions a document may be (the protocol's messages); messages
        // are decoded as the definition the session expects, so the root gets no type of its own.
        check_root_union(schema, root)?;
    }

    let mut settings = TypeSpaceSettings::default();
    // Maps (a table of named workers) iterate in key order, so their encoding is deterministic.
    settings
        .with_struct_builder(false)
        .with_derive("PartialEq".to_owned())
        .with_map_type("::std::collections::BTreeMap");
    for (type_name, replacement) in &plan.replacements {
        settings.with_replacement(type_name, replacement, std::iter::empty());
    }
    for constant in plan.consts.values().filter(|constant| !constant.definition) {
        let object = const_schema_object(schema, constant)?;
        settings.with_conversion(object, &constant.type_name, std::iter::empty());
    }
    let mut type_space = TypeSpace::new(&settings);
    let mut definitions = Vec::with_capacity(defs.len() + 1);
    for (name, def) in defs {
        definitions.push((name.clone(), to_schemars(schema, &format!("/$defs/{name}"), def)?));
    }
    if root_is_type {
        let mut root_only = root.clone();
        for key in ["$defs", "$schema", "$id"] {
            root_only.remove(key);
        }
        definitions.push((schema.name.clone(), to_schemars(schema, "", &Value::Object(root_only))?));
    }
    type_space
        .add_ref_types(definitions)
        .map_err(|err| Error::Typify { schema: schema.name.clone(), message: err.to_string() })?;

    let mut tokens = type_space.to_stream();
    check_substitutions(schema, &tokens, &plan)?;
    for constant in plan.consts.values() {
        tokens.extend(const_type(constant));
    }
    let mut objects: Vec<(String, &Value, String)> = defs
        .iter()
        .filter(|(name, _)| !imported.contains_key(*name) && !plan.replacements.contains_key(&type_name(name)))
        .map(|(name, def)| (type_name(name), def, format!("/$defs/{name}")))
        .collect();
    if root_is_type {
        objects.push((type_name(&schema.name), &schema.value, String::new()));
    }
    for (type_name, def, pointer) in objects {
        tokens.extend(property_names(&type_name, def, order.get(&format!("{pointer}/properties"))));
    }
    let tokens = strict_patterns(schema, &tokens)?;
    let mut file: syn::File = syn::parse_str(&tokens)
        .map_err(|err| Error::Syntax { schema: schema.name.clone(), message: err.to_string() })?;
    tighten_structs(&mut file);
    display_string_newtypes(&mut file);

    let mut out = header(&format!("schemas/{}.schema.json", schema.name));
    let title = root.get("title").and_then(Value::as_str).unwrap_or(&schema.name);
    out.push_str(&format!("//! {title}: types generated from `schemas/{}.schema.json`.\n", schema.name));
    if let Some(description) = root.get("description").and_then(Value::as_str) {
        out.push_str("//!\n");
        for line in wrap(description, 110) {
            out.push_str(&format!("//! {line}\n"));
        }
    }
    out.push('\n');
    out.push_str(&prettyplease::unparse(&file));
    Ok(out)
}

/// `impl T { pub const PROPERTIES }`: the names of the properties of `def`, an object that refuses any other, in the
/// order the schema writes them (`written`), for readers that check keys themselves before they decode (the
/// repository loader, which reports an unknown key at its position); nothing for any other definition.
fn property_names(type_name: &str, def: &Value, written: Option<&Vec<String>>) -> TokenStream {
    let Some(properties) = def.get("properties").and_then(Value::as_object) else { return TokenStream::new() };
    if def.get("additionalProperties") != Some(&Value::Bool(false)) {
        return TokenStream::new();
    }
    let mut names: Vec<&str> = written.map(|written| written.iter().map(String::as_str).collect()).unwrap_or_default();
    names.retain(|name| properties.contains_key(*name));
    for name in properties.keys() {
        if !names.contains(&name.as_str()) {
            names.push(name);
        }
    }
    let ident = format_ident!("{type_name}");
    quote! {
        impl #ident {
            #[doc = " The names of its properties, in the order the schema writes them."]
            pub const PROPERTIES: &'static [&'static str] = &[#(#names),*];
        }
    }
}

/// typify checks a `pattern` with a `regress::Regex` in a static; generated types use `crate::strict::Pattern`
/// instead, which matches the ids' and digests' patterns directly. Any other use of `regress` is an error, so that a
/// change in typify's output cannot leave a pattern checked some other way.
fn strict_patterns(schema: &Schema, tokens: &TokenStream) -> Result<String, Error> {
    const REGEX: &str = ":: regress :: Regex";
    const FIND: &str = "PATTERN . find (value) . is_none ()";
    let text = tokens.to_string();
    let (regexes, finds) = (text.matches(REGEX).count(), text.matches(FIND).count());
    let text = text.replace(REGEX, "crate :: strict :: Pattern").replace(FIND, "PATTERN . refuses (value)");
    if regexes != 2 * finds || text.contains("regress") {
        let message = format!("typify checks patterns in an unexpected way ({regexes} regexes, {finds} checks)");
        return Err(schema.unsupported("", message));
    }
    Ok(text)
}

/// Confirms typify used every checked type the plan routed a constraint to: typify falls back silently to a plain
/// type when a conversion does not match, which would quietly drop a check.
fn check_substitutions(schema: &Schema, tokens: &TokenStream, plan: &Plan) -> Result<(), Error> {
    let text = tokens.to_string().replace(' ', "");
    for constant in plan.consts.values().filter(|constant| !constant.definition) {
        if !text.contains(&constant.type_name) {
            return Err(schema.unsupported("", format!("typify did not use the const type {}", constant.type_name)));
        }
    }
    // A definition nothing here refers to (a shared one, used by other schemas) has no place to appear.
    let referenced = referenced_definitions(&schema.value);
    for (name, replacement) in &plan.replacements {
        if referenced.contains(name) && !text.contains(&replacement.replace(' ', "")) {
            return Err(schema.unsupported("", format!("typify did not replace {name} with {replacement}")));
        }
    }
    Ok(())
}

/// The type names of the definitions a local `$ref` in `value` names.
fn referenced_definitions(value: &Value) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(object) => {
                if let Some(name) = object.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/"))
                {
                    out.insert(type_name(name));
                }
                stack.extend(object.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    out
}

fn check_root_union(schema: &Schema, root: &Map<String, Value>) -> Result<(), Error> {
    for (key, value) in root {
        match key.as_str() {
            "$schema" | "$id" | "$defs" | "title" | "description" => {}
            "anyOf" | "oneOf" => {
                let Some(items) = value.as_array() else {
                    return Err(schema.unsupported(&format!("/{key}"), "must be a list of local references"));
                };
                for (index, item) in items.iter().enumerate() {
                    if local_ref(item).is_none() {
                        return Err(schema.unsupported(
                            &format!("/{key}/{index}"),
                            "a root without a type may only list local references to its definitions",
                        ));
                    }
                }
            }
            other => {
                return Err(schema.unsupported(&format!("/{other}"), "unexpected keyword at a root without a type"));
            }
        }
    }
    Ok(())
}

/// The definition name of a `{"$ref": "#/$defs/<name>"}` schema.
fn local_ref(value: &Value) -> Option<&str> {
    let object = value.as_object()?;
    if object.len() != 1 {
        return None;
    }
    object.get("$ref")?.as_str()?.strip_prefix("#/$defs/")
}

/// typify's name for the type of a definition.
fn type_name(def_name: &str) -> String {
    def_name.to_upper_camel_case()
}

/// Decides how a named definition is represented: replaced by a checked type, or generated by typify (and then
/// walked like any other subschema).
fn plan_definition(
    schema: &Schema,
    defs: &Map<String, Value>,
    imported: &BTreeMap<String, String>,
    owner: Option<&str>,
    name: &str,
    def: &Value,
    plan: &mut Plan,
) -> Result<(), Error> {
    let pointer = format!("/$defs/{name}");
    let home = owner.unwrap_or(&schema.name);
    if let Some((.., written_for, hand)) = HAND_TYPES.iter().find(|(owner, def, ..)| (*owner, *def) == (home, name)) {
        let written_for: Value = serde_json::from_str(written_for).expect("a hand type names its definition as JSON");
        if *def != written_for {
            return Err(
                schema.unsupported(&pointer, format!("{hand} is written for {written_for}, not this definition"))
            );
        }
        plan.replacements.insert(type_name(name), (*hand).to_owned());
        return Ok(());
    }
    let object = def.as_object().ok_or_else(|| schema.unsupported(&pointer, "a definition must be an object"))?;
    if let Some(constant) = object.get("const") {
        // A const definition is its own type, named after it: the const type a property's const would get, without
        // the property's name in front.
        check_keywords(schema, &pointer, object, &["const", "description", "type"])?;
        let ty = type_name(name);
        register_const(schema, &pointer, def, constant, Some(name), true, plan)?;
        let path = owner.map_or_else(|| ty.clone(), |home| qualified(home, name));
        plan.replacements.insert(ty, path);
        return Ok(());
    }
    match object.get("type").and_then(Value::as_str) {
        Some("integer") => {
            check_keywords(schema, &pointer, object, &["type", "description", "minimum", "maximum"])?;
            let bound = |key| object.get(key).and_then(Value::as_u64).filter(|n| *n <= MAX_SAFE_INTEGER);
            let checked = match (bound("minimum"), bound("maximum")) {
                (Some(0), Some(MAX_SAFE_INTEGER)) => "crate::strict::SafeUint".to_owned(),
                (Some(min), Some(max)) if min <= max => format!("crate::strict::BoundedUint<{min}, {max}>"),
                _ => {
                    return Err(schema.unsupported(
                        &pointer,
                        format!("an integer must have a minimum and a maximum within 0..={MAX_SAFE_INTEGER}"),
                    ));
                }
            };
            plan.replacements.insert(type_name(name), checked);
            Ok(())
        }
        Some("array") if object.contains_key("uniqueItems") || object.contains_key("minItems") => {
            check_keywords(schema, &pointer, object, &["type", "description", "items", "uniqueItems", "minItems"])?;
            let unique = match object.get("uniqueItems") {
                None => false,
                Some(Value::Bool(true)) => true,
                Some(_) => return Err(schema.unsupported(&pointer, "uniqueItems may only be true")),
            };
            let non_empty = match object.get("minItems") {
                None => false,
                Some(Value::Number(n)) if n.as_u64() == Some(1) => true,
                Some(_) => return Err(schema.unsupported(&pointer, "minItems may only be 1")),
            };
            let wrapper = match (unique, non_empty) {
                (true, false) => "UniqueVec",
                (true, true) => "NonEmptyUniqueVec",
                _ => "NonEmptyVec",
            };
            let items = object.get("items").unwrap_or(&Value::Null);
            let item_def = local_ref(items).ok_or_else(|| {
                schema.unsupported(&format!("{pointer}/items"), "the items of a unique list must be a local $ref")
            })?;
            let item_type = match defs.get(item_def).and_then(|d| d.get("type")).and_then(Value::as_str) {
                Some("integer") => "crate::strict::SafeUint".to_owned(),
                // From another module, an item type is spelled with its module's path.
                Some("string") => match imported.get(item_def).map(String::as_str).or(owner) {
                    Some(home) => qualified(home, item_def),
                    None => type_name(item_def),
                },
                _ => {
                    return Err(schema.unsupported(
                        &format!("{pointer}/items"),
                        "the items of a unique list must be strings or safe integers",
                    ));
                }
            };
            plan.replacements.insert(type_name(name), format!("crate::strict::{wrapper}<{item_type}>"));
            Ok(())
        }
        Some("number") => {
            check_keywords(schema, &pointer, object, &["type", "description", "exclusiveMinimum"])?;
            if object.get("exclusiveMinimum").and_then(Value::as_u64) != Some(0) {
                return Err(schema.unsupported(&pointer, "a number must have exclusiveMinimum: 0"));
            }
            plan.replacements.insert(type_name(name), "crate::strict::PositiveNumber".to_owned());
            Ok(())
        }
        Some("object") if !object.contains_key("properties") && !object.contains_key("additionalProperties") => {
            check_keywords(schema, &pointer, object, &["type", "description"])?;
            plan.replacements.insert(type_name(name), "crate::strict::JsonObject".to_owned());
            Ok(())
        }
        _ => walk(schema, defs, &pointer, def, Some(name), plan),
    }
}

/// The type that stands for `name`, a definition of the schema `home`: the checked type its owner routes it to, or
/// the owner's generated type.
fn imported_type(home: &str, name: &str, schemas: &[Schema]) -> Result<String, Error> {
    let owner = schemas.iter().find(|schema| schema.name == home).expect("imports name known schemas");
    let Imports { schema: owner, imported } = crate::imports::localize(owner, schemas)?;
    if let Some(further) = imported.get(name) {
        return imported_type(further, name, schemas);
    }
    let defs = owner.value.get("$defs").and_then(Value::as_object).expect("an imported definition has $defs");
    let mut plan = Plan::default();
    plan_definition(&owner, defs, &imported, Some(home), name, &defs[name], &mut plan)?;
    Ok(plan.replacements.remove(&type_name(name)).unwrap_or_else(|| qualified(home, name)))
}

/// The path, from a sibling generated module, of the type of the definition `name` of the schema `home`.
fn qualified(home: &str, name: &str) -> String {
    format!("super::{}::{}", module_name(home), type_name(name))
}

fn check_keywords(schema: &Schema, pointer: &str, object: &Map<String, Value>, allowed: &[&str]) -> Result<(), Error> {
    match object.keys().find(|key| !allowed.contains(&key.as_str())) {
        None => Ok(()),
        Some(key) => Err(schema.unsupported(pointer, format!("the keyword {key:?} is not supported here"))),
    }
}

/// Checks a subschema that typify will convert, registering every `const` in it.
fn walk(
    schema: &Schema,
    defs: &Map<String, Value>,
    pointer: &str,
    value: &Value,
    property: Option<&str>,
    plan: &mut Plan,
) -> Result<(), Error> {
    let object = value.as_object().ok_or_else(|| schema.unsupported(pointer, "a subschema must be an object"))?;
    if let Some(target) = object.get("$ref") {
        let name = local_ref(value).ok_or_else(|| {
            schema.unsupported(pointer, format!("{target} must be a local reference #/$defs/<name>, alone"))
        })?;
        if !defs.contains_key(name) {
            return Err(schema.unsupported(pointer, format!("{target} names no definition")));
        }
        return Ok(());
    }
    if let Some(constant) = object.get("const") {
        check_keywords(schema, pointer, object, &["const", "description", "type"])?;
        register_const(schema, pointer, value, constant, property, false, plan)?;
        return Ok(());
    }
    if let Some(variants) = object.get("oneOf") {
        check_keywords(schema, pointer, object, &["oneOf", "description"])?;
        let nullable = variants
            .as_array()
            .is_some_and(|variants| variants.len() == 2 && variants[1] == serde_json::json!({"type": "null"}));
        if nullable {
            return walk(schema, defs, &format!("{pointer}/oneOf/0"), &variants[0], property, plan);
        }
        return walk_either(schema, defs, pointer, variants, plan);
    }
    match object.get("type").and_then(Value::as_str) {
        Some("object") if !object.contains_key("properties") && object.contains_key("additionalProperties") => {
            walk_map(schema, defs, pointer, object, plan)
        }
        Some("object") => {
            let properties = object.get("properties").and_then(Value::as_object).ok_or_else(|| {
                schema.unsupported(pointer, "a free-form object must be declared under $defs and referenced")
            })?;
            if object.get("additionalProperties") != Some(&Value::Bool(false)) {
                return Err(schema.unsupported(pointer, "every object must have additionalProperties: false"));
            }
            let mut allowed = vec![
                "type",
                "description",
                "title",
                "properties",
                "required",
                "additionalProperties",
                "$schema",
                "$id",
                "$defs",
            ];
            // A request's annotations, which `methods.rs` reads.
            allowed.extend(methods::ANNOTATIONS);
            check_keywords(schema, pointer, object, &allowed)?;
            let required = object.get("required").and_then(Value::as_array).cloned().unwrap_or_default();
            for name in &required {
                let known = name.as_str().is_some_and(|name| properties.contains_key(name));
                if !known {
                    return Err(schema.unsupported(pointer, format!("required names an unknown property {name}")));
                }
            }
            for (name, property_schema) in properties {
                if property_schema.get("oneOf").is_some() && !required.iter().any(|r| r == name) {
                    return Err(schema.unsupported(
                        &format!("{pointer}/properties/{name}"),
                        "an optional property cannot also be nullable: make it required and nullable, or leave out null",
                    ));
                }
                walk(schema, defs, &format!("{pointer}/properties/{name}"), property_schema, Some(name), plan)?;
            }
            Ok(())
        }
        Some("string") => {
            check_keywords(schema, pointer, object, &["type", "description", "minLength", "pattern", "enum"])
        }
        Some("boolean") | Some("null") => check_keywords(schema, pointer, object, &["type", "description"]),
        Some("array") => {
            check_keywords(schema, pointer, object, &["type", "description", "items"])?;
            let items =
                object.get("items").ok_or_else(|| schema.unsupported(pointer, "a list must say what its items are"))?;
            walk(schema, defs, &format!("{pointer}/items"), items, None, plan)
        }
        Some("integer") => Err(schema.unsupported(pointer, "a constrained integer must be declared under $defs")),
        Some(other) => Err(schema.unsupported(pointer, format!("the type {other:?} is not supported"))),
        None => Err(schema.unsupported(pointer, "a subschema must have a type, a const, a $ref or a nullable oneOf")),
    }
}

/// A map from names to values of one schema: `additionalProperties` is the values' subschema, and `propertyNames`,
/// if present, a local reference to the string definition the names must satisfy.
fn walk_map(
    schema: &Schema,
    defs: &Map<String, Value>,
    pointer: &str,
    object: &Map<String, Value>,
    plan: &mut Plan,
) -> Result<(), Error> {
    check_keywords(schema, pointer, object, &["type", "description", "additionalProperties", "propertyNames"])?;
    if let Some(names) = object.get("propertyNames") {
        let name =
            local_ref(names).filter(|name| defs.get(*name).and_then(|def| def.get("type")) == Some(&"string".into()));
        if name.is_none() {
            return Err(schema.unsupported(
                &format!("{pointer}/propertyNames"),
                "propertyNames must be a local reference to a string definition",
            ));
        }
    }
    let values = object.get("additionalProperties").unwrap_or(&Value::Null);
    if !values.is_object() {
        return Err(schema.unsupported(
            &format!("{pointer}/additionalProperties"),
            "a map's additionalProperties must be the subschema of its values",
        ));
    }
    walk(schema, defs, &format!("{pointer}/additionalProperties"), values, None, plan)
}

/// A definition that is one of a few branches, each of another JSON type (a string or an object, a list or an
/// object): typify's untagged enum then picks the only branch the value's type allows, never a wrong one.
fn walk_either(
    schema: &Schema,
    defs: &Map<String, Value>,
    pointer: &str,
    variants: &Value,
    plan: &mut Plan,
) -> Result<(), Error> {
    let is_definition = pointer.strip_prefix("/$defs/").is_some_and(|name| !name.contains('/'));
    let variants = variants.as_array().filter(|variants| variants.len() >= 2 && is_definition).ok_or_else(|| {
        schema.unsupported(
            pointer,
            "oneOf is supported only as [<schema>, {\"type\": \"null\"}], or as a definition whose branches each \
             have another JSON type",
        )
    })?;
    let mut types = Vec::with_capacity(variants.len());
    for (index, variant) in variants.iter().enumerate() {
        let branch = format!("{pointer}/oneOf/{index}");
        let target = local_ref(variant).and_then(|name| defs.get(name)).unwrap_or(variant);
        let json_type = target.get("type").and_then(Value::as_str).filter(|ty| *ty != "null").ok_or_else(|| {
            schema
                .unsupported(&branch, "each branch of a oneOf must have a type, or be a $ref to a definition with one")
        })?;
        let json_type = if json_type == "integer" { "number" } else { json_type };
        if types.contains(&json_type) {
            return Err(schema.unsupported(&branch, format!("two branches of the oneOf are both of type {json_type}")));
        }
        types.push(json_type);
        walk(schema, defs, &branch, variant, None, plan)?;
    }
    Ok(())
}

fn register_const(
    schema: &Schema,
    pointer: &str,
    subschema: &Value,
    constant: &Value,
    property: Option<&str>,
    definition: bool,
    plan: &mut Plan,
) -> Result<(), Error> {
    let spelled = match constant {
        Value::String(text) => text.to_upper_camel_case(),
        Value::Bool(true) => "True".to_owned(),
        Value::Bool(false) => "False".to_owned(),
        Value::Number(n) if n.as_u64().is_some_and(|n| n <= MAX_SAFE_INTEGER) => n.to_string(),
        _ => return Err(schema.unsupported(pointer, "a const must be a string, a boolean or a safe integer")),
    };
    if spelled.is_empty() {
        return Err(schema.unsupported(pointer, "a const string must contain a letter or digit"));
    }
    // A definition's const is reached through its replacement, never matched by its subschema, so it is kept apart
    // from an equal inline one.
    let key = if definition { pointer.to_owned() } else { subschema.to_string() };
    if plan.consts.contains_key(&key) {
        return Ok(());
    }
    let prefix = property.map(str::to_upper_camel_case).unwrap_or_else(|| "Const".to_owned());
    let mut type_name = if definition { prefix.clone() } else { format!("{prefix}{spelled}") };
    // Two different const subschemas (say, one with a description) may spell the same name.
    let mut suffix = 2;
    while plan.consts.values().any(|c| c.type_name == type_name) {
        type_name = format!("{prefix}{spelled}{suffix}");
        suffix += 1;
    }
    plan.consts.insert(key, Const { type_name, value: constant.clone(), schema: subschema.clone(), definition });
    Ok(())
}

/// The exact schema object typify meets for a `const`, which is how it recognises the conversion.
fn const_schema_object(schema: &Schema, constant: &Const) -> Result<schemars::schema::SchemaObject, Error> {
    serde_json::from_value(constant.schema.clone())
        .map_err(|err| schema.unsupported("", format!("typify cannot read the const {}: {err}", constant.value)))
}

fn to_schemars(schema: &Schema, pointer: &str, value: &Value) -> Result<schemars::schema::Schema, Error> {
    serde_json::from_value(value.clone())
        .map_err(|err| schema.unsupported(pointer, format!("typify cannot read this subschema: {err}")))
}

/// Gives each checked string newtype (an identity, a digest, a name) the `Display` of its text, which typify leaves
/// out, so that a message or a CLI line can print it as it prints the enums.
fn display_string_newtypes(file: &mut syn::File) {
    let mut impls: Vec<syn::Item> = Vec::new();
    for item in &file.items {
        let syn::Item::Struct(item) = item else { continue };
        let syn::Fields::Unnamed(fields) = &item.fields else { continue };
        let is_string = |ty: &syn::Type| ty.to_token_stream().to_string().replace(' ', "") == "::std::string::String";
        if fields.unnamed.len() != 1 || !is_string(&fields.unnamed[0].ty) {
            continue;
        }
        let ident = &item.ident;
        impls.push(syn::parse_quote! {
            impl ::std::fmt::Display for #ident {
                fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                    f.write_str(&self.0)
                }
            }
        });
    }
    file.items.extend(impls);
}

/// Closes two doors serde's derives leave open in typify's structs.
///
/// - serde reads `null` as `None` for any `Option` field, but an optional property that is not nullable must be
///   absent or a value: every optional field gets a deserializer that refuses `null`.
/// - A derived struct also deserializes from a JSON array of its fields in order. Each struct's derives are turned
///   into inherent functions (`#[serde(remote = "Self")]`) and the trait impls call them through
///   `crate::strict::ObjectOnly`, which asks the deserializer for a map and nothing else.
fn tighten_structs(file: &mut syn::File) {
    const OPTIONAL: &str = "skip_serializing_if = \"::std::option::Option::is_none\"";
    let mut impls: Vec<syn::Item> = Vec::new();
    for item in &mut file.items {
        let syn::Item::Struct(item) = item else { continue };
        let syn::Fields::Named(_) = item.fields else { continue };
        for field in item.fields.iter_mut() {
            for attr in &mut field.attrs {
                let syn::Meta::List(list) = &attr.meta else { continue };
                if !list.path.is_ident("serde") || list.tokens.to_string() != OPTIONAL {
                    continue;
                }
                *attr = syn::parse_quote! {
                    #[serde(
                        default,
                        skip_serializing_if = "::std::option::Option::is_none",
                        deserialize_with = "crate::strict::deserialize_present"
                    )]
                };
            }
        }
        let derives_deserialize = item.attrs.iter().any(|attr| {
            attr.path().is_ident("derive") && attr.meta.to_token_stream().to_string().contains("Deserialize")
        });
        if !derives_deserialize {
            continue;
        }
        item.attrs.push(syn::parse_quote! { #[serde(remote = "Self")] });
        let ident = &item.ident;
        impls.push(syn::parse_quote! {
            impl<'de> ::serde::Deserialize<'de> for #ident {
                fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                    #ident::deserialize(crate::strict::ObjectOnly(deserializer))
                }
            }
        });
        impls.push(syn::parse_quote! {
            impl ::serde::Serialize for #ident {
                fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
                    #ident::serialize(self, serializer)
                }
            }
        });
    }
    file.items.extend(impls);
}

/// The unit struct standing for one `const`: `crate::strict::Constant` with its value, serialized and deserialized
/// through the crate's one pair of helpers, so that every const type checks its value the same way.
fn const_type(constant: &Const) -> TokenStream {
    let ident = format_ident!("{}", constant.type_name);
    let json = constant.value.to_string();
    let described = constant.schema.get("description").and_then(Value::as_str).map(|text| format!(" {text}"));
    let doc = format!(
        "{} The constant `{json}`: serializes as it and deserializes from nothing else.",
        described.unwrap_or_default()
    );
    let value = match &constant.value {
        Value::String(text) => quote! { Str(#text) },
        Value::Bool(flag) => quote! { Bool(#flag) },
        // `register_const` admits only strings, booleans and safe integers.
        _ => {
            let number = proc_macro2::Literal::u64_unsuffixed(constant.value.as_u64().unwrap_or_default());
            quote! { Uint(#number) }
        }
    };
    quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct #ident;

        impl crate::strict::Constant for #ident {
            const VALUE: crate::strict::ConstValue = crate::strict::ConstValue::#value;
        }

        impl ::serde::Serialize for #ident {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
                crate::strict::serialize_constant::<Self, S>(serializer)
            }
        }

        impl<'de> ::serde::Deserialize<'de> for #ident {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                crate::strict::deserialize_constant(deserializer)
            }
        }
    }
}
