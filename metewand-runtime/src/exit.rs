//! The exit statuses of Metewand's commands, decided in one place.
//!
//! A command's result maps onto one [`Exit`]; the CLI only turns it into the process's status. An attempt's
//! outcome, a campaign run's summary and a Slurm task's summary each say which [`Exit`] they mean here, so the same
//! outcome ends every command the same way.
//!
//! ```
//! use metewand_runtime::exit::Exit;
//! use metewand_runtime::protocol::generated::attempt_record::Outcome;
//!
//! assert_eq!(Exit::from(Outcome::NotReached).code(), 1);
//! assert_eq!(Exit::from(Outcome::Cancelled).code(), 130);
//! ```

use metewand_protocol::generated::attempt_record::Outcome;

/// How a command ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// It did what was asked and what it judged passed: exit 0.
    Success,
    /// It ran, and what it judged did not pass: a verdict not reached or invalid, a rejected input, a failed
    /// conformance check, a regression, an incomplete campaign: exit 1.
    Rejected,
    /// It could not start its work: a usage, repository or I/O error: exit 2.
    Usage,
    /// Its work started and failed: a worker crashed, hung or broke the protocol, or a record could not be
    /// written: exit 3.
    Failed,
    /// Ctrl-C, SIGTERM or SIGHUP ended it, after recording what had happened: exit 130.
    Cancelled,
}

impl Exit {
    /// The process's exit status.
    pub fn code(self) -> u8 {
        match self {
            Exit::Success => 0,
            Exit::Rejected => 1,
            Exit::Usage => 2,
            Exit::Failed => 3,
            Exit::Cancelled => 130,
        }
    }
}

impl From<Outcome> for Exit {
    /// How `metewand run` ends for an attempt with this outcome.
    fn from(outcome: Outcome) -> Exit {
        match outcome {
            Outcome::Reached | Outcome::NotRequired => Exit::Success,
            Outcome::NotReached | Outcome::Invalid => Exit::Rejected,
            Outcome::Failed => Exit::Failed,
            Outcome::Cancelled => Exit::Cancelled,
        }
    }
}
