//! One table model for every format: a report's logic builds each table once (its columns, each with its kind, its
//! rows of cells, a caption), and a renderer per format writes it: [`html`], [`markdown`] and [`csv`]. A table says
//! what its cells are (text, code, a link, a count); each renderer decides how that is written and escaped, so the
//! formats cannot disagree on a table's contents.

pub mod csv;
pub mod html;
pub mod markdown;

/// What a column holds, which decides how it lines up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Names and other text, aligned left.
    Text,
    /// The key of a key–value table: aligned left, written as a heading where the format has row headings.
    Heading,
    /// Figures, aligned right so that their digits line up.
    Figure,
    /// A count that says nothing when it is zero: a figure, which the HTML leaves out when every row has `0`.
    Count,
}

impl Kind {
    /// Whether the column's cells are aligned right.
    pub fn right(self) -> bool {
        matches!(self, Kind::Figure | Kind::Count)
    }
}

/// One column: its header and what it holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    /// The header, as every format writes it.
    pub header: String,
    /// A longer header for a format with room for it (the HTML), when it says more than [`Column::header`].
    pub long_header: Option<String>,
    /// What the column holds.
    pub kind: Kind,
}

impl Column {
    /// A column of `kind` headed `header`.
    pub fn new(kind: Kind, header: impl Into<String>) -> Column {
        Column { header: header.into(), long_header: None, kind }
    }

    /// A column of text.
    pub fn text(header: impl Into<String>) -> Column {
        Column::new(Kind::Text, header)
    }

    /// A column of figures.
    pub fn figure(header: impl Into<String>) -> Column {
        Column::new(Kind::Figure, header)
    }

    /// A column of counts, which the HTML folds away when every row has `0`.
    pub fn count(header: impl Into<String>) -> Column {
        Column::new(Kind::Count, header)
    }

    /// The column with `header` where there is room for it.
    pub fn long(mut self, header: impl Into<String>) -> Column {
        self.long_header = Some(header.into());
        self
    }
}

/// A piece of a cell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Span {
    /// Plain text.
    Text(String),
    /// Code: a command, a path, an id.
    Code(String),
    /// A link: its text, and the relative path it leads to.
    Link {
        /// The text shown.
        text: String,
        /// The path, relative to where the report is written.
        target: String,
    },
    /// A line break, where a format's cells can hold one (a space where they cannot).
    Break,
}

/// One cell: its spans, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cell {
    /// The spans.
    pub spans: Vec<Span>,
}

impl Cell {
    /// A cell of plain text.
    pub fn text(text: impl Into<String>) -> Cell {
        Cell { spans: vec![Span::Text(text.into())] }
    }

    /// A count.
    pub fn count(count: usize) -> Cell {
        Cell::text(count.to_string())
    }

    /// A cell of code.
    pub fn code(code: impl Into<String>) -> Cell {
        Cell { spans: vec![Span::Code(code.into())] }
    }

    /// A link with `text` to `target`.
    pub fn link(text: impl Into<String>, target: impl Into<String>) -> Cell {
        Cell { spans: vec![Span::Link { text: text.into(), target: target.into() }] }
    }

    /// Each of `codes` as code, one a line.
    pub fn code_lines<'a>(codes: impl IntoIterator<Item = &'a String>) -> Cell {
        let mut spans = Vec::new();
        for code in codes {
            if !spans.is_empty() {
                spans.push(Span::Break);
            }
            spans.push(Span::Code(code.clone()));
        }
        Cell { spans }
    }

    /// The cell followed by the plain text `text`.
    pub fn then(mut self, text: impl Into<String>) -> Cell {
        let text = text.into();
        if !text.is_empty() {
            self.spans.push(Span::Text(text));
        }
        self
    }

    /// The cell's text without markup: a link's text, code as it is, a line break as a space.
    pub fn plain(&self) -> String {
        self.spans
            .iter()
            .map(|span| match span {
                Span::Text(text) | Span::Code(text) | Span::Link { text, .. } => text.as_str(),
                Span::Break => " ",
            })
            .collect()
    }
}

/// A table: a caption, columns and rows of cells, built once and written by each format's renderer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    /// A sentence introducing the table, when it has one.
    pub caption: Option<String>,
    /// The columns.
    pub columns: Vec<Column>,
    /// The rows, each with one cell per column.
    pub rows: Vec<Vec<Cell>>,
    /// Whether the table has a header row (a key–value table has none).
    pub header: bool,
    /// Whether the Markdown states each column's alignment (`---:` for figures); the plan and failures tables leave
    /// it to the viewer, whose default aligns every column left.
    pub markdown_alignment: bool,
}

impl Table {
    /// A table of `columns` without rows.
    pub fn new(columns: Vec<Column>) -> Table {
        Table { caption: None, columns, rows: Vec::new(), header: true, markdown_alignment: true }
    }

    /// The table introduced by `caption`.
    pub fn caption(mut self, caption: impl Into<String>) -> Table {
        self.caption = Some(caption.into());
        self
    }

    /// The table without a header row.
    pub fn headless(mut self) -> Table {
        self.header = false;
        self
    }

    /// The table with no alignment stated in its Markdown.
    pub fn unaligned_in_markdown(mut self) -> Table {
        self.markdown_alignment = false;
        self
    }

    /// Adds a row; it has one cell per column.
    pub fn push(&mut self, row: Vec<Cell>) {
        debug_assert_eq!(row.len(), self.columns.len(), "a row has one cell per column");
        self.rows.push(row);
    }

    /// The columns a renderer that folds shows: all but the counts that are `0` in every row.
    pub fn shown(&self) -> Vec<usize> {
        (0..self.columns.len())
            .filter(|&column| {
                self.columns[column].kind != Kind::Count || self.rows.iter().any(|row| row[column].plain() != "0")
            })
            .collect()
    }
}

/// A relative path as a URL path: bytes outside `A-Z a-z 0-9 - . _ ~ /` percent-encoded (a folder named
/// `runs #2` must not end its link at the `#`).
pub fn url_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}
