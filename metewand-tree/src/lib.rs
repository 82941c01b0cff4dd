//! Removing a tree, making it read-only, giving it to an owner with the modes Metewand publishes, or measuring what
//! it takes, at any depth and without following a link: for trees a worker made (its `TMPDIR`, its output, a dataset it materialized),
//! which may be nested deeper than any path can name.
//!
//! The walk never builds a path: each folder is opened relative to its parent's descriptor with
//! `O_DIRECTORY | O_NOFOLLOW`, and each entry is removed (`unlinkat`) or changed through a descriptor, so a link
//! is removed or left alone, never followed, and a folder thousands of levels down is reached with no path longer
//! than one name. A folder its owner may not list or change (a worker's `chmod 000`, a published entry's
//! read-only folders) is made `rwx` for its owner before it is emptied.
//!
//! The walk holds the descriptors of at most [`HELD`] folders, the innermost ones of the branch it is in. Deeper
//! than that, the outermost held folder is let go: what it had left to list is kept by name, its device and inode
//! are kept, and when the walk comes back up it is reopened from its child with `openat(child, "..")` and accepted
//! only if it is still that device and inode, so a folder moved meanwhile stops the walk rather than redirecting
//! it. Going back up through `..` rather than down again from the root costs one `openat` per level, where
//! reopening the path from the root would cost the whole depth for each one (quadratic in the depth) and need
//! every name on it.
//!
//! ```
//! use std::fs;
//!
//! let dir = tempfile::tempdir().unwrap();
//! let tree = dir.path().join("output");
//! fs::create_dir_all(tree.join("deep/er")).unwrap();
//! fs::write(tree.join("deep/er/result.json"), "{}").unwrap();
//! std::os::unix::fs::symlink("/etc/passwd", tree.join("link")).unwrap();
//! assert!(metewand_tree::usage(&tree) >= 4 * metewand_tree::LEAST_ENTRY_BYTES);
//! metewand_tree::remove_tree(&tree).unwrap();
//! assert!(!tree.exists());
//! assert!(std::path::Path::new("/etc/passwd").exists(), "the link was removed, not followed");
//! ```

#![forbid(unsafe_code)]

use std::ffi::CString;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::path::Path;

use rustix::fs::{AtFlags, CWD, Dir, FileType, Mode, OFlags};
use rustix::io::Errno;

/// How every folder is opened: never through a link, never kept across an exec.
const DIRECTORY: OFlags = OFlags::RDONLY.union(OFlags::DIRECTORY).union(OFlags::NOFOLLOW).union(OFlags::CLOEXEC);

/// The most folder descriptors one walk holds: far below any descriptor limit, even with several attempts
/// removing trees at once; only a branch deeper than this is ever walked back up through `..`.
const HELD: usize = 32;

/// Why a walk stopped, when no system call failed.
#[derive(Debug, thiserror::Error)]
#[error("a folder of the tree was moved while the tree was walked")]
struct Moved;

/// What a walk does to the tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Goal {
    /// Removes every entry, then the root.
    Remove,
    /// Makes every folder and regular file read-only; files keep their execute bits when `true`.
    ReadOnly(bool),
    /// Adds up what every entry takes (see [`usage`]); a folder its owner may not list is made `rwx` for its
    /// owner, as for removal, so that nothing is hidden from the count.
    Measure,
    /// Gives every entry to an owner (uid and gid; links themselves), and with `publish` gives folders and
    /// regular files the modes Metewand publishes (see [`take_back`]). A regular file with several links is
    /// changed only where it belongs to `worker` (the uid the tree's worker ran as): otherwise it may be another
    /// file's inode, linked in, which validation refuses anyway.
    Own { owner: Option<(u32, u32)>, publish: bool, worker: Option<u32> },
}

/// Deletes the tree at `root` (a folder, or anything else, which is removed itself; a link is removed, never
/// followed). Folders are made writable where needed; a missing `root` is not an error, nor is an entry that
/// disappears meanwhile.
pub fn remove_tree(root: &Path) -> io::Result<()> {
    Walk::new(Goal::Remove).run(root)?;
    match rustix::fs::unlinkat(CWD, root, AtFlags::REMOVEDIR) {
        Ok(()) | Err(Errno::NOENT) => Ok(()),
        Err(error) => Err(error.into()),
    }
}

