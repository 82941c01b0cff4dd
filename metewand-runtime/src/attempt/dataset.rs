//! The dataset stage: the dataset reused from the store when its entry validates and matches its `.published`
//! record, otherwise materialized in a session of its own, validated and published; a [`DatasetHeld`], held open
//! for the whole attempt, resolved again before a session that needs it when another run evicted or replaced it,
//! and re-verified after each session that could see it.

use std::path::Path;
use std::time::{Instant, SystemTime};

use metewand_protocol::common::Role;
use metewand_protocol::generated::attempt_record::FailureKind;
use metewand_protocol::generated::dataset_published::DatasetPublished;

use super::DATASET_MANIFEST;
use super::failure::Failure;
use super::journal::Journal;
use super::record::{change, file_records};
use super::run::{Attempt, Folders};
use super::store::{self, Store, remove_tree};
use crate::files::Dir;
use crate::files::stamped::Stamped;
use crate::protocol::Phase;
use crate::session::{MaterializeParams, Materializer};
use crate::validate::{ValidatedDataset, ValidationError};

/// The store entries this process verified, by path (which ends in the entry's key, and the key covers the schemas
/// the validation applies).
static VERIFIED_ENTRIES: Stamped<ValidatedDataset> = Stamped::new();

/// The dataset stage's output: the store, and the dataset this attempt validated and uses.
pub(super) struct DatasetHeld {
    pub(super) store: Store,
    /// The store entry, held open so that its eviction or replacement shows: `None` once another run evicted or
    /// replaced it, until it is resolved again.
    pub(super) entry_dir: Option<Dir>,
    pub(super) dataset: ValidatedDataset,
    /// The entry's `.published` record, as first resolved: a dataset resolved again must be the same.
    pub(super) published: DatasetPublished,
}

/// A store entry found valid and matching its record: its folder, held open, what it validated as, and its record.
struct Resolved {
    dir: Dir,
    dataset: ValidatedDataset,
    record: DatasetPublished,
}

impl Attempt<'_, '_> {
    /// The dataset stage: the store opened (its leftovers cleaned up) and the dataset obtained, reused or
    /// materialized and published.
    pub(super) fn obtain_dataset(&self, folders: &Folders, journal: &mut Journal) -> Result<DatasetHeld, Failure> {
        let store =
            Store::open(&self.datasets, self.cancel).map_err(|e| self.store_failure("opening the dataset store", e))?;
        store::clean_leftovers(&self.datasets).map_err(|e| Failure::executor("cleaning the dataset store", e))?;
        let Resolved { dir, dataset, record } = self.resolve(&store, folders, journal)?;
        journal.dataset = Some(file_records(dataset.files()));
        Ok(DatasetHeld { store, entry_dir: Some(dir), dataset, published: record })
    }

    /// The dataset, reused from the store when an entry validates and matches its `.published` record, otherwise
    /// materialized and published. A concurrent run publishing the key first, or an entry replaced while it was
    /// being verified, starts the resolution again (a few rounds at most).
    fn resolve(&self, store: &Store, folders: &Folders, journal: &mut Journal) -> Result<Resolved, Failure> {
        for _ in 0..3 {
            if let Some(resolved) = self.reuse_stored(store)? {
                journal.reused.get_or_insert(journal.materializations == 0);
                return Ok(resolved);
            }
            self.check_cancel()?;
            if let Some(resolved) = self.build_dataset(store, folders, journal)? {
                return Ok(resolved);
            }
        }
        Err(Failure::executor("resolving the dataset", "its store entry kept being replaced by other runs"))
    }

