//! Metewand's worker protocol, version 1: the message types, generated from the checked-in JSON Schemas, and the
//! checked types they are built from.
//!
//! This crate spawns no processes and touches no files: it turns bytes into checked values and back.
//!
//! Every message is decoded as the type the session expects, never as a guess among all messages:
//!
//! ```
//! use metewand_protocol::common::Role;
//! use metewand_protocol::messages::HelloResponse;
//!
//! let line = r#"{"capabilities":["one_shot"],"id":"0","ok":true,"protocol":1,"sdk":null,
//!     "worker_id":"mw1-resolved-worker-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}"#;
//! let hello: HelloResponse = serde_json::from_str(line).unwrap();
//! assert!(hello.sdk.is_none());
//!
//! // The protocol discriminator is checked, not merely typed.
//! assert!(serde_json::from_str::<HelloResponse>(&line.replace(r#""protocol":1"#, r#""protocol":2"#)).is_err());
//! // Unknown fields are refused.
//! assert!(serde_json::from_str::<HelloResponse>(&line.replace(r#""id""#, r#""extra":1,"id""#)).is_err());
//! # let _ = Role::Implementation;
//! ```

#![forbid(unsafe_code)]

#[rustfmt::skip]
#[allow(
    unused_qualifications,
    reason = "typify spells every path in full so that generated code depends on no imports"
)]
#[allow(
    missing_docs,
    reason = "variants and fields are documented where their schema has a description; the rest is the schema's"
)]
pub mod generated;

pub mod canonical;
pub mod declared;
pub mod decode;
pub mod digest;
mod documents;
pub mod frame;
pub mod handshake;
mod phase;
mod relations;
pub mod schema;
pub mod stream;
pub mod strict;
pub mod tracker;

pub use canonical::{
    ParseError, ParseErrorKind, parse, to_canonical_string, to_canonical_vec, write_canonical, write_canonical_object,
    write_canonical_string,
};
pub use decode::{DecodeError, Message, Response, decode_message, decode_response};
pub use digest::{DigestParseError, Sha256Digest};
pub use documents::{TimedTime, judged};
pub use frame::{Frame, FrameError, FrameReader, MAX_LINE_BYTES, encode_message};
/// The worker protocol's messages: every request and response of protocol version 1.
pub use generated::common;
pub use generated::common::Phase;
pub use generated::worker_protocol_message as messages;
/// The worker protocol's request methods: which roles accept each, the phase it runs, the capability it takes, and
/// its request and response definitions.
pub use generated::worker_protocol_methods as methods;
pub use handshake::{HandshakeError, negotiate_protocol, validate_hello_response};
pub use messages::{HelloRequest, HelloResponse};
pub use stream::{CheckpointStream, StreamError, StreamFrame, decode_stream_frame};
pub use tracker::{RequestTracker, TrackerError};
