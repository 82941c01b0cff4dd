//! Why worker output was rejected: typed errors that keep the rejected relative path, the selected schema, the
//! expected and observed size or digest, or the JSON and schema diagnostics.

use std::fmt;
use std::io;
use std::path::PathBuf;

use metewand_protocol::ParseError;
use metewand_protocol::decode::SchemaDiagnostic;

use crate::files::read::FileError;
use crate::files::{EntryType, PathError, Sha256Digest};

/// Which kind of output was being validated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Artifact {
    /// A dataset materializer's output.
    Dataset,
    /// An implementation's result.
    Result,
    /// A problem evaluator's metrics.
    Metrics,
}

impl fmt::Display for Artifact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Artifact::Dataset => "dataset",
            Artifact::Result => "result",
            Artifact::Metrics => "metrics",
        })
    }
}

/// How a file changed after the walk found it, or while it was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// Nothing is at its path any more.
    Vanished,
    /// Its path now names a different file.
    Replaced,
    /// Its path now names something that is not a regular file.
    TypeChanged {
        /// What is there now.
        found: EntryType,
    },
    /// More bytes were read than `fstat` reported when it was opened.
    Grew {
        /// The size `fstat` reported.
        expected: u64,
        /// The bytes read by the time the read stopped.
        observed: u64,
    },
    /// Fewer bytes were read than `fstat` reported when it was opened.
    Shrank {
        /// The size `fstat` reported.
        expected: u64,
        /// The bytes read.
        observed: u64,
    },
    /// `fstat` after the read disagrees with `fstat` before it (size, links or modification times).
    Modified,
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Change::Vanished => write!(f, "vanished after the walk found it"),
            Change::Replaced => write!(f, "was replaced by another file after the walk found it"),
            Change::TypeChanged { found } => write!(f, "became {found} after the walk found a regular file"),
            Change::Grew { expected, observed } => {
                write!(f, "grew while it was read: {observed} bytes read of the {expected} it had when opened")
            }
            Change::Shrank { expected, observed } => {
                write!(f, "shrank while it was read: {observed} bytes read of the {expected} it had when opened")
            }
            Change::Modified => write!(f, "was modified while it was read"),
        }
    }
}

/// What is wrong with the output directory itself.
#[derive(Debug, thiserror::Error)]
pub enum RootProblem {
    /// It does not exist or cannot be opened.
    #[error("cannot be opened: {0}")]
    Unavailable(io::Error),
    /// Its permissions deny the executor access: the worker's doing.
    #[error("cannot be read: {0}")]
    Unreadable(io::Error),
    /// It is a symbolic link, which is never followed.
    #[error("is a symbolic link, which Metewand never follows")]
    SymbolicLink,
    /// It is not a directory.
    #[error("is not a directory")]
    NotADirectory,
}

