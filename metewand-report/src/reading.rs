//! One campaign folder as a report reads it ([`FolderReading`]): its plan's attempts with what each record says,
//! made by a whole reading of the folder (`campaign.json` and every index entry), or decoded from the cache that
//! reading left, `index/report.bin` ([`metewand_campaign::cache`]: used only while bound to the same `campaign.json`
//! bytes and the same index, so that a report of a settled million-attempt campaign decodes under three hundred
//! bytes an attempt rather than parsing two kilobytes of JSON).
//!
//! The cache's frames after its binding, little-endian: the campaign's name, repository and runs (JSON), the
//! distinct texts the attempts name and how many attempts there are; the attempts, [`ATTEMPTS_PER_FRAME`] a frame
//! (each: its id; problem, dataset and implementation as texts' numbers; seeds and repetition; whether it has a
//! record, and that record's fields); and the identities. A change of this layout changes [`MAGIC`], so that no
//! build decodes another's cache. Decoded a frame at a time, a million attempts' cache (280 MB) is never held whole
//! beside the attempts made of it.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, UNIX_EPOCH};

use metewand_campaign::cache::{self, REPORT_FILE, Reader, put_optional, put_text};
use metewand_campaign::folder::{Run, read_materialization};
use metewand_campaign::index::{Check, IndexEntry};

use crate::error::ReportError;
use crate::load::{
    Attempt, AttemptId, ByName, Checkpoint, FailureInfo, Identities, Program, Recorded, intern, recorded,
};

const MAGIC: &[u8] = b"metewand report reading 2\n";

/// Attempts a frame of the cache holds: a few megabytes.
const ATTEMPTS_PER_FRAME: usize = 16_384;

/// The fewest bytes an attempt takes in the cache (an empty id, no record), which bounds how many a payload can hold.
const LEAST_ATTEMPT_BYTES: u64 = 4 + 3 * 4 + 3 * 8 + 1;

/// A record's summary with its metrics still by name.
type Slot = Option<(Recorded, ByName)>;

/// Where a cache's frames come from: the cache's file, read one at a time.
trait Frames {
    /// The next frame; `None` after the last.
    fn frame(&mut self) -> Option<&[u8]>;
    /// At most how many bytes are left.
    fn left(&self) -> u64;
}

impl Frames for cache::Cached {
    fn frame(&mut self) -> Option<&[u8]> {
        cache::Cached::frame(self)
    }

    fn left(&self) -> u64 {
        cache::Cached::left(self)
    }
}

/// One folder's plan and records, as a report reads them.
pub(crate) struct FolderReading {
    pub(crate) name: String,
    pub(crate) repository: String,
    pub(crate) runs: Vec<Run>,
    pub(crate) never_started: usize,
    pub(crate) unfinished: usize,
    /// The problem, dataset and implementation names the attempts give by number.
    pub(crate) names: Vec<String>,
    /// The planned attempts, each its problem, dataset and implementation as a number into
    /// [`FolderReading::names`] (and its folder as 0), so that they become a report's attempts where they are.
    pub(crate) attempts: Vec<Attempt>,
    /// The metrics' names the records' metrics give by number ([`Recorded::metrics`] holds these numbers until
    /// the folders' readings are put together).
    pub(crate) metric_names: Vec<Arc<str>>,
    pub(crate) identities: Identities,
}

