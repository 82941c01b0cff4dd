//! What a campaign folder holds against its plan: planned, done by outcome, failed by kind, missing (no folder,
//! an unfinished one, a cancelled attempt), and records that fail their schema or their id (never counted done).
//! Records are read through the campaign index ([`crate::index`]), on every available CPU; a folder's status is
//! read from its tally (`index/tally.bin`) and what its index was appended since, where it has one.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;
use std::time::SystemTime;

use metewand_protocol::generated::attempt_record::Outcome;

use serde::Deserialize;

use crate::changes::Ran;
use crate::folder::{CAMPAIGN_FILE, FolderError, Found, read_plan_file_with_stat};
use crate::index::{self, Check, IndexEntry, Rebuild};
use crate::plan::CampaignPlan;
use crate::tally::{self, Counts, Distinct, PlanBytes, Slot, Tally, id_digest};

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

    /// The status of the folder against its own `campaign.json`, its index's entries taken as `check` says. A
    /// trusting reading ([`Check::Entries`]) reads the folder's tally and what was appended to its index since,
    /// where the folder has a tally it can use; any whole reading writes the tally anew.
    pub fn of(folder: &Path, check: Check) -> Result<Status, FolderError> {
        if check == Check::Entries
            && let Some(status) = Tally::status(folder)
        {
            return Ok(status);
        }
        let began = SystemTime::now();
        let (file, plan) = CampaignIds::read(folder, began)?;
        let ids: Vec<&str> = file.attempts.iter().map(|entry| entry.id.as_str()).collect();
        let (mut status, tally) =
            Status::scan_counting(folder, &file.name, &ids, Rebuild::NewPart, check, true, |_, _| {});
        status.repository = file.repository;
        if let Some(mut tally) = tally {
            tally.keep(folder, plan, &status.repository);
        }
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
        Status::scan_counting(folder, name, ids, rebuild, check, false, each).0
    }

    /// [`Status::scan`], with the tally of what was counted of each id when `tallied` asks for it and the reading
    /// can tell how much of the index it took in (its `plan` and `repository` are left for the caller to set).
    pub(crate) fn scan_counting(
        folder: &Path,
        name: &str,
        ids: &[&str],
        rebuild: Rebuild<'_>,
        check: Check,
        tallied: bool,
        each: impl Fn(usize, &IndexEntry) + Sync,
    ) -> (Status, Option<Tally>) {
        // A tally names ids by their digest: a plan of ids of another form is not tallied.
        let digests: Option<Vec<[u8; 32]>> =
            tallied.then(|| ids.iter().map(|id| id_digest(id)).collect::<Option<Vec<_>>>()).flatten();
        let slots = digests.map(|digests| {
            let slots = digests.into_iter().map(Slot::of).collect::<Vec<_>>();
            (Counts::default(), Distinct::<Ran>::default(), slots)
        });
        let counting = Mutex::new((Status { name: name.to_owned(), planned: ids.len(), ..Status::default() }, slots));
        let extents = index::scan(folder, ids, rebuild, check, |slot, found| {
            if let Found::Record(entry) = &found {
                each(slot, entry);
            }
            let counted = Counted::of(&found);
            // Made before the lock is taken: only its numbering needs it.
            let ran = if tallied { tally::ran(&found) } else { None };
            let mut counting = counting.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            let (status, slots) = &mut *counting;
            match &counted {
                Counted::Invalid(reason) => status.invalid.push((ids[slot].to_owned(), reason.clone())),
                counted => status.add(counted, 1),
            }
            if let Some((counts, distinct, slots)) = slots {
                let number = counts.number(counted);
                slots[slot] = slots[slot].counting(number, &found, tally::number_ran(distinct, ran));
            }
        });
        let (mut status, slots) = counting.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner());
        status.invalid.sort();
        let tally = slots.zip(extents).map(|((counts, ran, mut slots), extents)| {
            let (counts, ran) = tally::in_order(counts, ran, &mut slots);
            Tally {
                plan: PlanBytes { size: 0, sha256: [0; 32], stamp: None },
                name: name.to_owned(),
                repository: String::new(),
                extents,
                counts,
                ran,
                slots,
            }
        });
        (status, tally)
    }

    /// Adds `times` attempts counted as `counted` (an invalid record's id is the caller's to list).
    pub(crate) fn add(&mut self, counted: &Counted, times: usize) {
        match counted {
            Counted::Missing => self.missing += times,
            Counted::Unfinished => self.unfinished += times,
            Counted::Invalid(_) => {}
            Counted::Record { outcome, with_verdict, cause } => {
                *self.by_outcome.entry(outcome.clone()).or_default() += times;
                if *with_verdict {
                    self.with_verdict += times;
                }
                if let Some(cause) = cause {
                    *self.failed_by_cause.entry(cause.clone()).or_default() += times;
                }
            }
        }
    }
}

