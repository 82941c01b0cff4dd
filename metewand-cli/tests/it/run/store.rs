//! The dataset store: entries modified, replaced, rewritten, forged or evicted by workers and other runs, and
//! concurrent attempts publishing one entry.

use std::fs;
use std::path::Path;
use std::process::{Child, Command};

use serde_json::Value;

use super::{
    Bench, entry_of, entry_of_running, evaluator_beside, failed, go_ahead, make_writable, paused_evaluator, record,
    run_paused, staging_folders, wait_for,
};
use crate::{command, run as metewand, text};

#[test]
fn modifying_the_dataset_is_dataset_modified_and_the_next_attempt_rebuilds_it() {
    // A worker cannot write the store any more: the test changes the entry while the implementation's session
    // runs, as an unconfined process could.
    let bench = Bench::new();
    let output = run_paused(&bench, "vandal", "first", || {
        let datasets = bench.state().join("datasets");
        let entry = fs::read_dir(&datasets)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .find(|path| path.is_dir())
            .expect("the published entry");
        make_writable(&entry);
        let mut rhs = fs::OpenOptions::new().append(true).open(entry.join("rhs.csv")).unwrap();
        std::io::Write::write_all(&mut rhs, b"0.0\n").unwrap();
    });
    let record = failed(&output, &bench.out("first"), "implementation", "execute", "dataset_modified");
    let key = record["dataset"]["key"].as_str().unwrap();
    assert!(!bench.state().join("datasets").join(key).exists(), "a modified dataset is evicted");
    let again = bench.run("cholesky", "second");
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    assert_eq!(self::record(&bench.out("second"))["dataset"]["reused"], false);
}

/// Another run replaces the store's entry (the same dataset, in another folder) while the implementation runs: the
/// evaluator started beside the implementation was shown the entry it replaced, so it is ended (its hello recorded),
/// and a new one evaluates on the entry resolved again. Nothing is blamed on a worker.
#[test]
fn an_entry_replaced_by_another_run_during_the_implementation_gets_a_new_evaluator() {
    let bench = Bench::new();
    let output = run_paused(&bench, "patient", "attempt", || {
        let entry = entry_of_running(&bench);
        let copy = entry.with_file_name(".replacement");
        let status = Command::new("cp").arg("-a").arg(&entry).arg(&copy).status().unwrap();
        assert!(status.success());
        fs::rename(&entry, entry.with_file_name(".replaced")).unwrap();
        fs::rename(&copy, &entry).unwrap();
    });
    assert_eq!(output.status.code(), Some(0), "stdout: {}\nstderr: {}", text(&output.stdout), text(&output.stderr));
    let record = record(&bench.out("attempt"));
    assert_eq!(record["verdict"], "reached", "{}", record["failure"]);
    let evaluator: Vec<&str> = record["phases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|phase| phase["role"] == "problem_evaluator")
        .map(|phase| phase["phase"].as_str().unwrap())
        .collect();
    if evaluator_beside() {
        assert_eq!(evaluator, ["hello", "hello", "evaluate", "shutdown"], "the started evaluator, then a new one");
    } else {
        assert_eq!(evaluator, ["hello", "evaluate", "shutdown"], "one evaluator, started after the implementation");
    }
    assert_eq!(record["logs"]["problem_evaluator"], "logs/problem_evaluator.log", "the new evaluator's log");
    assert!(bench.out("attempt/logs/problem_evaluator.log").is_file());
    assert!(record["metrics"]["relative_gap"].is_number(), "{}", record["metrics"]);
}

#[test]
fn an_evaluator_that_modifies_the_dataset_is_dataset_modified() {
    // The evaluator cannot write the store any more; the test removes a file while the evaluator's session runs.
    let bench = Bench::new();
    let output = paused_evaluator(&bench, || {
        let datasets = bench.state().join("datasets");
        let entry = fs::read_dir(&datasets).unwrap().map(|entry| entry.unwrap().path()).find(|path| path.is_dir());
        let entry = entry.expect("the published entry");
        make_writable(&entry);
        fs::remove_file(entry.join("rhs.csv")).unwrap();
    });
    let record = failed(&output, &bench.out("attempt"), "problem_evaluator", "evaluate", "dataset_modified");
    let key = record["dataset"]["key"].as_str().unwrap();
    assert!(!bench.state().join("datasets").join(key).exists(), "evicted");
}

#[test]
fn a_stored_dataset_changed_between_attempts_is_rebuilt() {
    let bench = Bench::new();
    let first = bench.run("cholesky", "first");
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let key = record(&bench.out("first"))["dataset"]["key"].as_str().unwrap().to_owned();
    let entry = bench.state().join("datasets").join(&key);
    let status = Command::new("chmod").args(["-R", "u+w"]).arg(&entry).status().unwrap();
    assert!(status.success());
    fs::write(entry.join("rhs.csv"), "1.0\n").unwrap();
    let second = bench.run("cholesky", "second");
    assert_eq!(second.status.code(), Some(0), "{}", text(&second.stderr));
    let second = record(&bench.out("second"));
    assert_eq!(second["dataset"]["reused"], false, "re-verification failed, so it was rebuilt");
    assert_eq!(second["dataset"]["key"], key.as_str());
}

#[test]
fn concurrent_attempts_on_a_new_dataset_publish_it_once() {
    let bench = Bench::new();
    let children: Vec<Child> =
        ["one", "two", "three"].iter().map(|out| command(&bench.args("cholesky", out)).spawn().unwrap()).collect();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    }
    let keys: Vec<Value> =
        ["one", "two", "three"].iter().map(|out| record(&bench.out(out))["dataset"]["key"].clone()).collect();
    assert!(keys.iter().all(|key| *key == keys[0]));
    let key = keys[0].as_str().unwrap();
    let expected = vec![key.to_owned(), format!("{key}.published")];
    assert_eq!(staging_folders(&bench.state()), expected, "one entry beside its record, no leftovers");
}

