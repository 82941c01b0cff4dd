//! `metewand doctor`: what this machine's kernel offers for confining workers.

use metewand_runtime::cpus::{CpusBinding, binding_of_chosen_cpus};
use metewand_runtime::session::{
    CapabilityConfinement, IpcConfinement, KernelSupport, LimitMechanism, LimitReport, MountConfinement,
    NetworkConfinement, ProcessConfinement, delegated_cgroup,
};

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
                  and its filesystem view (private, or the host's); then how each of the default `[limits]` would \
                  be kept: memory_bytes (none by default; cgroup: memory.max in the cgroup v2 subtree delegated to \
                  you, else rlimit: RLIMIT_AS), processes (cgroup: pids.max there; pid_max: the worker's own PID \
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
    let limit = |limit: LimitReport| {
        let mechanism = match limit.mechanism {
            LimitMechanism::Rlimit => "rlimit",
            LimitMechanism::PidMax => "pid_max",
            LimitMechanism::Cgroup => "cgroup",
            LimitMechanism::Watched => "watched",
            LimitMechanism::None => "none",
        };
        match limit.value {
            Some(value) => format!("{value} ({mechanism})"),
            None => "none".to_owned(),
        }
    };
    let limits = &expected.limits;
    let verdict =
        if expected.is_full() { "full".to_owned() } else { format!("partial ({})", expected.weaknesses().join(", ")) };
    let cgroup = match delegated_cgroup() {
        Ok((dir, controllers)) => format!("{} ({})", dir.display(), controllers.join(", ")),
        Err(reason) => format!("none ({reason})"),
    };
    // How `campaign run -j N` holds each slot's workers on its CPUs.
    let cpus = match binding_of_chosen_cpus() {
        CpusBinding::Locked => "locked",
        _ => "advisory",
    };
    let text = format!(
        "landlock abi {abi}\npid namespace {}\nuser namespace {}\nprocesses {processes}\nnetwork {network}\nipc \
         {ipc}\ncapabilities {capabilities}\nmounts {mounts}\nlimits.memory_bytes {}\nlimits.processes {}\n\
         limits.output_bytes {}\ncgroup {cgroup}\ncpus.slots {cpus}\nconfinement {verdict}\n",
        yes_no(kernel.pid_namespace),
        yes_no(kernel.user_namespace),
        limit(limits.memory_bytes),
        limit(limits.processes),
        limit(limits.output_bytes),
    );
    print_out("doctor", &text)
}
