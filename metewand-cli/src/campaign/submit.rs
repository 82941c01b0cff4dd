//! `metewand campaign submit`, `work` and `cancel`: campaigns on Slurm.

use std::path::PathBuf;
use std::time::Duration;

use metewand_campaign::slurm::{self, Slurm};
use metewand_campaign::{Refusals, read_campaign};

use crate::{Failure, print_out, say};

use super::progress::Plain;
use super::{Sessions, StatusArgs, SubmitArgs, WorkArgs, refused_for_reuse};
use metewand_runtime::exit::Exit;

fn slurm_failure(command: &str, error: impl std::fmt::Display) -> Failure {
    Failure::Usage(format!("campaign {command}: {error}"))
}

pub(super) fn submit(args: SubmitArgs) -> Result<(), Failure> {
    let _ = args.slurm;
    if !args.selection.with.is_empty() {
        // A task loads the repository from the submission's record, which names no external folder.
        return Err(Failure::Usage(
            "campaign submit: --with is for campaigns run on this machine (campaign run, judge): a Slurm task loads \
             the repository alone"
                .to_owned(),
        ));
    }
    let slurm = Slurm::connect().map_err(|error| slurm_failure("submit", error))?;
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
    let environment = metewand_campaign::environment::capture(&repository);
    let rerun_changed = args
        .rerun_changed
        .then(|| metewand_campaign::changes::ProgramCheck::new(plan, &environment).reading(prepared.folder()));
    let sessions = Sessions::resolve(args.sessions, args.warmup, plan);
    super::refuse_ahead_with_warmup("submit", args.ahead, sessions.1)?;
    let refused = refused_for_reuse("submit", &prepared, sessions.0, None);
    let config = slurm::SubmitConfig {
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
    };
    let summary = slurm::submit(plan, prepared.folder(), environment, &config, &slurm)
        .map_err(|error| slurm_failure("submit", error))?;
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
    print_out("campaign submit", &out)
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
