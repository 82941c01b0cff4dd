//! Caches of a whole reading of a campaign folder, kept in `index/` beside the tally and bound as it is: a reader
//! that needs more of each attempt than a status's counts (a report's times, metrics and failures) keeps what it
//! made of one whole reading, and the next reading of the same folder decodes that instead of parsing every entry.
//!
//! A cache is used only while everything it was made from holds:
//! - the bytes of `campaign.json` it read: the same size and SHA-256, or the same file (inode, ctime, mtime) where
//!   that file had settled when it was read;
//! - the index's parts exactly as it took them in ([`crate::index::Extent`]): no part gone, replaced, grown by a
//!   whole line or added. Unlike the tally, nothing appended is read into it: any new entry means a whole reading;
//! - the attempts it read without a record (no folder, or a folder without a record) are looked at again, as a
//!   whole reading looks at them: one that has a record now means a whole reading too;
//! - its own bytes, which begin with the reader's magic line (naming its layout) and end with their SHA-256.
//!
//! Only trusting readings ([`Check::Entries`]) use or write one: `--check-records` reads the whole index against
//! the records.

use std::io::{self, Write};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use metewand_runtime::Sha256Digest;
use metewand_runtime::files::Dir;

use crate::appended;
use crate::folder::{CampaignFile, FolderError, read_campaign_bytes};
use crate::index::{Check, Extent, INDEX_DIR, IndexEntry, Rebuild, Stamp};
use crate::own::Found;
use crate::status::{Counted, Status};
use crate::tally::PlanBytes;

/// The report's cache in the index's folder.
pub const REPORT_FILE: &str = "report.bin";

/// The caches a campaign folder's `index/` may hold, relative to the folder: a copy of the folder (a bundle) leaves
/// them out, since they are bound to the inodes of the files they were made from and no copy could use them.
pub const CACHE_FILES: [&str; 2] = ["index/tally.bin", "index/report.bin"];

/// What a whole reading read, for a cache of what it made: `campaign.json`'s bytes, how much of each index part
/// it took in, and the attempts it found without a record.
#[derive(Clone, Debug)]
pub struct Binding {
    plan: PlanBytes,
    extents: Vec<Extent>,
    planned: u64,
    lacking: Vec<String>,
}

/// A cache still bound to its folder: what its reader wrote, and the attempts without a record counted as they
/// are now.
#[derive(Debug)]
pub struct Cached {
    /// The file's bytes, of which the reader's begin at `start` and end before the last 32.
    bytes: Vec<u8>,
    start: usize,
    /// Planned attempts with no folder.
    pub missing: usize,
    /// Planned attempts with a folder but no record.
    pub unfinished: usize,
}

/// Reads `folder`'s `campaign.json` and every planned attempt as [`Status::scan`] does (entries made on the way
/// written to a new part, and the tally written anew), handing each valid record's entry to `each`; with the
/// binding of what it read, for a cache of what `each` made. The binding is `None` with [`Check::Records`], and
/// where the reading cannot tell how much of the index it took in.
pub fn read_whole(
    folder: &Path,
    check: Check,
    each: impl Fn(usize, &IndexEntry) + Sync,
) -> Result<(CampaignFile, Status, Option<Binding>), FolderError> {
    let began = SystemTime::now();
    let (file, bytes, stat) = read_campaign_bytes(folder)?;
    let plan = PlanBytes::of(&bytes, stat.as_ref(), began);
    drop(bytes);
    let ids: Vec<&str> = file.attempts.iter().map(|entry| entry.id.as_str()).collect();
    let (mut status, tally) = Status::scan_counting(folder, &file.name, &ids, Rebuild::NewPart, check, true, each);
    status.repository.clone_from(&file.repository);
    let tally = tally.map(|mut tally| {
        tally.keep(folder, plan, &file.repository);
        tally
    });
    let binding = tally.filter(|_| check == Check::Entries).map(|tally| {
        let lacking = tally
            .slots
            .iter()
            .zip(&ids)
            .filter(|(slot, _)| !matches!(tally.counts.get(slot.counted), Counted::Record { .. }))
            .map(|(_, id)| (*id).to_owned())
            .collect();
        Binding { plan: tally.plan, extents: tally.extents, planned: ids.len() as u64, lacking }
    });
    Ok((file, status, binding))
}

