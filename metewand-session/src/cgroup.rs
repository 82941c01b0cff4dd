//! The cgroup v2 subtree delegated to the user running `metewand`, when there is one: where it is, whether it is
//! really delegated, and a cgroup per worker in it that bounds the worker's memory and tasks.
//!
//! A cgroup is used only where the user's own cgroup v2 is delegated to them: `metewand`'s cgroup (from
//! `/proc/self/cgroup`, on a `cgroup2` mount from `/proc/self/mountinfo`) is not the hierarchy's root, it and its
//! `cgroup.procs` belong to the effective uid, and for root it carries systemd's delegation mark (the
//! `trusted.delegate` or `user.delegate` attribute), since everything a root-owned service manager keeps is root's
//! too. A cgroup v1 hierarchy is never written. Its `memory` and `pids` controllers are what is used.
//!
//! A cgroup with processes cannot hand controllers to children (cgroup v2's "no internal processes" rule), so on
//! first use `metewand` makes `metewand-<pid>/executor/` in its cgroup and moves itself there, enables the
//! controllers for `metewand-<pid>/`'s children, and makes each worker's cgroup `metewand-<pid>/w-<n>/` beside
//! `executor/`; the worker is forked into it (`sys::spawn`), or where the kernel cannot do that the forked child
//! joins it before anything else (`sys::worker_pre_exec`). Where the cgroup holds other processes too (a shell),
//! the controllers cannot be handed down: `metewand` moves back and the limits fall back to resource limits. A worker's cgroup is removed once its processes are gone; `metewand-<pid>/` folders
//! of processes that ended are removed by the next `metewand` that uses the delegation.

#![allow(
    clippy::disallowed_methods,
    reason = "the executor's own cgroup's interface files under cgroupfs, which no worker can replace"
)]

use std::fs;
use std::io::{self, Write};
use std::os::fd::OwnedFd;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::sys;
use super::{Limits, SessionErrorKind};

/// Which of the controllers `metewand` uses a delegated cgroup offers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Controllers {
    pub(crate) memory: bool,
    pub(crate) pids: bool,
}

impl Controllers {
    fn any(self) -> bool {
        self.memory || self.pids
    }

    fn enable_line(self) -> String {
        let mut line = Vec::new();
        if self.memory {
            line.push("+memory");
        }
        if self.pids {
            line.push("+pids");
        }
        line.join(" ")
    }
}

/// Where this process's cgroup v2 is: a cgroup below the hierarchy's root, or the root itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Located {
    /// A cgroup below the root, at this path.
    Below(PathBuf),
    /// The hierarchy's root, mounted at this path: only root's own (a process run by root in no cgroup of its
    /// own), which needs no delegation.
    Root(PathBuf),
}

/// The cgroup `/proc/self/cgroup` places this process in, under the `cgroup2` mount `/proc/self/mountinfo`
/// lists for it, or why there is none: no cgroup v2 entry, or no such mount.
pub(crate) fn locate(proc_self_cgroup: &str, mountinfo: &str) -> Result<Located, &'static str> {
    let path = proc_self_cgroup
        .lines()
        .find_map(|line| line.strip_prefix("0::"))
        .ok_or("this process has no cgroup v2 (only cgroup v1 hierarchies)")?;
    for line in mountinfo.lines() {
        let Some((mount, filesystem)) = line.split_once(" - ") else { continue };
        if filesystem.split(' ').next() != Some("cgroup2") {
            continue;
        }
        let fields: Vec<&str> = mount.split(' ').collect();
        let (Some(root), Some(point)) = (fields.get(3), fields.get(4)) else { continue };
        let (root, point) = (unescape(root), unescape(point));
        let Some(inside) = Path::new(path).strip_prefix(&root).ok() else { continue };
        if inside.as_os_str().is_empty() {
            return Ok(Located::Root(PathBuf::from(point)));
        }
        return Ok(Located::Below(Path::new(&point).join(inside)));
    }
    Err("no cgroup2 file system is mounted where this process can see its cgroup")
}

