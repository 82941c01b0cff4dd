//! The tally, `index/tally.bin`: what a reading of the whole index counted of each planned attempt, kept so that
//! the next `campaign status` reads only what was appended to the index since, rather than every entry of it.
//!
//! A status of a million attempts read from the index's lines parses about 2 GB of JSON; the tally is a few dozen
//! bytes an attempt. It is a cache, bound like the index to what it was made from, and used only while that holds:
//! - the bytes of `campaign.json` it counted against: the same size and SHA-256, or the same file (inode, ctime,
//!   mtime) where that file had settled when it was counted;
//! - the parts of the index it took in ([`crate::index::Extent`]): each still the same file, at least as long. Parts are
//!   only appended to, so what lies past an extent was appended since, and is read (a part merged away or replaced
//!   makes the tally unusable, and the whole index is read again);
//! - its own bytes, which end with their SHA-256 (a tally cut short or changed is not used).
//!
//! An entry appended since that names other bytes than the attempt's counted record (a retry), or does not parse,
//! makes the tally unusable too. Attempts counted without an entry (no folder, an unfinished one, an invalid record)
//! are looked at again at every reading, as a reading of the whole index looks at them. A record changed by hand is
//! not noticed, as by any trusting reading: `--check-records` reads the whole index against the records.
//!
//! Beside each attempt's count it keeps what `campaign plan` tells of a folder's done attempts: how long each took,
//! and what its workers ran (their programs and environments, numbered among the few distinct ones), so that a plan
//! of a million attempts is summarised from the tally rather than from every entry.
//!
//! The file is little-endian binary: the magic line, the campaign's binding, name and repository, the extents,
//! the distinct counts, the distinct runs (JSON), then per planned attempt its id's digest, count, run, wall time
//! in nanoseconds, record size and record SHA-256, and last the SHA-256 of all before it.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use metewand_protocol::generated::attempt_record::Outcome;
use metewand_runtime::Sha256Digest;
use metewand_runtime::attempt::parse_rfc3339;
use metewand_runtime::files::Dir;

use crate::appended::{self, Appended};
use crate::cache::{Reader, put_extents, put_text};
use crate::changes::Ran;
use crate::index::{Extent, INDEX_DIR, IndexEntry, Stamp};
use crate::own::{Found, open_own};
use crate::status::{Counted, Status};

/// The tally's file in the index's folder.
pub const TALLY_FILE: &str = "tally.bin";

const MAGIC: &[u8] = b"metewand tally 2\n";

/// A slot's bytes in the file.
const SLOT_BYTES: usize = 32 + 4 + 4 + 8 + 8 + 32;

/// A slot's run or wall time where its attempt has no record, or its record does not say.
pub(crate) const NONE_RAN: u32 = u32::MAX;
pub(crate) const NONE_NANOS: u64 = u64::MAX;
const ID_PREFIX: &str = "mw1-attempt-";

/// The bytes of `campaign.json` a tally was counted against.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PlanBytes {
    pub(crate) size: u64,
    pub(crate) sha256: [u8; 32],
    /// The file's stamp, where it had settled before it was read.
    pub(crate) stamp: Option<Stamp>,
}

impl PlanBytes {
    /// The binding of `bytes`, read from a file whose status was `stat` before they were read, by a reading that
    /// began at `began`.
    pub(crate) fn of(bytes: &[u8], stat: Option<&rustix::fs::Stat>, began: SystemTime) -> PlanBytes {
        let stamp = stat.and_then(Stamp::of).filter(|stamp| stamp.settled(began));
        PlanBytes { size: bytes.len() as u64, sha256: *Sha256Digest::of(bytes).as_bytes(), stamp }
    }

    /// Whether `folder`'s `campaign.json` is still these bytes; with its binding as a new tally would record it.
    pub(crate) fn holds(&self, folder: &Path, began: SystemTime) -> Option<PlanBytes> {
        let mut file = open_own(folder, crate::folder::CAMPAIGN_FILE).ok()??;
        let stat = rustix::fs::fstat(&file).ok()?;
        if u64::try_from(stat.st_size).ok()? != self.size {
            return None;
        }
        if self.stamp.is_some() && Stamp::of(&stat) == self.stamp {
            return Some(self.clone());
        }
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).ok()?;
        let now = PlanBytes::of(&bytes, Some(&stat), began);
        (now.size == self.size && now.sha256 == self.sha256).then_some(now)
    }
}

