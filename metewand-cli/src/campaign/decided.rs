//! `metewand campaign run --until-decided`: after the planned repetitions, rounds of one more repetition for each
//! cell with a pair the report's test leaves undecided (`metewand_report::decide`), until every pair is decided or
//! its cells are at `--max-repetitions`. Each round is a run of the local pool over the plan cut to the
//! repetitions each cell has been given ([`CampaignPlan::restricted`] of the plan with the cap's repetitions), so
//! repetition `k` has the id it has with `repetitions = k`, and a run after a kill starts from the repetitions
//! the folder already holds.

use std::collections::HashMap;
use std::path::Path;

use metewand_campaign::{CampaignFolder, CampaignPlan, Environment, Observer, RunConfig, RunSummary, run};
use metewand_report::Records;
use metewand_report::decide::{PairStanding, Standing, Thresholds, standings, undecided_cells};

use crate::Failure;

/// The cap on repetitions when `--max-repetitions` is not given.
pub(super) const DEFAULT_MAX_REPETITIONS: u64 = 20;

/// What `--until-decided` asks.
pub(super) struct UntilDecided {
    /// The most repetitions a cell is given.
    pub(super) max_repetitions: u64,
    /// The test's level and the resolution under which a difference is a tie.
    pub(super) thresholds: Thresholds,
}

impl UntilDecided {
    /// The request for `plan`, refused in one sentence where it cannot be met: one implementation (no pair to
    /// decide), a level outside (0, 0.5], a cap under the repetitions already planned.
    pub(super) fn new(
        plan: &CampaignPlan<'_>,
        max_repetitions: Option<u64>,
        alpha: f64,
        resolution: Option<f64>,
    ) -> Result<UntilDecided, Failure> {
        let usage = |text: String| Failure::Usage(format!("campaign run: {text}"));
        if plan.implementations().len() < 2 {
            return Err(usage(format!(
                "--until-decided compares implementations, and the campaign has only {}; give it two or more",
                plan.implementations().len()
            )));
        }
        let thresholds = Thresholds::new(alpha, resolution).map_err(|error| usage(error.to_string()))?;
        let planned = plan.definition().repetitions.get();
        let max_repetitions = max_repetitions.unwrap_or(DEFAULT_MAX_REPETITIONS.max(planned));
        if max_repetitions < planned {
            return Err(usage(format!(
                "--max-repetitions {max_repetitions} is under the {planned} repetitions the campaign already plans; \
                 give {planned} or more"
            )));
        }
        Ok(UntilDecided { max_repetitions, thresholds })
    }
}

/// A cell of a plan by the names its records hold: problem, dataset, dataset seed, implementation,
/// implementation seed.
type Cell = (String, String, u64, String, u64);

fn cell_of(plan: &CampaignPlan<'_>, attempt: &metewand_campaign::PlannedAttempt) -> Cell {
    let entry = plan.entry(attempt);
    (
        entry.problem.to_string(),
        entry.dataset.to_string(),
        entry.dataset_seed.get(),
        entry.implementation.to_string(),
        entry.implementation_seed.get(),
    )
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
    // Each cell's repetitions: the planned ones, or as many as the folder holds (a round a kill cut short).
    let mut given: HashMap<Cell, u64> = HashMap::new();
    for attempt in capped.attempts() {
        let held = folder.join("attempts").join(attempt.id.as_str()).exists();
        let count = given.entry(cell_of(capped, attempt)).or_insert(planned);
        if held && attempt.repetition > *count {
            *count = attempt.repetition;
        }
    }
    let mut total = RunSummary::default();
    let mut rounds = 0;
    loop {
        let round = capped.restricted(base.definition().clone(), |attempt| {
            attempt.repetition <= given.get(&cell_of(capped, attempt)).copied().unwrap_or(planned)
        });
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
        let records = Records::read(&[folder.to_owned()]).map_err(|error| failure(error.to_string()))?;
        let standings = standings(&records, until.thresholds);
        let mut more = false;
        for cell in undecided_cells(&standings) {
            if let Some(count) = given.get_mut(&cell).filter(|count| **count < until.max_repetitions) {
                *count += 1;
                more = true;
            }
        }
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
    let count = |kind: fn(&Standing) -> bool| standings.iter().filter(|pair| kind(&pair.standing)).count();
    let separated = count(|standing| matches!(standing, Standing::Separated(_)));
    let tied = count(|standing| matches!(standing, Standing::Tied));
    let undecided: Vec<&PairStanding> =
        standings.iter().filter(|pair| matches!(pair.standing, Standing::Undecided(_))).collect();
    let mut out = format!(
        "decided      {} pairs after {} rounds: {separated} separated, {tied} tied, {} undecided at {} repetitions\n",
        standings.len(),
        rounds,
        undecided.len(),
        until.max_repetitions
    );
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
