//! `metewand canon`: canonical output and exit 0, one stderr line and exit 1 on a rejected document, exit 2 on
//! usage and I/O errors.

use crate::metewand;

#[test]
fn prints_the_canonical_form_and_a_line_feed() {
    let output = metewand(&["canon"], br#"  {"b": 1.0, "a": [1e21, "\u00e9", -0]}  "#);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(output.stdout, "{\"a\":[1e+21,\"é\",0],\"b\":1}\n".as_bytes());
    assert!(output.stderr.is_empty());
}

#[test]
fn reads_a_file_or_stdin_given_as_a_dash() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("doc.json");
    std::fs::write(&path, b"[3.0]").unwrap();
    let output = metewand(&["canon", path.to_str().unwrap()], b"");
    assert_eq!((output.status.code(), output.stdout), (Some(0), b"[3]\n".to_vec()));
    let output = metewand(&["canon", "-"], b"{}");
    assert_eq!((output.status.code(), output.stdout), (Some(0), b"{}\n".to_vec()));
}

#[test]
fn a_rejected_document_gets_one_line_naming_the_rule_and_the_offset() {
    for (input, rule) in [
        (&b"{\"a\":1,\"a\":2}"[..], "duplicate member name"),
        (b"\xef\xbb\xbf{}", "byte-order mark"),
        (b"\"\\ud800\"", "surrogate"),
        (b"1e400", "out of range"),
        (b"[1] [2]", "after"),
    ] {
        let output = metewand(&["canon"], input);
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        assert!(output.stdout.is_empty());
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(rule) && stderr.contains("byte"), "{stderr} should name {rule:?} and an offset");
    }
}

#[test]
fn usage_and_io_errors_exit_2() {
    let missing = metewand(&["canon", "/no/such/file.json"], b"");
    assert_eq!(missing.status.code(), Some(2));
    assert_eq!(String::from_utf8(missing.stderr).unwrap().lines().count(), 1);
    assert_eq!(metewand(&["canon", "a", "b"], b"").status.code(), Some(2));
    assert_eq!(metewand(&["canon", "--bogus"], b"").status.code(), Some(2));
}
