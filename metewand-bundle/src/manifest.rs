//! The manifest: every file of a bundle with its size and SHA-256, written as canonical JSON while the files are
//! listed (so that no list of the files is held in memory), and read back checked: canonical,
//! schema-valid, every path safe, under one of the bundle's top folders and in strictly increasing byte order.

use std::io::{self, Write};

use metewand_protocol::Sha256Digest;
use metewand_protocol::generated::bundle_manifest::{BundleManifest, Campaign, Worker};
use metewand_protocol::generated::common::FileRecord;
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
    /// Its files, checked, held compactly.
    pub entries: Entries,
    /// The SHA-256 of its bytes.
    pub digest: Sha256Digest,
    /// The number of its bytes.
    pub size: u64,
}

/// A manifest's files, in its order, held compactly: every path in one text, and for each file where its path ends
/// there, its size and its digest (about 50 bytes a file beside its path), so that a manifest of a million files is
/// not a million documents in memory.
#[derive(Debug, Default)]
pub struct Entries {
    paths: String,
    files: Vec<Packed>,
}

#[derive(Clone, Copy, Debug)]
struct Packed {
    end: usize,
    size: u64,
    sha256: Sha256Digest,
}

impl Entries {
    /// How many files.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    fn path(&self, index: usize) -> &str {
        let start = if index == 0 { 0 } else { self.files[index - 1].end };
        &self.paths[start..self.files[index].end]
    }

    /// The file at `index`, in the manifest's order.
    pub fn get(&self, index: usize) -> Option<Entry> {
        let packed = self.files.get(index)?;
        let path = RelativePath::new(self.path(index)).expect("a path checked when the manifest was read");
        Some(Entry { path, size: packed.size, sha256: packed.sha256 })
    }

    /// The files, in the manifest's order.
    pub fn iter(&self) -> impl Iterator<Item = Entry> + '_ {
        (0..self.len()).filter_map(|index| self.get(index))
    }

    /// The last path, if any.
    fn last_path(&self) -> Option<&str> {
        (!self.files.is_empty()).then(|| self.path(self.files.len() - 1))
    }

    fn push(&mut self, path: &str, size: u64, sha256: Sha256Digest) {
        self.paths.push_str(path);
        self.files.push(Packed { end: self.paths.len(), size, sha256 });
    }

    /// The file at `path`, if listed (the paths are in increasing byte order).
    pub fn find(&self, path: &str) -> Option<Entry> {
        let (mut low, mut high) = (0, self.len());
        while low < high {
            let middle = low + (high - low) / 2;
            match self.path(middle).as_bytes().cmp(path.as_bytes()) {
                std::cmp::Ordering::Less => low = middle + 1,
                std::cmp::Ordering::Greater => high = middle,
                std::cmp::Ordering::Equal => return self.get(middle),
            }
        }
        None
    }
}

/// The parts of a canonical manifest, in their order: the text before each, and whether it is the files' array.
const PARTS: [(&str, bool); 6] = [
    ("{\"campaigns\":", false),
    (",\"datasets\":", false),
    (",\"files\":", true),
    (",\"format\":", false),
    (",\"metewand_version\":", false),
    (",\"workers\":", false),
];

/// A manifest's bytes read part by part, each checked as it comes.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    /// Reads exactly `text`, or says where the bytes first differ from it.
    fn expect(&mut self, text: &str) -> Result<(), BundleError> {
        let rest = &self.bytes[self.at..];
        if let Some(offset) = text.bytes().zip(rest).position(|(a, b)| a != *b) {
            return Err(BundleError::NotCanonical { offset: self.at + offset });
        }
        if rest.len() < text.len() {
            return Err(BundleError::NotCanonical { offset: self.bytes.len() });
        }
        self.at += text.len();
        Ok(())
    }

    /// Reads one JSON value: within the restricted domain, and in its canonical form byte for byte.
    fn value(&mut self) -> Result<Value, BundleError> {
        let bad = |reason: String| BundleError::BadManifest { reason };
        let rest = &self.bytes[self.at..];
        let mut stream = serde_json::Deserializer::from_slice(rest).into_iter::<serde::de::IgnoredAny>();
        match stream.next() {
            Some(Ok(_)) => {}
            Some(Err(error)) => return Err(bad(error.to_string())),
            None => return Err(bad("it ends early".to_owned())),
        }
        let end = stream.byte_offset();
        let text = &rest[..end];
        let value: Value = metewand_protocol::parse(text).map_err(|error| bad(error.to_string()))?;
        let canonical = metewand_protocol::to_canonical_vec(&value);
        if canonical != text {
            let offset = canonical.iter().zip(text).position(|(a, b)| a != b).unwrap_or(canonical.len().min(end));
            return Err(BundleError::NotCanonical { offset: self.at + offset });
        }
        self.at += end;
        Ok(value)
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }
}

