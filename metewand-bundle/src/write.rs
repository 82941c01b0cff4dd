//! Making a bundle: the campaign folders, the checked repository (its `metewand.toml`, its schema files and every
//! worker's source and include trees, as their identities hashed them) and, when asked, the datasets of the store,
//! in one tar archive compressed with zstd, its manifest first.
//!
//! Two passes over the files, so that no list of them is held in memory: the first hashes each file and writes
//! the manifest and a list of the files to temporary files; the second writes the archive, the manifest first,
//! each file hashed again as it is copied and refused if it changed between the passes. The archive is written
//! beside its name and renamed onto it once complete, and is the same bytes for the same files (entries in path
//! order, times and owners zeroed).

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, Write};
use std::path::{Path, PathBuf};

use metewand_campaign::read_campaign;
use metewand_protocol::Sha256Digest;
use metewand_protocol::generated::bundle_manifest::{Campaign, Worker};
use metewand_runtime::RelativePath;
use metewand_runtime::catalog::SchemaOrigin;
use metewand_runtime::repository::CheckedRepository;

use crate::error::BundleError;
use crate::manifest::{Entry, Head, MANIFEST_FILE, ManifestWriter};
use crate::walk::{Hashing, hash_file, open_regular, walk_sorted};

/// The zstd level bundles are written with: fast, and within a few percent of the higher levels on records and logs.
pub const ZSTD_LEVEL: i32 = 3;

/// What goes into a bundle.
#[derive(Clone, Debug)]
pub struct BundleRequest {
    /// The campaign folders, of one repository.
    pub campaigns: Vec<PathBuf>,
    /// Whether the datasets the campaigns' plans name go in too, from the state folder's store.
    pub with_datasets: bool,
    /// The state folder whose store holds the datasets (default: the repository's `.metewand/`).
    pub state_dir: Option<PathBuf>,
}

/// A bundle written.
#[derive(Clone, Debug)]
pub struct Written {
    /// The SHA-256 of its manifest, which names it.
    pub digest: Sha256Digest,
    /// How many files it holds besides the manifest.
    pub files: u64,
    /// Their total size before compression.
    pub bytes: u64,
    /// The archive's size.
    pub compressed: u64,
}

