//! `metewand campaign run --until-decided`: after the planned repetitions, rounds of one more repetition for each
//! cell with a pair the report's test leaves undecided (`metewand_report::decide`), until every pair is decided or
//! its cells are at `--max-repetitions`. Each round is a run of the local pool over the plan cut to the
//! repetitions each cell has been given ([`Rounds`], shared with `campaign submit --until-decided`), so repetition
//! `k` has the id it has with `repetitions = k`, and a run after a kill starts from the repetitions the folder
//! already holds.

use std::path::Path;

use metewand_campaign::{CampaignFolder, CampaignPlan, Environment, Observer, RunConfig, RunSummary, run};
use metewand_report::decide::{PairStanding, Standing};
use metewand_report::rounds::{Rounds, Tally, UntilDecided};

use crate::Failure;

/// The request for `plan`, refused in one sentence of `command` where it cannot be met
/// ([`UntilDecided::new`]).
pub(super) fn request(
    command: &str,
    plan: &CampaignPlan<'_>,
    max_repetitions: Option<u64>,
    alpha: f64,
    resolution: Option<f64>,
) -> Result<UntilDecided, Failure> {
    UntilDecided::new(plan, max_repetitions, alpha, resolution)
        .map_err(|error| Failure::Usage(format!("campaign {command}: {error}")))
}

/// How a run with `--until-decided` ended.
pub(super) struct Decided {
    /// Its rounds' summaries together.
    pub(super) summary: RunSummary,
    /// Every pair with how it stands after the last round (none when a round was cancelled or failed to write).
    pub(super) standings: Vec<PairStanding>,
    /// How many rounds ran, the planned repetitions' included.
    pub(super) rounds: usize,
}

/// Runs `base` (the plan as asked) and then rounds of repetitions into `folder` until every pair is decided or at
/// the cap, each round a run of the pool with `config`.
pub(super) fn run_until_decided(
    until: &UntilDecided,
    base: &CampaignPlan<'_>,
    capped: &CampaignPlan<'_>,
    folder: &Path,
    environment: &Environment,
    config: &RunConfig,
    observer: &dyn Observer,
) -> Result<Decided, Failure> {
    let failure = |text: String| Failure::Usage(format!("campaign run: {text}"));
    let planned = base.definition().repetitions.get();
    let mut given = Rounds::from_folder(capped, planned, folder);
    let mut total = RunSummary::default();
    let mut rounds = 0;
    loop {
        let round = given.plan(base, capped);
        let open = CampaignFolder::open(folder, &round, config.jobs.get() as u64, environment.clone())
            .map_err(|error| failure(error.to_string()))?;
        let summary = run(&round, &open, config, observer).map_err(|error| failure(error.to_string()))?;
        drop(open);
        rounds += 1;
        let stop = summary.cancelled || !summary.errors.is_empty();
        total = merged(total, summary, rounds == 1);
        if stop {
            return Ok(Decided { summary: total, standings: Vec::new(), rounds });
        }
        let (standings, more) = given.decide(folder, until).map_err(|error| failure(error.to_string()))?;
        if !more {
            return Ok(Decided { summary: total, standings, rounds });
        }
    }
}

/// The summary of rounds so far with the next round's: what ran and was skipped added up (skipped only as the
/// first round found it), the plan's counts as the last round left them.
fn merged(total: RunSummary, round: RunSummary, first: bool) -> RunSummary {
    let mut by_outcome = total.by_outcome;
    for (outcome, count) in round.by_outcome {
        *by_outcome.entry(outcome).or_default() += count;
    }
    let mut errors = total.errors;
    errors.extend(round.errors);
    RunSummary {
        planned: round.planned,
        skipped: if first { round.skipped } else { total.skipped },
        shared: round.shared,
        ran: total.ran + round.ran,
        by_outcome,
        errors,
        cancelled: round.cancelled,
        with_verdict: round.with_verdict,
        failed: round.failed,
    }
}

/// The lines the run's summary ends with: how the pairs stand, and the ones still undecided at the cap (the first
/// ten, then how many more).
pub(super) fn lines(standings: &[PairStanding], rounds: usize, until: &UntilDecided) -> String {
    let tally = Tally::of(standings);
    let mut out = format!(
        "decided      {} pairs after {} rounds: {} separated, {} tied, {} undecided at {} repetitions\n",
        tally.pairs, rounds, tally.separated, tally.tied, tally.undecided, until.max_repetitions
    );
    out.push_str(&undecided_lines(standings));
    out
}

/// Each pair still undecided with its adjusted p (the first ten, then how many more).
pub(super) fn undecided_lines(standings: &[PairStanding]) -> String {
    let mut out = String::new();
    let undecided: Vec<&PairStanding> =
        standings.iter().filter(|pair| matches!(pair.standing, Standing::Undecided(_))).collect();
    for pair in undecided.iter().take(10) {
        let p = match pair.standing {
            Standing::Undecided(p) => p,
            Standing::Separated(_) | Standing::Tied => continue,
        };
        out.push_str(&format!("undecided    {} (p = {p:.3})\n", pair.label()));
    }
    if undecided.len() > 10 {
        out.push_str(&format!("undecided    and {} more\n", undecided.len() - 10));
    }
    out
}
