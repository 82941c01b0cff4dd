//! `--attack syscalls@METHOD`: the system calls a confined worker's filter refuses, each made with arguments that
//! harm nothing where it is allowed (an invalid magic number, flags or a null pointer the kernel rejects after its
//! privilege check), so that the answer tells the filter (`ENOSYS`, `EPERM`) from the kernel's own refusal. Each is
//! reported as `test-worker: attack syscalls NAME: ok` or `errno N`, and the worker goes on.

use std::io;

use super::report;

const CLONE_INTO_CGROUP: u64 = 0x2_0000_0000;

fn outcome(result: libc::c_long) -> io::Result<libc::c_long> {
    if result < 0 { Err(io::Error::last_os_error()) } else { Ok(result) }
}

/// `clone3` with `CLONE_INTO_CGROUP` into the cgroup v2 hierarchy's root (or whatever cgroup folder `cgroup`
/// names): the child exits at once and is reaped here.
fn clone_into_cgroup(cgroup: &std::path::Path) -> io::Result<libc::c_long> {
    let folder = std::fs::File::open(cgroup)?;
    let args = libc::clone_args {
        flags: CLONE_INTO_CGROUP,
        pidfd: 0,
        child_tid: 0,
        parent_tid: 0,
        exit_signal: libc::SIGCHLD as u64,
        stack: 0,
        stack_size: 0,
        tls: 0,
        set_tid: 0,
        set_tid_size: 0,
        cgroup: std::os::fd::AsRawFd::as_raw_fd(&folder) as u64,
    };
    // SAFETY: clone3 without CLONE_VM forks this process; the child only calls _exit.
    let pid = unsafe { libc::syscall(libc::SYS_clone3, &args, size_of::<libc::clone_args>()) };
    if pid == 0 {
        // SAFETY: _exit ends the child at once.
        unsafe { libc::_exit(0) };
    }
    let pid = outcome(pid)?;
    // SAFETY: waitpid on the child just made.
    unsafe { libc::waitpid(pid as libc::pid_t, std::ptr::null_mut(), 0) };
    Ok(pid)
}

/// `struct io_uring_params`: 120 bytes, of which the setup reads the flags and the SQ thread's CPU.
#[repr(C)]
struct IoUringParams {
    sq_entries: u32,
    cq_entries: u32,
    flags: u32,
    sq_thread_cpu: u32,
    sq_thread_idle: u32,
    features: u32,
    wq_fd: u32,
    resv: [u32; 3],
    offsets: [u8; 80],
}

const IORING_SETUP_SQPOLL: u32 = 1 << 1;
const IORING_SETUP_SQ_AFF: u32 = 1 << 2;
const IORING_REGISTER_IOWQ_AFF: libc::c_long = 17;

/// An io_uring whose submission thread is bound to CPU `cpu` (`SQPOLL` with `SQ_AFF`), then its worker threads
/// bound to every CPU (`IORING_REGISTER_IOWQ_AFF`): two reports.
fn io_uring(cpu: u32) -> Vec<String> {
    let mut params = IoUringParams {
        sq_entries: 0,
        cq_entries: 0,
        flags: IORING_SETUP_SQPOLL | IORING_SETUP_SQ_AFF,
        sq_thread_cpu: cpu,
        sq_thread_idle: 10,
        features: 0,
        wq_fd: 0,
        resv: [0; 3],
        offsets: [0; 80],
    };
    // SAFETY: io_uring_setup reads and writes the local params; it returns a descriptor or -1.
    let ring = outcome(unsafe { libc::syscall(libc::SYS_io_uring_setup, 4, &mut params) });
    let mut lines = vec![report("syscalls", "io_uring_setup-sqpoll-sq_aff", ring.as_ref().map(drop).map_err(copy))];
    let registered = match ring {
        Ok(fd) => {
            // SAFETY: an all-ones cpu_set_t is every CPU; the call reads it.
            let every = [u8::MAX; 128];
            // SAFETY: io_uring_register reads `every`, whose length is passed; the ring is closed after.
            let result = unsafe {
                libc::syscall(libc::SYS_io_uring_register, fd, IORING_REGISTER_IOWQ_AFF, every.as_ptr(), every.len())
            };
            let answer = outcome(result);
            // SAFETY: the ring's descriptor, not used after.
            unsafe { libc::close(fd as libc::c_int) };
            answer
        }
        // Without a ring, the register call is made on no descriptor: a filter answers before the kernel's EBADF.
        Err(_) => {
            let every = [u8::MAX; 128];
            // SAFETY: as above, on descriptor -1.
            outcome(unsafe {
                libc::syscall(libc::SYS_io_uring_register, -1, IORING_REGISTER_IOWQ_AFF, every.as_ptr(), every.len())
            })
        }
    };
    lines.push(report("syscalls", "io_uring_register-iowq_aff", registered));
    lines
}

