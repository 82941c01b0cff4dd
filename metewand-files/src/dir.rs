//! Exclusive, no-follow creation of the executor's own files and folders.
//!
//! A worker can prepare an entry where the executor is about to create one (a FIFO at the record's temporary
//! name, a symbolic link at a log's path, a folder full of files where an empty one belongs). Everything the
//! attempt runner creates therefore goes through a [`Dir`]: a folder opened with `O_DIRECTORY | O_NOFOLLOW` and held
//! by its descriptor, in which files are created with `O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK` and folders with
//! `mkdirat` (which never follows a link either). Whatever already sits at the name is reported as
//! [`FsError::Unexpected`] naming the path and what was found, never opened, followed or waited on.

use std::fs::File;
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};

use rustix::fs::{AtFlags, FileType, Mode, OFlags, RenameFlags};

/// How a folder is opened: never through a link, never anything but a folder.
pub const DIRECTORY: OFlags = OFlags::RDONLY.union(OFlags::DIRECTORY).union(OFlags::NOFOLLOW).union(OFlags::CLOEXEC);

/// How a file is created: only if nothing at all is at the name (a link, a FIFO or a file makes it fail at once),
/// and never blocking or becoming a controlling terminal.
pub const CREATE_NEW: OFlags = OFlags::WRONLY
    .union(OFlags::CREATE)
    .union(OFlags::EXCL)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::NONBLOCK)
    .union(OFlags::NOCTTY)
    .union(OFlags::CLOEXEC);

/// What went wrong creating or examining one of the executor's own entries.
#[derive(Debug, thiserror::Error)]
pub enum FsError {
    /// Something already exists where the executor was about to create an entry.
    #[error("unexpected {found} at {}, where the executor creates its own entry", path.display())]
    Unexpected {
        /// The entry's path.
        path: PathBuf,
        /// What is there (`a FIFO`, `a symbolic link`, ...).
        found: &'static str,
    },
    /// A system call failed.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// What was being done (`create`, `open`, `rename`...).
        action: &'static str,
        /// The path concerned.
        path: PathBuf,
        /// The system's error.
        source: io::Error,
    },
}

impl FsError {
    fn io(action: &'static str, path: PathBuf, source: impl Into<io::Error>) -> FsError {
        FsError::Io { action, path, source: source.into() }
    }

    /// The system's error, when there was one (none for an unexpected entry).
    pub fn io_error(&self) -> Option<&io::Error> {
        match self {
            FsError::Io { source, .. } => Some(source),
            FsError::Unexpected { .. } => None,
        }
    }
}

/// How an entry's type is named in messages.
fn describe(file_type: FileType) -> &'static str {
    match file_type {
        FileType::RegularFile => "regular file",
        FileType::Directory => "folder",
        FileType::Symlink => "symbolic link",
        FileType::Fifo => "FIFO",
        FileType::Socket => "socket",
        FileType::CharacterDevice => "character device",
        FileType::BlockDevice => "block device",
        _ => "entry",
    }
}

/// A folder held by a descriptor opened without following links; every entry is made relative to it, so the
/// folder's path being replaced afterwards (by a link, or another folder) cannot redirect what is created in it.
#[derive(Debug)]
pub struct Dir {
    fd: OwnedFd,
    path: PathBuf,
}

impl Dir {
    /// Opens an existing folder; a symbolic link (or anything but a folder) at `path` is refused.
    pub fn open(path: &Path) -> Result<Dir, FsError> {
        match rustix::fs::open(path, DIRECTORY, Mode::empty()) {
            Ok(fd) => Ok(Dir { fd, path: path.to_owned() }),
            Err(rustix::io::Errno::LOOP | rustix::io::Errno::NOTDIR) => {
                let found = match std::fs::symlink_metadata(path) {
                    Ok(metadata) => describe(FileType::from_raw_mode(std::os::unix::fs::MetadataExt::mode(&metadata))),
                    Err(_) => "entry",
                };
                Err(FsError::Unexpected { path: path.to_owned(), found })
            }
            Err(error) => Err(FsError::io("open the folder", path.to_owned(), error)),
        }
    }

