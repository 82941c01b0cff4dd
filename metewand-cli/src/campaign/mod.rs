//! `metewand campaign plan|run|status|export`: campaigns of a benchmark repository, through `metewand-campaign`.
//! This module parses flags, shows progress and prints summaries; planning, running and reading folders are the
//! library's.

use std::num::{NonZeroU64, NonZeroUsize};
use std::path::{Path, PathBuf};

use metewand_campaign::prepared::{default_folder, default_state_dir};
use metewand_campaign::{Axes, CampaignPlan, PrepareWarning, PreparedCampaign, Refusals, starts_ahead};
use metewand_protocol::common::WorkerId;
use metewand_protocol::generated::attempt_record::SessionMode;
use metewand_runtime::CheckedRepository;
use metewand_runtime::cpus::{CpusBinding, SlotPlan};
use metewand_runtime::repository::Seeds;
use metewand_runtime::session::ProcessIsolation;
use metewand_runtime::session::binding_of_chosen_cpus;

use crate::{Failure, parse_seed, say};

mod decided;
pub(crate) mod judge;
mod plan;
mod progress;
mod run;
mod status;
mod submit;

const LONG_ABOUT: &str = "Campaigns run every implementation on every dataset under several seeds and repetitions:
the attempts of [campaigns.NAME] in metewand.toml (or of the axis flags alone), each with a stable id, run N at a
time, each distinct dataset materialized once before its attempts. The campaign folder (STATE/campaigns/NAME/ or
--out) holds campaign.json (the plan and each run's environment), attempts/<attempt id>/ (ordinary attempt folders),
datasets/<key>.json, results.csv, results.jsonl and profiles.csv. Running the same command again resumes: attempts with a record
are skipped (failed ones too, unless --retry-failed; and those whose workers ran another program than their commands find now, say another virtual environment, are named but kept unless --rerun-changed); cancelled, missing and unfinished ones run again.";

/// `metewand campaign`.
#[derive(clap::Args)]
#[command(about = "plan, run, resume and summarise campaigns (every implementation x dataset x seed)", long_about = LONG_ABOUT)]
pub(crate) struct Args {
    #[command(subcommand)]
    command: Sub,
}

#[derive(clap::Subcommand)]
enum Sub {
    /// print what a campaign would run: attempts, datasets to materialize, what is already done, an estimate
    #[command(after_help = "exit statuses: 0 printed, 2 usage, repository or folder error")]
    Plan(PlanArgs),
    /// run (or resume) a campaign N attempts at a time
    #[command(after_help = "exit statuses: 0 every planned attempt has a record with a verdict (whatever the \
                            verdict), 3 at least\none attempt failed, 130 cancelled (resumable), 2 usage, \
                            repository or folder error (nothing started)")]
    Run(RunArgs),
    /// summarise a campaign folder: planned, done by outcome, failed by kind, missing
    #[command(after_help = "exit statuses: 0 every planned attempt is done, 1 some are not, 2 not a campaign \
                            folder or an I/O error")]
    Status(ReadArgs),
    /// write results.csv, results.jsonl and profiles.csv of a campaign folder from its records
    #[command(after_help = "exit statuses: 0 written, 2 not a campaign folder or an I/O error")]
    Export(ReadArgs),
    /// submit what a campaign still needs to Slurm as job arrays, and exit
    #[command(long_about = SUBMIT_ABOUT, after_help = "exit statuses: 0 submitted (or nothing left to submit), 2 \
                                                       usage, repository, folder or Slurm error (nothing queued)")]
    Submit(SubmitArgs),
    /// run one task of a Slurm submission: what the submitted batch scripts run
    #[command(after_help = "exit statuses: 0 every attempt of the task has a record (whatever its outcome), 3 some \
                            are left without one, 130 cancelled (SIGTERM), 2 the folder, repository or submission \
                            cannot be used")]
    Work(WorkArgs),
    /// decide a round of `campaign submit --until-decided` once its attempts ended: submit the next round, or
    /// write the exports: what the submitted batch scripts run
    #[command(
        hide = true,
        after_help = "exit statuses: 0 decided (the next round submitted, or none needed), 2 \
                                         the folder, repository, submission or Slurm cannot be used (the reason is \
                                         recorded in the submission)"
    )]
    Decide(DecideArgs),
    /// cancel the Slurm jobs of a campaign that are still pending or running
    #[command(after_help = "exit statuses: 0 no job of the campaign is pending or running any more, 2 a folder or \
                            Slurm error, or jobs still there after the wait")]
    Cancel(StatusArgs),
}

