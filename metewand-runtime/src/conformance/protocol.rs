//! The protocol checks: the protocol session's (a second `hello`, another role's request, a malformed request,
//! unusual ids), the ones that need a session alone (`unknown-fields`, `unreadable-line`), an implementation's
//! state rules, and the two over every session (`nothing-left-running`, `stdout-frames-only`).

use serde_json::{Value, json};

use super::report::evidence;
use super::{Check, CheckResult, Finding, Kit, Launch, Opened, Outcome, SEED, Step, make_dir, with_tail};
use crate::WorkerOutputValidator;
use crate::protocol::Frame;
use crate::protocol::Phase;
use crate::protocol::common::{FailureCode, Role};
use crate::protocol::frame::encode_value;
use crate::protocol::strict::SafeUint;
use crate::session::{ExecuteParams, ExecuteStreamParams, Reply, Request, Sealed, SessionErrorKind};
use crate::validate::{RESULT_MANIFEST, ResultLayout};

/// Ids no worker could guess, each one a way an id can be unusual: non-ASCII, padded, escapes, separators and
/// control characters, a word JSON gives meaning to, and a long one.
fn unusual_ids() -> Vec<String> {
    vec![
        "été-🚀".to_owned(),
        " padded id ".to_owned(),
        "tab\there \"quoted\" back\\slash".to_owned(),
        "line\u{2028}separator\u{7}bell".to_owned(),
        "null".to_owned(),
        "x".repeat(300),
    ]
}

