//! Reports of synthetic campaigns: an incomplete campaign with failures and cancellations says so, the HTML
//! parses and its plots are well-formed with the expected series, links reach the logs, the same records give
//! the same bytes, and bad input is a typed error.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use metewand_campaign::FolderError;
use metewand_report::{Format, Records, Report, ReportError, render};
use serde_json::Value;

use crate::{Campaign, Planned, State, at, python, temp, write_campaign};

/// Problem `ridge`: implementations `fast`, `slow` and `broken` on datasets `small` and `tall` with dataset seeds
/// 0 and 1 and three repetitions (36 attempts). `fast` takes 1 ms (+ 5% by repetition), `slow` 10 ms and
/// reaches the verdict except on `tall` seed 1 (`not_reached`); `broken` times out on `tall` and reaches on
/// `small`. Of the first cell's attempts (`fast` on `small` seed 0), one never started and one is unfinished;
/// `slow`'s first attempt there is cancelled.
pub fn mixed() -> Vec<Planned> {
    let mut plan = Vec::new();
    for dataset in ["small", "tall"] {
        for seed in [0, 1] {
            for implementation in ["fast", "slow", "broken"] {
                for repetition in 1..=3u64 {
                    let base: u64 = match implementation {
                        "fast" => 1_000_000,
                        "slow" => 10_000_000,
                        _ => 5_000_000,
                    };
                    let mut planned = Planned::new("ridge", dataset, implementation)
                        .seed(seed)
                        .repetition(repetition)
                        .time(base + base / 20 * repetition)
                        .error(0.001 * repetition as f64);
                    if implementation == "slow" && dataset == "tall" && seed == 1 {
                        planned = planned.state(State::Record("not_reached"));
                    }
                    if implementation == "broken" && dataset == "tall" {
                        planned = planned.state(State::Record("failed"));
                    }
                    plan.push(planned);
                }
            }
        }
    }
    plan[0].state = State::Missing;
    plan[1].state = State::Unfinished;
    plan[3].state = State::Record("cancelled");
    plan
}

pub(crate) fn describe(html: &str) -> Value {
    python("html_check.py", &Value::String(html.to_owned()))
}

#[test]
fn an_incomplete_campaign_with_failures_and_cancellations_says_so_first() {
    let dir = temp();
    let folder = at(&dir, "campaign");
    write_campaign(&folder, &Campaign::default(), &mixed());
    let records = Records::read(std::slice::from_ref(&folder)).unwrap();
    let report = Report::new(&records, Some(dir.path()));
    assert_eq!(report.planned(), 36);
    assert_eq!(report.missing(), 3, "one never started, one unfinished, one cancelled");
    let html = render(&report, Format::Html);
    let status = html.find("Incomplete:").expect("the HTML says the campaign is incomplete");
    assert!(status < html.find("<main>").unwrap(), "on the first screen, before the tables");
    assert!(
        html.contains("3 of 36 planned attempts have no terminal record (1 never started, 1 unfinished, 1 cancelled)")
    );
    let markdown = render(&report, Format::Markdown);
    assert!(markdown.contains("**Incomplete:** 3 of 36 planned attempts"));

    // Failures by role, phase and kind, each with a record and a log that exist where the links say.
    let kinds: Vec<(&str, &str, &str, usize)> = report
        .failures
        .iter()
        .map(|group| (group.role.as_str(), group.phase.as_str(), group.kind.as_str(), group.attempts.len()))
        .collect();
    assert_eq!(
        kinds,
        vec![("implementation", "execute", "cancelled", 1), ("implementation", "execute", "phase_timeout", 6)]
    );
    for attempt in report.failures.iter().flat_map(|group| &group.attempts) {
        assert!(dir.path().join(&attempt.record).is_file(), "{}", attempt.record);
        let log = attempt.log.as_ref().expect("the failing session's log");
        assert!(dir.path().join(log).is_file(), "{log}");
        assert!(html.contains(&format!("href=\"{log}\"")));
    }

    // The table: fast on small has 6 planned and 4 terminal records (one never started, one unfinished); slow on
    // small has 5 (one cancelled).
    let section = &report.problems[0];
    let row = |implementation: &str, dataset: &str| {
        section.rows.iter().find(|row| row.implementation == implementation && row.dataset == dataset).unwrap()
    };
    let fast_small = row("fast", "small");
    assert_eq!((fast_small.planned, fast_small.attempts, fast_small.missing, fast_small.cancelled), (6, 4, 2, 0));
    let slow_small = row("slow", "small");
    assert_eq!((slow_small.planned, slow_small.attempts, slow_small.missing, slow_small.cancelled), (6, 5, 1, 1));
    let slow_tall = row("slow", "tall");
    assert_eq!((slow_tall.reached, slow_tall.not_reached, slow_tall.success_rate), (3, 3, Some(0.5)));
    assert_eq!(section.timed, "execute", "records without `timed` rank by execute");
    let summary = slow_tall.timed_seconds.unwrap();
    assert_eq!(summary.n, 6, "not_reached attempts are timed too: they have a verdict");
    // 10.5, 10.5, 11, 11, 11.5 and 11.5 ms: median 11 ms, type-7 quartiles 10.625 and 11.375 ms.
    assert!((summary.median - 0.011).abs() < 1e-12, "{}", summary.median);
    assert!((summary.q1 - 0.010625).abs() < 1e-12 && (summary.q3 - 0.011375).abs() < 1e-12, "{summary:?}");
    assert_eq!(row("broken", "tall").failed, 6);
    assert_eq!(row("broken", "tall").timed_seconds, None, "failed attempts are not timed");
    assert_eq!(row("broken", "tall").phase_medians, [None; 3], "nor are their phases shown");
    // Start-up (hello) and prepare are the template record's, shown beside the ranked execute.
    let [startup, prepare, execute] = slow_tall.phase_medians.map(Option::unwrap);
    assert!((startup - 0.081104001).abs() < 1e-12 && (prepare - 0.000586219).abs() < 1e-12, "{startup} {prepare}");
    assert!((execute - summary.median).abs() < 1e-12);
    assert_eq!(section.metrics, vec!["error".to_owned()]);
    assert!((row("slow", "small").metric_medians[0].unwrap() - 0.002).abs() < 1e-12);

    // Profiles: fast is best wherever it reaches; broken reaches only on small (2 of 4 instances).
    let series = |name: &str| section.profile.series.iter().find(|s| s.implementation == name).unwrap();
    assert_eq!(series("fast").rho(1.0), 1.0);
    assert_eq!(series("broken").rho(f64::MAX), 0.5);
    assert_eq!(series("slow").rho(f64::MAX), 0.75, "not_reached on one instance of four");

    let csv = render(&report, Format::Csv);
    assert!(csv.lines().any(|line| line.starts_with("ridge,broken,tall,6,6,0,0,0,0,6,0,0,0,execute,0,")), "{csv}");
    let json: Value = serde_json::from_str(&render(&report, Format::Json)).unwrap();
    assert_eq!(json["campaigns"][0]["never_started"], 1);
    assert_eq!(json["campaigns"][0]["unfinished"], 1);
    assert_eq!(json["campaigns"][0]["cancelled"], 1);
}

