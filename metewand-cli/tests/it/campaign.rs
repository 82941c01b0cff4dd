//! `metewand campaign` end to end on the test-worker benchmark of `metewand-campaign`'s tests: plain progress,
//! status and exports, bad input, Ctrl-C and the folder lock, and SIGKILL at several moments followed by a resume
//! that ends with the same outcome for every attempt id as an uninterrupted run.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use serde_json::Value;
use signal_hook::consts::SIGKILL;
use tempfile::TempDir;

use crate::{Tmpfs, command, run as metewand, text};
use metewand_testkit::test_worker;

/// The fixture benchmark in a temporary folder, with the solver's extra arguments (a TOML array fragment).
pub(crate) struct Bench {
    dir: TempDir,
}

impl Bench {
    pub(crate) fn new(solver_args: &str) -> Bench {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        for source in ["src-gen", "src-solver", "src-other", "src-judge"] {
            fs::create_dir_all(repo.join(source)).unwrap();
            fs::write(repo.join(source).join("README"), "the test worker is an executable elsewhere\n").unwrap();
        }
        let fixture =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../metewand-campaign/tests/it/fixtures/campaign.toml");
        let toml = fs::read_to_string(fixture)
            .unwrap()
            .replace("@TEST_WORKER@", test_worker().to_str().unwrap())
            .replace("\"@SOLVER_ARGS@\"", if solver_args.is_empty() { "\"--quiet\"" } else { solver_args });
        fs::write(repo.join("metewand.toml"), toml).unwrap();
        Bench { dir }
    }

    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `metewand campaign run REPO NAME --state-dir STATE` and `extra`.
    pub(crate) fn run_args(&self, name: &str, state: &str, extra: &[&str]) -> Vec<String> {
        self.campaign_args("run", name, state, extra)
    }

    /// `metewand campaign plan REPO NAME --state-dir STATE`.
    pub(crate) fn plan_args(&self, name: &str, state: &str) -> Vec<String> {
        self.campaign_args("plan", name, state, &[])
    }

    /// `metewand campaign COMMAND REPO NAME --state-dir STATE` and `extra`.
    fn campaign_args(&self, command: &str, name: &str, state: &str, extra: &[&str]) -> Vec<String> {
        let mut args: Vec<String> = ["campaign", command].map(String::from).to_vec();
        args.push(self.path("repo").to_str().unwrap().to_owned());
        args.push(name.to_owned());
        args.extend(["--state-dir".to_owned(), self.path(state).to_str().unwrap().to_owned()]);
        args.extend(extra.iter().map(|arg| (*arg).to_owned()));
        args
    }

    pub(crate) fn folder(&self, state: &str, name: &str) -> PathBuf {
        self.path(state).join("campaigns").join(name)
    }
}

impl Drop for Bench {
    fn drop(&mut self) {
        let _ = Command::new("chmod").args(["-R", "u+w"]).arg(self.dir.path()).status();
    }
}

/// Each attempt id of a campaign folder with its recorded outcome.
pub(crate) fn outcomes(folder: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for entry in fs::read_dir(folder.join("attempts")).unwrap() {
        let entry = entry.unwrap();
        let record: Value = serde_json::from_slice(&fs::read(entry.path().join("attempt.json")).unwrap()).unwrap();
        out.insert(entry.file_name().to_string_lossy().into_owned(), record["outcome"].as_str().unwrap().to_owned());
    }
    out
}

/// Each record's failure in `folder` (kind and message), for a test's message when outcomes differ.
pub(crate) fn failures(folder: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for entry in fs::read_dir(folder.join("attempts")).unwrap() {
        let path = entry.unwrap().path().join("attempt.json");
        let record: Value = serde_json::from_slice(&fs::read(path).unwrap()).unwrap();
        if !record["failure"].is_null() {
            out.push(format!("{}: {}", record["failure"]["kind"], record["failure"]["message"]));
        }
    }
    out
}

