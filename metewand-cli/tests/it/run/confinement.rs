//! Confinement as recorded and as played: each session's record, the routes with and without privileges, and the
//! attacks a confined worker's kernel refuses.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use metewand_testkit::{ConfinementRequired, Requirement, has_cap_sys_admin, skip, udp_echo};
use serde_json::{Value, json};

use super::{
    Bench, assert_worker_dies, entry_of, evaluator_never_evaluated, failed, hanging_sdk_worker, hanging_worker, log,
    process_state, record, run_args, signal, tree, wait_for,
};
use crate::{command, run as metewand, text};

/// What `metewand doctor`, run by `command`, says this machine offers, by key (`landlock abi`, `pid namespace`,
/// `user namespace`, `processes`, `confinement`).
fn doctor_of(mut command: Command) -> std::collections::BTreeMap<String, String> {
    let output = command.output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let keys = ["landlock abi", "pid namespace", "user namespace", "processes", "confinement"];
    text(&output.stdout)
        .lines()
        .filter_map(|line| {
            let key = keys.iter().find(|key| line.starts_with(&format!("{key} ")))?;
            Some(((*key).to_owned(), line[key.len() + 1..].to_owned()))
        })
        .collect()
}

/// `metewand` with `args`, as a process without `CAP_SYS_ADMIN` in which a worker's PID namespace can only come
/// from a user namespace of its own: as this test runs when it is already such a process (an ordinary user);
/// otherwise as the unprivileged user 65534 (`setpriv`), who is given the bench's folder first, with a copy of the
/// binary in it (a bench made by [`Bench::with_sdk_copy`] has the SDK in it too).
fn unprivileged(bench: &Bench, args: &[String]) -> Command {
    if !has_cap_sys_admin() {
        return command(args);
    }
    // The checkout may lie in a folder that user cannot pass through (a private clone): the binary goes into the
    // bench, which is given to that user.
    let binary = bench.dir.path().join("metewand");
    if !binary.exists() {
        fs::copy(env!("CARGO_BIN_EXE_metewand"), &binary).unwrap();
    }
    let status = Command::new("chown").args(["-R", "65534:65534"]).arg(bench.dir.path()).status().unwrap();
    assert!(status.success(), "chown failed");
    let mut setpriv = Command::new("setpriv");
    setpriv.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"]).arg(&binary).args(args);
    setpriv.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    setpriv
}

/// The confinement every session of the attempt in `folder` recorded, materializer, implementation, evaluator.
fn confinements(folder: &Path) -> Vec<Value> {
    let record = record(folder);
    [&record["dataset"]["materializer"], &record["implementation"], &record["evaluator"]]
        .into_iter()
        .map(|session| session["confinement"].clone())
        .collect()
}

