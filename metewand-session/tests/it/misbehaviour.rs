//! Each misbehaviour of a worker ends in its own typed error within its deadline, with the worker's processes
//! and the session's threads gone.

use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::thread;
use std::time::{Duration, Instant};

use metewand_protocol::Phase;
use metewand_protocol::canonical::ParseErrorKind;
use metewand_protocol::decode::DecodeError;
use metewand_protocol::frame::FrameError;
use metewand_protocol::generated::attempt_record::FailureKind;
use metewand_protocol::tracker::TrackerError;
use metewand_session::{
    ExitCause, ImplementationSession, PhaseTimeouts, ProtocolViolation, SessionError, SessionErrorKind, TAIL_LINES,
};

use super::{
    CLEANUP_SLACK, Fixture, GENEROUS, SHORT, assert_all_gone, assert_reported, assert_took,
    assert_worker_and_threads_gone, object, short,
};

/// Connects an implementation with `args`, prepares, and executes; returns the execute error.
fn execute_error(args: &[&str], timeouts: PhaseTimeouts) -> (Fixture, SessionError, u32) {
    let fixture = Fixture::new();
    let mut session = ImplementationSession::connect(fixture.implementation(args, timeouts)).unwrap();
    let pid = session.pid();
    session.prepare(fixture.prepare()).unwrap();
    let error = session.execute(fixture.execute()).unwrap_err();
    assert!(!session.is_usable(), "{error} should have discarded the worker");
    assert!(error.discarded_worker());
    assert_eq!(error.phase(), Phase::Execute);
    assert_reported(&error, "implementation", "execute");
    drop(session);
    assert_worker_and_threads_gone(pid);
    (fixture, error, pid)
}

fn violation(error: &SessionError) -> &ProtocolViolation {
    match error.kind() {
        SessionErrorKind::ProtocolViolation(violation) => {
            assert_eq!(error.failure_kind(), Some(FailureKind::ProtocolViolation));
            violation
        }
        _ => panic!("expected a protocol violation: {error:?}"),
    }
}

fn parse_error(error: &SessionError) -> ParseErrorKind {
    match violation(error) {
        ProtocolViolation::Frame(FrameError::Parse(parse)) => parse.kind().clone(),
        other => panic!("expected a parse error: {other:?}"),
    }
}

#[test]
fn never_answering_is_a_phase_timeout() {
    let started = Instant::now();
    let fixture = Fixture::new();
    let config = fixture.implementation(&["--fault", "never-answer@execute"], short(Phase::Execute));
    let mut session = ImplementationSession::connect(config).unwrap();
    let pid = session.pid();
    let executing = Instant::now();
    let error = session.execute(fixture.execute()).unwrap_err();
    assert_took(executing, SHORT);
    assert!(matches!(error.kind(), SessionErrorKind::PhaseTimeout { limit } if *limit == SHORT), "{error:?}");
    assert_eq!(error.failure_kind(), Some(FailureKind::PhaseTimeout));
    let timing = error.timing().unwrap();
    assert!(timing.duration >= SHORT && !timing.ok, "{timing:?}");
    assert!(error.stderr_tail().contains(&"test-worker: received execute 1".to_owned()), "{error}");
    assert_reported(&error, "implementation", "execute");
    assert_worker_and_threads_gone(pid);
    assert!(started.elapsed() < GENEROUS);
}

#[test]
fn a_wrong_id_is_a_protocol_violation() {
    let (_, error, _) = execute_error(&["--fault", "wrong-id@execute"], PhaseTimeouts::uniform(GENEROUS));
    let ProtocolViolation::Tracker(TrackerError::Mismatch { expected, observed }) = violation(&error) else {
        panic!("{error:?}")
    };
    assert_eq!((expected.as_str(), observed.as_str()), ("2", "299"));
}

fn answering_twice(fault: &str) {
    let fixture = Fixture::new();
    let config = fixture.implementation(&["--fault", fault], PhaseTimeouts::uniform(GENEROUS));
    let mut session = ImplementationSession::connect(config).unwrap();
    let pid = session.pid();
    session.prepare(fixture.prepare()).unwrap();
    // Let a late second answer arrive; an early one was read with the first.
    thread::sleep(Duration::from_millis(400));
    let error = session.execute(fixture.execute()).unwrap_err();
    let ProtocolViolation::Tracker(TrackerError::ExtraResponse { observed }) = violation(&error) else {
        panic!("{error:?}")
    };
    assert_eq!(observed, "1");
    assert_eq!(error.phase(), Phase::Execute);
    assert!(!session.is_usable());
    assert_worker_and_threads_gone(pid);
}

#[test]
fn answering_twice_in_one_write_is_an_extra_response() {
    answering_twice("answer-twice@prepare");
}

#[test]
fn answering_twice_later_is_an_extra_response() {
    // The second answer is read as the response to execute, and told apart by its id.
    answering_twice("answer-twice-late@prepare");
}

