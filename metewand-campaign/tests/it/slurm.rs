//! The Slurm module without a cluster: the parsers of Slurm's output, time limits, packs, and array tasks run
//! in-process from a hand-written submission, which must give what the local pool gives (and run nothing when an
//! external folder it records changed since). The same commands against a real cluster are tested end to end by
//! the CLI's tests.

use std::collections::BTreeMap;
use std::fs;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use metewand_campaign::slurm::work::{Task, work};
use metewand_campaign::slurm::{
    Activity, JobKind, SlurmSubmission, TIME_MARGIN, activity, attempt_bound, error_lines, materialization_bound,
    minutes, parse_job_id, parse_max_array_size, parse_queue, submission_dir,
};
use metewand_campaign::{Axes, CampaignFolder, CampaignPlan, Silent};
use serde_json::{Value, json};

use crate::{Bench, records};

#[test]
fn slurms_output_is_parsed() {
    let config = "Configuration data as of 2026-12-02T06:00:00\nMaxArraySize            = 4\nMaxJobCount = 100000\n";
    assert_eq!(parse_max_array_size(config), Some(4));
    assert_eq!(parse_max_array_size("MaxJobCount = 1\n"), None);
    assert_eq!(parse_job_id("1234\n"), Some(1234));
    assert_eq!(parse_job_id("1234;cluster\n"), Some(1234));
    assert_eq!(parse_job_id("Submitted batch job 5\n"), None);
    let queue = parse_queue("7|0|RUNNING|None\n7|3|PENDING|JobArrayTaskLimit\n9|N/A|PENDING|Dependency\n").unwrap();
    assert_eq!(queue.len(), 3);
    assert_eq!((queue[1].job, queue[1].task, queue[1].state.as_str()), (7, Some(3), "PENDING"));
    assert_eq!((queue[2].task, queue[2].reason.as_str()), (None, "Dependency"));
    assert_eq!(parse_queue("7|x|RUNNING|None\n"), None, "an index that is not a number is not guessed at");
    assert_eq!(activity("PENDING"), Activity::Pending);
    assert_eq!(activity("COMPLETING"), Activity::Running);
    for ended in ["COMPLETED", "TIMEOUT", "CANCELLED", "FAILED", "OUT_OF_MEMORY", "NODE_FAIL"] {
        assert_eq!(activity(ended), Activity::Ended, "{ended}");
    }
}

#[test]
fn slurms_error_lines_become_one_line() {
    let stderr = "sbatch: error: invalid partition specified: nope\n\
                  sbatch: error: Batch job submission failed: Invalid partition name specified\n";
    assert_eq!(
        error_lines("sbatch", stderr).unwrap(),
        "invalid partition specified: nope; Batch job submission failed: Invalid partition name specified"
    );
    assert_eq!(
        error_lines("squeue", "slurm_load_jobs error: Invalid job id specified\n").unwrap(),
        "Invalid job id specified"
    );
    assert_eq!(error_lines("sbatch", "\n"), None);
}

#[test]
fn a_tasks_time_limit_is_its_worst_case_under_the_repositorys_limits_plus_the_margin() {
    let bench = Bench::new("");
    fs::write(
        bench.repo().join("metewand.toml"),
        fs::read_to_string(bench.repo().join("metewand.toml")).unwrap().replacen(
            "format = 1\n",
            "format = 1\n[timeouts]\nhello = 10\nprepare = 20\nexecute = 100\nevaluate = 30\nshutdown = 5\n\
             materialize = 50\n[budgets]\nimplementation = 60\n",
            1,
        ),
    )
    .unwrap();
    let repository = bench.load();
    // Both starts and shutdowns, prepare + execute capped by the budget, the evaluation.
    assert_eq!(attempt_bound(&repository), Duration::from_secs(2 * (10 + 5) + 60 + 30));
    assert_eq!(materialization_bound(&repository), Duration::from_secs(10 + 50 + 5));
    assert_eq!(minutes(Duration::from_secs(120), 8), (8 * 120 + TIME_MARGIN.as_secs()).div_ceil(60));
    assert_eq!(minutes(Duration::from_millis(59_500), 1), (60 + TIME_MARGIN.as_secs()).div_ceil(60));
}

