//! Confinement: what the kernel stops a worker from doing, prepared in the orchestrator and applied in the forked
//! child just before `exec` (see `sys::worker_pre_exec`), and what was in force, for the attempt record.
//!
//! - **Filesystem** (Landlock, best effort up to ABI 6): read and execute everywhere; write only the directories
//!   [`Confinement::writable`] names and `/dev/null`.
//! - **Network** (Landlock ABI 4): TCP bind and connect denied unless [`Confinement::network`] allows them.
//! - **Signals and abstract unix sockets** (Landlock ABI 6 scopes): only within the worker's own domain, so a
//!   worker can neither stop nor kill the orchestrator. A Landlock domain also denies ptrace-class access (which
//!   covers `/proc/<pid>/fd` and `/proc/<pid>/mem`) to processes outside it.
//! - **Processes**: the worker is the first process of its own PID namespace, so its end kills everything it
//!   started. With `CAP_SYS_ADMIN` the orchestrator makes the namespace itself; without it, the worker's forked
//!   child enters a user namespace of its own that maps the current uid and gid, and forks the worker into a PID
//!   namespace made there (`sys::worker_pre_exec`), staying behind as its supervisor. Where neither is allowed,
//!   the sweep freezes the worker's tree before killing it ([`ProcessIsolation::Sweep`] forces that).
//! - **Resources**: `RLIMIT_CORE` 0, `RLIMIT_FSIZE` from [`Confinement::file_size_limit`], and the session's
//!   [`Limits`] ([`Confinement::limits`]): in a cgroup of the worker's own where the user's cgroup v2 subtree is
//!   delegated and offers the controller (`session::cgroup`: `memory.max`, `pids.max`); otherwise
//!   `memory_bytes` as `RLIMIT_AS`; `processes` as the `pid_max` of the
//!   worker's own PID namespace (Linux 6.14 and later), else as `RLIMIT_NPROC` where that counts only the
//!   worker's processes (a user namespace of its own, a uid other than 0), else not at all; `output_bytes` over
//!   everything the worker may write, measured by the session while it runs (`session::watch`). Each is
//!   reported with how it was enforced ([`LimitsReport`]).
//!
//! Every worker, confined or not, also gets `PR_SET_PDEATHSIG` (`SIGKILL`), set from a thread that lives until the
//! worker is reaped: the signal follows the *thread* that forked the child, not the process.

use std::io;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreatedAttr, Scope,
};

use super::cgroup::{self, Controllers};
use super::{sys, view};
pub use metewand_protocol::declared::{Limits, SYSCALL_GROUPS, SyscallGroup, SyscallGroups};

/// The newest Landlock ABI whose rights the ruleset asks for; older kernels get what they offer (best effort).
const TARGET_ABI: ABI = ABI::V6;

/// How a confined worker's processes are kept together.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ProcessIsolation {
    /// A PID namespace of its own where the orchestrator may create one, the freezing sweep otherwise.
    #[default]
    Namespace,
    /// The freezing sweep only, even where namespaces are available (the fallback, forced).
    Sweep,
    /// A PID namespace inside a user namespace of the worker's own, even where the orchestrator could make the
    /// PID namespace itself: the route taken without `CAP_SYS_ADMIN`, chosen (to measure or test it as root); the
    /// freezing sweep where the kernel refuses it.
    UserNamespace,
}

/// What a worker may do: the directories it may write, whether it may use TCP, how large a file it may write,
/// and how its processes are kept together. [`Confinement::new`] allows writing nothing but `/dev/null`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Confinement {
    writable: Vec<PathBuf>,
    network: bool,
    file_size: Option<u64>,
    limits: Option<Limits>,
    pub(super) processes: ProcessIsolation,
    private_view: bool,
    hidden: Vec<PathBuf>,
    hidden_unless_named: Vec<PathBuf>,
    readable: Vec<PathBuf>,
    readable_after_hello: Vec<PathBuf>,
    syscalls: SyscallGroups,
}

impl Confinement {
    /// Nothing writable but `/dev/null`, no TCP, no file-size limit, a PID namespace where possible.
    pub fn new() -> Confinement {
        Confinement::default()
    }

