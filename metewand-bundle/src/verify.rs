//! Verifying a bundle or an unpacked one: every file against the manifest, then the records against the files and
//! the repository: each record valid and filed under its id, its workers the bundled repository's, each result
//! file it names the one the bundle holds, and each metrics document valid and equal to the record's metrics.

use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;

use metewand_campaign::cache::CACHE_FILES;
use metewand_campaign::folder::{Found, read_attempt};
use metewand_campaign::read_campaign;
use metewand_protocol::Sha256Digest;
use metewand_protocol::generated::metrics::Metrics;
use metewand_runtime::document::read_document;
use metewand_runtime::repository::CheckedRepository;

use crate::error::BundleError;
use crate::manifest::{MANIFEST_FILE, Manifest};
use crate::read::{Opened, open};
use crate::walk::{hash_file, open_regular, walk_sorted};

/// One way a bundle differs from what it claims.
#[derive(Debug)]
pub enum Difference {
    /// A file differs from the manifest: added, removed, changed, or not a regular file.
    File(BundleError),
    /// A record, a result or a metrics document differs from its schema, the records or the repository.
    Record {
        /// The file, as its path in the bundle.
        path: String,
        /// What differs.
        what: String,
    },
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Difference::File(error) => write!(f, "{error}"),
            Difference::Record { path, what } => write!(f, "{path}: {what}"),
        }
    }
}

/// What verifying found.
#[derive(Debug)]
pub struct Verification {
    /// The SHA-256 of the manifest, which names the bundle.
    pub digest: Sha256Digest,
    /// The files the manifest lists.
    pub files: u64,
    /// The records read.
    pub records: u64,
    /// Every difference, in path order; none for a bundle that is what it claims.
    pub differences: Vec<Difference>,
}

/// Unpacks `bundle` into a temporary folder, every entry checked as it streams, then checks the records. A bundle
/// whose files are not exactly its manifest's is refused as an error, and nothing of it is kept.
pub fn verify_bundle(bundle: &Path) -> Result<(Opened, Verification), BundleError> {
    let opened = open(bundle)?;
    let (differences, records) = check_records(opened.folder(), &opened.manifest);
    let verification = Verification {
        digest: opened.manifest.digest,
        files: opened.manifest.entries.len() as u64,
        records,
        differences,
    };
    Ok((opened, verification))
}

/// Whether `path` (a path in a bundle) is one of a campaign folder's caches ([`CACHE_FILES`]).
fn is_cache(path: &str) -> bool {
    path.strip_prefix("campaigns/")
        .and_then(|inside| inside.split_once('/'))
        .is_some_and(|(_, relative)| CACHE_FILES.contains(&relative))
}

/// Verifies an unpacked bundle: its manifest, every file against it (each difference listed), then the records.
pub fn verify_folder(folder: &Path) -> Result<Verification, BundleError> {
    let manifest = read_manifest_file(folder)?;
    let found = std::cell::RefCell::new(Vec::new());
    let mut expected = manifest.entries.iter().peekable();
    for top in crate::manifest::TOP_FOLDERS {
        let dir = folder.join(top);
        if !dir.is_dir() {
            continue;
        }
        walk_sorted(
            &dir,
            top,
            &[],
            &mut |path, source| {
                // A reading of the unpacked folder may leave the caches a bundle leaves out: they are not its.
                if is_cache(&path) && !manifest.entries.iter().any(|listed| listed.path.as_str() == path) {
                    return Ok(());
                }
                let mut differences = found.borrow_mut();
                while let Some(wanted) = expected.next_if(|wanted| wanted.path.as_str().as_bytes() < path.as_bytes()) {
                    differences.push(Difference::File(BundleError::Removed { path: wanted.path.to_string() }));
                }
                let Some(wanted) = expected.next_if(|wanted| wanted.path.as_str() == path) else {
                    differences.push(Difference::File(BundleError::Added { path }));
                    return Ok(());
                };
                let (digest, size, _) = hash_file(&source)?;
                if size != wanted.size {
                    let what = format!("it holds {size} bytes, and the manifest says {}", wanted.size);
                    differences.push(Difference::File(BundleError::Modified { path, what }));
                } else if digest != wanted.sha256 {
                    let what = format!("its SHA-256 is {digest}, and the manifest says {}", wanted.sha256);
                    differences.push(Difference::File(BundleError::Modified { path, what }));
                }
                Ok(())
            },
            &mut |path, odd| {
                let kind = odd.describe().trim_start_matches("a ").to_owned();
                found.borrow_mut().push(Difference::File(BundleError::NotAFile { path, kind }));
                Ok(())
            },
        )?;
    }
    let mut differences = found.into_inner();
    differences.extend(expected.map(|wanted| Difference::File(BundleError::Removed { path: wanted.path.to_string() })));
    let (more, records) = check_records(folder, &manifest);
    differences.extend(more);
    Ok(Verification { digest: manifest.digest, files: manifest.entries.len() as u64, records, differences })
}

/// Reads and checks `manifest.json` at the root of an unpacked bundle.
pub fn read_manifest_file(folder: &Path) -> Result<Manifest, BundleError> {
    let path = folder.join(MANIFEST_FILE);
    let (mut file, size, _) = open_regular(&path)?;
    if size > crate::manifest::MAX_MANIFEST_BYTES {
        return Err(BundleError::Bomb { what: format!("{} is {size} bytes", path.display()) });
    }
    let bytes = if size <= metewand_runtime::document::MAX_DOCUMENT_BYTES {
        read_document(&mut file).map_err(|error| BundleError::BadManifest { reason: error.to_string() })?
    } else {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut file, &mut bytes).map_err(BundleError::io("read", &path))?;
        bytes
    };
    Manifest::from_bytes(&bytes)
}

