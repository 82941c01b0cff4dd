//! The campaign index: `index/<part>.jsonl` beside the records, one [`IndexEntry`] per line (schema
//! `campaign-index`), so that readers (`status`, `plan`, `report`, `compare`, `export`, the runs themselves) need not
//! parse every record.
//!
//! Each writer appends to a part of its own, created for it: a local run (`run-…`), a Slurm task (`task-…`), a
//! reader that found entries missing or stale (`read-…`). No two processes write one file, so nothing is shared on a
//! network filesystem. A run holding the folder's lock merges every part into `all.jsonl` when it starts and when it
//! ends.
//!
//! The executor writes a record and then its entry, so a reader trusts the entry ([`Check::Entries`], the default
//! of every reading command): the record is neither opened nor stat'ed. Only an attempt with no entry, or with
//! entries that disagree (a retry whose parts are not merged yet), is read from its record; which planned attempts
//! without an entry have a folder at all is learnt from one listing of `attempts/` when they are many.
//!
//! Checked ([`Check::Records`]: `--check-records`, a run deciding what to run, `verify`), an entry names the size
//! and SHA-256 of the record it was made from, and is used only while `attempts/<id>/attempt.json` is exactly those
//! bytes. A record edited, removed or added by hand, a part lost or cut short by SIGKILL, an entry of another
//! attempt: each reads as if there were no entry, and the record itself is read (and checked as always) in its
//! place. Hashing every record would cost most of such a reading, so an entry also carries the [`Stamp`] of the
//! file it was last hashed from (inode, ctime, mtime), once that file has [`SETTLED`]. While the file still has that
//! stamp and size, its bytes are those hashed: every change to a file's bytes, name, links or mode moves its ctime,
//! which no process can set back. Any other file is hashed.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use metewand_protocol::generated::attempt_record::{AttemptRecord, Outcome};
use metewand_protocol::generated::campaign_index as index;
use metewand_runtime::Sha256Digest;
use metewand_runtime::document::read_document;
use metewand_runtime::files::Dir;
use metewand_runtime::protocol::common::Format;
use metewand_runtime::protocol::strict::SafeUint;
use serde::Deserialize;

use crate::ids::{IdMap, id_map};
use crate::own::{Found, absent, fs_io, parse_record, read_record_bytes};
use crate::parallel::threads;
use crate::trust::{Listed, Window, trust};

pub use crate::trust::Check;

/// One line of an index part: what readers need of one record.
pub use metewand_protocol::generated::campaign_index::CampaignIndex as IndexEntry;

/// The index's folder in a campaign folder.
pub const INDEX_DIR: &str = "index";
/// The part a run that holds the folder's lock merges the others into.
pub const MERGED_PART: &str = "all.jsonl";

/// How long before a reading began a record's file must have last changed for its entry to be stamped (the margin
/// every stamp of the executor's keeps).
pub use metewand_runtime::files::SETTLED;

pub use crate::stamp::Stamp;

/// Whether the attempt of `entry` was judged to the end: it has a verdict and neither failed nor was cancelled. Only
/// such an attempt is timed, where reports rank it and `results.load` gives it a time.
pub fn judged(entry: &IndexEntry) -> bool {
    metewand_protocol::judged(entry.outcome, entry.verdict)
}

