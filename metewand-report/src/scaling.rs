//! How each implementation's time scales with a numeric key of a dataset grid: its cells' median times against the
//! key's values, fitted as `time ∝ key^b` by least squares in log-log over the points' medians, with a bootstrap
//! interval of `b` (each point's repetitions resampled, 2000 times, seeded): "cholesky time ∝ rows^1.02 [0.96, 1.09]".
//! A series is one grid, one key and the grid's other keys held at one value each; it needs 3 points or more.
//!
//! The plots ([`plots`]) show what the exponents summarise: per numeric key, the time against the key (the median
//! per implementation with the bootstrap interval of each point's median as a band), the peak memory and each
//! numeric metric whose medians vary along the key; a point with failed or timed-out attempts is marked, not
//! dropped. A non-numeric key has no axis: its values are grouped rows of a table ([`grouped`]).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::report::CellRow;
use crate::stats::{BOOTSTRAP_RESAMPLES, SplitMix64, median, quantile, seed_for};

/// The fewest points a series is fitted over.
pub const SCALING_POINTS: usize = 3;

/// One implementation's fitted exponent along one key of one grid.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Exponent {
    /// The implementation.
    pub implementation: String,
    /// The grid, with its other keys' values where it has more than one (`sweep`, `sweep[columns=20]`).
    pub grid: String,
    /// The key the time is fitted against.
    pub key: String,
    /// The fitted exponent.
    pub exponent: f64,
    /// Its bootstrap 95% interval.
    pub low: f64,
    /// Its upper end.
    pub high: f64,
    /// The points fitted over.
    pub points: usize,
}

/// A series: its grid (with the other keys' values), its key and the implementation.
type Series = (String, String, String);
/// A point of a series: the key's value and the cell's times, sorted.
type Point<'r> = (f64, &'r [f64]);

/// The exponents of every series of `rows` (a problem's cells).
pub fn exponents(rows: &[CellRow]) -> Vec<Exponent> {
    let mut series: BTreeMap<Series, Vec<Point<'_>>> = BTreeMap::new();
    for row in rows.iter().filter(|row| !row.times.is_empty()) {
        let Some((base, values)) = metewand_campaign::point_values(&row.dataset) else { continue };
        for (key, value) in &values {
            let Some(x) = value.as_f64().filter(|x| *x > 0.0) else { continue };
            let others: Vec<String> = values
                .iter()
                .filter(|(other, _)| other != key)
                .map(|(other, value)| format!("{other}={}", canonical(value)))
                .collect();
            let grid = if others.is_empty() { base.to_owned() } else { format!("{base}[{}]", others.join(",")) };
            series.entry((grid, key.clone(), row.implementation.clone())).or_default().push((x, &row.times));
        }
    }
    let mut found = Vec::new();
    for ((grid, key, implementation), mut points) in series {
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        if points.len() < SCALING_POINTS {
            continue;
        }
        let medians: Vec<f64> = points.iter().filter_map(|(_, times)| median(times)).collect();
        let xs: Vec<f64> = points.iter().map(|(x, _)| x.ln()).collect();
        let Some(exponent) = slope(&xs, &medians) else { continue };
        let mut rng = SplitMix64::new(seed_for(&format!("{grid}\0{key}\0{implementation}")));
        let mut slopes: Vec<f64> = (0..BOOTSTRAP_RESAMPLES)
            .filter_map(|_| {
                let drawn: Vec<f64> = points
                    .iter()
                    .map(|(_, times)| {
                        let mut resample: Vec<f64> = (0..times.len()).map(|_| times[rng.below(times.len())]).collect();
                        resample.sort_by(f64::total_cmp);
                        median(&resample).unwrap_or(f64::NAN)
                    })
                    .collect();
                slope(&xs, &drawn)
            })
            .collect();
        slopes.sort_by(f64::total_cmp);
        let (Some(low), Some(high)) = (quantile(&slopes, 0.025), quantile(&slopes, 0.975)) else { continue };
        found.push(Exponent { implementation, grid, key, exponent, low, high, points: points.len() });
    }
    found
}

/// The least-squares slope of `ln y` against `xs` (already logarithms); `None` without two distinct `xs` or with a
/// time that is not positive.
fn slope(xs: &[f64], ys: &[f64]) -> Option<f64> {
    if ys.iter().any(|y| y.is_nan() || *y <= 0.0) {
        return None;
    }
    let ys: Vec<f64> = ys.iter().map(|y| y.ln()).collect();
    let n = xs.len() as f64;
    let (mean_x, mean_y) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let sxx: f64 = xs.iter().map(|x| (x - mean_x).powi(2)).sum();
    let sxy: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mean_x) * (y - mean_y)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

fn canonical(value: &Value) -> String {
    metewand_protocol::to_canonical_string(value)
}

/// What a scaling plot shows against its key.
#[derive(Clone, Debug, PartialEq)]
pub enum Quantity {
    /// The ranked time's median, with the bootstrap interval of the median.
    Time,
    /// The implementation's peak resident memory's median.
    Memory,
    /// A numeric metric's median (its index in the problem's metrics, and its name).
    Metric(usize, String),
}