    /// Allows writing beneath `dir` (which must exist when the worker starts).
    #[must_use]
    pub fn writable(mut self, dir: impl Into<PathBuf>) -> Confinement {
        self.writable.push(dir.into());
        self
    }

    /// Allows (`true`) or denies TCP bind and connect.
    #[must_use]
    pub fn network(mut self, allowed: bool) -> Confinement {
        self.network = allowed;
        self
    }

    /// Limits every file the worker writes to `bytes` (`RLIMIT_FSIZE`): a write past it fails with `EFBIG`.
    #[must_use]
    pub fn file_size_limit(mut self, bytes: u64) -> Confinement {
        self.file_size = Some(bytes);
        self
    }

    /// Applies a session's resource limits (see [`Limits`]): `output_bytes` also limits each file
    /// ([`file_size_limit`](Confinement::file_size_limit)).
    #[must_use]
    pub fn limits(mut self, limits: Limits) -> Confinement {
        self.file_size = Some(limits.output_bytes);
        self.limits = Some(limits);
        self
    }

    /// The resource limits applied, if any.
    pub fn resource_limits(&self) -> Option<Limits> {
        self.limits
    }

    /// Chooses how the worker's processes are kept together.
    #[must_use]
    pub fn process_isolation(mut self, isolation: ProcessIsolation) -> Confinement {
        self.processes = isolation;
        self
    }

    /// Gives the worker a private filesystem view (on the namespace routes; the sweep keeps the host's): `/tmp`,
    /// `/var/tmp`, `/run`, `/dev/shm` and every folder [`hide`](Confinement::hide) and
    /// [`hide_unless_named`](Confinement::hide_unless_named) name are empty and read-only there, except for the
    /// folders it may write, those it may [`read`](Confinement::readable), its working directory, its program and
    /// (in `/tmp`, `/var/tmp` and the open folders) what its command and environment name; its `/proc` shows its
    /// own PID namespace only.
    #[must_use]
    pub fn private_view(mut self) -> Confinement {
        self.private_view = true;
        self
    }

    /// Hides `dir` in the private view (see [`private_view`](Confinement::private_view)): only the folders this
    /// confinement names are shown there, never what the worker's command or environment names.
    #[must_use]
    pub fn hide(mut self, dir: impl Into<PathBuf>) -> Confinement {
        self.hidden.push(dir.into());
        self
    }

    /// Hides `dir` in the private view as `/tmp` is: the files and folders the worker's command and environment
    /// name there (an interpreter, a library folder) are shown read-only, the rest is not.
    #[must_use]
    pub fn hide_unless_named(mut self, dir: impl Into<PathBuf>) -> Confinement {
        self.hidden_unless_named.push(dir.into());
        self
    }

    /// Shows `path` read-only in the private view, wherever it is.
    #[must_use]
    pub fn readable(mut self, path: impl Into<PathBuf>) -> Confinement {
        self.readable.push(path.into());
        self
    }

    /// Shows `path` read-only in the private view once the worker's `hello` has been answered, not before (an
    /// implementation's dataset: work done before answering cannot read it); where it lies in a hidden folder,
    /// an empty folder is there until then. Elsewhere, and without a private view, it is visible from the start.
    #[must_use]
    pub fn readable_after_hello(mut self, path: impl Into<PathBuf>) -> Confinement {
        self.readable_after_hello.push(path.into());
        self
    }

    /// Allows the groups of system calls the worker declared (`[workers.X] syscalls`), which its filter refuses
    /// otherwise (see [`SyscallGroup`]).
    #[must_use]
    pub fn syscalls(mut self, declared: SyscallGroups) -> Confinement {
        self.syscalls = declared;
        self
    }

    /// The directories the worker may write, besides `/dev/null`.
    pub fn writable_dirs(&self) -> &[PathBuf] {
        &self.writable
    }
}

/// The filesystem confinement in force.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FilesystemConfinement {
    /// Landlock rules, enforced with this ABI version.
    Landlock {
        /// The kernel's Landlock ABI.
        abi: u32,
    },
    /// None: the worker may write whatever its user may.
    None,
}

