//! `metewand campaign submit`, `work`, `decide` and `cancel`: campaigns on Slurm.
//!
//! With `--until-decided` a submission is a round: the plan with the cap's repetitions cut to each cell's
//! repetitions so far ([`Rounds`]), submitted as any other, whose last job is `campaign decide` in place of the
//! export. That job decides from the records as `campaign run --until-decided` does and submits the next round (the
//! undecided cells' next repetition, and its own decide job), or, when no pair is undecided under the cap, writes
//! the exports. Submitting again continues from what the folder holds; a round with nothing left to run is decided
//! at once.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use metewand_campaign::plan::recorded_name;
use metewand_campaign::slurm::{self, Decision, Slurm, SubmitConfig, SubmitSummary};
use metewand_campaign::{Axes, CampaignPlan, Environment, Refusals, read_campaign};
use metewand_report::decide::PairStanding;
use metewand_report::rounds::{Rounds, Tally, UntilDecided};
use metewand_runtime::protocol::strict::SafeUint;

use crate::{Failure, print_out, say};

use super::progress::Plain;
use super::{DecideArgs, Sessions, StatusArgs, SubmitArgs, WorkArgs, decided, refused_for_reuse};
use metewand_runtime::exit::Exit;

fn slurm_failure(command: &str, error: impl std::fmt::Display) -> Failure {
    Failure::Usage(format!("campaign {command}: {error}"))
}

pub(super) fn submit(args: SubmitArgs) -> Result<(), Failure> {
    let _ = args.slurm;
    let selection = &args.selection;
    let repository = selection.load()?;
    let refusals =
        Refusals { weaker_confinement: args.require_confinement, unenforced_limits: !args.allow_unenforced_limits };
    let mut prepared = selection.prepare("submit", &repository, args.sweep_processes, refusals)?;
    // The tasks find the dataset store by this path: absolute, whatever the login node's working directory.
    let state_dir = prepared.settle_state_dir().map_err(|error| slurm_failure("submit", error))?.to_owned();
    // Built here, before any task starts: the tasks use them from the shared state folder, without the network.
    crate::env::build_declared(
        "campaign submit",
        &repository,
        &state_dir,
        metewand_runtime::environment::Pins::Required,
    )?;
    let binary = std::env::current_exe()
        .map_err(|error| slurm_failure("submit", format!("cannot find the metewand program itself: {error}")))?;
    let plan = prepared.plan();
    let until = &args.until;
    let rounds = if until.until_decided {
        Some(decided::request("submit", plan, until.max_repetitions, until.alpha, until.resolution)?)
    } else {
        None
    };
    // Asked once the request is known good: a bad request is refused alike with or without a cluster.
    let slurm = Slurm::connect().map_err(|error| slurm_failure("submit", error))?;
    let environment = metewand_campaign::environment::capture(&repository);
    let rerun_changed = args
        .rerun_changed
        .then(|| metewand_campaign::changes::ProgramCheck::new(plan, &environment).reading(prepared.folder()));
    let sessions = Sessions::resolve(args.sessions, args.warmup, plan);
    super::refuse_ahead_with_warmup("submit", args.ahead, sessions.1)?;
    let refused = refused_for_reuse("submit", &prepared, sessions.0, None);
    let config = SubmitConfig {
        binary,
        state_dir,
        pack: args.pack,
        max_parallel: args.max_parallel,
        time: args.time,
        partition: args.partition,
        account: args.account,
        sbatch_args: args.sbatch_args,
        retry_failed: args.retry_failed,
        rerun_changed,
        sweep_processes: args.sweep_processes,
        sessions,
        refused,
        ahead: args.ahead,
        until_decided: None,
        own_job: None,
    };
    let Some(request) = rounds else {
        let summary = slurm::submit(plan, prepared.folder(), environment, &config, &slurm)
            .map_err(|error| slurm_failure("submit", error))?;
        return print_out("campaign submit", &summary_lines(plan, &summary));
    };
    let config = SubmitConfig { until_decided: Some(recorded(&request, &config)), ..config };
    let axes = Axes { repetitions: Some(request.max_repetitions), ..selection.axes() };
    let capped = CampaignPlan::new(&repository, selection.name.as_deref(), &axes)
        .map_err(|error| slurm_failure("submit", error))?;
    let next = submit_rounds(&request, plan, &capped, prepared.folder(), &environment, &config, &slurm)
        .map_err(|error| slurm_failure("submit", error))?;
    let mut out = summary_lines(plan, next.summary());
    out.push_str(&next.lines(&request));
    print_out("campaign submit", &out)
}

