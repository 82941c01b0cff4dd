//! Worker processes: spawning one in a clean environment (confined as its session asks, see `confinement`),
//! watching for its exit, and killing and reaping it with everything it started.
//!
//! # How a worker's processes are found
//!
//! A confined worker is, where the kernel allows, the first process of its own PID namespace: killing it kills
//! the namespace, and the rounds below only make sure. Otherwise:
//!
//! The orchestrator marks itself a child subreaper once, before its first worker starts, so that nothing a worker
//! leaves behind is re-parented to init, where it could not be told apart from the rest of the machine. Each
//! worker starts in a new session (`setsid`, which also gives it its own process group; both ids are the worker's
//! pid) and is itself marked a child subreaper, a flag that survives `exec`: while the worker lives, every process
//! it started stays below it in the parent tree even when an intermediate parent exits.
//!
//! When a session ends, [`WorkerProcess::terminate`] repeats, until scans of `/proc` find nothing alive: stop
//! (`SIGSTOP`), and once a scan finds all of them stopped, kill, the worker, its process group and every process
//! that
//!
//! - is in the worker's session or process group: everything the worker started that did not call `setsid`
//!   itself, whoever its parent is now;
//! - descends, by parent links, from the worker (what escaped with `setsid` while the worker lived); or
//! - was re-parented to the orchestrator from a worker tree: a child of the orchestrator in another session than
//!   the orchestrator's that is neither a live worker nor in a live worker's session. Only worker trees produce
//!   such processes, because every worker starts in a new session and nothing can rejoin the orchestrator's; this
//!   catches what escaped with `setsid` and was orphaned when its worker exited. It may be another session's
//!   leftover, which is dead weight all the same: its worker is gone.
//!
//! each with its descendants. Each round holds the registry of live workers, so a worker being spawned by another
//! thread is never mistaken for an orphan. Then the worker is reaped (only now, so that its pid, which is also its
//! group and session id, cannot be reused while those are signalled), and every process of the tree that became
//! our zombie is reaped by its own pid and start time, scanning again after each reaping until a scan finds
//! nothing new (zombies of generations that exited on their own keep arriving as their parents go): the
//! orchestrator never waits for "any child", which would steal the exit status of another session's worker or of
//! a process some other code started.
//!
//! With the user-namespace route the process spawned is the worker's supervisor, not the worker (see
//! `sys::worker_pre_exec`): its pid is the one watched, signalled and reaped, and the worker, its only child, is
//! never counted as left behind.
//!
//! Limits: an escapee re-parented to the orchestrator while its worker still runs (possible only if the worker
//! clears its own subreaper flag) is left to the orphan rule, so another session's sweep may end it early; code in
//! the same process that starts its own children in new sessions would have their orphans treated as worker
//! leftovers; a process stuck in an uninterruptible sleep past [`REAP_LIMIT`] is reported, not waited for; a process
//! that changes its user or enters another PID namespace is out of reach of the sweep (not of a namespace).

use std::collections::BTreeSet;
use std::ffi::{OsStr, OsString};
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{ChildStderr, ChildStdin, ChildStdout, ExitStatus};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError, mpsc};
use std::time::{Duration, Instant};
use std::{io, thread};

use super::cgroup::WorkerCgroup;
use super::command::{WorkerCommand, find_program};
use super::confinement::{self, Confinement, ConfinementReport, ProcessConfinement, ProcessIsolation, Route};
use super::identity::WorkerIdentity;
use super::procfs::{
    ProcessStat, descendants, every_thread_held, leftovers, pid_namespace_of, read_stat, scan_processes, worker_in,
};
use super::record::Resources;
use super::sys;
use super::{Limits, SessionErrorKind};
use crate::cpus::{CpuPlacement, CpuSet, CpusBinding};

/// How long ending a session waits, after SIGKILL, for the worker's processes to disappear before reporting the
/// ones that did not.
pub const REAP_LIMIT: Duration = Duration::from_secs(5);

/// The pids of workers that have been spawned and not yet reaped.
///
/// Held while spawning (until the new pid is in it) and during each round of [`WorkerProcess::terminate`], so a
/// round never mistakes a worker that another thread is starting for an orphan.
static LIVE_WORKERS: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

fn live_workers() -> MutexGuard<'static, BTreeSet<i32>> {
    // The set stays consistent whatever panicked while holding it: every update is one insert or remove.
    LIVE_WORKERS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Marks the orchestrator a child subreaper and non-dumpable, once per process.
