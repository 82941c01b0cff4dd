//! The environment a campaign runs in, captured once per run into `campaign.json`: Metewand's version, the host,
//! OS and kernel, CPU model and logical CPUs, memory, each worker command's program (the first `PATH` match, the
//! file it resolves to through links, its SHA-256, and whether it is a script, with its interpreter line), the
//! repository's git commit and dirty flag when it is a git checkout, and what skews times on the machine
//! ([`noise`]: what `metewand doctor` shows too).

use std::collections::BTreeMap;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use metewand_runtime::CheckedRepository;
use metewand_runtime::protocol::strict::SafeUint;

pub use metewand_runtime::protocol::generated::campaign_file::{Environment, Noise, Program};
pub use metewand_runtime::session::normalized_distribution_name;

#[allow(clippy::disallowed_methods, reason = "procfs and sysfs files at fixed paths, which only the kernel writes")]
fn read_trimmed(path: &str) -> Option<String> {
    fs::read_to_string(path).ok().map(|text| text.trim().to_owned()).filter(|text| !text.is_empty())
}

/// What skews times on this machine now, as the kernel says: the CPUs' frequency governors, turbo, SMT, ASLR,
/// the load, swap and isolated CPUs. What cannot be read is `None` (a governor list is empty without cpufreq).
pub fn noise() -> Noise {
    let mut governors: Vec<String> = cpus_with("cpufreq/scaling_governor").into_iter().collect();
    governors.sort();
    governors.dedup();
    // Intel's driver says whether turbo is off; other drivers whether boost is on.
    let turbo = read_trimmed("/sys/devices/system/cpu/intel_pstate/no_turbo")
        .map(|off| off == "0")
        .or_else(|| read_trimmed("/sys/devices/system/cpu/cpufreq/boost").map(|on| on == "1"));
    let memory = meminfo().unwrap_or_default();
    let swap_total = meminfo_bytes(&memory, "SwapTotal:");
    let safe = |bytes: Option<u64>| bytes.and_then(|bytes| SafeUint::try_from(bytes).ok());
    Noise {
        governors,
        turbo,
        smt: read_trimmed("/sys/devices/system/cpu/smt/active").map(|active| active == "1"),
        aslr: read_trimmed("/proc/sys/kernel/randomize_va_space")
            .and_then(|value| value.parse::<u64>().ok())
            .and_then(|value| SafeUint::try_from(value).ok()),
        load: read_trimmed("/proc/loadavg").map(|text| text.split_whitespace().take(3).collect::<Vec<_>>().join(" ")),
        swap_total_bytes: safe(swap_total),
        swap_used_bytes: safe(
            swap_total.zip(meminfo_bytes(&memory, "SwapFree:")).map(|(total, free)| total.saturating_sub(free)),
        ),
        // The file is there, and empty, when no CPU is isolated.
        isolated_cpus: fs::exists("/sys/devices/system/cpu/isolated")
            .ok()
            .filter(|exists| *exists)
            .map(|_| read_trimmed("/sys/devices/system/cpu/isolated").unwrap_or_default()),
    }
}

/// The values of `/sys/devices/system/cpu/cpuN/<file>` of every CPU that has it.
fn cpus_with(file: &str) -> Vec<String> {
    let Ok(entries) = fs::read_dir("/sys/devices/system/cpu") else { return Vec::new() };
    entries
        .filter_map(Result::ok)
        .filter(|entry| {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            name.strip_prefix("cpu")
                .is_some_and(|number| !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()))
        })
        .filter_map(|entry| read_trimmed(entry.path().join(file).to_str()?))
        .collect()
}

