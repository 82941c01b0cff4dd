//! Turns Metewand's JSON Schemas into strict Rust types and Python models.
//!
//! The schemas in `schemas/` are the source of truth for every message and document. This crate is a pure
//! function from their text to the text of the generated files: it reads and writes nothing, so the same code
//! serves `cargo xtask codegen`, which writes the files, and the drift check, which compares them.
//!
//! ```
//! use codegen::{SchemaSource, generate};
//!
//! let text = r##"{
//!     "$id": "urn:metewand:schema:ping:1",
//!     "type": "object",
//!     "additionalProperties": false,
//!     "required": ["seq"],
//!     "properties": {"seq": {"$ref": "#/$defs/counter"}},
//!     "$defs": {"counter": {"type": "integer", "minimum": 0, "maximum": 9007199254740991}}
//! }"##;
//! let files = generate(&[SchemaSource { name: "ping".into(), text: text.into() }]).unwrap();
//! let rust = files.iter().find(|f| f.path == "metewand-protocol/src/generated/ping.rs").unwrap();
//! assert!(rust.contents.starts_with("// Generated from schemas/ping.schema.json"));
//! assert!(rust.contents.contains("pub seq: crate::strict::SafeUint"));
//! assert!(files.iter().any(|f| f.path == "sdk-python/src/metewand/models/ping.py"));
//! ```
//!
//! Anything the generators cannot make strict in both languages is an [`Error::Unsupported`] naming the JSON
//! pointer, never a silently weaker type.

#![forbid(unsafe_code)]

mod imports;
mod methods;
mod order;
mod python;
mod rust;

use std::fmt;

/// One schema document, as read from `schemas/<name>.schema.json`.
#[derive(Clone, Debug)]
pub struct SchemaSource {
    /// The schema's name, as in its `$id` `urn:metewand:schema:<name>:1`.
    pub name: String,
    /// The schema's JSON text.
    pub text: String,
}

/// A generated file: where it goes, relative to the workspace root, and what it holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedFile {
    /// The path relative to the workspace root, with `/` separators.
    pub path: String,
    /// The complete contents, starting with the line that says the file is generated.
    pub contents: String,
}

/// The command that regenerates every generated file; each file names it in its first line.
pub const REGENERATE_COMMAND: &str = "cargo xtask codegen";

/// Why the schemas could not be turned into code.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A schema is not valid JSON.
    #[error("schema {schema} is not valid JSON: {source}")]
    Json {
        /// The schema's name.
        schema: String,
        /// What the JSON parser said.
        source: serde_json::Error,
    },
    /// A schema uses a construct the generators cannot make strict in both languages.
    #[error("schema {schema} at {pointer}: {reason}")]
    Unsupported {
        /// The schema's name.
        schema: String,
        /// The JSON pointer of the offending subschema.
        pointer: String,
        /// What is unsupported, and what to write instead.
        reason: String,
    },
    /// typify rejected a schema.
    #[error("typify could not convert schema {schema}: {message}")]
    Typify {
        /// The schema's name.
        schema: String,
        /// typify's message.
        message: String,
    },
    /// typify produced tokens that are not a Rust file.
    #[error("generated Rust for schema {schema} does not parse: {message}")]
    Syntax {
        /// The schema's name.
        schema: String,
        /// syn's message.
        message: String,
    },
}

/// A parsed schema, shared by both generators.
#[derive(Clone, Debug)]
pub(crate) struct Schema {
    pub(crate) name: String,
    pub(crate) value: serde_json::Value,
}

impl Schema {
    fn parse(source: &SchemaSource) -> Result<Schema, Error> {
        let value = serde_json::from_str(&source.text)
            .map_err(|source_err| Error::Json { schema: source.name.clone(), source: source_err })?;
        Ok(Schema { name: source.name.clone(), value })
    }

    pub(crate) fn unsupported(&self, pointer: &str, reason: impl fmt::Display) -> Error {
        Error::Unsupported { schema: self.name.clone(), pointer: pointer.to_owned(), reason: reason.to_string() }
    }
}

/// Generates every Rust and Python file from the schemas, sorted by path: one module per schema in each language,
/// and the table of the worker protocol's request methods, from the annotations of its request definitions.
///
/// The output depends only on the input: the same schemas give the same bytes.
pub fn generate(sources: &[SchemaSource]) -> Result<Vec<GeneratedFile>, Error> {
    let mut schemas = sources.iter().map(Schema::parse).collect::<Result<Vec<_>, _>>()?;
    schemas.sort_by(|a, b| a.name.cmp(&b.name));
    let orders = sources.iter().map(|source| (source.name.clone(), order::read(&source.text))).collect();
    let methods = methods::read(&schemas)?;
    let mut files = rust::generate(&schemas, &orders)?;
    files.extend(python::generate(&schemas)?);
    if let Some(methods) = methods {
        files.extend(methods.files()?);
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

/// `pointer` extended by one reference token, escaped as RFC 6901 asks.
pub(crate) fn pointer_join(pointer: &str, token: &str) -> String {
    format!("{pointer}/{}", token.replace('~', "~0").replace('/', "~1"))
}

/// Greedy word wrap at `width` columns; words longer than that stay whole.
pub(crate) fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}
