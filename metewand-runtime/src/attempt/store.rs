//! The attempt's filesystem: private copies of worker sources, the content-addressed dataset store (staging,
//! publication by rename, read-only entries, eviction, cleaning of leftover staging folders), and random names.

use std::fs;
use std::io::{self, Read};
use std::os::fd::OwnedFd;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use rustix::fs::{FlockOperation, Mode, OFlags, RenameFlags};

use crate::files::Sha256Digest;
use crate::identity::{SourceFile, SourceTree};
use crate::repository::Worker;

/// The prefix of every staging (and evicted) folder in `datasets/`; such a folder is never used as a dataset.
pub const STAGING_PREFIX: &str = ".tmp-";

/// `n` random bytes from the kernel, as lowercase hexadecimal.
pub fn random_hex(n: usize) -> io::Result<String> {
    let mut bytes = vec![0u8; n];
    fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
}

/// Copies a worker's source files into `target` (which must not exist) and checks that the copy's tree has the
/// digest the repository was checked with: a source changed since the check is an error, never a silent drift.
pub fn copy_source(worker: &Worker, target: &Path) -> io::Result<()> {
    fs::create_dir(target)?;
    let mut copied = Vec::new();
    for file in worker.source_tree().files() {
        let from = worker.source_path().join(&file.path);
        let to = target.join(&file.path);
        if let Some(parent) = to.parent() {
            fs::create_dir_all(parent)?;
        }
        let bytes = fs::read(&from)?;
        fs::write(&to, &bytes)?;
        let mode = fs::metadata(&from)?.permissions().mode() & 0o755;
        fs::set_permissions(&to, fs::Permissions::from_mode(mode | 0o600))?;
        copied.push(SourceFile { path: file.path.clone(), size: bytes.len() as u64, sha256: Sha256Digest::of(&bytes) });
    }
    let tree = SourceTree::new(copied);
    if tree.digest() != worker.source_tree().digest() {
        return Err(io::Error::other(format!(
            "the source of worker {:?} changed since the repository was checked (now {}, checked {})",
            worker.name(),
            tree.digest(),
            worker.source_tree().digest()
        )));
    }
    Ok(())
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
    pub fn create(datasets: &Path) -> io::Result<Staging> {
        loop {
            let path = datasets.join(format!("{STAGING_PREFIX}{}", random_hex(8)?));
            fs::create_dir(&path)?;
            let lock = open_dir(&path)?;
            rustix::fs::flock(&lock, FlockOperation::LockExclusive)?;
            // A cleaner may have taken the folder between its creation and the lock: start again if so.
            if rustix::fs::fstat(&lock)?.st_nlink > 0 {
                return Ok(Staging { path, _lock: lock });
            }
        }
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

fn open_dir(path: &Path) -> io::Result<OwnedFd> {
    Ok(rustix::fs::open(path, OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC, Mode::empty())?)
}

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
            fs::remove_file(&path)?;
            continue;
        }
        let Ok(lock) = open_dir(&path) else { continue };
        if rustix::fs::flock(&lock, FlockOperation::NonBlockingLockExclusive).is_ok() {
            remove_tree(&path)?;
        }
    }
    Ok(())
}

/// Publishes a validated staging folder as `datasets/<key>`: made read-only, then renamed into place only if the
/// key is still absent. Returns `false` (and removes the staging folder) when another run published it first.
pub fn publish(staging: Staging, entry: &Path) -> io::Result<bool> {
    set_read_only(staging.path(), true)?;
    let result =
        rustix::fs::renameat_with(rustix::fs::CWD, staging.path(), rustix::fs::CWD, entry, RenameFlags::NOREPLACE);
    match result {
        Ok(()) => Ok(true),
        Err(rustix::io::Errno::EXIST) => {
            remove_tree(staging.path())?;
            Ok(false)
        }
        Err(error) => Err(error.into()),
    }
}

/// Takes a store entry out of the store at once (a rename to a staging name) and then deletes it.
pub fn evict(datasets: &Path, entry: &Path) -> io::Result<()> {
    let away = datasets.join(format!("{STAGING_PREFIX}evicted-{}", random_hex(8)?));
    match fs::rename(entry, &away) {
        Ok(()) => remove_tree(&away),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(error),
    }
}

/// Deletes a tree whose folders may have been made read-only (by publication, or by a worker).
pub fn remove_tree(path: &Path) -> io::Result<()> {
    set_read_only(path, false)?;
    match fs::remove_dir_all(path) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

/// Makes every folder and regular file under `path` read-only (or writable by its owner again), without
/// following links. Something that disappears meanwhile (a concurrent run removing the same leftover) is skipped.
fn set_read_only(path: &Path, read_only: bool) -> io::Result<()> {
    match set_read_only_strict(path, read_only) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

fn set_read_only_strict(path: &Path, read_only: bool) -> io::Result<()> {
    let metadata = match fs::symlink_metadata(path) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(error),
    };
    let mode = metadata.permissions().mode();
    if metadata.is_dir() {
        if !read_only {
            fs::set_permissions(path, fs::Permissions::from_mode(mode | 0o700))?;
        }
        for entry in fs::read_dir(path)? {
            set_read_only(&entry?.path(), read_only)?;
        }
        if read_only {
            fs::set_permissions(path, fs::Permissions::from_mode(mode & 0o555))?;
        }
    } else if metadata.is_file() && read_only {
        fs::set_permissions(path, fs::Permissions::from_mode(mode & 0o444))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> =
            fs::read_dir(dir).unwrap().map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    }

    #[test]
    fn a_locked_staging_folder_survives_cleaning_and_a_leftover_does_not() {
        let datasets = tempfile::tempdir().unwrap();
        let live = Staging::create(datasets.path()).unwrap();
        fs::write(live.path().join("half.csv"), "1,").unwrap();
        let leftover = datasets.path().join(format!("{STAGING_PREFIX}leftover"));
        fs::create_dir_all(leftover.join("sub")).unwrap();
        fs::write(leftover.join("sub/file"), "x").unwrap();
        set_read_only(&leftover, true).unwrap();
        clean_leftovers(datasets.path()).unwrap();
        assert_eq!(names(datasets.path()), vec![live.path().file_name().unwrap().to_string_lossy().into_owned()]);
        let live_path = live.path().to_owned();
        drop(live);
        clean_leftovers(datasets.path()).unwrap();
        assert!(!live_path.exists(), "an unlocked staging folder is a leftover");
    }

    #[test]
    fn publishing_never_replaces_an_entry_and_eviction_removes_a_read_only_one() {
        let datasets = tempfile::tempdir().unwrap();
        let entry = datasets.path().join("key");
        let first = Staging::create(datasets.path()).unwrap();
        fs::write(first.path().join("data"), "first").unwrap();
        assert!(publish(first, &entry).unwrap());
        assert!(fs::metadata(entry.join("data")).unwrap().permissions().readonly());
        assert!(fs::metadata(&entry).unwrap().permissions().readonly());
        let second = Staging::create(datasets.path()).unwrap();
        fs::write(second.path().join("data"), "second").unwrap();
        assert!(!publish(second, &entry).unwrap(), "a concurrent winner is kept");
        assert_eq!(fs::read_to_string(entry.join("data")).unwrap(), "first");
        assert_eq!(names(datasets.path()), vec!["key".to_owned()], "the loser's staging folder is removed");
        evict(datasets.path(), &entry).unwrap();
        assert!(names(datasets.path()).is_empty());
    }
}
