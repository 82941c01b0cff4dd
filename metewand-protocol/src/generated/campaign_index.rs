// Generated from schemas/campaign-index.schema.json by codegen; do not edit. Regenerate with: cargo xtask codegen
//! Metewand campaign index entry: types generated from `schemas/campaign-index.schema.json`.
//!
//! One line of an index part, index/<part>.jsonl in a campaign folder: what readers (status, plan, report,
//! compare, export, load) need of one attempt's record, with the size and SHA-256 of the record's bytes. The
//! executor appends an entry after writing the record; each writer (a local run, a Slurm task, a reader that
//! rebuilt entries) appends to a part of its own. An entry is used only while attempts/<attempt_id>/attempt.json
//! is exactly those bytes; otherwise the record itself is read and a new entry written. concurrency is how many
//! attempts the campaign ran at once when this one ran; metrics are the record's metrics that are numbers.

///One line of an index part, index/<part>.jsonl in a campaign folder: what readers (status, plan, report, compare, export, load) need of one attempt's record, with the size and SHA-256 of the record's bytes. The executor appends an entry after writing the record; each writer (a local run, a Slurm task, a reader that rebuilt entries) appends to a part of its own. An entry is used only while attempts/<attempt_id>/attempt.json is exactly those bytes; otherwise the record itself is read and a new entry written. concurrency is how many attempts the campaign ran at once when this one ran; metrics are the record's metrics that are numbers.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct CampaignIndex {
    pub attempt_id: super::common::AttemptId,
    pub concurrency: crate::strict::SafeUint,
    pub dataset: Dataset,
    pub evaluator: IndexedSession,
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub failure: ::std::option::Option<Failure>,
    pub finished_at: super::common::Timestamp,
    pub format: super::common::Format,
    pub implementation: Implementation,
    pub metrics: crate::strict::JsonObject,
    pub outcome: super::attempt_record::Outcome,
    ///The record's phases, in order, as far as readers add them up.
    pub phases: ::std::vec::Vec<PhaseTime>,
    pub problem: Problem,
    pub record: RecordBytes,
    pub started_at: super::common::Timestamp,
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub verdict: ::std::option::Option<super::common::Verdict>,
}
///The dataset's name and its materializer's session.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Dataset {
    pub materializer: IndexedSession,
    pub name: super::common::Name,
}
///The record's failure: its role and phase (null for the executor's own), kind and message, and log, the failing session's log relative to the attempt's folder when it has one.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Failure {
    pub kind: super::attempt_record::FailureKind,
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub log: ::std::option::Option<super::common::LogPath>,
    pub message: super::common::Message,
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub phase: ::std::option::Option<super::common::Phase>,
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub role: ::std::option::Option<super::common::Role>,
}
///The implementation's name and worker, how its session served the attempt, the CPUs it ran on and a streamed attempt's profile (each absent in entries of records that do not say), what it claimed of its own time, and its session's CPU time and peak resident memory when it ended cleanly. origin is the record's, for an implementation from outside the repository.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Implementation {
    ///The CPU time (user and system) of the implementation's session, when it ended cleanly.
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub cpu_ns: ::std::option::Option<crate::strict::SafeUint>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub cpus: ::std::option::Option<super::attempt_record::Cpus>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub environment: ::std::option::Option<crate::digest::Sha256Digest>,
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub implementation_time_ns: ::std::option::Option<crate::strict::SafeUint>,
    pub name: super::common::Name,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub origin: ::std::option::Option<super::attempt_record::Origin>,
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub peak_rss_bytes: ::std::option::Option<crate::strict::SafeUint>,
    ///A streamed attempt's checkpoints, each with the executor's time to it and the evaluator's metrics and verdict, as the record has them.
    #[serde(default, skip_serializing_if = "::std::vec::Vec::is_empty")]
    pub profile: ::std::vec::Vec<super::attempt_record::ProfilePoint>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub program: ::std::option::Option<super::attempt_record::WorkerProgram>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub session: ::std::option::Option<super::attempt_record::Session>,
    pub worker_id: super::common::WorkerId,
}
///A worker session: its resolved worker identity and, when the record says, the program it ran.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct IndexedSession {
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub environment: ::std::option::Option<crate::digest::Sha256Digest>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub program: ::std::option::Option<super::attempt_record::WorkerProgram>,
    pub worker_id: super::common::WorkerId,
}
///One request sent: by whom it was served, which phase, and how long the executor waited for its answer.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct PhaseTime {
    pub duration_ns: crate::strict::SafeUint,
    pub phase: super::common::Phase,
    pub role: super::common::Role,
}
///The problem's name and contract id, and what it ranks by (absent for records written before it was recorded).
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Problem {
    pub contract_id: super::common::ProblemContractId,
    pub name: super::common::Name,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub timed: ::std::option::Option<super::attempt_record::ProblemTimed>,
}
///The record's bytes this entry was made from.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct RecordBytes {
    pub sha256: crate::digest::Sha256Digest,
    pub size: crate::strict::SafeUint,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub stamp: ::std::option::Option<Stamp>,
}
///What the record's file was when its bytes were last hashed to `sha256`, as `<inode>:<ctime>:<mtime>` (times in seconds with nine decimals): written only when the file's ctime was at least 5 seconds older than that hashing. While the file's inode, ctime, mtime and size are still these, the entry is used without hashing the record again; any write, rename, link or change of mode since moves its ctime. An entry without a stamp is used only after hashing.
#[derive(::serde::Serialize, Clone, Debug, Eq, Hash, Ord, PartialEq, PartialOrd)]
#[serde(transparent)]
pub struct Stamp(::std::string::String);
impl ::std::ops::Deref for Stamp {
    type Target = ::std::string::String;
    fn deref(&self) -> &::std::string::String {
        &self.0
    }
}
impl ::std::convert::From<Stamp> for ::std::string::String {
    fn from(value: Stamp) -> Self {
        value.0
    }
}
impl ::std::str::FromStr for Stamp {
    type Err = self::error::ConversionError;
    fn from_str(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        static PATTERN: ::std::sync::LazyLock<crate::strict::Pattern> = ::std::sync::LazyLock::new(||
        {
            crate::strict::Pattern::new(
                    "^[0-9]{1,20}:[0-9]{1,20}\\.[0-9]{9}:[0-9]{1,20}\\.[0-9]{9}$",
                )
                .unwrap()
        });
        if PATTERN.refuses(value) {
            return Err(
                "doesn't match pattern \"^[0-9]{1,20}:[0-9]{1,20}\\.[0-9]{9}:[0-9]{1,20}\\.[0-9]{9}$\""
                    .into(),
            );
        }
        Ok(Self(value.to_string()))
    }
}
impl ::std::convert::TryFrom<&str> for Stamp {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for Stamp {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl<'de> ::serde::Deserialize<'de> for Stamp {
    fn deserialize<D>(deserializer: D) -> ::std::result::Result<Self, D::Error>
    where
        D: ::serde::Deserializer<'de>,
    {
        ::std::string::String::deserialize(deserializer)?
            .parse()
            .map_err(|e: self::error::ConversionError| {
                <D::Error as ::serde::de::Error>::custom(e.to_string())
            })
    }
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
impl Dataset {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &["name", "materializer"];
}
impl Failure {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "role",
        "phase",
        "kind",
        "message",
        "log",
    ];
}
impl Implementation {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "name",
        "worker_id",
        "program",
        "environment",
        "implementation_time_ns",
        "cpu_ns",
        "peak_rss_bytes",
        "session",
        "cpus",
        "profile",
        "origin",
    ];
}
impl IndexedSession {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "worker_id",
        "program",
        "environment",
    ];
}
impl PhaseTime {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &["role", "phase", "duration_ns"];
}
impl Problem {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &["name", "contract_id", "timed"];
}
impl RecordBytes {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &["size", "sha256", "stamp"];
}
impl CampaignIndex {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "format",
        "attempt_id",
        "record",
        "outcome",
        "verdict",
        "failure",
        "started_at",
        "finished_at",
        "concurrency",
        "problem",
        "dataset",
        "implementation",
        "evaluator",
        "phases",
        "metrics",
    ];
}
impl<'de> ::serde::Deserialize<'de> for CampaignIndex {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        CampaignIndex::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for CampaignIndex {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        CampaignIndex::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for Dataset {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        Dataset::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for Dataset {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        Dataset::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for Failure {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        Failure::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for Failure {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        Failure::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for Implementation {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        Implementation::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for Implementation {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        Implementation::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for IndexedSession {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        IndexedSession::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for IndexedSession {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        IndexedSession::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for PhaseTime {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        PhaseTime::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for PhaseTime {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        PhaseTime::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for Problem {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        Problem::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for Problem {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        Problem::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for RecordBytes {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        RecordBytes::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for RecordBytes {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        RecordBytes::serialize(self, serializer)
    }
}
impl ::std::fmt::Display for Stamp {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        f.write_str(&self.0)
    }
}