/// Makes every folder (`r-x` at most) and regular file (`r--` at most) of the tree at `root` read-only, each
/// folder once everything in it is done, never following a link. Something that disappears meanwhile is skipped.
pub fn make_read_only(root: &Path) -> io::Result<()> {
    Walk::new(Goal::ReadOnly(false)).run(root)
}

/// Like [`make_read_only`], but a regular file keeps its execute bits (`r-x` at most): for source copies, whose
/// execute bits are part of their digest.
pub fn make_read_only_keeping_execute(root: &Path) -> io::Result<()> {
    Walk::new(Goal::ReadOnly(true)).run(root)
}

/// Gives every entry of the tree at `root`, the root included, to `uid` and `gid` (a link itself, never what it
/// points to): the executor's own fresh folders, handed to the identity a worker runs as for its session.
pub fn hand_over(root: &Path, uid: u32, gid: u32) -> io::Result<()> {
    Walk::new(Goal::Own { owner: Some((uid, gid)), publish: false, worker: None }).run(root)
}

/// Takes a worker's tree back once none of its processes is left: where the worker ran as another identity
/// (`worker`, its uid), every entry is given to `owner` (a link itself, never what it points to); and every folder
/// and regular file gets the modes Metewand publishes whatever the worker chose: `rwxr-xr-x` for a folder,
/// `rw-r--r--` for a file, or `rwxr-xr-x` when its owner could execute it. So no setuid, setgid or sticky bit and
/// no write bit for group or others survives into what is published, on any route. Special files are given to
/// `owner` and left for validation to refuse, as is a file with several links that is not the worker's own inode
/// (which is left alone: it may be a file from outside the tree).
pub fn take_back(root: &Path, owner: Option<(u32, u32)>, worker: Option<u32>) -> io::Result<()> {
    Walk::new(Goal::Own { owner, publish: true, worker }).run(root)
}

/// The mode a published folder gets.
pub const PUBLISHED_FOLDER: u32 = 0o755;

/// The mode a published regular file gets: read for everyone, write for its owner, and execute for everyone where
/// its owner could execute it.
pub fn published_file(mode: u32) -> u32 {
    if mode & 0o100 != 0 { 0o755 } else { 0o644 }
}

/// The bytes the tree at `root` takes on disk, never following a link: for each entry (the root, folders, links
/// and special files included) its allocated blocks, and at least [`LEAST_ENTRY_BYTES`], so that a million empty
/// files are not counted as nothing. A sparse file counts what it allocated (its holes are bounded by
/// `RLIMIT_FSIZE`, and its declared size by validation). A missing `root` takes 0; an entry that disappears meanwhile is
/// skipped. A walk that cannot go on (a folder moved while it is walked) counts what it met until then: the
/// result is never more than the tree takes.
pub fn usage(root: &Path) -> u64 {
    let mut walk = Walk::new(Goal::Measure);
    let _ = walk.run(root);
    walk.used
}

/// The least an entry is counted as taking: about what its inode costs.
pub const LEAST_ENTRY_BYTES: u64 = 512;

#[allow(clippy::unnecessary_cast, reason = "the field types of struct stat differ between platforms")]
fn taken(stat: &rustix::fs::Stat) -> u64 {
    (stat.st_blocks as u64).saturating_mul(512).max(LEAST_ENTRY_BYTES)
}

// The stat field types differ between platforms; each conversion is lossless on all of them.
#[allow(clippy::unnecessary_cast, reason = "the field types of struct stat differ between platforms")]
fn identity(stat: &rustix::fs::Stat) -> (u64, u64) {
    (stat.st_dev as u64, stat.st_ino as u64)
}

#[allow(clippy::unnecessary_cast, reason = "the field types of struct stat differ between platforms")]
fn permissions(stat: &rustix::fs::Stat) -> u32 {
    stat.st_mode as u32 & 0o7777
}

/// `chmod` of what an `O_PATH` descriptor names, through its `/proc/self/fd` link (`fchmod` refuses such a
/// descriptor): that link is the opened file itself, so no name is resolved again.
fn chmod_opened(fd: &OwnedFd, mode: u32) -> Result<(), Errno> {
    rustix::fs::chmod(format!("/proc/self/fd/{}", fd.as_raw_fd()), Mode::from_raw_mode(mode))
}

