//! Relative paths inside an artifact: checked as text before they are ever joined to a directory.
//!
//! A path a worker names (a manifest's location, a file record's `path`) must be a nonempty, normalized, UTF-8
//! relative path with `/` separators. Everything else is refused by [`RelativePath::new`] without touching the
//! filesystem, so a path that could escape the root, or mean different things on different systems, never reaches a
//! join.

use std::fmt;

/// A checked relative path: nonempty components separated by single `/`, none of them `.` or `..`, no backslash,
/// no NUL, no Windows drive prefix, no leading or trailing separator.
///
/// ```
/// use metewand_files::{PathError, RelativePath};
///
/// assert_eq!(RelativePath::new("data/part-0.csv").unwrap().as_str(), "data/part-0.csv");
/// assert_eq!(RelativePath::new("../x"), Err(PathError::DotDotComponent));
/// assert_eq!(RelativePath::new("a//b"), Err(PathError::RepeatedSeparator));
/// assert_eq!(RelativePath::new("C:/x"), Err(PathError::DrivePrefix));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RelativePath(String);

/// Why a path is not a [`RelativePath`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    /// The path is the empty string.
    #[error("is empty")]
    Empty,
    /// The path starts with `/`.
    #[error("is absolute")]
    Absolute,
    /// The path starts with a Windows drive such as `C:`.
    #[error("starts with a Windows drive")]
    DrivePrefix,
    /// The path holds a backslash, which is a separator on Windows.
    #[error("contains a backslash; the separator is /")]
    Backslash,
    /// The path holds a NUL character.
    #[error("contains a NUL character")]
    Nul,
    /// Two separators follow each other.
    #[error("has a repeated separator")]
    RepeatedSeparator,
    /// The path ends with a separator.
    #[error("ends with a separator")]
    TrailingSeparator,
    /// A component is `.`.
    #[error("has a . component")]
    DotComponent,
    /// A component is `..`.
    #[error("has a .. component")]
    DotDotComponent,
}

impl RelativePath {
    /// Checks a path's text.
    pub fn new(path: &str) -> Result<RelativePath, PathError> {
        check(path)?;
        Ok(RelativePath(path.to_owned()))
    }

    /// The path's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The path's components, in order; each is nonempty and neither `.` nor `..`.
    pub fn components(&self) -> impl Iterator<Item = &str> {
        self.0.split('/')
    }

    /// Every proper ancestor directory of the path, shortest first (`a`, `a/b` for `a/b/c`).
    pub fn ancestors(&self) -> impl Iterator<Item = &str> {
        self.0.match_indices('/').map(|(index, _)| &self.0[..index])
    }
}

impl fmt::Display for RelativePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for RelativePath {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

fn check(path: &str) -> Result<(), PathError> {
    if path.is_empty() {
        return Err(PathError::Empty);
    }
    if path.starts_with('/') {
        return Err(PathError::Absolute);
    }
    let bytes = path.as_bytes();
    if bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' {
        return Err(PathError::DrivePrefix);
    }
    if path.contains('\\') {
        return Err(PathError::Backslash);
    }
    if path.contains('\0') {
        return Err(PathError::Nul);
    }
    if path.ends_with('/') {
        return Err(PathError::TrailingSeparator);
    }
    for component in path.split('/') {
        match component {
            "" => return Err(PathError::RepeatedSeparator),
            "." => return Err(PathError::DotComponent),
            ".." => return Err(PathError::DotDotComponent),
            _ => {}
        }
    }
    Ok(())
}
