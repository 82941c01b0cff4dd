//! Sealed means stopped (DESIGN §24): while a session holds its worker (`while_stopped`, `pause`), no thread of it
//! runs, whatever shape its processes take: a helper thread ticking every millisecond, a helper whose main thread
//! has exited (its `stat` says `Z` while its other thread ticks), a parent blocked in `vfork` whose child ticks. A
//! hold the kernel cannot confirm fails closed: the worker is discarded with a protocol violation, never taken for
//! stopped. The control: the same log over the same interval without a hold shows the ticks. A chain of processes
//! each forking the next and exiting (every generation re-parented as the last ends) makes no generation while held.
//! A worker shown its inputs is held from before they appear until its next request is in its pipe, and a worker
//! that answered `execute` from the moment its answer is read.

use std::fs;
use std::time::Duration;

use metewand_protocol::Phase;
use metewand_session::{
    Confinement, ImplementationSession, MountConfinement, ProcessIsolation, ProtocolViolation, SessionErrorKind,
};
use metewand_testkit::{Requirement, skip};

use super::Fixture;
use super::confinement::{chain_processes, confined, unprivileged};

/// The monotonic clock, in nanoseconds, as the test worker's ticks write it.
fn now() -> u128 {
    let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes into the local timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
    now.tv_sec as u128 * 1_000_000_000 + now.tv_nsec as u128
}

/// The ticks in `log` written from `from` to `to`.
fn ticks_between(log: &str, from: u128, to: u128) -> usize {
    log.lines()
        .filter_map(|line| line.strip_prefix("test-worker: tick ")?.parse::<u128>().ok())
        .filter(|tick| (from..to).contains(tick))
        .count()
}

/// The worker starts its ticking helper at `prepare`; then 150 ms pass held (or not, for the control). Returns the
/// ticks written in that window (none while held) or the hold's failure (a hold that could not be confirmed).
fn ticks_while_held(fault: &str, isolation: ProcessIsolation, held: bool) -> Result<usize, SessionErrorKind> {
    let fixture = Fixture::new();
    // The worker's own `--pid-dir`, which its helpers' command lines repeat.
    let tag = fixture.path("pids").display().to_string();
    let args = ["--fault", &format!("{fault}@prepare"), "--quiet"];
    let config = confined(&fixture, &args, Confinement::new().process_isolation(isolation));
    let mut session = ImplementationSession::connect(config).unwrap();
    session.prepare(fixture.prepare()).unwrap();
    // Let the helper run a moment: its ticks before the window show it runs.
    std::thread::sleep(Duration::from_millis(20));
    let window = || {
        let from = now();
        std::thread::sleep(Duration::from_millis(150));
        (from, now())
    };
    let (from, to) = if held {
        match session.while_stopped(window) {
            Ok(window) => window,
            Err(error) => {
                assert_eq!(error.phase(), Phase::Prepare, "the phase whose answer was being held: {error}");
                assert!(!session.is_usable(), "a worker that could not be stopped is discarded");
                drop(session);
                assert_eq!(tagged(&tag), Vec::<i32>::new(), "{fault} on {isolation:?}: the discarded worker is gone");
                return Err(error.into_kind());
            }
        }
    } else {
        window()
    };
    // Ticks written just before the hold reach the log a moment later; the window's are what counts.
    std::thread::sleep(Duration::from_millis(20));
    let log = fs::read_to_string(fixture.log()).unwrap();
    assert!(ticks_between(&log, 0, from) > 0, "the helper ticked before the window:\n{log}");
    let _ = session.shutdown();
    assert_eq!(tagged(&tag), Vec::<i32>::new(), "{fault} on {isolation:?}: every process of the worker is gone");
    Ok(ticks_between(&log, from, to))
}

/// The processes whose command line holds `tag` (the worker's and its helpers').
fn tagged(tag: &str) -> Vec<i32> {
    let mut found = Vec::new();
    for entry in fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|name| name.parse::<i32>().ok()) else { continue };
        let Ok(line) = fs::read(entry.path().join("cmdline")) else { continue };
        if line.split(|&byte| byte == 0).any(|argument| argument == tag.as_bytes()) {
            found.push(pid);
        }
    }
    found
}

