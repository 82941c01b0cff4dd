//! Synthetic campaign folders for the report's tests (and the CLI's): a `campaign.json` and records made from a real
//! record of the test worker's benchmark (`fixtures/record.json`) with the cell, outcome, execute time and metric
//! each test sets; and a way to run the Python checks beside the tests.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

/// What the synthetic folder holds for one planned attempt.
#[derive(Clone, Debug)]
pub enum State {
    /// A record with this outcome (`reached`, `not_reached`, `not_required`, `invalid`, `failed`, `cancelled`); a
    /// failure is the implementation's.
    Record(&'static str),
    /// A record `failed` in the problem evaluator's `evaluate`: the benchmark's own failure.
    EvaluatorFailed,
    /// No folder.
    Missing,
    /// A folder without a record.
    Unfinished,
}

/// One planned attempt of a synthetic campaign.
#[derive(Clone, Debug)]
pub struct Planned {
    /// The problem.
    pub problem: &'static str,
    /// The dataset.
    pub dataset: &'static str,
    /// The dataset seed.
    pub dataset_seed: u64,
    /// The implementation.
    pub implementation: &'static str,
    /// The implementation seed.
    pub implementation_seed: u64,
    /// The repetition, from 1.
    pub repetition: u64,
    /// What the folder holds for it.
    pub state: State,
    /// The execute phase's duration.
    pub execute_ns: u64,
    /// The metric `error`, when the record has metrics.
    pub error: f64,
    /// The problem's `timed`, when the record says it.
    pub timed: Option<&'static str>,
    /// A streamed attempt's checkpoints, as `(time_ns, verdict, error)`, numbered from 1.
    pub profile: Vec<(u64, &'static str, f64)>,
    /// When it started, in seconds after the template's start, where a test sets the run's order.
    pub started: Option<u64>,
    /// The problem's `tolerance` parameter, when the record has one.
    pub tolerance: Option<f64>,
    /// More metrics, each `(name, factor)`: `factor` times `error` in the record and at each checkpoint (a factor
    /// of 0 makes a constant metric).
    pub scaled: Vec<(&'static str, f64)>,
    /// The implementation session's user CPU time and peak resident memory, where a test sets them (the
    /// template's otherwise).
    pub resources: Option<(u64, u64)>,
}

impl Planned {
    /// An attempt of `implementation` on `dataset` for `problem`: seeds 0, repetition 1, `reached` in 1 ms.
    pub fn new(problem: &'static str, dataset: &'static str, implementation: &'static str) -> Planned {
        Planned {
            problem,
            dataset,
            dataset_seed: 0,
            implementation,
            implementation_seed: 0,
            repetition: 1,
            state: State::Record("reached"),
            execute_ns: 1_000_000,
            error: 0.0,
            timed: None,
            profile: Vec::new(),
            started: None,
            tolerance: None,
            scaled: Vec::new(),
            resources: None,
        }
    }

    /// Started `second` seconds into the run (records otherwise all start at one time).
    pub fn started(mut self, second: u64) -> Planned {
        self.started = Some(second);
        self
    }

    /// Streamed: with `checkpoints`, each `(time_ns, verdict, error)`.
    pub fn profile(mut self, checkpoints: &[(u64, &'static str, f64)]) -> Planned {
        self.profile = checkpoints.to_vec();
        self
    }

    /// With dataset seed `seed`.
    pub fn seed(mut self, seed: u64) -> Planned {
        self.dataset_seed = seed;
        self
    }

    /// With repetition `repetition`.
    pub fn repetition(mut self, repetition: u64) -> Planned {
        self.repetition = repetition;
        self
    }

    /// With `state`.
    pub fn state(mut self, state: State) -> Planned {
        self.state = state;
        self
    }

    /// With an execute phase of `execute_ns`.
    pub fn time(mut self, execute_ns: u64) -> Planned {
        self.execute_ns = execute_ns;
        self
    }

    /// With the problem's `timed` recorded as `timed`.
    pub fn timed(mut self, timed: &'static str) -> Planned {
        self.timed = Some(timed);
        self
    }

    /// With the problem's parameter `tolerance`.
    pub fn tolerance(mut self, tolerance: f64) -> Planned {
        self.tolerance = Some(tolerance);
        self
    }

    /// With `metrics` beside `error`, each `(name, factor)`: `factor` times `error` wherever `error` is.
    pub fn scaled(mut self, metrics: &[(&'static str, f64)]) -> Planned {
        self.scaled = metrics.to_vec();
        self
    }

    /// With `cpu_ns` of user CPU time (and none of system time) and `peak_memory_bytes` in its session's resources.
    pub fn resources(mut self, cpu_ns: u64, peak_memory_bytes: u64) -> Planned {
        self.resources = Some((cpu_ns, peak_memory_bytes));
        self
    }

    /// With the metric `error` at `error`.
    pub fn error(mut self, error: f64) -> Planned {
        self.error = error;
        self
    }
}

/// A synthetic campaign folder's other settings.
pub struct Campaign<'a> {
    /// The campaign's name.
    pub name: &'a str,
    /// The repository it names.
    pub repository: &'a str,
    /// The host its one run records.
    pub host: &'a str,
    /// A suffix of the implementations' worker identities (a changed worker).
    pub worker_salt: &'a str,
    /// Its run's `-j`, in `campaign.json` and every record.
    pub concurrency: u64,
    /// The program every implementation ran, `(where its command found it, a text its digest is made from)`;
    /// none recorded when `None`.
    pub program: Option<(&'a str, &'a str)>,
    /// How every implementation session served its attempts (`fresh`, or `reuse`: each record then one of an
    /// attempt a session served after its first, with no start-up); none recorded when `None`.
    pub sessions: Option<&'a str>,
    /// The CPUs every implementation ran on (`locked` there); none recorded when `None`.
    pub cpus: Option<&'a [u32]>,
}

impl Default for Campaign<'_> {
    fn default() -> Self {
        Campaign {
            name: "main",
            repository: "/bench/repo",
            host: "bench-host",
            worker_salt: "",
            concurrency: 1,
            program: None,
            sessions: None,
            cpus: None,
        }
    }
}

/// The report's test folder (`metewand-report/tests/it`), which holds the record the synthetic ones are made from.
pub fn here() -> PathBuf {
    crate::workspace().join("metewand-report/tests/it")
}

fn template() -> Value {
    let path = here().join("fixtures/record.json");
    serde_json::from_slice(&fs::read(path).unwrap()).unwrap()
}

/// A 64-hex-digit identity from a text, for ids the schema's patterns accept.
fn hex_of(text: &str) -> String {
    let mut out = String::new();
    let mut state = 0xcbf2_9ce4_8422_2325_u64;
    for round in 0..4u8 {
        for byte in text.bytes().chain([round]) {
            state = (state ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3);
        }
        out.push_str(&format!("{state:016x}"));
    }
    out
}

/// The record of one planned attempt.
fn record(campaign: &Campaign<'_>, id: &str, planned: &Planned, outcome: &str) -> Value {
    let mut record = template();
    record["repository"] = json!(campaign.repository);
    record["campaign"] = json!({"attempt_id": id, "concurrency": campaign.concurrency, "name": campaign.name, "repetition": planned.repetition});
    record["problem"]["name"] = json!(planned.problem);
    if let Some(tolerance) = planned.tolerance {
        record["problem"]["parameters"] = json!({"tolerance": tolerance});
    }
    let metrics = |error: f64| {
        let mut metrics = serde_json::Map::new();
        metrics.insert("error".to_owned(), json!(error));
        for (name, factor) in &planned.scaled {
            metrics.insert((*name).to_owned(), json!(factor * error));
        }
        Value::Object(metrics)
    };
    if let Some(timed) = planned.timed {
        record["problem"]["timed"] = json!(timed);
    }
    if let Some(second) = planned.started {
        record["started_at"] =
            json!(format!("2026-01-01T{:02}:{:02}:{:02}.000000000Z", second / 3600, second / 60 % 60, second % 60));
    }
    record["dataset"]["name"] = json!(planned.dataset);
    record["dataset"]["seed"] = json!(planned.dataset_seed);
    record["implementation"]["name"] = json!(planned.implementation);
    record["implementation"]["seed"] = json!(planned.implementation_seed);
    record["implementation"]["worker_id"] = json!(format!(
        "mw1-resolved-worker-{}",
        hex_of(&format!("{}{}", planned.implementation, campaign.worker_salt))
    ));
    if let Some((found, contents)) = campaign.program {
        record["implementation"]["program"] =
            json!({"path": "/usr/lib/interpreter", "path_match": found, "sha256": hex_of(contents)});
    }
    if let Some(cpus) = campaign.cpus {
        record["implementation"]["cpus"] = json!({"binding": "locked", "list": cpus});
    }
    if let Some(mode) = campaign.sessions {
        // A reused session's record is one of an attempt served after its first: no start-up, no shutdown.
        let reused = mode == "reuse";
        record["implementation"]["session"] = json!({"index": u64::from(reused), "mode": mode, "warmup": 0});
        if reused {
            record["phases"].as_array_mut().unwrap().retain(|phase| {
                phase["role"] != "implementation" || !["hello", "shutdown"].contains(&phase["phase"].as_str().unwrap())
            });
            record["implementation"].as_object_mut().unwrap().remove("resources");
        }
    }
    if let Some((cpu_ns, bytes)) = planned.resources {
        record["implementation"]["resources"] =
            json!({"peak_rss_bytes": bytes, "system_cpu_ns": 0, "user_cpu_ns": cpu_ns});
    }
    if !planned.profile.is_empty() {
        record["implementation"]["selected"] = json!(["streaming_profile"]);
        let points: Vec<Value> = planned
            .profile
            .iter()
            .enumerate()
            .map(|(index, (time_ns, verdict, error))| {
                json!({"checkpoint": index + 1, "metrics": metrics(*error), "time_ns": time_ns, "verdict": verdict})
            })
            .collect();
        record["implementation"]["profile"] = Value::Array(points);
    }
    record["outcome"] = json!(outcome);
    for phase in record["phases"].as_array_mut().unwrap() {
        if phase["phase"] == "execute" {
            phase["duration_ns"] = json!(planned.execute_ns);
        }
    }
    match outcome {
        "failed" | "cancelled" => {
            let (role, phase, kind) = if outcome == "failed" {
                ("implementation", "execute", "phase_timeout")
            } else {
                ("implementation", "execute", "cancelled")
            };
            record["verdict"] = Value::Null;
            record["metrics"] = Value::Null;
            record["failure"] = json!({"role": role, "phase": phase, "kind": kind, "message": format!("the attempt {outcome}"), "code": null, "details": null});
        }
        verdict => {
            record["verdict"] = json!(verdict);
            record["metrics"] = metrics(planned.error);
        }
    }
    record
}

/// Writes a campaign folder at `dir` with `attempts` as its plan, in order; returns the attempt ids.
pub fn write_campaign(dir: &Path, campaign: &Campaign<'_>, attempts: &[Planned]) -> Vec<String> {
    fs::create_dir_all(dir.join("attempts")).unwrap();
    fs::create_dir_all(dir.join("datasets")).unwrap();
    let mut entries = Vec::new();
    let mut ids = Vec::new();
    for (index, planned) in attempts.iter().enumerate() {
        let id = format!("mw1-attempt-{}", hex_of(&format!("{}{index}{planned:?}", campaign.name)));
        entries.push(json!({
            "id": id, "problem": planned.problem, "dataset": planned.dataset, "dataset_seed": planned.dataset_seed,
            "dataset_key": hex_of(planned.dataset), "implementation": planned.implementation,
            "implementation_seed": planned.implementation_seed, "repetition": planned.repetition,
        }));
        let folder = dir.join("attempts").join(&id);
        match planned.state {
            State::Missing => {}
            State::Unfinished => fs::create_dir_all(&folder).unwrap(),
            State::Record(outcome) => {
                fs::create_dir_all(folder.join("logs")).unwrap();
                fs::write(folder.join("logs/implementation.log"), "log\n").unwrap();
                let bytes = serde_json::to_vec(&record(campaign, &id, planned, outcome)).unwrap();
                fs::write(folder.join("attempt.json"), bytes).unwrap();
            }
            State::EvaluatorFailed => {
                fs::create_dir_all(folder.join("logs")).unwrap();
                let mut record = record(campaign, &id, planned, "failed");
                record["failure"]["role"] = json!("problem_evaluator");
                record["failure"]["phase"] = json!("evaluate");
                record["failure"]["kind"] = json!("worker_failure");
                fs::write(folder.join("attempt.json"), serde_json::to_vec(&record).unwrap()).unwrap();
            }
        }
        ids.push(id);
    }
    let names = |field: fn(&Planned) -> &'static str| {
        let mut names: Vec<&str> = Vec::new();
        for planned in attempts {
            if !names.contains(&field(planned)) {
                names.push(field(planned));
            }
        }
        names
    };
    let environment = json!({
        "metewand_version": "0.1.0", "host": campaign.host, "os": "Linux", "kernel": "6.1.0", "cpu_model": "Test CPU",
        "logical_cpus": 2, "memory_bytes": 1u64 << 34,
        "workers": [{"worker": "solver", "command": "solver", "path_match": "/usr/bin/solver",
                     "resolved": "/usr/bin/solver", "sha256": "ab".repeat(32), "script": null}],
        "git_commit": null, "git_dirty": null,
    });
    let file = json!({
        "format": 1, "name": campaign.name, "repository": campaign.repository,
        "definition": {"name": campaign.name, "problems": names(|p| p.problem), "datasets": names(|p| p.dataset),
                       "implementations": names(|p| p.implementation), "dataset_seeds": {"list": [0]}, "implementation_seeds": {"list": [0]},
                       "repetitions": 1},
        "attempts": entries,
        "runs": [{"started_at": "2026-01-01T00:00:00Z", "concurrency": campaign.concurrency, "environment": environment}],
    });
    fs::write(dir.join("campaign.json"), serde_json::to_vec(&file).unwrap()).unwrap();
    ids
}

/// Runs `python3 tests/it/SCRIPT` with `input` on stdin and returns its stdout parsed as JSON.
pub fn python(script: &str, input: &Value) -> Value {
    let path = here().join(script);
    let mut child = Command::new("python3")
        .arg(path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("python3 runs");
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), &serde_json::to_vec(input).unwrap()).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{script} failed");
    serde_json::from_slice(&output.stdout).unwrap()
}

/// A temporary folder.
pub fn temp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// `dir/name`.
pub fn at(dir: &tempfile::TempDir, name: &str) -> PathBuf {
    dir.path().join(name)
}

/// Makes the records of the synthetic campaign folder `dir` what a run of a real repository leaves: each record of
/// `ids` names the resolved workers `implementation`, `evaluator` and `materializer`, has its one result file under
/// `work/result/` with its size and SHA-256, and, with metrics, its `work/metrics/metrics.json`.
pub fn as_run_by(dir: &Path, ids: &[String], implementation: &str, evaluator: &str, materializer: &str) {
    use sha2::Digest;
    for (index, id) in ids.iter().enumerate() {
        let folder = dir.join("attempts").join(id);
        let path = folder.join("attempt.json");
        if !path.exists() {
            continue;
        }
        let mut record: Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
        record["implementation"]["worker_id"] = json!(implementation);
        record["evaluator"]["worker_id"] = json!(evaluator);
        record["dataset"]["materializer"]["worker_id"] = json!(materializer);
        let answer = format!("answer {index}\n");
        fs::create_dir_all(folder.join("work/result")).unwrap();
        fs::write(folder.join("work/result/answer.txt"), &answer).unwrap();
        let sha256: String = sha2::Sha256::digest(answer.as_bytes()).iter().map(|byte| format!("{byte:02x}")).collect();
        record["implementation"]["files"] = json!([{"path": "answer.txt", "sha256": sha256, "size": answer.len()}]);
        if !record["metrics"].is_null() {
            fs::create_dir_all(folder.join("work/metrics")).unwrap();
            let metrics = serde_json::to_vec(&json!({"metrics": record["metrics"]})).unwrap();
            fs::write(folder.join("work/metrics/metrics.json"), metrics).unwrap();
        }
        fs::write(&path, serde_json::to_vec(&record).unwrap()).unwrap();
    }
}
