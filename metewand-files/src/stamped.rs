//! Trees this process has read, and the stamps that let it trust what it found without reading them again.
//!
//! The executor reads a tree of the state folder in full each time it uses it: a dataset entry before an attempt's
//! first session and again after each session that could see it (three readings of every byte per attempt, which for
//! a dataset of gigabytes is seconds of every attempt), a worker's source copy before each session. So, as the
//! campaign index does for records (and `git` for its index), a reading remembers the stamp the tree had just before
//! it was read (every entry's inode, type and mode, size, ctime and mtime, the root's too), and a later reading that
//! finds the same stamp takes the remembered answer without reading a byte.
//!
//! Why a stamp is enough: every change to a file's bytes, links or mode, and every entry added to, removed from or
//! renamed in a folder, moves the ctime of what it changes, and no process sets a ctime back short of setting the
//! clock back. Only a tree whose every entry last changed [`SETTLED`] before the stamp was taken is remembered: the
//! margin is wider than any filesystem's timestamp granularity, so a change made after the stamp cannot leave the
//! ctime the stamp names. A younger tree is read every time until a reading finds it settled. The stamp is taken
//! before the reading, so a change during the reading moves a ctime past it too.
//!
//! Limit: a process that mapped a file of the tree shared and writable before the stamp was taken could change bytes
//! of a page it had already dirtied without moving the ctime until the page is written back. Workers cannot: the
//! state folder is read-only in their view (a held session has one), and a session's processes end with it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use super::walk::{TreeStamp, stamp_tree};

/// How long before a reading began a file must have last changed for its stamp to be trusted (here every entry of a
/// tree; in the campaign index a record): longer than the timestamp granularity of any filesystem and the clock skew
/// between hosts that share a folder, so that a change after the stamp was taken cannot leave the ctime it names.
pub const SETTLED: Duration = Duration::from_secs(5);

/// The most trees remembered; past it, the memory starts again (a campaign uses its datasets in turn).
const MAX_REMEMBERED: usize = 256;

/// What readings found, by the tree's path, each with the stamp the tree had just before it was read.
pub struct Stamped<T> {
    entries: Mutex<BTreeMap<PathBuf, (TreeStamp, T)>>,
}

/// How an answer was had.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// The tree was read.
    Read,
    /// The tree had the stamp of an earlier reading, whose answer this is.
    Stamped,
}

impl<T: Clone> Default for Stamped<T> {
    fn default() -> Stamped<T> {
        Stamped::new()
    }
}

impl<T: Clone> Stamped<T> {
    /// Remembers nothing yet.
    pub const fn new() -> Stamped<T> {
        Stamped { entries: Mutex::new(BTreeMap::new()) }
    }

    /// The answer of `read` for the tree at `root`: remembered, when the tree still has the stamp of a settled
    /// reading whose answer `keep` accepted; otherwise `read` reads it, and its answer is remembered if `keep`
    /// accepts it and the tree had settled by `began`, when this reading began (now, outside tests). A tree the
    /// walk refuses (a link, a special file) is left to `read`, which says why.
    pub fn read<E>(
        &self,
        root: &Path,
        began: SystemTime,
        read: impl FnOnce() -> Result<T, E>,
        keep: impl FnOnce(&T) -> bool,
    ) -> Result<(T, Reading), E> {
        let stamp = stamp_tree(root).ok();
        if let Some(stamp) = &stamp {
            let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some((known, answer)) = entries.get(root)
                && known == stamp
            {
                return Ok((answer.clone(), Reading::Stamped));
            }
        }
        let answer = read();
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        match (&answer, stamp) {
            (Ok(answer), Some(stamp))
                if keep(answer) && began.checked_sub(SETTLED).is_some_and(|at| stamp.changed_before(at)) =>
            {
                if entries.len() >= MAX_REMEMBERED {
                    entries.clear();
                }
                entries.insert(root.to_owned(), (stamp, answer.clone()));
            }
            _ => {
                entries.remove(root);
            }
        }
        answer.map(|answer| (answer, Reading::Read))
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, reason = "tests make and read their own files in temporary folders")]
mod tests {
    use std::fs;
    use std::os::unix::fs::PermissionsExt;
    use std::time::SystemTime;

    use super::*;

