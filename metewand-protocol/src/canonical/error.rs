//! Why a document is outside the restricted domain, and where.

use std::fmt;

/// A document rejected by [`parse`](super::parse): which rule it broke, at which byte, and in which value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    kind: ParseErrorKind,
    offset: usize,
    path: Option<String>,
}

impl ParseError {
    pub(super) fn new(kind: ParseErrorKind, offset: usize, path: Option<String>) -> Self {
        Self { kind, offset, path }
    }

    /// The rule the document broke.
    pub fn kind(&self) -> &ParseErrorKind {
        &self.kind
    }

    /// The byte offset into the input where the offending text starts (the input's length for an early end).
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The JSON pointer (RFC 6901) of the value that was being parsed, `""` for the root value.
    ///
    /// `None` when the error is not inside any value: a byte-order mark, or text after the value. For a duplicate
    /// member name it is the pointer of the object holding the duplicate.
    pub fn path(&self) -> Option<&str> {
        self.path.as_deref()
    }
}

impl fmt::Display for ParseError {
    /// `<rule> at byte <offset>`, followed by ` (<pointer>)` when the value is known and is not the root.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.kind, self.offset)?;
        match self.path.as_deref() {
            Some(path) if !path.is_empty() => write!(f, " ({path})"),
            _ => Ok(()),
        }
    }
}

impl std::error::Error for ParseError {}

/// The rules of the restricted domain, one variant for each way a document can break them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// The bytes are not UTF-8.
    #[error("invalid UTF-8")]
    InvalidUtf8,
    /// The document starts with a UTF-8 byte-order mark.
    #[error("byte-order mark")]
    ByteOrderMark,
    /// The input ended inside a value, or held no value at all.
    #[error("unexpected end of input")]
    UnexpectedEnd,
    /// A character that cannot appear here.
    #[error("unexpected character {found:?}, expected {expected}")]
    UnexpectedCharacter {
        /// The character found.
        found: char,
        /// What the grammar allows at this point.
        expected: Expected,
    },
    /// Something other than white space follows the value.
    #[error("trailing characters after the value")]
    TrailingCharacters,
    /// An object names the same member twice (names compared after unescaping).
    #[error("duplicate member name {name:?}")]
    DuplicateKey {
        /// The repeated name, unescaped.
        name: String,
    },
    /// A `\u` escape of a UTF-16 surrogate that is not half of a high-low pair.
    #[error("lone surrogate \\u{code_unit:04x}")]
    LoneSurrogate {
        /// The unpaired code unit.
        code_unit: u16,
    },
    /// A backslash not followed by one of `" \ / b f n r t` or by `u` and four hex digits.
    #[error("invalid escape")]
    InvalidEscape,
    /// A raw control character (U+0000 to U+001F) inside a string, where it must be escaped.
    #[error("unescaped control character U+{code:04X} in a string")]
    ControlCharacter {
        /// The control character's code.
        code: u8,
    },
    /// A number that breaks the JSON number grammar (a leading zero, a missing digit).
    #[error("invalid number")]
    InvalidNumber,
    /// A number whose magnitude overflows a double.
    #[error("number out of range (overflows a double)")]
    NumberOutOfRange,
    /// An integer literal beyond ±(2^53 − 1) that is not the canonical spelling of the double it would become, so
    /// reading it would silently change its value or spelling.
    #[error("integer literal beyond ±(2^53 − 1) is not the exact canonical spelling of a double")]
    InexactInteger,
    /// Arrays and objects nested deeper than [`MAX_DEPTH`](super::MAX_DEPTH).
    #[error("nesting deeper than {}", super::MAX_DEPTH)]
    TooDeep,
}

/// What the grammar allowed where an unexpected character was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Expected {
    /// The start of a value.
    #[error("a value")]
    Value,
    /// A member name (a string).
    #[error("a member name")]
    MemberName,
    /// The colon after a member name.
    #[error("':'")]
    Colon,
    /// The next element or the end of an array.
    #[error("',' or ']'")]
    CommaOrEndOfArray,
    /// The next member or the end of an object.
    #[error("',' or '}}'")]
    CommaOrEndOfObject,
}
