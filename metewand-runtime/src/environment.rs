//! Python environments built from a worker's declaration (`[workers.X] python = { requirements = FILE }`): one
//! virtual environment per declaration digest (the file's bytes and the Python that builds it) in the state folder's
//! `envs/<digest>/`, built with `uv` when it is on `PATH`, else `python3 -m venv` and pip.
//!
//! An environment is built in place, in `envs/<digest>/venv` (so the scripts its installer writes name their final
//! paths), under an exclusive lock of its digest (`envs/.lock-<digest>`); it is made read-only and given the
//! manifest of its tree (every folder, file with its digest and execute bit, and link with its target) last. A
//! folder without its manifest is a build not finished: never used, and removed by the next build, so nothing
//! half-built is ever used. Before each use its tree is read again and compared with the manifest (or found
//! to keep the stamp of a settled reading that matched, as a source copy is): a folder changed by hand is refused at
//! an attempt and rebuilt by the next build, never run. The network is used while building only; attempts see the
//! folder read-only and reach what their worker declares.

use std::collections::BTreeMap;
use std::io::{self, Read};
use std::os::fd::AsFd;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::SeqCst;
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use crate::files::create::create_new_file_beneath;
use crate::files::stamped::SETTLED;
use crate::files::tree::{make_read_only_keeping_execute, remove_tree};
use crate::files::walk::{open_beneath, open_root};
use crate::files::{RelativePath, Sha256Digest};
use crate::repository::{CheckedRepository, PythonRequirements, Worker};

/// The folder of the state folder that holds the built environments.
pub const ENVS_DIR: &str = "envs";

/// The virtual environment's folder inside an environment's folder.
const VENV: &str = "venv";

/// The manifest of the environment's tree, beside its `venv/`.
const MANIFEST: &str = "manifest.json";

/// Why an environment could not be built or used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EnvironmentError {
    /// A requirement without an exact version, refused where pins are required.
    #[error(
        "requirement {requirement:?} in {file} is not pinned: write {package}==VERSION (an exact version), so that \
         a rebuild installs what was measured"
    )]
    Unpinned {
        /// The requirements file as declared.
        file: String,
        /// The package's name.
        package: String,
        /// The requirement as written.
        requirement: String,
    },
    /// A requirement the installer found no distribution of.
    #[error("package {package:?} named in {file} cannot be installed: no distribution of it was found ({detail})")]
    NoSuchPackage {
        /// The requirements file as declared.
        file: String,
        /// The package's name as the installer reported it.
        package: String,
        /// The installer's line that said so.
        detail: String,
    },
    /// A step of the build failed; nothing of it was kept.
    #[error("building the environment of {file} failed while {step}: {detail}")]
    Build {
        /// The requirements file as declared.
        file: String,
        /// The step (`creating the virtual environment`, `installing the requirements`).
        step: &'static str,
        /// The tool's last line of output, or the system's reason.
        detail: String,
    },
    /// The Python that builds environments cannot be found or run.
    #[error("cannot run python3 from PATH to build the environment of {file}: {detail}")]
    NoPython {
        /// The requirements file as declared.
        file: String,
        /// Why.
        detail: String,
    },
    /// The environment a worker declares is not built, or no longer matches its manifest.
    #[error(
        "the environment of worker {worker:?} ({file}) {problem}: run `metewand env build` to build it before \
         running the worker"
    )]
    NotReady {
        /// The worker's name.
        worker: String,
        /// The requirements file as declared.
        file: String,
        /// `is not built`, or how it differs from its manifest.
        problem: String,
    },
    /// The state folder could not be read or written.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// What was being done.
        action: &'static str,
        /// Where.
        path: PathBuf,
        /// The system's reason.
        source: io::Error,
    },
}

impl EnvironmentError {
    fn io(action: &'static str, path: &Path) -> impl FnOnce(io::Error) -> EnvironmentError {
        let path = path.to_owned();
        move |source| EnvironmentError::Io { action, path, source }
    }
}

