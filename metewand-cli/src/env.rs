//! `metewand env build|list|prune`: the Python environments workers declare (`python = { requirements = FILE }`),
//! built in the state folder's `envs/`, listed with whether they still match their manifests, and pruned.

use std::path::{Path, PathBuf};

use metewand_campaign::prepared::default_state_dir;
use metewand_runtime::CheckedRepository;
use metewand_runtime::environment::{self, Condition, ENVS_DIR, Pins};

use crate::{Failure, print_out, say};

const LONG_ABOUT: &str = "The Python environments workers declare with `python = { requirements = FILE }` in their
[workers.NAME] table. Metewand builds one virtual environment per declaration (the file's bytes and the python3 on
PATH that builds it) in STATE/envs/<digest>/, with uv when it is on PATH, else python3 -m venv and pip; the worker's
python3 is that environment's. An environment is verified against the manifest of its files before every session:
one changed by hand is refused, and built again by the next `env build`, `run` or `campaign run`. The network is
used while building only. A build interrupted leaves a folder without its manifest, listed as unfinished, never
used, and removed by the next build.

`run` and `campaign run` build what their repository declares before any attempt starts; `env build` does it ahead.";

/// `metewand env`.
#[derive(clap::Args)]
#[command(
    about = "build, list or prune the Python environments workers declare",
    long_about = LONG_ABOUT,
    after_help = "exit statuses: 0 success, 2 usage, repository or I/O error, an unpinned requirement, a package that \
                  cannot be installed or a build that failed (nothing of it is kept)"
)]
pub(crate) struct Args {
    #[command(subcommand)]
    command: EnvCommand,
}

#[derive(clap::Subcommand)]
enum EnvCommand {
    /// build the environments REPO's workers declare (kept when built and verified), one line per step on stderr
    Build(BuildArgs),
    /// list the environments of the state folder: digest, workers of REPO declaring it, size, when built, verified
    List(ListArgs),
    /// remove the environments none of the given repositories declares (or every one, with --all)
    Prune(PruneArgs),
}

#[derive(clap::Args)]
struct BuildArgs {
    /// the benchmark repository (default: the current directory)
    #[arg(value_name = "REPO")]
    repo: Option<PathBuf>,
    /// the state folder (default: REPO/.metewand/)
    #[arg(long, value_name = "STATE")]
    state_dir: Option<PathBuf>,
    /// build from requirements without an exact version (`numpy>=1`); by default, as for campaigns, each must be
    /// pinned (`numpy==2.1.3`)
    #[arg(long)]
    allow_unpinned: bool,
}

#[derive(clap::Args)]
struct ListArgs {
    /// the benchmark repository whose workers are named (default: the current directory)
    #[arg(value_name = "REPO")]
    repo: Option<PathBuf>,
    /// the state folder (default: REPO/.metewand/)
    #[arg(long, value_name = "STATE")]
    state_dir: Option<PathBuf>,
}

#[derive(clap::Args)]
struct PruneArgs {
    /// the repositories whose environments are kept (default: the current directory)
    #[arg(value_name = "REPO")]
    repos: Vec<PathBuf>,
    /// the state folder (default: the first REPO's .metewand/)
    #[arg(long, value_name = "STATE")]
    state_dir: Option<PathBuf>,
    /// remove every environment, whatever declares it
    #[arg(long)]
    all: bool,
}

pub(crate) fn run(args: Args) -> Result<(), Failure> {
    match args.command {
        EnvCommand::Build(args) => {
            let repository = crate::gate::load_with_externals(&repo_or_here(args.repo), &[])?;
            let state_dir = args.state_dir.unwrap_or_else(|| default_state_dir(repository.root()));
            let pins = if args.allow_unpinned { Pins::Optional } else { Pins::Required };
            build_declared("env build", &repository, &state_dir, pins)
        }
        EnvCommand::List(args) => list(args),
        EnvCommand::Prune(args) => prune(args),
    }
}

