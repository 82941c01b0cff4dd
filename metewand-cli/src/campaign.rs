//! `metewand campaign plan|run|status|export`: campaigns of a benchmark repository, through `metewand-campaign`.
//! This module parses flags, shows progress and prints summaries; planning, running and reading folders are the
//! library's.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::num::{NonZeroU64, NonZeroUsize};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use metewand_campaign::export::{self, RESULTS_CSV};
use metewand_campaign::plan::PlannedDataset;
use metewand_campaign::slurm::{self, Slurm};
use metewand_campaign::summary::PlanSummary;
use metewand_campaign::{
    Axes, CampaignFile, CampaignFolder, CampaignPlan, Environment, Observer, PlannedAttempt, RunConfig, Status,
    run as run_campaign,
};
use metewand_protocol::generated::attempt_record::AttemptRecord;
use metewand_runtime::CheckedRepository;
use metewand_runtime::attempt::{DatasetMaterialization, MaterializationOutcome, RunOptions, confinement_shortfalls};
use metewand_runtime::cpus::{CpusBinding, SlotPlan, binding_of_chosen_cpus};
use metewand_runtime::repository::Seeds;
use metewand_runtime::session::{KernelSupport, ProcessIsolation};

use crate::{Failure, parse_seed, print_out, say};

const LONG_ABOUT: &str = "Campaigns run every implementation on every dataset under several seeds and repetitions:
the attempts of [campaigns.NAME] in metewand.toml (or of the axis flags alone), each with a stable id, run N at a
time, each distinct dataset materialized once before its attempts. The campaign folder (STATE/campaigns/NAME/ or
--out) holds campaign.json (the plan and each run's environment), attempts/<attempt id>/ (ordinary attempt folders),
datasets/<key>.json, results.csv and results.jsonl. Running the same command again resumes: attempts with a record
are skipped (failed ones too, unless --retry-failed); cancelled, missing and unfinished ones run again.";

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
    Status(StatusArgs),
    /// write results.csv and results.jsonl of a campaign folder from its records
    #[command(after_help = "exit statuses: 0 written, 2 not a campaign folder or an I/O error")]
    Export(StatusArgs),
    /// submit what a campaign still needs to Slurm as job arrays, and exit
    #[command(long_about = SUBMIT_ABOUT, after_help = "exit statuses: 0 submitted (or nothing left to submit), 2 \
                                                       usage, repository, folder or Slurm error (nothing queued)")]
    Submit(SubmitArgs),
    /// run one task of a Slurm submission: what the submitted batch scripts run
    #[command(after_help = "exit statuses: 0 every attempt of the task has a record (whatever its outcome), 3 some \
                            are left without one, 130 cancelled (SIGTERM), 2 the folder, repository or submission \
                            cannot be used")]
    Work(WorkArgs),
    /// cancel the Slurm jobs of a campaign that are still pending or running
    #[command(after_help = "exit statuses: 0 no job of the campaign is pending or running any more, 2 a folder or \
                            Slurm error, or jobs still there after the wait")]
    Cancel(StatusArgs),
}

const SUBMIT_ABOUT: &str = "Plans the campaign into its folder (which every node must see), writes batch scripts \
into FOLDER/slurm/<n>/, submits them with `sbatch --parsable`, records the job ids in FOLDER/slurm/<n>/submission.json \
and exits. One job array materializes the datasets still missing (one a task); arrays of packs of K attempts depend on \
it (afterany) and run `metewand campaign work` by absolute path; a last job writes results.csv and results.jsonl. \
Arrays are split at the cluster's MaxArraySize. Submitting again submits only what is missing, cancelled, or (with \
--retry-failed) failed; it refuses while jobs of an earlier submission are pending or running. `campaign status` shows \
the jobs' Slurm states; `campaign cancel` ends them.";

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
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    repetitions: Option<u64>,
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
    #[arg(short = 'j', long = "jobs", value_name = "N")]
    jobs: Option<NonZeroUsize>,
    /// with -j N, run every slot's workers on all the CPUs metewand may use instead of a CPU set per slot (for
    /// implementations that use several cores; each attempt's time is then the worse for its neighbours)
    #[arg(long)]
    share_cpus: bool,
}

