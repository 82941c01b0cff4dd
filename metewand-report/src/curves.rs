//! Convergence curves of streamed attempts: each numeric metric of a problem's checkpoints against the executor's
//! time to them, one series per implementation and dataset.
//!
//! A series pools its attempts (every dataset seed and repetition) checkpoint by checkpoint: checkpoint `n` of each
//! attempt that has it gives one time and one value, and the point is the median time against the median value,
//! with the interquartile range of the values as its band. Checkpoint `n` is the same point of an algorithm's run
//! in each repetition (an implementation checkpoints after the same work), so its times are the spread of that
//! work's cost.

use serde::Serialize;

use crate::load::{Attempt, Records};
use crate::stats::{median, quantile};

/// One metric's curves on one problem.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MetricCurves {
    /// The metric.
    pub metric: String,
    /// One series per implementation and dataset that streamed, in the plans' order (implementation first).
    pub series: Vec<CurveSeries>,
}

/// One implementation's curve on one dataset.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CurveSeries {
    /// The implementation.
    pub implementation: String,
    /// The dataset.
    pub dataset: String,
    /// How many attempts it pools.
    pub attempts: usize,
    /// Its points, by checkpoint.
    pub points: Vec<CurvePoint>,
}

/// One checkpoint of a series.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CurvePoint {
    /// The checkpoint's number.
    pub checkpoint: u64,
    /// How many attempts have it, with the metric.
    pub n: usize,
    /// The median time to it, in seconds.
    pub seconds: f64,
    /// The metric's median.
    pub median: f64,
    /// The metric's first quartile.
    pub q1: f64,
    /// The metric's third quartile.
    pub q3: f64,
}

/// The curves of the attempts of one problem (`of_problem`), each metric any checkpoint has, by name; series in
/// the order of `implementations` then `datasets` (indexes into `records`' names).
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
    metrics
        .into_iter()
        .map(|metric| {
            let mut series = Vec::new();
            for &implementation in implementations {
                for &dataset in datasets {
                    let cell: Vec<&Attempt> = streamed
                        .iter()
                        .copied()
                        .filter(|attempt| attempt.implementation == implementation && attempt.dataset == dataset)
                        .collect();
                    let points = points(&cell, metric);
                    if !points.is_empty() {
                        series.push(CurveSeries {
                            implementation: records.implementations[implementation as usize].clone(),
                            dataset: records.datasets[dataset as usize].clone(),
                            attempts: cell.len(),
                            points,
                        });
                    }
                }
            }
            MetricCurves { metric: metric.to_owned(), series }
        })
        .collect()
}

/// A cell's points for `metric`, checkpoint by checkpoint.
fn points(cell: &[&Attempt], metric: &str) -> Vec<CurvePoint> {
    let last = cell
        .iter()
        .filter_map(|attempt| attempt.record.as_ref())
        .flat_map(|record| record.profile.iter().map(|point| point.number))
        .max()
        .unwrap_or(0);
    let mut out = Vec::new();
    for number in 1..=last {
        let mut times = Vec::new();
        let mut values = Vec::new();
        for record in cell.iter().filter_map(|attempt| attempt.record.as_ref()) {
            let Some(point) = record.profile.iter().find(|point| point.number == number) else { continue };
            let Some(&(_, value)) = point.metrics.iter().find(|(name, _)| name == metric) else { continue };
            if value.is_finite() {
                times.push(point.seconds);
                values.push(value);
            }
        }
        if values.is_empty() {
            continue;
        }
        times.sort_by(f64::total_cmp);
        values.sort_by(f64::total_cmp);
        out.push(CurvePoint {
            checkpoint: number,
            n: values.len(),
            seconds: median(&times).unwrap_or(0.0),
            median: median(&values).unwrap_or(0.0),
            q1: quantile(&values, 0.25).unwrap_or(0.0),
            q3: quantile(&values, 0.75).unwrap_or(0.0),
        });
    }
    out
}
