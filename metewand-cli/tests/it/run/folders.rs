//! What the executor creates and reads beside untrusted workers: FIFOs and links in its way, a full disk, folders
//! inside a worker's source, source copies changed under it, and results too large to read.

use std::fs;
use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use metewand_testkit::mkfifo;
use serde_json::Value;

use super::{
    Bench, evaluator_beside, evaluator_never_evaluated, failed, log, record, run_args, run_paused, signal, tree,
    wait_for, wait_guarded,
};
use crate::{Tmpfs, command, run as metewand, text};

/// Runs `metewand`, killing it (and failing) if it has not ended within two minutes: the attacks below used to make
/// it block forever. This bounds a hang; it measures nothing.
fn metewand_bounded(args: &[String]) -> Output {
    let mut child = command(args).spawn().unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let output = child.wait_with_output().unwrap();
            panic!("metewand hung; stdout: {}\nstderr: {}", text(&output.stdout), text(&output.stderr));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// An executor error with no role or phase, whose message names `path`; returns the record.
fn executor_error(output: &Output, folder: &Path, path: &str) -> Value {
    assert_eq!(output.status.code(), Some(3), "stdout: {}\nstderr: {}", text(&output.stdout), text(&output.stderr));
    let record = record(folder);
    let failure = &record["failure"];
    assert_eq!((&failure["role"], &failure["phase"]), (&Value::Null, &Value::Null), "{failure}");
    assert_eq!(failure["kind"], "executor_error", "{failure}");
    assert!(failure["message"].as_str().unwrap().contains(path), "{failure}");
    record
}

#[test]
fn a_fifo_or_a_link_at_the_records_temporary_name_is_an_executor_error_not_a_hang() {
    // Workers cannot write the attempt folder any more; the test puts the entry there during a session.
    let bench = Bench::new();
    let output = run_paused(&bench, "fifo", "fifo", || mkfifo(&bench.out("fifo/.attempt.json.tmp")));
    let record = executor_error(&output, &bench.out("fifo"), ".attempt.json.tmp");
    assert!(record["failure"]["message"].as_str().unwrap().contains("FIFO"), "{}", record["failure"]);
    assert_eq!(record["verdict"], "reached", "the sessions themselves succeeded and are recorded");
    assert!(!bench.out("fifo/.attempt.json.tmp").exists());

    let stolen = bench.out("stolen.json");
    let output = run_paused(&bench, "link", "link", || {
        std::os::unix::fs::symlink(&stolen, bench.out("link/.attempt.json.tmp")).unwrap();
    });
    executor_error(&output, &bench.out("link"), ".attempt.json.tmp");
    let metadata = fs::symlink_metadata(bench.out("link/attempt.json")).unwrap();
    assert!(metadata.is_file(), "attempt.json is a regular file, not the worker's link");
    assert!(!stolen.exists(), "the write was not redirected");
    assert!(fs::symlink_metadata(bench.out("link/.attempt.json.tmp")).is_err(), "nothing is left at the name");
}

#[test]
fn a_fifo_at_the_evaluators_log_is_the_implementations_invalid_output_not_a_hang() {
    let bench = Bench::new();
    // Where the evaluator starts beside the implementation, its log is made before either worker runs; a foreign
    // writer replaces it with a FIFO (elsewhere, puts one where it will be made).
    let output = run_paused(&bench, "fifo", "attempt", || {
        if evaluator_beside() {
            fs::remove_file(bench.out("attempt/logs/problem_evaluator.log")).unwrap();
        }
        mkfifo(&bench.out("attempt/logs/problem_evaluator.log"));
    });
    let record = failed(&output, &bench.out("attempt"), "implementation", "execute", "invalid_output");
    let message = record["failure"]["message"].as_str().unwrap();
    assert!(message.contains("logs/problem_evaluator.log") && message.contains("FIFO"), "{message}");
    evaluator_never_evaluated(&record);
    assert!(record["implementation"]["files"].is_array(), "the implementation's own result was valid");
}

#[test]
fn what_the_implementation_leaves_in_the_evaluators_folders_is_blamed_on_the_implementation() {
    // What the implementation's session left there: put by the test while that session runs.
    let bench = Bench::new();
    let output = run_paused(&bench, "notes", "notes", || {
        fs::create_dir_all(bench.out("notes/work/metrics")).unwrap();
        fs::write(bench.out("notes/work/metrics/notes.txt"), "the evaluator wrote this\n").unwrap();
    });
    let record = failed(&output, &bench.out("notes"), "implementation", "execute", "invalid_output");
    assert!(record["failure"]["message"].as_str().unwrap().contains("work/metrics"), "{}", record["failure"]);
    evaluator_never_evaluated(&record);

    let output = run_paused(&bench, "squatter", "squatter", || {
        fs::create_dir_all(bench.out("squatter/work/tmp-problem_evaluator/squat")).unwrap();
    });
    let record = failed(&output, &bench.out("squatter"), "implementation", "execute", "invalid_output");
    let message = record["failure"]["message"].as_str().unwrap();
    assert!(message.contains("work/tmp-problem_evaluator"), "{message}");
}

#[test]
fn a_full_disk_records_and_prints_the_first_failure_and_leaves_nothing_half_written() {
    let bench = Bench::new();
    // A source larger than the whole state folder: copying it is what fills the disk.
    fs::write(bench.repo().join("workers/padding.bin"), vec![7u8; 512 * 1024]).unwrap();
    let Some(tmpfs) = Tmpfs::mount(&bench.state(), "256k") else { return };
    let out = bench.state().join("attempt");
    let mut args = run_args(&bench.repo(), "cholesky", &bench.state());
    args.extend(["--out".to_owned(), out.to_str().unwrap().to_owned()]);
    let output = metewand_bounded(&args);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(3), "stdout: {stdout}\nstderr: {}", text(&output.stderr));
    assert!(
        stdout.contains("failure      executor_error") && stdout.contains("copying the worker's source"),
        "{stdout}"
    );
    assert!(stdout.contains("No space left on device"), "{stdout}");
    let record = executor_error(&output, &out, "No space left on device");
    assert_eq!(record["logs"]["implementation"], Value::Null);
    assert!(!out.join(".attempt.json.tmp").exists(), "no temporary record is left");
    let sources: Vec<_> = fs::read_dir(bench.state().join("sources")).unwrap().collect();
    assert!(sources.is_empty(), "no half-written source copy is left: {sources:?}");
    drop(tmpfs);
}

