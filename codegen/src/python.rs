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
//! - `DEFINITIONS` maps each class's `$defs` name (`None` for the root) to the class.
//!
//! The checks themselves are hand-written in `metewand._strict`, so the generated text stays declarative. The
//! generator understands exactly the schema subset Metewand's schemas use; anything else is an
//! [`Error::Unsupported`] that names the keyword, so a schema change can never silently loosen the models.

use std::collections::{BTreeMap, BTreeSet};

use heck::{ToShoutySnakeCase, ToUpperCamelCase};
use serde_json::{Map, Value};

use crate::imports::Imports;
use crate::{Error, GeneratedFile, REGENERATE_COMMAND, Schema, pointer_join, wrap};

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
    "check_model",
    "check_object",
    "check_string",
    "literal_alias",
    "_LITERAL_ALIASES",
];

/// Python's keywords, which cannot name a constructor argument.
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
}

impl Ty {
    /// Whether the value is a plain Python scalar: stored as decoded, encoded as stored, hashable.
    fn is_scalar(&self) -> bool {
        matches!(
            self,
            Ty::String { .. } | Ty::Enum { .. } | Ty::Integer { .. } | Ty::Boolean | Ty::Const(_) | Ty::Named { .. }
        )
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
    name: String,
    ty: Ty,
    required: bool,
    doc: Option<String>,
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
}

impl<'a> Module<'a> {
    fn parse(
        schema: &'a Schema,
        imported: &BTreeMap<String, String>,
        done: &BTreeMap<String, Module<'_>>,
    ) -> Result<Module<'a>, Error> {
        let root = schema.value.as_object().ok_or_else(|| schema.unsupported("", "a schema must be a JSON object"))?;
        let defs = match root.get("$defs") {
            None => Map::new(),
            Some(Value::Object(defs)) => defs.clone(),
            Some(_) => return Err(schema.unsupported("/$defs", "$defs must be an object")),
        };
        let mut module = Module {
            schema,
            defs,
            kinds: BTreeMap::new(),
            resolved: BTreeMap::new(),
            resolving: BTreeSet::new(),
            enums: BTreeMap::new(),
            helpers: BTreeMap::new(),
            classes: Vec::new(),
            names: RESERVED_NAMES.iter().map(|name| (*name).to_owned()).collect(),
            imported: BTreeMap::new(),
            imports: BTreeMap::new(),
            type_imports: BTreeMap::new(),
        };
        for (name, home) in imported {
            let owner = &done[home];
            let ty = match &owner.kinds[name] {
                DefKind::Class(class) => Ty::Model(class.clone()),
                DefKind::JsonObject => Ty::JsonObject,
                DefKind::Value => owner.resolved[name].clone(),
            };
            module.kinds.insert(name.clone(), owner.kinds[name].clone());
            module.imported.insert(name.clone(), (home.clone(), ty));
        }
        for key in ["$schema", "$id"] {
            if root.get(key).is_some_and(|value| !value.is_string()) {
                return Err(schema.unsupported(&pointer_join("", key), format!("{key} must be a string")));
            }
        }
        check_annotations(schema, "", root)?;

        // Sorted here, since serde_json keeps insertion order when another crate enables preserve_order.
        let mut names: Vec<String> = module.defs.keys().filter(|name| !imported.contains_key(*name)).cloned().collect();
        names.sort();
        for name in &names {
            let pointer = pointer_join("/$defs", name);
            if !is_snake_identifier(name) {
                return Err(schema.unsupported(&pointer, "a definition name must be lowercase snake_case ASCII"));
            }
            let def = &module.defs[name];
            let kind = match (def.get("type"), def.get("properties")) {
                (Some(Value::String(t)), Some(_)) if t == "object" => DefKind::Class(name.to_upper_camel_case()),
                (Some(Value::String(t)), None) if t == "object" => DefKind::JsonObject,
                _ => DefKind::Value,
            };
            module.kinds.insert(name.clone(), kind);
        }

        match root.get("type") {
            Some(Value::String(t)) if t == "object" => {
                let name = schema.name.to_upper_camel_case();
                let class = module.parse_class(root, "", &name, None)?;
                module.classes.push(class);
            }
            _ => module.check_root_union(root)?,
        }

        for name in &names {
            let pointer = pointer_join("/$defs", name);
            let def = module.defs[name].clone();
            match module.kinds[name].clone() {
                DefKind::Class(class_name) => {
                    let object = def.as_object().cloned().unwrap_or_default();
                    let class = module.parse_class(&object, &pointer, &class_name, Some(name))?;
                    module.classes.push(class);
                }
                DefKind::JsonObject => {
                    module.parse_type(&def, &pointer, name, None)?;
                }
                DefKind::Value => {
                    module.resolve_value_def(name)?;
                }
            }
        }
        Ok(module)
    }

    fn unsupported(&self, pointer: &str, reason: impl std::fmt::Display) -> Error {
        self.schema.unsupported(pointer, reason)
    }

    /// Claims a module-level name, refusing a second definition that would generate the same one.
    fn claim(&mut self, name: &str, pointer: &str) -> Result<(), Error> {
        if self.names.insert(name.to_owned()) {
            Ok(())
        } else {
            Err(self.unsupported(pointer, format!("the generated Python name {name} is already taken")))
        }
    }

    fn title(&self) -> String {
        let root = self.schema.value.as_object();
        let text = root.and_then(|root| root.get("title").or_else(|| root.get("description")));
        text.and_then(Value::as_str).unwrap_or(&self.schema.name).to_owned()
    }

    /// A root that is not an object: allowed only as an `anyOf` or `oneOf` of local references, which documents the
    /// definitions without generating anything, since each message is decoded as the definition its context expects.
    fn check_root_union(&mut self, root: &Map<String, Value>) -> Result<(), Error> {
        if !root.contains_key("anyOf") && !root.contains_key("oneOf") {
            // A schema of shared definitions only, which other schemas refer to.
            return check_keywords(self.schema, "", root, &["$schema", "$id", "$defs"]);
        }
        let keyword = if root.contains_key("anyOf") { "anyOf" } else { "oneOf" };
        let Some(Value::Array(branches)) = root.get(keyword) else {
            return Err(self.unsupported("", "the root must be an object type or an anyOf of local $refs"));
        };
        let allowed = [keyword, "$schema", "$id", "$defs"];
        check_keywords(self.schema, "", root, &allowed)?;
        for (index, branch) in branches.iter().enumerate() {
            let pointer = format!("/{keyword}/{index}");
            let target = branch.as_object().filter(|b| b.len() == 1).and_then(|b| b.get("$ref"));
            let Some(target) = target else {
                return Err(self.unsupported(&pointer, "each branch of the root union must be a lone $ref"));
            };
            self.def_name(target, &pointer_join(&pointer, "$ref"))?;
        }
        Ok(())
    }

    /// The definition a local `$ref` names.
    fn def_name(&self, target: &Value, pointer: &str) -> Result<String, Error> {
        let name = target.as_str().and_then(|target| target.strip_prefix("#/$defs/"));
        match name {
            Some(name) if self.defs.contains_key(name) => Ok(name.to_owned()),
            Some(_) => Err(self.unsupported(pointer, format!("{target} names no definition"))),
            None => Err(self.unsupported(pointer, "a $ref must be a local reference \"#/$defs/<name>\"")),
        }
    }