fn ensure_subreaper() -> io::Result<()> {
    static MARKED: OnceLock<Result<(), i32>> = OnceLock::new();
    let mark = || sys::set_child_subreaper().and_then(|()| sys::set_dumpable(false));
    match MARKED.get_or_init(|| mark().map_err(|error| error.raw_os_error().unwrap_or(0))) {
        Ok(()) => Ok(()),
        Err(code) => Err(io::Error::from_raw_os_error(*code)),
    }
}

/// A started worker and the three ends of its pipes.
pub(super) struct Spawned {
    pub(super) process: WorkerProcess,
    pub(super) stdin: ChildStdin,
    pub(super) stdout: ChildStdout,
    pub(super) stderr: ChildStderr,
    pub(super) confinement: ConfinementReport,
    /// The CPUs the worker was started on, and whether it can leave them.
    pub(super) cpus: CpuPlacement,
    /// The worker's cgroup in the delegated subtree, when its limits are kept there.
    pub(super) cgroup: Option<WorkerCgroup>,
    /// The paths the worker's private view shows only after hello (`view.rs`), empty without a view.
    pub(super) deferred: Vec<std::ffi::CString>,
    /// The host identity the worker runs as, when it is not the orchestrator's (`metewand` runs as root).
    pub(super) identity: Option<WorkerIdentity>,
}

