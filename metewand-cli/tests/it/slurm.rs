//! `metewand campaign submit | work | status | cancel` against a real Slurm cluster (`xtask/slurm-cluster.sh`, which
//! `cargo xtask test` starts under `CI=true`): the example campaign gives the local pool's ids, keys and verdicts,
//! a task at its time limit records its attempt cancelled and a second submission completes the campaign, arrays
//! are split at `MaxArraySize` with their offsets carried, `cancel` leaves no job, Slurm's own refusal is one
//! sentence, `--until-decided` submits rounds until a slower implementation is separated, and an external folder
//! (`--with`) gives the local pool's ids while a folder changed after its submission runs nothing. Without a cluster
//! these tests report that they were skipped (and fail where a cluster is required: `METEWAND_TEST_REQUIRED=slurm`,
//! or `CI=true`, see `metewand-testkit`). Each test has its own folders and cancels only its own jobs, so they run in
//! parallel on one cluster.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use metewand_campaign::slurm::{JobKind, Slurm, parse_max_array_size, submissions};
use metewand_testkit::{Requirement, skip};
use serde_json::Value;

use crate::campaign::{
    Bench, UNTIL_DECIDED_REFUSALS, any_record, failures, ids_by_repetition, outcomes, path_with, racing_bench,
    solver_found_on_path,
};
use crate::{command, run as metewand, text};

/// `MaxArraySize` of the cluster `sbatch` reaches, or `None` after reporting the skip.
fn cluster() -> Option<u64> {
    let why = match Command::new("scontrol").args(["show", "config"]).output() {
        Ok(output) if output.status.success() => match parse_max_array_size(&text(&output.stdout)) {
            Some(size) => return Some(size),
            None => "scontrol show config has no MaxArraySize".to_owned(),
        },
        Ok(output) => text(&output.stderr).trim().to_owned(),
        Err(error) => format!("scontrol cannot be run: {error}"),
    };
    skip(
        Requirement::Slurm,
        &format!("no Slurm cluster answers ({why}); start one with `xtask/slurm-cluster.sh start`"),
    );
    None
}

/// Every job id the campaign folder records.
fn job_ids(folder: &Path) -> Vec<u64> {
    submissions(folder).unwrap().iter().flat_map(|s| s.jobs.iter().map(|job| job.job_id.get())).collect()
}

/// Cancels the folder's jobs when the test ends, however it ends: no job of a test stays queued.
struct Queued(PathBuf);

impl Drop for Queued {
    fn drop(&mut self) {
        if let Ok(all) = submissions(&self.0) {
            let ids: Vec<String> = all.iter().flat_map(|s| s.jobs.iter().map(|job| job.job_id.to_string())).collect();
            if !ids.is_empty() {
                let _ = Command::new("scancel").args(&ids).status();
            }
        }
    }
}

/// Waits until no job of the folder is pending or running; the limit only guards against a hang.
fn wait_for_jobs(folder: &Path, limit: Duration) {
    let slurm = Slurm::connect().unwrap();
    let deadline = Instant::now() + limit;
    loop {
        if slurm.active(&job_ids(folder)).unwrap().is_empty() {
            return;
        }
        assert!(Instant::now() < deadline, "the jobs of {} still run after {limit:?}", folder.display());
        std::thread::sleep(Duration::from_millis(500));
    }
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|arg| (*arg).to_owned()).collect()
}

/// `campaign submit` of the fixture's campaign `name` into `bench/out` with `extra`.
fn submit(bench: &Bench, name: &str, extra: &[&str]) -> std::process::Output {
    let mut args = strings(&["campaign", "submit"]);
    args.push(bench.path("repo").to_str().unwrap().to_owned());
    args.push(name.to_owned());
    args.extend(["--state-dir".to_owned(), bench.path("state").to_str().unwrap().to_owned()]);
    args.extend(["--out".to_owned(), bench.path("out").to_str().unwrap().to_owned()]);
    args.extend(strings(extra));
    metewand(&args)
}