/// One planned attempt as a tally counts it: its id's digest, its count (an index into the tally's distinct
/// counts), and for a record what its workers ran (an index into the distinct runs), its wall time, and the size
/// and SHA-256 its entry names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Slot {
    pub(crate) id: [u8; 32],
    pub(crate) counted: u32,
    pub(crate) ran: u32,
    pub(crate) nanos: u64,
    pub(crate) size: u64,
    pub(crate) sha256: [u8; 32],
}

impl Slot {
    /// The slot of the attempt `id` before anything is counted of it.
    pub(crate) fn of(id: [u8; 32]) -> Slot {
        Slot { id, counted: 0, ran: NONE_RAN, nanos: NONE_NANOS, size: 0, sha256: [0; 32] }
    }

    /// The slot counted `counted` from `found`, whose record ran what `ran` numbers ([`number_ran`]).
    pub(crate) fn counting(self, counted: u32, found: &Found<Box<IndexEntry>>, ran: u32) -> Slot {
        match found {
            Found::Record(entry) => Slot {
                counted,
                ran,
                nanos: wall_nanos(entry),
                size: entry.record.size.get(),
                sha256: *entry.record.sha256.as_bytes(),
                ..self
            },
            _ => Slot { counted, ran: NONE_RAN, nanos: NONE_NANOS, size: 0, sha256: [0; 32], ..self },
        }
    }
}

/// What the record `found` ran, where it is one.
pub(crate) fn ran(found: &Found<Box<IndexEntry>>) -> Option<Ran> {
    match found {
        Found::Record(entry) => Some(Ran::of(entry)),
        _ => None,
    }
}

/// The number of `ran` among `distinct`, or [`NONE_RAN`].
pub(crate) fn number_ran(distinct: &mut Distinct<Ran>, ran: Option<Ran>) -> u32 {
    ran.map_or(NONE_RAN, |ran| distinct.number(ran))
}

/// How long the attempt of `entry` took, from its start to its end, in nanoseconds; [`NONE_NANOS`] where its
/// times do not say.
pub(crate) fn wall_nanos(entry: &IndexEntry) -> u64 {
    let (Some(start), Some(end)) =
        (parse_rfc3339(entry.started_at.as_str()), parse_rfc3339(entry.finished_at.as_str()))
    else {
        return NONE_NANOS;
    };
    u64::try_from(end.duration_since(start).unwrap_or_default().as_nanos())
        .unwrap_or(NONE_NANOS - 1)
        .min(NONE_NANOS - 1)
}

/// Values of a tally each kept once and numbered (its counts, its runs).
#[derive(Debug)]
pub(crate) struct Distinct<T> {
    list: Vec<T>,
    numbers: HashMap<T, u32>,
}

/// The distinct counts of a tally.
pub(crate) type Counts = Distinct<Counted>;

impl<T> Default for Distinct<T> {
    fn default() -> Self {
        Distinct { list: Vec::new(), numbers: HashMap::new() }
    }
}

impl<T: Clone + Eq + std::hash::Hash + Ord> Distinct<T> {
    /// The number of `value`.
    pub(crate) fn number(&mut self, value: T) -> u32 {
        if let Some(number) = self.numbers.get(&value) {
            return *number;
        }
        let number = self.list.len() as u32;
        self.numbers.insert(value.clone(), number);
        self.list.push(value);
        number
    }

    /// The values in order, with the new number of each old one, so that what one reading counted is the same
    /// tally whichever of its threads counted what first.
    pub(crate) fn in_order(self) -> (Distinct<T>, Vec<u32>) {
        let mut order: Vec<usize> = (0..self.list.len()).collect();
        order.sort_by(|a, b| self.list[*a].cmp(&self.list[*b]));
        let mut numbers = vec![0; order.len()];
        let mut sorted = Distinct::default();
        for old in order {
            numbers[old] = sorted.number(self.list[old].clone());
        }
        (sorted, numbers)
    }

    /// How many there are.
    pub(crate) fn len(&self) -> usize {
        self.list.len()
    }

    pub(crate) fn get(&self, number: u32) -> &T {
        &self.list[number as usize]
    }
}

