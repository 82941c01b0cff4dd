//! Identities, exactly as docs/decisions/identities.md lists their preimages: each one is SHA-256 over the canonical JSON (RFC 8785)
//! of a fixed preimage, so any implementation that builds the same preimage gets the same identity.
//!
//! - **Source tree digest** `sha256:<hex>` over `[{"executable","path","sha256","size"}, ...]`, sorted by the UTF-8
//!   bytes of the path.
//! - **Resolved worker identity** `mw1-resolved-worker-<hex>` over
//!   `{"command", "env", "role", "source"}`, with `command` and `env` as declared (before `${repo}` expansion),
//!   `"network": true` added only for a worker that declares it, `"syscalls"` (the groups it declared, by name, in
//!   name order) only for a worker that declares some, and `"include"` (each include folder as declared mapped to
//!   its tree digest) only for a worker that declares some (so a worker without those keys keeps its identity), and
//!   `"environment"` (the digest of the Python environment its interpreter imports, or of its `python.requirements`
//!   declaration when it has one) only for a worker that declares `identity = ["environment"]`.
//! - **Problem contract id** `mw1-problem-contract-<hex>` over
//!   `{"evaluator", "metric_schema", "parameters_schema", "result_schema", "schemas"}`.
//! - **Dataset key** `<hex>` over
//!   `{"materializer", "output_schema", "parameters", "parameters_schema", "schemas", "seed"}`.
//! - **Attempt id** `mw1-attempt-<hex>` (a campaign's attempts) over
//!   `{"contract_id", "dataset_key", "implementation", "implementation_parameters", "implementation_seed",
//!   "problem_parameters", "repetition"}`, with `implementation` the implementation's resolved worker identity and
//!   `repetition` counted from 1.
//!
//! - **External folder identity** `<hex>` over `{"definition", "workers"}`: the SHA-256 of the folder's
//!   `metewand-implementation.toml` as read, and each of its workers' names mapped to its resolved worker identity
//!   (which covers the worker's source tree beneath the folder), with `"schemas"` (each parameters schema its
//!   implementations name, by id, mapped to the digest of its canonical JSON) only where they name some.
//!
//! `schemas` maps the id of every named schema, and of every schema reachable from them through `$ref`, to its
//! document.

use std::collections::BTreeMap;

use metewand_protocol::common::Role;
pub use metewand_protocol::common::{AttemptId, ProblemContractId, WorkerId};
use metewand_protocol::strict::{JsonObject, SafeUint};
use metewand_protocol::{write_canonical, write_canonical_object, write_canonical_string};
use serde_json::{Value, json};

use crate::files::Sha256Digest;

/// The digest of the canonical JSON of a value.
fn digest(value: &Value) -> Sha256Digest {
    Sha256Digest::of(&metewand_protocol::to_canonical_vec(value))
}

/// One regular file of a source tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    /// The path relative to the source directory, `/`-separated.
    pub path: String,
    /// The size in bytes.
    pub size: u64,
    /// The contents' digest.
    pub sha256: Sha256Digest,
    /// Whether any execute bit (owner, group or other) is set in the file's mode.
    pub executable: bool,
}

/// A worker's source directory as hashed: its files in UTF-8 byte order of their paths, and the digest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceTree {
    files: Vec<SourceFile>,
    digest: Sha256Digest,
}

impl SourceTree {
    /// The tree of these files (sorted here, whatever their order).
    ///
    /// ```
    /// use metewand_protocol::Sha256Digest;
    /// use metewand_repository::identity::{SourceFile, SourceTree};
    ///
    /// let file = SourceFile { path: "gen.py".into(), size: 3, sha256: Sha256Digest::of(b"abc"), executable: true };
    /// let tree = SourceTree::new(vec![file]);
    /// let preimage =
    ///     format!(r#"[{{"executable":true,"path":"gen.py","sha256":"{}","size":3}}]"#, Sha256Digest::of(b"abc"));
    /// assert_eq!(tree.digest(), format!("sha256:{}", Sha256Digest::of(preimage.as_bytes())));
    /// ```
    pub fn new(mut files: Vec<SourceFile>) -> SourceTree {
        files.sort_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
        let records: Vec<Value> = files
            .iter()
            .map(|file| {
                json!({
                    "executable": file.executable,
                    "path": file.path,
                    "sha256": file.sha256.to_string(),
                    "size": file.size,
                })
            })
            .collect();
        SourceTree { digest: digest(&Value::Array(records)), files }
    }