/// The first requirement of a requirements file that is not pinned to one version (`name==VERSION`), as the package
/// and the line; `None` when every one is. Option lines (`--find-links DIR`, `--no-index`, `-i URL`) and hashes
/// (`--hash=sha256:...`) are not requirements; a line continued with `\` is read as one.
pub fn first_unpinned(text: &str) -> Option<(String, String)> {
    let joined = text.replace("\\\r\n", " ").replace("\\\n", " ");
    for line in joined.lines() {
        // A comment starts at `#` at the line's start or after whitespace (a URL's fragment is not one).
        let line = match line.find(" #").or_else(|| line.starts_with('#').then_some(0)) {
            Some(at) => &line[..at],
            None => line,
        };
        let words: Vec<&str> = line.split_whitespace().filter(|word| !word.starts_with("--hash")).collect();
        let requirement = words.join(" ");
        let requirement = requirement.trim();
        if requirement.is_empty() || requirement.starts_with('-') {
            continue;
        }
        let without_marker = requirement.split(';').next().unwrap_or(requirement).trim();
        let name_end = without_marker
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
            .unwrap_or(without_marker.len());
        // A path or URL (`./wheel.whl`) names no package: it is refused whole.
        let name_end = if without_marker.starts_with(|c: char| c.is_ascii_alphanumeric()) { name_end } else { 0 };
        let package = without_marker[..name_end].to_owned();
        let rest = without_marker[name_end..].trim_start();
        let rest = match rest.strip_prefix('[') {
            Some(extras) => extras.split_once(']').map_or("", |(_, after)| after).trim_start(),
            None => rest,
        };
        let pinned = rest.strip_prefix("===").or_else(|| rest.strip_prefix("==")).is_some_and(|version| {
            let version = version.trim();
            !version.is_empty() && !version.contains(['*', ',', '<', '>', '!', '~', ' '])
        });
        if !pinned || package.is_empty() {
            let package = if package.is_empty() { requirement.to_owned() } else { package };
            return Some((package, requirement.to_owned()));
        }
    }
    None
}

/// The Python that builds environments: the `python3` on `PATH`, its version and base prefix, and the Metewand SDK
/// it imports, if any (found without importing it), read once.
#[derive(Clone, Debug)]
struct BuildingPython {
    /// `sys.executable`.
    executable: String,
    /// `sys.version`, `sys.base_prefix` and the digest of the SDK's files, what names it in a declaration's digest.
    identity: String,
    /// The `metewand` package folder it imports: the SDK that ships with the CLI, copied into every environment
    /// built, since it is on no package index.
    sdk: Option<PathBuf>,
}

/// What `python3` prints for [`BuildingPython`], one item a line.
const FIND_PYTHON: &str = "import importlib.util, sys
print(sys.executable); print(sys.version.replace(chr(10), ' ')); print(sys.base_prefix)
spec = importlib.util.find_spec('metewand')
print(spec.submodule_search_locations[0] if spec and spec.submodule_search_locations else '')";

/// Whether a manifest entry lies in a `__pycache__` folder: bytecode an interpreter writes beside the SDK it imports.
fn in_pycache(entry: &Value) -> bool {
    entry[0].as_str().is_some_and(|path| path.split('/').any(|name| name == "__pycache__"))
}

static BUILDING_PYTHON: OnceLock<Result<BuildingPython, String>> = OnceLock::new();

fn building_python(file: &str) -> Result<BuildingPython, EnvironmentError> {
    let found = BUILDING_PYTHON.get_or_init(|| {
        let output = Command::new("python3")
            .args(["-c", FIND_PYTHON])
            .stdin(Stdio::null())
            .output()
            .map_err(|error| error.to_string())?;
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        let mut lines = text.lines();
        match (output.status.success(), lines.next(), lines.next(), lines.next(), lines.next()) {
            (true, Some(executable), Some(version), Some(prefix), sdk) => {
                let sdk = sdk.filter(|folder| !folder.is_empty()).map(PathBuf::from);
                // The SDK's files name the environment too: one built with another SDK is another environment.
                let sdk_files = match &sdk {
                    Some(folder) => {
                        let (entries, _, _) = read_tree(folder, true).map_err(|error| {
                            format!("the Metewand SDK it imports, in {}, cannot be read: {error}", folder.display())
                        })?;
                        let entries: Vec<Value> = entries.into_iter().filter(|entry| !in_pycache(entry)).collect();
                        Sha256Digest::of(&metewand_protocol::to_canonical_vec(&Value::Array(entries))).to_string()
                    }
                    None => String::new(),
                };
                Ok(BuildingPython {
                    executable: executable.to_owned(),
                    identity: format!("{version}\n{prefix}\n{sdk_files}"),
                    sdk,
                })
            }
            _ => Err(format!("it exited with {} and printed {:?}", output.status, text.trim())),
        }
    });
    found.clone().map_err(|detail| EnvironmentError::NoPython { file: file.to_owned(), detail })
}

