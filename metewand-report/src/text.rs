//! The report as Markdown (every table of the HTML, the plots' data as tables), as CSV (the implementation ×
//! dataset table of every problem, one row per cell, numbers unrounded), and as JSON (the whole [`Report`]). The
//! tables are [`crate::tables`], written by the table model's Markdown and CSV renderers; this module writes the
//! Markdown around them.

use std::fmt::Write;

use crate::html::LISTED_FAILURES;
use crate::report::{CampaignSummary, Report};
use crate::table::markdown::{self, escape};
use crate::table::{csv as csv_table, url_path};
use crate::tables;

/// The report as Markdown.
pub fn markdown(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Metewand report: {}\n", escape(&report.title()));
    status(&mut out, report);
    out.push_str("## Ranking\n\n");
    let rankings: Vec<_> = report.problems.iter().filter_map(tables::ranking).collect();
    if rankings.is_empty() {
        out.push_str("No problem has an instance to rank on.\n\n");
    }
    for table in &rankings {
        out.push_str(&markdown::render(table));
        out.push('\n');
    }
    out.push_str("## Plan against done\n\n");
    out.push_str(&markdown::render(&tables::plan(report)));
    failures(&mut out, report);
    for section in &report.problems {
        let _ = write!(out, "\n## Problem {}\n\n", escape(&section.problem));
        out.push_str(&markdown::render(&tables::outcomes(section)));
        out.push('\n');
        out.push_str(&markdown::render(&tables::times(section)));
        for table in tables::metrics(section) {
            out.push('\n');
            out.push_str(&markdown::render(&table));
        }
        for table in
            [tables::noise(section), tables::undecided(section), tables::scaling(section)].into_iter().flatten()
        {
            out.push('\n');
            out.push_str(&markdown::render(&table));
        }
        out.push('\n');
        out.push_str(&markdown::render(&tables::profile(section)));
        for metric in &section.curves {
            out.push('\n');
            out.push_str(&markdown::render(&tables::curves(metric)));
        }
        if let Some(table) = tables::to_tolerance(section) {
            out.push('\n');
            out.push_str(&markdown::render(&table));
        }
    }
    environments(&mut out, report);
    out.push_str("\n## Identities\n\n");
    out.push_str(&markdown::render(&tables::identities(report)));
    out
}

/// Whether the campaigns are complete, and how many attempts failed or are missing.
fn status(out: &mut String, report: &Report) {
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
        let sum = |field: fn(&CampaignSummary) -> usize| report.campaigns.iter().map(field).sum::<usize>();
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
}

/// The failures by role, phase and kind, then each kind's attempts (at most [`LISTED_FAILURES`]) with links.
fn failures(out: &mut String, report: &Report) {
    out.push_str("\n## Failures\n\n");
    if report.failures.is_empty() {
        out.push_str("No attempt failed or was cancelled.\n");
        return;
    }
    out.push_str(&markdown::render(&tables::failures(report)));
    for group in &report.failures {
        let _ = writeln!(out, "\n### {} / {} / {}\n", escape(&group.role), escape(&group.phase), escape(&group.kind));
        for attempt in group.attempts.iter().take(LISTED_FAILURES) {
            let log = attempt.log.as_ref().map_or(String::new(), |log| format!(", [log]({})", url_path(log)));
            let _ = writeln!(
                out,
                "- {}: {} ([record]({}){log})",
                escape(&attempt.label),
                escape(&attempt.message),
                url_path(&attempt.record)
            );
        }
        if group.attempts.len() > LISTED_FAILURES {
            let _ = writeln!(out, "- and {} more", group.attempts.len() - LISTED_FAILURES);
        }
    }
}

/// Each environment as a list: the runs that share it, Metewand, the host and its hardware, the commit, and each
/// worker's program.
fn environments(out: &mut String, report: &Report) {
    out.push_str("\n## Environment\n");
    for entry in &report.environments {
        let env = &entry.environment;
        let runs: Vec<String> = entry.runs.iter().map(|(started, jobs)| format!("{started} (-j {jobs})")).collect();
        let _ = writeln!(out, "\n### {}\n", escape(&entry.folder));
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
            let _ = writeln!(
                out,
                "- worker {}: `{}` is {} (sha256 {})",
                escape(&program.worker),
                program.command,
                program.resolved.as_deref().unwrap_or("not found"),
                program.sha256.map_or_else(|| "–".to_owned(), |sha| sha.to_string())
            );
        }
        if let Some(distributions) = tables::distributions(entry) {
            out.push_str("\nPython distributions, by worker:\n\n");
            out.push_str(&markdown::render(&distributions));
        }
    }
}

/// The implementation × dataset table of every problem as CSV: one row per cell, times in seconds.
pub fn csv(report: &Report) -> String {
    csv_table::render(&tables::cells(report))
}

/// The whole report as JSON (pretty-printed, one trailing newline).
pub fn json(report: &Report) -> String {
    let mut text = serde_json::to_string_pretty(report).unwrap_or_else(|error| format!("{{\"error\": \"{error}\"}}"));
    text.push('\n');
    text
}
