//! Where the checkout's shared test inputs are, from whichever package's tests ask, and the file helpers the
//! suites share.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace's root folder (the checkout).
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").canonicalize().expect("the workspace folder exists")
}

/// The Python SDK's project folder, `sdk-python/` (its `tests/workers/` are example workers).
pub fn sdk() -> PathBuf {
    workspace().join("sdk-python")
}

/// The Python SDK's import root, `sdk-python/src/`, for a worker's `PYTHONPATH`.
pub fn sdk_src() -> PathBuf {
    sdk().join("src")
}

/// The runtime's checked-in golden benchmark repository, whose identities are pinned.
pub fn golden() -> PathBuf {
    workspace().join("metewand-repository/tests/it/fixtures/golden")
}

/// Copies a tree of folders and regular files (a fixture repository) into `to`.
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

/// Makes a FIFO at `path` (what a hostile worker leaves where a file is expected).
pub fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success(), "mkfifo {}", path.display());
}