/// The digest that names the environment built from `requirements`: the SHA-256 of the canonical JSON of
/// `{"python": its version and prefix, "requirements": the file's SHA-256}`.
pub fn declaration_digest(requirements: &PythonRequirements) -> Result<String, EnvironmentError> {
    let python = building_python(requirements.path())?;
    Ok(digest_of(requirements.bytes(), &python.identity))
}

fn digest_of(bytes: &[u8], python: &str) -> String {
    let preimage = json!({"python": python, "requirements": Sha256Digest::of(bytes).to_string()});
    Sha256Digest::of(&metewand_protocol::to_canonical_vec(&preimage)).to_string()
}

/// What a tree's entry is stamped by: its inode, mode, size, ctime and mtime.
type EntryStamp = (u64, u32, u64, i64, i64);

/// An environment of `envs/`, with what it is found to be.
pub type Listed = (BuiltEnvironment, Condition);

/// What an environment of `envs/` is found to be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Condition {
    /// It matches its manifest.
    Verified,
    /// It differs from its manifest, as said.
    Changed(String),
    /// It has no manifest and no build holds its lock: a build was cut short, and the next removes it.
    Unfinished,
    /// It has no manifest yet and a build holds its lock.
    Building,
}

/// Whether a build holds the lock of `digest` in `envs` (read without creating the lock file).
fn being_built(envs: &Path, digest: &str) -> bool {
    use rustix::fs::{FlockOperation, Mode, OFlags};
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    match rustix::fs::open(lock_path(envs, digest), flags, Mode::empty()) {
        Ok(fd) => {
            matches!(rustix::fs::flock(&fd, FlockOperation::NonBlockingLockShared), Err(rustix::io::Errno::WOULDBLOCK))
        }
        Err(_) => false,
    }
}

/// The manifest of the tree at `root`: every entry by its path, a folder as `["path", "d"]`, a regular file as
/// `["path", "f", size, "sha256", executable]`, a link as `["path", "l", "target"]`, sorted by path; anything
/// else is an error. With it, the stamp of every entry (inode, mode, size, ctime, mtime) and the latest ctime.
fn read_tree(root: &Path, hash: bool) -> io::Result<(Vec<Value>, Vec<EntryStamp>, i64)> {
    let root_fd = open_root(root)?;
    let mut entries = Vec::new();
    let mut stamps = Vec::new();
    let mut latest = i64::MIN;
    let mut pending = vec![String::new()];
    let mut buffer = Vec::new();
    while let Some(folder) = pending.pop() {
        let mut names: Vec<String> = Vec::new();
        for entry in std::fs::read_dir(root.join(&folder))? {
            let name = entry?.file_name();
            let name = name.into_string().map_err(|name| io::Error::other(format!("{name:?} is not UTF-8")))?;
            names.push(if folder.is_empty() { name } else { format!("{folder}/{name}") });
        }
        for path in names {
            let metadata = std::fs::symlink_metadata(root.join(&path))?;
            stamps.push((metadata.ino(), metadata.mode(), metadata.size(), metadata.ctime(), metadata.mtime()));
            latest = latest.max(metadata.ctime());
            let kind = metadata.file_type();
            if kind.is_dir() {
                entries.push(json!([path, "d"]));
                pending.push(path);
            } else if kind.is_symlink() {
                let target = std::fs::read_link(root.join(&path))?;
                entries.push(json!([path, "l", target.to_string_lossy()]));
            } else if kind.is_file() {
                let executable = metadata.permissions().mode() & 0o100 != 0;
                let digest = if hash {
                    let relative = RelativePath::new(&path).map_err(io::Error::other)?;
                    let mut file = open_beneath(root_fd.as_fd(), &relative).map_err(|error| match error {
                        crate::files::walk::OpenError::Io(error) => error,
                        other => io::Error::other(format!("{path}: {other:?}")),
                    })?;
                    buffer.clear();
                    file.read_to_end(&mut buffer)?;
                    Sha256Digest::of(&buffer).to_string()
                } else {
                    String::new()
                };
                entries.push(json!([path, "f", metadata.size(), digest, executable]));
            } else {
                return Err(io::Error::other(format!("{path:?} is neither a file, a folder nor a link")));
            }
        }
    }
    entries.sort_by(|a, b| a[0].as_str().cmp(&b[0].as_str()));
    stamps.sort_unstable();
    Ok((entries, stamps, latest))
}

