//! Scaling plots on synthetic grids: the time against a numeric key with a point whose attempts all failed marked
//! rather than dropped, a metric plotted only where it varies, and a non-numeric key's cells as grouped rows.

use metewand_report::scaling::{Quantity, grouped, plots};
use metewand_report::{Format, Records, Report, render};

use super::*;
use crate::report::describe;

/// `linear` and `broken` on `sweep[rows=…]` (100, 1,000, 10,000 rows; two repetitions), `error` growing with the
/// rows; `broken` times out at 10,000 rows both times and once at 1,000. Both also on `kind[solver=…]`, a grid whose
/// key is not a number.
fn sweep() -> Vec<Planned> {
    let mut plan = Vec::new();
    for (dataset, rows) in [("sweep[rows=100]", 100u64), ("sweep[rows=1000]", 1_000), ("sweep[rows=10000]", 10_000)] {
        for implementation in ["linear", "broken"] {
            for repetition in 1..=2 {
                let mut planned = Planned::new("ridge", dataset, implementation)
                    .repetition(repetition)
                    .time(rows * 10_000 + repetition * 1_000)
                    .error(rows as f64 * 1e-6);
                if implementation == "broken" && (rows == 10_000 || (rows == 1_000 && repetition == 2)) {
                    planned = planned.state(State::Record("failed"));
                }
                plan.push(planned);
            }
        }
    }
    for dataset in ["kind[solver=\"lbfgs\"]", "kind[solver=\"cd\"]"] {
        for implementation in ["linear", "broken"] {
            plan.push(Planned::new("ridge", dataset, implementation));
        }
    }
    plan
}

#[test]
fn time_against_a_numeric_key_marks_failed_points_and_a_metric_is_plotted_where_it_varies() {
    let dir = temp();
    let folder = at(&dir, "campaign");
    write_campaign(&folder, &Campaign::default(), &sweep());
    let report = Report::new(&Records::read(std::slice::from_ref(&folder)).unwrap(), Some(dir.path()));
    let section = &report.problems[0];
    let plots = plots(&section.rows, &section.metrics);
    let shown: Vec<(&str, &Quantity)> = plots.iter().map(|plot| (plot.key.as_str(), &plot.quantity)).collect();
    // Every record has the template's peak memory: a flat line, left out; `error` grows with the rows.
    assert_eq!(shown, [("rows", &Quantity::Time), ("rows", &Quantity::Metric(0, "error".to_owned()))]);
    let time = &plots[0];
    assert_eq!(time.grid, "sweep");
    let broken = time.series.iter().find(|series| series.implementation == "broken").unwrap();
    let xs: Vec<f64> = broken.points.iter().map(|point| point.x).collect();
    assert_eq!(xs, [100.0, 1_000.0, 10_000.0], "the point where every attempt failed stays");
    assert_eq!((broken.points[2].median, broken.points[2].failed, broken.points[2].attempts), (None, 2, 2));
    assert_eq!((broken.points[1].median, broken.points[1].failed), (Some(0.010001), 1));
    let linear = time.series.iter().find(|series| series.implementation == "linear").unwrap();
    assert!(linear.points.iter().all(|point| {
        let (low, median, high) = (point.low.unwrap(), point.median.unwrap(), point.high.unwrap());
        low <= median && median <= high && point.failed == 0
    }));

    let html = render(&report, Format::Html);
    let found = describe(&html);
    assert_eq!(found["errors"], serde_json::Value::Array(vec![]));
    let svgs = found["svgs"].as_array().unwrap();
    let plot = svgs.iter().find(|svg| svg["title"] == "execute time against rows on sweep, problem ridge").unwrap();
    let texts: Vec<&str> = plot["texts"].as_array().unwrap().iter().map(|text| text.as_str().unwrap()).collect();
    assert!(texts.contains(&"rows (log₁₀ scale)") && texts.contains(&"1000"), "{texts:?}");
    assert!(texts.contains(&"2 of 2 failed") && texts.contains(&"1 of 2 failed"), "{texts:?}");
    assert!(svgs.iter().any(|svg| svg["title"] == "error against rows on sweep, problem ridge"));
    assert!(!svgs.iter().any(|svg| svg["title"].as_str().unwrap_or("").contains("against solver")));

    // `solver` is not a number: its cells are rows of a table, by value.
    let grouped = grouped(&section.rows);
    let values: Vec<(&str, &str)> =
        grouped.iter().map(|row| (row.value.as_str(), row.row.implementation.as_str())).collect();
    assert_eq!(values, [("\"cd\"", "broken"), ("\"cd\"", "linear"), ("\"lbfgs\"", "broken"), ("\"lbfgs\"", "linear")]);
    assert!(html.contains("Cells along each non-numeric key of a dataset grid"), "{html}");
}
