//! What Metewand's own documents answer beyond their fields: pure functions of a generated document, kept beside
//! the types so that every reader of the document asks them the same way.

use crate::common::Role;
use crate::generated::attempt_record::Logs;
use crate::generated::campaign_file::SeedAxis;
use crate::generated::common::AttemptId;
use crate::generated::slurm_submission::{JobKind, SlurmSubmission};
use crate::strict::SafeUint;

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
