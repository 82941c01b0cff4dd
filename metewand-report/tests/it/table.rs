//! One table model, written by each format's renderer: the same columns and cells come out as HTML and as Markdown,
//! each escaped and aligned its own way, with the HTML alone folding away a count column of zeros.

use metewand_report::table::{Cell, Column, Table, csv, html, markdown};
use serde_json::Value;

use crate::python;

/// Two solvers' rows: a name carrying markup and a pipe, a count column that is zero in every row, a time, a link to
/// a folder whose name needs percent-encoding, and two ids on lines of their own.
fn solvers() -> Table {
    let columns = vec![
        Column::text("solver"),
        Column::count("skipped"),
        Column::figure("time").long("time (median over the repetitions)"),
        Column::text("folder"),
        Column::text("ids"),
    ];
    let mut table = Table::new(columns).caption("Solvers on one dataset:");
    let ids = ["mw1-a".to_owned(), "mw1-b".to_owned()];
    table.push(vec![
        Cell::text("<b>cg</b> | fast"),
        Cell::count(0),
        Cell::text("1.50 ms"),
        Cell::link("runs #2", "../runs #2"),
        Cell::code_lines(&ids),
    ]);
    table.push(vec![
        Cell::text("qr"),
        Cell::count(0),
        Cell::text("–"),
        Cell::code("/bin/qr").then(" (found)"),
        Cell::text(""),
    ]);
    table
}

#[test]
fn one_table_model_renders_to_html_and_markdown() {
    let table = solvers();

    let html = html::render(&table);
    let page = format!("<!DOCTYPE html><html><head><title>t</title></head><body>{html}</body></html>");
    let found = python("html_check.py", &Value::String(page));
    assert_eq!(found["errors"], Value::Array(vec![]), "the table nests properly: {html}");
    let text = found["text"].as_str().unwrap();
    assert!(text.contains("<b>cg</b> | fast"), "markup in a cell is shown as text: {text}");
    assert!(html.contains("<caption>Solvers on one dataset:</caption>"), "{html}");
    assert!(
        html.contains("<tr><th>solver</th><th>time (median over the repetitions)</th><th>folder</th><th>ids</th></tr>"),
        "the long header where there is room, and no column of zeros: {html}"
    );
    assert!(html.contains("<p class=\"muted\">Zero in every row, so not shown: skipped.</p>"), "{html}");
    assert!(html.contains("<td class=\"n\">1.50 ms</td>"), "figures are aligned right: {html}");
    assert!(html.contains("<td><a href=\"../runs%20%232\">runs #2</a></td>"), "{html}");
    assert!(html.contains("<td><code>mw1-a</code><br><code>mw1-b</code></td>"), "{html}");
    assert!(html.contains("<td><code>/bin/qr</code> (found)</td>"), "{html}");

    let markdown = markdown::render(&table);
    let lines: Vec<&str> = markdown.lines().collect();
    assert_eq!(lines[0], "Solvers on one dataset:", "the caption leads the table: {markdown}");
    assert_eq!(lines[2], "| solver | skipped | time | folder | ids |", "every column, each short header");
    assert_eq!(lines[3], "|---|---:|---:|---|---|", "figures and counts aligned right");
    assert_eq!(lines[4], "| &lt;b&gt;cg&lt;/b&gt; \\| fast | 0 | 1.50 ms | runs #2 | `mw1-a` `mw1-b` |");
    assert_eq!(lines[5], "| qr | 0 | – | `/bin/qr` (found) |  |");
    assert_eq!(lines.len(), 6);
    // Each row has as many unescaped pipes as the header: one more than its cells.
    for line in &lines[2..] {
        assert_eq!(line.replace("\\|", "").matches('|').count(), 6, "{line}");
    }

    let unaligned = markdown::render(&solvers().unaligned_in_markdown());
    assert!(unaligned.contains("\n|---|---|---|---|---|\n"), "{unaligned}");
}

#[test]
fn a_count_column_with_a_nonzero_row_is_shown_and_csv_quotes_what_it_must() {
    let mut table = solvers();
    table.rows[1][1] = Cell::count(3);
    let html = html::render(&table);
    assert!(html.contains("<th>skipped</th>") && html.contains("<td class=\"n\">3</td>"), "{html}");
    assert!(!html.contains("not shown"), "{html}");

    let csv = csv::render(&table);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "solver,skipped,time,folder,ids", "headers as the table names them, nothing folded");
    assert_eq!(lines[1], "<b>cg</b> | fast,0,1.50 ms,runs #2,mw1-a mw1-b", "plain text: no markup, no escape");
    assert_eq!(lines[2], "qr,3,–,/bin/qr (found),");
    let mut quoted = Table::new(vec![Column::text("message")]);
    quoted.push(vec![Cell::text("a, \"b\"")]);
    assert_eq!(csv::render(&quoted), "message\n\"a, \"\"b\"\"\"\n");
}