fn copy(error: &io::Error) -> io::Error {
    io::Error::from_raw_os_error(error.raw_os_error().unwrap_or(libc::EIO))
}

/// Plays every call; `cgroup` is the folder `clone3` targets, `cpu` the CPU io_uring's thread is bound to.
pub(super) fn play(cgroup: &std::path::Path, cpu: u32) -> Vec<String> {
    let mut lines = vec![report("syscalls", "clone3-into-cgroup", clone_into_cgroup(cgroup))];
    lines.extend(io_uring(cpu));
    const KEY_SPEC_SESSION_KEYRING: libc::c_long = -3;
    const KEY_SPEC_USER_KEYRING: libc::c_long = -4;
    const KEYCTL_GET_PERSISTENT: libc::c_long = 22;
    let payload = b"peer's result";
    let add_key = |keyring: libc::c_long| {
        // SAFETY: add_key reads the NUL-terminated type and description and `payload.len()` bytes.
        outcome(unsafe {
            libc::syscall(
                libc::SYS_add_key,
                c"user".as_ptr(),
                c"metewand-filter".as_ptr(),
                payload.as_ptr(),
                payload.len(),
                keyring,
            )
        })
    };
    lines.push(report("syscalls", "add_key-session", add_key(KEY_SPEC_SESSION_KEYRING)));
    lines.push(report("syscalls", "add_key-user", add_key(KEY_SPEC_USER_KEYRING)));
    // SAFETY: keyctl(KEYCTL_GET_PERSISTENT, -1 (own uid), session keyring) takes integers only.
    let persistent =
        outcome(unsafe { libc::syscall(libc::SYS_keyctl, KEYCTL_GET_PERSISTENT, -1, KEY_SPEC_SESSION_KEYRING) });
    lines.push(report("syscalls", "keyctl-get_persistent", persistent));
    // SAFETY: request_key reads the NUL-terminated type and description; no callout info, no keyring.
    let requested = outcome(unsafe {
        libc::syscall(libc::SYS_request_key, c"user".as_ptr(), c"metewand-absent".as_ptr(), std::ptr::null::<u8>(), 0)
    });
    lines.push(report("syscalls", "request_key", requested));
    // Each below: harmless where allowed (the kernel refuses the arguments after its privilege check).
    // SAFETY: bpf(BPF_MAP_CREATE) with no attributes; the kernel reads nothing (size 0).
    lines.push(report("syscalls", "bpf", outcome(unsafe { libc::syscall(libc::SYS_bpf, 0, 0usize, 0) })));
    // SAFETY: perf_event_open with a null attribute pointer: EFAULT where it is allowed.
    let perf = outcome(unsafe { libc::syscall(libc::SYS_perf_event_open, 0usize, 0, -1, -1, 0) });
    lines.push(report("syscalls", "perf_event_open", perf));
    // SAFETY: userfaultfd(UFFD_USER_MODE_ONLY | O_CLOEXEC) returns a descriptor or -1; it is closed at once.
    let userfault = outcome(unsafe { libc::syscall(libc::SYS_userfaultfd, 1 | libc::O_CLOEXEC) });
    if let Ok(fd) = userfault {
        // SAFETY: the descriptor just made.
        unsafe { libc::close(fd as libc::c_int) };
    }
    lines.push(report("syscalls", "userfaultfd", userfault));
    // SAFETY: kexec_load with invalid flags: EINVAL after the privilege check, nothing loaded or unloaded.
    let kexec = outcome(unsafe { libc::syscall(libc::SYS_kexec_load, 0usize, 0usize, 0usize, u64::MAX) });
    lines.push(report("syscalls", "kexec_load", kexec));
    // SAFETY: init_module with a null image of length 0: nothing is read.
    let module = outcome(unsafe { libc::syscall(libc::SYS_init_module, 0usize, 0usize, c"".as_ptr()) });
    lines.push(report("syscalls", "init_module", module));
    // SAFETY: swapon with a null path: EFAULT or EPERM, nothing is swapped.
    lines.push(report("syscalls", "swapon", outcome(unsafe { libc::syscall(libc::SYS_swapon, 0usize, 0) })));
    // SAFETY: reboot with wrong magic numbers: EINVAL after the privilege check, nothing happens.
    lines.push(report("syscalls", "reboot", outcome(unsafe { libc::syscall(libc::SYS_reboot, 0, 0, 0, 0usize) })));
    // SAFETY: memfd_create reads the NUL-terminated name; the descriptor is closed at once.
    let memfd = outcome(unsafe { libc::syscall(libc::SYS_memfd_create, c"metewand".as_ptr(), libc::MFD_CLOEXEC) });
    if let Ok(fd) = memfd {
        // SAFETY: the descriptor just made.
        unsafe { libc::close(fd as libc::c_int) };
    }
    lines.push(report("syscalls", "memfd_create", memfd));
    lines
}
