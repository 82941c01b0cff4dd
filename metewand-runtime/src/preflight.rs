//! The checks before anything starts: that no folder the executor will write lies inside a worker's source, that
//! the workers can be confined as required and can reach what they need, and that an attempt folder named by the
//! caller is new or empty (it is created then, the one thing made before the attempt starts). `metewand run` and
//! `metewand campaign` run them in that order and report the first error as one sentence; nothing is created before
//! they pass.
//!
//! ```
//! use metewand_runtime::preflight::{self, PreflightError};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let out = dir.path().join("attempt");
//! assert_eq!(preflight::new_or_empty_folder("--out", &out).unwrap(), out);
//! std::fs::write(out.join("left"), "").unwrap();
//! let error = preflight::new_or_empty_folder("--out", &out).unwrap_err();
//! assert!(matches!(error, PreflightError::FolderNotEmpty { .. }));
//! assert!(error.to_string().ends_with("is not empty; give a new or empty folder"));
//! // Missing parents are made, as `mkdir -p` would.
//! let deep = dir.path().join("campaigns/today/attempt");
//! assert_eq!(preflight::new_or_empty_folder("--out", &deep).unwrap(), deep);
//! assert!(deep.is_dir());
//!
//! let error = preflight::require_confinement(&["no PID namespace"], true).unwrap_err();
//! assert!(error.to_string().contains("cannot fully confine the workers (no PID namespace)"));
//! assert!(preflight::require_confinement(&["no PID namespace"], false).is_ok());
//! ```

use std::fs;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::repository::CheckedRepository;
use crate::session::{
    ClosedFolder, ConfinementReport, LimitMechanism, MountConfinement, ProcessConfinement, SyscallGroup, WorkerIdentity,
};

/// Why a run cannot start.
#[derive(Debug, thiserror::Error)]
pub enum PreflightError {
    /// A folder the executor would write is inside a worker's source, which every attempt copies and hashes.
    #[error(
        "{flag} {} is inside the source folder {source_folder:?} of worker {worker:?}, which every attempt copies; \
         choose a folder outside the workers' sources",
        path.display()
    )]
    InsideSource {
        /// The flag that named the folder (`--state-dir`, `--out`).
        flag: &'static str,
        /// The folder.
        path: PathBuf,
        /// The worker's name.
        worker: String,
        /// The worker's source folder, as the repository declares it.
        source_folder: String,
    },
    /// A folder could not be examined, or an attempt folder could not be created or read.
    #[error("{flag} {}: {action}: {source}", path.display())]
    Io {
        /// The flag that named the folder.
        flag: &'static str,
        /// The folder.
        path: PathBuf,
        /// What failed (`cannot be examined`, `cannot be created`, `cannot be read`).
        action: &'static str,
        /// Why.
        source: io::Error,
    },
    /// The attempt folder named exists and is not a folder.
    #[error("{flag} {}: exists and is not a folder", path.display())]
    NotAFolder {
        /// The flag that named it.
        flag: &'static str,
        /// The path.
        path: PathBuf,
    },
    /// The attempt folder named holds something already.
    #[error("{flag} {}: is not empty; give a new or empty folder", path.display())]
    FolderNotEmpty {
        /// The flag that named it.
        flag: &'static str,
        /// The folder.
        path: PathBuf,
    },
    /// Full confinement was required and this machine cannot give it.
    #[error(
        "--require-confinement: this machine cannot fully confine the workers ({}); run `metewand doctor` to see \
         what the kernel offers, or drop the flag to run with weaker confinement",
        missing.join(", ")
    )]
    ConfinementRequired {
        /// What the workers would lack, in the order found.
        missing: Vec<&'static str>,
    },
    /// A limit the repository sets would not be held for one of its workers here.
    #[error(
        "[limits] {} = {} cannot be held here for worker {:?}: {}; {}, or pass --allow-unenforced-limits to run \
         without it (each session records it as not enforced)",
        .0.limit, .0.value, .0.worker, .0.reason, .0.remedy
    )]
    UnenforcedLimit(UnenforcedLimit),
    /// A worker that would run as an identity of its own, with no private view here to show it what it needs,
    /// could not pass a folder on its way to a folder or file it needs.
    #[error(
        "{what} is out of reach of worker {worker:?}, which runs as uid {uid} here with no private view: it cannot \
         pass {} (owner uid {}, mode {:04o}); let others pass that folder (chmod o+x), choose a place that uid can \
         reach, or run where workers get a mount namespace",
        closed.path.display(), closed.owner, closed.mode
    )]
    OutOfReach {
        /// What the worker needs, as the user named it (`--state-dir PATH`, `the program PATH`, `PYTHONPATH=PATH`).
        what: String,
        /// The worker's name.
        worker: String,
        /// The uid it runs as.
        uid: u32,
        /// The first folder on the way it may not pass.
        closed: ClosedFolder,
    },
}

