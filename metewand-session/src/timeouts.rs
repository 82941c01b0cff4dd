//! Phase timeouts: one resolved operational limit for every phase of a worker session.
//!
//! A session never invents a limit. [`PhaseTimeouts`] has one public field per phase, so a value cannot be built
//! with one missing, and the only defaults are the documented ones of [`PhaseTimeouts::documented_defaults`],
//! which the attempt runner uses to fill the phases a repository leaves out.

use std::time::Duration;

use crate::protocol::Phase;

/// The operational limit of each phase, named after its method.
///
/// A limit covers one request, from the moment it is written to the worker until its response is
/// read; the `shutdown` limit covers both the acknowledgment and the worker's exit. Every field must be given:
///
/// ```
/// use std::time::Duration;
/// use metewand_session::PhaseTimeouts;
///
/// let timeouts = PhaseTimeouts { execute: Duration::from_secs(600), ..PhaseTimeouts::documented_defaults() };
/// assert_eq!(timeouts.execute, Duration::from_secs(600));
/// assert_eq!(timeouts.hello, PhaseTimeouts::documented_defaults().hello);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PhaseTimeouts {
    /// Start-up and the handshake: from the `hello` request to its response.
    pub hello: Duration,
    /// A dataset materializer builds its dataset.
    pub materialize: Duration,
    /// An implementation receives the attempt's state.
    pub prepare: Duration,
    /// An implementation solves the problem.
    pub execute: Duration,
    /// An implementation forgets the prepared attempt.
    pub reset: Duration,
    /// A problem evaluator judges a result.
    pub evaluate: Duration,
    /// The acknowledgment of `shutdown` and the worker's exit with status 0.
    pub shutdown: Duration,
}

impl PhaseTimeouts {
    /// The documented defaults, for phases a benchmark repository does not configure:
    ///
    /// | phase | default | why |
    /// | --- | --- | --- |
    /// | `hello` | 60 s | an interpreter's start-up and imports on a cold file cache |
    /// | `materialize` | 1 h | building a dataset may be real work |
    /// | `prepare` | 10 min | loading the dataset and setting up |
    /// | `execute` | 1 h | the scientific work itself |
    /// | `reset` | 60 s | forgetting state is cheap |
    /// | `evaluate` | 30 min | judging a result and writing metrics |
    /// | `shutdown` | 30 s | acknowledging and exiting cleanly |
    ///
    /// ```
    /// use std::time::Duration;
    /// use metewand_session::PhaseTimeouts;
    ///
    /// assert_eq!(PhaseTimeouts::documented_defaults().shutdown, Duration::from_secs(30));
    /// ```
    pub const fn documented_defaults() -> PhaseTimeouts {
        PhaseTimeouts {
            hello: Duration::from_secs(60),
            materialize: Duration::from_secs(60 * 60),
            prepare: Duration::from_secs(10 * 60),
            execute: Duration::from_secs(60 * 60),
            reset: Duration::from_secs(60),
            evaluate: Duration::from_secs(30 * 60),
            shutdown: Duration::from_secs(30),
        }
    }

    /// The same limit for every phase.
    pub const fn uniform(limit: Duration) -> PhaseTimeouts {
        PhaseTimeouts {
            hello: limit,
            materialize: limit,
            prepare: limit,
            execute: limit,
            reset: limit,
            evaluate: limit,
            shutdown: limit,
        }
    }

    /// The limit of the phase a method runs in.
    ///
    /// ```
    /// use std::time::Duration;
    /// use metewand_protocol::Phase;
    /// use metewand_session::PhaseTimeouts;
    ///
    /// let second = Duration::from_secs(1);
    /// let timeouts = PhaseTimeouts { reset: Duration::from_secs(5), ..PhaseTimeouts::uniform(second) };
    /// assert_eq!(timeouts.limit(Phase::Reset), Duration::from_secs(5));
    /// assert_eq!(timeouts.limit(Phase::Hello), Duration::from_secs(1));
    /// ```
    pub const fn limit(&self, phase: Phase) -> Duration {
        match phase {
            Phase::Hello => self.hello,
            Phase::Materialize => self.materialize,
            Phase::Prepare => self.prepare,
            Phase::Execute => self.execute,
            Phase::Reset => self.reset,
            Phase::Evaluate => self.evaluate,
            Phase::Shutdown => self.shutdown,
        }
    }

    /// The limit of the phase a method runs in, to change it: how a repository's declared limits are laid over
    /// the documented defaults.
    ///
    /// ```
    /// use std::time::Duration;
    /// use metewand_protocol::Phase;
    /// use metewand_session::PhaseTimeouts;
    ///
    /// let mut timeouts = PhaseTimeouts::documented_defaults();
    /// *timeouts.limit_mut(Phase::Execute) = Duration::from_secs(120);
    /// assert_eq!(timeouts.execute, Duration::from_secs(120));
    /// ```
    pub fn limit_mut(&mut self, phase: Phase) -> &mut Duration {
        match phase {
            Phase::Hello => &mut self.hello,
            Phase::Materialize => &mut self.materialize,
            Phase::Prepare => &mut self.prepare,
            Phase::Execute => &mut self.execute,
            Phase::Reset => &mut self.reset,
            Phase::Evaluate => &mut self.evaluate,
            Phase::Shutdown => &mut self.shutdown,
        }
    }
}