    fn parse_class(
        &mut self,
        object: &Map<String, Value>,
        pointer: &str,
        name: &str,
        def: Option<&str>,
    ) -> Result<Class, Error> {
        let mut allowed = vec!["type", "properties", "required", "additionalProperties"];
        if def.is_none() {
            allowed.extend(["$schema", "$id", "$defs"]);
        }
        check_keywords(self.schema, pointer, object, &allowed)?;
        if object.get("additionalProperties") != Some(&Value::Bool(false)) {
            return Err(self.unsupported(
                pointer,
                "an object with properties must have additionalProperties: false, or the models could not refuse \
                 unknown members",
            ));
        }
        let properties_pointer = pointer_join(pointer, "properties");
        let Some(Value::Object(properties)) = object.get("properties") else {
            return Err(self.unsupported(&properties_pointer, "properties must be an object"));
        };
        let required = self.required(object, pointer, properties)?;
        self.claim(name, pointer)?;

        let snake = def.map_or_else(|| self.schema.name.replace('-', "_"), str::to_owned);
        let mut names: Vec<&String> = properties.keys().collect();
        names.sort_by_key(|name| name.encode_utf16().collect::<Vec<u16>>());
        let mut fields = Vec::with_capacity(names.len());
        for property in names {
            let property_pointer = pointer_join(&properties_pointer, property);
            if !is_snake_identifier(property)
                || PYTHON_KEYWORDS.contains(&property.as_str())
                || RESERVED_PROPERTIES.contains(&property.as_str())
            {
                return Err(self.unsupported(
                    &property_pointer,
                    "a property name must be a lowercase snake_case Python identifier that is not a keyword, \
                     self, from_dict or to_dict",
                ));
            }
            let schema = &properties[property];
            let ty = self.parse_type(schema, &property_pointer, &format!("{snake}_{property}"), None)?;
            let is_required = required.contains(property);
            if !is_required && matches!(ty, Ty::Nullable(_)) {
                return Err(self.unsupported(
                    &property_pointer,
                    "an optional property cannot also be nullable: absent and null would both read as None; make \
                     it required or drop the null",
                ));
            }
            fields.push(Field { name: property.clone(), ty, required: is_required, doc: self.describe(schema, 0) });
        }
        let doc = match def {
            Some(_) => description(object),
            None => {
                let title = object.get("title").and_then(Value::as_str).map(sentence);
                match (title, description(object)) {
                    (Some(title), Some(text)) => Some(format!("{title}\n\n{text}")),
                    (title, text) => title.or(text),
                }
            }
        };
        Ok(Class { name: name.to_owned(), def: def.map(str::to_owned), doc, fields })
    }

    fn required(
        &self,
        object: &Map<String, Value>,
        pointer: &str,
        properties: &Map<String, Value>,
    ) -> Result<BTreeSet<String>, Error> {
        let pointer = pointer_join(pointer, "required");
        let mut required = BTreeSet::new();
        let items = match object.get("required") {
            None => return Ok(required),
            Some(Value::Array(items)) => items,
            Some(_) => return Err(self.unsupported(&pointer, "required must be an array of property names")),
        };
        for item in items {
            match item.as_str() {
                Some(name) if properties.contains_key(name) && required.insert(name.to_owned()) => {}
                _ => {
                    return Err(self.unsupported(&pointer, format!("{item} is not a distinct name among properties")));
                }
            }
        }
        Ok(required)
    }

    /// The documentation of a property: its own description, else that of what it refers to.
    fn describe(&self, node: &Value, depth: usize) -> Option<String> {
        let object = node.as_object()?;
        if let Some(text) = description(object) {
            return Some(text);
        }
        if depth > 8 {
            return None;
        }
        if let Some(name) = object.get("$ref").and_then(Value::as_str).and_then(|t| t.strip_prefix("#/$defs/")) {
            return self.defs.get(name).and_then(|def| self.describe(def, depth + 1));
        }
        let branches = object.get("oneOf").and_then(Value::as_array)?;
        branches
            .iter()
            .filter(|b| b.get("type") != Some(&Value::from("null")))
            .find_map(|b| self.describe(b, depth + 1))
    }

    /// Parses a subschema that is not a class. `hint` names any private constant or helper it needs; `def` is the
    /// definition's name when `node` is a `$defs` entry itself, so that its enum gets a public name.
    fn parse_type(&mut self, node: &Value, pointer: &str, hint: &str, def: Option<&str>) -> Result<Ty, Error> {
        let object = node.as_object().ok_or_else(|| {
            self.unsupported(pointer, "a subschema must be a JSON object (boolean schemas are not supported)")
        })?;
        check_annotations(self.schema, pointer, object)?;
        if let Some(target) = object.get("$ref") {
            check_keywords(self.schema, pointer, object, &["$ref"])?;
            let name = self.def_name(target, &pointer_join(pointer, "$ref"))?;
            return self.resolve_ref(&name);
        }
        if let Some(branches) = object.get("oneOf") {
            check_keywords(self.schema, pointer, object, &["oneOf"])?;
            return self.parse_nullable(branches, &pointer_join(pointer, "oneOf"), hint);
        }
        let kind = match object.get("type") {
            Some(Value::String(kind)) => kind.as_str(),
            Some(_) => return Err(self.unsupported(&pointer_join(pointer, "type"), "type must be a single string")),
            None => {
                check_keywords(self.schema, pointer, object, &["const"])?;
                let Some(value) = object.get("const") else {
                    return Err(self.unsupported(pointer, "a subschema needs type, const, $ref or a nullable oneOf"));
                };
                return Ok(Ty::Const(self.parse_const(value, &pointer_join(pointer, "const"), None)?));
            }
        };
        match kind {
            "string" => self.parse_string(object, pointer, hint, def),
            "integer" => {
                check_keywords(self.schema, pointer, object, &["type", "minimum", "maximum", "const"])?;
                if let Some(value) = object.get("const") {
                    check_keywords(self.schema, pointer, object, &["type", "const"])?;
                    return Ok(Ty::Const(self.parse_const(value, &pointer_join(pointer, "const"), Some(kind))?));
                }
                let minimum = self.bound(object, pointer, "minimum")?;
                let maximum = self.bound(object, pointer, "maximum")?;
                if let (Some(low), Some(high)) = (minimum, maximum)
                    && low > high
                {
                    return Err(self.unsupported(pointer, "minimum is greater than maximum: no integer is valid"));
                }
                Ok(Ty::Integer { minimum, maximum })
            }
            "boolean" => {
                check_keywords(self.schema, pointer, object, &["type", "const"])?;
                match object.get("const") {
                    Some(value) => {
                        Ok(Ty::Const(self.parse_const(value, &pointer_join(pointer, "const"), Some(kind))?))
                    }
                    None => Ok(Ty::Boolean),
                }
            }
            "array" => self.parse_array(object, pointer, hint),
            "object" => {
                if object.contains_key("properties") {
                    return Err(self.unsupported(
                        pointer,
                        "an object with properties must be a $defs entry (referenced with $ref), so that it gets a \
                         class",
                    ));
                }
                check_keywords(self.schema, pointer, object, &["type"])?;
                Ok(Ty::JsonObject)
            }
            other => Err(self.unsupported(&pointer_join(pointer, "type"), format!("type {other:?} is not supported"))),
        }
    }

