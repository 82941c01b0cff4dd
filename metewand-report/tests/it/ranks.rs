//! Rank intervals and ties: a synthetic campaign where one implementation is clearly faster than two identical
//! ones is reported so, first; mean ranks, their bootstrap intervals and the signed-rank p-values against an
//! independent computation (`ranks_check.py`); Holm's adjustment against a hand computation.

use metewand_report::ranks::{RANK_DRAWN_LIMIT, Ranking, mid_ranks};
use metewand_report::report::RESOLVING_ATTEMPTS;
use metewand_report::stats::{BOOTSTRAP_RESAMPLES, SplitMix64, holm, seed_for, signed_rank, smallest_signed_p};
use metewand_report::{Format, Records, Report, render};
use serde_json::{Value, json};

use crate::{Campaign, Planned, State, at, python, temp, write_campaign};

const DATASETS: [&str; 2] = ["small", "tall"];
const SEEDS: u64 = 4;
const REPETITIONS: u64 = 3;

/// The execute time of `implementation` on `dataset` seed `seed`, repetition `repetition`, in nanoseconds: `fast`
/// about 1 ms, `left` and `right` about 5 ms, each with its own noise of up to 10%.
fn time_ns(implementation: &str, dataset: usize, seed: u64, repetition: u64) -> u64 {
    let base: u64 = if implementation == "fast" { 1_000_000 } else { 5_000_000 };
    let label = format!("{implementation} {dataset} {seed} {repetition}");
    let noise = SplitMix64::new(seed_for(&label)).next_u64() % (base / 10);
    base + noise
}

/// Problem `ridge`: `fast`, `left` and `right` on 8 instances (2 datasets × 4 seeds), 3 repetitions each; `left`
/// and `right` are drawn from one distribution, `fast` is 5 times faster.
fn plan() -> Vec<Planned> {
    let mut plan = Vec::new();
    for (dataset, name) in DATASETS.into_iter().enumerate() {
        for seed in 0..SEEDS {
            for implementation in ["left", "fast", "right"] {
                for repetition in 1..=REPETITIONS {
                    plan.push(
                        Planned::new("ridge", name, implementation).seed(seed).repetition(repetition).time(time_ns(
                            implementation,
                            dataset,
                            seed,
                            repetition,
                        )),
                    );
                }
            }
        }
    }
    plan
}

/// The cells the test's own plan gives, `[implementation][instance]`, instances in plan order.
fn cells(implementations: &[&str]) -> Vec<Vec<Vec<f64>>> {
    implementations
        .iter()
        .map(|implementation| {
            (0..DATASETS.len())
                .flat_map(|dataset| (0..SEEDS).map(move |seed| (dataset, seed)))
                .map(|(dataset, seed)| {
                    (1..=REPETITIONS).map(|r| time_ns(implementation, dataset, seed, r) as f64 / 1e9).collect()
                })
                .collect()
        })
        .collect()
}

/// Whether `rust` is `python` within `relative` (1e-9 for what both compute alike; the normal approximation's
/// p-values differ by the complementary error function's fit, below 1.2e-7).
fn close_within(rust: f64, python: &Value, relative: f64, what: &str) {
    let python = python.as_f64().unwrap_or_else(|| panic!("{what}: python gave {python}"));
    assert!((rust - python).abs() <= relative * python.abs().max(1.0), "{what}: rust {rust}, python {python}");
}

fn close(rust: f64, python: &Value, what: &str) {
    close_within(rust, python, 1e-9, what);
}