/// Starts a worker in a new session, marked a child subreaper, with a clean environment and piped stdio, confined
/// as `confinement` says (not at all when `None`).
///
/// The fork happens on a thread of its own that lives until the worker is reaped: the parent-death signal fires
/// when the thread that forked the child ends, and a PID namespace is entered by a thread's children (once per
/// thread), so neither can be done from a caller's thread, which may end first or spawn again.
pub(super) fn spawn(
    command: &WorkerCommand,
    confinement: Option<&Confinement>,
    cpus: Option<&CpuSet>,
) -> io::Result<Spawned> {
    ensure_subreaper()?;
    let prepared = confinement.map(confinement::prepare).transpose()?;
    // Run by root, a confined worker runs as an identity of its own, given its folders for the session.
    let identity = match confinement {
        Some(_) => WorkerIdentity::for_workers().map_err(|error| io::Error::new(io::ErrorKind::InvalidInput, error))?,
        None => None,
    };
    if let (Some(identity), Some(confinement)) = (identity, confinement) {
        for dir in confinement.writable_dirs() {
            metewand_tree::hand_over(dir, identity.uid, identity.gid)?;
        }
    }
    let environment = command.environment();
    let mut program = None;
    let view = match confinement {
        Some(confinement) => {
            let path = environment.get(OsStr::new("PATH")).map(OsString::as_os_str);
            let found = find_program(command.program(), command.working_dir(), path);
            program = found.as_ref().and_then(|found| found.canonicalize().ok());
            // The programs the command names after its first word are run in the view too: the adapter's command
            // (`metewand adapter -- /venv/bin/python3 ...`, or `python3` found on the worker's `PATH`) must be
            // shown to it as a direct worker's program is.
            let named: Vec<PathBuf> = command
                .arguments()
                .iter()
                .filter_map(|word| find_program(word, command.working_dir(), path))
                .filter(|found| metewand_environment::is_program(found))
                .collect();
            // A program in a virtual environment names the environment too: the environment's interpreter link
            // runs as it only with its `pyvenv.cfg` and packages.
            let environment_roots: Vec<OsString> =
                found.iter().chain(&named).filter_map(|found| super::program::virtual_environment(found)).collect();
            let programs: Vec<PathBuf> =
                program.iter().cloned().chain(named.iter().filter_map(|found| found.canonicalize().ok())).collect();
            let words = std::iter::once(command.program())
                .chain(command.arguments())
                .chain(environment.values())
                .chain(&environment_roots);
            let made_by_identity =
                confinement.processes == ProcessIsolation::UserNamespace && confinement::user_namespace_route().works;
            let maker = match identity {
                Some(identity) if made_by_identity => super::view::Maker::Identity(identity),
                identity => super::view::Maker::Orchestrator(identity),
            };
            confinement.view_plan(command.working_dir(), &programs, words, maker)?
        }
        None => None,
    };
    // In a private view only shown paths resolve: a program named by a path is executed by its resolved one (what
    // the view shows), keeping the name it was given as `argv[0]`.
    let executed = match program.filter(|_| view.is_some() && command.program().as_encoded_bytes().contains(&b'/')) {
        Some(resolved) => resolved.into_os_string(),
        None => command.program().clone(),
    };
    let exec = sys::Exec::new(&executed, command.program(), command.arguments(), &environment, command.working_dir())?;
    let deferred = view.as_ref().map(|view| view.deferred.clone()).unwrap_or_default();
    // The ruleset descriptor stays open in `prepared` until the spawn has returned.
    let ruleset = prepared.as_ref().and_then(|prepared| prepared.ruleset.as_ref().map(|fd| fd.as_raw_fd()));
    let file_size = prepared.as_ref().and_then(|prepared| prepared.file_size);
    let limits = prepared.as_ref().and_then(|prepared| prepared.limits);
    // Every confined worker gets a cgroup of its own where one can be made: its limits, and the kernel's freezer.
    let cgroup = prepared.as_ref().and_then(|_| confinement::worker_cgroup(limits));
    let cgroup_procs = cgroup.as_ref().and_then(|(cgroup, _)| cgroup.procs().map(AsRawFd::as_raw_fd));
    // The folder's descriptor stays open in `cgroup` until the spawn has returned.
    let cgroup_folder = cgroup.as_ref().and_then(|(cgroup, _)| cgroup.folder().map(AsRawFd::as_raw_fd));
    let controllers = cgroup.as_ref().map(|(_, controllers)| *controllers).unwrap_or_default();
    let isolation = prepared.as_ref().map(|prepared| prepared.processes);
    let network = prepared.as_ref().is_some_and(|prepared| prepared.network);
    let chosen = cpus.cloned();
    let declared = prepared.as_ref().map(|prepared| prepared.syscalls).unwrap_or_default();
    // A memory limit a cgroup keeps counts what memfds and System V objects hold; without one, the worker's IPC
    // namespace's limits bound the latter, where they can be set, and the filter refuses the rest.
    let memory_bytes = limits.and_then(|limits| limits.memory_bytes).filter(|_| !controllers.memory);
    let lock_affinity = cpus.is_some();
    // Asked before the spawning thread makes its PID namespace: a probe's process would be that namespace's first,
    // and its exit would end the namespace before the worker is forked into it.
    let user_route = isolation.map(|_| confinement::user_namespace_route()).unwrap_or_default();
    let identity_namespace = identity.is_some_and(confinement::user_namespace_works_as);

    let (result_sender, result) = mpsc::sync_channel(1);
    let (release, released) = mpsc::channel::<()>();
    thread::Builder::new().name("mw-spawn".to_owned()).spawn(move || {
        // The worker inherits this thread's affinity, which is its own to change.
        let placed = match chosen {
            Some(cpus) => cpus.apply_to_current_thread().map(|()| cpus),
            None => CpuSet::of_current_thread(),
        };
        let placed = match placed {
            Ok(placed) => placed,
            Err(error) => {
                let _ = result_sender.send((Err(error), Route::Sweep, None));
                return;
            }
        };
        // Made before this thread enters a PID namespace of its own, whose first process its maker would otherwise
        // be: the user namespace a worker of another identity enters last, its maps written from outside
        // (`sys::spawn`). Where it cannot be made, the worker's child makes it and writes them itself.
        let late_namespace = match (isolation, identity) {
            (Some(ProcessIsolation::Namespace), Some(identity)) if identity_namespace => {
                sys::PreparedUserNamespace::new(sys::IdMaps::of(identity.uid, identity.gid)).ok()
            }
            _ => None,
        };
        // The PID namespace is tried here, on the thread whose children enter it; whether the user-namespace
        // route works is the kernel's answer, asked once, and only when it is needed.
        let route = match isolation {
            Some(ProcessIsolation::Namespace) if sys::unshare_pid_namespace().is_ok() => Route::PidNamespace,
            Some(ProcessIsolation::Namespace | ProcessIsolation::UserNamespace) if user_route.works => {
                Route::UserNamespace
            }
            _ => Route::Sweep,
        };
        // On the user-namespace route the worker's identity is root of the namespace its child makes (so that it
        // may set up what only a namespace's root may), and that identity again in the one it enters last.
        let (uid, gid) = identity.map_or_else(|| (sys::euid(), sys::egid()), |identity| (identity.uid, identity.gid));
        let user_namespace = (route == Route::UserNamespace).then(|| sys::IdMaps::root_of(uid, gid));
        let confined = isolation.is_some();
        let late_user_namespace = match (route, identity) {
            (Route::UserNamespace, _) => Some(sys::IdMaps::from_root(uid, gid)),
            // Root's worker enters a user namespace of its own as its identity where the kernel lets it.
            (Route::PidNamespace, Some(_)) => identity_namespace.then(|| sys::IdMaps::of(uid, gid)),
            (Route::PidNamespace, None) => confined.then(sys::IdMaps::current),
            (Route::Sweep, _) => None,
        };
        let ipc_limits = memory_bytes.filter(|_| sysv_limits(route, user_route)).map(sys::IpcLimits::within);
        let namespaces = if confined { route.namespaces(network, view.is_some()) } else { sys::Namespaces::default() };
        let view = if namespaces.mounts { view } else { None };
        let (address_space, pid_max, nproc) = confinement::child_limits(limits, route, controllers, identity.is_some());
        // Every confined worker gets the filter; it also keeps one started on chosen CPUs there, and refuses what
        // would hold memory past a limit nothing else bounds.
        let filter = isolation.and_then(|_| {
            sys::filter_program(sys::FilterPlan {
                declared,
                lock_affinity,
                bound_memfds: memory_bytes.is_some(),
                bound_sysv: memory_bytes.is_some() && ipc_limits.is_none(),
            })
        });
        let setup = sys::ChildSetup {
            ruleset,
            file_size,
            address_space,
            cpu_seconds: limits.and_then(|limits| limits.cpu_seconds),
            nproc,
            pid_max,
            user_namespace,
            namespaces,
            late_user_namespace,
            confined,
            filter,
            cgroup_procs,
            ipc_limits,
            identity: identity.map(|identity| (identity.uid, identity.gid)),
            late_namespace: late_user_namespace.and(late_namespace.as_ref().map(sys::PreparedUserNamespace::fd)),
        };
        let spawned = {
            let mut workers = live_workers();
            sys::spawn(&exec, cgroup_folder, setup, view).inspect(|started| {
                workers.insert(started.pid);
            })
        };
        let started = spawned.is_ok();
        let sent = result_sender.send((spawned, route, Some((placed, filter.is_some())))).is_ok();
        // Entered by the worker, or not at all: its maker is reaped now, once the caller has its answer, rather
        // than when the worker is.
        drop(late_namespace);
        if sent && started {
            // Until the worker is reaped (or its handle is gone): ending this thread kills the worker.
            let _ = released.recv();
        }
    })?;
    let (spawned, route, placed) =
        result.recv().map_err(|_| io::Error::other("the thread starting the worker stopped"))?;
    let started = spawned?;
    let (placed, filtered) = placed.expect("a started worker was placed on CPUs");
    // A confined worker started on chosen CPUs cannot leave them, unless it may use io_uring, whose kernel threads
    // can run elsewhere; an unconfined one could, so its placement is advisory.
    let locked = filtered && !declared.contains(sys::SyscallGroup::IoUring);
    let cpus = CpuPlacement {
        binding: match (cpus, locked) {
            (None, _) => CpusBinding::Inherited,
            (Some(_), true) => CpusBinding::Locked,
            (Some(_), false) => CpusBinding::Advisory,
        },
        cpus: placed,
    };
    let report = match &prepared {
        Some(prepared) => prepared.report(route, controllers, filtered, identity),
        None => ConfinementReport::unconfined(ProcessConfinement::Sweep),
    };
    let pid = started.pid;
    let pidfd = match sys::pidfd_open(pid) {
        Ok(pidfd) => pidfd,
        Err(error) => {
            // Without a pidfd the exit cannot be watched; end the worker as any session end would.
            let _ = sys::kill(-pid);
            let _ = sys::kill(pid);
            let _ = sys::wait_blocking(pid);
            live_workers().remove(&pid);
            return Err(error);
        }
    };
    let (stdin, stdout, stderr) =
        (ChildStdin::from(started.stdin), ChildStdout::from(started.stdout), ChildStderr::from(started.stderr));
    let process = WorkerProcess {
        pid,
        pidfd: Arc::new(pidfd),
        namespace: route != Route::Sweep,
        supervised: route == Route::UserNamespace,
        release: Some(release),
        running_at_shutdown: BTreeSet::new(),
        counted: false,
        pid_namespace: OnceLock::new(),
        termination: None,
    };
    // The sweep route has no view: there nothing is deferred, and everything is visible.
    let deferred = if route == Route::Sweep { Vec::new() } else { deferred };
    Ok(Spawned {
        process,
        stdin,
        stdout,
        stderr,
        confinement: report,
        cpus,
        cgroup: cgroup.map(|(cgroup, _)| cgroup),
        deferred,
        identity,
    })
}

