//! A direct protocol worker (`"sdk": null`) whose behaviour a test chooses on its command line, for
//! metewand-runtime's session tests and benchmark. It is never published.
//!
//! ```text
//! test-worker serve [--fault NAME@METHOD]... [--delay METHOD=MS]... [--pid-dir DIR (default: $TMPDIR)]
//!                   [--capabilities LIST] [--sdk NAME@VERSION] [--flood-bytes N] [--quiet] [--conformant]
//!                   [--attack NAME@METHOD]... [--answer-attacks] [--target PATH]... [--target-pid PID]
//!                   [--target-port PORT] [--target-fd FD] [--target-key KEY] [--big-bytes N] [--count N]
//!                   [--chain-pause-ms N]
//! test-worker echo
//! test-worker child --pid-file FILE [--setsid] [--child-pid-file FILE] [--exit-after-spawn]
//! test-worker chain --pid-dir DIR
//! ```
//!
//! `--attack NAME@METHOD` plays an attack on the orchestrator or its files when that method arrives, then answers
//! as usual; each attempt is reported on stderr as `test-worker: attack NAME TARGET: ok` or `... errno N`, so a
//! test reads from the log what the kernel allowed (see [`Attack`]). With `--answer-attacks` the request that
//! played an attack is answered with a structured `operation_failed` failure whose message lists those lines, for a
//! test that sees only the answers (the conformance kit's evidence). Targets come from `--target PATH` (repeated),
//! `--target-pid PID`, `--target-port PORT`, `--big-bytes N` and `--count N`.
//!
//! `serve` is well-behaved for every role: a materializer writes a tiny dataset and its manifest, an
//! implementation acknowledges `prepare` and `reset` and writes a result on `execute`, an evaluator writes metrics
//! and answers `reached`; `shutdown` is acknowledged and followed by exit status 0. Each `--fault NAME@METHOD`
//! makes it misbehave when it receives that method (see [`Fault`]); `--delay METHOD=MS` sleeps before answering.
//! Unless `--quiet`, it writes one line to stderr per request. With `--conformant` it also keeps the rules the
//! conformance kit checks (a second `hello`, another role's request, a malformed request and `execute` before
//! `prepare` are refused) and writes outputs the validator accepts; the faults after `FloodStderr` break those
//! rules one at a time. Pid files, written by the processes a fault
//! starts, hold `PID START` (the start time from `/proc/PID/stat`), so a test can tell whether that very process
//! still exists.
//!
//! `echo` copies each stdin line to stdout: the raw pipe the benchmark compares sessions with. `child` is what
//! the faults that start processes run.

use std::collections::BTreeMap;
use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use std::{env, fs, process, thread};

use metewand_protocol::common::Capability;
use metewand_protocol::frame::{Frame, FrameReader, encode_value};
use metewand_protocol::messages::{
    EvaluateRequest, ExecuteRequest, HelloRequest, MaterializeRequest, PrepareRequest, ResetRequest, ShutdownRequest,
};
use metewand_protocol::{Message, decode_message};
use serde_json::{Value, json};

/// Another valid resolved identity, for the worker that repeats the wrong one.
const OTHER_WORKER_ID: &str = "mw1-resolved-worker-ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff";

