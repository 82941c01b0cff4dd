//! The tally (`index/tally.bin`): a trusting status is read from it and from what was appended to the index since,
//! and is what a reading of the whole index says; attempts counted without an entry are looked at again. A tally
//! that no longer describes the folder is not used: another `campaign.json`, a part replaced, an appended entry
//! naming other bytes than the record counted, its own bytes changed or cut short.

use std::fs;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use metewand_campaign::Status;
use metewand_campaign::index::{Check, MERGED_PART};
use serde_json::Value;

use crate::Bench;

fn tally(folder: &Path) -> PathBuf {
    folder.join("index").join("tally.bin")
}

fn merged(folder: &Path) -> PathBuf {
    folder.join("index").join(MERGED_PART)
}

/// The names of the index's parts.
fn parts(folder: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(folder.join("index"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".jsonl"))
        .collect();
    names.sort();
    names
}

/// A campaign of four attempts (one reached, three failed) whose folder has a tally: the bench, the folder, and
/// its status.
fn tallied() -> (Bench, PathBuf, Status) {
    let bench = Bench::new("");
    bench.run("mixed", "out", 2, false);
    let folder = bench.folder("out");
    // The run's closing export counted the records it read: its status is the tally's.
    let closing = fs::read(tally(&folder)).expect("a run's closing export leaves a tally");
    let status = Status::of(&folder, Check::Entries).unwrap();
    assert_eq!(status.by_outcome.values().sum::<usize>(), 4, "{status:?}");
    assert!(status.by_outcome.len() > 1, "{status:?}");
    assert_eq!(fs::read(tally(&folder)).unwrap(), closing, "read from the tally, which is left as it is");
    // A whole reading makes the same tally.
    fs::remove_file(tally(&folder)).unwrap();
    assert_eq!(Status::of(&folder, Check::Entries).unwrap(), status);
    assert_eq!(fs::read(tally(&folder)).unwrap(), closing);
    (bench, folder, status)
}

/// The line of `id` in the merged part.
fn line_of(folder: &Path, id: &str) -> String {
    let text = fs::read_to_string(merged(folder)).unwrap();
    text.lines().find(|line| serde_json::from_str::<Value>(line).unwrap()["attempt_id"] == id).unwrap().to_owned()
}

/// The attempt ids of the merged part's lines, in order.
fn ids(folder: &Path) -> Vec<String> {
    let text = fs::read_to_string(merged(folder)).unwrap();
    text.lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap()["attempt_id"].as_str().unwrap().to_owned())
        .collect()
}

