//! CPU sets: which CPUs a worker runs on, and how a campaign of `-j N` slots divides the machine's CPUs so that
//! concurrent attempts do not distort each other's times.
//!
//! A [`CpuSet`] is given to a session ([`SessionConfig::cpus`](crate::SessionConfig::cpus)); the worker starts
//! with that affinity, and a confined worker cannot change it (a seccomp filter refuses `sched_setaffinity`), so a
//! hostile neighbour's CPU burners stay on its own slot's CPUs whatever sessions they make. [`SlotPlan`] is the
//! division: whole cores first, one core kept for the executor's own threads where there are enough, and the
//! reasons the slots cannot each get a whole core when they cannot.
//!
//! ```
//! use metewand_session::cpus::{CpuSet, SlotPlan, Topology};
//!
//! // Four cores without SMT, three slots: the executor keeps core 0, each slot gets one core of its own.
//! let available: CpuSet = "0-3".parse().unwrap();
//! let plan = SlotPlan::new(3, &available, &Topology::flat(&available));
//! assert_eq!(plan.slots().iter().map(ToString::to_string).collect::<Vec<_>>(), ["1", "2", "3"]);
//! assert_eq!(plan.executor().map(ToString::to_string).as_deref(), Some("0"));
//! assert!(plan.shortfalls().is_empty());
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::fs;
use std::io;
use std::path::Path;
use std::str::FromStr;

/// How a worker is held on its CPUs (the record's `implementation.cpus.binding`).
pub use metewand_protocol::generated::attempt_record::CpusBinding;

/// A nonempty set of CPU numbers, written as the kernel writes them (`0-3,6`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CpuSet(BTreeSet<u32>);

/// A CPU list that is not one: empty, not numbers and ranges, or a range that runs backwards.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid CPU list {text:?}: {reason}")]
pub struct CpuListError {
    text: String,
    reason: &'static str,
}

impl CpuSet {
    /// The CPUs of `cpus`, or `None` when it is empty.
    pub fn new(cpus: impl IntoIterator<Item = u32>) -> Option<CpuSet> {
        let set: BTreeSet<u32> = cpus.into_iter().collect();
        (!set.is_empty()).then_some(CpuSet(set))
    }

    /// The CPUs the calling thread may run on (its affinity).
    pub fn of_current_thread() -> io::Result<CpuSet> {
        let mask = rustix::thread::sched_getaffinity(None)?;
        let cpus = (0..rustix::thread::CpuSet::MAX_CPU).filter(|&cpu| mask.is_set(cpu)).map(|cpu| cpu as u32);
        CpuSet::new(cpus).ok_or_else(|| io::Error::other("the thread's affinity names no CPU"))
    }

    /// Restricts the calling thread (and the threads and processes it starts from now on) to these CPUs.
    pub fn apply_to_current_thread(&self) -> io::Result<()> {
        Ok(rustix::thread::sched_setaffinity(None, &self.mask()?)?)
    }

    /// Restricts the thread `tid` (another process's too, where the kernel lets this one) to these CPUs.
    pub(crate) fn apply_to_thread(&self, tid: i32) -> io::Result<()> {
        let pid = rustix::thread::Pid::from_raw(tid).ok_or_else(|| io::Error::from_raw_os_error(libc::ESRCH))?;
        Ok(rustix::thread::sched_setaffinity(Some(pid), &self.mask()?)?)
    }

    fn mask(&self) -> io::Result<rustix::thread::CpuSet> {
        let mut mask = rustix::thread::CpuSet::new();
        for &cpu in &self.0 {
            if cpu as usize >= rustix::thread::CpuSet::MAX_CPU {
                return Err(io::Error::from_raw_os_error(libc::EINVAL));
            }
            mask.set(cpu as usize);
        }
        Ok(mask)
    }

    /// The CPU numbers, ascending.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.iter().copied()
    }

    /// How many CPUs.
    #[allow(clippy::len_without_is_empty)] // never empty
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether no CPU is in both sets.
    pub fn is_disjoint(&self, other: &CpuSet) -> bool {
        self.0.is_disjoint(&other.0)
    }
}

impl FromStr for CpuSet {
    type Err = CpuListError;

