//! The report's tables, each built once from the [`Report`] as a [`Table`]: [`crate::html`] and [`crate::text`] write
//! the same tables through their format's renderer, so the HTML, the Markdown and the CSV cannot disagree.

use std::collections::BTreeSet;

use crate::curves::MetricCurves;
use crate::ranks::p_value;
use crate::report::{EnvironmentEntry, ProblemSection, Report};
use crate::stats::{ALPHA, BOOTSTRAP_RESAMPLES, smallest_signed_p};
use crate::table::{Cell, Column, Kind, Table};
use crate::units;

/// The outcomes, in the order tables show them.
pub const OUTCOMES: [&str; 6] = ["reached", "not_reached", "not_required", "invalid", "failed", "cancelled"];

/// The values of τ the profile table shows.
pub const PROFILE_TAUS: [f64; 4] = [1.0, 2.0, 4.0, 10.0];

/// A column per outcome: `reached` always shown, the others counts (folded away where no row has one).
fn outcome_columns() -> impl Iterator<Item = Column> {
    OUTCOMES
        .into_iter()
        .map(|outcome| if outcome == "reached" { Column::figure(outcome) } else { Column::count(outcome) })
}

/// Each campaign folder against its plan: planned, done, each outcome, never started, unfinished, missing.
pub fn plan(report: &Report) -> Table {
    let mut columns = vec![
        Column::text("folder"),
        Column::text("campaign"),
        Column::text("sessions"),
        Column::figure("planned"),
        Column::figure("done"),
    ];
    columns.extend(outcome_columns());
    columns.extend([Column::count("never started"), Column::count("unfinished"), Column::figure("missing")]);
    let mut table = Table::new(columns).unaligned_in_markdown();
    for campaign in &report.campaigns {
        let mut row = vec![
            Cell::link(&campaign.folder, &campaign.link),
            Cell::text(&campaign.name),
            Cell::text(campaign.sessions()),
            Cell::count(campaign.planned),
            Cell::count(campaign.done),
        ];
        row.extend(OUTCOMES.map(|outcome| Cell::count(campaign.by_outcome.get(outcome).copied().unwrap_or(0))));
        row.extend([campaign.never_started, campaign.unfinished, campaign.missing()].map(Cell::count));
        table.push(row);
    }
    table
}

/// Failures (and cancellations) by role, phase and kind, with how many attempts each has.
pub fn failures(report: &Report) -> Table {
    let columns = ["role", "phase", "kind"].map(Column::text).into_iter().chain([Column::figure("attempts")]).collect();
    let mut table = Table::new(columns).unaligned_in_markdown();
    for group in &report.failures {
        table.push(vec![
            Cell::text(&group.role),
            Cell::text(&group.phase),
            Cell::text(&group.kind),
            Cell::count(group.attempts.len()),
        ]);
    }
    table
}

/// A problem's ranking, the report's first table: each implementation by mean rank with its bootstrap interval,
/// and in words whether a test separates it from each one ranked above it (with Holm's adjusted p). `None` for a
/// problem without an instance.
pub fn ranking(section: &ProblemSection) -> Option<Table> {
    let ranking = section.ranking.as_ref()?;
    let columns = vec![
        Column::text("implementation"),
        Column::figure("mean rank (95% CI)"),
        Column::figure("instances timed"),
        Column::text("against those ranked above"),
    ];
    let n = ranking.instances;
    let mut caption = format!(
        "Problem {}: mean rank over {n} instance{} (dataset × dataset seed; 1 is fastest) by each cell's median {} \
         time over attempts that reached; a cell without one (not reached, failed, timed out or not run) ranks last. The \
         interval is a bootstrap over repetitions within cells, then instances ({} resamples, fixed seed); p is the \
         two-sided Wilcoxon signed-rank test of the per-instance log ratios of medians, Holm-adjusted over {} \
         pair{}; tied means p ≥ {}.",
        section.problem,
        if n == 1 { "" } else { "s" },
        section.timed,
        BOOTSTRAP_RESAMPLES,
        ranking.pairs.len(),
        if ranking.pairs.len() == 1 { "" } else { "s" },
        ALPHA
    );
    let floor = smallest_signed_p(n);
    if floor >= ALPHA && !ranking.pairs.is_empty() {
        caption.push_str(&format!(
            " With {n} instance{} no pair can be separated: the smallest p the test can give is {}.",
            if n == 1 { "" } else { "s" },
            p_value(floor)
        ));
    }
    let mut table = Table::new(columns).caption(caption);
    for (position, ranked) in ranking.ranked.iter().enumerate() {
        table.push(vec![
            Cell::text(&ranked.implementation),
            Cell::text(format!(
                "{} ({}–{})",
                units::rank(ranked.mean_rank),
                units::rank(ranked.ci_low),
                units::rank(ranked.ci_high)
            )),
            Cell::text(format!("{} of {n}", ranked.timed_instances)),
            Cell::text(ranking.against_above(position)),
        ]);
    }
    Some(table)
}

