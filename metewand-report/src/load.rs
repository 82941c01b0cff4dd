//! Reading campaign folders into [`Records`]: every planned attempt of each folder (in plan order) with what its
//! record says, through `metewand-campaign`'s own reading (`campaign.json`, then each record by
//! [`Status::scan`](metewand_campaign::Status::scan): its index entry when that matches the record's bytes, or the
//! record itself, checked against the schema and the id it is filed under), or from the cache a trusting reading
//! left, while it is bound to the same folder (`crate::reading`).
//!
//! Names are interned in order of first appearance in the plans, so tables keep the axes' order as the campaign
//! wrote them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::SystemTime;

use metewand_campaign::folder::{Found, Run, read_attempt};
use metewand_campaign::index::{Check, IndexEntry};
use metewand_protocol::common::{Phase, Role, Verdict};
use metewand_protocol::generated::attempt_record::{Outcome, ProblemTimed, SessionMode};
use serde::Serialize;

use crate::error::ReportError;
use crate::measure::Measure;
use crate::reading::FolderReading;

/// One campaign folder.
#[derive(Clone, Debug)]
pub struct Folder {
    /// The folder, as given.
    pub path: PathBuf,
    /// The campaign's name.
    pub name: String,
    /// The repository, as `campaign.json` records it.
    pub repository: String,
    /// Attempts in its plan.
    pub planned: usize,
    /// Attempts with no folder at all.
    pub never_started: usize,
    /// Attempt folders without a record (interrupted, or running now).
    pub unfinished: usize,
    /// Each run in the folder, oldest first, with its environment.
    pub runs: Vec<Run>,
}

/// Why an attempt failed, and where to read about it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FailureInfo {
    /// The failing role, if any.
    pub role: Option<String>,
    /// The phase, if any.
    pub phase: Option<String>,
    /// The kind.
    pub kind: String,
    /// The record's message.
    pub message: String,
    /// The failing session's log, relative to the campaign folder, when there is one.
    pub log: Option<String>,
}

/// What an attempt's record says, as far as a report needs it.
#[derive(Clone, Debug)]
pub struct Recorded {
    /// The outcome.
    pub outcome: Outcome,
    /// The verdict.
    pub verdict: Option<Verdict>,
    /// The failure, for `failed` and `cancelled`.
    pub failure: Option<Box<FailureInfo>>,
    /// What the problem ranks by (its record's `problem.timed`; `execute` for records written before it was).
    pub timed: ProblemTimed,
    /// The measure it ranks by, in seconds (the executor's time of the implementation's `execute` request, or
    /// of `prepare` and `execute` together), when the attempt has a verdict (its phases ran to the end and were
    /// judged).
    pub timed_seconds: Option<f64>,
    /// The implementation's start-up (its `hello`), `prepare` and `execute`, in seconds, each when the attempt
    /// has a verdict.
    pub phase_seconds: [Option<f64>; 3],
    /// The CPU time (user and system) of the implementation's whole session, in seconds, when it ended cleanly.
    pub cpu_seconds: Option<f64>,
    /// The implementation's peak resident memory, in bytes, when its session ended cleanly.
    pub peak_memory_bytes: Option<u64>,
    /// How many attempts its campaign ran at once (`-j`), when the record says.
    pub concurrency: Option<u32>,
    /// Whether the implementation's session served earlier attempts too (`--sessions reuse`); records that do not
    /// say were served by fresh sessions.
    pub reused: bool,
    /// How many CPUs the implementation's worker ran on, when the record says.
    pub cpus: Option<u32>,
    /// The implementation's resolved worker identity: its program, command and source.
    pub worker_id: Arc<str>,
    /// The program the implementation's worker ran, as `(where its command found it, its SHA-256)`, when the
    /// record says (records written before programs were recorded do not).
    pub program: Option<Arc<Program>>,
    /// Numeric metrics: index into [`Records::metrics`], value.
    pub metrics: Box<[(u32, f64)]>,
    /// A streamed attempt's checkpoints, in order (empty for an attempt that did not stream).
    pub profile: Box<[Checkpoint]>,
    /// The time to `reached`, in seconds, of an attempt whose verdict is `reached`: a streamed attempt's time to
    /// its first checkpoint judged `reached` (its whole ranked time when only its final result was), any other's
    /// ranked time. With `prepare+execute` ranked, a checkpoint's time counts from `prepare`'s start.
    pub reached_seconds: Option<f64>,
    /// When the attempt started, as its record says (`None` where that is not a time after 1970), which orders
    /// attempts as they started.
    pub started_at: Option<SystemTime>,
}

