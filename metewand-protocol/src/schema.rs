//! Metewand's public schemas, embedded byte for byte, with their repository paths and `$id`s.
//!
//! Validation never reads a schema from disk or the network: these bytes are the ones checked in under
//! `schemas/`, compiled into the crate.

/// One embedded public schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EmbeddedSchema {
    /// The schema's name, as in its `$id`.
    pub name: &'static str,
    /// The schema's `$id`.
    pub id: &'static str,
    /// Where the schema lives in the repository, relative to its root.
    pub path: &'static str,
    /// The exact bytes of the checked-in file.
    pub bytes: &'static [u8],
}

macro_rules! embedded {
    ($const_name:ident, $name:literal) => {
        #[doc = concat!("The `", $name, "` schema.")]
        pub const $const_name: EmbeddedSchema = EmbeddedSchema {
            name: $name,
            id: concat!("urn:metewand:schema:", $name, ":1"),
            path: concat!("schemas/", $name, ".schema.json"),
            bytes: include_bytes!(concat!("../../schemas/", $name, ".schema.json")),
        };
    };
}

embedded!(WORKER_PROTOCOL_MESSAGE, "worker-protocol-message");
embedded!(ARTIFACT_MANIFEST, "artifact-manifest");
embedded!(RESULT_MANIFEST, "result-manifest");
embedded!(METRICS, "metrics");
embedded!(ATTEMPT_RECORD, "attempt-record");

/// Every embedded public schema.
pub const ALL: [EmbeddedSchema; 5] =
    [WORKER_PROTOCOL_MESSAGE, ARTIFACT_MANIFEST, RESULT_MANIFEST, METRICS, ATTEMPT_RECORD];
