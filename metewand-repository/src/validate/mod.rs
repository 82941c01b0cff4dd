//! Worker output validation: [`WorkerOutputValidator`] turns a directory a worker wrote into a
//! [`ValidatedDataset`], [`ValidatedResult`] or [`ValidatedMetrics`], or a [`ValidationError`] saying why not.
//!
//! A successful worker exchange does not make the worker's paths or files trustworthy. In order, validation:
//!
//! 1. checks the manifest path the worker returned as text ([`RelativePath`]) and requires the fixed name
//!    (`dataset-manifest.json`, `result.json`), before any join;
//! 2. walks the output without following links: only regular files and directories; symbolic
//!    links, FIFOs, sockets, devices and names that are not UTF-8 fail;
//! 3. reads the manifest (opened beneath the root one component at a time with `O_NOFOLLOW`, checked on its
//!    descriptor, at most 64 MiB), parses it in the restricted JSON domain and validates it against the public
//!    schema, then checks its `schema` against the selected one and its `data` against the selected schema;
//! 4. checks every declared path as text, refuses duplicates and the manifest declaring itself, and matches the
//!    declarations against the walk: undeclared files, directories holding no declared file, missing files and
//!    files with more than one hard link fail;
//! 5. checks the sum of the declared sizes against the repository's `[limits] output_bytes`, before any declared
//!    file is opened;
//! 6. hashes every declared file in parallel ([`WorkerOutputValidator::with_threads`]): each is opened beneath the
//!    root with `O_NOFOLLOW | O_NONBLOCK`, must be the very file the walk saw (device and inode), a regular file
//!    with one link and the declared size on its descriptor, is streamed through SHA-256, and is checked again
//!    with `fstat` afterwards, so a change of length or type during the read is caught; a cancel flag
//!    ([`WorkerOutputValidator::with_cancel`]) is looked at every [`CANCEL_CHECK_BYTES`] bytes.
//!
//! Nothing is validated from a path that was not walked without following links, and the validated file records
//! are returned in UTF-8 byte order of their paths.

pub(crate) mod error;

use std::collections::BTreeSet;
use std::num::NonZeroUsize;
use std::os::fd::{AsFd, BorrowedFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use metewand_protocol::generated::artifact_manifest::ArtifactManifest;
use metewand_protocol::generated::metrics::Metrics;
use metewand_protocol::generated::result_manifest::ResultManifest;
use metewand_protocol::schema::{self, EmbeddedSchema};
use serde_json::Value;

use crate::files::read::{FileCheck, ReadControl, hash_all, read_checked};
use crate::files::walk::{self, Inventory, OpenError, WalkError, open_root};
pub use crate::files::{
    CANCEL_CHECK_BYTES, DigestParseError, EntryType, Hook, HookPoint, MAX_WALK_DEPTH, PathError, RelativePath,
    Sha256Digest, default_hash_threads,
};
use error::file_error_kind;
pub use error::{Artifact, Change, RootProblem, ValidationError, ValidationErrorKind};

use crate::document::MAX_DOCUMENT_BYTES;
use crate::{CheckedRepository, Dataset, Problem};

/// The fixed name of a dataset's manifest, at the dataset's root.
pub const DATASET_MANIFEST: &str = "dataset-manifest.json";
/// The fixed name of a result's manifest, at the result's root.
pub const RESULT_MANIFEST: &str = "result.json";
/// The fixed name of the evaluator's metrics document, the only file in its private output.
pub const METRICS_FILE: &str = "metrics.json";

/// One validated file: its path relative to the artifact's root, its exact size and its digest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidatedFile {
    path: RelativePath,
    size: u64,
    sha256: Sha256Digest,
}

impl ValidatedFile {
    /// The path relative to the artifact's root.
    pub fn path(&self) -> &RelativePath {
        &self.path
    }
    /// The size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }
    /// The digest of the contents.
    pub fn sha256(&self) -> Sha256Digest {
        self.sha256
    }
}

/// A materializer's output that passed validation.
#[derive(Clone, Debug)]
pub struct ValidatedDataset {
    root: PathBuf,
    manifest: ArtifactManifest,
    manifest_file: ValidatedFile,
    files: Vec<ValidatedFile>,
    schema: String,
}