/// A program as a record names it: where its worker's command found it, and its SHA-256 (shared by every record
/// that names the same).
pub type Program = (Arc<str>, Arc<str>);

/// A record's numeric metrics by name, before they are numbered.
pub(crate) type ByName = Vec<(Arc<str>, f64)>;

/// One checkpoint of a streamed attempt.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    /// Its number, from 1.
    pub number: u64,
    /// The executor's time to it from the `execute_stream` request, in seconds.
    pub seconds: f64,
    /// The evaluator's verdict on it.
    pub verdict: Verdict,
    /// Its numeric metrics, by name.
    pub metrics: Vec<(String, f64)>,
}

impl Recorded {
    /// Whether the record is terminal (`cancelled` ones are run again, so they count as missing).
    pub fn terminal(&self) -> bool {
        self.outcome != Outcome::Cancelled
    }

    /// The time the ranking and its tests use: the ranked time of an attempt that reached (`reached` or
    /// `not_required`), none otherwise.
    pub fn ranked_seconds(&self) -> Option<f64> {
        matches!(self.outcome, Outcome::Reached | Outcome::NotRequired).then_some(self.timed_seconds).flatten()
    }

    /// Whether the implementation streamed a profile.
    pub fn streamed(&self) -> bool {
        !self.profile.is_empty()
    }

    /// The time `compare` compares: a streamed attempt's time to `reached`, any other's ranked time.
    pub fn compared_seconds(&self) -> Option<f64> {
        if self.streamed() { self.reached_seconds } else { self.timed_seconds }
    }
}

/// One planned attempt.
#[derive(Clone, Debug)]
pub struct Attempt {
    /// Index into [`Records::folders`].
    pub folder: u32,
    /// The attempt id.
    pub id: AttemptId,
    /// Index into [`Records::problems`].
    pub problem: u32,
    /// Index into [`Records::datasets`].
    pub dataset: u32,
    /// The dataset seed.
    pub dataset_seed: u64,
    /// Index into [`Records::implementations`].
    pub implementation: u32,
    /// The implementation seed.
    pub implementation_seed: u64,
    /// The repetition, from 1.
    pub repetition: u64,
    /// Its record, if it has a valid one.
    pub record: Option<Recorded>,
}

/// An attempt's id, held as the 32 bytes of its digest where it has the executor's form (`mw1-attempt-` and 64
/// lowercase hex digits): a report of a million attempts holds a million of them, 40 bytes each rather than a
/// string's 24 and its 96 on the heap. It displays as its text, and equals a text only where that is its text.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct AttemptId(Held);

#[derive(Clone, PartialEq, Eq, Hash)]
enum Held {
    Digest([u8; 32]),
    Text(Box<str>),
}

const ATTEMPT_PREFIX: &str = "mw1-attempt-";
const HEX: &[u8; 16] = b"0123456789abcdef";

impl From<&str> for AttemptId {
    fn from(text: &str) -> AttemptId {
        let digest = text
            .strip_prefix(ATTEMPT_PREFIX)
            .filter(|hex| hex.len() == 64 && hex.bytes().all(|byte| matches!(byte, b'0'..=b'9' | b'a'..=b'f')))
            .map(|hex| {
                let mut digest = [0; 32];
                for (byte, pair) in digest.iter_mut().zip(hex.as_bytes().chunks_exact(2)) {
                    let nibble = |digit: u8| if digit <= b'9' { digit - b'0' } else { digit - b'a' + 10 };
                    *byte = nibble(pair[0]) << 4 | nibble(pair[1]);
                }
                digest
            });
        AttemptId(digest.map_or_else(|| Held::Text(Box::from(text)), Held::Digest))
    }
}

impl std::fmt::Display for AttemptId {
    fn fmt(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Held::Text(text) => out.write_str(text),
            Held::Digest(digest) => {
                let mut text = [0; ATTEMPT_PREFIX.len() + 64];
                text[..ATTEMPT_PREFIX.len()].copy_from_slice(ATTEMPT_PREFIX.as_bytes());
                for (pair, byte) in text[ATTEMPT_PREFIX.len()..].chunks_exact_mut(2).zip(digest) {
                    pair[0] = HEX[usize::from(byte >> 4)];
                    pair[1] = HEX[usize::from(byte & 15)];
                }
                out.write_str(std::str::from_utf8(&text).map_err(|_| std::fmt::Error)?)
            }
        }
    }
}

