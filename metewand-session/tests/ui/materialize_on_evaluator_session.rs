// An evaluator session has no `materialize`: only a dataset materializer builds datasets.
use metewand_session::EvaluatorSession;
use metewand_session::MaterializeParams;

fn build(session: &mut EvaluatorSession, params: MaterializeParams) {
    let _ = session.materialize(params);
}

fn main() {}
