//! What the commands share before anything starts: the repository loaded (a check error said with the file as the
//! user can open it), the preflight checks' refusals as one sentence and their warnings as one line each, and the
//! signal handlers that cancel a run, and the `--measure` flag `report` and `compare` share. The decisions are the runtime's ([`metewand_runtime::preflight`]); this
//! module only says them, so that no command module uses another's.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, LazyLock};

use metewand_runtime::preflight::{self, PreflightError, UnenforcedLimit};
use metewand_runtime::repository::CheckOptions;
use metewand_runtime::session::ConfinementReport;
use metewand_runtime::{CheckError, CheckedRepository};
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};

use crate::{Failure, say};

/// Set by the SIGINT, SIGTERM and SIGHUP handlers; the runner ends the running worker and records `cancelled`.
/// The runtime takes a `&'static AtomicBool`; signal-hook holds its own `Arc` of the same flag.
static CANCEL: LazyLock<Arc<AtomicBool>> = LazyLock::new(|| Arc::new(AtomicBool::new(false)));

/// Ctrl-C, a `kill`, and a closed terminal or a lost ssh connection all cancel the attempt the same way.
const CANCELLING_SIGNALS: [std::ffi::c_int; 3] = [SIGINT, SIGTERM, SIGHUP];

pub(crate) fn install_signal_handlers() -> Result<&'static AtomicBool, Failure> {
    for signal in CANCELLING_SIGNALS {
        signal_hook::flag::register(signal, Arc::clone(&CANCEL))
            .map_err(|error| Failure::Usage(format!("run: cannot install a signal handler: {error}")))?;
    }
    Ok(&CANCEL)
}

/// Before anything is created: the preflight checks' error as one sentence of `command`, exit 2.
pub(crate) fn preflight_failure(command: &str) -> impl Fn(PreflightError) -> Failure + '_ {
    move |error| Failure::Usage(format!("{command}: {error}"))
}

/// Before anything is created: with `--require-confinement`, refuses when `missing` (what the workers would lack
/// of full confinement) is not empty; otherwise prints one warning line naming it, if there is anything.
pub(crate) fn confinement_gate(command: &str, missing: &[&'static str], require: bool) -> Result<(), Failure> {
    preflight::require_confinement(missing, require).map_err(preflight_failure(command))?;
    if !missing.is_empty() {
        warn_weaker_confinement(command, missing);
    }
    Ok(())
}

/// Before anything is created: refuses a limit the repository sets that `expected` (each worker's confinement here)
/// would not hold, unless `allow`, when it prints one warning line for each instead.
pub(crate) fn limits_gate(
    command: &str,
    repository: &CheckedRepository,
    expected: &[(String, ConfinementReport)],
    allow: bool,
) -> Result<(), Failure> {
    let unenforced =
        preflight::unenforced_limits(repository, expected.iter().map(|(name, report)| (name.as_str(), report)));
    preflight::require_enforced_limits(&unenforced, allow).map_err(preflight_failure(command))?;
    for limit in &unenforced {
        warn_unenforced_limit(command, limit);
    }
    Ok(())
}

/// The warning line of `command` for workers that run with weaker than full confinement: `missing` says how.
pub(crate) fn warn_weaker_confinement(command: &str, missing: &[&'static str]) {
    say(&format!("{command}: warning: workers run with weaker than full confinement: {}", missing.join(", ")));
}

/// The warning line of `command` for a limit the repository sets that is not held for one of its workers here.
pub(crate) fn warn_unenforced_limit(command: &str, limit: &UnenforcedLimit) {
    say(&format!(
        "{command}: warning: [limits] {} = {} is not held for worker {:?}: {}",
        limit.limit, limit.value, limit.worker, limit.reason
    ));
}

/// Loads a repository, turning a check error into one sentence whose file is named as the user can open it.
pub(crate) fn load(repo: &Path) -> Result<CheckedRepository, Failure> {
    CheckedRepository::load(repo).map_err(|error| Failure::Usage(describe(repo, &error)))
}

/// The repository at `repo` with each external folder of `externals` joined to it (`--implementation-from`,
/// `--with`): a mistake in a folder's `metewand-implementation.toml` is said with that file's path as given.
pub(crate) fn load_with_externals(repo: &Path, externals: &[PathBuf]) -> Result<CheckedRepository, Failure> {
    let mut repository = load(repo)?;
    for folder in externals {
        repository
            .add_external(folder, &CheckOptions::default())
            .map_err(|error| Failure::Usage(describe(Path::new(""), &error)))?;
    }
    Ok(repository)
}

/// `REPO/metewand.toml:12:9: ...`: the location joined to the repository path the user gave.
fn describe(repo: &Path, error: &CheckError) -> String {
    let location = error.location();
    let file: PathBuf = if location.file.is_relative() { repo.join(&location.file) } else { location.file.clone() };
    match location.position {
        Some((line, column)) => format!("{}:{line}:{column}: {}", file.display(), error.kind()),
        None => format!("{}: {}", file.display(), error.kind()),
    }
}

/// What `report` and `compare` rank, tabulate and compare (`--measure`).
#[derive(Clone, Copy, Default, clap::ValueEnum)]
pub(crate) enum MeasureArg {
    /// the executor's time of the problem's timed requests
    #[default]
    Wall,
    /// the CPU time (user and system) of the implementation's whole session
    Cpu,
    /// the implementation's peak resident memory
    Memory,
}

impl MeasureArg {
    /// The library's measure.
    pub(crate) fn measure(self) -> metewand_report::Measure {
        match self {
            MeasureArg::Wall => metewand_report::Measure::Wall,
            MeasureArg::Cpu => metewand_report::Measure::Cpu,
            MeasureArg::Memory => metewand_report::Measure::Memory,
        }
    }
}
