//! What Metewand's own documents answer beyond their fields: pure functions of a generated document, kept beside
//! the types so that every reader of the document asks them the same way (an attempt's time by what its problem
//! ranks, the campaign table's, the reports' and, through the index entry, every reader's).

use crate::common::{Phase, Role, Verdict};
use crate::generated::attempt_record::{AttemptRecord, Logs, Outcome, ProblemTimed};
use crate::generated::campaign_file::SeedAxis;
use crate::generated::campaign_index::CampaignIndex;
use crate::generated::common::AttemptId;
use crate::generated::slurm_submission::{JobKind, SlurmSubmission};
use crate::strict::SafeUint;

/// An attempt's time by what its problem ranks (`problem.timed`), as the executor measured the implementation's
/// own requests: its execute requests, and its prepare requests when the problem ranks `prepare+execute`. A
/// request sent more than once (a retry) counts each time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimedTime {
    /// What the time is of: the problem's `timed`, `execute` for records written before it was recorded.
    pub timed: ProblemTimed,
    /// The prepare requests' nanoseconds, with `prepare+execute` only.
    pub prepare_ns: Option<u64>,
    /// The execute requests' nanoseconds.
    pub execute_ns: u64,
}

impl TimedTime {
    /// The time of an attempt that ended `outcome` with `verdict`, ranked by `timed`, from its phases (who served
    /// each, which it was, its nanoseconds). `None` unless the attempt was judged to the end (a verdict, neither
    /// failed nor cancelled) and the implementation was sent every request the time is of.
    fn of(
        outcome: Outcome,
        verdict: Option<Verdict>,
        timed: Option<ProblemTimed>,
        phases: impl Iterator<Item = (Role, Phase, u64)> + Clone,
    ) -> Option<TimedTime> {
        if !judged(outcome, verdict) {
            return None;
        }
        let total = |of: Phase| {
            phases
                .clone()
                .filter(|(role, phase, _)| *role == Role::Implementation && *phase == of)
                .map(|(_, _, ns)| ns)
                .reduce(u64::saturating_add)
        };
        let timed = timed.unwrap_or(ProblemTimed::Execute);
        let prepare_ns = match timed {
            ProblemTimed::Execute => None,
            ProblemTimed::PrepareExecute => Some(total(Phase::Prepare)?),
        };
        Some(TimedTime { timed, prepare_ns, execute_ns: total(Phase::Execute)? })
    }

    /// The time in nanoseconds, as the campaign table holds it: prepare's and execute's added up.
    pub fn ns(&self) -> u64 {
        self.prepare_ns.unwrap_or(0).saturating_add(self.execute_ns)
    }

    /// The time in seconds, as reports rank and `metewand.results.load` gives it: with `prepare+execute`, the
    /// prepare requests' seconds and the execute requests' seconds added up (each converted on its own, so that
    /// every reader's sum is the same double).
    pub fn seconds(&self) -> f64 {
        let seconds = |ns: u64| ns as f64 / 1e9;
        match self.prepare_ns {
            None => seconds(self.execute_ns),
            Some(prepare) => seconds(prepare) + seconds(self.execute_ns),
        }
    }
}

/// Whether an attempt that ended `outcome` with `verdict` was judged to the end: it has a verdict and neither failed
/// nor was cancelled. Only such an attempt is timed.
pub fn judged(outcome: Outcome, verdict: Option<Verdict>) -> bool {
    verdict.is_some() && !matches!(outcome, Outcome::Failed | Outcome::Cancelled)
}

impl AttemptRecord {
    /// The attempt's time by what its problem ranks; `None` for an attempt not judged to the end.
    pub fn timed_time(&self) -> Option<TimedTime> {
        let phases = self.phases.iter().map(|phase| (phase.role, phase.phase, phase.duration_ns.get()));
        TimedTime::of(self.outcome, self.verdict, self.problem.timed, phases)
    }
}

impl CampaignIndex {
    /// The time by what its problem ranks of the attempt this entry summarises: the same as its record's
    /// ([`AttemptRecord::timed_time`]), from the phases the entry keeps.
    pub fn timed_time(&self) -> Option<TimedTime> {
        let phases = self.phases.iter().map(|phase| (phase.role, phase.phase, phase.duration_ns.get()));
        TimedTime::of(self.outcome, self.verdict, self.problem.timed, phases)
    }
}

impl Logs {
    /// The log of `role`'s session, relative to the attempt's folder, when that session had one.
    pub fn of(&self, role: Role) -> Option<&str> {
        match role {
            Role::DatasetMaterializer => self.dataset_materializer.as_ref().map(|log| log.as_str()),
            Role::Implementation => self.implementation.as_ref().map(|log| log.as_str()),
            Role::ProblemEvaluator => self.problem_evaluator.as_ref().map(|log| log.as_str()),
        }
    }
}

impl JobKind {
    /// Whether a job of this kind is one task rather than an array (the export job, a round's decide job).
    pub fn single(self) -> bool {
        matches!(self, JobKind::Export | JobKind::Decide)
    }
}

impl SlurmSubmission {
    /// The attempt ids of pack `pack`: `attempts[pack * K .. (pack + 1) * K]` for the pack size K (at least 1).
    ///
    /// ```
    /// use metewand_protocol::generated::slurm_submission::SlurmSubmission;
    ///
    /// let ids: Vec<String> = (0..7).map(|i| format!("\"mw1-attempt-{i:064x}\"")).collect();
    /// let text = format!(
    ///     r#"{{"format": 1, "number": 1, "submitted_at": "2026-12-01T00:00:00Z", "binary": "/bin/metewand",
    ///         "state_dir": "/state", "sweep_processes": false, "pack_size": 3, "concurrency": 2, "datasets": [],
    ///         "attempts": [{}], "jobs": []}}"#,
    ///     ids.join(", ")
    /// );
    /// let submission: SlurmSubmission = serde_json::from_str(&text).unwrap();
    /// assert_eq!(submission.packs(), 3);
    /// assert_eq!(submission.pack(2).unwrap().len(), 1);
    /// assert!(submission.pack(3).is_none());
    /// ```
    pub fn pack(&self, pack: u64) -> Option<&[AttemptId]> {
        let size = self.pack_size.get().max(1) as usize;
        let start = usize::try_from(pack).ok()?.checked_mul(size)?;
        (start < self.attempts.len()).then(|| &self.attempts[start..(start + size).min(self.attempts.len())])
    }

    /// How many packs.
    pub fn packs(&self) -> u64 {
        self.attempts.len().div_ceil(self.pack_size.get().max(1) as usize) as u64
    }

    /// The job and array index that run dataset `index` (kind [`JobKind::Datasets`]) or pack `index`.
    pub fn task_of(&self, kind: JobKind, index: u64) -> Option<(u64, u64)> {
        self.jobs
            .iter()
            .find(|job| job.kind == kind && (job.first.get()..job.first.get() + job.tasks.get()).contains(&index))
            .map(|job| (job.job_id.get(), index - job.first.get()))
    }
}

impl SeedAxis {
    /// How many seeds the axis names: its list's length, or its count (0 for an axis that is neither).
    pub fn len(&self) -> u64 {
        if self.list.is_empty() { self.count.map_or(0, SafeUint::get) } else { self.list.len() as u64 }
    }

    /// Whether the axis names no seed (never so in a plan).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