/// A problem's implementation × dataset rows: attempts of planned, each outcome, missing and success rate.
pub fn outcomes(section: &ProblemSection) -> Table {
    let mut columns = vec![Column::text("implementation"), Column::text("dataset"), Column::figure("attempts")];
    columns.extend(outcome_columns());
    columns.extend([Column::count("missing"), Column::figure("success rate")]);
    let mut table = Table::new(columns);
    for row in &section.rows {
        let mut cells = vec![Cell::text(&row.implementation), Cell::text(&row.dataset)];
        cells.extend(units::outcome_figures(row).into_iter().map(Cell::text));
        table.push(cells);
    }
    table
}

/// How each implementation's time scales along each numeric key of a dataset grid (`None` without a series).
pub fn scaling(section: &ProblemSection) -> Option<Table> {
    let columns = vec![
        Column::text("implementation"),
        Column::text("grid"),
        Column::text("scaling (95% CI)"),
        Column::figure("points"),
    ];
    let mut table = Table::new(columns).caption(format!(
        "How each implementation's median {} time scales with each numeric key of a dataset grid: time ∝ key^b, b \
         fitted by least squares in log-log over the points' medians; the interval is a bootstrap over repetitions \
         within points ({BOOTSTRAP_RESAMPLES} resamples, fixed seed).",
        section.timed
    ));
    for fit in &section.scaling {
        table.push(vec![
            Cell::text(&fit.implementation),
            Cell::text(&fit.grid),
            Cell::text(format!("time ∝ {}^{:.2} [{:.2}, {:.2}]", fit.key, fit.exponent, fit.low, fit.high)),
            Cell::text(fit.points.to_string()),
        ]);
    }
    (!table.rows.is_empty()).then_some(table)
}

/// The cells of a problem whose times are doubtful, with why (`None` when none is).
pub fn noise(section: &ProblemSection) -> Option<Table> {
    let mut table = Table::new(["implementation", "dataset", "warning"].map(Column::text).to_vec())
        .caption("Cells whose times are doubtful: outliers beyond Tukey's fences, or a high coefficient of variation.");
    for row in &section.rows {
        for warning in &row.noise {
            table.push(vec![Cell::text(&row.implementation), Cell::text(&row.dataset), Cell::text(warning)]);
        }
    }
    (!table.rows.is_empty()).then_some(table)
}

/// A problem's implementation × dataset times: the ranked time's median with its interquartile range and the
/// bootstrap interval of the median, the phases' medians, and each metric's median.
pub fn times(section: &ProblemSection) -> Table {
    let timed = &section.timed;
    let mut columns = vec![
        Column::text("implementation"),
        Column::text("dataset"),
        Column::figure(format!("{timed} time median [IQR] (95% CI)"))
            .long(format!("{timed} time median [IQR] (95% CI of the median)")),
        Column::figure("resolves").long("resolves (± relative to the median)"),
        Column::figure("start-up / prepare / execute medians"),
    ];
    columns.extend(section.metrics.iter().map(|metric| Column::figure(format!("median {metric}"))));
    let mut table = Table::new(columns);
    for (row, figures) in section.rows.iter().zip(units::time_figures(&section.rows)) {
        let mut cells = vec![Cell::text(&row.implementation), Cell::text(&row.dataset)];
        let mut figures = figures.into_iter().map(Cell::text);
        cells.extend(figures.next());
        cells.push(Cell::text(units::resolution(row)));
        cells.extend(figures);
        table.push(cells);
    }
    table
}

