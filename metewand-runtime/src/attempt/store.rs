//! The attempt's filesystem: private copies of worker sources, the content-addressed dataset store (staging,
//! publication by rename, read-only entries, eviction, cleaning of leftover staging folders), and random names.

use std::collections::BTreeSet;
use std::fs;
use std::io::{self, Read};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use rustix::fs::{FlockOperation, Mode, OFlags, RenameFlags};

use crate::CheckedRepository;
use crate::files::create::{create_new_dir_beneath, create_new_file_beneath, open_directory_beneath};
use crate::files::read::{FileCheck, FileError, ReadControl, read_checked};
use crate::files::walk::{OpenError, WalkError, open_root, walk};
use crate::files::{MAX_WALK_DEPTH, RelativePath};
use crate::identity::{SourceFile, SourceTree};
use crate::repository::{SKIPPED_NAMES, Worker};

/// The prefix of every staging (and evicted) folder in `datasets/`; such a folder is never used as a dataset.
pub const STAGING_PREFIX: &str = ".tmp-";

/// `n` random bytes from the kernel, as lowercase hexadecimal.
pub fn random_hex(n: usize) -> io::Result<String> {
    let mut bytes = vec![0u8; n];
    fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
}

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

/// The mode of a copied file: owner-only, with the execute bit when the source tree says so. Being a function of
/// what the source tree digest holds, two copies with the same digest are alike.
fn copy_mode(executable: bool) -> u32 {
    if executable { 0o700 } else { 0o600 }
}

