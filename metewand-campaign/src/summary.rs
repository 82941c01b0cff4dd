//! What `campaign plan` reports before anything runs: the plan's size, the distinct datasets and how many the
//! store already holds, how much of the plan the folder already has, an estimate from the records it holds, and
//! each worker command that starts through a script rather than a program.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

use metewand_protocol::generated::attempt_record::Outcome;
use metewand_runtime::attempt::{DatasetMaterializationOutcome, PUBLISHED_SUFFIX, parse_rfc3339};

use crate::changes::{ChangedWorker, ProgramChange, ProgramCheck, changed_workers};
use crate::environment::Environment;
use crate::folder::read_materialization;
use crate::index::{Check, Rebuild};
use crate::plan::CampaignPlan;
use crate::status::Status;

/// A plan and what is already known of it.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanSummary {
    /// Attempts in the plan.
    pub attempts: usize,
    /// Of those, attempts another cell's attempt serves ([`PlannedAttempt::shared_with`](crate::PlannedAttempt::shared_with)).
    pub shared: usize,
    /// Of those, the ones already done.
    pub shared_done: usize,
    /// The size of each axis: problems, datasets, dataset seeds, implementations, implementation seeds,
    /// repetitions (their product is `attempts`).
    pub axes: [u64; 6],
    /// Distinct dataset keys.
    pub datasets: usize,
    /// Of those, how many the store holds with the executor's record (verified again before any reuse).
    pub datasets_in_store: usize,
    /// Of those, how many failed to materialize in an earlier run into this folder.
    pub datasets_failed: usize,
    /// The folder's state against the plan.
    pub status: Status,
    /// How long what remains should take, from the durations of the records already there.
    pub estimate: Option<Estimate>,
    /// Worker commands that are scripts: each start runs them first.
    pub scripts: Vec<ScriptStart>,
    /// Workers whose identity is not the one recorded by the folder's attempts that left the plan (the previous
    /// run's, by `campaign.json`): why those attempts' ids changed, and in which part.
    pub changed_workers: Vec<ChangedWorker>,
    /// Done attempts whose workers ran another program than their commands find now, by change, with how many
    /// attempts each: `--rerun-changed` runs them again.
    pub changed_programs: Vec<(ProgramChange, usize)>,
}

/// How long the attempts still to run should take.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// The mean wall time of an attempt over the records it is taken from, in seconds.
    pub mean_seconds: f64,
    /// How many records it is taken from.
    pub records: usize,
    /// The attempts still to run × the mean, over the number of jobs.
    pub remaining_seconds: f64,
}

/// A worker command whose program is a script (a version manager's shim, say), not an executable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptStart {
    /// The command's program as found.
    pub path: String,
    /// What the script is (its `#!` line).
    pub script: String,
    /// The workers whose command it is, by name.
    pub workers: Vec<String>,
}

impl PlanSummary {
    /// Summarises `plan` against the campaign folder `folder` and the store of `state_dir`, with `jobs` attempts
    /// at once for the estimate.
    pub fn of(
        plan: &CampaignPlan<'_>,
        folder: &Path,
        state_dir: &Path,
        jobs: usize,
        environment: &Environment,
    ) -> PlanSummary {
        let ids: Vec<&str> = plan.attempts().iter().map(|attempt| attempt.id.as_str()).collect();
        let durations = Mutex::new(Vec::new());
        let shared_done = std::sync::atomic::AtomicUsize::new(0);
        let programs = ProgramCheck::new(plan, environment).reading(folder);
        let changed_programs: Mutex<BTreeMap<ProgramChange, usize>> = Mutex::new(BTreeMap::new());
        // The workers' changes are read from the previous plan beside the scan, which does not need it.
        let (status, changed_workers) = std::thread::scope(|scope| {
            let changed = scope.spawn(|| changed_workers(plan, folder, state_dir));
            let status = scan(plan, folder, &ids, &programs, &changed_programs, &durations, &shared_done);
            (status, changed.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
        });
        let durations = durations.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner());
        let store = state_dir.join("datasets");
        let datasets_in_store = plan
            .keys()
            .iter()
            .filter(|dataset| store.join(format!("{}{PUBLISHED_SUFFIX}", dataset.key)).is_file())
            .count();
        let datasets_failed = plan
            .keys()
            .iter()
            .filter(|dataset| {
                read_materialization(folder, &dataset.key)
                    .is_some_and(|record| record.outcome == DatasetMaterializationOutcome::Failed)
            })
            .count();
        let shared = (plan.shared(), shared_done.into_inner());
        let remaining = (plan.attempts().len() - shared.0) - (status.done() - shared.1);
        let estimate = (!durations.is_empty()).then(|| {
            let mean_seconds = durations.iter().sum::<f64>() / durations.len() as f64;
            Estimate {
                mean_seconds,
                records: durations.len(),
                remaining_seconds: mean_seconds * remaining as f64 / jobs.max(1) as f64,
            }
        });
        let definition = plan.definition();
        PlanSummary {
            attempts: plan.attempts().len(),
            shared: shared.0,
            shared_done: shared.1,
            axes: [
                plan.problems().len() as u64,
                plan.datasets().len() as u64,
                definition.dataset_seeds.len(),
                plan.implementations().len() as u64,
                definition.implementation_seeds.len(),
                definition.repetitions.get(),
            ],
            datasets: plan.keys().len(),
            datasets_in_store,
            datasets_failed,
            status,
            estimate,
            scripts: scripts(plan, environment),
            changed_workers,
            changed_programs: changed_programs
                .into_inner()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .into_iter()
                .collect(),
        }
    }

    /// Attempts still to run: those without a terminal record, less those another cell's attempt serves.
    pub fn remaining(&self) -> usize {
        (self.attempts - self.shared) - (self.status.done() - self.shared_done)
    }
}

/// The workers the plan starts whose command is a script, grouped by program.
fn scripts(plan: &CampaignPlan<'_>, environment: &Environment) -> Vec<ScriptStart> {
    let mut grouped: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for name in plan.workers() {
        if let Some(program) = environment.workers.iter().find(|program| program.worker == *name)
            && let Some(script) = &program.script
        {
            let path = program.path_match.clone().unwrap_or_else(|| program.command.clone());
            grouped.entry((path, script.clone())).or_default().push(name.to_owned());
        }
    }
    grouped.into_iter().map(|((path, script), workers)| ScriptStart { path, script, workers }).collect()
}

/// What the folder holds of `plan`'s attempts, counting the program changes and the durations of those done.
fn scan(
    plan: &CampaignPlan<'_>,
    folder: &Path,
    ids: &[&str],
    programs: &ProgramCheck,
    changed_programs: &Mutex<BTreeMap<ProgramChange, usize>>,
    durations: &Mutex<Vec<f64>>,
    shared_done: &std::sync::atomic::AtomicUsize,
) -> Status {
    Status::scan(folder, plan.name(), ids, Rebuild::NewPart, Check::Entries, |slot, record| {
        if plan.attempts()[slot].shared_with.is_some() {
            // Another cell's record: counted once, by its first cell.
            if record.outcome != Outcome::Cancelled {
                shared_done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            return;
        }
        let changes = programs.changes(plan, record);
        if !changes.is_empty() {
            let mut changed = changed_programs.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            for change in changes {
                *changed.entry(change).or_default() += 1;
            }
        }
        if let (Some(start), Some(end)) =
            (parse_rfc3339(record.started_at.as_str()), parse_rfc3339(record.finished_at.as_str()))
        {
            durations
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .push(end.duration_since(start).unwrap_or_default().as_secs_f64());
        }
    })
}
