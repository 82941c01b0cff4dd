//! Audits of campaigns whose implementation is the test worker playing what an audit is for: a time that depends
//! on where it runs (caught), a cache of its answers kept in files between sessions (useless under confinement, so
//! nothing is found), an honest one (a clean audit and its record), and the input an audit refuses.

use std::fs;
use std::num::NonZeroUsize;
use std::path::Path;

use metewand_campaign::Refusals;
use metewand_campaign::audit::{AUDIT_FILE, Audit, AuditConfig, AuditError, AuditReport, audit};
use metewand_protocol::strict::SafeUint;
use metewand_runtime::session::ProcessIsolation;

use crate::Bench;

/// An audit of `sample` attempts of the campaign in `folder`, drawn with `seed`, its datasets from the bench's
/// state folder. Its intervals are widened by 100 ms, not 10: the test worker answers in well under a millisecond,
/// and a busy machine may hold any one answer back by more than that; what the attacks do takes 300 ms.
fn audit_of(bench: &Bench, folder: &Path, sample: usize, seed: u64) -> Result<AuditReport, AuditError> {
    let config = AuditConfig {
        sample: NonZeroUsize::new(sample).unwrap(),
        seed: Some(SafeUint::try_from(seed).unwrap()),
        tolerance_percent: metewand_campaign::audit::DEFAULT_TOLERANCE_PERCENT,
        slack_ns: 100_000_000,
        repository: None,
        state_dir: Some(bench.state()),
        isolation: ProcessIsolation::default(),
        refusals: Refusals { weaker_confinement: false, unenforced_limits: false },
        cpus: None,
        cancel: None,
    };
    audit(folder, &config, &mut |_| {})
}

/// Every line of the implementation's logs under `folder` (an attempt folder, or a folder of them).
fn implementation_logs(folder: &Path) -> String {
    let mut text = String::new();
    let Ok(entries) = fs::read_dir(folder) else { return text };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            text.push_str(&implementation_logs(&path));
        } else if path.file_name().is_some_and(|name| name.to_string_lossy().starts_with("implementation")) {
            text.push_str(&fs::read_to_string(&path).unwrap_or_default());
        }
    }
    text
}

