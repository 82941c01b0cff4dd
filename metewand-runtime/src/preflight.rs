//! The checks before anything starts: that no folder the executor will write lies inside a worker's source, that
//! the workers can be confined as required, and that an attempt folder named by the caller is new or empty (it is
//! created then, the one thing made before the attempt starts). `metewand run` and `metewand campaign` run them in
//! that order and report the first error as one sentence; nothing is created before they pass.
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
use std::path::{Path, PathBuf};

use crate::repository::CheckedRepository;

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
