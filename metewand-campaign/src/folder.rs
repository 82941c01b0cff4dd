//! The campaign folder: `campaign.json` (the plan and the environment of each run), `attempts/<attempt id>/`
//! (ordinary attempt folders), `datasets/<key>.json` (each materialization's record, its session's folder beside
//! it as `datasets/<key>/`), `results.csv`, `results.jsonl` and `profiles.csv`, and `.lock`, held with `flock` by
//! the one run writing the folder (released by the kernel however that run ends, even by SIGKILL).

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use metewand_runtime::attempt::DatasetMaterialization;
use metewand_runtime::document::read_document;
use metewand_runtime::files::Dir;
use metewand_runtime::identity::{AttemptId, DatasetKey};
use metewand_runtime::protocol::common::Format;
use metewand_runtime::protocol::strict::SafeUint;

use crate::environment::Environment;
pub use crate::own::{Found, read_attempt};
pub(crate) use crate::own::{fs_io, open_own};
use crate::plan::CampaignPlan;

/// The plan file in a campaign folder.
pub const CAMPAIGN_FILE: &str = "campaign.json";
/// The lock file.
pub const LOCK_FILE: &str = ".lock";

/// What is wrong with a campaign folder; nothing was started.
#[derive(Debug, thiserror::Error)]
pub enum FolderError {
    /// Another run holds the folder's lock.
    #[error("the campaign folder {} is in use by another run (its .lock is held); wait for it or stop it", path.display())]
    Locked {
        /// The folder.
        path: PathBuf,
    },
    /// The folder holds another repository's or another campaign's attempts.
    #[error(
        "the campaign folder {} holds campaign {found_name:?} of repository {found_repository}, not campaign \
         {name:?} of repository {repository}; give another folder with --out",
        path.display()
    )]
    Foreign {
        /// The folder.
        path: PathBuf,
        /// What it holds.
        found_name: String,
        /// Its repository.
        found_repository: String,
        /// What was asked.
        name: String,
        /// The repository asked.
        repository: String,
    },
    /// `campaign.json` is not a campaign file.
    #[error("{} is not a campaign file: {message}", path.display())]
    BadPlanFile {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// The folder is not a campaign folder (it has no `campaign.json`, or holds other files and no plan).
    #[error("{} is not a campaign folder: it has no {CAMPAIGN_FILE}; give a new or empty folder", path.display())]
    NotACampaign {
        /// The folder.
        path: PathBuf,
    },
    /// A folder read as a campaign folder has no `campaign.json`.
    #[error(
        "{} is not a campaign folder: it has no {CAMPAIGN_FILE}; give the folder a campaign run wrote \
         (STATE/campaigns/NAME/), or the repository and the campaign's name",
        path.display()
    )]
    NoPlan {
        /// The folder.
        path: PathBuf,
    },
    /// An I/O failure.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// What was being done.
        action: &'static str,
        /// On what.
        path: PathBuf,
        /// The system's reason.
        source: io::Error,
    },
}

fn io_error<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(io::Error) -> FolderError + 'a {
    move |source| FolderError::Io { action, path: path.to_owned(), source }
}

/// `campaign.json`, read and written as its schema's generated type.
pub use metewand_runtime::protocol::generated::campaign_file::{CampaignFile, Order, RuleInterleaved, Run};

/// Reads `campaign.json` of `folder`, its format checked.
pub fn read_campaign(folder: &Path) -> Result<CampaignFile, FolderError> {
    read_campaign_bytes(folder).map(|(file, _, _)| file)
}

/// [`read_campaign`], with the bytes it was parsed from.
pub(crate) fn read_campaign_bytes(
    folder: &Path,
) -> Result<(CampaignFile, Vec<u8>, Option<rustix::fs::Stat>), FolderError> {
    let path = folder.join(CAMPAIGN_FILE);
    let (bytes, stat) = read_plan_file_with_stat(folder)?;
    let file = parse_own(&bytes).map_err(|message| FolderError::BadPlanFile { path, message })?;
    Ok((file, bytes, stat))
}

