//! Starting a worker and the handshake: what is recorded, and each way it fails.

use std::collections::BTreeSet;
use std::fs;

use metewand_protocol::Phase;
use metewand_protocol::common::{Capability, FailureCode, Role};
use metewand_protocol::generated::attempt_record::FailureKind;
use metewand_protocol::handshake::HandshakeError;
use metewand_session::{
    ExitCause, INHERITED_ENV, ImplementationSession, MaterializerSession, PhaseTimeouts, ProtocolViolation,
    SessionConfig, SessionErrorKind, WorkerCommand,
};

use super::{Fixture, GENEROUS, assert_reported, worker_id};

#[test]
fn the_handshake_records_reported_capabilities_and_no_sdk() {
    let fixture = Fixture::new();
    let session =
        ImplementationSession::connect(fixture.implementation(&[], PhaseTimeouts::uniform(GENEROUS))).unwrap();
    let handshake = session.handshake();
    assert_eq!(handshake.protocol, 1);
    assert_eq!(handshake.reported.as_slice(), [Capability::OneShot]);
    assert_eq!(handshake.selected, [Capability::OneShot]);
    assert_eq!(handshake.sdk, None, "the test worker is a direct protocol worker");
    let hello = &session.phases()[0];
    assert_eq!((hello.phase, hello.request_id.as_str(), hello.ok), (Phase::Hello, "0", true));
}

#[test]
fn the_sdk_name_and_version_are_available() {
    let fixture = Fixture::new();
    let config = fixture.config(&["--sdk", "metewand-python@0.1.0"], PhaseTimeouts::uniform(GENEROUS));
    let session = MaterializerSession::connect(config).unwrap();
    let sdk = session.handshake().sdk.as_ref().map(|sdk| (sdk.name.as_str(), sdk.version.as_str()));
    assert_eq!(sdk, Some(("metewand-python", "0.1.0")));
    assert_eq!(session.handshake().selected, []);
}

#[test]
fn reserved_capabilities_are_recorded_and_inert() {
    let fixture = Fixture::new();
    let all = "one_shot,applicability,fresh_sequence,streaming_profile";
    let config = fixture.implementation(&["--capabilities", all], PhaseTimeouts::uniform(GENEROUS));
    let mut session = ImplementationSession::connect(config).unwrap();
    assert_eq!(
        session.handshake().reported.as_slice(),
        [Capability::OneShot, Capability::Applicability, Capability::FreshSequence, Capability::StreamingProfile]
    );
    assert_eq!(session.handshake().selected, [Capability::OneShot]);
    session.prepare(fixture.prepare()).unwrap();
    session.shutdown().unwrap();
}

#[test]
fn omitting_a_selected_capability_fails_the_handshake() {
    let fixture = Fixture::new();
    let config = fixture.implementation(&["--capabilities", ""], PhaseTimeouts::uniform(GENEROUS));
    let error = ImplementationSession::connect(config).unwrap_err();
    let SessionErrorKind::ProtocolViolation(ProtocolViolation::Handshake(HandshakeError::CapabilityNotReported {
        capability: Capability::OneShot,
        reported,
    })) = error.kind()
    else {
        panic!("{error:?}")
    };
    assert!(reported.is_empty());
    assert_eq!((error.role(), error.phase()), (Role::Implementation, Phase::Hello));
    assert_eq!(error.failure_kind(), Some(FailureKind::ProtocolViolation));
    assert!(!error.timing().unwrap().ok, "a hello that failed its checks is not ok");
    assert_reported(&error, "implementation", "hello");
    assert!(error.stderr_tail().contains(&"test-worker: received hello 0".to_owned()), "{error}");
}

#[test]
fn repeating_a_different_worker_id_fails_the_handshake() {
    let fixture = Fixture::new();
    let config = fixture.implementation(&["--fault", "wrong-worker-id@hello"], PhaseTimeouts::uniform(GENEROUS));
    let error = ImplementationSession::connect(config).unwrap_err();
    assert!(
        matches!(
            error.kind(),
            SessionErrorKind::ProtocolViolation(ProtocolViolation::Handshake(HandshakeError::WorkerIdMismatch { .. }))
        ),
        "{error:?}"
    );
    assert_eq!(error.phase(), Phase::Hello);
}

#[test]
fn a_failed_hello_is_a_worker_failure_in_hello() {
    let fixture = Fixture::new();
    let config = fixture.config(&["--fault", "fail@hello"], PhaseTimeouts::uniform(GENEROUS));
    let error = MaterializerSession::connect(config).unwrap_err();
    assert!(
        matches!(error.kind(), SessionErrorKind::WorkerFailure { code: FailureCode::OperationFailed, .. }),
        "{error:?}"
    );
    assert_eq!((error.role(), error.phase()), (Role::DatasetMaterializer, Phase::Hello));
    assert!(error.discarded_worker(), "a failed hello leaves no session");
}

