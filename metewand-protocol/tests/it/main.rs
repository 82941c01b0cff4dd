//! The integration tests of metewand-protocol, one module per area.

mod canonical;

use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The shared conformance corpora: `$METEWAND_CORPORA`, or `shared/corpora` beside the workspace.
///
/// When the folder is absent this says so on stderr and returns `None`, so that the caller can skip; under
/// `CI=true` absence fails the test instead.
pub fn corpora() -> Option<PathBuf> {
    let dir = match std::env::var_os("METEWAND_CORPORA") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpora"),
    };
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "the conformance corpora are missing at {} (set METEWAND_CORPORA)",
        dir.display()
    );
    // Written past the test harness's capture so that a skip is never silent.
    let _ = writeln!(
        std::io::stderr(),
        "corpus tests skipped: no conformance corpora at {} (set METEWAND_CORPORA)",
        dir.display()
    );
    None
}