impl Jobs {
    fn get(&self) -> NonZeroUsize {
        self.jobs.unwrap_or(NonZeroUsize::MIN)
    }

    /// How the slots divide the CPUs (`None`: they share them all), after a warning for each way they fall short.
    fn cpus(&self, command: &str) -> Option<SlotPlan> {
        if self.share_cpus { None } else { slot_plan(command, self.get().get()) }
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
    /// no progress on stderr
    #[arg(long, short = 'q')]
    quiet: bool,
    /// refuse to start (exit 2) unless every worker would run fully confined; by default what the kernel lacks is
    /// recorded and printed as a warning
    #[arg(long)]
    require_confinement: bool,
    /// keep each worker's processes together with the freezing sweep instead of a PID namespace (the fallback
    /// used where namespaces are refused)
    #[arg(long)]
    sweep_processes: bool,
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
    #[arg(long, value_name = "K", default_value_t = NonZeroU64::new(metewand_campaign::slurm::DEFAULT_PACK).expect("nonzero"))]
    pack: NonZeroU64,
    /// at most N tasks of an array run at once (its %N throttle)
    #[arg(long, value_name = "N")]
    max_parallel: Option<NonZeroU64>,
    /// one more argument given to every sbatch (repeatable), e.g. --sbatch-arg=--qos=long
    #[arg(long = "sbatch-arg", value_name = "ARG", allow_hyphen_values = true)]
    sbatch_args: Vec<String>,
    /// submit attempts (and materializations) recorded failed again
    #[arg(long)]
    retry_failed: bool,
    /// refuse to submit (exit 2) unless every worker would run fully confined on this machine
    #[arg(long)]
    require_confinement: bool,
    /// keep each worker's processes together with the freezing sweep instead of a PID namespace
    #[arg(long)]
    sweep_processes: bool,
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

/// A time limit in sbatch's notation: digits with `:` and `-` (sbatch itself judges the rest).
fn parse_time(text: &str) -> Result<String, String> {
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit() || b == b':' || b == b'-') {
        Ok(text.to_owned())
    } else {
        Err("a time limit is MINUTES, M:S, H:M:S, D-H, D-H:M or D-H:M:S".to_owned())
    }
}

#[derive(clap::Args)]
struct StatusArgs {
    /// the campaign folder (default: the current directory)
    #[arg(value_name = "DIR")]
    dir: Option<PathBuf>,
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
        Sub::Plan(args) => plan(args),
        Sub::Run(args) => run_command(args),
        Sub::Status(args) => status(args),
        Sub::Export(args) => export_command(args),
        Sub::Submit(args) => submit(args),
        Sub::Work(args) => work(args),
        Sub::Cancel(args) => cancel(args),
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
        crate::check::load(self.repo.as_deref().unwrap_or(Path::new(".")))
    }

    fn plan<'r>(&self, command: &str, repository: &'r CheckedRepository) -> Result<CampaignPlan<'r>, Failure> {
        CampaignPlan::new(repository, self.name.as_deref(), &self.axes())
            .map_err(|error| Failure::Usage(format!("campaign {command}: {error}")))
    }

    fn state_dir(&self, repository: &CheckedRepository) -> PathBuf {
        self.state_dir.clone().unwrap_or_else(|| repository.root().join(".metewand"))
    }

    /// What `run` and `submit` do before anything is written: the plan, the state folder, the campaign folder
    /// (neither inside a worker's source) and the run options, after the confinement warning or refusal.
    fn prepare<'r>(
        &self,
        command: &str,
        repository: &'r CheckedRepository,
        sweep_processes: bool,
        require_confinement: bool,
    ) -> Result<(CampaignPlan<'r>, PathBuf, PathBuf, RunOptions), Failure> {
        let plan = self.plan(command, repository)?;
        let command = format!("campaign {command}");
        let state_dir = self.state_dir(repository);
        let path = self.folder(repository, &plan);
        for (flag, dir) in [("--state-dir", &state_dir), ("--out", &path)] {
            crate::run::refuse_inside_a_source(&command, repository, flag, dir)?;
        }
        // The campaign folder (its peers' attempts and records) is hidden from every worker.
        let mut options = RunOptions::new(&state_dir).hide(&path);
        if sweep_processes {
            options = options.process_isolation(ProcessIsolation::Sweep);
        }
        let expected = plan.expected_confinement(&KernelSupport::probe(), &options);
        let missing = confinement_shortfalls(expected.iter().map(|(_, report)| report));
        crate::run::confinement_gate(&command, &missing, require_confinement)?;
        Ok((plan, state_dir, path, options))
    }

    fn folder(&self, repository: &CheckedRepository, plan: &CampaignPlan<'_>) -> PathBuf {
        self.out.clone().unwrap_or_else(|| self.state_dir(repository).join("campaigns").join(plan.name()))
    }
}

