//! Python text: patterns both dialects read alike, literals, docstrings, and the writer that breaks long lines as
//! black does.

use super::WIDTH;
use crate::wrap;

/// Accepts only patterns that mean the same in ECMA-262 (JSON Schema's dialect) and in Python's `re` with
/// `re.ASCII`, matched with `fullmatch`: anchored at both ends, no top-level alternation, no `.` (whose line
/// terminators differ), and only escapes whose meaning is shared.
pub(super) fn check_pattern(pattern: &str) -> Result<(), String> {
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
pub(super) fn py_str(text: &str) -> String {
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
pub(super) fn py_pattern(pattern: &str) -> String {
    let raw_safe = pattern.chars().all(|c| (' '..='~').contains(&c) && c != '"') && !pattern.ends_with('\\');
    if raw_safe { format!("r\"{pattern}\"") } else { py_str(pattern) }
}

pub(super) fn escape_docstring(text: &str) -> String {
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
pub(super) enum Expr {
    Atom(String),
    Call(String, Vec<Expr>),
    /// `None if <name> is None else <expr>`.
    NoneIf(String, Box<Expr>),
}

impl Expr {
    pub(super) fn atom(text: impl Into<String>) -> Expr {
        Expr::Atom(text.into())
    }

    pub(super) fn flat(&self) -> String {
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
pub(super) struct Writer {
    pub(super) out: String,
}

impl Writer {
    pub(super) fn line(&mut self, level: usize, text: &str) {
        if !text.is_empty() {
            for _ in 0..level {
                self.out.push_str("    ");
            }
            self.out.push_str(text);
        }
        self.out.push('\n');
    }

    pub(super) fn blank(&mut self) {
        self.out.push('\n');
    }

    pub(super) fn fits(level: usize, text: &str) -> bool {
        level * 4 + text.chars().count() <= WIDTH
    }

    /// Writes `prefix expr suffix`, breaking the expression black-style when the line would be too long.
    pub(super) fn expr(&mut self, level: usize, prefix: &str, expr: &Expr, suffix: &str) {
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
    pub(super) fn arguments(&mut self, level: usize, open: &str, args: &[String], close: &str) {
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
    pub(super) fn set_call(&mut self, level: usize, prefix: &str, items: &[String]) {
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
    pub(super) fn sequence(
        &mut self,
        level: usize,
        prefix: &str,
        open: &str,
        items: &[String],
        close: &str,
        suffix: &str,
    ) {
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
    pub(super) fn import(&mut self, level: usize, module: &str, names: &[String]) {
        let flat = format!("from {module} import {}", names.join(", "));
        if Writer::fits(level, &flat) {
            self.line(level, &flat);
        } else {
            self.sequence(level, &format!("from {module} import "), "(", names, ")", "");
        }
    }

    /// Writes a docstring; paragraphs are separated by blank lines in `text`.
    pub(super) fn docstring(&mut self, level: usize, text: &str) {
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
