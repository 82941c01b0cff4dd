//! Runs Metewand's worker processes and validates what they leave behind.
//!
//! This crate is the only one that spawns workers and reads their output. It builds on the message types of
//! [`metewand_protocol`], which it re-exports so that callers depend on one version of them:
//!
//! ```
//! use metewand_runtime::protocol::messages::Role;
//!
//! assert_eq!(serde_json::to_string(&Role::Implementation).unwrap(), "\"implementation\"");
//! ```
//!
//! A [`session`] runs one worker for one role. Its phases are bounded by [`PhaseTimeouts`], which has no implicit
//! defaults: a value names every phase, usually starting from the documented defaults.
//!
//! ```
//! use std::time::Duration;
//! use metewand_runtime::protocol::messages::{Role, WorkerId};
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

pub use metewand_protocol as protocol;

pub mod session;

pub use session::{
    EvaluatorSession, ImplementationSession, MaterializerSession, PhaseTimeouts, Session, SessionConfig, SessionError,
    SessionErrorKind, WorkerCommand, WorkerSession,
};