impl std::fmt::Debug for AttemptId {
    fn fmt(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(out, "{:?}", self.to_string())
    }
}

impl PartialEq<str> for AttemptId {
    fn eq(&self, other: &str) -> bool {
        match &self.0 {
            Held::Text(text) => **text == *other,
            Held::Digest(digest) => other.strip_prefix(ATTEMPT_PREFIX).is_some_and(|hex| {
                hex.len() == 64
                    && hex
                        .as_bytes()
                        .chunks_exact(2)
                        .zip(digest)
                        .all(|(pair, byte)| pair == [HEX[usize::from(byte >> 4)], HEX[usize::from(byte & 15)]])
            }),
        }
    }
}

impl PartialEq<&str> for AttemptId {
    fn eq(&self, other: &&str) -> bool {
        *self == **other
    }
}

/// The identities the records name: for each name, every id seen (more than one means it changed between runs).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Identities {
    /// Implementation name to its resolved worker identities.
    pub implementations: BTreeMap<String, BTreeSet<String>>,
    /// Problem name to its contract ids.
    pub contracts: BTreeMap<String, BTreeSet<String>>,
    /// Problem name to its evaluator's worker identities.
    pub evaluators: BTreeMap<String, BTreeSet<String>>,
    /// Dataset name to its materializer's worker identities.
    pub materializers: BTreeMap<String, BTreeSet<String>>,
    /// Implementation name to the external folders it came from, for implementations from outside the repository
    /// (none for a repository's own, and then absent from the JSON).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub external: BTreeMap<String, BTreeSet<String>>,
}

impl Identities {
    pub(crate) fn add(&mut self, record: &IndexEntry) {
        let put = |map: &mut BTreeMap<String, BTreeSet<String>>, name: &str, id: &str| {
            if !map.get(name).is_some_and(|ids| ids.contains(id)) {
                map.entry(name.to_owned()).or_default().insert(id.to_owned());
            }
        };
        put(&mut self.implementations, &record.implementation.name, &record.implementation.worker_id);
        put(&mut self.contracts, &record.problem.name, &record.problem.contract_id);
        put(&mut self.evaluators, &record.problem.name, &record.evaluator.worker_id);
        put(&mut self.materializers, &record.dataset.name, &record.dataset.materializer.worker_id);
        if let Some(origin) = &record.implementation.origin {
            put(&mut self.external, &record.implementation.name, &origin.folder);
        }
    }
}

/// Every planned attempt of one or more campaign folders of one repository.
#[derive(Clone, Debug)]
pub struct Records {
    /// The folders, in the order given.
    pub folders: Vec<Folder>,
    /// Problem names.
    pub problems: Vec<String>,
    /// Dataset names.
    pub datasets: Vec<String>,
    /// Implementation names.
    pub implementations: Vec<String>,
    /// Numeric metric names, sorted.
    pub metrics: Vec<String>,
    /// Every planned attempt, folder by folder in plan order.
    pub attempts: Vec<Attempt>,
    /// The identities the records name.
    pub identities: Identities,
    /// Each problem's `tolerance` parameter, where it has a numeric one (as the first record of the problem says).
    pub tolerances: Vec<Option<f64>>,
    /// What [`Recorded::timed_seconds`] and [`Recorded::reached_seconds`] hold: wall time as read, or the measure
    /// [`Records::measured`] put in their place.
    pub measure: Measure,
}

pub(crate) fn intern(names: &mut Vec<String>, name: &str) -> u32 {
    match names.iter().position(|known| known == name) {
        Some(index) => index as u32,
        None => {
            names.push(name.to_owned());
            (names.len() - 1) as u32
        }
    }
}

impl Records {
    /// Reads campaign folders of one repository. Refuses a folder that is not a campaign folder, one with no
    /// record, one with an invalid record, and folders of different repositories.
    /// Each folder's index entries are trusted as the executor wrote them ([`Check::Entries`]).
    pub fn read(paths: &[PathBuf]) -> Result<Records, ReportError> {
        Records::read_any(paths, true, Check::Entries)
    }

    /// [`Records::read`], each folder's index entries taken as `check` says.
    pub fn read_checked(paths: &[PathBuf], check: Check) -> Result<Records, ReportError> {
        Records::read_any(paths, true, check)
    }

