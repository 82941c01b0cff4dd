//! The copy of a worker's source a session runs in, made from the tree checked with the repository, so that a
//! worker never runs in (nor writes to) the repository itself, and runs exactly the code its identity names.
//!
//! Copies are kept in the state folder's `sources/`, one per content (the source tree and include folders' digests),
//! read-only, and shared by every session of a worker with that content: a worker cannot write its source (the view
//! shows it read-only, and Landlock refuses the writes), and each use first checks the copy against the checked trees
//! file by file (or by its stamp, once a check found it matching: `files::stamped`), as a dataset entry is, so a copy
//! changed by anyone else is replaced, never run.

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::os::fd::{AsFd, BorrowedFd};
use std::path::Path;

use crate::files::create::{create_new_dir_beneath, create_new_file_beneath, open_directory_beneath};
use crate::files::read::{FileCheck, FileError, ReadControl, default_hash_threads, read_checked};
use crate::files::stamped::Stamped;
use crate::files::tree::{make_read_only_keeping_execute, remove_tree};
use crate::files::walk::{OpenError, WalkError, open_root, walk};
use crate::files::{MAX_WALK_DEPTH, RelativePath, Sha256Digest};
use crate::identity::{SourceFile, SourceTree};
use crate::repository::{SKIPPED_NAMES, Worker};
use std::sync::atomic::Ordering::SeqCst;

/// Why a worker's source could not be copied. `path` is relative to the worker's source directory (empty for the
/// directory itself).
#[derive(Debug, thiserror::Error)]
#[error("{}", self.describe())]
pub struct SourceCopyError {
    /// The worker's name.
    pub worker: String,
    /// The entry concerned, relative to the source directory.
    pub path: String,
    /// What went wrong.
    pub problem: SourceCopyProblem,
}

/// What went wrong while copying a worker's source.
#[derive(Debug)]
#[non_exhaustive]
pub enum SourceCopyProblem {
    /// The tree no longer matches the one checked with the repository: an entry that is not a regular file or a
    /// directory, a file that is new, gone or changed, or an execute bit that changed.
    Mismatch(String),
    /// The executor could not read the source or write the copy.
    Io(io::Error),
}

impl SourceCopyError {
    fn describe(&self) -> String {
        let at = if self.path.is_empty() { "its source directory".to_owned() } else { format!("{:?}", self.path) };
        match &self.problem {
            SourceCopyProblem::Mismatch(reason) => format!(
                "the source of worker {:?} no longer matches the tree checked with the repository: {at} {reason}",
                self.worker
            ),
            SourceCopyProblem::Io(error) => {
                format!("cannot copy the source of worker {:?} at {at}: {error}", self.worker)
            }
        }
    }
}

/// The mode of a copied file: owner-only, with the execute bit when the source tree says so; readable by the
/// group too when the copy is shared with the group of the identity workers run as (`metewand` runs as root). Being
/// a function of what the source tree digest holds and of this process, two copies with the same digest made by
/// one kind of process are alike.
fn copy_mode(executable: bool, shared: bool) -> u32 {
    match (executable, shared) {
        (true, false) => 0o700,
        (false, false) => 0o600,
        (true, true) => 0o750,
        (false, true) => 0o640,
    }
}

/// The mode of a copy's folders (see [`copy_mode`]).
fn folder_mode(shared: bool) -> u32 {
    if shared { 0o750 } else { 0o700 }
}

/// The group a source copy is shared with: that of the identity confined workers run as, when `metewand` runs as
/// root (`session::WorkerIdentity`); otherwise none, and the copy is its owner's alone.
fn shared_group() -> io::Result<Option<u32>> {
    let identity = crate::session::WorkerIdentity::for_workers()
        .map_err(|error| io::Error::new(io::ErrorKind::InvalidInput, error))?;
    Ok(identity.map(|identity| identity.gid))
}

/// Gives what `fd` names to `group`, where there is one.
fn share(fd: BorrowedFd<'_>, group: Option<u32>) -> io::Result<()> {
    match group {
        Some(gid) => Ok(rustix::fs::fchown(fd, None, Some(rustix::fs::Gid::from_raw(gid)))?),
        None => Ok(()),
    }
}

