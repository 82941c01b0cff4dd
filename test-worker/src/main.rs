//! A direct protocol worker (`"sdk": null`) whose behaviour a test chooses on its command line, for
//! metewand-runtime's session tests and benchmark. It is never published.
//!
//! ```text
//! test-worker serve [--fault NAME@METHOD]... [--delay METHOD=MS]... [--pid-dir DIR (default: $TMPDIR)]
//!                   [--capabilities LIST] [--sdk NAME@VERSION] [--flood-bytes N] [--quiet] [--conformant]
//!                   [--attack NAME@METHOD]... [--answer-attacks] [--target PATH]... [--target-pid PID]
//!                   [--target-port PORT] [--target-fd FD] [--target-key KEY] [--big-bytes N] [--count N]
//!                   [--chain-pause-ms N] [--stream MODE] [--checkpoints N] [--checkpoint-ms MS]
//! test-worker echo
//! test-worker child --pid-file FILE [--setsid] [--child-pid-file FILE] [--exit-after-spawn]
//! test-worker chain --pid-dir DIR
//! test-worker whoami
//! test-worker leaderless-ticker | vfork-ticker [the worker's arguments]
//! ```
//!
//! The helpers repeat the arguments of the worker that started them after their own name, so that a test finds
//! every process of its worker by a word of its command line (a `--pid-dir` of its own).
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
//! conformance kit checks (a second `hello`, another role's request, a malformed request, `execute` or
//! `execute_stream` before `prepare`, and `execute_stream` unless it reports `streaming_profile` are refused, as the
//! protocol's table of request methods says) and writes outputs the validator accepts; the faults after `FloodStderr` break those
//! rules one at a time. Pid files, written by the processes a fault
//! starts, hold `PID START` (the start time from `/proc/PID/stat`), so a test can tell whether that very process
//! still exists.
//!
//! `echo` copies each stdin line to stdout: the raw pipe the benchmark compares sessions with. `child` is what
//! the faults that start processes run. `whoami` prints its effective ids: what a file a worker planted runs as.
//!
//! This file reads the command line and serves; `attack.rs` plays the attacks (`syscalls.rs` the calls the
//! system call filter refuses), `children.rs` holds the processes
//! faults and attacks start, `conformant.rs` the rules `--conformant` keeps, and `stream.rs` serves
//! `execute_stream`, honestly or breaking one of its rules (`--stream MODE`).

#![allow(
    clippy::disallowed_methods,
    reason = "a worker playing attacks opens what it is told to, to show the executor stops it"
)]

mod attack;
mod children;
mod conformant;
mod recall;
mod stream;
mod syscalls;

use std::collections::BTreeMap;
use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;
use std::{env, fs, process, thread};

use metewand_protocol::common::Capability;
use metewand_protocol::decode::precompile_requests;
use metewand_protocol::frame::{Frame, FrameReader, encode_value};
use metewand_protocol::messages::{
    EvaluateRequest, ExecuteRequest, HelloRequest, MaterializeRequest, PrepareRequest, ResetRequest, ShutdownRequest,
};
use metewand_protocol::{Message, decode_message, methods};
use serde_json::{Value, json};

use attack::{Attack, play};
use children::{chain, child, spawn_child};

/// Another valid resolved identity, for the worker that repeats the wrong one.
const OTHER_WORKER_ID: &str = "mw1-resolved-worker-ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff";