#[test]
fn a_clearly_faster_implementation_is_separated_and_identical_ones_are_tied_in_the_first_table() {
    let dir = temp();
    let folder = at(&dir, "campaign");
    write_campaign(&folder, &Campaign::default(), &plan());
    let report = Report::new(&Records::read(std::slice::from_ref(&folder)).unwrap(), Some(dir.path()));
    let ranking = report.problems[0].ranking.as_ref().expect("a ranking over the instances");
    assert_eq!(ranking.instances, 8);
    let order: Vec<&str> = ranking.ranked.iter().map(|ranked| ranked.implementation.as_str()).collect();
    assert_eq!(order[0], "fast");
    let fast = &ranking.ranked[0];
    assert_eq!((fast.mean_rank, fast.ci_low, fast.ci_high), (1.0, 1.0, 1.0), "fastest on every instance");

    // fast against either other: 8 instances all one way, exact p = 2 / 2^8. Holm's method multiplies the
    // smallest of the 3 pairs' p-values by 3 and the next by 2, raised to the one before: both 6 / 256.
    for other in ["left", "right"] {
        let pair = ranking.pair("fast", other).unwrap();
        assert_eq!(pair.instances, 8);
        assert!((pair.p - 2.0 / 256.0).abs() < 1e-15, "{pair:?}");
        assert!((pair.p_holm - 6.0 / 256.0).abs() < 1e-15, "{pair:?}");
        assert!(pair.separated());
    }
    let twins = ranking.pair("left", "right").unwrap();
    assert!(!twins.separated(), "one distribution: {twins:?}");

    // The words, with Holm's p, in the first table of the HTML and of the Markdown.
    let second = &ranking.ranked[1].implementation;
    let third = &ranking.ranked[2].implementation;
    let p_twins = metewand_report::ranks::p_value(twins.p_holm);
    let expected = format!("tied with {second} (p = {p_twins}); slower than fast (p = 0.023)");
    assert_eq!(ranking.against_above(1), "slower than fast (p = 0.023)");
    assert_eq!(ranking.against_above(2), expected);
    assert_eq!(ranking.against_above(0), "first by mean rank");
    let html = render(&report, Format::Html);
    let first_table = html.find("<table>").unwrap();
    assert!(first_table > html.find("<h2>Ranking</h2>").unwrap());
    assert!(first_table < html.find("Plan against done").unwrap(), "the ranking is the first table");
    let row =
        format!("<td>{third}</td><td class=\"n\">{} (", metewand_report::units::rank(ranking.ranked[2].mean_rank));
    assert!(html[first_table..].starts_with("<table>\n<caption>Problem ridge: mean rank over 8 instances"), "{html}");
    assert!(html.contains(&row), "{row}");
    assert!(html.contains(&format!("<td>{}</td></tr>", expected)));
    let markdown = render(&report, Format::Markdown);
    let ranking_heading = markdown.find("## Ranking").unwrap();
    assert!(ranking_heading < markdown.find("## Plan against done").unwrap());
    assert!(markdown.contains(&format!("| {expected} |")), "{markdown}");
    assert!(markdown.contains("| fast | 1.00 (1.00–1.00) | 8 of 8 | first by mean rank |"), "{markdown}");

    // Each implementation × dataset cell has 12 timed attempts (4 seeds, 3 repetitions): each resolves the
    // half-width of its median's interval, relative to the median.
    for row in &report.problems[0].rows {
        let summary = row.timed_seconds.unwrap();
        let resolution = row.resolution.expect("12 attempts resolve");
        assert!((resolution - (summary.ci_high - summary.ci_low) / 2.0 / summary.median).abs() < 1e-15);
        assert!(resolution > 0.0 && resolution < 0.1, "noise of up to 10%: {resolution}");
    }

    // The mean ranks and their intervals against an independent computation from the plan's own times.
    let expected = python(
        "ranks_check.py",
        &json!({
            "rankings": [{"cells": cells(&order), "seed": "ridge\0ranking"}],
            "resamples": BOOTSTRAP_RESAMPLES,
            "differences": [],
        }),
    );
    for (ranked, python) in ranking.ranked.iter().zip(expected["rankings"][0].as_array().unwrap()) {
        let name = &ranked.implementation;
        close(ranked.mean_rank, &python["mean"], &format!("{name} mean rank"));
        close(ranked.ci_low, &python["low"], &format!("{name} 2.5%"));
        close(ranked.ci_high, &python["high"], &format!("{name} 97.5%"));
    }
}

