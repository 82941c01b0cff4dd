//! What the conformance kit reports: one typed result per check (its name, pass / fail / skip / warn, a one-line
//! why, the executor's time for it, and for a failure what was sent, what came back and the end of the worker's
//! stderr), and the report's JSON form for machines.

use std::fmt;
use std::time::Duration;

use serde_json::{Value, json};

use crate::protocol::common::Role;
use crate::protocol::strict::SafeUint;
use crate::session::ConfinementReport;

/// How many bytes of a frame a report keeps, sent or received.
pub const EVIDENCE_BYTES: usize = 200;

/// One check of the kit, in the order the kit runs them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Check {
    /// `hello` answered with protocol 1, the worker id echoed, an SDK of the right shape, and `one_shot` reported
    /// by an implementation.
    Hello,
    /// A second `hello` in one session is refused.
    SecondHello,
    /// Another role's request is answered `unsupported_operation` with its id, and the session stays usable.
    OtherRole,
    /// A request with missing or mistyped fields is answered `invalid_request` with its id.
    MalformedRequest,
    /// A request with a field the schema does not know is answered `invalid_request`.
    UnknownFields,
    /// Unusual ids (non-ASCII, white space, escapes, long) are echoed verbatim.
    UnusualIds,
    /// A line that is not JSON (so has no id to answer) ends the worker or is ignored, and nothing but frames
    /// follows on stdout.
    UnreadableLine,
    /// `execute` before `prepare` is refused.
    ExecuteBeforePrepare,
    /// `reset`, then a second `prepare` and `execute`, works.
    ResetThenAgain,
    /// For an implementation that reports `streaming_profile`: `execute_stream` sends its checkpoints in order,
    /// each where it belongs and each waiting for its answer, and stops on `continue: false`.
    Streaming,
    /// The role's output is accepted by the validator.
    Outputs,
    /// The same seed gives the same validated inventory, another seed another one.
    Determinism,
    /// `shutdown` is acknowledged and followed by exit status 0 within its limit.
    Shutdown,
    /// No process of the worker's is still running after it exited.
    NothingLeftRunning,
    /// Nothing but frames was written on stdout, in any session of the kit.
    StdoutFramesOnly,
}

impl Check {
    /// Every check, in the order the kit runs them.
    pub const ALL: [Check; 15] = [
        Check::Hello,
        Check::SecondHello,
        Check::OtherRole,
        Check::MalformedRequest,
        Check::UnknownFields,
        Check::UnusualIds,
        Check::UnreadableLine,
        Check::ExecuteBeforePrepare,
        Check::ResetThenAgain,
        Check::Streaming,
        Check::Outputs,
        Check::Determinism,
        Check::Shutdown,
        Check::NothingLeftRunning,
        Check::StdoutFramesOnly,
    ];

    /// The check's name in the table and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Check::Hello => "hello",
            Check::SecondHello => "second-hello",
            Check::OtherRole => "other-role",
            Check::MalformedRequest => "malformed-request",
            Check::UnknownFields => "unknown-fields",
            Check::UnusualIds => "unusual-ids",
            Check::UnreadableLine => "unreadable-line",
            Check::ExecuteBeforePrepare => "execute-before-prepare",
            Check::ResetThenAgain => "reset-then-again",
            Check::Streaming => "streaming",
            Check::Outputs => "outputs",
            Check::Determinism => "determinism",
            Check::Shutdown => "shutdown",
            Check::NothingLeftRunning => "nothing-left-running",
            Check::StdoutFramesOnly => "stdout-frames-only",
        }
    }
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a check came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The worker did what the protocol asks.
    Pass,
    /// The worker did not.
    Fail,
    /// The check could not run (another role's check, or an input the kit was not given); says why.
    Skip,
    /// Not a failure, but worth knowing: a worker whose output depends on something other than its seed (a
    /// failure with `strict`).
    Warn,
}

impl Outcome {
    /// `pass`, `fail`, `skip` or `warn`.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail => "fail",
            Outcome::Skip => "skip",
            Outcome::Warn => "warn",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The result of one check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckResult {
    /// Which check.
    pub check: Check,
    /// How it came out.
    pub outcome: Outcome,
    /// One line saying why.
    pub why: String,
    /// The executor's time for the check's steps (for a check over the whole run, zero).
    pub duration: Duration,
    /// For a failure: what was sent, at most [`EVIDENCE_BYTES`] of it.
    pub sent: Option<String>,
    /// For a failure: what came back (the frame, or what happened instead), at most [`EVIDENCE_BYTES`] of it.
    pub received: Option<String>,
    /// For a failure: the last lines of the worker's stderr.
    pub stderr_tail: Vec<String>,
}

impl CheckResult {
    pub(super) fn new(check: Check, outcome: Outcome, why: impl Into<String>) -> CheckResult {
        CheckResult {
            check,
            outcome,
            why: why.into(),
            duration: Duration::ZERO,
            sent: None,
            received: None,
            stderr_tail: Vec::new(),
        }
    }
}

/// The repository's problem and dataset a worker's requests posed and carried.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Posed {
    /// The problem, by name (none for a materializer, or where the repository has none).
    pub problem: Option<String>,
    /// The dataset, by name (none where the repository has none for the worker).
    pub dataset: Option<String>,
    /// The dataset's seed.
    pub dataset_seed: SafeUint,
}

