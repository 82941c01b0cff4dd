//! The campaign table: written with the exports, bound to the plan's bytes and each row to its record's, one item
//! per planned attempt in every column, each row what the record says.

use std::fs;
use std::path::Path;

use metewand_campaign::read_campaign;
use metewand_campaign::table::TABLE_FILE;
use metewand_protocol::generated::campaign_table::CampaignTable;
use metewand_runtime::Sha256Digest;
use serde_json::Value;

use crate::{Bench, records};

fn table(folder: &Path) -> CampaignTable {
    let bytes = fs::read(folder.join("index").join(TABLE_FILE)).expect("the run wrote the table");
    serde_json::from_slice(&bytes).expect("the table reads as its schema's type")
}

/// The sum of the record's `phase` durations, of `role`'s requests only when it is given.
fn phase_ns(record: &Value, phase: &str, role: Option<&str>) -> Option<u64> {
    record["phases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| item["phase"] == phase && role.is_none_or(|role| item["role"] == role))
        .map(|item| item["duration_ns"].as_u64().unwrap())
        .reduce(|a, b| a + b)
}

#[test]
fn a_run_leaves_a_table_of_its_records_bound_to_its_plan() {
    let bench = Bench::new("");
    bench.run("mixed", "out", 2, false);
    let folder = bench.folder("out");
    let plan = fs::read(folder.join("campaign.json")).unwrap();
    let table = table(&folder);
    assert_eq!(table.plan.size.get(), plan.len() as u64);
    assert_eq!(table.plan.sha256.to_string(), Sha256Digest::of(&plan).to_string());
    let file = read_campaign(&folder).unwrap();
    assert_eq!(table.name, file.name);
    let columns = &table.columns;
    let ids: Vec<&str> = columns.attempt_id.iter().map(|id| id.as_str()).collect();
    assert_eq!(ids, file.attempts.iter().map(|entry| entry.id.as_str()).collect::<Vec<_>>());
    let text = |code: Option<metewand_runtime::protocol::strict::SafeUint>| {
        code.map(|code| table.strings[code.get() as usize].as_str())
    };
    let records = records(&folder);
    let mut outcomes = Vec::new();
    for (slot, entry) in file.attempts.iter().enumerate() {
        assert_eq!(text(Some(columns.problem[slot])), Some(entry.problem.as_str()));
        assert_eq!(text(Some(columns.implementation[slot])), Some(entry.implementation.as_str()));
        assert_eq!(text(Some(columns.dataset_key[slot])), Some(entry.dataset_key.to_string().as_str()));
        assert_eq!(columns.dataset_seed[slot], entry.dataset_seed);
        let record = &records[entry.id.as_str()];
        let bytes = fs::read(folder.join("attempts").join(entry.id.as_str()).join("attempt.json")).unwrap();
        assert_eq!(columns.record_size[slot].map(|size| size.get()), Some(bytes.len() as u64));
        assert_eq!(
            columns.record_sha256[slot].as_ref().map(ToString::to_string),
            Some(Sha256Digest::of(&bytes).to_string())
        );
        // Just written: not settled, so not stamped; a reader hashes these records.
        assert_eq!(columns.record_stamp[slot], None);
        assert_eq!(text(columns.outcome[slot]), record["outcome"].as_str());
        assert_eq!(text(columns.verdict[slot]), record["verdict"].as_str());
        assert_eq!(text(columns.failure_kind[slot]), record["failure"]["kind"].as_str());
        assert_eq!(columns.failure_message[slot].as_deref(), record["failure"]["message"].as_str());
        assert_eq!(columns.execute_ns[slot].map(|ns| ns.get()), phase_ns(record, "execute", None));
        assert_eq!(columns.evaluate_ns[slot].map(|ns| ns.get()), phase_ns(record, "evaluate", None));
        let judged =
            !record["verdict"].is_null() && !["failed", "cancelled"].contains(&record["outcome"].as_str().unwrap());
        let timed = if judged { phase_ns(record, "execute", Some("implementation")) } else { None };
        assert_eq!(columns.timed_ns[slot].map(|ns| ns.get()), timed, "{record}");
        assert_eq!(text(columns.worker_id[slot]), record["implementation"]["worker_id"].as_str());
        assert_eq!(columns.started_at[slot].as_deref().map(String::as_str), record["started_at"].as_str());
        for (name, column) in &table.metrics {
            let value = &column.as_array().unwrap()[slot];
            let recorded = record["metrics"].get(name).filter(|value| value.is_number()).unwrap_or(&Value::Null);
            assert_eq!(value, recorded, "metric {name} of {}", entry.id.as_str());
        }
        outcomes.push(record["outcome"].as_str().unwrap().to_owned());
    }
    assert!(outcomes.contains(&"failed".to_owned()) && outcomes.contains(&"reached".to_owned()), "{outcomes:?}");
}

#[test]
fn an_attempt_without_a_record_has_an_empty_row() {
    let bench = Bench::new("");
    bench.run("mixed", "out", 2, false);
    let folder = bench.folder("out");
    let file = read_campaign(&folder).unwrap();
    fs::remove_dir_all(folder.join("attempts").join(file.attempts[0].id.as_str())).unwrap();
    // Removed by hand after its entry was written: seen by a reading that checks the records.
    metewand_campaign::export::write(&folder, metewand_campaign::index::Check::Records).unwrap();
    let columns = table(&folder).columns;
    assert_eq!(columns.attempt_id.len(), file.attempts.len(), "every planned attempt has its row");
    assert_eq!((columns.record_size[0], columns.outcome[0], &columns.started_at[0]), (None, None, &None));
    assert!(columns.record_size[1..].iter().all(Option::is_some));
}
