//! An external folder's `metewand-implementation.toml` joined to the golden repository: its worker hashed beneath the
//! folder and `${repo}` expanded to it, its identity its own tree; a name the repository defines, a worker it does
//! not bring and a folder without the file refused with the file and the key; a parameters schema inline or in a
//! file of the folder, as the repository's own, and a schema path leaving the folder refused.

use std::fs;
use std::path::Path;

use metewand_repository::{CheckErrorKind, CheckOptions, CheckedRepository, IMPLEMENTATION_FILE};

use crate::golden;

const SUBMISSION: &str = r#"
[workers.mine]
role = "implementation"
command = ["python3", "${repo}/solve.py"]
source = "."

[implementations.mine]
worker = "mine"
parameters = { tolerance = 1 }
"#;

fn folder(toml: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join(IMPLEMENTATION_FILE), toml).unwrap();
    fs::write(dir.path().join("solve.py"), "print('solved')\n").unwrap();
    dir
}

fn join(dir: &Path) -> Result<(CheckedRepository, Vec<String>), metewand_repository::CheckError> {
    let mut repository = CheckedRepository::load(&golden()).unwrap();
    let added = repository.add_external(dir, &CheckOptions::default())?;
    Ok((repository, added))
}

#[test]
fn a_folder_joins_with_its_own_tree_as_its_identity() {
    let dir = folder(SUBMISSION);
    let (repository, added) = join(dir.path()).unwrap();
    assert_eq!(added, ["mine"]);
    let canonical = fs::canonicalize(dir.path()).unwrap();
    let implementation = repository.implementation("mine").unwrap();
    assert_eq!(implementation.external(), Some(canonical.as_path()));
    assert!(repository.implementation("exact").unwrap().external().is_none());
    let worker = repository.worker("mine").unwrap();
    assert_eq!(worker.base(), canonical);
    assert_eq!(worker.external(), Some(canonical.as_path()));
    assert_eq!(worker.expanded_command()[1], canonical.join("solve.py").as_os_str());
    assert_eq!(repository.external_implementations(), ["mine"]);
    assert_eq!(repository.externals(), std::slice::from_ref(&canonical));

    // Its identity is its folder's tree: a changed file is another worker; the repository's are unchanged.
    let before = worker.identity().clone();
    let exact = repository.worker("exact-solver").unwrap().identity().clone();
    let folder_identity = repository.external_identity(&canonical).unwrap();
    assert_eq!(
        join(dir.path()).unwrap().0.external_identity(&canonical),
        Some(folder_identity),
        "read again, the same"
    );
    fs::write(dir.path().join("solve.py"), "print('solved again')\n").unwrap();
    let (again, _) = join(dir.path()).unwrap();
    assert_ne!(again.worker("mine").unwrap().identity(), &before);
    assert_eq!(again.worker("exact-solver").unwrap().identity(), &exact);
    // The folder's identity follows its workers' and its file's.
    let changed_worker = again.external_identity(&canonical).unwrap();
    assert_ne!(changed_worker, folder_identity);
    fs::write(dir.path().join(IMPLEMENTATION_FILE), format!("{SUBMISSION}\n# a comment\n")).unwrap();
    assert_ne!(join(dir.path()).unwrap().0.external_identity(&canonical), Some(changed_worker));
    assert_eq!(repository.external_identity(&dir.path().join("elsewhere")), None);
}

#[test]
fn a_folder_that_redefines_or_reaches_past_itself_is_refused() {
    let dir = folder(&SUBMISSION.replace("[implementations.mine]", "[implementations.exact]"));
    let error = join(dir.path()).unwrap_err();
    assert!(matches!(error.kind(), CheckErrorKind::Redefined { kind: "implementation", .. }), "{error}");
    assert_eq!(error.location().file, dir.path().join(IMPLEMENTATION_FILE));
    assert!(error.to_string().contains("implementation \"exact\" is already defined by the benchmark repository"));

    let dir = folder(&SUBMISSION.replace("[workers.mine]", "[workers.gen]").replace("\"mine\"\n", "\"gen\"\n"));
    let error = join(dir.path()).unwrap_err();
    assert!(matches!(error.kind(), CheckErrorKind::Redefined { kind: "worker", .. }), "{error}");

    // Its implementations run its own workers only.
    let dir = folder(&SUBMISSION.replace("worker = \"mine\"", "worker = \"exact-solver\""));
    let error = join(dir.path()).unwrap_err();
    assert!(matches!(error.kind(), CheckErrorKind::UnknownWorker { .. }), "{error}");

    let dir = folder(&format!("{SUBMISSION}\n[datasets.more]\nmaterializer = \"gen\"\n"));
    let error = join(dir.path()).unwrap_err();
    assert!(error.to_string().contains("datasets"), "an unknown key is named: {error}");

    let empty = tempfile::tempdir().unwrap();
    let error = join(empty.path()).unwrap_err();
    assert!(matches!(error.kind(), CheckErrorKind::Io { .. }), "{error}");
    assert_eq!(error.location().file, empty.path().join(IMPLEMENTATION_FILE));
}

