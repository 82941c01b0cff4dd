//! The writer of RFC 8785 canonical bytes.

use std::cmp::Ordering;

use serde_json::{Map, Number, Value};

use super::MAX_SAFE_INTEGER;
use super::scan::plain_run_end;

/// The canonical (RFC 8785) bytes of `value`.
///
/// See [`write_canonical`] for the rules and for the few values that no parsed document produces.
pub fn to_canonical_vec(value: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    write_canonical(value, &mut out);
    out
}

/// The canonical (RFC 8785) text of `value`.
///
/// See [`write_canonical`] for the rules and for the few values that no parsed document produces.
pub fn to_canonical_string(value: &Value) -> String {
    // Names and strings are already UTF-8 and everything added around them is ASCII.
    String::from_utf8(to_canonical_vec(value)).expect("canonical JSON is UTF-8")
}

/// Appends the canonical (RFC 8785) bytes of `value` to `out`.
///
/// Object members are sorted by the UTF-16 code units of their names, there is no insignificant white space,
/// strings escape only `"`, `\` and control characters (as `\b \t \n \f \r` or `\u00xx` with lowercase hex), and
/// numbers are written as ECMAScript's `Number.prototype.toString` writes them (`1.0` as `1`, `-0` as `0`, `1e21` as
/// `1e+21`).
///
/// Writing never fails. Every value that [`parse`](super::parse) returns is written so that it parses back to
/// itself. Two kinds of number cannot come from `parse` and are handled as follows:
///
/// - an integer [`Number`] beyond ±2^53 (such as `u64::MAX`) is written as the double nearest to it, since RFC 8785
///   treats every number as a double; check such integers before writing if their exact value matters;
/// - a non-finite `f64` (which a [`Number`] cannot hold unless serde_json's `arbitrary_precision` feature lets one
///   in) is written as `null`, as serde_json writes it.
///
/// Writing recurses once per level of nesting, which `parse` bounds; a value built by hand should stay within
/// reasonable depth.
pub fn write_canonical(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(number) => write_number(number, out),
        Value::String(text) => write_string(text, out),
        Value::Array(elements) => {
            out.push(b'[');
            for (index, element) in elements.iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                write_canonical(element, out);
            }
            out.push(b']');
        }
        Value::Object(members) => write_object(members, out),
    }
}

/// Appends the canonical bytes of the object `members`, as [`write_canonical`] writes it inside a value: for a caller
/// that writes an object of its own member by member, without building a [`Value`] of it.
pub fn write_canonical_object(members: &Map<String, Value>, out: &mut Vec<u8>) {
    write_object(members, out);
}

/// Appends the canonical bytes of the string `text` (quoted and escaped), as [`write_canonical`] writes it.
pub fn write_canonical_string(text: &str, out: &mut Vec<u8>) {
    write_string(text, out);
}

fn write_object(members: &Map<String, Value>, out: &mut Vec<u8>) {
    // The map usually iterates in UTF-8 byte order, which is UTF-16 order for almost every set of names. The names
    // alone are checked before anything is written: finding the disorder midway and starting again would write
    // nested values twice per level, which nesting compounds.
    let mut names = members.keys().map(String::as_str);
    let mut in_order = true;
    if let Some(mut previous) = names.next() {
        for name in names {
            if utf16_cmp(previous, name) != Ordering::Less {
                in_order = false;
                break;
            }
            previous = name;
        }
    }
    out.push(b'{');
    if in_order {
        for (index, (name, value)) in members.iter().enumerate() {
            if index > 0 {
                out.push(b',');
            }
            write_member(name, value, out);
        }
    } else {
        let mut sorted: Vec<(&String, &Value)> = members.iter().collect();
        sorted.sort_unstable_by(|(a, _), (b, _)| utf16_cmp(a, b));
        for (index, (name, value)) in sorted.into_iter().enumerate() {
            if index > 0 {
                out.push(b',');
            }
            write_member(name, value, out);
        }
    }
    out.push(b'}');
}

fn write_member(name: &str, value: &Value, out: &mut Vec<u8>) {
    write_string(name, out);
    out.push(b':');
    write_canonical(value, out);
}

