//! The restricted JSON domain and its canonical form: every rule, the shared corpora, and properties.

use std::fs;

use metewand_protocol::canonical::{Expected, MAX_DEPTH};
use metewand_protocol::{ParseErrorKind, parse, to_canonical_string, to_canonical_vec};
use proptest::prelude::*;
use serde_json::{Map, Number, Value, json};

use crate::corpora;

/// Asserts that `input` is rejected for `kind` at `offset`, inside the value at `path`.
#[track_caller]
fn rejects(input: &[u8], kind: ParseErrorKind, offset: usize, path: Option<&str>) {
    let error = match parse(input) {
        Ok(value) => panic!("accepted {:?} as {value}", String::from_utf8_lossy(input)),
        Err(error) => error,
    };
    assert_eq!(
        (error.kind(), error.offset(), error.path()),
        (&kind, offset, path),
        "for {:?}: {error}",
        String::from_utf8_lossy(input)
    );
}

/// The canonical text of the document `input`, which must be accepted.
#[track_caller]
fn canonical(input: &[u8]) -> String {
    match parse(input) {
        Ok(value) => to_canonical_string(&value),
        Err(error) => panic!("rejected {:?}: {error}", String::from_utf8_lossy(input)),
    }
}

fn unexpected(found: char, expected: Expected) -> ParseErrorKind {
    ParseErrorKind::UnexpectedCharacter { found, expected }
}

fn nested_arrays(depth: usize) -> Vec<u8> {
    let mut text = "[".repeat(depth);
    text.push_str(&"]".repeat(depth));
    text.into_bytes()
}

// ---- rejections: each kind with its offset and path ----

#[test]
fn rejects_invalid_utf8() {
    rejects(b"[\"a\xffb\"]", ParseErrorKind::InvalidUtf8, 3, Some("/0"));
    rejects(b"{\"k\xc3\":1}", ParseErrorKind::InvalidUtf8, 3, Some(""));
    // A surrogate encoded directly in UTF-8 is not UTF-8.
    rejects(b"\"\xed\xa0\x80\"", ParseErrorKind::InvalidUtf8, 1, Some(""));
    rejects(b"[\xff]", ParseErrorKind::InvalidUtf8, 1, Some("/0"));
    rejects(b"[1]\xff", ParseErrorKind::InvalidUtf8, 3, None);
    rejects(b"\"a\\n\xe2\x82\"", ParseErrorKind::InvalidUtf8, 4, Some(""));
    rejects(b"\"\xf0\x9f\x98", ParseErrorKind::InvalidUtf8, 1, Some(""));
    // The first error by position wins, even when bytes that are not UTF-8 come later.
    rejects(b"[1 2, \"\xff\"]", unexpected('2', Expected::CommaOrEndOfArray), 3, Some(""));
    rejects(b"[\"\t\xff\"]", ParseErrorKind::ControlCharacter { code: 9 }, 2, Some("/0"));
}

#[test]
fn rejects_byte_order_mark() {
    rejects(b"\xef\xbb\xbf{}", ParseErrorKind::ByteOrderMark, 0, None);
    // Not at the start it is simply a character where none belongs.
    rejects(b" \xef\xbb\xbf{}", unexpected('\u{feff}', Expected::Value), 1, Some(""));
}

#[test]
fn rejects_unexpected_end() {
    rejects(b"", ParseErrorKind::UnexpectedEnd, 0, Some(""));
    rejects(b"  \n", ParseErrorKind::UnexpectedEnd, 3, Some(""));
    rejects(b"[1,", ParseErrorKind::UnexpectedEnd, 3, Some("/1"));
    rejects(b"[1", ParseErrorKind::UnexpectedEnd, 2, Some(""));
    rejects(b"{\"a\":", ParseErrorKind::UnexpectedEnd, 5, Some("/a"));
    rejects(b"{\"a\"", ParseErrorKind::UnexpectedEnd, 4, Some(""));
    rejects(b"\"abc", ParseErrorKind::UnexpectedEnd, 4, Some(""));
    rejects(b"\"ab\\", ParseErrorKind::UnexpectedEnd, 4, Some(""));
    rejects(b"\"\\u12", ParseErrorKind::UnexpectedEnd, 5, Some(""));
    rejects(b"tru", ParseErrorKind::UnexpectedEnd, 3, Some(""));
    rejects(b"-", ParseErrorKind::UnexpectedEnd, 1, Some(""));
    rejects(b"1.", ParseErrorKind::UnexpectedEnd, 2, Some(""));
    rejects(b"1e+", ParseErrorKind::UnexpectedEnd, 3, Some(""));
}

