// Generated from schemas/campaign-table.schema.json by codegen; do not edit. Regenerate with: cargo xtask codegen
//! Metewand campaign table: types generated from `schemas/campaign-table.schema.json`.
//!
//! index/table.json in a campaign folder: every planned attempt's row as metewand.results.load gives it, under
//! the campaign's name as campaign.json has it, one column per field, written by the executor whenever it writes
//! results.csv and results.jsonl (at the end of a run, by campaign export). It is bound to the plan it was made
//! from (plan: the size and SHA-256 of campaign.json's bytes), and each row to the record it was read from (the
//! record's size, SHA-256 and, once the record had settled, its file's stamp, as its index entry names them). A
//! reader uses the table only while campaign.json is exactly those bytes, and a row only while its record is
//! exactly its bytes; every other row is read from the folder as if there were no table. Texts that repeat from
//! row to row are written once in strings, and their columns hold codes: indexes into strings (a column's
//! description says "a code"). Columns have one item per planned attempt, in the plan's order. metrics holds the
//! records' numeric metrics: by name, for every name any record has, a column of numbers with null where a row's
//! record has no such metric.

///index/table.json in a campaign folder: every planned attempt's row as metewand.results.load gives it, under the campaign's name as campaign.json has it, one column per field, written by the executor whenever it writes results.csv and results.jsonl (at the end of a run, by campaign export). It is bound to the plan it was made from (plan: the size and SHA-256 of campaign.json's bytes), and each row to the record it was read from (the record's size, SHA-256 and, once the record had settled, its file's stamp, as its index entry names them). A reader uses the table only while campaign.json is exactly those bytes, and a row only while its record is exactly its bytes; every other row is read from the folder as if there were no table. Texts that repeat from row to row are written once in strings, and their columns hold codes: indexes into strings (a column's description says "a code"). Columns have one item per planned attempt, in the plan's order. metrics holds the records' numeric metrics: by name, for every name any record has, a column of numbers with null where a row's record has no such metric.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct CampaignTable {
    pub columns: Columns,
    pub format: super::common::Format,
    pub metrics: crate::strict::JsonObject,
    pub name: super::common::Name,
    pub plan: PlanBytes,
    ///The benchmark repository, as campaign.json has it.
    pub repository: ::std::string::String,
    ///Every text a code names, once.
    pub strings: ::std::vec::Vec<::std::string::String>,
}
///One column per field of a row.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Columns {
    ///Each planned attempt's id, in the plan's order.
    pub attempt_id: ::std::vec::Vec<super::common::AttemptId>,
    ///How many attempts the campaign ran at once when this one ran.
    pub concurrency: ::std::vec::Vec<::std::option::Option<crate::strict::SafeUint>>,
    ///The CPU time (user and system) of the implementation's session, when it ended cleanly.
    pub cpu_ns: ::std::vec::Vec<::std::option::Option<crate::strict::SafeUint>>,
    ///The dataset's name (a code).
    pub dataset: ::std::vec::Vec<crate::strict::SafeUint>,
    ///The dataset's key (a code).
    pub dataset_key: ::std::vec::Vec<crate::strict::SafeUint>,
    ///The dataset seed.
    pub dataset_seed: ::std::vec::Vec<crate::strict::SafeUint>,
    ///The same of evaluate requests.
    pub evaluate_ns: ::std::vec::Vec<::std::option::Option<crate::strict::SafeUint>>,
    ///The same of execute requests.
    pub execute_ns: ::std::vec::Vec<::std::option::Option<crate::strict::SafeUint>>,
    ///The failure's kind (a code), null without a failure.
    pub failure_kind: ::std::vec::Vec<::std::option::Option<crate::strict::SafeUint>>,
    ///The failure's message, null without a failure.
    pub failure_message: ::std::vec::Vec<::std::option::Option<::std::string::String>>,
    ///The failure's phase (a code), null without one.
    pub failure_phase: ::std::vec::Vec<::std::option::Option<crate::strict::SafeUint>>,
    ///The failure's role (a code), null without one.
    pub failure_role: ::std::vec::Vec<::std::option::Option<crate::strict::SafeUint>>,
    ///The implementation's name (a code).
    pub implementation: ::std::vec::Vec<crate::strict::SafeUint>,
    ///The implementation seed.
    pub implementation_seed: ::std::vec::Vec<crate::strict::SafeUint>,
    ///What the implementation claimed of its own time.
    pub implementation_time_ns: ::std::vec::Vec<
        ::std::option::Option<crate::strict::SafeUint>,
    >,
    ///The record's outcome (a code).
    pub outcome: ::std::vec::Vec<::std::option::Option<crate::strict::SafeUint>>,
    ///The implementation's peak resident memory, when its session ended cleanly.
    pub peak_memory_bytes: ::std::vec::Vec<
        ::std::option::Option<crate::strict::SafeUint>,
    >,
    ///The executor's measure of every prepare request, added up; null when none was sent.
    pub prepare_ns: ::std::vec::Vec<::std::option::Option<crate::strict::SafeUint>>,
    ///The problem's name (a code).
    pub problem: ::std::vec::Vec<crate::strict::SafeUint>,
    ///The program the implementation ran (a code): where its command found it on PATH, or the file itself.
    pub program: ::std::vec::Vec<::std::option::Option<crate::strict::SafeUint>>,
    ///That program's SHA-256 (a code).
    pub program_sha256: ::std::vec::Vec<::std::option::Option<crate::strict::SafeUint>>,
    ///That record's SHA-256; null where record_size is.
    pub record_sha256: ::std::vec::Vec<
        ::std::option::Option<crate::digest::Sha256Digest>,
    >,
    ///The size of the record the row was read from; null where the attempt had no record with an index entry (no folder, no record, or an invalid one), whose row the reader reads from the folder itself.
    pub record_size: ::std::vec::Vec<::std::option::Option<crate::strict::SafeUint>>,
    ///That record's file's stamp, as its index entry names it; null where the entry has none (the record had not settled), so that the reader hashes the record.
    pub record_stamp: ::std::vec::Vec<
        ::std::option::Option<super::campaign_index::Stamp>,
    >,
    ///The repetition, from 1.
    pub repetition: ::std::vec::Vec<crate::strict::SafeUint>,
    ///How the implementation's session served the attempt (a code: fresh or reuse), null where the record does not say.
    pub session: ::std::vec::Vec<::std::option::Option<crate::strict::SafeUint>>,
    ///When the attempt started.
    pub started_at: ::std::vec::Vec<::std::option::Option<super::common::Timestamp>>,
    ///What the problem ranks implementations by (a code: execute or prepare+execute).
    pub timed: ::std::vec::Vec<::std::option::Option<crate::strict::SafeUint>>,
    ///The implementation's time by timed (its own requests only), only for an attempt with a verdict that neither failed nor was cancelled.
    pub timed_ns: ::std::vec::Vec<::std::option::Option<crate::strict::SafeUint>>,
    ///The evaluator's verdict (a code), null without one.
    pub verdict: ::std::vec::Vec<::std::option::Option<crate::strict::SafeUint>>,
    ///The implementation's resolved worker identity (a code).
    pub worker_id: ::std::vec::Vec<::std::option::Option<crate::strict::SafeUint>>,
}
///The bytes of campaign.json the table was made from: their size and SHA-256, and the file's stamp where it had settled when the table was made from it (written as an index entry's stamp is). While the file still has that stamp and size, a reader uses the table without hashing campaign.json; otherwise it hashes the file and compares size and sha256.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct PlanBytes {
    pub sha256: crate::digest::Sha256Digest,
    pub size: crate::strict::SafeUint,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub stamp: ::std::option::Option<super::campaign_index::Stamp>,
}
/// Error types.
pub mod error {
    /// Error from a `TryFrom` or `FromStr` implementation.
    pub struct ConversionError(::std::borrow::Cow<'static, str>);
    impl ::std::error::Error for ConversionError {}
    impl ::std::fmt::Display for ConversionError {
        fn fmt(
            &self,
            f: &mut ::std::fmt::Formatter<'_>,
        ) -> Result<(), ::std::fmt::Error> {
            ::std::fmt::Display::fmt(&self.0, f)
        }
    }
    impl ::std::fmt::Debug for ConversionError {
        fn fmt(
            &self,
            f: &mut ::std::fmt::Formatter<'_>,
        ) -> Result<(), ::std::fmt::Error> {
            ::std::fmt::Debug::fmt(&self.0, f)
        }
    }
    impl From<&'static str> for ConversionError {
        fn from(value: &'static str) -> Self {
            Self(value.into())
        }
    }
    impl From<String> for ConversionError {
        fn from(value: String) -> Self {
            Self(value.into())
        }
    }
}
impl Columns {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "attempt_id",
        "problem",
        "dataset",
        "dataset_seed",
        "dataset_key",
        "implementation",
        "implementation_seed",
        "repetition",
        "record_size",
        "record_sha256",
        "record_stamp",
        "outcome",
        "verdict",
        "failure_role",
        "failure_phase",
        "failure_kind",
        "failure_message",
        "prepare_ns",
        "execute_ns",
        "evaluate_ns",
        "timed",
        "timed_ns",
        "implementation_time_ns",
        "cpu_ns",
        "peak_memory_bytes",
        "started_at",
        "concurrency",
        "session",
        "worker_id",
        "program",
        "program_sha256",
    ];
}
impl PlanBytes {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &["size", "sha256", "stamp"];
}
impl CampaignTable {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "format",
        "plan",
        "name",
        "repository",
        "strings",
        "columns",
        "metrics",
    ];
}
impl<'de> ::serde::Deserialize<'de> for CampaignTable {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        CampaignTable::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for CampaignTable {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        CampaignTable::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for Columns {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        Columns::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for Columns {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        Columns::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for PlanBytes {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        PlanBytes::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for PlanBytes {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        PlanBytes::serialize(self, serializer)
    }
}
