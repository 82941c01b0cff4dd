//! x

pub mod canonical;

pub use canonical::{
    ParseError, ParseErrorKind, parse, to_canonical_string, to_canonical_vec, write_canonical,
};
