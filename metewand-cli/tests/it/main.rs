//! The `metewand` binary, driven as a user would: arguments, stdin, stdout, stderr and exit statuses.

mod arguments;
mod campaign;
mod canon;
mod check;
mod conformance;
mod run;
#[path = "../../../metewand-runtime/tests/it/session/test_worker.rs"]
mod test_worker;
mod validate;

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// The runtime's golden benchmark repository.
pub fn golden() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../metewand-runtime/tests/it/fixtures/golden")
}

/// Runs `metewand` with `args`, feeding `stdin`.
pub fn metewand(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_metewand"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn version_and_help() {
    let version = metewand(&["--version"], b"");
    assert!(version.status.success());
    assert_eq!(String::from_utf8(version.stdout).unwrap(), format!("metewand {}\n", env!("CARGO_PKG_VERSION")));
    let help = metewand(&["--help"], b"");
    assert_eq!(help.status.code(), Some(0));
    let help = String::from_utf8(help.stdout).unwrap();
    for command in ["check", "run", "campaign", "validate", "canon", "completions", "help"] {
        assert!(help.contains(&format!("\n  {command} ")), "{command} in {help}");
    }
    let unknown = metewand(&["frobnicate"], b"");
    assert_eq!(unknown.status.code(), Some(2));
    assert_eq!(unknown.stderr.iter().filter(|&&b| b == b'\n').count(), 1, "one sentence");
}
