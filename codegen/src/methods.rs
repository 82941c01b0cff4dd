//! The worker protocol's request methods: which roles accept each, read from the annotations of the request
//! definitions of `worker-protocol-message`, and the table generated from them in both languages.
//!
//! A request definition (one whose `method` property is a constant) says, beside its shape:
//!
//! - `x-accepted-by`: the roles whose workers accept it, values of `common`'s `role`;
//! - `x-response`: the definition a successful answer is (a `failure_response` answers any request);
//! - `x-phase`: the phase it runs, a value of `common`'s `phase`, when that is not the method's own name;
//! - `x-capability`: the capability, a value of `common`'s `capability`, a worker reports when it serves the request.
//!
//! JSON Schema validators collect unknown keywords as annotations and check nothing with them, so the schema's
//! meaning for a message is unchanged. The type generators accept these keywords on a definition and ignore them;
//! this module checks them and is the only reader, so a request without its roles, a role `common` does not have
//! or an annotation anywhere else is an [`Error::Unsupported`] naming its JSON pointer.

use heck::{ToShoutySnakeCase, ToUpperCamelCase};
use proc_macro2::Literal;
use quote::{format_ident, quote};
use serde_json::{Map, Value};

use crate::{Error, GeneratedFile, REGENERATE_COMMAND, Schema, pointer_join, wrap};

/// The schema whose request definitions carry the annotations.
pub(crate) const SCHEMA: &str = "worker-protocol-message";

/// The generated module's name in both languages.
pub(crate) const MODULE: &str = "worker_protocol_methods";

/// What the index of each language says the module holds.
pub(crate) const SUMMARY: &str = "Metewand worker protocol request methods";

/// The annotation keywords of a request definition.
pub(crate) const ANNOTATIONS: [&str; 4] = ["x-accepted-by", "x-response", "x-phase", "x-capability"];

/// One request method, as its definition declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Method {
    /// The method's name on the wire.
    name: String,
    /// The request's definition under `$defs`.
    request: String,
    description: Option<String>,
    /// In the order of `common`'s `role` enum.
    accepted_by: Vec<String>,
    response: String,
    phase: String,
    capability: Option<String>,
}

/// Every request method of the protocol, in the order of the schema's root `anyOf`.
#[derive(Debug)]
pub(crate) struct Methods {
    methods: Vec<Method>,
    roles: Vec<String>,
}

/// The values of `common`'s string enum `name`.
fn common_enum(common: &Schema, name: &str) -> Result<Vec<String>, Error> {
    let pointer = format!("/$defs/{name}/enum");
    let values = common.value.pointer(&pointer).and_then(Value::as_array);
    let values: Option<Vec<String>> =
        values.and_then(|values| values.iter().map(|value| value.as_str().map(str::to_owned)).collect());
    values.ok_or_else(|| common.unsupported(&pointer, "the request annotations need this list of names"))
}

/// The constant `method` of a definition, if it is a request.
fn method_const(def: &Value) -> Option<&str> {
    def.pointer("/properties/method/const").and_then(Value::as_str)
}

/// Reads the request methods from the schemas, or `None` when there is no worker protocol schema.
///
/// Annotations anywhere but on a request definition of the protocol schema are refused, as is any other `x-`
/// keyword there.
pub(crate) fn read(schemas: &[Schema]) -> Result<Option<Methods>, Error> {
    for schema in schemas.iter().filter(|schema| schema.name != SCHEMA) {
        let defs = schema.value.get("$defs").and_then(Value::as_object).into_iter().flatten();
        for (name, def) in defs {
            if let Some(key) = def.as_object().and_then(|def| def.keys().find(|key| key.starts_with("x-"))) {
                let pointer = pointer_join(&format!("/$defs/{name}"), key);
                return Err(schema.unsupported(&pointer, format!("only the requests of {SCHEMA} carry annotations")));
            }
        }
    }
    let Some(protocol) = schemas.iter().find(|schema| schema.name == SCHEMA) else { return Ok(None) };
    let common = schemas.iter().find(|schema| schema.name == "common").ok_or_else(|| {
        protocol.unsupported("", "the request annotations name common's roles, phases and capabilities")
    })?;
    let roles = common_enum(common, "role")?;
    let phases = common_enum(common, "phase")?;
    let capabilities = common_enum(common, "capability")?;
    let empty = Map::new();
    let defs = protocol.value.get("$defs").and_then(Value::as_object).unwrap_or(&empty);
    let listed: Vec<&str> = protocol
        .value
        .get("anyOf")
        .and_then(Value::as_array)
        .map(|items| items.iter().filter_map(|item| item.get("$ref")?.as_str()?.strip_prefix("#/$defs/")).collect())
        .unwrap_or_default();
    let reader = Reader { schema: protocol, defs, listed: &listed, roles: &roles, phases: &phases, capabilities };
    for (name, def) in defs {
        reader.check_placement(name, def)?;
    }
    let mut methods: Vec<Method> = Vec::new();
    for name in &listed {
        let Some(def) = defs.get(*name) else { continue };
        let Some(method) = method_const(def) else { continue };
        if methods.iter().any(|known| known.name == method) {
            let pointer = format!("/$defs/{name}/properties/method/const");
            return Err(protocol.unsupported(&pointer, format!("a second request has the method {method:?}")));
        }
        methods.push(reader.method(name, method, def)?);
    }
    Ok(Some(Methods { methods, roles }))
}

