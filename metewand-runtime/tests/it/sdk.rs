//! Sessions driving real Python SDK workers, one of each role, end to end: the SDK's handshake, requests, failures
//! and stdout protection, seen from the runtime's side of the pipes.

use std::path::{Path, PathBuf};
use std::time::Duration;

use metewand_runtime::protocol::Phase;
use metewand_runtime::protocol::common::{Capability, FailureCode, Verdict, WorkerId};
use metewand_runtime::protocol::messages::ProblemContractRef;
use metewand_runtime::protocol::strict::{JsonObject, SafeUint};
use metewand_runtime::session::{
    EvaluateParams, EvaluatorSession, ExecuteParams, ImplementationSession, MaterializeParams, MaterializerSession,
    PhaseTimeouts, PrepareParams, SessionConfig, SessionErrorKind, WorkerCommand,
};
use serde_json::json;

const WORKER_ID: &str = "mw1-resolved-worker-5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c";

use metewand_testkit::sdk;

/// A session configuration running one of the SDK's example workers, with the SDK importable.
fn config(script: &str, dir: &Path) -> SessionConfig {
    let workers = sdk().join("tests/workers");
    let command =
        WorkerCommand::new("python3", &workers).arg(workers.join(script)).env("PYTHONPATH", sdk().join("src"));
    let worker_id = WorkerId::try_from(WORKER_ID).unwrap();
    // Python starts in well under a second; the limits only guard against a hang on a loaded machine.
    SessionConfig::new(
        command,
        worker_id,
        PhaseTimeouts::uniform(Duration::from_secs(60)),
        dir.join(format!("{script}.log")),
    )
}

fn object(value: serde_json::Value) -> JsonObject {
    value.as_object().unwrap().clone()
}

fn path(path: &Path) -> metewand_runtime::protocol::messages::Path {
    path.to_str().unwrap().try_into().unwrap()
}

fn materialize(dir: &Path, parameters: serde_json::Value) -> PathBuf {
    let dataset = dir.join("dataset");
    std::fs::create_dir(&dataset).unwrap();
    let mut session = MaterializerSession::connect(config("materializer.py", dir)).unwrap();
    let handshake = session.handshake().clone();
    let reported = handshake.sdk.as_ref().map(|sdk| (sdk.name.as_str(), sdk.version.as_str()));
    assert_eq!(reported, Some(("metewand-python", "0.1.0")));
    assert!(handshake.reported.is_empty(), "a materializer reports no capabilities");
    let response = session
        .materialize(MaterializeParams {
            source_dir: path(&sdk().join("tests/workers")),
            dataset_parameters: object(parameters),
            dataset_seed: SafeUint::from(7_u32),
            output_dir: path(&dataset),
        })
        .unwrap();
    assert_eq!(response.dataset.manifest.as_str(), "dataset-manifest.json");
    assert!(session.shutdown().unwrap().exit_status.success());
    dataset
}

fn prepare_params(dataset: &Path, parameters: serde_json::Value) -> PrepareParams {
    PrepareParams {
        dataset_dir: path(dataset),
        problem_contract_id: ProblemContractRef::try_from("mw1-problem-contract-abc").unwrap(),
        problem_parameters: object(json!({"tolerance": 1e-9})),
        implementation_parameters: object(parameters),
        implementation_seed: SafeUint::ZERO,
    }
}