/// One built environment, as its manifest says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuiltEnvironment {
    /// Its digest: the name of its folder in `envs/`.
    pub digest: String,
    /// Its folder, `envs/<digest>/`.
    pub folder: PathBuf,
    /// The requirements file it was built from, as declared.
    pub requirements: String,
    /// When it was built, in seconds since the Unix epoch.
    pub built_unix: u64,
    /// The bytes of its files.
    pub bytes: u64,
}

impl BuiltEnvironment {
    /// An environment of `envs/` known only by its folder: no manifest read from it.
    fn unread(digest: String, folder: PathBuf) -> BuiltEnvironment {
        BuiltEnvironment { digest, folder, requirements: String::new(), built_unix: 0, bytes: 0 }
    }
}

/// The environments the process found to match their manifests, by folder, with the stamp they had then.
static VERIFIED: Mutex<BTreeMap<PathBuf, Vec<EntryStamp>>> = Mutex::new(BTreeMap::new());

/// The manifest of the environment in `folder`, and whether its `venv/` matches it: read and hashed, unless it keeps
/// the stamp of a settled reading this process made that found it so. `Err` names how it differs.
fn verify(folder: &Path) -> Result<BuiltEnvironment, String> {
    let manifest = read_manifest(folder)?;
    let venv = folder.join(VENV);
    let (_, stamps, latest) = read_tree(&venv, false).map_err(|error| format!("cannot be read ({error})"))?;
    if VERIFIED.lock().unwrap_or_else(PoisonError::into_inner).get(folder) == Some(&stamps) {
        return Ok(manifest.0);
    }
    let (entries, stamps_after, _) = read_tree(&venv, true).map_err(|error| format!("cannot be read ({error})"))?;
    if entries != manifest.1 {
        let recorded: BTreeMap<&str, &Value> =
            manifest.1.iter().filter_map(|entry| Some((entry[0].as_str()?, entry))).collect();
        let now: BTreeMap<&str, &Value> =
            entries.iter().filter_map(|entry| Some((entry[0].as_str()?, entry))).collect();
        let changed = now
            .iter()
            .find(|(path, entry)| recorded.get(*path) != Some(*entry))
            .map(|(path, _)| format!("has {path:?} changed or added since it was built"))
            .or_else(|| recorded.keys().find(|path| !now.contains_key(*path)).map(|path| format!("lacks {path:?}")));
        return Err(changed.unwrap_or_else(|| "differs from its manifest".to_owned()));
    }
    let settled = SystemTime::now()
        .checked_sub(SETTLED)
        .and_then(|at| at.duration_since(UNIX_EPOCH).ok())
        .is_some_and(|at| latest < i64::try_from(at.as_secs()).unwrap_or(i64::MAX));
    if settled && stamps_after == stamps {
        VERIFIED.lock().unwrap_or_else(PoisonError::into_inner).insert(folder.to_owned(), stamps);
    }
    Ok(manifest.0)
}

fn read_manifest(folder: &Path) -> Result<(BuiltEnvironment, Vec<Value>), String> {
    let root = open_root(folder).map_err(|error| format!("cannot be opened ({error})"))?;
    let name = RelativePath::new(MANIFEST).expect("a file name");
    let mut file = open_beneath(root.as_fd(), &name).map_err(|_| "has no manifest".to_owned())?;
    let bytes = crate::document::read_document(&mut file).map_err(|error| format!("has no manifest ({error})"))?;
    let value: Value = serde_json::from_slice(&bytes).map_err(|error| format!("has a broken manifest ({error})"))?;
    let entries = value["entries"].as_array().cloned().ok_or("has a manifest without entries")?;
    let bytes = entries.iter().filter(|entry| entry[1] == "f").filter_map(|entry| entry[2].as_u64()).sum();
    let built = BuiltEnvironment {
        digest: folder.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default(),
        folder: folder.to_owned(),
        requirements: value["requirements"].as_str().unwrap_or_default().to_owned(),
        built_unix: value["built_unix"].as_u64().unwrap_or(0),
        bytes,
    };
    Ok((built, entries))
}

