//! Worker sessions: one worker process for one role, driven through the version-1 protocol from `hello` to
//! `shutdown`, with every phase under a deadline and every process it started killed and reaped at the end.
//!
//! A session is started with [`Session::connect`] (role-typed: [`MaterializerSession`], [`ImplementationSession`],
//! [`EvaluatorSession`]) or [`WorkerSession::connect`] (the role chosen at run time, requests made through the
//! dynamic [`WorkerSession::call`]). Connecting spawns the worker ([`WorkerCommand`], a clean environment, its own
//! session and process group), starts the stderr drain, and completes the handshake
//! against the plan's capability selection. Each later request waits at most until the earlier of its phase's
//! limit ([`PhaseTimeouts`]) and the scientific deadline, if one is set.
//!
//! Every error names the role, the phase and the end of the worker's stderr ([`SessionError`]). A timeout, a
//! protocol violation, an exit or closed stream, and a worker-reported failure of `hello`, `reset` or `shutdown`
//! discard the worker at once: its processes are killed and reaped and the session refuses further requests.
//! Other worker-reported failures leave the session usable. Dropping a session (including while a panic unwinds)
//! discards the worker the same way.
//!
//! Sessions need Linux: pidfds (5.3 or later), `/proc`, and the child-subreaper flag.
//!
//! ```
//! use std::time::Duration;
//! use metewand_protocol::common::WorkerId;
//! use metewand_session::{PhaseTimeouts, SessionConfig, WorkerCommand};
//!
//! let timeouts = PhaseTimeouts { execute: Duration::from_secs(120), ..PhaseTimeouts::documented_defaults() };
//! let command = WorkerCommand::new("python3", "/private/source-implementation").args(["-m", "solver"]);
//! let worker_id = WorkerId::try_from(format!("mw1-resolved-worker-{}", "0".repeat(64))).unwrap();
//! let config = SessionConfig::new(command, worker_id, timeouts, "/attempt/logs/implementation.log");
//! assert_eq!(config.timeouts().execute, Duration::from_secs(120));
//! // `ImplementationSession::connect(config)` would now spawn the worker and complete the handshake.
//! ```
//!
//! This crate judges no files (the attempt validates what a worker leaves): of the file system it only hands a
//! worker's folders to the identity it runs as and takes them back, and measures what they take
//! (`metewand-tree`).

#![deny(unsafe_code)]

mod cgroup;
mod command;
mod confinement;
pub mod cpus;
mod error;
mod exchange;
mod identity;
mod io;
mod process;
mod procfs;
mod program;
mod record;
mod request;
mod reuse;
mod stderr;
mod stream;
// The one module of the crate with `unsafe` code: the system calls the standard library and `rustix` do not
// offer, each with its SAFETY comment.
#[allow(unsafe_code)]
mod sys;
mod timeouts;
mod typed;
mod view;
mod watch;

use metewand_protocol as protocol;

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

pub use command::{INHERITED_ENV, WorkerCommand, find_program};
pub use confinement::{
    CapabilityConfinement, Confinement, ConfinementReport, FilesystemConfinement, IpcConfinement, KernelSupport,
    LimitMechanism, LimitReport, Limits, LimitsReport, MountConfinement, NetworkConfinement, ProcessConfinement,
    ProcessIsolation, SYSCALL_GROUPS, SignalConfinement, SyscallFilter, SyscallGroup, SyscallGroups,
};
pub use error::{ExitCause, ProtocolViolation, SessionError, SessionErrorKind};
pub use identity::hand_over;
pub use identity::{ClosedFolder, IdentityError, WORKER_USER_VAR, WorkerIdentity};
pub use metewand_environment::{
    PythonDistribution, PythonEnvironment, normalized as normalized_distribution_name, python_environment,
    python_interpreter, read_environment, site_packages,
};
use metewand_protocol::common::{Capability, Role, WorkerId};
pub use metewand_protocol::handshake::Handshake;
use metewand_protocol::handshake::hello_request;
use metewand_protocol::messages::{
    AckResponse, EvaluateResponse, ExecuteResponse, HelloResponse, MaterializeResponse, MethodReset, MethodShutdown,
    RequestId, ResetRequest, ShutdownRequest,
};
use metewand_protocol::{Frame, FrameError, encode_message, validate_hello_response};
use metewand_protocol::{Phase, RequestTracker};
pub use process::REAP_LIMIT;
pub use program::{WorkerProgram, path_match};
pub use record::{PhaseTiming, Resources, SessionSummary};
pub use request::{EvaluateParams, ExecuteParams, MaterializeParams, PrepareParams, Reply, Request};
pub use stderr::{DEFAULT_LOG_CAP, TAIL_BYTES, TAIL_LINES, append_log};
pub use stream::{Checkpoint, ExecuteStreamParams, Sealed, Streamed};
pub use sys::landlock_abi;
pub use timeouts::PhaseTimeouts;
pub use typed::{
    Evaluator, EvaluatorSession, Implementation, ImplementationSession, Materializer, MaterializerSession, Session,
    SessionRole,
};