#[test]
fn an_attempt_through_sdk_workers_of_every_role_reaches_its_verdict() {
    let dir = tempfile::tempdir().unwrap();
    // Noise on stdout in every role: print, os.write(1, ...) and a subprocess must all stay off the protocol.
    let dataset = materialize(dir.path(), json!({"rows": 50, "noise": true}));

    let result = dir.path().join("result");
    std::fs::create_dir(&result).unwrap();
    let mut implementation =
        ImplementationSession::connect(config("implementation.py", dir.path()).select(Capability::OneShot)).unwrap();
    assert_eq!(implementation.handshake().reported.as_slice(), [Capability::OneShot]);
    implementation.prepare(prepare_params(&dataset, json!({"noise": true}))).unwrap();
    let executed = implementation.execute(ExecuteParams { result_dir: path(&result) }).unwrap();
    assert_eq!(executed.result.manifest.as_str(), "result.json");
    assert_eq!(executed.statistics, object(json!({"points": 50})));
    assert!(executed.implementation_time_ns.is_some(), "the SDK measures execute");
    implementation.reset().unwrap();
    let summary = implementation.shutdown().unwrap();
    let methods: Vec<Phase> = summary.phases.iter().map(|timing| timing.phase).collect();
    assert_eq!(methods, [Phase::Hello, Phase::Prepare, Phase::Execute, Phase::Reset, Phase::Shutdown]);

    let metrics = dir.path().join("metrics");
    std::fs::create_dir(&metrics).unwrap();
    let mut evaluator = EvaluatorSession::connect(config("evaluator.py", dir.path())).unwrap();
    let evaluated = evaluator
        .evaluate(EvaluateParams {
            dataset_dir: path(&dataset),
            result_dir: path(&result),
            metrics_path: path(&metrics.join("metrics.json")),
            problem_contract_id: ProblemContractRef::try_from("mw1-problem-contract-abc").unwrap(),
            problem_parameters: object(json!({"tolerance": 1e-9, "noise": true})),
        })
        .unwrap();
    assert_eq!(evaluated.verdict, Verdict::Reached);
    let written: serde_json::Value =
        serde_json::from_slice(&std::fs::read(metrics.join("metrics.json")).unwrap()).unwrap();
    assert!(written["metrics"]["error"].as_f64().unwrap() <= 1e-9, "{written}");
    assert!(evaluator.shutdown().unwrap().exit_status.success());

    // What the workers printed went to their logs.
    let log = std::fs::read_to_string(dir.path().join("implementation.py.log")).unwrap();
    assert!(log.contains("execute: print") && log.contains("execute: subprocess"), "{log}");
}

#[test]
fn sdk_failures_stay_typed_with_their_phase_and_leave_the_session_usable() {
    let dir = tempfile::tempdir().unwrap();
    let dataset = materialize(dir.path(), json!({"rows": 5}));
    let result = dir.path().join("result");
    std::fs::create_dir(&result).unwrap();

    let parameters = json!({"fail": {"execute": "operation_failed"}});
    let mut session = ImplementationSession::connect(config("implementation.py", dir.path())).unwrap();
    session.prepare(prepare_params(&dataset, parameters)).unwrap();
    let error = session.execute(ExecuteParams { result_dir: path(&result) }).unwrap_err();
    assert_eq!(error.phase(), Phase::Execute);
    match error.kind() {
        SessionErrorKind::WorkerFailure { code, details, .. } => {
            assert_eq!(*code, FailureCode::OperationFailed);
            assert_eq!(details.as_ref().map(|d| d["method"].clone()), Some(json!("execute")));
        }
        other => panic!("expected a worker failure, got {other:?}"),
    }
    assert!(session.is_usable(), "a worker-reported execute failure does not corrupt the session");
    session.reset().unwrap();

    // An unexpected exception becomes internal_error, its traceback in the log and not on the protocol stream.
    session.prepare(prepare_params(&dataset, json!({"fail": {"execute": "exception"}}))).unwrap();
    let error = session.execute(ExecuteParams { result_dir: path(&result) }).unwrap_err();
    assert!(
        matches!(error.kind(), SessionErrorKind::WorkerFailure { code: FailureCode::InternalError, .. }),
        "{error}"
    );
    assert!(session.shutdown().unwrap().exit_status.success());
    let log = std::fs::read_to_string(dir.path().join("implementation.py.log")).unwrap();
    assert!(log.contains("Traceback") && log.contains("RuntimeError"), "{log}");
}