#[test]
fn a_state_or_attempt_folder_inside_a_worker_source_is_refused_before_anything_is_created() {
    let bench = Bench::new();
    let before = tree(bench.dir.path());
    std::os::unix::fs::symlink(bench.repo().join("workers"), bench.out("link")).unwrap();
    let workers = bench.repo().join("workers");
    let inside = [
        ("--state-dir", workers.join("state")),
        ("--state-dir", workers.clone()),
        ("--state-dir", workers.join("new/deeper/../state")),
        ("--state-dir", bench.out("link/state")),
        ("--state-dir", bench.repo().join("schemas/../workers/state")),
        ("--out", workers.join("attempt")),
        ("--out", bench.out("link/attempt")),
    ];
    for (flag, path) in inside {
        let mut args = run_args(&bench.repo(), "cholesky", &bench.state());
        if flag == "--state-dir" {
            *args.last_mut().unwrap() = path.to_str().unwrap().to_owned();
        } else {
            args.extend([flag.to_owned(), path.to_str().unwrap().to_owned()]);
        }
        let output = metewand(&args);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{flag} {}: {stderr}", path.display());
        assert_eq!(stderr.lines().count(), 1, "one sentence: {stderr}");
        assert!(
            stderr.contains(&format!("{flag} {}", path.display()))
                && stderr.contains("source folder \"workers\" of worker \"cholesky\""),
            "{stderr}"
        );
        assert!(output.stdout.is_empty());
        let mut now = tree(bench.dir.path());
        now.remove(&bench.out("link"));
        assert_eq!(now, before, "{flag} {}: nothing was created", path.display());
    }
    // A folder the source walk skips is not in the source.
    let mut args = run_args(&bench.repo(), "cholesky", &workers.join(".metewand"));
    args.extend(["--out".to_owned(), bench.out("attempt").to_str().unwrap().to_owned()]);
    let output = metewand(&args);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
}

/// The judge in a source folder of its own, `judge-src/`, so that no earlier session of the attempt has made its
/// copy in the store.
fn judge_alone(bench: &Bench) {
    fs::create_dir_all(bench.repo().join("judge-src/ridge")).unwrap();
    fs::copy(bench.repo().join("workers/judge.py"), bench.repo().join("judge-src/judge.py")).unwrap();
    fs::copy(bench.repo().join("workers/ridge/__init__.py"), bench.repo().join("judge-src/ridge/__init__.py")).unwrap();
    bench.replace(
        "command = [\"python3\", \"judge.py\"]\nsource = \"workers\"",
        "command = [\"python3\", \"judge.py\"]\nsource = \"judge-src\"",
    );
}

