use metewand_protocol::strict::SafeUint;

fn main() {
    let _seed = SafeUint(9_007_199_254_740_992);
}
