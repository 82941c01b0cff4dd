//! `metewand audit FOLDER --sample K [--seed S]`: done attempts of a campaign run again in fresh sessions and
//! compared with their records and their cells, through `metewand-campaign`'s audit. This module parses flags and
//! prints the summary.

use std::num::NonZeroUsize;
use std::path::PathBuf;

use metewand_campaign::audit::{
    AuditConfig, AuditError, AuditReport, AuditedAttempt, DEFAULT_TOLERANCE_PERCENT, SLACK_NS,
};
use metewand_campaign::{PrepareWarning, Refusals};
use metewand_protocol::strict::SafeUint;
use metewand_runtime::cpus::SlotPlan;
use metewand_runtime::exit::Exit;
use metewand_runtime::session::ProcessIsolation;

use crate::{Failure, print_out, say};

const LONG_ABOUT: &str = "Runs K done attempts of a campaign folder again (attempts judged to the end, drawn at
random with the seed, which is printed and recorded), one after the other in another order than the campaign's,
each in fresh confined sessions exactly as a campaign runs it, from the repository the campaign ran (refused if it
changed since). Each re-run is held against its record (a changed outcome or verdict) and against its cell, the
campaign's repetitions of the same implementation, dataset, problem and seeds: its time must fall within the
fastest and slowest of them, widened by --tolerance percent of each and by --slack milliseconds. A verdict that changes or a time
outside tells of an implementation that answers from what it kept, or whose time depends on something it was not
given. The re-runs' attempt folders and audit.json are written in FOLDER/audits/<UTC time>/.";

/// `metewand audit`.
#[derive(clap::Args)]
#[command(
    about = "run a sample of a campaign's done attempts again and compare verdicts and times",
    long_about = LONG_ABOUT,
    after_help = "exit statuses: 0 every re-run agreed, 1 a verdict changed or a time fell outside its cell's \
                  interval, 130 cancelled, 2 usage, folder or repository error"
)]
pub(crate) struct Args {
    /// the campaign folder
    #[arg(value_name = "FOLDER")]
    folder: PathBuf,
    /// how many done attempts to run again, at least 1
    #[arg(long, value_name = "K", value_parser = crate::at_least_one::<NonZeroUsize>)]
    sample: NonZeroUsize,
    /// the seed the sample and its order are drawn with (default: one from the clock, printed)
    #[arg(long, value_name = "S", value_parser = crate::parse_seed)]
    seed: Option<SafeUint>,
    /// how far beyond its cell's fastest and slowest time a re-run may fall, in percent of them
    #[arg(long, value_name = "PERCENT", default_value_t = DEFAULT_TOLERANCE_PERCENT)]
    tolerance: u64,
    /// milliseconds every interval is widened by on each side besides the percentage
    #[arg(long, value_name = "MS", default_value_t = SLACK_NS / 1_000_000)]
    slack: u64,
    /// the repository to run the attempts from (default: the one the campaign ran from, as its campaign.json names
    /// it); a bundle's repository/ once unpacked, which must plan the very attempts recorded
    #[arg(long, value_name = "REPO")]
    repo: Option<PathBuf>,
    /// the state folder holding the dataset store (default: REPO/.metewand/)
    #[arg(long, value_name = "DIR")]
    state_dir: Option<PathBuf>,
    /// refuse to start (exit 2) unless every worker would run fully confined
    #[arg(long)]
    require_confinement: bool,
    /// run even where a limit `[limits]` sets cannot be held for a worker here (warned)
    #[arg(long)]
    allow_unenforced_limits: bool,
    /// keep each worker's processes together with the freezing sweep instead of a PID namespace
    #[arg(long)]
    sweep_processes: bool,
}

