//! The integration tests of metewand-protocol, one module per area.

mod canonical;
mod compile_fail;
mod strict;
mod support;
mod vectors;

pub use support::corpora;
