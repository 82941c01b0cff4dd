//! Loading and checking benchmark repositories: the golden repository passes; each broken one fails with its own
//! typed error at its file, line and column.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::time::Duration;

use metewand_files::{EntryType, PathError};
use metewand_protocol::Phase;
use metewand_protocol::common::{Capability, Role};
use metewand_repository::{CheckErrorKind, NotJsonReason, Timed, UnresolvedRef};
use metewand_repository::{CheckedRepository, Limits};

use crate::{check_error, golden, golden_copy};

/// The 1-based line and column of the first occurrence of `needle` in `text`.
fn position_of(text: &str, needle: &str) -> (usize, usize) {
    let at = text.find(needle).unwrap_or_else(|| panic!("{needle:?} is not in the text"));
    let line = text[..at].matches('\n').count() + 1;
    let column = text[..at].rsplit('\n').next().unwrap().chars().count() + 1;
    (line, column)
}

/// Asserts the error is in `metewand.toml` at the first occurrence of `needle`.
fn assert_at(dir: &Path, error: &metewand_repository::CheckError, needle: &str) {
    let text = fs::read_to_string(dir.join("metewand.toml")).unwrap();
    assert_eq!(error.location().file, Path::new("metewand.toml"), "{error}");
    assert_eq!(error.location().position, Some(position_of(&text, needle)), "{error}");
}

#[test]
fn the_golden_repository_passes() {
    let repository = CheckedRepository::load(&golden()).unwrap();
    assert_eq!(repository.root(), golden().canonicalize().unwrap());
    let names: Vec<&str> = repository.workers().keys().map(String::as_str).collect();
    assert_eq!(names, ["exact-solver", "gen", "judge"]);
    let gen_worker = repository.worker("gen").unwrap();
    assert_eq!(gen_worker.role(), Role::DatasetMaterializer);
    assert_eq!(gen_worker.command(), ["python3", "${repo}/workers/gen/gen.py"]);
    let root = repository.root().to_str().unwrap();
    assert_eq!(gen_worker.expanded_command()[1], format!("{root}/workers/gen/gen.py").as_str());
    assert_eq!(gen_worker.expanded_env()["PYTHONPATH"], format!("{root}/../../sdk-python/src").as_str());
    // `$${` is a literal `${`, and a `$` before anything else is itself.
    assert_eq!(gen_worker.expanded_env()["PRICE"], "${HOME} costs $5");
    assert_eq!(gen_worker.source_path(), repository.root().join("workers/gen"));

    let expected: BTreeMap<Phase, Duration> = [
        (Phase::Hello, Duration::from_secs(10)),
        (Phase::Execute, Duration::from_secs(600)),
        (Phase::Shutdown, Duration::from_millis(2500)),
    ]
    .into();
    assert_eq!(repository.timeouts(), &expected);
    let budgets = repository.budgets();
    assert_eq!(budgets.materialization, Some(Duration::from_secs(600)));
    assert_eq!(budgets.implementation, Some(Duration::from_secs(300)));
    assert_eq!(budgets.evaluation, None);

    let dataset = repository.dataset("small").unwrap();
    assert_eq!(dataset.materializer(), "gen");
    assert_eq!(dataset.parameters()["rows"], 100);
    assert_eq!(dataset.parameters_schema(), Some("urn:example:dataset-parameters:1"));
    let problem = repository.problem("ls").unwrap();
    assert!(problem.metric_schema().starts_with("urn:metewand:inline:"));
    assert_eq!(problem.parameters_schema(), None);
    let implementation = repository.implementation("exact").unwrap();
    assert_eq!(implementation.capabilities(), [Capability::OneShot]);
    assert_eq!(implementation.worker(), "exact-solver");
}

#[test]
fn skipped_names_do_not_change_a_source_digest() {
    let before = CheckedRepository::load(&golden()).unwrap();
    let dir = golden_copy(|toml| toml);
    let source = dir.path().join("workers/solver");
    fs::create_dir_all(source.join("__pycache__")).unwrap();
    fs::write(source.join("__pycache__/solve.cpython-311.pyc"), "bytecode").unwrap();
    fs::create_dir_all(source.join("lib/__pycache__")).unwrap();
    fs::write(source.join("lib/__pycache__/util.pyc"), "bytecode").unwrap();
    fs::write(source.join(".git"), "gitdir: elsewhere").unwrap();
    fs::create_dir_all(source.join(".metewand/datasets")).unwrap();
    // Skipped whatever they are, even a link.
    symlink("/etc/passwd", source.join("lib/.git")).unwrap();
    // An empty directory holds no file, so it does not change the digest either.
    fs::create_dir(source.join("empty")).unwrap();
    let after = CheckedRepository::load(dir.path()).unwrap();
    let digest = |r: &CheckedRepository| r.worker("exact-solver").unwrap().source_tree().digest();
    assert_eq!(digest(&before), digest(&after));
    // A new file does change it.
    fs::write(source.join("lib/extra.py"), "").unwrap();
    let changed = CheckedRepository::load(dir.path()).unwrap();
    assert_ne!(digest(&before), digest(&changed));
}

