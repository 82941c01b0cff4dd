use metewand_protocol::messages::WorkerId;

fn main() {
    let _id = WorkerId("not a worker id".to_owned());
}
