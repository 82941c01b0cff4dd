//! `metewand.toml` against its schema, `repository-definition`: every definition in the workspace, mapped into the
//! JSON domain as the check maps it, passes the schema and decodes into the generated type; and a key the check
//! refuses as unknown, in any table, the schema and the generated type refuse too.

use std::fs;
use std::path::{Path, PathBuf};

use metewand_protocol::Phase;
use metewand_protocol::generated::repository_definition::{RepositoryDefinition, Timeouts};
use metewand_protocol::schema;
use metewand_repository::{CheckErrorKind, definition_json};
use metewand_testkit::workspace;
use serde_json::Value;

use crate::{check_error, golden_copy};

/// Every file named `metewand.toml` in the workspace (the example, the `init` template, the fixtures), outside
/// hidden and build folders.
fn definitions(folder: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(folder).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') || name == "target" || name == "node_modules" {
            continue;
        }
        if entry.file_type().unwrap().is_dir() {
            definitions(&entry.path(), out);
        } else if name == "metewand.toml" {
            out.push(entry.path());
        }
    }
}

/// The schema's errors for `value`, as (instance path, message).
fn schema_errors(value: &Value) -> Vec<(String, String)> {
    let validator = schema::validator(schema::REPOSITORY_DEFINITION, None);
    validator.iter_errors(value).map(|error| (error.instance_path().to_string(), error.to_string())).collect()
}

#[test]
fn every_definition_in_the_workspace_passes_the_schema_and_decodes() {
    let mut found = Vec::new();
    definitions(&workspace(), &mut found);
    found.sort();
    let relative: Vec<String> =
        found.iter().map(|path| path.strip_prefix(workspace()).unwrap().display().to_string()).collect();
    for expected in [
        "examples/least-squares/metewand.toml",
        "metewand-repository/tests/it/fixtures/golden/metewand.toml",
        "metewand-runtime/templates/init/metewand.toml",
    ] {
        assert!(relative.iter().any(|path| path == expected), "{expected} is not among {relative:?}");
    }
    for (path, name) in found.iter().zip(&relative) {
        let value =
            definition_json(&fs::read_to_string(path).unwrap()).unwrap_or_else(|error| panic!("{name}: {error}"));
        assert_eq!(schema_errors(&value), [], "{name}");
        let typed: RepositoryDefinition =
            serde_json::from_value(value.clone()).unwrap_or_else(|error| panic!("{name}: {error}"));
        assert!(!typed.workers.is_empty(), "{name} declares workers");
    }
}

#[test]
fn a_key_the_check_refuses_as_unknown_the_schema_refuses_at_its_table() {
    // Each edit adds one unknown key to one table of the golden repository: the check names the table, and the
    // schema reports the same table by its JSON path.
    let cases = [
        ("format = 1", "format = 1\nformats = 2", "the top level", ""),
        ("files = [", "file = []\nfiles = [", "[schemas]", "/schemas"),
        ("hello = 10", "hello = 10\nexcute = 5", "[timeouts]", "/timeouts"),
        ("implementation = 300", "implementation = 300\nevaluations = 5", "[budgets]", "/budgets"),
        ("format = 1", "format = 1\n[limits]\nprocess = 5", "[limits]", "/limits"),
        ("source = \"workers/judge\"", "source = \"workers/judge\"\nsources = []", "[workers.judge]", "/workers/judge"),
        ("output_schema =", "outputschema = 1\noutput_schema =", "[datasets.small]", "/datasets/small"),
        (
            "evaluator = \"judge\"",
            "evaluator = \"judge\"\nprofile = { checkpoint = 2 }",
            "[problems.ls.profile]",
            "/problems/ls/profile",
        ),
        ("evaluator = \"judge\"", "evaluator = \"judge\"\nmetrics_schema = \"x\"", "[problems.ls]", "/problems/ls"),
        (
            "worker = \"exact-solver\"",
            "worker = \"exact-solver\"\ncapability = []",
            "[implementations.exact]",
            "/implementations/exact",
        ),
        ("format = 1", "format = 1\n[campaigns.main]\nrepetition = 2", "[campaigns.main]", "/campaigns/main"),
        (
            "format = 1",
            "format = 1\n[campaigns.main]\ndataset_seeds = { from = 0, cout = 2 }",
            "[campaigns.main.dataset_seeds]",
            "/campaigns/main/dataset_seeds",
        ),
    ];
    for (find, replace, table, path) in cases {
        let dir = golden_copy(|toml| toml.replacen(find, replace, 1));
        let error = check_error(dir.path());
        match error.kind() {
            CheckErrorKind::UnknownKey { table: named, .. } => assert_eq!(named, table, "{error}"),
            other => panic!("{replace:?}: the check refuses it for another reason: {other:?}"),
        }
        let text = fs::read_to_string(dir.path().join("metewand.toml")).unwrap();
        let value = definition_json(&text).unwrap();
        let errors = schema_errors(&value);
        assert!(
            errors.iter().any(|(at, _)| at == path),
            "{replace:?}: the schema reports {errors:?}, none at {path:?}"
        );
        assert!(
            serde_json::from_value::<RepositoryDefinition>(value).is_err(),
            "{replace:?}: the generated type accepts it"
        );
    }
}