/// A mount table field with its octal escapes (`\040` for a space) undone.
fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let octal = bytes.get(index + 1..index + 4).filter(|digits| digits.iter().all(|d| (b'0'..=b'7').contains(d)));
        match (bytes[index], octal) {
            (b'\\', Some(digits)) => {
                out.push(digits.iter().fold(0u8, |value, digit| value.wrapping_mul(8) + (digit - b'0')));
                index += 4;
            }
            (byte, _) => {
                out.push(byte);
                index += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The controllers the cgroup at `dir` offers `metewand` if it is delegated to `uid`, or why it is not used.
pub(crate) fn check(dir: &Path, uid: u32) -> Result<Controllers, String> {
    let owned = |path: &Path| fs::metadata(path).is_ok_and(|meta| meta.uid() == uid);
    if !owned(dir) || !owned(&dir.join("cgroup.procs")) || !owned(&dir.join("cgroup.subtree_control")) {
        return Err(format!("{} is not delegated to uid {uid}", dir.display()));
    }
    if uid == 0 && !marked_delegated(dir) {
        return Err(format!("{} carries no delegation mark (trusted.delegate or user.delegate)", dir.display()));
    }
    offered(dir)
}

/// The controllers `metewand` uses that the cgroup at `dir` offers, perhaps neither: a cgroup of a worker's own
/// still gives the kernel's freezer, which needs no controller.
fn offered(dir: &Path) -> Result<Controllers, String> {
    let offered = fs::read_to_string(dir.join("cgroup.controllers"))
        .map_err(|error| format!("cannot read {}/cgroup.controllers: {error}", dir.display()))?;
    let offered: Vec<&str> = offered.split_whitespace().collect();
    Ok(Controllers { memory: offered.contains(&"memory"), pids: offered.contains(&"pids") })
}

fn marked_delegated(dir: &Path) -> bool {
    ["trusted.delegate", "user.delegate"].iter().any(|name| {
        let mut value = [0u8; 8];
        rustix::fs::getxattr(dir, *name, &mut value).is_ok_and(|length| value[..length].starts_with(b"1"))
    })
}

/// This process's cgroup for workers and its controllers, asked once; nothing is written. A cgroup below the
/// root is used where it is delegated to this user; the hierarchy's root only by root, whose own it is.
pub(crate) fn probe() -> Result<(PathBuf, Controllers), String> {
    probe_located().map(|(located, controllers)| match located {
        Located::Below(dir) | Located::Root(dir) => (dir, controllers),
    })
}

fn probe_located() -> Result<(Located, Controllers), String> {
    static PROBED: OnceLock<Result<(Located, Controllers), String>> = OnceLock::new();
    PROBED
        .get_or_init(|| {
            let read = |path: &str| fs::read_to_string(path).map_err(|error| format!("cannot read {path}: {error}"));
            let located = locate(&read("/proc/self/cgroup")?, &read("/proc/self/mountinfo")?)?;
            let controllers = match &located {
                Located::Below(dir) => check(dir, sys::euid())?,
                Located::Root(_) if sys::euid() != 0 => {
                    return Err("this process is in the cgroup hierarchy's root, which is root's".to_owned());
                }
                Located::Root(dir) => offered(dir)?,
            };
            Ok((located, controllers))
        })
        .clone()
}

/// `metewand-<pid>/` in the delegated cgroup, with the controllers handed to its children, `metewand` moved into
/// its `executor/`.
#[derive(Debug)]
pub(crate) struct Delegated {
    base: PathBuf,
    controllers: Controllers,
    next: AtomicU64,
}

/// The delegation made ready on first use (see the module documentation), or why there is none.
pub(crate) fn delegated() -> Result<&'static Delegated, String> {
    static READY: OnceLock<Result<Delegated, String>> = OnceLock::new();
    READY
        .get_or_init(|| match probe_located()? {
            (Located::Below(dir), controllers) => Delegated::set_up(&dir, controllers, std::process::id()),
            (Located::Root(dir), controllers) => Delegated::set_up_at_root(&dir, controllers, std::process::id()),
        })
        .as_ref()
        .map_err(Clone::clone)
}

impl Delegated {
    /// Makes `dir/metewand-<pid>/executor/`, moves process `pid` there and hands `controllers` down to
    /// `metewand-<pid>/`'s children; on any failure, moves the process back and removes what it made.
    pub(crate) fn set_up(dir: &Path, controllers: Controllers, pid: u32) -> Result<Delegated, String> {
        remove_stale(dir);
        let base = dir.join(format!("metewand-{pid}"));
        let executor = base.join("executor");
        let say = |what: &str, path: &Path, error: io::Error| format!("cannot {what} {}: {error}", path.display());
        fs::create_dir(&base).map_err(|error| say("create", &base, error))?;
        let undo = |moved: bool| {
            if moved {
                let _ = write_file(&dir.join("cgroup.procs"), &pid.to_string());
            }
            let _ = fs::remove_dir(&executor);
            let _ = fs::remove_dir(&base);
        };
        if let Err(error) = fs::create_dir(&executor) {
            undo(false);
            return Err(say("create", &executor, error));
        }
        if let Err(error) = write_file(&executor.join("cgroup.procs"), &pid.to_string()) {
            undo(false);
            return Err(say("move metewand into", &executor, error));
        }
        let line = controllers.enable_line();
        for parent in [dir, base.as_path()].into_iter().filter(|_| controllers.any()) {
            if let Err(error) = write_file(&parent.join("cgroup.subtree_control"), &line) {
                undo(true);
                // EBUSY: other processes share the delegated cgroup, so it cannot hand controllers down.
                return Err(say("hand the controllers down from", parent, error));
            }
        }
        Ok(Delegated { base, controllers, next: AtomicU64::new(0) })
    }

    /// Makes `root/metewand-<pid>/` in the hierarchy's root (root's own) and hands `controllers` down to it and to
    /// its children; the process stays where it is, since the root cgroup alone may hold processes and hand
    /// controllers down at once. On any failure, removes what it made.
    pub(crate) fn set_up_at_root(root: &Path, controllers: Controllers, pid: u32) -> Result<Delegated, String> {
        remove_stale(root);
        let base = root.join(format!("metewand-{pid}"));
        let say = |what: &str, path: &Path, error: io::Error| format!("cannot {what} {}: {error}", path.display());
        fs::create_dir(&base).map_err(|error| say("create", &base, error))?;
        let line = controllers.enable_line();
        for parent in [root, base.as_path()].into_iter().filter(|_| controllers.any()) {
            if let Err(error) = write_file(&parent.join("cgroup.subtree_control"), &line) {
                let _ = fs::remove_dir(&base);
                return Err(say("hand the controllers down from", parent, error));
            }
        }
        Ok(Delegated { base, controllers, next: AtomicU64::new(0) })
    }

    /// The controllers in use.
    pub(crate) fn controllers(&self) -> Controllers {
        self.controllers
    }

    /// A new cgroup for one worker, bounding its memory (`memory.max`, without swap) and its tasks
    /// (`pids.max`) where asked and offered, with its `cgroup.procs` open for the forked child to join.
    pub(crate) fn worker(&self, memory_bytes: Option<u64>, tasks: Option<u64>) -> io::Result<WorkerCgroup> {
        let dir = self.base.join(format!("w-{}", self.next.fetch_add(1, Ordering::Relaxed)));
        fs::create_dir(&dir)?;
        let cgroup = WorkerCgroup { dir, procs: None, folder: None, freezer: OnceLock::new() };
        if let (Some(bytes), true) = (memory_bytes, self.controllers.memory) {
            write_file(&cgroup.dir.join("memory.max"), &bytes.to_string())?;
            // Without swap (where the kernel accounts it): the limit is the worker's memory, not its RAM share.
            let _ = write_file(&cgroup.dir.join("memory.swap.max"), "0");
        }
        if let (Some(tasks), true) = (tasks, self.controllers.pids) {
            write_file(&cgroup.dir.join("pids.max"), &tasks.to_string())?;
        }
        let procs =
            fs::OpenOptions::new().write(true).create(true).truncate(true).open(cgroup.dir.join("cgroup.procs"))?;
        let folder = fs::File::open(&cgroup.dir)?;
        let mut cgroup = cgroup;
        cgroup.procs = Some(procs.into());
        cgroup.folder = Some(folder.into());
        Ok(cgroup)
    }
}

/// Removes the `metewand-<pid>/` folders of `dir` whose process has ended: their cgroups are empty.
fn remove_stale(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|name| name.strip_prefix("metewand-")) else { continue };
        if pid.parse::<u32>().is_err() || Path::new("/proc").join(pid).exists() {
            continue;
        }
        let base = entry.path();
        if let Ok(children) = fs::read_dir(&base) {
            for child in children.flatten().filter(|child| child.file_type().is_ok_and(|kind| kind.is_dir())) {
                let _ = fs::remove_dir(child.path());
            }
        }
        let _ = fs::remove_dir(&base);
    }
}

