//! The system call filter every confined worker gets (DESIGN §23): each call it refuses, played by the test worker
//! with arguments the kernel would refuse after its own privilege check, so that the answer tells the filter
//! (`ENOSYS`, `EPERM`) from the kernel; the worker goes on and its session ends cleanly. Each test has its control:
//! the same calls from an unconfined worker get other answers. Keys: a worker that declared nothing has no
//! keyring to add to, and what one that declared `keyctl` adds goes with its session.

use std::fs;

use metewand_session::cpus::{CpuSet, CpusBinding};
use metewand_session::{
    Confinement, ImplementationSession, PhaseTimeouts, ProcessIsolation, SyscallFilter, SyscallGroup, SyscallGroups,
    WorkerIdentity,
};
use metewand_testkit::{Requirement, has_cap_sys_admin, skip};

use super::confinement::{EPERM, attacked, check_report, outcome, unprivileged};
use super::{Fixture, GENEROUS};

const ENOSYS: &str = "errno 38";
const EFAULT: &str = "errno 14";

/// The folder of the cgroup v2 hierarchy's root, where `clone3` tries to start a child: the first `cgroup2` mount.
fn cgroup2_root() -> String {
    let mounts = fs::read_to_string("/proc/self/mountinfo").unwrap();
    mounts
        .lines()
        .find_map(|line| {
            let (mount, filesystem) = line.split_once(" - ")?;
            (filesystem.split(' ').next() == Some("cgroup2")).then(|| mount.split(' ').nth(4).map(str::to_owned))?
        })
        .unwrap_or_else(|| "/sys/fs/cgroup".to_owned())
}

/// What every call answers a confined worker that declared nothing.
const REFUSED: [(&str, &str); 14] = [
    ("clone3-into-cgroup", ENOSYS),
    ("io_uring_setup-sqpoll-sq_aff", ENOSYS),
    ("io_uring_register-iowq_aff", ENOSYS),
    ("add_key-session", EPERM),
    ("add_key-user", EPERM),
    ("keyctl-get_persistent", EPERM),
    ("request_key", EPERM),
    ("bpf", EPERM),
    ("perf_event_open", EPERM),
    ("userfaultfd", EPERM),
    ("kexec_load", EPERM),
    ("init_module", EPERM),
    ("swapon", EPERM),
    ("reboot", EPERM),
];

fn play(confinement: Option<Confinement>) -> (String, Option<metewand_session::ConfinementReport>) {
    let fixture = Fixture::new();
    let cgroup = cgroup2_root();
    let args = ["--attack", "syscalls@prepare", "--target", &cgroup, "--count", "0", "--quiet"];
    match confinement {
        Some(confinement) => {
            let (log, report) = attacked(&fixture, &args, confinement);
            (log, Some(report))
        }
        None => {
            let mut session =
                ImplementationSession::connect(fixture.implementation(&args, PhaseTimeouts::uniform(GENEROUS)))
                    .unwrap();
            session.prepare(fixture.prepare()).unwrap();
            session.shutdown().unwrap();
            (fs::read_to_string(fixture.log()).unwrap(), None)
        }
    }
}

fn refused_calls() {
    for isolation in [ProcessIsolation::Namespace, ProcessIsolation::Sweep] {
        let (log, report) = play(Some(Confinement::new().process_isolation(isolation)));
        let report = report.unwrap();
        check_report(&report, isolation, false);
        if report.syscall_filter == SyscallFilter::None {
            skip(Requirement::Seccomp, "the kernel has no seccomp filters: no call was refused by one");
            return;
        }
        for (call, expected) in REFUSED {
            assert_eq!(outcome(&log, "syscalls", call), expected, "{call} on {isolation:?}:\n{log}");
        }
        // No memory limit: memfds are not refused.
        assert_eq!(outcome(&log, "syscalls", "memfd_create"), "ok", "{log}");
    }
    // The control: unconfined, the same calls reach the kernel, which answers otherwise.
    let (log, _) = play(None);
    for call in ["clone3-into-cgroup", "io_uring_register-iowq_aff"] {
        assert_ne!(outcome(&log, "syscalls", call), ENOSYS, "{call} unconfined:\n{log}");
    }
    forget_the_controls_key();
    for call in ["add_key-session", "add_key-user"] {
        assert_eq!(outcome(&log, "syscalls", call), "ok", "{call} unconfined:\n{log}");
    }
    assert_eq!(outcome(&log, "syscalls", "perf_event_open"), EFAULT, "{log}");
    if has_cap_sys_admin() {
        // Root's unconfined worker passes the privilege check and meets the arguments' refusal.
        assert_eq!(outcome(&log, "syscalls", "reboot"), "errno 22", "{log}");
    }
}

