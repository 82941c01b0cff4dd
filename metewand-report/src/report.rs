//! The report of campaign folders as data: the plan against what was done, failures by role, phase and kind, per
//! problem the ranking, the implementation × dataset table and the performance profiles, the environment and the
//! identities.
//! [`crate::html`] and [`crate::text`] render it; `--format json` is its serialization.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};
use std::time::SystemTime;

use metewand_campaign::Environment;
use metewand_campaign::parallel::map_parallel;
use metewand_protocol::generated::attempt_record::Outcome;
use serde::Serialize;

use crate::load::{Attempt, Identities, Recorded, Records};
use crate::measure::Measure;
use crate::profile::Profile;
use crate::ranks::Ranking;
use crate::stats::{Summary, median, seed_for};

/// One campaign folder against its plan.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CampaignSummary {
    /// The folder, as given.
    pub folder: String,
    /// The folder relative to where the report is written (for links).
    pub link: String,
    /// The campaign's name.
    pub name: String,
    /// The repository.
    pub repository: String,
    /// Attempts in the plan.
    pub planned: usize,
    /// Attempts with a terminal record.
    pub done: usize,
    /// Records by outcome (`cancelled` included).
    pub by_outcome: BTreeMap<String, usize>,
    /// Attempts with no folder.
    pub never_started: usize,
    /// Attempt folders without a record.
    pub unfinished: usize,
    /// Cancelled attempts (run again by a resume).
    pub cancelled: usize,
    /// Records whose implementation's session served earlier attempts too (`--sessions reuse`): their times are
    /// reused sessions', which pay no start-up and may keep state between attempts.
    pub reused: usize,
}

impl CampaignSummary {
    /// Planned attempts without a terminal record.
    pub fn missing(&self) -> usize {
        self.planned - self.done
    }

    /// How the records' implementation sessions served them: `fresh`, `reused`, or both with their counts.
    pub fn sessions(&self) -> String {
        let recorded: usize = self.by_outcome.values().sum();
        match (self.reused, recorded - self.reused) {
            (0, _) => "fresh".to_owned(),
            (_, 0) => "reused".to_owned(),
            (reused, fresh) => format!("{fresh} fresh, {reused} reused"),
        }
    }
}

/// One failed (or cancelled) attempt, with links relative to where the report is written.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FailedAttempt {
    /// The attempt id.
    pub id: String,
    /// `problem / dataset#seed / implementation#seed r<repetition>`.
    pub label: String,
    /// The record's message.
    pub message: String,
    /// The record.
    pub record: String,
    /// The failing session's log, when there is one.
    pub log: Option<String>,
}

/// Failures of one role, phase and kind.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FailureGroup {
    /// The role, or `none`.
    pub role: String,
    /// The phase, or `none`.
    pub phase: String,
    /// The kind.
    pub kind: String,
    /// The attempts, in plan order.
    pub attempts: Vec<FailedAttempt>,
}

/// One implementation on one dataset, over every seed and repetition.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CellRow {
    /// The implementation.
    pub implementation: String,
    /// The dataset.
    pub dataset: String,
    /// Planned attempts.
    pub planned: usize,
    /// Attempts with a terminal record.
    pub attempts: usize,
    /// Outcome `reached`.
    pub reached: usize,
    /// Outcome `not_reached`.
    pub not_reached: usize,
    /// Outcome `not_required`.
    pub not_required: usize,
    /// Outcome `invalid`.
    pub invalid: usize,
    /// Outcome `failed`.
    pub failed: usize,
    /// Cancelled attempts.
    pub cancelled: usize,
    /// Planned attempts without a terminal record (never started, unfinished or cancelled).
    pub missing: usize,
    /// `reached` and `not_required` over attempts with a terminal record.
    pub success_rate: Option<f64>,
    /// The time the problem ranks by ([`ProblemSection::timed`]), in seconds, of the attempts with a verdict:
    /// median, quartiles, bootstrap interval.
    pub timed_seconds: Option<Summary>,
    /// The medians of the implementation's start-up (`hello`), `prepare` and `execute`, in seconds, over the
    /// attempts with a verdict: side by side, whatever is ranked.
    pub phase_medians: [Option<f64>; 3],
    /// The median CPU time (user and system) of the implementation's session, in seconds, over the attempts with a
    /// verdict whose session ended cleanly: whatever is ranked.
    pub cpu_seconds_median: Option<f64>,
    /// The median of the implementation's peak resident memory, in bytes, over the same attempts.
    pub peak_memory_bytes_median: Option<f64>,
    /// The median of each numeric metric of [`ProblemSection::metrics`] over the attempts that have it.
    pub metric_medians: Vec<Option<f64>>,
    /// The smallest relative difference of medians the cell resolves: the half-width of the bootstrap 95% interval
    /// of its median over the median. `None` with fewer than [`RESOLVING_ATTEMPTS`] timed attempts, which no test
    /// against a cell like it can separate at all, or without a positive median.
    pub resolution: Option<f64>,
    /// The median of the implementation's peak resident memory, in bytes, over the attempts with a terminal
    /// record that report it (for the scaling plots).
    #[serde(skip)]
    pub memory_median: Option<f64>,
    /// The ranked times themselves, ascending (for the plots).
    #[serde(skip)]
    pub times: Vec<f64>,
    /// What makes its times doubtful ([`crate::stats::noise_of`]): outliers, a high coefficient of variation.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub noise: Vec<String>,
}