fn status(folder: &Path) -> std::process::Output {
    metewand(&strings(&["campaign", "status", folder.to_str().unwrap()]))
}

/// Each attempt id with its outcome, verdict and dataset key.
fn verdicts(folder: &Path) -> BTreeMap<String, (String, Value, String)> {
    let mut out = BTreeMap::new();
    for entry in fs::read_dir(folder.join("attempts")).unwrap() {
        let entry = entry.unwrap();
        let record: Value = serde_json::from_slice(&fs::read(entry.path().join("attempt.json")).unwrap()).unwrap();
        out.insert(
            entry.file_name().to_string_lossy().into_owned(),
            (
                record["outcome"].as_str().unwrap().to_owned(),
                record["verdict"].clone(),
                record["dataset"]["key"].as_str().unwrap_or("").to_owned(),
            ),
        );
    }
    out
}

/// The keys of `datasets/<key>.json` of a campaign folder.
fn dataset_keys(folder: &Path) -> BTreeSet<String> {
    fs::read_dir(folder.join("datasets"))
        .unwrap()
        .filter_map(|entry| entry.unwrap().file_name().to_str()?.strip_suffix(".json").map(str::to_owned))
        .collect()
}

#[test]
fn slurm_the_example_gives_the_local_pools_ids_keys_and_verdicts() {
    let Some(_) = cluster() else { return };
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/least-squares").canonicalize().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = |name: &str| tmp.path().join(name).to_str().unwrap().to_owned();
    // Every implementation on both datasets under one seed: 8 attempts, 2 datasets, 3 packs of up to 3.
    let narrow = ["--dataset-seeds", "0", "--repetitions", "1"];
    let mut local = strings(&["campaign", "run", example.to_str().unwrap(), "main", "-j", "2", "--quiet"]);
    local.extend(strings(&narrow));
    local.extend(["--out".to_owned(), dir("local"), "--state-dir".to_owned(), dir("state-local")]);
    let ran = metewand(&local);
    assert_eq!(ran.status.code(), Some(0), "{}", text(&ran.stderr));

    let slurm_folder = tmp.path().join("slurm");
    let _queued = Queued(slurm_folder.clone());
    let mut args = strings(&["campaign", "submit", example.to_str().unwrap(), "main", "--slurm", "--pack", "3"]);
    args.extend(strings(&narrow));
    args.extend(["--out".to_owned(), dir("slurm"), "--state-dir".to_owned(), dir("state-slurm")]);
    let submitted = metewand(&args);
    assert_eq!(submitted.status.code(), Some(0), "{}", text(&submitted.stderr));
    let out = text(&submitted.stdout);
    assert!(out.contains("2 datasets to materialize, 8 attempts in 3 packs of up to 3"), "{out}");
    // Every path in the scripts is absolute, the program too.
    let script = fs::read_to_string(slurm_folder.join("slurm/1/attempts-0.sh")).unwrap();
    let exe = Path::new(env!("CARGO_BIN_EXE_metewand"));
    assert!(script.contains(&format!("exec {} campaign work", exe.display())), "{script}");
    assert!(script.contains(&format!("folder={}", slurm_folder.canonicalize().unwrap().display())), "{script}");
    assert!(script.contains("--signal=B:TERM@120") && script.contains("--dependency=afterany:"), "{script}");

    wait_for_jobs(&slurm_folder, Duration::from_secs(600));
    let (local, slurm) = (verdicts(&tmp.path().join("local")), verdicts(&slurm_folder));
    assert_eq!(local.len(), 8);
    assert_eq!(slurm, local, "the same attempt ids, outcomes, verdicts and dataset keys");
    assert_eq!(dataset_keys(&slurm_folder), dataset_keys(&tmp.path().join("local")));
    // The last job wrote the exports; the status is complete and says nothing is lost.
    assert!(slurm_folder.join("results.csv").is_file() && slurm_folder.join("results.jsonl").is_file());
    let shown = status(&slurm_folder);
    let shown_text = text(&shown.stdout);
    assert_eq!(shown.status.code(), Some(0), "{shown_text}");
    assert!(shown_text.contains("0 attempts queued, 0 in running tasks, 0 lost"), "{shown_text}");
    assert!(shown_text.contains("(slurm/1/export.sh, submission 1): 1 task (completed 1)"), "{shown_text}");

    // Submitting again submits nothing.
    let again = metewand(&args);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    assert!(
        text(&again.stdout).contains("submitted    nothing: every attempt has a record"),
        "{}",
        text(&again.stdout)
    );
    assert_eq!(submissions(&slurm_folder).unwrap().len(), 1);
}