/// Edits the merged part where it is (the same file, the same length): `reached` becomes `failed` in the line of
/// the first reached attempt; the attempt's id.
fn edit_in_place(folder: &Path) -> String {
    let text = fs::read_to_string(merged(folder)).unwrap();
    let at = text.find(r#""outcome":"reached""#).unwrap();
    let file = fs::OpenOptions::new().write(true).open(merged(folder)).unwrap();
    file.write_all_at(br#""outcome":"failed" "#, at as u64).unwrap();
    let line = &text[text[..at].rfind('\n').map_or(0, |newline| newline + 1)..];
    serde_json::from_str::<Value>(line.lines().next().unwrap()).unwrap()["attempt_id"].as_str().unwrap().to_owned()
}

#[test]
fn a_status_is_read_from_the_tally_and_not_from_the_entries_it_counted() {
    let (_bench, folder, status) = tallied();
    let before = fs::read(tally(&folder)).unwrap();
    assert_eq!(Status::of(&folder, Check::Entries).unwrap(), status);
    assert_eq!(fs::read(tally(&folder)).unwrap(), before, "nothing appended: the tally is left as it is");
    // An entry changed by hand where it is: the tally's count stands, since the entries it counted are not read
    // again (as a trusting reading never reads a record again).
    edit_in_place(&folder);
    assert_eq!(Status::of(&folder, Check::Entries).unwrap(), status);
    // The same part replaced by another file with those bytes is another part: the whole index is read.
    let copy = folder.join("index").join("copy");
    fs::copy(merged(&folder), &copy).unwrap();
    fs::rename(&copy, merged(&folder)).unwrap();
    let read = Status::of(&folder, Check::Entries).unwrap();
    assert_eq!(read.by_outcome["failed"], status.by_outcome["failed"] + 1, "{read:?}");
}

#[test]
fn entries_appended_since_are_counted_and_attempts_without_one_are_looked_at_again() {
    let (bench, folder, status) = tallied();
    let id = ids(&folder)[0].clone();
    let line = line_of(&folder, &id);
    // The attempt's folder and entry gone: a whole reading counts it missing.
    let attempt = folder.join("attempts").join(&id);
    let kept = bench.dir.path().join("kept");
    fs::rename(&attempt, &kept).unwrap();
    let text = fs::read_to_string(merged(&folder)).unwrap();
    let rest: String = text.lines().filter(|other| *other != line).map(|other| format!("{other}\n")).collect();
    fs::write(merged(&folder), rest).unwrap();
    fs::remove_file(tally(&folder)).unwrap();
    let without = Status::of(&folder, Check::Entries).unwrap();
    assert_eq!((without.missing, without.done()), (1, status.done() - 1), "{without:?}");
    // Its folder and record back with an entry in a part of their own, as a run's: counted from the entry.
    fs::rename(&kept, &attempt).unwrap();
    let mut part = fs::File::create(folder.join("index").join("run-elsewhere.jsonl")).unwrap();
    writeln!(part, "{line}").unwrap();
    assert_eq!(Status::of(&folder, Check::Entries).unwrap(), status);
    assert_eq!(parts(&folder), [MERGED_PART, "run-elsewhere.jsonl"], "no record was read");
    assert_eq!(Status::of(&folder, Check::Entries).unwrap(), status);

    // Folder back without its entry: the record is read again (as every reading reads an attempt without an
    // entry), and its entry made for the next reading.
    fs::remove_file(folder.join("index").join("run-elsewhere.jsonl")).unwrap();
    fs::rename(&attempt, &kept).unwrap();
    let without = Status::of(&folder, Check::Entries).unwrap();
    assert_eq!(without.missing, 1, "{without:?}");
    fs::rename(&kept, &attempt).unwrap();
    assert_eq!(Status::of(&folder, Check::Entries).unwrap(), status);
    let read: Vec<String> = parts(&folder).into_iter().filter(|name| name.starts_with("read-")).collect();
    assert_eq!(read.len(), 1, "{read:?}");
    assert_eq!(Status::of(&folder, Check::Entries).unwrap(), status);
    assert_eq!(parts(&folder).len(), 2, "the next reading found the entry it made");
    // An unfinished attempt: its folder without a record.
    fs::remove_file(attempt.join("attempt.json")).unwrap();
    let unfinished = Status::of(&folder, Check::Entries).unwrap();
    assert_eq!(unfinished.done(), status.done(), "its entry stands, as for any trusting reading");
}

#[test]
fn many_attempts_without_an_entry_are_looked_for_in_one_listing() {
    let (bench, folder, status) = tallied();
    // Half the plan without an entry (so `attempts/` is listed once): one gone, one still there.
    let ids = ids(&folder);
    let kept = bench.dir.path().join("kept");
    fs::rename(folder.join("attempts").join(&ids[0]), &kept).unwrap();
    let text = fs::read_to_string(merged(&folder)).unwrap();
    let rest: String = text.lines().skip(2).map(|line| format!("{line}\n")).collect();
    fs::write(merged(&folder), rest).unwrap();
    fs::remove_file(tally(&folder)).unwrap();
    let whole = Status::of(&folder, Check::Entries).unwrap();
    assert_eq!((whole.missing, whole.done()), (1, status.done() - 1), "{whole:?}");
    assert_eq!(Status::of(&folder, Check::Entries).unwrap(), whole);
    // The one gone comes back: the listing finds it, its record is read.
    fs::rename(&kept, folder.join("attempts").join(&ids[0])).unwrap();
    assert_eq!(Status::of(&folder, Check::Entries).unwrap(), status);
    assert_eq!(Status::of(&folder, Check::Entries).unwrap(), status);
}

#[test]
fn an_appended_entry_naming_other_bytes_than_the_record_counted_is_not_taken_from_the_tally() {
    let (_bench, folder, status) = tallied();
    let id = ids(&folder)[0].clone();
    // A retry's entry, as another writer would append it: another outcome, other bytes. The record is still the
    // first, which a whole reading finds by reading it.
    let mut entry: Value = serde_json::from_str(&line_of(&folder, &id)).unwrap();
    entry["outcome"] = Value::from("cancelled");
    entry["record"]["size"] = Value::from(entry["record"]["size"].as_u64().unwrap() + 1);
    let mut part = fs::File::create(folder.join("index").join("run-retry.jsonl")).unwrap();
    writeln!(part, "{}", serde_json::to_string(&entry).unwrap()).unwrap();
    assert_eq!(Status::of(&folder, Check::Entries).unwrap(), status);
    assert_eq!(Status::of(&folder, Check::Entries).unwrap(), status);
}

#[test]
fn more_appended_than_a_tally_reads_is_read_with_the_whole_index() {
    let (_bench, folder, status) = tallied();
    // 65 MB of lines that are no entries: past what a status reads beside its tally.
    let junk = format!("{}\n", "x".repeat(1023)).repeat(65 * 1024);
    fs::write(folder.join("index").join("run-junk.jsonl"), junk).unwrap();
    assert_eq!(Status::of(&folder, Check::Entries).unwrap(), status);
    // The whole reading's tally takes the part in: the next status reads nothing past it.
    assert_eq!(Status::of(&folder, Check::Entries).unwrap(), status);
}

#[test]
fn a_tally_of_other_plan_bytes_or_changed_or_cut_short_is_not_used() {
    let (_bench, folder, status) = tallied();
    let bytes = fs::read(tally(&folder)).unwrap();
    // One attempt's count made another's: the tally ends with its digest after 76 bytes an attempt, the count the
    // four bytes after the id's 32. Used, it would count that attempt twice as the other.
    let count_at = |slot: usize| bytes.len() - 32 - 76 * (4 - slot) + 32;
    let count = |slot: usize| bytes[count_at(slot)..count_at(slot) + 4].to_vec();
    let other = (1..4).find(|&slot| count(slot) != count(0)).unwrap();
    let mut changed = bytes.clone();
    changed[count_at(0)..count_at(0) + 4].copy_from_slice(&count(other));
    fs::write(tally(&folder), &changed).unwrap();
    assert_eq!(Status::of(&folder, Check::Entries).unwrap(), status, "a count changed");
    for at in [0, bytes.len() / 2, bytes.len() - 1] {
        let mut changed = bytes.clone();
        changed[at] ^= 1;
        fs::write(tally(&folder), &changed).unwrap();
        assert_eq!(Status::of(&folder, Check::Entries).unwrap(), status, "byte {at} changed");
    }
    for len in [0, 17, bytes.len() / 2, bytes.len() - 1] {
        fs::write(tally(&folder), &bytes[..len]).unwrap();
        assert_eq!(Status::of(&folder, Check::Entries).unwrap(), status, "cut to {len} bytes");
    }
    // A whole reading made it again.
    assert_eq!(fs::read(tally(&folder)).unwrap().len(), bytes.len());

    // Another plan in `campaign.json` (one attempt fewer): counted against it.
    let path = folder.join("campaign.json");
    let mut plan: Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    let dropped = plan["attempts"].as_array_mut().unwrap().remove(0);
    let written = serde_json::to_vec(&plan).unwrap();
    fs::write(&path, &written).unwrap();
    let fewer = Status::of(&folder, Check::Entries).unwrap();
    assert_eq!(fewer.planned, 3, "{fewer:?}");
    assert_eq!(fewer, Status::of(&folder, Check::Records).unwrap());
    // The same bytes written again are the same plan; the plan as it was, the first status.
    fs::write(&path, &written).unwrap();
    assert_eq!(Status::of(&folder, Check::Entries).unwrap(), fewer);
    plan["attempts"].as_array_mut().unwrap().insert(0, dropped);
    fs::write(&path, serde_json::to_vec(&plan).unwrap()).unwrap();
    assert_eq!(Status::of(&folder, Check::Entries).unwrap(), status);
}

/// `campaign plan`'s summary of a folder read from its tally is the summary a reading of the whole index makes:
/// the status, the estimate from the records' wall times, and each done attempt's program changes. With a plan that
/// reaches past the folder's (more seeds), the attempts the tally does not count are looked up one by one.
#[test]
fn a_plans_summary_from_the_tally_is_the_summary_of_a_whole_reading() {
    use metewand_campaign::{Axes, CampaignPlan, PlanSummary};
    use metewand_runtime::repository::Seeds;

    let (bench, folder, _) = tallied();
    let repository = bench.load();
    let mut environment = metewand_campaign::environment::capture(&repository);
    // Every worker's command now finds another file at the path that ran: each done attempt ran another program.
    for program in &mut environment.workers {
        program.sha256 = Some(metewand_runtime::Sha256Digest::of(b"another build"));
    }
    let more = Axes { implementation_seeds: Some(Seeds::Range { from: 0.into(), count: 3 }), ..Axes::default() };
    let plans = [
        CampaignPlan::new(&repository, Some("mixed"), &Axes::default()).unwrap(),
        CampaignPlan::new(&repository, Some("mixed"), &more).unwrap(),
    ];
    let summaries = |folder: &Path| {
        plans.iter().map(|plan| PlanSummary::of(plan, folder, &bench.state(), 2, &environment)).collect::<Vec<_>>()
    };
    let from_tally = summaries(&folder);
    assert!(tally(&folder).exists());
    assert_eq!(from_tally[0].status.done(), 4, "{:?}", from_tally[0].status);
    assert_eq!((from_tally[1].attempts, from_tally[1].status.done()), (12, 4), "{:?}", from_tally[1].status);
    assert_eq!(from_tally[1].status.missing, 8);
    let estimate = from_tally[0].estimate.expect("an estimate from the records' times");
    assert_eq!(estimate.records, 4);
    assert!(estimate.mean_seconds > 0.0);
    // The workers that started, in the attempts whose datasets were made.
    let changed: Vec<(&str, usize)> =
        from_tally[0].changed_programs.iter().map(|(change, attempts)| (change.worker.as_str(), *attempts)).collect();
    assert_eq!(changed, [("failing-solver", 1), ("judge", 1), ("solver", 1)]);

    // Read from the tally, not recounted: an entry edited in place is not seen.
    let entries = fs::read(merged(&folder)).unwrap();
    edit_in_place(&folder);
    assert_eq!(summaries(&folder), from_tally);
    fs::write(merged(&folder), entries).unwrap();

    // Without a tally or a plan file to make one from, the index is read whole: the same summaries.
    fs::remove_file(tally(&folder)).unwrap();
    fs::rename(folder.join("campaign.json"), bench.folder("campaign.json")).unwrap();
    assert_eq!(summaries(&folder), from_tally);
    assert!(!tally(&folder).exists());
    fs::rename(bench.folder("campaign.json"), folder.join("campaign.json")).unwrap();
    // Without a tally but with its plan file: one whole reading makes the tally, and the same summaries.
    assert_eq!(summaries(&folder), from_tally);
    assert!(tally(&folder).exists());
}
