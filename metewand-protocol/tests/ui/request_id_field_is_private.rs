use metewand_protocol::messages::RequestId;

fn main() {
    let _id = RequestId(String::new());
}
