// Generated from schemas/dataset-published.schema.json by codegen; do not edit. Regenerate with: cargo xtask codegen
//! Metewand dataset store record: types generated from `schemas/dataset-published.schema.json`.
//!
//! datasets/<key>.published in a state folder: the executor's record of a dataset entry it published in the
//! store, canonical JSON, written before the entry is renamed into place. An entry is reused only when it is
//! valid and its files are exactly this inventory.

///datasets/<key>.published in a state folder: the executor's record of a dataset entry it published in the store, canonical JSON, written before the entry is renamed into place. An entry is reused only when it is valid and its files are exactly this inventory.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct DatasetPublished {
    ///The declared files, in the validator's order.
    pub files: ::std::vec::Vec<super::common::FileRecord>,
    pub format: super::common::Format,
    pub key: crate::digest::Sha256Digest,
    pub manifest: super::common::FileRecord,
    pub materialized_at: super::common::Timestamp,
    pub materializer: super::common::WorkerId,
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
impl DatasetPublished {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "format",
        "key",
        "files",
        "manifest",
        "materializer",
        "materialized_at",
    ];
}
impl<'de> ::serde::Deserialize<'de> for DatasetPublished {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        DatasetPublished::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for DatasetPublished {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        DatasetPublished::serialize(self, serializer)
    }
}
