//! The campaign table: `index/table.json`, every planned attempt's row as `metewand.results.load` gives it, one
//! column per field (schema `campaign-table`), so that Python reads a large campaign with a few list operations per
//! column rather than a JSON document and a dozen dictionary lookups per attempt.
//!
//! It is written with the exports (at the end of a run, by `campaign export`), from the same reading of the
//! records, and it is a cache like the index: bound to the bytes of `campaign.json` it was made from and each row to
//! its record's size, SHA-256 and stamp, as the record's index entry names them. A reader uses a row only while the
//! record is exactly those bytes, and reads every other row from the folder.

use std::collections::HashMap;
use std::io;
use std::path::Path;

use metewand_protocol::Phase;
use metewand_protocol::common::Role;
use metewand_protocol::generated::attempt_record::Outcome;
use metewand_protocol::generated::campaign_index::Stamp;
use metewand_protocol::generated::campaign_table::{self as table, CampaignTable, Columns};
use metewand_runtime::Sha256Digest;
use metewand_runtime::protocol::common::{Sha256, Timestamp};
use metewand_runtime::protocol::strict::{JsonObject, SafeUint};
use serde_json::Value;

use crate::folder::write_atomically;
use crate::index::{INDEX_DIR, IndexEntry};
use crate::plan::PlanEntry;

/// The table's file in the index's folder.
pub const TABLE_FILE: &str = "table.json";

/// What the table keeps of one attempt's index entry: the row's fields, texts still as text.
#[derive(Debug)]
pub(crate) struct TableRow {
    size: SafeUint,
    sha256: Sha256,
    stamp: Option<Stamp>,
    outcome: String,
    verdict: Option<String>,
    failure: Option<(Option<String>, Option<String>, String, String)>,
    prepare_ns: Option<u64>,
    execute_ns: Option<u64>,
    evaluate_ns: Option<u64>,
    timed: String,
    timed_ns: Option<u64>,
    implementation_time_ns: Option<SafeUint>,
    peak_memory_bytes: Option<SafeUint>,
    started_at: Timestamp,
    concurrency: SafeUint,
    session: Option<String>,
    worker_id: String,
    program: Option<(String, String)>,
    metrics: Vec<(String, Value)>,
}

impl TableRow {
    /// The row of `entry`: its phases added up as `results.load` adds them, and its time by what the problem ranks
    /// (only for an attempt judged to the end, and only by the implementation's own requests).
    pub(crate) fn of(entry: &IndexEntry) -> TableRow {
        let total = |phase: Phase, role: Option<Role>| {
            entry
                .phases
                .iter()
                .filter(|time| time.phase == phase && role.is_none_or(|role| time.role == role))
                .map(|time| time.duration_ns.get())
                .reduce(|a, b| a + b)
        };
        let timed = entry.problem.timed.map_or_else(|| "execute".to_owned(), |timed| timed.to_string());
        let judged = entry.verdict.is_some() && !matches!(entry.outcome, Outcome::Failed | Outcome::Cancelled);
        let execute = total(Phase::Execute, Some(Role::Implementation));
        let timed_ns = match (judged, timed.as_str()) {
            (false, _) => None,
            (true, "execute") => execute,
            (true, _) => total(Phase::Prepare, Some(Role::Implementation)).zip(execute).map(|(p, e)| p + e),
        };
        let implementation = &entry.implementation;
        TableRow {
            size: entry.record.size,
            sha256: entry.record.sha256.clone(),
            stamp: entry.record.stamp.clone(),
            outcome: entry.outcome.to_string(),
            verdict: entry.verdict.map(|verdict| verdict.to_string()),
            failure: entry.failure.as_ref().map(|failure| {
                (
                    failure.role.map(|role| role.to_string()),
                    failure.phase.map(|phase| phase.to_string()),
                    failure.kind.to_string(),
                    failure.message.to_string(),
                )
            }),
            prepare_ns: total(Phase::Prepare, None),
            execute_ns: total(Phase::Execute, None),
            evaluate_ns: total(Phase::Evaluate, None),
            timed,
            timed_ns,
            implementation_time_ns: implementation.implementation_time_ns,
            peak_memory_bytes: implementation.peak_rss_bytes,
            started_at: entry.started_at.clone(),
            concurrency: entry.concurrency,
            session: implementation.session.as_ref().map(|session| session.mode.to_string()),
            worker_id: implementation.worker_id.to_string(),
            program: implementation.program.as_ref().map(|program| {
                let path = program.path_match.as_deref().unwrap_or(&program.path);
                (path.to_owned(), program.sha256.to_string())
            }),
            metrics: entry
                .metrics
                .iter()
                .filter(|(_, value)| value.is_number())
                .map(|(name, value)| (name.clone(), value.clone()))
                .collect(),
        }
    }
}

