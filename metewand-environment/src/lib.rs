//! The Python distributions a worker will import, read from the filesystem without running anything: the
//! interpreter's `site-packages` folders (a virtual environment's when its `pyvenv.cfg` lies above the interpreter,
//! else those of the interpreter's own prefix), and in them every `*.dist-info` folder's name, version and the
//! SHA-256 of its `RECORD` file (which lists every installed file with its digest, so a changed file of a
//! distribution that kept its version changes it). A worker whose numpy went from 1.26 to 2.1 keeps its id; this is
//! what says so.
//!
//! It runs nothing and opens no worker's folder, so both the session (which records what a worker imported) and
//! the repository (whose `identity = ["environment"]` makes a worker's environment part of its identity) read
//! it.

#![forbid(unsafe_code)]

use std::collections::{HashMap, HashSet};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::json;

use metewand_protocol::Sha256Digest;
use metewand_protocol::canonical::to_canonical_vec;

/// One installed distribution, as its `dist-info` folder says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PythonDistribution {
    /// Its `Name:` as written in `METADATA`.
    pub name: String,
    /// Its `Version:`.
    pub version: String,
    /// The SHA-256 of its `RECORD` file; `None` when it has none (a distribution installed by a tool that writes none).
    pub record_sha256: Option<Sha256Digest>,
}

/// The distributions a Python interpreter imports from, and where they were found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PythonEnvironment {
    /// The folders read, in the order the interpreter searches them.
    pub site_packages: Vec<String>,
    /// The distributions, sorted by normalized name; one of a name found in two folders is the first folder's, as
    /// an import would find it.
    pub distributions: Vec<PythonDistribution>,
    /// The SHA-256 of the canonical JSON of `[{"name", "record_sha256", "version"}, ...]` in that order: two
    /// environments with this digest import the same distributions, wherever they lie.
    pub digest: Sha256Digest,
}

/// The folders' identities an environment was read under: it is the same while these are (installing, removing or
/// upgrading a distribution adds or removes a `dist-info` folder, which changes its folder's times).
type FolderKeys = Vec<(u64, u64, i64, i64, i64, i64)>;

/// Environments read, by their folders, with the folders' identities they were read under.
type Cache = HashMap<Vec<PathBuf>, (FolderKeys, Arc<PythonEnvironment>)>;

/// Environments already read, so that every session of a worker reads its environment once.
static ENVIRONMENTS: Mutex<Option<Cache>> = Mutex::new(None);

