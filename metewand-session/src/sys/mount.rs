//! The mounts of a worker's private filesystem view: entering it in the forked child (planned in the parent by
//! `view.rs`), and showing a folder there later, once the worker runs.

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use super::{check, exit_now, raw_fork, wait_blocking};

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

/// Shows each host folder of `paths` read-only at the same path in the private view of the process `pid`, where an
/// empty mount point waits for it (the deferred paths of `view.rs`). A short-lived thread does it, one for all of
/// them: it clones each folder's mounts, enters the view's mount namespace and moves each clone onto its mount
/// point. Where that namespace belongs to another user namespace than this process's (the user-namespace route), a
/// short-lived child does it instead, since a process with threads may not enter a user namespace (started in this
/// process's memory, `spawn::run_sharing`, so that nothing is copied): it first enters that user namespace, in which
/// it holds every capability as its owner, and clones from a mount namespace of its own made there (a copy of the
/// host's).
pub(crate) fn show_in_view(pid: i32, paths: &[CString]) -> io::Result<()> {
    let pairs: Vec<(&CStr, &CStr)> = paths.iter().map(|path| (path.as_c_str(), path.as_c_str())).collect();
    show_in_view_at(pid, &pairs, false)
}

/// Like [`show_in_view`], showing each host folder `source` of `pairs` at its `target` in the view, in order; with
/// `replace`, whatever is mounted at a `target` is detached first (a reused session's next dataset on the mount point
/// of the last). Every source is cloned before the view is entered (a source is the host's path), and one thread
/// (or child) shows them all: starting one is a wait for a CPU on a busy machine, so two folders shown together cost
/// one wait where each shown alone cost its own.
pub(crate) fn show_in_view_at(pid: i32, pairs: &[(&CStr, &CStr)], replace: bool) -> io::Result<()> {
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
    // Clones each `source`'s mounts read-only in the mount namespace this task is in (into `trees`, which has room
    // for them all: nothing is allocated), enters the view's, and moves each clone onto its `target`.
    let show = |trees: &mut Vec<OwnedFd>| -> io::Result<()> {
        let flags = OPEN_TREE_CLONE | libc::O_CLOEXEC as libc::c_uint | libc::AT_RECURSIVE as libc::c_uint;
        for (source, _) in pairs {
            // SAFETY: open_tree reads the path and returns a new descriptor for a detached clone of its mounts.
            let tree = check_fd(unsafe { libc::syscall(libc::SYS_open_tree, libc::AT_FDCWD, source.as_ptr(), flags) })?;
            // SAFETY: a descriptor just returned is owned by nothing else; it is closed when this returns.
            let tree = unsafe { OwnedFd::from_raw_fd(tree) };
            make_read_only(tree.as_raw_fd(), c"", (libc::AT_EMPTY_PATH | libc::AT_RECURSIVE) as libc::c_uint)?;
            trees.push(tree);
        }
        // SAFETY: setns takes a descriptor this task holds and a flag.
        check(unsafe { libc::setns(mounts.as_raw_fd(), libc::CLONE_NEWNS) })?;
        for (tree, (_, target)) in trees.iter().zip(pairs) {
            if replace {
                // SAFETY: umount2 reads the path; what was mounted there by an earlier show is detached lazily (a
                // descriptor the worker holds keeps it alive, read-only as it was shown).
                check(unsafe { libc::umount2(target.as_ptr(), libc::MNT_DETACH) })?;
            }
            // SAFETY: move_mount reads the path and attaches the detached tree there.
            let moved = unsafe {
                libc::syscall(
                    libc::SYS_move_mount,
                    tree.as_raw_fd(),
                    c"".as_ptr(),
                    libc::AT_FDCWD,
                    target.as_ptr(),
                    MOVE_MOUNT_F_EMPTY_PATH,
                )
            };
            check(moved as libc::c_int)?;
        }
        Ok(())
    };
    if pairs.is_empty() {
        return Ok(());
    }
    if !foreign {
        // Only a user namespace needs a process without threads: a thread may enter another mount namespace once it
        // shares its filesystem attributes (root, working directory) with no other (CLONE_FS), and both end with
        // it. A thread costs a fraction of a fork of the executor, which copies its page tables.
        let shown = std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    // SAFETY: unshare takes a flags word; it gives this thread alone its own filesystem attributes.
                    check(unsafe { libc::unshare(libc::CLONE_FS) })?;
                    show(&mut Vec::with_capacity(pairs.len()))
                })
                .join()
        });
        return shown.unwrap_or_else(|_| Err(io::Error::other("the thread showing a folder in the view panicked")));
    }
    let mut trees = Vec::with_capacity(pairs.len());
    let mut task = || {
        let shown = (|| -> io::Result<()> {
            // SAFETY: setns and unshare take a descriptor this process holds and flags; this single-threaded child
            // changes only its own namespaces.
            check(unsafe { libc::setns(owner.as_raw_fd(), libc::CLONE_NEWUSER) })?;
            // SAFETY: as above.
            check(unsafe { libc::unshare(libc::CLONE_NEWNS) })?;
            show(&mut trees)
        })();
        // Closed here, in the child's own descriptor table: `trees` is left empty, as it was made.
        trees.clear();
        // An errno fits an exit status (they are below 255); 255 is any other failure.
        match shown {
            Ok(()) => 0,
            Err(error) => error.raw_os_error().filter(|errno| (1..255).contains(errno)).unwrap_or(255),
        }
    };
    let status = match super::spawn::run_sharing(&mut task) {
        Some(status) => status?,
        None => {
            let child = raw_fork(0)?;
            if child == 0 {
                exit_now(task());
            }
            wait_blocking(child)?
        }
    };
    match (libc::WIFEXITED(status), libc::WEXITSTATUS(status)) {
        (true, 0) => Ok(()),
        (true, errno) if errno < 255 => Err(io::Error::from_raw_os_error(errno)),
        _ => Err(io::Error::other("the process showing a folder in the view failed")),
    }
}

/// Enters the worker's private filesystem view (`view.rs`): a new mount namespace that shares nothing back with
/// the host's; a clone of each path to show, taken before anything is hidden; an empty tmpfs on each hidden folder,
/// with the mount points the shown paths need; each clone moved onto its path (read-only unless writable); each
/// tmpfs made read-only; a fresh `/proc` for the worker's PID namespace, its lists of keys masked; and its working
/// directory entered again, now through the view.
pub(super) fn enter_view(view: &mut crate::view::ViewPlan) -> io::Result<()> {
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
    // The mount points get exactly the modes asked, whatever the orchestrator's umask: a worker run as an identity
    // of its own passes through them.
    // SAFETY: umask sets this process's file mode creation mask and returns the old one; it cannot fail.
    let umask = unsafe { libc::umask(0o022) };
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
    // SAFETY: as above, restoring the mask the worker inherits.
    unsafe { libc::umask(umask) };
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
    // The kernel's keys are listed for whoever their owner's uid is, across every namespace: a worker sharing its
    // identity with a neighbour's would read the descriptions of the keys the other holds.
    for masked in [c"/proc/keys", c"/proc/key-users"] {
        // SAFETY: mount reads the NUL-terminated paths; /dev/null is bound over the file.
        let bound = unsafe {
            libc::mount(c"/dev/null".as_ptr(), masked.as_ptr(), std::ptr::null(), libc::MS_BIND, std::ptr::null())
        };
        // A kernel without keys has neither file.
        if bound < 0 && io::Error::last_os_error().raw_os_error() != Some(libc::ENOENT) {
            return Err(io::Error::last_os_error());
        }
    }
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
