//! A schema parsed into what its Python module declares: classes, enums, checking functions, and the names it
//! takes from the modules of the schemas it refers to.

use std::collections::{BTreeMap, BTreeSet};

use heck::{ToShoutySnakeCase, ToUpperCamelCase};
use serde_json::{Map, Value};

use super::text::check_pattern;
use super::*;
use crate::pointer_join;

impl<'a> Module<'a> {
    pub(super) fn parse(
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
            origins: BTreeMap::new(),
        };
        for (schema_name, owner) in done {
            for (origin, names) in owner.imports.iter().chain(&owner.type_imports) {
                for name in names {
                    module.origins.insert((schema_name.clone(), name.clone()), origin.clone());
                }
            }
        }
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

    pub(super) fn title(&self) -> String {
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
        match def {
            None => allowed.extend(["$schema", "$id", "$defs"]),
            // A request's annotations, which `methods.rs` reads.
            Some(_) => allowed.extend(crate::methods::ANNOTATIONS),
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
            if !is_snake_identifier(property) || RESERVED_PROPERTIES.contains(&property.as_str()) {
                return Err(self.unsupported(
                    &property_pointer,
                    "a property name must be a lowercase snake_case Python identifier other than self, from_dict \
                     and to_dict",
                ));
            }
            if PYTHON_KEYWORDS.contains(&property.as_str()) && properties.contains_key(&format!("{property}_")) {
                return Err(self.unsupported(
                    &property_pointer,
                    "a property named like a Python keyword is the attribute with a trailing underscore, which \
                     another property of this object already names",
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
            let nullable = branches
                .as_array()
                .is_some_and(|branches| branches.iter().any(|branch| branch.get("type") == Some(&Value::from("null"))));
            if def.is_some() && !nullable {
                return self.parse_either(branches, &pointer_join(pointer, "oneOf"), hint);
            }
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
            "number" => {
                check_keywords(self.schema, pointer, object, &["type", "exclusiveMinimum"])?;
                if object.get("exclusiveMinimum").and_then(Value::as_u64) != Some(0) {
                    let at = if object.contains_key("exclusiveMinimum") { "exclusiveMinimum" } else { "type" };
                    return Err(self.unsupported(&pointer_join(pointer, at), "a number must have exclusiveMinimum: 0"));
                }
                Ok(Ty::Number)
            }
            "object" if object.contains_key("additionalProperties") && !object.contains_key("properties") => {
                self.parse_map(object, pointer, hint)
            }
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
        // check_array calls one function per item, so an inline constrained scalar gets a function of its own; a
        // nullable item is checked by check_nullable around its inner type's function.
        let constrained = |ty: &Ty| match ty {
            Ty::String { min_length, pattern } => *min_length > 0 || pattern.is_some(),
            Ty::Integer { minimum, maximum } => minimum.is_some() || maximum.is_some(),
            _ => false,
        };
        match items {
            Ty::Array { .. } | Ty::Map { .. } | Ty::Either(_) => {
                return Err(self.unsupported(&items_pointer, "arrays of arrays or maps are not supported"));
            }
            Ty::Nullable(ref inner) if matches!(**inner, Ty::Array { .. } | Ty::Nullable(_)) => {
                return Err(self.unsupported(&items_pointer, "arrays of nullable arrays are not supported"));
            }
            Ty::Nullable(inner) if constrained(&inner) => {
                let helper = self.inline_helper(&items_hint, *inner, &items_pointer, description(object))?;
                items = Ty::Nullable(Box::new(helper));
            }
            ref ty if constrained(ty) => {
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

    /// An object whose members all have one type (`additionalProperties`), their names checked by the definition
    /// `propertyNames` refers to.
    fn parse_map(&mut self, object: &Map<String, Value>, pointer: &str, hint: &str) -> Result<Ty, Error> {
        check_keywords(self.schema, pointer, object, &["type", "additionalProperties", "propertyNames"])?;
        let key = match object.get("propertyNames") {
            None => None,
            Some(names) => {
                let names_pointer = pointer_join(pointer, "propertyNames");
                let target = names.get("$ref").filter(|_| names.as_object().is_some_and(|o| o.len() == 1));
                let Some(target) = target else {
                    return Err(self.unsupported(&names_pointer, "propertyNames must be a lone $ref"));
                };
                let name = self.def_name(target, &pointer_join(&names_pointer, "$ref"))?;
                match self.resolve_ref(&name)? {
                    Ty::Named { helper, target } if matches!(*target, Ty::String { .. }) => Some(helper),
                    _ => return Err(self.unsupported(&names_pointer, "propertyNames must name a string definition")),
                }
            }
        };
        let values_pointer = pointer_join(pointer, "additionalProperties");
        let values_hint = format!("{hint}_value");
        let Some(values) = object.get("additionalProperties").filter(|values| values.is_object()) else {
            return Err(self.unsupported(&values_pointer, "additionalProperties must be the values' subschema"));
        };
        let values = match self.parse_type(values, &values_pointer, &values_hint, None)? {
            Ty::String { min_length: 0, pattern: None } => Ty::String { min_length: 0, pattern: None },
            ty @ (Ty::Model(_) | Ty::JsonObject | Ty::Boolean | Ty::Named { .. } | Ty::Enum { .. }) => ty,
            _ => {
                return Err(self.unsupported(
                    &values_pointer,
                    "a map's values must be plain strings, booleans, enums, named types or objects",
                ));
            }
        };
        Ok(Ty::Map { key, values: Box::new(values) })
    }

    /// A definition that is one of a few branches, each of another JSON type, told apart by the value's type.
    fn parse_either(&mut self, branches: &Value, pointer: &str, hint: &str) -> Result<Ty, Error> {
        let Some(branches) = branches.as_array().filter(|branches| branches.len() >= 2) else {
            return Err(self.unsupported(pointer, "oneOf must list at least two branches"));
        };
        let mut types: Vec<Ty> = Vec::with_capacity(branches.len());
        let mut kinds: Vec<&str> = Vec::with_capacity(branches.len());
        for (index, branch) in branches.iter().enumerate() {
            let branch_pointer = pointer_join(pointer, &index.to_string());
            let ty = self.parse_type(branch, &branch_pointer, &format!("{hint}_{index}"), None)?;
            let kind = match &ty {
                Ty::String { min_length: 0, pattern: None } => "string",
                Ty::Array { items, .. } if items.is_scalar() => "array",
                Ty::JsonObject | Ty::Model(_) => "object",
                _ => {
                    return Err(self.unsupported(
                        &branch_pointer,
                        "a branch must be a plain string, an array of scalars or an object",
                    ));
                }
            };
            if kinds.contains(&kind) {
                return Err(self.unsupported(&branch_pointer, format!("two branches are both of type {kind}")));
            }
            kinds.push(kind);
            types.push(ty);
        }
        Ok(Ty::Either(types))
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
                let origin = self.origins.get(&(home.to_owned(), name.to_owned())).map_or(home, String::as_str);
                if table.entry(origin.to_owned()).or_default().insert(name.to_owned())
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
        let ty = if ty.is_scalar() || matches!(ty, Ty::Either(_)) {
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

pub(super) fn check_keywords(
    schema: &Schema,
    pointer: &str,
    object: &Map<String, Value>,
    allowed: &[&str],
) -> Result<(), Error> {
    match object.keys().find(|key| !allowed.contains(&key.as_str()) && !ANNOTATIONS.contains(&key.as_str())) {
        None => Ok(()),
        Some(key) => Err(schema.unsupported(
            &pointer_join(pointer, key),
            format!("the keyword {key:?} is not supported here by the Python models"),
        )),
    }
}

pub(super) fn check_annotations(schema: &Schema, pointer: &str, object: &Map<String, Value>) -> Result<(), Error> {
    for key in ANNOTATIONS {
        if object.get(*key).is_some_and(|value| !value.is_string()) {
            return Err(schema.unsupported(&pointer_join(pointer, key), format!("{key} must be a string")));
        }
    }
    Ok(())
}

pub(super) fn description(object: &Map<String, Value>) -> Option<String> {
    object.get("description").and_then(Value::as_str).map(str::to_owned)
}

/// A title as the first sentence of a docstring.
pub(super) fn sentence(text: &str) -> String {
    if text.ends_with(['.', '!', '?']) { text.to_owned() } else { format!("{text}.") }
}

pub(super) fn is_snake_identifier(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase())
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}