/// Whether a worker's child on `route` sets the limits of the worker's IPC namespace: as root of the init user
/// namespace (root's route), or as root of the namespace it made where the kernel lets that root set them.
fn sysv_limits(route: Route, user_route: sys::UserNamespaceRoute) -> bool {
    match route {
        Route::PidNamespace => sys::euid() == 0,
        Route::UserNamespace => user_route.ipc_limits,
        Route::Sweep => false,
    }
}

/// What ending a worker's processes found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Termination {
    /// The worker's exit status, or `None` when it could not be reaped within [`REAP_LIMIT`].
    pub(super) status: Option<ExitStatus>,
    /// Its resource use, from `wait4`, when it was reaped.
    pub(super) resources: Option<Resources>,
    /// Processes of the worker's that were still present when [`REAP_LIMIT`] passed.
    pub(super) survivors: Vec<i32>,
    /// How many processes of the worker's session or process group, besides the worker, were still running when
    /// it was ended: what it left behind. `None` in a PID namespace where they were not counted before the
    /// worker's exit took them (see [`WorkerProcess::note_shutdown`]).
    pub(super) left_running: Option<usize>,
}

impl Termination {
    /// The CPU limit the worker reached, if it did: the kernel sends `SIGXCPU` to a process that reaches
    /// `RLIMIT_CPU`'s soft limit (which ends it unless it handles the signal) and kills it at the hard limit a second
    /// later, so a worker ended by `SIGXCPU`, or whose CPU time is past the limit when it is reaped, was ended by
    /// it. What `wait4` reports is rounded to the scheduler's ticks, a few milliseconds either side of the kernel's
    /// own count.
    pub(super) fn cpu_limit_hit(&self, limits: Limits) -> Option<SessionErrorKind> {
        let value = limits.cpu_seconds?.saturating_mul(1000);
        let resources = self.resources.as_ref()?;
        let observed = u64::try_from((resources.user_cpu + resources.system_cpu).as_millis()).unwrap_or(u64::MAX);
        let signalled = self.status.and_then(|status| status.signal()) == Some(libc::SIGXCPU);
        (signalled || observed >= value).then_some(SessionErrorKind::ResourceLimit {
            limit: "cpu_seconds",
            value,
            observed,
            unit: "milliseconds of CPU time (as wait4 counted them)",
        })
    }
}