/// One quantity against one key of one grid, a series per implementation.
#[derive(Clone, Debug, PartialEq)]
pub struct ScalingPlot {
    /// The grid, with its other keys' values where it has more than one.
    pub grid: String,
    /// The key.
    pub key: String,
    /// What is plotted against it.
    pub quantity: Quantity,
    /// One series per implementation, in the rows' order.
    pub series: Vec<ScalingSeries>,
}

/// One implementation's points along a key.
#[derive(Clone, Debug, PartialEq)]
pub struct ScalingSeries {
    /// The implementation.
    pub implementation: String,
    /// Its points, by the key's value.
    pub points: Vec<ScalingPoint>,
}

/// One cell of a series.
#[derive(Clone, Debug, PartialEq)]
pub struct ScalingPoint {
    /// The key's value.
    pub x: f64,
    /// The quantity's median (none where no attempt gave one: all failed).
    pub median: Option<f64>,
    /// The band's lower end (the time's bootstrap interval; the median for other quantities).
    pub low: Option<f64>,
    /// Its upper end.
    pub high: Option<f64>,
    /// Attempts that failed (a timeout is a failure).
    pub failed: usize,
    /// Attempts with a terminal record.
    pub attempts: usize,
}

/// The cells of `rows` grouped by grid (with its other keys' values), key and implementation, along each key whose
/// value is a positive number (`numeric`) or is not a number at all (`!numeric`).
fn along(rows: &[CellRow], numeric: bool) -> BTreeMap<(String, String), Vec<(&CellRow, Value)>> {
    let mut found: BTreeMap<(String, String), Vec<(&CellRow, Value)>> = BTreeMap::new();
    for row in rows {
        let Some((base, values)) = metewand_campaign::point_values(&row.dataset) else { continue };
        for (key, value) in &values {
            // A number that is not positive has no place on a log axis, nor among the named values.
            let wanted = if numeric { value.as_f64().is_some_and(|x| x > 0.0) } else { !value.is_number() };
            if !wanted {
                continue;
            }
            let others: Vec<String> = values
                .iter()
                .filter(|(other, _)| other != key)
                .map(|(other, value)| format!("{other}={}", canonical(value)))
                .collect();
            let grid = if others.is_empty() { base.to_owned() } else { format!("{base}[{}]", others.join(",")) };
            found.entry((grid, key.clone())).or_default().push((row, value.clone()));
        }
    }
    found
}

/// The scaling plots of a problem's cells (`rows`; `metrics` the problem's metric names): per grid and numeric
/// key with two values or more, the time, then the peak memory and each metric where their medians vary.
pub fn plots(rows: &[CellRow], metrics: &[String]) -> Vec<ScalingPlot> {
    let mut plots = Vec::new();
    for ((grid, key), cells) in along(rows, true) {
        let mut quantities = vec![Quantity::Time, Quantity::Memory];
        quantities.extend(metrics.iter().enumerate().map(|(index, name)| Quantity::Metric(index, name.clone())));
        for quantity in quantities {
            let mut series: Vec<ScalingSeries> = Vec::new();
            for (row, value) in &cells {
                let point = point(row, value.as_f64().unwrap_or(0.0), &quantity);
                match series.iter_mut().find(|series| series.implementation == row.implementation) {
                    Some(series) => series.points.push(point),
                    None => {
                        series.push(ScalingSeries { implementation: row.implementation.clone(), points: vec![point] })
                    }
                }
            }
            for series in &mut series {
                series.points.sort_by(|a, b| a.x.total_cmp(&b.x));
            }
            let two = series.iter().any(|series| series.points.len() >= 2);
            let medians = || series.iter().flat_map(|series| series.points.iter().filter_map(|point| point.median));
            let varies = medians().any(|a| medians().any(|b| a != b));
            if two && (quantity == Quantity::Time || varies) {
                plots.push(ScalingPlot { grid: grid.clone(), key: key.clone(), quantity, series });
            }
        }
    }
    plots
}

fn point(row: &CellRow, x: f64, quantity: &Quantity) -> ScalingPoint {
    let (median, low, high) = match quantity {
        Quantity::Time => match &row.timed_seconds {
            Some(summary) => (Some(summary.median), Some(summary.ci_low), Some(summary.ci_high)),
            None => (None, None, None),
        },
        Quantity::Memory => (row.memory_median, row.memory_median, row.memory_median),
        Quantity::Metric(index, _) => {
            let value = row.metric_medians.get(*index).copied().flatten();
            (value, value, value)
        }
    };
    ScalingPoint { x, median, low, high, failed: row.failed, attempts: row.attempts }
}

/// One row of a non-numeric key's table: a cell of the grid at one of the key's values.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupedRow {
    /// The grid, with its other keys' values.
    pub grid: String,
    /// The key.
    pub key: String,
    /// The key's value, as canonical JSON.
    pub value: String,
    /// The cell.
    pub row: CellRow,
}

/// The cells of each non-numeric key of a dataset grid, grouped by grid and key and ordered by the key's value.
pub fn grouped(rows: &[CellRow]) -> Vec<GroupedRow> {
    let mut found = Vec::new();
    for ((grid, key), mut cells) in along(rows, false) {
        cells.sort_by_key(|(row, value)| (canonical(value), row.implementation.clone()));
        for (row, value) in cells {
            found.push(GroupedRow { grid: grid.clone(), key: key.clone(), value: canonical(&value), row: row.clone() });
        }
    }
    found
}
