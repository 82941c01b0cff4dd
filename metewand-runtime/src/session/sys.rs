//! The few system calls that std does not offer, each wrapped once: `poll`, non-blocking pipes, pidfds, signals,
//! reaping one pid (with its resource use), the child-subreaper and dumpable flags, namespaces, resource limits,
//! capabilities, Landlock and the parent-death signal, and what a forked worker does before `exec`. Every `unsafe`
//! block of the session module is here.

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::time::Duration;

/// Ready for reading (or at end of file, or hung up: a read then tells which).
pub(super) const READABLE: i16 = libc::POLLIN | libc::POLLHUP | libc::POLLERR;
/// Ready for writing (or the reading end is gone: a write then fails with a broken pipe).
pub(super) const WRITABLE: i16 = libc::POLLOUT | libc::POLLHUP | libc::POLLERR;

/// One descriptor to wait on and the events of interest.
pub(super) fn interest(fd: BorrowedFd<'_>, events: i16) -> libc::pollfd {
    libc::pollfd { fd: fd.as_raw_fd(), events, revents: 0 }
}

/// Waits until one of `fds` is ready or `timeout` passes (`None`: no timeout), returning how many are ready.
///
/// An interrupted wait returns 0, like a timeout: callers re-check their own deadline and wait again.
pub(super) fn poll(fds: &mut [libc::pollfd], timeout: Option<Duration>) -> io::Result<usize> {
    let timeout_ms = match timeout {
        // Round up, so that a wait never ends before its deadline and spins.
        Some(timeout) => i32::try_from(timeout.as_nanos().div_ceil(1_000_000)).unwrap_or(i32::MAX),
        None => -1,
    };
    for fd in fds.iter_mut() {
        fd.revents = 0;
    }
    // SAFETY: `fds` is a valid, exclusively borrowed slice of `pollfd` of the length passed, and every descriptor
    // in it is borrowed from a live owner by the caller for the duration of the call.
    let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, timeout_ms) };
    if ready < 0 {
        let error = io::Error::last_os_error();
        if error.kind() == io::ErrorKind::Interrupted {
            return Ok(0);
        }
        return Err(error);
    }
    Ok(ready as usize)
}

/// Whether `fd` is ready for `events` right now.
pub(super) fn ready_now(fd: BorrowedFd<'_>, events: i16) -> io::Result<bool> {
    let mut fds = [interest(fd, events)];
    Ok(poll(&mut fds, Some(Duration::ZERO))? > 0 && fds[0].revents & events != 0)
}