#[test]
fn a_parameters_schema_is_inline_or_a_file_of_the_folder_and_never_outside_it() {
    let strict =
        "{ type = \"object\", required = [\"tolerance\"], properties = { tolerance = { type = \"integer\" } } }";
    let dir = folder(&format!("{SUBMISSION}parameters_schema = {strict}\n"));
    let (repository, _) = join(dir.path()).unwrap();
    let id = repository.implementation("mine").unwrap().parameters_schema().unwrap().to_owned();
    assert!(id.starts_with("urn:metewand:inline:"), "{id}");
    let wrong = folder(&format!(
        "{}parameters_schema = {strict}\n",
        SUBMISSION.replace("tolerance = 1", "tolerance = \"one\"")
    ));
    let error = join(wrong.path()).unwrap_err();
    assert!(matches!(error.kind(), CheckErrorKind::InvalidParameters { .. }), "{error}");
    assert_eq!(error.location().file, wrong.path().join(IMPLEMENTATION_FILE));

    // A file of the folder, checked as a repository's schema file is; it may refer to the benchmark's schemas.
    let dir = folder(&format!("{SUBMISSION}parameters_schema = \"schemas/params.schema.json\"\n"));
    fs::create_dir(dir.path().join("schemas")).unwrap();
    let schema = r#"{"$id": "https://example.org/mine/params", "type": "object", "required": ["tolerance"],
        "properties": {"tolerance": {"$ref": "urn:example:common:1#/$defs/count", "maximum": 5}}}"#;
    fs::write(dir.path().join("schemas/params.schema.json"), schema).unwrap();
    let (repository, _) = join(dir.path()).unwrap();
    assert_eq!(repository.implementation("mine").unwrap().parameters_schema(), Some("https://example.org/mine/params"));
    assert!(repository.catalog().contains("https://example.org/mine/params"));
    let canonical = fs::canonicalize(dir.path()).unwrap();
    let before = repository.external_identity(&canonical).unwrap();
    fs::write(dir.path().join("schemas/params.schema.json"), schema.replace("5", "0")).unwrap();
    let error = join(dir.path()).unwrap_err();
    assert!(matches!(error.kind(), CheckErrorKind::InvalidParameters { .. }), "{error}");
    fs::write(dir.path().join("schemas/params.schema.json"), schema.replace("5", "6")).unwrap();
    let (again, _) = join(dir.path()).unwrap();
    assert_ne!(again.external_identity(&canonical), Some(before), "the folder's identity covers its schema");
    fs::write(dir.path().join("schemas/params.schema.json"), r#"{"type": "object"}"#).unwrap();
    let error = join(dir.path()).unwrap_err();
    assert!(error.to_string().contains("must declare its $id"), "{error}");

    // Out of the folder: by .., by an absolute path, or through a link.
    for path in ["../params.schema.json", "/etc/params.schema.json"] {
        let dir = folder(&format!("{SUBMISSION}parameters_schema = {path:?}\n"));
        let error = join(dir.path()).unwrap_err();
        let said = error.to_string();
        assert!(said.contains("implementations.mine.parameters_schema"), "{said}");
        assert!(said.contains("which leaves the external folder"), "{said}");
        assert_eq!(error.location().file, dir.path().join(IMPLEMENTATION_FILE));
    }
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("params.schema.json"), schema).unwrap();
    // (The worker's source is a folder of its own: a source directory holding a link is refused before.)
    let dir = folder(&format!(
        "{}parameters_schema = \"params.schema.json\"\n",
        SUBMISSION.replace("source = \".\"", "source = \"src\"")
    ));
    fs::create_dir(dir.path().join("src")).unwrap();
    fs::write(dir.path().join("src/solve.py"), "print('solved')\n").unwrap();
    std::os::unix::fs::symlink(outside.path().join("params.schema.json"), dir.path().join("params.schema.json"))
        .unwrap();
    let said = join(dir.path()).unwrap_err().to_string();
    assert!(said.contains("leads out of the external folder through a link"), "{said}");
}
