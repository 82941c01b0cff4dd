//! Identities, with each preimage built by hand here from the files and `metewand.toml` and hashed with sha2, and
//! the golden values pinned (computed independently from the same preimages).

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;

use metewand_protocol::strict::SafeUint;
use metewand_protocol::to_canonical_vec;
use metewand_repository::{CheckedRepository, SchemaCatalog};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::golden;

fn hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

fn canonical_hash(value: &Value) -> String {
    hex(&to_canonical_vec(value))
}

fn record(dir: &str, path: &str) -> Value {
    let file = golden().join(dir).join(path);
    let bytes = fs::read(&file).unwrap();
    let executable = fs::metadata(&file).unwrap().permissions().mode() & 0o111 != 0;
    json!({"executable": executable, "path": path, "sha256": hex(&bytes), "size": bytes.len()})
}

fn schema(file: &str) -> Value {
    serde_json::from_slice(&fs::read(golden().join("schemas").join(file)).unwrap()).unwrap()
}

const GEN_SOURCE: &str = "sha256:ebddfdcb087d91594a2a9ad550dffe1f5710df70f572ed418586b44f703a8e03";
const JUDGE_SOURCE: &str = "sha256:f41d5586ee03321865dc40ede90369d933550322424df7cb74e920f223be4fa3";
const SOLVER_SOURCE: &str = "sha256:3c9ce14a1fcbfde4d07e8f8ea48e2c0a70ac9a9674980df091968be4de51095e";
const GEN_ID: &str = "mw1-resolved-worker-55180c2b7b77b90cdd4c65eeae2ea4eaad6fa0b31dc54e1d37afe45f9e2f679c";
const JUDGE_ID: &str = "mw1-resolved-worker-033ebb9b6034aca6ac9908b1cf3f693f967cab6e07ce2398d842123b69406c9a";
const SOLVER_ID: &str = "mw1-resolved-worker-75816332861c35105a4e92153846975da91a6eafa90fe8b4f59c19a0822fd9a3";
const CONTRACT: &str = "mw1-problem-contract-d828d6736b93bd6828ca85e0310a27a3612e8f783b17946989e910ad95ac143d";
const KEY_0: &str = "128f0c323a6bcb4a478fa71b23a4f095920ea66f791cf396cd3660035dd474aa";
const KEY_17: &str = "a52df56bf29eb661d89d92f98690fb49cf07cc3946f4ad7e4fc466de82f6dbd2";

#[test]
fn source_tree_digests() {
    let repository = CheckedRepository::load(&golden()).unwrap();
    let solver = json!([record("workers/solver", "lib/util.py"), record("workers/solver", "solve.py")]);
    let expected = format!("sha256:{}", canonical_hash(&solver));
    assert_eq!(expected, SOLVER_SOURCE);
    assert_eq!(repository.worker("exact-solver").unwrap().source_tree().digest(), expected);
    let files = repository.worker("exact-solver").unwrap().source_tree().files();
    assert_eq!(files.iter().map(|f| f.path.as_str()).collect::<Vec<_>>(), ["lib/util.py", "solve.py"]);

    let gen_source = format!("sha256:{}", canonical_hash(&json!([record("workers/gen", "gen.py")])));
    assert_eq!(gen_source, GEN_SOURCE);
    assert_eq!(repository.worker("gen").unwrap().source_tree().digest(), gen_source);
    let judge_source = format!("sha256:{}", canonical_hash(&json!([record("workers/judge", "judge.py")])));
    assert_eq!(judge_source, JUDGE_SOURCE);
    assert_eq!(repository.worker("judge").unwrap().source_tree().digest(), judge_source);
}

