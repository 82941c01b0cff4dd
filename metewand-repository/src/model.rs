//! The checked repository and what it declares: workers, datasets, problems, implementations, budgets, the
//! options of a check.

use super::*;

/// The repository's definition file, at its root.
pub const MANIFEST_FILE: &str = "metewand.toml";

/// Names skipped at every level of a source directory, whatever they are.
pub const SKIPPED_NAMES: [&str; 3] = [".git", ".metewand", "__pycache__"];

/// How a repository is checked.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// How many threads hash source files; by default [`default_hash_threads`].
    pub hash_threads: NonZeroUsize,
}

impl Default for CheckOptions {
    fn default() -> CheckOptions {
        CheckOptions { hash_threads: default_hash_threads() }
    }
}

/// The scientific timing envelopes of `[budgets]`; `None` is no envelope.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Budgets {
    /// The materializer's `materialize` request.
    pub materialization: Option<Duration>,
    /// The implementation's `prepare` and `execute` requests.
    pub implementation: Option<Duration>,
    /// The evaluator's `evaluate` request.
    pub evaluation: Option<Duration>,
}

/// The limits of `[limits]`: one session's, each with its documented default when the repository does not set it.
pub use crate::protocol::declared::Limits;

/// A checked `[workers.NAME]`: one process command serving one role.
#[derive(Clone, Debug)]
pub struct Worker {
    pub(super) name: String,
    pub(super) role: Role,
    pub(super) command: Vec<String>,
    pub(super) env: BTreeMap<String, String>,
    pub(super) network: bool,
    pub(super) syscalls: SyscallGroups,
    pub(super) seed_independent: bool,
    pub(super) adapter: bool,
    pub(super) result_data: Option<String>,
    pub(super) source: String,
    pub(super) source_path: PathBuf,
    pub(super) source_tree: SourceTree,
    pub(super) includes: Vec<Include>,
    pub(super) identity: WorkerId,
    pub(super) environment: Option<files::Sha256Digest>,
    pub(super) expanded_command: Vec<OsString>,
    pub(super) expanded_env: BTreeMap<String, OsString>,
    pub(super) base: PathBuf,
    pub(super) external: Option<PathBuf>,
    pub(super) python: Option<PythonRequirements>,
}

impl Worker {
    /// The worker's name in `metewand.toml`.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The role it serves.
    pub fn role(&self) -> Role {
        self.role
    }
    /// Its argv as declared, before `${repo}` expansion.
    pub fn command(&self) -> &[String] {
        &self.command
    }
    /// Its environment as declared, before `${repo}` expansion.
    pub fn env(&self) -> &BTreeMap<String, String> {
        &self.env
    }
    /// Whether it declared `network = true`: only then may it bind or connect TCP sockets (where the kernel can
    /// deny them). Part of its identity.
    pub fn network(&self) -> bool {
        self.network
    }
    /// The groups of system calls it declared (`syscalls = [...]`), which its filter then allows (see
    /// [`SyscallGroup`](crate::protocol::declared::SyscallGroup)). Part of its identity.
    pub fn syscalls(&self) -> SyscallGroups {
        self.syscalls
    }
    /// Whether it declared `deterministic = "seed-independent"`: its output does not depend on its seed (an exact
    /// solver), so the conformance kit expects one output for two seeds. Not part of its identity: it changes no
    /// run, only what a check expects.
    pub fn seed_independent(&self) -> bool {
        self.seed_independent
    }

    /// Whether Metewand's command adapter runs the command once per request (`adapter = "command"`), rather than
    /// the command speaking the protocol itself.
    pub fn command_adapter(&self) -> bool {
        self.adapter
    }

