//! What a status read from its tally reads of the index: the lines appended to its parts since the tally took them
//! in, and the attempts counted without an entry, looked at again as a reading of the whole index looks at them.

use std::path::Path;
use std::time::SystemTime;

use metewand_runtime::Sha256Digest;
use metewand_runtime::files::Dir;

use crate::index::{Extent, INDEX_DIR, IndexEntry, IndexWriter, Key, Parts, Records, look, part_names};
use crate::own::Found;
use crate::trust::{Listed, PROBED, fill_at};

/// A line appended to a part past the extent a reading took in, with what it says of its record.
pub(crate) struct Appended {
    pub(crate) attempt_id: String,
    pub(crate) size: u64,
    pub(crate) sha256: [u8; 32],
    pub(crate) line: Vec<u8>,
}

/// How many bytes may have been appended to the index since a reading for [`appended`] to read them: past it, a
/// reading of the whole index (which reads the parts a block at a time, and leaves a tally that takes them in)
/// holds less and costs about as much.
const APPENDED_READ: u64 = 64 << 20;

/// The whole lines appended to `folder`'s index since a reading took in `extents`, with the extents that take them
/// in too; `None` when a part read then is gone, shorter, or another file now (the index was merged or changed by
/// hand), so that only a reading of the whole index tells what it holds, or when more than [`APPENDED_READ`] bytes
/// were appended.
pub(crate) fn appended(folder: &Path, extents: &[Extent]) -> Option<(Vec<Extent>, Vec<Appended>)> {
    let path = folder.join(INDEX_DIR);
    let dir = match Dir::open(&path) {
        Ok(dir) => dir,
        Err(_) if extents.is_empty() && std::fs::symlink_metadata(&path).is_err() => {
            return Some((Vec::new(), Vec::new()));
        }
        Err(_) => return None,
    };
    let mut names = part_names(&path)?;
    names.sort();
    if extents.iter().any(|extent| !names.contains(&extent.name)) {
        return None;
    }
    // Every part is checked before any is read.
    let mut opened = Vec::new();
    for name in names {
        let extent = extents.iter().find(|extent| extent.name == name);
        // What is not a regular file is no part, as for a whole reading; unless it was one.
        let Ok(Some(file)) = dir.open_file(&name) else {
            if extent.is_some() {
                return None;
            }
            continue;
        };
        let stat = rustix::fs::fstat(&file).ok()?;
        let size = u64::try_from(stat.st_size).ok()?;
        let from = match extent {
            Some(extent) if extent.inode != stat.st_ino || extent.len > size => return None,
            Some(extent) => extent.len,
            None => 0,
        };
        opened.push((name, file, stat.st_ino, from, size));
    }
    if opened.iter().map(|(_, _, _, from, size)| size - from).sum::<u64>() > APPENDED_READ {
        return None;
    }
    let (mut now, mut lines) = (Vec::new(), Vec::new());
    for (name, file, inode, from, size) in opened {
        let mut bytes = vec![0; usize::try_from(size - from).ok()?];
        let filled = fill_at(&file, &mut bytes, from);
        bytes.truncate(filled);
        let whole = bytes.iter().rposition(|&byte| byte == b'\n').map_or(0, |last| last + 1);
        for line in bytes[..whole].split_inclusive(|&byte| byte == b'\n') {
            let Some(key) = Key::of(line) else { continue };
            let Ok(sha256) = key.record.sha256.parse::<Sha256Digest>() else { continue };
            let (attempt_id, size) = (key.attempt_id.to_owned(), key.record.size);
            lines.push(Appended { attempt_id, size, sha256: *sha256.as_bytes(), line: line.to_vec() });
        }
        now.push(Extent { name, inode, len: from + whole as u64 });
    }
    Some((now, lines))
}

/// What the folders of planned attempts that have no entry hold (`ids`, of a plan of `planned`), read as a trusting
/// reading of the whole index reads them (their records read, or `attempts/` listed once when they are many), the
/// entries made on the way appended to a new `read-…` part; with that part's extent, when one was written.
pub(crate) fn unindexed(folder: &Path, ids: &[&str], planned: usize) -> (Vec<Found<Box<IndexEntry>>>, Option<Extent>) {
    let began = SystemTime::now();
    let listed = (ids.len() > PROBED || ids.len() * 4 > planned).then(|| Listed::all(folder)).flatten();
    let (records, parts, writer) = (Records::open(folder), Parts::none(), IndexWriter::new(folder, "read"));
    let mut fresh = Vec::new();
    let found = ids
        .iter()
        .map(|id| {
            if listed.as_ref().is_some_and(|listed| !listed.holds(id)) {
                return Found::Missing;
            }
            let (found, line, made) = look(&records, id, &[], &parts, began);
            if let Some(line) = line.filter(|_| made) {
                fresh.extend_from_slice(&line);
            }
            found
        })
        .collect();
    // The index is a cache of the records: failing to write it loses nothing.
    let _ = writer.append(&fresh);
    (found, writer.extent())
}
