//! `serve --conformant`: the protocol's rules a worker keeps beyond answering (what the conformance kit checks),
//! and outputs the runtime's validator accepts. Without the flag the test worker answers whatever it is sent.
//! Which role accepts which request, and which capability a request takes, is the protocol's generated table of
//! request methods.

use std::fs;
use std::path::Path;
use std::time::SystemTime;

use metewand_protocol::common::{Capability, Role};
use metewand_protocol::decode::check_request;
use metewand_protocol::decode_message;
use metewand_protocol::frame::{Frame, encode_value};
use metewand_protocol::messages::{EvaluateRequest, ExecuteRequest, HelloRequest, MaterializeRequest, PrepareRequest};
use metewand_protocol::methods::{self, RequestMethod};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::Fault;

/// What one session has established.
#[derive(Debug, Default)]
pub(super) struct State {
    role: Option<Role>,
    prepared: bool,
    pub(super) seed: u64,
}

/// The refusal a request gets instead of an answer, if any; exits with status 2 for a line without a usable id.
/// `reported` is what the worker reports at hello: a request that takes a capability it does not report is refused.
pub(super) fn gate(state: &mut State, frame: &Frame, fault: Option<Fault>, reported: &[Capability]) -> Option<Vec<u8>> {
    let value = frame.value();
    let Some(id) = value.get("id").and_then(Value::as_str).filter(|id| !id.is_empty()) else {
        eprintln!("test-worker: a request without a usable id cannot be answered");
        std::process::exit(2);
    };
    let id = if fault == Some(Fault::MangleIds) { mangle(id) } else { id.to_owned() };
    let refuse = |code: &str, message: &str| {
        let answer = json!({"error": {"code": code, "message": message}, "id": id, "ok": false});
        Some(encode_value(&answer).expect("refusals are small"))
    };
    let Some(name) = value.get("method").and_then(Value::as_str) else {
        return refuse("invalid_request", "the request has no method string");
    };
    let Some(method) = RequestMethod::named(name) else {
        return refuse("invalid_request", "unknown method");
    };
    let decoded = if *method == methods::HELLO {
        decode_message::<HelloRequest>(frame).map(|hello| Some(hello.role))
    } else if *method == methods::PREPARE {
        decode_message::<PrepareRequest>(frame).map(|prepare| {
            state.seed = prepare.implementation_seed.get();
            None
        })
    } else {
        check_request(method, frame).map(|()| None)
    };
    let hello_role = match decoded {
        Ok(role) => role,
        Err(error) => return refuse("invalid_request", &format!("invalid {name} request: {error}")),
    };
    if let Some(role) = hello_role {
        if state.role.is_some() && fault != Some(Fault::AcceptSecondHello) {
            return refuse("invalid_request", "hello was already answered");
        }
        state.role = Some(role);
        return None;
    }
    let Some(role) = state.role else {
        return if *method == methods::SHUTDOWN { None } else { refuse("invalid_request", "a request before hello") };
    };
    if !method.accepts(role) {
        return refuse("unsupported_operation", &format!("the {role} role has no {name} request"));
    }
    if let Some(capability) = method.capability
        && !reported.contains(&capability)
    {
        return refuse(
            "unsupported_operation",
            &format!("this worker does not report {capability}, which {name} takes"),
        );
    }
    match name {
        "prepare" => state.prepared = true,
        "reset" => state.prepared = false,
        "execute" | "execute_stream" if !state.prepared && fault != Some(Fault::ExecuteUnprepared) => {
            return refuse("invalid_request", &format!("{name} needs a successful prepare first"));
        }
        _ => {}
    }
    None
}

/// `id` stripped to ASCII letters, digits and `-` (what a careless worker might do to an id).
pub(super) fn mangle(id: &str) -> String {
    let kept: String = id.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
    if kept.is_empty() { "mangled".to_owned() } else { kept }
}

/// Replaces what the plain worker wrote with outputs the validator accepts: a dataset and a result whose
/// contents depend on their seed only (unless `nondeterministic`), and a metrics document.
pub(super) fn write_outputs(method: &str, frame: &Frame, state: &State, fault: Option<Fault>) -> Result<(), String> {
    let noise = if fault == Some(Fault::Nondeterministic) {
        let now = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        format!("clock {now}\n")
    } else {
        String::new()
    };
    match method {
        "materialize" => {
            let request: MaterializeRequest = decode_message(frame).map_err(|e| e.to_string())?;
            let seed = if fault == Some(Fault::IgnoreSeed) { 0 } else { request.dataset_seed.get() };
            let dir = Path::new(request.output_dir.as_str());
            let file = record(dir, "rows.csv", &format!("x\n{seed}\n{noise}"))?;
            let manifest = json!({"complete": true, "data": {"seed": seed}, "files": [file]});
            write(&dir.join("dataset-manifest.json"), &manifest)
        }
        "execute" => {
            let request: ExecuteRequest = decode_message(frame).map_err(|e| e.to_string())?;
            let dir = Path::new(request.result_dir.as_str());
            let seed = if fault == Some(Fault::IgnoreSeed) { 0 } else { state.seed };
            let file = record(dir, "answer.txt", &format!("{seed}\n{noise}"))?;
            if super::corrupted() {
                // The state a corrupting reset lost: the manifest names a file that is no longer there.
                fs::remove_file(dir.join("answer.txt")).map_err(|error| error.to_string())?;
            }
            write(&dir.join("result.json"), &json!({"data": {"seed": seed}, "files": [file]}))
        }
        "evaluate" => {
            let request: EvaluateRequest = decode_message(frame).map_err(|e| e.to_string())?;
            // A checkpoint's error shrinks with its number; a final result's is 0.
            let error =
                super::stream::checkpoint_of(Path::new(request.result_dir.as_str())).map_or(0.0, |n| 1.0 / n as f64);
            write(Path::new(request.metrics_path.as_str()), &json!({"metrics": {"error": error}}))
        }
        _ => Ok(()),
    }
}

fn record(dir: &Path, name: &str, contents: &str) -> Result<Value, String> {
    let path = dir.join(name);
    fs::write(&path, contents).map_err(|error| format!("writing {}: {error}", path.display()))?;
    let digest: String = Sha256::digest(contents.as_bytes()).iter().map(|byte| format!("{byte:02x}")).collect();
    Ok(json!({"path": name, "sha256": digest, "size": contents.len()}))
}

fn write(path: &Path, document: &Value) -> Result<(), String> {
    let bytes = encode_value(document).map_err(|error| error.to_string())?;
    fs::write(path, bytes).map_err(|error| format!("writing {}: {error}", path.display()))
}
