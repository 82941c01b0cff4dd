//! The campaign table: `index/table.json`, every planned attempt's row as `metewand.results.load` gives it, one
//! column per field (schema `campaign-table`), so that Python reads a large campaign with a few list operations per
//! column rather than a JSON document and a dozen dictionary lookups per attempt.
//!
//! It is written with the exports (at the end of a run, by `campaign export`), from the same reading of the
//! records, and it is a cache like the index: bound to the bytes of `campaign.json` it was made from (by their size
//! and SHA-256, and by the file's stamp where it had settled) and each row to its record's size, SHA-256 and stamp,
//! as the record's index entry names them. A reader uses a row only while the record is exactly those bytes, and
//! reads every other row from the folder.

use std::collections::{BTreeMap, HashMap};
use std::io;
use std::path::Path;
use std::sync::Mutex;

use metewand_protocol::Phase;
use metewand_protocol::common::{Name, Role};
use metewand_protocol::generated::attempt_record::ProfilePoint;
use metewand_protocol::generated::campaign_table::{self as table, CampaignTable, Columns};
use metewand_runtime::Sha256Digest;
use metewand_runtime::protocol::common::Format;
use metewand_runtime::protocol::strict::{JsonObject, SafeUint};
use serde_json::Value;

use crate::folder::write_atomically;
use crate::index::Stamp;
use crate::index::{INDEX_DIR, IndexEntry};
use crate::plan::PlanEntry;
use crate::tally::PlanBytes;

/// The table's file in the index's folder.
pub const TABLE_FILE: &str = "table.json";

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

/// The table of one reading of a folder, filled a row at a time as the reading finds each record (on any of its
/// threads), its texts coded as they come, so that it holds no more per attempt than the table itself.
pub(crate) struct TableBuilder {
    building: Mutex<Building>,
}

struct Building {
    strings: Strings,
    columns: Columns,
    /// By name, a column as long as the plan.
    metrics: BTreeMap<String, Vec<Value>>,
    /// By row, a streamed attempt's checkpoints.
    profiles: BTreeMap<usize, Vec<ProfilePoint>>,
    /// By row, the external folder of an implementation from outside the repository.
    origins: BTreeMap<usize, String>,
}

impl TableBuilder {
    /// A table of `attempts`, every row empty (no record) until [`TableBuilder::record`] fills it.
    pub(crate) fn new(attempts: &[PlanEntry]) -> TableBuilder {
        let mut strings = Strings::default();
        let count = attempts.len();
        let plan = |code: &mut dyn FnMut(&PlanEntry) -> SafeUint| attempts.iter().map(code).collect::<Vec<_>>();
        let columns = Columns {
            attempt_id: attempts.iter().map(|entry| entry.id.clone()).collect(),
            problem: plan(&mut |entry| strings.code(&entry.problem)),
            dataset: plan(&mut |entry| strings.code(&entry.dataset)),
            dataset_seed: plan(&mut |entry| entry.dataset_seed),
            dataset_key: plan(&mut |entry| strings.code(&entry.dataset_key.to_string())),
            implementation: plan(&mut |entry| strings.code(&entry.implementation)),
            implementation_seed: plan(&mut |entry| entry.implementation_seed),
            repetition: plan(&mut |entry| entry.repetition),
            record_size: vec![None; count],
            record_sha256: vec![None; count],
            record_stamp: vec![None; count],
            outcome: vec![None; count],
            verdict: vec![None; count],
            failure_role: vec![None; count],
            failure_phase: vec![None; count],
            failure_kind: vec![None; count],
            failure_message: vec![None; count],
            prepare_ns: vec![None; count],
            execute_ns: vec![None; count],
            evaluate_ns: vec![None; count],
            timed: vec![None; count],
            timed_ns: vec![None; count],
            implementation_time_ns: vec![None; count],
            cpu_ns: vec![None; count],
            peak_memory_bytes: vec![None; count],
            started_at: vec![None; count],
            concurrency: vec![None; count],
            session: vec![None; count],
            worker_id: vec![None; count],
            program: vec![None; count],
            program_sha256: vec![None; count],
        };
        let building = Building {
            strings,
            columns,
            metrics: BTreeMap::new(),
            profiles: BTreeMap::new(),
            origins: BTreeMap::new(),
        };
        TableBuilder { building: Mutex::new(building) }
    }