    /// The tree of the files a walk of `directory` found, each hashed with the checked read on at most `threads`
    /// threads; the error names the first file (in path order) that changed or could not be read.
    pub fn of_walked(
        directory: std::os::fd::BorrowedFd<'_>,
        inventory: &crate::files::walk::Inventory,
        threads: std::num::NonZeroUsize,
    ) -> Result<SourceTree, (String, crate::files::FileError)> {
        use crate::files::read::{FileCheck, ReadControl, hash_all};
        let paths: Vec<crate::files::RelativePath> = inventory
            .files
            .keys()
            .map(|path| crate::files::RelativePath::new(path).expect("walked paths are relative"))
            .collect();
        let checks: Vec<FileCheck<'_>> = paths
            .iter()
            .map(|path| FileCheck {
                path,
                walked: &inventory.files[path.as_str()],
                size: None,
                sha256: None,
                single_link: false,
                max_size: None,
            })
            .collect();
        let hashed = hash_all(directory, &checks, threads, ReadControl::default())
            .map_err(|(index, error)| (paths[index].as_str().to_owned(), error))?;
        let files = paths
            .into_iter()
            .zip(hashed)
            .map(|(path, hashed)| SourceFile {
                path: path.as_str().to_owned(),
                size: hashed.size,
                sha256: hashed.sha256,
                executable: hashed.executable,
            })
            .collect();
        Ok(SourceTree::new(files))
    }

    /// The files, in UTF-8 byte order of their paths.
    pub fn files(&self) -> &[SourceFile] {
        &self.files
    }

    /// The digest as written in identities: `sha256:<hex>`.
    pub fn digest(&self) -> String {
        format!("sha256:{}", self.digest)
    }

    /// The digest as the attempt record holds it (`sha256:<hex>`, the same text as [`digest`](SourceTree::digest)).
    pub fn tree_digest(&self) -> metewand_protocol::generated::attempt_record::TreeDigest {
        self.digest.into()
    }
}

/// A dataset key: 64 lowercase hex digits, the name of the dataset's folder in the store (the schemas' `sha256`).
pub type DatasetKey = Sha256Digest;

/// The resolved worker identity of a declared command (whether Metewand's command adapter runs it, and the file
/// its data is read from),
/// environment, network permission and system calls, role, source tree (with the digest of its Python environment,
/// for a worker whose identity covers it) and include folders (each its path as declared and its tree).
pub fn worker_identity(
    (command, adapter, result_data): (&[String], bool, Option<&str>),
    env: &BTreeMap<String, String>,
    (network, syscalls): (bool, crate::protocol::declared::SyscallGroups),
    role: Role,
    (source, environment): (&SourceTree, Option<&Sha256Digest>),
    includes: &[(&str, &SourceTree)],
) -> WorkerId {
    let mut preimage = json!({"command": command, "env": env, "role": role.to_string(), "source": source.digest()});
    // Only a worker that declares `identity = ["environment"]` has the digest of what its interpreter imports.
    if let Some(environment) = environment {
        preimage["environment"] = Value::from(environment.to_string());
    }
    if network {
        preimage["network"] = Value::Bool(true);
    }
    // A command run by the adapter is another worker than the same words spoken to directly.
    if adapter {
        preimage["adapter"] = Value::from("command");
    }
    if let Some(file) = result_data {
        preimage["result_data"] = Value::from(file);
    }
    if !syscalls.is_empty() {
        preimage["syscalls"] = json!(syscalls.iter().map(|group| group.to_string()).collect::<Vec<_>>());
    }
    if !includes.is_empty() {
        let folders: BTreeMap<&str, String> = includes.iter().map(|(path, tree)| (*path, tree.digest())).collect();
        preimage["include"] = json!(folders);
    }
    WorkerId::from(digest(&preimage))
}

