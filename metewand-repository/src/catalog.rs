//! The offline schema catalog: a repository's schema files, its inline schemas and Metewand's embedded public
//! schemas, and nothing else.
//!
//! The catalog is built when a repository is checked. Every document is parsed in the restricted JSON domain, must
//! be draft 2020-12, and (for files) carries an absolute `$id` without a fragment; an inline schema (a TOML table
//! where a schema id was expected) gets the id `urn:metewand:inline:<hex SHA-256 of its canonical JSON>`. Every
//! `$ref` and `$dynamicRef` is resolved against its base URI and must land on a document of the catalog (and, with
//! a fragment, on a value or anchor inside it); one that does not is an error naming its file, line, column and
//! reference. Two documents (or embedded resources) with one `$id` are an error. Each document is then compiled
//! exactly once, against a registry holding only the catalog, with no retriever that could reach a file or the
//! network.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::PathBuf;

use jsonschema::{Draft, Validator};
use metewand_protocol::decode::SchemaDiagnostic;
use serde_json::Value;

use crate::diagnostic::locate::{line_column, locate_pointer};
use crate::diagnostic::{CheckError, CheckErrorKind, Location, UnresolvedRef, sentence};
use crate::files::Sha256Digest;

/// The only `$schema` a catalog document may declare (or it may declare none).
pub const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// The prefix of an inline schema's id.
pub const INLINE_PREFIX: &str = "urn:metewand:inline:";

/// Where a catalog document came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SchemaOrigin {
    /// One of Metewand's public schemas, embedded in the binary.
    Embedded {
        /// Its path in Metewand's repository (`schemas/metrics.schema.json`).
        path: &'static str,
    },
    /// A schema file of the repository.
    File {
        /// Its path relative to the repository.
        path: PathBuf,
    },
    /// A TOML table in `metewand.toml`.
    Inline {
        /// Where the table is.
        location: Location,
    },
}

impl fmt::Display for SchemaOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SchemaOrigin::Embedded { path } => write!(f, "Metewand's embedded {path}"),
            SchemaOrigin::File { path } => write!(f, "{}", path.display()),
            SchemaOrigin::Inline { location } => write!(f, "the inline schema at {location}"),
        }
    }
}

/// The `format` a benchmark's schema gives a string that names one of the artifact's files.
pub const FILE_FORMAT: &str = "metewand-file";

struct Entry {
    document: Value,
    origin: SchemaOrigin,
    validator: Validator,
    /// The ids of the catalog documents this one's `$ref`s land in (itself excluded).
    references: BTreeSet<String>,
}

/// Every schema a checked repository can use, each compiled once.
///
/// ```
/// use metewand_repository::catalog::SchemaCatalog;
/// use serde_json::json;
///
/// let catalog = SchemaCatalog::embedded();
/// let metrics = metewand_protocol::schema::METRICS.id;
/// assert!(catalog.validate(metrics, &json!({"metrics": {"rmse": 0.1}})).is_ok());
/// let diagnostics = catalog.validate(metrics, &json!({"metrics": 1})).unwrap_err();
/// assert_eq!(diagnostics[0].instance_path, "/metrics");
/// ```
pub struct SchemaCatalog {
    entries: BTreeMap<String, Entry>,
}

impl fmt::Debug for SchemaCatalog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.entries.iter().map(|(id, entry)| (id, &entry.origin))).finish()
    }
}

impl SchemaCatalog {
    /// A catalog of Metewand's embedded public schemas alone.
    pub fn embedded() -> SchemaCatalog {
        CatalogBuilder::new().build().expect("the embedded schemas form a valid catalog")
    }

    /// The id an inline schema gets: `urn:metewand:inline:` and the hex SHA-256 of its canonical JSON.
    ///
    /// ```
    /// use metewand_repository::catalog::SchemaCatalog;
    ///
    /// let id = SchemaCatalog::inline_id(&serde_json::json!({"type": "object"}));
    /// assert_eq!(id, format!("urn:metewand:inline:{}", metewand_protocol::Sha256Digest::of(br#"{"type":"object"}"#)));
    /// ```
    pub fn inline_id(schema: &Value) -> String {
        format!("{INLINE_PREFIX}{}", Sha256Digest::of(&metewand_protocol::to_canonical_vec(schema)))
    }

    /// Every id in the catalog, in byte order.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }

    /// Whether the catalog holds a document with this id.
    pub fn contains(&self, id: &str) -> bool {
        self.entries.contains_key(id)
    }

    /// The document with this id.
    pub fn document(&self, id: &str) -> Option<&Value> {
        self.entries.get(id).map(|entry| &entry.document)
    }

    /// Where the document with this id came from.
    pub fn origin(&self, id: &str) -> Option<&SchemaOrigin> {
        self.entries.get(id).map(|entry| &entry.origin)
    }

    /// Validates an instance against the document with this id, with its compiled validator. Every violation is
    /// returned, each with the JSON pointer of the offending value; an id outside the catalog is one diagnostic
    /// saying so.
    pub fn validate(&self, id: &str, instance: &Value) -> Result<(), Vec<SchemaDiagnostic>> {
        let Some(entry) = self.entries.get(id) else {
            return Err(vec![SchemaDiagnostic {
                instance_path: String::new(),
                message: format!("the catalog has no schema {id:?}"),
            }]);
        };
        if entry.validator.is_valid(instance) {
            return Ok(());
        }
        Err(entry
            .validator
            .iter_errors(instance)
            .map(|error| SchemaDiagnostic {
                instance_path: error.instance_path().to_string(),
                message: sentence(&error.to_string()),
            })
            .collect())
    }

    /// The string values of `instance`, valid against schema `id`, that the schema marks as naming a file of the
    /// artifact (`"format": "metewand-file"`), each with its JSON pointer, in document order of the pointers.
    ///
    /// The marks are read from the evaluation's annotations, so a mark reached through `$ref`, `items` or
    /// `additionalProperties` counts like a property's own.
    pub fn named_files(&self, id: &str, instance: &Value) -> Vec<(String, String)> {
        let Some(entry) = self.entries.get(id) else { return Vec::new() };
        let evaluation = entry.validator.evaluate(instance);
        let mut named: Vec<(String, String)> = evaluation
            .iter_annotations()
            .filter(|entry| {
                entry.schema_location.ends_with("/format") && entry.annotations.value() == &Value::from(FILE_FORMAT)
            })
            .filter_map(|entry| {
                let pointer = entry.instance_location.to_string();
                let value = instance.pointer(&pointer)?.as_str()?.to_owned();
                Some((pointer, value))
            })
            .collect();
        named.sort();
        named.dedup();
        named
    }

    /// The named schemas and every schema reachable from them through `$ref`, each under its id: the `schemas`
    /// member of the identity preimages. Ids outside the catalog are left out.
    pub fn closure<'a>(&self, roots: impl IntoIterator<Item = &'a str>) -> BTreeMap<String, Value> {
        let mut found = BTreeMap::new();
        let mut pending: Vec<&str> = roots.into_iter().collect();
        while let Some(id) = pending.pop() {
            if found.contains_key(id) {
                continue;
            }
            if let Some(entry) = self.entries.get(id) {
                found.insert(id.to_owned(), entry.document.clone());
                pending.extend(entry.references.iter().map(String::as_str));
            }
        }
        found
    }
}

struct Pending {
    id: String,
    document: Value,
    origin: SchemaOrigin,
    /// The document's text, to turn JSON pointers into lines and columns (absent for inline schemas).
    text: Option<Vec<u8>>,
}

impl Pending {
    fn location(&self, pointer: &str) -> Location {
        let file = match &self.origin {
            SchemaOrigin::Inline { location } => return location.clone(),
            SchemaOrigin::Embedded { path } => PathBuf::from(path),
            SchemaOrigin::File { path } => path.clone(),
        };
        // A document carried over from a built catalog has no text: it was checked then, and is named without a
        // position.
        let position = self.text.as_ref().map(|text| line_column(text, locate_pointer(text, pointer)));
        Location { file, position }
    }
}

/// Collects catalog documents and checks them together.
pub(crate) struct CatalogBuilder {
    pending: Vec<Pending>,
}

impl CatalogBuilder {
    /// A builder holding Metewand's embedded public schemas.
    pub(crate) fn new() -> CatalogBuilder {
        let pending = metewand_protocol::schema::ALL
            .iter()
            .map(|schema| Pending {
                id: schema.id.to_owned(),
                document: metewand_protocol::parse(schema.bytes).expect("the embedded schemas are in the JSON domain"),
                origin: SchemaOrigin::Embedded { path: schema.path },
                text: Some(schema.bytes.to_vec()),
            })
            .collect();
        CatalogBuilder { pending }
    }

