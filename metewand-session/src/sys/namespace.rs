//! User and PID namespaces: whether the kernel gives a worker its own, the id maps a process without privileges
//! writes for a user namespace of its own, and a user namespace root's worker enters last, made ahead with its maps
//! written from outside.

use std::ffi::CStr;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use super::{exit_now, raw_fork, set_dumpable, wait_blocking};

/// Gives the calling thread a new PID namespace for the children it starts from now on (it stays in its own).
/// Needs `CAP_SYS_ADMIN` in the current user namespace; a thread can do it once.
pub(crate) fn unshare_pid_namespace() -> io::Result<()> {
    // SAFETY: unshare takes a flags word; CLONE_NEWPID changes only the namespace of this thread's future children.
    if unsafe { libc::unshare(libc::CLONE_NEWPID) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Whether `kernel.pid_max` belongs to each PID namespace (Linux 6.14 and later): only then may a worker's be
/// set, since on an older kernel the same write as root would change the host's. Read from the kernel's release,
/// because trying it is exactly the write that must not happen.
pub(crate) fn pid_max_per_namespace() -> bool {
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
pub(crate) struct Line {
    bytes: [u8; 24],
    len: usize,
}

impl Line {
    /// The id map line that maps `inside` to `outside`.
    fn map(inside: u32, outside: u32) -> Line {
        // At most "4294967295 4294967295 1\n": 24 bytes.
        Line::new(&format!("{inside} {outside} 1\n"))
    }

    /// A number and a newline (at most 21 bytes).
    pub(crate) fn number(value: u64) -> Line {
        Line::new(&format!("{value}\n"))
    }

    fn new(text: &str) -> Line {
        let mut bytes = [0; 24];
        bytes[..text.len()].copy_from_slice(text.as_bytes());
        Line { bytes, len: text.len() }
    }

    pub(super) fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// The uid and gid maps of a user namespace, one id each, whose outside id is the caller's effective uid and gid:
/// the only maps a process without privileges may write for its own new user namespace.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IdMaps {
    uid: Line,
    gid: Line,
}

impl IdMaps {
    /// The maps of the calling process's effective uid and gid.
    pub(crate) fn current() -> IdMaps {
        // SAFETY: geteuid and getegid take no arguments and only read the caller's credentials.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        IdMaps::of(uid, gid)
    }

    /// The maps of `uid` and `gid` to themselves.
    pub(crate) fn of(uid: u32, gid: u32) -> IdMaps {
        IdMaps { uid: Line::map(uid, uid), gid: Line::map(gid, gid) }
    }

    /// The maps that make `uid` and `gid` (outside) the new namespace's root: its owner may then set up what
    /// only a namespace's root may (its IPC namespace's limits among them).
    pub(crate) fn root_of(uid: u32, gid: u32) -> IdMaps {
        IdMaps { uid: Line::map(0, uid), gid: Line::map(0, gid) }
    }

    /// The maps, in a namespace of [`IdMaps::root_of`], that give root there back its outside ids `uid` and `gid`.
    pub(crate) fn from_root(uid: u32, gid: u32) -> IdMaps {
        IdMaps { uid: Line::map(uid, 0), gid: Line::map(gid, 0) }
    }

    /// Writes these maps for the new user namespace of process `pid` (in this process's PID namespace) from
    /// outside, as a process with `CAP_SETUID` and `CAP_SETGID` may for any ids; its `setgroups` stays allowed, so
    /// that a process entering it may then drop its supplementary groups there.
    fn write_for(&self, pid: i32) -> io::Result<()> {
        write_proc_file(&proc_path(pid, "uid_map"), self.uid.as_bytes())?;
        write_proc_file(&proc_path(pid, "gid_map"), self.gid.as_bytes())
    }
}

/// `/proc/<pid>/<file>`, for a `file` named here (it holds no NUL byte).
fn proc_path(pid: i32, file: &str) -> std::ffi::CString {
    std::ffi::CString::new(format!("/proc/{pid}/{file}")).expect("a pid and a file name of /proc hold no NUL byte")
}

/// A new user namespace of root's, made ahead for one worker to enter last (`ChildSetup::late_namespace`), with its
/// maps written from outside: a worker's child that shares the orchestrator's memory cannot write its own, which
/// would make it, and so that memory, dumpable for as long. Made by a process that shares this memory, blocks
/// every signal and only ever sleeps, killed once the namespace's descriptor is open; reaped when this is dropped.
pub(crate) struct PreparedUserNamespace {
    namespace: OwnedFd,
    holder: i32,
}

impl PreparedUserNamespace {
    /// A new user namespace mapped as `maps` say. Run on a thread outside any PID namespace of its own making (the
    /// holder would be that namespace's first process, and its end the namespace's); needs `CAP_SETUID` and
    /// `CAP_SETGID` (the ids mapped are not only the caller's); x86-64 only (`Unsupported` elsewhere).
    pub(crate) fn new(maps: IdMaps) -> io::Result<PreparedUserNamespace> {
        let holder = {
            let _blocked = super::SignalsBlocked::now()?;
            clone_holder()?
        };
        let made = maps.write_for(holder).and_then(|()| {
            let path = proc_path(holder, "ns/user");
            // SAFETY: open reads the NUL-terminated path and returns a new descriptor or -1.
            let fd = unsafe { libc::open(path.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
            if fd < 0 {
                return Err(io::Error::last_os_error());
            }
            // SAFETY: the descriptor was just opened and is owned by nothing else.
            Ok(unsafe { OwnedFd::from_raw_fd(fd) })
        });
        // Its work is done once it exists: the namespace lives on in the descriptor.
        let _ = super::signal(holder, libc::SIGKILL);
        match made {
            Ok(namespace) => Ok(PreparedUserNamespace { namespace, holder }),
            Err(error) => {
                let _ = wait_blocking(holder);
                Err(error)
            }
        }
    }

    /// The namespace's descriptor, open while this lives.
    pub(crate) fn fd(&self) -> RawFd {
        self.namespace.as_raw_fd()
    }
}

impl Drop for PreparedUserNamespace {
    fn drop(&mut self) {
        // Killed when made: this waits at most for its end.
        let _ = wait_blocking(self.holder);
    }
}

/// Starts the process that holds a new user namespace until it is killed: in this memory (`CLONE_VM`), on the
/// caller's stack, which it never writes (it only makes `pause` again and again, and every signal that could run a
/// handler is blocked, inherited from the caller), so that starting it copies nothing. Its pid.
#[cfg(target_arch = "x86_64")]
fn clone_holder() -> io::Result<i32> {
    let args = super::clone_args((libc::CLONE_VM | libc::CLONE_NEWUSER) as u64, (0, 0), 0);
    let result: i64;
    // SAFETY: clone3 reads `args` (of the size passed). The child shares this memory and this thread's stack
    // pointer, and runs only the loop below, which makes the `pause` system call and touches no memory; the caller
    // blocked every signal a handler could take, so none writes a frame on that stack; it ends by SIGKILL. In the
    // caller, the system call clobbers rcx and r11 only.
    unsafe {
        std::arch::asm!(
            "syscall",
            "test rax, rax",
            "jnz 3f",
            "2:",
            "mov eax, {pause}",
            "syscall",
            "jmp 2b",
            "3:",
            pause = const libc::SYS_pause,
            inlateout("rax") libc::SYS_clone3 => result,
            in("rdi") std::ptr::from_ref(&args),
            in("rsi") size_of::<libc::clone_args>(),
            lateout("rcx") _,
            lateout("r11") _,
            options(nostack),
        );
    }
    super::cloned(result)
}

#[cfg(not(target_arch = "x86_64"))]
fn clone_holder() -> io::Result<i32> {
    Err(io::Error::from(io::ErrorKind::Unsupported))
}

/// Writes `bytes` to a `/proc` file in one `write`, as id maps and sysctls must be written.
pub(super) fn write_proc_file(path: &CStr, bytes: &[u8]) -> io::Result<()> {
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
pub(super) fn write_id_maps(maps: &IdMaps) -> io::Result<()> {
    set_dumpable(true)?;
    write_proc_file(c"/proc/self/setgroups", b"deny")?;
    write_proc_file(c"/proc/self/uid_map", maps.uid.as_bytes())?;
    write_proc_file(c"/proc/self/gid_map", maps.gid.as_bytes())?;
    set_dumpable(false)
}

/// Whether a process that has become `uid` and `gid` (from root) may still enter a user namespace of its own
/// mapping them to themselves, as a worker run by root does last: a short-lived child tries exactly that. False
/// where unprivileged user namespaces are refused.
pub(crate) fn user_namespace_works_as(uid: u32, gid: u32) -> bool {
    let Ok(pid) = raw_fork(0) else { return false };
    if pid == 0 {
        let entered = super::become_identity(uid, gid)
            // SAFETY: unshare takes a flags word; this single-threaded child moves into a new user namespace.
            .and_then(|()| super::check(unsafe { libc::unshare(libc::CLONE_NEWUSER) }))
            .and_then(|()| write_id_maps(&IdMaps::of(uid, gid)));
        exit_now(if entered.is_ok() { 0 } else { 1 });
    }
    wait_blocking(pid).is_ok_and(|status| libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0)
}

/// What the kernel lets the user-namespace route do here.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct UserNamespaceRoute {
    /// A worker may be given a PID namespace inside a user namespace whose root is its user, and then a user
    /// namespace of its own inside that one, where it is its user again.
    pub(crate) works: bool,
    /// Root there may set the limits of an IPC namespace it made (`kernel.shmmax` and the rest).
    pub(crate) ipc_limits: bool,
}

/// What the user-namespace route can do for a worker of `identity` (the caller's own when `None`): a short-lived
/// process is cloned into a user and PID namespace (which a multithreaded process may do, unlike `unshare`) as the
/// route's worker is, maps that identity to root there, makes an IPC namespace and sets one of its limits, then
/// enters a user namespace inside, mapping root back to the identity; the kernel's answers are what it reports.
pub(crate) fn probe_user_namespace_route(identity: Option<(u32, u32)>) -> UserNamespaceRoute {
    const WORKS: i32 = 0;
    const WORKS_WITHOUT_IPC_LIMITS: i32 = 2;
    let Ok(pid) = raw_fork(0) else { return UserNamespaceRoute::default() };
    if pid == 0 {
        let (uid, gid) = identity.unwrap_or_else(|| {
            // SAFETY: geteuid and getegid take no arguments and only read the caller's credentials.
            unsafe { (libc::geteuid(), libc::getegid()) }
        });
        let entered = identity
            .map_or(Ok(()), |(uid, gid)| super::become_identity(uid, gid))
            // SAFETY: unshare takes a flags word; this single-threaded child moves into new namespaces.
            .and_then(|()| super::check(unsafe { libc::unshare(libc::CLONE_NEWUSER) }))
            .and_then(|()| write_id_maps(&IdMaps::root_of(uid, gid)))
            // SAFETY: as above; a PID namespace for children and an IPC namespace, as the route's worker gets.
            .and_then(|()| super::check(unsafe { libc::unshare(libc::CLONE_NEWPID | libc::CLONE_NEWIPC) }));
        if entered.is_err() {
            exit_now(1);
        }
        let limits = write_proc_file(c"/proc/sys/kernel/shmmni", b"4096\n").is_ok();
        // SAFETY: as above: the worker's own user namespace, inside.
        let inner = super::check(unsafe { libc::unshare(libc::CLONE_NEWUSER) })
            .and_then(|()| write_id_maps(&IdMaps::from_root(uid, gid)));
        exit_now(match (inner.is_ok(), limits) {
            (true, true) => WORKS,
            (true, false) => WORKS_WITHOUT_IPC_LIMITS,
            (false, _) => 1,
        });
    }
    let status =
        wait_blocking(pid).ok().filter(|status| libc::WIFEXITED(*status)).map(|status| libc::WEXITSTATUS(status));
    UserNamespaceRoute {
        works: matches!(status, Some(WORKS | WORKS_WITHOUT_IPC_LIMITS)),
        ipc_limits: status == Some(WORKS),
    }
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
