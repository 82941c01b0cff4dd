//! What a session records for the attempt record: the executor's own timing of every request it sent, and the
//! summary of a session that shut down cleanly.

use std::process::ExitStatus;
use std::time::{Duration, Instant, SystemTime};

use metewand_protocol::handshake::Handshake;

use super::confinement::ConfinementReport;
use crate::protocol::Phase;
use crate::protocol::common::Role;

/// The executor's measurement of one request: when it was written to the worker and how long it took
/// until its response was read (for `shutdown`, until the worker exited), on the executor's monotonic clock.
///
/// A worker's own timings (`implementation_time_ns`) are diagnostic; these are authoritative.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PhaseTiming {
    /// The worker's role.
    pub role: Role,
    /// The request's method, which names its phase.
    pub phase: Phase,
    /// The request id the session allocated.
    pub request_id: String,
    /// When the request started, on the monotonic clock.
    pub started: Instant,
    /// When the request started, on the wall clock, for the attempt record's `started_at`.
    pub started_at: SystemTime,
    /// From the start to the response, the failure, or the deadline.
    pub duration: Duration,
    /// Whether the worker answered with the request's success shape (and, for `shutdown`, exited with status 0).
    pub ok: bool,
}

/// What a session that shut down cleanly leaves for the attempt record.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionSummary {
    /// The worker's role.
    pub role: Role,
    /// What the handshake established: the reported capabilities, the selection and the SDK.
    pub handshake: Handshake,
    /// Every request the session sent, in order, `hello` and `shutdown` included.
    pub phases: Vec<PhaseTiming>,
    /// The worker's exit status, which was 0.
    pub exit_status: ExitStatus,
    /// How many processes the worker left running after its exit (each was killed and reaped): a clean worker
    /// leaves none. In a PID namespace, where the worker's exit kills them at once, they are counted only when
    /// the session was configured to ([`SessionConfig::count_left_running`](crate::SessionConfig::count_left_running));
    /// `None` otherwise.
    pub left_running: Option<usize>,
    /// The confinement it ran under.
    pub confinement: ConfinementReport,
    /// What it used, from `wait4`.
    pub resources: Resources,
}

/// A worker's resource use, as `wait4` reports it when the worker is reaped: its own and that of the descendants
/// it waited for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resources {
    /// User CPU time.
    pub user_cpu: Duration,
    /// System CPU time.
    pub system_cpu: Duration,
    /// Peak resident set size, in bytes.
    pub peak_rss_bytes: u64,
}