/// Writes `text` to a cgroup's interface file. `create` lets a plain folder stand in for a cgroup in tests; in
/// a cgroup the file exists, and one that does not (a controller not enabled) cannot be created.
fn write_file(path: &Path, text: &str) -> io::Result<()> {
    fs::OpenOptions::new().write(true).create(true).truncate(true).open(path)?.write_all(text.as_bytes())
}

/// One worker's cgroup; removed when dropped, once its processes are gone.
#[derive(Debug)]
pub(crate) struct WorkerCgroup {
    dir: PathBuf,
    procs: Option<OwnedFd>,
    /// Its folder, open for the worker to be forked into it (`clone3` with `CLONE_INTO_CGROUP`).
    folder: Option<OwnedFd>,
    /// Its freezer's files, opened at the first hold and kept: a hold and its release each cost one write, where
    /// opening a cgroup file by its path costs several times that.
    freezer: OnceLock<Option<Freezer>>,
}

/// A worker cgroup's files that hold it stopped and say what it ran meanwhile.
#[derive(Debug)]
struct Freezer {
    /// `cgroup.freeze`, open for writing.
    freeze: fs::File,
    /// `cgroup.events`, read from its start for `frozen 1`.
    events: fs::File,
    /// `cpu.stat`, read from its start for `usage_usec`; every cgroup v2 has it, with or without the `cpu`
    /// controller.
    stat: Option<fs::File>,
}

