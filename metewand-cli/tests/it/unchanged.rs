//! The example's campaigns give what the build before them gave: the same attempt ids and records (every field
//! but the machine's and the clock's), and the same export and report bytes from the same records.
//!
//! `fixtures/unchanged/` holds what that build wrote: `records.json` (each attempt's record by campaign and attempt
//! id, without the fields [`normalized`] drops), `campaigns/` (the records of the campaigns it ran, which the
//! exports and reports below are made from) and `expected/` (its exports and reports of them). When Metewand's
//! output changes on purpose, write them again with the new build and say why in the commit:
//! `METEWAND_BLESS=1 cargo test -p metewand-cli --test it unchanged::the_example_campaigns_keep`, then
//! `unchanged::the_example_campaigns_records` (the second reads what the first writes); `METEWAND_BIN` names
//! another `metewand` to write them with (a build of the commit before a change that must not alter them).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The campaigns run, each with the arguments that keep it small: the main one (one-shot, every implementation)
/// and the profile one (streamed checkpoints).
const CAMPAIGNS: [&str; 2] = ["main", "profile"];
const SMALL: [&str; 6] = ["--dataset", "small", "--dataset-seeds", "0", "--repetitions", "1"];

/// The report formats compared, each with its file name.
const REPORTS: [(&str, &str); 4] =
    [("html", "report.html"), ("markdown", "report.md"), ("csv", "report.csv"), ("json", "report.json")];

/// The files `campaign export` writes.
const EXPORTS: [&str; 3] = ["results.csv", "results.jsonl", "profiles.csv"];

/// Fields of a record that the machine or the clock decides: times, resources, the confinement and CPUs this
/// machine gave, the interpreter found and the distributions it imports, where the repository was.
const MACHINE_FIELDS: [&str; 7] =
    ["resources", "confinement", "cpus", "program", "environment", "repository", "concurrency"];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/fixtures/unchanged")
}

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/least-squares").canonicalize().unwrap()
}

fn bless() -> bool {
    std::env::var_os("METEWAND_BLESS").is_some()
}

/// The `metewand` that runs: `METEWAND_BIN` when set (only to write the fixtures), this build's otherwise.
fn metewand(current_dir: &Path, args: &[&str]) -> String {
    let binary = std::env::var_os("METEWAND_BIN").map_or_else(|| env!("CARGO_BIN_EXE_metewand").into(), PathBuf::from);
    let output = Command::new(binary).current_dir(current_dir).args(args).output().unwrap();
    assert!(
        output.status.success(),
        "metewand {args:?} failed: {}{}",
        super::text(&output.stdout),
        super::text(&output.stderr)
    );
    super::text(&output.stdout)
}

/// `record` without the fields the machine or the clock decides: every `*_at` and `*_ns` field and
/// [`MACHINE_FIELDS`], at any depth.
fn normalized(record: &Value) -> Value {
    match record {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(key, _)| {
                    !(key.ends_with("_at") || key.ends_with("_ns") || MACHINE_FIELDS.contains(&key.as_str()))
                })
                .map(|(key, value)| (key.clone(), normalized(value)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(normalized).collect()),
        other => other.clone(),
    }
}

/// Each attempt record of the campaign folder `dir`, by attempt id.
fn records(dir: &Path) -> BTreeMap<String, Value> {
    let mut records = BTreeMap::new();
    for entry in fs::read_dir(dir.join("attempts")).unwrap() {
        let path = entry.unwrap().path().join("attempt.json");
        let record: Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
        let id = record["campaign"]["attempt_id"].as_str().unwrap().to_owned();
        assert_eq!(path.parent().unwrap().file_name().unwrap().to_str(), Some(id.as_str()), "the folder is the id");
        records.insert(id, record);
    }
    records
}

/// The first place where `found` and `expected` differ, as a JSON path, with both values.
fn first_difference(path: &str, found: &Value, expected: &Value) -> Option<String> {
    match (found, expected) {
        (Value::Object(found), Value::Object(expected)) => {
            let keys: std::collections::BTreeSet<&String> = found.keys().chain(expected.keys()).collect();
            keys.into_iter().find_map(|key| {
                let (f, e) = (found.get(key).unwrap_or(&Value::Null), expected.get(key).unwrap_or(&Value::Null));
                match (found.contains_key(key), expected.contains_key(key)) {
                    (true, true) => first_difference(&format!("{path}.{key}"), f, e),
                    _ => Some(format!("{path}.{key}: found {f}, expected {e} (present only on one side)")),
                }
            })
        }
        (Value::Array(f), Value::Array(e)) if f.len() == e.len() => {
            f.iter().zip(e).enumerate().find_map(|(i, (f, e))| first_difference(&format!("{path}[{i}]"), f, e))
        }
        _ => (found != expected).then(|| format!("{path}: found {found}, expected {expected}")),
    }
}