const SUBMIT_ABOUT: &str = "Plans the campaign into its folder (which every node must see), writes batch scripts \
into FOLDER/slurm/<n>/, submits them with `sbatch --parsable`, records the job ids in FOLDER/slurm/<n>/submission.json \
and exits. One job array materializes the datasets still missing (one a task); arrays of packs of K attempts depend on \
it (afterany) and run `metewand campaign work` by absolute path; a last job writes results.csv, results.jsonl and profiles.csv. \
Arrays are split at the cluster's MaxArraySize. Submitting again submits only what is missing, cancelled, or (with \
--retry-failed) failed, or (with --rerun-changed) done by another program than the workers' commands find now; it refuses while jobs of an earlier submission are pending or running. `campaign status` shows \
the jobs' Slurm states; `campaign cancel` ends them. With --with DIR the submission records each external folder's \
path and identity, and a task whose folder changed since runs nothing and says so.";

/// The repository, the campaign and the axis flags, shared by `plan` and `run`.
#[derive(clap::Args)]
struct Selection {
    /// the benchmark repository (default: the current directory)
    #[arg(value_name = "REPO")]
    repo: Option<PathBuf>,
    /// the campaign, [campaigns.NAME] (default: an ad-hoc campaign of every problem, dataset and implementation)
    #[arg(value_name = "NAME")]
    name: Option<String>,
    /// only this problem (repeatable)
    #[arg(long = "problem", value_name = "P")]
    problems: Vec<String>,
    /// only this dataset (repeatable)
    #[arg(long = "dataset", value_name = "D")]
    datasets: Vec<String>,
    /// only this implementation (repeatable)
    #[arg(long = "implementation", value_name = "I")]
    implementations: Vec<String>,
    /// the dataset seeds: a list 0,1,2 or a range FROM..END (END excluded)
    #[arg(long, value_name = "SEEDS", value_parser = parse_seeds)]
    dataset_seeds: Option<Seeds>,
    /// the implementation seeds, written the same way
    #[arg(long, value_name = "SEEDS", value_parser = parse_seeds)]
    implementation_seeds: Option<Seeds>,
    /// attempts per cell with identical inputs, at least 1
    #[arg(long, value_name = "N", value_parser = crate::at_least_one::<u64>)]
    repetitions: Option<u64>,
    /// a folder outside the repository holding metewand-implementation.toml (repeatable): its implementations join
    /// the campaign's, each marked external in its records, and the repository is left as it is
    #[arg(long = "with", value_name = "DIR")]
    with: Vec<PathBuf>,
    /// the campaign folder (default: STATE/campaigns/NAME/)
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// the state folder holding datasets/ and campaigns/ (default: REPO/.metewand/)
    #[arg(long, value_name = "STATE")]
    state_dir: Option<PathBuf>,
}

/// `-j`, for `plan` and `run`.
#[derive(clap::Args)]
struct Jobs {
    /// how many attempts (and materializations) run at once (default 1: attempts side by side share cores,
    /// caches and memory bandwidth, and each one's time is then the worse for it)
    #[arg(short = 'j', long = "jobs", value_name = "N", value_parser = crate::at_least_one::<NonZeroUsize>)]
    jobs: Option<NonZeroUsize>,
    /// with -j N, run every slot's workers on all the CPUs metewand may use instead of a CPU set per slot (for
    /// implementations that use several cores; each attempt's time is then the worse for its neighbours)
    #[arg(long)]
    share_cpus: bool,
    /// with fresh sessions, have each slot start the workers of its next attempt while one is judged, on a core
    /// kept for metewand (with -j 1 the slot then leaves it the first core, where there are two or more) [default:
    /// on where the CPUs kept for metewand are at least those the slots would start their workers on, with no
    /// warm-up]
    #[arg(long, overrides_with = "no_ahead")]
    ahead: bool,
    /// start each attempt's workers when it begins, even where workers started ahead would be the default
    #[arg(long, overrides_with = "ahead")]
    no_ahead: bool,
}