/// The `venv/` of the verified environment `worker` declares in `envs`: what its sessions run, with its `bin/`
/// first on their `PATH`. An environment not built, or changed since it was built, is an error: an attempt never
/// builds one (nor reaches the network to), and never runs one changed by hand.
pub fn verified_environment(worker: &Worker, envs: &Path) -> Result<Option<PathBuf>, EnvironmentError> {
    let Some(requirements) = worker.python() else { return Ok(None) };
    let folder = envs.join(declaration_digest(requirements)?);
    let not_ready = |problem: String| EnvironmentError::NotReady {
        worker: worker.name().to_owned(),
        file: requirements.path().to_owned(),
        problem,
    };
    // A folder without its manifest is a build a kill cut short, or one still running: not built yet.
    if !folder.join(MANIFEST).exists() {
        return Err(not_ready("is not built".to_owned()));
    }
    verify(&folder).map_err(not_ready)?;
    Ok(Some(folder.join(VENV)))
}

/// What [`build`] does when its requirements are not all pinned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pins {
    /// Refuses the file (`--require-pinned`, the default of campaigns).
    Required,
    /// Builds it all the same (a single `run`, exploring).
    Optional,
}

/// Tells removals of one process apart.
static REMOVING: AtomicU64 = AtomicU64::new(0);

/// The lock file of the environment `digest` in `envs`: held (`flock`, exclusive) by whoever builds or removes it.
fn lock_path(envs: &Path, digest: &str) -> PathBuf {
    envs.join(format!(".lock-{digest}"))
}

/// The exclusive lock of the environment `digest`, held for as long as this value lives; its file is removed when
/// the holder is done (so `envs/` keeps none), and a waiter that then finds its file gone locks a new one.
struct DigestLock {
    path: PathBuf,
    fd: std::os::fd::OwnedFd,
}

impl DigestLock {
    /// Waits for the lock of `digest` (`blocking`), or returns `None` when another holds it.
    fn take(envs: &Path, digest: &str, blocking: bool) -> io::Result<Option<DigestLock>> {
        use rustix::fs::{FlockOperation, Mode, OFlags};
        let path = lock_path(envs, digest);
        loop {
            let flags = OFlags::CREATE | OFlags::RDWR | OFlags::NOFOLLOW | OFlags::CLOEXEC;
            let fd = rustix::fs::open(&path, flags, Mode::from_raw_mode(0o600))?;
            let operation =
                if blocking { FlockOperation::LockExclusive } else { FlockOperation::NonBlockingLockExclusive };
            match rustix::fs::flock(&fd, operation) {
                Ok(()) => {}
                Err(rustix::io::Errno::WOULDBLOCK) if !blocking => return Ok(None),
                Err(error) => return Err(error.into()),
            }
            // The holder before removed the file it locked: this one locks nothing another would wait on.
            if rustix::fs::fstat(&fd)?.st_nlink > 0 {
                return Ok(Some(DigestLock { path, fd }));
            }
        }
    }
}

impl Drop for DigestLock {
    fn drop(&mut self) {
        // Removed while held, so that no one waiting holds a file no longer in `envs/`.
        let _ = std::fs::remove_file(&self.path);
        let _ = rustix::fs::flock(&self.fd, rustix::fs::FlockOperation::Unlock);
    }
}