/// Whether a program's file name is a Python interpreter's (`python`, `python3`, `python3.12`).
fn is_python(path: &Path) -> bool {
    path.file_name().and_then(|name| name.to_str()).is_some_and(|name| {
        name.strip_prefix("python").is_some_and(|rest| rest.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
    })
}

/// The interpreter a script's `#!` line names, found as `env` would on `path_var` when the line runs `env`;
/// `None` when the file is not a script run by Python.
fn script_interpreter(script: &Path, path_var: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    use std::io::Read;
    #[allow(clippy::disallowed_methods, reason = "a worker's program, read as the kernel would to start it")]
    let file = std::fs::File::open(script).ok()?;
    let mut head = Vec::with_capacity(256);
    file.take(256).read_to_end(&mut head).ok()?;
    let line = head.strip_prefix(b"#!")?.split(|&b| b == b'\n').next()?;
    let line = std::str::from_utf8(line).ok()?;
    let mut words = line.split_whitespace();
    let first = PathBuf::from(words.next()?);
    if first.file_name().is_some_and(|name| name == "env") {
        let word = words.find(|word| !word.starts_with('-'))?;
        let found = find_program(word.as_ref(), Path::new("/"), path_var)?;
        return is_python(&found).then_some(found);
    }
    is_python(&first).then_some(first)
}

/// The Python interpreter a worker's program is: the command's `PATH` match when it is one (a virtual
/// environment's `python3`, which names the environment though it links to the system's interpreter), or the
/// interpreter its `#!` line names when it is a script, else the file that runs (`/proc/<pid>/exe`) when that is one;
/// the first of these that has `site-packages` folders (a version manager's shim is named `python3` and has none), or
/// `None` for a program that is not Python.
pub fn python_interpreter(
    path_match: Option<&Path>,
    running: Option<&Path>,
    path_var: Option<&std::ffi::OsStr>,
) -> Option<PathBuf> {
    let named = path_match.filter(|found| is_python(found)).map(Path::to_owned);
    let script = path_match.and_then(|found| script_interpreter(found, path_var));
    let running = running.filter(|path| is_python(path)).map(Path::to_owned);
    [named, script, running].into_iter().flatten().find(|interpreter| !site_packages(interpreter).is_empty())
}

/// The `site-packages` folders `interpreter` imports from, derived from the filesystem: a virtual environment's
/// (its `pyvenv.cfg` in the folder above the interpreter's, with the base interpreter's folders after them when the
/// file says `include-system-site-packages = true`), else those of the prefix the interpreter lies in (resolved
/// through links): `lib/pythonX.Y/site-packages`, and the `dist-packages` folders Debian's interpreters read.
pub fn site_packages(interpreter: &Path) -> Vec<PathBuf> {
    let Some(root) = interpreter.parent().and_then(Path::parent) else { return Vec::new() };
    #[allow(clippy::disallowed_methods, reason = "a virtual environment's configuration, as the interpreter reads it")]
    if let Ok(config) = std::fs::read_to_string(root.join("pyvenv.cfg")) {
        let value = |key: &str| {
            config.lines().find_map(|line| {
                let (name, value) = line.split_once('=')?;
                (name.trim() == key).then(|| value.trim().to_owned())
            })
        };
        let mut folders = versioned(&root.join("lib"), "site-packages");
        if value("include-system-site-packages").is_some_and(|value| value.eq_ignore_ascii_case("true"))
            && let Some(home) = value("home")
        {
            let base = Path::new(&home).join(interpreter.file_name().unwrap_or_default());
            let base = if base.exists() { base } else { Path::new(&home).join("python3") };
            folders.extend(prefix_site_packages(&base));
        }
        return folders;
    }
    prefix_site_packages(interpreter)
}

/// The `site-packages` folders of the prefix a system interpreter lies in.
fn prefix_site_packages(interpreter: &Path) -> Vec<PathBuf> {
    let resolved = std::fs::canonicalize(interpreter).unwrap_or_else(|_| interpreter.to_owned());
    let Some(prefix) = resolved.parent().and_then(Path::parent) else { return Vec::new() };
    let mut folders = versioned(&prefix.join("local/lib"), "dist-packages");
    folders.extend(versioned(&prefix.join("lib"), "site-packages"));
    folders.extend(versioned(&prefix.join("lib"), "dist-packages"));
    let shared = prefix.join("lib/python3/dist-packages");
    if shared.is_dir() {
        folders.push(shared);
    }
    folders
}

/// `<lib>/python3.*/<leaf>` folders that exist, sorted.
fn versioned(lib: &Path, leaf: &str) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(lib) else { return Vec::new() };
    let mut folders: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|entry| entry.file_name().to_str().is_some_and(|name| name.starts_with("python3.")))
        .map(|entry| entry.path().join(leaf))
        .filter(|folder| folder.is_dir())
        .collect();
    folders.sort();
    folders
}

