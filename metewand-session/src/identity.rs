//! The host identity a confined worker runs as when `metewand` runs as root (DESIGN §23): never uid 0, but a
//! dedicated uid and gid that own nothing, given exactly the worker's output folders and `TMPDIR` for its session.
//!
//! Root's worker would otherwise be uid 0 on the host: without a capability, but the owner of everything root owns,
//! able to read root's private files and to leave a setuid-root program in its result. An ordinary user's worker
//! keeps that user's identity (the user-namespace route): it owns only what the user owns, and the user chose to
//! run it.
//!
//! The identity is `METEWAND_WORKER_USER` (`UID` or `UID:GID`, both above 0), or [`WorkerIdentity::DEFAULT`]:
//! 65530, in the range Debian reserves and allocates to nobody (65000 to 65533), outside systemd's dynamic users
//! (61184 to 65519) and the ranges container runtimes map, and not `nobody` (65534), which owns what NFS
//! squashes root's files to.

use std::fmt;
use std::path::{Path, PathBuf};

/// The variable that chooses the identity root's workers run as.
pub const WORKER_USER_VAR: &str = "METEWAND_WORKER_USER";

/// A host uid and gid a worker runs as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct WorkerIdentity {
    /// The user id.
    pub uid: u32,
    /// The group id (the worker's only group).
    pub gid: u32,
}

/// Why `METEWAND_WORKER_USER` names no identity a worker may run as.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{WORKER_USER_VAR}={value:?} is not a worker identity: {reason}; write UID or UID:GID, both above 0")]
pub struct IdentityError {
    /// The value found.
    pub value: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

impl WorkerIdentity {
    /// The identity root's workers run as unless `METEWAND_WORKER_USER` says otherwise.
    pub const DEFAULT: WorkerIdentity = WorkerIdentity { uid: 65530, gid: 65530 };

    /// Reads `UID` (the gid is then the same number) or `UID:GID`; 0 (root) is refused for either.
    pub fn parse(value: &str) -> Result<WorkerIdentity, IdentityError> {
        let fail = |reason| IdentityError { value: value.to_owned(), reason };
        let (uid, gid) = value.split_once(':').unwrap_or((value, value));
        let number = |text: &str| {
            // u32::MAX is the kernel's "no id" ((uid_t) -1).
            text.parse::<u32>().ok().filter(|id| *id != u32::MAX).ok_or_else(|| fail("not a number below 2^32 - 1"))
        };
        let (uid, gid) = (number(uid)?, number(gid)?);
        if uid == 0 || gid == 0 {
            return Err(fail("a worker never runs as root"));
        }
        Ok(WorkerIdentity { uid, gid })
    }

    /// The identity `METEWAND_WORKER_USER` names, or [`WorkerIdentity::DEFAULT`] when it is unset or empty.
    pub fn configured() -> Result<WorkerIdentity, IdentityError> {
        match std::env::var(WORKER_USER_VAR) {
            Ok(value) if !value.is_empty() => WorkerIdentity::parse(&value),
            Ok(_) => Ok(WorkerIdentity::DEFAULT),
            Err(std::env::VarError::NotPresent) => Ok(WorkerIdentity::DEFAULT),
            Err(std::env::VarError::NotUnicode(value)) => {
                Err(IdentityError { value: value.to_string_lossy().into_owned(), reason: "not UTF-8" })
            }
        }
    }

    /// The identity confined workers of this process run as: [`WorkerIdentity::configured`] when this process runs
    /// as root and may change identities (`CAP_SETUID` and `CAP_SETGID`), `None` otherwise: an ordinary user's
    /// worker keeps that user's identity, and root without those capabilities cannot give its worker another (the
    /// worker is then uid 0, which its confinement report says). Read once per process.
    pub fn for_workers() -> Result<Option<WorkerIdentity>, IdentityError> {
        static CHOSEN: std::sync::OnceLock<Result<Option<WorkerIdentity>, IdentityError>> = std::sync::OnceLock::new();
        CHOSEN
            .get_or_init(|| {
                if super::sys::euid() == 0 && may_change_identities() {
                    WorkerIdentity::configured().map(Some)
                } else {
                    Ok(None)
                }
            })
            .clone()
    }

