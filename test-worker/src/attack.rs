//! `--attack NAME@METHOD`: what a hostile worker would try against the orchestrator, its files and its neighbours,
//! each try reported on stderr as `test-worker: attack NAME TARGET: ok` or `errno N`, so that a test reads from
//! the log what the kernel allowed.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;
use std::{env, fs, thread};

use super::children::wait_for_file;
use super::{Options, report, usage};

/// An attack a hostile worker would try; the worker reports each attempt's outcome and goes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Attack {
    /// Create, then overwrite (truncating), each `--target` file.
    Write,
    /// `kill(--target-pid, SIGSTOP)` (then `SIGCONT`, should it have worked).
    StopPid,
    /// Open `/proc/<--target-pid>/fd/1` for writing.
    OpenPidStdout,
    /// A TCP connect to 127.0.0.1:`--target-port`.
    Connect,
    /// Write `--big-bytes` bytes into the first `--target` (or `$TMPDIR/big`).
    BigFile,
    /// Start `test-worker chain` in `--pid-dir`: an endless fork-and-`setsid` chain, each generation exiting at
    /// once (or after `--chain-pause-ms`); answer once it has begun.
    ForkChain,
    /// Report each capability set (`CapInh`, `CapPrm`, `CapEff`, `CapBnd`, `CapAmb` from `/proc/self/status`, `ok`
    /// when it holds anything) and try to set the clock's tick to its current value (`adjtimex`, which needs
    /// `CAP_SYS_TIME`; the same value, so that a success changes nothing).
    Capabilities,
    /// Write into descriptor `--target-fd`, which the orchestrator may have inherited.
    WriteFd,
    /// Send a UDP datagram to 127.0.0.1:`--target-port` and wait up to a second for its echo (`ok` when it came).
    Udp,
    /// Create a System V shared-memory segment and message queue with the key `--target-key`.
    SysV,
    /// Read `/proc/<--target-pid>/environ` and `maps`.
    ReadProc,
    /// Read each `--target` (a file's bytes, or a folder's entries).
    Read,
    /// Connect to each `--target` as a pathname Unix socket.
    UnixConnect,
    /// Add a `user` key named `metewand-test-<--target-key>` to the per-user keyring.
    Keyring,
    /// Search the per-user keyring for that key (`ok` when it is there, as another worker left it).
    KeyringFind,
    /// Map `--big-bytes` of anonymous memory (not touched, so it costs nothing where it is allowed).
    Allocate,
    /// Start `--count` processes that sleep, then kill them (`ok` when every one started).
    Spawn,
    /// Write `--big-bytes` into the first `--target` folder (or `$TMPDIR`) as files of 512 KiB each, a
    /// millisecond apart (`ok` when all of it was written).
    Fill,
    /// Widen this process's CPU affinity to every CPU (`sched_setaffinity`; `ok` when the kernel took it), as a
    /// neighbour's CPU burners would to leave their slot's CPUs.
    Affinity,
    /// The system calls the default filter refuses (`syscalls.rs`): `clone3` into the cgroup folder `--target`,
    /// an io_uring whose threads are bound to CPU `--count`, the keyrings, `bpf` and the rest.
    Syscalls,
    /// Copy this program to the last `--target` and make it setuid and setgid (`chmod 6755`), as a worker run by root
    /// would leave a root shell for any local user.
    Plant,
    /// Hold `--big-bytes` in System V shared memory segments of 16 MiB, each attached, filled and detached in
    /// turn (`ok` when all of it is held), then free them.
    Shm,
    /// Hold `--big-bytes` in memfds of 16 MiB, each filled through a mapping that is then undone (`ok` when all
    /// of it is held), then close them.
    Memfd,
    /// Add a key named `metewand-test-<--target-key>` to the session keyring (`ok` when added).
    SessionKey,
    /// Look for a key named `metewand-test-<--target-key>` in `/proc/keys` (`ok` when listed: a neighbour's key
    /// this worker can see; `ENOKEY` when not).
    FindKey,
    /// Report this worker's network namespace (`/proc/self/ns/net`) and the UDP `NoPorts` count there
    /// (`/proc/net/snmp`) as the target `before NAMESPACE COUNT`, send `--count` datagrams to a port of its own
    /// loopback where nothing listens, each one counted there, and report `after NAMESPACE COUNT`: what a worker
    /// would leave in a network namespace for the next worker in it.
    NetnsMark,
    /// Watch for the inputs the executor shows after this method is answered (a change of this process's mount
    /// table, `/proc/self/mountinfo`, which a shown dataset makes), from a thread started before the answer; the
    /// next request is read only once it reported. `inputs: ok` when the change came while no request was waiting
    /// on stdin: the worker could have worked on its inputs in no request's time. `errno 16` (`EBUSY`) when a
    /// request was waiting, `errno 110` when nothing changed within five seconds.
    GapPeek,
}

