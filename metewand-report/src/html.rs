//! The report as one self-contained HTML file: inline CSS and SVG, no script, nothing fetched, so it opens from a
//! `file://` URL on a machine without a network. Whether the campaigns are complete is said first, with how many
//! attempts are missing. The tables are [`crate::tables`], written by the table model's HTML renderer; this module
//! writes the page around them: the status, the failures' lists, the plots and what they show.

use std::fmt::Write;

use crate::curves::MetricCurves;
use crate::report::{CampaignSummary, EnvironmentEntry, ProblemSection, Report};
use crate::svg::{self, escape};
use crate::table::{self, url_path};
use crate::tables::{self, OUTCOMES};
use crate::units;

/// How many attempts of one failure group are listed (the rest are counted).
pub const LISTED_FAILURES: usize = 20;

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:.5em auto;max-width:min(96vw,110em);padding:0 1em;color:#111;\
line-height:1.4}h1{font-size:1.5em;margin:.2em 0}header p{margin:.3em 0}#ranking h2{margin:.4em 0 .2em}\
caption{font-size:.9em}#main-plot figure{margin:0}#ranking table{margin:.2em 0}.panels{display:flex;flex-wrap:wrap;align-items:flex-end;gap:0 .5em}\
h2{border-bottom:1px solid #999;margin-top:2em}table{border-collapse:collapse;\
margin:1em 0}th,td{border:1px solid #bbb;padding:.25em .5em;vertical-align:top}th{background:#eee;text-align:left}#ranking td:not(:last-child){white-space:nowrap}\
td.n{text-align:right;font-variant-numeric:tabular-nums}.status{padding:.4em 1em;border:2px solid}\
.complete{border-color:#009E73}.incomplete{border-color:#D55E00;border-width:3px}.failures{border-color:#E69F00;border-width:3px}figure{margin:1em 0}\
figcaption{font-size:.9em;color:#333;max-width:60em}caption{text-align:left;padding-bottom:.3em}\
code{font-size:.95em}.muted{color:#555}\
@media print{h2{break-before:auto}figure{break-inside:avoid}}";

/// The report as HTML.
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    let title = format!("Metewand report: {}", report.title());
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" \
         content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n\
         <body>\n<header>\n<h1>{}</h1>\n",
        escape(&title),
        escape(&title)
    );
    status(&mut out, report);
    out.push_str("<nav><p>Contents: <a href=\"#ranking\">ranking</a> · <a href=\"#plan\">plan against done</a> · <a href=\"#failures\">failures</a>");
    for (index, section) in report.problems.iter().enumerate() {
        let _ = write!(out, " · <a href=\"#problem-{index}\">problem {}</a>", escape(&section.problem));
    }
    out.push_str(" · <a href=\"#environment\">environment</a> · <a href=\"#identities\">identities</a></p></nav>\n");
    out.push_str("</header>\n<main>\n");
    ranking(&mut out, report);
    main_plot(&mut out, report);
    plan(&mut out, report);
    failures(&mut out, report);
    for (index, section) in report.problems.iter().enumerate() {
        problem(&mut out, index, section);
    }
    environments(&mut out, &report.environments);
    identities(&mut out, report);
    let _ = write!(
        out,
        "</main>\n<footer><p class=\"muted\">Written by Metewand {} from the campaign records alone (no time of \
         writing, fixed bootstrap seeds), so the same records give the same file.</p></footer>\n</body>\n</html>\n",
        env!("CARGO_PKG_VERSION")
    );
    out
}

/// `, N of them in the benchmark's own workers (...)` when the benchmark, not an implementation, failed some.
fn benchmark_share(report: &Report) -> String {
    match report.benchmark_failures() {
        0 => String::new(),
        n => format!(
            ", {n} of them in the benchmark's own workers (its dataset materializer or problem evaluator), not in \
             the implementations"
        ),
    }
}

/// The first screen's verdict on completeness.
fn status(out: &mut String, report: &Report) {
    let missing = report.missing();
    let planned = report.planned();
    let sum = |field: fn(&CampaignSummary) -> usize| report.campaigns.iter().map(field).sum::<usize>();
    let failed = report.failed();
    if missing == 0 && failed == 0 {
        let _ = write!(
            out,
            "<p class=\"status complete\"><strong>Complete:</strong> all {planned} planned attempts have a terminal \
             record."
        );
    } else if missing == 0 {
        let _ = write!(
            out,
            "<p class=\"status failures\"><strong>Complete, {failed} of {planned} failed:</strong> every planned \
             attempt has a terminal record, but {failed} failed{}. See <a href=\"#failures\">Failures</a>.",
            benchmark_share(report)
        );
    } else {
        let _ = write!(
            out,
            "<p class=\"status incomplete\"><strong>Incomplete:</strong> {missing} of {planned} planned attempts \
             have no terminal record ({} never started, {} unfinished, {} cancelled). The tables below count only \
             what was recorded; run <code>metewand campaign run</code> again to resume.",
            sum(|c| c.never_started),
            sum(|c| c.unfinished),
            sum(|c| c.cancelled)
        );
    }
    let mut totals = [0usize; 6];
    for campaign in &report.campaigns {
        for (total, outcome) in totals.iter_mut().zip(OUTCOMES) {
            *total += campaign.by_outcome.get(outcome).copied().unwrap_or(0);
        }
    }
    let parts: Vec<String> = totals
        .iter()
        .zip(OUTCOMES)
        .filter(|(count, _)| **count > 0)
        .map(|(count, outcome)| format!("{count} {outcome}"))
        .collect();
    let _ = writeln!(out, " <span class=\"muted\">Records: {}.</span></p>", escape(&parts.join(", ")));
}

/// Each problem's ranking: before anything else about results, who is tied with whom.
fn ranking(out: &mut String, report: &Report) {
    out.push_str("<section id=\"ranking\">\n<h2>Ranking</h2>\n");
    let tables: Vec<_> = report.problems.iter().filter_map(tables::ranking).collect();
    if tables.is_empty() {
        out.push_str("<p>No problem has an instance to rank on.</p>\n");
    }
    for table in &tables {
        table::html::write(out, table);
    }
    out.push_str("</section>\n");
}

fn plan(out: &mut String, report: &Report) {
    out.push_str("<section id=\"plan\">\n<h2>Plan against done</h2>\n");
    table::html::write(out, &tables::plan(report));
    out.push_str("</section>\n");
}

fn failures(out: &mut String, report: &Report) {
    out.push_str("<section id=\"failures\">\n<h2>Failures</h2>\n");
    if report.failures.is_empty() {
        out.push_str("<p>No attempt failed or was cancelled.</p>\n</section>\n");
        return;
    }
    table::html::write(out, &tables::failures(report));
    for group in &report.failures {
        let _ = write!(
            out,
            "<h3>{} / {} / {} ({})</h3>\n<ul>\n",
            escape(&group.role),
            escape(&group.phase),
            escape(&group.kind),
            group.attempts.len()
        );
        for attempt in group.attempts.iter().take(LISTED_FAILURES) {
            let _ = write!(
                out,
                "<li>{}: {} (<a href=\"{}\">record</a>",
                escape(&attempt.label),
                escape(&attempt.message),
                url_path(&attempt.record)
            );
            if let Some(log) = &attempt.log {
                let _ = write!(out, ", <a href=\"{}\">log</a>", url_path(log));
            }
            out.push_str(")</li>\n");
        }
        if group.attempts.len() > LISTED_FAILURES {
            let _ = writeln!(
                out,
                "<li>and {} more (every one is in the JSON report)</li>",
                group.attempts.len() - LISTED_FAILURES
            );
        }
        out.push_str("</ul>\n");
    }
    out.push_str("</section>\n");
}

fn problem(out: &mut String, index: usize, section: &ProblemSection) {
    let _ = writeln!(out, "<section id=\"problem-{index}\">\n<h2>Problem {}</h2>", escape(&section.problem));
    table::html::write(out, &tables::outcomes(section));
    table::html::write(out, &tables::times(section));
    for metrics in tables::metrics(section) {
        table::html::write(out, &metrics);
    }
    if let Some(noise) = tables::noise(section) {
        table::html::write(out, &noise);
    }
    if let Some(undecided) = tables::undecided(section) {
        table::html::write(out, &undecided);
    }
    if let Some(scaling) = tables::scaling(section) {
        table::html::write(out, &scaling);
    }
    for (plot, scaling) in crate::scaling::plots(&section.rows, &section.metrics).iter().enumerate() {
        let _ = writeln!(
            out,
            "<figure>{}<figcaption>How the implementations scale with <code>{}</code> on the grid <code>{}</code>: \
             medians on log scales (the time's band is the bootstrap 95% interval of each point's median); a \
             cross marks a point where attempts failed or timed out.</figcaption></figure>",
            svg::scaling(
                &format!("scaling-{index}-{plot}"),
                &section.problem,
                scaling,
                &section.implementations,
                &section.timed
            ),
            escape(&scaling.key),
            escape(&scaling.grid)
        );
    }
    if let Some(grouped) = tables::grouped(section) {
        table::html::write(out, &grouped);
    }
    out.push_str(
        "<p class=\"muted\">Success rate: <code>reached</code> and <code>not_required</code> over \
                  attempts with a terminal record. The ranked time (the problem's <code>timed</code>): the \
                  executor's time of the implementation's <code>execute</code> request, or of <code>prepare</code> \
                  and <code>execute</code> together, of attempts with a verdict; the interval is a percentile \
                  bootstrap of the median (2000 resamples, fixed seed); <em>resolves</em> is its half-width \
                  relative to the median, the smallest difference the cell tells from its own noise (none with \
                  fewer than 4 timed attempts). Start-up is its <code>hello</code> (none, \
                  0, for an attempt a reused session served after its first), shown beside <code>prepare</code> and \
                  <code>execute</code> whatever is ranked.</p>\n",
    );
    if index > 0 || !section.curves.is_empty() {
        profile(out, index, section);
    }
    for (curve, curves) in section.curves.iter().enumerate().skip(usize::from(index == 0)) {
        convergence(out, &format!("curves-{index}-{curve}"), section, curves);
    }
    if let Some(table) = tables::to_tolerance(section) {
        table::html::write(out, &table);
    }
    let _ = writeln!(
        out,
        "<figure>{}<figcaption>The ranked time ({}) of each attempt with a verdict, per implementation and dataset, on a \
         logarithmic axis; boxes span the quartiles, bars mark medians.</figcaption></figure>",
        svg::execute_times(&format!("times-{index}"), section),
        escape(&section.timed)
    );
    let _ = write!(
        out,
        "<figure>{}<figcaption>Failed attempts over attempts with a terminal record.</figcaption></figure>\n\
         </section>\n",
        svg::failure_heatmap(&format!("failures-{index}"), section)
    );
}

/// A problem's performance profile, with what it shows.
fn profile(out: &mut String, index: usize, section: &ProblemSection) {
    let _ = writeln!(
        out,
        "<figure>{}<figcaption>Performance profiles of time to <code>reached</code> over {} instances (dataset and \
         seed): ρ(τ) is the share of instances on which an implementation's median ranked time is within τ times \
         the best; <code>not_reached</code> and an implementation's failures count as infinite, so a curve's height at \
         the right is the share of instances it reaches at all. An instance where the benchmark's own workers \
         failed is left out.</figcaption></figure>",
        svg::profile(&format!("profile-{index}"), section),
        section.profile.instances
    );
}

/// The first problem's main plot, on the first screen beside its ranking: its first metric's convergence where
/// it has curves, else its performance profile.
fn main_plot(out: &mut String, report: &Report) {
    let Some(section) = report.problems.first() else { return };
    out.push_str("<section id=\"main-plot\">\n");
    match section.curves.first() {
        Some(curves) => convergence(out, "curves-0-0", section, curves),
        None => profile(out, 0, section),
    }
    out.push_str("</section>\n");
}

/// One metric's convergence figure: a panel per dataset and one legend, with what they show.
fn convergence(out: &mut String, id: &str, section: &ProblemSection, curves: &MetricCurves) {
    let mut names: Vec<&str> = Vec::new();
    for series in curves.panels.iter().flat_map(|panel| &panel.series) {
        if !names.contains(&series.implementation.as_str()) {
            names.push(&series.implementation);
        }
    }
    names.sort_by_key(|name| section.implementations.iter().position(|known| known == name));
    out.push_str("<figure class=\"panels\"><div class=\"panels\">");
    for panel in svg::curves(id, &section.problem, curves, &section.implementations, section.tolerance) {
        out.push_str(&panel);
    }
    out.push_str(&svg::legend(&format!("{id}-legend"), &names, &section.implementations));
    let tolerance = match section.tolerance {
        Some(tolerance) => format!(" The dashed line is the problem's tolerance ({}).", units::plain(tolerance)),
        None => String::new(),
    };
    let _ = writeln!(
        out,
        "</div><figcaption>Convergence of <code>{metric}</code> on problem {problem}, one panel per dataset: \
         the suboptimality <code>{label}</code>, where <em>best reached</em> is the best value any \
         implementation reached on the same dataset and seed (benchopt's default), against the executor's time \
         (the worker held stopped while each checkpoint was sealed is not counted). Each attempt's curve is a \
         step function; lines join the medians over dataset seeds and repetitions on a common time grid, bands \
         span the quartiles, markers the first and last times.{tolerance}</figcaption></figure>",
        metric = escape(&curves.metric),
        problem = escape(&section.problem),
        label = escape(&svg::suboptimality_label(curves)),
    );
}

fn environments(out: &mut String, entries: &[EnvironmentEntry]) {
    out.push_str("<section id=\"environment\">\n<h2>Environment</h2>\n");
    if entries.is_empty() {
        out.push_str("<p>The campaign folders record no run.</p>\n");
    }
    for entry in entries {
        let _ = writeln!(out, "<h3>{}</h3>", escape(&entry.folder));
        table::html::write(out, &tables::environment(entry));
        table::html::write(out, &tables::workers(entry));
        if let Some(distributions) = tables::distributions(entry) {
            table::html::write(out, &distributions);
        }
    }
    out.push_str("</section>\n");
}

fn identities(out: &mut String, report: &Report) {
    out.push_str(
        "<section id=\"identities\">\n<h2>Identities</h2>\n<p class=\"muted\">As the records name them; \
                  more than one id for a name means it changed between runs.</p>\n",
    );
    table::html::write(out, &tables::identities(report));
    out.push_str("</section>\n");
}