/// The network confinement in force.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NetworkConfinement {
    /// A network namespace of the worker's own with only its loopback: no TCP, UDP, raw socket or other address
    /// family reaches outside it.
    Namespace,
    /// TCP bind and connect are denied (Landlock ABI 4), without a network namespace: UDP and other families
    /// still reach the host.
    Denied,
    /// The worker declared `network = true`.
    Allowed,
    /// Denial was wanted but the kernel has no Landlock TCP rules (ABI 4), or the worker is not confined.
    Unrestricted,
}

/// How the worker's processes were kept together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProcessConfinement {
    /// The worker was the first process of its own PID namespace.
    PidNamespace,
    /// The sweep (freeze, then kill) found and ended its processes.
    Sweep,
}

/// What the worker's filesystem looked like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MountConfinement {
    /// A private view in a mount namespace of its own: the state, the repository and the host's temporary and
    /// runtime folders hidden, its own inputs and outputs shown, a `/proc` of its PID namespace only.
    Private,
    /// The host's.
    Host,
}

/// Whether the worker shared the host's System V IPC objects and POSIX message queues.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IpcConfinement {
    /// An IPC namespace of the worker's own: nothing it makes there outlives it, nothing outside is reachable.
    Namespace,
    /// The host's.
    Host,
}

/// Whether the worker held capabilities.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CapabilityConfinement {
    /// Every capability set was emptied before `exec` (the bounding set too, where the process could), and
    /// `no_new_privs` set: the worker holds none, even as root.
    None,
    /// The worker kept what its user holds (it was not confined).
    Kept,
}

/// Whether the worker could signal processes outside its domain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignalConfinement {
    /// Signals and abstract unix sockets are scoped to the worker's domain (Landlock ABI 6).
    Scoped,
    /// They are not.
    Unscoped,
}

/// How a resource limit was enforced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimitMechanism {
    /// A resource limit of the worker's processes (`RLIMIT_AS`, or `RLIMIT_NPROC` counted in a user namespace of
    /// the worker's own).
    Rlimit,
    /// The `pid_max` of the worker's own PID namespace (Linux 6.14 and later).
    PidMax,
    /// A cgroup of the worker's own in the cgroup v2 subtree delegated to the user (`memory.max`, `pids.max`;
    /// see `session::cgroup`).
    Cgroup,
    /// Measured by the session while the worker runs: the worker is killed once it is past the limit.
    Watched,
    /// Not enforced: none was asked for, or the kernel offers no way here.
    None,
}

/// One resource limit: its value, and how it was enforced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LimitReport {
    /// The limit, or `None` when there was none.
    pub value: Option<u64>,
    /// How it was enforced.
    pub mechanism: LimitMechanism,
}

impl LimitReport {
    const NONE: LimitReport = LimitReport { value: None, mechanism: LimitMechanism::None };

    /// Whether a limit was asked for but nothing enforced it.
    pub fn is_unenforced(&self) -> bool {
        self.value.is_some() && self.mechanism == LimitMechanism::None
    }
}

/// The resource limits a worker ran under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LimitsReport {
    /// Address space per process.
    pub memory_bytes: LimitReport,
    /// Tasks in the worker's PID namespace.
    pub processes: LimitReport,
    /// Bytes written in all.
    pub output_bytes: LimitReport,
}

impl LimitsReport {
    /// No limit at all.
    pub const NONE: LimitsReport =
        LimitsReport { memory_bytes: LimitReport::NONE, processes: LimitReport::NONE, output_bytes: LimitReport::NONE };