impl ValidatedDataset {
    /// The dataset's directory.
    pub fn root(&self) -> &Path {
        &self.root
    }
    /// The parsed manifest.
    pub fn manifest(&self) -> &ArtifactManifest {
        &self.manifest
    }
    /// The manifest file's own record.
    pub fn manifest_file(&self) -> &ValidatedFile {
        &self.manifest_file
    }
    /// The declared files, in UTF-8 byte order of their paths.
    pub fn files(&self) -> &[ValidatedFile] {
        &self.files
    }
    /// The id of the output schema the manifest's `data` satisfies.
    pub fn schema(&self) -> &str {
        &self.schema
    }
}

/// Where a result lies in the directory it is validated in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultLayout {
    /// The whole directory (`execute`).
    Whole,
    /// The whole directory but its top-level `checkpoints/`, which holds the checkpoints (a streamed result's final
    /// result).
    Streamed,
    /// `checkpoints/<n>/` beneath it, each component opened without following links (checkpoint `n` of a
    /// streamed result).
    Checkpoint(u64),
}

impl ResultLayout {
    /// The folder the checkpoints of a streamed result are in, at the top of its result directory.
    pub const CHECKPOINTS: &'static str = "checkpoints";
}

/// An implementation's result that passed validation.
#[derive(Clone, Debug)]
pub struct ValidatedResult {
    root: PathBuf,
    base: PathBuf,
    layout: ResultLayout,
    manifest: ResultManifest,
    manifest_file: ValidatedFile,
    files: Vec<ValidatedFile>,
    schema: String,
}

impl ValidatedResult {
    /// The result's directory: the one its manifest's paths are relative to.
    pub fn root(&self) -> &Path {
        &self.root
    }
    /// The directory it was validated in, and where in it the result lies.
    pub fn layout(&self) -> (&Path, ResultLayout) {
        (&self.base, self.layout)
    }
    /// The parsed manifest.
    pub fn manifest(&self) -> &ResultManifest {
        &self.manifest
    }
    /// The manifest file's own record.
    pub fn manifest_file(&self) -> &ValidatedFile {
        &self.manifest_file
    }
    /// The declared files, in UTF-8 byte order of their paths.
    pub fn files(&self) -> &[ValidatedFile] {
        &self.files
    }
    /// The id of the result schema the manifest's `data` satisfies.
    pub fn schema(&self) -> &str {
        &self.schema
    }
}

/// An evaluator's metrics that passed validation.
#[derive(Clone, Debug)]
pub struct ValidatedMetrics {
    root: PathBuf,
    metrics: Metrics,
    file: ValidatedFile,
    schema: String,
}

impl ValidatedMetrics {
    /// The evaluator's private output directory.
    pub fn root(&self) -> &Path {
        &self.root
    }
    /// The parsed metrics envelope.
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }
    /// The metrics document's record.
    pub fn file(&self) -> &ValidatedFile {
        &self.file
    }
    /// The id of the metric schema the envelope's `metrics` satisfies.
    pub fn schema(&self) -> &str {
        &self.schema
    }
}

/// Validates worker output against a checked repository's offline schema catalog.
///
/// ```
/// use std::fs;
/// use metewand_repository::validate::{ValidationErrorKind, WorkerOutputValidator};
/// use metewand_repository::CheckedRepository;
///
/// let repo = tempfile::tempdir().unwrap();
/// fs::create_dir(repo.path().join("judge")).unwrap();
/// fs::write(repo.path().join("metewand.toml"), r#"
/// format = 1
/// [workers.judge]
/// role = "problem_evaluator"
/// command = ["python3", "judge.py"]
/// source = "judge"
/// [problems.p]
/// evaluator = "judge"
/// result_schema = { type = "object" }
/// metric_schema = { type = "object", required = ["rmse"] }
/// "#).unwrap();
/// let repository = CheckedRepository::load(repo.path()).unwrap();
/// let problem = repository.problem("p").unwrap();
/// let validator = WorkerOutputValidator::new(&repository);
///
/// let out = tempfile::tempdir().unwrap();
/// fs::write(out.path().join("metrics.json"), r#"{"metrics": {"rmse": 0.5}}"#).unwrap();
/// let metrics = validator.validate_metrics(problem, out.path()).unwrap();
/// assert_eq!(metrics.metrics().metrics["rmse"], 0.5);
///
/// fs::write(out.path().join("notes.txt"), "hi").unwrap();
/// let error = validator.validate_metrics(problem, out.path()).unwrap_err();
/// assert!(matches!(error.kind(), ValidationErrorKind::ExtraFile { path, .. } if path == "notes.txt"));
/// ```
pub struct WorkerOutputValidator<'r> {
    repository: &'r CheckedRepository,
    threads: NonZeroUsize,
    hook: Option<Hook>,
    cancel: Option<&'r AtomicBool>,
}