/// The identity of an external folder: its definition file's digest, the identities of the workers it declares, by
/// name, and the parameters schemas its implementations name (each id mapped to its canonical JSON's digest). Every id planned from the folder follows from these, so a folder with the same identity plans the same
/// attempts.
pub fn external_identity(
    definition: &Sha256Digest,
    workers: &BTreeMap<&str, &WorkerId>,
    schemas: &BTreeMap<&str, &Value>,
) -> Sha256Digest {
    let mut preimage = json!({"definition": definition.to_string(), "workers": workers});
    // A folder whose implementations name no parameters schema keeps the two-key preimage.
    if !schemas.is_empty() {
        let digests: BTreeMap<&str, String> =
            schemas.iter().map(|(id, document)| (*id, digest(document).to_string())).collect();
        preimage["schemas"] = json!(digests);
    }
    digest(&preimage)
}

/// The problem contract id of an evaluator and a problem's schemas; `schemas` is the closure of the three named
/// schemas through `$ref` (see [`SchemaCatalog::closure`](crate::catalog::SchemaCatalog::closure)).
pub fn problem_contract_id(
    evaluator: &WorkerId,
    metric_schema: &str,
    parameters_schema: Option<&str>,
    result_schema: &str,
    schemas: &BTreeMap<String, Value>,
) -> ProblemContractId {
    let preimage = json!({
        "evaluator": evaluator.as_str(),
        "metric_schema": metric_schema,
        "parameters_schema": parameters_schema,
        "result_schema": result_schema,
        "schemas": schemas,
    });
    ProblemContractId::from(digest(&preimage))
}

/// The closure of a definition's named schemas through `$ref`, with its canonical JSON: a grid's points share one
/// closure, and each of their dataset keys would otherwise write it again.
#[derive(Clone, Debug)]
pub struct SchemaClosure {
    schemas: BTreeMap<String, Value>,
    canonical: Vec<u8>,
}

impl SchemaClosure {
    /// The closure of these schemas, by id.
    pub fn new(schemas: BTreeMap<String, Value>) -> SchemaClosure {
        let canonical = metewand_protocol::to_canonical_vec(&json!(schemas));
        SchemaClosure { schemas, canonical }
    }

    /// The schemas by id.
    pub fn schemas(&self) -> &BTreeMap<String, Value> {
        &self.schemas
    }
}

/// The dataset key of a materializer, a dataset definition's schemas and parameters, and a seed; `schemas` is the
/// closure of the named schemas through `$ref`.
pub fn dataset_key(
    materializer: &WorkerId,
    output_schema: &str,
    parameters: &JsonObject,
    parameters_schema: Option<&str>,
    schemas: &SchemaClosure,
    seed: SafeUint,
) -> DatasetKey {
    // The preimage is the canonical object of these six members. The four before `schemas` in key order are written
    // as one object whose closing brace is then replaced by the closure's canonical bytes and the seed.
    let head = json!({
        "materializer": materializer.as_str(),
        "output_schema": output_schema,
        "parameters": parameters,
        "parameters_schema": parameters_schema,
    });
    let mut preimage = metewand_protocol::to_canonical_vec(&head);
    preimage.pop();
    preimage.extend_from_slice(b",\"schemas\":");
    preimage.extend_from_slice(&schemas.canonical);
    preimage.extend_from_slice(format!(",\"seed\":{}}}", seed.get()).as_bytes());
    Sha256Digest::of(&preimage)
}