/// `chown` of what a descriptor names, an `O_PATH` one included, and a link itself (`AT_EMPTY_PATH`).
fn chown_opened(fd: BorrowedFd<'_>, uid: u32, gid: u32) -> Result<(), Errno> {
    let (uid, gid) = (rustix::fs::Uid::from_raw(uid), rustix::fs::Gid::from_raw(gid));
    rustix::fs::chownat(fd, c"", Some(uid), Some(gid), AtFlags::EMPTY_PATH)
}

/// Where a folder's listing stands.
enum Listing {
    /// Held: read from its descriptor as the walk goes.
    Reading(Dir),
    /// Let go (and perhaps held again since): the entries it had left to list when it was let go.
    Left { fd: Option<OwnedFd>, entries: std::vec::IntoIter<(CString, FileType)> },
}

/// One folder of the branch being walked.
struct Level {
    /// Its device and inode, as opened.
    id: (u64, u64),
    /// Its permission bits as found.
    mode: u32,
    listing: Listing,
    /// The subfolder being walked, removed once it is empty.
    child: Option<CString>,
}

impl Level {
    fn fd(&self) -> Option<BorrowedFd<'_>> {
        match &self.listing {
            Listing::Reading(dir) => dir.fd().ok(),
            Listing::Left { fd, .. } => fd.as_ref().map(AsFd::as_fd),
        }
    }

    /// The next entry to walk (its name and the type the listing gave, `Unknown` if none), or `None` at the end.
    fn next_entry(&mut self) -> io::Result<Option<(CString, FileType)>> {
        loop {
            let entry = match &mut self.listing {
                Listing::Reading(dir) => match dir.read() {
                    None => return Ok(None),
                    Some(Err(error)) => return Err(error.into()),
                    Some(Ok(entry)) => (entry.file_name().to_owned(), entry.file_type()),
                },
                Listing::Left { entries, .. } => match entries.next() {
                    None => return Ok(None),
                    Some(entry) => entry,
                },
            };
            if !matches!(entry.0.to_bytes(), b"." | b"..") {
                return Ok(Some(entry));
            }
        }
    }

    /// Closes the folder's descriptor, keeping what it has left to list.
    fn let_go(&mut self) -> io::Result<()> {
        if let Listing::Left { fd, .. } = &mut self.listing {
            *fd = None;
            return Ok(());
        }
        let mut left = Vec::new();
        while let Some(entry) = self.next_entry()? {
            left.push(entry);
        }
        self.listing = Listing::Left { fd: None, entries: left.into_iter() };
        Ok(())
    }
}

/// A walk in progress: the branch from the root to the folder being listed.
struct Walk {
    goal: Goal,
    /// What the entries met so far take ([`Goal::Measure`]).
    used: u64,
    levels: Vec<Level>,
    /// `levels[first_held..]` hold their descriptors; the ones before were let go.
    first_held: usize,
}

impl Walk {
    fn new(goal: Goal) -> Walk {
        Walk { goal, used: 0, levels: Vec::new(), first_held: 0 }
    }

    fn run(&mut self, root: &Path) -> io::Result<()> {
        let Some(level) = enter(self.goal, CWD, root, FileType::Unknown, &mut self.used)? else { return Ok(()) };
        self.levels.push(level);
        while let Some(current) = self.levels.last_mut() {
            let Some((name, file_type)) = current.next_entry()? else {
                self.leave()?;
                continue;
            };
            let fd = current.fd().expect("the innermost folder is held");
            let Some(child) = enter(self.goal, fd, name.as_c_str(), file_type, &mut self.used)? else { continue };
            current.child = Some(name);
            if self.levels.len() - self.first_held == HELD {
                self.levels[self.first_held].let_go()?;
                self.first_held += 1;
            }
            self.levels.push(child);
        }
        Ok(())
    }