    /// Fills row `slot` from `entry`, the index entry of its record: its phases added up as `results.load` adds
    /// them, and its time by what the problem ranks (only for an attempt judged to the end, and only by the
    /// implementation's own requests).
    pub(crate) fn record(&self, slot: usize, entry: &IndexEntry) {
        let total = |phase: Phase, role: Option<Role>| {
            let total: Option<u64> = entry
                .phases
                .iter()
                .filter(|time| time.phase == phase && role.is_none_or(|role| time.role == role))
                .map(|time| time.duration_ns.get())
                .reduce(|a, b| a.saturating_add(b));
            total.and_then(|total| SafeUint::try_from(total).ok())
        };
        let timed = entry.problem.timed.map_or_else(|| "execute".to_owned(), |timed| timed.to_string());
        let timed_ns = entry.timed_time().and_then(|time| SafeUint::try_from(time.ns()).ok());
        let implementation = &entry.implementation;
        let failure = entry.failure.as_ref();
        let program = implementation.program.as_ref();
        let mut building = self.building.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let Building { strings, columns, metrics, profiles, origins } = &mut *building;
        if !implementation.profile.is_empty() {
            profiles.insert(slot, implementation.profile.clone());
        }
        if let Some(origin) = &implementation.origin {
            origins.insert(slot, origin.folder.to_string());
        }
        let count = columns.attempt_id.len();
        columns.record_size[slot] = Some(entry.record.size);
        columns.record_sha256[slot] = Some(entry.record.sha256);
        columns.record_stamp[slot] = entry.record.stamp.clone();
        columns.outcome[slot] = Some(strings.code(&entry.outcome.to_string()));
        columns.verdict[slot] = strings.code_of(entry.verdict.map(|verdict| verdict.to_string()).as_deref());
        columns.failure_role[slot] =
            strings.code_of(failure.and_then(|failure| failure.role).map(|role| role.to_string()).as_deref());
        columns.failure_phase[slot] =
            strings.code_of(failure.and_then(|failure| failure.phase).map(|phase| phase.to_string()).as_deref());
        columns.failure_kind[slot] = strings.code_of(failure.map(|failure| failure.kind.to_string()).as_deref());
        columns.failure_message[slot] = failure.map(|failure| failure.message.to_string());
        columns.prepare_ns[slot] = total(Phase::Prepare, None);
        columns.execute_ns[slot] = total(Phase::Execute, None);
        columns.evaluate_ns[slot] = total(Phase::Evaluate, None);
        columns.timed[slot] = Some(strings.code(&timed));
        columns.timed_ns[slot] = timed_ns;
        columns.implementation_time_ns[slot] = implementation.implementation_time_ns;
        columns.cpu_ns[slot] = implementation.cpu_ns;
        columns.peak_memory_bytes[slot] = implementation.peak_rss_bytes;
        columns.started_at[slot] = Some(entry.started_at.clone());
        columns.concurrency[slot] = Some(entry.concurrency);
        columns.session[slot] =
            strings.code_of(implementation.session.as_ref().map(|session| session.mode.to_string()).as_deref());
        columns.worker_id[slot] = Some(strings.code(&implementation.worker_id));
        columns.program[slot] =
            strings.code_of(program.map(|program| program.path_match.as_deref().unwrap_or(&program.path).as_str()));
        columns.program_sha256[slot] = strings.code_of(program.map(|program| program.sha256.to_string()).as_deref());
        for (name, value) in entry.metrics.iter().filter(|(_, value)| value.is_number()) {
            metrics.entry(name.clone()).or_insert_with(|| vec![Value::Null; count])[slot] = value.clone();
        }
    }

    /// The rows, once the reading is over.
    pub(crate) fn finish(self) -> TableRows {
        let Building { strings, columns, metrics, profiles, origins } =
            self.building.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner());
        TableRows { strings: strings.texts, columns, metrics, profiles, origins }
    }
}

/// A reading's rows, a column each, as the table holds them: what the table and both exports are written from.
pub(crate) struct TableRows {
    strings: Vec<String>,
    pub(crate) columns: Columns,
    /// By name, a column as long as the plan, null where a row's record has no such metric.
    pub(crate) metrics: BTreeMap<String, Vec<Value>>,
    /// By row, a streamed attempt's checkpoints (not in the table: the exports carry them).
    pub(crate) profiles: BTreeMap<usize, Vec<ProfilePoint>>,
    /// By row, the external folder of an implementation from outside the repository (not in the table: the
    /// exports carry it).
    pub(crate) origins: BTreeMap<usize, String>,
}

impl TableRows {
    /// The text `code` names.
    pub(crate) fn text(&self, code: SafeUint) -> &str {
        &self.strings[code.get() as usize]
    }

    /// Writes the table (atomically) to `folder`'s index folder: the table of `plan`, the bytes of `campaign.json`
    /// whose attempts it was made with, of campaign `name` in `repository`.
    pub(crate) fn write(self, folder: &Path, plan: &PlanBytes, name: &Name, repository: &str) -> io::Result<()> {
        let TableRows { strings, columns, metrics, .. } = self;
        let invalid =
            |what: &str| io::Error::new(io::ErrorKind::InvalidData, format!("the table's {what} is not valid"));
        let table = CampaignTable {
            format: Format,
            plan: table::PlanBytes {
                size: SafeUint::try_from(plan.size).map_err(|_| invalid("plan size"))?,
                sha256: Sha256Digest::from_bytes(plan.sha256),
                stamp: plan.stamp.as_ref().and_then(Stamp::written),
            },
            name: name.clone(),
            repository: repository.to_owned(),
            strings,
            columns,
            metrics: metrics.into_iter().map(|(name, column)| (name, Value::Array(column))).collect::<JsonObject>(),
        };
        let dir = folder.join(INDEX_DIR);
        match std::fs::create_dir(&dir) {
            Ok(()) => {}
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
            Err(error) => return Err(error),
        }
        write_atomically(&dir, TABLE_FILE, |out| serde_json::to_writer(out, &table).map_err(io::Error::other))
    }
}