/// One thing listed into a bundle: a file, or a folder walked.
enum Item {
    File { path: String, source: PathBuf },
    Tree { prefix: String, dir: PathBuf, skip: Vec<&'static str> },
}

impl Item {
    /// The key items are sorted by: a folder's prefix ends in `/`, as its files' paths go on.
    fn key(&self) -> String {
        match self {
            Item::File { path, .. } => path.clone(),
            Item::Tree { prefix, .. } => format!("{prefix}/"),
        }
    }
}

/// Writes the bundle of `request` to `out`.
pub fn bundle(request: &BundleRequest, out: &Path) -> Result<Written, BundleError> {
    let (head, items) = plan(request)?;
    let mut manifest = ManifestWriter::new(
        BufWriter::new(tempfile::tempfile().map_err(BundleError::io("create a temporary file for", out))?),
        head,
    )
    .map_err(BundleError::io("write the manifest of", out))?;
    let mut list = BufWriter::new(tempfile::tempfile().map_err(BundleError::io("create a temporary file for", out))?);
    let mut last = String::new();
    let mut files = 0u64;
    let mut bytes = 0u64;
    let mut add = |path: String, source: PathBuf, tree: usize| -> Result<(), BundleError> {
        if path.as_bytes() <= last.as_bytes() {
            return Err(BundleError::Source { path: source, reason: format!("{path} would be listed twice") });
        }
        let checked = RelativePath::new(&path)
            .map_err(|reason| BundleError::Source { path: source.clone(), reason: format!("its path {reason}") })?;
        let (sha256, size, _) = hash_file(&source)?;
        manifest
            .entry(&Entry { path: checked, size, sha256 })
            .map_err(BundleError::io("write the manifest of", out))?;
        ListEntry { item: tree as u64, size, sha256: *sha256.as_bytes() }
            .write(&mut list, &path)
            .map_err(BundleError::io("write the file list of", out))?;
        files += 1;
        bytes += size;
        last = path;
        Ok(())
    };
    for (index, item) in items.iter().enumerate() {
        match item {
            Item::File { path, source } => add(path.clone(), source.clone(), index)?,
            Item::Tree { prefix, dir, skip } => {
                walk_sorted(dir, prefix, skip, &mut |path, source| add(path, source, index), &mut |path, odd| {
                    Err(BundleError::Source {
                        path: dir.join(path.strip_prefix(&format!("{prefix}/")).unwrap_or(&path)),
                        reason: format!("is {}; a bundle holds regular files only", odd.describe()),
                    })
                })?
            }
        }
    }
    let manifest = manifest.finish().map_err(BundleError::io("write the manifest of", out))?;
    let manifest =
        manifest.into_inner().map_err(|error| BundleError::io("write the manifest of", out)(error.into_error()))?;
    let list = list.into_inner().map_err(|error| BundleError::io("write the file list of", out)(error.into_error()))?;
    let written = write_archive(&items, manifest, list, out)?;
    Ok(Written { files, bytes, ..written })
}

/// What the request puts in the bundle: the manifest's head and the items in the order of their paths.
fn plan(request: &BundleRequest) -> Result<(Head, Vec<Item>), BundleError> {
    let mut head = Head::default();
    let mut items = Vec::new();
    let mut repository: Option<String> = None;
    let mut folders = BTreeSet::new();
    let mut keys = BTreeSet::new();
    for folder in &request.campaigns {
        let file = read_campaign(folder)
            .map_err(|error| BundleError::Source { path: folder.clone(), reason: error.to_string() })?;
        match &repository {
            Some(first) if first != &file.repository => {
                return Err(BundleError::Source {
                    path: folder.clone(),
                    reason: format!(
                        "is a campaign of repository {}, not of {first}; bundle each repository alone",
                        file.repository
                    ),
                });
            }
            _ => repository = Some(file.repository.clone()),
        }
        let name = folder
            .canonicalize()
            .ok()
            .and_then(|path| path.file_name().and_then(|name| name.to_str()).map(str::to_owned))
            .filter(|name| !name.chars().any(char::is_control))
            .ok_or_else(|| BundleError::Source { path: folder.clone(), reason: "has no UTF-8 name".to_owned() })?;
        if !folders.insert(name.clone()) {
            return Err(BundleError::Source {
                path: folder.clone(),
                reason: format!("has the name {name:?} of another folder given; give folders of different names"),
            });
        }
        keys.extend(file.attempts.iter().map(|entry| entry.dataset_key.to_string()));
        head.campaigns.push(Campaign {
            folder: name.as_str().try_into().expect("a nonempty name"),
            name: file.name.as_str().to_owned(),
        });
        // The caches are bound to this folder's inodes: no copy could use them.
        let skip = [".lock"].into_iter().chain(metewand_campaign::cache::CACHE_FILES).collect();
        items.push(Item::Tree { prefix: format!("campaigns/{name}"), dir: folder.clone(), skip });
    }
    let Some(repository) = repository else {
        return Err(BundleError::Source {
            path: PathBuf::from("."),
            reason: "no campaign folder was given".to_owned(),
        });
    };
    let root = PathBuf::from(&repository);
    let checked = CheckedRepository::load(&root).map_err(|error| BundleError::Source {
        path: root.clone(),
        reason: format!("the campaigns' repository does not check: {error}"),
    })?;
    let (workers, files) = repository_files(&checked)?;
    head.workers = workers;
    items.extend(files.into_iter().map(|(path, source)| Item::File { path, source }));
    if request.with_datasets {
        let state = request.state_dir.clone().unwrap_or_else(|| root.join(".metewand"));
        for key in keys {
            let store = state.join("datasets");
            let (dir, record) = (store.join(&key), store.join(format!("{key}.published")));
            if !dir.is_dir() || !record.is_file() {
                return Err(BundleError::Source {
                    path: dir,
                    reason: "is not a published dataset of the store; give the state folder the campaign ran with \
                             (--state-dir), or bundle without --with-datasets"
                        .to_owned(),
                });
            }
            items.push(Item::File { path: format!("datasets/{key}.published"), source: record });
            items.push(Item::Tree { prefix: format!("datasets/{key}"), dir, skip: Vec::new() });
            head.datasets.push(key);
        }
    }
    items.sort_by(|a, b| a.key().as_bytes().cmp(b.key().as_bytes()));
    Ok((head, items))
}

/// The repository's files as its identities read them, by their paths in the bundle, and its workers.
fn repository_files(checked: &CheckedRepository) -> Result<(Vec<Worker>, BTreeMap<String, PathBuf>), BundleError> {
    let root = checked.root();
    let mut files = BTreeMap::new();
    files.insert("repository/metewand.toml".to_owned(), root.join("metewand.toml"));
    for id in checked.catalog().ids() {
        if let Some(SchemaOrigin::File { path }) = checked.catalog().origin(id) {
            let text = inside(root, &root.join(path))?;
            files.insert(format!("repository/{text}"), root.join(path));
        }
    }
    let mut workers = Vec::new();
    for (name, worker) in checked.workers() {
        let source = inside(root, worker.source_path())?;
        let prefix = if source.is_empty() { "repository".to_owned() } else { format!("repository/{source}") };
        for file in worker.source_tree().files() {
            files.insert(format!("{prefix}/{}", file.path), worker.source_path().join(&file.path));
        }
        for include in worker.includes() {
            let folder = root.join(include.path());
            let text = inside(root, &folder)?;
            for file in include.tree().files() {
                files.insert(format!("repository/{text}/{}", file.path), folder.join(&file.path));
            }
        }
        workers.push(Worker {
            name: name.as_str().try_into().expect("a worker's name is nonempty"),
            source: prefix.as_str().try_into().expect("a nonempty path"),
            tree: worker.source_tree().digest().as_str().try_into().expect("a tree digest is sha256:<hex>"),
            worker_id: worker.identity().clone(),
        });
    }
    Ok((workers, files))
}

/// `path` relative to the repository's root, `/`-separated; a path outside it cannot go into a bundle.
fn inside(root: &Path, path: &Path) -> Result<String, BundleError> {
    let outside = || BundleError::Source {
        path: path.to_owned(),
        reason: format!("lies outside the repository {}; a bundle holds the repository's own files", root.display()),
    };
    let canonical_root = root.canonicalize().map_err(BundleError::io("resolve", root))?;
    let canonical = path.canonicalize().map_err(BundleError::io("resolve", path))?;
    let relative = canonical.strip_prefix(&canonical_root).map_err(|_| outside())?;
    let text = relative.to_str().ok_or_else(outside)?.to_owned();
    Ok(text)
}

/// The second pass: the archive, written beside `out` and renamed onto it.
fn write_archive(items: &[Item], mut manifest: File, list: File, out: &Path) -> Result<Written, BundleError> {
    let folder = out.parent().filter(|parent| !parent.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let temporary = tempfile::Builder::new()
        .prefix(".bundle-")
        .tempfile_in(folder)
        .map_err(BundleError::io("create a temporary file in", folder))?;
    let encoder = zstd::Encoder::new(BufWriter::with_capacity(1 << 20, temporary.as_file()), ZSTD_LEVEL)
        .map_err(BundleError::io("start compressing", out))?;
    let mut builder = tar::Builder::new(encoder);
    let size = manifest.seek(io::SeekFrom::End(0)).map_err(BundleError::io("read the manifest of", out))?;
    manifest.rewind().map_err(BundleError::io("read the manifest of", out))?;
    let mut hashing = Hashing::new(BufReader::new(manifest));
    builder
        .append_data(&mut header(size, false), MANIFEST_FILE, &mut hashing)
        .map_err(BundleError::io("write", out))?;
    let (digest, _) = hashing.digest();
    let mut list = BufReader::new(list);
    list.rewind().map_err(BundleError::io("read the file list of", out))?;
    let mut path = String::new();
    while let Some(ListEntry { item, size, sha256 }) =
        ListEntry::read(&mut list, &mut path).map_err(BundleError::io("read the file list of", out))?
    {
        let path = path.as_str();
        let source = match &items[usize::try_from(item).expect("an index of the items above")] {
            Item::File { source, .. } => source.clone(),
            Item::Tree { prefix, dir, .. } => dir.join(&path[prefix.len() + 1..]),
        };
        let (file, _, executable) = open_regular(&source)?;
        let mut hashing = Hashing::new(BufReader::with_capacity(1 << 16, file).take(size));
        builder
            .append_data(&mut header(size, executable), path, &mut hashing)
            .map_err(BundleError::io("write", out))?;
        let mut rest = hashing.inner.into_inner();
        let grew = rest.read(&mut [0u8]).map_err(BundleError::io("read", &source))? > 0;
        let read = Sha256Digest::from_hasher(hashing.hasher);
        if grew || hashing.count != size || read.as_bytes() != &sha256 {
            return Err(BundleError::Changed { path: source });
        }
    }
    let encoder = builder.into_inner().map_err(BundleError::io("write", out))?;
    let mut writer = encoder.finish().map_err(BundleError::io("write", out))?;
    writer.flush().map_err(BundleError::io("write", out))?;
    drop(writer);
    temporary
        .as_file()
        .set_permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644))
        .map_err(BundleError::io("write", out))?;
    temporary.as_file().sync_all().map_err(BundleError::io("write", out))?;
    let compressed = temporary.as_file().metadata().map_err(BundleError::io("write", out))?.len();
    temporary.persist(out).map_err(|error| BundleError::io("rename the bundle onto", out)(error.error))?;
    Ok(Written { digest, files: 0, bytes: 0, compressed })
}