    /// Reads campaign folders, of the same repository when `same_repository`, their index entries taken as `check`
    /// says.
    pub(crate) fn read_any(paths: &[PathBuf], same_repository: bool, check: Check) -> Result<Records, ReportError> {
        if paths.is_empty() {
            return Err(ReportError::NoFolders);
        }
        let mut records = Records {
            folders: Vec::new(),
            problems: Vec::new(),
            datasets: Vec::new(),
            implementations: Vec::new(),
            metrics: Vec::new(),
            attempts: Vec::new(),
            identities: Identities::default(),
            tolerances: Vec::new(),
            measure: Measure::Wall,
        };
        // Each folder's metrics' names, by the numbers its records give them until they are numbered for all.
        let mut metric_names: Vec<Vec<Arc<str>>> = Vec::new();
        for path in paths {
            let reading = FolderReading::read(path, check)?;
            if same_repository
                && let Some(first) = records.folders.first()
                && first.repository != reading.repository
            {
                return Err(ReportError::DifferentRepositories {
                    first: first.path.clone(),
                    first_repository: first.repository.clone(),
                    second: path.clone(),
                    second_repository: reading.repository,
                });
            }
            let folder_index = records.folders.len() as u32;
            for (target, source) in [
                (&mut records.identities.implementations, reading.identities.implementations),
                (&mut records.identities.contracts, reading.identities.contracts),
                (&mut records.identities.evaluators, reading.identities.evaluators),
                (&mut records.identities.materializers, reading.identities.materializers),
                (&mut records.identities.external, reading.identities.external),
            ] {
                for (name, ids) in source {
                    target.entry(name).or_default().extend(ids);
                }
            }
            let planned = reading.attempts.len();
            // Each of the folder's names interned once per axis, at its first appearance, so that the axes keep
            // the plan's order.
            let names = &reading.names;
            let mut numbers = vec![[None::<u32>; 3]; names.len()];
            let mut attempts = reading.attempts;
            for attempt in &mut attempts {
                attempt.folder = folder_index;
                for (axis, (local, list)) in [
                    (&mut attempt.problem, &mut records.problems),
                    (&mut attempt.dataset, &mut records.datasets),
                    (&mut attempt.implementation, &mut records.implementations),
                ]
                .into_iter()
                .enumerate()
                {
                    *local =
                        *numbers[*local as usize][axis].get_or_insert_with(|| intern(list, &names[*local as usize]));
                }
            }
            // The first folder's attempts are taken as they are: appending would copy them (460 MB at a million).
            if records.attempts.is_empty() {
                records.attempts = attempts;
            } else {
                records.attempts.append(&mut attempts);
            }
            metric_names.push(reading.metric_names);
            records.folders.push(Folder {
                path: path.clone(),
                name: reading.name,
                repository: reading.repository,
                planned,
                never_started: reading.never_started,
                unfinished: reading.unfinished,
                runs: reading.runs,
            });
        }
        records.tolerances = records.problems.iter().enumerate().map(|(index, _)| records.tolerance(index)).collect();
        records.separate_conditions();
        let names: BTreeSet<&str> = metric_names.iter().flatten().map(|name| &**name).collect();
        records.metrics = names.into_iter().map(str::to_owned).collect();
        let numbers: Vec<Vec<u32>> = metric_names
            .iter()
            .map(|names| {
                let number = |name: &Arc<str>| records.metrics.binary_search_by(|known| known.as_str().cmp(name));
                names.iter().map(|name| number(name).map_or(u32::MAX, |index| index as u32)).collect()
            })
            .collect();
        // Numbered in place: a second list of every record's metrics would cost a million allocations more.
        for attempt in &mut records.attempts {
            if let Some(record) = &mut attempt.record {
                let numbers = &numbers[attempt.folder as usize];
                for (number, _) in &mut record.metrics {
                    *number = numbers[*number as usize];
                }
            }
        }
        Ok(records)
    }