/// Checks one session's recorded confinement against what this machine must give (`METEWAND_CONFINEMENT_REQUIRED`)
/// and whether `metewand` ran with `CAP_SYS_ADMIN` (`privileged`), never against `metewand doctor`; returns whether
/// it is full confinement (nothing recorded as a fallback).
fn check_recorded(confinement: &Value, privileged: bool) -> bool {
    let required = ConfinementRequired::from_env();
    let abi = confinement["landlock_abi"].as_u64();
    match confinement["filesystem"].as_str() {
        Some("landlock") => assert!(abi.is_some_and(|abi| abi >= 1), "{confinement}"),
        Some("none") => assert_eq!(abi, None, "{confinement}"),
        _ => panic!("{confinement}"),
    }
    if required.landlock_abi >= 1 {
        assert!(abi.is_some_and(|abi| abi >= u64::from(required.landlock_abi)), "{confinement}");
    }
    if required.landlock_abi >= 6 {
        assert_eq!(confinement["signals"], "scoped", "{confinement}");
    }
    // A PID namespace comes inside a user namespace exactly when metewand could not make it itself.
    let namespaced = (Value::from("pid-namespace"), Value::Bool(!privileged));
    let route = (confinement["processes"].clone(), confinement["user_namespace"].clone());
    if required.pid_namespace {
        assert_eq!(route, namespaced, "{confinement}");
    } else {
        assert!(route == namespaced || route == ("sweep".into(), false.into()), "{confinement}");
    }
    // The network and IPC namespaces come with the PID namespace (the example's workers use no network).
    if route == namespaced {
        let namespaces = (&confinement["network"], &confinement["ipc"], &confinement["mounts"]);
        assert_eq!(namespaces, (&"namespace".into(), &"namespace".into(), &"private".into()), "{confinement}");
    } else {
        assert_eq!((&confinement["ipc"], &confinement["mounts"]), (&"host".into(), &"host".into()), "{confinement}");
        let network = if abi.is_some_and(|abi| abi >= 4) { "denied" } else { "unrestricted" };
        assert_eq!(confinement["network"], network, "{confinement}");
    }
    assert_eq!(confinement["capabilities"], "none", "{confinement}");
    if required.seccomp {
        assert_eq!((&confinement["syscall_filter"], &confinement["syscalls"]), (&"default".into(), &json!([])));
    }
    // Run by root, a worker is never root: it runs as the identity metewand gives it (the default, here); run
    // without privileges, as the user metewand ran as (uid 65534 where this test, as root, started it so).
    let own = fs::metadata("/proc/self").unwrap();
    let (uid, gid) = (std::os::unix::fs::MetadataExt::uid(&own), std::os::unix::fs::MetadataExt::gid(&own));
    let user = match (privileged, has_cap_sys_admin()) {
        (true, _) => json!({"uid": 65530, "gid": 65530}),
        (false, true) => json!({"uid": 65534, "gid": 65534}),
        (false, false) => json!({"uid": uid, "gid": gid}),
    };
    assert_eq!(confinement["user"], user, "{confinement}");
    // The example sets no [limits]: the defaults, each with how it was kept.
    let limits = &confinement["limits"];
    assert_eq!(limits["memory_bytes"], json!({"value": null, "mechanism": "none"}), "{confinement}");
    assert_eq!(limits["output_bytes"], json!({"value": 68719476736u64, "mechanism": "watched"}), "{confinement}");
    assert_eq!(limits["processes"]["value"], 4096, "{confinement}");
    if required.pid_max && route == namespaced {
        assert_eq!(limits["processes"]["mechanism"], "pid_max", "{confinement}");
    }
    confinement["filesystem"] == "landlock"
        && limits["processes"]["mechanism"] != "none"
        && confinement["network"] == "namespace"
        && confinement["mounts"] == "private"
        && confinement["processes"] == "pid-namespace"
        && confinement["signals"] == "scoped"
}

#[test]
fn every_session_records_its_confinement_and_resources() {
    let bench = Bench::new();
    let output = bench.run("cholesky", "attempt");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let record = record(&bench.out("attempt"));
    assert_eq!(record["problem"]["timed"], "execute", "the example's problem ranks by execute, the default");
    let mut full = true;
    for session in [&record["dataset"]["materializer"], &record["implementation"], &record["evaluator"]] {
        full &= check_recorded(&session["confinement"], has_cap_sys_admin());
        let resources = &session["resources"];
        assert!(resources["peak_rss_bytes"].as_u64().unwrap() > 0, "{resources}");
        assert!(resources["user_cpu_ns"].is_u64() && resources["system_cpu_ns"].is_u64(), "{resources}");
    }
    // The warning says what the records show, and `doctor` what the sessions got.
    assert_eq!(text(&output.stderr).contains("weaker than full confinement"), !full, "{}", text(&output.stderr));
    let said = text(&metewand(&["doctor".to_owned()]).stdout);
    assert_eq!(said.contains("confinement full"), full, "{said}");
    if !full {
        skip(Requirement::Landlock(6), "the attempt ran with weaker than full confinement, as its record says");
    }
}