impl Jobs {
    fn get(&self) -> NonZeroUsize {
        self.jobs.unwrap_or(NonZeroUsize::MIN)
    }

    /// Whether workers are started ahead of their attempts, with sessions served as `sessions` after `warmup`
    /// cycles ([`metewand_campaign::starts_ahead`]): as `--ahead` or `--no-ahead` says, or else by default.
    fn ahead(&self, sessions: SessionMode, warmup: u64) -> bool {
        let asked = if self.no_ahead { Some(false) } else { self.ahead.then_some(true) };
        starts_ahead(asked, self.get().get(), sessions, warmup, self.share_cpus)
    }

    /// How the slots divide the CPUs (`None`: they share them all), after a warning for each way they fall short;
    /// with workers started `ahead`, one slot keeps off a core too.
    fn cpus(&self, command: &str, ahead: bool) -> Option<SlotPlan> {
        if self.share_cpus { None } else { slot_plan(command, self.get().get(), ahead) }
    }
}

#[derive(clap::Args)]
struct PlanArgs {
    #[command(flatten)]
    selection: Selection,
    #[command(flatten)]
    jobs: Jobs,
    /// also print every attempt: its id, problem, dataset, dataset seed, implementation, implementation seed and
    /// repetition
    #[arg(long)]
    list: bool,
}

#[derive(clap::Args)]
struct RunArgs {
    #[command(flatten)]
    selection: Selection,
    #[command(flatten)]
    jobs: Jobs,
    /// run attempts (and materializations) recorded failed again
    #[arg(long)]
    retry_failed: bool,
    /// run done attempts again whose workers ran another program than their commands find now
    #[arg(long)]
    rerun_changed: bool,
    /// no progress on stderr
    #[arg(long, short = 'q')]
    quiet: bool,
    /// refuse to start (exit 2) unless every worker would run fully confined; by default what the kernel lacks is
    /// recorded and printed as a warning
    #[arg(long)]
    require_confinement: bool,
    /// run even where a limit `[limits]` sets cannot be held for a worker here (recorded and warned); by default
    /// that refuses to start (exit 2)
    #[arg(long)]
    allow_unenforced_limits: bool,
    /// keep each worker's processes together with the freezing sweep instead of a PID namespace (the fallback
    /// used where namespaces are refused)
    #[arg(long)]
    sweep_processes: bool,
    /// fresh: each attempt starts its own workers (the stronger isolation); reuse: one implementation process
    /// serves consecutive attempts of its worker on a slot, reset between them, and one evaluator process judges
    /// them [default: the campaign's `sessions`, or fresh]
    #[arg(long, value_enum)]
    sessions: Option<Sessions>,
    /// discarded prepare and execute cycles each implementation session runs on its attempt's inputs before it is
    /// timed: a fresh one before its attempt, a reused one before its first [default: the campaign's `warmup`, or 0]
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u64).range(0..=1000))]
    warmup: Option<u64>,
    #[command(flatten)]
    until: UntilDecidedArgs,
}

/// `--until-decided` and its options, the same for `campaign run` and `campaign submit`.
#[derive(clap::Args)]
struct UntilDecidedArgs {
    /// after the planned repetitions, add repetitions in rounds to the cells whose pairs the report's test leaves
    /// undecided (within each problem, dataset and dataset seed), until each is separated or tied
    #[arg(long)]
    until_decided: bool,
    /// with --until-decided, the most repetitions a cell is given [default: 20, or the planned repetitions if more]
    #[arg(long, value_name = "N", requires = "until_decided", value_parser = crate::at_least_one::<u64>)]
    max_repetitions: Option<u64>,
    /// with --until-decided, the significance level of the test, in (0, 0.5]
    #[arg(long, value_name = "A", requires = "until_decided", default_value_t = 0.05, allow_negative_numbers = true)]
    alpha: f64,
    /// with --until-decided, a relative difference under which two cells count as tied (0.05 for 5%): decided once
    /// the 95% interval of the ratio of their medians lies within it [default: none]
    #[arg(long, value_name = "R", requires = "until_decided", allow_negative_numbers = true)]
    resolution: Option<f64>,
}