/// What `noise` says skews times, one phrase each, for a warning: a governor other than `performance`, turbo on,
/// SMT active, a load of one or more per CPU, swap in use. ASLR is shown but not warned of: turning it off trades
/// the machine's safety for a steadier layout, and a layout's luck is part of what a time measures.
pub fn noise_warnings(noise: &Noise, cpus: u64) -> Vec<String> {
    let mut warnings = Vec::new();
    let slow: Vec<&str> =
        noise.governors.iter().map(String::as_str).filter(|governor| *governor != "performance").collect();
    if !slow.is_empty() {
        warnings.push(format!("CPU frequency governor {} (performance keeps the frequency up)", slow.join(", ")));
    }
    if noise.turbo == Some(true) {
        warnings.push("turbo on (a time depends on temperature and on what else runs)".to_owned());
    }
    if noise.smt == Some(true) {
        warnings.push("SMT active (two logical CPUs share a core)".to_owned());
    }
    let load = noise.load.as_deref().and_then(|load| load.split(' ').next()?.parse::<f64>().ok());
    if let Some(load) = load.filter(|load| *load >= cpus.max(1) as f64) {
        warnings.push(format!("load {load} over {cpus} CPUs (other work shares them)"));
    }
    if noise.swap_used_bytes.is_some_and(|used| used.get() > 0) {
        warnings.push("swap in use (a worker's pages may come back from disk)".to_owned());
    }
    warnings
}

/// The kernel's memory counters, `/proc/meminfo`, read once for all the counters wanted.
fn meminfo() -> Option<String> {
    #[allow(clippy::disallowed_methods, reason = "procfs, which only the kernel writes")]
    fs::read_to_string("/proc/meminfo").ok()
}

/// The counter `key` (`MemTotal:`) of `/proc/meminfo`'s `text`, in bytes (the kernel writes kB).
fn meminfo_bytes(text: &str, key: &str) -> Option<u64> {
    let line = text.lines().find(|line| line.starts_with(key))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
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
    let environment = metewand_runtime::session::python_interpreter(found.as_deref(), resolved.as_deref(), path_var)
        .and_then(|interpreter| metewand_runtime::session::python_environment(&interpreter))
        .map(|environment| metewand_runtime::attempt::environment_record(&environment));
    Program {
        worker: worker.to_owned(),
        environment,
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
    let memory_bytes = meminfo().and_then(|text| meminfo_bytes(&text, "MemTotal:"));
    // Workers usually share their program: each is found and hashed once.
    let mut seen: BTreeMap<(String, PathBuf, Option<std::ffi::OsString>), Program> = BTreeMap::new();
    let workers = repository
        .workers()
        .iter()
        .map(|(name, worker)| {
            // A command worker's session runs the adapter, which runs its command per request: the adapter is
            // the program its records name.
            let first = if worker.command_adapter() {
                metewand_runtime::attempt::adapter_program().to_string_lossy().into_owned()
            } else {
                worker.expanded_command()[0].to_string_lossy().into_owned()
            };
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
        noise: Some(noise()),
    }
}

#[cfg(test)]
mod tests {
    use super::{Noise, noise_warnings};
    use metewand_runtime::protocol::strict::SafeUint;

    fn quiet() -> Noise {
        Noise {
            governors: vec!["performance".to_owned()],
            turbo: Some(false),
            smt: Some(false),
            aslr: Some(SafeUint::from(2_u32)),
            load: Some("0.10 0.20 0.30".to_owned()),
            swap_total_bytes: Some(SafeUint::from(1_u32 << 30)),
            swap_used_bytes: Some(SafeUint::from(0_u32)),
            isolated_cpus: Some(String::new()),
        }
    }

    #[test]
    fn a_quiet_machine_gives_no_warning_and_each_skew_one() {
        assert!(noise_warnings(&quiet(), 4).is_empty(), "ASLR alone is not warned of");
        let noisy = Noise {
            governors: vec!["performance".to_owned(), "powersave".to_owned()],
            turbo: Some(true),
            smt: Some(true),
            load: Some("4.00 1.00 1.00".to_owned()),
            swap_used_bytes: Some(SafeUint::from(4096_u32)),
            ..quiet()
        };
        let warnings = noise_warnings(&noisy, 4);
        assert_eq!(warnings.len(), 5, "{warnings:?}");
        assert!(warnings[0].starts_with("CPU frequency governor powersave "), "{warnings:?}");
        assert!(warnings[3].starts_with("load 4 over 4 CPUs"), "{warnings:?}");
        let unknown =
            Noise { governors: Vec::new(), turbo: None, smt: None, load: None, swap_used_bytes: None, ..quiet() };
        assert!(noise_warnings(&unknown, 4).is_empty(), "what cannot be read is not warned of");
        let light = Noise { load: Some("3.99 9.00 9.00".to_owned()), ..quiet() };
        assert!(noise_warnings(&light, 4).is_empty(), "the last minute's load under one per CPU");
    }
}