/// What a submission printed: the campaign's counts, what was submitted and the folder.
fn summary_lines(plan: &CampaignPlan<'_>, summary: &SubmitSummary) -> String {
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
                    if job.tasks.get() == 1 { "" } else { "s" }
                ));
            }
        }
    }
    out.push_str(&format!("folder       {}\n", summary.folder.display()));
    out
}

/// What a round of `--until-decided` ended with.
enum Next {
    /// A round was submitted; its decide job decides what follows.
    Submitted(SubmitSummary),
    /// No round was due: every pair is decided, or its cells are at the cap.
    Decided(SubmitSummary, Vec<PairStanding>),
}

impl Next {
    fn summary(&self) -> &SubmitSummary {
        match self {
            Next::Submitted(summary) | Next::Decided(summary, _) => summary,
        }
    }

    /// The lines a submission or a decide job ends with.
    fn lines(&self, until: &UntilDecided) -> String {
        match self {
            Next::Submitted(summary) => format!(
                "rounds       submission {} ends with a decide job: it submits the next round if a pair is still \
                 undecided under {} repetitions\n",
                summary.submission.as_ref().map_or(0, |submission| submission.number.get()),
                until.max_repetitions
            ),
            Next::Decided(_, standings) => {
                let tally = Tally::of(standings);
                let mut out = format!(
                    "decided      {} pairs: {} separated, {} tied, {} undecided at {} repetitions\n",
                    tally.pairs, tally.separated, tally.tied, tally.undecided, until.max_repetitions
                );
                out.push_str(&decided::undecided_lines(standings));
                out
            }
        }
    }
}

/// The round `until` as a submission records it, with the Slurm options of `config` for the rounds after it.
fn recorded(until: &UntilDecided, config: &SubmitConfig) -> slurm::UntilDecided {
    slurm::UntilDecided {
        max_repetitions: SafeUint::try_from(until.max_repetitions).unwrap_or(SafeUint::MAX),
        alpha: until.thresholds.alpha().to_string(),
        resolution: until.thresholds.resolution().map(|resolution| resolution.to_string()),
        time: config.time.clone(),
        partition: config.partition.clone(),
        account: config.account.clone(),
        max_parallel: config.max_parallel.map(|n| SafeUint::try_from(n.get()).unwrap_or(SafeUint::MAX)),
        sbatch_args: config.sbatch_args.clone(),
        decision: None,
    }
}

/// Submits the next round of `capped` (the plan with the cap's repetitions) into `folder`, starting from the
/// repetitions the folder holds: a round with nothing to run is decided at once, and the next one tried.
fn submit_rounds(
    until: &UntilDecided,
    base: &CampaignPlan<'_>,
    capped: &CampaignPlan<'_>,
    folder: &Path,
    environment: &Environment,
    config: &SubmitConfig,
    slurm: &Slurm,
) -> Result<Next, String> {
    let mut rounds = Rounds::from_folder(capped, base.definition().repetitions.get(), folder);
    loop {
        let round = rounds.plan(base, capped);
        let summary =
            slurm::submit(&round, folder, environment.clone(), config, slurm).map_err(|error| error.to_string())?;
        if summary.submission.is_some() {
            return Ok(Next::Submitted(summary));
        }
        let (standings, more) = rounds.decide(folder, until).map_err(|error| error.to_string())?;
        if !more {
            return Ok(Next::Decided(summary, standings));
        }
    }
}

/// `campaign decide DIR --submission N`: the decide job of a round. What it decided, or why it could not, is
/// recorded in the submission (for `campaign status`) and said in its log.
pub(super) fn decide(args: DecideArgs) -> Result<(), Failure> {
    let decided = decide_round(&args.dir, args.submission);
    let decision = match &decided {
        Ok((decision, _)) => decision.clone(),
        Err(failure) => Decision { failure: Some(failure.clone()), ..decision_now() },
    };
    let recorded = slurm::record_decision(&args.dir, args.submission, decision);
    match (decided, recorded) {
        (Ok((_, out)), Ok(())) => print_out("campaign decide", &out),
        (Ok((_, out)), Err(error)) => {
            say(&format!("campaign decide: the decision cannot be recorded: {error}"));
            print_out("campaign decide", &out)
        }
        (Err(failure), Ok(())) => Err(slurm_failure("decide", failure)),
        // One sentence: what failed, and that the submission could not keep it either.
        (Err(failure), Err(error)) if error.to_string() == failure => Err(slurm_failure("decide", failure)),
        (Err(failure), Err(error)) => {
            Err(slurm_failure("decide", format!("{failure} (and it cannot be recorded: {error})")))
        }
    }
}

