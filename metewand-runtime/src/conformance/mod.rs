//! The conformance kit: drives one worker, in any language, through the worker side of protocol 1 and reports
//! each check as a typed [`CheckResult`], so a worker author learns what is wrong before a benchmark attempt does.
//!
//! [`run`] takes a [`Subject`] (a worker of a checked repository, run as an attempt runs it, or a bare command
//! with a role) and runs every check of [`Check::ALL`] in order. Checks that could be spoiled by what an earlier
//! one did get a fresh session (a fresh process, a fresh private copy of the source, a fresh output folder):
//!
//! 1. the protocol session: `hello`, a second `hello`, another role's request (then a request of its own role,
//!    to show the session is still usable), a malformed request, unusual ids, then `shutdown`;
//! 2. `unknown-fields` (a `shutdown` with an extra member, which must be refused, not obeyed) and
//!    `unreadable-line` (a line that is not JSON, followed by `shutdown`), each alone;
//! 3. for an implementation, `execute-before-prepare` and `reset-then-again`;
//! 4. the role's scientific request three times, each alone: once for `outputs` (validated by
//!    [`WorkerOutputValidator`] after the worker exited), then with the same seed and with another for
//!    `determinism` (the evaluator has no seed, so it is judged twice);
//! 5. over every session: `nothing-left-running` (no process of the worker's session or group outlived a clean
//!    shutdown) and `stdout-frames-only`.
//!
//! Every session's worker is confined as an attempt's is (see `Kit::open`): it may write only that session's
//! output folder and its `TMPDIR`, so a worker that writes elsewhere (next to its code, in the repository, in
//! `/tmp`) fails here as it would in an attempt.
//!
//! Requests the typed session API can never send (a second `hello`, another role's request, malformed lines,
//! ids it did not allocate) go through [`WorkerSession::exchange_raw`], which keeps every other promise of a
//! session (deadlines, threads joined, processes reaped).
//!
//! What the checks need besides the worker: a materializer needs nothing; an implementation needs a dataset and
//! an evaluator a dataset and a result. For a repository worker the kit makes them with the repository's own
//! workers (one attempt of the repository's first problem, dataset and implementation, in the kit's work
//! folder). A bare command has no repository, so nothing can be validated: `outputs` and `determinism` are
//! skipped, and the checks that need a dataset (or a result) run only when [`BareCommand::dataset_dir`] (and
//! [`BareCommand::result_dir`]) are given, and are skipped, saying so, otherwise.

mod report;

use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub use report::{Check, CheckResult, EVIDENCE_BYTES, Outcome, Report, reports_json};

use crate::attempt::{self, AttemptPlan, RunOptions, store};
use crate::protocol::Method;
use crate::protocol::common::{Capability, FailureCode, Role, WorkerId};
use crate::protocol::frame::encode_value;
use crate::protocol::generated::attempt_record::AttemptFailure;
use crate::protocol::handshake::hello_request;
use crate::protocol::messages::{Path as WirePath, ProblemContractRef, RequestId};
use crate::protocol::strict::{JsonObject, SafeUint};
use crate::protocol::{Frame, encode_message};
use crate::repository::{CheckedRepository, Dataset, Implementation, Problem, Worker};
use crate::session::{
    Confinement, ConfinementReport, EvaluateParams, ExecuteParams, MaterializeParams, PrepareParams, ProtocolViolation,
    Reply, Request, SessionConfig, SessionError, SessionErrorKind, SessionSummary, WorkerCommand, WorkerSession,
};
use crate::{PhaseTimeouts, Sha256Digest, WorkerOutputValidator};
use report::evidence;

/// The dataset manifest's fixed name (DESIGN §5).
const DATASET_MANIFEST: &str = "dataset-manifest.json";

/// The seed of the kit's scientific requests, and the other one the determinism check compares with.
const SEED: u64 = 0;
const OTHER_SEED: u64 = 1;

/// Ids no worker could guess, each one a way an id can be unusual: non-ASCII, padded, escapes, separators and
/// control characters, a word JSON gives meaning to, and a long one.
fn unusual_ids() -> Vec<String> {
    vec![
        "été-🚀".to_owned(),
        " padded id ".to_owned(),
        "tab\there \"quoted\" back\\slash".to_owned(),
        "line\u{2028}separator\u{7}bell".to_owned(),
        "null".to_owned(),
        "x".repeat(300),
    ]
}

/// The worker the kit drives.
#[derive(Debug)]
pub enum Subject<'r> {
    /// A worker of a checked repository, run as an attempt runs it: in a private copy of its source, with its
    /// environment, identity and the repository's phase limits; its outputs are validated against the
    /// repository's schemas.
    Repository {
        /// The checked repository.
        repository: &'r CheckedRepository,
        /// The worker's name in `[workers]`.
        worker: String,
    },
    /// A command that is not part of a repository.
    Command(BareCommand),
}

/// A worker given as a bare command.
#[derive(Clone, Debug)]
pub struct BareCommand {
    /// The role to drive it as.
    pub role: Role,
    /// The program and its arguments (the program is found on `PATH`).
    pub command: Vec<OsString>,
    /// Its working directory, used in place (not copied), and the `source_dir` of `materialize`; an empty
    /// folder in the work folder when absent.
    pub source_dir: Option<PathBuf>,
    /// Environment variables besides the inherited allowlist.
    pub env: Vec<(OsString, OsString)>,
    /// A dataset folder (with `dataset-manifest.json`) for an implementation's or an evaluator's requests.
    pub dataset_dir: Option<PathBuf>,
    /// A result folder (with `result.json`) for an evaluator's requests.
    pub result_dir: Option<PathBuf>,
    /// Whether it may use TCP (what `network = true` declares for a repository's worker).
    pub network: bool,
}

/// How the kit runs.
#[derive(Clone, Debug)]
pub struct ConformanceOptions {
    /// A folder the kit makes its work folder in (sources, outputs, logs); the work folder is removed at the
    /// end.
    pub work_parent: PathBuf,
    /// Whether a determinism warning is a failure.
    pub strict: bool,
    /// The phase limits for a bare command (a repository worker gets the repository's `[timeouts]` over the
    /// documented defaults).
    pub timeouts: PhaseTimeouts,
}