/// Texts written once, by their first appearance.
#[derive(Default)]
struct Strings {
    texts: Vec<String>,
    codes: HashMap<String, SafeUint>,
}

impl Strings {
    fn code(&mut self, text: &str) -> SafeUint {
        if let Some(code) = self.codes.get(text) {
            return *code;
        }
        let code = SafeUint::try_from(self.texts.len() as u64).expect("fewer texts than 2^53");
        self.texts.push(text.to_owned());
        self.codes.insert(text.to_owned(), code);
        code
    }

    fn code_of(&mut self, text: Option<&str>) -> Option<SafeUint> {
        text.map(|text| self.code(text))
    }
}

/// Writes `folder`'s table (atomically) from its plan, `plan_bytes` (the bytes of `campaign.json` it was parsed
/// from), and each planned attempt's row, `None` where the attempt has no record with an entry.
pub(crate) fn write(
    folder: &Path,
    plan_bytes: &[u8],
    name: &str,
    repository: &str,
    attempts: &[PlanEntry],
    rows: &[Option<TableRow>],
) -> io::Result<()> {
    let table = build(plan_bytes, name, repository, attempts, rows)?;
    let dir = folder.join(INDEX_DIR);
    match std::fs::create_dir(&dir) {
        Ok(()) => {}
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
        Err(error) => return Err(error),
    }
    write_atomically(&dir, TABLE_FILE, |out| serde_json::to_writer(out, &table).map_err(io::Error::other))
}