fn decision_now() -> Decision {
    Decision {
        decided_at: metewand_runtime::attempt::timestamp(SystemTime::now()),
        failure: None,
        next_submission: None,
        pairs: None,
        separated: None,
        tied: None,
        undecided: None,
    }
}

/// Decides round `number` of the folder `dir` and submits the next one, or writes the exports: the decision and
/// the lines to print, or why it failed in one sentence.
fn decide_round(dir: &Path, number: u64) -> Result<(Decision, String), String> {
    let submission = slurm::read_submission(dir, number).map_err(|error| error.to_string())?;
    // The decide job itself is still running: it is left out of the refusal to submit beside active jobs.
    let own = std::env::var("SLURM_JOB_ID").ok().and_then(|id| id.parse().ok());
    let config = SubmitConfig::next_round(&submission, own)
        .ok_or_else(|| format!("submission {number} of {} is not a round of --until-decided", dir.display()))?;
    let recorded = config.until_decided.as_ref().expect("a round's configuration holds its request");
    let number_of = |text: &str, flag: &str| {
        text.parse::<f64>().map_err(|_| format!("submission {number} records {flag} {text:?}, which is not a number"))
    };
    let alpha = number_of(&recorded.alpha, "alpha")?;
    let resolution = recorded.resolution.as_deref().map(|text| number_of(text, "resolution")).transpose()?;
    let (repository, axes, name) = slurm::work::recorded(dir, &submission).map_err(|error| error.to_string())?;
    let name = recorded_name(&name);
    let max_repetitions = recorded.max_repetitions.get();
    let base = CampaignPlan::new(&repository, name, &axes).map_err(|error| error.to_string())?;
    let until =
        UntilDecided::new(&base, Some(max_repetitions), alpha, resolution).map_err(|error| error.to_string())?;
    let capped = CampaignPlan::new(&repository, name, &Axes { repetitions: Some(max_repetitions), ..axes })
        .map_err(|error| error.to_string())?;
    let environment = metewand_campaign::environment::capture(&repository);
    let slurm = Slurm::connect().map_err(|error| error.to_string())?;
    let next = submit_rounds(&until, &base, &capped, dir, &environment, &config, &slurm)?;
    let mut out = summary_lines(&base, next.summary());
    out.push_str(&next.lines(&until));
    let safe = |n: usize| Some(SafeUint::try_from(n as u64).unwrap_or(SafeUint::MAX));
    let decision = match &next {
        Next::Submitted(summary) => {
            Decision { next_submission: summary.submission.as_ref().map(|s| s.number), ..decision_now() }
        }
        Next::Decided(_, standings) => {
            metewand_campaign::export::write(dir, metewand_campaign::index::Check::Entries)
                .map_err(|error| error.to_string())?;
            let tally = Tally::of(standings);
            Decision {
                pairs: safe(tally.pairs),
                separated: safe(tally.separated),
                tied: safe(tally.tied),
                undecided: safe(tally.undecided),
                ..decision_now()
            }
        }
    };
    Ok((decision, out))
}

pub(super) fn work(args: WorkArgs) -> Result<(), Failure> {
    let task = match (args.pack, args.dataset) {
        (Some(pack), _) => slurm::work::Task::Pack(pack),
        (None, Some(dataset)) => slurm::work::Task::Dataset(dataset),
        (None, None) => return Err(Failure::Usage("campaign work: give --pack I or --dataset I".to_owned())),
    };
    let cancel = crate::gate::install_signal_handlers()?;
    let observer = Plain::new();
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
    let exit = summary.exit();
    if exit == Exit::Cancelled {
        say(
            "campaign work: cancelled; the running attempt is recorded cancelled and the next `campaign submit` runs it again",
        );
    }
    if exit == Exit::Success { Ok(()) } else { Err(Failure::Status(exit)) }
}

pub(super) fn cancel(args: StatusArgs) -> Result<(), Failure> {
    let dir = args.dir.unwrap_or_else(|| PathBuf::from("."));
    read_campaign(&dir).map_err(|error| slurm_failure("cancel", error))?;
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