#[test]
fn an_oversized_line_is_a_framing_violation() {
    let (_, error, _) = execute_error(&["--fault", "oversized-line@execute"], PhaseTimeouts::uniform(GENEROUS));
    assert!(matches!(violation(&error), ProtocolViolation::Frame(FrameError::LineTooLong { .. })), "{error:?}");
}

#[test]
fn invalid_utf8_is_a_framing_violation() {
    let (_, error, _) = execute_error(&["--fault", "invalid-utf8@execute"], PhaseTimeouts::uniform(GENEROUS));
    assert_eq!(parse_error(&error), ParseErrorKind::InvalidUtf8);
}

#[test]
fn a_byte_order_mark_is_a_framing_violation() {
    let (_, error, _) = execute_error(&["--fault", "bom@execute"], PhaseTimeouts::uniform(GENEROUS));
    assert_eq!(parse_error(&error), ParseErrorKind::ByteOrderMark);
}

#[test]
fn a_non_object_is_an_unexpected_response() {
    let (_, error, _) = execute_error(&["--fault", "non-object@execute"], PhaseTimeouts::uniform(GENEROUS));
    let ProtocolViolation::Decode(DecodeError::Schema { definition, .. }) = violation(&error) else {
        panic!("{error:?}")
    };
    assert_eq!(*definition, "execute_response");
}

#[test]
fn exiting_mid_request_is_a_worker_exit_with_its_status() {
    let (_, error, _) = execute_error(&["--fault", "exit@execute"], PhaseTimeouts::uniform(GENEROUS));
    let SessionErrorKind::WorkerExit { cause: ExitCause::Exited, status: Some(status) } = error.kind() else {
        panic!("{error:?}")
    };
    assert_eq!(status.code(), Some(3));
    assert_eq!(error.failure_kind(), Some(FailureKind::WorkerExit));
    // The worker's last words reach the report although it wrote them just before exiting.
    assert_eq!(error.stderr_tail().last().unwrap(), "test-worker: exiting in the middle of execute");
}

#[test]
fn closing_stdout_and_staying_alive_is_a_worker_exit() {
    let started = Instant::now();
    let (_, error, _) = execute_error(&["--fault", "close-stdout@execute"], PhaseTimeouts::uniform(GENEROUS));
    let SessionErrorKind::WorkerExit { cause: ExitCause::ClosedStdout, status: Some(status) } = error.kind() else {
        panic!("{error:?}")
    };
    assert_eq!(status.signal(), Some(libc::SIGKILL), "it was still running, so it was killed");
    assert!(started.elapsed() < GENEROUS, "noticed at end of file, not at the deadline");
}

fn exiting_while_holding_stdout(fault: &str) {
    let started = Instant::now();
    let timeouts = PhaseTimeouts::uniform(Duration::from_secs(60));
    let (fixture, error, _) = execute_error(&["--fault", &format!("{fault}@execute")], timeouts);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "the session waited {:?} for an end of file that a grandchild prevents",
        started.elapsed()
    );
    let SessionErrorKind::WorkerExit { cause: ExitCause::Exited, status: Some(status) } = error.kind() else {
        panic!("{error:?}")
    };
    assert_eq!(status.code(), Some(0), "even a clean exit before answering is a worker exit");
    let processes = fixture.started_processes();
    assert!(processes.iter().any(|(name, ..)| name == "holder"), "{processes:?}");
    assert_all_gone(&processes);
}

#[test]
fn a_grandchild_holding_stdout_after_the_worker_exits_does_not_hang_the_session() {
    exiting_while_holding_stdout("exit-leaving-stdout-holder");
}

#[test]
fn an_escaped_grandchild_holding_stdout_is_found_and_killed() {
    exiting_while_holding_stdout("exit-leaving-escaped-stdout-holder");
}

#[test]
fn a_worker_that_stops_reading_cannot_block_the_caller() {
    let fixture = Fixture::new();
    let config = fixture.implementation(&["--fault", "stop-reading@hello"], short(Phase::Prepare));
    let mut session = ImplementationSession::connect(config).unwrap();
    let pid = session.pid();
    let mut params = fixture.prepare();
    // Far larger than a pipe's buffer: writing it blocks until the worker reads, which it never does.
    params.implementation_parameters = object(serde_json::json!({"padding": "p".repeat(512 << 10)}));
    let preparing = Instant::now();
    let error = session.prepare(params).unwrap_err();
    assert_took(preparing, SHORT);
    assert!(matches!(error.kind(), SessionErrorKind::PhaseTimeout { .. }), "{error:?}");
    assert_eq!(error.phase(), Phase::Prepare);
    assert_worker_and_threads_gone(pid);
}

