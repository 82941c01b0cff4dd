//! Scientific deadlines beside phase limits, and the executor's timing of each request.

use std::thread;
use std::time::{Duration, Instant, SystemTime};

use metewand_protocol::Phase;
use metewand_protocol::generated::attempt_record::FailureKind;
use metewand_session::{ImplementationSession, PhaseTimeouts, SessionErrorKind};

use super::{Fixture, GENEROUS, SHORT, assert_took, assert_worker_and_threads_gone, short};

#[test]
fn prepare_and_execute_within_their_limits_but_past_the_scientific_deadline() {
    let fixture = Fixture::new();
    // Each takes a second, well within its phase limit; the envelope ends halfway through execute.
    let args = ["--delay", "prepare=1000", "--delay", "execute=1000"];
    let mut session =
        ImplementationSession::connect(fixture.implementation(&args, PhaseTimeouts::uniform(GENEROUS))).unwrap();
    let pid = session.pid();
    let envelope = Instant::now();
    let budget = Duration::from_millis(1500);
    session.set_scientific_deadline(envelope + budget);
    session.prepare(fixture.prepare()).unwrap();
    let error = session.execute(fixture.execute()).unwrap_err();
    assert_took(envelope, budget);
    assert!(matches!(error.kind(), SessionErrorKind::ScientificTimeout), "{error:?}");
    assert_eq!((error.phase(), error.failure_kind()), (Phase::Execute, Some(FailureKind::ScientificTimeout)));
    assert!(error.discarded_worker() && !session.is_usable());
    assert!(error.to_string().contains("scientific deadline"), "{error}");
    assert_worker_and_threads_gone(pid);
}

#[test]
fn a_phase_limit_earlier_than_the_scientific_deadline_is_a_phase_timeout() {
    let fixture = Fixture::new();
    let config = fixture.implementation(&["--fault", "never-answer@execute"], short(Phase::Execute));
    let mut session = ImplementationSession::connect(config).unwrap();
    session.set_scientific_deadline(Instant::now() + GENEROUS);
    let executing = Instant::now();
    let error = session.execute(fixture.execute()).unwrap_err();
    assert_took(executing, SHORT);
    assert!(matches!(error.kind(), SessionErrorKind::PhaseTimeout { limit } if *limit == SHORT), "{error:?}");
}

#[test]
fn connect_with_deadline_bounds_start_up_and_the_handshake() {
    let fixture = Fixture::new();
    let config = fixture.implementation(&["--delay", "hello=5000"], PhaseTimeouts::uniform(GENEROUS));
    let started = Instant::now();
    let budget = Duration::from_millis(500);
    let error = ImplementationSession::connect_with_deadline(config, started + budget).unwrap_err();
    assert_took(started, budget);
    assert!(matches!(error.kind(), SessionErrorKind::ScientificTimeout), "{error:?}");
    assert_eq!(error.phase(), Phase::Hello);
}

#[test]
fn connect_with_deadline_keeps_the_deadline_for_later_requests() {
    let fixture = Fixture::new();
    let config = fixture.implementation(&[], PhaseTimeouts::uniform(GENEROUS));
    let deadline = Instant::now() + GENEROUS;
    let session = ImplementationSession::connect_with_deadline(config, deadline).unwrap();
    assert_eq!(session.scientific_deadline(), Some(deadline));
    session.shutdown().unwrap();
}

#[test]
fn a_scientific_deadline_that_already_passed_fails_before_sending() {
    let fixture = Fixture::new();
    let mut session =
        ImplementationSession::connect(fixture.implementation(&[], PhaseTimeouts::uniform(GENEROUS))).unwrap();
    session.set_scientific_deadline(Instant::now());
    let error = session.execute(fixture.execute()).unwrap_err();
    assert!(matches!(error.kind(), SessionErrorKind::ScientificTimeout), "{error:?}");
    assert!(error.timing().unwrap().duration < SHORT);
    assert!(!error.stderr_tail().iter().any(|line| line.contains("received execute")), "{error}");
}

#[test]
fn clearing_the_scientific_deadline_leaves_untimed_phases_their_limits() {
    let fixture = Fixture::new();
    let mut session =
        ImplementationSession::connect(fixture.implementation(&[], PhaseTimeouts::uniform(GENEROUS))).unwrap();
    let deadline = Instant::now() + Duration::from_secs(2);
    session.set_scientific_deadline(deadline);
    session.prepare(fixture.prepare()).unwrap();
    session.execute(fixture.execute()).unwrap();
    session.clear_scientific_deadline();
    thread::sleep(deadline.saturating_duration_since(Instant::now()) + Duration::from_millis(50));
    assert_eq!(session.scientific_deadline(), None);
    session.reset().unwrap();
    session.shutdown().unwrap();
}

#[test]
fn each_request_is_timed_by_the_executor() {
    let fixture = Fixture::new();
    let before = SystemTime::now();
    let args = ["--delay", "prepare=200"];
    let mut session =
        ImplementationSession::connect(fixture.implementation(&args, PhaseTimeouts::uniform(GENEROUS))).unwrap();
    session.prepare(fixture.prepare()).unwrap();
    session.execute(fixture.execute()).unwrap();
    let summary = session.shutdown().unwrap();
    let after = SystemTime::now();
    let phases = &summary.phases;
    assert_eq!(phases.len(), 4);
    assert!(phases[1].duration >= Duration::from_millis(200), "{:?}", phases[1]);
    for pair in phases.windows(2) {
        assert!(pair[0].started + pair[0].duration <= pair[1].started, "requests are serial: {pair:?}");
        assert!(pair[0].started_at <= pair[1].started_at);
    }
    assert!(phases.iter().all(|timing| before <= timing.started_at && timing.started_at <= after));
}
