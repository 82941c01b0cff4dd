//! Starting a worker's process: a child on a stack of its own in the caller's memory, as `posix_spawn` starts one
//! (`clone3` with `CLONE_VM | CLONE_VFORK`), straight into the worker's cgroup (`CLONE_INTO_CGROUP`) where the
//! kernel takes it; otherwise (a child that stays behind as the worker's supervisor, another architecture) a fork,
//! and a child that joins the cgroup itself where the kernel did not put it there. A supervisor starts its worker
//! the same way in its own memory, the copy nobody else uses ([`start_supervised`]). Then its standard streams put in
//! place, its working folder, every signal handler back to its default and its signal mask emptied, what
//! [`worker_pre_exec`] sets up, and `execve`. Whatever fails in the child before its `exec` (or the `exec` itself)
//! comes back to the caller as that error, through a close-on-exec pipe that reads as empty once the exec is done.
//!
//! A child forked into its cgroup is counted there from its first instruction: it never writes `cgroup.procs`,
//! whose migration waits for an RCU grace period, and it never runs a moment outside its limits.
//!
//! A child in the caller's memory costs what its stack does: a fork copies the orchestrator's page tables, marks
//! every page copy-on-write for both sides, and the child's `exec` takes them all down again, a cost that grows
//! with the orchestrator's memory (a campaign's plan). Such a child must leave that memory as it found it: it
//! allocates and frees nothing, writes only its own stack and the few fields of the plan made for it, runs no
//! signal handler of the orchestrator's (every signal is blocked from before the clone until the child has put
//! every handler back to its default), and never makes itself dumpable (dumpability belongs to the memory, and a
//! dumpable child of the worker's identity would open the orchestrator's to any process of that identity): the
//! late user namespace it enters is made ahead, its maps written from outside (`PreparedUserNamespace`).

use std::collections::BTreeMap;
use std::ffi::{CString, OsStr, OsString, c_char};
use std::io::{self, Read};
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::child::{ChildSetup, supervise, the_workers_own, worker_pre_exec};
use super::{SignalsBlocked, check, exit_now, raw_fork, wait_blocking};
use crate::view::ViewPlan;

/// The folders `execvp` searches when the environment has no `PATH`, as glibc's does (`_CS_PATH`).
const DEFAULT_PATH: &[u8] = b"/bin:/usr/bin";

/// The shell a file the kernel cannot execute (no `#!` line, `ENOEXEC`) is given to, as `execvp` does.
const SHELL: &std::ffi::CStr = c"/bin/sh";

/// A worker's program, arguments, environment and working folder, made ready in the parent so that the forked
/// child only makes system calls.
pub(crate) struct Exec {
    /// The paths tried in turn: the program itself when its name holds a `/`, otherwise its name in each folder of
    /// the worker's `PATH` (an empty entry is the working folder), as `execvp` with that environment would.
    candidates: Vec<CString>,
    argv: Vec<CString>,
    envp: Vec<CString>,
    working_dir: CString,
}

impl Exec {
    /// The command `program` with `argv[0]` `arg0`, then `args`, run in `working_dir` with exactly `environment`;
    /// an `InvalidInput` error when any of them holds a NUL byte.
    pub(crate) fn new(
        program: &OsStr,
        arg0: &OsStr,
        args: &[OsString],
        environment: &BTreeMap<OsString, OsString>,
        working_dir: &Path,
    ) -> io::Result<Exec> {
        let name = program.as_bytes();
        let candidates = if name.contains(&b'/') {
            vec![c_string(name.to_vec())?]
        } else if name.is_empty() {
            Vec::new()
        } else {
            let path = environment.get(OsStr::new("PATH")).map_or(DEFAULT_PATH, |path| path.as_bytes());
            path.split(|&byte| byte == b':')
                .map(|folder| match folder {
                    [] => c_string(name.to_vec()),
                    folder => c_string([folder, b"/", name].concat()),
                })
                .collect::<io::Result<_>>()?
        };
        let argv = std::iter::once(arg0)
            .chain(args.iter().map(OsString::as_os_str))
            .map(|word| c_string(word.as_bytes().to_vec()))
            .collect::<io::Result<_>>()?;
        let envp = environment
            .iter()
            .map(|(name, value)| c_string([name.as_bytes(), b"=", value.as_bytes()].concat()))
            .collect::<io::Result<_>>()?;
        Ok(Exec { candidates, argv, envp, working_dir: c_string(working_dir.as_os_str().as_bytes().to_vec())? })
    }
}

