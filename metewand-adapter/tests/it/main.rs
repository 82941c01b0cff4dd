//! The adapter driven as the executor drives it, over in-memory streams: each role's answers, what a command that
//! fails or prints no JSON object gets, and the protocol's refusals.

#![allow(clippy::disallowed_methods, reason = "tests make and read their own files in temporary folders")]

use std::ffi::OsString;
use std::path::Path;

use metewand_adapter::{Adapter, serve};
use metewand_protocol::common::Role;
use serde_json::{Value, json};

const WORKER_ID: &str = "mw1-resolved-worker-0000000000000000000000000000000000000000000000000000000000000000";
const CONTRACT: &str = "mw1-problem-contract-0000000000000000000000000000000000000000000000000000000000000000";

/// The answers `serve` gives `requests` for `role` running `sh -c script`, with its exit status.
fn drive(role: Role, script: &str, requests: &[Value]) -> (Vec<Value>, i32) {
    drive_with(role, script, None, requests)
}

/// [`drive`], the data read from the file `result_data` names.
fn drive_with(role: Role, script: &str, result_data: Option<&str>, requests: &[Value]) -> (Vec<Value>, i32) {
    let mut input = Vec::new();
    for request in requests {
        input.extend(serde_json::to_vec(request).unwrap());
        input.push(b'\n');
    }
    let command: Vec<OsString> = ["sh", "-c", script].map(OsString::from).to_vec();
    let adapter = Adapter { role, command, result_data: result_data.map(str::to_owned) };
    let mut output = Vec::new();
    let status = serve(&adapter, input.as_slice(), &mut output);
    let answers = output.split(|&byte| byte == b'\n').filter(|line| !line.is_empty());
    (answers.map(|line| serde_json::from_slice(line).unwrap()).collect(), status)
}

fn hello(role: &str) -> Value {
    json!({"id": "h", "method": "hello", "protocols": [1], "role": role, "worker_id": WORKER_ID})
}

fn prepare(dataset: &Path) -> Value {
    json!({"id": "p", "method": "prepare", "dataset_dir": dataset, "implementation_parameters": {"k": 3},
        "implementation_seed": 7, "problem_contract_id": CONTRACT, "problem_parameters": {}})
}

fn execute(result: &Path) -> Value {
    json!({"id": "e", "method": "execute", "result_dir": result})
}

#[test]
fn an_implementation_runs_its_command_per_execute_and_describes_what_it_left() {
    let dir = tempfile::tempdir().unwrap();
    let (dataset, result) = (dir.path().join("dataset"), dir.path().join("result"));
    std::fs::create_dir_all(&dataset).unwrap();
    std::fs::create_dir_all(result.join("sub")).unwrap();
    let script = "cat {parameters} > {result}/sub/parameters.json; echo '{\"seed\": {seed}}'";
    let requests =
        [hello("implementation"), prepare(&dataset), execute(&result), json!({"id": "s", "method": "shutdown"})];
    let (answers, status) = drive(Role::Implementation, script, &requests);
    assert_eq!(status, 0);
    assert_eq!(answers[0]["capabilities"], json!(["one_shot"]), "{answers:?}");
    assert_eq!(answers[0]["worker_id"], WORKER_ID);
    assert_eq!(answers[2]["ok"], true, "{answers:?}");
    assert!(answers[2]["implementation_time_ns"].as_u64().unwrap() > 0);
    let manifest: Value = serde_json::from_slice(&std::fs::read(result.join("result.json")).unwrap()).unwrap();
    assert_eq!(manifest["data"], json!({"seed": 7}), "{manifest}");
    assert_eq!(manifest["files"][0]["path"], "sub/parameters.json", "{manifest}");
    assert_eq!(std::fs::read_to_string(result.join("sub/parameters.json")).unwrap(), "{\"k\":3}");
    assert_eq!(answers[3], json!({"id": "s", "ok": true}));
}

