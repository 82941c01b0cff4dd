//! The manifest: every file of a bundle with its size and SHA-256, written as canonical JSON while the files are
//! listed (so that no list of the files is held in memory), and read back checked: canonical,
//! schema-valid, every path safe, under one of the bundle's top folders and in strictly increasing byte order.

use std::io::{self, Write};

use metewand_protocol::Sha256Digest;
use metewand_protocol::generated::bundle_manifest::{BundleManifest, Campaign, Worker};
use metewand_runtime::RelativePath;
use serde_json::Value;

use crate::error::BundleError;

/// The manifest's name: the first entry of a bundle, and the root file of an unpacked one.
pub const MANIFEST_FILE: &str = "manifest.json";

/// The largest manifest read: about seven million files.
pub const MAX_MANIFEST_BYTES: u64 = 1 << 30;

/// The folders a bundle's files lie under.
pub const TOP_FOLDERS: [&str; 3] = ["campaigns", "datasets", "repository"];

/// One file of a bundle as its manifest records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Its path in the bundle.
    pub path: RelativePath,
    /// Its size in bytes.
    pub size: u64,
    /// The SHA-256 of its contents.
    pub sha256: Sha256Digest,
}

/// What a manifest says besides its files.
#[derive(Clone, Debug, Default)]
pub struct Head {
    /// The campaign folders.
    pub campaigns: Vec<Campaign>,
    /// The repository's workers.
    pub workers: Vec<Worker>,
    /// The datasets' keys.
    pub datasets: Vec<String>,
}

/// Writes a manifest as its files are listed: [`ManifestWriter::entry`] for each, in order, then
/// [`ManifestWriter::finish`]. The keys come in their canonical order (`campaigns`, `datasets`, `files`, `format`,
/// `metewand_version`, `workers`), so the bytes are the canonical form without the document ever being whole in
/// memory.
pub(crate) struct ManifestWriter<W: Write> {
    out: W,
    head: Head,
    first: bool,
}

fn canonical(value: &impl serde::Serialize) -> Vec<u8> {
    metewand_protocol::to_canonical_vec(&serde_json::to_value(value).expect("a manifest's parts serialize"))
}

impl<W: Write> ManifestWriter<W> {
    pub(crate) fn new(mut out: W, head: Head) -> io::Result<ManifestWriter<W>> {
        out.write_all(b"{\"campaigns\":")?;
        out.write_all(&canonical(&head.campaigns))?;
        out.write_all(b",\"datasets\":")?;
        out.write_all(&canonical(&head.datasets))?;
        out.write_all(b",\"files\":[")?;
        Ok(ManifestWriter { out, head, first: true })
    }

    pub(crate) fn entry(&mut self, entry: &Entry) -> io::Result<()> {
        if !self.first {
            self.out.write_all(b",")?;
        }
        self.first = false;
        let record =
            serde_json::json!({"path": entry.path.as_str(), "sha256": entry.sha256.to_string(), "size": entry.size});
        self.out.write_all(&metewand_protocol::to_canonical_vec(&record))
    }

    pub(crate) fn finish(mut self) -> io::Result<W> {
        self.out.write_all(b"],\"format\":1,\"metewand_version\":")?;
        self.out.write_all(&canonical(&env!("CARGO_PKG_VERSION")))?;
        self.out.write_all(b",\"workers\":")?;
        self.out.write_all(&canonical(&self.head.workers))?;
        self.out.write_all(b"}")?;
        Ok(self.out)
    }
}

/// A manifest read and checked, with its digest: the SHA-256 of its bytes, which names the bundle.
#[derive(Debug)]
pub struct Manifest {
    /// The document, but its files, which are kept once, in `entries`.
    pub document: BundleManifest,
    /// Its files, checked.
    pub entries: Vec<Entry>,
    /// The SHA-256 of its bytes.
    pub digest: Sha256Digest,
    /// The number of its bytes.
    pub size: u64,
}

impl Manifest {
    /// Checks a manifest's bytes: the restricted JSON domain, its canonical form byte for byte, the schema (through
    /// the generated type), and its files: safe relative paths under a top folder, in strictly increasing byte
    /// order, none of them a folder of another.
    pub fn from_bytes(bytes: &[u8]) -> Result<Manifest, BundleError> {
        let bad = |reason: String| BundleError::BadManifest { reason };
        let value: Value = metewand_protocol::parse(bytes).map_err(|error| bad(error.to_string()))?;
        let canonical = metewand_protocol::to_canonical_vec(&value);
        if canonical != bytes {
            let offset =
                canonical.iter().zip(bytes).position(|(a, b)| a != b).unwrap_or(canonical.len().min(bytes.len()));
            return Err(BundleError::NotCanonical { offset });
        }
        drop(canonical);
        let mut document: BundleManifest = serde_json::from_value(value).map_err(|error| bad(error.to_string()))?;
        // The files are kept once, as checked entries.
        let files = std::mem::take(&mut document.files);
        let mut entries: Vec<Entry> = Vec::with_capacity(files.len());
        for record in files {
            let text: &str = &record.path;
            let path = RelativePath::new(text)
                .map_err(|reason| BundleError::UnsafePath { path: text.to_owned(), reason: reason.to_string() })?;
            let top = path.components().next().unwrap_or_default();
            if !TOP_FOLDERS.contains(&top) || !text.contains('/') {
                return Err(BundleError::UnsafePath {
                    path: text.to_owned(),
                    reason: "lies under none of campaigns/, datasets/ and repository/".to_owned(),
                });
            }
            if let Some(last) = entries.last() {
                let last = last.path.as_str();
                if last.as_bytes() >= text.as_bytes() {
                    return Err(bad(format!("the file {text} comes after {last}: files must be in increasing order")));
                }
                if text.strip_prefix(last).is_some_and(|rest| rest.starts_with('/')) {
                    return Err(bad(format!("{last} is listed as a file and as a folder of {text}")));
                }
            }
            entries.push(Entry { path, size: u64::from(record.size), sha256: record.sha256 });
        }
        Ok(Manifest { document, entries, digest: Sha256Digest::of(bytes), size: bytes.len() as u64 })
    }

    /// The entry at `path`, if the manifest lists it.
    pub fn find(&self, path: &str) -> Option<&Entry> {
        self.entries
            .binary_search_by(|entry| entry.path.as_str().as_bytes().cmp(path.as_bytes()))
            .ok()
            .map(|index| &self.entries[index])
    }

    /// The total size of the files.
    pub fn total_size(&self) -> u64 {
        self.entries.iter().map(|entry| entry.size).sum()
    }
}
