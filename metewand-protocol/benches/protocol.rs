//! The protocol's hot paths: decoding each gate-1 response from its line (parse, schema, generated type),
//! encoding each request, and parse plus canonical write of a 1 MiB execute response beside plain serde_json on
//! the same bytes.

#![allow(clippy::disallowed_methods, reason = "benchmarks make and read their own files in temporary folders")]

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use metewand_protocol::frame::{Frame, encode_message};
use metewand_protocol::messages::{AckResponse, EvaluateResponse, ExecuteResponse, HelloResponse, MaterializeResponse};
use metewand_protocol::{Message, decode_response};
use serde_json::{Value, json};

const WORKER_ID: &str = "mw1-resolved-worker-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

fn decode_one<T: Message>(c: &mut Criterion, line: &str) {
    let bytes = line.as_bytes().to_vec();
    c.bench_function(&format!("decode/{}", T::DEFINITION), |b| {
        b.iter(|| {
            let frame = Frame::parse(black_box(bytes.clone())).unwrap();
            black_box(decode_response::<T>(&frame).unwrap())
        })
    });
}

fn decode(c: &mut Criterion) {
    decode_one::<HelloResponse>(
        c,
        &format!(
            r#"{{"capabilities":["one_shot"],"id":"0","ok":true,"protocol":1,"sdk":{{"name":"metewand-python","version":"0.1.0"}},"worker_id":"{WORKER_ID}"}}"#
        ),
    );
    decode_one::<MaterializeResponse>(c, r#"{"dataset":{"manifest":"dataset-manifest.json"},"id":"1","ok":true}"#);
    decode_one::<ExecuteResponse>(
        c,
        r#"{"id":"2","implementation_time_ns":18342011,"ok":true,"result":{"manifest":"result.json"},"statistics":{"iterations":37}}"#,
    );
    decode_one::<EvaluateResponse>(c, r#"{"id":"1","ok":true,"verdict":"reached"}"#);
    decode_one::<AckResponse>(c, r#"{"id":"1","ok":true}"#);
    // A failure is decoded through the path of the request it answers.
    let failure = r#"{"error":{"code":"operation_failed","details":{"iterations":100},"message":"The implementation did not converge."},"id":"2","ok":false}"#;
    let bytes = failure.as_bytes().to_vec();
    c.bench_function("decode/failure_response", |b| {
        b.iter(|| {
            let frame = Frame::parse(black_box(bytes.clone())).unwrap();
            black_box(decode_response::<ExecuteResponse>(&frame).unwrap())
        })
    });
}

fn encode_one<T: Message>(c: &mut Criterion, value: Value) {
    let message: T = serde_json::from_value(value).unwrap();
    c.bench_function(&format!("encode/{}", T::DEFINITION), |b| b.iter(|| black_box(encode_message(&message).unwrap())));
}

fn encode(c: &mut Criterion) {
    use metewand_protocol::messages::*;
    encode_one::<HelloRequest>(
        c,
        json!({"id":"0","method":"hello","protocols":[1],"role":"implementation","worker_id":WORKER_ID}),
    );
    encode_one::<MaterializeRequest>(
        c,
        json!({"dataset_parameters":{"rows":100},"dataset_seed":17,"id":"1","method":"materialize","output_dir":"/private/dataset-output","source_dir":"/private/source"}),
    );
    encode_one::<PrepareRequest>(
        c,
        json!({"dataset_dir":"/private/dataset","id":"1","implementation_parameters":{"solver":"fast"},"implementation_seed":23,"method":"prepare","problem_contract_id":"mw1-problem-contract-abc","problem_parameters":{"lambda":0.1}}),
    );
    encode_one::<ExecuteRequest>(c, json!({"id":"2","method":"execute","result_dir":"/private/result"}));
    encode_one::<ResetRequest>(c, json!({"id":"3","method":"reset"}));
    encode_one::<EvaluateRequest>(
        c,
        json!({"dataset_dir":"/private/dataset","id":"1","method":"evaluate","metrics_path":"/private/metrics.json","problem_contract_id":"mw1-problem-contract-abc","problem_parameters":{"lambda":0.1},"result_dir":"/private/result"}),
    );
    encode_one::<ShutdownRequest>(c, json!({"id":"4","method":"shutdown"}));
}

/// An execute response of about 1 MiB whose statistics hold 20,000 members: floats, integers and short strings.
fn large_execute_response() -> Vec<u8> {
    let mut statistics = serde_json::Map::new();
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    for index in 0..20_000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let value = match index % 3 {
            0 => json!((state >> 11) as f64 / (1_u64 << 53) as f64 * 1e3),
            1 => json!(state % 1_000_000_007),
            _ => json!(format!("s{:x}", state % 0xfff_ffff)),
        };
        statistics.insert(format!("metric_{index:05}_{:04x}", state % 0xffff), value);
    }
    let mut line = serde_json::to_vec(&json!({
        "id": "2", "implementation_time_ns": 18342011, "ok": true,
        "result": {"manifest": "result.json"}, "statistics": statistics,
    }))
    .unwrap();
    // Pad the last string so the document is close to 1 MiB without passing the frame limit.
    let target = (1 << 20) - 64;
    if line.len() < target {
        let pad = "x".repeat(target - line.len());
        line = serde_json::to_vec(&json!({
            "id": "2", "implementation_time_ns": 18342011, "ok": true,
            "result": {"manifest": "result.json"}, "statistics": statistics, "pad": pad,
        }))
        .unwrap();
    }
    line
}

fn large(c: &mut Criterion) {
    let line = large_execute_response();
    let mut group = c.benchmark_group("1MiB_execute_response");
    group.throughput(Throughput::Bytes(line.len() as u64));
    group.sample_size(30);
    group.bench_function("metewand_parse_and_canonical_write", |b| {
        b.iter(|| {
            let value = metewand_protocol::parse(black_box(&line)).unwrap();
            black_box(metewand_protocol::to_canonical_vec(&value))
        })
    });
    group.bench_function("serde_json_from_slice_and_to_vec", |b| {
        b.iter(|| {
            let value: Value = serde_json::from_slice(black_box(&line)).unwrap();
            black_box(serde_json::to_vec(&value).unwrap())
        })
    });
    group.finish();
}

criterion_group!(benches, decode, encode, large);
criterion_main!(benches);
