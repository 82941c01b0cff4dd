//! `metewand campaign plan`: what a campaign would run, from the plan and what its folder already holds.

use metewand_campaign::summary::PlanSummary;

use crate::{Failure, print_out};

use super::*;

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
    out.push_str(&format!(
        "datasets     {} distinct ({} already in the store, {} failed earlier in this folder)\n",
        summary.datasets, summary.datasets_in_store, summary.datasets_failed
    ));
    out.push_str(&format!(
        "done         {} of {} ({} to run)\n",
        summary.status.done(),
        summary.attempts,
        summary.remaining()
    ));
    if !summary.changed_workers.is_empty() {
        let workers: Vec<String> =
            summary.changed_workers.iter().map(|(worker, records)| format!("{worker} ({records} records)")).collect();
        out.push_str(&format!(
            "changed      workers {}: their identity differs from the one the earlier run's records name (their \
             source, command or environment changed), so those attempts have new ids and run again\n",
            workers.join(", ")
        ));
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
    out.push_str(&format!("cpus         {}\n", describe_cpus(args.jobs.cpus("campaign plan").as_ref())));
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