#[test]
fn ignoring_shutdown_is_a_phase_timeout_in_shutdown() {
    let fixture = Fixture::new();
    let config = fixture.implementation(&["--fault", "never-answer@shutdown"], short(Phase::Shutdown));
    let session = ImplementationSession::connect(config).unwrap();
    let pid = session.pid();
    let stopping = Instant::now();
    let error = session.shutdown().unwrap_err();
    assert_took(stopping, SHORT);
    assert!(matches!(error.kind(), SessionErrorKind::PhaseTimeout { .. }), "{error:?}");
    assert_eq!((error.phase(), error.failure_kind()), (Phase::Shutdown, Some(FailureKind::PhaseTimeout)));
    assert_reported(&error, "implementation", "shutdown");
    assert_worker_and_threads_gone(pid);
}

#[test]
fn exiting_non_zero_after_acknowledging_shutdown_is_a_worker_exit() {
    let fixture = Fixture::new();
    let config = fixture.implementation(&["--fault", "answer-then-exit@shutdown"], PhaseTimeouts::uniform(GENEROUS));
    let session = ImplementationSession::connect(config).unwrap();
    let pid = session.pid();
    let error = session.shutdown().unwrap_err();
    let SessionErrorKind::WorkerExit { cause: ExitCause::UncleanShutdown, status: Some(status) } = error.kind() else {
        panic!("{error:?}")
    };
    assert_eq!(status.code(), Some(3));
    assert_eq!((error.phase(), error.failure_kind()), (Phase::Shutdown, Some(FailureKind::WorkerExit)));
    assert_eq!(error.stderr_tail().last().unwrap(), "test-worker: exiting with status 3 after answering shutdown");
    assert!(!error.timing().unwrap().ok);
    assert_worker_and_threads_gone(pid);
}

#[test]
fn flooding_stderr_neither_blocks_the_worker_nor_overflows_the_log() {
    let fixture = Fixture::new();
    let cap = 256 << 10;
    let args = ["--fault", "flood-stderr@execute", "--flood-bytes", "4194304"];
    let config = fixture.implementation(&args, PhaseTimeouts::uniform(GENEROUS)).log_cap(cap);
    let mut session = ImplementationSession::connect(config).unwrap();
    session.prepare(fixture.prepare()).unwrap();
    session.execute(fixture.execute()).unwrap();
    let tail = session.stderr_tail();
    assert!(tail.len() <= TAIL_LINES);
    assert!(tail.last().unwrap().starts_with("test-worker: flood done after "), "{tail:?}");
    session.shutdown().unwrap();

    let log = fs::read(fixture.log()).unwrap();
    let marker =
        format!("[metewand: log cut here: the worker wrote more than {cap} bytes to stderr; the rest is not kept]\n");
    assert!(log.ends_with(marker.as_bytes()), "the log ends with the line saying where it was cut");
    // The cap, a line feed to end a line that the cut split, and the marker.
    let split = usize::from(log[cap as usize - 1] != b'\n');
    assert_eq!(log.len(), cap as usize + split + marker.len());
}

#[test]
fn a_request_larger_than_a_frame_is_refused_and_discards_the_worker() {
    let fixture = Fixture::new();
    let mut session =
        ImplementationSession::connect(fixture.implementation(&[], PhaseTimeouts::uniform(GENEROUS))).unwrap();
    let pid = session.pid();
    let mut params = fixture.prepare();
    params.implementation_parameters = object(serde_json::json!({"padding": "p".repeat(2 << 20)}));
    let error = session.prepare(params).unwrap_err();
    assert!(matches!(error.kind(), SessionErrorKind::InvalidRequest(FrameError::LineTooLong { .. })), "{error:?}");
    assert_eq!(error.failure_kind(), Some(FailureKind::ExecutorError));
    assert_worker_and_threads_gone(pid);
}

#[test]
fn setting_the_cancel_flag_ends_a_pending_exchange_and_the_worker() {
    static CANCEL: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    let fixture = Fixture::new();
    let config = fixture
        .implementation(&["--fault", "never-answer@execute"], PhaseTimeouts::uniform(GENEROUS))
        .cancel_flag(&CANCEL);
    let mut session = ImplementationSession::connect(config).unwrap();
    let pid = session.pid();
    let setter = thread::spawn(|| {
        thread::sleep(Duration::from_millis(300));
        CANCEL.store(true, std::sync::atomic::Ordering::SeqCst);
    });
    let executing = Instant::now();
    let error = session.execute(fixture.execute()).unwrap_err();
    setter.join().unwrap();
    assert!(executing.elapsed() < SHORT + CLEANUP_SLACK, "took {:?}", executing.elapsed());
    assert!(matches!(error.kind(), SessionErrorKind::Cancelled), "{error:?}");
    assert_eq!(error.failure_kind(), Some(FailureKind::Cancelled));
    assert!(error.discarded_worker() && !session.is_usable());
    // Once set, nothing more is sent.
    let refused = session.execute(fixture.execute()).unwrap_err();
    assert!(matches!(refused.kind(), SessionErrorKind::Unusable), "{refused:?}");
    drop(session);
    assert_worker_and_threads_gone(pid);
}
