//! `metewand bundle`, `metewand verify` and `metewand report` of a bundle as a user runs them, on a real campaign of
//! the test worker's benchmark: the digest printed by each, a tampered bundle and an edited unpacked one refused
//! with exit 1, and bad input as one sentence with exit 2.

use std::fs;
use std::path::Path;

use crate::campaign::Bench;
use crate::{run as metewand, text};

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|arg| (*arg).to_owned()).collect()
}

fn path(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// The SHA-256 on the line `manifest SHA-256 <digest>` of a command's output.
fn digest(stdout: &[u8]) -> String {
    let text = text(stdout);
    let line = text.lines().find_map(|line| line.strip_prefix("manifest SHA-256 ")).unwrap_or_else(|| panic!("{text}"));
    assert_eq!(line.len(), 64, "{text}");
    line.to_owned()
}

#[test]
fn a_bundle_is_written_verified_and_reported_under_one_digest() {
    let bench = Bench::new("");
    let ran = metewand(&bench.run_args("main", "state", &["--quiet"]));
    assert_eq!(ran.status.code(), Some(0), "{}", text(&ran.stderr));
    let folder = bench.folder("state", "main");
    let bundle = bench.path("main.tar.zst");
    let state = bench.path("state");
    let written = metewand(&args(&[
        "bundle",
        path(&folder),
        "--out",
        path(&bundle),
        "--with-datasets",
        "--state-dir",
        path(&state),
    ]));
    assert_eq!(written.status.code(), Some(0), "{}", text(&written.stderr));
    let digest = digest(&written.stdout);

    let verified = metewand(&args(&["verify", path(&bundle)]));
    assert_eq!(verified.status.code(), Some(0), "{}{}", text(&verified.stdout), text(&verified.stderr));
    assert!(text(&verified.stdout).contains("4 records verified"), "{}", text(&verified.stdout));
    assert_eq!(self::digest(&verified.stdout), digest);

    let report = metewand(&args(&["report", path(&bundle), "--format", "markdown"]));
    assert_eq!(report.status.code(), Some(0), "{}", text(&report.stderr));
    assert!(text(&report.stdout).contains(&format!("| bundle | manifest SHA-256 | `{digest}` |")));
    // The folders are named as bundled, never by the temporary folder they were unpacked in.
    assert!(!text(&report.stdout).contains("metewand-bundle-"), "{}", text(&report.stdout));
    // The report of the folder itself names no bundle.
    let plain = metewand(&args(&["report", path(&folder), "--format", "markdown"]));
    assert!(!text(&plain.stdout).contains("manifest SHA-256"));

    // Unpacked by hand, the folder verifies; edited, each difference is a line and the exit status 1.
    let unpacked = bench.path("unpacked");
    fs::create_dir(&unpacked).unwrap();
    let tar = std::process::Command::new("tar")
        .args(["--zstd", "-xf", path(&bundle), "-C", path(&unpacked)])
        .status()
        .unwrap();
    assert!(tar.success());
    let verified = metewand(&args(&["verify", path(&unpacked)]));
    assert_eq!(verified.status.code(), Some(0), "{}", text(&verified.stdout));
    fs::write(unpacked.join("campaigns/main/results.csv"), "edited\n").unwrap();
    let verified = metewand(&args(&["verify", path(&unpacked)]));
    assert_eq!(verified.status.code(), Some(1));
    assert!(text(&verified.stdout).contains("the file campaigns/main/results.csv differs from the manifest"));
    let stderr = text(&verified.stderr);
    assert!(stderr.contains("differs from what it claims in 1 place") && stderr.lines().count() == 1, "{stderr}");

    // A truncated bundle is refused in one sentence, and so is a report of it.
    let bytes = fs::read(&bundle).unwrap();
    let cut = bench.path("cut.tar.zst");
    fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    for command in ["verify", "report"] {
        let refused = metewand(&args(&[command, path(&cut)]));
        assert_eq!(refused.status.code(), Some(1), "{command}");
        let stderr = text(&refused.stderr);
        assert!(stderr.contains("is refused: the bundle is truncated") && stderr.lines().count() == 1, "{stderr}");
    }
}

#[test]
fn a_folder_that_is_not_a_campaign_is_refused_in_one_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.tar.zst");
    let refused = metewand(&args(&["bundle", path(dir.path()), "--out", path(&out)]));
    assert_eq!(refused.status.code(), Some(2));
    let stderr = text(&refused.stderr);
    assert!(stderr.contains("is not a campaign folder") && stderr.contains("nothing was written"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(!out.exists());
}

/// Edits the first record of `folder`: its verdict and outcome to `not_reached` when `verdict`, otherwise every
/// metric plus one, in the record and in its `metrics.json` alike. Returns its attempt id.
fn edit_first_record(folder: &Path, verdict: bool) -> String {
    let entry = fs::read_dir(folder.join("attempts")).unwrap().map(|entry| entry.unwrap()).next().unwrap();
    let record_path = entry.path().join("attempt.json");
    let mut record: serde_json::Value = serde_json::from_slice(&fs::read(&record_path).unwrap()).unwrap();
    assert_eq!(record["verdict"], "reached", "the test worker's judge reaches every answer");
    if verdict {
        record["verdict"] = "not_reached".into();
        record["outcome"] = "not_reached".into();
    } else {
        let metrics = record["metrics"].as_object_mut().unwrap();
        for value in metrics.values_mut() {
            *value = serde_json::json!(value.as_f64().unwrap() + 1.0);
        }
        let document = serde_json::json!({"metrics": record["metrics"]});
        fs::write(entry.path().join("work/metrics/metrics.json"), serde_json::to_vec(&document).unwrap()).unwrap();
    }
    fs::write(&record_path, serde_json::to_vec(&record).unwrap()).unwrap();
    entry.file_name().to_string_lossy().into_owned()
}

#[test]
fn rejudging_catches_an_edited_verdict_and_changed_metrics() {
    let bench = Bench::new("");
    let ran = metewand(&bench.run_args("main", "state", &["--quiet"]));
    assert_eq!(ran.status.code(), Some(0), "{}", text(&ran.stderr));
    let folder = bench.folder("state", "main");
    let state = bench.path("state");
    let bundle = |name: &str| {
        let out = bench.path(name);
        let args =
            args(&["bundle", path(&folder), "--out", path(&out), "--with-datasets", "--state-dir", path(&state)]);
        let written = metewand(&args);
        assert_eq!(written.status.code(), Some(0), "{}", text(&written.stderr));
        out
    };
    let honest = bundle("honest.tar.zst");
    let verified = metewand(&args(&["verify", path(&honest), "--rejudge"]));
    let stdout = text(&verified.stdout);
    assert_eq!(verified.status.code(), Some(0), "{stdout}{}", text(&verified.stderr));
    assert!(stdout.contains("4 records verified, 4 results judged again alike"), "{stdout}");
    // Without its datasets nothing can be judged again: that is said as unconfirmed, never as a difference.
    let out = bench.path("without-datasets.tar.zst");
    let written = metewand(&args(&["bundle", path(&folder), "--out", path(&out)]));
    assert_eq!(written.status.code(), Some(0), "{}", text(&written.stderr));
    let verified = metewand(&args(&["verify", path(&out), "--rejudge"]));
    let stderr = text(&verified.stderr);
    assert_eq!(verified.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("is as it claims, but 4 of its results could not be judged again"), "{stderr}");
    assert!(!stderr.contains("do not trust"), "{stderr}");
    assert_eq!(text(&verified.stdout).matches("the bundle holds no dataset").count(), 4, "{}", text(&verified.stdout));

    for verdict in [true, false] {
        let id = edit_first_record(&folder, verdict);
        let edited = bundle("edited.tar.zst");
        // Its files are its manifest's and its records agree with them: only judging again finds the edit.
        let verified = metewand(&args(&["verify", path(&edited)]));
        assert_eq!(verified.status.code(), Some(0), "{}", text(&verified.stdout));
        let verified = metewand(&args(&["verify", path(&edited), "--rejudge"]));
        assert_eq!(verified.status.code(), Some(1), "{}", text(&verified.stdout));
        let stdout = text(&verified.stdout);
        assert_eq!(stdout.lines().count(), 1, "{stdout}");
        assert!(stdout.contains(&format!("{id}/attempt.json")), "{stdout}");
        let expect =
            if verdict { "the verdict is reached, and the record says not_reached" } else { "the metrics are" };
        assert!(stdout.contains(expect), "{stdout}");
        fs::remove_file(&edited).unwrap();
        // The edit undone for the next: the campaign run anew.
        fs::remove_dir_all(&folder).unwrap();
        let ran = metewand(&bench.run_args("main", "state", &["--quiet"]));
        assert_eq!(ran.status.code(), Some(0), "{}", text(&ran.stderr));
    }
}

/// A streamed result's checkpoints are judged again too, each against its profile point: an honest bundle is judged
/// alike, and a checkpoint whose recorded verdict was edited is caught by its number.
#[test]
fn rejudging_catches_an_edited_checkpoint_verdict() {
    let bench = Bench::new("");
    fs::create_dir_all(bench.path("repo/src-stream")).unwrap();
    fs::write(bench.path("repo/src-stream/README"), "the test worker is an executable elsewhere\n").unwrap();
    let worker = metewand_testkit::test_worker().to_str().unwrap().to_owned();
    let streamed = format!(
        r#"
[workers.streamer]
role = "implementation"
command = ["{worker}", "serve", "--conformant", "--quiet", "--capabilities", "one_shot,streaming_profile"]
source = "src-stream"

[problems.profiled]
evaluator = "judge"
parameters = {{}}
result_schema = {{ type = "object", required = ["seed"] }}
metric_schema = {{ type = "object", required = ["error"] }}
profile = {{ checkpoints = 3 }}

[implementations.stream]
worker = "streamer"
parameters = {{}}
capabilities = ["one_shot", "streaming_profile"]

[campaigns.profiled]
problems = ["profiled"]
datasets = ["small"]
implementations = ["stream"]
"#
    );
    let toml = bench.path("repo/metewand.toml");
    fs::write(&toml, fs::read_to_string(&toml).unwrap() + &streamed).unwrap();
    let ran = metewand(&bench.run_args("profiled", "state", &["--quiet"]));
    assert_eq!(ran.status.code(), Some(0), "{}", text(&ran.stderr));
    let folder = bench.folder("state", "profiled");
    let bundle = |name: &str| {
        let out = bench.path(name);
        let state = bench.path("state");
        let args =
            args(&["bundle", path(&folder), "--out", path(&out), "--with-datasets", "--state-dir", path(&state)]);
        assert_eq!(metewand(&args).status.code(), Some(0));
        out
    };
    let honest = bundle("honest.tar.zst");
    let verified = metewand(&args(&["verify", path(&honest), "--rejudge"]));
    let stdout = text(&verified.stdout);
    assert_eq!(verified.status.code(), Some(0), "{stdout}{}", text(&verified.stderr));
    assert!(stdout.contains("1 results and 3 checkpoints judged again alike"), "{stdout}");

    let entry = fs::read_dir(folder.join("attempts")).unwrap().map(|entry| entry.unwrap()).next().unwrap();
    let record_path = entry.path().join("attempt.json");
    let mut record: serde_json::Value = serde_json::from_slice(&fs::read(&record_path).unwrap()).unwrap();
    let point = &mut record["implementation"]["profile"][1];
    assert_eq!(point["verdict"], "reached", "the test worker's judge reaches every checkpoint after the first");
    point["verdict"] = "not_reached".into();
    fs::write(&record_path, serde_json::to_vec(&record).unwrap()).unwrap();
    let edited = bundle("edited.tar.zst");
    let verified = metewand(&args(&["verify", path(&edited), "--rejudge"]));
    let stdout = text(&verified.stdout);
    assert_eq!(verified.status.code(), Some(1), "{stdout}");
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert!(
        stdout.contains("checkpoint 2 judged again, the verdict is reached, and the record says not_reached"),
        "{stdout}"
    );
}

/// A problem's `rejudge_tolerance` lets a metric judged again differ within it (an evaluator whose metrics vary
/// between runs), and no further; without it, metrics must be equal.
#[test]
fn a_declared_tolerance_lets_metrics_judged_again_differ_within_it() {
    for (tolerance, shift, alike) in [(None, 1e-9, false), (Some("1e-6"), 1e-9, true), (Some("1e-6"), 1e-3, false)] {
        let bench = Bench::new("");
        if let Some(tolerance) = tolerance {
            let toml = bench.path("repo/metewand.toml");
            let text = fs::read_to_string(&toml).unwrap();
            let declared = format!("[problems.answer]\nrejudge_tolerance = {tolerance}\n");
            fs::write(&toml, text.replacen("[problems.answer]\n", &declared, 1)).unwrap();
        }
        let ran = metewand(&bench.run_args("main", "state", &["--quiet"]));
        assert_eq!(ran.status.code(), Some(0), "{}", text(&ran.stderr));
        let folder = bench.folder("state", "main");
        let entry = fs::read_dir(folder.join("attempts")).unwrap().map(|entry| entry.unwrap()).next().unwrap();
        let record_path = entry.path().join("attempt.json");
        let mut record: serde_json::Value = serde_json::from_slice(&fs::read(&record_path).unwrap()).unwrap();
        let error = record["metrics"]["error"].as_f64().unwrap();
        record["metrics"]["error"] = serde_json::json!(error + shift);
        let document = serde_json::json!({"metrics": record["metrics"]});
        fs::write(entry.path().join("work/metrics/metrics.json"), serde_json::to_vec(&document).unwrap()).unwrap();
        fs::write(&record_path, serde_json::to_vec(&record).unwrap()).unwrap();
        let (out, state) = (bench.path("edited.tar.zst"), bench.path("state"));
        let written = metewand(&args(&[
            "bundle",
            path(&folder),
            "--out",
            path(&out),
            "--with-datasets",
            "--state-dir",
            path(&state),
        ]));
        assert_eq!(written.status.code(), Some(0), "{}", text(&written.stderr));
        let verified = metewand(&args(&["verify", path(&out), "--rejudge"]));
        let stdout = text(&verified.stdout);
        assert_eq!(verified.status.code(), Some(if alike { 0 } else { 1 }), "{tolerance:?} {shift}: {stdout}");
        assert_eq!(stdout.contains("the metrics are"), !alike, "{tolerance:?} {shift}: {stdout}");
    }
}
