//! The serial request rule and the role/method matrix.

use metewand_protocol::common::Role;
use metewand_protocol::{Phase, RequestTracker, TrackerError};

#[test]
fn ids_are_session_local_decimals_from_zero() {
    let mut tracker = RequestTracker::new(Role::Implementation);
    for (expected, method) in ["0", "1", "2", "3", "4"].into_iter().zip([
        Phase::Hello,
        Phase::Prepare,
        Phase::Execute,
        Phase::Reset,
        Phase::Shutdown,
    ]) {
        let id = tracker.begin(method).unwrap();
        assert_eq!(id.as_str(), expected);
        assert_eq!(tracker.complete(expected).unwrap().method, method);
    }
    let other = RequestTracker::new(Role::Implementation).begin(Phase::Hello).unwrap();
    assert_eq!(other.as_str(), "0", "each session counts from zero");
}

#[test]
fn only_one_request_may_be_pending() {
    let mut tracker = RequestTracker::new(Role::DatasetMaterializer);
    tracker.begin(Phase::Hello).unwrap();
    let error = tracker.begin(Phase::Materialize).unwrap_err();
    assert_eq!(
        error,
        TrackerError::Busy { method: Phase::Materialize, pending_id: "0".into(), pending_method: Phase::Hello }
    );
}

#[test]
fn a_mismatched_response_does_not_consume_the_pending_request() {
    let mut tracker = RequestTracker::new(Role::ProblemEvaluator);
    tracker.begin(Phase::Hello).unwrap();
    assert_eq!(
        tracker.complete("7").unwrap_err(),
        TrackerError::Mismatch { expected: "0".into(), observed: "7".into() }
    );
    assert_eq!(tracker.pending().unwrap().id.as_str(), "0");
    tracker.complete("0").unwrap();
    assert!(tracker.pending().is_none());
}

#[test]
fn a_response_with_nothing_pending_is_an_extra_response() {
    let mut tracker = RequestTracker::new(Role::Implementation);
    assert_eq!(tracker.complete("0").unwrap_err(), TrackerError::ExtraResponse { observed: "0".into() });
    tracker.begin(Phase::Hello).unwrap();
    tracker.complete("0").unwrap();
    assert_eq!(tracker.complete("0").unwrap_err(), TrackerError::ExtraResponse { observed: "0".into() });
}

#[test]
fn the_role_method_matrix_is_gate_one() {
    use Phase::*;
    let accepted = |role| Phase::ALL.into_iter().filter(|m| m.accepted_by(role)).collect::<Vec<_>>();
    assert_eq!(accepted(Role::DatasetMaterializer), [Hello, Materialize, Shutdown]);
    assert_eq!(accepted(Role::Implementation), [Hello, Prepare, Execute, Reset, Shutdown]);
    assert_eq!(accepted(Role::ProblemEvaluator), [Hello, Evaluate, Shutdown]);
}

#[test]
fn a_wrong_role_call_fails_locally_without_consuming_an_id() {
    let mut tracker = RequestTracker::new(Role::Implementation);
    for method in [Phase::Materialize, Phase::Evaluate] {
        assert_eq!(tracker.begin(method).unwrap_err(), TrackerError::WrongRole { role: Role::Implementation, method });
    }
    assert!(tracker.pending().is_none());
    assert_eq!(tracker.begin(Phase::Hello).unwrap().as_str(), "0");
}