/// The environment `requirements` declares, in `envs`: kept when it is there and matches its manifest, else built
/// (a changed one, or one a build cut short left without its manifest, is removed first). It is built in place,
/// `envs/<digest>/venv`, so that the scripts its installer writes name their final paths, under the exclusive lock
/// of its digest (two builds of one declaration never both build), and its manifest is written last: a folder
/// without one is never used. `progress` is told each step, one line each. Its folder's path, whose `venv/` is the
/// virtual environment.
pub fn build(
    requirements: &PythonRequirements,
    envs: &Path,
    pins: Pins,
    progress: &mut dyn FnMut(&str),
) -> Result<PathBuf, EnvironmentError> {
    let file = requirements.path();
    let text = requirements.requirements_text();
    if pins == Pins::Required
        && let Some((package, requirement)) = first_unpinned(&text)
    {
        return Err(EnvironmentError::Unpinned { file: file.to_owned(), package, requirement });
    }
    let python = building_python(file)?;
    let digest = digest_of(requirements.bytes(), &python.identity);
    let folder = envs.join(&digest);
    let short = &digest[..12];
    std::fs::create_dir_all(envs).map_err(EnvironmentError::io("create", envs))?;
    let lock_file = lock_path(envs, &digest);
    let _lock = DigestLock::take(envs, &digest, true)
        .map_err(EnvironmentError::io("lock", &lock_file))?
        .expect("a blocking lock is taken");
    if folder.exists() && !folder.join(MANIFEST).exists() {
        progress(&format!("environment {short} of {file}: its build was cut short; removing it to build it again"));
        remove_aside(&folder, envs)?;
    } else if folder.exists() {
        match verify(&folder) {
            Ok(_) => {
                progress(&format!("environment {short} of {file}: built and verified, kept"));
                return Ok(folder);
            }
            Err(problem) => {
                progress(&format!("environment {short} of {file}: {problem}; removing it to build it again"));
                remove_aside(&folder, envs)?;
            }
        }
    }
    let made = build_into(requirements, &python, &folder, short, progress);
    if made.is_err() {
        // Nothing half-built is left.
        let _ = remove_tree(&folder);
    }
    made.map(|()| folder)
}

/// Moves `folder` aside in `envs` and removes it, so that no reader sees it half-removed.
fn remove_aside(folder: &Path, envs: &Path) -> Result<(), EnvironmentError> {
    let aside = envs.join(format!(".removing-{}-{}", std::process::id(), REMOVING.fetch_add(1, SeqCst)));
    match std::fs::rename(folder, &aside) {
        Ok(()) => remove_tree(&aside).map_err(EnvironmentError::io("remove", &aside)),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(EnvironmentError::io("move aside", folder)(error)),
    }
}