fn repo_or_here(repo: Option<PathBuf>) -> PathBuf {
    repo.unwrap_or_else(|| PathBuf::from("."))
}

/// Builds (or verifies and keeps) every environment `repository`'s workers declare, in `state_dir`'s `envs/`,
/// telling each step on stderr; the first failure is one sentence, before any attempt starts.
pub(crate) fn build_declared(
    command: &str,
    repository: &CheckedRepository,
    state_dir: &Path,
    pins: Pins,
) -> Result<(), Failure> {
    let envs = state_dir.join(ENVS_DIR);
    let mut done = std::collections::BTreeSet::new();
    for worker in repository.workers().values() {
        let Some(requirements) = worker.python() else { continue };
        if !done.insert(requirements.bytes()) {
            continue;
        }
        environment::build(requirements, &envs, pins, &mut |line| say(&format!("{command}: {line}")))
            .map_err(|error| Failure::Usage(format!("{command}: worker {:?}: {error}", worker.name())))?;
    }
    Ok(())
}

fn list(args: ListArgs) -> Result<(), Failure> {
    let repo = repo_or_here(args.repo);
    // The workers are named when the repository loads. A state folder given is listed either way; without one, the
    // state folder is the repository's, so a repository that does not load is refused rather than listed as empty.
    let repository = match crate::gate::load_with_externals(&repo, &[]) {
        Ok(repository) => Some(repository),
        Err(failure) if args.state_dir.is_none() => return Err(failure),
        Err(_) => None,
    };
    let state_dir = args.state_dir.unwrap_or_else(|| {
        repository.as_ref().map_or_else(|| default_state_dir(&repo), |repository| default_state_dir(repository.root()))
    });
    let declared = match &repository {
        Some(repository) => {
            environment::declared(repository).map_err(|error| Failure::Usage(format!("env list: {error}")))?
        }
        None => Default::default(),
    };
    let found =
        environment::list(&state_dir.join(ENVS_DIR)).map_err(|error| Failure::Usage(format!("env list: {error}")))?;
    let mut out = String::new();
    for (built, verified) in found {
        let workers = declared.get(&built.digest).map_or_else(|| "-".to_owned(), |names| names.join(","));
        let verified = match verified {
            Condition::Verified => "verified".to_owned(),
            Condition::Changed(problem) => format!("changed ({problem})"),
            Condition::Unfinished => "unfinished (its build was cut short: the next build removes it)".to_owned(),
            Condition::Building => "building".to_owned(),
        };
        out.push_str(&format!(
            "{} {} {} built-unix:{} {} {}\n",
            built.digest,
            if workers.is_empty() { "-" } else { &workers },
            built.bytes,
            built.built_unix,
            built.requirements,
            verified
        ));
    }
    print_out("env list", &out)
}

fn prune(args: PruneArgs) -> Result<(), Failure> {
    let repos = if args.repos.is_empty() { vec![PathBuf::from(".")] } else { args.repos };
    let mut keep = std::collections::BTreeMap::new();
    let mut first_root = None;
    if !args.all || args.state_dir.is_none() {
        for repo in &repos {
            let repository = crate::gate::load_with_externals(repo, &[])?;
            first_root.get_or_insert_with(|| repository.root().to_owned());
            if !args.all {
                keep.extend(
                    environment::declared(&repository)
                        .map_err(|error| Failure::Usage(format!("env prune: {error}")))?,
                );
            }
        }
    }
    let state_dir = match (args.state_dir, first_root) {
        (Some(state_dir), _) => state_dir,
        (None, Some(root)) => default_state_dir(&root),
        (None, None) => return Err(Failure::Usage("env prune: give --state-dir or a repository".to_owned())),
    };
    let removed = environment::prune(&state_dir.join(ENVS_DIR), &keep)
        .map_err(|error| Failure::Usage(format!("env prune: {error}")))?;
    let out: String = removed.iter().map(|digest| format!("removed {digest}\n")).collect();
    print_out("env prune", &out)
}
