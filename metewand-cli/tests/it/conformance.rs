//! `metewand conformance`: a table (or JSON) of every check, exit 0 when none failed, 1 when one did, 2 for usage.

use std::fs;

use crate::metewand;

use metewand_testkit::sdk;

/// A repository whose three workers are the SDK's example workers, with schemas that accept their outputs.
pub(crate) fn sdk_repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let workers = sdk().join("tests/workers");
    fs::create_dir(dir.path().join("workers")).unwrap();
    for script in ["materializer.py", "implementation.py", "evaluator.py"] {
        fs::copy(workers.join(script), dir.path().join("workers").join(script)).unwrap();
    }
    let pythonpath = sdk().join("src");
    let toml = format!(
        r#"format = 1

[workers.points]
role = "dataset_materializer"
command = ["python3", "materializer.py"]
source = "workers"
env = {{ PYTHONPATH = "{path}" }}

[workers.centroid]
role = "implementation"
command = ["python3", "implementation.py"]
source = "workers"
env = {{ PYTHONPATH = "{path}" }}

[workers.judge]
role = "problem_evaluator"
command = ["python3", "evaluator.py"]
source = "workers"
env = {{ PYTHONPATH = "{path}" }}

[datasets.few]
materializer = "points"
parameters = {{ rows = 5 }}
output_schema = {{ type = "object", required = ["rows"] }}

[problems.centre]
evaluator = "judge"
parameters = {{}}
result_schema = {{ type = "object", required = ["x", "y"] }}
metric_schema = {{ type = "object", required = ["error"] }}

[implementations.mean]
worker = "centroid"
parameters = {{}}
"#,
        path = pythonpath.display()
    );
    fs::write(dir.path().join("metewand.toml"), toml).unwrap();
    dir
}

const CHECKS: [&str; 15] = [
    "hello",
    "second-hello",
    "other-role",
    "malformed-request",
    "unknown-fields",
    "unusual-ids",
    "unreadable-line",
    "execute-before-prepare",
    "reset-then-again",
    "streaming",
    "outputs",
    "determinism",
    "shutdown",
    "nothing-left-running",
    "stdout-frames-only",
];

#[test]
fn a_repository_worker_that_conforms_gets_a_table_and_exit_0() {
    let repo = sdk_repository();
    let output = metewand(&["conformance", repo.path().to_str().unwrap(), "--worker", "centroid"], b"");
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), CHECKS.len() + 2, "{stdout}");
    assert_eq!(lines[0], "on problem centre, dataset few seed 0", "what the requests posed comes first");
    let lines = &lines[1..];
    for (line, check) in lines.iter().zip(CHECKS) {
        assert!(line.starts_with(&format!("{check} ")), "{line}");
        if check == "streaming" {
            assert!(
                line.contains(" skip ") && line.ends_with("the worker does not report streaming_profile"),
                "{line}"
            );
        } else {
            assert!(line.contains(" pass ") || line.contains(" warn "), "{line}");
        }
    }
    assert_eq!(lines[CHECKS.len()], "implementation centroid: conforms");
}

#[test]
fn every_worker_at_once_as_json() {
    let repo = sdk_repository();
    let output = metewand(&["conformance", repo.path().to_str().unwrap(), "--all", "--json"], b"");
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stdout));
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(document["passed"], true);
    let workers = document["workers"].as_array().unwrap();
    let names: Vec<&str> = workers.iter().map(|report| report["worker"].as_str().unwrap()).collect();
    assert_eq!(names, ["centroid", "judge", "points"]);
    for report in workers {
        let checks: Vec<&str> =
            report["checks"].as_array().unwrap().iter().map(|check| check["check"].as_str().unwrap()).collect();
        assert_eq!(checks, CHECKS);
        let outputs = &report["checks"][10];
        assert_eq!(outputs["outcome"], "pass", "{report}");
        assert!(outputs["duration_ns"].as_u64().unwrap() > 0);
    }
}

/// A direct-protocol worker that answers every request with success, a second `hello` included.
const CARELESS: &str = r#"import json, sys
for line in sys.stdin:
    request = json.loads(line)
    answer = {"id": request["id"], "ok": True}
    if request.get("method") == "hello":
        answer.update(capabilities=["one_shot"], protocol=1, sdk=None, worker_id=request["worker_id"])
    print(json.dumps(answer), flush=True)
    if request.get("method") == "shutdown":
        break
"#;

#[test]
fn a_failing_check_shows_what_was_sent_and_what_came_back_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("careless.py"), CARELESS).unwrap();
    let source = dir.path().to_str().unwrap();
    let args = ["conformance", "--role", "implementation", "--source", source, "--", "python3", "careless.py"];
    let output = metewand(&args, b"");
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    let second = stdout.lines().position(|line| line.starts_with("second-hello ")).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[second].contains(" fail "), "{stdout}");
    assert!(lines[second + 1].trim_start().starts_with("sent:     {\"id\":\"second-hello\""), "{stdout}");
    let received = lines[second + 2].trim_start();
    assert!(received.starts_with("received: {\"id\": \"second-hello\", \"ok\": true"), "{stdout}");
    assert!(stdout.lines().last().unwrap().ends_with("check(s) failed"), "{stdout}");
}

