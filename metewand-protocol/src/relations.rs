//! Where the schemas name one concept in two forms, the one way from the narrower form to the wider.
//!
//! Each conversion here is total and checked by the compiler (an exhaustive `match`, or a pattern that implies
//! the other), so no code converts between generated types by printing one and parsing the text as the other.

use crate::common::{ProblemContractId, Verdict};
use crate::generated::attempt_record::Outcome;
use crate::messages::ProblemContractRef;

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
    fn a_generated_contract_id_is_a_valid_reference() {
        let id: ProblemContractId = format!("mw1-problem-contract-{}", "ab".repeat(32)).parse().unwrap();
        assert_eq!(ProblemContractRef::from(&id).as_str(), id.as_str());
    }
}