impl FolderReading {
    /// The folder at `path`, its index's entries taken as `check` says: from its cache where a trusting reading
    /// has one still bound to the folder, and otherwise by a whole reading, which (trusting) writes the cache.
    /// Refuses a folder with an invalid record or with no record.
    pub(crate) fn read(path: &Path, check: Check) -> Result<FolderReading, ReportError> {
        if check == Check::Entries
            && let Some(mut cached) = cache::read(path, REPORT_FILE, MAGIC)
        {
            let decoded = FolderReading::decode(&mut cached);
            let (missing, unfinished) = (cached.missing, cached.unfinished);
            // What was decoded counts only once the cache's bytes have proved whole.
            if cached.finish()
                && let Some(mut reading) = decoded
            {
                (reading.never_started, reading.unfinished) = (missing, unfinished);
                return Ok(reading);
            }
        }
        let slots: Mutex<Vec<Slot>> = Mutex::new(Vec::new());
        let identities = Mutex::new(Identities::default());
        let (file, status, binding) = cache::read_whole(path, check, |i, record: &IndexEntry| {
            let made = recorded(record, record.attempt_id.as_str());
            identities.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).add(record);
            let mut slots = slots.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            if slots.len() <= i {
                slots.resize(i + 1, None);
            }
            slots[i] = Some(made);
        })?;
        if let Some((id, reason)) = status.invalid.first() {
            return Err(ReportError::InvalidRecord {
                path: path.join("attempts").join(id).join("attempt.json"),
                reason: reason.clone(),
                others: status.invalid.len() - 1,
            });
        }
        if status.by_outcome.is_empty() {
            return Err(ReportError::NoRecords { path: path.to_owned(), planned: file.attempts.len() });
        }
        let mut slots = slots.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut names = Vec::new();
        let mut materializer_logs: BTreeMap<String, Option<String>> = BTreeMap::new();
        let mut attempts = Vec::with_capacity(file.attempts.len());
        let mut metric_names = Vec::new();
        let mut metric_numbers: HashMap<Arc<str>, u32> = HashMap::new();
        for (i, entry) in file.attempts.iter().enumerate() {
            let record = match slots.get_mut(i).and_then(Option::take) {
                None => None,
                Some((mut recorded, by_name)) => {
                    if let Some(failure) = &mut recorded.failure
                        && failure.log.is_none()
                        && failure.role.as_deref() == Some("dataset_materializer")
                    {
                        // A materialization that failed once for the whole campaign: its log is beside its record.
                        failure.log = materializer_logs
                            .entry(entry.dataset_key.to_string())
                            .or_insert_with(|| {
                                read_materialization(path, &entry.dataset_key)
                                    .and_then(|made| made.log)
                                    .map(|log| format!("datasets/{}/{}", entry.dataset_key, log.as_str()))
                            })
                            .clone();
                    }
                    recorded.metrics = by_name
                        .into_iter()
                        .map(|(name, value)| {
                            let number = *metric_numbers.entry(name).or_insert_with_key(|name| {
                                metric_names.push(name.clone());
                                (metric_names.len() - 1) as u32
                            });
                            (number, value)
                        })
                        .collect();
                    Some(recorded)
                }
            };
            attempts.push(Attempt {
                folder: 0,
                id: AttemptId::from(entry.id.as_str()),
                problem: intern(&mut names, &entry.problem),
                dataset: intern(&mut names, &entry.dataset),
                dataset_seed: entry.dataset_seed.get(),
                implementation: intern(&mut names, &entry.implementation),
                implementation_seed: entry.implementation_seed.get(),
                repetition: entry.repetition.get(),
                record,
            });
        }
        let reading = FolderReading {
            name: String::from(file.name),
            repository: file.repository,
            runs: file.runs,
            never_started: status.missing,
            unfinished: status.unfinished,
            names,
            attempts,
            metric_names,
            identities: identities.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner()),
        };
        // A cache: failing to write it loses nothing.
        if let Some(binding) = binding
            && let Some(frames) = reading.encode()
        {
            let _ = cache::write(path, REPORT_FILE, MAGIC, &binding, &frames);
        }
        Ok(reading)
    }

    /// The cache's frames; `None` where the runs do not serialize.
    fn encode(&self) -> Option<Vec<Vec<u8>>> {
        let mut texts = Texts::default();
        // The first frame, which names the texts, is made last.
        let mut frames = vec![Vec::new()];
        for attempts in self.attempts.chunks(ATTEMPTS_PER_FRAME) {
            let mut frame = Vec::with_capacity(attempts.len() * 160);
            for attempt in attempts {
                put_text(&mut frame, &attempt.id.to_string());
                for number in [attempt.problem, attempt.dataset, attempt.implementation] {
                    frame.extend_from_slice(&number.to_le_bytes());
                }
                for number in [attempt.dataset_seed, attempt.implementation_seed, attempt.repetition] {
                    frame.extend_from_slice(&number.to_le_bytes());
                }
                put_optional(&mut frame, attempt.record.as_ref(), |frame, record| {
                    encode_record(frame, &mut texts, record, &self.metric_names);
                });
            }
            frames.push(frame);
        }
        let first = &mut frames[0];
        put_text(first, &self.name);
        put_text(first, &self.repository);
        put_text(first, &serde_json::to_string(&self.runs).ok()?);
        put_texts(first, &self.names);
        put_texts(first, &texts.list);
        first.extend_from_slice(&(self.attempts.len() as u64).to_le_bytes());
        let mut last = Vec::new();
        let identities = &self.identities;
        for map in [
            &identities.implementations,
            &identities.contracts,
            &identities.evaluators,
            &identities.materializers,
            &identities.external,
        ] {
            last.extend_from_slice(&(map.len() as u32).to_le_bytes());
            for (name, ids) in map {
                put_text(&mut last, name);
                put_texts(&mut last, ids);
            }
        }
        frames.push(last);
        Some(frames)
    }

    /// What [`FolderReading::encode`] wrote (its counts of attempts without a record are the binding's to say);
    /// `None` for frames it did not write.
    fn decode(frames: &mut impl Frames) -> Option<FolderReading> {
        let mut read = Reader::new(frames.frame()?);
        let name = read.text()?;
        let repository = read.text()?;
        let runs: Vec<Run> = serde_json::from_str(&read.text()?).ok()?;
        let names: Vec<String> = texts(&mut read)?;
        let texts: Vec<Arc<str>> = texts(&mut read)?.into_iter().map(Arc::from).collect();
        let count = usize::try_from(read.u64()?).ok()?;
        if !read.rest().is_empty() {
            return None;
        }
        let known = names.len() as u32;
        let mut metrics = Metrics { of_text: vec![None; texts.len()], names: Vec::new(), programs: HashMap::new() };
        let most = usize::try_from(frames.left() / LEAST_ATTEMPT_BYTES).unwrap_or(usize::MAX);
        let mut attempts = Vec::with_capacity(count.min(most));
        while attempts.len() < count {
            let mut read = Reader::new(frames.frame()?);
            while !read.rest().is_empty() {
                if attempts.len() == count {
                    return None;
                }
                let len = read.u32()? as usize;
                let id = AttemptId::from(std::str::from_utf8(read.take(len)?).ok()?);
                let (problem, dataset, implementation) = (read.u32()?, read.u32()?, read.u32()?);
                if problem >= known || dataset >= known || implementation >= known {
                    return None;
                }
                let (dataset_seed, implementation_seed, repetition) = (read.u64()?, read.u64()?, read.u64()?);
                let record = read.optional(|read| decode_record(read, &texts, &mut metrics))?;
                attempts.push(Attempt {
                    folder: 0,
                    id,
                    problem,
                    dataset,
                    dataset_seed,
                    implementation,
                    implementation_seed,
                    repetition,
                    record,
                });
            }
        }
        let mut read = Reader::new(frames.frame()?);
        let mut identities = Identities::default();
        for map in [
            &mut identities.implementations,
            &mut identities.contracts,
            &mut identities.evaluators,
            &mut identities.materializers,
            &mut identities.external,
        ] {
            for _ in 0..read.u32()? {
                let name = read.text()?;
                let ids: BTreeSet<String> = self::texts(&mut read)?.into_iter().collect();
                map.insert(name, ids);
            }
        }
        (read.rest().is_empty() && frames.frame().is_none()).then_some(FolderReading {
            name,
            repository,
            runs,
            never_started: 0,
            unfinished: 0,
            names,
            attempts,
            metric_names: metrics.names,
            identities,
        })
    }
}

