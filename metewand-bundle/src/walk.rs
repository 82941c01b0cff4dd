//! Folders listed in the byte order of the paths they give in a bundle, without following a link: a folder's
//! entries are sorted with each subfolder's name ending in `/`, so that a walk in that order is the order of the
//! full paths. Only one listing per level of depth is held at a time.

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use metewand_protocol::Sha256Digest;
use sha2::{Digest, Sha256};

use crate::error::BundleError;

/// What a walk meets that a bundle cannot hold.
#[derive(Debug)]
pub(crate) enum Odd {
    /// A symbolic link.
    Link,
    /// A FIFO, socket or device.
    Special,
    /// A name that is not UTF-8 or holds a control character.
    Name,
}

impl Odd {
    pub(crate) fn describe(&self) -> &'static str {
        match self {
            Odd::Link => "a symbolic link",
            Odd::Special => "a special file (FIFO, socket or device)",
            Odd::Name => "a name that is not UTF-8 text without control characters",
        }
    }
}

/// Walks `dir`, calling `file` with each regular file's bundle path (`prefix/relative`) and its path on disk, and
/// `odd` with each entry a bundle cannot hold, in the byte order of the bundle paths. Paths in `skip`, relative to
/// `dir`, are left out.
pub(crate) fn walk_sorted(
    dir: &Path,
    prefix: &str,
    skip: &[&str],
    file: &mut dyn FnMut(String, PathBuf) -> Result<(), BundleError>,
    odd: &mut dyn FnMut(String, Odd) -> Result<(), BundleError>,
) -> Result<(), BundleError> {
    let listing = std::fs::read_dir(dir).map_err(BundleError::io("list", dir))?;
    let mut entries = Vec::new();
    for entry in listing {
        let entry = entry.map_err(BundleError::io("list", dir))?;
        let kind = entry.file_type().map_err(BundleError::io("read the type of", entry.path()))?;
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            odd(format!("{prefix}/{}", entry.file_name().to_string_lossy()), Odd::Name)?;
            continue;
        };
        if skip.contains(&name.as_str()) {
            continue;
        }
        let key = if kind.is_dir() { format!("{name}/") } else { name.clone() };
        entries.push((key, name, kind));
    }
    entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    for (_, name, kind) in entries {
        let path = format!("{prefix}/{name}");
        if name.chars().any(char::is_control) {
            odd(path, Odd::Name)?;
        } else if kind.is_dir() {
            let inside: Vec<&str> =
                skip.iter().filter_map(|skipped| skipped.strip_prefix(name.as_str())?.strip_prefix('/')).collect();
            walk_sorted(&dir.join(&name), &path, &inside, file, odd)?;
        } else if kind.is_file() {
            file(path, dir.join(&name))?;
        } else if kind.is_symlink() {
            odd(path, Odd::Link)?;
        } else {
            odd(path, Odd::Special)?;
        }
    }
    Ok(())
}

/// Opens a regular file for reading without following a link or blocking on a FIFO; returns it with its size and
/// whether any execute bit is set.
pub(crate) fn open_regular(path: &Path) -> Result<(File, u64, bool), BundleError> {
    #[allow(
        clippy::disallowed_methods,
        reason = "opened with O_NOFOLLOW | O_NONBLOCK and checked to be a regular file before it is read"
    )]
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32 | rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(path)
        .map_err(BundleError::io("open", path))?;
    let metadata = file.metadata().map_err(BundleError::io("read the size of", path))?;
    if !metadata.is_file() {
        return Err(BundleError::Source { path: path.to_owned(), reason: "is not a regular file".to_owned() });
    }
    Ok((file, metadata.len(), metadata.mode() & 0o111 != 0))
}

/// A reader that hashes and counts what passes through it.
pub(crate) struct Hashing<R> {
    pub(crate) inner: R,
    pub(crate) hasher: Sha256,
    pub(crate) count: u64,
}

impl<R: Read> Hashing<R> {
    pub(crate) fn new(inner: R) -> Hashing<R> {
        Hashing { inner, hasher: Sha256::new(), count: 0 }
    }

    pub(crate) fn digest(self) -> (Sha256Digest, u64) {
        (Sha256Digest::from_hasher(self.hasher), self.count)
    }
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let read = self.inner.read(buf)?;
        self.hasher.update(&buf[..read]);
        self.count += read as u64;
        Ok(read)
    }
}

/// Hashes a file's contents to the end: its digest and size.
pub(crate) fn hash_file(path: &Path) -> Result<(Sha256Digest, u64, bool), BundleError> {
    let (file, _, executable) = open_regular(path)?;
    let mut hashing = Hashing::new(io::BufReader::with_capacity(1 << 16, file));
    io::copy(&mut hashing, &mut io::sink()).map_err(BundleError::io("read", path))?;
    let (digest, size) = hashing.digest();
    Ok((digest, size, executable))
}
