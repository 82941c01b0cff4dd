//! What changed since a campaign folder's records were written, and so why attempts run again or should: workers
//! whose identity changed (which part of it, and which files when the store still holds the earlier copy of the
//! source), and
//! done attempts whose workers ran another program than the one their command finds now (a virtual environment
//! that is no longer first on `PATH`, an interpreter upgraded in place), which ids do not show.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use metewand_runtime::attempt::{SOURCES_DIR, SourceChanges, compare_copy, copy_key};
use metewand_runtime::protocol::Sha256Digest;
use metewand_runtime::protocol::common::WorkerId;
use metewand_runtime::protocol::generated::attempt_record::{
    AttemptRecord, PythonDistribution, WorkerIdentity, WorkerProgram,
};
use metewand_runtime::repository::Worker;

use serde::{Deserialize, Serialize};

use crate::environment::{Environment, Program};
use crate::folder::{Found, read_attempt, read_campaign};
use crate::index::IndexEntry;
use crate::plan::CampaignPlan;

/// How many records a change of worker is told from at most: enough to name every worker that changed.
pub(crate) const CHANGE_SAMPLE: usize = 256;

/// A worker whose identity is not the one the folder's earlier records name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChangedWorker {
    /// The worker's name.
    pub worker: String,
    /// How many of the records looked at name its earlier identity.
    pub records: usize,
    /// The parts of its identity that differ: `source`, `include <folder>`, `command`, `env`, `network`; empty
    /// when the records predate the parts being recorded.
    pub parts: Vec<String>,
    /// How its source differs file by file from an earlier attempt's copy of it, when one is at hand.
    pub files: Option<SourceChanges>,
}

/// The workers whose current identity differs from the one the folder's records name, among the attempts of the
/// previous plan (`campaign.json`) that are no longer in this one: their ids changed, or the plan did. Their files
/// are compared with the earlier copy of their source the store of `state_dir` still holds, if it does.
pub fn changed_workers(plan: &CampaignPlan<'_>, folder: &Path, state_dir: &Path) -> Vec<ChangedWorker> {
    let Ok(previous) = read_campaign(folder) else { return Vec::new() };
    let current: HashSet<&str> = plan.attempts().iter().map(|attempt| attempt.id.as_str()).collect();
    let left: Vec<String> = previous
        .attempts
        .iter()
        .filter(|entry| !current.contains(entry.id.as_str()))
        .take(CHANGE_SAMPLE)
        .map(|entry| entry.id.to_string())
        .collect();
    changed_workers_among(plan, folder, state_dir, &left)
}

/// [`changed_workers`] among the attempts `left` (the first [`CHANGE_SAMPLE`] of the previous plan's attempts
/// that are not in this one, in its order).
pub(crate) fn changed_workers_among(
    plan: &CampaignPlan<'_>,
    folder: &Path,
    state_dir: &Path,
    left: &[String],
) -> Vec<ChangedWorker> {
    let repository = plan.repository();
    let mut changed: BTreeMap<String, ChangedWorker> = BTreeMap::new();
    for id in left {
        let Found::Record(record) = read_attempt(folder, id) else { continue };
        for ran in sessions(plan, &record) {
            let Some(worker) = ran.worker.and_then(|name| repository.worker(name)) else { continue };
            let parts = ran.identity;
            if worker.identity() == ran.worker_id {
                continue;
            }
            let entry = changed.entry(worker.name().to_owned()).or_insert_with(|| ChangedWorker {
                worker: worker.name().to_owned(),
                records: 0,
                parts: Vec::new(),
                files: None,
            });
            entry.records += 1;
            if entry.parts.is_empty()
                && let Some(parts) = parts
            {
                entry.parts = changed_parts(worker, parts);
            }
            if entry.files.is_none()
                && let Some(parts) = parts
            {
                let include = parts.include.iter().flatten().map(|(folder, digest)| (folder.as_str(), digest.as_str()));
                let include: Vec<(&str, &str)> =
                    include.filter_map(|(folder, digest)| Some((folder, digest?))).collect();
                let key = copy_key(parts.source.as_str(), include);
                entry.files = compare_copy(worker, &state_dir.join(SOURCES_DIR).join(key));
            }
        }
    }
    changed.into_values().collect()
}