/// What a decoding shares between records: the metrics' names it has met, numbered as they were met, with each
/// text's number among them; and each program it has met (by its two texts' numbers), held once.
struct Metrics {
    of_text: Vec<Option<u32>>,
    names: Vec<Arc<str>>,
    programs: HashMap<(u32, u32), Arc<Program>>,
}

/// Texts written once each, numbered by their first appearance.
#[derive(Default)]
struct Texts {
    list: Vec<String>,
    numbers: HashMap<String, u32>,
}

impl Texts {
    fn put(&mut self, out: &mut Vec<u8>, text: &str) {
        let number = match self.numbers.get(text) {
            Some(number) => *number,
            None => {
                let number = self.list.len() as u32;
                self.list.push(text.to_owned());
                self.numbers.insert(text.to_owned(), number);
                number
            }
        };
        out.extend_from_slice(&number.to_le_bytes());
    }

    fn put_option(&mut self, out: &mut Vec<u8>, text: Option<&str>) {
        put_optional(out, text, |out, text| self.put(out, text));
    }
}

fn put_texts<'a>(out: &mut Vec<u8>, texts: impl IntoIterator<Item = &'a String, IntoIter: ExactSizeIterator>) {
    let texts = texts.into_iter();
    out.extend_from_slice(&(texts.len() as u32).to_le_bytes());
    for text in texts {
        put_text(out, text);
    }
}

