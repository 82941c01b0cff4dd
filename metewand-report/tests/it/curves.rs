//! Convergence curves on synthetic campaigns: seeds combined on a common time grid (checked against a median
//! computed here from each seed's step function), one panel per dataset, constant metrics dropped, an
//! implementation with one checkpoint still drawn, the tolerance line, the time-to-tolerance table, and tick labels.

use metewand_report::curves::{CurveSeries, MetricCurves};
use metewand_report::svg::value_label;
use metewand_report::units::plain;
use metewand_report::{Format, Records, Report, render};
use serde_json::Value;

use super::*;
use crate::report::describe;

/// Problem `p` on `small`, three dataset seeds: `stream` streams `error` with 2, 4 and 3 checkpoints (`reached`
/// from 2 ms on seed 0, from 4 ms on seed 1, never on seed 2, whose outcome is `not_reached`); `few` streams one
/// checkpoint; `once` answers in one shot with an error of 0.5, the best any implementation reached. Every record
/// also has `double` (twice `error`) and `constant` (always 0), and the problem's tolerance is `tolerance`.
fn uneven(tolerance: Option<f64>) -> Vec<Planned> {
    let traces: [&[(u64, &'static str, f64)]; 3] = [
        &[(1_000_000, "not_reached", 8.0), (2_000_000, "reached", 4.0)],
        &[
            (1_000_000, "not_reached", 8.0),
            (2_000_000, "not_reached", 4.0),
            (4_000_000, "reached", 2.0),
            (8_000_000, "reached", 1.0),
        ],
        &[(1_500_000, "not_reached", 6.0), (3_000_000, "not_reached", 3.0), (6_000_000, "not_reached", 1.5)],
    ];
    let mut plan = Vec::new();
    for (seed, trace) in traces.iter().enumerate() {
        let seed = seed as u64;
        let last = trace[trace.len() - 1].2;
        let mut stream = Planned::new("p", "small", "stream").seed(seed).time(9_000_000).profile(trace).error(last);
        if seed == 2 {
            stream = stream.state(State::Record("not_reached"));
        }
        plan.push(stream);
        plan.push(
            Planned::new("p", "small", "few")
                .seed(seed)
                .time(4_000_000)
                .profile(&[(3_000_000, "reached", 2.0)])
                .error(2.0),
        );
        plan.push(Planned::new("p", "small", "once").seed(seed).error(0.5));
    }
    for planned in &mut plan {
        planned.scaled = vec![("constant", 0.0), ("double", 2.0)];
        planned.tolerance = tolerance;
    }
    plan
}

fn report_of(plan: &[Planned]) -> (tempfile::TempDir, Report) {
    let dir = temp();
    let folder = at(&dir, "campaign");
    write_campaign(&folder, &Campaign::default(), plan);
    let report = Report::new(&Records::read(std::slice::from_ref(&folder)).unwrap(), Some(dir.path()));
    (dir, report)
}

fn series<'c>(curves: &'c [MetricCurves], metric: &str, implementation: &str) -> &'c CurveSeries {
    let metric = curves.iter().find(|curves| curves.metric == metric).unwrap();
    assert_eq!(metric.panels.len(), 1, "one dataset, one panel");
    metric.panels[0].series.iter().find(|series| series.implementation == implementation).unwrap()
}

/// The median of the seeds' step values at `seconds`, less the best (0.5): an independent computation.
fn expected(seconds: f64) -> f64 {
    let seeds: [&[(f64, f64)]; 3] = [
        &[(0.001, 8.0), (0.002, 4.0)],
        &[(0.001, 8.0), (0.002, 4.0), (0.004, 2.0), (0.008, 1.0)],
        &[(0.0015, 6.0), (0.003, 3.0), (0.006, 1.5)],
    ];
    let mut values: Vec<f64> = seeds
        .iter()
        .map(|seed| seed.iter().rev().find(|(at, _)| *at <= seconds * (1.0 + 1e-12)).unwrap().1 - 0.5)
        .collect();
    values.sort_by(f64::total_cmp);
    values[1]
}

#[test]
fn seeds_with_different_checkpoint_counts_are_combined_on_a_time_grid_not_by_checkpoint_number() {
    let (_dir, report) = report_of(&uneven(None));
    let curves = &report.problems[0].curves;
    let stream = series(curves, "error", "stream");
    assert_eq!((stream.attempts, stream.checkpoints), (3, 4));
    let (first, last) = (stream.points.first().unwrap(), stream.points.last().unwrap());
    // The series starts when every seed has a checkpoint and ends when the last one ended.
    assert!((first.seconds - 0.0015).abs() < 1e-12 && (last.seconds - 0.008).abs() < 1e-12, "{stream:?}");
    // At its end the seeds hold 4, 1 and 1.5: the median suboptimality is 1.5 - 0.5, not seed 1's 1 - 0.5 that
    // pooling checkpoint 4 would give.
    assert_eq!(last.median, 1.0);
    assert_eq!((last.q1, last.q3), (0.75, 2.25));
    for point in &stream.points {
        assert!((point.median - expected(point.seconds)).abs() < 1e-12, "at {} s: {point:?}", point.seconds);
    }
    assert!(stream.points.len() > 10, "the panel's grid lies between the ends");
    assert!(stream.points.windows(2).all(|pair| pair[0].seconds < pair[1].seconds));
    // `double` is twice `error` (and its best twice 0.5), so twice its suboptimality.
    let double = series(curves, "double", "stream");
    assert_eq!(double.points.last().unwrap().median, 2.0);
}

