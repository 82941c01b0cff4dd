//! Python models: plain classes with strict `from_dict` and `to_dict`, standard library only.
//!
//! Each schema becomes one module under `sdk-python/src/metewand/models/`:
//!
//! - an object with properties (a `$defs` entry, or the root) becomes a class with `__slots__`, a keyword-only
//!   constructor that checks its arguments, `from_dict` (strict decoding of what `json.loads` returns),
//!   `to_dict` (JSON-ready, members sorted by name), `__eq__` and `__repr__`;
//! - a named string, integer, boolean or constant becomes a small checking function, and a named string enum also
//!   a `frozenset` of its values and a `typing.Literal` alias;
//! - a free-form object is a `dict[str, Any]`, copied shallowly; a named array or nullable is written out where it
//!   is used;
//! - an object with `additionalProperties` and no properties is a `dict[str, T]`, a number greater than zero a
//!   `float`, and a definition that is a `oneOf` of branches of distinct JSON types a checking function that picks
//!   the branch by the value's type;
//! - `DEFINITIONS` maps each class's `$defs` name (`None` for the root) to the class.
//!
//! The checks themselves are hand-written in `metewand._strict`, so the generated text stays declarative. The
//! generator understands exactly the schema subset Metewand's schemas use; anything else is an
//! [`Error::Unsupported`] that names the keyword, so a schema change can never silently loosen the models.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use crate::imports::Imports;
use crate::{Error, GeneratedFile, REGENERATE_COMMAND, Schema, wrap};

mod parse;
mod render;
#[cfg(test)]
mod tests;
mod text;

use text::{escape_docstring, py_str};

/// Where the generated modules live, relative to the workspace root.
const OUTPUT_DIR: &str = "sdk-python/src/metewand/models";

/// The longest line the generated code aims for; only the header and a long pattern exceed it.
const WIDTH: usize = 100;

/// Keywords that only annotate, accepted on every subschema.
const ANNOTATIONS: &[&str] = &["description", "title"];

/// Names every generated module defines or imports besides its classes, enums and helpers.
const RESERVED_NAMES: &[&str] = &[
    "Any",
    "DEFINITIONS",
    "Literal",
    "ModelError",
    "TYPE_CHECKING",
    "TypeAlias",
    "annotations",
    "check_array",
    "check_boolean",
    "check_const",
    "check_enum",
    "check_integer",
    "check_json_object",
    "check_map",
    "check_model",
    "check_object",
    "check_positive_number",
    "check_string",
    "literal_alias",
    "_LITERAL_ALIASES",
];

/// Python's keywords, which cannot name a module, an attribute or a constructor argument: a property so named is
/// the attribute with a trailing underscore.
const PYTHON_KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
    "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
    "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
];

/// Property names that would shadow the generated methods or the constructor's own parameter.
const RESERVED_PROPERTIES: &[&str] = &["self", "from_dict", "to_dict"];