fn c_string(bytes: Vec<u8>) -> io::Result<CString> {
    CString::new(bytes)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a worker's command or environment holds a NUL byte"))
}

/// A started worker process: its pid, and the orchestrator's ends of its three standard streams.
pub(crate) struct Started {
    pub(crate) pid: i32,
    pub(crate) stdin: OwnedFd,
    pub(crate) stdout: OwnedFd,
    pub(crate) stderr: OwnedFd,
}

/// The child's ends of its standard streams and of the error pipe, and the pointer arrays `execve` takes, all made
/// before the fork.
struct ChildPlan<'a> {
    streams: [RawFd; 3],
    error: RawFd,
    exec: &'a Exec,
    argv: Vec<*const c_char>,
    /// `argv` for the shell, should a candidate be a script without `#!`: the shell, the candidate (filled in by
    /// the child), then the arguments after `argv[0]`.
    script: Vec<*const c_char>,
    envp: Vec<*const c_char>,
    /// On the user-namespace route, the stack (lowest address, size) its supervisor starts the worker on
    /// ([`start_supervised`]), mapped before the child is forked: the supervisor's copy of it is there before any
    /// limit on its address space.
    worker_stack: Option<(u64, u64)>,
}

// `libc::CLONE_INTO_CGROUP` is a `c_int` too narrow for it (deprecated as such), while `clone_args.flags` is 64-bit.
const CLONE_INTO_CGROUP: u64 = 0x2_0000_0000;