/// One problem's table and profiles.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProblemSection {
    /// The problem.
    pub problem: String,
    /// What its implementations are ranked by: `execute`, or `prepare+execute` (its records' `problem.timed`;
    /// when they differ, as after the repository changed it, `mixed`, and each attempt is timed by its own).
    pub timed: String,
    /// What its implementations are ranked, tabulated and profiled by (`--measure`): wall time unless said.
    #[serde(skip_serializing_if = "Measure::is_wall")]
    pub measure: Measure,
    /// The numeric metrics its records have.
    pub metrics: Vec<String>,
    /// Implementation × dataset, in the plans' order (implementation first).
    pub rows: Vec<CellRow>,
    /// Performance profiles of time to `reached`.
    pub profile: Profile,
    /// Implementations, in order (the profile's series and the plots' rows).
    pub implementations: Vec<String>,
    /// Datasets, in order.
    pub datasets: Vec<String>,
    /// Its implementations' mean ranks over instances with their intervals, and the pairs no test separates (none
    /// without an instance).
    pub ranking: Option<Ranking>,
    /// Each numeric metric of the streamed attempts' checkpoints against time (none without a streamed attempt).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub curves: Vec<crate::curves::MetricCurves>,
    /// The problem's `tolerance` parameter, where it has a numeric one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
    /// Per dataset and implementation, how many attempts reached and their median time to it (only beside curves).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub to_tolerance: Vec<crate::curves::ToTolerance>,
    /// How each implementation's time scales along each numeric key of a dataset grid (none without a grid of 3
    /// points or more).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scaling: Vec<crate::scaling::Exponent>,
    /// The pairs of implementations some instance's repetitions leave undecided (two-sided Mann–Whitney over the
    /// repetitions, Holm-adjusted within the instance, at 0.05), in plan order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub undecided: Vec<crate::decide::UndecidedPair>,
}

/// One environment a folder's runs ran in, with the runs that share it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EnvironmentEntry {
    /// The folder.
    pub folder: String,
    /// When each run with this environment started, and its `-j`.
    pub runs: Vec<(String, u64)>,
    /// The environment.
    pub environment: Environment,
}

/// A whole report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// Each folder against its plan.
    pub campaigns: Vec<CampaignSummary>,
    /// Failures (and cancellations) by role, phase and kind.
    pub failures: Vec<FailureGroup>,
    /// Per problem.
    pub problems: Vec<ProblemSection>,
    /// The distinct environments of each folder's runs.
    pub environments: Vec<EnvironmentEntry>,
    /// The identities the records name.
    pub identities: Identities,
    /// The digest of the bundle's manifest, for a report of the campaigns of a bundle.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bundle: Option<String>,
    /// What implementations are ranked, tabulated and compared by (`--measure`): wall time unless said.
    #[serde(skip_serializing_if = "Measure::is_wall")]
    pub measure: Measure,
}