pub(crate) fn generate(schemas: &[Schema]) -> Result<Vec<GeneratedFile>, Error> {
    let mut files = Vec::with_capacity(schemas.len() + 1);
    let mut index = Vec::with_capacity(schemas.len());
    let localized = crate::imports::ordered(schemas)?
        .into_iter()
        .map(|schema| crate::imports::localize(schema, schemas))
        .collect::<Result<Vec<_>, _>>()?;
    // Each module is parsed after the modules it takes definitions from, which it needs to know.
    let mut done: BTreeMap<String, Module<'_>> = BTreeMap::new();
    for Imports { schema, imported } in &localized {
        let name = module_name(schema)?;
        let module = Module::parse(schema, imported, &done)?;
        files.push(GeneratedFile { path: format!("{OUTPUT_DIR}/{name}.py"), contents: module.render() });
        index.push((name, module.title()));
        done.insert(schema.name.clone(), module);
    }
    if schemas.iter().any(|schema| schema.name == crate::methods::SCHEMA) {
        index.push((crate::methods::MODULE.to_owned(), crate::methods::SUMMARY.to_owned()));
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    index.sort();
    files.push(GeneratedFile { path: format!("{OUTPUT_DIR}/__init__.py"), contents: package_init(&index) });
    Ok(files)
}

fn module_name(schema: &Schema) -> Result<String, Error> {
    let name = schema.name.replace('-', "_");
    let valid = schema.name.starts_with(|c: char| c.is_ascii_lowercase())
        && schema.name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !PYTHON_KEYWORDS.contains(&name.as_str());
    if !valid {
        return Err(schema.unsupported(
            "",
            "a schema name must be lowercase ASCII letters, digits and hyphens, and not a Python keyword",
        ));
    }
    Ok(name)
}

fn header(source: &str) -> String {
    format!("# Generated from {source} by codegen; do not edit. Regenerate with: {REGENERATE_COMMAND}\n")
}

fn package_init(modules: &[(String, String)]) -> String {
    let mut out = header("schemas/*.schema.json");
    out.push_str("\"\"\"Strict models of Metewand's documents and protocol messages, one module per JSON Schema.\n\n");
    for line in wrap(
        "Each class decodes parsed JSON with from_dict, which refuses anything its schema refuses (unknown or \
         missing members, wrong types, values outside an enum, a range or a pattern) by raising ModelError with \
         the JSON Pointer of the offending value, and encodes with to_dict. Each module's DEFINITIONS maps the \
         schema's definition names to their classes. This package imports nothing by itself, so a worker pays \
         only for the modules it uses:",
        WIDTH,
    ) {
        out.push_str(&line);
        out.push('\n');
    }
    out.push('\n');
    for (name, title) in modules {
        out.push_str(&format!("- ``metewand.models.{name}``: {}\n", escape_docstring(title)));
    }
    out.push_str("\"\"\"\n");
    out
}

/// A JSON value's type in the models, after `$ref`s are resolved.
#[derive(Clone, Debug, PartialEq)]
enum Ty {
    String {
        min_length: u64,
        pattern: Option<String>,
    },
    /// A string enum, checked against the module-level frozenset `constant`.
    Enum {
        values: Vec<String>,
        constant: String,
        alias: Option<String>,
    },
    Integer {
        minimum: Option<i64>,
        maximum: Option<i64>,
    },
    Boolean,
    /// A finite number greater than zero.
    Number,
    Const(Const),
    Array {
        items: Box<Ty>,
        min_items: u64,
        unique: bool,
    },
    /// An object whose members the schema does not constrain.
    JsonObject,
    /// An object with properties: the class of that name.
    Model(String),
    /// A named scalar, checked by the module-level function `helper`.
    Named {
        helper: String,
        target: Box<Ty>,
    },
    Nullable(Box<Ty>),
    /// An object whose members all have one type: names checked by the function `key`, if any.
    Map {
        key: Option<String>,
        values: Box<Ty>,
    },
    /// One of a few types, each of another JSON type; only as a definition, behind its checking function.
    Either(Vec<Ty>),
}

impl Ty {
    /// Whether the value is a plain Python scalar: stored as decoded, encoded as stored, hashable.
    fn is_scalar(&self) -> bool {
        match self {
            Ty::String { .. } | Ty::Enum { .. } | Ty::Integer { .. } | Ty::Boolean | Ty::Number | Ty::Const(_) => true,
            Ty::Named { target, .. } => target.is_scalar(),
            _ => false,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Const {
    String(String),
    Boolean(bool),
    Integer(i64),
}

impl Const {
    fn literal(&self) -> String {
        match self {
            Const::String(text) => py_str(text),
            Const::Boolean(true) => "True".to_owned(),
            Const::Boolean(false) => "False".to_owned(),
            Const::Integer(n) => n.to_string(),
        }
    }
}

/// How a `$defs` entry is represented.
#[derive(Clone, Debug)]
enum DefKind {
    Class(String),
    JsonObject,
    Value,
}

#[derive(Debug)]
struct Class {
    name: String,
    /// The `$defs` name, or `None` for the root.
    def: Option<String>,
    doc: Option<String>,
    fields: Vec<Field>,
}

#[derive(Debug)]
struct Field {
    /// The member's key in the JSON object.
    name: String,
    ty: Ty,
    required: bool,
    doc: Option<String>,
}

impl Field {
    /// The Python attribute and constructor argument: the key, or the key with a trailing underscore when the key
    /// is a Python keyword (PEP 8's convention, as in `continue_`).
    fn attr(&self) -> String {
        if PYTHON_KEYWORDS.contains(&self.name.as_str()) { format!("{}_", self.name) } else { self.name.clone() }
    }
}

#[derive(Debug)]
struct EnumDecl {
    values: Vec<String>,
    alias: Option<String>,
    doc: Option<String>,
}

#[derive(Debug)]
struct Helper {
    ty: Ty,
    doc: Option<String>,
}

/// One schema, parsed into what its module declares.
struct Module<'a> {
    schema: &'a Schema,
    defs: Map<String, Value>,
    kinds: BTreeMap<String, DefKind>,
    /// Value definitions already resolved, and those being resolved (to refuse cycles).
    resolved: BTreeMap<String, Ty>,
    resolving: BTreeSet<String>,
    /// Frozensets of enum values, by constant name.
    enums: BTreeMap<String, EnumDecl>,
    /// Checking functions for named and constrained scalars, by function name.
    helpers: BTreeMap<String, Helper>,
    /// The root class first, then one per `$defs` entry in name order.
    classes: Vec<Class>,
    /// Every module-level name, to refuse two definitions that would generate the same one.
    names: BTreeSet<String>,
    /// The definitions taken from other schemas' modules: by definition name, the owner's schema name, and what
    /// the owner made of it.
    imported: BTreeMap<String, (String, Ty)>,
    /// Names used at run time, by the schema name of the module that defines them.
    imports: BTreeMap<String, BTreeSet<String>>,
    /// Names only annotations use, imported for type checkers alone.
    type_imports: BTreeMap<String, BTreeSet<String>>,
    /// For a name an owner module itself imported, `(owner, name)` to the schema that defines it: a name is
    /// imported from where it is defined, never through another module.
    origins: BTreeMap<(String, String), String>,
}