#[test]
fn a_complete_campaign_with_failures_says_how_many_failed_and_whose_they_are() {
    let dir = temp();
    let folder = at(&dir, "campaign");
    let attempts = [
        Planned::new("p", "small", "a"),
        Planned::new("p", "small", "b").state(State::Record("failed")),
        Planned::new("p", "tall", "a").state(State::EvaluatorFailed),
        Planned::new("p", "tall", "b").state(State::EvaluatorFailed),
    ];
    write_campaign(&folder, &Campaign::default(), &attempts);
    let records = Records::read(std::slice::from_ref(&folder)).unwrap();
    let report = Report::new(&records, Some(dir.path()));
    assert_eq!((report.missing(), report.failed(), report.benchmark_failures()), (0, 3, 2));
    // The evaluator's failures on `tall` are the benchmark's: `tall` is left out of the profile, not counted as
    // two infinitely slow implementations.
    assert_eq!(report.problems[0].profile.instances, 1);
    assert!(report.problems[0].profile.series.iter().all(|series| series.ratios.len() == 1));
    let html = render(&report, Format::Html);
    assert!(!html.contains("<strong>Complete:</strong>"), "not the green banner of a clean run");
    assert!(
        html.contains(
            "<p class=\"status failures\"><strong>Complete, 3 of 4 failed:</strong> every planned attempt has a \
             terminal record, but 3 failed, 2 of them in the benchmark's own workers"
        ),
        "{html}"
    );
    let markdown = render(&report, Format::Markdown);
    assert!(markdown.contains("**Complete, 3 of 4 failed:**"), "{markdown}");
    // A clean campaign keeps the plain banner.
    let clean = at(&dir, "clean");
    write_campaign(&clean, &Campaign::default(), &[Planned::new("p", "small", "a")]);
    let report = Report::new(&Records::read(std::slice::from_ref(&clean)).unwrap(), Some(dir.path()));
    assert!(render(&report, Format::Html).contains("<strong>Complete:</strong> all 1 planned attempts"));
}

