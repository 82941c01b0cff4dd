//! `metewand campaign run`: runs or resumes a campaign on the local pool and prints its summary.

use std::io::IsTerminal;

use metewand_campaign::export::RESULTS_CSV;
use metewand_campaign::{Axes, CampaignPlan, Observer, Refusals, RunConfig, run as run_campaign};

use metewand_report::rounds::UntilDecided;

use crate::{Failure, print_out, say};

use super::decided::{self, run_until_decided};
use super::progress::{Live, Plain};
use super::{RunArgs, Sessions, plan, refuse_ahead_with_warmup, refused_for_reuse};
use metewand_runtime::environment::Pins;
use metewand_runtime::exit::Exit;

pub(super) fn run(args: RunArgs) -> Result<(), Failure> {
    match run_in_folder(&args)?.1 {
        Exit::Success => Ok(()),
        exit => Err(Failure::Status(exit)),
    }
}

/// Runs the campaign `args` select and prints its summary: the campaign folder and how the run ends.
pub(super) fn run_in_folder(args: &RunArgs) -> Result<(std::path::PathBuf, Exit), Failure> {
    let selection = &args.selection;
    let repository = selection.load()?;
    let refusals =
        Refusals { weaker_confinement: args.require_confinement, unenforced_limits: !args.allow_unenforced_limits };
    let prepared = selection.prepare("run", &repository, args.sweep_processes, refusals)?;
    let plan = prepared.plan();
    let jobs = args.jobs.get();
    let (sessions, warmup) = Sessions::resolve(args.sessions, args.warmup, plan);
    let ahead = args.jobs.ahead(sessions, warmup);
    refuse_ahead_with_warmup("run", ahead, warmup)?;
    // Campaigns measure what a rebuild can reproduce: every requirement pinned.
    crate::env::build_declared("campaign run", &repository, prepared.state_dir(), Pins::Required)?;
    let cancel = crate::gate::install_signal_handlers()?;
    for line in plan::changed_worker_lines(&prepared.changed_workers()) {
        say(&format!("campaign run: {line}"));
    }
    let environment = metewand_campaign::environment::capture(&repository);
    let programs = metewand_campaign::changes::ProgramCheck::new(plan, &environment).reading(prepared.folder());
    // With --until-decided each round opens the folder for its own plan, taken from the plan with the cap's
    // repetitions (the same ids as a plan of that many); otherwise the run holds it from here.
    let mode = if args.until.until_decided {
        let until = decided::request("run", plan, args.until.max_repetitions, args.until.alpha, args.until.resolution)?;
        let axes = Axes { repetitions: Some(until.max_repetitions), ..selection.axes() };
        let capped = CampaignPlan::new(&repository, selection.name.as_deref(), &axes)
            .map_err(|error| Failure::Usage(format!("campaign run: {error}")))?;
        Mode::UntilDecided(until, Box::new(capped))
    } else {
        let folder = prepared
            .open(jobs.get() as u64, environment.clone())
            .map_err(|error| Failure::Usage(format!("campaign run: {error}")))?;
        Mode::Plain(folder)
    };
    let cpus = args.jobs.cpus("campaign run", ahead);
    let refused = refused_for_reuse("run", &prepared, sessions, cpus.as_ref());
    let config = RunConfig {
        jobs,
        cpus,
        retry_failed: args.retry_failed,
        programs,
        rerun_changed: args.rerun_changed,
        sessions,
        warmup,
        refused,
        ahead,
        options: prepared.options().clone().cancel_on(cancel),
    };
    let observer: Box<dyn Observer> = if args.quiet {
        Box::new(metewand_campaign::runner::Silent)
    } else if std::io::stderr().is_terminal() {
        Box::new(Live::new())
    } else {
        Box::new(Plain::new())
    };
    let (path, summary, decided) = match &mode {
        Mode::UntilDecided(until, capped) => {
            let path = prepared.folder();
            let decided = run_until_decided(until, plan, capped, path, &environment, &config, observer.as_ref())?;
            (path.to_owned(), decided.summary, Some((until, decided.standings, decided.rounds)))
        }
        Mode::Plain(folder) => {
            let summary = run_campaign(plan, folder, &config, observer.as_ref())
                .map_err(|error| Failure::Usage(format!("campaign run: {error}")))?;
            (folder.path().to_owned(), summary, None)
        }
    };
    drop(observer);
    for error in &summary.errors {
        say(&format!("campaign run: {error}"));
    }
    let outcomes: Vec<String> =
        summary.by_outcome.iter().map(|(outcome, count)| format!("{count} {outcome}")).collect();
    let mut out = format!(
        "campaign     {} ({} attempts: {} already done, {}{} run now{})\n",
        plan.name(),
        summary.planned,
        summary.skipped,
        if summary.shared > 0 { format!("{} served by another cell's, ", summary.shared) } else { String::new() },
        summary.ran,
        if outcomes.is_empty() { String::new() } else { format!(": {}", outcomes.join(", ")) }
    );
    out.push_str(&format!(
        "complete     {} of {} with a verdict, {} failed\n",
        summary.with_verdict, summary.planned, summary.failed
    ));
    if let Some((until, standings, rounds)) = decided {
        out.push_str(&decided::lines(&standings, rounds, until));
    }
    out.push_str(&format!("folder       {}\n", path.display()));
    out.push_str(&format!("results      {}\n", path.join(RESULTS_CSV).display()));
    let _ = print_out("campaign run", &out);
    let exit = summary.exit();
    if exit == Exit::Cancelled {
        say("campaign run: cancelled; run the same command again to resume (finished attempts are kept)");
    } else {
        // The report's reading, once, while the folder is at hand: the first report or comparison after a run of a
        // million attempts then decodes its cache rather than reading every entry. A folder a report refuses is
        // the report's to tell of.
        let _ = metewand_report::keep_reading(&path);
    }
    Ok((path, exit))
}

/// How the run holds its folder.
enum Mode<'r> {
    /// The plan as asked, in the folder the run holds.
    Plain(metewand_campaign::CampaignFolder),
    /// `--until-decided`: rounds over the plan with the cap's repetitions, each opening the folder itself.
    UntilDecided(UntilDecided, Box<CampaignPlan<'r>>),
}