/// Copies the attempt records, dataset records and `campaign.json` of the campaign folder `from` into `to`: what
/// exports and reports are made from.
fn copy_records(from: &Path, to: &Path) {
    fs::create_dir_all(to.join("attempts")).unwrap();
    fs::create_dir_all(to.join("datasets")).unwrap();
    fs::copy(from.join("campaign.json"), to.join("campaign.json")).unwrap();
    for entry in fs::read_dir(from.join("attempts")).unwrap() {
        let entry = entry.unwrap();
        fs::create_dir_all(to.join("attempts").join(entry.file_name())).unwrap();
        fs::copy(entry.path().join("attempt.json"), to.join("attempts").join(entry.file_name()).join("attempt.json"))
            .unwrap();
    }
    for entry in fs::read_dir(from.join("datasets")).unwrap() {
        let entry = entry.unwrap();
        if entry.path().extension().is_some_and(|extension| extension == "json") {
            fs::copy(entry.path(), to.join("datasets").join(entry.file_name())).unwrap();
        }
    }
}

/// Compares `found` with the fixture file `expected` byte for byte, or writes it there when blessing.
fn same_bytes(found: &[u8], expected: &Path) {
    if bless() {
        fs::create_dir_all(expected.parent().unwrap()).unwrap();
        fs::write(expected, found).unwrap();
        return;
    }
    let wanted = fs::read(expected).unwrap_or_else(|error| panic!("{}: {error}", expected.display()));
    if found != wanted.as_slice() {
        let (found, wanted) = (super::text(found), super::text(&wanted));
        let line = found.lines().zip(wanted.lines()).position(|(f, w)| f != w).unwrap_or(0);
        panic!(
            "{} differs from what the build before wrote, first at line {}:\nfound:    {:?}\nexpected: {:?}",
            expected.display(),
            line + 1,
            found.lines().nth(line),
            wanted.lines().nth(line)
        );
    }
}

#[test]
fn the_example_campaigns_keep_their_attempt_ids_and_records() {
    let dir = tempfile::tempdir().unwrap();
    let repository = example();
    let state = dir.path().join("state");
    let mut found = BTreeMap::new();
    for campaign in CAMPAIGNS {
        let out = dir.path().join(campaign);
        let mut args = vec!["campaign", "run", repository.to_str().unwrap(), campaign, "-q"];
        args.extend(SMALL);
        args.extend(["--out", out.to_str().unwrap(), "--state-dir", state.to_str().unwrap()]);
        metewand(dir.path(), &args);
        for (id, record) in records(&out) {
            // The one-shot twin of a profile attempt is the same attempt, with the same id, in both campaigns.
            found.insert(format!("{campaign}/{id}"), normalized(&record));
        }
        if bless() {
            let kept = fixtures().join("campaigns").join(campaign);
            let _ = fs::remove_dir_all(&kept);
            copy_records(&out, &kept);
        }
    }
    let expected_path = fixtures().join("records.json");
    if bless() {
        fs::write(&expected_path, serde_json::to_string_pretty(&found).unwrap() + "\n").unwrap();
        return;
    }
    let expected: BTreeMap<String, Value> = serde_json::from_slice(&fs::read(&expected_path).unwrap()).unwrap();
    assert_eq!(found.keys().collect::<Vec<_>>(), expected.keys().collect::<Vec<_>>(), "the campaigns' attempt ids");
    assert_eq!(found.len(), 6, "4 attempts of main and 2 of profile");
    for (id, record) in &found {
        if let Some(difference) = first_difference("", record, &expected[id]) {
            panic!("the record of {id} differs from what the build before wrote: {difference}");
        }
    }
}

#[test]
fn the_example_campaigns_records_give_the_same_exports_and_report_bytes() {
    let dir = tempfile::tempdir().unwrap();
    for campaign in CAMPAIGNS {
        copy_records(&fixtures().join("campaigns").join(campaign), &dir.path().join(campaign));
        metewand(dir.path(), &["campaign", "export", campaign]);
        for export in EXPORTS {
            let found = fs::read(dir.path().join(campaign).join(export)).unwrap();
            same_bytes(&found, &fixtures().join("expected").join(campaign).join(export));
        }
    }
    for (format, name) in REPORTS {
        let out = dir.path().join(name);
        metewand(dir.path(), &["report", "main", "profile", "--format", format, "--out", out.to_str().unwrap()]);
        same_bytes(&fs::read(&out).unwrap(), &fixtures().join("expected").join(name));
    }
}

#[test]
fn a_changed_field_is_found_and_a_machine_field_is_not() {
    let record: Value = serde_json::json!({
        "started_at": "2026-01-01T00:00:00Z",
        "phases": [{"phase": "hello", "duration_ns": 5, "ok": true}],
        "implementation": {"resources": {"peak_rss_bytes": 1}, "name": "cg", "implementation_time_ns": 3},
    });
    let mut other = record.clone();
    other["started_at"] = "2026-02-02T00:00:00Z".into();
    other["phases"][0]["duration_ns"] = 7.into();
    other["implementation"]["resources"]["peak_rss_bytes"] = 2.into();
    assert_eq!(first_difference("", &normalized(&other), &normalized(&record)), None);
    other["phases"][0]["ok"] = false.into();
    assert_eq!(
        first_difference("", &normalized(&other), &normalized(&record)).as_deref(),
        Some(".phases[0].ok: found false, expected true")
    );
    other["implementation"]["name"] = "cholesky".into();
    other["phases"][0]["ok"] = true.into();
    assert!(first_difference("", &normalized(&other), &normalized(&record)).unwrap().contains(".implementation.name"));
}