use crate::cpus::{CpuPlacement, CpuSet, CpusBinding};

/// The cgroup v2 subtree delegated to this user (or root's own hierarchy) and the controllers `metewand` uses
/// there (`memory`, `pids`: perhaps neither, when only the freezer is used), or why none is used; nothing is
/// written (see `session::cgroup`).
pub fn delegated_cgroup() -> Result<(PathBuf, Vec<&'static str>), String> {
    let (dir, controllers) = cgroup::probe()?;
    let names = [("memory", controllers.memory), ("pids", controllers.pids)];
    Ok((dir, names.into_iter().filter(|(_, offered)| *offered).map(|(name, _)| name).collect()))
}

/// The binding a confined worker started on chosen CPUs gets on this machine: [`CpusBinding::Locked`] where the
/// kernel has seccomp filters and this architecture's system call numbers are known, else
/// [`CpusBinding::Advisory`].
pub fn binding_of_chosen_cpus() -> CpusBinding {
    let lockable = sys::filter_program(sys::FilterPlan { lock_affinity: true, ..sys::FilterPlan::default() });
    if lockable.is_some() { CpusBinding::Locked } else { CpusBinding::Advisory }
}

use io::ProtocolIo;
use process::{Termination, WorkerProcess};
use stderr::{StderrDrain, create_log};
use watch::OutputWatch;

/// How long [`WorkerSession::while_stopped`] waits for every process of the worker to stop.
pub const STOP_LIMIT: Duration = Duration::from_secs(1);

/// Everything a session needs besides its role: the command, the resolved identity, the limits, where its log
/// goes, and the plan's capability selection (which stays on the orchestrator's side and is never sent).
#[derive(Clone, Debug)]
pub struct SessionConfig {
    command: WorkerCommand,
    worker_id: WorkerId,
    timeouts: PhaseTimeouts,
    log_path: PathBuf,
    selected: Vec<Capability>,
    log_cap: u64,
    cancel: Option<&'static AtomicBool>,
    confinement: Option<Confinement>,
    cpus: Option<CpuSet>,
    count_left_running: bool,
    continue_log: bool,
}

impl SessionConfig {
    /// A configuration that selects no capability and caps the log at [`DEFAULT_LOG_CAP`].
    ///
    /// The log file is created when the session connects, exclusively and without following a link: anything
    /// already at `log_path` (a file, a FIFO, a link) is an executor error, never opened or followed.
    pub fn new(
        command: WorkerCommand,
        worker_id: WorkerId,
        timeouts: PhaseTimeouts,
        log_path: impl Into<PathBuf>,
    ) -> SessionConfig {
        SessionConfig {
            command,
            worker_id,
            timeouts,
            log_path: log_path.into(),
            selected: Vec::new(),
            log_cap: DEFAULT_LOG_CAP,
            cancel: None,
            confinement: None,
            cpus: None,
            count_left_running: false,
            continue_log: false,
        }
    }

    /// Appends to the log file already at the log path (one the executor made, for an earlier session of the same
    /// attempt) instead of creating it; it is still never a link or a FIFO.
    pub fn continue_log(mut self) -> SessionConfig {
        self.continue_log = true;
        self
    }

    /// Runs the worker confined as `confinement` says, as far as the kernel allows (what was in force is
    /// [`WorkerSession::confinement`]). Without this the worker is not confined; it still dies with the
    /// orchestrator and is swept.
    #[must_use]
    pub fn confine(mut self, confinement: Confinement) -> SessionConfig {
        self.confinement = Some(confinement);
        self
    }

