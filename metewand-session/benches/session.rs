//! The cost of a session: one request/response exchange (`reset` and its acknowledgment) with the test worker,
//! measured in the same run beside (a) the same line echoed through a raw pipe by a child process and (b) that
//! echo through one thread hand-off each way, the floor when a dedicated thread did a session's protocol I/O (a
//! session now reads and writes on its own thread, so its exchange should come near (a)); then the time
//! from spawning the test worker to a completed handshake, and the time a clean shutdown takes (acknowledgment,
//! exit, the sweep for leftovers, reaping, joining the threads).
//!
//! The target is an exchange that costs at most 1.2 times (b). The `confinement` group measures spawn-to-ready
//! of the test worker and of a Python SDK worker with and without full confinement (Landlock rules, scopes, TCP
//! denial, the PID, network, IPC and mount namespaces with the private view, no capability, rlimits), in the same
//! run, the PID namespace made both ways (by the orchestrator where it may, and inside a user namespace, with the
//! worker's supervisor); the target is at most 3 ms added per session.
//!
//! On a small virtual machine, wake-ups across CPUs dominate and vary by tens of microseconds from run to run;
//! pinning the run to one CPU (`taskset -c 1 cargo bench -p metewand-session --bench session`) measures the CPU
//! cost each path adds instead.

#![allow(clippy::disallowed_methods, reason = "benchmarks make and read their own files in temporary folders")]

use std::hint::black_box;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use metewand_protocol::common::{Capability, WorkerId};
use metewand_session::{
    Confinement, ImplementationSession, Limits, PhaseTimeouts, ProcessIsolation, SessionConfig, WorkerCommand,
};
use tempfile::TempDir;

/// The bytes of the `reset` request the session sends, so the echo moves a line of the same length.
const LINE: &[u8] = b"{\"id\":\"1\",\"method\":\"reset\"}\n";

struct Echo {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Echo {
    fn start() -> Echo {
        let mut child = Command::new(metewand_testkit::test_worker())
            .arg("echo")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the echo starts");
        let stdin = child.stdin.take().expect("piped");
        let stdout = BufReader::new(child.stdout.take().expect("piped"));
        Echo { child, stdin, stdout }
    }

    fn round_trip(&mut self, line: &[u8], reply: &mut Vec<u8>) {
        self.stdin.write_all(line).expect("the echo reads");
        reply.clear();
        self.stdout.read_until(b'\n', reply).expect("the echo writes");
        assert_eq!(reply.len(), line.len());
    }

