//! `metewand init`: a complete benchmark repository (materializer, implementation, evaluator, schemas, a campaign
//! and a README) written into a new or empty folder, that passes `check`, `conformance --all` and `run` as written.
//! Its workers speak the protocol through the Python SDK ([`Template::Sdk`]), or are commands Metewand's adapter
//! runs ([`Template::Command`]: shell scripts and a C program to compile).
//!
//! The files are the templates of `templates/init/` (or `templates/init-command/`), with `@NAME@` replaced by the benchmark's name. They are written
//! into a hidden folder beside the target and renamed onto it once complete, so a failure leaves no half-written
//! repository; the rename replaces only an empty folder.

use std::io::{self, Write};
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};

use crate::files::RelativePath;
use crate::files::create::{create_new_dir_beneath, create_new_file_beneath};
use crate::files::walk::open_root;

/// The template's files, by path, as written with `@NAME@` for the name.
const TEMPLATE: [(&str, &str); 11] = [
    ("metewand.toml", include_str!("../templates/init/metewand.toml")),
    ("README.md", include_str!("../templates/init/README.md")),
    (".gitignore", include_str!("../templates/init/.gitignore")),
    ("requirements.txt", include_str!("../templates/init/requirements.txt")),
    (
        "schemas/dataset-parameters.schema.json",
        include_str!("../templates/init/schemas/dataset-parameters.schema.json"),
    ),
    ("schemas/dataset.schema.json", include_str!("../templates/init/schemas/dataset.schema.json")),
    ("schemas/result.schema.json", include_str!("../templates/init/schemas/result.schema.json")),
    ("schemas/metrics.schema.json", include_str!("../templates/init/schemas/metrics.schema.json")),
    ("workers/generate/generate.py", include_str!("../templates/init/workers/generate/generate.py")),
    ("workers/mean/mean.py", include_str!("../templates/init/workers/mean/mean.py")),
    ("workers/judge/judge.py", include_str!("../templates/init/workers/judge/judge.py")),
];

/// The command template's files: every worker a command run by Metewand's adapter.
const COMMAND_TEMPLATE: [(&str, &str); 7] = [
    ("metewand.toml", include_str!("../templates/init-command/metewand.toml")),
    ("README.md", include_str!("../templates/init-command/README.md")),
    (".gitignore", include_str!("../templates/init-command/.gitignore")),
    ("workers/generate/generate.sh", include_str!("../templates/init-command/workers/generate/generate.sh")),
    ("workers/sum-sh/sum.sh", include_str!("../templates/init-command/workers/sum-sh/sum.sh")),
    ("workers/sum-c/sum.c", include_str!("../templates/init-command/workers/sum-c/sum.c")),
    ("workers/judge/judge.sh", include_str!("../templates/init-command/workers/judge/judge.sh")),
];

/// What kind of workers a new repository has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Template {
    /// Python workers that speak the protocol through the SDK.
    #[default]
    Sdk,
    /// Command workers (`adapter = "command"`): shell scripts, and a C implementation to compile with
    /// [`C_BUILD`].
    Command,
}

/// The command that builds the command template's C implementation, run in the repository.
pub const C_BUILD: &str = "cc -O2 -o workers/sum-c/sum workers/sum-c/sum.c";

/// The name a benchmark gets when none is given and its folder's name is not one.
pub const DEFAULT_NAME: &str = "benchmark";

/// Why a repository could not be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScaffoldError {
    /// The folder already holds something.
    #[error("{} is not empty: give a new or empty folder", path.display())]
    NotEmpty {
        /// The folder.
        path: PathBuf,
    },
    /// The name cannot name a benchmark (it is part of its schemas' ids).
    #[error("{name:?} is not a benchmark name: use a letter or digit, then letters, digits, '-', '_' or '.' (--name)")]
    InvalidName {
        /// The name given.
        name: String,
    },
    /// The file system refused.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// What was being done.
        action: &'static str,
        /// Where.
        path: PathBuf,
        /// The system's error.
        source: io::Error,
    },
}

/// What [`scaffold`] wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scaffolded {
    /// The benchmark's name.
    pub name: String,
    /// The files written, relative to the folder, in the order written.
    pub files: Vec<&'static str>,
}

