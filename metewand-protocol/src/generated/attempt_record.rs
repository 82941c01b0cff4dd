// Generated from schemas/attempt-record.schema.json by codegen; do not edit. Regenerate with: cargo xtask codegen
//! Metewand attempt record: types generated from `schemas/attempt-record.schema.json`.
//!
//! What metewand run records about one attempt, written canonically and atomically as attempt.json. Every field
//! is present; a field is null where the session that would fill it did not run or did not get that far.
//! Durations are integer nanoseconds measured by the executor's monotonic clock; timestamps are RFC 3339 UTC.

///What ended the attempt: the role and phase it is attributed to (null for the executor's own failures), its kind and message, and the worker's code and details when it sent them.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct AttemptFailure {
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub code: ::std::option::Option<super::common::FailureCode>,
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub details: ::std::option::Option<crate::strict::JsonObject>,
    pub kind: FailureKind,
    pub message: super::common::Message,
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub phase: ::std::option::Option<super::common::Phase>,
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub role: ::std::option::Option<super::common::Role>,
}
///What metewand run records about one attempt, written canonically and atomically as attempt.json. Every field is present; a field is null where the session that would fill it did not run or did not get that far. Durations are integer nanoseconds measured by the executor's monotonic clock; timestamps are RFC 3339 UTC.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct AttemptRecord {
    ///The campaign the attempt ran in; null for an attempt run alone (metewand run).
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub campaign: ::std::option::Option<Campaign>,
    pub dataset: Dataset,
    pub evaluator: WorkerSession,
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub failure: ::std::option::Option<AttemptFailure>,
    pub finished_at: super::common::Timestamp,
    pub implementation: Implementation,
    pub logs: Logs,
    ///The version of Metewand that ran the attempt.
    pub metewand_version: AttemptRecordMetewandVersion,
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub metrics: ::std::option::Option<crate::strict::JsonObject>,
    pub outcome: Outcome,
    ///One entry per request sent, in the order they were sent.
    pub phases: ::std::vec::Vec<PhaseRecord>,
    pub problem: Problem,
    ///The benchmark repository's canonical absolute path.
    pub repository: AttemptRecordRepository,
    pub started_at: super::common::Timestamp,
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub verdict: ::std::option::Option<super::common::Verdict>,
}
///The version of Metewand that ran the attempt.
#[derive(::serde::Serialize, Clone, Debug, Eq, Hash, Ord, PartialEq, PartialOrd)]
#[serde(transparent)]
pub struct AttemptRecordMetewandVersion(::std::string::String);
impl ::std::ops::Deref for AttemptRecordMetewandVersion {
    type Target = ::std::string::String;
    fn deref(&self) -> &::std::string::String {
        &self.0
    }
}
impl ::std::convert::From<AttemptRecordMetewandVersion> for ::std::string::String {
    fn from(value: AttemptRecordMetewandVersion) -> Self {
        value.0
    }
}
impl ::std::str::FromStr for AttemptRecordMetewandVersion {
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
impl ::std::convert::TryFrom<&str> for AttemptRecordMetewandVersion {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for AttemptRecordMetewandVersion {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl<'de> ::serde::Deserialize<'de> for AttemptRecordMetewandVersion {
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
///The benchmark repository's canonical absolute path.
#[derive(::serde::Serialize, Clone, Debug, Eq, Hash, Ord, PartialEq, PartialOrd)]
#[serde(transparent)]
pub struct AttemptRecordRepository(::std::string::String);
impl ::std::ops::Deref for AttemptRecordRepository {
    type Target = ::std::string::String;
    fn deref(&self) -> &::std::string::String {
        &self.0
    }
}
impl ::std::convert::From<AttemptRecordRepository> for ::std::string::String {
    fn from(value: AttemptRecordRepository) -> Self {
        value.0
    }
}
impl ::std::str::FromStr for AttemptRecordRepository {
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
impl ::std::convert::TryFrom<&str> for AttemptRecordRepository {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for AttemptRecordRepository {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl<'de> ::serde::Deserialize<'de> for AttemptRecordRepository {
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
///Which campaign ([campaigns.NAME], or ad-hoc when built from flags alone), attempt and repetition (from 1) an attempt is, and how many attempts the campaign ran at once (concurrency, -j).
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Campaign {
    pub attempt_id: super::common::AttemptId,
    pub concurrency: crate::strict::SafeUint,
    pub name: super::common::Name,
    pub repetition: crate::strict::SafeUint,
}
///What the kernel stopped a worker from doing (ARCHITECTURE.md, Confinement): Landlock filesystem rules (with the kernel's ABI) or none; the network: a namespace of the worker's own with only loopback, TCP denied (Landlock TCP rules without a namespace), allowed (the worker declared network = true) or unrestricted; processes in their own PID namespace or found by the sweep, and user_namespace true when that PID namespace was made inside a user namespace of the worker's own mapping the orchestrator's uid and gid (how it is made without CAP_SYS_ADMIN); signals and abstract unix sockets scoped to the worker's domain or not; System V IPC and POSIX queues in an IPC namespace of the worker's own or the host's; capabilities none (every set emptied, no_new_privs) or kept; mounts private (a mount namespace hiding the state, the repository and the host's temporary and runtime folders, showing the worker's own inputs and outputs and a /proc of its PID namespace) or host.; limits: each resource limit of the session with its value (null for none) and how it was enforced (resource_limits).; syscall_filter: the system call filter (default: clone3, io_uring, keyrings beyond the session's own, bpf, perf_event_open, userfaultfd, kexec, module, swap and reboot calls refused, and memfds and System V objects where a memory limit needs it) or none, and syscalls the groups of calls the worker declared, which its filter allowed; user: the host uid and gid the worker ran as (run by root, an identity of its own, never 0 where root could give it one). user_namespace, ipc, capabilities, mounts, limits, syscall_filter, syscalls and user are absent from records written before they were recorded.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Confinement {
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub capabilities: ::std::option::Option<ConfinementCapabilities>,
    pub filesystem: ConfinementFilesystem,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub ipc: ::std::option::Option<ConfinementIpc>,
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub landlock_abi: ::std::option::Option<crate::strict::SafeUint>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub limits: ::std::option::Option<ResourceLimits>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub mounts: ::std::option::Option<ConfinementMounts>,
    pub network: ConfinementNetwork,
    pub processes: ConfinementProcesses,
    pub signals: ConfinementSignals,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub syscall_filter: ::std::option::Option<ConfinementSyscallFilter>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub syscalls: ::std::option::Option<crate::strict::UniqueVec<SyscallGroup>>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub user: ::std::option::Option<HostUser>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub user_namespace: ::std::option::Option<bool>,
}
///`ConfinementCapabilities`
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
pub enum ConfinementCapabilities {
    #[serde(rename = "none")]
    None,
    #[serde(rename = "kept")]
    Kept,
}
impl ::std::fmt::Display for ConfinementCapabilities {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        match *self {
            Self::None => f.write_str("none"),
            Self::Kept => f.write_str("kept"),
        }
    }
}
impl ::std::str::FromStr for ConfinementCapabilities {
    type Err = self::error::ConversionError;
    fn from_str(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        match value {
            "none" => Ok(Self::None),
            "kept" => Ok(Self::Kept),
            _ => Err("invalid value".into()),
        }
    }
}
impl ::std::convert::TryFrom<&str> for ConfinementCapabilities {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for ConfinementCapabilities {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
///`ConfinementFilesystem`
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
pub enum ConfinementFilesystem {
    #[serde(rename = "landlock")]
    Landlock,
    #[serde(rename = "none")]
    None,
}
impl ::std::fmt::Display for ConfinementFilesystem {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        match *self {
            Self::Landlock => f.write_str("landlock"),
            Self::None => f.write_str("none"),
        }
    }
}
impl ::std::str::FromStr for ConfinementFilesystem {
    type Err = self::error::ConversionError;
    fn from_str(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        match value {
            "landlock" => Ok(Self::Landlock),
            "none" => Ok(Self::None),
            _ => Err("invalid value".into()),
        }
    }
}
impl ::std::convert::TryFrom<&str> for ConfinementFilesystem {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for ConfinementFilesystem {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
///`ConfinementIpc`
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
pub enum ConfinementIpc {
    #[serde(rename = "namespace")]
    Namespace,
    #[serde(rename = "host")]
    Host,
}
impl ::std::fmt::Display for ConfinementIpc {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        match *self {
            Self::Namespace => f.write_str("namespace"),
            Self::Host => f.write_str("host"),
        }
    }
}
impl ::std::str::FromStr for ConfinementIpc {
    type Err = self::error::ConversionError;
    fn from_str(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        match value {
            "namespace" => Ok(Self::Namespace),
            "host" => Ok(Self::Host),
            _ => Err("invalid value".into()),
        }
    }
}
impl ::std::convert::TryFrom<&str> for ConfinementIpc {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for ConfinementIpc {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
///`ConfinementMounts`
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
pub enum ConfinementMounts {
    #[serde(rename = "private")]
    Private,
    #[serde(rename = "host")]
    Host,
}
impl ::std::fmt::Display for ConfinementMounts {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        match *self {
            Self::Private => f.write_str("private"),
            Self::Host => f.write_str("host"),
        }
    }
}
impl ::std::str::FromStr for ConfinementMounts {
    type Err = self::error::ConversionError;
    fn from_str(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        match value {
            "private" => Ok(Self::Private),
            "host" => Ok(Self::Host),
            _ => Err("invalid value".into()),
        }
    }
}
impl ::std::convert::TryFrom<&str> for ConfinementMounts {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for ConfinementMounts {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
///`ConfinementNetwork`
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
pub enum ConfinementNetwork {
    #[serde(rename = "namespace")]
    Namespace,
    #[serde(rename = "denied")]
    Denied,
    #[serde(rename = "allowed")]
    Allowed,
    #[serde(rename = "unrestricted")]
    Unrestricted,
}
impl ::std::fmt::Display for ConfinementNetwork {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        match *self {
            Self::Namespace => f.write_str("namespace"),
            Self::Denied => f.write_str("denied"),
            Self::Allowed => f.write_str("allowed"),
            Self::Unrestricted => f.write_str("unrestricted"),
        }
    }
}
impl ::std::str::FromStr for ConfinementNetwork {
    type Err = self::error::ConversionError;
    fn from_str(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        match value {
            "namespace" => Ok(Self::Namespace),
            "denied" => Ok(Self::Denied),
            "allowed" => Ok(Self::Allowed),
            "unrestricted" => Ok(Self::Unrestricted),
            _ => Err("invalid value".into()),
        }
    }
}
impl ::std::convert::TryFrom<&str> for ConfinementNetwork {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for ConfinementNetwork {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
///`ConfinementProcesses`
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
pub enum ConfinementProcesses {
    #[serde(rename = "pid-namespace")]
    PidNamespace,
    #[serde(rename = "sweep")]
    Sweep,
}
impl ::std::fmt::Display for ConfinementProcesses {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        match *self {
            Self::PidNamespace => f.write_str("pid-namespace"),
            Self::Sweep => f.write_str("sweep"),
        }
    }
}
impl ::std::str::FromStr for ConfinementProcesses {
    type Err = self::error::ConversionError;
    fn from_str(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        match value {
            "pid-namespace" => Ok(Self::PidNamespace),
            "sweep" => Ok(Self::Sweep),
            _ => Err("invalid value".into()),
        }
    }
}
impl ::std::convert::TryFrom<&str> for ConfinementProcesses {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for ConfinementProcesses {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
///`ConfinementSignals`
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
pub enum ConfinementSignals {
    #[serde(rename = "scoped")]
    Scoped,
    #[serde(rename = "unscoped")]
    Unscoped,
}
impl ::std::fmt::Display for ConfinementSignals {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        match *self {
            Self::Scoped => f.write_str("scoped"),
            Self::Unscoped => f.write_str("unscoped"),
        }
    }
}
impl ::std::str::FromStr for ConfinementSignals {
    type Err = self::error::ConversionError;
    fn from_str(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        match value {
            "scoped" => Ok(Self::Scoped),
            "unscoped" => Ok(Self::Unscoped),
            _ => Err("invalid value".into()),
        }
    }
}
impl ::std::convert::TryFrom<&str> for ConfinementSignals {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for ConfinementSignals {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
///`ConfinementSyscallFilter`
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
pub enum ConfinementSyscallFilter {
    #[serde(rename = "default")]
    Default,
    #[serde(rename = "none")]
    None,
}
impl ::std::fmt::Display for ConfinementSyscallFilter {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        match *self {
            Self::Default => f.write_str("default"),
            Self::None => f.write_str("none"),
        }
    }
}
impl ::std::str::FromStr for ConfinementSyscallFilter {
    type Err = self::error::ConversionError;
    fn from_str(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        match value {
            "default" => Ok(Self::Default),
            "none" => Ok(Self::None),
            _ => Err("invalid value".into()),
        }
    }
}
impl ::std::convert::TryFrom<&str> for ConfinementSyscallFilter {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for ConfinementSyscallFilter {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
///The CPUs the implementation's worker was started on (its affinity), ascending, and how it was held there: locked (chosen for its campaign slot, and a seccomp filter refuses sched_setaffinity, so no process of the worker can leave them), advisory (chosen, but the worker could change its affinity), inherited (none chosen: the executor's own CPUs, as with -j 1).
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Cpus {
    pub binding: CpusBinding,
    pub list: crate::strict::NonEmptyUniqueVec<crate::strict::SafeUint>,
}
///`CpusBinding`
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
pub enum CpusBinding {
    #[serde(rename = "locked")]
    Locked,
    #[serde(rename = "advisory")]
    Advisory,
    #[serde(rename = "inherited")]
    Inherited,
}
impl ::std::fmt::Display for CpusBinding {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        match *self {
            Self::Locked => f.write_str("locked"),
            Self::Advisory => f.write_str("advisory"),
            Self::Inherited => f.write_str("inherited"),
        }
    }
}
impl ::std::str::FromStr for CpusBinding {
    type Err = self::error::ConversionError;
    fn from_str(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        match value {
            "locked" => Ok(Self::Locked),
            "advisory" => Ok(Self::Advisory),
            "inherited" => Ok(Self::Inherited),
            _ => Err("invalid value".into()),
        }
    }
}
impl ::std::convert::TryFrom<&str> for CpusBinding {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for CpusBinding {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
///The dataset the attempt ran on.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Dataset {
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub files: ::std::option::Option<FileRecords>,
    pub key: crate::digest::Sha256Digest,
    pub materializer: WorkerSession,
    pub name: super::common::Name,
    pub parameters: crate::strict::JsonObject,
    ///Whether a verified dataset from the store was used instead of materializing one; null when the store was not consulted.
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub reused: ::std::option::Option<bool>,
    pub seed: crate::strict::SafeUint,
}
///What ended a failed or cancelled attempt.
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
pub enum FailureKind {
    #[serde(rename = "spawn_failed")]
    SpawnFailed,
    #[serde(rename = "worker_failure")]
    WorkerFailure,
    #[serde(rename = "protocol_violation")]
    ProtocolViolation,
    #[serde(rename = "phase_timeout")]
    PhaseTimeout,
    #[serde(rename = "scientific_timeout")]
    ScientificTimeout,
    #[serde(rename = "worker_exit")]
    WorkerExit,
    #[serde(rename = "resource_limit")]
    ResourceLimit,
    #[serde(rename = "invalid_output")]
    InvalidOutput,
    #[serde(rename = "dataset_modified")]
    DatasetModified,
    #[serde(rename = "cancelled")]
    Cancelled,
    #[serde(rename = "executor_error")]
    ExecutorError,
}
impl ::std::fmt::Display for FailureKind {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        match *self {
            Self::SpawnFailed => f.write_str("spawn_failed"),
            Self::WorkerFailure => f.write_str("worker_failure"),
            Self::ProtocolViolation => f.write_str("protocol_violation"),
            Self::PhaseTimeout => f.write_str("phase_timeout"),
            Self::ScientificTimeout => f.write_str("scientific_timeout"),
            Self::WorkerExit => f.write_str("worker_exit"),
            Self::ResourceLimit => f.write_str("resource_limit"),
            Self::InvalidOutput => f.write_str("invalid_output"),
            Self::DatasetModified => f.write_str("dataset_modified"),
            Self::Cancelled => f.write_str("cancelled"),
            Self::ExecutorError => f.write_str("executor_error"),
        }
    }
}
impl ::std::str::FromStr for FailureKind {
    type Err = self::error::ConversionError;
    fn from_str(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        match value {
            "spawn_failed" => Ok(Self::SpawnFailed),
            "worker_failure" => Ok(Self::WorkerFailure),
            "protocol_violation" => Ok(Self::ProtocolViolation),
            "phase_timeout" => Ok(Self::PhaseTimeout),
            "scientific_timeout" => Ok(Self::ScientificTimeout),
            "worker_exit" => Ok(Self::WorkerExit),
            "resource_limit" => Ok(Self::ResourceLimit),
            "invalid_output" => Ok(Self::InvalidOutput),
            "dataset_modified" => Ok(Self::DatasetModified),
            "cancelled" => Ok(Self::Cancelled),
            "executor_error" => Ok(Self::ExecutorError),
            _ => Err("invalid value".into()),
        }
    }
}
impl ::std::convert::TryFrom<&str> for FailureKind {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for FailureKind {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
///The validated files of an artifact, in UTF-8 byte order of their paths.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(transparent)]
pub struct FileRecords(pub ::std::vec::Vec<super::common::FileRecord>);
impl ::std::ops::Deref for FileRecords {
    type Target = ::std::vec::Vec<super::common::FileRecord>;
    fn deref(&self) -> &::std::vec::Vec<super::common::FileRecord> {
        &self.0
    }
}
impl ::std::convert::From<FileRecords> for ::std::vec::Vec<super::common::FileRecord> {
    fn from(value: FileRecords) -> Self {
        value.0
    }
}
impl ::std::convert::From<::std::vec::Vec<super::common::FileRecord>> for FileRecords {
    fn from(value: ::std::vec::Vec<super::common::FileRecord>) -> Self {
        Self(value)
    }
}
///A host user and group id (the identity a worker ran as).
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct HostUser {
    pub gid: crate::strict::SafeUint,
    pub uid: crate::strict::SafeUint,
}
///The implementation attempted: its identity, what it reported and was selected for, its parameters and seed, the worker-reported time (diagnostic only), its statistics and its validated result files. identity (what worker_id is the digest of) is absent from records written before it was recorded; program is recorded once the worker answered hello, when the executor could read it (a program over 512 MiB is not hashed), and environment with it when that program is Python; confinement and cpus are recorded once the worker started, resources when its session shut down cleanly (never for a reused session, which serves more than one attempt); session once the worker answered hello; profile once every checkpoint of a streamed execution was judged; each is absent otherwise. origin is present only for an implementation from outside the benchmark repository.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Implementation {
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub capabilities: ::std::option::Option<
        crate::strict::UniqueVec<super::common::Capability>,
    >,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub confinement: ::std::option::Option<Confinement>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub cpus: ::std::option::Option<Cpus>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub environment: ::std::option::Option<PythonEnvironment>,
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub files: ::std::option::Option<FileRecords>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub identity: ::std::option::Option<WorkerIdentity>,
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub implementation_time_ns: ::std::option::Option<crate::strict::SafeUint>,
    pub name: super::common::Name,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub origin: ::std::option::Option<Origin>,
    pub parameters: crate::strict::JsonObject,
    ///With streaming_profile selected: every checkpoint the implementation streamed, in order, each validated like a result and judged by the evaluator. Present once every checkpoint was judged, absent otherwise.
    #[serde(default, skip_serializing_if = "::std::vec::Vec::is_empty")]
    pub profile: ::std::vec::Vec<ProfilePoint>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub program: ::std::option::Option<WorkerProgram>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub resources: ::std::option::Option<Resources>,
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub sdk: ::std::option::Option<super::common::SdkInfo>,
    pub seed: crate::strict::SafeUint,
    pub selected: crate::strict::UniqueVec<super::common::Capability>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub session: ::std::option::Option<Session>,
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub statistics: ::std::option::Option<crate::strict::JsonObject>,
    pub worker_id: super::common::WorkerId,
}
///Each role's stderr log, relative to the attempt folder; null for a session that did not run.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Logs {
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub dataset_materializer: ::std::option::Option<super::common::LogPath>,
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub implementation: ::std::option::Option<super::common::LogPath>,
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub problem_evaluator: ::std::option::Option<super::common::LogPath>,
}
///Where an implementation from outside the benchmark repository came from: an external folder holding metewand-implementation.toml (metewand run --implementation-from, campaign run --with, judge), by its canonical absolute path. Absent for the repository's own implementations.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Origin {
    ///The external folder's canonical absolute path.
    pub folder: OriginFolder,
    ///external: the one origin other than the repository.
    pub kind: OriginKind,
}
///The external folder's canonical absolute path.
#[derive(::serde::Serialize, Clone, Debug, Eq, Hash, Ord, PartialEq, PartialOrd)]
#[serde(transparent)]
pub struct OriginFolder(::std::string::String);
impl ::std::ops::Deref for OriginFolder {
    type Target = ::std::string::String;
    fn deref(&self) -> &::std::string::String {
        &self.0
    }
}
impl ::std::convert::From<OriginFolder> for ::std::string::String {
    fn from(value: OriginFolder) -> Self {
        value.0
    }
}
impl ::std::str::FromStr for OriginFolder {
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
impl ::std::convert::TryFrom<&str> for OriginFolder {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for OriginFolder {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl<'de> ::serde::Deserialize<'de> for OriginFolder {
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
///external: the one origin other than the repository.
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
pub enum OriginKind {
    #[serde(rename = "external")]
    External,
}
impl ::std::fmt::Display for OriginKind {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        match *self {
            Self::External => f.write_str("external"),
        }
    }
}
impl ::std::str::FromStr for OriginKind {
    type Err = self::error::ConversionError;
    fn from_str(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        match value {
            "external" => Ok(Self::External),
            _ => Err("invalid value".into()),
        }
    }
}
impl ::std::convert::TryFrom<&str> for OriginKind {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for OriginKind {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
///How the attempt ended: the validated verdict when every session succeeded, otherwise failed or cancelled.
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
pub enum Outcome {
    #[serde(rename = "reached")]
    Reached,
    #[serde(rename = "not_reached")]
    NotReached,
    #[serde(rename = "not_required")]
    NotRequired,
    #[serde(rename = "invalid")]
    Invalid,
    #[serde(rename = "failed")]
    Failed,
    #[serde(rename = "cancelled")]
    Cancelled,
}
impl ::std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        match *self {
            Self::Reached => f.write_str("reached"),
            Self::NotReached => f.write_str("not_reached"),
            Self::NotRequired => f.write_str("not_required"),
            Self::Invalid => f.write_str("invalid"),
            Self::Failed => f.write_str("failed"),
            Self::Cancelled => f.write_str("cancelled"),
        }
    }
}
impl ::std::str::FromStr for Outcome {
    type Err = self::error::ConversionError;
    fn from_str(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        match value {
            "reached" => Ok(Self::Reached),
            "not_reached" => Ok(Self::NotReached),
            "not_required" => Ok(Self::NotRequired),
            "invalid" => Ok(Self::Invalid),
            "failed" => Ok(Self::Failed),
            "cancelled" => Ok(Self::Cancelled),
            _ => Err("invalid value".into()),
        }
    }
}
impl ::std::convert::TryFrom<&str> for Outcome {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for Outcome {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
///One request sent: by whom it was served, when it was written, and how long the executor waited for its answer.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct PhaseRecord {
    pub duration_ns: crate::strict::SafeUint,
    ///Whether the worker answered with its success shape.
    pub ok: bool,
    pub phase: super::common::Phase,
    pub role: super::common::Role,
    pub started_at: super::common::Timestamp,
}
///The problem posed; timed is what reports and comparisons rank the implementation by (its [problems.P] timed: execute, or prepare+execute), absent from records written before it was recorded (read as execute).
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Problem {
    pub contract_id: super::common::ProblemContractId,
    pub name: super::common::Name,
    pub parameters: crate::strict::JsonObject,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub timed: ::std::option::Option<ProblemTimed>,
}
///What a problem ranks implementations by: the executor's time of the implementation's execute request, or of prepare and execute together.
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
pub enum ProblemTimed {
    #[serde(rename = "execute")]
    Execute,
    #[serde(rename = "prepare+execute")]
    PrepareExecute,
}
impl ::std::fmt::Display for ProblemTimed {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        match *self {
            Self::Execute => f.write_str("execute"),
            Self::PrepareExecute => f.write_str("prepare+execute"),
        }
    }
}
impl ::std::str::FromStr for ProblemTimed {
    type Err = self::error::ConversionError;
    fn from_str(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        match value {
            "execute" => Ok(Self::Execute),
            "prepare+execute" => Ok(Self::PrepareExecute),
            _ => Err("invalid value".into()),
        }
    }
}
impl ::std::convert::TryFrom<&str> for ProblemTimed {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for ProblemTimed {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
///One checkpoint of a streamed execution: its number, the executor's time to it from the execute_stream request (less the intervals the worker was held stopped while earlier checkpoints were sealed), and the evaluator's metrics and verdict for it.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct ProfilePoint {
    pub checkpoint: crate::strict::SafeUint,
    pub metrics: crate::strict::JsonObject,
    pub time_ns: crate::strict::SafeUint,
    pub verdict: super::common::Verdict,
}
///An installed Python distribution: its Name and Version as its METADATA says, and the SHA-256 of its RECORD file when it has one.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct PythonDistribution {
    pub name: ::std::string::String,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub record_sha256: ::std::option::Option<crate::digest::Sha256Digest>,
    pub version: ::std::string::String,
}
///The Python distributions a worker imports, recorded when its program is a Python interpreter or a script run by one (docs/decisions/environments.md): the site-packages folders read (a virtual environment's, else the interpreter's prefix's), each dist-info folder's name and version from METADATA and the SHA-256 of its RECORD file, sorted by normalized name, and digest, the SHA-256 of the canonical JSON of [{name, record_sha256, version}, ...] in that order; absent for a program that is not Python and in records written before environments were recorded.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct PythonEnvironment {
    pub digest: crate::digest::Sha256Digest,
    pub distributions: ::std::vec::Vec<PythonDistribution>,
    pub site_packages: ::std::vec::Vec<::std::string::String>,
}
///One resource limit of a session: its value (null when there was none) and how it was enforced: rlimit (a resource limit of the worker's processes: RLIMIT_AS for memory_bytes, RLIMIT_NPROC counted in a user namespace of the worker's own for processes), pid_max (the pid_max of the worker's own PID namespace, Linux 6.14 and later), cgroup (memory.max or pids.max of a cgroup of the worker's own, in the cgroup v2 subtree delegated to the user running metewand), watched (measured by metewand while the worker ran, the worker killed once past it) or none.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct ResourceLimit {
    pub mechanism: ResourceLimitMechanism,
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub value: ::std::option::Option<crate::strict::SafeUint>,
}
///`ResourceLimitMechanism`
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
pub enum ResourceLimitMechanism {
    #[serde(rename = "rlimit")]
    Rlimit,
    #[serde(rename = "pid_max")]
    PidMax,
    #[serde(rename = "cgroup")]
    Cgroup,
    #[serde(rename = "watched")]
    Watched,
    #[serde(rename = "none")]
    None,
}
impl ::std::fmt::Display for ResourceLimitMechanism {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        match *self {
            Self::Rlimit => f.write_str("rlimit"),
            Self::PidMax => f.write_str("pid_max"),
            Self::Cgroup => f.write_str("cgroup"),
            Self::Watched => f.write_str("watched"),
            Self::None => f.write_str("none"),
        }
    }
}
impl ::std::str::FromStr for ResourceLimitMechanism {
    type Err = self::error::ConversionError;
    fn from_str(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        match value {
            "rlimit" => Ok(Self::Rlimit),
            "pid_max" => Ok(Self::PidMax),
            "cgroup" => Ok(Self::Cgroup),
            "watched" => Ok(Self::Watched),
            "none" => Ok(Self::None),
            _ => Err("invalid value".into()),
        }
    }
}
impl ::std::convert::TryFrom<&str> for ResourceLimitMechanism {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for ResourceLimitMechanism {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
///A session's resource limits ([limits] in metewand.toml): memory_bytes, the address space of each of the worker's processes; processes, the tasks its PID namespace may hold; output_bytes, what its output folder and TMPDIR may take together.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct ResourceLimits {
    pub memory_bytes: ResourceLimit,
    pub output_bytes: ResourceLimit,
    pub processes: ResourceLimit,
}
///A worker's resource use as wait4 reports it when it is reaped: user and system CPU time (its own and its waited-for descendants') and peak resident memory.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Resources {
    pub peak_rss_bytes: crate::strict::SafeUint,
    pub system_cpu_ns: crate::strict::SafeUint,
    pub user_cpu_ns: crate::strict::SafeUint,
}
///How a worker's session served the attempt: fresh (a worker process of its own, the default) or reuse (one worker process serving consecutive attempts of the same worker on a campaign slot or Slurm task; an implementation's is reset between them). index counts the attempts the session served before this one (0 for its first); warmup is the number of discarded prepare and execute cycles an implementation's session ran before its first attempt (0 for an evaluator's). started_on, for a fresh session started ahead of its attempt (while the slot's previous attempt ran), is the CPUs it was started on and said hello on, outside every timed slot's, before it was moved to the attempt's CPUs; absent for a session its attempt started. Absent from records written before sessions could be reused.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct Session {
    pub index: crate::strict::SafeUint,
    pub mode: SessionMode,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub started_on: ::std::option::Option<
        crate::strict::NonEmptyUniqueVec<crate::strict::SafeUint>,
    >,
    pub warmup: crate::strict::SafeUint,
}
///How implementation sessions serve attempts: fresh (each attempt starts its own worker process) or reuse (one worker process serves consecutive attempts of its worker, reset between them).
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
pub enum SessionMode {
    #[serde(rename = "fresh")]
    Fresh,
    #[serde(rename = "reuse")]
    Reuse,
}
impl ::std::fmt::Display for SessionMode {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        match *self {
            Self::Fresh => f.write_str("fresh"),
            Self::Reuse => f.write_str("reuse"),
        }
    }
}
impl ::std::str::FromStr for SessionMode {
    type Err = self::error::ConversionError;
    fn from_str(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        match value {
            "fresh" => Ok(Self::Fresh),
            "reuse" => Ok(Self::Reuse),
            _ => Err("invalid value".into()),
        }
    }
}
impl ::std::convert::TryFrom<&str> for SessionMode {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for SessionMode {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
///A group of system calls the default filter refuses unless a worker declares it.
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
pub enum SyscallGroup {
    #[serde(rename = "bpf")]
    Bpf,
    #[serde(rename = "io_uring")]
    IoUring,
    #[serde(rename = "keyctl")]
    Keyctl,
    #[serde(rename = "memfd_create")]
    MemfdCreate,
    #[serde(rename = "perf_event_open")]
    PerfEventOpen,
    #[serde(rename = "userfaultfd")]
    Userfaultfd,
}
impl ::std::fmt::Display for SyscallGroup {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        match *self {
            Self::Bpf => f.write_str("bpf"),
            Self::IoUring => f.write_str("io_uring"),
            Self::Keyctl => f.write_str("keyctl"),
            Self::MemfdCreate => f.write_str("memfd_create"),
            Self::PerfEventOpen => f.write_str("perf_event_open"),
            Self::Userfaultfd => f.write_str("userfaultfd"),
        }
    }
}
impl ::std::str::FromStr for SyscallGroup {
    type Err = self::error::ConversionError;
    fn from_str(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        match value {
            "bpf" => Ok(Self::Bpf),
            "io_uring" => Ok(Self::IoUring),
            "keyctl" => Ok(Self::Keyctl),
            "memfd_create" => Ok(Self::MemfdCreate),
            "perf_event_open" => Ok(Self::PerfEventOpen),
            "userfaultfd" => Ok(Self::Userfaultfd),
            _ => Err("invalid value".into()),
        }
    }
}
impl ::std::convert::TryFrom<&str> for SyscallGroup {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for SyscallGroup {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
///A tree digest: SHA-256 over the canonical JSON of the folder's files (docs/decisions/identities.md).
#[derive(::serde::Serialize, Clone, Debug, Eq, Hash, Ord, PartialEq, PartialOrd)]
#[serde(transparent)]
pub struct TreeDigest(::std::string::String);
impl ::std::ops::Deref for TreeDigest {
    type Target = ::std::string::String;
    fn deref(&self) -> &::std::string::String {
        &self.0
    }
}
impl ::std::convert::From<TreeDigest> for ::std::string::String {
    fn from(value: TreeDigest) -> Self {
        value.0
    }
}
impl ::std::str::FromStr for TreeDigest {
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
impl ::std::convert::TryFrom<&str> for TreeDigest {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for TreeDigest {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl<'de> ::serde::Deserialize<'de> for TreeDigest {
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
///What worker_id is the digest of (docs/decisions/identities.md): command and env as declared (before ${repo} expansion; env maps names to strings), source the source directory's tree digest, include each include folder as declared to its tree digest, network when the worker declared it, and environment, the digest of the Python environment its interpreter imports (or of its python.requirements declaration, when it has one), when it declared identity = ["environment"]. Kept so that a reader can say which part of a worker changed between two records.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct WorkerIdentity {
    pub command: ::std::vec::Vec<::std::string::String>,
    pub env: crate::strict::JsonObject,
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
    pub include: ::std::option::Option<crate::strict::JsonObject>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub network: ::std::option::Option<bool>,
    pub source: TreeDigest,
}
///The program the worker's process was running when it answered hello, as the executor found it: the path the kernel names for /proc/<pid>/exe, that file's SHA-256, and path_match, the PATH match of the command's first word (or the absolute path it names), when that is another path (a link such as a virtual environment's python3, a script, a shim); path_match is absent when the command names its program by a relative path, inside the worker's source, which worker_id already covers.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct WorkerProgram {
    pub path: WorkerProgramPath,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub path_match: ::std::option::Option<WorkerProgramPathMatch>,
    pub sha256: crate::digest::Sha256Digest,
}
///`WorkerProgramPath`
#[derive(::serde::Serialize, Clone, Debug, Eq, Hash, Ord, PartialEq, PartialOrd)]
#[serde(transparent)]
pub struct WorkerProgramPath(::std::string::String);
impl ::std::ops::Deref for WorkerProgramPath {
    type Target = ::std::string::String;
    fn deref(&self) -> &::std::string::String {
        &self.0
    }
}
impl ::std::convert::From<WorkerProgramPath> for ::std::string::String {
    fn from(value: WorkerProgramPath) -> Self {
        value.0
    }
}
impl ::std::str::FromStr for WorkerProgramPath {
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
impl ::std::convert::TryFrom<&str> for WorkerProgramPath {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for WorkerProgramPath {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl<'de> ::serde::Deserialize<'de> for WorkerProgramPath {
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
///`WorkerProgramPathMatch`
#[derive(::serde::Serialize, Clone, Debug, Eq, Hash, Ord, PartialEq, PartialOrd)]
#[serde(transparent)]
pub struct WorkerProgramPathMatch(::std::string::String);
impl ::std::ops::Deref for WorkerProgramPathMatch {
    type Target = ::std::string::String;
    fn deref(&self) -> &::std::string::String {
        &self.0
    }
}
impl ::std::convert::From<WorkerProgramPathMatch> for ::std::string::String {
    fn from(value: WorkerProgramPathMatch) -> Self {
        value.0
    }
}
impl ::std::str::FromStr for WorkerProgramPathMatch {
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
impl ::std::convert::TryFrom<&str> for WorkerProgramPathMatch {
    type Error = self::error::ConversionError;
    fn try_from(
        value: &str,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl ::std::convert::TryFrom<::std::string::String> for WorkerProgramPathMatch {
    type Error = self::error::ConversionError;
    fn try_from(
        value: ::std::string::String,
    ) -> ::std::result::Result<Self, self::error::ConversionError> {
        value.parse()
    }
}
impl<'de> ::serde::Deserialize<'de> for WorkerProgramPathMatch {
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
///A worker session: the resolved identity, and what the worker reported in hello (capabilities is null when the handshake did not complete; sdk is null for a direct protocol worker or when the handshake did not complete). identity (what worker_id is the digest of) is absent from records written before it was recorded; program is recorded once the worker answered hello, when the executor could read it (a program over 512 MiB is not hashed), and environment with it when that program is Python; confinement is recorded once the worker started, resources when its session shut down cleanly (never for a reused session), session (for an evaluator) once it answered hello; each is absent otherwise.
#[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[serde(remote = "Self")]
pub struct WorkerSession {
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub capabilities: ::std::option::Option<
        crate::strict::UniqueVec<super::common::Capability>,
    >,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub confinement: ::std::option::Option<Confinement>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub environment: ::std::option::Option<PythonEnvironment>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub identity: ::std::option::Option<WorkerIdentity>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub program: ::std::option::Option<WorkerProgram>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub resources: ::std::option::Option<Resources>,
    #[serde(deserialize_with = "::std::option::Option::deserialize")]
    pub sdk: ::std::option::Option<super::common::SdkInfo>,
    #[serde(
        default,
        skip_serializing_if = "::std::option::Option::is_none",
        deserialize_with = "crate::strict::deserialize_present"
    )]
    pub session: ::std::option::Option<Session>,
    pub worker_id: super::common::WorkerId,
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
impl AttemptFailure {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "role",
        "phase",
        "kind",
        "message",
        "code",
        "details",
    ];
}
impl Campaign {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "name",
        "attempt_id",
        "repetition",
        "concurrency",
    ];
}
impl Confinement {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "filesystem",
        "landlock_abi",
        "network",
        "processes",
        "user_namespace",
        "signals",
        "ipc",
        "capabilities",
        "mounts",
        "limits",
        "syscall_filter",
        "syscalls",
        "user",
    ];
}
impl Cpus {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &["list", "binding"];
}
impl Dataset {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "name",
        "key",
        "reused",
        "materializer",
        "parameters",
        "seed",
        "files",
    ];
}
impl HostUser {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &["uid", "gid"];
}
impl Implementation {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "name",
        "worker_id",
        "sdk",
        "capabilities",
        "selected",
        "parameters",
        "seed",
        "implementation_time_ns",
        "statistics",
        "files",
        "confinement",
        "resources",
        "cpus",
        "identity",
        "program",
        "environment",
        "session",
        "profile",
        "origin",
    ];
}
impl Logs {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "dataset_materializer",
        "implementation",
        "problem_evaluator",
    ];
}
impl Origin {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &["kind", "folder"];
}
impl PhaseRecord {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "role",
        "phase",
        "started_at",
        "duration_ns",
        "ok",
    ];
}
impl Problem {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "name",
        "contract_id",
        "parameters",
        "timed",
    ];
}
impl ProfilePoint {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "checkpoint",
        "time_ns",
        "metrics",
        "verdict",
    ];
}
impl PythonDistribution {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "name",
        "version",
        "record_sha256",
    ];
}
impl PythonEnvironment {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "digest",
        "site_packages",
        "distributions",
    ];
}
impl ResourceLimit {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &["value", "mechanism"];
}
impl ResourceLimits {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "memory_bytes",
        "processes",
        "output_bytes",
    ];
}
impl Resources {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "user_cpu_ns",
        "system_cpu_ns",
        "peak_rss_bytes",
    ];
}
impl Session {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "mode",
        "index",
        "warmup",
        "started_on",
    ];
}
impl WorkerIdentity {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "command",
        "env",
        "source",
        "include",
        "network",
        "environment",
    ];
}
impl WorkerProgram {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &["path", "sha256", "path_match"];
}
impl WorkerSession {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "worker_id",
        "sdk",
        "capabilities",
        "confinement",
        "resources",
        "identity",
        "program",
        "environment",
        "session",
    ];
}
impl AttemptRecord {
    /// The names of its properties, in the order the schema writes them.
    pub const PROPERTIES: &'static [&'static str] = &[
        "metewand_version",
        "started_at",
        "finished_at",
        "repository",
        "outcome",
        "verdict",
        "failure",
        "problem",
        "dataset",
        "implementation",
        "evaluator",
        "metrics",
        "phases",
        "logs",
        "campaign",
    ];
}
impl<'de> ::serde::Deserialize<'de> for AttemptFailure {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        AttemptFailure::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for AttemptFailure {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        AttemptFailure::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for AttemptRecord {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        AttemptRecord::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for AttemptRecord {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        AttemptRecord::serialize(self, serializer)
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
impl<'de> ::serde::Deserialize<'de> for Confinement {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        Confinement::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for Confinement {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        Confinement::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for Cpus {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        Cpus::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for Cpus {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        Cpus::serialize(self, serializer)
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
impl<'de> ::serde::Deserialize<'de> for HostUser {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        HostUser::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for HostUser {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        HostUser::serialize(self, serializer)
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
impl<'de> ::serde::Deserialize<'de> for Logs {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        Logs::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for Logs {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        Logs::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for Origin {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        Origin::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for Origin {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        Origin::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for PhaseRecord {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        PhaseRecord::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for PhaseRecord {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        PhaseRecord::serialize(self, serializer)
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
impl<'de> ::serde::Deserialize<'de> for ProfilePoint {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        ProfilePoint::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for ProfilePoint {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        ProfilePoint::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for PythonDistribution {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        PythonDistribution::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for PythonDistribution {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        PythonDistribution::serialize(self, serializer)
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
impl<'de> ::serde::Deserialize<'de> for ResourceLimit {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        ResourceLimit::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for ResourceLimit {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        ResourceLimit::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for ResourceLimits {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        ResourceLimits::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for ResourceLimits {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        ResourceLimits::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for Resources {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        Resources::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for Resources {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        Resources::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for Session {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        Session::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for Session {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        Session::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for WorkerIdentity {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        WorkerIdentity::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for WorkerIdentity {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        WorkerIdentity::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for WorkerProgram {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        WorkerProgram::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for WorkerProgram {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        WorkerProgram::serialize(self, serializer)
    }
}
impl<'de> ::serde::Deserialize<'de> for WorkerSession {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        WorkerSession::deserialize(crate::strict::ObjectOnly(deserializer))
    }
}
impl ::serde::Serialize for WorkerSession {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        WorkerSession::serialize(self, serializer)
    }
}
impl ::std::fmt::Display for AttemptRecordMetewandVersion {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl ::std::fmt::Display for AttemptRecordRepository {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl ::std::fmt::Display for OriginFolder {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl ::std::fmt::Display for TreeDigest {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl ::std::fmt::Display for WorkerProgramPath {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl ::std::fmt::Display for WorkerProgramPathMatch {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        f.write_str(&self.0)
    }
}