/// What reading the protocol schema's annotations needs.
struct Reader<'a> {
    schema: &'a Schema,
    defs: &'a Map<String, Value>,
    listed: &'a [&'a str],
    roles: &'a [String],
    phases: &'a [String],
    capabilities: Vec<String>,
}

impl Reader<'_> {
    /// Refuses annotations on a definition that is no request, a request the root does not list, and any other
    /// `x-` keyword.
    fn check_placement(&self, name: &str, def: &Value) -> Result<(), Error> {
        let pointer = format!("/$defs/{name}");
        let Some(object) = def.as_object() else { return Ok(()) };
        if let Some(key) = object.keys().find(|key| key.starts_with("x-") && !ANNOTATIONS.contains(&key.as_str())) {
            let known = ANNOTATIONS.join(", ");
            return Err(self
                .schema
                .unsupported(&pointer_join(&pointer, key), format!("not an annotation: use {known}")));
        }
        let annotated = object.keys().find(|key| ANNOTATIONS.contains(&key.as_str()));
        match (method_const(def), annotated) {
            (None, Some(key)) => Err(self.schema.unsupported(
                &pointer_join(&pointer, key),
                "only a request (a definition whose method is a const) carries annotations",
            )),
            (Some(_), _) if !self.listed.contains(&name) => {
                Err(self.schema.unsupported(&pointer, "a request must be listed in the root anyOf"))
            }
            _ => Ok(()),
        }
    }

    fn method(&self, name: &str, method: &str, def: &Value) -> Result<Method, Error> {
        let pointer = format!("/$defs/{name}");
        let at = |key: &str| pointer_join(&pointer, key);
        let unsupported = |key: &str, reason: String| self.schema.unsupported(&at(key), reason);

        let Some(Value::Array(accepted)) = def.get("x-accepted-by") else {
            return Err(unsupported("x-accepted-by", "a request must list the roles that accept it".to_owned()));
        };
        let mut names = Vec::with_capacity(accepted.len());
        for (index, role) in accepted.iter().enumerate() {
            let role = role.as_str().filter(|role| self.roles.iter().any(|known| known == role));
            match role {
                Some(role) if !names.contains(&role) => names.push(role),
                Some(role) => return Err(unsupported("x-accepted-by", format!("{role} is listed twice"))),
                None => {
                    let reason = format!("not a role of common: {}", self.roles.join(", "));
                    return Err(self
                        .schema
                        .unsupported(&pointer_join(&at("x-accepted-by"), &index.to_string()), reason));
                }
            }
        }
        if names.is_empty() {
            return Err(unsupported("x-accepted-by", "a request must list the roles that accept it".to_owned()));
        }
        let accepted_by = self.roles.iter().filter(|role| names.contains(&role.as_str())).cloned().collect();

        let response = match def.get("x-response").and_then(Value::as_str) {
            Some(response)
                if self.listed.contains(&response)
                    && self.defs.get(response).is_some_and(|def| method_const(def).is_none()) =>
            {
                response.to_owned()
            }
            _ => {
                let reason = "must name the definition of the success response, a message of the root anyOf";
                return Err(unsupported("x-response", reason.to_owned()));
            }
        };

        let phase = match def.get("x-phase") {
            None if self.phases.iter().any(|phase| phase == method) => method.to_owned(),
            None => {
                let reason = format!("the method {method:?} is no phase of common: say which it runs with x-phase");
                return Err(self.schema.unsupported(&pointer, reason));
            }
            Some(phase) => match phase.as_str().filter(|phase| self.phases.iter().any(|known| known == phase)) {
                Some(phase) => phase.to_owned(),
                None => {
                    return Err(unsupported("x-phase", format!("not a phase of common: {}", self.phases.join(", "))));
                }
            },
        };

        let capability = match def.get("x-capability") {
            None => None,
            Some(capability) => {
                match capability.as_str().filter(|capability| self.capabilities.iter().any(|known| known == capability))
                {
                    Some(capability) => Some(capability.to_owned()),
                    None => {
                        let reason = format!("not a capability of common: {}", self.capabilities.join(", "));
                        return Err(unsupported("x-capability", reason));
                    }
                }
            }
        };

        Ok(Method {
            name: method.to_owned(),
            request: name.to_owned(),
            description: def.get("description").and_then(Value::as_str).map(str::to_owned),
            accepted_by,
            response,
            phase,
            capability,
        })
    }
}

