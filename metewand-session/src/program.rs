//! The program a worker runs, as the kernel names it once the worker has answered hello: `/proc/<pid>/exe`, hashed
//! through that link (the file that runs, even if its path has been replaced since), beside the `PATH` match its
//! command was started from. A virtual environment's `python3` and the interpreter it links to are two paths to
//! one program; what ran is the second, what the user chose is the first, and a record keeps both.

use std::collections::HashMap;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use sha2::{Digest, Sha256};

use super::command::{WorkerCommand, find_program};
use crate::protocol::Sha256Digest;
use metewand_environment::{PythonEnvironment, python_environment, python_interpreter};

/// What a worker process was running when it answered hello.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkerProgram {
    /// The path the kernel names for `/proc/<pid>/exe`.
    pub path: String,
    /// That file's SHA-256, read through the link.
    pub sha256: Sha256Digest,
    /// The command's first word as found on `PATH` (or the absolute path it names), when that is another path: a
    /// link, a script, a shim. `None` for a program named by a relative path (inside the worker's source).
    pub path_match: Option<String>,
    /// The Python distributions it imports, when it is a Python interpreter or a script run by one.
    pub environment: Option<Arc<PythonEnvironment>>,
}

/// The largest program hashed: a worker may `exec` a file of its own making before hello, and hashing it must not
/// hold the executor for long (an interpreter is tens of megabytes). A larger program is not recorded.
pub const MAX_PROGRAM_BYTES: u64 = 512 << 20;

/// The file identity a digest is cached under: a program is the same file while these are.
type FileKey = (u64, u64, i64, i64, i64, u64);

/// Digests of programs already read, so that the interpreter every session shares is read once per process.
static DIGESTS: Mutex<Option<HashMap<FileKey, Sha256Digest>>> = Mutex::new(None);

/// The command's first word as `execvp` found it: the first match on the command's `PATH`, or the absolute path it
/// names; `None` for a relative path (the worker's own source) or when nothing is found.
pub fn path_match(command: &WorkerCommand) -> Option<String> {
    let program = command.program();
    if program.as_bytes().contains(&b'/') {
        return Path::new(program).is_absolute().then(|| program.to_string_lossy().into_owned());
    }
    let environment = command.environment();
    let path = environment.get(std::ffi::OsStr::new("PATH"));
    find_program(program, command.working_dir(), path.map(|path| path.as_os_str()))
        .map(|found| found.to_string_lossy().into_owned())
}

/// The virtual environment a program found on `PATH` lies in (its folder's parent holds `pyvenv.cfg`): its
/// interpreter link runs as that environment only if the environment's `pyvenv.cfg` and packages resolve too, so the
/// environment counts as named by the command in the worker's view.
pub(super) fn virtual_environment(found: &Path) -> Option<std::ffi::OsString> {
    let root = found.parent()?.parent()?;
    root.join("pyvenv.cfg").is_file().then(|| root.as_os_str().to_owned())
}

/// Reads what `pid` runs: `None` when its `/proc` entry cannot be read (the process is gone, or does not let the
/// executor look) or its executable is not a regular file of at most [`MAX_PROGRAM_BYTES`].
pub(super) fn observe(pid: i32, command: &WorkerCommand) -> Option<WorkerProgram> {
    let link = format!("/proc/{pid}/exe");
    let path = std::fs::read_link(&link).ok()?.to_string_lossy().into_owned();
    #[allow(
        clippy::disallowed_methods,
        reason = "the kernel's link to the file a process executes, followed on purpose: its digest is of what runs"
    )]
    let mut file = std::fs::File::open(&link).ok()?;
    let stat = rustix::fs::fstat(&file).ok()?;
    let size = u64::try_from(stat.st_size).ok()?;
    if rustix::fs::FileType::from_raw_mode(stat.st_mode) != rustix::fs::FileType::RegularFile
        || size > MAX_PROGRAM_BYTES
    {
        return None;
    }
    let key: FileKey =
        (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime, stat.st_mtime_nsec as i64, stat.st_ctime as u64);
    let cached = DIGESTS.lock().unwrap_or_else(PoisonError::into_inner).as_ref().and_then(|map| map.get(&key).copied());
    let sha256 = match cached {
        Some(digest) => digest,
        None => {
            // Read no more than the size the file had when it was opened: a file that grows is not read forever.
            let mut hasher = Sha256::new();
            let mut buffer = vec![0; 1 << 20];
            let mut reader = (&mut file).take(size);
            loop {
                match reader.read(&mut buffer) {
                    Ok(0) => break,
                    Ok(n) => hasher.update(&buffer[..n]),
                    Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => return None,
                }
            }
            let digest = Sha256Digest::from_hasher(hasher);
            DIGESTS.lock().unwrap_or_else(PoisonError::into_inner).get_or_insert_with(HashMap::new).insert(key, digest);
            digest
        }
    };
    let found = path_match(command);
    let path_var = command.environment().get(std::ffi::OsStr::new("PATH")).cloned();
    let environment = python_interpreter(found.as_deref().map(Path::new), Some(Path::new(&path)), path_var.as_deref())
        .and_then(|interpreter| python_environment(&interpreter));
    let path_match = found.filter(|found| *found != path);
    Some(WorkerProgram { path, sha256, path_match, environment })
}