impl Manifest {
    /// Checks a manifest's bytes: the restricted JSON domain, its canonical form byte for byte, the schema (through
    /// the generated types), and its files: safe relative paths under a top folder, in strictly increasing byte
    /// order, none of them a folder of another. The document is read part by part and its files one at a time, so
    /// that what is held beside the bytes is the compact [`Entries`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Manifest, BundleError> {
        let bad = |reason: String| BundleError::BadManifest { reason };
        let mut reader = Reader { bytes, at: 0 };
        let mut head = serde_json::Map::new();
        let mut entries = Entries::default();
        for (before, files) in PARTS {
            reader.expect(before)?;
            let key = before.trim_start_matches([',', '{']).trim_end_matches(':').trim_matches('"');
            if !files {
                head.insert(key.to_owned(), reader.value()?);
                continue;
            }
            reader.expect("[")?;
            if reader.peek() != Some(b']') {
                loop {
                    let record: FileRecord =
                        serde_json::from_value(reader.value()?).map_err(|error| bad(format!("files: {error}")))?;
                    check_file(&entries, &record.path)?;
                    entries.push(&record.path, u64::from(record.size), record.sha256);
                    if reader.peek() != Some(b',') {
                        break;
                    }
                    reader.expect(",")?;
                }
            }
            reader.expect("]")?;
            head.insert(key.to_owned(), Value::Array(Vec::new()));
        }
        reader.expect("}")?;
        if reader.at != bytes.len() {
            return Err(BundleError::NotCanonical { offset: reader.at });
        }
        let document: BundleManifest =
            serde_json::from_value(Value::Object(head)).map_err(|error| bad(error.to_string()))?;
        Ok(Manifest { document, entries, digest: Sha256Digest::of(bytes), size: bytes.len() as u64 })
    }

    /// The entry at `path`, if the manifest lists it.
    pub fn find(&self, path: &str) -> Option<Entry> {
        self.entries.find(path)
    }

    /// The total size of the files.
    pub fn total_size(&self) -> u64 {
        self.entries.files.iter().map(|entry| entry.size).sum()
    }
}

/// Checks the path of the file listed after `entries`: a safe relative path under a top folder, after the last in
/// byte order, and not beneath it.
fn check_file(entries: &Entries, text: &str) -> Result<(), BundleError> {
    let path = RelativePath::new(text)
        .map_err(|reason| BundleError::UnsafePath { path: text.to_owned(), reason: reason.to_string() })?;
    let top = path.components().next().unwrap_or_default();
    if !TOP_FOLDERS.contains(&top) || !text.contains('/') {
        return Err(BundleError::UnsafePath {
            path: text.to_owned(),
            reason: "lies under none of campaigns/, datasets/ and repository/".to_owned(),
        });
    }
    if let Some(last) = entries.last_path() {
        let bad = |reason: String| BundleError::BadManifest { reason };
        if last.as_bytes() >= text.as_bytes() {
            return Err(bad(format!("the file {text} comes after {last}: files must be in increasing order")));
        }
        if text.strip_prefix(last).is_some_and(|rest| rest.starts_with('/')) {
            return Err(bad(format!("{last} is listed as a file and as a folder of {text}")));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(paths: &[&str]) -> Vec<u8> {
        let mut writer = ManifestWriter::new(Vec::new(), Head::default()).unwrap();
        for (size, path) in paths.iter().enumerate() {
            let entry = Entry {
                path: RelativePath::new(path).unwrap(),
                size: size as u64,
                sha256: Sha256Digest::of(path.as_bytes()),
            };
            writer.entry(&entry).unwrap();
        }
        writer.finish().unwrap()
    }

    /// The files read back are the ones written, found by path, and held once each.
    #[test]
    fn the_files_are_read_back_and_found_by_path() {
        let paths = ["campaigns/c/a", "campaigns/c/b/x", "repository/metewand.toml"];
        let manifest = Manifest::from_bytes(&written(&paths)).unwrap();
        assert_eq!(manifest.entries.len(), 3);
        for (index, path) in paths.iter().enumerate() {
            let entry = manifest.find(path).unwrap();
            assert_eq!((entry.size, entry.sha256), (index as u64, Sha256Digest::of(path.as_bytes())));
            assert_eq!(manifest.entries.get(index).unwrap(), entry);
        }
        assert!(manifest.find("campaigns/c/b").is_none() && manifest.find("repository/z").is_none());
        assert_eq!(manifest.total_size(), 3);
        assert!(Manifest::from_bytes(&written(&[])).unwrap().entries.is_empty());
    }

    /// A manifest read part by part is still held to its canonical form byte for byte, inside a file's record
    /// too, and to nothing after it; its first differing byte is named.
    #[test]
    fn a_difference_from_the_canonical_form_is_found_where_it_is() {
        let bytes = written(&["campaigns/c/a", "campaigns/c/b"]);
        let text = String::from_utf8(bytes.clone()).unwrap();
        let at = text.find("{\"path\":\"campaigns/c/b\"").unwrap();
        let spaced = text.replacen("{\"path\":\"campaigns/c/b\"", "{ \"path\":\"campaigns/c/b\"", 1);
        let error = Manifest::from_bytes(spaced.as_bytes()).unwrap_err();
        assert!(matches!(error, BundleError::NotCanonical { offset } if offset == at + 1), "{error}");
        let trailing = [bytes.as_slice(), b" "].concat();
        let error = Manifest::from_bytes(&trailing).unwrap_err();
        assert!(matches!(error, BundleError::NotCanonical { offset } if offset == bytes.len()), "{error}");
        let unordered = text.replacen("campaigns/c/b", "campaigns/c/0", 1);
        let error = Manifest::from_bytes(unordered.as_bytes()).unwrap_err();
        assert!(matches!(&error, BundleError::BadManifest { reason } if reason.contains("increasing order")));
    }
}
