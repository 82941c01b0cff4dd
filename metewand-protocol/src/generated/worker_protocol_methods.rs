// Generated from schemas/worker-protocol-message.schema.json by codegen; do not edit. Regenerate with: cargo xtask codegen
//! Metewand worker protocol request methods, from `schemas/worker-protocol-message.schema.json`.
//!
//! Which roles accept each request method, the phase its request runs, the capability a worker reports when it
//! serves it, and the definitions of its request and of its success response (a failure response answers any
//! request), read from the annotations of the request definitions (x-accepted-by, x-response, x-phase,
//! x-capability).

/// A request method of the protocol, as its request definition declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RequestMethod {
    /// The method's name on the wire: the request's `method` constant.
    pub name: &'static str,
    /// The roles whose workers accept the request (`x-accepted-by`), in the order of `common`'s roles.
    pub accepted_by: &'static [super::common::Role],
    /// The phase the request runs (`x-phase`, or the phase named after the method): its limit, its record
    /// and its failures are that phase's.
    pub phase: super::common::Phase,
    /// The capability a worker reports when it serves the request (`x-capability`), if it takes one.
    pub capability: ::std::option::Option<super::common::Capability>,
    /// The request's definition under the schema's `$defs`.
    pub request: &'static str,
    /// The definition of the answer when the request succeeds (`x-response`).
    pub response: &'static str,
}
/// `hello`: Opens a session: fixes the role and the resolved worker identity and offers protocol versions.
pub const HELLO: RequestMethod = RequestMethod {
    name: "hello",
    accepted_by: &[
        super::common::Role::DatasetMaterializer,
        super::common::Role::Implementation,
        super::common::Role::ProblemEvaluator,
    ],
    phase: super::common::Phase::Hello,
    capability: ::std::option::Option::None,
    request: "hello_request",
    response: "hello_response",
};
/// `materialize`: Asks a dataset materializer to build a dataset in its assigned output directory.
pub const MATERIALIZE: RequestMethod = RequestMethod {
    name: "materialize",
    accepted_by: &[super::common::Role::DatasetMaterializer],
    phase: super::common::Phase::Materialize,
    capability: ::std::option::Option::None,
    request: "materialize_request",
    response: "materialize_response",
};
/// `prepare`: Gives an implementation all attempt-specific state before it executes.
pub const PREPARE: RequestMethod = RequestMethod {
    name: "prepare",
    accepted_by: &[super::common::Role::Implementation],
    phase: super::common::Phase::Prepare,
    capability: ::std::option::Option::None,
    request: "prepare_request",
    response: "ack_response",
};
/// `execute`: Asks a prepared implementation to solve the problem, writing its result in the assigned directory.
pub const EXECUTE: RequestMethod = RequestMethod {
    name: "execute",
    accepted_by: &[super::common::Role::Implementation],
    phase: super::common::Phase::Execute,
    capability: ::std::option::Option::None,
    request: "execute_request",
    response: "execute_response",
};
/// `execute_stream`: Asks a prepared implementation that reported streaming_profile to solve the problem like
/// execute, sending at most max_checkpoints checkpoints on the way and waiting for each answer. The stream ends
/// with an execute response or a failure.
pub const EXECUTE_STREAM: RequestMethod = RequestMethod {
    name: "execute_stream",
    accepted_by: &[super::common::Role::Implementation],
    phase: super::common::Phase::Execute,
    capability: ::std::option::Option::Some(super::common::Capability::StreamingProfile),
    request: "execute_stream_request",
    response: "execute_response",
};
/// `reset`: Asks an implementation to forget the prepared attempt.
pub const RESET: RequestMethod = RequestMethod {
    name: "reset",
    accepted_by: &[super::common::Role::Implementation],
    phase: super::common::Phase::Reset,
    capability: ::std::option::Option::None,
    request: "reset_request",
    response: "ack_response",
};
/// `evaluate`: Asks a problem evaluator to judge a result and write its metrics document.
pub const EVALUATE: RequestMethod = RequestMethod {
    name: "evaluate",
    accepted_by: &[super::common::Role::ProblemEvaluator],
    phase: super::common::Phase::Evaluate,
    capability: ::std::option::Option::None,
    request: "evaluate_request",
    response: "evaluate_response",
};
/// `shutdown`: The final request of every session.
pub const SHUTDOWN: RequestMethod = RequestMethod {
    name: "shutdown",
    accepted_by: &[
        super::common::Role::DatasetMaterializer,
        super::common::Role::Implementation,
        super::common::Role::ProblemEvaluator,
    ],
    phase: super::common::Phase::Shutdown,
    capability: ::std::option::Option::None,
    request: "shutdown_request",
    response: "ack_response",
};
/// Every request method, in the order of the schema's `anyOf`.
pub static REQUEST_METHODS: [RequestMethod; 8] = [
    HELLO,
    MATERIALIZE,
    PREPARE,
    EXECUTE,
    EXECUTE_STREAM,
    RESET,
    EVALUATE,
    SHUTDOWN,
];
