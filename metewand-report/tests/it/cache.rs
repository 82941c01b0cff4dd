//! The report's cache (`index/report.bin`): a report read from it is the report of a whole reading, in every
//! format; it is read, not recounted; and it is not used once it no longer describes its folder (another
//! `campaign.json`, a line appended to the index, an attempt without a record that has one now, its own bytes
//! changed or cut short), nor by a reading that checks the records.

use std::fs;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use metewand_campaign::index::Check;
use metewand_protocol::generated::attempt_record::Outcome;
use metewand_report::{Format, Records};

use crate::report::mixed;
use crate::{Campaign, Planned, State, at, temp, write_campaign};

fn cache(folder: &Path) -> PathBuf {
    folder.join("index").join("report.bin")
}

/// The index's one part (the first reading's entries).
fn part(folder: &Path) -> PathBuf {
    let parts: Vec<PathBuf> = fs::read_dir(folder.join("index"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "jsonl"))
        .collect();
    assert_eq!(parts.len(), 1, "{parts:?}");
    parts.into_iter().next().unwrap()
}

/// A folder of every kind of attempt a report reads: mixed outcomes, failures of the implementation and of the
/// evaluator, a missing and an unfinished attempt, streamed attempts with checkpoints, several metrics.
fn folder(dir: &tempfile::TempDir) -> (PathBuf, Vec<String>) {
    let mut plan = mixed();
    plan.push(
        Planned::new("ridge", "small", "streamer")
            .profile(&[(400_000, "not_reached", 0.5), (900_000, "reached", 0.01)]),
    );
    plan.push(Planned::new("ridge", "tall", "streamer").scaled(&[("loss", 2.0), ("constant", 0.0)]));
    plan.push(Planned::new("ridge", "tall", "fast").seed(7).state(State::EvaluatorFailed));
    let folder = at(dir, "campaign");
    let ids = write_campaign(&folder, &Campaign::default(), &plan);
    (folder, ids)
}

fn reports(folder: &Path, base: &Path) -> Vec<String> {
    [Format::Html, Format::Markdown, Format::Csv, Format::Json]
        .into_iter()
        .map(|format| metewand_report::report(&[folder.to_owned()], Some(base), format).unwrap())
        .collect()
}