#[test]
fn slurm_a_streamed_campaign_records_the_local_pools_profiles() {
    let Some(_) = cluster() else { return };
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/least-squares").canonicalize().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = |name: &str| tmp.path().join(name).to_str().unwrap().to_owned();
    // `cg` streams on `ridge-profile` beside `cholesky`, on `small` under one seed: 2 attempts.
    let narrow = ["--dataset", "small", "--dataset-seeds", "0", "--repetitions", "1"];
    let mut local = strings(&["campaign", "run", example.to_str().unwrap(), "profile", "-j", "1", "--quiet"]);
    local.extend(strings(&narrow));
    local.extend(["--out".to_owned(), dir("local"), "--state-dir".to_owned(), dir("state-local")]);
    let ran = metewand(&local);
    assert_eq!(ran.status.code(), Some(0), "{}", text(&ran.stderr));

    let slurm_folder = tmp.path().join("slurm");
    let _queued = Queued(slurm_folder.clone());
    let mut args = strings(&["campaign", "submit", example.to_str().unwrap(), "profile", "--slurm"]);
    args.extend(strings(&narrow));
    args.extend(["--out".to_owned(), dir("slurm"), "--state-dir".to_owned(), dir("state-slurm")]);
    let submitted = metewand(&args);
    assert_eq!(submitted.status.code(), Some(0), "{}", text(&submitted.stderr));
    wait_for_jobs(&slurm_folder, Duration::from_secs(600));
    let (local_verdicts, slurm_verdicts) = (verdicts(&tmp.path().join("local")), verdicts(&slurm_folder));
    assert_eq!(slurm_verdicts.len(), 2);
    assert_eq!(slurm_verdicts, local_verdicts, "the same attempt ids, outcomes, verdicts and dataset keys");
    // The streamed attempt's checkpoints: the same numbers and verdicts (their times are each run's own).
    let checkpoints = |folder: &Path| -> Vec<(u64, String)> {
        let csv = fs::read_to_string(folder.join("profiles.csv")).unwrap();
        csv.lines()
            .skip(1)
            .map(|line| {
                let fields: Vec<&str> = line.split(',').collect();
                assert_eq!(fields[4], "cg", "{line}");
                (fields[7].parse().unwrap(), fields[9].to_owned())
            })
            .collect()
    };
    let slurm_checkpoints = checkpoints(&slurm_folder);
    assert!(slurm_checkpoints.len() >= 10, "{slurm_checkpoints:?}");
    assert_eq!(slurm_checkpoints, checkpoints(&tmp.path().join("local")));
}