/// Reads an interface file from its start (the kernel makes its text anew for each read at offset 0).
fn read_from_start<'b>(file: &fs::File, buffer: &'b mut [u8]) -> Option<&'b str> {
    let length = file.read_at(buffer, 0).ok()?;
    std::str::from_utf8(&buffer[..length]).ok()
}

/// What the kernel counted in a worker's cgroup.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Events {
    /// Processes the OOM killer ended at `memory.max` (`memory.events` `oom_kill`).
    pub(crate) oom_kills: u64,
    /// Forks refused at `pids.max` (`pids.events` `max`).
    pub(crate) forks_refused: u64,
    /// The most memory the cgroup used (`memory.peak`), where the kernel says.
    pub(crate) memory_peak: Option<u64>,
}

impl WorkerCgroup {
    /// The descriptor of its `cgroup.procs`, which the forked child writes `0` into to join it where the kernel
    /// could not fork it there.
    pub(crate) fn procs(&self) -> Option<&OwnedFd> {
        self.procs.as_ref()
    }

    /// The descriptor of its folder, which the worker is forked into where the kernel allows.
    pub(crate) fn folder(&self) -> Option<&OwnedFd> {
        self.folder.as_ref()
    }

    /// The limit the kernel's counts say it held the worker to, if any: an OOM kill is `memory_bytes` (with the
    /// peak the kernel saw), a refused fork `processes`.
    pub(crate) fn limit_hit(&self, limits: Limits) -> Option<SessionErrorKind> {
        let events = self.events();
        if events.oom_kills > 0
            && let Some(value) = limits.memory_bytes
        {
            let observed = events.memory_peak.unwrap_or(value);
            let unit = "bytes of memory (the kernel ended a process of the worker at the limit)";
            return Some(SessionErrorKind::ResourceLimit { limit: "memory_bytes", value, observed, unit });
        }
        let refused = SessionErrorKind::ResourceLimit {
            limit: "processes",
            value: limits.processes,
            observed: limits.processes,
            unit: "tasks (the kernel refused the worker a fork at the limit)",
        };
        (events.forks_refused > 0).then_some(refused)
    }

