//! A [`Table`] as a Markdown (GitHub) table: a header row, a delimiter row (stating each column's alignment unless
//! the table leaves it to the viewer), a line per row. A cell holds one line, so a line break is a space, and a link
//! is its text alone: a Markdown report is often read as plain text, where a path is better than a link's syntax.

use std::fmt::Write;

use crate::table::{Cell, Span, Table};

/// Text for a Markdown table cell or line: `|`, line breaks and HTML (which Markdown viewers would render: a
/// metric's name and a failure's message come from workers) escaped.
pub fn escape(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace(['\n', '\r'], " ")
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The table as Markdown: its caption, when it has one, as a paragraph before it; each line ending in a newline.
/// Markdown has no table without a header row: a headless table's headers are written as they are (empty).
pub fn render(table: &Table) -> String {
    let mut out = String::new();
    if let Some(caption) = &table.caption {
        let _ = write!(out, "{}\n\n", escape(caption));
    }
    out.push('|');
    for column in &table.columns {
        let _ = write!(out, " {} |", escape(&column.header));
    }
    out.push_str("\n|");
    for column in &table.columns {
        out.push_str(if table.markdown_alignment && column.kind.right() { "---:|" } else { "---|" });
    }
    out.push('\n');
    for row in &table.rows {
        out.push('|');
        for value in row {
            let _ = write!(out, " {} |", cell(value));
        }
        out.push('\n');
    }
    out
}

/// A cell's spans as Markdown: text escaped, code in backticks (only `|` and line breaks escaped there: nothing
/// else in a code span is markup), a link as its text, a line break as a space.
pub fn cell(cell: &Cell) -> String {
    let mut out = String::new();
    for span in &cell.spans {
        match span {
            Span::Text(text) | Span::Link { text, .. } => out.push_str(&escape(text)),
            Span::Code(code) => {
                let _ = write!(out, "`{}`", code.replace('|', "\\|").replace(['\n', '\r'], " "));
            }
            Span::Break => out.push(' '),
        }
    }
    out
}
