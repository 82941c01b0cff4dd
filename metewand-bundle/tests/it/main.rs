//! `metewand-bundle`'s tests: bundles of synthetic campaign folders of a copy of the golden repository, made,
//! unpacked and verified, and then tampered with one way at a time, each refused for what it is.

#![allow(clippy::disallowed_methods, reason = "tests make and read their own files in temporary folders")]

mod records;
mod round_trip;
mod tamper;

use std::fs;
use std::path::{Path, PathBuf};

use metewand_bundle::{BundleRequest, Written};
use metewand_runtime::repository::CheckedRepository;
use metewand_testkit::synth::{Campaign, Planned, State, as_run_by, write_campaign};
use serde_json::Value;

/// A campaign folder whose records are consistent with a copy of the golden repository: they name its workers,
/// and each result and metrics file they name is in the folder.
pub struct Fixture {
    /// Holds everything.
    pub dir: tempfile::TempDir,
    /// The repository.
    pub repo: PathBuf,
    /// The campaign folder.
    pub campaign: PathBuf,
    /// The attempts' ids, in plan order.
    pub ids: Vec<String>,
}

impl Fixture {
    /// A fixture of three attempts: reached, not reached, and failed.
    #[allow(clippy::new_without_default, reason = "a fixture is made, not defaulted")]
    pub fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        metewand_testkit::copy_tree(&metewand_testkit::golden(), &repo);
        let checked = CheckedRepository::load(&repo).unwrap();
        let id = |name: &str| checked.workers()[name].identity().as_str().to_owned();
        let campaign = dir.path().join("main");
        let repository = repo.canonicalize().unwrap();
        let settings = Campaign { repository: repository.to_str().unwrap(), ..Campaign::default() };
        let planned = [
            Planned::new("ls", "small", "exact").error(0.5),
            Planned::new("ls", "small", "exact").seed(1).state(State::Record("not_reached")),
            Planned::new("ls", "small", "exact").seed(2).state(State::Record("failed")),
        ];
        let ids = write_campaign(&campaign, &settings, &planned);
        as_run_by(&campaign, &ids, &id("exact-solver"), &id("judge"), &id("gen"));
        Fixture { dir, repo, campaign, ids }
    }

    /// Bundles the campaign into `name` beside it.
    pub fn bundle(&self, name: &str) -> (PathBuf, Written) {
        let out = self.dir.path().join(name);
        let request = BundleRequest { campaigns: vec![self.campaign.clone()], with_datasets: false, state_dir: None };
        let written = metewand_bundle::bundle(&request, &out).unwrap();
        (out, written)
    }

    /// A path in the fixture's folder.
    pub fn at(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The record of the `index`th attempt.
    pub fn record(&self, index: usize) -> PathBuf {
        self.campaign.join("attempts").join(&self.ids[index]).join("attempt.json")
    }
}

/// Reads a JSON file.
pub fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&fs::read(path).unwrap()).unwrap()
}

/// Writes a JSON file.
pub fn write_json(path: &Path, value: &Value) {
    fs::write(path, serde_json::to_vec(value).unwrap()).unwrap();
}

/// Every regular file beneath `root`, with its bytes, by path relative to it.
pub fn files(root: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            if entry.file_type().unwrap().is_dir() {
                stack.push(path);
            } else {
                let relative = path.strip_prefix(root).unwrap().to_str().unwrap().to_owned();
                out.insert(relative, fs::read(&path).unwrap());
            }
        }
    }
    out
}
