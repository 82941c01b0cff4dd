//! Unpacking a bundle into a new folder, checking it as it streams: the manifest first (canonical, valid, its
//! paths safe), then every entry against the manifest's next file (a regular file at exactly that path, of exactly
//! that size, with that SHA-256). Nothing is created but beneath the target folder, exclusively and without
//! following a link, and the decompressed stream may yield no more than the manifest declares. A refused bundle
//! leaves no target folder behind when unpacking made it.

use std::cell::Cell;
use std::fs::File;
use std::io::{self, BufReader, Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use metewand_runtime::RelativePath;
use metewand_runtime::files::create::{create_new_dir_beneath, create_new_file_beneath};
use metewand_runtime::files::walk::open_root;

use crate::error::BundleError;
use crate::manifest::{MANIFEST_FILE, MAX_MANIFEST_BYTES, Manifest};
use crate::walk::Hashing;

/// A bundle unpacked and checked.
#[derive(Debug)]
pub struct Unpacked {
    /// Its manifest.
    pub manifest: Manifest,
    /// Where it was unpacked.
    pub folder: PathBuf,
}

/// A bundle unpacked and checked in a temporary folder, which is removed with it.
#[derive(Debug)]
pub struct Opened {
    /// Its manifest.
    pub manifest: Manifest,
    dir: tempfile::TempDir,
}

impl Opened {
    /// The folder it is unpacked in.
    pub fn folder(&self) -> &Path {
        self.dir.path()
    }

    /// Its campaign folders, in the manifest's order.
    pub fn campaign_folders(&self) -> Vec<PathBuf> {
        let campaigns = &self.manifest.document.campaigns;
        campaigns.iter().map(|campaign| self.folder().join("campaigns").join(campaign.folder.as_str())).collect()
    }
}

/// Unpacks `bundle` into a new temporary folder (in the system's temporary folder), checking it as [`unpack`] does.
pub fn open(bundle: &Path) -> Result<Opened, BundleError> {
    let dir = tempfile::Builder::new()
        .prefix("metewand-bundle-")
        .tempdir()
        .map_err(BundleError::io("create a temporary folder for", bundle))?;
    let unpacked = unpack(bundle, dir.path())?;
    Ok(Opened { manifest: unpacked.manifest, dir })
}

/// The bytes of a tar block.
const BLOCK: u64 = 512;

/// A decompressed stream that may yield at most `limit` bytes: past it, reading fails with [`Exceeded`].
struct Bounded<R> {
    inner: R,
    read: u64,
    limit: Rc<Cell<u64>>,
}

/// The error a [`Bounded`] reader fails with past its limit.
#[derive(Debug, thiserror::Error)]
#[error("the stream yields more than {0} bytes")]
struct Exceeded(u64);

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let limit = self.limit.get();
        if self.read >= limit {
            let mut probe = [0u8; 1];
            if self.inner.read(&mut probe)? == 0 {
                return Ok(0);
            }
            return Err(io::Error::other(Exceeded(limit)));
        }
        let room = usize::try_from(limit - self.read).unwrap_or(usize::MAX).min(buf.len());
        let read = self.inner.read(&mut buf[..room])?;
        self.read += read as u64;
        Ok(read)
    }
}

/// The blocks an entry takes in the archive: its header, a GNU long-name entry for a path of more than 100 bytes,
/// and its data padded to a block.
fn blocks(path: &str, size: u64) -> u64 {
    let padded = |bytes: u64| bytes.div_ceil(BLOCK) * BLOCK;
    let long = if path.len() >= 100 { BLOCK + padded(path.len() as u64 + 1) } else { 0 };
    BLOCK + long + padded(size)
}

/// Turns a read failure into what it means for a bundle: the stream past its bound, cut short, or not a bundle.
fn stream_error(error: io::Error, at: &str) -> BundleError {
    if let Some(exceeded) = error.get_ref().and_then(|inner| inner.downcast_ref::<Exceeded>()) {
        return BundleError::Bomb { what: format!("{exceeded}, at {at}") };
    }
    let message = error.to_string();
    if error.kind() == io::ErrorKind::UnexpectedEof
        || message.contains("incomplete")
        || message.contains("failed to fill")
    {
        return BundleError::Truncated { at: at.to_owned() };
    }
    BundleError::NotABundle { at: at.to_owned(), reason: message }
}