impl Report {
    /// The report of `records`, its links relative to the folder `base` (where the report is written; `None`
    /// links to the folders as given).
    pub fn new(records: &Records, base: Option<&Path>) -> Report {
        let links: Vec<String> = records
            .folders
            .iter()
            .map(|folder| match base {
                Some(base) => relative(base, &folder.path),
                None => folder.path.to_string_lossy().into_owned(),
            })
            .collect();
        let mut campaigns: Vec<CampaignSummary> = records
            .folders
            .iter()
            .zip(&links)
            .map(|(folder, link)| CampaignSummary {
                folder: folder.path.to_string_lossy().into_owned(),
                link: link.clone(),
                name: folder.name.clone(),
                repository: folder.repository.clone(),
                planned: folder.planned,
                done: 0,
                by_outcome: BTreeMap::new(),
                never_started: folder.never_started,
                unfinished: folder.unfinished,
                cancelled: 0,
                reused: 0,
            })
            .collect();
        let mut failures: BTreeMap<(String, String, String), Vec<FailedAttempt>> = BTreeMap::new();
        for (attempt, record) in records.recorded() {
            let summary = &mut campaigns[attempt.folder as usize];
            *summary.by_outcome.entry(record.outcome.to_string()).or_default() += 1;
            summary.reused += usize::from(record.reused);
            if record.terminal() {
                summary.done += 1;
            } else {
                summary.cancelled += 1;
            }
            if let Some(failure) = &record.failure {
                let link = &links[attempt.folder as usize];
                let join = |inner: &str| format!("{link}/{inner}");
                failures
                    .entry((
                        failure.role.clone().unwrap_or_else(|| "none".to_owned()),
                        failure.phase.clone().unwrap_or_else(|| "none".to_owned()),
                        failure.kind.clone(),
                    ))
                    .or_default()
                    .push(FailedAttempt {
                        id: attempt.id.to_string(),
                        label: format!(
                            "{} / {}#{} / {}#{} r{}",
                            records.problems[attempt.problem as usize],
                            records.datasets[attempt.dataset as usize],
                            attempt.dataset_seed,
                            records.implementations[attempt.implementation as usize],
                            attempt.implementation_seed,
                            attempt.repetition
                        ),
                        message: failure.message.clone(),
                        record: join(&format!("attempts/{}/attempt.json", attempt.id)),
                        log: failure.log.as_deref().map(join),
                    });
            }
        }
        let failures = failures
            .into_iter()
            .map(|((role, phase, kind), attempts)| FailureGroup { role, phase, kind, attempts })
            .collect();
        let problems = (0..records.problems.len()).map(|problem| section(records, problem as u32)).collect();
        let mut environments: Vec<EnvironmentEntry> = Vec::new();
        for folder in &records.folders {
            let folder_name = folder.path.to_string_lossy().into_owned();
            let first = environments.len();
            for run in &folder.runs {
                match environments[first..].iter_mut().find(|entry| entry.environment == run.environment) {
                    Some(entry) => entry.runs.push((run.started_at.to_string(), run.concurrency.get())),
                    None => environments.push(EnvironmentEntry {
                        folder: folder_name.clone(),
                        runs: vec![(run.started_at.to_string(), run.concurrency.get())],
                        environment: run.environment.clone(),
                    }),
                }
            }
        }
        Report {
            campaigns,
            failures,
            problems,
            environments,
            identities: records.identities.clone(),
            bundle: None,
            measure: records.measure,
        }
    }

    /// The report of the campaigns of a bundle, which names the bundle by its manifest's SHA-256 among the
    /// identities.
    pub fn of_bundle(mut self, manifest_sha256: impl Into<String>) -> Report {
        self.bundle = Some(manifest_sha256.into());
        // The folders were unpacked in a temporary folder, gone once the report is written: each is named as bundled.
        for campaign in &mut self.campaigns {
            for entry in self.environments.iter_mut().filter(|entry| entry.folder == campaign.folder) {
                entry.folder.clone_from(&campaign.link);
            }
            campaign.folder.clone_from(&campaign.link);
        }
        self
    }

    /// Planned attempts without a terminal record, over every folder.
    pub fn missing(&self) -> usize {
        self.campaigns.iter().map(CampaignSummary::missing).sum()
    }

    /// Attempts recorded `failed`, over every folder.
    pub fn failed(&self) -> usize {
        self.campaigns.iter().map(|campaign| campaign.by_outcome.get("failed").copied().unwrap_or(0)).sum()
    }

