//! What a forked worker does before `exec`, prepared in the parent so that the child only makes system calls, and
//! the supervisor that stays behind when the worker is given a user namespace of its own.

use std::io;
use std::os::fd::{BorrowedFd, RawFd};

use super::mount::enter_view;
use super::namespace::{IdMaps, Line, write_id_maps, write_proc_file};
use super::{become_identity, check, exit_now, ready_now, set_child_subreaper, set_dumpable, wait_blocking};

/// What the forked child does before `exec`, prepared in the parent so that the child only makes system calls.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChildSetup {
    /// A Landlock ruleset descriptor to restrict the child with (it is close-on-exec), or `None`.
    pub(crate) ruleset: Option<RawFd>,
    /// `RLIMIT_FSIZE`, or `None` to keep the inherited one.
    pub(crate) file_size: Option<u64>,
    /// `RLIMIT_AS`, or `None` to keep the inherited one.
    pub(crate) address_space: Option<u64>,
    /// `RLIMIT_CPU`'s soft limit, in seconds (`SIGXCPU`, which ends the process unless it handles it), with the
    /// hard limit a second later (`SIGKILL`), or `None` to keep the inherited one.
    pub(crate) cpu_seconds: Option<u64>,
    /// `RLIMIT_NPROC`, set only where it counts the worker's own processes (a user namespace of its own, a uid
    /// other than 0), or `None`.
    pub(crate) nproc: Option<u64>,
    /// The `kernel.pid_max` to write for the worker's PID namespace (Linux 6.14 and later, where each PID
    /// namespace has its own), or `None`.
    pub(crate) pid_max: Option<Line>,
    /// The maps of a user namespace to make, with a PID namespace inside it whose first process is the worker;
    /// `None` for neither.
    pub(crate) user_namespace: Option<IdMaps>,
    /// The namespaces besides the PID namespace the worker gets ([`Namespaces`]).
    pub(crate) namespaces: Namespaces,
    /// On the route without a user namespace of its own (`user_namespace` is `None`), the maps of one the worker
    /// enters last, once every namespace and mount is made, so that the keyrings and counts the kernel keeps per
    /// user namespace (its per-user keyring above all) are its own; `None` for none.
    pub(crate) late_user_namespace: Option<IdMaps>,
    /// Whether the worker is confined at all: only then are its capabilities dropped and `no_new_privs` set.
    pub(crate) confined: bool,
    /// The seccomp program of the worker's system call filter ([`filter_program`](super::filter_program)),
    /// installed last; `None` for none.
    pub(crate) filter: Option<&'static [libc::sock_filter]>,
    /// The `cgroup.procs` of the worker's cgroup (`session::cgroup`), which the child joins first where the kernel
    /// did not fork it there (`sys::spawn`); `None` for none.
    pub(crate) cgroup_procs: Option<RawFd>,
    /// The limits of the worker's IPC namespace, set from its memory limit by the child as that namespace's root;
    /// `None` for none.
    pub(crate) ipc_limits: Option<IpcLimits>,
    /// The host uid and gid the worker runs as (`session::identity`), taken once every namespace and mount is made
    /// and before the late user namespace, or on the user-namespace route first of all (its maps are then this
    /// identity's); `None` to keep the orchestrator's.
    pub(crate) identity: Option<(u32, u32)>,
    /// The late user namespace, made ahead by the orchestrator with its maps written (`PreparedUserNamespace`),
    /// for the child to enter while still root and take its identity inside; `None` for the child to make it and
    /// write its maps itself.
    pub(crate) late_namespace: Option<RawFd>,
}

/// The limits of a worker's IPC namespace that bound the memory System V objects hold there (`kernel.shmmax`,
/// `kernel.shmall` in pages, `kernel.msgmni`), formatted in the parent.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IpcLimits {
    shmmax: Line,
    shmall: Line,
    msgmni: Line,
}

impl IpcLimits {
    /// The limits that keep the segments and message queues of an IPC namespace within `bytes` in all: segments
    /// up to `bytes` in all, and as many queues as `bytes` holds at their default 16 KiB (`kernel.msgmnb`), from
    /// 1 to the kernel's default of 32,000.
    pub(crate) fn within(bytes: u64) -> IpcLimits {
        // SAFETY: sysconf takes a name and reads nothing.
        let page = u64::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096).max(1);
        IpcLimits {
            shmmax: Line::number(bytes),
            shmall: Line::number(bytes / page),
            msgmni: Line::number((bytes / 16384).clamp(1, 32_000)),
        }
    }
}