    /// How `limits` are enforced on `route`, with a delegated cgroup offering `cgroup`'s controllers, for a worker
    /// run as an `identity` of its own or not, with the system call filter (`filtered`) and the groups it
    /// `declared`. Without a cgroup, `memory_bytes` is `RLIMIT_AS` together with what keeps memory outside the
    /// address space bounded (the IPC namespace's limits or the filter's refusal of System V objects, the filter's
    /// refusal of memfds): without the filter, or with memfds declared, it is not enforced.
    fn new(
        limits: Option<Limits>,
        route: Route,
        cgroup: Controllers,
        identity: bool,
        (filtered, declared): (bool, SyscallGroups),
    ) -> LimitsReport {
        let Some(limits) = limits else { return LimitsReport::NONE };
        let bounded = filtered && !declared.contains(SyscallGroup::MemfdCreate);
        LimitsReport {
            memory_bytes: match limits.memory_bytes {
                Some(bytes) if cgroup.memory => LimitReport { value: Some(bytes), mechanism: LimitMechanism::Cgroup },
                Some(bytes) if bounded => LimitReport { value: Some(bytes), mechanism: LimitMechanism::Rlimit },
                Some(bytes) => LimitReport { value: Some(bytes), mechanism: LimitMechanism::None },
                None => LimitReport::NONE,
            },
            processes: LimitReport {
                value: Some(limits.processes),
                mechanism: if cgroup.pids {
                    LimitMechanism::Cgroup
                } else {
                    process_mechanism(limits, route, identity)
                },
            },
            output_bytes: LimitReport { value: Some(limits.output_bytes), mechanism: LimitMechanism::Watched },
        }
    }
}

/// How the `processes` limit can be kept on `route`: the namespace's `pid_max` where the kernel gives each PID
/// namespace its own and the value is one it accepts; `RLIMIT_NPROC` where it counts the worker's processes, which
/// needs a namespace route and a worker that is not uid 0 on the host (the kernel exempts root, in any namespace,
/// from `RLIMIT_NPROC`): an ordinary user's, or root's worker run as its own `identity`; nothing otherwise.
fn process_mechanism(limits: Limits, route: Route, identity: bool) -> LimitMechanism {
    if route != Route::Sweep && limits.processes >= Limits::LEAST_PID_MAX_PROCESSES && pid_max_per_namespace() {
        LimitMechanism::PidMax
    } else if route != Route::Sweep && (identity || (route == Route::UserNamespace && !running_as_root())) {
        LimitMechanism::Rlimit
    } else {
        LimitMechanism::None
    }
}

fn running_as_root() -> bool {
    sys::euid() == 0
}

/// Whether this kernel gives each PID namespace its own `pid_max`, asked once per process.
fn pid_max_per_namespace() -> bool {
    static PER_NAMESPACE: OnceLock<bool> = OnceLock::new();
    *PER_NAMESPACE.get_or_init(sys::pid_max_per_namespace)
}

/// The confinement a worker ran under, as recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConfinementReport {
    /// Filesystem rules.
    pub filesystem: FilesystemConfinement,
    /// TCP rules.
    pub network: NetworkConfinement,
    /// Process containment.
    pub processes: ProcessConfinement,
    /// Whether the worker ran in a user namespace of its own (mapping the orchestrator's uid and gid to
    /// themselves): how its PID namespace is made without `CAP_SYS_ADMIN`.
    pub user_namespace: bool,
    /// Signal and abstract-socket scoping.
    pub signals: SignalConfinement,
    /// System V IPC and POSIX message queues.
    pub ipc: IpcConfinement,
    /// Capabilities.
    pub capabilities: CapabilityConfinement,
    /// The filesystem view.
    pub mounts: MountConfinement,
    /// The resource limits.
    pub limits: LimitsReport,
    /// Whether the worker had the system call filter.
    pub syscall_filter: SyscallFilter,
    /// The groups of system calls the worker declared, which its filter allowed.
    pub declared_syscalls: SyscallGroups,
    /// The host identity the worker ran as, when it was confined: the orchestrator's user's, or run by root the
    /// configured identity of its own (uid 0 only where root lacked the capabilities to give it one).
    pub user: Option<super::identity::WorkerIdentity>,
}

/// Whether a worker had the system call filter (DESIGN §23).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyscallFilter {
    /// The default filter (`clone3`, io_uring, keyrings beyond the session's own, `bpf`, `perf_event_open`,
    /// `userfaultfd`, kexec, module, swap and reboot calls refused, but for what the worker declared).
    Default,
    /// None: the kernel has no seccomp filters with the errno action, or the worker was not confined.
    None,
}

