//! Store entries this process has verified, and the stamps that let it trust one again without reading it.
//!
//! An attempt verifies its dataset's entry before its first session and again after each session that could see
//! it: three readings of every byte per attempt, which for a dataset of gigabytes is seconds of every attempt. So,
//! as the campaign index does for records (and `git` for its index), a verification remembers the stamp the entry's
//! tree had just before it was read (every entry's inode, type and mode, size, ctime and mtime, the root's too), and
//! a later verification that finds the same stamp takes the remembered result without reading a byte.
//!
//! Why a stamp is enough: every change to a file's bytes, links or mode, and every entry added to, removed from or
//! renamed in a folder, moves the ctime of what it changes, and no process sets a ctime back short of setting the
//! clock back. Only a tree whose every entry last changed [`SETTLED`] before the stamp was taken is remembered: the
//! margin is wider than any filesystem's timestamp granularity, so a change made after the stamp cannot leave the
//! ctime the stamp names. A younger entry is read at every verification until one finds it settled. The stamp is
//! taken before the reading, so a change during the reading moves a ctime past it too.
//!
//! Limit: a process that mapped a file of the entry shared and writable before the stamp was taken could change
//! bytes of a page it had already dirtied without moving the ctime until the page is written back. Workers cannot:
//! the store is read-only in their view (a held session has one), and a session's processes are ended with it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use super::DATASET_MANIFEST;
use crate::files::walk::{TreeStamp, stamp_tree};
use crate::repository::Dataset;
use crate::validate::{ValidatedDataset, ValidationError, WorkerOutputValidator};

/// How long before a verification began every entry of a tree must have last changed for its stamp to be
/// remembered: longer than the timestamp granularity of any filesystem and the clock skew between hosts that share
/// a store.
pub(crate) const SETTLED: Duration = Duration::from_secs(5);

/// The most entries remembered; past it, the memory starts again (a campaign uses its datasets in turn).
const MAX_REMEMBERED: usize = 256;

/// Verifications by stamp, by the entry's path (which ends in its key, and the key covers the schemas the
/// validation applies).
#[derive(Default)]
pub(crate) struct StampedEntries {
    entries: Mutex<BTreeMap<PathBuf, (TreeStamp, ValidatedDataset)>>,
}

/// This process's verifications, shared by every attempt it runs.
pub(crate) static VERIFIED: StampedEntries = StampedEntries { entries: Mutex::new(BTreeMap::new()) };

/// How a verification was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reading {
    /// Every byte was read and hashed.
    Read,
    /// The tree had the stamp of an earlier verification that read it.
    Stamped,
}

impl StampedEntries {
    /// Verifies the entry at `root` as [`WorkerOutputValidator::validate_dataset`] does, unless its tree still has
    /// the stamp of a settled verification; `began` is when this verification began (now, outside tests).
    pub(crate) fn validate(
        &self,
        validator: &WorkerOutputValidator<'_>,
        dataset: &Dataset,
        root: &Path,
        began: SystemTime,
    ) -> Result<(ValidatedDataset, Reading), ValidationError> {
        // A tree the walk refuses (a link, a special file) is left to the validation, which says why.
        let stamp = stamp_tree(root).ok();
        if let Some(stamp) = &stamp {
            let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some((known, validated)) = entries.get(root)
                && known == stamp
            {
                return Ok((validated.clone(), Reading::Stamped));
            }
        }
        let validated = validator.validate_dataset(dataset, root, DATASET_MANIFEST);
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        match (&validated, stamp) {
            (Ok(validated), Some(stamp)) if began.checked_sub(SETTLED).is_some_and(|at| stamp.changed_before(at)) => {
                if entries.len() >= MAX_REMEMBERED {
                    entries.clear();
                }
                entries.insert(root.to_owned(), (stamp, validated.clone()));
            }
            _ => {
                entries.remove(root);
            }
        }
        validated.map(|validated| (validated, Reading::Read))
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, reason = "tests make and read their own files in temporary folders")]
mod tests {
    use std::fs;
    use std::os::unix::fs::PermissionsExt;
    use std::time::SystemTime;

    use serde_json::json;

    use super::*;
    use crate::files::Sha256Digest;
    use crate::repository::CheckedRepository;

    fn repository() -> CheckedRepository {
        CheckedRepository::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/fixtures/golden")).unwrap()
    }