/// Builds the virtual environment into `folder/venv`, makes it read-only, and writes its manifest beside, last.
fn build_into(
    requirements: &PythonRequirements,
    python: &BuildingPython,
    folder: &Path,
    short: &str,
    progress: &mut dyn FnMut(&str),
) -> Result<(), EnvironmentError> {
    let file = requirements.path();
    // Absolute, since the steps run in other folders (the installer in the requirements file's) and the
    // environment's scripts name it by the path it was built at.
    let folder = &std::path::absolute(folder).map_err(EnvironmentError::io("resolve", folder))?;
    std::fs::create_dir(folder).map_err(EnvironmentError::io("create", folder))?;
    let venv = folder.join(VENV);
    let uv = crate::session::find_program("uv".as_ref(), Path::new("/"), std::env::var_os("PATH").as_deref());
    let step = "creating the virtual environment";
    let mut create = match &uv {
        Some(uv) => {
            progress(&format!("environment {short} of {file}: creating the virtual environment with uv"));
            let mut command = Command::new(uv);
            command.args(["venv", "--quiet", "--python", &python.executable]).arg(&venv);
            command
        }
        None => {
            progress(&format!("environment {short} of {file}: creating the virtual environment with python3 -m venv"));
            let mut command = Command::new(&python.executable);
            command.args(["-m", "venv"]).arg(&venv);
            command
        }
    };
    run_step(&mut create, file, step)?;
    let interpreter = venv.join("bin/python3");
    // A pyproject's dependencies are installed from a requirements file of them, beside the environment.
    let listed = match requirements.pyproject_dependencies() {
        Some(_) => {
            let listed = folder.join("requirements.txt");
            let root = open_root(folder).map_err(EnvironmentError::io("open", folder))?;
            let name = RelativePath::new("requirements.txt").expect("a file name");
            let mut out =
                create_new_file_beneath(root.as_fd(), &name, 0o644).map_err(EnvironmentError::io("write", folder))?;
            io::Write::write_all(&mut out, requirements.requirements_text().as_bytes())
                .map_err(EnvironmentError::io("write", folder))?;
            listed
        }
        None => requirements.file().to_owned(),
    };
    // Relative paths in the file's option lines (`--find-links wheels`) are the file's folder's.
    let file_folder = requirements.file().parent().unwrap_or(Path::new("/"));
    let step = "installing the requirements";
    let mut install = match &uv {
        Some(uv) => {
            progress(&format!("environment {short} of {file}: installing its requirements with uv pip"));
            let mut command = Command::new(uv);
            // Compiled as pip compiles what it installs: a confined worker cannot write bytecode beside a read-only
            // environment, and would compile every module it imports at each start.
            command.args(["pip", "install", "--compile-bytecode", "--python"]).arg(&interpreter).arg("-r").arg(&listed);
            command
        }
        None => {
            progress(&format!("environment {short} of {file}: installing its requirements with pip"));
            let mut command = Command::new(&interpreter);
            command.args(["-m", "pip", "install", "--disable-pip-version-check", "--no-input", "-r"]).arg(&listed);
            command
        }
    };
    install.current_dir(file_folder);
    run_step(&mut install, file, step)?;
    if let Some(sdk) = &python.sdk {
        progress(&format!("environment {short} of {file}: adding the Metewand SDK from {}", sdk.display()));
        let copied = copy_sdk(sdk, &venv).map_err(|error| EnvironmentError::Build {
            file: file.to_owned(),
            step: "adding the Metewand SDK",
            detail: error.to_string(),
        })?;
        // Its bytecode written now, by the environment's interpreter, for the reason above: about 30 ms of CPU
        // at every worker's start otherwise.
        let mut compile = Command::new(&interpreter);
        compile.args(["-m", "compileall", "-q"]).arg(&copied);
        run_step(&mut compile, file, "compiling the Metewand SDK")?;
    }
    progress(&format!("environment {short} of {file}: recording the manifest of its files"));
    let (entries, _, _) = read_tree(&venv, true).map_err(EnvironmentError::io("read", &venv))?;
    let built = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |since| since.as_secs());
    let manifest = json!({
        "built_unix": built,
        "entries": entries,
        "python": python.identity,
        "requirements": file,
        "requirements_sha256": Sha256Digest::of(requirements.bytes()).to_string(),
    });
    make_read_only_keeping_execute(&venv).map_err(EnvironmentError::io("make read-only", &venv))?;
    // The manifest last: until it is whole, the folder is a build not finished, which nothing uses.
    let root = open_root(folder).map_err(EnvironmentError::io("open", folder))?;
    let name = RelativePath::new(MANIFEST).expect("a file name");
    let mut out = create_new_file_beneath(root.as_fd(), &name, 0o644).map_err(EnvironmentError::io("write", folder))?;
    io::Write::write_all(&mut out, &metewand_protocol::to_canonical_vec(&manifest))
        .and_then(|()| out.sync_all())
        .map_err(EnvironmentError::io("write", folder))?;
    make_read_only_keeping_execute(folder).map_err(EnvironmentError::io("make read-only", folder))
}

/// Copies the SDK's package folder `sdk` (its bytecode left out) into the `site-packages` of `venv`, as installing
/// it would place it, and returns where.
fn copy_sdk(sdk: &Path, venv: &Path) -> io::Result<PathBuf> {
    let lib = venv.join("lib");
    let site = std::fs::read_dir(&lib)?
        .filter_map(Result::ok)
        .map(|entry| entry.path().join("site-packages"))
        .find(|site| site.is_dir())
        .ok_or_else(|| io::Error::other(format!("{} has no site-packages folder", lib.display())))?;
    let target = site.join("metewand");
    std::fs::create_dir(&target)?;
    let (entries, _, _) = read_tree(sdk, false)?;
    for entry in entries.iter().filter(|entry| !in_pycache(entry)) {
        let path = entry[0].as_str().unwrap_or_default();
        match entry[1].as_str() {
            Some("d") => std::fs::create_dir(target.join(path))?,
            Some("f") => {
                std::fs::copy(sdk.join(path), target.join(path))?;
            }
            _ => return Err(io::Error::other(format!("{path:?} in the SDK is a link"))),
        }
    }
    Ok(target)
}

