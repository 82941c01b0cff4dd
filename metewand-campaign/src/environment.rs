//! The environment a campaign runs in, captured once per run into `campaign.json`: Metewand's version, the host,
//! OS and kernel, CPU model and logical CPUs, memory, each worker command's program (the first `PATH` match, the
//! file it resolves to through links, its SHA-256, and whether it is a script, with its interpreter line), and the
//! repository's git commit and dirty flag when it is a git checkout.

use std::collections::BTreeMap;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use metewand_runtime::CheckedRepository;
use metewand_runtime::protocol::strict::SafeUint;

pub use metewand_runtime::protocol::generated::campaign_file::{Environment, Program};

#[allow(clippy::disallowed_methods, reason = "procfs and sysfs files at fixed paths, which only the kernel writes")]
fn read_trimmed(path: &str) -> Option<String> {
    fs::read_to_string(path).ok().map(|text| text.trim().to_owned()).filter(|text| !text.is_empty())
}

/// This machine's host name, as the kernel has it.
pub(crate) fn host_name() -> Option<String> {
    read_trimmed("/proc/sys/kernel/hostname")
}

/// The program of the worker `worker`'s command: found as the runtime's `execvp` would, on `path_var` (the
/// worker's `PATH`), or in the worker's source copy for a relative path (here, the declared source folder, which
/// the copy mirrors).
pub fn program(worker: &str, command: &str, source: &Path, path_var: Option<&std::ffi::OsStr>) -> Program {
    let found = metewand_runtime::session::find_program(command.as_ref(), source, path_var);
    let resolved = found.as_ref().and_then(|path| fs::canonicalize(path).ok());
    #[allow(
        clippy::disallowed_methods,
        reason = "a worker's program, resolved through its links on purpose: the recorded digest is of what runs"
    )]
    let (sha256, script) = match resolved.as_ref().and_then(|path| fs::read(path).ok()) {
        Some(bytes) => {
            let script = bytes.strip_prefix(b"#!").map(|rest| {
                format!("#!{}", String::from_utf8_lossy(rest.split(|&b| b == b'\n').next().unwrap_or(b"")))
            });
            (Some(metewand_runtime::Sha256Digest::of(&bytes)), script)
        }
        None => (None, None),
    };
    Program {
        worker: worker.to_owned(),
        command: command.to_owned(),
        path_match: found.map(|path| path.to_string_lossy().into_owned()),
        resolved: resolved.map(|path| path.to_string_lossy().into_owned()),
        sha256,
        script,
    }
}

fn git(repository: &Path, args: &[&str]) -> Option<String> {
    let mut child = Command::new("git")
        .arg("-C")
        .arg(repository)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut out = String::new();
    child.stdout.take()?.read_to_string(&mut out).ok()?;
    child.wait().ok()?.success().then_some(out)
}

/// Captures the environment for a run of `repository`'s workers.
pub fn capture(repository: &CheckedRepository) -> Environment {
    #[allow(clippy::disallowed_methods, reason = "procfs, which only the kernel writes")]
    let cpu_model = fs::read_to_string("/proc/cpuinfo").ok().and_then(|text| {
        text.lines()
            .find(|line| line.starts_with("model name"))
            .and_then(|line| line.split_once(':'))
            .map(|(_, model)| model.trim().to_owned())
    });
    #[allow(clippy::disallowed_methods, reason = "procfs, which only the kernel writes")]
    let memory_bytes = fs::read_to_string("/proc/meminfo").ok().and_then(|text| {
        let line = text.lines().find(|line| line.starts_with("MemTotal:"))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib * 1024)
    });
    // Workers usually share their program: each is found and hashed once.
    let mut seen: BTreeMap<(String, PathBuf, Option<std::ffi::OsString>), Program> = BTreeMap::new();
    let workers = repository
        .workers()
        .iter()
        .map(|(name, worker)| {
            let first = worker.expanded_command()[0].to_string_lossy().into_owned();
            // The worker's own `PATH` when it declares one, as its session would have it.
            let path_var = worker.expanded_env().get("PATH").cloned().or_else(|| std::env::var_os("PATH"));
            let key = (first.clone(), worker.source_path().to_owned(), path_var.clone());
            let found =
                seen.entry(key).or_insert_with(|| program(name, &first, worker.source_path(), path_var.as_deref()));
            Program { worker: name.clone(), ..found.clone() }
        })
        .collect();
    let root = repository.root();
    let git_commit = git(root, &["rev-parse", "HEAD"]).map(|text| text.trim().to_owned());
    let git_dirty =
        git_commit.as_ref().and_then(|_| git(root, &["status", "--porcelain"])).map(|text| !text.is_empty());
    Environment {
        metewand_version: env!("CARGO_PKG_VERSION").to_owned(),
        host: host_name(),
        os: read_trimmed("/proc/sys/kernel/ostype"),
        kernel: read_trimmed("/proc/sys/kernel/osrelease"),
        cpu_model,
        logical_cpus: SafeUint::try_from(std::thread::available_parallelism().map_or(1, |n| n.get() as u64))
            .unwrap_or(SafeUint::MAX),
        memory_bytes: memory_bytes.and_then(|bytes| SafeUint::try_from(bytes).ok()),
        workers,
        git_commit,
        git_dirty,
    }
}