impl ConformanceOptions {
    /// Options with the documented phase limits, not strict.
    pub fn new(work_parent: impl Into<PathBuf>) -> ConformanceOptions {
        ConformanceOptions {
            work_parent: work_parent.into(),
            strict: false,
            timeouts: PhaseTimeouts::documented_defaults(),
        }
    }
}

/// The kit could not start: nothing about the worker was learnt.
#[derive(Debug, thiserror::Error)]
pub enum ConformanceError {
    /// The repository has no worker of that name.
    #[error("the repository has no worker {name:?} (its workers: {known})")]
    UnknownWorker {
        /// The name asked for.
        name: String,
        /// The repository's worker names, comma-separated.
        known: String,
    },
    /// A bare command needs a program.
    #[error("the worker's command is empty")]
    EmptyCommand,
    /// The work folder could not be made or removed.
    #[error("the executor failed {action} {}: {source}", path.display())]
    Io {
        /// What the executor was doing.
        action: &'static str,
        /// Where.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
}

/// Drives the worker through every check; see the module documentation.
pub fn run(subject: &Subject<'_>, options: &ConformanceOptions) -> Result<Report, ConformanceError> {
    let target = Target::new(subject, options)?;
    let random = store::random_hex(8).map_err(|source| ConformanceError::Io {
        action: "drawing a random name in",
        path: options.work_parent.clone(),
        source,
    })?;
    let work = options.work_parent.join(format!("metewand-conformance-{random}"));
    fs::create_dir(&work).map_err(|source| ConformanceError::Io {
        action: "creating the work folder",
        path: work.clone(),
        source,
    })?;
    let mut kit = Kit {
        target,
        work: work.clone(),
        strict: options.strict,
        sessions: 0,
        confinement: None,
        results: Vec::new(),
        observed: Observed::default(),
        inputs: Inputs::default(),
    };
    kit.run_checks();
    let report = Report {
        worker: kit.target.label.clone(),
        role: kit.target.role,
        confinement: kit.confinement,
        checks: kit.results,
    };
    store::remove_tree(&work).map_err(|source| ConformanceError::Io {
        action: "removing the work folder",
        path: work,
        source,
    })?;
    Ok(report)
}

/// The worker, resolved: how to start it, what it is sent.
struct Target<'r> {
    role: Role,
    label: String,
    worker_id: WorkerId,
    timeouts: PhaseTimeouts,
    launch: Launch<'r>,
}

enum Launch<'r> {
    Repository { repository: &'r CheckedRepository, worker: &'r Worker },
    Command(BareCommand),
}

impl<'r> Target<'r> {
    fn new(subject: &Subject<'r>, options: &ConformanceOptions) -> Result<Target<'r>, ConformanceError> {
        match subject {
            Subject::Repository { repository, worker } => {
                let found = repository.worker(worker).ok_or_else(|| ConformanceError::UnknownWorker {
                    name: worker.clone(),
                    known: repository.workers().keys().cloned().collect::<Vec<_>>().join(", "),
                })?;
                let timeouts = attempt::phase_timeouts(repository);
                Ok(Target {
                    role: found.role(),
                    label: worker.clone(),
                    worker_id: WorkerId::try_from(found.identity().as_str()).expect("a checked identity is valid"),
                    timeouts,
                    launch: Launch::Repository { repository, worker: found },
                })
            }
            Subject::Command(bare) => {
                if bare.command.is_empty() {
                    return Err(ConformanceError::EmptyCommand);
                }
                let label = bare.command.iter().map(|arg| arg.to_string_lossy()).collect::<Vec<_>>().join(" ");
                // A bare command has no resolved identity; this one is derived from its role and argv, so it is
                // stable across runs and has the identity's shape.
                let preimage = format!("{}\0{label}", bare.role);
                let worker_id = format!("mw1-resolved-worker-{}", Sha256Digest::of(preimage.as_bytes()));
                Ok(Target {
                    role: bare.role,
                    label,
                    worker_id: WorkerId::try_from(worker_id.as_str()).expect("the identity's shape"),
                    timeouts: options.timeouts,
                    launch: Launch::Command(bare.clone()),
                })
            }
        }
    }
}

/// What the scientific requests are given.
#[derive(Default)]
struct Inputs {
    /// The dataset folder for `prepare` and `evaluate`, or why there is none.
    dataset: Option<Result<PathBuf, String>>,
    /// The result folder for `evaluate`, or why there is none.
    result: Option<Result<PathBuf, String>>,
}

/// What every session of the kit showed, for the checks over the whole run.
#[derive(Default)]
struct Observed {
    /// Lines on stdout that were not frames: which check's session, and what was wrong.
    not_frames: Vec<(Check, String, Vec<String>)>,
    /// Sessions that shut down cleanly, and how many processes each left running.
    left_running: Vec<(Check, usize)>,
}

/// A session of the kit, with its folder and the output folder its worker may write.
struct Opened {
    session: WorkerSession,
    dir: PathBuf,
    source: PathBuf,
    out: PathBuf,
}

/// What went wrong in one step of a check.
struct Finding {
    why: String,
    sent: Option<String>,
    received: Option<String>,
    stderr_tail: Vec<String>,
}

impl Finding {
    fn new(why: impl Into<String>) -> Finding {
        Finding { why: why.into(), sent: None, received: None, stderr_tail: Vec::new() }
    }

    /// The failed result of `check` that this finding explains.
    fn failed(self, check: Check) -> CheckResult {
        CheckResult {
            sent: self.sent,
            received: self.received,
            stderr_tail: self.stderr_tail,
            ..CheckResult::new(check, Outcome::Fail, self.why)
        }
    }

    fn sent(mut self, sent: &[u8]) -> Finding {
        self.sent = Some(evidence(sent));
        self
    }

    fn received(mut self, received: &[u8]) -> Finding {
        self.received = Some(evidence(received));
        self
    }

