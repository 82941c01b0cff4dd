//! One campaign folder as a report reads it ([`FolderReading`]): its plan's attempts with what each record says,
//! made by a whole reading of the folder (`campaign.json` and every index entry), or decoded from the cache that
//! reading left, `index/report.bin` ([`metewand_campaign::cache`]: used only while bound to the same `campaign.json`
//! bytes and the same index, so that a report of a settled million-attempt campaign decodes under three hundred
//! bytes an attempt rather than parsing two kilobytes of JSON).
//!
//! The cache's layout after its binding, little-endian: the campaign's name, repository and runs (JSON), the
//! distinct texts the attempts name, the attempts (each: its id; problem, dataset and implementation as texts'
//! numbers; seeds and repetition; whether it has a record, and that record's fields), and the identities. A change
//! of this layout changes [`MAGIC`], so that no build decodes another's cache.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::sync::{Arc, Mutex};

use metewand_campaign::cache::{self, REPORT_FILE, Reader, put_optional, put_text};
use metewand_campaign::folder::{Run, read_materialization};
use metewand_campaign::index::{Check, IndexEntry};

use crate::error::ReportError;
use crate::load::{Attempt, ByName, Checkpoint, FailureInfo, Identities, Recorded, intern, recorded};

const MAGIC: &[u8] = b"metewand report reading 1\n";

/// A record's summary with its metrics still by name.
type Slot = Option<(Recorded, ByName)>;

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
    /// Each attempt's numeric metrics, by name (none for one without a record).
    pub(crate) metrics: Vec<ByName>,
    pub(crate) identities: Identities,
}

impl FolderReading {
    /// The folder at `path`, its index's entries taken as `check` says: from its cache where a trusting reading
    /// has one still bound to the folder, and otherwise by a whole reading, which (trusting) writes the cache.
    /// Refuses a folder with an invalid record or with no record.
    pub(crate) fn read(path: &Path, check: Check) -> Result<FolderReading, ReportError> {
        if check == Check::Entries
            && let Some(cached) = cache::read(path, REPORT_FILE, MAGIC)
            && let Some(mut reading) = FolderReading::decode(cached.payload())
        {
            (reading.never_started, reading.unfinished) = (cached.missing, cached.unfinished);
            return Ok(reading);
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
        let mut metrics = Vec::with_capacity(file.attempts.len());
        for (i, entry) in file.attempts.iter().enumerate() {
            let (record, by_name) = match slots.get_mut(i).and_then(Option::take) {
                None => (None, Vec::new()),
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
                    (Some(recorded), by_name)
                }
            };
            attempts.push(Attempt {
                folder: 0,
                id: entry.id.to_string(),
                problem: intern(&mut names, &entry.problem),
                dataset: intern(&mut names, &entry.dataset),
                dataset_seed: entry.dataset_seed.get(),
                implementation: intern(&mut names, &entry.implementation),
                implementation_seed: entry.implementation_seed.get(),
                repetition: entry.repetition.get(),
                record,
            });
            metrics.push(by_name);
        }
        let reading = FolderReading {
            name: String::from(file.name),
            repository: file.repository,
            runs: file.runs,
            never_started: status.missing,
            unfinished: status.unfinished,
            names,
            attempts,
            metrics,
            identities: identities.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner()),
        };
        // A cache: failing to write it loses nothing.
        if let Some(binding) = binding
            && let Some(payload) = reading.encode()
        {
            let _ = cache::write(path, REPORT_FILE, MAGIC, &binding, &payload);
        }
        Ok(reading)
    }

    /// The cache's payload; `None` where the runs do not serialize.
    fn encode(&self) -> Option<Vec<u8>> {
        let mut texts = Texts::default();
        let mut body = Vec::with_capacity(self.attempts.len() * 160);
        for (attempt, metrics) in self.attempts.iter().zip(&self.metrics) {
            put_text(&mut body, &attempt.id);
            for number in [attempt.problem, attempt.dataset, attempt.implementation] {
                body.extend_from_slice(&number.to_le_bytes());
            }
            for number in [attempt.dataset_seed, attempt.implementation_seed, attempt.repetition] {
                body.extend_from_slice(&number.to_le_bytes());
            }
            put_optional(&mut body, attempt.record.as_ref(), |body, record| {
                encode_record(body, &mut texts, record, metrics);
            });
        }
        let mut out = Vec::with_capacity(body.len() + 4096);
        put_text(&mut out, &self.name);
        put_text(&mut out, &self.repository);
        put_text(&mut out, &serde_json::to_string(&self.runs).ok()?);
        put_texts(&mut out, &self.names);
        put_texts(&mut out, &texts.list);
        out.extend_from_slice(&(self.attempts.len() as u64).to_le_bytes());
        out.extend_from_slice(&body);
        drop(body);
        let identities = &self.identities;
        for map in [
            &identities.implementations,
            &identities.contracts,
            &identities.evaluators,
            &identities.materializers,
            &identities.external,
        ] {
            out.extend_from_slice(&(map.len() as u32).to_le_bytes());
            for (name, ids) in map {
                put_text(&mut out, name);
                put_texts(&mut out, ids);
            }
        }
        Some(out)
    }

    /// What [`FolderReading::encode`] wrote (its counts of attempts without a record are the binding's to say);
    /// `None` for bytes it did not write.
    fn decode(payload: &[u8]) -> Option<FolderReading> {
        let mut read = Reader::new(payload);
        let name = read.text()?;
        let repository = read.text()?;
        let runs: Vec<Run> = serde_json::from_str(&read.text()?).ok()?;
        let names: Vec<String> = texts(&mut read)?;
        let texts: Vec<Arc<str>> = texts(&mut read)?.into_iter().map(Arc::from).collect();
        let count = usize::try_from(read.u64()?).ok()?;
        let known = names.len() as u32;
        let mut attempts = Vec::with_capacity(count.min(payload.len() / 40));
        let mut metrics = Vec::with_capacity(count.min(payload.len() / 40));
        for _ in 0..count {
            let id = read.text()?;
            let (problem, dataset, implementation) = (read.u32()?, read.u32()?, read.u32()?);
            if problem >= known || dataset >= known || implementation >= known {
                return None;
            }
            let (dataset_seed, implementation_seed, repetition) = (read.u64()?, read.u64()?, read.u64()?);
            let (record, by_name) = match read.optional(|read| decode_record(read, &texts))? {
                None => (None, Vec::new()),
                Some((record, by_name)) => (Some(record), by_name),
            };
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
            metrics.push(by_name);
        }
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
        read.rest().is_empty().then_some(FolderReading {
            name,
            repository,
            runs,
            never_started: 0,
            unfinished: 0,
            names,
            attempts,
            metrics,
            identities,
        })
    }
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