#[test]
fn slurm_a_task_at_its_time_limit_records_cancelled_and_a_resubmission_completes() {
    let Some(_) = cluster() else {
        return;
    };
    // Each attempt takes 30 s: a pack of 4 cannot end within the 1-minute limit of the first submission.
    let bench = Bench::new(r#""--delay", "execute=30000""#);
    let folder = bench.path("out");
    let _queued = Queued(folder.clone());
    let first = submit(&bench, "main", &["--time", "1", "--pack", "4"]);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    wait_for_jobs(&folder, Duration::from_secs(300));
    let after_first = outcomes(&folder);
    assert!(after_first.values().any(|outcome| outcome == "cancelled"), "{after_first:?}");
    let shown = text(&status(&folder).stdout);
    let done = after_first.values().filter(|outcome| *outcome != "cancelled").count();
    let cancelled = after_first.len() - done;
    assert!(shown.contains(&format!("{cancelled} cancelled")), "{shown}");
    let lost = 4 - after_first.len();
    assert!(shown.contains(&format!("0 in running tasks, {lost} lost")), "{shown}");

    // Five minutes a task of one attempt each: the signal comes no sooner than two minutes in.
    let second = submit(&bench, "main", &["--time", "5", "--pack", "1"]);
    assert_eq!(second.status.code(), Some(0), "{}", text(&second.stderr));
    let resubmitted = &submissions(&folder).unwrap()[1];
    assert_eq!(resubmitted.attempts.len(), 4 - done, "only what was not done");
    assert!(resubmitted.datasets.is_empty(), "the datasets were materialized by the first submission");
    wait_for_jobs(&folder, Duration::from_secs(300));
    let after = outcomes(&folder);
    assert_eq!(after.len(), 4);
    assert!(after.values().all(|outcome| outcome == "reached"), "{after:?}: {:#?}", failures(&folder));
    assert_eq!(status(&folder).status.code(), Some(0));
}

#[test]
fn slurm_arrays_are_split_at_max_array_size_and_keep_their_offsets() {
    let Some(max_array) = cluster() else { return };
    let bench = Bench::new("");
    let folder = bench.path("out");
    let _queued = Queued(folder.clone());
    // 2 dataset seeds x 3 repetitions: 6 attempts, one a pack.
    let submitted = submit(&bench, "main", &["--repetitions", "3", "--pack", "1", "--max-parallel", "2"]);
    assert_eq!(submitted.status.code(), Some(0), "{}", text(&submitted.stderr));
    let submission = submissions(&folder).unwrap().remove(0);
    let arrays: Vec<_> = submission.jobs.iter().filter(|job| job.kind == JobKind::Attempts).collect();
    let expected = 6u64.div_ceil(max_array);
    if expected < 2 {
        let why = format!("MaxArraySize is {max_array}: 6 packs fit one array, the split was not exercised");
        skip(Requirement::Slurm, &why);
    }
    assert_eq!(arrays.len() as u64, expected);
    for (index, job) in arrays.iter().enumerate() {
        assert_eq!(job.first.get(), index as u64 * max_array);
        assert!(job.tasks.get() <= max_array);
        let script = fs::read_to_string(folder.join(job.script.as_str())).unwrap();
        assert!(script.contains(&format!("--array=0-{}%2", job.tasks.get() - 1)), "{script}");
        assert!(script.contains(&format!("SLURM_ARRAY_TASK_ID + {}", job.first)), "{script}");
        if index > 0 {
            // Under a throttle, a part waits for the one before it.
            assert!(script.contains(&format!(":{}", arrays[index - 1].job_id)), "{script}");
        }
    }
    wait_for_jobs(&folder, Duration::from_secs(300));
    let recorded = outcomes(&folder);
    let planned: BTreeSet<&String> = submission.attempts.iter().map(|id| &**id).collect();
    assert_eq!(recorded.keys().collect::<BTreeSet<_>>(), planned, "each pack ran its own attempt");
    assert!(recorded.values().all(|outcome| outcome == "reached"), "{recorded:?}");
    assert_eq!(status(&folder).status.code(), Some(0));
}

#[test]
fn slurm_cancel_leaves_no_job_and_status_says_so() {
    let Some(_) = cluster() else { return };
    let bench = Bench::new(r#""--delay", "execute=120000""#);
    let folder = bench.path("out");
    let _queued = Queued(folder.clone());
    let submitted = submit(&bench, "main", &["--pack", "1", "--max-parallel", "1"]);
    assert_eq!(submitted.status.code(), Some(0), "{}", text(&submitted.stderr));
    // Once an attempt runs, a second submission is refused while the jobs are there.
    let guard = Instant::now() + Duration::from_secs(300);
    while fs::read_dir(folder.join("attempts")).unwrap().next().is_none() {
        assert!(Instant::now() < guard, "no attempt started");
        std::thread::sleep(Duration::from_millis(200));
    }
    let refused = submit(&bench, "main", &["--pack", "1"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(text(&refused.stderr).contains("are still pending or running"), "{}", text(&refused.stderr));

    let cancelled = metewand(&strings(&["campaign", "cancel", folder.to_str().unwrap()]));
    let out = text(&cancelled.stdout);
    assert_eq!(cancelled.status.code(), Some(0), "{}{}", out, text(&cancelled.stderr));
    assert!(out.contains("no job of this campaign is pending or running"), "{out}");
    let slurm = Slurm::connect().unwrap();
    assert!(slurm.active(&job_ids(&folder)).unwrap().is_empty(), "no job is left");
    // The running attempt got its task's SIGTERM and is recorded cancelled; nothing runs or waits.
    let recorded = outcomes(&folder);
    assert_eq!(recorded.values().collect::<Vec<_>>(), ["cancelled"], "{recorded:?}");
    let shown = status(&folder);
    assert_eq!(shown.status.code(), Some(1));
    assert!(text(&shown.stdout).contains("0 attempts queued, 0 in running tasks, 3 lost"), "{}", text(&shown.stdout));
    let again = metewand(&strings(&["campaign", "cancel", folder.to_str().unwrap()]));
    assert!(text(&again.stdout).contains("cancelled    nothing"), "{}", text(&again.stdout));
}

#[test]
fn slurm_a_bad_partition_is_one_sentence_of_sbatch() {
    let Some(_) = cluster() else { return };
    let bench = Bench::new("");
    let refused = submit(&bench, "main", &["--partition", "nope"]);
    assert_eq!(refused.status.code(), Some(2));
    let stderr = text(&refused.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("metewand: campaign submit: sbatch refused: invalid partition specified: nope"),
        "{stderr}"
    );
    assert!(!bench.path("out/slurm/1").exists(), "a submission that queued nothing is not kept");
}

#[test]
fn slurm_missing_commands_and_an_unreachable_controller_are_one_sentence() {
    let bench = Bench::new("");
    let mut args = strings(&["campaign", "submit", bench.path("repo").to_str().unwrap(), "main"]);
    args.extend(["--out".to_owned(), bench.path("out").to_str().unwrap().to_owned()]);
    let without = command(&args).env("PATH", "/nonexistent").output().unwrap();
    assert_eq!(without.status.code(), Some(2));
    assert_eq!(
        text(&without.stderr),
        "metewand: campaign submit: sbatch is not on PATH: run this on a machine with Slurm's commands installed (a \
         cluster's login node)\n"
    );
    assert!(!bench.path("out").exists(), "nothing was written");

    if Command::new("sbatch").arg("--version").output().is_err() {
        skip(Requirement::Slurm, "sbatch is not installed: the unreachable controller was not tried");
        return;
    }
    let conf = bench.path("unreachable.conf");
    fs::write(
        &conf,
        "ClusterName=none\nSlurmctldHost=nowhere(127.0.0.1)\nSlurmctldPort=1\nAuthType=auth/munge\n\
         NodeName=none CPUs=1\nPartitionName=none Nodes=ALL Default=YES\n",
    )
    .unwrap();
    let unreachable = command(&args).env("SLURM_CONF", &conf).output().unwrap();
    assert_eq!(unreachable.status.code(), Some(2));
    let stderr = text(&unreachable.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("campaign submit: scontrol cannot reach the Slurm controller"), "{stderr}");
    assert!(!bench.path("out").exists(), "nothing was written");
}

#[test]
fn slurm_a_task_that_cannot_see_its_folder_fails_loudly() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("not-shared");
    let output =
        metewand(&strings(&["campaign", "work", missing.to_str().unwrap(), "--submission", "1", "--pack", "0"]));
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains(&format!("cannot see the campaign folder {}", missing.display())), "{stderr}");
    assert!(stderr.contains("a filesystem that the submitting machine and every node share"), "{stderr}");
}

/// A resubmission keeps done attempts whose worker ran another program than its command finds now (another
/// directory first on `PATH`), unless `--rerun-changed`: then only those are submitted again, and their new
/// records name the program found now.
#[test]
fn slurm_rerun_changed_resubmits_the_attempts_that_ran_another_program() {
    let Some(_) = cluster() else {
        return;
    };
    let bench = Bench::new("");
    solver_found_on_path(&bench);
    let folder = bench.path("out");
    let _queued = Queued(folder.clone());
    let submit_with = |dir: &str, extra: &[&str]| {
        let mut args = strings(&["campaign", "submit", bench.path("repo").to_str().unwrap(), "main"]);
        args.extend(["--state-dir".to_owned(), bench.path("state").to_str().unwrap().to_owned()]);
        args.extend(["--out".to_owned(), folder.to_str().unwrap().to_owned()]);
        args.extend(strings(extra));
        let mut command = command(&args);
        command.env("PATH", path_with(&bench.path(dir)));
        command.output().unwrap()
    };
    let found = |dir: &str| bench.path(dir).join("mw-solver").to_str().unwrap().to_owned();
    let first = submit_with("bin-a", &[]);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    wait_for_jobs(&folder, Duration::from_secs(300));
    assert!(outcomes(&folder).values().all(|outcome| outcome == "reached"), "{:#?}", failures(&folder));
    assert_eq!(any_record(&folder)["implementation"]["program"]["path_match"].as_str(), Some(found("bin-a").as_str()));

    let kept = submit_with("bin-b", &[]);
    assert_eq!(kept.status.code(), Some(0), "{}", text(&kept.stderr));
    assert!(text(&kept.stdout).contains("submitted    nothing: every attempt has a record"), "{}", text(&kept.stdout));
    let again = submit_with("bin-b", &["--rerun-changed"]);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    let all = submissions(&folder).unwrap();
    assert_eq!(all.len(), 2, "a second submission: {}", text(&again.stdout));
    assert_eq!(all[1].attempts.len(), 4, "{}", text(&again.stdout));
    wait_for_jobs(&folder, Duration::from_secs(300));
    assert!(outcomes(&folder).values().all(|outcome| outcome == "reached"), "{:#?}", failures(&folder));
    assert_eq!(any_record(&folder)["implementation"]["program"]["path_match"].as_str(), Some(found("bin-b").as_str()));
}

/// `campaign submit --until-decided` on Slurm: an implementation three times as slow is not separated by the three
/// planned repetitions (one round, whose decide job records the pair undecided at the cap and writes the exports);
/// with a higher cap a submission again decides the folder's records at once and submits rounds, each ending in a
/// decide job that submits the next, until the pair is separated, with the ids a plain plan of that many repetitions
/// gives; a resubmission while a round is queued submits nothing, no attempt is ever in two submissions, and each
/// round's attempts are interleaved. A decide job that cannot decide records why, and `campaign status` says it.
#[test]
fn slurm_until_decided_submits_rounds_until_a_slower_implementation_is_separated() {
    let Some(_) = cluster() else { return };
    let bench = racing_bench();
    let folder = bench.path("out");
    let _queued = Queued(folder.clone());
    let capped = submit(&bench, "race", &["--until-decided", "--max-repetitions", "3"]);
    let out = text(&capped.stdout);
    assert_eq!(capped.status.code(), Some(0), "{out}{}", text(&capped.stderr));
    assert!(out.contains("rounds       submission 1 ends with a decide job"), "{out}");
    let first = &submissions(&folder).unwrap()[0];
    assert_eq!(first.jobs.last().unwrap().kind, JobKind::Decide, "the decide job replaces the export job");
    wait_for_jobs(&folder, Duration::from_secs(300));
    assert_eq!(submissions(&folder).unwrap().len(), 1, "no round under a cap of the planned repetitions");
    let shown = text(&status(&folder).stdout);
    assert!(
        shown.contains("round        submission 1: decided: 1 pairs, 0 separated, 0 tied, 1 undecided at 3"),
        "{shown}"
    );
    assert_eq!(ids_by_repetition(&folder).len(), 6, "the decide job wrote the exports");

    let more = ["--until-decided", "--max-repetitions", "12"];
    let rounds = submit(&bench, "race", &more);
    let out = text(&rounds.stdout);
    assert_eq!(rounds.status.code(), Some(0), "{out}{}", text(&rounds.stderr));
    assert!(out.contains("rounds       submission 2 ends with a decide job"), "{out}");
    let second = &submissions(&folder).unwrap()[1];
    assert_eq!(second.attempts.len(), 2, "the fourth repetition of each cell: {second:?}");
    // The round is queued (its decide job waits for its attempts): submitting again submits nothing.
    let again = submit(&bench, "race", &more);
    assert_eq!(again.status.code(), Some(2), "{}", text(&again.stdout));
    assert!(text(&again.stderr).contains("still pending or running"), "{}", text(&again.stderr));
    wait_for_jobs(&folder, Duration::from_secs(900));

    let all = submissions(&folder).unwrap();
    let shown = text(&status(&folder).stdout);
    let last = all.last().unwrap().number;
    assert!(shown.contains(&format!("round        submission {last}: decided: 1 pairs, 1 separated")), "{shown}");
    for submission in &all[1..all.len() - 1] {
        let next = submission.number.get() + 1;
        assert!(
            shown.contains(&format!("submission {}: decided: the next round is submission {next}", submission.number))
        );
    }
    let mut seen = BTreeSet::new();
    for id in all.iter().flat_map(|submission| &submission.attempts) {
        assert!(seen.insert(id.as_str().to_owned()), "{id} was submitted twice");
    }
    let ids = ids_by_repetition(&folder);
    let given = ids.keys().filter(|(implementation, _)| implementation == "slow").count() as u64;
    assert!((4..=12).contains(&given), "rounds added repetitions: {ids:?}");
    assert_eq!(ids.keys().filter(|(implementation, _)| implementation == "solve").count() as u64, given);
    assert_eq!(all.len() as u64, given - 2, "one round a repetition after the planned three");
    // Interleaved within the round: no cell's repetitions back to back.
    let cell: BTreeMap<&str, &str> =
        ids.iter().map(|((implementation, _), id)| (id.as_str(), implementation.as_str())).collect();
    for pair in all[0].attempts.windows(2) {
        assert_ne!(cell[pair[0].as_str()], cell[pair[1].as_str()], "{:?}", all[0].attempts);
    }
    // The ids of a plain run of that many repetitions.
    let (count, plain) = (given.to_string(), bench.path("plain"));
    let local = bench.run_args("race", "state", &["--repetitions", &count, "--out", plain.to_str().unwrap(), "-q"]);
    assert_eq!(metewand(&local).status.code(), Some(0));
    assert_eq!(ids_by_repetition(&plain), ids);

    // A decide job that cannot load the repository says so in its log and in the status.
    fs::rename(bench.path("repo"), bench.path("moved")).unwrap();
    let number = last.to_string();
    let decide = metewand(&strings(&["campaign", "decide", folder.to_str().unwrap(), "--submission", &number]));
    let said = text(&decide.stderr);
    assert_eq!(decide.status.code(), Some(2), "{said}");
    assert!(said.contains("the campaign's repository cannot be loaded here"), "{said}");
    assert_eq!(said.trim().lines().count(), 1, "{said}");
    fs::rename(bench.path("moved"), bench.path("repo")).unwrap();
    let shown = text(&status(&folder).stdout);
    assert!(
        shown.contains(&format!("round        submission {last}: its decide job failed: the campaign's repository")),
        "{shown}"
    );
}

/// `campaign submit --until-decided` refuses what `campaign run --until-decided` refuses, in the same sentence and
/// exit 2, before anything is submitted (with a cluster or without).
#[test]
fn slurm_until_decided_refuses_what_the_local_flag_refuses() {
    let bench = racing_bench();
    for (name, extra, expected) in UNTIL_DECIDED_REFUSALS {
        let output = submit(&bench, name, extra);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{extra:?}: {stderr}");
        assert!(stderr.contains(expected), "{extra:?}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{extra:?}: {stderr}");
        assert!(!bench.path("out").join("slurm").exists(), "{extra:?}: nothing was submitted");
    }
}

/// `campaign submit --with`: an external folder's attempts reach on Slurm with the ids the local pool gives them,
/// and a folder changed after its submission runs nothing, its tasks naming it.
#[test]
fn slurm_an_external_folder_gives_the_local_ids_and_a_changed_one_runs_nothing() {
    let Some(_) = cluster() else { return };
    let bench = crate::external::Bench::new("0");
    let (repo, sub) = (bench.path("repo"), bench.path("sub"));
    let (repo, sub) = (repo.to_str().unwrap(), sub.to_str().unwrap());
    let narrow = ["--implementation", "mine", "--dataset-seeds", "0,1", "--repetitions", "1"];
    let campaign = |command: &str, out: &str, extra: &[&str]| {
        let folder = bench.path(out);
        let mut args = vec!["campaign", command, repo, "main", "--with", sub, "--out", folder.to_str().unwrap()];
        args.extend(narrow);
        args.extend(extra);
        bench.metewand(&args)
    };
    let ran = campaign("run", "local", &["-q"]);
    assert_eq!(ran.status.code(), Some(0), "{}", text(&ran.stderr));
    let folder = bench.path("slurm");
    let _queued = Queued(folder.clone());
    let submitted = campaign("submit", "slurm", &[]);
    assert_eq!(submitted.status.code(), Some(0), "{}", text(&submitted.stderr));
    let canonical = fs::canonicalize(bench.path("sub")).unwrap();
    let recorded = &submissions(&folder).unwrap()[0];
    assert_eq!(recorded.externals.len(), 1);
    assert_eq!(recorded.externals[0].folder.as_str(), canonical.to_str().unwrap());
    wait_for_jobs(&folder, Duration::from_secs(300));
    let (local, slurm) = (verdicts(&bench.path("local")), verdicts(&folder));
    assert_eq!(local.len(), 2);
    assert!(local.values().all(|(outcome, _, _)| outcome == "reached"), "{local:?}");
    assert_eq!(slurm, local, "the same attempt ids, outcomes, verdicts and dataset keys");
    for id in slurm.keys() {
        let record: Value =
            serde_json::from_slice(&fs::read(folder.join("attempts").join(id).join("attempt.json")).unwrap()).unwrap();
        assert_eq!(record["implementation"]["origin"]["folder"], canonical.to_str().unwrap());
    }

    // Held until the folder changed: every task refuses, naming it, and no attempt has a record.
    let changed = bench.path("changed");
    let _changed = Queued(changed.clone());
    let submitted = campaign("submit", "changed", &["--sbatch-arg=--hold"]);
    assert_eq!(submitted.status.code(), Some(0), "{}", text(&submitted.stderr));
    fs::write(bench.path("sub/solve.sh"), "echo other code >&2\nexit 1\n").unwrap();
    let held: Vec<String> = job_ids(&changed).iter().map(u64::to_string).collect();
    let released = Command::new("scontrol").arg("release").arg(held.join(",")).output().unwrap();
    assert!(released.status.success(), "{}", text(&released.stderr));
    wait_for_jobs(&changed, Duration::from_secs(300));
    assert!(!changed.join("attempts").exists() || fs::read_dir(changed.join("attempts")).unwrap().next().is_none());
    let logs = changed.join("slurm/1/logs");
    let mut said = String::new();
    for entry in fs::read_dir(&logs).unwrap() {
        said.push_str(&fs::read_to_string(entry.unwrap().path()).unwrap());
    }
    let sentence = format!("the external folder {} changed since the submission", canonical.display());
    assert!(said.contains(&sentence), "{said}");
    assert!(!said.contains("other code"), "the changed folder's code never ran: {said}");
}