impl Posed {
    /// One line: `problem ridge, dataset small seed 0`.
    pub fn line(&self) -> String {
        let mut parts = Vec::new();
        if let Some(problem) = &self.problem {
            parts.push(format!("problem {problem}"));
        }
        match &self.dataset {
            Some(dataset) => parts.push(format!("dataset {dataset} seed {}", self.dataset_seed)),
            None => parts.push("no dataset".to_owned()),
        }
        parts.join(", ")
    }
}

/// Everything the kit found about one worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// The worker's name in its repository, or the bare command.
    pub worker: String,
    /// The role it was driven as.
    pub role: Role,
    /// What its requests posed (a repository worker's), so that a reader knows which dataset the checks used.
    pub posed: Option<Posed>,
    /// The confinement its sessions ran under, as the first session reported it (`None` when none started).
    pub confinement: Option<ConfinementReport>,
    /// One result per check, in [`Check::ALL`]'s order.
    pub checks: Vec<CheckResult>,
}

impl Report {
    /// Whether no check failed (passes, skips and warnings only).
    pub fn passed(&self) -> bool {
        self.checks.iter().all(|check| check.outcome != Outcome::Fail)
    }

    /// The result of one check.
    pub fn check(&self, check: Check) -> Option<&CheckResult> {
        self.checks.iter().find(|result| result.check == check)
    }

    /// The report as JSON: `{"worker", "role", "posed" (`{"problem", "dataset", "dataset_seed"}` or null),
    /// "passed", "checks": [{"check", "outcome", "why", "duration_ns",
    /// "sent", "received", "stderr_tail"}]}`, with `sent` and `received` null unless the check failed.
    pub fn to_json(&self) -> Value {
        let checks: Vec<Value> = self
            .checks
            .iter()
            .map(|result| {
                json!({
                    "check": result.check.name(),
                    "outcome": result.outcome.name(),
                    "why": result.why,
                    "duration_ns": u64::try_from(result.duration.as_nanos()).unwrap_or(u64::MAX),
                    "sent": result.sent,
                    "received": result.received,
                    "stderr_tail": result.stderr_tail,
                })
            })
            .collect();
        let posed = self.posed.as_ref().map(|posed| {
            json!({"problem": posed.problem, "dataset": posed.dataset, "dataset_seed": posed.dataset_seed.get()})
        });
        json!({"worker": self.worker, "role": self.role, "posed": posed, "passed": self.passed(), "checks": checks})
    }
}

/// Several reports as one canonical JSON document, `{"passed": bool, "workers": [report, ...]}` (each report as
/// [`Report::to_json`]), with `passed` true when no check of any worker failed: what `metewand conformance
/// --json` prints.
pub fn reports_json(reports: &[Report]) -> String {
    let workers: Vec<Value> = reports.iter().map(Report::to_json).collect();
    let passed = reports.iter().all(Report::passed);
    crate::protocol::to_canonical_string(&json!({"passed": passed, "workers": workers}))
}

/// `bytes` as text, cut to [`EVIDENCE_BYTES`] on a character boundary (with `…` when cut), control characters
/// escaped so the evidence stays on one line.
pub(super) fn evidence(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.strip_suffix('\n').unwrap_or(&text);
    let mut out = String::new();
    for (index, character) in text.char_indices() {
        if index >= EVIDENCE_BYTES {
            out.push('…');
            break;
        }
        if character.is_control() {
            out.extend(character.escape_default());
        } else {
            out.push(character);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evidence_is_cut_on_a_character_boundary_and_kept_on_one_line() {
        let long = format!("{}é{}", "a".repeat(EVIDENCE_BYTES - 1), "b".repeat(50));
        let cut = evidence(long.as_bytes());
        assert!(cut.ends_with('…'), "{cut}");
        assert_eq!(cut.chars().filter(|&c| c == 'é').count(), 1, "the character across the limit is kept whole");
        assert!(!cut.contains('b'));
        assert_eq!(evidence(b"{\"id\":\"a\tb\"}\n"), "{\"id\":\"a\\tb\"}");
        assert_eq!(evidence(b"\xff\xfe"), "\u{fffd}\u{fffd}");
    }
}
