//! The ranking of a problem's implementations with its uncertainty: each implementation's mean rank over the
//! problem's instances (dataset × dataset seed) with a bootstrap interval, and which implementations no test
//! separates, so that a report says who is tied with whom before it says anything else about results.
//!
//! Within an instance, implementations are ranked by their cell's median ranked time (the problem's `timed`) over
//! the attempts that reached; a cell without one (its attempts did not reach, failed, timed out or were not run) ranks last,
//! ties sharing their mean rank. The interval resamples repetitions within cells, then instances. Every pair is
//! tested by the Wilcoxon signed-rank test of its per-instance log ratios of medians, and the pairs' p-values are
//! adjusted by Holm's method; why, in `docs/decisions/reports-and-comparisons.md`.

use serde::Serialize;

use crate::stats::{
    ALPHA, BOOTSTRAP_RESAMPLES, SplitMix64, holm, median, median_of_order_statistics, quantile, resampled_median,
    signed_rank,
};

/// Above this many values, a cell's resample median in the ranking's bootstrap is drawn from the distribution of
/// its order statistics: the same distribution as `n` counted draws, at a cost that does not grow with `n`. Each
/// resample of the ranking takes a median of every cell of every drawn instance, so with counted draws a campaign's
/// whole ranking would cost 2000 draws per attempt.
pub const RANK_DRAWN_LIMIT: usize = 32;

/// One implementation's place.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Ranked {
    /// The implementation.
    pub implementation: String,
    /// Its mean rank over the instances (1 is fastest everywhere).
    pub mean_rank: f64,
    /// The 2.5% point of the bootstrap distribution of the mean rank.
    pub ci_low: f64,
    /// The 97.5% point.
    pub ci_high: f64,
    /// On how many instances it has a judged attempt (on the others it ranks last).
    pub timed_instances: usize,
}

/// The test of one pair of implementations.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Pair {
    /// The pair, in the ranking's order (the first ranks no worse).
    pub first: String,
    /// The second.
    pub second: String,
    /// How many instances differ between them (the test's sample: an instance where both have the same median, or
    /// neither has one, says nothing).
    pub instances: usize,
    /// The two-sided signed-rank p-value.
    pub p: f64,
    /// `p` after Holm's adjustment over every pair of the problem.
    pub p_holm: f64,
    /// Whether `second` is the slower of the two (its times are larger on most of the instances, by rank).
    pub second_slower: bool,
}

impl Pair {
    /// Whether the pair is separated at [`ALPHA`] after Holm's adjustment.
    pub fn separated(&self) -> bool {
        self.p_holm < ALPHA
    }
}

/// A problem's ranking.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Ranking {
    /// How many instances it is over.
    pub instances: usize,
    /// The implementations, by mean rank (then in the plan's order).
    pub ranked: Vec<Ranked>,
    /// Every pair, in the order of [`Ranking::ranked`].
    pub pairs: Vec<Pair>,
}

/// The mid-ranks of `values` (1 for the smallest; equal values share their mean rank; infinity is a value).
pub fn mid_ranks(values: &[f64]) -> Vec<f64> {
    values
        .iter()
        .map(|value| {
            let below = values.iter().filter(|other| *other < value).count();
            let equal = values.iter().filter(|other| *other == value).count();
            1.0 + below as f64 + (equal as f64 - 1.0) / 2.0
        })
        .collect()
}

/// The median of a cell's sorted times, infinite for a cell without one.
fn cell_median(times: &[f64]) -> f64 {
    median(times).unwrap_or(f64::INFINITY)
}

/// `ln(b / a)` of two medians, either possibly infinite: zero when equal, infinite when only one is.
fn log_ratio(a: f64, b: f64) -> f64 {
    if a == b {
        0.0
    } else if a.is_infinite() {
        f64::NEG_INFINITY
    } else if b.is_infinite() {
        f64::INFINITY
    } else {
        (b / a).ln()
    }
}

