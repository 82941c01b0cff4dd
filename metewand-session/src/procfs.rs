//! Reading `/proc`: one process's `stat` line, every process on the machine, the processes below one in its tree,
//! and which of them a terminating worker left behind, by the rules of `process`'s documentation.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::os::fd::AsFd;
use std::path::PathBuf;

/// One line of `/proc/<pid>/stat`, the fields the sweep needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ProcessStat {
    pub(super) pid: i32,
    pub(super) ppid: i32,
    pub(super) pgid: i32,
    pub(super) sid: i32,
    pub(super) zombie: bool,
    /// Stopped by a signal (or by a tracer).
    pub(super) stopped: bool,
    /// In an uninterruptible sleep (`D`): in the kernel, running none of its code until it wakes; a parent blocked
    /// in `vfork` until its child execs or exits is one, and no signal stops it.
    pub(super) asleep: bool,
    /// Clock ticks after boot at which the process started: with the pid, a process's identity.
    pub(super) start: u64,
}

/// Parses `/proc/<pid>/stat`. The command name is in parentheses and may hold spaces and parentheses itself, so
/// the fields are counted from the last `)`.
pub(super) fn parse_stat(text: &str) -> Option<ProcessStat> {
    let (head, tail) = text.rsplit_once(')')?;
    let pid = head.split_once(" (")?.0.trim().parse().ok()?;
    // After the name: state(3) ppid(4) pgrp(5) session(6) ... starttime(22), numbered as in proc(5).
    let fields: Vec<&str> = tail.split_ascii_whitespace().collect();
    let field = |number: usize| fields.get(number - 3).copied();
    Some(ProcessStat {
        pid,
        ppid: field(4)?.parse().ok()?,
        pgid: field(5)?.parse().ok()?,
        sid: field(6)?.parse().ok()?,
        zombie: field(3)? == "Z",
        stopped: matches!(field(3)?, "T" | "t"),
        asleep: field(3)? == "D",
        start: field(22)?.parse().ok()?,
    })
}

/// The worker among `processes`: `spawned` itself, or on the user-namespace route (`supervised`) the supervisor's
/// only live child.
pub(super) fn worker_in(processes: &[ProcessStat], spawned: i32, supervised: bool) -> Option<i32> {
    if !supervised {
        return Some(spawned);
    }
    processes.iter().find(|process| process.ppid == spawned && !process.zombie).map(|process| process.pid)
}

/// The PID namespace of one process (its `/proc/<pid>/ns/pid` link), or `None` if it cannot be read.
pub(super) fn pid_namespace_of(pid: i32) -> Option<PathBuf> {
    fs::read_link(format!("/proc/{pid}/ns/pid")).ok()
}

/// The stat of one process, or `None` if it does not exist (any more).
pub(super) fn read_stat(pid: i32) -> Option<ProcessStat> {
    read_stat_at(rustix::fs::CWD, &format!("/proc/{pid}/stat"))
}

/// The stat file at `path` (from `dir`) parsed: opened, read into a buffer on the stack and closed, three system
/// calls, since a scan reads one per process on the machine, several times per session.
pub(super) fn read_stat_at(dir: impl AsFd, path: &str) -> Option<ProcessStat> {
    // A stat line is a few hundred bytes (the command name is at most 64 escaped bytes); one that fills the buffer
    // is read no further and fails to parse.
    let mut buffer = [0u8; 1024];
    let length = read_at(dir, path, &mut buffer).ok()?;
    parse_stat(std::str::from_utf8(&buffer[..length]).ok()?)
}

/// Reads the file at `path` (from `dir`, not following a link) into `buffer` until its end or until `buffer` is
/// full: how many bytes were read.
fn read_at(dir: impl AsFd, path: &str, buffer: &mut [u8]) -> Result<usize, rustix::io::Errno> {
    use rustix::fs::{Mode, OFlags};
    let file = rustix::fs::openat(dir, path, OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NOFOLLOW, Mode::empty())?;
    let mut length = 0;
    while length < buffer.len() {
        match rustix::io::read(&file, &mut buffer[length..]) {
            Ok(0) => break,
            Ok(read) => length += read,
            Err(rustix::io::Errno::INTR) => continue,
            Err(error) => return Err(error),
        }
    }
    Ok(length)
}

