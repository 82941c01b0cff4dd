//! The reader of the restricted domain: a byte-oriented recursive-descent parser into [`serde_json::Value`].

use serde_json::{Number, Value};

use super::error::{Expected, ParseError, ParseErrorKind};
use super::scan::plain_run_end;
use super::write::write_double;
use super::{MAX_DEPTH, MAX_SAFE_INTEGER};

/// Parses one document of the restricted domain into a [`Value`].
///
/// The domain is UTF-8 without a byte-order mark; exactly one value with only JSON white space (space, tab, LF, CR)
/// around it; objects without duplicate member names (compared after unescaping); strings of Unicode scalar values
/// (escaped surrogate pairs are combined, a lone surrogate is rejected); numbers read as the nearest double, where
/// overflow is rejected, underflow becomes 0, and an integer literal beyond ±(2^53 − 1) is accepted only if it is
/// the canonical spelling of its double; and at most [`MAX_DEPTH`] nested arrays and objects.
///
/// A number whose value is an integer within ±(2^53 − 1), however it is spelled, becomes an integer
/// [`Number`] (`-0` becomes `0`); every other number becomes an `f64` one.
///
/// # Errors
///
/// A [`ParseError`] for the first rule the document breaks, with its byte offset and the JSON pointer of the value.
///
/// # Examples
///
/// ```
/// use metewand_protocol::{ParseErrorKind, parse, to_canonical_string};
///
/// let value = parse(br#"{"seed": 17.0, "b": [1e-7, "\u00e9"], "a": -0}"#).unwrap();
/// assert_eq!(value["seed"].as_u64(), Some(17));
/// assert_eq!(to_canonical_string(&value), r#"{"a":0,"b":[1e-7,"é"],"seed":17}"#);
///
/// let error = parse(br#"{"a": {"id": 1, "id": 2}}"#).unwrap_err();
/// assert_eq!(error.kind(), &ParseErrorKind::DuplicateKey { name: "id".into() });
/// assert_eq!(error.offset(), 16);
/// assert_eq!(error.path(), Some("/a"));
/// assert_eq!(error.to_string(), r#"duplicate member name "id" at byte 16 (/a)"#);
/// ```
pub fn parse(bytes: &[u8]) -> Result<Value, ParseError> {
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        return Err(ParseError::new(ParseErrorKind::ByteOrderMark, 0, None));
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) => std::str::from_utf8(&bytes[..error.valid_up_to()]).unwrap_or_default(),
    };
    let mut parser = Parser { bytes, text, pos: 0 };
    parser.skip_whitespace();
    let value = parser.parse_value(0).map_err(|fail| fail.into_error())?;
    parser.skip_whitespace();
    if parser.pos < bytes.len() {
        let kind = match parser.char_at(parser.pos) {
            Some(_) => ParseErrorKind::TrailingCharacters,
            None => ParseErrorKind::InvalidUtf8,
        };
        return Err(ParseError::new(kind, parser.pos, None));
    }
    Ok(value)
}

/// One step of a JSON pointer, recorded only while an error unwinds so that success pays nothing for paths.
enum Segment {
    Index(usize),
    Key(String),
}

/// An error on its way out of the parser; the path grows as it passes each enclosing container.
struct Fail {
    kind: ParseErrorKind,
    offset: usize,
    /// Innermost segment first.
    segments: Vec<Segment>,
}

impl Fail {
    fn into_error(self) -> ParseError {
        let mut path = String::new();
        for segment in self.segments.iter().rev() {
            path.push('/');
            match segment {
                Segment::Index(index) => path.push_str(&index.to_string()),
                Segment::Key(key) => {
                    for c in key.chars() {
                        match c {
                            '~' => path.push_str("~0"),
                            '/' => path.push_str("~1"),
                            c => path.push(c),
                        }
                    }
                }
            }
        }
        ParseError::new(self.kind, self.offset, Some(path))
    }
}

