//! Cancellation and kills: Ctrl-C, SIGTERM and a closed terminal during an attempt, and SIGKILL during its
//! sessions.

use std::fs;
use std::path::Path;
use std::time::Duration;

use super::{
    Bench, assert_worker_dies, evaluator_beside, evaluator_never_evaluated, hanging_sdk_worker, hanging_worker,
    process_state, record, signal, staging_folders, wait_for, wait_guarded, worker_pid,
};
use crate::{command, text};

/// Sends `signal` to `metewand run` while its implementation hangs in `execute`: the worker is ended, the attempt
/// recorded `cancelled` in the implementation's `execute`, and the exit status is 130.
fn cancelled_during_execute_by(name: &str) {
    let bench = Bench::new();
    bench.misbehaving_implementation("hang", "hang");
    let child = command(&bench.args("hang", "attempt")).spawn().unwrap();
    let log = bench.out("attempt/logs/implementation.log");
    wait_for("execute", || fs::read_to_string(&log).is_ok_and(|text| text.contains("executing")));
    let pid = worker_pid(child.id(), "misbehave.py").expect("the worker runs below metewand");
    // Where the evaluator was started beside the implementation, it waits, stopped, for the implementation's end.
    let judge = worker_pid(child.id(), "judge.py");
    assert_eq!(judge.is_some(), evaluator_beside(), "{name}: the evaluator runs only where it starts beside");
    if let Some(judge) = &judge {
        assert!(metewand_testkit::held(judge.parse().unwrap()), "{name}: it is stopped: {:?}", process_state(judge));
    }
    signal(&child, name);
    // The worker would hang for ten minutes: a run that ends within the guard ended it.
    let output = wait_guarded(child, Duration::from_secs(60));
    assert_eq!(output.status.code(), Some(130), "{name}: {}", text(&output.stderr));
    assert!(!Path::new("/proc").join(&pid).exists(), "{name}: the worker {pid} was ended and reaped");
    if let Some(judge) = judge {
        assert!(
            !Path::new("/proc").join(&judge).exists(),
            "{name}: the started evaluator {judge} was ended and reaped"
        );
    }
    let record = record(&bench.out("attempt"));
    assert_eq!(record["outcome"], "cancelled");
    let failure = &record["failure"];
    assert_eq!(
        (&failure["role"], &failure["phase"], &failure["kind"]),
        (&"implementation".into(), &"execute".into(), &"cancelled".into())
    );
    evaluator_never_evaluated(&record);
    assert!(text(&output.stdout).starts_with("outcome      cancelled"), "{}", text(&output.stdout));
}

#[test]
fn ctrl_c_during_execute_ends_the_worker_and_records_a_cancelled_attempt() {
    cancelled_during_execute_by("-INT");
}

#[test]
fn sigterm_during_execute_ends_the_worker_and_records_a_cancelled_attempt() {
    cancelled_during_execute_by("-TERM");
}

#[test]
fn a_closed_terminal_during_execute_ends_the_worker_and_records_a_cancelled_attempt() {
    cancelled_during_execute_by("-HUP");
}

/// Half a matrix row in the materializer's output (its fourth argument), flushed and left open.
const PARTIAL: &str = r#"partial = args[3].open("matrix.csv"); partial.write("0.5,"); partial.flush()"#;

#[test]
fn sigkill_during_materialize_publishes_nothing_and_the_next_run_cleans_up() {
    let bench = Bench::new();
    bench.worker_file("hang_generate.py", &hanging_sdk_worker("generate", "Generate", "materialize", PARTIAL));
    bench.replace("[\"python3\", \"generate.py\"]", "[\"python3\", \"hang_generate.py\", \"hang\"]");
    let mut child = command(&bench.args("cholesky", "killed")).spawn().unwrap();
    let pid = hanging_worker(&child, &bench.out("killed/logs/dataset_materializer.log"), "hang_generate.py");
    signal(&child, "-KILL");
    child.wait().unwrap();
    assert_worker_dies(&pid);
    let left = staging_folders(&bench.state());
    assert!(left.iter().all(|name| name.starts_with(".tmp-")), "only staging folders: {left:?}");
    assert_eq!(left.len(), 1, "{left:?}");
    let partial = bench.state().join("datasets").join(&left[0]).join("matrix.csv");
    assert_eq!(fs::read_to_string(partial).unwrap(), "0.5,", "the half-written file stayed in staging");
    if bench.out("killed/attempt.json").exists() {
        record(&bench.out("killed"));
    }
    bench.replace("\"hang_generate.py\", \"hang\"]", "\"hang_generate.py\"]");
    let next = bench.run("cholesky", "next");
    assert_eq!(next.status.code(), Some(0), "{}", text(&next.stderr));
    assert_eq!(record(&bench.out("next"))["dataset"]["reused"], false);
    let now = staging_folders(&bench.state());
    assert!(now.iter().all(|name| !name.starts_with(".tmp-")), "the leftover was cleaned: {now:?}");
}

#[test]
fn sigkill_during_evaluate_leaves_no_half_written_record_and_the_next_run_succeeds() {
    let bench = Bench::new();
    bench.worker_file("hang_judge.py", &hanging_sdk_worker("judge", "Judge", "evaluate", "pass"));
    bench.replace("[\"python3\", \"judge.py\"]", "[\"python3\", \"hang_judge.py\", \"hang\"]");
    let mut child = command(&bench.args("cholesky", "killed")).spawn().unwrap();
    let pid = hanging_worker(&child, &bench.out("killed/logs/problem_evaluator.log"), "hang_judge.py");
    signal(&child, "-KILL");
    child.wait().unwrap();
    assert_worker_dies(&pid);
    if bench.out("killed/attempt.json").exists() {
        record(&bench.out("killed"));
    }
    bench.replace("\"hang_judge.py\", \"hang\"]", "\"hang_judge.py\"]");
    let next = bench.run("cholesky", "next");
    assert_eq!(next.status.code(), Some(0), "{}", text(&next.stderr));
    assert_eq!(record(&bench.out("next"))["dataset"]["reused"], true);
}
