//! Implementations from outside the repository: a folder holding `metewand-implementation.toml` run with `run
//! --implementation-from` and `campaign run --with`, its attempts marked external; a name the benchmark defines and
//! a missing file refused; `judge` placing a submission among the stored results.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::{run as metewand, text};

/// The command benchmark (every role a shell command) with a campaign, a state folder and a submission folder
/// `sub` beside it, whose implementation `mine` answers after `sleep` seconds.
pub(crate) struct Bench {
    dir: tempfile::TempDir,
}

impl Bench {
    pub(crate) fn new(sleep: &str) -> Bench {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        fs::create_dir_all(repo.join("src")).unwrap();
        fs::write(repo.join("src/README"), "the workers are shell commands\n").unwrap();
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/fixtures/command/metewand.toml");
        let mut toml =
            fs::read_to_string(fixture).unwrap().replace("@PLANT@", dir.path().join("outside").to_str().unwrap());
        toml.push_str(
            "\n[campaigns.main]\nproblems = [\"echo\"]\ndatasets = [\"seeds\"]\nimplementations = [\"solve\", \
             \"leave\"]\ndataset_seeds = [0, 1, 2]\nrepetitions = 2\n",
        );
        fs::write(repo.join("metewand.toml"), toml).unwrap();
        let sub = dir.path().join("sub");
        fs::create_dir(&sub).unwrap();
        fs::write(
            sub.join("metewand-implementation.toml"),
            "[workers.mine]\nrole = \"implementation\"\nadapter = \"command\"\ncommand = [\"sh\", \"solve.sh\", \
             \"{dataset}\", \"{result}\", \"{seed}\"]\nsource = \".\"\n\n[implementations.mine]\nworker = \"mine\"\n",
        )
        .unwrap();
        fs::write(
            sub.join("solve.sh"),
            format!("sleep {sleep}\ncp \"$1/seed.txt\" \"$2/answer.txt\"\necho \"{{\\\"seed\\\": $3}}\"\n"),
        )
        .unwrap();
        Bench { dir }
    }

    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    pub(crate) fn metewand(&self, args: &[&str]) -> std::process::Output {
        let state = self.path("state");
        let mut all: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
        all.extend(["--state-dir".to_owned(), state.to_str().unwrap().to_owned()]);
        metewand(&all)
    }

    fn campaign(&self) -> PathBuf {
        self.path("state/campaigns/main")
    }
}

fn json(path: &Path) -> Value {
    serde_json::from_slice(&fs::read(path).unwrap()).unwrap()
}