    /// The stored entry if it validates, has a valid record and matches it, and is still the folder that was
    /// validated; otherwise it is evicted (unless it was replaced meanwhile) and this is `None`.
    fn reuse_stored(&self, store: &Store) -> Result<Option<Resolved>, Failure> {
        let found =
            store.lookup(&self.key.to_string()).map_err(|e| self.store_failure("reading the dataset store", e))?;
        let Some(store::Found { dir, record }) = found else { return Ok(None) };
        let validated = self.verify_entry();
        if let Err(error) = &validated
            && let Some(cancelled) = Failure::cancelled(error)
        {
            return Err(cancelled);
        }
        if let (Ok(validated), Some(record)) = (&validated, &record)
            && store::matches(record, validated)
            && dir.is_at(&self.entry)
        {
            return Ok(Some(Resolved { dir, dataset: validated.clone(), record: record.clone() }));
        }
        // An entry that fails re-verification, has no valid record or differs from it is evicted and rebuilt; that
        // is not a failure.
        store
            .evict(&self.key.to_string(), Some(&dir))
            .map_err(|e| self.store_failure("evicting a dataset entry", e))?;
        Ok(None)
    }

    /// Materializes, validates and publishes the dataset; `None` if another run published the key first.
    fn build_dataset(
        &self,
        store: &Store,
        folders: &Folders,
        journal: &mut Journal,
    ) -> Result<Option<Resolved>, Failure> {
        let dataset = self.plan.dataset;
        if journal.materializations > 0 {
            retire_materializer_session(folders, journal)?;
        }
        journal.materializations += 1;
        journal.reused.get_or_insert(false);
        let staging = store::Staging::create(&self.datasets)
            .map_err(|e| Failure::executor("creating a dataset staging folder", e))?;
        let outcome = self.materialize(folders, journal, staging.path());
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
        let materializer = self.plan.worker(dataset.materializer()).identity();
        let record = store::published(self.key, &validated, materializer, SystemTime::now());
        let published = store
            .publish(staging, &self.key.to_string(), &record)
            .map_err(|e| self.store_failure("publishing the dataset", e))?;
        if let store::Publication::Exists = published {
            return Ok(None);
        }
        let dir = Dir::open(&self.entry).map_err(|e| Failure::executor("opening the published dataset", e))?;
        let again = self.validator().validate_dataset(dataset, &self.entry, DATASET_MANIFEST).map_err(|e| {
            Failure::cancelled(&e).unwrap_or_else(|| Failure::executor("re-verifying the published dataset", e))
        })?;
        if !store::matches(&record, &again) || !dir.is_at(&self.entry) {
            return Ok(None);
        }
        Ok(Some(Resolved { dir, dataset: again, record }))
    }

    /// Runs the materializer's session into `output`; returns the manifest path it named, once it has exited.
    fn materialize(&self, folders: &Folders, journal: &mut Journal, output: &Path) -> Result<String, Failure> {
        let worker = self.plan.worker(self.plan.dataset.materializer());
        let (config, source, tmpdir) =
            self.session_config(folders, journal, worker, Role::DatasetMaterializer, output)?;
        let params = MaterializeParams {
            source_dir: self.path(&source)?,
            dataset_parameters: self.plan.dataset.parameters().clone(),
            dataset_seed: self.plan.dataset_seed,
            output_dir: self.path(output)?,
        };
        journal.last_worker = Some((Role::DatasetMaterializer, Phase::Materialize));
        let mut session = journal.connect::<Materializer>(config)?;
        journal.saw(&session);
        if let Some(budget) = self.plan.repository.budgets().materialization {
            session.set_scientific_deadline(Instant::now() + budget);
        }
        let response = session.materialize(params);
        let response = journal.settle(session, response, Role::DatasetMaterializer)?;
        tmpdir.remove()?;
        Ok(response.dataset.manifest.to_string())
    }

    /// Verifies the store entry at the attempt's path, reading it unless it still has the stamp of a settled
    /// verification this process made ([`Stamped`]).
    fn verify_entry(&self) -> Result<ValidatedDataset, ValidationError> {
        let validate = || self.validator().validate_dataset(self.plan.dataset, &self.entry, DATASET_MANIFEST);
        VERIFIED_ENTRIES.read(&self.entry, SystemTime::now(), validate, |_| true).map(|(validated, _)| validated)
    }
}