#[test]
fn the_html_parses_is_self_contained_and_every_plot_is_well_formed_with_its_series() {
    let dir = temp();
    let folder = at(&dir, "campaign");
    write_campaign(&folder, &Campaign::default(), &mixed());
    let html = metewand_report::report(&[folder], Some(dir.path()), Format::Html).unwrap();
    let found = describe(&html);
    assert_eq!(found["errors"], Value::Array(vec![]), "the HTML nests properly");
    assert_eq!(found["external"], Value::Array(vec![]), "nothing is fetched and nothing runs");
    assert_eq!(found["doctype"], true);
    let svgs = found["svgs"].as_array().unwrap();
    assert_eq!(svgs.len(), 3, "profile, execute times and failure heatmap");
    let series = |index: usize| -> Vec<&str> {
        svgs[index]["series"].as_array().unwrap().iter().map(|name| name.as_str().unwrap()).collect()
    };
    let texts = |index: usize| -> String {
        svgs[index]["texts"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect::<Vec<_>>().join("|")
    };
    assert_eq!(svgs[0]["title"], "Performance profiles of problem ridge");
    assert_eq!(series(0), ["fast", "slow", "broken"]);
    assert!(texts(0).contains("performance ratio τ = time / best time (log₂ scale)"));
    assert!(texts(0).contains("fraction of instances ρ(τ)"));
    assert_eq!(series(1), ["fast / small", "fast / tall", "slow / small", "slow / tall", "broken / small"]);
    assert!(texts(1).contains("execute time (seconds, log₁₀ scale)"));
    assert!(texts(1).contains("1 ms") && texts(1).contains("10 ms"), "{}", texts(1));
    assert_eq!(series(2), ["fast", "slow", "broken"]);
    assert!(texts(2).contains("6/6"), "the heatmap prints broken's 6 failures of 6 on tall");
    let text = found["text"].as_str().unwrap();
    assert!(text.contains("Plan against done") && text.contains("Environment") && text.contains("Identities"));
    assert!(text.contains("bench-host"));
}

#[test]
fn the_html_check_catches_a_self_closing_script_or_stylesheet() {
    let page = |head: &str| format!("<!DOCTYPE html><html><head>{head}</head><body><p>text</p></body></html>");
    assert_eq!(describe(&page(""))["external"], Value::Array(vec![]), "the page alone reaches nothing");
    for (planted, caught) in [(r#"<link rel="stylesheet" href="x.css"/>"#, "link"), ("<script/>", "script")] {
        let found = describe(&page(planted));
        assert_eq!(found["external"], serde_json::json!([caught]), "{planted} is caught");
    }
}

/// The names in `dir`, in the order `fs::read_dir` lists them.
fn listed(dir: &Path) -> Vec<OsString> {
    fs::read_dir(dir).unwrap().map(|entry| entry.unwrap().file_name()).collect()
}

#[test]
fn the_same_records_give_the_same_bytes() {
    // A tmpfs lists a folder's entries in the order they were made (or its reverse, on older kernels), so making
    // them in another order lists them in another; ext4 lists them by a hash of their names whatever the order.
    let dir = tempfile::tempdir_in("/dev/shm").expect("this test needs /dev/shm, a tmpfs");
    let folder = at(&dir, "campaign");
    let plan = mixed();
    let ids = write_campaign(&folder, &Campaign::default(), &plan);
    let first_order = listed(&folder.join("attempts"));
    let formats = [Format::Html, Format::Markdown, Format::Csv, Format::Json];
    let first: Vec<String> = formats
        .iter()
        .map(|format| metewand_report::report(std::slice::from_ref(&folder), Some(dir.path()), *format).unwrap())
        .collect();
    // The folder written again from scratch (other inodes), its attempts' folders made in the reverse order.
    fs::remove_dir_all(&folder).unwrap();
    let staging = at(&dir, "staging");
    assert_eq!(write_campaign(&staging, &Campaign::default(), &plan), ids);
    fs::create_dir_all(folder.join("attempts")).unwrap();
    for name in ["campaign.json", "datasets"] {
        fs::rename(staging.join(name), folder.join(name)).unwrap();
    }
    for id in ids.iter().rev().filter(|id| staging.join("attempts").join(id).exists()) {
        fs::rename(staging.join("attempts").join(id), folder.join("attempts").join(id)).unwrap();
    }
    fs::remove_dir(staging.join("attempts")).unwrap();
    fs::remove_dir(&staging).unwrap();
    let again_order = listed(&folder.join("attempts"));
    let sorted = |mut names: Vec<OsString>| {
        names.sort();
        names
    };
    assert_eq!(sorted(again_order.clone()), sorted(first_order.clone()), "the same attempts' folders");
    assert!(
        again_order != first_order,
        "both copies list their attempts' folders in the same order, so this test would prove nothing: it needs \
         /dev/shm to be a tmpfs, which lists a folder's entries in the order they were made"
    );
    for (format, first) in formats.iter().zip(&first) {
        let again = metewand_report::report(std::slice::from_ref(&folder), Some(dir.path()), *format).unwrap();
        assert!(again == *first, "{format:?} differs between two reports of the same records");
    }
    let today = std::process::Command::new("date").args(["-u", "+%Y-%m-%d"]).output().unwrap();
    let today = String::from_utf8(today.stdout).unwrap();
    assert!(!first[0].contains(today.trim()), "no time of writing in the report");
}

#[test]
fn bad_input_is_a_typed_error() {
    let dir = temp();
    // Not a campaign folder.
    fs::create_dir(at(&dir, "empty")).unwrap();
    let error = Records::read(&[at(&dir, "empty")]).unwrap_err();
    assert!(matches!(error, ReportError::NotACampaign { .. }), "{error}");
    assert!(error.to_string().contains("is not a campaign folder (it has no campaign.json)"), "{error}");
    // A plan without any record.
    let none =
        vec![Planned::new("p", "d", "i").state(State::Missing), Planned::new("p", "d", "j").state(State::Unfinished)];
    write_campaign(&at(&dir, "none"), &Campaign::default(), &none);
    let error = Records::read(&[at(&dir, "none")]).unwrap_err();
    assert!(matches!(error, ReportError::NoRecords { planned: 2, .. }), "{error}");
    assert!(error.to_string().contains("has no attempt records yet (0 of 2 planned attempts ran)"));
    // An invalid record: named with its path and reason.
    let ids = write_campaign(&at(&dir, "invalid"), &Campaign::default(), &mixed());
    let record = at(&dir, "invalid").join("attempts").join(&ids[5]).join("attempt.json");
    fs::write(&record, b"{\"outcome\": \"reached\"}").unwrap();
    let error = Records::read(&[at(&dir, "invalid")]).unwrap_err();
    let ReportError::InvalidRecord { path, others, .. } = &error else { panic!("{error}") };
    assert_eq!((path, *others), (&record, 0));
    assert!(error.to_string().contains("fails the attempt-record schema"), "{error}");
    // A campaign.json that is not one.
    fs::create_dir(at(&dir, "garbage")).unwrap();
    fs::write(at(&dir, "garbage").join("campaign.json"), b"[]").unwrap();
    let error = Records::read(&[at(&dir, "garbage")]).unwrap_err();
    assert!(matches!(error, ReportError::Folder(FolderError::BadPlanFile { .. })), "{error}");
    // Two repositories.
    write_campaign(&at(&dir, "one"), &Campaign::default(), &mixed());
    write_campaign(&at(&dir, "two"), &Campaign { repository: "/elsewhere/repo", ..Campaign::default() }, &mixed());
    let error = Records::read(&[at(&dir, "one"), at(&dir, "two")]).unwrap_err();
    assert!(matches!(error, ReportError::DifferentRepositories { .. }), "{error}");
    assert!(error.to_string().contains("/elsewhere/repo"));
    let error = Records::read(&[]).unwrap_err();
    assert!(matches!(error, ReportError::NoFolders));
}

#[test]
fn two_folders_of_one_repository_make_one_report() {
    let dir = temp();
    let first: Vec<Planned> = (1..=3).map(|r| Planned::new("p", "d", "a").repetition(r)).collect();
    let second: Vec<Planned> = (1..=2).map(|r| Planned::new("p", "d", "b").repetition(r).time(2_000_000)).collect();
    write_campaign(&at(&dir, "one"), &Campaign::default(), &first);
    write_campaign(&at(&dir, "two"), &Campaign { name: "other", ..Campaign::default() }, &second);
    let folders: Vec<PathBuf> = vec![at(&dir, "one"), at(&dir, "two")];
    let report = Report::new(&Records::read(&folders).unwrap(), None);
    assert_eq!(report.campaigns.len(), 2);
    assert_eq!(report.title(), "campaign main, other");
    let section = &report.problems[0];
    assert_eq!(section.implementations, ["a", "b"]);
    assert_eq!(section.profile.series[1].rho(1.99), 0.0);
    assert_eq!(section.profile.series[1].rho(2.0), 1.0);
}

#[test]
fn links_are_relative_to_the_report_and_percent_encoded() {
    let dir = temp();
    let folder = at(&dir, "runs #2 & more");
    let plan = vec![Planned::new("p", "d", "i").state(State::Record("failed")), Planned::new("p", "d", "j")];
    write_campaign(&folder, &Campaign::default(), &plan);
    let reports = at(&dir, "reports");
    fs::create_dir(&reports).unwrap();
    let html = metewand_report::report(std::slice::from_ref(&folder), Some(&reports), Format::Html).unwrap();
    let link = html.split("\">log</a>").next().unwrap().rsplit("href=\"").next().unwrap();
    assert!(link.starts_with("../runs%20%232%20%26%20more/attempts/mw1-attempt-"), "{link}");
    let decoded = link.replace("%20", " ").replace("%23", "#").replace("%26", "&");
    assert!(reports.join(decoded).is_file());
}

#[test]
fn text_from_workers_cannot_inject_markup() {
    // A hostile evaluator names a metric with markup, and a hostile worker's failure message carries some too.
    let dir = temp();
    let folder = at(&dir, "campaign");
    let plan = vec![Planned::new("p", "d", "i"), Planned::new("p", "d", "j").state(State::Record("failed"))];
    let ids = write_campaign(&folder, &Campaign::default(), &plan);
    let evil = "<script>alert(1)</script>\"'&|";
    let fields = ["metrics", "failure"];
    assert_eq!(ids.len(), fields.len(), "each planted field has its record");
    for (id, field) in ids.iter().zip(fields) {
        let path = folder.join("attempts").join(id).join("attempt.json");
        let mut record: Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
        match field {
            "metrics" => record["metrics"] = serde_json::json!({ evil: 1.5 }),
            _ => record["failure"]["message"] = Value::String(format!("</li></ul>{evil}")),
        }
        fs::write(&path, serde_json::to_vec(&record).unwrap()).unwrap();
    }
    let html = metewand_report::report(std::slice::from_ref(&folder), None, Format::Html).unwrap();
    let found = describe(&html);
    assert_eq!(found["errors"], Value::Array(vec![]), "the HTML still nests properly");
    assert_eq!(found["external"], Value::Array(vec![]), "no script got in");
    assert!(found["text"].as_str().unwrap().contains(evil), "the text is shown as text");
    let markdown = metewand_report::report(std::slice::from_ref(&folder), None, Format::Markdown).unwrap();
    assert!(!markdown.contains("<script") && !markdown.contains("</li>"), "{markdown}");
    assert!(markdown.contains("median &lt;script&gt;alert(1)&lt;/script&gt;\"'&amp;\\|"), "{markdown}");
    let csv = metewand_report::report(std::slice::from_ref(&folder), None, Format::Csv).unwrap();
    assert!(csv.lines().next().unwrap().ends_with(",\"median.<script>alert(1)</script>\"\"'&|\""), "{csv}");
}

/// A problem timed by `prepare+execute` ranks its implementations by the sum: one that prepares slowly and
/// executes fast is no longer the faster, and the tables and the CSV say which measure they rank by.
#[test]
fn a_problem_timed_by_prepare_and_execute_ranks_by_their_sum() {
    let dir = temp();
    let folder = at(&dir, "campaign");
    // The template's prepare takes 0.586219 ms: "quick" executes in 0.2 ms (0.786 ms in all), "steady" in
    // 0.7 ms (1.286 ms); by execute alone "quick" would be 3.5 times faster, by the sum 1.64 times.
    let plan: Vec<Planned> = ["quick", "steady"]
        .into_iter()
        .map(|name| {
            let execute = if name == "quick" { 200_000 } else { 700_000 };
            Planned::new("ridge", "small", name).time(execute).timed("prepare+execute")
        })
        .collect();
    write_campaign(&folder, &Campaign::default(), &plan);
    let report = Report::new(&Records::read(std::slice::from_ref(&folder)).unwrap(), Some(dir.path()));
    let section = &report.problems[0];
    assert_eq!(section.timed, "prepare+execute");
    let time = |name: &str| {
        section.rows.iter().find(|row| row.implementation == name).unwrap().timed_seconds.as_ref().unwrap().median
    };
    assert!((time("quick") - 0.000786219).abs() < 1e-12, "{}", time("quick"));
    assert!((time("steady") - 0.001286219).abs() < 1e-12, "{}", time("steady"));
    let markdown = render(&report, Format::Markdown);
    assert!(
        markdown.contains(
            "| prepare+execute time median [IQR] (95% CI) | resolves | start-up / prepare / execute medians |"
        ),
        "{markdown}"
    );
    let csv = render(&report, Format::Csv);
    assert!(csv.lines().nth(1).unwrap().contains(",prepare+execute,1,"), "{csv}");
}

/// Ids do not show which program a command found (two virtual environments link to one interpreter): an
/// implementation whose records ran different programs is a row per program, named by where its command found it,
/// or by the program's first digits when one path held two files; records without a program are not told apart.
#[test]
fn attempts_of_different_programs_are_separate_named_rows() {
    let dir = temp();
    let plan = || vec![Planned::new("ridge", "small", "fast")];
    let venv = Campaign { name: "venv", program: Some(("/venv/bin/python3", "3.11")), ..Campaign::default() };
    let system = Campaign { name: "system", program: Some(("/usr/bin/python3", "3.11")), ..Campaign::default() };
    let upgraded = Campaign { name: "upgraded", program: Some(("/usr/bin/python3", "3.12")), ..Campaign::default() };
    write_campaign(&at(&dir, "venv"), &venv, &plan());
    write_campaign(&at(&dir, "system"), &system, &plan());
    write_campaign(&at(&dir, "upgraded"), &upgraded, &plan());
    write_campaign(&at(&dir, "unrecorded"), &Campaign { name: "unrecorded", ..Campaign::default() }, &plan());
    let names = |folders: &[&str]| {
        let folders: Vec<PathBuf> = folders.iter().map(|name| at(&dir, name)).collect();
        let report = Report::new(&Records::read(&folders).unwrap(), Some(dir.path()));
        let mut names: Vec<String> = report.problems[0].rows.iter().map(|row| row.implementation.clone()).collect();
        names.sort_unstable();
        names
    };
    assert_eq!(names(&["venv", "system"]), ["fast (program /usr/bin/python3)", "fast (program /venv/bin/python3)"]);
    let by_digest = names(&["system", "upgraded"]);
    assert_eq!(by_digest.len(), 2, "{by_digest:?}");
    assert!(
        by_digest
            .iter()
            .all(|name| name.starts_with("fast (program ") && name.len() == "fast (program 12345678)".len())
    );
    assert_eq!(names(&["venv", "unrecorded"]), ["fast"], "a record without a program is not another program");
    assert_eq!(names(&["system"]), ["fast"]);

    // Such names are long: every plot makes room for its labels (about 7 px a character at its 12 px font), so none
    // is cut off at the plot's edge.
    let folders = [at(&dir, "venv"), at(&dir, "system")];
    let html = render(&Report::new(&Records::read(&folders).unwrap(), Some(dir.path())), Format::Html);
    let name = "fast (program /venv/bin/python3)".chars().count() as f64;
    let widths: Vec<f64> = html
        .split("<svg ")
        .skip(1)
        .map(|svg| svg.split("width=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(widths.len(), 3, "a profile, a strip plot and a heatmap");
    // Beside each plot's own area (the profile's plot, the strip plot's axis, the heatmap's cells and key), its
    // labels: the names, `name / dataset`, and the names again.
    let least = [520.0 + 7.0 * name, 476.0 + 7.0 * (name + 8.0), 246.0 + 7.0 * name];
    assert!(widths.iter().zip(least).all(|(width, least)| *width >= least), "{widths:?} against {least:?}");
}

/// Campaigns run at different `-j` are never pooled: each implementation's attempts become a row of their own per
/// concurrency, named so, in the tables and the profiles; folders of one concurrency keep the plain names.
#[test]
fn attempts_of_different_concurrency_are_separate_named_rows() {
    let dir = temp();
    let plan = || vec![Planned::new("ridge", "small", "fast"), Planned::new("ridge", "small", "slow").time(9_000_000)];
    write_campaign(&at(&dir, "alone"), &Campaign::default(), &plan());
    write_campaign(&at(&dir, "pair"), &Campaign { name: "pair", concurrency: 2, ..Campaign::default() }, &plan());
    let both = Records::read(&[at(&dir, "alone"), at(&dir, "pair")]).unwrap();
    let report = Report::new(&both, Some(dir.path()));
    let section = &report.problems[0];
    let mut names: Vec<&str> = section.rows.iter().map(|row| row.implementation.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["fast (-j 1)", "fast (-j 2)", "slow (-j 1)", "slow (-j 2)"]);
    assert!(section.rows.iter().all(|row| row.attempts == 1), "nothing pooled: {:?}", section.rows);
    assert_eq!(section.profile.series.len(), 4);
    let one = Records::read(&[at(&dir, "pair")]).unwrap();
    let report = Report::new(&one, Some(dir.path()));
    let names: Vec<&str> = report.problems[0].rows.iter().map(|row| row.implementation.as_str()).collect();
    assert_eq!(names, ["fast", "slow"], "one concurrency: the plain names");
}

/// Attempts served by reused sessions (no start-up, state kept between attempts) are never pooled with fresh ones:
/// each implementation that has both becomes two rows, named so; records that do not say were fresh.
#[test]
fn attempts_of_fresh_and_reused_sessions_are_separate_named_rows() {
    let dir = temp();
    let plan = || vec![Planned::new("ridge", "small", "fast"), Planned::new("ridge", "small", "slow").time(9_000_000)];
    write_campaign(&at(&dir, "before"), &Campaign::default(), &plan());
    write_campaign(
        &at(&dir, "reused"),
        &Campaign { name: "reused", sessions: Some("reuse"), ..Campaign::default() },
        &plan(),
    );
    write_campaign(
        &at(&dir, "fresh"),
        &Campaign { name: "fresh", sessions: Some("fresh"), ..Campaign::default() },
        &plan(),
    );
    let report = Report::new(&Records::read(&[at(&dir, "before"), at(&dir, "reused")]).unwrap(), Some(dir.path()));
    let mut names: Vec<&str> = report.problems[0].rows.iter().map(|row| row.implementation.as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        ["fast (fresh sessions)", "fast (reused sessions)", "slow (fresh sessions)", "slow (reused sessions)"]
    );
    assert!(report.problems[0].rows.iter().all(|row| row.attempts == 1), "nothing pooled");
    // A reused session's attempt after its first started no worker: its start-up is none (0), not unknown.
    for row in &report.problems[0].rows {
        let expected = if row.implementation.ends_with("(reused sessions)") { 0.0 } else { 0.081104001 };
        assert_eq!(row.phase_medians[0], Some(expected), "{}", row.implementation);
    }
    let report = Report::new(&Records::read(&[at(&dir, "before"), at(&dir, "fresh")]).unwrap(), Some(dir.path()));
    let names: Vec<&str> = report.problems[0].rows.iter().map(|row| row.implementation.as_str()).collect();
    assert_eq!(names, ["fast", "slow"], "fresh sessions, said or not: the plain names");
}

/// Attempts run on different numbers of CPUs (`-j 1` with workers started ahead, on all cores but the first, and
/// without) are never pooled: each implementation that has both becomes two rows, named by the count; records that
/// do not say take no part.
#[test]
fn attempts_on_different_numbers_of_cpus_are_separate_named_rows() {
    let dir = temp();
    let plan = || vec![Planned::new("ridge", "small", "fast"), Planned::new("ridge", "small", "slow").time(9_000_000)];
    write_campaign(&at(&dir, "one"), &Campaign { name: "one", cpus: Some(&[1]), ..Campaign::default() }, &plan());
    write_campaign(&at(&dir, "two"), &Campaign { name: "two", cpus: Some(&[0, 1]), ..Campaign::default() }, &plan());
    write_campaign(&at(&dir, "unsaid"), &Campaign { name: "unsaid", ..Campaign::default() }, &plan());
    let report = Report::new(&Records::read(&[at(&dir, "one"), at(&dir, "two")]).unwrap(), Some(dir.path()));
    let mut names: Vec<&str> = report.problems[0].rows.iter().map(|row| row.implementation.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["fast (1 CPU)", "fast (2 CPUs)", "slow (1 CPU)", "slow (2 CPUs)"]);
    assert!(report.problems[0].rows.iter().all(|row| row.attempts == 1), "nothing pooled");
    let report = Report::new(&Records::read(&[at(&dir, "one"), at(&dir, "unsaid")]).unwrap(), Some(dir.path()));
    let names: Vec<&str> = report.problems[0].rows.iter().map(|row| row.implementation.as_str()).collect();
    assert_eq!(names, ["fast", "slow"], "one count said: the plain names");
}

/// An implementation whose worker changed between campaigns (another program, command or source: another
/// identity) is two rows, each named by its identity's first digits; implementations that did not change keep
/// their names, and a concurrency that also differs is named beside it.
#[test]
fn attempts_of_different_worker_programs_are_separate_named_rows() {
    let dir = temp();
    let plan = || vec![Planned::new("ridge", "small", "fast"), Planned::new("ridge", "small", "slow").time(9_000_000)];
    write_campaign(&at(&dir, "before"), &Campaign::default(), &plan());
    write_campaign(
        &at(&dir, "after"),
        &Campaign { name: "after", worker_salt: "-changed", ..Campaign::default() },
        &[Planned::new("ridge", "small", "fast")],
    );
    let both = Records::read(&[at(&dir, "before"), at(&dir, "after")]).unwrap();
    let report = Report::new(&both, Some(dir.path()));
    let mut names: Vec<&str> = report.problems[0].rows.iter().map(|row| row.implementation.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names.len(), 3, "{names:?}");
    assert!(names[0].starts_with("fast (worker ") && names[1].starts_with("fast (worker "), "{names:?}");
    assert_ne!(names[0], names[1]);
    assert_eq!(names[2], "slow", "an unchanged worker keeps its name");
    assert!(report.problems[0].rows.iter().all(|row| row.attempts == 1), "nothing pooled");

    write_campaign(
        &at(&dir, "pair"),
        &Campaign { name: "pair", worker_salt: "-changed", concurrency: 2, ..Campaign::default() },
        &[Planned::new("ridge", "small", "fast")],
    );
    let three = Records::read(&[at(&dir, "before"), at(&dir, "pair")]).unwrap();
    let report = Report::new(&three, Some(dir.path()));
    let names: Vec<&str> = report.problems[0].rows.iter().map(|row| row.implementation.as_str()).collect();
    assert!(names.iter().any(|name| name.starts_with("fast (-j 2, worker ")), "{names:?}");
    assert!(names.iter().any(|name| name.starts_with("fast (-j 1, worker ")), "{names:?}");
    assert!(names.contains(&"slow (-j 1)"), "{names:?}");
}

/// What headless Chromium measured of a page laid out at some width: the document's scroll width, the window's
/// inner width, the right edge of the widest table and of the widest figure, and the bottom of the ranking's table
/// and of the main plot's first panel.
#[derive(Debug)]
struct Measured {
    scroll: f64,
    inner: f64,
    table_right: f64,
    figure_right: f64,
    ranking_bottom: f64,
    plot_bottom: f64,
}

/// Lays the HTML report out in headless Chromium at `width` px (`None` when there is no Chromium, a failure when
/// `CI` is `true`).
fn layout(html: &str, width: u32) -> Option<Measured> {
    let available = std::process::Command::new("chromium").arg("--version").output().is_ok_and(|o| o.status.success());
    if !available {
        assert!(std::env::var("CI").as_deref() != Ok("true"), "CI is true but there is no chromium on PATH");
        metewand_testkit::skip(metewand_testkit::Requirement::Chromium, "no chromium on PATH");
        return None;
    }
    let measure = "<script>const right = s => Math.max(0, ...[...document.querySelectorAll(s)].map(t => \
                   t.getBoundingClientRect().right)); const bottom = s => { const e = document.querySelector(s); \
                   return e ? e.getBoundingClientRect().bottom : -1; }; document.body.setAttribute('data-fit', \
                   [document.documentElement.scrollWidth, window.innerWidth, right('table'), right('svg'), \
                   bottom('#ranking table'), bottom('#main-plot svg')].join(' '));</script>";
    let dir = temp();
    let page = at(&dir, "report.html");
    fs::write(&page, html.replace("</body>", &format!("{measure}</body>"))).unwrap();
    let output = std::process::Command::new("chromium")
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--dump-dom"])
        .arg(format!("--window-size={width},800"))
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&output.stdout);
    let fit = dom
        .split("data-fit=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_else(|| panic!("chromium measured nothing: {}", String::from_utf8_lossy(&output.stderr)));
    let n: Vec<f64> = fit.split(' ').map(|n| n.parse().unwrap()).collect();
    Some(Measured {
        scroll: n[0],
        inner: n[1],
        table_right: n[2],
        figure_right: n[3],
        ranking_bottom: n[4],
        plot_bottom: n[5],
    })
}

/// A Lasso-like study at the scale a reviewer compares with benchopt's: six datasets with long names, five
/// solvers (one of them streaming only two checkpoints), three seeds, and ten metrics beside `error`, two of them
/// constant; the problem has a tolerance.
fn many() -> Vec<Planned> {
    let datasets = [
        "simulated[n_samples=100,n_features=5000]",
        "simulated[n_samples=5000,n_features=200]",
        "leukemia",
        "rcv1.train",
        "news20.binary",
        "finance-log1p",
    ];
    let solvers = ["sklearn-coordinate-descent", "numpy-ista", "numpy-fista", "scipy-lbfgs-with-a-long-name", "celer"];
    let metrics = [
        ("objective_value", 1.0),
        ("objective_support_size", 40.0),
        ("objective_duality_gap", 0.5),
        ("objective_sparsity_ratio", 0.01),
        ("objective_test_loss", 3.0),
        ("objective_train_loss", 2.0),
        ("objective_l1_norm", 7.0),
        ("objective_distance_to_optimum", 0.1),
        ("objective_lambda_max", 0.0),
        ("objective_n_iterations_planned", 0.0),
    ];
    let mut plan = Vec::new();
    for (d, dataset) in datasets.into_iter().enumerate() {
        for (i, solver) in solvers.into_iter().enumerate() {
            for seed in 0..3u64 {
                let scale = (1 + d + i) as u64 * 1_000_000 + seed * 100_000;
                let count = if solver == "celer" { 2 } else { 6 };
                let checkpoints: Vec<(u64, &'static str, f64)> = (1..=count)
                    .map(|k| {
                        let error = 10f64.powi(-2 * k) * (1.0 + seed as f64);
                        (scale * k as u64, if error < 1e-9 { "reached" } else { "not_reached" }, error)
                    })
                    .collect();
                let last = checkpoints[checkpoints.len() - 1];
                let mut planned = Planned::new("lasso", dataset, solver)
                    .seed(seed)
                    .time(scale * count as u64 + 1_000)
                    .profile(&checkpoints)
                    .error(last.2)
                    .tolerance(1e-9)
                    .scaled(&metrics);
                if last.1 != "reached" {
                    planned = planned.state(State::Record("not_reached"));
                }
                plan.push(planned);
            }
        }
    }
    plan
}

#[test]
fn the_html_fits_a_1280_px_window_and_widens_on_a_wide_one() {
    let dir = temp();
    let folder = at(&dir, "a-campaign-folder-with-a-rather-long-name-as-real-ones-have");
    write_campaign(&folder, &Campaign::default(), &mixed());
    let report = Report::new(&Records::read(std::slice::from_ref(&folder)).unwrap(), Some(dir.path()));
    let html = render(&report, Format::Html);
    let Some(narrow) = layout(&html, 1280) else { return };
    let Measured { scroll, inner, table_right: right, .. } = narrow;
    assert!(scroll <= inner, "a horizontal scrollbar at 1280 px: the page is {scroll} px wide in {inner}");
    assert!(right <= inner, "a table reaches {right} px in a {inner} px window");
    // On a wide screen the page uses the room instead of keeping one narrow column.
    let Some(wide) = layout(&html, 2200) else { return };
    assert!(wide.table_right > right, "the tables did not widen: {right} px at 1280, {} px at 2200", wide.table_right);
}

#[test]
fn many_metrics_and_datasets_fit_1280_px_with_the_ranking_and_the_main_plot_on_the_first_screen() {
    let dir = temp();
    let folder = at(&dir, "lasso");
    write_campaign(&folder, &Campaign::default(), &many());
    let report = Report::new(&Records::read(std::slice::from_ref(&folder)).unwrap(), Some(dir.path()));
    let section = &report.problems[0];
    assert_eq!(section.curves.len(), 9, "error and eight metrics that change; the two constants dropped");
    assert!(section.curves.iter().all(|curves| curves.panels.len() == 6), "a panel per dataset");
    let html = render(&report, Format::Html);
    let Some(measured) = layout(&html, 1280) else { return };
    let Measured { scroll, inner, table_right, figure_right, ranking_bottom, plot_bottom } = measured;
    assert!(scroll <= inner, "a horizontal scrollbar at 1280 px: the page is {scroll} px wide in {inner}");
    assert!(table_right <= inner && figure_right <= inner, "{measured:?}");
    assert!(ranking_bottom > 0.0 && ranking_bottom < plot_bottom, "the ranking comes first: {measured:?}");
    assert!(plot_bottom <= 800.0, "the main plot's first panel is below the first screen: {measured:?}");
}

/// Problem `p`: `stream` streams three checkpoints on `small` and `tall` (seeds 0 and 1, two repetitions), its error
/// halving at each and `reached` from the second, its time to it 2 ms though its whole execute takes 50 ms; `once`
/// reaches in one shot in 5 ms.
fn streamed() -> Vec<Planned> {
    let mut plan = Vec::new();
    for dataset in ["small", "tall"] {
        for seed in [0, 1] {
            for repetition in 1..=2u64 {
                let jitter = repetition * 100_000;
                let checkpoints = [
                    (1_000_000 + jitter, "not_reached", 0.4),
                    (2_000_000 + jitter, "reached", 0.2),
                    (4_000_000 + jitter, "reached", 0.1 * repetition as f64),
                ];
                plan.push(
                    Planned::new("p", dataset, "stream")
                        .seed(seed)
                        .repetition(repetition)
                        .time(50_000_000)
                        .profile(&checkpoints),
                );
                plan.push(Planned::new("p", dataset, "once").seed(seed).repetition(repetition).time(5_000_000));
            }
        }
    }
    plan
}

#[test]
fn streamed_attempts_are_plotted_against_time_and_ranked_by_their_time_to_reached() {
    let dir = temp();
    let folder = at(&dir, "campaign");
    write_campaign(&folder, &Campaign::default(), &streamed());
    let records = Records::read(std::slice::from_ref(&folder)).unwrap();
    let report = Report::new(&records, Some(dir.path()));
    let section = &report.problems[0];
    // The profile ranks `stream` by its time to reached (2.1 ms median), not by its 50 ms execute.
    let fastest: Vec<&str> = section
        .profile
        .series
        .iter()
        .filter(|series| series.rho(1.0) == 1.0)
        .map(|series| series.implementation.as_str())
        .collect();
    assert_eq!(fastest, ["stream"]);
    let curves = &section.curves;
    assert_eq!(curves.len(), 1, "one numeric metric");
    let panels: Vec<&str> = curves[0].panels.iter().map(|panel| panel.dataset.as_str()).collect();
    assert_eq!(panels, ["small", "tall"], "one panel per dataset the streaming implementation ran on");
    let points = &curves[0].panels[0].series[0].points;
    // From the time every attempt has a checkpoint (1.2 ms) to the last one's end (4.2 ms), on the grid between.
    assert!((points[0].seconds - 0.0012).abs() < 1e-12 && (points[points.len() - 1].seconds - 0.0042).abs() < 1e-12);
    // The best reached is `once`'s error of 0: at the end the attempts hold 0.1 (twice) and 0.2 (twice).
    let last = &points[points.len() - 1];
    assert!((last.median - 0.15).abs() < 1e-12 && (last.q1, last.q3) == (0.1, 0.2), "{last:?}");

    let html = render(&report, Format::Html);
    let found = describe(&html);
    assert_eq!(found["errors"], Value::Array(vec![]));
    let svgs = found["svgs"].as_array().unwrap();
    assert_eq!(svgs.len(), 6, "two convergence panels and their legend, profile, execute times, failure heatmap");
    let plot = &svgs[0];
    assert_eq!(plot["title"], "error suboptimality against time on small, problem p");
    let names: Vec<&str> = plot["series"].as_array().unwrap().iter().map(|name| name.as_str().unwrap()).collect();
    assert_eq!(names, ["stream"]);
    let texts: Vec<&str> = plot["texts"].as_array().unwrap().iter().map(|text| text.as_str().unwrap()).collect();
    assert!(texts.contains(&"time (seconds, log₁₀ scale)"), "{texts:?}");
    assert!(texts.contains(&"1 ms") && texts.contains(&"10 ms"), "{texts:?}");
    // The Markdown report sums each series up: its first and last times' medians.
    let markdown = render(&report, Format::Markdown);
    assert!(markdown.contains("\nConvergence of error (streamed attempts):"), "{markdown}");
    assert!(markdown.contains("| stream | small | 4 | 3 | 1.20 ms: "), "{markdown}");
    // The JSON report carries the curves; a problem without streamed attempts has none.
    let json: Value = serde_json::from_str(&render(&report, Format::Json)).unwrap();
    assert_eq!(json["problems"][0]["curves"][0]["panels"][1]["dataset"], "tall");
    let plain = at(&dir, "plain");
    write_campaign(&plain, &Campaign::default(), &[Planned::new("p", "small", "once")]);
    let report = Report::new(&Records::read(std::slice::from_ref(&plain)).unwrap(), Some(dir.path()));
    assert!(report.problems[0].curves.is_empty());
    assert!(!render(&report, Format::Markdown).contains("Convergence of"));
    let json: Value = serde_json::from_str(&render(&report, Format::Json)).unwrap();
    assert!(json["problems"][0].get("curves").is_none());
}

/// An evaluator that failed on one implementation's result but judged another's on the same instance was broken by
/// that result (DESIGN §24): the instance stays in every profile, and the implementation whose result broke it did
/// not solve it. Only an instance no attempt was judged on is the benchmark's failure, left out (see above).
#[test]
fn an_evaluator_broken_by_one_result_keeps_the_instance_and_that_implementation_did_not_solve_it() {
    let dir = temp();
    let folder = at(&dir, "campaign");
    let attempts = [
        Planned::new("p", "small", "good"),
        Planned::new("p", "small", "breaks"),
        Planned::new("p", "tall", "good"),
        Planned::new("p", "tall", "breaks").state(State::EvaluatorFailed),
    ];
    write_campaign(&folder, &Campaign::default(), &attempts);
    let records = Records::read(std::slice::from_ref(&folder)).unwrap();
    let report = Report::new(&records, Some(dir.path()));
    let profile = &report.problems[0].profile;
    assert_eq!(profile.instances, 2, "tall stays: the evaluator judged good's result there");
    let series = |name: &str| profile.series.iter().find(|series| series.implementation == name).unwrap();
    assert_eq!(series("good").rho(f64::MAX), 1.0);
    assert_eq!(series("breaks").rho(f64::MAX), 0.5, "not solved where its result broke the evaluator");
}

/// An attempt's id held in its digest's 32 bytes displays and equals as its text; any other text is kept as it is.
#[test]
fn an_attempt_id_is_its_text() {
    use metewand_report::load::AttemptId;
    let digest = format!("mw1-attempt-{}", "0123456789abcdef".repeat(4));
    for text in [
        digest.as_str(),
        "mw1-attempt-b",
        &digest.to_uppercase(),
        &digest.replacen("mw1", "mw2", 1),
        &format!("{digest}0"),
        "",
    ] {
        let id = AttemptId::from(text);
        assert_eq!(id.to_string(), text);
        assert!(id == text, "{text}");
        assert_eq!(format!("{id:?}"), format!("{text:?}"));
    }
    let id = AttemptId::from(digest.as_str());
    assert!(id != digest.replace('f', "e").as_str());
    assert!(id != digest.to_uppercase().as_str(), "the same digest in capitals is another text");
    assert!(id != digest[..digest.len() - 1]);
    assert_ne!(id, AttemptId::from("mw1-attempt-b"));
}