#[test]
fn a_bare_sdk_worker_conforms_with_its_skips_said() {
    let workers = sdk().join("tests/workers");
    let env = format!("PYTHONPATH={}", sdk().join("src").display());
    let args = [
        "conformance",
        "--role",
        "problem_evaluator",
        "--source",
        workers.to_str().unwrap(),
        "--env",
        &env,
        "--json",
        "--",
        "python3",
        "evaluator.py",
    ];
    let output = metewand(&args, b"");
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stdout));
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let outputs = &document["workers"][0]["checks"][10];
    assert_eq!(outputs["outcome"], "skip");
    assert!(outputs["why"].as_str().unwrap().contains("--dataset DIR"), "{outputs}");
}

#[test]
fn usage_mistakes_are_one_sentence_and_exit_2() {
    let repo = sdk_repository();
    let repo = repo.path().to_str().unwrap();
    for args in [
        &["conformance", repo][..],
        &["conformance", repo, "--worker", "nobody"],
        &["conformance", repo, "--worker", "judge", "--all"],
        &["conformance", "--role", "implementation"],
        &["conformance", "--role", "solver", "--", "true"],
        &["conformance", "--", "true"],
        &["conformance", repo, "--role", "implementation", "--", "true"],
        &["conformance", repo, "--worker", "judge", "--dataset", "x"],
        &["conformance", repo, "--worker", "judge", "--network"],
        &["conformance", repo, "--worker", "judge", "--problem", "centr"],
        &["conformance", repo, "--worker", "judge", "--dataset-seed", "-1"],
        &["conformance", "--role", "implementation", "--problem", "centre", "--", "true"],
        &["conformance", "--bogus"],
    ] {
        let output = metewand(args, b"");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(output.stdout.is_empty(), "{args:?}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    }
}

/// The dataset and seed the requests carry are the ones asked for, named first in the table and in the JSON; a name
/// the repository lacks is refused in one sentence with the closest it has.
#[test]
fn the_dataset_and_seed_the_checks_use_are_chosen_and_said() {
    let repo = sdk_repository();
    let toml = repo.path().join("metewand.toml");
    let extra = "\n[datasets.more]\nmaterializer = \"points\"\nparameters = { rows = 7 }\n\
                 output_schema = { type = \"object\", required = [\"rows\"] }\n";
    fs::write(&toml, fs::read_to_string(&toml).unwrap() + extra).unwrap();
    let repo = repo.path().to_str().unwrap();
    let args = ["conformance", repo, "--worker", "centroid", "--dataset", "more", "--dataset-seed", "5", "--json"];
    let output = metewand(&args, b"");
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let posed = &report["workers"][0]["posed"];
    assert_eq!(*posed, serde_json::json!({"problem": "centre", "dataset": "more", "dataset_seed": 5}), "{report}");

    // The materializer makes the dataset named, and its table says so.
    let output = metewand(&["conformance", repo, "--worker", "points", "--dataset", "more"], b"");
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert_eq!(stdout.lines().next(), Some("on dataset more seed 0"), "{stdout}");

    let output = metewand(&["conformance", repo, "--worker", "centroid", "--dataset", "mor"], b"");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(
        stderr,
        "metewand: conformance: the repository has no dataset named \"mor\" (did you mean \"more\"?) (it has: few, \
         more)\n"
    );
}

/// A grid's point is chosen by its name, `D[key=v]`, and said as such; a value the grid lacks is refused in one
/// sentence with the closest value it has.
#[test]
fn a_grid_point_is_chosen_by_its_name() {
    let repo = sdk_repository();
    let toml = repo.path().join("metewand.toml");
    let extra = "\n[datasets.sized]\nmaterializer = \"points\"\nparameters = {}\ngrid = { rows = [3, 9] }\n\
                 output_schema = { type = \"object\", required = [\"rows\"] }\n";
    fs::write(&toml, fs::read_to_string(&toml).unwrap() + extra).unwrap();
    let repo = repo.path().to_str().unwrap();
    let output = metewand(&["conformance", repo, "--worker", "centroid", "--dataset", "sized[rows=9]", "--json"], b"");
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let posed = &report["workers"][0]["posed"];
    assert_eq!(*posed, serde_json::json!({"problem": "centre", "dataset": "sized[rows=9]", "dataset_seed": 0}));

    let output = metewand(&["conformance", repo, "--worker", "centroid", "--dataset", "sized[rows=90]"], b"");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(
        stderr,
        "metewand: conformance: dataset \"sized\" has no point with rows=90 (did you mean \"9\"?) (its values: 3, 9)\n"
    );
}
