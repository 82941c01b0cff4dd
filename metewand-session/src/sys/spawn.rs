//! Starting a worker's process: a fork straight into the worker's cgroup (`clone3` with `CLONE_INTO_CGROUP`) where
//! the kernel takes it, otherwise a plain fork whose child joins the cgroup itself; then its standard streams put
//! in place, its working folder, its signal mask emptied and `SIGPIPE` back to its default, what
//! [`worker_pre_exec`] sets up, and `execve`. Whatever fails in the child before its `exec` (or the `exec` itself)
//! comes back to the caller as that error, through a close-on-exec pipe that reads as empty once the exec is done.
//!
//! A child forked into its cgroup is counted there from its first instruction: it never writes `cgroup.procs`,
//! whose migration waits for an RCU grace period, and it never runs a moment outside its limits.

use std::collections::BTreeMap;
use std::ffi::{CString, OsStr, OsString, c_char};
use std::io::{self, Read};
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::child::{ChildSetup, worker_pre_exec};
use super::{check, exit_now, raw_fork, wait_blocking};
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
}

// `libc::CLONE_INTO_CGROUP` is a `c_int` too narrow for it (deprecated as such), while `clone_args.flags` is 64-bit.
const CLONE_INTO_CGROUP: u64 = 0x2_0000_0000;

/// Forks the worker's process with its streams piped: into the cgroup whose folder `cgroup` is open (the caller
/// keeps it open until this returns) where the kernel takes it (the child then skips [`ChildSetup::cgroup_procs`]), otherwise by a plain fork whose child
/// joins it as `setup` says; the child runs [`worker_pre_exec`] with `setup` and `view`, then executes `exec`.
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
    let mut plan = ChildPlan {
        streams: [stdin_read.as_raw_fd(), stdout_write.as_raw_fd(), stderr_write.as_raw_fd()],
        error: error_write.as_raw_fd(),
        exec,
        argv,
        script,
        envp: pointers(&exec.envp),
    };
    let (pid, joined) = match cgroup.map(clone_into) {
        Some(Ok(pid)) => (pid, true),
        // Refused (a kernel before 5.7, a folder that is no cgroup, a migration not allowed): forked as before, the
        // child joins.
        Some(Err(_)) | None => (raw_fork(0)?, false),
    };
    if pid == 0 {
        let setup = ChildSetup { cgroup_procs: setup.cgroup_procs.filter(|_| !joined), ..setup };
        let error = run_child(&mut plan, setup, view.as_mut());
        let code = error.raw_os_error().unwrap_or(libc::EINVAL).to_ne_bytes();
        // SAFETY: write reads the four bytes of a local array into the error pipe, which the parent reads.
        unsafe { libc::write(plan.error, code.as_ptr().cast(), code.len()) };
        exit_now(127);
    }
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

/// A close-on-exec pipe (reading end, writing end), both above the standard streams' numbers, so that putting one
/// end in place as a stream never overwrites another.
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let (read, write) = io::pipe()?;
    let above = |fd: OwnedFd| if fd.as_raw_fd() < 3 { fd.try_clone() } else { Ok(fd) };
    Ok((above(read.into())?, above(write.into())?))
}

/// `clone3` into the cgroup whose folder `cgroup` is open: 0 in the child, the child's pid in the caller.
fn clone_into(cgroup: RawFd) -> io::Result<i32> {
    // `clone_args` up to `cgroup`: its second version, 88 bytes, Linux 5.7.
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
        cgroup: cgroup as u64,
    };
    // SAFETY: without CLONE_VM and with no stack, clone3 gives the child a copy of the caller's address space and
    // stack, as fork does; it reads the local `args` of the size passed. The child makes only async-signal-safe
    // system calls (`run_child`) and ends by exec or `_exit`.
    let pid = unsafe { libc::syscall(libc::SYS_clone3, &args, size_of::<libc::clone_args>()) };
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(pid as i32)
}

/// In the forked child: the streams, the working folder and the signals, then [`worker_pre_exec`], then the exec;
/// returns only the error that stopped it.
fn run_child(plan: &mut ChildPlan<'_>, setup: ChildSetup, view: Option<&mut ViewPlan>) -> io::Error {
    match prepare_child(plan, setup, view) {
        Ok(()) => execute(plan),
        Err(error) => error,
    }
}

fn prepare_child(plan: &ChildPlan<'_>, setup: ChildSetup, view: Option<&mut ViewPlan>) -> io::Result<()> {
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
    worker_pre_exec(setup, view)
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
