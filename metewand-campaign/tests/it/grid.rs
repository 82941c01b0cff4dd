//! Grids in campaigns: an axis names every point of a grid or some of them, a point whose resolved parameters are a
//! plain definition's has its ids, and the exports carry a typed column per grid key.

use std::fs;

use metewand_campaign::{Axes, CampaignPlan, PlanError};
use metewand_runtime::repository::SelectionErrorKind;
use serde_json::{Value, json};

use crate::Bench;

/// The fixture with a grid of datasets over `rows` (2 is the plain `small`'s), a grid of implementations over a
/// number and a string, and a campaign over both.
fn grid_bench() -> Bench {
    let bench = Bench::new("");
    let path = bench.repo().join("metewand.toml");
    let mut toml = fs::read_to_string(&path).unwrap();
    toml.push_str(
        "\n[datasets.sized]\nmaterializer = \"gen\"\ngrid = { rows = [2, 3] }\n\
         output_schema = { type = \"object\", required = [\"seed\"] }\n\
         \n[implementations.tuned]\nworker = \"solver\"\nparameters = {}\ngrid = { level = [1, \"high\"] }\n\
         \n[campaigns.study]\ndatasets = [\"sized\"]\nimplementations = [\"tuned\"]\n",
    );
    fs::write(&path, toml).unwrap();
    bench
}

#[test]
fn an_axis_names_a_grid_or_its_points_and_a_point_like_a_plain_dataset_has_its_ids() {
    let bench = grid_bench();
    let repository = bench.load();
    let axes = |datasets: &[&str]| Axes {
        datasets: Some(datasets.iter().map(|name| (*name).to_owned()).collect()),
        implementations: Some(vec!["solve".to_owned()]),
        ..Axes::default()
    };
    let plan = CampaignPlan::new(&repository, Some("main"), &axes(&["sized"])).unwrap();
    assert_eq!(plan.datasets(), ["sized[rows=2]", "sized[rows=3]"]);
    let point = CampaignPlan::new(&repository, Some("main"), &axes(&["sized[rows=3]"])).unwrap();
    assert_eq!(point.datasets(), ["sized[rows=3]"]);
    assert_eq!(point.attempts().len(), 4);
    // `sized[rows=2]` resolves to `small`'s parameters: the same attempts.
    let ids = |plan: &CampaignPlan<'_>| plan.attempts().iter().map(|a| a.id.to_string()).collect::<Vec<_>>();
    let twin = CampaignPlan::new(&repository, Some("main"), &axes(&["sized[rows=2]"])).unwrap();
    let small = CampaignPlan::new(&repository, Some("main"), &axes(&["small"])).unwrap();
    assert_eq!(ids(&twin), ids(&small));
    // A point named twice, or a grid and one of its points, is planned once.
    let both = CampaignPlan::new(&repository, Some("main"), &axes(&["sized[rows=3]", "sized"])).unwrap();
    assert_eq!(both.datasets(), ["sized[rows=3]", "sized[rows=2]"]);

    let error = CampaignPlan::new(&repository, Some("main"), &axes(&["sized[rows=30]"])).unwrap_err();
    assert!(
        matches!(&error, PlanError::Selection(selection) if matches!(selection.kind(), SelectionErrorKind::UnknownValue { .. })),
        "{error}"
    );
    assert_eq!(
        error.to_string(),
        "dataset \"sized\" has no point with rows=30 (did you mean \"3\"?) (its values: 2, 3)"
    );
    let error = CampaignPlan::new(&repository, Some("main"), &axes(&["sizd"])).unwrap_err();
    assert!(error.to_string().contains("(did you mean \"sized\"?)"), "{error}");
}

#[test]
fn the_exports_have_a_typed_column_per_grid_key_after_the_others() {
    let bench = grid_bench();
    bench.run("study", "out", 2, false);
    let folder = bench.folder("out");
    let csv = fs::read_to_string(folder.join("results.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(header[..2], ["attempt_id", "problem"]);
    assert_eq!(header[header.len() - 4..], ["peak_memory_bytes", "started_at", "dataset.rows", "implementation.level"]);
    let cells: Vec<(String, String, String, String)> = lines
        .map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            // No field here holds a comma; a quoted one doubles its quotes.
            let at = |name: &str| {
                let field = fields[header.iter().position(|column| *column == name).unwrap()];
                field
                    .strip_prefix('"')
                    .and_then(|f| f.strip_suffix('"'))
                    .map_or(field.to_owned(), |f| f.replace("\"\"", "\""))
            };
            (at("dataset"), at("implementation"), at("dataset.rows"), at("implementation.level"))
        })
        .collect();
    assert_eq!(cells.len(), 4);
    for (dataset, implementation, rows, level) in &cells {
        assert_eq!(dataset, &format!("sized[rows={rows}]"));
        let quoted = if level == "high" { format!("{level:?}") } else { level.clone() };
        assert_eq!(implementation, &format!("tuned[level={quoted}]"));
    }
    let jsonl = fs::read_to_string(folder.join("results.jsonl")).unwrap();
    let rows: Vec<Value> = jsonl.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    let mut typed: Vec<(Value, Value)> =
        rows.iter().map(|row| (row["dataset.rows"].clone(), row["implementation.level"].clone())).collect();
    typed.sort_by_key(|(rows, level)| format!("{rows}{level}"));
    assert_eq!(
        typed,
        [(json!(2), json!("high")), (json!(2), json!(1)), (json!(3), json!("high")), (json!(3), json!(1))]
    );
}
