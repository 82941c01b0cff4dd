//! The conformance kit against workers that keep the protocol (the example's, the SDK's, the test worker's
//! conformant mode) and against the test worker breaking one rule at a time, each caught by the check that names
//! it.

use std::ffi::OsString;
use std::fs;
use std::path::Path;

use metewand_runtime::CheckedRepository;
use metewand_runtime::conformance::{self, BareCommand, Check, ConformanceOptions, Outcome, Report, Subject};
use metewand_runtime::protocol::common::Role;
use metewand_runtime::session::{FilesystemConfinement, MountConfinement};
use tempfile::TempDir;

use metewand_testkit::{ConfinementRequired, Requirement, skip};

use metewand_testkit::test_worker;

/// A repository whose three workers are the test worker in its conformant mode, with extra arguments per worker.
fn repository(materializer: &[&str], solver: &[&str], judge: &[&str]) -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("src")).unwrap();
    fs::write(dir.path().join("src/README"), "the test worker is an executable elsewhere\n").unwrap();
    let command = |extra: &[&str]| {
        let mut argv = vec![test_worker().to_str().unwrap().to_owned(), "serve".into(), "--conformant".into()];
        argv.extend(extra.iter().map(|arg| (*arg).to_owned()));
        serde_json::to_string(&argv).unwrap()
    };
    let toml = format!(
        r#"format = 1

[workers.gen]
role = "dataset_materializer"
command = {gen}
source = "src"

[workers.solver]
role = "implementation"
command = {solver}
source = "src"

[workers.judge]
role = "problem_evaluator"
command = {judge}
source = "src"

[datasets.small]
materializer = "gen"
parameters = {{ rows = 2 }}
output_schema = {{ type = "object", required = ["seed"] }}

[problems.answer]
evaluator = "judge"
parameters = {{}}
result_schema = {{ type = "object", required = ["seed"] }}
metric_schema = {{ type = "object", required = ["error"] }}

[implementations.solve]
worker = "solver"
parameters = {{}}
"#,
        gen = command(materializer),
        solver = command(solver),
        judge = command(judge),
    );
    fs::write(dir.path().join("metewand.toml"), toml).unwrap();
    dir
}

fn kit(repo: &Path, worker: &str, strict: bool) -> Report {
    let repository = CheckedRepository::load(repo).unwrap();
    let work = tempfile::tempdir().unwrap();
    let options = ConformanceOptions { strict, ..ConformanceOptions::new(work.path()) };
    let report =
        conformance::run(&Subject::Repository { repository: &repository, worker: worker.to_owned() }, &options)
            .unwrap();
    assert_eq!(fs::read_dir(work.path()).unwrap().count(), 0, "the kit removes its work folder");
    report
}

fn outcome(report: &Report, check: Check) -> Outcome {
    report.check(check).unwrap().outcome
}

/// Every check is in the report, in order; the failing ones are exactly `failing` (given in the report's order).
fn assert_fails(report: &Report, failing: &[Check]) {
    let order: Vec<Check> = report.checks.iter().map(|result| result.check).collect();
    assert_eq!(order, Check::ALL, "{report:#?}");
    let failed: Vec<Check> =
        report.checks.iter().filter(|result| result.outcome == Outcome::Fail).map(|result| result.check).collect();
    assert_eq!(failed, failing, "{report:#?}");
    assert_eq!(report.passed(), failing.is_empty(), "{report:#?}");
}

#[test]
fn the_conformant_test_worker_passes_every_check_of_every_role() {
    let repo = repository(&[], &[], &[]);
    for worker in ["gen", "solver", "judge"] {
        let report = kit(repo.path(), worker, true);
        assert_fails(&report, &[]);
        for result in &report.checks {
            let role_specific = matches!(result.check, Check::ExecuteBeforePrepare | Check::ResetThenAgain);
            // The conformant test worker reports only one_shot: it is not asked to stream.
            let expected = if (role_specific && worker != "solver") || result.check == Check::Streaming {
                Outcome::Skip
            } else {
                Outcome::Pass
            };
            assert_eq!(result.outcome, expected, "{worker}: {result:#?}");
        }
    }
}