/// Copies a worker's source files into `target`, a new folder (created here, exclusively) whose parent exists,
/// and each of its include folders into `target/<name>`.
///
/// Each folder is opened beneath the worker's [base](Worker::base) (the repository's root, or the external folder
/// that declared it) and walked without following links, exactly as when the
/// repository was checked; every file is read with the checked read, bounded by the size and compared with the
/// digest the check recorded, and written to a file created with `O_CREAT | O_EXCL | O_NOFOLLOW` in a folder
/// created here. A tree that no longer matches its checked digest (a link, a FIFO, a new, missing or changed file,
/// an execute bit) is an error naming the path; nothing in it is followed or read past its size.
pub fn copy_source(worker: &Worker, target: &Path) -> Result<(), SourceCopyError> {
    let fail =
        |path: &str, problem| SourceCopyError { worker: worker.name().to_owned(), path: path.to_owned(), problem };
    let io = |path: &str, error: io::Error| fail(path, SourceCopyProblem::Io(error));

    let root = open_root(worker.base()).map_err(|e| io("", e))?;
    let (parent, name) = match (target.parent(), target.file_name().and_then(|name| name.to_str())) {
        (Some(parent), Some(name)) => (parent, name),
        _ => return Err(io("", io::Error::other(format!("{} cannot be a copy's folder", target.display())))),
    };
    let name = RelativePath::new(name).map_err(|e| io("", io::Error::other(e)))?;
    let parent = open_root(parent).map_err(|e| io("", e))?;
    let group = shared_group().map_err(|e| io("", e))?;
    let copy = create_new_dir_beneath(parent.as_fd(), &name, folder_mode(group.is_some())).map_err(|e| io("", e))?;
    share(copy.as_fd(), group).map_err(|e| io("", e))?;
    let mut created = BTreeSet::new();
    copy_tree(root.as_fd(), worker.source(), worker.source_tree(), (copy.as_fd(), "", group), &mut created)
        .map_err(|(path, problem)| fail(&path, problem))?;
    for include in worker.includes() {
        let name = RelativePath::new(include.name()).map_err(|e| io(include.name(), io::Error::other(e)))?;
        let folder = create_new_dir_beneath(copy.as_fd(), &name, folder_mode(group.is_some()))
            .map_err(|e| io(include.name(), e))?;
        share(folder.as_fd(), group).map_err(|e| io(include.name(), e))?;
        created.insert(include.name().to_owned());
        copy_tree(root.as_fd(), include.path(), include.tree(), (copy.as_fd(), include.name(), group), &mut created)
            .map_err(|(path, problem)| fail(&path, problem))?;
    }
    Ok(())
}