/// Each planned attempt's id and outcome (`None` without a valid record), in the plan's order: from the folder's
/// tally where it has one (as its status reads it, neither `campaign.json` nor the index parsed), and otherwise
/// through the whole index, its entries trusted.
pub(crate) fn outcomes(folder: &Path) -> Result<(Vec<String>, Vec<Option<Outcome>>), FolderError> {
    if let Some(tally) = Tally::current(folder) {
        return Ok((tally.ids(), tally.outcomes()));
    }
    let file = crate::folder::read_campaign(folder)?;
    let ids: Vec<&str> = file.attempts.iter().map(|entry| entry.id.as_str()).collect();
    let outcomes: Mutex<Vec<Option<Outcome>>> = Mutex::new(vec![None; ids.len()]);
    index::scan(folder, &ids, Rebuild::NewPart, Check::Entries, |slot, found| {
        outcomes.lock().unwrap_or_else(|poisoned| poisoned.into_inner())[slot] = found.outcome();
    });
    let outcomes = outcomes.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner());
    Ok((ids.into_iter().map(str::to_owned).collect(), outcomes))
}

/// What one planned attempt adds to a status: what a tally keeps of it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Counted {
    /// No folder.
    Missing,
    /// A folder without a record.
    Unfinished,
    /// A record that fails its schema or its id, and why.
    Invalid(String),
    /// A valid record: its outcome, whether it counts as one with a verdict, and the cause of a failure (the role
    /// it is attributed to, `executor` for the executor's own, and its kind).
    Record { outcome: String, with_verdict: bool, cause: Option<String> },
}

impl Counted {
    /// Whether this is a record of a cancelled attempt.
    pub(crate) fn cancelled(&self) -> bool {
        matches!(self, Counted::Record { outcome, .. } if *outcome == Outcome::Cancelled.to_string())
    }

    /// How `found` is counted.
    pub(crate) fn of(found: &Found<Box<IndexEntry>>) -> Counted {
        match found {
            Found::Missing => Counted::Missing,
            Found::Unfinished => Counted::Unfinished,
            Found::Invalid(reason) => Counted::Invalid(reason.clone()),
            Found::Record(entry) => Counted::Record {
                outcome: entry.outcome.to_string(),
                with_verdict: entry.verdict.is_some() && entry.outcome != Outcome::Cancelled,
                cause: entry.failure.as_ref().filter(|_| entry.outcome == Outcome::Failed).map(|failure| {
                    let role = failure.role.map_or_else(|| "executor".to_owned(), |role| role.to_string());
                    format!("{role} {}", failure.kind)
                }),
            },
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
    /// The projection of `campaign.json`, with the binding of its bytes a tally records (read by a reading that
    /// began at `began`).
    fn read(folder: &Path, began: SystemTime) -> Result<(CampaignIds, PlanBytes), FolderError> {
        let path = folder.join(CAMPAIGN_FILE);
        let (bytes, stat) = read_plan_file_with_stat(folder)?;
        let file = crate::folder::parse_own(&bytes).map_err(|message| FolderError::BadPlanFile { path, message })?;
        Ok((file, PlanBytes::of(&bytes, stat.as_ref(), began)))
    }
}
