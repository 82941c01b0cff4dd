//! What a repository declares for its workers and the runtime enforces: the resource limits of `[limits]` and the
//! system call groups a worker's `syscalls` names. The repository reads them; a session holds a worker to them;
//! both take them from here, so that neither depends on the other.
//!
//! ```
//! use metewand_protocol::declared::{Limits, SyscallGroup, SyscallGroups};
//!
//! assert_eq!(Limits::default().processes, Limits::DEFAULT_PROCESSES);
//! let groups: SyscallGroups = [SyscallGroup::IoUring].into_iter().collect();
//! assert!(groups.contains(SyscallGroup::IoUring) && !groups.contains(SyscallGroup::Bpf));
//! ```

/// The resource limits of a session (`[limits]` in `metewand.toml`), each with its documented default.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The most bytes a session may write in all (its output folder and `TMPDIR` together, measured while it
    /// runs), and the most one artifact's manifest may declare: a manifest declaring more is invalid output
    /// before any of its files is read.
    pub output_bytes: u64,
    /// The most address space each of the worker's processes may map (`RLIMIT_AS`), or `None` for no limit.
    pub memory_bytes: Option<u64>,
    /// The most tasks (processes and threads, the worker included) its PID namespace may hold.
    pub processes: u64,
    /// The most CPU time, in seconds, each of the worker's processes may use (`RLIMIT_CPU`), or `None` for no
    /// limit.
    pub cpu_seconds: Option<u64>,
}

impl Limits {
    /// The default of `output_bytes`: 64 GiB.
    pub const DEFAULT_OUTPUT_BYTES: u64 = 64 << 30;
    /// The default of `processes`.
    pub const DEFAULT_PROCESSES: u64 = 4096;
    /// The smallest `processes` a PID namespace's `pid_max` can express: the kernel's least `pid_max` is 301
    /// (pids below 300 are kept for the first pass), and pid 1 is the worker.
    pub const LEAST_PID_MAX_PROCESSES: u64 = 300;
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            output_bytes: Limits::DEFAULT_OUTPUT_BYTES,
            memory_bytes: None,
            processes: Limits::DEFAULT_PROCESSES,
            cpu_seconds: None,
        }
    }
}

pub use crate::generated::attempt_record::SyscallGroup;

/// Every group, in the order of their names.
pub const SYSCALL_GROUPS: [SyscallGroup; 6] = [
    SyscallGroup::Bpf,
    SyscallGroup::IoUring,
    SyscallGroup::Keyctl,
    SyscallGroup::MemfdCreate,
    SyscallGroup::PerfEventOpen,
    SyscallGroup::Userfaultfd,
];

fn bit(group: SyscallGroup) -> u8 {
    1 << SYSCALL_GROUPS.iter().position(|known| *known == group).expect("every group is listed")
}

/// The groups a worker declared, as a set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SyscallGroups(u8);

impl SyscallGroups {
    /// No group.
    pub const NONE: SyscallGroups = SyscallGroups(0);

    /// Whether `group` is in the set.
    pub fn contains(self, group: SyscallGroup) -> bool {
        self.0 & bit(group) != 0
    }

    /// The set with `group` added.
    #[must_use]
    pub fn with(self, group: SyscallGroup) -> SyscallGroups {
        SyscallGroups(self.0 | bit(group))
    }

    /// The groups in the set, in the order of their names.
    pub fn iter(self) -> impl Iterator<Item = SyscallGroup> {
        SYSCALL_GROUPS.into_iter().filter(move |group| self.contains(*group))
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl FromIterator<SyscallGroup> for SyscallGroups {
    fn from_iter<I: IntoIterator<Item = SyscallGroup>>(groups: I) -> SyscallGroups {
        groups.into_iter().fold(SyscallGroups::NONE, SyscallGroups::with)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_group_is_listed_once_in_the_order_of_its_name() {
        let names: Vec<String> = SYSCALL_GROUPS.iter().map(ToString::to_string).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(names, sorted);
        let all: SyscallGroups = SYSCALL_GROUPS.into_iter().collect();
        assert_eq!(all.iter().count(), SYSCALL_GROUPS.len(), "each group has a bit of its own");
    }
}