impl Attack {
    pub(super) fn parse(name: &str) -> Attack {
        match name {
            "write" => Attack::Write,
            "stop-pid" => Attack::StopPid,
            "open-pid-stdout" => Attack::OpenPidStdout,
            "connect" => Attack::Connect,
            "big-file" => Attack::BigFile,
            "fork-chain" => Attack::ForkChain,
            "capabilities" => Attack::Capabilities,
            "write-fd" => Attack::WriteFd,
            "udp" => Attack::Udp,
            "sysv" => Attack::SysV,
            "read-proc" => Attack::ReadProc,
            "read" => Attack::Read,
            "unix-connect" => Attack::UnixConnect,
            "keyring" => Attack::Keyring,
            "keyring-find" => Attack::KeyringFind,
            "allocate" => Attack::Allocate,
            "spawn" => Attack::Spawn,
            "fill" => Attack::Fill,
            "affinity" => Attack::Affinity,
            "syscalls" => Attack::Syscalls,
            "plant" => Attack::Plant,
            "shm" => Attack::Shm,
            "memfd" => Attack::Memfd,
            "session-key" => Attack::SessionKey,
            "find-key" => Attack::FindKey,
            "netns-mark" => Attack::NetnsMark,
            "gap-peek" => Attack::GapPeek,
            _ => usage(&format!("unknown attack {name:?}")),
        }
    }
}

/// The affinity attack through this architecture's other system call ABIs, which a filter on the native numbers
/// alone would miss: on x86-64, i386's `int 0x80` (number 241, the set in memory below 4 GiB) and x32 (number
/// `0x40000000 | 203`).
#[cfg(target_arch = "x86_64")]
fn other_abi_affinity() -> Vec<String> {
    const SET_BYTES: usize = 128;
    // SAFETY: an anonymous mapping below 4 GiB (MAP_32BIT), so that a 32-bit system call can name it.
    let low = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            4096,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_32BIT,
            -1,
            0,
        )
    };
    if low == libc::MAP_FAILED {
        return vec![report("affinity", "every-cpu-i386", Err::<(), _>(io::Error::last_os_error()))];
    }
    // SAFETY: the mapping is 4096 bytes long and writable.
    unsafe { std::ptr::write_bytes(low.cast::<u8>(), 0xff, SET_BYTES) };
    let result: i64;
    // SAFETY: `int 0x80` with i386's sched_setaffinity(0, SET_BYTES, low): it reads the set and touches nothing
    // else; the registers it clobbers are declared.
    unsafe {
        // rbx (the first argument, pid 0) is LLVM's: it is swapped in and out around the call.
        std::arch::asm!("xchg {pid}, rbx", "int 0x80", "xchg {pid}, rbx", pid = inout(reg) 0i64 => _,
            inlateout("rax") 241i64 => result, in("rcx") SET_BYTES, in("rdx") low as usize,
            lateout("r8") _, lateout("r9") _, lateout("r10") _, lateout("r11") _);
    }
    let i386 = if result < 0 { Err(io::Error::from_raw_os_error(-result as i32)) } else { Ok(()) };
    // SAFETY: the x32 number of sched_setaffinity with the same arguments, through `syscall`.
    let x32 = unsafe { libc::syscall(0x4000_0000 | 203, 0, SET_BYTES, low) };
    let x32 = if x32 < 0 { Err(io::Error::last_os_error()) } else { Ok(()) };
    // SAFETY: the mapping was made above with this length.
    unsafe { libc::munmap(low, 4096) };
    vec![report("affinity", "every-cpu-i386", i386), report("affinity", "every-cpu-x32", x32)]
}

