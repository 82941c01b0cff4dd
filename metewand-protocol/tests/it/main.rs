//! The integration tests of metewand-protocol, one module per area.

mod canonical;
mod compile_fail;
mod decode;
mod frame;
mod handshake;
mod strict;
mod support;
mod tracker;
mod vectors;

pub use support::corpora;