/// With reused sessions, the implementation workers of `prepared` that may not be reused (see
/// [`PreparedCampaign::refused_for_reuse`]), each said as a warning on stderr.
fn refused_for_reuse(
    command: &str,
    prepared: &PreparedCampaign<'_>,
    sessions: SessionMode,
    cpus: Option<&SlotPlan>,
) -> Vec<WorkerId> {
    prepared
        .refused_for_reuse(sessions, cpus)
        .into_iter()
        .map(|refused| {
            say(&format!(
                "campaign {command}: implementation worker {} is not reused, its attempts start fresh sessions: {}",
                refused.worker, refused.why
            ));
            refused.worker_id
        })
        .collect()
}

/// Refuses workers started `ahead` with a `warmup` above 0, in one sentence of `campaign COMMAND`: a worker started
/// ahead of its attempt is not warmed up.
fn refuse_ahead_with_warmup(command: &str, ahead: bool, warmup: u64) -> Result<(), Failure> {
    if ahead && warmup > 0 {
        return Err(Failure::Usage(format!(
            "campaign {command}: --ahead starts each attempt's workers before it, and does not warm them up; drop \
             --ahead or the warm-up (--warmup 0)"
        )));
    }
    Ok(())
}

/// How implementation sessions serve attempts.
#[derive(Clone, Copy, clap::ValueEnum)]
enum Sessions {
    Fresh,
    Reuse,
}

impl Sessions {
    /// The mode `given` says, or the campaign's, and the warm-up cycles of each session: `warmup` given, or the
    /// campaign's.
    fn resolve(given: Option<Sessions>, warmup: Option<u64>, plan: &CampaignPlan<'_>) -> (SessionMode, u64) {
        let (planned, planned_warmup) = plan.sessions();
        let mode = match given {
            None => planned,
            Some(Sessions::Fresh) => SessionMode::Fresh,
            Some(Sessions::Reuse) => SessionMode::Reuse,
        };
        (mode, warmup.unwrap_or(planned_warmup))
    }
}

#[derive(clap::Args)]
struct SubmitArgs {
    #[command(flatten)]
    selection: Selection,
    /// submit to Slurm (the one scheduler supported, so the default)
    #[arg(long)]
    slurm: bool,
    /// the partition every job is submitted to (default: the cluster's default partition)
    #[arg(long, value_name = "P")]
    partition: Option<String>,
    /// the account every job is charged to
    #[arg(long, value_name = "A")]
    account: Option<String>,
    /// each task's time limit, in sbatch's notation (MINUTES, H:M:S, D-H:M:S); by default the worst case of a
    /// pack under the repository's phase limits and budgets plus 5 minutes
    #[arg(long, value_name = "T", value_parser = parse_time)]
    time: Option<String>,
    /// attempts one array task runs, one after the other
    #[arg(long, value_name = "K", value_parser = crate::at_least_one::<NonZeroU64>,
          default_value_t = NonZeroU64::new(metewand_campaign::slurm::DEFAULT_PACK).expect("nonzero"))]
    pack: NonZeroU64,
    /// at most N tasks of an array run at once (its %N throttle)
    #[arg(long, value_name = "N", value_parser = crate::at_least_one::<NonZeroU64>)]
    max_parallel: Option<NonZeroU64>,
    /// one more argument given to every sbatch (repeatable), e.g. --sbatch-arg=--qos=long
    #[arg(long = "sbatch-arg", value_name = "ARG", allow_hyphen_values = true)]
    sbatch_args: Vec<String>,
    /// submit attempts (and materializations) recorded failed again
    #[arg(long)]
    retry_failed: bool,
    /// submit done attempts again whose workers ran another program than their commands find here now
    #[arg(long)]
    rerun_changed: bool,
    /// refuse to submit (exit 2) unless every worker would run fully confined on this machine
    #[arg(long)]
    require_confinement: bool,
    /// submit even where a limit `[limits]` sets cannot be held for a worker on this machine (recorded and warned);
    /// by default that refuses to submit (exit 2)
    #[arg(long)]
    allow_unenforced_limits: bool,
    /// keep each worker's processes together with the freezing sweep instead of a PID namespace
    #[arg(long)]
    sweep_processes: bool,
    /// fresh: each attempt starts its own workers; reuse: one implementation process serves consecutive attempts
    /// of its worker in a task, reset between them, and one evaluator process judges them [default: the campaign's
    /// `sessions`, or fresh]
    #[arg(long, value_enum)]
    sessions: Option<Sessions>,
    /// discarded prepare and execute cycles each implementation session runs on its attempt's inputs before it is
    /// timed [default: the campaign's `warmup`, or 0]
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u64).range(0..=1000))]
    warmup: Option<u64>,
    /// with fresh sessions, have each task whose allocation has two cores or more start the workers of its next
    /// attempt while one is judged, on a core kept off its workers'
    #[arg(long)]
    ahead: bool,
    #[command(flatten)]
    until: UntilDecidedArgs,
}