/// Copies the checked `tree` of the repository's folder `folder` into the copy, under `prefix` (empty for the
/// copy's root), shared with `group` if any; `created` holds the copy's folders made so far. An error names the
/// copy's path concerned.
fn copy_tree(
    root: BorrowedFd<'_>,
    folder: &str,
    checked: &SourceTree,
    (copy, prefix, group): (BorrowedFd<'_>, &str, Option<u32>),
    created: &mut BTreeSet<String>,
) -> Result<(), (String, SourceCopyProblem)> {
    let at = |path: &str| match (prefix, path) {
        ("", path) | (path, "") => path.to_owned(),
        (prefix, path) => format!("{prefix}/{path}"),
    };
    let mismatch = |path: &str, reason: String| (at(path), SourceCopyProblem::Mismatch(reason));
    let io = |path: &str, error: io::Error| (at(path), SourceCopyProblem::Io(error));
    let opened;
    let source = if folder == "." {
        root
    } else {
        let path = RelativePath::new(folder).map_err(|e| mismatch("", format!("is not a relative path: {e}")))?;
        opened = open_directory_beneath(root, &path).map_err(|error| match error {
            OpenError::Missing => mismatch("", "does not exist".to_owned()),
            OpenError::SymbolicLink => mismatch("", "is a symbolic link (or lies under one)".to_owned()),
            OpenError::NotADirectory { found } => mismatch("", format!("is {found} (or lies under one)")),
            OpenError::Io(e) => io("", e),
        })?;
        opened.as_fd()
    };
    let inventory = walk(source, &SKIPPED_NAMES).map_err(|error| match error {
        WalkError::NonUtf8 { path } => mismatch(&path, "has a name that is not UTF-8".to_owned()),
        WalkError::Special { path, found } => {
            mismatch(&path, format!("is {found}; only regular files and directories are copied"))
        }
        WalkError::TooDeep { path } => mismatch(&path, format!("is nested deeper than {MAX_WALK_DEPTH} directories")),
        WalkError::Changed { path } => mismatch(&path, "changed while it was walked".to_owned()),
        WalkError::Io { path, source } => io(&path, source),
    })?;
    let known: BTreeSet<&str> = checked.files().iter().map(|file| file.path.as_str()).collect();
    if let Some(path) = inventory.files.keys().find(|path| !known.contains(path.as_str())) {
        return Err(mismatch(path, "was not there when the repository was checked".to_owned()));
    }

    let mut buffer = vec![0; 256 << 10];
    let mut copied = Vec::with_capacity(checked.files().len());
    for file in checked.files() {
        let path = RelativePath::new(&file.path).map_err(|e| mismatch(&file.path, format!("is not a path: {e}")))?;
        let target = RelativePath::new(&at(&file.path)).map_err(|e| io(&file.path, io::Error::other(e)))?;
        let Some(walked) = inventory.files.get(&file.path) else {
            return Err(mismatch(&file.path, "is no longer a regular file in the source directory".to_owned()));
        };
        for ancestor in target.ancestors() {
            if created.insert(ancestor.to_owned()) {
                let ancestor = RelativePath::new(ancestor).expect("an ancestor of a relative path is one");
                let made = create_new_dir_beneath(copy, &ancestor, folder_mode(group.is_some()))
                    .and_then(|made| share(made.as_fd(), group));
                made.map_err(|e| (ancestor.as_str().to_owned(), SourceCopyProblem::Io(e)))?;
            }
        }
        let mut to = create_new_file_beneath(copy, &target, copy_mode(file.executable, group.is_some()))
            .and_then(|to| share(to.as_fd(), group).map(|()| to))
            .map_err(|e| io(&file.path, e))?;
        let check = FileCheck {
            path: &path,
            walked,
            size: Some(file.size),
            sha256: Some(file.sha256),
            single_link: false,
            max_size: None,
        };
        let hashed =
            read_checked(source, &check, &mut buffer, Some(&mut to), ReadControl::default()).map_err(|error| {
                match error {
                    FileError::Io { source } | FileError::Write { source } => io(&file.path, source),
                    other => mismatch(&file.path, other.to_string()),
                }
            })?;
        if hashed.executable != file.executable {
            let now = if hashed.executable { "has an execute bit" } else { "has no execute bit" };
            return Err(mismatch(&file.path, format!("{now} now, unlike when the repository was checked")));
        }
        copied.push(SourceFile {
            path: file.path.clone(),
            size: hashed.size,
            sha256: hashed.sha256,
            executable: hashed.executable,
        });
    }
    // Every file matched its record; the tree digest over them closes the comparison.
    let tree = SourceTree::new(copied);
    if tree.digest() != checked.digest() {
        return Err(mismatch("", format!("has digest {}, not the checked {}", tree.digest(), checked.digest())));
    }
    Ok(())
}

/// The folder of the state folder that holds the verified source copies.
pub const SOURCES_DIR: &str = "sources";

/// The name of a worker's copy in `sources/`: the hex SHA-256 of the canonical JSON of `{"include": {folder as
/// declared: tree digest}, "source": tree digest}`, what the copy holds, as a record's `identity` names it.
pub fn copy_key<'a>(source: &str, include: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let include: serde_json::Map<String, serde_json::Value> =
        include.into_iter().map(|(folder, digest)| (folder.to_owned(), digest.into())).collect();
    let preimage = serde_json::json!({"include": include, "source": source});
    Sha256Digest::of(&metewand_protocol::to_canonical_vec(&preimage)).to_string()
}

