// A materializer session has no `prepare`, `execute` or `reset`: only an implementation solves problems.
use metewand_session::MaterializerSession;
use metewand_session::ExecuteParams;

fn solve(session: &mut MaterializerSession, params: ExecuteParams) {
    let _ = session.execute(params);
    let _ = session.reset();
}

fn main() {}
