//! The rounds of `--until-decided`, on the local pool (`campaign run`) and on Slurm (`campaign submit`) alike: what
//! the request may ask ([`UntilDecided`]), each cell's repetitions as the folder holds them, the plan of the next
//! round cut from the plan with the cap's repetitions, and after a round's records, one more repetition for each
//! cell [`decide`](crate::decide) leaves with an undecided pair ([`Rounds`]).
//!
//! A round's attempts come from the plan with `repetitions` at the cap, so repetition `k` of a cell has the id it
//! has in any plan of `k` or more repetitions, and a round a kill cut short is found again from the attempt
//! folders it left.

use std::collections::HashMap;
use std::path::Path;

use metewand_campaign::{CampaignPlan, PlannedAttempt};

use crate::decide::{CellKey, PairStanding, Standing, ThresholdError, Thresholds, standings, undecided_cells};
use crate::error::ReportError;
use crate::load::Records;

/// The cap on repetitions when `--max-repetitions` is not given.
pub const DEFAULT_MAX_REPETITIONS: u64 = 20;

/// Why an `--until-decided` request was refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum UntilDecidedError {
    /// The campaign has fewer than two implementations: no pair to decide.
    #[error("--until-decided compares implementations, and the campaign has only {0}; give it two or more")]
    OneImplementation(usize),
    /// The level or the resolution.
    #[error(transparent)]
    Thresholds(#[from] ThresholdError),
    /// The cap is under the repetitions already planned.
    #[error(
        "--max-repetitions {max_repetitions} is under the {planned} repetitions the campaign already plans; give \
         {planned} or more"
    )]
    UnderPlanned {
        /// The cap asked for.
        max_repetitions: u64,
        /// The planned repetitions.
        planned: u64,
    },
}

/// What `--until-decided` asks: the most repetitions a cell is given, and the thresholds of the test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UntilDecided {
    /// The most repetitions a cell is given, at least the planned ones.
    pub max_repetitions: u64,
    /// The test's level and the resolution under which a difference is a tie.
    pub thresholds: Thresholds,
}

impl UntilDecided {
    /// The request for `plan` (the campaign as asked), refused where it cannot be met: one implementation, a level
    /// outside (0, 0.5], a resolution that is not positive, a cap under the planned repetitions. Without a cap,
    /// [`DEFAULT_MAX_REPETITIONS`] or the planned repetitions, when more.
    pub fn new(
        plan: &CampaignPlan<'_>,
        max_repetitions: Option<u64>,
        alpha: f64,
        resolution: Option<f64>,
    ) -> Result<UntilDecided, UntilDecidedError> {
        if plan.implementations().len() < 2 {
            return Err(UntilDecidedError::OneImplementation(plan.implementations().len()));
        }
        let thresholds = Thresholds::new(alpha, resolution)?;
        let planned = plan.definition().repetitions.get();
        let max_repetitions = max_repetitions.unwrap_or(DEFAULT_MAX_REPETITIONS.max(planned));
        if max_repetitions < planned {
            return Err(UntilDecidedError::UnderPlanned { max_repetitions, planned });
        }
        Ok(UntilDecided { max_repetitions, thresholds })
    }
}

/// A cell of a plan by the names its records hold.
fn cell_of(plan: &CampaignPlan<'_>, attempt: &PlannedAttempt) -> CellKey {
    let entry = plan.entry(attempt);
    (
        entry.problem.to_string(),
        entry.dataset.to_string(),
        entry.dataset_seed.get(),
        entry.implementation.to_string(),
        entry.implementation_seed.get(),
    )
}

/// Each cell's repetitions so far, between the rounds of one campaign folder.
#[derive(Clone, Debug)]
pub struct Rounds {
    given: HashMap<CellKey, u64>,
    planned: u64,
}

/// How the pairs stand after a round, counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Pairs compared.
    pub pairs: usize,
    /// Pairs the test separates.
    pub separated: usize,
    /// Pairs within the resolution.
    pub tied: usize,
    /// Pairs neither.
    pub undecided: usize,
}

impl Tally {
    /// The pairs of `standings` by how they stand.
    pub fn of(standings: &[PairStanding]) -> Tally {
        let count = |kind: fn(&Standing) -> bool| standings.iter().filter(|pair| kind(&pair.standing)).count();
        Tally {
            pairs: standings.len(),
            separated: count(|standing| matches!(standing, Standing::Separated(_))),
            tied: count(|standing| matches!(standing, Standing::Tied)),
            undecided: count(|standing| matches!(standing, Standing::Undecided(_))),
        }
    }
}

impl Rounds {
    /// Each cell of `capped` (the plan with the cap's repetitions) given the `planned` repetitions, or as many as
    /// the highest of its attempt folders in `folder` when more (a round a kill cut short, or rounds run before).
    pub fn from_folder(capped: &CampaignPlan<'_>, planned: u64, folder: &Path) -> Rounds {
        let mut given: HashMap<CellKey, u64> = HashMap::new();
        for attempt in capped.attempts() {
            let held = folder.join("attempts").join(attempt.id.as_str()).exists();
            let count = given.entry(cell_of(capped, attempt)).or_insert(planned);
            if held && attempt.repetition > *count {
                *count = attempt.repetition;
            }
        }
        Rounds { given, planned }
    }

    /// The plan of this round: `capped` cut to the repetitions each cell has been given, under `base`'s
    /// definition (the campaign as asked).
    pub fn plan<'r>(&self, base: &CampaignPlan<'_>, capped: &CampaignPlan<'r>) -> CampaignPlan<'r> {
        capped.restricted(base.definition().clone(), |attempt| {
            attempt.repetition <= self.given.get(&cell_of(capped, attempt)).copied().unwrap_or(self.planned)
        })
    }

    /// Decides from the records of `folder` how every pair stands, and gives one more repetition to each cell with
    /// an undecided pair that is under the cap; the second value says whether any cell got one (another round is
    /// due).
    pub fn decide(&mut self, folder: &Path, until: &UntilDecided) -> Result<(Vec<PairStanding>, bool), ReportError> {
        let records = Records::read(&[folder.to_owned()])?;
        let standings = standings(&records, until.thresholds);
        let mut more = false;
        for cell in undecided_cells(&standings) {
            if let Some(count) = self.given.get_mut(&cell).filter(|count| **count < until.max_repetitions) {
                *count += 1;
                more = true;
            }
        }
        Ok((standings, more))
    }
}
