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
//! After the magic line, a cache is frames (each its length in eight bytes, little-endian, then its bytes): the
//! binding's, then the reader's, which it reads one at a time, so that a million attempts' cache is never held
//! whole beside what is decoded of it.
//!
//! Only trusting readings ([`Check::Entries`]) use or write one: `--check-records` reads the whole index against
//! the records.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use metewand_runtime::files::Dir;
use sha2::{Digest, Sha256};

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

/// A cache still bound to its folder: the frames its reader wrote, still to read, and the attempts without a record
/// counted as they are now.
#[derive(Debug)]
pub struct Cached {
    frames: Frames,
    /// Where `campaign.json` is to be bound anew once the payload has proved whole.
    rebind: Option<Rebind>,
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

/// The cache `name` in `folder`'s index, when its bytes begin with `magic` and it is still bound to the folder as
/// it is now. Its payload is read a frame at a time ([`Cached::frame`]) and proved whole only at its end
/// ([`Cached::finish`]), so that a reader never holds the file's bytes beside what it decodes of them: what it
/// decoded is used only once `finish` says so.
pub fn read(folder: &Path, name: &str, magic: &[u8]) -> Option<Cached> {
    let began = SystemTime::now();
    let file = Dir::open(&folder.join(INDEX_DIR)).ok()?.open_file(name).ok()??;
    let len = file.metadata().ok()?.len();
    let mut frames = Frames {
        file: BufReader::with_capacity(1 << 20, file),
        left: len.checked_sub(32)?,
        hasher: Sha256::new(),
        frame: Vec::new(),
        broken: false,
    };
    let mut start = vec![0; magic.len()];
    frames.exact(&mut start)?;
    if start != magic {
        return None;
    }
    let bound = frames.next()?.to_vec();
    let mut read = Reader::new(&bound);
    let binding = Binding::decode(&mut read)?;
    if !read.rest().is_empty() {
        return None;
    }
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
    // `campaign.json` hashed to the same bytes and has settled since: bound by its stamp from now on, so that the
    // next reading need not hash it.
    let rebind = (plan != binding.plan && plan.stamp.is_some()).then(|| Rebind {
        folder: folder.to_owned(),
        name: name.to_owned(),
        magic: magic.to_owned(),
        bound,
        binding: Binding { plan, ..binding },
        payload: (len - 32) - frames.left,
        len,
    });
    Some(Cached { frames, rebind, missing, unfinished })
}

impl Cached {
    /// The payload's next frame, as the writer gave it; `None` after the last, and at bytes no writer wrote (which
    /// [`Cached::finish`] then refuses).
    pub fn frame(&mut self) -> Option<&[u8]> {
        self.frames.next()
    }

    /// How many of the payload's bytes are left to read: at most what its frames still hold.
    pub fn left(&self) -> u64 {
        self.frames.left
    }

    /// Whether every frame was read and the file's bytes are whole (they end with their SHA-256): only then may
    /// what was decoded from the frames be used.
    pub fn finish(self) -> bool {
        let Cached { mut frames, rebind, .. } = self;
        let mut digest = [0; 32];
        let whole = !frames.broken
            && frames.left == 0
            && io::Read::read_exact(&mut frames.file, &mut digest).is_ok()
            && *frames.hasher.finalize() == digest;
        if whole && let Some(rebind) = rebind {
            // A cache: failing to bind it anew loses nothing.
            let _ = rebind.write(frames.file.get_ref(), &digest);
        }
        whole
    }
}

/// A cache's frames still to read, hashed as they are read.
#[derive(Debug)]
struct Frames {
    file: BufReader<File>,
    /// Bytes left before the file's last 32 (its SHA-256).
    left: u64,
    hasher: Sha256,
    /// The last frame read.
    frame: Vec<u8>,
    /// Whether a frame's length ran past the digest, or the file ended early.
    broken: bool,
}

impl Frames {
    /// Fills `out` from the file, hashing it; `None` where fewer bytes are left before the digest.
    fn exact(&mut self, out: &mut [u8]) -> Option<()> {
        self.left = self.left.checked_sub(out.len() as u64)?;
        io::Read::read_exact(&mut self.file, out).ok()?;
        self.hasher.update(&*out);
        Some(())
    }

