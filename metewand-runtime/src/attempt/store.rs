//! The attempt's filesystem: the content-addressed dataset store (staging, publication by rename beside an
//! executor-owned `.published` record, read-only entries, eviction, cleaning of leftover staging folders), and
//! random names; private copies of worker sources are `source.rs`'s.
//!
//! The store `datasets/` holds, per key, the entry folder `<key>/` and the executor's record `<key>.published`
//! ([`DatasetPublished`]): the inventory the executor validated when it published the entry, the materializer's resolved
//! identity and the time. An entry is reused only when it validates and its inventory equals its record; an entry
//! without a valid record is never reused. Every change to the pair (publication, eviction) and every reading of
//! it happens under an exclusive `flock` of the `datasets/` folder, waited for in short non-blocking attempts that
//! a cancel flag ends and [`LOCK_LIMIT`] bounds, and held only for renames and the small record's write.

use std::fs;
use std::io::{self, Read, Write};
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime};

use metewand_protocol::common::{Format, WorkerId};
use metewand_protocol::generated::dataset_published::DatasetPublished;
use rustix::fs::{FlockOperation, RenameFlags};

use super::record::file_record;
use crate::files::tree::make_read_only;
use crate::files::walk::open_root;
use crate::files::{Dir, FsError};
use crate::validate::ValidatedDataset;

/// The prefix of every staging (and evicted) folder in `datasets/`; such a folder is never used as a dataset.
pub const STAGING_PREFIX: &str = ".tmp-";

/// `n` random bytes from the kernel, as lowercase hexadecimal.
pub fn random_hex(n: usize) -> io::Result<String> {
    let mut bytes = vec![0u8; n];
    #[allow(clippy::disallowed_methods, reason = "a kernel device at a fixed path")]
    fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
}

/// A staging folder `datasets/.tmp-<random>/`, locked (`flock`) for as long as this value lives so that a
/// concurrent run's cleaning never takes it for a leftover.
#[derive(Debug)]
pub struct Staging {
    path: PathBuf,
    _lock: OwnedFd,
}

