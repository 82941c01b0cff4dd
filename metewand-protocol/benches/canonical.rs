//! Throughput of reading a document in the restricted domain and writing its canonical form, beside serde_json
//! reading and writing the same bytes, on a generated 1 MiB object of about 20,000 members: once with its names in
//! order, as a canonical document has them, and once shuffled.

#![allow(clippy::disallowed_methods, reason = "benchmarks make and read their own files in temporary folders")]

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::Value;

const DOCUMENT_SIZE: usize = 1 << 20;

/// A deterministic stand-in for random numbers, so every run measures the same document.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// One flat object just under 1 MiB, of the shape a worker's results take: floats, integers and short strings
/// under distinct names, in increasing order or shuffled.
fn document(shuffled: bool) -> Vec<u8> {
    const WORDS: [&str; 8] = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "éta", "theta"];
    let mut random = XorShift(0x9E37_79B9_7F4A_7C15);
    let mut members = Vec::new();
    let mut size = 1;
    loop {
        let value = match members.len() % 3 {
            0 => {
                let mantissa = random.next() as f64 / u64::MAX as f64 - 0.5;
                let exponent = (random.next() % 17) as i32 - 8;
                format!("{:?}", mantissa * 10f64.powi(exponent))
            }
            1 => format!("{}", (random.next() % 2_000_000_000_000) as i64 - 1_000_000_000_000),
            _ => {
                let word = WORDS[(random.next() % 8) as usize];
                format!("\"{word}-{}\"", random.next() % 1000)
            }
        };
        let member = format!("\"sample/measurement_{:06}_value\": {value}", members.len());
        if size + member.len() + 2 > DOCUMENT_SIZE {
            break;
        }
        size += member.len() + 2;
        members.push(member);
    }
    if shuffled {
        for index in (1..members.len()).rev() {
            members.swap(index, (random.next() % (index as u64 + 1)) as usize);
        }
    }
    let out = format!("{{{}}}", members.join(", "));
    eprintln!("document: {} bytes, {} members, shuffled: {shuffled}", out.len(), members.len());
    out.into_bytes()
}

fn canonical(c: &mut Criterion) {
    for shuffled in [false, true] {
        let document = document(shuffled);
        // Both sides must have read the same document for the comparison to mean anything.
        let ours = metewand_protocol::parse(&document).expect("the generated document is in the domain");
        let theirs: Value = serde_json::from_slice(&document).expect("the generated document is JSON");
        assert_eq!(ours.as_object().map(|m| m.len()), theirs.as_object().map(|m| m.len()));

        let name = if shuffled { "1 MiB object, names shuffled" } else { "1 MiB object, names in order" };
        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Bytes(document.len() as u64));
        group.sample_size(30);
        group.bench_function("metewand parse + canonical write", |b| {
            b.iter(|| {
                let value = metewand_protocol::parse(black_box(&document)).unwrap();
                black_box(metewand_protocol::to_canonical_vec(&value))
            });
        });
        group.bench_function("serde_json from_slice + to_vec", |b| {
            b.iter(|| {
                let value: Value = serde_json::from_slice(black_box(&document)).unwrap();
                black_box(serde_json::to_vec(&value).unwrap())
            });
        });
        group.bench_function("metewand parse", |b| {
            b.iter(|| metewand_protocol::parse(black_box(&document)).unwrap());
        });
        group.bench_function("serde_json from_slice", |b| {
            b.iter(|| serde_json::from_slice::<Value>(black_box(&document)).unwrap());
        });
        group.bench_function("metewand canonical write", |b| {
            b.iter(|| metewand_protocol::to_canonical_vec(black_box(&ours)));
        });
        group.bench_function("serde_json to_vec", |b| {
            b.iter(|| serde_json::to_vec(black_box(&theirs)).unwrap());
        });
        group.finish();
    }
}

criterion_group!(benches, canonical);
criterion_main!(benches);
