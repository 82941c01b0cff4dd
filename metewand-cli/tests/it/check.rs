//! `metewand check`: the identities of a valid repository on stdout and exit 0; one sentence with file, line and
//! column and exit 2 for an invalid one.

use std::fs;

use crate::{golden, metewand};

#[test]
fn prints_every_identity() {
    let output = metewand(&["check", golden().to_str().unwrap()], b"");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    // The golden values, pinned in metewand-repository/tests/it/identity.rs.
    assert_eq!(
        stdout,
        "source exact-solver sha256:3c9ce14a1fcbfde4d07e8f8ea48e2c0a70ac9a9674980df091968be4de51095e
source gen sha256:ebddfdcb087d91594a2a9ad550dffe1f5710df70f572ed418586b44f703a8e03
source judge sha256:f41d5586ee03321865dc40ede90369d933550322424df7cb74e920f223be4fa3
worker exact-solver mw1-resolved-worker-75816332861c35105a4e92153846975da91a6eafa90fe8b4f59c19a0822fd9a3
worker gen mw1-resolved-worker-55180c2b7b77b90cdd4c65eeae2ea4eaad6fa0b31dc54e1d37afe45f9e2f679c
worker judge mw1-resolved-worker-033ebb9b6034aca6ac9908b1cf3f693f967cab6e07ce2398d842123b69406c9a
contract ls mw1-problem-contract-d828d6736b93bd6828ca85e0310a27a3612e8f783b17946989e910ad95ac143d
dataset small 0 128f0c323a6bcb4a478fa71b23a4f095920ea66f791cf396cd3660035dd474aa
"
    );
}

#[test]
fn the_dataset_seed_selects_the_keys() {
    let repo = golden();
    for args in [&["--dataset-seed", "17"][..], &["--dataset-seed=17"][..]] {
        let mut all = vec!["check", repo.to_str().unwrap()];
        all.extend_from_slice(args);
        let output = metewand(&all, b"");
        assert_eq!(output.status.code(), Some(0));
        let stdout = String::from_utf8(output.stdout).unwrap();
        assert!(
            stdout.contains("dataset small 17 a52df56bf29eb661d89d92f98690fb49cf07cc3946f4ad7e4fc466de82f6dbd2\n"),
            "{stdout}"
        );
    }
    for bad in ["-1", "9007199254740992", "1.5", "x"] {
        let output = metewand(&["check", golden().to_str().unwrap(), "--dataset-seed", bad], b"");
        assert_eq!(output.status.code(), Some(2), "{bad}");
        assert_eq!(String::from_utf8(output.stderr).unwrap().lines().count(), 1);
    }
}

#[test]
fn an_invalid_repository_is_one_sentence_with_its_position_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("judge")).unwrap();
    fs::write(
        dir.path().join("metewand.toml"),
        "format = 1\n\n[workers.judge]\nrole = \"problem_evaluator\"\ncommand = [\"judge\"]\nsource = \"judge\"\n\n\
         [implementations.exact]\nworker = \"judge\"\n",
    )
    .unwrap();
    let output = metewand(&["check", dir.path().to_str().unwrap()], b"");
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(
        stderr,
        format!(
            "metewand: {}:9:10: implementation \"exact\" names worker \"judge\", whose role is problem_evaluator, not \
             implementation\n",
            dir.path().join("metewand.toml").display()
        )
    );
}

#[test]
fn a_missing_repository_and_bad_usage_exit_2() {
    let output = metewand(&["check", "/nonexistent/metewand/repo"], b"");
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(String::from_utf8(output.stderr).unwrap().lines().count(), 1);
    let output = metewand(&["check", "--frobnicate"], b"");
    assert_eq!(output.status.code(), Some(2));
    let output = metewand(&["check", "a", "b"], b"");
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn help() {
    let output = metewand(&["check", "--help"], b"");
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("Usage: metewand check [OPTIONS] [REPO]"), "{stdout}");
    assert!(stdout.contains("--dataset-seed <N>") && stdout.contains("On success, prints one line per identity"));
}

