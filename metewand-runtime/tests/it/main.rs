//! The runtime's integration tests: one binary, one module per area.

mod catalog;
mod conformance;
mod identity;
mod removal;
mod repository;
mod sdk;
mod session;
mod validate;

use std::fs;
use std::path::{Path, PathBuf};

use metewand_runtime::{CheckError, CheckedRepository};

/// The checked-in golden repository.
pub fn golden() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/fixtures/golden")
}

/// Copies a directory tree of regular files (the golden repository) into `to`.
pub fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

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
