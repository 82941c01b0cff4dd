//! The statistics against an independent computation (`stats_check.py`, standard library only) and against
//! published critical values of the Mann–Whitney U test.

use metewand_report::stats::{
    ALPHA, BOOTSTRAP_RESAMPLES, DRAWN_LIMIT, SplitMix64, Summary, geometric_mean, mann_kendall_s, mann_whitney,
    median_of_draws, median_of_order_statistics, quantile, ratio_of_medians, resampled_median, seed_for, smallest_p,
};
use serde_json::{Value, json};

use crate::python;

fn close(rust: f64, python: &Value, what: &str) {
    let python = python.as_f64().unwrap_or_else(|| panic!("{what}: python gave {python}"));
    let tolerance = 1e-9 * python.abs().max(1.0);
    assert!((rust - python).abs() <= tolerance, "{what}: rust {rust}, python {python}");
}

/// A deterministic sample of `n` values around `centre` with spread `spread` (ties when `round`).
fn sample(n: usize, seed: u64, centre: f64, spread: f64, round: bool) -> Vec<f64> {
    let mut rng = SplitMix64::new(seed);
    (0..n)
        .map(|_| {
            let value = centre + spread * ((rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 - 0.5);
            if round { value.round() } else { value }
        })
        .collect()
}

#[test]
fn summaries_ratios_and_p_values_match_an_independent_python_computation() {
    let samples: Vec<Vec<f64>> = vec![
        vec![0.5],
        vec![3.0, 1.0],
        vec![1.0, 2.0, 3.0, 4.0, 100.0],
        sample(9, 1, 10.0, 4.0, false),
        sample(40, 2, 0.02, 0.01, false),
        sample(25, 3, 50.0, 20.0, true),
    ];
    let pairs: Vec<(Vec<f64>, Vec<f64>)> = vec![
        // Small and without ties: exact.
        (sample(5, 4, 1.0, 0.2, false), sample(6, 5, 1.5, 0.2, false)),
        (sample(4, 6, 2.0, 1.0, false), sample(4, 7, 2.0, 1.0, false)),
        // Ties: the normal approximation with the tie correction.
        (sample(12, 8, 10.0, 6.0, true), sample(15, 9, 13.0, 6.0, true)),
        // Large: the normal approximation.
        (sample(60, 10, 1.0, 0.5, false), sample(70, 11, 1.1, 0.5, false)),
        (sample(30, 12, 5.0, 1.0, false), sample(30, 13, 10.0, 2.0, false)),
        // One side of one value (a single attempt, most often): only the other side's resamples draw.
        (vec![2.0; 3], sample(8, 14, 3.0, 1.0, false)),
        (vec![4.0], vec![5.0]),
    ];
    let seeds: Vec<String> = (0..samples.len() + pairs.len()).map(|i| format!("cell {i}")).collect();
    let expected = python(
        "stats_check.py",
        &json!({
            "samples": samples,
            "pairs": pairs.iter().map(|(a, b)| json!([a, b])).collect::<Vec<_>>(),
            "seeds": seeds,
            "resamples": BOOTSTRAP_RESAMPLES,
        }),
    );
    for (index, values) in samples.iter().enumerate() {
        let summary = Summary::of(values, seed_for(&seeds[index])).unwrap();
        let want = &expected["samples"][index];
        close(summary.median, &want["median"], &format!("sample {index} median"));
        close(summary.q1, &want["q1"], &format!("sample {index} q1"));
        close(summary.q3, &want["q3"], &format!("sample {index} q3"));
        close(summary.ci_low, &want["ci_low"], &format!("sample {index} ci low"));
        close(summary.ci_high, &want["ci_high"], &format!("sample {index} ci high"));
        assert!(summary.ci_low <= summary.median && summary.median <= summary.ci_high);
    }
    let mut ratios = Vec::new();
    for (index, (a, b)) in pairs.iter().enumerate() {
        let seed = seed_for(&seeds[samples.len() + index]);
        let (ratio, low, high) = ratio_of_medians(a, b, seed).unwrap();
        let want = &expected["pairs"][index];
        close(ratio, &want["ratio"], &format!("pair {index} ratio"));
        close(low, &want["ci_low"], &format!("pair {index} ci low"));
        close(high, &want["ci_high"], &format!("pair {index} ci high"));
        let test = mann_whitney(a, b).unwrap();
        let p = want["p"].as_f64().unwrap();
        // The exact p-values agree to rounding; the normal tail is a fit good to 1.2e-7 relative.
        assert!((test.p - p).abs() <= 1e-6, "pair {index}: p rust {} python {p}", test.p);
        let exact = index < 2 || index == pairs.len() - 1;
        assert_eq!(test.exact, exact, "pair {index}: exact only for small samples without ties");
        ratios.push(ratio);
    }
    close(geometric_mean(ratios).unwrap(), &expected["geometric_mean"], "geometric mean");
}

/// Samples of sizes n1 and n2 without ties whose U (pairs with a's value above b's) is `u`.
fn with_u(n1: usize, n2: usize, u: usize) -> (Vec<f64>, Vec<f64>) {
    // Start from a's values all below b's (U = 0) and raise a's largest values past b's, at most n2 each.
    let mut rises = vec![0usize; n1];
    let mut left = u;
    for rise in rises.iter_mut() {
        *rise = left.min(n2);
        left -= *rise;
    }
    assert_eq!(left, 0);
    let a_ranks: Vec<usize> = (0..n1).map(|k| n1 - k + rises[k]).collect();
    let b_ranks: Vec<usize> = (1..=n1 + n2).filter(|rank| !a_ranks.contains(rank)).collect();
    let value = |rank: &usize| *rank as f64;
    (a_ranks.iter().map(value).collect(), b_ranks.iter().map(value).collect())
}

#[test]
fn exact_p_values_agree_with_published_critical_values() {
    // Two-sided critical values of U at the 0.05 level (e.g. Siegel and Castellan, table J; Zar, table B.11):
    // U at or below the value is significant, one more is not.
    for (n, critical) in [(5, 2), (6, 5), (8, 13), (10, 23), (12, 37)] {
        let (a, b) = with_u(n, n, critical);
        let test = mann_whitney(&a, &b).unwrap();
        assert!(test.exact);
        assert_eq!(test.u, critical as f64);
        assert!(test.p <= 0.05, "n = {n}, U = {critical}: p = {}", test.p);
        let (a, b) = with_u(n, n, critical + 1);
        let test = mann_whitney(&a, &b).unwrap();
        assert!(test.p > 0.05, "n = {n}, U = {}: p = {}", critical + 1, test.p);
    }
    // n1 = n2 = 5: P(U <= 2) = 4 / 252 exactly.
    let (a, b) = with_u(5, 5, 2);
    assert!((mann_whitney(&a, &b).unwrap().p - 8.0 / 252.0).abs() < 1e-15);
    // Symmetric: swapping the samples keeps the two-sided p-value.
    let (a, b) = with_u(8, 6, 11);
    assert_eq!(mann_whitney(&a, &b).unwrap().p, mann_whitney(&b, &a).unwrap().p);
}

/// The smallest p a pair of sample sizes allows is what the exact test gives two samples that do not overlap, and it
/// is below 0.05 from 4 a side on: 2 / C(n1 + n2, n1).
#[test]
fn the_smallest_p_is_that_of_two_separated_samples() {
    for (n1, n2, expected) in
        [(2, 2, 1.0 / 3.0), (3, 3, 0.1), (4, 3, 2.0 / 35.0), (4, 4, 2.0 / 70.0), (5, 4, 2.0 / 126.0)]
    {
        let smallest = smallest_p(n1, n2);
        assert!((smallest - expected).abs() < 1e-12, "{n1} and {n2}: {smallest}");
        let a: Vec<f64> = (0..n1).map(|i| i as f64).collect();
        let b: Vec<f64> = (0..n2).map(|i| 100.0 + i as f64).collect();
        let test = mann_whitney(&a, &b).unwrap();
        assert!(test.exact && (test.p - expected).abs() < 1e-12, "{n1} and {n2}: {test:?}");
    }
    assert!(smallest_p(3, 3) >= ALPHA && smallest_p(4, 4) < ALPHA);
    assert_eq!((smallest_p(0, 5), smallest_p(1, 1)), (1.0, 1.0));
}

#[test]
fn edge_cases_give_answers_not_panics() {
    assert_eq!(Summary::of(&[], 1), None);
    let mut rng = SplitMix64::new(1);
    assert!(resampled_median(&[], &mut rng, &mut Vec::new()).is_nan());
    assert!(median_of_draws(&[], &mut rng, &mut Vec::new()).is_nan());
    assert!(median_of_order_statistics(&[], &mut rng).is_nan());
    assert_eq!(median_of_order_statistics(&[3.0], &mut rng), 3.0);
    assert_eq!(mann_whitney(&[], &[1.0]), None);
    assert_eq!(ratio_of_medians(&[0.0], &[1.0], 1), None, "a zero median has no ratio");
    let all_equal = mann_whitney(&[1.0, 1.0, 1.0], &[1.0, 1.0]).unwrap();
    assert_eq!(all_equal.p, 1.0);
    assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0], 0.25), Some(1.75));
    assert_eq!(geometric_mean([2.0, 8.0]), Some(4.0));
    assert_eq!(geometric_mean([f64::INFINITY]), None);
    let one = Summary::of(&[0.25], 9).unwrap();
    assert_eq!((one.median, one.q1, one.q3, one.ci_low, one.ci_high), (0.25, 0.25, 0.25, 0.25, 0.25));
}

