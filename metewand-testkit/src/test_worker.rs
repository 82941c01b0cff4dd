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
/// names it.
pub fn test_worker() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        if let Some(path) = std::env::var_os(TEST_WORKER_VAR) {
            return PathBuf::from(path);
        }
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut build = Command::new(cargo);
        build.args(["build", "--quiet", "--package", "test-worker", "--message-format=json-render-diagnostics"]);
        if !cfg!(debug_assertions) {
            build.arg("--release");
        }
        let output =
            build.current_dir(env!("CARGO_MANIFEST_DIR")).stderr(Stdio::inherit()).output().expect("cargo runs");
        assert!(output.status.success(), "building the test worker failed");
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
            .filter(|message| message["reason"] == "compiler-artifact" && message["target"]["name"] == "test-worker")
            .find_map(|message| message["executable"].as_str().map(PathBuf::from))
            .expect("cargo reports the test worker's executable")
    })
}