#[cfg(not(target_arch = "x86_64"))]
fn other_abi_affinity() -> Vec<String> {
    Vec::new()
}

/// Plays `attack`; returns the lines reporting each attempt.
pub(super) fn play(attack: Attack, options: &Options) -> Vec<String> {
    let pid = || options.target_pid.unwrap_or_else(|| usage("this attack needs --target-pid"));
    match attack {
        Attack::Write => options
            .targets
            .iter()
            .map(|target| {
                let outcome = fs::OpenOptions::new()
                    .write(true)
                    .create(true)
                    .truncate(true)
                    .open(target)
                    .and_then(|mut file| file.write_all(b"forged"));
                report("write", &target.display().to_string(), outcome)
            })
            .collect(),
        Attack::StopPid => {
            let pid = pid();
            // SAFETY: kill only sends a signal.
            let outcome = if unsafe { libc::kill(pid, libc::SIGSTOP) } == 0 {
                // SAFETY: as above; the target must not stay stopped should the attack have worked.
                unsafe { libc::kill(pid, libc::SIGCONT) };
                Ok(())
            } else {
                Err(io::Error::last_os_error())
            };
            vec![report("stop-pid", &pid.to_string(), outcome)]
        }
        Attack::OpenPidStdout => {
            let path = format!("/proc/{}/fd/1", pid());
            vec![report("open-pid-stdout", &path, fs::OpenOptions::new().write(true).open(&path))]
        }
        Attack::Connect => {
            let port = options.target_port.unwrap_or_else(|| usage("connect needs --target-port"));
            vec![report("connect", &port.to_string(), std::net::TcpStream::connect(("127.0.0.1", port)))]
        }
        Attack::BigFile => {
            let path = options.targets.first().cloned().unwrap_or_else(|| env::temp_dir().join("big"));
            let outcome = fs::File::create(&path).and_then(|mut file| {
                let block = vec![0u8; 1 << 16];
                let mut left = options.big_bytes;
                while left > 0 {
                    let n = left.min(block.len() as u64) as usize;
                    file.write_all(&block[..n])?;
                    left -= n as u64;
                }
                Ok(())
            });
            vec![report("big-file", &path.display().to_string(), outcome)]
        }
        Attack::ForkChain => {
            let dir = options.pid_dir.as_deref().unwrap_or_else(|| usage("fork-chain needs --pid-dir"));
            let started = dir.join("chain-started");
            let mut command = Command::new(env::current_exe().expect("the test worker knows its path"));
            command.arg("chain").arg("--pid-dir").arg(dir).stdin(Stdio::null()).stdout(Stdio::null());
            if let Some(pause) = options.chain_pause {
                command.arg("--pause-ms").arg(pause.as_millis().to_string());
            }
            // The chain's first process exits at once after forking; it is reaped here.
            let mut first = command.spawn().expect("the chain starts");
            let _ = first.wait();
            wait_for_file(&started);
            Vec::new()
        }
        Attack::Capabilities => {
            let status = fs::read_to_string("/proc/self/status").expect("/proc is mounted");
            let mut lines: Vec<String> = ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"]
                .iter()
                .map(|set| {
                    let hex = status
                        .lines()
                        .find_map(|line| line.strip_prefix(&format!("{set}:")))
                        .map(str::trim)
                        .unwrap_or("missing");
                    let held = u64::from_str_radix(hex, 16).ok().is_none_or(|bits| bits != 0);
                    let outcome = if held { Ok(()) } else { Err(io::Error::from_raw_os_error(libc::EPERM)) };
                    report("capabilities", &format!("{set}={hex}"), outcome)
                })
                .collect();
            // SAFETY: an all-zero timex is a valid value of that plain C struct; adjtimex with modes 0 only reads.
            let mut clock: libc::timex = unsafe { std::mem::zeroed() };
            // SAFETY: adjtimex reads and writes the local struct.
            let read = unsafe { libc::adjtimex(&mut clock) };
            let outcome = if read < 0 {
                Err(io::Error::last_os_error())
            } else {
                clock.modes = libc::ADJ_TICK;
                // SAFETY: as above; the tick is set to the value just read.
                if unsafe { libc::adjtimex(&mut clock) } < 0 { Err(io::Error::last_os_error()) } else { Ok(()) }
            };
            lines.push(report("capabilities", "adjtimex-tick", outcome));
            lines
        }
        Attack::NetnsMark => {
            let seen = |when: &str| {
                let seen = fs::read_link("/proc/self/ns/net").and_then(|link| Ok((link, udp_no_ports()?)));
                match seen {
                    Ok((link, count)) => {
                        report("netns-mark", &format!("{when} {} {count}", link.display()), Ok::<(), _>(()))
                    }
                    Err(error) => report("netns-mark", when, Err::<(), _>(error)),
                }
            };
            let before = seen("before");
            let sent = std::net::UdpSocket::bind(("127.0.0.1", 0)).and_then(|socket| {
                for _ in 0..options.count {
                    socket.send_to(b"mark", ("127.0.0.1", 9))?;
                }
                Ok(())
            });
            // The port's refusals are counted as the datagrams arrive, on the loopback at once.
            thread::sleep(Duration::from_millis(20));
            vec![before, report("netns-mark", "sent", sent), seen("after")]
        }
        Attack::GapPeek => {
            peek_after_answer();
            Vec::new()
        }
        Attack::WriteFd => {
            let fd = options.target_fd.unwrap_or_else(|| usage("write-fd needs --target-fd"));
            // SAFETY: write reads the local bytes; a descriptor that is not open fails with EBADF.
            let written = unsafe { libc::write(fd, b"forged".as_ptr().cast(), 6) };
            let outcome = if written < 0 { Err(io::Error::last_os_error()) } else { Ok(()) };
            vec![report("write-fd", &fd.to_string(), outcome)]
        }
        Attack::Udp => {
            let port = options.target_port.unwrap_or_else(|| usage("udp needs --target-port"));
            let outcome = std::net::UdpSocket::bind(("127.0.0.1", 0)).and_then(|socket| {
                socket.set_read_timeout(Some(Duration::from_secs(1)))?;
                socket.send_to(b"ping", ("127.0.0.1", port))?;
                let mut echo = [0u8; 16];
                socket.recv(&mut echo)
            });
            vec![report("udp", &port.to_string(), outcome)]
        }
        Attack::Read => options
            .targets
            .iter()
            .map(|target| {
                let outcome = if target.is_dir() { fs::read_dir(target).map(drop) } else { fs::read(target).map(drop) };
                report("read", &target.display().to_string(), outcome)
            })
            .collect(),
        Attack::UnixConnect => options
            .targets
            .iter()
            .map(|target| {
                report("unix-connect", &target.display().to_string(), std::os::unix::net::UnixStream::connect(target))
            })
            .collect(),
        Attack::Keyring | Attack::KeyringFind => {
            const KEY_SPEC_USER_KEYRING: libc::c_long = -4;
            const KEYCTL_SEARCH: libc::c_long = 10;
            let key = options.target_key.unwrap_or_else(|| usage("keyring needs --target-key"));
            let name = std::ffi::CString::new(format!("metewand-test-{key}")).expect("no NUL in a number");
            let payload = b"peer's result";
            let id = if attack == Attack::Keyring {
                // SAFETY: add_key reads the NUL-terminated type and description and `payload.len()` bytes.
                unsafe {
                    libc::syscall(
                        libc::SYS_add_key,
                        c"user".as_ptr(),
                        name.as_ptr(),
                        payload.as_ptr(),
                        payload.len(),
                        KEY_SPEC_USER_KEYRING,
                    )
                }
            } else {
                // SAFETY: keyctl(KEYCTL_SEARCH) reads the NUL-terminated type and description.
                unsafe {
                    libc::syscall(
                        libc::SYS_keyctl,
                        KEYCTL_SEARCH,
                        KEY_SPEC_USER_KEYRING,
                        c"user".as_ptr(),
                        name.as_ptr(),
                        0,
                    )
                }
            };
            let outcome = if id < 0 { Err(io::Error::last_os_error()) } else { Ok(()) };
            let label = if attack == Attack::Keyring { "keyring" } else { "keyring-find" };
            vec![report(label, &name.to_string_lossy(), outcome)]
        }
        Attack::Affinity => {
            // SAFETY: an all-zero cpu_set_t is a valid (empty) set, which CPU_SET fills bit by bit.
            let mut every: libc::cpu_set_t = unsafe { std::mem::zeroed() };
            for cpu in 0..libc::CPU_SETSIZE as usize {
                // SAFETY: cpu is below CPU_SETSIZE, the set's size.
                unsafe { libc::CPU_SET(cpu, &mut every) };
            }
            // SAFETY: sched_setaffinity reads the set, whose size is passed with it.
            let outcome = if unsafe { libc::sched_setaffinity(0, size_of_val(&every), &every) } == 0 {
                Ok(())
            } else {
                Err(io::Error::last_os_error())
            };
            let mut lines = vec![report("affinity", "every-cpu", outcome)];
            lines.extend(other_abi_affinity());
            lines
        }
        Attack::Allocate => {
            let bytes = options.big_bytes as usize;
            let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE;
            // SAFETY: an anonymous mapping touches no existing memory; it is unmapped at once.
            let mapped =
                unsafe { libc::mmap(std::ptr::null_mut(), bytes, libc::PROT_READ | libc::PROT_WRITE, flags, -1, 0) };
            let outcome = if mapped == libc::MAP_FAILED {
                Err(io::Error::last_os_error())
            } else {
                // SAFETY: the mapping was just made with this length.
                unsafe { libc::munmap(mapped, bytes) };
                Ok(())
            };
            vec![report("allocate", &bytes.to_string(), outcome)]
        }
        Attack::Spawn => {
            let mut children = Vec::new();
            let mut outcome = Ok(());
            for _ in 0..options.count {
                // SAFETY: the child only sleeps until it is killed.
                match unsafe { libc::fork() } {
                    0 => loop {
                        // SAFETY: pause takes no arguments.
                        unsafe { libc::pause() };
                    },
                    pid if pid > 0 => children.push(pid),
                    _ => {
                        outcome = Err(io::Error::last_os_error());
                        break;
                    }
                }
            }
            let started = children.len();
            for pid in children {
                // SAFETY: kill and waitpid take the pid of a child this process started.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                    libc::waitpid(pid, std::ptr::null_mut(), 0);
                }
            }
            eprintln!("test-worker: spawned {started} of {}", options.count);
            vec![report("spawn", &options.count.to_string(), outcome)]
        }
        Attack::Fill => {
            let dir = match options.targets.first() {
                Some(dir) => dir.clone(),
                None => PathBuf::from(env::var_os("TMPDIR").unwrap_or_else(|| usage("fill needs TMPDIR"))),
            };
            let chunk = vec![7u8; 512 << 10];
            let mut written = 0;
            let mut outcome = Ok(());
            while written < options.big_bytes && outcome.is_ok() {
                outcome = fs::write(dir.join(format!("fill-{written}")), &chunk);
                written += chunk.len() as u64;
                thread::sleep(Duration::from_millis(1));
            }
            vec![report("fill", &options.big_bytes.to_string(), outcome)]
        }
        Attack::ReadProc => {
            let pid = pid();
            ["environ", "maps"]
                .iter()
                .map(|file| {
                    let path = format!("/proc/{pid}/{file}");
                    report("read-proc", &path, fs::read(&path))
                })
                .collect()
        }
        Attack::Syscalls => {
            let cgroup = options.targets.first().unwrap_or_else(|| usage("syscalls needs --target (a cgroup folder)"));
            super::syscalls::play(cgroup, options.count as u32)
        }
        Attack::Plant => {
            let target = options.targets.last().unwrap_or_else(|| usage("plant needs --target"));
            let outcome =
                fs::copy(env::current_exe().expect("the test worker knows its path"), target).and_then(|_| {
                    use std::os::unix::fs::PermissionsExt;
                    fs::set_permissions(target, fs::Permissions::from_mode(0o6755))
                });
            vec![report("plant", &target.display().to_string(), outcome)]
        }
        Attack::Shm | Attack::Memfd => {
            let held = if attack == Attack::Shm { hold_shm(options.big_bytes) } else { hold_memfds(options.big_bytes) };
            let name = if attack == Attack::Shm { "shm" } else { "memfd" };
            vec![report(name, &options.big_bytes.to_string(), held)]
        }
        Attack::SessionKey => {
            const KEY_SPEC_SESSION_KEYRING: libc::c_long = -3;
            let key = options.target_key.unwrap_or_else(|| usage("session-key needs --target-key"));
            let name = std::ffi::CString::new(format!("metewand-test-{key}")).expect("no NUL in a number");
            let payload = b"peer's result";
            // SAFETY: add_key reads the NUL-terminated type and description and `payload.len()` bytes.
            let id = unsafe {
                libc::syscall(
                    libc::SYS_add_key,
                    c"user".as_ptr(),
                    name.as_ptr(),
                    payload.as_ptr(),
                    payload.len(),
                    KEY_SPEC_SESSION_KEYRING,
                )
            };
            let outcome = if id < 0 { Err(io::Error::last_os_error()) } else { Ok(()) };
            vec![report("session-key", &name.to_string_lossy(), outcome)]
        }
        Attack::FindKey => {
            let key = options.target_key.unwrap_or_else(|| usage("find-key needs --target-key"));
            let name = format!("metewand-test-{key}");
            let listed = fs::read_to_string("/proc/keys").and_then(|keys| {
                if keys.contains(&name) { Ok(()) } else { Err(io::Error::from_raw_os_error(libc::ENOKEY)) }
            });
            vec![report("find-key", &name, listed)]
        }
        Attack::SysV => {
            let key = options.target_key.unwrap_or_else(|| usage("sysv needs --target-key"));
            let outcome = |id: libc::c_int| if id < 0 { Err(io::Error::last_os_error()) } else { Ok(()) };
            // SAFETY: shmget and msgget take a key and flags; they create kernel objects and touch no memory.
            let shm = outcome(unsafe { libc::shmget(key, 4096, libc::IPC_CREAT | 0o600) });
            // SAFETY: as above.
            let msg = outcome(unsafe { libc::msgget(key, libc::IPC_CREAT | 0o600) });
            vec![report("sysv-shm", &key.to_string(), shm), report("sysv-msg", &key.to_string(), msg)]
        }
    }
}

