//! `metewand-campaign` against benchmarks whose workers are the test worker: plans and ids, the pool, resume,
//! the folder's lock and identity, status and exports.

#![allow(clippy::disallowed_methods, reason = "tests make and read their own files in temporary folders")]

mod ahead;
mod audit;
mod environments;
mod grid;
mod index;
mod order;
mod plan;
mod prepared;
mod profile;
mod reuse;
mod runner;
mod slurm;
mod table;
mod tally;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use metewand_campaign::{Axes, CampaignFolder, CampaignPlan, RunConfig, RunSummary, Silent};
use metewand_protocol::generated::attempt_record::SessionMode;
use metewand_runtime::CheckedRepository;
use metewand_runtime::attempt::RunOptions;
use metewand_runtime::cpus::SlotPlan;
use tempfile::TempDir;

/// The fixture benchmark, written into a temporary folder beside its state folder.
pub struct Bench {
    /// The temporary folder holding `repo/`, `state/` and campaign folders.
    pub dir: TempDir,
}

impl Bench {
    /// The fixture with the solver's extra arguments (a TOML array fragment, e.g. `"--delay", "execute=50"`).
    pub fn new(solver_args: &str) -> Bench {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        for source in ["src-gen", "src-solver", "src-other", "src-judge"] {
            fs::create_dir_all(repo.join(source)).unwrap();
            fs::write(repo.join(source).join("README"), "the test worker is an executable elsewhere\n").unwrap();
        }
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/fixtures/campaign.toml");
        let toml = fs::read_to_string(fixture)
            .unwrap()
            .replace("@TEST_WORKER@", metewand_testkit::test_worker().to_str().unwrap())
            .replace("\"@SOLVER_ARGS@\"", if solver_args.is_empty() { "\"--quiet\"" } else { solver_args });
        fs::write(repo.join("metewand.toml"), toml).unwrap();
        Bench { dir }
    }

    /// The repository.
    pub fn repo(&self) -> PathBuf {
        self.dir.path().join("repo")
    }

    /// The state folder.
    pub fn state(&self) -> PathBuf {
        self.dir.path().join("state")
    }

    /// The checked repository.
    pub fn load(&self) -> CheckedRepository {
        CheckedRepository::load(&self.repo()).unwrap()
    }

    /// A folder beside the repository.
    pub fn folder(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Runs campaign `name` into folder `out` with `jobs` jobs.
    pub fn run(&self, name: &str, out: &str, jobs: usize, retry_failed: bool) -> RunSummary {
        self.run_with(name, out, jobs, retry_failed, SessionMode::Fresh)
    }

    /// Runs campaign `name` into folder `out` with `jobs` jobs, its implementation sessions served as `sessions`.
    pub fn run_with(
        &self,
        name: &str,
        out: &str,
        jobs: usize,
        retry_failed: bool,
        sessions: SessionMode,
    ) -> RunSummary {
        self.run_configured(name, out, jobs, |config, plan| {
            config.retry_failed = retry_failed;
            config.sessions = sessions;
            config.warmup = if sessions == SessionMode::Reuse { plan.sessions().1 } else { 0 };
        })
    }

    /// Runs campaign `name` into folder `out` with `jobs` jobs, fresh sessions on each slot's CPUs, and the run's
    /// configuration then changed by `edit`.
    pub fn run_configured(
        &self,
        name: &str,
        out: &str,
        jobs: usize,
        edit: impl FnOnce(&mut RunConfig, &CampaignPlan<'_>),
    ) -> RunSummary {
        self.run_planned(name, &Axes::default(), out, jobs, edit)
    }

    /// Runs campaign `name` with its axes changed by `axes` into folder `out` with `jobs` jobs, fresh sessions.
    pub fn run_axes(&self, name: &str, out: &str, jobs: usize, axes: impl FnOnce(&mut Axes)) -> RunSummary {
        let mut changed = Axes::default();
        axes(&mut changed);
        self.run_planned(name, &changed, out, jobs, |_, _| {})
    }

    fn run_planned(
        &self,
        name: &str,
        axes: &Axes,
        out: &str,
        jobs: usize,
        edit: impl FnOnce(&mut RunConfig, &CampaignPlan<'_>),
    ) -> RunSummary {
        let repository = self.load();
        let plan = CampaignPlan::new(&repository, Some(name), axes).unwrap();
        let environment = metewand_campaign::environment::capture(&repository);
        let programs = metewand_campaign::changes::ProgramCheck::new(&plan, &environment);
        let folder = CampaignFolder::open(&self.folder(out), &plan, jobs as u64, environment).unwrap();
        let mut config = RunConfig {
            jobs: jobs.try_into().unwrap(),
            cpus: Some(SlotPlan::probe(jobs).unwrap()),
            retry_failed: false,
            programs,
            rerun_changed: false,
            sessions: SessionMode::Fresh,
            warmup: 0,
            refused: Vec::new(),
            ahead: false,
            options: RunOptions::new(self.state()),
        };
        edit(&mut config, &plan);
        metewand_campaign::run(&plan, &folder, &config, &Silent).unwrap()
    }
}

impl Drop for Bench {
    /// Published datasets are read-only: make them writable so the temporary folder can be removed.
    fn drop(&mut self) {
        let _ = Command::new("chmod").args(["-R", "u+w"]).arg(self.dir.path()).status();
    }
}

/// Every record of a campaign folder: attempt id to its parsed `attempt.json`.
pub fn records(folder: &Path) -> std::collections::BTreeMap<String, serde_json::Value> {
    let mut out = std::collections::BTreeMap::new();
    for entry in fs::read_dir(folder.join("attempts")).unwrap() {
        let entry = entry.unwrap();
        if let Ok(bytes) = fs::read(entry.path().join("attempt.json")) {
            out.insert(entry.file_name().to_string_lossy().into_owned(), serde_json::from_slice(&bytes).unwrap());
        }
    }
    out
}