#[test]
fn an_external_folder_joins_a_campaign_with_its_own_attempts_marked_external() {
    let bench = Bench::new("0");
    let (repo, sub) = (bench.path("repo"), bench.path("sub"));
    let (repo, sub) = (repo.to_str().unwrap(), sub.to_str().unwrap());
    let before = fs::read(bench.path("repo/metewand.toml")).unwrap();
    let output = bench.metewand(&["campaign", "run", repo, "main", "-q"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let plan = bench.metewand(&["campaign", "plan", repo, "main", "--with", sub]);
    assert_eq!(plan.status.code(), Some(0), "{}", text(&plan.stderr));
    let canonical = fs::canonicalize(bench.path("sub")).unwrap();
    let plan = text(&plan.stdout);
    assert!(plan.contains(&format!("external     implementation mine from {}\n", canonical.display())), "{plan}");
    assert!(plan.contains("done         12 of 18 (6 to run)"), "{plan}");
    let output = bench.metewand(&["campaign", "run", repo, "main", "--with", sub, "-q"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("(18 attempts: 12 already done, 6 run now: 6 reached)"));

    let campaign = json(&bench.campaign().join("campaign.json"));
    let attempts = campaign["attempts"].as_array().unwrap();
    let mine: Vec<&str> = attempts
        .iter()
        .filter(|attempt| attempt["implementation"] == "mine")
        .map(|attempt| attempt["id"].as_str().unwrap())
        .collect();
    assert_eq!(mine.len(), 6);
    let theirs: Vec<&str> = attempts
        .iter()
        .filter(|attempt| attempt["implementation"] != "mine")
        .map(|attempt| attempt["id"].as_str().unwrap())
        .collect();
    assert!(mine.iter().all(|id| !theirs.contains(id)), "an external attempt has its own id");
    for id in &mine {
        let record = json(&bench.campaign().join("attempts").join(id).join("attempt.json"));
        assert_eq!(record["implementation"]["origin"]["kind"], "external");
        assert_eq!(record["implementation"]["origin"]["folder"], canonical.to_str().unwrap());
    }
    for id in &theirs {
        let record = json(&bench.campaign().join("attempts").join(id).join("attempt.json"));
        assert!(record["implementation"].get("origin").is_none(), "the repository's own carry no origin");
    }
    // The exports and the report mark it too.
    let csv = fs::read_to_string(bench.campaign().join("results.csv")).unwrap();
    let header = csv.lines().next().unwrap();
    assert!(header.ends_with(",origin,origin_folder"), "{header}");
    let marked = format!(",external,{}", canonical.display());
    assert_eq!(csv.lines().filter(|line| line.ends_with(&marked)).count(), 6, "{csv}");
    assert_eq!(csv.lines().filter(|line| line.ends_with(",,")).count(), 12, "the others' are left empty: {csv}");
    let report = metewand(&[
        "report".to_owned(),
        bench.campaign().to_str().unwrap().to_owned(),
        "--format".to_owned(),
        "markdown".to_owned(),
    ]);
    let report = text(&report.stdout);
    assert!(report.contains(&format!("| external implementation | mine | `{}` |", canonical.display())), "{report}");
    let status = bench.metewand(&["campaign", "status", repo, "main"]);
    assert!(text(&status.stdout).contains("planned      18\ndone         18 (reached 18)"), "{}", text(&status.stdout));
    assert_eq!(fs::read(bench.path("repo/metewand.toml")).unwrap(), before, "the repository is left as it is");

    // One attempt alone, with the folder's worker reached.
    let out = bench.path("one");
    let output = bench.metewand(&[
        "run",
        repo,
        "--problem",
        "echo",
        "--dataset",
        "seeds",
        "--implementation",
        "mine",
        "--implementation-from",
        sub,
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("external     implementation mine from"), "{}", text(&output.stdout));
    let record = json(&out.join("attempt.json"));
    assert_eq!(record["implementation"]["origin"]["kind"], "external");
    assert_eq!(record["outcome"], "reached");
}

#[test]
fn a_folder_that_redefines_a_name_or_lacks_its_file_is_refused() {
    let bench = Bench::new("0");
    let (repo, sub) = (bench.path("repo"), bench.path("sub"));
    let file = sub.join("metewand-implementation.toml");
    let args = |with: &Path| {
        vec![
            "run".to_owned(),
            repo.to_str().unwrap().to_owned(),
            "--problem".to_owned(),
            "echo".to_owned(),
            "--dataset".to_owned(),
            "seeds".to_owned(),
            "--implementation".to_owned(),
            "mine".to_owned(),
            "--implementation-from".to_owned(),
            with.to_str().unwrap().to_owned(),
        ]
    };
    let toml = fs::read_to_string(&file).unwrap();
    fs::write(&file, toml.replace("[implementations.mine]", "[implementations.solve]")).unwrap();
    let output = metewand(&args(&sub));
    assert_eq!(output.status.code(), Some(2));
    let said = text(&output.stderr);
    assert!(said.contains(&format!("{}:", file.display())), "{said}");
    assert!(
        said.contains("implementation \"solve\" is already defined by the benchmark repository"),
        "the redefinition is named: {said}"
    );
    assert_eq!(said.lines().count(), 1, "{said}");

    fs::write(
        &file,
        toml.replace("[workers.mine]", "[workers.judge]").replace("worker = \"mine\"", "worker = \"judge\""),
    )
    .unwrap();
    let said = text(&metewand(&args(&sub)).stderr);
    assert!(said.contains("worker \"judge\" is already defined by the benchmark repository"), "{said}");

    fs::write(&file, toml.replace("source = \".\"", "source = \".\"\nsorce = \"x\"")).unwrap();
    let said = text(&metewand(&args(&sub)).stderr);
    assert!(said.contains("metewand-implementation.toml:6:1") && said.contains("sorce"), "the key is named: {said}");

    let empty = bench.path("empty");
    fs::create_dir(&empty).unwrap();
    let output = metewand(&args(&empty));
    assert_eq!(output.status.code(), Some(2));
    let said = text(&output.stderr);
    assert!(
        said.contains(&format!(
            "{}: cannot read metewand-implementation.toml",
            empty.join("metewand-implementation.toml").display()
        )),
        "{said}"
    );
}

#[test]
fn judge_places_a_submission_among_the_stored_results() {
    let bench = Bench::new("0.3");
    let (repo, sub) = (bench.path("repo"), bench.path("sub"));
    let (repo, sub) = (repo.to_str().unwrap(), sub.to_str().unwrap());
    let output = bench.metewand(&["campaign", "run", repo, "main", "-q"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let output = bench.metewand(&["judge", repo, sub, "-q"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let out = text(&output.stdout);
    assert!(out.contains("(18 attempts: 12 already done, 6 run now: 6 reached)"), "only the submission ran: {out}");
    // Three instances are too few for a test to separate two implementations: slower everywhere, it is last and
    // tied with both.
    let line = out.lines().find(|line| line.starts_with("problem echo: ")).expect(&out);
    assert!(line.starts_with("problem echo: mine ranks 3 of 3, mean rank 3.00 [3.00, 3.00]; tied with "), "{line}");
    assert!(line.contains("solve (p = ") && line.contains("leave (p = "), "{line}");

    let output = bench.metewand(&["judge", repo, sub, "--campaign", "other"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("judge: the repository has no campaign named \"other\" (it has: main)"));
}

/// The conformance kit checks a submission's worker before it is run: the folder's workers join the repository's,
/// and its command worker conforms; without the folder the worker is unknown.
#[test]
fn conformance_checks_a_submission_s_worker() {
    let bench = Bench::new("0");
    let (repo, sub) = (bench.path("repo"), bench.path("sub"));
    let (repo, sub) = (repo.to_str().unwrap(), sub.to_str().unwrap());
    let output = crate::metewand(&["conformance", repo, "--implementation-from", sub, "--worker", "mine"], b"");
    let out = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{out}{}", text(&output.stderr));
    assert!(out.lines().any(|line| line.starts_with("outputs ") && line.contains(" pass ")), "{out}");
    assert!(out.ends_with("implementation mine: conforms\n"), "{out}");

    let output = crate::metewand(&["conformance", repo, "--worker", "mine"], b"");
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stdout));
}

/// A compiled C solver of the example's problem, from a folder outside the repository, as a command implementation:
/// it knows nothing of the protocol (it reads the dataset's CSV files, writes `solution.json` and prints the
/// result's data), and the example's own judge finds that it reached the optimum.
#[test]
fn a_compiled_solver_of_the_example_s_problem_reaches() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/least-squares").canonicalize().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("sub");
    fs::create_dir(&sub).unwrap();
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/fixtures/command/ridge.c");
    fs::copy(source, sub.join("ridge.c")).unwrap();
    let built = std::process::Command::new("cc")
        .args(["-O2", "-o", "ridge", "ridge.c", "-lm"])
        .current_dir(&sub)
        .status()
        .expect("a C compiler (cc) on PATH, to build the solver");
    assert!(built.success());
    fs::write(
        sub.join("metewand-implementation.toml"),
        "[workers.ridge-c]\nrole = \"implementation\"\nadapter = \"command\"\ncommand = [\"./ridge\", \"{dataset}\", \
         \"{result}\", \"0.1\"]\nsource = \".\"\n\n[implementations.ridge-c]\nworker = \"ridge-c\"\n",
    )
    .unwrap();
    let (out, state) = (dir.path().join("attempt"), dir.path().join("state"));
    let args = [
        "run",
        example.to_str().unwrap(),
        "--implementation-from",
        sub.to_str().unwrap(),
        "--problem",
        "ridge",
        "--dataset",
        "small",
        "--implementation",
        "ridge-c",
        "--state-dir",
        state.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    let output = metewand(&args.map(str::to_owned));
    assert_eq!(output.status.code(), Some(0), "{}{}", text(&output.stdout), text(&output.stderr));
    let record = json(&out.join("attempt.json"));
    assert_eq!(record["verdict"], "reached", "{record}");
    assert_eq!(record["implementation"]["origin"]["kind"], "external", "{record}");
    assert_eq!(record["implementation"]["sdk"]["name"], "metewand-adapter", "{record}");
    assert_eq!(record["metrics"]["relative_gap"].as_f64().map(|gap| gap.abs() < 1e-9), Some(true), "{record}");
}