#[test]
fn packs_and_tasks_are_found_by_their_offsets() {
    let id = |i: u64| format!("mw1-attempt-{i:064x}");
    let job = |job_id: u64, first: u64, tasks: u64| json!({"job_id": job_id, "kind": "attempts", "script": "slurm/1/attempts.sh", "first": first, "tasks": tasks});
    let submission: SlurmSubmission = serde_json::from_value(json!({
        "format": 1, "number": 1, "submitted_at": "2026-12-01T00:00:00Z", "binary": "/bin/true", "state_dir": "/tmp",
        "sweep_processes": false, "pack_size": 3, "concurrency": 2, "datasets": [],
        "attempts": (0..7).map(id).collect::<Vec<_>>(), "jobs": [job(10, 0, 2), job(11, 2, 1)],
    }))
    .unwrap();
    let ids = |pack: u64| submission.pack(pack).map(|ids| ids.iter().map(|id| id.to_string()).collect::<Vec<_>>());
    assert_eq!(submission.packs(), 3);
    assert_eq!(ids(2).unwrap(), [id(6)]);
    assert_eq!(ids(1).unwrap(), [id(3), id(4), id(5)]);
    assert!(ids(3).is_none());
    assert_eq!(submission.task_of(JobKind::Attempts, 1), Some((10, 1)));
    assert_eq!(submission.task_of(JobKind::Attempts, 2), Some((11, 0)), "the second array starts at index 0");
    assert_eq!(submission.task_of(JobKind::Datasets, 0), None);
}

/// Writes submission 1 of campaign `main` into `out` by hand: every dataset, every attempt in packs of `pack`.
fn hand_submission(bench: &Bench, out: &str, pack: u64) -> SlurmSubmission {
    hand_submission_with(bench, out, pack, Value::Null)
}

/// [`hand_submission`], with its `sessions` member when not null.
fn hand_submission_with(bench: &Bench, out: &str, pack: u64, sessions: Value) -> SlurmSubmission {
    let repository = bench.load();
    let plan = CampaignPlan::new(&repository, Some("main"), &Axes::default()).unwrap();
    let folder =
        CampaignFolder::open(&bench.folder(out), &plan, 1, metewand_campaign::environment::capture(&repository))
            .unwrap();
    let mut submission = json!({
        "format": 1, "number": 1, "submitted_at": "2026-12-01T00:00:00Z", "binary": "/bin/true",
        "state_dir": bench.state().to_str().unwrap(), "sweep_processes": false, "pack_size": pack, "concurrency": 1,
        "datasets": plan.keys().iter().map(|key| key.key.to_string()).collect::<Vec<_>>(),
        "attempts": plan.attempts().iter().map(|attempt| attempt.id.as_str()).collect::<Vec<_>>(),
        "jobs": [],
    });
    if !sessions.is_null() {
        submission["sessions"] = sessions;
    }
    let submission: SlurmSubmission = serde_json::from_value(submission).unwrap();
    let dir = submission_dir(folder.path(), 1);
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("submission.json"), serde_json::to_vec(&submission).unwrap()).unwrap();
    submission
}

fn outcome_by_id(records: &BTreeMap<String, Value>) -> BTreeMap<String, (String, Value)> {
    records
        .iter()
        .map(|(id, record)| (id.clone(), (record["outcome"].as_str().unwrap().to_owned(), record["verdict"].clone())))
        .collect()
}