#[test]
fn the_examples_workers_pass() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/least-squares");
    let repository = CheckedRepository::load(&example).unwrap();
    let before: Vec<_> = fs::read_dir(&example).unwrap().map(|entry| entry.unwrap().file_name()).collect();
    for worker in repository.workers().keys() {
        let work = tempfile::tempdir().unwrap();
        let subject = Subject::Repository { repository: &repository, worker: worker.clone() };
        let report = conformance::run(&subject, &ConformanceOptions::new(work.path())).unwrap();
        assert!(report.passed(), "{worker}: {report:#?}");
        assert_eq!(outcome(&report, Check::Outputs), Outcome::Pass, "{worker}");
        assert_eq!(outcome(&report, Check::Hello), Outcome::Pass, "{worker}");
    }
    let after: Vec<_> = fs::read_dir(&example).unwrap().map(|entry| entry.unwrap().file_name()).collect();
    assert_eq!(before, after, "the kit leaves the repository alone");
}

use metewand_testkit::sdk;

fn bare(role: Role, script: &str) -> BareCommand {
    let workers = sdk().join("tests/workers");
    BareCommand {
        role,
        command: vec!["python3".into(), workers.join(script).into()],
        source_dir: Some(workers),
        env: vec![(OsString::from("PYTHONPATH"), sdk().join("src").into())],
        dataset_dir: None,
        result_dir: None,
        network: false,
    }
}

#[test]
fn the_sdks_example_workers_pass_as_bare_commands() {
    for (role, script) in [
        (Role::DatasetMaterializer, "materializer.py"),
        (Role::Implementation, "implementation.py"),
        (Role::ProblemEvaluator, "evaluator.py"),
    ] {
        let work = tempfile::tempdir().unwrap();
        let report =
            conformance::run(&Subject::Command(bare(role, script)), &ConformanceOptions::new(work.path())).unwrap();
        assert_fails(&report, &[]);
        for check in [Check::Hello, Check::SecondHello, Check::OtherRole, Check::MalformedRequest, Check::UnusualIds] {
            assert_eq!(outcome(&report, check), Outcome::Pass, "{script} {check}: {report:#?}");
        }
        // Nothing to validate against, and (for an implementation or evaluator) no dataset: skipped, saying why.
        let outputs = report.check(Check::Outputs).unwrap();
        assert_eq!(outputs.outcome, Outcome::Skip, "{script}");
        assert!(!outputs.why.is_empty());
    }
}

#[test]
fn a_bare_implementation_given_a_dataset_runs_its_state_checks() {
    let repo = repository(&[], &[], &[]);
    let dataset = tempfile::tempdir().unwrap();
    fs::write(dataset.path().join("dataset-manifest.json"), "{\"complete\":true,\"data\":{},\"files\":[]}\n").unwrap();
    let mut command = vec![OsString::from(test_worker()), "serve".into(), "--conformant".into()];
    let work = tempfile::tempdir().unwrap();
    let subject = |command: Vec<OsString>| {
        Subject::Command(BareCommand {
            role: Role::Implementation,
            command,
            source_dir: Some(repo.path().join("src")),
            env: Vec::new(),
            dataset_dir: Some(dataset.path().to_owned()),
            result_dir: None,
            network: false,
        })
    };
    let report = conformance::run(&subject(command.clone()), &ConformanceOptions::new(work.path())).unwrap();
    assert_fails(&report, &[]);
    assert_eq!(outcome(&report, Check::ResetThenAgain), Outcome::Pass);
    command.extend(["--fault".into(), "execute-unprepared@execute".into()]);
    let report = conformance::run(&subject(command), &ConformanceOptions::new(work.path())).unwrap();
    assert_fails(&report, &[Check::ExecuteBeforePrepare]);
}

#[test]
fn accepting_a_second_hello_fails_second_hello() {
    let repo = repository(&[], &["--fault", "accept-second-hello@hello"], &[]);
    let report = kit(repo.path(), "solver", false);
    assert_fails(&report, &[Check::SecondHello]);
    assert_eq!(outcome(&report, Check::Hello), Outcome::Pass);
    let failed = report.check(Check::SecondHello).unwrap();
    assert!(failed.sent.as_deref().unwrap().contains("\"second-hello\""), "{failed:#?}");
    assert!(failed.received.as_deref().unwrap().contains("\"ok\":true"), "{failed:#?}");
}

#[test]
fn mangling_an_unusual_id_fails_unusual_ids_with_the_frames() {
    let repo = repository(&["--fault", "mangle-ids@hello"], &[], &[]);
    let report = kit(repo.path(), "gen", false);
    assert_fails(&report, &[Check::UnusualIds]);
    let failed = report.check(Check::UnusualIds).unwrap();
    assert!(failed.why.contains("came back as \"t-\""), "{failed:#?}");
    assert!(failed.sent.as_deref().unwrap().contains("été-🚀"), "{failed:#?}");
    assert!(failed.received.as_deref().unwrap().contains("\"id\":\"t-\""), "{failed:#?}");
    assert!(!failed.stderr_tail.is_empty(), "the test worker logs each request: {failed:#?}");
}

