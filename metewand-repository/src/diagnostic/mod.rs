//! Check errors: one sentence each, with the file, line and column of the mistake. A leaf of the crate: the
//! repository loader and the schema catalog both report through it, and it depends on neither.

pub(crate) mod locate;

use std::fmt;
use std::io;
use std::path::PathBuf;

use metewand_protocol::ParseError;
use metewand_protocol::decode::SchemaDiagnostic;

use crate::files::{EntryType, PathError};

/// Where a mistake is: a file (relative to the repository where it is inside it) and, almost always, a line and
/// column (1-based; columns count Unicode scalar values).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The file, relative to the repository when it is inside it (`metewand.toml`, `schemas/result.schema.json`).
    pub file: PathBuf,
    /// The line and column, when the mistake is at a place in the file rather than the whole file.
    pub position: Option<(usize, usize)>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Some((line, column)) => write!(f, "{}:{line}:{column}", self.file.display()),
            None => write!(f, "{}", self.file.display()),
        }
    }
}

/// A mistake in a benchmark repository: what it is and where.
///
/// Its `Display` is one sentence, `<file>:<line>:<column>: <what>`, for example
/// `metewand.toml:12:9: implementation "exact" names worker "judge", whose role is problem_evaluator, not
/// implementation`.
#[derive(Debug)]
pub struct CheckError(Box<(Location, CheckErrorKind)>);

impl CheckError {
    pub(crate) fn new(location: Location, kind: CheckErrorKind) -> CheckError {
        CheckError(Box::new((location, kind)))
    }

    /// Where the mistake is.
    pub fn location(&self) -> &Location {
        &self.0.0
    }

    /// What the mistake is.
    pub fn kind(&self) -> &CheckErrorKind {
        &self.0.1
    }
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location(), self.kind())
    }
}

impl std::error::Error for CheckError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self.kind() {
            CheckErrorKind::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Why a value cannot be written in Metewand's JSON domain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotJsonReason {
    /// A TOML offset date-time, local date-time, local date or local time.
    #[error("a TOML date or time has no JSON form")]
    DateTime,
    /// `nan`.
    #[error("nan is not a JSON number")]
    NotANumber,
    /// `inf` or `-inf`.
    #[error("an infinite number is not a JSON number")]
    Infinite,
    /// An integer a double cannot hold exactly.
    #[error("an integer beyond ±(2^53 − 1) would change value in JSON")]
    IntegerOutOfRange,
}

/// Which of the three reference kinds of a `$ref` failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UnresolvedRef {
    /// No catalog document or embedded resource has the reference's URI.
    OutsideCatalog {
        /// The absolute URI the reference resolves to, without its fragment.
        target: String,
    },
    /// The document exists, but the fragment names nothing in it.
    NoSuchFragment {
        /// The absolute URI the reference resolves to, without its fragment.
        target: String,
        /// The fragment (a JSON pointer or an anchor name).
        fragment: String,
    },
    /// The reference is not a valid URI reference.
    Malformed {
        /// What the URI parser said.
        message: String,
    },
}

