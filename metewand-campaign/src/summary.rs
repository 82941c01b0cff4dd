//! What `campaign plan` reports before anything runs: the plan's size, the distinct datasets and how many the
//! store already holds, how much of the plan the folder already has, an estimate from the records it holds, and
//! each worker command that starts through a script rather than a program.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::sync::Mutex;

use metewand_protocol::generated::attempt_record::Outcome;
use metewand_runtime::attempt::{DatasetMaterializationOutcome, PUBLISHED_SUFFIX};

use crate::appended;
use crate::changes::{
    CHANGE_SAMPLE, ChangedWorker, ProgramChange, ProgramCheck, changed_workers, changed_workers_among,
};
use crate::environment::Environment;
use crate::folder::read_materialization;
use crate::index::{Check, IndexEntry, Rebuild};
use crate::own::Found;
use crate::plan::CampaignPlan;
use crate::status::{Counted, Status};
use crate::tally::{NONE_NANOS, NONE_RAN, Tally, id_digest, id_of, wall_nanos};

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
        let programs = ProgramCheck::new(plan, environment).reading(folder);
        let Done { status, nanos, shared_done, changed_programs, changed_workers } =
            Done::from_tally(plan, folder, state_dir, &programs)
                .unwrap_or_else(|| Done::by_reading(plan, folder, state_dir, &programs));
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
        let shared = (plan.shared(), shared_done);
        let remaining = (plan.attempts().len() - shared.0) - (status.done() - shared.1);
        let (total, records) = nanos;
        let estimate = (records > 0).then(|| {
            // Summed exactly, so that the mean is the same whichever order the records were read in.
            let mean_seconds = total as f64 / 1e9 / records as f64;
            Estimate { mean_seconds, records, remaining_seconds: mean_seconds * remaining as f64 / jobs.max(1) as f64 }
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
            changed_programs: changed_programs.into_iter().collect(),
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

/// What a folder holds of a plan's attempts: their status, the wall times of those done (their sum in nanoseconds
/// and how many), how many done attempts another cell's serves, the program changes of those done, and the workers
/// that changed among the attempts of the previous plan that left this one.
struct Done {
    status: Status,
    nanos: (u128, usize),
    shared_done: usize,
    changed_programs: BTreeMap<ProgramChange, usize>,
    changed_workers: Vec<ChangedWorker>,
}

impl Done {
    /// What the folder's tally says (kept current with what its index was appended since, and made by one whole
    /// reading where the folder has none), for the attempts of `plan` it counts; those it does not count (not in
    /// `campaign.json`) are looked up one by one. `None` where the folder can have no tally.
    fn from_tally(plan: &CampaignPlan<'_>, folder: &Path, state_dir: &Path, programs: &ProgramCheck) -> Option<Done> {
        let tally = Tally::current(folder).or_else(|| {
            // The first reading of a folder without a tally: a whole reading, which leaves one.
            Status::of(folder, Check::Entries).ok()?;
            Tally::current(folder)
        })?;
        let mut done = Done {
            status: Status { name: plan.name().to_owned(), planned: plan.attempts().len(), ..Status::default() },
            nanos: (0, 0),
            shared_done: 0,
            changed_programs: BTreeMap::new(),
            changed_workers: Vec::new(),
        };
        // Counted by number, then told once a number: a million attempts are a few distinct counts and runs.
        let mut counted = vec![0usize; tally.counts.len()];
        let mut ran: Vec<(usize, Option<[u8; 32]>)> = vec![(0, None); tally.ran.len()];
        // Each planned attempt's slot: at its own place while the plan is the tally's, otherwise found by its id.
        let mut by_id: Option<HashMap<[u8; 32], usize>> = None;
        let mut matched = vec![false; tally.slots.len()];
        let mut outside = Vec::new();
        for (at, attempt) in plan.attempts().iter().enumerate() {
            let place = id_digest(&attempt.id).and_then(|id| match &mut by_id {
                None if tally.slots.get(at).is_some_and(|slot| slot.id == id) => Some(at),
                by_id => by_id
                    .get_or_insert_with(|| {
                        let mut places = HashMap::with_capacity(tally.slots.len());
                        for (place, slot) in tally.slots.iter().enumerate() {
                            places.entry(slot.id).or_insert(place);
                        }
                        places
                    })
                    .get(&id)
                    .copied(),
            });
            let Some(place) = place else {
                outside.push(at);
                continue;
            };
            matched[place] = true;
            let slot = tally.slots[place];
            counted[slot.counted as usize] += 1;
            match tally.counts.get(slot.counted) {
                Counted::Invalid(reason) => done.status.invalid.push((attempt.id.to_string(), reason.clone())),
                Counted::Record { .. } if attempt.shared_with.is_some() => {
                    done.shared_done += usize::from(!tally.counts.get(slot.counted).cancelled());
                }
                Counted::Record { .. } => {
                    if slot.ran != NONE_RAN {
                        let (times, example) = &mut ran[slot.ran as usize];
                        *times += 1;
                        example.get_or_insert(slot.id);
                    }
                    done.took(slot.nanos);
                }
                _ => {}
            }
        }
        for (number, times) in counted.into_iter().enumerate().filter(|(_, times)| *times > 0) {
            done.status.add(tally.counts.get(number as u32), times);
        }
        for (number, (times, example)) in ran.into_iter().enumerate() {
            let Some(example) = example else { continue };
            for change in programs.changes_of(plan, tally.ran.get(number as u32), &id_of(&example)) {
                *done.changed_programs.entry(change).or_default() += times;
            }
        }
        if !outside.is_empty() {
            let ids: Vec<&str> = outside.iter().map(|&at| plan.attempts()[at].id.as_str()).collect();
            let (found, _) = appended::unindexed(folder, &ids, plan.attempts().len());
            for (&at, found) in outside.iter().zip(found) {
                done.count(&plan.attempts()[at].id, &Counted::of(&found));
                if let Found::Record(entry) = &found {
                    done.record(plan, at, entry, programs);
                }
            }
        }
        done.status.invalid.sort();
        // The previous plan's attempts that left this one (a slot not taken may be a twin of one that was).
        let unmatched: Vec<usize> = (0..matched.len()).filter(|&place| !matched[place]).collect();
        let previous: Vec<String> = if unmatched.is_empty() {
            Vec::new()
        } else {
            let planned: HashSet<[u8; 32]> =
                plan.attempts().iter().filter_map(|attempt| id_digest(&attempt.id)).collect();
            unmatched
                .into_iter()
                .map(|place| tally.slots[place].id)
                .filter(|id| !planned.contains(id))
                .take(CHANGE_SAMPLE)
                .map(|id| id_of(&id))
                .collect()
        };
        done.changed_workers = changed_workers_among(plan, folder, state_dir, &previous);
        Some(done)
    }

    /// What a reading of the whole index says (the folder's entries made on the way), with the workers that
    /// changed read from the previous plan beside it.
    fn by_reading(plan: &CampaignPlan<'_>, folder: &Path, state_dir: &Path, programs: &ProgramCheck) -> Done {
        let ids: Vec<&str> = plan.attempts().iter().map(|attempt| attempt.id.as_str()).collect();
        let done = Mutex::new(Done {
            status: Status::default(),
            nanos: (0, 0),
            shared_done: 0,
            changed_programs: BTreeMap::new(),
            changed_workers: Vec::new(),
        });
        let (status, changed_workers) = std::thread::scope(|scope| {
            let changed = scope.spawn(|| changed_workers(plan, folder, state_dir));
            let status = Status::scan(folder, plan.name(), &ids, Rebuild::NewPart, Check::Entries, |at, entry| {
                done.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).record(plan, at, entry, programs);
            });
            (status, changed.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
        });
        let done = done.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner());
        Done { status, changed_workers, ..done }
    }

    /// Counts the planned attempt `id` as `counted`.
    fn count(&mut self, id: &str, counted: &Counted) {
        match counted {
            Counted::Invalid(reason) => self.status.invalid.push((id.to_owned(), reason.clone())),
            counted => self.status.add(counted, 1),
        }
    }

    /// Takes in the record of the planned attempt `at` (its index entry): counted once, by its first cell, where
    /// another cell's attempt serves it; otherwise its program changes and its wall time.
    fn record(&mut self, plan: &CampaignPlan<'_>, at: usize, entry: &IndexEntry, programs: &ProgramCheck) {
        if plan.attempts()[at].shared_with.is_some() {
            self.shared_done += usize::from(entry.outcome != Outcome::Cancelled);
            return;
        }
        for change in programs.changes(plan, entry) {
            *self.changed_programs.entry(change).or_default() += 1;
        }
        self.took(wall_nanos(entry));
    }

    /// Adds a done attempt's wall time to the estimate's, where its record says one ([`NONE_NANOS`] otherwise).
    fn took(&mut self, nanos: u64) {
        if nanos != NONE_NANOS {
            self.nanos = (self.nanos.0 + u128::from(nanos), self.nanos.1 + 1);
        }
    }
}