fn texts(read: &mut Reader<'_>) -> Option<Vec<String>> {
    (0..read.u32()?).map(|_| read.text()).collect()
}

fn put_f64(out: &mut Vec<u8>, value: Option<f64>) {
    put_optional(out, value, |out, value| out.extend_from_slice(&value.to_le_bytes()));
}

fn put_u64(out: &mut Vec<u8>, value: Option<u64>) {
    put_optional(out, value, |out, value| out.extend_from_slice(&value.to_le_bytes()));
}

fn put_metrics(out: &mut Vec<u8>, texts: &mut Texts, metrics: &[(impl AsRef<str>, f64)]) {
    out.extend_from_slice(&(metrics.len() as u32).to_le_bytes());
    for (name, value) in metrics {
        texts.put(out, name.as_ref());
        out.extend_from_slice(&value.to_le_bytes());
    }
}

fn encode_record(out: &mut Vec<u8>, texts: &mut Texts, record: &Recorded, metric_names: &[Arc<str>]) {
    texts.put(out, &record.outcome.to_string());
    texts.put_option(out, record.verdict.map(|verdict| verdict.to_string()).as_deref());
    put_optional(out, record.failure.as_deref(), |out, failure| {
        texts.put_option(out, failure.role.as_deref());
        texts.put_option(out, failure.phase.as_deref());
        texts.put(out, &failure.kind);
        texts.put(out, &failure.message);
        texts.put_option(out, failure.log.as_deref());
    });
    texts.put(out, &record.timed.to_string());
    put_f64(out, record.timed_seconds);
    for seconds in record.phase_seconds {
        put_f64(out, seconds);
    }
    put_f64(out, record.cpu_seconds);
    put_u64(out, record.peak_memory_bytes);
    put_u64(out, record.concurrency.map(u64::from));
    out.push(u8::from(record.reused));
    put_u64(out, record.cpus.map(u64::from));
    texts.put(out, &record.worker_id);
    put_optional(out, record.program.as_deref(), |out, (found, sha256)| {
        texts.put(out, found);
        texts.put(out, sha256);
    });
    out.extend_from_slice(&(record.metrics.len() as u32).to_le_bytes());
    for (number, value) in &record.metrics {
        texts.put(out, &metric_names[*number as usize]);
        out.extend_from_slice(&value.to_le_bytes());
    }
    out.extend_from_slice(&(record.profile.len() as u32).to_le_bytes());
    for point in &record.profile {
        out.extend_from_slice(&point.number.to_le_bytes());
        out.extend_from_slice(&point.seconds.to_le_bytes());
        texts.put(out, &point.verdict.to_string());
        put_metrics(out, texts, &point.metrics);
    }
    put_f64(out, record.reached_seconds);
    put_optional(out, record.started_at.and_then(|at| at.duration_since(UNIX_EPOCH).ok()), |out, since| {
        out.extend_from_slice(&since.as_secs().to_le_bytes());
        out.extend_from_slice(&since.subsec_nanos().to_le_bytes());
    });
}