/// Writes the template repository into `dir` (created with its parents when missing; it must be empty), named
/// `name`, or after the folder when that is a valid name, otherwise [`DEFAULT_NAME`].
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let target = dir.path().join("sums");
/// let written = metewand_runtime::scaffold::scaffold(&target, None).unwrap();
/// assert_eq!(written.name, "sums");
/// assert!(metewand_runtime::CheckedRepository::load(&target).is_ok());
/// ```
pub fn scaffold(dir: &Path, name: Option<&str>) -> Result<Scaffolded, ScaffoldError> {
    scaffold_from(dir, name, Template::Sdk)
}

/// Writes the repository of `template` into `dir`, as [`scaffold`] does.
///
/// ```
/// use metewand_runtime::scaffold::{Template, scaffold_from};
/// let dir = tempfile::tempdir().unwrap();
/// let target = dir.path().join("sums");
/// let written = scaffold_from(&target, None, Template::Command).unwrap();
/// assert!(written.files.contains(&"workers/sum-c/sum.c"));
/// assert!(metewand_runtime::CheckedRepository::load(&target).is_ok());
/// ```
pub fn scaffold_from(dir: &Path, name: Option<&str>, template: Template) -> Result<Scaffolded, ScaffoldError> {
    fn io<'p>(action: &'static str, path: &'p Path) -> impl FnOnce(io::Error) -> ScaffoldError + 'p {
        move |source| ScaffoldError::Io { action, path: path.to_owned(), source }
    }
    let folder_name = dir.file_name().and_then(|name| name.to_str());
    let name = match name {
        Some(name) if crate::repository::valid_name(name) => name.to_owned(),
        Some(name) => return Err(ScaffoldError::InvalidName { name: name.to_owned() }),
        None => folder_name.filter(|name| crate::repository::valid_name(name)).unwrap_or(DEFAULT_NAME).to_owned(),
    };
    let parent = match dir.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(io("create", &parent))?;
    match std::fs::read_dir(dir) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                return Err(ScaffoldError::NotEmpty { path: dir.to_owned() });
            }
        }
        Err(error) if error.kind() == io::ErrorKind::NotFound => {}
        Err(error) => return Err(io("read", dir)(error)),
    }
    let parent_fd = open_root(&parent).map_err(io("open", &parent))?;
    let staging_name = format!(".{}.init-{}", folder_name.unwrap_or(DEFAULT_NAME), std::process::id());
    let staging = parent.join(&staging_name);
    let relative = RelativePath::new(&staging_name).map_err(|e| io("create", &staging)(io::Error::other(e)))?;
    let root = create_new_dir_beneath(parent_fd.as_fd(), &relative, 0o755).map_err(io("create", &staging))?;
    let files: &[(&'static str, &str)] = match template {
        Template::Sdk => &TEMPLATE,
        Template::Command => &COMMAND_TEMPLATE,
    };
    let written = write_template(root.as_fd(), files, &name).map_err(|(path, source)| ScaffoldError::Io {
        action: "write",
        path: dir.join(path),
        source,
    });
    let renamed = written.and_then(|files| {
        // rename(2) replaces an empty folder and refuses a nonempty one: whatever appeared meanwhile is kept.
        std::fs::rename(&staging, dir).map(|()| files).map_err(|source| match source.raw_os_error() {
            Some(libc::ENOTEMPTY | libc::EEXIST) => ScaffoldError::NotEmpty { path: dir.to_owned() },
            _ => ScaffoldError::Io { action: "create", path: dir.to_owned(), source },
        })
    });
    if renamed.is_err() {
        let _ = crate::attempt::remove_tree(&staging);
    }
    Ok(Scaffolded { name, files: renamed? })
}

/// Writes every template file beneath `root`; an error names the file.
fn write_template(
    root: std::os::fd::BorrowedFd<'_>,
    template: &[(&'static str, &str)],
    name: &str,
) -> Result<Vec<&'static str>, (String, io::Error)> {
    let mut made = std::collections::BTreeSet::new();
    let mut files = Vec::with_capacity(template.len());
    for &(path, text) in template {
        let relative = RelativePath::new(path).expect("template paths are relative");
        for ancestor in relative.ancestors() {
            if made.insert(ancestor.to_owned()) {
                let folder = RelativePath::new(ancestor).expect("an ancestor of a relative path is one");
                create_new_dir_beneath(root, &folder, 0o755).map_err(|e| (ancestor.to_owned(), e))?;
            }
        }
        let mut file = create_new_file_beneath(root, &relative, 0o644).map_err(|e| (path.to_owned(), e))?;
        file.write_all(text.replace("@NAME@", name).as_bytes()).map_err(|e| (path.to_owned(), e))?;
        files.push(path);
    }
    Ok(files)
}
