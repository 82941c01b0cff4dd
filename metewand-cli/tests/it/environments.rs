//! The Python distributions a worker imports, recorded without running anything: a virtual environment made by
//! the test (its `pyvenv.cfg`, its `bin/python3` and a `dist-info` folder as installing a wheel leaves it) whose
//! `python3` is the test worker, so that what is read is the environment's files and nothing an interpreter says;
//! and `identity = ["environment"]`, with which an upgrade in a real virtual environment gives new attempt ids.

use std::fs;
use std::path::Path;

use crate::campaign::{Bench, any_record, path_with};
use crate::{command, run as metewand, text};
use metewand_testkit::test_worker;

/// Installs `numpy` at `version` in the environment `venv`, as a wheel's installer leaves it, replacing any other.
fn install(venv: &Path, version: &str) {
    let site = venv.join("lib/python3.12/site-packages");
    for entry in fs::read_dir(&site).unwrap() {
        fs::remove_dir_all(entry.unwrap().path()).unwrap();
    }
    let info = site.join(format!("numpy-{version}.dist-info"));
    fs::create_dir_all(&info).unwrap();
    fs::write(info.join("METADATA"), format!("Metadata-Version: 2.1\nName: numpy\nVersion: {version}\n\nText.\n"))
        .unwrap();
    fs::write(info.join("RECORD"), format!("numpy/__init__.py,sha256=x,1\nnumpy-{version}.dist-info/RECORD,,\n"))
        .unwrap();
}

/// A virtual environment under the bench whose `python3` is the test worker, and the solver's command naming
/// `python3`, found on `PATH`.
fn solver_in_environment(bench: &Bench) -> std::path::PathBuf {
    let venv = bench.path("venv");
    fs::create_dir_all(venv.join("bin")).unwrap();
    fs::create_dir_all(venv.join("lib/python3.12/site-packages")).unwrap();
    fs::write(venv.join("pyvenv.cfg"), "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.12.3\n")
        .unwrap();
    std::os::unix::fs::symlink(test_worker(), venv.join("bin/python3")).unwrap();
    install(&venv, "1.26.4");
    let toml = fs::read_to_string(bench.path("repo/metewand.toml")).unwrap();
    let declared =
        format!("command = [\"{}\", \"serve\", \"--conformant\", \"--quiet\", \"--quiet\"]", test_worker().display());
    assert!(toml.contains(&declared), "{toml}");
    let toml =
        toml.replacen(&declared, "command = [\"python3\", \"serve\", \"--conformant\", \"--quiet\", \"--quiet\"]", 1);
    fs::write(bench.path("repo/metewand.toml"), toml).unwrap();
    venv
}

