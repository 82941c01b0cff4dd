//! What a campaign folder holds against its plan: planned, done by outcome, failed by kind, missing (no folder,
//! an unfinished one, a cancelled attempt), and records that fail their schema or their id (never counted done).
//! Records are read on every available CPU.

use std::collections::BTreeMap;
use std::path::Path;

use metewand_protocol::generated::attempt_record::{AttemptRecord, Outcome};

use serde::Deserialize;

use crate::folder::{CAMPAIGN_FILE, FolderError, Found, read_attempt, read_plan_file};
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

    /// The status of the folder against its own `campaign.json`.
    pub fn of(folder: &Path) -> Result<Status, FolderError> {
        let file = CampaignIds::read(folder)?;
        let ids: Vec<&str> = file.attempts.iter().map(|entry| entry.id.as_str()).collect();
        let mut status = Status::scan(folder, &file.name, &ids, |_| {});
        status.repository = file.repository;
        Ok(status)
    }

    /// The status of the folder against `plan`.
    pub fn of_plan(folder: &Path, plan: &CampaignPlan<'_>) -> Status {
        let ids: Vec<&str> = plan.attempts().iter().map(|attempt| attempt.id.as_str()).collect();
        Status::scan(folder, plan.name(), &ids, |_| {})
    }

    /// Reads the record of every id (in parallel), counting them, and hands each valid record to `each`.
    pub fn scan(folder: &Path, name: &str, ids: &[&str], each: impl Fn(&AttemptRecord) + Sync) -> Status {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 8);
        let chunk = ids.len().div_ceil(threads).max(1);
        let parts: Vec<Status> = std::thread::scope(|scope| {
            let handles: Vec<_> = ids
                .chunks(chunk)
                .map(|ids| {
                    let each = &each;
                    scope.spawn(move || {
                        let mut status = Status::default();
                        for id in ids {
                            status.count(id, read_attempt(folder, id), each);
                        }
                        status
                    })
                })
                .collect();
            handles.into_iter().map(|handle| handle.join().unwrap_or_default()).collect()
        });
        let mut status = Status { name: name.to_owned(), planned: ids.len(), ..Status::default() };
        for part in parts {
            for (outcome, count) in part.by_outcome {
                *status.by_outcome.entry(outcome).or_default() += count;
            }
            for (kind, count) in part.failed_by_cause {
                *status.failed_by_cause.entry(kind).or_default() += count;
            }
            status.with_verdict += part.with_verdict;
            status.missing += part.missing;
            status.unfinished += part.unfinished;
            status.invalid.extend(part.invalid);
        }
        status.invalid.sort();
        status
    }

    fn count(&mut self, id: &str, found: Found, each: &impl Fn(&AttemptRecord)) {
        match found {
            Found::Missing => self.missing += 1,
            Found::Unfinished => self.unfinished += 1,
            Found::Invalid(reason) => self.invalid.push((id.to_owned(), reason)),
            Found::Record(record) => {
                *self.by_outcome.entry(record.outcome.to_string()).or_default() += 1;
                if record.verdict.is_some() && record.outcome != Outcome::Cancelled {
                    self.with_verdict += 1;
                }
                if record.outcome == Outcome::Failed
                    && let Some(failure) = &record.failure
                {
                    let role = failure.role.map_or_else(|| "executor".to_owned(), |role| role.to_string());
                    *self.failed_by_cause.entry(format!("{role} {}", failure.kind)).or_default() += 1;
                }
                each(&record);
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
    _format: crate::folder::Format1,
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