/// The namespaces besides the PID namespace a confined worker gets: a new IPC namespace (no SysV object or POSIX
/// queue outlives it), without network access a new network namespace whose loopback is brought up (nothing
/// outside it is reachable), and a mount namespace for its private view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Namespaces {
    pub(crate) ipc: bool,
    pub(crate) network: bool,
    /// A mount namespace for the private view, which [`enter_view`] makes itself.
    pub(crate) mounts: bool,
}

impl Namespaces {
    fn clone_flags(self) -> libc::c_int {
        (if self.ipc { libc::CLONE_NEWIPC } else { 0 }) | (if self.network { libc::CLONE_NEWNET } else { 0 })
    }

    /// What a supervisor starts its worker with on the user-namespace route: a new PID namespace and these.
    pub(super) fn worker_clone_flags(self) -> libc::c_int {
        libc::CLONE_NEWPID | self.clone_flags()
    }
}

fn set_rlimit(resource: libc::__rlimit_resource_t, value: u64) -> io::Result<()> {
    let limit = libc::rlimit { rlim_cur: value as libc::rlim_t, rlim_max: value as libc::rlim_t };
    // SAFETY: setrlimit reads the local struct and changes only this process's limit.
    check(unsafe { libc::setrlimit(resource, &limit) })
}

/// Marks every descriptor from 3 up close-on-exec, so that only stdin, stdout and stderr reach the worker whatever
/// the orchestrator inherited; the ones the hook still needs (the Landlock ruleset, the spawn's error pipe) stay
/// usable until `exec`.
fn close_other_descriptors_on_exec() -> io::Result<()> {
    const CLOSE_RANGE_CLOEXEC: libc::c_uint = 1 << 2;
    // SAFETY: close_range with CLOSE_RANGE_CLOEXEC only sets the close-on-exec flag on this process's descriptors.
    if unsafe { libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, CLOSE_RANGE_CLOEXEC) } == 0 {
        return Ok(());
    }
    // Before Linux 5.11: one by one.
    for fd in 3..descriptor_ceiling() {
        // SAFETY: F_SETFD on a descriptor number of this process; an unused number fails harmlessly with EBADF.
        unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
    }
    Ok(())
}

/// Where a walk over this process's descriptor numbers ends, where `close_range` is missing: the descriptor
/// limit, at most 2^20.
fn descriptor_ceiling() -> libc::c_int {
    let mut limit = libc::rlimit { rlim_cur: 1 << 20, rlim_max: 0 };
    // SAFETY: getrlimit writes into the local struct; on failure it is left as initialized.
    unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) };
    limit.rlim_cur.min(1 << 20) as libc::c_int
}

/// Brings up the loopback interface of the worker's new network namespace (it starts down), so that a worker
/// may still talk to itself.
fn loopback_up() -> io::Result<()> {
    // SAFETY: socket returns a new descriptor or -1.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: an all-zero ifreq is a valid value of that plain C struct.
    let mut request: libc::ifreq = unsafe { std::mem::zeroed() };
    for (slot, byte) in request.ifr_name.iter_mut().zip(b"lo") {
        *slot = *byte as libc::c_char;
    }
    // SAFETY: SIOCGIFFLAGS reads the interface name from and writes its flags into the local ifreq.
    let mut result = unsafe { libc::ioctl(fd, libc::SIOCGIFFLAGS, &mut request) };
    if result == 0 {
        // SAFETY: the flags member is the union's active one after SIOCGIFFLAGS.
        unsafe { request.ifr_ifru.ifru_flags |= libc::IFF_UP as libc::c_short };
        // SAFETY: SIOCSIFFLAGS reads the local ifreq.
        result = unsafe { libc::ioctl(fd, libc::SIOCSIFFLAGS, &request) };
    }
    let error = io::Error::last_os_error();
    // SAFETY: the descriptor was opened above and is not used after this.
    unsafe { libc::close(fd) };
    if result < 0 { Err(error) } else { Ok(()) }
}

/// Gives the worker a new, anonymous session keyring: keys it adds there go with it.
fn join_new_session_keyring() {
    const KEYCTL_JOIN_SESSION_KEYRING: libc::c_long = 1;
    // SAFETY: with a null name, keyctl creates and joins an anonymous session keyring; it reads no memory. A
    // kernel without keys (or a filter refusing them) leaves the worker without a keyring to share either.
    unsafe { libc::syscall(libc::SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, std::ptr::null::<libc::c_char>()) };
}