#[derive(clap::Args)]
#[command(group = clap::ArgGroup::new("task").required(true).args(["pack", "dataset"]))]
struct WorkArgs {
    /// the campaign folder
    #[arg(value_name = "DIR")]
    dir: PathBuf,
    /// the submission, slurm/<N>/ of the folder
    #[arg(long, value_name = "N")]
    submission: u64,
    /// run pack I of the submission's attempts
    #[arg(long, value_name = "I")]
    pack: Option<u64>,
    /// materialize dataset I of the submission
    #[arg(long, value_name = "I")]
    dataset: Option<u64>,
}

#[derive(clap::Args)]
struct DecideArgs {
    /// the campaign folder
    #[arg(value_name = "DIR")]
    dir: PathBuf,
    /// the submission of the round, slurm/<N>/ of the folder
    #[arg(long, value_name = "N")]
    submission: u64,
}

/// A time limit in sbatch's notation: digits with `:` and `-` (sbatch itself judges the rest).
fn parse_time(text: &str) -> Result<String, String> {
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit() || b == b':' || b == b'-') {
        Ok(text.to_owned())
    } else {
        Err("a time limit is MINUTES, M:S, H:M:S, D-H, D-H:M or D-H:M:S".to_owned())
    }
}

/// A reading of a campaign folder's records: where the folder is, and whether every index entry is checked.
#[derive(clap::Args)]
struct ReadArgs {
    #[command(flatten)]
    folder: StatusArgs,
    #[command(flatten)]
    check: CheckArgs,
}

/// Whether a reading trusts the index's entries, which the executor wrote with the records.
#[derive(clap::Args)]
pub(crate) struct CheckArgs {
    /// check every index entry against its record (the file's stamp, else its SHA-256) and read any record that
    /// changed since, as after an edit by hand; by default the entries the executor wrote are trusted
    #[arg(long)]
    check_records: bool,
}

impl CheckArgs {
    /// How the reading takes the index's entries.
    pub(crate) fn check(&self) -> metewand_campaign::index::Check {
        match self.check_records {
            true => metewand_campaign::index::Check::Records,
            false => metewand_campaign::index::Check::Entries,
        }
    }
}

#[derive(clap::Args)]
struct StatusArgs {
    /// the campaign folder, or with NAME the repository (default: the current directory)
    #[arg(value_name = "DIR")]
    dir: Option<PathBuf>,
    /// the campaign's name: DIR is then its repository, and the folder STATE/campaigns/NAME/ as `run` makes it
    #[arg(value_name = "NAME")]
    name: Option<String>,
    /// with NAME, the state folder (default: REPO/.metewand/)
    #[arg(long, value_name = "DIR", requires = "name")]
    state_dir: Option<PathBuf>,
}

/// `0,1,2` or `FROM..END`.
fn parse_seeds(text: &str) -> Result<Seeds, String> {
    if let Some((from, end)) = text.split_once("..") {
        let from = parse_seed(from)?;
        let end = parse_seed(end)?;
        if end.get() <= from.get() {
            return Err(format!("the range {text} is empty: END must be greater than FROM"));
        }
        return Ok(Seeds::Range { from, count: end.get() - from.get() });
    }
    let mut seeds = Vec::new();
    for part in text.split(',') {
        let seed = parse_seed(part)?;
        if !seeds.contains(&seed) {
            seeds.push(seed);
        }
    }
    Ok(Seeds::List(seeds))
}

pub(crate) fn run(args: Args) -> Result<(), Failure> {
    match args.command {
        Sub::Plan(args) => plan::plan(args),
        Sub::Run(args) => run::run(args),
        Sub::Status(args) => status::status(args),
        Sub::Export(args) => status::export(args),
        Sub::Submit(args) => submit::submit(args),
        Sub::Work(args) => submit::work(args),
        Sub::Decide(args) => submit::decide(args),
        Sub::Cancel(args) => submit::cancel(args),
    }
}