/// A misbehaviour, triggered by one method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    /// Never answer (and keep running).
    NeverAnswer,
    /// Answer with another request id.
    WrongId,
    /// Write the answer twice, in one write.
    AnswerTwice,
    /// Write the answer, then write it again 200 ms later.
    AnswerTwiceLate,
    /// Write a line longer than a frame may be.
    OversizedLine,
    /// Write a line that is not UTF-8.
    InvalidUtf8,
    /// Write the answer after a UTF-8 byte-order mark.
    Bom,
    /// Write a JSON array instead of an object.
    NonObject,
    /// Exit with status 3 without answering.
    Exit,
    /// Close stdout and keep running.
    CloseStdout,
    /// Answer, then exit with status 3.
    AnswerThenExit,
    /// Answer, then never read stdin again.
    StopReading,
    /// Answer with a structured `operation_failed` failure.
    Fail,
    /// Repeat a different worker id in `hello`.
    WrongWorkerId,
    /// Start a child that sleeps forever, then answer.
    SpawnSleeper,
    /// Start a child that calls `setsid`, starts a sleeper of its own and sleeps forever, then answer.
    SpawnEscapee,
    /// Double fork: a child calls `setsid`, starts a sleeper and exits, orphaning the sleeper; then answer.
    Daemonize,
    /// Start a child that inherits stdout and sleeps forever, then exit with status 0 without answering.
    ExitLeavingStdoutHolder,
    /// The same, with a child that calls `setsid` first.
    ExitLeavingEscapedStdoutHolder,
    /// Write `--flood-bytes` to stderr, then answer.
    FloodStderr,
    // Faults against the protocol's rules, for the conformance kit; they matter with `--conformant`.
    /// Answer a second `hello` as if it were the first.
    AcceptSecondHello,
    /// Answer with the request's id stripped to ASCII letters, digits and `-`.
    MangleIds,
    /// Execute without a successful `prepare`.
    ExecuteUnprepared,
    /// Write a line that is not JSON on stdout before the answer.
    JunkStdout,
    /// Make the output depend on the clock, not only on the seed.
    Nondeterministic,
}

impl Fault {
    fn parse(name: &str) -> Fault {
        match name {
            "never-answer" => Fault::NeverAnswer,
            "wrong-id" => Fault::WrongId,
            "answer-twice" => Fault::AnswerTwice,
            "answer-twice-late" => Fault::AnswerTwiceLate,
            "oversized-line" => Fault::OversizedLine,
            "invalid-utf8" => Fault::InvalidUtf8,
            "bom" => Fault::Bom,
            "non-object" => Fault::NonObject,
            "exit" => Fault::Exit,
            "close-stdout" => Fault::CloseStdout,
            "answer-then-exit" => Fault::AnswerThenExit,
            "stop-reading" => Fault::StopReading,
            "fail" => Fault::Fail,
            "wrong-worker-id" => Fault::WrongWorkerId,
            "spawn-sleeper" => Fault::SpawnSleeper,
            "spawn-escapee" => Fault::SpawnEscapee,
            "daemonize" => Fault::Daemonize,
            "exit-leaving-stdout-holder" => Fault::ExitLeavingStdoutHolder,
            "exit-leaving-escaped-stdout-holder" => Fault::ExitLeavingEscapedStdoutHolder,
            "flood-stderr" => Fault::FloodStderr,
            "accept-second-hello" => Fault::AcceptSecondHello,
            "mangle-ids" => Fault::MangleIds,
            "execute-unprepared" => Fault::ExecuteUnprepared,
            "junk-stdout" => Fault::JunkStdout,
            "nondeterministic" => Fault::Nondeterministic,
            _ => usage(&format!("unknown fault {name:?}")),
        }
    }
}

/// An attack a hostile worker would try; the worker reports each attempt's outcome and goes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Attack {
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
}

impl Attack {
    fn parse(name: &str) -> Attack {
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
            _ => usage(&format!("unknown attack {name:?}")),
        }
    }
}

#[derive(Debug, Default)]
struct Options {
    attacks: BTreeMap<String, Attack>,
    targets: Vec<PathBuf>,
    target_pid: Option<i32>,
    target_port: Option<u16>,
    target_fd: Option<i32>,
    target_key: Option<i32>,
    big_bytes: u64,
    count: u64,
    chain_pause: Option<Duration>,
    faults: BTreeMap<String, Fault>,
    delays: BTreeMap<String, Duration>,
    pid_dir: Option<PathBuf>,
    capabilities: Option<Vec<Capability>>,
    sdk: Option<(String, String)>,
    flood_bytes: usize,
    quiet: bool,
    conformant: bool,
    answer_attacks: bool,
}

fn main() {
    let args: Vec<String> = env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("serve") => serve(&parse_serve(&args[1..])),
        Some("echo") => echo(),
        Some("child") => child(&args[1..]),
        Some("chain") => chain(&args[1..]),
        _ => usage("expected serve, echo, child or chain"),
    }
}