/// Starts the worker's process with its streams piped, in this process's memory where it can (see the module
/// documentation), otherwise by a fork: into the cgroup whose folder `cgroup` is open (the caller keeps it open
/// until this returns) where the kernel takes it (the child then skips [`ChildSetup::cgroup_procs`]), otherwise
/// with the child joining it as `setup` says; the child runs [`worker_pre_exec`] with `setup` and `view`, then
/// executes `exec`.
///
/// Returns once the worker has executed its program, or with the error of whatever failed before.
pub(crate) fn spawn(
    exec: &Exec,
    cgroup: Option<RawFd>,
    setup: ChildSetup,
    mut view: Option<ViewPlan>,
) -> io::Result<Started> {
    let (stdin_read, stdin) = pipe()?;
    let (stdout, stdout_write) = pipe()?;
    let (stderr, stderr_write) = pipe()?;
    let (mut error_read, error_write) = io::pipe()?;
    let error_write = OwnedFd::from(error_write);
    let pointers = |words: &[CString]| -> Vec<*const c_char> {
        words.iter().map(|word| word.as_ptr()).chain(std::iter::once(std::ptr::null())).collect()
    };
    let argv = pointers(&exec.argv);
    let script = [SHELL.as_ptr(), std::ptr::null()].into_iter().chain(argv.iter().skip(1).copied()).collect();
    let worker_stack = match setup.user_namespace {
        Some(_) if cfg!(target_arch = "x86_64") => ChildStack::new().ok(),
        _ => None,
    };
    let mut plan = ChildPlan {
        streams: [stdin_read.as_raw_fd(), stdout_write.as_raw_fd(), stderr_write.as_raw_fd()],
        error: error_write.as_raw_fd(),
        exec,
        argv,
        script,
        envp: pointers(&exec.envp),
        worker_stack: worker_stack.as_ref().map(ChildStack::range),
    };
    // Blocked until the child has put every handler back to its default (`child_main`), and here again once the
    // clone has returned: a signal the child took before would run the orchestrator's handler.
    let mask = SignalsBlocked::now()?;
    // A child that stays behind as the supervisor never executes anything: it cannot keep the caller waiting.
    let shared = match setup.user_namespace {
        None => clone_sharing(&mut plan, setup, view.as_mut(), cgroup),
        Some(_) => None,
    };
    let pid = match shared {
        Some(pid) => pid?,
        None => {
            let (pid, joined) = match cgroup.map(clone_into) {
                Some(Ok(pid)) => (pid, true),
                // Refused (a kernel before 5.7, a folder that is no cgroup, a migration not allowed): forked as
                // before, the child joins.
                Some(Err(_)) | None => (raw_fork(0)?, false),
            };
            if pid == 0 {
                child_main(&mut plan, setup, view.as_mut(), joined);
            }
            pid
        }
    };
    drop(mask);
    drop((stdin_read, stdout_write, stderr_write, error_write));
    let mut code = [0u8; 4];
    let mut read = 0;
    while read < code.len() {
        match error_read.read(&mut code[read..]) {
            Ok(0) => break,
            Ok(count) => read += count,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    if read == 0 {
        return Ok(Started { pid, stdin, stdout, stderr });
    }
    // The child has written its error and exits: reaped here, it is never anyone's worker.
    let _ = wait_blocking(pid);
    if read < code.len() {
        return Err(io::Error::other("the worker's process ended before its exec without saying why"));
    }
    Err(io::Error::from_raw_os_error(i32::from_ne_bytes(code)))
}

/// The child's whole life: the cgroup join skipped where it was forked there (`joined`), the orchestrator's signal
/// handlers put back to their defaults, [`run_child`], and, should that return, its error written into the error
/// pipe and the child's end. It returns nothing and frees nothing: in the caller's memory, the caller's values
/// stay the caller's.
fn child_main(plan: &mut ChildPlan<'_>, setup: ChildSetup, view: Option<&mut ViewPlan>, joined: bool) -> ! {
    default_signal_handlers();
    let setup = ChildSetup { cgroup_procs: setup.cgroup_procs.filter(|_| !joined), ..setup };
    let error = run_child(plan, setup, view);
    give_up(plan, &error)
}

/// Every signal the orchestrator handles back to its default disposition, in the child, while every signal is
/// still blocked: a handler of the orchestrator's (`metewand`'s cancel flag) must not run in the worker's process,
/// least of all in the orchestrator's memory. Ignored signals stay ignored, as across `exec`.
fn default_signal_handlers() {
    // Linux's signals are numbered 1 to 64; glibc refuses the two it keeps for itself, which it never hands out.
    for signal in 1..=64 {
        if signal == libc::SIGKILL || signal == libc::SIGSTOP {
            continue;
        }
        // SAFETY: an all-zero sigaction is a valid value of that plain C struct; sigaction with a null new action
        // only writes the current one into it.
        let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
        // SAFETY: as above.
        if unsafe { libc::sigaction(signal, std::ptr::null(), &mut action) } < 0 {
            continue;
        }
        if action.sa_sigaction != libc::SIG_DFL && action.sa_sigaction != libc::SIG_IGN {
            // SAFETY: the default disposition installs no handler.
            unsafe { libc::signal(signal, libc::SIG_DFL) };
        }
    }
}

/// What a child in the caller's memory is handed, on the caller's stack (which waits, untouched, until the child
/// has executed its program or exited).
struct ChildStart<'a, 'e> {
    plan: &'a mut ChildPlan<'e>,
    setup: ChildSetup,
    view: Option<&'a mut ViewPlan>,
    joined: bool,
}

/// The bytes of a child's own stack: what its setup needs (a few kilobytes of frames), with room to spare. Only
/// the pages it touches are ever given memory.
const CHILD_STACK_BYTES: usize = 256 * 1024;

/// A child's stack, mapped for one spawn, with a page below it that faults (the child dies, the spawn fails)
/// rather than run into other memory.
struct ChildStack {
    base: *mut libc::c_void,
    guard: usize,
    len: usize,
}

impl ChildStack {
    fn new() -> io::Result<ChildStack> {
        // SAFETY: sysconf takes a name and reads nothing.
        let guard = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096).max(4096);
        let len = CHILD_STACK_BYTES + guard;
        let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK | libc::MAP_NORESERVE;
        // SAFETY: an anonymous private mapping at an address of the kernel's choosing touches no existing memory.
        let base = unsafe { libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ | libc::PROT_WRITE, flags, -1, 0) };
        if base == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let stack = ChildStack { base, guard, len };
        // SAFETY: the first page of the mapping made above becomes inaccessible.
        check(unsafe { libc::mprotect(base, guard, libc::PROT_NONE) })?;
        Ok(stack)
    }
}

