//! Whether a folder the executor would write (a state folder, an attempt folder) lies inside a worker's source.
//!
//! Every attempt copies each worker's source and hashes it into the worker's identity and the dataset key, so a
//! state folder inside a source would be copied into every later attempt and change the keys each time. The
//! comparison is between canonical paths, and must hold for folders that do not exist yet, since the check comes
//! before anything is created.

use std::io;
use std::path::{Component, Path, PathBuf};

use super::{CheckedRepository, SKIPPED_NAMES, Worker};

impl CheckedRepository {
    /// The worker whose source directory holds `path` (which need not exist yet): the first in byte order of the
    /// names when several share that source, `None` when no source holds it. The path is made absolute against
    /// the current directory, its nearest existing ancestor is canonicalized and the rest appended as written
    /// (`..` there drops the component before it, as creating those folders would). A path under a name the
    /// source walk skips (`.git`, `.metewand`, `__pycache__`) is not in the source: nothing there is copied or
    /// hashed. An error is an I/O error while resolving the path (other than a missing component).
    pub fn worker_whose_source_holds(&self, path: &Path) -> io::Result<Option<&Worker>> {
        let resolved = resolve(path)?;
        Ok(self.workers.values().find(|worker| {
            resolved.strip_prefix(worker.source_path()).is_ok_and(|inside| {
                inside.components().all(|part| !SKIPPED_NAMES.iter().any(|skipped| part.as_os_str() == *skipped))
            })
        }))
    }
}

/// The canonical form `path` has, or will have once its missing folders are created.
fn resolve(path: &Path) -> io::Result<PathBuf> {
    let absolute = std::path::absolute(path)?;
    let components: Vec<Component<'_>> = absolute.components().collect();
    for existing in (1..=components.len()).rev() {
        let prefix: PathBuf = components[..existing].iter().collect();
        let mut resolved = match prefix.canonicalize() {
            Ok(canonical) => canonical,
            Err(error) if matches!(error.kind(), io::ErrorKind::NotFound | io::ErrorKind::NotADirectory) => continue,
            Err(error) => return Err(error),
        };
        for component in &components[existing..] {
            match component {
                Component::ParentDir => {
                    resolved.pop();
                }
                Component::Normal(name) => resolved.push(name),
                Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
            }
        }
        return Ok(resolved);
    }
    // The root always exists; only a path that is not absolute after `absolute` could get here.
    Ok(absolute)
}