/// Unlinks the key the unconfined control added to this user's own keyring, which would outlive the test.
fn forget_the_controls_key() {
    const KEY_SPEC_USER_KEYRING: libc::c_long = -4;
    const KEYCTL_SEARCH: libc::c_long = 10;
    const KEYCTL_UNLINK: libc::c_long = 9;
    loop {
        // SAFETY: keyctl(KEYCTL_SEARCH) reads the NUL-terminated type and description.
        let key = unsafe {
            libc::syscall(
                libc::SYS_keyctl,
                KEYCTL_SEARCH,
                KEY_SPEC_USER_KEYRING,
                c"user".as_ptr(),
                c"metewand-filter".as_ptr(),
                0,
            )
        };
        if key < 0 {
            return;
        }
        // SAFETY: keyctl(KEYCTL_UNLINK) takes two key serials.
        unsafe { libc::syscall(libc::SYS_keyctl, KEYCTL_UNLINK, key, KEY_SPEC_USER_KEYRING) };
    }
}

#[test]
fn the_system_call_filter_refuses_each_call_and_the_worker_goes_on() {
    refused_calls();
}

#[test]
fn without_privileges_the_system_call_filter_refuses_each_call_and_the_worker_goes_on() {
    unprivileged(
        "filter::without_privileges_the_system_call_filter_refuses_each_call_and_the_worker_goes_on",
        refused_calls,
    );
}

/// A worker that declares io_uring may set one up, but not bind its worker threads' CPUs; its CPUs are then
/// advisory, since the submission thread's affinity is out of the filter's sight. One that declares `keyctl` may
/// use its session keyring, never the per-user or persistent ones.
fn declared_groups() {
    let declared: SyscallGroups = [SyscallGroup::IoUring, SyscallGroup::Keyctl].into_iter().collect();
    let fixture = Fixture::new();
    let cgroup = cgroup2_root();
    let args = ["--attack", "syscalls@prepare", "--target", &cgroup, "--count", "0", "--quiet"];
    let here = CpuSet::of_current_thread().unwrap();
    let config =
        super::confinement::confined(&fixture, &args, Confinement::new().syscalls(declared)).cpus(here.clone());
    let mut session = ImplementationSession::connect(config).unwrap();
    let binding = session.cpus().binding;
    session.prepare(fixture.prepare()).unwrap();
    let summary = session.shutdown().unwrap();
    let log = fs::read_to_string(fixture.log()).unwrap();
    check_report(&summary.confinement, ProcessIsolation::Namespace, false);
    if summary.confinement.syscall_filter == SyscallFilter::None {
        skip(Requirement::Seccomp, "the kernel has no seccomp filters: nothing was declared to one");
        return;
    }
    assert_eq!(summary.confinement.declared_syscalls, declared);
    assert_eq!(binding, CpusBinding::Advisory, "io_uring's threads can leave the worker's CPUs");
    if fs::read_to_string("/proc/sys/kernel/io_uring_disabled").is_ok_and(|value| value.trim() == "0") {
        assert_eq!(outcome(&log, "syscalls", "io_uring_setup-sqpoll-sq_aff"), "ok", "{log}");
    }
    assert_eq!(outcome(&log, "syscalls", "io_uring_register-iowq_aff"), EPERM, "{log}");
    assert_eq!(outcome(&log, "syscalls", "add_key-session"), "ok", "{log}");
    for call in ["add_key-user", "keyctl-get_persistent", "request_key"] {
        assert_eq!(outcome(&log, "syscalls", call), EPERM, "{call}:\n{log}");
    }
    // What was not declared stays refused.
    assert_eq!(outcome(&log, "syscalls", "bpf"), EPERM, "{log}");
}

