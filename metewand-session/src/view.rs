//! A confined worker's private filesystem view, planned in the parent so that the forked child only makes system
//! calls (`sys::enter_view`).
//!
//! The view is the host's, with folders hidden behind empty read-only tmpfs mounts: `/tmp`, `/var/tmp`, `/run`
//! and `/dev/shm` always, and what the caller names, in two kinds. A *protected* folder
//! ([`Confinement::hide`](super::Confinement::hide): the state folder, the attempt folder, a campaign's folder,
//! and `/run` and `/dev/shm`) shows only what the confinement itself names. An *open* one
//! ([`Confinement::hide_unless_named`](super::Confinement::hide_unless_named): the repository, and `/tmp` and
//! `/var/tmp`) also shows the files and folders the worker's program, arguments and environment values (split at
//! `:`) name inside it, so that an interpreter, a virtual environment, an SDK or a library path there still
//! resolves (a checkout in `/tmp` included), unless that lies in a protected folder; an open folder itself, and a
//! socket or FIFO, is never shown that way. The programs the worker runs are shown too (the files alone), unless
//! they lie in a protected folder: they must be there to be executed. Those are its command's first word and the
//! programs its other words name (the command a command worker's adapter runs in turn), each with its virtual
//! environment (`process.rs`). Shown again at their own paths, from clones of the
//! host's mounts taken before anything is hidden: the folders the worker may write (read-write), those it may read
//! ([`Confinement::readable`](super::Confinement::readable)) and its working directory (read-only). A hidden
//! folder inside a shown one is hidden after the shown one is in place. Its `/proc` is mounted fresh for its PID
//! namespace, so no host process is visible there. Writes are the Landlock rules' concern, not the view's.

use std::collections::HashMap;
use std::ffi::{CString, OsStr};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::identity::WorkerIdentity;

/// Hidden in every private view.
pub(super) const ALWAYS_HIDDEN: [&str; 4] = ["/tmp", "/var/tmp", "/run", "/dev/shm"];
/// Of those, the ones whose files and folders a worker's command may show (where checkouts and environments may
/// live); the others hold the host's sockets and shared memory, and stay protected.
const OPEN_BY_DEFAULT: [&str; 2] = ["/tmp", "/var/tmp"];
const PROTECTED_BY_DEFAULT: [&str; 2] = ["/run", "/dev/shm"];

/// One path shown again inside a hidden folder.
#[derive(Debug)]
pub(super) struct Shown {
    pub(super) path: CString,
    pub(super) writable: bool,
}

/// A mount point to make inside a hidden folder's tmpfs before something is shown there.
#[derive(Debug)]
pub(super) struct MountPoint {
    pub(super) path: CString,
    pub(super) folder: bool,
}

/// The view, every path formatted for the child; `trees` is filled in by the child (one descriptor per shown path).
#[derive(Debug)]
pub(super) struct ViewPlan {
    /// Hidden before anything is shown.
    pub(super) hidden: Vec<CString>,
    pub(super) mount_points: Vec<MountPoint>,
    /// In the order they are mounted: a path before anything shown beneath it.
    pub(super) shown: Vec<Shown>,
    /// Hidden after the shown paths, inside one of which each lies.
    pub(super) hidden_inside_shown: Vec<CString>,
    pub(super) trees: Vec<libc::c_int>,
    pub(super) working_dir: CString,
    /// Shown only after hello, each on an empty mount point the view makes (resolved paths, inside a hidden
    /// folder).
    pub(super) deferred: Vec<CString>,
}

fn c_path(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes()).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))
}

/// Paths resolved (links followed) once per plan: a plan resolves the same paths several times over (the programs,
/// the hidden folders, each shown path), and each resolution reads every link on the way. Within one plan the
/// answers are the same.
#[derive(Default)]
struct Resolver {
    resolved: HashMap<PathBuf, Option<PathBuf>>,
    folders: HashMap<PathBuf, bool>,
}

impl Resolver {
    /// `path` with every link followed, where it exists.
    fn canonical(&mut self, path: &Path) -> Option<PathBuf> {
        if let Some(found) = self.resolved.get(path) {
            return found.clone();
        }
        let found = path.canonicalize().ok();
        self.resolved.insert(path.to_owned(), found.clone());
        found
    }

    /// Whether a resolved path is a folder.
    fn is_dir(&mut self, path: &Path) -> bool {
        *self.folders.entry(path.to_owned()).or_insert_with(|| path.is_dir())
    }

