//! Checked reads: each file opened beneath its root without following links, checked on its descriptor, streamed
//! through SHA-256 and checked again, in parallel over a documented number of threads.

use std::fs::File;
use std::io::{self, Read, Write};
use std::num::NonZeroUsize;
use std::os::fd::BorrowedFd;
use std::os::unix::fs::MetadataExt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use sha2::{Digest, Sha256};

use super::path::RelativePath;
use super::walk::{EntryType, OpenError, WalkedFile, open_beneath};
use metewand_protocol::Sha256Digest;

/// The size of each thread's read buffer.
const BUFFER_BYTES: usize = 256 << 10;

/// How many bytes a checked read streams between two looks at its cancel flag: small enough that a cancel is
/// honoured well within a second at any disk's speed, large enough that the atomic load costs nothing.
pub const CANCEL_CHECK_BYTES: u64 = 4 << 20;

/// The number of threads that hash files when nothing else is said: the machine's available parallelism (one if
/// it cannot be known), as found at the first call. Finding it reads the process's cgroup and mount tables, which
/// costs more than hashing a small output, and each attempt's validation asks.
pub fn default_hash_threads() -> NonZeroUsize {
    static THREADS: std::sync::OnceLock<NonZeroUsize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().unwrap_or(NonZeroUsize::MIN))
}

/// A point during validation where a test hook runs. Tests use it to change the filesystem at exactly the moment a
/// race would, and show the change is caught.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub enum HookPoint<'a> {
    /// The walk has finished and nothing has been opened yet.
    AfterWalk,
    /// A file has been opened and checked with `fstat`; nothing has been read yet.
    BeforeRead(&'a str),
}

/// A test hook: called at each [`HookPoint`].
#[doc(hidden)]
pub type Hook = std::sync::Arc<dyn Fn(HookPoint<'_>) + Send + Sync>;

/// What a checked read expects of a file.
pub struct FileCheck<'a> {
    /// The file's path, beneath the root the walk started from.
    pub path: &'a RelativePath,
    /// What the walk saw: the descriptor must name this very file.
    pub walked: &'a WalkedFile,
    /// The declared size, if one was declared.
    pub size: Option<u64>,
    /// The declared digest, if one was declared.
    pub sha256: Option<Sha256Digest>,
    /// Whether a file with more than one hard link is refused.
    pub single_link: bool,
    /// The largest size accepted (documents).
    pub max_size: Option<u64>,
}

/// The size and digest of a file that passed its checked read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hashed {
    /// The bytes read.
    pub size: u64,
    /// Their digest.
    pub sha256: Sha256Digest,
    /// Whether any execute bit (owner, group or other) is set in the mode `fstat` reported on the descriptor.
    pub executable: bool,
}

/// What else a checked read attends to besides its file: a test hook, and a flag that ends the read once set.
#[derive(Clone, Copy, Default)]
pub struct ReadControl<'a> {
    /// Called at each [`HookPoint`] (tests only).
    pub hook: Option<&'a Hook>,
    /// Ends the read once set.
    pub cancel: Option<&'a AtomicBool>,
}

impl ReadControl<'_> {
    fn cancelled(&self) -> bool {
        self.cancel.is_some_and(|flag| flag.load(Ordering::SeqCst))
    }
}

/// Why a checked read failed. Each message follows the file's relative path (`"a/b.py" vanished ...`).
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// Nothing is at the path any more (or a directory on the way is no longer one).
    #[error("vanished after the walk found it")]
    Missing,
    /// The path's last component, or a directory on the way, is now a symbolic link.
    #[error("became a symbolic link after the walk found a regular file")]
    SymbolicLink,
    /// The descriptor names something other than a regular file.
    #[error("became {found} after the walk found a regular file")]
    NotRegular {
        /// What the descriptor names.
        found: EntryType,
    },
    /// The descriptor names a different file from the one the walk found.
    #[error("was replaced by another file after the walk found it")]
    Replaced,
    /// The file has more than one hard link.
    #[error("has {links} hard links, where exactly one is required")]
    MultipleLinks {
        /// The link count.
        links: u64,
    },
    /// The size on the descriptor is not the declared one.
    #[error("is {observed} bytes, but {expected} were expected")]
    SizeMismatch {
        /// The expected size.
        expected: u64,
        /// The size on the descriptor.
        observed: u64,
    },
    /// The file is larger than the largest accepted size.
    #[error("is {size} bytes, more than the limit")]
    TooLarge {
        /// The size on the descriptor.
        size: u64,
    },
    /// The read returned a different number of bytes from the size `fstat` reported when the file was opened.
    #[error(
        "{} while it was read: {observed} bytes read of the {expected} it had when opened",
        if *.grew { "grew" } else { "shrank" }
    )]
    LengthChanged {
        /// The size `fstat` reported.
        expected: u64,
        /// The bytes read by the time the read stopped.
        observed: u64,
        /// Whether more bytes came than expected.
        grew: bool,
    },
    /// `fstat` after the read disagrees with `fstat` before it (size, type, links or modification times).
    #[error("was modified while it was read")]
    ChangedDuringRead,
    /// The contents' digest is not the declared one.
    #[error("has SHA-256 {observed}, but {expected} was expected")]
    DigestMismatch {
        /// The expected digest.
        expected: Sha256Digest,
        /// The digest of what was read.
        observed: Sha256Digest,
    },
    /// The system refused an operation.
    #[error("cannot be read: {source}")]
    Io {
        /// The system's reason.
        source: io::Error,
    },
    /// Writing what was read (a copy) failed.
    #[error("cannot be written: {source}")]
    Write {
        /// The system's reason.
        source: io::Error,
    },
    /// The cancel flag was set before the read finished.
    #[error("was not finished: the read was cancelled")]
    Cancelled,
}

