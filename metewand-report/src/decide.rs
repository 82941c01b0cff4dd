//! Which cells of a campaign still need repetitions (`campaign run --until-decided`): within each instance (a
//! problem, a dataset and a dataset seed), every pair of cells (an implementation and an implementation seed) is
//! *separated* when the two-sided Mann–Whitney test of their ranked times, Holm-adjusted over the instance's pairs,
//! is below α; *tied* when a resolution `R` is given and the bootstrap 95% interval of the ratio of their medians
//! lies within `[1/(1+R), 1+R]` (any difference is smaller than `R`); and *undecided* otherwise. A cell with an
//! undecided pair is what another repetition is for.
//!
//! The times are those the report ranks by: the ranked time of each attempt that reached (`reached` or
//! `not_required`). A cell without one is decided against every other (more repetitions of a cell that never
//! reaches say nothing the ranking uses).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::load::{Recorded, Records};
use crate::stats::{holm, mann_whitney, ratio_of_medians, seed_for};

/// The thresholds a decision is taken with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Thresholds {
    alpha: f64,
    resolution: Option<f64>,
}

/// Why thresholds were refused.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum ThresholdError {
    /// The significance level is outside (0, 0.5].
    #[error("--alpha is a significance level in (0, 0.5], such as 0.05, not {0}")]
    Alpha(f64),
    /// The resolution is not a positive number.
    #[error("--resolution is a positive relative difference, such as 0.05 for 5%, not {0}")]
    Resolution(f64),
}

impl Thresholds {
    /// The level `alpha` (in (0, 0.5]) and, when given, the relative `resolution` (positive) under which a
    /// difference counts as a tie.
    pub fn new(alpha: f64, resolution: Option<f64>) -> Result<Thresholds, ThresholdError> {
        if !(alpha > 0.0 && alpha <= 0.5) {
            return Err(ThresholdError::Alpha(alpha));
        }
        if let Some(resolution) = resolution.filter(|r| !(r.is_finite() && *r > 0.0)) {
            return Err(ThresholdError::Resolution(resolution));
        }
        Ok(Thresholds { alpha, resolution })
    }

    /// The significance level.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// The resolution, when one was given.
    pub fn resolution(&self) -> Option<f64> {
        self.resolution
    }
}

/// A cell: problem, dataset, dataset seed, implementation, implementation seed (by name).
pub type CellKey = (String, String, u64, String, u64);

/// How a pair of cells stands.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Standing {
    /// The test separates them, with this adjusted p.
    Separated(f64),
    /// Any difference between them is below the resolution.
    Tied,
    /// Neither, with this adjusted p.
    Undecided(f64),
}

/// One pair of cells of one instance.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PairStanding {
    /// The first cell (earlier in the plan).
    pub a: CellKey,
    /// The second's implementation and implementation seed (its problem, dataset and dataset seed are `a`'s).
    pub b: (String, u64),
    /// How they stand.
    pub standing: Standing,
}

impl PairStanding {
    /// The pair in words: `problem / dataset#seed: a#0 and b#0`.
    pub fn label(&self) -> String {
        let (problem, dataset, dataset_seed, a, a_seed) = &self.a;
        format!("{problem} / {dataset}#{dataset_seed}: {a}#{a_seed} and {}#{}", self.b.0, self.b.1)
    }
}

/// An instance's cells (implementation and implementation seed, by index), in plan order, with their ranked times.
type InstanceCells = Vec<((u32, u64), Vec<f64>)>;

/// Every pair of cells of every instance, in plan order, with how each stands.
pub fn standings(records: &Records, thresholds: Thresholds) -> Vec<PairStanding> {
    // Each instance's cells, in plan order, with their ranked times.
    let mut instances: BTreeMap<(u32, u32, u64), InstanceCells> = BTreeMap::new();
    for attempt in &records.attempts {
        let cells = instances.entry((attempt.problem, attempt.dataset, attempt.dataset_seed)).or_default();
        let cell = (attempt.implementation, attempt.implementation_seed);
        let at = match cells.iter().position(|(known, _)| *known == cell) {
            Some(at) => at,
            None => {
                cells.push((cell, Vec::new()));
                cells.len() - 1
            }
        };
        cells[at].1.extend(attempt.record.as_ref().and_then(Recorded::ranked_seconds));
    }
    let mut out = Vec::new();
    for ((problem, dataset, dataset_seed), cells) in instances {
        let (problem, dataset) = (&records.problems[problem as usize], &records.datasets[dataset as usize]);
        let name =
            |(implementation, seed): (u32, u64)| (records.implementations[implementation as usize].clone(), seed);
        let mut pairs = Vec::new();
        for (i, (first, times_a)) in cells.iter().enumerate() {
            for (second, times_b) in &cells[i + 1..] {
                pairs.push((*first, *second, times_a, times_b));
            }
        }
        // Holm over the pairs the test can say something of; a pair with a cell without times is decided.
        let tested: Vec<f64> =
            pairs.iter().map(|(_, _, a, b)| mann_whitney(a, b).map_or(f64::NAN, |test| test.p)).collect();
        let testable: Vec<f64> = tested.iter().copied().filter(|p| !p.is_nan()).collect();
        let mut adjusted = holm(&testable).into_iter();
        for ((first, second, a, b), p) in pairs.into_iter().zip(tested) {
            let (a_name, a_seed) = name(first);
            let key = (problem.clone(), dataset.clone(), dataset_seed, a_name, a_seed);
            let standing = if p.is_nan() {
                Standing::Tied
            } else {
                let p = adjusted.next().expect("one adjusted p per tested pair");
                let label = format!("{problem}\0{dataset}\0{dataset_seed}\0{}\0{}", first.0, second.0);
                let within = |r: f64| {
                    ratio_of_medians(a, b, seed_for(&label))
                        .is_some_and(|(_, low, high)| low >= 1.0 / (1.0 + r) && high <= 1.0 + r)
                };
                if p < thresholds.alpha {
                    Standing::Separated(p)
                } else if thresholds.resolution.is_some_and(within) {
                    Standing::Tied
                } else {
                    Standing::Undecided(p)
                }
            };
            out.push(PairStanding { a: key, b: name(second), standing });
        }
    }
    out
}

