//! Every way a session ends kills and reaps everything its worker started, and nothing another session's worker
//! started; and a confined worker is in its own cgroup from its start.

use std::fs;
use std::panic::{self, AssertUnwindSafe};

use metewand_protocol::Phase;
use metewand_session::{Confinement, ImplementationSession, PhaseTimeouts, SessionErrorKind};

use super::{Fixture, GENEROUS, assert_all_gone, assert_worker_and_threads_gone, exists, short};

/// Connects an implementation whose `prepare` starts processes (`fault`), and prepares.
fn prepared(fault: &str, timeouts: PhaseTimeouts) -> (Fixture, ImplementationSession) {
    let fixture = Fixture::new();
    let config = fixture.implementation(&["--fault", &format!("{fault}@prepare")], timeouts);
    let mut session = ImplementationSession::connect(config).unwrap();
    session.prepare(fixture.prepare()).unwrap();
    (fixture, session)
}

fn names(fixture: &Fixture) -> Vec<String> {
    fixture.started_processes().into_iter().map(|(name, ..)| name).collect()
}

#[test]
fn a_child_that_sleeps_forever_is_killed_after_a_clean_shutdown() {
    let (fixture, session) = prepared("spawn-sleeper", PhaseTimeouts::uniform(GENEROUS));
    let pid = session.pid();
    let processes = fixture.started_processes();
    assert_eq!(names(&fixture), ["sleeper"]);
    assert!(processes.iter().all(|&(_, pid, start)| exists(pid, start)), "alive while the session runs");
    session.shutdown().unwrap();
    assert_all_gone(&processes);
    assert_worker_and_threads_gone(pid);
}

#[test]
fn an_escaped_child_and_its_own_child_are_killed_after_a_clean_shutdown() {
    // The worker exits on shutdown, so its escaped child is re-parented to the orchestrator before the sweep.
    let (fixture, session) = prepared("spawn-escapee", PhaseTimeouts::uniform(GENEROUS));
    assert_eq!(names(&fixture), ["escapee", "escapee-child"]);
    let processes = fixture.started_processes();
    session.shutdown().unwrap();
    assert_all_gone(&processes);
}

#[test]
fn an_escaped_child_is_killed_when_the_session_is_dropped() {
    let (fixture, session) = prepared("spawn-escapee", PhaseTimeouts::uniform(GENEROUS));
    let pid = session.pid();
    let processes = fixture.started_processes();
    drop(session);
    assert_all_gone(&processes);
    assert_worker_and_threads_gone(pid);
}

#[test]
fn a_daemon_orphaned_below_the_worker_is_killed_when_the_session_is_dropped() {
    // A double fork: the intermediate child exits, so the daemon's parent is the worker, a subreaper.
    let (fixture, session) = prepared("daemonize", PhaseTimeouts::uniform(GENEROUS));
    assert_eq!(names(&fixture), ["daemon-parent", "daemon-parent-child"]);
    let processes = fixture.started_processes();
    let (_, daemon, start) = processes[1];
    assert!(exists(daemon, start));
    drop(session);
    assert_all_gone(&processes);
}

#[test]
fn a_timeout_kills_escaped_children() {
    let fixture = Fixture::new();
    let args = ["--fault", "spawn-escapee@prepare", "--fault", "never-answer@execute"];
    let mut session = ImplementationSession::connect(fixture.implementation(&args, short(Phase::Execute))).unwrap();
    session.prepare(fixture.prepare()).unwrap();
    let processes = fixture.started_processes();
    let error = session.execute(fixture.execute()).unwrap_err();
    assert!(matches!(error.kind(), SessionErrorKind::PhaseTimeout { .. }), "{error:?}");
    assert_all_gone(&processes);
}

#[test]
fn a_panic_in_the_caller_kills_everything() {
    let fixture = Fixture::new();
    let config = fixture.implementation(&["--fault", "spawn-escapee@prepare"], PhaseTimeouts::uniform(GENEROUS));
    let mut worker = None;
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
        let mut session = ImplementationSession::connect(config).unwrap();
        worker = Some(session.pid());
        session.prepare(fixture.prepare()).unwrap();
        panic!("the caller fails while the worker runs");
    }));
    assert!(outcome.is_err());
    let processes = fixture.started_processes();
    assert_eq!(processes.len(), 2);
    assert_all_gone(&processes);
    assert_worker_and_threads_gone(worker.unwrap());
}

#[test]
fn ending_a_session_leaves_another_sessions_processes_alone() {
    // The kept session's worker has an escaped child and a daemon orphaned below it; the ended one's sweep must
    // take neither for leftovers of its own.
    let kept_fixture = Fixture::new();
    let args = ["--fault", "spawn-escapee@prepare", "--fault", "daemonize@execute"];
    let config = kept_fixture.implementation(&args, PhaseTimeouts::uniform(GENEROUS));
    let mut kept = ImplementationSession::connect(config).unwrap();
    kept.prepare(kept_fixture.prepare()).unwrap();
    kept.execute(kept_fixture.execute()).unwrap();
    let (ended_fixture, ended) = prepared("spawn-escapee", PhaseTimeouts::uniform(GENEROUS));
    let kept_processes = kept_fixture.started_processes();
    assert_eq!(names(&kept_fixture), ["daemon-parent", "daemon-parent-child", "escapee", "escapee-child"]);
    let ended_processes = ended_fixture.started_processes();
    drop(ended);
    assert_all_gone(&ended_processes);
    for &(ref name, pid, start) in &kept_processes[1..] {
        assert!(exists(pid, start), "the other session's {name} was killed");
    }
    assert!(kept.is_usable());
    kept.shutdown().unwrap();
    assert_all_gone(&kept_processes);
}

/// The cgroup line (`0::PATH`) of a process's `/proc/<pid>/cgroup` text.
fn unified_cgroup(text: &str) -> Option<&str> {
    text.lines().find_map(|line| line.strip_prefix("0::"))
}

#[test]
fn a_confined_worker_is_in_its_own_cgroup_before_it_runs_anything_of_its_own() {
    let fixture = Fixture::new();
    let config = super::confinement::confined(&fixture, &["--fault", "cgroup@hello"], Confinement::new());
    let session = ImplementationSession::connect(config).unwrap();
    let ours = fs::read_to_string("/proc/self/cgroup").unwrap();
    // The delegation is made on first use: after this session started, its folder says whether there is one.
    let delegated = metewand_session::delegated_cgroup()
        .is_ok_and(|(dir, _)| dir.join(format!("metewand-{}", std::process::id())).is_dir());
    session.shutdown().unwrap();
    let log = fs::read_to_string(fixture.log()).unwrap();
    let worker = log
        .lines()
        .filter_map(|line| line.strip_prefix("test-worker: cgroup "))
        .find_map(unified_cgroup)
        .unwrap_or_else(|| panic!("the worker read its cgroup at hello:\n{log}"));
    if delegated {
        // `metewand-<pid>/w-<n>`, read by the worker's first request: it ran nothing of its own outside it.
        let mut parts = worker.rsplit('/');
        let (own, base) = (parts.next().unwrap_or_default(), parts.next().unwrap_or_default());
        assert!(
            own.strip_prefix("w-").is_some_and(|n| n.parse::<u32>().is_ok())
                && base == format!("metewand-{}", std::process::id()),
            "the worker's own cgroup: {worker}"
        );
    } else {
        assert_eq!(Some(worker), unified_cgroup(&ours), "without a delegation, the worker stays in ours");
    }
}
