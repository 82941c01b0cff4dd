// Generated from schemas/artifact-manifest.schema.json by codegen; do not edit. Regenerate with: cargo xtask codegen
//! Metewand dataset manifest: types generated from `schemas/artifact-manifest.schema.json`.
//!
//! The manifest a dataset materializer writes last, at dataset-manifest.json in its output directory: every file
//! of the dataset and the data its output schema validates.

///The manifest a dataset materializer writes last, at dataset-manifest.json in its output directory: every file of the dataset and the data its output schema validates.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct ArtifactManifest {
    ///Written only once every file is closed; always true.
    pub complete: CompleteTrue,
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
/// Written only once every file is closed; always true. The constant `true`: serializes as it and deserializes from nothing else.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CompleteTrue;
impl crate::strict::Constant for CompleteTrue {
    const VALUE: crate::strict::ConstValue = crate::strict::ConstValue::Bool(true);
}
impl ::serde::Serialize for CompleteTrue {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        crate::strict::serialize_constant::<Self, S>(serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for CompleteTrue {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        crate::strict::deserialize_constant(deserializer)
    }
}
impl ArtifactManifest {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "complete",
        "data",
        "files",
        "schema",
    ];
}
impl<'de> ::serde::Deserialize<'de> for ArtifactManifest {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        ArtifactManifest::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for ArtifactManifest {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        ArtifactManifest::serialize(self, serializer)
    }
}