/// The order of `String`s, eight bytes at a time: names often share long prefixes, and comparing them inline is
/// much faster than calling out for every pair a sort compares.
fn byte_order(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    for (x, y) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        let x = u64::from_be_bytes([x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]]);
        let y = u64::from_be_bytes([y[0], y[1], y[2], y[3], y[4], y[5], y[6], y[7]]);
        if x != y {
            return x.cmp(&y);
        }
    }
    let common = a.len().min(b.len()) / 8 * 8;
    let (a, b) = (&a[common..], &b[common..]);
    for (x, y) in a.iter().zip(b) {
        if x != y {
            return x.cmp(y);
        }
    }
    a.len().cmp(&b.len())
}

/// A member of an object being read, with the offset of its name.
struct Member {
    name: String,
    value: Value,
    offset: usize,
}

/// Boxed so that the `Ok` path of every parsing function stays as small as a `Value`.
type Failure = Box<Fail>;

fn fail(kind: ParseErrorKind, offset: usize) -> Failure {
    Box::new(Fail { kind, offset, segments: Vec::new() })
}

fn within(mut failure: Failure, segment: Segment) -> Failure {
    failure.segments.push(segment);
    failure
}

struct Parser<'a> {
    bytes: &'a [u8],
    /// The longest prefix of `bytes` that is UTF-8: checked once for the whole input, so that taking a string's
    /// text costs only a slice.
    text: &'a str,
    pos: usize,
}