impl Ranking {
    /// The ranking of `names` from `cells[implementation][instance]`, each cell's ranked times sorted ascending
    /// (empty for a cell without a judged attempt); `None` without an instance.
    ///
    /// The bootstrap draws from `seed`, resample by resample: an instance index ([`SplitMix64::below`] the number
    /// of instances) for each of as many slots as there are instances, and for each slot each implementation's
    /// resampled median of that instance's cell, in order ([`resampled_median`]: a cell of one value draws
    /// nothing; a cell of more than [`RANK_DRAWN_LIMIT`] values, [`median_of_order_statistics`]). The interval is
    /// the type-7 2.5% and 97.5% quantiles of [`BOOTSTRAP_RESAMPLES`] mean ranks.
    pub fn new(names: &[String], cells: &[Vec<Vec<f64>>], seed: u64) -> Option<Ranking> {
        let instances = cells.first().map_or(0, Vec::len);
        if instances == 0 || names.is_empty() {
            return None;
        }
        let k = names.len();
        let medians: Vec<Vec<f64>> =
            cells.iter().map(|row| row.iter().map(|times| cell_median(times)).collect()).collect();
        let mut mean_ranks = vec![0.0; k];
        for instance in 0..instances {
            let values: Vec<f64> = medians.iter().map(|row| row[instance]).collect();
            for (total, rank) in mean_ranks.iter_mut().zip(mid_ranks(&values)) {
                *total += rank / instances as f64;
            }
        }
        let mut rng = SplitMix64::new(seed);
        let mut scratch = Vec::new();
        let mut resampled: Vec<Vec<f64>> = vec![Vec::with_capacity(BOOTSTRAP_RESAMPLES); k];
        let mut values = vec![0.0; k];
        for _ in 0..BOOTSTRAP_RESAMPLES {
            let mut totals = vec![0.0; k];
            for _ in 0..instances {
                let instance = rng.below(instances);
                for (value, row) in values.iter_mut().zip(cells) {
                    let times = &row[instance];
                    *value = match times.len() {
                        0 => f64::INFINITY,
                        n if n > RANK_DRAWN_LIMIT => median_of_order_statistics(times, &mut rng),
                        _ => resampled_median(times, &mut rng, &mut scratch),
                    };
                }
                for (total, rank) in totals.iter_mut().zip(mid_ranks(&values)) {
                    *total += rank;
                }
            }
            for (column, total) in resampled.iter_mut().zip(totals) {
                column.push(total / instances as f64);
            }
        }
        let mut order: Vec<usize> = (0..k).collect();
        order.sort_by(|&a, &b| mean_ranks[a].total_cmp(&mean_ranks[b]));
        let ranked = order
            .iter()
            .map(|&index| {
                let column = &mut resampled[index];
                column.sort_by(f64::total_cmp);
                Ranked {
                    implementation: names[index].clone(),
                    mean_rank: mean_ranks[index],
                    ci_low: quantile(column, 0.025).unwrap_or(f64::NAN),
                    ci_high: quantile(column, 0.975).unwrap_or(f64::NAN),
                    timed_instances: medians[index].iter().filter(|median| median.is_finite()).count(),
                }
            })
            .collect();
        let mut pairs = Vec::new();
        for (position, &a) in order.iter().enumerate() {
            for &b in &order[position + 1..] {
                let differences: Vec<f64> =
                    (0..instances).map(|instance| log_ratio(medians[a][instance], medians[b][instance])).collect();
                let test = signed_rank(&differences);
                pairs.push(Pair {
                    first: names[a].clone(),
                    second: names[b].clone(),
                    instances: test.n,
                    p: test.p,
                    p_holm: 1.0,
                    second_slower: test.positive(),
                });
            }
        }
        let adjusted = holm(&pairs.iter().map(|pair| pair.p).collect::<Vec<_>>());
        for (pair, p_holm) in pairs.iter_mut().zip(adjusted) {
            pair.p_holm = p_holm;
        }
        Some(Ranking { instances, ranked, pairs })
    }

    /// The test of `a` against `b`, in either order.
    pub fn pair(&self, a: &str, b: &str) -> Option<&Pair> {
        self.pairs.iter().find(|pair| (pair.first == a && pair.second == b) || (pair.first == b && pair.second == a))
    }

    /// What the tests say of the implementation at `position` against each one ranked above it, in words: `tied
    /// with A (p = 0.41) and B (p = 1.00); slower than C (p = 0.003)`; `first by mean rank` for the first; first
    /// `no attempt reached, so last on every instance` for one never timed.
    pub fn against_above(&self, position: usize) -> String {
        let name = &self.ranked[position].implementation;
        let (mut tied, mut slower, mut faster) = (Vec::new(), Vec::new(), Vec::new());
        for above in &self.ranked[..position] {
            let Some(pair) = self.pair(name, &above.implementation) else { continue };
            let part = format!("{} (p = {})", above.implementation, p_value(pair.p_holm));
            // Whether `name` is the slower of the pair.
            let name_slower = (pair.second == *name) == pair.second_slower;
            match (pair.separated(), name_slower) {
                (false, _) => tied.push(part),
                (true, true) => slower.push(part),
                (true, false) => faster.push(part),
            }
        }
        let parts: Vec<String> = [("tied with", tied), ("slower than", slower), ("faster than", faster)]
            .into_iter()
            .filter(|(_, names)| !names.is_empty())
            .map(|(words, names)| format!("{words} {}", and_list(&names)))
            .collect();
        let said = if parts.is_empty() { "first by mean rank".to_owned() } else { parts.join("; ") };
        // An implementation that never reached ranks last by rule: said first, so that a test too weak to separate
        // it is not read as a tie of times.
        if self.ranked[position].timed_instances == 0 {
            format!("no attempt reached, so last on every instance; {said}")
        } else {
            said
        }
    }
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// A p-value as a report prints it: two decimals down to 0.1, three down to 0.001, then two significant digits in
/// scientific notation.
pub fn p_value(p: f64) -> String {
    if p >= 0.1 {
        format!("{p:.2}")
    } else if p >= 0.001 {
        format!("{p:.3}")
    } else {
        format!("{p:.1e}")
    }
}
