//! The runtime's integration tests: one binary, one module per area.

#![allow(clippy::disallowed_methods, reason = "tests make and read their own files in temporary folders")]

mod conformance;
mod environment;
mod removal;
mod sdk;