/// The open task folder of process `pid` and the path beneath it of each of its threads' `file` (`<tid>/<file>`),
/// or the error opening `/proc/<pid>/task` gave (`NOENT` or `SRCH` once the process is gone).
fn thread_files(pid: i32, file: &str) -> Result<(rustix::fs::Dir, Vec<String>), rustix::io::Errno> {
    use rustix::fs::{Dir, Mode, OFlags};
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let mut tasks = rustix::fs::open(format!("/proc/{pid}/task"), flags, Mode::empty()).and_then(Dir::new)?;
    let paths = tasks
        .by_ref()
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let name = entry.file_name().to_str().ok()?;
            name.parse::<i32>().is_ok().then(|| format!("{name}/{file}"))
        })
        .collect();
    Ok((tasks, paths))
}

/// Whether every thread of process `pid` is held: stopped (`T`, `t`) or gone (`Z`, `X`, or its task folder no
/// longer there). A process whose main thread has exited shows `Z` in its own `stat` while its other threads run,
/// so each thread's `stat` is read (`/proc/<pid>/task/<tid>/stat`).
pub(super) fn every_thread_held(pid: i32) -> bool {
    let Ok((tasks, stats)) = thread_files(pid, "stat") else {
        // The process is gone.
        return true;
    };
    let Ok(fd) = tasks.fd() else { return false };
    stats.iter().all(|stat| read_state_at(fd, stat).is_none_or(|state| matches!(state, b'T' | b't' | b'Z' | b'X')))
}

/// The state letter of the `stat` file at `path` (from `dir`), or `None` when it cannot be read (the task is gone).
fn read_state_at(dir: impl AsFd, path: &str) -> Option<u8> {
    let mut buffer = [0u8; 1024];
    let length = read_at(dir, path, &mut buffer).ok()?;
    let text = &buffer[..length];
    let close = text.iter().rposition(|&byte| byte == b')')?;
    text.get(close + 2).copied()
}

/// Every process on the machine that could be read; processes that exit during the scan are skipped. `/proc` is
/// opened once, listed, and each `stat` opened beneath it.
pub(super) fn scan_processes() -> Vec<ProcessStat> {
    use rustix::fs::{Dir, Mode, OFlags};
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let Ok(mut proc) = rustix::fs::open("/proc", flags, Mode::empty()).and_then(Dir::new) else { return Vec::new() };
    let pids: Vec<i32> =
        proc.by_ref().filter_map(|entry| entry.ok()?.file_name().to_str().ok()?.parse::<i32>().ok()).collect();
    let Ok(fd) = proc.fd() else { return Vec::new() };
    pids.into_iter().filter_map(|pid| read_stat_at(fd, &format!("{pid}/stat"))).collect()
}

/// The processes below `root` in the process tree, each found in a `children` file of its parent's threads
/// (`/proc/<pid>/task/<tid>/children`, which lists the children each thread started, zombies too); `None` where
/// `root` is gone or a process's files cannot be read (the kernel has no such files, or they are refused), for the
/// caller to read every process instead. Processes that exit while they are read are skipped; one re-parented while
/// the walk reads (its parent ended) may be missed, which the walk then says ([`Walk::moved`]).
pub(super) fn descendants(root: i32) -> Option<Walk> {
    let mut walk = Walk { found: Vec::new(), moved: false };
    let mut parents = vec![(root, None)];
    while let Some((parent, alive)) = parents.pop() {
        let children = match children_of(parent) {
            Children::Found(children) => children,
            Children::Gone if parent != root => {
                walk.moved = true;
                continue;
            }
            Children::Gone | Children::Unreadable => return None,
        };
        // A process that ended after it was found and before its children were read gave them to another parent,
        // perhaps one already read: what it listed (nothing, as a zombie) is not all there is.
        if alive == Some(true) && read_stat(parent).is_none_or(|now| now.zombie) {
            walk.moved = true;
        }
        for child in children {
            if let Some(stat) = read_stat(child) {
                parents.push((child, Some(!stat.zombie)));
                walk.found.push(stat);
            }
        }
    }
    Some(walk)
}

/// What a walk of a process tree found, and whether it may have missed a process: one it found ended while it read
/// (a process re-parented as its parent ends can be missed by a walk that read its new parent first).
pub(super) struct Walk {
    pub(super) found: Vec<ProcessStat>,
    pub(super) moved: bool,
}

/// What the `children` files of one process's threads say.
enum Children {
    Found(Vec<i32>),
    /// The process is gone: its children, if any, are another's now.
    Gone,
    Unreadable,
}