    /// Failed attempts the benchmark's own workers failed (its dataset materializer or problem evaluator), not the
    /// implementation under test.
    pub fn benchmark_failures(&self) -> usize {
        self.failures
            .iter()
            .filter(|group| {
                group.kind != "cancelled" && matches!(group.role.as_str(), "dataset_materializer" | "problem_evaluator")
            })
            .map(|group| group.attempts.len())
            .sum()
    }

    /// Planned attempts, over every folder.
    pub fn planned(&self) -> usize {
        self.campaigns.iter().map(|campaign| campaign.planned).sum()
    }

    /// The report's title: the campaigns' names.
    pub fn title(&self) -> String {
        let names: Vec<&str> = self.campaigns.iter().map(|campaign| campaign.name.as_str()).collect();
        match self.measure {
            Measure::Wall => format!("campaign {}", names.join(", ")),
            measure => format!("campaign {}, ranked by {}", names.join(", "), measure.describe()),
        }
    }
}

/// The fewest timed attempts whose cell can resolve any difference: the exact Mann–Whitney test of two cells of 4
/// attempts can reach p < 0.05 ([`crate::stats::smallest_p`]), of 3 cannot.
pub const RESOLVING_ATTEMPTS: usize = 4;

/// The resolution of a cell of `summary` ([`CellRow::resolution`]).
pub fn resolution(summary: &Summary) -> Option<f64> {
    (summary.n >= RESOLVING_ATTEMPTS && summary.median > 0.0)
        .then(|| (summary.ci_high - summary.ci_low) / 2.0 / summary.median)
}

