//! The integration tests of metewand-protocol, one module per area.

#![allow(clippy::disallowed_methods, reason = "tests make and read their own files in temporary folders")]

mod canonical;
mod compile_fail;
mod decode;
mod frame;
mod handshake;
mod methods;
mod stream;
mod strict;
mod support;
mod timed;
mod tracker;
mod vectors;

pub use support::corpora;
