//! Convergence curves of streamed attempts, as benchopt draws them: for each metric that changes along a run, its
//! suboptimality (the distance to the best value any implementation reached on the same dataset and dataset seed)
//! against the executor's time, one panel per dataset and one series per implementation; and the time each
//! implementation took to reach the problem's tolerance.
//!
//! A series combines its attempts (every dataset seed and repetition) on a common time grid, never checkpoint by
//! checkpoint: each attempt's curve is a step function (its value at a time is that of its latest checkpoint by
//! then, and its last checkpoint's after its end), and at each time of the grid the series is the median of its
//! attempts' values with their quartiles as a band. Pooling checkpoint `n` would let the end of a curve come from
//! only the attempts that had that many checkpoints, a drop no run made. The grid is the panel's: [`GRID_POINTS`]
//! times spaced evenly on a log scale from its earliest checkpoint to its latest; a series is drawn from the time
//! every one of its attempts has a checkpoint to the time the last one ended, those two times included, so an
//! implementation with a single checkpoint is still a point.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::load::{Attempt, Records};
use crate::stats::{median, quantile};

/// How many times a panel's grid has.
pub const GRID_POINTS: usize = 48;

/// One metric's curves on one problem.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MetricCurves {
    /// The metric.
    pub metric: String,
    /// Whether lower values are better (the metric falls along most runs), so that the best is the least.
    pub lower_is_better: bool,
    /// One panel per dataset with a streamed attempt, in the plans' order.
    pub panels: Vec<Panel>,
}

/// One dataset's curves of one metric.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Panel {
    /// The dataset.
    pub dataset: String,
    /// One series per implementation that streamed on it, in the plans' order.
    pub series: Vec<CurveSeries>,
}

/// One implementation's curve on one dataset.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CurveSeries {
    /// The implementation.
    pub implementation: String,
    /// How many attempts it combines.
    pub attempts: usize,
    /// The most checkpoints any of them streamed.
    pub checkpoints: u64,
    /// Its points on the grid, by time.
    pub points: Vec<CurvePoint>,
}

/// One time of a series: the suboptimality of its attempts then.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CurvePoint {
    /// The time, in seconds.
    pub seconds: f64,
    /// The attempts' median suboptimality.
    pub median: f64,
    /// Their first quartile.
    pub q1: f64,
    /// Their third quartile.
    pub q3: f64,
}

/// How long one implementation took to reach the problem's tolerance on one dataset.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToTolerance {
    /// The implementation.
    pub implementation: String,
    /// The dataset.
    pub dataset: String,
    /// Its attempts with a terminal record (every dataset seed and repetition).
    pub attempts: usize,
    /// How many of them reached.
    pub reached: usize,
    /// The median over those of the time to the first checkpoint judged `reached` (a one-shot attempt's ranked
    /// time).
    pub median_seconds: Option<f64>,
}

/// One attempt's curve of one metric: `(seconds, value)` by checkpoint.
type Trace = Vec<(f64, f64)>;

