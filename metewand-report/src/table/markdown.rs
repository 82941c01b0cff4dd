//! A [`Table`] as a Markdown (GitHub) table: a header row, a delimiter row (stating each column's alignment unless
//! the table leaves it to the viewer), a line per row. A cell holds one line, so a line break is a space, and a link
//! is its text alone: a Markdown report is often read as plain text, where a path is better than a link's syntax.

use std::fmt::Write;

use crate::table::{Cell, Span, Table};

/// Text for a Markdown table cell or line: `|`, line breaks and HTML (which Markdown viewers would render: a
/// metric's name and a failure's message come from workers) escaped.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    escape_into(&mut out, text);
    out
}

/// [`escape`], appended to `out` in one pass (a comparison's table is a row per cell: a million of them).
fn escape_into(out: &mut String, text: &str) {
    let mut rest = text;
    while let Some(at) = rest.find(['\\', '|', '\n', '\r', '&', '<', '>']) {
        out.push_str(&rest[..at]);
        let (byte, after) = (rest.as_bytes()[at], &rest[at + 1..]);
        out.push_str(match byte {
            b'\\' => "\\\\",
            b'|' => "\\|",
            b'\n' | b'\r' => " ",
            b'&' => "&amp;",
            b'<' => "&lt;",
            _ => "&gt;",
        });
        rest = after;
    }
    out.push_str(rest);
}

/// The table as Markdown: its caption, when it has one, as a paragraph before it; each line ending in a newline.
/// Markdown has no table without a header row: a headless table's headers are written as they are (empty).
pub fn render(table: &Table) -> String {
    let mut out = String::new();
    head_into(&mut out, table);
    rows_into(&mut out, table);
    out
}

/// The table's caption, header row and delimiter row, appended to `out`: a table of a million rows is written a
/// part at a time, its head once and then [`rows_into`] for each part's table.
pub fn head_into(out: &mut String, table: &Table) {
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
}

/// The table's rows, a line each, appended to `out`.
pub fn rows_into(out: &mut String, table: &Table) {
    for row in &table.rows {
        out.push('|');
        for value in row {
            out.push(' ');
            cell_into(out, value);
            out.push_str(" |");
        }
        out.push('\n');
    }
}

/// A cell's spans as Markdown: text escaped, code in backticks (only `|` and line breaks escaped there: nothing
/// else in a code span is markup), a link as its text, a line break as a space.
pub fn cell(cell: &Cell) -> String {
    let mut out = String::new();
    cell_into(&mut out, cell);
    out
}

/// [`cell`], appended to `out`.
fn cell_into(out: &mut String, cell: &Cell) {
    for span in &cell.spans {
        match span {
            Span::Text(text) | Span::Link { text, .. } => escape_into(out, text),
            Span::Code(code) => {
                let _ = write!(out, "`{}`", code.replace('|', "\\|").replace(['\n', '\r'], " "));
            }
            Span::Break => out.push(' '),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escaping_in_one_pass_is_escaping_each_character_in_turn() {
        let in_turn = |text: &str| {
            text.replace('\\', "\\\\")
                .replace('|', "\\|")
                .replace(['\n', '\r'], " ")
                .replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
        };
        for text in ["", "plain", "a\\|b\n<&>", "&lt;", "\\\\||\r\n", "ü|é<script>", "|", "tail\\"] {
            assert_eq!(escape(text), in_turn(text), "{text:?}");
        }
        assert_eq!(escape("a\\|b\n<&>"), "a\\\\\\|b &lt;&amp;&gt;");
    }
}
