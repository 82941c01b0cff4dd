//! `metewand report` and `metewand compare` as a user runs them: a report of a real campaign of the test worker's
//! benchmark with failures and a missing attempt, the same bytes twice, a comparison that fails on a regression
//! only when asked, and bad input as one sentence with exit 2.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::campaign::Bench;
use crate::synth::{Campaign, Planned, State, write_campaign};
use crate::{run as metewand, text};

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|arg| (*arg).to_owned()).collect()
}

fn path(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn report_of_a_campaign_with_failures_and_a_missing_attempt_says_so() {
    let bench = Bench::new("");
    let ran = metewand(&bench.run_args("mixed", "state", &["-j", "2", "--quiet"]));
    assert_eq!(ran.status.code(), Some(3), "{}", text(&ran.stderr));
    let folder = bench.folder("state", "mixed");
    // The attempt that reached its verdict removed by hand: read with its records checked, the campaign is now
    // incomplete, its three failures remain.
    let removed = fs::read_dir(folder.join("attempts"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|dir| fs::read_to_string(dir.join("attempt.json")).unwrap().contains("\"outcome\":\"reached\""))
        .unwrap();
    fs::remove_dir_all(&removed).unwrap();
    let out_dir = bench.path("reports");
    fs::create_dir(&out_dir).unwrap();
    let out = out_dir.join("report.html");
    let output = metewand(&args(&["report", "--check-records", path(&folder), "--out", path(&out)]));
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(output.stdout.is_empty());
    let stderr = text(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("the campaign is incomplete: 1 of 4 planned attempts"), "{stderr}");
    let html = fs::read_to_string(&out).unwrap();
    assert!(html.contains("<strong>Incomplete:</strong> 1 of 4 planned attempts"));
    assert!(html.contains("dataset_materializer</td><td>materialize</td><td>worker_failure"));
    // Every log and record link resolves from the report's folder.
    let links: Vec<&str> = html.split("href=\"").skip(1).filter_map(|rest| rest.split('"').next()).collect();
    let files: Vec<&&str> = links.iter().filter(|link| link.ends_with(".log") || link.ends_with(".json")).collect();
    assert!(files.len() >= 4, "{links:?}");
    for link in files {
        assert!(out_dir.join(link).is_file(), "{link} does not resolve from {}", out_dir.display());
    }
    // The same records give the same bytes.
    let again = bench.path("reports/again.html");
    assert_eq!(
        metewand(&args(&["report", "--check-records", path(&folder), "--out", path(&again)])).status.code(),
        Some(0)
    );
    assert_eq!(fs::read(&out).unwrap(), fs::read(&again).unwrap());
    // Markdown, CSV and JSON on stdout.
    let markdown = metewand(&args(&["report", "--check-records", path(&folder), "--format", "markdown"]));
    assert_eq!(markdown.status.code(), Some(0));
    assert!(text(&markdown.stdout).contains("| implementation | execute | worker_failure | 1 |"));
    let csv = text(&metewand(&args(&["report", "--check-records", path(&folder), "--format", "csv"])).stdout);
    assert!(csv.starts_with("problem,implementation,dataset,planned,attempts,reached,"), "{csv}");
    assert_eq!(csv.lines().count(), 5, "a header and the four cells");
    let json: Value = serde_json::from_slice(
        &metewand(&args(&["report", "--check-records", path(&folder), "--format", "json"])).stdout,
    )
    .unwrap();
    assert_eq!(json["campaigns"][0]["planned"], 4);
}

/// Before and after: implementation `a` on `tall` takes twice as long after, with eight repetitions per cell.
fn slowdown(dir: &Path) {
    let plan = |factor: u64| -> Vec<Planned> {
        let mut plan = Vec::new();
        for (implementation, dataset) in [("a", "small"), ("a", "tall"), ("b", "small")] {
            for repetition in 1..=8 {
                let slow = if (implementation, dataset) == ("a", "tall") { factor } else { 1 };
                let time = (2_000_000 + 50_000 * repetition) * slow;
                plan.push(Planned::new("p", dataset, implementation).repetition(repetition).time(time));
            }
        }
        plan
    };
    write_campaign(&dir.join("before"), &Campaign::default(), &plan(1));
    write_campaign(&dir.join("after"), &Campaign::default(), &plan(2));
}

#[test]
fn compare_report_fails_on_a_regression_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    slowdown(dir.path());
    let (before, after) = (dir.path().join("before"), dir.path().join("after"));
    let plain = metewand(&args(&["compare", path(&before), path(&after)]));
    assert_eq!(plain.status.code(), Some(0), "{}", text(&plain.stderr));
    let stdout = text(&plain.stdout);
    assert!(stdout.contains("| p | tall | 0 | a | 0 | 8 | 8 |"), "{stdout}");
    assert_eq!(stdout.matches("| worse |").count(), 1, "{stdout}");
    assert_eq!(stdout.matches("| same |").count(), 2, "{stdout}");
    let strict = metewand(&args(&["compare", path(&before), path(&after), "--fail-on-regression"]));
    assert_eq!(strict.status.code(), Some(1));
    let stderr = text(&strict.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("1 cells are significantly worse than 1.1 times A: p / tall#0 / a#0"), "{stderr}");
    // A factor of 3 tolerates the slowdown.
    let lenient = metewand(&args(&["compare", path(&before), path(&after), "--factor", "3", "--fail-on-regression"]));
    assert_eq!(lenient.status.code(), Some(0));
    let json = metewand(&args(&["compare", path(&before), path(&after), "--format", "json"]));
    let json: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(json["by_verdict"]["worse"], 1);
    // The same folder against itself: every cell the same, nothing to warn about.
    let same = metewand(&args(&["compare", path(&before), path(&before), "--fail-on-regression"]));
    assert_eq!(same.status.code(), Some(0));
    assert!(same.stderr.is_empty(), "{}", text(&same.stderr));
}

/// With 2 repetitions a cell no p can fall below 1/3: `compare` says so, and `--fail-on-regression`, which could never
/// fire, is refused before anything is printed, saying why.
#[test]
fn compare_refuses_to_gate_on_samples_too_small_to_be_significant() {
    let dir = tempfile::tempdir().unwrap();
    let plan = |slow: u64| -> Vec<Planned> {
        (1..=2)
            .map(|repetition| Planned::new("p", "small", "a").repetition(repetition).time(1_000_000 * slow))
            .collect()
    };
    let (before, after) = (dir.path().join("before"), dir.path().join("after"));
    write_campaign(&before, &Campaign::default(), &plan(1));
    write_campaign(&after, &Campaign::default(), &plan(10));
    let plain = metewand(&args(&["compare", path(&before), path(&after)]));
    assert_eq!(plain.status.code(), Some(0), "{}", text(&plain.stderr));
    let stdout = text(&plain.stdout);
    assert!(stdout.contains("the smallest p these sample sizes allow is 0.333"), "{stdout}");
    assert!(stdout.contains("| ~worse |"), "ten times slower, but not significant: {stdout}");
    let gated = metewand(&args(&["compare", path(&before), path(&after), "--fail-on-regression"]));
    assert_eq!(gated.status.code(), Some(2), "{}", text(&gated.stderr));
    assert!(gated.stdout.is_empty());
    let stderr = text(&gated.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("--fail-on-regression could never fire") && stderr.contains("0.333"), "{stderr}");
}

#[test]
fn report_and_compare_bad_input_is_one_sentence_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    slowdown(dir.path());
    let empty = dir.path().join("empty");
    fs::create_dir(&empty).unwrap();
    let none = dir.path().join("none");
    write_campaign(&none, &Campaign::default(), &[Planned::new("p", "d", "i").state(State::Missing)]);
    let other = dir.path().join("other");
    write_campaign(
        &other,
        &Campaign { repository: "/elsewhere", ..Campaign::default() },
        &[Planned::new("p", "d", "i")],
    );
    let invalid = dir.path().join("invalid");
    let ids = write_campaign(&invalid, &Campaign::default(), &[Planned::new("p", "d", "i")]);
    fs::write(invalid.join("attempts").join(&ids[0]).join("attempt.json"), b"not json").unwrap();
    let before = dir.path().join("before");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (args(&["report", path(&empty)]), "is not a campaign folder"),
        (args(&["report", path(&none)]), "has no attempt records yet (0 of 1 planned attempts ran)"),
        (args(&["report", path(&before), path(&other)]), "report each repository's campaigns separately"),
        (args(&["report", path(&invalid)]), "attempt.json is invalid"),
        (args(&["report", path(&before), "--format", "pdf"]), "invalid value 'pdf'"),
        (args(&["report"]), "required"),
        (args(&["report", path(&before), "--out", path(&dir.path().join("no/such/report.html"))]), "cannot write"),
        (args(&["compare", path(&before), path(&empty)]), "is not a campaign folder"),
        (args(&["compare", path(&before), path(&before), "--factor", "0.9"]), "greater than 1"),
    ];
    for (arguments, expected) in cases {
        let output = metewand(&arguments);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{arguments:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{arguments:?}: {stderr}");
        assert!(stderr.contains(expected), "{arguments:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{arguments:?}");
    }
    assert!(!dir.path().join("no").exists(), "nothing is created for a report that cannot be written");
}

