//! The filesystem side of validation: a walk that never follows links, and opening a walked file beneath its root.
//!
//! Everything here works on directory descriptors: the walk opens each directory with `O_DIRECTORY | O_NOFOLLOW`
//! relative to its parent's descriptor and looks at each entry with `fstatat(AT_SYMLINK_NOFOLLOW)`, so no path is
//! ever resolved through a symbolic link, and a directory swapped for a link between two steps is refused, not
//! followed. [`open_beneath`] opens a file the same way, one component at a time.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::CString;
use std::fmt;
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rustix::fs::{AtFlags, Dir, FileType, Mode, OFlags};

use super::dir::DIRECTORY;
use super::path::RelativePath;

/// The deepest directory nesting a walk accepts below its root.
pub const MAX_WALK_DEPTH: usize = 128;

/// What kind of filesystem entry something is, as `lstat` or `fstat` sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryType {
    /// A regular file.
    RegularFile,
    /// A directory.
    Directory,
    /// A symbolic link.
    SymbolicLink,
    /// A named pipe.
    Fifo,
    /// A Unix domain socket.
    Socket,
    /// A character device.
    CharacterDevice,
    /// A block device.
    BlockDevice,
    /// Anything else the system reports.
    Other,
}

impl EntryType {
    fn from_rustix(file_type: FileType) -> EntryType {
        match file_type {
            FileType::RegularFile => EntryType::RegularFile,
            FileType::Directory => EntryType::Directory,
            FileType::Symlink => EntryType::SymbolicLink,
            FileType::Fifo => EntryType::Fifo,
            FileType::Socket => EntryType::Socket,
            FileType::CharacterDevice => EntryType::CharacterDevice,
            FileType::BlockDevice => EntryType::BlockDevice,
            _ => EntryType::Other,
        }
    }

    /// The type of an entry as the standard library reports it.
    pub fn from_std(file_type: std::fs::FileType) -> EntryType {
        if file_type.is_file() {
            EntryType::RegularFile
        } else if file_type.is_dir() {
            EntryType::Directory
        } else if file_type.is_symlink() {
            EntryType::SymbolicLink
        } else if file_type.is_fifo() {
            EntryType::Fifo
        } else if file_type.is_socket() {
            EntryType::Socket
        } else if file_type.is_char_device() {
            EntryType::CharacterDevice
        } else if file_type.is_block_device() {
            EntryType::BlockDevice
        } else {
            EntryType::Other
        }
    }
}

impl fmt::Display for EntryType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EntryType::RegularFile => "a regular file",
            EntryType::Directory => "a directory",
            EntryType::SymbolicLink => "a symbolic link",
            EntryType::Fifo => "a FIFO",
            EntryType::Socket => "a Unix socket",
            EntryType::CharacterDevice => "a character device",
            EntryType::BlockDevice => "a block device",
            EntryType::Other => "a special file",
        })
    }
}

/// A regular file the walk found, with what `lstat` said about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WalkedFile {
    /// Its device.
    pub dev: u64,
    /// Its inode.
    pub ino: u64,
    /// Its size.
    pub size: u64,
    /// Its count of hard links.
    pub nlink: u64,
}

/// Everything under a root: its regular files and its directories, keyed by relative path (so in UTF-8 byte order),
/// and the [`EntryStamp`] of each.
#[derive(Clone, Debug, Default)]
pub struct Inventory {
    /// The regular files, each with what the walk saw of it.
    pub files: BTreeMap<String, WalkedFile>,
    /// The directories.
    pub directories: BTreeSet<String>,
    /// The stamp of every entry, files and directories alike.
    pub stamps: BTreeMap<String, EntryStamp>,
}

/// What `lstat` says of an entry that moves when the entry changes: which inode it is, its type and mode, its size,
/// and its change and modification times. Every change to a file's bytes, links, mode or owner, and every entry
/// added to, removed from or renamed in a directory, moves the entry's ctime, which no process sets back short of
/// setting the clock back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntryStamp {
    dev: u64,
    ino: u64,
    mode: u32,
    size: u64,
    ctime: (i64, i64),
    mtime: (i64, i64),
}

impl EntryStamp {
    #[allow(clippy::unnecessary_cast, reason = "the field types of struct stat differ between platforms")]
    fn of(stat: &rustix::fs::Stat) -> EntryStamp {
        EntryStamp {
            dev: stat.st_dev as u64,
            ino: stat.st_ino as u64,
            mode: stat.st_mode as u32,
            size: stat.st_size as u64,
            ctime: (stat.st_ctime as i64, stat.st_ctime_nsec as i64),
            mtime: (stat.st_mtime as i64, stat.st_mtime_nsec as i64),
        }
    }

