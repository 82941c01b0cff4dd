// Generated from schemas/dataset-materialization.schema.json by codegen; do not edit. Regenerate with: cargo xtask codegen
//! Metewand dataset materialization: types generated from `schemas/dataset-materialization.schema.json`.
//!
//! datasets/<key>.json in a campaign folder: how the dataset of one key (dataset: its name) was obtained alone,
//! before the attempts that need it, canonical JSON, written atomically.

///datasets/<key>.json in a campaign folder: how the dataset of one key (dataset: its name) was obtained alone, before the attempts that need it, canonical JSON, written atomically.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct DatasetMaterialization {
    pub dataset: super::common::Name,
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub failure: ::std::option::Option<super::attempt_record::AttemptFailure>,
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub files: ::std::option::Option<super::attempt_record::FileRecords>,
    pub finished_at: super::common::Timestamp,
    pub format: super::common::Format,
    pub key: crate::digest::Sha256Digest,
    ///The materializer's log, relative to the folder it ran in, if its session started.
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub log: ::std::option::Option<super::common::LogPath>,
    pub materializer: super::attempt_record::WorkerSession,
    ///How it ended: ok (the dataset is in the store, verified, reused or materialized), failed (failure says how) or cancelled.
    pub outcome: DatasetMaterializationOutcome,
    ///One entry per request sent to the materializer.
    pub phases: ::std::vec::Vec<super::attempt_record::PhaseRecord>,
    ///Whether a verified store entry was reused; null if the store was never reached.
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub reused: ::std::option::Option<bool>,
    pub seed: crate::strict::SafeUint,
    pub started_at: super::common::Timestamp,
}
///How it ended: ok (the dataset is in the store, verified, reused or materialized), failed (failure says how) or cancelled.
#[derive(
    ::serde::Deserialize,
    ::serde::Serialize,
    Clone,
    Copy,
    Debug,
    Eq,
    Hash,
    Ord,
    PartialEq,
    PartialOrd
)]
pub enum DatasetMaterializationOutcome {
    #[serde(rename = "ok")]
    Ok,
    #[serde(rename = "failed")]
    Failed,
    #[serde(rename = "cancelled")]
    Cancelled,
}
impl ::std::fmt::Display for DatasetMaterializationOutcome {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        match *self {
            Self::Ok => f.write_str("ok"),
            Self::Failed => f.write_str("failed"),
            Self::Cancelled => f.write_str("cancelled"),
        }
    }
}
impl ::std::str::FromStr for DatasetMaterializationOutcome {
    type Err = self::error::ConversionError;
    fn from_str(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        match value {
            "ok" => Ok(Self::Ok),
            "failed" => Ok(Self::Failed),
            "cancelled" => Ok(Self::Cancelled),
            _ => Err("invalid value".into()),
        }
    }
}
impl ::std::convert::TryFrom<&str> for DatasetMaterializationOutcome {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for DatasetMaterializationOutcome {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
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
impl DatasetMaterialization {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "format",
        "key",
        "dataset",
        "seed",
        "outcome",
        "failure",
        "reused",
        "materializer",
        "files",
        "phases",
        "started_at",
        "finished_at",
        "log",
    ];
}
impl<'de> ::serde::Deserialize<'de> for DatasetMaterialization {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        DatasetMaterialization::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for DatasetMaterialization {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        DatasetMaterialization::serialize(self, serializer)
    }
}
