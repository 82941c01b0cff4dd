//! `metewand campaign run`: runs or resumes a campaign on the local pool and prints its summary.

use std::io::IsTerminal;

use metewand_campaign::export::RESULTS_CSV;
use metewand_campaign::{Observer, Refusals, RunConfig, run as run_campaign};

use crate::{Failure, print_out, say};

use super::progress::{Live, Plain};
use super::{RunArgs, Sessions, plan, refuse_ahead_with_warmup, refused_for_reuse};
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
    let ahead = args.jobs.ahead(sessions);
    refuse_ahead_with_warmup("run", ahead, warmup)?;
    let cancel = crate::gate::install_signal_handlers()?;
    for line in plan::changed_worker_lines(&prepared.changed_workers()) {
        say(&format!("campaign run: {line}"));
    }
    let environment = metewand_campaign::environment::capture(&repository);
    let programs = metewand_campaign::changes::ProgramCheck::new(plan, &environment);
    let folder = prepared
        .open(jobs.get() as u64, environment)
        .map_err(|error| Failure::Usage(format!("campaign run: {error}")))?;
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
    let summary = run_campaign(plan, &folder, &config, observer.as_ref())
        .map_err(|error| Failure::Usage(format!("campaign run: {error}")))?;
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
    out.push_str(&format!("folder       {}\n", folder.path().display()));
    out.push_str(&format!("results      {}\n", folder.path().join(RESULTS_CSV).display()));
    let _ = print_out("campaign run", &out);
    let exit = summary.exit();
    if exit == Exit::Cancelled {
        say("campaign run: cancelled; run the same command again to resume (finished attempts are kept)");
    }
    Ok((folder.path().to_owned(), exit))
}