    fn from_str(text: &str) -> Result<CpuSet, CpuListError> {
        let error = |reason| CpuListError { text: text.to_owned(), reason };
        let number = |part: &str| part.trim().parse::<u32>().map_err(|_| error("expected CPU numbers and ranges"));
        let mut set = BTreeSet::new();
        for part in text.trim().split(',') {
            match part.split_once('-') {
                Some((first, last)) => {
                    let (first, last) = (number(first)?, number(last)?);
                    if first > last {
                        return Err(error("a range runs backwards"));
                    }
                    if last - first >= rustix::thread::CpuSet::MAX_CPU as u32 {
                        return Err(error("a range is longer than the kernel's CPU sets"));
                    }
                    set.extend(first..=last);
                }
                None => {
                    set.insert(number(part)?);
                }
            }
        }
        CpuSet::new(set).ok_or_else(|| error("no CPU"))
    }
}

impl fmt::Display for CpuSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut cpus = self.0.iter().copied().peekable();
        let mut first = true;
        while let Some(start) = cpus.next() {
            let mut end = start;
            while cpus.peek() == Some(&(end + 1)) {
                end += 1;
                cpus.next();
            }
            if !first {
                f.write_str(",")?;
            }
            first = false;
            if end == start { write!(f, "{start}")? } else { write!(f, "{start}-{end}")? }
        }
        Ok(())
    }
}

/// The CPUs a worker was started on, and whether it could leave them: what its attempt records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CpuPlacement {
    /// The worker's affinity when it started.
    pub cpus: CpuSet,
    /// How it is held there.
    pub binding: CpusBinding,
}

/// Which CPUs share a core: the machine's topology, as far as the CPUs of interest go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Topology {
    /// The cores, each its CPUs (SMT siblings), in the order of their first CPU.
    cores: Vec<CpuSet>,
}

impl Topology {
    /// Each CPU of `cpus` a core of its own (a machine without SMT, or one whose topology is unknown).
    pub fn flat(cpus: &CpuSet) -> Topology {
        Topology { cores: cpus.iter().filter_map(|cpu| CpuSet::new([cpu])).collect() }
    }

    /// The cores of `cpus` as `/sys/devices/system/cpu/cpuN/topology/` says (package and core id); a CPU whose
    /// topology cannot be read is taken as a core of its own.
    pub fn probe(cpus: &CpuSet) -> Topology {
        Topology::read(Path::new("/sys/devices/system/cpu"), cpus)
    }

    /// [`Topology::probe`] under `root` instead of `/sys/devices/system/cpu`.
    pub fn read(root: &Path, cpus: &CpuSet) -> Topology {
        let read = |cpu: u32, file: &str| -> Option<String> {
            #[allow(clippy::disallowed_methods, reason = "sysfs's CPU topology, which only the kernel writes")]
            let text = fs::read_to_string(root.join(format!("cpu{cpu}/topology/{file}"))).ok()?;
            Some(text.trim().to_owned())
        };
        let mut cores: BTreeMap<(String, String), BTreeSet<u32>> = BTreeMap::new();
        for cpu in cpus.iter() {
            let key = match (read(cpu, "physical_package_id"), read(cpu, "core_id")) {
                (Some(package), Some(core)) => (package, core),
                _ => (String::new(), format!("cpu{cpu}")),
            };
            cores.entry(key).or_default().insert(cpu);
        }
        let mut cores: Vec<CpuSet> = cores.into_values().filter_map(CpuSet::new).collect();
        cores.sort_by_key(|core| core.iter().next());
        Topology { cores }
    }

    /// The cores, each its CPUs.
    pub fn cores(&self) -> &[CpuSet] {
        &self.cores
    }
}

/// How `-j N` slots divide the CPUs the executor may use.
///
/// With one slot nothing is divided: its workers inherit the executor's CPUs. With more, each slot gets an equal
/// number of whole cores of its own, and the executor keeps one core for its own threads when that still leaves a
/// core per slot. With fewer cores than slots, the slots get distinct CPUs (sharing cores) while there are enough
/// CPUs, and share CPUs beyond that; [`SlotPlan::shortfalls`] says so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlotPlan {
    slots: Vec<CpuSet>,
    executor: Option<CpuSet>,
    shortfalls: Vec<String>,
}

