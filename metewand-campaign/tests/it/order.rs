//! The order a run takes its attempts in: interleaved within each dataset, a cell's attempts never back to back
//! while another cell has attempts left, drawn with a recorded seed; and the machine's noise each run records.

use std::collections::{BTreeMap, HashSet};

use metewand_campaign::order::{interleave, order_seed};
use metewand_campaign::{Axes, CampaignPlan};
use metewand_runtime::repository::Seeds;

use crate::{Bench, records};

type Cell = (u32, u32, u64);

fn cell_of(plan: &CampaignPlan<'_>, index: usize) -> Cell {
    let attempt = &plan.attempts()[index];
    (attempt.problem, attempt.implementation, attempt.implementation_seed.get())
}

/// Asserts that `ordered` is a permutation of `indices` in which each cell keeps its attempts' order and no cell
/// follows itself while another cell has attempts left after it.
fn assert_interleaved(plan: &CampaignPlan<'_>, indices: &[usize], ordered: &[usize]) {
    let mut sorted = ordered.to_vec();
    sorted.sort_unstable();
    let mut expected = indices.to_vec();
    expected.sort_unstable();
    assert_eq!(sorted, expected, "every attempt once");
    let mut seen: BTreeMap<Cell, Vec<u64>> = BTreeMap::new();
    for &index in ordered {
        seen.entry(cell_of(plan, index)).or_default().push(plan.attempts()[index].repetition);
    }
    for repetitions in seen.values() {
        assert!(repetitions.is_sorted(), "a cell's attempts keep their order: {repetitions:?}");
    }
    for (position, pair) in ordered.windows(2).enumerate() {
        if cell_of(plan, pair[0]) == cell_of(plan, pair[1]) {
            let others: HashSet<Cell> = ordered[position + 1..].iter().map(|&index| cell_of(plan, index)).collect();
            assert_eq!(others.len(), 1, "a cell ran twice in a row while another had attempts left: {ordered:?}");
        }
    }
}

#[test]
fn a_cell_never_follows_itself_while_another_has_attempts_left() {
    let bench = Bench::new("");
    let repository = bench.load();
    for (implementations, seeds, repetitions) in [(1, 2, 3), (2, 1, 4), (2, 3, 5), (1, 7, 2)] {
        let names = ["solve", "fail"][..implementations].iter().map(|name| (*name).to_owned()).collect();
        let axes = Axes {
            implementations: Some(names),
            implementation_seeds: Some(Seeds::Range { from: 0_u64.try_into().unwrap(), count: seeds }),
            repetitions: Some(repetitions),
            ..Axes::default()
        };
        let plan = CampaignPlan::new(&repository, Some("main"), &axes).unwrap();
        let key: Vec<usize> = (0..plan.attempts().len()).filter(|&index| plan.attempts()[index].key == 0).collect();
        let ordered = interleave(&plan, &key, 7);
        assert_interleaved(&plan, &key, &ordered);
        assert_eq!(ordered, interleave(&plan, &key, 7), "one seed, one order");
        let cells = implementations as u64 * seeds;
        if cells >= 3 {
            // The turn rotates: the first cell of each round is not always the same.
            let firsts: HashSet<Cell> = ordered.chunks(cells as usize).map(|round| cell_of(&plan, round[0])).collect();
            assert!(firsts.len() > 1, "{ordered:?}");
        }
        // What a resumed run has left (every third attempt done) is interleaved as well.
        let left: Vec<usize> = key.iter().copied().enumerate().filter(|(n, _)| n % 3 != 0).map(|(_, i)| i).collect();
        assert_interleaved(&plan, &left, &interleave(&plan, &left, 7));
    }
    // One cell alone keeps the plan's order.
    let plan = CampaignPlan::new(&repository, Some("main"), &Axes::default()).unwrap();
    let key: Vec<usize> = (0..plan.attempts().len()).filter(|&index| plan.attempts()[index].key == 0).collect();
    assert_eq!(interleave(&plan, &key, 7), key);
}

#[test]
fn a_run_takes_its_attempts_interleaved_and_records_the_seed() {
    let bench = Bench::new("");
    let config = |axes: &mut Axes| {
        axes.implementations = Some(vec!["solve".to_owned()]);
        axes.implementation_seeds = Some(Seeds::Range { from: 0_u64.try_into().unwrap(), count: 3 });
        axes.repetitions = Some(3);
        axes.dataset_seeds = Some(Seeds::List(vec![0_u64.try_into().unwrap()]));
    };
    let summary = bench.run_axes("main", "interleaved", 1, config);
    assert_eq!(summary.ran, 9);
    let mut started: Vec<(String, Cell)> = records(&bench.folder("interleaved"))
        .values()
        .map(|record| {
            let cell = (0, 0, record["implementation"]["seed"].as_u64().unwrap());
            (record["started_at"].as_str().unwrap().to_owned(), cell)
        })
        .collect();
    started.sort();
    for pair in started.windows(2) {
        assert_ne!(pair[0].1, pair[1].1, "a cell ran twice in a row: {started:?}");
    }
    let file: serde_json::Value =
        serde_json::from_slice(&std::fs::read(bench.folder("interleaved").join("campaign.json")).unwrap()).unwrap();
    assert_eq!(file["runs"][0]["order"], serde_json::json!({"rule": "interleaved", "seed": order_seed("main")}));
    assert!(order_seed("main") < 1 << 53 && order_seed("main") != order_seed("mixed"));
    // The run also recorded what skews times on the machine, as the kernel says it now.
    let noise = &file["runs"][0]["environment"]["noise"];
    let expected = serde_json::to_value(metewand_campaign::environment::noise()).unwrap();
    assert_eq!(noise["aslr"], expected["aslr"], "{noise}");
    assert_eq!(noise["governors"], expected["governors"], "{noise}");
    assert_eq!(noise["isolated_cpus"], expected["isolated_cpus"], "{noise}");
    assert!(noise["load"].as_str().is_some_and(|load| load.split(' ').count() == 3), "{noise}");
}

/// A campaign's `warmup` warms its fresh sessions too: each attempt's record says so.
#[test]
fn a_campaign_warms_up_its_fresh_sessions() {
    let bench = Bench::new("");
    let summary = bench.run_configured("main", "warm", 1, |config, _| config.warmup = 2);
    assert_eq!(summary.ran, 4);
    for record in records(&bench.folder("warm")).values() {
        assert_eq!(record["implementation"]["session"], serde_json::json!({"index": 0, "mode": "fresh", "warmup": 2}));
    }
}