/// Unpacks the bundle `bundle` into `target`, a new folder or an empty one, checking every entry as it comes.
pub fn unpack(bundle: &Path, target: &Path) -> Result<Unpacked, BundleError> {
    let made = match std::fs::create_dir(target) {
        Ok(()) => true,
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
            let empty = std::fs::read_dir(target).map_err(BundleError::io("list", target))?.next().is_none();
            if !empty || !target.is_dir() {
                return Err(BundleError::TargetInUse { path: target.to_owned() });
            }
            false
        }
        Err(error) => return Err(BundleError::io("create", target)(error)),
    };
    let unpacked = unpack_into(bundle, target);
    if unpacked.is_err() && made {
        let _ = metewand_runtime::files::tree::remove_tree(target);
    }
    unpacked.map(|manifest| Unpacked { manifest, folder: target.to_owned() })
}

fn unpack_into(bundle: &Path, target: &Path) -> Result<Manifest, BundleError> {
    #[allow(clippy::disallowed_methods, reason = "the bundle the user names on the command line, read as they ask")]
    let file = File::open(bundle).map_err(BundleError::io("open", bundle))?;
    let decoder = zstd::Decoder::with_buffer(BufReader::with_capacity(1 << 20, file))
        .map_err(|error| BundleError::NotABundle { at: "its start".to_owned(), reason: error.to_string() })?;
    let bound = Rc::new(Cell::new(BLOCK * 3 + MAX_MANIFEST_BYTES));
    let mut archive = tar::Archive::new(Bounded { inner: decoder, read: 0, limit: Rc::clone(&bound) });
    let root = open_root(target).map_err(BundleError::io("open", target))?;
    let mut entries = archive.entries().map_err(|error| stream_error(error, "its start"))?;
    let first = entries
        .next()
        .ok_or_else(|| BundleError::BadManifest { reason: "the bundle is empty: it has no manifest".to_owned() })?
        .map_err(|error| stream_error(error, "its first entry"))?;
    let (manifest, bytes) = read_manifest(first)?;
    let mut file =
        create_new_file_beneath(root.as_fd(), &RelativePath::new(MANIFEST_FILE).expect("a plain name"), 0o644)
            .map_err(BundleError::io("create", target.join(MANIFEST_FILE)))?;
    file.write_all(&bytes).map_err(BundleError::io("write", target.join(MANIFEST_FILE)))?;
    drop((file, bytes));
    let limit = manifest.entries.iter().fold(blocks(MANIFEST_FILE, manifest.size), |sum, entry| {
        sum.saturating_add(blocks(entry.path.as_str(), entry.size))
    });
    // The end of the archive, two zero blocks, and the padding a writer may add to a whole record of 20 blocks.
    bound.set(limit.saturating_add(22 * BLOCK));
    let mut expected = manifest.entries.iter().peekable();
    let mut folders = Folders::new(root);
    let mut at = MANIFEST_FILE.to_owned();
    for next in entries {
        let mut entry = next.map_err(|error| stream_error(error, &format!("the entry after {at}")))?;
        let raw = String::from_utf8(entry.path_bytes().into_owned()).map_err(|error| BundleError::UnsafePath {
            path: String::from_utf8_lossy(error.as_bytes()).into_owned(),
            reason: "is not UTF-8".to_owned(),
        })?;
        let path = RelativePath::new(&raw)
            .map_err(|reason| BundleError::UnsafePath { path: raw.clone(), reason: reason.to_string() })?;
        let kind = entry.header().entry_type();
        if kind != tar::EntryType::Regular {
            let kind = match kind {
                tar::EntryType::Symlink => "symbolic link",
                tar::EntryType::Link => "hard link",
                tar::EntryType::Directory => "folder",
                _ => "special entry",
            };
            return Err(BundleError::NotAFile { path: raw, kind: kind.to_owned() });
        }
        let Some(wanted) = expected.peek() else { return Err(BundleError::Added { path: raw }) };
        if wanted.path != path {
            return Err(if manifest.find(&raw).is_some() {
                BundleError::Removed { path: wanted.path.to_string() }
            } else {
                BundleError::Added { path: raw }
            });
        }
        let wanted = expected.next().expect("peeked");
        let size = entry.header().size().map_err(|error| stream_error(error, &raw))?;
        if size > wanted.size {
            return Err(BundleError::Bomb {
                what: format!("the entry {raw} holds {size} bytes, and the manifest declares {}", wanted.size),
            });
        }
        if size < wanted.size {
            return Err(BundleError::Modified {
                path: raw,
                what: format!("it holds {size} bytes, and the manifest says {}", wanted.size),
            });
        }
        let executable = entry.header().mode().is_ok_and(|mode| mode & 0o111 != 0);
        let mut file = folders.create(&path, executable, target)?;
        let mut hashing = Hashing::new(&mut entry);
        io::copy(&mut hashing, &mut file).map_err(|error| match error.kind() {
            io::ErrorKind::Other | io::ErrorKind::UnexpectedEof => stream_error(error, &raw),
            _ => BundleError::io("write", target.join(path.as_str()))(error),
        })?;
        let (digest, count) = hashing.digest();
        if count != size {
            return Err(BundleError::Truncated { at: raw });
        }
        if digest != wanted.sha256 {
            return Err(BundleError::Modified {
                path: raw,
                what: format!("its SHA-256 is {digest}, and the manifest says {}", wanted.sha256),
            });
        }
        file.flush().map_err(BundleError::io("write", target.join(path.as_str())))?;
        at = raw;
    }
    if let Some(missing) = expected.next() {
        return Err(BundleError::Removed { path: missing.path.to_string() });
    }
    drop(expected);
    let mut rest = archive.into_inner();
    let mut tail = Vec::new();
    rest.read_to_end(&mut tail).map_err(|error| stream_error(error, "the end of the archive"))?;
    if tail.iter().any(|&byte| byte != 0) {
        return Err(BundleError::Bomb { what: format!("{} bytes follow the end of the archive", tail.len()) });
    }
    Ok(manifest)
}