    /// A command worker's `result_data`: the file in the folder its command writes that holds the manifest's data
    /// (`None`: the command's stdout).
    pub fn result_data(&self) -> Option<&str> {
        self.result_data.as_deref()
    }
    /// Its argv with `${repo}` expanded: what is run.
    pub fn expanded_command(&self) -> &[OsString] {
        &self.expanded_command
    }
    /// Its environment with `${repo}` expanded: what the process gets beside the allowlist.
    pub fn expanded_env(&self) -> &BTreeMap<String, OsString> {
        &self.expanded_env
    }
    /// Its source directory as declared, relative to the repository (`.` for the repository itself).
    pub fn source(&self) -> &str {
        &self.source
    }
    /// Its source directory's absolute path.
    pub fn source_path(&self) -> &Path {
        &self.source_path
    }
    /// The hashed source tree.
    pub fn source_tree(&self) -> &SourceTree {
        &self.source_tree
    }
    /// Its `include` folders, in declaration order: shared code copied beside its source, part of its identity.
    pub fn includes(&self) -> &[Include] {
        &self.includes
    }
    /// The resolved worker identity.
    pub fn identity(&self) -> &WorkerId {
        &self.identity
    }
    /// The digest of the Python environment its interpreter imports, read when the repository was checked, for a
    /// worker that declared `identity = ["environment"]` (part of its identity); for one that also declares
    /// `python = { requirements = ... }`, the digest of that declaration ([`PythonRequirements::declaration_digest`]);
    /// `None` otherwise.
    pub fn identity_environment(&self) -> Option<files::Sha256Digest> {
        self.environment
    }
    /// The folder its source directory and include folders are relative to: the repository's root, or the external
    /// folder that declared it.
    pub fn base(&self) -> &Path {
        &self.base
    }
    /// The external folder that declared it (its canonical path), `None` for a worker of the repository.
    pub fn external(&self) -> Option<&Path> {
        self.external.as_deref()
    }

    /// The Python environment it declares (`python = { requirements = ... }`), which Metewand builds and whose
    /// `python3` it runs; `None` when it runs the `python3` on `PATH` (or no Python at all).
    pub fn python(&self) -> Option<&PythonRequirements> {
        self.python.as_ref()
    }
}

/// A worker's `python = { requirements = FILE }`: the file as declared (a requirements file, or a `pyproject.toml`
/// whose `[project] dependencies` are read) and the bytes it held when the repository was checked, which (with the
/// Python that builds it) name the environment built from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PythonRequirements {
    pub(super) path: String,
    pub(super) file: PathBuf,
    pub(super) bytes: Vec<u8>,
    pub(super) dependencies: Option<Vec<String>>,
}

impl PythonRequirements {
    /// The file as declared, relative to the worker's base (the repository, or the external folder that declared it).
    pub fn path(&self) -> &str {
        &self.path
    }
    /// The file's absolute path: what relative paths in its option lines (`--find-links DIR`) are relative to.
    pub fn file(&self) -> &Path {
        &self.file
    }
    /// Its bytes when the repository was checked.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }
    /// For a `pyproject.toml`, its `[project] dependencies`, each a requirement; `None` for a requirements file.
    pub fn pyproject_dependencies(&self) -> Option<&[String]> {
        self.dependencies.as_deref()
    }
    /// The digest of the declaration, what `identity = ["environment"]` adds to the worker's identity: the SHA-256
    /// of the requirements file's bytes, or of a pyproject's dependencies a line each (so that its other tables
    /// change no id). The Python that builds the environment is not in it: ids stay a function of the repository.
    pub fn declaration_digest(&self) -> files::Sha256Digest {
        match &self.dependencies {
            Some(_) => files::Sha256Digest::of(self.requirements_text().as_bytes()),
            None => files::Sha256Digest::of(&self.bytes),
        }
    }
    /// The requirements as a requirements file holds them: the file's text, or a pyproject's dependencies a line each.
    pub fn requirements_text(&self) -> String {
        match &self.dependencies {
            Some(dependencies) => dependencies.iter().map(|requirement| format!("{requirement}\n")).collect(),
            None => String::from_utf8_lossy(&self.bytes).into_owned(),
        }
    }
}

