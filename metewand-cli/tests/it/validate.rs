//! `metewand validate`: exit 0 with the validated files, 1 with one sentence for rejected output, 2 for usage,
//! repository and I/O errors.

use std::fs;
use std::path::Path;

use metewand_runtime::Sha256Digest;
use serde_json::json;

use crate::{golden, metewand};

fn write_dataset(dir: &Path) {
    fs::write(dir.join("rows.csv"), b"1,2\n").unwrap();
    let manifest = json!({"complete": true, "data": {"rows": 1}, "files": [
        {"path": "rows.csv", "size": 4, "sha256": Sha256Digest::of(b"1,2\n").to_string()}]});
    fs::write(dir.join("dataset-manifest.json"), serde_json::to_vec(&manifest).unwrap()).unwrap();
}

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let output = metewand(args, b"");
    (output.status.code(), String::from_utf8(output.stdout).unwrap(), String::from_utf8(output.stderr).unwrap())
}

#[test]
fn a_valid_dataset_prints_its_files() {
    let dir = tempfile::tempdir().unwrap();
    write_dataset(dir.path());
    let repo = golden();
    let (code, stdout, stderr) = run(&[
        "validate",
        "dataset",
        dir.path().to_str().unwrap(),
        "--repo",
        repo.to_str().unwrap(),
        "--dataset",
        "small",
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    let manifest = fs::read(dir.path().join("dataset-manifest.json")).unwrap();
    assert_eq!(
        stdout,
        format!(
            "{} 4 rows.csv\n{} {} dataset-manifest.json\n",
            Sha256Digest::of(b"1,2\n"),
            Sha256Digest::of(&manifest),
            manifest.len()
        )
    );
}

#[test]
fn rejected_output_exits_1_with_one_sentence() {
    let dir = tempfile::tempdir().unwrap();
    write_dataset(dir.path());
    fs::write(dir.path().join("rows.csv"), b"1,3\n").unwrap();
    let repo = golden();
    let (code, stdout, stderr) = run(&[
        "validate",
        "dataset",
        dir.path().to_str().unwrap(),
        "--repo",
        repo.to_str().unwrap(),
        "--dataset",
        "small",
        "--threads",
        "1",
    ]);
    assert_eq!(code, Some(1));
    assert!(stdout.is_empty());
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("\"rows.csv\" has SHA-256") && stderr.contains("but the manifest declares"), "{stderr}");
}

#[test]
fn results_and_metrics() {
    let repo = golden();
    let repo = repo.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("result.json"), br#"{"data": {"coefficients": [1]}, "files": []}"#).unwrap();
    let (code, stdout, stderr) =
        run(&["validate", "result", dir.path().to_str().unwrap(), "--repo", repo, "--problem", "ls"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.ends_with(" result.json\n"), "{stdout}");

    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("metrics.json"), br#"{"metrics": {"rmse": 1}}"#).unwrap();
    let (code, _, stderr) =
        run(&["validate", "metrics", dir.path().to_str().unwrap(), "--repo", repo, "--problem", "ls"]);
    assert_eq!(code, Some(0), "{stderr}");
    fs::write(dir.path().join("notes.txt"), b"").unwrap();
    let (code, _, stderr) =
        run(&["validate", "metrics", dir.path().to_str().unwrap(), "--repo", repo, "--problem", "ls"]);
    assert_eq!(code, Some(1));
    assert!(stderr.contains("\"notes.txt\" is beside \"metrics.json\""), "{stderr}");
}

#[test]
fn usage_repository_and_io_errors_exit_2() {
    let repo = golden();
    let repo = repo.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    write_dataset(dir.path());
    let dir = dir.path().to_str().unwrap();
    let (code, stdout, stderr) = run(&["validate"]);
    assert_eq!(code, Some(2));
    assert!(stdout.is_empty() && stderr.contains("Usage: metewand validate <COMMAND>"), "{stderr}");
    for args in [
        &["validate", "dataset", dir, "--dataset", "small"][..],
        &["validate", "dataset", dir, "--repo", repo],
        &["validate", "dataset", dir, "--repo", repo, "--problem", "ls"],
        &["validate", "dataset", dir, "--repo", repo, "--dataset", "large"],
        &["validate", "result", dir, "--repo", repo, "--problem", "nope"],
        &["validate", "schema", dir, "--repo", repo, "--problem", "ls"],
        &["validate", "dataset", dir, "--repo", "/nonexistent/metewand/repo", "--dataset", "small"],
        &["validate", "dataset", "/nonexistent/metewand/out", "--repo", repo, "--dataset", "small"],
        &["validate", "dataset", dir, "--repo", repo, "--dataset", "small", "--threads", "0"],
    ] {
        let (code, stdout, stderr) = run(args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stdout.is_empty());
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    }
}

#[test]
fn a_file_given_for_the_folder_is_a_usage_error() {
    let repo = golden();
    let repo = repo.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("metrics.json");
    fs::write(&file, br#"{"metrics": {"rmse": 1}}"#).unwrap();
    let file = file.to_str().unwrap();
    for (args, manifest) in [
        (&["validate", "metrics", file, "--repo", repo, "--problem", "ls"][..], "metrics.json"),
        (&["validate", "result", file, "--repo", repo, "--problem", "ls"], "result.json"),
        (&["validate", "dataset", file, "--repo", repo, "--dataset", "small"], "dataset-manifest.json"),
    ] {
        let (code, stdout, stderr) = run(args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stdout.is_empty());
        assert_eq!(
            stderr,
            format!("metewand: validate: {file} is not a folder; give the folder that holds {manifest}\n"),
            "{args:?}"
        );
    }
}

#[test]
fn help() {
    let (code, stdout, _) = run(&["validate", "--help"]);
    assert_eq!(code, Some(0));
    assert!(stdout.contains("metewand validate metrics DIR --repo R --problem P"), "{stdout}");
}