    /// Starts the worker on `cpus` (its affinity); a confined worker cannot leave them where the kernel has seccomp
    /// filters ([`crate::cpus::CpusBinding`]). Without this, it inherits the calling thread's CPUs.
    pub fn cpus(mut self, cpus: CpuSet) -> SessionConfig {
        self.cpus = Some(cpus);
        self
    }

    /// Watches `flag` (set from a signal handler, for instance): once it is true, a pending exchange ends within
    /// a few milliseconds with [`SessionErrorKind::Cancelled`], which discards the worker, and no request is sent.
    pub fn cancel_flag(mut self, flag: &'static AtomicBool) -> SessionConfig {
        self.cancel = Some(flag);
        self
    }

    /// Selects a capability the worker must report (the handshake fails otherwise).
    pub fn select(mut self, capability: Capability) -> SessionConfig {
        if !self.selected.contains(&capability) {
            self.selected.push(capability);
        }
        self
    }

    /// Counts the processes the worker leaves running when it shuts down ([`SessionSummary::left_running`]), as
    /// a check of the worker's hygiene does. In a PID namespace the worker's exit kills them at once, so counting
    /// costs a scan of `/proc` before `shutdown` is sent; without this the count there is `None`.
    pub fn count_left_running(mut self) -> SessionConfig {
        self.count_left_running = true;
        self
    }

    /// Caps the log file at `bytes` of the worker's output instead of [`DEFAULT_LOG_CAP`].
    pub fn log_cap(mut self, bytes: u64) -> SessionConfig {
        self.log_cap = bytes;
        self
    }

    /// The worker's command.
    pub fn command(&self) -> &WorkerCommand {
        &self.command
    }

    /// The phase limits.
    pub fn timeouts(&self) -> &PhaseTimeouts {
        &self.timeouts
    }
}

/// A running worker's threads and process; gone once the session discards or shuts down the worker.
struct Live {
    io: ProtocolIo,
    stderr: StderrDrain,
    process: WorkerProcess,
    /// The output watch, when the session has an output limit and folders to write.
    watch: Option<OutputWatch>,
    /// The worker's cgroup, when its limits are kept in the delegated cgroup subtree.
    cgroup: Option<cgroup::WorkerCgroup>,
    /// The session's resource limits.
    limits: Option<Limits>,
    /// How [`WorkerSession::pause`] holds the worker, until [`WorkerSession::resume`].
    paused: Option<Hold>,
    /// The folders the worker may write, taken back once none of its processes is left.
    writable: Vec<PathBuf>,
    /// The host identity the worker ran as, when it is not the orchestrator's.
    identity: Option<WorkerIdentity>,
}

/// How a worker is held stopped, so that it can be let go on.
enum Hold {
    /// Its cgroup is frozen.
    Frozen,
    /// These processes (pid and start time) were sent `SIGSTOP`.
    Signalled(Vec<(i32, u64)>),
}

impl Live {
    /// Stops every thread of every process of the worker: by its cgroup's freezer where it has one (the kernel then
    /// says when all of them are), otherwise by `SIGSTOP` until two looks in a row find the same processes with
    /// every thread stopped. `Err` (with what to undo) when that is not confirmed by `deadline`: the caller must not
    /// take the worker for stopped, and discards it.
    fn hold(&self, deadline: Instant) -> Result<Hold, Hold> {
        if let Some(cgroup) = self.cgroup.as_ref().filter(|cgroup| cgroup.can_freeze()) {
            return if cgroup.freeze(deadline) { Ok(Hold::Frozen) } else { Err(Hold::Frozen) };
        }
        match self.process.stop_all(deadline) {
            (stopped, true) => Ok(Hold::Signalled(stopped)),
            (stopped, false) => Err(Hold::Signalled(stopped)),
        }
    }

    /// Lets a held worker go on.
    fn release(&self, hold: Hold) {
        match hold {
            Hold::Frozen => {
                if let Some(cgroup) = &self.cgroup {
                    cgroup.thaw();
                }
            }
            Hold::Signalled(stopped) => self.process.continue_stopped(&stopped),
        }
    }