fn header() -> String {
    format!(
        "Generated from schemas/{SCHEMA}.schema.json by codegen; do not edit. Regenerate with: {REGENERATE_COMMAND}"
    )
}

/// What both modules say of themselves, after their title line.
const ABOUT: &str = "Which roles accept each request method, the phase its request runs, the capability a worker \
    reports when it serves it, and the definitions of its request and of its success response (a failure response \
    answers any request), read from the annotations of the request definitions (x-accepted-by, x-response, x-phase, \
    x-capability).";

impl Methods {
    /// The generated module of each language.
    pub(crate) fn files(&self) -> Result<Vec<GeneratedFile>, Error> {
        Ok(vec![
            GeneratedFile { path: format!("metewand-protocol/src/generated/{MODULE}.rs"), contents: self.rust()? },
            GeneratedFile { path: format!("sdk-python/src/metewand/models/{MODULE}.py"), contents: self.python() },
        ])
    }

    fn rust(&self) -> Result<String, Error> {
        let variant = |name: &str| format_ident!("{}", name.to_upper_camel_case());
        let docs = |text: &str| wrap(text, 110).into_iter().map(|line| format!(" {line}")).collect::<Vec<_>>();
        let mut items = Vec::with_capacity(self.methods.len());
        for method in &self.methods {
            let ident = format_ident!("{}", method.name.to_shouty_snake_case());
            let doc = docs(&format!("`{}`: {}", method.name, method.description.as_deref().unwrap_or("a request.")));
            let name = &method.name;
            let roles = method.accepted_by.iter().map(|role| variant(role));
            let phase = variant(&method.phase);
            let capability = match &method.capability {
                Some(capability) => {
                    let capability = variant(capability);
                    quote! { ::std::option::Option::Some(super::common::Capability::#capability) }
                }
                None => quote! { ::std::option::Option::None },
            };
            let (request, response) = (&method.request, &method.response);
            items.push(quote! {
                #(#[doc = #doc])*
                pub const #ident: RequestMethod = RequestMethod {
                    name: #name,
                    accepted_by: &[#(super::common::Role::#roles),*],
                    phase: super::common::Phase::#phase,
                    capability: #capability,
                    request: #request,
                    response: #response,
                };
            });
        }
        let idents = self.methods.iter().map(|method| format_ident!("{}", method.name.to_shouty_snake_case()));
        let count = Literal::usize_unsuffixed(self.methods.len());
        let tokens = quote! {
            /// A request method of the protocol, as its request definition declares it.
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
            pub struct RequestMethod {
                /// The method's name on the wire: the request's `method` constant.
                pub name: &'static str,
                /// The roles whose workers accept the request (`x-accepted-by`), in the order of `common`'s roles.
                pub accepted_by: &'static [super::common::Role],
                /// The phase the request runs (`x-phase`, or the phase named after the method): its limit, its record
                /// and its failures are that phase's.
                pub phase: super::common::Phase,
                /// The capability a worker reports when it serves the request (`x-capability`), if it takes one.
                pub capability: ::std::option::Option<super::common::Capability>,
                /// The request's definition under the schema's `$defs`.
                pub request: &'static str,
                /// The definition of the answer when the request succeeds (`x-response`).
                pub response: &'static str,
            }

            #(#items)*

            /// Every request method, in the order of the schema's `anyOf`.
            pub static REQUEST_METHODS: [RequestMethod; #count] = [#(#idents),*];
        };
        let file: syn::File =
            syn::parse2(tokens).map_err(|err| Error::Syntax { schema: SCHEMA.to_owned(), message: err.to_string() })?;
        let mut out = format!("// {}\n", header());
        out.push_str(&format!("//! {SUMMARY}, from `schemas/{SCHEMA}.schema.json`.\n//!\n"));
        for line in wrap(ABOUT, 110) {
            out.push_str(&format!("//! {line}\n"));
        }
        out.push('\n');
        out.push_str(&prettyplease::unparse(&file));
        Ok(out)
    }

    fn python(&self) -> String {
        let quoted = |text: &str| format!("\"{text}\"");
        let mut out = format!("# {}\n", header());
        out.push_str(&format!("\"\"\"{SUMMARY}, from schemas/{SCHEMA}.schema.json.\n\n"));
        for line in wrap(ABOUT, 100) {
            out.push_str(&line);
            out.push('\n');
        }
        out.push_str("\"\"\"\n\nfrom __future__ import annotations\n\n");
        let mut models: Vec<String> =
            self.methods.iter().flat_map(|method| [&method.request, &method.response]).map(|d| class(d)).collect();
        models.sort();
        models.dedup();
        out.push_str("from metewand.models.worker_protocol_message import (\n");
        for model in &models {
            out.push_str(&format!("    {model},\n"));
        }
        out.push_str(")\n\n");
        out.push_str(
            "# Annotations are strings (see the __future__ import), so typing is needed only by type checkers.\n",
        );
        out.push_str("TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from typing import Any\n");
        out.push_str("    from metewand.models.common import Capability, Phase\n\n");
        out.push_str("__all__ = [\n");
        for name in ["CAPABILITIES", "PHASES", "REQUESTS", "REQUEST_METHODS", "RESPONSES", "ROLE_METHODS"] {
            out.push_str(&format!("    \"{name}\",\n"));
        }
        out.push_str("]\n\n");

        out.push_str("# Every request method, in the order of the schema's anyOf.\n");
        out.push_str("REQUEST_METHODS: tuple[str, ...] = (\n");
        for method in &self.methods {
            out.push_str(&format!("    {},\n", quoted(&method.name)));
        }
        out.push_str(")\n\n");

        out.push_str("# The methods a worker of each role accepts (x-accepted-by), in the order of REQUEST_METHODS.\n");
        out.push_str("ROLE_METHODS: dict[str, tuple[str, ...]] = {\n");
        for role in &self.roles {
            let names: Vec<String> = self
                .methods
                .iter()
                .filter(|method| method.accepted_by.contains(role))
                .map(|method| quoted(&method.name))
                .collect();
            let line =
                format!("    {}: ({}{}),", quoted(role), names.join(", "), if names.len() == 1 { "," } else { "" });
            if line.chars().count() <= 100 {
                out.push_str(&line);
                out.push('\n');
            } else {
                out.push_str(&format!("    {}: (\n", quoted(role)));
                for name in &names {
                    out.push_str(&format!("        {name},\n"));
                }
                out.push_str("    ),\n");
            }
        }
        out.push_str("}\n\n");

        let table = |out: &mut String, comment: &str, declaration: &str, rows: Vec<(&str, String)>| {
            if rows.is_empty() {
                out.push_str(&format!("# {comment}\n{declaration} = {{}}\n\n"));
                return;
            }
            out.push_str(&format!("# {comment}\n{declaration} = {{\n"));
            for (method, value) in rows {
                out.push_str(&format!("    {}: {value},\n", quoted(method)));
            }
            out.push_str("}\n\n");
        };
        let rows = |value: &dyn Fn(&Method) -> Option<String>| -> Vec<(&str, String)> {
            self.methods.iter().filter_map(|method| Some((method.name.as_str(), value(method)?))).collect()
        };
        table(
            &mut out,
            "The phase each method's request runs (x-phase, or the phase named after the method).",
            "PHASES: dict[str, Phase]",
            rows(&|method| Some(quoted(&method.phase))),
        );
        table(
            &mut out,
            "The capability a worker reports to serve a method (x-capability), for the methods that need one.",
            "CAPABILITIES: dict[str, Capability]",
            rows(&|method| method.capability.as_deref().map(quoted)),
        );
        table(
            &mut out,
            "The model of each method's request.",
            "REQUESTS: dict[str, Any]",
            rows(&|method| Some(class(&method.request))),
        );
        table(
            &mut out,
            "The model of each method's success response (x-response); a FailureResponse answers any.",
            "RESPONSES: dict[str, Any]",
            rows(&|method| Some(class(&method.response))),
        );
        out.truncate(out.trim_end().len());
        out.push('\n');
        out
    }
}

/// The Python models' class of a definition.
fn class(definition: &str) -> String {
    definition.to_upper_camel_case()
}
