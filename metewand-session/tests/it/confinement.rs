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

use metewand_protocol::generated::attempt_record::FailureKind;
use metewand_session::{
    CapabilityConfinement, Confinement, ConfinementReport, ExitCause, FilesystemConfinement, ImplementationSession,
    IpcConfinement, LimitMechanism, LimitReport, Limits, MountConfinement, NetworkConfinement, PhaseTimeouts,
    ProcessConfinement, ProcessIsolation, SessionConfig, SessionErrorKind, SignalConfinement, SyscallFilter,
    WorkerIdentity,
};
use metewand_testkit::{ConfinementRequired, Reachable, Requirement, forward_skips, has_cap_sys_admin, skip, udp_echo};

use super::{Fixture, GENEROUS};
use metewand_testkit::{TEST_WORKER_VAR, test_worker};

pub(super) const EACCES: &str = "errno 13";
pub(super) const EPERM: &str = "errno 1";
pub(super) const ESRCH: &str = "errno 3";
pub(super) const EFBIG: &str = "errno 27";
pub(super) const EBADF: &str = "errno 9";
pub(super) const ENOENT: &str = "errno 2";
pub(super) const ECONNREFUSED: &str = "errno 111";
pub(super) const EAGAIN: &str = "errno 11";

/// A confined implementation session that may write only the fixture's `result/` (and `pids/`, for the process
/// attacks), running the test worker with `args`.
pub(super) fn confined(fixture: &Fixture, args: &[&str], confinement: Confinement) -> SessionConfig {
    let confinement = confinement.writable(fixture.path("result")).writable(fixture.path("pids"));
    fixture.implementation(args, PhaseTimeouts::uniform(GENEROUS)).confine(confinement)
}

/// Runs `prepare` (where the attack is played) and a clean shutdown; returns the log and the reported
/// confinement.
pub(super) fn attacked(fixture: &Fixture, args: &[&str], confinement: Confinement) -> (String, ConfinementReport) {
    let mut session = ImplementationSession::connect(confined(fixture, args, confinement)).unwrap();
    session.prepare(fixture.prepare()).unwrap();
    let summary = session.shutdown().unwrap();
    (fs::read_to_string(fixture.log()).unwrap(), summary.confinement)
}

/// The outcome the worker reported for one attack on one target.
pub(super) fn outcome<'l>(log: &'l str, attack: &str, target: &str) -> &'l str {
    let prefix = format!("test-worker: attack {attack} {target}: ");
    log.lines()
        .find_map(|line| line.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no report of {attack} on {target} in the log:\n{log}"))
}

/// Set in the copy of this test binary that [`unprivileged`] starts.
const UNPRIVILEGED_VAR: &str = "METEWAND_TEST_UNPRIVILEGED";

/// Runs `body` in a process without `CAP_SYS_ADMIN`: here when this process already lacks it (tests run by an
/// ordinary user), otherwise in a copy of this test binary that runs only the test `name`, started by `setpriv` as
/// the unprivileged user 65534 (where the copy's call takes the first branch). The test binary and the test worker
/// are first placed where that user can reach them ([`Reachable`]: the checkout may lie in a private folder). The
/// copy makes its own temporary folders, and is told where the test worker is, as it could not build it; its
/// skips are reported here.
pub(super) fn unprivileged(name: &str, body: impl FnOnce()) {
    if std::env::var_os(UNPRIVILEGED_VAR).is_some() {
        assert!(!has_cap_sys_admin(), "the copy run by setpriv as uid 65534 holds CAP_SYS_ADMIN");
        body();
        return;
    }
    if !has_cap_sys_admin() {
        body();
        return;
    }
    let reachable = Reachable::new();
    let copy = reachable.place(&std::env::current_exe().unwrap());
    let output = match Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(&copy)
        .args(["--exact", name, "--test-threads=1", "--nocapture"])
        .env(UNPRIVILEGED_VAR, "1")
        .env(TEST_WORKER_VAR, reachable.place(test_worker()))
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
    assert!(
        output.status.success(),
        "the copy of {name} run as uid 65534 failed (if it could not start, that user cannot reach {}):\n{stdout}\n{stderr}",
        copy.display()
    );
    assert!(stdout.contains("test result: ok. 1 passed"), "the unprivileged copy ran {name}:\n{stdout}\n{stderr}");
    forward_skips(&stderr);
}

/// Checks what a session reported against what this machine must give (`METEWAND_CONFINEMENT_REQUIRED`) and what
/// this process may do itself, for a worker confined with `isolation` and, when `network`, allowed TCP. A route
/// that is not required may be a fallback: the caller's arms then assert what the attack achieved there.
pub(super) fn check_report(report: &ConfinementReport, isolation: ProcessIsolation, network: bool) {
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
    // The namespaces besides the PID namespace come with it: on the sweep route there are none.
    let namespaced = report.processes == ProcessConfinement::PidNamespace;
    let expected_ipc = if namespaced { IpcConfinement::Namespace } else { IpcConfinement::Host };
    assert_eq!(report.ipc, expected_ipc, "{report:?}");
    match (network, namespaced) {
        (true, _) => assert_eq!(report.network, NetworkConfinement::Allowed, "{report:?}"),
        (false, true) => assert_eq!(report.network, NetworkConfinement::Namespace, "{report:?}"),
        (false, false) if required.landlock_abi >= 4 => {
            assert_eq!(report.network, NetworkConfinement::Denied, "{report:?}");
        }
        (false, false) => assert_ne!(report.network, NetworkConfinement::Namespace, "{report:?}"),
    }
    assert_eq!(report.capabilities, CapabilityConfinement::None, "{report:?}");
    if required.landlock_abi >= 6 {
        assert_eq!(report.signals, SignalConfinement::Scoped, "{report:?}");
    }
    if required.seccomp {
        assert_eq!(report.syscall_filter, SyscallFilter::Default, "{report:?}");
    }
    // Run by root, a confined worker is never root: it runs as the configured identity, on every route; an
    // ordinary user's runs as that user.
    // SAFETY: geteuid and getegid take no arguments and only read this process's credentials.
    let own = unsafe { WorkerIdentity { uid: libc::geteuid(), gid: libc::getegid() } };
    let expected_user = if has_cap_sys_admin() { WorkerIdentity::configured().unwrap() } else { own };
    assert_eq!(report.user, Some(expected_user), "{report:?}");
}

