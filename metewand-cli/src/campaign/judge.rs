//! `metewand judge`: a submission (an external folder) run through the repository's campaign beside the stored
//! results of the others, then where it stands, problem by problem ([`metewand_report::standing`]).

use std::path::PathBuf;

use metewand_runtime::exit::Exit;

use crate::{Failure, print_out};

use super::{Jobs, RunArgs, Selection};

/// `metewand judge`.
#[derive(clap::Args)]
#[command(
    about = "run a submission's implementations through the repository's campaign and print where they stand",
    long_about = "Runs the implementations of DIR (a folder holding metewand-implementation.toml) through the \
repository's campaign, in the campaign's own folder: the attempts already recorded there (the other implementations') \
are kept, only what is missing runs. Then prints, for each problem, where each of the submission's implementations \
ranks: its place, its mean rank over the instances with the bootstrap interval, and who it is tied with, slower or \
faster than by the report's tests. The repository is left as it is.",
    after_help = "exit statuses: 0 every attempt has a verdict (whatever the verdict), 3 at least one attempt \
                  failed, 130 cancelled, 2 usage, repository or folder error"
)]
pub(crate) struct Args {
    /// the benchmark repository
    #[arg(value_name = "REPO")]
    repo: PathBuf,
    /// the submission: a folder holding metewand-implementation.toml
    #[arg(value_name = "DIR")]
    dir: PathBuf,
    /// the campaign (default: the repository's one campaign, or the one named `default`)
    #[arg(long, value_name = "C")]
    campaign: Option<String>,
    /// how many attempts run at once (default 1)
    #[arg(short = 'j', long = "jobs", value_name = "N", value_parser = crate::at_least_one::<std::num::NonZeroUsize>)]
    jobs: Option<std::num::NonZeroUsize>,
    /// the state folder holding datasets/ and campaigns/ (default: REPO/.metewand/)
    #[arg(long, value_name = "STATE")]
    state_dir: Option<PathBuf>,
    /// no progress on stderr
    #[arg(long, short = 'q')]
    quiet: bool,
}

pub(crate) fn run(args: Args) -> Result<(), Failure> {
    let repository = crate::gate::load(&args.repo)?;
    let campaign = metewand_campaign::plan::default_campaign(&repository, args.campaign.as_deref())
        .map_err(|error| Failure::Usage(format!("judge: {error}")))?
        .to_owned();
    drop(repository);
    let run = RunArgs {
        selection: Selection {
            repo: Some(args.repo.clone()),
            name: Some(campaign),
            problems: Vec::new(),
            datasets: Vec::new(),
            implementations: Vec::new(),
            dataset_seeds: None,
            implementation_seeds: None,
            repetitions: None,
            with: vec![args.dir.clone()],
            out: None,
            state_dir: args.state_dir.clone(),
        },
        jobs: Jobs { jobs: args.jobs, share_cpus: false, ahead: false, no_ahead: true },
        retry_failed: false,
        rerun_changed: false,
        quiet: args.quiet,
        require_confinement: false,
        allow_unenforced_limits: false,
        sweep_processes: false,
        sessions: None,
        warmup: None,
        until: super::UntilDecidedArgs { until_decided: false, max_repetitions: None, alpha: 0.05, resolution: None },
    };
    let submission: Vec<String> = {
        let repository = run.selection.load()?;
        repository.external_implementations().into_iter().map(str::to_owned).collect()
    };
    let (folder, exit) = super::run::run_in_folder(&run)?;
    let standing =
        metewand_report::standing(&folder, &submission).map_err(|error| Failure::Usage(format!("judge: {error}")))?;
    print_out("judge", &standing.to_string())?;
    if exit == Exit::Success { Ok(()) } else { Err(Failure::Status(exit)) }
}