/// The entry of `record`, whose bytes on disk are `bytes`; `None` for a record written outside a campaign.
pub fn entry_of(record: &AttemptRecord, bytes: &[u8]) -> Option<IndexEntry> {
    let campaign = record.campaign.as_ref()?;
    let failure = match &record.failure {
        None => None,
        Some(failure) => {
            let log = failure.role.and_then(|role| record.logs.of(role));
            Some(index::Failure {
                role: failure.role,
                phase: failure.phase,
                kind: failure.kind,
                message: failure.message.as_str().parse().ok()?,
                log: log.map(str::parse).transpose().ok()?,
            })
        }
    };
    let session = |recorded: &metewand_protocol::generated::attempt_record::WorkerSession| index::IndexedSession {
        worker_id: recorded.worker_id.clone(),
        program: recorded.program.clone(),
        environment: recorded.environment.as_ref().map(|environment| environment.digest),
    };
    let implementation = &record.implementation;
    Some(IndexEntry {
        format: Format,
        attempt_id: campaign.attempt_id.clone(),
        record: index::RecordBytes {
            size: SafeUint::try_from(bytes.len() as u64).ok()?,
            sha256: Sha256Digest::of(bytes),
            stamp: None,
        },
        outcome: record.outcome,
        verdict: record.verdict,
        failure,
        started_at: record.started_at.clone(),
        finished_at: record.finished_at.clone(),
        concurrency: campaign.concurrency,
        problem: index::Problem {
            name: record.problem.name.as_str().parse().ok()?,
            contract_id: record.problem.contract_id.clone(),
            timed: record.problem.timed,
        },
        dataset: index::Dataset {
            name: record.dataset.name.as_str().parse().ok()?,
            materializer: session(&record.dataset.materializer),
        },
        implementation: index::Implementation {
            name: implementation.name.as_str().parse().ok()?,
            worker_id: implementation.worker_id.clone(),
            program: implementation.program.clone(),
            environment: implementation.environment.as_ref().map(|environment| environment.digest),
            implementation_time_ns: implementation.implementation_time_ns,
            cpu_ns: implementation.resources.as_ref().and_then(|resources| {
                SafeUint::try_from(resources.user_cpu_ns.get().saturating_add(resources.system_cpu_ns.get())).ok()
            }),
            peak_rss_bytes: implementation.resources.as_ref().map(|resources| resources.peak_rss_bytes),
            session: implementation.session.clone(),
            cpus: implementation.cpus.clone(),
            profile: implementation.profile.clone(),
            origin: implementation.origin.clone(),
        },
        evaluator: session(&record.evaluator),
        phases: record
            .phases
            .iter()
            .map(|phase| index::PhaseTime { role: phase.role, phase: phase.phase, duration_ns: phase.duration_ns })
            .collect(),
        metrics: record
            .metrics
            .iter()
            .flatten()
            .filter(|(_, value)| value.is_number())
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect(),
    })
}

/// An entry as one line of a part.
fn line_of(entry: &IndexEntry) -> Vec<u8> {
    let mut line = serde_json::to_vec(entry).expect("an index entry serializes");
    line.push(b'\n');
    line
}

/// A part of the index this process appends to, created (with a name no other process has) at its first entry.
#[derive(Debug)]
pub struct IndexWriter {
    folder: PathBuf,
    name: String,
    file: Mutex<Option<File>>,
}

impl IndexWriter {
    /// A writer of a new part of `folder`'s index, named after `kind` (`run`, `task`, `read`), this host, this
    /// process and the time.
    pub fn new(folder: &Path, kind: &str) -> IndexWriter {
        let host = crate::environment::host_name().unwrap_or_default();
        let host: String = host.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-').take(64).collect();
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |elapsed| elapsed.as_nanos());
        let name = format!("{kind}-{host}-{}-{nanos}.jsonl", std::process::id());
        IndexWriter { folder: folder.to_owned(), name, file: Mutex::new(None) }
    }

    /// The part's file name in `index/`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Appends the entry of `record` (whose bytes on disk are `bytes`).
    pub fn record_written(&self, record: &AttemptRecord, bytes: &[u8]) -> io::Result<()> {
        match entry_of(record, bytes) {
            Some(entry) => self.append(&line_of(&entry)),
            None => Ok(()),
        }
    }

    /// How far this part extends now: `None` while nothing was written, or where its file cannot be stat'ed.
    pub(crate) fn extent(&self) -> Option<Extent> {
        let file = self.file.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        Extent::of(self.name.clone(), file.as_ref()?)
    }

    /// Appends whole lines in one write. A process killed mid-write leaves at most a last line cut short, which
    /// readers skip.
    pub(crate) fn append(&self, lines: &[u8]) -> io::Result<()> {
        if lines.is_empty() {
            return Ok(());
        }
        let mut file = self.file.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if file.is_none() {
            let dir = self.folder.join(INDEX_DIR);
            match std::fs::create_dir(&dir) {
                Ok(()) => {}
                Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
                Err(error) => return Err(error),
            }
            let dir = Dir::open(&dir).map_err(fs_io)?;
            *file = Some(dir.create_file(&self.name).map_err(fs_io)?);
        }
        file.as_mut().expect("opened above").write_all(lines)
    }
}

