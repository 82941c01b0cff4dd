use metewand_protocol::common::Capability;
use metewand_protocol::strict::{NonEmptyUniqueVec, UniqueVec};

fn main() {
    let _capabilities = UniqueVec(vec![Capability::OneShot, Capability::OneShot]);
    let _protocols: NonEmptyUniqueVec<u64> = NonEmptyUniqueVec(Vec::new());
}