/// The stable id of a campaign's attempt: one cell (problem contract and parameters, dataset key, implementation
/// worker and parameters, implementation seed) and its repetition, from 1. The dataset's name, seed and
/// materializer enter through its key, the problem's evaluator and schemas through its contract id. `profile` is the
/// most checkpoints of a streamed attempt ([`Problem::profile_for`](crate::Problem::profile_for)).
#[allow(clippy::too_many_arguments, reason = "each argument is one part of the preimage, named as it is there")]
pub fn attempt_id(
    contract_id: &ProblemContractId,
    problem_parameters: &JsonObject,
    dataset_key: &DatasetKey,
    implementation: &WorkerId,
    implementation_parameters: &JsonObject,
    implementation_seed: SafeUint,
    repetition: u64,
    profile: Option<u64>,
) -> AttemptId {
    // The preimage is the canonical object of these members, written member by member in their canonical order
    // (a plan of a million attempts computes a million ids: building each as a JSON value, then sorting and writing
    // it, was most of their cost). A streamed attempt is timed otherwise than its one-shot twin: it is another
    // attempt, with a `profile` member. An attempt that does not stream keeps the seven-member preimage, so that no
    // earlier id changes.
    let mut preimage = Vec::with_capacity(512);
    let member = |preimage: &mut Vec<u8>, name: &str| {
        preimage.push(if preimage.is_empty() { b'{' } else { b',' });
        write_canonical_string(name, preimage);
        preimage.push(b':');
    };
    member(&mut preimage, "contract_id");
    write_canonical_string(contract_id.as_str(), &mut preimage);
    member(&mut preimage, "dataset_key");
    write_canonical_string(&dataset_key.to_string(), &mut preimage);
    member(&mut preimage, "implementation");
    write_canonical_string(implementation.as_str(), &mut preimage);
    member(&mut preimage, "implementation_parameters");
    write_canonical_object(implementation_parameters, &mut preimage);
    member(&mut preimage, "implementation_seed");
    write_canonical(&Value::from(implementation_seed.get()), &mut preimage);
    member(&mut preimage, "problem_parameters");
    write_canonical_object(problem_parameters, &mut preimage);
    if let Some(checkpoints) = profile {
        member(&mut preimage, "profile");
        preimage.extend_from_slice(b"{\"checkpoints\":");
        write_canonical(&Value::from(checkpoints), &mut preimage);
        preimage.push(b'}');
    }
    member(&mut preimage, "repetition");
    write_canonical(&Value::from(repetition), &mut preimage);
    preimage.push(b'}');
    AttemptId::from(Sha256Digest::of(&preimage))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The preimage as a JSON value, canonicalized whole: what an attempt's id is defined as.
    #[allow(clippy::too_many_arguments, reason = "attempt_id's own arguments")]
    fn by_value(
        contract_id: &ProblemContractId,
        problem_parameters: &JsonObject,
        dataset_key: &DatasetKey,
        implementation: &WorkerId,
        implementation_parameters: &JsonObject,
        implementation_seed: SafeUint,
        repetition: u64,
        profile: Option<u64>,
    ) -> AttemptId {
        let mut preimage = json!({
            "contract_id": contract_id.as_str(),
            "dataset_key": dataset_key.to_string(),
            "implementation": implementation.as_str(),
            "implementation_parameters": implementation_parameters,
            "implementation_seed": implementation_seed.get(),
            "problem_parameters": problem_parameters,
            "repetition": repetition,
        });
        if let Some(checkpoints) = profile {
            preimage["profile"] = json!({ "checkpoints": checkpoints });
        }
        AttemptId::from(digest(&preimage))
    }

    #[test]
    fn an_attempt_id_written_member_by_member_is_the_id_of_its_preimage_as_a_value() {
        let contract: ProblemContractId = format!("mw1-problem-contract-{}", "a".repeat(64)).try_into().unwrap();
        let worker: WorkerId = format!("mw1-resolved-worker-{}", "b".repeat(64)).try_into().unwrap();
        let key = Sha256Digest::of(b"a dataset");
        let object = |value: Value| value.as_object().unwrap().clone();
        let parameters = [
            object(json!({})),
            object(json!({"tolerance": 1e-6, "alpha": [1, 2.5, "x"], "nested": {"b": null, "a": true}})),
            // Names out of UTF-8 order in UTF-16 order, and text that must be escaped.
            object(json!({"\u{e000}": 1, "\u{1f600}": 2, "quote\"": "line\nbreak\u{1}"})),
        ];
        for problem in &parameters {
            for implementation in &parameters {
                for seed in [0u64, 7, (1 << 53) - 1] {
                    for repetition in [1, 3, 1 << 53, (1 << 53) + 1, u64::MAX] {
                        for profile in [None, Some(0), Some(100)] {
                            let seed = SafeUint::try_from(seed).unwrap();
                            assert_eq!(
                                attempt_id(
                                    &contract,
                                    problem,
                                    &key,
                                    &worker,
                                    implementation,
                                    seed,
                                    repetition,
                                    profile
                                ),
                                by_value(&contract, problem, &key, &worker, implementation, seed, repetition, profile),
                                "{problem:?} {implementation:?} {seed:?} {repetition} {profile:?}"
                            );
                        }
                    }
                }
            }
        }
    }
}