/// A record [`encode_record`] wrote, its texts shared with every other record's that names them, its metrics
/// numbered by `numbered`'s names.
fn decode_record(read: &mut Reader<'_>, texts: &[Arc<str>], numbered: &mut Metrics) -> Option<Recorded> {
    let text = |read: &mut Reader<'_>| texts.get(read.u32()? as usize);
    let option = |read: &mut Reader<'_>| read.optional(|read| text(read));
    let metrics = |read: &mut Reader<'_>| -> Option<ByName> {
        (0..read.u32()?).map(|_| Some((text(read)?.clone(), read.f64()?))).collect()
    };
    let owned = |text: &Arc<str>| text.to_string();
    let outcome = text(read)?.parse().ok()?;
    let verdict = match option(read)? {
        None => None,
        Some(verdict) => Some(verdict.parse().ok()?),
    };
    let failure = read.optional(|read| {
        Some(Box::new(FailureInfo {
            role: option(read)?.map(owned),
            phase: option(read)?.map(owned),
            kind: owned(text(read)?),
            message: owned(text(read)?),
            log: option(read)?.map(owned),
        }))
    })?;
    let timed = text(read)?.parse().ok()?;
    let timed_seconds = read.optional(Reader::f64)?;
    let phase_seconds = [read.optional(Reader::f64)?, read.optional(Reader::f64)?, read.optional(Reader::f64)?];
    let cpu_seconds = read.optional(Reader::f64)?;
    let peak_memory_bytes = read.optional(Reader::u64)?;
    let concurrency = match read.optional(Reader::u64)? {
        None => None,
        Some(concurrency) => Some(u32::try_from(concurrency).ok()?),
    };
    let reused = match read.u8()? {
        0 => false,
        1 => true,
        _ => return None,
    };
    let cpus = match read.optional(Reader::u64)? {
        None => None,
        Some(cpus) => Some(u32::try_from(cpus).ok()?),
    };
    let worker_id = text(read)?.clone();
    let program = match read.optional(|read| Some((read.u32()?, read.u32()?)))? {
        None => None,
        Some((found, sha256)) => Some(match numbered.programs.get(&(found, sha256)) {
            Some(program) => program.clone(),
            None => {
                let program = Arc::new((texts.get(found as usize)?.clone(), texts.get(sha256 as usize)?.clone()));
                numbered.programs.insert((found, sha256), program.clone());
                program
            }
        }),
    };
    let count = read.u32()?;
    // Exactly as many as there are: a vector grown one at a time holds room for four.
    let mut numbers = Vec::with_capacity((count as usize).min(read.rest().len() / 12));
    for _ in 0..count {
        let text = read.u32()? as usize;
        let name = texts.get(text)?;
        let number = numbered.of_text.get_mut(text)?.get_or_insert_with(|| {
            numbered.names.push(name.clone());
            (numbered.names.len() - 1) as u32
        });
        numbers.push((*number, read.f64()?));
    }
    let mut profile = Vec::new();
    for _ in 0..read.u32()? {
        profile.push(Checkpoint {
            number: read.u64()?,
            seconds: read.f64()?,
            verdict: text(read)?.parse().ok()?,
            metrics: metrics(read)?.into_iter().map(|(name, value)| (name.to_string(), value)).collect(),
        });
    }
    let reached_seconds = read.optional(Reader::f64)?;
    let started_at = match read.optional(|read| Some((read.u64()?, read.u32()?)))? {
        None => None,
        Some((seconds, nanos)) if nanos < 1_000_000_000 => Some(UNIX_EPOCH.checked_add(Duration::new(seconds, nanos))?),
        Some(_) => return None,
    };
    let record = Recorded {
        outcome,
        verdict,
        failure,
        timed,
        timed_seconds,
        phase_seconds,
        cpu_seconds,
        peak_memory_bytes,
        concurrency,
        reused,
        cpus,
        worker_id,
        program,
        metrics: numbers.into_boxed_slice(),
        profile: profile.into_boxed_slice(),
        reached_seconds,
        started_at,
    };
    Some(record)
}

#[cfg(test)]
mod tests {
    use metewand_protocol::Sha256Digest;
    use metewand_protocol::common::Verdict;
    use metewand_protocol::generated::attempt_record::{Outcome, ProblemTimed};

    use super::*;

