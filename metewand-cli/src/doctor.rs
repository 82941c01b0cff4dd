//! `metewand doctor`: what this machine's kernel offers for confining workers.

use metewand_runtime::cpus::CpusBinding;
use metewand_runtime::session::binding_of_chosen_cpus;
use metewand_runtime::session::{
    CapabilityConfinement, Confinement, IpcConfinement, KernelSupport, LimitMechanism, LimitReport, Limits,
    MountConfinement, NetworkConfinement, ProcessConfinement, SyscallFilter, WORKER_USER_VAR, delegated_cgroup,
};

use metewand_campaign::environment;

use crate::{Failure, print_out};

/// `metewand doctor`.
#[derive(clap::Args)]
#[command(
    about = "print what this machine offers for confining workers",
    long_about = "Prints what this machine's kernel offers for confining workers: the Landlock ABI (1 or more: \
                  filesystem rules; 4: TCP rules; 6: signal and abstract-socket scopes), whether this process may \
                  itself give each worker a PID namespace (it has CAP_SYS_ADMIN), whether a worker may instead get \
                  one inside a user namespace of its own (the route without privileges), and which of them workers \
                  get; then what a worker without network access gets (a network namespace with only loopback, \
                  TCP denied, or nothing), its IPC (a namespace of its own, or the host's), its capabilities (none) \
                  and its filesystem view (private, or the host's); the host user and group workers run as (run \
                  by root: METEWAND_WORKER_USER, by default 65530, never 0 where root may change identities; \
                  otherwise your own) and whether they get the system call filter (default: seccomp refuses \
                  clone3, io_uring, keyrings beyond the session's own, bpf, perf_event_open, userfaultfd, kexec, \
                  module, swap and reboot calls, but for the groups a worker declares); then how each of the \
                  default `[limits]` would be kept: memory_bytes (none by default, and what would hold one: cgroup: \
                  memory.max in the cgroup v2 subtree delegated to you, or root's own hierarchy; else rlimit: \
                  RLIMIT_AS with the IPC namespace's limits and the filter's refusal of memfds), processes (cgroup: pids.max there; pid_max: the worker's own PID \
                  namespace's, Linux 6.14 and later; rlimit: RLIMIT_NPROC in a user namespace without root; none) \
                  and output_bytes (watched: measured while the worker runs), and which delegated cgroup is used \
                  (or why none); then how `campaign run -j N` holds each slot's workers on its CPUs (locked: a \
                  seccomp filter refuses them sched_setaffinity; advisory). The last line says whether workers \
                  would run fully confined (what `metewand run --require-confinement` requires)."
)]
pub(crate) struct Args {}