fn encode_record(out: &mut Vec<u8>, texts: &mut Texts, record: &Recorded, metrics: &[(Arc<str>, f64)]) {
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
    put_u64(out, record.concurrency);
    out.push(u8::from(record.reused));
    put_u64(out, record.cpus.map(|cpus| cpus as u64));
    texts.put(out, &record.worker_id);
    put_optional(out, record.program.as_ref(), |out, (found, sha256)| {
        texts.put(out, found);
        texts.put(out, sha256);
    });
    put_metrics(out, texts, metrics);
    out.extend_from_slice(&(record.profile.len() as u32).to_le_bytes());
    for point in &record.profile {
        out.extend_from_slice(&point.number.to_le_bytes());
        out.extend_from_slice(&point.seconds.to_le_bytes());
        texts.put(out, &point.verdict.to_string());
        put_metrics(out, texts, &point.metrics);
    }
    put_f64(out, record.reached_seconds);
    put_text(out, &record.started_at);
}

/// A record [`encode_record`] wrote, its texts shared with every other record's that names them.
fn decode_record(read: &mut Reader<'_>, texts: &[Arc<str>]) -> Option<(Recorded, ByName)> {
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
    let concurrency = read.optional(Reader::u64)?;
    let reused = match read.u8()? {
        0 => false,
        1 => true,
        _ => return None,
    };
    let cpus = match read.optional(Reader::u64)? {
        None => None,
        Some(cpus) => Some(usize::try_from(cpus).ok()?),
    };
    let worker_id = text(read)?.clone();
    let program = read.optional(|read| Some((text(read)?.clone(), text(read)?.clone())))?;
    let by_name = metrics(read)?;
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
    let started_at = read.text()?;
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
        metrics: Vec::new(),
        profile,
        reached_seconds,
        started_at,
    };
    Some((record, by_name))
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
            program: Some((Arc::from("/usr/bin/python3"), Arc::from("ab".repeat(32)))),
            metrics: Vec::new(),
            profile: vec![Checkpoint {
                number: 1,
                seconds: 0.125,
                verdict: Verdict::NotReached,
                metrics: vec![("error".to_owned(), -3.5)],
            }],
            reached_seconds: Some(f64::MIN_POSITIVE),
            started_at: "2026-12-07T00:00:00.000000001Z".to_owned(),
        };
        let attempt = |id: &str, record: Option<Recorded>| Attempt {
            folder: 0,
            id: id.to_owned(),
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
            attempts: vec![attempt("mw1-attempt-a", Some(record)), attempt("mw1-attempt-b", None)],
            metrics: vec![vec![(Arc::from("error"), 0.5), (Arc::from("loss"), f64::INFINITY)], Vec::new()],
            identities,
        }
    }

    #[test]
    fn a_reading_decodes_to_what_was_encoded_and_its_layout_is_the_one_its_magic_names() {
        let encoded = reading().encode().unwrap();
        let decoded = FolderReading::decode(&encoded).expect("decodes");
        // Decoded and encoded again, every field comes back (one dropped or misread would change the bytes).
        assert_eq!(decoded.encode().unwrap(), encoded);
        assert_eq!(decoded.attempts[0].record.as_ref().unwrap().worker_id, Arc::from("mw1-resolved-worker-1"));
        // Cut short or with bytes past its end, it is not decoded.
        assert!(FolderReading::decode(&encoded[..encoded.len() - 1]).is_none());
        assert!(FolderReading::decode(&[&encoded[..], &[0]].concat()).is_none());
        // A change of the layout changes these bytes: it must change MAGIC too (then this digest), so that no build
        // decodes a cache another build wrote.
        assert_eq!(MAGIC, b"metewand report reading 1\n");
        assert_eq!(
            Sha256Digest::of(&encoded).to_string(),
            "567b45b2d4eb641dcdd544230fad6e08a6e40380dcd30c08c418ca901695f675"
        );
    }
}
