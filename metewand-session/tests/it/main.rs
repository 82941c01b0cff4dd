//! Worker sessions against the test worker: each role well-behaved, each misbehaviour ending in its own typed
//! error within its deadline, and no process or session thread left behind.
//!
//! Limits are short (about a second) only for the phase under test and generous (20 s) elsewhere, so the suite
//! stays fast without being flaky on a busy two-core machine.

#![allow(clippy::disallowed_methods, reason = "tests make and read their own files in temporary folders")]

mod confinement;
mod deadlines;
mod filter;
mod handshake;
mod hold;
mod identity;
mod memory;
mod methods;
mod misbehaviour;
mod processes;
mod roles;
mod stream;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use metewand_protocol::Phase;
use metewand_protocol::common::{Capability, WorkerId};
use metewand_protocol::messages::Path as WirePath;
use metewand_protocol::messages::ProblemContractRef;
use metewand_protocol::strict::{JsonObject, SafeUint};
use metewand_session::{
    EvaluateParams, ExecuteParams, MaterializeParams, PhaseTimeouts, PrepareParams, SessionConfig, SessionError,
    WorkerCommand,
};
use tempfile::TempDir;

pub(crate) const WORKER_ID: &str =
    "mw1-resolved-worker-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/// The limit of every phase that is not under test.
pub(crate) const GENEROUS: Duration = Duration::from_secs(20);
/// The limit of the phase under test.
pub(crate) const SHORT: Duration = Duration::from_secs(1);
/// How long ending a session (killing, reaping, joining) may add to a deadline.
pub(crate) const CLEANUP_SLACK: Duration = Duration::from_secs(5);

/// Generous limits everywhere except `phase`.
pub(crate) fn short(phase: Phase) -> PhaseTimeouts {
    let mut timeouts = PhaseTimeouts::uniform(GENEROUS);
    match phase {
        Phase::Hello => timeouts.hello = SHORT,
        Phase::Materialize => timeouts.materialize = SHORT,
        Phase::Prepare => timeouts.prepare = SHORT,
        Phase::Execute => timeouts.execute = SHORT,
        Phase::Reset => timeouts.reset = SHORT,
        Phase::Evaluate => timeouts.evaluate = SHORT,
        Phase::Shutdown => timeouts.shutdown = SHORT,
    }
    timeouts
}

/// A temporary directory for one test: the log, the pid files, and the directories requests name.
pub(crate) struct Fixture {
    dir: TempDir,
}

impl Fixture {
    /// The folders are searchable by everyone: run by root, a confined worker runs as an identity of its own,
    /// which must reach its working directory and what its requests name.
    pub(crate) fn new() -> Fixture {
        use std::os::unix::fs::PermissionsExt;
        let open = fs::Permissions::from_mode(0o755);
        let dir = tempfile::Builder::new().permissions(open.clone()).tempdir().expect("a temporary directory");
        for sub in ["pids", "source", "dataset", "result", "metrics"] {
            fs::create_dir(dir.path().join(sub)).expect("a subdirectory");
            fs::set_permissions(dir.path().join(sub), open.clone()).expect("its mode");
        }
        Fixture { dir }
    }

    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    pub(crate) fn log(&self) -> PathBuf {
        self.path("worker.log")
    }

    /// The test worker serving with `args` (faults, delays, options), under `timeouts`.
    pub(crate) fn config(&self, args: &[&str], timeouts: PhaseTimeouts) -> SessionConfig {
        let command = WorkerCommand::new(metewand_testkit::test_worker(), self.dir.path())
            .arg("serve")
            .arg("--pid-dir")
            .arg(self.path("pids"))
            .args(args);
        SessionConfig::new(command, worker_id(), timeouts, self.log())
    }

    /// Like [`Fixture::config`], selecting `one_shot` as an implementation's plan does.
    pub(crate) fn implementation(&self, args: &[&str], timeouts: PhaseTimeouts) -> SessionConfig {
        self.config(args, timeouts).select(Capability::OneShot)
    }

    fn wire(&self, name: &str) -> WirePath {
        WirePath::try_from(self.path(name).to_str().expect("a UTF-8 temporary path")).expect("a nonempty path")
    }

    pub(crate) fn materialize(&self) -> MaterializeParams {
        MaterializeParams {
            source_dir: self.wire("source"),
            dataset_parameters: object(serde_json::json!({"rows": 2})),
            dataset_seed: SafeUint::from(17_u32),
            output_dir: self.wire("dataset"),
        }
    }