/// One problem's section.
fn section(records: &Records, problem: u32) -> ProblemSection {
    let of_problem: Vec<_> = records.attempts.iter().filter(|attempt| attempt.problem == problem).collect();
    let mut implementations: Vec<u32> = Vec::new();
    let mut datasets: Vec<u32> = Vec::new();
    for attempt in &of_problem {
        if !implementations.contains(&attempt.implementation) {
            implementations.push(attempt.implementation);
        }
        if !datasets.contains(&attempt.dataset) {
            datasets.push(attempt.dataset);
        }
    }
    let metric_indices: Vec<u32> = {
        let mut seen: Vec<u32> = of_problem
            .iter()
            .filter_map(|attempt| attempt.record.as_ref())
            .flat_map(|record| record.metrics.iter().map(|(index, _)| *index))
            .collect();
        seen.sort_unstable();
        seen.dedup();
        seen
    };
    let problem_name = &records.problems[problem as usize];
    // Distinct before they are named: a name made per record would be a million allocations at a million.
    let mut distinct = Vec::new();
    for record in of_problem.iter().filter_map(|attempt| attempt.record.as_ref()) {
        if !distinct.contains(&record.timed) {
            distinct.push(record.timed);
        }
    }
    let mut measures: Vec<String> = distinct.iter().map(ToString::to_string).collect();
    measures.sort();
    let timed = match measures.as_slice() {
        [] => "execute".to_owned(),
        [one] => one.clone(),
        _ => "mixed".to_owned(),
    };
    let mut cells: BTreeMap<(usize, usize), Vec<&Attempt>> = BTreeMap::new();
    for attempt in &of_problem {
        let row = implementations.iter().position(|&i| i == attempt.implementation).unwrap_or(0);
        let column = datasets.iter().position(|&d| d == attempt.dataset).unwrap_or(0);
        cells.entry((row, column)).or_default().push(attempt);
    }
    let cells: Vec<_> = cells.into_iter().collect();
    let rows = map_parallel(&cells, |((row, column), cell)| {
        let implementation_name = &records.implementations[implementations[*row] as usize];
        let dataset_name = &records.datasets[datasets[*column] as usize];
        let count = |outcome: Outcome| {
            cell.iter().filter(|attempt| attempt.record.as_ref().is_some_and(|r| r.outcome == outcome)).count()
        };
        let attempts = cell.iter().filter(|attempt| attempt.record.as_ref().is_some_and(|r| r.terminal())).count();
        let (reached, not_required) = (count(Outcome::Reached), count(Outcome::NotRequired));
        let mut times: Vec<f64> = cell.iter().filter_map(|attempt| attempt.record.as_ref()?.timed_seconds).collect();
        let phase_medians: [Option<f64>; 3] = std::array::from_fn(|index| {
            let mut values: Vec<f64> =
                cell.iter().filter_map(|attempt| attempt.record.as_ref()?.phase_seconds[index]).collect();
            values.sort_by(f64::total_cmp);
            median(&values)
        });
        times.sort_by(f64::total_cmp);
        let judged: Vec<&Recorded> = cell
            .iter()
            .filter_map(|attempt| attempt.record.as_ref())
            .filter(|record| record.verdict.is_some())
            .collect();
        let median_of = |value: fn(&Recorded) -> Option<f64>| {
            let mut values: Vec<f64> = judged.iter().filter_map(|record| value(record)).collect();
            values.sort_by(f64::total_cmp);
            median(&values)
        };
        let label = format!("{problem_name}\0{implementation_name}\0{dataset_name}");
        let metric_medians = metric_indices
            .iter()
            .map(|&metric| {
                let mut values: Vec<f64> = cell
                    .iter()
                    .filter_map(|attempt| attempt.record.as_ref())
                    .filter(|record| record.terminal())
                    .flat_map(|record| record.metrics.iter().filter(|(index, _)| *index == metric))
                    .map(|(_, value)| *value)
                    .collect();
                values.sort_by(f64::total_cmp);
                median(&values)
            })
            .collect();
        let summary = Summary::of(&times, seed_for(&label));
        CellRow {
            implementation: implementation_name.clone(),
            dataset: dataset_name.clone(),
            planned: cell.len(),
            attempts,
            reached,
            not_reached: count(Outcome::NotReached),
            not_required,
            invalid: count(Outcome::Invalid),
            failed: count(Outcome::Failed),
            cancelled: count(Outcome::Cancelled),
            missing: cell.len() - attempts,
            success_rate: (attempts > 0).then(|| (reached + not_required) as f64 / attempts as f64),
            resolution: summary.as_ref().and_then(resolution),
            timed_seconds: summary,
            phase_medians,
            cpu_seconds_median: median_of(|record| record.cpu_seconds),
            peak_memory_bytes_median: median_of(|record| record.peak_memory_bytes.map(|bytes| bytes as f64)),
            metric_medians,
            memory_median: {
                let mut values: Vec<f64> = cell
                    .iter()
                    .filter_map(|attempt| attempt.record.as_ref())
                    .filter(|record| record.terminal())
                    .filter_map(|record| record.peak_memory_bytes.map(|bytes| bytes as f64))
                    .collect();
                values.sort_by(f64::total_cmp);
                median(&values)
            },
            noise: crate::stats::noise_of(&times).into_iter().chain(drift(cell)).collect(),
            times,
        }
    });
    let (times, judged_times) = instance_times(&of_problem, &implementations);
    let implementation_names: Vec<String> =
        implementations.iter().map(|&i| records.implementations[i as usize].clone()).collect();
    let curves = crate::curves::curves(records, &of_problem, &implementations, &datasets);
    let to_tolerance = if curves.is_empty() {
        Vec::new()
    } else {
        crate::curves::to_tolerance(records, &of_problem, &implementations, &datasets)
    };
    ProblemSection {
        curves,
        tolerance: records.tolerances.get(problem as usize).copied().flatten(),
        to_tolerance,
        scaling: crate::scaling::exponents(&rows),
        undecided: crate::decide::undecided_pairs(records, problem, crate::stats::ALPHA),
        problem: problem_name.clone(),
        metrics: metric_indices.iter().map(|&index| records.metrics[index as usize].clone()).collect(),
        timed,
        measure: records.measure,
        rows,
        profile: Profile::new(&implementation_names, &times),
        ranking: Ranking::new(&implementation_names, &judged_times, seed_for(&format!("{problem_name}\0ranking"))),
        implementations: implementation_names,
        datasets: datasets.iter().map(|&d| records.datasets[d as usize].clone()).collect(),
    }
}

/// The times of each implementation (rows, in the order of `implementations`) on each instance (a dataset and
/// dataset seed, in plan order), over its terminal attempts there: for the profile, each attempt's time to
/// `reached` (`None` where it did not reach); for the ranking, the ranked times of the attempts that reached,
/// sorted.
type InstanceTimes = (Vec<Vec<Vec<Option<f64>>>>, Vec<Vec<Vec<f64>>>);