/// One folder of a worker's `include`: code it shares with other workers, copied (read-only, like the source)
/// into the worker's copy of its source under the folder's last name.
#[derive(Clone, Debug)]
pub struct Include {
    pub(super) path: String,
    pub(super) name: String,
    pub(super) tree: SourceTree,
}

impl Include {
    /// The folder as declared, relative to the repository.
    pub fn path(&self) -> &str {
        &self.path
    }
    /// Its name in the worker's copy: the folder's last name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The hashed tree.
    pub fn tree(&self) -> &SourceTree {
        &self.tree
    }
}

/// A checked `[datasets.NAME]`.
#[derive(Clone, Debug)]
pub struct Dataset {
    pub(super) name: Name,
    pub(super) materializer: String,
    pub(super) materializer_identity: WorkerId,
    pub(super) parameters: JsonObject,
    pub(super) parameters_schema: Option<String>,
    pub(super) output_schema: String,
    pub(super) schemas: std::sync::Arc<identity::SchemaClosure>,
    pub(super) grid: BTreeMap<String, Value>,
}

impl Dataset {
    /// The dataset's name.
    pub fn name(&self) -> &str {
        self.name.as_str()
    }
    /// The dataset's name as the records hold it.
    pub fn checked_name(&self) -> &Name {
        &self.name
    }
    /// The name of its materializer worker.
    pub fn materializer(&self) -> &str {
        &self.materializer
    }
    /// Its parameters (an empty object when none are declared).
    pub fn parameters(&self) -> &JsonObject {
        &self.parameters
    }
    /// The id of its parameters' schema, if declared.
    pub fn parameters_schema(&self) -> Option<&str> {
        self.parameters_schema.as_deref()
    }
    /// A grid's point: its values by key (empty for a definition without a grid).
    pub fn grid_values(&self) -> &BTreeMap<String, Value> {
        &self.grid
    }
    /// The id of the schema its manifest's `data` must satisfy.
    pub fn output_schema(&self) -> &str {
        &self.output_schema
    }
    /// The dataset key for a seed.
    pub fn key(&self, seed: SafeUint) -> DatasetKey {
        dataset_key(
            &self.materializer_identity,
            &self.output_schema,
            &self.parameters,
            self.parameters_schema.as_deref(),
            &self.schemas,
            seed,
        )
    }
}

/// A checked `[problems.NAME]`: a problem contract.
#[derive(Clone, Debug)]
pub struct Problem {
    pub(super) name: Name,
    pub(super) evaluator: String,
    pub(super) parameters: JsonObject,
    pub(super) parameters_schema: Option<String>,
    pub(super) result_schema: String,
    pub(super) metric_schema: String,
    pub(super) contract_id: ProblemContractId,
    pub(super) timed: Timed,
    pub(super) profile: Option<u64>,
    pub(super) rejudge_tolerance: Option<f64>,
    pub(super) grid: BTreeMap<String, Value>,
}

/// The most checkpoints a problem's `profile` may allow a stream.
pub const MAX_CHECKPOINTS: u64 = 1000;

impl Problem {
    /// With `rejudge_tolerance = T`: how far a numeric metric judged again may differ from the recorded one,
    /// relative to the larger of their magnitudes and 1 (`None`: they must be equal). Not part of the contract.
    pub fn rejudge_tolerance(&self) -> Option<f64> {
        self.rejudge_tolerance
    }