/// An implementation that is slow only where it runs under an audit's folder is caught: each re-run's time falls
/// outside its cell's interval, though its verdict is the record's.
#[test]
fn a_time_that_depends_on_where_it_runs_is_caught() {
    let bench = Bench::new(r#""--fault", "slow-elsewhere@execute""#);
    let summary = bench.run("main", "c", 1, false);
    assert_eq!(summary.with_verdict, 4);
    let report = audit_of(&bench, &bench.folder("c"), 3, 11).unwrap();
    assert!(!report.passed());
    assert_eq!(report.verdict_changes().count(), 0, "{:?}", report.audit);
    assert_eq!(report.times_outside().count(), 3, "{:?}", report.audit);
    for attempt in &report.audit.attempts {
        let ns = attempt.rerun.time_ns.unwrap().get();
        assert!(ns > attempt.interval.high_ns.get(), "{ns} above {:?}", attempt.interval);
        assert!(ns >= 300_000_000, "the worker slept: {ns}");
    }
}

/// An implementation that keeps a cache of its answers in files and answers from it when it finds one gains
/// nothing: each session writes its cache where it may (its own `TMPDIR`, kept in the campaign's attempt folder)
/// and nowhere else, and no re-run finds one, so every re-run does the work again and the audit finds no change.
/// Had a re-run answered from a cache, at once, its time would have fallen below its cell's interval.
#[test]
fn a_cache_kept_in_files_is_useless_and_nothing_is_found() {
    let bench = Bench::new(r#""--fault", "cache-file@prepare", "--fault", "cache-file@execute""#);
    assert_eq!(bench.run("main", "c", 1, false).with_verdict, 4);
    let campaign_logs = implementation_logs(&bench.folder("c").join("attempts"));
    assert!(campaign_logs.contains("cache-write"), "the worker tried to keep its cache: {campaign_logs}");
    // The campaign's sessions left their caches in their attempt folders; the audit's cannot reach them.
    let kept = campaign_logs.lines().filter(|line| line.contains("cache-write") && line.ends_with(": ok"));
    let kept: Vec<&str> = kept.collect();
    assert_eq!(kept.len(), 4, "one place a session may write: {campaign_logs}");
    for line in &kept {
        assert!(line.contains("/attempts/") && line.contains("/work/"), "inside its own attempt folder: {line}");
    }
    let report = audit_of(&bench, &bench.folder("c"), 4, 5).unwrap();
    assert!(report.passed(), "{:?}", report.audit);
    for attempt in &report.audit.attempts {
        assert!(attempt.interval.low_ns.get() > 0, "an answer from a cache would have been caught: {attempt:?}");
    }
    let audit_logs = implementation_logs(&report.path);
    assert!(!audit_logs.contains("cache hit") && !campaign_logs.contains("cache hit"), "{audit_logs}");
    assert_eq!(audit_logs.matches("cache-write").count(), campaign_logs.matches("cache-write").count());
}

/// A clean audit records itself beside the campaign without touching its records: `audit.json` (canonical, valid,
/// naming the seed and the sample) and each re-run's attempt folder. The same seed draws the same attempts in the
/// same order, into a folder of its own.
#[test]
fn a_clean_audit_writes_its_record_and_a_seed_repeats_it() {
    let bench = Bench::new("");
    assert_eq!(bench.run("main", "c", 1, false).with_verdict, 4);
    let folder = bench.folder("c");
    let before = crate::records(&folder);
    let report = audit_of(&bench, &folder, 2, 42).unwrap();
    assert!(report.passed(), "{:?}", report.audit);
    assert_eq!(report.path.parent().unwrap(), folder.canonicalize().unwrap().join("audits"));
    let bytes = fs::read(report.path.join(AUDIT_FILE)).unwrap();
    let value: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(metewand_protocol::to_canonical_vec(&value), bytes, "canonical");
    let written: Audit = serde_json::from_value(value).unwrap();
    assert_eq!((written.seed.get(), written.sample.get(), written.done.get()), (42, 2, 4));
    assert_eq!(written.attempts.len(), 2);
    for attempt in &written.attempts {
        let record = report.path.join(&attempt.folder).join("attempt.json");
        let rerun: serde_json::Value = serde_json::from_slice(&fs::read(record).unwrap()).unwrap();
        assert_eq!(rerun["campaign"]["attempt_id"], attempt.attempt_id.as_str());
        assert_eq!(rerun["verdict"], "reached");
        assert!(!attempt.verdict_changed && !attempt.time_outside);
        assert_eq!(attempt.interval.repetitions.get(), 2);
    }
    assert_eq!(crate::records(&folder), before, "the campaign's records are as they were");
    let again = audit_of(&bench, &folder, 2, 42).unwrap();
    assert_ne!(again.path, report.path);
    let ids = |report: &AuditReport| report.audit.attempts.iter().map(|a| a.attempt_id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&again), ids(&report));
}

/// What an audit refuses, before it runs anything: a folder that is not a campaign's, a sample larger than the
/// done attempts, and a campaign whose repository changed since (naming the worker and what changed).
#[test]
fn bad_input_is_refused_with_one_sentence() {
    let bench = Bench::new("");
    let not_a_campaign = audit_of(&bench, &bench.repo(), 1, 0).unwrap_err();
    assert!(matches!(not_a_campaign, AuditError::NotACampaign { .. }), "{not_a_campaign}");
    assert!(
        not_a_campaign
            .to_string()
            .ends_with("is not a campaign folder: it has no campaign.json; give the folder a campaign run wrote")
    );
    assert_eq!(bench.run("main", "c", 1, false).with_verdict, 4);
    let folder = bench.folder("c");
    let too_many = audit_of(&bench, &folder, 5, 0).unwrap_err();
    assert!(too_many.to_string().starts_with("a sample of 5 is more than the 4 done attempts"), "{too_many}");
    fs::write(bench.repo().join("src-solver/README"), "another solver\n").unwrap();
    let changed = audit_of(&bench, &folder, 1, 0).unwrap_err();
    assert!(matches!(changed, AuditError::Changed { .. }), "{changed}");
    assert!(changed.to_string().contains("(worker solver: source)"), "{changed}");
    assert!(!folder.join("audits").exists(), "nothing was written");
}