/// The cache `name` in `folder`'s index, when its bytes begin with `magic`, are whole, and are still bound to the
/// folder as it is now.
pub fn read(folder: &Path, name: &str, magic: &[u8]) -> Option<Cached> {
    let began = SystemTime::now();
    let mut file = Dir::open(&folder.join(INDEX_DIR)).ok()?.open_file(name).ok()??;
    let mut bytes = Vec::new();
    io::Read::read_to_end(&mut file, &mut bytes).ok()?;
    let (body, digest) = bytes.split_at_checked(bytes.len().checked_sub(32)?)?;
    if Sha256Digest::of(body).as_bytes() != digest {
        return None;
    }
    let mut read = Reader::new(body.strip_prefix(magic)?);
    let mut binding = Binding::decode(&mut read)?;
    let plan = binding.plan.holds(folder, began)?;
    let (now, appended) = appended::appended(folder, &binding.extents)?;
    if !appended.is_empty() || now != binding.extents {
        return None;
    }
    let (mut missing, mut unfinished) = (0, 0);
    if !binding.lacking.is_empty() {
        let ids: Vec<&str> = binding.lacking.iter().map(String::as_str).collect();
        // Found with a record now, it was written since (its entry, if it had none, went to a new part).
        let (found, _) = appended::unindexed(folder, &ids, usize::try_from(binding.planned).ok()?);
        for found in found {
            match found {
                Found::Missing => missing += 1,
                Found::Unfinished => unfinished += 1,
                Found::Invalid(_) | Found::Record(_) => return None,
            }
        }
    }
    let start = body.len() - read.rest().len();
    let cached = Cached { bytes, start, missing, unfinished };
    // `campaign.json` hashed to the same bytes and has settled since: bound by its stamp from now on, so that the
    // next reading need not hash it.
    if plan != binding.plan && plan.stamp.is_some() {
        binding.plan = plan;
        let _ = write(folder, name, magic, &binding, cached.payload());
    }
    Some(cached)
}

impl Cached {
    /// What the reader wrote.
    pub fn payload(&self) -> &[u8] {
        &self.bytes[self.start..self.bytes.len() - 32]
    }
}

/// Writes `payload` as the cache `name` in `folder`'s index, bound by `binding`, through a file of its own renamed
/// over it (two readings may write at once; either cache is right). Not synced: a cache lost or cut short by a crash
/// is not used, and is made again.
pub fn write(folder: &Path, name: &str, magic: &[u8], binding: &Binding, payload: &[u8]) -> io::Result<()> {
    let dir = Dir::open(&folder.join(INDEX_DIR)).map_err(crate::own::fs_io)?;
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |elapsed| elapsed.as_nanos());
    let temporary = format!(".{name}-{}-{nanos}.tmp", std::process::id());
    let mut bytes = Vec::with_capacity(magic.len() + 256 + payload.len() + 32);
    bytes.extend_from_slice(magic);
    binding.encode(&mut bytes);
    bytes.extend_from_slice(payload);
    let digest = Sha256Digest::of(&bytes);
    bytes.extend_from_slice(digest.as_bytes());
    let result = (|| {
        let mut file = dir.create_file(&temporary).map_err(crate::own::fs_io)?;
        file.write_all(&bytes)?;
        rustix::fs::renameat(&dir, temporary.as_str(), &dir, name)?;
        Ok(())
    })();
    if result.is_err() {
        let _ = dir.remove_file(&temporary);
    }
    result
}

impl Binding {
    fn encode(&self, out: &mut Vec<u8>) {
        self.plan.encode(out);
        put_extents(out, &self.extents);
        out.extend_from_slice(&self.planned.to_le_bytes());
        out.extend_from_slice(&(self.lacking.len() as u64).to_le_bytes());
        for id in &self.lacking {
            put_text(out, id);
        }
    }