#[test]
fn a_missing_program_is_spawn_failed_in_hello() {
    let fixture = Fixture::new();
    let command = WorkerCommand::new(fixture.path("no-such-worker"), fixture.path("source"));
    let config = SessionConfig::new(command, worker_id(), PhaseTimeouts::uniform(GENEROUS), fixture.log());
    let error = MaterializerSession::connect(config).unwrap_err();
    assert!(matches!(error.kind(), SessionErrorKind::SpawnFailed { .. }), "{error:?}");
    assert_eq!((error.phase(), error.failure_kind()), (Phase::Hello, Some(FailureKind::SpawnFailed)));
    let expected = format!("cannot start {:?}: No such file or directory (os error 2)", fixture.path("no-such-worker"));
    assert!(error.to_string().contains(&expected), "{error}");
    assert!(error.timing().is_none());
    assert_reported(&error, "dataset_materializer", "hello");
}

#[test]
fn a_missing_working_directory_is_spawn_failed() {
    let fixture = Fixture::new();
    let command = WorkerCommand::new(metewand_testkit::test_worker(), fixture.path("no-such-dir")).arg("serve");
    let config = SessionConfig::new(command, worker_id(), PhaseTimeouts::uniform(GENEROUS), fixture.log());
    let error = MaterializerSession::connect(config).unwrap_err();
    assert!(matches!(error.kind(), SessionErrorKind::SpawnFailed { .. }), "{error:?}");
    let expected = format!("its working directory {} does not exist", fixture.path("no-such-dir").display());
    assert!(error.to_string().contains(&expected), "{error}");
}

#[test]
fn the_worker_gets_a_clean_environment_and_its_working_directory() {
    let fixture = Fixture::new();
    // The worker prints its environment and directory to stderr and exits, which ends the session in hello.
    let command = WorkerCommand::new("sh", fixture.path("source"))
        .args(["-c", "env >&2; echo \"cwd=$(pwd)\" >&2"])
        .env("DECLARED", "declared value");
    let config = SessionConfig::new(command, worker_id(), PhaseTimeouts::uniform(GENEROUS), fixture.log());
    let error = MaterializerSession::connect(config).unwrap_err();
    assert!(matches!(error.kind(), SessionErrorKind::WorkerExit { cause: ExitCause::Exited, .. }), "{error:?}");
    let log = fs::read_to_string(fixture.log()).unwrap();
    let names: BTreeSet<&str> = log.lines().filter_map(|line| line.split_once('=')).map(|(name, _)| name).collect();
    // `sh` adds PWD itself; `cwd` is the echo.
    let mut allowed: BTreeSet<&str> = INHERITED_ENV.into_iter().chain(["DECLARED", "PWD", "cwd"]).collect();
    allowed.retain(|name| names.contains(name));
    assert_eq!(names, allowed, "{log}");
    assert!(log.contains("DECLARED=declared value\n"), "{log}");
    assert!(log.contains(&format!("cwd={}\n", fixture.path("source").display())), "{log}");
    assert!(std::env::var_os("CARGO_MANIFEST_DIR").is_some() && !log.contains("CARGO_MANIFEST_DIR"), "{log}");
}

/// `connect_telling` tells its sender once the worker has been started and its hello's clock runs, before the worker
/// can answer (here a shell that waits at a FIFO until it is told, then runs the test worker), and tells nothing,
/// without blocking whoever waits, for a worker that could not be started: a session started beside waits for this
/// one's hello, and never for ever.
#[test]
fn a_session_tells_when_its_hello_runs_and_drops_the_word_when_it_cannot_start() {
    let fixture = Fixture::new();
    let gate = fixture.path("gate");
    assert!(std::process::Command::new("mkfifo").arg(&gate).status().unwrap().success());
    let command = WorkerCommand::new("/bin/sh", fixture.path("source"))
        .arg("-c")
        .arg(r#"read go < "$0" && exec "$1" serve --pid-dir "$2""#)
        .arg(&gate)
        .arg(metewand_testkit::test_worker())
        .arg(fixture.path("pids"));
    let config = SessionConfig::new(command, worker_id(), PhaseTimeouts::uniform(GENEROUS), fixture.log())
        .select(Capability::OneShot);
    let (at_hello, told) = std::sync::mpsc::channel();
    let connecting = std::thread::spawn(move || ImplementationSession::connect_telling(config, at_hello));
    told.recv().expect("told while the worker waits at its gate");
    let heard = std::time::SystemTime::now();
    fs::write(&gate, "go\n").unwrap();
    let session = connecting.join().unwrap().unwrap();
    let hello = &session.phases()[0];
    assert_eq!((hello.phase, hello.ok), (Phase::Hello, true));
    assert!(hello.started_at <= heard, "the hello's clock ran before the word");
    assert!(told.try_recv().is_err(), "told once");

    let command = WorkerCommand::new(fixture.path("no-such-worker"), fixture.path("source"));
    let config = SessionConfig::new(command, worker_id(), PhaseTimeouts::uniform(GENEROUS), fixture.path("log-2"));
    let (at_hello, told) = std::sync::mpsc::channel();
    let error = MaterializerSession::connect_telling(config, at_hello).unwrap_err();
    assert!(matches!(error.kind(), SessionErrorKind::SpawnFailed { .. }), "{error:?}");
    assert_eq!(told.recv(), Err(std::sync::mpsc::RecvError), "nothing told, and nobody left waiting");
}
