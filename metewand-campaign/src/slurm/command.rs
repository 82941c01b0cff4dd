//! Slurm's own commands run as processes (`sbatch --parsable`, `squeue`, `scontrol show config`, `scancel`) and
//! their machine-readable output parsed. Their failures become a [`SlurmError`] of one sentence built from the
//! command's own error line, so that what Slurm said (a bad partition, an unreachable controller) reaches the user.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::io;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// A failure of one of Slurm's commands.
#[derive(Debug, thiserror::Error)]
pub enum SlurmError {
    /// The command is not on `PATH`.
    #[error("{program} is not on PATH: run this on a machine with Slurm's commands installed (a cluster's login node)")]
    NotInstalled {
        /// `sbatch`, `squeue`, `scontrol` or `scancel`.
        program: &'static str,
    },
    /// The command could not reach the controller.
    #[error(
        "{program} cannot reach the Slurm controller ({message}); check that slurmctld runs and this machine can reach it"
    )]
    Unreachable {
        /// The command.
        program: &'static str,
        /// Its own error line.
        message: String,
    },
    /// The command refused the request: its own error line, e.g. `invalid partition specified: nope`.
    #[error("{program} refused: {message}")]
    Refused {
        /// The command.
        program: &'static str,
        /// Its own error line(s), joined.
        message: String,
    },
    /// The command could not be started.
    #[error("cannot run {program}: {source}")]
    Spawn {
        /// The command.
        program: &'static str,
        /// The system's reason.
        source: io::Error,
    },
    /// The command printed something this module cannot read.
    #[error("{program} printed {output:?}, which is not what Metewand expects of it")]
    Unreadable {
        /// The command.
        program: &'static str,
        /// What it printed (the first 200 bytes).
        output: String,
    },
}

/// The Slurm state of one job, or of one task of an array, as `squeue` lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskState {
    /// The job id (of the array, for an array task).
    pub job: u64,
    /// The array index, for an array task.
    pub task: Option<u64>,
    /// Slurm's state name: `PENDING`, `RUNNING`, `COMPLETED`, `TIMEOUT`, `CANCELLED`, `FAILED`, ...
    pub state: String,
    /// Slurm's reason (why it is pending, or `None`).
    pub reason: String,
}

/// The kind of a Slurm state, for a campaign: queued, running, or ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Activity {
    /// Waiting to start (a dependency, a throttle, resources, or requeued).
    Pending,
    /// Started and not yet ended (running, completing, suspended, ...).
    Running,
    /// Ended, whatever the way.
    Ended,
}

impl TaskState {
    /// Whether the task waits, runs or has ended.
    pub fn activity(&self) -> Activity {
        activity(&self.state)
    }
}

/// The activity of a Slurm state name.
pub fn activity(state: &str) -> Activity {
    match state {
        "PENDING" | "REQUEUED" | "REQUEUE_FED" | "REQUEUE_HOLD" => Activity::Pending,
        "RUNNING" | "CONFIGURING" | "COMPLETING" | "SUSPENDED" | "STOPPED" | "RESIZING" | "SIGNALING" | "STAGE_OUT" => {
            Activity::Running
        }
        _ => Activity::Ended,
    }
}

/// Slurm's client commands, found on `PATH`, and the controller they reach.
#[derive(Clone, Debug)]
pub struct Slurm {
    max_array_size: u64,
}

impl Slurm {
    /// Slurm's commands on `PATH` ([`SlurmError::NotInstalled`] when `sbatch` is not there) and the controller's
    /// configuration, which proves it answers ([`SlurmError::Unreachable`] otherwise).
    pub fn connect() -> Result<Slurm, SlurmError> {
        let found = std::env::var_os("PATH").is_some_and(|path| {
            std::env::split_paths(&path).any(|dir| {
                dir.join("sbatch").metadata().is_ok_and(|metadata| {
                    metadata.is_file() && std::os::unix::fs::PermissionsExt::mode(&metadata.permissions()) & 0o111 != 0
                })
            })
        });
        if !found {
            return Err(SlurmError::NotInstalled { program: "sbatch" });
        }
        let output = run("scontrol", ["show", "config"], None)?;
        let max_array_size = parse_max_array_size(&String::from_utf8_lossy(&output.stdout))
            .ok_or_else(|| unreadable("scontrol", &output.stdout))?;
        Ok(Slurm { max_array_size })
    }

    /// The controller's `MaxArraySize` (from `scontrol show config`): one more than the largest array index it
    /// accepts.
    pub fn max_array_size(&self) -> u64 {
        self.max_array_size
    }

    /// Submits `script` with `sbatch --parsable` and `args` (options before the script), from `dir`; the job id.
    pub fn sbatch(&self, dir: &Path, args: &[String], script: &Path) -> Result<u64, SlurmError> {
        let mut all: Vec<&OsStr> = vec![OsStr::new("--parsable")];
        all.extend(args.iter().map(OsStr::new));
        all.push(script.as_os_str());
        let output = run("sbatch", all, Some(dir))?;
        parse_job_id(&String::from_utf8_lossy(&output.stdout)).ok_or_else(|| unreadable("sbatch", &output.stdout))
    }

