//! Decoding frames into the message type a session expects: validation against that message's schema
//! definition, then the generated type.
//!
//! A response is decoded as the type its pending request expects, after checking `ok`: a failure response is
//! valid in answer to any request, and nothing is ever decoded as a guess among all messages.

use std::fmt;
use std::sync::OnceLock;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::common::Role;
use crate::frame::Frame;
use crate::messages::{
    AckResponse, CheckpointAnswer, CheckpointMessage, EvaluateRequest, EvaluateResponse, ExecuteRequest,
    ExecuteResponse, ExecuteStreamRequest, FailureResponse, HelloRequest, HelloResponse, MaterializeRequest,
    MaterializeResponse, PrepareRequest, ResetRequest, ShutdownRequest,
};
use crate::methods::{self, RequestMethod};
use crate::schema;

/// A message of protocol version 1: a generated type and the schema definition it is checked against.
pub trait Message: Serialize + DeserializeOwned {
    /// The key of the message's definition under the schema's `$defs`.
    const DEFINITION: &'static str;
}

macro_rules! messages {
    ($($ty:ident => $definition:literal,)*) => {
        $(impl Message for $ty {
            const DEFINITION: &'static str = $definition;
        })*

        /// Every message definition, in the order of the schema's `anyOf`.
        pub const MESSAGE_DEFINITIONS: &[&str] = &[$($definition),*];
    };
}

messages! {
    HelloRequest => "hello_request",
    MaterializeRequest => "materialize_request",
    PrepareRequest => "prepare_request",
    ExecuteRequest => "execute_request",
    ExecuteStreamRequest => "execute_stream_request",
    CheckpointAnswer => "checkpoint_answer",
    ResetRequest => "reset_request",
    EvaluateRequest => "evaluate_request",
    ShutdownRequest => "shutdown_request",
    HelloResponse => "hello_response",
    MaterializeResponse => "materialize_response",
    ExecuteResponse => "execute_response",
    CheckpointMessage => "checkpoint_message",
    EvaluateResponse => "evaluate_response",
    AckResponse => "ack_response",
    FailureResponse => "failure_response",
}

/// A worker's answer to a request: the success shape the request expects, or a structured failure.
#[derive(Clone, Debug, PartialEq)]
pub enum Response<T> {
    /// The request's success shape.
    Success(T),
    /// A structured failure, valid in answer to any request.
    Failure(FailureResponse),
}

impl<T> Response<T> {
    /// The request id the response carries.
    pub fn id(&self) -> &str
    where
        T: ResponseId,
    {
        match self {
            Response::Success(success) => success.response_id(),
            Response::Failure(failure) => failure.id.as_str(),
        }
    }
}

/// A response type's id, for matching it with its pending request.
pub trait ResponseId {
    /// The request id the response repeats.
    fn response_id(&self) -> &str;
}

macro_rules! response_ids {
    ($($ty:ident),*) => {
        $(impl ResponseId for $ty {
            fn response_id(&self) -> &str {
                self.id.as_str()
            }
        })*
    };
}

response_ids!(
    HelloResponse,
    MaterializeResponse,
    ExecuteResponse,
    CheckpointMessage,
    EvaluateResponse,
    AckResponse,
    FailureResponse
);

/// One schema violation: where in the message, and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaDiagnostic {
    /// The JSON pointer of the offending value in the message.
    pub instance_path: String,
    /// What the schema requires there.
    pub message: String,
}

impl fmt::Display for SchemaDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.instance_path.is_empty() { "the message" } else { &self.instance_path };
        write!(f, "at {path}: {}", self.message)
    }
}

/// Why a frame is not the message the session expects.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The frame breaks the message's schema definition.
    #[error("not a valid {definition} message: {}", join(.diagnostics))]
    Schema {
        /// The definition the frame was checked against.
        definition: &'static str,
        /// Every violation the validator reported (at least one).
        diagnostics: Vec<SchemaDiagnostic>,
    },
    /// The frame passed the schema but the generated type refused it, which means the two disagree.
    #[error("not a valid {definition} message: {message}")]
    Type {
        /// The definition the frame was checked against.
        definition: &'static str,
        /// What the type refused.
        message: String,
    },
}

fn join(diagnostics: &[SchemaDiagnostic]) -> String {
    diagnostics.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
}