#[test]
fn resolved_worker_identities_hash_the_declared_strings() {
    let repository = CheckedRepository::load(&golden()).unwrap();
    let gen_preimage = json!({
        "command": ["python3", "${repo}/workers/gen/gen.py"],
        "env": {"PYTHONPATH": "${repo}/../../sdk-python/src", "PRICE": "$${HOME} costs $5"},
        "role": "dataset_materializer",
        "source": GEN_SOURCE,
    });
    let expected = format!("mw1-resolved-worker-{}", canonical_hash(&gen_preimage));
    assert_eq!(expected, GEN_ID);
    assert_eq!(repository.worker("gen").unwrap().identity().as_str(), GEN_ID);
    let judge =
        json!({"command": ["python3", "judge.py"], "env": {}, "role": "problem_evaluator", "source": JUDGE_SOURCE});
    assert_eq!(format!("mw1-resolved-worker-{}", canonical_hash(&judge)), JUDGE_ID);
    assert_eq!(repository.worker("judge").unwrap().identity().as_str(), JUDGE_ID);
    let solver = json!({"command": ["python3", "solve.py", "--exact"], "env": {}, "role": "implementation", "source": SOLVER_SOURCE});
    assert_eq!(format!("mw1-resolved-worker-{}", canonical_hash(&solver)), SOLVER_ID);
    assert_eq!(repository.worker("exact-solver").unwrap().identity().as_str(), SOLVER_ID);
}

/// A worker that includes a folder: the folder's tree digest joins the preimage under `include`, keyed by the folder
/// as declared; editing the folder changes only the identities of the workers that include it.
#[test]
fn include_folders_are_part_of_the_identity_of_the_workers_that_include_them() {
    let copy = crate::golden_copy(|toml| {
        toml.replace("source = \"workers/judge\"\n", "source = \"workers/judge\"\ninclude = [\"workers/gen\"]\n")
    });
    let repository = CheckedRepository::load(copy.path()).unwrap();
    let judge = json!({
        "command": ["python3", "judge.py"],
        "env": {},
        "include": {"workers/gen": GEN_SOURCE},
        "role": "problem_evaluator",
        "source": JUDGE_SOURCE,
    });
    let judge_id = format!("mw1-resolved-worker-{}", canonical_hash(&judge));
    assert_eq!(repository.worker("judge").unwrap().identity().as_str(), judge_id);
    assert_ne!(judge_id, JUDGE_ID);
    let include = &repository.worker("judge").unwrap().includes()[0];
    assert_eq!(
        (include.path(), include.name(), include.tree().digest()),
        ("workers/gen", "gen", GEN_SOURCE.to_owned())
    );
    // Only the workers that include the folder see an edit of it (and gen, whose source it is).
    fs::write(copy.path().join("workers/gen/gen.py"), "print('gen v2')\n").unwrap();
    let edited = CheckedRepository::load(copy.path()).unwrap();
    assert_ne!(edited.worker("judge").unwrap().identity(), repository.worker("judge").unwrap().identity());
    assert_eq!(edited.worker("exact-solver").unwrap().identity().as_str(), SOLVER_ID);
}

#[test]
fn identities_do_not_depend_on_where_the_repository_lives() {
    let copy = crate::golden_copy(|toml| toml);
    let moved = CheckedRepository::load(copy.path()).unwrap();
    assert_eq!(moved.worker("gen").unwrap().identity().as_str(), GEN_ID);
    assert_eq!(moved.problem("ls").unwrap().contract_id().as_str(), CONTRACT);
    assert_eq!(moved.dataset("small").unwrap().key(SafeUint::ZERO).to_string(), KEY_0);
}

#[test]
fn problem_contract_ids_cover_the_schema_closure() {
    let repository = CheckedRepository::load(&golden()).unwrap();
    let metric =
        json!({"type": "object", "required": ["rmse"], "properties": {"rmse": {"type": "number", "minimum": 0}}});
    let metric_id = SchemaCatalog::inline_id(&metric);
    let schemas: BTreeMap<String, Value> =
        [(metric_id.clone(), metric), ("urn:example:result:1".to_owned(), schema("result.schema.json"))].into();
    let preimage = json!({
        "evaluator": JUDGE_ID,
        "metric_schema": metric_id,
        "parameters_schema": null,
        "result_schema": "urn:example:result:1",
        "schemas": schemas,
    });
    let expected = format!("mw1-problem-contract-{}", canonical_hash(&preimage));
    assert_eq!(expected, CONTRACT);
    assert_eq!(repository.problem("ls").unwrap().contract_id().as_str(), CONTRACT);
}

