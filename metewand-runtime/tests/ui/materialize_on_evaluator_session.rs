// An evaluator session has no `materialize`: only a dataset materializer builds datasets.
use metewand_runtime::EvaluatorSession;
use metewand_runtime::session::MaterializeParams;

fn build(session: &mut EvaluatorSession, params: MaterializeParams) {
    let _ = session.materialize(params);
}

fn main() {}
