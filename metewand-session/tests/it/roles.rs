//! Each role's requests, the role-typed and dynamic call paths, and worker-reported failures.

use std::fs;

use metewand_protocol::Phase;
use metewand_protocol::common::{FailureCode, Role, Verdict};
use metewand_protocol::generated::attempt_record::FailureKind;
use metewand_protocol::tracker::TrackerError;
use metewand_session::{
    EvaluatorSession, ImplementationSession, MaterializerSession, PhaseTimeouts, Reply, Request, SessionErrorKind,
    WorkerSession,
};

use super::{Fixture, GENEROUS, assert_reported, assert_worker_and_threads_gone, object};

fn phases_of(phases: &[metewand_session::PhaseTiming]) -> Vec<(Phase, String, bool)> {
    phases.iter().map(|timing| (timing.phase, timing.request_id.clone(), timing.ok)).collect()
}

#[test]
fn a_materializer_builds_its_dataset_and_shuts_down_cleanly() {
    let fixture = Fixture::new();
    let mut session = MaterializerSession::connect(fixture.config(&[], PhaseTimeouts::uniform(GENEROUS))).unwrap();
    let pid = session.pid();
    let response = session.materialize(fixture.materialize()).unwrap();
    assert_eq!(response.dataset.manifest.as_str(), "dataset-manifest.json");
    assert!(fixture.path("dataset/dataset-manifest.json").is_file());
    let summary = session.shutdown().unwrap();
    assert!(summary.exit_status.success());
    assert_eq!(summary.role, Role::DatasetMaterializer);
    assert_eq!(
        phases_of(&summary.phases),
        [(Phase::Hello, "0".into(), true), (Phase::Materialize, "1".into(), true), (Phase::Shutdown, "2".into(), true)]
    );
    assert_worker_and_threads_gone(pid);
}

#[test]
fn an_implementation_prepares_executes_and_resets() {
    let fixture = Fixture::new();
    let mut session =
        ImplementationSession::connect(fixture.implementation(&[], PhaseTimeouts::uniform(GENEROUS))).unwrap();
    let pid = session.pid();
    session.prepare(fixture.prepare()).unwrap();
    let executed = session.execute(fixture.execute()).unwrap();
    assert_eq!(executed.result.manifest.as_str(), "result.json");
    assert_eq!(executed.implementation_time_ns.map(|ns| ns.get()), Some(1234));
    assert_eq!(executed.statistics, object(serde_json::json!({"iterations": 1})));
    assert!(fixture.path("result/result.json").is_file());
    session.reset().unwrap();
    let summary = session.shutdown().unwrap();
    let methods: Vec<Phase> = summary.phases.iter().map(|timing| timing.phase).collect();
    assert_eq!(methods, [Phase::Hello, Phase::Prepare, Phase::Execute, Phase::Reset, Phase::Shutdown]);
    assert!(summary.phases.iter().all(|timing| timing.ok && timing.role == Role::Implementation));
    assert_worker_and_threads_gone(pid);
}

#[test]
fn an_evaluator_writes_metrics_and_returns_its_verdict() {
    let fixture = Fixture::new();
    let mut session = EvaluatorSession::connect(fixture.config(&[], PhaseTimeouts::uniform(GENEROUS))).unwrap();
    let pid = session.pid();
    let evaluated = session.evaluate(fixture.evaluate()).unwrap();
    assert_eq!(evaluated.verdict, Verdict::Reached);
    assert_eq!(fs::read_to_string(fixture.path("metrics/metrics.json")).unwrap(), "{\"error\":0.0}\n");
    session.shutdown().unwrap();
    assert_worker_and_threads_gone(pid);
}

#[test]
fn a_wrong_role_call_fails_locally_without_consuming_an_id() {
    let fixture = Fixture::new();
    let config = fixture.implementation(&[], PhaseTimeouts::uniform(GENEROUS));
    let mut session = WorkerSession::connect(Role::Implementation, config).unwrap();
    let error = session.call(Request::Evaluate(fixture.evaluate())).unwrap_err();
    assert!(
        matches!(
            error.kind(),
            SessionErrorKind::WrongRole(TrackerError::WrongRole {
                role: Role::Implementation,
                method: Phase::Evaluate
            })
        ),
        "{error:?}"
    );
    assert_eq!((error.role(), error.phase(), error.failure_kind()), (Role::Implementation, Phase::Evaluate, None));
    assert!(error.timing().is_none(), "nothing was sent");
    assert!(session.is_usable());
    assert_eq!(session.call(Request::Prepare(fixture.prepare())).unwrap(), Reply::Acknowledged);
    assert!(matches!(session.call(Request::Execute(fixture.execute())).unwrap(), Reply::Executed(_)));
    let ids: Vec<&str> = session.phases().iter().map(|timing| timing.request_id.as_str()).collect();
    assert_eq!(ids, ["0", "1", "2"], "the refused evaluate consumed no id");
    session.shutdown().unwrap();
}

#[test]
fn typed_sessions_refuse_other_roles_requests_at_compile_time() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}

#[test]
fn a_worker_failure_is_typed_and_keeps_the_session_usable() {
    let fixture = Fixture::new();
    let config = fixture.implementation(&["--fault", "fail@execute"], PhaseTimeouts::uniform(GENEROUS));
    let mut session = ImplementationSession::connect(config).unwrap();
    session.prepare(fixture.prepare()).unwrap();
    let error = session.execute(fixture.execute()).unwrap_err();
    let SessionErrorKind::WorkerFailure { code, message, details } = error.kind() else { panic!("{error:?}") };
    assert_eq!(*code, FailureCode::OperationFailed);
    assert_eq!(message, "the test worker was told to fail execute");
    assert_eq!(details.as_ref(), Some(&object(serde_json::json!({"iterations": 100}))));
    assert_eq!((error.phase(), error.failure_kind()), (Phase::Execute, Some(FailureKind::WorkerFailure)));
    assert!(!error.discarded_worker());
    assert_reported(&error, "implementation", "execute");
    assert!(error.stderr_tail().iter().any(|line| line == "test-worker: received execute 2"), "{error}");
    assert!(!error.timing().unwrap().ok);
    assert!(session.is_usable());
    session.reset().unwrap();
    session.shutdown().unwrap();
}

#[test]
fn a_failed_reset_discards_the_worker() {
    let fixture = Fixture::new();
    let config = fixture.implementation(&["--fault", "fail@reset"], PhaseTimeouts::uniform(GENEROUS));
    let mut session = ImplementationSession::connect(config).unwrap();
    let pid = session.pid();
    let error = session.reset().unwrap_err();
    assert!(matches!(error.kind(), SessionErrorKind::WorkerFailure { .. }), "{error:?}");
    assert_eq!(error.phase(), Phase::Reset);
    assert!(error.discarded_worker());
    assert!(!session.is_usable());
    assert_worker_and_threads_gone(pid);
    let again = session.prepare(fixture.prepare()).unwrap_err();
    assert!(matches!(again.kind(), SessionErrorKind::Unusable), "{again:?}");
    assert_eq!(again.failure_kind(), None);
}