#[test]
fn forcing_the_sweep_warns_and_require_confinement_then_refuses_before_anything_starts() {
    // The bench's own SDK: on the sweep, root's workers have no view to show them a checkout in a private folder.
    let bench = Bench::with_sdk_copy();
    let mut args = bench.args("cholesky", "swept");
    args.push("--sweep-processes".to_owned());
    let output = metewand(&args);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let warnings: Vec<String> =
        text(&output.stderr).lines().filter(|line| line.contains("weaker than full")).map(str::to_owned).collect();
    assert_eq!(warnings.len(), 1, "one warning line: {}", text(&output.stderr));
    assert!(warnings[0].contains("no PID namespace"), "{warnings:?}");
    assert_eq!(record(&bench.out("swept"))["implementation"]["confinement"]["processes"], "sweep");

    let mut args = bench.args("cholesky", "refused");
    args.extend(["--sweep-processes".to_owned(), "--require-confinement".to_owned()]);
    let output = metewand(&args);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("--require-confinement") && stderr.contains("no PID namespace"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one sentence: {stderr}");
    assert!(!bench.out("refused").exists(), "no attempt folder was created");
}

/// Run by root, a worker runs as an identity of its own; where it gets no private view (the sweep), nothing shows
/// it the way past a folder closed to it. A state folder inside root's private folder (a repository in `/root`, as
/// in a container without user namespaces) is refused before anything starts, in one sentence naming the folder,
/// rather than every worker failing on a permission it was never going to have; a reachable one runs.
#[test]
fn a_folder_root_s_worker_cannot_reach_without_a_private_view_is_refused_before_anything_starts() {
    if !has_cap_sys_admin() {
        skip(Requirement::Root, "workers keep this user's identity: every folder of the run is theirs to reach");
        return;
    }
    let bench = Bench::with_sdk_copy();
    let private = bench.out("private");
    fs::create_dir(&private).unwrap();
    fs::set_permissions(&private, std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    let mut args = run_args(&bench.repo(), "cholesky", &private.join("state"));
    args.extend(["--out".to_owned(), bench.out("refused").display().to_string(), "--sweep-processes".to_owned()]);
    let output = metewand(&args);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    let stderr = text(&output.stderr);
    let sentence = stderr.lines().find(|line| !line.contains("warning:")).expect("the refusal");
    let expected = format!(
        "metewand: run: --state-dir {} is out of reach of worker \"generate\", which runs as uid 65530 here with no \
         private view: it cannot pass {} (owner uid 0, mode 0700)",
        private.join("state").display(),
        private.canonicalize().unwrap().display()
    );
    assert!(sentence.starts_with(&expected), "{sentence}");
    assert_eq!(stderr.lines().filter(|line| !line.contains("warning:")).count(), 1, "one sentence: {stderr}");
    assert!(!bench.out("refused").exists() && !private.join("state").exists(), "nothing was created");

    // The same run with its folders where that uid can pass starts, and its workers ran as that uid.
    let args = bench.args_with("cholesky", "reached", &["--sweep-processes"]);
    let output = metewand(&args);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    for confinement in confinements(&bench.out("reached")) {
        assert_eq!(confinement["user"]["uid"], 65530, "{confinement}");
    }
}

/// Adds the implementation `writer`, which tries to write each of `targets` (and its dataset entry) during
/// `prepare`, appending to a file or creating `planted` in a folder, and leaves what it wrote; returns the targets
/// as it names them.
fn writer(bench: &Bench, targets: &[PathBuf]) -> Vec<String> {
    let list: Vec<String> = targets.iter().map(|path| path.display().to_string()).collect();
    bench.misbehaving_implementation("writer", &format!("write-all:{}", list.join(",")));
    list
}

/// Asserts what the writer of the attempt `attempt` reported for each of `targets` and its dataset entry: refused
/// under the Landlock its record shows (EACCES; in its private view a hidden target is absent, ENOENT, and the
/// empty folder hiding it is read-only, EROFS); without Landlock (the fallback, allowed only where Landlock is not
/// required) each write went through, as documented. Returns whether the writes were refused.
fn assert_writes_refused(bench: &Bench, targets: &[String]) -> bool {
    let attempt = bench.out("attempt");
    let log = log(&attempt, "implementation");
    let entry = entry_of(bench, "attempt");
    let confinement = record(&attempt)["implementation"]["confinement"].clone();
    let landlock = confinement["filesystem"] == "landlock";
    assert!(landlock || ConfinementRequired::from_env().landlock_abi == 0, "Landlock is required here");
    let refusals: &[&str] =
        if confinement["mounts"] == "private" { &["errno 13", "errno 2", "errno 30"] } else { &["errno 13"] };
    for target in targets.iter().chain([&entry.display().to_string()]) {
        let line = format!("write {target}: ");
        let outcome = log.lines().find_map(|text| text.strip_prefix(&line)).unwrap_or_else(|| panic!("{log}"));
        if landlock {
            assert!(refusals.contains(&outcome), "{target}: {log}");
        } else {
            assert_eq!(outcome, "ok", "{target}: {log}");
        }
    }
    if !landlock {
        skip(Requirement::Landlock(1), "the writer ran without Landlock: its writes went through");
    }
    landlock
}

#[test]
fn a_worker_cannot_write_the_repository_the_sdk_the_store_other_attempts_its_attempt_the_logs_or_tmp() {
    let bench = Bench::with_sdk_copy();
    let first = bench.run("cholesky", "first");
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let attempt = bench.out("attempt");
    let planted_in_tmp = std::env::temp_dir().join("planted");
    assert!(!planted_in_tmp.exists(), "{} is left from elsewhere", planted_in_tmp.display());
    let targets = [
        bench.repo().join("metewand.toml"),
        bench.repo().join("workers"),
        bench.sdk().join("metewand/worker.py"),
        bench.sdk().join("metewand"),
        bench.out("first"),
        bench.out("first/attempt.json"),
        attempt.clone(),
        attempt.join("logs"),
        attempt.join("logs/implementation.log"),
        std::env::temp_dir(),
        // Its working directory: the store's copy of its source, which every session of that source shares.
        PathBuf::from("."),
        bench.state().join("sources"),
    ];
    let list = writer(&bench, &targets);
    let before = [tree(&bench.repo()), tree(&bench.sdk()), tree(&bench.out("first"))];
    let output = bench.run("writer", "attempt");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let after = [tree(&bench.repo()), tree(&bench.sdk()), tree(&bench.out("first"))];
    if assert_writes_refused(&bench, &list) {
        assert_eq!(after, before, "the repository, the SDK and the other attempt are unchanged");
        assert!(!planted_in_tmp.exists());
    } else {
        assert_ne!(after, before);
        fs::remove_file(&planted_in_tmp).unwrap();
    }
}

#[test]
fn without_privileges_each_worker_runs_in_a_pid_namespace_in_a_user_namespace_and_cannot_write_outside_its_folders() {
    let bench = Bench::with_sdk_copy();
    let attempt = bench.out("attempt");
    let targets = [
        bench.repo().join("metewand.toml"),
        bench.repo().join("workers"),
        attempt.clone(),
        attempt.join("logs"),
        attempt.join("logs/implementation.log"),
        std::env::temp_dir(),
        PathBuf::from("."),
        bench.state().join("sources"),
    ];
    let list = writer(&bench, &targets);
    let before = tree(&bench.repo());
    let output = unprivileged(&bench, &bench.args("writer", "attempt")).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let confinements = confinements(&attempt);
    for confinement in &confinements {
        check_recorded(confinement, false);
    }
    let offers = doctor_of(unprivileged(&bench, &["doctor".to_owned()]));
    assert_eq!(offers["pid namespace"], "no", "{offers:?}");
    if confinements[0]["processes"] == "pid-namespace" {
        assert_eq!(offers["processes"], "pid-namespace in a user namespace", "doctor says what the sessions got");
    } else {
        // The kernel refused user namespaces to this user: the recorded, announced and doctor's fallback is the
        // sweep.
        assert_eq!(offers["processes"], "sweep");
        assert!(text(&output.stderr).contains("no PID namespace"), "{}", text(&output.stderr));
        skip(Requirement::UserNamespace, "the workers ran under the sweep, not in a user namespace");
    }
    if offers["confinement"] == "full" {
        assert!(!text(&output.stderr).contains("weaker than full"), "{}", text(&output.stderr));
    }
    if assert_writes_refused(&bench, &list) {
        assert_eq!(tree(&bench.repo()), before, "the repository is unchanged");
        assert!(!std::env::temp_dir().join("planted").exists());
    } else {
        let _ = fs::remove_file(std::env::temp_dir().join("planted"));
    }
}

/// A worker reads nothing of the state, the repository (an evaluator's private folder included), other attempts
/// (their results, records, logs and dataset entries), its own attempt's records or `/tmp`: in its private view they are absent (ENOENT), while its own
/// dataset reads as usual (it reaches its verdict). Without a namespace route (the fallback) the view is the
/// host's, and the reads go through, as documented.
#[test]
fn a_worker_reads_no_peers_result_no_record_no_repository_and_nothing_in_tmp() {
    let bench = Bench::new();
    // The peer runs on another dataset seed: its entry is another than the reader's own.
    bench.misbehaving_implementation("reader", "read-all:");
    let mut args = bench.args("cholesky", "first");
    args.extend(["--dataset-seed".to_owned(), "1".to_owned()]);
    let first = metewand(&args);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let elsewhere = tempfile::tempdir().unwrap();
    let socket = elsewhere.path().join("service.sock");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let peer_entry = entry_of(&bench, "first");
    // Data an evaluator would keep in a source folder of its own, as the example's README says.
    let private = bench.repo().join("judge-only/answers.json");
    fs::create_dir_all(private.parent().unwrap()).unwrap();
    fs::write(&private, "{}").unwrap();
    let hidden = [
        private,
        bench.out("first/work/result/solution.json"),
        bench.out("first/attempt.json"),
        bench.out("first/logs/implementation.log"),
        peer_entry.join("matrix.csv"),
        peer_entry.with_extension("published"),
        bench.repo().join("metewand.toml"),
        bench.out("reader/logs"),
        socket.clone(),
    ];
    let list: Vec<String> = hidden.iter().map(|path| path.display().to_string()).collect();
    bench.replace("read-all:", &format!("read-all:{}", list.join(",")));
    let output = bench.run("reader", "reader");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let record = record(&bench.out("reader"));
    assert_ne!(bench.state().join("datasets").join(record["dataset"]["key"].as_str().unwrap()), peer_entry);
    let log = log(&bench.out("reader"), "implementation");
    let read = |target: &String| {
        let line = format!("read {target}: ");
        log.lines().find_map(|text| text.strip_prefix(&line)).unwrap_or_else(|| panic!("{target}: {log}")).to_owned()
    };
    let confinement = &record["implementation"]["confinement"];
    if confinement["mounts"] == "private" {
        for target in &list {
            assert_eq!(read(target), "errno 2", "{target}: {log}");
        }
    } else {
        assert_eq!(confinement["processes"], "sweep", "{confinement}");
        for target in &list {
            assert_eq!(read(target), "ok", "{target}: {log}");
        }
        skip(Requirement::PidNamespace, "the reader had no private view: it read what the host shows");
    }
}

/// Descriptors `metewand` was started with (3 and 4 here, open for appending to a file outside every folder a
/// worker may write) do not reach its workers: writing to them fails with EBADF, and the file stays empty.
#[test]
fn descriptors_metewand_inherited_do_not_reach_its_workers() {
    let bench = Bench::new();
    let outside = bench.out("outside.txt");
    fs::write(&outside, "").unwrap();
    bench.misbehaving_implementation("fd3", "write-fd:3");
    bench.misbehaving_implementation("fd4", "write-fd:4");
    for (name, fd) in [("fd3", "3"), ("fd4", "4")] {
        let mut line = vec!["exec 3>>\"$0\" 4>>\"$0\"; exec \"$@\"".to_owned(), outside.display().to_string()];
        line.push(env!("CARGO_BIN_EXE_metewand").to_owned());
        line.extend(bench.args(name, name));
        let output = Command::new("sh").arg("-c").args(&line).stdin(Stdio::null()).output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        let log = log(&bench.out(name), "implementation");
        assert!(log.contains(&format!("write-fd {fd}: errno 9")), "{log}");
    }
    assert_eq!(fs::read_to_string(&outside).unwrap(), "", "nothing was written through an inherited descriptor");
}

/// A worker of `metewand` run by root holds no capability (every set of `/proc/self/status` empty), and its
/// datagram to an echo on this machine's loopback reaches nothing: the echo never hears it, and the worker's wait
/// for an answer times out. Without a network namespace (the fallback) the echo answers, as documented.
#[test]
fn a_worker_holds_no_capability_and_its_datagrams_reach_nobody() {
    let bench = Bench::new();
    let (port, listener) = udp_echo(Duration::from_secs(10));
    bench.misbehaving_implementation("prober", &format!("caps-udp:{port}"));
    let output = bench.run("prober", "attempt");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let log = log(&bench.out("attempt"), "implementation");
    for set in ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"] {
        assert!(log.contains(&format!("caps {set}=0000000000000000")), "{set}: {log}");
    }
    let confinement = &record(&bench.out("attempt"))["implementation"]["confinement"];
    assert_eq!(confinement["capabilities"], "none", "{confinement}");
    if confinement["network"] == "namespace" {
        assert!(log.contains(&format!("udp {port}: timed out")), "{log}");
        // Nothing arrives: the listener waits out its guard.
        assert_eq!(listener.join().unwrap(), None, "a datagram reached this machine's loopback");
    } else {
        assert!(log.contains(&format!("udp {port}: ok")), "{log}");
        assert_eq!(listener.join().unwrap().as_deref(), Some(b"ping".as_slice()));
        skip(Requirement::PidNamespace, "the worker had no network namespace: its datagram reached the host");
    }
}

/// `[limits]` bound a worker `metewand` runs, each recorded with how it was kept: an allocation past
/// `memory_bytes` raises `MemoryError` and a `fork` past `processes` fails with EAGAIN (the worker goes on and
/// reaches its verdict); a worker filling its `TMPDIR` past `output_bytes` is stopped long before it has written
/// what it meant to, the attempt fails `resource_limit` naming the limit, and its `TMPDIR` is gone.
#[test]
fn the_limits_bound_a_workers_memory_processes_and_output() {
    let bench = Bench::new();
    bench.misbehaving_implementation("greedy", "bounds:1073741824,600");
    bench.misbehaving_implementation("filler", "fill:1024");
    bench.append("\n[limits]\nmemory_bytes = 536870912\nprocesses = 400\noutput_bytes = 16777216\n");
    let output = bench.run("greedy", "greedy");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let record = record(&bench.out("greedy"));
    assert_eq!(record["outcome"], "reached", "{}", record["failure"]);
    let limits = &record["implementation"]["confinement"]["limits"];
    assert_eq!(limits["memory_bytes"], json!({"value": 536870912, "mechanism": "rlimit"}), "{limits}");
    assert_eq!(limits["output_bytes"], json!({"value": 16777216, "mechanism": "watched"}), "{limits}");
    assert_eq!(limits["processes"]["value"], 400, "{limits}");
    let log = log(&bench.out("greedy"), "implementation");
    assert!(log.contains("allocate: MemoryError"), "{log}");
    if limits["processes"]["mechanism"] == "none" {
        assert!(log.contains("spawn: ok after 600"), "{log}");
        skip(Requirement::PidMax, "no process limit could be kept for root: the worker started 600 processes");
    } else {
        assert_eq!(limits["processes"]["mechanism"], "pid_max", "{limits}");
        assert!(log.contains("spawn: errno 11 after "), "{log}");
    }

    let output = bench.run("filler", "filler");
    let record = failed(&output, &bench.out("filler"), "implementation", "prepare", "resource_limit");
    let message = record["failure"]["message"].as_str().unwrap();
    assert!(message.contains("`[limits] output_bytes`") && message.contains("limit of 16777216"), "{message}");
    let observed: u64 = message.split("output_bytes`: ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
    assert!(observed > 16 << 20 && observed < 512 << 20, "stopped long before 1 GiB: {message}");
    assert!(!bench.out("filler/work/tmp-implementation").exists(), "its TMPDIR is removed");
}

/// Work moved after the execute answer never counts: the result is sealed when the implementation answers, so a
/// worker that answers at once and writes its result during shutdown has no result at the seal
/// (`invalid_output` in `execute`), and one that answers with a wrong result and writes the right one during
/// shutdown breaks the seal (`invalid_output` in `shutdown`). Neither is judged, let alone `reached`.
#[test]
fn a_result_written_after_the_execute_answer_is_never_accepted() {
    let bench = Bench::new();
    bench.misbehaving_implementation("late", "after-answer");
    bench.misbehaving_implementation("rewriter", "rewrite");
    let output = bench.run("late", "late");
    let record = failed(&output, &bench.out("late"), "implementation", "execute", "invalid_output");
    assert_eq!(record["verdict"], Value::Null, "{}", record["failure"]);
    let output = bench.run("rewriter", "rewriter");
    let record = failed(&output, &bench.out("rewriter"), "implementation", "shutdown", "invalid_output");
    let message = record["failure"]["message"].as_str().unwrap();
    assert!(message.contains("the result changed after the implementation worker answered execute"), "{message}");
    assert_eq!(record["verdict"], Value::Null);
    evaluator_never_evaluated(&record);
}

/// Work before hello cannot use the inputs: an implementation that knows where its dataset will be (the store
/// entry an earlier attempt made) finds nothing there before its hello is answered, as root and without
/// privileges, then gets the same dataset in `prepare` and reaches its verdict. Without a private view (the
/// fallback) it reads it early, as documented.
#[test]
fn an_implementation_sees_its_dataset_only_after_its_hello_is_answered() {
    // The SDK is copied into the bench: uid 65534 may not reach the checkout's.
    let bench = Bench::with_sdk_copy();
    // Registered first: its file joins the workers' source folder, on which the dataset's key depends.
    bench.misbehaving_implementation("early", "early:");
    let first = bench.run("cholesky", "first");
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let manifest = entry_of(&bench, "first").join("dataset-manifest.json");
    bench.replace("early:", &format!("early:{}", manifest.display()));
    for (name, privileged) in [("root", true), ("user", false)] {
        let args = bench.args("early", name);
        let output = if privileged { metewand(&args) } else { unprivileged(&bench, &args).output().unwrap() };
        let record = record(&bench.out(name));
        assert_eq!(record["outcome"], "reached", "{name}: {}\n{}", record["failure"], text(&output.stdout));
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        assert_eq!(entry_of(&bench, name), entry_of(&bench, "first"), "the same dataset, from the store");
        let log = log(&bench.out(name), "implementation");
        let early = format!("early read {}: ", manifest.display());
        let got = log.lines().find_map(|line| line.strip_prefix(&early)).unwrap_or_else(|| panic!("{log}"));
        if record["implementation"]["confinement"]["mounts"] == "private" {
            assert_eq!(got, "errno 2", "{log}");
        } else {
            assert_eq!(got, "ok", "{log}");
            skip(Requirement::PidNamespace, "no private view: the implementation read its dataset before hello");
        }
        if !has_cap_sys_admin() {
            break;
        }
    }
}

/// The parent pid and start time of a process, from `/proc/<pid>/stat`.
fn parent_and_start(pid: &str) -> (String, String) {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let fields: Vec<&str> = stat.rsplit_once(')').unwrap().1.split_whitespace().collect();
    (fields[1].to_owned(), fields[19].to_owned())
}

#[test]
fn without_privileges_sigkill_during_execute_leaves_no_worker_and_no_supervisor() {
    let bench = Bench::with_sdk_copy();
    bench.worker_file("hang_cholesky.py", &hanging_sdk_worker("cholesky", "Cholesky", "execute", "pass"));
    bench.replace("[\"python3\", \"cholesky.py\"]", "[\"python3\", \"hang_cholesky.py\", \"hang\"]");
    let mut child = unprivileged(&bench, &bench.args("cholesky", "killed")).spawn().unwrap();
    let worker = hanging_worker(&child, &bench.out("killed/logs/implementation.log"), "hang_cholesky.py");
    let (parent, parent_start) = parent_and_start(&worker);
    let namespace = |pid: &str, kind: &str| fs::read_link(format!("/proc/{pid}/ns/{kind}")).unwrap();
    let me = std::process::id().to_string();
    // Which route the worker took, seen from outside: its own PID namespace, or this one.
    let supervised = namespace(&worker, "pid") != namespace(&me, "pid");
    if supervised {
        // The worker is pid 1 of its own PID namespace, in a user namespace of its own; its parent, the supervisor,
        // is metewand's child.
        assert_ne!(namespace(&worker, "user"), namespace(&me, "user"));
        assert_eq!(parent_and_start(&parent).0, child.id().to_string(), "the supervisor is metewand's child");
    } else {
        assert!(!ConfinementRequired::from_env().user_namespace, "the worker runs in no namespace of its own");
        assert_eq!(parent, child.id().to_string(), "without a namespace the worker is metewand's child");
    }
    signal(&child, "-KILL");
    child.wait().unwrap();
    assert_worker_dies(&worker);
    if bench.out("killed/attempt.json").exists() {
        record(&bench.out("killed"));
    }
    if !supervised {
        skip(Requirement::UserNamespace, "the worker ran under the sweep: there was no supervisor to outlive metewand");
        return;
    }
    wait_for("the supervisor to die with metewand", || {
        process_state(&parent).is_none_or(|(state, start)| start != parent_start || state == "Z")
    });
}

#[test]
fn without_cap_sys_admin_and_user_namespaces_the_sweep_is_recorded_announced_and_refused_when_required() {
    let bench = Bench::new();
    // Root without any capability: it may not make a PID namespace, nor map uid 0 in a user namespace (that needs
    // CAP_SETFCAP), so the kernel refuses both routes.
    let stripped = |args: &[String]| {
        let mut setpriv = Command::new("setpriv");
        setpriv.args(["--inh-caps=-all", "--bounding-set=-all", "--", env!("CARGO_BIN_EXE_metewand")]).args(args);
        setpriv.stdin(Stdio::null());
        setpriv
    };
    if !has_cap_sys_admin() {
        skip(
            Requirement::Root,
            "this test cannot drop privileges it does not have: the refused routes were not played",
        );
        return;
    }
    let offers = doctor_of(stripped(&["doctor".to_owned()]));
    assert_eq!((offers["pid namespace"].as_str(), offers["user namespace"].as_str()), ("no", "no"), "{offers:?}");
    assert_eq!(offers["processes"], "sweep");
    let output = stripped(&bench.args("cholesky", "swept")).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let warnings: Vec<&str> =
        std::str::from_utf8(&output.stderr).unwrap().lines().filter(|line| line.contains("weaker than full")).collect();
    assert_eq!(warnings.len(), 1, "{}", text(&output.stderr));
    assert!(warnings[0].contains("no PID namespace"), "{warnings:?}");
    for confinement in confinements(&bench.out("swept")) {
        assert_eq!((&confinement["processes"], &confinement["user_namespace"]), (&"sweep".into(), &false.into()));
    }
    let mut args = bench.args("cholesky", "refused");
    args.push("--require-confinement".to_owned());
    let output = stripped(&args).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    assert!(text(&output.stderr).contains("no PID namespace"), "{}", text(&output.stderr));
    assert!(!bench.out("refused").exists(), "no attempt folder was created");
}

/// A limit the repository sets that this machine cannot hold for a worker refuses to start, in one sentence naming
/// the limit, the worker and what to do (exit 2, nothing created); allowed, it runs, warns, and each session
/// records it as not enforced. Here: a process limit with workers swept.
#[test]
fn a_limit_this_machine_cannot_hold_refuses_to_start_unless_allowed() {
    let bench = Bench::with_sdk_copy();
    bench.append("\n[limits]\nprocesses = 500\n");
    let mut args = bench.args("cholesky", "refused");
    args.push("--sweep-processes".to_owned());
    let output = metewand(&args);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    let stderr = text(&output.stderr);
    let sentence = stderr.lines().find(|line| line.contains("[limits]")).expect("the refusal");
    assert!(
        sentence.starts_with("metewand: run: [limits] processes = 500 cannot be held here for worker"),
        "{sentence}"
    );
    assert!(sentence.contains("--allow-unenforced-limits"), "{sentence}");
    assert!(!bench.out("refused").exists(), "nothing was created");
    args = bench.args("cholesky", "allowed");
    args.extend(["--sweep-processes".to_owned(), "--allow-unenforced-limits".to_owned()]);
    let output = metewand(&args);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(text(&output.stderr).contains("warning: [limits] processes = 500 is not held for worker"));
    for confinement in confinements(&bench.out("allowed")) {
        assert_eq!(confinement["limits"]["processes"], json!({"value": 500, "mechanism": "none"}), "{confinement}");
    }
    // Where the workers get their PID namespace, the same limit is held: the run starts.
    let output = bench.run("cholesky", "held");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    for confinement in confinements(&bench.out("held")) {
        assert_ne!(confinement["limits"]["processes"]["mechanism"], "none", "{confinement}");
    }
}