impl ChildStack {
    /// What `clone3` is given: the stack's lowest address (above the guard page) and its size.
    fn range(&self) -> (u64, u64) {
        (self.base as u64 + self.guard as u64, CHILD_STACK_BYTES as u64)
    }
}

impl Drop for ChildStack {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, which no child uses any more (the caller resumed only once it had
        // executed or exited).
        unsafe { libc::munmap(self.base, self.len) };
    }
}

/// Starts the child in the caller's memory on a stack of its own (`CLONE_VM | CLONE_VFORK`), into the cgroup whose
/// folder `cgroup` is open where the kernel takes it, otherwise with the child joining it (as `setup` says); the
/// caller's thread resumes once the child has executed its program or exited. `None` where no such child can be
/// started here (another architecture, a kernel without `clone3`): the caller then forks.
fn clone_sharing(
    plan: &mut ChildPlan<'_>,
    setup: ChildSetup,
    view: Option<&mut ViewPlan>,
    cgroup: Option<RawFd>,
) -> Option<io::Result<i32>> {
    // A late user namespace not made ahead would have the child write its own maps, dumpable: it is forked.
    if setup.late_user_namespace.is_some() && setup.late_namespace.is_none() {
        return None;
    }
    let mut start = ChildStart { plan, setup, view, joined: cgroup.is_some() };
    let mut result = clone_on_own_stack(0, cgroup, std::ptr::from_mut(&mut start).cast(), child_entry);
    if result.is_err() && cgroup.is_some() {
        // Refused into the cgroup (a kernel before 5.7, a folder that is no cgroup, a migration not allowed): the
        // child joins it itself.
        start.joined = false;
        result = clone_on_own_stack(0, None, std::ptr::from_mut(&mut start).cast(), child_entry);
    }
    unless_unsupported(result)
}

/// A child started with `flags` in this memory (`CLONE_VM | CLONE_VFORK`), into the cgroup whose folder `cgroup` is
/// open where one is given, on a stack mapped for it, where it calls `entry` with `data`: its pid, once it has
/// executed or exited (the stack is unmapped then). `ENOSYS` where no such child can be started here (another
/// architecture, a kernel without `clone3`).
fn clone_on_own_stack(flags: u64, cgroup: Option<RawFd>, data: *mut libc::c_void, entry: Entry) -> io::Result<i32> {
    if !cfg!(target_arch = "x86_64") {
        return Err(io::Error::from_raw_os_error(libc::ENOSYS));
    }
    let stack = ChildStack::new()?;
    let flags = flags | (libc::CLONE_VM | libc::CLONE_VFORK) as u64 | cgroup.map_or(0, |_| CLONE_INTO_CGROUP);
    clone3_on_stack(&super::clone_args(flags, stack.range(), cgroup.unwrap_or(0) as u64), data, entry)
}

/// `None` for a start [`clone_on_own_stack`] cannot make here (the caller then forks), otherwise its outcome.
fn unless_unsupported(started: io::Result<i32>) -> Option<io::Result<i32>> {
    match started {
        Err(error) if error.raw_os_error() == Some(libc::ENOSYS) => None,
        started => Some(started),
    }
}

/// The function a child started on a stack of its own begins in, handed its [`ChildStart`]; it never returns.
type Entry = extern "C" fn(*mut libc::c_void) -> !;

