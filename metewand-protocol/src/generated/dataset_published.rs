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
    ///The record's format: 1, the only one this version reads.
    pub format: Format1,
    pub key: super::common::Sha256,
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
/// The constant `1`: serializes as it and deserializes from nothing else.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Format1;
impl ::serde::Serialize for Format1 {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        serializer.serialize_u64(1u64)
    }
}
impl<'de> ::serde::Deserialize<'de> for Format1 {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        struct Format1Visitor;
        impl<'de> ::serde::de::Visitor<'de> for Format1Visitor {
            type Value = Format1;
            fn expecting(
                &self,
                formatter: &mut ::std::fmt::Formatter<'_>,
            ) -> ::std::fmt::Result {
                formatter.write_str("the integer 1")
            }
            fn visit_u64<E: ::serde::de::Error>(
                self,
                value: u64,
            ) -> ::std::result::Result<Format1, E> {
                if value == 1u64 {
                    Ok(Format1)
                } else {
                    Err(
                        E::invalid_value(::serde::de::Unexpected::Unsigned(value), &self),
                    )
                }
            }
            fn visit_i64<E: ::serde::de::Error>(
                self,
                value: i64,
            ) -> ::std::result::Result<Format1, E> {
                match u64::try_from(value) {
                    Ok(value) => self.visit_u64(value),
                    Err(_) => {
                        Err(
                            E::invalid_value(
                                ::serde::de::Unexpected::Signed(value),
                                &self,
                            ),
                        )
                    }
                }
            }
            fn visit_f64<E: ::serde::de::Error>(
                self,
                value: f64,
            ) -> ::std::result::Result<Format1, E> {
                if value == 1.0 {
                    Ok(Format1)
                } else {
                    Err(E::invalid_value(::serde::de::Unexpected::Float(value), &self))
                }
            }
        }
        deserializer.deserialize_any(Format1Visitor)
    }
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