    /// Where a problem's records ran at different concurrencies (`-j`), which distorts their times differently,
    /// an implementation's records were served by fresh and by reused sessions (`NAME (fresh sessions)`, `NAME
    /// (reused sessions)`: a reused worker pays no start-up and may keep state between attempts), ran on different
    /// numbers of CPUs (`NAME (1 CPU)`, `NAME (2 CPUs)`: `-j 1` with workers started ahead and without), or an
    /// implementation's records ran different workers (its identity changed: another command, source or
    /// include folder) or different programs (another interpreter found on `PATH`, which ids do not show), each
    /// implementation's attempts are told apart by what differs: they become the implementation `NAME (-j N)`,
    /// `NAME (worker 1a2b3c4d)`, `NAME (program /path/found)` (or `program 1a2b3c4d` when one path held two
    /// files) or several of these, so that no row, profile or median pools them. Attempts without a record keep
    /// the plain name; records without a program take no part in telling programs apart.
    fn separate_conditions(&mut self) {
        let mut concurrencies: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
        let mut sessions: BTreeMap<(u32, u32), BTreeSet<bool>> = BTreeMap::new();
        let mut cpus: BTreeMap<(u32, u32), BTreeSet<u32>> = BTreeMap::new();
        let mut workers: BTreeMap<(u32, u32), BTreeSet<&str>> = BTreeMap::new();
        let mut programs: BTreeMap<(u32, u32), BTreeSet<&Program>> = BTreeMap::new();
        for attempt in &self.attempts {
            let Some(record) = &attempt.record else { continue };
            if let Some(concurrency) = record.concurrency {
                concurrencies.entry(attempt.problem).or_default().insert(concurrency);
            }
            workers.entry((attempt.problem, attempt.implementation)).or_default().insert(&record.worker_id);
            sessions.entry((attempt.problem, attempt.implementation)).or_default().insert(record.reused);
            if let Some(count) = record.cpus {
                cpus.entry((attempt.problem, attempt.implementation)).or_default().insert(count);
            }
            if let Some(program) = &record.program {
                programs.entry((attempt.problem, attempt.implementation)).or_default().insert(&**program);
            }
        }
        let mut names = Vec::new();
        for attempt in &self.attempts {
            let Some(record) = &attempt.record else {
                names.push(None);
                continue;
            };
            let mut differs = Vec::new();
            if let Some(concurrency) = record.concurrency
                && concurrencies.get(&attempt.problem).is_some_and(|set| set.len() > 1)
            {
                differs.push(format!("-j {concurrency}"));
            }
            if sessions.get(&(attempt.problem, attempt.implementation)).is_some_and(|set| set.len() > 1) {
                differs.push(if record.reused { "reused sessions" } else { "fresh sessions" }.to_owned());
            }
            if let Some(count) = record.cpus
                && cpus.get(&(attempt.problem, attempt.implementation)).is_some_and(|set| set.len() > 1)
            {
                differs.push(if count == 1 { "1 CPU".to_owned() } else { format!("{count} CPUs") });
            }
            if workers.get(&(attempt.problem, attempt.implementation)).is_some_and(|set| set.len() > 1) {
                let digest = record.worker_id.rsplit('-').next().unwrap_or_default();
                differs.push(format!("worker {}", &digest[..digest.len().min(8)]));
            }
            if let (Some((found, sha256)), Some(set)) =
                (record.program.as_deref(), programs.get(&(attempt.problem, attempt.implementation)))
                && set.len() > 1
            {
                let paths: BTreeSet<&str> = set.iter().map(|(found, _)| &**found).collect();
                if paths.len() > 1 {
                    differs.push(format!("program {found}"));
                } else {
                    differs.push(format!("program {}", &sha256[..sha256.len().min(8)]));
                }
            }
            names.push((!differs.is_empty()).then(|| {
                format!("{} ({})", self.implementations[attempt.implementation as usize], differs.join(", "))
            }));
        }
        for (index, name) in names.into_iter().enumerate() {
            if let Some(name) = name {
                self.attempts[index].implementation = intern(&mut self.implementations, &name);
            }
        }
    }

    /// Problem `problem`'s numeric `tolerance` parameter, read from the first of its attempts that has a record (its
    /// parameters are the same in every record: they are part of its contract's identity).
    fn tolerance(&self, problem: usize) -> Option<f64> {
        let attempt =
            self.attempts.iter().find(|attempt| attempt.problem as usize == problem && attempt.record.is_some())?;
        let Found::Record(record) = read_attempt(&self.folders[attempt.folder as usize].path, &attempt.id.to_string())
        else {
            return None;
        };
        record.problem.parameters.get("tolerance").and_then(serde_json::Value::as_f64).filter(|t| *t > 0.0)
    }

    /// These records ranked and compared by `measure`: each attempt's ranked time (and its time to `reached`, when
    /// it has one) replaced by its session's CPU time or peak memory, so that the ranking, the tables, the profiles
    /// and the comparisons all use it. An attempt without a ranked time (no verdict) still has none, and one whose
    /// session did not end cleanly has no value for CPU time or memory.
    #[must_use]
    pub fn measured(mut self, measure: Measure) -> Records {
        for record in self.attempts.iter_mut().filter_map(|attempt| attempt.record.as_mut()) {
            let value = match measure {
                Measure::Wall => continue,
                Measure::Cpu => record.cpu_seconds,
                Measure::Memory => record.peak_memory_bytes.map(|bytes| bytes as f64),
            };
            record.timed_seconds = record.timed_seconds.and(value);
            record.reached_seconds = record.reached_seconds.and(value);
        }
        self.measure = measure;
        self
    }

