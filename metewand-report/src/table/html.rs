//! A [`Table`] as an HTML `<table>`: figures in cells of class `n` (aligned right by the report's style), a key
//! column's cells as `<th>`, and each count column that is `0` in every row left out and named below the table, since
//! a wide table of zeros hides what matters.

use std::fmt::Write;

use crate::svg::escape;
use crate::table::{Cell, Kind, Span, Table, url_path};

/// The table as HTML, each tag's line ending in a newline.
pub fn render(table: &Table) -> String {
    let mut out = String::new();
    write(&mut out, table);
    out
}

/// Writes the table to `out`.
pub fn write(out: &mut String, table: &Table) {
    let shown = table.shown();
    out.push_str("<table>\n");
    if let Some(caption) = &table.caption {
        let _ = writeln!(out, "<caption>{}</caption>", escape(caption));
    }
    if table.header {
        out.push_str("<tr>");
        for &column in &shown {
            let column = &table.columns[column];
            // A header may break after an underscore: a metric's long name would otherwise widen its column.
            let header = escape(column.long_header.as_ref().unwrap_or(&column.header)).replace('_', "_<wbr>");
            let _ = write!(out, "<th>{header}</th>");
        }
        out.push_str("</tr>\n");
    }
    for row in &table.rows {
        out.push_str("<tr>");
        for &column in &shown {
            let (open, close) = match table.columns[column].kind {
                Kind::Heading => ("<th>", "</th>"),
                Kind::Text => ("<td>", "</td>"),
                Kind::Figure | Kind::Count => ("<td class=\"n\">", "</td>"),
            };
            let _ = write!(out, "{open}{}{close}", cell(&row[column]));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
    let hidden: Vec<&str> = (0..table.columns.len())
        .filter(|column| !shown.contains(column))
        .map(|column| table.columns[column].header.as_str())
        .collect();
    if !hidden.is_empty() {
        let _ =
            writeln!(out, "<p class=\"muted\">Zero in every row, so not shown: {}.</p>", escape(&hidden.join(", ")));
    }
}

/// A cell's spans as HTML: text escaped, code in `<code>`, links percent-encoded, line breaks as `<br>`.
pub fn cell(cell: &Cell) -> String {
    let mut out = String::new();
    for span in &cell.spans {
        let _ = match span {
            Span::Text(text) => write!(out, "{}", escape(text)),
            Span::Code(code) => write!(out, "<code>{}</code>", escape(code)),
            Span::Link { text, target } => write!(out, "<a href=\"{}\">{}</a>", url_path(target), escape(text)),
            Span::Break => write!(out, "<br>"),
        };
    }
    out
}