fn nothing_runs_while_held() {
    for isolation in [ProcessIsolation::Namespace, ProcessIsolation::Sweep] {
        for fault in ["tick", "tick-leaderless", "tick-vfork"] {
            match ticks_while_held(fault, isolation, true) {
                Ok(ticks) => assert_eq!(ticks, 0, "{fault} on {isolation:?} ran while held"),
                // A parent blocked in vfork is never stopped by a signal: without the kernel's freezer the hold
                // fails closed.
                Err(SessionErrorKind::ProtocolViolation(ProtocolViolation::NotStopped { .. })) => {
                    assert_eq!(fault, "tick-vfork", "only a vfork parent resists a stop ({isolation:?})");
                }
                Err(other) => panic!("{fault} on {isolation:?}: {other}"),
            }
            let ticks = ticks_while_held(fault, isolation, false).unwrap();
            assert!(ticks > 10, "the control: {fault} on {isolation:?} ticked {ticks} times in 150 ms unheld");
        }
    }
}

#[test]
fn no_thread_of_a_held_worker_runs_whatever_its_processes_look_like() {
    nothing_runs_while_held();
}

#[test]
fn without_privileges_no_thread_of_a_held_worker_runs_whatever_its_processes_look_like() {
    unprivileged(
        "hold::without_privileges_no_thread_of_a_held_worker_runs_whatever_its_processes_look_like",
        nothing_runs_while_held,
    );
}

/// A fork-and-`setsid` chain, each generation forking the next and exiting after `pause_ms` (so that each is
/// re-parented as the one before it ends, while the hold looks for them), makes no generation while held, five
/// times over; a hold that cannot be confirmed fails closed.
fn a_fork_chain_makes_nothing_while_held(isolation: ProcessIsolation, pause_ms: &str) {
    for round in 0..5 {
        let fixture = Fixture::new();
        let tag = fixture.path("pids").display().to_string();
        let args = ["--attack", "fork-chain@prepare", "--chain-pause-ms", pause_ms, "--quiet"];
        let config = confined(&fixture, &args, Confinement::new().process_isolation(isolation));
        let mut session = ImplementationSession::connect(config).unwrap();
        session.prepare(fixture.prepare()).unwrap();
        let before = chain_processes(&fixture).len();
        let held = session.while_stopped(|| {
            let from = chain_processes(&fixture).len();
            std::thread::sleep(Duration::from_millis(100));
            chain_processes(&fixture).len() - from
        });
        match held {
            Ok(made) => assert_eq!(made, 0, "round {round} on {isolation:?}: the chain went on while held"),
            Err(error) => {
                let kind = error.into_kind();
                assert!(
                    matches!(kind, SessionErrorKind::ProtocolViolation(ProtocolViolation::NotStopped { .. })),
                    "round {round} on {isolation:?}: {kind}"
                );
                assert!(!session.is_usable(), "a worker that could not be stopped is discarded");
            }
        }
        // The control: let go, the chain goes on (a discarded worker's chain ran before the hold).
        std::thread::sleep(Duration::from_millis(120));
        assert!(
            chain_processes(&fixture).len() > before,
            "round {round} on {isolation:?}: the chain ran after the hold"
        );
        drop(session);
        assert_eq!(tagged(&tag), Vec::<i32>::new(), "round {round} on {isolation:?}: the chain is gone");
    }
}

/// In a PID namespace at a generation a millisecond; under the sweep at the pace its own test plays a chain at
/// (50 ms a generation: a faster chain can outrun the end of a session there, see `confinement.rs`).
#[test]
fn a_fork_chain_makes_no_generation_while_its_worker_is_held() {
    a_fork_chain_makes_nothing_while_held(ProcessIsolation::Namespace, "1");
    a_fork_chain_makes_nothing_while_held(ProcessIsolation::Sweep, "50");
}

#[test]
fn without_privileges_a_fork_chain_makes_no_generation_while_its_worker_is_held() {
    unprivileged("hold::without_privileges_a_fork_chain_makes_no_generation_while_its_worker_is_held", || {
        a_fork_chain_makes_nothing_while_held(ProcessIsolation::Namespace, "1");
    });
}

