//! The repository's integration tests: one binary, one module per area: the schema catalog, identities, the
//! check of `metewand.toml`, and the validation of what workers leave.

#![allow(clippy::disallowed_methods, reason = "tests make and read their own files in temporary folders")]

mod catalog;
mod definition;
mod external;
mod grid;
mod identity;
mod repository;
mod validate;

use std::fs;
use std::path::Path;

use metewand_repository::{CheckError, CheckedRepository};

pub use metewand_testkit::{copy_tree, golden};

/// A temporary copy of the golden repository whose `metewand.toml` is passed through `edit`.
pub fn golden_copy(edit: impl FnOnce(String) -> String) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&golden(), dir.path());
    let toml = fs::read_to_string(dir.path().join("metewand.toml")).unwrap();
    fs::write(dir.path().join("metewand.toml"), edit(toml)).unwrap();
    dir
}

/// The check error of a repository that must fail.
pub fn check_error(dir: &Path) -> CheckError {
    match CheckedRepository::load(dir) {
        Ok(_) => panic!("the repository at {} passed its check", dir.display()),
        Err(error) => error,
    }
}