#[test]
fn a_declared_group_is_allowed_but_for_what_leaves_the_session() {
    declared_groups();
}

#[test]
fn without_privileges_a_declared_group_is_allowed_but_for_what_leaves_the_session() {
    unprivileged(
        "filter::without_privileges_a_declared_group_is_allowed_but_for_what_leaves_the_session",
        declared_groups,
    );
}

/// The keys the kernel lists for the worker's identity (root's workers run as their own; an ordinary user's are
/// that user's), from `/proc/keys` as a process of that identity reads it: each key it may view.
fn keys_of_the_workers_identity() -> String {
    match has_cap_sys_admin().then(|| WorkerIdentity::configured().unwrap()) {
        None => fs::read_to_string("/proc/keys").unwrap(),
        Some(identity) => {
            let output = std::process::Command::new("setpriv")
                .arg(format!("--reuid={}", identity.uid))
                .arg(format!("--regid={}", identity.gid))
                .args(["--clear-groups", "--", "cat", "/proc/keys"])
                .output();
            match output {
                Ok(output) if output.status.success() => String::from_utf8_lossy(&output.stdout).into_owned(),
                _ => {
                    skip(Requirement::Setpriv, "setpriv cannot read /proc/keys as the workers' identity");
                    String::new()
                }
            }
        }
    }
}

/// A key a worker adds is gone with its session: without a declaration it cannot add one (the filter), and with
/// `keyctl` declared the key it adds to its session keyring is listed for its identity while it runs (which shows
/// the listing would find it), but in no neighbour's `/proc/keys` (masked in the view), and not at all once its
/// session has ended.
fn keys_die_with_the_session() {
    let key = format!("{}", std::process::id() & 0xffff);
    let name = format!("metewand-test-{key}");
    let private = || Confinement::new().private_view();
    for (declared, expected) in [(SyscallGroups::NONE, EPERM), (SyscallGroups::NONE.with(SyscallGroup::Keyctl), "ok")] {
        let fixture = Fixture::new();
        let args = ["--attack", "session-key@prepare", "--target-key", &key, "--quiet"];
        let config = super::confinement::confined(&fixture, &args, private().syscalls(declared));
        let mut session = ImplementationSession::connect(config).unwrap();
        session.prepare(fixture.prepare()).unwrap();
        if session.confinement().syscall_filter == SyscallFilter::None {
            skip(Requirement::Seccomp, "the kernel has no seccomp filters: keys were not refused by one");
            return;
        }
        // The session is still running: its log has the report once the stderr drain has written it.
        let deadline = std::time::Instant::now() + GENEROUS;
        let log = loop {
            let log = fs::read_to_string(fixture.log()).unwrap();
            if log.contains("attack session-key") || std::time::Instant::now() > deadline {
                break log;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        };
        assert_eq!(outcome(&log, "session-key", &name), expected, "{log}");
        if expected == "ok" {
            assert!(keys_of_the_workers_identity().contains(&name), "the live key is listed for its identity");
            let neighbour = Fixture::new();
            let args = ["--attack", "find-key@prepare", "--target-key", &key, "--quiet"];
            let (seen, _) = attacked(&neighbour, &args, private());
            assert_eq!(outcome(&seen, "find-key", &name), "errno 126", "a neighbour saw the key:\n{seen}");
        }
        let summary = session.shutdown().unwrap();
        check_report(&summary.confinement, ProcessIsolation::Namespace, false);
        // Gone once its session is: the kernel drops an unreferenced key at once, its listing a moment later.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while keys_of_the_workers_identity().contains(&name) {
            assert!(std::time::Instant::now() < deadline, "the key {name} outlived its session");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}

#[test]
fn a_key_a_worker_adds_does_not_outlive_its_session() {
    keys_die_with_the_session();
}

#[test]
fn without_privileges_a_key_a_worker_adds_does_not_outlive_its_session() {
    unprivileged(
        "filter::without_privileges_a_key_a_worker_adds_does_not_outlive_its_session",
        keys_die_with_the_session,
    );
}