/// Every way worker output can fail validation.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ValidationErrorKind {
    /// The output directory cannot be used.
    #[error("the output directory {}", .problem)]
    Root {
        /// What is wrong.
        problem: RootProblem,
    },
    /// The response names a manifest path that is not a normalized relative path.
    #[error("the response names manifest path {path:?}, which {reason}")]
    ManifestPath {
        /// The path as the worker sent it.
        path: String,
        /// Why it was refused.
        reason: PathError,
    },
    /// The response names a manifest other than the fixed name.
    #[error("the response names manifest {path:?}, but the manifest must be {expected:?} at the output's root")]
    ManifestName {
        /// The path as the worker sent it.
        path: String,
        /// The fixed name.
        expected: &'static str,
    },
    /// The data names a file (a string its schema marks `"format": "metewand-file"`) that the manifest does not
    /// declare.
    #[error("{pointer} names the file {path:?}, which the manifest does not declare")]
    NamedFileMissing {
        /// The JSON pointer of the string in the manifest.
        pointer: String,
        /// The file it names.
        path: String,
    },
    /// The manifest (or the metrics document) is not there.
    #[error("{path:?} does not exist")]
    ManifestMissing {
        /// The fixed name.
        path: String,
    },
    /// An entry's name is not UTF-8.
    #[error("{path:?} has a name that is not UTF-8")]
    NonUtf8Name {
        /// The path, shown lossily.
        path: String,
    },
    /// An entry that is not a regular file or directory: a symbolic link, FIFO, socket, device or other.
    #[error("{path:?} is {found}; only regular files and the directories that contain them are allowed")]
    SpecialEntry {
        /// The entry's path.
        path: String,
        /// What it is.
        found: EntryType,
    },
    /// Directories nested too deep.
    #[error("{path:?} is nested deeper than {} directories", crate::files::MAX_WALK_DEPTH)]
    TooDeep {
        /// The first directory too deep.
        path: String,
    },
    /// An entry changed while the output was walked or read.
    #[error("{path:?} {change}")]
    Changed {
        /// The entry's path.
        path: String,
        /// How.
        change: Change,
    },
    /// A document is larger than the 64 MiB limit.
    #[error(
        "{path:?} is {size} bytes, more than the {}-byte limit for a document",
        crate::document::MAX_DOCUMENT_BYTES
    )]
    DocumentTooLarge {
        /// The document's path.
        path: String,
        /// Its size.
        size: u64,
    },
    /// A document is not in the restricted JSON domain.
    #[error("{path:?} is not in the restricted JSON domain: {error}")]
    Json {
        /// The document's path.
        path: String,
        /// The parser's diagnosis.
        error: ParseError,
    },
    /// A document or its data does not satisfy a schema.
    #[error("{path:?} does not satisfy {schema}: {}", crate::diagnostic::join(.diagnostics))]
    Schema {
        /// The document's path.
        path: String,
        /// The schema's id: the public schema, or the one the repository selects.
        schema: String,
        /// Every violation, with JSON pointers into the document.
        diagnostics: Vec<SchemaDiagnostic>,
    },
    /// The document names a schema other than the one the repository selects.
    #[error("{path:?} names schema {named:?}, but the repository selects {selected:?}")]
    SchemaMismatch {
        /// The document's path.
        path: String,
        /// The schema it names.
        named: String,
        /// The schema the dataset definition or problem contract selects.
        selected: String,
    },
    /// A declared path that is not a normalized relative path.
    #[error("the manifest declares path {path:?}, which {reason}")]
    InvalidPath {
        /// The path as declared.
        path: String,
        /// Why it was refused.
        reason: PathError,
    },
    /// A path declared twice.
    #[error("the manifest declares {path:?} twice")]
    DuplicatePath {
        /// The path.
        path: String,
    },
    /// The manifest declares itself.
    #[error("the manifest declares itself ({path:?}); its own digest cannot be in it")]
    ManifestDeclaresItself {
        /// The manifest's path.
        path: String,
    },
    /// A regular file the manifest does not declare.
    #[error("{path:?} is not declared in the manifest")]
    UndeclaredFile {
        /// The file's path.
        path: String,
    },
    /// A directory that holds no declared file.
    #[error("directory {path:?} holds no declared file")]
    UndeclaredDirectory {
        /// The directory's path.
        path: String,
    },
    /// An entry of a streamed result's `checkpoints/` that is no checkpoint the worker announced.
    #[error("{path:?} is not the folder of a checkpoint the worker announced (it announced {announced})")]
    UnannouncedCheckpoint {
        /// The entry's path, relative to the result folder.
        path: String,
        /// How many checkpoints the worker announced.
        announced: u64,
    },
    /// A file beside the metrics document.
    #[error("{path:?} is beside {expected:?}, which must be the only file in the evaluator's output")]
    ExtraFile {
        /// The file's path.
        path: String,
        /// The metrics document's name.
        expected: &'static str,
    },
    /// A declared file that is not there.
    #[error("{path:?} is declared in the manifest but does not exist")]
    MissingFile {
        /// The path.
        path: String,
    },
    /// A declared path that names something other than a regular file.
    #[error("{path:?} is declared in the manifest but is {found}")]
    NotRegularFile {
        /// The path.
        path: String,
        /// What it is.
        found: EntryType,
    },
    /// A file with more than one hard link.
    #[error("{path:?} has {links} hard links; an artifact's files must have exactly one")]
    MultipleLinks {
        /// The path.
        path: String,
        /// Its link count.
        links: u64,
    },
    /// A file whose size is not the declared one.
    #[error("{path:?} is {observed} bytes, but the manifest declares {expected}")]
    SizeMismatch {
        /// The path.
        path: String,
        /// The declared size.
        expected: u64,
        /// The size on the descriptor.
        observed: u64,
    },
    /// A file whose digest is not the declared one.
    #[error("{path:?} has SHA-256 {observed}, but the manifest declares {expected}")]
    DigestMismatch {
        /// The path.
        path: String,
        /// The declared digest.
        expected: Sha256Digest,
        /// The digest of what was read.
        observed: Sha256Digest,
    },
    /// The worker left an entry the executor may not read (its permissions deny it).
    #[error("{path:?} cannot be read: {source}")]
    Unreadable {
        /// The path (empty for the output directory itself).
        path: String,
        /// The system's reason.
        source: io::Error,
    },
    /// The manifest declares more bytes in all than the repository's `[limits] output_bytes` allows.
    #[error(
        "the manifest declares {declared} bytes in all, more than the repository's limit of {limit} (`[limits] output_bytes`)"
    )]
    OutputTooLarge {
        /// The sum of the declared sizes.
        declared: u64,
        /// The limit.
        limit: u64,
    },
    /// The validation was cancelled (the cancel flag was set) before it finished: neither valid nor invalid.
    #[error("the validation was cancelled")]
    Cancelled,
    /// The system refused an operation for a reason of its own: an executor error, not the worker's.
    #[error("{path:?} cannot be read: {source}")]
    Io {
        /// The path.
        path: String,
        /// The system's reason.
        source: io::Error,
    },
}

