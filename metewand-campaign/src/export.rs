//! `results.csv` and `results.jsonl`: one row per planned attempt that has a valid record, in plan order. The
//! columns are those of [`FIXED_COLUMNS`], then every numeric metric any record has as `metric.<name>` (sorted),
//! then `cpu_ns` and `peak_memory_bytes` (the CPU time, user and system, and the peak resident memory of the
//! implementation's session as `wait4` reported them, empty when its session did not end cleanly) and `started_at`; `results.jsonl` adds `profile`, a streamed attempt's checkpoints as
//! its record has them (null for an attempt that did not stream). `profiles.csv`: one row per checkpoint of every
//! streamed attempt, in plan order then checkpoint order: [`PROFILE_COLUMNS`], then every numeric metric any
//! checkpoint has as `metric.<name>` (sorted). Both results files end with a column per grid key of the plan's
//! points (`dataset.rows`, `implementation.iterations`, `problem.tolerance`: sorted, typed as the grid's values),
//! empty for a row whose definition has no such key. Where an implementation came from outside the repository, both
//! end with `origin` (`external`) and `origin_folder` (its folder), empty for the repository's own; a campaign
//! without one has neither column. The files are written atomically, from the rows of the reading that
//! writes the campaign table ([`crate::table`]).

use std::collections::{BTreeSet, HashMap};
use std::io;
use std::path::Path;
use std::time::SystemTime;

use metewand_runtime::protocol::strict::SafeUint;
use metewand_runtime::repository::grid::point_values;
use serde_json::{Map, Value};

use crate::folder::{CampaignFolder, FolderError, read_campaign_bytes, write_atomically};
use crate::index::{Check, Rebuild};
use crate::status::Status;
use crate::table::{TableBuilder, TableRows};
use crate::tally::PlanBytes;

/// The CSV file.
pub const RESULTS_CSV: &str = "results.csv";
/// The JSON Lines file.
pub const RESULTS_JSONL: &str = "results.jsonl";
/// The checkpoints of streamed attempts, a row each.
pub const PROFILES_CSV: &str = "profiles.csv";

/// The first columns of `profiles.csv`.
pub const PROFILE_COLUMNS: [&str; 10] = [
    "attempt_id",
    "problem",
    "dataset",
    "dataset_seed",
    "implementation",
    "implementation_seed",
    "repetition",
    "checkpoint",
    "time_ns",
    "verdict",
];

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

/// The grid columns of a campaign's rows: for every problem, dataset and implementation name that is a grid's point,
/// its values as `problem.<key>`, `dataset.<key>` and `implementation.<key>` (read from the name, which holds them
/// in canonical JSON); the columns' names sorted.
#[derive(Default)]
struct GridColumns {
    by_name: HashMap<String, Vec<(String, Value)>>,
    columns: BTreeSet<String>,
}

impl GridColumns {
    fn new(attempts: &[crate::plan::PlanEntry]) -> GridColumns {
        let mut grid = GridColumns::default();
        for entry in attempts {
            for (kind, name) in
                [("problem", &entry.problem), ("dataset", &entry.dataset), ("implementation", &entry.implementation)]
            {
                if grid.by_name.contains_key(name.as_str()) {
                    continue;
                }
                let values: Vec<(String, Value)> = point_values(name).map_or_else(Vec::new, |(_, values)| {
                    values.into_iter().map(|(key, value)| (format!("{kind}.{key}"), value)).collect()
                });
                grid.columns.extend(values.iter().map(|(column, _)| column.clone()));
                grid.by_name.insert(name.to_string(), values);
            }
        }
        grid
    }

    fn insert(&self, row: &mut Map<String, Value>) {
        for kind in ["problem", "dataset", "implementation"] {
            let values = row.get(kind).and_then(Value::as_str).and_then(|name| self.by_name.get(name));
            for (column, value) in values.into_iter().flatten() {
                row.insert(column.clone(), value.clone());
            }
        }
    }
}