    /// The folders among `paths` that exist, resolved as the kernel will see them, `/` left out.
    fn folders(&mut self, paths: impl IntoIterator<Item = PathBuf>) -> Vec<PathBuf> {
        let mut found: Vec<PathBuf> = Vec::new();
        for path in paths {
            if let Some(path) = self.canonical(&path)
                && path != Path::new("/")
                && self.is_dir(&path)
            {
                found.push(path);
            }
        }
        found.sort();
        found.dedup();
        found
    }
}

/// The folders a view shows: those the worker may write, those it may read, and those it may read after hello.
#[derive(Clone, Copy, Debug)]
pub(super) struct Shows<'a> {
    pub(super) writable: &'a [PathBuf],
    pub(super) readable: &'a [PathBuf],
    pub(super) deferred: &'a [PathBuf],
}

/// The folders an `identity` other than the orchestrator's may not pass through on the way to one of `paths` (the
/// first such on each way), resolved: each is hidden as an open folder, so that what the worker must reach inside
/// it is shown and nothing else.
fn closed_on_the_way(resolver: &mut Resolver, paths: &[PathBuf], identity: Option<WorkerIdentity>) -> Vec<PathBuf> {
    let Some(identity) = identity else { return Vec::new() };
    let closed: Vec<PathBuf> = paths
        .iter()
        .filter_map(|path| identity.first_closed_folder(&resolver.canonical(path)?).map(|closed| closed.path))
        .collect();
    resolver.folders(closed)
}

/// Who makes the view, which decides what it may take in.
#[derive(Clone, Copy, Debug)]
pub(super) enum Maker {
    /// The orchestrator, before the worker becomes its identity (if it runs as one of its own): it may take in
    /// what lies past a folder closed to that identity, and open the folder for it.
    Orchestrator(Option<WorkerIdentity>),
    /// The worker's identity itself, inside the user namespace it is root of (root's worker on the user-namespace
    /// route): what lies past a folder closed to it stays out of the view, as it is out of its reach without one.
    Identity(WorkerIdentity),
}