/// How much each segment or memfd of [`hold_shm`] and [`hold_memfds`] holds.
const CHUNK: usize = 16 << 20;

/// Holds `total` bytes in System V segments of [`CHUNK`] (each attached, filled and detached, so that no mapping
/// counts against an address-space limit), then removes them; the first refusal is the outcome.
fn hold_shm(total: u64) -> io::Result<()> {
    let mut ids = Vec::new();
    let mut held = 0u64;
    let outcome = (|| {
        while held < total {
            // SAFETY: shmget creates a private segment; it touches no memory of ours.
            let id = unsafe { libc::shmget(libc::IPC_PRIVATE, CHUNK, libc::IPC_CREAT | 0o600) };
            if id < 0 {
                return Err(io::Error::last_os_error());
            }
            ids.push(id);
            // SAFETY: attaches the segment just made at an address the kernel chooses.
            let at = unsafe { libc::shmat(id, std::ptr::null(), 0) };
            if at as isize == -1 {
                return Err(io::Error::last_os_error());
            }
            // SAFETY: the segment is CHUNK bytes long and attached read-write at `at`; it is detached after.
            unsafe {
                std::ptr::write_bytes(at.cast::<u8>(), 7, CHUNK);
                libc::shmdt(at);
            }
            held += CHUNK as u64;
        }
        Ok(())
    })();
    eprintln!("test-worker: held {held} bytes of System V shared memory");
    for id in ids {
        // SAFETY: IPC_RMID removes a segment this process made; no buffer is read.
        unsafe { libc::shmctl(id, libc::IPC_RMID, std::ptr::null_mut()) };
    }
    outcome
}