    pub(crate) fn prepare(&self) -> PrepareParams {
        PrepareParams {
            dataset_dir: self.wire("dataset"),
            problem_contract_id: contract(),
            problem_parameters: object(serde_json::json!({"lambda": 0.1})),
            implementation_parameters: object(serde_json::json!({"solver": "fast"})),
            implementation_seed: SafeUint::from(23_u32),
        }
    }

    pub(crate) fn execute(&self) -> ExecuteParams {
        ExecuteParams { result_dir: self.wire("result") }
    }

    pub(crate) fn evaluate(&self) -> EvaluateParams {
        EvaluateParams {
            dataset_dir: self.wire("dataset"),
            result_dir: self.wire("result"),
            metrics_path: self.wire("metrics/metrics.json"),
            problem_contract_id: contract(),
            problem_parameters: object(serde_json::json!({"lambda": 0.1})),
        }
    }

    /// Every process the test worker's faults started, from their pid files: name, pid, start time.
    pub(crate) fn started_processes(&self) -> Vec<(String, i32, u64)> {
        let mut processes: Vec<(String, i32, u64)> = fs::read_dir(self.path("pids"))
            .expect("the pid directory")
            .map(|entry| entry.expect("a pid file").path())
            .filter(|path| path.extension().is_some_and(|extension| extension == "pid"))
            .map(|path| {
                let text = fs::read_to_string(&path).expect("a pid file");
                let (pid, start) = text.trim().split_once(' ').expect("PID START");
                let name = path.file_stem().unwrap().to_string_lossy().into_owned();
                (name, pid.parse().expect("a pid"), start.parse().expect("a start time"))
            })
            .collect();
        processes.sort();
        processes
    }
}

pub(crate) fn worker_id() -> WorkerId {
    WorkerId::try_from(WORKER_ID).expect("a valid worker id")
}

fn contract() -> ProblemContractRef {
    ProblemContractRef::try_from("mw1-problem-contract-abc").expect("a valid contract id")
}

pub(crate) fn object(value: serde_json::Value) -> JsonObject {
    value.as_object().expect("an object").clone()
}

/// The start time of a process, or `None` if it does not exist.
fn start_time(pid: i32) -> Option<u64> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(')')?.1.split_whitespace().nth(19)?.parse().ok()
}

/// Whether this very process (pid and start time) still exists, even as a zombie.
pub(crate) fn exists(pid: i32, start: u64) -> bool {
    start_time(pid) == Some(start)
}

/// Asserts the processes started by the test worker no longer exist, not even as zombies.
pub(crate) fn assert_all_gone(processes: &[(String, i32, u64)]) {
    for (name, pid, start) in processes {
        assert!(!exists(*pid, *start), "{name} (pid {pid}) was left behind");
    }
}

/// Asserts the worker is reaped and the session's two threads are joined.
pub(crate) fn assert_worker_and_threads_gone(pid: u32) {
    assert!(!Path::new(&format!("/proc/{pid}")).exists(), "worker {pid} was left behind");
    let names = [format!("mw-io-{pid}"), format!("mw-err-{pid}")];
    let tasks = fs::read_dir("/proc/self/task").expect("our own threads");
    for task in tasks {
        let comm = fs::read_to_string(task.expect("a thread").path().join("comm")).unwrap_or_default();
        assert!(!names.contains(&comm.trim().to_owned()), "session thread {} was left running", comm.trim());
    }
}

/// Asserts an operation took at least `at_least` and at most `at_least` plus the cleanup slack.
pub(crate) fn assert_took(started: Instant, at_least: Duration) {
    let took = started.elapsed();
    assert!(took >= at_least, "ended after {took:?}, before its {at_least:?} deadline");
    assert!(took <= at_least + CLEANUP_SLACK, "ended after {took:?}, long after its {at_least:?} deadline");
}

/// The error's message names the role and phase, and shows the stderr tail.
pub(crate) fn assert_reported(error: &SessionError, role: &str, phase: &str) {
    let message = error.to_string();
    assert!(message.starts_with(&format!("{role} worker failed in {phase}: ")), "{message}");
    for line in error.stderr_tail() {
        assert!(message.contains(line.as_str()), "the message lacks the stderr line {line:?}: {message}");
    }
    assert!(!message.ends_with('.'), "{message}");
}