impl FileError {
    fn open(error: OpenError) -> FileError {
        match error {
            OpenError::Missing => FileError::Missing,
            OpenError::SymbolicLink => FileError::SymbolicLink,
            OpenError::NotADirectory { found } => FileError::NotRegular { found },
            OpenError::Io(source) => FileError::Io { source },
        }
    }
}

fn read_retrying(file: &mut File, buffer: &mut [u8]) -> io::Result<usize> {
    loop {
        match file.read(buffer) {
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            result => return result,
        }
    }
}

/// Opens one file beneath `root`, checks it on its descriptor, streams it through SHA-256 (writing the bytes to
/// `sink` when given) and checks it again. At most one byte more than the size `fstat` reported is ever read (the
/// byte that shows the file grew), so a file that never ends cannot make the read go on.
pub fn read_checked(
    root: BorrowedFd<'_>,
    check: &FileCheck<'_>,
    buffer: &mut [u8],
    mut sink: Option<&mut dyn Write>,
    control: ReadControl<'_>,
) -> Result<Hashed, FileError> {
    if control.cancelled() {
        return Err(FileError::Cancelled);
    }
    let mut file = open_beneath(root, check.path).map_err(FileError::open)?;
    let before = file.metadata().map_err(|source| FileError::Io { source })?;
    let found = EntryType::from_std(before.file_type());
    if found != EntryType::RegularFile {
        return Err(FileError::NotRegular { found });
    }
    if (before.dev(), before.ino()) != (check.walked.dev, check.walked.ino) {
        return Err(FileError::Replaced);
    }
    if check.single_link && before.nlink() != 1 {
        return Err(FileError::MultipleLinks { links: before.nlink() });
    }
    let size = before.len();
    if let Some(expected) = check.size
        && expected != size
    {
        return Err(FileError::SizeMismatch { expected, observed: size });
    }
    if let Some(limit) = check.max_size
        && size > limit
    {
        return Err(FileError::TooLarge { size });
    }
    if let Some(hook) = control.hook {
        hook(HookPoint::BeforeRead(check.path.as_str()));
    }
    let mut hasher = Sha256::new();
    let mut total: u64 = 0;
    let mut unchecked: u64 = 0;
    loop {
        // Never ask for more than one byte past the size seen when the file was opened.
        let wanted = usize::try_from((size - total).saturating_add(1)).unwrap_or(usize::MAX).min(buffer.len());
        let read = read_retrying(&mut file, &mut buffer[..wanted]).map_err(|source| FileError::Io { source })?;
        if read == 0 {
            break;
        }
        total += read as u64;
        if total > size {
            return Err(FileError::LengthChanged { expected: size, observed: total, grew: true });
        }
        hasher.update(&buffer[..read]);
        if let Some(sink) = sink.as_deref_mut() {
            sink.write_all(&buffer[..read]).map_err(|source| FileError::Write { source })?;
        }
        unchecked += read as u64;
        if unchecked >= CANCEL_CHECK_BYTES {
            unchecked = 0;
            if control.cancelled() {
                return Err(FileError::Cancelled);
            }
        }
    }
    if total != size {
        return Err(FileError::LengthChanged { expected: size, observed: total, grew: false });
    }
    let after = file.metadata().map_err(|source| FileError::Io { source })?;
    let unchanged = after.file_type() == before.file_type()
        && after.len() == size
        && after.nlink() == before.nlink()
        && (after.mtime(), after.mtime_nsec()) == (before.mtime(), before.mtime_nsec())
        && (after.ctime(), after.ctime_nsec()) == (before.ctime(), before.ctime_nsec());
    if !unchanged {
        return Err(FileError::ChangedDuringRead);
    }
    let sha256 = Sha256Digest::from_hasher(hasher);
    if let Some(expected) = check.sha256
        && expected != sha256
    {
        return Err(FileError::DigestMismatch { expected, observed: sha256 });
    }
    Ok(Hashed { size, sha256, executable: before.mode() & 0o111 != 0 })
}

/// Runs [`read_checked`] on every file, over at most `threads` threads. On failure, returns the failure of the
/// first file in `checks` order that failed: once a file fails no new file is started, and every file before it
/// was started earlier (files are taken in order), so the answer does not depend on scheduling.
pub fn hash_all(
    root: BorrowedFd<'_>,
    checks: &[FileCheck<'_>],
    threads: NonZeroUsize,
    control: ReadControl<'_>,
) -> Result<Vec<Hashed>, (usize, FileError)> {
    let threads = threads.get().min(checks.len()).max(1);
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let work = || {
        let mut buffer = vec![0; BUFFER_BYTES];
        let mut done = Vec::new();
        while !failed.load(Ordering::Relaxed) {
            let index = next.fetch_add(1, Ordering::Relaxed);
            let Some(check) = checks.get(index) else { break };
            let result = read_checked(root, check, &mut buffer, None, control);
            if result.is_err() {
                failed.store(true, Ordering::Relaxed);
            }
            done.push((index, result));
        }
        done
    };
    let mut results: Vec<Option<Result<Hashed, FileError>>> = checks.iter().map(|_| None).collect();
    let batches = if threads == 1 {
        vec![work()]
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads).map(|_| scope.spawn(work)).collect();
            handles.into_iter().map(|handle| handle.join().expect("a hashing thread panicked")).collect()
        })
    };
    for (index, result) in batches.into_iter().flatten() {
        results[index] = Some(result);
    }
    let mut hashed = Vec::with_capacity(checks.len());
    for (index, result) in results.into_iter().enumerate() {
        match result {
            Some(Ok(file)) => hashed.push(file),
            Some(Err(error)) => return Err((index, error)),
            None => unreachable!("every file before the first failure was hashed"),
        }
    }
    Ok(hashed)
}
