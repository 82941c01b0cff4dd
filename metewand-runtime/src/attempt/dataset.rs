//! The attempt's dataset: reused from the store when its entry validates and matches its `.published` record,
//! otherwise materialized in a session of its own, validated and published; held open for the whole attempt and
//! re-verified after each session that could see it.

use std::path::Path;
use std::time::{Instant, SystemTime};

use super::record::change;
use super::run::{Failure, Run};
use super::store;
use super::{DATASET_MANIFEST, Dir, FailureKind, Phase, Role, remove_tree};
use crate::files::stamped::Stamped;
use crate::session::MaterializeParams;
use crate::validate::ValidatedDataset;
use metewand_protocol::generated::dataset_published::DatasetPublished;

/// The store entries this process verified, by path (which ends in the entry's key, and the key covers the schemas
/// the validation applies).
static VERIFIED_ENTRIES: Stamped<ValidatedDataset> = Stamped::new();

impl Run<'_, '_> {
    /// The dataset, reused from the store when an entry validates and matches its `.published` record, otherwise
    /// materialized and published. A concurrent run publishing the key first, or an entry replaced while it was
    /// being verified, starts the resolution again (a few rounds at most).
    pub(super) fn obtain_dataset(&mut self) -> Result<(), Failure> {
        for _ in 0..3 {
            if self.reuse_stored()? {
                self.journal.reused.get_or_insert(self.journal.materializations == 0);
                return Ok(());
            }
            self.check_cancel()?;
            if self.build_dataset()? {
                return Ok(());
            }
        }
        Err(Failure::executor("resolving the dataset", "its store entry kept being replaced by other runs"))
    }

    /// Takes the stored entry if it validates, has a valid record and matches it, and is still the folder that was
    /// validated; otherwise evicts it (unless it was replaced meanwhile) and returns `false`.
    pub(super) fn reuse_stored(&mut self) -> Result<bool, Failure> {
        let key = self.attempt.key.clone();
        let found = self.store().lookup(&key).map_err(|e| self.store_failure("reading the dataset store", e))?;
        let Some(store::Found { dir, record }) = found else { return Ok(false) };
        let validated = self.verify_entry();
        if let Err(error) = &validated
            && let Some(cancelled) = Failure::cancelled(error)
        {
            return Err(cancelled);
        }
        if let (Ok(validated), Some(record)) = (&validated, &record)
            && store::matches(record, validated)
            && dir.is_at(&self.attempt.entry)
        {
            self.accept(validated.clone(), dir, record.clone())?;
            return Ok(true);
        }
        // An entry that fails re-verification, has no valid record or differs from it is evicted and rebuilt; that
        // is not a failure.
        self.store().evict(&key, Some(&dir)).map_err(|e| self.store_failure("evicting a dataset entry", e))?;
        Ok(false)
    }

    /// Holds `dir` as the attempt's dataset. A dataset resolved again during the attempt must be the same one.
    pub(super) fn accept(
        &mut self,
        validated: ValidatedDataset,
        dir: Dir,
        record: DatasetPublished,
    ) -> Result<(), Failure> {
        if let Some(first) = &self.published
            && (&first.files, &first.manifest) != (&record.files, &record.manifest)
        {
            let message = "the dataset was replaced in the store by different content during the attempt";
            return Err(Failure::executor("resolving the dataset again", message));
        }
        self.published.get_or_insert(record);
        self.dataset = Some(validated);
        self.entry_dir = Some(dir);
        Ok(())
    }

    /// Materializes, validates and publishes the dataset; `false` if another run published the key first.
    pub(super) fn build_dataset(&mut self) -> Result<bool, Failure> {
        let dataset = self.attempt.plan.dataset;
        if self.journal.materializations > 0 {
            self.retire_materializer_session()?;
        }
        self.journal.materializations += 1;
        self.journal.reused.get_or_insert(false);
        let staging = store::Staging::create(&self.attempt.datasets)
            .map_err(|e| Failure::executor("creating a dataset staging folder", e))?;
        let outcome = self.materialize(staging.path());
        let remove_staging = |staging: &store::Staging| {
            remove_tree(staging.path()).map_err(|e| Failure::executor("removing a staging folder", e))
        };
        let manifest = match outcome {
            Ok(manifest) => manifest,
            Err(failure) => {
                remove_staging(&staging)?;
                return Err(failure);
            }
        };
        let role = Role::DatasetMaterializer;
        if manifest != DATASET_MANIFEST {
            remove_staging(&staging)?;
            let message = format!(
                "{role} worker's output is invalid: it named its manifest {manifest:?}, but a dataset's manifest must \
                 be {DATASET_MANIFEST:?} at its root (implementations receive only the folder)"
            );
            return Err(Failure::new(Some(role), Some(Phase::Materialize), FailureKind::InvalidOutput, message));
        }
        let validated = match self.validator().validate_dataset(dataset, staging.path(), DATASET_MANIFEST) {
            Ok(validated) => validated,
            Err(error) => {
                remove_staging(&staging)?;
                return Err(Failure::output(role, Phase::Materialize, &error));
            }
        };
        let materializer = self.attempt.plan.worker(dataset.materializer()).identity();
        let record = store::published(&self.attempt.key, &validated, materializer, SystemTime::now());
        let published = self
            .store()
            .publish(staging, &self.attempt.key, &record)
            .map_err(|e| self.store_failure("publishing the dataset", e))?;
        if let store::Publication::Exists = published {
            return Ok(false);
        }
        let dir = Dir::open(&self.attempt.entry).map_err(|e| Failure::executor("opening the published dataset", e))?;
        let again = self.validator().validate_dataset(dataset, &self.attempt.entry, DATASET_MANIFEST).map_err(|e| {
            Failure::cancelled(&e).unwrap_or_else(|| Failure::executor("re-verifying the published dataset", e))
        })?;
        if !store::matches(&record, &again) || !dir.is_at(&self.attempt.entry) {
            return Ok(false);
        }
        self.accept(again, dir, record)?;
        Ok(true)
    }

