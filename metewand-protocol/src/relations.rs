//! Where the schemas name one concept in two forms, the one way from the narrower form to the wider.
//!
//! Each conversion here is total and checked by the compiler (an exhaustive `match`, or a pattern that implies
//! the other), so no code converts between generated types by printing one and parsing the text as the other.

use crate::Sha256Digest;
use crate::common::{AttemptId, ProblemContractId, Verdict, WorkerId};
use crate::generated::attempt_record::{Outcome, TreeDigest};
use crate::messages::ProblemContractRef;

/// The identities that are a prefix and a digest's 64 lowercase hexadecimal digits, each made from its digest: the
/// schema's pattern is the prefix and those digits, so the conversion is total.
macro_rules! digest_identity {
    ($($(#[$doc:meta])* $id:ty = $prefix:literal;)*) => {$(
        impl From<Sha256Digest> for $id {
            $(#[$doc])*
            fn from(digest: Sha256Digest) -> $id {
                // Written into a string of its final size: a plan makes a million of these.
                let mut text = String::with_capacity($prefix.len() + 64);
                text.push_str($prefix);
                let _ = std::fmt::Write::write_fmt(&mut text, format_args!("{digest}"));
                <$id>::try_from(text)
                    .expect(concat!("the pattern of an identity is ", $prefix, " and 64 lowercase hex digits"))
            }
        }
    )*};
}

digest_identity! {
    /// A resolved worker identity, from the digest of its preimage.
    WorkerId = "mw1-resolved-worker-";
    /// A problem contract id, from the digest of its preimage.
    ProblemContractId = "mw1-problem-contract-";
    /// A campaign attempt's id, from the digest of its preimage.
    AttemptId = "mw1-attempt-";
    /// A tree digest as identities and records write it, from the digest of the tree's canonical file list.
    TreeDigest = "sha256:";
}

impl From<&ProblemContractId> for ProblemContractRef {
    /// A generated contract id, as a request names it: `mw1-problem-contract-<hex>` is a nonempty string.
    fn from(id: &ProblemContractId) -> ProblemContractRef {
        ProblemContractRef::try_from(id.as_str()).expect("a generated contract id is a nonempty string")
    }
}

impl From<Verdict> for Outcome {
    /// The outcome of an attempt whose sessions all succeeded: its verdict.
    fn from(verdict: Verdict) -> Outcome {
        match verdict {
            Verdict::Reached => Outcome::Reached,
            Verdict::NotReached => Outcome::NotReached,
            Verdict::NotRequired => Outcome::NotRequired,
            Verdict::Invalid => Outcome::Invalid,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_verdict_is_the_outcome_of_the_same_name() {
        for verdict in [Verdict::Reached, Verdict::NotReached, Verdict::NotRequired, Verdict::Invalid] {
            assert_eq!(Outcome::from(verdict).to_string(), verdict.to_string());
        }
    }

    #[test]
    fn every_digest_is_an_identity_of_each_kind() {
        for digest in [Sha256Digest::of(b""), Sha256Digest::of(b"abc"), "f".repeat(64).parse().unwrap()] {
            assert_eq!(WorkerId::from(digest).as_str(), format!("mw1-resolved-worker-{digest}"));
            assert_eq!(ProblemContractId::from(digest).as_str(), format!("mw1-problem-contract-{digest}"));
            assert_eq!(AttemptId::from(digest).as_str(), format!("mw1-attempt-{digest}"));
            assert_eq!(TreeDigest::from(digest).as_str(), format!("sha256:{digest}"));
        }
    }

    #[test]
    fn a_generated_contract_id_is_a_valid_reference() {
        let id: ProblemContractId = format!("mw1-problem-contract-{}", "ab".repeat(32)).parse().unwrap();
        assert_eq!(ProblemContractRef::from(&id).as_str(), id.as_str());
    }
}