/// The environment `interpreter` imports from, read once per state of its folders (the cache holds it while their
/// device, inode, modification and change times stay); `None` when it has no `site-packages` folder.
pub fn python_environment(interpreter: &Path) -> Option<Arc<PythonEnvironment>> {
    let folders = site_packages(interpreter);
    if folders.is_empty() {
        return None;
    }
    let keys: FolderKeys = folders
        .iter()
        .filter_map(|folder| std::fs::metadata(folder).ok())
        .map(|meta| (meta.dev(), meta.ino(), meta.mtime(), meta.mtime_nsec(), meta.ctime(), meta.ctime_nsec()))
        .collect();
    let mut cache = ENVIRONMENTS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((cached_keys, environment)) = cache.as_ref().and_then(|map| map.get(&folders))
        && *cached_keys == keys
    {
        return Some(Arc::clone(environment));
    }
    drop(cache);
    let environment = Arc::new(read_environment(&folders));
    cache = ENVIRONMENTS.lock().unwrap_or_else(PoisonError::into_inner);
    cache.get_or_insert_with(HashMap::new).insert(folders, (keys, Arc::clone(&environment)));
    Some(environment)
}

/// Reads every `dist-info` folder of `folders`, uncached.
pub fn read_environment(folders: &[PathBuf]) -> PythonEnvironment {
    let mut seen = HashSet::new();
    let mut distributions = Vec::new();
    for folder in folders {
        let Ok(entries) = std::fs::read_dir(folder) else { continue };
        let mut infos: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .filter(|entry| entry.file_name().to_str().is_some_and(|name| name.ends_with(".dist-info")))
            .map(|entry| entry.path())
            .collect();
        infos.sort();
        for info in infos {
            let Some(distribution) = read_distribution(&info) else { continue };
            if seen.insert(normalized(&distribution.name)) {
                distributions.push(distribution);
            }
        }
    }
    distributions.sort_by_key(|distribution| normalized(&distribution.name));
    let preimage: Vec<serde_json::Value> = distributions
        .iter()
        .map(|d| json!({"name": d.name, "record_sha256": d.record_sha256.map(|s| s.to_string()), "version": d.version}))
        .collect();
    PythonEnvironment {
        site_packages: folders.iter().map(|folder| folder.to_string_lossy().into_owned()).collect(),
        distributions,
        digest: Sha256Digest::of(&to_canonical_vec(&serde_json::Value::Array(preimage))),
    }
}

/// A distribution name as the packaging standards compare them: lowercase, runs of `-`, `_` and `.` as one `-`.
pub fn normalized(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        let c = if matches!(c, '_' | '.') { '-' } else { c.to_ascii_lowercase() };
        if !(c == '-' && out.ends_with('-')) {
            out.push(c);
        }
    }
    out
}

/// One `dist-info` folder's name, version and `RECORD` digest; `None` when its `METADATA` lacks either header.
fn read_distribution(info: &Path) -> Option<PythonDistribution> {
    #[allow(clippy::disallowed_methods, reason = "an installed distribution's metadata, which the interpreter reads")]
    let metadata = std::fs::read(info.join("METADATA")).ok()?;
    let metadata = String::from_utf8_lossy(&metadata);
    let header = |key: &str| {
        metadata
            .lines()
            .take_while(|line| !line.is_empty())
            .find_map(|line| line.strip_prefix(key)?.strip_prefix(':').map(|value| value.trim().to_owned()))
    };
    #[allow(clippy::disallowed_methods, reason = "an installed distribution's file list, which the installer wrote")]
    let record = std::fs::read(info.join("RECORD")).ok();
    Some(PythonDistribution {
        name: header("Name").filter(|name| !name.is_empty())?,
        version: header("Version").filter(|version| !version.is_empty())?,
        record_sha256: record.map(|bytes| Sha256Digest::of(&bytes)),
    })
}

/// The file `program` names, as the spawn's `execvp` will find it: a path with a `/` (from `working_dir` when
/// relative), otherwise the first executable regular file of that name on `path` (a `PATH` value).
pub fn find_program(program: &std::ffi::OsStr, working_dir: &Path, path: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    if program.as_encoded_bytes().contains(&b'/') {
        return Some(working_dir.join(program));
    }
    std::env::split_paths(path?).map(|dir| dir.join(program)).find(|candidate| is_program(candidate))
}

/// Whether `path` is an executable file (links followed), as `execvp` would run it.
pub fn is_program(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|found| found.is_file() && found.permissions().mode() & 0o111 != 0)
}
