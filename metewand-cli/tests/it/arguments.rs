//! The command line itself, whatever the command: bytes that are not UTF-8, `--`, misspelt flags, seeds, `help`,
//! no arguments, shell completions. Every usage error is exit 2 and one line on stderr.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::process::{Command, Output, Stdio};

use crate::{golden, metewand};

fn metewand_os(args: &[&OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_metewand")).args(args).stdin(Stdio::null()).output().unwrap()
}

/// Exit 2, nothing on stdout, one line on stderr starting `metewand: `; returns that line.
fn usage_error(output: &Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(output.stdout.is_empty(), "{}", String::from_utf8_lossy(&output.stdout));
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(stderr.starts_with("metewand: "), "{stderr}");
    stderr
}

#[test]
fn arguments_that_are_not_utf8_are_usage_errors_or_paths_never_a_panic() {
    let bad = OsStr::from_bytes(b"caf\xe9");
    usage_error(&metewand_os(&[bad]));
    usage_error(&metewand_os(&[OsStr::new("run"), OsStr::new("--problem"), bad]));
    // A path may be any bytes: it is looked up, and not found.
    let stderr = usage_error(&metewand_os(&[OsStr::new("check"), bad]));
    assert!(stderr.contains("cannot read repository"), "{stderr}");
}

#[test]
fn a_double_dash_ends_the_options() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("-repo");
    let status = Command::new("cp").arg("-r").arg(golden()).arg(&repo).status().unwrap();
    assert!(status.success());
    let output = Command::new(env!("CARGO_BIN_EXE_metewand"))
        .current_dir(dir.path())
        .args(["check", "--", "-repo"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(String::from_utf8(output.stdout).unwrap().contains("dataset small 0 "));
}

#[test]
fn a_misspelt_flag_gets_a_suggestion_and_the_command_help() {
    let stderr = usage_error(&metewand(&["run", "--dataset-sed", "1"], b""));
    assert!(stderr.contains("'--dataset-sed'") && stderr.contains("'--dataset-seed'"), "{stderr}");
    assert!(stderr.contains("run `metewand run --help`"), "{stderr}");
    let stderr = usage_error(&metewand(&["chek"], b""));
    assert!(stderr.contains("'check'"), "{stderr}");
}

#[test]
fn counts_below_one_are_refused_in_words() {
    for (args, expected) in [
        (&["campaign", "run", "x", "--jobs", "0"][..], "'--jobs <N>': must be at least 1, not 0"),
        (&["campaign", "plan", "x", "-j", "two"][..], "must be a whole number of at least 1, not \"two\""),
        (&["campaign", "run", "x", "--repetitions", "0"][..], "'--repetitions <N>': must be at least 1, not 0"),
        (&["campaign", "submit", "x", "--pack", "0"][..], "'--pack <K>': must be at least 1, not 0"),
        (
            &["validate", "result", "x", "--repo", "r", "--problem", "p", "--threads", "0"][..],
            "'--threads <N>': must be at least 1, not 0",
        ),
    ] {
        let stderr = usage_error(&metewand(args, b""));
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(!stderr.contains("non-zero type"), "{stderr}");
    }
}

#[test]
fn seeds_are_decimal_digits_only() {
    let repo = golden();
    let repo = repo.to_str().unwrap();
    for bad in ["+1", "1.0", "1e3", " 1", "", "-0", "0x10", "9007199254740992"] {
        let flag = format!("--dataset-seed={bad}");
        let stderr = usage_error(&metewand(&["check", repo, &flag], b""));
        assert!(stderr.contains("a seed is an integer from 0 to 9007199254740991"), "{bad}: {stderr}");
        let stderr = usage_error(&metewand(
            &["run", repo, "--problem", "ls", "--dataset", "small", "--implementation", "exact", &flag],
            b"",
        ));
        assert!(stderr.contains("a seed is an integer"), "{bad}: {stderr}");
    }
    let output = metewand(&["check", repo, "--dataset-seed=9007199254740991"], b"");
    assert_eq!(output.status.code(), Some(0));
    assert!(String::from_utf8(output.stdout).unwrap().contains("dataset small 9007199254740991 "));
}

#[test]
fn no_arguments_print_the_help_and_exit_2() {
    let output = metewand(&[], b"");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("Usage: metewand <COMMAND>") && stderr.contains("completions"), "{stderr}");
}

#[test]
fn help_names_a_command() {
    let output = metewand(&["help", "run"], b"");
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("--implementation-seed <N>") && stdout.contains("130 cancelled"), "{stdout}");
    let output = metewand(&["help", "validate", "metrics"], b"");
    assert_eq!(output.status.code(), Some(0));
    assert!(String::from_utf8(output.stdout).unwrap().contains("Usage: metewand validate metrics"));
}

#[test]
fn completions_for_bash_zsh_and_fish() {
    for shell in ["bash", "zsh", "fish"] {
        let output = metewand(&["completions", shell], b"");
        assert_eq!(output.status.code(), Some(0), "{shell}");
        let script = String::from_utf8(output.stdout).unwrap();
        assert!(script.contains("metewand") && script.contains("implementation-seed"), "{shell}: {script}");
    }
    usage_error(&metewand(&["completions", "tcsh"], b""));
}