/// The curves of the attempts of one problem (`of_problem`), each metric that changes along some attempt's run, by
/// name; panels in the order of `datasets`, series in the order of `implementations` (indexes into `records`' names).
pub fn curves(
    records: &Records,
    of_problem: &[&Attempt],
    implementations: &[u32],
    datasets: &[u32],
) -> Vec<MetricCurves> {
    let streamed: Vec<&Attempt> = of_problem
        .iter()
        .copied()
        .filter(|attempt| attempt.record.as_ref().is_some_and(|record| record.terminal() && record.streamed()))
        .collect();
    let mut metrics: Vec<&str> = streamed
        .iter()
        .filter_map(|attempt| attempt.record.as_ref())
        .flat_map(|record| record.profile.iter())
        .flat_map(|point| point.metrics.iter().map(|(name, _)| name.as_str()))
        .collect();
    metrics.sort_unstable();
    metrics.dedup();
    let mut found = Vec::new();
    for metric in metrics {
        let traces: Vec<(&Attempt, Trace)> =
            streamed.iter().map(|attempt| (*attempt, trace(attempt, metric))).collect();
        // A metric no run changes (a problem's constant, the optimum it is judged against) draws flat lines.
        let changes = |trace: &Trace| trace.windows(2).any(|pair| pair[0].1 != pair[1].1);
        if !traces.iter().any(|(_, trace)| changes(trace)) {
            continue;
        }
        let falls = traces.iter().filter(|(_, t)| t.len() > 1 && t[t.len() - 1].1 < t[0].1).count();
        let rises = traces.iter().filter(|(_, t)| t.len() > 1 && t[t.len() - 1].1 > t[0].1).count();
        let lower_is_better = falls >= rises;
        let bests = bests(records, of_problem, metric, lower_is_better);
        let mut panels = Vec::new();
        for &dataset in datasets {
            let on_dataset: Vec<&(&Attempt, Trace)> =
                traces.iter().filter(|(attempt, trace)| attempt.dataset == dataset && !trace.is_empty()).collect();
            if on_dataset.is_empty() {
                continue;
            }
            // Suboptimality against the best value reached on the same instance (dataset and dataset seed), by
            // any implementation, streamed or not.
            let subs: Vec<(&Attempt, Trace)> = on_dataset
                .iter()
                .map(|(attempt, trace)| {
                    let best = bests.get(&(attempt.dataset, attempt.dataset_seed)).copied().unwrap_or(f64::NAN);
                    let gap = |value: f64| if lower_is_better { value - best } else { best - value }.max(0.0);
                    (*attempt, trace.iter().map(|&(seconds, value)| (seconds, gap(value))).collect())
                })
                .collect();
            let grid = grid(subs.iter().map(|(_, trace)| trace));
            let mut series = Vec::new();
            for &implementation in implementations {
                let cell: Vec<&(&Attempt, Trace)> =
                    subs.iter().filter(|(attempt, _)| attempt.implementation == implementation).collect();
                if cell.is_empty() {
                    continue;
                }
                let cell_traces: Vec<&Trace> = cell.iter().map(|(_, trace)| trace).collect();
                series.push(CurveSeries {
                    implementation: records.implementations[implementation as usize].clone(),
                    attempts: cell.len(),
                    checkpoints: cell
                        .iter()
                        .filter_map(|(attempt, _)| attempt.record.as_ref())
                        .map(|record| record.profile.len() as u64)
                        .max()
                        .unwrap_or(0),
                    points: combine(&cell_traces, &grid),
                });
            }
            panels.push(Panel { dataset: records.datasets[dataset as usize].clone(), series });
        }
        found.push(MetricCurves { metric: metric.to_owned(), lower_is_better, panels });
    }
    found
}

/// An attempt's finite values of `metric`, by checkpoint.
fn trace(attempt: &Attempt, metric: &str) -> Trace {
    let Some(record) = &attempt.record else { return Vec::new() };
    let mut points: Vec<(u64, f64, f64)> = record
        .profile
        .iter()
        .filter_map(|point| {
            let &(_, value) = point.metrics.iter().find(|(name, _)| name == metric)?;
            value.is_finite().then_some((point.number, point.seconds, value))
        })
        .collect();
    points.sort_by_key(|point| point.0);
    points.into_iter().map(|(_, seconds, value)| (seconds, value)).collect()
}

