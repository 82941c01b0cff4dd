//! The attempt record's parts, which the stages make as they go and `Journal::into_record` (`journal.rs`) puts
//! together at the end: the names every stage shares (each role's log, output folder and index), from what the
//! sessions and the validator reported (phases, files and how they changed, sessions, confinement, limits, CPUs,
//! resources), the record's checked text, RFC 3339 timestamps (and reading them back), and `attempt.json` written
//! canonically and atomically (temporary file created exclusively, fsync, rename, fsync of the folder).

use std::io::Write;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use metewand_protocol::common::{FileRecord, FileRecordPath, Message, Role, SdkInfo, Timestamp};
use metewand_protocol::generated::attempt_record as rec;
use metewand_protocol::generated::attempt_record::AttemptRecord;
use metewand_protocol::handshake::Handshake;
use metewand_protocol::strict::{SafeUint, UniqueVec};

use crate::cpus::{CpuPlacement, CpuSet};
use crate::files::{Dir, FsError};
use crate::repository::Worker;
use crate::session::{
    CapabilityConfinement, ConfinementReport, FilesystemConfinement, IpcConfinement, LimitMechanism, LimitReport,
    MountConfinement, NetworkConfinement, PhaseTiming, ProcessConfinement, PythonEnvironment, Resources,
    SignalConfinement, SyscallFilter, WorkerProgram,
};
use crate::validate::{ValidatedFile, ValidationError};

/// The name of the attempt record in an attempt folder.
pub const RECORD_FILE: &str = "attempt.json";

/// A wall-clock time as RFC 3339 UTC with nanoseconds, e.g. `2026-11-30T15:04:05.123456789Z`.
pub fn rfc3339(time: SystemTime) -> String {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let seconds = since.as_secs();
    let (days, rest) = (seconds / 86_400, seconds % 86_400);
    let (year, month, day) = civil_from_days(days as i64);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:09}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60,
        since.subsec_nanos()
    )
}

/// A compact UTC time for folder names, e.g. `20261130T150405Z`.
pub fn compact_utc(time: SystemTime) -> String {
    let text = rfc3339(time);
    format!("{}{}{}T{}{}{}Z", &text[0..4], &text[5..7], &text[8..10], &text[11..13], &text[14..16], &text[17..19])
}

/// The attempt record's timestamp type for a wall-clock time.
pub fn timestamp(time: SystemTime) -> Timestamp {
    Timestamp::try_from(rfc3339(time)).expect("an RFC 3339 UTC time matches the timestamp pattern")
}

/// The time an RFC 3339 UTC timestamp as [`rfc3339`] writes it names (`Z`, seconds, an optional fraction of up to
/// nine digits); `None` for any other text or a time before 1970.
pub fn parse_rfc3339(text: &str) -> Option<SystemTime> {
    let (date, time) = text.strip_suffix('Z')?.split_once('T')?;
    let number = |part: &str| -> Option<u64> { part.bytes().all(|b| b.is_ascii_digit()).then(|| part.parse().ok())? };
    let mut date = date.split('-').map(number);
    let (year, month, day) = (date.next()??, date.next()??, date.next()??);
    let (hms, fraction) = time.split_once('.').unwrap_or((time, ""));
    let mut hms = hms.split(':').map(number);
    let (hours, minutes, seconds) = (hms.next()??, hms.next()??, hms.next()??);
    if date.next().is_some() || hms.next().is_some() || fraction.len() > 9 || !(1..=12).contains(&month) {
        return None;
    }
    let nanos = if fraction.is_empty() { 0 } else { number(fraction)? * 10_u64.pow(9 - fraction.len() as u32) };
    let days = u64::try_from(days_from_civil(year as i64, month as i64, day as i64)).ok()?;
    let seconds = days * 86_400 + hours * 3600 + minutes * 60 + seconds;
    Some(UNIX_EPOCH + std::time::Duration::new(seconds, nanos as u32))
}