    /// The effective uid and gid of this process, as a worker that keeps them runs as.
    pub fn of_this_process() -> WorkerIdentity {
        WorkerIdentity { uid: super::sys::euid(), gid: super::sys::egid() }
    }

    /// Whether this identity may pass through (search) a folder owned by `owner` and `group` with `mode`: the
    /// owner's execute bit if it owns it, the group's if the folder is its group's, the others' otherwise.
    pub fn may_search(&self, owner: u32, group: u32, mode: u32) -> bool {
        let bit = if owner == self.uid {
            0o100
        } else if group == self.gid {
            0o010
        } else {
            0o001
        };
        mode & bit != 0
    }

    /// The first folder on the way to `path` (its ancestors from `/`, `path` itself left out) that this identity
    /// may not pass through, if any, with its owner and mode: what a worker run as this identity cannot reach
    /// without a private view to show it. Folders that cannot be examined (not there yet) are passed over.
    pub fn first_closed_folder(&self, path: &Path) -> Option<ClosedFolder> {
        use std::os::unix::fs::MetadataExt;
        path.ancestors().skip(1).collect::<Vec<_>>().into_iter().rev().find_map(|ancestor| {
            let metadata = std::fs::metadata(ancestor).ok()?;
            (!self.may_search(metadata.uid(), metadata.gid(), metadata.mode())).then(|| ClosedFolder {
                path: ancestor.to_owned(),
                owner: metadata.uid(),
                mode: metadata.mode() & 0o7777,
            })
        })
    }
}

/// A folder an identity may not pass through ([`WorkerIdentity::first_closed_folder`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClosedFolder {
    /// The folder.
    pub path: PathBuf,
    /// Its owner's uid.
    pub owner: u32,
    /// Its permission bits.
    pub mode: u32,
}

/// Whether this process holds `CAP_SETUID` and `CAP_SETGID` in its effective set (`/proc/self/status`).
fn may_change_identities() -> bool {
    const CAP_SETGID: u32 = 6;
    const CAP_SETUID: u32 = 7;
    #[allow(clippy::disallowed_methods, reason = "procfs, which only the kernel writes")]
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let effective = status
        .lines()
        .find_map(|line| line.strip_prefix("CapEff:"))
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
        .unwrap_or(0);
    effective & (1 << CAP_SETGID) != 0 && effective & (1 << CAP_SETUID) != 0
}

/// Gives `dir`, a folder the executor made inside the folders a running worker may write (a held session's next
/// result folder), to the identity workers run as, where they run as one of their own; nothing otherwise.
pub fn hand_over(dir: &Path) -> std::io::Result<()> {
    let identity =
        WorkerIdentity::for_workers().map_err(|error| std::io::Error::new(std::io::ErrorKind::InvalidInput, error))?;
    match identity {
        Some(identity) => metewand_tree::hand_over(dir, identity.uid, identity.gid),
        None => Ok(()),
    }
}

impl fmt::Display for WorkerIdentity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "uid {} gid {}", self.uid, self.gid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_identity_is_a_uid_and_a_gid_above_zero() {
        assert_eq!(WorkerIdentity::parse("65530").unwrap(), WorkerIdentity { uid: 65530, gid: 65530 });
        assert_eq!(WorkerIdentity::parse("1234:5678").unwrap(), WorkerIdentity { uid: 1234, gid: 5678 });
        for value in ["0", "0:100", "100:0", "", "nobody", "-1", "12:", ":12", "4294967295", "1:2:3"] {
            let error = WorkerIdentity::parse(value).unwrap_err();
            assert!(error.to_string().starts_with("METEWAND_WORKER_USER="), "{error}");
        }
        assert!(WorkerIdentity::parse("0").unwrap_err().to_string().contains("never runs as root"));
    }

    #[test]
    fn searching_a_folder_takes_the_bit_of_the_class_the_identity_falls_in() {
        let worker = WorkerIdentity { uid: 7, gid: 8 };
        assert!(worker.may_search(0, 0, 0o755));
        assert!(!worker.may_search(0, 0, 0o750), "a 0750 folder of root's");
        assert!(worker.may_search(0, 8, 0o750), "its group's");
        assert!(!worker.may_search(7, 0, 0o077), "the owner's bit alone counts for its owner");
        assert!(worker.may_search(7, 0, 0o700));
    }
}