#[test]
fn rejects_unexpected_characters() {
    rejects(b"[1 2]", unexpected('2', Expected::CommaOrEndOfArray), 3, Some(""));
    rejects(b"[,]", unexpected(',', Expected::Value), 1, Some("/0"));
    rejects(b"[1,]", unexpected(']', Expected::Value), 3, Some("/1"));
    rejects(b"{1:2}", unexpected('1', Expected::MemberName), 1, Some(""));
    rejects(b"{\"a\":1,}", unexpected('}', Expected::MemberName), 7, Some(""));
    rejects(b"{\"a\" 1}", unexpected('1', Expected::Colon), 5, Some(""));
    rejects(b"{\"a\":1 \"b\":2}", unexpected('"', Expected::CommaOrEndOfObject), 7, Some(""));
    rejects(b"[tru]", unexpected(']', Expected::Value), 4, Some("/0"));
    rejects(b"[True]", unexpected('T', Expected::Value), 1, Some("/0"));
    rejects(b"+1", unexpected('+', Expected::Value), 0, Some(""));
    rejects(b".5", unexpected('.', Expected::Value), 0, Some(""));
    rejects(b"[\x0c]", unexpected('\u{c}', Expected::Value), 1, Some("/0"));
    rejects("[\u{a0}1]".as_bytes(), unexpected('\u{a0}', Expected::Value), 1, Some("/0"));
    rejects(b"{'a':1}", unexpected('\'', Expected::MemberName), 1, Some(""));
}

#[test]
fn rejects_trailing_characters() {
    rejects(b"{} x", ParseErrorKind::TrailingCharacters, 3, None);
    rejects(b"1 2", ParseErrorKind::TrailingCharacters, 2, None);
    rejects(b"[]]", ParseErrorKind::TrailingCharacters, 2, None);
    rejects(b"\"a\"\x00", ParseErrorKind::TrailingCharacters, 3, None);
}

