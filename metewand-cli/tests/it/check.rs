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
    // The golden values, pinned in metewand-runtime/tests/it/identity.rs.
    assert_eq!(
        stdout,
        "source exact-solver sha256:187d53dfdf9617cb9388416d2a8475284546e5794ac4622661deb1ab8e71260d
source gen sha256:fe9228a591d134ba8d9e74da0a2490585e9e6cd7e1b99454c94444c4d2a49ce5
source judge sha256:f15193d47131ce816354737f13f890eea4835e21e84b63dcd4e62a4d6ce52e72
worker exact-solver mw1-resolved-worker-01d9e53477e2bfeb2d4c70fe82e5eda375cfc83be0d17f9090d36234929f9607
worker gen mw1-resolved-worker-df9429c2be75c4af511a3a9750aafba8b77c82b657bff43a1bc1d4893492756a
worker judge mw1-resolved-worker-57f196a8b90161bd7e7cc5790ca6473993394a78a39e21d597be989bc6621e97
contract ls mw1-problem-contract-d1e9abad1a5aab7500fef8cf796d478f1bceb8dcdb6c12994a69404687b9852f
dataset small 0 fd9b7b39d9850640d0b36bd433d059b40963d25a04ad55b824e711faa7c18664
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
            stdout.contains("dataset small 17 d3653a00d1e9f4f20dc207af05421416dc85395fd6510b8a02a3f928af5c3e1e\n"),
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