impl ConfinementReport {
    /// What this confinement lacks compared with full confinement, one short phrase each; empty when full.
    pub fn weaknesses(&self) -> Vec<&'static str> {
        let mut missing = Vec::new();
        if self.filesystem == FilesystemConfinement::None {
            missing.push("no filesystem rules (Landlock unavailable)");
        }
        match self.network {
            NetworkConfinement::Unrestricted => missing.push("network not restricted (no network namespace)"),
            NetworkConfinement::Denied => missing.push("only TCP denied (no network namespace)"),
            NetworkConfinement::Namespace | NetworkConfinement::Allowed => {}
        }
        if self.processes == ProcessConfinement::Sweep {
            missing.push("no PID namespace (processes are swept)");
        }
        if self.signals == SignalConfinement::Unscoped {
            missing.push("signals not scoped (needs Landlock ABI 6)");
        }
        if self.ipc == IpcConfinement::Host {
            missing.push("no IPC namespace");
        }
        if self.capabilities == CapabilityConfinement::Kept {
            missing.push("capabilities kept");
        }
        if self.mounts == MountConfinement::Host {
            missing.push("the host's filesystem view (no mount namespace)");
        }
        if self.limits.memory_bytes.is_unenforced() {
            missing.push("no memory limit (memfds and shared memory would escape it: needs seccomp, or a cgroup)");
        }
        if self.limits.processes.is_unenforced() {
            missing.push("no process limit (needs a PID namespace, or a worker that is not root)");
        }
        if self.limits.output_bytes.is_unenforced() {
            missing.push("no output limit");
        }
        if self.syscall_filter == SyscallFilter::None {
            missing.push("no system call filter (needs seccomp)");
        }
        if self.user.is_some_and(|user| user.uid == 0) {
            missing.push("the worker is root on the host (needs CAP_SETUID and CAP_SETGID to run it as its own user)");
        }
        missing
    }

    /// Whether nothing is weaker than full confinement.
    pub fn is_full(&self) -> bool {
        self.weaknesses().is_empty()
    }

    /// The confinement of a worker that was not confined at all (processes as given).
    pub(super) fn unconfined(processes: ProcessConfinement) -> ConfinementReport {
        ConfinementReport {
            filesystem: FilesystemConfinement::None,
            network: NetworkConfinement::Unrestricted,
            processes,
            user_namespace: false,
            signals: SignalConfinement::Unscoped,
            ipc: IpcConfinement::Host,
            capabilities: CapabilityConfinement::Kept,
            mounts: MountConfinement::Host,
            limits: LimitsReport::NONE,
            syscall_filter: SyscallFilter::None,
            declared_syscalls: SyscallGroups::NONE,
            user: None,
        }
    }
}

/// What this machine's kernel offers for confinement, found by asking it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelSupport {
    /// The Landlock ABI version, 0 when Landlock is unavailable.
    pub landlock_abi: u32,
    /// Whether this process may itself give its workers a PID namespace (it has `CAP_SYS_ADMIN`).
    pub pid_namespace: bool,
    /// Whether a worker may be given a PID namespace inside a user namespace of its own that maps the current uid
    /// and gid: the route without `CAP_SYS_ADMIN`, refused where unprivileged user namespaces are disabled.
    pub user_namespace: bool,
    /// Whether the cgroup v2 subtree delegated to this user offers the memory controller (`[limits]
    /// memory_bytes` is then kept by `memory.max`; see `session::cgroup`).
    pub cgroup_memory: bool,
    /// Whether it offers the pids controller (`[limits] processes` is then kept by `pids.max`).
    pub cgroup_pids: bool,
    /// Whether seccomp filters with the errno action work: every confined worker then gets the system call
    /// filter.
    pub seccomp: bool,
    /// The host identity confined workers run as, when this process runs as root (`session::identity`).
    pub worker_identity: Option<super::identity::WorkerIdentity>,
}