/// A record names the distributions its Python worker imported, `campaign.json` those its command finds, and a
/// changed version is named by `plan` and `run` (the attempts kept) until `--rerun-changed` runs them again.
#[test]
fn a_changed_distribution_is_recorded_named_by_plan_and_run_again_with_rerun_changed() {
    let bench = Bench::new("");
    let venv = solver_in_environment(&bench);
    let in_env = |args: Vec<String>| {
        let mut command = command(&args);
        command.env("PATH", path_with(&venv.join("bin")));
        command.output().unwrap()
    };
    let first = in_env(bench.run_args("main", "state", &[]));
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let record = any_record(&bench.folder("state", "main"));
    let environment = &record["implementation"]["environment"];
    let site = venv.join("lib/python3.12/site-packages");
    assert_eq!(environment["site_packages"], serde_json::json!([site.to_str().unwrap()]), "{environment}");
    assert_eq!(environment["distributions"][0]["name"], "numpy", "{environment}");
    assert_eq!(environment["distributions"][0]["version"], "1.26.4", "{environment}");
    let record_file = fs::read(site.join("numpy-1.26.4.dist-info/RECORD")).unwrap();
    let digest = metewand_runtime::Sha256Digest::of(&record_file).to_string();
    assert_eq!(environment["distributions"][0]["record_sha256"].as_str(), Some(digest.as_str()), "{environment}");
    assert!(record["evaluator"]["environment"].is_null(), "the evaluator is not Python: {record}");
    let campaign: serde_json::Value =
        serde_json::from_slice(&fs::read(bench.folder("state", "main").join("campaign.json")).unwrap()).unwrap();
    let solver =
        campaign["runs"][0]["environment"]["workers"].as_array().unwrap().iter().find(|w| w["worker"] == "solver");
    assert_eq!(solver.unwrap()["environment"]["digest"], environment["digest"], "{campaign}");

    let plan_args = bench.plan_args("main", "state");
    let same = in_env(plan_args.clone());
    assert!(!text(&same.stdout).contains("Python environment"), "{}", text(&same.stdout));
    let before = bench.path("before");
    let copied = std::process::Command::new("cp").arg("-a").arg(bench.folder("state", "main")).arg(&before).status();
    assert!(copied.unwrap().success());
    install(&venv, "2.1.0");
    let plan = in_env(plan_args);
    let shown = text(&plan.stdout);
    assert!(shown.contains("done         4 of 4 (0 to run)\n"), "{shown}");
    assert!(shown.contains("worker solver: 4 done attempts ran Python environment "), "{shown}");
    assert!(shown.contains("(numpy 1.26.4 → 2.1.0) now; they are kept; --rerun-changed runs them again\n"), "{shown}");

    let rerun = in_env(bench.run_args("main", "state", &["--rerun-changed"]));
    assert_eq!(rerun.status.code(), Some(0), "{}", text(&rerun.stderr));
    assert!(text(&rerun.stdout).contains("(4 attempts: 0 already done, 4 run now"), "{}", text(&rerun.stdout));
    let record = any_record(&bench.folder("state", "main"));
    assert_eq!(record["implementation"]["environment"]["distributions"][0]["version"], "2.1.0");
    let again = in_env(bench.run_args("main", "state", &["--rerun-changed"]));
    assert!(text(&again.stdout).contains("(4 attempts: 4 already done, 0 run now)"), "{}", text(&again.stdout));

    // The report shows each Python worker's versions; compare names the distribution that differs.
    let after = bench.folder("state", "main");
    let path = |path: &Path| path.to_str().unwrap().to_owned();
    let report = metewand(&["report".to_owned(), path(&after), "--format".to_owned(), "markdown".to_owned()]);
    let shown = text(&report.stdout);
    // One table per environment the runs had (the load is part of one): 1.26.4 first, 2.1.0 last.
    let rows: Vec<&str> = shown
        .split("Python distributions, by worker:")
        .skip(1)
        .filter_map(|table| table.lines().find(|line| line.contains("numpy")))
        .collect();
    assert_eq!(rows.first(), Some(&"| numpy | `1.26.4` |"), "{shown}");
    assert_eq!(rows.last(), Some(&"| numpy | `2.1.0` |"), "{shown}");
    let compared = metewand(&["compare".to_owned(), path(&before), path(&after)]);
    let shown = text(&compared.stdout);
    assert!(
        shown.contains("the Python distributions of worker solver differ from A to B: numpy 1.26.4 → 2.1.0"),
        "{shown}"
    );
}

#[test]
fn identity_environment_gives_new_ids_when_the_environment_changes_and_plan_names_it() {
    let repo = crate::conformance::sdk_repository();
    let outside = tempfile::tempdir().unwrap();
    let venv = outside.path().join("venv");
    let made = std::process::Command::new("python3").args(["-m", "venv", "--without-pip"]).arg(&venv).status().unwrap();
    assert!(made.success());
    let site = fs::read_dir(venv.join("lib")).unwrap().next().unwrap().unwrap().path().join("site-packages");
    let install = |version: &str| {
        let info = site.join(format!("tiny-{version}.dist-info"));
        fs::create_dir_all(&info).unwrap();
        fs::write(info.join("METADATA"), format!("Metadata-Version: 2.1\nName: tiny\nVersion: {version}\n")).unwrap();
        fs::write(info.join("RECORD"), format!("tiny-{version}.dist-info/METADATA,,\n")).unwrap();
    };
    install("1.0");
    let file = repo.path().join("metewand.toml");
    let toml = fs::read_to_string(&file).unwrap().replace(
        "command = [\"python3\", \"implementation.py\"]",
        &format!(
            "command = [{:?}, \"implementation.py\"]\nidentity = [\"environment\"]",
            venv.join("bin/python3").to_str().unwrap()
        ),
    );
    fs::write(&file, toml).unwrap();
    let state = outside.path().join("state");
    let campaign = |command: &str| {
        metewand(&[
            "campaign".to_owned(),
            command.to_owned(),
            repo.path().to_str().unwrap().to_owned(),
            "--state-dir".to_owned(),
            state.to_str().unwrap().to_owned(),
        ])
    };
    let ran = campaign("run");
    assert_eq!(ran.status.code(), Some(0), "{}", text(&ran.stderr));
    let shown = text(&campaign("plan").stdout);
    assert!(shown.contains("(0 to run)\n") && !shown.contains("changed      "), "{shown}");

    // An upgrade of a distribution the interpreter imports: new ids, and the plan says why.
    fs::remove_dir_all(site.join("tiny-1.0.dist-info")).unwrap();
    install("1.1");
    let shown = text(&campaign("plan").stdout);
    assert!(shown.contains("done         0 of "), "{shown}");
    assert!(
        shown.contains("changed      worker centroid changed since ")
            && shown.contains(" of the earlier records (environment), so its attempts have new ids"),
        "{shown}"
    );
}
