//! Helpers Metewand's test suites share. Development only: no published crate depends on it.
//!
//! A test that cannot play what its name promises on this machine (no Slurm cluster, no privilege to mount a
//! tmpfs, a kernel without a confinement feature) must neither pass quietly nor pretend: it calls [`skip`], which
//! writes one line straight to the process's stderr (past the test harness's capture), appends it to the list that
//! `cargo xtask test` prints at the end, and fails the test instead when the machine was declared to give what is
//! missing ([`Requirement::is_required`]).
//!
//! What a machine must give is said from outside the code under test, in two variables; under `CI=true` (`cargo
//! xtask test` in CI, or any test run there) an unset one means what CI's machine gives ([`CI_TEST_REQUIRED`],
//! [`CI_CONFINEMENT_REQUIRED`]), so no test run in CI skips what CI provides:
//!
//! - `METEWAND_CONFINEMENT_REQUIRED`: the kernel features every confined worker must get, comma-separated:
//!   `landlock-abi=N` (at least that Landlock ABI), `pid-namespace` (each worker in a PID namespace of its own),
//!   `user-namespace` (the route through a user namespace works, for runs without `CAP_SYS_ADMIN`), `pid-max`
//!   (each PID namespace has its own `pid_max`, Linux 6.14 and later: the process limit holds on every route),
//!   `seccomp` (seccomp filters with the errno action: every confined worker gets the system call filter);
//! - `METEWAND_TEST_REQUIRED`: what the tests themselves need, comma-separated: `slurm` (a cluster answers
//!   `sbatch`), `root` (`CAP_SYS_ADMIN`, to mount a tmpfs or drop privileges), `setpriv` (to run as uid 65534),
//!   `chromium` (headless Chromium, to lay out the HTML report), `two-cpus` (two CPUs or more, on which an attempt
//!   starts its evaluator beside its implementation), `corpora` (the shared conformance corpora, `shared/corpora`
//!   beside the checkout or `METEWAND_CORPORA`), `python3.10` (a Python 3.10 interpreter, the oldest the SDK
//!   supports; the pytest suite reads this list too).
//!
//! ```
//! use metewand_testkit::{ConfinementRequired, Requirement};
//!
//! let required = ConfinementRequired::parse("landlock-abi=6,pid-namespace").unwrap();
//! assert_eq!(required.landlock_abi, 6);
//! assert!(required.pid_namespace && !required.user_namespace);
//! assert_eq!(Requirement::Landlock(4).to_string(), "Landlock ABI 4");
//! ```

#![allow(clippy::disallowed_methods, reason = "the test helpers make and read their own files in temporary folders")]
#![forbid(unsafe_code)]

mod paths;
pub mod synth;
mod test_worker;

pub use paths::{copy_tree, golden, mkfifo, sdk, sdk_src, workspace};
pub use test_worker::{TEST_WORKER_VAR, test_worker};

use std::fmt;
use std::io::Write;

/// The kernel features every confined worker must get here (`METEWAND_CONFINEMENT_REQUIRED`).
pub const CONFINEMENT_REQUIRED_VAR: &str = "METEWAND_CONFINEMENT_REQUIRED";
/// What the tests themselves need here (`METEWAND_TEST_REQUIRED`).
pub const TEST_REQUIRED_VAR: &str = "METEWAND_TEST_REQUIRED";
/// What the tests need under `CI=true` when `METEWAND_TEST_REQUIRED` is unset: CI runs as root, with `setpriv` and
/// Chromium (`cargo xtask test` installs it there when it is missing), on two CPUs, with the conformance corpora
/// beside the checkout and a Python 3.10 interpreter, and brings up a Slurm cluster before the tests.
pub const CI_TEST_REQUIRED: &str = "slurm,root,setpriv,chromium,two-cpus,corpora,python3.10";
/// The confinement required under `CI=true` when `METEWAND_CONFINEMENT_REQUIRED` is unset: CI's kernel has
/// Landlock ABI 7, allows user namespaces and is Linux 6.18.
pub const CI_CONFINEMENT_REQUIRED: &str = "landlock-abi=6,pid-namespace,user-namespace,pid-max,seccomp";
/// The file each skip is appended to, one line each (`METEWAND_SKIP_LOG`), for the test command's summary.
pub const SKIP_LOG_VAR: &str = "METEWAND_SKIP_LOG";
/// The prefix of a skip's line on stderr, by which a test that ran a copy of itself finds the copy's skips.
pub const SKIP_PREFIX: &str = "metewand-test: SKIPPED ";