/// A problem's performance profiles as ρ(τ) at each of [`PROFILE_TAUS`], and the share reached at all.
pub fn profile(section: &ProblemSection) -> Table {
    let mut columns = vec![Column::text("implementation")];
    columns.extend(PROFILE_TAUS.map(|tau| Column::figure(format!("ρ({tau})"))));
    columns.push(Column::figure("reached at all"));
    let mut table = Table::new(columns).caption(format!(
        "Performance profile over {} instances (share of instances within τ times the best time to reached):",
        section.profile.instances
    ));
    for series in &section.profile.series {
        let mut cells = vec![Cell::text(&series.implementation)];
        cells.extend(PROFILE_TAUS.map(|tau| Cell::text(units::percent(series.rho(tau)))));
        cells.push(Cell::text(units::percent(series.rho(f64::MAX))));
        table.push(cells);
    }
    table
}

/// One metric's convergence curves, a row per series: its first and last checkpoint (the median time and median
/// value, the last with its interquartile range). Every point is in the campaign's `profiles.csv`; the HTML draws
/// them.
pub fn curves(metric: &MetricCurves) -> Table {
    let columns = vec![
        Column::text("implementation"),
        Column::text("dataset"),
        Column::figure("attempts"),
        Column::figure("checkpoints"),
        Column::figure("first checkpoint"),
        Column::figure("last checkpoint [IQR]"),
    ];
    let mut table = Table::new(columns).caption(format!(
        "Convergence of {} (streamed attempts: medians over the attempts at each checkpoint, time measured by \
         Metewand):",
        metric.metric
    ));
    for series in &metric.series {
        let (Some(first), Some(last)) = (series.points.first(), series.points.last()) else { continue };
        table.push(vec![
            Cell::text(&series.implementation),
            Cell::text(&series.dataset),
            Cell::count(series.attempts),
            Cell::text(last.checkpoint.to_string()),
            Cell::text(format!("{}: {}", units::duration(first.seconds), units::number(first.median))),
            Cell::text(format!(
                "{}: {} [{}–{}]",
                units::duration(last.seconds),
                units::number(last.median),
                units::number(last.q1),
                units::number(last.q3)
            )),
        ]);
    }
    table
}

/// One environment as a key–value table: the runs that share it, Metewand, the host and its hardware, the commit.
pub fn environment(entry: &EnvironmentEntry) -> Table {
    let env = &entry.environment;
    let runs: Vec<String> = entry.runs.iter().map(|(started, jobs)| format!("{started} (-j {jobs})")).collect();
    let unknown = || "unknown".to_owned();
    let rows: [(&str, String); 10] = [
        ("runs", runs.join(", ")),
        ("Metewand", env.metewand_version.clone()),
        ("host", env.host.clone().unwrap_or_else(unknown)),
        ("OS", env.os.clone().unwrap_or_else(unknown)),
        ("kernel", env.kernel.clone().unwrap_or_else(unknown)),
        ("CPU", env.cpu_model.clone().unwrap_or_else(unknown)),
        ("logical CPUs", env.logical_cpus.to_string()),
        (
            "memory",
            env.memory_bytes.map_or_else(unknown, |bytes| format!("{:.1} GiB", bytes.get() as f64 / 1073741824.0)),
        ),
        ("git commit", env.git_commit.clone().unwrap_or_else(|| "not a git checkout".to_owned())),
        (
            "uncommitted changes",
            env.git_dirty.map_or_else(unknown, |dirty| if dirty { "yes" } else { "no" }.to_owned()),
        ),
    ];
    let mut table = Table::new(vec![Column::new(Kind::Heading, ""), Column::text("")]).headless();
    for (name, value) in rows {
        table.push(vec![Cell::text(name), Cell::text(value)]);
    }
    // What skewed times on the machine, as the run recorded it (runs before it was recorded have none).
    if let Some(noise) = &env.noise {
        let warnings = metewand_campaign::environment::noise_warnings(noise, env.logical_cpus.get());
        let said = if warnings.is_empty() { "none warned of".to_owned() } else { warnings.join("; ") };
        table.push(vec![Cell::text("noise"), Cell::text(said)]);
    }
    table
}