/// Parses one of Metewand's own documents as its generated type, saying first whether its `format` is one this
/// version reads: a document another version wrote is refused as such, not as a mismatch somewhere inside it.
pub(crate) fn parse_own<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    #[derive(serde::Deserialize)]
    struct Format {
        format: serde_json::Value,
    }
    if let Ok(Format { format }) = serde_json::from_slice::<Format>(bytes)
        && format != serde_json::json!(1)
    {
        return Err(format!(
            "format {format} is not one this metewand reads (it reads format 1); use the metewand that wrote it"
        ));
    }
    serde_json::from_slice(bytes).map_err(|error| error.to_string())
}

/// Writes `bytes` to `folder/name` atomically: a temporary file, fsync, rename.
pub fn write_atomically(
    folder: &Path,
    name: &str,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let dir = Dir::open(folder).map_err(fs_io)?;
    let temporary = format!(".{name}.tmp");
    // Whatever is at the temporary name (a leftover, or a link put there) is removed, never written through.
    dir.remove_file(&temporary).map_err(fs_io)?;
    let result = (|| {
        let file = dir.create_file(&temporary).map_err(fs_io)?;
        let mut writer = BufWriter::new(file);
        write(&mut writer)?;
        let file = writer.into_inner().map_err(io::IntoInnerError::into_error)?;
        file.sync_all()?;
        rustix::fs::renameat(&dir, temporary.as_str(), &dir, name)?;
        dir.sync().map_err(fs_io)
    })();
    if result.is_err() {
        let _ = dir.remove_file(&temporary);
    }
    result
}

/// A campaign folder this run holds the lock of.
#[derive(Debug)]
pub struct CampaignFolder {
    path: PathBuf,
    _lock: File,
    index: crate::index::IndexWriter,
}

impl CampaignFolder {
    /// Creates or opens the folder for `plan`, takes its lock, refuses one holding another repository's or
    /// campaign's attempts, and records the plan and this run's environment in `campaign.json`.
    pub fn open(
        path: &Path,
        plan: &CampaignPlan<'_>,
        concurrency: u64,
        environment: Environment,
    ) -> Result<CampaignFolder, FolderError> {
        // A folder that is not a campaign folder yet must hold nothing but what an interrupted first run leaves:
        // an unrelated folder is never written into.
        if !path.join(CAMPAIGN_FILE).exists()
            && let Ok(entries) = fs::read_dir(path)
        {
            let ours = |name: &str| matches!(name, "attempts" | "datasets" | LOCK_FILE) || name.starts_with('.');
            let foreign = entries.filter_map(Result::ok).any(|entry| !ours(&entry.file_name().to_string_lossy()));
            if foreign {
                return Err(FolderError::NotACampaign { path: path.to_owned() });
            }
        }
        fs::create_dir_all(path.join("attempts")).map_err(io_error("create", path))?;
        fs::create_dir_all(path.join("datasets")).map_err(io_error("create", path))?;
        let path = path.canonicalize().map_err(io_error("resolve", path))?;
        let (lock, lock_path) = open_lock(&path)?;
        match rustix::fs::flock(&lock, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => {}
            Err(rustix::io::Errno::WOULDBLOCK) => return Err(FolderError::Locked { path }),
            Err(error) => return Err(FolderError::Io { action: "lock", path: lock_path, source: error.into() }),
        }
        let repository = plan.repository().root().to_string_lossy().into_owned();
        let mut runs = Vec::new();
        match read_campaign(&path) {
            Ok(found) => {
                if found.name.as_str() != plan.name() || found.repository != repository {
                    return Err(FolderError::Foreign {
                        path,
                        found_name: String::from(found.name),
                        found_repository: found.repository,
                        name: plan.name().to_owned(),
                        repository,
                    });
                }
                runs = found.runs;
            }
            Err(FolderError::NoPlan { .. }) => {
                // A folder with attempts but no campaign.json is not one this program made: refuse to mix.
                let foreign = fs::read_dir(path.join("attempts")).map_err(io_error("read", &path))?.next().is_some();
                if foreign {
                    return Err(FolderError::NotACampaign { path });
                }
            }
            Err(error) => return Err(error),
        }
        runs.push(Run {
            started_at: metewand_runtime::attempt::timestamp(std::time::SystemTime::now()),
            concurrency: SafeUint::try_from(concurrency).unwrap_or(SafeUint::MAX),
            environment,
            order: Some(Order {
                rule: RuleInterleaved,
                seed: SafeUint::try_from(crate::order::order_seed(plan.name())).expect("53 bits"),
            }),
        });
        let file = CampaignFile {
            format: Format,
            name: plan.definition().name.clone(),
            repository,
            definition: plan.definition().clone(),
            attempts: plan.attempts().iter().map(|attempt| plan.entry(attempt)).collect(),
            runs,
        };
        write_atomically(&path, CAMPAIGN_FILE, |out| {
            serde_json::to_writer(&mut *out, &file).map_err(io::Error::other)?;
            out.write_all(b"\n")
        })
        .map_err(io_error("write", &path.join(CAMPAIGN_FILE)))?;
        let index = crate::index::IndexWriter::new(&path, "run");
        Ok(CampaignFolder { path, _lock: lock, index })
    }

