//! `BundleError`: why a bundle could not be made, or why one was refused, with the file and the place it concerns.

use std::io;
use std::path::PathBuf;

/// Why a bundle could not be made, unpacked or verified. Each says what and where; a refused bundle wrote nothing
/// outside the folder it was being unpacked into.
#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    /// A file could not be read or written.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// What was being done.
        action: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The system's error.
        source: io::Error,
    },
    /// A folder given to `bundle` cannot go into one.
    #[error("{} cannot be bundled: {reason}", path.display())]
    Source {
        /// The folder or file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// A source file changed while it was being bundled.
    #[error("{} changed while it was being bundled; bundle again once nothing writes the folder", path.display())]
    Changed {
        /// The file.
        path: PathBuf,
    },
    /// The archive ends before its last entry does, or its compressed stream is cut.
    #[error("the bundle is truncated: {at}")]
    Truncated {
        /// Where the stream ended.
        at: String,
    },
    /// The archive is not a zstd-compressed tar stream.
    #[error("the bundle is not a zstd-compressed tar archive: {reason} ({at})")]
    NotABundle {
        /// Where.
        at: String,
        /// Why.
        reason: String,
    },
    /// The manifest is not a valid manifest.
    #[error("the manifest is invalid: {reason}")]
    BadManifest {
        /// Why.
        reason: String,
    },
    /// The manifest is valid JSON but not its canonical form.
    #[error("the manifest is not canonical JSON (its bytes differ from its canonical form at byte {offset})")]
    NotCanonical {
        /// The first byte that differs.
        offset: usize,
    },
    /// An entry's path could leave the folder it is unpacked into, or is not one a bundle holds.
    #[error("the entry {path:?} has a path that is refused: {reason}")]
    UnsafePath {
        /// The entry's path as the archive has it.
        path: String,
        /// Why.
        reason: String,
    },
    /// An entry is not a regular file (a link, a device, a folder the manifest does not allow).
    #[error("the entry {path:?} is a {kind}, and a bundle holds regular files only")]
    NotAFile {
        /// The entry's path.
        path: String,
        /// What it is.
        kind: String,
    },
    /// An entry is not in the manifest.
    #[error("the file {path} is not in the manifest (added)")]
    Added {
        /// Its path.
        path: String,
    },
    /// A file of the manifest is not in the bundle.
    #[error("the file {path} of the manifest is missing (removed)")]
    Removed {
        /// Its path.
        path: String,
    },
    /// A file's size or contents differ from its record in the manifest.
    #[error("the file {path} differs from the manifest: {what}")]
    Modified {
        /// Its path.
        path: String,
        /// What differs.
        what: String,
    },
    /// The stream yields more than the manifest declares.
    #[error("the bundle yields more than its manifest declares: {what} (a decompression bomb, or a forged manifest)")]
    Bomb {
        /// What was found.
        what: String,
    },
    /// The folder to unpack into is not a new or empty folder.
    #[error("{} is not a new or empty folder to unpack into", path.display())]
    TargetInUse {
        /// The folder.
        path: PathBuf,
    },
}

impl BundleError {
    pub(crate) fn io(action: &'static str, path: impl Into<PathBuf>) -> impl FnOnce(io::Error) -> BundleError {
        let path = path.into();
        move |source| BundleError::Io { action, path, source }
    }
}