    /// A tree of one file and a folder of another.
    fn tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("x.csv"), b"1,2\n3,4\n").unwrap();
        fs::create_dir(dir.path().join("part")).unwrap();
        fs::write(dir.path().join("part/y.bin"), b"\x00\x01").unwrap();
        dir
    }

    /// A moment at which everything written just now has settled.
    fn later() -> SystemTime {
        SystemTime::now() + 2 * SETTLED
    }

    /// Whether the tree at `root` was read, its answer being its files' bytes in order.
    fn reading(stamps: &Stamped<Vec<u8>>, root: &Path, began: SystemTime) -> (Vec<u8>, Reading) {
        let read = || -> Result<Vec<u8>, std::io::Error> {
            let mut bytes = fs::read(root.join("x.csv"))?;
            bytes.extend(fs::read(root.join("part/y.bin"))?);
            Ok(bytes)
        };
        stamps.read(root, began, read, |_| true).unwrap()
    }

    #[test]
    fn a_settled_tree_is_read_once_and_then_trusted_by_its_stamp() {
        let dir = tree();
        let stamps = Stamped::new();
        assert_eq!(reading(&stamps, dir.path(), later()).1, Reading::Read);
        assert_eq!(reading(&stamps, dir.path(), later()), (b"1,2\n3,4\n\x00\x01".to_vec(), Reading::Stamped));
    }

    #[test]
    fn a_tree_that_changed_just_now_is_read_every_time() {
        let dir = tree();
        let stamps = Stamped::new();
        assert_eq!(reading(&stamps, dir.path(), SystemTime::now()).1, Reading::Read);
        assert_eq!(reading(&stamps, dir.path(), SystemTime::now()).1, Reading::Read);
    }

    #[test]
    fn an_answer_that_is_not_kept_is_read_again() {
        let dir = tree();
        let stamps = Stamped::<u8>::new();
        for _ in 0..2 {
            let answer = stamps.read(dir.path(), later(), || Ok::<u8, ()>(1), |_| false).unwrap();
            assert_eq!(answer, (1, Reading::Read));
        }
    }

    /// The attack a stamp must withstand: the same number of bytes written in place, and the modification time
    /// set back to what it was. The ctime moved, so the tree is read again and the new bytes are what is found.
    #[test]
    fn bytes_changed_in_place_with_the_mtime_set_back_are_read_again() {
        let dir = tree();
        let stamps = Stamped::new();
        assert_eq!(reading(&stamps, dir.path(), later()).1, Reading::Read);
        let file = dir.path().join("part/y.bin");
        let before = fs::metadata(&file).unwrap().modified().unwrap();
        fs::write(&file, b"\x07\x07").unwrap();
        fs::File::options().write(true).open(&file).unwrap().set_modified(before).unwrap();
        assert_eq!(fs::metadata(&file).unwrap().modified().unwrap(), before);
        assert_eq!(reading(&stamps, dir.path(), later()), (b"1,2\n3,4\n\x07\x07".to_vec(), Reading::Read));
    }

    #[test]
    fn an_added_file_a_removed_one_and_a_changed_mode_are_each_read_again() {
        let dir = tree();
        let stamps = Stamped::new();
        assert_eq!(reading(&stamps, dir.path(), later()).1, Reading::Read);
        fs::write(dir.path().join("part/extra"), b"").unwrap();
        assert_eq!(reading(&stamps, dir.path(), later()).1, Reading::Read);
        assert_eq!(reading(&stamps, dir.path(), later()).1, Reading::Stamped);
        fs::remove_file(dir.path().join("part/extra")).unwrap();
        assert_eq!(reading(&stamps, dir.path(), later()).1, Reading::Read);
        assert_eq!(reading(&stamps, dir.path(), later()).1, Reading::Stamped);
        fs::set_permissions(dir.path().join("x.csv"), fs::Permissions::from_mode(0o400)).unwrap();
        assert_eq!(reading(&stamps, dir.path(), later()).1, Reading::Read);
    }

    /// Another folder put at the tree's path (as a run that rebuilds an evicted entry does) has other inodes.
    #[test]
    fn a_folder_replaced_by_an_identical_copy_is_read_again() {
        let stamps = Stamped::new();
        let parent = tempfile::tempdir().unwrap();
        let root = parent.path().join("entry");
        fs::rename(tree().keep(), &root).unwrap();
        assert_eq!(reading(&stamps, &root, later()).1, Reading::Read);
        assert_eq!(reading(&stamps, &root, later()).1, Reading::Stamped);
        fs::rename(&root, parent.path().join("old")).unwrap();
        fs::rename(tree().keep(), &root).unwrap();
        assert_eq!(reading(&stamps, &root, later()).1, Reading::Read);
    }
}