/// Where the evaluator's session starts beside the implementation's, its source is checked and copied before either
/// worker runs, so what replaces the repository's evaluator source during the implementation's session, an edit, a
/// FIFO or a link to `/dev/zero`, changes nothing in this attempt: the evaluator runs the checked copy. Elsewhere the
/// copy is made after the implementation's session, and fails at once naming the file.
fn source_attack(mode: &str) {
    // A worker can no longer write the repository; the test replaces the file during the implementation's session.
    let bench = Bench::new();
    judge_alone(&bench);
    let output = run_paused(&bench, "attacker", "attempt", || {
        let judge = bench.repo().join("judge-src").join("judge.py");
        if mode == "edit-judge" {
            let mut file = fs::OpenOptions::new().append(true).open(&judge).unwrap();
            std::io::Write::write_all(&mut file, b"import sys\nprint('PLANTED JUDGE RAN', file=sys.stderr)\n").unwrap();
        } else {
            fs::remove_file(&judge).unwrap();
            if mode == "fifo-judge" {
                mkfifo(&judge);
            } else {
                std::os::unix::fs::symlink("/dev/zero", &judge).unwrap();
            }
        }
    });
    let record = record(&bench.out("attempt"));
    if evaluator_beside() {
        assert_eq!(output.status.code(), Some(0), "stdout: {}\nstderr: {}", text(&output.stdout), text(&output.stderr));
        assert_eq!(record["verdict"], "reached", "{mode}: {}", record["failure"]);
        assert!(record["metrics"]["relative_gap"].is_number(), "{mode}: the evaluator evaluated");
        assert!(!log(&bench.out("attempt"), "problem_evaluator").contains("PLANTED"), "{mode}: the checked code ran");
        return;
    }
    // Elsewhere the evaluator's copy is made after the implementation's session: it fails at once with an executor
    // error naming the file, and no evaluator runs.
    assert_eq!(output.status.code(), Some(3), "stdout: {}\nstderr: {}", text(&output.stdout), text(&output.stderr));
    let failure = &record["failure"];
    assert_eq!((&failure["role"], &failure["kind"]), (&Value::Null, &"executor_error".into()), "{mode}: {failure}");
    let message = failure["message"].as_str().unwrap();
    assert!(message.contains("the source of worker \"judge\" no longer matches"), "{mode}: {message}");
    assert!(message.contains("\"judge.py\""), "{mode}: {message}");
    assert_eq!(record["logs"]["problem_evaluator"], Value::Null, "{mode}: the evaluator never started");
}

#[test]
fn a_fifo_in_place_of_the_evaluator_source_during_the_implementation_changes_nothing() {
    source_attack("fifo-judge");
}

#[test]
fn a_link_to_dev_zero_in_place_of_the_evaluator_source_during_the_implementation_changes_nothing() {
    source_attack("zero-judge");
}

#[test]
fn an_evaluator_source_changed_during_the_implementation_changes_nothing_the_checked_copy_runs() {
    source_attack("edit-judge");
}

/// Once the store holds the verified copy of a source (here made by the materializer, whose folder the judge
/// shares), a change to the repository's files after the check changes nothing: the evaluator runs the checked code.
#[test]
fn an_evaluator_source_changed_after_its_copy_was_made_runs_the_checked_code() {
    let bench = Bench::new();
    let output = run_paused(&bench, "attacker", "attempt", || {
        let judge = bench.repo().join("workers").join("judge.py");
        let mut file = fs::OpenOptions::new().append(true).open(&judge).unwrap();
        std::io::Write::write_all(&mut file, b"import sys\nprint('PLANTED JUDGE RAN', file=sys.stderr)\n").unwrap();
    });
    assert_eq!(output.status.code(), Some(0), "stdout: {}\nstderr: {}", text(&output.stdout), text(&output.stderr));
    assert!(text(&output.stdout).starts_with("outcome      reached"), "{}", text(&output.stdout));
    assert!(!log(&bench.out("attempt"), "problem_evaluator").contains("PLANTED"), "the checked judge ran");
}

#[test]
fn ctrl_c_while_a_huge_result_is_hashed_is_cancelled() {
    let bench = Bench::new();
    // 1 TiB of holes, within a 2 TiB output limit: hashing it takes far longer than the guard below waits, so a run
    // that ends within the guard stopped hashing when interrupted.
    bench.misbehaving_implementation("sparse", "sparse:1024");
    bench.append("\n[limits]\noutput_bytes = 2199023255552\n");
    let child = command(&bench.args("sparse", "attempt")).spawn().unwrap();
    let log = bench.out("attempt/logs/implementation.log");
    wait_for("the execute", || fs::read_to_string(&log).is_ok_and(|text| text.contains("executing in mode")));
    // The worker answers once its holes are made, and the result is sealed (hashed) at once, the worker stopped
    // meanwhile; interrupt the hashing a moment in.
    std::thread::sleep(Duration::from_millis(1500));
    signal(&child, "-INT");
    let output = wait_guarded(child, Duration::from_secs(60));
    assert_eq!(output.status.code(), Some(130), "stdout: {}\nstderr: {}", text(&output.stdout), text(&output.stderr));
    let record = record(&bench.out("attempt"));
    assert_eq!(record["outcome"], "cancelled");
    assert_eq!(record["failure"]["kind"], "cancelled", "{}", record["failure"]);
    assert_eq!(record["implementation"]["files"], Value::Null, "the result was never accepted");
    assert_eq!(record["metrics"], Value::Null, "the evaluator, started beside the implementation, never evaluated");
}

#[test]
fn a_result_declaring_more_than_the_output_limit_is_invalid_without_reading_it() {
    let bench = Bench::new();
    bench.misbehaving_implementation("sparse", "sparse");
    bench.append("\n[limits]\noutput_bytes = 1048576\n");
    let output = bench.run("sparse", "attempt");
    let record = failed(&output, &bench.out("attempt"), "implementation", "execute", "invalid_output");
    let message = record["failure"]["message"].as_str().unwrap();
    assert!(message.contains("more than the repository's limit of 1048576"), "{message}");
    assert!(!message.contains("SHA-256"), "nothing was hashed: {message}");
}