    /// Every thread of every process of the worker now, by task id: its cgroup's list where it has one, otherwise
    /// each thread of what a scan finds (`held` the processes a hold signalled).
    fn threads(&self, held: Option<&Hold>) -> Vec<i32> {
        if let Some(cgroup) = &self.cgroup {
            return cgroup.threads();
        }
        let pids: Vec<i32> = match held {
            Some(Hold::Signalled(stopped)) => stopped.iter().map(|&(pid, _)| pid).collect(),
            _ => Vec::new(),
        };
        let mut threads = Vec::new();
        for pid in pids.into_iter().chain([self.process.pid() as i32]) {
            // A process that is gone has nothing left.
            let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { continue };
            threads.extend(tasks.flatten().filter_map(|task| task.file_name().to_str()?.parse::<i32>().ok()));
        }
        threads
    }

    /// Kills and reaps every process, then drains what is left of stderr and joins its thread.
    fn end(mut self) -> Ended {
        let termination = self.process.terminate();
        if !termination.survivors.is_empty() {
            self.stderr.note(&format!(
                "[metewand: processes {:?} of this worker were still present {REAP_LIMIT:?} after SIGKILL]",
                termination.survivors
            ));
        }
        let (tail, log_error) = self.stderr.finish();
        let exceeded = self.watch.as_mut().and_then(|watch| {
            let observed = watch.finish()?;
            let (limit, value, unit) = ("output_bytes", watch.limit(), "bytes in its output folder and TMPDIR");
            Some(SessionErrorKind::ResourceLimit { limit, value, observed, unit })
        });
        let cgroup_limit = self.cgroup.take().and_then(|cgroup| cgroup.limit_hit(self.limits?));
        let limited = cgroup_limit.or_else(|| termination.cpu_limit_hit(self.limits?));
        let taken_back = self.take_back().err();
        Ended { termination, tail, log_error, exceeded, limited, taken_back }
    }

    /// Takes the worker's folders back now that nothing of it runs: given back to the orchestrator's uid and gid
    /// where the worker ran as its own identity, and every folder and file given the modes Metewand publishes, on
    /// every route (`files::tree::take_back`).
    fn take_back(&self) -> std::io::Result<()> {
        let owner = self.identity.map(|_| (sys::euid(), sys::egid()));
        let worker = self.identity.map(|identity| identity.uid);
        for dir in &self.writable {
            metewand_tree::take_back(dir, owner, worker)?;
        }
        Ok(())
    }
}

/// What ending a worker left.
struct Ended {
    termination: Termination,
    tail: Vec<String>,
    log_error: Option<std::io::Error>,
    /// The resource limit the worker went past, which is then what ended it, whatever the session saw.
    exceeded: Option<SessionErrorKind>,
    /// A limit the kernel held the worker to (a process killed at `memory.max`, a fork refused at `pids.max`):
    /// what a failed session's failure is put down to, since the worker may have failed for it.
    limited: Option<SessionErrorKind>,
    /// Why the worker's folders could not be taken back, if they could not.
    taken_back: Option<std::io::Error>,
}

/// A session with one worker, its role chosen at run time; requests go through [`WorkerSession::call`].
///
/// The role-typed [`Session`] wraps this and is what most callers want.
pub struct WorkerSession {
    role: Role,
    worker_id: WorkerId,
    timeouts: PhaseTimeouts,
    selected: Vec<Capability>,
    tracker: RequestTracker,
    scientific_deadline: Option<Instant>,
    handshake: Option<Handshake>,
    phases: Vec<PhaseTiming>,
    pid: u32,
    log_path: PathBuf,
    live: Option<Live>,
    final_tail: Vec<String>,
    cancel: Option<&'static AtomicBool>,
    confinement: ConfinementReport,
    cpus: CpuPlacement,
    program: Option<WorkerProgram>,
    /// Whether `shutdown` counts what the worker leaves running ([`SessionConfig::count_left_running`]).
    count_left_running: bool,
    /// What each target of the view shows (`reuse.rs`): its source folder, and that folder's device and inode then.
    shown: Vec<(PathBuf, PathBuf, (u64, u64))>,
    /// Told once the hello's clock runs ([`WorkerSession::connect_telling`]), then dropped.
    at_hello: Option<Sender<()>>,
}

