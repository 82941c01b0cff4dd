//! `execute_stream` against the test worker: the checkpoint exchange kept, each of its rules broken in its own
//! way, and the clock stopped while a checkpoint is sealed.

use std::fs;
use std::thread;
use std::time::{Duration, Instant};

use metewand_protocol::Phase;
use metewand_protocol::common::Capability;
use metewand_protocol::stream::StreamError;
use metewand_protocol::strict::SafeUint;
use metewand_protocol::tracker::TrackerError;
use metewand_session::{
    Checkpoint, ExecuteStreamParams, ImplementationSession, PhaseTimeouts, ProtocolViolation, Sealed, SessionError,
    SessionErrorKind, Streamed,
};

use super::{Fixture, GENEROUS, assert_reported, assert_worker_and_threads_gone, short};

/// The process state letter of `pid` (`T` when stopped).
fn state(pid: u32) -> char {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).expect("the worker's stat");
    stat.rsplit_once(')').and_then(|(_, rest)| rest.trim_start().chars().next()).expect("a state")
}

struct Run {
    fixture: Fixture,
    session: ImplementationSession,
    pid: u32,
}

fn connect(args: &[&str], timeouts: PhaseTimeouts) -> Run {
    let fixture = Fixture::new();
    let mut all = vec!["--capabilities", "one_shot,streaming_profile"];
    all.extend_from_slice(args);
    let config = fixture.config(&all, timeouts).select(Capability::StreamingProfile);
    let mut session = ImplementationSession::connect(config).unwrap();
    session.prepare(fixture.prepare()).unwrap();
    let pid = session.pid();
    Run { fixture, session, pid }
}

impl Run {
    fn params(&self, max: u32) -> ExecuteStreamParams {
        let result_dir = self.fixture.path("result").to_str().unwrap().try_into().unwrap();
        ExecuteStreamParams { result_dir, max_checkpoints: SafeUint::from(max) }
    }

    /// Streams with a seal that holds each checkpoint for `hold` and lets the stream go on.
    fn stream(&mut self, max: u32, hold: Duration) -> Result<Streamed<char>, SessionError> {
        let pid = self.pid;
        let params = self.params(max);
        self.session.execute_stream(params, |_: &Checkpoint| {
            let seen = state(pid);
            thread::sleep(hold);
            Sealed { value: seen, go_on: true }
        })
    }

    /// The stream's error, the worker discarded and gone.
    fn violation(mut self, max: u32) -> StreamError {
        let error = self.stream(max, Duration::ZERO).unwrap_err();
        assert!(!self.session.is_usable(), "{error} should have discarded the worker");
        assert_eq!(error.phase(), Phase::Execute);
        assert_reported(&error, "implementation", "execute");
        drop(self.session);
        assert_worker_and_threads_gone(self.pid);
        match error.kind() {
            SessionErrorKind::ProtocolViolation(ProtocolViolation::Stream(error)) => error.clone(),
            _ => panic!("expected a stream violation: {error:?}"),
        }
    }
}

#[test]
fn an_honest_stream_is_sealed_checkpoint_by_checkpoint_with_the_worker_stopped() {
    let mut run = connect(&[], PhaseTimeouts::uniform(GENEROUS));
    let streamed = run.stream(3, Duration::ZERO).unwrap();
    let numbers: Vec<u64> = streamed.checkpoints.iter().map(|(checkpoint, _)| checkpoint.number).collect();
    assert_eq!(numbers, [1, 2, 3]);
    for (checkpoint, seen) in &streamed.checkpoints {
        assert_eq!(checkpoint.manifest, format!("checkpoints/{}/result.json", checkpoint.number));
        assert_eq!(*seen, 'T', "checkpoint {} was sealed while the worker ran", checkpoint.number);
        let written = run.fixture.path("result").join(&checkpoint.manifest);
        let manifest: serde_json::Value = serde_json::from_slice(&fs::read(written).unwrap()).unwrap();
        assert_eq!(manifest["data"]["checkpoint"], checkpoint.number);
    }
    assert!(streamed.checkpoints.windows(2).all(|pair| pair[0].0.time <= pair[1].0.time));
    assert_eq!(streamed.response.result.manifest.as_str(), "result.json");
    assert_eq!(streamed.response.statistics["checkpoints"], 3, "the last allowed checkpoint was told to stop");
    let summary = run.session.shutdown().unwrap();
    assert!(summary.phases.iter().any(|timing| timing.phase == Phase::Execute && timing.ok));
}

#[test]
fn a_seal_that_says_stop_ends_the_stream_early() {
    let mut run = connect(&[], PhaseTimeouts::uniform(GENEROUS));
    let params = run.params(5);
    let streamed =
        run.session.execute_stream(params, |checkpoint| Sealed { value: (), go_on: checkpoint.number < 2 }).unwrap();
    assert_eq!(streamed.checkpoints.len(), 2);
    assert_eq!(streamed.response.statistics["checkpoints"], 2);
    run.session.shutdown().unwrap();
}