pub(crate) fn run(args: Args) -> Result<(), Failure> {
    let cancel = crate::gate::install_signal_handlers()?;
    let config = AuditConfig {
        sample: args.sample,
        seed: args.seed,
        tolerance_percent: args.tolerance,
        slack_ns: args.slack.saturating_mul(1_000_000),
        repository: args.repo,
        state_dir: args.state_dir,
        isolation: if args.sweep_processes { ProcessIsolation::Sweep } else { ProcessIsolation::default() },
        refusals: Refusals {
            weaker_confinement: args.require_confinement,
            unenforced_limits: !args.allow_unenforced_limits,
        },
        cpus: SlotPlan::probe(1).ok(),
        cancel: Some(cancel),
    };
    let mut warn = |warning: PrepareWarning<'_>| match warning {
        PrepareWarning::WeakerConfinement(missing) => crate::gate::warn_weaker_confinement("audit", missing),
        PrepareWarning::UnenforcedLimit(limit) => crate::gate::warn_unenforced_limit("audit", limit),
    };
    let report = metewand_campaign::audit::audit(&args.folder, &config, &mut warn).map_err(|error| match error {
        AuditError::Cancelled { .. } => {
            say(&format!("audit: {error}"));
            Failure::Status(Exit::Cancelled)
        }
        error => Failure::Usage(format!("audit: {error}")),
    })?;
    print_out("audit", &summary(&report))?;
    let changed = report.verdict_changes().count();
    let outside = report.times_outside().count();
    if report.passed() {
        return Ok(());
    }
    Err(Failure::Rejected(format!(
        "audit: {changed} verdict{} changed and {outside} time{} fell outside {} cell's interval (listed above); \
         the campaign's results do not hold on a second run",
        if changed == 1 { "" } else { "s" },
        if outside == 1 { "" } else { "s" },
        if outside == 1 { "its" } else { "their" },
    )))
}

/// What `audit` prints: where the record is, what was drawn, a line per re-run that differs, and the result.
fn summary(report: &AuditReport) -> String {
    let audit = &report.audit;
    let mut out = format!("audit        {}\n", report.path.display());
    out.push_str(&format!(
        "campaign     {} ({} of {} done attempts, seed {}, tolerance {}% + {} ms)\n",
        audit.campaign,
        audit.sample.get(),
        audit.done.get(),
        audit.seed.get(),
        audit.tolerance_percent.get(),
        audit.slack_ns.get() / 1_000_000
    ));
    for attempt in report.verdict_changes() {
        out.push_str(&format!("verdict      {}: {}\n", attempt.attempt_id.as_str(), verdicts(attempt)));
    }
    for attempt in report.times_outside() {
        out.push_str(&format!("time         {}: {}\n", attempt.attempt_id.as_str(), times(attempt)));
    }
    out.push_str(&if report.passed() {
        "result       every re-run agreed with its record and its cell\n".to_owned()
    } else {
        format!(
            "result       {} verdict changes, {} times outside\n",
            report.verdict_changes().count(),
            report.times_outside().count()
        )
    });
    out
}

fn verdicts(attempt: &AuditedAttempt) -> String {
    let said = |outcome: &dyn std::fmt::Display, verdict: Option<&dyn std::fmt::Display>| match verdict {
        Some(verdict) => format!("{outcome} (verdict {verdict})"),
        None => format!("{outcome} (no verdict)"),
    };
    let (recorded, rerun) = (&attempt.recorded, &attempt.rerun);
    format!(
        "recorded {}, re-run {}",
        said(&recorded.outcome, recorded.verdict.as_ref().map(|v| v as &dyn std::fmt::Display)),
        said(&rerun.outcome, rerun.verdict.as_ref().map(|v| v as &dyn std::fmt::Display)),
    )
}

fn times(attempt: &AuditedAttempt) -> String {
    let ms = |ns: u64| format!("{:.3} ms", ns as f64 / 1e6);
    let interval = &attempt.interval;
    let allowed = format!(
        "its cell's {} timed repetitions allow {}..{}",
        interval.repetitions.get(),
        ms(interval.low_ns.get()),
        ms(interval.high_ns.get())
    );
    match attempt.rerun.time_ns {
        Some(ns) => format!("re-run took {}, {allowed}", ms(ns.get())),
        None => format!("re-run was not timed (not judged to the end), {allowed}"),
    }
}