/// Makes reads and writes on our end of a pipe return `WouldBlock` instead of waiting; the worker's end of the
/// pipe is a separate open file description and keeps its own mode.
pub(super) fn set_nonblocking(fd: BorrowedFd<'_>) -> io::Result<()> {
    let raw = fd.as_raw_fd();
    // SAFETY: F_GETFL on a descriptor the caller keeps open reads its status flags and touches no memory.
    let flags = unsafe { libc::fcntl(raw, libc::F_GETFL) };
    if flags < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: F_SETFL with the flags just read plus O_NONBLOCK only changes that descriptor's status flags.
    if unsafe { libc::fcntl(raw, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// A descriptor that becomes readable when the process `pid` exits, without reaping it (Linux 5.3 or later).
pub(super) fn pidfd_open(pid: i32) -> io::Result<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and a flags word and returns a new descriptor or -1; no memory is shared.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the kernel just returned this descriptor to us, so nothing else owns it.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// Sends SIGKILL to a process (`target > 0`) or a process group (`target < 0`); a target that no longer exists is
/// not an error.
pub(super) fn kill(target: i32) -> io::Result<()> {
    debug_assert!(target != 0 && target != -1, "kill must never signal our own group or every process");
    // SAFETY: kill only sends a signal; callers pass a pid or a negated process-group id they own, never 0 or -1.
    if unsafe { libc::kill(target, libc::SIGKILL) } < 0 {
        let error = io::Error::last_os_error();
        if error.raw_os_error() == Some(libc::ESRCH) {
            return Ok(());
        }
        return Err(error);
    }
    Ok(())
}

/// Sends SIGKILL to the process behind `pidfd`: never to another that reuses its pid.
pub(super) fn pidfd_kill(pidfd: &OwnedFd) -> io::Result<()> {
    // SAFETY: pidfd_send_signal takes a descriptor we own, a signal, a null siginfo and a flags word.
    let sent = unsafe {
        libc::syscall(libc::SYS_pidfd_send_signal, pidfd.as_raw_fd(), libc::SIGKILL, std::ptr::null::<()>(), 0u32)
    };
    if sent < 0 { Err(io::Error::last_os_error()) } else { Ok(()) }
}

/// Reaps `pid` if it is our child and has exited; true when it was reaped (or is not our child any more).
pub(super) fn reap(pid: i32) -> bool {
    let mut status = 0;
    // SAFETY: waitpid writes the status into a local integer; WNOHANG makes it return at once.
    let result = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
    result == pid || (result < 0 && io::Error::last_os_error().raw_os_error() == Some(libc::ECHILD))
}

/// Marks the calling process a child subreaper: orphaned descendants are re-parented to it rather than to init.
pub(super) fn set_child_subreaper() -> io::Result<()> {
    // SAFETY: PR_SET_CHILD_SUBREAPER takes an integer flag; the unused arguments are zero as prctl(2) asks.
    if unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Makes the calling process dumpable or not. Non-dumpable, a process of the same user without `CAP_SYS_PTRACE` (a
/// worker, which holds no capability) can neither trace it nor read its `/proc/<pid>/environ`, `maps` or memory;
/// processes forked from it without `exec` (a worker's supervisor) stay so.
pub(super) fn set_dumpable(dumpable: bool) -> io::Result<()> {
    // SAFETY: PR_SET_DUMPABLE takes 0 or 1 and zeros, as prctl(2) asks.
    check(unsafe { libc::prctl(libc::PR_SET_DUMPABLE, libc::c_ulong::from(dumpable), 0, 0, 0) })
}

/// Sends `signal` to a process (`target > 0`) or a process group (`target < 0`); a target that no longer exists is
/// not an error.
pub(super) fn signal(target: i32, signal: i32) -> io::Result<()> {
    debug_assert!(target != 0 && target != -1, "never our own group or every process");
    // SAFETY: kill only sends a signal; callers pass a pid or a negated process-group id they own, never 0 or -1.
    if unsafe { libc::kill(target, signal) } < 0 {
        let error = io::Error::last_os_error();
        if error.raw_os_error() == Some(libc::ESRCH) {
            return Ok(());
        }
        return Err(error);
    }
    Ok(())
}

/// A reaped process's exit status and resource use, as `wait4` reports them.
pub(super) struct Reaped {
    pub(super) status: i32,
    pub(super) user: Duration,
    pub(super) system: Duration,
    /// Peak resident set size in bytes (`ru_maxrss` is in KiB on Linux).
    pub(super) max_rss: u64,
}

/// Reaps `pid` if it has exited, with its resource use; `None` while it runs (or when it is not our child).
pub(super) fn wait4_now(pid: i32) -> Option<Reaped> {
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value of that plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: wait4 writes the status and the usage into the two locals; WNOHANG makes it return at once.
    let result = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
    if result != pid {
        return None;
    }
    let time = |value: libc::timeval| {
        Duration::from_secs(value.tv_sec.max(0) as u64) + Duration::from_micros(value.tv_usec.max(0) as u64)
    };
    Some(Reaped {
        status,
        user: time(usage.ru_utime),
        system: time(usage.ru_stime),
        max_rss: (usage.ru_maxrss.max(0) as u64).saturating_mul(1024),
    })
}

/// The Landlock ABI version the kernel offers, 0 when it offers none (not built in, or disabled at boot).
pub(crate) fn landlock_abi() -> u32 {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: with a null attribute pointer, size 0 and the VERSION flag, the call only returns the ABI version.
    let version = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    u32::try_from(version).unwrap_or(0)
}

/// Gives the calling thread a new PID namespace for the children it starts from now on (it stays in its own).
/// Needs `CAP_SYS_ADMIN` in the current user namespace; a thread can do it once.
pub(super) fn unshare_pid_namespace() -> io::Result<()> {
    // SAFETY: unshare takes a flags word; CLONE_NEWPID changes only the namespace of this thread's future children.
    if unsafe { libc::unshare(libc::CLONE_NEWPID) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Whether `kernel.pid_max` belongs to each PID namespace (Linux 6.14 and later): only then may a worker's be
/// set, since on an older kernel the same write as root would change the host's. Read from the kernel's release,
/// because trying it is exactly the write that must not happen.
pub(super) fn pid_max_per_namespace() -> bool {
    // SAFETY: utsname is plain data; uname fills the local struct.
    let mut name: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    if unsafe { libc::uname(&mut name) } < 0 {
        return false;
    }
    // SAFETY: uname NUL-terminates the release.
    let release = unsafe { CStr::from_ptr(name.release.as_ptr()) }.to_string_lossy();
    release_at_least(&release, (6, 14))
}

/// Whether a kernel release such as `6.18.44-generic` is at least `major.minor`.
fn release_at_least(release: &str, (major, minor): (u32, u32)) -> bool {
    let mut numbers = release.split(|c: char| !c.is_ascii_digit()).map(|part| part.parse::<u32>().ok());
    match (numbers.next().flatten(), numbers.next().flatten()) {
        (Some(have_major), Some(have_minor)) => (have_major, have_minor) >= (major, minor),
        _ => false,
    }
}

/// A short line for a `/proc` file (an id map's line, a number), formatted in the parent so that the child only
/// writes bytes.
#[derive(Clone, Copy, Debug)]
pub(super) struct Line {
    bytes: [u8; 24],
    len: usize,
}

impl Line {
    /// The id map line that maps `id` to itself.
    fn identity(id: u32) -> Line {
        // At most "4294967295 4294967295 1\n": 24 bytes.
        Line::new(&format!("{id} {id} 1\n"))
    }

    /// A number and a newline (at most 21 bytes).
    pub(super) fn number(value: u64) -> Line {
        Line::new(&format!("{value}\n"))
    }

    fn new(text: &str) -> Line {
        let mut bytes = [0; 24];
        bytes[..text.len()].copy_from_slice(text.as_bytes());
        Line { bytes, len: text.len() }
    }

    fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// The uid and gid maps of a user namespace that maps the caller's effective uid and gid to themselves: the only
/// maps a process without privileges may write for its own new user namespace.
#[derive(Clone, Copy, Debug)]
pub(super) struct IdMaps {
    uid: Line,
    gid: Line,
}

impl IdMaps {
    /// The maps of the calling process's effective uid and gid.
    pub(super) fn current() -> IdMaps {
        // SAFETY: geteuid and getegid take no arguments and only read the caller's credentials.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        IdMaps { uid: Line::identity(uid), gid: Line::identity(gid) }
    }
}

/// Writes `bytes` to a `/proc` file in one `write`, as id maps and sysctls must be written.
fn write_proc_file(path: &CStr, bytes: &[u8]) -> io::Result<()> {
    // SAFETY: open reads the NUL-terminated path and returns a new descriptor or -1.
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: write reads `bytes.len()` bytes from the borrowed slice into the descriptor just opened.
    let written = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
    let error = io::Error::last_os_error();
    // SAFETY: the descriptor was opened above and is not used after this.
    unsafe { libc::close(fd) };
    match usize::try_from(written) {
        Ok(count) if count == bytes.len() => Ok(()),
        Ok(_) => Err(io::Error::from_raw_os_error(libc::EIO)),
        Err(_) => Err(error),
    }
}

/// Writes the calling process's own id maps, once it is in a new user namespace (setgroups must be denied before
/// an unprivileged process may write its gid map). A non-dumpable process's `/proc/self` files belong to root,
/// which the new namespace does not map, so the process is dumpable while it writes them and non-dumpable again
/// after.
fn write_id_maps(maps: &IdMaps) -> io::Result<()> {
    set_dumpable(true)?;
    write_proc_file(c"/proc/self/setgroups", b"deny")?;
    write_proc_file(c"/proc/self/uid_map", maps.uid.as_bytes())?;
    write_proc_file(c"/proc/self/gid_map", maps.gid.as_bytes())?;
    set_dumpable(false)
}

/// A raw `clone` with `flags` and no new stack: a fork, returning 0 in the child and the child's pid in the
/// caller. glibc's `fork` is avoided because it takes locks (malloc's among them) which, in a child forked from
/// the multithreaded orchestrator, another thread may have held at that fork and never released.
fn raw_fork(flags: libc::c_int) -> io::Result<i32> {
    let flags = (flags | libc::SIGCHLD) as libc::c_ulong;
    // SAFETY: without CLONE_VM and with a null stack, clone gives the child a copy of the caller's address space
    // and stack, as fork does; callers make only async-signal-safe system calls in the child. The zero arguments
    // (parent and child tid pointers, tls) are unused without the flags that read them, so their order, which
    // differs between architectures, does not matter; s390x alone takes the stack before the flags.
    #[cfg(not(target_arch = "s390x"))]
    let pid = unsafe { libc::syscall(libc::SYS_clone, flags, 0usize, 0usize, 0usize, 0usize) };
    // SAFETY: as above.
    #[cfg(target_arch = "s390x")]
    let pid = unsafe { libc::syscall(libc::SYS_clone, 0usize, flags, 0usize, 0usize, 0usize) };
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(pid as i32)
}

/// Ends the calling process at once, without running anything of the parent's (no atexit handlers, no buffers).
fn exit_now(code: i32) -> ! {
    // SAFETY: _exit ends the process; it is async-signal-safe.
    unsafe { libc::_exit(code) }
}

/// Waits for `pid` (our child) to end, retrying interrupted waits; its wait status.
fn wait_blocking(pid: i32) -> io::Result<i32> {
    let mut status = 0;
    loop {
        // SAFETY: waitpid writes the status into a local integer.
        let result = unsafe { libc::waitpid(pid, &mut status, 0) };
        if result == pid {
            return Ok(status);
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

/// The effective uid of this process.
pub(super) fn euid() -> u32 {
    // SAFETY: geteuid takes no arguments and only reads the caller's credentials.
    unsafe { libc::geteuid() }
}

/// Whether a worker could be given a PID namespace inside a user namespace of its own, mapping `maps`: a
/// short-lived process is cloned into both (which a multithreaded process may do, unlike `unshare`), writes its
/// maps and exits; the kernel's answer is whether all of that succeeded.
pub(super) fn user_namespace_works(maps: &IdMaps) -> bool {
    let Ok(pid) = raw_fork(libc::CLONE_NEWUSER | libc::CLONE_NEWPID) else { return false };
    if pid == 0 {
        exit_now(if write_id_maps(maps).is_ok() { 0 } else { 1 });
    }
    wait_blocking(pid).is_ok_and(|status| libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0)
}

/// The seccomp program that makes `sched_setaffinity` fail with `EPERM` and allows every other system call, for
/// each ABI a process of this architecture can make system calls through (x86-64 with x32 and i386, AArch64 with
/// 32-bit Arm): a worker started on a slot's CPUs stays on them, whatever processes it makes. `None` where the
/// kernel has no seccomp filters (or their `errno` action) or the architecture's numbers are not known here.
pub(super) fn affinity_lock() -> Option<&'static [libc::sock_filter]> {
    static PROGRAM: std::sync::OnceLock<Option<Vec<libc::sock_filter>>> = std::sync::OnceLock::new();
    PROGRAM.get_or_init(|| seccomp_errno_works().then(affinity_lock_program).flatten()).as_deref()
}

fn seccomp_errno_works() -> bool {
    std::fs::read_to_string("/proc/sys/kernel/seccomp/actions_avail")
        .is_ok_and(|actions| actions.split_whitespace().any(|action| action == "errno"))
}

fn affinity_lock_program() -> Option<Vec<libc::sock_filter>> {
    // From the kernel's uapi `audit.h` and each ABI's system call table.
    const ARCH_X86_64: u32 = 0xc000_003e;
    const ARCH_I386: u32 = 0x4000_0003;
    const ARCH_AARCH64: u32 = 0xc000_00b7;
    const ARCH_ARM: u32 = 0x4000_0028;
    const X32: u32 = 0x4000_0000;
    let calls: &[(u32, u32)] = if cfg!(target_arch = "x86_64") {
        &[(ARCH_X86_64, 203), (ARCH_X86_64, X32 | 203), (ARCH_I386, 241)]
    } else if cfg!(target_arch = "aarch64") {
        &[(ARCH_AARCH64, 122), (ARCH_ARM, 241)]
    } else {
        return None;
    };
    let statement = |code: u32, k: u32| libc::sock_filter { code: code as u16, jt: 0, jf: 0, k };
    let jump_if_equal = |k: u32, jt: u8, jf: u8| libc::sock_filter {
        code: (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16,
        jt,
        jf,
        k,
    };
    // `struct seccomp_data`: the call's number at offset 0, the ABI's audit architecture at 4.
    let load = |offset: u32| statement(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, offset);
    let mut program = Vec::new();
    for (index, &(arch, number)) in calls.iter().enumerate() {
        // Four statements per call; after the last come "allow", then "refuse".
        let refuse = (4 * (calls.len() - index) - 4 + 1) as u8;
        program.extend([load(4), jump_if_equal(arch, 0, 2), load(0), jump_if_equal(number, refuse, 0)]);
    }
    program.push(statement(libc::BPF_RET | libc::BPF_K, libc::SECCOMP_RET_ALLOW));
    program.push(statement(libc::BPF_RET | libc::BPF_K, libc::SECCOMP_RET_ERRNO | libc::EPERM as u32));
    Some(program)
}

/// What the forked child does before `exec`, prepared in the parent so that the child only makes system calls.
#[derive(Clone, Copy, Debug)]
pub(super) struct ChildSetup {
    /// A Landlock ruleset descriptor to restrict the child with (it is close-on-exec), or `None`.
    pub(super) ruleset: Option<RawFd>,
    /// `RLIMIT_FSIZE`, or `None` to keep the inherited one.
    pub(super) file_size: Option<u64>,
    /// `RLIMIT_AS`, or `None` to keep the inherited one.
    pub(super) address_space: Option<u64>,
    /// `RLIMIT_NPROC`, set only where it counts the worker's own processes (a user namespace of its own, a uid
    /// other than 0), or `None`.
    pub(super) nproc: Option<u64>,
    /// The `kernel.pid_max` to write for the worker's PID namespace (Linux 6.14 and later, where each PID
    /// namespace has its own), or `None`.
    pub(super) pid_max: Option<Line>,
    /// The maps of a user namespace to make, with a PID namespace inside it whose first process is the worker;
    /// `None` for neither.
    pub(super) user_namespace: Option<IdMaps>,
    /// The namespaces besides the PID namespace the worker gets ([`Namespaces`]).
    pub(super) namespaces: Namespaces,
    /// On the route without a user namespace of its own (`user_namespace` is `None`), the maps of one the worker
    /// enters last, once every namespace and mount is made, so that the keyrings and counts the kernel keeps per
    /// user namespace (its per-user keyring above all) are its own; `None` for none.
    pub(super) late_user_namespace: Option<IdMaps>,
    /// Whether the worker is confined at all: only then are its capabilities dropped and `no_new_privs` set.
    pub(super) confined: bool,
    /// The seccomp program that keeps the worker on the CPUs it was started on ([`affinity_lock`]), installed
    /// last; `None` for none.
    pub(super) affinity_lock: Option<&'static [libc::sock_filter]>,
    /// The `cgroup.procs` of the worker's cgroup (`session::cgroup`), which the child joins first; `None` for none.
    pub(super) cgroup_procs: Option<RawFd>,
}

/// The namespaces besides the PID namespace a confined worker gets: a new IPC namespace (no SysV object or POSIX
/// queue outlives it), without network access a new network namespace whose loopback is brought up (nothing
/// outside it is reachable), and a mount namespace for its private view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Namespaces {
    pub(super) ipc: bool,
    pub(super) network: bool,
    /// A mount namespace for the private view, which [`enter_view`] makes itself.
    pub(super) mounts: bool,
}

impl Namespaces {
    fn clone_flags(self) -> libc::c_int {
        (if self.ipc { libc::CLONE_NEWIPC } else { 0 }) | (if self.network { libc::CLONE_NEWNET } else { 0 })
    }
}

fn check(result: libc::c_int) -> io::Result<()> {
    if result < 0 { Err(io::Error::last_os_error()) } else { Ok(()) }
}

fn set_rlimit(resource: libc::__rlimit_resource_t, value: u64) -> io::Result<()> {
    let limit = libc::rlimit { rlim_cur: value as libc::rlim_t, rlim_max: value as libc::rlim_t };
    // SAFETY: setrlimit reads the local struct and changes only this process's limit.
    check(unsafe { libc::setrlimit(resource, &limit) })
}

/// Marks every descriptor from 3 up close-on-exec, so that only stdin, stdout and stderr reach the worker whatever
/// the orchestrator inherited; the ones the hook still needs (the Landlock ruleset, std's spawn-error pipe) stay
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

/// `struct mount_attr` of `mount_setattr(2)`.
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// Makes the mount at `path` (with `flags`: `AT_RECURSIVE` for its whole subtree, `AT_EMPTY_PATH` for the
/// detached tree `dirfd` itself) read-only. Flags are only added, which a user namespace allows on locked mounts.
fn make_read_only(dirfd: libc::c_int, path: &CStr, flags: libc::c_uint) -> io::Result<()> {
    const MOUNT_ATTR_RDONLY: u64 = 1;
    let attr = MountAttr { attr_set: MOUNT_ATTR_RDONLY, attr_clr: 0, propagation: 0, userns_fd: 0 };
    // SAFETY: mount_setattr reads the path and the local struct of the size passed.
    let result =
        unsafe { libc::syscall(libc::SYS_mount_setattr, dirfd, path.as_ptr(), flags, &attr, size_of::<MountAttr>()) };
    check(result as libc::c_int)
}

/// Shows the host's folder `path` read-only at the same path in the private view of the process `pid`, where an
/// empty mount point waits for it (a deferred path of `view.rs`). A short-lived child does it, since a process
/// with threads may not change its namespaces: it clones the folder's mounts, enters the view's mount namespace
/// and moves the clone onto the mount point. Where that namespace belongs to another user namespace than this
/// process's (the user-namespace route), the child first enters that user namespace, in which it holds every
/// capability as its owner, and clones from a mount namespace of its own made there (a copy of the host's).
pub(super) fn show_in_view(pid: i32, path: &CStr) -> io::Result<()> {
    const NS_GET_USERNS: libc::c_ulong = 0xb701;
    const OPEN_TREE_CLONE: libc::c_uint = 1;
    const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 4;
    let open = |path: &str| -> io::Result<OwnedFd> {
        let path = CString::new(path).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
        // SAFETY: open reads the NUL-terminated path and returns a new descriptor or -1.
        let fd = unsafe { libc::open(path.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
        // SAFETY: a descriptor just returned is owned by nothing else.
        if fd < 0 { Err(io::Error::last_os_error()) } else { Ok(unsafe { OwnedFd::from_raw_fd(fd) }) }
    };
    let mounts = open(&format!("/proc/{pid}/ns/mnt"))?;
    // SAFETY: NS_GET_USERNS takes no argument and returns a new descriptor of the namespace's owner, or -1.
    let owner = unsafe { libc::ioctl(mounts.as_raw_fd(), NS_GET_USERNS as _) };
    if owner < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: as above.
    let owner = unsafe { OwnedFd::from_raw_fd(owner) };
    let ours = open("/proc/self/ns/user")?;
    let identity = |fd: &OwnedFd| -> io::Result<(u64, u64)> {
        let stat = rustix::fs::fstat(fd)?;
        #[allow(clippy::unnecessary_cast, reason = "the field types of struct stat differ between platforms")]
        Ok((stat.st_dev as u64, stat.st_ino as u64))
    };
    let foreign = identity(&owner)? != identity(&ours)?;
    let child = raw_fork(0)?;
    if child == 0 {
        let shown = (|| -> io::Result<()> {
            if foreign {
                // SAFETY: setns and unshare take a descriptor this process holds and flags; this single-threaded
                // child changes only its own namespaces.
                check(unsafe { libc::setns(owner.as_raw_fd(), libc::CLONE_NEWUSER) })?;
                // SAFETY: as above.
                check(unsafe { libc::unshare(libc::CLONE_NEWNS) })?;
            }
            let flags = OPEN_TREE_CLONE | libc::O_CLOEXEC as libc::c_uint | libc::AT_RECURSIVE as libc::c_uint;
            // SAFETY: open_tree reads the path and returns a new descriptor for a detached clone of its mounts.
            let tree = check_fd(unsafe { libc::syscall(libc::SYS_open_tree, libc::AT_FDCWD, path.as_ptr(), flags) })?;
            make_read_only(tree, c"", (libc::AT_EMPTY_PATH | libc::AT_RECURSIVE) as libc::c_uint)?;
            // SAFETY: setns takes a descriptor this process holds and a flag.
            check(unsafe { libc::setns(mounts.as_raw_fd(), libc::CLONE_NEWNS) })?;
            // SAFETY: move_mount reads the path and attaches the detached tree there.
            let moved = unsafe {
                libc::syscall(
                    libc::SYS_move_mount,
                    tree,
                    c"".as_ptr(),
                    libc::AT_FDCWD,
                    path.as_ptr(),
                    MOVE_MOUNT_F_EMPTY_PATH,
                )
            };
            check(moved as libc::c_int)
        })();
        // An errno fits an exit status (they are below 255); 255 is any other failure.
        exit_now(match shown {
            Ok(()) => 0,
            Err(error) => error.raw_os_error().filter(|errno| (1..255).contains(errno)).unwrap_or(255),
        });
    }
    let status = wait_blocking(child)?;
    match (libc::WIFEXITED(status), libc::WEXITSTATUS(status)) {
        (true, 0) => Ok(()),
        (true, errno) if errno < 255 => Err(io::Error::from_raw_os_error(errno)),
        _ => Err(io::Error::other("the process showing a folder in the view failed")),
    }
}

/// Enters the worker's private filesystem view (`view.rs`): a new mount namespace that shares nothing back with
/// the host's; a clone of each path to show, taken before anything is hidden; an empty tmpfs on each hidden folder,
/// with the mount points the shown paths need; each clone moved onto its path (read-only unless writable); each
/// tmpfs made read-only; a fresh `/proc` for the worker's PID namespace; and its working directory entered again,
/// now through the view.
fn enter_view(view: &mut crate::session::view::ViewPlan) -> io::Result<()> {
    const OPEN_TREE_CLONE: libc::c_uint = 1;
    const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 4;
    // SAFETY: unshare takes a flags word; it moves only this process into a new mount namespace.
    check(unsafe { libc::unshare(libc::CLONE_NEWNS) })?;
    // SAFETY: mount with null source and type and MS_REC|MS_PRIVATE only changes propagation of this namespace.
    check(unsafe {
        libc::mount(
            std::ptr::null(),
            c"/".as_ptr(),
            std::ptr::null(),
            libc::MS_REC | libc::MS_PRIVATE,
            std::ptr::null(),
        )
    })?;
    for (shown, tree) in view.shown.iter().zip(view.trees.iter_mut()) {
        let flags = OPEN_TREE_CLONE | libc::O_CLOEXEC as libc::c_uint | libc::AT_RECURSIVE as libc::c_uint;
        // SAFETY: open_tree reads the path and returns a new descriptor for a detached clone of its mounts.
        let fd = unsafe { libc::syscall(libc::SYS_open_tree, libc::AT_FDCWD, shown.path.as_ptr(), flags) };
        *tree = check_fd(fd)?;
        if !shown.writable {
            let flags = (libc::AT_EMPTY_PATH | libc::AT_RECURSIVE) as libc::c_uint;
            make_read_only(*tree, c"", flags)?;
        }
    }
    for hidden in &view.hidden {
        mount_empty(hidden)?;
    }
    for point in &view.mount_points {
        // SAFETY: mkdir and open read the NUL-terminated path; an existing mount point is fine.
        let made = unsafe {
            if point.folder {
                libc::mkdir(point.path.as_ptr(), 0o755)
            } else {
                let fd = libc::open(
                    point.path.as_ptr(),
                    libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_CLOEXEC,
                    0o644,
                );
                if fd >= 0 {
                    libc::close(fd);
                }
                fd.min(0)
            }
        };
        if made < 0 && io::Error::last_os_error().raw_os_error() != Some(libc::EEXIST) {
            return Err(io::Error::last_os_error());
        }
    }
    for (shown, tree) in view.shown.iter().zip(&view.trees) {
        // SAFETY: move_mount reads the path and attaches the detached tree `tree` there; the descriptor is closed
        // after.
        let moved = unsafe {
            libc::syscall(
                libc::SYS_move_mount,
                *tree,
                c"".as_ptr(),
                libc::AT_FDCWD,
                shown.path.as_ptr(),
                MOVE_MOUNT_F_EMPTY_PATH,
            )
        };
        // SAFETY: the descriptor came from open_tree above and is not used after this.
        unsafe { libc::close(*tree) };
        check(moved as libc::c_int)?;
    }
    for hidden in &view.hidden_inside_shown {
        mount_empty(hidden)?;
    }
    for hidden in view.hidden.iter().chain(&view.hidden_inside_shown) {
        make_read_only(libc::AT_FDCWD, hidden, 0)?;
    }
    // SAFETY: mount reads the NUL-terminated strings; proc shows the PID namespace of the mounting process.
    check(unsafe {
        libc::mount(
            c"proc".as_ptr(),
            c"/proc".as_ptr(),
            c"proc".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
            std::ptr::null(),
        )
    })?;
    // SAFETY: chdir reads the NUL-terminated path.
    check(unsafe { libc::chdir(view.working_dir.as_ptr()) })
}

/// Mounts an empty tmpfs on `path` (made read-only once what is shown inside it is in place).
fn mount_empty(path: &CStr) -> io::Result<()> {
    // SAFETY: mount reads the NUL-terminated strings; a tmpfs is mounted on the folder.
    check(unsafe {
        libc::mount(
            c"tmpfs".as_ptr(),
            path.as_ptr(),
            c"tmpfs".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV,
            c"mode=0755".as_ptr().cast(),
        )
    })
}

fn check_fd(fd: libc::c_long) -> io::Result<libc::c_int> {
    if fd < 0 { Err(io::Error::last_os_error()) } else { Ok(fd as libc::c_int) }
}

/// Has `command`'s child run [`worker_pre_exec`] with `setup` (and the private `view`, if any) between fork and
/// exec.
pub(super) fn set_pre_exec(command: &mut Command, setup: ChildSetup, mut view: Option<crate::session::view::ViewPlan>) {
    // SAFETY: the hook runs between fork and exec and makes only async-signal-safe system calls (see
    // `worker_pre_exec`; the view's paths and descriptor slots were allocated before the fork); the ruleset
    // descriptor it names is kept open by the caller until the spawn has returned.
    unsafe { command.pre_exec(move || worker_pre_exec(setup, view.as_mut())) };
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
/// worker's cgroup joined, where it has one ([`ChildSetup::cgroup_procs`]); the resource limits (`RLIMIT_CORE` 0, `RLIMIT_AS` where asked, `RLIMIT_FSIZE`, with `SIGXFSZ` ignored so that a
/// write past the limit fails with `EFBIG` instead of killing the worker); then
///
/// - without a user namespace, the child-subreaper flag, which survives `exec`, and the other namespaces
///   ([`ChildSetup::namespaces`]);
/// - with one ([`ChildSetup::user_namespace`]): `unshare(CLONE_NEWUSER)` (this child is single-threaded, as
///   `unshare` requires), its id maps, the parent-death signal, and a fork into a new PID namespace and the other
///   namespaces. The child stays behind as the worker's supervisor ([`supervise`]); the grandchild, pid 1 of the
///   namespace, goes on below and becomes the worker;
///
/// then, for a confined worker, its private filesystem view ([`enter_view`]), the loopback of its network
/// namespace brought up, its PID namespace's `pid_max` and `RLIMIT_NPROC` where asked, on the route without one a
/// user namespace of its own ([`ChildSetup::late_user_namespace`]), a new session keyring, every
/// capability dropped (after the namespaces, which need them), `no_new_privs`, the seccomp filter that keeps it on
/// its CPUs ([`ChildSetup::affinity_lock`]) and the Landlock ruleset; and last the
/// parent-death signal, because any credential change (entering a user namespace, writing its maps) clears it. The
/// orchestrator may have died before that signal was set: a hung-up stdin says so, and the child gives up.
///
/// Only async-signal-safe system calls are made, as code between `fork` and `exec` in a multithreaded process
/// must.
pub(super) fn worker_pre_exec(setup: ChildSetup, view: Option<&mut crate::session::view::ViewPlan>) -> io::Result<()> {
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
            let worker = raw_fork(libc::CLONE_NEWPID | setup.namespaces.clone_flags())?;
            if worker > 0 {
                supervise(worker);
            }
        }
    }
    if let Some(view) = view {
        enter_view(view)?;
    }
    if setup.namespaces.network {
        loopback_up()?;
    }
    if let Some(pid_max) = setup.pid_max {
        // The worker is the first process of its PID namespace, whose own `pid_max` this sets (the caller asks for
        // it only on kernels where the file is per namespace, never the host's).
        write_proc_file(c"/proc/sys/kernel/pid_max", pid_max.as_bytes())?;
    }
    if let Some(tasks) = setup.nproc {
        set_rlimit(libc::RLIMIT_NPROC, tasks)?;
    }
    if let Some(maps) = setup.late_user_namespace {
        // SAFETY: unshare takes a flags word; CLONE_NEWUSER moves only this single-threaded process into a new
        // user namespace, where it maps its own ids; the namespaces and mounts made above stay the init
        // namespace's, out of its reach.
        check(unsafe { libc::unshare(libc::CLONE_NEWUSER) })?;
        write_id_maps(&maps)?;
    }
    if setup.confined {
        join_new_session_keyring();
        drop_capabilities()?;
        // SAFETY: PR_SET_NO_NEW_PRIVS takes the flag 1 and zeros, as prctl(2) asks.
        check(unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) })?;
    }
    if let Some(program) = setup.affinity_lock {
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
fn supervise(worker: i32) -> ! {
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
        // process itself (the signal mask is empty, as std leaves it before the pre-exec hook).
        unsafe {
            libc::signal(signal, libc::SIG_DFL);
            libc::kill(libc::getpid(), signal);
        }
        // A signal whose default is not to end the process (none that ended the worker, in practice).
        exit_now(128 + signal);
    }
    exit_now(libc::WEXITSTATUS(status))
}

#[cfg(test)]
mod tests {
    use super::release_at_least;

    #[test]
    fn kernel_releases_are_compared_by_major_and_minor() {
        assert!(release_at_least("6.14.0", (6, 14)));
        assert!(release_at_least("6.18.44-fc-v1045", (6, 14)));
        assert!(release_at_least("7.0-rc1", (6, 14)));
        assert!(!release_at_least("6.13.12-arch1", (6, 14)));
        assert!(!release_at_least("5.15.0-91-generic", (6, 14)));
        assert!(!release_at_least("6", (6, 14)));
        assert!(!release_at_least("", (6, 14)));
    }
}