    /// With `profile = { checkpoints = N }`: the most checkpoints a streamed execution may send. An implementation
    /// that declares `streaming_profile` streams on such a problem; not part of its contract, since a one-shot
    /// implementation solves the same problem.
    pub fn profile(&self) -> Option<u64> {
        self.profile
    }
    /// The most checkpoints `implementation` streams on this problem: the `profile`'s, when the implementation
    /// declares `streaming_profile`; `None` when it executes in one shot.
    pub fn profile_for(&self, implementation: &Implementation) -> Option<u64> {
        self.profile.filter(|_| implementation.capabilities.contains(&Capability::StreamingProfile))
    }
    /// What its implementations are ranked by (`timed`, default `execute`): not part of its contract, since
    /// it changes nothing a worker does.
    pub fn timed(&self) -> Timed {
        self.timed
    }
    /// The problem's name.
    pub fn name(&self) -> &str {
        self.name.as_str()
    }
    /// The problem's name as the records hold it.
    pub fn checked_name(&self) -> &Name {
        &self.name
    }
    /// The name of its evaluator worker.
    pub fn evaluator(&self) -> &str {
        &self.evaluator
    }
    /// Its parameters (an empty object when none are declared).
    pub fn parameters(&self) -> &JsonObject {
        &self.parameters
    }
    /// The id of its parameters' schema, if declared.
    pub fn parameters_schema(&self) -> Option<&str> {
        self.parameters_schema.as_deref()
    }
    /// A grid's point: its values by key (empty for a definition without a grid).
    pub fn grid_values(&self) -> &BTreeMap<String, Value> {
        &self.grid
    }
    /// The id of the schema a result manifest's `data` must satisfy.
    pub fn result_schema(&self) -> &str {
        &self.result_schema
    }
    /// The id of the schema a metrics envelope's `metrics` must satisfy.
    pub fn metric_schema(&self) -> &str {
        &self.metric_schema
    }
    /// The problem contract id.
    pub fn contract_id(&self) -> &ProblemContractId {
        &self.contract_id
    }
}

/// A checked `[implementations.NAME]`.
#[derive(Clone, Debug)]
pub struct Implementation {
    pub(super) name: Name,
    pub(super) worker: String,
    pub(super) parameters: JsonObject,
    pub(super) parameters_schema: Option<String>,
    pub(super) capabilities: Vec<Capability>,
    pub(super) grid: BTreeMap<String, Value>,
    pub(super) external: Option<PathBuf>,
}

impl Implementation {
    /// The external folder that declared it (its canonical path: `metewand run --implementation-from`, `campaign
    /// run --with`), `None` for an implementation of the repository.
    pub fn external(&self) -> Option<&Path> {
        self.external.as_deref()
    }
    /// The implementation's name.
    pub fn name(&self) -> &str {
        self.name.as_str()
    }
    /// The implementation's name as the records hold it.
    pub fn checked_name(&self) -> &Name {
        &self.name
    }
    /// The name of its worker.
    pub fn worker(&self) -> &str {
        &self.worker
    }
    /// Its parameters (an empty object when none are declared).
    pub fn parameters(&self) -> &JsonObject {
        &self.parameters
    }
    /// The id of its parameters' schema, if declared.
    pub fn parameters_schema(&self) -> Option<&str> {
        self.parameters_schema.as_deref()
    }
    /// A grid's point: its values by key (empty for a definition without a grid).
    pub fn grid_values(&self) -> &BTreeMap<String, Value> {
        &self.grid
    }
    /// The capabilities the plan selects (`["one_shot"]` unless declared).
    pub fn capabilities(&self) -> &[Capability] {
        &self.capabilities
    }
}

/// A benchmark repository whose `metewand.toml` passed every check.
#[derive(Debug)]
pub struct CheckedRepository {
    pub(super) root: PathBuf,
    pub(super) catalog: SchemaCatalog,
    pub(super) timeouts: BTreeMap<Phase, Duration>,
    pub(super) budgets: Budgets,
    pub(super) limits: Limits,
    /// The keys of `[limits]` the repository sets itself.
    pub(super) limits_declared: BTreeSet<&'static str>,
    pub(super) workers: BTreeMap<String, Worker>,
    pub(super) datasets: BTreeMap<String, Dataset>,
    pub(super) problems: BTreeMap<String, Problem>,
    pub(super) implementations: BTreeMap<String, Implementation>,
    pub(super) campaigns: campaign::Campaigns,
    pub(super) dataset_names: Names,
    pub(super) problem_names: Names,
    pub(super) implementation_names: Names,
    /// The external folders joined to the repository, in the order they were added.
    pub(super) externals: Vec<PathBuf>,
    /// Each external folder's identity ([`identity::external_identity`]), by its canonical path.
    pub(super) external_identities: BTreeMap<PathBuf, files::Sha256Digest>,
}