#[test]
fn executing_without_prepare_fails_execute_before_prepare() {
    let repo = repository(&[], &["--fault", "execute-unprepared@execute"], &[]);
    let report = kit(repo.path(), "solver", false);
    assert_fails(&report, &[Check::ExecuteBeforePrepare]);
    assert_eq!(outcome(&report, Check::ResetThenAgain), Outcome::Pass);
}

/// A reset that loses what the next execute needs fails `reset-then-again` (whose result after the reset is
/// checked against the first), alone: each other check starts a fresh session, which no reset has touched. The
/// check run alone, as campaigns run it before reusing a worker's sessions, says the same.
#[test]
fn losing_state_on_reset_fails_reset_then_again() {
    let repo = repository(&[], &["--fault", "corrupt@reset"], &[]);
    let report = kit(repo.path(), "solver", false);
    assert_fails(&report, &[Check::ResetThenAgain]);
    let why = &report.check(Check::ResetThenAgain).unwrap().why;
    let lost = "\"answer.txt\" is declared in the manifest but does not exist";
    assert!(why.starts_with("the result after reset was rejected") && why.ends_with(lost), "{why}");
    let corrupting = CheckedRepository::load(repo.path()).unwrap();
    let work = tempfile::tempdir().unwrap();
    let alone = |worker: &str| {
        let subject = Subject::Repository { repository: &corrupting, worker: worker.to_owned() };
        conformance::reset_then_again(&subject, &ConformanceOptions::new(work.path())).unwrap()
    };
    let result = alone("solver");
    assert_eq!(result.outcome, Outcome::Fail);
    assert!(result.why.starts_with("the result after reset was rejected") && result.why.ends_with(lost), "{result:?}");
    assert_eq!(alone("judge").outcome, Outcome::Skip, "only for an implementation");
    assert_eq!(fs::read_dir(work.path()).unwrap().count(), 0, "the kit removes its work folder");
    let honest = repository(&[], &[], &[]);
    let honest = CheckedRepository::load(honest.path()).unwrap();
    let subject = Subject::Repository { repository: &honest, worker: "solver".to_owned() };
    let result = conformance::reset_then_again(&subject, &ConformanceOptions::new(work.path())).unwrap();
    assert_eq!(result.outcome, Outcome::Pass, "{result:?}");
    assert!(result.why.contains("the result after reset is valid as before it"), "{result:?}");
}

#[test]
fn a_streaming_worker_is_checked_and_each_broken_rule_fails_streaming() {
    let streaming = ["--capabilities", "one_shot,streaming_profile"];
    let repo = repository(&[], &streaming, &[]);
    let report = kit(repo.path(), "solver", true);
    assert_fails(&report, &[]);
    let result = report.check(Check::Streaming).unwrap();
    assert_eq!(result.outcome, Outcome::Pass, "{result:#?}");
    assert!(result.why.starts_with("checkpoints 1 and 2 in order"), "{result:#?}");
    for (mode, expected) in [
        ("ignore-stop", "checkpoint 3 came after checkpoint 2 was answered with continue false"),
        ("no-wait", "the worker wrote output after checkpoint 1 before it was answered"),
        ("out-of-order", "checkpoint 3 is out of order: the next checkpoint is 2"),
        ("wrong-manifest", "checkpoint 1 names its manifest \"result.json\""),
        ("other-id", "checkpoint 1 has id"),
    ] {
        let mut args = streaming.to_vec();
        args.extend(["--stream", mode]);
        let repo = repository(&[], &args, &[]);
        let report = kit(repo.path(), "solver", false);
        assert_fails(&report, &[Check::Streaming]);
        let why = &report.check(Check::Streaming).unwrap().why;
        assert!(why.contains(expected), "{mode}: {why}");
    }
    // A checkpoint changed later is not the conformance kit's: each checkpoint is valid when it is sealed.
    let mut args = streaming.to_vec();
    args.extend(["--stream", "change-earlier"]);
    let repo = repository(&[], &args, &[]);
    assert_fails(&kit(repo.path(), "solver", false), &[]);
}