/// [`InstanceTimes`] of one problem's attempts.
fn instance_times(of_problem: &[&Attempt], implementations: &[u32]) -> InstanceTimes {
    // A failure of the benchmark's own workers says nothing of the implementations: an instance whose dataset could
    // not be made, or whose evaluator judged no attempt there, is left out of the profile, where it would count as
    // infinitely slow for whichever implementation met it. An evaluator that failed on some implementations' results
    // but judged others' there was broken by those results: those implementations did not solve the instance (their
    // time is infinite), and it stays in every profile (DESIGN §24).
    let failed_role = |attempt: &Attempt| {
        let failure = attempt.record.as_ref().and_then(|record| record.failure.as_ref());
        failure.and_then(|failure| failure.role.clone())
    };
    let judged: BTreeSet<(u32, u64)> = of_problem
        .iter()
        .filter(|attempt| attempt.record.as_ref().is_some_and(|record| record.verdict.is_some()))
        .map(|attempt| (attempt.dataset, attempt.dataset_seed))
        .collect();
    let excluded: BTreeSet<(u32, u64)> = of_problem
        .iter()
        .filter(|attempt| match failed_role(attempt).as_deref() {
            Some("dataset_materializer") => true,
            Some("problem_evaluator") => !judged.contains(&(attempt.dataset, attempt.dataset_seed)),
            _ => false,
        })
        .map(|attempt| (attempt.dataset, attempt.dataset_seed))
        .collect();
    // Instances: (dataset, dataset seed) pairs, in plan order.
    let mut instances: Vec<(u32, u64)> = Vec::new();
    for attempt in of_problem {
        if excluded.contains(&(attempt.dataset, attempt.dataset_seed)) {
            continue;
        }
        if !instances.contains(&(attempt.dataset, attempt.dataset_seed)) {
            instances.push((attempt.dataset, attempt.dataset_seed));
        }
    }
    let instance_index: BTreeMap<(u32, u64), usize> =
        instances.iter().enumerate().map(|(index, instance)| (*instance, index)).collect();
    let mut times: Vec<Vec<Vec<Option<f64>>>> = vec![vec![Vec::new(); instances.len()]; implementations.len()];
    // The ranked times of the attempts that reached, per implementation and instance, for the ranking.
    let mut judged_times: Vec<Vec<Vec<f64>>> = vec![vec![Vec::new(); instances.len()]; implementations.len()];
    for attempt in of_problem {
        let Some(record) = attempt.record.as_ref().filter(|record| record.terminal()) else { continue };
        let Some(&instance) = instance_index.get(&(attempt.dataset, attempt.dataset_seed)) else { continue };
        let row = implementations.iter().position(|&i| i == attempt.implementation).unwrap_or(0);
        let time = record.reached_seconds;
        times[row][instance].push(time);
        // Ranked by speed among answers that solved the instance: one that did not reach ranks last there.
        judged_times[row][instance].extend(record.ranked_seconds());
    }
    for cell in judged_times.iter_mut().flatten() {
        cell.sort_by(f64::total_cmp);
    }
    (times, judged_times)
}

/// `target` relative to the folder `base`, both made absolute (and canonical where they exist); `.` separators
/// as `/`. Falls back to `target` as given when it cannot be made relative.
pub fn relative(base: &Path, target: &Path) -> String {
    let absolute = |path: &Path| -> Option<PathBuf> {
        path.canonicalize().ok().or_else(|| std::env::current_dir().ok().map(|dir| dir.join(path)))
    };
    let (Some(base), Some(target)) = (absolute(base), absolute(target)) else {
        return target.to_string_lossy().into_owned();
    };
    let base: Vec<Component<'_>> = base.components().collect();
    let target: Vec<Component<'_>> = target.components().collect();
    let common = base.iter().zip(&target).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_owned(); base.len() - common];
    parts.extend(target[common..].iter().map(|part| part.as_os_str().to_string_lossy().into_owned()));
    if parts.is_empty() { ".".to_owned() } else { parts.join("/") }
}

/// A drift of `cell`'s ranked times over the order its attempts started in ([`crate::stats::drift_of`]).
fn drift(cell: &[&Attempt]) -> Option<String> {
    let mut timed: Vec<(Option<SystemTime>, f64)> = cell
        .iter()
        .filter_map(|attempt| {
            let record = attempt.record.as_ref()?;
            Some((record.started_at, record.timed_seconds?))
        })
        .collect();
    timed.sort_by_key(|(started, _)| *started);
    crate::stats::drift_of(&timed.iter().map(|(_, time)| *time).collect::<Vec<_>>())
}
