//! Runs Metewand's worker processes and validates what they leave behind.
//!
//! This crate is the only one that spawns workers and reads their output. It builds on the message types of
//! [`metewand_protocol`], which it re-exports so that callers depend on one version of them:
//!
//! ```
//! use metewand_runtime::protocol::common::Role;
//!
//! assert_eq!(serde_json::to_string(&Role::Implementation).unwrap(), "\"implementation\"");
//! ```
//!
//! A benchmark repository is loaded and checked into a [`CheckedRepository`] (its schema catalog, workers with
//! their identities, datasets and problem contracts), and a [`WorkerOutputValidator`] over it checks what a worker
//! wrote:
//!
//! ```
//! use std::fs;
//! use metewand_runtime::{CheckedRepository, WorkerOutputValidator};
//! use metewand_runtime::protocol::strict::SafeUint;
//!
//! let repo = tempfile::tempdir().unwrap();
//! fs::create_dir(repo.path().join("gen")).unwrap();
//! fs::write(repo.path().join("gen/gen.py"), "print('hi')\n").unwrap();
//! fs::write(repo.path().join("metewand.toml"), r#"
//! format = 1
//! [workers.gen]
//! role = "dataset_materializer"
//! command = ["python3", "${repo}/gen/gen.py"]
//! source = "gen"
//! [datasets.small]
//! materializer = "gen"
//! parameters = { rows = 2 }
//! output_schema = { type = "object", required = ["rows"] }
//! "#).unwrap();
//! let repository = CheckedRepository::load(repo.path()).unwrap();
//! let dataset = repository.dataset("small").unwrap();
//! assert_eq!(dataset.key(SafeUint::ZERO).to_string().len(), 64);
//! assert!(repository.worker("gen").unwrap().identity().as_str().starts_with("mw1-resolved-worker-"));
//!
//! let out = tempfile::tempdir().unwrap();
//! fs::write(out.path().join("rows.csv"), "a\nb\n").unwrap();
//! fs::write(out.path().join("dataset-manifest.json"), r#"{"complete": true, "data": {"rows": 2}, "files": [
//!     {"path": "rows.csv", "size": 4,
//!      "sha256": "0b0ee3d4b2f5b4c5e4e1bcf0b8e0fb8e1bbf8c8f0e0b7b2a1d9e6b0ba1a2b3c4"}]}"#).unwrap();
//! let error = WorkerOutputValidator::new(&repository)
//!     .validate_dataset(dataset, out.path(), "dataset-manifest.json")
//!     .unwrap_err();
//! assert!(error.to_string().contains("\"rows.csv\" has SHA-256"), "{error}");
//! ```
//!
//! A [`session`] runs one worker for one role. Its phases are bounded by [`PhaseTimeouts`], which has no implicit
//! defaults: a value names every phase, usually starting from the documented defaults.
//!
//! ```
//! use std::time::Duration;
//! use metewand_runtime::protocol::common::{Role, WorkerId};
//! use metewand_runtime::{PhaseTimeouts, SessionConfig, WorkerCommand};
//!
//! let timeouts = PhaseTimeouts { execute: Duration::from_secs(120), ..PhaseTimeouts::documented_defaults() };
//! let command = WorkerCommand::new("python3", "/private/source-implementation").args(["-m", "solver"]);
//! let worker_id = WorkerId::try_from(format!("mw1-resolved-worker-{}", "0".repeat(64))).unwrap();
//! let config = SessionConfig::new(command, worker_id, timeouts, "/attempt/logs/implementation.log");
//! assert_eq!(config.timeouts().execute, Duration::from_secs(120));
//! assert_eq!(config.timeouts().hello, Duration::from_secs(60));
//! // `ImplementationSession::connect(config)` would now spawn the worker and complete the handshake.
//! # let _ = Role::Implementation;
//! ```
//!
//! An [`attempt`] puts these together: an [`attempt::AttemptPlan`] runs the materializer (or reuses a verified
//! dataset from the store), the implementation and the evaluator, each in its own session, validates what each
//! left once it has exited, and returns the complete attempt record that `metewand run` writes as `attempt.json`.

#![deny(unsafe_code)]

pub mod attempt;
pub mod conformance;
pub mod environment;
pub mod exit;
pub mod preflight;
pub mod rejudge;
pub mod scaffold;

pub use metewand_files as files;
pub use metewand_files::document;
pub use metewand_protocol as protocol;
pub use metewand_repository as repository;
use metewand_repository::diagnostic;
pub use metewand_repository::{catalog, identity, validate};
pub use metewand_session as session;
pub use metewand_session::cpus;

pub use catalog::SchemaCatalog;
pub use files::{RelativePath, Sha256Digest};
pub use repository::{CheckError, CheckErrorKind, CheckOptions, CheckedRepository, Limits};
pub use session::{
    EvaluatorSession, ImplementationSession, MaterializerSession, PhaseTimeouts, Session, SessionConfig, SessionError,
    SessionErrorKind, WorkerCommand, WorkerSession,
};
pub use validate::{
    ValidatedDataset, ValidatedMetrics, ValidatedResult, ValidationError, ValidationErrorKind, WorkerOutputValidator,
};
