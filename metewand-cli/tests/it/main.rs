//! The `metewand` binary, driven as a user would: arguments, stdin, stdout, stderr and exit statuses.

#![allow(clippy::disallowed_methods, reason = "tests make and read their own files in temporary folders")]

mod arguments;
mod audit;
mod built_environments;
mod bundle;
mod campaign;
mod canon;
mod check;
mod command;
mod conformance;
mod environments;
mod external;
mod grid;
mod init;
mod report;
mod run;
mod slurm;
mod unchanged;

use metewand_testkit::synth;
mod validate;

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// A tmpfs mounted for a test (a disk that fills deterministically), unmounted when dropped.
pub struct Tmpfs(std::path::PathBuf);

impl Tmpfs {
    /// Mounts a tmpfs of `size` at `path`. Only a process without `CAP_SYS_ADMIN` is excused (`None`, a reported
    /// skip, a failure where root is required): root must be able to run the attack.
    pub fn mount(path: &std::path::Path, size: &str) -> Option<Tmpfs> {
        std::fs::create_dir_all(path).unwrap();
        let output =
            Command::new("mount").args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"]).arg(path).output();
        let why = match output {
            Ok(output) if output.status.success() => return Some(Tmpfs(path.to_owned())),
            Ok(output) => String::from_utf8_lossy(&output.stderr).into_owned(),
            Err(error) => error.to_string(),
        };
        assert!(!metewand_testkit::has_cap_sys_admin(), "root could not mount a tmpfs: {why}");
        let why =
            format!("cannot mount a tmpfs without privileges ({}): the disk-full attack was not played", why.trim());
        metewand_testkit::skip(metewand_testkit::Requirement::Root, &why);
        None
    }

    /// Gives the filesystem `size` (a freed disk).
    pub fn resize(&self, size: &str) {
        let status = Command::new("mount").args(["-o", &format!("remount,size={size}")]).arg(&self.0).status().unwrap();
        assert!(status.success(), "remounting the tmpfs failed");
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("chmod").args(["-R", "u+w"]).arg(&self.0).status();
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

pub use metewand_testkit::golden;

/// `metewand` with `args`, stdin empty, stdout and stderr captured, not yet started.
pub fn command(args: &[String]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_metewand"));
    command.args(args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    command
}

/// Runs `metewand` with `args` and an empty stdin.
pub fn run(args: &[String]) -> Output {
    command(args).output().unwrap()
}

/// Output as text, lossily.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
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