/// How `jobs` slots divide this process's CPUs, after a warning for each way the slots fall short of a whole core
/// each; `None` (after a warning) when the CPUs cannot be read.
fn slot_plan(command: &str, jobs: usize) -> Option<SlotPlan> {
    match SlotPlan::probe(jobs) {
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
fn describe_cpus(plan: Option<&SlotPlan>) -> String {
    let Some(plan) = plan.filter(|plan| plan.is_divided()) else {
        return "shared: every worker runs on all the CPUs metewand may use".to_owned();
    };
    let slots: Vec<String> = plan.slots().iter().map(ToString::to_string).collect();
    let binding = match binding_of_chosen_cpus() {
        CpusBinding::Locked => "locked: a worker cannot change its CPUs",
        _ => "advisory: a worker could change its CPUs (no seccomp filters here)",
    };
    let executor = plan.executor().map_or_else(|| "the slots' CPUs".to_owned(), ToString::to_string);
    format!("slots on {} ({binding}); metewand's own threads on {executor}", slots.join(" | "))
}

fn plan(args: PlanArgs) -> Result<(), Failure> {
    let repository = args.selection.load()?;
    let plan = args.selection.plan("plan", &repository)?;
    let folder = args.selection.folder(&repository, &plan);
    let state_dir = args.selection.state_dir(&repository);
    let jobs = args.jobs.get();
    let summary = PlanSummary::of(&plan, &folder, &state_dir, jobs.get(), &Environment::capture(&repository));
    let [problems, datasets, dataset_seeds, implementations, implementation_seeds, repetitions] = summary.axes;
    let mut out = String::new();
    out.push_str(&format!("campaign     {}\n", plan.name()));
    out.push_str(&format!(
        "attempts     {} ({problems} problems x {datasets} datasets x {dataset_seeds} dataset seeds x \
         {implementations} implementations x {implementation_seeds} implementation seeds x {repetitions} \
         repetitions)\n",
        summary.attempts,
    ));
    out.push_str(&format!(
        "datasets     {} distinct ({} already in the store, {} failed earlier in this folder)\n",
        summary.datasets, summary.datasets_in_store, summary.datasets_failed
    ));
    out.push_str(&format!(
        "done         {} of {} ({} to run)\n",
        summary.status.done(),
        summary.attempts,
        summary.remaining()
    ));
    match summary.estimate {
        None => out.push_str("estimate     none yet: no attempt of this plan has a record\n"),
        Some(estimate) => out.push_str(&format!(
            "estimate     {} at -j {jobs} ({:.3} s per attempt over {} earlier records)\n",
            human(estimate.remaining_seconds),
            estimate.mean_seconds,
            estimate.records
        )),
    }
    out.push_str(&format!("folder       {}\n", folder.display()));
    out.push_str(&format!("cpus         {}\n", describe_cpus(args.jobs.cpus("campaign plan").as_ref())));
    for script in &summary.scripts {
        out.push_str(&format!(
            "note         {} is a script ({}), not a program: each start of workers {} runs it first (a \
             version manager's shim measured 131 ms a start against 45 ms for the interpreter itself); name the \
             interpreter's real path in their command to save it\n",
            script.path,
            script.script,
            script.workers.join(", ")
        ));
    }
    if args.list {
        for attempt in plan.attempts() {
            let entry = plan.entry(attempt);
            out.push_str(&format!(
                "attempt {} {} {} {} {} {} {}\n",
                entry.id,
                entry.problem,
                entry.dataset,
                entry.dataset_seed,
                entry.implementation,
                entry.implementation_seed,
                entry.repetition
            ));
        }
    }
    print_out("campaign plan", &out)
}

fn human(seconds: f64) -> String {
    if seconds >= 3600.0 {
        format!("{:.1} h", seconds / 3600.0)
    } else if seconds >= 60.0 {
        format!("{:.1} min", seconds / 60.0)
    } else {
        format!("{seconds:.1} s")
    }
}

fn label(plan: &CampaignPlan<'_>, attempt: &PlannedAttempt) -> String {
    format!(
        "{} {}#{} {}#{} r{}",
        plan.problems()[attempt.problem as usize],
        plan.datasets()[attempt.dataset as usize],
        attempt.dataset_seed,
        plan.implementations()[attempt.implementation as usize],
        attempt.implementation_seed,
        attempt.repetition
    )
}

/// Counts shared by both progress displays.
#[derive(Default)]
struct Counts {
    to_run: usize,
    finished: usize,
    running: usize,
    by_outcome: BTreeMap<String, usize>,
}

impl Counts {
    fn outcomes(&self) -> String {
        self.by_outcome.iter().map(|(outcome, count)| format!("{outcome} {count}")).collect::<Vec<_>>().join(", ")
    }
}

/// One line per finished attempt and materialization, for a stderr that is not a terminal.
struct Plain {
    counts: Mutex<Counts>,
}

impl Observer for Plain {
    fn begin(&self, planned: usize, skipped: usize, to_run: usize) {
        self.counts.lock().unwrap_or_else(|p| p.into_inner()).to_run = to_run;
        say(&format!("campaign: {planned} attempts planned, {skipped} already done, {to_run} to run"));
    }

    fn dataset_finished(&self, plan: &CampaignPlan<'_>, record: &DatasetMaterialization, elapsed: Duration) {
        let _ = plan;
        let outcome = match record.outcome {
            MaterializationOutcome::Ok if record.reused == Some(true) => "reused from the store".to_owned(),
            MaterializationOutcome::Ok => "materialized".to_owned(),
            MaterializationOutcome::Failed => format!(
                "FAILED ({})",
                record.failure.as_ref().map_or("unknown".to_owned(), |failure| failure.kind.to_string())
            ),
            MaterializationOutcome::Cancelled => "cancelled".to_owned(),
        };
        say(&format!("dataset {} seed {}: {outcome} in {:.3} s", record.dataset, record.seed, elapsed.as_secs_f64()));
    }

    fn attempt_finished(
        &self,
        plan: &CampaignPlan<'_>,
        attempt: &PlannedAttempt,
        record: &AttemptRecord,
        elapsed: Duration,
    ) {
        let mut counts = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        counts.finished += 1;
        let failure = record.failure.as_ref().map_or(String::new(), |failure| format!(" ({})", failure.kind));
        say(&format!(
            "[{}/{}] {}{failure} {} {} {:.3} s",
            counts.finished,
            counts.to_run,
            record.outcome,
            label(plan, attempt),
            attempt.id,
            elapsed.as_secs_f64()
        ));
    }
}

/// A live display for a terminal: done/total, running, by outcome, failures, ETA from observed durations.
struct Live {
    bar: indicatif::ProgressBar,
    counts: Mutex<Counts>,
}

impl Live {
    fn new() -> Live {
        let bar = indicatif::ProgressBar::new(0).with_style(
            indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} eta {eta} | {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        Live { bar, counts: Mutex::new(Counts::default()) }
    }

    fn refresh(&self, counts: &Counts) {
        let failed = counts.by_outcome.get("failed").copied().unwrap_or(0);
        self.bar.set_message(format!("running {} | {} | failed {failed}", counts.running, counts.outcomes()));
    }
}

impl Drop for Live {
    /// The bar stays on screen with its last counts, above the summary.
    fn drop(&mut self) {
        self.bar.abandon();
        // The bar's line is left as it is: the summary starts on the next one.
        let _ = writeln!(std::io::stderr());
    }
}

impl Observer for Live {
    fn begin(&self, planned: usize, skipped: usize, to_run: usize) {
        self.bar.set_length(to_run as u64);
        self.bar.println(format!("campaign: {planned} attempts planned, {skipped} already done, {to_run} to run"));
        self.counts.lock().unwrap_or_else(|p| p.into_inner()).to_run = to_run;
    }

    fn dataset_started(&self, _plan: &CampaignPlan<'_>, _dataset: &PlannedDataset) {
        let mut counts = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        counts.running += 1;
        self.refresh(&counts);
    }

    fn dataset_finished(&self, _plan: &CampaignPlan<'_>, record: &DatasetMaterialization, _elapsed: Duration) {
        let mut counts = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        counts.running -= 1;
        if record.outcome == MaterializationOutcome::Failed {
            self.bar.println(format!("dataset {} seed {}: materialization failed", record.dataset, record.seed));
        }
        self.refresh(&counts);
    }

    fn attempt_started(&self, _plan: &CampaignPlan<'_>, _attempt: &PlannedAttempt) {
        let mut counts = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        counts.running += 1;
        self.refresh(&counts);
    }

    fn attempt_finished(&self, plan: &CampaignPlan<'_>, attempt: &PlannedAttempt, record: &AttemptRecord, _: Duration) {
        let mut counts = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        counts.running -= 1;
        *counts.by_outcome.entry(record.outcome.to_string()).or_default() += 1;
        if let Some(failure) = &record.failure {
            self.bar.println(format!("{} {}: {}", record.outcome, label(plan, attempt), failure.kind));
        }
        self.bar.inc(1);
        self.refresh(&counts);
    }
}

struct Quiet;
impl Observer for Quiet {}

fn run_command(args: RunArgs) -> Result<(), Failure> {
    let selection = &args.selection;
    let repository = selection.load()?;
    let (plan, _, path, options) =
        selection.prepare("run", &repository, args.sweep_processes, args.require_confinement)?;
    let jobs = args.jobs.get();
    let cancel = crate::run::install_signal_handlers()?;
    let folder = CampaignFolder::open(&path, &plan, jobs.get() as u64, Environment::capture(&repository))
        .map_err(|error| Failure::Usage(format!("campaign run: {error}")))?;
    let cpus = args.jobs.cpus("campaign run");
    let config = RunConfig { jobs, cpus, retry_failed: args.retry_failed, options: options.cancel_on(cancel) };
    let observer: Box<dyn Observer> = if args.quiet {
        Box::new(Quiet)
    } else if std::io::stderr().is_terminal() {
        Box::new(Live::new())
    } else {
        Box::new(Plain { counts: Mutex::new(Counts::default()) })
    };
    let summary = run_campaign(&plan, &folder, &config, observer.as_ref())
        .map_err(|error| Failure::Usage(format!("campaign run: {error}")))?;
    drop(observer);
    for error in &summary.errors {
        say(&format!("campaign run: {error}"));
    }
    let outcomes: Vec<String> =
        summary.by_outcome.iter().map(|(outcome, count)| format!("{count} {outcome}")).collect();
    let mut out = format!(
        "campaign     {} ({} attempts: {} already done, {} run now{})\n",
        plan.name(),
        summary.planned,
        summary.skipped,
        summary.ran,
        if outcomes.is_empty() { String::new() } else { format!(": {}", outcomes.join(", ")) }
    );
    out.push_str(&format!(
        "complete     {} of {} with a verdict, {} failed\n",
        summary.with_verdict, summary.planned, summary.failed
    ));
    out.push_str(&format!("folder       {}\n", folder.path().display()));
    out.push_str(&format!("results      {}\n", folder.path().join(RESULTS_CSV).display()));
    let _ = print_out("campaign run", &out);
    let status = summary.exit_status();
    if status == 130 {
        say("campaign run: cancelled; run the same command again to resume (finished attempts are kept)");
    }
    if status == 0 { Ok(()) } else { Err(Failure::Status(status)) }
}

fn status(args: StatusArgs) -> Result<(), Failure> {
    let dir = args.dir.unwrap_or_else(|| PathBuf::from("."));
    let status = Status::of(&dir).map_err(|error| Failure::Usage(format!("campaign status: {error}")))?;
    let mut out = String::new();
    out.push_str(&format!("campaign     {} of {}\n", status.name, status.repository));
    out.push_str(&format!("planned      {}\n", status.planned));
    let outcomes: Vec<String> = status.by_outcome.iter().map(|(outcome, count)| format!("{outcome} {count}")).collect();
    out.push_str(&format!(
        "done         {}{}\n",
        status.done(),
        if outcomes.is_empty() { String::new() } else { format!(" ({})", outcomes.join(", ")) }
    ));
    let kinds: Vec<String> = status.failed_by_kind.iter().map(|(kind, count)| format!("{kind} {count}")).collect();
    if !kinds.is_empty() {
        out.push_str(&format!("failed       {}\n", kinds.join(", ")));
    }
    let cancelled = status.by_outcome.get("cancelled").copied().unwrap_or(0);
    out.push_str(&format!(
        "missing      {} ({} never started, {} unfinished, {} cancelled, {} invalid records)\n",
        status.missing + status.unfinished + cancelled + status.invalid.len(),
        status.missing,
        status.unfinished,
        cancelled,
        status.invalid.len()
    ));
    for (id, reason) in &status.invalid {
        out.push_str(&format!("invalid      attempts/{id}/attempt.json {reason}\n"));
    }
    if dir.join(slurm::SLURM_DIR).exists() {
        out.push_str(&slurm_lines(&dir));
    }
    print_out("campaign status", &out)?;
    if status.complete() { Ok(()) } else { Err(Failure::Status(1)) }
}

/// The Slurm part of `campaign status`: each job's tasks by state, and the attempts without a record by what their
/// task does. Slurm not answering is said on its line, not a failure of the status.
fn slurm_lines(dir: &Path) -> String {
    let found = Slurm::connect().map_err(slurm::Error::from).and_then(|slurm| slurm::status(dir, &slurm));
    let status = match found {
        Ok(Some(status)) => status,
        Ok(None) => return String::new(),
        Err(error) => return format!("slurm        unknown: {error}\n"),
    };
    let mut out = String::new();
    for (number, job, states) in &status.jobs {
        let states: Vec<String> = states.iter().map(|(state, count)| format!("{state} {count}")).collect();
        out.push_str(&format!(
            "job          {} ({}, submission {number}): {} task{} ({})\n",
            job.job_id,
            job.script,
            job.tasks,
            if job.tasks == 1 { "" } else { "s" },
            states.join(", ")
        ));
    }
    out.push_str(&format!(
        "slurm        {} attempts queued, {} in running tasks, {} lost (their task ended without a record; the next \
         submit runs them), {} never submitted\n",
        status.pending, status.running, status.lost, status.not_submitted
    ));
    out
}

fn slurm_failure(command: &str, error: impl std::fmt::Display) -> Failure {
    Failure::Usage(format!("campaign {command}: {error}"))
}

fn submit(args: SubmitArgs) -> Result<(), Failure> {
    let _ = args.slurm;
    let slurm = Slurm::connect().map_err(|error| slurm_failure("submit", error))?;
    let selection = &args.selection;
    let repository = selection.load()?;
    let (plan, state_dir, path, _) =
        selection.prepare("submit", &repository, args.sweep_processes, args.require_confinement)?;
    // The tasks find the dataset store by this path: absolute, whatever the login node's working directory.
    let state_dir = std::fs::create_dir_all(&state_dir)
        .and_then(|()| state_dir.canonicalize())
        .map_err(|error| slurm_failure("submit", format!("cannot create {}: {error}", state_dir.display())))?;
    let binary = std::env::current_exe()
        .map_err(|error| slurm_failure("submit", format!("cannot find the metewand program itself: {error}")))?;
    let config = slurm::SubmitConfig {
        binary,
        state_dir,
        pack: args.pack,
        max_parallel: args.max_parallel,
        time: args.time,
        partition: args.partition,
        account: args.account,
        sbatch_args: args.sbatch_args,
        retry_failed: args.retry_failed,
        sweep_processes: args.sweep_processes,
    };
    let summary = slurm::submit(&plan, &path, Environment::capture(&repository), &config, &slurm)
        .map_err(|error| slurm_failure("submit", error))?;
    let mut out =
        format!("campaign     {} ({} attempts: {} already done)\n", plan.name(), summary.planned, summary.done);
    match &summary.submission {
        None => out.push_str("submitted    nothing: every attempt has a record\n"),
        Some(submission) => {
            out.push_str(&format!(
                "submitted    submission {}: {} datasets to materialize, {} attempts in {} packs of up to {}\n",
                submission.number,
                submission.datasets.len(),
                submission.attempts.len(),
                submission.packs(),
                submission.pack_size
            ));
            if let Some(minutes) = summary.minutes {
                out.push_str(&format!(
                    "time limit   {minutes} min a task of attempts (the worst case of a pack, plus 5 min)\n"
                ));
            }
            for job in &submission.jobs {
                out.push_str(&format!(
                    "job          {} {} ({} task{})\n",
                    job.job_id,
                    job.script,
                    job.tasks,
                    if job.tasks == 1 { "" } else { "s" }
                ));
            }
        }
    }
    out.push_str(&format!("folder       {}\n", summary.folder.display()));
    print_out("campaign submit", &out)
}

fn work(args: WorkArgs) -> Result<(), Failure> {
    let task = match (args.pack, args.dataset) {
        (Some(pack), _) => slurm::work::Task::Pack(pack),
        (None, Some(dataset)) => slurm::work::Task::Dataset(dataset),
        (None, None) => return Err(Failure::Usage("campaign work: give --pack I or --dataset I".to_owned())),
    };
    let cancel = crate::run::install_signal_handlers()?;
    let observer = Plain { counts: Mutex::new(Counts::default()) };
    let summary = slurm::work::work(&args.dir, args.submission, task, Some(cancel), &observer)
        .map_err(|error| slurm_failure("work", error))?;
    for error in &summary.errors {
        say(&format!("campaign work: {error}"));
    }
    if !summary.not_ready.is_empty() {
        say(&format!(
            "campaign work: {} attempts were not run because their dataset has no materialization record (its task \
             was lost or cancelled); the next `campaign submit` runs them",
            summary.not_ready.len()
        ));
    }
    let status = summary.exit_status();
    if status == 130 {
        say(
            "campaign work: cancelled; the running attempt is recorded cancelled and the next `campaign submit` runs it again",
        );
    }
    if status == 0 { Ok(()) } else { Err(Failure::Status(status)) }
}

fn cancel(args: StatusArgs) -> Result<(), Failure> {
    let dir = args.dir.unwrap_or_else(|| PathBuf::from("."));
    CampaignFile::read(&dir).map_err(|error| slurm_failure("cancel", error))?;
    let slurm = Slurm::connect().map_err(|error| slurm_failure("cancel", error))?;
    let summary =
        slurm::cancel(&dir, &slurm, Duration::from_secs(120)).map_err(|error| slurm_failure("cancel", error))?;
    let list = |ids: &[u64]| ids.iter().map(u64::to_string).collect::<Vec<_>>().join(", ");
    if !summary.remaining.is_empty() {
        return Err(slurm_failure(
            "cancel",
            format!(
                "jobs {} are still there 120 s after they were cancelled; see `squeue -j {}`",
                list(&summary.remaining),
                list(&summary.remaining)
            ),
        ));
    }
    let mut out = String::new();
    if summary.cancelled.is_empty() {
        out.push_str("cancelled    nothing: no job of this campaign was pending or running\n");
    } else {
        out.push_str(&format!("cancelled    jobs {}\n", list(&summary.cancelled)));
    }
    out.push_str("queue        no job of this campaign is pending or running\n");
    print_out("campaign cancel", &out)
}

fn export_command(args: StatusArgs) -> Result<(), Failure> {
    let dir = args.dir.unwrap_or_else(|| PathBuf::from("."));
    export::write(&dir).map_err(|error| Failure::Usage(format!("campaign export: {error}")))?;
    print_out(
        "campaign export",
        &format!("{}\n{}\n", dir.join(RESULTS_CSV).display(), dir.join(export::RESULTS_JSONL).display()),
    )
}