/// `counts` and `ran` put in order, and each of `slots` numbered after them.
pub(crate) fn in_order(counts: Counts, ran: Distinct<Ran>, slots: &mut [Slot]) -> (Counts, Distinct<Ran>) {
    let (counts, counted) = counts.in_order();
    let (ran, runs) = ran.in_order();
    for slot in slots {
        slot.counted = counted[slot.counted as usize];
        if slot.ran != NONE_RAN {
            slot.ran = runs[slot.ran as usize];
        }
    }
    (counts, ran)
}

/// What a reading counted of each planned attempt, and against what.
#[derive(Debug)]
pub(crate) struct Tally {
    pub(crate) plan: PlanBytes,
    pub(crate) name: String,
    pub(crate) repository: String,
    pub(crate) extents: Vec<Extent>,
    pub(crate) counts: Counts,
    pub(crate) ran: Distinct<Ran>,
    pub(crate) slots: Vec<Slot>,
}

/// The digest an attempt id is named after; `None` for an id of another form.
pub(crate) fn id_digest(id: &str) -> Option<[u8; 32]> {
    let digest: Sha256Digest = id.strip_prefix(ID_PREFIX)?.parse().ok()?;
    Some(*digest.as_bytes())
}

/// The attempt id named after `digest`.
pub(crate) fn id_of(digest: &[u8; 32]) -> String {
    format!("{ID_PREFIX}{}", Sha256Digest::from_bytes(*digest))
}

impl Tally {
    /// The status of `folder` from its tally and what was appended to its index since, writing the tally anew when
    /// anything was; `None` where the folder has no usable tally (the whole index is then read).
    pub(crate) fn status(folder: &Path) -> Option<Status> {
        Tally::current(folder).map(|tally| tally.count())
    }

    /// Each planned attempt's id, in the plan's order.
    pub(crate) fn ids(&self) -> Vec<String> {
        self.slots.iter().map(|slot| id_of(&slot.id)).collect()
    }

    /// Each planned attempt's outcome as counted (`None` for one without a valid record).
    pub(crate) fn outcomes(&self) -> Vec<Option<Outcome>> {
        let outcomes: Vec<Option<Outcome>> = self
            .counts
            .list
            .iter()
            .map(|counted| match counted {
                Counted::Record { outcome, .. } => outcome.parse().ok(),
                _ => None,
            })
            .collect();
        self.slots.iter().map(|slot| outcomes[slot.counted as usize]).collect()
    }