fn build(
    plan_bytes: &[u8],
    name: &str,
    repository: &str,
    attempts: &[PlanEntry],
    rows: &[Option<TableRow>],
) -> io::Result<CampaignTable> {
    let invalid = |what: &str| io::Error::new(io::ErrorKind::InvalidData, format!("the table's {what} is not valid"));
    let uint = |value: u64| SafeUint::try_from(value).map_err(|_| invalid("number"));
    let mut strings = Strings::default();
    let mut columns = Columns {
        attempt_id: Vec::with_capacity(attempts.len()),
        problem: Vec::with_capacity(attempts.len()),
        dataset: Vec::with_capacity(attempts.len()),
        dataset_seed: Vec::with_capacity(attempts.len()),
        dataset_key: Vec::with_capacity(attempts.len()),
        implementation: Vec::with_capacity(attempts.len()),
        implementation_seed: Vec::with_capacity(attempts.len()),
        repetition: Vec::with_capacity(attempts.len()),
        record_size: Vec::with_capacity(attempts.len()),
        record_sha256: Vec::with_capacity(attempts.len()),
        record_stamp: Vec::with_capacity(attempts.len()),
        outcome: Vec::with_capacity(attempts.len()),
        verdict: Vec::with_capacity(attempts.len()),
        failure_role: Vec::with_capacity(attempts.len()),
        failure_phase: Vec::with_capacity(attempts.len()),
        failure_kind: Vec::with_capacity(attempts.len()),
        failure_message: Vec::with_capacity(attempts.len()),
        prepare_ns: Vec::with_capacity(attempts.len()),
        execute_ns: Vec::with_capacity(attempts.len()),
        evaluate_ns: Vec::with_capacity(attempts.len()),
        timed: Vec::with_capacity(attempts.len()),
        timed_ns: Vec::with_capacity(attempts.len()),
        implementation_time_ns: Vec::with_capacity(attempts.len()),
        peak_memory_bytes: Vec::with_capacity(attempts.len()),
        started_at: Vec::with_capacity(attempts.len()),
        concurrency: Vec::with_capacity(attempts.len()),
        session: Vec::with_capacity(attempts.len()),
        worker_id: Vec::with_capacity(attempts.len()),
        program: Vec::with_capacity(attempts.len()),
        program_sha256: Vec::with_capacity(attempts.len()),
    };
    let mut metric_names: Vec<&str> =
        rows.iter().flatten().flat_map(|row| row.metrics.iter().map(|(name, _)| name.as_str())).collect();
    metric_names.sort_unstable();
    metric_names.dedup();
    let mut metrics: Vec<Vec<Value>> = vec![Vec::with_capacity(attempts.len()); metric_names.len()];
    for (entry, row) in attempts.iter().zip(rows) {
        columns.attempt_id.push(entry.id.clone());
        columns.problem.push(strings.code(&entry.problem));
        columns.dataset.push(strings.code(&entry.dataset));
        columns.dataset_seed.push(entry.dataset_seed);
        columns.dataset_key.push(strings.code(&entry.dataset_key));
        columns.implementation.push(strings.code(&entry.implementation));
        columns.implementation_seed.push(entry.implementation_seed);
        columns.repetition.push(entry.repetition);
        let Some(row) = row else {
            for column in [
                &mut columns.outcome,
                &mut columns.verdict,
                &mut columns.failure_role,
                &mut columns.failure_phase,
                &mut columns.failure_kind,
                &mut columns.prepare_ns,
                &mut columns.execute_ns,
                &mut columns.evaluate_ns,
                &mut columns.timed,
                &mut columns.timed_ns,
                &mut columns.implementation_time_ns,
                &mut columns.peak_memory_bytes,
                &mut columns.concurrency,
                &mut columns.session,
                &mut columns.worker_id,
                &mut columns.program,
                &mut columns.program_sha256,
                &mut columns.record_size,
            ] {
                column.push(None);
            }
            columns.record_sha256.push(None);
            columns.record_stamp.push(None);
            columns.failure_message.push(None);
            columns.started_at.push(None);
            metrics.iter_mut().for_each(|column| column.push(Value::Null));
            continue;
        };
        let failure = row.failure.as_ref();
        let program = row.program.as_ref();
        columns.record_size.push(Some(row.size));
        columns.record_sha256.push(Some(row.sha256.clone()));
        columns.record_stamp.push(row.stamp.clone());
        columns.outcome.push(Some(strings.code(&row.outcome)));
        columns.verdict.push(strings.code_of(row.verdict.as_deref()));
        columns.failure_role.push(strings.code_of(failure.and_then(|failure| failure.0.as_deref())));
        columns.failure_phase.push(strings.code_of(failure.and_then(|failure| failure.1.as_deref())));
        columns.failure_kind.push(strings.code_of(failure.map(|failure| failure.2.as_str())));
        columns.failure_message.push(failure.map(|failure| failure.3.clone()));
        columns.prepare_ns.push(row.prepare_ns.map(uint).transpose()?);
        columns.execute_ns.push(row.execute_ns.map(uint).transpose()?);
        columns.evaluate_ns.push(row.evaluate_ns.map(uint).transpose()?);
        columns.timed.push(Some(strings.code(&row.timed)));
        columns.timed_ns.push(row.timed_ns.map(uint).transpose()?);
        columns.implementation_time_ns.push(row.implementation_time_ns);
        columns.peak_memory_bytes.push(row.peak_memory_bytes);
        columns.started_at.push(Some(row.started_at.clone()));
        columns.concurrency.push(Some(row.concurrency));
        columns.session.push(strings.code_of(row.session.as_deref()));
        columns.worker_id.push(Some(strings.code(&row.worker_id)));
        columns.program.push(strings.code_of(program.map(|program| program.0.as_str())));
        columns.program_sha256.push(strings.code_of(program.map(|program| program.1.as_str())));
        for (name, column) in metric_names.iter().zip(&mut metrics) {
            let value = row.metrics.iter().find(|(metric, _)| metric == name).map(|(_, value)| value.clone());
            column.push(value.unwrap_or(Value::Null));
        }
    }
    let metrics: JsonObject =
        metric_names.iter().zip(metrics).map(|(name, column)| ((*name).to_owned(), Value::Array(column))).collect();
    Ok(CampaignTable {
        format: table::Format1,
        plan: table::PlanBytes {
            size: uint(plan_bytes.len() as u64)?,
            sha256: Sha256Digest::of(plan_bytes).to_string().parse().map_err(|_| invalid("plan digest"))?,
        },
        name: name.parse().map_err(|_| invalid("name"))?,
        repository: repository.to_owned(),
        strings: strings.texts,
        columns,
        metrics,
    })
}
