//! Hashing and validation throughput.
//!
//! - `sha256/16KiB` hashes 16 KiB buffers on one core, as `openssl speed -evp sha256 -bytes 16384` does; the
//!   bench runs that command first (when `openssl` is on the PATH) and prints both figures and their ratio, measured
//!   in the same run. The target is at least 0.9× OpenSSL.
//! - `validate/large-files` validates a dataset of four 64 MiB files with 1 and with 2 hashing threads (target: at
//!   least 1.6× faster with 2).
//! - `validate/small-files` validates a dataset of 10,000 small files (target: under 1 s).

#![allow(clippy::disallowed_methods, reason = "benchmarks make and read their own files in temporary folders")]

use std::fs;
use std::hint::black_box;
use std::num::NonZeroUsize;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group};
use metewand_protocol::Sha256Digest;
use metewand_repository::{CheckedRepository, WorkerOutputValidator};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const BLOCK: usize = 16384;

/// OpenSSL's SHA-256 throughput on 16 KiB blocks, in bytes per second, or `None` without `openssl`.
fn openssl_throughput() -> Option<f64> {
    let output =
        Command::new("openssl").args(["speed", "-seconds", "3", "-evp", "sha256", "-bytes", "16384"]).output().ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    // The result line: `sha256   <n>k` (thousands of bytes per second) for the one block size asked for.
    let line = text.lines().find(|line| line.starts_with("sha256") || line.starts_with("SHA256"))?;
    let figure = line.split_whitespace().last()?;
    let kilobytes: f64 = figure.trim_end_matches('k').parse().ok()?;
    Some(kilobytes * 1000.0)
}

/// Our SHA-256 throughput on 16 KiB blocks over about three seconds, in bytes per second.
fn own_throughput() -> f64 {
    let block = vec![0x5a_u8; BLOCK];
    let started = Instant::now();
    let mut blocks = 0_u64;
    while started.elapsed() < Duration::from_secs(3) {
        for _ in 0..64 {
            black_box(Sha256::digest(black_box(&block)));
        }
        blocks += 64;
    }
    (blocks * BLOCK as u64) as f64 / started.elapsed().as_secs_f64()
}

fn compare_with_openssl() {
    let ours = own_throughput();
    match openssl_throughput() {
        Some(openssl) => eprintln!(
            "sha256 16 KiB blocks, one core: metewand {:.0} MB/s, openssl {:.0} MB/s, ratio {:.3}",
            ours / 1e6,
            openssl / 1e6,
            ours / openssl
        ),
        None => eprintln!("sha256 16 KiB blocks, one core: metewand {:.0} MB/s (openssl not found)", ours / 1e6),
    }
}

fn sha256(c: &mut Criterion) {
    let block = vec![0x5a_u8; BLOCK];
    let mut group = c.benchmark_group("sha256");
    group.throughput(Throughput::Bytes(BLOCK as u64));
    group.bench_function("16KiB", |b| b.iter(|| black_box(Sha256::digest(black_box(&block)))));
    group.finish();
}

/// A repository with one dataset whose output schema accepts anything.
fn repository(dir: &Path) -> CheckedRepository {
    fs::create_dir_all(dir.join("gen")).unwrap();
    fs::write(dir.join("gen/gen.py"), "").unwrap();
    fs::write(
        dir.join("metewand.toml"),
        "format = 1\n[workers.gen]\nrole = \"dataset_materializer\"\ncommand = [\"gen\"]\nsource = \"gen\"\n\
         [datasets.d]\nmaterializer = \"gen\"\noutput_schema = { type = \"object\" }\n",
    )
    .unwrap();
    CheckedRepository::load(dir).unwrap()
}

/// Writes a dataset of `files` (path, contents) with its manifest.
fn dataset(root: &Path, files: &[(String, Vec<u8>)]) {
    let mut records = Vec::new();
    for (path, contents) in files {
        let full = root.join(path);
        fs::create_dir_all(full.parent().unwrap()).unwrap();
        fs::write(&full, contents).unwrap();
        records.push(json!({"path": path, "size": contents.len(), "sha256": Sha256Digest::of(contents).to_string()}));
    }
    let manifest = json!({"complete": true, "data": {}, "files": Value::Array(records)});
    fs::write(root.join("dataset-manifest.json"), serde_json::to_vec(&manifest).unwrap()).unwrap();
}

fn validate(c: &mut Criterion) {
    let repo_dir = tempfile::tempdir().unwrap();
    let repository = repository(repo_dir.path());
    let definition = repository.dataset("d").unwrap();

    let large = tempfile::tempdir().unwrap();
    let files: Vec<(String, Vec<u8>)> =
        (0..4).map(|i| (format!("part-{i}.bin"), (0..64 << 20).map(|j: usize| (j * 31 + i) as u8).collect())).collect();
    let total: u64 = files.iter().map(|(_, contents)| contents.len() as u64).sum();
    dataset(large.path(), &files);
    drop(files);
    let mut group = c.benchmark_group("validate/large-files");
    group.sample_size(10).measurement_time(Duration::from_secs(20)).throughput(Throughput::Bytes(total));
    for threads in [1, 2] {
        let validator = WorkerOutputValidator::new(&repository).with_threads(NonZeroUsize::new(threads).unwrap());
        group.bench_with_input(BenchmarkId::new("threads", threads), &threads, |b, _| {
            b.iter(|| validator.validate_dataset(definition, large.path(), "dataset-manifest.json").unwrap())
        });
    }
    group.finish();

    let small = tempfile::tempdir().unwrap();
    let files: Vec<(String, Vec<u8>)> = (0..10_000)
        .map(|i| (format!("d{:02}/f{i:05}.txt", i % 100), format!("row {i}\n").repeat(8).into_bytes()))
        .collect();
    dataset(small.path(), &files);
    let mut group = c.benchmark_group("validate/small-files");
    group.sample_size(10).measurement_time(Duration::from_secs(10));
    let validator = WorkerOutputValidator::new(&repository);
    group.bench_function("10000", |b| {
        b.iter(|| validator.validate_dataset(definition, small.path(), "dataset-manifest.json").unwrap())
    });
    group.finish();
}

criterion_group!(benches, sha256, validate);

fn main() {
    compare_with_openssl();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