/// How much of a part a reading took in: its file (by inode) and its first `len` bytes, every line of them whole.
/// Parts are only ever appended to, so what a later reading finds past `len` in the same file was appended since;
/// a part merged away, or replaced by a merge, is another file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Extent {
    pub(crate) name: String,
    pub(crate) inode: u64,
    pub(crate) len: u64,
}

impl Extent {
    /// The extent of the whole of `file` (named `name` in `index/`) as it is now.
    fn of(name: String, file: &File) -> Option<Extent> {
        let stat = rustix::fs::fstat(file).ok()?;
        Some(Extent { name, inode: stat.st_ino, len: u64::try_from(stat.st_size).ok()? })
    }
}

/// The names of the parts in the index's folder `path` (regular or not: opening them follows no link).
pub(crate) fn part_names(path: &Path) -> Option<Vec<String>> {
    Some(
        std::fs::read_dir(path)
            .ok()?
            .filter_map(Result::ok)
            .filter_map(|entry| entry.file_name().into_string().ok())
            .filter(|name| name.ends_with(".jsonl") && !name.starts_with('.'))
            .collect(),
    )
}

/// Where one line of a part is, and the record it was made from.
#[derive(Clone, Copy)]
pub(crate) struct Candidate {
    pub(crate) part: u32,
    pub(crate) offset: u64,
    pub(crate) len: u32,
    pub(crate) size: u64,
    pub(crate) sha256: [u8; 32],
    stamp: Option<Stamp>,
}

/// What a line says of its record, read without the rest of the line.
#[derive(Deserialize)]
pub(crate) struct Key<'a> {
    #[serde(borrow)]
    pub(crate) attempt_id: &'a str,
    pub(crate) record: KeyRecord<'a>,
}

impl<'a> Key<'a> {
    /// What `line` says of its record: read at their places in a line as [`line_of`] writes it (members in
    /// order: `attempt_id` first, `record` near the end and the only object of that name), and by parsing the line
    /// otherwise. Either way, an entry is used only once the whole line is parsed and agrees.
    pub(crate) fn of(line: &'a [u8]) -> Option<Key<'a>> {
        const ID_AT: &[u8] = br#"{"attempt_id":""#;
        const RECORD_AT: &[u8] = br#""record":{"#;
        let placed = || {
            let rest = line.strip_prefix(ID_AT)?;
            let id = std::str::from_utf8(&rest[..rest.iter().position(|&byte| byte == b'"')?]).ok()?;
            let at = line.windows(RECORD_AT.len()).rposition(|window| window == RECORD_AT)? + RECORD_AT.len() - 1;
            let end = at + line[at..].iter().position(|&byte| byte == b'}')? + 1;
            let record = serde_json::from_slice(&line[at..end]).ok()?;
            Some(Key { attempt_id: id, record })
        };
        placed().or_else(|| serde_json::from_slice(line).ok())
    }
}

#[derive(Deserialize)]
pub(crate) struct KeyRecord<'a> {
    pub(crate) size: u64,
    #[serde(borrow)]
    pub(crate) sha256: &'a str,
    #[serde(borrow, default)]
    pub(crate) stamp: Option<&'a str>,
}

