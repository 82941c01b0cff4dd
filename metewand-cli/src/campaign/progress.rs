//! What `metewand campaign run` shows while it runs: a live bar on a terminal, a line per finished attempt
//! otherwise.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::Mutex;
use std::time::Duration;

use metewand_campaign::changes::ProgramChange;
use metewand_campaign::plan::PlannedDataset;
use metewand_campaign::{CampaignPlan, Observer, PlannedAttempt};
use metewand_protocol::generated::attempt_record::AttemptRecord;
use metewand_runtime::attempt::{DatasetMaterialization, DatasetMaterializationOutcome};

use crate::say;

pub(super) fn label(plan: &CampaignPlan<'_>, attempt: &PlannedAttempt) -> String {
    format!(
        "{} {}#{} {}#{} r{}",
        plan.problems()[attempt.problem as usize],
        plan.datasets()[attempt.dataset as usize],
        attempt.dataset_seed,
        plan.implementations()[attempt.implementation as usize],
        attempt.implementation_seed,
        attempt.repetition
    )
}

/// Counts shared by both progress displays.
#[derive(Default)]
pub(super) struct Counts {
    to_run: usize,
    finished: usize,
    running: usize,
    by_outcome: BTreeMap<String, usize>,
}

impl Counts {
    fn outcomes(&self) -> String {
        self.by_outcome.iter().map(|(outcome, count)| format!("{outcome} {count}")).collect::<Vec<_>>().join(", ")
    }

    /// The live bar's message: what runs now, then the outcomes so far, each only once there is something to say.
    fn live_message(&self) -> String {
        let mut parts = vec![format!("running {}", self.running)];
        if !self.by_outcome.is_empty() {
            parts.push(self.outcomes());
        }
        parts.join(" | ")
    }
}

/// One line per finished attempt and materialization, for a stderr that is not a terminal.
pub(super) struct Plain {
    counts: Mutex<Counts>,
}

impl Plain {
    pub(super) fn new() -> Plain {
        Plain { counts: Mutex::new(Counts::default()) }
    }
}

/// The line a run begins with: what the plan holds and what of it runs now.
fn begin_line(planned: usize, skipped: usize, shared: usize, to_run: usize) -> String {
    let shared = match shared {
        0 => String::new(),
        1 => ", 1 served by another cell's attempt (the same inputs)".to_owned(),
        n => format!(", {n} served by other cells' attempts (the same inputs)"),
    };
    format!("campaign: {planned} attempts planned, {skipped} already done{shared}, {to_run} to run")
}

impl Observer for Plain {
    fn programs_changed(&self, changes: &[(ProgramChange, usize)], rerun: bool) {
        for (change, attempts) in changes {
            say(&format!("campaign run: {}", super::plan::program_line(change, *attempts, rerun)));
        }
    }

    fn begin(&self, planned: usize, skipped: usize, shared: usize, to_run: usize) {
        self.counts.lock().unwrap_or_else(|p| p.into_inner()).to_run = to_run;
        say(&begin_line(planned, skipped, shared, to_run));
    }

    fn dataset_finished(&self, plan: &CampaignPlan<'_>, record: &DatasetMaterialization, elapsed: Duration) {
        let _ = plan;
        let outcome = match record.outcome {
            DatasetMaterializationOutcome::Ok if record.reused == Some(true) => "reused from the store".to_owned(),
            DatasetMaterializationOutcome::Ok => "materialized".to_owned(),
            DatasetMaterializationOutcome::Failed => format!(
                "FAILED ({})",
                record.failure.as_ref().map_or("unknown".to_owned(), |failure| failure.kind.to_string())
            ),
            DatasetMaterializationOutcome::Cancelled => "cancelled".to_owned(),
        };
        say(&format!("dataset {} seed {}: {outcome} in {:.3} s", record.dataset, record.seed, elapsed.as_secs_f64()));
    }