/// Compares two strings by their UTF-16 code units without transcoding them.
///
/// UTF-8 byte order is code point order, and it agrees with UTF-16 order except where a character in
/// U+E000..=U+FFFF meets one above U+FFFF: in UTF-16 the latter starts with a surrogate (0xD800..0xDBFF), so it
/// sorts first. Only the first differing character decides, so only it needs looking at.
fn utf16_cmp(a: &str, b: &str) -> Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let Some(index) = first_difference(a, b) else {
        return a.len().cmp(&b.len());
    };
    let (x, y) = (a[index], b[index]);
    // A shared prefix puts both differing bytes at the same position in their characters: two continuation bytes
    // belong to characters with the same lead byte, whose order the bytes decide.
    let upper_bmp = |lead: u8| matches!(lead, 0xEE | 0xEF);
    let astral = |lead: u8| lead >= 0xF0;
    if upper_bmp(x) && astral(y) {
        Ordering::Greater
    } else if astral(x) && upper_bmp(y) {
        Ordering::Less
    } else {
        x.cmp(&y)
    }
}

/// The index of the first byte where `a` and `b` differ, if one is not a prefix of the other.
fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    let common = a.len().min(b.len());
    let (a, b) = (&a[..common], &b[..common]);
    // Names often share long prefixes, so compare eight bytes at a time.
    for (index, (x, y)) in a.chunks_exact(8).zip(b.chunks_exact(8)).enumerate() {
        let x = u64::from_le_bytes([x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]]);
        let y = u64::from_le_bytes([y[0], y[1], y[2], y[3], y[4], y[5], y[6], y[7]]);
        if x != y {
            // Little-endian, so the lowest differing bit is in the first differing byte.
            return Some(index * 8 + (x ^ y).trailing_zeros() as usize / 8);
        }
    }
    let tail = common - common % 8;
    (tail..common).find(|&index| a[index] != b[index])
}

/// The escape for each stop byte: `u` for `\u00xx`, otherwise the letter after the backslash.
const ESCAPE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = b'u';
        byte += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0A] = b'n';
    table[0x0C] = b'f';
    table[0x0D] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

fn write_string(text: &str, out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = text.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut run_start = 0;
    loop {
        let index = plain_run_end(bytes, run_start);
        out.extend_from_slice(&bytes[run_start..index]);
        let Some(&byte) = bytes.get(index) else { break };
        let escape = ESCAPE[usize::from(byte)];
        if escape == b'u' {
            out.extend_from_slice(b"\\u00");
            out.push(HEX[usize::from(byte >> 4)]);
            out.push(HEX[usize::from(byte & 0xF)]);
        } else {
            out.push(b'\\');
            out.push(escape);
        }
        run_start = index + 1;
    }
    out.push(b'"');
}

fn write_number(number: &Number, out: &mut Vec<u8>) {
    // Integers up to 2^53 are written as their digits, which is also how ECMAScript writes them; beyond that the
    // integer becomes its nearest double, as RFC 8785 reads every number.
    if let Some(magnitude) = number.as_u64() {
        if magnitude <= MAX_SAFE_INTEGER + 1 {
            write_integer(false, magnitude, out);
        } else {
            write_double(magnitude as f64, out);
        }
    } else if let Some(signed) = number.as_i64() {
        let magnitude = signed.unsigned_abs();
        if magnitude <= MAX_SAFE_INTEGER + 1 {
            write_integer(signed < 0, magnitude, out);
        } else {
            write_double(signed as f64, out);
        }
    } else {
        match number.as_f64() {
            Some(double) if double.is_finite() => write_double(double, out),
            _ => out.extend_from_slice(b"null"),
        }
    }
}

fn write_integer(negative: bool, mut magnitude: u64, out: &mut Vec<u8>) {
    if negative {
        out.push(b'-');
    }
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (magnitude % 10) as u8;
        magnitude /= 10;
        if magnitude == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[start..]);
}

/// Writes a finite double in ECMAScript's shortest round-trip form.
pub(super) fn write_double(double: f64, out: &mut Vec<u8>) {
    if double == 0.0 {
        // ECMAScript writes -0 as 0.
        out.push(b'0');
        return;
    }
    let mut buffer = ryu_js::Buffer::new();
    out.extend_from_slice(buffer.format_finite(double).as_bytes());
}