#[test]
fn the_timeouts_the_schema_allows_are_the_phases() {
    let phases: Vec<&str> = Phase::ALL.iter().map(|phase| phase.as_str()).collect();
    assert_eq!(Timeouts::PROPERTIES, phases);
}

#[test]
fn a_value_the_check_refuses_the_schema_refuses_where_it_can_say_so() {
    // Each edit breaks one rule the check enforces and the schema also says: both refuse it, the schema at the
    // value's JSON path (or beneath it), and so does the generated type.
    let campaign = |line: &str| format!("format = 1\n[campaigns.main]\n{line}");
    let cases: Vec<(&str, String, &str)> = vec![
        ("[implementations.exact]", "[implementations.\"exact solver\"]".to_owned(), "/implementations"),
        ("[workers.judge]", "[workers.-judge]".to_owned(), "/workers"),
        ("format = 1", "format = 1\n[limits]\nprocesses = 0".to_owned(), "/limits/processes"),
        ("format = 1", "format = 1\n[limits]\nmemory_bytes = -1".to_owned(), "/limits/memory_bytes"),
        ("format = 1", "format = 1\n[limits]\noutput_bytes = 0".to_owned(), "/limits/output_bytes"),
        ("command = [\"python3\", \"judge.py\"]", "command = []".to_owned(), "/workers/judge/command"),
        (
            "command = [\"python3\", \"judge.py\"]",
            "command = [\"python3\", \"${HOME}/judge.py\"]".to_owned(),
            "/workers/judge/command/1",
        ),
        (
            "source = \"workers/judge\"",
            "source = \"workers/judge\"\nenv = { \"A=B\" = \"x\" }".to_owned(),
            "/workers/judge/env",
        ),
        (
            "source = \"workers/judge\"",
            "source = \"workers/judge\"\nenv = { A = \"${repo\" }".to_owned(),
            "/workers/judge/env/A",
        ),
        (
            "evaluator = \"judge\"",
            "evaluator = \"judge\"\nprofile = { checkpoints = 0 }".to_owned(),
            "/problems/ls/profile/checkpoints",
        ),
        (
            "evaluator = \"judge\"",
            "evaluator = \"judge\"\nprofile = { checkpoints = 1001 }".to_owned(),
            "/problems/ls/profile/checkpoints",
        ),
        (
            "evaluator = \"judge\"",
            "evaluator = \"judge\"\nrejudge_tolerance = 0".to_owned(),
            "/problems/ls/rejudge_tolerance",
        ),
        (
            "evaluator = \"judge\"",
            "evaluator = \"judge\"\nrejudge_tolerance = -1e-6".to_owned(),
            "/problems/ls/rejudge_tolerance",
        ),
        (
            "worker = \"exact-solver\"",
            "worker = \"exact-solver\"\ncapabilities = [\"one_shot\", \"one_shot\"]".to_owned(),
            "/implementations/exact/capabilities",
        ),
        ("format = 1", campaign("problems = []"), "/campaigns/main/problems"),
        ("format = 1", campaign("datasets = [\"small\", \"small\"]"), "/campaigns/main/datasets"),
        ("format = 1", campaign("repetitions = 0"), "/campaigns/main/repetitions"),
        ("format = 1", campaign("warmup = 1001\nsessions = \"reuse\""), "/campaigns/main/warmup"),
        ("format = 1", campaign("dataset_seeds = []"), "/campaigns/main/dataset_seeds"),
        ("format = 1", campaign("implementation_seeds = [3, 3]"), "/campaigns/main/implementation_seeds"),
        ("format = 1", campaign("dataset_seeds = { from = 4, count = 0 }"), "/campaigns/main/dataset_seeds"),
    ];
    for (find, replace, path) in cases {
        let dir = golden_copy(|toml| toml.replacen(find, &replace, 1));
        let error = check_error(dir.path());
        assert!(
            matches!(error.kind(), CheckErrorKind::InvalidValue { .. } | CheckErrorKind::Substitution { .. }),
            "{replace:?}: the check refuses it for another reason: {error}"
        );
        let text = fs::read_to_string(dir.path().join("metewand.toml")).unwrap();
        let value = definition_json(&text).unwrap();
        let errors = schema_errors(&value);
        assert!(
            errors.iter().any(|(at, _)| at.starts_with(path)),
            "{replace:?}: the schema reports {errors:?}, none at {path:?}"
        );
        assert!(
            serde_json::from_value::<RepositoryDefinition>(value).is_err(),
            "{replace:?}: the generated type accepts it"
        );
    }
}