impl SlotPlan {
    /// [`SlotPlan::new`], where workers are started ahead of their attempts (DESIGN §19) on the executor's CPUs:
    /// one slot then keeps off the first core too, where there are two or more, so that a start-up ahead never
    /// competes with a timed phase. With more slots the division is [`SlotPlan::new`]'s; workers are started ahead
    /// only where it keeps a core for the executor.
    pub fn with_ahead(jobs: usize, available: &CpuSet, topology: &Topology) -> SlotPlan {
        let cores = topology.cores();
        if jobs > 1 || cores.len() < 2 {
            return SlotPlan::new(jobs, available, topology);
        }
        let rest = CpuSet::new(cores[1..].iter().flat_map(CpuSet::iter));
        match rest {
            Some(rest) => SlotPlan { slots: vec![rest], executor: Some(cores[0].clone()), shortfalls: Vec::new() },
            None => SlotPlan::new(jobs, available, topology),
        }
    }

    /// Divides `available` (on `topology`) among `jobs` slots.
    pub fn new(jobs: usize, available: &CpuSet, topology: &Topology) -> SlotPlan {
        let jobs = jobs.max(1);
        if jobs == 1 {
            return SlotPlan { slots: vec![available.clone()], executor: None, shortfalls: Vec::new() };
        }
        let cores = topology.cores();
        let join = |cores: &[CpuSet]| CpuSet::new(cores.iter().flat_map(CpuSet::iter));
        if cores.len() >= jobs {
            let (executor, rest) = if cores.len() > jobs { (1, &cores[1..]) } else { (0, cores) };
            let each = rest.len() / jobs;
            let slots: Vec<CpuSet> = rest.chunks(each).take(jobs).filter_map(join).collect();
            // Cores left over after an equal division stay with the executor: equal slots keep times comparable.
            let spare = &rest[each * jobs..];
            let executor = (executor == 1).then(|| join(&[&cores[..1], spare].concat())).flatten();
            let mut shortfalls = Vec::new();
            if executor.is_none() {
                shortfalls.push(format!(
                    "{jobs} slots on {} cores leave no core for metewand's own threads, which share the slots' CPUs",
                    cores.len()
                ));
            }
            return SlotPlan { slots, executor, shortfalls };
        }
        let cpus: Vec<u32> = available.iter().collect();
        let (slots, shortfall) = if cpus.len() >= jobs {
            let each = cpus.len() / jobs;
            let slots = cpus.chunks(each).take(jobs).filter_map(|chunk| CpuSet::new(chunk.iter().copied())).collect();
            (
                slots,
                format!(
                    "{jobs} slots on {} cores cannot each get a whole core: slots share cores, and a neighbour's work slows \
                 an attempt; use -j {} or fewer",
                    cores.len(),
                    cores.len()
                ),
            )
        } else {
            let slots = (0..jobs).filter_map(|slot| CpuSet::new([cpus[slot % cpus.len()]])).collect();
            (
                slots,
                format!(
                    "{jobs} slots on {} CPUs cannot each get a CPU of their own: slots share CPUs, and a neighbour's work \
                 slows an attempt; use -j {} or fewer",
                    cpus.len(),
                    cores.len()
                ),
            )
        };
        SlotPlan { slots, executor: None, shortfalls: vec![shortfall] }
    }

    /// The plan for this process's CPUs and this machine's topology.
    pub fn probe(jobs: usize) -> io::Result<SlotPlan> {
        let available = CpuSet::of_current_thread()?;
        Ok(SlotPlan::new(jobs, &available, &Topology::probe(&available)))
    }

    /// [`SlotPlan::with_ahead`] for this process's CPUs and this machine's topology.
    pub fn probe_with_ahead(jobs: usize) -> io::Result<SlotPlan> {
        let available = CpuSet::of_current_thread()?;
        Ok(SlotPlan::with_ahead(jobs, &available, &Topology::probe(&available)))
    }

    /// Each slot's CPUs; with more than one slot, pairwise disjoint unless a shortfall says otherwise.
    pub fn slots(&self) -> &[CpuSet] {
        &self.slots
    }

    /// The CPUs kept for the executor's own threads, or `None` when they share the slots' (one slot, or no core to
    /// spare).
    pub fn executor(&self) -> Option<&CpuSet> {
        self.executor.as_ref()
    }

    /// Why the slots cannot each get a whole core (or the executor one of its own), one sentence each: what
    /// `campaign plan` and `campaign run` warn about.
    pub fn shortfalls(&self) -> &[String] {
        &self.shortfalls
    }

    /// Whether the slots' CPUs are pinned at all (more than one slot, or one kept off the executor's core).
    pub fn is_divided(&self) -> bool {
        self.slots.len() > 1 || self.executor.is_some()
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, reason = "tests make and read their own files in temporary folders")]
mod tests {
    use super::*;