impl Staging {
    /// Creates and locks a fresh staging folder in `datasets`.
    ///
    /// Until it is locked, the new folder looks like a leftover to any run's [`clean_leftovers`] (another
    /// materialization of the same campaign cleans the store as it starts), which may remove it before it is
    /// opened or after: either way a new folder is made, [`STAGING_ROUNDS`] times at most.
    pub fn create(datasets: &Path) -> io::Result<Staging> {
        for _ in 0..STAGING_ROUNDS {
            let path = datasets.join(format!("{STAGING_PREFIX}{}", random_hex(8)?));
            fs::create_dir(&path)?;
            let lock = match open_root(&path) {
                Ok(lock) => lock,
                Err(error) if error.kind() == io::ErrorKind::NotFound => continue,
                Err(error) => return Err(error),
            };
            rustix::fs::flock(&lock, FlockOperation::LockExclusive)?;
            if rustix::fs::fstat(&lock)?.st_nlink > 0 {
                return Ok(Staging { path, _lock: lock });
            }
        }
        Err(io::Error::other(format!(
            "{STAGING_ROUNDS} staging folders made in {} in a row were removed by other runs before they could be \
             locked",
            datasets.display()
        )))
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// How many staging folders in a row [`Staging::create`] makes before giving up, each having been taken by a
/// concurrent cleaning before it was locked: far more than concurrent runs ever take.
const STAGING_ROUNDS: usize = 100;

/// Removes every `.tmp-*` folder in `datasets` that no live run holds locked (leftovers of an interrupted run).
pub fn clean_leftovers(datasets: &Path) -> io::Result<()> {
    let entries = match fs::read_dir(datasets) {
        Ok(entries) => entries,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(error),
    };
    for entry in entries {
        let entry = entry?;
        if !entry.file_name().to_string_lossy().starts_with(STAGING_PREFIX) {
            continue;
        }
        let path = entry.path();
        if !entry.file_type()?.is_dir() {
            // Another run's cleaning may have removed it first.
            match fs::remove_file(&path) {
                Ok(()) => {}
                Err(error) if error.kind() == io::ErrorKind::NotFound => {}
                Err(error) => return Err(error),
            }
            continue;
        }
        let Ok(lock) = open_root(&path) else { continue };
        if rustix::fs::flock(&lock, FlockOperation::NonBlockingLockExclusive).is_ok() {
            remove_tree(&path)?;
        }
    }
    Ok(())
}

/// How long the store lock is waited for before the store is reported as locked (by a hung or hostile process:
/// the executor itself holds it only for renames and the record's write).
pub const LOCK_LIMIT: Duration = Duration::from_secs(30);

/// The suffix of an entry's record beside it: `datasets/<key>.published`.
pub const PUBLISHED_SUFFIX: &str = ".published";

/// The record of `dataset`, validated in staging, to be published as `key` by `materializer`.
pub fn published(
    key: crate::identity::DatasetKey,
    dataset: &ValidatedDataset,
    materializer: &WorkerId,
    at: SystemTime,
) -> DatasetPublished {
    DatasetPublished {
        format: Format,
        key,
        files: dataset.files().iter().map(file_record).collect(),
        manifest: file_record(dataset.manifest_file()),
        materializer: materializer.clone(),
        materialized_at: super::timestamp(at),
    }
}

/// Whether `dataset` (validated from the entry) has exactly `record`'s inventory.
pub fn matches(record: &DatasetPublished, dataset: &ValidatedDataset) -> bool {
    record.files.len() == dataset.files().len()
        && record.files.iter().zip(dataset.files()).all(|(recorded, file)| *recorded == file_record(file))
        && record.manifest == file_record(dataset.manifest_file())
}

fn record_bytes(record: &DatasetPublished) -> Vec<u8> {
    metewand_protocol::to_canonical_vec(&serde_json::to_value(record).expect("a record always serializes"))
}

/// A record read from disk: it must be valid (format 1 included), for `key`, and in its own canonical form.
fn parse_record(bytes: &[u8], key: &str) -> Option<DatasetPublished> {
    let record: DatasetPublished = serde_json::from_slice(bytes).ok()?;
    (record.key.to_string() == key && record_bytes(&record) == bytes).then_some(record)
}

/// Why the store could not be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A filesystem operation failed or met an unexpected entry.
    #[error(transparent)]
    Fs(#[from] FsError),
    /// Another process held the store's lock for longer than [`LOCK_LIMIT`].
    #[error("the dataset store {} stayed locked for {LOCK_LIMIT:?}", path.display())]
    Locked {
        /// The store folder.
        path: PathBuf,
    },
    /// The cancel flag was set while waiting for the store's lock.
    #[error("cancelled while waiting for the dataset store's lock")]
    Cancelled,
}

/// An entry found in the store: its folder, held open, and its record when a valid one is beside it.
#[derive(Debug)]
pub struct Found {
    /// The entry folder, opened without following links.
    pub dir: Dir,
    /// The record `<key>.published`, if it is a valid record for this key.
    pub record: Option<DatasetPublished>,
}

/// What [`Store::publish`] did.
#[derive(Debug)]
pub enum Publication {
    /// The staging folder is now the entry, beside its record.
    Published,
    /// Another run published the key first (an entry with a valid record is there); the staging folder is gone.
    Exists,
}

/// The dataset store `datasets/`, held open.
#[derive(Debug)]
pub struct Store {
    dir: Dir,
    cancel: Option<&'static AtomicBool>,
}

/// The store's exclusive lock, released when dropped.
struct StoreLock<'s>(&'s Dir);

impl Drop for StoreLock<'_> {
    fn drop(&mut self) {
        let _ = rustix::fs::flock(self.0, FlockOperation::Unlock);
    }
}