/// Days since 1970-01-01 of a civil date (Howard Hinnant's days-from-civil, the inverse of [`civil_from_days`]).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year - era * 400;
    let doy = (153 * (month + if month > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Year, month and day of a count of days since 1970-01-01 (Howard Hinnant's civil-from-days).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// The record's canonical bytes (RFC 8785), the exact contents of `attempt.json`.
pub fn canonical_bytes(record: &AttemptRecord) -> Vec<u8> {
    let value = serde_json::to_value(record).expect("a generated record always serializes");
    metewand_protocol::to_canonical_vec(&value)
}

/// The temporary name `attempt.json` is written under before it is renamed into place.
pub const RECORD_TEMPORARY: &str = ".attempt.json.tmp";

/// Writes `attempt.json` in `folder` atomically: a temporary file beside it created exclusively without following
/// links (`O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK`, so a prepared FIFO or link is refused, never waited on or
/// followed), fsync, a rename that never replaces an existing `attempt.json`, fsync of the folder. A reader sees no
/// file or the complete record, never a part of one; when any step fails the temporary file is removed.
/// Returns the bytes written.
pub fn write_record(folder: &Path, record: &AttemptRecord) -> Result<Vec<u8>, FsError> {
    let dir = Dir::open(folder)?;
    let mut file = dir.create_file(RECORD_TEMPORARY)?;
    let bytes = canonical_bytes(record);
    let written = (|| {
        let io = |source| FsError::Io { action: "write", path: dir.join(RECORD_TEMPORARY), source };
        file.write_all(&bytes).map_err(io)?;
        file.sync_all().map_err(io)?;
        drop(file);
        dir.rename_new(RECORD_TEMPORARY, RECORD_FILE)
    })();
    if let Err(error) = written {
        // Nothing half-written is left behind; the first error is the one reported.
        let _ = dir.remove_file(RECORD_TEMPORARY);
        return Err(error);
    }
    dir.sync()?;
    Ok(bytes)
}

// The record's parts, from what the sessions and the validator reported.

/// Each role's log, relative to the attempt folder, in the order of [`role_index`].
pub(super) const LOG_PATHS: [&str; 3] =
    ["logs/dataset_materializer.log", "logs/implementation.log", "logs/problem_evaluator.log"];

/// The folder of `work/` a session of `role` writes its output to (`None` for a materializer, which writes into its
/// staging folder in the store).
pub(super) fn output_folder(role: Role) -> Option<&'static str> {
    match role {
        Role::Implementation => Some("result"),
        Role::ProblemEvaluator => Some("metrics"),
        Role::DatasetMaterializer => None,
    }
}

pub(super) fn role_index(role: Role) -> usize {
    match role {
        Role::DatasetMaterializer => 0,
        Role::Implementation => 1,
        Role::ProblemEvaluator => 2,
    }
}

/// How an artifact's second validation differs from its first (files and manifest, by path, size and digest), or
/// `None` if it does not.
pub(super) fn change(
    before: (&[ValidatedFile], &ValidatedFile),
    after: Result<(&[ValidatedFile], &ValidatedFile), &ValidationError>,
) -> Option<String> {
    let key = |file: &ValidatedFile| (file.path().as_str().to_owned(), file.size(), file.sha256());
    match after {
        Err(error) => Some(error.to_string()),
        Ok((files, manifest)) => {
            let same = before.0.len() == files.len()
                && before.0.iter().zip(files).all(|(x, y)| key(x) == key(y))
                && key(before.1) == key(manifest);
            (!same).then(|| "its files differ from the validated inventory".to_owned())
        }
    }
}

pub(super) fn phase_records(phases: &[PhaseTiming]) -> Vec<rec::PhaseRecord> {
    phases
        .iter()
        .map(|timing| rec::PhaseRecord {
            duration_ns: nanos(timing.duration),
            ok: timing.ok,
            phase: timing.phase,
            role: timing.role,
            started_at: timestamp(timing.started_at),
        })
        .collect()
}

pub(super) fn file_records(files: &[ValidatedFile]) -> rec::FileRecords {
    rec::FileRecords(files.iter().map(file_record).collect())
}

/// A validated file as every document records one: its path, SHA-256 and size.
pub(super) fn file_record(file: &ValidatedFile) -> FileRecord {
    FileRecord {
        path: FileRecordPath::try_from(file.path().as_str())
            .unwrap_or_else(|_| unreachable!("a validated file's relative path is not empty")),
        sha256: file.sha256(),
        size: SafeUint::try_from(file.size()).unwrap_or(SafeUint::MAX),
    }
}

/// How a fresh session served its one attempt.
pub(super) fn fresh_session(warmup: u64) -> rec::Session {
    let warmup = SafeUint::try_from(warmup).unwrap_or(SafeUint::MAX);
    rec::Session { mode: rec::SessionMode::Fresh, index: SafeUint::ZERO, warmup, started_on: None }
}

/// How a fresh session started ahead of its attempt on `on` served it.
pub(super) fn ahead_session(on: &CpuSet) -> rec::Session {
    let list: Vec<SafeUint> = on.iter().map(SafeUint::from).collect();
    rec::Session { started_on: list.try_into().ok(), ..fresh_session(0) }
}

/// How a reused session served its attempt, the `index`th it served.
pub(super) fn reused_session(index: u64, warmup: u64) -> rec::Session {
    let count = |n| SafeUint::try_from(n).unwrap_or(SafeUint::MAX);
    rec::Session { mode: rec::SessionMode::Reuse, index: count(index), warmup: count(warmup), started_on: None }
}

/// What a worker's identity is the digest of, part by part, so that a reader can say which part changed.
pub(super) fn identity_record(worker: &Worker) -> rec::WorkerIdentity {
    let env: serde_json::Map<String, serde_json::Value> =
        worker.env().iter().map(|(name, value)| (name.clone(), value.clone().into())).collect();
    let include: serde_json::Map<String, serde_json::Value> =
        worker.includes().iter().map(|include| (include.path().to_owned(), include.tree().digest().into())).collect();
    rec::WorkerIdentity {
        command: worker.command().to_vec(),
        env,
        include: (!include.is_empty()).then_some(include),
        network: worker.network().then_some(true),
        source: worker.source_tree().tree_digest(),
        environment: worker.identity_environment(),
    }
}

/// The program a worker ran, as its session observed it after hello.
pub(super) fn program_record(program: &WorkerProgram) -> rec::WorkerProgram {
    rec::WorkerProgram {
        path: rec::WorkerProgramPath::try_from(program.path.as_str())
            .unwrap_or_else(|_| unreachable!("the program a process runs has an absolute path")),
        path_match: program.path_match.as_deref().map(|found| {
            rec::WorkerProgramPathMatch::try_from(found)
                .unwrap_or_else(|_| unreachable!("a program found on PATH has an absolute path"))
        }),
        sha256: program.sha256,
    }
}

/// The Python distributions a worker imports, as a record says them.
pub fn environment_record(environment: &PythonEnvironment) -> rec::PythonEnvironment {
    rec::PythonEnvironment {
        digest: environment.digest,
        site_packages: environment.site_packages.clone(),
        distributions: environment
            .distributions
            .iter()
            .map(|distribution| rec::PythonDistribution {
                name: distribution.name.clone(),
                version: distribution.version.clone(),
                record_sha256: distribution.record_sha256,
            })
            .collect(),
    }
}

pub(super) fn cpus_record(placement: &CpuPlacement) -> rec::Cpus {
    let list: Vec<SafeUint> = placement.cpus.iter().map(SafeUint::from).collect();
    rec::Cpus { binding: placement.binding, list: list.try_into().expect("a CPU set is nonempty and ascending") }
}

pub(super) fn confinement_record(report: &ConfinementReport) -> rec::Confinement {
    let (filesystem, landlock_abi) = match report.filesystem {
        FilesystemConfinement::Landlock { abi } => (rec::ConfinementFilesystem::Landlock, Some(SafeUint::from(abi))),
        FilesystemConfinement::None => (rec::ConfinementFilesystem::None, None),
    };
    rec::Confinement {
        filesystem,
        landlock_abi,
        network: match report.network {
            NetworkConfinement::Namespace => rec::ConfinementNetwork::Namespace,
            NetworkConfinement::Denied => rec::ConfinementNetwork::Denied,
            NetworkConfinement::Allowed => rec::ConfinementNetwork::Allowed,
            NetworkConfinement::Unrestricted => rec::ConfinementNetwork::Unrestricted,
        },
        processes: match report.processes {
            ProcessConfinement::PidNamespace => rec::ConfinementProcesses::PidNamespace,
            ProcessConfinement::Sweep => rec::ConfinementProcesses::Sweep,
        },
        user_namespace: Some(report.user_namespace),
        signals: match report.signals {
            SignalConfinement::Scoped => rec::ConfinementSignals::Scoped,
            SignalConfinement::Unscoped => rec::ConfinementSignals::Unscoped,
        },
        ipc: Some(match report.ipc {
            IpcConfinement::Namespace => rec::ConfinementIpc::Namespace,
            IpcConfinement::Host => rec::ConfinementIpc::Host,
        }),
        capabilities: Some(match report.capabilities {
            CapabilityConfinement::None => rec::ConfinementCapabilities::None,
            CapabilityConfinement::Kept => rec::ConfinementCapabilities::Kept,
        }),
        mounts: Some(match report.mounts {
            MountConfinement::Private => rec::ConfinementMounts::Private,
            MountConfinement::Host => rec::ConfinementMounts::Host,
        }),
        limits: Some(rec::ResourceLimits {
            memory_bytes: limit_record(report.limits.memory_bytes),
            processes: limit_record(report.limits.processes),
            output_bytes: limit_record(report.limits.output_bytes),
        }),
        syscall_filter: Some(match report.syscall_filter {
            SyscallFilter::Default => rec::ConfinementSyscallFilter::Default,
            SyscallFilter::None => rec::ConfinementSyscallFilter::None,
        }),
        syscalls: Some(
            UniqueVec::try_from(report.declared_syscalls.iter().collect::<Vec<_>>())
                .expect("a set holds each group once"),
        ),
        user: report.user.map(|user| rec::HostUser { uid: SafeUint::from(user.uid), gid: SafeUint::from(user.gid) }),
    }
}

pub(super) fn limit_record(limit: LimitReport) -> rec::ResourceLimit {
    rec::ResourceLimit {
        // A limit past the largest safe integer is recorded as that integer: the record cannot hold more.
        value: limit.value.map(|value| SafeUint::try_from(value).unwrap_or(SafeUint::MAX)),
        mechanism: match limit.mechanism {
            LimitMechanism::Rlimit => rec::ResourceLimitMechanism::Rlimit,
            LimitMechanism::PidMax => rec::ResourceLimitMechanism::PidMax,
            LimitMechanism::Cgroup => rec::ResourceLimitMechanism::Cgroup,
            LimitMechanism::Watched => rec::ResourceLimitMechanism::Watched,
            LimitMechanism::None => rec::ResourceLimitMechanism::None,
        },
    }
}

/// A duration in nanoseconds as the record holds it, saturating at the largest safe integer.
pub(super) fn nanos(duration: std::time::Duration) -> SafeUint {
    SafeUint::try_from(u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)).unwrap_or(SafeUint::MAX)
}

pub(super) fn resources_record(resources: &Resources) -> rec::Resources {
    rec::Resources {
        peak_rss_bytes: SafeUint::try_from(resources.peak_rss_bytes).unwrap_or(SafeUint::MAX),
        system_cpu_ns: nanos(resources.system_cpu),
        user_cpu_ns: nanos(resources.user_cpu),
    }
}

pub(super) fn sdk(handshake: &Handshake) -> Option<SdkInfo> {
    handshake.sdk.clone()
}

/// The log of the session of role index `index` (see [`LOG_PATHS`]) as the record's type of that log: each is a
/// nonempty path, which is all that type asks.
pub(super) fn log_path<T: TryFrom<&'static str>>(index: usize) -> T {
    T::try_from(LOG_PATHS[index]).unwrap_or_else(|_| unreachable!("a log path is not empty"))
}

