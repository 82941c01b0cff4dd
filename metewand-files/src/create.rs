//! Opening and creating beneath a directory descriptor, never following a link: for the trees the executor builds
//! itself (source copies), where every file and folder must be one it has just created, not something a worker put
//! in its way.

use std::fs::File;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::Path;

use rustix::fs::Mode;

use super::dir::{CREATE_NEW, DIRECTORY};
use super::path::RelativePath;
use super::walk::{OpenError, explain, open_beneath, open_root};

/// Opens the directory holding `path`'s last component, one directory at a time without following links; returns
/// it (`None` for `root` itself) and the last component.
fn parent<'p>(root: BorrowedFd<'_>, path: &'p RelativePath) -> Result<(Option<OwnedFd>, &'p str), OpenError> {
    let mut components = path.components().peekable();
    let mut current: Option<OwnedFd> = None;
    while let Some(name) = components.next() {
        if components.peek().is_none() {
            return Ok((current, name));
        }
        let directory = current.as_ref().map_or(root, AsFd::as_fd);
        let opened = rustix::fs::openat(directory, name, DIRECTORY, Mode::empty())
            .map_err(|errno| explain(directory, name, errno))?;
        current = Some(opened);
    }
    unreachable!("a relative path has at least one component")
}

fn open_io(error: OpenError) -> io::Error {
    match error {
        OpenError::Missing => io::Error::from(io::ErrorKind::NotFound),
        OpenError::SymbolicLink => io::Error::other("a symbolic link is in the way"),
        OpenError::NotADirectory { found } => io::Error::other(format!("{found} is in the way of a directory")),
        OpenError::Io(error) => error,
    }
}

/// Opens the directory at `path` beneath `root`, every component with `O_DIRECTORY | O_NOFOLLOW`: a link anywhere
/// on the way, or anything but a directory, is refused.
pub fn open_directory_beneath(root: BorrowedFd<'_>, path: &RelativePath) -> Result<OwnedFd, OpenError> {
    let (directory, name) = parent(root, path)?;
    let directory = directory.as_ref().map_or(root, AsFd::as_fd);
    rustix::fs::openat(directory, name, DIRECTORY, Mode::empty()).map_err(|errno| explain(directory, name, errno))
}

/// Creates the directory `path` beneath `root` (`mkdirat`, so it fails if anything is already there, a link
/// included) with exactly `mode`, and opens it without following links. The folders on the way must exist and are
/// opened without following links.
pub fn create_new_dir_beneath(root: BorrowedFd<'_>, path: &RelativePath, mode: u32) -> io::Result<OwnedFd> {
    let (directory, name) = parent(root, path).map_err(open_io)?;
    let directory = directory.as_ref().map_or(root, AsFd::as_fd);
    rustix::fs::mkdirat(directory, name, Mode::from_raw_mode(0o700))?;
    let created = rustix::fs::openat(directory, name, DIRECTORY, Mode::empty())?;
    rustix::fs::fchmod(&created, Mode::from_raw_mode(mode))?;
    Ok(created)
}

/// Creates the regular file `path` beneath `root` with `O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK` (so anything
/// already there, a link, a FIFO or a file, makes it fail at once with `AlreadyExists`, and nothing can block the
/// open), sets exactly `mode` whatever the umask, and returns it open for writing. The folders on the way must
/// exist and are opened without following links.
pub fn create_new_file_beneath(root: BorrowedFd<'_>, path: &RelativePath, mode: u32) -> io::Result<File> {
    let (directory, name) = parent(root, path).map_err(open_io)?;
    let directory = directory.as_ref().map_or(root, AsFd::as_fd);
    let created = rustix::fs::openat(directory, name, CREATE_NEW, Mode::from_raw_mode(0o600))?;
    rustix::fs::fchmod(&created, Mode::from_raw_mode(mode))?;
    Ok(File::from(created))
}

/// Copies the regular files `paths` from beneath the folder `from` into the empty folder `to`, at the same relative
/// paths (the folders on the way made `rwxr-xr-x`, the files `rw-r--r--`), opening nothing through a link and
/// creating each entry exclusively. What is copied is whatever the files hold now: a caller that relies on it checks
/// the copy.
pub fn copy_beneath<'a>(from: &Path, to: &Path, paths: impl IntoIterator<Item = &'a RelativePath>) -> io::Result<()> {
    let (source, target) = (open_root(from)?, open_root(to)?);
    let mut made = std::collections::BTreeSet::new();
    for path in paths {
        for ancestor in path.ancestors() {
            if made.insert(ancestor.to_owned()) {
                let ancestor = RelativePath::new(ancestor).map_err(io::Error::other)?;
                create_new_dir_beneath(target.as_fd(), &ancestor, 0o755)?;
            }
        }
        let mut file = open_beneath(source.as_fd(), path).map_err(open_io)?;
        if rustix::fs::FileType::from_raw_mode(rustix::fs::fstat(&file)?.st_mode) != rustix::fs::FileType::RegularFile {
            return Err(io::Error::other(format!("{} is not a regular file", path.as_str())));
        }
        let mut copy = create_new_file_beneath(target.as_fd(), path, 0o644)?;
        io::copy(&mut file, &mut copy)?;
    }
    Ok(())
}