/// The minimum confinement this machine must give, as `METEWAND_CONFINEMENT_REQUIRED` says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConfinementRequired {
    /// The lowest Landlock ABI acceptable; 0 when Landlock is not required.
    pub landlock_abi: u32,
    /// Every confined worker runs in a PID namespace of its own, by whichever route this process may take.
    pub pid_namespace: bool,
    /// The route through a user namespace works (a PID namespace without `CAP_SYS_ADMIN`).
    pub user_namespace: bool,
    /// Each PID namespace has its own `pid_max` (Linux 6.14 and later), which keeps `[limits] processes` on
    /// every namespace route, root's included.
    pub pid_max: bool,
    /// Seccomp filters with the errno action work: every confined worker gets the system call filter.
    pub seccomp: bool,
}

impl ConfinementRequired {
    /// Reads `METEWAND_CONFINEMENT_REQUIRED` (when unset: [`CI_CONFINEMENT_REQUIRED`] under `CI=true`, nothing
    /// elsewhere); panics, naming the variable, on a value it cannot read, since a requirement misspelt would be a
    /// requirement dropped.
    pub fn from_env() -> ConfinementRequired {
        let value = setting(CONFINEMENT_REQUIRED_VAR, CI_CONFINEMENT_REQUIRED);
        ConfinementRequired::parse(&value).unwrap_or_else(|error| panic!("{CONFINEMENT_REQUIRED_VAR}: {error}"))
    }

    /// Parses a comma-separated list of `landlock-abi=N`, `pid-namespace`, `user-namespace`, `pid-max` and
    /// `seccomp`.
    pub fn parse(value: &str) -> Result<ConfinementRequired, String> {
        let mut required = ConfinementRequired::default();
        for item in value.split(',').map(str::trim).filter(|item| !item.is_empty()) {
            match item.split_once('=') {
                Some(("landlock-abi", abi)) => {
                    required.landlock_abi =
                        abi.parse().map_err(|_| format!("{item:?}: the Landlock ABI is a whole number"))?;
                }
                None if item == "pid-namespace" => required.pid_namespace = true,
                None if item == "user-namespace" => required.user_namespace = true,
                None if item == "pid-max" => required.pid_max = true,
                None if item == "seccomp" => required.seccomp = true,
                _ => {
                    return Err(format!(
                        "unknown requirement {item:?} (expected landlock-abi=N, pid-namespace, user-namespace, \
                         pid-max or seccomp)"
                    ));
                }
            }
        }
        Ok(required)
    }
}

/// The value of the variable `name`; when it is unset, `in_ci` under `CI=true` and nothing elsewhere.
fn setting(name: &str, in_ci: &str) -> String {
    match std::env::var(name) {
        Ok(value) => value,
        Err(_) if std::env::var("CI").is_ok_and(|value| value == "true") => in_ci.to_owned(),
        Err(_) => String::new(),
    }
}

/// Something a test needs from the machine to play what its name promises.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Requirement {
    /// A Slurm cluster that `sbatch` and `scontrol` reach.
    Slurm,
    /// `CAP_SYS_ADMIN`: to mount a tmpfs, or to have privileges to drop.
    Root,
    /// The `setpriv` command, to run a process as uid 65534.
    Setpriv,
    /// Headless Chromium (`chromium` on `PATH`), to lay out the HTML report as a browser does.
    Chromium,
    /// At least this Landlock ABI.
    Landlock(u32),
    /// A PID namespace for each confined worker.
    PidNamespace,
    /// A PID namespace inside a user namespace, without `CAP_SYS_ADMIN`.
    UserNamespace,
    /// A `pid_max` of each PID namespace's own.
    PidMax,
    /// Seccomp filters with the errno action.
    Seccomp,
    /// Two CPUs or more for this process (what an attempt needs to start its evaluator beside its implementation).
    TwoCpus,
    /// The shared conformance corpora (JSONTestSuite, the JCS vectors, the ES6 number table).
    Corpora,
}

