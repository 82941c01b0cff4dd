// Generated from schemas/bundle-manifest.schema.json by codegen; do not edit. Regenerate with: cargo xtask codegen
//! Metewand bundle manifest: types generated from `schemas/bundle-manifest.schema.json`.
//!
//! manifest.json, the first entry of a bundle (a tar archive compressed with zstd) and the root of an unpacked
//! one: every other file of the bundle with its size and SHA-256, in the UTF-8 byte order of their paths, and
//! what the files are. It is canonical JSON; its own SHA-256 is the bundle's digest, which bundle, verify and
//! report print. A reader refuses a bundle whose manifest is not canonical, whose entries are not exactly these
//! files in this order, or any of whose files differs from its record here.

///manifest.json, the first entry of a bundle (a tar archive compressed with zstd) and the root of an unpacked one: every other file of the bundle with its size and SHA-256, in the UTF-8 byte order of their paths, and what the files are. It is canonical JSON; its own SHA-256 is the bundle's digest, which bundle, verify and report print. A reader refuses a bundle whose manifest is not canonical, whose entries are not exactly these files in this order, or any of whose files differs from its record here.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct BundleManifest {
    ///The campaign folders, each under campaigns/, in the order they were given.
    pub campaigns: ::std::vec::Vec<Campaign>,
    ///The keys of the datasets the bundle holds, each as datasets/<key>/ with the store's record datasets/<key>.published; empty unless the bundle was made with its datasets.
    pub datasets: ::std::vec::Vec<crate::digest::Sha256Digest>,
    ///Every file of the bundle but the manifest, in the UTF-8 byte order of their paths, each path at most once.
    pub files: ::std::vec::Vec<super::common::FileRecord>,
    ///The manifest's format: 1, the only one this version reads.
    pub format: Format1,
    ///The version of Metewand that wrote the bundle.
    pub metewand_version: BundleManifestMetewandVersion,
    ///The repository's workers, whose sources are under repository/ beside its metewand.toml and its schema files.
    pub workers: ::std::vec::Vec<Worker>,
}
///The version of Metewand that wrote the bundle.
#[derive(::serde::Serialize, Clone, Debug, Eq, Hash, Ord, PartialEq, PartialOrd)]
#[serde(transparent)]
pub struct BundleManifestMetewandVersion(::std::string::String);
impl ::std::ops::Deref for BundleManifestMetewandVersion {
    type Target = ::std::string::String;
    fn deref(&self) -> &::std::string::String {
        &self.0
    }
}
impl ::std::convert::From<BundleManifestMetewandVersion> for ::std::string::String {
    fn from(value: BundleManifestMetewandVersion) -> Self {
        value.0
    }
}
impl ::std::str::FromStr for BundleManifestMetewandVersion {
    type Err = self::error::ConversionError;
    fn from_str(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        if value.chars().count() < 1usize {
            return Err("shorter than 1 characters".into());
        }
        Ok(Self(value.to_string()))
    }
}
impl ::std::convert::TryFrom<&str> for BundleManifestMetewandVersion {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for BundleManifestMetewandVersion {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl<'de> ::serde::Deserialize<'de> for BundleManifestMetewandVersion {
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
///One campaign folder of the bundle.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Campaign {
    ///The folder's name under campaigns/.
    pub folder: CampaignFolder,
    ///The campaign's name, as its campaign.json has it.
    pub name: ::std::string::String,
}
///The folder's name under campaigns/.
#[derive(::serde::Serialize, Clone, Debug, Eq, Hash, Ord, PartialEq, PartialOrd)]
#[serde(transparent)]
pub struct CampaignFolder(::std::string::String);
impl ::std::ops::Deref for CampaignFolder {
    type Target = ::std::string::String;
    fn deref(&self) -> &::std::string::String {
        &self.0
    }
}
impl ::std::convert::From<CampaignFolder> for ::std::string::String {
    fn from(value: CampaignFolder) -> Self {
        value.0
    }
}
impl ::std::str::FromStr for CampaignFolder {
    type Err = self::error::ConversionError;
    fn from_str(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        if value.chars().count() < 1usize {
            return Err("shorter than 1 characters".into());
        }
        Ok(Self(value.to_string()))
    }
}
impl ::std::convert::TryFrom<&str> for CampaignFolder {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for CampaignFolder {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl<'de> ::serde::Deserialize<'de> for CampaignFolder {
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
///One worker of the repository: where its source is in the bundle and the digest of that tree.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Worker {
    ///The worker's name in metewand.toml.
    pub name: WorkerName,
    ///The folder of its source in the bundle, under repository/.
    pub source: WorkerSource,
    ///The digest of its source tree, as its identity is computed from it (sha256:<hex>).
    pub tree: WorkerTree,
    pub worker_id: super::common::WorkerId,
}
///The worker's name in metewand.toml.
#[derive(::serde::Serialize, Clone, Debug, Eq, Hash, Ord, PartialEq, PartialOrd)]
#[serde(transparent)]
pub struct WorkerName(::std::string::String);
impl ::std::ops::Deref for WorkerName {
    type Target = ::std::string::String;
    fn deref(&self) -> &::std::string::String {
        &self.0
    }
}
impl ::std::convert::From<WorkerName> for ::std::string::String {
    fn from(value: WorkerName) -> Self {
        value.0
    }
}
impl ::std::str::FromStr for WorkerName {
    type Err = self::error::ConversionError;
    fn from_str(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        if value.chars().count() < 1usize {
            return Err("shorter than 1 characters".into());
        }
        Ok(Self(value.to_string()))
    }
}
impl ::std::convert::TryFrom<&str> for WorkerName {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for WorkerName {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl<'de> ::serde::Deserialize<'de> for WorkerName {
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
///The folder of its source in the bundle, under repository/.
#[derive(::serde::Serialize, Clone, Debug, Eq, Hash, Ord, PartialEq, PartialOrd)]
#[serde(transparent)]
pub struct WorkerSource(::std::string::String);
impl ::std::ops::Deref for WorkerSource {
    type Target = ::std::string::String;
    fn deref(&self) -> &::std::string::String {
        &self.0
    }
}
impl ::std::convert::From<WorkerSource> for ::std::string::String {
    fn from(value: WorkerSource) -> Self {
        value.0
    }
}
impl ::std::str::FromStr for WorkerSource {
    type Err = self::error::ConversionError;
    fn from_str(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        if value.chars().count() < 1usize {
            return Err("shorter than 1 characters".into());
        }
        Ok(Self(value.to_string()))
    }
}
impl ::std::convert::TryFrom<&str> for WorkerSource {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for WorkerSource {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl<'de> ::serde::Deserialize<'de> for WorkerSource {
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
///The digest of its source tree, as its identity is computed from it (sha256:<hex>).
#[derive(::serde::Serialize, Clone, Debug, Eq, Hash, Ord, PartialEq, PartialOrd)]
#[serde(transparent)]
pub struct WorkerTree(::std::string::String);
impl ::std::ops::Deref for WorkerTree {
    type Target = ::std::string::String;
    fn deref(&self) -> &::std::string::String {
        &self.0
    }
}
impl ::std::convert::From<WorkerTree> for ::std::string::String {
    fn from(value: WorkerTree) -> Self {
        value.0
    }
}
impl ::std::str::FromStr for WorkerTree {
    type Err = self::error::ConversionError;
    fn from_str(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        static PATTERN: ::std::sync::LazyLock<crate::strict::Pattern> = ::std::sync::LazyLock::new(||
        { crate::strict::Pattern::new("^sha256:[0-9a-f]{64}$").unwrap() });
        if PATTERN.refuses(value) {
            return Err("doesn't match pattern \"^sha256:[0-9a-f]{64}$\"".into());
        }
        Ok(Self(value.to_string()))
    }
}
impl ::std::convert::TryFrom<&str> for WorkerTree {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for WorkerTree {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl<'de> ::serde::Deserialize<'de> for WorkerTree {
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
/// The manifest's format: 1, the only one this version reads. The constant `1`: serializes as it and deserializes from nothing else.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Format1;
impl crate::strict::Constant for Format1 {
    const VALUE: crate::strict::ConstValue = crate::strict::ConstValue::Uint(1);
}
impl ::serde::Serialize for Format1 {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        crate::strict::serialize_constant::<Self, S>(serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for Format1 {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        crate::strict::deserialize_constant(deserializer)
    }
}
impl Campaign {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &["folder", "name"];
}
impl Worker {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "name",
        "source",
        "tree",
        "worker_id",
    ];
}
impl BundleManifest {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "format",
        "metewand_version",
        "campaigns",
        "workers",
        "datasets",
        "files",
    ];
}
impl<'de> ::serde::Deserialize<'de> for BundleManifest {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        BundleManifest::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for BundleManifest {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        BundleManifest::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for Campaign {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        Campaign::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for Campaign {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        Campaign::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for Worker {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        Worker::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for Worker {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        Worker::serialize(self, serializer)
    }
}
impl ::std::fmt::Display for BundleManifestMetewandVersion {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl ::std::fmt::Display for CampaignFolder {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl ::std::fmt::Display for WorkerName {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl ::std::fmt::Display for WorkerSource {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl ::std::fmt::Display for WorkerTree {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        f.write_str(&self.0)
    }
}
