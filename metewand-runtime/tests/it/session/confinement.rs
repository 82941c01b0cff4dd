//! Confined sessions against the test worker playing each attack: what the kernel refuses is refused, what the
//! confinement allows still works, and what was in force is reported. The worker reports each attempt and the
//! kernel's answer (`ok` or the errno); the tests assert that answer.
//!
//! What the session must report comes from outside the runtime: `METEWAND_CONFINEMENT_REQUIRED` (see
//! `metewand-testkit`) and whether this process holds `CAP_SYS_ADMIN`, never the runtime's own probe. Where a
//! feature is not required and the session reports a fallback, the test's arm for that fallback asserts what the
//! attack then achieved, as documented; a test that cannot play its attack at all says so with a skip.
//!
//! The tests named `without_privileges_*` play the same attacks in a process without `CAP_SYS_ADMIN`, where a
//! worker's PID namespace can only be made inside a user namespace of its own (see [`unprivileged`]).

use std::fs;
use std::net::TcpListener;
use std::process::Command;

use metewand_runtime::session::{
    Confinement, ConfinementReport, ExitCause, FilesystemConfinement, ImplementationSession, NetworkConfinement,
    PhaseTimeouts, ProcessConfinement, ProcessIsolation, SessionConfig, SessionErrorKind, SignalConfinement,
};
use metewand_testkit::{ConfinementRequired, Requirement, forward_skips, has_cap_sys_admin, skip};

use super::test_worker::{TEST_WORKER_VAR, test_worker};
use super::{Fixture, GENEROUS};

const EACCES: &str = "errno 13";
const EPERM: &str = "errno 1";
const ESRCH: &str = "errno 3";
const EFBIG: &str = "errno 27";

/// A confined implementation session that may write only the fixture's `result/` (and `pids/`, for the process
/// attacks), running the test worker with `args`.
fn confined(fixture: &Fixture, args: &[&str], confinement: Confinement) -> SessionConfig {
    let confinement = confinement.writable(fixture.path("result")).writable(fixture.path("pids"));
    fixture.implementation(args, PhaseTimeouts::uniform(GENEROUS)).confine(confinement)
}

/// Runs `prepare` (where the attack is played) and a clean shutdown; returns the log and the reported
/// confinement.
fn attacked(fixture: &Fixture, args: &[&str], confinement: Confinement) -> (String, ConfinementReport) {
    let mut session = ImplementationSession::connect(confined(fixture, args, confinement)).unwrap();
    session.prepare(fixture.prepare()).unwrap();
    let summary = session.shutdown().unwrap();
    (fs::read_to_string(fixture.log()).unwrap(), summary.confinement)
}

/// The outcome the worker reported for one attack on one target.
fn outcome<'l>(log: &'l str, attack: &str, target: &str) -> &'l str {
    let prefix = format!("test-worker: attack {attack} {target}: ");
    log.lines()
        .find_map(|line| line.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no report of {attack} on {target} in the log:\n{log}"))
}

/// Set in the copy of this test binary that [`unprivileged`] starts.
const UNPRIVILEGED_VAR: &str = "METEWAND_TEST_UNPRIVILEGED";

/// Runs `body` in a process without `CAP_SYS_ADMIN`: here when this process already lacks it (tests run by an
/// ordinary user), otherwise in a copy of this test binary that runs only the test `name`, started by `setpriv` as
/// the unprivileged user 65534 (where the copy's call takes the first branch). The copy makes its own temporary
/// folders, and is told where the test worker is, as it could not build it; its skips are reported here.
fn unprivileged(name: &str, body: impl FnOnce()) {
    if std::env::var_os(UNPRIVILEGED_VAR).is_some() {
        assert!(!has_cap_sys_admin(), "the copy run by setpriv as uid 65534 holds CAP_SYS_ADMIN");
        body();
        return;
    }
    if !has_cap_sys_admin() {
        body();
        return;
    }
    let output = match Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(std::env::current_exe().unwrap())
        .args(["--exact", name, "--test-threads=1", "--nocapture"])
        .env(UNPRIVILEGED_VAR, "1")
        .env(TEST_WORKER_VAR, test_worker())
        // The copy's skips come back through its stderr; uid 65534 could not append to this user's log.
        .env_remove(metewand_testkit::SKIP_LOG_VAR)
        .output()
    {
        Ok(output) => output,
        Err(error) => {
            skip(
                Requirement::Setpriv,
                &format!("setpriv cannot be run ({error}): nothing was played without privileges"),
            );
            return;
        }
    };
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "the unprivileged copy of {name} failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("test result: ok. 1 passed"), "the unprivileged copy ran {name}:\n{stdout}\n{stderr}");
    forward_skips(&stderr);
}