/// The cells with an undecided pair: those another repetition is for.
pub fn undecided_cells(standings: &[PairStanding]) -> Vec<CellKey> {
    let mut cells: Vec<CellKey> = Vec::new();
    for pair in standings.iter().filter(|pair| matches!(pair.standing, Standing::Undecided(_))) {
        let (problem, dataset, dataset_seed, _, _) = &pair.a;
        let b = (problem.clone(), dataset.clone(), *dataset_seed, pair.b.0.clone(), pair.b.1);
        for cell in [pair.a.clone(), b] {
            if !cells.contains(&cell) {
                cells.push(cell);
            }
        }
    }
    cells
}

/// A pair of implementations of one problem, over the instances where both have ranked times: on how many
/// instances the test leaves them undecided, and the smallest adjusted p among those.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UndecidedPair {
    /// The implementation earlier in the plan.
    pub a: String,
    /// The other.
    pub b: String,
    /// The instances on which they are undecided.
    pub undecided: usize,
    /// The instances on which both have ranked times.
    pub compared: usize,
    /// The smallest Holm-adjusted p of the instances on which they are undecided.
    pub smallest_p: f64,
}

/// The pairs of implementations of problem `problem` that some instance (a dataset and dataset seed) leaves
/// undecided, in plan order: within each instance, each implementation's ranked times (over its implementation
/// seeds and repetitions) against each other's by the two-sided Mann–Whitney test, Holm-adjusted over the
/// instance's pairs, undecided at `alpha` or above. What the report names: it tests pairs of implementations, not of
/// cells, so that a campaign of many implementation seeds costs the square of its implementations, not of its
/// cells.
pub fn undecided_pairs(records: &Records, problem: u32, alpha: f64) -> Vec<UndecidedPair> {
    let mut order: Vec<u32> = Vec::new();
    let mut instances: BTreeMap<(u32, u64), BTreeMap<u32, Vec<f64>>> = BTreeMap::new();
    for attempt in records.attempts.iter().filter(|attempt| attempt.problem == problem) {
        if !order.contains(&attempt.implementation) {
            order.push(attempt.implementation);
        }
        if let Some(time) = attempt.record.as_ref().and_then(Recorded::ranked_seconds) {
            let cells = instances.entry((attempt.dataset, attempt.dataset_seed)).or_default();
            cells.entry(attempt.implementation).or_default().push(time);
        }
    }
    let mut pairs: Vec<UndecidedPair> = Vec::new();
    for (i, &a) in order.iter().enumerate() {
        for &b in &order[i + 1..] {
            let (a, b) = (records.implementations[a as usize].clone(), records.implementations[b as usize].clone());
            pairs.push(UndecidedPair { a, b, undecided: 0, compared: 0, smallest_p: f64::INFINITY });
        }
    }
    for cells in instances.values() {
        let mut tested: Vec<(usize, f64)> = Vec::new();
        let mut at = 0;
        for (i, a) in order.iter().enumerate() {
            for b in &order[i + 1..] {
                if let (Some(x), Some(y)) = (cells.get(a), cells.get(b))
                    && let Some(test) = mann_whitney(x, y)
                {
                    tested.push((at, test.p));
                }
                at += 1;
            }
        }
        let adjusted = holm(&tested.iter().map(|(_, p)| *p).collect::<Vec<_>>());
        for ((at, _), p) in tested.into_iter().zip(adjusted) {
            let pair = &mut pairs[at];
            pair.compared += 1;
            if p >= alpha {
                pair.undecided += 1;
                pair.smallest_p = pair.smallest_p.min(p);
            }
        }
    }
    pairs.retain(|pair| pair.undecided > 0);
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_outside_their_range_are_refused() {
        assert!(Thresholds::new(0.05, None).is_ok());
        assert!(Thresholds::new(0.5, Some(0.1)).is_ok());
        for alpha in [0.0, -0.1, 0.51, f64::NAN] {
            assert!(matches!(Thresholds::new(alpha, None), Err(ThresholdError::Alpha(_))), "{alpha}");
        }
        for resolution in [0.0, -1.0, f64::INFINITY] {
            assert!(Thresholds::new(0.05, Some(resolution)).is_err(), "{resolution}");
        }
    }
}