/// A `[limits]` value a repository sets that nothing would hold for one of its workers on this machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnenforcedLimit {
    /// The key: `memory_bytes` or `processes`.
    pub limit: &'static str,
    /// Its value.
    pub value: u64,
    /// The worker it would not hold.
    pub worker: String,
    /// Why not, on the route this machine gives the worker.
    pub reason: &'static str,
    /// What would make it hold.
    pub remedy: &'static str,
}

/// The limits `repository` sets that the `expected` confinement of its workers here (by name, from
/// [`KernelSupport::expected_for`](crate::session::KernelSupport::expected_for)) would not hold: DESIGN §23, a
/// limit is enforced or refused, never silently absent. Defaults the repository leaves alone are not listed (what
/// they lack is among the confinement's weaknesses, warned of).
pub fn unenforced_limits<'a>(
    repository: &CheckedRepository,
    expected: impl IntoIterator<Item = (&'a str, &'a ConfinementReport)>,
) -> Vec<UnenforcedLimit> {
    let mut found = Vec::new();
    for (worker, report) in expected {
        let limits = [
            ("memory_bytes", report.limits.memory_bytes, memory_reason(report)),
            ("processes", report.limits.processes, process_reason(report)),
        ];
        for (limit, held, (reason, remedy)) in limits {
            if let (Some(value), LimitMechanism::None, true) =
                (held.value, held.mechanism, repository.declares_limit(limit))
            {
                found.push(UnenforcedLimit { limit, value, worker: worker.to_owned(), reason, remedy });
            }
        }
    }
    found
}

fn memory_reason(report: &ConfinementReport) -> (&'static str, &'static str) {
    if report.declared_syscalls.contains(SyscallGroup::MemfdCreate) {
        (
            "it declares memfd_create, and only a cgroup with the memory controller counts what a memfd holds",
            "run it where metewand has such a cgroup (a delegated cgroup v2 subtree)",
        )
    } else {
        (
            "without seccomp filters its memfds and shared memory would escape it",
            "run it on a kernel with seccomp, or where metewand has a cgroup with the memory controller",
        )
    }
}

fn process_reason(report: &ConfinementReport) -> (&'static str, &'static str) {
    if report.processes == ProcessConfinement::Sweep {
        (
            "its processes would be swept, without a PID namespace, and nothing counts them then",
            "run it where user namespaces are allowed",
        )
    } else {
        (
            "below 300 tasks a PID namespace's pid_max cannot hold it, and RLIMIT_NPROC does not bind a worker that is \
             root",
            "set 300 or more, or run it where metewand may give the worker its own user",
        )
    }
}

/// With `allow`, accepts `unenforced` limits (each session records them as not enforced, and the caller warns);
/// otherwise refuses the first.
pub fn require_enforced_limits(unenforced: &[UnenforcedLimit], allow: bool) -> Result<(), PreflightError> {
    match unenforced.first() {
        Some(first) if !allow => Err(PreflightError::UnenforcedLimit(first.clone())),
        _ => Ok(()),
    }
}

/// Refuses `path` (named by `flag`) when it lies inside the source folder of one of `repository`'s workers.
pub fn outside_sources(repository: &CheckedRepository, flag: &'static str, path: &Path) -> Result<(), PreflightError> {
    match repository.worker_whose_source_holds(path) {
        Ok(None) => Ok(()),
        Ok(Some(worker)) => Err(PreflightError::InsideSource {
            flag,
            path: path.to_owned(),
            worker: worker.name().to_owned(),
            source_folder: worker.source().to_owned(),
        }),
        Err(source) => Err(PreflightError::Io { flag, path: path.to_owned(), action: "cannot be examined", source }),
    }
}