#[test]
fn dataset_keys_cover_parameters_schemas_and_seed() {
    let repository = CheckedRepository::load(&golden()).unwrap();
    let dataset = repository.dataset("small").unwrap();
    let schemas = json!({
        "urn:example:common:1": schema("common.schema.json"),
        "urn:example:dataset-parameters:1": schema("dataset-parameters.schema.json"),
        "urn:example:dataset:1": schema("dataset.schema.json"),
    });
    for (seed, golden_key) in [(0_u32, KEY_0), (17, KEY_17)] {
        let preimage = json!({
            "materializer": GEN_ID,
            "output_schema": "urn:example:dataset:1",
            "parameters": {"noise": 0.25, "rows": 100},
            "parameters_schema": "urn:example:dataset-parameters:1",
            "schemas": schemas,
            "seed": seed,
        });
        assert_eq!(canonical_hash(&preimage), golden_key);
        assert_eq!(dataset.key(SafeUint::from(seed)).to_string(), golden_key);
    }
    // The largest seed, whose digits the key writes after the schemas.
    let seed = 9_007_199_254_740_991_u64;
    let preimage = json!({
        "materializer": GEN_ID,
        "output_schema": "urn:example:dataset:1",
        "parameters": {"noise": 0.25, "rows": 100},
        "parameters_schema": "urn:example:dataset-parameters:1",
        "schemas": schemas,
        "seed": seed,
    });
    assert_eq!(dataset.key(SafeUint::try_from(seed).unwrap()).to_string(), canonical_hash(&preimage));
}

#[test]
fn any_change_of_input_changes_the_identity() {
    let base = CheckedRepository::load(&golden()).unwrap();
    let contract = |r: &CheckedRepository| r.problem("ls").unwrap().contract_id().clone();
    let key = |r: &CheckedRepository| r.dataset("small").unwrap().key(SafeUint::ZERO);
    // A referenced schema changes the dataset key but not the contract.
    let copy = crate::golden_copy(|toml| toml);
    let path = copy.path().join("schemas/common.schema.json");
    fs::write(&path, fs::read_to_string(&path).unwrap().replace("\"minimum\": 1", "\"minimum\": 2")).unwrap();
    let changed = CheckedRepository::load(copy.path()).unwrap();
    assert_ne!(key(&base), key(&changed));
    assert_eq!(contract(&base), contract(&changed));
    // The evaluator's source changes the contract.
    let copy = crate::golden_copy(|toml| toml);
    fs::write(copy.path().join("workers/judge/judge.py"), "print('judge v2')\n").unwrap();
    let changed = CheckedRepository::load(copy.path()).unwrap();
    assert_ne!(contract(&base), contract(&changed));
    assert_eq!(key(&base), key(&changed));
    // The execute bit of a source file changes the source digest, the evaluator's identity and so the contract.
    let copy = crate::golden_copy(|toml| toml);
    let judge = copy.path().join("workers/judge/judge.py");
    fs::set_permissions(&judge, fs::Permissions::from_mode(0o755)).unwrap();
    let executable = CheckedRepository::load(copy.path()).unwrap();
    let digest = |r: &CheckedRepository| r.worker("judge").unwrap().source_tree().digest();
    assert_ne!(digest(&base), digest(&executable));
    assert!(executable.worker("judge").unwrap().source_tree().files()[0].executable);
    assert_ne!(contract(&base), contract(&executable));
    fs::set_permissions(&judge, fs::Permissions::from_mode(0o644)).unwrap();
    assert_eq!(digest(&base), digest(&CheckedRepository::load(copy.path()).unwrap()), "only the bit counts");
    // A dataset parameter changes the key; reformatting the TOML changes nothing.
    let copy = crate::golden_copy(|toml| toml.replace("rows = 100", "rows = 101"));
    assert_ne!(key(&base), key(&CheckedRepository::load(copy.path()).unwrap()));
    let copy =
        crate::golden_copy(|toml| toml.replace("{ rows = 100, noise = 0.25 }", "{ noise = 2.5e-1, rows = 1e2 }"));
    let same = CheckedRepository::load(copy.path()).unwrap();
    assert_eq!(key(&base), key(&same));
    assert_eq!(contract(&base), contract(&same));
}