/// The parts of a folder's index, each line placed against the plan.
pub(crate) struct Parts {
    names: Vec<String>,
    pub(crate) files: Vec<File>,
    /// How much of each part was read (`None` where a part's file could not be stat'ed).
    extents: Vec<Option<Extent>>,
    /// The lines that name a planned attempt, by plan index: those of attempt `i` are
    /// `candidates[starts[i]..starts[i + 1]]` (one flat list, since most attempts have one line or none).
    candidates: Vec<Candidate>,
    starts: Vec<usize>,
    lines: usize,
    /// For each plan index, the first with the same id, where any id is planned twice (two cells sharing every
    /// input): the later ones read the first's lines and write none of their own.
    first: Option<Vec<usize>>,
}

impl Parts {
    /// Reads every part in `folder/index/` (regular files named `*.jsonl`, never followed through a link), keeping
    /// where each line naming a planned attempt is. Lines that are not entries (a last line cut short) are skipped.
    fn read(folder: &Path, ids: &[&str]) -> Parts {
        let mut parts = Parts {
            names: Vec::new(),
            files: Vec::new(),
            extents: Vec::new(),
            candidates: Vec::new(),
            starts: vec![0; ids.len() + 1],
            lines: 0,
            first: None,
        };
        let mut by_id: IdMap<'_, usize> = id_map(ids.len());
        for (slot, id) in ids.iter().enumerate() {
            let first = *by_id.entry(id).or_insert(slot);
            if first != slot {
                parts.first.get_or_insert_with(|| (0..ids.len()).collect())[slot] = first;
            }
        }
        let Ok(dir) = Dir::open(&folder.join(INDEX_DIR)) else { return parts };
        let Some(mut names) = part_names(&folder.join(INDEX_DIR)) else { return parts };
        names.sort();
        let mut placed = Vec::new();
        for name in names {
            let Ok(Some(file)) = dir.open_file(&name) else { continue };
            let part = parts.files.len() as u32;
            let inode = rustix::fs::fstat(&file).ok().map(|stat| stat.st_ino);
            let (lines, len) = place(&file, part, &by_id, &mut placed);
            parts.lines += lines;
            parts.extents.push(inode.map(|inode| Extent { name: name.clone(), inode, len }));
            parts.names.push(name);
            parts.files.push(file);
        }
        // By plan index, each attempt's lines in the order of the parts (a stable sort).
        placed.sort_by_key(|(slot, _)| *slot);
        for (slot, _) in &placed {
            parts.starts[slot + 1] += 1;
        }
        for i in 0..ids.len() {
            parts.starts[i + 1] += parts.starts[i];
        }
        parts.candidates = placed.into_iter().map(|(_, candidate)| candidate).collect();
        parts
    }

    /// No parts: what a reading of attempts known to have no entry looks with.
    pub(crate) fn none() -> Parts {
        Parts {
            names: Vec::new(),
            files: Vec::new(),
            extents: Vec::new(),
            candidates: Vec::new(),
            starts: vec![0],
            lines: 0,
            first: None,
        }
    }

    /// How much of each part was read, when every part's could be told.
    fn extents(&self) -> Option<Vec<Extent>> {
        self.extents.iter().cloned().collect()
    }

    /// The first plan index with the id of `slot`.
    pub(crate) fn first(&self, slot: usize) -> usize {
        self.first.as_ref().map_or(slot, |first| first[slot])
    }

    /// The lines naming attempt `slot` (its plan index).
    pub(crate) fn slot(&self, slot: usize) -> &[Candidate] {
        &self.candidates[self.starts[slot]..self.starts[slot + 1]]
    }

    /// The line of `candidate`.
    pub(crate) fn line(&self, candidate: &Candidate) -> Option<Vec<u8>> {
        let mut line = vec![0; candidate.len as usize];
        self.files[candidate.part as usize].read_exact_at(&mut line, candidate.offset).ok()?;
        Some(line)
    }
}