/// `clone3` with `args`, whose child calls `entry` with `data` on the stack `args` names: the child's pid in the
/// caller, which resumes once the child has executed or exited.
#[cfg(target_arch = "x86_64")]
fn clone3_on_stack(args: &libc::clone_args, data: *mut libc::c_void, entry: Entry) -> io::Result<i32> {
    let result: i64;
    // SAFETY: clone3 reads `args` (of the size passed), whose flags share this memory with the child and stop this
    // thread until the child has executed or exited (CLONE_VFORK), so that `data` and everything it points to stay
    // where they are and unchanged by this thread meanwhile. The child returns from the system call on the stack
    // `args` names (the kernel sets rsp to its top, 16-byte aligned), and goes straight into `entry` (kept in r13),
    // which never returns, with `data` (kept in r12; the kernel leaves both as they were); it uses nothing of this
    // thread's stack. In the caller, the system call clobbers rcx and r11 only.
    unsafe {
        std::arch::asm!(
            "syscall",
            "test rax, rax",
            "jnz 2f",
            "xor ebp, ebp",
            "mov rdi, r12",
            "call r13",
            "ud2",
            "2:",
            inlateout("rax") libc::SYS_clone3 => result,
            in("rdi") std::ptr::from_ref(args),
            in("rsi") size_of::<libc::clone_args>(),
            in("r12") data,
            in("r13") entry,
            lateout("rcx") _,
            lateout("r11") _,
            options(nostack),
        );
    }
    super::cloned(result)
}

#[cfg(not(target_arch = "x86_64"))]
fn clone3_on_stack(_: &libc::clone_args, _: *mut libc::c_void, _: Entry) -> io::Result<i32> {
    Err(io::Error::from_raw_os_error(libc::ENOSYS))
}

/// Runs `task` in a child of this process, in its memory on a stack of its own (`CLONE_VM | CLONE_VFORK`), every
/// signal blocked, and ends the child with `task`'s exit code: the child's wait status, once it has ended. A task
/// so run may enter namespaces of its own (a user namespace too, which no thread of this process may), but must
/// allocate nothing (a lock of the allocator it held when it ended would stay held here) and leave this memory as
/// it found it. `None` where no such child can be started here (another architecture, a kernel without `clone3`):
/// the caller then forks.
pub(super) fn run_sharing(task: &mut dyn FnMut() -> i32) -> Option<io::Result<i32>> {
    let blocked = match SignalsBlocked::now() {
        Ok(blocked) => blocked,
        Err(error) => return Some(Err(error)),
    };
    let mut task = task;
    let child = clone_on_own_stack(0, None, std::ptr::from_mut(&mut task).cast(), task_entry);
    drop(blocked);
    unless_unsupported(child).map(|child| child.and_then(wait_blocking))
}

/// Where a child of [`run_sharing`] begins: its task, then its end with the task's code.
extern "C" fn task_entry(task: *mut libc::c_void) -> ! {
    // SAFETY: `run_sharing` passes a pointer to its `&mut dyn FnMut`, which lives, unchanged by its caller (stopped
    // until this child has exited), until then.
    let task = unsafe { &mut *task.cast::<&mut dyn FnMut() -> i32>() };
    exit_now(task())
}

/// Where a child in the caller's memory starts, on its own stack; `start` is the caller's [`ChildStart`].
extern "C" fn child_entry(start: *mut libc::c_void) -> ! {
    // SAFETY: `clone3_on_stack` passes a pointer to its caller's `ChildStart`, which lives, unchanged by anyone
    // else, until this child has executed or exited.
    let start = unsafe { &mut *start.cast::<ChildStart<'_, '_>>() };
    child_main(start.plan, start.setup, start.view.as_deref_mut(), start.joined)
}

/// A close-on-exec pipe (reading end, writing end), both above the standard streams' numbers, so that putting one
/// end in place as a stream never overwrites another.
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let (read, write) = io::pipe()?;
    let above = |fd: OwnedFd| if fd.as_raw_fd() < 3 { fd.try_clone() } else { Ok(fd) };
    Ok((above(read.into())?, above(write.into())?))
}

