//! How numbers are written in tables: durations with an SI unit and three significant digits, rates as
//! percentages, other numbers with four significant digits. Every renderer uses these, so the HTML, Markdown and
//! text of one report agree.

use crate::report::CellRow;
use crate::stats::Summary;

/// The unit a duration of `seconds` is best written in: its name and its size in seconds.
fn unit(seconds: f64) -> (&'static str, f64) {
    let magnitude = seconds.abs();
    if magnitude >= 1.0 {
        ("s", 1.0)
    } else if magnitude >= 1e-3 {
        ("ms", 1e-3)
    } else if magnitude >= 1e-6 {
        ("µs", 1e-6)
    } else {
        ("ns", 1e-9)
    }
}

/// `value` with three significant digits (at most two decimals above 100).
fn three(value: f64) -> String {
    let magnitude = value.abs();
    if magnitude >= 100.0 {
        format!("{value:.0}")
    } else if magnitude >= 10.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.2}")
    }
}

/// A duration in seconds, e.g. `12.3 ms`.
pub fn duration(seconds: f64) -> String {
    let (name, size) = unit(seconds);
    format!("{} {name}", three(seconds / size))
}

/// A time summary: `median [q1–q3] (95% CI low–high)`, all in the median's unit.
pub fn time_summary(summary: &Summary) -> String {
    let (name, size) = unit(summary.median);
    let f = |value: f64| three(value / size);
    format!(
        "{} {name} [{}–{}] (95% CI {}–{})",
        f(summary.median),
        f(summary.q1),
        f(summary.q3),
        f(summary.ci_low),
        f(summary.ci_high)
    )
}

/// A share as a percentage with one decimal.
pub fn percent(share: f64) -> String {
    format!("{:.1}%", share * 100.0)
}

/// A number with four significant digits, in scientific notation outside [1e-3, 1e6).
pub fn number(value: f64) -> String {
    let magnitude = value.abs();
    if value == 0.0 {
        "0".to_owned()
    } else if !(1e-3..1e6).contains(&magnitude) {
        format!("{value:.3e}")
    } else {
        let decimals = (3 - magnitude.log10().floor() as i32).clamp(0, 6) as usize;
        format!("{value:.decimals$}")
    }
}

/// A ratio with three significant digits and a `×`.
pub fn ratio(value: f64) -> String {
    format!("{}×", three(value))
}

/// The figures of an implementation x dataset row in the outcomes table, after its two names: attempts of
/// planned, each outcome's count, missing and success rate (`–` where there is none). HTML and Markdown wrap the
/// same cells.
pub fn outcome_figures(row: &CellRow) -> Vec<String> {
    let mut figures = vec![format!("{} of {}", row.attempts, row.planned)];
    for count in [row.reached, row.not_reached, row.not_required, row.invalid, row.failed, row.cancelled] {
        figures.push(count.to_string());
    }
    figures.push(row.missing.to_string());
    figures.push(row.success_rate.map_or("–".to_owned(), percent));
    figures
}

/// The figures of an implementation x dataset row in the times table, after its two names: the ranked time, the
/// start-up, prepare and execute medians (one cell, `a / b / c`), and each metric's median (`–` where there is
/// none).
pub fn time_figures(row: &CellRow) -> Vec<String> {
    let mut figures = vec![row.timed_seconds.as_ref().map_or("–".to_owned(), time_summary)];
    let phases: Vec<String> = row.phase_medians.iter().map(|value| value.map_or("–".to_owned(), duration)).collect();
    figures.push(phases.join(" / "));
    figures.extend(row.metric_medians.iter().map(|value| value.map_or("–".to_owned(), number)));
    figures
}