#[test]
fn rank_intervals_and_signed_rank_p_values_match_an_independent_python_computation() {
    let mut rng = SplitMix64::new(7);
    let mut noisy = |centre: f64, n: usize| -> Vec<f64> {
        (0..n).map(|_| centre * (1.0 + 0.3 * (rng.open_unit() - 0.5))).collect::<Vec<f64>>()
    };
    // Four implementations on five instances: overlapping ones, a cell of one attempt, a cell whose attempts are
    // all equal, and cells without a judged attempt (which rank last, tied among themselves).
    let cells: Vec<Vec<Vec<f64>>> = vec![
        (0..5).map(|i| noisy(1.0 + i as f64, 4)).collect(),
        (0..5).map(|i| noisy(1.1 + i as f64, 5)).collect(),
        vec![vec![2.0], vec![3.0; 3], Vec::new(), noisy(3.0, 6), Vec::new()],
        vec![Vec::new(), noisy(20.0, 2), Vec::new(), noisy(0.5, 7), noisy(6.0, 3)],
    ];
    let cells: Vec<Vec<Vec<f64>>> = cells
        .into_iter()
        .map(|row| {
            row.into_iter()
                .map(|mut cell| {
                    cell.sort_by(f64::total_cmp);
                    cell
                })
                .collect()
        })
        .collect();
    let names: Vec<String> = ["a", "b", "c", "d"].map(str::to_owned).to_vec();
    let ranking = Ranking::new(&names, &cells, seed_for("check")).unwrap();
    let differences: Vec<Vec<f64>> = vec![
        vec![0.3, -0.1, 0.5, 0.2, 0.9, -0.4, 1.2],
        vec![0.3, -0.3, 0.5, 0.0, 0.5, 0.5, -1.0, 2.0],
        vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        vec![-0.5, f64::INFINITY, 0.2, f64::NEG_INFINITY, f64::INFINITY, 0.7],
        (0..30).map(|i| (i as f64 - 9.5) * 0.1).collect(),
    ];
    let expected = python(
        "ranks_check.py",
        &json!({
            "rankings": [{"cells": cells, "seed": "check"}],
            "resamples": BOOTSTRAP_RESAMPLES,
            "differences": differences.iter().map(|row| row.iter().map(|d| if d.is_infinite() {
                json!(if *d > 0.0 { 1e308 } else { -1e308 })
            } else {
                json!(d)
            }).collect::<Vec<_>>()).collect::<Vec<_>>(),
        }),
    );
    let python_rows = expected["rankings"][0].as_array().unwrap();
    for ranked in &ranking.ranked {
        let index = names.iter().position(|name| *name == ranked.implementation).unwrap();
        let python = &python_rows[index];
        close(ranked.mean_rank, &python["mean"], &format!("{} mean rank", ranked.implementation));
        close(ranked.ci_low, &python["low"], &format!("{} 2.5%", ranked.implementation));
        close(ranked.ci_high, &python["high"], &format!("{} 97.5%", ranked.implementation));
    }
    for (row, python) in differences.iter().zip(expected["signed_rank"].as_array().unwrap()) {
        let test = signed_rank(row);
        let relative = if test.exact { 1e-9 } else { 1e-6 };
        close_within(test.p, python, relative, &format!("signed-rank p of {row:?}"));
    }
    // The mean ranks of every instance sum to k (k + 1) / 2.
    let total: f64 = ranking.ranked.iter().map(|ranked| ranked.mean_rank).sum();
    assert!((total - 10.0).abs() < 1e-12);
    assert_eq!(mid_ranks(&[2.0, f64::INFINITY, 1.0, f64::INFINITY]), vec![2.0, 3.5, 1.0, 3.5]);
}

#[test]
fn holm_adjusts_as_computed_by_hand() {
    // Sorted: 0.005 × 4 = 0.02; 0.01 × 3 = 0.03; 0.03 × 2 = 0.06; 0.04 × 1 = 0.04, raised to 0.06 (step-down).
    let adjusted = holm(&[0.01, 0.04, 0.03, 0.005]);
    let expected = [0.03, 0.06, 0.06, 0.02];
    for (got, want) in adjusted.iter().zip(expected) {
        assert!((got - want).abs() < 1e-15, "{adjusted:?}");
    }
    // Capped at 1; one p-value is its own adjustment.
    assert_eq!(holm(&[0.6, 0.7]), vec![1.0, 1.0]);
    assert_eq!(holm(&[0.2]), vec![0.2]);
    assert!(holm(&[]).is_empty());
}