/// The key of `worker`'s copy now.
pub fn worker_copy_key(worker: &Worker) -> String {
    let digests: Vec<(String, String)> =
        worker.includes().iter().map(|include| (include.path().to_owned(), include.tree().digest())).collect();
    copy_key(&worker.source_tree().digest(), digests.iter().map(|(folder, digest)| (folder.as_str(), digest.as_str())))
}

/// Tells copies made by one process apart.
static STAGING: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The verified copy of `worker`'s source (with its include folders) in `sources`, made when missing or replaced
/// when it no longer matches the checked trees: its path, to run the worker in.
///
/// A new copy is made in a staging folder beside, made read-only and renamed into place, so a copy is never seen
/// half-made; of two made at once the first renamed wins and the other is removed. An existing copy is walked and
/// hashed against the checked trees before every use (nothing added, removed or changed, execute bits included), or
/// found to keep the stamp of a settled check that found it matching; one that differs is moved aside and removed,
/// and a fresh copy made.
pub fn stored_copy(worker: &Worker, sources: &Path) -> Result<std::path::PathBuf, SourceCopyError> {
    let io = |error: io::Error| SourceCopyError {
        worker: worker.name().to_owned(),
        path: String::new(),
        problem: SourceCopyProblem::Io(error),
    };
    std::fs::create_dir_all(sources).map_err(io)?;
    let key = worker_copy_key(worker);
    let path = sources.join(&key);
    for _ in 0..2 {
        match std::fs::symlink_metadata(&path) {
            Ok(_) if matches_checked_trees(worker, &path) => return Ok(path),
            Ok(_) => {
                let aside =
                    sources.join(format!(".stale-{key}-{}-{}", std::process::id(), STAGING.fetch_add(1, SeqCst)));
                match std::fs::rename(&path, &aside) {
                    Ok(()) => remove_tree(&aside).map_err(io)?,
                    // Another session moved it first.
                    Err(error) if error.kind() == io::ErrorKind::NotFound => {}
                    Err(error) => return Err(io(error)),
                }
            }
            Err(error) if error.kind() == io::ErrorKind::NotFound => {}
            Err(error) => return Err(io(error)),
        }
        let staging = sources.join(format!(".staging-{key}-{}-{}", std::process::id(), STAGING.fetch_add(1, SeqCst)));
        let made = copy_source(worker, &staging)
            .and_then(|()| make_read_only_keeping_execute(&staging).map_err(io))
            .and_then(|()| match std::fs::rename(&staging, &path) {
                Ok(()) => Ok(true),
                // rename(2) replaces only an empty folder: a copy another session renamed first stays.
                Err(error) if matches!(error.raw_os_error(), Some(libc::ENOTEMPTY | libc::EEXIST)) => Ok(false),
                Err(error) => Err(io(error)),
            });
        match made {
            Ok(true) => return Ok(path),
            Ok(false) => remove_tree(&staging).map_err(io)?,
            Err(error) => {
                // Nothing half-copied is left: on a full disk this also frees the room the record needs.
                let _ = remove_tree(&staging);
                return Err(error);
            }
        }
    }
    // Twice a copy appeared and differed: something keeps changing the store.
    Err(io(io::Error::other(format!("the copy {} keeps changing while it is checked", path.display()))))
}

/// The source copies this process found to match their worker's checked trees, by path (which ends in the key of
/// those trees' digests).
static MATCHED_COPIES: Stamped<bool> = Stamped::new();

/// Whether the copy at `path` holds exactly what the worker's checked trees would copy: read and hashed, unless it
/// still has the stamp of a settled reading this process made that found it so ([`Stamped`]).
fn matches_checked_trees(worker: &Worker, path: &Path) -> bool {
    if !shared_as_needed(path) {
        return false;
    }
    let read =
        || Ok::<bool, std::convert::Infallible>(compare_copy(worker, path).is_some_and(|changes| changes.is_empty()));
    MATCHED_COPIES.read(path, std::time::SystemTime::now(), read, |matched| *matched).is_ok_and(|(matched, _)| matched)
}