    fn session(sent: Option<&[u8]>, error: &SessionError) -> Finding {
        Finding {
            why: format!("{} failed: {}", error.phase(), error.kind()),
            sent: sent.map(evidence),
            received: Some(evidence(error.kind().to_string().as_bytes())),
            stderr_tail: error.stderr_tail().to_vec(),
        }
    }
}

type Step<T> = Result<T, Finding>;

struct Kit<'r> {
    target: Target<'r>,
    work: PathBuf,
    strict: bool,
    sessions: usize,
    /// The confinement the first session's worker got (every session asks for the same).
    confinement: Option<ConfinementReport>,
    results: Vec<CheckResult>,
    observed: Observed,
    inputs: Inputs,
}

impl Kit<'_> {
    fn run_checks(&mut self) {
        // 1. The protocol session.
        let started = Instant::now();
        let opened = self.open(Check::Hello);
        let mut opened = match opened {
            Ok(opened) => {
                let handshake = opened.session.handshake();
                let sdk = match &handshake.sdk {
                    Some(sdk) => format!("sdk {} {}", sdk.name.as_str(), sdk.version.as_str()),
                    None => "no sdk (a direct protocol worker)".to_owned(),
                };
                let reported: Vec<String> = handshake.reported.as_slice().iter().map(ToString::to_string).collect();
                let why = format!(
                    "protocol {} selected, worker id echoed, {sdk}, capabilities [{}]",
                    handshake.protocol,
                    reported.join(", ")
                );
                self.push(Check::Hello, Ok(why), started);
                opened
            }
            Err(problem) => {
                self.push(Check::Hello, Err(problem), started);
                for check in &Check::ALL[1..] {
                    self.results.push(CheckResult::new(*check, Outcome::Skip, "hello failed, so nothing else can run"));
                }
                return;
            }
        };
        let step = |kit: &mut Kit<'_>, check: Check, opened: &mut Opened| {
            let started = Instant::now();
            let outcome = match check {
                Check::SecondHello => kit.second_hello(opened),
                Check::OtherRole => kit.other_role(opened),
                Check::MalformedRequest => kit.malformed(opened),
                _ => kit.unusual_ids(opened),
            };
            kit.push(check, with_tail(outcome, &opened.session), started);
        };
        for check in [Check::SecondHello, Check::OtherRole, Check::MalformedRequest] {
            step(self, check, &mut opened);
        }
        let started = Instant::now();
        let outcome = self.alone(Check::UnknownFields, Kit::unknown_fields);
        self.push(Check::UnknownFields, outcome, started);
        step(self, Check::UnusualIds, &mut opened);
        let shutdown_started = Instant::now();
        let shutdown = self.close(Check::Shutdown, opened);
        let shutdown_took = shutdown_started.elapsed();

        // 2. The line without an id.
        let started = Instant::now();
        let outcome = self.unreadable_line();
        self.push(Check::UnreadableLine, outcome, started);

        // 3. The implementation's state rules.
        if self.target.role == Role::Implementation {
            let started = Instant::now();
            let outcome = self.alone(Check::ExecuteBeforePrepare, Kit::execute_before_prepare);
            self.push(Check::ExecuteBeforePrepare, outcome, started);
            let started = Instant::now();
            match self.needs() {
                Ok(()) => {
                    let outcome = self.alone(Check::ResetThenAgain, Kit::reset_then_again);
                    self.push(Check::ResetThenAgain, outcome, started);
                }
                Err(why) => self.results.push(CheckResult::new(Check::ResetThenAgain, Outcome::Skip, why)),
            }
        } else {
            for check in [Check::ExecuteBeforePrepare, Check::ResetThenAgain] {
                let why = format!("only for an implementation; this worker is a {}", self.target.role);
                self.results.push(CheckResult::new(check, Outcome::Skip, why));
            }
        }

        // 4. Outputs and determinism.
        self.science();

        // The shutdown of the protocol session, reported in its place in the order.
        let outcome = shutdown.map(|(summary, limit)| {
            let took = summary.phases.last().map_or(Duration::ZERO, |timing| timing.duration);
            format!("acknowledged and exited with status 0 in {} (limit {})", millis(took), millis(limit))
        });
        self.push(Check::Shutdown, outcome, shutdown_started);
        self.results.last_mut().expect("just pushed").duration = shutdown_took;

        // 5. Over every session.
        self.whole_run();
    }

    fn push(&mut self, check: Check, outcome: Step<String>, started: Instant) {
        let mut result = match outcome {
            Ok(why) => CheckResult::new(check, Outcome::Pass, why),
            Err(problem) => problem.failed(check),
        };
        result.duration = started.elapsed();
        self.results.push(result);
    }

    // -- sessions

    /// Starts a fresh session (a fresh process in a fresh copy of its source) and completes `hello`.
    ///
    /// The worker is confined as an attempt confines it: it may write only the session's `out/` (every output
    /// folder the checks name is in it) and `tmp/` (its `TMPDIR`), use TCP only if it declares `network = true`
    /// (`--network` for a bare command), write no file larger than the repository's `[limits] output_bytes`, its
    /// processes are kept in a PID namespace where the kernel allows one, and its private view hides the kit's
    /// work folder (the other sessions' folders, the inputs' store) and the repository, but for its own folders,
    /// the inputs made so far and what its command names.
    fn open(&mut self, check: Check) -> Step<Opened> {
        self.sessions += 1;
        let dir = self.work.join(format!("session-{}-{}", self.sessions, check.name()));
        let (out, tmp) = (dir.join("out"), dir.join("tmp"));
        for folder in [&dir, &out, &tmp] {
            fs::create_dir(folder)
                .map_err(|error| Finding::new(format!("the executor could not create a folder: {error}")))?;
        }
        let own_source = dir.join("source");
        let mut confinement = Confinement::new().writable(&out).writable(&tmp).private_view().hide(&self.work);
        let inputs = [&self.inputs.dataset, &self.inputs.result];
        for input in inputs.into_iter().flatten().flatten() {
            confinement = confinement.readable(input);
        }
        let (command, source) = match &self.target.launch {
            Launch::Repository { repository, worker } => {
                confinement = confinement.hide_unless_named(repository.root());
                store::copy_source(repository, worker, &own_source)
                    .map_err(|error| Finding::new(format!("the executor could not copy the source: {error}")))?;
                confinement = confinement.network(worker.network()).limits(repository.limits());
                (attempt::worker_command(worker, &own_source, Some(&tmp)), own_source)
            }
            Launch::Command(bare) => {
                let source = match &bare.source_dir {
                    Some(source) => source.clone(),
                    None => {
                        fs::create_dir(&own_source).map_err(|error| {
                            Finding::new(format!("the executor could not create a folder: {error}"))
                        })?;
                        own_source
                    }
                };
                // A bare command has no `[limits]`: the defaults bound it.
                confinement = confinement.network(bare.network).limits(crate::session::Limits::default());
                let mut command = WorkerCommand::new(bare.command[0].clone(), &source)
                    .args(bare.command[1..].iter().cloned())
                    .env("TMPDIR", &tmp);
                for (name, value) in &bare.env {
                    command = command.env(name, value);
                }
                (command, source)
            }
        };
        let mut config =
            SessionConfig::new(command, self.target.worker_id.clone(), self.target.timeouts, dir.join("stderr.log"))
                .confine(confinement);
        if self.target.role == Role::Implementation {
            config = config.select(Capability::OneShot);
        }
        let hello = self.hello_line("0");
        match WorkerSession::connect(self.target.role, config) {
            Ok(session) => {
                self.confinement.get_or_insert(session.confinement());
                Ok(Opened { session, dir, source, out })
            }
            Err(error) => {
                self.observe(check, &error);
                Err(Finding::session(Some(&hello), &error))
            }
        }
    }

    /// Shuts a session down; returns its summary and the shutdown limit.
    fn close(&mut self, check: Check, opened: Opened) -> Step<(SessionSummary, Duration)> {
        let line = encode_message(&json!({"id": "n", "method": "shutdown"})).expect("small");
        match opened.session.shutdown() {
            Ok(summary) => {
                self.observed.left_running.push((check, summary.left_running));
                Ok((summary, self.target.timeouts.shutdown))
            }
            Err(error) => {
                self.observe(check, &error);
                Err(Finding::session(Some(&line), &error))
            }
        }
    }

    /// Runs `body` in a fresh session of its own, shut down afterwards (a failed shutdown fails the check).
    fn alone(&mut self, check: Check, body: fn(&mut Self, &mut Opened) -> Step<String>) -> Step<String> {
        let mut opened = self.open(check)?;
        let outcome = with_tail(body(self, &mut opened), &opened.session);
        if !opened.session.is_usable() {
            return outcome;
        }
        let closed = self.close(check, opened);
        let why = outcome?;
        closed.map(|_| why)
    }

    /// Notes what an error shows about the whole run.
    fn observe(&mut self, check: Check, error: &SessionError) {
        if let SessionErrorKind::ProtocolViolation(
            violation @ (ProtocolViolation::Frame(_) | ProtocolViolation::UnsolicitedOutput { .. }),
        ) = error.kind()
        {
            self.observed.not_frames.push((check, violation.to_string(), error.stderr_tail().to_vec()));
        }
    }

    /// One raw exchange: the line as given, the frame that came back.
    fn raw(&mut self, check: Check, opened: &mut Opened, phase: Method, line: &[u8]) -> Step<Frame> {
        opened.session.exchange_raw(phase, line.to_vec()).map_err(|error| {
            self.observe(check, &error);
            Finding::session(Some(line), &error)
        })
    }

    fn hello_line(&self, id: &str) -> Vec<u8> {
        let id = RequestId::try_from(id.to_owned()).expect("the kit's ids are nonempty");
        encode_message(&hello_request(id, self.target.role, self.target.worker_id.clone())).expect("hello is small")
    }

    // -- the protocol session's checks

    fn second_hello(&mut self, opened: &mut Opened) -> Step<String> {
        let line = self.hello_line("second-hello");
        let frame = self.raw(Check::SecondHello, opened, Method::Hello, &line)?;
        match refusal(&frame, "second-hello") {
            Ok(code) => Ok(format!("refused with {code}")),
            Err(why) => Err(Finding::new(why).sent(&line).received(frame.line())),
        }
    }

    fn other_role(&mut self, opened: &mut Opened) -> Step<String> {
        let (method, request) = self.other_role_request(opened);
        let line = encode_value(&request).expect("small");
        let frame = self.raw(Check::OtherRole, opened, method, &line)?;
        match refusal(&frame, "other-role") {
            Ok(FailureCode::UnsupportedOperation) => {}
            Ok(code) => {
                let why =
                    format!("{method} (another role's request) was refused with {code}, not unsupported_operation");
                return Err(Finding::new(why).sent(&line).received(frame.line()));
            }
            Err(why) => return Err(Finding::new(why).sent(&line).received(frame.line())),
        }
        // Still usable: a request of its own role is answered (any answer, success or structured failure).
        let probe =
            encode_value(&json!({"id": "still-usable", "method": self.own_method_phase().as_str()})).expect("small");
        let frame = self.raw(Check::OtherRole, opened, self.own_method_phase(), &probe)?;
        if frame.value().get("id").and_then(Value::as_str) != Some("still-usable") {
            let why = "after refusing another role's request, the worker did not answer its own role's request";
            return Err(Finding::new(why).sent(&probe).received(frame.line()));
        }
        Ok(format!(
            "{method} refused with unsupported_operation; the session then answered {}",
            self.own_method_phase().as_str()
        ))
    }

    fn malformed(&mut self, opened: &mut Opened) -> Step<String> {
        // The role's first request with fields (`reset` has none, so it cannot be missing any).
        let phase = match self.target.role {
            Role::DatasetMaterializer => Method::Materialize,
            Role::Implementation => Method::Prepare,
            Role::ProblemEvaluator => Method::Evaluate,
        };
        let own = phase.as_str();
        let probes = [
            (json!({"id": "malformed-missing", "method": own}), "a request missing its fields"),
            (json!({"id": "malformed-method", "method": 7}), "a request whose method is a number"),
            (malformed_types(self.target.role), "a request whose fields have the wrong types"),
        ];
        for (request, what) in probes {
            let line = encode_value(&request).expect("small");
            let id = request["id"].as_str().expect("a string id");
            let frame = self.raw(Check::MalformedRequest, opened, phase, &line)?;
            match refusal(&frame, id) {
                Ok(FailureCode::InvalidRequest) => {}
                Ok(code) => {
                    let why = format!("{what} was refused with {code}, not invalid_request");
                    return Err(Finding::new(why).sent(&line).received(frame.line()));
                }
                Err(why) => return Err(Finding::new(format!("{what}: {why}")).sent(&line).received(frame.line())),
            }
        }
        Ok("missing fields, a mistyped method and mistyped fields refused with invalid_request".to_owned())
    }

    fn unknown_fields(&mut self, opened: &mut Opened) -> Step<String> {
        let request = json!({"id": "unknown-field", "method": "shutdown", "unexpected": true});
        let line = encode_value(&request).expect("small");
        let frame = self.raw(Check::UnknownFields, opened, Method::Shutdown, &line)?;
        match refusal(&frame, "unknown-field") {
            Ok(FailureCode::InvalidRequest) => {
                Ok("a shutdown with an unknown field refused with invalid_request".to_owned())
            }
            Ok(code) => Err(Finding::new(format!("refused with {code}, not invalid_request"))
                .sent(&line)
                .received(frame.line())),
            Err(why) => Err(Finding::new(why).sent(&line).received(frame.line())),
        }
    }

    fn unusual_ids(&mut self, opened: &mut Opened) -> Step<String> {
        let ids = unusual_ids();
        for id in &ids {
            let line = self.hello_line(id);
            let frame = self.raw(Check::UnusualIds, opened, Method::Hello, &line)?;
            let echoed = frame.value().get("id").and_then(Value::as_str);
            if echoed != Some(id.as_str()) {
                let why = match echoed {
                    Some(echoed) => format!("the id {id:?} came back as {echoed:?}"),
                    None => format!("the answer to the id {id:?} carries no string id"),
                };
                return Err(Finding::new(why).sent(&line).received(frame.line()));
            }
        }
        Ok(format!("{} unusual ids echoed verbatim", ids.len()))
    }

    fn unreadable_line(&mut self) -> Step<String> {
        let mut opened = self.open(Check::UnreadableLine)?;
        let mut line = b"this line is not json\n".to_vec();
        line.extend(encode_value(&json!({"id": "after-unreadable", "method": "shutdown"})).expect("small"));
        match opened.session.exchange_raw(Method::Shutdown, line.clone()) {
            Ok(frame) => {
                let value = frame.value();
                if value.get("id").and_then(Value::as_str) == Some("after-unreadable")
                    && value.get("ok") == Some(&Value::Bool(true))
                {
                    Ok("the line was ignored and the following shutdown acknowledged".to_owned())
                } else {
                    let why = "a line without an id cannot be answered, but the worker wrote a frame for it";
                    with_tail(Err(Finding::new(why).sent(&line).received(frame.line())), &opened.session)
                }
            }
            Err(error) => {
                self.observe(Check::UnreadableLine, &error);
                match error.kind() {
                    SessionErrorKind::WorkerExit { status, .. } => {
                        let status = status.map_or("an unknown status".to_owned(), |status| status.to_string());
                        Ok(format!("the worker ended without answering ({status})"))
                    }
                    _ => Err(Finding::session(Some(&line), &error)),
                }
            }
        }
    }

    // -- the implementation's state rules

    fn execute_before_prepare(&mut self, opened: &mut Opened) -> Step<String> {
        let result_dir = make_dir(&opened.out.join("result"))?;
        let sent = format!("execute {{\"result_dir\": {:?}}} with no prepare before it", result_dir.as_str());
        match opened.session.call(Request::Execute(ExecuteParams { result_dir })) {
            Ok(_) => Err(Finding::new("execute was answered with a result although nothing was prepared")
                .sent(sent.as_bytes())
                .received(b"a successful execute response")),
            Err(error) => match error.kind() {
                SessionErrorKind::WorkerFailure { code, .. } => Ok(format!("refused with {code}")),
                _ => {
                    self.observe(Check::ExecuteBeforePrepare, &error);
                    Err(Finding::session(Some(sent.as_bytes()), &error))
                }
            },
        }
    }

    fn reset_then_again(&mut self, opened: &mut Opened) -> Step<String> {
        for round in 1..=2 {
            let prepare = self.prepare_params(SEED)?;
            let result_dir = make_dir(&opened.out.join(format!("result-{round}")))?;
            let steps = [Request::Prepare(prepare), Request::Execute(ExecuteParams { result_dir })];
            for request in steps.into_iter().chain((round == 1).then_some(Request::Reset)) {
                let method = request.method();
                if let Err(error) = opened.session.call(request) {
                    self.observe(Check::ResetThenAgain, &error);
                    let sent = format!("{method} (round {round} of prepare, execute, reset, prepare, execute)");
                    return Err(Finding::session(Some(sent.as_bytes()), &error));
                }
            }
        }
        Ok("prepare, execute, reset, prepare, execute all answered".to_owned())
    }

    // -- outputs and determinism

    fn science(&mut self) {
        let started = Instant::now();
        if let Err(why) = self.needs() {
            self.results.push(CheckResult::new(Check::Outputs, Outcome::Skip, why.clone()));
            self.results.push(CheckResult::new(Check::Determinism, Outcome::Skip, why));
            return;
        }
        let validating = matches!(self.target.launch, Launch::Repository { .. });
        let first = self.scientific_run(SEED);
        let first = match first {
            Ok(inventory) => {
                let why = match &inventory {
                    Some(inventory) => format!("{} accepted by the validator", inventory.what),
                    None => format!("{} answered", self.own_method_phase().as_str()),
                };
                self.push(Check::Outputs, Ok(why), started);
                inventory
            }
            Err(problem) => {
                self.push(Check::Outputs, Err(problem), started);
                self.results.push(CheckResult::new(
                    Check::Determinism,
                    Outcome::Skip,
                    "needs an output the validator accepts",
                ));
                return;
            }
        };
        if !validating {
            // Replace the pass with a skip that says why nothing was validated.
            let why = format!(
                "{} answered, but a bare command has no repository whose schemas could validate its output",
                self.own_method_phase().as_str()
            );
            let result = self.results.last_mut().expect("just pushed");
            result.outcome = Outcome::Skip;
            result.why = why;
            self.results.push(CheckResult::new(
                Check::Determinism,
                Outcome::Skip,
                "compares validated inventories, which a bare command does not have",
            ));
            return;
        }
        let first = first.expect("a repository worker's output is validated");
        let started = Instant::now();
        let outcome = self.determinism(&first);
        let mut result = match outcome {
            Ok(Ok(why)) => CheckResult::new(Check::Determinism, Outcome::Pass, why),
            Ok(Err(why)) => {
                let outcome = if self.strict { Outcome::Fail } else { Outcome::Warn };
                CheckResult::new(Check::Determinism, outcome, why)
            }
            Err(problem) => problem.failed(Check::Determinism),
        };
        result.duration = started.elapsed();
        self.results.push(result);
    }

    /// `Ok(Ok(why))` deterministic, `Ok(Err(why))` a warning, `Err` a run that failed.
    fn determinism(&mut self, first: &Inventory) -> Step<Result<String, String>> {
        let again = self.scientific_run(SEED)?.expect("validated");
        if again.entries != first.entries {
            return Ok(Err(format!(
                "the same seed gave different outputs: {}",
                first.difference(&again).unwrap_or_else(|| "the inventories differ".to_owned())
            )));
        }
        if self.target.role == Role::ProblemEvaluator {
            return Ok(Ok("the same inputs gave the same metrics and verdict twice".to_owned()));
        }
        let other = self.scientific_run(OTHER_SEED)?.expect("validated");
        if other.entries == first.entries {
            return Ok(Err(format!("seeds {SEED} and {OTHER_SEED} gave the same output; does it use its seed?")));
        }
        Ok(Ok(format!("seed {SEED} twice gave the same output, seed {OTHER_SEED} another")))
    }

    /// The role's scientific request in a fresh session, shut down, then (for a repository worker) validated.
    fn scientific_run(&mut self, seed: u64) -> Step<Option<Inventory>> {
        let check = Check::Outputs;
        let mut opened = self.open(check)?;
        let seed = SafeUint::try_from(seed).expect("a small seed");
        let out = opened.out.clone();
        let (sent, outcome) = match self.target.role {
            Role::DatasetMaterializer => {
                let params = MaterializeParams {
                    source_dir: wire_path(&opened.source)?,
                    dataset_parameters: self.dataset_parameters(),
                    dataset_seed: seed,
                    output_dir: wire_path(&out)?,
                };
                let sent = format!("materialize with seed {seed} into {}", out.display());
                (sent, opened.session.call(Request::Materialize(params)))
            }
            Role::Implementation => {
                let prepare = self.prepare_params(seed.get())?;
                let sent = format!("prepare with implementation seed {seed}, then execute into {}", out.display());
                let execute = ExecuteParams { result_dir: wire_path(&out)? };
                let outcome = opened
                    .session
                    .call(Request::Prepare(prepare))
                    .and_then(|_| opened.session.call(Request::Execute(execute)));
                (sent, outcome)
            }
            Role::ProblemEvaluator => {
                let params = self.evaluate_params(&out.join("metrics.json"))?;
                let sent = format!("evaluate into {}", out.join("metrics.json").display());
                (sent, opened.session.call(Request::Evaluate(params)))
            }
        };
        let reply = match outcome {
            Ok(reply) => reply,
            Err(error) => {
                self.observe(check, &error);
                return Err(Finding::session(Some(sent.as_bytes()), &error));
            }
        };
        self.close(check, opened)?;
        let Launch::Repository { repository, .. } = &self.target.launch else { return Ok(None) };
        let validator = WorkerOutputValidator::new(repository);
        let rejected = |error: crate::ValidationError| {
            Finding::new(format!("the output was rejected: {error}")).sent(sent.as_bytes())
        };
        Ok(Some(match reply {
            Reply::Materialized(response) => {
                let dataset = self.own_dataset().expect("checked by needs");
                let manifest = response.dataset.manifest.to_string();
                if manifest != DATASET_MANIFEST {
                    return Err(Finding::new(format!(
                        "the dataset's manifest must be {DATASET_MANIFEST:?} at its root, not {manifest:?}"
                    )));
                }
                let validated = validator.validate_dataset(dataset, &out, &manifest).map_err(rejected)?;
                Inventory::of_files("the dataset", validated.files().iter().chain([validated.manifest_file()]))
            }
            Reply::Executed(response) => {
                let problem = self.problem().expect("checked by needs");
                let validated =
                    validator.validate_result(problem, &out, &response.result.manifest).map_err(rejected)?;
                Inventory::of_files("the result", validated.files().iter().chain([validated.manifest_file()]))
            }
            Reply::Evaluated(response) => {
                let problem = self.problem().expect("checked by needs");
                let validated = validator.validate_metrics(problem, &out).map_err(rejected)?;
                let mut inventory = Inventory::of_files("the metrics", [validated.file()]);
                let verdict = serde_json::to_value(response.verdict).expect("a verdict is a string");
                inventory.entries.push(("verdict".to_owned(), verdict.to_string()));
                inventory
            }
            Reply::Acknowledged => unreachable!("the last request of a scientific run has an answer of its own"),
        }))
    }

    // -- over every session

    fn whole_run(&mut self) {
        let result = match self.observed.left_running.iter().find(|(_, count)| *count > 0) {
            Some((check, count)) => CheckResult::new(
                Check::NothingLeftRunning,
                Outcome::Fail,
                format!(
                    "{count} process(es) of the worker's were still running after its clean shutdown (in the session for {check})"
                ),
            ),
            None if self.observed.left_running.is_empty() => {
                CheckResult::new(Check::NothingLeftRunning, Outcome::Skip, "no session shut down cleanly")
            }
            None => CheckResult::new(
                Check::NothingLeftRunning,
                Outcome::Pass,
                format!("nothing was left running after {} clean shutdown(s)", self.observed.left_running.len()),
            ),
        };
        self.results.push(result);
        let result = match self.observed.not_frames.first() {
            Some((check, violation, tail)) => CheckResult {
                why: format!(
                    "the worker wrote something that is not a frame on stdout (in the session for {check}): {violation}"
                ),
                received: Some(evidence(violation.as_bytes())),
                stderr_tail: tail.clone(),
                ..CheckResult::new(Check::StdoutFramesOnly, Outcome::Fail, "")
            },
            None => CheckResult::new(
                Check::StdoutFramesOnly,
                Outcome::Pass,
                format!("only frames on stdout in {} session(s)", self.sessions),
            ),
        };
        self.results.push(result);
    }

    // -- what the requests carry

    fn own_method_phase(&self) -> Method {
        match self.target.role {
            Role::DatasetMaterializer => Method::Materialize,
            Role::Implementation => Method::Reset,
            Role::ProblemEvaluator => Method::Evaluate,
        }
    }

    fn other_role_request(&self, opened: &Opened) -> (Method, Value) {
        let dir = opened.dir.to_string_lossy().into_owned();
        match self.target.role {
            Role::DatasetMaterializer | Role::ProblemEvaluator => (
                Method::Prepare,
                json!({"dataset_dir": dir, "id": "other-role", "implementation_parameters": {},
                    "implementation_seed": 0, "method": "prepare", "problem_contract_id": placeholder_contract(),
                    "problem_parameters": {}}),
            ),
            Role::Implementation => (
                Method::Evaluate,
                json!({"dataset_dir": dir, "id": "other-role", "method": "evaluate",
                    "metrics_path": format!("{dir}/metrics.json"), "problem_contract_id": placeholder_contract(),
                    "problem_parameters": {}, "result_dir": dir}),
            ),
        }
    }

    fn dataset_parameters(&self) -> JsonObject {
        self.own_dataset().map_or_else(JsonObject::new, |dataset| dataset.parameters().clone())
    }

    /// The repository's first dataset made by this materializer.
    fn own_dataset(&self) -> Option<&Dataset> {
        let Launch::Repository { repository, .. } = &self.target.launch else { return None };
        repository.datasets().values().find(|dataset| dataset.materializer() == self.target.label)
    }

    /// The problem the requests pose: the first the evaluator judges, or the repository's first.
    fn problem(&self) -> Option<&Problem> {
        let Launch::Repository { repository, .. } = &self.target.launch else { return None };
        let mut problems = repository.problems().values();
        match self.target.role {
            Role::ProblemEvaluator => problems.find(|problem| problem.evaluator() == self.target.label),
            _ => problems.next(),
        }
    }

    /// The implementation entry whose parameters the requests carry: the first naming this worker.
    fn implementation(&self) -> Option<&Implementation> {
        let Launch::Repository { repository, .. } = &self.target.launch else { return None };
        repository.implementations().values().find(|implementation| implementation.worker() == self.target.label)
    }

    fn contract(&self) -> ProblemContractRef {
        let id = self.problem().map_or_else(placeholder_contract, |problem| problem.contract_id().as_str().to_owned());
        ProblemContractRef::try_from(id).expect("a contract id is nonempty")
    }

    fn prepare_params(&mut self, seed: u64) -> Step<PrepareParams> {
        let dataset = self.dataset()?;
        Ok(PrepareParams {
            dataset_dir: wire_path(&dataset)?,
            problem_contract_id: self.contract(),
            problem_parameters: self.problem().map_or_else(JsonObject::new, |p| p.parameters().clone()),
            implementation_parameters: self
                .implementation()
                .map_or_else(JsonObject::new, |implementation| implementation.parameters().clone()),
            implementation_seed: SafeUint::try_from(seed).expect("a small seed"),
        })
    }

    fn evaluate_params(&mut self, metrics: &Path) -> Step<EvaluateParams> {
        let dataset = self.dataset()?;
        let result = self.result()?;
        Ok(EvaluateParams {
            dataset_dir: wire_path(&dataset)?,
            result_dir: wire_path(&result)?,
            metrics_path: wire_path(metrics)?,
            problem_contract_id: self.contract(),
            problem_parameters: self.problem().map_or_else(JsonObject::new, |p| p.parameters().clone()),
        })
    }

    /// Whether the scientific requests can be made: `Err(why)` when an input is missing.
    fn needs(&mut self) -> Result<(), String> {
        match self.target.role {
            Role::DatasetMaterializer => match &self.target.launch {
                Launch::Repository { .. } if self.own_dataset().is_none() => {
                    Err(format!("no dataset of the repository is made by {}", self.target.label))
                }
                _ => Ok(()),
            },
            Role::Implementation => self.dataset().map(drop).map_err(|problem| problem.why),
            Role::ProblemEvaluator => {
                if matches!(self.target.launch, Launch::Repository { .. }) && self.problem().is_none() {
                    return Err(format!("no problem of the repository is judged by {}", self.target.label));
                }
                self.dataset().and_then(|_| self.result()).map(drop).map_err(|problem| problem.why)
            }
        }
    }

    fn dataset(&mut self) -> Step<PathBuf> {
        self.provide();
        self.inputs.dataset.clone().expect("provided").map_err(Finding::new)
    }

    fn result(&mut self) -> Step<PathBuf> {
        self.provide();
        self.inputs.result.clone().expect("provided").map_err(Finding::new)
    }

    /// Finds or makes, once, the dataset (and for an evaluator the result) the requests need.
    fn provide(&mut self) {
        if self.inputs.dataset.is_none() {
            let (dataset, result) = self.make_inputs();
            self.inputs = Inputs { dataset: Some(dataset), result: Some(result) };
        }
    }

    fn make_inputs(&self) -> (Result<PathBuf, String>, Result<PathBuf, String>) {
        let repository = match &self.target.launch {
            Launch::Command(bare) => {
                let dataset = bare.dataset_dir.clone().ok_or_else(|| {
                    format!("a bare {} needs a dataset folder (--dataset DIR) for this", self.target.role)
                });
                let result = bare
                    .result_dir
                    .clone()
                    .ok_or_else(|| "a bare problem_evaluator needs a result folder (--result DIR) for this".to_owned());
                return (dataset, result);
            }
            Launch::Repository { repository, .. } => *repository,
        };
        match self.make_repository_inputs(repository) {
            Ok((dataset, result)) => (Ok(dataset), result),
            Err(why) => (Err(why.clone()), Err(why)),
        }
    }

    /// The repository's own workers make the dataset: its materializer alone for an implementation, a whole
    /// attempt of the repository's first implementation for an evaluator, which also needs its result.
    fn make_repository_inputs(
        &self,
        repository: &CheckedRepository,
    ) -> Result<(PathBuf, Result<PathBuf, String>), String> {
        let problem = self.problem().ok_or("the repository has no problem to pose")?;
        let dataset = repository.datasets().values().next().ok_or("the repository has no dataset")?;
        let implementation = match self.target.role {
            Role::Implementation => self.implementation(),
            _ => repository.implementations().values().next(),
        }
        .ok_or("the repository has no implementation entry for this")?;
        let seed = SafeUint::ZERO;
        let plan = AttemptPlan::new(repository, problem.name(), dataset.name(), implementation.name(), seed, seed)
            .map_err(|error| error.to_string())?;
        let folder = self.work.join("inputs");
        let state = self.work.join("inputs-state");
        for dir in [&folder, &state] {
            fs::create_dir_all(dir).map_err(|error| format!("the executor could not create a folder: {error}"))?;
        }
        let options = RunOptions::new(state.clone());
        let entry = state.join("datasets").join(dataset.key(seed).as_str());
        let validator = WorkerOutputValidator::new(repository);
        let no_dataset = |failure: Option<&AttemptFailure>| {
            format!("the repository's materializer could not make dataset {:?}: {}", dataset.name(), describe(failure))
        };
        if self.target.role != Role::ProblemEvaluator {
            let made = plan.materialize_dataset(&folder, &options);
            validator
                .validate_dataset(dataset, &entry, DATASET_MANIFEST)
                .map_err(|_| no_dataset(made.failure.as_ref()))?;
            return Ok((entry, Err("only an evaluator is given a result".to_owned())));
        }
        let record = plan.run(&folder, &options);
        validator
            .validate_dataset(dataset, &entry, DATASET_MANIFEST)
            .map_err(|_| no_dataset(record.failure.as_ref()))?;
        let result_dir = folder.join("work/result");
        let result = validator.validate_result(problem, &result_dir, "result.json").map(|_| result_dir).map_err(|_| {
            format!(
                "implementation {:?} could not make a result: {}",
                implementation.name(),
                describe(record.failure.as_ref())
            )
        });
        Ok((entry, result))
    }
}

