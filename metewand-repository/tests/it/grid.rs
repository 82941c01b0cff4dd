//! Parameter grids: each point a definition of its own, named by its values, with the identity its resolved
//! parameters give; what a grid may not be; and the selections that name points.

use std::fs;
use std::path::Path;

use metewand_protocol::strict::SafeUint;
use metewand_repository::identity::attempt_id;
use metewand_repository::{CheckErrorKind, CheckedRepository, DefinitionKind, SelectionErrorKind};
use serde_json::json;

use crate::{check_error, golden_copy};

/// A dataset beside the golden `small` whose grid is over `rows`, and a grid of the solver's tolerance.
fn with_grids(rows: &str, tolerances: &str) -> String {
    format!(
        "\n[datasets.sizes]\nmaterializer = \"gen\"\nparameters = {{ noise = 0.25 }}\ngrid = {{ rows = [{rows}] }}\n\
         parameters_schema = \"urn:example:dataset-parameters:1\"\noutput_schema = \"urn:example:dataset:1\"\n\
         \n[implementations.tuned]\nworker = \"exact-solver\"\nparameters = {{ solver = \"exact\" }}\n\
         grid = {{ tol = [{tolerances}], iterations = [10] }}\n"
    )
}

/// The 1-based line and column of the first occurrence of `needle` in the repository's `metewand.toml`.
fn at(dir: &Path, needle: &str) -> Option<(usize, usize)> {
    let text = fs::read_to_string(dir.join("metewand.toml")).unwrap();
    let found = text.find(needle).unwrap_or_else(|| panic!("{needle:?} is not in the text"));
    Some((text[..found].matches('\n').count() + 1, text[..found].rsplit('\n').next().unwrap().chars().count() + 1))
}

#[test]
fn each_point_is_a_definition_named_by_its_values_and_merged_over_parameters() {
    let dir = golden_copy(|toml| format!("{toml}{}", with_grids("200, 100", "1e-3, 0.5")));
    let repository = CheckedRepository::load(dir.path()).unwrap();
    let sizes = repository.names(DefinitionKind::Dataset).grid("sizes").unwrap();
    assert_eq!(sizes.keys(), ["rows"]);
    assert_eq!(sizes.points().collect::<Vec<_>>(), ["sizes[rows=200]", "sizes[rows=100]"]);
    let point = repository.dataset("sizes[rows=100]").unwrap();
    assert_eq!(serde_json::Value::Object(point.parameters().clone()), json!({"noise": 0.25, "rows": 100}));
    assert_eq!(point.grid_values().get("rows"), Some(&json!(100)));
    assert!(repository.dataset("small").unwrap().grid_values().is_empty());
    // Keys in byte order, values in canonical JSON; the last key varies fastest.
    let tuned = repository.names(DefinitionKind::Implementation).grid("tuned").unwrap();
    assert_eq!(tuned.keys(), ["iterations", "tol"]);
    assert_eq!(tuned.points().collect::<Vec<_>>(), ["tuned[iterations=10,tol=0.001]", "tuned[iterations=10,tol=0.5]"]);
    // A point whose resolved parameters are the plain `small`'s is the same dataset: same key.
    let seed = SafeUint::try_from(3u64).unwrap();
    assert_eq!(point.key(seed), repository.dataset("small").unwrap().key(seed));
}

#[test]
fn a_grid_that_grows_adds_points_and_changes_no_existing_id() {
    let ids = |rows: &str, tolerances: &str| {
        let dir = golden_copy(|toml| format!("{toml}{}", with_grids(rows, tolerances)));
        let repository = CheckedRepository::load(dir.path()).unwrap();
        let problem = repository.problem("ls").unwrap();
        let seed = SafeUint::try_from(0u64).unwrap();
        let mut ids = std::collections::BTreeMap::new();
        for (dataset_name, dataset) in repository.datasets() {
            for (implementation_name, implementation) in repository.implementations() {
                let worker = repository.worker(implementation.worker()).unwrap();
                let id = attempt_id(
                    problem.contract_id(),
                    problem.parameters(),
                    &dataset.key(seed),
                    worker.identity(),
                    implementation.parameters(),
                    seed,
                    1,
                    None,
                );
                ids.insert(format!("{dataset_name} {implementation_name}"), id.to_string());
            }
        }
        ids
    };
    let before = ids("100, 200", "0.5");
    let after = ids("100, 200, 400", "0.5, 1e-6");
    assert_eq!(before.len(), 3 * 2);
    assert_eq!(after.len(), 4 * 3);
    for (cell, id) in &before {
        assert_eq!(after.get(cell), Some(id), "{cell}");
    }
    assert_eq!(after["sizes[rows=400] tuned[iterations=10,tol=0.000001]"].len(), before["small exact"].len());
}