    /// The folder's path when it was opened or created.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The path of `name` in this folder.
    pub fn join(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// What is at `name` in this folder (not following a link), or `None` if nothing is.
    pub fn entry(&self, name: &str) -> Result<Option<&'static str>, FsError> {
        match rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => Ok(Some(describe(FileType::from_raw_mode(stat.st_mode)))),
            Err(rustix::io::Errno::NOENT) => Ok(None),
            Err(error) => Err(FsError::io("examine", self.join(name), error)),
        }
    }

    /// Refuses anything at `name` in this folder: the place must be empty for the executor to create its entry.
    pub fn expect_absent(&self, name: &str) -> Result<(), FsError> {
        match self.entry(name)? {
            None => Ok(()),
            Some(found) => Err(FsError::Unexpected { path: self.join(name), found }),
        }
    }

    /// Creates the folder `name` here, exclusively, and opens it without following links.
    pub fn create_dir(&self, name: &str) -> Result<Dir, FsError> {
        let path = self.join(name);
        match rustix::fs::mkdirat(&self.fd, name, Mode::from_raw_mode(0o755)) {
            Ok(()) => {}
            Err(rustix::io::Errno::EXIST) => return Err(self.unexpected(name)),
            Err(error) => return Err(FsError::io("create the folder", path, error)),
        }
        let fd = rustix::fs::openat(&self.fd, name, DIRECTORY, Mode::empty())
            .map_err(|error| FsError::io("open the folder", path.clone(), error))?;
        Ok(Dir { fd, path })
    }

    /// Creates the file `name` here for writing: `O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK`, so an existing
    /// entry of any kind (a link, a FIFO, a file) is refused without being opened.
    pub fn create_file(&self, name: &str) -> Result<File, FsError> {
        match rustix::fs::openat(&self.fd, name, CREATE_NEW, Mode::from_raw_mode(0o644)) {
            Ok(fd) => Ok(File::from(fd)),
            Err(rustix::io::Errno::EXIST) => Err(self.unexpected(name)),
            Err(error) => Err(FsError::io("create", self.join(name), error)),
        }
    }

    /// Opens the regular file `name` here for reading, without following a link or blocking on a FIFO; anything
    /// but a regular file is [`FsError::Unexpected`], a missing file is `Ok(None)`.
    pub fn open_file(&self, name: &str) -> Result<Option<File>, FsError> {
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let fd = match rustix::fs::openat(&self.fd, name, flags, Mode::empty()) {
            Ok(fd) => fd,
            Err(rustix::io::Errno::NOENT) => return Ok(None),
            Err(rustix::io::Errno::LOOP) => return Err(self.unexpected(name)),
            Err(error) => return Err(FsError::io("open", self.join(name), error)),
        };
        let stat = rustix::fs::fstat(&fd).map_err(|error| FsError::io("examine", self.join(name), error))?;
        let file_type = FileType::from_raw_mode(stat.st_mode);
        if file_type != FileType::RegularFile {
            return Err(FsError::Unexpected { path: self.join(name), found: describe(file_type) });
        }
        Ok(Some(File::from(fd)))
    }

    /// Renames `from` to `to`, both in this folder, only if `to` does not exist (`RENAME_NOREPLACE`).
    pub fn rename_new(&self, from: &str, to: &str) -> Result<(), FsError> {
        match rustix::fs::renameat_with(&self.fd, from, &self.fd, to, RenameFlags::NOREPLACE) {
            Ok(()) => Ok(()),
            Err(rustix::io::Errno::EXIST) => Err(self.unexpected(to)),
            Err(error) => Err(FsError::io("rename", self.join(from), error)),
        }
    }

    /// Removes the file (or link, or FIFO: never what it points to) `name` here; a missing one is not an error.
    pub fn remove_file(&self, name: &str) -> Result<(), FsError> {
        match rustix::fs::unlinkat(&self.fd, name, AtFlags::empty()) {
            Ok(()) | Err(rustix::io::Errno::NOENT) => Ok(()),
            Err(error) => Err(FsError::io("remove", self.join(name), error)),
        }
    }

    /// Flushes the folder's entries to disk.
    pub fn sync(&self) -> Result<(), FsError> {
        rustix::fs::fsync(&self.fd).map_err(|error| FsError::io("sync the folder", self.path.clone(), error))
    }

    /// Whether `path` still names this very folder (same device and inode, not a link to it).
    pub fn is_at(&self, path: &Path) -> bool {
        let (Ok(held), Ok(there)) = (rustix::fs::fstat(&self.fd), rustix::fs::lstat(path)) else { return false };
        FileType::from_raw_mode(there.st_mode) == FileType::Directory
            && (held.st_dev, held.st_ino) == (there.st_dev, there.st_ino)
    }

    fn unexpected(&self, name: &str) -> FsError {
        let found = self.entry(name).ok().flatten().unwrap_or("entry");
        FsError::Unexpected { path: self.join(name), found }
    }
}

impl AsFd for Dir {
    fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    #[test]
    fn prepared_entries_are_refused_never_followed_or_opened() {
        let temp = tempfile::tempdir().unwrap();
        let dir = Dir::open(temp.path()).unwrap();
        rustix::fs::mkfifoat(rustix::fs::CWD, temp.path().join("fifo"), Mode::from_raw_mode(0o644)).unwrap();
        std::os::unix::fs::symlink(temp.path().join("elsewhere"), temp.path().join("link")).unwrap();
        for (name, found) in [("fifo", "FIFO"), ("link", "symbolic link")] {
            let error = dir.create_file(name).unwrap_err();
            assert!(matches!(&error, FsError::Unexpected { found: f, .. } if *f == found), "{error}");
            assert!(error.to_string().contains(name), "{error}");
            assert!(matches!(dir.create_dir(name), Err(FsError::Unexpected { .. })));
            assert!(matches!(dir.open_file(name), Err(FsError::Unexpected { .. })));
        }
        assert!(!temp.path().join("elsewhere").exists(), "the link was not followed");
        let mut file = dir.create_file("new").unwrap();
        file.write_all(b"x").unwrap();
        assert!(matches!(dir.create_file("new"), Err(FsError::Unexpected { found: "regular file", .. })));
        let sub = dir.create_dir("sub").unwrap();
        assert!(sub.is_at(&temp.path().join("sub")));
        std::fs::rename(temp.path().join("sub"), temp.path().join("moved")).unwrap();
        std::os::unix::fs::symlink(temp.path().join("moved"), temp.path().join("sub")).unwrap();
        assert!(!sub.is_at(&temp.path().join("sub")), "a link to the folder is not the folder");
        assert!(matches!(Dir::open(&temp.path().join("sub")), Err(FsError::Unexpected { .. })));
    }
}