impl KernelSupport {
    /// Asks the kernel: the Landlock ABI; whether a thread may create a PID namespace (tried from a short-lived
    /// thread, which starts no process); and whether a process may create a user namespace, write its maps and
    /// a PID namespace in it (tried once per orchestrator by a process that does just that and exits).
    pub fn probe() -> KernelSupport {
        let pid_namespace = std::thread::spawn(|| sys::unshare_pid_namespace().is_ok()).join().unwrap_or(false);
        let cgroup = cgroup::probe().map(|(_, controllers)| controllers).unwrap_or_default();
        KernelSupport {
            landlock_abi: sys::landlock_abi(),
            pid_namespace,
            user_namespace: user_namespace_works(),
            cgroup_memory: cgroup.memory,
            cgroup_pids: cgroup.pids,
            seccomp: sys::filter_program(sys::FilterPlan::default()).is_some(),
            worker_identity: super::identity::WorkerIdentity::for_workers().ok().flatten(),
        }
    }

    /// The confinement a worker would get here, given whether it declared network access.
    pub fn expected(&self, network: bool) -> ConfinementReport {
        self.expected_with(network, ProcessIsolation::Namespace)
    }

    /// The confinement an attempt's worker (which gets a private view and the default [`Limits`]) would get here
    /// with `isolation`, given whether it declared network access.
    pub fn expected_with(&self, network: bool, isolation: ProcessIsolation) -> ConfinementReport {
        self.report(network, self.route(isolation), true, Some(Limits::default()), SyscallGroups::NONE)
    }

    /// The confinement a worker confined as `confinement` says would get here: its route, namespaces, limits and
    /// filter, as its session would report them.
    pub fn expected_for(&self, confinement: &Confinement) -> ConfinementReport {
        let route = self.route(confinement.processes);
        let mut report =
            self.report(confinement.network, route, confinement.private_view, confinement.limits, confinement.syscalls);
        report.declared_syscalls = confinement.syscalls;
        report
    }

    /// How a worker's processes are kept together here with `isolation`.
    fn route(&self, isolation: ProcessIsolation) -> Route {
        match isolation {
            ProcessIsolation::Namespace if self.pid_namespace => Route::PidNamespace,
            ProcessIsolation::Namespace | ProcessIsolation::UserNamespace if self.user_namespace => {
                Route::UserNamespace
            }
            _ => Route::Sweep,
        }
    }

    fn report(
        &self,
        network: bool,
        route: Route,
        private_view: bool,
        limits: Option<Limits>,
        declared: SyscallGroups,
    ) -> ConfinementReport {
        let abi = self.landlock_abi;
        let namespaces = route.namespaces(network, private_view);
        ConfinementReport {
            filesystem: if abi >= 1 { FilesystemConfinement::Landlock { abi } } else { FilesystemConfinement::None },
            network: match (network, namespaces.network, abi >= 4) {
                (true, _, _) => NetworkConfinement::Allowed,
                (false, true, _) => NetworkConfinement::Namespace,
                (false, false, true) => NetworkConfinement::Denied,
                (false, false, false) => NetworkConfinement::Unrestricted,
            },
            processes: if route == Route::Sweep { ProcessConfinement::Sweep } else { ProcessConfinement::PidNamespace },
            user_namespace: route == Route::UserNamespace,
            signals: if abi >= 6 { SignalConfinement::Scoped } else { SignalConfinement::Unscoped },
            ipc: if namespaces.ipc { IpcConfinement::Namespace } else { IpcConfinement::Host },
            capabilities: CapabilityConfinement::None,
            mounts: if namespaces.mounts { MountConfinement::Private } else { MountConfinement::Host },
            limits: LimitsReport::new(
                limits,
                route,
                Controllers { memory: self.cgroup_memory, pids: self.cgroup_pids },
                self.worker_identity.is_some(),
                (self.seccomp, declared),
            ),
            syscall_filter: if self.seccomp { SyscallFilter::Default } else { SyscallFilter::None },
            declared_syscalls: SyscallGroups::NONE,
            user: Some(self.worker_identity.unwrap_or_else(super::identity::WorkerIdentity::of_this_process)),
        }
    }
}

