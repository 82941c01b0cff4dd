// Generated from schemas/repository-definition.schema.json by codegen; do not edit. Regenerate with: cargo xtask codegen
//! Metewand repository definition: types generated from `schemas/repository-definition.schema.json`.
//!
//! metewand.toml, a benchmark repository's definition, as its TOML maps into the JSON domain: its format, schema
//! files, timeouts, budgets and limits, its workers, datasets, problems, implementations and campaigns. The
//! loader checks the same shape with positions, and then what a schema cannot say (names that exist, roles that
//! fit, source folders and their digests).

///[budgets]: the longest a whole materialization, implementation or evaluation session may take.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, Default, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Budgets {
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub evaluation: ::std::option::Option<crate::strict::PositiveNumber>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub implementation: ::std::option::Option<crate::strict::PositiveNumber>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub materialization: ::std::option::Option<crate::strict::PositiveNumber>,
}
///[campaigns.NAME]: a campaign's axes (problems, datasets and implementations by name, by default every one declared; dataset and implementation seeds, by default [0]; repetitions, by default 1) and how its implementation sessions serve its attempts (warmup only with sessions = "reuse", which the loader checks).
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, Default, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Campaign {
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub dataset_seeds: ::std::option::Option<Seeds>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub datasets: ::std::option::Option<
        crate::strict::NonEmptyUniqueVec<super::common::Name>,
    >,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub implementation_seeds: ::std::option::Option<Seeds>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub implementations: ::std::option::Option<
        crate::strict::NonEmptyUniqueVec<super::common::Name>,
    >,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub problems: ::std::option::Option<
        crate::strict::NonEmptyUniqueVec<super::common::Name>,
    >,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub repetitions: ::std::option::Option<
        crate::strict::BoundedUint<1, 9007199254740991>,
    >,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub sessions: ::std::option::Option<super::attempt_record::SessionMode>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub warmup: ::std::option::Option<crate::strict::BoundedUint<0, 1000>>,
}
///[datasets.NAME]: a dataset, its materializer and its parameters.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Dataset {
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub grid: ::std::option::Option<crate::strict::JsonObject>,
    ///The dataset_materializer worker that builds it.
    pub materializer: ::std::string::String,
    pub output_schema: SchemaRef,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub parameters: ::std::option::Option<crate::strict::JsonObject>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub parameters_schema: ::std::option::Option<SchemaRef>,
}
///A name a table declares a worker, dataset, problem, implementation or campaign under: a letter or digit, then letters, digits, _, - or .
#[derive(::serde::Serialize, Clone, Debug, Eq, Hash, Ord, PartialEq, PartialOrd)]
#[serde(transparent)]
pub struct DeclaredName(::std::string::String);
impl ::std::ops::Deref for DeclaredName {
    type Target = ::std::string::String;
    fn deref(&self) -> &::std::string::String {
        &self.0
    }
}
impl ::std::convert::From<DeclaredName> for ::std::string::String {
    fn from(value: DeclaredName) -> Self {
        value.0
    }
}
impl ::std::str::FromStr for DeclaredName {
    type Err = self::error::ConversionError;
    fn from_str(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        static PATTERN: ::std::sync::LazyLock<crate::strict::Pattern> = ::std::sync::LazyLock::new(||
        { crate::strict::Pattern::new("^[A-Za-z0-9][A-Za-z0-9_.-]*$").unwrap() });
        if PATTERN.refuses(value) {
            return Err("doesn't match pattern \"^[A-Za-z0-9][A-Za-z0-9_.-]*$\"".into());
        }
        Ok(Self(value.to_string()))
    }
}
impl ::std::convert::TryFrom<&str> for DeclaredName {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for DeclaredName {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl<'de> ::serde::Deserialize<'de> for DeclaredName {
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
///An environment variable's name: not empty, without =; the loader also refuses NUL.
#[derive(::serde::Serialize, Clone, Debug, Eq, Hash, Ord, PartialEq, PartialOrd)]
#[serde(transparent)]
pub struct EnvName(::std::string::String);
impl ::std::ops::Deref for EnvName {
    type Target = ::std::string::String;
    fn deref(&self) -> &::std::string::String {
        &self.0
    }
}
impl ::std::convert::From<EnvName> for ::std::string::String {
    fn from(value: EnvName) -> Self {
        value.0
    }
}
impl ::std::str::FromStr for EnvName {
    type Err = self::error::ConversionError;
    fn from_str(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        static PATTERN: ::std::sync::LazyLock<crate::strict::Pattern> = ::std::sync::LazyLock::new(||
        { crate::strict::Pattern::new("^[^=]+$").unwrap() });
        if PATTERN.refuses(value) {
            return Err("doesn't match pattern \"^[^=]+$\"".into());
        }
        Ok(Self(value.to_string()))
    }
}
impl ::std::convert::TryFrom<&str> for EnvName {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for EnvName {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl<'de> ::serde::Deserialize<'de> for EnvName {
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
///[implementations.NAME]: an implementation, its worker, its parameters and the capabilities it selects.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Implementation {
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub capabilities: ::std::option::Option<
        crate::strict::UniqueVec<super::common::Capability>,
    >,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub grid: ::std::option::Option<crate::strict::JsonObject>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub parameters: ::std::option::Option<crate::strict::JsonObject>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub parameters_schema: ::std::option::Option<SchemaRef>,
    ///The implementation worker that runs it.
    pub worker: ::std::string::String,
}
///[limits]: what a worker process may use, each at least 1.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, Default, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Limits {
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub cpu_seconds: ::std::option::Option<
        crate::strict::BoundedUint<1, 9007199254740991>,
    >,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub memory_bytes: ::std::option::Option<
        crate::strict::BoundedUint<1, 9007199254740991>,
    >,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub output_bytes: ::std::option::Option<
        crate::strict::BoundedUint<1, 9007199254740991>,
    >,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub processes: ::std::option::Option<
        crate::strict::BoundedUint<1, 9007199254740991>,
    >,
}
///[problems.NAME]: a problem, its evaluator, its parameters and the schemas of its results and metrics.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Problem {
    ///The problem_evaluator worker that evaluates it.
    pub evaluator: ::std::string::String,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub grid: ::std::option::Option<crate::strict::JsonObject>,
    pub metric_schema: SchemaRef,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub parameters: ::std::option::Option<crate::strict::JsonObject>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub parameters_schema: ::std::option::Option<SchemaRef>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub profile: ::std::option::Option<Profile>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub rejudge_tolerance: ::std::option::Option<crate::strict::PositiveNumber>,
    pub result_schema: SchemaRef,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub timed: ::std::option::Option<super::attempt_record::ProblemTimed>,
}
///An argument or environment value: no substitution but ${repo} ($${ is a literal ${); the loader also refuses NUL, which a pattern cannot name.
#[derive(::serde::Serialize, Clone, Debug, Eq, Hash, Ord, PartialEq, PartialOrd)]
#[serde(transparent)]
pub struct ProcessText(::std::string::String);
impl ::std::ops::Deref for ProcessText {
    type Target = ::std::string::String;
    fn deref(&self) -> &::std::string::String {
        &self.0
    }
}
impl ::std::convert::From<ProcessText> for ::std::string::String {
    fn from(value: ProcessText) -> Self {
        value.0
    }
}
impl ::std::str::FromStr for ProcessText {
    type Err = self::error::ConversionError;
    fn from_str(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        static PATTERN: ::std::sync::LazyLock<crate::strict::Pattern> = ::std::sync::LazyLock::new(||
        {
            crate::strict::Pattern::new(
                    "^(?:[^$]|\\$+(?:[^${]|\\{repo\\})|\\$*\\$\\$\\{)*\\$*$",
                )
                .unwrap()
        });
        if PATTERN.refuses(value) {
            return Err(
                "doesn't match pattern \"^(?:[^$]|\\$+(?:[^${]|\\{repo\\})|\\$*\\$\\$\\{)*\\$*$\""
                    .into(),
            );
        }
        Ok(Self(value.to_string()))
    }
}
impl ::std::convert::TryFrom<&str> for ProcessText {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for ProcessText {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl<'de> ::serde::Deserialize<'de> for ProcessText {
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
///A problem's streamed profile: the most checkpoints an execution may send (1 to 1000).
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Profile {
    pub checkpoints: crate::strict::BoundedUint<1, 1000>,
}
///[workers.NAME] python: the Python environment Metewand builds for the worker, whose python3 it runs.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct PythonEnvironment {
    ///A pinned requirements file, or a pyproject.toml whose [project] dependencies are read, relative to the repository.
    pub requirements: ::std::string::String,
}
///metewand.toml, a benchmark repository's definition, as its TOML maps into the JSON domain: its format, schema files, timeouts, budgets and limits, its workers, datasets, problems, implementations and campaigns. The loader checks the same shape with positions, and then what a schema cannot say (names that exist, roles that fit, source folders and their digests).
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct RepositoryDefinition {
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub budgets: ::std::option::Option<Budgets>,
    ///The campaigns, by name.
    #[serde(
        default,
        skip_serializing_if = ":: std :: collections :: BTreeMap::is_empty"
    )]
    pub campaigns: ::std::collections::BTreeMap<DeclaredName, Campaign>,
    ///The datasets, by name.
    #[serde(
        default,
        skip_serializing_if = ":: std :: collections :: BTreeMap::is_empty"
    )]
    pub datasets: ::std::collections::BTreeMap<DeclaredName, Dataset>,
    pub format: super::common::Format,
    ///The implementations, by name.
    #[serde(
        default,
        skip_serializing_if = ":: std :: collections :: BTreeMap::is_empty"
    )]
    pub implementations: ::std::collections::BTreeMap<DeclaredName, Implementation>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub limits: ::std::option::Option<Limits>,
    ///The problems, by name.
    #[serde(
        default,
        skip_serializing_if = ":: std :: collections :: BTreeMap::is_empty"
    )]
    pub problems: ::std::collections::BTreeMap<DeclaredName, Problem>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub schemas: ::std::option::Option<SchemaFiles>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub timeouts: ::std::option::Option<Timeouts>,
    ///The workers, by name.
    #[serde(
        default,
        skip_serializing_if = ":: std :: collections :: BTreeMap::is_empty"
    )]
    pub workers: ::std::collections::BTreeMap<DeclaredName, Worker>,
}
///[schemas]: the repository's schema files.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, Default, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct SchemaFiles {
    ///Globs relative to the repository, each matching at least one file.
    #[serde(default, skip_serializing_if = "::std::vec::Vec::is_empty")]
    pub files: ::std::vec::Vec<::std::string::String>,
}
///A schema: the id of one in the catalog, or an inline schema.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(untagged)]
pub enum SchemaRef {
    String(::std::string::String),
    JsonObject(crate::strict::JsonObject),
}
impl ::std::convert::From<crate::strict::JsonObject> for SchemaRef {
    fn from(value: crate::strict::JsonObject) -> Self {
        Self::JsonObject(value)
    }
}
///count consecutive seeds from from; the loader also refuses a range that passes the largest safe integer.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct SeedRange {
    pub count: crate::strict::BoundedUint<1, 9007199254740991>,
    pub from: crate::strict::SafeUint,
}
///A seed axis: the seeds listed, or a range of them.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(untagged)]
pub enum Seeds {
    List(crate::strict::NonEmptyUniqueVec<crate::strict::SafeUint>),
    Range(SeedRange),
}
impl ::std::convert::From<crate::strict::NonEmptyUniqueVec<crate::strict::SafeUint>>
for Seeds {
    fn from(value: crate::strict::NonEmptyUniqueVec<crate::strict::SafeUint>) -> Self {
        Self::List(value)
    }
}
impl ::std::convert::From<SeedRange> for Seeds {
    fn from(value: SeedRange) -> Self {
        Self::Range(value)
    }
}
///[timeouts]: the longest each phase may take, for the phases declared; the others keep their defaults.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, Default, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Timeouts {
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub evaluate: ::std::option::Option<crate::strict::PositiveNumber>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub execute: ::std::option::Option<crate::strict::PositiveNumber>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub hello: ::std::option::Option<crate::strict::PositiveNumber>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub materialize: ::std::option::Option<crate::strict::PositiveNumber>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub prepare: ::std::option::Option<crate::strict::PositiveNumber>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub reset: ::std::option::Option<crate::strict::PositiveNumber>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub shutdown: ::std::option::Option<crate::strict::PositiveNumber>,
}
///[workers.NAME]: a worker program, its role, and what it may use.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Worker {
    ///How the worker speaks the protocol: absent, its command does; "command", Metewand's own adapter does and runs the command once per request, its words' placeholders ({dataset}, {result}, {metrics}, {seed}, {parameters}, {tmp}) replaced.
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub adapter: ::std::option::Option<WorkerAdapter>,
    pub command: crate::strict::NonEmptyVec<ProcessText>,
    ///How the worker's output depends on its seed.
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub deterministic: ::std::option::Option<WorkerDeterministic>,
    ///Environment variables; ${repo} is the repository's path.
    #[serde(
        default,
        skip_serializing_if = ":: std :: collections :: BTreeMap::is_empty"
    )]
    pub env: ::std::collections::BTreeMap<EnvName, ProcessText>,
    ///What the worker's identity covers beside its declaration and its files: "environment", the Python distributions its interpreter imports (name, version and RECORD digest of each), or for a worker that declares python.requirements, that declaration's digest.
    #[serde(default, skip_serializing_if = "::std::vec::Vec::is_empty")]
    pub identity: ::std::vec::Vec<WorkerIdentityItem>,
    ///Folders outside the source copied beside it, relative to the repository.
    #[serde(default, skip_serializing_if = "::std::vec::Vec::is_empty")]
    pub include: ::std::vec::Vec<::std::string::String>,
    ///Whether the worker may reach the network.
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub network: ::std::option::Option<bool>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub python: ::std::option::Option<PythonEnvironment>,
    ///With adapter = "command": the file, relative to the folder the command writes (a materializer's dataset, an implementation's result), that holds the one JSON object of the manifest's data; without it, the data is what the command prints on stdout.
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub result_data: ::std::option::Option<WorkerResultData>,
    pub role: super::common::Role,
    ///The worker's source directory, relative to the repository (. for the repository).
    pub source: ::std::string::String,
    ///Groups of system calls the worker may make beyond the default filter.
    #[serde(default, skip_serializing_if = "::std::vec::Vec::is_empty")]
    pub syscalls: ::std::vec::Vec<super::attempt_record::SyscallGroup>,
}
///How the worker speaks the protocol: absent, its command does; "command", Metewand's own adapter does and runs the command once per request, its words' placeholders ({dataset}, {result}, {metrics}, {seed}, {parameters}, {tmp}) replaced.
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
pub enum WorkerAdapter {
    #[serde(rename = "command")]
    Command,
}
impl ::std::fmt::Display for WorkerAdapter {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        match *self {
            Self::Command => f.write_str("command"),
        }
    }
}
impl ::std::str::FromStr for WorkerAdapter {
    type Err = self::error::ConversionError;
    fn from_str(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        match value {
            "command" => Ok(Self::Command),
            _ => Err("invalid value".into()),
        }
    }
}
impl ::std::convert::TryFrom<&str> for WorkerAdapter {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for WorkerAdapter {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
///How the worker's output depends on its seed.
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
pub enum WorkerDeterministic {
    #[serde(rename = "seeded")]
    Seeded,
    #[serde(rename = "seed-independent")]
    SeedIndependent,
}
impl ::std::fmt::Display for WorkerDeterministic {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        match *self {
            Self::Seeded => f.write_str("seeded"),
            Self::SeedIndependent => f.write_str("seed-independent"),
        }
    }
}
impl ::std::str::FromStr for WorkerDeterministic {
    type Err = self::error::ConversionError;
    fn from_str(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        match value {
            "seeded" => Ok(Self::Seeded),
            "seed-independent" => Ok(Self::SeedIndependent),
            _ => Err("invalid value".into()),
        }
    }
}
impl ::std::convert::TryFrom<&str> for WorkerDeterministic {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for WorkerDeterministic {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
///`WorkerIdentityItem`
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
pub enum WorkerIdentityItem {
    #[serde(rename = "environment")]
    Environment,
}
impl ::std::fmt::Display for WorkerIdentityItem {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        match *self {
            Self::Environment => f.write_str("environment"),
        }
    }
}
impl ::std::str::FromStr for WorkerIdentityItem {
    type Err = self::error::ConversionError;
    fn from_str(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        match value {
            "environment" => Ok(Self::Environment),
            _ => Err("invalid value".into()),
        }
    }
}
impl ::std::convert::TryFrom<&str> for WorkerIdentityItem {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for WorkerIdentityItem {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
///With adapter = "command": the file, relative to the folder the command writes (a materializer's dataset, an implementation's result), that holds the one JSON object of the manifest's data; without it, the data is what the command prints on stdout.
#[derive(::serde::Serialize, Clone, Debug, Eq, Hash, Ord, PartialEq, PartialOrd)]
#[serde(transparent)]
pub struct WorkerResultData(::std::string::String);
impl ::std::ops::Deref for WorkerResultData {
    type Target = ::std::string::String;
    fn deref(&self) -> &::std::string::String {
        &self.0
    }
}
impl ::std::convert::From<WorkerResultData> for ::std::string::String {
    fn from(value: WorkerResultData) -> Self {
        value.0
    }
}
impl ::std::str::FromStr for WorkerResultData {
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
impl ::std::convert::TryFrom<&str> for WorkerResultData {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for WorkerResultData {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl<'de> ::serde::Deserialize<'de> for WorkerResultData {
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
impl Budgets {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "materialization",
        "implementation",
        "evaluation",
    ];
}
impl Campaign {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "problems",
        "datasets",
        "implementations",
        "dataset_seeds",
        "implementation_seeds",
        "repetitions",
        "sessions",
        "warmup",
    ];
}
impl Dataset {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "materializer",
        "parameters",
        "grid",
        "parameters_schema",
        "output_schema",
    ];
}
impl Implementation {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "worker",
        "parameters",
        "grid",
        "parameters_schema",
        "capabilities",
    ];
}
impl Limits {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "output_bytes",
        "memory_bytes",
        "processes",
        "cpu_seconds",
    ];
}
impl Problem {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "evaluator",
        "parameters",
        "grid",
        "parameters_schema",
        "result_schema",
        "metric_schema",
        "timed",
        "profile",
        "rejudge_tolerance",
    ];
}
impl Profile {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &["checkpoints"];
}
impl PythonEnvironment {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &["requirements"];
}
impl SchemaFiles {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &["files"];
}
impl SeedRange {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &["from", "count"];
}
impl Timeouts {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "hello",
        "materialize",
        "prepare",
        "execute",
        "reset",
        "evaluate",
        "shutdown",
    ];
}
impl Worker {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "role",
        "command",
        "source",
        "include",
        "python",
        "env",
        "network",
        "identity",
        "syscalls",
        "deterministic",
        "adapter",
        "result_data",
    ];
}
impl RepositoryDefinition {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "format",
        "schemas",
        "timeouts",
        "budgets",
        "limits",
        "workers",
        "datasets",
        "problems",
        "implementations",
        "campaigns",
    ];
}
impl<'de> ::serde::Deserialize<'de> for Budgets {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        Budgets::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for Budgets {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        Budgets::serialize(self, serializer)
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
impl<'de> ::serde::Deserialize<'de> for Limits {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        Limits::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for Limits {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        Limits::serialize(self, serializer)
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
impl<'de> ::serde::Deserialize<'de> for Profile {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        Profile::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for Profile {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        Profile::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for PythonEnvironment {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        PythonEnvironment::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for PythonEnvironment {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        PythonEnvironment::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for RepositoryDefinition {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        RepositoryDefinition::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for RepositoryDefinition {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        RepositoryDefinition::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for SchemaFiles {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        SchemaFiles::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for SchemaFiles {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        SchemaFiles::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for SeedRange {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        SeedRange::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for SeedRange {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        SeedRange::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for Timeouts {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        Timeouts::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for Timeouts {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        Timeouts::serialize(self, serializer)
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
impl ::std::fmt::Display for DeclaredName {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl ::std::fmt::Display for EnvName {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl ::std::fmt::Display for ProcessText {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl ::std::fmt::Display for WorkerResultData {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        f.write_str(&self.0)
    }
}
