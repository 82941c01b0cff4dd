//! Where a submission stands in a campaign folder: for each problem, its implementations' places in the report's
//! ranking ([`crate::ranks`]), each with its mean rank, the rank's interval, and who the tests leave it tied with
//! and who it is slower or faster than. What `metewand judge` prints once the submission's attempts are recorded
//! beside the others'.

use std::fmt;
use std::path::Path;

use crate::error::ReportError;
use crate::load::Records;
use crate::ranks::{Ranking, p_value};
use crate::report::Report;

/// One implementation of the submission on one problem.
#[derive(Clone, Debug, PartialEq)]
pub struct Place {
    /// The problem.
    pub problem: String,
    /// The submission's implementation.
    pub implementation: String,
    /// Its place by mean rank, 1 for the first.
    pub position: usize,
    /// How many implementations the problem ranks.
    pub of: usize,
    /// Its mean rank over the problem's instances.
    pub mean_rank: f64,
    /// The bootstrap interval of the mean rank.
    pub interval: (f64, f64),
    /// What the tests say of it against every other implementation, in words.
    pub against: String,
}

/// The places of a submission's implementations on every problem that ranks them.
#[derive(Clone, Debug, PartialEq)]
pub struct Standing {
    /// Per problem, then per implementation of the submission, in the report's order.
    pub places: Vec<Place>,
    /// The submission's implementations no problem ranks (none of their attempts is in the folder).
    pub unranked: Vec<String>,
}

/// Where the implementations `submission` stand in the campaign folder `folder`.
pub fn standing(folder: &Path, submission: &[String]) -> Result<Standing, ReportError> {
    let records = Records::read(&[folder.to_owned()])?;
    let report = Report::new(&records, None);
    let mut places = Vec::new();
    for section in &report.problems {
        let Some(ranking) = &section.ranking else { continue };
        for (position, ranked) in ranking.ranked.iter().enumerate() {
            if !submission.contains(&ranked.implementation) {
                continue;
            }
            places.push(Place {
                problem: section.problem.clone(),
                implementation: ranked.implementation.clone(),
                position: position + 1,
                of: ranking.ranked.len(),
                mean_rank: ranked.mean_rank,
                interval: (ranked.ci_low, ranked.ci_high),
                against: against_all(ranking, &ranked.implementation),
            });
        }
    }
    let unranked =
        submission.iter().filter(|name| !places.iter().any(|place| &place.implementation == *name)).cloned().collect();
    Ok(Standing { places, unranked })
}

/// What the tests say of `name` against every other implementation of `ranking`: `tied with A (p = 0.41); faster
/// than B (p = 0.003)`, or `alone` when it is the only one.
fn against_all(ranking: &Ranking, name: &str) -> String {
    let (mut tied, mut slower, mut faster) = (Vec::new(), Vec::new(), Vec::new());
    for other in ranking.ranked.iter().filter(|other| other.implementation != name) {
        let Some(pair) = ranking.pair(name, &other.implementation) else { continue };
        let part = format!("{} (p = {})", other.implementation, p_value(pair.p_holm));
        let name_slower = (pair.second == name) == pair.second_slower;
        match (pair.separated(), name_slower) {
            (false, _) => tied.push(part),
            (true, true) => slower.push(part),
            (true, false) => faster.push(part),
        }
    }
    let parts: Vec<String> = [("tied with", tied), ("slower than", slower), ("faster than", faster)]
        .into_iter()
        .filter(|(_, names)| !names.is_empty())
        .map(|(words, names)| format!("{words} {}", names.join(", ")))
        .collect();
    if parts.is_empty() { "alone".to_owned() } else { parts.join("; ") }
}

impl fmt::Display for Standing {
    /// One line a place: `problem P: S ranks 2 of 3, mean rank 1.50 [1.00, 2.25]; tied with A (p = 0.41)`, then one
    /// line for each implementation no problem ranks.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for place in &self.places {
            writeln!(
                f,
                "problem {}: {} ranks {} of {}, mean rank {:.2} [{:.2}, {:.2}]; {}",
                place.problem,
                place.implementation,
                place.position,
                place.of,
                place.mean_rank,
                place.interval.0,
                place.interval.1,
                place.against
            )?;
        }
        for name in &self.unranked {
            writeln!(f, "{name}: no attempt of it is recorded in the folder, so no problem ranks it")?;
        }
        Ok(())
    }
}
