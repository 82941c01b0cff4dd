//! Performance profiles (Dolan and Moré, 2002) of time to `reached`.
//!
//! The instances of a problem are its (dataset, dataset seed) pairs; the solvers are its implementations. An
//! implementation's time on an instance is the median over its attempts there (every implementation seed and
//! repetition) of the execute time, an attempt that did not reach the verdict (`not_reached`, `invalid`,
//! `not_required`, failed) counting as infinite, as does an instance it has no terminal record on. Its
//! performance ratio on an instance is that time over the best implementation's time there, and its profile
//! ρ(τ) is the fraction of instances whose ratio is at most τ: ρ(1) is how often it is the fastest, and its
//! limit how often it reaches the verdict at all.

use serde::Serialize;

/// One implementation's profile.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProfileSeries {
    /// The implementation.
    pub implementation: String,
    /// Its performance ratio on each instance, ascending; `None` is infinite (never within any τ).
    pub ratios: Vec<Option<f64>>,
}

impl ProfileSeries {
    /// ρ(τ): the fraction of instances whose ratio is at most `tau`.
    pub fn rho(&self, tau: f64) -> f64 {
        if self.ratios.is_empty() {
            return 0.0;
        }
        let within = self.ratios.iter().filter(|ratio| ratio.is_some_and(|ratio| ratio <= tau)).count();
        within as f64 / self.ratios.len() as f64
    }

    /// The corners of the step function: each distinct finite ratio with ρ there, ascending.
    pub fn steps(&self) -> Vec<(f64, f64)> {
        let n = self.ratios.len() as f64;
        let mut steps: Vec<(f64, f64)> = Vec::new();
        for (index, ratio) in self.ratios.iter().enumerate() {
            let Some(ratio) = *ratio else { break };
            let rho = (index + 1) as f64 / n;
            match steps.last_mut() {
                Some(last) if last.0 == ratio => last.1 = rho,
                _ => steps.push((ratio, rho)),
            }
        }
        steps
    }
}

/// The profiles of one problem's implementations.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Profile {
    /// How many instances.
    pub instances: usize,
    /// One series per implementation, in the report's order.
    pub series: Vec<ProfileSeries>,
}

impl Profile {
    /// The profiles from `times[implementation][instance]`: each implementation's attempt times on each instance,
    /// `None` for an attempt that did not reach the verdict. An instance with no attempts counts as infinite.
    pub fn new(names: &[String], times: &[Vec<Vec<Option<f64>>>]) -> Profile {
        let instances = times.first().map_or(0, Vec::len);
        let best_times: Vec<Vec<Option<f64>>> = times
            .iter()
            .map(|per_instance| per_instance.iter().map(|attempts| median_time(attempts)).collect())
            .collect();
        let best: Vec<Option<f64>> = (0..instances)
            .map(|instance| best_times.iter().filter_map(|row| row[instance]).min_by(f64::total_cmp))
            .collect();
        let series = names
            .iter()
            .zip(&best_times)
            .map(|(name, row)| {
                let mut ratios: Vec<Option<f64>> = row
                    .iter()
                    .zip(&best)
                    .map(|(time, best)| match (time, best) {
                        (Some(time), Some(best)) if *best > 0.0 => Some(time / best),
                        // A best time of zero (a clock too coarse to see the work): equal times tie at 1.
                        (Some(time), Some(_)) => Some(if *time == 0.0 { 1.0 } else { f64::INFINITY }),
                        _ => None,
                    })
                    .map(|ratio| ratio.filter(|ratio| ratio.is_finite()))
                    .collect();
                ratios.sort_by(|a, b| match (a, b) {
                    (Some(a), Some(b)) => a.total_cmp(b),
                    (Some(_), None) => std::cmp::Ordering::Less,
                    (None, Some(_)) => std::cmp::Ordering::Greater,
                    (None, None) => std::cmp::Ordering::Equal,
                });
                ProfileSeries { implementation: name.clone(), ratios }
            })
            .collect();
        Profile { instances, series }
    }

    /// The largest finite ratio of any series (at least 1).
    pub fn max_ratio(&self) -> f64 {
        self.series.iter().flat_map(|series| series.ratios.iter().flatten()).copied().fold(1.0, f64::max)
    }
}

/// The median of attempt times with `None` as infinite; `None` when it is infinite or there are no attempts.
fn median_time(attempts: &[Option<f64>]) -> Option<f64> {
    if attempts.is_empty() {
        return None;
    }
    let mut finite: Vec<f64> = attempts.iter().flatten().copied().collect();
    finite.sort_by(f64::total_cmp);
    let n = attempts.len();
    // Infinite values sort last: the middle order statistics are finite only while they fall among the finite.
    let (first, second) = ((n - 1) / 2, n / 2);
    if second >= finite.len() {
        return None;
    }
    Some((finite[first] + finite[second]) / 2.0)
}
