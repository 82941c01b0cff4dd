//! How each implementation's time scales with a numeric key of a dataset grid: its cells' median times against the
//! key's values, fitted as `time ∝ key^b` by least squares in log-log over the points' medians, with a bootstrap
//! interval of `b` (each point's repetitions resampled, 2000 times, seeded): "cholesky time ∝ rows^1.02 [0.96, 1.09]".
//! A series is one grid, one key and the grid's other keys held at one value each; it needs 3 points or more.

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