impl std::fmt::Debug for WorkerSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkerSession")
            .field("role", &self.role)
            .field("pid", &self.pid)
            .field("usable", &self.is_usable())
            .field("scientific_deadline", &self.scientific_deadline)
            .field("phases", &self.phases.len())
            .finish()
    }
}

impl WorkerSession {
    /// Starts a worker for `role` and completes the handshake within the `hello` limit.
    pub fn connect(role: Role, config: SessionConfig) -> Result<WorkerSession, SessionError> {
        WorkerSession::start(role, config, None, None)
    }

    /// Like [`connect`](WorkerSession::connect), telling `at_hello` once the worker has been started and its
    /// hello's clock runs; `at_hello` is dropped untold where the worker could not be started. A session started
    /// beside this one waits for it, so that the two starts do not take turns on the CPUs while this one's
    /// executor side is still before its hello.
    pub fn connect_telling(
        role: Role,
        config: SessionConfig,
        at_hello: Sender<()>,
    ) -> Result<WorkerSession, SessionError> {
        WorkerSession::start(role, config, None, Some(at_hello))
    }

    /// Like [`connect`](WorkerSession::connect), with a scientific deadline that already bounds start-up and the
    /// handshake, and stays set afterwards.
    pub fn connect_with_deadline(
        role: Role,
        config: SessionConfig,
        deadline: Instant,
    ) -> Result<WorkerSession, SessionError> {
        WorkerSession::start(role, config, Some(deadline), None)
    }

