//! Records checked against the files a bundle holds: a bundle whose files are its manifest's can still contradict
//! itself, when its author edited a record or a metrics file before bundling.

use std::fs;

use metewand_bundle::verify_bundle;
use serde_json::json;

use crate::{Fixture, read_json, write_json};

#[test]
fn a_record_whose_metrics_were_edited_is_listed() {
    let fixture = Fixture::new();
    let mut record = read_json(&fixture.record(0));
    record["metrics"] = json!({"error": 0.0});
    write_json(&fixture.record(0), &record);
    let (bundle, _) = fixture.bundle("main.tar.zst");
    let (_, verified) = verify_bundle(&bundle).unwrap();
    let lines: Vec<String> = verified.differences.iter().map(ToString::to_string).collect();
    assert_eq!(lines.len(), 1, "{lines:#?}");
    assert!(lines[0].contains(&fixture.ids[0]) && lines[0].contains("work/metrics/metrics.json"), "{lines:#?}");
    assert!(lines[0].contains("holds other metrics than the record"), "{lines:#?}");
}

#[test]
fn a_result_the_record_does_not_name_and_a_foreign_worker_are_listed() {
    let fixture = Fixture::new();
    let folder = fixture.campaign.join("attempts").join(&fixture.ids[1]);
    fs::write(folder.join("work/result/answer.txt"), "swapped\n").unwrap();
    let mut record = read_json(&fixture.record(2));
    record["evaluator"]["worker_id"] = json!(format!("mw1-resolved-worker-{}", "0".repeat(64)));
    write_json(&fixture.record(2), &record);
    let (bundle, _) = fixture.bundle("main.tar.zst");
    let (_, verified) = verify_bundle(&bundle).unwrap();
    let lines: Vec<String> = verified.differences.iter().map(ToString::to_string).collect();
    assert_eq!(lines.len(), 2, "{lines:#?}");
    assert!(lines[0].contains(&fixture.ids[1]) && lines[0].contains("differs from the record"), "{lines:#?}");
    assert!(lines[1].contains(&fixture.ids[2]) && lines[1].contains("problem_evaluator ran worker"), "{lines:#?}");
}

#[test]
fn an_invalid_record_is_listed() {
    let fixture = Fixture::new();
    let mut record = read_json(&fixture.record(1));
    record["outcome"] = json!("won");
    write_json(&fixture.record(1), &record);
    let (bundle, _) = fixture.bundle("main.tar.zst");
    let (_, verified) = verify_bundle(&bundle).unwrap();
    let lines: Vec<String> = verified.differences.iter().map(ToString::to_string).collect();
    assert_eq!(lines.len(), 1, "{lines:#?}");
    assert!(lines[0].contains(&format!("{}/attempt.json", fixture.ids[1])), "{lines:#?}");
}

#[test]
fn a_bundle_without_its_datasets_says_each_result_was_not_judged_again() {
    let fixture = Fixture::new();
    let (bundle, _) = fixture.bundle("main.tar.zst");
    let (opened, _) = verify_bundle(&bundle).unwrap();
    let rejudged = metewand_bundle::rejudge(opened.folder(), &opened.manifest).unwrap();
    let lines: Vec<String> = rejudged.unjudged.iter().map(ToString::to_string).collect();
    // The failed attempt has no verdict to judge again; the two others are listed, apart from the differences.
    assert_eq!((rejudged.judged, lines.len(), rejudged.differences.len()), (0, 2, 0), "{lines:#?}");
    for (line, id) in lines.iter().zip(&fixture.ids) {
        assert!(line.contains(id) && line.contains("the bundle holds no dataset"), "{line}");
    }
}
