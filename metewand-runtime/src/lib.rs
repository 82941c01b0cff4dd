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

pub use metewand_protocol as protocol;

pub mod session;

pub use session::{PhaseTimeouts, SessionError, SessionErrorKind};