#[test]
fn writing_non_frames_to_stdout_fails_stdout_frames_only() {
    let repo = repository(&[], &["--fault", "junk-stdout@prepare"], &[]);
    let report = kit(repo.path(), "solver", false);
    // The sessions that prepare fail there too: the line before the answer breaks their exchange.
    assert_fails(&report, &[Check::ResetThenAgain, Check::Outputs, Check::StdoutFramesOnly]);
    assert_eq!(outcome(&report, Check::Hello), Outcome::Pass);
    let failed = report.check(Check::StdoutFramesOnly).unwrap();
    assert!(failed.why.contains("not a frame"), "{failed:#?}");
}

#[test]
fn leaving_a_process_behind_fails_nothing_left_running() {
    // The sleeper's pid file goes to the worker's TMPDIR, which a confined worker may write.
    let repo = repository(&[], &["--fault", "spawn-sleeper@prepare"], &[]);
    let report = kit(repo.path(), "solver", false);
    assert_fails(&report, &[Check::NothingLeftRunning]);
    let why = &report.check(Check::NothingLeftRunning).unwrap().why;
    assert!(why.contains("process(es) of the worker's were still running"), "{why}");
}

#[test]
fn leaving_a_setsid_daemon_behind_fails_nothing_left_running() {
    // The daemon is in neither the worker's session nor its group; its PID namespace is what makes it the worker's.
    let repo = repository(&[], &["--fault", "daemonize@prepare"], &[]);
    let report = kit(repo.path(), "solver", false);
    assert_fails(&report, &[Check::NothingLeftRunning]);
    let why = &report.check(Check::NothingLeftRunning).unwrap().why;
    assert!(why.contains("process(es) of the worker's were still running"), "{why}");
}

#[test]
fn a_seed_independent_worker_says_so_and_keeps_strict_for_the_rest() {
    // A solver whose output ignores its seed: a warning (and a strict failure) unless it declares itself so.
    let repo = repository(&[], &["--fault", "ignore-seed@execute"], &[]);
    let report = kit(repo.path(), "solver", false);
    let determinism = report.check(Check::Determinism).unwrap();
    assert_eq!(determinism.outcome, Outcome::Warn, "{report:#?}");
    assert!(determinism.why.contains("deterministic = \"seed-independent\""), "{determinism:#?}");
    assert_fails(&kit(repo.path(), "solver", true), &[Check::Determinism]);

    let toml = repo.path().join("metewand.toml");
    let text = fs::read_to_string(&toml).unwrap();
    let declared = text.replace("[workers.solver]\n", "[workers.solver]\ndeterministic = \"seed-independent\"\n");
    fs::write(&toml, &declared).unwrap();
    let strict = kit(repo.path(), "solver", true);
    assert_fails(&strict, &[]);
    let determinism = strict.check(Check::Determinism).unwrap();
    assert_eq!(determinism.outcome, Outcome::Pass, "{strict:#?}");
    assert!(determinism.why.contains("as a seed-independent worker's must"), "{determinism:#?}");

    // The declaration is a claim the kit holds the worker to: one that does use its seed is warned about.
    let honest = declared.replace(",\"--fault\",\"ignore-seed@execute\"", "");
    assert_ne!(honest, declared);
    fs::write(&toml, honest).unwrap();
    let report = kit(repo.path(), "solver", false);
    let determinism = report.check(Check::Determinism).unwrap();
    assert_eq!(determinism.outcome, Outcome::Warn, "{report:#?}");
    assert!(determinism.why.contains("though the worker declares"), "{determinism:#?}");
}

#[test]
fn nondeterministic_output_is_a_warning_and_a_failure_when_strict() {
    let repo = repository(&["--fault", "nondeterministic@materialize"], &[], &[]);
    let report = kit(repo.path(), "gen", false);
    assert_fails(&report, &[]);
    let determinism = report.check(Check::Determinism).unwrap();
    assert_eq!(determinism.outcome, Outcome::Warn, "{report:#?}");
    assert!(determinism.why.contains("rows.csv has another content"), "{determinism:#?}");
    let strict = kit(repo.path(), "gen", true);
    assert_fails(&strict, &[Check::Determinism]);
}

#[test]
fn a_wrong_worker_id_fails_hello_and_skips_the_rest() {
    let repo = repository(&[], &[], &["--fault", "wrong-worker-id@hello"]);
    let report = kit(repo.path(), "judge", false);
    assert_fails(&report, &[Check::Hello]);
    assert!(report.checks[1..].iter().all(|result| result.outcome == Outcome::Skip), "{report:#?}");
    let hello = report.check(Check::Hello).unwrap();
    assert!(hello.sent.as_deref().unwrap().contains("\"method\":\"hello\""));
}