    fn set(text: &str) -> CpuSet {
        text.parse().unwrap()
    }

    fn strings(sets: &[CpuSet]) -> Vec<String> {
        sets.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn cpu_lists_parse_and_print_as_the_kernel_writes_them() {
        assert_eq!(set("0-3,6,8-9").to_string(), "0-3,6,8-9");
        assert_eq!(set(" 5,1,2,3\n").to_string(), "1-3,5");
        for bad in ["", "a", "3-1", "1,,2", "0-99999999"] {
            assert!(bad.parse::<CpuSet>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn slots_get_whole_cores_and_the_executor_keeps_one_when_there_are_enough() {
        let available = set("0-7");
        // Four cores of two SMT siblings each.
        let topology = Topology { cores: ["0,4", "1,5", "2,6", "3,7"].map(set).to_vec() };
        let plan = SlotPlan::new(2, &available, &topology);
        assert_eq!(strings(plan.slots()), ["1,5", "2,6"]);
        assert_eq!(plan.executor().unwrap().to_string(), "0,3-4,7");
        assert!(plan.shortfalls().is_empty());

        let plan = SlotPlan::new(4, &available, &topology);
        assert_eq!(strings(plan.slots()), ["0,4", "1,5", "2,6", "3,7"]);
        assert_eq!(plan.executor(), None);
        assert_eq!(plan.shortfalls().len(), 1);
        assert!(plan.shortfalls()[0].contains("no core for metewand's own threads"), "{:?}", plan.shortfalls());
    }

    #[test]
    fn too_few_cores_give_distinct_cpus_then_shared_ones_and_say_so() {
        let available = set("0-3");
        let topology = Topology { cores: ["0,2", "1,3"].map(set).to_vec() };
        let plan = SlotPlan::new(3, &available, &topology);
        assert_eq!(strings(plan.slots()), ["0", "1", "2"]);
        assert!(plan.shortfalls()[0].contains("cannot each get a whole core"), "{:?}", plan.shortfalls());
        assert!(plan.shortfalls()[0].contains("use -j 2 or fewer"), "{:?}", plan.shortfalls());

        let plan = SlotPlan::new(6, &available, &topology);
        assert_eq!(strings(plan.slots()), ["0", "1", "2", "3", "0", "1"]);
        assert!(plan.shortfalls()[0].contains("cannot each get a CPU of their own"), "{:?}", plan.shortfalls());
    }

    #[test]
    fn one_slot_keeps_every_cpu() {
        let available = set("0-3");
        let plan = SlotPlan::new(1, &available, &Topology::flat(&available));
        assert_eq!(strings(plan.slots()), ["0-3"]);
        assert!(!plan.is_divided());
        assert!(plan.shortfalls().is_empty());
    }

    #[test]
    fn one_slot_started_ahead_keeps_off_the_first_core_where_there_are_two() {
        let topology = Topology { cores: ["0,2", "1,3"].map(set).to_vec() };
        let plan = SlotPlan::with_ahead(1, &set("0-3"), &topology);
        assert_eq!(strings(plan.slots()), ["1,3"]);
        assert_eq!(plan.executor().unwrap().to_string(), "0,2");
        assert!(plan.is_divided());
        // One core: nothing to keep off; more slots: the division without workers started ahead.
        let one = set("0,2");
        let plan = SlotPlan::with_ahead(1, &one, &Topology { cores: vec![one.clone()] });
        assert_eq!((strings(plan.slots()), plan.executor()), (vec!["0,2".to_owned()], None));
        let available = set("0-7");
        let topology = Topology::flat(&available);
        assert_eq!(SlotPlan::with_ahead(3, &available, &topology), SlotPlan::new(3, &available, &topology));
    }

    #[test]
    fn the_topology_is_read_from_sysfs_and_unknown_cpus_are_cores_of_their_own() {
        let root = tempfile::tempdir().unwrap();
        for (cpu, core) in [(0, 0), (1, 1), (2, 0), (3, 1)] {
            let dir = root.path().join(format!("cpu{cpu}/topology"));
            fs::create_dir_all(&dir).unwrap();
            fs::write(dir.join("physical_package_id"), "0\n").unwrap();
            fs::write(dir.join("core_id"), format!("{core}\n")).unwrap();
        }
        let topology = Topology::read(root.path(), &set("0-4"));
        assert_eq!(strings(topology.cores()), ["0,2", "1,3", "4"]);
    }
}