/// Copies a worker's source files into `target`, a new folder (created here, exclusively) whose parent exists.
///
/// The source directory is opened beneath the repository's root and walked without following links, exactly as
/// when the repository was checked; every file is read with the checked read, bounded by the size and compared
/// with the digest the check recorded, and written to a file created with `O_CREAT | O_EXCL | O_NOFOLLOW` in a
/// folder created here. A tree that no longer matches its checked digest (a link, a FIFO, a new, missing or
/// changed file, an execute bit) is an error naming the path; nothing in it is followed or read past its size.
pub fn copy_source(repository: &CheckedRepository, worker: &Worker, target: &Path) -> Result<(), SourceCopyError> {
    let fail =
        |path: &str, problem| SourceCopyError { worker: worker.name().to_owned(), path: path.to_owned(), problem };
    let mismatch = |path: &str, reason: String| fail(path, SourceCopyProblem::Mismatch(reason));
    let io = |path: &str, error: io::Error| fail(path, SourceCopyProblem::Io(error));

    let root = open_root(repository.root()).map_err(|e| io("", e))?;
    let opened;
    let source = if worker.source() == "." {
        root.as_fd()
    } else {
        let path =
            RelativePath::new(worker.source()).map_err(|e| mismatch("", format!("is not a relative path: {e}")))?;
        opened = open_directory_beneath(root.as_fd(), &path).map_err(|error| match error {
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
    let checked = worker.source_tree();
    let known: BTreeSet<&str> = checked.files().iter().map(|file| file.path.as_str()).collect();
    if let Some(path) = inventory.files.keys().find(|path| !known.contains(path.as_str())) {
        return Err(mismatch(path, "was not there when the repository was checked".to_owned()));
    }

    let (parent, name) = match (target.parent(), target.file_name().and_then(|name| name.to_str())) {
        (Some(parent), Some(name)) => (parent, name),
        _ => return Err(io("", io::Error::other(format!("{} cannot be a copy's folder", target.display())))),
    };
    let name = RelativePath::new(name).map_err(|e| io("", io::Error::other(e)))?;
    let parent = open_root(parent).map_err(|e| io("", e))?;
    let copy = create_new_dir_beneath(parent.as_fd(), &name, 0o700).map_err(|e| io("", e))?;
    let mut created = BTreeSet::new();
    let mut buffer = vec![0; 256 << 10];
    let mut copied = Vec::with_capacity(checked.files().len());
    for file in checked.files() {
        let path = RelativePath::new(&file.path).map_err(|e| mismatch(&file.path, format!("is not a path: {e}")))?;
        let Some(walked) = inventory.files.get(&file.path) else {
            return Err(mismatch(&file.path, "is no longer a regular file in the source directory".to_owned()));
        };
        for ancestor in path.ancestors() {
            if created.insert(ancestor.to_owned()) {
                let ancestor = RelativePath::new(ancestor).expect("an ancestor of a relative path is one");
                create_new_dir_beneath(copy.as_fd(), &ancestor, 0o700).map_err(|e| io(ancestor.as_str(), e))?;
            }
        }
        let mut to =
            create_new_file_beneath(copy.as_fd(), &path, copy_mode(file.executable)).map_err(|e| io(&file.path, e))?;
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

/// A staging folder `datasets/.tmp-<random>/`, locked (`flock`) for as long as this value lives so that a
/// concurrent run's cleaning never takes it for a leftover.
#[derive(Debug)]
pub struct Staging {
    path: PathBuf,
    _lock: OwnedFd,
}

impl Staging {
    /// Creates and locks a fresh staging folder in `datasets`.
    pub fn create(datasets: &Path) -> io::Result<Staging> {
        loop {
            let path = datasets.join(format!("{STAGING_PREFIX}{}", random_hex(8)?));
            fs::create_dir(&path)?;
            let lock = open_dir(&path)?;
            rustix::fs::flock(&lock, FlockOperation::LockExclusive)?;
            // A cleaner may have taken the folder between its creation and the lock: start again if so.
            if rustix::fs::fstat(&lock)?.st_nlink > 0 {
                return Ok(Staging { path, _lock: lock });
            }
        }
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

fn open_dir(path: &Path) -> io::Result<OwnedFd> {
    Ok(rustix::fs::open(path, OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC, Mode::empty())?)
}

/// Removes every `.tmp-*` folder in `datasets` that no live run holds locked (leftovers of an interrupted run).
pub fn clean_leftovers(datasets: &Path) -> io::Result<()> {
    let entries = match fs::read_dir(datasets) {
        Ok(entries) => entries,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(error),
    };
    for entry in entries {
        let entry = entry?;
        if !entry.file_name().to_string_lossy().starts_with(STAGING_PREFIX) {
            continue;
        }
        let path = entry.path();
        if !entry.file_type()?.is_dir() {
            fs::remove_file(&path)?;
            continue;
        }
        let Ok(lock) = open_dir(&path) else { continue };
        if rustix::fs::flock(&lock, FlockOperation::NonBlockingLockExclusive).is_ok() {
            remove_tree(&path)?;
        }
    }
    Ok(())
}

/// Publishes a validated staging folder as `datasets/<key>`: made read-only, then renamed into place only if the
/// key is still absent. Returns `false` (and removes the staging folder) when another run published it first.
pub fn publish(staging: Staging, entry: &Path) -> io::Result<bool> {
    set_read_only(staging.path(), true)?;
    let result =
        rustix::fs::renameat_with(rustix::fs::CWD, staging.path(), rustix::fs::CWD, entry, RenameFlags::NOREPLACE);
    match result {
        Ok(()) => Ok(true),
        Err(rustix::io::Errno::EXIST) => {
            remove_tree(staging.path())?;
            Ok(false)
        }
        Err(error) => Err(error.into()),
    }
}

/// Takes a store entry out of the store at once (a rename to a staging name) and then deletes it.
pub fn evict(datasets: &Path, entry: &Path) -> io::Result<()> {
    let away = datasets.join(format!("{STAGING_PREFIX}evicted-{}", random_hex(8)?));
    match fs::rename(entry, &away) {
        Ok(()) => remove_tree(&away),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(error),
    }
}

/// Deletes a tree whose folders may have been made read-only (by publication, or by a worker).
pub fn remove_tree(path: &Path) -> io::Result<()> {
    set_read_only(path, false)?;
    match fs::remove_dir_all(path) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

/// Makes every folder and regular file under `path` read-only (or writable by its owner again), without
/// following links. Something that disappears meanwhile (a concurrent run removing the same leftover) is skipped.
fn set_read_only(path: &Path, read_only: bool) -> io::Result<()> {
    match set_read_only_strict(path, read_only) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

fn set_read_only_strict(path: &Path, read_only: bool) -> io::Result<()> {
    let metadata = match fs::symlink_metadata(path) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(error),
    };
    let mode = metadata.permissions().mode();
    if metadata.is_dir() {
        if !read_only {
            fs::set_permissions(path, fs::Permissions::from_mode(mode | 0o700))?;
        }
        for entry in fs::read_dir(path)? {
            set_read_only(&entry?.path(), read_only)?;
        }
        if read_only {
            fs::set_permissions(path, fs::Permissions::from_mode(mode & 0o555))?;
        }
    } else if metadata.is_file() && read_only {
        fs::set_permissions(path, fs::Permissions::from_mode(mode & 0o444))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> =
            fs::read_dir(dir).unwrap().map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    }

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

    #[test]
    fn a_copy_holds_the_checked_files_with_modes_that_follow_the_execute_bit() {
        let (_repo, repository) = source_repository();
        let out = tempfile::tempdir().unwrap();
        let target = out.path().join("copy");
        copy_source(&repository, repository.worker("w").unwrap(), &target).unwrap();
        assert_eq!(fs::read_to_string(target.join("run.py")).unwrap(), "print('run')\n");
        assert_eq!(fs::read_to_string(target.join("lib/util.py")).unwrap(), "X = 1\n");
        assert_eq!((mode(&target.join("run.py")), mode(&target.join("lib/util.py"))), (0o700, 0o600));
        // The target is created exclusively: anything already there, a link included, is an error.
        let planted = out.path().join("planted");
        std::os::unix::fs::symlink(out.path().join("elsewhere"), &planted).unwrap();
        let error = copy_source(&repository, repository.worker("w").unwrap(), &planted).unwrap_err();
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
        let error = copy_source(&repository, worker, &out.path().join("one")).unwrap_err();
        assert_eq!(error.path, "lib/util.py");
        assert!(error.to_string().contains("has an execute bit now"), "{error}");
        fs::set_permissions(repo.path().join("src/lib/util.py"), fs::Permissions::from_mode(0o600)).unwrap();
        fs::write(repo.path().join("src/new.py"), "").unwrap();
        let error = copy_source(&repository, worker, &out.path().join("two")).unwrap_err();
        assert_eq!(error.path, "new.py");
        assert!(error.to_string().contains("was not there when the repository was checked"), "{error}");
        fs::remove_file(repo.path().join("src/new.py")).unwrap();
        fs::write(repo.path().join("src/run.py"), "print('RUN')\n").unwrap();
        let error = copy_source(&repository, worker, &out.path().join("three")).unwrap_err();
        assert_eq!(error.path, "run.py");
        assert!(error.to_string().contains("has SHA-256"), "{error}");
        fs::remove_file(repo.path().join("src/run.py")).unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            repo.path().join("src/run.py"),
            rustix::fs::FileType::Fifo,
            Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        let error = copy_source(&repository, worker, &out.path().join("four")).unwrap_err();
        assert_eq!(error.path, "run.py");
        assert!(error.to_string().contains("is a FIFO"), "{error}");
    }

    #[test]
    fn a_locked_staging_folder_survives_cleaning_and_a_leftover_does_not() {
        let datasets = tempfile::tempdir().unwrap();
        let live = Staging::create(datasets.path()).unwrap();
        fs::write(live.path().join("half.csv"), "1,").unwrap();
        let leftover = datasets.path().join(format!("{STAGING_PREFIX}leftover"));
        fs::create_dir_all(leftover.join("sub")).unwrap();
        fs::write(leftover.join("sub/file"), "x").unwrap();
        set_read_only(&leftover, true).unwrap();
        clean_leftovers(datasets.path()).unwrap();
        assert_eq!(names(datasets.path()), vec![live.path().file_name().unwrap().to_string_lossy().into_owned()]);
        let live_path = live.path().to_owned();
        drop(live);
        clean_leftovers(datasets.path()).unwrap();
        assert!(!live_path.exists(), "an unlocked staging folder is a leftover");
    }

    #[test]
    fn publishing_never_replaces_an_entry_and_eviction_removes_a_read_only_one() {
        let datasets = tempfile::tempdir().unwrap();
        let entry = datasets.path().join("key");
        let first = Staging::create(datasets.path()).unwrap();
        fs::write(first.path().join("data"), "first").unwrap();
        assert!(publish(first, &entry).unwrap());
        assert!(fs::metadata(entry.join("data")).unwrap().permissions().readonly());
        assert!(fs::metadata(&entry).unwrap().permissions().readonly());
        let second = Staging::create(datasets.path()).unwrap();
        fs::write(second.path().join("data"), "second").unwrap();
        assert!(!publish(second, &entry).unwrap(), "a concurrent winner is kept");
        assert_eq!(fs::read_to_string(entry.join("data")).unwrap(), "first");
        assert_eq!(names(datasets.path()), vec!["key".to_owned()], "the loser's staging folder is removed");
        evict(datasets.path(), &entry).unwrap();
        assert!(names(datasets.path()).is_empty());
    }
}