    fn parse_string(
        &mut self,
        object: &Map<String, Value>,
        pointer: &str,
        hint: &str,
        def: Option<&str>,
    ) -> Result<Ty, Error> {
        check_keywords(self.schema, pointer, object, &["type", "minLength", "pattern", "enum", "const"])?;
        if let Some(value) = object.get("const") {
            check_keywords(self.schema, pointer, object, &["type", "const"])?;
            return Ok(Ty::Const(self.parse_const(value, &pointer_join(pointer, "const"), Some("string"))?));
        }
        if let Some(values) = object.get("enum") {
            check_keywords(self.schema, pointer, object, &["type", "enum"])?;
            let enum_pointer = pointer_join(pointer, "enum");
            let values = match values.as_array() {
                Some(values) if !values.is_empty() => values,
                _ => return Err(self.unsupported(&enum_pointer, "enum must be a nonempty array of strings")),
            };
            let mut strings: Vec<String> = Vec::with_capacity(values.len());
            for value in values {
                match value.as_str() {
                    Some(text) if !strings.iter().any(|seen| seen == text) => strings.push(text.to_owned()),
                    _ => return Err(self.unsupported(&enum_pointer, format!("{value} is not a distinct string"))),
                }
            }
            let (constant, alias) = match def {
                Some(name) => (format!("{}_VALUES", name.to_shouty_snake_case()), Some(name.to_upper_camel_case())),
                None => (format!("_{}_VALUES", hint.to_shouty_snake_case()), None),
            };
            if let Some(existing) = self.enums.get(&constant) {
                if existing.values != strings || existing.alias != alias {
                    return Err(self.unsupported(pointer, format!("the generated Python name {constant} is taken")));
                }
            } else {
                self.claim(&constant, pointer)?;
                if let Some(alias) = &alias {
                    self.claim(alias, pointer)?;
                }
                let decl = EnumDecl { values: strings.clone(), alias: alias.clone(), doc: description(object) };
                self.enums.insert(constant.clone(), decl);
            }
            return Ok(Ty::Enum { values: strings, constant, alias });
        }
        let min_length = match object.get("minLength") {
            None => 0,
            Some(value) => value.as_u64().ok_or_else(|| {
                self.unsupported(&pointer_join(pointer, "minLength"), "minLength must be a nonnegative integer")
            })?,
        };
        let pattern = match object.get("pattern") {
            None => None,
            Some(value) => {
                let pattern_pointer = pointer_join(pointer, "pattern");
                let text =
                    value.as_str().ok_or_else(|| self.unsupported(&pattern_pointer, "pattern must be a string"))?;
                check_pattern(text).map_err(|reason| self.unsupported(&pattern_pointer, reason))?;
                Some(text.to_owned())
            }
        };
        Ok(Ty::String { min_length, pattern })
    }

    fn parse_array(&mut self, object: &Map<String, Value>, pointer: &str, hint: &str) -> Result<Ty, Error> {
        check_keywords(self.schema, pointer, object, &["type", "items", "minItems", "uniqueItems"])?;
        let items_pointer = pointer_join(pointer, "items");
        let Some(items) = object.get("items") else {
            return Err(self.unsupported(pointer, "an array must say what its items are with items"));
        };
        let items_hint = format!("{hint}_item");
        let mut items = self.parse_type(items, &items_pointer, &items_hint, None)?;
        match &items {
            Ty::Array { .. } | Ty::Nullable(_) => {
                return Err(
                    self.unsupported(&items_pointer, "arrays of arrays and arrays of nullable items are not supported")
                );
            }
            // check_array calls one function per item, so an inline constrained scalar gets a function of its own.
            Ty::String { min_length, pattern } if *min_length > 0 || pattern.is_some() => {
                items = self.inline_helper(&items_hint, items, &items_pointer, description(object))?;
            }
            Ty::Integer { minimum, maximum } if minimum.is_some() || maximum.is_some() => {
                items = self.inline_helper(&items_hint, items, &items_pointer, description(object))?;
            }
            _ => {}
        }
        let min_items = match object.get("minItems") {
            None => 0,
            Some(value) => value.as_u64().ok_or_else(|| {
                self.unsupported(&pointer_join(pointer, "minItems"), "minItems must be a nonnegative integer")
            })?,
        };
        let unique = match object.get("uniqueItems") {
            None => false,
            Some(Value::Bool(unique)) => *unique,
            Some(_) => {
                return Err(self.unsupported(&pointer_join(pointer, "uniqueItems"), "uniqueItems must be a boolean"));
            }
        };
        if unique && !items.is_scalar() {
            return Err(self.unsupported(
                &pointer_join(pointer, "uniqueItems"),
                "uniqueItems is supported only for arrays of strings, integers and booleans",
            ));
        }
        Ok(Ty::Array { items: Box::new(items), min_items, unique })
    }

    fn inline_helper(&mut self, hint: &str, ty: Ty, pointer: &str, doc: Option<String>) -> Result<Ty, Error> {
        let helper = format!("_{hint}");
        self.claim(&helper, pointer)?;
        self.helpers.insert(helper.clone(), Helper { ty: ty.clone(), doc });
        Ok(Ty::Named { helper, target: Box::new(ty) })
    }

    fn parse_nullable(&mut self, branches: &Value, pointer: &str, hint: &str) -> Result<Ty, Error> {
        let is_null = |branch: &Value| {
            branch.as_object().is_some_and(|b| {
                b.get("type") == Some(&Value::from("null"))
                    && b.keys().all(|k| k == "type" || ANNOTATIONS.contains(&k.as_str()))
            })
        };
        let shape = "oneOf is supported only as [<schema>, {\"type\": \"null\"}]";
        let Some(branches) = branches.as_array().filter(|b| b.len() == 2) else {
            return Err(self.unsupported(pointer, shape));
        };
        let (index, branch) = match (is_null(&branches[0]), is_null(&branches[1])) {
            (false, true) => (0, &branches[0]),
            (true, false) => (1, &branches[1]),
            _ => return Err(self.unsupported(pointer, shape)),
        };
        let branch_pointer = pointer_join(pointer, &index.to_string());
        match self.parse_type(branch, &branch_pointer, hint, None)? {
            Ty::Nullable(_) => Err(self.unsupported(&branch_pointer, "a nullable type cannot be nullable again")),
            ty => Ok(Ty::Nullable(Box::new(ty))),
        }
    }

    fn parse_const(&self, value: &Value, pointer: &str, kind: Option<&str>) -> Result<Const, Error> {
        let constant = match value {
            Value::String(text) => Const::String(text.clone()),
            Value::Bool(flag) => Const::Boolean(*flag),
            Value::Number(n) => match n.as_i64() {
                Some(n) => Const::Integer(n),
                None => return Err(self.unsupported(pointer, "a numeric const must be an integer")),
            },
            _ => return Err(self.unsupported(pointer, "const must be a string, a boolean or an integer")),
        };
        let matches = match (&constant, kind) {
            (_, None) => true,
            (Const::String(_), Some(kind)) => kind == "string",
            (Const::Boolean(_), Some(kind)) => kind == "boolean",
            (Const::Integer(_), Some(kind)) => kind == "integer",
        };
        if !matches {
            return Err(self.unsupported(pointer, "const does not have the subschema's type"));
        }
        Ok(constant)
    }

