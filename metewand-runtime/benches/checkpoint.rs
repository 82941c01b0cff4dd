//! The cost of a checkpoint of a streamed execution (`execute_stream`): the checkpoint message, every process of the
//! worker stopped, the checkpoint sealed (validated as a result of its own), the answer written and the worker
//! resumed, measured per checkpoint against the test worker, whose checkpoints are a small manifest and no file.
//!
//! In the same run, `exchange_reset` is one plain request and response (the floor of any message the worker waits
//! for), `checkpoint_noop_seal` a checkpoint whose seal does nothing (the message, the stop, the answer and the
//! resume), and `checkpoint_validated_seal` a checkpoint sealed as an attempt seals it. After the group the bench
//! prints, from the session's own accounting, how long the worker was held stopped per checkpoint. The target is an
//! overhead of at most 1 ms per checkpoint.

#![allow(clippy::disallowed_methods, reason = "benchmarks make and read their own files in temporary folders")]

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use metewand_runtime::CheckedRepository;
use metewand_runtime::protocol::Phase;
use metewand_runtime::protocol::common::{Capability, WorkerId};
use metewand_runtime::protocol::strict::SafeUint;
use metewand_runtime::session::{
    ExecuteStreamParams, ImplementationSession, PhaseTimeouts, Sealed, SessionConfig, WorkerCommand,
};
use metewand_runtime::validate::{RESULT_MANIFEST, ResultLayout, WorkerOutputValidator};
use tempfile::TempDir;

/// Checkpoints per stream: each criterion iteration is one checkpoint, served by streams of at most this many.
const PER_STREAM: u64 = 500;

fn config(dir: &Path) -> SessionConfig {
    let command = WorkerCommand::new(metewand_testkit::test_worker(), dir).args([
        "serve",
        "--quiet",
        "--capabilities",
        "one_shot,streaming_profile",
    ]);
    let worker_id = WorkerId::try_from(format!("mw1-resolved-worker-{}", "0".repeat(64))).expect("a worker id");
    let timeouts = PhaseTimeouts::uniform(Duration::from_secs(60));
    SessionConfig::new(command, worker_id, timeouts, dir.join("worker.log")).select(Capability::StreamingProfile)
}

/// A repository whose problem takes any object as a result: what the validated seal checks against.
fn repository(dir: &Path) -> CheckedRepository {
    let repo = dir.join("repo");
    fs::create_dir_all(repo.join("judge")).expect("a folder");
    let toml = "format = 1\n[workers.judge]\nrole = \"problem_evaluator\"\ncommand = [\"true\"]\nsource = \"judge\"\n\
                [problems.p]\nevaluator = \"judge\"\nresult_schema = { type = \"object\" }\n\
                metric_schema = { type = \"object\" }\n";
    fs::write(repo.join("metewand.toml"), toml).expect("the manifest");
    CheckedRepository::load(&repo).expect("a valid repository")
}

/// Serves `checkpoints` checkpoints in streams of at most [`PER_STREAM`], each in a fresh result folder; returns
/// the wall time of the streams and the time the session held the worker stopped.
fn stream(
    session: &mut ImplementationSession,
    dir: &TempDir,
    checkpoints: u64,
    validated: Option<&(WorkerOutputValidator<'_>, &metewand_runtime::repository::Problem)>,
) -> (Duration, Duration) {
    let (mut wall, mut held) = (Duration::ZERO, Duration::ZERO);
    let mut left = checkpoints;
    let mut round = 0;
    while left > 0 {
        let count = left.min(PER_STREAM);
        left -= count;
        round += 1;
        let result = dir.path().join(format!("result-{round}"));
        fs::create_dir(&result).expect("a result folder");
        let params = ExecuteStreamParams {
            result_dir: result.to_str().expect("UTF-8").try_into().expect("a path"),
            max_checkpoints: SafeUint::try_from(count).expect("small"),
        };
        let started = Instant::now();
        let streamed = session
            .execute_stream(params, |checkpoint| {
                let value = validated.map(|(validator, problem)| {
                    let layout = ResultLayout::Checkpoint(checkpoint.number);
                    validator.validate_result_in(problem, &result, layout, RESULT_MANIFEST).expect("a valid checkpoint")
                });
                Sealed { value, go_on: true }
            })
            .expect("the stream ends");
        let elapsed = started.elapsed();
        assert_eq!(streamed.checkpoints.len() as u64, count);
        let timed = session.phases().iter().rev().find(|timing| timing.phase == Phase::Execute).expect("timed");
        wall += elapsed;
        held += elapsed.saturating_sub(timed.duration);
        fs::remove_dir_all(&result).expect("the folder goes");
    }
    (wall, held)
}

fn checkpoint(c: &mut Criterion) {
    let mut group = c.benchmark_group("checkpoint");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let repository = repository(dir.path());
    let problem = repository.problem("p").expect("the problem");
    let validated = (WorkerOutputValidator::new(&repository), problem);
    let mut session = ImplementationSession::connect(config(dir.path())).expect("the test worker connects");
    group.bench_function("exchange_reset", |b| b.iter(|| session.reset().expect("reset is acknowledged")));
    let mut accounts = Vec::new();
    for (name, seal) in [("checkpoint_noop_seal", None), ("checkpoint_validated_seal", Some(&validated))] {
        let (mut checkpoints, mut held) = (0_u64, Duration::ZERO);
        group.bench_function(name, |b| {
            b.iter_custom(|iterations| {
                let (wall, stopped) = stream(&mut session, &dir, iterations, seal);
                checkpoints += iterations;
                held += stopped;
                wall
            })
        });
        accounts.push((name, held.as_secs_f64() * 1e6 / checkpoints.max(1) as f64));
    }
    group.finish();
    session.shutdown().expect("the test worker shuts down");
    for (name, held) in accounts {
        eprintln!(
            "checkpoint: {name}: the worker was held stopped {held:.1} µs per checkpoint (the session's account)"
        );
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4));
    targets = checkpoint
}
criterion_main!(benches);
