//! A parsed module written out as Python source.

use std::collections::BTreeSet;

use serde_json::Value;

use super::parse::sentence;
use super::text::{Expr, Writer, py_pattern, py_str};
use super::*;
use crate::pointer_join;

/// Which way a field is checked: from parsed JSON in `from_dict`, or from Python values in the constructor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Decode,
    Construct,
}

impl Module<'_> {
    pub(super) fn render(&self) -> String {
        let mut body = Writer { out: String::new() };
        let mut imports: BTreeSet<&'static str> = BTreeSet::from(["ModelError"]);
        let mut typing: BTreeSet<&'static str> = BTreeSet::new();

        let aliases: Vec<(&String, &EnumDecl)> = self.enums.iter().filter(|(_, decl)| decl.alias.is_some()).collect();
        let mut private: Vec<(String, Vec<String>)> = Vec::new();
        for (constant, decl) in &self.enums {
            let values: Vec<String> = decl.values.iter().map(|v| py_str(v)).collect();
            let annotation = match &decl.alias {
                Some(alias) => format!("{constant}: frozenset[{alias}] = "),
                None => {
                    // The fields' own Literal (a private alias of it, for type checkers only), so that check_enum
                    // returns what the field is annotated with.
                    let alias = private_alias(constant);
                    let annotation = format!("{constant}: frozenset[{alias}] = ");
                    private.push((alias, values.clone()));
                    annotation
                }
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
            if let Ty::Either(branches) = &helper.ty {
                self.render_either(&mut body, branches, &mut imports);
            } else {
                let check = self.check(&helper.ty, "value", "path", Mode::Decode, &mut imports);
                body.expr(1, "return ", &check, "");
            }
            body.blank();
        }

        let mut builtins = false;
        for class in &self.classes {
            body.blank();
            builtins |= self.render_class(&mut body, class, &mut imports, &mut typing);
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
        if !aliases.is_empty() || !private.is_empty() {
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
        if typing.is_empty() && self.type_imports.is_empty() && !builtins {
            out.line(1, "pass");
        }
        if builtins {
            out.line(1, "import builtins");
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
        for (alias, values) in &private {
            out.blank();
            out.sequence(1, &format!("{alias}: TypeAlias = "), "Literal[", values, "]", "");
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
    ) -> bool {
        let name = &class.name;
        // A field named like a builtin type hides it in the class body: annotations there name the builtin's
        // module instead.
        let shadowed: Vec<String> =
            class.fields.iter().map(Field::attr).filter(|name| SHADOWABLE.contains(&name.as_str())).collect();
        let shadowed: Vec<&str> = shadowed.iter().map(String::as_str).collect();
        let qualify = |annotation: String| qualify_builtins(&annotation, &shadowed);
        out.line(0, &format!("class {name}:"));
        match &class.doc {
            Some(doc) => out.docstring(1, doc),
            None => out.docstring(1, &format!("The {} object.", class.def.as_deref().unwrap_or(&self.schema.name))),
        }
        out.blank();
        let slots: Vec<String> = class.fields.iter().map(|field| py_str(&field.attr())).collect();
        out.sequence(1, "__slots__ = ", "(", &slots, ")", "");
        out.blank();
        let annotated = class.fields.iter().any(|field| field.doc.is_some());
        for field in &class.fields {
            let mut annotation = qualify(self.annotation(&field.ty, typing));
            if !field.required {
                annotation.push_str(" | None");
            }
            out.line(1, &format!("{}: {annotation}", field.attr()));
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
        if class.fields.iter().all(|field| field.attr() == field.name) {
            out.line(1, "_PROPERTIES = frozenset(__slots__)");
        } else {
            let keys: Vec<String> = class.fields.iter().map(|field| py_str(&field.name)).collect();
            out.sequence(1, "_PROPERTIES = frozenset(", "(", &keys, ")", ")");
        }
        out.sequence(1, "_REQUIRED = ", "(", &required, ")", "");

        // The constructor.
        out.blank();
        let mut params = vec!["self".to_owned()];
        if !class.fields.is_empty() {
            params.push("*".to_owned());
        }
        for field in &class.fields {
            let annotation = qualify(self.annotation(&field.ty, typing));
            // A const, inline or a definition of its own, is its default: a caller never has to repeat it.
            let constant = match &field.ty {
                Ty::Const(constant) => Some(constant),
                Ty::Named { target, .. } => match target.as_ref() {
                    Ty::Const(constant) => Some(constant),
                    _ => None,
                },
                _ => None,
            };
            let param = match (constant, field.required) {
                (Some(constant), _) => format!("{}: {annotation} = {}", field.attr(), constant.literal()),
                (_, false) => format!("{}: {annotation} | None = None", field.attr()),
                (_, true) => format!("{}: {annotation}", field.attr()),
            };
            params.push(param);
        }
        out.arguments(1, "def __init__(", &params, ") -> None:");
        if class.fields.is_empty() {
            out.line(2, "pass");
        }
        for field in &class.fields {
            let path = py_str(&pointer_join("", &field.name));
            let attr = field.attr();
            let check = self.check(&field.ty, &attr, &path, Mode::Construct, imports);
            let check = if field.required { check } else { Expr::NoneIf(attr.clone(), Box::new(check)) };
            out.expr(2, &format!("self.{attr} = "), &check, "");
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
            let target = format!("model.{} = ", field.attr());
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
        out.line(1, &format!("def to_dict(self) -> {}:", qualify("dict[str, Any]".to_owned())));
        out.docstring(2, "The JSON-ready form: members in name order, absent optional members left out.");
        if class.fields.iter().all(|field| field.required) {
            let entries: Vec<String> = class
                .fields
                .iter()
                .map(|field| {
                    format!("{}: {}", py_str(&field.name), self.dump(&field.ty, &format!("self.{}", field.attr())))
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
                    format!("{}: {}", py_str(&field.name), self.dump(&field.ty, &format!("self.{}", field.attr())))
                })
                .collect();
            out.sequence(2, &format!("data: {} = ", qualify("dict[str, Any]".to_owned())), "{", &leading, "}", "");
            for field in class.fields.iter().skip(leading.len()) {
                let attribute = format!("self.{}", field.attr());
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
        out.line(1, &format!("def __eq__(self, other: object) -> {}:", qualify("bool".to_owned())));
        out.line(2, &format!("if not isinstance(other, {name}):"));
        out.line(3, "return NotImplemented");
        let comparisons: Vec<String> =
            class.fields.iter().map(|field| format!("self.{0} == other.{0}", field.attr())).collect();
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
        out.line(1, &format!("def __repr__(self) -> {}:", qualify("str".to_owned())));
        let parts: Vec<String> = class.fields.iter().map(|field| format!("{0}={{self.{0}!r}}", field.attr())).collect();
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
        !shadowed.is_empty()
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
            Ty::Number => {
                imports.insert("check_positive_number");
                "check_positive_number".to_owned()
            }
            Ty::Map { key, values } => {
                args.extend(self.item_check(values, mode, imports).into_iter().map(Expr::Atom));
                if let Some(key) = key {
                    args.push(Expr::atom(format!("key={key}")));
                }
                imports.insert("check_map");
                "check_map".to_owned()
            }
            Ty::Either(_) => unreachable!("a oneOf of types is a definition, checked by its function"),
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
            Ty::Number => vec![uses("check_positive_number")],
            Ty::Nullable(inner) => {
                let mut check = vec![uses("check_nullable")];
                check.extend(self.item_check(inner, mode, imports));
                check
            }
            // Refused when the schema is parsed.
            Ty::Array { .. } | Ty::Map { .. } | Ty::Either(_) => unreachable!("arrays of arrays or maps are refused"),
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
            Ty::Map { values, .. } if values.is_scalar() => format!("dict({expr})"),
            Ty::Map { values, .. } => format!("{{key: {} for key, item in {expr}.items()}}", self.dump(values, "item")),
            Ty::Named { target, .. } => self.dump(target, expr),
            Ty::Either(branches) => {
                // The branches have distinct JSON types, so the stored value's type says which one it is.
                let mut out = expr.to_owned();
                for branch in branches.iter().rev().filter(|branch| !branch.is_scalar()) {
                    let class = match branch {
                        Ty::Model(class) => class.as_str(),
                        Ty::JsonObject => "dict",
                        _ => "list",
                    };
                    out = format!("{} if isinstance({expr}, {class}) else {out}", self.dump(branch, expr));
                }
                out
            }
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
            Ty::Number => "float".to_owned(),
            Ty::Map { values, .. } => format!("dict[str, {}]", self.annotation(values, typing)),
            Ty::Either(branches) => {
                let branches: Vec<String> = branches.iter().map(|branch| self.annotation(branch, typing)).collect();
                branches.join(" | ")
            }
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

impl Module<'_> {
    /// The body of a `oneOf` definition's checking function: the branch the value's JSON type selects, and the
    /// last branch's check (with its message) for a value of none of them. A model branch also takes an instance,
    /// as a constructor is given one.
    fn render_either(&self, body: &mut Writer, branches: &[Ty], imports: &mut BTreeSet<&'static str>) {
        for (index, branch) in branches.iter().enumerate() {
            if let Ty::Model(class) = branch {
                body.line(1, &format!("if isinstance(value, {class}):"));
                body.line(2, "return value");
            }
            let check = self.check(branch, "value", "path", Mode::Decode, imports);
            if index + 1 == branches.len() {
                body.expr(1, "return ", &check, "");
                continue;
            }
            let class = match branch {
                Ty::String { .. } => "str",
                Ty::Array { .. } => "list",
                _ => "dict",
            };
            body.line(1, &format!("if isinstance(value, {class}):"));
            body.expr(2, "return ", &check, "");
        }
    }
}

/// The builtin type names an annotation in a class body may use, which a field of the same name would hide.
const SHADOWABLE: &[&str] = &["bool", "dict", "float", "int", "list", "str"];

/// `annotation` with each of the `shadowed` names, where it stands as a name of its own (not an attribute, not in a
/// string literal), as `builtins.<name>`.
pub(super) fn qualify_builtins(annotation: &str, shadowed: &[&str]) -> String {
    let mut out = String::with_capacity(annotation.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        let qualified = shadowed.contains(&word.as_str()) && !out.ends_with('.');
        if qualified {
            out.push_str("builtins.");
        }
        out.push_str(word);
        word.clear();
    };
    // Inside a string literal (a Literal's values) nothing is a name.
    let mut quoted = false;
    for c in annotation.chars() {
        if quoted {
            out.push(c);
            quoted = c != '"';
        } else if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
            quoted = c == '"';
        }
    }
    flush(&mut word, &mut out);
    out
}

/// The private alias of an inline enum's Literal, named after its value set's constant (`_A_B_VALUES` -> `_AB`).
fn private_alias(constant: &str) -> String {
    let stem = constant.trim_start_matches('_').trim_end_matches("_VALUES");
    format!("_{}", heck::ToUpperCamelCase::to_upper_camel_case(stem))
}
