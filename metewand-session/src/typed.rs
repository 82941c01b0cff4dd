//! The role-typed session: [`Session<R>`] over [`WorkerSession`], whose methods are only the requests its role
//! accepts, so that a request the role refuses does not compile.

use std::marker::PhantomData;
use std::ops::Deref;
use std::sync::mpsc::Sender;
use std::time::Instant;

use metewand_protocol::common::Role;

use metewand_protocol::messages::{EvaluateResponse, ExecuteResponse, MaterializeResponse};

use super::{
    Checkpoint, EvaluateParams, ExecuteParams, ExecuteStreamParams, MaterializeParams, PrepareParams, Sealed,
    SessionConfig, SessionError, SessionSummary, Streamed, WorkerSession,
};

mod sealed {
    pub trait Sealed {}
}

/// A role marker for [`Session`]: which requests the session's worker accepts.
pub trait SessionRole: sealed::Sealed {
    /// The protocol role.
    const ROLE: Role;
}

/// The dataset-materializer role: `materialize`.
#[derive(Debug)]
pub enum Materializer {}
/// The implementation role: `prepare`, `execute`, `execute_stream` (for a worker that reports `streaming_profile`)
/// and `reset`.
#[derive(Debug)]
pub enum Implementation {}
/// The problem-evaluator role: `evaluate`.
#[derive(Debug)]
pub enum Evaluator {}

impl sealed::Sealed for Materializer {}
impl sealed::Sealed for Implementation {}
impl sealed::Sealed for Evaluator {}

impl SessionRole for Materializer {
    const ROLE: Role = Role::DatasetMaterializer;
}
impl SessionRole for Implementation {
    const ROLE: Role = Role::Implementation;
}
impl SessionRole for Evaluator {
    const ROLE: Role = Role::ProblemEvaluator;
}

/// A session whose role is part of its type: only the requests the role accepts are methods of it, so sending
/// `evaluate` to an implementation does not compile.
///
/// It dereferences to [`WorkerSession`] for everything common to all roles (the handshake, the timings, the
/// stderr tail).
#[derive(Debug)]
pub struct Session<R: SessionRole> {
    inner: WorkerSession,
    role: PhantomData<R>,
}

/// A session with a dataset materializer.
pub type MaterializerSession = Session<Materializer>;
/// A session with an implementation.
pub type ImplementationSession = Session<Implementation>;
/// A session with a problem evaluator.
pub type EvaluatorSession = Session<Evaluator>;

impl<R: SessionRole> Session<R> {
    /// Starts a worker for the role and completes the handshake within the `hello` limit.
    pub fn connect(config: SessionConfig) -> Result<Session<R>, SessionError> {
        WorkerSession::connect(R::ROLE, config).map(|inner| Session { inner, role: PhantomData })
    }

    /// Like [`connect`](Session::connect), telling `at_hello` once the worker has been started and its hello's
    /// clock runs (see [`WorkerSession::connect_telling`]).
    pub fn connect_telling(config: SessionConfig, at_hello: Sender<()>) -> Result<Session<R>, SessionError> {
        WorkerSession::connect_telling(R::ROLE, config, at_hello).map(|inner| Session { inner, role: PhantomData })
    }

    /// Like [`connect`](Session::connect), with a scientific deadline that already bounds start-up and the
    /// handshake, and stays set afterwards.
    pub fn connect_with_deadline(config: SessionConfig, deadline: Instant) -> Result<Session<R>, SessionError> {
        WorkerSession::connect_with_deadline(R::ROLE, config, deadline)
            .map(|inner| Session { inner, role: PhantomData })
    }

    /// Sets the absolute scientific deadline (see [`WorkerSession::set_scientific_deadline`]).
    pub fn set_scientific_deadline(&mut self, deadline: Instant) {
        self.inner.set_scientific_deadline(deadline);
    }

    /// Clears the scientific deadline before untimed phases.
    pub fn clear_scientific_deadline(&mut self) {
        self.inner.clear_scientific_deadline();
    }

    /// Runs `f` while every process of the worker is stopped (see [`WorkerSession::while_stopped`]).
    pub fn while_stopped<T>(&mut self, f: impl FnOnce() -> T) -> Result<T, SessionError> {
        self.inner.while_stopped(f)
    }

