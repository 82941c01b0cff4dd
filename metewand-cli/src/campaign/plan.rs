//! `metewand campaign plan`: what a campaign would run, from the plan and what its folder already holds.

use metewand_campaign::changes::{ChangedWorker, ProgramChange};
use metewand_campaign::summary::PlanSummary;

use crate::{Failure, print_out};

use super::{PlanArgs, describe_cpus};

pub(super) fn plan(args: PlanArgs) -> Result<(), Failure> {
    let repository = args.selection.load()?;
    let plan = args.selection.plan("plan", &repository)?;
    let folder = args.selection.folder(&repository, &plan);
    let state_dir = args.selection.state_dir(&repository);
    let jobs = args.jobs.get();
    let summary =
        PlanSummary::of(&plan, &folder, &state_dir, jobs.get(), &metewand_campaign::environment::capture(&repository));
    let [problems, datasets, dataset_seeds, implementations, implementation_seeds, repetitions] = summary.axes;
    let mut out = String::new();
    out.push_str(&format!("campaign     {}\n", plan.name()));
    out.push_str(&format!(
        "attempts     {} ({problems} problems x {datasets} datasets x {dataset_seeds} dataset seeds x \
         {implementations} implementations x {implementation_seeds} implementation seeds x {repetitions} \
         repetitions)\n",
        summary.attempts,
    ));
    for implementation in plan.implementations() {
        if let Some(folder) = repository.implementations()[implementation].external() {
            out.push_str(&format!("external     implementation {implementation} from {}\n", folder.display()));
        }
    }
    out.push_str(&format!(
        "datasets     {} distinct ({} already in the store, {} failed earlier in this folder)\n",
        summary.datasets, summary.datasets_in_store, summary.datasets_failed
    ));
    out.push_str(&format!(
        "done         {} of {} ({} to run{})\n",
        summary.status.done(),
        summary.attempts,
        summary.remaining(),
        match summary.shared {
            0 => String::new(),
            1 => ", 1 served by another cell's attempt with the same inputs".to_owned(),
            n => format!(", {n} served by other cells' attempts with the same inputs"),
        }
    ));
    for line in changed_worker_lines(&summary.changed_workers) {
        out.push_str(&format!("changed      {line}\n"));
    }
    for (change, attempts) in &summary.changed_programs {
        out.push_str(&format!("program      {}\n", program_line(change, *attempts, false)));
    }
    match summary.estimate {
        None => out.push_str("estimate     none yet: no attempt of this plan has a record\n"),
        Some(estimate) => out.push_str(&format!(
            "estimate     {} at -j {jobs} ({:.3} s per attempt over {} earlier records)\n",
            human(estimate.remaining_seconds),
            estimate.mean_seconds,
            estimate.records
        )),
    }
    out.push_str(&format!("folder       {}\n", folder.display()));
    let (sessions, warmup) = plan.sessions();
    let ahead = args.jobs.ahead(sessions, warmup);
    out.push_str(&format!("cpus         {}\n", describe_cpus(args.jobs.cpus("campaign plan", ahead).as_ref(), ahead)));
    for script in &summary.scripts {
        out.push_str(&format!(
            "note         {} is a script ({}), not a program: each start of workers {} runs it first (a \
             version manager's shim measured 131 ms a start against 45 ms for the interpreter itself); name the \
             interpreter's real path in their command to save it\n",
            script.path,
            script.script,
            script.workers.join(", ")
        ));
    }
    if args.list {
        for attempt in plan.attempts() {
            let entry = plan.entry(attempt);
            out.push_str(&format!(
                "attempt {} {} {} {} {} {} {}\n",
                entry.id,
                entry.problem,
                entry.dataset,
                entry.dataset_seed,
                entry.implementation,
                entry.implementation_seed,
                entry.repetition
            ));
        }
    }
    print_out("campaign plan", &out)
}

fn human(seconds: f64) -> String {
    if seconds >= 3600.0 {
        format!("{:.1} h", seconds / 3600.0)
    } else if seconds >= 60.0 {
        format!("{:.1} min", seconds / 60.0)
    } else {
        format!("{seconds:.1} s")
    }
}

/// One line per worker whose identity changed since the folder's earlier records: which part, and which files.
pub(super) fn changed_worker_lines(changed: &[ChangedWorker]) -> Vec<String> {
    changed
        .iter()
        .map(|worker| {
            let parts = if worker.parts.is_empty() {
                "its source, include folders, command or environment".to_owned()
            } else {
                worker.parts.join(", ")
            };
            let mut line = format!(
                "worker {} changed since {} of the earlier records ({parts}), so its attempts have new ids and run again",
                worker.worker, worker.records
            );
            if let Some(files) = worker.files.as_ref().filter(|files| !files.is_empty()) {
                let mut listed = Vec::new();
                for (what, paths) in [("changed", &files.changed), ("added", &files.added), ("removed", &files.removed)] {
                    if !paths.is_empty() {
                        listed.push(format!("{what} {}", abbreviated(paths)));
                    }
                }
                line.push_str(&format!("; files {}", listed.join("; ")));
            }
            line
        })
        .collect()
}

/// Up to five paths, then how many more.
fn abbreviated(paths: &[String]) -> String {
    let mut text = paths.iter().take(5).cloned().collect::<Vec<_>>().join(", ");
    if paths.len() > 5 {
        text.push_str(&format!(" and {} more", paths.len() - 5));
    }
    text
}

/// What a program change says: which worker, then and now, and what happens to the attempts.
pub(super) fn program_line(change: &ProgramChange, attempts: usize, rerun: bool) -> String {
    let fate = if rerun { "they run again" } else { "they are kept; --rerun-changed runs them again" };
    format!(
        "worker {}: {attempts} done attempts ran {}, its command finds {} now; {fate}",
        change.worker, change.then, change.now
    )
}