#[test]
fn array_tasks_record_what_the_local_pool_records() {
    let bench = Bench::new("");
    bench.run("main", "local", 2, false);
    let submission = hand_submission(&bench, "tasks", 3);
    let folder = bench.folder("tasks");
    // An attempt whose dataset has no record is left for the next submission.
    let early = work(&folder, 1, Task::Pack(0), None, &Silent).unwrap();
    assert_eq!((early.ran, early.not_ready.len(), early.exit().code()), (0, 3, 3));
    assert!(records(&folder).is_empty());
    for index in 0..submission.datasets.len() as u64 {
        let done = work(&folder, 1, Task::Dataset(index), None, &Silent).unwrap();
        assert_eq!((done.ran, done.exit().code()), (1, 0));
    }
    for pack in 0..submission.packs() {
        let done = work(&folder, 1, Task::Pack(pack), None, &Silent).unwrap();
        assert_eq!(done.exit().code(), 0, "{done:?}");
    }
    let (local, tasks) = (records(&bench.folder("local")), records(&folder));
    assert_eq!(outcome_by_id(&tasks), outcome_by_id(&local));
    assert_eq!(tasks.len(), 4);
    // Each pack's task appended its records' entries to an index part of its own.
    let mut indexed = Vec::new();
    let mut parts = 0;
    for part in fs::read_dir(folder.join("index")).unwrap() {
        let part = part.unwrap();
        assert!(part.file_name().to_string_lossy().starts_with("task-"), "{:?}", part.file_name());
        parts += 1;
        for line in fs::read_to_string(part.path()).unwrap().lines() {
            indexed.push(serde_json::from_str::<Value>(line).unwrap()["attempt_id"].as_str().unwrap().to_owned());
        }
    }
    indexed.sort();
    assert_eq!(parts, submission.packs());
    assert_eq!(indexed, tasks.keys().cloned().collect::<Vec<_>>());
    // A task run again (Slurm requeued it) runs nothing twice.
    let again = work(&folder, 1, Task::Pack(0), None, &Silent).unwrap();
    assert_eq!((again.ran, again.skipped), (0, 3));
    // A pack or a submission that does not exist is a plain error.
    let missing = work(&folder, 1, Task::Pack(2), None, &Silent).unwrap_err().to_string();
    assert_eq!(missing, "submission 1 has 2 packs, no pack 2");
    let missing = work(&folder, 9, Task::Pack(0), None, &Silent).unwrap_err().to_string();
    assert!(missing.ends_with("has no submission 9"), "{missing}");
}

/// A task runs its pack as a pool slot runs attempts: with the submission's reused sessions, one session serves
/// the pack's consecutive attempts (after its warm-up), with the same outcomes, and is ended with the task.
#[test]
fn array_tasks_reuse_sessions_as_their_submission_says() {
    let bench = Bench::new("");
    bench.run("main", "local", 1, false);
    let submission = hand_submission_with(&bench, "tasks", 4, json!({"mode": "reuse", "refused": [], "warmup": 1}));
    let folder = bench.folder("tasks");
    for index in 0..submission.datasets.len() as u64 {
        work(&folder, 1, Task::Dataset(index), None, &Silent).unwrap();
    }
    let done = work(&folder, 1, Task::Pack(0), None, &Silent).unwrap();
    assert_eq!((done.ran, done.exit().code()), (4, 0), "{done:?}");
    let tasks = records(&folder);
    assert_eq!(outcome_by_id(&tasks), outcome_by_id(&records(&bench.folder("local"))));
    let mut sessions: Vec<Value> = tasks.values().map(|record| record["implementation"]["session"].clone()).collect();
    sessions.sort_by_key(|session| session["index"].as_u64());
    // Two cells of two repetitions: a session serves a cell once, so two sessions serve one repetition of both.
    let expected: Vec<Value> = [0, 0, 1, 1].map(|index| json!({"index": index, "mode": "reuse", "warmup": 1})).into();
    assert_eq!(sessions, expected);
    assert_eq!(fs::read_dir(bench.state().join("sessions")).unwrap().count(), 0, "the task ended its session");
}

/// With reused sessions a task runs each worker's attempts of its pack one after another: the plan's order (each
/// dataset's attempts, one worker's after the other's) would start a worker for every attempt; the task starts each
/// worker once.
#[test]
fn a_task_with_reused_sessions_starts_each_worker_of_its_pack_once() {
    let bench = Bench::new("");
    let toml = fs::read_to_string(bench.repo().join("metewand.toml")).unwrap();
    let main = "implementations = [\"solve\"]\ndataset_seeds = { from = 0, count = 2 }\nrepetitions = 2";
    assert!(toml.contains(main));
    let toml = toml.replace(main, "implementations = [\"solve\", \"too\"]\ndataset_seeds = { from = 0, count = 3 }");
    let too = format!(
        "\n[workers.solver-too]\nrole = \"implementation\"\ncommand = [\"{}\", \"serve\", \"--conformant\", \"--quiet\"]\n\
         source = \"src-other\"\n\n[implementations.too]\nworker = \"solver-too\"\nparameters = {{}}\n",
        metewand_testkit::test_worker().display()
    );
    fs::write(bench.repo().join("metewand.toml"), toml + &too).unwrap();
    let submission = hand_submission_with(&bench, "tasks", 6, json!({"mode": "reuse", "refused": [], "warmup": 0}));
    assert_eq!(submission.packs(), 1);
    let folder = bench.folder("tasks");
    for index in 0..submission.datasets.len() as u64 {
        work(&folder, 1, Task::Dataset(index), None, &Silent).unwrap();
    }
    let done = work(&folder, 1, Task::Pack(0), None, &Silent).unwrap();
    assert_eq!((done.ran, done.exit().code()), (6, 0), "{done:?}");
    let mut indices: Vec<u64> = records(&folder)
        .values()
        .map(|record| record["implementation"]["session"]["index"].as_u64().unwrap())
        .collect();
    indices.sort_unstable();
    assert_eq!(indices, [0, 0, 1, 1, 2, 2], "one session per worker, each serving its three attempts");
}