fn usage(problem: &str) -> ! {
    eprintln!("test-worker: {problem}");
    process::exit(64);
}

fn parse_serve(args: &[String]) -> Options {
    let mut options = Options { flood_bytes: 4 << 20, ..Options::default() };
    let mut args = args.iter();
    while let Some(flag) = args.next() {
        let mut value = || args.next().cloned().unwrap_or_else(|| usage(&format!("{flag} needs a value")));
        match flag.as_str() {
            "--fault" => {
                let value = value();
                let (name, method) = value.split_once('@').unwrap_or_else(|| usage("--fault takes NAME@METHOD"));
                options.faults.insert(method.to_owned(), Fault::parse(name));
            }
            "--delay" => {
                let value = value();
                let (method, ms) = value.split_once('=').unwrap_or_else(|| usage("--delay takes METHOD=MS"));
                let ms = ms.parse().unwrap_or_else(|_| usage("--delay takes milliseconds"));
                options.delays.insert(method.to_owned(), Duration::from_millis(ms));
            }
            "--pid-dir" => options.pid_dir = Some(PathBuf::from(value())),
            "--attack" => {
                let value = value();
                let (name, method) = value.split_once('@').unwrap_or_else(|| usage("--attack takes NAME@METHOD"));
                options.attacks.insert(method.to_owned(), Attack::parse(name));
            }
            "--target" => options.targets.push(PathBuf::from(value())),
            "--target-pid" => options.target_pid = Some(value().parse().unwrap_or_else(|_| usage("--target-pid"))),
            "--target-port" => {
                options.target_port = Some(value().parse().unwrap_or_else(|_| usage("--target-port")));
            }
            "--target-fd" => options.target_fd = Some(value().parse().unwrap_or_else(|_| usage("--target-fd"))),
            "--target-key" => options.target_key = Some(value().parse().unwrap_or_else(|_| usage("--target-key"))),
            "--big-bytes" => options.big_bytes = value().parse().unwrap_or_else(|_| usage("--big-bytes")),
            "--count" => options.count = value().parse().unwrap_or_else(|_| usage("--count")),
            "--chain-pause-ms" => {
                let millis = value().parse().unwrap_or_else(|_| usage("--chain-pause-ms"));
                options.chain_pause = Some(Duration::from_millis(millis));
            }
            "--capabilities" => {
                let list = value();
                let names = list.split(',').filter(|name| !name.is_empty());
                options.capabilities = Some(
                    names
                        .map(|name| name.parse().unwrap_or_else(|_| usage(&format!("bad capability {name}"))))
                        .collect(),
                );
            }
            "--sdk" => {
                let value = value();
                let (name, version) = value.split_once('@').unwrap_or_else(|| usage("--sdk takes NAME@VERSION"));
                options.sdk = Some((name.to_owned(), version.to_owned()));
            }
            "--flood-bytes" => options.flood_bytes = value().parse().unwrap_or_else(|_| usage("--flood-bytes")),
            "--quiet" => options.quiet = true,
            "--conformant" => options.conformant = true,
            "--answer-attacks" => options.answer_attacks = true,
            _ => usage(&format!("unknown option {flag}")),
        }
    }
    options
}

fn sleep_forever() -> ! {
    loop {
        thread::sleep(Duration::from_secs(3600));
    }
}