/// Places every whole line of `file` (part number `part`) that names a planned attempt in `placed`, with its
/// plan index, reading the part in blocks whose lines are read on every available CPU; the number of lines, and
/// how many bytes they take (a last line cut short is not read).
fn place(file: &File, part: u32, by_id: &IdMap<'_, usize>, placed: &mut Vec<(usize, Candidate)>) -> (usize, u64) {
    const BLOCK: usize = 8 << 20;
    let threads = threads();
    let mut reader = BufReader::with_capacity(BLOCK, file);
    // The bytes of a line that began in the previous block, and where they are in the part.
    let mut carried: Vec<u8> = Vec::new();
    let mut offset = 0u64;
    let mut lines = 0;
    while let Ok(block) = reader.fill_buf()
        && !block.is_empty()
    {
        let read = block.len();
        let mut bytes = std::mem::take(&mut carried);
        bytes.extend_from_slice(block);
        reader.consume(read);
        // Whole lines only: what follows the last newline waits for the next block (or is a line cut short).
        let whole = bytes.iter().rposition(|&byte| byte == b'\n').map_or(0, |last| last + 1);
        carried = bytes.split_off(whole);
        let found = place_lines(&bytes, offset, part, by_id, threads);
        offset += whole as u64;
        lines += found.0;
        placed.extend(found.1);
    }
    (lines, offset)
}

/// The lines of `bytes` (whole lines, the first at `offset` in part `part`) that name a planned attempt, read on up
/// to `threads` threads; with the number of lines.
fn place_lines(
    bytes: &[u8],
    offset: u64,
    part: u32,
    by_id: &IdMap<'_, usize>,
    threads: usize,
) -> (usize, Vec<(usize, Candidate)>) {
    // Split at newlines into about `threads` pieces.
    let mut pieces = Vec::new();
    let mut start = 0;
    for i in 1..=threads {
        let target = bytes.len() * i / threads;
        if target <= start {
            continue;
        }
        let end = if i == threads {
            bytes.len()
        } else {
            bytes[target..].iter().position(|&byte| byte == b'\n').map_or(bytes.len(), |at| target + at + 1)
        };
        if end > start {
            pieces.push((start, end));
            start = end;
        }
    }
    let read = |(from, to): (usize, usize)| {
        let mut lines = 0;
        let mut found = Vec::new();
        let mut at = from;
        for line in bytes[from..to].split_inclusive(|&byte| byte == b'\n') {
            let start = at;
            at += line.len();
            lines += 1;
            let Some(key) = Key::of(line) else { continue };
            let (Some(&slot), Ok(sha256)) = (by_id.get(key.attempt_id), key.record.sha256.parse::<Sha256Digest>())
            else {
                continue;
            };
            found.push((
                slot,
                Candidate {
                    part,
                    offset: offset + start as u64,
                    len: u32::try_from(line.len()).unwrap_or(u32::MAX),
                    size: key.record.size,
                    sha256: *sha256.as_bytes(),
                    stamp: key.record.stamp.and_then(Stamp::parse),
                },
            ));
        }
        (lines, found)
    };
    if pieces.len() <= 1 {
        return pieces.into_iter().map(read).next().unwrap_or_default();
    }
    std::thread::scope(|scope| {
        let handles: Vec<_> = pieces.into_iter().map(|piece| scope.spawn(move || read(piece))).collect();
        let mut total = (0, Vec::new());
        for handle in handles {
            if let Ok((lines, found)) = handle.join() {
                total.0 += lines;
                total.1.extend(found);
            }
        }
        total
    })
}

