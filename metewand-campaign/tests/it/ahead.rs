//! Workers started ahead of their attempts (fresh sessions): they say hello on the executor's CPUs, off every
//! slot's, and are moved to their attempt's CPUs, every thread of them, before they are shown its inputs; the ids,
//! outcomes and verdicts are those of workers started by their attempts; a start that fails ahead is its own
//! attempt's to say, never the running one's.

use std::collections::BTreeMap;
use std::fs;

use metewand_campaign::{ahead_pays, starts_ahead};
use metewand_runtime::cpus::{CpuSet, SlotPlan, Topology};
use metewand_testkit::Requirement;
use serde_json::Value;

use crate::{Bench, records};

/// Runs campaign `name` into `out` on one slot, the workers of each next attempt started ahead.
fn run_ahead(bench: &Bench, name: &str, out: &str) {
    bench.run_configured(name, out, 1, |config, _| {
        config.cpus = Some(SlotPlan::probe_with_ahead(1).unwrap());
        config.ahead = true;
    });
}

/// A CPU list of a record (`[0, 2]`) as the kernel writes it (`0,2`).
fn cpus(list: &Value) -> String {
    let set = CpuSet::new(list.as_array().unwrap().iter().map(|cpu| cpu.as_u64().unwrap() as u32)).unwrap();
    set.to_string()
}

/// Each record's outcome, verdict and failure (kind, role, phase), by attempt id.
fn judged(bench: &Bench, out: &str) -> BTreeMap<String, [Value; 5]> {
    records(&bench.folder(out))
        .into_iter()
        .map(|(id, record)| {
            let failure = &record["failure"];
            let judged = [
                record["outcome"].clone(),
                record["verdict"].clone(),
                failure["kind"].clone(),
                failure["role"].clone(),
                failure["phase"].clone(),
            ];
            (id, judged)
        })
        .collect()
}

/// The phases `role` went through in a record.
fn phases<'a>(record: &'a Value, role: &str) -> Vec<&'a str> {
    let phases = record["phases"].as_array().unwrap();
    phases.iter().filter(|phase| phase["role"] == role).map(|phase| phase["phase"].as_str().unwrap()).collect()
}

fn two_cpus(why: &str) -> bool {
    if CpuSet::of_current_thread().map_or(1, |cpus| cpus.len()) < 2 {
        metewand_testkit::skip(Requirement::TwoCpus, why);
        return false;
    }
    true
}