/// Whether the copy at `path` is shared with the group workers run as, where they run as their own identity (a
/// copy an ordinary user's run made is its owner's alone, and would be unreadable to them).
fn shared_as_needed(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match shared_group() {
        Ok(None) => true,
        Ok(Some(gid)) => {
            std::fs::symlink_metadata(path).is_ok_and(|copy| copy.gid() == gid && copy.mode() & 0o050 == 0o050)
        }
        Err(_) => false,
    }
}

/// How an earlier copy of a worker's source (a copy the store kept, `sources/<key>/`) differs from what the worker's
/// checked trees would copy now, by the copy's paths (an include folder's files under its name).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceChanges {
    /// Files there now that the copy lacks.
    pub added: Vec<String>,
    /// Files of the copy that are gone.
    pub removed: Vec<String>,
    /// Files in both whose contents or execute bit differ.
    pub changed: Vec<String>,
}

impl SourceChanges {
    /// Whether nothing differs.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }
}

/// Compares the copy at `copy` with what [`copy_source`] would make of `worker` now; `None` when the copy cannot be
/// read whole (gone, or holding what no copy holds, such as a link).
pub fn compare_copy(worker: &Worker, copy: &Path) -> Option<SourceChanges> {
    let root = open_root(copy).ok()?;
    let inventory = walk(root.as_fd(), &[]).ok()?;
    // A source of a few files is hashed faster than threads start: more threads only for a large one.
    let bytes: u64 = inventory.files.values().map(|walked| walked.size).sum();
    let threads = if bytes < 8 << 20 { std::num::NonZeroUsize::MIN } else { default_hash_threads() };
    let copied = SourceTree::of_walked(root.as_fd(), &inventory, threads).ok()?;
    let then: BTreeMap<&str, (Sha256Digest, bool)> =
        copied.files().iter().map(|file| (file.path.as_str(), (file.sha256, file.executable))).collect();
    let mut now: BTreeMap<String, (Sha256Digest, bool)> =
        worker.source_tree().files().iter().map(|file| (file.path.clone(), (file.sha256, file.executable))).collect();
    for include in worker.includes() {
        for file in include.tree().files() {
            now.insert(format!("{}/{}", include.name(), file.path), (file.sha256, file.executable));
        }
    }
    let mut changes = SourceChanges::default();
    for (path, current) in &now {
        match then.get(path.as_str()) {
            None => changes.added.push(path.clone()),
            Some(earlier) if earlier != current => changes.changed.push(path.clone()),
            Some(_) => {}
        }
    }
    changes.removed = then.keys().filter(|path| !now.contains_key(**path)).map(|path| (*path).to_owned()).collect();
    Some(changes)
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, reason = "tests make and read their own files in temporary folders")]
mod tests {
    use std::fs;
    use std::os::unix::fs::PermissionsExt;

    use super::*;
    use crate::CheckedRepository;

    /// A checked repository whose worker `w` has the source folder `src` with `run.py` and `lib/util.py`.
    fn source_repository() -> (tempfile::TempDir, CheckedRepository) {
        let repo = tempfile::tempdir().unwrap();
        fs::create_dir_all(repo.path().join("src/lib")).unwrap();
        fs::write(repo.path().join("src/run.py"), "print('run')\n").unwrap();
        fs::set_permissions(repo.path().join("src/run.py"), fs::Permissions::from_mode(0o750)).unwrap();
        fs::write(repo.path().join("src/lib/util.py"), "X = 1\n").unwrap();
        let toml = "format = 1\n[workers.w]\nrole = \"implementation\"\ncommand = [\"python3\", \"run.py\"]\nsource = \"src\"\n";
        fs::write(repo.path().join("metewand.toml"), toml).unwrap();
        let repository = CheckedRepository::load(repo.path()).unwrap();
        (repo, repository)
    }

    fn mode(path: &Path) -> u32 {
        fs::symlink_metadata(path).unwrap().permissions().mode() & 0o7777
    }

    /// The group a copy is shared with, as the tests expect it from outside: that of the configured identity, when
    /// the tests run as root.
    fn shared() -> Option<u32> {
        metewand_testkit::has_cap_sys_admin().then(|| crate::session::WorkerIdentity::configured().unwrap().gid)
    }