    /// When the entry last changed (its ctime); `None` before 1970.
    pub fn changed_at(&self) -> Option<SystemTime> {
        let (seconds, nanos) = self.ctime;
        Some(UNIX_EPOCH + Duration::new(u64::try_from(seconds).ok()?, u32::try_from(nanos).ok()?))
    }
}

/// The stamps of a tree: its root's and every entry's beneath it, as one walk found them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeStamp {
    root: EntryStamp,
    entries: BTreeMap<String, EntryStamp>,
}

impl TreeStamp {
    /// Whether the root and every entry last changed before `time` (an entry changed before 1970 counts as not).
    pub fn changed_before(&self, time: SystemTime) -> bool {
        std::iter::once(&self.root)
            .chain(self.entries.values())
            .all(|stamp| stamp.changed_at().is_some_and(|changed| changed < time))
    }
}

/// The stamp of the tree at `root` (opened without following a link), walked as [`walk`] walks it.
pub fn stamp_tree(root: &Path) -> Result<TreeStamp, WalkError> {
    let fd = open_root(root).map_err(|source| WalkError::Io { path: String::new(), source })?;
    let stat = rustix::fs::fstat(&fd).map_err(io_error(""))?;
    let inventory = walk(fd.as_fd(), &[])?;
    Ok(TreeStamp { root: EntryStamp::of(&stat), entries: inventory.stamps })
}

/// Why a walk stopped.
#[derive(Debug)]
pub enum WalkError {
    /// An entry's name is not UTF-8; the path is shown lossily.
    NonUtf8 {
        /// The entry's path beneath the root.
        path: String,
    },
    /// An entry is a symbolic link, a FIFO, a socket, a device or anything but a regular file or directory.
    Special {
        /// The entry's path beneath the root.
        path: String,
        /// What it is.
        found: EntryType,
    },
    /// Directories nested deeper than [`MAX_WALK_DEPTH`].
    TooDeep {
        /// The path of the directory too deep.
        path: String,
    },
    /// An entry changed between two steps of the walk (vanished, or a directory replaced).
    Changed {
        /// The entry's path beneath the root.
        path: String,
    },
    /// The system refused an operation.
    Io {
        /// The path it was refused on.
        path: String,
        /// Why.
        source: io::Error,
    },
}

/// Opens an artifact's root directory without following a link in its last component.
pub fn open_root(root: &Path) -> io::Result<OwnedFd> {
    Ok(rustix::fs::open(root, DIRECTORY, Mode::empty())?)
}

/// Walks everything beneath `root`, skipping entries whose name is in `skip` (at every level, whatever their type).
pub fn walk(root: BorrowedFd<'_>, skip: &[&str]) -> Result<Inventory, WalkError> {
    let mut inventory = Inventory::default();
    walk_directory(root, "", 0, Skip { everywhere: skip, top: &[] }, &mut inventory)?;
    Ok(inventory)
}

/// Walks everything beneath `root` but the entries at its top whose name is in `top` (whatever their type).
pub fn walk_without(root: BorrowedFd<'_>, top: &[&str]) -> Result<Inventory, WalkError> {
    let mut inventory = Inventory::default();
    walk_directory(root, "", 0, Skip { everywhere: &[], top }, &mut inventory)?;
    Ok(inventory)
}

/// The names a walk passes over: at every level, and at the top only.
#[derive(Clone, Copy)]
struct Skip<'a> {
    everywhere: &'a [&'a str],
    top: &'a [&'a str],
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() { name.to_owned() } else { format!("{prefix}/{name}") }
}

fn io_error(path: &str) -> impl FnOnce(rustix::io::Errno) -> WalkError + '_ {
    move |errno| WalkError::Io { path: path.to_owned(), source: errno.into() }
}

// The stat field types differ between platforms; each conversion is lossless on all of them.
#[allow(clippy::unnecessary_cast, reason = "the field types of struct stat differ between platforms")]
fn walked_file(stat: &rustix::fs::Stat) -> WalkedFile {
    WalkedFile {
        dev: stat.st_dev as u64,
        ino: stat.st_ino as u64,
        size: stat.st_size as u64,
        nlink: stat.st_nlink as u64,
    }
}