    /// The folder's tally with what was appended to its index since counted in, and the attempts without an entry
    /// looked at again (written anew when anything was appended or found); `None` where the folder has no usable
    /// tally.
    pub(crate) fn current(folder: &Path) -> Option<Tally> {
        let began = SystemTime::now();
        let mut tally = Tally::read(folder)?;
        let plan = tally.plan.holds(folder, began)?;
        let (mut extents, appended) = appended::appended(folder, &tally.extents)?;
        let changed = !appended.is_empty() || plan != tally.plan;
        // Each id's first planned attempt, with the others of that id (cells sharing every input), which are
        // counted as it is: needed only when lines were appended.
        let mut first: HashMap<[u8; 32], u32> = HashMap::new();
        let mut twins: Vec<(u32, u32)> = Vec::new();
        if !appended.is_empty() {
            first.reserve(tally.slots.len());
            for (slot, entry) in tally.slots.iter().enumerate() {
                let at = *first.entry(entry.id).or_insert(slot as u32);
                if at != slot as u32 {
                    twins.push((at, slot as u32));
                }
            }
        }
        let mut touched = vec![false; tally.slots.len()];
        let mut lines: HashMap<u32, Vec<&Appended>> = HashMap::new();
        for line in &appended {
            if let Some(slot) = id_digest(&line.attempt_id).and_then(|digest| first.get(&digest)) {
                lines.entry(*slot).or_default().push(line);
            }
        }
        for &(at, twin) in &twins {
            touched[twin as usize] = lines.contains_key(&at);
        }
        for (slot, lines) in lines {
            let last = lines.last().expect("a slot has the lines it was placed with");
            let counted = tally.slots[slot as usize];
            let recorded = matches!(tally.counts.get(counted.counted), Counted::Record { .. });
            // Lines naming other bytes than each other, or than the record counted: a retry, read whole.
            if lines.iter().any(|line| (line.size, line.sha256) != (last.size, last.sha256))
                || (recorded && (counted.size, counted.sha256) != (last.size, last.sha256))
            {
                return None;
            }
            let entry = serde_json::from_slice::<IndexEntry>(&last.line).ok()?;
            let agrees = entry.attempt_id.as_str() == last.attempt_id
                && entry.record.size.get() == last.size
                && entry.record.sha256.as_bytes() == &last.sha256;
            if !agrees {
                return None;
            }
            let found = Found::Record(Box::new(entry));
            let number = tally.counts.number(Counted::of(&found));
            let ran = number_ran(&mut tally.ran, ran(&found));
            tally.slots[slot as usize] = counted.counting(number, &found, ran);
            touched[slot as usize] = true;
        }
        for (at, twin) in twins {
            tally.slots[twin as usize] = tally.slots[at as usize];
        }
        // Attempts counted without an entry are looked at again, as a reading of the whole index would (an id
        // planned twice is looked at twice: its twins are rare, and any entry made twice the same).
        let recorded: Vec<bool> =
            tally.counts.list.iter().map(|counted| matches!(counted, Counted::Record { .. })).collect();
        let lacking: Vec<usize> = (0..tally.slots.len())
            .filter(|&slot| !recorded[tally.slots[slot].counted as usize] && !touched[slot])
            .collect();
        let mut written = None;
        if !lacking.is_empty() {
            let ids: Vec<String> = lacking.iter().map(|&slot| id_of(&tally.slots[slot].id)).collect();
            let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
            let (found, part) = appended::unindexed(folder, &ids, tally.slots.len());
            for (&slot, found) in lacking.iter().zip(found) {
                let number = tally.counts.number(Counted::of(&found));
                let ran = number_ran(&mut tally.ran, ran(&found));
                tally.slots[slot] = tally.slots[slot].counting(number, &found, ran);
            }
            written = part;
        }
        if let Some(part) = written {
            extents.push(part);
        }
        if changed || extents != tally.extents {
            tally.extents = extents;
            tally.plan = plan;
            let _ = tally.write(folder);
        }
        Some(tally)
    }

    /// The status the tally counts.
    pub(crate) fn count(&self) -> Status {
        let mut times = vec![0usize; self.counts.list.len()];
        for slot in &self.slots {
            times[slot.counted as usize] += 1;
        }
        let mut status = Status {
            name: self.name.clone(),
            repository: self.repository.clone(),
            planned: self.slots.len(),
            ..Status::default()
        };
        for (number, &times) in times.iter().enumerate().filter(|(_, times)| **times > 0) {
            match self.counts.get(number as u32) {
                // Each invalid record's reason is its own: the ids are what the status lists.
                Counted::Invalid(_) => {}
                counted => status.add(counted, times),
            }
        }
        for slot in &self.slots {
            if let Counted::Invalid(reason) = self.counts.get(slot.counted) {
                status.invalid.push((id_of(&slot.id), reason.clone()));
            }
        }
        status.invalid.sort();
        status
    }

    /// Binds the tally a whole reading counted to the `campaign.json` bytes it read and the repository they name,
    /// and writes it in place of the folder's (a cache: failing to write it loses nothing).
    pub(crate) fn keep(&mut self, folder: &Path, plan: PlanBytes, repository: &str) {
        self.plan = plan;
        repository.clone_into(&mut self.repository);
        let _ = self.write(folder);
    }