impl Store {
    /// Opens (creating it if needed) the store folder `datasets`.
    pub fn open(datasets: &Path, cancel: Option<&'static AtomicBool>) -> Result<Store, StoreError> {
        fs::create_dir_all(datasets).map_err(|source| FsError::Io {
            action: "create the folder",
            path: datasets.to_owned(),
            source,
        })?;
        Ok(Store { dir: Dir::open(datasets)?, cancel })
    }

    /// The store folder.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    fn lock(&self) -> Result<StoreLock<'_>, StoreError> {
        self.lock_within(LOCK_LIMIT)
    }

    fn lock_within(&self, limit: Duration) -> Result<StoreLock<'_>, StoreError> {
        let started = Instant::now();
        loop {
            match rustix::fs::flock(&self.dir, FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => return Ok(StoreLock(&self.dir)),
                Err(rustix::io::Errno::WOULDBLOCK | rustix::io::Errno::INTR) => {}
                Err(error) => {
                    return Err(
                        FsError::Io { action: "lock", path: self.path().to_owned(), source: error.into() }.into()
                    );
                }
            }
            if self.cancel.is_some_and(|flag| flag.load(Ordering::SeqCst)) {
                return Err(StoreError::Cancelled);
            }
            if started.elapsed() > limit {
                return Err(StoreError::Locked { path: self.path().to_owned() });
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// The entry published as `key`, if there is one, with its record when a valid one is beside it. Something at
    /// the key that is not a folder (a link planted there) is taken out of the store and reported as absent.
    pub fn lookup(&self, key: &str) -> Result<Option<Found>, StoreError> {
        let _lock = self.lock()?;
        if self.dir.entry(key)?.is_none() {
            return Ok(None);
        }
        let dir = match Dir::open(&self.dir.join(key)) {
            Ok(dir) => dir,
            Err(FsError::Unexpected { .. }) => {
                let away = self.take_out(key)?;
                drop(_lock);
                remove_entry(&away)?;
                return Ok(None);
            }
            Err(error) => return Err(error.into()),
        };
        Ok(Some(Found { dir, record: self.read_record(key) }))
    }

    /// The valid record of `key`, if one is there; anything else (missing, unreadable, a link, not canonical,
    /// for another key) is no record.
    fn read_record(&self, key: &str) -> Option<DatasetPublished> {
        let mut file = self.dir.open_file(&format!("{key}{PUBLISHED_SUFFIX}")).ok()??;
        let bytes = crate::document::read_document(&mut file).ok()?;
        parse_record(&bytes, key)
    }

    /// Publishes a validated staging folder as `key` beside `record`: the record is written first (exclusively,
    /// in a locked staging folder of its own, synced, then renamed beside the key), then the staging folder is
    /// made read-only and renamed to the key, all under the store lock, so no reader ever sees an entry without
    /// its record. An entry already there with a valid record is a concurrent winner ([`Publication::Exists`]);
    /// one without is evicted first; a stale record without an entry is replaced.
    pub fn publish(&self, staging: Staging, key: &str, record: &DatasetPublished) -> Result<Publication, StoreError> {
        let record_name = format!("{key}{PUBLISHED_SUFFIX}");
        let holder = Staging::create(self.path()).map_err(|source| FsError::Io {
            action: "create a staging folder in",
            path: self.path().to_owned(),
            source,
        })?;
        let holder_dir = Dir::open(holder.path())?;
        let written = (|| {
            let mut file = holder_dir.create_file("published")?;
            let io = |source| FsError::Io { action: "write", path: holder_dir.join("published"), source };
            file.write_all(&record_bytes(record)).map_err(io)?;
            file.sync_all().map_err(io)
        })();
        let outcome = written.map_err(StoreError::from).and_then(|()| {
            // Outside the lock, which is held only for renames and the record: the staging folder is this run's
            // alone, and a large dataset's walk would keep other runs waiting.
            make_read_only(staging.path()).map_err(|source| FsError::Io {
                action: "make read-only",
                path: staging.path().to_owned(),
                source,
            })?;
            let lock = self.lock()?;
            let mut evicted = None;
            if self.dir.entry(key)?.is_some() {
                if self.read_record(key).is_some() {
                    return Ok((Publication::Exists, None));
                }
                evicted = Some(self.take_out(key)?);
            }
            self.dir.remove_file(&record_name)?;
            let holder_name = name_of(holder.path());
            rustix::fs::renameat_with(
                &holder_dir,
                "published",
                &self.dir,
                record_name.as_str(),
                RenameFlags::NOREPLACE,
            )
            .map_err(|error| FsError::Io {
                action: "rename",
                path: self.dir.join(&holder_name).join("published"),
                source: error.into(),
            })?;
            let renamed = self.dir.rename_new(&name_of(staging.path()), key);
            if renamed.is_err() {
                let _ = self.dir.remove_file(&record_name);
            }
            renamed?;
            self.dir.sync()?;
            drop(lock);
            Ok((Publication::Published, evicted))
        });
        let _ = remove_tree(holder.path());
        drop(holder);
        let (publication, evicted) = match outcome {
            Ok(done) => done,
            Err(error) => {
                let _ = remove_tree(staging.path());
                return Err(error);
            }
        };
        if let Publication::Exists = publication {
            remove_entry(staging.path())?;
        }
        if let Some(away) = evicted {
            remove_entry(&away)?;
        }
        Ok(publication)
    }

    /// Takes the entry `key` out of the store with its record, if `held` (when given) is still the folder there:
    /// a rename to a staging name under the lock, so the key disappears at once, then deletion. Returns whether
    /// this call evicted it (`false`: already gone, or replaced since it was opened, which is left alone).
    pub fn evict(&self, key: &str, held: Option<&Dir>) -> Result<bool, StoreError> {
        let lock = self.lock()?;
        if self.dir.entry(key)?.is_none() || held.is_some_and(|dir| !dir.is_at(&self.dir.join(key))) {
            return Ok(false);
        }
        let away = self.take_out(key)?;
        drop(lock);
        remove_entry(&away)?;
        Ok(true)
    }

    /// Under the lock: renames the entry away and removes its record; returns where the entry went.
    fn take_out(&self, key: &str) -> Result<PathBuf, StoreError> {
        let away = format!(
            "{STAGING_PREFIX}evicted-{}",
            random_hex(8).map_err(|source| FsError::Io {
                action: "draw a random name in",
                path: self.path().to_owned(),
                source,
            })?
        );
        match self.dir.rename_new(key, &away) {
            Ok(()) => {}
            Err(FsError::Io { source, .. }) if source.kind() == io::ErrorKind::NotFound => {}
            Err(error) => return Err(error.into()),
        }
        self.dir.remove_file(&format!("{key}{PUBLISHED_SUFFIX}"))?;
        self.dir.sync()?;
        Ok(self.dir.join(&away))
    }
}

fn name_of(path: &Path) -> String {
    path.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default()
}

/// Deletes a tree a worker may have made (folders made read-only, by publication or by the worker, links, a
/// nesting deeper than any path can name), never following a link; a missing path is not an error. See
/// [`crate::files::tree`].
pub fn remove_tree(path: &Path) -> io::Result<()> {
    crate::files::tree::remove_tree(path)
}

/// [`remove_tree`], with the path in the error.
fn remove_entry(path: &Path) -> Result<(), FsError> {
    remove_tree(path).map_err(|source| FsError::Io { action: "remove", path: path.to_owned(), source })
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, reason = "tests make and read their own files in temporary folders")]
mod tests {
    use metewand_protocol::common::FileRecord;

    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> =
            fs::read_dir(dir).unwrap().map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    }

    #[test]
    fn a_store_locked_by_another_process_is_given_up_after_the_limit_or_at_cancel() {
        static CANCEL: AtomicBool = AtomicBool::new(false);
        let state = tempfile::tempdir().unwrap();
        let store = Store::open(&state.path().join("datasets"), Some(&CANCEL)).unwrap();
        // Another open file description of the folder: flock treats it as another holder, as another process is.
        let other = Dir::open(store.path()).unwrap();
        rustix::fs::flock(&other, FlockOperation::NonBlockingLockExclusive).unwrap();
        let error = store.lock_within(Duration::from_millis(50)).err().expect("the lock is held elsewhere");
        assert!(matches!(&error, StoreError::Locked { path } if path == store.path()), "{error}");
        assert!(error.to_string().contains("stayed locked"), "{error}");
        CANCEL.store(true, Ordering::SeqCst);
        assert!(matches!(store.lookup(KEY), Err(StoreError::Cancelled)), "the cancel flag ends the wait");
        CANCEL.store(false, Ordering::SeqCst);
        rustix::fs::flock(&other, FlockOperation::Unlock).unwrap();
        assert!(store.lookup(KEY).unwrap().is_none(), "once released, the store is read");
    }

    #[test]
    fn a_locked_staging_folder_survives_cleaning_and_a_leftover_does_not() {
        let datasets = tempfile::tempdir().unwrap();
        let live = Staging::create(datasets.path()).unwrap();
        fs::write(live.path().join("half.csv"), "1,").unwrap();
        let leftover = datasets.path().join(format!("{STAGING_PREFIX}leftover"));
        fs::create_dir_all(leftover.join("sub")).unwrap();
        fs::write(leftover.join("sub/file"), "x").unwrap();
        make_read_only(&leftover).unwrap();
        clean_leftovers(datasets.path()).unwrap();
        assert_eq!(names(datasets.path()), vec![live.path().file_name().unwrap().to_string_lossy().into_owned()]);
        let live_path = live.path().to_owned();
        drop(live);
        clean_leftovers(datasets.path()).unwrap();
        assert!(!live_path.exists(), "an unlocked staging folder is a leftover");
    }

    #[test]
    fn a_staging_folder_taken_by_a_concurrent_cleaner_before_it_was_opened_is_made_again() {
        // Other runs' cleaning (the other materializations of a campaign) sees every unlocked `.tmp-*` folder as a
        // leftover, the one just created and not yet opened included: creation starts again, it never fails.
        let datasets = tempfile::tempdir().unwrap();
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let cleaners: Vec<_> = (0..2)
            .map(|_| {
                let (path, stop) = (datasets.path().to_owned(), stop.clone());
                std::thread::spawn(move || {
                    while !stop.load(Ordering::SeqCst) {
                        clean_leftovers(&path).unwrap();
                    }
                })
            })
            .collect();
        let until = Instant::now() + Duration::from_secs(1);
        let mut created = 0;
        while Instant::now() < until {
            let staging = Staging::create(datasets.path());
            let staging = staging.unwrap_or_else(|e| panic!("creation {created} raced with a cleaner: {e}"));
            assert!(staging.path().is_dir(), "a created staging folder is there while it is held");
            let path = staging.path().to_owned();
            drop(staging);
            // Released, it is a leftover: the cleaners take it before the next one is made, so that they are
            // always watching for the next one.
            while path.exists() && !cleaners.iter().any(|cleaner| cleaner.is_finished()) {
                std::thread::yield_now();
            }
            created += 1;
        }
        stop.store(true, Ordering::SeqCst);
        for cleaner in cleaners {
            cleaner.join().unwrap();
        }
        assert!(created > 0);
    }

    /// A dataset key, as the store names entries.
    const KEY: &str = "0d21d8799738e84dde139ec9037c63f3d812766d36edd17e42ac46a868140870";

    fn record(key: &str) -> DatasetPublished {
        let file: FileRecord =
            serde_json::from_value(serde_json::json!({"path": "data", "sha256": "00".repeat(32), "size": 5})).unwrap();
        DatasetPublished {
            format: Format,
            key: key.parse().unwrap(),
            files: vec![file.clone()],
            manifest: file,
            materializer: format!("mw1-resolved-worker-{}", "00".repeat(32)).parse().unwrap(),
            materialized_at: "2026-12-01T00:00:00.000000000Z".parse().unwrap(),
        }
    }

    #[test]
    fn publishing_never_replaces_an_entry_and_eviction_removes_a_read_only_one() {
        let datasets = tempfile::tempdir().unwrap();
        let store = Store::open(datasets.path(), None).unwrap();
        let entry = datasets.path().join(KEY);
        let first = Staging::create(datasets.path()).unwrap();
        fs::write(first.path().join("data"), "first").unwrap();
        assert!(matches!(store.publish(first, KEY, &record(KEY)).unwrap(), Publication::Published));
        assert!(fs::metadata(entry.join("data")).unwrap().permissions().readonly());
        assert!(fs::metadata(&entry).unwrap().permissions().readonly());
        let found = store.lookup(KEY).unwrap().unwrap();
        assert_eq!(found.record, Some(record(KEY)), "the record is beside the entry");
        let second = Staging::create(datasets.path()).unwrap();
        fs::write(second.path().join("data"), "second").unwrap();
        assert!(matches!(store.publish(second, KEY, &record(KEY)).unwrap(), Publication::Exists));
        assert_eq!(fs::read_to_string(entry.join("data")).unwrap(), "first");
        assert_eq!(names(datasets.path()), vec![KEY.to_owned(), format!("{KEY}.published")]);
        assert!(store.evict(KEY, Some(&found.dir)).unwrap());
        assert!(names(datasets.path()).is_empty(), "the entry and its record are gone");
    }

    #[test]
    fn an_entry_without_a_valid_record_is_replaced_and_a_replaced_entry_is_not_evicted() {
        let datasets = tempfile::tempdir().unwrap();
        let store = Store::open(datasets.path(), None).unwrap();
        fs::create_dir(datasets.path().join(KEY)).unwrap();
        fs::write(datasets.path().join(format!("{KEY}/data")), "forged").unwrap();
        assert_eq!(store.lookup(KEY).unwrap().unwrap().record, None, "a planted entry has no record");
        fs::write(datasets.path().join(format!("{KEY}.published")), b"{\"format\":1}").unwrap();
        assert_eq!(store.lookup(KEY).unwrap().unwrap().record, None, "nor does a malformed record make one");
        let mut other_format = serde_json::to_value(record(KEY)).unwrap();
        other_format["format"] = 2.into();
        fs::write(datasets.path().join(format!("{KEY}.published")), metewand_protocol::to_canonical_vec(&other_format))
            .unwrap();
        assert_eq!(store.lookup(KEY).unwrap().unwrap().record, None, "nor a record of another format");
        fs::write(datasets.path().join(format!("{KEY}.published")), record_bytes(&record(KEY))).unwrap();
        assert_eq!(store.lookup(KEY).unwrap().unwrap().record, Some(record(KEY)), "which differs by its format alone");
        fs::remove_file(datasets.path().join(format!("{KEY}.published"))).unwrap();
        let held = store.lookup(KEY).unwrap().unwrap().dir;
        let staging = Staging::create(datasets.path()).unwrap();
        fs::write(staging.path().join("data"), "built").unwrap();
        assert!(matches!(store.publish(staging, KEY, &record(KEY)).unwrap(), Publication::Published));
        assert_eq!(fs::read_to_string(datasets.path().join(format!("{KEY}/data"))).unwrap(), "built");
        assert!(!store.evict(KEY, Some(&held)).unwrap(), "the held folder is no longer the entry");
        assert_eq!(names(datasets.path()), vec![KEY.to_owned(), format!("{KEY}.published")]);
        // The published entry is read-only: the store removes it, which the temporary folder's own removal cannot
        // do without root.
        assert!(store.evict(KEY, None).unwrap());
        assert_eq!(names(datasets.path()), Vec::<String>::new());
    }
}
