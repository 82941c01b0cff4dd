//! The report's tables as Markdown (every table of the HTML, the plots' data as tables), as CSV (the
//! implementation × dataset table of every problem, one row per cell, numbers unrounded), and as JSON (the whole
//! [`Report`]).

use std::collections::BTreeSet;
use std::fmt::Write;

use crate::html::{LISTED_FAILURES, OUTCOMES, url_path};
use crate::report::{ProblemSection, Report};
use crate::units;

/// The values of τ the Markdown profile table shows.
pub const PROFILE_TAUS: [f64; 4] = [1.0, 2.0, 4.0, 10.0];

/// A Markdown table cell: `|`, line breaks and HTML (which Markdown viewers would render: a metric's name and a
/// failure's message come from workers) escaped.
pub(crate) fn cell(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace(['\n', '\r'], " ")
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The report as Markdown.
pub fn markdown(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Metewand report: {}\n", cell(&report.title()));
    let missing = report.missing();
    let failed = report.failed();
    if missing == 0 && failed == 0 {
        let _ = writeln!(out, "**Complete:** all {} planned attempts have a terminal record.\n", report.planned());
    } else if missing == 0 {
        let benchmark = match report.benchmark_failures() {
            0 => String::new(),
            n => {
                format!(", {n} of them in the benchmark's own workers (its dataset materializer or problem evaluator)")
            }
        };
        let _ = writeln!(
            out,
            "**Complete, {failed} of {} failed:** every planned attempt has a terminal record, but {failed} \
             failed{benchmark}.\n",
            report.planned()
        );
    } else {
        let sum =
            |field: fn(&crate::report::CampaignSummary) -> usize| report.campaigns.iter().map(field).sum::<usize>();
        let _ = writeln!(
            out,
            "**Incomplete:** {missing} of {} planned attempts have no terminal record ({} never started, {} \
             unfinished, {} cancelled).\n",
            report.planned(),
            sum(|c| c.never_started),
            sum(|c| c.unfinished),
            sum(|c| c.cancelled)
        );
    }
    out.push_str("## Plan against done\n\n| folder | campaign | sessions | planned | done |");
    for outcome in OUTCOMES {
        let _ = write!(out, " {outcome} |");
    }
    out.push_str(" never started | unfinished | missing |\n|---|---|---|---|---|");
    out.push_str(&"---|".repeat(OUTCOMES.len() + 3));
    out.push('\n');
    for campaign in &report.campaigns {
        let _ = write!(
            out,
            "| {} | {} | {} | {} | {} |",
            cell(&campaign.folder),
            cell(&campaign.name),
            cell(&campaign.sessions()),
            campaign.planned,
            campaign.done
        );
        for outcome in OUTCOMES {
            let _ = write!(out, " {} |", campaign.by_outcome.get(outcome).copied().unwrap_or(0));
        }
        let _ = writeln!(out, " {} | {} | {} |", campaign.never_started, campaign.unfinished, campaign.missing());
    }
    out.push_str("\n## Failures\n\n");
    if report.failures.is_empty() {
        out.push_str("No attempt failed or was cancelled.\n");
    } else {
        out.push_str("| role | phase | kind | attempts |\n|---|---|---|---|\n");
        for group in &report.failures {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} |",
                cell(&group.role),
                cell(&group.phase),
                cell(&group.kind),
                group.attempts.len()
            );
        }
        for group in &report.failures {
            let _ = writeln!(out, "\n### {} / {} / {}\n", cell(&group.role), cell(&group.phase), cell(&group.kind));
            for attempt in group.attempts.iter().take(LISTED_FAILURES) {
                let log = attempt.log.as_ref().map_or(String::new(), |log| format!(", [log]({})", url_path(log)));
                let _ = writeln!(
                    out,
                    "- {}: {} ([record]({}){log})",
                    cell(&attempt.label),
                    cell(&attempt.message),
                    url_path(&attempt.record)
                );
            }
            if group.attempts.len() > LISTED_FAILURES {
                let _ = writeln!(out, "- and {} more", group.attempts.len() - LISTED_FAILURES);
            }
        }
    }
    for section in &report.problems {
        let _ = write!(out, "\n## Problem {}\n\n| implementation | dataset | attempts |", cell(&section.problem));
        for outcome in OUTCOMES {
            let _ = write!(out, " {outcome} |");
        }
        out.push_str(" missing | success rate |\n|---|---|");
        out.push_str(&"---:|".repeat(OUTCOMES.len() + 3));
        out.push('\n');
        rows(&mut out, section, &section.rows.iter().map(units::outcome_figures).collect::<Vec<_>>());
        let _ = write!(
            out,
            "\n| implementation | dataset | {} time median [IQR] (95% CI) | start-up / prepare / execute medians |",
            section.timed
        );
        for metric in &section.metrics {
            let _ = write!(out, " median {} |", cell(metric));
        }
        out.push_str("\n|---|---|");
        out.push_str(&"---:|".repeat(2 + section.metrics.len()));
        out.push('\n');
        rows(&mut out, section, &units::time_figures(&section.rows));
        let _ = write!(
            out,
            "\nPerformance profile over {} instances (share of instances within τ times the best time to \
             reached):\n\n| implementation |",
            section.profile.instances
        );
        for tau in PROFILE_TAUS {
            let _ = write!(out, " ρ({tau}) |");
        }
        out.push_str(" reached at all |\n|---|");
        out.push_str(&"---:|".repeat(PROFILE_TAUS.len() + 1));
        out.push('\n');
        for series in &section.profile.series {
            let _ = write!(out, "| {} |", cell(&series.implementation));
            for tau in PROFILE_TAUS {
                let _ = write!(out, " {} |", units::percent(series.rho(tau)));
            }
            let _ = writeln!(out, " {} |", units::percent(series.rho(f64::MAX)));
        }
        curves(&mut out, &section.curves);
    }
    out.push_str("\n## Environment\n");
    for entry in &report.environments {
        let env = &entry.environment;
        let runs: Vec<String> = entry.runs.iter().map(|(started, jobs)| format!("{started} (-j {jobs})")).collect();
        let _ = writeln!(out, "\n### {}\n", cell(&entry.folder));
        let _ = writeln!(out, "- runs: {}", runs.join(", "));
        let _ = writeln!(out, "- Metewand {}", env.metewand_version);
        let show = |value: &Option<String>| value.clone().unwrap_or_else(|| "unknown".to_owned());
        let _ = writeln!(out, "- host {}, OS {}, kernel {}", show(&env.host), show(&env.os), show(&env.kernel));
        let _ = writeln!(out, "- CPU {} ({} logical CPUs)", show(&env.cpu_model), env.logical_cpus);
        if let Some(bytes) = env.memory_bytes {
            let _ = writeln!(out, "- memory {:.1} GiB", bytes.get() as f64 / 1073741824.0);
        }
        let _ = writeln!(
            out,
            "- git commit {}{}",
            env.git_commit.as_deref().unwrap_or("none (not a git checkout)"),
            if env.git_dirty == Some(true) { " with uncommitted changes" } else { "" }
        );
        for program in &env.workers {
            let worker = &program.worker;
            let _ = writeln!(
                out,
                "- worker {}: `{}` is {} (sha256 {})",
                cell(worker),
                program.command,
                program.resolved.as_deref().unwrap_or("not found"),
                program.sha256.as_ref().map_or("–", |sha| sha.as_str())
            );
        }
    }
    out.push_str("\n## Identities\n\n| what | name | id |\n|---|---|---|\n");
    let ids = &report.identities;
    for (what, map) in [
        ("implementation worker", &ids.implementations),
        ("problem contract", &ids.contracts),
        ("evaluator worker", &ids.evaluators),
        ("dataset materializer", &ids.materializers),
    ] {
        for (name, set) in map {
            let list: Vec<String> = set.iter().map(|id| format!("`{id}`")).collect();
            let _ = writeln!(out, "| {what} | {} | {} |", cell(name), list.join(" "));
        }
    }
    out
}

