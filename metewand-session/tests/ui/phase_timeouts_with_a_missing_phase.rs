// PhaseTimeouts cannot be built with a phase missing: a session never falls back to an implicit limit.
use std::time::Duration;

use metewand_session::PhaseTimeouts;

fn main() {
    let minute = Duration::from_secs(60);
    let _ = PhaseTimeouts {
        hello: minute,
        materialize: minute,
        prepare: minute,
        execute: minute,
        reset: minute,
        evaluate: minute,
    };
}
