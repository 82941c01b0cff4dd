//! Finding the test worker binary, shared by the runtime's session tests and benchmark and by the CLI and
//! campaign tests.
//!
//! `cargo test -p metewand-runtime` does not build another package's binary, so the first caller runs
//! `cargo build -p test-worker` (a no-op when it is fresh) and takes the executable's path from cargo's own JSON
//! messages, which stays right for any target directory or profile layout. An optimized caller (the benchmark)
//! gets an optimized worker, so that a measurement is not of debug code on the other end of the pipe.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// Names the test worker's executable for a copy of a test binary that cannot build it (one run as another user).
pub const TEST_WORKER_VAR: &str = "METEWAND_TEST_WORKER";

/// The path of the built `test-worker` executable; builds it once per test process, unless [`TEST_WORKER_VAR`]
/// names it. Run by root, the tests get a copy placed where every user can reach it: root's confined workers run
/// as an identity of their own (`METEWAND_WORKER_USER`), which could not start a program in a private checkout
/// without a private view to show it.
pub fn test_worker() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        if let Some(path) = std::env::var_os(TEST_WORKER_VAR) {
            return PathBuf::from(path);
        }
        let built = built_test_worker();
        if crate::has_cap_sys_admin() { reachable_copy(&built) } else { built }
    })
}

/// A copy of `built` in a folder of the system's temporary folder that everyone may search, named after the
/// build (its size and modification time), so that every test process of one build shares it and nothing is
/// left per process: made beside and renamed into place, the first rename winning.
fn reachable_copy(built: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let metadata = std::fs::metadata(built).expect("the built test worker");
    let modified = metadata.modified().ok().and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok());
    let key = format!("{}-{}", metadata.len(), modified.map_or(0, |time| time.as_nanos()));
    let dir = std::env::temp_dir().join(format!("metewand-test-worker-{key}"));
    let placed = dir.join("test-worker");
    if !placed.exists() {
        let staging = std::env::temp_dir().join(format!(".metewand-test-worker-{key}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&staging);
        std::fs::create_dir(&staging).expect("a folder for the test worker");
        std::fs::set_permissions(&staging, std::fs::Permissions::from_mode(0o755)).expect("its mode");
        if std::fs::hard_link(built, staging.join("test-worker")).is_err() {
            std::fs::copy(built, staging.join("test-worker")).expect("a copy of the test worker");
        }
        if std::fs::rename(&staging, &dir).is_err() {
            // Another test process placed it first.
            let _ = std::fs::remove_dir_all(&staging);
        }
    }
    placed
}

fn built_test_worker() -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut build = Command::new(cargo);
    build.args(["build", "--quiet", "--package", "test-worker", "--message-format=json-render-diagnostics"]);
    if !cfg!(debug_assertions) {
        build.arg("--release");
    }
    let output = build.current_dir(env!("CARGO_MANIFEST_DIR")).stderr(Stdio::inherit()).output().expect("cargo runs");
    assert!(output.status.success(), "building the test worker failed");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|message| message["reason"] == "compiler-artifact" && message["target"]["name"] == "test-worker")
        .find_map(|message| message["executable"].as_str().map(PathBuf::from))
        .expect("cargo reports the test worker's executable")
}
