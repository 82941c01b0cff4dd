//! What the tidy rules read of a Rust source file, parsed with `syn`: how long each function of its non-test code
//! is, which `use` items import with a glob, where its non-test code converts through text (a print-and-parse),
//! and which of its `mod name;` declarations are test modules (whose files are then test code as a whole).

use syn::visit::{self, Visit};
use syn::{
    Attribute, Expr, ExprMethodCall, ImplItemFn, ItemFn, ItemImpl, ItemMod, ItemTrait, ItemUse, TraitItemFn, Type,
    UseTree,
};

/// A function of a file's non-test code, from its `fn` to its closing brace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Function {
    /// `Type::name` in an impl or a trait, `name` otherwise.
    pub(crate) name: String,
    /// The line of its `fn`, from 1.
    pub(crate) line: usize,
    /// Its length in lines, both ends included.
    pub(crate) lines: usize,
}

/// A `use` item that imports with a glob.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Glob {
    /// The line of its `use`, from 1.
    pub(crate) line: usize,
    /// The path up to the glob, `super::*` for `use super::*;`.
    pub(crate) import: String,
    /// Whether it lies inside test code (a `#[cfg(test)]` module or a `#[test]` function).
    pub(crate) in_test: bool,
}

/// What one file holds for the rules.
#[derive(Debug, Default)]
pub(crate) struct Scan {
    /// Every function of its non-test code, nested ones included (they count in their parent's length too).
    pub(crate) functions: Vec<Function>,
    /// Every glob import, in test code or not.
    pub(crate) globs: Vec<Glob>,
    /// The names of its `#[cfg(test)] mod name;` declarations.
    pub(crate) test_modules: Vec<String>,
    /// The lines of its non-test code where a method chain converts through text (`.to_string().parse()`) or
    /// panics on a refused parse (`.parse().unwrap()`, `.parse().expect(..)`, turbofish or not).
    pub(crate) bridges: Vec<usize>,
}

/// Parses `text` as a Rust file and scans it.
pub(crate) fn scan(text: &str) -> syn::Result<Scan> {
    let file = syn::parse_file(text)?;
    let mut scanner = Scanner { scan: Scan::default(), owner: None, in_test: false };
    scanner.visit_file(&file);
    Ok(scanner.scan)
}

struct Scanner {
    scan: Scan,
    /// The type or trait whose items are being visited.
    owner: Option<String>,
    in_test: bool,
}

impl Scanner {
    fn function(&mut self, name: &syn::Ident, fn_token: &syn::token::Fn, body: &syn::Block) {
        if self.in_test {
            return;
        }
        let line = fn_token.span.start().line;
        let end = body.brace_token.span.close().end().line;
        let name = match &self.owner {
            Some(owner) => format!("{owner}::{name}"),
            None => name.to_string(),
        };
        self.scan.functions.push(Function { name, line, lines: end + 1 - line });
    }

    /// Visits what `visit` visits, as test code when `test` is, and inside `owner` when it is some.
    fn within(&mut self, test: bool, owner: Option<String>, visit: impl FnOnce(&mut Scanner)) {
        let in_test = self.in_test;
        self.in_test |= test;
        let owner = match owner {
            Some(owner) => self.owner.replace(owner),
            None => self.owner.clone(),
        };
        visit(self);
        self.in_test = in_test;
        self.owner = owner;
    }
}

/// Whether `call` is a print-and-parse: `.parse()` called on `.to_string()`, or `.unwrap()` or `.expect(..)`
/// called on `.parse()`.
fn bridges(call: &ExprMethodCall) -> bool {
    let receiver = |method: &str| matches!(&*call.receiver, Expr::MethodCall(inner) if inner.method == method);
    match call.method.to_string().as_str() {
        "parse" => receiver("to_string"),
        "unwrap" | "expect" => receiver("parse"),
        _ => false,
    }
}

/// Whether the attributes hold `#[cfg(test)]` or `#[test]`.
fn is_test(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("test")
            || (attr.path().is_ident("cfg")
                && attr.meta.require_list().is_ok_and(|list| list.tokens.to_string().trim() == "test"))
    })
}

fn type_name(ty: &Type) -> String {
    match ty {
        Type::Path(path) => path.path.segments.last().map_or_else(String::new, |segment| segment.ident.to_string()),
        Type::Reference(reference) => type_name(&reference.elem),
        _ => "impl".to_owned(),
    }
}

/// The globs of a use tree, each as the path that leads to it.
fn globs(tree: &UseTree, prefix: &str, out: &mut Vec<String>) {
    match tree {
        UseTree::Path(path) => globs(&path.tree, &format!("{prefix}{}::", path.ident), out),
        UseTree::Group(group) => group.items.iter().for_each(|item| globs(item, prefix, out)),
        UseTree::Glob(_) => out.push(format!("{prefix}*")),
        UseTree::Name(_) | UseTree::Rename(_) => {}
    }
}

impl<'ast> Visit<'ast> for Scanner {
    fn visit_item_mod(&mut self, node: &'ast ItemMod) {
        let test = is_test(&node.attrs);
        if test && node.content.is_none() {
            self.scan.test_modules.push(node.ident.to_string());
        }
        self.within(test, None, |scanner| visit::visit_item_mod(scanner, node));
    }

