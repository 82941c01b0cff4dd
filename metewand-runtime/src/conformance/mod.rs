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
//! 3. for an implementation, `execute-before-prepare` and `reset-then-again`, and `streaming` for one that reports
//!    `streaming_profile`;
//! 4. the role's scientific request three times, each alone: once for `outputs` (validated by
//!    [`WorkerOutputValidator`](crate::WorkerOutputValidator) after the worker exited), then with the same seed
//!    and with another for `determinism` (the evaluator has no seed, so it is judged twice);
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
//!
//! This module holds the kit's interface and its driver (the order of the checks, the sessions); `protocol.rs`
//! the protocol checks, `science.rs` the scientific ones, `inputs.rs` what the requests carry and `report.rs` the
//! results.

mod inputs;
mod protocol;
mod report;
mod science;

use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;

pub use report::{Check, CheckResult, EVIDENCE_BYTES, Outcome, Posed, Report, reports_json};

use crate::attempt::{self, source, store};
use crate::protocol::Phase;
use crate::protocol::common::{Capability, Role, WorkerId};
use crate::protocol::handshake::hello_request;
use crate::protocol::messages::{Path as WirePath, RequestId};
use crate::protocol::strict::SafeUint;
use crate::protocol::{Frame, encode_message};
use crate::repository::{CheckedRepository, DefinitionKind, SelectionError, SelectionErrorKind, Worker};
use crate::session::{
    Confinement, ConfinementReport, ProtocolViolation, SessionConfig, SessionError, SessionErrorKind, SessionSummary,
    WorkerCommand, WorkerSession,
};
use crate::{PhaseTimeouts, Sha256Digest};
use inputs::Inputs;
use report::evidence;

/// The dataset manifest's fixed name (DESIGN §5).
const DATASET_MANIFEST: &str = "dataset-manifest.json";

/// The seed of the kit's scientific requests, and the other one the determinism check compares with.
const SEED: u64 = 0;
const OTHER_SEED: u64 = 1;

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
    /// The problem a repository worker's requests pose, by name; when `None`, the repository's first (the first
    /// its evaluator judges, for an evaluator). The report says which ([`Report::posed`]).
    pub problem: Option<String>,
    /// The dataset a repository worker's requests carry, by name; when `None`, the repository's first (for a
    /// materializer, the first it makes). The report says which.
    pub dataset: Option<String>,
    /// The seed of the dataset a repository worker's requests carry (0 unless set).
    pub dataset_seed: SafeUint,
    /// A state folder whose dataset store gives a repository worker its dataset: an entry already there is
    /// verified and used, and one the kit makes is published there, as an attempt's would be. `None`: a store of
    /// the kit's own, in its work folder, removed with it.
    pub store: Option<PathBuf>,
}

impl ConformanceOptions {
    /// Options with the documented phase limits, not strict.
    pub fn new(work_parent: impl Into<PathBuf>) -> ConformanceOptions {
        ConformanceOptions {
            work_parent: work_parent.into(),
            strict: false,
            timeouts: PhaseTimeouts::documented_defaults(),
            problem: None,
            dataset: None,
            dataset_seed: SafeUint::ZERO,
            store: None,
        }
    }

    /// Poses the repository's problem `problem` (see [`ConformanceOptions::problem`]).
    #[must_use]
    pub fn problem(mut self, problem: &str) -> ConformanceOptions {
        self.problem = Some(problem.to_owned());
        self
    }

    /// Carries the repository's dataset `dataset` (see [`ConformanceOptions::dataset`]).
    #[must_use]
    pub fn dataset(mut self, dataset: &str) -> ConformanceOptions {
        self.dataset = Some(dataset.to_owned());
        self
    }

    /// Carries the dataset of seed `seed` (see [`ConformanceOptions::dataset_seed`]).
    #[must_use]
    pub fn dataset_seed(mut self, seed: SafeUint) -> ConformanceOptions {
        self.dataset_seed = seed;
        self
    }