/// A worker process that has not been reaped yet: its pid, and with it its process group and session id, stay
/// reserved until [`WorkerProcess::terminate`].
pub(super) struct WorkerProcess {
    pid: i32,
    pidfd: Arc<OwnedFd>,
    /// Whether the worker is the first process of its own PID namespace.
    namespace: bool,
    /// Whether `pid` is the worker's supervisor (the user-namespace route): the worker is its only child, in the
    /// supervisor's session and process group, and the supervisor exits only once the worker has.
    supervised: bool,
    /// Dropped once the worker is reaped, which lets the thread that forked it end.
    release: Option<mpsc::Sender<()>>,
    /// In a PID namespace, what was running beside the worker when `shutdown` was sent: the kernel
    /// kills the rest of the namespace the moment the worker exits, before any scan could count it.
    running_at_shutdown: BTreeSet<i32>,
    /// Whether [`WorkerProcess::note_shutdown`] counted them.
    counted: bool,
    /// The worker's PID namespace (its `/proc/<pid>/ns/pid` link), once [`WorkerProcess::note_shutdown`] read it.
    pid_namespace: OnceLock<Option<PathBuf>>,
    termination: Option<Termination>,
}

impl WorkerProcess {
    /// The worker's pid, which is also its process group and session id.
    pub(super) fn pid(&self) -> u32 {
        self.pid as u32
    }

    /// The worker's own pid: on the user-namespace route the supervisor's only child, found in `/proc` (`None`
    /// once it is gone), otherwise the process spawned.
    pub(super) fn worker_pid(&self) -> Option<i32> {
        if !self.supervised {
            return Some(self.pid);
        }
        worker_in(&scan_processes(), self.pid, true)
    }

    /// The descriptor that becomes readable when the worker exits.
    pub(super) fn pidfd(&self) -> Arc<OwnedFd> {
        Arc::clone(&self.pidfd)
    }

    /// Whether the worker has exited (it is not reaped by this).
    pub(super) fn has_exited(&self) -> bool {
        sys::ready_now(self.pidfd.as_fd(), libc::POLLIN).unwrap_or(false)
    }

    /// Waits until the worker exits or `deadline` passes; true if it exited.
    pub(super) fn wait_for_exit(&self, deadline: Instant) -> bool {
        loop {
            let now = Instant::now();
            let mut fds = [sys::interest(self.pidfd.as_fd(), libc::POLLIN)];
            match sys::poll(&mut fds, Some(deadline.saturating_duration_since(now))) {
                Ok(ready) if ready > 0 => return true,
                Ok(_) if Instant::now() >= deadline => return false,
                Ok(_) => continue,
                Err(_) => return self.has_exited(),
            }
        }
    }