/// Reads and checks the first entry, which must be the manifest.
fn read_manifest<R: Read>(mut entry: tar::Entry<'_, R>) -> Result<(Manifest, Vec<u8>), BundleError> {
    let path = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
    if path != MANIFEST_FILE || entry.header().entry_type() != tar::EntryType::Regular {
        return Err(BundleError::BadManifest {
            reason: format!("the first entry is {path:?}, not the regular file {MANIFEST_FILE}"),
        });
    }
    let size = entry.header().size().map_err(|error| stream_error(error, MANIFEST_FILE))?;
    if size > MAX_MANIFEST_BYTES {
        return Err(BundleError::Bomb {
            what: format!("the manifest declares {size} bytes, more than the {MAX_MANIFEST_BYTES} a manifest may hold"),
        });
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    (&mut entry).take(size).read_to_end(&mut bytes).map_err(|error| stream_error(error, MANIFEST_FILE))?;
    if bytes.len() as u64 != size {
        return Err(BundleError::Truncated { at: MANIFEST_FILE.to_owned() });
    }
    Ok((Manifest::from_bytes(&bytes)?, bytes))
}

/// The folders of the target open on the way to the entry being written: entries come in path order, so a folder's
/// files are consecutive and each folder is made once, when its first file comes.
struct Folders {
    root: OwnedFd,
    open: Vec<(String, OwnedFd)>,
}

impl Folders {
    fn new(root: OwnedFd) -> Folders {
        Folders { root, open: Vec::new() }
    }

    /// Creates the file `path` (and the folders on its way that are not made yet), exclusively and without following
    /// a link.
    fn create(&mut self, path: &RelativePath, executable: bool, target: &Path) -> Result<File, BundleError> {
        let components: Vec<&str> = path.components().collect();
        let (name, parents) = components.split_last().expect("a relative path has a component");
        let keep = self.open.iter().zip(parents.iter()).take_while(|((open, _), wanted)| open == *wanted).count();
        self.open.truncate(keep);
        for parent in &parents[keep..] {
            let fd = {
                let at = self.open.last().map_or(self.root.as_fd(), |(_, fd)| fd.as_fd());
                let name = RelativePath::new(parent).expect("a component of a checked path");
                create_new_dir_beneath(at, &name, 0o755).map_err(BundleError::io("create a folder in", target))?
            };
            self.open.push(((*parent).to_owned(), fd));
        }
        let at = self.open.last().map_or(self.root.as_fd(), |(_, fd)| fd.as_fd());
        let name = RelativePath::new(name).expect("a component of a checked path");
        create_new_file_beneath(at, &name, if executable { 0o755 } else { 0o644 })
            .map_err(BundleError::io("create", target.join(path.as_str())))
    }
}