#[test]
fn a_key_also_in_parameters_is_refused_at_the_key() {
    let dir = golden_copy(|toml| format!("{toml}{}", with_grids("1", "1").replace("rows = [1]", "noise = [1]")));
    let error = check_error(dir.path());
    assert!(
        matches!(error.kind(), CheckErrorKind::InvalidValue { key, message }
            if key == "datasets.sizes.grid.noise" && message.contains("also a key of dataset \"sizes\"'s parameters")),
        "{error}"
    );
    assert_eq!(error.location().position, at(dir.path(), "noise = [1]"), "{error}");
}

#[test]
fn a_list_of_no_value_or_more_than_a_thousand_is_refused() {
    let many = (0..1001).map(|i| i.to_string()).collect::<Vec<_>>().join(", ");
    for (rows, count) in [(String::new(), "0"), (many, "1001")] {
        let dir = golden_copy(|toml| format!("{toml}{}", with_grids(&rows, "1")));
        let error = check_error(dir.path());
        assert!(
            matches!(error.kind(), CheckErrorKind::InvalidValue { key, message }
                if key == "datasets.sizes.grid.rows" && message == &format!("lists {count} values; a grid's key lists from 1 to 1000 values")),
            "{error}"
        );
        assert_eq!(error.location().position, at(dir.path(), &format!("[{rows}]")), "{error}");
    }
    let dir = golden_copy(|toml| format!("{toml}{}", with_grids("1, 2, 1.0", "1")));
    let error = check_error(dir.path());
    assert!(error.to_string().contains("lists 1 twice"), "{error}");
}

#[test]
fn a_product_over_a_hundred_thousand_points_is_refused() {
    let values = |n: usize| (0..n).map(|i| i.to_string()).collect::<Vec<_>>().join(", ");
    let grid = format!("grid = {{ a = [{}], b = [{}], c = [{}] }}", values(100), values(100), values(11));
    let dir = golden_copy(|toml| format!("{toml}{}", with_grids("1", "1").replace("grid = { rows = [1] }", &grid)));
    let error = check_error(dir.path());
    assert!(error.to_string().contains("makes 100 x 100 x 11 = 110000 points, more than the 100000"), "{error}");
    assert_eq!(error.location().position, at(dir.path(), "{ a = ["), "{error}");
}

#[test]
fn a_point_its_schema_refuses_is_named() {
    let dir = golden_copy(|toml| format!("{toml}{}", with_grids("100, -1", "1")));
    let error = check_error(dir.path());
    assert!(
        matches!(error.kind(), CheckErrorKind::InvalidParameters { owner, .. } if owner == "dataset \"sizes[rows=-1]\""),
        "{error}"
    );
    assert_eq!(error.location().position, at(dir.path(), "[100, -1]"), "{error}");
}

#[test]
fn a_key_its_parameters_schema_does_not_allow_gets_a_guess() {
    let dir = golden_copy(|toml| format!("{toml}{}", with_grids("1", "1").replace("rows = [1]", "rws = [1, 2]")));
    let error = check_error(dir.path());
    assert_eq!(
        error.to_string(),
        format!(
            "metewand.toml:{}:{}: datasets.sizes.grid.rws is not a parameter urn:example:dataset-parameters:1 allows \
             (did you mean \"rows\"?)",
            at(dir.path(), "[1, 2]").unwrap().0,
            at(dir.path(), "[1, 2]").unwrap().1
        )
    );
}