impl<'a> Parser<'a> {
    /// The text of a plain run inside a string, which starts and ends at ASCII bytes.
    ///
    /// Only a string can hold a byte that is not ASCII, so the first byte that is not UTF-8, if any, is either
    /// found by `unexpected` outside strings or lies in the first run that reaches past the valid prefix.
    fn plain_text(&self, start: usize, end: usize) -> Result<&'a str, Failure> {
        self.text.get(start..end).ok_or_else(|| fail(ParseErrorKind::InvalidUtf8, self.text.len()))
    }

    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    /// The character starting at `offset`, or `None` if the bytes there are not UTF-8.
    fn char_at(&self, offset: usize) -> Option<char> {
        let end = self.bytes.len().min(offset + 4);
        let window = &self.bytes[offset..end];
        let valid = match std::str::from_utf8(window) {
            Ok(text) => text,
            // The window may cut a later character short; only the first one matters.
            Err(error) => std::str::from_utf8(&window[..error.valid_up_to()]).unwrap_or_default(),
        };
        valid.chars().next()
    }

    /// The error for the byte at `self.pos`, which does not fit the grammar here.
    fn unexpected(&self, expected: Expected) -> Failure {
        if self.pos >= self.bytes.len() {
            return fail(ParseErrorKind::UnexpectedEnd, self.pos);
        }
        match self.char_at(self.pos) {
            Some(found) => fail(ParseErrorKind::UnexpectedCharacter { found, expected }, self.pos),
            None => fail(ParseErrorKind::InvalidUtf8, self.pos),
        }
    }

    /// Parses the value at `self.pos`, which is not white space; `depth` counts the containers around it.
    fn parse_value(&mut self, depth: usize) -> Result<Value, Failure> {
        match self.bytes.get(self.pos) {
            Some(b'{') => self.parse_object(depth + 1),
            Some(b'[') => self.parse_array(depth + 1),
            Some(b'"') => self.parse_string().map(Value::String),
            Some(b'-' | b'0'..=b'9') => self.parse_number(),
            Some(b't') => self.parse_literal(b"true", Value::Bool(true)),
            Some(b'f') => self.parse_literal(b"false", Value::Bool(false)),
            Some(b'n') => self.parse_literal(b"null", Value::Null),
            _ => Err(self.unexpected(Expected::Value)),
        }
    }

    fn parse_literal(&mut self, literal: &[u8], value: Value) -> Result<Value, Failure> {
        for &expected in literal {
            if self.bytes.get(self.pos) != Some(&expected) {
                return Err(self.unexpected(Expected::Value));
            }
            self.pos += 1;
        }
        Ok(value)
    }

    fn parse_array(&mut self, depth: usize) -> Result<Value, Failure> {
        if depth > MAX_DEPTH {
            return Err(fail(ParseErrorKind::TooDeep, self.pos));
        }
        self.pos += 1;
        self.skip_whitespace();
        let mut elements = Vec::new();
        if self.bytes.get(self.pos) == Some(&b']') {
            self.pos += 1;
            return Ok(Value::Array(elements));
        }
        loop {
            match self.parse_value(depth) {
                Ok(element) => elements.push(element),
                Err(failure) => return Err(within(failure, Segment::Index(elements.len()))),
            }
            self.skip_whitespace();
            match self.bytes.get(self.pos) {
                Some(b',') => {
                    self.pos += 1;
                    self.skip_whitespace();
                }
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Value::Array(elements));
                }
                _ => return Err(self.unexpected(Expected::CommaOrEndOfArray)),
            }
        }
    }

    fn parse_object(&mut self, depth: usize) -> Result<Value, Failure> {
        if depth > MAX_DEPTH {
            return Err(fail(ParseErrorKind::TooDeep, self.pos));
        }
        self.pos += 1;
        self.skip_whitespace();
        // Collecting the members and building the map at once costs far less than growing a map member by member,
        // and duplicates are then found by sorting, which no choice of names can slow down. While names arrive in
        // increasing order (as a canonical document's do) none can repeat, and no sorting is needed.
        let mut members = Vec::new();
        let mut in_order = true;
        let outcome = self.parse_members(depth, &mut members, &mut in_order);
        if !in_order {
            members.sort_unstable_by(|a, b| {
                byte_order(a.name.as_bytes(), b.name.as_bytes()).then(a.offset.cmp(&b.offset))
            });
            // A repeated name comes before anything wrong after it, including an error that ended the object early.
            let earliest_repeat =
                members.windows(2).filter(|pair| pair[0].name == pair[1].name).min_by_key(|pair| pair[1].offset);
            if let Some([_, repeat]) = earliest_repeat {
                let name = repeat.name.clone();
                return Err(fail(ParseErrorKind::DuplicateKey { name }, repeat.offset));
            }
        }
        outcome?;
        let members = members.into_iter().map(|member| (member.name, member.value));
        Ok(Value::Object(members.collect()))
    }

    /// Parses the members of the object whose `{` has been read, through its `}`, onto `members`; clears
    /// `in_order` at the first name that is not greater than the one before.
    fn parse_members(&mut self, depth: usize, members: &mut Vec<Member>, in_order: &mut bool) -> Result<(), Failure> {
        if self.bytes.get(self.pos) == Some(&b'}') {
            self.pos += 1;
            return Ok(());
        }
        loop {
            if self.bytes.get(self.pos) != Some(&b'"') {
                return Err(self.unexpected(Expected::MemberName));
            }
            let offset = self.pos;
            let name = self.parse_string()?;
            self.skip_whitespace();
            if self.bytes.get(self.pos) != Some(&b':') {
                return Err(self.unexpected(Expected::Colon));
            }
            self.pos += 1;
            self.skip_whitespace();
            if *in_order && members.last().is_some_and(|last| byte_order(last.name.as_bytes(), name.as_bytes()).is_ge())
            {
                *in_order = false;
            }
            // The member is recorded before its value is read, so that a repeated name is still found when the
            // value turns out to be wrong.
            members.push(Member { name, value: Value::Null, offset });
            let member = members.len() - 1;
            match self.parse_value(depth) {
                Ok(value) => members[member].value = value,
                Err(failure) => {
                    let name = members[member].name.clone();
                    return Err(within(failure, Segment::Key(name)));
                }
            }
            self.skip_whitespace();
            match self.bytes.get(self.pos) {
                Some(b',') => {
                    self.pos += 1;
                    self.skip_whitespace();
                }
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => return Err(self.unexpected(Expected::CommaOrEndOfObject)),
            }
        }
    }

    /// Parses the string whose opening quote is at `self.pos`.
    fn parse_string(&mut self) -> Result<String, Failure> {
        self.pos += 1;
        let start = self.pos;
        let end = plain_run_end(self.bytes, start);
        if self.bytes.get(end) == Some(&b'"') {
            let text = self.plain_text(start, end)?;
            self.pos = end + 1;
            return Ok(text.to_owned());
        }
        let mut text = String::with_capacity(end - start + 8);
        let mut run_start = start;
        let mut run_end = end;
        loop {
            text.push_str(self.plain_text(run_start, run_end)?);
            self.pos = run_end;
            match self.bytes.get(run_end) {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(text);
                }
                Some(b'\\') => self.parse_escape(&mut text)?,
                Some(&code) => {
                    return Err(fail(ParseErrorKind::ControlCharacter { code }, run_end));
                }
                None => return Err(fail(ParseErrorKind::UnexpectedEnd, run_end)),
            }
            run_start = self.pos;
            run_end = plain_run_end(self.bytes, run_start);
        }
    }

    /// Decodes the escape whose backslash is at `self.pos` onto `text`.
    fn parse_escape(&mut self, text: &mut String) -> Result<(), Failure> {
        let escape_offset = self.pos;
        let decoded = match self.bytes.get(self.pos + 1) {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                let unit = self.hex_escape(escape_offset)?;
                text.push(self.code_unit_to_char(unit, escape_offset)?);
                return Ok(());
            }
            Some(_) => return Err(fail(ParseErrorKind::InvalidEscape, escape_offset)),
            None => return Err(fail(ParseErrorKind::UnexpectedEnd, self.bytes.len())),
        };
        text.push(decoded);
        self.pos += 2;
        Ok(())
    }

    /// Reads the four hex digits of the `\u` escape at `offset` and moves past them.
    fn hex_escape(&mut self, offset: usize) -> Result<u16, Failure> {
        let digits_start = offset + 2;
        let Some(digits) = self.bytes.get(digits_start..digits_start + 4) else {
            // An early end inside the digits is an end, unless a non-digit comes first.
            let present = &self.bytes[digits_start.min(self.bytes.len())..];
            if present.iter().all(u8::is_ascii_hexdigit) {
                return Err(fail(ParseErrorKind::UnexpectedEnd, self.bytes.len()));
            }
            return Err(fail(ParseErrorKind::InvalidEscape, offset));
        };
        let mut unit = 0u16;
        for &digit in digits {
            let value = match digit {
                b'0'..=b'9' => digit - b'0',
                b'a'..=b'f' => digit - b'a' + 10,
                b'A'..=b'F' => digit - b'A' + 10,
                _ => return Err(fail(ParseErrorKind::InvalidEscape, offset)),
            };
            unit = unit << 4 | u16::from(value);
        }
        self.pos = digits_start + 4;
        Ok(unit)
    }

    /// Turns the code unit of the escape at `offset` into a scalar value, pairing a high surrogate with the low
    /// surrogate escape that must follow it.
    fn code_unit_to_char(&mut self, unit: u16, offset: usize) -> Result<char, Failure> {
        let lone = || fail(ParseErrorKind::LoneSurrogate { code_unit: unit }, offset);
        match unit {
            0xD800..=0xDBFF => {
                let next = self.pos;
                if self.bytes.get(next..next + 2) != Some(b"\\u") {
                    return Err(lone());
                }
                let low = self.hex_escape(next)?;
                if !(0xDC00..=0xDFFF).contains(&low) {
                    return Err(lone());
                }
                let scalar = 0x10000 + ((u32::from(unit) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
                // Every high-low pair decodes to a scalar value in U+10000..=U+10FFFF.
                char::from_u32(scalar).ok_or_else(lone)
            }
            0xDC00..=0xDFFF => Err(lone()),
            // Not a surrogate, so a scalar value.
            _ => char::from_u32(u32::from(unit)).ok_or_else(lone),
        }
    }

    fn parse_number(&mut self) -> Result<Value, Failure> {
        let bytes = self.bytes;
        let start = self.pos;
        let negative = bytes[start] == b'-';
        let int_start = start + usize::from(negative);
        let mut i = int_start;
        match bytes.get(i) {
            Some(b'0') => {
                i += 1;
                if bytes.get(i).is_some_and(u8::is_ascii_digit) {
                    return Err(fail(ParseErrorKind::InvalidNumber, i));
                }
            }
            Some(b'1'..=b'9') => i = skip_digits(bytes, i + 1),
            Some(_) => return Err(fail(ParseErrorKind::InvalidNumber, i)),
            None => return Err(fail(ParseErrorKind::UnexpectedEnd, i)),
        }
        let int_end = i;
        if bytes.get(i) == Some(&b'.') {
            i = require_digits(bytes, i + 1)?;
        }
        if let Some(b'e' | b'E') = bytes.get(i) {
            i += 1;
            if let Some(b'+' | b'-') = bytes.get(i) {
                i += 1;
            }
            i = require_digits(bytes, i)?;
        }
        self.pos = i;

        if i == int_end {
            let digits = &bytes[int_start..int_end];
            // Sixteen digits cannot overflow a u64, and everything up to 2^53 − 1 has at most sixteen.
            if digits.len() <= 16 {
                let magnitude = digits.iter().fold(0u64, |acc, &d| acc * 10 + u64::from(d - b'0'));
                if magnitude <= MAX_SAFE_INTEGER {
                    return Ok(integer(negative, magnitude));
                }
            }
            return self.parse_large_integer(start, i);
        }

        let value = number_literal(bytes, start, i)?;
        if value.fract() == 0.0 && value.abs() <= MAX_SAFE_INTEGER as f64 {
            // The cast is exact here, and it sends -0 to 0.
            let magnitude = value.abs() as u64;
            return Ok(integer(value < 0.0, magnitude));
        }
        Ok(float(value))
    }

    /// An integer literal beyond ±(2^53 − 1): accepted only if it is the canonical spelling of its double, so that
    /// no integer is ever rounded silently.
    fn parse_large_integer(&self, start: usize, end: usize) -> Result<Value, Failure> {
        let value = number_literal(self.bytes, start, end)?;
        let mut canonical = Vec::with_capacity(end - start);
        write_double(value, &mut canonical);
        if canonical != self.bytes[start..end] {
            return Err(fail(ParseErrorKind::InexactInteger, start));
        }
        Ok(float(value))
    }
}

/// The nearest double to the validated literal `bytes[start..end]`, rejected if it overflows.
fn number_literal(bytes: &[u8], start: usize, end: usize) -> Result<f64, Failure> {
    let value = std::str::from_utf8(&bytes[start..end])
        .ok()
        .and_then(|literal| literal.parse::<f64>().ok())
        .ok_or_else(|| fail(ParseErrorKind::InvalidNumber, start))?;
    if value.is_infinite() {
        return Err(fail(ParseErrorKind::NumberOutOfRange, start));
    }
    Ok(value)
}

fn integer(negative: bool, magnitude: u64) -> Value {
    if negative && magnitude != 0 {
        // The magnitude is at most 2^53 − 1, far inside i64.
        Value::Number(Number::from(-(magnitude as i64)))
    } else {
        Value::Number(Number::from(magnitude))
    }
}

fn float(value: f64) -> Value {
    // Callers only pass finite values, which serde_json always holds.
    Number::from_f64(value).map_or(Value::Null, Value::Number)
}

fn skip_digits(bytes: &[u8], mut i: usize) -> usize {
    while bytes.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    i
}

/// Skips the digits at `i`, of which there must be at least one.
fn require_digits(bytes: &[u8], i: usize) -> Result<usize, Failure> {
    match bytes.get(i) {
        Some(b'0'..=b'9') => Ok(skip_digits(bytes, i + 1)),
        Some(_) => Err(fail(ParseErrorKind::InvalidNumber, i)),
        None => Err(fail(ParseErrorKind::UnexpectedEnd, i)),
    }
}