/// The best value of `metric` on each instance (dataset and dataset seed): over every checkpoint of every attempt of
/// the problem there, and every final value recorded there.
fn bests(records: &Records, of_problem: &[&Attempt], metric: &str, lower_is_better: bool) -> BTreeMap<(u32, u64), f64> {
    let index = records.metrics.iter().position(|name| name == metric);
    let mut bests: BTreeMap<(u32, u64), f64> = BTreeMap::new();
    for attempt in of_problem {
        let Some(record) = attempt.record.as_ref().filter(|record| record.terminal()) else { continue };
        let finals = record.metrics.iter().filter(|(name, _)| Some(*name as usize) == index).map(|(_, value)| *value);
        let points = record
            .profile
            .iter()
            .flat_map(|point| point.metrics.iter().filter(|(name, _)| name == metric).map(|(_, value)| *value));
        for value in finals.chain(points).filter(|value| value.is_finite()) {
            let best = bests.entry((attempt.dataset, attempt.dataset_seed)).or_insert(value);
            *best = if lower_is_better { best.min(value) } else { best.max(value) };
        }
    }
    bests
}

/// [`GRID_POINTS`] times evenly spaced on a log scale from the earliest checkpoint of `traces` to the latest (one
/// time when they are one).
fn grid<'t>(traces: impl Iterator<Item = &'t Trace>) -> Vec<f64> {
    let (low, high) = traces
        .flat_map(|trace| trace.iter().map(|(seconds, _)| *seconds))
        .filter(|seconds| *seconds > 0.0)
        .fold((f64::INFINITY, 0.0_f64), |(low, high), seconds| (low.min(seconds), high.max(seconds)));
    if !low.is_finite() {
        return Vec::new();
    }
    if high <= low {
        return vec![low];
    }
    let ratio = high / low;
    (0..GRID_POINTS).map(|step| low * ratio.powf(step as f64 / (GRID_POINTS - 1) as f64)).collect()
}

/// The value of `trace`, a step function, at `seconds`: its latest checkpoint's by then (`None` before its first).
pub fn step_value(trace: &[(f64, f64)], seconds: f64) -> Option<f64> {
    trace.iter().take_while(|(at, _)| *at <= seconds).last().map(|(_, value)| *value)
}

/// The series of `traces` on `grid`: from the time all of them have begun to the time the last one ended, the two
/// included, the median and quartiles of their step values.
fn combine(traces: &[&Trace], grid: &[f64]) -> Vec<CurvePoint> {
    let start = traces.iter().filter_map(|trace| trace.first()).map(|(seconds, _)| *seconds).fold(0.0, f64::max);
    let end = traces.iter().filter_map(|trace| trace.last()).map(|(seconds, _)| *seconds).fold(0.0, f64::max);
    let mut times: Vec<f64> = grid.iter().copied().filter(|t| *t > start && *t < end).collect();
    times.push(start);
    times.push(end);
    times.sort_by(f64::total_cmp);
    times.dedup();
    times
        .into_iter()
        .filter_map(|seconds| {
            let mut values: Vec<f64> = traces.iter().filter_map(|trace| step_value(trace, seconds)).collect();
            values.sort_by(f64::total_cmp);
            Some(CurvePoint {
                seconds,
                median: median(&values)?,
                q1: quantile(&values, 0.25)?,
                q3: quantile(&values, 0.75)?,
            })
        })
        .collect()
}

/// Per implementation and dataset with a terminal record, how many attempts reached and their median time to it.
pub fn to_tolerance(
    records: &Records,
    of_problem: &[&Attempt],
    implementations: &[u32],
    datasets: &[u32],
) -> Vec<ToTolerance> {
    let mut rows = Vec::new();
    for &dataset in datasets {
        for &implementation in implementations {
            let terminal: Vec<_> = of_problem
                .iter()
                .filter(|attempt| attempt.dataset == dataset && attempt.implementation == implementation)
                .filter_map(|attempt| attempt.record.as_ref())
                .filter(|record| record.terminal())
                .collect();
            if terminal.is_empty() {
                continue;
            }
            let mut times: Vec<f64> = terminal.iter().filter_map(|record| record.reached_seconds).collect();
            times.sort_by(f64::total_cmp);
            rows.push(ToTolerance {
                implementation: records.implementations[implementation as usize].clone(),
                dataset: records.datasets[dataset as usize].clone(),
                attempts: terminal.len(),
                reached: times.len(),
                median_seconds: median(&times),
            });
        }
    }
    rows
}
