//! Streamed attempts (`streaming_profile`): a problem with a `profile` and an implementation that declares the
//! capability stream; every checkpoint is validated, judged and recorded with the executor's time to it; a
//! checkpoint changed after its seal is the implementation's invalid output; a one-shot implementation of the same
//! problem does not stream.

use std::fs;

use serde_json::Value;

use crate::{Bench, records};

/// The fixture with a profiled problem, a streaming implementation whose worker runs with `args`, and the campaign
/// `profiled` of both implementations on it.
fn bench(args: &str) -> Bench {
    let bench = Bench::new("");
    fs::create_dir_all(bench.repo().join("src-stream")).unwrap();
    let worker = metewand_testkit::test_worker().to_str().unwrap().to_owned();
    let toml = format!(
        r#"
[workers.streamer]
role = "implementation"
command = ["{worker}", "serve", "--conformant", "--quiet", "--capabilities", "one_shot,streaming_profile", {args}]
source = "src-stream"

[problems.profiled]
evaluator = "judge"
parameters = {{}}
result_schema = {{ type = "object", required = ["seed"] }}
metric_schema = {{ type = "object", required = ["error"] }}
profile = {{ checkpoints = 3 }}

[implementations.stream]
worker = "streamer"
parameters = {{}}
capabilities = ["one_shot", "streaming_profile"]

[campaigns.profiled]
problems = ["profiled"]
datasets = ["small"]
implementations = ["stream", "solve"]
"#
    );
    let path = bench.repo().join("metewand.toml");
    let mut text = fs::read_to_string(&path).unwrap();
    text.push_str(&toml);
    fs::write(path, text).unwrap();
    bench
}

/// The record of `implementation`'s one attempt in folder `out`.
fn record(bench: &Bench, out: &str, implementation: &str) -> Value {
    let all = records(&bench.folder(out));
    let mut found = all.into_values().filter(|record| record["implementation"]["name"] == implementation);
    let record = found.next().expect("a record");
    assert!(found.next().is_none());
    record
}

/// The implementation's `execute` phase of a record.
fn execute_phase(record: &Value) -> &Value {
    let phases = record["phases"].as_array().expect("phases");
    phases.iter().find(|phase| phase["role"] == "implementation" && phase["phase"] == "execute").expect("an execute")
}