    fn bound(&self, object: &Map<String, Value>, pointer: &str, keyword: &str) -> Result<Option<i64>, Error> {
        match object.get(keyword) {
            None => Ok(None),
            Some(value) => value.as_i64().map(Some).ok_or_else(|| {
                self.unsupported(&pointer_join(pointer, keyword), format!("{keyword} must be an integer"))
            }),
        }
    }

    fn resolve_ref(&mut self, name: &str) -> Result<Ty, Error> {
        if let Some((home, ty)) = self.imported.get(name).cloned() {
            self.import(&home, &ty, &pointer_join("/$defs", name))?;
            return Ok(ty);
        }
        match self.kinds[name].clone() {
            DefKind::Class(class) => Ok(Ty::Model(class)),
            DefKind::JsonObject => Ok(Ty::JsonObject),
            DefKind::Value => self.resolve_value_def(name),
        }
    }

    /// Notes the names `ty`, the owner's type of a definition of the schema `home`, needs from the owner's module.
    fn import(&mut self, home: &str, ty: &Ty, pointer: &str) -> Result<(), Error> {
        let (runtime, annotations): (Vec<&str>, Vec<&str>) = match ty {
            Ty::Model(class) => (vec![class], vec![]),
            Ty::Named { helper, target } => match target.as_ref() {
                Ty::Enum { alias: Some(alias), .. } => (vec![helper], vec![alias]),
                _ => (vec![helper], vec![]),
            },
            Ty::Enum { constant, alias, .. } => (vec![constant], alias.iter().map(String::as_str).collect()),
            Ty::Array { items, .. } | Ty::Nullable(items) => return self.import(home, items, pointer),
            _ => (vec![], vec![]),
        };
        for (names, table) in [(runtime, &mut self.imports), (annotations, &mut self.type_imports)] {
            for name in names {
                if table.entry(home.to_owned()).or_default().insert(name.to_owned())
                    && !self.names.insert(name.to_owned())
                {
                    return Err(self
                        .schema
                        .unsupported(pointer, format!("the generated Python name {name} is already taken")));
                }
            }
        }
        Ok(())
    }

    /// A definition that is neither a class nor a free-form object: a named scalar gets a checking function; an
    /// array or a nullable is written out wherever it is used.
    fn resolve_value_def(&mut self, name: &str) -> Result<Ty, Error> {
        if let Some(ty) = self.resolved.get(name) {
            return Ok(ty.clone());
        }
        let pointer = pointer_join("/$defs", name);
        if !self.resolving.insert(name.to_owned()) {
            return Err(self.unsupported(&pointer, "a definition that contains itself is not supported"));
        }
        let def = self.defs[name].clone();
        let ty = self.parse_type(&def, &pointer, name, Some(name))?;
        self.resolving.remove(name);
        let ty = if ty.is_scalar() {
            let helper = format!("_{name}");
            self.claim(&helper, &pointer)?;
            let doc = def.as_object().and_then(description);
            self.helpers.insert(helper.clone(), Helper { ty: ty.clone(), doc });
            Ty::Named { helper, target: Box::new(ty) }
        } else {
            ty
        };
        self.resolved.insert(name.to_owned(), ty.clone());
        Ok(ty)
    }
}

fn check_keywords(schema: &Schema, pointer: &str, object: &Map<String, Value>, allowed: &[&str]) -> Result<(), Error> {
    match object.keys().find(|key| !allowed.contains(&key.as_str()) && !ANNOTATIONS.contains(&key.as_str())) {
        None => Ok(()),
        Some(key) => Err(schema.unsupported(
            &pointer_join(pointer, key),
            format!("the keyword {key:?} is not supported here by the Python models"),
        )),
    }
}

fn check_annotations(schema: &Schema, pointer: &str, object: &Map<String, Value>) -> Result<(), Error> {
    for key in ANNOTATIONS {
        if object.get(*key).is_some_and(|value| !value.is_string()) {
            return Err(schema.unsupported(&pointer_join(pointer, key), format!("{key} must be a string")));
        }
    }
    Ok(())
}

fn description(object: &Map<String, Value>) -> Option<String> {
    object.get("description").and_then(Value::as_str).map(str::to_owned)
}

/// A title as the first sentence of a docstring.
fn sentence(text: &str) -> String {
    if text.ends_with(['.', '!', '?']) { text.to_owned() } else { format!("{text}.") }
}

fn is_snake_identifier(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase())
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// Appends one reference token to a JSON Pointer, escaped as RFC 6901 requires.
/// Accepts only patterns that mean the same in ECMA-262 (JSON Schema's dialect) and in Python's `re` with
/// `re.ASCII`, matched with `fullmatch`: anchored at both ends, no top-level alternation, no `.` (whose line
/// terminators differ), and only escapes whose meaning is shared.
fn check_pattern(pattern: &str) -> Result<(), String> {
    let body = pattern
        .strip_prefix('^')
        .and_then(|rest| rest.strip_suffix('$'))
        .ok_or("a pattern must be anchored with ^ at its start and $ at its end")?;
    let chars: Vec<char> = body.chars().collect();
    let mut depth = 0usize;
    let mut in_class = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_control() {
            return Err("a pattern must not contain control characters; escape them".to_owned());
        }
        if c == '\\' {
            let Some(&next) = chars.get(i + 1) else {
                return Err("a pattern must not end with a lone backslash".to_owned());
            };
            if next != 'd' && !"\\.-^$*+?()[]{}|/".contains(next) {
                return Err(format!("the escape \\{next} is not supported in patterns; use a character class"));
            }
            i += 2;
            continue;
        }
        if in_class {
            match c {
                ']' => in_class = false,
                '[' => return Err("a [ inside a character class must be escaped".to_owned()),
                '&' | '~' | '|' | '-' if chars.get(i + 1) == Some(&c) => {
                    return Err(format!(
                        "{c}{c} inside a character class means different things in ECMA-262 and Python"
                    ));
                }
                _ => {}
            }
            i += 1;
            continue;
        }
        match c {
            '[' => {
                in_class = true;
                // A leading ] is a literal in Python but closes an empty class in ECMA-262.
                let start = if chars.get(i + 1) == Some(&'^') { i + 2 } else { i + 1 };
                if chars.get(start) == Some(&']') {
                    return Err("an empty character class or a leading ] is not supported".to_owned());
                }
                i = start;
                continue;
            }
            '(' => {
                if chars.get(i + 1) == Some(&'?') && chars.get(i + 2) != Some(&':') {
                    return Err("only (?: groups are supported in patterns".to_owned());
                }
                depth += 1;
            }
            ')' => depth = depth.checked_sub(1).ok_or("unbalanced ) in pattern")?,
            '|' if depth == 0 => return Err("top-level alternation is not supported; wrap it in a group".to_owned()),
            '^' | '$' => return Err("^ and $ are supported only at the ends of a pattern".to_owned()),
            '.' => {
                return Err(
                    "an unescaped . is not supported, since its line terminators differ; use a class".to_owned()
                );
            }
            '{' => {
                let close = chars[i..].iter().position(|&c| c == '}').ok_or("unclosed { in pattern")? + i;
                let inner: String = chars[i + 1..close].iter().collect();
                let (low, high) = inner.split_once(',').unwrap_or((&inner, &inner));
                let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
                if !digits(low) || !(high.is_empty() || digits(high)) {
                    return Err(format!("the quantifier {{{inner}}} is not supported; write {{n}}, {{n,}} or {{n,m}}"));
                }
                i = close + 1;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    if in_class {
        return Err("unclosed character class in pattern".to_owned());
    }
    if depth != 0 {
        return Err("unbalanced ( in pattern".to_owned());
    }
    Ok(())
}

/// A Python string literal.
fn py_str(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            ' '..='~' => out.push(c),
            c if (c as u32) < 0x100 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// A pattern as a raw string literal where that is possible, so it reads as it does in the schema.
fn py_pattern(pattern: &str) -> String {
    let raw_safe = pattern.chars().all(|c| (' '..='~').contains(&c) && c != '"') && !pattern.ends_with('\\');
    if raw_safe { format!("r\"{pattern}\"") } else { py_str(pattern) }
}

fn escape_docstring(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' | '\t' => out.push(' '),
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32 & 0xff)),
            c => out.push(c),
        }
    }
    out
}