/// The compiled validator of `definition`, built on first use from the embedded schemas and kept for the process:
/// a worker compiles only the few definitions it reads.
fn validator(definition: &'static str) -> &'static jsonschema::Validator {
    static VALIDATORS: [OnceLock<jsonschema::Validator>; MESSAGE_DEFINITIONS.len()] =
        [const { OnceLock::new() }; MESSAGE_DEFINITIONS.len()];
    let index = MESSAGE_DEFINITIONS
        .iter()
        .position(|known| *known == definition)
        .expect("a message's definition is one of MESSAGE_DEFINITIONS");
    VALIDATORS[index].get_or_init(|| schema::validator(schema::WORKER_PROTOCOL_MESSAGE, Some(definition)))
}

/// Compiles the validator of `T` now rather than at its first decoding. A worker calls it for the requests it will
/// serve before it answers hello, so that no compilation falls inside a timed request.
///
/// ```
/// use metewand_protocol::decode::precompile;
/// use metewand_protocol::messages::{ExecuteRequest, PrepareRequest};
///
/// precompile::<PrepareRequest>();
/// precompile::<ExecuteRequest>();
/// ```
pub fn precompile<T: Message>() {
    validator(T::DEFINITION);
}

/// Compiles the validators of every request a worker serving `role` accepts, as the table of request methods says,
/// and of the checkpoint answer where that includes `execute_stream`: what such a worker calls before it answers
/// hello (see [`precompile`]).
///
/// ```
/// use metewand_protocol::common::Role;
/// use metewand_protocol::decode::precompile_requests;
///
/// precompile_requests(Role::ProblemEvaluator);
/// ```
pub fn precompile_requests(role: Role) {
    for method in RequestMethod::of_role(role) {
        validator(method.request);
    }
    if methods::EXECUTE_STREAM.accepts(role) {
        precompile::<CheckpointAnswer>();
    }
}

/// Checks a frame against the request definition of `method` without converting it: for a worker that needs to
/// know only that a request is well-formed before it answers.
///
/// ```
/// use metewand_protocol::decode::check_request;
/// use metewand_protocol::frame::Frame;
/// use metewand_protocol::methods;
///
/// let frame = Frame::parse(br#"{"id":"3","method":"reset"}"#.to_vec()).unwrap();
/// assert!(check_request(&methods::RESET, &frame).is_ok());
/// let error = check_request(&methods::EXECUTE, &frame).unwrap_err();
/// assert!(error.to_string().starts_with("not a valid execute_request message"), "{error}");
/// ```
pub fn check_request(method: &RequestMethod, frame: &Frame) -> Result<(), DecodeError> {
    validate(method.request, frame.value())
}

/// Checks a value against the message definition `definition`, naming every violation.
fn validate(definition: &'static str, value: &Value) -> Result<(), DecodeError> {
    let validator = validator(definition);
    if validator.is_valid(value) {
        return Ok(());
    }
    let diagnostics = validator
        .iter_errors(value)
        .map(|error| SchemaDiagnostic { instance_path: error.instance_path().to_string(), message: error.to_string() })
        .collect();
    Err(DecodeError::Schema { definition, diagnostics })
}

/// Checks a value against a message definition and converts it into the message's generated type.
pub fn decode_value<T: Message>(value: &Value) -> Result<T, DecodeError> {
    validate(T::DEFINITION, value)?;
    T::deserialize(value).map_err(|err| DecodeError::Type { definition: T::DEFINITION, message: err.to_string() })
}

/// Decodes a frame as the message type `T`.
///
/// ```
/// use metewand_protocol::decode::decode_message;
/// use metewand_protocol::frame::Frame;
/// use metewand_protocol::messages::ExecuteRequest;
///
/// let frame = Frame::parse(br#"{"id":"2","method":"execute","result_dir":"/private/result"}"#.to_vec()).unwrap();
/// let request: ExecuteRequest = decode_message(&frame).unwrap();
/// assert_eq!(request.result_dir.as_str(), "/private/result");
///
/// let frame = Frame::parse(br#"{"id":"2","method":"execute","result_dir":""}"#.to_vec()).unwrap();
/// let error = decode_message::<ExecuteRequest>(&frame).unwrap_err();
/// assert!(error.to_string().contains("/result_dir"), "{error}");
/// ```
pub fn decode_message<T: Message>(frame: &Frame) -> Result<T, DecodeError> {
    decode_value(frame.value())
}

/// Decodes a frame as the answer to a request whose success shape is `T`: a failure response when `ok` is
/// `false`, otherwise `T`.
pub fn decode_response<T: Message>(frame: &Frame) -> Result<Response<T>, DecodeError> {
    if frame.value().get("ok") == Some(&Value::Bool(false)) {
        return decode_value(frame.value()).map(Response::Failure);
    }
    decode_value(frame.value()).map(Response::Success)
}