impl CheckedRepository {
    /// Loads and checks the repository at `path` with the default options.
    pub fn load(path: &Path) -> Result<CheckedRepository, CheckError> {
        CheckedRepository::load_with(path, &CheckOptions::default())
    }

    /// Loads and checks the repository at `path`.
    pub fn load_with(path: &Path, options: &CheckOptions) -> Result<CheckedRepository, CheckError> {
        Loader::load(path, options)
    }

    /// The repository's canonical absolute path (what `${repo}` expands to).
    pub fn root(&self) -> &Path {
        &self.root
    }
    /// The schema catalog.
    pub fn catalog(&self) -> &SchemaCatalog {
        &self.catalog
    }
    /// The operational limits `[timeouts]` declares, by phase; phases it leaves out are absent.
    pub fn timeouts(&self) -> &BTreeMap<Phase, Duration> {
        &self.timeouts
    }
    /// The scientific envelopes `[budgets]` declares.
    pub fn budgets(&self) -> Budgets {
        self.budgets
    }
    /// The size limits `[limits]` sets, over their defaults.
    pub fn limits(&self) -> Limits {
        self.limits
    }
    /// Whether `[limits]` sets `key` (`output_bytes`, `memory_bytes`, `processes`, `cpu_seconds`) itself, rather than leaving its
    /// default: a limit it sets must be held wherever its workers run, or refused.
    pub fn declares_limit(&self, key: &str) -> bool {
        self.limits_declared.contains(key)
    }
    /// Every worker, by name.
    pub fn workers(&self) -> &BTreeMap<String, Worker> {
        &self.workers
    }
    /// Every dataset, by name.
    pub fn datasets(&self) -> &BTreeMap<String, Dataset> {
        &self.datasets
    }
    /// Every problem, by name.
    pub fn problems(&self) -> &BTreeMap<String, Problem> {
        &self.problems
    }
    /// Every implementation, by name.
    pub fn implementations(&self) -> &BTreeMap<String, Implementation> {
        &self.implementations
    }
    /// Every `[campaigns.NAME]`, by name.
    pub fn campaigns(&self) -> &BTreeMap<String, CampaignSpec> {
        &self.campaigns
    }
    /// The campaign with this name.
    pub fn campaign(&self, name: &str) -> Option<&CampaignSpec> {
        self.campaigns.get(name)
    }
    /// The worker with this name.
    pub fn worker(&self, name: &str) -> Option<&Worker> {
        self.workers.get(name)
    }
    /// The dataset with this name.
    pub fn dataset(&self, name: &str) -> Option<&Dataset> {
        self.datasets.get(name)
    }
    /// The problem with this name.
    pub fn problem(&self, name: &str) -> Option<&Problem> {
        self.problems.get(name)
    }
    /// The implementation with this name.
    pub fn implementation(&self, name: &str) -> Option<&Implementation> {
        self.implementations.get(name)
    }
    /// The names of one kind of definition: those without a grid, and the grids.
    pub fn names(&self, kind: DefinitionKind) -> &Names {
        match kind {
            DefinitionKind::Dataset => &self.dataset_names,
            DefinitionKind::Problem => &self.problem_names,
            DefinitionKind::Implementation => &self.implementation_names,
        }
    }
    /// The names of the definitions of `kind` a selection names ([`Names::select`]): `D` every point of grid D (or
    /// D itself), `D[key=value]` some points.
    pub fn select(&self, kind: DefinitionKind, selection: &str) -> Result<Vec<&str>, SelectionError> {
        self.names(kind).select(kind, selection)
    }
}