/// How a worker's processes are kept together, as chosen when it is spawned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Route {
    /// A PID namespace the orchestrator's spawning thread made (it has `CAP_SYS_ADMIN`).
    PidNamespace,
    /// A PID namespace inside a user namespace, made by the worker's forked child, which stays as its
    /// supervisor.
    UserNamespace,
    /// No namespace: the sweep.
    Sweep,
}

impl Route {
    /// The namespaces besides the PID namespace a worker on this route gets: an IPC namespace, a network
    /// namespace unless it may use the network, and a mount namespace for its private view when one is wanted.
    /// They need the privilege a namespace route has (`CAP_SYS_ADMIN`, or a user namespace of the worker's own);
    /// the sweep gets none.
    pub(super) fn namespaces(self, network: bool, private_view: bool) -> sys::Namespaces {
        let namespaced = self != Route::Sweep;
        sys::Namespaces { ipc: namespaced, network: namespaced && !network, mounts: namespaced && private_view }
    }
}

/// What the forked child sets to keep `limits` on `route` (as [`LimitsReport`] reports them) beside what the
/// worker's cgroup, offering `cgroup`'s controllers, keeps: `RLIMIT_AS`, and the namespace's `pid_max` or
/// `RLIMIT_NPROC`.
pub(super) fn child_limits(
    limits: Option<Limits>,
    route: Route,
    cgroup: Controllers,
    identity: bool,
) -> (Option<u64>, Option<sys::Line>, Option<u64>) {
    let Some(limits) = limits else { return (None, None, None) };
    let address_space = limits.memory_bytes.filter(|_| !cgroup.memory);
    if cgroup.pids {
        return (address_space, None, None);
    }
    match process_mechanism(limits, route, identity) {
        // pid 1 is the worker: `pid_max` is one more than the tasks it allows.
        LimitMechanism::PidMax => (address_space, Some(sys::Line::number(limits.processes + 1)), None),
        LimitMechanism::Rlimit => (address_space, None, Some(limits.processes)),
        LimitMechanism::Cgroup | LimitMechanism::Watched | LimitMechanism::None => (address_space, None, None),
    }
}

/// The cgroup of a confined worker, kept to `limits` where its controllers are offered, in the delegated subtree
/// or root's own hierarchy where there is one (see `session::cgroup`), with the controllers it uses: a cgroup
/// without any still gives the kernel's freezer, which holds the worker stopped. `None` where there is none, or it
/// cannot be made (the limits then fall back to resource limits, the holds to signals).
pub(super) fn worker_cgroup(limits: Option<Limits>) -> Option<(cgroup::WorkerCgroup, Controllers)> {
    let delegated = cgroup::delegated().ok()?;
    let controllers = delegated.controllers();
    let used = Controllers {
        memory: controllers.memory && limits.is_some_and(|limits| limits.memory_bytes.is_some()),
        pids: controllers.pids && limits.is_some(),
    };
    // A task more than the limit: the supervisor of the user-namespace route shares the worker's cgroup.
    let memory = limits.and_then(|limits| limits.memory_bytes).filter(|_| used.memory);
    let made = delegated.worker(memory, limits.filter(|_| used.pids).map(|limits| limits.processes + 1));
    made.ok().map(|cgroup| (cgroup, used))
}

/// Whether a worker that has become `identity` may enter a user namespace of its own, asked of the kernel once per
/// process (the identity is the process's one).
pub(super) fn user_namespace_works_as(identity: super::identity::WorkerIdentity) -> bool {
    static WORKS: OnceLock<bool> = OnceLock::new();
    *WORKS.get_or_init(|| sys::user_namespace_works_as(identity.uid, identity.gid))
}

/// What the user-namespace route can do here for this process's workers, asked of the kernel once per process.
pub(super) fn user_namespace_route() -> sys::UserNamespaceRoute {
    static ROUTE: OnceLock<sys::UserNamespaceRoute> = OnceLock::new();
    *ROUTE.get_or_init(|| {
        let identity = super::identity::WorkerIdentity::for_workers().ok().flatten();
        sys::probe_user_namespace_route(identity.map(|identity| (identity.uid, identity.gid)))
    })
}

