//! A [`Table`] as CSV (RFC 4180): the headers, then a line per row, each cell's plain text quoted when it holds a
//! comma, a quote or a line break.

use crate::table::Table;

/// A CSV field: quoted, its quotes doubled, when it needs to be.
pub fn field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) { format!("\"{}\"", text.replace('"', "\"\"")) } else { text.to_owned() }
}

/// The table as CSV, each line ending in a newline.
pub fn render(table: &Table) -> String {
    let mut out = String::new();
    let mut line = |fields: Vec<String>| {
        out.push_str(&fields.join(","));
        out.push('\n');
    };
    line(table.columns.iter().map(|column| field(&column.header)).collect());
    for row in &table.rows {
        line(row.iter().map(|cell| field(&cell.plain())).collect());
    }
    out
}