/// Empties every capability set of the calling process: the bounding set (so that `exec` grants root nothing),
/// the ambient, inheritable, permitted and effective sets. A process without `CAP_SETPCAP` cannot shrink its
/// bounding set, but it is then not privileged in its namespace, and `no_new_privs` keeps `exec` from granting
/// anything.
fn drop_capabilities() -> io::Result<()> {
    for capability in 0..64 {
        // SAFETY: PR_CAPBSET_DROP takes a capability number and zeros.
        if unsafe { libc::prctl(libc::PR_CAPBSET_DROP, capability, 0, 0, 0) } < 0 {
            match io::Error::last_os_error().raw_os_error() {
                // Past the kernel's last capability, or not allowed to: nothing more to drop here.
                Some(libc::EINVAL | libc::EPERM) => break,
                _ => return Err(io::Error::last_os_error()),
            }
        }
    }
    // SAFETY: PR_CAP_AMBIENT_CLEAR_ALL takes zeros; kernels before 4.3 have no ambient set (EINVAL).
    if unsafe { libc::prctl(libc::PR_CAP_AMBIENT, libc::PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) } < 0
        && io::Error::last_os_error().raw_os_error() != Some(libc::EINVAL)
    {
        return Err(io::Error::last_os_error());
    }
    #[repr(C)]
    struct Header {
        version: u32,
        pid: libc::c_int,
    }
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    const VERSION_3: u32 = 0x2008_0522;
    let header = Header { version: VERSION_3, pid: 0 };
    let data = [Data { effective: 0, permitted: 0, inheritable: 0 }; 2];
    // SAFETY: capset reads the header and the two data structs of version 3, all locals.
    check(unsafe { libc::syscall(libc::SYS_capset, &header, data.as_ptr()) as libc::c_int })
}

/// Sets the parent-death signal (`SIGKILL`), then checks that the orchestrator has not died before it was set: the
/// orchestrator holds the writing end of the worker's stdin, so a hung-up stdin means it is gone.
fn die_with_parent() -> io::Result<()> {
    // SAFETY: PR_SET_PDEATHSIG takes a signal number and zeros.
    check(unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) })?;
    // SAFETY: fd 0 is the worker's stdin, already in place; a zero-timeout poll only reads its state.
    let stdin = unsafe { BorrowedFd::borrow_raw(0) };
    if ready_now(stdin, libc::POLLHUP)? {
        // A raw error: a message would allocate, which a forked child must not.
        return Err(io::Error::from_raw_os_error(libc::EPIPE));
    }
    Ok(())
}

/// Run in the forked child before `exec`, in this order: every descriptor but 0, 1 and 2 marked close-on-exec; a
/// new session (so also a new process group, both with the child's pid as id in the orchestrator's namespace); the
/// worker's cgroup joined, where it has one and was not forked into it ([`ChildSetup::cgroup_procs`]); the resource
/// limits (`RLIMIT_CORE` 0, `RLIMIT_AS` and `RLIMIT_CPU` where asked, `RLIMIT_FSIZE`, with `SIGXFSZ` ignored so that
/// a write past the limit fails with `EFBIG` instead of killing the worker); then
///
/// - without a user namespace, the child-subreaper flag, which survives `exec`, and the other namespaces
///   ([`ChildSetup::namespaces`]);
/// - with one ([`ChildSetup::user_namespace`]): `unshare(CLONE_NEWUSER)` (this child is single-threaded, as
///   `unshare` requires), its id maps, the parent-death signal, and a fork into a new PID namespace and the other
///   namespaces. The child stays behind as the worker's supervisor ([`supervise`]); the grandchild, pid 1 of the
///   namespace, goes on below and becomes the worker;
///
/// then, for a confined worker, its private filesystem view ([`enter_view`]), the loopback of its network
/// namespace brought up, its IPC namespace's limits ([`ChildSetup::ipc_limits`]), its PID namespace's `pid_max` and
/// `RLIMIT_NPROC` where asked, the host identity it runs
/// as ([`ChildSetup::identity`]), a user namespace of its own entered last ([`ChildSetup::late_user_namespace`]; one
/// made ahead is entered while still root, the identity taken inside it, [`ChildSetup::late_namespace`]),
/// a new session keyring, every
/// capability dropped (after the namespaces, which need them), `no_new_privs`, its system call filter
/// ([`ChildSetup::filter`]) and the Landlock ruleset; and last the
/// parent-death signal, because any credential change (entering a user namespace, writing its maps) clears it. The
/// orchestrator may have died before that signal was set: a hung-up stdin says so, and the child gives up.
///
/// Only async-signal-safe system calls are made, as code between `fork` and `exec` in a multithreaded process
/// must.
///
/// On the user-namespace route, `start_worker` starts the worker (with [`Namespaces::worker_clone_flags`]) where
/// the child is, then [`supervise`]s it: it returns only in a worker that goes on here (a forked one), or with the
/// error that stopped the start (`sys::spawn`).
pub(super) fn worker_pre_exec(
    setup: ChildSetup,
    mut view: Option<&mut crate::view::ViewPlan>,
    start_worker: impl FnOnce(Option<&mut crate::view::ViewPlan>) -> io::Result<()>,
) -> io::Result<()> {
    before_the_worker(setup)?;
    if setup.user_namespace.is_some() {
        start_worker(view.as_deref_mut())?;
    }
    the_workers_own(setup, view)
}

