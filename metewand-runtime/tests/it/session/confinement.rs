//! Confined sessions against the test worker playing each attack: what the kernel refuses is refused, what the
//! confinement allows still works, and what was in force is reported. Where this kernel lacks a feature, the
//! test asserts the reported fallback instead of the refusal.

use std::fs;
use std::net::TcpListener;

use metewand_runtime::session::{
    Confinement, ConfinementReport, FilesystemConfinement, ImplementationSession, KernelSupport, NetworkConfinement,
    PhaseTimeouts, ProcessConfinement, ProcessIsolation, SessionConfig, SignalConfinement,
};

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

fn kernel() -> KernelSupport {
    KernelSupport::probe()
}

#[test]
fn writes_outside_the_output_and_temporary_folders_are_refused_and_change_nothing() {
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
    if kernel().landlock_abi == 0 {
        assert_eq!(report.filesystem, FilesystemConfinement::None);
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
        let target = if attack == "stop-pid" { me.clone() } else { format!("/proc/{me}/fd/1") };
        let got = outcome(&log, attack, &target);
        match (attack, report.signals, report.filesystem) {
            ("stop-pid", _, _) if report.processes == ProcessConfinement::PidNamespace => {
                assert_eq!(got, ESRCH, "{log}");
            }
            ("stop-pid", SignalConfinement::Scoped, _) => assert_eq!(got, EPERM, "{log}"),
            ("stop-pid", SignalConfinement::Unscoped, _) => assert!(kernel().landlock_abi < 6),
            (_, _, FilesystemConfinement::Landlock { .. }) => assert_eq!(got, EACCES, "{log}"),
            (_, _, FilesystemConfinement::None) => assert_eq!(kernel().landlock_abi, 0),
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
    if report.network == NetworkConfinement::Denied {
        assert_eq!(outcome(&log, "connect", &port), EACCES, "{log}");
    } else {
        assert_eq!(report.network, NetworkConfinement::Unrestricted);
        assert!(kernel().landlock_abi < 4);
    }
    let fixture = Fixture::new();
    let (log, report) = attacked(&fixture, &args, Confinement::new().network(true));
    assert_eq!(report.network, NetworkConfinement::Allowed);
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
/// `prepare` leaves nothing running once the session ends, 20 times over, ending with a clean shutdown or a drop.
fn a_fork_chain_leaves_nothing_alive(isolation: ProcessIsolation, expected: ProcessConfinement, pause: Option<u64>) {
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
        if round % 2 == 0 {
            session.shutdown().unwrap();
        } else {
            drop(session);
        }
        let processes = chain_processes(&fixture);
        assert!(processes.len() >= 3, "the chain ran ({} generations recorded)", processes.len());
        for (pid, start) in processes {
            assert!(!running(pid, start), "round {round}: chain process {pid} outlived its session ({report:?})");
        }
        if isolation == ProcessIsolation::Sweep || !kernel().pid_namespace {
            assert_eq!(report.processes, ProcessConfinement::Sweep);
        } else {
            assert_eq!(report.processes, expected);
        }
    }
}

#[test]
fn a_fork_and_setsid_chain_as_fast_as_the_machine_allows_dies_with_its_pid_namespace() {
    a_fork_chain_leaves_nothing_alive(ProcessIsolation::Namespace, ProcessConfinement::PidNamespace, None);
}

/// The fallback is played against a chain whose generations live 50 ms each: a chain that forks as fast as the
/// machine allows can outrun scans of `/proc` on a loaded machine (a generation lives less than a scan takes), which
/// is why the PID namespace is the primary path and the sweep's limit is documented.
#[test]
fn a_fork_and_setsid_chain_is_frozen_then_killed_by_the_fallback_sweep() {
    a_fork_chain_leaves_nothing_alive(ProcessIsolation::Sweep, ProcessConfinement::Sweep, Some(50));
}

#[test]
fn a_sleeper_left_behind_is_counted_in_a_pid_namespace_too() {
    let fixture = Fixture::new();
    let config = confined(&fixture, &["--fault", "spawn-sleeper@prepare"], Confinement::new());
    let mut session = ImplementationSession::connect(config).unwrap();
    session.prepare(fixture.prepare()).unwrap();
    let processes = fixture.started_processes();
    let summary = session.shutdown().unwrap();
    assert_eq!(summary.left_running, 1, "{summary:?}");
    super::assert_all_gone(&processes);
    // A process that ran has a resident set; its CPU times are whatever the clock ticks caught.
    assert!(summary.resources.peak_rss_bytes > 0, "{summary:?}");
}
