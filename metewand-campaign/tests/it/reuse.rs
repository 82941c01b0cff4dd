//! Reused implementation sessions (`--sessions reuse`): the same ids and verdicts as fresh sessions, a held worker
//! stopped between attempts, each cell served once per session, the workers that break their session between
//! attempts (a failed or fatal reset) replaced by a new session without blaming an attempt, and a failure while a
//! reused session serves an attempt recorded as that attempt's.

use std::collections::BTreeMap;
use std::fs;

use metewand_protocol::generated::attempt_record::SessionMode;
use serde_json::Value;

use crate::{Bench, records};

/// Each record's outcome, verdict, session and the implementation's phases, by attempt id.
fn served(bench: &Bench, out: &str) -> BTreeMap<String, (Value, Value, Value, Vec<String>)> {
    records(&bench.folder(out))
        .into_iter()
        .map(|(id, record)| {
            let phases = record["phases"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|phase| phase["role"] == "implementation")
                .map(|phase| phase["phase"].as_str().unwrap().to_owned())
                .collect();
            let session = record["implementation"]["session"].clone();
            (id, (record["outcome"].clone(), record["verdict"].clone(), session, phases))
        })
        .collect()
}

/// What every held session left in the state folder: nothing once the campaign ended.
fn held_sessions_left(bench: &Bench) -> Vec<String> {
    match fs::read_dir(bench.state().join("sessions")) {
        Ok(entries) => entries.map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned()).collect(),
        Err(_) => Vec::new(),
    }
}

#[test]
fn reused_sessions_give_the_ids_and_verdicts_of_fresh_ones_and_serve_consecutive_attempts() {
    let bench = Bench::new("");
    // What an interrupted run's held session left (no run holds its lock): the next held session removes it.
    let left = bench.state().join("sessions/.tmp-0123456789abcdef");
    fs::create_dir_all(left.join("work/tmp")).unwrap();
    fs::write(left.join("work/tmp/scratch"), "left by a run that was killed").unwrap();
    assert_eq!(bench.run_with("main", "fresh", 1, false, SessionMode::Fresh).exit().code(), 0);
    assert!(left.exists(), "fresh sessions hold no session folder");
    assert_eq!(bench.run_with("main", "reuse", 1, false, SessionMode::Reuse).exit().code(), 0);
    let (fresh, reused) = (served(&bench, "fresh"), served(&bench, "reuse"));
    assert_eq!(fresh.len(), 4);
    assert_eq!(fresh.keys().collect::<Vec<_>>(), reused.keys().collect::<Vec<_>>(), "the same attempt ids");
    for (id, (outcome, verdict, session, phases)) in &fresh {
        assert_eq!((outcome, verdict), (&reused[id].0, &reused[id].1), "{id}: the same outcome and verdict");
        assert_eq!(session, &serde_json::json!({"index": 0, "mode": "fresh", "warmup": 0}), "{id}");
        assert_eq!(phases, &["hello", "prepare", "execute", "shutdown"], "{id}");
    }
    // One slot, one worker, two cells of two repetitions: a session serves a cell once, so two sessions each serve
    // one repetition of both cells, the second without saying hello again.
    let mut indices: Vec<u64> = reused.values().map(|served| served.2["index"].as_u64().unwrap()).collect();
    indices.sort_unstable();
    assert_eq!(indices, [0, 0, 1, 1]);
    for (id, (_, _, session, phases)) in &reused {
        assert_eq!(session["mode"], "reuse", "{id}");
        let expected: &[&str] =
            if session["index"] == 0 { &["hello", "prepare", "execute"] } else { &["reset", "prepare", "execute"] };
        assert_eq!(phases, expected, "{id}");
    }
    // Each attempt keeps its own result, log and record, as a fresh attempt does; no held session is left.
    for (id, record) in records(&bench.folder("reuse")) {
        let attempt = bench.folder("reuse").join("attempts").join(&id);
        let result = |folder: &str| {
            let result = bench.folder(folder).join("attempts").join(&id).join("work/result");
            (fs::read(result.join("result.json")).unwrap(), fs::read(result.join("answer.txt")).unwrap())
        };
        assert_eq!(result("reuse"), result("fresh"), "{id}: the result copied out of the session");
        assert_eq!(record["implementation"]["files"], records(&bench.folder("fresh"))[&id]["implementation"]["files"]);
        assert_eq!(record["logs"]["implementation"], "logs/implementation.log", "{id}");
        assert!(attempt.join("logs/implementation.log").is_file(), "{id}");
    }
    // The evaluator's session is held too: it says hello once and judges the four attempts in turn, from the
    // copies of their results, and each attempt keeps its own copy of the metrics.
    let fresh_records = records(&bench.folder("fresh"));
    let mut judged: Vec<(u64, Vec<String>)> = Vec::new();
    for (id, record) in records(&bench.folder("reuse")) {
        assert_eq!(record["evaluator"]["session"]["mode"], "reuse", "{id}");
        assert_eq!(fresh_records[&id]["evaluator"]["session"]["mode"], "fresh", "{id}");
        assert_eq!(record["metrics"], fresh_records[&id]["metrics"], "{id}");
        let metrics = bench.folder("reuse").join("attempts").join(&id).join("work/metrics/metrics.json");
        assert!(metrics.is_file(), "{id}");
        let phases = record["phases"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|phase| phase["role"] == "problem_evaluator")
            .map(|phase| phase["phase"].as_str().unwrap().to_owned())
            .collect();
        judged.push((record["evaluator"]["session"]["index"].as_u64().unwrap(), phases));
    }
    judged.sort();
    let evaluate = |phases: &[&str]| phases.iter().map(|phase| (*phase).to_owned()).collect::<Vec<_>>();
    assert_eq!(
        judged,
        [
            (0, evaluate(&["hello", "evaluate"])),
            (1, evaluate(&["evaluate"])),
            (2, evaluate(&["evaluate"])),
            (3, evaluate(&["evaluate"]))
        ]
    );
    assert_eq!(held_sessions_left(&bench), Vec::<String>::new());
}