/// A failure's message on one line, as the record holds it: its words, or `no message` when it has none.
pub(super) fn one_line(message: &str) -> Message {
    let line = message.split_whitespace().collect::<Vec<_>>().join(" ");
    let line = if line.is_empty() { "no message".to_owned() } else { line };
    Message::try_from(line).unwrap_or_else(|_| unreachable!("a line of words is not empty"))
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, reason = "tests make and read their own files in temporary folders")]
mod tests {
    use std::fs;
    use std::time::Duration;

    use super::*;

    #[test]
    fn timestamps() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00.000000000Z");
        let leap = UNIX_EPOCH + Duration::new(951_782_400 + 3661, 5);
        assert_eq!(rfc3339(leap), "2000-02-29T01:01:01.000000005Z");
        assert_eq!(compact_utc(leap), "20000229T010101Z");
        let _ = timestamp(SystemTime::now());
    }

    #[test]
    fn timestamps_read_back_as_the_times_they_name() {
        for time in [UNIX_EPOCH, UNIX_EPOCH + Duration::new(951_782_400 + 3661, 5), SystemTime::now()] {
            assert_eq!(parse_rfc3339(&rfc3339(time)), Some(time));
        }
        assert_eq!(parse_rfc3339("2000-03-01T00:00:00Z"), Some(UNIX_EPOCH + Duration::from_secs(951_868_800)));
        assert_eq!(
            parse_rfc3339("2026-12-01T23:59:59.25Z"),
            Some(UNIX_EPOCH + Duration::new(1_796_169_599, 250_000_000))
        );
        for bad in [
            "2026-12-01 10:00:00",
            "2026-12-01T10:00Z",
            "2026-13-01T00:00:00Z",
            "2026-12-01T00:00:00.1234567890Z",
            "1969-12-31T23:59:59Z",
            "2026-12-01T+1:00:00Z",
        ] {
            assert_eq!(parse_rfc3339(bad), None, "{bad}");
        }
    }

    fn a_record() -> AttemptRecord {
        let text = include_str!("../../../schemas/vectors/attempt-record.json");
        let vectors: serde_json::Value = serde_json::from_str(text).unwrap();
        serde_json::from_value(vectors["valid"][0]["instance"].clone()).unwrap()
    }

    #[test]
    fn a_prepared_fifo_or_link_at_the_temporary_name_is_refused_without_blocking_or_following() {
        let folder = tempfile::tempdir().unwrap();
        let temporary = folder.path().join(RECORD_TEMPORARY);
        rustix::fs::mkfifoat(rustix::fs::CWD, &temporary, rustix::fs::Mode::from_raw_mode(0o644)).unwrap();
        let error = write_record(folder.path(), &a_record()).unwrap_err();
        assert!(matches!(&error, FsError::Unexpected { found: "FIFO", .. }), "{error}");
        fs::remove_file(&temporary).unwrap();
        std::os::unix::fs::symlink(folder.path().join("elsewhere"), &temporary).unwrap();
        assert!(matches!(write_record(folder.path(), &a_record()), Err(FsError::Unexpected { .. })));
        assert!(!folder.path().join("elsewhere").exists());
        fs::remove_file(&temporary).unwrap();
        write_record(folder.path(), &a_record()).unwrap();
        assert_eq!(fs::read(folder.path().join(RECORD_FILE)).unwrap(), canonical_bytes(&a_record()));
    }

    #[test]
    fn a_failed_write_leaves_nothing_half_written() {
        let folder = tempfile::tempdir().unwrap();
        // An attempt.json that cannot be replaced makes the last step fail, after the bytes were written.
        fs::create_dir_all(folder.path().join(RECORD_FILE).join("occupied")).unwrap();
        assert!(write_record(folder.path(), &a_record()).is_err());
        assert!(fs::symlink_metadata(folder.path().join(RECORD_TEMPORARY)).is_err(), "the temporary is gone");
    }
}