#[test]
fn writes_outside_the_output_and_temporary_folders_are_refused_and_change_nothing() {
    writes_are_refused();
}

#[test]
fn without_privileges_writes_outside_the_output_and_temporary_folders_are_refused() {
    unprivileged(
        "confinement::without_privileges_writes_outside_the_output_and_temporary_folders_are_refused",
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
        skip(Requirement::Landlock(1), "without Landlock every write went through: no refusal was played");
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
        "confinement::without_privileges_a_worker_can_neither_stop_the_orchestrator_nor_open_its_stdout",
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
            ("stop-pid", SignalConfinement::Unscoped, _) => {
                assert_eq!(got, "ok", "{log}");
                skip(Requirement::Landlock(6), "without a signal scope the worker stopped the orchestrator");
            }
            (_, _, FilesystemConfinement::Landlock { .. }) => assert_eq!(got, EACCES, "{log}"),
            // Without Landlock the kernel refuses all the same, for another reason: the orchestrator is not
            // dumpable, and a worker without CAP_SYS_PTRACE may not open its descriptors. Landlock's own refusal
            // was not played.
            (_, _, FilesystemConfinement::None) => {
                assert_eq!(got, EACCES, "{log}");
                skip(Requirement::Landlock(1), "without Landlock only the orchestrator's dumpable flag was played");
            }
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
        // Landlock's TCP rule refuses before the namespace's own loopback could answer.
        NetworkConfinement::Namespace if matches!(report.filesystem, FilesystemConfinement::Landlock { abi } if abi >= 4) =>
        {
            assert_eq!(outcome(&log, "connect", &port), EACCES, "{log}");
        }
        // Without Landlock's network rules (ABI < 4), the namespace's own empty loopback answers.
        NetworkConfinement::Namespace => {
            assert_eq!(outcome(&log, "connect", &port), ECONNREFUSED, "{log}");
            skip(Requirement::Landlock(4), "without Landlock's TCP rules only the network namespace was played");
        }
        NetworkConfinement::Denied => assert_eq!(outcome(&log, "connect", &port), EACCES, "{log}"),
        // The fallback without Landlock's network rules (ABI < 4): the connection goes through, as documented.
        NetworkConfinement::Unrestricted => {
            assert_eq!(outcome(&log, "connect", &port), "ok", "{log}");
            skip(Requirement::Landlock(4), "without a network namespace or TCP rules the connection went through");
        }
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
pub(crate) fn chain_processes(fixture: &Fixture) -> Vec<(i32, u64)> {
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
        "confinement::without_privileges_a_full_speed_fork_chain_dies_with_the_pid_namespace_in_a_user_namespace",
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
    let config = confined(&fixture, &["--fault", "spawn-sleeper@prepare"], Confinement::new()).count_left_running();
    let mut session = ImplementationSession::connect(config).unwrap();
    session.prepare(fixture.prepare()).unwrap();
    let processes = fixture.started_processes();
    let summary = session.shutdown().unwrap();
    check_report(&summary.confinement, ProcessIsolation::Namespace, false);
    assert_eq!(summary.left_running, Some(1), "{summary:?}");
    super::assert_all_gone(&processes);
    // A process that ran has a resident set; its CPU times are whatever the clock ticks caught.
    assert!(summary.resources.peak_rss_bytes > 0, "{summary:?}");
    if summary.confinement.processes == ProcessConfinement::Sweep {
        skip(Requirement::PidNamespace, "the sleeper was counted and killed by the sweep, not in a PID namespace");
    }
}

/// A daemon (a double fork whose middle exits, leaving a `setsid` process orphaned) counts as left running in a
/// PID namespace, though it is in neither the worker's session nor its group; under the sweep it does not (it may
/// be any session's orphan there), and the test says so.
fn a_daemon_left_behind_is_counted() {
    let fixture = Fixture::new();
    let config = confined(&fixture, &["--fault", "daemonize@prepare"], Confinement::new()).count_left_running();
    let mut session = ImplementationSession::connect(config).unwrap();
    session.prepare(fixture.prepare()).unwrap();
    let processes = fixture.started_processes();
    assert_eq!(
        processes.iter().map(|(name, ..)| name.as_str()).collect::<Vec<_>>(),
        ["daemon-parent", "daemon-parent-child"]
    );
    let summary = session.shutdown().unwrap();
    check_report(&summary.confinement, ProcessIsolation::Namespace, false);
    super::assert_all_gone(&processes);
    if summary.confinement.processes == ProcessConfinement::Sweep {
        assert_eq!(summary.left_running, Some(0), "{summary:?}");
        skip(Requirement::PidNamespace, "the daemon was killed by the sweep, not counted in a PID namespace");
    } else {
        assert_eq!(summary.left_running, Some(1), "{summary:?}");
    }
}

#[test]
fn a_daemon_left_behind_is_counted_in_a_pid_namespace() {
    a_daemon_left_behind_is_counted();
}

#[test]
fn without_privileges_a_daemon_left_behind_is_counted_in_a_pid_namespace() {
    unprivileged(
        "confinement::without_privileges_a_daemon_left_behind_is_counted_in_a_pid_namespace",
        a_daemon_left_behind_is_counted,
    );
}

#[test]
fn a_sleeper_left_behind_is_counted_in_a_pid_namespace_too() {
    a_sleeper_left_behind_is_counted();
}

#[test]
fn without_privileges_a_sleeper_left_behind_is_counted_and_the_worker_is_not() {
    unprivileged(
        "confinement::without_privileges_a_sleeper_left_behind_is_counted_and_the_worker_is_not",
        a_sleeper_left_behind_is_counted,
    );
}

/// Without counting, a session in a PID namespace does not look for what the worker left (the kernel ends the
/// namespace with its first process): whatever it was, a sleeper or a `setsid` daemon, is gone, not even a zombie,
/// when `shutdown` returns, and the summary says it was not counted rather than that nothing was left.
fn what_a_worker_leaves_is_gone_at_shutdown_without_being_counted() {
    for fault in ["spawn-sleeper@prepare", "daemonize@prepare"] {
        let fixture = Fixture::new();
        let config = confined(&fixture, &["--fault", fault], Confinement::new());
        let mut session = ImplementationSession::connect(config).unwrap();
        session.prepare(fixture.prepare()).unwrap();
        let processes = fixture.started_processes();
        assert!(!processes.is_empty(), "{fault}: the worker started nothing");
        let summary = session.shutdown().unwrap();
        super::assert_all_gone(&processes);
        if summary.confinement.processes == ProcessConfinement::Sweep {
            assert!(summary.left_running.is_some(), "{fault}: {summary:?}");
            skip(Requirement::PidNamespace, "the sweep counts what it kills; no PID namespace was played");
        } else {
            assert_eq!(summary.left_running, None, "{fault}: {summary:?}");
        }
    }
}

#[test]
fn what_a_worker_leaves_is_gone_at_shutdown_in_a_pid_namespace_without_being_counted() {
    what_a_worker_leaves_is_gone_at_shutdown_without_being_counted();
}

#[test]
fn without_privileges_what_a_worker_leaves_is_gone_at_shutdown_without_being_counted() {
    unprivileged(
        "confinement::without_privileges_what_a_worker_leaves_is_gone_at_shutdown_without_being_counted",
        what_a_worker_leaves_is_gone_at_shutdown_without_being_counted,
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
        "confinement::without_privileges_the_workers_exit_status_is_reported_through_its_supervisor",
        the_workers_exit_status_is_reported,
    );
}

/// The outcome of each capability set and of the clock attack: every set empty (`errno 1`: nothing held), and the
/// clock's tick not settable, on the route this process takes.
fn holds_no_capability() {
    let fixture = Fixture::new();
    let (log, report) = attacked(&fixture, &["--attack", "capabilities@prepare", "--quiet"], Confinement::new());
    check_report(&report, ProcessIsolation::Namespace, false);
    assert_eq!(report.capabilities, CapabilityConfinement::None, "{report:?}");
    for set in ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"] {
        assert_eq!(outcome(&log, "capabilities", &format!("{set}=0000000000000000")), EPERM, "{set}: {log}");
    }
    assert_eq!(outcome(&log, "capabilities", "adjtimex-tick"), EPERM, "{log}");
}

#[test]
fn a_worker_holds_no_capability_and_cannot_set_the_clock() {
    holds_no_capability();
}

#[test]
fn without_privileges_a_worker_holds_no_capability_and_cannot_set_the_clock() {
    unprivileged(
        "confinement::without_privileges_a_worker_holds_no_capability_and_cannot_set_the_clock",
        holds_no_capability,
    );
}

/// A descriptor this process holds without close-on-exec (as one `metewand` inherited from its caller would be)
/// does not reach the worker: writing to its number fails with `EBADF`, and the file stays empty.
fn only_stdio_reaches_the_worker() {
    let fixture = Fixture::new();
    let path = fixture.path("inherited.txt");
    let file = fs::File::create(&path).unwrap();
    rustix::io::fcntl_setfd(&file, rustix::io::FdFlags::empty()).unwrap();
    let fd = std::os::fd::AsRawFd::as_raw_fd(&file).to_string();
    let (log, _) = attacked(&fixture, &["--attack", "write-fd@prepare", "--target-fd", &fd], Confinement::new());
    drop(file);
    assert_eq!(outcome(&log, "write-fd", &fd), EBADF, "{log}");
    assert_eq!(fs::read_to_string(&path).unwrap(), "");
}

#[test]
fn only_stdin_stdout_and_stderr_reach_the_worker() {
    only_stdio_reaches_the_worker();
}

#[test]
fn without_privileges_only_stdin_stdout_and_stderr_reach_the_worker() {
    unprivileged(
        "confinement::without_privileges_only_stdin_stdout_and_stderr_reach_the_worker",
        only_stdio_reaches_the_worker,
    );
}

/// Without network access a worker's datagrams reach nobody (its network namespace has only its own loopback,
/// where nothing answers: its wait for the echo ends with `EAGAIN`); with it, the echo answers.
fn udp_reaches_nobody() {
    let (port, echo) = udp_echo(std::time::Duration::from_secs(5));
    let fixture = Fixture::new();
    let args = ["--attack", "udp@prepare", "--target-port", &port.to_string(), "--quiet"];
    let (log, report) = attacked(&fixture, &args, Confinement::new());
    check_report(&report, ProcessIsolation::Namespace, false);
    let got = outcome(&log, "udp", &port.to_string()).to_owned();
    if report.network == NetworkConfinement::Namespace {
        assert_eq!(got, EAGAIN, "{log}");
        assert_eq!(echo.join().unwrap(), None, "a datagram reached this machine's loopback");
    } else {
        // The fallback without a network namespace: UDP reaches the host, as documented.
        assert_eq!(got, "ok", "{log}");
        assert_eq!(echo.join().unwrap().as_deref(), Some(b"ping".as_slice()));
        skip(Requirement::PidNamespace, "the worker had no network namespace: its datagram reached the host");
    }
    let (port, echo) = udp_echo(std::time::Duration::from_secs(5));
    let fixture = Fixture::new();
    let args = ["--attack", "udp@prepare", "--target-port", &port.to_string(), "--quiet"];
    let (log, report) = attacked(&fixture, &args, Confinement::new().network(true));
    check_report(&report, ProcessIsolation::Namespace, true);
    assert_eq!(outcome(&log, "udp", &port.to_string()), "ok", "{log}");
    assert_eq!(echo.join().unwrap().as_deref(), Some(b"ping".as_slice()));
}

/// What the `netns-mark` attack reported `when` (`before` or `after` its datagrams): its network namespace and the
/// UDP `NoPorts` count there.
fn netns_mark(log: &str, when: &str) -> (String, u64) {
    let prefix = format!("test-worker: attack netns-mark {when} ");
    let line = log.lines().find_map(|line| line.strip_prefix(&prefix)?.strip_suffix(": ok"));
    let (namespace, count) = line.and_then(|line| line.rsplit_once(' ')).unwrap_or_else(|| panic!("{log}"));
    (namespace.to_owned(), count.parse().unwrap_or_else(|_| panic!("{log}")))
}

/// Each worker without network access gets a network namespace that is new: a mark one leaves there (the UDP
/// `NoPorts` count of its loopback, which datagrams to a closed port raise) is never seen by a later worker, and none
/// is the executor's (a namespace recycled, or made ahead and handed out twice, would fail it).
fn network_namespaces_are_new() {
    let own = fs::read_link("/proc/self/ns/net").unwrap().display().to_string();
    for round in 0..4 {
        let fixture = Fixture::new();
        let args = ["--attack", "netns-mark@prepare", "--count", "3", "--quiet"];
        let (log, report) = attacked(&fixture, &args, Confinement::new());
        check_report(&report, ProcessIsolation::Namespace, false);
        if report.network != NetworkConfinement::Namespace {
            skip(Requirement::PidNamespace, "the worker had no network namespace of its own");
            return;
        }
        let (namespace, before) = netns_mark(&log, "before");
        let (same, after) = netns_mark(&log, "after");
        assert_ne!(namespace, own, "round {round}: the worker was in the executor's network namespace");
        assert_eq!(same, namespace);
        assert_eq!(before, 0, "round {round}: the worker found a mark in its network namespace:\n{log}");
        assert_eq!(after, 3, "round {round}: the worker's mark was not counted, so the test proves nothing:\n{log}");
    }
}

#[test]
fn every_worker_gets_a_new_network_namespace() {
    network_namespaces_are_new();
}

#[test]
fn without_privileges_every_worker_gets_a_new_network_namespace() {
    unprivileged(
        "confinement::without_privileges_every_worker_gets_a_new_network_namespace",
        network_namespaces_are_new,
    );
}

#[test]
fn udp_reaches_nobody_unless_the_worker_may_use_the_network() {
    udp_reaches_nobody();
}

#[test]
fn without_privileges_udp_reaches_nobody_unless_the_worker_may_use_the_network() {
    unprivileged(
        "confinement::without_privileges_udp_reaches_nobody_unless_the_worker_may_use_the_network",
        udp_reaches_nobody,
    );
}

/// The keys of this IPC namespace's System V objects of one kind (`shm` or `msg`), from `/proc/sysvipc`.
fn sysv_keys(kind: &str) -> Vec<i64> {
    let text = fs::read_to_string(format!("/proc/sysvipc/{kind}")).unwrap();
    text.lines().skip(1).filter_map(|line| line.split_whitespace().next()?.parse().ok()).collect()
}

/// A System V segment and queue the worker makes (it may) are gone with its IPC namespace when the session ends:
/// none is left in this process's namespace.
fn sysv_objects_die_with_the_session() {
    let key = 0x4d57_0000 | (std::process::id() as i64 & 0xffff);
    let fixture = Fixture::new();
    let args = ["--attack", "sysv@prepare", "--target-key", &key.to_string(), "--quiet"];
    let (log, report) = attacked(&fixture, &args, Confinement::new());
    check_report(&report, ProcessIsolation::Namespace, false);
    assert_eq!(outcome(&log, "sysv-shm", &key.to_string()), "ok", "{log}");
    assert_eq!(outcome(&log, "sysv-msg", &key.to_string()), "ok", "{log}");
    let left = (sysv_keys("shm").contains(&key), sysv_keys("msg").contains(&key));
    if report.ipc == IpcConfinement::Namespace {
        assert_eq!(left, (false, false), "the worker's System V objects outlived its session");
    } else {
        // The fallback without an IPC namespace: they outlive it, as documented.
        assert_eq!(left, (true, true));
        let status = Command::new("ipcrm").args(["-M", &key.to_string(), "-Q", &key.to_string()]).status().unwrap();
        assert!(status.success());
        skip(Requirement::PidNamespace, "the worker had no IPC namespace: its System V objects outlived it");
    }
}

#[test]
fn system_v_objects_die_with_the_session() {
    sysv_objects_die_with_the_session();
}

#[test]
fn without_privileges_system_v_objects_die_with_the_session() {
    unprivileged(
        "confinement::without_privileges_system_v_objects_die_with_the_session",
        sysv_objects_die_with_the_session,
    );
}

/// The orchestrator's environment and memory map are out of a worker's reach on every route: the orchestrator is
/// non-dumpable and the worker holds no capability (and is outside its Landlock domain), so the kernel refuses.
#[test]
fn a_worker_cannot_read_the_orchestrators_environment_or_maps() {
    let me = std::process::id().to_string();
    for isolation in [ProcessIsolation::Namespace, ProcessIsolation::Sweep] {
        let fixture = Fixture::new();
        let args = ["--attack", "read-proc@prepare", "--target-pid", &me, "--quiet"];
        let (log, report) = attacked(&fixture, &args, Confinement::new().process_isolation(isolation));
        check_report(&report, isolation, false);
        for file in ["environ", "maps"] {
            assert_eq!(outcome(&log, "read-proc", &format!("/proc/{me}/{file}")), EACCES, "{log}");
        }
    }
}

/// In its private view a worker reads its own folders and nothing else of `/tmp` or of a folder hidden from it,
/// reaches no pathname socket there, and sees no host process in its `/proc`; without a namespace route (the
/// fallback) the view is the host's, as documented.
fn the_private_view_shows_only_the_workers_own_folders() {
    let me = std::process::id();
    let fixture = Fixture::new();
    let own = fixture.path("dataset/rows.csv");
    fs::write(&own, "1,2\n").unwrap();
    // Beside the fixture in /tmp, and in a folder hidden inside the worker's own working directory.
    let elsewhere = tempfile::tempdir().unwrap();
    let beside = elsewhere.path().join("secret.json");
    fs::write(&beside, "{}").unwrap();
    let hidden = fixture.path("hidden");
    fs::create_dir(&hidden).unwrap();
    let peer = hidden.join("peer.json");
    fs::write(&peer, "{}").unwrap();
    let socket = elsewhere.path().join("socket");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let host_process = format!("/proc/{me}/status");
    let mut args = vec!["--attack".to_owned(), "read@prepare".to_owned(), "--quiet".to_owned()];
    for target in
        [own.display().to_string(), beside.display().to_string(), peer.display().to_string(), host_process.clone()]
    {
        args.extend(["--target".to_owned(), target]);
    }
    args.extend([
        "--attack".to_owned(),
        "unix-connect@hello".to_owned(),
        "--target".to_owned(),
        socket.display().to_string(),
    ]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    // The test worker's arguments name every target, and what a command names in /tmp would be shown: the folder
    // beside the fixture is protected as a state folder is (a socket is never shown that way).
    let confinement = Confinement::new().private_view().hide(&hidden).hide(elsewhere.path());
    let (log, report) = attacked(&fixture, &args, confinement);
    check_report(&report, ProcessIsolation::Namespace, false);
    assert_eq!(outcome(&log, "read", &own.display().to_string()), "ok", "{log}");
    let hidden_outcomes = [
        outcome(&log, "read", &beside.display().to_string()),
        outcome(&log, "read", &peer.display().to_string()),
        outcome(&log, "read", &host_process),
        outcome(&log, "unix-connect", &socket.display().to_string()),
    ];
    if report.mounts == MountConfinement::Private {
        // Our pid is not one of its namespace's: a new namespace numbers its tasks from 1, and the test worker starts
        // a handful (a freshly booted host gives tests pids in the low hundreds). The rest is absent from its view.
        assert!(me > 64, "this test's pid {me} could be one of the worker's namespace");
        assert_eq!(hidden_outcomes, [ENOENT; 4], "{log}");
    } else {
        // The fallback without a namespace route: the host's view, as documented.
        assert_eq!(report.processes, ProcessConfinement::Sweep, "{report:?}");
        assert_eq!(hidden_outcomes, ["ok"; 4], "{log}");
        skip(Requirement::PidNamespace, "the worker had no private view: it read what the host shows");
    }
}

#[test]
fn the_private_view_shows_only_the_workers_own_folders_and_processes() {
    the_private_view_shows_only_the_workers_own_folders();
}

#[test]
fn without_privileges_the_private_view_shows_only_the_workers_own_folders_and_processes() {
    unprivileged(
        "confinement::without_privileges_the_private_view_shows_only_the_workers_own_folders_and_processes",
        the_private_view_shows_only_the_workers_own_folders,
    );
}

/// A folder shown once the worker's hello is answered (`readable_after_hello`, as an implementation's dataset) is
/// absent from its view until then and mounted in that view only: the worker reads it in `prepare`, and no mount
/// at its path appears in this process's own mount table, whichever route (a thread of this process, or a child in
/// the worker's user namespace) made the mount.
fn a_folder_shown_after_hello_is_mounted_in_the_workers_view_only() {
    let fixture = Fixture::new();
    // Beside the fixture, as a state folder's dataset is: a folder inside the worker's own would be shown with it.
    let elsewhere = tempfile::tempdir().unwrap();
    let hidden = elsewhere.path().to_owned();
    let shown = hidden.join("shown");
    fs::create_dir_all(&shown).unwrap();
    let data = shown.join("data.txt");
    fs::write(&data, "42\n").unwrap();
    let target = data.display().to_string();
    let args = ["--attack", "read@hello", "--attack", "read@prepare", "--target", &target, "--quiet"];
    let confinement = Confinement::new().private_view().hide(&hidden).readable_after_hello(&shown);
    let (log, report) = attacked(&fixture, &args, confinement);
    if report.mounts != MountConfinement::Private {
        skip(Requirement::PidNamespace, "the worker had no private view: nothing was shown in one");
        return;
    }
    let reads: Vec<&str> =
        log.lines().filter_map(|line| line.strip_prefix(&format!("test-worker: attack read {target}: "))).collect();
    assert_eq!(reads, [ENOENT, "ok"], "before and after hello:\n{log}");
    let mounts = fs::read_to_string("/proc/self/mountinfo").unwrap();
    let point = format!(" {} ", shown.display());
    assert!(!mounts.lines().any(|line| line.contains(&point)), "the executor's own mount table:\n{mounts}");
}

#[test]
fn a_folder_shown_after_hello_is_mounted_in_the_workers_view_and_not_the_executors() {
    a_folder_shown_after_hello_is_mounted_in_the_workers_view_only();
}

#[test]
fn without_privileges_a_folder_shown_after_hello_is_mounted_in_the_workers_view_and_not_the_executors() {
    unprivileged(
        "confinement::without_privileges_a_folder_shown_after_hello_is_mounted_in_the_workers_view_and_not_the_executors",
        a_folder_shown_after_hello_is_mounted_in_the_workers_view_only,
    );
}

/// The mount id and the content of `data.txt` at `target` in the view of the worker `pid`, as this process sees
/// them (through `/proc/<pid>/root`, which only a process allowed to trace the worker reads).
fn shown_at(pid: u32, target: &std::path::Path) -> (String, String) {
    let mounts = fs::read_to_string(format!("/proc/{pid}/mountinfo")).unwrap();
    let point = format!(" {} ", target.display());
    let id = mounts.lines().rev().find(|line| line.contains(&point)).and_then(|line| line.split(' ').next());
    let data = format!("/proc/{pid}/root{}/data.txt", target.display());
    (
        id.unwrap_or_else(|| panic!("{} is a mount point:\n{mounts}", target.display())).to_owned(),
        fs::read_to_string(data).unwrap(),
    )
}

#[test]
fn a_folder_shown_again_at_the_same_place_is_left_there_unless_it_changed() {
    let fixture = Fixture::new();
    let elsewhere = tempfile::tempdir().unwrap();
    let target = elsewhere.path().join("dataset");
    let (first, second) = (elsewhere.path().join("first"), elsewhere.path().join("second"));
    for (folder, text) in [(&target, ""), (&first, "1\n"), (&second, "2\n")] {
        fs::create_dir(folder).unwrap();
        fs::write(folder.join("data.txt"), text).unwrap();
    }
    let confinement = Confinement::new().private_view().hide(elsewhere.path()).readable_after_hello(&target);
    let mut session = ImplementationSession::connect(confined(&fixture, &[], confinement)).unwrap();
    if session.confinement().mounts != MountConfinement::Private || session.confinement().user_namespace {
        skip(Requirement::PidNamespace, "no private view whose mounts this process reads through the worker's pid");
        return;
    }
    let pid = session.pid();
    session.show_in_place_of(&first, &target).unwrap();
    let shown = shown_at(pid, &target);
    assert_eq!(shown.1, "1\n");
    session.show_in_place_of(&first, &target).unwrap();
    assert_eq!(shown_at(pid, &target), shown, "the same folder again: the same mount");
    // The same path, another folder (as a store entry made again): shown anew.
    fs::rename(&first, elsewhere.path().join("old")).unwrap();
    fs::create_dir(&first).unwrap();
    fs::write(first.join("data.txt"), "1 again\n").unwrap();
    session.show_in_place_of(&first, &target).unwrap();
    let again = shown_at(pid, &target);
    assert!(again.0 != shown.0 && again.1 == "1 again\n", "{again:?} after {shown:?}");
    session.show_in_place_of(&second, &target).unwrap();
    let other = shown_at(pid, &target);
    assert!(other.0 != again.0 && other.1 == "2\n", "{other:?} after {again:?}");
    session.shutdown().unwrap();
}

const ENOMEM: &str = "errno 12";

/// `[limits] memory_bytes` and `processes` hold: an allocation past the first fails with ENOMEM and a fork past
/// the second with EAGAIN, while the same worker within them gets what it asks; the report says how each was
/// kept. The process limit is the PID namespace's `pid_max` where the kernel gives each namespace its own (Linux
/// 6.14), else `RLIMIT_NPROC` in a user namespace without root, else none (reported, and weaker than full
/// confinement); on the sweep route it is never kept.
fn memory_and_processes_are_bounded() {
    let limits = Limits {
        output_bytes: Limits::DEFAULT_OUTPUT_BYTES,
        memory_bytes: Some(512 << 20),
        processes: 400,
        cpu_seconds: None,
    };
    for isolation in [ProcessIsolation::Namespace, ProcessIsolation::Sweep] {
        let confinement = Confinement::new().limits(limits).process_isolation(isolation);
        let play = |bytes: u64, count: u64| {
            let fixture = Fixture::new();
            let (bytes, count) = (bytes.to_string(), count.to_string());
            let args =
                ["--attack", "allocate@prepare", "--big-bytes", &bytes, "--attack", "spawn@execute", "--count", &count];
            let mut session = ImplementationSession::connect(confined(&fixture, &args, confinement.clone())).unwrap();
            session.prepare(fixture.prepare()).unwrap();
            session.execute(fixture.execute()).unwrap();
            let summary = session.shutdown().unwrap();
            let log = fs::read_to_string(fixture.log()).unwrap();
            let got = (outcome(&log, "allocate", &bytes).to_owned(), outcome(&log, "spawn", &count).to_owned());
            (got, summary.confinement, log)
        };
        let ((allocated, spawned), report, log) = play(1 << 30, 600);
        check_report(&report, isolation, false);
        let memory = report.limits.memory_bytes;
        assert_eq!(memory.value, Some(512 << 20), "{report:?}");
        match memory.mechanism {
            LimitMechanism::Rlimit => assert_eq!(allocated, ENOMEM, "{log}"),
            // A delegated cgroup counts memory once it is touched, which this mapping never is.
            LimitMechanism::Cgroup => assert_eq!(allocated, "ok", "{log}"),
            _ => panic!("memory is bounded by RLIMIT_AS or a delegated cgroup: {report:?}"),
        }
        let processes = report.limits.processes;
        assert_eq!(processes.value, Some(400), "{report:?}");
        let required = ConfinementRequired::from_env();
        match processes.mechanism {
            LimitMechanism::PidMax | LimitMechanism::Rlimit | LimitMechanism::Cgroup => {
                assert_ne!(isolation, ProcessIsolation::Sweep, "{report:?}");
                assert_eq!(spawned, EAGAIN, "{log}");
            }
            LimitMechanism::None => {
                // The fallback: nothing bounds the worker's processes, as reported; the sweep never does.
                assert_eq!(spawned, "ok", "{log}");
                assert!(!report.is_full(), "{report:?}");
                if isolation != ProcessIsolation::Sweep {
                    skip(Requirement::PidMax, "no process limit could be kept: the worker started 600 processes");
                }
            }
            LimitMechanism::Watched => panic!("processes are never watched: {report:?}"),
        }
        if required.pid_max && report.processes == ProcessConfinement::PidNamespace {
            assert_eq!(processes.mechanism, LimitMechanism::PidMax, "{report:?}");
        }
        // Within the limits the same worker gets what it asks.
        let ((allocated, spawned), _, log) = play(64 << 20, 100);
        assert_eq!((allocated.as_str(), spawned.as_str()), ("ok", "ok"), "{log}");
    }
}

#[test]
fn memory_and_processes_are_bounded_by_the_limits() {
    memory_and_processes_are_bounded();
}

#[test]
fn without_privileges_memory_and_processes_are_bounded_by_the_limits() {
    unprivileged(
        "confinement::without_privileges_memory_and_processes_are_bounded_by_the_limits",
        memory_and_processes_are_bounded,
    );
}

/// What a folder's files take, in bytes of content.
fn written(dir: &std::path::Path) -> u64 {
    fs::read_dir(dir).unwrap().map(|entry| entry.unwrap().metadata().unwrap().len()).sum()
}

/// `[limits] output_bytes` bounds everything the worker may write, all its folders together, while it runs: a
/// worker that goes on writing is killed within a fraction of what it meant to write, and the session fails
/// `resource_limit`, naming the limit; one that wrote past it and stopped fails the same way, at the latest when
/// the session ends; one within it is untouched.
fn output_is_bounded() {
    let limit = 4 << 20;
    let limits =
        Limits { output_bytes: limit, memory_bytes: None, processes: Limits::DEFAULT_PROCESSES, cpu_seconds: None };
    let session = |fixture: &Fixture, bytes: u64| {
        let pids = fixture.path("pids");
        let args = ["--attack", "fill@prepare", "--big-bytes", &bytes.to_string(), "--target", pids.to_str().unwrap()];
        ImplementationSession::connect(confined(fixture, &args, Confinement::new().limits(limits))).unwrap()
    };
    // 1 GiB, 512 KiB a millisecond: two seconds at least, were it not stopped.
    let fixture = Fixture::new();
    let mut writer = session(&fixture, 1 << 30);
    assert_eq!(
        writer.confinement().limits.output_bytes,
        LimitReport { value: Some(limit), mechanism: LimitMechanism::Watched }
    );
    let error = writer.prepare(fixture.prepare()).unwrap_err();
    match error.kind() {
        SessionErrorKind::ResourceLimit { limit: "output_bytes", value, observed, .. } => {
            assert_eq!(*value, limit);
            assert!(*observed > limit, "{error}");
        }
        other => panic!("expected the output limit, got {other}"),
    }
    assert_eq!(error.failure_kind(), Some(FailureKind::ResourceLimit));
    assert!(error.to_string().contains("[limits] output_bytes"), "{error}");
    let kept = written(&fixture.path("pids"));
    // Each entry counts its blocks and at least 512 bytes: the limit may be passed with a little less content.
    assert!(kept > limit - (512 << 10) && kept < 256 << 20, "the worker wrote {kept} bytes before it was stopped");

    // 6 MiB, then an answer: whether the watch or the last measurement sees it first, the session fails.
    let fixture = Fixture::new();
    let mut burst = session(&fixture, 6 << 20);
    let failed = match burst.prepare(fixture.prepare()) {
        Err(error) => error,
        Ok(()) => burst.shutdown().unwrap_err(),
    };
    assert!(matches!(failed.kind(), SessionErrorKind::ResourceLimit { limit: "output_bytes", .. }), "{failed}");

    let fixture = Fixture::new();
    let mut within = session(&fixture, 2 << 20);
    within.prepare(fixture.prepare()).unwrap();
    within.shutdown().unwrap();
    assert_eq!(written(&fixture.path("pids")), 2 << 20);
}

#[test]
fn writing_past_the_output_limit_ends_the_worker() {
    output_is_bounded();
}

#[test]
fn without_privileges_writing_past_the_output_limit_ends_the_worker() {
    unprivileged("confinement::without_privileges_writing_past_the_output_limit_ends_the_worker", output_is_bounded);
}

/// A process limit below what a PID namespace's `pid_max` can say (300) is `RLIMIT_NPROC`, which binds every
/// worker that is not uid 0 on the host: an ordinary user's (counted in its own user namespace), and root's, which
/// runs as an identity of its own. Only the sweep route keeps none, which the report says and full confinement
/// lacks.
fn small_process_limits_fall_back() {
    let limits =
        Limits { output_bytes: Limits::DEFAULT_OUTPUT_BYTES, memory_bytes: None, processes: 100, cpu_seconds: None };
    for isolation in [ProcessIsolation::Namespace, ProcessIsolation::Sweep] {
        let fixture = Fixture::new();
        let args = ["--attack", "spawn@prepare", "--count", "150", "--quiet"];
        let (log, report) = attacked(&fixture, &args, Confinement::new().limits(limits).process_isolation(isolation));
        check_report(&report, isolation, false);
        let spawned = outcome(&log, "spawn", "150");
        match report.limits.processes.mechanism {
            LimitMechanism::Rlimit => {
                assert_eq!(report.processes, ProcessConfinement::PidNamespace, "{report:?}");
                assert_eq!(spawned, EAGAIN, "{log}");
            }
            LimitMechanism::None => {
                assert_eq!(report.processes, ProcessConfinement::Sweep, "{report:?}");
                assert_eq!(spawned, "ok", "{log}");
                assert!(report.weaknesses().iter().any(|weakness| weakness.contains("no process limit")), "{report:?}");
                if isolation != ProcessIsolation::Sweep {
                    skip(Requirement::PidNamespace, "the worker fell back to the sweep: 150 processes were started");
                }
            }
            other => panic!("100 tasks cannot be a pid_max: {other:?}"),
        }
    }
}

#[test]
fn a_small_process_limit_is_rlimit_nproc_for_roots_worker_too() {
    small_process_limits_fall_back();
}

#[test]
fn without_privileges_a_small_process_limit_is_rlimit_nproc_in_the_workers_user_namespace() {
    unprivileged(
        "confinement::without_privileges_a_small_process_limit_is_rlimit_nproc_in_the_workers_user_namespace",
        small_process_limits_fall_back,
    );
}

/// The state letter (`R`, `S`, `T`, ...) of every process below `pid` in the parent tree, from `/proc`, or
/// `frozen` for one its cgroup says is.
fn states_below(pid: u32) -> Vec<(i32, String)> {
    let stats: Vec<(i32, i32, String)> = fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| {
            let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
            let state = if metewand_testkit::frozen(pid) { "frozen".to_owned() } else { fields.first()?.to_string() };
            Some((pid, fields.get(1)?.parse().ok()?, state))
        })
        .collect();
    let mut below = vec![pid as i32];
    let mut found = Vec::new();
    while let Some(parent) = below.pop() {
        for (child, ppid, state) in &stats {
            if *ppid == parent {
                below.push(*child);
                found.push((*child, state.clone()));
            }
        }
    }
    found
}

/// `while_stopped` stops every process of the worker (the worker and a child it left sleeping, whatever the
/// route) for as long as it runs, and lets them go on after: the session then shuts down cleanly.
fn everything_stops_while_sealing(isolation: ProcessIsolation) {
    let fixture = Fixture::new();
    let config =
        confined(&fixture, &["--fault", "spawn-sleeper@prepare"], Confinement::new().process_isolation(isolation));
    let mut session = ImplementationSession::connect(config).unwrap();
    session.prepare(fixture.prepare()).unwrap();
    let pid = session.pid();
    let supervised = session.confinement().user_namespace;
    let mut during = session
        .while_stopped(|| {
            let mut states = states_below(pid);
            if !supervised {
                // The worker itself (on the user-namespace route `pid` is its supervisor, which goes on).
                states.push((pid as i32, state_of(pid)));
            }
            states
        })
        .unwrap();
    during.sort();
    assert!(during.len() >= 2, "the worker and its sleeper: {during:?}");
    // Stopped by a signal (`T`), or frozen in its cgroup (the kernel's freezer, which says so in the cgroup).
    assert!(during.iter().all(|(_, state)| state == "T" || state == "frozen"), "everything stopped: {during:?}");
    let after: Vec<(i32, String)> = states_below(pid);
    assert!(after.iter().all(|(_, state)| state != "T"), "everything goes on: {after:?}");
    session.shutdown().unwrap();
}

/// The state letter of `pid` itself, or `frozen` where its cgroup says it is.
fn state_of(pid: u32) -> String {
    if metewand_testkit::frozen(pid as i32) {
        return "frozen".to_owned();
    }
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    stat.rsplit_once(')').unwrap().1.split_whitespace().next().unwrap().to_owned()
}

#[test]
fn every_process_of_the_worker_is_stopped_while_its_output_is_sealed() {
    everything_stops_while_sealing(ProcessIsolation::Namespace);
    everything_stops_while_sealing(ProcessIsolation::Sweep);
}

#[test]
fn without_privileges_every_process_of_the_worker_is_stopped_while_its_output_is_sealed() {
    unprivileged(
        "confinement::without_privileges_every_process_of_the_worker_is_stopped_while_its_output_is_sealed",
        || everything_stops_while_sealing(ProcessIsolation::Namespace),
    );
}