/// The convergence curves of a problem's streamed attempts, one table per metric: each series' first and last
/// checkpoint (its median time and median value, the last with its interquartile range). Every point is in the
/// campaign's `profiles.csv`; the HTML report draws them.
fn curves(out: &mut String, curves: &[crate::curves::MetricCurves]) {
    for metric in curves {
        let _ = write!(
            out,
            "\nConvergence of {} (streamed attempts: medians over the attempts at each checkpoint, time measured by \
             Metewand):\n\n| implementation | dataset | attempts | checkpoints | first checkpoint | last checkpoint \
             [IQR] |\n|---|---|---:|---:|---:|---:|\n",
            cell(&metric.metric)
        );
        for series in &metric.series {
            let (Some(first), Some(last)) = (series.points.first(), series.points.last()) else { continue };
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {}: {} | {}: {} [{}–{}] |",
                cell(&series.implementation),
                cell(&series.dataset),
                series.attempts,
                last.checkpoint,
                units::duration(first.seconds),
                units::number(first.median),
                units::duration(last.seconds),
                units::number(last.median),
                units::number(last.q1),
                units::number(last.q3)
            );
        }
    }
}

/// One Markdown row per implementation x dataset: its names, then `figures`.
fn rows(out: &mut String, section: &ProblemSection, figures: &[Vec<String>]) {
    for (row, figures) in section.rows.iter().zip(figures) {
        let _ = write!(out, "| {} | {} |", cell(&row.implementation), cell(&row.dataset));
        for figure in figures {
            let _ = write!(out, " {figure} |");
        }
        out.push('\n');
    }
}

fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) { format!("\"{}\"", text.replace('"', "\"\"")) } else { text.to_owned() }
}

/// The implementation × dataset table of every problem as CSV: one row per cell, times in seconds.
pub fn csv(report: &Report) -> String {
    let metrics: BTreeSet<&String> = report.problems.iter().flat_map(|section| &section.metrics).collect();
    let mut out = String::from(
        "problem,implementation,dataset,planned,attempts,reached,not_reached,not_required,invalid,failed,cancelled,\
         missing,success_rate,timed,time_n,time_median_s,time_q1_s,time_q3_s,time_median_ci_low_s,\
         time_median_ci_high_s,startup_median_s,prepare_median_s,execute_median_s",
    );
    for metric in &metrics {
        let _ = write!(out, ",{}", csv_field(&format!("median.{metric}")));
    }
    out.push('\n');
    let number = |value: Option<f64>| value.map_or(String::new(), |value| value.to_string());
    for section in &report.problems {
        for row in &section.rows {
            let summary = row.timed_seconds.as_ref();
            let fields: Vec<String> = vec![
                csv_field(&section.problem),
                csv_field(&row.implementation),
                csv_field(&row.dataset),
                row.planned.to_string(),
                row.attempts.to_string(),
                row.reached.to_string(),
                row.not_reached.to_string(),
                row.not_required.to_string(),
                row.invalid.to_string(),
                row.failed.to_string(),
                row.cancelled.to_string(),
                row.missing.to_string(),
                number(row.success_rate),
                csv_field(&section.timed),
                summary.map_or(0, |s| s.n).to_string(),
                number(summary.map(|s| s.median)),
                number(summary.map(|s| s.q1)),
                number(summary.map(|s| s.q3)),
                number(summary.map(|s| s.ci_low)),
                number(summary.map(|s| s.ci_high)),
                number(row.phase_medians[0]),
                number(row.phase_medians[1]),
                number(row.phase_medians[2]),
            ];
            out.push_str(&fields.join(","));
            for metric in &metrics {
                let value = section.metrics.iter().position(|name| name == *metric).and_then(|i| row.metric_medians[i]);
                let _ = write!(out, ",{}", number(value));
            }
            out.push('\n');
        }
    }
    out
}

/// The whole report as JSON (pretty-printed, one trailing newline).
pub fn json(report: &Report) -> String {
    let mut text = serde_json::to_string_pretty(report).unwrap_or_else(|error| format!("{{\"error\": \"{error}\"}}"));
    text.push('\n');
    text
}