    /// Stops every process of the worker until [`resume`](Session::resume) or its next request, which lets it go on
    /// once the request is in its pipe (see [`WorkerSession::pause`]).
    pub fn pause(&mut self) -> Result<(), SessionError> {
        self.inner.pause()
    }

    /// Pauses the worker and runs `f` while it is paused (see [`WorkerSession::while_paused`]).
    pub fn while_paused<T>(&mut self, f: impl FnOnce() -> T) -> Result<T, SessionError> {
        self.inner.while_paused(f)
    }

    /// Lets a paused worker go on.
    pub fn resume(&mut self) {
        self.inner.resume();
    }

    /// Gives the log file another name (see [`WorkerSession::move_log`]).
    pub fn move_log(&mut self, path: &std::path::Path) -> Result<(), SessionError> {
        self.inner.move_log(path)
    }

    /// Moves a paused worker onto other CPUs (see [`WorkerSession::move_to`]).
    pub fn move_to(&mut self, cpus: &crate::cpus::CpuSet) -> Result<(), SessionError> {
        self.inner.move_to(cpus)
    }

    /// Logs what the worker writes from now on to a new file (see [`WorkerSession::redirect_log`]).
    pub fn redirect_log(&mut self, path: &std::path::Path) -> Result<(), SessionError> {
        self.inner.redirect_log(path)
    }

    /// Shows a folder in place of another in the worker's view (see [`WorkerSession::show_in_place_of`]).
    pub fn show_in_place_of(&mut self, source: &std::path::Path, target: &std::path::Path) -> Result<(), SessionError> {
        self.inner.show_in_place_of(source, target)
    }

    /// Shows several folders in place of others in the worker's view at once (see
    /// [`WorkerSession::show_all_in_place_of`]).
    pub fn show_all_in_place_of(&mut self, pairs: &[(&std::path::Path, &std::path::Path)]) -> Result<(), SessionError> {
        self.inner.show_all_in_place_of(pairs)
    }

    /// Sends `shutdown` and waits for exit status 0 (see [`WorkerSession::shutdown`]).
    pub fn shutdown(self) -> Result<SessionSummary, SessionError> {
        self.inner.shutdown()
    }

    /// The session without its role in its type, for the dynamic call path.
    pub fn into_dynamic(self) -> WorkerSession {
        self.inner
    }
}

impl<R: SessionRole> Deref for Session<R> {
    type Target = WorkerSession;

    fn deref(&self) -> &WorkerSession {
        &self.inner
    }
}

impl Session<Materializer> {
    /// Asks the materializer to build its dataset in `output_dir`; the manifest path it returns is unvalidated.
    pub fn materialize(&mut self, params: MaterializeParams) -> Result<MaterializeResponse, SessionError> {
        self.inner.request_materialize(params)
    }
}

impl Session<Implementation> {
    /// Gives the implementation the attempt's state.
    pub fn prepare(&mut self, params: PrepareParams) -> Result<(), SessionError> {
        self.inner.request_prepare(params)
    }

    /// Asks the implementation to solve the problem; the result manifest path it returns is unvalidated.
    pub fn execute(&mut self, params: ExecuteParams) -> Result<ExecuteResponse, SessionError> {
        self.inner.request_execute(params)
    }

    /// Asks a streaming implementation to solve the problem, sealing each checkpoint with `seal` while the worker
    /// is stopped (see [`ExecuteStreamParams`]); the manifest paths it returns are unvalidated.
    pub fn execute_stream<T>(
        &mut self,
        params: ExecuteStreamParams,
        seal: impl FnMut(&Checkpoint) -> Sealed<T>,
    ) -> Result<Streamed<T>, SessionError> {
        self.inner.execute_stream(params, seal)
    }

    /// Asks the implementation to forget the prepared attempt. A failed reset discards the worker.
    pub fn reset(&mut self) -> Result<(), SessionError> {
        self.inner.request_reset()
    }
}

impl Session<Evaluator> {
    /// Asks the evaluator to judge a result and write its metrics; the verdict is the worker's, unvalidated.
    pub fn evaluate(&mut self, params: EvaluateParams) -> Result<EvaluateResponse, SessionError> {
        self.inner.request_evaluate(params)
    }
}
