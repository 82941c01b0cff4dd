//! Memory a worker holds outside its address space counts against `[limits] memory_bytes` (DESIGN §23): System V
//! segments of its IPC namespace stop at the limit (the namespace's `shmall`, set from it by the worker's child),
//! or are refused where no namespace of its own can be bounded (the sweep); memfds are refused while no cgroup
//! counts them. The control: the same worker without a memory limit holds all it asks.

use metewand_session::{Confinement, LimitMechanism, Limits, ProcessConfinement, ProcessIsolation};

use super::Fixture;
use super::confinement::{attacked, check_report, outcome, unprivileged};

const ENOSPC: &str = "errno 28";
const ENOSYS: &str = "errno 38";

/// What the worker asks to hold: four times its limit.
const ASKED: u64 = 512 << 20;
const LIMIT: u64 = 128 << 20;

/// How many bytes the worker's log says it held.
fn held(log: &str, what: &str) -> u64 {
    log.lines()
        .find_map(|line| {
            line.strip_prefix("test-worker: held ")?.strip_suffix(what)?.strip_suffix(" bytes")?.parse().ok()
        })
        .unwrap_or_else(|| panic!("no count of {what} in the log:\n{log}"))
}

fn shared_memory_counts() {
    let limited = Limits {
        output_bytes: 16 << 20,
        memory_bytes: Some(LIMIT),
        processes: Limits::DEFAULT_PROCESSES,
        cpu_seconds: None,
    };
    let asked = ASKED.to_string();
    for isolation in [ProcessIsolation::Namespace, ProcessIsolation::Sweep] {
        for (attack, what) in [("shm", " of System V shared memory"), ("memfd", " in memfds")] {
            let play = |limits: Limits| {
                let fixture = Fixture::new();
                let args = ["--attack", &format!("{attack}@prepare"), "--big-bytes", &asked, "--quiet"];
                let confinement = Confinement::new().limits(limits).process_isolation(isolation);
                attacked(&fixture, &args, confinement)
            };
            let (log, report) = play(limited);
            check_report(&report, isolation, false);
            let memory = report.limits.memory_bytes;
            assert_eq!(memory.value, Some(LIMIT), "{report:?}");
            assert!(held(&log, what) <= LIMIT, "{attack} on {isolation:?} held past the limit:\n{log}");
            let expected = match (attack, memory.mechanism, report.processes) {
                // A cgroup counts both: the kernel's refusal then comes as the limit's own.
                (_, LimitMechanism::Cgroup, _) => continue,
                ("shm", _, ProcessConfinement::PidNamespace) => ENOSPC,
                _ => ENOSYS,
            };
            assert_eq!(outcome(&log, attack, &asked), expected, "{attack} on {isolation:?}:\n{log}");
            // The control: without a memory limit the same worker holds all it asked.
            let (log, _) = play(Limits { memory_bytes: None, ..limited });
            assert_eq!(outcome(&log, attack, &asked), "ok", "{attack} on {isolation:?} without a limit:\n{log}");
            assert_eq!(held(&log, what), ASKED, "{log}");
        }
    }
}

#[test]
fn shared_memory_and_memfds_count_against_the_memory_limit() {
    shared_memory_counts();
}

#[test]
fn without_privileges_shared_memory_and_memfds_count_against_the_memory_limit() {
    unprivileged(
        "memory::without_privileges_shared_memory_and_memfds_count_against_the_memory_limit",
        shared_memory_counts,
    );
}
