//! Metewand's restricted JSON domain and its one canonical form.
//!
//! Workers are untrusted, so every document they send is read by [`parse`], which accepts only the restricted domain:
//! UTF-8 without a byte-order mark, exactly one value surrounded by nothing but JSON white space, no duplicate member
//! names, strings made of Unicode scalar values, numbers that are IEEE-754 doubles (an integer literal that a double
//! cannot hold is rejected instead of rounded), and at most [`MAX_DEPTH`] levels of nesting. Every rejection is a
//! [`ParseError`] naming the rule, the byte offset and, where known, the JSON pointer of the value.
//!
//! Everything Metewand writes goes through [`write_canonical`] (or [`to_canonical_vec`], [`to_canonical_string`]),
//! which produces the RFC 8785 (JSON Canonicalization Scheme) bytes: members sorted by the UTF-16 code units of their
//! names, no insignificant white space, the RFC's string escaping and numbers in ECMAScript's shortest round-trip
//! form. The canonical bytes of a parsed document always parse back to the same value, so they are a fixed point.
//!
//! Numbers are values, not spellings: `17`, `17.0` and `1.7e1` all parse to the integer 17, and any number whose
//! value is an integer within ±(2^53 − 1) becomes an integer [`serde_json::Number`]; every other number is an `f64`.

mod error;
mod parse;
mod scan;
mod write;

pub use error::{Expected, ParseError, ParseErrorKind};
pub use parse::parse;
pub use write::{
    to_canonical_string, to_canonical_vec, write_canonical, write_canonical_object, write_canonical_string,
};

/// The deepest nesting [`parse`] accepts, counting arrays and objects together (the root container is depth 1).
pub const MAX_DEPTH: usize = 128;

/// The largest magnitude up to which every integer is exactly representable as a double: 2^53 − 1.
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;
