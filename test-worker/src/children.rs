//! The processes the faults and attacks start (`test-worker child`, `test-worker chain`), each recording itself in
//! a pid file with its start time, so that a test can tell whether that very process is gone.

use std::io;
use std::path::{Path, PathBuf};
use std::process::{self, Command, Stdio};
use std::time::{Duration, Instant};
use std::{env, fs, thread};

use super::{Options, sleep_forever, usage};

/// `test-worker chain --pid-dir DIR [--pause-ms N]`: forks, and the parent exits at once (or after N ms),
/// forever; every child first leaves its session with `setsid` and records itself as `DIR/<pid>` (`PID START`), so
/// a test can tell whether any generation survived.
pub(super) fn chain(args: &[String]) -> ! {
    let (dir, pause) = match args {
        [flag, dir] if flag == "--pid-dir" => (PathBuf::from(dir), None),
        [flag, dir, pause_flag, millis] if flag == "--pid-dir" && pause_flag == "--pause-ms" => {
            let millis = millis.parse().unwrap_or_else(|_| usage("--pause-ms takes milliseconds"));
            (PathBuf::from(dir), Some(Duration::from_millis(millis)))
        }
        _ => usage("chain takes --pid-dir DIR [--pause-ms N]"),
    };
    let mut generation: u64 = 0;
    loop {
        if let Some(pause) = pause {
            thread::sleep(pause);
        }
        // SAFETY: this process is single-threaded; the child only makes system calls and file writes below.
        let pid = unsafe { libc::fork() };
        if pid != 0 {
            // SAFETY: _exit ends this process at once, as the chain's parent must.
            unsafe { libc::_exit(0) };
        }
        // SAFETY: setsid takes no arguments; a forked child is never a group leader.
        unsafe { libc::setsid() };
        generation += 1;
        let (me, start) = own_pid_and_start();
        let _ = fs::write(dir.join(me.to_string()), format!("{me} {start}\n"));
        if generation == 3 {
            let _ = fs::write(dir.join("chain-started"), "");
        }
    }
}

/// This process's pid as the machine's `/proc` names it (not the pid inside a PID namespace) and its start time.
fn own_pid_and_start() -> (u32, String) {
    let me = fs::read_link("/proc/self")
        .ok()
        .and_then(|link| link.to_str().and_then(|text| text.parse().ok()))
        .unwrap_or_else(process::id);
    let stat = fs::read_to_string(format!("/proc/{me}/stat")).expect("/proc is mounted");
    let start = stat.rsplit_once(')').and_then(|(_, tail)| tail.split_whitespace().nth(19)).expect("a stat line");
    (me, start.to_owned())
}

#[allow(clippy::zombie_processes, reason = "the child outlives this process unless it is the double fork's middle")]
/// Starts `test-worker child`, writing its pid file as `<name>.pid` in the pid directory, and waits until it is
/// ready (for a double fork: until the intermediate child has exited).
pub(super) fn spawn_child(options: &Options, name: &str, flags: &[&str], hold_stdout: bool) {
    // Without --pid-dir, the worker's TMPDIR: the one folder besides its output a confined worker may write.
    let tmpdir = env::var_os("TMPDIR").map(PathBuf::from);
    let dir = options
        .pid_dir
        .as_deref()
        .or(tmpdir.as_deref())
        .unwrap_or_else(|| usage("faults that start processes need --pid-dir or a TMPDIR"));
    let pid_file = dir.join(format!("{name}.pid"));
    let mut command = Command::new(env::current_exe().expect("the test worker knows its path"));
    command.arg("child").arg("--pid-file").arg(&pid_file).args(flags);
    if flags.contains(&"--setsid") {
        command.arg("--child-pid-file").arg(dir.join(format!("{name}-child.pid")));
    }
    command.stdin(Stdio::null()).stdout(if hold_stdout { Stdio::inherit() } else { Stdio::null() });
    let mut child = command.spawn().expect("the child starts");
    wait_for_file(&pid_file);
    if flags.contains(&"--exit-after-spawn") {
        child.wait().expect("the intermediate child is reaped");
    }
}

pub(super) fn wait_for_file(path: &Path) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !path.exists() {
        assert!(Instant::now() < deadline, "{} did not appear", path.display());
        thread::sleep(Duration::from_millis(1));
    }
}