    fn decode(read: &mut Reader<'_>) -> Option<Binding> {
        let plan = PlanBytes::decode(read)?;
        let extents = read.extents()?;
        let planned = read.u64()?;
        let lacking = (0..read.u64()?).map(|_| read.text()).collect::<Option<Vec<String>>>()?;
        Some(Binding { plan, extents, planned, lacking })
    }
}

impl PlanBytes {
    /// Appends the binding's bytes: size, SHA-256, and the stamp behind a byte saying whether there is one.
    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.size.to_le_bytes());
        out.extend_from_slice(&self.sha256);
        match &self.stamp {
            Some(stamp) => {
                out.push(1);
                out.extend_from_slice(&stamp.to_bytes());
            }
            None => out.extend_from_slice(&[0; 33]),
        }
    }

    /// The binding [`PlanBytes::encode`] wrote.
    pub(crate) fn decode(read: &mut Reader<'_>) -> Option<PlanBytes> {
        let size = read.u64()?;
        let sha256 = read.digest()?;
        let stamped = read.u8()?;
        let stamp = Stamp::from_bytes(read.take(32)?.try_into().ok()?);
        Some(PlanBytes { size, sha256, stamp: if stamped == 1 { Some(stamp?) } else { None } })
    }
}

/// Appends `text`, its length first (four bytes, little-endian).
pub fn put_text(out: &mut Vec<u8>, text: &str) {
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(text.as_bytes());
}

/// Appends `value` behind a byte saying whether there is one (0 none, 1 one), `put` writing it: what
/// [`Reader::optional`] reads.
pub fn put_optional<T>(out: &mut Vec<u8>, value: Option<T>, put: impl FnOnce(&mut Vec<u8>, T)) {
    match value {
        None => out.push(0),
        Some(value) => {
            out.push(1);
            put(out, value);
        }
    }
}

/// Appends each extent's part name, inode and length, their count first: what [`Reader::extents`] reads.
pub(crate) fn put_extents(out: &mut Vec<u8>, extents: &[Extent]) {
    out.extend_from_slice(&(extents.len() as u32).to_le_bytes());
    for extent in extents {
        put_text(out, &extent.name);
        out.extend_from_slice(&extent.inode.to_le_bytes());
        out.extend_from_slice(&extent.len.to_le_bytes());
    }
}

/// The bytes of a cache still to decode, little-endian; each method `None` where too few are left.
pub struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    /// A reader of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader(bytes)
    }

    /// The bytes not read yet.
    pub fn rest(&self) -> &'a [u8] {
        self.0
    }

    /// The next `len` bytes.
    pub fn take(&mut self, len: usize) -> Option<&'a [u8]> {
        let (taken, rest) = self.0.split_at_checked(len)?;
        self.0 = rest;
        Some(taken)
    }

    /// The next byte.
    pub fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }

    /// The next four bytes as a number.
    pub fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    /// The next eight bytes as a number.
    pub fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    /// The next eight bytes as a floating-point number.
    pub fn f64(&mut self) -> Option<f64> {
        Some(f64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    /// The next 32 bytes.
    pub fn digest(&mut self) -> Option<[u8; 32]> {
        self.take(32)?.try_into().ok()
    }

    /// A text [`put_text`] wrote.
    pub fn text(&mut self) -> Option<String> {
        let len = self.u32()? as usize;
        String::from_utf8(self.take(len)?.to_vec()).ok()
    }

    /// A value [`put_optional`] wrote, `read` reading it; `None` for a flag byte other than 0 or 1.
    pub fn optional<T>(&mut self, read: impl FnOnce(&mut Self) -> Option<T>) -> Option<Option<T>> {
        match self.u8()? {
            0 => Some(None),
            1 => read(self).map(Some),
            _ => None,
        }
    }

    /// Extents as [`put_extents`] wrote them.
    pub(crate) fn extents(&mut self) -> Option<Vec<Extent>> {
        (0..self.u32()?).map(|_| Some(Extent { name: self.text()?, inode: self.u64()?, len: self.u64()? })).collect()
    }
}