/// Before a second materialization in one attempt, the first one's log is kept as
/// `logs/dataset_materializer-<n>.log`, so the new session's places are fresh (its `TMPDIR` went when its session
/// ended; its source copy is the store's, shared).
fn retire_materializer_session(folders: &Folders, journal: &Journal) -> Result<(), Failure> {
    let role = Role::DatasetMaterializer;
    let logs = &folders.logs;
    if logs.entry(&format!("{role}.log")).ok().flatten().is_some() {
        logs.rename_new(&format!("{role}.log"), &format!("{role}-{}.log", journal.materializations))
            .map_err(|e| Failure::executor("keeping an earlier log", e))?;
    }
    Ok(())
}

impl DatasetHeld {
    /// Whether the store's entry is still the folder this attempt holds.
    pub(super) fn is_held(&self, attempt: &Attempt<'_, '_>) -> bool {
        self.entry_dir.as_ref().is_some_and(|dir| dir.is_at(&attempt.entry))
    }

    /// Before a session that receives the dataset: if its store entry is no longer the folder this attempt holds
    /// (another run evicted or replaced it), the dataset is resolved again (re-verified or rebuilt) and must be
    /// the same inventory; nobody is blamed.
    pub(super) fn ensure(
        &mut self,
        attempt: &Attempt<'_, '_>,
        folders: &Folders,
        journal: &mut Journal,
    ) -> Result<(), Failure> {
        if self.is_held(attempt) {
            return Ok(());
        }
        self.entry_dir = None;
        let Resolved { dir, dataset, record } = attempt.resolve(&self.store, folders, journal)?;
        if (&self.published.files, &self.published.manifest) != (&record.files, &record.manifest) {
            let message = "the dataset was replaced in the store by different content during the attempt";
            return Err(Failure::executor("resolving the dataset again", message));
        }
        journal.dataset = Some(file_records(dataset.files()));
        self.dataset = dataset;
        self.entry_dir = Some(dir);
        Ok(())
    }

    /// After a session that received the dataset failed: the dataset is still re-verified (and evicted if it
    /// changed), but the session's own failure is what ends the attempt.
    pub(super) fn after_session(
        &mut self,
        attempt: &Attempt<'_, '_>,
        failure: Failure,
        role: Role,
        phase: Phase,
    ) -> Failure {
        match self.verify(attempt, role, phase) {
            Err(error) if error.kind == FailureKind::ExecutorError => error,
            _ => failure,
        }
    }

    /// Re-verifies the dataset after a session that could see it, through the entry folder this attempt holds.
    /// If the store's entry is still that folder, a change was made in place while the session could see it: it
    /// is `dataset_modified`, attributed to `role` and `phase`, and evicts the entry. If the entry is gone or is
    /// another folder, another run evicted or replaced it (each run blames only a change it sees in place), so
    /// this session is not blamed and the next session resolves the dataset again.
    pub(super) fn verify(&mut self, attempt: &Attempt<'_, '_>, role: Role, phase: Phase) -> Result<(), Failure> {
        let Some(dir) = &self.entry_dir else { return Ok(()) };
        if !dir.is_at(&attempt.entry) {
            self.entry_dir = None;
            return Ok(());
        }
        let again = attempt.verify_entry();
        if let Err(error) = &again
            && let Some(cancelled) = Failure::cancelled(error)
        {
            return Err(cancelled);
        }
        if !dir.is_at(&attempt.entry) {
            self.entry_dir = None;
            return Ok(());
        }
        let original = &self.dataset;
        let again = again.as_ref().map(|again| (again.files(), again.manifest_file()));
        let Some(problem) = change((original.files(), original.manifest_file()), again) else { return Ok(()) };
        let dir = self.entry_dir.take();
        self.store
            .evict(&attempt.key.to_string(), dir.as_ref())
            .map_err(|e| attempt.store_failure("evicting a modified dataset", e))?;
        let message = format!("the dataset changed during the {role} worker's session and was evicted: {problem}");
        Err(Failure::new(Some(role), Some(phase), FailureKind::DatasetModified, message))
    }
}