/// A Python expression, kept as a tree so that a long one can be broken across lines.
#[derive(Clone, Debug)]
enum Expr {
    Atom(String),
    Call(String, Vec<Expr>),
    /// `None if <name> is None else <expr>`.
    NoneIf(String, Box<Expr>),
}

impl Expr {
    fn atom(text: impl Into<String>) -> Expr {
        Expr::Atom(text.into())
    }

    fn flat(&self) -> String {
        match self {
            Expr::Atom(text) => text.clone(),
            Expr::Call(function, args) => {
                let args: Vec<String> = args.iter().map(Expr::flat).collect();
                format!("{function}({})", args.join(", "))
            }
            Expr::NoneIf(name, then) => format!("None if {name} is None else {}", then.flat()),
        }
    }
}

/// Generated Python text, written one indented line at a time.
struct Writer {
    out: String,
}

impl Writer {
    fn line(&mut self, level: usize, text: &str) {
        if !text.is_empty() {
            for _ in 0..level {
                self.out.push_str("    ");
            }
            self.out.push_str(text);
        }
        self.out.push('\n');
    }

    fn blank(&mut self) {
        self.out.push('\n');
    }

    fn fits(level: usize, text: &str) -> bool {
        level * 4 + text.chars().count() <= WIDTH
    }

    /// Writes `prefix expr suffix`, breaking the expression black-style when the line would be too long.
    fn expr(&mut self, level: usize, prefix: &str, expr: &Expr, suffix: &str) {
        let flat = format!("{prefix}{}{suffix}", expr.flat());
        if Writer::fits(level, &flat) {
            self.line(level, &flat);
            return;
        }
        match expr {
            Expr::Atom(_) => self.line(level, &flat),
            Expr::Call(function, args) => {
                let args: Vec<String> = args.iter().map(Expr::flat).collect();
                self.arguments(level, &format!("{prefix}{function}("), &args, &format!("){suffix}"));
            }
            Expr::NoneIf(name, then) => {
                self.line(level, &format!("{prefix}("));
                let inner = expr.flat();
                if Writer::fits(level + 1, &inner) {
                    self.line(level + 1, &inner);
                    self.line(level, &format!("){suffix}"));
                    return;
                }
                self.line(level + 1, "None");
                self.line(level + 1, &format!("if {name} is None"));
                self.expr(level + 1, "else ", then, "");
                self.line(level, &format!("){suffix}"));
            }
        }
    }

    /// Writes call arguments or parameters as black does: on the opening line if they fit, else together on
    /// one line of their own, else one per line.
    fn arguments(&mut self, level: usize, open: &str, args: &[String], close: &str) {
        let flat = format!("{open}{}{close}", args.join(", "));
        if Writer::fits(level, &flat) {
            self.line(level, &flat);
            return;
        }
        self.line(level, open);
        let joined = args.join(", ");
        if Writer::fits(level + 1, &joined) {
            self.line(level + 1, &joined);
        } else {
            for arg in args {
                self.line(level + 1, &format!("{arg},"));
            }
        }
        self.line(level, close);
    }

    /// Writes `name({items})` for a set display, as black does.
    fn set_call(&mut self, level: usize, prefix: &str, items: &[String]) {
        let display = format!("{{{}}}", items.join(", "));
        let flat = format!("{prefix}({display})");
        if Writer::fits(level, &flat) {
            self.line(level, &flat);
            return;
        }
        self.line(level, &format!("{prefix}("));
        if Writer::fits(level + 1, &display) {
            self.line(level + 1, &display);
        } else {
            self.line(level + 1, "{");
            for item in items {
                self.line(level + 2, &format!("{item},"));
            }
            self.line(level + 1, "}");
        }
        self.line(level, ")");
    }

    /// Writes a collection display (or an import list) on one line if it fits, else one item per line.
    fn sequence(&mut self, level: usize, prefix: &str, open: &str, items: &[String], close: &str, suffix: &str) {
        let single_comma = if items.len() == 1 && open.ends_with('(') && close.starts_with(')') { "," } else { "" };
        let flat = format!("{prefix}{open}{}{single_comma}{close}{suffix}", items.join(", "));
        if Writer::fits(level, &flat) {
            self.line(level, &flat);
            return;
        }
        self.line(level, &format!("{prefix}{open}"));
        for item in items {
            self.line(level + 1, &format!("{item},"));
        }
        self.line(level, &format!("{close}{suffix}"));
    }

    /// Writes `from module import names`, on one line if it fits.
    fn import(&mut self, level: usize, module: &str, names: &[String]) {
        let flat = format!("from {module} import {}", names.join(", "));
        if Writer::fits(level, &flat) {
            self.line(level, &flat);
        } else {
            self.sequence(level, &format!("from {module} import "), "(", names, ")", "");
        }
    }

    /// Writes a docstring; paragraphs are separated by blank lines in `text`.
    fn docstring(&mut self, level: usize, text: &str) {
        let paragraphs: Vec<String> =
            text.split("\n\n").map(|p| escape_docstring(p.trim())).filter(|p| !p.is_empty()).collect();
        if let [paragraph] = paragraphs.as_slice() {
            let one_line = format!("\"\"\"{paragraph}\"\"\"");
            if Writer::fits(level, &one_line) {
                self.line(level, &one_line);
                return;
            }
        }
        // Three columns fewer, for the quotes that open the first line.
        let width = WIDTH.saturating_sub(level * 4 + 3).max(40);
        let mut first = true;
        for (index, paragraph) in paragraphs.iter().enumerate() {
            if index > 0 {
                self.blank();
            }
            let mut lines = wrap(paragraph, width);
            if paragraphs.len() == 1 && lines.len() == 1 {
                // Formatters put the closing quotes of a one-line docstring on that line, so it must be two.
                lines = wrap(paragraph, paragraph.chars().count().saturating_sub(1));
            }
            for line in lines {
                self.line(level, &if first { format!("\"\"\"{line}") } else { line });
                first = false;
            }
        }
        self.line(level, "\"\"\"");
    }
}

