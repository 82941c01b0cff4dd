//! What a campaign folder holds against its plan: planned, done by outcome, failed by kind, missing (no folder,
//! an unfinished one, a cancelled attempt), and records that fail their schema or their id (never counted done).
//! Records are read through the campaign index ([`crate::index`]), on every available CPU.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

use metewand_protocol::generated::attempt_record::Outcome;

use serde::Deserialize;

use crate::folder::{CAMPAIGN_FILE, FolderError, Found, read_plan_file};
use crate::index::{self, Check, IndexEntry, Rebuild};
use crate::plan::CampaignPlan;

/// The state of a campaign folder.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Status {
    /// The campaign's name.
    pub name: String,
    /// The repository's path, as `campaign.json` records it (empty for a status against a plan).
    pub repository: String,
    /// Attempts in the plan.
    pub planned: usize,
    /// Valid records, by outcome (`cancelled` included).
    pub by_outcome: BTreeMap<String, usize>,
    /// Failed records, by the role the failure is attributed to (`executor` for the executor's own) and its kind,
    /// as `"problem_evaluator worker_failure"`: whose fault a failure is matters as much as what it was.
    pub failed_by_cause: BTreeMap<String, usize>,
    /// Records with a verdict.
    pub with_verdict: usize,
    /// Attempts with no folder.
    pub missing: usize,
    /// Folders without a record (interrupted attempts).
    pub unfinished: usize,
    /// Records that fail their schema or their id, with the reason: re-run by `campaign run`.
    pub invalid: Vec<(String, String)>,
}

impl Status {
    /// Attempts with a terminal record (any outcome but `cancelled`).
    pub fn done(&self) -> usize {
        self.by_outcome.iter().filter(|(outcome, _)| *outcome != "cancelled").map(|(_, count)| count).sum()
    }

    /// Whether every planned attempt has a terminal record.
    pub fn complete(&self) -> bool {
        self.done() == self.planned
    }

    /// The status of the folder against its own `campaign.json`, its index's entries taken as `check` says.
    pub fn of(folder: &Path, check: Check) -> Result<Status, FolderError> {
        let file = CampaignIds::read(folder)?;
        let ids: Vec<&str> = file.attempts.iter().map(|entry| entry.id.as_str()).collect();
        let mut status = Status::scan(folder, &file.name, &ids, Rebuild::NewPart, check, |_, _| {});
        status.repository = file.repository;
        Ok(status)
    }

    /// The status of the folder against `plan`, its index's entries taken as `check` says.
    pub fn of_plan(folder: &Path, plan: &CampaignPlan<'_>, check: Check) -> Status {
        let ids: Vec<&str> = plan.attempts().iter().map(|attempt| attempt.id.as_str()).collect();
        Status::scan(folder, plan.name(), &ids, Rebuild::NewPart, check, |_, _| {})
    }

    /// Reads what the folder holds of every id (through the index, in parallel), counting it, and hands each valid
    /// record's entry to `each` with the id's index in `ids`. Entries made while reading go where `rebuild` says;
    /// entries are taken as `check` says.
    pub fn scan(
        folder: &Path,
        name: &str,
        ids: &[&str],
        rebuild: Rebuild<'_>,
        check: Check,
        each: impl Fn(usize, &IndexEntry) + Sync,
    ) -> Status {
        let status = Mutex::new(Status { name: name.to_owned(), planned: ids.len(), ..Status::default() });
        index::scan(folder, ids, rebuild, check, |slot, found| {
            if let Found::Record(entry) = &found {
                each(slot, entry);
            }
            status.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).count(ids[slot], found);
        });
        let mut status = status.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner());
        status.invalid.sort();
        status
    }

    fn count(&mut self, id: &str, found: Found<Box<IndexEntry>>) {
        match found {
            Found::Missing => self.missing += 1,
            Found::Unfinished => self.unfinished += 1,
            Found::Invalid(reason) => self.invalid.push((id.to_owned(), reason)),
            Found::Record(entry) => {
                *self.by_outcome.entry(entry.outcome.to_string()).or_default() += 1;
                if entry.verdict.is_some() && entry.outcome != Outcome::Cancelled {
                    self.with_verdict += 1;
                }
                if entry.outcome == Outcome::Failed
                    && let Some(failure) = &entry.failure
                {
                    let role = failure.role.map_or_else(|| "executor".to_owned(), |role| role.to_string());
                    *self.failed_by_cause.entry(format!("{role} {}", failure.kind)).or_default() += 1;
                }
            }
        }
    }
}

/// What `status` needs of `campaign.json` (a projection of the generated `CampaignFile`): the name and the ids, so
/// that a large plan costs little memory.
#[derive(Deserialize)]
struct CampaignIds {
    /// Checked while reading, not kept.
    #[serde(rename = "format")]
    _format: metewand_runtime::protocol::common::Format,
    name: String,
    repository: String,
    attempts: Vec<IdOnly>,
}

#[derive(Deserialize)]
struct IdOnly {
    id: String,
}

impl CampaignIds {
    fn read(folder: &Path) -> Result<CampaignIds, FolderError> {
        let path = folder.join(CAMPAIGN_FILE);
        let bytes = read_plan_file(folder)?;
        crate::folder::parse_own(&bytes).map_err(|message| FolderError::BadPlanFile { path, message })
    }
}