/// Where entries made while reading go.
pub enum Rebuild<'a> {
    /// To this process's own part (a run's, a task's).
    To(&'a IndexWriter),
    /// To a new `read-…` part, if the folder can be written.
    NewPart,
    /// With every entry used, merged into `all.jsonl` in place of the parts read (unless the index is that one part
    /// already, with one line per planned attempt): only for a process that holds the folder's lock and is not
    /// writing records meanwhile.
    Merge(&'a IndexWriter),
}

/// Reads what every planned attempt `ids` of `folder` holds (in parallel), by its index entry when `check` takes
/// it and by the record otherwise, and hands each (with its plan index) to `each`. Returns how much of each part
/// of the index the reading took in, those it wrote included, where that can be told: not for a part another
/// writer may still be appending to (`Rebuild::To`).
pub fn scan(
    folder: &Path,
    ids: &[&str],
    rebuild: Rebuild<'_>,
    check: Check,
    each: impl Fn(usize, Found<Box<IndexEntry>>) + Sync,
) -> Option<Vec<Extent>> {
    let began = SystemTime::now();
    let parts = Parts::read(folder, ids);
    let listed = match check {
        Check::Entries => Listed::of(folder, ids, &parts),
        Check::Records => None,
    };
    let own;
    // Where new entries go, and, when merging, where every used entry goes (a temporary part renamed over
    // `all.jsonl` at the end). A merge is skipped when the index is already one part of exactly one entry per
    // planned attempt.
    let placed = parts.candidates.len();
    let extents_known = !matches!(rebuild, Rebuild::To(_));
    let (fresh_to, merge_to) = match rebuild {
        Rebuild::To(writer) => (writer, None),
        Rebuild::NewPart => {
            own = IndexWriter::new(folder, "read");
            (&own, None)
        }
        Rebuild::Merge(writer) if parts.names == [MERGED_PART] && parts.lines == placed => (writer, None),
        Rebuild::Merge(writer) => {
            own = IndexWriter { name: format!(".{}.tmp", writer.name()), ..IndexWriter::new(folder, "merge") };
            (writer, Some((&own, writer)))
        }
    };
    let records = Records::open(folder);
    let chunk = ids.len().div_ceil(threads()).max(1);
    std::thread::scope(|scope| {
        for (number, ids) in ids.chunks(chunk).enumerate() {
            let (parts, each, records, listed) = (&parts, &each, &records, &listed);
            scope.spawn(move || {
                // Lines are written in batches, so that threads seldom wait for each other's writes.
                const BATCH: usize = 1 << 20;
                let mut fresh = Vec::new();
                let mut used = Vec::new();
                let mut window = Window::default();
                for (offset, id) in ids.iter().enumerate() {
                    let slot = number * chunk + offset;
                    let first = parts.first(slot);
                    let candidates = parts.slot(first);
                    let trusted = match check {
                        Check::Entries => trust(id, candidates, parts, listed.as_ref(), &mut window),
                        Check::Records => None,
                    };
                    let (found, line, made) = trusted.unwrap_or_else(|| look(records, id, candidates, parts, began));
                    // A twin's line is its first's, written once.
                    if let Some(line) = line.filter(|_| first == slot) {
                        if merge_to.is_some() {
                            used.extend_from_slice(&line);
                        } else if made {
                            fresh.extend_from_slice(&line);
                        }
                    }
                    each(slot, found);
                    // The index is a cache of the records: failing to write it loses nothing.
                    if fresh.len() >= BATCH {
                        let _ = fresh_to.append(&std::mem::take(&mut fresh));
                    }
                    if let Some((temporary, _)) = merge_to
                        && used.len() >= BATCH
                    {
                        let _ = temporary.append(&std::mem::take(&mut used));
                    }
                }
                let _ = fresh_to.append(&fresh);
                if let Some((temporary, _)) = merge_to {
                    let _ = temporary.append(&used);
                }
            });
        }
    });
    // What the index holds now of what was read and written: the merged part alone, or the parts read with what
    // was appended to the one written.
    let read_and_written = || {
        let mut extents = parts.extents()?;
        if let Some(written) = fresh_to.extent() {
            extents.retain(|extent| extent.name != written.name);
            extents.push(written);
        }
        Some(extents)
    };
    match merge_to {
        Some((temporary, writer)) => match finish_merge(folder, temporary, &parts.names, writer) {
            Ok(Some(merged)) => Some(vec![merged]),
            Ok(None) => read_and_written(),
            Err(_) => {
                let _ = std::fs::remove_file(folder.join(INDEX_DIR).join(temporary.name()));
                None
            }
        },
        None if extents_known => read_and_written(),
        None => None,
    }
}

/// Renames the merged part `temporary` over `all.jsonl` (once it is on disk) and removes the parts it replaces:
/// those read, and `writer`'s own; with the merged part's extent (`None` where nothing was merged).
fn finish_merge(
    folder: &Path,
    temporary: &IndexWriter,
    read: &[String],
    writer: &IndexWriter,
) -> io::Result<Option<Extent>> {
    let Some(file) = temporary.file.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take() else {
        // Nothing was written: no planned attempt has a record; an index of other attempts is left as it is.
        return Ok(None);
    };
    file.sync_all()?;
    let merged = Extent::of(MERGED_PART.to_owned(), &file).ok_or_else(|| io::Error::other("cannot stat"))?;
    let dir = Dir::open(&folder.join(INDEX_DIR)).map_err(fs_io)?;
    rustix::fs::renameat(&dir, temporary.name(), &dir, MERGED_PART)?;
    for name in read.iter().map(String::as_str).chain([writer.name()]) {
        if name != MERGED_PART {
            dir.remove_file(name).map_err(fs_io)?;
        }
    }
    dir.sync().map_err(fs_io)?;
    Ok(Some(merged))
}

/// What an attempt's folder holds, with the line of its entry and whether that line was made just now.
pub(crate) type Looked = (Found<Box<IndexEntry>>, Option<Vec<u8>>, bool);

/// A record's bytes, with its file's stamp as it was before they were read (when it could be taken).
type Read = (Vec<u8>, Option<Stamp>);

/// The records of a campaign folder, read by id from `attempts/`.
pub(crate) struct Records {
    /// `attempts/`, when it can be opened.
    dir: Option<Dir>,
    path: PathBuf,
}

impl Records {
    pub(crate) fn open(folder: &Path) -> Records {
        let path = folder.join("attempts");
        Records { dir: Dir::open(&path).ok(), path }
    }

    /// The size and stamp of `<id>/attempt.json` when `<id>` is a folder and the record a regular file (neither a
    /// link); `None` otherwise, or where `attempts/` could not be opened.
    fn stat(&self, id: &str) -> Option<(u64, Stamp)> {
        use rustix::fs::{AtFlags, FileType};
        let dir = self.dir.as_ref()?;
        let folder = rustix::fs::statat(dir, id, AtFlags::SYMLINK_NOFOLLOW).ok()?;
        if FileType::from_raw_mode(folder.st_mode) != FileType::Directory {
            return None;
        }
        let name = format!("{id}/{}", metewand_runtime::attempt::RECORD_FILE);
        let record = rustix::fs::statat(dir, name.as_str(), AtFlags::SYMLINK_NOFOLLOW).ok()?;
        if FileType::from_raw_mode(record.st_mode) != FileType::RegularFile {
            return None;
        }
        Some((u64::try_from(record.st_size).ok()?, Stamp::of(&record)?))
    }

    /// The bytes of `<id>/attempt.json`, opened in one step that follows no link on the way (`openat2` with
    /// `RESOLVE_NO_SYMLINKS`), with the file's stamp as it was before they were read; or as [`read_record_bytes`]
    /// does (with no stamp) where the kernel lacks `openat2`; what the folder holds instead when there is no record
    /// to read.
    fn bytes(&self, id: &str) -> Result<Read, Found<Box<IndexEntry>>> {
        use rustix::fs::{FileType, Mode, OFlags, ResolveFlags};
        let unstamped = |bytes| (bytes, None);
        let Some(dir) = &self.dir else { return read_record_bytes(&self.path.join(id)).map(unstamped) };
        let name = format!("{id}/{}", metewand_runtime::attempt::RECORD_FILE);
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let resolve = ResolveFlags::NO_SYMLINKS | ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS;
        let fd = match rustix::fs::openat2(dir, name.as_str(), flags, Mode::empty(), resolve) {
            Ok(fd) => fd,
            Err(rustix::io::Errno::NOENT) => return Err(absent(&self.path.join(id))),
            Err(rustix::io::Errno::NOSYS | rustix::io::Errno::PERM) => {
                return read_record_bytes(&self.path.join(id)).map(unstamped);
            }
            Err(error) => return Err(Found::Invalid(format!("cannot be read: {}", io::Error::from(error)))),
        };
        let stat = rustix::fs::fstat(&fd).map_err(|error| Found::Invalid(format!("cannot be read: {error}")))?;
        let file_type = FileType::from_raw_mode(stat.st_mode);
        if file_type != FileType::RegularFile {
            return Err(Found::Invalid(format!("cannot be read: it is a {file_type:?}, not a regular file")));
        }
        let bytes =
            read_document(&mut File::from(fd)).map_err(|error| Found::Invalid(format!("cannot be read: {error}")))?;
        Ok((bytes, Stamp::of(&stat)))
    }
}

/// What the folder of attempt `id` holds, with the line of its entry and whether that line was made just now (no
/// entry matched the record, or the one that did is stamped now). `began` is when the reading began.
pub(crate) fn look(records: &Records, id: &str, candidates: &[Candidate], parts: &Parts, began: SystemTime) -> Looked {
    let entry = |candidate: &Candidate| {
        let line = parts.line(candidate)?;
        let entry = serde_json::from_slice::<IndexEntry>(&line).ok()?;
        let record = &entry.record;
        let agrees = entry.attempt_id.as_str() == id
            && record.size.get() == candidate.size
            && record.sha256.as_bytes() == &candidate.sha256
            && record.stamp.as_ref().and_then(|stamp| Stamp::parse(stamp)) == candidate.stamp;
        agrees.then_some((entry, line))
    };
    // A stamped entry of a file that still has that stamp and size: its bytes are those hashed.
    if candidates.iter().any(|candidate| candidate.stamp.is_some())
        && let Some((size, stamp)) = records.stat(id)
        && let Some((entry, line)) = candidates
            .iter()
            .filter(|candidate| candidate.size == size && candidate.stamp == Some(stamp))
            .find_map(entry)
    {
        return (Found::Record(Box::new(entry)), Some(line), false);
    }
    let (bytes, stamp) = match records.bytes(id) {
        Ok(read) => read,
        Err(found) => return (found, None, false),
    };
    let stamp = stamp.filter(|stamp| stamp.settled(began)).and_then(|stamp| stamp.written());
    let size = bytes.len() as u64;
    if candidates.iter().any(|candidate| candidate.size == size) {
        let digest = Sha256Digest::of(&bytes);
        if let Some((mut entry, line)) = candidates
            .iter()
            .filter(|candidate| candidate.size == size && &candidate.sha256 == digest.as_bytes())
            .find_map(entry)
        {
            // Stamped now, so that the next reading need not hash the file.
            if stamp.is_some() && entry.record.stamp != stamp {
                entry.record.stamp = stamp;
                let line = line_of(&entry);
                return (Found::Record(Box::new(entry)), Some(line), true);
            }
            return (Found::Record(Box::new(entry)), Some(line), false);
        }
    }
    match parse_record(&bytes, id) {
        Found::Record(record) => match entry_of(&record, &bytes) {
            Some(mut entry) => {
                entry.record.stamp = stamp;
                let line = line_of(&entry);
                (Found::Record(Box::new(entry)), Some(line), true)
            }
            None => (Found::Invalid("has no campaign field: it was not written by a campaign".to_owned()), None, false),
        },
        Found::Missing => (Found::Missing, None, false),
        Found::Unfinished => (Found::Unfinished, None, false),
        Found::Invalid(reason) => (Found::Invalid(reason), None, false),
    }
}

impl Found<Box<IndexEntry>> {
    /// The outcome, for a valid record.
    pub fn outcome(&self) -> Option<Outcome> {
        match self {
            Found::Record(entry) => Some(entry.outcome),
            _ => None,
        }
    }
}