/// Waits until `ready` holds, checking the child has not ended first; the limit only guards against a hang.
fn wait_for(child: &mut Child, what: &str, ready: impl Fn() -> bool) -> bool {
    let guard = Instant::now() + Duration::from_secs(300);
    loop {
        if ready() {
            return true;
        }
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        assert!(Instant::now() < guard, "hang guard: never saw {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn count_entries(dir: &Path, keep: impl Fn(&Path) -> bool) -> usize {
    fs::read_dir(dir).map_or(0, |entries| entries.filter_map(Result::ok).filter(|entry| keep(&entry.path())).count())
}

/// Every worker's `TMPDIR` (`work/tmp-<role>/`) left in the attempt folders and the materializations' folders of
/// a campaign folder, after checking that each of those folders has its `work/` (so that none is missed).
fn temporary_folders(folder: &Path) -> Vec<PathBuf> {
    let mut left = Vec::new();
    for kind in ["attempts", "datasets"] {
        for entry in fs::read_dir(folder.join(kind)).unwrap() {
            let path = entry.unwrap().path();
            if !path.is_dir() {
                continue;
            }
            let work = fs::read_dir(path.join("work")).unwrap_or_else(|e| panic!("{}/work: {e}", path.display()));
            left.extend(
                work.map(|entry| entry.unwrap().path())
                    .filter(|path| path.file_name().unwrap().to_string_lossy().starts_with("tmp-")),
            );
        }
    }
    left
}

#[test]
fn a_run_prints_plain_progress_then_status_and_export_read_the_folder() {
    let bench = Bench::new("");
    let output = metewand(&bench.run_args("main", "state", &["-j", "2"]));
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("metewand: campaign: 4 attempts planned, 0 already done, 4 to run\n"), "{stderr}");
    for k in 1..=4 {
        assert!(stderr.contains(&format!("metewand: [{k}/4] reached answer small#")), "{stderr}");
    }
    assert_eq!(stderr.matches(": materialized in ").count(), 2, "one per dataset seed: {stderr}");
    let stdout = text(&output.stdout);
    assert!(stdout.contains("complete     4 of 4 with a verdict, 0 failed\n"), "{stdout}");
    let folder = bench.folder("state", "main");
    assert_eq!(outcomes(&folder).values().filter(|outcome| *outcome == "reached").count(), 4);
    assert_eq!(temporary_folders(&folder), Vec::<PathBuf>::new(), "each TMPDIR went with its session");

    let status = metewand(&["campaign".into(), "status".into(), folder.to_str().unwrap().into()]);
    assert_eq!(status.status.code(), Some(0), "{}", text(&status.stderr));
    let shown = text(&status.stdout);
    assert!(shown.contains("planned      4\n") && shown.contains("done         4 (reached 4)\n"), "{shown}");
    // The same campaign by its repository and name, as `run` and `plan` take it.
    let by_name = metewand(&[
        "campaign".into(),
        "status".into(),
        bench.path("repo").to_str().unwrap().into(),
        "main".into(),
        "--state-dir".into(),
        bench.path("state").to_str().unwrap().into(),
    ]);
    assert_eq!(by_name.status.code(), Some(0), "{}", text(&by_name.stderr));
    assert_eq!(text(&by_name.stdout), shown);
    fs::remove_file(folder.join("results.csv")).unwrap();
    let export = metewand(&["campaign".into(), "export".into(), folder.to_str().unwrap().into()]);
    assert_eq!(export.status.code(), Some(0), "{}", text(&export.stderr));
    assert_eq!(fs::read_to_string(folder.join("results.csv")).unwrap().lines().count(), 5);

    // Again, quietly: nothing to run, nothing on stderr.
    let again = metewand(&bench.run_args("main", "state", &["--quiet"]));
    assert_eq!(again.status.code(), Some(0));
    assert_eq!(text(&again.stderr), "");
    assert!(text(&again.stdout).contains("(4 attempts: 4 already done, 0 run now)"), "{}", text(&again.stdout));
    let plan = metewand(&bench.plan_args("main", "state"));
    let shown = text(&plan.stdout);
    assert!(shown.contains("done         4 of 4 (0 to run)\n"), "{shown}");
    assert!(shown.contains("datasets     2 distinct (2 already in the store"), "{shown}");
    assert!(!shown.contains("changed      "), "{shown}");

    // Editing the solver's source changes its identity, so its attempts' ids: the plan says which worker, and why.
    fs::write(bench.path("repo/src-solver/README"), "the test worker is an executable elsewhere, still\n").unwrap();
    let plan = metewand(&bench.plan_args("main", "state"));
    let shown = text(&plan.stdout);
    assert!(shown.contains("done         0 of 4 (4 to run)\n"), "{shown}");
    assert!(
        shown.contains(
            "changed      worker solver changed since 4 of the earlier records (source), so its attempts have new ids \
             and run again; files changed README\n"
        ),
        "{shown}"
    );
    assert_eq!(shown.matches("changed      ").count(), 1, "only the solver changed: {shown}");

    // The judge takes a folder of shared code: its identity changes in its include part, and the plan says so;
    // `campaign run` says the same first.
    fs::create_dir(bench.path("repo/shared")).unwrap();
    fs::write(bench.path("repo/shared/numerics.py"), "N = 1\n").unwrap();
    let toml = fs::read_to_string(bench.path("repo/metewand.toml")).unwrap();
    let toml = toml.replacen("source = \"src-judge\"\n", "source = \"src-judge\"\ninclude = [\"shared\"]\n", 1);
    fs::write(bench.path("repo/metewand.toml"), toml).unwrap();
    let run = metewand(&bench.run_args("main", "state", &[]));
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let stderr = text(&run.stderr);
    let first = stderr.lines().next().unwrap_or_default();
    assert!(
        first.starts_with(
            "metewand: campaign run: worker judge changed since 4 of the earlier records (include shared)"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("worker solver changed since 4 of the earlier records (source)"), "{stderr}");
    // The folder keeps the earlier runs' attempts too: the four of this run record the include and copy it.
    let folder = bench.folder("state", "main");
    let included: Vec<PathBuf> = fs::read_dir(folder.join("attempts"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            let record: Value = serde_json::from_slice(&fs::read(path.join("attempt.json")).unwrap()).unwrap();
            record["evaluator"]["identity"]["include"]["shared"].as_str().is_some_and(|digest| digest.len() == 71)
        })
        .collect();
    assert_eq!(included.len(), 4);
    // One copy of the judge's folder with the shared one serves them all, in the store.
    let copies = fs::read_dir(bench.path("state/sources")).unwrap().map(|entry| entry.unwrap().path());
    assert_eq!(copies.filter(|copy| copy.join("shared/numerics.py").is_file()).count(), 1);
    fs::write(bench.path("repo/shared/numerics.py"), "N = 2\n").unwrap();
    let plan = metewand(&bench.plan_args("main", "state"));
    let shown = text(&plan.stdout);
    assert!(
        shown.contains(
            "changed      worker judge changed since 4 of the earlier records (include shared), so its attempts have \
             new ids and run again; files changed shared/numerics.py\n"
        ),
        "{shown}"
    );
}

/// Two links to the test worker, `bin-a/mw-solver` and `bin-b/mw-solver`, and the solver's command naming
/// `mw-solver`, found on `PATH`: two programs that ids cannot tell apart.
pub(crate) fn solver_found_on_path(bench: &Bench) {
    let worker = test_worker();
    for dir in ["bin-a", "bin-b"] {
        fs::create_dir(bench.path(dir)).unwrap();
        std::os::unix::fs::symlink(worker, bench.path(dir).join("mw-solver")).unwrap();
    }
    let toml = fs::read_to_string(bench.path("repo/metewand.toml")).unwrap();
    let declared =
        format!("command = [\"{}\", \"serve\", \"--conformant\", \"--quiet\", \"--quiet\"]", worker.display());
    assert!(toml.contains(&declared), "{toml}");
    let toml =
        toml.replacen(&declared, "command = [\"mw-solver\", \"serve\", \"--conformant\", \"--quiet\", \"--quiet\"]", 1);
    fs::write(bench.path("repo/metewand.toml"), toml).unwrap();
}

/// A record of the campaign folder, any one.
pub(crate) fn any_record(folder: &Path) -> Value {
    let entry = fs::read_dir(folder.join("attempts")).unwrap().next().unwrap().unwrap();
    serde_json::from_slice(&fs::read(entry.path().join("attempt.json")).unwrap()).unwrap()
}

/// The environment's `PATH` with `dir` first.
pub(crate) fn path_with(dir: &Path) -> std::ffi::OsString {
    let mut dirs = vec![dir.to_owned()];
    dirs.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    std::env::join_paths(dirs).unwrap()
}

/// Ids do not show which program a command found (two virtual environments link to one interpreter): each record
/// keeps what ran and where the command found it, `plan` and `run` name done attempts that ran another program
/// than the command finds now, and only `--rerun-changed` runs them again.
#[test]
fn a_record_replaced_by_hand_is_noticed_only_with_check_records() {
    let bench = Bench::new("");
    let output = metewand(&bench.run_args("main", "state", &["--quiet"]));
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let folder = bench.folder("state", "main");
    let id = outcomes(&folder).into_keys().next().unwrap();
    fs::write(folder.join("attempts").join(&id).join("attempt.json"), "replaced by hand").unwrap();
    let folder = folder.to_str().unwrap().to_owned();
    let read = |args: &[&str]| metewand(&args.iter().map(|arg| (*arg).to_owned()).collect::<Vec<_>>());
    // The index's entries are the executor's, written with the records: a reading takes them as they are.
    let status = read(&["campaign", "status", &folder]);
    assert_eq!(status.status.code(), Some(0), "{}", text(&status.stderr));
    assert!(text(&status.stdout).contains("done         4 (reached 4)\n"), "{}", text(&status.stdout));
    let report = read(&["report", "--format", "json", &folder]);
    assert_eq!(report.status.code(), Some(0), "{}", text(&report.stderr));
    // Checked, each entry is held against its record, and the one replaced is refused.
    let status = read(&["campaign", "status", "--check-records", &folder]);
    assert_eq!(status.status.code(), Some(1), "{}", text(&status.stderr));
    let shown = text(&status.stdout);
    assert!(shown.contains("done         3 (reached 3)\n"), "{shown}");
    assert!(
        shown.contains(&format!("invalid      attempts/{id}/attempt.json fails the attempt-record schema")),
        "{shown}"
    );
    for args in [
        &["report", "--check-records", "--format", "json", &folder][..],
        &["compare", "--check-records", &folder, &folder],
    ] {
        let refused = read(args);
        let stderr = text(&refused.stderr);
        assert_eq!(refused.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(&format!("attempts/{id}/attempt.json")), "{args:?}: {stderr}");
    }
    // An export writes a row per valid record: the entry's, or, checked, none for the record replaced.
    let exported = |check: &[&str]| {
        let export = read(&[&["campaign", "export"][..], check, &[folder.as_str()]].concat());
        assert_eq!(export.status.code(), Some(0), "{}", text(&export.stderr));
        fs::read_to_string(Path::new(&folder).join("results.csv")).unwrap()
    };
    assert!(exported(&[]).contains(&id));
    assert!(!exported(&["--check-records"]).contains(&id));
}

#[test]
fn done_attempts_that_ran_another_program_are_named_and_run_again_only_with_rerun_changed() {
    let bench = Bench::new("");
    solver_found_on_path(&bench);
    let worker = test_worker();
    let in_env = |dir: &str, args: Vec<String>| {
        let mut command = command(&args);
        command.env("PATH", path_with(&bench.path(dir)));
        command.output().unwrap()
    };
    let first = in_env("bin-a", bench.run_args("main", "state", &[]));
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let record = any_record(&bench.folder("state", "main"));
    let program = &record["implementation"]["program"];
    assert_eq!(program["path"].as_str(), Some(worker.canonicalize().unwrap().to_str().unwrap()), "{program}");
    assert_eq!(program["path_match"].as_str(), Some(bench.path("bin-a/mw-solver").to_str().unwrap()), "{program}");
    assert_eq!(program["sha256"].as_str().map(str::len), Some(64));
    assert!(record["evaluator"]["program"]["path_match"].is_null(), "named by its real path: {record}");

    // The same PATH: nothing to say. The other link first on PATH: the plan names the change and keeps them.
    let plan_args = bench.plan_args("main", "state");
    let same = in_env("bin-a", plan_args.clone());
    assert!(!text(&same.stdout).contains("program      "), "{}", text(&same.stdout));
    let plan = in_env("bin-b", plan_args);
    let shown = text(&plan.stdout);
    assert!(shown.contains("done         4 of 4 (0 to run)\n"), "{shown}");
    let expected =
        format!("program      worker solver: 4 done attempts ran {} (sha256 ", bench.path("bin-a/mw-solver").display());
    assert!(shown.contains(&expected), "{shown}");
    assert!(
        shown.contains(&format!("its command finds {} (sha256 ", bench.path("bin-b/mw-solver").display())),
        "{shown}"
    );
    assert!(shown.contains("now; they are kept; --rerun-changed runs them again\n"), "{shown}");

    let kept = in_env("bin-b", bench.run_args("main", "state", &[]));
    assert!(text(&kept.stdout).contains("(4 attempts: 4 already done, 0 run now)"), "{}", text(&kept.stdout));
    assert!(text(&kept.stderr).contains("campaign run: worker solver: 4 done attempts ran"), "{}", text(&kept.stderr));
    let rerun = in_env("bin-b", bench.run_args("main", "state", &["--rerun-changed"]));
    assert_eq!(rerun.status.code(), Some(0), "{}", text(&rerun.stderr));
    assert!(text(&rerun.stdout).contains("(4 attempts: 0 already done, 4 run now"), "{}", text(&rerun.stdout));
    assert!(text(&rerun.stderr).contains("now; they run again"), "{}", text(&rerun.stderr));
    let record = any_record(&bench.folder("state", "main"));
    assert_eq!(
        record["implementation"]["program"]["path_match"].as_str(),
        Some(bench.path("bin-b/mw-solver").to_str().unwrap())
    );
    let again = in_env("bin-b", bench.run_args("main", "state", &["--rerun-changed"]));
    assert!(text(&again.stdout).contains("(4 attempts: 4 already done, 0 run now)"), "{}", text(&again.stdout));
}

#[test]
fn bad_input_is_one_sentence_and_exit_2() {
    let bench = Bench::new("");
    for (args, expected) in [
        (bench.run_args("nope", "state", &[]), "has no campaign named \"nope\" (it has: main, mixed)"),
        (
            bench.run_args("main", "state", &["--implementation", "fast"]),
            "no implementation named \"fast\" (it has: fail, solve)",
        ),
        (
            bench.run_args("main", "state", &["--implementation", "solv"]),
            "no implementation named \"solv\" (did you mean \"solve\"?) (it has: fail, solve)",
        ),
        (bench.run_args("main", "state", &["--dataset-seeds", "5..5"]), "is empty"),
    ] {
        let output = metewand(&args);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(expected), "{stderr}");
    }
    assert!(!bench.path("state").join("campaigns").exists(), "nothing started");
    let status = metewand(&["campaign".into(), "status".into(), bench.path("repo").to_str().unwrap().into()]);
    assert_eq!(status.status.code(), Some(2));
    let stderr = text(&status.stderr);
    assert!(
        stderr.contains("is not a campaign folder") && stderr.contains("or the repository and the campaign's name")
    );
    assert!(!stderr.contains("give a new or empty folder"), "wrong advice for a folder being read: {stderr}");
}

#[test]
fn ctrl_c_cancels_the_running_attempts_and_a_second_run_of_the_folder_is_refused() {
    // The solver never answers execute by itself: the campaign runs until it is interrupted.
    let bench = Bench::new("\"--fault\", \"never-answer@execute\"");
    let mut child = command(&bench.run_args("main", "state", &["-j", "2"])).spawn().unwrap();
    let folder = bench.folder("state", "main");
    let logs = |dir: &Path| dir.join("logs/implementation.log").exists();
    // Two jobs: two of the four attempts run, and neither ends by itself.
    let running = wait_for(&mut child, "two attempts running", || count_entries(&folder.join("attempts"), logs) == 2);
    assert!(running, "the campaign ended by itself");
    let second = metewand(&bench.run_args("main", "state", &[]));
    assert_eq!(second.status.code(), Some(2));
    assert!(text(&second.stderr).contains("is in use by another run"), "{}", text(&second.stderr));
    Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130), "{}", text(&output.stderr));
    assert!(text(&output.stderr).contains("run the same command again to resume"), "{}", text(&output.stderr));
    // Both running attempts are recorded cancelled, and no other attempt started after the interrupt.
    let found = outcomes(&folder);
    assert_eq!(found.values().collect::<Vec<_>>(), ["cancelled", "cancelled"], "{found:?}");
    let stdout = text(&output.stdout);
    assert!(stdout.contains("(4 attempts: 0 already done, 2 run now: 2 cancelled)"), "{stdout}");
    let status = metewand(&["campaign".into(), "status".into(), folder.to_str().unwrap().into()]);
    assert_eq!(status.status.code(), Some(1), "incomplete");
    let shown = text(&status.stdout);
    assert!(
        shown.contains("missing      4 (2 never started, 0 unfinished, 2 cancelled, 0 invalid records)\n"),
        "{shown}"
    );
}

