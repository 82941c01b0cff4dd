//! How numbers are written in tables: durations with an SI unit and three significant digits, rates as
//! percentages, other numbers with four significant digits. Every renderer uses these, so the HTML, Markdown and
//! text of one report agree.

use crate::measure::Measure;
use crate::report::{CellRow, RESOLVING_ATTEMPTS};
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

/// A duration in seconds, e.g. `12.3 ms`; none at all is `0` (a reused session's start-up), in no unit.
pub fn duration(seconds: f64) -> String {
    if seconds == 0.0 {
        return "0".to_owned();
    }
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

/// The binary unit a size of `bytes` is best written in: its name and its size in bytes.
fn byte_unit(bytes: f64) -> (&'static str, f64) {
    let magnitude = bytes.abs();
    [("GiB", 1_073_741_824.0), ("MiB", 1_048_576.0), ("KiB", 1024.0)]
        .into_iter()
        .find(|(_, size)| magnitude >= *size)
        .unwrap_or(("B", 1.0))
}

/// A size in bytes, e.g. `30.0 MiB`.
pub fn bytes(bytes: f64) -> String {
    let (name, size) = byte_unit(bytes);
    format!("{} {name}", three(bytes / size))
}

/// A summary of sizes in bytes, as [`time_summary`] writes durations.
pub fn bytes_summary(summary: &Summary) -> String {
    let (name, size) = byte_unit(summary.median);
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

/// A mean rank, with two decimals.
pub fn rank(rank: f64) -> String {
    format!("{rank:.2}")
}

/// A cell's resolution ([`CellRow::resolution`]): `±3.1%`; `none (fewer than 4)` for a cell with too few timed
/// attempts to resolve anything; `–` for a cell without a timed attempt.
pub fn resolution(row: &CellRow) -> String {
    match (row.resolution, &row.timed_seconds) {
        (Some(share), _) => format!("±{}", percent(share)),
        (None, Some(summary)) if summary.n < RESOLVING_ATTEMPTS => format!("none (fewer than {RESOLVING_ATTEMPTS})"),
        _ => "–".to_owned(),
    }
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

/// How many of [`time_figures`]' figures come before the metrics' medians: the ranked measure, the phases, the CPU
/// time and the peak memory.
pub const LEADING_FIGURES: usize = 4;

/// The figures of an implementation x dataset row in the times table, after its two names: the ranked `measure`,
/// the start-up, prepare and execute medians (one cell, `a / b / c`), the CPU time and peak memory medians, and
/// each metric's median (`–` where there is none).
pub fn time_figures(rows: &[CellRow], measure: Measure) -> Vec<Vec<String>> {
    // Each metric column in one format, so that its numbers compare at a glance.
    let metrics = rows.first().map_or(0, |row| row.metric_medians.len());
    let columns: Vec<Vec<String>> = (0..metrics)
        .map(|metric| number_column(&rows.iter().map(|row| row.metric_medians[metric]).collect::<Vec<_>>()))
        .collect();
    rows.iter()
        .enumerate()
        .map(|(index, row)| {
            let mut figures =
                vec![row.timed_seconds.as_ref().map_or("–".to_owned(), |summary| measure.summary(summary))];
            let phases: Vec<String> =
                row.phase_medians.iter().map(|value| value.map_or("–".to_owned(), duration)).collect();
            figures.push(phases.join(" / "));
            figures.push(row.cpu_seconds_median.map_or("–".to_owned(), duration));
            figures.push(row.peak_memory_bytes_median.map_or("–".to_owned(), bytes));
            figures.extend(columns.iter().map(|column| column[index].clone()));
            figures
        })
        .collect()
}

/// A column of numbers in one format: scientific notation with four significant digits for all when any needs
/// it (outside [1e-3, 1e6)), else fixed with the decimals the smallest needs for four significant digits; `–`
/// where there is none.
pub fn number_column(values: &[Option<f64>]) -> Vec<String> {
    let nonzero = || values.iter().flatten().copied().filter(|value| *value != 0.0);
    let scientific = nonzero().any(|value| !(1e-3..1e6).contains(&value.abs()));
    let decimals =
        nonzero().map(|value| (3 - value.abs().log10().floor() as i32).clamp(0, 6) as usize).max().unwrap_or(0);
    values
        .iter()
        .map(|value| match value {
            None => "–".to_owned(),
            Some(value) if scientific && *value != 0.0 => format!("{value:.3e}"),
            Some(_) if scientific => "0".to_owned(),
            Some(value) => format!("{value:.decimals$}"),
        })
        .collect()
}

/// A parameter's value as written in a configuration: `0.5`, `250`, or `1e-9`, `2.5e-7` and `3e6` when it is tiny or
/// large (never `0.000000001`).
pub fn plain(value: f64) -> String {
    if value == 0.0 || (1e-3..1e5).contains(&value.abs()) { format!("{value}") } else { format!("{value:e}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_column_of_numbers_has_one_format() {
        // One value needs scientific notation, so all do; zero and none stay short.
        assert_eq!(
            number_column(&[Some(100_000.0), Some(1_000_000.0), Some(0.0), None]),
            ["1.000e5", "1.000e6", "0", "–"]
        );
        // Fixed: as many decimals as the smallest number needs, for every number.
        assert_eq!(number_column(&[Some(2.467), Some(24.54), Some(0.0)]), ["2.467", "24.540", "0.000"]);
    }

    #[test]
    fn a_duration_has_its_unit_but_none_at_all_is_zero() {
        assert_eq!(duration(0.0123), "12.3 ms");
        assert_eq!(duration(2e-7), "200 ns");
        assert_eq!(duration(0.0), "0");
    }
}
