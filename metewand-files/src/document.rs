//! Reading one document from disk, bounded.
//!
//! Every document Metewand reads from disk (manifests, metrics, repository schemas, `metewand.toml`) is at most
//! [`MAX_DOCUMENT_BYTES`]. The size is checked on the opened file (`fstat` on its descriptor) before a byte is read,
//! and the read itself stops one byte past the limit, so a file that grows after the check cannot make the reader
//! hold more than the limit either.

use std::fs::File;
use std::io::{self, Read};

/// The largest document Metewand reads from disk: 64 MiB.
pub const MAX_DOCUMENT_BYTES: u64 = 64 << 20;

/// Why a document could not be read.
#[derive(Debug, thiserror::Error)]
pub enum DocumentError {
    /// The document is larger than [`MAX_DOCUMENT_BYTES`].
    #[error("is {size} bytes, more than the {MAX_DOCUMENT_BYTES}-byte limit for a document")]
    TooLarge {
        /// The size observed: the opened file's size, or the bytes read once the limit was passed.
        size: u64,
    },
    /// The file could not be examined or read.
    #[error("cannot be read: {0}")]
    Io(#[from] io::Error),
}

/// Reads a whole document from an opened file: its size is checked on the descriptor first, then at most
/// [`MAX_DOCUMENT_BYTES`] bytes are read.
///
/// ```
/// use std::io::Write;
/// use metewand_files::document::read_document;
///
/// let mut file = tempfile::tempfile().unwrap();
/// file.write_all(b"{\"a\":1}").unwrap();
/// use std::io::Seek;
/// file.rewind().unwrap();
/// assert_eq!(read_document(&mut file).unwrap(), b"{\"a\":1}");
/// ```
pub fn read_document(file: &mut File) -> Result<Vec<u8>, DocumentError> {
    let size = file.metadata()?.len();
    if size > MAX_DOCUMENT_BYTES {
        return Err(DocumentError::TooLarge { size });
    }
    read_bounded(file, size)
}

/// Reads at most [`MAX_DOCUMENT_BYTES`] bytes, failing as soon as one more is available.
pub fn read_bounded(reader: impl Read, size_hint: u64) -> Result<Vec<u8>, DocumentError> {
    // The hint comes from fstat and is at most the limit; the buffer grows past it only if the file grew.
    let mut bytes = Vec::with_capacity(usize::try_from(size_hint.min(MAX_DOCUMENT_BYTES)).unwrap_or(0));
    reader.take(MAX_DOCUMENT_BYTES + 1).read_to_end(&mut bytes)?;
    let read = bytes.len() as u64;
    if read > MAX_DOCUMENT_BYTES {
        return Err(DocumentError::TooLarge { size: read });
    }
    Ok(bytes)
}