#[test]
fn a_selection_names_every_point_or_some_and_a_wrong_one_gets_a_guess() {
    let dir = golden_copy(|toml| format!("{toml}{}", with_grids("200, 100", "1e-3, 0.5")));
    let repository = CheckedRepository::load(dir.path()).unwrap();
    let select = |kind, text| repository.select(kind, text);
    assert_eq!(select(DefinitionKind::Dataset, "sizes").unwrap(), ["sizes[rows=200]", "sizes[rows=100]"]);
    assert_eq!(select(DefinitionKind::Dataset, "sizes[rows=100]").unwrap(), ["sizes[rows=100]"]);
    assert_eq!(select(DefinitionKind::Dataset, "sizes[rows=100.0]").unwrap(), ["sizes[rows=100]"]);
    assert_eq!(select(DefinitionKind::Dataset, "small").unwrap(), ["small"]);
    assert_eq!(select(DefinitionKind::Implementation, "tuned[tol=0.5]").unwrap(), ["tuned[iterations=10,tol=0.5]"]);
    assert_eq!(
        select(DefinitionKind::Implementation, "tuned[tol=0.001,iterations=10]").unwrap(),
        ["tuned[iterations=10,tol=0.001]"]
    );
    let error = select(DefinitionKind::Dataset, "sizes[row=100]").unwrap_err();
    assert!(
        matches!(error.kind(), SelectionErrorKind::UnknownKey { suggestion: Some(key), .. } if key == "rows"),
        "{error}"
    );
    assert_eq!(
        error.to_string(),
        "dataset \"sizes\" has no grid key \"row\" (did you mean \"rows\"?) (its keys: rows)"
    );
    let error = select(DefinitionKind::Dataset, "sizes[rows=1000]").unwrap_err();
    assert!(
        matches!(error.kind(), SelectionErrorKind::UnknownValue { suggestion: Some(value), .. } if value == "100"),
        "{error}"
    );
    let error = select(DefinitionKind::Dataset, "sizez").unwrap_err();
    assert!(
        matches!(error.kind(), SelectionErrorKind::UnknownName { suggestion: Some(name), .. } if name == "sizes"),
        "{error}"
    );
    let error = select(DefinitionKind::Dataset, "small[rows=100]").unwrap_err();
    assert!(matches!(error.kind(), SelectionErrorKind::NoGrid { .. }), "{error}");
    let error = select(DefinitionKind::Dataset, "sizes[rows=100").unwrap_err();
    assert!(matches!(error.kind(), SelectionErrorKind::Malformed { .. }), "{error}");
}

#[test]
fn a_campaign_lists_grids_and_points_and_a_selection_naming_none_is_refused_where_written() {
    let campaign = "\n[campaigns.study]\ndatasets = [\"sizes[rows=100]\", \"small\"]\nimplementations = [\"tuned\"]\n";
    let dir = golden_copy(|toml| format!("{toml}{}{campaign}", with_grids("200, 100", "1e-3, 0.5")));
    let repository = CheckedRepository::load(dir.path()).unwrap();
    let study = repository.campaign("study").unwrap();
    assert_eq!(study.datasets, ["sizes[rows=100]", "small"]);
    assert_eq!(study.implementations, ["tuned[iterations=10,tol=0.001]", "tuned[iterations=10,tol=0.5]"]);
    assert_eq!(study.size(), 4);

    let dir = golden_copy(|toml| {
        format!("{toml}{}{}", with_grids("200, 100", "0.5"), campaign.replace("rows=100", "rows=2000"))
    });
    let error = check_error(dir.path());
    assert!(error.to_string().contains("has no point with rows=2000 (did you mean \"200\"?)"), "{error}");
    assert_eq!(error.location().position, at(dir.path(), "\"sizes[rows=2000]\""), "{error}");
}

/// A selection naming every key finds its one point by its place in the product: each point of a grid of three keys
/// (values in no sorted order) selects itself and no other.
#[test]
fn every_point_selects_itself() {
    let three = "grid = { tol = [0.5, 1e-3, 2], iterations = [10, 3], variant = [\"b\", \"a\", \"c\", \"d\"] }";
    let dir = golden_copy(|toml| {
        format!("{toml}{}", with_grids("200, 100", "1").replace("grid = { tol = [1], iterations = [10] }", three))
    });
    let repository = CheckedRepository::load(dir.path()).unwrap();
    let points = repository.select(DefinitionKind::Implementation, "tuned").unwrap();
    assert_eq!(points.len(), 24);
    for point in &points {
        assert_eq!(repository.select(DefinitionKind::Implementation, point).unwrap(), [*point]);
        let implementation = repository.implementation(point).unwrap();
        let (_, values) = metewand_repository::grid::point_values(point).unwrap();
        for (key, value) in values {
            assert_eq!(implementation.parameters().get(&key), Some(&value), "{point}");
        }
    }
}