/// A failure with the worker's stderr tail so far, unless it already has one (from the session error).
fn with_tail<T>(outcome: Step<T>, session: &WorkerSession) -> Step<T> {
    outcome.map_err(|mut finding| {
        if finding.stderr_tail.is_empty() {
            finding.stderr_tail = session.stderr_tail();
        }
        finding
    })
}

/// One line about an attempt that did not give the kit what it needed.
fn describe(failure: Option<&AttemptFailure>) -> String {
    match failure {
        Some(failure) => failure.message.as_str().lines().next().unwrap_or_default().to_owned(),
        None => "its attempt did not get that far".to_owned(),
    }
}

/// A validated output's inventory: every file with its digest.
struct Inventory {
    what: &'static str,
    entries: Vec<(String, String)>,
}

impl Inventory {
    fn of_files<'f>(
        what: &'static str,
        files: impl IntoIterator<Item = &'f crate::validate::ValidatedFile>,
    ) -> Inventory {
        // In the validator's order (sorted by path), the manifest last: a difference is reported in a data file
        // before the manifest that lists it.
        let entries: Vec<(String, String)> =
            files.into_iter().map(|file| (file.path().to_string(), file.sha256().to_string())).collect();
        Inventory { what, entries }
    }

    /// The first entry that differs, as one phrase.
    fn difference(&self, other: &Inventory) -> Option<String> {
        for (path, digest) in &self.entries {
            match other.entries.iter().find(|(other_path, _)| other_path == path) {
                None => return Some(format!("{path} is missing the second time")),
                Some((_, other_digest)) if other_digest != digest => {
                    return Some(format!("{path} has another content the second time"));
                }
                Some(_) => {}
            }
        }
        other
            .entries
            .iter()
            .find(|(path, _)| !self.entries.iter().any(|(own, _)| own == path))
            .map(|(path, _)| format!("{path} appears only the second time"))
    }
}