    /// Called just before `shutdown` is sent: in a PID namespace, notes which processes of the namespace other
    /// than the worker are running, as [`Termination::left_running`] counts them (the worker's exit, which may
    /// follow its acknowledgment at once, kills them before any later scan could see them).
    pub(super) fn note_shutdown(&mut self) {
        if !self.namespace {
            return;
        }
        self.counted = true;
        let workers = live_workers();
        let (processes, found) = self.scan_tree(&workers);
        let _ = self.pid_namespace.set(worker_in(&processes, self.pid, self.supervised).and_then(pid_namespace_of));
        let running: Vec<i32> =
            found.iter().filter(|process| self.left_behind(process)).map(|process| process.pid).collect();
        self.running_at_shutdown.extend(running);
    }

    /// One scan of `/proc` (the caller holds the registry of live workers): every process, and the worker's
    /// leftovers among them, as the module docs define them.
    fn scan_tree(&self, workers: &BTreeSet<i32>) -> (Vec<ProcessStat>, Vec<ProcessStat>) {
        let me = std::process::id() as i32;
        let processes = scan_processes();
        let our_session = processes.iter().find(|process| process.pid == me).map(|process| process.sid);
        let found = leftovers(&processes, self.pid, me, our_session, workers);
        (processes, found)
    }

    /// Whether a leftover counts as left behind by this worker: running, and not the worker itself. In a PID
    /// namespace every leftover is the worker's doing, whatever its session or group (a `setsid` daemon too): its
    /// descendants cannot leave the namespace, and its orphans are re-parented to it. Without one, only what is in
    /// its own session or group counts (an orphan of another session's tree, swept here too, is not its doing).
    ///
    /// In a namespace, a leftover of another session's tree (an orphan re-parented to the orchestrator, swept
    /// with every worker's) is told apart by its PID namespace, while the worker's is known.
    fn left_behind(&self, process: &ProcessStat) -> bool {
        let worker = self.supervised && process.ppid == self.pid;
        let counted = if self.namespace {
            match (self.pid_namespace.get(), pid_namespace_of(process.pid)) {
                (Some(Some(ours)), Some(theirs)) => *ours == theirs,
                _ => true,
            }
        } else {
            process.sid == self.pid || process.pgid == self.pid
        };
        !process.zombie && !worker && counted
    }

    /// Stops (`SIGSTOP`) the worker and every process of its tree (as the module docs define it; on the
    /// user-namespace route the worker's whole PID namespace, not the supervisor), looking again until two looks in
    /// a row find the same processes with every thread of them stopped, or `deadline` passes (a thread in an
    /// uninterruptible sleep stops only when it wakes, and a parent blocked in `vfork` only once its child has
    /// exec'd or exited). A process is looked at thread by thread: one whose main thread has exited shows `Z` in its
    /// `stat` while its other threads run. Returns what was stopped (pid and start time), for
    /// [`WorkerProcess::continue_stopped`], and whether the looks settled so: where they did not, the caller must not
    /// take the worker for stopped.
    pub(super) fn stop_all(&self, deadline: Instant) -> (Vec<(i32, u64)>, bool) {
        let mut stopped: BTreeSet<(i32, u64)> = BTreeSet::new();
        // The worker itself is stopped before the first look (its pid cannot be reused: it is our unreaped child).
        // Most workers are one process, and two looks that then find everything stopped are the last. A leader that
        // is a zombie is signalled too: its other threads may run.
        if !self.supervised
            && let Some(worker) = read_stat(self.pid)
            && sys::signal(self.pid, libc::SIGSTOP).is_ok()
        {
            stopped.insert((self.pid, worker.start));
            thread::yield_now();
        }
        // In a PID namespace every process of the worker descends from its first, so a walk of its tree finds them
        // all, without reading every process of the machine. A look (a walk, or a scan of every process) may miss
        // one that moved while it read: a process forked after the scan's listing by one that then exited, or one
        // re-parented while the walk read (its parent ended). Only a look that finds exactly what the look before it
        // found, every thread held, ends the stop: a stopped process neither forks nor ends, so whatever moved a
        // process out of sight changed what is found.
        // A walk that saw a process end while it read may have missed that process's children, and a process that
        // was found alive and is now a zombie gave its children away: neither look can end the stop.
        let mut last: Option<BTreeSet<(i32, u64, bool)>> = None;
        loop {
            let tree = if self.namespace { descendants(self.pid) } else { None };
            let (found, worker, moved) = match tree {
                Some(walk) => (walk.found, if self.supervised { None } else { read_stat(self.pid) }, walk.moved),
                None => {
                    let (processes, found) = {
                        let workers = live_workers();
                        self.scan_tree(&workers)
                    };
                    (found, processes.into_iter().find(|process| process.pid == self.pid && !self.supervised), false)
                }
            };
            let seen: BTreeSet<(i32, u64, bool)> =
                found.iter().chain(&worker).map(|process| (process.pid, process.start, process.zombie)).collect();
            let running: Vec<&ProcessStat> =
                found.iter().chain(&worker).filter(|process| !every_thread_held(process.pid)).collect();
            let settled = running.is_empty() && !moved && last.as_ref() == Some(&seen);
            if settled || Instant::now() >= deadline {
                return (stopped.into_iter().collect(), settled);
            }
            last = Some(seen);
            for process in running {
                if !(self.supervised && process.pid == self.pid) && sys::signal(process.pid, libc::SIGSTOP).is_ok() {
                    stopped.insert((process.pid, process.start));
                }
            }
            // Stopping takes effect when each process next runs: look again almost at once.
            thread::yield_now();
        }
    }