impl<'r> WorkerOutputValidator<'r> {
    /// A validator over the repository's catalog, hashing with [`default_hash_threads`] threads.
    pub fn new(repository: &'r CheckedRepository) -> WorkerOutputValidator<'r> {
        WorkerOutputValidator { repository, threads: default_hash_threads(), hook: None, cancel: None }
    }

    /// Sets how many threads hash an artifact's files (at most one per file is used).
    pub fn with_threads(mut self, threads: NonZeroUsize) -> WorkerOutputValidator<'r> {
        self.threads = threads;
        self
    }

    /// Sets a flag that ends validation once set: hashing looks at it every [`CANCEL_CHECK_BYTES`] bytes and the
    /// validation then fails with [`ValidationErrorKind::Cancelled`].
    pub fn with_cancel(mut self, cancel: &'r AtomicBool) -> WorkerOutputValidator<'r> {
        self.cancel = Some(cancel);
        self
    }

    fn control(&self) -> ReadControl<'_> {
        ReadControl { hook: self.hook.as_ref(), cancel: self.cancel }
    }

    /// Installs a test hook, called at each [`HookPoint`].
    #[doc(hidden)]
    pub fn with_hook(mut self, hook: Hook) -> WorkerOutputValidator<'r> {
        self.hook = Some(hook);
        self
    }

    /// Validates a materializer's output directory; `manifest` is the path its `materialize` response returned.
    pub fn validate_dataset(
        &self,
        dataset: &Dataset,
        root: &Path,
        manifest: &str,
    ) -> Result<ValidatedDataset, ValidationError> {
        let selected = dataset.output_schema();
        let fail = |kind| ValidationError::new(Artifact::Dataset, root.to_owned(), kind);
        let checked = self
            .artifact(
                root,
                ResultLayout::Whole,
                manifest,
                DATASET_MANIFEST,
                &schema::ARTIFACT_MANIFEST,
                selected,
                "data",
            )
            .map_err(fail)?;
        let parsed: ArtifactManifest =
            typed(&checked.document, DATASET_MANIFEST, &schema::ARTIFACT_MANIFEST).map_err(fail)?;
        Ok(ValidatedDataset {
            root: root.to_owned(),
            manifest: parsed,
            manifest_file: checked.manifest_file,
            files: checked.files,
            schema: selected.to_owned(),
        })
    }

    /// Validates an implementation's result directory; `manifest` is the path its `execute` response returned.
    pub fn validate_result(
        &self,
        problem: &Problem,
        root: &Path,
        manifest: &str,
    ) -> Result<ValidatedResult, ValidationError> {
        self.validate_result_in(problem, root, ResultLayout::Whole, manifest)
    }

    /// Validates a result where `layout` says it lies in `base`: the whole directory, a streamed result's final
    /// result (whose `checkpoints/` is not its own), or one of its checkpoints (whose manifest is always
    /// `result.json` in its folder).
    pub fn validate_result_in(
        &self,
        problem: &Problem,
        base: &Path,
        layout: ResultLayout,
        manifest: &str,
    ) -> Result<ValidatedResult, ValidationError> {
        let selected = problem.result_schema();
        let root = match layout {
            ResultLayout::Checkpoint(n) => base.join(format!("{}/{n}", ResultLayout::CHECKPOINTS)),
            ResultLayout::Whole | ResultLayout::Streamed => base.to_owned(),
        };
        let fail = |kind| ValidationError::new(Artifact::Result, root.clone(), kind);
        let checked = self
            .artifact(base, layout, manifest, RESULT_MANIFEST, &schema::RESULT_MANIFEST, selected, "data")
            .map_err(fail)?;
        let parsed: ResultManifest =
            typed(&checked.document, RESULT_MANIFEST, &schema::RESULT_MANIFEST).map_err(fail)?;
        Ok(ValidatedResult {
            root: root.clone(),
            base: base.to_owned(),
            layout,
            manifest: parsed,
            manifest_file: checked.manifest_file,
            files: checked.files,
            schema: selected.to_owned(),
        })
    }

    /// Checks that the top-level `checkpoints/` of a streamed result's folder `base` holds the folders of the
    /// `announced` checkpoints (`1/` to `<announced>/`) and nothing else, and is absent when none was announced:
    /// what each holds is its checkpoint's validation's.
    pub fn check_checkpoint_folders(&self, base: &Path, announced: u64) -> Result<(), ValidationError> {
        let fail = |kind| ValidationError::new(Artifact::Result, base.to_owned(), kind);
        let root = self.open_root(base).map_err(fail)?;
        let folder = RelativePath::new(ResultLayout::CHECKPOINTS).expect("a valid name");
        let checkpoints = match walk::open_directory_beneath(root.as_fd(), &folder) {
            Ok(checkpoints) => checkpoints,
            Err(OpenError::Missing) if announced == 0 => return Ok(()),
            Err(error) => return Err(fail(beneath_root_kind(error))),
        };
        let inventory = walk::walk(checkpoints.as_fd(), &[]).map_err(|error| fail(walk_kind(error)))?;
        // Each entry at the top must be the folder of an announced checkpoint, named as its number is written.
        let tops: BTreeSet<&str> = inventory
            .files
            .keys()
            .chain(&inventory.directories)
            .map(|path| path.split_once('/').map_or(path.as_str(), |(top, _)| top))
            .collect();
        let announced_folder = |top: &&str| {
            let number = top.parse::<u64>().ok().filter(|n| (1..=announced).contains(n) && n.to_string() == *top);
            number.is_some() && inventory.directories.contains(*top)
        };
        if let Some(top) = tops.iter().find(|top| !announced_folder(top)) {
            let path = format!("{}/{top}", ResultLayout::CHECKPOINTS);
            return Err(fail(ValidationErrorKind::UnannouncedCheckpoint { path, announced }));
        }
        Ok(())
    }

    /// Validates a result again where it was validated, as it was.
    pub fn revalidate_result(
        &self,
        problem: &Problem,
        original: &ValidatedResult,
    ) -> Result<ValidatedResult, ValidationError> {
        let manifest = original.manifest_file.path().as_str().to_owned();
        self.validate_result_in(problem, &original.base, original.layout, &manifest)
    }

    /// Validates an evaluator's private output directory, which must hold `metrics.json` and nothing else.
    pub fn validate_metrics(&self, problem: &Problem, root: &Path) -> Result<ValidatedMetrics, ValidationError> {
        let selected = problem.metric_schema();
        let fail = |kind| ValidationError::new(Artifact::Metrics, root.to_owned(), kind);
        let (root_fd, inventory) = self.walk(root).map_err(fail)?;
        if let Some(path) = inventory.files.keys().find(|path| path.as_str() != METRICS_FILE) {
            return Err(fail(ValidationErrorKind::ExtraFile { path: path.clone(), expected: METRICS_FILE }));
        }
        if let Some(path) = inventory.directories.first() {
            return Err(fail(ValidationErrorKind::UndeclaredDirectory { path: path.clone() }));
        }
        let path = RelativePath::new(METRICS_FILE).expect("a valid name");
        let (document, file) = self.read_document(root_fd.as_fd(), &inventory, &path).map_err(fail)?;
        let document =
            self.check_document(document, METRICS_FILE, &schema::METRICS, selected, "metrics").map_err(fail)?;
        let metrics: Metrics = typed(&document, METRICS_FILE, &schema::METRICS).map_err(fail)?;
        Ok(ValidatedMetrics { root: root.to_owned(), metrics, file, schema: selected.to_owned() })
    }

    fn walk(&self, root: &Path) -> Result<(std::os::fd::OwnedFd, Inventory), ValidationErrorKind> {
        self.walk_in(root, ResultLayout::Whole)
    }

    /// The walk of the artifact `layout` places in `root`: its own folder, opened beneath `root` without following
    /// links for a checkpoint, and without the top-level `checkpoints/` for a streamed result.
    fn walk_in(
        &self,
        root: &Path,
        layout: ResultLayout,
    ) -> Result<(std::os::fd::OwnedFd, Inventory), ValidationErrorKind> {
        let root_fd = self.open_root(root)?;
        let root_fd = match layout {
            ResultLayout::Checkpoint(n) => {
                let path = RelativePath::new(&format!("{}/{n}", ResultLayout::CHECKPOINTS)).expect("a valid path");
                walk::open_directory_beneath(root_fd.as_fd(), &path).map_err(beneath_root_kind)?
            }
            ResultLayout::Whole | ResultLayout::Streamed => root_fd,
        };
        let top: &[&str] = if layout == ResultLayout::Streamed { &[ResultLayout::CHECKPOINTS] } else { &[] };
        let inventory = walk::walk_without(root_fd.as_fd(), top).map_err(walk_kind)?;
        if let Some(hook) = &self.hook {
            hook(HookPoint::AfterWalk);
        }
        Ok((root_fd, inventory))
    }

    fn open_root(&self, root: &Path) -> Result<std::os::fd::OwnedFd, ValidationErrorKind> {
        open_root(root).map_err(|error| {
            let problem = match error.raw_os_error() {
                Some(code) if code == rustix::io::Errno::LOOP.raw_os_error() => RootProblem::SymbolicLink,
                Some(code) if code == rustix::io::Errno::NOTDIR.raw_os_error() => {
                    if root.symlink_metadata().is_ok_and(|m| m.file_type().is_symlink()) {
                        RootProblem::SymbolicLink
                    } else {
                        RootProblem::NotADirectory
                    }
                }
                _ if error.kind() == std::io::ErrorKind::PermissionDenied => RootProblem::Unreadable(error),
                _ => RootProblem::Unavailable(error),
            };
            ValidationErrorKind::Root { problem }
        })
    }

    /// Reads a document the walk found, with every check of a declared file plus the 64 MiB limit.
    fn read_document(
        &self,
        root: BorrowedFd<'_>,
        inventory: &Inventory,
        path: &RelativePath,
    ) -> Result<(Vec<u8>, ValidatedFile), ValidationErrorKind> {
        let Some(walked) = inventory.files.get(path.as_str()) else {
            if inventory.directories.contains(path.as_str()) {
                return Err(ValidationErrorKind::NotRegularFile {
                    path: path.to_string(),
                    found: EntryType::Directory,
                });
            }
            return Err(ValidationErrorKind::ManifestMissing { path: path.to_string() });
        };
        let check =
            FileCheck { path, walked, size: None, sha256: None, single_link: true, max_size: Some(MAX_DOCUMENT_BYTES) };
        let mut bytes = Vec::with_capacity(usize::try_from(walked.size.min(MAX_DOCUMENT_BYTES)).unwrap_or(0));
        let mut buffer = vec![0; 64 << 10];
        let hashed = read_checked(root, &check, &mut buffer, Some(&mut bytes), self.control())
            .map_err(|error| file_error_kind(path.as_str(), error))?;
        Ok((bytes, ValidatedFile { path: path.clone(), size: hashed.size, sha256: hashed.sha256 }))
    }

    /// Parses a document, validates it against its public schema, checks its `schema` member against the selected
    /// schema and validates its `member` (`data` or `metrics`) against the selected schema.
    fn check_document(
        &self,
        bytes: Vec<u8>,
        path: &str,
        public: &EmbeddedSchema,
        selected: &str,
        member: &str,
    ) -> Result<Value, ValidationErrorKind> {
        let catalog = self.repository.catalog();
        let document = metewand_protocol::parse(&bytes)
            .map_err(|error| ValidationErrorKind::Json { path: path.to_owned(), error })?;
        drop(bytes);
        catalog.validate(public.id, &document).map_err(|diagnostics| ValidationErrorKind::Schema {
            path: path.to_owned(),
            schema: public.id.to_owned(),
            diagnostics,
        })?;
        if let Some(Value::String(named)) = document.get("schema")
            && named != selected
        {
            return Err(ValidationErrorKind::SchemaMismatch {
                path: path.to_owned(),
                named: named.clone(),
                selected: selected.to_owned(),
            });
        }
        let data = document.get(member).expect("the public schema requires it");
        catalog.validate(selected, data).map_err(|diagnostics| ValidationErrorKind::Schema {
            path: path.to_owned(),
            schema: selected.to_owned(),
            diagnostics: diagnostics
                .into_iter()
                .map(|mut diagnostic| {
                    diagnostic.instance_path = format!("/{member}{}", diagnostic.instance_path);
                    diagnostic
                })
                .collect(),
        })?;
        Ok(document)
    }

    /// Everything a dataset and a result share: the manifest path, the walk, the manifest document, the
    /// declarations against the walk, and the checked reads.
    #[allow(clippy::too_many_arguments, reason = "one private function shared by datasets and results")]
    fn artifact(
        &self,
        root: &Path,
        layout: ResultLayout,
        returned: &str,
        fixed: &'static str,
        public: &EmbeddedSchema,
        selected: &str,
        member: &str,
    ) -> Result<CheckedArtifact, ValidationErrorKind> {
        let manifest_path = RelativePath::new(returned)
            .map_err(|reason| ValidationErrorKind::ManifestPath { path: returned.to_owned(), reason })?;
        if manifest_path.as_str() != fixed {
            return Err(ValidationErrorKind::ManifestName { path: returned.to_owned(), expected: fixed });
        }
        let (root_fd, inventory) = self.walk_in(root, layout)?;
        let (bytes, manifest_file) = self.read_document(root_fd.as_fd(), &inventory, &manifest_path)?;
        let document = self.check_document(bytes, fixed, public, selected, member)?;

        // The declarations, as text.
        let records = document["files"].as_array().expect("the public schema requires an array");
        let mut declared: Vec<(RelativePath, u64, Sha256Digest)> = Vec::with_capacity(records.len());
        let mut seen = BTreeSet::new();
        for record in records {
            let text = record["path"].as_str().expect("the public schema requires a string");
            let path = RelativePath::new(text)
                .map_err(|reason| ValidationErrorKind::InvalidPath { path: text.to_owned(), reason })?;
            if !seen.insert(text) {
                return Err(ValidationErrorKind::DuplicatePath { path: text.to_owned() });
            }
            if path == manifest_path {
                return Err(ValidationErrorKind::ManifestDeclaresItself { path: text.to_owned() });
            }
            let size = record["size"].as_u64().expect("the public schema requires a safe integer");
            let sha256 = record["sha256"]
                .as_str()
                .and_then(|digest| digest.parse().ok())
                .expect("the public schema requires 64 lowercase hex digits");
            declared.push((path, size, sha256));
        }
        declared.sort_by(|a, b| a.0.as_str().as_bytes().cmp(b.0.as_str().as_bytes()));

        // Every file the data names (a `"format": "metewand-file"` string of the selected schema) is declared: a
        // result that names a file it did not write is the implementation's invalid output, not an evaluator's
        // crash later.
        let data = &document[member];
        for (pointer, named) in self.repository.catalog().named_files(selected, data) {
            if !declared.iter().any(|(path, _, _)| path.as_str() == named) {
                return Err(ValidationErrorKind::NamedFileMissing {
                    pointer: format!("/{member}{pointer}"),
                    path: named,
                });
            }
        }

        // The declared sizes against the repository's limit, before a byte of the files is read.
        let limit = self.repository.limits().output_bytes;
        let total = declared.iter().fold(0u64, |total, (_, size, _)| total.saturating_add(*size));
        if total > limit {
            return Err(ValidationErrorKind::OutputTooLarge { declared: total, limit });
        }

        // The declarations against the walk.
        for (path, _, _) in &declared {
            match inventory.files.get(path.as_str()) {
                Some(walked) if walked.nlink != 1 => {
                    return Err(ValidationErrorKind::MultipleLinks { path: path.to_string(), links: walked.nlink });
                }
                Some(_) => {}
                None if inventory.directories.contains(path.as_str()) => {
                    return Err(ValidationErrorKind::NotRegularFile {
                        path: path.to_string(),
                        found: EntryType::Directory,
                    });
                }
                None => return Err(ValidationErrorKind::MissingFile { path: path.to_string() }),
            }
        }
        if let Some(path) = inventory.files.keys().find(|path| path.as_str() != fixed && !seen.contains(path.as_str()))
        {
            return Err(ValidationErrorKind::UndeclaredFile { path: path.clone() });
        }
        let needed: BTreeSet<&str> = declared.iter().flat_map(|(path, _, _)| path.ancestors()).collect();
        if let Some(path) = inventory.directories.iter().find(|directory| !needed.contains(directory.as_str())) {
            return Err(ValidationErrorKind::UndeclaredDirectory { path: path.clone() });
        }

        // The checked reads, in parallel.
        let checks: Vec<FileCheck<'_>> = declared
            .iter()
            .map(|(path, size, sha256)| FileCheck {
                path,
                walked: &inventory.files[path.as_str()],
                size: Some(*size),
                sha256: Some(*sha256),
                single_link: true,
                max_size: None,
            })
            .collect();
        let hashed = hash_all(root_fd.as_fd(), &checks, self.threads, self.control())
            .map_err(|(index, error)| file_error_kind(declared[index].0.as_str(), error))?;
        let files = declared
            .into_iter()
            .zip(hashed)
            .map(|((path, _, _), hashed)| ValidatedFile { path, size: hashed.size, sha256: hashed.sha256 })
            .collect();
        Ok(CheckedArtifact { document, manifest_file, files })
    }
}