    #[test]
    fn a_copy_holds_the_checked_files_with_modes_that_follow_the_execute_bit() {
        let (_repo, repository) = source_repository();
        let out = tempfile::tempdir().unwrap();
        let target = out.path().join("copy");
        copy_source(repository.worker("w").unwrap(), &target).unwrap();
        assert_eq!(fs::read_to_string(target.join("run.py")).unwrap(), "print('run')\n");
        assert_eq!(fs::read_to_string(target.join("lib/util.py")).unwrap(), "X = 1\n");
        // Run by root, the copy is shared with the group confined workers run as, who must read it.
        let expected = match shared() {
            Some(gid) => {
                assert_eq!(
                    std::os::unix::fs::MetadataExt::gid(&fs::metadata(target.join("lib/util.py")).unwrap()),
                    gid
                );
                (0o750, 0o640)
            }
            None => (0o700, 0o600),
        };
        assert_eq!((mode(&target.join("run.py")), mode(&target.join("lib/util.py"))), expected);
        // The target is created exclusively: anything already there, a link included, is an error.
        let planted = out.path().join("planted");
        std::os::unix::fs::symlink(out.path().join("elsewhere"), &planted).unwrap();
        let error = copy_source(repository.worker("w").unwrap(), &planted).unwrap_err();
        assert!(
            matches!(&error.problem, SourceCopyProblem::Io(e) if e.kind() == io::ErrorKind::AlreadyExists),
            "{error}"
        );
        assert!(!out.path().join("elsewhere").exists(), "nothing was created through the link");
    }

    #[test]
    fn an_execute_bit_or_a_file_changed_since_the_check_fails_the_copy_naming_it() {
        let (repo, repository) = source_repository();
        let worker = repository.worker("w").unwrap();
        let out = tempfile::tempdir().unwrap();
        fs::set_permissions(repo.path().join("src/lib/util.py"), fs::Permissions::from_mode(0o700)).unwrap();
        let error = copy_source(worker, &out.path().join("one")).unwrap_err();
        assert_eq!(error.path, "lib/util.py");
        assert!(error.to_string().contains("has an execute bit now"), "{error}");
        fs::set_permissions(repo.path().join("src/lib/util.py"), fs::Permissions::from_mode(0o600)).unwrap();
        fs::write(repo.path().join("src/new.py"), "").unwrap();
        let error = copy_source(worker, &out.path().join("two")).unwrap_err();
        assert_eq!(error.path, "new.py");
        assert!(error.to_string().contains("was not there when the repository was checked"), "{error}");
        fs::remove_file(repo.path().join("src/new.py")).unwrap();
        fs::write(repo.path().join("src/run.py"), "print('RUN')\n").unwrap();
        let error = copy_source(worker, &out.path().join("three")).unwrap_err();
        assert_eq!(error.path, "run.py");
        assert!(error.to_string().contains("has SHA-256"), "{error}");
        fs::remove_file(repo.path().join("src/run.py")).unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            repo.path().join("src/run.py"),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        let error = copy_source(worker, &out.path().join("four")).unwrap_err();
        assert_eq!(error.path, "run.py");
        assert!(error.to_string().contains("is a FIFO"), "{error}");
    }

