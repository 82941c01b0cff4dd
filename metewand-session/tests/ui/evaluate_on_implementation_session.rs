// An implementation session has no `evaluate`: only a problem evaluator judges results.
use metewand_session::ImplementationSession;
use metewand_session::EvaluateParams;

fn judge(session: &mut ImplementationSession, params: EvaluateParams) {
    let _ = session.evaluate(params);
}

fn main() {}
