//! The requests each role's typed session sends are the methods the protocol's table of request methods (generated
//! from the schema's annotations) gives the role: every typed request is sent to a conformant test worker, which
//! refuses any the table does not give its role, and what the worker received is compared with the table.

use std::fs;
use std::path::Path;

use metewand_protocol::common::{Capability, Role};
use metewand_protocol::methods::RequestMethod;
use metewand_protocol::strict::SafeUint;
use metewand_session::{
    Checkpoint, EvaluatorSession, ExecuteStreamParams, ImplementationSession, MaterializerSession, PhaseTimeouts,
    Sealed,
};

use super::{Fixture, GENEROUS};

/// The methods the test worker logged receiving (`test-worker: received METHOD ID`), each once, in order.
fn received(log: &Path) -> Vec<String> {
    let text = fs::read_to_string(log).expect("the worker's log");
    let mut methods: Vec<String> = Vec::new();
    for line in text.lines() {
        let Some(method) = line.strip_prefix("test-worker: received ").and_then(|rest| rest.split(' ').next()) else {
            continue;
        };
        if !methods.iter().any(|known| known == method) {
            methods.push(method.to_owned());
        }
    }
    methods
}

/// The table's methods for `role`, in the schema's order.
fn table(role: Role) -> Vec<String> {
    RequestMethod::of_role(role).map(|method| method.name.to_owned()).collect()
}

#[test]
fn each_typed_session_sends_exactly_the_methods_the_table_gives_its_role() {
    let timeouts = PhaseTimeouts::uniform(GENEROUS);

    let fixture = Fixture::new();
    let mut session = MaterializerSession::connect(fixture.config(&["--conformant"], timeouts)).unwrap();
    session.materialize(fixture.materialize()).unwrap();
    session.shutdown().unwrap();
    assert_eq!(received(&fixture.log()), table(Role::DatasetMaterializer));

    // The conformant worker refuses execute_stream unless it reports streaming_profile.
    let fixture = Fixture::new();
    let args = ["--conformant", "--capabilities", "one_shot,streaming_profile"];
    let config = fixture.config(&args, timeouts).select(Capability::StreamingProfile);
    let mut session = ImplementationSession::connect(config).unwrap();
    session.prepare(fixture.prepare()).unwrap();
    let result_dir = fixture.path("result").to_str().unwrap().try_into().unwrap();
    let params = ExecuteStreamParams { result_dir, max_checkpoints: SafeUint::from(1_u32) };
    let streamed = session.execute_stream(params, |_: &Checkpoint| Sealed { value: (), go_on: true }).unwrap();
    assert_eq!(streamed.checkpoints.len(), 1);
    session.execute(fixture.execute()).unwrap();
    session.reset().unwrap();
    session.shutdown().unwrap();
    let mut sent = received(&fixture.log());
    let mut expected = table(Role::Implementation);
    sent.sort();
    expected.sort();
    assert_eq!(sent, expected);

    let fixture = Fixture::new();
    let mut session = EvaluatorSession::connect(fixture.config(&["--conformant"], timeouts)).unwrap();
    session.evaluate(fixture.evaluate()).unwrap();
    session.shutdown().unwrap();
    assert_eq!(received(&fixture.log()), table(Role::ProblemEvaluator));
}