/// Runs one step of a build, its output kept to name what failed.
fn run_step(command: &mut Command, file: &str, step: &'static str) -> Result<(), EnvironmentError> {
    let output = command.stdin(Stdio::null()).output().map_err(|error| EnvironmentError::Build {
        file: file.to_owned(),
        step,
        detail: error.to_string(),
    })?;
    if output.status.success() {
        return Ok(());
    }
    let text = format!("{}\n{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    if let Some((package, detail)) = missing_package(&text) {
        return Err(EnvironmentError::NoSuchPackage { file: file.to_owned(), package, detail });
    }
    let last = text.lines().map(str::trim).rfind(|line| !line.is_empty()).unwrap_or("").to_owned();
    Err(EnvironmentError::Build { file: file.to_owned(), step, detail: format!("{last} ({})", output.status) })
}

/// The package an installer's output says it found no distribution of, with the line that says so.
fn missing_package(output: &str) -> Option<(String, String)> {
    for line in output.lines().map(str::trim) {
        // pip: "ERROR: No matching distribution found for nosuchpkg==1.0"
        if let Some(rest) = line.split("No matching distribution found for ").nth(1) {
            let package = rest.split(|c: char| "=<>!~[ ;".contains(c)).next().unwrap_or(rest);
            return Some((package.to_owned(), line.to_owned()));
        }
        // uv: "Because nosuchpkg was not found in the package registry ..."
        if let Some(rest) = line.split("Because ").nth(1)
            && let Some((package, _)) = rest.split_once(" was not found")
        {
            let package = package.split(|c: char| "=<>!~[ ;".contains(c)).next().unwrap_or(package);
            return Some((package.to_owned(), line.to_owned()));
        }
    }
    None
}

/// The environments' folders in `envs` by digest (none when it does not exist). Names beginning with a dot are
/// not environments: a lock file, a staging folder, or a folder a removal cut short.
fn environment_folders(envs: &Path) -> Result<Vec<(String, PathBuf)>, EnvironmentError> {
    let entries = match std::fs::read_dir(envs) {
        Ok(entries) => entries,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(EnvironmentError::io("list", envs)(error)),
    };
    let mut folders = Vec::new();
    for entry in entries {
        let entry = entry.map_err(EnvironmentError::io("list", envs))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.starts_with('.') {
            folders.push((name, entry.path()));
        }
    }
    Ok(folders)
}

/// The environments in `envs`, each with whether it still matches its manifest, or was never finished.
pub fn list(envs: &Path) -> Result<Vec<Listed>, EnvironmentError> {
    let mut found = Vec::new();
    for (name, folder) in environment_folders(envs)? {
        if !folder.join(MANIFEST).exists() {
            let condition = if being_built(envs, &name) { Condition::Building } else { Condition::Unfinished };
            found.push((BuiltEnvironment::unread(name, folder), condition));
            continue;
        }
        match verify(&folder) {
            Ok(built) => found.push((built, Condition::Verified)),
            Err(problem) => {
                let built = read_manifest(&folder)
                    .map_or_else(|_| BuiltEnvironment::unread(name, folder.clone()), |(built, _)| built);
                found.push((built, Condition::Changed(problem)));
            }
        }
    }
    found.sort_by(|a, b| a.0.digest.cmp(&b.0.digest));
    Ok(found)
}

/// The digests of the environments `repository`'s workers declare, each with the workers that declare it.
pub fn declared(repository: &CheckedRepository) -> Result<BTreeMap<String, Vec<String>>, EnvironmentError> {
    let mut digests: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for worker in repository.workers().values() {
        if let Some(requirements) = worker.python() {
            digests.entry(declaration_digest(requirements)?).or_default().push(worker.name().to_owned());
        }
    }
    Ok(digests)
}

/// Removes the environments of `envs` whose digests `keep` lacks (all of them when it is empty): the digests
/// removed. One a build holds the lock of is left to it.
pub fn prune(envs: &Path, keep: &BTreeMap<String, Vec<String>>) -> Result<Vec<String>, EnvironmentError> {
    let mut removed = Vec::new();
    for (name, folder) in environment_folders(envs)? {
        if !keep.contains_key(&name) {
            let lock = DigestLock::take(envs, &name, false).map_err(EnvironmentError::io("lock", &folder))?;
            if lock.is_some() {
                remove_aside(&folder, envs)?;
                removed.push(name);
            }
        }
    }
    removed.sort();
    Ok(removed)
}
