//! Verifiable results: campaign folders, the repository that ran them and, when asked, their datasets, in one
//! archive a reader can check without trusting its author (DESIGN §27).
//!
//! A bundle is a tar archive compressed with zstd. Its first entry is `manifest.json` (schema `bundle-manifest`),
//! canonical JSON listing every other file with its size and SHA-256; the SHA-256 of the manifest's bytes is the
//! bundle's digest. The files lie under `campaigns/<folder>/` (each campaign folder as it is, but its lock),
//! `repository/` (`metewand.toml`, its schema files and every worker's source and include trees, at their paths in
//! the repository) and `datasets/` (each dataset entry of the store and its `.published` record).
//!
//! - `write.rs`: [`bundle`], in two passes over the files, streaming every one of them.
//! - `read.rs`: [`unpack`], every entry checked against the manifest as it streams.
//! - `verify.rs`: [`verify_bundle`] and [`verify_folder`]: the files, then the records against them.
//! - `rejudge.rs`: [`rejudge`], every stored result judged again by the bundled evaluator in a fresh session.
//! - `manifest.rs`: the manifest, written as it is listed and read back checked; `walk.rs` folders listed in the
//!   order of their bundle paths, without following a link; `error.rs` [`BundleError`].

#![forbid(unsafe_code)]

mod error;
pub mod manifest;
mod read;
mod rejudge;
mod verify;
mod walk;
mod write;

pub use error::BundleError;
pub use manifest::{Entry, MANIFEST_FILE, Manifest};
pub use read::{Opened, Unpacked, open, unpack};
pub use rejudge::{Rejudged, rejudge};
pub use verify::{Difference, Verification, check_records, read_manifest_file, verify_bundle, verify_folder};
pub use write::{BundleRequest, Written, ZSTD_LEVEL, bundle};