    /// Lets the processes [`WorkerProcess::stop_all`] stopped go on (`SIGCONT`), each only if it is still the
    /// process that was stopped (same start time).
    pub(super) fn continue_stopped(&self, stopped: &[(i32, u64)]) {
        for &(pid, start) in stopped {
            if read_stat(pid).is_some_and(|process| process.start == start) {
                let _ = sys::signal(pid, libc::SIGCONT);
            }
        }
    }

    /// Kills the worker, its process group, its session and every descendant, then reaps them; idempotent.
    ///
    /// Outside a PID namespace the tree is frozen first: every round stops (`SIGSTOP`) what it finds, and only a
    /// round whose scan finds every process already stopped kills them all (any later round that finds one running
    /// stops them again first), so a fork-and-`setsid` chain cannot
    /// outrun the scans. In a PID namespace, killing the worker kills the namespace, and the rounds only make sure.
    pub(super) fn terminate(&mut self) -> Termination {
        if let Some(termination) = &self.termination {
            return termination.clone();
        }
        let me = std::process::id() as i32;
        let deadline = Instant::now() + REAP_LIMIT;
        let mut left_running = std::mem::take(&mut self.running_at_shutdown);
        // Nothing outlives a PID namespace's first process: the kernel kills the rest of the namespace and waits
        // until they are reaped before that process becomes a zombie (and its pidfd readable). So once the worker
        // has exited, there is nothing to look for, and reaping it is all that is left. A supervisor exits by
        // itself only once it has reaped the worker; one ended by a signal may have left the worker running (it
        // is then the orchestrator's, as a subreaper), which only the rounds find.
        let emptied = self.namespace && self.has_exited() && (!self.supervised || sys::exited_by_itself(self.pid));
        let killed = if emptied { BTreeSet::new() } else { self.kill_rounds(deadline, &mut left_running) };
        let reaped = self.reap_worker(deadline);
        let survivors = if emptied { Vec::new() } else { self.reap_leftovers(killed, me, deadline) };
        let (status, resources) = match reaped {
            Some((status, resources)) => (Some(status), Some(resources)),
            None => (None, None),
        };
        // In a namespace, what the worker's exit killed before the first scan is counted only by note_shutdown.
        let left_running = (!self.namespace || self.counted).then_some(left_running.len());
        let termination = Termination { status, resources, survivors, left_running };
        self.termination = Some(termination.clone());
        termination
    }

