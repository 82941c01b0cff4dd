// A streamed execution is an implementation's request: an evaluator's typed session has no such method.

use metewand_session::{EvaluatorSession, ExecuteStreamParams, Sealed};

fn stream(session: &mut EvaluatorSession, params: ExecuteStreamParams) {
    let _ = session.execute_stream(params, |_| Sealed { value: (), go_on: true });
}

fn main() {}