/// A misbehaviour, triggered by one method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    /// Never answer (and keep running).
    NeverAnswer,
    /// Never answer, computing on one CPU all the while: a worker past a CPU limit.
    Spin,
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
    /// Write `test-worker: tick <CLOCK_MONOTONIC ns>` to stderr, answer, and keep a thread writing one every
    /// millisecond for as long as the worker runs: a neighbour whose every moment of running shows in its log.
    Tick,
    /// Start `test-worker leaderless-ticker` (a helper whose main thread exits while a thread of it writes a tick
    /// every millisecond: its `/proc/<pid>/stat` says `Z` while it runs), then answer.
    TickLeaderless,
    /// Start `test-worker vfork-ticker` (a helper blocked in `vfork` for good, whose child writes a tick every
    /// millisecond: a parent no signal can stop before its child execs), then answer.
    TickVfork,
    /// At `prepare`, remember the request's inputs (its parameters, seed and every file of its dataset) and write
    /// `test-worker: memoized` when this process saw the same ones before: the answer a memoizing solver would give
    /// at once.
    Memoize,
    /// Write `test-worker: cpus <method> <list>` (this thread's affinity) to stderr and answer; at `hello`, also
    /// keep a thread that writes `test-worker: thread cpus <list>` whenever its own affinity changes (looked at every
    /// millisecond): a worker that hopes a helper started at hello stays on the CPUs it was started on.
    Affinity,
    /// Write `test-worker: cgroup <line>` for each line of its `/proc/self/cgroup` (or `test-worker: cgroup errno
    /// N`) to stderr and answer: at `hello`, where the worker was before it ran anything else.
    Cgroup,
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
    /// Make the output the same whatever the seed, as an exact solver's is.
    IgnoreSeed,
    /// Answer `reset` and lose the state every later `execute` needs: each answers with a manifest it did not
    /// write.
    Corrupt,
    /// At `prepare`, look for a cache of its inputs in files (its `TMPDIR`, its working folder, `/tmp`,
    /// `/var/tmp`); at `execute`, answer at once from one, or else work 300 ms and write the cache everywhere it
    /// can, reporting each write as an attack (see `recall.rs`). Given for both methods.
    CacheFile,
    /// At `execute`, sleep 300 ms when the result folder's path has a component `audits`: a time that depends on
    /// something the worker was not given.
    SlowElsewhere,
}