impl Kit<'_> {
    // -- the protocol session's checks

    pub(super) fn second_hello(&mut self, opened: &mut Opened) -> Step<String> {
        let line = self.hello_line("second-hello");
        let frame = self.raw(Check::SecondHello, opened, Phase::Hello, &line)?;
        match refusal(&frame, "second-hello") {
            Ok(code) => Ok(format!("refused with {code}")),
            Err(why) => Err(Finding::new(why).sent(&line).received(frame.line())),
        }
    }

    pub(super) fn other_role(&mut self, opened: &mut Opened) -> Step<String> {
        let (method, request) = self.other_role_request(opened);
        let line = encode_value(&request).expect("small");
        let frame = self.raw(Check::OtherRole, opened, method, &line)?;
        match refusal(&frame, "other-role") {
            Ok(FailureCode::UnsupportedOperation) => {}
            Ok(code) => {
                let why =
                    format!("{method} (another role's request) was refused with {code}, not unsupported_operation");
                return Err(Finding::new(why).sent(&line).received(frame.line()));
            }
            Err(why) => return Err(Finding::new(why).sent(&line).received(frame.line())),
        }
        // Still usable: a request of its own role is answered (any answer, success or structured failure).
        let probe =
            encode_value(&json!({"id": "still-usable", "method": self.own_method_phase().as_str()})).expect("small");
        let frame = self.raw(Check::OtherRole, opened, self.own_method_phase(), &probe)?;
        if frame.value().get("id").and_then(Value::as_str) != Some("still-usable") {
            let why = "after refusing another role's request, the worker did not answer its own role's request";
            return Err(Finding::new(why).sent(&probe).received(frame.line()));
        }
        Ok(format!(
            "{method} refused with unsupported_operation; the session then answered {}",
            self.own_method_phase().as_str()
        ))
    }

    pub(super) fn malformed(&mut self, opened: &mut Opened) -> Step<String> {
        // The role's first request with fields (`reset` has none, so it cannot be missing any).
        let phase = match self.target.role {
            Role::DatasetMaterializer => Phase::Materialize,
            Role::Implementation => Phase::Prepare,
            Role::ProblemEvaluator => Phase::Evaluate,
        };
        let own = phase.as_str();
        let probes = [
            (json!({"id": "malformed-missing", "method": own}), "a request missing its fields"),
            (json!({"id": "malformed-method", "method": 7}), "a request whose method is a number"),
            (malformed_types(self.target.role), "a request whose fields have the wrong types"),
        ];
        for (request, what) in probes {
            let line = encode_value(&request).expect("small");
            let id = request["id"].as_str().expect("a string id");
            let frame = self.raw(Check::MalformedRequest, opened, phase, &line)?;
            match refusal(&frame, id) {
                Ok(FailureCode::InvalidRequest) => {}
                Ok(code) => {
                    let why = format!("{what} was refused with {code}, not invalid_request");
                    return Err(Finding::new(why).sent(&line).received(frame.line()));
                }
                Err(why) => return Err(Finding::new(format!("{what}: {why}")).sent(&line).received(frame.line())),
            }
        }
        Ok("missing fields, a mistyped method and mistyped fields refused with invalid_request".to_owned())
    }

    pub(super) fn unknown_fields(&mut self, opened: &mut Opened) -> Step<String> {
        let request = json!({"id": "unknown-field", "method": "shutdown", "unexpected": true});
        let line = encode_value(&request).expect("small");
        let frame = self.raw(Check::UnknownFields, opened, Phase::Shutdown, &line)?;
        match refusal(&frame, "unknown-field") {
            Ok(FailureCode::InvalidRequest) => {
                Ok("a shutdown with an unknown field refused with invalid_request".to_owned())
            }
            Ok(code) => Err(Finding::new(format!("refused with {code}, not invalid_request"))
                .sent(&line)
                .received(frame.line())),
            Err(why) => Err(Finding::new(why).sent(&line).received(frame.line())),
        }
    }

    pub(super) fn unusual_ids(&mut self, opened: &mut Opened) -> Step<String> {
        let ids = unusual_ids();
        for id in &ids {
            let line = self.hello_line(id);
            let frame = self.raw(Check::UnusualIds, opened, Phase::Hello, &line)?;
            let echoed = frame.value().get("id").and_then(Value::as_str);
            if echoed != Some(id.as_str()) {
                let why = match echoed {
                    Some(echoed) => format!("the id {id:?} came back as {echoed:?}"),
                    None => format!("the answer to the id {id:?} carries no string id"),
                };
                return Err(Finding::new(why).sent(&line).received(frame.line()));
            }
        }
        Ok(format!("{} unusual ids echoed verbatim", ids.len()))
    }

    pub(super) fn unreadable_line(&mut self) -> Step<String> {
        let mut opened = self.open(Check::UnreadableLine)?;
        let mut line = b"this line is not json\n".to_vec();
        line.extend(encode_value(&json!({"id": "after-unreadable", "method": "shutdown"})).expect("small"));
        match opened.session.exchange_raw(Phase::Shutdown, line.clone()) {
            Ok(frame) => {
                let value = frame.value();
                if value.get("id").and_then(Value::as_str) == Some("after-unreadable")
                    && value.get("ok") == Some(&Value::Bool(true))
                {
                    Ok("the line was ignored and the following shutdown acknowledged".to_owned())
                } else {
                    let why = "a line without an id cannot be answered, but the worker wrote a frame for it";
                    with_tail(Err(Finding::new(why).sent(&line).received(frame.line())), &opened.session)
                }
            }
            Err(error) => {
                self.observe(Check::UnreadableLine, &error);
                match error.kind() {
                    SessionErrorKind::WorkerExit { status, .. } => {
                        let status = status.map_or("an unknown status".to_owned(), |status| status.to_string());
                        Ok(format!("the worker ended without answering ({status})"))
                    }
                    _ => Err(Finding::session(Some(&line), &error)),
                }
            }
        }
    }

    // -- the implementation's state rules

    pub(super) fn execute_before_prepare(&mut self, opened: &mut Opened) -> Step<String> {
        let result_dir = make_dir(&opened.out.join("result"))?;
        let sent = format!("execute {{\"result_dir\": {:?}}} with no prepare before it", result_dir.as_str());
        match opened.session.call(Request::Execute(ExecuteParams { result_dir })) {
            Ok(_) => Err(Finding::new("execute was answered with a result although nothing was prepared")
                .sent(sent.as_bytes())
                .received(b"a successful execute response")),
            Err(error) => match error.kind() {
                SessionErrorKind::WorkerFailure { code, .. } => Ok(format!("refused with {code}")),
                _ => {
                    self.observe(Check::ExecuteBeforePrepare, &error);
                    Err(Finding::session(Some(sent.as_bytes()), &error))
                }
            },
        }
    }

    /// prepare, execute, reset, then prepare and execute again with the same inputs: every request must be
    /// answered and, for a repository worker, the result after the reset must be valid wherever the first was (a
    /// reset that loses state the worker needs shows there). What a worker must pass to serve more than one attempt.
    pub(super) fn reset_then_again(&mut self, opened: &mut Opened) -> Step<String> {
        let mut results = Vec::new();
        for round in 1..=2 {
            let prepare = self.prepare_params(SEED)?;
            let dir = opened.out.join(format!("result-{round}"));
            let result_dir = make_dir(&dir)?;
            let steps = [Request::Prepare(prepare), Request::Execute(ExecuteParams { result_dir })];
            for request in steps.into_iter().chain((round == 1).then_some(Request::Reset)) {
                let method = request.method();
                match opened.session.call(request) {
                    Ok(Reply::Executed(response)) => results.push((dir.clone(), response.result.manifest.to_string())),
                    Ok(_) => {}
                    Err(error) => {
                        self.observe(Check::ResetThenAgain, &error);
                        let sent = format!("{method} (round {round} of prepare, execute, reset, prepare, execute)");
                        return Err(Finding::session(Some(sent.as_bytes()), &error));
                    }
                }
            }
        }
        let Launch::Repository { repository, .. } = &self.target.launch else {
            return Ok("prepare, execute, reset, prepare, execute all answered".to_owned());
        };
        let problem = self.problem().expect("checked by needs");
        let validator = WorkerOutputValidator::new(repository);
        let [(first, first_manifest), (second, second_manifest)] = &results[..] else {
            unreachable!("both rounds' executes were answered")
        };
        if validator.validate_result(problem, first, first_manifest).is_ok()
            && let Err(error) = validator.validate_result(problem, second, second_manifest)
        {
            return Err(Finding::new(format!(
                "the result after reset was rejected, though the same request's before it was valid: {error}"
            ))
            .sent(b"prepare, execute, reset, prepare, execute with the same inputs"));
        }
        Ok("prepare, execute, reset, prepare, execute all answered; the result after reset is valid as before it"
            .to_owned())
    }

    /// prepare, then `execute_stream` allowing four checkpoints, the answer to the second saying stop: each
    /// checkpoint must come in order with its manifest where it belongs, wait for its answer, and none may follow the
    /// stop (the session refuses anything else as a protocol violation); for a repository worker each checkpoint
    /// (sealed while the worker is stopped, as an attempt seals it) and the final result must be valid.
    pub(super) fn streaming(&mut self, opened: &mut Opened) -> Step<String> {
        let prepare = self.prepare_params(SEED)?;
        if let Err(error) = opened.session.call(Request::Prepare(prepare)) {
            self.observe(Check::Streaming, &error);
            return Err(Finding::session(Some(b"prepare"), &error));
        }
        let dir = opened.out.join("result");
        let params = ExecuteStreamParams { result_dir: make_dir(&dir)?, max_checkpoints: SafeUint::from(4_u32) };
        let validation = match &self.target.launch {
            Launch::Repository { repository, .. } => {
                Some((WorkerOutputValidator::new(repository), self.problem().expect("checked by needs")))
            }
            Launch::Command(_) => None,
        };
        let streamed = opened.session.execute_stream_unchecked(params, |checkpoint| {
            let sealed = validation.as_ref().map(|(validator, problem)| {
                let layout = ResultLayout::Checkpoint(checkpoint.number);
                validator.validate_result_in(problem, &dir, layout, RESULT_MANIFEST).map(drop)
            });
            Sealed { value: sealed, go_on: checkpoint.number < 2 }
        });
        let sent = b"execute_stream with max_checkpoints 4, the answer to checkpoint 2 saying continue false";
        let streamed = match streamed {
            Ok(streamed) => streamed,
            Err(error) => {
                self.observe(Check::Streaming, &error);
                return Err(Finding::session(Some(sent), &error));
            }
        };
        for (checkpoint, sealed) in &streamed.checkpoints {
            if let Some(Err(error)) = sealed {
                let why = format!("checkpoint {} was rejected: {error}", checkpoint.number);
                return Err(Finding::new(why).sent(sent));
            }
        }
        if let Some((validator, problem)) = &validation {
            let manifest = streamed.response.result.manifest.as_str();
            let final_result = opened
                .session
                .while_stopped(|| validator.validate_result_in(problem, &dir, ResultLayout::Streamed, manifest))
                .map_err(|error| Finding::session(Some(sent), &error))?;
            if let Err(error) = final_result {
                return Err(Finding::new(format!("the final result was rejected: {error}")).sent(sent));
            }
        }
        Ok(match streamed.checkpoints.len() {
            0 => "no checkpoint, then the final result: nothing of the stream was exercised".to_owned(),
            1 => {
                "checkpoint 1, answered, then the final result: stopping on continue false was not exercised".to_owned()
            }
            _ => {
                "checkpoints 1 and 2 in order, each waiting for its answer, none after continue false, then the final \
                  result"
                    .to_owned()
            }
        })
    }

    // -- over every session

    pub(super) fn whole_run(&mut self) {
        let result = match self.observed.left_running.iter().find(|(_, count)| *count > 0) {
            Some((check, count)) => CheckResult::new(
                Check::NothingLeftRunning,
                Outcome::Fail,
                format!(
                    "{count} process(es) of the worker's were still running after its clean shutdown (in the session for {check})"
                ),
            ),
            None if self.observed.left_running.is_empty() => {
                CheckResult::new(Check::NothingLeftRunning, Outcome::Skip, "no session shut down cleanly")
            }
            None => CheckResult::new(
                Check::NothingLeftRunning,
                Outcome::Pass,
                format!("nothing was left running after {} clean shutdown(s)", self.observed.left_running.len()),
            ),
        };
        self.results.push(result);
        let result = match self.observed.not_frames.first() {
            Some((check, violation, tail)) => CheckResult {
                why: format!(
                    "the worker wrote something that is not a frame on stdout (in the session for {check}): {violation}"
                ),
                received: Some(evidence(violation.as_bytes())),
                stderr_tail: tail.clone(),
                ..CheckResult::new(Check::StdoutFramesOnly, Outcome::Fail, "")
            },
            None => CheckResult::new(
                Check::StdoutFramesOnly,
                Outcome::Pass,
                format!("only frames on stdout in {} session(s)", self.sessions),
            ),
        };
        self.results.push(result);
    }
}