fn children_of(pid: i32) -> Children {
    use rustix::io::Errno;
    let (tasks, files) = match thread_files(pid, "children") {
        Ok(found) => found,
        Err(Errno::NOENT | Errno::SRCH) => return Children::Gone,
        Err(_) => return Children::Unreadable,
    };
    let Ok(fd) = tasks.fd() else { return Children::Unreadable };
    let mut children = Vec::new();
    // Room for a few thousand children a thread; a file that fills it is not read in part, but left to a scan.
    let mut buffer = vec![0u8; 32 << 10];
    for path in files {
        let text = match read_at(fd, &path, &mut buffer) {
            Ok(length) if length < buffer.len() => &buffer[..length],
            // A thread that ended has no children of its own any more: they went to another.
            Err(Errno::NOENT | Errno::SRCH) => continue,
            _ => return Children::Unreadable,
        };
        let pids =
            text.split(u8::is_ascii_whitespace).filter_map(|pid| std::str::from_utf8(pid).ok()?.parse::<i32>().ok());
        children.extend(pids);
    }
    Children::Found(children)
}

/// The processes a terminating worker left behind (see the module documentation for the rules).
pub(super) fn leftovers(
    processes: &[ProcessStat],
    worker: i32,
    me: i32,
    our_session: Option<i32>,
    workers: &BTreeSet<i32>,
) -> Vec<ProcessStat> {
    let mut chosen: BTreeSet<i32> = processes
        .iter()
        .filter(|process| process.pid != me && process.pid != worker)
        .filter(|process| {
            process.sid == worker
                || process.pgid == worker
                || (process.ppid == me
                    && our_session.is_some_and(|ours| process.sid != ours)
                    && !workers.contains(&process.pid)
                    && !workers.contains(&process.sid))
        })
        .map(|process| process.pid)
        .collect();
    let mut children: BTreeMap<i32, Vec<i32>> = BTreeMap::new();
    for process in processes {
        children.entry(process.ppid).or_default().push(process.pid);
    }
    let mut stack: Vec<i32> = chosen.iter().copied().chain([worker]).collect();
    while let Some(parent) = stack.pop() {
        for &child in children.get(&parent).into_iter().flatten() {
            if child != me && child != worker && chosen.insert(child) {
                stack.push(child);
            }
        }
    }
    processes.iter().filter(|process| chosen.contains(&process.pid)).copied().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_are_counted_from_the_last_parenthesis() {
        let line = "4242 (a (b) c) S 7 4242 4242 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 987654 0 0";
        let stat = parse_stat(line).unwrap();
        assert_eq!(
            stat,
            ProcessStat {
                pid: 4242,
                ppid: 7,
                pgid: 4242,
                sid: 4242,
                zombie: false,
                stopped: false,
                asleep: false,
                start: 987654
            }
        );
        assert!(parse_stat("4242 (x) Z 1 2 3").is_none(), "too few fields");
        assert!(parse_stat(&line.replace(") S", ") Z")).unwrap().zombie);
    }

    #[test]
    fn leftovers_are_the_session_the_subtree_and_orphans_from_worker_trees() {
        let stat = |pid, ppid, pgid, sid| ProcessStat {
            pid,
            ppid,
            pgid,
            sid,
            zombie: false,
            stopped: false,
            asleep: false,
            start: 1,
        };
        let me = 100;
        let processes = [
            stat(100, 1, 100, 100),   // the orchestrator
            stat(200, 100, 200, 200), // this worker
            stat(201, 200, 200, 200), // its child, in its group
            stat(202, 200, 202, 202), // escaped with setsid while the worker lives
            stat(203, 202, 202, 202), // the escapee's child
            stat(204, 100, 200, 200), // an orphan still in the worker's session
            stat(205, 100, 205, 205), // an orphan that escaped with setsid
            stat(300, 100, 300, 300), // another live worker
            stat(301, 100, 300, 300), // an orphan of that live worker's session: not ours
            stat(302, 300, 302, 302), // an escapee of the live worker: not ours
            stat(400, 100, 100, 100), // a plain child of the orchestrator, in its session
        ];
        let workers = BTreeSet::from([200, 300]);
        let found: Vec<i32> =
            leftovers(&processes, 200, me, Some(100), &workers).into_iter().map(|process| process.pid).collect();
        assert_eq!(found, [201, 202, 203, 204, 205]);
    }
}
