//! The report's and the comparison's own computation (tables, bootstraps, Mann–Whitney tests, rankings, profiles,
//! plots and HTML) on records held in memory, so that the figure does not depend on the disk: 100,000 attempts (5
//! implementations × 4 datasets × 50 dataset seeds × 100 repetitions), beside 10,000 in the same run.
//! `benches/report.py` measures the commands end to end, reading included.
//!
//! `cargo bench -p metewand-report --bench compute`

#![allow(clippy::disallowed_methods, reason = "benchmarks make and read their own files in temporary folders")]

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, UNIX_EPOCH};

use criterion::{Criterion, criterion_group, criterion_main};
use metewand_protocol::common::Verdict;
use metewand_protocol::generated::attempt_record::{Outcome, ProblemTimed};
use metewand_report::load::{Attempt, AttemptId, Folder, Identities, Recorded};
use metewand_report::ranks::Ranking;
use metewand_report::stats::SplitMix64;
use metewand_report::{Comparison, Format, Measure, Records, Report, render};

/// `seeds` dataset seeds of the 5 × 4 × 100 plan, execute times log-uniform around each cell's median, `slower`
/// times slower for implementation 2.
fn records(seeds: u64, slower: f64, seed: u64) -> Records {
    let mut rng = SplitMix64::new(seed);
    let mut attempts = Vec::new();
    for dataset in 0..4u32 {
        for dataset_seed in 0..seeds {
            for implementation in 0..5u32 {
                for repetition in 1..=100 {
                    let draw = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                    let factor = if implementation == 2 { slower } else { 1.0 };
                    let seconds =
                        1e-3 * f64::from(1 + implementation) * f64::from(1 + dataset) * factor * (0.8 + 0.4 * draw);
                    let outcome = if draw < 0.03 { Outcome::NotReached } else { Outcome::Reached };
                    attempts.push(Attempt {
                        folder: 0,
                        id: AttemptId::from(format!("mw1-attempt-{:064x}", attempts.len()).as_str()),
                        problem: 0,
                        dataset,
                        dataset_seed,
                        implementation,
                        implementation_seed: 0,
                        repetition,
                        record: Some(Recorded {
                            outcome,
                            verdict: Some(if draw < 0.03 { Verdict::NotReached } else { Verdict::Reached }),
                            failure: None,
                            timed: ProblemTimed::Execute,
                            timed_seconds: Some(seconds),
                            phase_seconds: [Some(0.08), Some(0.001), Some(seconds)],
                            cpu_seconds: Some(seconds + 0.08),
                            peak_memory_bytes: Some(30 << 20),
                            concurrency: Some(1),
                            reused: false,
                            cpus: None,
                            worker_id: format!("mw1-resolved-worker-{implementation:064x}").into(),
                            program: None,
                            metrics: Box::new([(0, draw)]),
                            profile: Box::default(),
                            reached_seconds: (outcome == Outcome::Reached).then_some(seconds),
                            started_at: Some(UNIX_EPOCH + Duration::from_secs(1_767_225_600 + repetition % 60)),
                        }),
                    });
                }
            }
        }
    }
    let names = |prefix: &str, count: usize| (0..count).map(|i| format!("{prefix}{i}")).collect::<Vec<_>>();
    Records {
        folders: vec![Folder {
            path: PathBuf::from("campaign"),
            name: "main".to_owned(),
            repository: "/bench/repo".to_owned(),
            planned: attempts.len(),
            never_started: 0,
            unfinished: 0,
            runs: Vec::new(),
        }],
        problems: names("problem", 1),
        datasets: names("dataset", 4),
        implementations: names("implementation", 5),
        metrics: vec!["error".to_owned()],
        attempts,
        identities: Identities::default(),
        tolerances: vec![None],
        measure: Measure::Wall,
    }
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("in memory");
    group.sample_size(10);
    for (name, seeds) in [("10k", 5), ("100k", 50)] {
        let a = records(seeds, 1.0, 1);
        let b = records(seeds, 1.5, 2);
        group.bench_function(format!("report html {name}"), |bench| {
            bench.iter(|| render(&Report::new(black_box(&a), None), Format::Html))
        });
        group.bench_function(format!("compare {name}"), |bench| {
            bench.iter(|| Comparison::of(black_box(&a), black_box(&b), 1.1).markdown())
        });
        // The ranking alone: its bootstrap resamples every cell of every drawn instance.
        let names: Vec<String> = a.implementations.clone();
        let mut cells = vec![vec![Vec::new(); 4 * seeds as usize]; names.len()];
        for attempt in &a.attempts {
            let instance = attempt.dataset as usize * seeds as usize + attempt.dataset_seed as usize;
            let times = &mut cells[attempt.implementation as usize][instance];
            times.extend(attempt.record.as_ref().and_then(|record| record.timed_seconds));
        }
        for cell in cells.iter_mut().flatten() {
            cell.sort_by(f64::total_cmp);
        }
        group.bench_function(format!("ranking {name}"), |bench| {
            bench.iter(|| Ranking::new(black_box(&names), black_box(&cells), 1))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
