//! `metewand campaign status` and `export`: what a campaign folder holds, and its exports written again.

use std::path::{Path, PathBuf};

use metewand_campaign::Status;
use metewand_campaign::export::{self, RESULTS_CSV};
use metewand_campaign::prepared::{default_folder, default_state_dir};
use metewand_campaign::slurm::{self, Decision, JobKind, Slurm};
use metewand_runtime::protocol::strict::SafeUint;

use crate::{Failure, print_out};

use super::ReadArgs;
use metewand_runtime::exit::Exit;

pub(super) fn status(args: ReadArgs) -> Result<(), Failure> {
    let check = args.check.check();
    let args = args.folder;
    let given = args.dir.unwrap_or_else(|| PathBuf::from("."));
    let dir = match &args.name {
        Some(name) => default_folder(&args.state_dir.unwrap_or_else(|| default_state_dir(&given)), name),
        None => given,
    };
    let status = Status::of(&dir, check).map_err(|error| Failure::Usage(format!("campaign status: {error}")))?;
    let mut out = String::new();
    out.push_str(&format!("campaign     {} of {}\n", status.name, status.repository));
    out.push_str(&format!("planned      {}\n", status.planned));
    let outcomes: Vec<String> = status.by_outcome.iter().map(|(outcome, count)| format!("{outcome} {count}")).collect();
    out.push_str(&format!(
        "done         {}{}\n",
        status.done(),
        if outcomes.is_empty() { String::new() } else { format!(" ({})", outcomes.join(", ")) }
    ));
    let kinds: Vec<String> = status.failed_by_cause.iter().map(|(kind, count)| format!("{kind} {count}")).collect();
    if !kinds.is_empty() {
        out.push_str(&format!("failed       {}\n", kinds.join(", ")));
    }
    let cancelled = status.by_outcome.get("cancelled").copied().unwrap_or(0);
    out.push_str(&format!(
        "missing      {} ({} never started, {} unfinished, {} cancelled, {} invalid records)\n",
        status.missing + status.unfinished + cancelled + status.invalid.len(),
        status.missing,
        status.unfinished,
        cancelled,
        status.invalid.len()
    ));
    for (id, reason) in &status.invalid {
        out.push_str(&format!("invalid      attempts/{id}/attempt.json {reason}\n"));
    }
    if dir.join(slurm::SLURM_DIR).exists() {
        out.push_str(&slurm_lines(&dir));
    }
    print_out("campaign status", &out)?;
    if status.complete() { Ok(()) } else { Err(Failure::Status(Exit::Rejected)) }
}

/// The Slurm part of `campaign status`: each job's tasks by state, and the attempts without a record by what their
/// task does. Slurm not answering is said on its line, not a failure of the status.
fn slurm_lines(dir: &Path) -> String {
    let found = Slurm::connect().map_err(slurm::Error::from).and_then(|slurm| slurm::status(dir, &slurm));
    let status = match found {
        Ok(Some(status)) => status,
        Ok(None) => return String::new(),
        Err(error) => return format!("slurm        unknown: {error}\n"),
    };
    let mut out = String::new();
    for (number, job, states) in &status.jobs {
        let states: Vec<String> = states.iter().map(|(state, count)| format!("{state} {count}")).collect();
        out.push_str(&format!(
            "job          {} ({}, submission {number}): {} task{} ({})\n",
            job.job_id,
            job.script,
            job.tasks,
            if job.tasks.get() == 1 { "" } else { "s" },
            states.join(", ")
        ));
    }
    out.push_str(&format!(
        "slurm        {} attempts queued, {} in running tasks, {} lost (their task ended without a record; the next \
         submit runs them), {} never submitted\n",
        status.pending, status.running, status.lost, status.not_submitted
    ));
    out.push_str(&round_lines(dir, &status));
    out
}

/// One line for each round of `--until-decided`: what its decide job decided, that it waits, or why it failed.
fn round_lines(dir: &Path, status: &slurm::SlurmStatus) -> String {
    let Ok(all) = slurm::submissions(dir) else { return String::new() };
    let mut out = String::new();
    for submission in &all {
        let Some(until) = &submission.until_decided else { continue };
        let number = submission.number;
        let decide = status.jobs.iter().find(|(n, job, _)| *n == number.get() && job.kind == JobKind::Decide);
        let line = match &until.decision {
            Some(Decision { failure: Some(failure), .. }) => {
                format!("its decide job failed: {failure}; fix that and submit again with --until-decided")
            }
            Some(Decision { next_submission: Some(next), .. }) => {
                format!("decided: the next round is submission {next}")
            }
            Some(decision) => format!(
                "decided: {} pairs, {} separated, {} tied, {} undecided at {} repetitions",
                count(decision.pairs),
                count(decision.separated),
                count(decision.tied),
                count(decision.undecided),
                until.max_repetitions
            ),
            None => match decide {
                Some((_, job, states)) if states.keys().any(|state| ACTIVE.contains(&state.as_str())) => {
                    format!("its decide job {} decides once the round's attempts end", job.job_id)
                }
                Some((_, job, _)) => format!(
                    "its decide job {} ended without deciding (see slurm/{number}/logs/decide-{}.out); submit again \
                     with --until-decided to continue",
                    job.job_id, job.job_id
                ),
                None => "its decide job was never queued; submit again with --until-decided to continue".to_owned(),
            },
        };
        out.push_str(&format!("round        submission {number}: {line}\n"));
    }
    out
}

/// The states (as `campaign status` writes them) of a job that has not ended.
const ACTIVE: [&str; 4] = ["pending", "configuring", "running", "completing"];

fn count(n: Option<SafeUint>) -> u64 {
    n.map_or(0, SafeUint::get)
}

pub(super) fn export(args: ReadArgs) -> Result<(), Failure> {
    let dir = args.folder.dir.unwrap_or_else(|| PathBuf::from("."));
    export::write(&dir, args.check.check()).map_err(|error| Failure::Usage(format!("campaign export: {error}")))?;
    // As after a run (and a Slurm campaign's export job): the report's reading left for the next report.
    let _ = metewand_report::keep_reading(&dir);
    print_out(
        "campaign export",
        &format!("{}\n{}\n", dir.join(RESULTS_CSV).display(), dir.join(export::RESULTS_JSONL).display()),
    )
}
