//! A run's outcome and exit status: the example's verdicts, usage and repository errors, and workers that fail,
//! crash, hang or break the protocol.

use std::fs;
use std::path::PathBuf;

use serde_json::{Value, json};

use super::{
    Bench, evaluator_never_evaluated, example, failed, log, paused_evaluator, record, replace_worker, run_args,
    staging_folders, tree,
};
use crate::{run as metewand, text};

#[test]
fn the_direct_solver_reaches_the_verdict_in_place_and_a_second_attempt_reuses_the_dataset() {
    // Whatever the checkout already holds (a user may have run the example in place, leaving its `.metewand/`),
    // these runs add nothing to it.
    let before = tree(&example());
    let bench = Bench::empty();
    let state = bench.state();
    let out = bench.out("first");
    let mut args = run_args(&example(), "cholesky", &state);
    args.extend(["--out".to_owned(), out.to_str().unwrap().to_owned()]);
    let first = metewand(&args);
    let stdout = text(&first.stdout);
    assert_eq!(first.status.code(), Some(0), "stdout: {stdout}\nstderr: {}", text(&first.stderr));
    assert!(stdout.starts_with("outcome      reached (verdict: reached)\n"), "{stdout}");
    assert!(stdout.contains("measured by metewand; worker reported"), "{stdout}");
    assert!(stdout.contains(&format!("attempt      {}", out.display())), "{stdout}");
    let first = record(&out);
    assert_eq!(first["verdict"], "reached");
    assert_eq!(first["failure"], Value::Null);
    assert_eq!(first["dataset"]["reused"], false);
    assert_eq!((&first["dataset"]["seed"], &first["implementation"]["seed"]), (&0.into(), &0.into()));
    assert_eq!(first["repository"], example().to_str().unwrap());
    assert!(first["metrics"]["relative_gap"].is_number(), "{}", first["metrics"]);
    let phases: Vec<(&str, &str)> = first["phases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|phase| (phase["role"].as_str().unwrap(), phase["phase"].as_str().unwrap()))
        .collect();
    let expected = [
        ("dataset_materializer", "hello"),
        ("dataset_materializer", "materialize"),
        ("dataset_materializer", "shutdown"),
        ("implementation", "hello"),
        ("implementation", "prepare"),
        ("implementation", "execute"),
        ("implementation", "shutdown"),
        ("problem_evaluator", "hello"),
        ("problem_evaluator", "evaluate"),
        ("problem_evaluator", "shutdown"),
    ];
    assert_eq!(phases, expected);
    for role in ["dataset_materializer", "implementation", "problem_evaluator"] {
        assert!(out.join("logs").join(format!("{role}.log")).is_file());
    }
    // The attempt keeps what a reader needs; each worker ran in the store's read-only copy of its own folder, with
    // the shared package where the worker includes it.
    let mut kept: Vec<String> = fs::read_dir(out.join("work"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    kept.sort_unstable();
    assert_eq!(kept, ["metrics", "result"]);
    let mut copies: Vec<Vec<String>> = fs::read_dir(state.join("sources"))
        .unwrap()
        .map(|entry| {
            let copy = entry.unwrap().path();
            assert!(fs::metadata(&copy).unwrap().permissions().readonly(), "{}", copy.display());
            let mut files: Vec<String> = ["generate.py", "cholesky.py", "judge.py", "ridge/__init__.py"]
                .into_iter()
                .filter(|file| copy.join(file).is_file())
                .map(str::to_owned)
                .collect();
            files.sort_unstable();
            files
        })
        .collect();
    copies.sort_unstable();
    assert_eq!(
        copies,
        [vec!["cholesky.py", "ridge/__init__.py"], vec!["generate.py"], vec!["judge.py", "ridge/__init__.py"]]
    );
    let key = first["dataset"]["key"].as_str().unwrap();
    let entry = state.join("datasets").join(key);
    assert!(fs::metadata(entry.join("matrix.csv")).unwrap().permissions().readonly(), "published read-only");

    // The second attempt, in a default attempt folder, reuses the verified dataset; seeds are recorded.
    let mut args = run_args(&example(), "cholesky-direct", &state);
    args.extend(["--implementation-seed".to_owned(), "7".to_owned()]);
    let second = metewand(&args);
    assert_eq!(second.status.code(), Some(0), "{}", text(&second.stderr));
    let attempts: Vec<PathBuf> =
        fs::read_dir(state.join("attempts")).unwrap().map(|entry| entry.unwrap().path()).collect();
    assert_eq!(attempts.len(), 1);
    let second = record(&attempts[0]);
    assert_eq!(second["dataset"]["reused"], true);
    assert_eq!(second["dataset"]["key"], key);
    assert_eq!(second["dataset"]["materializer"]["sdk"], Value::Null, "the materializer did not run");
    assert_eq!(second["implementation"]["sdk"], Value::Null, "a direct protocol worker");
    assert_eq!(second["implementation"]["seed"], 7);
    assert_eq!(second["logs"]["dataset_materializer"], Value::Null);
    assert_eq!(tree(&example()), before, "nothing is written into the checkout");
}

#[test]
fn the_conjugate_gradient_streams_a_profile_whose_residual_falls_as_its_time_grows() {
    let bench = Bench::new();
    let mut args = bench.args("cg", "profile");
    let problem = args.iter().position(|arg| arg == "ridge").unwrap();
    args[problem] = "ridge-profile".to_owned();
    let output = metewand(&args);
    assert_eq!(output.status.code(), Some(0), "stderr: {}", text(&output.stderr));
    let stdout = text(&output.stdout);
    let line = stdout.lines().find(|line| line.starts_with("profile      ")).expect("a profile line");
    assert!(line.contains(" checkpoints, the last at ") && line.contains("; first reached: checkpoint "), "{line}");
    let record = record(&bench.out("profile"));
    assert_eq!(record["implementation"]["selected"], json!(["streaming_profile"]));
    let profile = record["implementation"]["profile"].as_array().expect("a profile");
    assert!(profile.len() >= 10, "{profile:?}");
    let times: Vec<u64> = profile.iter().map(|point| point["time_ns"].as_u64().unwrap()).collect();
    assert!(times.windows(2).all(|pair| pair[0] < pair[1]), "the times grow: {times:?}");
    let residuals: Vec<f64> = profile.iter().map(|point| point["metrics"]["residual"].as_f64().unwrap()).collect();
    // Conjugate gradients on this dataset: the residual falls at each checkpoint until it is at rounding level.
    for pair in residuals.windows(2) {
        assert!(pair[1] < pair[0] || pair[0] < 1e-9, "the residual falls: {residuals:?}");
    }
    assert!(residuals[0] > 1.0 && *residuals.last().unwrap() < 1e-9, "{residuals:?}");
    let verdicts: Vec<&str> = profile.iter().map(|point| point["verdict"].as_str().unwrap()).collect();
    assert_eq!(verdicts[0], "not_reached");
    assert_eq!(*verdicts.last().unwrap(), "reached");
    // The execute phase is the executor's time, the held intervals left out: the last checkpoint came within it.
    let execute = record["phases"].as_array().unwrap().iter().find(|phase| phase["phase"] == "execute").unwrap();
    assert!(execute["duration_ns"].as_u64().unwrap() >= *times.last().unwrap(), "{execute}");
}

#[test]
fn too_few_iterations_do_not_reach_the_verdict() {
    let bench = Bench::empty();
    let out = bench.out("attempt");
    let mut args = run_args(&example(), "cg-too-few", &bench.state());
    args.extend(["--out".to_owned(), out.to_str().unwrap().to_owned()]);
    let output = metewand(&args);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let record = record(&out);
    assert_eq!((&record["outcome"], &record["verdict"]), (&"not_reached".into(), &"not_reached".into()));
    assert_eq!(record["implementation"]["statistics"]["iterations"], 2);
}

#[test]
fn tampering_with_the_result_after_its_manifest_is_invalid_output() {
    let bench = Bench::new();
    bench.misbehaving_implementation("tamper", "tamper");
    let output = bench.run("tamper", "attempt");
    let record = failed(&output, &bench.out("attempt"), "implementation", "execute", "invalid_output");
    assert!(record["failure"]["message"].as_str().unwrap().contains("solution.json"), "{}", record["failure"]);
    assert_eq!(record["implementation"]["files"], Value::Null);
    assert_eq!(record["verdict"], Value::Null);
}

#[test]
fn an_out_folder_is_made_with_its_missing_parents() {
    let bench = Bench::new();
    let output = bench.run("cholesky", "not/yet/there");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(record(&bench.out("not/yet/there"))["outcome"], "reached");
}

#[test]
fn a_broken_repository_starts_no_attempt() {
    let bench = Bench::new();
    bench.replace("format = 1", "format = 1\nbogus = true");
    let output = bench.run("cholesky", "attempt");
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("metewand.toml:") && stderr.ends_with('\n'), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one sentence: {stderr}");
    assert!(!bench.out("attempt").exists() && !bench.state().exists(), "nothing was touched");
}

#[test]
fn usage_errors_and_a_non_empty_out_start_no_attempt() {
    let bench = Bench::new();
    let unknown = bench.run("no-such-implementation", "attempt");
    assert_eq!(unknown.status.code(), Some(2));
    assert!(text(&unknown.stderr).contains("no implementation named \"no-such-implementation\""));
    fs::create_dir(bench.out("full")).unwrap();
    fs::write(bench.out("full/keep.txt"), "mine").unwrap();
    let full = bench.run("cholesky", "full");
    assert_eq!(full.status.code(), Some(2));
    assert!(text(&full.stderr).contains("is not empty"), "{}", text(&full.stderr));
    assert_eq!(fs::read_dir(bench.out("full")).unwrap().count(), 1, "nothing touched");
    let missing = metewand(&["run".to_owned(), bench.repo().to_str().unwrap().to_owned()]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("--problem <P>"));
    let help = metewand(&["run".to_owned(), "--help".to_owned()]);
    assert_eq!(help.status.code(), Some(0));
    for flag in ["--problem", "--dataset", "--implementation", "--dataset-seed", "--implementation-seed", "--out"] {
        assert!(text(&help.stdout).contains(flag), "{flag}");
    }
    assert!(!bench.state().exists());
}

#[test]
fn a_worker_command_that_does_not_exist_is_spawn_failed() {
    let bench = Bench::new();
    bench.replace("command = [\"python3\", \"cholesky.py\"]", "command = [\"metewand-no-such-program\"]");
    let output = bench.run("cholesky", "attempt");
    let record = failed(&output, &bench.out("attempt"), "implementation", "hello", "spawn_failed");
    let message = record["failure"]["message"].as_str().unwrap();
    assert!(message.contains("cannot start \"metewand-no-such-program\": No such file"), "{message}");
    assert!(text(&output.stdout).contains("small seed 0 (materialized)"), "{}", text(&output.stdout));
    assert_eq!(record["implementation"]["capabilities"], Value::Null);
    assert_eq!(record["logs"]["implementation"], "logs/implementation.log");
    // An evaluator started beside waits for the implementation's hello, which never comes: it starts all the same,
    // and is ended after its own.
    evaluator_never_evaluated(&record);
}

#[test]
fn a_materializer_that_cannot_start_names_its_program_and_the_summary_says_materialization_failed() {
    let bench = Bench::new();
    bench.replace("command = [\"python3\", \"generate.py\"]", "command = [\"python3x-metewand-missing\"]");
    let output = bench.run("cholesky", "attempt");
    let record = failed(&output, &bench.out("attempt"), "dataset_materializer", "hello", "spawn_failed");
    let message = record["failure"]["message"].as_str().unwrap();
    assert!(
        message.contains("cannot start \"python3x-metewand-missing\": No such file or directory (os error 2)"),
        "{message}"
    );
    let stdout = text(&output.stdout);
    assert!(stdout.contains("cannot start \"python3x-metewand-missing\""), "{stdout}");
    let dataset_line = stdout.lines().find(|line| line.starts_with("dataset ")).unwrap();
    assert!(dataset_line.contains("(materialization failed)"), "{stdout}");
    assert_eq!(record["dataset"]["files"], Value::Null);
}

#[test]
fn a_crashing_worker_is_worker_exit_with_its_log_kept() {
    let bench = Bench::new();
    bench.misbehaving_implementation("crash", "crash");
    let output = bench.run("crash", "attempt");
    failed(&output, &bench.out("attempt"), "implementation", "execute", "worker_exit");
    assert!(log(&bench.out("attempt"), "implementation").contains("executing in mode crash"));
    let stdout = text(&output.stdout);
    let log = bench.out("attempt/logs/implementation.log");
    assert!(stdout.contains(&format!("worker log   {}\n", log.display())), "{stdout}");
}

#[test]
fn a_worker_that_dies_before_hello_says_why_through_its_last_stderr_line_made_printable() {
    let bench = Bench::new();
    bench.worker_file(
        "no_sdk.py",
        "import sys\nsys.stderr.write('Traceback (most recent call last):\\n')\n\
         sys.stderr.write(\"\\x1b[2JModuleNotFoundError: No module named 'metewand'\\n\\n\")\nsys.exit(1)\n",
    );
    bench.append(
        "\n[workers.no-sdk]\nrole = \"implementation\"\ncommand = [\"python3\", \"no_sdk.py\"]\nsource = \"workers\"\n\n\
         [implementations.no-sdk]\nworker = \"no-sdk\"\nparameters = {}\n",
    );
    let output = bench.run("no-sdk", "attempt");
    let record = failed(&output, &bench.out("attempt"), "implementation", "hello", "worker_exit");
    let message = record["failure"]["message"].as_str().unwrap();
    assert!(
        message.ends_with("its stderr ended with: \\u{1b}[2JModuleNotFoundError: No module named 'metewand'"),
        "{message}"
    );
    let stdout = text(&output.stdout);
    assert!(stdout.contains("No module named 'metewand'") && !stdout.contains('\u{1b}'), "{stdout}");
}

#[test]
fn garbage_on_stdout_is_a_protocol_violation() {
    let bench = Bench::new();
    bench.misbehaving_implementation("garbage", "garbage");
    let output = bench.run("garbage", "attempt");
    failed(&output, &bench.out("attempt"), "implementation", "execute", "protocol_violation");
    assert!(log(&bench.out("attempt"), "implementation").contains("executing in mode garbage"));
}

#[test]
fn a_hanging_worker_ends_at_its_phase_limit_or_its_scientific_budget() {
    let bench = Bench::new();
    bench.misbehaving_implementation("hang", "hang");
    bench.replace("execute = 120", "execute = 1");
    let output = bench.run("hang", "phase");
    failed(&output, &bench.out("phase"), "implementation", "execute", "phase_timeout");
    assert!(log(&bench.out("phase"), "implementation").contains("executing in mode hang"));
    bench.replace("execute = 1", "execute = 120");
    bench.replace("implementation = 120", "implementation = 1.5");
    let output = bench.run("hang", "budget");
    failed(&output, &bench.out("budget"), "implementation", "execute", "scientific_timeout");
}

#[test]
fn a_worker_reported_failure_keeps_its_code_and_details() {
    let bench = Bench::new();
    bench.misbehaving_implementation("fail", "fail");
    let output = bench.run("fail", "attempt");
    let record = failed(&output, &bench.out("attempt"), "implementation", "execute", "worker_failure");
    assert_eq!(record["failure"]["code"], "operation_failed");
    assert_eq!(record["failure"]["details"], json!({"iterations": 100}));
    assert!(record["failure"]["message"].as_str().unwrap().contains("did not converge"));
}

#[test]
fn exiting_non_zero_after_shutdown_is_worker_exit_in_shutdown() {
    let bench = Bench::new();
    bench.misbehaving_implementation("unclean", "unclean-exit");
    let output = bench.run("unclean", "attempt");
    let record = failed(&output, &bench.out("attempt"), "implementation", "shutdown", "worker_exit");
    assert_eq!(record["implementation"]["files"], Value::Null, "nothing was validated");
    assert_eq!(record["metrics"], Value::Null, "the evaluator, started beside the implementation, never evaluated");
}

#[test]
fn a_materializer_whose_output_is_invalid_publishes_nothing() {
    let bench = Bench::new();
    let text = "import metewand\nfrom generate import Generate\n\nclass Bad(Generate):\n    \
                def materialize(self, source_dir, parameters, seed, output):\n        \
                super().materialize(source_dir, parameters, seed, output)\n        output.data = {}\n\n\
                metewand.run(Bad)\n";
    replace_worker(&bench, "generate.py", "bad_generate.py", text);
    let output = bench.run("cholesky", "attempt");
    let record = failed(&output, &bench.out("attempt"), "dataset_materializer", "materialize", "invalid_output");
    assert_eq!(record["dataset"]["reused"], false);
    assert_eq!(record["dataset"]["files"], Value::Null);
    assert_eq!(record["logs"]["implementation"], Value::Null, "the implementation never ran");
    assert!(staging_folders(&bench.state()).is_empty(), "nothing published, nothing left");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("small seed 0 (materialization failed)"), "{stdout}");
}

#[test]
fn an_evaluator_that_changes_the_result_is_invalid_output_beside_its_verdict() {
    // The evaluator cannot write the result any more; the test changes it while the evaluator's session runs.
    let bench = Bench::new();
    let output = paused_evaluator(&bench, || fs::write(bench.out("attempt/work/result/solution.json"), "{}").unwrap());
    let record = failed(&output, &bench.out("attempt"), "problem_evaluator", "evaluate", "invalid_output");
    assert_eq!(record["verdict"], "reached", "a verdict already obtained is recorded beside the failure");
    assert!(record["failure"]["message"].as_str().unwrap().contains("the result changed"), "{}", record["failure"]);
    assert_eq!(record["metrics"], Value::Null);
}
