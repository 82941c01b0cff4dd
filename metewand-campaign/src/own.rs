//! Reading a campaign folder's own files: opened without following a link or blocking on a FIFO, bounded like every
//! document, and an attempt's record checked against its schema and the id it is filed under. The folder
//! ([`crate::folder`]) and its index ([`crate::index`]) both read through here.

use std::fs::{self, File};
use std::io;
use std::path::Path;

use metewand_protocol::generated::attempt_record::{AttemptRecord, Outcome};
use metewand_runtime::attempt::RECORD_FILE;
use metewand_runtime::document::read_document;
use metewand_runtime::files::{Dir, FsError};

/// Opens one of the folder's own files for reading without following a link or blocking on a FIFO: only a
/// regular file is read, `Ok(None)` when nothing (or no folder) is there.
pub(crate) fn open_own(dir: &Path, name: &str) -> Result<Option<File>, FsError> {
    match Dir::open(dir) {
        Ok(dir) => dir.open_file(name),
        Err(FsError::Io { source, .. }) if source.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(error),
    }
}

/// The system's error of a failed file operation, or one saying what was in the way.
pub(crate) fn fs_io(error: FsError) -> io::Error {
    match error {
        FsError::Io { source, .. } => source,
        unexpected @ FsError::Unexpected { .. } => io::Error::other(unexpected.to_string()),
    }
}

/// What an attempt's folder holds: its record (`R`), read whole or as its index entry.
#[derive(Debug)]
pub enum Found<R = Box<AttemptRecord>> {
    /// No folder.
    Missing,
    /// A folder without `attempt.json`: an attempt that was interrupted before its record.
    Unfinished,
    /// A record that fails its schema or names another attempt.
    Invalid(String),
    /// A valid record of this attempt.
    Record(R),
}

impl Found {
    /// The outcome, for a valid record.
    pub fn outcome(&self) -> Option<Outcome> {
        match self {
            Found::Record(record) => Some(record.outcome),
            _ => None,
        }
    }
}

/// Reads `attempts/<id>/attempt.json` of a campaign folder, checked against the schema (through the generated
/// types) and against the id it is filed under.
pub fn read_attempt(folder: &Path, id: &str) -> Found {
    match read_record_bytes(&folder.join("attempts").join(id)) {
        Ok(bytes) => parse_record(&bytes, id),
        Err(found) => found,
    }
}

/// The bytes of `attempt.json` in the attempt folder `dir`, read without following a link or blocking; what the
/// folder holds instead when there is no record to read.
pub(crate) fn read_record_bytes<R>(dir: &Path) -> Result<Vec<u8>, Found<R>> {
    match open_own(dir, RECORD_FILE) {
        Ok(Some(mut file)) => {
            read_document(&mut file).map_err(|error| Found::Invalid(format!("cannot be read: {error}")))
        }
        Ok(None) => Err(absent(dir)),
        Err(error) => Err(Found::Invalid(format!("cannot be read: {error}"))),
    }
}

/// What the attempt folder `dir` holds when it has no `attempt.json`: an unfinished attempt, or no folder at all.
pub(crate) fn absent<R>(dir: &Path) -> Found<R> {
    if fs::symlink_metadata(dir).is_ok() { Found::Unfinished } else { Found::Missing }
}

/// A record's bytes checked against the schema and against the id `id` it is filed under.
pub(crate) fn parse_record(bytes: &[u8], id: &str) -> Found {
    let record: AttemptRecord = match serde_json::from_slice(bytes) {
        Ok(record) => record,
        Err(error) => return Found::Invalid(format!("fails the attempt-record schema: {error}")),
    };
    match &record.campaign {
        Some(campaign) if campaign.attempt_id.as_str() == id => Found::Record(Box::new(record)),
        Some(campaign) => Found::Invalid(format!("names attempt {}, not {id}", campaign.attempt_id.as_str())),
        None => Found::Invalid("has no campaign field: it was not written by a campaign".to_owned()),
    }
}