/// Refuses a run whose workers could not reach what they need: a worker that runs as an identity of its own (root's
/// workers) without a private view (on the sweep route, no mount namespace shows it the way) must pass every folder
/// above `folders` (each named by its flag: the state folder, the attempt or campaign folder) and above the absolute
/// paths its command and environment values name (split at `:`, as the view reads them), or its first session
/// would fail on a permission it was never going to have. `expected` is each worker's confinement here, by name.
pub fn reachable_by_workers<'a>(
    repository: &CheckedRepository,
    expected: impl IntoIterator<Item = (&'a str, &'a ConfinementReport)>,
    folders: &[(&'static str, &Path)],
) -> Result<(), PreflightError> {
    let this_process = WorkerIdentity::of_this_process();
    for (name, report) in expected {
        let Some(identity) = report.user.filter(|user| *user != this_process) else { continue };
        if report.mounts == MountConfinement::Private {
            continue;
        }
        let named = repository.worker(name).map(named_paths).unwrap_or_default();
        let needed = folders
            .iter()
            // What is inside a folder is reached through it: the folder must be passable too, as the way to an
            // entry of it.
            .map(|(flag, folder)| (format!("{flag} {}", folder.display()), existing_resolved(folder).join("entry")))
            .chain(
                named.into_iter().map(|(what, path)| (format!("{what} {}", path.display()), existing_resolved(&path))),
            );
        for (what, path) in needed {
            if let Some(closed) = identity.first_closed_folder(&path) {
                return Err(PreflightError::OutOfReach { what, worker: name.to_owned(), uid: identity.uid, closed });
            }
        }
    }
    Ok(())
}

/// The absolute paths `worker`'s command and environment values name, with what names them.
fn named_paths(worker: &crate::repository::Worker) -> Vec<(String, PathBuf)> {
    let words = worker.expanded_command().iter().enumerate().map(|(index, word)| {
        (if index == 0 { "the program".to_owned() } else { "the argument".to_owned() }, word.as_os_str())
    });
    let values = worker.expanded_env().iter().map(|(key, value)| (format!("{key}="), value.as_os_str()));
    let mut named = Vec::new();
    for (what, value) in words.chain(values) {
        for part in value.as_encoded_bytes().split(|&byte| byte == b':') {
            let path = Path::new(std::ffi::OsStr::from_bytes(part));
            if path.is_absolute() && path.exists() {
                named.push((what.clone(), path.to_owned()));
            }
        }
    }
    named
}

/// `path` resolved as the kernel will walk it, through its nearest existing ancestor where it is not there yet.
fn existing_resolved(path: &Path) -> PathBuf {
    let mut missing = Vec::new();
    let mut current = path;
    loop {
        if let Ok(resolved) = current.canonicalize() {
            return missing.iter().rev().fold(resolved, |resolved, part: &&std::ffi::OsStr| resolved.join(part));
        }
        match (current.parent(), current.file_name()) {
            (Some(parent), Some(name)) => {
                missing.push(name);
                current = parent;
            }
            _ => return path.to_owned(),
        }
    }
}

/// With `require`, refuses when `missing` (what the workers would lack of full confinement, from
/// [`crate::attempt::confinement_shortfalls`]) is not empty; otherwise the caller warns of what is missing.
pub fn require_confinement(missing: &[&'static str], require: bool) -> Result<(), PreflightError> {
    if require && !missing.is_empty() {
        return Err(PreflightError::ConfinementRequired { missing: missing.to_vec() });
    }
    Ok(())
}

/// The attempt folder `path` (named by `flag`), created with any missing parents when it does not exist, accepted
/// when it is an empty folder, refused otherwise; its path.
pub fn new_or_empty_folder(flag: &'static str, path: &Path) -> Result<PathBuf, PreflightError> {
    let io = |action, source| PreflightError::Io { flag, path: path.to_owned(), action, source };
    match fs::symlink_metadata(path) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            fs::create_dir_all(path).map_err(|error| io("cannot be created", error))?;
        }
        Err(error) => return Err(io("cannot be examined", error)),
        Ok(metadata) if !metadata.is_dir() => {
            return Err(PreflightError::NotAFolder { flag, path: path.to_owned() });
        }
        Ok(_) => {
            let mut entries = fs::read_dir(path).map_err(|error| io("cannot be read", error))?;
            if entries.next().is_some() {
                return Err(PreflightError::FolderNotEmpty { flag, path: path.to_owned() });
            }
        }
    }
    Ok(path.to_owned())
}