/// `--sessions reuse` reuses only the sessions of a worker that passes the conformance kit's `reset-then-again`: a
/// worker whose reset loses the state its next execute needs is refused, with the check's reason in one warning,
/// and its attempts run in fresh sessions (and say so) with the outcomes fresh sessions give.
#[test]
fn reuse_is_refused_to_a_worker_that_fails_reset_then_again() {
    let sessions = |folder: &Path| -> Vec<Value> {
        fs::read_dir(folder.join("attempts"))
            .unwrap()
            .map(|entry| {
                let record: Value =
                    serde_json::from_slice(&fs::read(entry.unwrap().path().join("attempt.json")).unwrap()).unwrap();
                record["implementation"]["session"]["mode"].clone()
            })
            .collect()
    };
    let good = Bench::new("");
    let output = metewand(&good.run_args("main", "state", &["--sessions", "reuse"]));
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(!text(&output.stderr).contains("is not reused"), "{}", text(&output.stderr));
    assert_eq!(sessions(&good.folder("state", "main")), ["reuse"; 4]);

    let corrupting = Bench::new(r#""--fault", "corrupt@reset""#);
    let output = metewand(&corrupting.run_args("main", "state", &["--sessions", "reuse"]));
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let warnings: Vec<&str> = stderr.lines().filter(|line| line.contains("is not reused")).collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(warnings[0].starts_with("metewand: campaign run: implementation worker solver is not reused"), "{stderr}");
    assert!(warnings[0].contains("its attempt after a reset failed: implementation worker's output is invalid"));
    let folder = corrupting.folder("state", "main");
    assert_eq!(sessions(&folder), ["fresh"; 4]);
    assert!(outcomes(&folder).values().all(|outcome| outcome == "reached"), "{:?}", outcomes(&folder));
    // The check's attempt folders are gone from the state.
    let left: Vec<_> = fs::read_dir(corrupting.path("state"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(".reuse-check-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// A state folder given relative to the working directory (as users type it) still lets a worker pass
/// `reset-then-again`: the check's inputs are handed to the worker by absolute paths, since the worker runs elsewhere.
#[test]
fn reuse_is_granted_with_a_relative_state_folder() {
    let bench = Bench::new("");
    let mut args = bench.run_args("main", "state", &["--sessions", "reuse"]);
    let state = args.iter().position(|arg| arg == "--state-dir").unwrap() + 1;
    args[state] = "state".to_owned();
    let output = command(&args).current_dir(bench.path("")).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(!text(&output.stderr).contains("is not reused"), "{}", text(&output.stderr));
    for entry in fs::read_dir(bench.folder("state", "main").join("attempts")).unwrap() {
        let record: Value =
            serde_json::from_slice(&fs::read(entry.unwrap().path().join("attempt.json")).unwrap()).unwrap();
        assert_eq!(record["implementation"]["session"]["mode"], "reuse");
    }
}

/// The reuse check's datasets are its two attempts' (the worker's first two cells in the plan), taken from the run's
/// store or made there: the campaign's attempts then find them in the store, so no dataset is made twice for the
/// check.
#[test]
fn the_reuse_check_makes_its_dataset_in_the_runs_store_for_the_attempts() {
    let bench = Bench::new("");
    let output =
        command(&bench.run_args("main", "state", &["--sessions", "reuse", "--dataset-seeds", "3,4"])).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(!text(&output.stderr).contains("is not reused"), "{}", text(&output.stderr));
    let datasets = bench.folder("state", "main").join("datasets");
    let mut reused = BTreeMap::new();
    for entry in fs::read_dir(&datasets).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|extension| extension != "json") {
            continue;
        }
        let record: Value = serde_json::from_slice(&fs::read(path).unwrap()).unwrap();
        reused.insert(record["seed"].as_u64().unwrap(), record["reused"].as_bool().unwrap());
    }
    assert_eq!(reused, BTreeMap::from([(3, true), (4, true)]), "seeds 3 and 4, the check's cells, made by the check");
    let store = bench.path("state/datasets");
    let entries = fs::read_dir(&store).unwrap().filter(|entry| entry.as_ref().unwrap().path().is_dir()).count();
    assert_eq!(entries, 2, "no dataset of another seed was made for the check");
}

/// With reused sessions, a session is held (stopped) between the attempts it serves: Ctrl-C at any moment leaves
/// no process of it, held or serving, and the held one's folder is gone from the state.
#[test]
fn ctrl_c_leaves_no_held_session() {
    // The solver names a path of this test's own on its command line, to be found among the processes.
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    let marker = PathBuf::from(format!("/nonexistent/metewand-held-{}-{nanos}", std::process::id()));
    let bench = Bench::new(&format!(r#""--pid-dir", "{}""#, marker.display()));
    let toml = fs::read_to_string(bench.path("repo/metewand.toml")).unwrap();
    let judge = r#""--conformant", "--quiet"]
source = "src-judge""#;
    assert!(toml.contains(judge));
    let slow_judge = r#""--conformant", "--quiet", "--delay", "evaluate=300"]
source = "src-judge""#;
    fs::write(bench.path("repo/metewand.toml"), toml.replacen(judge, slow_judge, 1)).unwrap();
    let marked = || {
        let needle = marker.to_str().unwrap().as_bytes().to_vec();
        fs::read_dir("/proc")
            .unwrap()
            .filter_map(Result::ok)
            .filter(|entry| entry.file_name().to_string_lossy().bytes().all(|b| b.is_ascii_digit()))
            .filter(|entry| {
                fs::read(entry.path().join("cmdline"))
                    .is_ok_and(|cmdline| cmdline.windows(needle.len()).any(|w| w == needle))
            })
            .count()
    };
    let mut child = command(&bench.run_args("main", "state", &["--sessions", "reuse"])).spawn().unwrap();
    let folder = bench.folder("state", "main");
    let recorded = |dir: &Path| dir.join("attempt.json").exists();
    let held = wait_for(&mut child, "a record written", || count_entries(&folder.join("attempts"), recorded) >= 1);
    assert!(held, "the campaign ended by itself");
    assert_eq!(marked(), 1, "one solver serves the attempts");
    Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130), "{}", text(&output.stderr));
    assert_eq!(marked(), 0, "no solver is left");
    let sessions = fs::read_dir(bench.path("state/sessions")).map_or(0, Iterator::count);
    assert_eq!(sessions, 0, "no held session's folder is left");
    assert!(outcomes(&folder).values().any(|outcome| outcome == "reached"));
}

/// With fresh sessions and `--ahead`, a slot starts its next attempt's workers once the running one is no longer
/// timed (on a core kept off the slot), and holds them stopped until their attempt: Ctrl-C while a solver started
/// ahead waits leaves no process of it, and no folder of it in the state.
#[test]
fn ctrl_c_leaves_no_worker_started_ahead() {
    if metewand_runtime::cpus::CpuSet::of_current_thread().map_or(1, |cpus| cpus.len()) < 2 {
        metewand_testkit::skip(
            metewand_testkit::Requirement::TwoCpus,
            "workers are started ahead only where a core can be kept off the slot",
        );
        return;
    }
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    let marker = PathBuf::from(format!("/nonexistent/metewand-ahead-{}-{nanos}", std::process::id()));
    let bench = Bench::new(&format!(r#""--pid-dir", "{}""#, marker.display()));
    // A slow judge: while it judges, the next attempt's solver, started ahead, waits stopped.
    let toml = fs::read_to_string(bench.path("repo/metewand.toml")).unwrap();
    let judge = r#""--conformant", "--quiet"]
source = "src-judge""#;
    assert!(toml.contains(judge));
    let slow_judge = r#""--conformant", "--quiet", "--delay", "evaluate=300"]
source = "src-judge""#;
    fs::write(bench.path("repo/metewand.toml"), toml.replacen(judge, slow_judge, 1)).unwrap();
    // The solvers (they name the marker on their command lines), and whether each is stopped.
    let marked = || -> Vec<bool> {
        let needle = marker.to_str().unwrap().as_bytes().to_vec();
        fs::read_dir("/proc")
            .unwrap()
            .filter_map(Result::ok)
            .filter(|entry| entry.file_name().to_string_lossy().bytes().all(|b| b.is_ascii_digit()))
            .filter(|entry| {
                fs::read(entry.path().join("cmdline"))
                    .is_ok_and(|cmdline| cmdline.windows(needle.len()).any(|w| w == needle))
            })
            .map(|entry| entry.file_name().to_string_lossy().parse().is_ok_and(metewand_testkit::held))
            .collect()
    };
    let mut child = command(&bench.run_args("main", "state", &["--ahead"])).spawn().unwrap();
    // A solver stopped over three looks 20 ms apart: one started ahead, waiting (a seal stops one for less).
    let waiting = || {
        (0..3).all(|look| {
            if look > 0 {
                std::thread::sleep(Duration::from_millis(20));
            }
            marked().contains(&true)
        })
    };
    let ahead = wait_for(&mut child, "a solver started ahead", waiting);
    assert!(ahead, "the campaign ended by itself");
    let sessions = fs::read_dir(bench.path("state/sessions")).map_or(0, Iterator::count);
    assert!(sessions >= 1, "the solver waiting is held in a session folder");
    Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130), "{}", text(&output.stderr));
    assert_eq!(marked(), Vec::<bool>::new(), "no solver is left");
    let sessions = fs::read_dir(bench.path("state/sessions")).map_or(0, Iterator::count);
    assert_eq!(sessions, 0, "no folder of a session started ahead is left");
}

#[test]
fn a_campaign_killed_at_any_moment_resumes_to_the_same_outcomes() {
    // The solver's execute lasts long enough that even the last moment's kill lands while that attempt still runs.
    let bench = Bench::new("\"--delay\", \"execute=500\"");
    let reference = metewand(&bench.run_args("mixed", "reference", &["-j", "2"]));
    assert_eq!(reference.status.code(), Some(3), "two failures: {}", text(&reference.stderr));
    let expected = outcomes(&bench.folder("reference", "mixed"));
    assert_eq!(expected.len(), 4);

    type Moment = fn(&Path) -> bool;
    let moments: [(&str, Moment); 4] = [
        ("campaign.json written", |folder| folder.join("campaign.json").exists()),
        ("a materialization started", |folder| count_entries(&folder.join("datasets"), |path| path.is_dir()) > 0),
        ("an attempt started", |folder| count_entries(&folder.join("attempts"), |_| true) > 0),
        ("two records written", |folder| {
            count_entries(&folder.join("attempts"), |path| path.join("attempt.json").exists()) >= 2
        }),
    ];
    for (i, (moment, reached)) in moments.into_iter().enumerate() {
        let state = format!("killed-{i}");
        let folder = bench.folder(&state, "mixed");
        let mut child = command(&bench.run_args("mixed", &state, &["-j", "2"])).spawn().unwrap();
        assert!(wait_for(&mut child, moment, || reached(&folder)), "the campaign ended before {moment}");
        assert!(child.try_wait().unwrap().is_none(), "the campaign ended just after {moment}");
        child.kill().unwrap();
        let killed = child.wait().unwrap();
        assert_eq!(killed.signal(), Some(SIGKILL), "killed mid-run when {moment}, not ended by itself: {killed}");
        let done = count_entries(&folder.join("attempts"), |path| path.join("attempt.json").exists());
        assert!(done < expected.len(), "killed when {moment}, yet all {done} records were written");
        // The killed run's index part names only records that were written; its last line is cut short, as a
        // kill in the middle of writing it would leave it.
        for part in fs::read_dir(folder.join("index")).into_iter().flatten() {
            let part = part.unwrap().path();
            if part.extension().is_none_or(|extension| extension != "jsonl") {
                continue; // the campaign table, not a part
            }
            let lines = fs::read_to_string(&part).unwrap();
            for line in lines.lines() {
                let id = serde_json::from_str::<Value>(line).unwrap()["attempt_id"].as_str().unwrap().to_owned();
                assert!(folder.join("attempts").join(id).join("attempt.json").exists(), "{moment}: {line}");
            }
            fs::write(&part, &lines.as_bytes()[..lines.len().saturating_sub(9)]).unwrap();
        }
        let status = metewand(&["campaign".into(), "status".into(), folder.to_str().unwrap().into()]);
        assert_eq!(status.status.code(), Some(1), "incomplete after the kill when {moment}: {}", text(&status.stdout));
        let said = text(&status.stdout);
        let counted =
            said.lines().find_map(|line| line.strip_prefix("done")).map(|rest| rest.split_whitespace().next());
        assert_eq!(counted, Some(Some(done.to_string().as_str())), "{moment}: {said}");
        let resumed = metewand(&bench.run_args("mixed", &state, &["-j", "2"]));
        assert_eq!(resumed.status.code(), Some(3), "{moment}: {}", text(&resumed.stderr));
        let stdout = text(&resumed.stdout);
        let counts = format!("({} attempts: {done} already done, {} run now", expected.len(), expected.len() - done);
        assert!(stdout.contains(&counts), "the resume after the kill when {moment} runs the rest: {stdout}");
        assert_eq!(outcomes(&folder), expected, "killed when {moment}: {:#?}", failures(&folder));
        let status = metewand(&["campaign".into(), "status".into(), folder.to_str().unwrap().into()]);
        assert_eq!(status.status.code(), Some(0), "{moment}: {}", text(&status.stdout));
        // The resumed run merged every part: one entry per record; beside it, the table and the tally its exports
        // wrote, and the report's cache its closing reading left.
        let mut index: Vec<_> =
            fs::read_dir(folder.join("index")).unwrap().map(|entry| entry.unwrap().file_name()).collect();
        index.sort();
        assert_eq!(index, ["all.jsonl", "report.bin", "table.json", "tally.bin"], "{moment}");
        let merged = fs::read_to_string(folder.join("index/all.jsonl")).unwrap();
        let mut indexed: Vec<String> = merged
            .lines()
            .map(|line| serde_json::from_str::<Value>(line).unwrap()["attempt_id"].as_str().unwrap().to_owned())
            .collect();
        indexed.sort();
        assert_eq!(indexed, expected.keys().cloned().collect::<Vec<_>>(), "{moment}");
    }
}

#[test]
fn a_full_disk_mid_campaign_stops_it_and_a_resume_after_freeing_it_completes_the_plan() {
    let bench = Bench::new("");
    let out = bench.path("out");
    // Room for the first attempts' folders, not for all four.
    let Some(tmpfs) = Tmpfs::mount(&out, "80k") else { return };
    let args = bench.run_args("main", "state", &["-j", "1", "--out", out.to_str().unwrap()]);
    let full = metewand(&args);
    let stderr = text(&full.stderr);
    assert_eq!(full.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("No space left on device"), "{stderr}");
    // What was recorded is whole; what was not has no record, never a half-written one.
    let mut kept = BTreeMap::new();
    for entry in fs::read_dir(out.join("attempts")).unwrap() {
        let path = entry.unwrap().path().join("attempt.json");
        if let Ok(bytes) = fs::read(&path) {
            let record: Value = serde_json::from_slice(&bytes).expect("a record is whole or absent");
            assert_eq!(record["outcome"], "reached", "{record}");
            kept.insert(path, bytes);
        }
    }
    assert!(!kept.is_empty() && kept.len() < 4, "the disk filled mid-campaign: {} records", kept.len());
    let status = metewand(&["campaign".into(), "status".into(), out.to_str().unwrap().into()]);
    assert_eq!(status.status.code(), Some(1), "not complete: {}", text(&status.stdout));

    tmpfs.resize("16m");
    let resumed = metewand(&args);
    assert_eq!(resumed.status.code(), Some(0), "{}", text(&resumed.stderr));
    let stdout = text(&resumed.stdout);
    assert!(stdout.contains(&format!("{} already done, {} run now", kept.len(), 4 - kept.len())), "{stdout}");
    assert_eq!(outcomes(&out).values().filter(|outcome| *outcome == "reached").count(), 4);
    for (path, bytes) in kept {
        assert_eq!(fs::read(&path).unwrap(), bytes, "a finished attempt is not run again");
    }
    assert!(out.join("results.csv").is_file());
}

#[test]
fn a_campaign_warns_once_of_weaker_confinement_and_require_confinement_refuses_before_anything_starts() {
    let bench = Bench::new("");
    let swept = bench.path("swept");
    let output = metewand(&bench.run_args("main", "state", &["--sweep-processes", "--out", swept.to_str().unwrap()]));
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let warnings: Vec<&str> = stderr.lines().filter(|line| line.contains("weaker than full")).collect();
    assert_eq!(warnings.len(), 1, "one warning line for the whole campaign: {stderr}");
    assert!(warnings[0].starts_with("metewand: campaign run: warning:") && warnings[0].contains("no PID namespace"));
    for entry in fs::read_dir(swept.join("attempts")).unwrap() {
        let record: Value =
            serde_json::from_slice(&fs::read(entry.unwrap().path().join("attempt.json")).unwrap()).unwrap();
        assert_eq!(record["implementation"]["confinement"]["processes"], "sweep", "{record}");
    }

    let refused = bench.path("refused");
    let args = ["--sweep-processes", "--require-confinement", "--out", refused.to_str().unwrap()];
    let output = metewand(&bench.run_args("main", "other-state", &args));
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--require-confinement") && stderr.contains("no PID namespace"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one sentence: {stderr}");
    assert!(!refused.exists() && !bench.path("other-state").exists(), "nothing was created");
}

/// An implementation that, while the marker file its command names exists, nests 3000 folders (every 500th made
/// read-only, and a link to `outside` at the top) in its `TMPDIR` and in its output folder before it serves, as an
/// attacker can (each folder made relative to its parent's descriptor, the deepest path being past `PATH_MAX`),
/// and then fails its `execute`; otherwise the test worker as it is. The marker lies in the repository (outside
/// every source folder, so that no identity depends on it) and is named on the command line: that is how a
/// worker's private view, which hides the repository and `/tmp`, still shows it. The test worker it runs is named
/// there too (the checkout may lie in `/tmp`).
fn nesting_worker(outside: &Path) -> String {
    format!(
        r#"import os, sys
args = [sys.argv[2], "serve", "--conformant", "--quiet"]
if os.path.exists(sys.argv[1]):
    tmpdir = os.environ["TMPDIR"]
    for top in (tmpdir, os.path.join(os.path.dirname(tmpdir), "result")):
        fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
        os.symlink({outside:?}, "outside", dir_fd=fd)
        for depth in range(1, 3001):
            os.mkdir("d", dir_fd=fd)
            child = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            if depth % 500 == 0:
                os.fchmod(fd, 0o555)
            os.close(fd)
            fd = child
        os.close(fd)
    args += ["--fault", "fail@execute"]
os.execv(args[0], args)
"#
    )
}

#[test]
fn an_implementation_nesting_3000_folders_then_failing_leaves_no_tmpdir_and_a_retry_of_it_completes() {
    let bench = Bench::new("");
    let (marker, outside) = (bench.path("repo/marker"), bench.path("outside"));
    fs::write(&marker, "").unwrap();
    fs::create_dir(&outside).unwrap();
    fs::write(outside.join("kept"), "kept").unwrap();
    fs::create_dir(bench.path("repo/src-nesting")).unwrap();
    fs::write(bench.path("repo/src-nesting/nesting.py"), nesting_worker(&outside)).unwrap();
    let mut toml = fs::read_to_string(bench.path("repo/metewand.toml")).unwrap();
    toml.push_str(&format!(
        r#"
[workers.nesting-solver]
role = "implementation"
command = ["python3", "nesting.py", {marker:?}, {worker:?}]
source = "src-nesting"

[implementations.nesting]
worker = "nesting-solver"
parameters = {{}}

[campaigns.nesting]
datasets = ["small"]
implementations = ["nesting"]
"#,
        worker = test_worker(),
    ));
    fs::write(bench.path("repo/metewand.toml"), toml).unwrap();

    let first = metewand(&bench.run_args("nesting", "state", &[]));
    assert_eq!(first.status.code(), Some(3), "the attempt failed: {}", text(&first.stderr));
    let folder = bench.folder("state", "nesting");
    let attempts: Vec<PathBuf> =
        fs::read_dir(folder.join("attempts")).unwrap().map(|entry| entry.unwrap().path()).collect();
    assert_eq!(attempts.len(), 1, "{attempts:?}");
    let record: Value = serde_json::from_slice(&fs::read(attempts[0].join("attempt.json")).unwrap()).unwrap();
    let failure = &record["failure"];
    assert_eq!(
        (&failure["role"], &failure["phase"], &failure["kind"]),
        (&"implementation".into(), &"execute".into(), &"worker_failure".into()),
        "the worker's own failure is the one recorded: {record}"
    );
    assert_eq!(temporary_folders(&folder), Vec::<PathBuf>::new(), "the TMPDIR went with its session");
    let mut deepest = attempts[0].join("work/result");
    for _ in 0..100 {
        deepest.push("d");
    }
    assert!(deepest.is_dir(), "the output folder keeps the nesting for the retry to remove");

    fs::remove_file(&marker).unwrap();
    let retried = metewand(&bench.run_args("nesting", "state", &["--retry-failed"]));
    let stderr = text(&retried.stderr);
    assert_eq!(retried.status.code(), Some(0), "{stderr}");
    assert!(text(&retried.stdout).contains("(1 attempts: 0 already done, 1 run now"), "{}", text(&retried.stdout));
    assert_eq!(outcomes(&folder).into_values().collect::<Vec<_>>(), ["reached"]);
    assert_eq!(temporary_folders(&folder), Vec::<PathBuf>::new(), "no TMPDIR is left after a normal attempt");
    assert_eq!(fs::read_to_string(outside.join("kept")).unwrap(), "kept", "the link out was not followed");
}

#[test]
fn under_j_2_each_slot_runs_on_cpus_of_its_own_that_its_workers_cannot_leave() {
    // Each solver tries to widen its affinity to every CPU (as a neighbour's CPU burners would), says which CPUs it
    // runs on afterwards (what it saw, not what the record says), and takes long enough at execute that both slots
    // run attempts.
    let bench = Bench::new(
        "\"--attack\", \"affinity@execute\", \"--fault\", \"affinity@execute\", \"--delay\", \"execute=300\"",
    );
    let output = metewand(&bench.run_args("main", "state", &["-j", "2"]));
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let cpus = std::thread::available_parallelism().unwrap().get();
    let folder = bench.folder("state", "main");
    let mut lists = BTreeMap::new();
    for entry in fs::read_dir(folder.join("attempts")).unwrap() {
        let dir = entry.unwrap().path();
        let record: Value = serde_json::from_slice(&fs::read(dir.join("attempt.json")).unwrap()).unwrap();
        assert_eq!(record["outcome"], "reached", "{record}");
        let placement = &record["implementation"]["cpus"];
        assert_eq!(placement["binding"], "locked", "{record}");
        let list: Vec<u64> = placement["list"].as_array().unwrap().iter().map(|cpu| cpu.as_u64().unwrap()).collect();
        *lists.entry(list.clone()).or_insert(0) += 1;
        let log = fs::read_to_string(dir.join("logs/implementation.log")).unwrap();
        assert!(log.contains("test-worker: attack affinity every-cpu: errno 1\n"), "EPERM: {log}");
        // The CPUs the worker itself ran on after its attack, in the kernel's list form, are the record's.
        let seen =
            log.lines().find_map(|line| line.strip_prefix("test-worker: cpus execute ")).expect("the worker's CPUs");
        let recorded: Vec<String> = list.iter().map(u64::to_string).collect();
        let expanded: Vec<String> = seen
            .split(',')
            .flat_map(|range| match range.split_once('-') {
                Some((from, to)) => {
                    (from.parse::<u64>().unwrap()..=to.parse().unwrap()).map(|cpu| cpu.to_string()).collect()
                }
                None => vec![range.to_owned()],
            })
            .collect();
        assert_eq!(expanded, recorded, "the worker ran where the record says: {log}");
        if cfg!(target_arch = "x86_64") {
            for abi in ["i386", "x32"] {
                assert!(log.contains(&format!("attack affinity every-cpu-{abi}: errno 1\n")), "EPERM: {log}");
            }
        }
    }
    if cpus < 2 {
        assert!(stderr.contains("cannot each get a CPU of their own"), "{stderr}");
        return;
    }
    let lists: Vec<&Vec<u64>> = lists.keys().collect();
    assert_eq!(lists.len(), 2, "two slots, each with its own CPUs: {lists:?}");
    assert!(lists[0].iter().all(|cpu| !lists[1].contains(cpu)), "disjoint: {lists:?}");
    assert_eq!(
        stderr.contains("leave no core for metewand's own threads"),
        cpus == 2,
        "metewand keeps a core of its own only when there is one to spare: {stderr}"
    );
}

/// A one-shot implementation on a problem and on its profile twin has the same inputs, hence the same attempt id:
/// the attempt is planned for both cells, run once, and reported under both, and no count says it ran twice.
#[test]
fn an_attempt_two_cells_share_is_run_once_and_reported_under_both() {
    let dir = tempfile::tempdir().unwrap();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/least-squares");
    let out = dir.path().join("twins");
    let args = |command: &str| -> Vec<String> {
        let mut args: Vec<String> = ["campaign", command].map(String::from).to_vec();
        args.push(example.to_str().unwrap().to_owned());
        for (flag, value) in [
            ("--problem", "ridge"),
            ("--problem", "ridge-profile"),
            ("--dataset", "small"),
            ("--implementation", "cholesky"),
            ("--state-dir", dir.path().join("state").to_str().unwrap()),
            ("--out", out.to_str().unwrap()),
        ] {
            args.extend([flag.to_owned(), value.to_owned()]);
        }
        args
    };
    let plan = metewand(&args("plan"));
    assert_eq!(plan.status.code(), Some(0), "{}", text(&plan.stderr));
    let stdout = text(&plan.stdout);
    assert!(
        stdout.contains("done         0 of 2 (1 to run, 1 served by another cell's attempt with the same inputs)\n"),
        "{stdout}"
    );

    let run = metewand(&args("run"));
    let (stdout, stderr) = (text(&run.stdout), text(&run.stderr));
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    assert!(
        stdout.contains("(2 attempts: 0 already done, 1 served by another cell's, 1 run now: 1 reached)"),
        "{stdout}"
    );
    assert!(stdout.contains("complete     2 of 2 with a verdict, 0 failed"), "{stdout}");
    assert!(stderr.contains("2 attempts planned, 0 already done, 1 served by another cell's attempt"), "{stderr}");
    assert_eq!(fs::read_dir(out.join("attempts")).unwrap().count(), 1, "one attempt folder");
    let csv = fs::read_to_string(out.join("results.csv")).unwrap();
    let rows: Vec<Vec<&str>> = csv.lines().skip(1).map(|line| line.split(',').collect()).collect();
    assert_eq!(rows.len(), 2, "a row for each cell: {csv}");
    assert_eq!(rows[0][0], rows[1][0], "the same attempt: {csv}");
    assert_eq!([rows[0][1], rows[1][1]], ["ridge", "ridge-profile"], "{csv}");
    assert_eq!([rows[0][7], rows[1][7]], ["reached", "reached"], "{csv}");

    let again = metewand(&args("run"));
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    assert!(text(&again.stdout).contains("(2 attempts: 1 already done, 1 served by another cell's, 0 run now)"));
    let status = metewand(&["campaign".to_owned(), "status".to_owned(), out.to_str().unwrap().to_owned()]);
    assert_eq!(status.status.code(), Some(0), "{}", text(&status.stderr));
    assert!(text(&status.stdout).contains("done         2 (reached 2)"), "{}", text(&status.stdout));
}

/// Workers started ahead are not warmed up: `--ahead` with a warm-up is refused in one sentence, before anything
/// starts.
#[test]
fn ahead_with_a_warm_up_is_refused_before_anything_starts() {
    let bench = Bench::new("");
    let output = metewand(&bench.run_args("main", "state", &["--ahead", "--warmup", "1"]));
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    let stderr = text(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("metewand: campaign run: --ahead starts each attempt's workers before it"), "{stderr}");
    assert!(!bench.folder("state", "main").join("attempts").exists(), "no attempt ran");
}

/// Workers started ahead are the default only where the executor keeps a CPU for each start the slots would make,
/// which one slot never does: `campaign plan -j 1` says so on any machine; `--ahead` asks for them (where there are
/// two CPUs or more), and the later of `--ahead` and `--no-ahead` wins.
#[test]
fn ahead_is_never_the_default_with_one_slot_and_the_later_flag_wins() {
    let bench = Bench::new("");
    let ahead = |extra: &[&str]| {
        let output = metewand(&bench.campaign_args("plan", "main", "state", extra));
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        let stdout = text(&output.stdout);
        let cpus = stdout.lines().find(|line| line.starts_with("cpus ")).unwrap_or_else(|| panic!("{stdout}"));
        cpus.contains("with the workers started ahead of their attempts")
    };
    assert!(!ahead(&[]), "-j 1 starts no worker ahead by default");
    assert!(!ahead(&["--ahead", "--no-ahead"]), "--no-ahead after --ahead");
    if metewand_runtime::cpus::CpuSet::of_current_thread().map_or(1, |cpus| cpus.len()) < 2 {
        metewand_testkit::skip(metewand_testkit::Requirement::TwoCpus, "one CPU keeps none for starting ahead");
        return;
    }
    assert!(ahead(&["--ahead"]), "--ahead asks for it");
    assert!(ahead(&["--no-ahead", "--ahead"]), "--ahead after --no-ahead");
}

/// Two campaigns of three repetitions on one instance: `race`, an implementation of the test worker that sleeps
/// 20 ms in `execute` against one that sleeps 60 ms (three times as long), and `twins`, two that both sleep 200 ms.
/// A loaded machine's jitter (a few ms an attempt, and more while the Slurm tests run beside) stays far below the
/// race's 40 ms and the 10% resolution the twins' test is given, so whether a pair is separated depends on the
/// decision rule, not on the machine's load: with 24 ms for the slower one, twelve repetitions of each under that
/// load once gave p = 0.84.
pub(crate) fn racing_bench() -> Bench {
    let bench = Bench::new(r#""--delay", "execute=20""#);
    let worker = |name: &str, delay: u32| {
        format!(
            "\n[workers.{name}]\nrole = \"implementation\"\ncommand = [\"{}\", \"serve\", \"--conformant\", \"--quiet\", \
             \"--delay\", \"execute={delay}\"]\nsource = \"src-solver\"\n\n[implementations.{name}]\nworker = \
             \"{name}\"\nparameters = {{ variant = \"{name}\" }}\n",
            test_worker().display()
        )
    };
    let campaign = |name: &str, first: &str, second: &str| {
        format!(
            "\n[campaigns.{name}]\ndatasets = [\"small\"]\nimplementations = [\"{first}\", \"{second}\"]\nrepetitions = 3\n"
        )
    };
    let path = bench.path("repo/metewand.toml");
    let toml = fs::read_to_string(&path).unwrap()
        + &worker("slow", 60)
        + &worker("alike", 200)
        + &worker("twin", 200)
        + &campaign("race", "solve", "slow")
        + &campaign("twins", "alike", "twin");
    fs::write(path, toml).unwrap();
    bench
}

/// Each attempt id of a folder's `results.jsonl` by (implementation, repetition).
pub(crate) fn ids_by_repetition(folder: &Path) -> BTreeMap<(String, u64), String> {
    fs::read_to_string(folder.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .map(|row| {
            let key = (row["implementation"].as_str().unwrap().to_owned(), row["repetition"].as_u64().unwrap());
            (key, row["attempt_id"].as_str().unwrap().to_owned())
        })
        .collect()
}

/// `--until-decided` adds repetitions only where the test leaves a pair undecided: an implementation three times as
/// slow is not separated by the three planned repetitions (the exact Mann–Whitney test of three against three
/// cannot reach p < 0.05), is separated once rounds add repetitions, with the ids those repetitions have in a plan
/// of that many, and a run again starts from what the folder holds; two implementations alike, with a resolution,
/// are never separated.
#[test]
fn until_decided_separates_a_slower_implementation_and_not_two_alike() {
    let bench = racing_bench();
    let capped = metewand(&bench.run_args("race", "state", &["--until-decided", "--max-repetitions", "3", "-q"]));
    let out = text(&capped.stdout);
    assert_eq!(capped.status.code(), Some(0), "{out}{}", text(&capped.stderr));
    assert!(out.contains("1 pairs after 1 rounds: 0 separated, 0 tied, 1 undecided at 3 repetitions"), "{out}");
    // Three against three: the smallest two-sided p is 0.1.
    assert!(out.contains("undecided    answer / small#0: solve#0 and slow#0 (p = "), "{out}");

    let decided = metewand(&bench.run_args("race", "state", &["--until-decided", "--max-repetitions", "12", "-q"]));
    let out = text(&decided.stdout);
    assert_eq!(decided.status.code(), Some(0), "{out}{}", text(&decided.stderr));
    assert!(out.contains(": 1 separated, 0 tied, 0 undecided at 12 repetitions"), "{out}");
    let folder = bench.folder("state", "race");
    let ids = ids_by_repetition(&folder);
    let given = ids.keys().filter(|(implementation, _)| implementation == "slow").count() as u64;
    assert!((4..=12).contains(&given), "repetitions were added: {ids:?}");
    assert_eq!(ids.keys().filter(|(implementation, _)| implementation == "solve").count() as u64, given);
    // The added repetitions have the ids of a plain run of that many.
    let (count, out) = (given.to_string(), bench.path("plain"));
    let plain = bench.run_args("race", "state", &["--repetitions", &count, "--out", out.to_str().unwrap(), "-q"]);
    assert_eq!(metewand(&plain).status.code(), Some(0));
    assert_eq!(ids_by_repetition(&bench.path("plain")), ids);
    // Run again, it takes the repetitions the folder holds as given: one round, nothing run.
    let again = metewand(&bench.run_args("race", "state", &["--until-decided", "--max-repetitions", "12", "-q"]));
    let out = text(&again.stdout);
    assert!(out.contains(&format!("{} already done, 0 run now", 2 * given)), "{out}");
    assert!(out.contains("1 pairs after 1 rounds: 1 separated"), "{out}");

    let twins = ["--until-decided", "--max-repetitions", "6", "--resolution", "0.1", "-q"];
    let alike = metewand(&bench.run_args("twins", "state", &twins));
    let out = text(&alike.stdout);
    assert_eq!(alike.status.code(), Some(0), "{out}{}", text(&alike.stderr));
    assert!(out.contains(": 0 separated, "), "two alike are never separated: {out}");
}

/// What `--until-decided` refuses on the racing bench, by `campaign run` and `campaign submit` alike: the campaign, the
/// arguments, and what the one sentence says.
pub(crate) const UNTIL_DECIDED_REFUSALS: [(&str, &[&str], &str); 6] = [
    ("main", &["--until-decided"], "compares implementations, and the campaign has only 1"),
    ("race", &["--until-decided", "--alpha", "0.7"], "--alpha is a significance level in (0, 0.5]"),
    ("race", &["--until-decided", "--alpha", "0"], "--alpha is a significance level in (0, 0.5]"),
    ("race", &["--until-decided", "--max-repetitions", "2"], "is under the 3 repetitions"),
    ("race", &["--until-decided", "--resolution", "-1"], "--resolution is a positive relative difference"),
    ("race", &["--alpha", "0.1"], "--until-decided"),
];

/// `--until-decided` refuses, in one sentence and exit 2, a campaign of one implementation, a level outside
/// (0, 0.5], a cap under the planned repetitions, and its options without it.
#[test]
fn until_decided_refuses_what_it_cannot_decide() {
    let bench = racing_bench();
    for (name, extra, expected) in UNTIL_DECIDED_REFUSALS {
        let output = metewand(&bench.run_args(name, "state", extra));
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{extra:?}: {stderr}");
        assert!(stderr.contains(expected), "{extra:?}: {stderr}");
        assert!(!bench.folder("state", name).join("attempts").exists(), "{extra:?}: nothing ran");
    }
}