/// Worker output that failed validation: which output, where, and why.
#[derive(Debug)]
pub struct ValidationError(Box<Inner>);

#[derive(Debug)]
struct Inner {
    artifact: Artifact,
    root: PathBuf,
    kind: ValidationErrorKind,
}

impl ValidationError {
    pub(crate) fn new(artifact: Artifact, root: PathBuf, kind: ValidationErrorKind) -> ValidationError {
        ValidationError(Box::new(Inner { artifact, root, kind }))
    }

    /// Which kind of output.
    pub fn artifact(&self) -> Artifact {
        self.0.artifact
    }

    /// The output directory.
    pub fn root(&self) -> &std::path::Path {
        &self.0.root
    }

    /// Why it was rejected.
    pub fn kind(&self) -> &ValidationErrorKind {
        &self.0.kind
    }

    /// Why it was rejected, by value.
    pub fn into_kind(self) -> ValidationErrorKind {
        self.0.kind
    }

    /// Whether the validation was cancelled rather than finished.
    pub fn is_cancelled(&self) -> bool {
        matches!(self.0.kind, ValidationErrorKind::Cancelled)
    }

    /// Whether the failure is the executor's (an I/O error, or an output directory that cannot be opened) rather
    /// than the worker's output being invalid.
    pub fn is_io_error(&self) -> bool {
        matches!(
            self.0.kind,
            ValidationErrorKind::Io { .. } | ValidationErrorKind::Root { problem: RootProblem::Unavailable(_) }
        )
    }
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid {} output in {}: {}", self.0.artifact, self.0.root.display(), self.0.kind)
    }
}

impl std::error::Error for ValidationError {}

/// The error kind for a failed checked read of a file the walk found.
pub(crate) fn file_error_kind(path: &str, error: FileError) -> ValidationErrorKind {
    let path = path.to_owned();
    let changed = |change| ValidationErrorKind::Changed { path: path.clone(), change };
    match error {
        FileError::Missing => changed(Change::Vanished),
        FileError::SymbolicLink => changed(Change::TypeChanged { found: EntryType::SymbolicLink }),
        FileError::NotRegular { found } => changed(Change::TypeChanged { found }),
        FileError::Replaced => changed(Change::Replaced),
        FileError::LengthChanged { expected, observed, grew: true } => changed(Change::Grew { expected, observed }),
        FileError::LengthChanged { expected, observed, grew: false } => changed(Change::Shrank { expected, observed }),
        FileError::ChangedDuringRead => changed(Change::Modified),
        FileError::MultipleLinks { links } => ValidationErrorKind::MultipleLinks { path, links },
        FileError::SizeMismatch { expected, observed } => {
            ValidationErrorKind::SizeMismatch { path, expected, observed }
        }
        FileError::TooLarge { size } => ValidationErrorKind::DocumentTooLarge { path, size },
        FileError::DigestMismatch { expected, observed } => {
            ValidationErrorKind::DigestMismatch { path, expected, observed }
        }
        FileError::Io { source } | FileError::Write { source } => io_kind(path, source),
        FileError::Cancelled => ValidationErrorKind::Cancelled,
    }
}

/// An I/O failure on a path: the worker's doing when permissions deny access, the executor's otherwise.
pub(crate) fn io_kind(path: String, source: io::Error) -> ValidationErrorKind {
    if source.kind() == io::ErrorKind::PermissionDenied {
        ValidationErrorKind::Unreadable { path, source }
    } else {
        ValidationErrorKind::Io { path, source }
    }
}
