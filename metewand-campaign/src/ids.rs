//! Maps keyed by attempt ids, hashed by their last sixteen bytes: an id ends in the hex of a SHA-256, so those bytes
//! alone spread a plan's ids evenly, and a plan of a million ids spent a tenth of its time hashing every byte of each
//! with the standard library's keyed hash. Ids are the executor's own (a plan's, or an index entry's looked up
//! against them), not a worker's: no input chosen to collide reaches these maps. Text of another form still hashes
//! correctly, by its end.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A map keyed by attempt ids.
pub(crate) type IdMap<'a, V> = HashMap<&'a str, V, BuildHasherDefault<IdHasher>>;

/// An empty [`IdMap`] with room for `capacity` ids.
pub(crate) fn id_map<'a, V>(capacity: usize) -> IdMap<'a, V> {
    HashMap::with_capacity_and_hasher(capacity, BuildHasherDefault::default())
}

/// The hasher of [`IdMap`]: each write mixes in its last sixteen bytes, eight at a time.
#[derive(Default)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes[bytes.len().saturating_sub(16)..].chunks(8) {
            let mut word = [0; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.0 = (self.0.rotate_left(26) ^ u64::from_le_bytes(word)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_other_text_are_told_apart_and_found() {
        let ids: Vec<String> = (0..10_000u32)
            .map(|n| format!("mw1-attempt-{}", metewand_runtime::Sha256Digest::of(&n.to_le_bytes())))
            .collect();
        let others = ["", "a", "same-end-0123456789abcdef", "other-0123456789abcdef"];
        let mut map = id_map(0);
        for (index, text) in ids.iter().map(String::as_str).chain(others).enumerate() {
            assert_eq!(map.insert(text, index), None, "{text}");
        }
        for (index, text) in ids.iter().map(String::as_str).chain(others).enumerate() {
            assert_eq!(map.get(text), Some(&index));
        }
        assert_eq!(map.get("mw1-attempt-"), None);
        // The ids spread: their hashes' low bits (a table's buckets) take most values.
        let buckets: std::collections::HashSet<u64> = ids
            .iter()
            .map(|id| {
                let mut hasher = IdHasher::default();
                std::hash::Hash::hash(id.as_str(), &mut hasher);
                hasher.finish() & 0x3fff
            })
            .collect();
        assert!(buckets.len() > 7_000, "{} of 16,384 buckets for 10,000 ids", buckets.len());
    }
}