#[test]
fn a_checkpoint_for_another_id_is_a_protocol_violation() {
    let error = connect(&["--stream", "other-id"], short(Phase::Execute)).violation(3);
    assert!(matches!(error, StreamError::OtherId { checkpoint: 1, .. }), "{error}");
}

#[test]
fn a_checkpoint_out_of_order_is_a_protocol_violation() {
    let error = connect(&["--stream", "out-of-order"], short(Phase::Execute)).violation(5);
    assert_eq!(error, StreamError::OutOfOrder { expected: 2, observed: 3 });
}

#[test]
fn a_checkpoint_past_max_checkpoints_is_a_protocol_violation() {
    let error = connect(&["--stream", "past-max"], short(Phase::Execute)).violation(3);
    assert_eq!(error, StreamError::PastMax { max: 3, observed: 4 });
}

#[test]
fn a_checkpoint_after_continue_false_is_a_protocol_violation() {
    let error = connect(&["--stream", "ignore-stop"], short(Phase::Execute)).violation(2);
    assert_eq!(error, StreamError::AfterStop { stopped_at: 2, observed: 3 });
}

#[test]
fn a_checkpoint_elsewhere_than_its_folder_is_a_protocol_violation() {
    let error = connect(&["--stream", "wrong-manifest"], short(Phase::Execute)).violation(3);
    assert!(matches!(error, StreamError::ManifestPath { checkpoint: 1, .. }), "{error}");
}

#[test]
fn a_checkpoint_that_does_not_wait_for_its_answer_is_a_protocol_violation() {
    let error = connect(&["--stream", "no-wait"], short(Phase::Execute)).violation(3);
    assert_eq!(error, StreamError::DidNotWait { checkpoint: 1 });
}

#[test]
fn a_checkpoint_after_the_final_response_is_a_protocol_violation() {
    let mut run = connect(&["--stream", "after-final"], short(Phase::Shutdown));
    run.stream(2, Duration::ZERO).unwrap();
    let error = run.session.shutdown().unwrap_err();
    assert_eq!(error.phase(), Phase::Shutdown);
    match error.kind() {
        SessionErrorKind::ProtocolViolation(ProtocolViolation::Tracker(TrackerError::ExtraResponse { observed })) => {
            assert_eq!(observed, "2", "the stream's id");
        }
        _ => panic!("expected an extra response: {error:?}"),
    }
    assert_worker_and_threads_gone(run.pid);
}

#[test]
fn the_time_a_checkpoint_is_held_is_not_counted() {
    // The worker takes 150 ms to each checkpoint; each seal holds it 400 ms. Were the held time counted, each
    // checkpoint would come at least 550 ms after the last.
    let pause = Duration::from_millis(150);
    let hold = Duration::from_millis(400);
    let mut run = connect(&["--checkpoint-ms", "150"], short(Phase::Execute));
    let started = Instant::now();
    let streamed = run.stream(3, hold).unwrap();
    let wall = started.elapsed();
    let mut previous = Duration::ZERO;
    for (checkpoint, _) in &streamed.checkpoints {
        let interval = checkpoint.time - previous;
        assert!(interval >= pause, "checkpoint {} came {interval:?} after the last", checkpoint.number);
        assert!(interval < pause + hold / 2, "checkpoint {} came {interval:?} after the last", checkpoint.number);
        previous = checkpoint.time;
    }
    assert!(wall >= 3 * (pause + hold), "{wall:?}");
    // The execute phase, 1 s long, lasted about 1.65 s on the wall: the held time is not against its limit either.
    let execute = run.session.phases().iter().find(|timing| timing.phase == Phase::Execute).unwrap().duration;
    assert!(execute >= 3 * pause && execute < 3 * pause + hold, "{execute:?}");
    run.session.shutdown().unwrap();
}

#[test]
fn a_worker_that_computes_while_its_checkpoint_is_held_gets_no_cpu() {
    // A running spinner gets about `hold * cpus / (load + 1)` of CPU, so against `hold / 10` one is seen on two
    // CPUs up to a load of about 18; a stopped one gets only the moments before its stop and after its resume.
    let hold = Duration::from_millis(1000);
    let mut run = connect(&["--stream", "busy"], PhaseTimeouts::uniform(GENEROUS));
    run.stream(2, hold).unwrap();
    let summary = run.session.shutdown().unwrap();
    let log = fs::read_to_string(run.fixture.log()).unwrap();
    let spun: Vec<u64> = log
        .lines()
        .filter_map(|line| line.strip_prefix("test-worker: spun "))
        .map(|rest| rest.split(' ').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(spun.len(), 2, "{log}");
    for ns in spun {
        assert!(Duration::from_nanos(ns) < hold / 10, "the worker computed {ns} ns while held");
    }
    drop(summary);
}