    fn start(
        role: Role,
        config: SessionConfig,
        deadline: Option<Instant>,
        at_hello: Option<Sender<()>>,
    ) -> Result<WorkerSession, SessionError> {
        let SessionConfig {
            command,
            worker_id,
            timeouts,
            log_path,
            selected,
            log_cap,
            cancel,
            confinement,
            cpus,
            count_left_running,
            continue_log,
        } = config;
        let early = |kind| SessionError::new(role, Phase::Hello, kind, Vec::new(), None);
        let log = if continue_log { append_log(&log_path) } else { create_log(&log_path) }.map_err(|source| {
            early(SessionErrorKind::ExecutorIo { action: "creating the worker's log file", source })
        })?;
        let confinement_asked = confinement
            .as_ref()
            .map(|confinement| (confinement.writable_dirs().to_vec(), confinement.resource_limits()));
        let writable = confinement_asked.as_ref().map(|(dirs, _)| dirs.clone()).unwrap_or_default();
        let spawned = process::spawn(&command, confinement.as_ref(), cpus.as_ref()).map_err(|source| {
            // The exec error of a missing working directory is the same ENOENT as a missing program's.
            let source = match command.working_dir().try_exists() {
                Ok(false) if source.kind() == std::io::ErrorKind::NotFound => std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    format!("its working directory {} does not exist", command.working_dir().display()),
                ),
                _ => source,
            };
            early(SessionErrorKind::SpawnFailed { program: command.program().clone(), source })
        })?;
        let process = spawned.process;
        let confinement = spawned.confinement;
        let cpus = spawned.cpus;
        let deferred = spawned.deferred;
        let cgroup = spawned.cgroup;
        let identity = spawned.identity;
        let limits = confinement_asked.as_ref().and_then(|(_, limits)| *limits);
        let pid = process.pid();
        let executor_io = |source| early(SessionErrorKind::ExecutorIo { action: "starting a session thread", source });
        // On an error here, dropping `process` kills and reaps the worker, and dropping a started drain joins it.
        let stderr = StderrDrain::start(spawned.stderr, log, log_cap, format!("mw-err-{pid}")).map_err(executor_io)?;
        let io = ProtocolIo::new(spawned.stdin, spawned.stdout, process.pidfd()).map_err(|source| {
            early(SessionErrorKind::ExecutorIo { action: "setting up the worker's pipes", source })
        })?;
        let watch = match confinement_asked.and_then(|(dirs, limits)| Some((dirs, limits?))) {
            Some((dirs, limits)) if !dirs.is_empty() => Some(
                OutputWatch::start(dirs, limits.output_bytes, process.pidfd(), format!("mw-out-{pid}"))
                    .map_err(executor_io)?,
            ),
            _ => None,
        };
        let mut session = WorkerSession {
            role,
            worker_id,
            timeouts,
            selected,
            tracker: RequestTracker::new(role),
            scientific_deadline: deadline,
            handshake: None,
            phases: Vec::new(),
            pid,
            log_path,
            live: Some(Live { io, stderr, process, watch, cgroup, limits, paused: None, writable, identity }),
            final_tail: Vec::new(),
            cancel,
            confinement,
            cpus,
            program: None,
            count_left_running,
            shown: Vec::new(),
            at_hello,
        };
        session.hello()?;
        session.program = session
            .live
            .as_ref()
            .and_then(|live| live.process.worker_pid())
            .and_then(|pid| program::observe(pid, &command));
        if !deferred.is_empty() {
            session.show_deferred(&deferred)?;
        }
        Ok(session)
    }

    fn hello(&mut self) -> Result<(), SessionError> {
        let pending = self.begin(Phase::Hello)?;
        if let Some(at_hello) = self.at_hello.take() {
            // Nobody waiting any more is no concern of this session's.
            let _ = at_hello.send(());
        }
        let request = hello_request(pending.id.clone(), self.role, self.worker_id.clone());
        let response: HelloResponse = self.exchange(&pending, encode_message(&request))?;
        match validate_hello_response(&request, &response, &self.selected) {
            Ok(handshake) => {
                self.handshake = Some(handshake);
                self.record(&pending, true);
                Ok(())
            }
            Err(error) => {
                Err(self.fail(&pending, SessionErrorKind::ProtocolViolation(ProtocolViolation::Handshake(error))))
            }
        }
    }

    /// The worker's role.
    pub fn role(&self) -> Role {
        self.role
    }

    /// The resolved worker identity the handshake confirmed.
    pub fn worker_id(&self) -> &WorkerId {
        &self.worker_id
    }

    /// What the handshake established: every reported capability (reserved ones included, recorded and inert),
    /// the plan's selection, and the SDK's name and version (`None` for a direct protocol worker).
    pub fn handshake(&self) -> &Handshake {
        self.handshake.as_ref().expect("a session exists only after its handshake")
    }

    /// The worker's pid, which is also its process group and session id.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The confinement the worker runs under.
    pub fn confinement(&self) -> ConfinementReport {
        self.confinement
    }

    /// The CPUs the worker was started on, and whether it can leave them.
    pub fn cpus(&self) -> &CpuPlacement {
        &self.cpus
    }

    /// The program the worker ran when it answered hello (`/proc/<pid>/exe` and its digest), when the executor
    /// could read it.
    pub fn program(&self) -> Option<&WorkerProgram> {
        self.program.as_ref()
    }

    /// The path of the worker's stderr log.
    pub fn log_path(&self) -> &Path {
        &self.log_path
    }

    /// Every request sent so far, with the executor's timing, `hello` included.
    pub fn phases(&self) -> &[PhaseTiming] {
        &self.phases
    }

    /// Whether the session still has its worker and accepts requests.
    pub fn is_usable(&self) -> bool {
        self.live.is_some()
    }

    /// The last lines of the worker's stderr so far.
    pub fn stderr_tail(&self) -> Vec<String> {
        match &self.live {
            Some(live) => live.stderr.tail_now(),
            None => self.final_tail.clone(),
        }
    }

    /// The scientific deadline, if one is set.
    pub fn scientific_deadline(&self) -> Option<Instant> {
        self.scientific_deadline
    }

    /// Sets the absolute scientific deadline: every later exchange ends at the earlier of it and its phase's
    /// limit, and passing it is a [`SessionErrorKind::ScientificTimeout`] that discards the worker.
    pub fn set_scientific_deadline(&mut self, deadline: Instant) {
        self.scientific_deadline = Some(deadline);
    }

    /// Clears the scientific deadline before untimed phases; their operational limits are unchanged.
    pub fn clear_scientific_deadline(&mut self) {
        self.scientific_deadline = None;
    }

    /// Sends one request on the dynamic path. A method the role does not accept fails locally
    /// ([`SessionErrorKind::WrongRole`]): nothing is sent, no request id is consumed, and the session stays usable.
    pub fn call(&mut self, request: Request) -> Result<Reply, SessionError> {
        Ok(match request {
            Request::Materialize(params) => Reply::Materialized(self.request_materialize(params)?),
            Request::Prepare(params) => {
                self.request_prepare(params)?;
                Reply::Acknowledged
            }
            Request::Execute(params) => Reply::Executed(self.request_execute(params)?),
            Request::Reset => {
                self.request_reset()?;
                Reply::Acknowledged
            }
            Request::Evaluate(params) => Reply::Evaluated(self.request_evaluate(params)?),
        })
    }

    fn request_materialize(&mut self, params: MaterializeParams) -> Result<MaterializeResponse, SessionError> {
        let pending = self.begin(Phase::Materialize)?;
        let line = encode_message(&params.into_request(pending.id.clone()));
        self.complete(&pending, line)
    }

    fn request_prepare(&mut self, params: PrepareParams) -> Result<(), SessionError> {
        let pending = self.begin(Phase::Prepare)?;
        let line = encode_message(&params.into_request(pending.id.clone()));
        self.complete::<AckResponse>(&pending, line).map(drop)
    }

    fn request_execute(&mut self, params: ExecuteParams) -> Result<ExecuteResponse, SessionError> {
        let mut pending = self.begin(Phase::Execute)?;
        let line = encode_message(&params.into_request(pending.id.clone()));
        self.complete_sealed(&mut pending, line)
    }

    fn request_reset(&mut self) -> Result<(), SessionError> {
        let pending = self.begin(Phase::Reset)?;
        let line = encode_message(&ResetRequest { id: pending.id.clone(), method: MethodReset });
        self.complete::<AckResponse>(&pending, line).map(drop)
    }

    fn request_evaluate(&mut self, params: EvaluateParams) -> Result<EvaluateResponse, SessionError> {
        let pending = self.begin(Phase::Evaluate)?;
        let line = encode_message(&params.into_request(pending.id.clone()));
        self.complete(&pending, line)
    }

    /// **For the conformance kit (`metewand_runtime::conformance`) only; attempts never use it.** Writes `line` to the
    /// worker exactly as given, which need not be a valid request, carry an id this session allocated or even be
    /// JSON, and returns the next frame the worker writes, neither decoded nor matched to a request, so that a
    /// caller can see how a worker answers what the typed path can never send (a second `hello`, another role's
    /// request, a malformed message, an unusual id).
    ///
    /// Everything else a session promises still holds. The wait ends by the earlier of `phase`'s limit and the
    /// scientific deadline; the session's request tracker is not involved (no id is allocated, nothing is left
    /// pending, so the typed requests afterwards go on from where they were); the exchange is recorded in
    /// [`phases`](WorkerSession::phases) under `phase`, with the id the line carries (empty when it has none
    /// that is a string) and `ok` true when a frame came back. A frame, whatever it says, leaves the session
    /// usable; anything else (the deadline, an exit or closed stream, a line that is not a frame, output with no
    /// request pending, the cancel flag) discards the worker, exactly as on the typed path. A line longer than a
    /// frame may be is refused without sending it ([`SessionErrorKind::InvalidRequest`]; the session stays usable).
    pub fn exchange_raw(&mut self, phase: Phase, line: Vec<u8>) -> Result<Frame, SessionError> {
        if self.live.is_none() {
            return Err(self.local(phase, SessionErrorKind::Unusable));
        }
        if line.len() > metewand_protocol::MAX_LINE_BYTES {
            let error = FrameError::LineTooLong { observed: line.len() };
            return Err(self.local(phase, SessionErrorKind::InvalidRequest(error)));
        }
        let raw_id = Frame::parse(line.strip_suffix(b"\n").unwrap_or(&line).to_vec())
            .ok()
            .and_then(|frame| frame.value().get("id").and_then(|id| id.as_str()).map(str::to_owned))
            .unwrap_or_default();
        let placeholder = RequestId::try_from("raw".to_owned()).expect("a nonempty id");
        let pending = self.pending(phase, placeholder, Some(raw_id));
        match self.transmit(&pending, line) {
            Ok(frame) => {
                self.record(&pending, true);
                Ok(frame)
            }
            Err(kind) => Err(self.fail(&pending, kind)),
        }
    }

    /// Runs `f` while every thread of every process of the worker is stopped (its cgroup frozen, or `SIGSTOP` to
    /// the whole tree or PID namespace), then lets them go on: what `f` reads of the worker's output cannot change
    /// while it reads, and no work of the worker's happens meanwhile. A stop the kernel does not confirm within
    /// [`STOP_LIMIT`] (a thread in an uninterruptible sleep, a parent blocked in `vfork`) discards the worker and is
    /// a [`ProtocolViolation::NotStopped`], and `f` does not run. A paused worker is left paused. Nothing is sent
    /// to the worker; a session whose worker was discarded is [`Unusable`](SessionErrorKind::Unusable).
    pub fn while_stopped<T>(&mut self, f: impl FnOnce() -> T) -> Result<T, SessionError> {
        if self.live.as_ref().is_some_and(|live| live.paused.is_some()) {
            // Paused already, and left so: the next request lets it go on.
            return Ok(f());
        }
        let hold = self.hold_or_discard(Instant::now() + STOP_LIMIT)?;
        let value = f();
        self.live.as_ref().expect("a held worker is live").release(hold);
        Ok(value)
    }

    /// Holds the worker stopped ([`Live::hold`]); where that cannot be confirmed within its limit, discards the
    /// worker (fails closed: a worker that kept running is never taken for stopped) and returns the protocol
    /// violation of the phase its last request ran.
    fn hold_or_discard(&mut self, deadline: Instant) -> Result<Hold, SessionError> {
        let phase = self.phases.last().map_or(Phase::Hello, |timing| timing.phase);
        let Some(live) = self.live.as_ref() else {
            return Err(self.local(phase, SessionErrorKind::Unusable));
        };
        match live.hold(deadline) {
            Ok(hold) => Ok(hold),
            Err(_) => {
                self.end();
                let kind = SessionErrorKind::ProtocolViolation(ProtocolViolation::NotStopped { limit: STOP_LIMIT });
                Err(SessionError::new(self.role, phase, kind, self.final_tail.clone(), None))
            }
        }
    }

    /// Sends `shutdown`, then waits for the worker to exit, both within the `shutdown` limit (or the scientific
    /// deadline, if earlier). Succeeds only with the acknowledgment and exit status 0; either way every process
    /// of the worker's is killed and reaped before this returns.
    pub fn shutdown(mut self) -> Result<SessionSummary, SessionError> {
        let pending = self.begin(Phase::Shutdown)?;
        let line = encode_message(&ShutdownRequest { id: pending.id.clone(), method: MethodShutdown });
        if let Some(live) = self.live.as_mut().filter(|_| self.count_left_running) {
            // In a PID namespace the worker's exit kills what it left at once: count it before asking.
            live.process.note_shutdown();
        }
        let _: AckResponse = self.exchange(&pending, line)?;
        let live = self.live.as_mut().expect("an exchange that succeeded leaves the worker running");
        // A worker that reads until end of input exits now; one that exits on its own does not mind.
        live.io.close_stdin();
        if !live.process.wait_for_exit(pending.deadline) {
            return Err(self.fail(&pending, pending.timed_out()));
        }
        let mut ended = self.end();
        if let Some(kind) = ended.exceeded.take() {
            return Err(self.failed(&pending, kind, ended.tail));
        }
        if let Some(source) = ended.taken_back.take() {
            let kind = SessionErrorKind::ExecutorIo { action: "taking back the worker's folders", source };
            return Err(self.failed(&pending, kind, ended.tail));
        }
        let status = ended.termination.status;
        if status.is_none_or(|status| !status.success()) {
            let kind = SessionErrorKind::WorkerExit { cause: ExitCause::UncleanShutdown, status };
            return Err(self.failed(&pending, kind, ended.tail));
        }
        if let Some(source) = ended.log_error {
            let kind = SessionErrorKind::ExecutorIo { action: "writing the worker's log", source };
            return Err(self.failed(&pending, kind, ended.tail));
        }
        self.record(&pending, true);
        Ok(SessionSummary {
            role: self.role,
            handshake: self.handshake().clone(),
            phases: std::mem::take(&mut self.phases),
            exit_status: status.expect("checked above"),
            left_running: ended.termination.left_running,
            confinement: self.confinement,
            resources: ended.termination.resources.expect("a reaped worker has its resource use"),
        })
    }
}

impl Drop for WorkerSession {
    fn drop(&mut self) {
        if self.live.is_some() {
            self.end();
        }
    }
}
