//! An attempt's time by what its problem ranks (`timed`), pinned on the shared vectors' records: the record and
//! its index entry answer alike, and `sdk-python/tests/test_derived.py` pins the same answers for the same
//! records in Python.

use std::fs;

use metewand_protocol::generated::attempt_record::AttemptRecord;
use metewand_protocol::generated::campaign_index::CampaignIndex;
use serde_json::{Value, json};

use crate::support::workspace_root;

/// The first valid vector of `schema` named `name`, or its first when `name` is `None`.
fn vector(schema: &str, name: Option<&str>) -> Value {
    let path = workspace_root().join(format!("schemas/vectors/{schema}.json"));
    let vectors: Value = serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    let valid = vectors["valid"].as_array().unwrap();
    let found = valid.iter().find(|vector| name.is_none_or(|name| vector["name"] == name));
    found.unwrap_or_else(|| panic!("no vector {name:?} of {schema}"))["instance"].clone()
}

/// The index entry of `record` as far as the time is concerned (outcome, verdict, phases, `timed`): the rest is
/// the first valid entry vector's.
fn entry(record: &Value) -> CampaignIndex {
    let mut entry = vector("campaign-index", None);
    let phases: Vec<Value> = record["phases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|phase| json!({"role": phase["role"], "phase": phase["phase"], "duration_ns": phase["duration_ns"]}))
        .collect();
    entry["phases"] = json!(phases);
    entry["outcome"] = record["outcome"].clone();
    entry["verdict"] = record["verdict"].clone();
    let problem = entry["problem"].as_object_mut().unwrap();
    problem.remove("timed");
    if let Some(timed) = record["problem"].get("timed") {
        problem.insert("timed".to_owned(), timed.clone());
    }
    serde_json::from_value(entry).unwrap_or_else(|error| panic!("the entry is not valid: {error}"))
}

/// A case: the vector, what is changed in it (said, then done), and the time expected (nanoseconds and seconds), if
/// any.
type Case = (&'static str, &'static str, fn(&mut Value), Option<(u64, f64)>);

fn cases() -> Vec<Case> {
    fn same(_: &mut Value) {}
    fn prepare_execute(record: &mut Value) {
        record["problem"]["timed"] = json!("prepare+execute");
    }
    fn execute(record: &mut Value) {
        record["problem"]["timed"] = json!("execute");
    }
    fn retried(record: &mut Value) {
        let phases = record["phases"].as_array_mut().unwrap();
        let mut again = phases.iter().find(|phase| phase["phase"] == "execute").unwrap().clone();
        again["duration_ns"] = json!(1);
        phases.push(again);
    }
    fn without_prepare(record: &mut Value) {
        prepare_execute(record);
        record["phases"].as_array_mut().unwrap().retain(|phase| phase["phase"] != "prepare");
    }
    fn others_too(record: &mut Value) {
        prepare_execute(record);
        let phases = record["phases"].as_array_mut().unwrap();
        for phase in ["prepare", "execute"] {
            let mut other = phases.iter().find(|time| time["phase"] == phase).unwrap().clone();
            other["role"] = json!("problem_evaluator");
            phases.push(other);
        }
    }
    fn failed_with_verdict(record: &mut Value) {
        record["verdict"] = json!("reached");
    }
    let reached = "successful attempt with verdict reached";
    let streamed = "successful attempt whose implementation streamed two checkpoints";
    let failed = "failed attempt: the implementation reported a failure in execute";
    let cancelled = "cancelled attempt, interrupted during execute on a reused dataset";
    vec![
        (reached, "timed absent: execute", same, Some((4_713_005_871, 4.713005871))),
        (reached, "execute", execute, Some((4_713_005_871, 4.713005871))),
        (reached, "prepare+execute", prepare_execute, Some((4_725_099_326, 4.725099326))),
        (reached, "a retried execute counts too", retried, Some((4_713_005_872, 4.713005872))),
        (reached, "prepare+execute without a prepare", without_prepare, None),
        (reached, "another role's requests do not count", others_too, Some((4_725_099_326, 4.725099326))),
        (
            "successful attempt with verdict not_reached",
            "judged: not reached",
            same,
            Some((4_713_005_871, 4.713005871)),
        ),
        ("successful attempt with verdict invalid", "judged: invalid", same, Some((4_713_005_871, 4.713005871))),
        (streamed, "streamed: its execute", same, Some((4_713_005_871, 4.713005871))),
        (streamed, "streamed, prepare+execute", prepare_execute, Some((4_725_099_326, 4.725099326))),
        (failed, "failed", same, None),
        (failed, "failed, with a verdict", failed_with_verdict, None),
        (cancelled, "cancelled", same, None),
    ]
}

#[test]
fn an_attempts_time_by_timed_is_the_same_from_its_record_and_its_entry() {
    for (name, case, change, expected) in cases() {
        let mut value = vector("attempt-record", Some(name));
        change(&mut value);
        let record: AttemptRecord =
            serde_json::from_value(value.clone()).unwrap_or_else(|error| panic!("{name}, {case}: {error}"));
        let time = record.timed_time();
        assert_eq!(time.map(|time| (time.ns(), time.seconds())), expected, "{name}, {case}");
        assert_eq!(entry(&value).timed_time(), time, "{name}, {case}: the entry answers otherwise");
    }
}