#[test]
fn a_worker_named_by_nobody_is_unknown() {
    let dir = golden_copy(|toml| toml.replace("worker = \"exact-solver\"", "worker = \"fast-solver\""));
    let error = check_error(dir.path());
    assert!(
        matches!(error.kind(), CheckErrorKind::UnknownWorker { owner, worker, suggestion }
            if owner == "implementation \"exact\"" && worker == "fast-solver"
                && suggestion.as_deref() == Some("exact-solver")),
        "{error}"
    );
    assert!(error.to_string().ends_with("which is not declared (did you mean \"exact-solver\"?)"), "{error}");
    assert_at(dir.path(), &error, "\"fast-solver\"");
    // A name like none of them gets no guess.
    let dir = golden_copy(|toml| toml.replace("worker = \"exact-solver\"", "worker = \"zzz\""));
    let error = check_error(dir.path());
    assert!(matches!(error.kind(), CheckErrorKind::UnknownWorker { suggestion: None, .. }), "{error}");
}

#[test]
fn deterministic_is_seeded_or_seed_independent_and_changes_no_identity() {
    let plain = CheckedRepository::load(&golden()).unwrap();
    let declared = |value: &str| {
        golden_copy(|toml| {
            toml.replacen("[workers.exact-solver]\n", &format!("[workers.exact-solver]\ndeterministic = {value}\n"), 1)
        })
    };
    let dir = declared("\"seed-independent\"");
    let repository = CheckedRepository::load(dir.path()).unwrap();
    let solver = repository.worker("exact-solver").unwrap();
    assert!(solver.seed_independent());
    assert_eq!(solver.identity(), plain.worker("exact-solver").unwrap().identity(), "the identity is unchanged");
    assert!(!plain.worker("exact-solver").unwrap().seed_independent(), "seeded by default");
    let dir = declared("\"always\"");
    let error = check_error(dir.path());
    assert!(error.to_string().contains("must be \"seeded\" or \"seed-independent\""), "{error}");
    assert_at(dir.path(), &error, "\"always\"");
}

#[test]
fn a_misspelt_key_gets_a_guess_at_what_was_meant() {
    let dir = golden_copy(|toml| toml.replacen("command = ", "comand = ", 1));
    let error = check_error(dir.path());
    assert!(
        matches!(error.kind(), CheckErrorKind::UnknownKey { key, suggestion, .. }
            if key == "comand" && suggestion.as_deref() == Some("command")),
        "{error}"
    );
    assert!(error.to_string().contains("unknown key \"comand\" in [workers."), "{error}");
    assert!(error.to_string().ends_with("(did you mean \"command\"?)"), "{error}");
    let dir = golden_copy(|toml| toml.replacen("format = 1", "format = 1\nxyzzy = 2", 1));
    let error = check_error(dir.path());
    assert!(matches!(error.kind(), CheckErrorKind::UnknownKey { suggestion: None, .. }), "{error}");
}

#[test]
fn a_worker_of_the_wrong_role_is_named_with_its_role() {
    let dir = golden_copy(|toml| toml.replace("worker = \"exact-solver\"", "worker = \"judge\""));
    let error = check_error(dir.path());
    assert!(
        matches!(error.kind(), CheckErrorKind::WrongRole { worker, role, expected, .. }
            if worker == "judge" && role == "problem_evaluator" && expected == "implementation"),
        "{error}"
    );
    assert_at(dir.path(), &error, "\"judge\"\nparameters = { solver");
    let text = fs::read_to_string(dir.path().join("metewand.toml")).unwrap();
    let (line, column) = position_of(&text, "\"judge\"\nparameters = { solver");
    assert_eq!(
        error.to_string(),
        format!(
            "metewand.toml:{line}:{column}: implementation \"exact\" names worker \"judge\", whose role is \
             problem_evaluator, not implementation"
        )
    );
}

#[test]
fn twin_implementations_are_refused_naming_both() {
    let twin = "\n[implementations.again]\nworker = \"exact-solver\"\nparameters = { solver = \"exact\" }\n";
    let dir = golden_copy(|toml| format!("{toml}{twin}"));
    let error = check_error(dir.path());
    let text = fs::read_to_string(dir.path().join("metewand.toml")).unwrap();
    let (line, column) = position_of(&text, "\"exact-solver\"\nparameters = { solver = \"exact\" }");
    assert!(
        matches!(error.kind(), CheckErrorKind::TwinImplementations { name, twin, twin_at }
            if name == "again" && twin == "exact" && twin_at.position == Some((line, column))),
        "{error}"
    );
    let at = text.rfind("\"exact-solver\"").unwrap();
    let later = (text[..at].matches('\n').count() + 1, text[..at].rsplit('\n').next().unwrap().chars().count() + 1);
    assert_eq!(error.location().position, Some(later), "{error}");
    assert!(
        error.to_string().contains(&format!("as implementation \"exact\" (metewand.toml:{line}:{column})")),
        "{error}"
    );

    // Other parameters make another implementation, as does another worker.
    let dir =
        golden_copy(|toml| format!("{toml}{}", twin.replace("solver = \"exact\"", "solver = \"exact\", tol = 1")));
    CheckedRepository::load(dir.path()).unwrap();
}

#[test]
fn an_unknown_schema_id_is_named() {
    let dir = golden_copy(|toml| toml.replace("\"urn:example:result:1\"", "\"urn:example:result:2\""));
    let error = check_error(dir.path());
    assert!(
        matches!(error.kind(), CheckErrorKind::UnknownSchema { key, id }
            if key == "problems.ls.result_schema" && id == "urn:example:result:2"),
        "{error}"
    );
    assert_at(dir.path(), &error, "\"urn:example:result:2\"");
}

