//! Positions in source text: byte offsets to lines and columns, and JSON pointers to the byte offset of the value
//! they name, so that an error in a schema file can name its line and column.

/// The 1-based line and column of a byte offset; columns count Unicode scalar values.
pub(crate) fn line_column(text: &[u8], offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    // Count characters, not bytes: a UTF-8 continuation byte does not start one.
    let column = before[line_start..].iter().filter(|&&b| b & 0xC0 != 0x80).count() + 1;
    (line, column)
}

/// The byte offset of the value a JSON pointer names in a document already known to be valid JSON, or of the
/// deepest value on the way that exists.
pub(crate) fn locate_pointer(text: &[u8], pointer: &str) -> usize {
    let mut position = skip_whitespace(text, 0);
    if pointer.is_empty() {
        return position;
    }
    for token in pointer.split('/').skip(1) {
        let token = token.replace("~1", "/").replace("~0", "~");
        match find_child(text, position, &token) {
            Some(child) => position = child,
            None => return position,
        }
    }
    position
}

fn skip_whitespace(text: &[u8], mut at: usize) -> usize {
    while at < text.len() && matches!(text[at], b' ' | b'\t' | b'\n' | b'\r') {
        at += 1;
    }
    at
}

/// The end of the string starting at `at` (which holds its opening quote), just past the closing quote.
fn skip_string(text: &[u8], mut at: usize) -> usize {
    at += 1;
    while at < text.len() {
        match text[at] {
            b'\\' => at += 2,
            b'"' => return at + 1,
            _ => at += 1,
        }
    }
    at
}

/// The end of the value starting at `at`.
fn skip_value(text: &[u8], at: usize) -> usize {
    match text.get(at) {
        Some(b'"') => skip_string(text, at),
        Some(b'{' | b'[') => {
            let mut depth = 0usize;
            let mut i = at;
            while i < text.len() {
                match text[i] {
                    b'"' => {
                        i = skip_string(text, i);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return i + 1;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            i
        }
        _ => {
            let mut i = at;
            while i < text.len() && !matches!(text[i], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                i += 1;
            }
            i
        }
    }
}

/// The offset of the member `token` of the object at `at`, or of the element `token` of the array at `at`.
fn find_child(text: &[u8], at: usize, token: &str) -> Option<usize> {
    match text.get(at)? {
        b'{' => {
            let mut i = skip_whitespace(text, at + 1);
            while text.get(i) == Some(&b'"') {
                let end = skip_string(text, i);
                let name: String = serde_json::from_slice(&text[i..end]).ok()?;
                i = skip_whitespace(text, end);
                i = skip_whitespace(text, i + 1); // the colon
                if name == token {
                    return Some(i);
                }
                i = skip_whitespace(text, skip_value(text, i));
                if text.get(i) == Some(&b',') {
                    i = skip_whitespace(text, i + 1);
                }
            }
            None
        }
        b'[' => {
            let wanted: usize = token.parse().ok()?;
            let mut i = skip_whitespace(text, at + 1);
            let mut index = 0;
            while i < text.len() && text[i] != b']' {
                if index == wanted {
                    return Some(i);
                }
                i = skip_whitespace(text, skip_value(text, i));
                if text.get(i) == Some(&b',') {
                    i = skip_whitespace(text, i + 1);
                }
                index += 1;
            }
            None
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_find_their_values() {
        let text = br#"{
  "a": {"b~c": [1, {"d/e": "x"}]},
  "s": "q\"}"
}"#;
        let at = locate_pointer(text, "/a/b~0c/1/d~1e");
        assert_eq!(&text[at..at + 3], b"\"x\"");
        assert_eq!(line_column(text, at), (2, 28));
        let at = locate_pointer(text, "/s");
        assert_eq!(line_column(text, at), (3, 8));
        // A missing member stops at the deepest value that exists.
        assert_eq!(line_column(text, locate_pointer(text, "/a/zz")), (2, 8));
    }

    #[test]
    fn columns_count_characters() {
        assert_eq!(line_column("é=1\nab".as_bytes(), 3), (1, 3));
        assert_eq!(line_column(b"ab\ncd", 4), (2, 2));
    }
}