/// Checks what a session reported against what this machine must give (`METEWAND_CONFINEMENT_REQUIRED`) and what
/// this process may do itself, for a worker confined with `isolation` and, when `network`, allowed TCP. A route
/// that is not required may be a fallback: the caller's arms then assert what the attack achieved there.
fn check_report(report: &ConfinementReport, isolation: ProcessIsolation, network: bool) {
    let required = ConfinementRequired::from_env();
    let route = (report.processes, report.user_namespace);
    let namespaced = (ProcessConfinement::PidNamespace, !has_cap_sys_admin());
    match isolation {
        ProcessIsolation::Sweep => assert_eq!(route, (ProcessConfinement::Sweep, false), "{report:?}"),
        ProcessIsolation::Namespace if required.pid_namespace => assert_eq!(route, namespaced, "{report:?}"),
        // Without CAP_SYS_ADMIN the only PID namespace there is comes inside a user namespace.
        ProcessIsolation::Namespace => {
            assert!(route == namespaced || route == (ProcessConfinement::Sweep, false), "{report:?}");
        }
        ProcessIsolation::UserNamespace if required.user_namespace => {
            assert_eq!(route, (ProcessConfinement::PidNamespace, true), "{report:?}");
        }
        ProcessIsolation::UserNamespace => {
            assert_eq!(report.user_namespace, report.processes == ProcessConfinement::PidNamespace)
        }
    }
    if required.landlock_abi >= 1 {
        assert!(
            matches!(report.filesystem, FilesystemConfinement::Landlock { abi } if abi >= required.landlock_abi),
            "Landlock ABI {} or later is required: {report:?}",
            required.landlock_abi
        );
    }
    if network {
        assert_eq!(report.network, NetworkConfinement::Allowed, "{report:?}");
    } else if required.landlock_abi >= 4 {
        assert_eq!(report.network, NetworkConfinement::Denied, "{report:?}");
    }
    if required.landlock_abi >= 6 {
        assert_eq!(report.signals, SignalConfinement::Scoped, "{report:?}");
    }
}

#[test]
fn writes_outside_the_output_and_temporary_folders_are_refused_and_change_nothing() {
    writes_are_refused();
}

#[test]
fn without_privileges_writes_outside_the_output_and_temporary_folders_are_refused() {
    unprivileged(
        "session::confinement::without_privileges_writes_outside_the_output_and_temporary_folders_are_refused",
        writes_are_refused,
    );
}

