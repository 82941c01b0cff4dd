// Generated from schemas/result-manifest.schema.json by codegen; do not edit. Regenerate with: cargo xtask codegen
//! Metewand result manifest: types generated from `schemas/result-manifest.schema.json`.
//!
//! The manifest an implementation writes last, at result.json in its result directory: every file of the result
//! and the data the problem's result schema validates.

///The manifest an implementation writes last, at result.json in its result directory: every file of the result and the data the problem's result schema validates.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct ResultManifest {
    pub data: crate::strict::JsonObject,
    pub files: ::std::vec::Vec<super::common::FileRecord>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub schema: ::std::option::Option<super::common::SchemaId>,
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
impl ResultManifest {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &["data", "files", "schema"];
}
impl<'de> ::serde::Deserialize<'de> for ResultManifest {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        ResultManifest::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for ResultManifest {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        ResultManifest::serialize(self, serializer)
    }
}
