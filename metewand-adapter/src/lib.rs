//! Metewand's own worker for a program that does not speak the worker protocol: a `[workers.X]` table with
//! `adapter = "command"` runs `metewand adapter --role ROLE -- COMMAND...` as its worker, in the worker's own
//! confinement, and this adapter answers the protocol, running `COMMAND` once per scientific request.
//!
//! The command's words may hold placeholders, replaced per request: `{dataset}` (the dataset folder; for a
//! materializer, the folder to write it in), `{result}` (an implementation's result folder; an evaluator's result to
//! judge), `{metrics}` (the metrics file an evaluator's answer goes to), `{seed}` (the dataset's or implementation's
//! seed), `{parameters}` (a JSON file holding the role's parameters) and `{tmp}` (the session's `TMPDIR`).
//!
//! What the command leaves is described by the adapter, and validated by the executor as any worker's output:
//! - a materializer's or an implementation's folder gets a manifest listing every regular file the command left
//!   there (path, size, SHA-256), its `data` the one JSON object the command printed on stdout (`{}` when it printed
//!   nothing), or the one in the file `result_data` names there;
//! - an evaluator's command prints one JSON object, `{"verdict": ..., "metrics": {...}}`, which the adapter answers
//!   and writes to the metrics file.
//!
//! A command that exits with a status other than 0, or is killed by a signal, fails the request
//! (`operation_failed`, with the status or signal in its details); its stderr is the worker's, in the worker's log.
//! An implementation's reported time is the command's life, from spawn to exit (the executor measures its own).
//!
//! ```
//! use metewand_adapter::{placeholders_in, PLACEHOLDERS};
//!
//! assert_eq!(placeholders_in("{result}/x-{seed}.txt"), vec!["result", "seed"]);
//! assert!(PLACEHOLDERS.contains(&"dataset"));
//! ```

#![allow(
    clippy::disallowed_methods,
    reason = "the adapter runs as the worker, inside its confinement: it reads and writes only what the worker may, \
              and the executor validates what it leaves as any worker's output"
)]

mod run;

use std::ffi::OsString;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use metewand_protocol::common::Role;
use metewand_protocol::decode::check_request;
use metewand_protocol::decode_message;
use metewand_protocol::frame::{Frame, FrameReader, encode_value};
use metewand_protocol::messages::{EvaluateRequest, ExecuteRequest, HelloRequest, MaterializeRequest, PrepareRequest};
use metewand_protocol::methods::{self, RequestMethod};
use serde_json::{Map, Value, json};

pub use run::{Failed, Finished};

/// The placeholders a command's words may hold.
pub const PLACEHOLDERS: [&str; 6] = ["dataset", "result", "metrics", "seed", "parameters", "tmp"];

/// The manifest file the adapter writes in a result folder.
pub const RESULT_MANIFEST: &str = "result.json";
/// The manifest file the adapter writes in a dataset folder.
pub const DATASET_MANIFEST: &str = "dataset-manifest.json";

/// The placeholders `word` holds, in order: each `{name}` whose name is letters and `_`.
pub fn placeholders_in(word: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut rest = word;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close)
                if !after[..close].is_empty()
                    && after[..close].bytes().all(|b| b.is_ascii_lowercase() || b == b'_') =>
            {
                found.push(&after[..close]);
                rest = &after[close + 1..];
            }
            _ => rest = after,
        }
    }
    found
}

/// What one session has established.
#[derive(Debug, Default)]
struct Session {
    role: Option<Role>,
    /// An implementation's prepared inputs: the dataset folder, its parameters and seed.
    prepared: Option<(PathBuf, Map<String, Value>, u64)>,
}

/// What the adapter serves: a role, the command it runs per request, and where the data of what the command leaves
/// is read from.
#[derive(Clone, Debug)]
pub struct Adapter {
    /// The role served.
    pub role: Role,
    /// The command and its words, with placeholders.
    pub command: Vec<OsString>,
    /// The file, in the folder the command writes, holding the manifest's data (`None`: the command's stdout).
    pub result_data: Option<String>,
}