#[test]
fn an_unclean_exit_after_shutdown_fails_shutdown() {
    let repo = repository(&[], &[], &["--fault", "answer-then-exit@shutdown"]);
    let report = kit(repo.path(), "judge", false);
    // Every session that ends with the shutdown it checks fails there: the unknown-fields and outputs sessions too.
    assert_fails(&report, &[Check::UnknownFields, Check::Outputs, Check::Shutdown]);
    let shutdown = report.check(Check::Shutdown).unwrap();
    assert!(shutdown.why.contains("did not exit with status 0 (exit status: 3)"), "{shutdown:#?}");
}

#[test]
fn a_worker_that_ignores_roles_and_rules_fails_their_checks() {
    // The plain test worker serves every method whatever its role and exits on a request it cannot decode.
    let dir = repository(&[], &[], &[]);
    let toml = fs::read_to_string(dir.path().join("metewand.toml")).unwrap();
    fs::write(dir.path().join("metewand.toml"), toml.replace(",\"--conformant\"", "")).unwrap();
    let report = kit(dir.path(), "solver", false);
    // It exits on the malformed requests, so the checks that share their session fail as well: the session is
    // unusable once its worker is gone.
    let failing = [
        Check::SecondHello,
        Check::OtherRole,
        Check::MalformedRequest,
        Check::UnknownFields,
        Check::UnusualIds,
        Check::ExecuteBeforePrepare,
        Check::Shutdown,
    ];
    assert_fails(&report, &failing);
    let second = report.check(Check::SecondHello).unwrap();
    assert!(second.why.contains("accepted (ok: true), not refused"), "{second:#?}");
    let early = report.check(Check::ExecuteBeforePrepare).unwrap();
    assert!(early.why.contains("answered with a result although nothing was prepared"), "{early:#?}");
}

/// The kit runs a worker confined as an attempt does: an implementation that, on every `execute` of the kit's
/// sessions, tries to write a folder of the test's and `/tmp`, answers with the kernel's answer to each try (a
/// failure whose message the kit shows as evidence), and the checks that execute fail with exactly that evidence:
/// a refusal for each target (`errno 13` under Landlock; in the private view also absent or read-only). Nothing is
/// written.
#[test]
fn the_kit_runs_workers_confined_so_writes_outside_their_output_fail() {
    let elsewhere = tempfile::tempdir().unwrap();
    let targets = [
        elsewhere.path().join("planted"),
        std::env::temp_dir().join(format!("metewand-conformance-planted-{}", std::process::id())),
    ];
    let mut solver = vec!["--attack", "write@execute", "--answer-attacks"];
    for target in &targets {
        solver.extend(["--target", target.to_str().unwrap()]);
    }
    let repo = repository(&[], &solver, &[]);
    let report = kit(repo.path(), "solver", false);
    assert_fails(&report, &[Check::ResetThenAgain, Check::Outputs]);
    let confinement = report.confinement.expect("the kit's sessions started");
    let filesystem = confinement.filesystem;
    // In the private view a hidden target is absent (ENOENT) or in an empty read-only folder (EROFS).
    let refusals: &[&str] = match confinement.mounts {
        MountConfinement::Private => &["errno 13", "errno 2", "errno 30"],
        MountConfinement::Host => &["errno 13"],
    };
    if ConfinementRequired::from_env().landlock_abi >= 1 {
        assert!(matches!(filesystem, FilesystemConfinement::Landlock { .. }), "{filesystem:?}");
    }
    for check in [Check::ResetThenAgain, Check::Outputs] {
        let received = report.check(check).unwrap().received.clone().unwrap_or_default();
        for target in &targets {
            let line = format!("test-worker: attack write {}: ", target.display());
            let answer =
                received.split(&line).nth(1).unwrap_or_else(|| panic!("{check}: no attempt on {line}: {received}"));
            if filesystem == FilesystemConfinement::None {
                // The fallback without Landlock: the write went through, as documented.
                assert!(answer.starts_with("ok"), "{check}: {received}");
                assert_eq!(fs::read_to_string(target).unwrap(), "forged");
            } else {
                assert!(refusals.iter().any(|refusal| answer.starts_with(refusal)), "{check}: {received}");
                assert!(!target.exists(), "{} was written during the kit's run", target.display());
            }
        }
    }
    if filesystem == FilesystemConfinement::None {
        fs::remove_file(&targets[1]).unwrap();
        skip(Requirement::Landlock(1), "the kit's workers ran without Landlock: their writes went through");
    }
}