#[test]
fn rejects_duplicate_member_names_after_unescaping() {
    let input = br#"{"a":{"id":1,"i\u0064":2}}"#;
    let kind = ParseErrorKind::DuplicateKey { name: "id".into() };
    rejects(input, kind, 13, Some("/a"));
    rejects(br#"{"a":1,"a":1}"#, ParseErrorKind::DuplicateKey { name: "a".into() }, 7, Some(""));
    rejects(
        r#"[{"\ud83d\ude00":1,"😀":2}]"#.as_bytes(),
        ParseErrorKind::DuplicateKey { name: "😀".into() },
        19,
        Some("/0"),
    );
    // Names out of order are checked as well as names in order.
    rejects(br#"{"b":1,"a":2,"c":3,"b":4}"#, ParseErrorKind::DuplicateKey { name: "b".into() }, 19, Some(""));
    rejects(br#"{"b":1,"a":{"x":[tru]}}"#, unexpected(']', Expected::Value), 20, Some("/a/x/0"));
    // The duplicate is reported before anything wrong in its value.
    rejects(br#"{"a":1,"a":tru}"#, ParseErrorKind::DuplicateKey { name: "a".into() }, 7, Some(""));
}

#[test]
fn rejects_lone_surrogates() {
    let lone = |code_unit| ParseErrorKind::LoneSurrogate { code_unit };
    rejects(br#"["\ud800"]"#, lone(0xd800), 2, Some("/0"));
    rejects(br#""\udc00""#, lone(0xdc00), 1, Some(""));
    rejects(br#""a\uD800\u0041""#, lone(0xd800), 2, Some(""));
    rejects(br#""\ud800\ud800""#, lone(0xd800), 1, Some(""));
    rejects(br#""\ude00\ud83d""#, lone(0xde00), 1, Some(""));
    rejects(br#"{"\udbff":1}"#, lone(0xdbff), 2, Some(""));
}

#[test]
fn rejects_invalid_escapes() {
    rejects(br#""\x""#, ParseErrorKind::InvalidEscape, 1, Some(""));
    rejects(br#""ab\'""#, ParseErrorKind::InvalidEscape, 3, Some(""));
    rejects(br#""\u12g4""#, ParseErrorKind::InvalidEscape, 1, Some(""));
    rejects(br#""\u""#, ParseErrorKind::InvalidEscape, 1, Some(""));
    rejects(br#""\ud800\uzzzz""#, ParseErrorKind::InvalidEscape, 7, Some(""));
    rejects(b"\"\\\xc3\xa9\"", ParseErrorKind::InvalidEscape, 1, Some(""));
}

#[test]
fn rejects_raw_control_characters_in_strings() {
    rejects(b"\"a\tb\"", ParseErrorKind::ControlCharacter { code: 9 }, 2, Some(""));
    rejects(b"[\"\x00\"]", ParseErrorKind::ControlCharacter { code: 0 }, 2, Some("/0"));
    rejects(b"{\"a\nb\":1}", ParseErrorKind::ControlCharacter { code: 10 }, 3, Some(""));
    // DEL is not a control character for JSON.
    assert_eq!(canonical(b"\"\x7f\""), "\"\x7f\"");
}

#[test]
fn rejects_invalid_numbers() {
    rejects(b"[01]", ParseErrorKind::InvalidNumber, 2, Some("/0"));
    rejects(b"-01", ParseErrorKind::InvalidNumber, 2, Some(""));
    rejects(b"[-]", ParseErrorKind::InvalidNumber, 2, Some("/0"));
    rejects(b"-a", ParseErrorKind::InvalidNumber, 1, Some(""));
    rejects(b"1.e3", ParseErrorKind::InvalidNumber, 2, Some(""));
    rejects(b"[1e+]", ParseErrorKind::InvalidNumber, 4, Some("/0"));
    rejects(b"[1.]", ParseErrorKind::InvalidNumber, 3, Some("/0"));
    rejects(b"{\"n\":-Infinity}", ParseErrorKind::InvalidNumber, 6, Some("/n"));
    rejects(b"[1.5x]", unexpected('x', Expected::CommaOrEndOfArray), 4, Some(""));
    rejects(b"0x10", ParseErrorKind::TrailingCharacters, 1, None);
}

#[test]
fn rejects_numbers_that_overflow_a_double() {
    rejects(b"1e400", ParseErrorKind::NumberOutOfRange, 0, Some(""));
    rejects(b"[-1e400]", ParseErrorKind::NumberOutOfRange, 1, Some("/0"));
    rejects(b"1.8e308", ParseErrorKind::NumberOutOfRange, 0, Some(""));
    let huge = format!("1{}", "0".repeat(400));
    rejects(huge.as_bytes(), ParseErrorKind::NumberOutOfRange, 0, Some(""));
    let huge_fraction = format!("1{}.5", "0".repeat(400));
    rejects(huge_fraction.as_bytes(), ParseErrorKind::NumberOutOfRange, 0, Some(""));
    // The largest double and the literal that still rounds down to it are in range.
    assert_eq!(canonical(b"1.7976931348623157e308"), "1.7976931348623157e+308");
    assert_eq!(canonical(b"1.7976931348623158e308"), "1.7976931348623157e+308");
}

#[test]
fn rejects_integer_literals_a_double_would_change() {
    rejects(b"9007199254740993", ParseErrorKind::InexactInteger, 0, Some(""));
    rejects(b"[18446744073709551615]", ParseErrorKind::InexactInteger, 1, Some("/0"));
    rejects(b"-9007199254740993", ParseErrorKind::InexactInteger, 0, Some(""));
    rejects(b"9223372036854775807", ParseErrorKind::InexactInteger, 0, Some(""));
    // Exact, but not the canonical spelling (which is 1e+21), so it would not re-read as itself.
    rejects(b"1000000000000000000000", ParseErrorKind::InexactInteger, 0, Some(""));
    rejects(b"100000000000000000001", ParseErrorKind::InexactInteger, 0, Some(""));
}

#[test]
fn depth_128_is_accepted_and_129_rejected() {
    assert!(parse(&nested_arrays(MAX_DEPTH)).is_ok());
    let path = "/0".repeat(MAX_DEPTH);
    rejects(&nested_arrays(MAX_DEPTH + 1), ParseErrorKind::TooDeep, MAX_DEPTH, Some(&path));

    // Objects and arrays count together.
    let mixed = |depth: usize| {
        let mut text = String::new();
        for level in 0..depth {
            text.push_str(if level % 2 == 0 { "{\"k\":" } else { "[" });
        }
        text.push_str("null");
        for level in (0..depth).rev() {
            text.push(if level % 2 == 0 { '}' } else { ']' });
        }
        text
    };
    let value = parse(mixed(MAX_DEPTH).as_bytes()).unwrap();
    assert_eq!(to_canonical_string(&value), mixed(MAX_DEPTH));
    let error = parse(mixed(MAX_DEPTH + 1).as_bytes()).unwrap_err();
    assert_eq!(error.kind(), &ParseErrorKind::TooDeep);
    assert_eq!(error.path(), Some("/k/0".repeat(MAX_DEPTH / 2).as_str()));

    // A deep document is rejected at its 129th bracket, long before the end.
    let error = parse(&vec![b'['; 100_000]).unwrap_err();
    assert_eq!((error.kind(), error.offset()), (&ParseErrorKind::TooDeep, MAX_DEPTH));
}

#[test]
fn paths_escape_pointer_characters() {
    rejects(br#"{"a/b":{"c~d":[0,{"":[x]}]}}"#, unexpected('x', Expected::Value), 22, Some("/a~1b/c~0d/1//0"));
}

#[test]
fn errors_display_the_rule_offset_and_path() {
    let error = parse(br#"{"a": {"id": 1, "id": 2}}"#).unwrap_err();
    assert_eq!(error.to_string(), r#"duplicate member name "id" at byte 16 (/a)"#);
    let error = parse(b"1e400").unwrap_err();
    assert_eq!(error.to_string(), "number out of range (overflows a double) at byte 0");
    let error = parse(b"\xef\xbb\xbf[]").unwrap_err();
    assert_eq!(error.to_string(), "byte-order mark at byte 0");
    let error = parse(br#"["\ud800"]"#).unwrap_err();
    assert_eq!(error.to_string(), r"lone surrogate \ud800 at byte 2 (/0)");
    let error = parse(b"[1 2]").unwrap_err();
    assert_eq!(error.to_string(), "unexpected character '2', expected ',' or ']' at byte 3");
    let error = parse(b"{\"k\":\"\t\"}").unwrap_err();
    assert_eq!(error.to_string(), "unescaped control character U+0009 in a string at byte 6 (/k)");
    let error = parse(&nested_arrays(200)).unwrap_err();
    assert!(error.to_string().starts_with("nesting deeper than 128 at byte 128 (/0/0/"));
    for input in [&b"[1,"[..], b"\"\\q\"", b"-01", b"1e999", b"9007199254740993", b"[] 1", b"\xff"] {
        let message = parse(input).unwrap_err().to_string();
        assert!(message.starts_with(|c: char| !c.is_uppercase()), "{message}");
        assert!(!message.ends_with('.'), "{message}");
    }
}

// ---- what the domain accepts, and the values it gives ----

#[test]
fn accepts_large_integers_spelled_canonically() {
    for literal in ["9007199254740992", "-9007199254740992", "100000000000000000000", "9007199254740994"] {
        let value = parse(literal.as_bytes()).unwrap();
        assert!(value.is_f64(), "{literal} is held as a double");
        assert_eq!(to_canonical_string(&value), literal);
    }
    assert_eq!(parse(b"100000000000000000000").unwrap().as_f64(), Some(1e20));
}

#[test]
fn integral_numbers_become_integers_however_spelled() {
    for literal in ["17", "17.0", "1.7e1", "170e-1", "0.17E+2", "17.000000000000000000001"] {
        let value = parse(literal.as_bytes()).unwrap();
        assert_eq!(value, json!(17), "{literal}");
        assert!(value.is_u64(), "{literal}");
    }
    for literal in ["-0", "-0.0", "0e10", "-0E-5", "1e-400", "-1e-400", "0.0"] {
        let value = parse(literal.as_bytes()).unwrap();
        assert!(value.is_u64(), "{literal}");
        assert_eq!(value.as_u64(), Some(0), "{literal}");
        assert_eq!(to_canonical_string(&value), "0");
    }
    assert_eq!(parse(b"-42.0").unwrap().as_i64(), Some(-42));
    assert_eq!(parse(b"9007199254740991").unwrap().as_u64(), Some(9_007_199_254_740_991));
    assert_eq!(parse(b"9007199254740991.0").unwrap().as_u64(), Some(9_007_199_254_740_991));
    assert_eq!(parse(b"-9007199254740991").unwrap().as_i64(), Some(-9_007_199_254_740_991));
    // 2^53 is a double, not an integer Number, since it is outside the safe range.
    assert!(parse(b"9007199254740992.0").unwrap().is_f64());
    assert!(parse(b"0.5").unwrap().is_f64());
    assert_eq!(parse(b"5e-324").unwrap().as_f64(), Some(5e-324));
}

#[test]
fn surrogate_pairs_combine() {
    assert_eq!(parse(br#""\ud83d\ude00""#).unwrap(), json!("😀"));
    assert_eq!(parse(br#""\uD834\uDD1E""#).unwrap(), json!("\u{1d11e}"));
    assert_eq!(canonical(br#""\ud83d\ude00""#), "\"😀\"");
}

#[test]
fn accepts_only_json_white_space_around_values() {
    assert_eq!(canonical(b" \t\n\r[ 1 ,\t2 ,\r\n{ \"a\" : true } ]\r\n "), r#"[1,2,{"a":true}]"#);
    assert_eq!(canonical(b"\"\""), r#""""#);
    assert_eq!(canonical(b"{}"), "{}");
    assert_eq!(canonical(b"[ ]"), "[]");
    assert_eq!(canonical(b"null"), "null");
}

#[test]
fn unescapes_every_escape() {
    let value = parse(br#""\"\\\/\b\f\n\r\t\u0041\u00e9\u20AC""#).unwrap();
    assert_eq!(value, json!("\"\\/\u{8}\u{c}\n\r\tAé€"));
    assert_eq!(value.as_str().unwrap().len(), 14);
}

// ---- the canonical form ----

#[test]
fn members_are_sorted_by_utf16_code_units() {
    let mut members = Map::new();
    for name in ["\u{e000}", "\u{1f600}", "a", "\u{ffff}", "\u{10000}", "\u{d7ff}", "", "aa", "B"] {
        members.insert(name.to_owned(), json!(name.chars().count()));
    }
    let text = to_canonical_string(&Value::Object(members));
    assert_eq!(
        text,
        "{\"\":0,\"B\":1,\"a\":1,\"aa\":2,\"\u{d7ff}\":1,\"\u{10000}\":1,\"\u{1f600}\":1,\"\u{e000}\":1,\"\u{ffff}\":1}"
    );
    // Parsing keeps no order of its own: the canonical order comes from writing.
    let reparsed = parse(text.as_bytes()).unwrap();
    assert_eq!(to_canonical_string(&reparsed), text);
    assert_eq!(canonical("{\"\u{e000}\":1,\"\u{1f600}\":2}".as_bytes()), "{\"\u{1f600}\":2,\"\u{e000}\":1}");
}

#[test]
fn reordering_nested_objects_takes_linear_time() {
    // At every level the map's own order puts the nested object first and UTF-16 order puts it last.
    let mut value = json!(null);
    let mut expected = String::from("null");
    for _ in 0..MAX_DEPTH {
        value = json!({"\u{e000}": value, "\u{1f600}": 1});
        expected = format!("{{\"\u{1f600}\":1,\"\u{e000}\":{expected}}}");
    }
    let written = to_canonical_string(&value);
    assert_eq!(written, expected);
    assert_eq!(parse(written.as_bytes()).unwrap(), value);
}

#[test]
fn strings_use_the_rfc_8785_escapes() {
    let all_controls: String = (0u8..0x20).map(char::from).collect();
    let value = json!(format!("{all_controls}\"\\/\u{7f}\u{80}é€😀"));
    let expected = concat!(
        r#""\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\b\t\n\u000b\f\r\u000e\u000f"#,
        r#"\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001a\u001b\u001c\u001d\u001e\u001f"#,
        "\\\"\\\\/\u{7f}\u{80}é€😀\""
    );
    assert_eq!(to_canonical_string(&value), expected);
}

#[test]
fn numbers_use_the_ecmascript_form() {
    let double = |x: f64| to_canonical_string(&Value::Number(Number::from_f64(x).unwrap()));
    assert_eq!(double(1.0), "1");
    assert_eq!(double(-0.0), "0");
    assert_eq!(double(1e21), "1e+21");
    assert_eq!(double(1e20), "100000000000000000000");
    assert_eq!(double(1e-7), "1e-7");
    assert_eq!(double(1e-6), "0.000001");
    assert_eq!(double(123e-20), "1.23e-18");
    assert_eq!(double(0.1 + 0.2), "0.30000000000000004");
    assert_eq!(double(-1.5e300), "-1.5e+300");
    assert_eq!(double(5e-324), "5e-324");
    assert_eq!(
        canonical(b"[1.0, -0, 1e21, 1e-7, 123e-20, 100000000000000000000]"),
        "[1,0,1e+21,1e-7,1.23e-18,100000000000000000000]"
    );
    assert_eq!(to_canonical_string(&json!([0, -1, 9_007_199_254_740_992_u64])), "[0,-1,9007199254740992]");
}

#[test]
fn integers_beyond_the_doubles_range_are_written_as_their_nearest_double() {
    // Documented behaviour for integer Numbers that parsing never produces.
    assert_eq!(to_canonical_string(&json!(u64::MAX)), "18446744073709552000");
    assert_eq!(to_canonical_string(&json!(i64::MIN)), "-9223372036854776000");
    assert_eq!(to_canonical_string(&json!(9_007_199_254_740_993_u64)), "9007199254740992");
    assert!(parse(to_canonical_vec(&json!(u64::MAX)).as_slice()).is_ok());
}

#[test]
fn canonical_vec_and_string_agree_with_write() {
    let value = json!({"b": [1, 2.5, "x"], "a": null, "c": {"z": true, "y": false}});
    let mut out = b"prefix".to_vec();
    metewand_protocol::write_canonical(&value, &mut out);
    assert_eq!(&out[6..], to_canonical_vec(&value).as_slice());
    assert_eq!(to_canonical_string(&value).as_bytes(), to_canonical_vec(&value).as_slice());
    assert_eq!(to_canonical_string(&value), r#"{"a":null,"b":[1,2.5,"x"],"c":{"y":false,"z":true}}"#);
}

// ---- the shared corpora ----

#[test]
fn json_test_suite_meets_every_expectation() {
    let Some(corpora) = corpora() else { return };
    let suite = corpora.join("JSONTestSuite");
    let expectations = fs::read_to_string(suite.join("expectations.tsv")).unwrap();
    let mut failures = Vec::new();
    let mut cases = 0;
    for line in expectations.lines().skip(1).filter(|line| !line.is_empty()) {
        let mut fields = line.split('\t');
        let (file, expect) = (fields.next().unwrap(), fields.next().unwrap_or_default());
        let input = fs::read(suite.join("test_parsing").join(file)).unwrap();
        cases += 1;
        match (expect, parse(&input)) {
            ("accept", Ok(value)) => {
                let expected = fs::read(suite.join("canonical").join(file)).unwrap();
                let written = to_canonical_vec(&value);
                if written != expected {
                    failures.push(format!(
                        "{file}: wrote {:?}, expected {:?}",
                        String::from_utf8_lossy(&written),
                        String::from_utf8_lossy(&expected)
                    ));
                }
            }
            ("accept", Err(error)) => failures.push(format!("{file}: rejected: {error}")),
            ("reject", Ok(value)) => failures.push(format!("{file}: accepted as {value}")),
            ("reject", Err(_)) => {}
            (other, _) => failures.push(format!("{file}: unknown expectation {other:?}")),
        }
    }
    let files = fs::read_dir(suite.join("test_parsing")).unwrap().count();
    assert_eq!(cases, files, "every file of test_parsing has an expectation");
    assert!(failures.is_empty(), "{} of {cases} cases failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn jcs_reference_vectors_are_reproduced() {
    let Some(corpora) = corpora() else { return };
    let jcs = corpora.join("jcs");
    let mut names: Vec<_> = fs::read_dir(jcs.join("input")).unwrap().map(|entry| entry.unwrap().file_name()).collect();
    names.sort();
    assert!(!names.is_empty());
    for name in names {
        let input = fs::read(jcs.join("input").join(&name)).unwrap();
        let expected = fs::read(jcs.join("output").join(&name)).unwrap();
        let value = parse(&input).unwrap_or_else(|error| panic!("{name:?}: {error}"));
        assert_eq!(
            String::from_utf8(to_canonical_vec(&value)).unwrap(),
            String::from_utf8(expected).unwrap(),
            "{name:?}"
        );
    }
}

#[test]
fn es6_numbers_are_formatted_and_read_back() {
    let Some(corpora) = corpora() else { return };
    let lines = fs::read_to_string(corpora.join("es6-numbers.csv")).unwrap();
    let mut failures = Vec::new();
    let mut cases = 0;
    for line in lines.lines().filter(|line| !line.is_empty()) {
        let (hex, expected) = line.split_once(',').unwrap();
        let bits = u64::from_str_radix(hex, 16).unwrap();
        let double = f64::from_bits(bits);
        cases += 1;
        let written = to_canonical_string(&Value::Number(Number::from_f64(double).unwrap()));
        if written != expected {
            failures.push(format!("{hex}: wrote {written}, expected {expected}"));
        }
        match parse(expected.as_bytes()).map(|value| value.as_f64()) {
            // ECMAScript writes -0 as 0, so zero reads back as +0; every other value keeps its bits.
            Ok(Some(read)) if read.to_bits() == bits || (double == 0.0 && read == 0.0) => {}
            other => failures.push(format!("{hex}: {expected} read back as {other:?}")),
        }
    }
    assert!(cases > 20_000, "only {cases} cases");
    assert!(failures.is_empty(), "{} of {cases} cases failed:\n{}", failures.len(), failures.join("\n"));
}

// ---- properties ----

/// What `parse` makes of a number: integral values within the safe range become integers.
fn normalized(value: &Value) -> Value {
    match value {
        Value::Number(number) => match number.as_f64() {
            Some(double) if number.is_f64() && double.fract() == 0.0 && double.abs() <= 9_007_199_254_740_991.0 => {
                json!(double as i64)
            }
            _ => value.clone(),
        },
        Value::Array(elements) => Value::Array(elements.iter().map(normalized).collect()),
        Value::Object(members) => {
            Value::Object(members.iter().map(|(name, value)| (name.clone(), normalized(value))).collect())
        }
        _ => value.clone(),
    }
}

fn any_string() -> impl Strategy<Value = String> {
    prop::collection::vec(any::<char>(), 0..8).prop_map(String::from_iter)
}

fn any_number() -> impl Strategy<Value = Value> {
    prop_oneof![
        (-9_007_199_254_740_991_i64..=9_007_199_254_740_991).prop_map(|n| json!(n)),
        (-1000_i64..1000).prop_map(|n| json!(n)),
        any::<f64>().prop_filter_map("finite", |x| Number::from_f64(x).map(Value::Number)),
        (-1000_i32..1000, -30_i32..30).prop_map(|(m, e)| json!(f64::from(m) * 10f64.powi(e))),
    ]
}

fn any_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any_number(),
        any_string().prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(any_string(), inner, 0..6)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

/// Bytes that look enough like JSON to reach deep into the parser.
fn json_like_bytes() -> impl Strategy<Value = Vec<u8>> {
    let tokens: &[&[u8]] = &[
        b"{",
        b"}",
        b"[",
        b"]",
        b"\"",
        b":",
        b",",
        b" ",
        b"\n",
        b"\\",
        b"\\u",
        b"d83d",
        b"\\ude00",
        b"00e9",
        b"\\n",
        b"0",
        b"1",
        b"-",
        b".",
        b"e",
        b"E+",
        b"9007199254740993",
        b"1e400",
        b"true",
        b"null",
        b"a",
        b"\xff",
        b"\xc3",
        b"\xf0\x9f\x98\x80",
        b"\xef\xbb\xbf",
        b"\x00",
        b"\t",
    ];
    prop::collection::vec(prop::sample::select(tokens.to_vec()), 0..40).prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn canonical_output_reparses_to_the_same_value_and_is_a_fixed_point(value in any_value()) {
        let written = to_canonical_vec(&value);
        let reparsed = parse(&written).map_err(|error| TestCaseError::fail(error.to_string()))?;
        prop_assert_eq!(&reparsed, &normalized(&value));
        prop_assert_eq!(to_canonical_vec(&reparsed), written);
    }

    #[test]
    fn object_members_follow_utf16_order(members in prop::collection::btree_map(any_string(), any::<u8>(), 0..12)) {
        let value = Value::Object(members.iter().map(|(name, n)| (name.clone(), json!(n))).collect());
        let mut sorted: Vec<_> = members.iter().collect();
        sorted.sort_by_key(|(name, _)| name.encode_utf16().collect::<Vec<u16>>());
        let mut expected = String::from("{");
        for (index, (name, n)) in sorted.into_iter().enumerate() {
            if index > 0 {
                expected.push(',');
            }
            expected.push_str(&to_canonical_string(&json!(name)));
            expected.push(':');
            expected.push_str(&n.to_string());
        }
        expected.push('}');
        prop_assert_eq!(to_canonical_string(&value), expected);
    }

    #[test]
    fn members_in_any_order_are_read_and_duplicates_found(
        members in prop::collection::vec(("[ab\u{e000}\u{1f600}]{0,2}", any::<u8>()), 0..10),
    ) {
        let text = format!(
            "{{{}}}",
            members.iter().map(|(name, n)| format!("{}:{n}", json!(name))).collect::<Vec<_>>().join(",")
        );
        let mut seen = std::collections::BTreeMap::new();
        let first_repeat = members.iter().find(|(name, n)| seen.insert(name, n).is_some());
        match (parse(text.as_bytes()), first_repeat) {
            (Ok(value), None) => {
                let expected: Map<String, Value> = members.iter().map(|(name, n)| (name.clone(), json!(n))).collect();
                prop_assert_eq!(value, Value::Object(expected));
            }
            (Err(error), Some((name, _))) => {
                prop_assert_eq!(error.kind(), &ParseErrorKind::DuplicateKey { name: name.clone() });
            }
            (result, repeat) => prop_assert!(false, "{:?} for {} (repeat {:?})", result, text, repeat),
        }
        // A repeated name is reported before a later error, even one that ends the object early.
        let broken = format!("{}]", &text[..text.len() - 1]);
        let error = parse(broken.as_bytes()).unwrap_err();
        match first_repeat {
            Some((name, _)) => {
                prop_assert_eq!(error.kind(), &ParseErrorKind::DuplicateKey { name: name.clone() });
            }
            None => {
                let unexpected_end = matches!(error.kind(), ParseErrorKind::UnexpectedCharacter { found: ']', .. });
                prop_assert!(unexpected_end, "{}", error);
            }
        }
    }

    #[test]
    fn strings_are_escaped_as_rfc_8785_says(
        text in prop::collection::vec(
            prop_oneof![
                4 => Just('a'), 1 => Just('"'), 1 => Just('\\'), 1 => Just('/'), 1 => Just('\u{7f}'),
                1 => Just('é'), 1 => Just('\u{ffff}'), 1 => Just('😀'), 2 => (0u8..0x20).prop_map(char::from),
            ],
            0..40,
        ).prop_map(String::from_iter),
    ) {
        let mut expected = String::from("\"");
        for c in text.chars() {
            match c {
                '"' => expected.push_str("\\\""),
                '\\' => expected.push_str("\\\\"),
                '\u{8}' => expected.push_str("\\b"),
                '\t' => expected.push_str("\\t"),
                '\n' => expected.push_str("\\n"),
                '\u{c}' => expected.push_str("\\f"),
                '\r' => expected.push_str("\\r"),
                c if u32::from(c) < 0x20 => expected.push_str(&format!("\\u{:04x}", u32::from(c))),
                c => expected.push(c),
            }
        }
        expected.push('"');
        let value = Value::String(text);
        prop_assert_eq!(to_canonical_string(&value), expected.clone());
        prop_assert_eq!(parse(expected.as_bytes()).ok(), Some(value));
    }

    #[test]
    fn every_finite_double_reads_back_from_its_canonical_text(bits in any::<u64>()) {
        let double = f64::from_bits(bits);
        prop_assume!(double.is_finite());
        let written = to_canonical_string(&Value::Number(Number::from_f64(double).unwrap()));
        let read = parse(written.as_bytes()).map_err(|error| TestCaseError::fail(format!("{written}: {error}")))?;
        prop_assert_eq!(read.as_f64(), Some(double), "{}", written);
        prop_assert_eq!(written.parse::<f64>().ok(), Some(double));
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        let _ = parse(&bytes);
    }

    #[test]
    fn json_like_bytes_never_panic_and_accepted_ones_are_stable(bytes in json_like_bytes()) {
        if let Ok(value) = parse(&bytes) {
            let written = to_canonical_vec(&value);
            prop_assert_eq!(parse(&written).ok(), Some(value));
            // Whatever we accept, serde_json reads too (our domain is a subset of JSON).
            prop_assert!(serde_json::from_slice::<Value>(&bytes).is_ok());
        }
    }
}