/// Two campaigns of different benchmarks share no cell: `compare` says there is nothing to compare and exits 2,
/// rather than printing an empty table and exit 0.
#[test]
fn compare_of_campaigns_without_a_common_cell_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (sorting, solving) = (dir.path().join("sorting"), dir.path().join("solving"));
    write_campaign(&sorting, &Campaign::default(), &[Planned::new("sort", "small", "numpy").time(1_000_000)]);
    write_campaign(&solving, &Campaign::default(), &[Planned::new("p", "small", "a").time(1_000_000)]);
    for extra in [&[][..], &["--fail-on-regression"][..]] {
        let mut all = vec!["compare", path(&sorting), path(&solving)];
        all.extend_from_slice(extra);
        let output = metewand(&args(&all));
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(output.stdout.is_empty());
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains("no cell is in both campaigns (1 only in A, 1 only in B)"), "{stderr}");
    }
}

/// A campaign served by reused sessions against one served by fresh ones (DESIGN §24): the same cells, B's times a
/// hundredth of A's (a worker that remembers what it computed). `compare` warns that the sessions differ, and
/// `--fail-on-regression` refuses to compare them (exit 2, one sentence); each report says how its sessions served.
#[test]
fn compare_names_sessions_that_differ_and_will_not_gate_on_them() {
    let dir = tempfile::tempdir().unwrap();
    let plan = |time: u64| -> Vec<Planned> {
        (1..=8).map(|repetition| Planned::new("p", "small", "a").repetition(repetition).time(time)).collect()
    };
    let (fresh, reused) = (dir.path().join("fresh"), dir.path().join("reused"));
    write_campaign(&fresh, &Campaign { sessions: Some("fresh"), ..Campaign::default() }, &plan(400_000_000));
    write_campaign(&reused, &Campaign { sessions: Some("reuse"), ..Campaign::default() }, &plan(4_000_000));
    let output = metewand(&args(&["compare", path(&fresh), path(&reused)]));
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    assert!(stdout.contains("the sessions differ: A's times are fresh sessions', B's reused sessions'"), "{stdout}");
    let gated = metewand(&args(&["compare", path(&fresh), path(&reused), "--fail-on-regression"]));
    assert_eq!(gated.status.code(), Some(2));
    let stderr = text(&gated.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("compares like with like, but A's times are fresh sessions' and B's reused"), "{stderr}");
    let same = metewand(&args(&["compare", path(&reused), path(&reused), "--fail-on-regression"]));
    assert_eq!(same.status.code(), Some(0), "{}", text(&same.stderr));
    for (folder, sessions) in [(&fresh, "fresh"), (&reused, "reused")] {
        let markdown = text(&metewand(&args(&["report", path(folder), "--format", "markdown"])).stdout);
        assert!(markdown.contains("| folder | campaign | sessions | planned | done |"), "{markdown}");
        assert!(markdown.contains(&format!(" | {sessions} | 8 | 8 |")), "{sessions}:\n{markdown}");
    }
}