    /// A reading with every field a record's summary has set, and one attempt without a record.
    fn reading() -> FolderReading {
        let shared: Arc<str> = Arc::from("mw1-resolved-worker-1");
        let record = Recorded {
            outcome: Outcome::Reached,
            verdict: Some(Verdict::Reached),
            failure: Some(Box::new(FailureInfo {
                role: Some("implementation".to_owned()),
                phase: None,
                kind: "crashed".to_owned(),
                message: "a message".to_owned(),
                log: Some("attempts/a/log".to_owned()),
            })),
            timed: ProblemTimed::PrepareExecute,
            timed_seconds: Some(0.25),
            phase_seconds: [Some(0.5), None, Some(1e-9)],
            cpu_seconds: Some(2.0),
            peak_memory_bytes: Some(1 << 40),
            concurrency: None,
            reused: true,
            cpus: Some(4),
            worker_id: shared.clone(),
            program: Some(Arc::new((Arc::from("/usr/bin/python3"), Arc::from("ab".repeat(32))))),
            metrics: Box::new([(1, 0.5), (0, f64::INFINITY)]),
            profile: Box::new([Checkpoint {
                number: 1,
                seconds: 0.125,
                verdict: Verdict::NotReached,
                metrics: vec![("error".to_owned(), -3.5)],
            }]),
            reached_seconds: Some(f64::MIN_POSITIVE),
            started_at: Some(UNIX_EPOCH + Duration::new(1_796_601_600, 1)),
        };
        let attempt = |id: &str, record: Option<Recorded>| Attempt {
            folder: 0,
            id: AttemptId::from(id),
            problem: 0,
            dataset: 1,
            dataset_seed: u64::MAX,
            implementation: 2,
            implementation_seed: 7,
            repetition: 3,
            record,
        };
        let mut identities = Identities::default();
        identities.implementations.insert("solve".to_owned(), BTreeSet::from(["w1".to_owned(), "w2".to_owned()]));
        identities.external.insert("solve".to_owned(), BTreeSet::from(["/elsewhere".to_owned()]));
        FolderReading {
            name: "main".to_owned(),
            repository: "/repo".to_owned(),
            runs: Vec::new(),
            never_started: 0,
            unfinished: 0,
            names: vec!["ridge".to_owned(), "small".to_owned(), "solve".to_owned()],
            attempts: vec![
                attempt(&format!("mw1-attempt-{}", "0f".repeat(32)), Some(record)),
                attempt("mw1-attempt-b", None),
            ],
            metric_names: vec![Arc::from("loss"), Arc::from("error")],
            identities,
        }
    }

    /// Frames as a list, read in turn.
    struct Listed(std::collections::VecDeque<Vec<u8>>, Vec<u8>);

    impl Frames for Listed {
        fn frame(&mut self) -> Option<&[u8]> {
            self.1 = self.0.pop_front()?;
            Some(&self.1)
        }

        fn left(&self) -> u64 {
            self.0.iter().map(|frame| frame.len() as u64).sum()
        }
    }

    fn decode(frames: &[Vec<u8>]) -> Option<FolderReading> {
        FolderReading::decode(&mut Listed(frames.iter().cloned().collect(), Vec::new()))
    }

    #[test]
    fn a_reading_decodes_to_what_was_encoded_and_its_layout_is_the_one_its_magic_names() {
        let encoded = reading().encode().unwrap();
        assert_eq!(encoded.len(), 3, "the names, the attempts, the identities");
        let decoded = decode(&encoded).expect("decodes");
        // Decoded and encoded again, every field comes back (one dropped or misread would change the bytes).
        assert_eq!(decoded.encode().unwrap(), encoded);
        let record = decoded.attempts[0].record.as_ref().unwrap();
        assert_eq!(record.worker_id, Arc::from("mw1-resolved-worker-1"));
        assert_eq!(decoded.attempts[0].id.to_string(), format!("mw1-attempt-{}", "0f".repeat(32)));
        assert_eq!(decoded.attempts[1].id.to_string(), "mw1-attempt-b");
        // The metrics are numbered in the order the decoding met them.
        assert_eq!(decoded.metric_names, [Arc::from("error"), Arc::from("loss")]);
        assert_eq!(*record.metrics, [(0, 0.5), (1, f64::INFINITY)]);
        // A frame cut short, a frame missing, a frame too many, or an attempt too many: not decoded.
        let mut short = encoded.clone();
        short[1].pop();
        assert!(decode(&short).is_none());
        assert!(decode(&encoded[..2]).is_none());
        assert!(decode(&[&encoded[..], &[Vec::new()]].concat()).is_none());
        let mut more = encoded.clone();
        more[1] = [&encoded[1][..], &encoded[1][..]].concat();
        assert!(decode(&more).is_none());
        // Attempts spread over more frames than one are read across them.
        let many = FolderReading { attempts: vec![reading().attempts[1].clone(); ATTEMPTS_PER_FRAME + 1], ..reading() };
        let frames = many.encode().unwrap();
        assert_eq!(frames.len(), 4);
        assert_eq!(decode(&frames).unwrap().attempts.len(), ATTEMPTS_PER_FRAME + 1);
        // A change of the layout changes these bytes: it must change MAGIC too (then this digest), so that no build
        // decodes a cache another build wrote.
        assert_eq!(MAGIC, b"metewand report reading 2\n");
        assert_eq!(
            Sha256Digest::of(&encoded.concat()).to_string(),
            "202a8cde62ce1617c4f021e64fc21c14e26d3bb0023d2dda38c3559620c8db0b"
        );
    }
}