#[test]
fn too_few_instances_say_that_no_pair_can_be_separated() {
    assert_eq!(smallest_signed_p(5), 0.0625);
    assert_eq!(smallest_signed_p(6), 0.03125);
    let dir = temp();
    let folder = at(&dir, "campaign");
    // One instance: `quick` with 5 repetitions, `rare` slower with 2, `slow` failing every one of its 5 there
    // (it ranks last).
    let mut plan = Vec::new();
    for (implementation, repetitions) in [("quick", 5), ("rare", 2), ("slow", 5)] {
        for repetition in 1..=repetitions {
            let mut planned = Planned::new("ridge", "small", implementation).repetition(repetition);
            let base = if implementation == "rare" { 2_000_000 } else { 1_000_000 };
            planned = planned.time(base + 10_000 * repetition);
            if implementation == "slow" {
                planned = planned.state(State::Record("failed"));
            }
            plan.push(planned);
        }
    }
    write_campaign(&folder, &Campaign::default(), &plan);
    let report = Report::new(&Records::read(std::slice::from_ref(&folder)).unwrap(), None);
    let ranking = report.problems[0].ranking.as_ref().unwrap();
    let ranks: Vec<(&str, f64, usize)> = ranking
        .ranked
        .iter()
        .map(|ranked| (ranked.implementation.as_str(), ranked.mean_rank, ranked.timed_instances))
        .collect();
    assert_eq!(ranks, vec![("quick", 1.0, 1), ("rare", 2.0, 1), ("slow", 3.0, 0)]);
    assert_eq!(
        ranking.against_above(2),
        "no attempt reached, so last on every instance; tied with quick (p = 1.00) and rare (p = 1.00)"
    );
    let markdown = render(&report, Format::Markdown);
    assert!(
        markdown.contains("With 1 instance no pair can be separated: the smallest p the test can give is 1.00."),
        "{markdown}"
    );
    // Five timed attempts resolve a relative difference: the half-width of the median's interval over it.
    let row = report.problems[0].rows.iter().find(|row| row.implementation == "quick").unwrap();
    let summary = row.timed_seconds.unwrap();
    let resolution = row.resolution.expect("5 attempts resolve");
    assert!((resolution - (summary.ci_high - summary.ci_low) / 2.0 / summary.median).abs() < 1e-15);
    assert!(markdown.contains(&format!("±{:.1}%", resolution * 100.0)), "{markdown}");
    // Two resolve nothing; no attempt, no figure.
    let resolves = |name: &str| {
        let row = report.problems[0].rows.iter().find(|row| row.implementation == name).unwrap();
        metewand_report::units::resolution(row)
    };
    assert_eq!(resolves("rare"), format!("none (fewer than {RESOLVING_ATTEMPTS})"));
    assert_eq!(resolves("slow"), "–");
}