/// Holds `total` bytes in memfds of [`CHUNK`], each filled through a mapping that is undone at once, then closes
/// them; the first refusal is the outcome.
fn hold_memfds(total: u64) -> io::Result<()> {
    let mut fds = Vec::new();
    let mut held = 0u64;
    let outcome = (|| {
        while held < total {
            // SAFETY: memfd_create reads the NUL-terminated name and returns a descriptor or -1.
            let fd = unsafe { libc::syscall(libc::SYS_memfd_create, c"held".as_ptr(), libc::MFD_CLOEXEC) };
            if fd < 0 {
                return Err(io::Error::last_os_error());
            }
            let fd = fd as libc::c_int;
            fds.push(fd);
            // SAFETY: ftruncate and mmap on the descriptor just made; the mapping is CHUNK bytes, filled and undone.
            unsafe {
                if libc::ftruncate(fd, CHUNK as libc::off_t) < 0 {
                    return Err(io::Error::last_os_error());
                }
                let at = libc::mmap(
                    std::ptr::null_mut(),
                    CHUNK,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_SHARED,
                    fd,
                    0,
                );
                if at == libc::MAP_FAILED {
                    return Err(io::Error::last_os_error());
                }
                std::ptr::write_bytes(at.cast::<u8>(), 7, CHUNK);
                libc::munmap(at, CHUNK);
            }
            held += CHUNK as u64;
        }
        Ok(())
    })();
    eprintln!("test-worker: held {held} bytes in memfds");
    for fd in fds {
        // SAFETY: a descriptor this function made.
        unsafe { libc::close(fd) };
    }
    outcome
}