fn writes_are_refused() {
    let fixture = Fixture::new();
    let existing = fixture.path("dataset/rows.csv");
    fs::write(&existing, "1,2\n").unwrap();
    let in_source = fixture.path("source/new.txt");
    let in_tmp = std::env::temp_dir().join(format!("metewand-confinement-{}", std::process::id()));
    let allowed = fixture.path("result/allowed.txt");
    let targets = [&existing, &in_source, &in_tmp, &allowed];
    let mut args = vec!["--attack".to_owned(), "write@prepare".to_owned()];
    for target in targets {
        args.extend(["--target".to_owned(), target.display().to_string()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (log, report) = attacked(&fixture, &args, Confinement::new());
    check_report(&report, ProcessIsolation::Namespace, false);
    if report.filesystem == FilesystemConfinement::None {
        // The fallback without Landlock: every write goes through, as documented.
        for target in targets {
            assert_eq!(outcome(&log, "write", &target.display().to_string()), "ok", "{log}");
            assert_eq!(fs::read_to_string(target).unwrap(), "forged");
        }
        fs::remove_file(&in_tmp).unwrap();
        return;
    }
    assert!(matches!(report.filesystem, FilesystemConfinement::Landlock { abi } if abi >= 1), "{report:?}");
    for refused in [&existing, &in_source, &in_tmp] {
        assert_eq!(outcome(&log, "write", &refused.display().to_string()), EACCES, "{log}");
    }
    assert_eq!(fs::read_to_string(&existing).unwrap(), "1,2\n");
    assert!(!in_source.exists() && !in_tmp.exists());
    assert_eq!(outcome(&log, "write", &allowed.display().to_string()), "ok");
    assert_eq!(fs::read_to_string(&allowed).unwrap(), "forged");
}

#[test]
fn a_worker_can_neither_stop_the_orchestrator_nor_open_its_stdout() {
    neither_stop_nor_open_stdout();
}

#[test]
fn without_privileges_a_worker_can_neither_stop_the_orchestrator_nor_open_its_stdout() {
    unprivileged(
        "session::confinement::without_privileges_a_worker_can_neither_stop_the_orchestrator_nor_open_its_stdout",
        neither_stop_nor_open_stdout,
    );
}

fn neither_stop_nor_open_stdout() {
    let me = std::process::id().to_string();
    // In its PID namespace the worker cannot even name the orchestrator (ESRCH); without one, the signal scope
    // refuses the signal (EPERM).
    let cases = [
        ("stop-pid", ProcessIsolation::Namespace),
        ("stop-pid", ProcessIsolation::Sweep),
        ("open-pid-stdout", ProcessIsolation::Namespace),
        ("open-pid-stdout", ProcessIsolation::Sweep),
    ];
    for (attack, isolation) in cases {
        let fixture = Fixture::new();
        let (log, report) = attacked(
            &fixture,
            &["--attack", &format!("{attack}@prepare"), "--target-pid", &me, "--quiet"],
            Confinement::new().process_isolation(isolation),
        );
        check_report(&report, isolation, false);
        let target = if attack == "stop-pid" { me.clone() } else { format!("/proc/{me}/fd/1") };
        let got = outcome(&log, attack, &target);
        match (attack, report.signals, report.filesystem) {
            ("stop-pid", _, _) if report.processes == ProcessConfinement::PidNamespace => {
                assert_eq!(got, ESRCH, "{log}");
            }
            ("stop-pid", SignalConfinement::Scoped, _) => assert_eq!(got, EPERM, "{log}"),
            // The fallback without Landlock's signal scope (ABI < 6) and without a PID namespace: the worker
            // stopped this process (and let it go on), as documented.
            ("stop-pid", SignalConfinement::Unscoped, _) => assert_eq!(got, "ok", "{log}"),
            (_, _, FilesystemConfinement::Landlock { .. }) => assert_eq!(got, EACCES, "{log}"),
            // The fallback without Landlock: the worker opened this process's stdout, as documented.
            (_, _, FilesystemConfinement::None) => assert_eq!(got, "ok", "{log}"),
        }
    }
}

#[test]
fn tcp_connect_is_refused_unless_the_worker_may_use_the_network() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port().to_string();
    let args = ["--attack", "connect@prepare", "--target-port", &port];
    let fixture = Fixture::new();
    let (log, report) = attacked(&fixture, &args, Confinement::new());
    check_report(&report, ProcessIsolation::Namespace, false);
    match report.network {
        NetworkConfinement::Denied => assert_eq!(outcome(&log, "connect", &port), EACCES, "{log}"),
        // The fallback without Landlock's network rules (ABI < 4): the connection goes through, as documented.
        NetworkConfinement::Unrestricted => assert_eq!(outcome(&log, "connect", &port), "ok", "{log}"),
        NetworkConfinement::Allowed => panic!("the worker did not declare network access: {report:?}"),
    }
    let fixture = Fixture::new();
    let (log, report) = attacked(&fixture, &args, Confinement::new().network(true));
    check_report(&report, ProcessIsolation::Namespace, true);
    assert_eq!(outcome(&log, "connect", &port), "ok", "{log}");
}

#[test]
fn a_write_past_the_file_size_limit_fails_with_efbig() {
    let fixture = Fixture::new();
    let big = fixture.path("result/big");
    let args = ["--attack", "big-file@prepare", "--big-bytes", "100000", "--target", big.to_str().unwrap()];
    let (log, _) = attacked(&fixture, &args, Confinement::new().file_size_limit(4096));
    assert_eq!(outcome(&log, "big-file", &big.display().to_string()), EFBIG, "{log}");
    assert_eq!(fs::metadata(&big).unwrap().len(), 4096);
}

/// Whether this very process (pid and start time) still exists and is not a zombie.
fn running(pid: i32, start: u64) -> bool {
    let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else { return false };
    let fields: Vec<&str> =
        stat.rsplit_once(')').map(|(_, tail)| tail.split_whitespace().collect()).unwrap_or_default();
    fields.first() != Some(&"Z") && fields.get(19).and_then(|field| field.parse().ok()) == Some(start)
}

/// Every process of the fork chain (pid and start time, from the pid files it wrote).
fn chain_processes(fixture: &Fixture) -> Vec<(i32, u64)> {
    fs::read_dir(fixture.path("pids"))
        .unwrap()
        .filter_map(|entry| {
            let text = fs::read_to_string(entry.ok()?.path()).ok()?;
            let (pid, start) = text.trim().split_once(' ')?;
            Some((pid.parse().ok()?, start.parse().ok()?))
        })
        .collect()
}

/// A fork-and-`setsid` chain (each generation living `pause`, or as little as it can with none) started during
/// `prepare` leaves nothing once the session ends, not even a zombie, 20 times over, ending with a clean shutdown
/// or a drop. The sessions report `expected`.
fn a_fork_chain_leaves_nothing_alive(
    isolation: ProcessIsolation,
    expected: (ProcessConfinement, bool),
    pause: Option<u64>,
) {
    for round in 0..20 {
        let fixture = Fixture::new();
        let pids = fixture.path("pids").display().to_string();
        let mut args = vec!["--attack", "fork-chain@prepare", "--pid-dir", &pids, "--quiet"];
        let pause = pause.map(|millis| millis.to_string());
        if let Some(millis) = &pause {
            args.extend(["--chain-pause-ms", millis]);
        }
        let config = confined(&fixture, &args, Confinement::new().process_isolation(isolation));
        let mut session = ImplementationSession::connect(config).unwrap();
        session.prepare(fixture.prepare()).unwrap();
        let report = session.confinement();
        assert_eq!((report.processes, report.user_namespace), expected, "{report:?}");
        if round % 2 == 0 {
            session.shutdown().unwrap();
        } else {
            drop(session);
        }
        let processes = chain_processes(&fixture);
        assert!(processes.len() >= 3, "the chain ran ({} generations recorded)", processes.len());
        for (pid, start) in processes {
            assert!(!running(pid, start), "round {round}: chain process {pid} outlived its session ({report:?})");
            // Generations that exited on their own became the orchestrator's zombies; they are reaped too.
            assert!(!super::exists(pid, start), "round {round}: chain process {pid} was left a zombie ({report:?})");
        }
    }
}

/// The route a session confined with `isolation` reports here, checked by [`check_report`].
fn route(isolation: ProcessIsolation) -> (ProcessConfinement, bool) {
    let fixture = Fixture::new();
    let (_, report) = attacked(&fixture, &[], Confinement::new().process_isolation(isolation));
    check_report(&report, isolation, false);
    (report.processes, report.user_namespace)
}

/// The chain at full speed against the PID namespace this kernel gives a worker. Where it gives none, the chain
/// is not played (it can outrun the sweep, see below): a skip, and a failure where a PID namespace is required.
fn a_full_speed_fork_chain_dies_with_the_pid_namespace() {
    let route = route(ProcessIsolation::Namespace);
    if route.0 == ProcessConfinement::Sweep {
        skip(Requirement::PidNamespace, "the session reported the sweep: the full-speed fork chain was not played");
        return;
    }
    a_fork_chain_leaves_nothing_alive(ProcessIsolation::Namespace, route, None);
}

#[test]
fn a_fork_and_setsid_chain_as_fast_as_the_machine_allows_dies_with_its_pid_namespace() {
    a_full_speed_fork_chain_dies_with_the_pid_namespace();
}

#[test]
fn without_privileges_a_full_speed_fork_chain_dies_with_the_pid_namespace_in_a_user_namespace() {
    unprivileged(
        "session::confinement::without_privileges_a_full_speed_fork_chain_dies_with_the_pid_namespace_in_a_user_namespace",
        a_full_speed_fork_chain_dies_with_the_pid_namespace,
    );
}

/// The user-namespace route can be chosen where the orchestrator could make the PID namespace itself (so it is
/// played here whoever runs the tests); where the kernel refuses it, the session reports the sweep.
#[test]
fn a_full_speed_fork_chain_dies_with_a_pid_namespace_in_a_user_namespace_chosen_explicitly() {
    let route = route(ProcessIsolation::UserNamespace);
    if route.0 == ProcessConfinement::Sweep {
        skip(Requirement::UserNamespace, "the session reported the sweep: the full-speed fork chain was not played");
        return;
    }
    a_fork_chain_leaves_nothing_alive(ProcessIsolation::UserNamespace, route, None);
}

/// The fallback is played against a chain whose generations live 50 ms each: a chain that forks as fast as the
/// machine allows can outrun scans of `/proc` on a loaded machine (a generation lives less than a scan takes), which
/// is why the PID namespace is the primary path and the sweep's limit is documented.
#[test]
fn a_fork_and_setsid_chain_is_frozen_then_killed_by_the_fallback_sweep() {
    a_fork_chain_leaves_nothing_alive(ProcessIsolation::Sweep, (ProcessConfinement::Sweep, false), Some(50));
}

/// A sleeper the worker leaves is counted as left running (the worker itself never is, nor, in a user
/// namespace, the supervisor between it and the orchestrator), killed, and the worker's resources are recorded.
/// The tests are named for a PID namespace: under the sweep the same holds, but the namespace was not played.
fn a_sleeper_left_behind_is_counted() {
    let fixture = Fixture::new();
    let config = confined(&fixture, &["--fault", "spawn-sleeper@prepare"], Confinement::new());
    let mut session = ImplementationSession::connect(config).unwrap();
    session.prepare(fixture.prepare()).unwrap();
    let processes = fixture.started_processes();
    let summary = session.shutdown().unwrap();
    check_report(&summary.confinement, ProcessIsolation::Namespace, false);
    assert_eq!(summary.left_running, 1, "{summary:?}");
    super::assert_all_gone(&processes);
    // A process that ran has a resident set; its CPU times are whatever the clock ticks caught.
    assert!(summary.resources.peak_rss_bytes > 0, "{summary:?}");
    if summary.confinement.processes == ProcessConfinement::Sweep {
        skip(Requirement::PidNamespace, "the sleeper was counted and killed by the sweep, not in a PID namespace");
    }
}

#[test]
fn a_sleeper_left_behind_is_counted_in_a_pid_namespace_too() {
    a_sleeper_left_behind_is_counted();
}

#[test]
fn without_privileges_a_sleeper_left_behind_is_counted_and_the_worker_is_not() {
    unprivileged(
        "session::confinement::without_privileges_a_sleeper_left_behind_is_counted_and_the_worker_is_not",
        a_sleeper_left_behind_is_counted,
    );
}

/// The worker's own exit status reaches the session, through the supervisor where there is one: a status 3 after
/// the shutdown acknowledgment is an unclean shutdown with status 3, and a worker that never answers is killed.
/// The tests are named for a PID namespace: under the sweep the same holds, but the namespace was not played.
fn the_workers_exit_status_is_reported() {
    let fixture = Fixture::new();
    let config = confined(&fixture, &["--fault", "answer-then-exit@shutdown"], Confinement::new());
    let session = ImplementationSession::connect(config).unwrap();
    let report = session.confinement();
    check_report(&report, ProcessIsolation::Namespace, false);
    let error = session.shutdown().unwrap_err();
    match error.kind() {
        SessionErrorKind::WorkerExit { cause: ExitCause::UncleanShutdown, status: Some(status) } => {
            assert_eq!(status.code(), Some(3), "{error}");
        }
        kind => panic!("{kind:?}"),
    }
    let fixture = Fixture::new();
    let mut timeouts = PhaseTimeouts::uniform(GENEROUS);
    timeouts.prepare = super::SHORT;
    let config = fixture.implementation(&["--fault", "never-answer@prepare"], timeouts).confine(Confinement::new());
    let mut session = ImplementationSession::connect(config).unwrap();
    let pid = session.pid();
    let error = session.prepare(fixture.prepare()).unwrap_err();
    assert!(matches!(error.kind(), SessionErrorKind::PhaseTimeout { .. }), "{error:?}");
    super::assert_worker_and_threads_gone(pid);
    if report.processes == ProcessConfinement::Sweep {
        skip(Requirement::PidNamespace, "the exit status came straight from the worker: no PID namespace was played");
    }
}

#[test]
fn the_workers_exit_status_is_reported_in_a_pid_namespace() {
    the_workers_exit_status_is_reported();
}

#[test]
fn without_privileges_the_workers_exit_status_is_reported_through_its_supervisor() {
    unprivileged(
        "session::confinement::without_privileges_the_workers_exit_status_is_reported_through_its_supervisor",
        the_workers_exit_status_is_reported,
    );
}