impl Requirement {
    /// Whether this machine was declared to give it (see the crate's documentation).
    pub fn is_required(self) -> bool {
        let listed =
            |name: &str| setting(TEST_REQUIRED_VAR, CI_TEST_REQUIRED).split(',').any(|item| item.trim() == name);
        let confinement = ConfinementRequired::from_env();
        match self {
            Requirement::Slurm => listed("slurm"),
            Requirement::Root => listed("root"),
            Requirement::Setpriv => listed("setpriv"),
            Requirement::Chromium => listed("chromium"),
            Requirement::Landlock(abi) => confinement.landlock_abi >= abi.max(1),
            Requirement::PidNamespace => confinement.pid_namespace,
            Requirement::UserNamespace => confinement.user_namespace,
            Requirement::PidMax => confinement.pid_max,
            Requirement::Seccomp => confinement.seccomp,
            Requirement::TwoCpus => listed("two-cpus"),
            Requirement::Corpora => listed("corpora"),
        }
    }
}

impl fmt::Display for Requirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Requirement::Slurm => f.write_str("a Slurm cluster"),
            Requirement::Root => f.write_str("root"),
            Requirement::Setpriv => f.write_str("setpriv"),
            Requirement::Chromium => f.write_str("chromium"),
            Requirement::Landlock(abi) => write!(f, "Landlock ABI {abi}"),
            Requirement::PidNamespace => f.write_str("a PID namespace"),
            Requirement::UserNamespace => f.write_str("a user namespace"),
            Requirement::PidMax => f.write_str("a pid_max per PID namespace (Linux 6.14)"),
            Requirement::Seccomp => f.write_str("seccomp filters with the errno action"),
            Requirement::TwoCpus => f.write_str("two CPUs"),
            Requirement::Corpora => f.write_str("the conformance corpora"),
        }
    }
}

/// Says that the running test did not play what `why` names, for lack of `missing`: one line straight to stderr
/// and to the skip log; panics instead when `missing` is required here. The caller returns (or goes on with what
/// it can still check) after it.
pub fn skip(missing: Requirement, why: &str) {
    let test = std::thread::current().name().unwrap_or("a test").to_owned();
    let why = why.replace(['\n', '\t'], " ");
    if missing.is_required() {
        panic!(
            "{test}: {why}, but this machine must give {missing} ({CONFINEMENT_REQUIRED_VAR} or {TEST_REQUIRED_VAR})"
        );
    }
    report(&test, &missing.to_string(), &why);
}

/// Reports again the skips a copy of a test (run as another user, its stderr captured) reported: a copy's skip
/// is the test's own. The copy ran with the same requirements, so it already failed on any that was required.
pub fn forward_skips(copy_stderr: &str) {
    for line in copy_stderr.lines().filter(|line| line.starts_with(SKIP_PREFIX)) {
        let Some((test, rest)) = line[SKIP_PREFIX.len()..].split_once(": needs ") else { continue };
        let Some((missing, why)) = rest.split_once(": ") else { continue };
        report(test, missing, why);
    }
}

/// Writes one skip to stderr and to the skip log.
fn report(test: &str, missing: &str, why: &str) {
    let line = format!("{SKIP_PREFIX}{test}: needs {missing}: {why}\n");
    // Straight to the process's stderr: the harness captures only the print macros, and a skip must be seen
    // when the test passes too.
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
    if let Some(path) = std::env::var_os(SKIP_LOG_VAR) {
        // One write of one short line to a file opened for appending: lines of parallel tests do not interleave.
        let entry = format!("{test}\t{missing}\t{why}\n");
        let appended = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut file| file.write_all(entry.as_bytes()));
        if let Err(error) = appended {
            panic!("{test}: cannot append to the skip log {}: {error}", std::path::Path::new(&path).display());
        }
    }
}