/// Serves the protocol on `input` and `output` as `adapter` says, running its command per scientific request,
/// until `shutdown` or the end of `input`; returns the process's exit status.
pub fn serve(adapter: &Adapter, input: impl BufRead, mut output: impl Write) -> i32 {
    let role = adapter.role;
    let mut reader = FrameReader::new(input);
    let mut session = Session::default();
    loop {
        let frame = match reader.read_frame() {
            Ok(Some(frame)) => frame,
            Ok(None) => return 0,
            Err(error) => {
                eprintln!("metewand adapter: cannot read a request: {error}");
                return 2;
            }
        };
        let Some(id) = frame.value().get("id").and_then(Value::as_str).filter(|id| !id.is_empty()).map(str::to_owned)
        else {
            eprintln!("metewand adapter: a request without a usable id cannot be answered");
            return 2;
        };
        let method = frame.value().get("method").and_then(Value::as_str).unwrap_or_default().to_owned();
        let (answer, acknowledged) = match gate(&mut session, role, &frame) {
            Err((code, message)) => (refusal(&id, code, &message), false),
            Ok(()) => (answer(&mut session, adapter, &method, &frame, &id), true),
        };
        let line = encode_value(&answer).expect("an answer encodes");
        if output.write_all(&line).and_then(|()| output.flush()).is_err() {
            return 2;
        }
        if acknowledged && method == methods::SHUTDOWN.name {
            return 0;
        }
    }
}

fn refusal(id: &str, code: &str, message: &str) -> Value {
    json!({"error": {"code": code, "message": message}, "id": id, "ok": false})
}

/// Refuses what the protocol says a worker refuses: a request that does not decode, a second hello, a request
/// before hello, another role's request, one that takes a capability the adapter does not report (it reports
/// `one_shot` only), and an execute before a prepare.
fn gate(session: &mut Session, role: Role, frame: &Frame) -> Result<(), (&'static str, String)> {
    let value = frame.value();
    let Some(name) = value.get("method").and_then(Value::as_str) else {
        return Err(("invalid_request", "the request has no method string".to_owned()));
    };
    let Some(method) = RequestMethod::named(name) else {
        return Err(("invalid_request", format!("unknown method {name:?}")));
    };
    if *method == methods::HELLO {
        let hello: HelloRequest =
            decode_message(frame).map_err(|error| ("invalid_request", format!("invalid hello request: {error}")))?;
        if session.role.is_some() {
            return Err(("invalid_request", "hello was already answered".to_owned()));
        }
        if hello.role != role {
            return Err(("unsupported_operation", format!("this adapter serves the {role} role, not {}", hello.role)));
        }
        session.role = Some(role);
        return Ok(());
    }
    check_request(method, frame).map_err(|error| ("invalid_request", format!("invalid {name} request: {error}")))?;
    if session.role.is_none() && *method != methods::SHUTDOWN {
        return Err(("invalid_request", "a request before hello".to_owned()));
    }
    if !method.accepts(role) {
        return Err(("unsupported_operation", format!("the {role} role has no {name} request")));
    }
    if method.capability.is_some_and(|capability| capability != metewand_protocol::common::Capability::OneShot) {
        return Err(("unsupported_operation", format!("a command worker does not stream, which {name} takes")));
    }
    if *method == methods::EXECUTE && session.prepared.is_none() {
        return Err(("invalid_request", "execute needs a successful prepare first".to_owned()));
    }
    Ok(())
}

fn answer(session: &mut Session, adapter: &Adapter, method: &str, frame: &Frame, id: &str) -> Value {
    let (role, command, data) = (adapter.role, adapter.command.as_slice(), adapter.result_data.as_deref());
    let ack = json!({"id": id, "ok": true});
    let outcome = match method {
        "hello" => {
            let hello: HelloRequest = decode_message(frame).expect("the gate decoded it");
            let capabilities: Vec<&str> = if role == Role::Implementation { vec!["one_shot"] } else { Vec::new() };
            Ok(json!({
                "capabilities": capabilities, "id": id, "ok": true, "protocol": 1,
                "sdk": {"name": "metewand-adapter", "version": env!("CARGO_PKG_VERSION")},
                "worker_id": hello.worker_id.to_string(),
            }))
        }
        "prepare" => {
            let prepare: PrepareRequest = decode_message(frame).expect("the gate decoded it");
            let parameters = Map::from_iter(prepare.implementation_parameters);
            session.prepared =
                Some((PathBuf::from(prepare.dataset_dir.as_str()), parameters, prepare.implementation_seed.get()));
            Ok(ack)
        }
        "reset" => {
            session.prepared = None;
            Ok(ack)
        }
        "shutdown" => Ok(ack),
        "materialize" => {
            let request: MaterializeRequest = decode_message(frame).expect("the gate decoded it");
            let folder = PathBuf::from(request.output_dir.as_str());
            let parameters = Map::from_iter(request.dataset_parameters);
            let words = Words { dataset: Some(&folder), seed: Some(request.dataset_seed.get()), ..Words::default() };
            described(command, &words, &parameters, (&folder, data), DATASET_MANIFEST)
                .map(|_| json!({"dataset": {"manifest": DATASET_MANIFEST}, "id": id, "ok": true}))
        }
        "execute" => {
            let request: ExecuteRequest = decode_message(frame).expect("the gate decoded it");
            let (dataset, parameters, seed) = session.prepared.clone().expect("the gate checked the prepare");
            let folder = PathBuf::from(request.result_dir.as_str());
            let words = Words { dataset: Some(&dataset), result: Some(&folder), seed: Some(seed), ..Words::default() };
            described(command, &words, &parameters, (&folder, data), RESULT_MANIFEST).map(|finished| {
                json!({
                    "id": id, "implementation_time_ns": u64::try_from(finished.elapsed.as_nanos()).unwrap_or(u64::MAX),
                    "ok": true, "result": {"manifest": RESULT_MANIFEST}, "statistics": {},
                })
            })
        }
        "evaluate" => {
            let request: EvaluateRequest = decode_message(frame).expect("the gate decoded it");
            evaluate(command, &request).map(|verdict| json!({"id": id, "ok": true, "verdict": verdict}))
        }
        other => Err(Failed::from(format!("the adapter has no answer to {other}"))),
    };
    outcome.unwrap_or_else(|failed: Failed| {
        let mut error = json!({"code": "operation_failed", "message": failed.message});
        if let Some(details) = failed.details {
            error["details"] = details;
        }
        json!({"error": error, "id": id, "ok": false})
    })
}