    /// Attempts that have a record.
    pub fn recorded(&self) -> impl Iterator<Item = (&Attempt, &Recorded)> {
        self.attempts.iter().filter_map(|attempt| attempt.record.as_ref().map(|record| (attempt, record)))
    }
}

/// One record's summary (from its index entry), its metrics by name.
pub(crate) fn recorded(record: &IndexEntry, id: &str) -> (Recorded, ByName) {
    let failure = record.failure.as_ref().map(|failure| {
        Box::new(FailureInfo {
            role: failure.role.map(|role| role.to_string()),
            phase: failure.phase.map(|phase| phase.to_string()),
            kind: failure.kind.to_string(),
            message: failure.message.to_string(),
            log: failure.log.as_ref().map(|log| format!("attempts/{id}/{}", log.as_str())),
        })
    });
    let timed = metewand_campaign::index::judged(record);
    let seconds = |of: Phase| {
        record
            .phases
            .iter()
            .filter(|phase| phase.role == Role::Implementation && phase.phase == of)
            .map(|phase| phase.duration_ns.get())
            .reduce(|a, b| a.saturating_add(b))
            .filter(|_| timed)
            .map(|ns| ns as f64 / 1e9)
    };
    let reused = record.implementation.session.as_ref().is_some_and(|session| session.mode == SessionMode::Reuse);
    let mut phase_seconds = [seconds(Phase::Hello), seconds(Phase::Prepare), seconds(Phase::Execute)];
    // An attempt a reused session served after its first started no worker: its start-up is none, not unknown, so
    // that a reused row's start-up median is what its attempts paid.
    if reused && timed && phase_seconds[0].is_none() {
        phase_seconds[0] = Some(0.0);
    }
    let timed_by = record.problem.timed.unwrap_or(ProblemTimed::Execute);
    let timed_seconds = record.timed_time().map(|time| time.seconds());
    let metrics = record
        .metrics
        .iter()
        .filter_map(|(name, value)| value.as_f64().map(|value| (Arc::from(name.as_str()), value)))
        .collect();
    let profile: Vec<Checkpoint> = record
        .implementation
        .profile
        .iter()
        .map(|point| Checkpoint {
            number: point.checkpoint.get(),
            seconds: point.time_ns.get() as f64 / 1e9,
            verdict: point.verdict,
            metrics: point
                .metrics
                .iter()
                .filter_map(|(name, value)| value.as_f64().map(|value| (name.clone(), value)))
                .collect(),
        })
        .collect();
    let before_execute = match timed_by {
        ProblemTimed::Execute => Some(0.0),
        ProblemTimed::PrepareExecute => phase_seconds[1],
    };
    let first_reached = profile.iter().find(|point| point.verdict == Verdict::Reached);
    let reached_seconds = match first_reached {
        _ if record.outcome != Outcome::Reached || !timed => None,
        Some(point) => before_execute.map(|before| before + point.seconds),
        None => timed_seconds,
    };
    (
        Recorded {
            outcome: record.outcome,
            verdict: record.verdict,
            failure,
            timed: timed_by,
            timed_seconds,
            phase_seconds,
            cpu_seconds: record.implementation.cpu_ns.map(|ns| ns.get() as f64 / 1e9),
            peak_memory_bytes: record.implementation.peak_rss_bytes.map(|bytes| bytes.get()),
            concurrency: Some(u32::try_from(record.concurrency.get()).unwrap_or(u32::MAX)),
            reused,
            cpus: record.implementation.cpus.as_ref().map(|cpus| u32::try_from(cpus.list.len()).unwrap_or(u32::MAX)),
            worker_id: Arc::from(record.implementation.worker_id.as_str()),
            program: record.implementation.program.as_ref().map(|program| {
                let found = program.path_match.as_ref().map_or(program.path.as_str(), |found| found.as_str());
                Arc::new((Arc::from(found), Arc::from(program.sha256.to_string())))
            }),
            metrics: Box::default(),
            profile: profile.into_boxed_slice(),
            reached_seconds,
            started_at: metewand_campaign::parse_rfc3339(record.started_at.as_str()),
        },
        metrics,
    )
}