#[test]
fn a_streamed_attempt_records_each_checkpoint_judged_with_the_executors_time_to_it() {
    let bench = bench(r#""--checkpoint-ms", "30""#);
    bench.run("profiled", "out", 1, false);
    let streamed = record(&bench, "out", "stream");
    assert_eq!(streamed["outcome"], "reached", "{streamed:#}");
    assert_eq!(streamed["implementation"]["selected"], serde_json::json!(["streaming_profile"]));
    let profile = streamed["implementation"]["profile"].as_array().expect("a profile");
    let numbers: Vec<u64> = profile.iter().map(|point| point["checkpoint"].as_u64().unwrap()).collect();
    assert_eq!(numbers, [1, 2, 3]);
    let verdicts: Vec<&str> = profile.iter().map(|point| point["verdict"].as_str().unwrap()).collect();
    assert_eq!(verdicts, ["not_reached", "reached", "reached"], "the test evaluator reaches from checkpoint 2");
    let errors: Vec<f64> = profile.iter().map(|point| point["metrics"]["error"].as_f64().unwrap()).collect();
    assert_eq!(errors, [1.0, 0.5, 1.0 / 3.0]);
    let times: Vec<u64> = profile.iter().map(|point| point["time_ns"].as_u64().unwrap()).collect();
    let mut previous = 0;
    for time in &times {
        assert!(time - previous >= 30_000_000, "each checkpoint comes 30 ms after the last: {times:?}");
        previous = *time;
    }
    let execute = execute_phase(&streamed);
    assert!(execute["duration_ns"].as_u64().unwrap() >= times[2], "{execute}");
    // The evaluator judged the three checkpoints, then the final result, in one session.
    let evaluations = streamed["phases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|phase| phase["role"] == "problem_evaluator" && phase["phase"] == "evaluate")
        .count();
    assert_eq!(evaluations, 4);

    // The exports: results.jsonl carries the profile, profiles.csv has a row per checkpoint.
    let folder = bench.folder("out");
    let rows: Vec<Value> = fs::read_to_string(folder.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let exported = rows.iter().find(|row| row["implementation"] == "stream").unwrap();
    assert_eq!(&exported["profile"], &streamed["implementation"]["profile"]);
    let other = rows.iter().find(|row| row["implementation"] == "solve").unwrap();
    assert_eq!(other["profile"], Value::Null);
    let csv = fs::read_to_string(folder.join("profiles.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "attempt_id,problem,dataset,dataset_seed,implementation,implementation_seed,repetition,checkpoint,time_ns,\
         verdict,metric.error"
    );
    assert_eq!(lines.len(), 4, "{csv}");
    let id = exported["attempt_id"].as_str().unwrap();
    assert_eq!(lines[1], format!("{id},profiled,small,0,stream,0,1,1,{},not_reached,1", times[0]));
    assert!(lines[3].ends_with(&format!(",3,{},reached,0.3333333333333333", times[2])), "{csv}");

    let one_shot = record(&bench, "out", "solve");
    assert_eq!(one_shot["outcome"], "reached");
    assert_eq!(one_shot["implementation"]["selected"], serde_json::json!(["one_shot"]));
    assert!(one_shot["implementation"].get("profile").is_none());
}

#[test]
fn a_checkpoint_changed_after_its_seal_is_invalid_output() {
    let bench = bench(r#""--stream", "change-earlier""#);
    bench.run("profiled", "out", 1, false);
    let streamed = record(&bench, "out", "stream");
    assert_eq!(streamed["outcome"], "failed");
    let failure = &streamed["failure"];
    assert_eq!((&failure["kind"], &failure["role"]), (&"invalid_output".into(), &"implementation".into()));
    let message = failure["message"].as_str().unwrap();
    assert!(message.contains("checkpoint 1 changed after it was sealed"), "{message}");
    assert!(streamed["implementation"].get("profile").is_none());
}

#[test]
fn a_file_left_in_checkpoints_beside_the_announced_ones_is_invalid_output() {
    let bench = bench(r#""--stream", "stray""#);
    bench.run("profiled", "out", 1, false);
    let streamed = record(&bench, "out", "stream");
    let failure = &streamed["failure"];
    assert_eq!((&failure["kind"], &failure["role"]), (&"invalid_output".into(), &"implementation".into()));
    let message = failure["message"].as_str().unwrap();
    assert!(message.contains("\"checkpoints/stray.bin\" is not the folder of a checkpoint"), "{message}");
}

#[test]
fn a_stream_that_breaks_its_rules_is_a_protocol_violation() {
    let bench = bench(r#""--stream", "out-of-order""#);
    bench.run("profiled", "out", 1, false);
    let streamed = record(&bench, "out", "stream");
    let failure = &streamed["failure"];
    assert_eq!((&failure["kind"], &failure["phase"]), (&"protocol_violation".into(), &"execute".into()));
    let message = failure["message"].as_str().unwrap();
    assert!(message.contains("checkpoint 3 is out of order: the next checkpoint is 2"), "{message}");
}

/// Kernel work a worker starts as it sends a checkpoint runs until it is done before the worker can be stopped; the
/// time it took counts, though the stop's wait for the kernel's freezer does not.
#[test]
fn kernel_work_started_with_a_checkpoint_counts_in_the_time_after_it() {
    let bench = bench(r#""--stream", "populate""#);
    bench.run("profiled", "out", 1, false);
    let folder = bench.folder("out");
    let (id, streamed) =
        records(&folder).into_iter().find(|(_, record)| record["implementation"]["name"] == "stream").unwrap();
    assert_eq!(streamed["outcome"], "reached", "{streamed:#}");
    let profile = streamed["implementation"]["profile"].as_array().expect("a profile");
    let mut times: Vec<u64> = profile.iter().map(|point| point["time_ns"].as_u64().unwrap()).collect();
    times.push(execute_phase(&streamed)["duration_ns"].as_u64().unwrap());
    let log = fs::read_to_string(folder.join("attempts").join(&id).join("logs/implementation.log")).unwrap();
    let populated: Vec<u64> = log
        .lines()
        .filter_map(|line| line.strip_prefix("test-worker: populated "))
        .map(|rest| rest.split(' ').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(populated.len(), 3, "{log}");
    // Each mapping's CPU time lies between a checkpoint's message and the worker's stop, and no more than 1 ms of
    // that stop may go uncounted where the worker did not run.
    let mut total = 0;
    for (n, ns) in populated.iter().enumerate() {
        assert!(*ns >= 20_000_000, "filling 256 MiB took only {ns} ns of CPU: too little to tell the stop apart");
        total += ns;
        assert!(
            times[n + 1] + 1_000_000 >= total,
            "{total} ns of kernel work, yet {} ns counted: {times:?}",
            times[n + 1]
        );
    }
}