/// The part of [`worker_pre_exec`] before the worker's process exists: on the user-namespace route, what its
/// supervisor does before it starts the worker; on the others, the worker's own first steps.
fn before_the_worker(setup: ChildSetup) -> io::Result<()> {
    close_other_descriptors_on_exec()?;
    // SAFETY: setsid takes no arguments and only changes the calling (forked) process's session.
    if unsafe { libc::setsid() } < 0 {
        return Err(io::Error::last_os_error());
    }
    if let Some(procs) = setup.cgroup_procs {
        // "0" is the writing process: the child joins the worker's cgroup before it forks or execs anything.
        // SAFETY: write reads one byte from a static buffer into a descriptor the parent keeps open.
        if unsafe { libc::write(procs, c"0".as_ptr().cast(), 1) } < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    set_rlimit(libc::RLIMIT_CORE, 0)?;
    if let Some(bytes) = setup.address_space {
        set_rlimit(libc::RLIMIT_AS, bytes)?;
    }
    if let Some(seconds) = setup.cpu_seconds {
        let limit =
            libc::rlimit { rlim_cur: seconds as libc::rlim_t, rlim_max: seconds.saturating_add(1) as libc::rlim_t };
        // SAFETY: setrlimit reads the local struct and changes only this process's limit.
        check(unsafe { libc::setrlimit(libc::RLIMIT_CPU, &limit) })?;
    }
    if let Some(bytes) = setup.file_size {
        set_rlimit(libc::RLIMIT_FSIZE, bytes)?;
        // SAFETY: setting a signal's disposition to SIG_IGN installs no handler; an ignored signal stays ignored
        // across exec.
        if unsafe { libc::signal(libc::SIGXFSZ, libc::SIG_IGN) } == libc::SIG_ERR {
            return Err(io::Error::last_os_error());
        }
    }
    match setup.user_namespace {
        None => {
            set_child_subreaper()?;
            if setup.namespaces != Namespaces::default() {
                // SAFETY: unshare takes a flags word; it moves only this process into the new namespaces.
                check(unsafe { libc::unshare(setup.namespaces.clone_flags()) })?;
            }
        }
        Some(maps) => {
            // Root's worker on this route takes its identity first, and goes on as any user's would.
            if let Some((uid, gid)) = setup.identity {
                become_identity(uid, gid)?;
            }
            // SAFETY: unshare takes a flags word; CLONE_NEWUSER moves only this single-threaded process into a
            // new user namespace, in which it has every capability until it execs.
            check(unsafe { libc::unshare(libc::CLONE_NEWUSER) })?;
            write_id_maps(&maps)?;
            // SAFETY: the default disposition installs no handler; the supervisor must be able to wait for the
            // worker even if the orchestrator ignores SIGCHLD (an ignored SIGCHLD would reap it unseen).
            if unsafe { libc::signal(libc::SIGCHLD, libc::SIG_DFL) } == libc::SIG_ERR {
                return Err(io::Error::last_os_error());
            }
            die_with_parent()?;
        }
    }
    Ok(())
}

/// The part of [`worker_pre_exec`] the worker's process does itself, after [`before_the_worker`] (and on the
/// user-namespace route, started by its supervisor).
pub(super) fn the_workers_own(setup: ChildSetup, view: Option<&mut crate::view::ViewPlan>) -> io::Result<()> {
    if let Some(view) = view {
        enter_view(view)?;
    }
    if setup.namespaces.network {
        loopback_up()?;
    }
    if let Some(limits) = setup.ipc_limits {
        // As root of the worker's IPC namespace, whose limits these files are: the host's are not touched.
        write_proc_file(c"/proc/sys/kernel/shmmax", limits.shmmax.as_bytes())?;
        write_proc_file(c"/proc/sys/kernel/shmall", limits.shmall.as_bytes())?;
        write_proc_file(c"/proc/sys/kernel/msgmni", limits.msgmni.as_bytes())?;
    }
    if let Some(pid_max) = setup.pid_max {
        // The worker is the first process of its PID namespace, whose own `pid_max` this sets (the caller asks for
        // it only on kernels where the file is per namespace, never the host's).
        write_proc_file(c"/proc/sys/kernel/pid_max", pid_max.as_bytes())?;
    }
    if let Some(tasks) = setup.nproc {
        set_rlimit(libc::RLIMIT_NPROC, tasks)?;
    }
    let identity = setup.identity.filter(|_| setup.user_namespace.is_none());
    match (setup.late_user_namespace, setup.late_namespace) {
        (Some(_), Some(namespace)) => {
            // SAFETY: setns takes a descriptor the parent keeps open and a flags word; it moves only this process
            // (single-threaded: it shares no thread group, nor its filesystem information) into that user
            // namespace, root's, whose maps are written; the namespaces and mounts made above stay the init
            // namespace's, out of its reach.
            check(unsafe { libc::setns(namespace, libc::CLONE_NEWUSER) })?;
            if let Some((uid, gid)) = identity {
                become_identity(uid, gid)?;
            }
        }
        (late, _) => {
            if let Some((uid, gid)) = identity {
                become_identity(uid, gid)?;
            }
            if let Some(maps) = late {
                // SAFETY: unshare takes a flags word; CLONE_NEWUSER moves only this single-threaded process into a
                // new user namespace, where it maps its own ids; the namespaces and mounts made above stay the
                // init namespace's, out of its reach.
                check(unsafe { libc::unshare(libc::CLONE_NEWUSER) })?;
                write_id_maps(&maps)?;
            }
        }
    }
    if identity.is_some() {
        // A change of identity makes the process's memory as dumpable as `fs.suid_dumpable` says: the orchestrator's
        // own, where the child shares it, goes back to what it was (see `process::ensure_subreaper`).
        set_dumpable(false)?;
    }
    if setup.confined {
        join_new_session_keyring();
        drop_capabilities()?;
        // SAFETY: PR_SET_NO_NEW_PRIVS takes the flag 1 and zeros, as prctl(2) asks.
        check(unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) })?;
    }
    if let Some(program) = setup.filter {
        let program = libc::sock_fprog { len: program.len() as libc::c_ushort, filter: program.as_ptr().cast_mut() };
        // SAFETY: seccomp(SECCOMP_SET_MODE_FILTER) reads the program, allocated before the fork and never
        // written, and copies it into the kernel; `no_new_privs` is set (the worker is confined).
        if unsafe { libc::syscall(libc::SYS_seccomp, libc::SECCOMP_SET_MODE_FILTER, 0u32, &program) } < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    if let Some(ruleset) = setup.ruleset {
        // SAFETY: landlock_restrict_self takes a ruleset descriptor the parent keeps open and a flags word.
        if unsafe { libc::syscall(libc::SYS_landlock_restrict_self, ruleset, 0u32) } < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    die_with_parent()
}

/// The supervisor of a worker in a user and PID namespace: the process the orchestrator started (and watches,
/// signals and reaps), which forked the worker into the namespace. It closes every descriptor it holds (its copies
/// of the worker's pipes and of the spawn's error pipe, so that their ends see only the worker), waits for the
/// worker, whose exit ends the namespace, and ends the same way: the worker's exit code, or death by its signal.
/// The worker dies with it (its parent-death signal), and it dies with the orchestrator's spawning thread (its
/// own); it is outside the worker's Landlock domain and PID namespace, so the worker can neither name nor signal
/// nor trace it.
pub(super) fn supervise(worker: i32) -> ! {
    // SAFETY: close_range closes this process's own descriptors; nothing here uses one again.
    if unsafe { libc::syscall(libc::SYS_close_range, 0u32, u32::MAX, 0u32) } < 0 {
        // Before Linux 5.9: one by one.
        for fd in 0..descriptor_ceiling() {
            // SAFETY: closing a descriptor of this process; an unused number fails harmlessly with EBADF.
            unsafe { libc::close(fd) };
        }
    }
    let Ok(status) = wait_blocking(worker) else { exit_now(127) };
    if libc::WIFSIGNALED(status) {
        let signal = libc::WTERMSIG(status);
        // SAFETY: restoring the default disposition installs no handler; kill then sends the signal to this
        // process itself (the signal mask is empty, as the spawn leaves it before this setup).
        unsafe {
            libc::signal(signal, libc::SIG_DFL);
            libc::kill(libc::getpid(), signal);
        }
        // A signal whose default is not to end the process (none that ended the worker, in practice).
        exit_now(128 + signal);
    }
    exit_now(libc::WEXITSTATUS(status))
}