/// An evaluator that breaks its held session (it exits after each answer, or in each evaluate) is replaced, and no
/// attempt is blamed for what a session did for another: an evaluator that exits after answering leaves each attempt
/// its verdict (a held session is not shut down after each attempt, so an exit after the answer is not one's
/// failure), and one that exits in every evaluate fails each attempt in a session of its own.
#[test]
fn a_held_evaluator_that_breaks_is_replaced_without_blaming_an_attempt() {
    for fault in ["answer-then-exit@evaluate", "exit@evaluate"] {
        let bench = Bench::new("");
        crate::runner::with_judge(&bench, &format!(r#""--fault", "{fault}""#));
        let summary = bench.run_with("main", "out", 1, false, SessionMode::Reuse);
        let found = records(&bench.folder("out"));
        if fault == "exit@evaluate" {
            // Every evaluate fails, in a new session too: each attempt fails as with fresh sessions, in evaluate.
            assert_eq!(summary.exit().code(), 3, "{fault}");
            for (id, record) in &found {
                assert_eq!(record["failure"]["role"], "problem_evaluator", "{fault}, {id}");
                assert_eq!(record["failure"]["kind"], "worker_exit", "{fault}, {id}");
                assert_eq!(record["evaluator"]["session"]["index"], 0, "{fault}, {id}");
            }
        } else {
            assert_eq!(summary.exit().code(), 0, "{fault}");
            for (id, record) in &found {
                assert_eq!(record["outcome"], "reached", "{fault}, {id}: {}", record["failure"]);
                assert_eq!(record["evaluator"]["session"]["index"], 0, "{fault}, {id}");
            }
        }
        assert_eq!(held_sessions_left(&bench), Vec::<String>::new(), "{fault}");
    }
}

/// A held worker is stopped, every process of it, from its result's seal until its next attempt: a worker that
/// writes the clock to its log every millisecond from its hello on leaves no tick while the evaluator judges
/// (made 100 ms long), so each attempt's log starts long after the last one's ended.
#[test]
fn a_held_worker_never_runs_between_the_attempts_it_serves() {
    let bench = Bench::new(r#""--fault", "tick@hello""#);
    crate::runner::with_judge(&bench, r#""--delay", "evaluate=100""#);
    assert_eq!(bench.run_with("main", "out", 1, false, SessionMode::Reuse).exit().code(), 0);
    let folder = bench.folder("out");
    let mut logs: Vec<(u64, Vec<u64>)> = records(&folder)
        .iter()
        .map(|(id, record)| {
            let log = fs::read_to_string(folder.join("attempts").join(id).join("logs/implementation.log")).unwrap();
            let ticks: Vec<u64> = log
                .lines()
                .filter_map(|line| line.strip_prefix("test-worker: tick "))
                .map(|tick| tick.parse().unwrap())
                .collect();
            (record["implementation"]["session"]["index"].as_u64().unwrap(), ticks)
        })
        .collect();
    // In the order they ran: two sessions (each serves a cell once), each serving an attempt, then another.
    logs.sort_unstable_by_key(|(_, ticks)| ticks.first().copied());
    assert_eq!(logs.iter().map(|(index, _)| *index).collect::<Vec<_>>(), [0, 1, 0, 1]);
    for pair in logs.windows(2).filter(|pair| pair[1].0 == pair[0].0 + 1) {
        let (last, next) = (&pair[0].1, &pair[1].1);
        let (Some(ended), Some(started)) = (last.last(), next.first()) else {
            panic!("every attempt's log has ticks: {pair:?}")
        };
        assert!(
            started - ended >= 100_000_000,
            "the held worker ran between attempts {} and {}: {} ns between their ticks",
            pair[0].0,
            pair[1].0,
            started - ended
        );
    }
}

/// Workers that break their session between attempts, before an attempt's first request: each attempt still gets a
/// session that serves it, is judged as a fresh one is, and nothing is blamed on it (no try of it was made).
#[test]
fn a_session_broken_between_attempts_is_replaced_without_blaming_an_attempt() {
    for fault in [
        // The reset fails: the session ends before this attempt uses it.
        "fail@reset",
        // The worker exits instead of answering its reset.
        "exit@reset",
    ] {
        let bench = Bench::new(&format!(r#""--fault", "{fault}""#));
        assert_eq!(bench.run_with("main", "out", 1, false, SessionMode::Reuse).exit().code(), 0, "{fault}");
        let folder = bench.folder("out");
        for (id, record) in records(&folder) {
            assert_eq!(record["outcome"], "reached", "{fault}, {id}: {}", record["failure"]);
            assert_eq!(record["failure"], Value::Null, "{fault}, {id}");
            // Every session is replaced after the attempt it served: each attempt is a new session's first.
            assert_eq!(record["implementation"]["session"]["index"], 0, "{fault}, {id}");
            let phases: Vec<&str> = record["phases"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|phase| phase["role"] == "implementation")
                .map(|phase| phase["phase"].as_str().unwrap())
                .collect();
            assert_eq!(
                phases,
                ["hello", "prepare", "execute"],
                "{fault}, {id}: the ended session's are not this one's"
            );
        }
        assert_eq!(held_sessions_left(&bench), Vec::<String>::new(), "{fault}");
    }
}

/// A failure while a reused session serves an attempt is that attempt's, recorded as any other with its session
/// saying it was reused: no try is run again in a new session and dropped (DESIGN §24). Here every execute after a
/// reset names a result the worker did not write: each attempt a session serves after its first is the
/// implementation's `invalid_output`, in the session that served it; the first of each session is reached.
#[test]
fn a_failure_in_a_reused_session_is_the_attempts_and_is_recorded() {
    let bench = Bench::new(r#""--fault", "corrupt@reset""#);
    assert_eq!(bench.run_with("main", "out", 1, false, SessionMode::Reuse).exit().code(), 3);
    let folder = bench.folder("out");
    let mut by_index: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    for (id, record) in records(&folder) {
        let session = &record["implementation"]["session"];
        assert_eq!(session["mode"], "reuse", "{id}");
        let index = session["index"].as_u64().unwrap();
        let outcome = record["outcome"].as_str().unwrap().to_owned();
        if index == 0 {
            assert_eq!(outcome, "reached", "{id}: {}", record["failure"]);
        } else {
            assert_eq!(
                (record["failure"]["role"].as_str(), record["failure"]["kind"].as_str()),
                (Some("implementation"), Some("invalid_output")),
                "{id}"
            );
            let phases: Vec<&str> = record["phases"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|phase| phase["role"] == "implementation")
                .map(|phase| phase["phase"].as_str().unwrap())
                .collect();
            assert_eq!(phases, ["reset", "prepare", "execute"], "{id}: the try that failed, and no other");
        }
        by_index.entry(index).or_default().push(outcome);
        let log = fs::read_to_string(folder.join("attempts").join(&id).join("logs/implementation.log")).unwrap();
        assert!(!log.contains("runs again"), "{id}: nothing ran again:\n{log}");
    }
    // Two sessions (each serves one repetition of both cells), each with one attempt after its reset.
    assert_eq!(by_index.values().map(Vec::len).collect::<Vec<_>>(), [2, 2], "{by_index:?}");
    assert_eq!(held_sessions_left(&bench), Vec::<String>::new());
}

/// `warmup = K` runs K discarded prepare, execute and reset cycles in each new reused session before its first
/// attempt, on that attempt's inputs: a solver whose reset loses its state fails its first attempt only when warmed
/// up (without `warmup`, each of its attempts is reached: see above), and no warm-up request is among the phases.
#[test]
fn a_warmed_up_session_ran_its_cycles_before_its_first_attempt_and_records_none_of_them() {
    let bench = Bench::new(r#""--fault", "corrupt@reset""#);
    let toml = fs::read_to_string(bench.repo().join("metewand.toml")).unwrap();
    let campaign = "[campaigns.main]\n";
    assert!(toml.contains(campaign));
    let warmed = toml.replacen(campaign, &format!("{campaign}sessions = \"reuse\"\nwarmup = 2\n"), 1);
    fs::write(bench.repo().join("metewand.toml"), warmed).unwrap();
    assert_eq!(bench.run_with("main", "out", 1, false, SessionMode::Reuse).exit().code(), 3);
    for (id, (outcome, _, session, phases)) in served(&bench, "out") {
        assert_eq!(outcome, "failed", "{id}");
        assert_eq!(session, serde_json::json!({"index": 0, "mode": "reuse", "warmup": 2}), "{id}");
        assert_eq!(phases, ["hello", "prepare", "execute"], "{id}");
    }
    for (id, record) in records(&bench.folder("out")) {
        assert_eq!(record["failure"]["kind"], "invalid_output", "{id}: {}", record["failure"]);
        assert_eq!(record["failure"]["phase"], "execute", "{id}");
    }
    assert_eq!(held_sessions_left(&bench), Vec::<String>::new());
}

/// A slot takes the attempts its held session can serve first, on any dataset, and makes the datasets they wait for
/// before it starts another worker: with two workers' attempts on each of three datasets, the plan's order (each
/// dataset's attempts, a worker's after the other's) would end the held session at every attempt; the slot instead
/// starts each worker once and serves all its attempts from that session.
#[test]
fn a_slot_takes_the_attempts_of_its_held_worker_first() {
    let bench = Bench::new("");
    let toml = fs::read_to_string(bench.repo().join("metewand.toml")).unwrap();
    let other = format!(
        "{toml}\n[workers.solver-too]\nrole = \"implementation\"\ncommand = [\"{}\", \"serve\", \"--conformant\", \"--quiet\"]\nsource = \"src-other\"\n\n[implementations.too]\nworker = \"solver-too\"\nparameters = {{}}\n\n[campaigns.pair]\ndatasets = [\"small\"]\nimplementations = [\"solve\", \"too\"]\ndataset_seeds = {{ from = 0, count = 3 }}\n",
        metewand_testkit::test_worker().display()
    );
    fs::write(bench.repo().join("metewand.toml"), other).unwrap();
    assert_eq!(bench.run_with("pair", "out", 1, false, SessionMode::Reuse).exit().code(), 0);
    let found = records(&bench.folder("out"));
    assert_eq!(found.len(), 6);
    // One start per worker: each session serves its worker's three attempts.
    let reused = found.values().filter(|record| record["implementation"]["session"]["index"] != 0).count();
    assert_eq!(
        reused,
        4,
        "{:#?}",
        found.values().map(|record| &record["implementation"]["session"]).collect::<Vec<_>>()
    );
}

/// A held session sees each attempt's dataset only where its view shows it (its mount point, named in `prepare`):
/// the store and every entry in it (this attempt's included, at its own path) stay out of its view, in its first
/// attempt and in those it serves after.
#[test]
fn a_held_session_reads_no_dataset_but_the_one_shown_to_it() {
    let bench = Bench::new(r#""--attack", "read@execute""#);
    let repository = bench.load();
    let plan =
        metewand_campaign::CampaignPlan::new(&repository, Some("main"), &metewand_campaign::Axes::default()).unwrap();
    let datasets = bench.state().join("datasets");
    let mut targets = vec![datasets.clone()];
    targets.extend(plan.keys().iter().map(|key| datasets.join(key.key.to_string())));
    let toml = fs::read_to_string(bench.repo().join("metewand.toml")).unwrap();
    let attack = r#""read@execute"]"#;
    assert!(toml.contains(attack));
    let named: String = targets.iter().map(|target| format!(r#", "--target", "{}""#, target.display())).collect();
    fs::write(bench.repo().join("metewand.toml"), toml.replacen(attack, &format!(r#""read@execute"{named}]"#), 1))
        .unwrap();
    assert_eq!(bench.run_with("main", "out", 1, false, SessionMode::Reuse).exit().code(), 0);
    let folder = bench.folder("out");
    let found = records(&folder);
    let mut indices: Vec<u64> =
        found.values().map(|record| record["implementation"]["session"]["index"].as_u64().unwrap()).collect();
    indices.sort_unstable();
    assert_eq!(indices, [0, 0, 1, 1], "two sessions, each serving one repetition of both cells");
    for id in found.keys() {
        let log = fs::read_to_string(folder.join("attempts").join(id).join("logs/implementation.log")).unwrap();
        let tried: Vec<&str> = log.lines().filter(|line| line.starts_with("test-worker: attack read ")).collect();
        assert_eq!(tried.len(), targets.len(), "{id}: {log}");
        for line in tried {
            assert!(line.ends_with(": errno 2"), "{id}: the held worker reached a place outside its view: {line}");
        }
    }
}

/// Repetitions of one cell are served by distinct sessions (DESIGN §24): a worker that remembers each prepare's
/// inputs (parameters, seed and the dataset's bytes) across the attempts its session serves, and would answer a
/// repeat at once, never meets one: with every cell repeated three times, three sessions each serve one repetition
/// of both cells. Fresh sessions, where a worker serves one attempt, are the baseline.
#[test]
fn a_memoizing_worker_never_sees_the_same_inputs_twice_in_one_session() {
    let bench = Bench::new(r#""--fault", "memoize@prepare""#);
    let toml = fs::read_to_string(bench.repo().join("metewand.toml")).unwrap();
    fs::write(bench.repo().join("metewand.toml"), toml.replace("repetitions = 2", "repetitions = 3")).unwrap();
    for (out, mode) in [("fresh", SessionMode::Fresh), ("reuse", SessionMode::Reuse)] {
        assert_eq!(bench.run_with("main", out, 1, false, mode).exit().code(), 0, "{out}");
        let folder = bench.folder(out);
        let found = records(&folder);
        assert_eq!(found.len(), 6, "{out}");
        let mut indices: Vec<u64> = Vec::new();
        for (id, record) in &found {
            let log = fs::read_to_string(folder.join("attempts").join(id).join("logs/implementation.log")).unwrap();
            assert!(!log.contains("test-worker: memoized"), "{out}, {id}: a session saw these inputs before:\n{log}");
            indices.push(record["implementation"]["session"]["index"].as_u64().unwrap());
        }
        indices.sort_unstable();
        // Reused: three sessions, each serving one repetition of both cells.
        let expected: &[u64] = if mode == SessionMode::Reuse { &[0, 0, 0, 1, 1, 1] } else { &[0; 6] };
        assert_eq!(indices, expected, "{out}");
    }
}