#[test]
fn a_command_that_fails_or_prints_no_object_fails_the_request_with_why() {
    let dir = tempfile::tempdir().unwrap();
    let result = dir.path().join("result");
    std::fs::create_dir_all(&result).unwrap();
    for (script, message, details) in [
        ("exit 3", "the command exited with status 3", json!({"exit_status": 3})),
        ("kill -9 $$", "the command was killed by signal 9", json!({"signal": 9})),
        ("echo not json", "the command's stdout is not one JSON object", Value::Null),
        ("echo '[1]'", "the command's stdout is not one JSON object", Value::Null),
        // Printing without end: ended once past the limit, not waited for.
        ("yes x", "the command printed more than 16777216 bytes on stdout", Value::Null),
    ] {
        let requests = [hello("implementation"), prepare(dir.path()), execute(&result)];
        let (answers, _) = drive(Role::Implementation, script, &requests);
        assert_eq!(answers[2]["ok"], false, "{script}: {answers:?}");
        assert_eq!(answers[2]["error"]["code"], "operation_failed");
        assert_eq!(answers[2]["error"]["message"], message, "{script}");
        assert_eq!(answers[2]["error"]["details"], details, "{script}");
    }
}

#[test]
fn the_protocol_s_refusals_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let requests = [
        execute(dir.path()),
        hello("implementation"),
        hello("implementation"),
        execute(dir.path()),
        json!({"id": "m", "method": "materialize", "dataset_parameters": {}, "dataset_seed": 0,
            "output_dir": dir.path(), "source_dir": dir.path()}),
        json!({"id": "s", "method": "shutdown", "extra": 1}),
        json!({"id": "s2", "method": "shutdown"}),
    ];
    let (answers, status) = drive(Role::Implementation, "true", &requests);
    let codes: Vec<&str> = answers.iter().map(|answer| answer["error"]["code"].as_str().unwrap_or("ok")).collect();
    assert_eq!(
        codes,
        [
            "invalid_request",
            "ok",
            "invalid_request",
            "invalid_request",
            "unsupported_operation",
            "invalid_request",
            "ok"
        ]
    );
    assert_eq!(status, 0, "a refused shutdown does not end the session; the acknowledged one does");
}

#[test]
fn an_evaluator_answers_the_verdict_its_command_prints_and_writes_its_metrics() {
    let dir = tempfile::tempdir().unwrap();
    let metrics = dir.path().join("metrics.json");
    let evaluate = json!({"id": "v", "method": "evaluate", "dataset_dir": dir.path(), "result_dir": dir.path(),
        "metrics_path": metrics, "problem_contract_id": CONTRACT, "problem_parameters": {"tolerance": 1}});
    let script = "echo '{\"verdict\": \"not_reached\", \"metrics\": {\"error\": 2.5}}'";
    let (answers, _) = drive(Role::ProblemEvaluator, script, &[hello("problem_evaluator"), evaluate.clone()]);
    assert_eq!(answers[1], json!({"id": "v", "ok": true, "verdict": "not_reached"}));
    let written: Value = serde_json::from_slice(&std::fs::read(&metrics).unwrap()).unwrap();
    assert_eq!(written, json!({"metrics": {"error": 2.5}}));
    let (answers, _) = drive(Role::ProblemEvaluator, "echo '{}'", &[hello("problem_evaluator"), evaluate]);
    assert_eq!(
        answers[1]["error"]["message"],
        "an evaluator's command prints one JSON object with \"verdict\" and \"metrics\""
    );
}

/// With `result_data`, the data is the JSON object the command left in that file, whatever it printed; a missing or
/// malformed file fails the request.
#[test]
fn the_data_comes_from_the_result_data_file_when_one_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let result = dir.path().join("result");
    std::fs::create_dir_all(&result).unwrap();
    let requests = [hello("implementation"), prepare(dir.path()), execute(&result)];
    let script = "echo '{\"seed\": {seed}}' > {result}/data.json; echo not json";
    let (answers, _) = drive_with(Role::Implementation, script, Some("data.json"), &requests);
    assert_eq!(answers[2]["ok"], true, "{answers:?}");
    let manifest: Value = serde_json::from_slice(&std::fs::read(result.join("result.json")).unwrap()).unwrap();
    assert_eq!(manifest["data"], json!({"seed": 7}), "{manifest}");
    assert_eq!(manifest["files"][0]["path"], "data.json", "the data file is one of the result's files: {manifest}");
    std::fs::remove_dir_all(&result).unwrap();
    std::fs::create_dir_all(&result).unwrap();
    let malformed = "echo '[1]' > {result}/data.json";
    let (answers, _) = drive_with(Role::Implementation, malformed, Some("data.json"), &requests);
    assert_eq!(answers[2]["error"]["message"], "data.json is not one JSON object", "{answers:?}");
    let (answers, _) = drive_with(Role::Implementation, "true", Some("missing.json"), &requests);
    let message = answers[2]["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("the command left no readable missing.json"), "{message}");
}