fn serve(options: &Options) -> ! {
    let mut reader = FrameReader::new(io::stdin().lock());
    let mut out = io::stdout().lock();
    let mut state = conformant::State::default();
    loop {
        let frame = match reader.read_frame() {
            Ok(Some(frame)) => frame,
            Ok(None) => process::exit(0),
            Err(error) => {
                eprintln!("test-worker: cannot read a request: {error}");
                process::exit(2);
            }
        };
        let value = frame.value();
        let method = value.get("method").and_then(Value::as_str).unwrap_or("").to_owned();
        let id = value.get("id").and_then(Value::as_str).unwrap_or("").to_owned();
        if !options.quiet {
            eprintln!("test-worker: received {method} {id}");
        }
        if let Some(&delay) = options.delays.get(&method) {
            thread::sleep(delay);
        }
        let attempts = options.attacks.get(&method).map(|&attack| play(attack, options)).unwrap_or_default();
        let fault = options.faults.get(&method).copied();
        if options.conformant
            && let Some(refusal) = conformant::gate(&mut state, &frame, fault)
        {
            if out.write_all(&refusal).and_then(|()| out.flush()).is_err() {
                process::exit(2);
            }
            continue;
        }
        let mut answer = match answer(&method, &frame, options, fault) {
            Ok(answer) => answer,
            Err(problem) => {
                eprintln!("test-worker: cannot answer {method}: {problem}");
                process::exit(2);
            }
        };
        if options.conformant {
            if let Err(problem) = conformant::write_outputs(&method, &frame, &state, fault) {
                eprintln!("test-worker: cannot answer {method}: {problem}");
                process::exit(2);
            }
            if fault == Some(Fault::MangleIds) {
                answer["id"] = json!(conformant::mangle(&id));
            }
        }
        if options.answer_attacks && !attempts.is_empty() {
            let error = json!({"code": "operation_failed", "message": attempts.join("; ")});
            answer = json!({"error": error, "id": answer["id"].clone(), "ok": false});
        }
        let mut line = encode_value(&answer).expect("answers are small");
        match fault {
            None | Some(Fault::WrongWorkerId) => {}
            Some(Fault::NeverAnswer) => sleep_forever(),
            Some(Fault::WrongId) => {
                answer["id"] = json!(format!("{id}99"));
                line = encode_value(&answer).expect("answers are small");
            }
            Some(Fault::AnswerTwice) => line = [line.clone(), line].concat(),
            Some(Fault::OversizedLine) => {
                let padding = "a".repeat(metewand_protocol::MAX_LINE_BYTES);
                line = format!("{{\"id\":\"{id}\",\"ok\":true,\"padding\":\"{padding}\"}}\n").into_bytes();
            }
            Some(Fault::InvalidUtf8) => line = b"{\"id\":\"\xff\xfe\",\"ok\":true}\n".to_vec(),
            Some(Fault::Bom) => line = [b"\xef\xbb\xbf".to_vec(), line].concat(),
            Some(Fault::NonObject) => line = b"[\"not\",\"an\",\"object\"]\n".to_vec(),
            Some(Fault::Exit) => {
                eprintln!("test-worker: exiting in the middle of {method}");
                process::exit(3);
            }
            Some(Fault::CloseStdout) => {
                eprintln!("test-worker: closing stdout and staying alive");
                // SAFETY: fd 1 is this process's stdout; nothing writes to it after this.
                unsafe { libc::close(1) };
                sleep_forever();
            }
            Some(Fault::SpawnSleeper) => spawn_child(options, "sleeper", &[], false),
            Some(Fault::SpawnEscapee) => spawn_child(options, "escapee", &["--setsid"], false),
            Some(Fault::Daemonize) => spawn_child(options, "daemon-parent", &["--setsid", "--exit-after-spawn"], false),
            Some(Fault::ExitLeavingStdoutHolder) => {
                spawn_child(options, "holder", &[], true);
                eprintln!("test-worker: exiting while a child holds stdout");
                process::exit(0);
            }
            Some(Fault::ExitLeavingEscapedStdoutHolder) => {
                spawn_child(options, "holder", &["--setsid"], true);
                eprintln!("test-worker: exiting while an escaped child holds stdout");
                process::exit(0);
            }
            Some(Fault::FloodStderr) => flood_stderr(options.flood_bytes),
            Some(Fault::JunkStdout) => line = [b"debug: about to answer\n".to_vec(), line].concat(),
            Some(
                Fault::AnswerTwiceLate
                | Fault::AnswerThenExit
                | Fault::StopReading
                | Fault::Fail
                | Fault::AcceptSecondHello
                | Fault::MangleIds
                | Fault::ExecuteUnprepared
                | Fault::Nondeterministic,
            ) => {}
        }
        if out.write_all(&line).and_then(|()| out.flush()).is_err() {
            process::exit(2);
        }
        match fault {
            Some(Fault::AnswerTwiceLate) => {
                thread::sleep(Duration::from_millis(200));
                if out.write_all(&line).and_then(|()| out.flush()).is_err() {
                    process::exit(2);
                }
            }
            Some(Fault::AnswerThenExit) => {
                eprintln!("test-worker: exiting with status 3 after answering {method}");
                process::exit(3);
            }
            Some(Fault::StopReading) => sleep_forever(),
            _ if method == "shutdown" => process::exit(0),
            _ => {}
        }
    }
}