/// Why a walk of an output stopped, as the validation error it is.
fn walk_kind(error: WalkError) -> ValidationErrorKind {
    match error {
        WalkError::NonUtf8 { path } => ValidationErrorKind::NonUtf8Name { path },
        WalkError::Special { path, found } => ValidationErrorKind::SpecialEntry { path, found },
        WalkError::TooDeep { path } => ValidationErrorKind::TooDeep { path },
        WalkError::Changed { path } => ValidationErrorKind::Changed { path, change: Change::Vanished },
        WalkError::Io { path, source } => error::io_kind(path, source),
    }
}

/// Why a folder beneath an output's root (a checkpoint's, or `checkpoints/`) could not be opened, as a problem of the
/// root of what is validated there.
fn beneath_root_kind(error: OpenError) -> ValidationErrorKind {
    let problem = match error {
        OpenError::Missing => RootProblem::Unavailable(std::io::ErrorKind::NotFound.into()),
        OpenError::SymbolicLink => RootProblem::SymbolicLink,
        OpenError::NotADirectory { .. } => RootProblem::NotADirectory,
        OpenError::Io(error) => RootProblem::Unavailable(error),
    };
    ValidationErrorKind::Root { problem }
}

struct CheckedArtifact {
    document: Value,
    manifest_file: ValidatedFile,
    files: Vec<ValidatedFile>,
}

/// Converts a document that passed its public schema into its generated type.
fn typed<T: serde::de::DeserializeOwned>(
    document: &Value,
    path: &str,
    public: &EmbeddedSchema,
) -> Result<T, ValidationErrorKind> {
    T::deserialize(document).map_err(|error| ValidationErrorKind::Schema {
        path: path.to_owned(),
        schema: public.id.to_owned(),
        diagnostics: vec![metewand_protocol::decode::SchemaDiagnostic {
            instance_path: String::new(),
            message: error.to_string(),
        }],
    })
}