#[test]
fn a_ref_leaving_the_catalog_names_its_file_and_position() {
    let dir = golden_copy(|toml| toml);
    let path = dir.path().join("schemas/result.schema.json");
    let text = fs::read_to_string(&path)
        .unwrap()
        .replace("\"items\": { \"type\": \"number\" }", "\"items\": { \"$ref\": \"https://example.com/number.json\" }");
    fs::write(&path, &text).unwrap();
    let error = check_error(dir.path());
    assert!(
        matches!(error.kind(), CheckErrorKind::UnresolvedRef { reference, problem: UnresolvedRef::OutsideCatalog { target } }
            if reference == "https://example.com/number.json" && target == "https://example.com/number.json"),
        "{error}"
    );
    assert_eq!(error.location().file, Path::new("schemas/result.schema.json"));
    assert_eq!(error.location().position, Some(position_of(&text, "\"https://example.com/number.json\"")));
    assert!(error.to_string().contains("leaves the catalog"), "{error}");
}

#[test]
fn a_ref_to_a_missing_fragment_is_an_error() {
    let dir = golden_copy(|toml| toml);
    let path = dir.path().join("schemas/dataset.schema.json");
    let text = fs::read_to_string(&path).unwrap().replace("#/$defs/count", "#/$defs/counter");
    fs::write(&path, &text).unwrap();
    let error = check_error(dir.path());
    assert!(
        matches!(error.kind(), CheckErrorKind::UnresolvedRef { problem: UnresolvedRef::NoSuchFragment { target, fragment }, .. }
            if target == "urn:example:common:1" && fragment == "/$defs/counter"),
        "{error}"
    );
}

#[test]
fn a_ref_to_a_metaschema_leaves_the_catalog() {
    let dir = golden_copy(|toml| toml);
    fs::write(
        dir.path().join("schemas/meta.schema.json"),
        r#"{"$id": "urn:example:meta:1", "$ref": "https://json-schema.org/draft/2020-12/schema"}"#,
    )
    .unwrap();
    let error = check_error(dir.path());
    assert!(matches!(error.kind(), CheckErrorKind::UnresolvedRef { .. }), "{error}");
    assert_eq!(error.location().position, Some((1, 39)));
}

#[test]
fn a_duplicate_id_names_the_first_file() {
    let dir = golden_copy(|toml| toml);
    fs::write(dir.path().join("schemas/result2.schema.json"), "{\n  \"$id\": \"urn:example:result:1\"\n}\n").unwrap();
    let error = check_error(dir.path());
    assert!(
        matches!(error.kind(), CheckErrorKind::DuplicateSchemaId { id, first }
            if id == "urn:example:result:1" && first == "schemas/result.schema.json"),
        "{error}"
    );
    assert_eq!(error.location().file, Path::new("schemas/result2.schema.json"));
    assert_eq!(error.location().position, Some((2, 10)));
}