/// What a record says of one of its worker sessions.
struct Session<'r> {
    /// The worker serving that role now, by the repository's definition the record names (`None` when the
    /// repository no longer has it).
    worker: Option<&'r str>,
    worker_id: &'r WorkerId,
    identity: Option<&'r WorkerIdentity>,
}

/// A record's three worker sessions: the implementation, the materializer and the evaluator.
fn sessions<'r>(plan: &'r CampaignPlan<'_>, record: &'r AttemptRecord) -> [Session<'r>; 3] {
    let (implementation, materializer, evaluator) =
        (&record.implementation, &record.dataset.materializer, &record.evaluator);
    let [implementation_now, materializer_now, evaluator_now] =
        workers_now(plan, &implementation.name, &record.dataset.name, &record.problem.name);
    [
        Session {
            worker: implementation_now,
            worker_id: &implementation.worker_id,
            identity: implementation.identity.as_ref(),
        },
        Session {
            worker: materializer_now,
            worker_id: &materializer.worker_id,
            identity: materializer.identity.as_ref(),
        },
        Session { worker: evaluator_now, worker_id: &evaluator.worker_id, identity: evaluator.identity.as_ref() },
    ]
}

/// The workers serving an attempt's implementation, materializer and evaluator now, by the names of its
/// implementation, dataset and problem; `None` where the repository no longer has that name.
fn workers_now<'p>(
    plan: &'p CampaignPlan<'_>,
    implementation: &str,
    dataset: &str,
    problem: &str,
) -> [Option<&'p str>; 3] {
    let repository = plan.repository();
    [
        repository.implementations().get(implementation).map(|i| i.worker()),
        repository.datasets().get(dataset).map(|d| d.materializer()),
        repository.problems().get(problem).map(|p| p.evaluator()),
    ]
}

/// Which parts of `worker`'s identity differ from those a record kept.
fn changed_parts(worker: &Worker, recorded: &WorkerIdentity) -> Vec<String> {
    let mut parts = Vec::new();
    if recorded.source.as_str() != worker.source_tree().digest() {
        parts.push("source".to_owned());
    }
    let now: BTreeMap<&str, String> =
        worker.includes().iter().map(|include| (include.path(), include.tree().digest())).collect();
    let then: BTreeMap<&str, &str> = recorded
        .include
        .iter()
        .flatten()
        .map(|(folder, digest)| (folder.as_str(), digest.as_str().unwrap_or_default()))
        .collect();
    let folders: BTreeSet<&str> = now.keys().chain(then.keys()).copied().collect();
    for folder in folders {
        if now.get(folder).map(String::as_str) != then.get(folder).copied() {
            parts.push(format!("include {folder}"));
        }
    }
    if recorded.command.as_slice() != worker.command() {
        parts.push("command".to_owned());
    }
    let env_then: BTreeMap<&str, Option<&str>> =
        recorded.env.iter().map(|(name, value)| (name.as_str(), value.as_str())).collect();
    let env_now: BTreeMap<&str, Option<&str>> =
        worker.env().iter().map(|(name, value)| (name.as_str(), Some(value.as_str()))).collect();
    if env_then != env_now {
        parts.push("env".to_owned());
    }
    if recorded.network.unwrap_or(false) != worker.network() {
        parts.push("network".to_owned());
    }
    // Part of the identity only where the worker declares `identity = ["environment"]`.
    if recorded.environment != worker.identity_environment() {
        parts.push("environment".to_owned());
    }
    parts
}

/// The programs the plan's workers' commands find now, to hold done attempts' records against.
#[derive(Clone, Debug, Default)]
pub struct ProgramCheck {
    /// By worker name: the program its command finds now, for commands found on `PATH` or named by an absolute
    /// path (a program inside the worker's source is covered by its identity).
    now: BTreeMap<String, Program>,
    /// The campaign folder whose records say which distributions an earlier environment held, when given.
    folder: Option<PathBuf>,
    /// Those distributions by environment digest, each read once from the first record that names it.
    recorded: Arc<Mutex<BTreeMap<Sha256Digest, Vec<PythonDistribution>>>>,
}

