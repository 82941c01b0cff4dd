//! A campaign made ready to run: its plan, its state folder, its folder and the options every attempt of it runs
//! with. `campaign run`, `campaign submit` and a Slurm task all run a [`PreparedCampaign`], so what a worker of a
//! campaign may see is decided here once, whichever route runs it: the campaign folder, with its peers' attempts
//! and its records, is hidden from every worker, besides what every attempt hides (the repository, the state folder
//! and the attempt's own folder).
//!
//! [`PreparedCampaign::new`] makes the checks a run or a submission makes before anything is written (neither
//! folder inside a worker's source, the confinement and the limits the machine gives), in that order, refusing or
//! warning as the caller's [`Refusals`] say; a Slurm task takes its campaign as submitted
//! ([`PreparedCampaign::submitted`]), checked on the submitting machine.

use std::io;
use std::path::{Path, PathBuf};

use metewand_protocol::generated::attempt_record::SessionMode;
use metewand_runtime::attempt::{RunOptions, confinement_shortfalls};
use metewand_runtime::cpus::SlotPlan;
use metewand_runtime::preflight::{self, PreflightError, UnenforcedLimit};
use metewand_runtime::session::{KernelSupport, ProcessIsolation};

use crate::changes::ChangedWorker;
use crate::environment::Environment;
use crate::folder::{CampaignFolder, FolderError};
use crate::plan::CampaignPlan;
use crate::runner::RefusedForReuse;

/// The state folder of the runs of the repository at `root` when none is given: `REPO/.metewand/`.
pub fn default_state_dir(root: &Path) -> PathBuf {
    root.join(".metewand")
}

/// The folder of campaign `name` when none is given: `STATE/campaigns/NAME/`.
pub fn default_folder(state_dir: &Path, name: &str) -> PathBuf {
    state_dir.join("campaigns").join(name)
}

/// Why a campaign cannot be made ready; nothing was started, and nothing written but what the error names.
#[derive(Debug, thiserror::Error)]
pub enum PrepareError {
    /// A check before anything is written refused: a folder inside a worker's source, weaker confinement than
    /// required, a limit this machine would not hold.
    #[error(transparent)]
    Preflight(#[from] PreflightError),
    /// The state folder could not be made, or its absolute path found.
    #[error("cannot create {}: {source}", path.display())]
    StateDir {
        /// The state folder, as given.
        path: PathBuf,
        /// The system's reason.
        source: io::Error,
    },
    /// The campaign folder cannot take the plan (in use, another campaign's, unreadable).
    #[error(transparent)]
    Folder(#[from] FolderError),
}

/// What [`PreparedCampaign::new`] refuses instead of warning of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refusals {
    /// Refuse where a worker would run with weaker than full confinement (`--require-confinement`).
    pub weaker_confinement: bool,
    /// Refuse where a limit the repository sets would not be held for a worker here (unless
    /// `--allow-unenforced-limits`).
    pub unenforced_limits: bool,
}

/// What [`PreparedCampaign::new`] found and let pass, in the order found: said as a warning, never a refusal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrepareWarning<'a> {
    /// What the workers would lack of full confinement here, each weakness once.
    WeakerConfinement(&'a [&'static str]),
    /// A limit the repository sets that would not be held for one of its workers here.
    UnenforcedLimit(&'a UnenforcedLimit),
}

/// A campaign ready to run or submit: its plan, where its records and datasets go, and the options every attempt
/// of it runs with. Its folder is hidden from every worker.
#[derive(Debug)]
pub struct PreparedCampaign<'r> {
    plan: CampaignPlan<'r>,
    state_dir: PathBuf,
    folder: PathBuf,
    options: RunOptions,
}