    /// The rounds of [`WorkerProcess::terminate`]: scan, then stop or kill what the scan found, until a scan finds
    /// nothing alive (three in a row outside a namespace) or `deadline` passes. Returns everything killed, with its
    /// start time, so that reaping never touches a reused pid; what the worker left running goes into
    /// `left_running`.
    fn kill_rounds(&self, deadline: Instant, left_running: &mut BTreeSet<i32>) -> BTreeSet<(i32, u64)> {
        let mut killed: BTreeSet<(i32, u64)> = BTreeSet::new();
        let mut quiet = 0;
        let mut pause = Duration::from_micros(100);
        loop {
            let (alive, killing) = {
                let workers = live_workers();
                // Scanned before anything is signalled: a process killed a moment earlier may already be a zombie,
                // and would no longer be counted as left running.
                let (processes, found) = self.scan_tree(&workers);
                let worker_exited = self.has_exited();
                let worker_stopped = processes
                    .iter()
                    .find(|process| process.pid == self.pid)
                    .is_none_or(|process| process.stopped || process.asleep || process.zombie);
                let running: Vec<&ProcessStat> = found.iter().filter(|process| !process.zombie).collect();
                for process in &found {
                    killed.insert((process.pid, process.start));
                    if self.left_behind(process) {
                        left_running.insert(process.pid);
                    }
                }
                // Killing only what a scan found stopped: a process that was running could fork between the scan
                // and the signal, so the tree is stopped again (and scanned again) whenever any part of it runs.
                // One in an uninterruptible sleep counts as stopped: it runs none of its code before it wakes, and
                // then dies of the pending SIGKILL first; no signal would ever stop it (a parent blocked in
                // `vfork`), so waiting for it to stop would leave the whole tree behind, stopped.
                let all_stopped = (worker_exited || worker_stopped)
                    && running.iter().all(|process| process.stopped || process.asleep);
                let killing = self.namespace || all_stopped;
                let signal = if killing { libc::SIGKILL } else { libc::SIGSTOP };
                let _ = sys::signal(self.pid, signal);
                let _ = sys::signal(-self.pid, signal);
                for process in &running {
                    let _ = sys::signal(process.pid, signal);
                }
                (usize::from(!worker_exited) + running.len(), killing)
            };
            // A scan is not atomic: a process forked while it ran may be missing from it. Outside a namespace a
            // scan that finds nothing alive is believed only when the next two agree.
            quiet = if alive == 0 { quiet + 1 } else { 0 };
            if quiet >= if self.namespace { 1 } else { 3 } || Instant::now() >= deadline {
                break;
            }
            if !killing {
                // Stopping takes effect at once for a running process; check again almost immediately.
                thread::yield_now();
                continue;
            }
            thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(10));
        }
        killed
    }

    /// Reaps every process of the tree that became our zombie, until a scan finds none left, or `deadline`
    /// passes; returns the pids still present then.
    ///
    /// Scans go on after the killed ones are reaped, because the tree's zombies keep arriving: a process that
    /// exited on its own (a fork-chain generation) is a zombie of its parent, which need not be in any scan (it
    /// may itself have exited just before one), and becomes ours only when that parent is gone, possibly after
    /// the last scan of the rounds. The worker is reaped by now, so its pid may already name another session's
    /// worker: what is in a live worker's session or group is left to that worker's session.
    fn reap_leftovers(&self, mut killed: BTreeSet<(i32, u64)>, me: i32, deadline: Instant) -> Vec<i32> {
        loop {
            reap_killed(&mut killed, me, deadline);
            let mut more = false;
            {
                let workers = live_workers();
                for process in self.scan_tree(&workers).1 {
                    if !workers.contains(&process.sid) && !workers.contains(&process.pgid) {
                        more |= killed.insert((process.pid, process.start));
                    }
                }
            }
            if !more || Instant::now() >= deadline {
                return killed.into_iter().map(|(pid, _)| pid).collect();
            }
        }
    }

    /// Reaps the worker once it has exited, and only then forgets its pid.
    fn reap_worker(&mut self, deadline: Instant) -> Option<(ExitStatus, Resources)> {
        self.wait_for_exit(deadline);
        let mut workers = live_workers();
        // Still running past the limit (an uninterruptible sleep): its pid stays registered and reserved.
        let reaped = sys::wait4_now(self.pid)?;
        workers.remove(&self.pid);
        drop(workers);
        self.release = None;
        let resources = Resources { user_cpu: reaped.user, system_cpu: reaped.system, peak_rss_bytes: reaped.max_rss };
        Some((ExitStatus::from_raw(reaped.status), resources))
    }
}

impl Drop for WorkerProcess {
    fn drop(&mut self) {
        self.terminate();
    }
}

/// Reaps every killed process (pid and start time) that became our zombie, until all are gone or `deadline`
/// passes; what is still present then stays in `killed`.
fn reap_killed(killed: &mut BTreeSet<(i32, u64)>, me: i32, deadline: Instant) {
    let mut pause = Duration::from_micros(100);
    loop {
        killed.retain(|&(pid, start)| match read_stat(pid) {
            Some(process) if process.start == start => {
                if process.zombie && process.ppid == me {
                    // Held so that no worker is spawned with this pid between the check and the wait.
                    let _workers = live_workers();
                    !sys::reap(pid)
                } else {
                    // Alive, or a zombie whose killed parent has not been re-parented to us yet.
                    true
                }
            }
            // Gone, or the pid now names another process: reaped (by us or another session's sweep).
            _ => false,
        });
        if killed.is_empty() || Instant::now() >= deadline {
            return;
        }
        thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(10));
    }
}
