//! A worker's command: its program, arguments, working directory and declared environment, and how its program
//! is found on `PATH`, as the spawn will find it. Both the spawn and the observation of what ran read it.

use std::collections::BTreeMap;
use std::ffi::OsString;

use std::path::PathBuf;

/// The environment variables a worker inherits from the orchestrator; everything else is declared.
pub const INHERITED_ENV: [&str; 4] = ["PATH", "LANG", "LC_ALL", "TMPDIR"];

/// How to start a worker: its argv, its working directory and the variables it declares.
///
/// The environment is clean: only [`INHERITED_ENV`] is taken from the orchestrator, then the declared variables,
/// which may override those.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkerCommand {
    program: OsString,
    args: Vec<OsString>,
    working_dir: PathBuf,
    env: BTreeMap<OsString, OsString>,
}

impl WorkerCommand {
    /// A command running `program` (found on the inherited `PATH` unless it holds a `/`) in `working_dir`.
    pub fn new(program: impl Into<OsString>, working_dir: impl Into<PathBuf>) -> WorkerCommand {
        WorkerCommand {
            program: program.into(),
            args: Vec::new(),
            working_dir: working_dir.into(),
            env: BTreeMap::new(),
        }
    }

    /// Adds one argument.
    pub fn arg(mut self, arg: impl Into<OsString>) -> WorkerCommand {
        self.args.push(arg.into());
        self
    }

    /// Adds arguments.
    pub fn args<I: IntoIterator<Item = S>, S: Into<OsString>>(mut self, args: I) -> WorkerCommand {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Declares one environment variable.
    pub fn env(mut self, name: impl Into<OsString>, value: impl Into<OsString>) -> WorkerCommand {
        self.env.insert(name.into(), value.into());
        self
    }

    /// The program.
    pub fn program(&self) -> &OsString {
        &self.program
    }

    /// The arguments after the program.
    pub fn arguments(&self) -> &[OsString] {
        &self.args
    }

    /// The working directory.
    pub fn working_dir(&self) -> &PathBuf {
        &self.working_dir
    }

    /// The complete environment the worker gets, given the orchestrator's own.
    pub fn environment(&self) -> BTreeMap<OsString, OsString> {
        let mut environment: BTreeMap<OsString, OsString> = INHERITED_ENV
            .iter()
            .filter_map(|&name| std::env::var_os(name).map(|value| (OsString::from(name), value)))
            .collect();
        environment.extend(self.env.iter().map(|(name, value)| (name.clone(), value.clone())));
        environment
    }
}

pub use metewand_environment::find_program;
