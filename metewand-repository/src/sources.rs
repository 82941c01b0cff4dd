//! The trees of a worker's folders: its source directory and its include folders, walked without following links
//! and hashed into the [`SourceTree`]s its identity is made of, and where an include folder lands in its copy.

use super::*;

/// The name an include folder has in a worker's copy: its last component.
pub(super) fn include_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Whether the relative path `inner` is `outer` or lies beneath it.
pub(super) fn within(inner: &str, outer: &str) -> bool {
    inner == outer || inner.strip_prefix(outer).is_some_and(|rest| rest.starts_with('/'))
}

impl Loader<'_> {
    /// The hashed tree of a worker's folder: its source directory (`what` is `source directory`) or one of its
    /// include folders (`include folder`), `folder` as written at `span`.
    pub(super) fn source_tree(
        &self,
        root: std::os::fd::BorrowedFd<'_>,
        worker: &str,
        (what, folder, span): (&'static str, &str, &Range<usize>),
        options: &CheckOptions,
    ) -> Result<SourceTree, CheckError> {
        let at = |kind| self.source.error(span.clone(), kind);
        let directory_error = |problem: String| {
            at(CheckErrorKind::SourceDirectory { what, worker: worker.to_owned(), path: folder.to_owned(), problem })
        };
        let opened;
        let directory = if folder == "." {
            root
        } else {
            let path = RelativePath::new(folder).expect("checked when read");
            opened = match open_beneath(root, &path) {
                Ok(file) => std::os::fd::OwnedFd::from(file),
                Err(OpenError::Missing) => return Err(directory_error("does not exist".to_owned())),
                Err(OpenError::SymbolicLink) => {
                    return Err(directory_error(
                        "is a symbolic link (or lies under one); a source directory must be a real directory"
                            .to_owned(),
                    ));
                }
                Err(OpenError::NotADirectory { found }) => {
                    return Err(directory_error(format!("is {found} (or lies under one), not a directory")));
                }
                Err(OpenError::Io(error)) => return Err(directory_error(format!("cannot be opened: {error}"))),
            };
            let metadata =
                rustix::fs::fstat(&opened).map_err(|error| directory_error(format!("cannot be examined: {error}")))?;
            if rustix::fs::FileType::from_raw_mode(metadata.st_mode) != rustix::fs::FileType::Directory {
                return Err(directory_error("is not a directory".to_owned()));
            }
            opened.as_fd()
        };
        let inventory = walk(directory, &SKIPPED_NAMES).map_err(|error| match error {
            WalkError::NonUtf8 { path } => at(CheckErrorKind::SourceNonUtf8 {
                what,
                worker: worker.to_owned(),
                source_dir: folder.to_owned(),
                entry: path,
            }),
            WalkError::Special { path, found } => at(CheckErrorKind::SourceEntry {
                what,
                worker: worker.to_owned(),
                source_dir: folder.to_owned(),
                entry: path,
                found,
            }),
            WalkError::TooDeep { path } => {
                directory_error(format!("nests directories deeper than {} levels at {path:?}", files::MAX_WALK_DEPTH))
            }
            WalkError::Changed { path } => directory_error(format!("changed while it was read, at {path:?}")),
            WalkError::Io { path, source } => directory_error(format!("cannot be read at {path:?}: {source}")),
        })?;
        SourceTree::of_walked(directory, &inventory, options.hash_threads)
            .map_err(|(path, error)| directory_error(format!("changed or could not be read: {path:?} {error}")))
    }
}