    #[test]
    fn include_folders_are_copied_under_their_name_and_a_later_edit_shows_file_by_file() {
        let (repo, _) = source_repository();
        fs::create_dir_all(repo.path().join("shared/numerics")).unwrap();
        fs::write(repo.path().join("shared/numerics/__init__.py"), "N = 1\n").unwrap();
        let toml = fs::read_to_string(repo.path().join("metewand.toml")).unwrap() + "include = [\"shared/numerics\"]\n";
        fs::write(repo.path().join("metewand.toml"), toml).unwrap();
        let repository = CheckedRepository::load(repo.path()).unwrap();
        let worker = repository.worker("w").unwrap();
        let out = tempfile::tempdir().unwrap();
        let copy = out.path().join("copy");
        copy_source(worker, &copy).unwrap();
        assert_eq!(fs::read_to_string(copy.join("numerics/__init__.py")).unwrap(), "N = 1\n");
        assert_eq!(compare_copy(worker, &copy), Some(SourceChanges::default()));
        // Edited, added and removed files, in the source and in the include folder, each by its copy's path.
        fs::write(repo.path().join("shared/numerics/__init__.py"), "N = 2\n").unwrap();
        fs::write(repo.path().join("shared/numerics/extra.py"), "").unwrap();
        fs::remove_file(repo.path().join("src/lib/util.py")).unwrap();
        let edited = CheckedRepository::load(repo.path()).unwrap();
        let changes = compare_copy(edited.worker("w").unwrap(), &copy).unwrap();
        assert_eq!(changes.changed, ["numerics/__init__.py"]);
        assert_eq!(changes.added, ["numerics/extra.py"]);
        assert_eq!(changes.removed, ["lib/util.py"]);
        // With the source as it was, the include folder no longer matches the old check: the copy fails, naming
        // the file by the copy's path.
        fs::write(repo.path().join("src/lib/util.py"), "X = 1\n").unwrap();
        let error = copy_source(worker, &out.path().join("stale")).unwrap_err();
        assert_eq!(error.path, "numerics/extra.py", "{error}");
        assert!(compare_copy(worker, &out.path().join("absent")).is_none());
    }

    #[test]
    fn the_store_keeps_one_read_only_copy_per_content_and_replaces_a_changed_one_before_use() {
        let (repo, repository) = source_repository();
        let worker = repository.worker("w").unwrap();
        let state = tempfile::tempdir().unwrap();
        let sources = state.path().join(SOURCES_DIR);
        // Made at once by four sessions: one copy, the others' staging folders gone.
        let paths: Vec<std::path::PathBuf> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..4).map(|_| scope.spawn(|| stored_copy(worker, &sources).unwrap())).collect();
            handles.into_iter().map(|handle| handle.join().unwrap()).collect()
        });
        assert!(paths.windows(2).all(|pair| pair[0] == pair[1]), "{paths:?}");
        let copy = &paths[0];
        assert_eq!(copy.file_name().unwrap().to_str().unwrap(), worker_copy_key(worker));
        let entries: Vec<_> = fs::read_dir(&sources).unwrap().map(|entry| entry.unwrap().file_name()).collect();
        assert_eq!(entries.len(), 1, "{entries:?}");
        let expected = if shared().is_some() { (0o550, 0o550, 0o440) } else { (0o500, 0o500, 0o400) };
        assert_eq!((mode(copy), mode(&copy.join("run.py")), mode(&copy.join("lib/util.py"))), expected);
        // Changed behind the executor's back (a worker without Landlock could): replaced before the next use.
        fs::set_permissions(copy.join("lib"), fs::Permissions::from_mode(0o700)).unwrap();
        fs::set_permissions(copy.join("lib/util.py"), fs::Permissions::from_mode(0o600)).unwrap();
        fs::write(copy.join("lib/util.py"), "X = 'planted'\n").unwrap();
        assert_eq!(stored_copy(worker, &sources).unwrap(), *copy);
        assert_eq!(fs::read_to_string(copy.join("lib/util.py")).unwrap(), "X = 1\n");
        let entries: Vec<_> = fs::read_dir(&sources).unwrap().map(|entry| entry.unwrap().file_name()).collect();
        assert_eq!(entries.len(), 1, "the changed copy was removed: {entries:?}");
        // The key names the content: an edit of the source is another copy beside the first.
        fs::write(repo.path().join("src/run.py"), "print('v2')\n").unwrap();
        let edited = CheckedRepository::load(repo.path()).unwrap();
        let second = stored_copy(edited.worker("w").unwrap(), &sources).unwrap();
        assert_ne!(second, *copy);
        assert_eq!(fs::read_to_string(second.join("run.py")).unwrap(), "print('v2')\n");
        assert_eq!(fs::read_to_string(copy.join("run.py")).unwrap(), "print('run')\n");
        let _ = std::process::Command::new("chmod").args(["-R", "u+w"]).arg(state.path()).status();
    }
}