/// Whether the user-namespace route works here ([`user_namespace_route`]).
pub(super) fn user_namespace_works() -> bool {
    user_namespace_route().works
}

/// A confinement made ready in the parent: the ruleset's descriptor (kept open until the child has used it) and
/// how the worker's processes are to be kept together.
pub(super) struct Prepared {
    pub(super) ruleset: Option<OwnedFd>,
    pub(super) file_size: Option<u64>,
    pub(super) limits: Option<Limits>,
    pub(super) processes: ProcessIsolation,
    pub(super) network: bool,
    pub(super) abi: u32,
    pub(super) private_view: bool,
    pub(super) syscalls: SyscallGroups,
}

impl Prepared {
    /// The report once the spawn tells how the worker's processes are kept together.
    pub(super) fn report(
        &self,
        route: Route,
        cgroup: Controllers,
        filtered: bool,
        identity: Option<super::identity::WorkerIdentity>,
    ) -> ConfinementReport {
        let support = KernelSupport {
            landlock_abi: self.abi,
            pid_namespace: false,
            user_namespace: false,
            cgroup_memory: cgroup.memory,
            cgroup_pids: cgroup.pids,
            seccomp: filtered,
            worker_identity: identity,
        };
        let mut report = support.report(self.network, route, self.private_view, self.limits, self.syscalls);
        report.declared_syscalls = self.syscalls;
        if self.ruleset.is_none() {
            report.filesystem = FilesystemConfinement::None;
            report.signals = SignalConfinement::Unscoped;
            if report.network == NetworkConfinement::Denied {
                report.network = NetworkConfinement::Unrestricted;
            }
        }
        report
    }
}

impl Confinement {
    /// The private view's plan for a worker running `program` (as found) in `working_dir`, whose program,
    /// arguments and environment values are `words`, when one is wanted.
    pub(super) fn view_plan(
        &self,
        working_dir: &Path,
        programs: &[PathBuf],
        words: impl IntoIterator<Item = impl AsRef<std::ffi::OsStr>>,
        maker: view::Maker,
    ) -> io::Result<Option<view::ViewPlan>> {
        if !self.private_view {
            return Ok(None);
        }
        let (hidden, open) = (&self.hidden, &self.hidden_unless_named);
        let shows =
            view::Shows { writable: &self.writable, readable: &self.readable, deferred: &self.readable_after_hello };
        view::plan(hidden, open, shows, working_dir, programs, words, maker).map(Some)
    }
}

/// Builds the Landlock ruleset for `confinement` (none when the kernel has no Landlock).
pub(super) fn prepare(confinement: &Confinement) -> io::Result<Prepared> {
    let abi = sys::landlock_abi();
    let ruleset = if abi == 0 { None } else { ruleset(confinement).map_err(io::Error::other)? };
    Ok(Prepared {
        ruleset,
        file_size: confinement.file_size,
        limits: confinement.limits,
        processes: confinement.processes,
        network: confinement.network,
        abi,
        private_view: confinement.private_view,
        syscalls: confinement.syscalls,
    })
}

fn ruleset(confinement: &Confinement) -> Result<Option<OwnedFd>, Box<dyn std::error::Error + Send + Sync>> {
    let path = |path: &Path| PathFd::new(path);
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(TARGET_ABI))?
        .scope(Scope::Signal | Scope::AbstractUnixSocket)?;
    if !confinement.network {
        ruleset = ruleset.handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)?;
    }
    let mut created = ruleset
        .create()?
        .add_rule(PathBeneath::new(path(Path::new("/"))?, AccessFs::from_read(TARGET_ABI)))?
        .add_rule(PathBeneath::new(path(Path::new("/dev/null"))?, AccessFs::from_file(TARGET_ABI)))?;
    for dir in &confinement.writable {
        created = created.add_rule(PathBeneath::new(path(dir)?, AccessFs::from_all(TARGET_ABI)))?;
    }
    Ok(created.into())
}