impl Selection {
    fn axes(&self) -> Axes {
        let list = |names: &Vec<String>| (!names.is_empty()).then(|| names.clone());
        Axes {
            problems: list(&self.problems),
            datasets: list(&self.datasets),
            implementations: list(&self.implementations),
            dataset_seeds: self.dataset_seeds.clone(),
            implementation_seeds: self.implementation_seeds.clone(),
            repetitions: self.repetitions,
        }
    }

    fn load(&self) -> Result<CheckedRepository, Failure> {
        crate::gate::load_with_externals(self.repo.as_deref().unwrap_or(Path::new(".")), &self.with)
    }

    fn plan<'r>(&self, command: &str, repository: &'r CheckedRepository) -> Result<CampaignPlan<'r>, Failure> {
        CampaignPlan::new(repository, self.name.as_deref(), &self.axes())
            .map_err(|error| Failure::Usage(format!("campaign {command}: {error}")))
    }

    fn state_dir(&self, repository: &CheckedRepository) -> PathBuf {
        self.state_dir.clone().unwrap_or_else(|| default_state_dir(repository.root()))
    }

    /// What `run` and `submit` do before anything is written: the plan, made ready in its folder with its state
    /// folder (see [`PreparedCampaign::new`]), after the confinement and limits warnings or refusal.
    fn prepare<'r>(
        &self,
        command: &str,
        repository: &'r CheckedRepository,
        sweep_processes: bool,
        refusals: Refusals,
    ) -> Result<PreparedCampaign<'r>, Failure> {
        let plan = self.plan(command, repository)?;
        let command = format!("campaign {command}");
        let state_dir = self.state_dir(repository);
        let folder = self.folder(repository, &plan);
        let isolation = if sweep_processes { ProcessIsolation::Sweep } else { ProcessIsolation::default() };
        let mut warn = |warning: PrepareWarning<'_>| match warning {
            PrepareWarning::WeakerConfinement(missing) => crate::gate::warn_weaker_confinement(&command, missing),
            PrepareWarning::UnenforcedLimit(limit) => crate::gate::warn_unenforced_limit(&command, limit),
        };
        PreparedCampaign::new(plan, state_dir, folder, isolation, refusals, &mut warn)
            .map_err(|error| Failure::Usage(format!("{command}: {error}")))
    }

    fn folder(&self, repository: &CheckedRepository, plan: &CampaignPlan<'_>) -> PathBuf {
        self.out.clone().unwrap_or_else(|| default_folder(&self.state_dir(repository), plan.name()))
    }
}

/// How `jobs` slots divide this process's CPUs, after a warning for each way the slots fall short of a whole core
/// each; `None` (after a warning) when the CPUs cannot be read.
fn slot_plan(command: &str, jobs: usize, ahead: bool) -> Option<SlotPlan> {
    match if ahead { SlotPlan::probe_with_ahead(jobs) } else { SlotPlan::probe(jobs) } {
        Ok(plan) => {
            for shortfall in plan.shortfalls() {
                say(&format!("{command}: warning: {shortfall}"));
            }
            Some(plan)
        }
        Err(error) => {
            say(&format!("{command}: warning: cannot read this process's CPUs ({error}); workers share all of them"));
            None
        }
    }
}

/// One line for `campaign plan`: each slot's CPUs, the executor's, and how the workers are held on them.
fn describe_cpus(plan: Option<&SlotPlan>, ahead: bool) -> String {
    let Some(plan) = plan.filter(|plan| plan.is_divided()) else {
        return "shared: every worker runs on all the CPUs metewand may use".to_owned();
    };
    let slots: Vec<String> = plan.slots().iter().map(ToString::to_string).collect();
    let binding = match binding_of_chosen_cpus() {
        CpusBinding::Locked => "locked: a worker cannot change its CPUs",
        _ => "advisory: a worker could change its CPUs (no seccomp filters here)",
    };
    let executor = match plan.executor() {
        Some(executor) if ahead => format!("{executor}, with the workers started ahead of their attempts"),
        Some(executor) => executor.to_string(),
        None => "the slots' CPUs".to_owned(),
    };
    format!("slots on {} ({binding}); metewand's own threads on {executor}", slots.join(" | "))
}