#[test]
fn the_generator_is_splitmix64() {
    // The first outputs of SplitMix64 from seed 0, as published with the reference implementation.
    let mut rng = SplitMix64::new(0);
    assert_eq!(rng.next_u64(), 0xe220_a839_7b1d_cdaf);
    assert_eq!(rng.next_u64(), 0x6e78_9e6a_a1b9_65f4);
    assert_eq!(rng.next_u64(), 0x06c4_5d18_8009_454f);
}

/// The mean, standard deviation and 2.5% and 97.5% quantiles of resampled medians.
fn spread(mut medians: Vec<f64>) -> [f64; 4] {
    medians.sort_by(f64::total_cmp);
    let count = medians.len() as f64;
    let mean = medians.iter().sum::<f64>() / count;
    let sd = (medians.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / (count - 1.0)).sqrt();
    [mean, sd, quantile(&medians, 0.025).unwrap(), quantile(&medians, 0.975).unwrap()]
}

#[test]
fn medians_drawn_from_order_statistics_have_the_distribution_of_drawn_resamples() {
    // Data 0, 1, ..., n - 1: a resample's median is near (n - 1) / 2 with a standard deviation near sqrt(n) / 2
    // (31.6 and 31.6 here). 20,000 medians each way put the Monte Carlo error of a 2.5% quantile near 0.6.
    for n in [4000usize, 4001] {
        let sorted: Vec<f64> = (0..n).map(|i| i as f64).collect();
        let mut rng = SplitMix64::new(n as u64);
        let mut counts = Vec::new();
        let drawn = spread((0..20_000).map(|_| median_of_draws(&sorted, &mut rng, &mut counts)).collect());
        let ordered = spread((0..20_000).map(|_| median_of_order_statistics(&sorted, &mut rng)).collect());
        let theory = [(n as f64 - 1.0) / 2.0, (n as f64).sqrt() / 2.0];
        for (what, [mean, sd, low, high]) in [("draws", drawn), ("order statistics", ordered)] {
            assert!((mean - theory[0]).abs() < 1.5, "n {n}, {what}: mean {mean}, expected {}", theory[0]);
            assert!((sd / theory[1] - 1.0).abs() < 0.05, "n {n}, {what}: sd {sd}, expected {}", theory[1]);
            assert!((low - (theory[0] - 1.96 * theory[1])).abs() < 4.0, "n {n}, {what}: 2.5% at {low}");
            assert!((high - (theory[0] + 1.96 * theory[1])).abs() < 4.0, "n {n}, {what}: 97.5% at {high}");
        }
        for (i, (a, b)) in drawn.iter().zip(ordered).enumerate() {
            assert!((a - b).abs() < 3.0, "n {n}: statistic {i} is {a} by draws and {b} by order statistics");
        }
    }
    // A large sample's summary takes that path, and its interval still holds its median.
    let large: Vec<f64> = (0..=2 * DRAWN_LIMIT).map(|i| (i % 97) as f64).collect();
    let summary = Summary::of(&large, 5).unwrap();
    assert!(summary.ci_low <= summary.median && summary.median <= summary.ci_high);
    let equal = Summary::of(&vec![0.5; 3 * DRAWN_LIMIT], 5).unwrap();
    assert_eq!((equal.ci_low, equal.ci_high), (0.5, 0.5));
}