/// The code of a structured failure answering `id`, or why the frame is not one.
fn refusal(frame: &Frame, id: &str) -> Result<FailureCode, String> {
    let value = frame.value();
    let echoed = value.get("id").and_then(Value::as_str);
    if echoed != Some(id) {
        return Err(format!("the answer carries the id {echoed:?}, not {id:?}"));
    }
    if value.get("ok") == Some(&Value::Bool(true)) {
        return Err("the request was accepted (ok: true), not refused".to_owned());
    }
    match crate::protocol::decode_message::<crate::protocol::messages::FailureResponse>(frame) {
        Ok(failure) => Ok(failure.error.code),
        Err(error) => Err(format!("the answer is not a valid failure response: {error}")),
    }
}

/// A request of the role's own method whose fields all have the wrong types.
fn malformed_types(role: Role) -> Value {
    match role {
        Role::DatasetMaterializer => json!({"dataset_parameters": [], "dataset_seed": "seven", "id": "malformed-types",
            "method": "materialize", "output_dir": 17, "source_dir": false}),
        Role::Implementation => json!({"dataset_dir": 17, "id": "malformed-types", "implementation_parameters": [],
            "implementation_seed": -1, "method": "prepare", "problem_contract_id": "", "problem_parameters": null}),
        Role::ProblemEvaluator => json!({"dataset_dir": 17, "id": "malformed-types", "method": "evaluate",
            "metrics_path": [], "problem_contract_id": "", "problem_parameters": null, "result_dir": false}),
    }
}