/// Executables placed where another user (uid 65534, for the tests without privileges) can reach them, whatever
/// the permissions of the folders above the checkout (a clone in a private folder, mode 0700, as `mktemp -d` makes
/// and home folders often are): a folder of its own under the system's temporary folder, searchable by everyone,
/// holding a hard link (or, across filesystems, a copy) of each. Removed when dropped. Nothing outside it changes.
pub struct Reachable {
    dir: tempfile::TempDir,
}

impl Reachable {
    /// A new, empty folder under the system's temporary folder, readable and searchable by everyone.
    pub fn new() -> Reachable {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::Builder::new().prefix("metewand-reachable-").tempdir().expect("a temporary folder");
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).expect("its mode");
        Reachable { dir }
    }

    /// Places `executable` in the folder (under its own file name); returns where.
    pub fn place(&self, executable: &std::path::Path) -> std::path::PathBuf {
        let name = executable.file_name().expect("an executable's file name");
        let placed = self.dir.path().join(name);
        if std::fs::hard_link(executable, &placed).is_err() {
            std::fs::copy(executable, &placed).unwrap_or_else(|error| {
                panic!("cannot place {} where another user can reach it: {error}", executable.display())
            });
        }
        placed
    }
}

impl Default for Reachable {
    fn default() -> Reachable {
        Reachable::new()
    }
}

/// A UDP echo on this machine's loopback (in the test's own network namespace): it answers the first datagram that
/// comes within `wait`, and its thread returns what came (`None` when nothing did).
pub fn udp_echo(wait: std::time::Duration) -> (u16, std::thread::JoinHandle<Option<Vec<u8>>>) {
    let socket = std::net::UdpSocket::bind("127.0.0.1:0").expect("a loopback UDP socket");
    let port = socket.local_addr().expect("its address").port();
    let echo = std::thread::spawn(move || {
        socket.set_read_timeout(Some(wait)).expect("a read timeout");
        let mut buffer = [0u8; 64];
        let (len, from) = socket.recv_from(&mut buffer).ok()?;
        socket.send_to(&buffer[..len], from).expect("the echo goes back");
        Some(buffer[..len].to_vec())
    });
    (port, echo)
}

/// Whether this process holds `CAP_SYS_ADMIN` in its effective set, read from `/proc/self/status`: the tests' own
/// answer to whether a worker's PID namespace may come without a user namespace, independent of the runtime's
/// probe.
pub fn has_cap_sys_admin() -> bool {
    const CAP_SYS_ADMIN: u32 = 21;
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc is mounted");
    let effective = status
        .lines()
        .find_map(|line| line.strip_prefix("CapEff:"))
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
        .expect("/proc/self/status has CapEff");
    effective & (1 << CAP_SYS_ADMIN) != 0
}

/// Whether the cgroup v2 of process `pid` says its every task is frozen (`frozen 1` in its `cgroup.events`): a worker
/// Metewand holds by the freezer, where it has a cgroup for it, rather than by `SIGSTOP` (`/proc/<pid>/stat` then
/// says `S`, not `T`).
pub fn frozen(pid: i32) -> bool {
    let Ok(cgroups) = std::fs::read_to_string(format!("/proc/{pid}/cgroup")) else { return false };
    let Some(path) = cgroups.lines().find_map(|line| line.strip_prefix("0::")) else { return false };
    let Ok(mounts) = std::fs::read_to_string("/proc/self/mountinfo") else { return false };
    mounts.lines().filter_map(|line| line.split_once(" - ")).any(|(mount, filesystem)| {
        filesystem.starts_with("cgroup2 ")
            && mount.split(' ').nth(4).is_some_and(|point| {
                std::fs::read_to_string(format!("{point}{path}/cgroup.events"))
                    .is_ok_and(|events| events.lines().any(|line| line == "frozen 1"))
            })
    })
}

/// Whether process `pid` is held: stopped by a signal (`T` in its `/proc/<pid>/stat`) or [`frozen`].
pub fn held(pid: i32) -> bool {
    let stopped = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|stat| stat.rsplit_once(") ").is_some_and(|(_, rest)| rest.starts_with('T')));
    stopped || frozen(pid)
}
