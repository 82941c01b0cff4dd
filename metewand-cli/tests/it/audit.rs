//! `metewand audit` end to end on the test-worker benchmark: a clean audit exits 0 and prints where its record is,
//! one whose re-runs are slow where they run exits 1 listing them, and bad input is one sentence with exit 2.

use std::fs;

use crate::campaign::Bench;
use crate::{run as metewand, text};

/// `metewand audit FOLDER` and `extra`, with the bench's state folder.
fn audit_args(bench: &Bench, folder: &std::path::Path, extra: &[&str]) -> Vec<String> {
    let mut args = vec!["audit".to_owned(), folder.to_str().unwrap().to_owned()];
    args.extend(["--state-dir".to_owned(), bench.path("state").to_str().unwrap().to_owned()]);
    args.extend(extra.iter().map(|arg| (*arg).to_owned()));
    args
}

#[test]
fn a_clean_audit_exits_0_and_a_time_outside_exits_1() {
    let bench = Bench::new(r#""--fault", "slow-elsewhere@execute""#);
    assert_eq!(metewand(&bench.run_args("main", "state", &["-q"])).status.code(), Some(0));
    let folder = bench.folder("state", "main");
    let caught = metewand(&audit_args(&bench, &folder, &["--sample", "2", "--seed", "9"]));
    let (stdout, stderr) = (text(&caught.stdout), text(&caught.stderr));
    assert_eq!(caught.status.code(), Some(1), "{stdout}{stderr}");
    assert!(stdout.contains("campaign     main (2 of 4 done attempts, seed 9, tolerance 50% + 10 ms)"), "{stdout}");
    assert_eq!(stdout.lines().filter(|line| line.starts_with("time ")).count(), 2, "{stdout}");
    assert!(stdout.contains("result       0 verdict changes, 2 times outside"), "{stdout}");
    assert_eq!(stderr.lines().count(), 1, "one sentence: {stderr}");
    assert!(stderr.contains("0 verdicts changed and 2 times fell outside"), "{stderr}");
    // An honest solver: the same benchmark without the fault, its own campaign.
    let honest = Bench::new("");
    assert_eq!(metewand(&honest.run_args("main", "state", &["-q"])).status.code(), Some(0));
    let folder = honest.folder("state", "main");
    let clean = metewand(&audit_args(&honest, &folder, &["--sample", "4", "--slack", "100"]));
    let stdout = text(&clean.stdout);
    assert_eq!(clean.status.code(), Some(0), "{stdout}{}", text(&clean.stderr));
    assert!(stdout.contains("result       every re-run agreed with its record and its cell"), "{stdout}");
    let path = stdout.lines().next().unwrap().strip_prefix("audit        ").unwrap();
    assert!(fs::metadata(std::path::Path::new(path).join("audit.json")).unwrap().is_file());
}

#[test]
fn bad_input_is_one_sentence_with_exit_2() {
    let bench = Bench::new("");
    assert_eq!(metewand(&bench.run_args("main", "state", &["-q"])).status.code(), Some(0));
    let folder = bench.folder("state", "main");
    let cases: [(Vec<String>, &str); 3] = [
        (audit_args(&bench, &folder, &["--sample", "0"]), "must be at least 1, not 0"),
        (audit_args(&bench, &folder, &["--sample", "5"]), "a sample of 5 is more than the 4 done attempts"),
        (audit_args(&bench, &bench.path("repo"), &["--sample", "1"]), "is not a campaign folder"),
    ];
    for (args, expected) in cases {
        let refused = metewand(&args);
        let stderr = text(&refused.stderr);
        assert_eq!(refused.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "one sentence: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
    fs::write(bench.path("repo/src-solver/README"), "another solver\n").unwrap();
    let changed = metewand(&audit_args(&bench, &folder, &["--sample", "1"]));
    let stderr = text(&changed.stderr);
    assert_eq!(changed.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one sentence: {stderr}");
    assert!(stderr.contains("the repository changed since the campaign in"), "{stderr}");
    assert!(!folder.join("audits").exists(), "nothing was written");
}