    /// A builder holding every document of `catalog`, to which an external folder's schemas are added before the
    /// catalog is built again (the documents already checked pass their checks again unchanged).
    pub(crate) fn extending(catalog: &SchemaCatalog) -> CatalogBuilder {
        let pending = catalog
            .entries
            .iter()
            .map(|(id, entry)| Pending {
                id: id.clone(),
                document: entry.document.clone(),
                origin: entry.origin.clone(),
                text: None,
            })
            .collect();
        CatalogBuilder { pending }
    }

    fn find(&self, id: &str) -> Option<&Pending> {
        self.pending.iter().find(|pending| pending.id == id)
    }

    /// Adds a repository schema file, given its path relative to the repository and its bytes; returns its `$id`.
    pub(crate) fn add_file(&mut self, path: PathBuf, text: Vec<u8>) -> Result<String, CheckError> {
        let document = match metewand_protocol::parse(&text) {
            Ok(document) => document,
            Err(error) => {
                let position = Some(line_column(&text, error.offset()));
                return Err(CheckError::new(Location { file: path, position }, CheckErrorKind::Json(error)));
            }
        };
        let mut pending =
            Pending { id: String::new(), document, origin: SchemaOrigin::File { path }, text: Some(text) };
        let fail = |pending: &Pending, pointer: &str, message: String| {
            Err(CheckError::new(pending.location(pointer), CheckErrorKind::SchemaId { message }))
        };
        let Some(object) = pending.document.as_object() else {
            return fail(&pending, "", "a schema file must hold a JSON object with an $id".to_owned());
        };
        let id = match object.get("$id") {
            Some(Value::String(id)) => id.clone(),
            Some(_) => return fail(&pending, "/$id", "$id must be a string".to_owned()),
            None => return fail(&pending, "", "a schema file must declare its $id".to_owned()),
        };
        if let Err(message) = check_file_id(&id) {
            return fail(&pending, "/$id", message);
        }
        check_draft(&pending)?;
        if let Some(first) = self.find(&id) {
            let kind = CheckErrorKind::DuplicateSchemaId { id: id.clone(), first: first.origin.to_string() };
            return Err(CheckError::new(pending.location("/$id"), kind));
        }
        pending.id = id.clone();
        self.pending.push(pending);
        Ok(id)
    }

    /// Adds an inline schema written at `location`, returning its id.
    pub(crate) fn add_inline(&mut self, document: Value, location: Location) -> Result<String, CheckError> {
        let pending = Pending {
            id: String::new(),
            document,
            origin: SchemaOrigin::Inline { location: location.clone() },
            text: None,
        };
        if pending.document.get("$id").is_some() {
            let message =
                "an inline schema cannot declare $id; put the schema in a schema file and name its id".to_owned();
            return Err(CheckError::new(location, CheckErrorKind::SchemaId { message }));
        }
        check_draft(&pending)?;
        let id = SchemaCatalog::inline_id(&pending.document);
        if self.find(&id).is_none() {
            self.pending.push(Pending { id: id.clone(), ..pending });
        }
        Ok(id)
    }