/// What the placeholders of one request stand for.
#[derive(Debug, Default)]
struct Words<'a> {
    dataset: Option<&'a Path>,
    result: Option<&'a Path>,
    metrics: Option<&'a Path>,
    seed: Option<u64>,
}

/// Runs `command` for a materializer or an implementation and writes `manifest` in `folder`: every regular file the
/// command left there, and as the data the JSON object in its `data` file there, or else the one it printed.
fn described(
    command: &[OsString],
    words: &Words<'_>,
    parameters: &Map<String, Value>,
    (folder, data): (&Path, Option<&str>),
    manifest: &str,
) -> Result<Finished, Failed> {
    let finished = run::run_in(command, words, parameters)?;
    let data = match data {
        None => stdout_object(&finished.stdout, true)?,
        Some(file) => {
            let bytes = std::fs::read(folder.join(file))
                .map_err(|error| Failed::from(format!("the command left no readable {file}: {error}")))?;
            match serde_json::from_slice::<Value>(&bytes) {
                Ok(value @ Value::Object(_)) => value,
                _ => return Err(Failed::from(format!("{file} is not one JSON object"))),
            }
        }
    };
    let files = run::files_of(folder, manifest)
        .map_err(|error| Failed::from(format!("cannot list what the command left: {error}")))?;
    let mut document = json!({"data": data, "files": files});
    if manifest == DATASET_MANIFEST {
        document["complete"] = Value::Bool(true);
    }
    let bytes = encode_value(&document).map_err(|error| Failed::from(error.to_string()))?;
    std::fs::write(folder.join(manifest), bytes)
        .map_err(|error| Failed::from(format!("cannot write {manifest}: {error}")))?;
    Ok(finished)
}

/// Runs an evaluator's command and writes its metrics; the verdict it printed.
fn evaluate(command: &[OsString], request: &EvaluateRequest) -> Result<String, Failed> {
    let dataset = PathBuf::from(request.dataset_dir.as_str());
    let result = PathBuf::from(request.result_dir.as_str());
    let metrics = PathBuf::from(request.metrics_path.as_str());
    let words = Words { dataset: Some(&dataset), result: Some(&result), metrics: Some(&metrics), seed: None };
    let parameters = Map::from_iter(request.problem_parameters.clone());
    let finished = run::run_in(command, &words, &parameters)?;
    let printed = stdout_object(&finished.stdout, false)?;
    let verdict = printed.get("verdict").and_then(Value::as_str).map(str::to_owned);
    let (Some(verdict), Some(found)) = (verdict, printed.get("metrics").filter(|metrics| metrics.is_object())) else {
        return Err(Failed::from("an evaluator's command prints one JSON object with \"verdict\" and \"metrics\""));
    };
    let bytes = encode_value(&json!({"metrics": found})).map_err(|error| Failed::from(error.to_string()))?;
    std::fs::write(&metrics, bytes).map_err(|error| Failed::from(format!("cannot write the metrics: {error}")))?;
    Ok(verdict)
}

/// The one JSON object `stdout` holds (surrounding whitespace aside); with `empty`, nothing printed is `{}`.
fn stdout_object(stdout: &[u8], empty: bool) -> Result<Value, Failed> {
    let text = std::str::from_utf8(stdout).map_err(|_| Failed::from("the command's stdout is not UTF-8"))?.trim();
    if text.is_empty() && empty {
        return Ok(json!({}));
    }
    match serde_json::from_str::<Value>(text) {
        Ok(value @ Value::Object(_)) => Ok(value),
        _ => Err(Failed::from("the command's stdout is not one JSON object")),
    }
}