/// The Mann–Kendall statistic as its definition says, pair by pair.
fn mann_kendall_by_pairs(values: &[f64]) -> i64 {
    let mut s = 0;
    for i in 0..values.len() {
        for j in i + 1..values.len() {
            s += match values[j].total_cmp(&values[i]) {
                std::cmp::Ordering::Greater => 1,
                std::cmp::Ordering::Less => -1,
                std::cmp::Ordering::Equal => 0,
            };
        }
    }
    s
}

#[test]
fn the_mann_kendall_statistic_is_that_of_every_pair() {
    assert_eq!(mann_kendall_s(&[]), 0);
    assert_eq!(mann_kendall_s(&[1.0]), 0);
    assert_eq!(mann_kendall_s(&[1.0, 2.0, 3.0]), 3);
    assert_eq!(mann_kendall_s(&[3.0, 2.0, 1.0]), -3);
    assert_eq!(mann_kendall_s(&[2.0, 2.0, 2.0]), 0);
    // Odd and even lengths, with ties (rounded values) and without, rising, falling and flat.
    for n in [2, 7, 8, 9, 31, 64, 100, 257] {
        for (seed, round) in [(1, true), (2, false), (3, true)] {
            let mut values = sample(n, seed + n as u64, 10.0, 6.0, round);
            assert_eq!(mann_kendall_s(&values), mann_kendall_by_pairs(&values), "n {n}, seed {seed}");
            for (place, value) in values.iter_mut().enumerate() {
                *value += place as f64 * if seed == 3 { -0.05 } else { 0.05 };
            }
            assert_eq!(mann_kendall_s(&values), mann_kendall_by_pairs(&values), "n {n}, seed {seed}, trend");
        }
    }
}