    /// Its freezer's files, opened once; `None` without the kernel's freezer (`cgroup.freeze`, Linux 5.2 and
    /// later).
    fn freezer(&self) -> Option<&Freezer> {
        self.freezer
            .get_or_init(|| {
                let freeze = fs::OpenOptions::new().write(true).open(self.dir.join("cgroup.freeze")).ok()?;
                let events = fs::File::open(self.dir.join("cgroup.events")).ok()?;
                let stat = fs::File::open(self.dir.join("cpu.stat")).ok();
                Some(Freezer { freeze, events, stat })
            })
            .as_ref()
    }

    /// Freezes every task of the cgroup, waiting until the kernel says all of them are (`frozen 1` in
    /// `cgroup.events`) or `deadline` passes: true once they are. A task blocked in `vfork` counts as frozen, since
    /// it cannot run until its child does.
    pub(crate) fn freeze(&self, deadline: Instant) -> bool {
        let Some(freezer) = self.freezer() else { return false };
        if (&freezer.freeze).write_all(b"1").is_err() {
            return false;
        }
        let mut pause = Duration::from_micros(10);
        let mut buffer = [0; 256];
        loop {
            let frozen = read_from_start(&freezer.events, &mut buffer)
                .is_some_and(|events| events.lines().any(|line| line == "frozen 1"));
            if frozen {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(1));
        }
    }

    /// Lets the cgroup's tasks go on.
    pub(crate) fn thaw(&self) {
        if let Some(freezer) = self.freezer() {
            let _ = (&freezer.freeze).write_all(b"0");
        }
    }

    /// Whether this cgroup has the kernel's freezer (`cgroup.freeze`, Linux 5.2 and later).
    pub(crate) fn can_freeze(&self) -> bool {
        self.freezer().is_some()
    }

    /// The CPU time every task of the cgroup has had so far (`cpu.stat`'s `usage_usec`), where the kernel says.
    /// A running task's time since its last tick may not be in it yet; a frozen cgroup's is.
    pub(crate) fn cpu_used(&self) -> Option<Duration> {
        let mut buffer = [0; 1024];
        let text = read_from_start(self.freezer()?.stat.as_ref()?, &mut buffer)?;
        let micros = text.lines().find_map(|line| line.strip_prefix("usage_usec ")?.trim().parse().ok())?;
        Some(Duration::from_micros(micros))
    }

    /// Every thread of every process in the cgroup (`cgroup.threads`), the processes' first.
    pub(crate) fn threads(&self) -> Vec<i32> {
        fs::read_to_string(self.dir.join("cgroup.threads"))
            .map(|text| text.lines().filter_map(|line| line.trim().parse().ok()).collect())
            .unwrap_or_default()
    }

