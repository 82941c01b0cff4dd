//! Grids on the command line, with the example's `sweep` (a grid over rows): a flag names every point or one, and a
//! selection naming none is a usage error of one sentence with a guess.

use std::path::{Path, PathBuf};

use crate::{run, text};

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/least-squares").canonicalize().unwrap()
}

/// `metewand campaign plan` of the example's `main` on `datasets`, with cholesky only, into a temporary folder:
/// the exit status, stdout and stderr.
fn plan(datasets: &[&str]) -> (Option<i32>, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let mut args: Vec<String> =
        vec!["campaign".into(), "plan".into(), example().to_str().unwrap().into(), "main".into()];
    for dataset in datasets {
        args.extend(["--dataset".into(), (*dataset).to_owned()]);
    }
    args.extend(["--implementation".into(), "cholesky".into()]);
    args.extend(["--state-dir".into(), dir.path().join("state").to_str().unwrap().to_owned()]);
    args.extend(["--out".into(), dir.path().join("out").to_str().unwrap().to_owned()]);
    let output = run(&args);
    (output.status.code(), text(&output.stdout), text(&output.stderr))
}

#[test]
fn a_dataset_flag_names_every_point_of_a_grid_or_one() {
    let (code, stdout, stderr) = plan(&["sweep"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("attempts     18 (1 problems x 3 datasets x 3 dataset seeds"), "{stdout}");
    let (code, stdout, stderr) = plan(&["sweep[rows=800]"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("attempts     6 (1 problems x 1 datasets x 3 dataset seeds"), "{stdout}");
    // `sweep[rows=200]` is `small` under another name: the same keys, so the same attempts.
    let (_, small, _) = plan(&["small"]);
    let (_, point, _) = plan(&["sweep[rows=200]"]);
    let datasets = |out: &str| out.lines().find(|line| line.starts_with("datasets")).map(str::to_owned);
    assert_eq!(datasets(&small), datasets(&point));
}

#[test]
fn a_selection_naming_no_point_is_a_usage_error_with_a_guess() {
    for (selection, expected) in [
        (
            "sweep[row=800]",
            "metewand: campaign plan: dataset \"sweep\" has no grid key \"row\" (did you mean \"rows\"?) (its keys: rows)\n",
        ),
        (
            "sweep[rows=8000]",
            "metewand: campaign plan: dataset \"sweep\" has no point with rows=8000 (did you mean \"800\"?) (its \
             values: 200, 800, 3200)\n",
        ),
        ("swep", "metewand: campaign plan: the repository has no dataset named \"swep\" (did you mean \"sweep\"?)"),
    ] {
        let (code, _, stderr) = plan(&[selection]);
        assert_eq!(code, Some(2), "{stderr}");
        assert!(stderr.starts_with(expected), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }
    let args: Vec<String> = ["run", example().to_str().unwrap(), "--problem", "ridge", "--dataset", "sweep"]
        .into_iter()
        .chain(["--implementation", "cholesky"])
        .map(str::to_owned)
        .collect();
    let output = run(&args);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        text(&output.stderr),
        "metewand: run: dataset \"sweep\" names 3 points and an attempt needs one: name one, such as \
         \"sweep[rows=200]\"\n"
    );
}