/// The well-behaved answer to a request (or the structured failure, for [`Fault::Fail`]), after decoding the
/// request as its message type.
fn answer(method: &str, request: &Frame, options: &Options, fault: Option<Fault>) -> Result<Value, String> {
    fn decode<T: Message>(request: &Frame) -> Result<T, String> {
        decode_message(request).map_err(|error| error.to_string())
    }
    let id = request.value().get("id").cloned().unwrap_or(Value::Null);
    if fault == Some(Fault::Fail) {
        let message = format!("the test worker was told to fail {method}");
        let error = json!({"code": "operation_failed", "details": {"iterations": 100}, "message": message});
        return Ok(json!({"error": error, "id": id, "ok": false}));
    }
    let ack = json!({"id": id, "ok": true});
    Ok(match method {
        "hello" => {
            let hello: HelloRequest = decode(request)?;
            let capabilities = options.capabilities.clone().unwrap_or_else(|| vec![Capability::OneShot]);
            let worker_id = if fault == Some(Fault::WrongWorkerId) {
                OTHER_WORKER_ID.to_owned()
            } else {
                hello.worker_id.to_string()
            };
            let sdk = options.sdk.as_ref().map(|(name, version)| json!({"name": name, "version": version}));
            json!({
                "capabilities": capabilities, "id": id, "ok": true, "protocol": 1, "sdk": sdk, "worker_id": worker_id,
            })
        }
        "materialize" => {
            let request: MaterializeRequest = decode(request)?;
            let output = Path::new(request.output_dir.as_str());
            write(&output.join("rows.csv"), "x\n1\n2\n")?;
            write(&output.join("dataset-manifest.json"), "{\"files\":[\"rows.csv\"]}\n")?;
            json!({"dataset": {"manifest": "dataset-manifest.json"}, "id": id, "ok": true})
        }
        "prepare" => {
            decode::<PrepareRequest>(request)?;
            ack
        }
        "execute" => {
            let request: ExecuteRequest = decode(request)?;
            write(&Path::new(request.result_dir.as_str()).join("result.json"), "{\"answer\":42}\n")?;
            json!({
                "id": id, "implementation_time_ns": 1234, "ok": true, "result": {"manifest": "result.json"},
                "statistics": {"iterations": 1},
            })
        }
        "reset" => {
            decode::<ResetRequest>(request)?;
            ack
        }
        "evaluate" => {
            let request: EvaluateRequest = decode(request)?;
            write(Path::new(request.metrics_path.as_str()), "{\"error\":0.0}\n")?;
            json!({"id": id, "ok": true, "verdict": "reached"})
        }
        "shutdown" => {
            decode::<ShutdownRequest>(request)?;
            ack
        }
        other => return Err(format!("unknown method {other:?}")),
    })
}

fn write(path: &Path, contents: &str) -> Result<(), String> {
    fs::write(path, contents).map_err(|error| format!("writing {}: {error}", path.display()))
}