#[test]
fn attempt_ids_hash_their_cell_and_repetition() {
    use metewand_repository::identity::{AttemptId, attempt_id};
    let repository = CheckedRepository::load(&golden()).unwrap();
    let problem = repository.problem("ls").unwrap();
    let key = repository.dataset("small").unwrap().key(SafeUint::try_from(3_u64).unwrap());
    let implementation = repository.implementation("exact").unwrap();
    let worker = repository.worker(implementation.worker()).unwrap();
    let seed = SafeUint::try_from(9_u64).unwrap();
    let id = attempt_id(
        problem.contract_id(),
        problem.parameters(),
        &key,
        worker.identity(),
        implementation.parameters(),
        seed,
        2,
        None,
    );
    let preimage = json!({
        "contract_id": problem.contract_id().as_str(),
        "dataset_key": key.to_string(),
        "implementation": worker.identity().as_str(),
        "implementation_parameters": implementation.parameters(),
        "implementation_seed": 9,
        "problem_parameters": problem.parameters(),
        "repetition": 2,
    });
    assert_eq!(id.as_str(), format!("mw1-attempt-{}", canonical_hash(&preimage)));
    assert_eq!(id.as_str().parse::<AttemptId>().ok(), Some(id.clone()));
    assert!("mw1-attempt-ABC".parse::<AttemptId>().is_err());
    let other = attempt_id(
        problem.contract_id(),
        problem.parameters(),
        &key,
        worker.identity(),
        implementation.parameters(),
        seed,
        3,
        None,
    );
    assert_ne!(other, id, "each repetition is its own attempt");
    let streamed = attempt_id(
        problem.contract_id(),
        problem.parameters(),
        &key,
        worker.identity(),
        implementation.parameters(),
        seed,
        2,
        Some(20),
    );
    let mut preimage = preimage;
    preimage["profile"] = json!({"checkpoints": 20});
    assert_eq!(
        streamed.as_str(),
        format!("mw1-attempt-{}", canonical_hash(&preimage)),
        "a streamed attempt is another"
    );
}

/// A virtual environment made with the machine's `python3 -m venv` (no pip, nothing downloaded), holding one
/// distribution written by hand into its `site-packages`: `tiny` at `version`. Returns its interpreter.
fn venv_with_tiny(dir: &std::path::Path, version: &str) -> std::path::PathBuf {
    let venv = dir.join("venv");
    let made = std::process::Command::new("python3").args(["-m", "venv", "--without-pip"]).arg(&venv).status().unwrap();
    assert!(made.success());
    set_tiny(&venv, None, version);
    venv.join("bin/python3")
}

/// Installs `tiny` at `version` into `venv`, removing it at `before` first, as an upgrade does (a new `dist-info`).
fn set_tiny(venv: &std::path::Path, before: Option<&str>, version: &str) {
    let lib = fs::read_dir(venv.join("lib")).unwrap().next().unwrap().unwrap().path();
    let site = lib.join("site-packages");
    if let Some(before) = before {
        fs::remove_dir_all(site.join(format!("tiny-{before}.dist-info"))).unwrap();
    }
    let info = site.join(format!("tiny-{version}.dist-info"));
    fs::create_dir_all(&info).unwrap();
    fs::write(info.join("METADATA"), format!("Metadata-Version: 2.1\nName: tiny\nVersion: {version}\n")).unwrap();
    fs::write(info.join("RECORD"), format!("tiny/__init__.py,sha256=x,1\ntiny-{version}.dist-info/METADATA,,\n"))
        .unwrap();
}

