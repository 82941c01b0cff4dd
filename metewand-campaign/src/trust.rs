//! A trusting reading of the campaign index ([`Check::Entries`]): each planned attempt's entry taken as the executor
//! wrote it, without its record being opened or stat'ed; the attempts with no entry looked for by one listing of
//! `attempts/` when they are many; the lines read a window of a part at a time.

use std::collections::HashSet;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;

use crate::index::{Candidate, IndexEntry, Looked, Parts};
use crate::own::Found;

/// How a reading takes the entries of the index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// As the executor wrote them, with the records they summarize: an entry is used without opening or stat'ing its
    /// record. A record changed by hand is not noticed (`--check-records` and `metewand verify` notice it).
    Entries,
    /// Against the records: an entry is used only while its record's file has the stamp it names or its bytes hash
    /// to its digest; any other record is read and parsed.
    Records,
}

/// How many planned attempts without an entry a trusting reading looks for one by one (when they are also at most a
/// quarter of the plan); beyond it, `attempts/` is listed once instead.
pub(crate) const PROBED: usize = 1024;

/// The names in `attempts/`, listed once by a trusting reading when more than [`PROBED`] planned attempts, or more
/// than a quarter of them, have no entry (a plan not run yet, records whose entries were lost), so that those
/// without a folder cost nothing.
pub(crate) struct Listed(HashSet<Box<str>>);

impl Listed {
    /// The listing, when it is worth one; `None` when few attempts lack an entry or `attempts/` cannot be listed
    /// for another reason than its absence (each is then looked for as a checked reading does).
    pub(crate) fn of(folder: &Path, ids: &[&str], parts: &Parts) -> Option<Listed> {
        let without = (0..ids.len()).filter(|&slot| parts.slot(parts.first(slot)).is_empty()).count();
        if without <= PROBED && without * 4 <= ids.len() {
            return None;
        }
        Listed::all(folder)
    }

    /// The listing of `attempts/`; `None` where it cannot be listed for another reason than its absence.
    pub(crate) fn all(folder: &Path) -> Option<Listed> {
        match std::fs::read_dir(folder.join("attempts")) {
            Ok(entries) => Some(Listed(
                entries
                    .filter_map(Result::ok)
                    .filter_map(|entry| entry.file_name().into_string().ok())
                    .map(String::into_boxed_str)
                    .collect(),
            )),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Some(Listed(HashSet::new())),
            Err(_) => None,
        }
    }

    /// Whether `attempts/` holds `id`.
    pub(crate) fn holds(&self, id: &str) -> bool {
        self.0.contains(id)
    }
}

/// A piece of a part read at once, from which the lines of the attempts that follow are taken without a read each:
/// a writer appends its entries in plan order, so neighbours in the plan are mostly neighbours in a part.
#[derive(Default)]
pub(crate) struct Window {
    part: u32,
    offset: u64,
    bytes: Vec<u8>,
    /// Lines taken from windows, and windows read: where lines seldom follow each other, each is read alone.
    taken: usize,
    read: usize,
}

impl Window {
    /// How many bytes a window holds.
    const SPAN: usize = 1 << 20;

    /// The line of `candidate`, from this window or a new one.
    fn line(&mut self, parts: &Parts, candidate: &Candidate) -> Option<Vec<u8>> {
        let len = candidate.len as usize;
        let inside = |window: &Window| {
            window.part == candidate.part
                && candidate.offset >= window.offset
                && candidate.offset + len as u64 <= window.offset + window.bytes.len() as u64
        };
        if !inside(self) {
            if len > Window::SPAN || (self.read >= 64 && self.taken < self.read * 8) {
                return parts.line(candidate);
            }
            self.bytes.resize(Window::SPAN, 0);
            let filled = fill_at(&parts.files[candidate.part as usize], &mut self.bytes, candidate.offset);
            self.bytes.truncate(filled);
            (self.part, self.offset) = (candidate.part, candidate.offset);
            self.read += 1;
            if !inside(self) {
                return None;
            }
        }
        self.taken += 1;
        let at = (candidate.offset - self.offset) as usize;
        Some(self.bytes[at..at + len].to_vec())
    }
}

/// Reads `file` from `offset` into `bytes` until it is full or the file ends (or fails); how many bytes were read.
pub(crate) fn fill_at(file: &File, bytes: &mut [u8], offset: u64) -> usize {
    let mut filled = 0;
    while filled < bytes.len() {
        match file.read_at(&mut bytes[filled..], offset + filled as u64) {
            Ok(0) | Err(_) => break,
            Ok(read) => filled += read,
        }
    }
    filled
}

/// What a trusting reading takes for attempt `id` without touching its folder: the entry its lines agree on (the
/// last of them, the latest stamped), or no folder where the listing has none; `None` where its record must be read
/// (no entry but a folder, lines naming different bytes, a line that does not parse as its entry).
pub(crate) fn trust(
    id: &str,
    candidates: &[Candidate],
    parts: &Parts,
    listed: Option<&Listed>,
    window: &mut Window,
) -> Option<Looked> {
    let Some(last) = candidates.last() else {
        return listed.filter(|listed| !listed.holds(id)).map(|_| (Found::Missing, None, false));
    };
    if candidates.iter().any(|candidate| candidate.size != last.size || candidate.sha256 != last.sha256) {
        return None;
    }
    let line = window.line(parts, last)?;
    let entry = serde_json::from_slice::<IndexEntry>(&line).ok()?;
    let agrees = entry.attempt_id.as_str() == id
        && entry.record.size.get() == last.size
        && entry.record.sha256.as_bytes() == &last.sha256;
    agrees.then(|| (Found::Record(Box::new(entry)), Some(line), false))
}