    /// Resolves every reference, checks every document against the draft 2020-12 meta-schema and compiles each
    /// document once.
    pub(crate) fn build(self) -> Result<SchemaCatalog, CheckError> {
        // Every resource (documents and embedded `$id`s) and anchor, keyed by absolute URI.
        let mut resources: BTreeMap<String, (usize, String)> = BTreeMap::new();
        let mut anchors: BTreeSet<(String, String)> = BTreeSet::new();
        let mut references: Vec<Reference> = Vec::new();
        for (index, pending) in self.pending.iter().enumerate() {
            resources.insert(pending.id.clone(), (index, String::new()));
        }
        for (index, pending) in self.pending.iter().enumerate() {
            let mut scan =
                Scan { index, resources: &mut resources, anchors: &mut anchors, references: &mut references };
            scan.schema(&pending.document, &pending.id, String::new(), &self.pending)?;
        }
        let mut edges: Vec<BTreeSet<String>> = vec![BTreeSet::new(); self.pending.len()];
        for reference in &references {
            let pending = &self.pending[reference.index];
            let target = resolve_reference(reference, &resources, &anchors, &self.pending).map_err(|problem| {
                let kind = CheckErrorKind::UnresolvedRef { reference: reference.text.clone(), problem };
                CheckError::new(pending.location(&reference.pointer), kind)
            })?;
            if target != reference.index {
                edges[reference.index].insert(self.pending[target].id.clone());
            }
        }
        let meta = jsonschema::draft202012::meta::validator();
        for pending in &self.pending {
            if let Some(error) = meta.iter_errors(&pending.document).next() {
                let pointer = error.instance_path().to_string();
                let kind = CheckErrorKind::InvalidSchema {
                    id: pending.id.clone(),
                    message: format!(
                        "at {}: {}",
                        if pointer.is_empty() { "the root" } else { &pointer },
                        sentence(&error.to_string())
                    ),
                };
                return Err(CheckError::new(pending.location(&pointer), kind));
            }
        }
        let registry = jsonschema::Registry::new()
            .extend(
                self.pending.iter().map(|p| (p.id.as_str(), Draft::Draft202012.create_resource(p.document.clone()))),
            )
            .and_then(jsonschema::RegistryBuilder::prepare)
            .map_err(|error| {
                let kind = CheckErrorKind::InvalidSchema { id: String::new(), message: error.to_string() };
                CheckError::new(self.pending[0].location(""), kind)
            })?;
        let mut entries = BTreeMap::new();
        for (pending, references) in self.pending.into_iter().zip(edges) {
            let validator = jsonschema::options()
                .with_draft(Draft::Draft202012)
                .with_registry(&registry)
                .with_base_uri(pending.id.clone())
                .build(&pending.document)
                .map_err(|error| {
                    let kind =
                        CheckErrorKind::InvalidSchema { id: pending.id.clone(), message: sentence(&error.to_string()) };
                    CheckError::new(pending.location(""), kind)
                })?;
            entries.insert(
                pending.id,
                Entry { document: pending.document, origin: pending.origin, validator, references },
            );
        }
        Ok(SchemaCatalog { entries })
    }
}

/// A file's `$id` must be an absolute URI without a fragment, outside Metewand's own `urn:metewand:` namespace.
fn check_file_id(id: &str) -> Result<(), String> {
    if id.contains('#') {
        return Err(format!("schema id {id:?} must not have a fragment"));
    }
    let scheme_end = id.find(':').filter(|&end| {
        end > 0
            && id.as_bytes()[0].is_ascii_alphabetic()
            && id[..end].bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
    });
    if scheme_end.is_none() || jsonschema::uri::from_str(id).is_err() {
        return Err(format!("schema id {id:?} must be an absolute URI"));
    }
    if id.starts_with("urn:metewand:") {
        return Err(format!("schema id {id:?} is in the urn:metewand: namespace, which Metewand reserves"));
    }
    Ok(())
}

/// A catalog document may declare `$schema` only as draft 2020-12.
fn check_draft(pending: &Pending) -> Result<(), CheckError> {
    match pending.document.get("$schema") {
        None => Ok(()),
        Some(Value::String(uri)) if uri.trim_end_matches('#') == DRAFT_2020_12 => Ok(()),
        Some(other) => {
            let kind = CheckErrorKind::InvalidSchema {
                id: pending.id.clone(),
                message: format!("$schema must be {DRAFT_2020_12:?} or absent, not {other}"),
            };
            Err(CheckError::new(pending.location("/$schema"), kind))
        }
    }
}

/// One `$ref` or `$dynamicRef`: in which document, at which pointer, against which base.
struct Reference {
    index: usize,
    pointer: String,
    base: String,
    text: String,
}

struct Scan<'a> {
    index: usize,
    resources: &'a mut BTreeMap<String, (usize, String)>,
    anchors: &'a mut BTreeSet<(String, String)>,
    references: &'a mut Vec<Reference>,
}

/// Keywords whose value is one subschema.
const SINGLE: &[&str] = &[
    "additionalItems",
    "additionalProperties",
    "contains",
    "contentSchema",
    "else",
    "if",
    "items",
    "not",
    "propertyNames",
    "then",
    "unevaluatedItems",
    "unevaluatedProperties",
];
/// Keywords whose value is an array of subschemas.
const ARRAY: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
/// Keywords whose value is an object of subschemas.
const MAP: &[&str] = &["$defs", "definitions", "dependentSchemas", "patternProperties", "properties"];