/// Which way a field is checked: from parsed JSON in `from_dict`, or from Python values in the constructor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Decode,
    Construct,
}

impl Module<'_> {
    fn render(&self) -> String {
        let mut body = Writer { out: String::new() };
        let mut imports: BTreeSet<&'static str> = BTreeSet::from(["ModelError"]);
        let mut typing: BTreeSet<&'static str> = BTreeSet::new();

        let aliases: Vec<(&String, &EnumDecl)> = self.enums.iter().filter(|(_, decl)| decl.alias.is_some()).collect();
        for (constant, decl) in &self.enums {
            let values: Vec<String> = decl.values.iter().map(|v| py_str(v)).collect();
            let annotation = match &decl.alias {
                Some(alias) => format!("{constant}: frozenset[{alias}] = "),
                None => format!("{constant}: frozenset[str] = "),
            };
            body.set_call(0, &format!("{annotation}frozenset"), &values);
            if let Some(doc) = &decl.doc {
                body.docstring(0, doc);
            }
            body.blank();
        }
        if !aliases.is_empty() {
            imports.insert("literal_alias");
            let entries: Vec<String> = aliases
                .iter()
                .map(|(constant, decl)| format!("{}: {constant}", py_str(decl.alias.as_deref().unwrap_or_default())))
                .collect();
            body.sequence(0, "_LITERAL_ALIASES = ", "{", &entries, "}", "");
            body.blank();
        }

        for (name, helper) in &self.helpers {
            body.blank();
            let returns = self.annotation(&helper.ty, &mut typing);
            body.line(0, &format!("def {name}(value: object, path: str) -> {returns}:"));
            if let Some(doc) = &helper.doc {
                body.docstring(1, doc);
            }
            let check = self.check(&helper.ty, "value", "path", Mode::Decode, &mut imports);
            body.expr(1, "return ", &check, "");
            body.blank();
        }

        for class in &self.classes {
            body.blank();
            self.render_class(&mut body, class, &mut imports, &mut typing);
            body.blank();
        }

        let definitions: Vec<String> = self
            .classes
            .iter()
            .map(|class| {
                let key = class.def.as_deref().map_or_else(|| "None".to_owned(), py_str);
                format!("{key}: {}", class.name)
            })
            .collect();
        body.blank();
        body.line(0, "# The class of each definition in the schema, by its name under $defs (None for the root).");
        body.sequence(0, "DEFINITIONS: dict[str | None, type] = ", "{", &definitions, "}", "");

        // Typing names are only needed by the annotations and aliases, which the body has now used.
        if !aliases.is_empty() {
            typing.insert("Literal");
            typing.insert("TypeAlias");
        }

        let mut out = Writer { out: header(&format!("schemas/{}.schema.json", self.schema.name)) };
        out.docstring(0, &self.module_doc());
        out.blank();
        out.line(0, "from __future__ import annotations");
        out.blank();
        let imports: Vec<String> = imports.iter().map(|name| (*name).to_owned()).collect();
        out.import(0, "metewand._strict", &imports);
        for (home, names) in &self.imports {
            let names: Vec<String> = names.iter().cloned().collect();
            out.import(0, &format!("metewand.models.{}", home.replace('-', "_")), &names);
        }
        out.blank();
        out.line(
            0,
            "# Annotations are strings (see the __future__ import), so typing is needed only by type checkers.",
        );
        out.line(0, "TYPE_CHECKING = False");
        out.line(0, "if TYPE_CHECKING:");
        if typing.is_empty() && self.type_imports.is_empty() {
            out.line(1, "pass");
        }
        if !typing.is_empty() {
            let typing: Vec<String> = typing.into_iter().map(str::to_owned).collect();
            out.import(1, "typing", &typing);
        }
        for (home, names) in &self.type_imports {
            let names: Vec<String> = names.iter().cloned().collect();
            out.import(1, &format!("metewand.models.{}", home.replace('-', "_")), &names);
        }
        for (_, decl) in &aliases {
            let alias = decl.alias.as_deref().unwrap_or_default();
            let values: Vec<String> = decl.values.iter().map(|v| py_str(v)).collect();
            out.blank();
            out.sequence(1, &format!("{alias}: TypeAlias = "), "Literal[", &values, "]", "");
        }
        if !aliases.is_empty() {
            out.line(0, "else:");
            out.blank();
            out.line(1, "def __getattr__(name: str) -> object:");
            out.line(2, "# The Literal aliases are built on first use, so that importing this module does not");
            out.line(2, "# import typing.");
            out.line(2, "return literal_alias(globals(), name, _LITERAL_ALIASES)");
            out.blank();
        }
        out.blank();
        out.sequence(0, "__all__ = ", "[", &self.public_names(), "]", "");
        out.blank();
        out.out.push_str(&body.out);
        out.out
    }

    fn module_doc(&self) -> String {
        let root = self.schema.value.as_object();
        let text = |key: &str| root.and_then(|root| root.get(key)).and_then(Value::as_str).map(str::to_owned);
        let mut doc = String::new();
        if let Some(title) = text("title") {
            doc.push_str(&sentence(&title));
            doc.push_str("\n\n");
        }
        if let Some(description) = text("description") {
            doc.push_str(&description);
            doc.push_str("\n\n");
        }
        doc.push_str(
            "Each class checks its constructor's arguments, decodes parsed JSON strictly with from_dict (raising \
             ModelError with the JSON Pointer of the first value the schema refuses) and encodes with to_dict. \
             DEFINITIONS maps the schema's definition names to the classes.",
        );
        doc
    }

    fn public_names(&self) -> Vec<String> {
        let mut names: BTreeSet<String> = BTreeSet::from(["DEFINITIONS".to_owned(), "ModelError".to_owned()]);
        for (constant, decl) in &self.enums {
            if let Some(alias) = &decl.alias {
                names.insert(constant.clone());
                names.insert(alias.clone());
            }
        }
        names.extend(self.classes.iter().map(|class| class.name.clone()));
        names.into_iter().map(|name| py_str(&name)).collect()
    }

    fn render_class(
        &self,
        out: &mut Writer,
        class: &Class,
        imports: &mut BTreeSet<&'static str>,
        typing: &mut BTreeSet<&'static str>,
    ) {
        let name = &class.name;
        out.line(0, &format!("class {name}:"));
        match &class.doc {
            Some(doc) => out.docstring(1, doc),
            None => out.docstring(1, &format!("The {} object.", class.def.as_deref().unwrap_or(&self.schema.name))),
        }
        out.blank();
        let slots: Vec<String> = class.fields.iter().map(|field| py_str(&field.name)).collect();
        out.sequence(1, "__slots__ = ", "(", &slots, ")", "");
        out.blank();
        let annotated = class.fields.iter().any(|field| field.doc.is_some());
        for field in &class.fields {
            let mut annotation = self.annotation(&field.ty, typing);
            if !field.required {
                annotation.push_str(" | None");
            }
            out.line(1, &format!("{}: {annotation}", field.name));
            if let Some(doc) = &field.doc {
                out.docstring(1, doc);
            }
            if annotated {
                out.blank();
            }
        }
        if !annotated && !class.fields.is_empty() {
            out.blank();
        }

        let required: Vec<String> =
            class.fields.iter().filter(|field| field.required).map(|field| py_str(&field.name)).collect();
        out.line(1, "# What from_dict accepts: these members and no others, the required ones always.");
        out.line(1, "_PROPERTIES = frozenset(__slots__)");
        out.sequence(1, "_REQUIRED = ", "(", &required, ")", "");

        // The constructor.
        out.blank();
        let mut params = vec!["self".to_owned()];
        if !class.fields.is_empty() {
            params.push("*".to_owned());
        }
        for field in &class.fields {
            let annotation = self.annotation(&field.ty, typing);
            let param = match (&field.ty, field.required) {
                (Ty::Const(constant), _) => format!("{}: {annotation} = {}", field.name, constant.literal()),
                (_, false) => format!("{}: {annotation} | None = None", field.name),
                (_, true) => format!("{}: {annotation}", field.name),
            };
            params.push(param);
        }
        out.arguments(1, "def __init__(", &params, ") -> None:");
        if class.fields.is_empty() {
            out.line(2, "pass");
        }
        for field in &class.fields {
            let path = py_str(&pointer_join("", &field.name));
            let check = self.check(&field.ty, &field.name, &path, Mode::Construct, imports);
            let check = if field.required { check } else { Expr::NoneIf(field.name.clone(), Box::new(check)) };
            out.expr(2, &format!("self.{} = ", field.name), &check, "");
        }

        // Decoding.
        out.blank();
        out.line(1, "@classmethod");
        out.line(1, &format!("def from_dict(cls, data: object) -> {name}:"));
        out.docstring(2, "Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses.");
        out.line(2, "return cls._decode(data, \"\")");
        out.blank();
        out.line(1, "@classmethod");
        out.line(1, &format!("def _decode(cls, data: object, path: str) -> {name}:"));
        out.docstring(2, "from_dict for a value at the JSON Pointer ``path`` within a larger document.");
        imports.insert("check_object");
        out.line(2, "fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)");
        out.line(2, "model = cls.__new__(cls)");
        for field in &class.fields {
            let value = format!("fields[{}]", py_str(&field.name));
            let path = format!("path + {}", py_str(&pointer_join("", &field.name)));
            let check = self.check(&field.ty, &value, &path, Mode::Decode, imports);
            let target = format!("model.{} = ", field.name);
            if field.required {
                out.expr(2, &target, &check, "");
            } else {
                out.line(2, &format!("if {} in fields:", py_str(&field.name)));
                out.expr(3, &target, &check, "");
                out.line(2, "else:");
                out.line(3, &format!("{target}None"));
            }
        }
        out.line(2, "return model");

        // Encoding.
        out.blank();
        typing.insert("Any");
        out.line(1, "def to_dict(self) -> dict[str, Any]:");
        out.docstring(2, "The JSON-ready form: members in name order, absent optional members left out.");
        if class.fields.iter().all(|field| field.required) {
            let entries: Vec<String> = class
                .fields
                .iter()
                .map(|field| {
                    format!("{}: {}", py_str(&field.name), self.dump(&field.ty, &format!("self.{}", field.name)))
                })
                .collect();
            out.sequence(2, "return ", "{", &entries, "}", "");
        } else {
            // Members are inserted in name order, so that the dict's order is the canonical one.
            let leading: Vec<String> = class
                .fields
                .iter()
                .take_while(|field| field.required)
                .map(|field| {
                    format!("{}: {}", py_str(&field.name), self.dump(&field.ty, &format!("self.{}", field.name)))
                })
                .collect();
            out.sequence(2, "data: dict[str, Any] = ", "{", &leading, "}", "");
            for field in class.fields.iter().skip(leading.len()) {
                let attribute = format!("self.{}", field.name);
                let assignment = format!("data[{}] = {}", py_str(&field.name), self.dump(&field.ty, &attribute));
                if field.required {
                    out.line(2, &assignment);
                } else {
                    out.line(2, &format!("if {attribute} is not None:"));
                    out.line(3, &assignment);
                }
            }
            out.line(2, "return data");
        }

        // Comparison and representation.
        out.blank();
        out.line(1, "def __eq__(self, other: object) -> bool:");
        out.line(2, &format!("if not isinstance(other, {name}):"));
        out.line(3, "return NotImplemented");
        let comparisons: Vec<String> =
            class.fields.iter().map(|field| format!("self.{0} == other.{0}", field.name)).collect();
        if comparisons.is_empty() {
            out.line(2, "return True");
        } else {
            let flat = format!("return {}", comparisons.join(" and "));
            if Writer::fits(2, &flat) {
                out.line(2, &flat);
            } else {
                out.line(2, "return (");
                for (index, comparison) in comparisons.iter().enumerate() {
                    let joiner = if index == 0 { "" } else { "and " };
                    out.line(3, &format!("{joiner}{comparison}"));
                }
                out.line(2, ")");
            }
        }
        out.blank();
        out.line(1, "def __repr__(self) -> str:");
        let parts: Vec<String> = class.fields.iter().map(|field| format!("{0}={{self.{0}!r}}", field.name)).collect();
        let flat = format!("return f\"{name}({})\"", parts.join(", "));
        if Writer::fits(2, &flat) {
            out.line(2, &flat);
        } else {
            out.line(2, "return (");
            let mut line = format!("{name}(");
            let last = parts.len().saturating_sub(1);
            for (index, part) in parts.iter().enumerate() {
                let piece = if index == last { format!("{part})") } else { format!("{part}, ") };
                // Three levels of indent, the f and two quotes.
                if line.len() + piece.len() + 3 * 4 + 3 > WIDTH && !line.is_empty() {
                    out.line(3, &format!("f\"{line}\""));
                    line.clear();
                }
                line.push_str(&piece);
            }
            out.line(3, &format!("f\"{}\"", line));
            out.line(2, ")");
        }
    }

    /// The expression that checks `value`, found at the Python expression `path`, and gives its stored form.
    fn check(&self, ty: &Ty, value: &str, path: &str, mode: Mode, imports: &mut BTreeSet<&'static str>) -> Expr {
        let mut args = vec![Expr::atom(value), Expr::atom(path)];
        let function = match ty {
            Ty::String { min_length, pattern } => {
                if *min_length > 0 {
                    args.push(Expr::atom(format!("min_length={min_length}")));
                }
                if let Some(pattern) = pattern {
                    args.push(Expr::atom(format!("pattern={}", py_pattern(pattern))));
                }
                imports.insert("check_string");
                "check_string".to_owned()
            }
            Ty::Enum { constant, .. } => {
                args.push(Expr::atom(constant.clone()));
                imports.insert("check_enum");
                "check_enum".to_owned()
            }
            Ty::Integer { minimum, maximum } => {
                if let Some(minimum) = minimum {
                    args.push(Expr::atom(format!("minimum={minimum}")));
                }
                if let Some(maximum) = maximum {
                    args.push(Expr::atom(format!("maximum={maximum}")));
                }
                imports.insert("check_integer");
                "check_integer".to_owned()
            }
            Ty::Boolean => {
                imports.insert("check_boolean");
                "check_boolean".to_owned()
            }
            Ty::Const(constant) => {
                args.push(Expr::atom(constant.literal()));
                imports.insert("check_const");
                "check_const".to_owned()
            }
            Ty::Array { items, min_items, unique } => {
                args.extend(self.item_check(items, mode, imports).into_iter().map(Expr::Atom));
                if *min_items > 0 {
                    args.push(Expr::atom(format!("min_items={min_items}")));
                }
                if *unique {
                    args.push(Expr::atom("unique=True"));
                }
                imports.insert("check_array");
                "check_array".to_owned()
            }
            Ty::JsonObject => {
                imports.insert("check_json_object");
                "check_json_object".to_owned()
            }
            Ty::Model(class) => match mode {
                Mode::Decode => format!("{class}._decode"),
                Mode::Construct => {
                    args.push(Expr::atom(class.clone()));
                    imports.insert("check_model");
                    "check_model".to_owned()
                }
            },
            Ty::Named { helper, .. } => helper.clone(),
            Ty::Nullable(inner) => {
                return Expr::NoneIf(value.to_owned(), Box::new(self.check(inner, value, path, mode, imports)));
            }
        };
        Expr::Call(function, args)
    }

    /// The function, and its extra arguments, that `check_array` calls on each item.
    fn item_check(&self, ty: &Ty, mode: Mode, imports: &mut BTreeSet<&'static str>) -> Vec<String> {
        let mut uses = |name: &'static str| {
            imports.insert(name);
            name.to_owned()
        };
        match ty {
            Ty::Named { helper, .. } => vec![helper.clone()],
            Ty::Model(class) => match mode {
                Mode::Decode => vec![format!("{class}._decode")],
                Mode::Construct => vec![uses("check_model"), class.clone()],
            },
            Ty::JsonObject => vec![uses("check_json_object")],
            Ty::Boolean => vec![uses("check_boolean")],
            Ty::Enum { constant, .. } => vec![uses("check_enum"), constant.clone()],
            Ty::Const(constant) => vec![uses("check_const"), constant.literal()],
            Ty::String { .. } => vec![uses("check_string")],
            Ty::Integer { .. } => vec![uses("check_integer")],
            // Refused when the schema is parsed.
            Ty::Array { .. } | Ty::Nullable(_) => unreachable!("arrays of arrays or of nullables are refused"),
        }
    }

    /// The JSON-ready form of the attribute `expr`.
    fn dump(&self, ty: &Ty, expr: &str) -> String {
        match ty {
            ty if ty.is_scalar() => expr.to_owned(),
            Ty::JsonObject => format!("dict({expr})"),
            Ty::Model(_) => format!("{expr}.to_dict()"),
            Ty::Array { items, .. } if items.is_scalar() => format!("list({expr})"),
            Ty::Array { items, .. } => format!("[{} for item in {expr}]", self.dump(items, "item")),
            Ty::Nullable(inner) if inner.is_scalar() => expr.to_owned(),
            Ty::Nullable(inner) => format!("None if {expr} is None else {}", self.dump(inner, expr)),
            _ => expr.to_owned(),
        }
    }

    fn annotation(&self, ty: &Ty, typing: &mut BTreeSet<&'static str>) -> String {
        match ty {
            Ty::String { .. } => "str".to_owned(),
            Ty::Enum { alias: Some(alias), .. } => alias.clone(),
            Ty::Enum { values, alias: None, .. } => {
                typing.insert("Literal");
                let values: Vec<String> = values.iter().map(|v| py_str(v)).collect();
                format!("Literal[{}]", values.join(", "))
            }
            Ty::Integer { .. } => "int".to_owned(),
            Ty::Boolean => "bool".to_owned(),
            Ty::Const(constant) => {
                typing.insert("Literal");
                format!("Literal[{}]", constant.literal())
            }
            Ty::Array { items, .. } => format!("list[{}]", self.annotation(items, typing)),
            Ty::JsonObject => {
                typing.insert("Any");
                "dict[str, Any]".to_owned()
            }
            Ty::Model(class) => class.clone(),
            Ty::Named { target, .. } => self.annotation(target, typing),
            Ty::Nullable(inner) => format!("{} | None", self.annotation(inner, typing)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema(name: &str, value: Value) -> Schema {
        Schema { name: name.to_owned(), value }
    }

    fn real_schemas() -> Vec<Schema> {
        let sources = [
            ("artifact-manifest", include_str!("../../schemas/artifact-manifest.schema.json")),
            ("attempt-record", include_str!("../../schemas/attempt-record.schema.json")),
            ("common", include_str!("../../schemas/common.schema.json")),
            ("metrics", include_str!("../../schemas/metrics.schema.json")),
            ("result-manifest", include_str!("../../schemas/result-manifest.schema.json")),
            ("worker-protocol-message", include_str!("../../schemas/worker-protocol-message.schema.json")),
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
            (
                serde_json::json!({"type": "array", "items": {"type": "string"}, "maxItems": 2}),
                format!("{field}/maxItems"),
            ),
            (serde_json::json!({"type": "array"}), field.to_owned()),
            (
                serde_json::json!({"type": "array", "items": {"$ref": "#/$defs/other"}, "uniqueItems": true}),
                format!("{field}/uniqueItems"),
            ),
            (
                serde_json::json!({"type": "array", "items": {"type": "array", "items": {"type": "string"}}}),
                format!("{field}/items"),
            ),
            (serde_json::json!({"anyOf": [{"type": "string"}, {"type": "null"}]}), format!("{field}/anyOf")),
            (serde_json::json!({"oneOf": [{"type": "string"}, {"type": "integer"}]}), format!("{field}/oneOf")),
            (serde_json::json!({"$ref": "other.json#/$defs/thing"}), format!("{field}/$ref")),
            (serde_json::json!({"$ref": "#/$defs/missing"}), format!("{field}/$ref")),
            (
                serde_json::json!({"$ref": "#/$defs/other", "description": "x", "default": {}}),
                format!("{field}/default"),
            ),
            (serde_json::json!({"type": "object", "properties": {}}), field.to_owned()),
            (
                serde_json::json!({"type": "object", "additionalProperties": true}),
                format!("{field}/additionalProperties"),
            ),
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
        let keyword = schema(
            "test",
            serde_json::json!({ "type": "object", "additionalProperties": false, "properties": { "class": { "type": "string" } } }),
        );
        assert_eq!(refusal(keyword).0, "/properties/class");
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
                "g": { "$ref": "#/$defs/empty" }
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
            "_SAMPLE_DOC_B_ITEM_VALUES: frozenset[str] = frozenset({\"x\", \"y\"})\n",
            "check_array(b, \"/b\", check_enum, _SAMPLE_DOC_B_ITEM_VALUES, unique=True)",
            "None if c is None else check_integer(c, \"/c\", maximum=3)",
            "e: Literal[\"e\"] = \"e\"",
            "f: dict[str, Any] | None = None",
            "    __slots__ = ()\n",
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
}