/// Every kind of mistake a repository check reports.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CheckErrorKind {
    /// A file or directory could not be read.
    #[error("cannot read {what}: {source}")]
    Io {
        /// What was being read.
        what: String,
        /// The system's reason.
        source: io::Error,
    },
    /// A document is larger than the 64 MiB limit.
    #[error("{what} is {size} bytes, more than the {}-byte limit for a document", crate::document::MAX_DOCUMENT_BYTES)]
    TooLarge {
        /// Which document.
        what: String,
        /// Its size.
        size: u64,
    },
    /// `metewand.toml` is not valid TOML.
    #[error("invalid TOML: {message}")]
    Toml {
        /// The TOML parser's description.
        message: String,
    },
    /// A key the format does not define.
    #[error("unknown key {key:?} in {table}{}", did_you_mean_suffix(.suggestion))]
    UnknownKey {
        /// The table holding it (`[workers.gen]`, `the top level`).
        table: String,
        /// The key.
        key: String,
        /// The allowed key it most resembles, if one is close.
        suggestion: Option<String>,
    },
    /// A required key is absent.
    #[error("{table} lacks the required key {key:?}")]
    MissingKey {
        /// The table that should hold it.
        table: String,
        /// The key.
        key: String,
    },
    /// A value of the wrong TOML type.
    #[error("{key} must be {expected}, not {found}")]
    WrongType {
        /// The dotted key of the value.
        key: String,
        /// What the format requires.
        expected: &'static str,
        /// What was written.
        found: &'static str,
    },
    /// A value of the right type that the format does not accept.
    #[error("{key} {message}")]
    InvalidValue {
        /// The dotted key of the value.
        key: String,
        /// What is wrong with it, as the rest of the sentence.
        message: String,
    },
    /// `format` is not 1.
    #[error("format must be 1, the only format this version of Metewand reads, not {found}")]
    UnsupportedFormat {
        /// What was written.
        found: String,
    },
    /// A TOML value with no JSON form.
    #[error("{key} cannot be written in JSON: {reason}")]
    NotJson {
        /// The dotted key of the value.
        key: String,
        /// Why.
        reason: NotJsonReason,
    },
    /// A `${...}` other than `${repo}` in a command or env value, or an unterminated `${`.
    #[error("{key} has {found:?}, but only ${{repo}} is expanded (write $${{ for a literal ${{)")]
    Substitution {
        /// The dotted key of the value.
        key: String,
        /// The substitution found.
        found: String,
    },
    /// A reference to a worker that is not declared.
    #[error("{owner} names worker {worker:?}, which is not declared{}", did_you_mean_suffix(.suggestion))]
    UnknownWorker {
        /// Who names it (`dataset "small"`).
        owner: String,
        /// The worker's name.
        worker: String,
        /// The declared worker it most resembles, if one is close.
        suggestion: Option<String>,
    },
    /// A reference to a worker of another role.
    #[error("{owner} names worker {worker:?}, whose role is {role}, not {expected}")]
    WrongRole {
        /// Who names it (`implementation "exact"`).
        owner: String,
        /// The worker's name.
        worker: String,
        /// The worker's role.
        role: String,
        /// The role required.
        expected: String,
    },
    /// A schema id that no catalog document has.
    #[error(
        "{key} names schema {id:?}, which is not in the catalog (the repository's schema files and Metewand's public schemas)"
    )]
    UnknownSchema {
        /// The dotted key of the reference.
        key: String,
        /// The id.
        id: String,
    },
    /// An external folder's definition whose name the benchmark (or an external folder joined before) defines.
    #[error(
        "{kind} {name:?} is already defined by {by}; an external folder adds its own names beside the benchmark's and \
         redefines none"
    )]
    Redefined {
        /// `worker` or `implementation`.
        kind: &'static str,
        /// The name.
        name: String,
        /// Who defines it: the benchmark repository or an external folder, with its path.
        by: String,
    },
    /// Two implementations with one worker identity and equal parameters, whose attempts would share their ids.
    #[error(
        "implementation {name:?} runs the same worker with the same parameters as implementation {twin:?} \
         ({twin_at}): their attempts would have the same ids; give one other parameters or remove it"
    )]
    TwinImplementations {
        /// The later implementation.
        name: String,
        /// The earlier one it repeats.
        twin: String,
        /// Where the earlier one names its worker.
        twin_at: Location,
    },
    /// A `schemas.files` glob that matches no file.
    #[error("schema glob {pattern:?} matches no file")]
    GlobMatchesNothing {
        /// The pattern as written.
        pattern: String,
    },
    /// A `schemas.files` glob that is not a valid pattern inside the repository.
    #[error("schema glob {pattern:?} {reason}")]
    InvalidGlob {
        /// The pattern as written.
        pattern: String,
        /// Why, as the rest of the sentence.
        reason: String,
    },
    /// A schema file or inline schema that is not in the JSON domain.
    #[error("not in the restricted JSON domain: {0}")]
    Json(ParseError),
    /// A schema document's `$id` is missing or unusable.
    #[error("{message}")]
    SchemaId {
        /// What is wrong, as a sentence.
        message: String,
    },
    /// Two schema documents with one `$id`.
    #[error("schema id {id:?} is declared twice; the first is in {first}")]
    DuplicateSchemaId {
        /// The id.
        id: String,
        /// Where the first declaration is.
        first: String,
    },
    /// A `$ref` that does not resolve inside the catalog.
    #[error("{}", describe_ref(.reference, .problem))]
    UnresolvedRef {
        /// The reference as written.
        reference: String,
        /// Why it does not resolve.
        problem: UnresolvedRef,
    },
    /// A schema that is not a valid draft 2020-12 schema.
    #[error("schema {id:?} is not a valid draft 2020-12 schema: {message}")]
    InvalidSchema {
        /// The schema's id.
        id: String,
        /// What the meta-schema or the compiler said.
        message: String,
    },
    /// A parameter set that its `parameters_schema` rejects.
    #[error("parameters of {owner} do not satisfy {schema}: {}", join(.diagnostics))]
    InvalidParameters {
        /// Whose parameters (`dataset "small"`).
        owner: String,
        /// The schema's id.
        schema: String,
        /// Every violation.
        diagnostics: Vec<SchemaDiagnostic>,
    },
    /// A path in the repository that is not a normalized relative path.
    #[error("{key} {path:?} {reason}")]
    InvalidPath {
        /// The dotted key of the value.
        key: String,
        /// The path as written.
        path: String,
        /// Why.
        reason: PathError,
    },
    /// A worker's source directory or include folder does not exist (or is not a directory).
    #[error("{what} {path:?} of worker {worker:?} {problem}")]
    SourceDirectory {
        /// `source directory` or `include folder`.
        what: &'static str,
        /// The worker.
        worker: String,
        /// The source directory as written.
        path: String,
        /// What is wrong with it, as the rest of the sentence.
        problem: String,
    },
    /// Something in a worker's source directory that is not a regular file or directory.
    #[error(
        "{what} {source_dir:?} of worker {worker:?} holds {found} at {entry:?}; only regular files and directories are allowed"
    )]
    SourceEntry {
        /// `source directory` or `include folder`.
        what: &'static str,
        /// The worker.
        worker: String,
        /// The source directory as written.
        source_dir: String,
        /// The entry's path inside it.
        entry: String,
        /// What it is.
        found: EntryType,
    },
    /// A name in a source directory that is not UTF-8.
    #[error("{what} {source_dir:?} of worker {worker:?} holds a name that is not UTF-8: {entry:?}")]
    SourceNonUtf8 {
        /// `source directory` or `include folder`.
        what: &'static str,
        /// The worker.
        worker: String,
        /// The source directory as written.
        source_dir: String,
        /// The entry's path, shown lossily.
        entry: String,
    },
}