    fn stop(self) {
        let Echo { mut child, stdin, stdout } = self;
        drop((stdin, stdout));
        child.wait().expect("the echo exits at end of input");
    }
}

fn config(dir: &TempDir) -> SessionConfig {
    let command = WorkerCommand::new(metewand_testkit::test_worker(), dir.path()).args(["serve", "--quiet"]);
    let worker_id = WorkerId::try_from(format!("mw1-resolved-worker-{}", "0".repeat(64))).expect("a worker id");
    let timeouts = PhaseTimeouts::uniform(Duration::from_secs(30));
    SessionConfig::new(command, worker_id, timeouts, dir.path().join("worker.log")).select(Capability::OneShot)
}

fn exchange(c: &mut Criterion) {
    let mut group = c.benchmark_group("exchange");

    let mut raw = Echo::start();
    let mut reply = Vec::new();
    group.bench_function("raw_pipe_echo", |b| b.iter(|| raw.round_trip(black_box(LINE), &mut reply)));
    raw.stop();

    let (requests, thread_requests) = mpsc::channel::<Vec<u8>>();
    let (thread_replies, replies) = mpsc::channel::<Vec<u8>>();
    let handoff = thread::spawn(move || {
        let mut echo = Echo::start();
        let mut reply = Vec::new();
        while let Ok(line) = thread_requests.recv() {
            echo.round_trip(&line, &mut reply);
            thread_replies.send(reply.clone()).expect("the caller waits");
        }
        echo.stop();
    });
    group.bench_function("echo_through_thread_handoff", |b| {
        b.iter(|| {
            requests.send(black_box(LINE).to_vec()).expect("the thread runs");
            replies.recv().expect("the thread answers")
        })
    });
    drop(requests);
    handoff.join().expect("the hand-off thread ends");

    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut session = ImplementationSession::connect(config(&dir)).expect("the test worker connects");
    group.bench_function("session_reset", |b| b.iter(|| session.reset().expect("reset is acknowledged")));
    session.shutdown().expect("the test worker shuts down");
    group.finish();
}

fn lifecycle(c: &mut Criterion) {
    let mut group = c.benchmark_group("lifecycle");
    group.sample_size(20);
    let dir = tempfile::tempdir().expect("a temporary directory");
    group.bench_function("spawn_to_ready", |b| {
        b.iter_custom(|iterations| {
            let mut total = Duration::ZERO;
            for _ in 0..iterations {
                let started = Instant::now();
                let session = ImplementationSession::connect(config(&dir)).expect("the test worker connects");
                total += started.elapsed();
                session.shutdown().expect("the test worker shuts down");
            }
            total
        })
    });
    group.bench_function("clean_shutdown", |b| {
        b.iter_custom(|iterations| {
            let mut total = Duration::ZERO;
            for _ in 0..iterations {
                let session = ImplementationSession::connect(config(&dir)).expect("the test worker connects");
                let started = Instant::now();
                session.shutdown().expect("the test worker shuts down");
                total += started.elapsed();
            }
            total
        })
    });
    group.finish();
}

/// A session configuration for `command` with a log of its own (logs are created exclusively), confined with
/// `isolation` or not at all (`None`).
fn fresh(dir: &TempDir, command: WorkerCommand, confined: Option<ProcessIsolation>) -> SessionConfig {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let worker_id = WorkerId::try_from(format!("mw1-resolved-worker-{}", "0".repeat(64))).expect("a worker id");
    let timeouts = PhaseTimeouts::uniform(Duration::from_secs(30));
    let config = SessionConfig::new(command, worker_id, timeouts, dir.path().join(format!("worker-{n}.log")))
        .select(Capability::OneShot);
    match confined {
        Some(isolation) => {
            let tmp = dir.path().join("tmp");
            let _ = std::fs::create_dir(&tmp);
            // Everything an attempt's worker gets: Landlock, the namespaces, the private view, no capability, the
            // default limits (with the output watch).
            let confinement =
                Confinement::new().writable(tmp).limits(Limits::default()).process_isolation(isolation).private_view();
            config.confine(confinement)
        }
        None => config,
    }
}

fn confinement(c: &mut Criterion) {
    let mut group = c.benchmark_group("confinement");
    group.sample_size(20);
    // Searchable by everyone: run by root, a confined worker runs as an identity of its own, whose working directory
    // this is.
    let dir = tempfile::Builder::new()
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .tempdir()
        .expect("a temporary directory");
    let sdk = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../sdk-python");
    let python = WorkerCommand::new("python3", dir.path())
        .arg(sdk.join("tests/workers/implementation.py"))
        .env("PYTHONPATH", sdk.join("src"))
        .env("PYTHONDONTWRITEBYTECODE", "1");
    let test_worker = WorkerCommand::new(metewand_testkit::test_worker(), dir.path()).args(["serve", "--quiet"]);
    for (name, command) in [("test_worker", test_worker), ("python_sdk", python)] {
        let variants = [
            ("unconfined", None),
            // A PID namespace the orchestrator makes itself where it may (as root), otherwise the user-namespace
            // route; the next variant chooses the user-namespace route in any case.
            ("confined", Some(ProcessIsolation::Namespace)),
            ("confined_user_namespace", Some(ProcessIsolation::UserNamespace)),
        ];
        for (variant, confined) in variants {
            let id = format!("{name}_spawn_to_ready_{variant}");
            group.bench_function(&id, |b| {
                b.iter_custom(|iterations| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iterations {
                        let config = fresh(&dir, command.clone(), confined);
                        let started = Instant::now();
                        let session = ImplementationSession::connect(config).expect("the worker connects");
                        total += started.elapsed();
                        if confined == Some(ProcessIsolation::UserNamespace) {
                            assert!(session.confinement().user_namespace, "the user-namespace route is measured");
                        }
                        if confined.is_some() {
                            assert!(session.confinement().is_full(), "full confinement is measured");
                        }
                        session.shutdown().expect("the worker shuts down");
                    }
                    total
                })
            });
        }
    }
    bare_namespaces(&mut group, &dir);
    group.finish();
}

