//! The integration tests of metewand-runtime, one module per area.

mod session;