#[test]
fn large_cells_resample_their_medians_from_order_statistics_with_the_same_bounds() {
    // Cells above RANK_DRAWN_LIMIT draw their resample medians from order statistics (no reference computation
    // draws them alike): every resampled median stays within its cell, so disjoint cells keep their order.
    let n = RANK_DRAWN_LIMIT + 8;
    let mut rng = SplitMix64::new(11);
    let mut cell = |low: f64| {
        let mut cell: Vec<f64> = (0..n).map(|_| low + rng.open_unit()).collect();
        cell.sort_by(f64::total_cmp);
        cell
    };
    let cells: Vec<Vec<Vec<f64>>> = vec![
        (0..6).map(|_| cell(1.0)).collect(),
        (0..6).map(|_| cell(3.0)).collect(),
        (0..6).map(|_| cell(3.0)).collect(),
        (0..6).map(|_| cell(9.0)).collect(),
    ];
    let names: Vec<String> = ["a", "b", "c", "d"].map(str::to_owned).to_vec();
    let ranking = Ranking::new(&names, &cells, seed_for("large")).unwrap();
    assert_eq!(Ranking::new(&names, &cells, seed_for("large")).as_ref(), Some(&ranking), "the same bytes");
    let bounds: Vec<(&str, f64, f64)> =
        ranking.ranked.iter().map(|ranked| (ranked.implementation.as_str(), ranked.ci_low, ranked.ci_high)).collect();
    assert_eq!((bounds[0].0, bounds[0].1, bounds[0].2), ("a", 1.0, 1.0));
    assert_eq!((bounds[3].0, bounds[3].1, bounds[3].2), ("d", 4.0, 4.0));
    for (name, low, high) in &bounds[1..3] {
        assert!(2.0 <= *low && low < high && *high <= 3.0, "{name}: {low}–{high}");
    }
    // The 6 instances all one way: exact p = 2 / 64 (Holm's method over 6 pairs then keeps it above 0.05).
    let pair = ranking.pair("a", "d").unwrap();
    assert!((pair.p - 2.0 / 64.0).abs() < 1e-15 && pair.second_slower);
    assert!(!ranking.pair("b", "c").unwrap().separated());
}

/// A cell with a time far beyond the others is named with its outlier and its spread, in HTML and Markdown; a
/// steady cell is not. The fences and the coefficient of variation are computed here again, by hand.
#[test]
fn a_noisy_cell_is_warned_of_by_name() {
    let dir = temp();
    let folder = at(&dir, "campaign");
    let times = [10_000_000u64, 10_100_000, 9_900_000, 10_000_000, 30_000_000];
    let mut plan = Vec::new();
    for (repetition, &time) in (1..).zip(&times) {
        plan.push(Planned::new("ridge", "small", "noisy").repetition(repetition).time(time));
        plan.push(Planned::new("ridge", "small", "steady").repetition(repetition).time(10_000_000 + repetition));
    }
    write_campaign(&folder, &Campaign::default(), &plan);
    let report = Report::new(&Records::read(std::slice::from_ref(&folder)).unwrap(), Some(dir.path()));
    let rows = &report.problems[0].rows;
    let noisy = rows.iter().find(|row| row.implementation == "noisy").unwrap();
    // Quartiles of 9.9, 10, 10, 10.1, 30 (ms) by linear interpolation: 10 and 10.1, so the upper fence is 10.25.
    let seconds: Vec<f64> = times.iter().map(|&ns| ns as f64 / 1e9).collect();
    let mean = seconds.iter().sum::<f64>() / 5.0;
    let sd = (seconds.iter().map(|t| (t - mean).powi(2)).sum::<f64>() / 4.0).sqrt();
    assert_eq!(
        noisy.noise,
        [
            "1 of 5 times beyond Tukey's fences (1.5 IQR past the quartiles)".to_owned(),
            format!("coefficient of variation {:.0}% (above 10%)", 100.0 * sd / mean),
        ]
    );
    assert!(rows.iter().find(|row| row.implementation == "steady").unwrap().noise.is_empty());
    for format in [Format::Html, Format::Markdown] {
        let text = render(&report, format);
        assert!(text.contains("Cells whose times are doubtful"), "{format:?}");
        assert!(text.contains("1 of 5 times beyond Tukey"), "{format:?}");
        assert!(!text.contains("steady | small | coefficient"), "{format:?}");
    }
}