#[test]
fn a_file_claiming_a_public_schema_id_is_a_duplicate() {
    let dir = golden_copy(|toml| toml);
    fs::write(dir.path().join("schemas/x.schema.json"), r#"{"$id": "urn:metewand:schema:metrics:1"}"#).unwrap();
    let error = check_error(dir.path());
    assert!(matches!(error.kind(), CheckErrorKind::SchemaId { .. }), "{error}");
}

#[test]
fn a_toml_date_is_not_json() {
    let dir = golden_copy(|toml| toml.replace("{ rows = 100,", "{ rows = 100, since = 1979-05-27,"));
    let error = check_error(dir.path());
    assert!(
        matches!(error.kind(), CheckErrorKind::NotJson { key, reason: NotJsonReason::DateTime }
            if key == "datasets.small.parameters.since"),
        "{error}"
    );
    assert_at(dir.path(), &error, "1979-05-27");
}

#[test]
fn nan_infinity_and_large_integers_are_not_json() {
    for (value, reason) in [
        ("nan", NotJsonReason::NotANumber),
        ("-inf", NotJsonReason::Infinite),
        ("9007199254740992", NotJsonReason::IntegerOutOfRange),
        ("-9007199254740992", NotJsonReason::IntegerOutOfRange),
    ] {
        let dir = golden_copy(|toml| toml.replace("lambda = 0.1", &format!("lambda = {value}")));
        let error = check_error(dir.path());
        assert!(
            matches!(error.kind(), CheckErrorKind::NotJson { key, reason: r } if key == "problems.ls.parameters.lambda" && *r == reason),
            "{value}: {error}"
        );
        assert_at(dir.path(), &error, value);
    }
    // The largest safe integer is fine.
    let dir = golden_copy(|toml| toml.replace("lambda = 0.1", "lambda = 9007199254740991"));
    CheckedRepository::load(dir.path()).unwrap();
}

#[test]
fn a_glob_matching_nothing_is_an_error() {
    let dir = golden_copy(|toml| {
        toml.replace("[\"schemas/*.schema.json\"]", "[\"schemas/*.schema.json\", \"extra/*.json\"]")
    });
    let error = check_error(dir.path());
    assert!(
        matches!(error.kind(), CheckErrorKind::GlobMatchesNothing { pattern } if pattern == "extra/*.json"),
        "{error}"
    );
    assert_at(dir.path(), &error, "\"extra/*.json\"");
}

#[test]
fn a_glob_leaving_the_repository_is_an_error() {
    let dir = golden_copy(|toml| toml.replace("[\"schemas/*.schema.json\"]", "[\"../*.json\"]"));
    let error = check_error(dir.path());
    assert!(matches!(error.kind(), CheckErrorKind::InvalidGlob { .. }), "{error}");
}

#[test]
fn a_missing_source_directory_is_an_error() {
    let dir = golden_copy(|toml| toml.replace("source = \"workers/judge\"", "source = \"workers/jduge\""));
    let error = check_error(dir.path());
    assert!(
        matches!(error.kind(), CheckErrorKind::SourceDirectory { what: "source directory", worker, path, problem }
            if worker == "judge" && path == "workers/jduge" && problem == "does not exist"),
        "{error}"
    );
    assert_at(dir.path(), &error, "\"workers/jduge\"");
}

/// Each way an `include` can be wrong is refused at the folder as written, naming the worker.
#[test]
fn include_folders_that_are_missing_clash_or_overlap_the_source_are_refused_where_written() {
    let cases = [
        (
            "[\"workers/nowhere\"]",
            "\"workers/nowhere\"",
            "include folder \"workers/nowhere\" of worker \"judge\" does not exist",
        ),
        ("[\"../outside\"]", "\"../outside\"", "workers.judge.include[0]"),
        ("[\"workers/gen\", \"schemas/gen\"]", "\"schemas/gen\"", "has the same last name as \"workers/gen\""),
        ("[\"workers\"]", "\"workers\"", "overlaps the worker's source directory \"workers/judge\""),
        ("[\"workers/judge/sub\"]", "\"workers/judge/sub\"", "overlaps the worker's source directory"),
    ];
    for (include, at, message) in cases {
        let dir = golden_copy(|toml| {
            toml.replace("source = \"workers/judge\"\n", &format!("source = \"workers/judge\"\ninclude = {include}\n"))
        });
        fs::create_dir_all(dir.path().join("schemas/gen")).unwrap();
        let error = check_error(dir.path());
        assert!(error.to_string().contains(message), "{include}: {error}");
        assert_at(dir.path(), &error, at);
    }
    // A folder whose last name is already a top-level name of the source: the copy would hold both at one path.
    let dir = golden_copy(|toml| {
        toml.replace("source = \"workers/solver\"\n", "source = \"workers/solver\"\ninclude = [\"other/lib\"]\n")
    });
    fs::create_dir_all(dir.path().join("other/lib")).unwrap();
    fs::write(dir.path().join("other/lib/x.py"), "").unwrap();
    let error = check_error(dir.path());
    assert!(error.to_string().contains("the source directory already has \"lib/util.py\""), "{error}");
    assert_at(dir.path(), &error, "\"other/lib\"");
    // A link inside an include folder is refused as in a source directory, naming the include folder.
    let dir = golden_copy(|toml| {
        toml.replace("source = \"workers/judge\"\n", "source = \"workers/judge\"\ninclude = [\"shared\"]\n")
    });
    fs::create_dir(dir.path().join("shared")).unwrap();
    symlink("/etc/passwd", dir.path().join("shared/passwd")).unwrap();
    let error = check_error(dir.path());
    assert!(
        matches!(error.kind(), CheckErrorKind::SourceEntry { what: "include folder", worker, .. } if worker == "judge"),
        "{error}"
    );
}

/// A worker's `python.requirements` is read when the repository is checked: a missing file, a link, a path out of the
/// repository or an unknown key is refused where written; a file found is kept with its bytes.
#[test]
fn python_requirements_are_read_at_check_and_refused_where_written() {
    let declared = |python: &str| {
        let python = python.to_owned();
        golden_copy(move |toml| {
            toml.replace("source = \"workers/judge\"\n", &format!("source = \"workers/judge\"\npython = {python}\n"))
        })
    };
    let cases = [
        ("{ requirements = \"nowhere.txt\" }", "\"nowhere.txt\"", "names \"nowhere.txt\", which does not exist"),
        ("{ requirements = \"../outside.txt\" }", "\"../outside.txt\"", "workers.judge.python.requirements"),
        ("{ requirements = \"linked.txt\" }", "\"linked.txt\"", "which is a symbolic link"),
        ("{ requirement = \"r.txt\" }", "requirement = ", "unknown key \"requirement\""),
    ];
    for (python, at, message) in cases {
        let dir = declared(python);
        symlink("/etc/passwd", dir.path().join("linked.txt")).unwrap();
        let error = check_error(dir.path());
        assert!(error.to_string().contains(message), "{python}: {error}");
        assert_at(dir.path(), &error, at);
    }
    let dir = declared("{ requirements = \"requirements.txt\" }");
    fs::write(dir.path().join("requirements.txt"), "numpy==2.1.3\n").unwrap();
    let repository = CheckedRepository::load(dir.path()).unwrap();
    let python = repository.worker("judge").unwrap().python().unwrap();
    assert_eq!((python.path(), python.bytes()), ("requirements.txt", b"numpy==2.1.3\n".as_slice()));
    assert!(repository.worker("gen").unwrap().python().is_none());
    // A pyproject.toml: its [project] dependencies are the requirements; without them it is refused where named.
    let dir = declared("{ requirements = \"judge/pyproject.toml\" }");
    fs::create_dir(dir.path().join("judge")).unwrap();
    let pyproject = "[project]\nname = \"judge\"\ndependencies = [\"numpy==2.1.3\", \"scipy>=1\"]\n";
    fs::write(dir.path().join("judge/pyproject.toml"), pyproject).unwrap();
    let repository = CheckedRepository::load(dir.path()).unwrap();
    let python = repository.worker("judge").unwrap().python().unwrap();
    assert_eq!(python.requirements_text(), "numpy==2.1.3\nscipy>=1\n");
    fs::write(dir.path().join("judge/pyproject.toml"), "[project]\nname = \"judge\"\n").unwrap();
    let error = check_error(dir.path());
    assert!(error.to_string().contains("which has no [project] dependencies array"), "{error}");
    assert_at(dir.path(), &error, "\"judge/pyproject.toml\"");
}

#[test]
fn a_symlink_in_a_source_directory_is_an_error() {
    let dir = golden_copy(|toml| toml);
    symlink("../../gen/gen.py", dir.path().join("workers/solver/lib/gen.py")).unwrap();
    let error = check_error(dir.path());
    assert!(
        matches!(error.kind(), CheckErrorKind::SourceEntry { worker, entry, found: EntryType::SymbolicLink, .. }
            if worker == "exact-solver" && entry == "lib/gen.py"),
        "{error}"
    );
    assert_at(dir.path(), &error, "\"workers/solver\"");
}

#[test]
fn a_source_directory_that_is_a_symlink_is_an_error() {
    let dir = golden_copy(|toml| toml);
    fs::rename(dir.path().join("workers/judge"), dir.path().join("judge-real")).unwrap();
    symlink("../judge-real", dir.path().join("workers/judge")).unwrap();
    let error = check_error(dir.path());
    assert!(
        matches!(error.kind(), CheckErrorKind::SourceDirectory { problem, .. } if problem.contains("symbolic link")),
        "{error}"
    );
}

#[test]
fn a_fifo_in_a_source_directory_is_an_error() {
    let dir = golden_copy(|toml| toml);
    rustix::fs::mknodat(
        rustix::fs::CWD,
        dir.path().join("workers/gen/pipe"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    let error = check_error(dir.path());
    assert!(matches!(error.kind(), CheckErrorKind::SourceEntry { found: EntryType::Fifo, .. }), "{error}");
}

#[test]
fn source_paths_are_checked_as_text() {
    for (source, reason) in [
        ("../gen", PathError::DotDotComponent),
        ("/tmp", PathError::Absolute),
        ("workers//gen", PathError::RepeatedSeparator),
    ] {
        let dir = golden_copy(|toml| toml.replace("source = \"workers/gen\"", &format!("source = \"{source}\"")));
        let error = check_error(dir.path());
        assert!(matches!(error.kind(), CheckErrorKind::InvalidPath { reason: r, .. } if *r == reason), "{error}");
    }
    // The repository itself is a valid source.
    let dir = golden_copy(|toml| toml.replace("source = \"workers/gen\"", "source = \".\""));
    let repository = CheckedRepository::load(dir.path()).unwrap();
    assert!(repository.worker("gen").unwrap().source_tree().files().iter().any(|f| f.path == "metewand.toml"));
}

#[test]
fn unknown_keys_are_errors_everywhere() {
    for (from, to, key) in [
        ("format = 1", "format = 1\nversion = 2", "version"),
        ("[budgets]", "[budgets]\nreset = 1", "reset"),
        ("[timeouts]", "[timeouts]\nteardown = 1", "teardown"),
        ("role = \"problem_evaluator\"", "role = \"problem_evaluator\"\nargs = []", "args"),
        ("materializer = \"gen\"", "materializer = \"gen\"\nseed = 1", "seed"),
        ("files = [", "globs = []\nfiles = [", "globs"),
    ] {
        let dir = golden_copy(|toml| toml.replacen(from, to, 1));
        let error = check_error(dir.path());
        assert!(matches!(error.kind(), CheckErrorKind::UnknownKey { key: k, .. } if k == key), "{key}: {error}");
        let needle = format!("\n{key} =");
        let text = fs::read_to_string(dir.path().join("metewand.toml")).unwrap();
        let (line, _) = position_of(&text, &needle);
        assert_eq!(error.location().position, Some((line + 1, 1)), "{error}");
    }
}

#[test]
fn substitutions_other_than_repo_are_errors() {
    for (value, found) in [("${HOME}/x", "${HOME}"), ("${repo", "${repo"), ("a${}b", "${}")] {
        let dir = golden_copy(|toml| {
            toml.replace("command = [\"python3\", \"judge.py\"]", &format!("command = [\"python3\", \"{value}\"]"))
        });
        let error = check_error(dir.path());
        assert!(
            matches!(error.kind(), CheckErrorKind::Substitution { key, found: f } if key == "workers.judge.command[1]" && f == found),
            "{value}: {error}"
        );
        assert_at(dir.path(), &error, &format!("\"{value}\""));
    }
    // `${repo}` is not expanded in `source`, so it is an invalid path there, not a substitution.
    let dir = golden_copy(|toml| toml.replace("source = \"workers/judge\"", "source = \"${repo}/workers/judge\""));
    assert!(matches!(check_error(dir.path()).kind(), CheckErrorKind::SourceDirectory { .. }));
}

#[test]
fn parameters_must_satisfy_their_schema() {
    let dir = golden_copy(|toml| toml.replace("{ rows = 100,", "{ rows = 0,"));
    let error = check_error(dir.path());
    assert!(
        matches!(error.kind(), CheckErrorKind::InvalidParameters { owner, schema, diagnostics }
            if owner == "dataset \"small\"" && schema == "urn:example:dataset-parameters:1" && diagnostics[0].instance_path == "/rows"),
        "{error}"
    );
    assert_at(dir.path(), &error, "{ rows = 0");
}

#[test]
fn format_must_be_one() {
    let dir = golden_copy(|toml| toml.replace("format = 1", "format = 2"));
    let error = check_error(dir.path());
    assert!(matches!(error.kind(), CheckErrorKind::UnsupportedFormat { found } if found == "2"), "{error}");
    let dir = golden_copy(|toml| toml.replace("format = 1\n", ""));
    assert!(matches!(check_error(dir.path()).kind(), CheckErrorKind::MissingKey { key, .. } if key == "format"));
    // Numbers are values.
    let dir = golden_copy(|toml| toml.replace("format = 1", "format = 1.0"));
    CheckedRepository::load(dir.path()).unwrap();
}

#[test]
fn durations_must_be_positive() {
    let dir = golden_copy(|toml| toml.replace("hello = 10", "hello = 0"));
    let error = check_error(dir.path());
    assert!(matches!(error.kind(), CheckErrorKind::InvalidValue { key, .. } if key == "timeouts.hello"), "{error}");
    let dir = golden_copy(|toml| toml.replace("hello = 10", "hello = \"10s\""));
    assert!(matches!(check_error(dir.path()).kind(), CheckErrorKind::WrongType { .. }));
}

#[test]
fn reserved_and_unknown_capabilities_are_errors() {
    for capability in ["applicability", "fresh_sequence", "warp_drive"] {
        let dir = golden_copy(|toml| {
            toml.replace("parameters = { solver = \"exact\" }", &format!("capabilities = [\"{capability}\"]"))
        });
        let error = check_error(dir.path());
        assert!(
            matches!(error.kind(), CheckErrorKind::InvalidValue { key, .. } if key == "implementations.exact.capabilities[0]"),
            "{error}"
        );
    }
}

#[test]
fn a_streaming_implementation_and_a_profiled_problem_are_declared() {
    let dir = golden_copy(|toml| {
        toml.replace("parameters = { solver = \"exact\" }", "capabilities = [\"streaming_profile\", \"one_shot\"]")
            .replace("parameters = { lambda = 0.1 }", "parameters = { lambda = 0.1 }\nprofile = { checkpoints = 20 }")
    });
    let repository = CheckedRepository::load(dir.path()).unwrap();
    assert_eq!(repository.problem("ls").unwrap().profile(), Some(20));
    let capabilities = repository.implementations()["exact"].capabilities();
    assert_eq!(capabilities, [Capability::StreamingProfile, Capability::OneShot]);
    let unprofiled = golden_copy(|toml| toml.to_owned());
    assert_eq!(CheckedRepository::load(unprofiled.path()).unwrap().problem("ls").unwrap().profile(), None);
}

#[test]
fn a_profile_allows_from_one_to_a_thousand_checkpoints_and_nothing_else() {
    let profile = |value: &str| {
        golden_copy(|toml| {
            toml.replace(
                "parameters = { lambda = 0.1 }",
                &format!("parameters = {{ lambda = 0.1 }}\nprofile = {value}"),
            )
        })
    };
    for (value, key) in [
        ("{ checkpoints = 0 }", "problems.ls.profile.checkpoints"),
        ("{ checkpoints = 1001 }", "problems.ls.profile.checkpoints"),
        ("{ checkpoints = -2 }", "problems.ls.profile.checkpoints"),
    ] {
        let dir = profile(value);
        let error = check_error(dir.path());
        assert!(matches!(error.kind(), CheckErrorKind::InvalidValue { key: k, .. } if k == key), "{value}: {error}");
    }
    let dir = profile("{ checkpoints = \"20\" }");
    assert!(matches!(check_error(dir.path()).kind(), CheckErrorKind::WrongType { .. }));
    let dir = profile("20");
    assert!(matches!(check_error(dir.path()).kind(), CheckErrorKind::WrongType { .. }));
    let dir = profile("{}");
    assert!(matches!(check_error(dir.path()).kind(), CheckErrorKind::MissingKey { .. }), "{}", check_error(dir.path()));
    let dir = profile("{ checkpoints = 2, every = 3 }");
    let error = check_error(dir.path());
    assert!(matches!(error.kind(), CheckErrorKind::UnknownKey { .. }), "{error}");
    CheckedRepository::load(profile("{ checkpoints = 1000 }").path()).unwrap();
}

#[test]
fn inline_schemas_cannot_declare_an_id() {
    let dir = golden_copy(|toml| toml.replace("metric_schema = { type", "metric_schema = { \"$id\" = \"urn:x\", type"));
    let error = check_error(dir.path());
    assert!(matches!(error.kind(), CheckErrorKind::SchemaId { .. }), "{error}");
    assert_at(dir.path(), &error, "{ \"$id\"");
}

#[test]
fn invalid_schemas_are_refused_at_check_time() {
    let dir =
        golden_copy(|toml| toml.replace("metric_schema = { type = \"object\"", "metric_schema = { type = \"objet\""));
    let error = check_error(dir.path());
    assert!(matches!(error.kind(), CheckErrorKind::InvalidSchema { .. }), "{error}");
    let dir = golden_copy(|toml| toml);
    fs::write(
        dir.path().join("schemas/old.schema.json"),
        r#"{"$id": "urn:example:old:1", "$schema": "http://json-schema.org/draft-07/schema#"}"#,
    )
    .unwrap();
    let error = check_error(dir.path());
    assert!(
        matches!(error.kind(), CheckErrorKind::InvalidSchema { message, .. } if message.contains("$schema")),
        "{error}"
    );
}

#[test]
fn toml_syntax_errors_have_positions() {
    let dir = golden_copy(|toml| toml.replace("[workers.judge]", "[workers.judge]\nrole = \"x\"\nrole = \"y\""));
    let error = check_error(dir.path());
    assert!(matches!(error.kind(), CheckErrorKind::Toml { .. }), "{error}");
    assert!(error.location().position.is_some(), "{error}");
    let text = error.to_string();
    assert!(!text.ends_with('.') && !text.contains('\n'), "{text}");
}

#[test]
fn a_missing_manifest_is_an_io_error() {
    let dir = tempfile::tempdir().unwrap();
    let error = check_error(dir.path());
    assert!(matches!(error.kind(), CheckErrorKind::Io { .. }), "{error}");
    assert_eq!(error.location().to_string(), "metewand.toml");
}

#[test]
fn limits_default_to_64_gib_no_memory_limit_and_4096_processes_and_are_checked_with_their_position() {
    let repository = CheckedRepository::load(&golden()).unwrap();
    assert_eq!(
        repository.limits(),
        Limits { output_bytes: 68_719_476_736, memory_bytes: None, processes: 4096, cpu_seconds: None },
        "the documented defaults"
    );
    let dir = golden_copy(|toml| {
        toml + "\n[limits]\noutput_bytes = 4096\nmemory_bytes = 1e9\nprocesses = 64\ncpu_seconds = 2\n"
    });
    // Numbers are values: 1e9 is the integer 1000000000.
    let limits = CheckedRepository::load(dir.path()).unwrap().limits();
    assert_eq!(
        limits,
        Limits { output_bytes: 4096, memory_bytes: Some(1_000_000_000), processes: 64, cpu_seconds: Some(2) }
    );
    for key in ["output_bytes", "memory_bytes", "processes", "cpu_seconds"] {
        for (value, wrong_type) in [("0", false), ("-1", false), ("1.5", false), ("\"64G\"", true)] {
            let dir = golden_copy(|toml| toml + &format!("\n[limits]\n{key} = {value}\n"));
            let error = check_error(dir.path());
            if wrong_type {
                assert!(matches!(error.kind(), CheckErrorKind::WrongType { .. }), "{key} = {value}: {error}");
            } else {
                let member = format!("limits.{key}");
                assert!(
                    matches!(error.kind(), CheckErrorKind::InvalidValue { key, .. } if *key == member),
                    "{key} = {value}: {error}"
                );
            }
            let text = fs::read_to_string(dir.path().join("metewand.toml")).unwrap();
            let (line, column) = position_of(&text, &format!("{key} = {value}"));
            let expected = Some((line, column + key.len() + 3));
            assert_eq!(error.location().position, expected, "{key} = {value}: {error}");
        }
    }
    let dir = golden_copy(|toml| toml + "\n[limits]\nfile_bytes = 1\n");
    let error = check_error(dir.path());
    assert!(matches!(error.kind(), CheckErrorKind::UnknownKey { key, .. } if key == "file_bytes"), "{error}");
}

/// The golden repository with `[campaigns.c]` appended.
fn with_campaign(table: &str) -> tempfile::TempDir {
    golden_copy(|toml| format!("{toml}\n[campaigns.c]\n{table}\n"))
}

#[test]
fn a_campaign_fills_its_defaults_and_reads_both_seed_forms() {
    use metewand_protocol::generated::attempt_record::SessionMode;
    use metewand_protocol::strict::SafeUint;
    use metewand_repository::Seeds;
    let dir = with_campaign("dataset_seeds = { from = 5, count = 3 }\nimplementation_seeds = [7, 1]\nrepetitions = 2");
    let repository = CheckedRepository::load(dir.path()).unwrap();
    let spec = repository.campaign("c").unwrap();
    assert_eq!(spec.problems, ["ls"]);
    assert_eq!(spec.datasets, ["small"]);
    assert_eq!(spec.implementations, ["exact"]);
    assert_eq!(spec.dataset_seeds, Seeds::Range { from: SafeUint::try_from(5_u64).unwrap(), count: 3 });
    let seeds: Vec<u64> = spec.implementation_seeds.iter().map(|seed| seed.get()).collect();
    assert_eq!(seeds, [7, 1]);
    assert_eq!(spec.size(), 12);
    let plain = with_campaign("");
    let spec = CheckedRepository::load(plain.path()).unwrap().campaign("c").unwrap().clone();
    assert_eq!((spec.dataset_seeds, spec.repetitions), (Seeds::zero(), 1));
    assert_eq!((spec.sessions, spec.warmup), (SessionMode::Fresh, 0));
    let reused = with_campaign("sessions = \"reuse\"\nwarmup = 3");
    let spec = CheckedRepository::load(reused.path()).unwrap().campaign("c").unwrap().clone();
    assert_eq!((spec.sessions, spec.warmup), (SessionMode::Reuse, 3));
    // Fresh sessions warm up too: each before its attempt's timed cycle.
    let fresh = with_campaign("warmup = 2");
    let spec = CheckedRepository::load(fresh.path()).unwrap().campaign("c").unwrap().clone();
    assert_eq!((spec.sessions, spec.warmup), (SessionMode::Fresh, 2));
}

#[test]
fn campaign_mistakes_are_reported_at_their_position() {
    let cases: [(&str, &str, &str); 11] = [
        (
            "implementations = [\"exact\", \"fast\"]",
            "\"fast\"",
            "names implementation \"fast\", which the repository does not declare (it has: exact)",
        ),
        ("datasets = []", "[]", "is empty"),
        ("problems = [\"ls\", \"ls\"]", "\"ls\"]", "names \"ls\" twice"),
        ("dataset_seeds = [0, -1]", "-1", "must be a seed"),
        ("dataset_seeds = { from = 9007199254740990, count = 3 }", "3 }", "would pass 9007199254740991"),
        ("repetitions = 0", "0", "at least 1"),
        ("sessions = \"warm\"", "\"warm\"", "must be \"fresh\""),
        ("sessions = true", "true", "string"),
        ("sessions = \"reuse\"\nwarmup = 1001", "1001", "from 0 to 1000"),
        ("seeds = [1]", "seeds", "unknown key"),
        (
            "dataset_seeds = { from = 0, count = 1000 }\nimplementation_seeds = { from = 0, count = 1001 }",
            "[campaigns.c]",
            "plans 1001000 attempts",
        ),
    ];
    for (table, at, message) in cases {
        let dir = with_campaign(table);
        let error = check_error(dir.path());
        assert!(error.to_string().contains(message), "{table}: {error}");
        let text = fs::read_to_string(dir.path().join("metewand.toml")).unwrap();
        let campaign = text.find("[campaigns.c]").unwrap();
        let offset = campaign + text[campaign..].find(at).unwrap();
        let line = text[..offset].matches('\n').count() + 1;
        let column = text[..offset].rsplit('\n').next().unwrap().chars().count() + 1;
        assert_eq!(error.location().position, Some((line, column)), "{table}: {error}");
    }
}

#[test]
fn network_is_a_boolean_false_by_default_and_part_of_the_identity_only_when_true() {
    let solver = "source = \"workers/solver\"";
    let plain = CheckedRepository::load(golden_copy(|toml| toml).path()).unwrap();
    let declared_false = golden_copy(|toml| toml.replacen(solver, &format!("{solver}\nnetwork = false"), 1));
    let declared_false = CheckedRepository::load(declared_false.path()).unwrap();
    let allowed = golden_copy(|toml| toml.replacen(solver, &format!("{solver}\nnetwork = true"), 1));
    let allowed = CheckedRepository::load(allowed.path()).unwrap();
    let worker = |repository: &CheckedRepository| repository.worker("exact-solver").unwrap().clone();
    assert!(!worker(&plain).network() && !worker(&declared_false).network() && worker(&allowed).network());
    assert_eq!(worker(&plain).identity(), worker(&declared_false).identity());
    assert_ne!(worker(&plain).identity(), worker(&allowed).identity());
    let wrong = golden_copy(|toml| toml.replacen(solver, &format!("{solver}\nnetwork = \"yes\""), 1));
    let error = check_error(wrong.path());
    assert!(
        matches!(error.kind(), CheckErrorKind::WrongType { key, .. } if key == "workers.exact-solver.network"),
        "{error}"
    );
}

#[test]
fn declared_system_calls_are_known_groups_part_of_the_identity_only_when_some_are_declared() {
    let solver = "source = \"workers/solver\"";
    let with = |value: &str| golden_copy(|toml| toml.replacen(solver, &format!("{solver}\nsyscalls = {value}"), 1));
    let worker = |repository: &CheckedRepository| repository.worker("exact-solver").unwrap().clone();
    let plain = worker(&CheckedRepository::load(golden_copy(|toml| toml).path()).unwrap());
    let none = worker(&CheckedRepository::load(with("[]").path()).unwrap());
    let declared = worker(&CheckedRepository::load(with("[\"keyctl\", \"io_uring\"]").path()).unwrap());
    let reordered = worker(&CheckedRepository::load(with("[\"io_uring\", \"keyctl\", \"keyctl\"]").path()).unwrap());
    assert_eq!(plain.identity(), none.identity(), "declaring none changes no identity");
    assert_ne!(plain.identity(), declared.identity());
    assert_eq!(declared.identity(), reordered.identity(), "a set: order and repeats do not matter");
    let groups: Vec<String> = declared.syscalls().iter().map(|group| group.to_string()).collect();
    assert_eq!(groups, ["io_uring", "keyctl"]);
    let dir = with("[\"io-uring\"]");
    let error = check_error(dir.path());
    assert!(
        matches!(error.kind(), CheckErrorKind::InvalidValue { key, .. } if key == "workers.exact-solver.syscalls[0]"),
        "{error}"
    );
    assert!(error.to_string().contains("(did you mean \"io_uring\"?)"), "{error}");
    let text = fs::read_to_string(dir.path().join("metewand.toml")).unwrap();
    let (line, column) = position_of(&text, "syscalls = [\"io-uring\"]");
    assert_eq!(error.location().position, Some((line, column + "syscalls = [".len())), "{error}");
}

#[test]
fn a_problem_is_timed_by_execute_unless_it_says_prepare_and_execute() {
    let problem = |repository: &CheckedRepository| repository.problem("ls").unwrap().timed();
    assert_eq!(problem(&CheckedRepository::load(&golden()).unwrap()), Timed::Execute);
    let with =
        |value: &str| golden_copy(|toml| toml.replace("[problems.ls]\n", &format!("[problems.ls]\ntimed = {value}\n")));
    let dir = with("\"prepare+execute\"");
    assert_eq!(problem(&CheckedRepository::load(dir.path()).unwrap()), Timed::PrepareExecute);
    let dir = with("\"wall\"");
    let error = check_error(dir.path());
    assert!(matches!(error.kind(), CheckErrorKind::InvalidValue { key, .. } if key == "problems.ls.timed"), "{error}");
    assert!(error.to_string().contains("\"prepare+execute\""), "{error}");
    let text = fs::read_to_string(dir.path().join("metewand.toml")).unwrap();
    let (line, column) = position_of(&text, "timed = \"wall\"");
    assert_eq!(error.location().position, Some((line, column + "timed = ".len())), "{error}");
}