/// Rewrites an entry's `rhs.csv` with zeros and its manifest to match, so that the entry still validates against
/// its own manifest (Python, for its stdlib SHA-256).
fn rewrite_consistently(entry: &Path) {
    make_writable(entry);
    let script = r#"
import hashlib, json, os, sys
entry = sys.argv[1]
manifest_path = os.path.join(entry, "dataset-manifest.json")
manifest = json.load(open(manifest_path))
rhs = os.path.join(entry, manifest["data"]["rhs"])
rows = len(open(rhs).read().splitlines())
open(rhs, "w").write("0.0\n" * rows)
content = open(rhs, "rb").read()
for record in manifest["files"]:
    if record["path"] == manifest["data"]["rhs"]:
        record["sha256"], record["size"] = hashlib.sha256(content).hexdigest(), len(content)
open(manifest_path, "w").write(json.dumps(manifest, sort_keys=True, separators=(",", ":")))
"#;
    let status = Command::new("python3").arg("-c").arg(script).arg(entry).status().unwrap();
    assert!(status.success());
}

#[test]
fn an_entry_rewritten_consistently_by_another_attempts_worker_is_never_reused() {
    // Another attempt's worker can no longer write the store; the test rewrites the entry between attempts, as
    // any process outside the sandbox could.
    let bench = Bench::new();
    let genuine = metewand(&bench.args_with("cholesky", "genuine", &["--dataset-seed", "1"]));
    assert_eq!(genuine.status.code(), Some(0), "{}", text(&genuine.stderr));
    let genuine = record(&bench.out("genuine"));
    let key = genuine["dataset"]["key"].as_str().unwrap().to_owned();
    assert_eq!(key, bench.key(1));
    rewrite_consistently(&bench.state().join("datasets").join(&key));
    let rhs = fs::read_to_string(bench.state().join("datasets").join(&key).join("rhs.csv")).unwrap();
    assert!(rhs.lines().all(|line| line == "0.0"), "the attack did rewrite the entry");

    let again = metewand(&bench.args_with("cholesky", "again", &["--dataset-seed", "1"]));
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    assert!(text(&again.stdout).contains("(materialized)"), "{}", text(&again.stdout));
    let again = record(&bench.out("again"));
    assert_eq!(again["dataset"]["key"], key.as_str(), "the same entry was looked up");
    assert_eq!(again["dataset"]["reused"], false, "the rewritten entry does not match its record");
    assert_eq!(again["dataset"]["files"], genuine["dataset"]["files"], "the genuine data was rebuilt");
}