/// Row `slot` of a reading's rows, as both exports write it: the fixed columns, `metric.<name>` for every metric any
/// row has, and the trailing columns.
fn row(rows: &TableRows, slot: usize) -> Map<String, Value> {
    let columns = &rows.columns;
    let text = |code: Option<SafeUint>| code.map_or(Value::Null, |code| Value::String(rows.text(code).to_owned()));
    let number = |value: Option<SafeUint>| value.map_or(Value::Null, |value| Value::from(value.get()));
    let mut row = Map::new();
    for (key, value) in [
        ("attempt_id", Value::String(columns.attempt_id[slot].to_string())),
        ("problem", text(Some(columns.problem[slot]))),
        ("dataset", text(Some(columns.dataset[slot]))),
        ("dataset_seed", number(Some(columns.dataset_seed[slot]))),
        ("implementation", text(Some(columns.implementation[slot]))),
        ("implementation_seed", number(Some(columns.implementation_seed[slot]))),
        ("repetition", number(Some(columns.repetition[slot]))),
        ("outcome", text(columns.outcome[slot])),
        ("verdict", text(columns.verdict[slot])),
        ("failure_role", text(columns.failure_role[slot])),
        ("failure_phase", text(columns.failure_phase[slot])),
        ("failure_kind", text(columns.failure_kind[slot])),
        ("prepare_ns", number(columns.prepare_ns[slot])),
        ("execute_ns", number(columns.execute_ns[slot])),
        ("evaluate_ns", number(columns.evaluate_ns[slot])),
        ("implementation_time_ns", number(columns.implementation_time_ns[slot])),
        ("cpu_ns", number(columns.cpu_ns[slot])),
        ("peak_memory_bytes", number(columns.peak_memory_bytes[slot])),
        ("started_at", columns.started_at[slot].as_ref().map_or(Value::Null, |at| Value::String(at.to_string()))),
    ] {
        row.insert(key.to_owned(), value);
    }
    for (name, column) in &rows.metrics {
        row.insert(format!("metric.{name}"), column[slot].clone());
    }
    row
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
/// reading of the records found it, its index's entries taken as `check` says. Index entries made while reading go
/// to a part of their own.
pub fn write(folder: &Path, check: Check) -> Result<Status, FolderError> {
    write_from(folder, Rebuild::NewPart, check)
}

/// [`write()`] by the run that holds `folder`'s lock, once it has written its attempts: the index's parts are merged
/// into one, every entry checked against its record.
pub fn write_merging(folder: &CampaignFolder) -> Result<Status, FolderError> {
    write_from(folder.path(), Rebuild::Merge(folder.index()), Check::Records)
}

fn write_from(folder: &Path, rebuild: Rebuild<'_>, check: Check) -> Result<Status, FolderError> {
    let began = SystemTime::now();
    let (file, plan_bytes, stat) = read_campaign_bytes(folder)?;
    // Hashed once, for the tally and the table alike.
    let plan = PlanBytes::of(&plan_bytes, stat.as_ref(), began);
    drop(plan_bytes);
    let ids: Vec<&str> = file.attempts.iter().map(|entry| entry.id.as_str()).collect();
    let table = TableBuilder::new(&file.attempts);
    let (mut status, tally) =
        Status::scan_counting(folder, &file.name, &ids, rebuild, check, true, |i, record| table.record(i, record));
    // What this reading counted is the next status's start: the tally is a cache, and failing to write it loses
    // nothing.
    if let Some(mut tally) = tally {
        tally.keep(folder, plan.clone(), &file.repository);
    }
    // Both exports and the table are written from the one set of rows the reading made, a column each.
    let rows = table.finish();
    let recorded: Vec<usize> = (0..ids.len()).filter(|&slot| rows.columns.record_size[slot].is_some()).collect();
    let mut columns: Vec<String> = FIXED_COLUMNS.iter().map(|name| (*name).to_owned()).collect();
    columns.extend(rows.metrics.keys().map(|name| format!("metric.{name}")));
    columns.extend(["cpu_ns".to_owned(), "peak_memory_bytes".to_owned(), "started_at".to_owned()]);
    let grid = GridColumns::new(&file.attempts);
    columns.extend(grid.columns.iter().cloned());
    if !rows.origins.is_empty() {
        columns.extend(["origin".to_owned(), "origin_folder".to_owned()]);
    }
    let origin = |map: &mut Map<String, Value>, slot: usize| {
        if let Some(folder) = rows.origins.get(&slot) {
            map.insert("origin".to_owned(), Value::String("external".to_owned()));
            map.insert("origin_folder".to_owned(), Value::String(folder.clone()));
        }
    };
    let io = |name: &str| {
        let path = folder.join(name);
        move |source| FolderError::Io { action: "write", path, source }
    };
    write_atomically(folder, RESULTS_CSV, |out| {
        writeln!(out, "{}", columns.join(","))?;
        for &slot in &recorded {
            let mut map = row(&rows, slot);
            grid.insert(&mut map);
            origin(&mut map, slot);
            let line: Vec<String> =
                columns.iter().map(|column| csv_field(map.get(column).unwrap_or(&Value::Null))).collect();
            writeln!(out, "{}", line.join(","))?;
        }
        Ok(())
    })
    .map_err(io(RESULTS_CSV))?;
    write_atomically(folder, RESULTS_JSONL, |out| {
        for &slot in &recorded {
            let mut map = row(&rows, slot);
            grid.insert(&mut map);
            origin(&mut map, slot);
            let profile = rows.profiles.get(&slot).map_or(Ok(Value::Null), serde_json::to_value);
            map.insert("profile".to_owned(), profile.map_err(io::Error::other)?);
            serde_json::to_writer(&mut *out, &Value::Object(map)).map_err(io::Error::other)?;
            out.write_all(b"\n")?;
        }
        Ok(())
    })
    .map_err(io(RESULTS_JSONL))?;
    write_profiles(folder, &rows).map_err(io(PROFILES_CSV))?;
    // The table is a cache of what this reading found: failing to write it loses nothing.
    let _ = rows.write(folder, &plan, &file.name, &file.repository);
    status.repository = file.repository;
    Ok(status)
}

/// `profiles.csv`, from a reading's rows.
fn write_profiles(folder: &Path, rows: &TableRows) -> io::Result<()> {
    let metrics: BTreeSet<&str> = rows
        .profiles
        .values()
        .flatten()
        .flat_map(|point| point.metrics.iter().filter(|(_, value)| value.is_number()).map(|(name, _)| name.as_str()))
        .collect();
    let mut columns: Vec<String> = PROFILE_COLUMNS.iter().map(|name| (*name).to_owned()).collect();
    columns.extend(metrics.iter().map(|name| format!("metric.{name}")));
    write_atomically(folder, PROFILES_CSV, |out| {
        writeln!(out, "{}", columns.join(","))?;
        for (&slot, points) in &rows.profiles {
            let attempt = row(rows, slot);
            for point in points {
                let mut fields: Vec<String> =
                    PROFILE_COLUMNS[..7].iter().map(|column| csv_field(&attempt[*column])).collect();
                fields.push(point.checkpoint.to_string());
                fields.push(point.time_ns.to_string());
                fields.push(point.verdict.to_string());
                for name in &metrics {
                    fields.push(
                        point
                            .metrics
                            .get(*name)
                            .filter(|value| value.is_number())
                            .map_or_else(String::new, Value::to_string),
                    );
                }
                writeln!(out, "{}", fields.join(","))?;
            }
        }
        Ok(())
    })
}
