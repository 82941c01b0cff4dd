use metewand_protocol::common::WorkerId;

fn main() {
    let _id = WorkerId("not a worker id".to_owned());
}