/// Plans the view (see the module documentation). Paths that do not exist are left out; a shown path outside
/// every hidden folder needs nothing. A worker run as an `identity` of its own also gets, hidden as open folders,
/// those it could not pass through on the way to what it must reach (a repository in root's 0700 home, an
/// interpreter there), with the installation of each of its `programs` shown whole where it is inside one: the
/// folder of that closed folder it lies in (what is private inside stays so by its own mode, since the identity
/// owns nothing; what the closed folder's mode alone kept private is not shown).
pub(super) fn plan(
    protected: &[PathBuf],
    open: &[PathBuf],
    shows: Shows<'_>,
    working_dir: &Path,
    programs: &[PathBuf],
    command_words: impl IntoIterator<Item = impl AsRef<OsStr>>,
    maker: Maker,
) -> io::Result<ViewPlan> {
    let Shows { writable, readable, deferred } = shows;
    let command_words: Vec<PathBuf> = command_words
        .into_iter()
        .flat_map(|word| {
            word.as_ref()
                .as_bytes()
                .split(|&byte| byte == b':')
                .map(|part| PathBuf::from(OsStr::from_bytes(part)))
                .filter(|path| path.is_absolute())
                .collect::<Vec<_>>()
        })
        .collect();
    let reached: Vec<PathBuf> = writable
        .iter()
        .chain(readable)
        .chain(deferred)
        .chain(std::iter::once(&working_dir.to_owned()))
        .chain(programs)
        .chain(&command_words)
        .cloned()
        .collect();
    let mut resolver = Resolver::default();
    let (closed, unreachable) = match maker {
        Maker::Orchestrator(identity) => (closed_on_the_way(&mut resolver, &reached, identity), Vec::new()),
        Maker::Identity(identity) => (Vec::new(), closed_on_the_way(&mut resolver, &reached, Some(identity))),
    };
    // The program's installation: the folder of the closed one it lies in (root's `~/.pyenv` for an interpreter, or
    // for pyenv's shim, which runs `~/.pyenv/libexec/pyenv`, which runs `~/.pyenv/versions/<v>/bin/python3`).
    let programs: Vec<PathBuf> = programs.iter().filter_map(|program| resolver.canonical(program)).collect();
    let mut installations: Vec<PathBuf> = Vec::new();
    for program in &programs {
        let Some(folder) = closed.iter().find(|folder| program.starts_with(folder)) else { continue };
        let Some(first) = program.strip_prefix(folder).ok().and_then(|inside| inside.components().next()) else {
            continue;
        };
        let top = folder.join(first);
        if resolver.is_dir(&top) {
            installations.push(top);
        }
    }
    let protected = resolver.folders(protected.iter().cloned().chain(PROTECTED_BY_DEFAULT.iter().map(PathBuf::from)));
    let open = resolver.folders(open.iter().cloned().chain(OPEN_BY_DEFAULT.iter().map(PathBuf::from)).chain(closed));
    let roots = resolver.folders(ALWAYS_HIDDEN.iter().map(PathBuf::from).chain(open.clone()).chain(protected.clone()));

    let mut wanted: Vec<(PathBuf, bool)> = writable.iter().map(|path| (path.clone(), true)).collect();
    wanted.extend(readable.iter().map(|path| (path.clone(), false)));
    wanted.push((working_dir.to_owned(), false));
    let programs = programs.into_iter().filter(|program| !protected.iter().any(|root| program.starts_with(root)));
    wanted.extend(programs.map(|program| (program, false)));
    let named = wanted.len();
    // The folders a named path passes through before a `..` (`/repo/../sdk`): the kernel walks them as written, so
    // each must exist in the view too, if only as an empty folder.
    let mut passages: Vec<PathBuf> = Vec::new();
    for path in command_words.iter().chain(&installations) {
        let mut prefix = PathBuf::new();
        for component in path.components() {
            if component == std::path::Component::ParentDir
                && let Some(passage) = resolver.canonical(&prefix)
                && resolver.is_dir(&passage)
            {
                passages.push(passage);
            }
            prefix.push(component);
        }
        wanted.push((path.to_owned(), false));
    }
    let mut shown: Vec<(PathBuf, bool)> = Vec::new();
    for (index, (path, writable)) in wanted.into_iter().enumerate() {
        let Some(path) = resolver.canonical(&path) else { continue };
        if !roots.iter().any(|root| path.starts_with(root)) || unreachable.iter().any(|folder| path.starts_with(folder))
        {
            continue;
        }
        // What the command names shows only what lies inside an open folder, and nothing the caller protects.
        if index >= named {
            let in_open = open.iter().any(|root| path.starts_with(root));
            let plain = resolver.is_dir(&path) || path.is_file();
            if !in_open || roots.contains(&path) || !plain || protected.iter().any(|root| path.starts_with(root)) {
                continue;
            }
        }
        match shown.iter_mut().find(|(seen, _)| *seen == path) {
            Some(seen) => seen.1 |= writable,
            None => shown.push((path, writable)),
        }
    }
    // Parents first: a path shown inside another shown path is mounted on the first one's clone.
    shown.sort_by_key(|(path, _)| path.components().count());

    // A hidden folder inside a shown one is hidden on top of it, afterwards; of the others, only the outermost.
    let inside_shown = |root: &PathBuf| shown.iter().any(|(path, _)| root.starts_with(path) && root != path);
    let (inner, others): (Vec<PathBuf>, Vec<PathBuf>) = roots.iter().cloned().partition(inside_shown);
    let outer: Vec<PathBuf> = others
        .iter()
        .filter(|root| !others.iter().any(|other| other != *root && root.starts_with(other)))
        .cloned()
        .collect();

    // A deferred path needs its mount point; one outside every hidden folder, or shown anyway, is visible.
    let deferred: Vec<PathBuf> = resolver
        .folders(deferred.iter().cloned())
        .into_iter()
        .filter(|path| outer.iter().any(|root| path.starts_with(root)))
        .filter(|path| !shown.iter().any(|(shown, _)| path.starts_with(shown)))
        .collect();
    let mut mount_points: Vec<MountPoint> = Vec::new();
    let passages = passages.iter().filter(|passage| !protected.iter().any(|root| passage.starts_with(root)));
    for path in shown.iter().map(|(path, _)| path).chain(passages).chain(&deferred) {
        let Some(root) = outer.iter().find(|root| path.starts_with(root)) else { continue };
        let mut current = root.clone();
        let relative = path.strip_prefix(root).expect("beneath its root");
        let count = relative.components().count();
        for (index, component) in relative.components().enumerate() {
            current.push(component);
            let last = index + 1 == count;
            let point = MountPoint { path: c_path(&current)?, folder: !last || resolver.is_dir(path) };
            if !mount_points.iter().any(|seen| seen.path == point.path) {
                mount_points.push(point);
            }
        }
    }
    let trees = vec![-1; shown.len()];
    Ok(ViewPlan {
        hidden: outer.iter().map(|path| c_path(path)).collect::<io::Result<_>>()?,
        mount_points,
        shown: shown
            .into_iter()
            .map(|(path, writable)| Ok(Shown { path: c_path(&path)?, writable }))
            .collect::<io::Result<_>>()?,
        hidden_inside_shown: inner.iter().map(|path| c_path(path)).collect::<io::Result<_>>()?,
        trees,
        // Entered again through the view, where only shown paths resolve: `a/../b` may pass through a hidden `a`.
        working_dir: c_path(&resolver.canonical(working_dir).unwrap_or_else(|| working_dir.to_owned()))?,
        deferred: deferred.iter().map(|path| c_path(path)).collect::<io::Result<_>>()?,
    })
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, reason = "tests make and read their own files in temporary folders")]
mod tests {
    use super::*;