    /// The kernel's counts so far.
    pub(crate) fn events(&self) -> Events {
        let count = |file: &str, key: &str| -> u64 {
            fs::read_to_string(self.dir.join(file))
                .ok()
                .and_then(|text| {
                    text.lines().find_map(|line| line.strip_prefix(key)?.strip_prefix(' ')?.trim().parse().ok())
                })
                .unwrap_or(0)
        };
        let peak = fs::read_to_string(self.dir.join("memory.peak")).ok().and_then(|text| text.trim().parse().ok());
        Events {
            oom_kills: count("memory.events", "oom_kill"),
            forks_refused: count("pids.events", "max"),
            memory_peak: peak,
        }
    }
}

impl Drop for WorkerCgroup {
    fn drop(&mut self) {
        self.procs = None;
        self.folder = None;
        self.freezer = OnceLock::new();
        // A cgroup is removable once its last task has been reaped, which may lag its exit by a moment.
        for _ in 0..50 {
            match fs::remove_dir(&self.dir) {
                Err(error) if error.raw_os_error() == Some(libc::EBUSY) => std::thread::sleep(Duration::from_millis(2)),
                _ => return,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MOUNTINFO: &str = "\
22 1 259:1 / / rw,relatime shared:1 - ext4 /dev/root rw
30 22 0:26 / /sys/fs/cgroup rw,nosuid shared:9 - cgroup2 cgroup2 rw,nsdelegate
31 22 0:27 / /sys/fs/cgroup/memory rw shared:10 - cgroup cgroup rw,memory
";

    #[test]
    fn the_cgroup_is_found_on_the_cgroup2_mount_below_the_root_or_at_it() {
        let found = locate("0::/user.slice/user-1000.slice/user@1000.service/app.slice/run-1.scope\n", MOUNTINFO);
        assert_eq!(
            found.unwrap(),
            Located::Below(PathBuf::from(
                "/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice/run-1.scope"
            ))
        );
        assert_eq!(locate("0::/\n", MOUNTINFO).unwrap(), Located::Root(PathBuf::from("/sys/fs/cgroup")));
        assert!(locate("4:memory:/x\n", MOUNTINFO).unwrap_err().contains("no cgroup v2"));
        let v1_only = MOUNTINFO.lines().filter(|line| !line.contains("cgroup2")).collect::<Vec<_>>().join("\n");
        assert!(locate("0::/a\n", &v1_only).unwrap_err().contains("no cgroup2"));
        // A cgroup namespace's mount shows its own root; a space in a mount point is escaped.
        let nested = "40 22 0:26 /job_7 /sys/fs/cgroup\\040x rw - cgroup2 cgroup2 rw\n";
        assert_eq!(
            locate("0::/job_7/step_0/task_0\n", nested).unwrap(),
            Located::Below(PathBuf::from("/sys/fs/cgroup x/step_0/task_0"))
        );
    }

    #[test]
    fn only_a_cgroup_owned_by_the_user_is_delegated_whatever_controllers_it_offers() {
        let dir = tempfile::tempdir().unwrap();
        for file in ["cgroup.procs", "cgroup.subtree_control"] {
            fs::write(dir.path().join(file), "").unwrap();
        }
        let uid = sys::euid();
        fs::write(dir.path().join("cgroup.controllers"), "cpu io\n").unwrap();
        if uid == 0 {
            // Root owns every cgroup: without systemd's mark none is delegated.
            assert!(check(dir.path(), 0).unwrap_err().contains("delegation mark"));
        } else {
            // Without a controller it is used all the same, for its freezer.
            assert_eq!(check(dir.path(), uid).unwrap(), Controllers::default());
            fs::write(dir.path().join("cgroup.controllers"), "cpuset cpu io memory pids\n").unwrap();
            assert_eq!(check(dir.path(), uid).unwrap(), Controllers { memory: true, pids: true });
        }
        assert!(check(dir.path(), uid + 1).unwrap_err().contains("not delegated"));
    }

    #[test]
    fn set_up_moves_metewand_hands_the_controllers_down_and_each_worker_gets_its_limits() {
        // A plain folder stands in for the delegated cgroup: what is written is what the kernel's files would get.
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("metewand-999999999/w-3")).unwrap();
        let controllers = Controllers { memory: true, pids: true };
        let delegated = Delegated::set_up(dir.path(), controllers, 4242).unwrap();
        let read = |path: &str| fs::read_to_string(dir.path().join(path)).unwrap();
        assert_eq!(read("metewand-4242/executor/cgroup.procs"), "4242");
        assert_eq!(read("cgroup.subtree_control"), "+memory +pids");
        assert_eq!(read("metewand-4242/cgroup.subtree_control"), "+memory +pids");
        assert!(!dir.path().join("metewand-999999999").exists(), "an ended process's folder is removed");

        let worker = delegated.worker(Some(1 << 30), Some(65)).unwrap();
        assert_eq!(read("metewand-4242/w-0/memory.max"), "1073741824");
        assert_eq!(read("metewand-4242/w-0/memory.swap.max"), "0");
        assert_eq!(read("metewand-4242/w-0/pids.max"), "65");
        assert!(worker.procs().is_some());
        assert_eq!(worker.events(), Events::default());
        fs::write(dir.path().join("metewand-4242/w-0/memory.events"), "low 0\nhigh 0\nmax 9\noom 2\noom_kill 1\n")
            .unwrap();
        fs::write(dir.path().join("metewand-4242/w-0/pids.events"), "max 3\n").unwrap();
        fs::write(dir.path().join("metewand-4242/w-0/memory.peak"), "1073741824\n").unwrap();
        assert_eq!(worker.events(), Events { oom_kills: 1, forks_refused: 3, memory_peak: Some(1 << 30) });
        let only_pids = Delegated { controllers: Controllers { memory: false, pids: true }, ..delegated };
        let _second = only_pids.worker(Some(1 << 30), None).unwrap();
        assert!(!dir.path().join("metewand-4242/w-1/memory.max").exists(), "no memory controller, no memory.max");
        assert!(!dir.path().join("metewand-4242/w-1/pids.max").exists(), "no task limit asked");
    }

    #[test]
    fn a_set_up_that_cannot_hand_the_controllers_down_moves_back_and_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        // The kernel refuses with EBUSY when other processes share the cgroup; a folder in the file's place
        // refuses the write here.
        fs::create_dir(dir.path().join("cgroup.subtree_control")).unwrap();
        let error = Delegated::set_up(dir.path(), Controllers { memory: true, pids: false }, 4242).unwrap_err();
        assert!(error.contains("cannot hand the controllers down from"), "{error}");
        assert_eq!(fs::read_to_string(dir.path().join("cgroup.procs")).unwrap(), "4242", "moved back");
        let error = Delegated::set_up_at_root(dir.path(), Controllers { memory: true, pids: false }, 4244).unwrap_err();
        assert!(error.contains("cannot hand the controllers down from"), "{error}");
        assert!(!dir.path().join("metewand-4244").exists(), "nothing of the failed set-up at the root is left");
    }

    /// On the kernel's own cgroupfs (root's cgroup v2 hierarchy, where the tests run as root): a set-up in a cgroup
    /// that holds another process too cannot hand controllers down (the kernel refuses), moves the process back,
    /// and leaves no folder.
    #[test]
    fn on_the_kernels_cgroupfs_a_failed_set_up_moves_back_and_leaves_no_folder() {
        let mountinfo = fs::read_to_string("/proc/self/mountinfo").unwrap();
        let Some(root) = mountinfo.lines().find_map(|line| {
            let (mount, filesystem) = line.split_once(" - ")?;
            let point = mount.split(' ').nth(4)?;
            filesystem.starts_with("cgroup2 ").then(|| PathBuf::from(unescape(point)))
        }) else {
            return metewand_testkit::skip(metewand_testkit::Requirement::Root, "no cgroup2 file system is mounted");
        };
        let dir = root.join(format!("metewand-test-{}", std::process::id()));
        if sys::euid() != 0 || fs::create_dir(&dir).is_err() {
            return metewand_testkit::skip(
                metewand_testkit::Requirement::Root,
                "no cgroup v2 this process may make a cgroup in: the kernel's refusal was not played",
            );
        }
        let mut sleepers: Vec<std::process::Child> =
            (0..2).map(|_| std::process::Command::new("sleep").arg("60").spawn().expect("sleep starts")).collect();
        for sleeper in &sleepers {
            write_file(&dir.join("cgroup.procs"), &sleeper.id().to_string()).unwrap();
        }
        let moved = sleepers[0].id();
        let outcome = Delegated::set_up(&dir, Controllers { memory: true, pids: true }, moved);
        let procs = fs::read_to_string(dir.join("cgroup.procs")).unwrap();
        let left = dir.join(format!("metewand-{moved}")).exists();
        for sleeper in &mut sleepers {
            write_file(&root.join("cgroup.procs"), &sleeper.id().to_string()).unwrap();
            let _ = sleeper.kill();
            let _ = sleeper.wait();
        }
        let _ = fs::remove_dir(dir.join(format!("metewand-{moved}/executor")));
        let _ = fs::remove_dir(dir.join(format!("metewand-{moved}")));
        fs::remove_dir(&dir).unwrap();
        let error = outcome.unwrap_err();
        assert!(error.contains("cannot hand the controllers down from"), "{error}");
        assert!(procs.lines().any(|pid| pid == moved.to_string()), "moved back: {procs}");
        assert!(!left, "nothing of the failed set-up is left");
    }

    #[test]
    fn set_up_at_the_root_leaves_the_process_where_it_is_and_hands_the_controllers_down() {
        let dir = tempfile::tempdir().unwrap();
        let delegated = Delegated::set_up_at_root(dir.path(), Controllers { memory: false, pids: true }, 4242).unwrap();
        let read = |path: &str| fs::read_to_string(dir.path().join(path)).unwrap();
        assert!(!dir.path().join("cgroup.procs").exists() && !dir.path().join("metewand-4242/executor").exists());
        assert_eq!(read("cgroup.subtree_control"), "+pids");
        assert_eq!(read("metewand-4242/cgroup.subtree_control"), "+pids");
        let _worker = delegated.worker(None, Some(9)).unwrap();
        assert_eq!(read("metewand-4242/w-0/pids.max"), "9");
    }

    #[test]
    fn the_kernels_counts_say_which_limit_held_the_worker() {
        let dir = tempfile::tempdir().unwrap();
        let delegated = Delegated::set_up(dir.path(), Controllers { memory: true, pids: true }, 4243)
            .expect("a set-up in a folder");
        let worker = delegated.worker(Some(1 << 20), Some(10)).unwrap();
        let limits = Limits { output_bytes: 1 << 30, memory_bytes: Some(1 << 20), processes: 9, cpu_seconds: None };
        assert!(worker.limit_hit(limits).is_none(), "nothing counted, nothing held");
        let counts = dir.path().join("metewand-4243/w-0");
        fs::write(counts.join("pids.events"), "max 2\n").unwrap();
        assert!(
            matches!(
                worker.limit_hit(limits),
                Some(SessionErrorKind::ResourceLimit { limit: "processes", value: 9, .. })
            ),
            "a refused fork is the process limit"
        );
        fs::write(counts.join("memory.events"), "oom 1\noom_kill 1\n").unwrap();
        fs::write(counts.join("memory.peak"), "1048576\n").unwrap();
        let hit = worker.limit_hit(limits);
        assert!(
            matches!(hit, Some(SessionErrorKind::ResourceLimit { limit: "memory_bytes", observed: 1_048_576, .. })),
            "an OOM kill is the memory limit, whatever else was counted: {hit:?}"
        );
        assert_eq!(worker.limit_hit(Limits { memory_bytes: None, ..limits }).map(|_| ()), Some(()), "pids still");
    }
}