    /// Ends the innermost folder, whose listing is done: it is made read-only, or removed from its parent (which
    /// is reopened through `..` first if it was let go).
    fn leave(&mut self) -> io::Result<()> {
        let done = self.levels.pop().expect("a folder is being walked");
        let fd = done.fd().expect("the innermost folder is held");
        if matches!(self.goal, Goal::ReadOnly(_)) && done.mode != done.mode & 0o555 {
            rustix::fs::fchmod(fd, Mode::from_raw_mode(done.mode & 0o555))?;
        }
        if let Goal::Own { owner, publish, .. } = self.goal {
            // Last, once everything in it is done: a folder opened up to be walked gets its final mode here.
            if let Some((uid, gid)) = owner {
                chown_opened(fd, uid, gid)?;
            }
            if publish && done.mode != PUBLISHED_FOLDER {
                rustix::fs::fchmod(fd, Mode::from_raw_mode(PUBLISHED_FOLDER))?;
            }
        }
        let depth = self.levels.len();
        let Some(parent) = self.levels.last_mut() else { return Ok(()) };
        if let Listing::Left { fd: parent_fd, .. } = &mut parent.listing
            && parent_fd.is_none()
        {
            let up = rustix::fs::openat(fd, c"..", DIRECTORY, Mode::empty())?;
            if identity(&rustix::fs::fstat(&up)?) != parent.id {
                return Err(io::Error::other(Moved));
            }
            *parent_fd = Some(up);
            self.first_held = depth - 1;
        }
        drop(done);
        let child = parent.child.take().expect("a folder walked is its parent's child");
        if self.goal == Goal::Remove {
            let parent_fd = parent.fd().expect("the parent is held");
            match rustix::fs::unlinkat(parent_fd, child.as_c_str(), AtFlags::REMOVEDIR) {
                Ok(()) | Err(Errno::NOENT) => {}
                Err(error) => return Err(error.into()),
            }
        }
        Ok(())
    }
}

/// Opens `name` in `parent` if it is a folder, to be walked; anything else is dealt with at once. What either
/// takes is added to `used`.
fn enter(
    goal: Goal,
    parent: BorrowedFd<'_>,
    name: impl rustix::path::Arg + Copy,
    listed: FileType,
    used: &mut u64,
) -> io::Result<Option<Level>> {
    if !matches!(listed, FileType::Directory | FileType::Unknown) {
        match other(goal, parent, name, used) {
            Ok(()) | Err(Errno::NOENT) => return Ok(None),
            // It became a folder since it was listed.
            Err(Errno::ISDIR) => {}
            Err(error) => return Err(error.into()),
        }
    }
    match open_folder(goal, parent, name, used) {
        Ok(level) => Ok(Some(level)),
        Err(Errno::NOENT) => Ok(None),
        Err(Errno::NOTDIR | Errno::LOOP) => match other(goal, parent, name, used) {
            Ok(()) | Err(Errno::NOENT) => Ok(None),
            Err(error) => Err(error.into()),
        },
        Err(error) => Err(error.into()),
    }
}

/// Opens the folder `name` in `parent`, never through a link; to remove or measure it, makes it `rwx` for its
/// owner.
fn open_folder(
    goal: Goal,
    parent: BorrowedFd<'_>,
    name: impl rustix::path::Arg + Copy,
    used: &mut u64,
) -> Result<Level, Errno> {
    let fd = match rustix::fs::openat(parent, name, DIRECTORY, Mode::empty()) {
        Ok(fd) => fd,
        Err(Errno::ACCESS) if !matches!(goal, Goal::ReadOnly(_)) => {
            // A folder its owner may not list: opening it as a path needs no permission on it.
            let path = rustix::fs::openat(parent, name, DIRECTORY | OFlags::PATH, Mode::empty())?;
            chmod_opened(&path, permissions(&rustix::fs::fstat(&path)?) | 0o700)?;
            rustix::fs::openat(&path, c".", DIRECTORY, Mode::empty())?
        }
        Err(error) => return Err(error),
    };
    let stat = rustix::fs::fstat(&fd)?;
    *used = used.saturating_add(taken(&stat));
    let mode = permissions(&stat);
    if !matches!(goal, Goal::ReadOnly(_)) && mode & 0o700 != 0o700 {
        rustix::fs::fchmod(&fd, Mode::from_raw_mode(mode | 0o700))?;
    }
    Ok(Level { id: identity(&stat), mode, listing: Listing::Reading(Dir::new(fd)?), child: None })
}

