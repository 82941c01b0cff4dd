// `shutdown` consumes the session: nothing can be sent after it.
use metewand_session::ImplementationSession;

fn finish(mut session: ImplementationSession) {
    let _ = session.shutdown();
    let _ = session.reset();
}

fn main() {}