#[test]
fn an_implementation_with_one_checkpoint_is_drawn_and_a_constant_metric_is_not() {
    let (_dir, report) = report_of(&uneven(None));
    let section = &report.problems[0];
    let metrics: Vec<&str> = section.curves.iter().map(|curves| curves.metric.as_str()).collect();
    assert_eq!(metrics, ["double", "error"], "`constant` never changes along a run");
    let few = series(&section.curves, "error", "few");
    assert_eq!(few.points.len(), 1);
    assert_eq!((few.points[0].seconds, few.points[0].median), (0.003, 1.5));
    let html = render(&report, Format::Html);
    let found = describe(&html);
    assert_eq!(found["errors"], Value::Array(vec![]));
    let titles: Vec<&str> = found["svgs"].as_array().unwrap().iter().filter_map(|svg| svg["title"].as_str()).collect();
    assert!(titles.contains(&"error suboptimality against time on small, problem p"), "{titles:?}");
    assert!(!titles.iter().any(|title| title.contains("constant")), "{titles:?}");
    let panel = found["svgs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|svg| svg["title"] == "error suboptimality against time on small, problem p")
        .unwrap();
    let names: Vec<&str> = panel["series"].as_array().unwrap().iter().map(|name| name.as_str().unwrap()).collect();
    assert_eq!(names, ["stream", "few"], "one series per implementation that streamed");
    let texts: Vec<&str> = panel["texts"].as_array().unwrap().iter().map(|text| text.as_str().unwrap()).collect();
    assert!(texts.contains(&"error − best reached"), "{texts:?}");
    assert!(!html.contains("class=\"tolerance\""), "no tolerance, no line");
}

#[test]
fn the_problems_tolerance_is_drawn_and_the_time_to_reach_it_tabled() {
    let (dir, report) = report_of(&uneven(Some(1e-9)));
    let section = &report.problems[0];
    assert_eq!(section.tolerance, Some(1e-9));
    let html = render(&report, Format::Html);
    assert_eq!(html.matches("<g class=\"tolerance\">").count(), 2, "one line in each metric's panel");
    assert!(html.contains(">tolerance 1e-9</text>"));
    let rows: Vec<(&str, usize, usize, Option<f64>)> = section
        .to_tolerance
        .iter()
        .map(|row| (row.implementation.as_str(), row.attempts, row.reached, row.median_seconds))
        .collect();
    // `stream` reached at 2 ms and 4 ms and never on seed 2; `few` at its one checkpoint; `once` in its 1 ms.
    assert_eq!(rows, [("stream", 3, 2, Some(0.003)), ("few", 3, 3, Some(0.003)), ("once", 3, 3, Some(0.001))]);
    let markdown = render(&report, Format::Markdown);
    assert!(markdown.contains("| small | stream | 3.00 ms | 2 of 3 |"), "{markdown}");
    // The same records give the same bytes: the grid, the medians and the panels are deterministic.
    let again = Report::new(&Records::read(&[dir.path().join("campaign")]).unwrap(), Some(dir.path()));
    assert!(render(&again, Format::Html) == html, "the same records gave other bytes");
}

#[test]
fn tick_labels_are_readable() {
    let table: [(f64, bool, f64, &str); 12] = [
        (4e-10, false, 1e-10, "4e-10"),
        (1.5e-9, false, 5e-10, "1.5e-9"),
        (0.0, false, 1e-10, "0"),
        (-0.0, false, 0.2, "0"),
        (0.5, false, 0.1, "0.5"),
        (0.25, false, 0.05, "0.25"),
        (250.0, false, 50.0, "250"),
        (2_500_000.0, false, 500_000.0, "2.5e6"),
        (1e-10, true, 1.0, "1e-10"),
        (0.001, true, 1.0, "0.001"),
        (1000.0, true, 1.0, "1000"),
        (1e6, true, 1.0, "1e6"),
    ];
    for (value, logarithmic, step, label) in table {
        assert_eq!(value_label(value, logarithmic, step), label, "{value} (step {step})");
    }
    assert_eq!([plain(1e-9), plain(0.5), plain(2.5e-7), plain(250.0)], ["1e-9", "0.5", "2.5e-7", "250"]);
}
