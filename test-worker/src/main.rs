//! A direct protocol worker (`"sdk": null`) whose behaviour a test chooses on its command line, for
//! metewand-runtime's session tests and benchmark. It is never published.
//!
//! ```text
//! test-worker serve [--fault NAME@METHOD]... [--delay METHOD=MS]... [--pid-dir DIR]
//!                   [--capabilities LIST] [--sdk NAME@VERSION] [--flood-bytes N] [--quiet]
//! test-worker echo
//! test-worker child --pid-file FILE [--setsid] [--child-pid-file FILE] [--exit-after-spawn]
//! ```
//!
//! `serve` is well-behaved for every role: a materializer writes a tiny dataset and its manifest, an
//! implementation acknowledges `prepare` and `reset` and writes a result on `execute`, an evaluator writes metrics
//! and answers `reached`; `shutdown` is acknowledged and followed by exit status 0. Each `--fault NAME@METHOD`
//! makes it misbehave when it receives that method (see [`Fault`]); `--delay METHOD=MS` sleeps before answering.
//! Unless `--quiet`, it writes one line to stderr per request. Pid files, written by the processes a fault
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

use metewand_protocol::frame::{Frame, FrameReader, encode_value};
use metewand_protocol::messages::{
    Capability, EvaluateRequest, ExecuteRequest, HelloRequest, MaterializeRequest, PrepareRequest, ResetRequest,
    ShutdownRequest,
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
            _ => usage(&format!("unknown fault {name:?}")),
        }
    }
}

#[derive(Debug, Default)]
struct Options {
    faults: BTreeMap<String, Fault>,
    delays: BTreeMap<String, Duration>,
    pid_dir: Option<PathBuf>,
    capabilities: Option<Vec<Capability>>,
    sdk: Option<(String, String)>,
    flood_bytes: usize,
    quiet: bool,
}

fn main() {
    let args: Vec<String> = env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("serve") => serve(&parse_serve(&args[1..])),
        Some("echo") => echo(),
        Some("child") => child(&args[1..]),
        _ => usage("expected serve, echo or child"),
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
        let fault = options.faults.get(&method).copied();
        let mut answer = match answer(&method, &frame, options, fault) {
            Ok(answer) => answer,
            Err(problem) => {
                eprintln!("test-worker: cannot answer {method}: {problem}");
                process::exit(2);
            }
        };
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
            Some(Fault::AnswerTwiceLate | Fault::AnswerThenExit | Fault::StopReading | Fault::Fail) => {}
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

#[allow(clippy::zombie_processes, reason = "the child outlives this process unless it is the double fork's middle")]
/// Starts `test-worker child`, writing its pid file as `<name>.pid` in the pid directory, and waits until it is
/// ready (for a double fork: until the intermediate child has exited).
fn spawn_child(options: &Options, name: &str, flags: &[&str], hold_stdout: bool) {
    let dir = options.pid_dir.as_deref().unwrap_or_else(|| usage("faults that start processes need --pid-dir"));
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
    let stat = fs::read_to_string("/proc/self/stat").expect("/proc is mounted");
    let start = stat.rsplit_once(')').and_then(|(_, tail)| tail.split_whitespace().nth(19)).expect("a stat line");
    let temporary = pid_file.with_extension("tmp");
    fs::write(&temporary, format!("{} {start}\n", process::id())).expect("the pid file is written");
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