fn flood_stderr(bytes: usize) {
    let mut err = io::stderr().lock();
    let line = format!("test-worker: flooding stderr {}\n", "~".repeat(100));
    let mut written = 0;
    let mut number = 0_u64;
    while written < bytes {
        let numbered = format!("{number:010} {line}");
        err.write_all(numbered.as_bytes()).expect("stderr is drained");
        written += numbered.len();
        number += 1;
    }
    writeln!(err, "test-worker: flood done after {number} lines").expect("stderr is drained");
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

/// Reports one attack attempt's outcome on stderr, and returns the line.
fn report<T>(attack: &str, target: &str, outcome: io::Result<T>) -> String {
    let line = match outcome {
        Ok(_) => format!("test-worker: attack {attack} {target}: ok"),
        Err(error) => format!("test-worker: attack {attack} {target}: errno {}", error.raw_os_error().unwrap_or(-1)),
    };
    eprintln!("{line}");
    line
}

/// Plays `attack`; returns the lines reporting each attempt.
fn play(attack: Attack, options: &Options) -> Vec<String> {
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

/// `test-worker chain --pid-dir DIR [--pause-ms N]`: forks, and the parent exits at once (or after N ms),
/// forever; every child first leaves its session with `setsid` and records itself as `DIR/<pid>` (`PID START`), so
/// a test can tell whether any generation survived.
fn chain(args: &[String]) -> ! {
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
fn spawn_child(options: &Options, name: &str, flags: &[&str], hold_stdout: bool) {
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

fn wait_for_file(path: &Path) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !path.exists() {
        assert!(Instant::now() < deadline, "{} did not appear", path.display());
        thread::sleep(Duration::from_millis(1));
    }
}

/// `test-worker child`: optionally leave the session, optionally start a sleeper, write the pid file, then sleep
/// forever or exit.
fn child(args: &[String]) -> ! {
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

/// `test-worker echo`: copy each line from stdin to stdout.
fn echo() -> ! {
    let mut input = io::stdin().lock();
    let mut out = io::stdout().lock();
    let mut line = Vec::with_capacity(256);
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => process::exit(0),
            Ok(_) => {
                if out.write_all(&line).and_then(|()| out.flush()).is_err() {
                    process::exit(0);
                }
            }
        }
    }
}

/// `serve --conformant`: the protocol's rules a worker keeps beyond answering (what the conformance kit checks),
/// and outputs the runtime's validator accepts. Without the flag the test worker answers whatever it is sent.
mod conformant {
    use std::fs;
    use std::path::Path;
    use std::time::SystemTime;

    use metewand_protocol::decode_message;
    use metewand_protocol::frame::{Frame, encode_value};
    use metewand_protocol::messages::{
        EvaluateRequest, ExecuteRequest, HelloRequest, MaterializeRequest, PrepareRequest, ResetRequest,
        ShutdownRequest,
    };
    use serde_json::{Value, json};
    use sha2::{Digest, Sha256};

    use super::Fault;

    /// What one session has established.
    #[derive(Debug, Default)]
    pub(super) struct State {
        role: Option<String>,
        prepared: bool,
        seed: u64,
    }

    /// The refusal a request gets instead of an answer, if any; exits with status 2 for a line without a usable id.
    pub(super) fn gate(state: &mut State, frame: &Frame, fault: Option<Fault>) -> Option<Vec<u8>> {
        let value = frame.value();
        let Some(id) = value.get("id").and_then(Value::as_str).filter(|id| !id.is_empty()) else {
            eprintln!("test-worker: a request without a usable id cannot be answered");
            std::process::exit(2);
        };
        let id = if fault == Some(Fault::MangleIds) { mangle(id) } else { id.to_owned() };
        let refuse = |code: &str, message: &str| {
            let answer = json!({"error": {"code": code, "message": message}, "id": id, "ok": false});
            Some(encode_value(&answer).expect("refusals are small"))
        };
        let Some(method) = value.get("method").and_then(Value::as_str) else {
            return refuse("invalid_request", "the request has no method string");
        };
        let decoded = match method {
            "hello" => decode_message::<HelloRequest>(frame).map(|hello| Some(hello.role.to_string())),
            "materialize" => decode_message::<MaterializeRequest>(frame).map(|_| None),
            "prepare" => decode_message::<PrepareRequest>(frame).map(|prepare| {
                state.seed = prepare.implementation_seed.get();
                None
            }),
            "execute" => decode_message::<ExecuteRequest>(frame).map(|_| None),
            "reset" => decode_message::<ResetRequest>(frame).map(|_| None),
            "evaluate" => decode_message::<EvaluateRequest>(frame).map(|_| None),
            "shutdown" => decode_message::<ShutdownRequest>(frame).map(|_| None),
            _ => return refuse("invalid_request", "unknown method"),
        };
        let hello_role = match decoded {
            Ok(role) => role,
            Err(error) => return refuse("invalid_request", &format!("invalid {method} request: {error}")),
        };
        if let Some(role) = hello_role {
            if state.role.is_some() && fault != Some(Fault::AcceptSecondHello) {
                return refuse("invalid_request", "hello was already answered");
            }
            state.role = Some(role);
            return None;
        }
        let Some(role) = state.role.as_deref() else {
            return if method == "shutdown" { None } else { refuse("invalid_request", "a request before hello") };
        };
        let serves = match role {
            "dataset_materializer" => ["materialize"].as_slice(),
            "implementation" => ["prepare", "execute", "reset"].as_slice(),
            _ => ["evaluate"].as_slice(),
        };
        if method != "shutdown" && !serves.contains(&method) {
            return refuse("unsupported_operation", &format!("the {role} role has no {method} request"));
        }
        match method {
            "prepare" => state.prepared = true,
            "reset" => state.prepared = false,
            "execute" if !state.prepared && fault != Some(Fault::ExecuteUnprepared) => {
                return refuse("invalid_request", "execute needs a successful prepare first");
            }
            _ => {}
        }
        None
    }

    /// `id` stripped to ASCII letters, digits and `-` (what a careless worker might do to an id).
    pub(super) fn mangle(id: &str) -> String {
        let kept: String = id.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
        if kept.is_empty() { "mangled".to_owned() } else { kept }
    }

    /// Replaces what the plain worker wrote with outputs the validator accepts: a dataset and a result whose
    /// contents depend on their seed only (unless `nondeterministic`), and a metrics document.
    pub(super) fn write_outputs(
        method: &str,
        frame: &Frame,
        state: &State,
        fault: Option<Fault>,
    ) -> Result<(), String> {
        let noise = if fault == Some(Fault::Nondeterministic) {
            let now = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
            format!("clock {now}\n")
        } else {
            String::new()
        };
        match method {
            "materialize" => {
                let request: MaterializeRequest = decode_message(frame).map_err(|e| e.to_string())?;
                let seed = request.dataset_seed.get();
                let dir = Path::new(request.output_dir.as_str());
                let file = record(dir, "rows.csv", &format!("x\n{seed}\n{noise}"))?;
                let manifest = json!({"complete": true, "data": {"seed": seed}, "files": [file]});
                write(&dir.join("dataset-manifest.json"), &manifest)
            }
            "execute" => {
                let request: ExecuteRequest = decode_message(frame).map_err(|e| e.to_string())?;
                let dir = Path::new(request.result_dir.as_str());
                let file = record(dir, "answer.txt", &format!("{}\n{noise}", state.seed))?;
                write(&dir.join("result.json"), &json!({"data": {"seed": state.seed}, "files": [file]}))
            }
            "evaluate" => {
                let request: EvaluateRequest = decode_message(frame).map_err(|e| e.to_string())?;
                write(Path::new(request.metrics_path.as_str()), &json!({"metrics": {"error": 0}}))
            }
            _ => Ok(()),
        }
    }

    fn record(dir: &Path, name: &str, contents: &str) -> Result<Value, String> {
        let path = dir.join(name);
        fs::write(&path, contents).map_err(|error| format!("writing {}: {error}", path.display()))?;
        let digest: String = Sha256::digest(contents.as_bytes()).iter().map(|byte| format!("{byte:02x}")).collect();
        Ok(json!({"path": name, "sha256": digest, "size": contents.len()}))
    }

    fn write(path: &Path, document: &Value) -> Result<(), String> {
        let bytes = encode_value(document).map_err(|error| error.to_string())?;
        fs::write(path, bytes).map_err(|error| format!("writing {}: {error}", path.display()))
    }
}
