// Generated from schemas/slurm-submission.schema.json by codegen; do not edit. Regenerate with: cargo xtask codegen
//! Metewand Slurm submission: types generated from `schemas/slurm-submission.schema.json`.
//!
//! slurm/<n>/submission.json in a campaign folder: what one submission runs and the jobs it queued. Its tasks
//! read it to find their work.

///What the round's decide job decided, written by it: next_submission, the next round's submission; or, when no round was needed, how many pairs were compared and how many are separated, tied and still undecided at the cap; or, failure, why it failed, in one sentence.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Decision {
    pub decided_at: super::common::Timestamp,
    ///Why the decide job failed, in one sentence.
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub failure: ::std::option::Option<::std::string::String>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub next_submission: ::std::option::Option<crate::strict::SafeUint>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub pairs: ::std::option::Option<crate::strict::SafeUint>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub separated: ::std::option::Option<crate::strict::SafeUint>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub tied: ::std::option::Option<crate::strict::SafeUint>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub undecided: ::std::option::Option<crate::strict::SafeUint>,
}
///One external folder of a submission: its path, and its identity when the submission was made (the digest of its metewand-implementation.toml and its workers' identities, docs/decisions/identities.md).
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct External {
    ///The folder, by its absolute canonical path.
    pub folder: ExternalFolder,
    pub identity: crate::digest::Sha256Digest,
}
///The folder, by its absolute canonical path.
#[derive(::serde::Serialize, Clone, Debug, Eq, Hash, Ord, PartialEq, PartialOrd)]
#[serde(transparent)]
pub struct ExternalFolder(::std::string::String);
impl ::std::ops::Deref for ExternalFolder {
    type Target = ::std::string::String;
    fn deref(&self) -> &::std::string::String {
        &self.0
    }
}
impl ::std::convert::From<ExternalFolder> for ::std::string::String {
    fn from(value: ExternalFolder) -> Self {
        value.0
    }
}
impl ::std::str::FromStr for ExternalFolder {
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
impl ::std::convert::TryFrom<&str> for ExternalFolder {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for ExternalFolder {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl<'de> ::serde::Deserialize<'de> for ExternalFolder {
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
///One job of a submission.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Job {
    pub first: crate::strict::SafeUint,
    pub job_id: crate::strict::SafeUint,
    ///What it runs: datasets (an array materializing one dataset a task), attempts (an array running one pack of attempts a task), export (one job writing results.csv, results.jsonl and profiles.csv) or decide (with until_decided, in place of export: one job deciding, once the attempts ended, whether to submit the next round or write the exports).
    pub kind: JobKind,
    ///Its batch script, relative to the campaign folder.
    pub script: JobScript,
    pub tasks: crate::strict::SafeUint,
}
///What it runs: datasets (an array materializing one dataset a task), attempts (an array running one pack of attempts a task), export (one job writing results.csv, results.jsonl and profiles.csv) or decide (with until_decided, in place of export: one job deciding, once the attempts ended, whether to submit the next round or write the exports).
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
pub enum JobKind {
    #[serde(rename = "datasets")]
    Datasets,
    #[serde(rename = "attempts")]
    Attempts,
    #[serde(rename = "export")]
    Export,
    #[serde(rename = "decide")]
    Decide,
}
impl ::std::fmt::Display for JobKind {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        match *self {
            Self::Datasets => f.write_str("datasets"),
            Self::Attempts => f.write_str("attempts"),
            Self::Export => f.write_str("export"),
            Self::Decide => f.write_str("decide"),
        }
    }
}
impl ::std::str::FromStr for JobKind {
    type Err = self::error::ConversionError;
    fn from_str(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        match value {
            "datasets" => Ok(Self::Datasets),
            "attempts" => Ok(Self::Attempts),
            "export" => Ok(Self::Export),
            "decide" => Ok(Self::Decide),
            _ => Err("invalid value".into()),
        }
    }
}
impl ::std::convert::TryFrom<&str> for JobKind {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for JobKind {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
///Its batch script, relative to the campaign folder.
#[derive(::serde::Serialize, Clone, Debug, Eq, Hash, Ord, PartialEq, PartialOrd)]
#[serde(transparent)]
pub struct JobScript(::std::string::String);
impl ::std::ops::Deref for JobScript {
    type Target = ::std::string::String;
    fn deref(&self) -> &::std::string::String {
        &self.0
    }
}
impl ::std::convert::From<JobScript> for ::std::string::String {
    fn from(value: JobScript) -> Self {
        value.0
    }
}
impl ::std::str::FromStr for JobScript {
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
impl ::std::convert::TryFrom<&str> for JobScript {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for JobScript {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl<'de> ::serde::Deserialize<'de> for JobScript {
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
///How each task's implementation sessions serve its attempts, the warm-up cycles of a reused one, and the workers never reused; absent in submissions made before sessions could be reused, which ran fresh ones.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Sessions {
    ///With fresh sessions, whether each task starts the workers of the attempt it runs next while one runs, on a core of its allocation kept off its workers' CPUs (only where the allocation has two cores or more); absent (in submissions made before) is false.
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub ahead: ::std::option::Option<bool>,
    pub mode: super::attempt_record::SessionMode,
    ///The implementation workers whose sessions are not reused (they did not pass the conformance kit's reset-then-again when the submission was made).
    pub refused: ::std::vec::Vec<super::common::WorkerId>,
    pub warmup: crate::strict::SafeUint,
}
///slurm/<n>/submission.json in a campaign folder: what one submission runs and the jobs it queued. Its tasks read it to find their work.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct SlurmSubmission {
    ///The attempt ids to run, pack i being attempts[i*K .. (i+1)*K] for the pack size K.
    pub attempts: ::std::vec::Vec<super::common::AttemptId>,
    ///The metewand the tasks run, by absolute path.
    pub binary: SlurmSubmissionBinary,
    pub concurrency: crate::strict::SafeUint,
    ///The keys of the datasets to materialize, dataset task i materializing datasets[i].
    pub datasets: ::std::vec::Vec<crate::digest::Sha256Digest>,
    ///The external folders (campaign submit --with) the campaign's implementations come from, in the order they were given; every task joins them to the repository again and runs nothing if one's identity changed. Absent when there are none.
    #[serde(default, skip_serializing_if = "::std::vec::Vec::is_empty")]
    pub externals: ::std::vec::Vec<External>,
    pub format: super::common::Format,
    ///The jobs, in the order they were submitted.
    pub jobs: ::std::vec::Vec<Job>,
    pub number: crate::strict::SafeUint,
    pub pack_size: crate::strict::SafeUint,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub sessions: ::std::option::Option<Sessions>,
    ///The state folder (the dataset store), absolute.
    pub state_dir: SlurmSubmissionStateDir,
    pub submitted_at: super::common::Timestamp,
    ///Whether workers' processes are kept together by the freezing sweep rather than a PID namespace.
    pub sweep_processes: bool,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub until_decided: ::std::option::Option<UntilDecided>,
}
///The metewand the tasks run, by absolute path.
#[derive(::serde::Serialize, Clone, Debug, Eq, Hash, Ord, PartialEq, PartialOrd)]
#[serde(transparent)]
pub struct SlurmSubmissionBinary(::std::string::String);
impl ::std::ops::Deref for SlurmSubmissionBinary {
    type Target = ::std::string::String;
    fn deref(&self) -> &::std::string::String {
        &self.0
    }
}
impl ::std::convert::From<SlurmSubmissionBinary> for ::std::string::String {
    fn from(value: SlurmSubmissionBinary) -> Self {
        value.0
    }
}
impl ::std::str::FromStr for SlurmSubmissionBinary {
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
impl ::std::convert::TryFrom<&str> for SlurmSubmissionBinary {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for SlurmSubmissionBinary {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl<'de> ::serde::Deserialize<'de> for SlurmSubmissionBinary {
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
///The state folder (the dataset store), absolute.
#[derive(::serde::Serialize, Clone, Debug, Eq, Hash, Ord, PartialEq, PartialOrd)]
#[serde(transparent)]
pub struct SlurmSubmissionStateDir(::std::string::String);
impl ::std::ops::Deref for SlurmSubmissionStateDir {
    type Target = ::std::string::String;
    fn deref(&self) -> &::std::string::String {
        &self.0
    }
}
impl ::std::convert::From<SlurmSubmissionStateDir> for ::std::string::String {
    fn from(value: SlurmSubmissionStateDir) -> Self {
        value.0
    }
}
impl ::std::str::FromStr for SlurmSubmissionStateDir {
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
impl ::std::convert::TryFrom<&str> for SlurmSubmissionStateDir {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for SlurmSubmissionStateDir {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl<'de> ::serde::Deserialize<'de> for SlurmSubmissionStateDir {
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
///A round of campaign submit --until-decided: the cap on a cell's repetitions (max_repetitions; the tasks plan with that many, so that repetition k has the id it has in a plan of k), the test's level and resolution its decide job decides with, and the options the next round is submitted with (max_parallel as --max-parallel); absent in a submission without --until-decided.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct UntilDecided {
    ///--account.
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub account: ::std::option::Option<::std::string::String>,
    ///The test's significance level, in (0, 0.5], as a decimal number written as text (as --alpha took it).
    pub alpha: ::std::string::String,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub decision: ::std::option::Option<Decision>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub max_parallel: ::std::option::Option<crate::strict::SafeUint>,
    pub max_repetitions: crate::strict::SafeUint,
    ///--partition.
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub partition: ::std::option::Option<::std::string::String>,
    ///The relative difference under which a pair is tied, as a decimal number written as text; absent: no pair is tied.
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub resolution: ::std::option::Option<::std::string::String>,
    ///--sbatch-arg, in order.
    pub sbatch_args: ::std::vec::Vec<::std::string::String>,
    ///--time, as given; absent: worked out from the repository.
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub time: ::std::option::Option<::std::string::String>,
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
impl Decision {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "decided_at",
        "next_submission",
        "pairs",
        "separated",
        "tied",
        "undecided",
        "failure",
    ];
}
impl External {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &["folder", "identity"];
}
impl Job {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "job_id",
        "kind",
        "script",
        "first",
        "tasks",
    ];
}
impl Sessions {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "mode",
        "warmup",
        "ahead",
        "refused",
    ];
}
impl UntilDecided {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "max_repetitions",
        "alpha",
        "resolution",
        "time",
        "partition",
        "account",
        "max_parallel",
        "sbatch_args",
        "decision",
    ];
}
impl SlurmSubmission {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "format",
        "number",
        "submitted_at",
        "binary",
        "state_dir",
        "sweep_processes",
        "sessions",
        "externals",
        "pack_size",
        "concurrency",
        "datasets",
        "attempts",
        "jobs",
        "until_decided",
    ];
}
impl<'de> ::serde::Deserialize<'de> for Decision {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        Decision::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for Decision {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        Decision::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for External {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        External::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for External {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        External::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for Job {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        Job::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for Job {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        Job::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for Sessions {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        Sessions::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for Sessions {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        Sessions::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for SlurmSubmission {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        SlurmSubmission::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for SlurmSubmission {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        SlurmSubmission::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for UntilDecided {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        UntilDecided::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for UntilDecided {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        UntilDecided::serialize(self, serializer)
    }
}
impl ::std::fmt::Display for ExternalFolder {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl ::std::fmt::Display for JobScript {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl ::std::fmt::Display for SlurmSubmissionBinary {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl ::std::fmt::Display for SlurmSubmissionStateDir {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        f.write_str(&self.0)
    }
}