#[test]
fn twin_implementations_are_refused_by_check_and_campaign_plan_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    metewand_testkit::copy_tree(&golden(), &repo);
    let toml = repo.join("metewand.toml");
    let text = fs::read_to_string(&toml).unwrap();
    fs::write(
        &toml,
        format!("{text}\n[implementations.again]\nworker = \"exact-solver\"\nparameters = {{ solver = \"exact\" }}\n"),
    )
    .unwrap();
    let first = text.find("worker = \"exact-solver\"").unwrap() + "worker = ".len();
    let line = text[..first].matches('\n').count() + 1;
    let column = first - text[..first].rfind('\n').map_or(0, |newline| newline + 1) + 1;
    let repo = repo.to_str().unwrap();
    let state = dir.path().join("state");
    let plan = ["campaign", "plan", repo, "--implementation", "exact", "--state-dir", state.to_str().unwrap()];
    for args in [&["check", repo][..], &plan[..]] {
        let output = metewand(args, b"");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.contains(&format!(
                "implementation \"again\" runs the same worker with the same parameters as implementation \"exact\" \
                 (metewand.toml:{line}:{column})"
            )),
            "{args:?}: {stderr}"
        );
    }
}

/// `check` refuses a limit the repository sets that this machine cannot hold for a worker, as a run would (here a
/// memory limit for a worker that declares `memfd_create`, which only a cgroup would count), and accepts it with
/// `--allow-unenforced-limits`, warning.
#[test]
fn a_limit_this_machine_cannot_hold_is_a_check_error_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    metewand_testkit::copy_tree(&golden(), &repo);
    let toml = repo.join("metewand.toml");
    let text = fs::read_to_string(&toml).unwrap().replacen(
        "source = \"workers/solver\"",
        "source = \"workers/solver\"\nsyscalls = [\"memfd_create\"]",
        1,
    );
    fs::write(&toml, format!("{text}\n[limits]\nmemory_bytes = 1073741824\n")).unwrap();
    let repo = repo.to_str().unwrap();
    let output = metewand(&["check", repo], b"");
    let stderr = String::from_utf8(output.stderr).unwrap();
    if output.status.code() == Some(0) {
        // Only a cgroup with the memory controller counts what a memfd holds: then the limit is held.
        let doctor = String::from_utf8(metewand(&["doctor"], b"").stdout).unwrap();
        assert!(doctor.contains("limits.memory_bytes none (a limit would be held by cgroup)"), "{doctor}");
        return;
    }
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with(
            "metewand: check: [limits] memory_bytes = 1073741824 cannot be held here for worker \"exact-solver\": \
             it declares memfd_create"
        ),
        "{stderr}"
    );
    let output = metewand(&["check", repo, "--allow-unenforced-limits"], b"");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("warning: [limits] memory_bytes = 1073741824 is not held for worker \"exact-solver\""));
}

/// `doctor` shows what skews times, read from the kernel's own files, then the warnings they give.
#[test]
fn doctor_shows_what_skews_times() {
    let doctor = String::from_utf8(metewand(&["doctor"], b"").stdout).unwrap();
    let value = |key: &str| -> String {
        let prefix = format!("{key} ");
        doctor
            .lines()
            .find_map(|line| line.strip_prefix(&prefix))
            .unwrap_or_else(|| panic!("{key}: {doctor}"))
            .to_owned()
    };
    let aslr = fs::read_to_string("/proc/sys/kernel/randomize_va_space").unwrap();
    assert!(value("noise.aslr").starts_with(&format!("{} (", aslr.trim())), "{doctor}");
    assert_eq!(value("noise.load").split(' ').filter(|part| part.parse::<f64>().is_ok()).count(), 3, "{doctor}");
    let smt = fs::read_to_string("/sys/devices/system/cpu/smt/active").ok();
    let expected = smt.map_or("unknown", |active| if active.trim() == "1" { "on" } else { "off" });
    assert_eq!(value("noise.smt"), expected, "{doctor}");
    for key in ["noise.governor", "noise.turbo", "noise.swap", "noise.isolated_cpus", "noise"] {
        assert!(!value(key).is_empty(), "{key}: {doctor}");
    }
}
