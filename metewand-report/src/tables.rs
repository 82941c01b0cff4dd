//! The report's tables, each built once from the [`Report`] as a [`Table`]: [`crate::html`] and [`crate::text`] write
//! the same tables through their format's renderer, so the HTML, the Markdown and the CSV cannot disagree.

use std::collections::{BTreeMap, BTreeSet};

use crate::curves::MetricCurves;
use crate::measure::Measure;
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

/// The cells along each non-numeric key of a dataset grid, grouped by grid and key, a row per value and
/// implementation (`None` without such a key).
pub fn grouped(section: &ProblemSection) -> Option<Table> {
    let timed = &section.timed;
    let columns = vec![
        Column::text("grid"),
        Column::text("key"),
        Column::text("value"),
        Column::text("implementation"),
        Column::figure(format!("{timed} time median [IQR] (95% CI)")),
        Column::figure("failed"),
    ];
    let mut table = Table::new(columns)
        .caption("Cells along each non-numeric key of a dataset grid, grouped by grid and key, by the key's value:");
    let grouped = crate::scaling::grouped(&section.rows);
    let rows: Vec<_> = grouped.iter().map(|grouped| grouped.row.clone()).collect();
    for (grouped, figures) in grouped.iter().zip(units::time_figures(&rows, section.measure)) {
        table.push(vec![
            Cell::text(&grouped.grid),
            Cell::text(&grouped.key),
            Cell::code(&grouped.value),
            Cell::text(&grouped.row.implementation),
            Cell::text(figures.into_iter().next().unwrap_or_default()),
            Cell::text(format!("{} of {}", grouped.row.failed, grouped.row.attempts)),
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

/// The pairs of implementations whose repetitions leave an instance undecided (`None` when none does).
pub fn undecided(section: &ProblemSection) -> Option<Table> {
    if section.undecided.is_empty() {
        return None;
    }
    let columns = vec![
        Column::text("implementation"),
        Column::text("and"),
        Column::figure("instances undecided"),
        Column::figure("smallest p"),
    ];
    let mut table = Table::new(columns).caption(
        "Pairs of implementations that some instance's repetitions leave undecided: on that dataset and seed, no \
         two-sided Mann–Whitney test of their times (Holm-adjusted within the instance) is below 0.05. More \
         repetitions could decide them, and campaign run --until-decided adds them only there.",
    );
    for pair in &section.undecided {
        table.push(vec![
            Cell::text(&pair.a),
            Cell::text(&pair.b),
            Cell::text(format!("{} of {}", pair.undecided, pair.compared)),
            Cell::text(p_value(pair.smallest_p)),
        ]);
    }
    Some(table)
}

/// A problem's implementation × dataset times: the ranked time's median with its interquartile range and the
/// bootstrap interval of the median, the phases' medians, and each metric's median.
pub fn times(section: &ProblemSection) -> Table {
    let measured = section.measure.column(&section.timed);
    let mut columns = vec![
        Column::text("implementation"),
        Column::text("dataset"),
        Column::figure(format!("{measured} median [IQR] (95% CI)"))
            .long(format!("{measured} median [IQR] (95% CI of the median)")),
        Column::figure("resolves").long("resolves (± relative to the median)"),
        Column::figure("start-up / prepare / execute medians"),
        Column::figure("CPU time median").long("CPU time median (user and system, the whole session)"),
        Column::figure("peak memory median").long("peak memory median (resident)"),
    ];
    // Many metrics would make the table wider than a screen: they get tables of their own (`metrics`).
    let inline = section.metrics.len() <= INLINE_METRICS;
    if inline {
        columns.extend(section.metrics.iter().map(|metric| Column::figure(format!("median {metric}"))));
    }
    let mut table = Table::new(columns);
    for (row, figures) in section.rows.iter().zip(units::time_figures(&section.rows, section.measure)) {
        let mut cells = vec![Cell::text(&row.implementation), Cell::text(&row.dataset)];
        let mut figures = figures.into_iter().map(Cell::text);
        cells.extend(figures.next());
        cells.push(Cell::text(units::resolution(row)));
        cells.extend(figures.take(if inline { usize::MAX } else { units::LEADING_FIGURES - 1 }));
        table.push(cells);
    }
    table
}

/// The most metric columns the times table holds beside its seven others (names, time, resolution, phases, CPU
/// time, memory); a problem with more has its metrics' medians in tables of their own.
pub const INLINE_METRICS: usize = 2;

/// The metric columns of each of those tables, so that no table is wider than a screen.
pub const METRIC_COLUMNS: usize = 4;

/// A problem's metrics' medians per implementation and dataset, [`METRIC_COLUMNS`] metrics a table, when the
/// times table cannot hold them (more than [`INLINE_METRICS`]; none otherwise).
pub fn metrics(section: &ProblemSection) -> Vec<Table> {
    if section.metrics.len() <= INLINE_METRICS {
        return Vec::new();
    }
    let figures = units::time_figures(&section.rows, section.measure);
    let mut tables = Vec::new();
    for (chunk, names) in section.metrics.chunks(METRIC_COLUMNS).enumerate() {
        let mut columns = vec![Column::text("implementation"), Column::text("dataset")];
        columns.extend(names.iter().map(|metric| Column::figure(format!("median {metric}"))));
        let mut table = Table::new(columns).caption(format!(
            "Metrics' medians ({} to {} of {}):",
            chunk * METRIC_COLUMNS + 1,
            chunk * METRIC_COLUMNS + names.len(),
            section.metrics.len()
        ));
        for (row, figures) in section.rows.iter().zip(&figures) {
            let mut cells = vec![Cell::text(&row.implementation), Cell::text(&row.dataset)];
            let start = units::LEADING_FIGURES + chunk * METRIC_COLUMNS;
            cells.extend(figures[start..start + names.len()].iter().map(Cell::text));
            table.push(cells);
        }
        tables.push(table);
    }
    tables
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

/// One metric's convergence curves, a row per series: its attempts, the most checkpoints one streamed, and the
/// median suboptimality (with its interquartile range) at the series' first and last time. The HTML draws them.
pub fn curves(metric: &MetricCurves) -> Table {
    let columns = vec![
        Column::text("implementation"),
        Column::text("dataset"),
        Column::figure("attempts"),
        Column::figure("checkpoints"),
        Column::figure("first"),
        Column::figure("last [IQR]"),
    ];
    let mut table = Table::new(columns).caption(format!(
        "Convergence of {} (streamed attempts): {}, the median over the attempts on a common time grid (each \
         attempt's curve a step function), at the series' first and last time:",
        metric.metric,
        crate::svg::suboptimality_label(metric)
    ));
    for panel in &metric.panels {
        for series in &panel.series {
            let (Some(first), Some(last)) = (series.points.first(), series.points.last()) else { continue };
            table.push(vec![
                Cell::text(&series.implementation),
                Cell::text(&panel.dataset),
                Cell::count(series.attempts),
                Cell::text(series.checkpoints.to_string()),
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
    }
    table
}

/// Per dataset and implementation, the median time to reach the problem's tolerance and how many attempts did
/// (`None` without curves).
pub fn to_tolerance(section: &ProblemSection) -> Option<Table> {
    let columns = vec![
        Column::text("dataset"),
        Column::text("implementation"),
        Column::figure("median time to tolerance"),
        Column::figure("attempts that reached"),
    ];
    let tolerance = section.tolerance.map_or_else(String::new, |tolerance| format!(" ({})", units::plain(tolerance)));
    let mut table = Table::new(columns).caption(format!(
        "Time to the problem's tolerance{tolerance}: the median, over the attempts (dataset seeds and repetitions) \
         whose verdict was reached, of the time to the first checkpoint the evaluator judged reached (a one-shot \
         attempt's ranked time)."
    ));
    for row in &section.to_tolerance {
        table.push(vec![
            Cell::text(&row.dataset),
            Cell::text(&row.implementation),
            Cell::text(row.median_seconds.map_or_else(|| "not reached".to_owned(), units::duration)),
            Cell::text(format!("{} of {}", row.reached, row.attempts)),
        ]);
    }
    (!table.rows.is_empty()).then_some(table)
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

/// The Python distributions of one environment's Python workers: a row per distribution (by normalized name),
/// a column per worker, its version there or `–`; `None` when no worker's program is Python.
pub fn distributions(entry: &EnvironmentEntry) -> Option<Table> {
    let workers: Vec<_> = entry
        .environment
        .workers
        .iter()
        .filter_map(|program| Some((program.worker.as_str(), program.environment.as_ref()?)))
        .collect();
    if workers.is_empty() {
        return None;
    }
    let normalized = metewand_campaign::environment::normalized_distribution_name;
    let mut versions: BTreeMap<String, (String, Vec<Option<&str>>)> = BTreeMap::new();
    for (slot, (_, environment)) in workers.iter().enumerate() {
        for distribution in &environment.distributions {
            let row = versions
                .entry(normalized(&distribution.name))
                .or_insert_with(|| (distribution.name.clone(), vec![None; workers.len()]));
            row.1[slot] = Some(distribution.version.as_str());
        }
    }
    let columns = std::iter::once("distribution").chain(workers.iter().map(|(worker, _)| *worker));
    let mut table = Table::new(columns.map(Column::text).collect());
    for (name, found) in versions.into_values() {
        let cells = found.into_iter().map(|version| Cell::code(version.unwrap_or("–")));
        table.push(std::iter::once(Cell::text(name)).chain(cells).collect());
    }
    Some(table)
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
/// a column per metric any problem has. With `--measure cpu` or `memory` the `time_*` columns hold that measure
/// (seconds of CPU time, bytes) and `timed` says which.
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
            "cpu_median_s",
            "peak_memory_median_bytes",
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
            // What the `time_*` columns hold: the ranked time, or the measure ranked instead (bytes for memory).
            let timed = match section.measure {
                Measure::Wall => section.timed.as_str(),
                Measure::Cpu => "cpu",
                Measure::Memory => "memory",
            };
            cells.extend([number(row.success_rate), Cell::text(timed)]);
            cells.push(Cell::count(summary.map_or(0, |s| s.n)));
            cells.extend(
                [summary.map(|s| s.median), summary.map(|s| s.q1), summary.map(|s| s.q3)]
                    .into_iter()
                    .chain([summary.map(|s| s.ci_low), summary.map(|s| s.ci_high)])
                    .chain(row.phase_medians)
                    .chain([row.cpu_seconds_median, row.peak_memory_bytes_median])
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
