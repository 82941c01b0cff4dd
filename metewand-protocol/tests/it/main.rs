//! Integration tests of metewand-protocol.

mod compile_fail;
mod strict;
mod support;
mod vectors;