/// `clone3` into the cgroup whose folder `cgroup` is open: 0 in the child, the child's pid in the caller.
fn clone_into(cgroup: RawFd) -> io::Result<i32> {
    let args = super::clone_args(CLONE_INTO_CGROUP, (0, 0), cgroup as u64);
    // SAFETY: without CLONE_VM and with no stack, clone3 gives the child a copy of the caller's address space and
    // stack, as fork does; it reads the local `args` of the size passed. The child makes only async-signal-safe
    // system calls (`run_child`) and ends by exec or `_exit`.
    let pid = unsafe { libc::syscall(libc::SYS_clone3, &args, size_of::<libc::clone_args>()) };
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(pid as i32)
}

/// In the child: the streams, the working folder and the signals, then [`worker_pre_exec`] (on the user-namespace
/// route, the worker started by [`start_supervised`]), then the exec; returns only the error that stopped it.
fn run_child(plan: &mut ChildPlan<'_>, setup: ChildSetup, view: Option<&mut ViewPlan>) -> io::Error {
    let prepared = prepare_child(plan)
        .and_then(|()| worker_pre_exec(setup, view, |view| start_supervised(&mut *plan, setup, view)));
    match prepared {
        Ok(()) => execute(plan),
        Err(error) => error,
    }
}

/// On the user-namespace route, in the child that stays behind as the supervisor: the worker started into its
/// new PID namespace, then supervised (this never returns). The worker runs in this child's memory (its own copy
/// of the orchestrator's, which nobody else uses) on a stack of its own until its `exec`, so that its start copies
/// nothing again ([`worker_entry`]); where that cannot be done it is forked, and returns here, in the worker only.
fn start_supervised(plan: &mut ChildPlan<'_>, setup: ChildSetup, view: Option<&mut ViewPlan>) -> io::Result<()> {
    let flags = setup.namespaces.worker_clone_flags();
    if let Some(stack) = plan.worker_stack {
        let mut start = ChildStart { plan: &mut *plan, setup, view, joined: true };
        let args = super::clone_args((libc::CLONE_VM | libc::CLONE_VFORK | flags) as u64, stack, 0);
        match clone3_on_stack(&args, std::ptr::from_mut(&mut start).cast(), worker_entry) {
            // The worker has executed its program, or exited.
            Ok(worker) => supervise(worker),
            Err(error) if error.raw_os_error() != Some(libc::ENOSYS) => return Err(error),
            Err(_) => {}
        }
    }
    let worker = raw_fork(flags)?;
    if worker > 0 {
        supervise(worker);
    }
    Ok(())
}

/// Where a supervised worker started in its supervisor's memory begins, on its own stack: its own part of the
/// setup, then the exec; should either fail, the error written into the error pipe and the worker's end.
extern "C" fn worker_entry(start: *mut libc::c_void) -> ! {
    // SAFETY: `start_supervised` passes a pointer to its `ChildStart`, which lives, unchanged by its supervisor
    // (stopped until this worker has executed or exited), until then.
    let start = unsafe { &mut *start.cast::<ChildStart<'_, '_>>() };
    let error = match the_workers_own(start.setup, start.view.as_deref_mut()) {
        Ok(()) => execute(start.plan),
        Err(error) => error,
    };
    give_up(start.plan, &error)
}

/// Writes `error` into the error pipe, which the parent reads, and ends the calling child.
fn give_up(plan: &ChildPlan<'_>, error: &io::Error) -> ! {
    let code = error.raw_os_error().unwrap_or(libc::EINVAL).to_ne_bytes();
    // SAFETY: write reads the four bytes of a local array into the error pipe, which the parent reads.
    unsafe { libc::write(plan.error, code.as_ptr().cast(), code.len()) };
    exit_now(127)
}