/// `test-worker child`: optionally leave the session, optionally start a sleeper, write the pid file, then sleep
/// forever or exit.
pub(super) fn child(args: &[String]) -> ! {
    let mut pid_file = None;
    let mut child_pid_file = None;
    let (mut setsid, mut exit_after_spawn) = (false, false);
    let mut args = args.iter();
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--pid-file" => pid_file = args.next().map(PathBuf::from),
            "--child-pid-file" => child_pid_file = args.next().map(PathBuf::from),
            "--setsid" => setsid = true,
            "--exit-after-spawn" => exit_after_spawn = true,
            _ => usage(&format!("unknown child option {flag}")),
        }
    }
    if setsid {
        // SAFETY: setsid takes no arguments; this process is not a group leader (it was just spawned).
        if unsafe { libc::setsid() } < 0 {
            usage(&format!("setsid failed: {}", io::Error::last_os_error()));
        }
    }
    if let Some(child_pid_file) = &child_pid_file {
        let mut command = Command::new(env::current_exe().expect("the test worker knows its path"));
        command.arg("child").arg("--pid-file").arg(child_pid_file).stdin(Stdio::null()).stdout(Stdio::null());
        // The sleeper is never waited for: it outlives this process or dies with it.
        #[allow(clippy::zombie_processes, reason = "the sleeper outlives this process")]
        let _sleeper = command.spawn().expect("the sleeper starts");
        wait_for_file(child_pid_file);
    }
    let pid_file = pid_file.unwrap_or_else(|| usage("child needs --pid-file"));
    let (me, start) = own_pid_and_start();
    let temporary = pid_file.with_extension("tmp");
    fs::write(&temporary, format!("{me} {start}\n")).expect("the pid file is written");
    fs::rename(&temporary, &pid_file).expect("the pid file is renamed");
    if exit_after_spawn {
        process::exit(0);
    }
    sleep_forever();
}

/// Starts `test-worker <helper>` (this worker's arguments after it, so that a test finds the helper by them too) with
/// this worker's stderr, and waits for its first tick to be written (the helper
/// writes it before anything else), so that it runs before the answer.
pub(super) fn spawn_helper(helper: &str) {
    let (reader, writer) = io::pipe().expect("a pipe");
    let mut command = Command::new(env::current_exe().expect("the test worker knows its path"));
    command.arg(helper).args(env::args_os().skip(1)).stdin(Stdio::null()).stdout(writer);
    #[allow(clippy::zombie_processes, reason = "the helper runs for as long as the worker does")]
    command.spawn().expect("the helper starts");
    drop(command);
    // The helper writes one byte on stdout once it ticks.
    let mut byte = [0u8; 1];
    let _ = io::Read::read(&mut &reader, &mut byte);
}

/// Writes the one byte [`spawn_helper`] waits for on stdout, at once (stdout is buffered).
fn tell_started() {
    let mut out = io::stdout();
    let _ = io::Write::write_all(&mut out, b"t").and_then(|()| io::Write::flush(&mut out));
}

/// `test-worker leaderless-ticker`: a thread that ticks every millisecond, then the main thread exits by itself
/// (`exit(2)`, which ends the calling thread only, as `pthread_exit` does without its unwinding): the process goes
/// on in its other thread while `/proc/<pid>/stat` says `Z`.
pub(super) fn leaderless_ticker() -> ! {
    super::write_tick();
    thread::spawn(super::tick);
    tell_started();
    // SAFETY: the exit system call (not exit_group) ends the calling thread only; the ticking thread keeps the
    // process alive. Nothing of this thread's is used after.
    unsafe { libc::syscall(libc::SYS_exit, 0) };
    unreachable!("the exit system call does not return")
}

/// `test-worker vfork-ticker`: a child sharing this process's memory (`clone` with `CLONE_VM | CLONE_VFORK`, on a
/// stack of its own) ticks every millisecond and never execs, so this process stays blocked in the clone for good.
pub(super) fn vfork_ticker() -> ! {
    super::write_tick();
    tell_started();
    let mut stack = vec![0u8; 64 << 10];
    // The stack grows down on every architecture this runs on: its top is its end, 16-byte aligned.
    let top = (stack.as_mut_ptr() as usize + stack.len()) & !15;
    // SAFETY: the child runs `vfork_child` on its own stack, making only system calls; this process is suspended
    // until the child execs or exits, which it never does, so the stack stays valid.
    let pid = unsafe {
        libc::clone(
            vfork_child,
            top as *mut libc::c_void,
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
            std::ptr::null_mut(),
        )
    };
    if pid < 0 {
        usage("the vfork child could not be made");
    }
    // SAFETY: reached only if the child ever exits.
    unsafe { libc::_exit(0) }
}

/// The vfork child's loop: a tick every millisecond on stderr, made of system calls and stack bytes alone.
extern "C" fn vfork_child(_: *mut libc::c_void) -> libc::c_int {
    let pause = libc::timespec { tv_sec: 0, tv_nsec: 1_000_000 };
    loop {
        let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: clock_gettime writes into the local timespec; nanosleep reads the local pause.
        unsafe {
            libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now);
            libc::nanosleep(&pause, std::ptr::null_mut());
        }
        let ns = now.tv_sec as u128 * 1_000_000_000 + now.tv_nsec as u128;
        let mut line = *b"test-worker: tick 000000000000000000000000\n";
        let mut digits = ns;
        for slot in line[18..42].iter_mut().rev() {
            *slot = b'0' + (digits % 10) as u8;
            digits /= 10;
        }
        // SAFETY: write reads the local line.
        unsafe { libc::write(2, line.as_ptr().cast(), line.len()) };
    }
}