    /// Takes the dataset from the store of the state folder `state`, or publishes it there (see
    /// [`ConformanceOptions::store`]).
    #[must_use]
    pub fn store(mut self, state: impl Into<PathBuf>) -> ConformanceOptions {
        self.store = Some(state.into());
        self
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
    /// The repository has no problem or dataset of the name the options give.
    #[error("the repository has no {kind} named {name:?}{} (it has: {known})", attempt::guess(.name, .known))]
    UnknownInput {
        /// `problem` or `dataset`.
        kind: &'static str,
        /// The name given.
        name: String,
        /// The names it has, comma-separated.
        known: String,
    },
    /// A selection of grid points that names none.
    #[error("{0}")]
    Selection(SelectionError),
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
    run_with(subject, options, |kit| kit.run_checks())
}

/// Runs `reset-then-again` alone, with what it needs (for a repository's implementation, a dataset the
/// repository's own workers make): what a worker must pass to serve more than one attempt (reused sessions). Its
/// result is skipped, saying why, for a worker that is not an implementation or when what it needs could not be
/// made.
pub fn reset_then_again(subject: &Subject<'_>, options: &ConformanceOptions) -> Result<CheckResult, ConformanceError> {
    let report = run_with(subject, options, |kit| {
        let started = Instant::now();
        if kit.target.role != Role::Implementation {
            let why = format!("only for an implementation; this worker is a {}", kit.target.role);
            kit.results.push(CheckResult::new(Check::ResetThenAgain, Outcome::Skip, why));
            return;
        }
        match kit.needs() {
            Ok(()) => {
                let outcome = kit.alone(Check::ResetThenAgain, Kit::reset_then_again);
                kit.push(Check::ResetThenAgain, outcome, started);
            }
            Err(why) => kit.results.push(CheckResult::new(Check::ResetThenAgain, Outcome::Skip, why)),
        }
    })?;
    Ok(report.checks.into_iter().find(|result| result.check == Check::ResetThenAgain).expect("the check was run"))
}

/// Makes the kit's work folder, runs `checks` in it, and removes it.
fn run_with<'r>(
    subject: &Subject<'r>,
    options: &ConformanceOptions,
    checks: impl FnOnce(&mut Kit<'r>),
) -> Result<Report, ConformanceError> {
    let target = Target::new(subject, options)?;
    let random = store::random_hex(8).map_err(|source| ConformanceError::Io {
        action: "drawing a random name in",
        path: options.work_parent.clone(),
        source,
    })?;
    // The work folder's paths are handed to workers, which run in folders of their own: a relative parent would
    // name nothing there.
    let parent = std::path::absolute(&options.work_parent).map_err(|source| ConformanceError::Io {
        action: "resolving the work folder's parent",
        path: options.work_parent.clone(),
        source,
    })?;
    let work = parent.join(format!("metewand-conformance-{random}"));
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
        problem: options.problem.clone(),
        dataset: options.dataset.clone(),
        dataset_seed: options.dataset_seed,
        store: options.store.clone(),
        streams: false,
        select: Capability::OneShot,
    };
    checks(&mut kit);
    let report = Report {
        worker: kit.target.label.clone(),
        role: kit.target.role,
        posed: kit.posed(),
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
                let problems = repository.problems().keys().cloned().collect::<Vec<_>>();
                if let Some(name) = options.problem.as_ref().filter(|name| !problems.contains(name)) {
                    let known = problems.join(", ");
                    return Err(ConformanceError::UnknownInput { kind: "problem", name: name.clone(), known });
                }
                // A grid's name, or a selection of its points, carries its first point.
                if let Some(name) = &options.dataset
                    && let Err(error) = repository.select(DefinitionKind::Dataset, name)
                {
                    return Err(match error.into_kind() {
                        SelectionErrorKind::UnknownName { kind, name, known, .. } => {
                            ConformanceError::UnknownInput { kind, name, known }
                        }
                        other => ConformanceError::Selection(other.into()),
                    });
                }
                let timeouts = attempt::phase_timeouts(repository);
                Ok(Target {
                    role: found.role(),
                    label: worker.clone(),
                    worker_id: found.identity().clone(),
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
    /// The problem the requests pose ([`ConformanceOptions::problem`]).
    problem: Option<String>,
    /// The dataset the requests carry ([`ConformanceOptions::dataset`]).
    dataset: Option<String>,
    /// The seed of the dataset the requests carry ([`ConformanceOptions::dataset_seed`]).
    dataset_seed: SafeUint,
    /// The state folder whose store gives the dataset ([`ConformanceOptions::store`]).
    store: Option<PathBuf>,
    /// Whether the worker reported `streaming_profile` at its first `hello`.
    streams: bool,
    /// What an implementation's sessions select: `one_shot`, or `streaming_profile` for `streaming`'s.
    select: Capability,
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
                self.streams = handshake.reported.contains(&Capability::StreamingProfile);
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
            let started = Instant::now();
            if !self.streams {
                let why = "the worker does not report streaming_profile";
                self.results.push(CheckResult::new(Check::Streaming, Outcome::Skip, why));
            } else {
                match self.needs() {
                    Ok(()) => {
                        self.select = Capability::StreamingProfile;
                        let outcome = self.alone(Check::Streaming, Kit::streaming);
                        self.select = Capability::OneShot;
                        self.push(Check::Streaming, outcome, started);
                    }
                    Err(why) => self.results.push(CheckResult::new(Check::Streaming, Outcome::Skip, why)),
                }
            }
        } else {
            for check in [Check::ExecuteBeforePrepare, Check::ResetThenAgain, Check::Streaming] {
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
                source::copy_source(worker, &own_source)
                    .map_err(|error| Finding::new(format!("the executor could not copy the source: {error}")))?;
                confinement =
                    confinement.network(worker.network()).syscalls(worker.syscalls()).limits(repository.limits());
                // The environment it declares, as `metewand conformance` built it in the default state folder.
                let envs = repository.root().join(".metewand").join(crate::environment::ENVS_DIR);
                let environment = crate::environment::verified_environment(worker, &envs)
                    .map_err(|error| Finding::new(format!("the executor could not use the environment: {error}")))?;
                if let Some(venv) = &environment {
                    confinement = confinement.readable(venv);
                }
                (attempt::worker_command(worker, &own_source, Some(&tmp), environment.as_deref()), own_source)
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
                .confine(confinement)
                .count_left_running();
        if self.target.role == Role::Implementation {
            config = config.select(self.select);
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
                // Counted: this session was configured to count (a session that was not says `None`).
                if let Some(count) = summary.left_running {
                    self.observed.left_running.push((check, count));
                }
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
    fn raw(&mut self, check: Check, opened: &mut Opened, phase: Phase, line: &[u8]) -> Step<Frame> {
        opened.session.exchange_raw(phase, line.to_vec()).map_err(|error| {
            self.observe(check, &error);
            Finding::session(Some(line), &error)
        })
    }

    fn hello_line(&self, id: &str) -> Vec<u8> {
        let id = RequestId::try_from(id.to_owned()).expect("the kit's ids are nonempty");
        encode_message(&hello_request(id, self.target.role, self.target.worker_id.clone())).expect("hello is small")
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

fn millis(duration: Duration) -> String {
    format!("{:.1} ms", duration.as_secs_f64() * 1000.0)
}

fn wire_path(path: &Path) -> Step<WirePath> {
    let text = path.to_str().ok_or_else(|| Finding::new(format!("the path {} is not UTF-8", path.display())))?;
    WirePath::try_from(text.to_owned())
        .map_err(|error| Finding::new(format!("the path {text:?} cannot be sent: {error}")))
}

/// Makes a folder a request names inside the worker's output folder, given to the identity it runs as.
fn make_dir(path: &Path) -> Step<WirePath> {
    fs::create_dir(path)
        .and_then(|()| crate::session::hand_over(path))
        .map_err(|error| Finding::new(format!("the executor could not create {}: {error}", path.display())))?;
    wire_path(path)
}