fn walk_directory(
    directory: BorrowedFd<'_>,
    prefix: &str,
    depth: usize,
    skip: Skip<'_>,
    inventory: &mut Inventory,
) -> Result<(), WalkError> {
    let mut names: Vec<CString> = Vec::new();
    let mut reader = Dir::read_from(directory).map_err(io_error(prefix))?;
    while let Some(entry) = reader.read() {
        let entry = entry.map_err(io_error(prefix))?;
        let name = entry.file_name();
        if name.to_bytes() != b"." && name.to_bytes() != b".." {
            names.push(name.to_owned());
        }
    }
    drop(reader);
    names.sort();
    for name in names {
        let Ok(text) = name.to_str() else {
            return Err(WalkError::NonUtf8 { path: join(prefix, &String::from_utf8_lossy(name.to_bytes())) });
        };
        if skip.everywhere.contains(&text) || depth == 0 && skip.top.contains(&text) {
            continue;
        }
        let path = join(prefix, text);
        let stat = match rustix::fs::statat(directory, name.as_c_str(), AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => stat,
            Err(rustix::io::Errno::NOENT) => return Err(WalkError::Changed { path }),
            Err(errno) => return Err(io_error(&path)(errno)),
        };
        inventory.stamps.insert(path.clone(), EntryStamp::of(&stat));
        match EntryType::from_rustix(FileType::from_raw_mode(stat.st_mode)) {
            EntryType::RegularFile => {
                inventory.files.insert(path, walked_file(&stat));
            }
            EntryType::Directory => {
                if depth + 1 > MAX_WALK_DEPTH {
                    return Err(WalkError::TooDeep { path });
                }
                let child = match rustix::fs::openat(directory, name.as_c_str(), DIRECTORY, Mode::empty()) {
                    Ok(child) => child,
                    Err(rustix::io::Errno::NOENT | rustix::io::Errno::LOOP | rustix::io::Errno::NOTDIR) => {
                        return Err(WalkError::Changed { path });
                    }
                    Err(errno) => return Err(io_error(&path)(errno)),
                };
                let opened = rustix::fs::fstat(&child).map_err(io_error(&path))?;
                let (expected, observed) = (walked_file(&stat), walked_file(&opened));
                if (expected.dev, expected.ino) != (observed.dev, observed.ino) {
                    return Err(WalkError::Changed { path });
                }
                inventory.directories.insert(path.clone());
                walk_directory(child.as_fd(), &path, depth + 1, skip, inventory)?;
            }
            found => return Err(WalkError::Special { path, found }),
        }
    }
    Ok(())
}

/// Opens the directory `path` beneath `root`, one component at a time without following links.
pub fn open_directory_beneath(root: BorrowedFd<'_>, path: &RelativePath) -> Result<OwnedFd, OpenError> {
    let mut current: Option<OwnedFd> = None;
    for name in path.components() {
        let directory = current.as_ref().map_or(root, AsFd::as_fd);
        let opened = rustix::fs::openat(directory, name, DIRECTORY, Mode::empty())
            .map_err(|errno| explain(directory, name, errno))?;
        current = Some(opened);
    }
    Ok(current.expect("a relative path has at least one component"))
}

/// Why [`open_beneath`] could not open a path.
#[derive(Debug)]
pub enum OpenError {
    /// A component does not exist.
    Missing,
    /// A component is a symbolic link.
    SymbolicLink,
    /// A directory component is something else.
    NotADirectory {
        /// What the component is.
        found: EntryType,
    },
    /// The system refused for another reason.
    Io(io::Error),
}

/// What a failed `openat` of `name` in `directory` met: looked at again without following links.
pub fn explain(directory: BorrowedFd<'_>, name: &str, errno: rustix::io::Errno) -> OpenError {
    use rustix::io::Errno;
    if ![Errno::NOENT, Errno::NOTDIR, Errno::LOOP, Errno::MLINK].contains(&errno) {
        return OpenError::Io(errno.into());
    }
    match rustix::fs::statat(directory, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(stat) => match EntryType::from_rustix(FileType::from_raw_mode(stat.st_mode)) {
            EntryType::SymbolicLink => OpenError::SymbolicLink,
            found => OpenError::NotADirectory { found },
        },
        Err(Errno::NOENT | Errno::NOTDIR) => OpenError::Missing,
        Err(other) => OpenError::Io(other.into()),
    }
}

/// Opens a file beneath `root` one component at a time, never following a link: each directory with
/// `O_DIRECTORY | O_NOFOLLOW`, the file itself with `O_NOFOLLOW | O_NONBLOCK` (so a FIFO put in its place cannot
/// block the open). The caller checks what was opened with `fstat` on the descriptor.
pub fn open_beneath(root: BorrowedFd<'_>, path: &RelativePath) -> Result<File, OpenError> {
    let mut components = path.components().peekable();
    let mut current: Option<OwnedFd> = None;
    while let Some(name) = components.next() {
        let directory = current.as_ref().map_or(root, AsFd::as_fd);
        let last = components.peek().is_none();
        let flags = if last {
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY
        } else {
            DIRECTORY
        };
        let opened = rustix::fs::openat(directory, name, flags, Mode::empty())
            .map_err(|errno| explain(directory, name, errno))?;
        if last {
            return Ok(File::from(opened));
        }
        current = Some(opened);
    }
    unreachable!("a relative path has at least one component")
}