    #[test]
    fn what_is_shown_where_in_which_order() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let (state, repo) = (base.join("state"), base.join("repo"));
        for folder in [
            "state/attempts/a/work/result",
            "state/attempts/a/work/source/secret",
            "elsewhere",
            "repo/lib",
            "sdk",
            "state/datasets/entry",
        ] {
            std::fs::create_dir_all(base.join(folder)).unwrap();
        }
        std::fs::write(base.join("state/tool.py"), "").unwrap();
        std::fs::write(base.join("repo/tool.py"), "").unwrap();
        let source = state.join("attempts/a/work/source");
        let words = [
            format!("{}:/nonexistent", base.join("repo/tool.py").display()),
            base.join("state/tool.py").display().to_string(),
            repo.display().to_string(),
            base.join("sdk").display().to_string(),
            format!("{}/lib/../tool.py", repo.display()),
        ];
        let shows = Shows {
            writable: &[state.join("attempts/a/work/result")],
            readable: &[base.join("elsewhere")],
            deferred: &[state.join("datasets/entry"), base.join("elsewhere")],
        };
        let plan = plan(
            &[state.clone(), source.join("secret")],
            std::slice::from_ref(&repo),
            shows,
            &source,
            &[],
            &words,
            Maker::Orchestrator(None),
        )
        .unwrap();
        let text = |path: &CString| path.to_str().unwrap().to_owned();
        let display = |path: PathBuf| path.display().to_string();
        // The temporary folder is itself beneath /tmp here, which hides it with everything in it.
        let root = ALWAYS_HIDDEN.iter().map(Path::new).find(|root| base.starts_with(root)).unwrap();
        let hidden: Vec<String> = plan.hidden.iter().map(text).collect();
        assert!(hidden.contains(&root.display().to_string()), "{hidden:?}");
        assert!(
            !hidden.iter().any(|path| path.starts_with(&base.display().to_string())),
            "nested in {root:?}: {hidden:?}"
        );
        let shown: Vec<(String, bool)> = plan.shown.iter().map(|shown| (text(&shown.path), shown.writable)).collect();
        // Not the state's tool.py (a protected folder), nor the repository itself (a hidden folder); the SDK beside
        // the repository in /tmp, yes.
        assert_eq!(
            shown,
            [
                (display(base.join("elsewhere")), false),
                (display(base.join("sdk")), false),
                (display(repo.join("tool.py")), false),
                (display(state.join("attempts/a/work/result")), true),
                (display(source.clone()), false),
            ]
        );
        assert_eq!(plan.hidden_inside_shown.iter().map(text).collect::<Vec<_>>(), [display(source.join("secret"))]);
        let tool = plan.mount_points.iter().find(|point| text(&point.path).ends_with("repo/tool.py")).unwrap();
        assert!(!tool.folder, "a file is shown on a file");
        let position =
            |path: &Path| plan.mount_points.iter().position(|point| text(&point.path) == path.display().to_string());
        assert!(position(&state).unwrap() < position(&state.join("attempts")).unwrap());
        assert!(position(&repo.join("lib")).is_some(), "a folder passed through before `..` exists in the view");
        assert_eq!(plan.trees.len(), 5);
        // The dataset is not shown, only its mount point made; a deferred path shown anyway is not deferred.
        assert_eq!(plan.deferred.iter().map(text).collect::<Vec<_>>(), [display(state.join("datasets/entry"))]);
        assert!(position(&state.join("datasets/entry")).is_some_and(|index| plan.mount_points[index].folder));
    }
}