    /// The state of every task of `jobs` that the controller still knows (pending array tasks one by one, ended
    /// ones for `MinJobAge` after they end). A job it has forgotten is simply not listed.
    pub fn queue(&self, jobs: &[u64]) -> Result<Vec<TaskState>, SlurmError> {
        if jobs.is_empty() {
            return Ok(Vec::new());
        }
        let ids = jobs.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
        let args = ["--noheader", "--array", "--states=all", "--format=%F|%K|%T|%r", "--jobs", ids.as_str()];
        match run("squeue", args, None) {
            Ok(output) => parse_queue(&String::from_utf8_lossy(&output.stdout))
                .ok_or_else(|| unreadable("squeue", &output.stdout)),
            // Every one of the ids is forgotten: squeue calls that an invalid id.
            Err(SlurmError::Refused { message, .. }) if message.contains("Invalid job id") => Ok(Vec::new()),
            Err(error) => Err(error),
        }
    }

    /// The tasks of `jobs` still pending or running, by job.
    pub fn active(&self, jobs: &[u64]) -> Result<BTreeMap<u64, Vec<TaskState>>, SlurmError> {
        let mut active: BTreeMap<u64, Vec<TaskState>> = BTreeMap::new();
        for task in self.queue(jobs)? {
            if task.activity() != Activity::Ended {
                active.entry(task.job).or_default().push(task);
            }
        }
        Ok(active)
    }

    /// `scancel` of `jobs` with `options` (e.g. `--state=PENDING`, or `--batch --signal=TERM`).
    pub fn scancel(&self, options: &[&str], jobs: &[u64]) -> Result<(), SlurmError> {
        if jobs.is_empty() {
            return Ok(());
        }
        let ids: Vec<String> = jobs.iter().map(u64::to_string).collect();
        let args: Vec<&str> = options.iter().copied().chain(ids.iter().map(String::as_str)).collect();
        match run("scancel", args, None) {
            Ok(_) => Ok(()),
            // A job that ended between the look and the cancel is what was wanted.
            Err(SlurmError::Refused { message, .. })
                if message.contains("already completed") || message.contains("Invalid job id") =>
            {
                Ok(())
            }
            Err(error) => Err(error),
        }
    }
}

/// Runs `program` with `args`, stdin empty; its output when it exits 0, else its error lines as a [`SlurmError`].
fn run<I, S>(program: &'static str, args: I, dir: Option<&Path>) -> Result<Output, SlurmError>
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut command = Command::new(program);
    command.args(args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let output = command.output().map_err(|source| match source.kind() {
        io::ErrorKind::NotFound => SlurmError::NotInstalled { program },
        _ => SlurmError::Spawn { program, source },
    })?;
    if output.status.success() {
        return Ok(output);
    }
    let message = error_lines(program, &String::from_utf8_lossy(&output.stderr))
        .unwrap_or_else(|| format!("it exited with {} and printed no error", output.status));
    if unreachable_controller(&message) {
        Err(SlurmError::Unreachable { program, message })
    } else {
        Err(SlurmError::Refused { program, message })
    }
}

fn unreadable(program: &'static str, output: &[u8]) -> SlurmError {
    let text = String::from_utf8_lossy(&output[..output.len().min(200)]).into_owned();
    SlurmError::Unreadable { program, output: text }
}

/// What a Slurm command says when its controller cannot be reached.
fn unreachable_controller(message: &str) -> bool {
    ["Unable to contact slurm controller", "Socket timed out", "Connection refused", "Zero Bytes were transmitted"]
        .iter()
        .any(|needle| message.contains(needle))
}

/// A command's error lines (`sbatch: error: X`, `slurm_load_jobs error: X`), without their prefixes, joined by
/// `; `: Slurm's own words, on one line.
pub fn error_lines(program: &str, stderr: &str) -> Option<String> {
    let prefixed = format!("{program}: error: ");
    let lines: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .map(|line| {
            line.strip_prefix(prefixed.as_str())
                .or_else(|| line.split_once(" error: ").map(|(_, rest)| rest))
                .or_else(|| line.strip_prefix("error: "))
                .unwrap_or(line)
        })
        .collect();
    let mut unique: Vec<&str> = Vec::new();
    for line in lines {
        if !unique.contains(&line) {
            unique.push(line);
        }
    }
    (!unique.is_empty()).then(|| unique.join("; "))
}

/// `MaxArraySize = N` of `scontrol show config`.
pub fn parse_max_array_size(text: &str) -> Option<u64> {
    text.lines().find_map(|line| {
        let (name, value) = line.split_once('=')?;
        (name.trim() == "MaxArraySize").then(|| value.trim().parse().ok())?
    })
}

/// `sbatch --parsable`'s output: `ID` or `ID;CLUSTER`.
pub fn parse_job_id(text: &str) -> Option<u64> {
    let line = text.lines().map(str::trim).find(|line| !line.is_empty())?;
    line.split(';').next()?.parse().ok()
}

/// `squeue --format=%F|%K|%T|%r` lines: array job id (the job's own for a plain job), array index (`N/A` for a
/// plain job), state, reason.
pub fn parse_queue(text: &str) -> Option<Vec<TaskState>> {
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let mut fields = line.trim().splitn(4, '|');
            let job = fields.next()?.parse().ok()?;
            let task = match fields.next()? {
                "N/A" => None,
                index => Some(index.parse().ok()?),
            };
            let state = fields.next()?.to_owned();
            let reason = fields.next().unwrap_or("").to_owned();
            Some(TaskState { job, task, state, reason })
        })
        .collect()
}