impl Fault {
    fn parse(name: &str) -> Fault {
        match name {
            "never-answer" => Fault::NeverAnswer,
            "spin" => Fault::Spin,
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
            "tick" => Fault::Tick,
            "tick-leaderless" => Fault::TickLeaderless,
            "tick-vfork" => Fault::TickVfork,
            "memoize" => Fault::Memoize,
            "affinity" => Fault::Affinity,
            "cgroup" => Fault::Cgroup,
            "accept-second-hello" => Fault::AcceptSecondHello,
            "mangle-ids" => Fault::MangleIds,
            "execute-unprepared" => Fault::ExecuteUnprepared,
            "junk-stdout" => Fault::JunkStdout,
            "nondeterministic" => Fault::Nondeterministic,
            "ignore-seed" => Fault::IgnoreSeed,
            "corrupt" => Fault::Corrupt,
            "cache-file" => Fault::CacheFile,
            "slow-elsewhere" => Fault::SlowElsewhere,
            _ => usage(&format!("unknown fault {name:?}")),
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
    stream: stream::Stream,
    checkpoints: Option<u64>,
    checkpoint_pause: Duration,
}

fn main() {
    let args: Vec<String> = env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("serve") => serve(&parse_serve(&args[1..])),
        Some("echo") => echo(),
        Some("child") => child(&args[1..]),
        Some("chain") => chain(&args[1..]),
        Some("whoami") => whoami(),
        Some("leaderless-ticker") => children::leaderless_ticker(),
        Some("vfork-ticker") => children::vfork_ticker(),
        _ => usage("expected serve, echo, child, chain, whoami, leaderless-ticker or vfork-ticker"),
    }
}

/// `whoami`: prints the effective user and group ids this process runs with (`euid N egid N`), as a test reads
/// them when another user runs a file a worker planted.
fn whoami() {
    // SAFETY: geteuid and getegid take no arguments and only read this process's credentials.
    let (euid, egid) = unsafe { (libc::geteuid(), libc::getegid()) };
    println!("euid {euid} egid {egid}");
}

/// Reports one attack attempt's outcome on stderr, and returns the line.
pub(crate) fn report<T>(attack: &str, target: &str, outcome: io::Result<T>) -> String {
    let line = match outcome {
        Ok(_) => format!("test-worker: attack {attack} {target}: ok"),
        Err(error) => format!("test-worker: attack {attack} {target}: errno {}", error.raw_os_error().unwrap_or(-1)),
    };
    eprintln!("{line}");
    line
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
            "--stream" => {
                let value = value();
                options.stream = stream::Stream::parse(&value).unwrap_or_else(|| usage(&format!("bad stream {value}")));
            }
            "--checkpoints" => options.checkpoints = Some(value().parse().unwrap_or_else(|_| usage("--checkpoints"))),
            "--checkpoint-ms" => {
                options.checkpoint_pause =
                    Duration::from_millis(value().parse().unwrap_or_else(|_| usage("--checkpoint-ms")));
            }
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

/// What the worker reports at `hello`: `--capabilities`, or `one_shot`.
fn capabilities(options: &Options) -> Vec<Capability> {
    options.capabilities.clone().unwrap_or_else(|| vec![Capability::OneShot])
}

fn serve(options: &Options) -> ! {
    let mut reader = FrameReader::new(io::stdin().lock());
    let mut out = io::stdout().lock();
    let mut state = conformant::State::default();
    let reported = capabilities(options);
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
        let streamed = method == methods::EXECUTE_STREAM.name;
        let attempts = match options.attacks.get(&method) {
            Some(&attack) if !streamed => play(attack, options),
            _ => Vec::new(),
        };
        let fault = options.faults.get(&method).copied();
        if options.conformant
            && let Some(refusal) = conformant::gate(&mut state, &frame, fault, &reported)
        {
            if out.write_all(&refusal).and_then(|()| out.flush()).is_err() {
                process::exit(2);
            }
            continue;
        }
        if streamed {
            if let Err(problem) = stream::serve(&mut reader, &mut out, &frame, options, state.seed) {
                eprintln!("test-worker: cannot stream: {problem}");
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
            Some(Fault::Spin) => {
                eprintln!("test-worker: spinning in {method}");
                let mut state = 1_u64;
                loop {
                    state = std::hint::black_box(state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1));
                }
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
            Some(Fault::Tick) => {
                // The first tick before the answer: the log shows the worker running from then on.
                write_tick();
                thread::spawn(tick);
            }
            Some(Fault::TickLeaderless) => children::spawn_helper("leaderless-ticker"),
            Some(Fault::TickVfork) => children::spawn_helper("vfork-ticker"),
            Some(Fault::Affinity) => {
                let line = format!("test-worker: cpus {method} {}\n", own_cpus());
                let _ = io::stderr().write_all(line.as_bytes());
                if method == "hello" {
                    // The helper's first line is written before the answer: it ran on the CPUs of the hello.
                    let (started, first) = std::sync::mpsc::channel();
                    thread::spawn(move || watch_cpus(&started));
                    let _ = first.recv();
                } else {
                    // And where every other thread is as this method runs, read from here: the helper's own lines
                    // wait for it to be scheduled, which a loaded machine may not do before the session ends.
                    let _ = io::stderr().write_all(other_threads_cpus().as_bytes());
                }
            }
            Some(Fault::Cgroup) => {
                let lines = match fs::read_to_string("/proc/self/cgroup") {
                    Ok(text) => text.lines().map(|line| format!("test-worker: cgroup {line}\n")).collect(),
                    Err(error) => format!("test-worker: cgroup errno {}\n", error.raw_os_error().unwrap_or(0)),
                };
                let _ = io::stderr().write_all(lines.as_bytes());
            }
            Some(Fault::JunkStdout) => line = [b"debug: about to answer\n".to_vec(), line].concat(),
            Some(
                Fault::AnswerTwiceLate
                | Fault::AnswerThenExit
                | Fault::StopReading
                | Fault::Fail
                | Fault::AcceptSecondHello
                | Fault::MangleIds
                | Fault::ExecuteUnprepared
                | Fault::Nondeterministic
                | Fault::IgnoreSeed
                | Fault::Memoize
                | Fault::CacheFile
                | Fault::SlowElsewhere,
            ) => {}
            Some(Fault::Corrupt) => CORRUPTED.store(true, std::sync::atomic::Ordering::SeqCst),
        }
        if out.write_all(&line).and_then(|()| out.flush()).is_err() {
            process::exit(2);
        }
        attack::join_peek();
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

/// Set once a `reset` with [`Fault::Corrupt`] was answered.
static CORRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether a `reset` with [`Fault::Corrupt`] was answered.
fn corrupted() -> bool {
    CORRUPTED.load(std::sync::atomic::Ordering::SeqCst)
}

/// Writes the monotonic clock to stderr every millisecond, forever.
pub(crate) fn tick() {
    loop {
        thread::sleep(Duration::from_millis(1));
        write_tick();
    }
}

/// The calling thread's CPUs as the kernel lists them, or `?` where they cannot be read.
fn own_cpus() -> String {
    cpus_of(Path::new("/proc/thread-self")).unwrap_or_else(|| "?".to_owned())
}

/// The CPUs of the thread whose `/proc` folder is `task`, as its `status` lists them.
fn cpus_of(task: &Path) -> Option<String> {
    let status = fs::read_to_string(task.join("status")).ok()?;
    status.lines().find_map(|line| line.strip_prefix("Cpus_allowed_list:")).map(|list| list.trim().to_owned())
}

/// A `test-worker: thread cpus <list>` line for each of the process's threads but the calling one.
fn other_threads_cpus() -> String {
    let own = fs::read_link("/proc/thread-self").ok().and_then(|link| link.file_name().map(ToOwned::to_owned));
    let Ok(tasks) = fs::read_dir("/proc/self/task") else { return String::new() };
    let mut lines = String::new();
    for task in tasks.flatten().filter(|task| Some(task.file_name()) != own) {
        if let Some(list) = cpus_of(&task.path()) {
            lines.push_str(&format!("test-worker: thread cpus {list}\n"));
        }
    }
    lines
}

fn watch_cpus(started: &std::sync::mpsc::Sender<()>) {
    let mut last = String::new();
    loop {
        let now = own_cpus();
        if now != last {
            let _ = io::stderr().write_all(format!("test-worker: thread cpus {now}\n").as_bytes());
            let _ = started.send(());
            last = now;
        }
        thread::sleep(Duration::from_millis(1));
    }
}

pub(crate) fn write_tick() {
    let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes into the local timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
    // One write per line: `eprintln!` writes its pieces separately to the unbuffered stderr, so a process that
    // exits between them (at shutdown, while this thread runs) would leave a line without its number.
    let line = format!("test-worker: tick {}\n", now.tv_sec as u128 * 1_000_000_000 + now.tv_nsec as u128);
    let _ = io::stderr().write_all(line.as_bytes());
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
        let _ = io::stderr().write_all(format!("test-worker: failing {method}\n").as_bytes());
        let error = json!({"code": "operation_failed", "details": {"iterations": 100}, "message": message});
        return Ok(json!({"error": error, "id": id, "ok": false}));
    }
    let ack = json!({"id": id, "ok": true});
    Ok(match method {
        "hello" => {
            let hello: HelloRequest = decode(request)?;
            // Compiled before hello is answered, as a worker should: compiling a validator at its first request
            // would put the cost inside that request's time.
            precompile_requests(hello.role);
            let capabilities = capabilities(options);
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
            let prepare: PrepareRequest = decode(request)?;
            if fault == Some(Fault::Memoize) && !remember(&prepare)? {
                eprintln!("test-worker: memoized");
            }
            if fault == Some(Fault::CacheFile) {
                recall::look_up(&prepare);
            }
            ack
        }
        "execute" => {
            let request: ExecuteRequest = decode(request)?;
            match fault {
                Some(Fault::CacheFile) => recall::execute_cached(),
                Some(Fault::SlowElsewhere) => recall::slow_elsewhere(Path::new(request.result_dir.as_str())),
                _ => {}
            }
            if !corrupted() {
                write(&Path::new(request.result_dir.as_str()).join("result.json"), "{\"answer\":42}\n")?;
            }
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
            // The first checkpoint of a stream is not there yet; every later one and every final result is.
            let first = stream::checkpoint_of(Path::new(request.result_dir.as_str())) == Some(1);
            json!({"id": id, "ok": true, "verdict": if first { "not_reached" } else { "reached" }})
        }
        "shutdown" => {
            decode::<ShutdownRequest>(request)?;
            ack
        }
        other => return Err(format!("unknown method {other:?}")),
    })
}

/// A prepare's inputs as one text: its parameters and seed, and every file of its dataset by name and bytes.
pub(crate) fn inputs_key(prepare: &PrepareRequest) -> Result<String, String> {
    let dataset = Path::new(prepare.dataset_dir.as_str());
    let mut files: Vec<(String, Vec<u8>)> = fs::read_dir(dataset)
        .map_err(|error| format!("listing {}: {error}", dataset.display()))?
        .filter_map(Result::ok)
        .map(|entry| (entry.file_name().to_string_lossy().into_owned(), fs::read(entry.path()).unwrap_or_default()))
        .collect();
    files.sort();
    Ok(format!(
        "{} {} {} {:?}",
        serde_json::to_string(&prepare.problem_parameters).unwrap_or_default(),
        serde_json::to_string(&prepare.implementation_parameters).unwrap_or_default(),
        prepare.implementation_seed,
        files
    ))
}

/// Remembers a prepare's inputs: its parameters and seed, and every file of its dataset by name and bytes. False when
/// this process remembered the same inputs before.
fn remember(prepare: &PrepareRequest) -> Result<bool, String> {
    static SEEN: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let key = inputs_key(prepare)?;
    let mut seen = SEEN.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if seen.contains(&key) {
        return Ok(false);
    }
    seen.push(key);
    Ok(true)
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
