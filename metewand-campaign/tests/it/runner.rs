//! The pool: outcomes by id, one materialization per key (a failed one fails its attempts without running
//! again), resume and `--retry-failed`, the folder's lock and identity, invalid records, status and exports.

use std::fs;

use metewand_campaign::folder::FolderError;
use metewand_campaign::index::Check;
use metewand_campaign::{Axes, CampaignFolder, CampaignPlan, Environment, Status, read_campaign};
use metewand_runtime::repository::Seeds;
use serde_json::Value;

use metewand_testkit::Requirement;

use crate::{Bench, records};

fn outcome(record: &Value) -> &str {
    record["outcome"].as_str().unwrap()
}

#[test]
fn a_mixed_campaign_records_every_outcome_and_materializes_each_key_once() {
    let bench = Bench::new("");
    let summary = bench.run("mixed", "out", 2, false);
    assert_eq!((summary.planned, summary.ran, summary.skipped), (4, 4, 0));
    assert_eq!(summary.exit().code(), 3, "an attempt failed");
    let folder = bench.folder("out");
    let first = records(&folder);
    assert_eq!(first.len(), 4);
    let mut by_cell = std::collections::BTreeMap::new();
    for (id, record) in &first {
        assert_eq!(record["campaign"]["attempt_id"], id.as_str());
        assert_eq!(record["campaign"]["name"], "mixed");
        assert_eq!(record["campaign"]["concurrency"], 2);
        assert_eq!(record["campaign"]["repetition"], 1);
        let cell = format!(
            "{}/{}",
            record["dataset"]["name"].as_str().unwrap(),
            record["implementation"]["name"].as_str().unwrap()
        );
        by_cell.insert(cell, record.clone());
    }
    assert_eq!(outcome(&by_cell["small/solve"]), "reached");
    assert_eq!(by_cell["small/solve"]["dataset"]["reused"], true, "materialized before, alone");
    assert_eq!(outcome(&by_cell["small/fail"]), "failed");
    assert_eq!(by_cell["small/fail"]["failure"]["kind"], "worker_failure");
    assert_eq!(by_cell["small/fail"]["failure"]["role"], "implementation");
    for cell in ["broken/solve", "broken/fail"] {
        let record = &by_cell[cell];
        assert_eq!(outcome(record), "failed", "{cell}");
        assert_eq!(record["failure"]["role"], "dataset_materializer", "{cell}");
        assert_eq!(record["failure"]["kind"], "worker_failure", "{cell}");
        assert!(record["failure"]["message"].as_str().unwrap().contains("run once for the campaign"), "{record}");
        assert_eq!(record["phases"], serde_json::json!([]), "no session ran for {cell}");
    }
    // One record per key, the failed one with its failure; one materializer session each.
    let keys: Vec<_> = fs::read_dir(folder.join("datasets"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".json"))
        .collect();
    assert_eq!(keys.len(), 2, "{keys:?}");
    let broken = by_cell["broken/solve"]["dataset"]["key"].as_str().unwrap();
    let record: Value =
        serde_json::from_slice(&fs::read(folder.join(format!("datasets/{broken}.json"))).unwrap()).unwrap();
    assert_eq!(record["outcome"], "failed");
    let hellos = record["phases"].as_array().unwrap().iter().filter(|phase| phase["phase"] == "hello").count();
    assert_eq!(hellos, 1);

    // The same run again skips everything; --retry-failed runs the three failed attempts (and the failed
    // materialization) again.
    let again = bench.run("mixed", "out", 2, false);
    assert_eq!((again.ran, again.skipped), (0, 4));
    let retried = bench.run("mixed", "out", 1, true);
    assert_eq!((retried.ran, retried.skipped), (3, 1));
    let record: Value =
        serde_json::from_slice(&fs::read(folder.join(format!("datasets/{broken}.json"))).unwrap()).unwrap();
    assert_eq!(record["outcome"], "failed", "materialized again, failed again");
    let after = records(&folder);
    assert_eq!(after.keys().collect::<Vec<_>>(), first.keys().collect::<Vec<_>>());
    for (id, record) in &after {
        assert_eq!(outcome(record), outcome(&first[id]), "{id}");
    }

    // Status and exports agree with the records.
    let status = Status::of(&folder, Check::Entries).unwrap();
    assert_eq!(status.planned, 4);
    assert_eq!(status.by_outcome.get("failed"), Some(&3));
    // Two attempts failed with their dataset's materialization, one with its implementation: each is blamed on
    // its own role.
    let causes: Vec<(&str, usize)> = status.failed_by_cause.iter().map(|(cause, n)| (cause.as_str(), *n)).collect();
    assert_eq!(causes, [("dataset_materializer worker_failure", 2), ("implementation worker_failure", 1)]);
    assert!(status.complete());
    let csv = fs::read_to_string(folder.join("results.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(&header[..3], ["attempt_id", "problem", "dataset"]);
    assert!(header.contains(&"metric.error"), "{header:?}");
    assert_eq!(lines.count(), 4);
    let rows: Vec<Value> = fs::read_to_string(folder.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(rows.len(), 4);
    for row in &rows {
        let record = &after[row["attempt_id"].as_str().unwrap()];
        assert_eq!(row["outcome"], record["outcome"], "{row}");
        // The implementation's peak memory, as wait4 reported it when its session ended cleanly.
        assert_eq!(row["peak_memory_bytes"], record["implementation"]["resources"]["peak_rss_bytes"], "{row}");
        // And its CPU time, user and system together.
        let resources = &record["implementation"]["resources"];
        let cpu = resources["user_cpu_ns"].as_u64().zip(resources["system_cpu_ns"].as_u64()).map(|(u, s)| u + s);
        assert_eq!(row["cpu_ns"].as_u64(), cpu, "{row}");
    }
    assert!(rows.iter().any(|row| row["peak_memory_bytes"].as_u64().is_some_and(|bytes| bytes > 0)), "{rows:?}");
}

/// Opens `path` for `plan`, waiting while it is locked: a worker that another test of this process is starting
/// holds a copy of every descriptor, the folder's lock included, from its fork until its `exec`, so the lock may
/// outlive the folder that held it by that long. Any other outcome is returned at once.
fn open_when_free(
    path: &std::path::Path,
    plan: &CampaignPlan<'_>,
    environment: &Environment,
) -> Result<CampaignFolder, FolderError> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        match CampaignFolder::open(path, plan, 1, environment.clone()) {
            Err(FolderError::Locked { .. }) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            outcome => return outcome,
        }
    }
}

#[test]
fn a_folder_is_locked_by_its_run_and_refuses_another_repository_or_campaign() {
    let bench = Bench::new("");
    let repository = bench.load();
    let plan = CampaignPlan::new(&repository, Some("main"), &Axes::default()).unwrap();
    let path = bench.folder("out");
    let environment = metewand_campaign::environment::capture(&repository);
    let held = CampaignFolder::open(&path, &plan, 1, environment.clone()).unwrap();
    let error = CampaignFolder::open(&path, &plan, 1, environment.clone()).unwrap_err();
    assert!(matches!(error, FolderError::Locked { .. }), "{error}");
    drop(held);
    let other = CampaignPlan::new(&repository, Some("mixed"), &Axes::default()).unwrap();
    let error = open_when_free(&path, &other, &environment).unwrap_err();
    assert!(
        matches!(&error, FolderError::Foreign { found_name, name, .. } if found_name == "main" && name == "mixed"),
        "{error}"
    );
    assert!(error.to_string().contains("holds campaign \"main\" of repository"), "{error}");
    let copy = Bench::new("");
    let repository = copy.load();
    let plan = CampaignPlan::new(&repository, Some("main"), &Axes::default()).unwrap();
    let error = open_when_free(&path, &plan, &environment).unwrap_err();
    assert!(matches!(error, FolderError::Foreign { .. }), "{error}");
    let repository = bench.load();
    let plan = CampaignPlan::new(&repository, Some("main"), &Axes::default()).unwrap();
    open_when_free(&path, &plan, &environment).unwrap();
}

#[test]
fn a_campaign_json_of_another_format_is_refused_naming_both_formats() {
    let bench = Bench::new("");
    let repository = bench.load();
    let plan = CampaignPlan::new(&repository, Some("main"), &Axes::default()).unwrap();
    let path = bench.folder("out");
    drop(CampaignFolder::open(&path, &plan, 1, metewand_campaign::environment::capture(&repository)).unwrap());
    let file = path.join("campaign.json");
    let text = fs::read_to_string(&file).unwrap();
    assert!(text.contains("\"format\":1,"), "{text}");
    fs::write(&file, text.replacen("\"format\":1,", "\"format\":2,", 1)).unwrap();
    for error in [read_campaign(&path).unwrap_err(), Status::of(&path, Check::Entries).unwrap_err()] {
        assert!(matches!(error, FolderError::BadPlanFile { .. }), "{error}");
        let message = error.to_string();
        assert!(message.contains("format 2 is not one this metewand reads (it reads format 1)"), "{message}");
    }
}

#[test]
fn invalid_and_unfinished_records_are_never_done_and_run_again() {
    let bench = Bench::new("");
    bench.run("main", "out", 2, false);
    let folder = bench.folder("out");
    let ids: Vec<String> = records(&folder).into_keys().collect();
    // One record that fails its schema, one filed under another attempt's id, one folder without a record.
    fs::write(folder.join("attempts").join(&ids[0]).join("attempt.json"), "{\"outcome\": \"reached\"}").unwrap();
    let other = fs::read(folder.join("attempts").join(&ids[2]).join("attempt.json")).unwrap();
    fs::write(folder.join("attempts").join(&ids[1]).join("attempt.json"), other).unwrap();
    fs::remove_file(folder.join("attempts").join(&ids[3]).join("attempt.json")).unwrap();
    // Records changed by hand are seen by a reading that checks them, and by the run.
    let status = Status::of(&folder, Check::Records).unwrap();
    assert_eq!(status.done(), 1);
    assert_eq!(status.invalid.len(), 2, "{:?}", status.invalid);
    assert!(
        status
            .invalid
            .iter()
            .any(|(id, reason)| id == &ids[1] && reason.contains(&format!("names attempt {}", ids[2])))
    );
    assert_eq!(status.unfinished, 1);
    assert!(!status.complete());
    let summary = bench.run("main", "out", 2, false);
    assert_eq!((summary.ran, summary.skipped, summary.exit().code()), (3, 1, 0));
    let status = Status::of(&folder, Check::Entries).unwrap();
    assert!(status.complete() && status.invalid.is_empty(), "{status:?}");
}

#[test]
fn a_fifo_or_a_link_in_place_of_a_record_is_invalid_without_hanging_and_run_again() {
    let bench = Bench::new("");
    bench.run("main", "out", 2, false);
    let folder = bench.folder("out");
    let ids: Vec<String> = records(&folder).into_keys().collect();
    let record = |id: &String| folder.join("attempts").join(id).join("attempt.json");
    fs::remove_file(record(&ids[0])).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        record(&ids[0]),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    // A link to the genuine record, kept elsewhere: a record is read only as the file filed under its id.
    let elsewhere = bench.dir.path().join("elsewhere.json");
    fs::rename(record(&ids[1]), &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, record(&ids[1])).unwrap();
    let status = Status::of(&folder, Check::Records).unwrap();
    let mut expected = vec![&ids[0], &ids[1]];
    expected.sort();
    let invalid: Vec<&String> = status.invalid.iter().map(|(id, _)| id).collect();
    assert_eq!(invalid, expected, "{status:?}");
    assert!(status.invalid.iter().all(|(_, reason)| reason.contains("cannot be read")), "{status:?}");
    let summary = bench.run("main", "out", 2, false);
    let failures: Vec<_> = records(&folder).into_values().map(|record| record["failure"].clone()).collect();
    assert_eq!((summary.ran, summary.exit().code()), (2, 0), "{failures:?}");
    assert!(Status::of(&folder, Check::Entries).unwrap().complete());
    assert!(fs::symlink_metadata(record(&ids[1])).unwrap().file_type().is_file(), "the link was replaced");
}

#[test]
fn exports_are_written_whole_and_never_through_a_link_at_their_temporary_name() {
    let bench = Bench::new("");
    bench.run("main", "out", 1, false);
    let folder = bench.folder("out");
    let outside = bench.dir.path().join("outside.txt");
    fs::write(&outside, "not the campaign's\n").unwrap();
    std::os::unix::fs::symlink(&outside, folder.join(".results.csv.tmp")).unwrap();
    metewand_campaign::export::write(&folder, Check::Entries).unwrap();
    assert_eq!(fs::read_to_string(&outside).unwrap(), "not the campaign's\n", "the link was not written through");
    assert!(fs::symlink_metadata(folder.join(".results.csv.tmp")).is_err(), "nothing is left at the temporary name");
    let csv = fs::read_to_string(folder.join("results.csv")).unwrap();
    assert_eq!(csv.lines().count(), 5, "a header and the four attempts: {csv}");
}

/// The evaluator's session starts beside the implementation's, and every process of it is stopped from the end of
/// both hellos until the implementation's session has ended: an evaluator that keeps running after its hello (here
/// a thread writing the monotonic clock to its log every millisecond) never runs while the implementation is timed.
/// Its log has a gap at least as long as the implementation's prepare and execute (each made 150 ms long), and ticks
/// before it (the evaluator did start beside the implementation) and after it (it went on, and evaluated for 50 ms).
#[test]
fn an_evaluator_started_beside_the_implementation_never_runs_while_it_is_timed() {
    // The measure the runner decides by: the CPUs this thread may run on.
    if metewand_runtime::cpus::CpuSet::of_current_thread().map_or(1, |cpus| cpus.len()) < 2 {
        metewand_testkit::skip(Requirement::TwoCpus, "the evaluator starts beside the implementation only on two CPUs");
        return;
    }
    let bench = Bench::new(r#""--delay", "prepare=150", "--delay", "execute=150""#);
    with_judge(&bench, r#""--fault", "tick@hello", "--delay", "evaluate=50""#);
    let summary = bench.run("main", "out", 1, false);
    assert_eq!(summary.exit().code(), 0);
    let folder = bench.folder("out");
    for (id, record) in records(&folder) {
        assert_eq!(outcome(&record), "reached", "{id}: {record}");
        let timed: u64 = record["phases"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|phase| {
                phase["role"] == "implementation" && ["prepare", "execute"].contains(&phase["phase"].as_str().unwrap())
            })
            .map(|phase| phase["duration_ns"].as_u64().unwrap())
            .sum();
        assert!(timed >= 300_000_000, "{id}: the delays ran: {timed} ns");
        let log = fs::read_to_string(folder.join("attempts").join(&id).join("logs/problem_evaluator.log")).unwrap();
        let ticks: Vec<u64> = log
            .lines()
            .filter_map(|line| line.strip_prefix("test-worker: tick "))
            .map(|n| n.parse().unwrap())
            .collect();
        let (gap, at) = ticks.windows(2).map(|pair| (pair[1] - pair[0], pair[0])).max().expect("the evaluator ticked");
        assert!(
            gap >= timed,
            "{id}: the evaluator ran while the implementation was timed: its longest pause was {gap} ns, the timed requests took {timed} ns ({} ticks over {} ns; phases {})",
            ticks.len(),
            ticks[ticks.len() - 1] - ticks[0],
            record["phases"]
        );
        assert!(ticks.iter().any(|&tick| tick > at + gap), "{id}: the evaluator went on after the implementation");
    }
}

/// With the judge's command given `args`.
pub(crate) fn with_judge(bench: &Bench, args: &str) {
    let toml = fs::read_to_string(bench.repo().join("metewand.toml")).unwrap();
    let judge = r#"command = ["@W@", "serve", "--conformant", "--quiet"]
source = "src-judge""#
        .replace("@W@", metewand_testkit::test_worker().to_str().unwrap());
    assert!(toml.contains(&judge), "the fixture's judge: {toml}");
    let changed = judge.replace(r#""--quiet"]"#, &format!(r#""--quiet", {args}]"#));
    fs::write(bench.repo().join("metewand.toml"), toml.replace(&judge, &changed)).unwrap();
}

/// An evaluator whose start fails, though it started beside the implementation, fails the attempt only after the
/// implementation's part, as a session started after it would: the implementation's requests and result are
/// recorded, then the evaluator's failed hello. Where the implementation fails too, its failure is the attempt's.
#[test]
fn an_evaluator_that_fails_its_hello_fails_the_attempt_after_the_implementation_whose_failure_comes_first() {
    let bench = Bench::new("");
    with_judge(&bench, r#""--fault", "fail@hello""#);
    bench.run("mixed", "out", 1, false);
    for (id, record) in records(&bench.folder("out")) {
        let cell = format!(
            "{}/{}",
            record["dataset"]["name"].as_str().unwrap(),
            record["implementation"]["name"].as_str().unwrap()
        );
        assert_eq!(outcome(&record), "failed", "{cell}");
        let failure = &record["failure"];
        let phases: Vec<(&str, &str)> = record["phases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|phase| (phase["role"].as_str().unwrap(), phase["phase"].as_str().unwrap()))
            .filter(|(role, _)| *role != "dataset_materializer")
            .collect();
        match cell.as_str() {
            "small/solve" => {
                assert_eq!(
                    (&failure["role"], &failure["phase"]),
                    (&"problem_evaluator".into(), &"hello".into()),
                    "{id}"
                );
                assert_eq!(failure["kind"], "worker_failure", "{id}");
                assert!(record["implementation"]["files"].is_array(), "{id}: the result was validated: {record}");
                let expected = [
                    ("implementation", "hello"),
                    ("implementation", "prepare"),
                    ("implementation", "execute"),
                    ("implementation", "shutdown"),
                    ("problem_evaluator", "hello"),
                ];
                assert_eq!(phases, expected, "{id}");
            }
            "small/fail" => {
                assert_eq!(
                    (&failure["role"], &failure["phase"]),
                    (&"implementation".into(), &"execute".into()),
                    "{id}"
                );
                // Started beside the implementation where it may be (Landlock, two CPUs), its hello is recorded last;
                // elsewhere it never started.
                let evaluator = phases.iter().filter(|(role, _)| *role == "problem_evaluator").count();
                assert!(evaluator <= 1, "{id}: nothing but a hello: {phases:?}");
                assert!(evaluator == 0 || phases.last() == Some(&("problem_evaluator", "hello")), "{id}: {phases:?}");
            }
            _ => assert_eq!(failure["role"], "dataset_materializer", "{id}: the broken dataset fails first"),
        }
    }
}

/// The store's entries, once settled, are trusted by their stamps (`files::SETTLED`): a run after they settled reads
/// each entry once and then takes what that reading found while the entry keeps its stamp. What it takes must be the
/// entry's own: each attempt of the second run is shown and recorded the files of its own dataset, the same as the
/// first run (which read every entry every time) recorded, and no dataset is built again.
#[test]
fn a_run_after_the_datasets_settled_trusts_each_entry_by_its_own_stamp() {
    let bench = Bench::new("");
    bench.run("main", "first", 1, false);
    std::thread::sleep(metewand_runtime::files::SETTLED + std::time::Duration::from_millis(500));
    let summary = bench.run("main", "second", 1, false);
    assert_eq!(summary.exit().code(), 0, "{summary:?}");
    let (first, second) = (records(&bench.folder("first")), records(&bench.folder("second")));
    let cell = |record: &Value| {
        let name = |part: &str| record[part]["name"].as_str().unwrap().to_owned();
        let repetition = record["campaign"]["repetition"].to_string();
        (name("dataset"), record["dataset"]["seed"].to_string(), name("implementation"), repetition)
    };
    let by_cell = |records: &std::collections::BTreeMap<String, Value>| {
        records.values().map(|record| (cell(record), record.clone())).collect::<std::collections::BTreeMap<_, _>>()
    };
    let (first, second) = (by_cell(&first), by_cell(&second));
    assert_eq!(first.len(), 4);
    assert_eq!(first.keys().collect::<Vec<_>>(), second.keys().collect::<Vec<_>>());
    let datasets: std::collections::BTreeSet<_> =
        first.values().map(|record| record["dataset"]["key"].to_string()).collect();
    assert_eq!(datasets.len(), 2, "two datasets, so that one entry's answer could be taken for the other's");
    for (cell, record) in &second {
        assert_eq!(outcome(record), "reached", "{cell:?}: {}", record["failure"]);
        assert_eq!(record["dataset"]["reused"], true, "{cell:?}: the store's entry, not a new build");
        assert_eq!(record["dataset"]["key"], first[cell]["dataset"]["key"], "{cell:?}");
        assert_eq!(record["dataset"]["files"], first[cell]["dataset"]["files"], "{cell:?}: its own dataset's files");
    }
    for key in &datasets {
        let key = key.trim_matches('"');
        let path = bench.folder("second").join("datasets").join(format!("{key}.json"));
        let obtained: Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
        assert_eq!(obtained["outcome"], "ok", "{obtained}");
        assert_eq!(obtained["reused"], true, "the second run built no dataset: {obtained}");
    }
}

/// `[limits] cpu_seconds` bounds the implementation's CPU time: a worker that computes without end in `execute`
/// is killed by the kernel when its process reaches the limit (`RLIMIT_CPU`), long before the phase's own time
/// limit, and its attempt fails `resource_limit` naming the CPU limit and what the worker took.
#[test]
fn a_worker_past_its_cpu_limit_is_stopped_and_its_attempt_names_the_limit() {
    let bench = Bench::new(r#""--fault", "spin@execute""#);
    let toml = fs::read_to_string(bench.repo().join("metewand.toml")).unwrap();
    fs::write(bench.repo().join("metewand.toml"), toml + "\n[limits]\ncpu_seconds = 1\n").unwrap();
    let started = std::time::Instant::now();
    let summary = bench.run_axes("main", "out", 1, |axes| {
        axes.dataset_seeds = Some(Seeds::List(vec![0_u64.try_into().unwrap()]));
        axes.repetitions = Some(1);
    });
    assert_eq!(summary.exit().code(), 3, "the attempt failed");
    assert!(started.elapsed() < std::time::Duration::from_secs(30), "stopped at its limit: {:?}", started.elapsed());
    let records = records(&bench.folder("out"));
    let record = records.values().next().unwrap();
    assert_eq!(outcome(record), "failed", "{record}");
    let failure = &record["failure"];
    assert_eq!(
        (failure["kind"].as_str(), failure["phase"].as_str()),
        (Some("resource_limit"), Some("execute")),
        "{failure}"
    );
    let message = failure["message"].as_str().unwrap();
    assert!(message.contains("`[limits] cpu_seconds`") && message.contains("limit of 1000"), "{message}");
    let observed: u64 = message.split("cpu_seconds`: ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
    assert!((900..3000).contains(&observed), "about one second of CPU time: {message}");
}