/// A worker shown its inputs (its dataset once its hello is answered, as a fresh attempt's implementation is; then
/// another in place of the last after each `reset`, as a reused session's next attempt is) is held before they
/// appear and let go only once its next request is in its pipe. A thread of the worker started before each answer
/// watches its mount table; when the inputs appear it looks for a request waiting on stdin, and always finds one
/// (`EBUSY`): nothing the worker does with its inputs falls outside a request's time. Without the hold it would
/// find none (`ok`), and could work on its dataset for as long as the executor took to send `prepare`.
fn inputs_appear_only_with_a_request_waiting() {
    let fixture = Fixture::new();
    let elsewhere = tempfile::tempdir().unwrap();
    let target = elsewhere.path().join("dataset");
    let (first, second) = (elsewhere.path().join("first"), elsewhere.path().join("second"));
    for folder in [&target, &first, &second] {
        fs::create_dir(folder).unwrap();
        fs::write(folder.join("data.txt"), "1\n").unwrap();
    }
    let args = ["--attack", "gap-peek@hello", "--attack", "gap-peek@reset", "--quiet"];
    let confinement = Confinement::new().private_view().hide(elsewhere.path()).readable_after_hello(&target);
    let mut session = ImplementationSession::connect(confined(&fixture, &args, confinement)).unwrap();
    if session.confinement().mounts != MountConfinement::Private {
        skip(Requirement::PidNamespace, "the worker had no private view: nothing was shown in one");
        return;
    }
    session.prepare(fixture.prepare()).unwrap();
    for shown in [&first, &second] {
        session.reset().unwrap();
        session.show_in_place_of(shown, &target).unwrap();
        session.prepare(fixture.prepare()).unwrap();
    }
    session.shutdown().unwrap();
    let log = fs::read_to_string(fixture.log()).unwrap();
    let peeks: Vec<&str> =
        log.lines().filter_map(|line| line.strip_prefix("test-worker: attack gap-peek inputs: ")).collect();
    assert_eq!(peeks, ["errno 16"; 3], "after hello and after each reset:\n{log}");
}

#[test]
fn a_worker_shown_its_inputs_runs_again_only_with_a_request_waiting() {
    inputs_appear_only_with_a_request_waiting();
}

#[test]
fn without_privileges_a_worker_shown_its_inputs_runs_again_only_with_a_request_waiting() {
    unprivileged(
        "hold::without_privileges_a_worker_shown_its_inputs_runs_again_only_with_a_request_waiting",
        inputs_appear_only_with_a_request_waiting,
    );
}

/// A worker is stopped as soon as its `execute` answer is read, and stays stopped (for the seal) until its next
/// request: a helper thread ticking every millisecond from `execute` on writes no tick from the moment `execute`
/// returns until that request, so nothing it does after answering escapes the request's time. The control: once
/// `reset` lets it go on, it ticks again.
fn stopped_at_the_execute_answer() {
    for isolation in [ProcessIsolation::Namespace, ProcessIsolation::Sweep] {
        let fixture = Fixture::new();
        let args = ["--fault", "tick@execute", "--quiet"];
        let config = confined(&fixture, &args, Confinement::new().process_isolation(isolation));
        let mut session = ImplementationSession::connect(config).unwrap();
        session.prepare(fixture.prepare()).unwrap();
        session.execute(fixture.execute()).unwrap();
        let answered = now();
        std::thread::sleep(Duration::from_millis(100));
        let before_reset = now();
        session.reset().unwrap();
        std::thread::sleep(Duration::from_millis(40));
        let log = fs::read_to_string(fixture.log()).unwrap();
        assert!(ticks_between(&log, 0, answered) > 0, "{isolation:?}: the helper ticked in execute:\n{log}");
        assert_eq!(ticks_between(&log, answered, before_reset), 0, "{isolation:?}: ticks after the answer:\n{log}");
        assert!(ticks_between(&log, before_reset, now()) > 0, "{isolation:?}: the control, after reset:\n{log}");
        session.shutdown().unwrap();
    }
}

#[test]
fn a_worker_is_stopped_at_its_execute_answer_until_its_next_request() {
    stopped_at_the_execute_answer();
}

#[test]
fn without_privileges_a_worker_is_stopped_at_its_execute_answer_until_its_next_request() {
    unprivileged(
        "hold::without_privileges_a_worker_is_stopped_at_its_execute_answer_until_its_next_request",
        stopped_at_the_execute_answer,
    );
}