/// A fast answer that never reaches ranks last on every instance, below a slow one that does.
#[test]
fn an_implementation_that_does_not_reach_ranks_last_however_fast() {
    let dir = temp();
    let folder = at(&dir, "campaign");
    let mut plan = Vec::new();
    for seed in 0..6 {
        for repetition in 1..=2 {
            plan.push(
                Planned::new("ridge", "small", "wrong")
                    .seed(seed)
                    .repetition(repetition)
                    .time(1_000_000)
                    .state(State::Record("not_reached")),
            );
            plan.push(Planned::new("ridge", "small", "right").seed(seed).repetition(repetition).time(9_000_000));
        }
    }
    write_campaign(&folder, &Campaign::default(), &plan);
    let report = Report::new(&Records::read(std::slice::from_ref(&folder)).unwrap(), Some(dir.path()));
    let ranking = report.problems[0].ranking.as_ref().unwrap();
    let json = serde_json::to_value(ranking).unwrap();
    let row = |name: &str| -> Value {
        let rows = json["ranked"].as_array().unwrap_or_else(|| panic!("{json}"));
        rows.iter().find(|row| row["implementation"] == name).unwrap().clone()
    };
    let rank = |name: &str| (row(name)["mean_rank"].as_f64().unwrap() * 1e6).round() / 1e6;
    assert_eq!((rank("right"), rank("wrong")), (1.0, 2.0), "{json}");
    assert_eq!(row("wrong")["timed_instances"], 0, "{json}");
    assert_eq!(json["pairs"][0]["second"], "wrong", "{json}");
    assert_eq!(json["pairs"][0]["second_slower"], true, "{json}");
    // Six instances all one way: separated, and said after the rule that put it last.
    let position = ranking.ranked.iter().position(|ranked| ranked.implementation == "wrong").unwrap();
    let said = ranking.against_above(position);
    assert!(said.starts_with("no attempt reached, so last on every instance; slower than right (p = "), "{said}");
}

/// A cell whose times rise with the order its attempts started in is warned of as drifting; the same times in a
/// shuffled order are not.
#[test]
fn a_cell_whose_times_drift_over_the_run_is_warned_of() {
    let dir = temp();
    let folder = at(&dir, "campaign");
    // 12 repetitions, 10 ms rising by 0.1 ms each in the order they started; "steady" gets the same times in an
    // order that goes up and down.
    let shuffled = [5u64, 0, 9, 2, 11, 7, 1, 10, 4, 6, 3, 8];
    let mut plan = Vec::new();
    for repetition in 0..12u64 {
        let rising = 10_000_000 + 100_000 * repetition;
        let mixed = 10_000_000 + 100_000 * shuffled[repetition as usize];
        plan.push(
            Planned::new("ridge", "small", "drifting").repetition(repetition + 1).time(rising).started(2 * repetition),
        );
        plan.push(
            Planned::new("ridge", "small", "steady").repetition(repetition + 1).time(mixed).started(2 * repetition + 1),
        );
    }
    write_campaign(&folder, &Campaign::default(), &plan);
    let report = Report::new(&Records::read(std::slice::from_ref(&folder)).unwrap(), Some(dir.path()));
    let rows = &report.problems[0].rows;
    let noise = |name: &str| rows.iter().find(|row| row.implementation == name).unwrap().noise.clone();
    // Every pair in order: S = 66, var = 12 × 11 × 29 / 18 = 212.67, z = 65 / 14.58 = 4.457, p = 8.3e-6.
    assert_eq!(noise("drifting"), ["times rise over the run (Kendall's tau 1.00 against the order, p = 0.000)"]);
    assert!(noise("steady").is_empty(), "{:?}", noise("steady"));
}