    /// A valid entry of the golden repository's `small` dataset: a manifest and `x.csv` in a folder.
    fn entry(contents: &[u8]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("x.csv"), contents).unwrap();
        let record = json!({"path": "x.csv", "size": contents.len(), "sha256": Sha256Digest::of(contents).to_string()});
        let manifest = json!({"complete": true, "data": {"rows": 2}, "files": [record]});
        fs::write(dir.path().join(DATASET_MANIFEST), serde_json::to_vec(&manifest).unwrap()).unwrap();
        dir
    }

    /// A moment at which everything written just now has settled.
    fn later() -> SystemTime {
        SystemTime::now() + 2 * SETTLED
    }

    fn reading(stamps: &StampedEntries, root: &Path, began: SystemTime) -> Result<Reading, ValidationError> {
        let repository = repository();
        let dataset = repository.dataset("small").unwrap();
        let validator = WorkerOutputValidator::new(&repository);
        stamps.validate(&validator, dataset, root, began).map(|(_, reading)| reading)
    }

    #[test]
    fn a_settled_entry_is_read_once_and_then_trusted_by_its_stamp() {
        let dir = entry(b"1,2\n3,4\n");
        let stamps = StampedEntries::default();
        assert_eq!(reading(&stamps, dir.path(), later()).unwrap(), Reading::Read);
        assert_eq!(reading(&stamps, dir.path(), later()).unwrap(), Reading::Stamped);
        assert_eq!(reading(&stamps, dir.path(), later()).unwrap(), Reading::Stamped);
    }

    #[test]
    fn an_entry_that_changed_just_now_is_read_every_time() {
        let dir = entry(b"1,2\n3,4\n");
        let stamps = StampedEntries::default();
        assert_eq!(reading(&stamps, dir.path(), SystemTime::now()).unwrap(), Reading::Read);
        assert_eq!(reading(&stamps, dir.path(), SystemTime::now()).unwrap(), Reading::Read);
    }

    /// The attack a stamp must withstand: the same number of bytes written in place, and the modification time
    /// set back to what it was. The ctime moved, so the entry is read again and the change found.
    #[test]
    fn bytes_changed_in_place_with_the_mtime_set_back_are_read_and_refused() {
        let dir = entry(b"1,2\n3,4\n");
        let stamps = StampedEntries::default();
        assert_eq!(reading(&stamps, dir.path(), later()).unwrap(), Reading::Read);
        let file = dir.path().join("x.csv");
        let before = fs::metadata(&file).unwrap().modified().unwrap();
        fs::write(&file, b"9,9\n9,9\n").unwrap();
        fs::File::options().write(true).open(&file).unwrap().set_modified(before).unwrap();
        assert_eq!(fs::metadata(&file).unwrap().modified().unwrap(), before);
        let error = reading(&stamps, dir.path(), later()).expect_err("changed bytes pass as the stamped entry");
        assert!(error.to_string().contains("x.csv"), "{error}");
    }

    #[test]
    fn an_added_file_a_removed_one_and_a_changed_mode_are_each_read_again() {
        let stamps = StampedEntries::default();
        let dir = entry(b"1,2\n3,4\n");
        assert_eq!(reading(&stamps, dir.path(), later()).unwrap(), Reading::Read);
        fs::write(dir.path().join("extra.csv"), b"").unwrap();
        assert!(reading(&stamps, dir.path(), later()).is_err(), "an undeclared file");
        fs::remove_file(dir.path().join("extra.csv")).unwrap();
        assert_eq!(reading(&stamps, dir.path(), later()).unwrap(), Reading::Read);
        assert_eq!(reading(&stamps, dir.path(), later()).unwrap(), Reading::Stamped);
        fs::set_permissions(dir.path().join("x.csv"), fs::Permissions::from_mode(0o400)).unwrap();
        assert_eq!(reading(&stamps, dir.path(), later()).unwrap(), Reading::Read);
        fs::remove_file(dir.path().join("x.csv")).unwrap();
        assert!(reading(&stamps, dir.path(), later()).is_err(), "a declared file is missing");
    }

    /// Another folder put at the entry's path (as a run that rebuilds an evicted entry does) has other inodes.
    #[test]
    fn a_folder_replaced_by_an_identical_copy_is_read_again() {
        let stamps = StampedEntries::default();
        let parent = tempfile::tempdir().unwrap();
        let root = parent.path().join("entry");
        fs::rename(entry(b"1,2\n").keep(), &root).unwrap();
        assert_eq!(reading(&stamps, &root, later()).unwrap(), Reading::Read);
        assert_eq!(reading(&stamps, &root, later()).unwrap(), Reading::Stamped);
        fs::rename(&root, parent.path().join("old")).unwrap();
        fs::rename(entry(b"1,2\n").keep(), &root).unwrap();
        assert_eq!(reading(&stamps, &root, later()).unwrap(), Reading::Read);
    }
}