    /// Before a second materialization in one attempt, the first one's log is kept as
    /// `logs/dataset_materializer-<n>.log`, so the new session's places are fresh (its `TMPDIR` went when its session
    /// ended; its source copy is the store's, shared).
    pub(super) fn retire_materializer_session(&mut self) -> Result<(), Failure> {
        let role = Role::DatasetMaterializer;
        if let Some(logs) = &self.logs_dir
            && logs.entry(&format!("{role}.log")).ok().flatten().is_some()
        {
            logs.rename_new(&format!("{role}.log"), &format!("{role}-{}.log", self.journal.materializations))
                .map_err(|e| Failure::executor("keeping an earlier log", e))?;
        }
        Ok(())
    }

    /// Runs the materializer's session into `output`; returns the manifest path it named, once it has exited.
    pub(super) fn materialize(&mut self, output: &Path) -> Result<String, Failure> {
        let worker = self.attempt.plan.worker(self.attempt.plan.dataset.materializer());
        let (config, source, tmpdir) = self.session_config(worker, Role::DatasetMaterializer, output)?;
        let params = MaterializeParams {
            source_dir: self.path(&source)?,
            dataset_parameters: self.attempt.plan.dataset.parameters().clone(),
            dataset_seed: self.attempt.plan.dataset_seed,
            output_dir: self.path(output)?,
        };
        self.journal.last_worker = Some((Role::DatasetMaterializer, Phase::Materialize));
        let mut session = self.journal.connect::<crate::session::Materializer>(config)?;
        self.journal.saw(&session);
        if let Some(budget) = self.attempt.plan.repository.budgets().materialization {
            session.set_scientific_deadline(Instant::now() + budget);
        }
        let response = session.materialize(params);
        let response = self.journal.settle(session, response, Role::DatasetMaterializer)?;
        tmpdir.remove()?;
        Ok(response.dataset.manifest.to_string())
    }

    /// Before a session that receives the dataset: if its store entry is no longer the folder this attempt holds
    /// (another run evicted or replaced it), the dataset is resolved again (re-verified or rebuilt) and must be
    /// the same inventory; nobody is blamed.
    pub(super) fn ensure_dataset(&mut self) -> Result<(), Failure> {
        if self.entry_dir.as_ref().is_some_and(|dir| dir.is_at(&self.attempt.entry)) {
            return Ok(());
        }
        self.entry_dir = None;
        self.obtain_dataset()
    }

    /// After a session that received the dataset failed: the dataset is still re-verified (and evicted if it
    /// changed), but the session's own failure is what ends the attempt.
    pub(super) fn after_dataset_session(&mut self, failure: Failure, role: Role, phase: Phase) -> Failure {
        match self.verify_dataset(role, phase) {
            Err(error) if error.kind == FailureKind::ExecutorError => error,
            _ => failure,
        }
    }

    /// Verifies the store entry at the attempt's path, reading it unless it still has the stamp of a settled
    /// verification this process made ([`Stamped`]).
    fn verify_entry(&self) -> Result<ValidatedDataset, crate::validate::ValidationError> {
        let validate =
            || self.validator().validate_dataset(self.attempt.plan.dataset, &self.attempt.entry, DATASET_MANIFEST);
        VERIFIED_ENTRIES
            .read(&self.attempt.entry, SystemTime::now(), validate, |_| true)
            .map(|(validated, _)| validated)
    }

    /// Re-verifies the dataset after a session that could see it, through the entry folder this attempt holds.
    /// If the store's entry is still that folder, a change was made in place while the session could see it: it
    /// is `dataset_modified`, attributed to `role` and `phase`, and evicts the entry. If the entry is gone or is
    /// another folder, another run evicted or replaced it (each run blames only a change it sees in place), so
    /// this session is not blamed and the next session resolves the dataset again.
    pub(super) fn verify_dataset(&mut self, role: Role, phase: Phase) -> Result<(), Failure> {
        let (Some(original), Some(dir)) = (&self.dataset, &self.entry_dir) else { return Ok(()) };
        if !dir.is_at(&self.attempt.entry) {
            self.entry_dir = None;
            return Ok(());
        }
        let again = self.verify_entry();
        if let Err(error) = &again
            && let Some(cancelled) = Failure::cancelled(error)
        {
            return Err(cancelled);
        }
        if !dir.is_at(&self.attempt.entry) {
            self.entry_dir = None;
            return Ok(());
        }
        let again = again.as_ref().map(|again| (again.files(), again.manifest_file()));
        let Some(problem) = change((original.files(), original.manifest_file()), again) else { return Ok(()) };
        let dir = self.entry_dir.take();
        self.store()
            .evict(&self.attempt.key, dir.as_ref())
            .map_err(|e| self.store_failure("evicting a modified dataset", e))?;
        let message = format!("the dataset changed during the {role} worker's session and was evicted: {problem}");
        Err(Failure::new(Some(role), Some(phase), FailureKind::DatasetModified, message))
    }
}