/// What an attempt's record says its three workers ran, as far as their programs can have changed since: the names
/// of its implementation, dataset and problem (which say the workers serving them now), and the program and Python
/// environment of its implementation, materializer and evaluator. Few attempts differ in it, so a tally keeps each
/// distinct one once ([`crate::tally`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub(crate) struct Ran {
    pub(crate) names: [String; 3],
    pub(crate) programs: [Option<RanProgram>; 3],
    pub(crate) environments: [Option<Sha256Digest>; 3],
}

/// A program as a record names it ([`WorkerProgram`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub(crate) struct RanProgram {
    pub(crate) path: String,
    pub(crate) path_match: Option<String>,
    pub(crate) sha256: Sha256Digest,
}

impl Ran {
    /// What the attempt of `entry` ran.
    pub(crate) fn of(entry: &IndexEntry) -> Ran {
        let program = |program: &Option<WorkerProgram>| {
            program.as_ref().map(|program| RanProgram {
                path: program.path.to_string(),
                path_match: program.path_match.as_ref().map(ToString::to_string),
                sha256: program.sha256,
            })
        };
        let (implementation, materializer, evaluator) =
            (&entry.implementation, &entry.dataset.materializer, &entry.evaluator);
        Ran {
            names: [implementation.name.to_string(), entry.dataset.name.to_string(), entry.problem.name.to_string()],
            programs: [program(&implementation.program), program(&materializer.program), program(&evaluator.program)],
            environments: [implementation.environment, materializer.environment, evaluator.environment],
        }
    }
}

/// Done attempts whose worker ran another program than the one its command finds now.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct ProgramChange {
    /// The worker.
    pub worker: String,
    /// What it ran then: the `PATH` match (or the program's path) and the first digits of the program's digest.
    pub then: String,
    /// What its command finds now, alike.
    pub now: String,
}

impl ProgramCheck {
    /// The check against `environment` (captured for this run) of the plan's workers.
    pub fn new(plan: &CampaignPlan<'_>, environment: &Environment) -> ProgramCheck {
        let now = plan
            .workers()
            .into_iter()
            .filter_map(|name| environment.workers.iter().find(|program| program.worker == *name))
            .filter(|program| !program.command.contains('/') || program.command.starts_with('/'))
            .map(|program| (program.worker.clone(), program.clone()))
            .collect();
        ProgramCheck { now, folder: None, recorded: Arc::default() }
    }

    /// The check, reading the records of `folder` to say which distributions of a changed environment differ.
    #[must_use]
    pub fn reading(mut self, folder: &Path) -> ProgramCheck {
        self.folder = Some(folder.to_owned());
        self
    }

    /// The workers of an attempt (its index entry) that ran another program than their command finds now.
    pub fn changes(&self, plan: &CampaignPlan<'_>, entry: &IndexEntry) -> Vec<ProgramChange> {
        self.changes_of(plan, &Ran::of(entry), entry.attempt_id.as_str())
    }

    /// The workers that ran as `ran` says, in the attempt `attempt_id` (whose record says which distributions an
    /// environment held), and another program than their command finds now.
    pub(crate) fn changes_of(&self, plan: &CampaignPlan<'_>, ran: &Ran, attempt_id: &str) -> Vec<ProgramChange> {
        let [implementation, dataset, problem] = &ran.names;
        let workers = workers_now(plan, implementation, dataset, problem);
        let mut changes = Vec::new();
        for (slot, (worker, program)) in workers.into_iter().zip(&ran.programs).enumerate() {
            let Some(worker) = worker else { continue };
            let Some(now) = self.now.get(worker) else { continue };
            if let Some((then, now)) = program.as_ref().and_then(|program| differs(program, now)) {
                changes.push(ProgramChange { worker: worker.to_owned(), then, now });
            }
            if let (Some(then), Some(current)) = (ran.environments[slot], now.environment.as_ref())
                && then != current.digest
            {
                let earlier = self.recorded_environment(attempt_id, slot, then);
                let difference = earlier.map_or_else(String::new, |earlier| {
                    format!(" ({})", environment_difference(&earlier, &current.distributions))
                });
                changes.push(ProgramChange {
                    worker: worker.to_owned(),
                    then: format!("Python environment {}", short(&then)),
                    now: format!("Python environment {}{difference}", short(&current.digest)),
                });
            }
        }
        changes
    }