    /// The next frame: its length (eight bytes, little-endian), then its bytes.
    fn next(&mut self) -> Option<&[u8]> {
        if self.left == 0 || self.broken {
            return None;
        }
        let mut len = [0; 8];
        let len = self.exact(&mut len).map(|()| u64::from_le_bytes(len)).filter(|len| *len <= self.left);
        let Some(len) = len.and_then(|len| usize::try_from(len).ok()) else {
            self.broken = true;
            return None;
        };
        let mut frame = std::mem::take(&mut self.frame);
        frame.clear();
        frame.resize(len, 0);
        let read = self.exact(&mut frame);
        self.frame = frame;
        self.broken = read.is_none();
        read.map(|()| &self.frame[..])
    }
}

/// A cache whose `campaign.json` is to be bound by its stamp: written anew with the same payload.
#[derive(Debug)]
struct Rebind {
    folder: PathBuf,
    name: String,
    magic: Vec<u8>,
    /// The binding's frame as read.
    bound: Vec<u8>,
    binding: Binding,
    /// Where the payload begins in the file, and the file's length.
    payload: u64,
    len: u64,
}

impl Rebind {
    /// Writes the cache with the new binding and the payload copied from `file`, which must still hash, with the
    /// old binding, to `digest` (the file is replaced by renaming, never written in place; this holds it so).
    fn write(self, file: &File, digest: &[u8; 32]) -> io::Result<()> {
        let mut old = Sha256::new();
        old.update(&self.magic);
        old.update((self.bound.len() as u64).to_le_bytes());
        old.update(&self.bound);
        write_with(&self.folder, &self.name, &self.magic, &self.binding, |out| {
            let mut buffer = vec![0; 1 << 20];
            let mut at = self.payload;
            while at < self.len - 32 {
                let want = buffer.len().min(usize::try_from(self.len - 32 - at).unwrap_or(usize::MAX));
                let read = file.read_at(&mut buffer[..want], at)?;
                if read == 0 {
                    return Err(io::ErrorKind::UnexpectedEof.into());
                }
                old.update(&buffer[..read]);
                out.write_all(&buffer[..read])?;
                at += read as u64;
            }
            if *old.finalize() == *digest { Ok(()) } else { Err(io::ErrorKind::InvalidData.into()) }
        })
    }
}

/// Writes `frames` as the payload of the cache `name` in `folder`'s index, bound by `binding`, through a file of
/// its own renamed over it (two readings may write at once; either cache is right). Not synced: a cache lost or cut
/// short by a crash is not used, and is made again.
pub fn write(folder: &Path, name: &str, magic: &[u8], binding: &Binding, frames: &[Vec<u8>]) -> io::Result<()> {
    write_with(folder, name, magic, binding, |out| {
        for frame in frames {
            put_frame(out, frame)?;
        }
        Ok(())
    })
}

/// Writes the cache `name`: `magic`, `binding`'s frame, what `payload` writes, and the SHA-256 of all of it.
fn write_with(
    folder: &Path,
    name: &str,
    magic: &[u8],
    binding: &Binding,
    payload: impl FnOnce(&mut Hashing) -> io::Result<()>,
) -> io::Result<()> {
    let dir = Dir::open(&folder.join(INDEX_DIR)).map_err(crate::own::fs_io)?;
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |elapsed| elapsed.as_nanos());
    let temporary = format!(".{name}-{}-{nanos}.tmp", std::process::id());
    let result = (|| {
        let file = dir.create_file(&temporary).map_err(crate::own::fs_io)?;
        let mut out = Hashing { file: BufWriter::with_capacity(1 << 20, file), hasher: Sha256::new() };
        out.write_all(magic)?;
        let mut bound = Vec::with_capacity(256);
        binding.encode(&mut bound);
        put_frame(&mut out, &bound)?;
        payload(&mut out)?;
        let Hashing { mut file, hasher } = out;
        file.write_all(&hasher.finalize())?;
        file.flush()?;
        rustix::fs::renameat(&dir, temporary.as_str(), &dir, name)?;
        Ok(())
    })();
    if result.is_err() {
        let _ = dir.remove_file(&temporary);
    }
    result
}

fn put_frame(out: &mut impl Write, frame: &[u8]) -> io::Result<()> {
    out.write_all(&(frame.len() as u64).to_le_bytes())?;
    out.write_all(frame)
}

/// A cache's file as it is written, hashed on the way.
struct Hashing {
    file: BufWriter<File>,
    hasher: Sha256,
}

impl Write for Hashing {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let written = self.file.write(bytes)?;
        self.hasher.update(&bytes[..written]);
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
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