fn describe_ref(reference: &str, problem: &UnresolvedRef) -> String {
    match problem {
        UnresolvedRef::OutsideCatalog { target } => {
            format!("$ref {reference:?} leaves the catalog: no schema in it has the id {target:?}")
        }
        UnresolvedRef::NoSuchFragment { target, fragment } => {
            format!("$ref {reference:?} names #{fragment}, which is not in schema {target:?}")
        }
        UnresolvedRef::Malformed { message } => format!("$ref {reference:?} is not a valid URI reference: {message}"),
    }
}

/// Joins schema diagnostics into one clause: `at /a: ...; at the root: ...`.
pub(crate) fn join(diagnostics: &[SchemaDiagnostic]) -> String {
    let one = |d: &SchemaDiagnostic| {
        let at = if d.instance_path.is_empty() { "the root" } else { &d.instance_path };
        format!("at {at}: {}", d.message)
    };
    diagnostics.iter().map(one).collect::<Vec<_>>().join("; ")
}

/// Turns a foreign error message into the house style: lowercase first letter, no trailing period, one line.
pub(crate) fn sentence(message: &str) -> String {
    let line = message.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ");
    let trimmed = line.trim_end_matches('.');
    let mut chars = trimmed.chars();
    match chars.next() {
        Some(first) if !chars.clone().next().is_some_and(char::is_uppercase) => {
            first.to_lowercase().chain(chars).collect()
        }
        _ => trimmed.to_owned(),
    }
}

/// The one of `known` that `given` most resembles, if any is close enough to be what was meant (a typo, a dropped
/// or doubled letter), as clap judges flags.
pub fn did_you_mean<'a>(given: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    known
        .into_iter()
        .map(|candidate| (strsim::jaro_winkler(given, candidate), candidate))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, candidate)| candidate)
}

fn did_you_mean_suffix(suggestion: &Option<String>) -> String {
    suggestion.as_ref().map_or_else(String::new, |key| format!(" (did you mean {key:?}?)"))
}