/// The UDP `NoPorts` count of this process's network namespace, from `/proc/net/snmp`.
fn udp_no_ports() -> io::Result<u64> {
    let text = fs::read_to_string("/proc/net/snmp")?;
    let mut lines = text.lines().filter(|line| line.starts_with("Udp:"));
    let invalid = || io::Error::new(io::ErrorKind::InvalidData, "no UDP NoPorts count in /proc/net/snmp");
    let (names, values) = (lines.next().ok_or_else(invalid)?, lines.next().ok_or_else(invalid)?);
    let column = names.split_whitespace().position(|name| name == "NoPorts").ok_or_else(invalid)?;
    values.split_whitespace().nth(column).and_then(|value| value.parse().ok()).ok_or_else(invalid)
}

/// The thread [`Attack::GapPeek`] started, joined once the method's answer is written.
static PEEK: std::sync::Mutex<Option<thread::JoinHandle<()>>> = std::sync::Mutex::new(None);

/// Reads the mount table now (before the answer), then waits in a thread for it to change.
fn peek_after_answer() {
    let table = fs::File::open("/proc/self/mountinfo").and_then(|mut file| {
        io::Read::read_to_end(&mut file, &mut Vec::new())?;
        Ok(file)
    });
    let handle = thread::spawn(move || {
        let outcome = table.and_then(|table| {
            use std::os::fd::AsRawFd;
            let mut fds = [libc::pollfd { fd: table.as_raw_fd(), events: libc::POLLPRI, revents: 0 }];
            let ready = loop {
                // SAFETY: poll reads and writes the one pollfd above.
                let ready = unsafe { libc::poll(fds.as_mut_ptr(), 1, 5000) };
                if ready >= 0 || io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
                    break ready;
                }
            };
            match ready {
                0 => Err(io::Error::from_raw_os_error(libc::ETIMEDOUT)),
                ready if ready < 0 => Err(io::Error::last_os_error()),
                _ => {
                    let mut stdin = [libc::pollfd { fd: 0, events: libc::POLLIN, revents: 0 }];
                    // SAFETY: as above, with a timeout of zero: is a request waiting now?
                    let waiting = unsafe { libc::poll(stdin.as_mut_ptr(), 1, 0) };
                    if waiting > 0 { Err(io::Error::from_raw_os_error(libc::EBUSY)) } else { Ok(()) }
                }
            }
        });
        report("gap-peek", "inputs", outcome);
    });
    *PEEK.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(handle);
}

/// Waits for the thread [`Attack::GapPeek`] started, if it did: the next request is read only after its report.
pub(super) fn join_peek() {
    let handle = PEEK.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take();
    if let Some(handle) = handle {
        let _ = handle.join();
    }
}