    /// The distributions of the environment `digest` that the record of `attempt_id` names for its session `slot`
    /// (implementation, materializer, evaluator), read once per digest; `None` without a folder or a record.
    fn recorded_environment(
        &self,
        attempt_id: &str,
        slot: usize,
        digest: Sha256Digest,
    ) -> Option<Vec<PythonDistribution>> {
        if let Some(known) = self.recorded.lock().unwrap_or_else(PoisonError::into_inner).get(&digest) {
            return Some(known.clone());
        }
        let Found::Record(record) = read_attempt(self.folder.as_deref()?, attempt_id) else {
            return None;
        };
        let environment = match slot {
            0 => record.implementation.environment,
            1 => record.dataset.materializer.environment,
            _ => record.evaluator.environment,
        }?;
        let distributions = environment.distributions;
        self.recorded.lock().unwrap_or_else(PoisonError::into_inner).insert(digest, distributions.clone());
        Some(distributions)
    }
}

/// The first twelve hex digits of a digest, as changes are told.
fn short(digest: &Sha256Digest) -> String {
    digest.to_string()[..12].to_owned()
}

/// How two environments' distributions differ, by normalized name: `numpy 1.26.4 → 2.1.0`, `scipy 1.13.0 added`,
/// `pandas 2.2.0 removed`, `attrs 23.2.0 files changed` (the same version with another `RECORD`); at most five, then
/// how many more.
pub fn environment_difference(then: &[PythonDistribution], now: &[PythonDistribution]) -> String {
    let key = |d: &PythonDistribution| metewand_runtime::session::normalized_distribution_name(&d.name);
    let then: BTreeMap<String, &PythonDistribution> = then.iter().map(|d| (key(d), d)).collect();
    let now: BTreeMap<String, &PythonDistribution> = now.iter().map(|d| (key(d), d)).collect();
    let names: BTreeSet<&String> = then.keys().chain(now.keys()).collect();
    let mut parts = Vec::new();
    for name in names {
        match (then.get(name), now.get(name)) {
            (Some(a), Some(b)) if a.version != b.version => {
                parts.push(format!("{} {} → {}", b.name, a.version, b.version));
            }
            (Some(a), Some(b)) if a.record_sha256 != b.record_sha256 => {
                parts.push(format!("{} {} files changed", b.name, b.version));
            }
            (None, Some(b)) => parts.push(format!("{} {} added", b.name, b.version)),
            (Some(a), None) => parts.push(format!("{} {} removed", a.name, a.version)),
            _ => {}
        }
    }
    let mut text = parts.iter().take(5).cloned().collect::<Vec<_>>().join(", ");
    if parts.len() > 5 {
        text.push_str(&format!(" and {} more", parts.len() - 5));
    }
    text
}

/// How a recorded program differs from the one found now, as `(then, now)`; `None` when they agree or cannot be
/// compared. The path a command was found at is compared (a virtual environment's `python3` is a link to the
/// interpreter, so the link is what tells two environments apart), then the file's digest when the command now
/// finds the very file that ran.
fn differs(ran: &RanProgram, now: &Program) -> Option<(String, String)> {
    let found_then = ran.path_match.as_deref().unwrap_or(&ran.path);
    let found_now = now.path_match.as_deref()?;
    if found_then != found_now {
        let now_digest = now.sha256.as_ref().map_or_else(|| "not found".to_owned(), short);
        return Some((
            format!("{found_then} (sha256 {})", short(&ran.sha256)),
            format!("{found_now} (sha256 {now_digest})"),
        ));
    }
    let resolved = now.resolved.as_deref()?;
    let digest = now.sha256.as_ref()?;
    (resolved == ran.path && *digest != ran.sha256).then(|| {
        (format!("{} (sha256 {})", ran.path, short(&ran.sha256)), format!("{resolved} (sha256 {})", short(digest)))
    })
}