/// The worker programs of one environment: each worker's command, the program it found, and its SHA-256.
pub fn workers(entry: &EnvironmentEntry) -> Table {
    let mut table = Table::new(["worker", "command", "program", "SHA-256"].map(Column::text).to_vec());
    for program in &entry.environment.workers {
        let resolved = program.resolved.clone().unwrap_or_else(|| "not found".to_owned());
        let script = program.script.as_ref().map_or(String::new(), |line| format!(" (script: {line})"));
        table.push(vec![
            Cell::text(&program.worker),
            Cell::code(&program.command),
            Cell::code(resolved).then(script),
            Cell::code(program.sha256.map_or_else(|| "–".to_owned(), |sha| sha.to_string())),
        ]);
    }
    table
}

/// The identities the records name: each implementation's, problem's and dataset's ids, more than one where it
/// changed between runs, and the folder of each implementation from outside the repository.
pub fn identities(report: &Report) -> Table {
    let mut table = Table::new(["what", "name", "id"].map(Column::text).to_vec());
    let ids = &report.identities;
    for (what, map) in [
        ("implementation worker", &ids.implementations),
        ("problem contract", &ids.contracts),
        ("evaluator worker", &ids.evaluators),
        ("dataset materializer", &ids.materializers),
        ("external implementation", &ids.external),
    ] {
        for (name, set) in map {
            table.push(vec![Cell::text(what), Cell::text(name), Cell::code_lines(set)]);
        }
    }
    if let Some(digest) = &report.bundle {
        table.push(vec![Cell::text("bundle"), Cell::text("manifest SHA-256"), Cell::code(digest)]);
    }
    table
}

/// The implementation × dataset table of every problem in one: a row per cell, numbers unrounded, times in seconds,
/// a column per metric any problem has.
pub fn cells(report: &Report) -> Table {
    let metrics: BTreeSet<&String> = report.problems.iter().flat_map(|section| &section.metrics).collect();
    let mut columns: Vec<Column> = ["problem", "implementation", "dataset"].map(Column::text).to_vec();
    columns.extend(
        [
            "planned",
            "attempts",
            "reached",
            "not_reached",
            "not_required",
            "invalid",
            "failed",
            "cancelled",
            "missing",
            "success_rate",
        ]
        .map(Column::figure),
    );
    columns.push(Column::text("timed"));
    columns.extend(
        [
            "time_n",
            "time_median_s",
            "time_q1_s",
            "time_q3_s",
            "time_median_ci_low_s",
            "time_median_ci_high_s",
            "startup_median_s",
            "prepare_median_s",
            "execute_median_s",
        ]
        .map(Column::figure),
    );
    columns.extend(metrics.iter().map(|metric| Column::figure(format!("median.{metric}"))));
    let mut table = Table::new(columns);
    let number = |value: Option<f64>| Cell::text(value.map_or(String::new(), |value| value.to_string()));
    for section in &report.problems {
        for row in &section.rows {
            let summary = row.timed_seconds.as_ref();
            let mut cells =
                vec![Cell::text(&section.problem), Cell::text(&row.implementation), Cell::text(&row.dataset)];
            cells.extend(
                [row.planned, row.attempts, row.reached, row.not_reached, row.not_required, row.invalid, row.failed]
                    .map(Cell::count),
            );
            cells.extend([row.cancelled, row.missing].map(Cell::count));
            cells.extend([number(row.success_rate), Cell::text(&section.timed)]);
            cells.push(Cell::count(summary.map_or(0, |s| s.n)));
            cells.extend(
                [summary.map(|s| s.median), summary.map(|s| s.q1), summary.map(|s| s.q3)]
                    .into_iter()
                    .chain([summary.map(|s| s.ci_low), summary.map(|s| s.ci_high)])
                    .chain(row.phase_medians)
                    .map(number),
            );
            cells.extend(metrics.iter().map(|metric| {
                number(section.metrics.iter().position(|name| name == *metric).and_then(|i| row.metric_medians[i]))
            }));
            table.push(cells);
        }
    }
    table
}