#[test]
fn a_forged_entry_for_a_key_never_materialized_is_never_reused() {
    // A worker can no longer plant entries in the store; the test plants a copy of another attempt's entry
    // (data and manifest) under a key never materialized, as a process outside the sandbox could.
    let bench = Bench::new();
    let key = bench.key(7);
    let attack = metewand(&bench.args("cholesky", "attack"));
    assert_eq!(attack.status.code(), Some(0), "{}", text(&attack.stderr));
    let forged = record(&bench.out("attack"));
    let own = entry_of(&bench, "attack");
    let planted = bench.state().join("datasets").join(&key);
    fs::create_dir(&planted).unwrap();
    for file in fs::read_dir(&own).unwrap() {
        let file = file.unwrap();
        fs::copy(file.path(), planted.join(file.file_name())).unwrap();
    }
    assert!(planted.join("dataset-manifest.json").is_file(), "planted");

    let victim = metewand(&bench.args_with("cholesky", "victim", &["--dataset-seed", "7"]));
    assert_eq!(victim.status.code(), Some(0), "{}", text(&victim.stderr));
    let victim = record(&bench.out("victim"));
    assert_eq!(victim["dataset"]["key"], key.as_str());
    assert_eq!(victim["dataset"]["reused"], false, "an entry without the executor's record is rebuilt");
    assert_ne!(victim["dataset"]["files"], forged["dataset"]["files"], "the seed-7 data, not the forged copy");
    assert!(bench.state().join("datasets").join(format!("{key}.published")).is_file());
}

#[test]
fn an_entry_evicted_by_another_attempt_during_a_session_is_resolved_again_not_blamed() {
    let bench = Bench::new();
    bench.misbehaving_implementation("patient", "pause");
    let patient = command(&bench.args("patient", "patient")).spawn().unwrap();
    let log_path = bench.out("patient/logs/implementation.log");
    wait_for("the pause", || fs::read_to_string(&log_path).is_ok_and(|text| text.contains("paused")));
    // The shared entry changes while another attempt's implementation runs (changed by the test: no worker can
    // write the store); that attempt evicts it and blames its own session.
    let vandal = run_paused(&bench, "vandal", "vandal", || {
        let entry = entry_of_running(&bench);
        make_writable(&entry);
        let mut rhs = fs::OpenOptions::new().append(true).open(entry.join("rhs.csv")).unwrap();
        std::io::Write::write_all(&mut rhs, b"0.0\n").unwrap();
    });
    let vandal = failed(&vandal, &bench.out("vandal"), "implementation", "execute", "dataset_modified");
    assert_eq!(vandal["dataset"]["reused"], true, "the vandal used the patient attempt's entry");
    go_ahead(&bench, "patient", "implementation");
    let output = patient.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0), "stdout: {}\nstderr: {}", text(&output.stdout), text(&output.stderr));
    let record = record(&bench.out("patient"));
    assert_eq!(record["failure"], Value::Null);
    assert_eq!(record["verdict"], "reached");
    let materializations =
        record["phases"].as_array().unwrap().iter().filter(|phase| phase["phase"] == "materialize").count();
    assert_eq!(materializations, 2, "the evicted dataset was rebuilt before the evaluator's session");
    assert!(bench.out("patient/logs/dataset_materializer-1.log").is_file(), "the first materializer's log is kept");
}
