// Generated from schemas/audit.schema.json by codegen; do not edit. Regenerate with: cargo xtask codegen
//! Metewand audit: types generated from `schemas/audit.schema.json`.
//!
//! audits/<id>/audit.json in a campaign folder: a sample of the campaign's done attempts run again in fresh
//! sessions, in another order, each compared with its record (its verdict) and with its cell's repetitions (its
//! time), written atomically once every re-run has its record. seed draws the sample and its order (the same
//! seed, the same attempts in the same order); sample is how many were drawn, done how many done attempts (judged
//! to the end) they were drawn from; a re-run's time may fall tolerance_percent beyond its cell's fastest and
//! slowest time, and slack_ns beyond that, for times too short for a percentage to mean anything.

///audits/<id>/audit.json in a campaign folder: a sample of the campaign's done attempts run again in fresh sessions, in another order, each compared with its record (its verdict) and with its cell's repetitions (its time), written atomically once every re-run has its record. seed draws the sample and its order (the same seed, the same attempts in the same order); sample is how many were drawn, done how many done attempts (judged to the end) they were drawn from; a re-run's time may fall tolerance_percent beyond its cell's fastest and slowest time, and slack_ns beyond that, for times too short for a percentage to mean anything.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Audit {
    ///The attempts run again, in the order they ran.
    pub attempts: ::std::vec::Vec<AuditedAttempt>,
    ///The campaign's name, as its campaign.json holds it.
    pub campaign: ::std::string::String,
    pub done: crate::strict::SafeUint,
    pub finished_at: super::common::Timestamp,
    pub format: super::common::Format,
    ///The repository the attempts ran again from, as campaign.json names it.
    pub repository: ::std::string::String,
    pub sample: crate::strict::SafeUint,
    pub seed: crate::strict::SafeUint,
    pub slack_ns: crate::strict::SafeUint,
    pub started_at: super::common::Timestamp,
    pub tolerance_percent: crate::strict::SafeUint,
}
///One attempt run again: what its record says, what the re-run's record (in folder, relative to the audit's) says, the interval of its cell's times, and whether either differs.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct AuditedAttempt {
    pub attempt_id: super::common::AttemptId,
    pub folder: ::std::string::String,
    pub interval: Interval,
    pub recorded: Observation,
    pub rerun: Observation,
    ///Whether the re-run was timed outside its cell's interval, or not timed at all.
    pub time_outside: bool,
    ///Whether the re-run ended with another outcome or verdict than the record.
    pub verdict_changed: bool,
}
///The times a re-run of the cell may take: its repetitions' fastest and slowest in the campaign, widened by tolerance_percent of each and by slack_ns; repetitions is how many timed attempts of the cell the campaign holds.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Interval {
    pub high_ns: crate::strict::SafeUint,
    pub low_ns: crate::strict::SafeUint,
    pub repetitions: crate::strict::SafeUint,
}
///How an attempt ended: its outcome, its verdict and its time by what its problem ranks (null when it was not judged to the end).
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Observation {
    pub outcome: super::attempt_record::Outcome,
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub time_ns: ::std::option::Option<crate::strict::SafeUint>,
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub verdict: ::std::option::Option<super::common::Verdict>,
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
impl AuditedAttempt {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "attempt_id",
        "folder",
        "recorded",
        "rerun",
        "interval",
        "verdict_changed",
        "time_outside",
    ];
}
impl Interval {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "low_ns",
        "high_ns",
        "repetitions",
    ];
}
impl Observation {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &["outcome", "verdict", "time_ns"];
}
impl Audit {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "format",
        "campaign",
        "repository",
        "seed",
        "sample",
        "done",
        "tolerance_percent",
        "slack_ns",
        "started_at",
        "finished_at",
        "attempts",
    ];
}
impl<'de> ::serde::Deserialize<'de> for Audit {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        Audit::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for Audit {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        Audit::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for AuditedAttempt {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        AuditedAttempt::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for AuditedAttempt {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        AuditedAttempt::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for Interval {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        Interval::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for Interval {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        Interval::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for Observation {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        Observation::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for Observation {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        Observation::serialize(self, serializer)
    }
}