/// One file of the first pass's list, as the second pass reads it back: the item it came from, its size and digest,
/// then its bundle path (its length, then its bytes).
struct ListEntry {
    item: u64,
    size: u64,
    sha256: [u8; 32],
}

impl ListEntry {
    fn write(&self, out: &mut impl Write, path: &str) -> io::Result<()> {
        out.write_all(&self.item.to_le_bytes())?;
        out.write_all(&self.size.to_le_bytes())?;
        out.write_all(&self.sha256)?;
        out.write_all(&(path.len() as u64).to_le_bytes())?;
        out.write_all(path.as_bytes())
    }

    /// The next entry, its path in `path`; `None` at the end of the list.
    fn read(list: &mut impl Read, path: &mut String) -> io::Result<Option<ListEntry>> {
        let mut word = [0u8; 8];
        match list.read_exact(&mut word) {
            Err(error) if error.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
            result => result?,
        }
        let item = u64::from_le_bytes(word);
        list.read_exact(&mut word)?;
        let size = u64::from_le_bytes(word);
        let mut sha256 = [0u8; 32];
        list.read_exact(&mut sha256)?;
        list.read_exact(&mut word)?;
        let mut bytes = vec![0u8; usize::try_from(u64::from_le_bytes(word)).map_err(io::Error::other)?];
        list.read_exact(&mut bytes)?;
        *path = String::from_utf8(bytes).map_err(io::Error::other)?;
        Ok(Some(ListEntry { item, size, sha256 }))
    }
}

/// A tar header of a bundle's entry: its size and mode, and nothing that differs from one machine or time to another.
fn header(size: u64, executable: bool) -> tar::Header {
    let mut header = tar::Header::new_gnu();
    header.set_size(size);
    header.set_mode(if executable { 0o755 } else { 0o644 });
    header.set_mtime(0);
    header.set_uid(0);
    header.set_gid(0);
    header.set_entry_type(tar::EntryType::Regular);
    header
}