#[test]
fn a_cancelled_task_starts_no_attempt() {
    static CANCEL: AtomicBool = AtomicBool::new(true);
    let bench = Bench::new("");
    hand_submission(&bench, "tasks", 4);
    let folder = bench.folder("tasks");
    for index in 0..2 {
        work(&folder, 1, Task::Dataset(index), None, &Silent).unwrap();
    }
    let done = work(&folder, 1, Task::Pack(0), Some(&CANCEL), &Silent).unwrap();
    assert!(done.cancelled);
    assert_eq!((done.ran, done.exit().code()), (0, 130));
    assert!(records(&folder).is_empty());
}

#[test]
fn a_task_refuses_a_plan_that_changed_since_the_submission() {
    let bench = Bench::new("");
    hand_submission(&bench, "tasks", 4);
    // An edited solver source: another worker identity, other attempt ids.
    fs::write(bench.repo().join("src-solver/edited"), "an edit after the submission\n").unwrap();
    let folder = bench.folder("tasks");
    for index in 0..2 {
        work(&folder, 1, Task::Dataset(index), None, &Silent).unwrap();
    }
    let error = work(&folder, 1, Task::Pack(0), None, &Silent).unwrap_err().to_string();
    assert!(error.contains("is not in the campaign's plan any more"), "{error}");
    assert!(records(&folder).is_empty());
}

#[test]
fn a_task_whose_external_folder_changed_since_the_submission_runs_nothing() {
    let bench = Bench::new("");
    let sub = tempfile::tempdir().unwrap();
    fs::write(
        sub.path().join("metewand-implementation.toml"),
        "[workers.mine]\nrole = \"implementation\"\ncommand = [\"python3\", \"solve.py\"]\nsource = \".\"\n\n\
         [implementations.mine]\nworker = \"mine\"\n",
    )
    .unwrap();
    fs::write(sub.path().join("solve.py"), "print('solved')\n").unwrap();
    let canonical = fs::canonicalize(sub.path()).unwrap();
    let mut repository = bench.load();
    repository.add_external(sub.path(), &metewand_runtime::CheckOptions::default()).unwrap();
    let identity = repository.external_identity(&canonical).unwrap();
    let submission = hand_submission(&bench, "tasks", 3);
    let folder = bench.folder("tasks");
    let mut recorded = serde_json::to_value(&submission).unwrap();
    recorded["externals"] = json!([{"folder": canonical.to_str().unwrap(), "identity": identity.to_string()}]);
    fs::write(submission_dir(&folder, 1).join("submission.json"), serde_json::to_vec(&recorded).unwrap()).unwrap();

    // Unchanged, the folder joins and the task runs.
    let done = work(&folder, 1, Task::Dataset(0), None, &Silent).unwrap();
    assert_eq!((done.ran, done.exit().code()), (1, 0));
    // Changed, every task refuses before planning anything, naming the folder.
    fs::write(sub.path().join("solve.py"), "print('other code')\n").unwrap();
    let error = work(&folder, 1, Task::Pack(0), None, &Silent).unwrap_err().to_string();
    assert_eq!(
        error,
        format!(
            "the external folder {} changed since the submission (its metewand-implementation.toml or a worker's \
             files), so this task runs nothing under the ids planned from it; restore it, or submit again",
            canonical.display()
        )
    );
    assert!(records(&folder).is_empty());
    // Gone, it is named too.
    drop(sub);
    let error = work(&folder, 1, Task::Pack(0), None, &Silent).unwrap_err().to_string();
    assert!(
        error.starts_with(&format!(
            "the external folder {} of the submission cannot be joined here",
            canonical.display()
        )),
        "{error}"
    );
}