#[test]
fn identity_environment_makes_the_interpreters_distributions_part_of_the_id() {
    let outside = tempfile::tempdir().unwrap();
    let python = venv_with_tiny(outside.path(), "1.0");
    let solver = |identity: &str| {
        let command = format!("command = [{:?}, \"solve.py\", \"--exact\"]\n{identity}", python.to_str().unwrap());
        crate::golden_copy(|toml| toml.replacen("command = [\"python3\", \"solve.py\", \"--exact\"]\n", &command, 1))
    };
    let (with, without) = (solver("identity = [\"environment\"]\n"), solver(""));
    let id = |dir: &tempfile::TempDir| {
        let repository = CheckedRepository::load(dir.path()).unwrap();
        let worker = repository.worker("exact-solver").unwrap();
        (worker.identity().clone(), worker.identity_environment())
    };
    let (with_before, environment_before) = id(&with);
    let (without_before, none) = id(&without);
    assert!(environment_before.is_some() && none.is_none());
    assert_ne!(with_before, without_before, "the environment is in the preimage only where declared");

    set_tiny(&outside.path().join("venv"), Some("1.0"), "1.1");
    let (with_after, environment_after) = id(&with);
    assert_ne!(with_after, with_before, "a new version of a distribution is another worker");
    assert_ne!(environment_after, environment_before);
    assert_eq!(id(&without).0, without_before, "without the entry the environment changes no id");
}

#[test]
fn an_unknown_identity_entry_or_a_program_that_is_not_python_is_refused() {
    let declared = |identity: &str, command: &str| {
        crate::golden_copy(|toml| {
            toml.replacen(
                "command = [\"python3\", \"solve.py\", \"--exact\"]\n",
                &format!("command = {command}\nidentity = {identity}\n"),
                1,
            )
        })
    };
    let dir = declared("[\"enviroment\"]", "[\"python3\", \"solve.py\", \"--exact\"]");
    let error = crate::check_error(dir.path());
    let said = error.to_string();
    assert!(said.contains("workers.exact-solver.identity[0]"), "{said}");
    assert!(said.contains("is \"enviroment\", which a worker's identity cannot cover (did you mean \"environment\"?)"));
    assert_eq!(said.lines().count(), 1, "{said}");

    let dir = declared("[\"environment\"]", "[\"/bin/sh\", \"solve.py\"]");
    let said = crate::check_error(dir.path()).to_string();
    assert!(
        said.contains("names \"environment\", but the program \"/bin/sh\" is neither a Python interpreter"),
        "{said}"
    );
}

#[test]
fn identity_environment_of_a_built_environment_is_its_declaration() {
    let declared = |identity: &str, requirements: (&str, &str)| {
        let python = format!("python = {{ requirements = {:?} }}\n{identity}", requirements.0);
        let dir = crate::golden_copy(|toml| {
            toml.replacen("source = \"workers/solver\"\n", &format!("source = \"workers/solver\"\n{python}"), 1)
        });
        fs::write(dir.path().join(requirements.0), requirements.1).unwrap();
        dir
    };
    let id = |dir: &tempfile::TempDir| {
        let repository = CheckedRepository::load(dir.path()).unwrap();
        let worker = repository.worker("exact-solver").unwrap();
        (worker.identity().clone(), worker.identity_environment())
    };
    // The command's `python3` is never read: nothing is built at check, and the digest is the file's.
    let pinned = "numpy==2.1.3\n";
    let (before, environment) = id(&declared("identity = [\"environment\"]\n", ("requirements.txt", pinned)));
    assert_eq!(environment.map(|digest| digest.to_string()), Some(hex(pinned.as_bytes())));
    let (after, changed) = id(&declared("identity = [\"environment\"]\n", ("requirements.txt", "numpy==2.1.4\n")));
    assert_ne!(after, before, "a changed pin is another worker");
    assert_ne!(changed, environment);
    let (without, none) = id(&declared("", ("requirements.txt", pinned)));
    assert!(none.is_none());
    assert_eq!(id(&declared("", ("requirements.txt", "numpy==2.1.4\n"))).0, without, "only where declared");

    // A pyproject is named by its dependencies, a line each: its other tables change no id.
    let pyproject =
        |name: &str| format!("[project]\nname = {name:?}\ndependencies = [\"numpy==2.1.3\", \"scipy==1.14.1\"]\n");
    let (first, digest) = id(&declared("identity = [\"environment\"]\n", ("pyproject.toml", &pyproject("a"))));
    let (renamed, same) = id(&declared("identity = [\"environment\"]\n", ("pyproject.toml", &pyproject("b"))));
    assert_eq!((renamed, same), (first, digest));
    assert_eq!(digest.map(|digest| digest.to_string()), Some(hex(b"numpy==2.1.3\nscipy==1.14.1\n")));
}