fn escape_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

impl Scan<'_> {
    fn schema(&mut self, value: &Value, base: &str, pointer: String, all: &[Pending]) -> Result<(), CheckError> {
        let Value::Object(object) = value else { return Ok(()) };
        let mut base = base.to_owned();
        if !pointer.is_empty()
            && let Some(Value::String(id)) = object.get("$id")
        {
            let resolved = resolve(&base, id).map_err(|message| {
                let kind = CheckErrorKind::SchemaId { message: format!("$id {id:?} is not a valid URI: {message}") };
                CheckError::new(all[self.index].location(&format!("{pointer}/$id")), kind)
            })?;
            let (without_fragment, _) = split_fragment(&resolved);
            if let Some((other, _)) = self.resources.get(without_fragment) {
                let kind = CheckErrorKind::DuplicateSchemaId {
                    id: without_fragment.to_owned(),
                    first: all[*other].origin.to_string(),
                };
                return Err(CheckError::new(all[self.index].location(&format!("{pointer}/$id")), kind));
            }
            self.resources.insert(without_fragment.to_owned(), (self.index, pointer.clone()));
            base = without_fragment.to_owned();
        }
        for keyword in ["$anchor", "$dynamicAnchor"] {
            if let Some(Value::String(anchor)) = object.get(keyword) {
                self.anchors.insert((base.clone(), anchor.clone()));
            }
        }
        for keyword in ["$ref", "$dynamicRef"] {
            if let Some(Value::String(text)) = object.get(keyword) {
                self.references.push(Reference {
                    index: self.index,
                    pointer: format!("{pointer}/{keyword}"),
                    base: base.clone(),
                    text: text.clone(),
                });
            }
        }
        for (keyword, child) in object {
            let here = format!("{pointer}/{}", escape_token(keyword));
            if SINGLE.contains(&keyword.as_str()) {
                match child {
                    Value::Array(items) => {
                        for (i, item) in items.iter().enumerate() {
                            self.schema(item, &base, format!("{here}/{i}"), all)?;
                        }
                    }
                    _ => self.schema(child, &base, here, all)?,
                }
            } else if ARRAY.contains(&keyword.as_str()) {
                if let Value::Array(items) = child {
                    for (i, item) in items.iter().enumerate() {
                        self.schema(item, &base, format!("{here}/{i}"), all)?;
                    }
                }
            } else if MAP.contains(&keyword.as_str())
                && let Value::Object(members) = child
            {
                for (name, item) in members {
                    self.schema(item, &base, format!("{here}/{}", escape_token(name)), all)?;
                }
            }
        }
        Ok(())
    }
}

fn resolve(base: &str, reference: &str) -> Result<String, String> {
    let base = jsonschema::uri::from_str(base).map_err(|error| error.to_string())?;
    let resolved = jsonschema::uri::resolve_against(&base.borrow(), reference).map_err(|error| error.to_string())?;
    Ok(resolved.as_str().to_owned())
}

fn split_fragment(uri: &str) -> (&str, &str) {
    uri.split_once('#').unwrap_or((uri, ""))
}

/// Decodes `%XX` escapes in a fragment.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The index of the document a reference lands in.
fn resolve_reference(
    reference: &Reference,
    resources: &BTreeMap<String, (usize, String)>,
    anchors: &BTreeSet<(String, String)>,
    all: &[Pending],
) -> Result<usize, UnresolvedRef> {
    let resolved = resolve(&reference.base, &reference.text).map_err(|message| UnresolvedRef::Malformed { message })?;
    let (target, fragment) = split_fragment(&resolved);
    let Some((index, pointer)) = resources.get(target) else {
        return Err(UnresolvedRef::OutsideCatalog { target: target.to_owned() });
    };
    if fragment.is_empty() {
        return Ok(*index);
    }
    let missing = || UnresolvedRef::NoSuchFragment { target: target.to_owned(), fragment: fragment.to_owned() };
    let decoded = percent_decode(fragment).ok_or_else(missing)?;
    if decoded.starts_with('/') {
        let resource = all[*index].document.pointer(pointer).ok_or_else(missing)?;
        resource.pointer(&decoded).ok_or_else(missing)?;
    } else if !anchors.contains(&(target.to_owned(), decoded)) {
        return Err(missing());
    }
    Ok(*index)
}