pub(crate) fn run(_args: Args) -> Result<(), Failure> {
    let kernel = KernelSupport::probe();
    let yes_no = |flag: bool| if flag { "yes" } else { "no" };
    let abi = match kernel.landlock_abi {
        0 => "none".to_owned(),
        abi => abi.to_string(),
    };
    let expected = kernel.expected(false);
    let processes = match (expected.processes, expected.user_namespace) {
        (ProcessConfinement::PidNamespace, false) => "pid-namespace",
        (ProcessConfinement::PidNamespace, true) => "pid-namespace in a user namespace",
        (ProcessConfinement::Sweep, _) => "sweep",
    };
    let network = match expected.network {
        NetworkConfinement::Namespace => "namespace",
        NetworkConfinement::Denied => "tcp denied",
        NetworkConfinement::Allowed => "allowed",
        NetworkConfinement::Unrestricted => "unrestricted",
    };
    let ipc = match expected.ipc {
        IpcConfinement::Namespace => "namespace",
        IpcConfinement::Host => "host",
    };
    let capabilities = match expected.capabilities {
        CapabilityConfinement::None => "none",
        CapabilityConfinement::Kept => "kept",
    };
    let mounts = match expected.mounts {
        MountConfinement::Private => "private",
        MountConfinement::Host => "host",
    };
    let limit = |limit: LimitReport| match limit.value {
        Some(value) => format!("{value} ({})", mechanism_name(limit.mechanism)),
        None => "none".to_owned(),
    };
    let limits = &expected.limits;
    // Memory has no default limit: what would hold one.
    let memory = {
        let limited = Limits { memory_bytes: Some(1 << 30), ..Limits::default() };
        let with_memory = kernel.expected_for(&Confinement::new().limits(limited).private_view());
        match (limits.memory_bytes.value, with_memory.limits.memory_bytes.mechanism) {
            (None, LimitMechanism::None) => "none (a limit could not be held here)".to_owned(),
            (None, mechanism) => format!("none (a limit would be held by {})", mechanism_name(mechanism)),
            (Some(_), _) => limit(limits.memory_bytes),
        }
    };
    let user = match (kernel.worker_identity, expected.user) {
        (Some(identity), _) => format!("{} {} ({WORKER_USER_VAR}, or its default)", identity.uid, identity.gid),
        (None, Some(user)) if user.uid == 0 => "0 0 (root without CAP_SETUID and CAP_SETGID)".to_owned(),
        (None, Some(user)) => format!("{} {} (this user's)", user.uid, user.gid),
        (None, None) => "none".to_owned(),
    };
    let filter = match expected.syscall_filter {
        SyscallFilter::Default => "default",
        SyscallFilter::None => "none",
    };
    let verdict =
        if expected.is_full() { "full".to_owned() } else { format!("partial ({})", expected.weaknesses().join(", ")) };
    let cgroup = match delegated_cgroup() {
        Ok((dir, controllers)) if controllers.is_empty() => format!("{} (freezer only)", dir.display()),
        Ok((dir, controllers)) => format!("{} (freezer, {})", dir.display(), controllers.join(", ")),
        Err(reason) => format!("none ({reason})"),
    };
    // How `campaign run -j N` holds each slot's workers on its CPUs.
    let cpus = match binding_of_chosen_cpus() {
        CpusBinding::Locked => "locked",
        _ => "advisory",
    };
    let text = format!(
        "landlock abi {abi}\npid namespace {}\nuser namespace {}\nprocesses {processes}\nnetwork {network}\nipc \
         {ipc}\ncapabilities {capabilities}\nmounts {mounts}\nuser {user}\nsyscall filter {filter}\n\
         limits.memory_bytes {memory}\nlimits.processes {}\nlimits.output_bytes {}\ncgroup {cgroup}\ncpus.slots \
         {cpus}\nconfinement {verdict}\n",
        yes_no(kernel.pid_namespace),
        yes_no(kernel.user_namespace),
        limit(limits.processes),
        limit(limits.output_bytes),
    );
    print_out("doctor", &(text + &noise_lines()))
}

/// How a limit is held, as `doctor` and the record name it.
fn mechanism_name(mechanism: LimitMechanism) -> &'static str {
    match mechanism {
        LimitMechanism::Rlimit => "rlimit",
        LimitMechanism::PidMax => "pid_max",
        LimitMechanism::Cgroup => "cgroup",
        LimitMechanism::Watched => "watched",
        LimitMechanism::None => "none",
    }
}

/// What skews times here, a line each, then the warnings they give (`noise none` when there is none).
fn noise_lines() -> String {
    let noise = environment::noise();
    let or_unknown = |value: Option<String>| value.unwrap_or_else(|| "unknown".to_owned());
    let on_off = |flag: Option<bool>| or_unknown(flag.map(|on| if on { "on" } else { "off" }.to_owned()));
    let bytes = |value: Option<metewand_runtime::protocol::strict::SafeUint>| {
        or_unknown(value.map(|bytes| format!("{:.1} MiB", bytes.get() as f64 / (1u64 << 20) as f64)))
    };
    let governors =
        if noise.governors.is_empty() { "none (no frequency scaling)".to_owned() } else { noise.governors.join(", ") };
    let aslr = or_unknown(noise.aslr.map(|aslr| {
        let what = match aslr.get() {
            0 => "off",
            1 => "partial",
            _ => "full",
        };
        format!("{aslr} ({what})")
    }));
    let isolated =
        or_unknown(noise.isolated_cpus.clone().map(|cpus| if cpus.is_empty() { "none".to_owned() } else { cpus }));
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get() as u64);
    let warnings = environment::noise_warnings(&noise, cpus);
    format!(
        "noise.governor {governors}\nnoise.turbo {}\nnoise.smt {}\nnoise.aslr {aslr}\nnoise.load {}\nnoise.swap {} used \
         of {}\nnoise.isolated_cpus {isolated}\nnoise {}\n",
        on_off(noise.turbo),
        on_off(noise.smt),
        or_unknown(noise.load.clone()),
        bytes(noise.swap_used_bytes),
        bytes(noise.swap_total_bytes),
        if warnings.is_empty() { "none".to_owned() } else { warnings.join("; ") },
    )
}
