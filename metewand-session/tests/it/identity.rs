//! Run by root, a confined worker is not root on the host (DESIGN §23): it runs as the configured identity, cannot
//! read root's private files, and what it leaves (a setuid program among it) is taken back before anyone reads it:
//! owned by root, with the modes Metewand publishes, so that no local user can run it as anyone else. Modes are
//! normalised on every route, an ordinary user's included. Each test has its control: the same worker unconfined
//! leaves what the confined one cannot.

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use metewand_session::{
    Confinement, ConfinementReport, ImplementationSession, PhaseTimeouts, ProcessIsolation, SessionConfig,
    WorkerIdentity,
};
use metewand_testkit::{Requirement, has_cap_sys_admin, skip};

use super::confinement::{EACCES, check_report, confined, outcome, unprivileged};
use super::{Fixture, GENEROUS};

/// The ids of a running process, from its `/proc/<pid>/status` (real, effective, saved, filesystem).
fn ids(pid: u32, field: &str) -> Vec<u32> {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find_map(|line| line.strip_prefix(field)).unwrap();
    line.split_whitespace().map(|id| id.parse().unwrap()).collect()
}

/// What the planted file runs as when uid 65534 starts it: `euid N egid N`.
fn run_as_nobody(planted: &Path) -> Option<String> {
    let output = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(planted)
        .arg("whoami")
        .output();
    match output {
        Ok(output) if output.status.success() => Some(String::from_utf8_lossy(&output.stdout).trim().to_owned()),
        Ok(output) => panic!("the planted program failed as uid 65534: {output:?}"),
        Err(error) => {
            skip(Requirement::Setpriv, &format!("setpriv cannot be run ({error}): the planted file was not run"));
            None
        }
    }
}

/// A private file of root's beside the worker's folders: a folder only root may enter, holding a file only root may
/// read.
fn secret(fixture: &Fixture) -> std::path::PathBuf {
    let private = fixture.path("private");
    fs::create_dir(&private).unwrap();
    fs::write(private.join("secret"), "root's secret").unwrap();
    fs::set_permissions(private.join("secret"), fs::Permissions::from_mode(0o600)).unwrap();
    fs::set_permissions(&private, fs::Permissions::from_mode(0o700)).unwrap();
    private.join("secret")
}

/// The worker reads root's secret at `prepare` and plants itself, setuid and setgid, in its result at `execute`;
/// its log, the ids of its process while it ran, and its confinement.
fn play(fixture: &Fixture, config: impl FnOnce(&[&str]) -> SessionConfig) -> (String, Vec<u32>, ConfinementReport) {
    let secret = secret(fixture);
    let planted = fixture.path("result/planted");
    let (secret, planted) = (secret.to_str().unwrap().to_owned(), planted.to_str().unwrap().to_owned());
    let args = ["--attack", "read@prepare", "--target", &secret, "--attack", "plant@execute", "--target", &planted];
    let mut session = ImplementationSession::connect(config(&args)).unwrap();
    let uids = ids(session.pid(), "Uid:");
    session.prepare(fixture.prepare()).unwrap();
    session.execute(fixture.execute()).unwrap();
    let summary = session.shutdown().unwrap();
    (fs::read_to_string(fixture.log()).unwrap(), uids, summary.confinement)
}

fn roots_worker_is_not_root() {
    if !has_cap_sys_admin() {
        skip(Requirement::Root, "run by an ordinary user: there is no root to keep the worker from being");
        return;
    }
    let identity = WorkerIdentity::configured().unwrap();
    for isolation in [ProcessIsolation::Namespace, ProcessIsolation::UserNamespace, ProcessIsolation::Sweep] {
        let fixture = Fixture::new();
        let confinement = Confinement::new().process_isolation(isolation);
        let (log, uids, report) = play(&fixture, |args| confined(&fixture, args, confinement));
        check_report(&report, isolation, false);
        let (secret, planted) = (fixture.path("private/secret"), fixture.path("result/planted"));
        assert_eq!(outcome(&log, "read", secret.to_str().unwrap()), EACCES, "{isolation:?}:\n{log}");
        // The worker's process is the identity's (on the user-namespace route the process spawned is its
        // supervisor, which is the identity too).
        assert_eq!(uids, vec![identity.uid; 4], "{isolation:?}");
        assert_eq!(outcome(&log, "plant", planted.to_str().unwrap()), "ok", "{log}");
        let metadata = fs::symlink_metadata(&planted).unwrap();
        assert_eq!((metadata.uid(), metadata.gid()), (0, 0), "taken back by root");
        assert_eq!(metadata.mode() & 0o7777, 0o755, "no setuid or setgid bit survives");
        let result = fs::symlink_metadata(fixture.path("result")).unwrap();
        assert_eq!((result.uid(), result.mode() & 0o7777), (0, 0o755), "the result folder is root's again");
        if let Some(ran) = run_as_nobody(&planted) {
            assert_eq!(ran, "euid 65534 egid 65534", "the planted program runs as whoever starts it");
        }
    }
    // The control: unconfined, root's worker reads the secret and leaves a setuid-root program.
    let fixture = Fixture::new();
    let (log, uids, _) = play(&fixture, |args| fixture.implementation(args, PhaseTimeouts::uniform(GENEROUS)));
    assert_eq!(uids, vec![0; 4]);
    assert_eq!(outcome(&log, "read", fixture.path("private/secret").to_str().unwrap()), "ok", "{log}");
    let planted = fixture.path("result/planted");
    assert_eq!(fs::symlink_metadata(&planted).unwrap().mode() & 0o7777, 0o6755);
    if let Some(ran) = run_as_nobody(&planted) {
        assert_eq!(ran, "euid 0 egid 0", "the control's planted program is what the confined worker could not leave");
    }
    fs::remove_file(&planted).unwrap();
}