/// The floor the session's own cost is measured against: the same test worker started by `unshare` in the
/// namespaces a confined worker gets (PID with a fresh `/proc`, mount, network, IPC), given the same hello over
/// plain pipes, and its shutdown: spawn-to-ready and shutdown-to-reaped with nothing of the session's around them.
/// Without root, `unshare` maps the user to root in a user namespace of its own, as it must to make the others.
fn bare_namespaces(group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>, dir: &TempDir) {
    let worker_id = format!("mw1-resolved-worker-{}", "0".repeat(64));
    let hello = format!(
        "{{\"id\":\"0\",\"method\":\"hello\",\"protocols\":[1],\"role\":\"implementation\",\"worker_id\":\"{worker_id}\"}}\n"
    );
    let start = || {
        let mut command = Command::new("unshare");
        // SAFETY: geteuid takes no arguments and cannot fail.
        if unsafe { libc::geteuid() } != 0 {
            command.arg("--map-root-user");
        }
        let mut child = command
            .args(["--pid", "--fork", "--mount", "--net", "--ipc", "--mount-proc"])
            .arg(metewand_testkit::test_worker())
            .args(["serve", "--quiet"])
            .current_dir(dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("unshare starts the test worker");
        let mut stdin = child.stdin.take().expect("piped");
        let mut stdout = BufReader::new(child.stdout.take().expect("piped"));
        stdin.write_all(hello.as_bytes()).expect("the hello is written");
        let mut answer = String::new();
        stdout.read_line(&mut answer).expect("the hello is answered");
        assert!(answer.contains("\"ok\":true"), "{answer}");
        (child, stdin, stdout)
    };
    let stop = |(mut child, mut stdin, mut stdout): (Child, ChildStdin, BufReader<ChildStdout>)| {
        stdin.write_all(b"{\"id\":\"1\",\"method\":\"shutdown\"}\n").expect("the shutdown is written");
        let mut answer = String::new();
        stdout.read_line(&mut answer).expect("the shutdown is answered");
        drop(stdin);
        assert!(child.wait().expect("reaped").success());
    };
    group.bench_function("test_worker_spawn_to_ready_bare_namespaces", |b| {
        b.iter_custom(|iterations| {
            let mut total = Duration::ZERO;
            for _ in 0..iterations {
                let started = Instant::now();
                let worker = start();
                total += started.elapsed();
                stop(worker);
            }
            total
        })
    });
    group.bench_function("test_worker_shutdown_to_reaped_bare_namespaces", |b| {
        b.iter_custom(|iterations| {
            let mut total = Duration::ZERO;
            for _ in 0..iterations {
                let worker = start();
                let started = Instant::now();
                stop(worker);
                total += started.elapsed();
            }
            total
        })
    });
    let test_worker = WorkerCommand::new(metewand_testkit::test_worker(), dir.path()).args(["serve", "--quiet"]);
    for (variant, isolation) in
        [("confined", ProcessIsolation::Namespace), ("confined_user_namespace", ProcessIsolation::UserNamespace)]
    {
        group.bench_function(format!("test_worker_shutdown_to_reaped_{variant}"), |b| {
            b.iter_custom(|iterations| {
                let mut total = Duration::ZERO;
                for _ in 0..iterations {
                    let config = fresh(dir, test_worker.clone(), Some(isolation));
                    let session = ImplementationSession::connect(config).expect("the worker connects");
                    let started = Instant::now();
                    session.shutdown().expect("the worker shuts down");
                    total += started.elapsed();
                }
                total
            })
        });
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4));
    targets = exchange, lifecycle, confinement
}
criterion_main!(benches);