    fn attempt_finished(
        &self,
        plan: &CampaignPlan<'_>,
        attempt: &PlannedAttempt,
        record: &AttemptRecord,
        elapsed: Duration,
    ) {
        let mut counts = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        counts.finished += 1;
        let failure = record.failure.as_ref().map_or(String::new(), |failure| format!(" ({})", failure.kind));
        say(&format!(
            "[{}/{}] {}{failure} {} {} {:.3} s",
            counts.finished,
            counts.to_run,
            record.outcome,
            label(plan, attempt),
            attempt.id,
            elapsed.as_secs_f64()
        ));
    }
}

/// The time left, from the attempts finished so far, or `–` before the first has finished (there is nothing to
/// estimate from yet).
fn eta_once_known(state: &indicatif::ProgressState, out: &mut dyn std::fmt::Write) {
    let _ = if state.pos() == 0 {
        out.write_str("–")
    } else {
        write!(out, "{:#}", indicatif::HumanDuration(state.eta()))
    };
}

/// A live display for a terminal: done/total, running, by outcome, failures, ETA from observed durations.
pub(super) struct Live {
    bar: indicatif::ProgressBar,
    counts: Mutex<Counts>,
}

impl Live {
    pub(super) fn new() -> Live {
        let bar = indicatif::ProgressBar::new(0).with_style(
            indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} eta {eta_once_known} | {msg}")
                .map(|style| style.with_key("eta_once_known", eta_once_known))
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        Live { bar, counts: Mutex::new(Counts::default()) }
    }

    fn refresh(&self, counts: &Counts) {
        self.bar.set_message(counts.live_message());
    }
}

impl Drop for Live {
    /// The bar stays on screen with its last counts, above the summary.
    fn drop(&mut self) {
        self.bar.abandon();
        // The bar's line is left as it is: the summary starts on the next one.
        let _ = writeln!(std::io::stderr());
    }
}

impl Observer for Live {
    fn programs_changed(&self, changes: &[(ProgramChange, usize)], rerun: bool) {
        for (change, attempts) in changes {
            self.bar.println(format!("campaign run: {}", super::plan::program_line(change, *attempts, rerun)));
        }
    }

    fn begin(&self, planned: usize, skipped: usize, shared: usize, to_run: usize) {
        self.bar.set_length(to_run as u64);
        self.bar.println(begin_line(planned, skipped, shared, to_run));
        self.counts.lock().unwrap_or_else(|p| p.into_inner()).to_run = to_run;
    }

    fn dataset_started(&self, _plan: &CampaignPlan<'_>, _dataset: &PlannedDataset) {
        let mut counts = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        counts.running += 1;
        self.refresh(&counts);
    }

    fn dataset_finished(&self, _plan: &CampaignPlan<'_>, record: &DatasetMaterialization, _elapsed: Duration) {
        let mut counts = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        counts.running -= 1;
        if record.outcome == DatasetMaterializationOutcome::Failed {
            self.bar.println(format!("dataset {} seed {}: materialization failed", record.dataset, record.seed));
        }
        self.refresh(&counts);
    }

    fn attempt_started(&self, _plan: &CampaignPlan<'_>, _attempt: &PlannedAttempt) {
        let mut counts = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        counts.running += 1;
        self.refresh(&counts);
    }

    fn attempt_finished(&self, plan: &CampaignPlan<'_>, attempt: &PlannedAttempt, record: &AttemptRecord, _: Duration) {
        let mut counts = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        counts.running -= 1;
        *counts.by_outcome.entry(record.outcome.to_string()).or_default() += 1;
        if let Some(failure) = &record.failure {
            self.bar.println(format!("{} {}: {}", record.outcome, label(plan, attempt), failure.kind));
        }
        self.bar.inc(1);
        self.refresh(&counts);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_live_message_has_no_empty_segment_and_counts_failures_once() {
        let mut counts = Counts { running: 1, ..Counts::default() };
        assert_eq!(counts.live_message(), "running 1");
        counts.by_outcome.insert("failed".to_owned(), 2);
        counts.by_outcome.insert("reached".to_owned(), 3);
        assert_eq!(counts.live_message(), "running 1 | failed 2, reached 3");
    }
}