/// Checks the records of an unpacked bundle whose files are its manifest's: returns the differences and the
/// number of records read.
pub fn check_records(folder: &Path, manifest: &Manifest) -> (Vec<Difference>, u64) {
    let mut differences = check_repository(folder, manifest);
    let mut records = 0;
    let workers: BTreeSet<&str> = manifest.document.workers.iter().map(|worker| worker.worker_id.as_str()).collect();
    for campaign in &manifest.document.campaigns {
        let prefix = format!("campaigns/{}", campaign.folder.as_str());
        let base = folder.join(&prefix);
        let differ = |path: String, what: String| Difference::Record { path, what };
        let file = match read_campaign(&base) {
            Ok(file) => file,
            Err(error) => {
                differences.push(differ(format!("{prefix}/campaign.json"), error.to_string()));
                continue;
            }
        };
        if file.name.as_str() != campaign.name {
            let what = format!("names campaign {:?}, and the manifest {:?}", file.name, campaign.name);
            differences.push(differ(format!("{prefix}/campaign.json"), what));
        }
        for planned in &file.attempts {
            let id = planned.id.to_string();
            let at = format!("{prefix}/attempts/{id}");
            let record = match read_attempt(&base, &id) {
                Found::Record(record) => record,
                Found::Invalid(why) => {
                    differences.push(differ(format!("{at}/attempt.json"), why));
                    continue;
                }
                Found::Missing | Found::Unfinished => continue,
            };
            records += 1;
            let ran = [
                ("implementation", &record.implementation.worker_id),
                ("problem_evaluator", &record.evaluator.worker_id),
                ("dataset_materializer", &record.dataset.materializer.worker_id),
            ];
            for (role, worker) in ran {
                if !workers.contains(worker.as_str()) {
                    let what =
                        format!("its {role} ran worker {}, which is none of the bundled repository's", worker.as_str());
                    differences.push(differ(format!("{at}/attempt.json"), what));
                }
            }
            for file in record.implementation.files.iter().flat_map(|files| files.iter()) {
                let path = format!("{at}/work/result/{}", file.path.as_str());
                match manifest.find(&path) {
                    None => differences.push(differ(path, "is named by the record and missing".to_owned())),
                    Some(entry) if entry.size != u64::from(file.size) || entry.sha256 != file.sha256 => {
                        differences.push(differ(path, "differs from the record's size and SHA-256".to_owned()))
                    }
                    Some(_) => {}
                }
            }
            let metrics_path = format!("{at}/work/metrics/metrics.json");
            if manifest.find(&metrics_path).is_some() {
                match read_metrics(&folder.join(&metrics_path)) {
                    Err(what) => differences.push(differ(metrics_path, what)),
                    Ok(metrics) if !same_metrics(record.metrics.as_ref(), &metrics) => differences.push(differ(
                        metrics_path,
                        "holds other metrics than the record (the record's were edited, or the file was)".to_owned(),
                    )),
                    Ok(_) => {}
                }
            }
        }
    }
    (differences, records)
}

/// Checks the bundled repository: it checks, and its workers are the manifest's, each with the identity and source
/// tree the manifest names.
fn check_repository(folder: &Path, manifest: &Manifest) -> Vec<Difference> {
    let toml = "repository/metewand.toml".to_owned();
    let repository = match CheckedRepository::load(&folder.join("repository")) {
        Ok(repository) => repository,
        Err(error) => {
            return vec![Difference::Record { path: toml, what: format!("the repository does not check: {error}") }];
        }
    };
    let mut differences = Vec::new();
    let listed: BTreeSet<&str> = manifest.document.workers.iter().map(|worker| worker.name.as_str()).collect();
    for (name, worker) in repository.workers() {
        let Some(entry) = manifest.document.workers.iter().find(|entry| entry.name.as_str() == name) else {
            differences.push(Difference::Record {
                path: toml.clone(),
                what: format!("declares worker {name}, which the manifest does not list"),
            });
            continue;
        };
        if worker.identity() != &entry.worker_id || worker.source_tree().digest() != entry.tree.as_str() {
            differences.push(Difference::Record {
                path: entry.source.to_string(),
                what: format!(
                    "worker {name} has identity {} and source tree {}, and the manifest says {} and {}",
                    worker.identity().as_str(),
                    worker.source_tree().digest(),
                    entry.worker_id.as_str(),
                    entry.tree.as_str()
                ),
            });
        }
    }
    for name in listed {
        if !repository.workers().contains_key(name) {
            differences.push(Difference::Record {
                path: toml.clone(),
                what: format!("has no worker {name}, which the manifest lists"),
            });
        }
    }
    differences
}

/// Whether a record's metrics are the metrics document's: compared as values, in their canonical form (a number is
/// its value, however it is written).
fn same_metrics(recorded: Option<&metewand_protocol::strict::JsonObject>, document: &Metrics) -> bool {
    recorded.is_some_and(|recorded| {
        let recorded = serde_json::to_value(recorded).expect("metrics serialize");
        let found = serde_json::to_value(&document.metrics).expect("metrics serialize");
        metewand_protocol::to_canonical_vec(&recorded) == metewand_protocol::to_canonical_vec(&found)
    })
}

/// Reads a metrics document through its generated type.
fn read_metrics(path: &Path) -> Result<Metrics, String> {
    let (mut file, _, _) = open_regular(path).map_err(|error| error.to_string())?;
    let bytes = read_document(&mut file).map_err(|error| error.to_string())?;
    let value = metewand_protocol::parse(&bytes).map_err(|error| format!("is not a valid document: {error}"))?;
    serde_json::from_value(value).map_err(|error| format!("is not a valid metrics document: {error}"))
}
