//! `results.csv` and `results.jsonl`: one row per planned attempt that has a valid record, in plan order. The
//! columns are those of [`FIXED_COLUMNS`], then every numeric metric any record has as `metric.<name>` (sorted),
//! then `peak_memory_bytes` (the implementation's peak resident memory as `wait4` reported it, empty when its
//! session did not end cleanly) and `started_at`. Both files are written atomically.

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::Path;
use std::sync::Mutex;

use metewand_protocol::Phase;
use serde_json::{Map, Value};

use crate::folder::{CampaignFolder, FolderError, read_campaign_bytes, write_atomically};
use crate::index::{IndexEntry, Rebuild};
use crate::plan::PlanEntry;
use crate::status::Status;
use crate::table::{self, TableRow};

/// The CSV file.
pub const RESULTS_CSV: &str = "results.csv";
/// The JSON Lines file.
pub const RESULTS_JSONL: &str = "results.jsonl";

/// The first columns of both exports.
pub const FIXED_COLUMNS: [&str; 16] = [
    "attempt_id",
    "problem",
    "dataset",
    "dataset_seed",
    "implementation",
    "implementation_seed",
    "repetition",
    "outcome",
    "verdict",
    "failure_role",
    "failure_phase",
    "failure_kind",
    "prepare_ns",
    "execute_ns",
    "evaluate_ns",
    "implementation_time_ns",
];

/// One attempt's row: the fixed and trailing columns, and its numeric metrics by column.
type Row = (Map<String, Value>, BTreeMap<String, Value>);

/// One attempt's row, from its plan entry and its index entry.
fn row(entry: &PlanEntry, record: &IndexEntry) -> Row {
    let mut row = Map::new();
    let text = |value: Option<String>| value.map_or(Value::Null, Value::String);
    let phase = |wanted: Phase| {
        let total: Option<u64> = record
            .phases
            .iter()
            .filter(|phase| phase.phase == wanted)
            .map(|phase| phase.duration_ns.get())
            .reduce(|a, b| a + b);
        total.map_or(Value::Null, Value::from)
    };
    let failure = record.failure.as_ref();
    for (key, value) in [
        ("attempt_id", Value::String(entry.id.to_string())),
        ("problem", Value::String(entry.problem.clone())),
        ("dataset", Value::String(entry.dataset.clone())),
        ("dataset_seed", Value::from(entry.dataset_seed.get())),
        ("implementation", Value::String(entry.implementation.clone())),
        ("implementation_seed", Value::from(entry.implementation_seed.get())),
        ("repetition", Value::from(entry.repetition.get())),
        ("outcome", Value::String(record.outcome.to_string())),
        ("verdict", text(record.verdict.map(|verdict| verdict.to_string()))),
        ("failure_role", text(failure.and_then(|failure| failure.role.map(|role| role.to_string())))),
        ("failure_phase", text(failure.and_then(|failure| failure.phase.map(|phase| phase.to_string())))),
        ("failure_kind", text(failure.map(|failure| failure.kind.to_string()))),
        ("prepare_ns", phase(Phase::Prepare)),
        ("execute_ns", phase(Phase::Execute)),
        ("evaluate_ns", phase(Phase::Evaluate)),
        (
            "implementation_time_ns",
            record.implementation.implementation_time_ns.map_or(Value::Null, |ns| Value::from(ns.get())),
        ),
        (
            "peak_memory_bytes",
            record.implementation.peak_rss_bytes.map_or(Value::Null, |bytes| Value::from(bytes.get())),
        ),
        ("started_at", Value::String(record.started_at.to_string())),
    ] {
        row.insert(key.to_owned(), value);
    }
    let metrics = record
        .metrics
        .iter()
        .filter(|(_, value)| value.is_number())
        .map(|(name, value)| (format!("metric.{name}"), value.clone()))
        .collect();
    (row, metrics)
}

fn csv_field(value: &Value) -> String {
    let text = match value {
        Value::Null => return String::new(),
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    if text.contains([',', '"', '\n', '\r']) { format!("\"{}\"", text.replace('"', "\"\"")) } else { text }
}

/// Writes both exports of the campaign folder from its records, and returns the folder's status as that one
/// reading of the records found it. Index entries made while reading go to a part of their own.
pub fn write(folder: &Path) -> Result<Status, FolderError> {
    write_from(folder, Rebuild::NewPart)
}

/// [`write`] by the run that holds `folder`'s lock, once it has written its attempts: the index's parts are merged
/// into one.
pub fn write_merging(folder: &CampaignFolder) -> Result<Status, FolderError> {
    write_from(folder.path(), Rebuild::Merge(folder.index()))
}

fn write_from(folder: &Path, rebuild: Rebuild<'_>) -> Result<Status, FolderError> {
    let (file, plan_bytes) = read_campaign_bytes(folder)?;
    let ids: Vec<&str> = file.attempts.iter().map(|entry| entry.id.as_str()).collect();
    let made: Mutex<Vec<Option<(Row, TableRow)>>> = Mutex::new(Vec::new());
    made.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).resize_with(file.attempts.len(), || None);
    let mut status = Status::scan(folder, &file.name, &ids, rebuild, |i, record| {
        let both = (row(&file.attempts[i], record), TableRow::of(record));
        made.lock().unwrap_or_else(|poisoned| poisoned.into_inner())[i] = Some(both);
    });
    let (rows, table_rows): (Vec<Option<Row>>, Vec<Option<TableRow>>) = made
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .into_iter()
        .map(|both| both.map_or((None, None), |(row, table_row)| (Some(row), Some(table_row))))
        .unzip();
    // The table is a cache of what this reading found: failing to write it loses nothing.
    let _ = table::write(folder, &plan_bytes, &file.name, &file.repository, &file.attempts, &table_rows);
    drop(table_rows);
    let rows: Vec<Row> = rows.into_iter().flatten().collect();
    let metric_columns: BTreeSet<String> = rows.iter().flat_map(|(_, metrics)| metrics.keys().cloned()).collect();
    let mut columns: Vec<String> = FIXED_COLUMNS.iter().map(|name| (*name).to_owned()).collect();
    columns.extend(metric_columns.iter().cloned());
    columns.extend(["peak_memory_bytes".to_owned(), "started_at".to_owned()]);
    let io = |name: &str| {
        let path = folder.join(name);
        move |source| FolderError::Io { action: "write", path, source }
    };
    let full = |(row, metrics): &Row| -> Map<String, Value> {
        let mut out = row.clone();
        for column in &metric_columns {
            out.insert(column.clone(), metrics.get(column).cloned().unwrap_or(Value::Null));
        }
        out
    };
    write_atomically(folder, RESULTS_CSV, |out| {
        writeln!(out, "{}", columns.join(","))?;
        for pair in &rows {
            let map = full(pair);
            let line: Vec<String> =
                columns.iter().map(|column| csv_field(map.get(column).unwrap_or(&Value::Null))).collect();
            writeln!(out, "{}", line.join(","))?;
        }
        Ok(())
    })
    .map_err(io(RESULTS_CSV))?;
    write_atomically(folder, RESULTS_JSONL, |out| {
        for pair in &rows {
            let map = full(pair);
            serde_json::to_writer(&mut *out, &Value::Object(map)).map_err(io::Error::other)?;
            out.write_all(b"\n")?;
        }
        Ok(())
    })
    .map_err(io(RESULTS_JSONL))?;
    status.repository = file.repository;
    Ok(status)
}