/// Times that follow a known power law in a grid's key give that exponent, with an interval around it, for each
/// implementation; the fit is computed here again by hand over the points' medians.
#[test]
fn a_grid_s_scaling_exponent_is_fitted_with_an_interval() {
    let dir = temp();
    let folder = at(&dir, "campaign");
    let points: [(&'static str, f64); 4] = [
        ("sweep[rows=100]", 100.0),
        ("sweep[rows=400]", 400.0),
        ("sweep[rows=1600]", 1600.0),
        ("sweep[rows=6400]", 6400.0),
    ];
    let time = |implementation: &str, rows: f64, repetition: u64| -> u64 {
        let power = if implementation == "quadratic" { 2.0 } else { 1.0 };
        let wobble = 1.0 + 0.01 * (repetition % 3) as f64;
        (1_000.0 * rows.powf(power) * wobble) as u64
    };
    let mut plan = Vec::new();
    for (dataset, rows) in points {
        for implementation in ["linear", "quadratic"] {
            for repetition in 1..=5 {
                let planned = Planned::new("ridge", dataset, implementation).repetition(repetition);
                plan.push(planned.time(time(implementation, rows, repetition)));
            }
        }
    }
    write_campaign(&folder, &Campaign::default(), &plan);
    let report = Report::new(&Records::read(std::slice::from_ref(&folder)).unwrap(), Some(dir.path()));
    let scaling = &report.problems[0].scaling;
    assert_eq!(scaling.len(), 2, "{scaling:?}");
    for fit in scaling {
        // By hand: the median of repetitions 1..=5 has wobble 1.01 (1, 2, 0, 1, 2 → sorted 0, 1, 1, 2, 2).
        let xs: Vec<f64> = points.iter().map(|(_, rows)| rows.ln()).collect();
        let ys: Vec<f64> =
            points.iter().map(|(_, rows)| (time(&fit.implementation, *rows, 1) as f64 / 1e9).ln()).collect();
        let (mx, my) = (xs.iter().sum::<f64>() / 4.0, ys.iter().sum::<f64>() / 4.0);
        let slope = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum::<f64>()
            / xs.iter().map(|x| (x - mx).powi(2)).sum::<f64>();
        assert!((fit.exponent - slope).abs() < 1e-9, "{fit:?} against {slope}");
        let power = if fit.implementation == "quadratic" { 2.0 } else { 1.0 };
        assert!((fit.exponent - power).abs() < 0.01 && fit.low <= fit.exponent && fit.exponent <= fit.high, "{fit:?}");
        assert_eq!((fit.grid.as_str(), fit.key.as_str(), fit.points), ("sweep", "rows", 4));
    }
    let markdown = render(&report, Format::Markdown);
    assert!(markdown.contains("time ∝ rows^2.00 ["), "{markdown}");
}

/// The report names the pairs of implementations whose repetitions leave an instance undecided: with 3 repetitions
/// no pair of cells can be separated (3 against 3 gives at best p = 2/20, Holm-adjusted over an instance's 3 pairs
/// to 0.3); with 8, `fast` is separated from both others on every instance and only the two alike are left.
#[test]
fn the_pairs_repetitions_leave_undecided_are_named() {
    let report_of = |repetitions: u64| {
        let dir = temp();
        let folder = at(&dir, "campaign");
        let mut plan = Vec::new();
        for (dataset, name) in DATASETS.into_iter().enumerate() {
            for seed in 0..SEEDS {
                for implementation in ["left", "fast", "right"] {
                    for repetition in 1..=repetitions {
                        let time = time_ns(implementation, dataset, seed, repetition);
                        plan.push(
                            Planned::new("ridge", name, implementation).seed(seed).repetition(repetition).time(time),
                        );
                    }
                }
            }
        }
        write_campaign(&folder, &Campaign::default(), &plan);
        Report::new(&Records::read(std::slice::from_ref(&folder)).unwrap(), Some(dir.path()))
    };
    let report = report_of(3);
    let undecided = &report.problems[0].undecided;
    let pairs: Vec<(&str, &str, usize, usize)> =
        undecided.iter().map(|pair| (pair.a.as_str(), pair.b.as_str(), pair.undecided, pair.compared)).collect();
    assert_eq!(pairs, [("left", "fast", 8, 8), ("left", "right", 8, 8), ("fast", "right", 8, 8)]);
    assert!((undecided[0].smallest_p - 0.3).abs() < 1e-12, "{undecided:?}");
    let markdown = render(&report, Format::Markdown);
    assert!(markdown.contains("| left | fast | 8 of 8 | 0.30 |"), "{markdown}");

    let report = report_of(8);
    let pairs: Vec<(&str, &str)> =
        report.problems[0].undecided.iter().map(|pair| (pair.a.as_str(), pair.b.as_str())).collect();
    assert_eq!(pairs, [("left", "right")]);
}