/// What the walk does to an entry that is not a folder: removes it (a link itself, never what it points to),
/// makes a regular file read-only, or adds what it takes to `used`. `ISDIR` if it is a folder after all.
fn other(goal: Goal, parent: BorrowedFd<'_>, name: impl rustix::path::Arg + Copy, used: &mut u64) -> Result<(), Errno> {
    match goal {
        Goal::Measure => {
            let stat = rustix::fs::statat(parent, name, AtFlags::SYMLINK_NOFOLLOW)?;
            if FileType::from_raw_mode(stat.st_mode) == FileType::Directory {
                return Err(Errno::ISDIR);
            }
            *used = used.saturating_add(taken(&stat));
            Ok(())
        }
        Goal::Remove => rustix::fs::unlinkat(parent, name, AtFlags::empty()),
        Goal::Own { owner, publish, worker } => {
            let flags = OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC;
            let fd = rustix::fs::openat(parent, name, flags, Mode::empty())?;
            let stat = rustix::fs::fstat(&fd)?;
            let file_type = FileType::from_raw_mode(stat.st_mode);
            if file_type == FileType::Directory {
                return Err(Errno::ISDIR);
            }
            #[allow(clippy::unnecessary_cast, reason = "the field types of struct stat differ between platforms")]
            let linked_in =
                file_type == FileType::RegularFile && stat.st_nlink as u64 > 1 && worker != Some(stat.st_uid);
            if linked_in {
                return Ok(());
            }
            if let Some((uid, gid)) = owner {
                chown_opened(fd.as_fd(), uid, gid)?;
            }
            // After the owner: a change of owner clears the setuid and setgid bits, but nothing else.
            let mode = permissions(&stat);
            if publish && file_type == FileType::RegularFile && mode != published_file(mode) {
                chmod_opened(&fd, published_file(mode))?;
            }
            Ok(())
        }
        Goal::ReadOnly(keep_execute) => {
            // Opened as a path: no permission on the file is needed, nothing is opened for reading (a FIFO cannot
            // block), and a link is opened itself.
            let flags = OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC;
            let fd = rustix::fs::openat(parent, name, flags, Mode::empty())?;
            let stat = rustix::fs::fstat(&fd)?;
            let mask = if keep_execute { 0o555 } else { 0o444 };
            match FileType::from_raw_mode(stat.st_mode) {
                FileType::Directory => Err(Errno::ISDIR),
                FileType::RegularFile if permissions(&stat) != permissions(&stat) & mask => {
                    chmod_opened(&fd, permissions(&stat) & mask)
                }
                _ => Ok(()),
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, reason = "tests make and read their own files in temporary folders")]
mod tests {
    use std::fs;
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn open(path: &Path) -> OwnedFd {
        rustix::fs::open(path, DIRECTORY, Mode::empty()).unwrap()
    }

    /// Nests `depth` folders named `name` in `parent`; returns the innermost.
    fn nest(parent: BorrowedFd<'_>, name: &str, depth: usize) -> OwnedFd {
        let mut fd = rustix::fs::openat(parent, c".", DIRECTORY, Mode::empty()).unwrap();
        for _ in 0..depth {
            rustix::fs::mkdirat(&fd, name, Mode::from_raw_mode(0o755)).unwrap();
            fd = rustix::fs::openat(&fd, name, DIRECTORY, Mode::empty()).unwrap();
        }
        fd
    }

    /// `outside` with a writable `file` and a `folder` holding one, and at `root` a tree whose fifth folder has
    /// three branches `3 * HELD` folders deep, named with 200 characters each (so their paths are far longer than
    /// `PATH_MAX`), each ending in a regular file, a FIFO and links to `outside`'s file and folder.
    fn deep_tree(root: &Path, outside: &Path) {
        outside_tree(outside);
        fs::create_dir(root).unwrap();
        let top = nest(open(root).as_fd(), "a", 5);
        for branch in ['x', 'y', 'z'] {
            let bottom = nest(top.as_fd(), &branch.to_string().repeat(200), 3 * HELD);
            let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::CLOEXEC;
            let file = rustix::fs::openat(&bottom, "data", flags, Mode::from_raw_mode(0o644)).unwrap();
            fs::File::from(file).write_all(b"data").unwrap();
            rustix::fs::mknodat(&bottom, "fifo", FileType::Fifo, Mode::from_raw_mode(0o644), 0).unwrap();
            rustix::fs::symlinkat(outside.join("file"), &bottom, "file-link").unwrap();
            rustix::fs::symlinkat(outside.join("folder"), &bottom, "folder-link").unwrap();
        }
    }

    /// The permission bits of every folder and regular file beneath `dir` (links and FIFOs are not looked at),
    /// counted by mode.
    fn modes(dir: BorrowedFd<'_>, found: &mut std::collections::BTreeMap<(&'static str, u32), usize>) {
        for entry in Dir::read_from(dir).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name();
            if matches!(name.to_bytes(), b"." | b"..") {
                continue;
            }
            let stat = rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW).unwrap();
            match FileType::from_raw_mode(stat.st_mode) {
                FileType::Directory => {
                    *found.entry(("folder", permissions(&stat))).or_default() += 1;
                    modes(rustix::fs::openat(dir, name, DIRECTORY, Mode::empty()).unwrap().as_fd(), found);
                }
                FileType::RegularFile => *found.entry(("file", permissions(&stat))).or_default() += 1,
                _ => {}
            }
        }
    }

    /// A writable file and a folder holding one, out of the tree.
    fn outside_tree(outside: &Path) {
        fs::create_dir_all(outside.join("folder")).unwrap();
        fs::write(outside.join("file"), "kept").unwrap();
        fs::write(outside.join("folder/inner"), "kept").unwrap();
        fs::set_permissions(outside.join("file"), fs::Permissions::from_mode(0o644)).unwrap();
        fs::set_permissions(outside.join("folder"), fs::Permissions::from_mode(0o755)).unwrap();
    }

    fn assert_outside_untouched(outside: &Path) {
        assert_eq!(fs::read_to_string(outside.join("file")).unwrap(), "kept");
        assert_eq!(fs::read_to_string(outside.join("folder/inner")).unwrap(), "kept");
        let mode = |path: &Path| fs::metadata(path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&outside.join("file")), 0o644, "a link's target is never changed");
        assert_eq!(mode(&outside.join("folder")), 0o755, "a link's target is never changed");
    }

    #[test]
    fn a_tree_deeper_than_any_path_is_made_read_only_then_removed_without_following_its_links() {
        let temp = tempfile::tempdir().unwrap();
        let (root, outside) = (temp.path().join("tree"), temp.path().join("outside"));
        deep_tree(&root, &outside);
        make_read_only(&root).unwrap();
        let mut found = std::collections::BTreeMap::new();
        modes(open(&root).as_fd(), &mut found);
        let folders = 5 + 3 * 3 * HELD;
        assert_eq!(found, [(("file", 0o444), 3), (("folder", 0o555), folders)].into(), "every folder and file");
        assert_eq!(fs::metadata(&root).unwrap().permissions().mode() & 0o777, 0o555, "the root too");
        assert_outside_untouched(&outside);

        remove_tree(&root).unwrap();
        assert!(!root.exists());
        assert_outside_untouched(&outside);
        remove_tree(&root).unwrap();
    }

    #[test]
    fn a_link_or_a_file_at_the_root_is_removed_itself() {
        let temp = tempfile::tempdir().unwrap();
        let outside = temp.path().join("outside");
        outside_tree(&outside);
        for (name, target) in [("to-file", "file"), ("to-folder", "folder")] {
            std::os::unix::fs::symlink(outside.join(target), temp.path().join(name)).unwrap();
            make_read_only(&temp.path().join(name)).unwrap();
            remove_tree(&temp.path().join(name)).unwrap();
            assert!(fs::symlink_metadata(temp.path().join(name)).is_err(), "the link is gone");
        }
        assert_outside_untouched(&outside);
        remove_tree(&outside.join("file")).unwrap();
        assert!(!outside.join("file").exists());
    }

    #[test]
    fn usage_counts_every_entry_at_any_depth_and_never_follows_a_link() {
        let temp = tempfile::tempdir().unwrap();
        let (root, outside) = (temp.path().join("tree"), temp.path().join("outside"));
        deep_tree(&root, &outside);
        // A megabyte written, and a terabyte of holes that take nothing.
        fs::write(root.join("written"), vec![1u8; 1 << 20]).unwrap();
        fs::File::create(root.join("sparse")).unwrap().set_len(1 << 40).unwrap();
        let big_outside = outside.join("folder/big");
        fs::write(&big_outside, vec![1u8; 4 << 20]).unwrap();
        // Every folder, file, FIFO and link counts at least LEAST_ENTRY_BYTES.
        let entries = 1 + 5 + 3 * (3 * HELD + 4) + 2;
        let used = usage(&root);
        assert!(used >= (1 << 20) + (entries as u64 - 1) * LEAST_ENTRY_BYTES, "{used}");
        assert!(used < (3 << 20) + entries as u64 * 8192, "holes and the linked-to folder are not counted: {used}");
        // A folder its owner may not list is opened up, so nothing in it is hidden from the count.
        fs::set_permissions(root.join("a"), fs::Permissions::from_mode(0o000)).unwrap();
        assert_eq!(usage(&root), used);
        assert_eq!(usage(&temp.path().join("missing")), 0);
    }
}