fn prepare_child(plan: &ChildPlan<'_>) -> io::Result<()> {
    for (target, fd) in plan.streams.into_iter().enumerate() {
        // The pipes are above 2, so each `dup2` makes a new descriptor, without close-on-exec.
        // SAFETY: dup2 duplicates a descriptor the parent keeps open onto 0, 1 or 2 of this process.
        while unsafe { libc::dup2(fd, target as libc::c_int) } < 0 {
            if io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
                return Err(io::Error::last_os_error());
            }
        }
    }
    // SAFETY: chdir reads a NUL-terminated path made before the fork.
    check(unsafe { libc::chdir(plan.exec.working_dir.as_ptr()) })?;
    // The worker starts with nothing blocked, and with `SIGPIPE` back to its default (the orchestrator's runtime
    // ignores it, and an ignored signal stays ignored across exec).
    // SAFETY: an empty set is written into a local sigset_t, then installed as this thread's mask.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        check(libc::sigprocmask(libc::SIG_SETMASK, &set, std::ptr::null_mut()))?;
        if libc::signal(libc::SIGPIPE, libc::SIG_DFL) == libc::SIG_ERR {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Executes each candidate in turn as `execvp` does: a folder where the program is not found (or is not allowed)
/// is passed over, a file without `#!` is given to the shell, and any other failure ends the search; the error is
/// the last one, or `EACCES` where a candidate was found but not allowed.
fn execute(plan: &mut ChildPlan<'_>) -> io::Error {
    let mut refused = false;
    let mut last = libc::ENOENT;
    for candidate in &plan.exec.candidates {
        // SAFETY: execve reads the NUL-terminated path and the null-terminated pointer arrays made before the
        // fork, whose strings `plan.exec` keeps; it returns only on failure.
        unsafe { libc::execve(candidate.as_ptr(), plan.argv.as_ptr(), plan.envp.as_ptr()) };
        last = io::Error::last_os_error().raw_os_error().unwrap_or(libc::EINVAL);
        if last == libc::ENOEXEC {
            plan.script[1] = candidate.as_ptr();
            // SAFETY: as above, with the shell's argument array, whose second slot now names the candidate.
            unsafe { libc::execve(SHELL.as_ptr(), plan.script.as_ptr(), plan.envp.as_ptr()) };
            last = io::Error::last_os_error().raw_os_error().unwrap_or(libc::EINVAL);
        }
        match last {
            libc::EACCES => refused = true,
            libc::ENOENT | libc::ENOTDIR | libc::ESTALE | libc::ENODEV | libc::ETIMEDOUT => {}
            _ => return io::Error::from_raw_os_error(last),
        }
    }
    io::Error::from_raw_os_error(if refused { libc::EACCES } else { last })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods, reason = "the tests make and read their own files in temporary folders")]

    use std::fs::{self, File};
    use std::os::fd::AsRawFd;
    use std::sync::atomic::Ordering;

    use super::*;
    use crate::sys::Namespaces;

    /// Nothing but the cgroup join `procs` (a plain file standing in for a `cgroup.procs`).
    fn setup(procs: Option<RawFd>) -> ChildSetup {
        ChildSetup {
            ruleset: None,
            file_size: None,
            address_space: None,
            cpu_seconds: None,
            nproc: None,
            pid_max: None,
            user_namespace: None,
            namespaces: Namespaces::default(),
            late_user_namespace: None,
            confined: false,
            filter: None,
            cgroup_procs: procs,
            ipc_limits: None,
            identity: None,
            late_namespace: None,
        }
    }

    fn exec(program: &str, args: &[&str], dir: &Path) -> Exec {
        let environment = BTreeMap::from([
            (OsString::from("PATH"), OsString::from("/nowhere:/usr/bin:/bin")),
            (OsString::from("GREETING"), OsString::from("hello")),
        ]);
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        Exec::new(OsStr::new(program), OsStr::new(program), &args, &environment, dir).unwrap()
    }

    /// What the started process wrote on stdout and stderr, once it has ended (it is reaped).
    fn output(started: Started) -> (String, String) {
        drop(started.stdin);
        let read = |fd: OwnedFd| {
            let mut text = String::new();
            File::from(fd).read_to_string(&mut text).unwrap();
            text
        };
        let streams = (read(started.stdout), read(started.stderr));
        wait_blocking(started.pid).unwrap();
        streams
    }

    #[test]
    fn a_folder_the_kernel_cannot_fork_into_falls_back_to_the_childs_own_join() {
        let dir = tempfile::tempdir().unwrap();
        let procs = File::create(dir.path().join("cgroup.procs")).unwrap();
        // A plain folder is no cgroup: `clone3` refuses it, and the child writes `0` into `procs` itself.
        let folder = File::open(dir.path()).unwrap();
        let script = "echo $GREETING; pwd; echo err >&2";
        let started = spawn(
            &exec("sh", &["-c", script], dir.path()),
            Some(folder.as_raw_fd()),
            setup(Some(procs.as_raw_fd())),
            None,
        )
        .unwrap();
        let (stdout, stderr) = output(started);
        let here = dir.path().canonicalize().unwrap();
        assert_eq!(stdout, format!("hello\n{}\n", here.display()));
        assert_eq!(stderr, "err\n");
        assert_eq!(fs::read_to_string(dir.path().join("cgroup.procs")).unwrap(), "0");
    }

    /// The signals blocked on the calling thread, as a set a test can compare.
    fn blocked_now() -> Vec<i32> {
        // SAFETY: an all-zero sigset_t is valid; pthread_sigmask with a null new set only writes the current one.
        let mut set: libc::sigset_t = unsafe { std::mem::zeroed() };
        // SAFETY: as above.
        unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, std::ptr::null(), &mut set) };
        // SAFETY: sigismember reads the local set.
        (1..=64).filter(|&signal| unsafe { libc::sigismember(&set, signal) } == 1).collect()
    }

    #[test]
    fn the_callers_signal_mask_is_given_back_and_the_worker_starts_with_nothing_blocked() {
        let dir = tempfile::tempdir().unwrap();
        // SAFETY: the local set holds SIGUSR1 alone, which this test's thread blocks.
        unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, libc::SIGUSR1);
            libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        }
        let before = blocked_now();
        assert!(before.contains(&libc::SIGUSR1));
        let script = "grep SigBlk /proc/self/status";
        let started = spawn(&exec("sh", &["-c", script], dir.path()), None, setup(None), None).unwrap();
        assert_eq!(output(started).0, "SigBlk:\t0000000000000000\n");
        assert_eq!(blocked_now(), before);
    }

    #[test]
    fn workers_started_side_by_side_while_the_caller_allocates_all_run_and_leave_its_memory_whole() {
        let dir = tempfile::tempdir().unwrap();
        let stop = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|scope| {
            // Allocation and freeing all the while, on threads the children's memory is shared with.
            let churn = (0..2)
                .map(|seed: u64| {
                    let stop = &stop;
                    scope.spawn(move || {
                        let mut kept: Vec<Vec<u64>> = Vec::new();
                        let mut round = seed;
                        while !stop.load(Ordering::Relaxed) {
                            round += 1;
                            kept.push(vec![round; 1 + round as usize % 512]);
                            if kept.len() > 64 {
                                let sum: u64 = kept.drain(..32).map(|block| block[0]).sum();
                                assert!(sum > 0);
                            }
                        }
                    })
                })
                .collect::<Vec<_>>();
            let starters = (0..3)
                .map(|_| {
                    scope.spawn(|| {
                        for _ in 0..40 {
                            let command = exec("sh", &["-c", "echo $GREETING"], dir.path());
                            let started = spawn(&command, None, setup(None), None).unwrap();
                            assert_eq!(output(started).0, "hello\n");
                        }
                    })
                })
                .collect::<Vec<_>>();
            for starter in starters {
                starter.join().unwrap();
            }
            stop.store(true, Ordering::Relaxed);
            for thread in churn {
                thread.join().unwrap();
            }
        });
    }

    #[test]
    fn a_program_found_nowhere_on_path_is_not_found_and_a_script_without_a_shebang_runs_in_the_shell() {
        let dir = tempfile::tempdir().unwrap();
        let missing = spawn(&exec("metewand-no-such-program", &[], dir.path()), None, setup(None), None);
        assert_eq!(missing.err().map(|error| error.kind()), Some(io::ErrorKind::NotFound));
        let script = dir.path().join("plain");
        fs::write(&script, "echo \"$0 $1\"\n").unwrap();
        fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        let started = spawn(&exec(script.to_str().unwrap(), &["one"], dir.path()), None, setup(None), None).unwrap();
        assert_eq!(output(started).0, format!("{} one\n", script.display()));
    }
}
