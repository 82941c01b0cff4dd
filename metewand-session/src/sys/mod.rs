//! The few system calls that std does not offer, each wrapped once: `poll`, non-blocking pipes, pidfds, signals,
//! reaping one pid (with its resource use), the child-subreaper and dumpable flags, namespaces, resource limits,
//! capabilities, Landlock and the parent-death signal, a worker's fork (into its cgroup) and what it does before
//! `exec`. Every `unsafe` block of the session module is here or in this module's files.
//!
//! This file holds the calls on running processes and the forks the others share; `namespace.rs` the user and PID
//! namespaces, `mount.rs` the private view's mounts, `seccomp.rs` the system call filter (the CPU lock among its
//! rules), `spawn.rs` a worker's fork, streams and `exec`, and `child.rs` what a forked worker does before `exec`.

mod child;
mod mount;
mod namespace;
mod seccomp;
mod spawn;

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::time::Duration;

pub(super) use child::{ChildSetup, IpcLimits, Namespaces};
pub(super) use mount::{show_in_view, show_in_view_at};
pub(super) use namespace::{
    IdMaps, Line, PreparedUserNamespace, UserNamespaceRoute, pid_max_per_namespace, probe_user_namespace_route,
    unshare_pid_namespace, user_namespace_works_as,
};
pub use seccomp::SyscallGroup;
pub(super) use seccomp::{FilterPlan, program as filter_program};
pub(super) use spawn::{Exec, spawn};

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

/// `clone3`'s arguments up to `cgroup` (their second version, 88 bytes, Linux 5.7): `flags`, `SIGCHLD` at the
/// child's end, the child's stack as `(lowest address, size)` and the cgroup folder's descriptor (zeros for none).
fn clone_args(flags: u64, stack: (u64, u64), cgroup: u64) -> libc::clone_args {
    libc::clone_args {
        flags,
        pidfd: 0,
        child_tid: 0,
        parent_tid: 0,
        exit_signal: libc::SIGCHLD as u64,
        stack: stack.0,
        stack_size: stack.1,
        tls: 0,
        set_tid: 0,
        set_tid_size: 0,
        cgroup,
    }
}

/// What a raw `clone3` returned, as the child's pid or the error (a negated errno).
#[cfg(target_arch = "x86_64")]
fn cloned(result: i64) -> io::Result<i32> {
    match i32::try_from(result) {
        Ok(pid) if pid >= 0 => Ok(pid),
        Ok(negated) => Err(io::Error::from_raw_os_error(-negated)),
        Err(_) => Err(io::Error::from_raw_os_error(libc::EINVAL)),
    }
}

/// Every signal blocked on the calling thread until this is dropped, when its mask is what it was: a child that
/// shares this process's memory must run none of its signal handlers.
pub(super) struct SignalsBlocked {
    before: libc::sigset_t,
}

impl SignalsBlocked {
    pub(super) fn now() -> io::Result<SignalsBlocked> {
        // SAFETY: all-zero sigset_t values are valid; sigfillset fills the local set; pthread_sigmask installs it
        // as this thread's mask and writes the mask before into the other local.
        unsafe {
            let mut all: libc::sigset_t = std::mem::zeroed();
            let mut before: libc::sigset_t = std::mem::zeroed();
            libc::sigfillset(&mut all);
            match libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut before) {
                0 => Ok(SignalsBlocked { before }),
                errno => Err(io::Error::from_raw_os_error(errno)),
            }
        }
    }
}

impl Drop for SignalsBlocked {
    fn drop(&mut self) {
        // SAFETY: pthread_sigmask installs the saved mask, read from `self`.
        unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &self.before, std::ptr::null_mut()) };
    }
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

/// Whether `pid`, a child of this process, has exited by calling `exit` (not by a signal); it is not reaped.
pub(super) fn exited_by_itself(pid: i32) -> bool {
    // SAFETY: an all-zero siginfo_t is a valid value of that plain C struct.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
    // SAFETY: waitid writes into the local siginfo_t; WNOWAIT leaves the child to be reaped, WNOHANG returns at once.
    let result = unsafe { libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, flags) };
    // SAFETY: after a successful waitid, si_pid is the field the kernel filled (0 when the child has not exited).
    result == 0 && unsafe { info.si_pid() } == pid && info.si_code == libc::CLD_EXITED
}

/// The Landlock ABI version the kernel offers, 0 when it offers none (not built in, or disabled at boot).
pub fn landlock_abi() -> u32 {
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
pub(super) fn wait_blocking(pid: i32) -> io::Result<i32> {
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

/// The effective gid of this process.
pub(super) fn egid() -> u32 {
    // SAFETY: getegid takes no arguments and only reads the caller's credentials.
    unsafe { libc::getegid() }
}

/// Makes the calling process `uid` and `gid` with no supplementary group, real, effective and saved alike (which
/// empties its permitted and effective capabilities). Raw system calls: glibc's wrappers would signal threads
/// this single-threaded child does not have.
fn become_identity(uid: u32, gid: u32) -> io::Result<()> {
    // SAFETY: setgroups with size 0 reads no list; setresgid and setresuid take ids only. Each changes only the
    // credentials of this thread, the child's only one.
    unsafe {
        check(libc::syscall(libc::SYS_setgroups, 0usize, std::ptr::null::<libc::gid_t>()) as libc::c_int)?;
        check(libc::syscall(libc::SYS_setresgid, gid, gid, gid) as libc::c_int)?;
        check(libc::syscall(libc::SYS_setresuid, uid, uid, uid) as libc::c_int)
    }
}

fn check(result: libc::c_int) -> io::Result<()> {
    if result < 0 { Err(io::Error::last_os_error()) } else { Ok(()) }
}
