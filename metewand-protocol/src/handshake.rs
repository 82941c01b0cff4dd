//! The version-1 handshake: the orchestrator's `hello`, protocol negotiation, and the six checks of a worker's
//! answer.
//!
//! The plan's capability selection stays on the orchestrator's side: `hello` carries none, and the worker's report
//! is checked against it here. Version 1 implements the subprotocols of `one_shot` and `streaming_profile`;
//! `applicability` and `fresh_sequence` stay reserved.

use crate::common::{Capability, Role, SdkInfo, WorkerId};
use crate::messages::{HelloRequest, HelloResponse, MethodHello, RequestId};
use crate::strict::{NonEmptyUniqueVec, SafeUint, UniqueVec};

/// The one protocol version this crate speaks.
pub const PROTOCOL_VERSION: u64 = 1;

/// Why a handshake failed; each of the normative checks has its own variant.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HandshakeError {
    /// The response does not answer the pending `hello`.
    #[error("hello response has id {observed:?}, but the pending hello request has id {expected:?}")]
    IdMismatch {
        /// The pending request's id.
        expected: String,
        /// The response's id.
        observed: String,
    },
    /// The orchestrator did not offer protocol 1, so the worker cannot have selected it.
    #[error("protocol {PROTOCOL_VERSION} was not offered (offered {offered:?})")]
    ProtocolNotOffered {
        /// The versions offered.
        offered: Vec<u64>,
    },
    /// The worker did not repeat the resolved worker identity it was sent.
    #[error("worker answered with identity {observed}, but was started as {expected}")]
    WorkerIdMismatch {
        /// The identity the request carried.
        expected: String,
        /// The identity the worker repeated.
        observed: String,
    },
    /// The plan selected a capability the worker did not report.
    #[error("the plan selects capability {capability} but the worker did not report it (reported: {reported:?})")]
    CapabilityNotReported {
        /// The selected capability.
        capability: Capability,
        /// What the worker reported.
        reported: Vec<Capability>,
    },
    /// The plan selected capabilities for a role other than implementation.
    #[error("capabilities may be selected only for an implementation worker, not for a {role}")]
    CapabilitySelectedForRole {
        /// The worker's role.
        role: Role,
    },
    /// The plan selected a capability whose subprotocol version 1 does not implement.
    #[error("capability {capability} is reserved: version 1 sessions may select only one_shot and streaming_profile")]
    ReservedCapabilitySelected {
        /// The reserved capability.
        capability: Capability,
    },
}

/// The `hello` request that opens a session: it fixes the role and the resolved worker identity and offers
/// protocol version 1.
pub fn hello_request(id: RequestId, role: Role, worker_id: WorkerId) -> HelloRequest {
    HelloRequest { id, method: MethodHello, protocols: NonEmptyUniqueVec::one(SafeUint::from(1_u32)), role, worker_id }
}

/// Chooses the protocol version among those offered: version 1, if offered.
///
/// ```
/// use metewand_protocol::handshake::negotiate_protocol;
/// use metewand_protocol::strict::SafeUint;
///
/// let offered = [SafeUint::from(2_u32), SafeUint::from(1_u32)];
/// assert_eq!(negotiate_protocol(&offered).unwrap(), 1);
/// assert!(negotiate_protocol(&offered[..1]).is_err());
/// ```
pub fn negotiate_protocol(offered: &[SafeUint]) -> Result<u64, HandshakeError> {
    if offered.iter().any(|version| version.get() == PROTOCOL_VERSION) {
        Ok(PROTOCOL_VERSION)
    } else {
        Err(HandshakeError::ProtocolNotOffered { offered: offered.iter().map(|v| v.get()).collect() })
    }
}

/// What a successful handshake established, for the session and the attempt record.
#[derive(Clone, Debug, PartialEq)]
pub struct Handshake {
    /// The negotiated protocol version.
    pub protocol: u64,
    /// Every capability the worker reported, selected or not (unselected ones are recorded and inert).
    pub reported: UniqueVec<Capability>,
    /// The capabilities the plan selected, all of them reported.
    pub selected: Vec<Capability>,
    /// The worker's SDK name and version, or `None` for a direct protocol worker.
    pub sdk: Option<SdkInfo>,
}

/// Checks a decoded `hello` response against its request and the plan's capability selection: the six checks of
/// the normative text, in its order.
pub fn validate_hello_response(
    request: &HelloRequest,
    response: &HelloResponse,
    selected: &[Capability],
) -> Result<Handshake, HandshakeError> {
    if response.id != request.id {
        return Err(HandshakeError::IdMismatch { expected: request.id.to_string(), observed: response.id.to_string() });
    }
    // The response's `protocol` is the constant 1 by its type, so "selected" holds; "offered" is checked here.
    let protocol = negotiate_protocol(&request.protocols)?;
    if response.worker_id != request.worker_id {
        return Err(HandshakeError::WorkerIdMismatch {
            expected: request.worker_id.to_string(),
            observed: response.worker_id.to_string(),
        });
    }
    if let Some(&capability) = selected.iter().find(|c| !response.capabilities.contains(c)) {
        return Err(HandshakeError::CapabilityNotReported {
            capability,
            reported: response.capabilities.as_slice().to_vec(),
        });
    }
    if !selected.is_empty() && request.role != Role::Implementation {
        return Err(HandshakeError::CapabilitySelectedForRole { role: request.role });
    }
    if let Some(&capability) =
        selected.iter().find(|&&c| !matches!(c, Capability::OneShot | Capability::StreamingProfile))
    {
        return Err(HandshakeError::ReservedCapabilitySelected { capability });
    }
    Ok(Handshake {
        protocol,
        reported: response.capabilities.clone(),
        selected: selected.to_vec(),
        sdk: response.sdk.clone(),
    })
}