    fn visit_item_fn(&mut self, node: &'ast ItemFn) {
        self.within(is_test(&node.attrs), None, |scanner| {
            scanner.function(&node.sig.ident, &node.sig.fn_token, &node.block);
            // A function nested in another is named on its own.
            let owner = scanner.owner.take();
            visit::visit_item_fn(scanner, node);
            scanner.owner = owner;
        });
    }

    fn visit_item_impl(&mut self, node: &'ast ItemImpl) {
        let owner = type_name(&node.self_ty);
        self.within(is_test(&node.attrs), Some(owner), |scanner| visit::visit_item_impl(scanner, node));
    }

    fn visit_item_trait(&mut self, node: &'ast ItemTrait) {
        let owner = node.ident.to_string();
        self.within(is_test(&node.attrs), Some(owner), |scanner| visit::visit_item_trait(scanner, node));
    }

    fn visit_impl_item_fn(&mut self, node: &'ast ImplItemFn) {
        self.within(is_test(&node.attrs), None, |scanner| {
            scanner.function(&node.sig.ident, &node.sig.fn_token, &node.block);
            let owner = scanner.owner.take();
            visit::visit_impl_item_fn(scanner, node);
            scanner.owner = owner;
        });
    }

    fn visit_trait_item_fn(&mut self, node: &'ast TraitItemFn) {
        self.within(is_test(&node.attrs), None, |scanner| {
            if let Some(body) = &node.default {
                scanner.function(&node.sig.ident, &node.sig.fn_token, body);
            }
            let owner = scanner.owner.take();
            visit::visit_trait_item_fn(scanner, node);
            scanner.owner = owner;
        });
    }

    fn visit_expr_method_call(&mut self, node: &'ast ExprMethodCall) {
        if !self.in_test && bridges(node) {
            self.scan.bridges.push(node.method.span().start().line);
        }
        visit::visit_expr_method_call(self, node);
    }

    fn visit_item_use(&mut self, node: &'ast ItemUse) {
        let mut found = Vec::new();
        globs(&node.tree, if node.leading_colon.is_some() { "::" } else { "" }, &mut found);
        let line = node.use_token.span.start().line;
        let in_test = self.in_test || is_test(&node.attrs);
        self.scan.globs.extend(found.into_iter().map(|import| Glob { line, import, in_test }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn functions_are_measured_from_fn_to_their_closing_brace_and_test_code_is_left_out() {
        let text = "\
/// A doc comment is not counted.
#[inline]
pub fn free(
    a: u8,
) -> u8 {
    fn nested() {}
    a
}

struct Thing;

impl Thing {
    fn method(&self) {
        let _ = 1;
    }
}

trait Named {
    fn required(&self);
    fn provided(&self) {}
}

#[test]
fn a_test() {
    let _ = 1;
}

#[cfg(test)]
mod tests {
    fn helper() {}
}

#[cfg(test)]
mod more;
mod kept;
";
        let scan = scan(text).unwrap();
        let found: Vec<(&str, usize, usize)> =
            scan.functions.iter().map(|f| (f.name.as_str(), f.line, f.lines)).collect();
        assert_eq!(found, [("free", 3, 6), ("nested", 6, 1), ("Thing::method", 13, 3), ("Named::provided", 20, 1)]);
        assert_eq!(scan.test_modules, ["more"]);
    }

    #[test]
    fn a_print_and_parse_is_found_outside_test_code_only() {
        let text = "\
//! `\"0-3\".parse().unwrap()` in a doc comment is a doctest's.
fn key(digest: Digest) -> Key {
    digest.to_string().parse().ok().unwrap_or_default()
}
fn name(text: &str) -> Name {
    text.parse().expect(\"a name is nonempty\")
}
fn id(text: &str) -> Id {
    text.parse::<Id>().unwrap()
}
fn seed(text: &str) -> Seed {
    text.trim()
        .parse::<Wrapper<u64>>()
        .expect(\"a seed\")
}
fn checked(text: &str) -> Option<Seed> {
    text.parse().ok()
}
#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    fn parsed() -> Id {
        \"x\".parse().unwrap()
    }
}
#[test]
fn planted() {
    let _: u8 = \"1\".parse().unwrap();
}
fn after() -> Id {
    ID.parse().unwrap()
}
";
        assert_eq!(scan(text).unwrap().bridges, [3, 6, 9, 14, 31]);
    }

    #[test]
    fn every_glob_is_found_with_where_it_lies() {
        let text = "\
use std::io::{self, prelude::*};
use ::std::collections::*;

fn f() {
    use Kind::*;
}

#[cfg(test)]
mod tests {
    use super::*;
}
";
        let found: Vec<(usize, String, bool)> =
            scan(text).unwrap().globs.into_iter().map(|glob| (glob.line, glob.import, glob.in_test)).collect();
        assert_eq!(
            found,
            [
                (1, "std::io::prelude::*".to_owned(), false),
                (2, "::std::collections::*".to_owned(), false),
                (5, "Kind::*".to_owned(), false),
                (10, "super::*".to_owned(), true),
            ]
        );
    }
}
