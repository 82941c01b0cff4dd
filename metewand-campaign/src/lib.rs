//! Campaigns: every implementation × dataset × seed × repetition of a benchmark repository, run in parallel on
//! this machine, safe to interrupt and resume, and summarised as a table.
//!
//! A [`CampaignPlan`] expands a `[campaigns.NAME]` (or flags alone) into attempts with stable ids; a
//! [`CampaignFolder`] is where they are recorded (locked while a run writes it); [`run`] runs what is missing
//! through the runtime's attempt runner, `-j N` at once, each distinct dataset materialized once before its
//! attempts; [`Status`] and [`export::write`] read the folder back. [`slurm`] submits the same plan to Slurm as job
//! arrays whose tasks run their attempts through the same functions as the local pool.
//!
//! ```
//! use std::fs;
//! use metewand_campaign::{Axes, CampaignPlan};
//! use metewand_runtime::CheckedRepository;
//!
//! let repo = tempfile::tempdir().unwrap();
//! fs::create_dir(repo.path().join("w")).unwrap();
//! fs::write(repo.path().join("w/worker.py"), "# a worker\n").unwrap();
//! fs::write(repo.path().join("metewand.toml"), r#"
//! format = 1
//! [workers.gen]
//! role = "dataset_materializer"
//! command = ["python3", "worker.py"]
//! source = "w"
//! [workers.solve]
//! role = "implementation"
//! command = ["python3", "worker.py"]
//! source = "w"
//! [workers.judge]
//! role = "problem_evaluator"
//! command = ["python3", "worker.py"]
//! source = "w"
//! [datasets.small]
//! materializer = "gen"
//! output_schema = { type = "object" }
//! [problems.p]
//! evaluator = "judge"
//! result_schema = { type = "object" }
//! metric_schema = { type = "object" }
//! [implementations.a]
//! worker = "solve"
//! [campaigns.main]
//! dataset_seeds = { from = 0, count = 3 }
//! repetitions = 2
//! "#).unwrap();
//! let repository = CheckedRepository::load(repo.path()).unwrap();
//! let plan = CampaignPlan::new(&repository, Some("main"), &Axes::default()).unwrap();
//! assert_eq!(plan.attempts().len(), 6);
//! assert_eq!(plan.keys().len(), 3, "one dataset per seed");
//! assert!(plan.attempts()[0].id.as_str().starts_with("mw1-attempt-"));
//! // The same plan built again has the same ids.
//! let again = CampaignPlan::new(&repository, Some("main"), &Axes::default()).unwrap();
//! assert_eq!(again.attempts()[5].id, plan.attempts()[5].id);
//! ```

#![forbid(unsafe_code)]

mod appended;
pub mod audit;
pub mod cache;
pub mod changes;
pub mod environment;
mod error;
pub mod export;
pub mod folder;
mod ids;
pub mod index;
pub mod order;
mod own;
pub mod parallel;
pub mod plan;
pub mod prepared;
pub mod runner;
pub mod slurm;
mod stamp;
pub mod status;
pub mod summary;
pub mod table;
mod tally;
mod trust;

pub use environment::Environment;
pub use error::{ReuseRefusal, RunError};
pub use folder::{CampaignFile, CampaignFolder, FolderError, read_campaign};
/// A grid point's name split into its grid's name and its values by key, read from the name alone.
pub use metewand_runtime::attempt::parse_rfc3339;
pub use metewand_runtime::repository::grid::point_values;
pub use plan::{Axes, CampaignPlan, PlanError, PlannedAttempt};
pub use prepared::{PrepareError, PrepareWarning, PreparedCampaign, Refusals};
pub use runner::{
    Observer, RefusedForReuse, RunConfig, RunSummary, Silent, ahead_pays, refused_for_reuse, run, starts_ahead,
};
pub use status::Status;
pub use summary::PlanSummary;