    /// Joins the campaign in `path` as one of several processes writing attempts into it at once (the tasks of a
    /// Slurm submission): takes the lock shared, waiting up to `wait` for a run or a submission holding it
    /// exclusively, and leaves `campaign.json` as it is (it must exist).
    pub fn join(path: &Path, wait: std::time::Duration) -> Result<CampaignFolder, FolderError> {
        read_campaign(path)?;
        let path = path.canonicalize().map_err(io_error("resolve", path))?;
        let (lock, lock_path) = open_lock(&path)?;
        let deadline = std::time::Instant::now() + wait;
        loop {
            match rustix::fs::flock(&lock, rustix::fs::FlockOperation::NonBlockingLockShared) {
                Ok(()) => {
                    let index = crate::index::IndexWriter::new(&path, "task");
                    return Ok(CampaignFolder { path, _lock: lock, index });
                }
                Err(rustix::io::Errno::WOULDBLOCK) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(std::time::Duration::from_millis(100));
                }
                Err(rustix::io::Errno::WOULDBLOCK) => return Err(FolderError::Locked { path }),
                Err(error) => return Err(FolderError::Io { action: "lock", path: lock_path, source: error.into() }),
            }
        }
    }

    /// The folder's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// This process's part of the folder's index.
    pub fn index(&self) -> &crate::index::IndexWriter {
        &self.index
    }

    /// `attempts/<id>/`.
    pub fn attempt_dir(&self, id: &AttemptId) -> PathBuf {
        self.path.join("attempts").join(id.as_str())
    }
}

/// Opens (creating it if needed) the lock file of the canonical folder `path`.
fn open_lock(path: &Path) -> Result<(File, PathBuf), FolderError> {
    let lock_path = path.join(LOCK_FILE);
    #[allow(
        clippy::disallowed_methods,
        reason = "the lock file of a campaign folder, where no worker writes (workers reach only their attempt's work folders)"
    )]
    let lock = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(io_error("open", &lock_path))?;
    Ok((lock, lock_path))
}

/// The bytes of `campaign.json` in `folder`, read without following a link or blocking (it is not bounded like
/// other documents: a plan of a million attempts is larger), with the file's status as it was before they were
/// read (when it could be taken).
pub(crate) fn read_plan_file_with_stat(folder: &Path) -> Result<(Vec<u8>, Option<rustix::fs::Stat>), FolderError> {
    let path = folder.join(CAMPAIGN_FILE);
    let mut file = match open_own(folder, CAMPAIGN_FILE) {
        Ok(Some(file)) => file,
        Ok(None) => return Err(FolderError::NoPlan { path: folder.to_owned() }),
        Err(error) => {
            return Err(FolderError::Io { action: "read", path, source: io::Error::other(error.to_string()) });
        }
    };
    let stat = rustix::fs::fstat(&file).ok();
    let mut bytes = Vec::new();
    io::Read::read_to_end(&mut file, &mut bytes).map_err(io_error("read", &path))?;
    Ok((bytes, stat))
}

/// Reads `datasets/<key>.json`, if present and readable.
pub fn read_materialization(folder: &Path, key: &DatasetKey) -> Option<DatasetMaterialization> {
    let mut file = open_own(&folder.join("datasets"), &format!("{key}.json")).ok()??;
    let bytes = read_document(&mut file).ok()?;
    serde_json::from_slice::<DatasetMaterialization>(&bytes).ok().filter(|record| record.key == *key)
}
