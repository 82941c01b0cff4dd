//! Plans: sizes, stable ids that do not depend on the order of the axes, and ids that change exactly where a
//! worker's source changed.

use std::collections::BTreeSet;
use std::fs;

use metewand_campaign::{Axes, CampaignPlan, PlanError};
use metewand_runtime::CheckedRepository;
use metewand_runtime::repository::Seeds;

use crate::Bench;

fn ids(plan: &CampaignPlan<'_>) -> BTreeSet<String> {
    plan.attempts().iter().map(|attempt| attempt.id.as_str().to_owned()).collect()
}

#[test]
fn a_plan_is_its_cells_times_repetitions_with_distinct_stable_ids() {
    let bench = Bench::new("");
    let repository = bench.load();
    let plan = CampaignPlan::new(&repository, Some("main"), &Axes::default()).unwrap();
    assert_eq!(plan.attempts().len(), 4);
    assert_eq!(plan.keys().len(), 2, "two dataset seeds");
    assert_eq!(ids(&plan).len(), 4, "ids are distinct");
    let repetitions: Vec<u64> = plan.attempts().iter().map(|attempt| attempt.repetition).collect();
    assert_eq!(repetitions, [1, 2, 1, 2]);
    let again = CheckedRepository::load(&bench.repo()).unwrap();
    assert_eq!(ids(&CampaignPlan::new(&again, Some("main"), &Axes::default()).unwrap()), ids(&plan));
}

#[test]
fn the_order_of_the_axes_does_not_change_the_ids() {
    let bench = Bench::new("");
    let repository = bench.load();
    let forward = Axes {
        datasets: Some(vec!["small".into(), "broken".into()]),
        implementations: Some(vec!["solve".into(), "fail".into()]),
        dataset_seeds: Some(Seeds::List(vec![0_u64.try_into().unwrap(), 3_u64.try_into().unwrap()])),
        ..Axes::default()
    };
    let backward = Axes {
        datasets: Some(vec!["broken".into(), "small".into()]),
        implementations: Some(vec!["fail".into(), "solve".into()]),
        dataset_seeds: Some(Seeds::List(vec![3_u64.try_into().unwrap(), 0_u64.try_into().unwrap()])),
        ..Axes::default()
    };
    let a = CampaignPlan::new(&repository, Some("mixed"), &forward).unwrap();
    let b = CampaignPlan::new(&repository, Some("mixed"), &backward).unwrap();
    assert_eq!(a.attempts().len(), 8);
    assert_eq!(ids(&a), ids(&b));
    assert_ne!(a.attempts()[0].id, b.attempts()[0].id, "the plan order follows the axes");
}

#[test]
fn editing_a_source_changes_exactly_its_attempts_ids() {
    let bench = Bench::new("");
    let before = {
        let repository = bench.load();
        let plan = CampaignPlan::new(&repository, Some("mixed"), &Axes::default()).unwrap();
        plan.attempts()
            .iter()
            .map(|attempt| (plan.implementations()[attempt.implementation as usize].clone(), attempt.id.clone()))
            .collect::<Vec<_>>()
    };
    fs::write(bench.repo().join("src-solver/README"), "edited\n").unwrap();
    let repository = bench.load();
    let plan = CampaignPlan::new(&repository, Some("mixed"), &Axes::default()).unwrap();
    assert_eq!(plan.attempts().len(), before.len(), "the same attempts, planned again");
    for ((implementation, old), attempt) in before.iter().zip(plan.attempts()) {
        assert_eq!(old != &attempt.id, implementation == "solve", "{implementation}");
    }
}

#[test]
fn unknown_names_and_campaigns_list_what_exists() {
    let bench = Bench::new("");
    let repository = bench.load();
    let error = CampaignPlan::new(&repository, Some("nope"), &Axes::default()).unwrap_err();
    assert_eq!(error.to_string(), "the repository has no campaign named \"nope\" (it has: main, mixed)");
    let axes = Axes { implementations: Some(vec!["fast".into()]), ..Axes::default() };
    let error = CampaignPlan::new(&repository, Some("main"), &axes).unwrap_err();
    assert!(matches!(&error, PlanError::UnknownName { kind: "implementation", .. }), "{error}");
    assert!(error.to_string().ends_with("(it has: fail, solve)"), "{error}");
    let ad_hoc = CampaignPlan::new(&repository, None, &Axes::default()).unwrap();
    assert_eq!(ad_hoc.attempts().len(), 4, "every problem, dataset and implementation");
    assert!(ad_hoc.name().starts_with("ad-hoc-"), "{}", ad_hoc.name());
}

#[test]
fn an_ad_hoc_campaign_is_named_after_its_axes_under_an_empty_name() {
    // The first 12 hex digits of the SHA-256 of
    // {"dataset_seeds":{"list":[0]},"datasets":["broken","small"],"implementation_seeds":{"list":[0]},
    // "implementations":["fail","solve"],"name":"","problems":["answer"],"repetitions":1}: the name folders already
    // carry, which must not change.
    let bench = Bench::new("");
    let repository = bench.load();
    let ad_hoc = CampaignPlan::new(&repository, None, &Axes::default()).unwrap();
    assert_eq!(ad_hoc.name(), "ad-hoc-b361ccdcf6e6");
    assert_eq!(ad_hoc.definition().name.as_str(), "ad-hoc-b361ccdcf6e6");
}

#[test]
fn a_plan_of_a_hundred_thousand_attempts_is_refused_only_past_the_limit() {
    let bench = Bench::new("");
    let repository = bench.load();
    let axes = |count| Axes {
        dataset_seeds: Some(Seeds::Range { from: 0_u64.try_into().unwrap(), count }),
        implementation_seeds: Some(Seeds::Range { from: 0_u64.try_into().unwrap(), count: 1000 }),
        ..Axes::default()
    };
    let error = CampaignPlan::new(&repository, Some("main"), &axes(1000)).unwrap_err();
    assert_eq!(error.to_string(), "the campaign plans 2000000 attempts, more than the 1000000 a campaign may hold");
    let plan = CampaignPlan::new(&repository, Some("main"), &axes(50)).unwrap();
    assert_eq!(plan.attempts().len(), 100_000);
    assert_eq!(plan.keys().len(), 50);
    assert_eq!(ids(&plan).len(), 100_000);
}