#[test]
fn run_by_root_a_worker_is_its_own_identity_reads_no_secret_and_leaves_no_setuid_program() {
    roots_worker_is_not_root();
}

/// On every route, an ordinary user's included, what a worker leaves gets the published modes: a file it made
/// setuid, setgid and writable by everyone, and a folder writable by everyone and sticky.
fn modes_are_normalised() {
    for isolation in [ProcessIsolation::Namespace, ProcessIsolation::Sweep] {
        let fixture = Fixture::new();
        let planted = fixture.path("result/planted");
        let args = ["--attack", "plant@execute", "--target", planted.to_str().unwrap(), "--quiet"];
        let mut session =
            ImplementationSession::connect(confined(&fixture, &args, Confinement::new().process_isolation(isolation)))
                .unwrap();
        session.prepare(fixture.prepare()).unwrap();
        session.execute(fixture.execute()).unwrap();
        // The worker's result folder itself, made open to everyone while it runs (its own folder).
        fs::set_permissions(fixture.path("result"), fs::Permissions::from_mode(0o1777)).unwrap();
        let summary = session.shutdown().unwrap();
        check_report(&summary.confinement, isolation, false);
        let log = fs::read_to_string(fixture.log()).unwrap();
        assert_eq!(outcome(&log, "plant", planted.to_str().unwrap()), "ok", "{log}");
        let mode = |path: &Path| fs::symlink_metadata(path).unwrap().mode() & 0o7777;
        assert_eq!(mode(&planted), 0o755, "{isolation:?}");
        assert_eq!(mode(&fixture.path("result")), 0o755, "{isolation:?}");
        // The worker's own output (the test worker's result file) is readable by everyone, written by its owner.
        for entry in fs::read_dir(fixture.path("result")).unwrap() {
            let entry = entry.unwrap().path();
            assert!(matches!(mode(&entry), 0o644 | 0o755), "{}: {:o}", entry.display(), mode(&entry));
        }
    }
}

#[test]
fn what_a_worker_leaves_gets_the_published_modes() {
    modes_are_normalised();
}

#[test]
fn without_privileges_what_a_worker_leaves_gets_the_published_modes() {
    unprivileged("identity::without_privileges_what_a_worker_leaves_gets_the_published_modes", modes_are_normalised);
}

/// A private view names what the worker's command names, a path beneath a folder only root may enter included. On
/// the root route the orchestrator makes the view and may take that path in (its own mode keeps it private); on the
/// user-namespace route the worker's identity makes it inside its namespace, and cannot: the view leaves out what
/// that identity may not reach, and the worker starts all the same. On every route the secret stays unread.
#[test]
fn roots_worker_with_a_private_view_starts_on_every_route_whatever_its_command_names() {
    if !has_cap_sys_admin() {
        skip(Requirement::Root, "run by an ordinary user: no folder is closed to the worker but not to Metewand");
        return;
    }
    for isolation in [ProcessIsolation::Namespace, ProcessIsolation::UserNamespace, ProcessIsolation::Sweep] {
        let fixture = Fixture::new();
        let secret = secret(&fixture);
        let secret = secret.to_str().unwrap();
        let args = ["--attack", "read@prepare", "--target", secret];
        let confinement = Confinement::new().process_isolation(isolation).private_view();
        let mut session = ImplementationSession::connect(confined(&fixture, &args, confinement))
            .unwrap_or_else(|error| panic!("{isolation:?}: {error}"));
        session.prepare(fixture.prepare()).unwrap();
        session.shutdown().unwrap();
        let log = fs::read_to_string(fixture.log()).unwrap();
        assert_ne!(outcome(&log, "read", secret), "ok", "{isolation:?}:\n{log}");
    }
}

/// Whether this process's memory is dumpable now.
fn dumpable() -> bool {
    // SAFETY: PR_GET_DUMPABLE takes no argument and only returns the flag of this process's memory.
    unsafe { libc::prctl(libc::PR_GET_DUMPABLE, 0, 0, 0, 0) != 0 }
}

/// The orchestrator's memory is never dumpable while its workers start. A worker's process shares that memory until
/// its `exec`, and dumpability belongs to the memory: a child that made itself dumpable to write its own user
/// namespace's maps, as the worker's identity, would open the orchestrator's memory for as long to any process of
/// that identity (which could trace it, and through it write the orchestrator's memory). A thread of this process
/// watches the flag all through the starts of many confined workers.
#[test]
fn the_orchestrator_is_never_dumpable_while_its_workers_start() {
    let start = || {
        let fixture = Fixture::new();
        let confinement = Confinement::new().process_isolation(ProcessIsolation::Namespace);
        let session = ImplementationSession::connect(confined(&fixture, &["--quiet"], confinement)).unwrap();
        session.shutdown().unwrap();
    };
    // The first start makes the orchestrator non-dumpable, as `metewand` always is.
    start();
    assert!(!dumpable());
    let stop = AtomicBool::new(false);
    let seen = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            while !stop.load(Ordering::Relaxed) {
                if dumpable() {
                    seen.fetch_add(1, Ordering::Relaxed);
                }
            }
        });
        for _ in 0..40 {
            start();
        }
        stop.store(true, Ordering::Relaxed);
    });
    assert_eq!(seen.load(Ordering::Relaxed), 0, "the orchestrator was seen dumpable while a worker started");
}
