//! The few system calls that std does not offer, each wrapped once: `poll`, non-blocking pipes, pidfds, signals,
//! reaping one pid, and the child-subreaper flag. Every `unsafe` block of the session module is here.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
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

/// Run in the forked child before `exec`: a new session (so also a new process group, both with the worker's
/// pid as id) and the child-subreaper flag, which survives `exec`.
///
/// Only async-signal-safe system calls are made, as code between `fork` and `exec` in a multithreaded process
/// must.
pub(super) fn worker_pre_exec() -> io::Result<()> {
    // SAFETY: setsid takes no arguments and only changes the calling (forked) process's session.
    if unsafe { libc::setsid() } < 0 {
        return Err(io::Error::last_os_error());
    }
    set_child_subreaper()
}