    /// The folder's tally, when it has one whole.
    fn read(folder: &Path) -> Option<Tally> {
        let mut file = Dir::open(&folder.join(INDEX_DIR)).ok()?.open_file(TALLY_FILE).ok()??;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).ok()?;
        Tally::decode(&bytes)
    }

    /// Writes the tally in place of the folder's, through a file of its own renamed over it (two readings may write
    /// at once; either tally is right).
    pub(crate) fn write(&self, folder: &Path) -> std::io::Result<()> {
        let dir = Dir::open(&folder.join(INDEX_DIR)).map_err(crate::own::fs_io)?;
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |elapsed| elapsed.as_nanos());
        let temporary = format!(".tally-{}-{nanos}.tmp", std::process::id());
        let result = (|| {
            let mut file = dir.create_file(&temporary).map_err(crate::own::fs_io)?;
            file.write_all(&self.encode())?;
            // Not synced: a tally lost or cut short by a crash is not used, and is made again.
            rustix::fs::renameat(&dir, temporary.as_str(), &dir, TALLY_FILE)?;
            Ok(())
        })();
        if result.is_err() {
            let _ = dir.remove_file(&temporary);
        }
        result
    }

    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(MAGIC.len() + 256 + self.slots.len() * SLOT_BYTES);
        out.extend_from_slice(MAGIC);
        self.plan.encode(&mut out);
        put_text(&mut out, &self.name);
        put_text(&mut out, &self.repository);
        put_extents(&mut out, &self.extents);
        out.extend_from_slice(&(self.counts.list.len() as u32).to_le_bytes());
        for counted in &self.counts.list {
            match counted {
                Counted::Missing => out.push(0),
                Counted::Unfinished => out.push(1),
                Counted::Invalid(reason) => {
                    out.push(2);
                    put_text(&mut out, reason);
                }
                Counted::Record { outcome, with_verdict, cause } => {
                    out.push(3);
                    put_text(&mut out, outcome);
                    out.push(u8::from(*with_verdict));
                    out.push(u8::from(cause.is_some()));
                    put_text(&mut out, cause.as_deref().unwrap_or(""));
                }
            }
        }
        put_text(&mut out, &serde_json::to_string(&self.ran.list).unwrap_or_default());
        out.extend_from_slice(&(self.slots.len() as u64).to_le_bytes());
        for slot in &self.slots {
            out.extend_from_slice(&slot.id);
            out.extend_from_slice(&slot.counted.to_le_bytes());
            out.extend_from_slice(&slot.ran.to_le_bytes());
            out.extend_from_slice(&slot.nanos.to_le_bytes());
            out.extend_from_slice(&slot.size.to_le_bytes());
            out.extend_from_slice(&slot.sha256);
        }
        let digest = Sha256Digest::of(&out);
        out.extend_from_slice(digest.as_bytes());
        out
    }

    fn decode(bytes: &[u8]) -> Option<Tally> {
        let (body, digest) = bytes.split_at_checked(bytes.len().checked_sub(32)?)?;
        if Sha256Digest::of(body).as_bytes() != digest {
            return None;
        }
        let mut read = Reader::new(body.strip_prefix(MAGIC)?);
        let plan = PlanBytes::decode(&mut read)?;
        let (name, repository) = (read.text()?, read.text()?);
        let extents = read.extents()?;
        let mut counts = Counts::default();
        for _ in 0..read.u32()? {
            let counted = match read.u8()? {
                0 => Counted::Missing,
                1 => Counted::Unfinished,
                2 => Counted::Invalid(read.text()?),
                3 => {
                    let outcome = read.text()?;
                    let with_verdict = read.u8()? == 1;
                    let caused = read.u8()? == 1;
                    let cause = read.text()?;
                    Counted::Record { outcome, with_verdict, cause: caused.then_some(cause) }
                }
                _ => return None,
            };
            counts.number(counted);
        }
        let mut ran = Distinct::default();
        for value in serde_json::from_str::<Vec<Ran>>(&read.text()?).ok()? {
            ran.number(value);
        }
        let slots_len = usize::try_from(read.u64()?).ok()?;
        if read.rest().len() != slots_len.checked_mul(SLOT_BYTES)? {
            return None;
        }
        let (kinds, runs) = (counts.list.len() as u32, ran.list.len() as u32);
        let slots = read
            .rest()
            .chunks_exact(SLOT_BYTES)
            .map(|bytes| {
                let mut read = Reader::new(bytes);
                let slot = Slot {
                    id: read.digest()?,
                    counted: read.u32()?,
                    ran: read.u32()?,
                    nanos: read.u64()?,
                    size: read.u64()?,
                    sha256: read.digest()?,
                };
                (slot.counted < kinds && (slot.ran < runs || slot.ran == NONE_RAN)).then_some(slot)
            })
            .collect::<Option<Vec<Slot>>>()?;
        Some(Tally { plan, name, repository, extents, counts, ran, slots })
    }
}