/// Edits the part where it is (the same file, the same length): the first `reached` entry becomes `failed`; its id.
fn edit_in_place(folder: &Path) -> String {
    let part = part(folder);
    let text = fs::read_to_string(&part).unwrap();
    let at = text.find(r#""outcome":"reached""#).unwrap();
    fs::OpenOptions::new().write(true).open(&part).unwrap().write_all_at(br#""outcome":"failed" "#, at as u64).unwrap();
    let line = text[..at].rfind('\n').map_or(0, |newline| newline + 1);
    let entry: serde_json::Value = serde_json::from_str(text[line..].lines().next().unwrap()).unwrap();
    entry["attempt_id"].as_str().unwrap().to_owned()
}

fn outcome(records: &Records, id: &str) -> Option<Outcome> {
    let attempt = records.attempts.iter().find(|attempt| attempt.id == id).unwrap();
    attempt.record.as_ref().map(|record| record.outcome)
}

#[test]
fn a_report_from_the_cache_is_the_report_of_a_whole_reading_and_is_read_not_recounted() {
    let dir = temp();
    let (folder, _) = folder(&dir);
    let whole = reports(&folder, dir.path());
    let written = fs::read(cache(&folder)).expect("a trusting whole reading leaves the report's cache");
    assert!(folder.join("index").join("tally.bin").exists(), "and the tally");
    // Every format, from the cache, is the same bytes; the cache is left as it is.
    assert_eq!(reports(&folder, dir.path()), whole);
    assert_eq!(fs::read(cache(&folder)).unwrap(), written);
    // Read, not recounted: an entry edited in place (the part's length unchanged) is not seen through the cache...
    let edited = edit_in_place(&folder);
    let records = Records::read(std::slice::from_ref(&folder)).unwrap();
    assert_eq!(outcome(&records, &edited), Some(Outcome::Reached));
    assert_eq!(records.folders[0].never_started, 1);
    assert_eq!(records.folders[0].unfinished, 1);
    // ... and is by a whole reading, which writes the cache anew.
    fs::remove_file(cache(&folder)).unwrap();
    assert_eq!(outcome(&Records::read(std::slice::from_ref(&folder)).unwrap(), &edited), Some(Outcome::Failed));
    assert_ne!(fs::read(cache(&folder)).unwrap(), written);
}

/// A folder read once (its cache written), then one entry edited in place, so that a reading through the cache
/// still says `reached` for it and a whole reading says `failed`: the folder and the edited attempt's id.
fn cached_then_edited(dir: &tempfile::TempDir) -> (PathBuf, String) {
    let (folder, _) = folder(dir);
    Records::read(std::slice::from_ref(&folder)).unwrap();
    assert!(cache(&folder).exists());
    let edited = edit_in_place(&folder);
    assert_eq!(outcome(&Records::read(std::slice::from_ref(&folder)).unwrap(), &edited), Some(Outcome::Reached));
    (folder, edited)
}

fn whole_reading(folder: &Path, edited: &str) -> bool {
    outcome(&Records::read(&[folder.to_owned()]).unwrap(), edited) == Some(Outcome::Failed)
}

#[test]
fn a_cache_that_no_longer_describes_its_folder_is_not_used() {
    // Another `campaign.json` (the same plan, other bytes).
    let dir = temp();
    let (folder, edited) = cached_then_edited(&dir);
    let mut plan = fs::OpenOptions::new().append(true).open(folder.join("campaign.json")).unwrap();
    plan.write_all(b"\n").unwrap();
    assert!(whole_reading(&folder, &edited), "another campaign.json");

    // A whole line appended to the index (a copy of another attempt's entry, as a second writer would append).
    let dir = temp();
    let (folder, edited) = cached_then_edited(&dir);
    let text = fs::read_to_string(part(&folder)).unwrap();
    let other = text.lines().find(|line| !line.contains(edited.as_str())).unwrap().to_owned();
    fs::OpenOptions::new()
        .append(true)
        .open(part(&folder))
        .unwrap()
        .write_all(format!("{other}\n").as_bytes())
        .unwrap();
    assert!(whole_reading(&folder, &edited), "a line appended");

    // A part added.
    let dir = temp();
    let (folder, edited) = cached_then_edited(&dir);
    fs::write(folder.join("index").join("other.jsonl"), "").unwrap();
    assert!(whole_reading(&folder, &edited), "a part added");

    // Its own bytes: one flipped, or cut short.
    for damage in [0, 1] {
        let dir = temp();
        let (folder, edited) = cached_then_edited(&dir);
        let mut bytes = fs::read(cache(&folder)).unwrap();
        match damage {
            0 => {
                let middle = bytes.len() / 2;
                bytes[middle] ^= 1;
            }
            _ => bytes.truncate(bytes.len() - 1),
        }
        fs::write(cache(&folder), bytes).unwrap();
        assert!(whole_reading(&folder, &edited), "damage {damage}");
    }
}

#[test]
fn attempts_without_a_record_are_looked_at_again() {
    let dir = temp();
    let (folder, edited) = cached_then_edited(&dir);
    let records = Records::read(std::slice::from_ref(&folder)).unwrap();
    let lacking: Vec<String> = records
        .attempts
        .iter()
        .filter(|attempt| attempt.record.is_none())
        .map(|attempt| attempt.id.to_string())
        .collect();
    let missing = lacking.iter().find(|id| !folder.join("attempts").join(id).exists()).unwrap();
    // A folder made for the missing attempt (a run starting it): counted unfinished, still through the cache.
    fs::create_dir(folder.join("attempts").join(missing)).unwrap();
    let records = Records::read(std::slice::from_ref(&folder)).unwrap();
    assert_eq!((records.folders[0].never_started, records.folders[0].unfinished), (0, 2));
    assert_eq!(outcome(&records, &edited), Some(Outcome::Reached), "still the cache");
    // Its record written (by a run that has not yet appended its entry): a whole reading.
    let template = records.attempts.iter().find(|attempt| attempt.record.is_some()).unwrap().id.to_string();
    let record = fs::read_to_string(folder.join("attempts").join(&template).join("attempt.json")).unwrap();
    fs::write(folder.join("attempts").join(missing).join("attempt.json"), record.replace(&template, missing)).unwrap();
    let records = Records::read(std::slice::from_ref(&folder)).unwrap();
    assert_eq!(outcome(&records, &edited), Some(Outcome::Failed), "a whole reading");
}

#[test]
fn a_reading_that_checks_the_records_neither_reads_nor_writes_the_cache() {
    let dir = temp();
    let (folder, edited) = cached_then_edited(&dir);
    // The cache says `reached`; a checked reading takes the entry (its record's stamp unchanged) and says `failed`.
    let checked = Records::read_checked(std::slice::from_ref(&folder), Check::Records).unwrap();
    assert_eq!(outcome(&checked, &edited), Some(Outcome::Failed));
    fs::remove_file(cache(&folder)).unwrap();
    Records::read_checked(std::slice::from_ref(&folder), Check::Records).unwrap();
    assert!(!cache(&folder).exists());
}

/// A cache written while `campaign.json` had not settled is bound by the file's bytes (hashed at every reading);
/// the first reading after it settled binds it by the file's stamp instead, copying its payload unchanged, and
/// only when those bytes have proved whole.
#[test]
fn a_cache_is_bound_anew_by_the_plans_stamp_once_the_plan_has_settled_and_only_when_whole() {
    let dir = temp();
    let (folder, edited) = cached_then_edited(&dir);
    let written = fs::read(cache(&folder)).unwrap();
    let damaged = temp();
    let (other, other_edited) = cached_then_edited(&damaged);
    let mut bytes = fs::read(cache(&other)).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 1;
    fs::write(cache(&other), bytes).unwrap();
    std::thread::sleep(metewand_campaign::index::SETTLED + std::time::Duration::from_millis(500));

    // Bound anew: the same payload, another binding, and still the cache (the edited entry unseen).
    let records = Records::read(std::slice::from_ref(&folder)).unwrap();
    assert_eq!(outcome(&records, &edited), Some(Outcome::Reached), "read from the cache");
    let bound = fs::read(cache(&folder)).unwrap();
    assert_ne!(bound, written, "bound anew");
    assert_eq!(bound.len(), written.len(), "a binding of the same length");
    let payload = |bytes: &[u8]| bytes[bytes.len() - 32 - 2_000..bytes.len() - 32].to_vec();
    assert_eq!(payload(&bound), payload(&written), "the payload copied as it was");
    // Bound by the stamp now, the next reading leaves it as it is.
    let records = Records::read(std::slice::from_ref(&folder)).unwrap();
    assert_eq!(outcome(&records, &edited), Some(Outcome::Reached));
    assert_eq!(fs::read(cache(&folder)).unwrap(), bound);

    // A damaged payload is neither used nor bound anew: a whole reading, which writes the cache from the records.
    assert!(whole_reading(&other, &other_edited), "a damaged cache is not used");
}