/// The code of a structured failure answering `id`, or why the frame is not one.
fn refusal(frame: &Frame, id: &str) -> Result<FailureCode, String> {
    let value = frame.value();
    let echoed = value.get("id").and_then(Value::as_str);
    if echoed != Some(id) {
        return Err(format!("the answer carries the id {echoed:?}, not {id:?}"));
    }
    if value.get("ok") == Some(&Value::Bool(true)) {
        return Err("the request was accepted (ok: true), not refused".to_owned());
    }
    match crate::protocol::decode_message::<crate::protocol::messages::FailureResponse>(frame) {
        Ok(failure) => Ok(failure.error.code),
        Err(error) => Err(format!("the answer is not a valid failure response: {error}")),
    }
}

/// A request of the role's own method whose fields all have the wrong types.
fn malformed_types(role: Role) -> Value {
    match role {
        Role::DatasetMaterializer => json!({"dataset_parameters": [], "dataset_seed": "seven", "id": "malformed-types",
            "method": "materialize", "output_dir": 17, "source_dir": false}),
        Role::Implementation => json!({"dataset_dir": 17, "id": "malformed-types", "implementation_parameters": [],
            "implementation_seed": -1, "method": "prepare", "problem_contract_id": "", "problem_parameters": null}),
        Role::ProblemEvaluator => json!({"dataset_dir": 17, "id": "malformed-types", "method": "evaluate",
            "metrics_path": [], "problem_contract_id": "", "problem_parameters": null, "result_dir": false}),
    }
}

fn placeholder_contract() -> String {
    format!("mw1-problem-contract-{}", "0".repeat(64))
}

fn millis(duration: Duration) -> String {
    format!("{:.1} ms", duration.as_secs_f64() * 1000.0)
}

fn wire_path(path: &Path) -> Step<WirePath> {
    let text = path.to_str().ok_or_else(|| Finding::new(format!("the path {} is not UTF-8", path.display())))?;
    WirePath::try_from(text.to_owned())
        .map_err(|error| Finding::new(format!("the path {text:?} cannot be sent: {error}")))
}

fn make_dir(path: &Path) -> Step<WirePath> {
    fs::create_dir(path)
        .map_err(|error| Finding::new(format!("the executor could not create {}: {error}", path.display())))?;
    wire_path(path)
}