/// The attack: a solver starts a helper thread in its hello and hopes it stays where it was started, on CPUs no
/// timed slot has. Every attempt that follows another on the slot is served by workers started ahead on the
/// executor's CPUs (so recorded), which ran their hello there; the solver's every thread is then on the slot's CPUs
/// by its execute.
#[test]
fn workers_started_ahead_say_hello_off_the_slots_cpus_and_run_their_attempt_on_them() {
    if !two_cpus("workers are started ahead only where a core can be kept off the slot") {
        return;
    }
    let plan = SlotPlan::probe_with_ahead(1).unwrap();
    let (executor, slot) = (plan.executor().unwrap().to_string(), plan.slots()[0].to_string());
    let bench = Bench::new(r#""--fault", "affinity@hello", "--fault", "affinity@execute""#);
    run_ahead(&bench, "main", "ahead");
    let folder = bench.folder("ahead");
    let mut ahead = 0;
    for (id, record) in records(&folder) {
        assert_eq!(record["outcome"], "reached", "{id}: {}", record["failure"]);
        let implementation = &record["implementation"];
        assert_eq!(cpus(&implementation["cpus"]["list"]), slot, "{id}: the attempt ran on its slot");
        assert_eq!(phases(&record, "implementation"), ["hello", "prepare", "execute", "shutdown"], "{id}");
        assert_eq!(phases(&record, "problem_evaluator"), ["hello", "evaluate", "shutdown"], "{id}");
        let log = fs::read_to_string(folder.join("attempts").join(&id).join("logs/implementation.log")).unwrap();
        let said = |prefix: &str| -> Vec<&str> { log.lines().filter_map(|line| line.strip_prefix(prefix)).collect() };
        assert_eq!(said("test-worker: cpus execute "), [slot.as_str()], "{id}: {log}");
        let thread = said("test-worker: thread cpus ");
        assert_eq!(thread.last(), Some(&slot.as_str()), "{id}: the helper thread was moved too: {log}");
        let session = &implementation["session"];
        if session.get("started_on").is_none() {
            // The first attempt of each dataset: its materialization ran before it, not an attempt to start its
            // workers during.
            assert_eq!(said("test-worker: cpus hello "), [slot.as_str()], "{id}: {log}");
            continue;
        }
        ahead += 1;
        assert_eq!(session["mode"], "fresh", "{id}");
        assert_eq!(cpus(&session["started_on"]), executor, "{id}: started on the executor's CPUs");
        assert_eq!(cpus(&record["evaluator"]["session"]["started_on"]), executor, "{id}: its evaluator too");
        assert_ne!(executor, slot);
        assert_eq!(said("test-worker: cpus hello "), [executor.as_str()], "{id}: it said hello there: {log}");
        assert_eq!(thread.first(), Some(&executor.as_str()), "{id}: {log}");
    }
    assert_eq!(ahead, 2, "the second attempt of each of the two datasets was served by workers started ahead");
    let left = fs::read_dir(bench.state().join("sessions")).map_or(0, Iterator::count);
    assert_eq!(left, 0, "no session folder is left");
}

/// Workers started ahead judge as workers started by their attempts do: the same ids, outcomes and verdicts, on a
/// campaign where some attempts fail.
#[test]
fn workers_started_ahead_give_the_outcomes_of_workers_started_by_their_attempts() {
    if !two_cpus("workers are started ahead only where a core can be kept off the slot") {
        return;
    }
    let bench = Bench::new("");
    bench.run("mixed", "fresh", 1, false);
    run_ahead(&bench, "mixed", "ahead");
    let (fresh, ahead) = (judged(&bench, "fresh"), judged(&bench, "ahead"));
    assert_eq!(fresh.len(), 4);
    assert_eq!(fresh, ahead);
    let started_ahead = records(&bench.folder("ahead"))
        .values()
        .filter(|record| record["implementation"]["session"].get("started_on").is_some())
        .count();
    assert!(started_ahead > 0, "some attempt was served by a worker started ahead");
}

/// A solver whose hello fails fails it when started ahead too, but that failure is not the running attempt's: the
/// attempt it was started for starts its own solver, whose failed hello is the attempt's (one hello in its phases),
/// as without starting ahead, and its log begins by saying the try ahead failed, and why.
#[test]
fn a_hello_that_fails_ahead_is_only_its_own_attempts_failure() {
    if !two_cpus("workers are started ahead only where a core can be kept off the slot") {
        return;
    }
    let bench = Bench::new(r#""--fault", "fail@hello""#);
    bench.run("main", "fresh", 1, false);
    run_ahead(&bench, "main", "ahead");
    let (fresh, ahead) = (judged(&bench, "fresh"), judged(&bench, "ahead"));
    assert_eq!(fresh, ahead);
    let folder = bench.folder("ahead");
    let mut said = 0;
    for (id, record) in records(&folder) {
        assert_eq!(record["failure"]["role"], "implementation", "{id}");
        assert_eq!(record["failure"]["phase"], "hello", "{id}");
        assert_eq!(phases(&record, "implementation"), ["hello"], "{id}: its own hello alone");
        assert_eq!(phases(&record, "problem_evaluator"), Vec::<&str>::new(), "{id}: no evaluator of another's");
        let log = fs::read_to_string(folder.join("attempts").join(&id).join("logs/implementation.log")).unwrap();
        let first = log.lines().next().unwrap_or_default();
        if first.starts_with("[metewand: the implementation worker started ahead for this attempt failed (") {
            said += 1;
            assert!(first.contains("hello"), "{id}: the note says what failed: {first}");
            let own = log.lines().skip(1).any(|line| line == "test-worker: failing hello");
            assert!(own, "{id}: its own session logged after the note: {log}");
        }
    }
    assert_eq!(said, 2, "the second attempt of each dataset was tried ahead, and says so");
    let left = fs::read_dir(bench.state().join("sessions")).map_or(0, Iterator::count);
    assert_eq!(left, 0, "the evaluators started ahead for attempts that never needed them are gone");
}

/// The next attempt's workers start only once the running attempt's implementation is no longer timed: no start-up
/// runs beside a timed request, not even on the executor's CPUs, where the threads timing it are. Each hello of a
/// worker started ahead begins after the execute of the attempt before it ended (each execute made 100 ms long).
#[test]
fn workers_started_ahead_start_after_the_running_attempts_timed_requests() {
    if !two_cpus("workers are started ahead only where a core can be kept off the slot") {
        return;
    }
    let bench = Bench::new(r#""--delay", "execute=100""#);
    run_ahead(&bench, "main", "ahead");
    let at = |phase: &Value| {
        let started = metewand_runtime::attempt::parse_rfc3339(phase["started_at"].as_str().unwrap()).unwrap();
        started.duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos()
    };
    let phase = |record: &Value, role: &str, name: &str| -> Value {
        let phases = record["phases"].as_array().unwrap();
        phases.iter().find(|phase| phase["role"] == role && phase["phase"] == name).unwrap().clone()
    };
    let mut attempts: Vec<Value> = records(&bench.folder("ahead")).into_values().collect();
    attempts.sort_by_key(|record| at(&phase(record, "implementation", "execute")));
    let mut ahead = 0;
    for pair in attempts.windows(2) {
        let (before, record) = (&pair[0], &pair[1]);
        if record["implementation"]["session"].get("started_on").is_none() {
            continue;
        }
        ahead += 1;
        let execute = phase(before, "implementation", "execute");
        let timed_until = at(&execute) + u128::from(execute["duration_ns"].as_u64().unwrap());
        for role in ["implementation", "problem_evaluator"] {
            let hello = at(&phase(record, role, "hello"));
            assert!(
                hello >= timed_until,
                "a {role} said hello {} ns before the last execute ended",
                timed_until - hello
            );
        }
    }
    assert_eq!(ahead, 2);
}

/// Where workers started ahead are the default, on machines of 8 and 16 cores (and 2 CPUs of each core): only where
/// the executor keeps as many CPUs as the slots would start their workers on, which one slot never does.
#[test]
fn workers_are_started_ahead_by_default_where_the_executor_keeps_a_cpu_for_each_start() {
    let by_default = |cores: u32, threads: u32, jobs: usize| {
        let cpus = CpuSet::new(0..cores * threads).unwrap();
        let topology = if threads == 1 {
            Topology::flat(&cpus)
        } else {
            let root = tempfile::tempdir().unwrap();
            for cpu in 0..cores * threads {
                let folder = root.path().join(format!("cpu{cpu}/topology"));
                fs::create_dir_all(&folder).unwrap();
                fs::write(folder.join("physical_package_id"), "0\n").unwrap();
                fs::write(folder.join("core_id"), format!("{}\n", cpu % cores)).unwrap();
            }
            Topology::read(root.path(), &cpus)
        };
        ahead_pays(&SlotPlan::new(jobs, &cpus, &topology))
    };
    let chosen = |cores: u32, threads: u32| -> Vec<usize> {
        (1..=cores as usize + 1).filter(|&jobs| by_default(cores, threads, jobs)).collect()
    };
    // 8 cores at -j 4: four slots of one core, the executor four: each slot's two starts take turns on one CPU
    // either way, and ahead they overlap the running attempt's judging.
    assert_eq!(chosen(8, 1), [4]);
    assert_eq!(chosen(16, 1), [8]);
    // With SMT CPUs are counted, as the executor counts them to start two workers at once: a slot of one core has
    // two to start its workers on side by side, and needs two of the executor's; at -j 2 the executor's two cores
    // have the four CPUs the two slots' starts take.
    assert_eq!(chosen(8, 2), [2, 4]);
    assert_eq!(chosen(2, 1), Vec::<usize>::new());
}

/// What the run asks for stands for fresh sessions on CPUs the slots divide; reused sessions and slots sharing every
/// CPU never start workers ahead, asked or not; and one slot never does by default, since starting ahead would take a
/// core from it.
#[test]
fn workers_are_started_ahead_as_asked_and_by_default_only_where_it_pays() {
    use metewand_protocol::generated::attempt_record::SessionMode::{Fresh, Reuse};
    assert!(starts_ahead(Some(true), 1, Fresh, 0, false));
    assert!(!starts_ahead(Some(false), 4, Fresh, 0, false));
    for asked in [None, Some(true), Some(false)] {
        assert!(!starts_ahead(asked, 2, Reuse, 0, false), "{asked:?}");
        assert!(!starts_ahead(asked, 2, Fresh, 0, true), "{asked:?}");
    }
    assert!(!starts_ahead(None, 1, Fresh, 0, false), "one slot");
    assert!(!starts_ahead(None, 2, Fresh, 3, false), "a warm-up");
    // By default, as the model says for this machine's CPUs.
    let pays = SlotPlan::probe(4).is_ok_and(|plan| ahead_pays(&plan));
    assert_eq!(starts_ahead(None, 4, Fresh, 0, false), pays);
}