impl<'r> PreparedCampaign<'r> {
    /// Prepares `plan` to be recorded in `folder`, its datasets in the store of `state_dir`, its workers' processes
    /// kept together as `isolation` says, after the checks a run makes before it writes anything: neither folder
    /// inside a worker's source (`--state-dir`, `--out`), the confinement the machine gives, the limits it
    /// holds, and both folders within the workers' reach. A shortfall `refusals` does not refuse is passed to `warn`.
    pub fn new(
        plan: CampaignPlan<'r>,
        state_dir: PathBuf,
        folder: PathBuf,
        isolation: ProcessIsolation,
        refusals: Refusals,
        warn: &mut dyn FnMut(PrepareWarning<'_>),
    ) -> Result<PreparedCampaign<'r>, PrepareError> {
        let repository = plan.repository();
        for (flag, dir) in [("--state-dir", &state_dir), ("--out", &folder)] {
            preflight::outside_sources(repository, flag, dir)?;
        }
        let prepared = PreparedCampaign::submitted(plan, state_dir, folder, isolation);
        let expected = prepared.plan.expected_confinement(&KernelSupport::probe(), &prepared.options);
        let missing = confinement_shortfalls(expected.iter().map(|(_, report)| report));
        preflight::require_confinement(&missing, refusals.weaker_confinement)?;
        if !missing.is_empty() {
            warn(PrepareWarning::WeakerConfinement(&missing));
        }
        let unenforced =
            preflight::unenforced_limits(repository, expected.iter().map(|(name, report)| (name.as_str(), report)));
        preflight::require_enforced_limits(&unenforced, !refusals.unenforced_limits)?;
        for limit in &unenforced {
            warn(PrepareWarning::UnenforcedLimit(limit));
        }
        let mut folders = vec![("--state-dir", prepared.state_dir.as_path()), ("--out", prepared.folder.as_path())];
        folders.extend(repository.externals().iter().map(|folder| ("--with", folder.as_path())));
        preflight::reachable_by_workers(
            repository,
            expected.iter().map(|(name, report)| (name.as_str(), report)),
            &folders,
        )?;
        Ok(prepared)
    }

    /// A campaign as its submission recorded it, whose checks were made on the submitting machine: what a Slurm
    /// task runs.
    pub fn submitted(
        plan: CampaignPlan<'r>,
        state_dir: PathBuf,
        folder: PathBuf,
        isolation: ProcessIsolation,
    ) -> PreparedCampaign<'r> {
        // The campaign folder (its peers' attempts and records) is hidden from every worker.
        let options = RunOptions::new(&state_dir).hide(&folder).process_isolation(isolation);
        PreparedCampaign { plan, state_dir, folder, options }
    }

    /// The plan.
    pub fn plan(&self) -> &CampaignPlan<'r> {
        &self.plan
    }

    /// The state folder holding the dataset store.
    pub fn state_dir(&self) -> &Path {
        &self.state_dir
    }

    /// The campaign folder, as given.
    pub fn folder(&self) -> &Path {
        &self.folder
    }

    /// The options every attempt of the campaign runs with (no cancel flag, no CPUs of a slot yet).
    pub fn options(&self) -> &RunOptions {
        &self.options
    }

    /// Makes the state folder and holds it by its absolute path from then on: tasks on other nodes find the
    /// dataset store by it, whatever this process's working directory.
    pub fn settle_state_dir(&mut self) -> Result<&Path, PrepareError> {
        let absolute = std::fs::create_dir_all(&self.state_dir)
            .and_then(|()| self.state_dir.canonicalize())
            .map_err(|source| PrepareError::StateDir { path: self.state_dir.clone(), source })?;
        self.options.state_dir.clone_from(&absolute);
        self.state_dir = absolute;
        Ok(&self.state_dir)
    }

    /// The workers whose identity changed since the folder's records (which part, which files), read before the
    /// folder takes this plan: the earlier plan is what tells.
    pub fn changed_workers(&self) -> Vec<ChangedWorker> {
        crate::changes::changed_workers(&self.plan, &self.folder, &self.state_dir)
    }

    /// Opens the campaign folder for a local run of `concurrency` jobs (see [`CampaignFolder::open`]).
    pub fn open(&self, concurrency: u64, environment: Environment) -> Result<CampaignFolder, PrepareError> {
        Ok(CampaignFolder::open(&self.folder, &self.plan, concurrency, environment)?)
    }

    /// With implementation sessions served as `sessions`, the workers whose sessions may not be reused (see
    /// [`crate::refused_for_reuse`]), checked as a slot's attempts run: on the first slot's CPUs where `cpus`
    /// gives the slots their own. None with fresh sessions.
    pub fn refused_for_reuse(&self, sessions: SessionMode, cpus: Option<&SlotPlan>) -> Vec<RefusedForReuse> {
        if sessions != SessionMode::Reuse {
            return Vec::new();
        }
        let options = match cpus.filter(|cpus| cpus.is_divided()) {
            Some(cpus) => self.options.clone().cpus(cpus.slots()[0].clone()),
            None => self.options.clone(),
        };
        crate::runner::refused_for_reuse(&self.plan, &options)
    }
}
