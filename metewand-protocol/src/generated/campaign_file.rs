// Generated from schemas/campaign-file.schema.json by codegen; do not edit. Regenerate with: cargo xtask codegen
//! Metewand campaign folder index: types generated from `schemas/campaign-file.schema.json`.
//!
//! campaign.json in a campaign folder: the campaign's name and repository, the axes and attempts of its last
//! run's plan, and every run with the environment it ran in. Written atomically by each run; its tasks on Slurm
//! rebuild the plan from it.

///campaign.json in a campaign folder: the campaign's name and repository, the axes and attempts of its last run's plan, and every run with the environment it ran in. Written atomically by each run; its tasks on Slurm rebuild the plan from it.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct CampaignFile {
    ///Every attempt of the last run's plan.
    pub attempts: ::std::vec::Vec<PlanEntry>,
    pub definition: Definition,
    pub format: super::common::Format,
    pub name: super::common::Name,
    ///The repository's canonical path.
    pub repository: ::std::string::String,
    ///Every run in this folder, oldest first.
    pub runs: ::std::vec::Vec<Run>,
}
///A campaign's axes after the command line's flags.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Definition {
    pub dataset_seeds: SeedAxis,
    ///Dataset names.
    pub datasets: ::std::vec::Vec<super::common::Name>,
    pub implementation_seeds: SeedAxis,
    ///Implementation names.
    pub implementations: ::std::vec::Vec<super::common::Name>,
    pub name: super::common::Name,
    ///Problem names.
    pub problems: ::std::vec::Vec<super::common::Name>,
    pub repetitions: crate::strict::SafeUint,
}
///The machine and programs of one run; a value that could not be read is null.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Environment {
    ///The CPU model.
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub cpu_model: ::std::option::Option<::std::string::String>,
    ///The repository's git commit, when it is a git checkout.
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub git_commit: ::std::option::Option<::std::string::String>,
    ///Whether the checkout has uncommitted changes.
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub git_dirty: ::std::option::Option<bool>,
    ///The host name.
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub host: ::std::option::Option<::std::string::String>,
    ///The kernel release.
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub kernel: ::std::option::Option<::std::string::String>,
    pub logical_cpus: crate::strict::SafeUint,
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub memory_bytes: ::std::option::Option<crate::strict::SafeUint>,
    ///Metewand's version.
    pub metewand_version: ::std::string::String,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub noise: ::std::option::Option<Noise>,
    ///The OS (/proc/sys/kernel/ostype).
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub os: ::std::option::Option<::std::string::String>,
    ///Each worker's program, in the order of the workers' names.
    pub workers: ::std::vec::Vec<Program>,
}
///What skews times on the machine, read from the kernel when the run started (what `metewand doctor` shows); a value that could not be read is null. Absent in a folder written before runs recorded it.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Noise {
    ///Address space layout randomization (kernel.randomize_va_space: 0 off, 1 partial, 2 full), which moves code and data between runs.
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub aslr: ::std::option::Option<crate::strict::SafeUint>,
    ///The CPU frequency governors of the CPUs, each once, in name order (performance keeps the frequency up); empty where the kernel offers no frequency scaling.
    pub governors: ::std::vec::Vec<::std::string::String>,
    ///The CPUs isolated from the scheduler (isolcpus), in the kernel's list form; empty when none.
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub isolated_cpus: ::std::option::Option<::std::string::String>,
    ///The load averages over 1, 5 and 15 minutes, as the kernel writes them ("0.42 0.50 0.61").
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub load: ::std::option::Option<::std::string::String>,
    ///Whether simultaneous multithreading is active: two logical CPUs of one core share its units.
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub smt: ::std::option::Option<bool>,
    ///The swap space configured.
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub swap_total_bytes: ::std::option::Option<crate::strict::SafeUint>,
    ///The swap space in use: pages a worker touches may have to come back from disk.
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub swap_used_bytes: ::std::option::Option<crate::strict::SafeUint>,
    ///Whether the CPUs may boost above their base frequency (Intel's turbo, the cpufreq boost switch), which makes a time depend on temperature and on what else runs.
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub turbo: ::std::option::Option<bool>,
}
///The order the run took its attempts in: interleaved, each dataset's cells (problem, implementation and implementation seed) taken in turn so that one cell's repetitions are never back to back while another cell of the dataset has attempts left, the turn among cells rotating each round from an order drawn with the seed. Absent in a folder written before runs recorded it.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Order {
    ///How the attempts were ordered.
    pub rule: RuleInterleaved,
    pub seed: crate::strict::SafeUint,
}
///One attempt of the plan: its id and inputs.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct PlanEntry {
    pub dataset: super::common::Name,
    pub dataset_key: crate::digest::Sha256Digest,
    pub dataset_seed: crate::strict::SafeUint,
    pub id: super::common::AttemptId,
    pub implementation: super::common::Name,
    pub implementation_seed: crate::strict::SafeUint,
    pub problem: super::common::Name,
    pub repetition: crate::strict::SafeUint,
}
///A worker command's program: its first PATH match, the file it resolves to through links, that file's SHA-256, and its #! line when it is a script.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Program {
    ///The command's first word as declared.
    pub command: ::std::string::String,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub environment: ::std::option::Option<super::attempt_record::PythonEnvironment>,
    ///The first match on PATH (or the path itself when it has a /).
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub path_match: ::std::option::Option<::std::string::String>,
    ///The file it resolves to through symbolic links.
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub resolved: ::std::option::Option<::std::string::String>,
    ///Its #! line, when it is a script (a version manager's shim is one: every start pays for it).
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub script: ::std::option::Option<::std::string::String>,
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub sha256: ::std::option::Option<crate::digest::Sha256Digest>,
    ///The worker's name in the repository.
    pub worker: ::std::string::String,
}
///One run of the campaign in this folder.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Run {
    pub concurrency: crate::strict::SafeUint,
    pub environment: Environment,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub order: ::std::option::Option<Order>,
    pub started_at: super::common::Timestamp,
}
///A seed axis: either list (the seeds listed), or first and count (count consecutive seeds from first); a reader refuses any other combination.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, Default, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct SeedAxis {
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub count: ::std::option::Option<crate::strict::SafeUint>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub first: ::std::option::Option<crate::strict::SafeUint>,
    ///The seeds listed.
    #[serde(default, skip_serializing_if = "::std::vec::Vec::is_empty")]
    pub list: ::std::vec::Vec<crate::strict::SafeUint>,
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
/// How the attempts were ordered. The constant `"interleaved"`: serializes as it and deserializes from nothing else.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RuleInterleaved;
impl crate::strict::Constant for RuleInterleaved {
    const VALUE: crate::strict::ConstValue = crate::strict::ConstValue::Str(
        "interleaved",
    );
}
impl ::serde::Serialize for RuleInterleaved {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        crate::strict::serialize_constant::<Self, S>(serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for RuleInterleaved {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        crate::strict::deserialize_constant(deserializer)
    }
}
impl Definition {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "name",
        "problems",
        "datasets",
        "implementations",
        "dataset_seeds",
        "implementation_seeds",
        "repetitions",
    ];
}
impl Environment {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "metewand_version",
        "host",
        "os",
        "kernel",
        "cpu_model",
        "logical_cpus",
        "memory_bytes",
        "workers",
        "git_commit",
        "git_dirty",
        "noise",
    ];
}
impl Noise {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "governors",
        "turbo",
        "smt",
        "aslr",
        "load",
        "swap_total_bytes",
        "swap_used_bytes",
        "isolated_cpus",
    ];
}
impl Order {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &["rule", "seed"];
}
impl PlanEntry {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "id",
        "problem",
        "dataset",
        "dataset_seed",
        "dataset_key",
        "implementation",
        "implementation_seed",
        "repetition",
    ];
}
impl Program {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "worker",
        "command",
        "path_match",
        "resolved",
        "sha256",
        "script",
        "environment",
    ];
}
impl Run {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "started_at",
        "concurrency",
        "environment",
        "order",
    ];
}
impl SeedAxis {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &["list", "first", "count"];
}
impl CampaignFile {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "format",
        "name",
        "repository",
        "definition",
        "attempts",
        "runs",
    ];
}
impl<'de> ::serde::Deserialize<'de> for CampaignFile {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        CampaignFile::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for CampaignFile {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        CampaignFile::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for Definition {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        Definition::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for Definition {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        Definition::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for Environment {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        Environment::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for Environment {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        Environment::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for Noise {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        Noise::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for Noise {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        Noise::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for Order {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        Order::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for Order {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        Order::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for PlanEntry {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        PlanEntry::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for PlanEntry {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        PlanEntry::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for Program {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        Program::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for Program {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        Program::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for Run {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        Run::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for Run {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        Run::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for SeedAxis {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        SeedAxis::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for SeedAxis {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        SeedAxis::serialize(self, serializer)
    }
}
