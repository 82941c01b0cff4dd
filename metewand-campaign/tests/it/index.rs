//! The campaign index: a run leaves one part whose entries match the records byte for byte. A trusting reading (the
//! default) takes the entries without reading their records, and still reads a record that has none. A checked
//! reading never trusts an entry over its record: records edited, removed or added by hand, parts cut short or
//! replaced by links and FIFOs, entries of other attempts; a stamped entry is trusted without hashing only while its
//! file keeps the stamp.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use metewand_campaign::index::{self, Check, IndexEntry, MERGED_PART, Rebuild};
use metewand_campaign::{Status, read_campaign};
use metewand_runtime::Sha256Digest;
use serde_json::Value;

use crate::{Bench, records};

/// The names of the index's parts (beside which the table is).
fn parts(folder: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(folder.join("index"))
        .map(|entries| entries.map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    names.retain(|name| name.ends_with(".jsonl"));
    names.sort();
    names
}

/// Every line of every part, parsed.
fn entries(folder: &Path) -> Vec<Value> {
    let mut out = Vec::new();
    for name in parts(folder) {
        let text = fs::read_to_string(folder.join("index").join(name)).unwrap();
        out.extend(text.lines().map(|line| serde_json::from_str::<Value>(line).unwrap()));
    }
    out
}

fn record_path(folder: &Path, id: &str) -> PathBuf {
    folder.join("attempts").join(id).join("attempt.json")
}

/// The outcome of every planned attempt as the index scan reads it, checking every entry against its record
/// (`missing`, `unfinished`, `invalid` otherwise).
fn scanned(folder: &Path) -> BTreeMap<String, String> {
    scanned_by(folder, Check::Records)
}

/// The outcome of every planned attempt as the index scan reads it, its entries taken as `check` says.
fn scanned_by(folder: &Path, check: Check) -> BTreeMap<String, String> {
    let file = read_campaign(folder).unwrap();
    let ids: Vec<&str> = file.attempts.iter().map(|entry| entry.id.as_str()).collect();
    let found = std::sync::Mutex::new(BTreeMap::new());
    index::scan(folder, &ids, Rebuild::NewPart, check, |slot, what| {
        let said = match what {
            metewand_campaign::folder::Found::Record(entry) => entry.outcome.to_string(),
            metewand_campaign::folder::Found::Missing => "missing".to_owned(),
            metewand_campaign::folder::Found::Unfinished => "unfinished".to_owned(),
            metewand_campaign::folder::Found::Invalid(_) => "invalid".to_owned(),
        };
        found.lock().unwrap().insert(ids[slot].to_owned(), said);
    });
    found.into_inner().unwrap()
}

fn outcomes_of_records(folder: &Path) -> BTreeMap<String, String> {
    records(folder).into_iter().map(|(id, record)| (id, record["outcome"].as_str().unwrap().to_owned())).collect()
}

#[test]
fn a_run_leaves_one_merged_part_whose_entries_match_the_records_byte_for_byte() {
    let bench = Bench::new("");
    bench.run("mixed", "out", 2, false);
    let folder = bench.folder("out");
    assert_eq!(parts(&folder), [MERGED_PART], "the run's part was merged");
    let entries = entries(&folder);
    assert_eq!(entries.len(), 4);
    for entry in &entries {
        let id = entry["attempt_id"].as_str().unwrap();
        let bytes = fs::read(record_path(&folder, id)).unwrap();
        assert_eq!(entry["record"]["size"], bytes.len() as u64);
        assert_eq!(entry["record"]["sha256"], Sha256Digest::of(&bytes).to_string());
        let record: Value = serde_json::from_slice(&bytes).unwrap();
        for field in ["outcome", "verdict", "started_at", "finished_at"] {
            assert_eq!(entry[field], record[field], "{field} of {id}");
        }
        assert_eq!(entry["implementation"]["worker_id"], record["implementation"]["worker_id"]);
        if record["failure"].is_object() {
            assert_eq!(entry["failure"]["kind"], record["failure"]["kind"]);
            let role = record["failure"]["role"].as_str().unwrap();
            assert_eq!(entry["failure"]["log"], record["logs"][role], "the failing role's log");
        }
        let entry: IndexEntry = serde_json::from_value(entry.clone()).expect("the entry reads as its schema's type");
        assert_eq!(entry.phases.len(), record["phases"].as_array().unwrap().len());
    }
    // Reading a tidy index writes nothing.
    assert_eq!(scanned(&folder), outcomes_of_records(&folder));
    assert_eq!(parts(&folder), [MERGED_PART]);
    // A second run of the same plan skips every attempt and leaves the index as it was.
    let before = fs::read(folder.join("index").join(MERGED_PART)).unwrap();
    bench.run("mixed", "out", 2, false);
    assert_eq!(fs::read(folder.join("index").join(MERGED_PART)).unwrap(), before);
}

#[test]
fn a_record_edited_by_hand_is_read_over_its_entry_and_indexed_again_once() {
    let bench = Bench::new("");
    bench.run("mixed", "out", 2, false);
    let folder = bench.folder("out");
    let (id, _) = records(&folder).into_iter().find(|(_, record)| record["outcome"] == "reached").unwrap();
    // The same size and a valid record: only the digest tells them apart.
    let text = fs::read_to_string(record_path(&folder, &id)).unwrap();
    assert!(text.contains("\"outcome\":\"reached\""), "{text}");
    let edited = text
        .replace("\"outcome\":\"reached\"", "\"outcome\":\"invalid\"")
        .replace("\"verdict\":\"reached\"", "\"verdict\":\"invalid\"");
    assert_eq!(edited.len(), text.len() - 2 * ("reached".len() - "invalid".len()));
    fs::write(record_path(&folder, &id), &edited).unwrap();
    let status = Status::of(&folder, Check::Records).unwrap();
    assert_eq!(status.by_outcome.get("invalid"), Some(&1), "{status:?}");
    assert_eq!(status.by_outcome.get("reached"), None, "{status:?}");
    let written = parts(&folder);
    assert_eq!(written.len(), 2, "a reader's part holds the new entry: {written:?}");
    assert!(written.iter().any(|name| name.starts_with("read-")), "{written:?}");
    // The new entry matches the edited record, so the next reader writes nothing.
    assert_eq!(scanned(&folder)[&id], "invalid");
    assert_eq!(parts(&folder), written);
    // The next run merges both parts into one, keeping the entry that matches.
    bench.run("mixed", "out", 2, false);
    assert_eq!(parts(&folder), [MERGED_PART]);
    let of_id: Vec<Value> = entries(&folder).into_iter().filter(|entry| entry["attempt_id"] == id.as_str()).collect();
    assert_eq!(of_id.len(), 1);
    assert_eq!(of_id[0]["outcome"], "invalid");
}

#[test]
fn records_removed_or_added_by_hand_count_as_the_folder_holds_them() {
    let bench = Bench::new("");
    bench.run("mixed", "out", 2, false);
    bench.run("mixed", "copy", 2, false);
    let folder = bench.folder("out");
    let ids: Vec<String> = records(&folder).into_keys().collect();
    // One attempt folder removed, one record removed: the index's entries for them are not used.
    fs::remove_dir_all(folder.join("attempts").join(&ids[0])).unwrap();
    fs::remove_file(record_path(&folder, &ids[1])).unwrap();
    let status = Status::of(&folder, Check::Records).unwrap();
    assert_eq!((status.missing, status.unfinished, status.done()), (1, 1, 2), "{status:?}");
    // The first attempt's folder comes back from the other run of the same plan, which the index has no entry of.
    let copied = bench.folder("copy").join("attempts").join(&ids[0]);
    let status = std::process::Command::new("cp").arg("-a").arg(&copied).arg(folder.join("attempts")).status();
    assert!(status.unwrap().success());
    let scanned = scanned(&folder);
    assert_eq!(scanned[&ids[0]], outcomes_of_records(&bench.folder("copy"))[&ids[0]]);
    assert_eq!(scanned[&ids[1]], "unfinished");
    let status = Status::of(&folder, Check::Records).unwrap();
    assert_eq!((status.missing, status.unfinished, status.done()), (0, 1, 3), "{status:?}");
}

#[test]
fn lost_or_broken_parts_are_rebuilt_from_the_records() {
    let bench = Bench::new("");
    bench.run("mixed", "out", 2, false);
    let folder = bench.folder("out");
    let expected = outcomes_of_records(&folder);
    let index = folder.join("index");
    let merged = fs::read(index.join(MERGED_PART)).unwrap();
    let first_line = merged.iter().position(|&byte| byte == b'\n').unwrap() + 1;

    // No index at all.
    fs::remove_dir_all(&index).unwrap();
    assert_eq!(scanned(&folder), expected);
    assert_eq!(entries(&folder).len(), 4, "rebuilt whole");

    // A part cut short in its last line, as by SIGKILL mid-write, and lines that are not entries.
    fs::remove_dir_all(&index).unwrap();
    fs::create_dir(&index).unwrap();
    let mut broken = merged[..merged.len() - 40].to_vec();
    broken.splice(0..0, b"not json\n{\"attempt_id\":17}\n\n".iter().copied());
    fs::write(index.join("run-cut.jsonl"), &broken).unwrap();
    assert_eq!(scanned(&folder), expected);
    let rebuilt: Vec<String> = parts(&folder).into_iter().filter(|name| name.starts_with("read-")).collect();
    assert_eq!(rebuilt.len(), 1);
    let lines = fs::read_to_string(index.join(&rebuilt[0])).unwrap();
    assert_eq!(lines.lines().count(), 1, "only the entry cut short is made again");

    // An entry of one attempt filed under another's id, and one naming another record's bytes: neither matches
    // the record filed under its id, so neither is used (the lie in their outcome never shows).
    fs::remove_dir_all(&index).unwrap();
    fs::create_dir(&index).unwrap();
    let entry: Value = serde_json::from_slice(&merged[..first_line]).unwrap();
    let own = entry["attempt_id"].as_str().unwrap().to_owned();
    let other = expected.keys().find(|id| **id != own).unwrap().clone();
    let lie = if expected[&own] == "reached" { "not_reached" } else { "reached" };
    let mut filed_elsewhere = entry.clone();
    filed_elsewhere["attempt_id"] = Value::from(other.as_str());
    filed_elsewhere["outcome"] = Value::from(lie);
    let mut other_bytes = entry.clone();
    let bytes = fs::read(record_path(&folder, &other)).unwrap();
    other_bytes["record"] = serde_json::json!({"size": bytes.len(), "sha256": Sha256Digest::of(&bytes).to_string()});
    other_bytes["outcome"] = Value::from(lie);
    let lines = format!("{filed_elsewhere}\n{other_bytes}\n");
    fs::write(index.join("forged.jsonl"), lines).unwrap();
    assert_eq!(scanned(&folder), expected);

    // A part that is a link to elsewhere, or a FIFO, is never read (and never waited on).
    fs::remove_dir_all(&index).unwrap();
    fs::create_dir(&index).unwrap();
    let elsewhere = bench.dir.path().join("elsewhere.jsonl");
    let lie = String::from_utf8(merged.clone()).unwrap().replace("\"outcome\":\"failed\"", "\"outcome\":\"reached\"");
    fs::write(&elsewhere, lie).unwrap();
    std::os::unix::fs::symlink(&elsewhere, index.join("link.jsonl")).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        index.join("fifo.jsonl"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    assert_eq!(scanned(&folder), expected);

    // An index folder that is a file: readers still read the records, and write nothing.
    fs::remove_dir_all(&index).unwrap();
    fs::write(&index, "not a folder").unwrap();
    assert_eq!(scanned(&folder), expected);
    assert_eq!(fs::read_to_string(&index).unwrap(), "not a folder");
}

#[test]
fn a_read_only_folder_is_read_without_an_index_and_left_as_it_is() {
    let bench = Bench::new("");
    bench.run("mixed", "out", 2, false);
    let folder = bench.folder("out");
    let expected = outcomes_of_records(&folder);
    fs::remove_dir_all(folder.join("index")).unwrap();
    let chmod = |mode: &str| {
        let status = std::process::Command::new("chmod").args(["-R", mode]).arg(&folder).status().unwrap();
        assert!(status.success());
    };
    chmod("a-w");
    // Root may write anyway; anyone else cannot, and the reading is the same either way.
    let privileged = fs::write(folder.join("probe"), "").is_ok();
    let found = scanned(&folder);
    let written = folder.join("index").exists();
    chmod("u+w");
    assert_eq!(found, expected);
    if !privileged {
        assert!(!written, "nothing was written into a read-only folder");
    }
}

/// The stamp of a file as entries name it.
fn stamp_of(path: &Path) -> String {
    let meta = fs::symlink_metadata(path).unwrap();
    format!("{}:{}.{:09}:{}.{:09}", meta.ino(), meta.ctime(), meta.ctime_nsec(), meta.mtime(), meta.mtime_nsec())
}

/// Rewrites every line of every part that names `id` with `change`.
fn rewrite_entries(folder: &Path, id: &str, change: impl Fn(&mut Value)) {
    for name in parts(folder) {
        let path = folder.join("index").join(name);
        let text = fs::read_to_string(&path).unwrap();
        let mut out = String::new();
        for line in text.lines() {
            let mut entry: Value = serde_json::from_str(line).unwrap();
            if entry["attempt_id"] == id {
                change(&mut entry);
            }
            out.push_str(&serde_json::to_string(&entry).unwrap());
            out.push('\n');
        }
        fs::write(&path, out).unwrap();
    }
}

#[test]
fn a_stamped_entry_is_used_without_hashing_only_while_its_file_keeps_the_stamp() {
    let bench = Bench::new("");
    bench.run("mixed", "out", 2, false);
    let folder = bench.folder("out");
    let truth = outcomes_of_records(&folder);
    // Records had just been written when the run indexed them: no entry is stamped yet.
    assert!(entries(&folder).iter().all(|entry| entry["record"].get("stamp").is_none()));
    std::thread::sleep(index::SETTLED + Duration::from_millis(500));
    // The next reading hashes them, finds them settled and stamps their entries; the one after adds nothing.
    assert_eq!(scanned(&folder), truth);
    let stamped: Vec<Value> =
        entries(&folder).into_iter().filter(|entry| entry["record"].get("stamp").is_some()).collect();
    assert_eq!(stamped.len(), truth.len(), "one stamped entry per record");
    for entry in &stamped {
        let id = entry["attempt_id"].as_str().unwrap();
        assert_eq!(entry["record"]["stamp"], stamp_of(&record_path(&folder, id)), "{id}");
    }
    let lines = entries(&folder).len();
    assert_eq!(scanned(&folder), truth);
    assert_eq!(entries(&folder).len(), lines);

    // Entries that say another outcome and a digest their records never had, keeping the stamps: read by stamp,
    // they are used as they are, which shows the records are not hashed ...
    let ids: Vec<&String> = truth.keys().collect();
    let other = |id: &str| truth.values().find(|outcome| **outcome != truth[id]).unwrap().clone();
    for id in &ids[..2] {
        let forged = other(id);
        rewrite_entries(&folder, id, |entry| {
            entry["outcome"] = Value::from(forged.clone());
            entry["record"]["sha256"] = Value::from("0".repeat(64));
        });
    }
    let read = scanned(&folder);
    assert_eq!((&read[ids[0]], &read[ids[1]]), (&other(ids[0]), &other(ids[1])));
    // ... until their files change in any way. A change of mode moves a file's ctime; the same bytes copied over
    // it are another inode. Each record is then hashed, the forged entry refused, and the record read.
    let path = record_path(&folder, ids[0]);
    fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
    let copy = folder.join("attempts").join(ids[1]).join("copy");
    fs::copy(record_path(&folder, ids[1]), &copy).unwrap();
    fs::rename(&copy, record_path(&folder, ids[1])).unwrap();
    assert_eq!(scanned(&folder), truth);
}

/// Removes every line of every part that names `id`.
fn drop_entries(folder: &Path, id: &str) {
    for name in parts(folder) {
        let path = folder.join("index").join(name);
        let text = fs::read_to_string(&path).unwrap();
        let kept: String = text
            .lines()
            .filter(|line| serde_json::from_str::<Value>(line).unwrap()["attempt_id"] != id)
            .map(|line| format!("{line}\n"))
            .collect();
        fs::write(&path, kept).unwrap();
    }
}

#[test]
fn an_entry_is_trusted_without_reading_its_record_unless_records_are_checked() {
    let bench = Bench::new("");
    bench.run("mixed", "out", 2, false);
    let folder = bench.folder("out");
    let truth = outcomes_of_records(&folder);
    let (id, _) = truth.iter().find(|(_, outcome)| *outcome == "reached").unwrap();
    // A record replaced by hand with bytes that are no record at all: a reading that opened, stat'ed or hashed
    // it would not count it reached.
    fs::write(record_path(&folder, id), "replaced by hand").unwrap();
    assert_eq!(scanned_by(&folder, Check::Entries), truth, "the entries are taken as the executor wrote them");
    let status = Status::of(&folder, Check::Entries).unwrap();
    assert_eq!((status.done(), status.invalid.len()), (4, 0), "{status:?}");
    assert_eq!(parts(&folder), [MERGED_PART], "a trusting reading writes nothing");
    // Checked, the record is read and refused.
    let status = Status::of(&folder, Check::Records).unwrap();
    assert_eq!((status.done(), status.invalid.len()), (3, 1), "{status:?}");
    assert_eq!(status.invalid[0].0, *id);
}

#[test]
fn a_record_without_an_entry_is_counted_by_a_trusting_reading() {
    let bench = Bench::new("");
    bench.run("mixed", "out", 2, false);
    let folder = bench.folder("out");
    let truth = outcomes_of_records(&folder);
    let ids: Vec<&String> = truth.keys().collect();
    // One record written without its entry (the executor stopped between the two): it is read, and its entry
    // written to a reader's part for the next reading.
    drop_entries(&folder, ids[0]);
    assert_eq!(scanned_by(&folder, Check::Entries), truth);
    let read: Vec<String> = parts(&folder).into_iter().filter(|name| name.starts_with("read-")).collect();
    assert_eq!(read.len(), 1, "{read:?}");
    assert_eq!(fs::read_to_string(folder.join("index").join(&read[0])).unwrap().lines().count(), 1);
    assert_eq!(scanned_by(&folder, Check::Entries), truth);
    assert_eq!(parts(&folder).len(), 2, "the next reading found every entry");

    // No index at all (so `attempts/` is listed once): a folder without a record is unfinished, a folder gone is
    // missing, the rest are read from their records.
    fs::remove_dir_all(folder.join("index")).unwrap();
    fs::remove_dir_all(folder.join("attempts").join(ids[0])).unwrap();
    fs::remove_file(record_path(&folder, ids[1])).unwrap();
    let status = Status::of(&folder, Check::Entries).unwrap();
    assert_eq!((status.missing, status.unfinished, status.done()), (1, 1, 2), "{status:?}");
    let scanned = scanned_by(&folder, Check::Entries);
    assert_eq!((&*scanned[ids[0]], &*scanned[ids[1]]), ("missing", "unfinished"));
    assert_eq!((&scanned[ids[2]], &scanned[ids[3]]), (&truth[ids[2]], &truth[ids[3]]));
}
