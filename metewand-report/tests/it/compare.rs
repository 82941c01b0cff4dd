//! Comparisons of synthetic campaigns: a known 2× slowdown is flagged in exactly its cells, a halving is better,
//! too few repetitions make a difference not significant (`~`), unmatched cells are counted, and differing
//! environments and identities are warned about.

use metewand_campaign::index::Check;
use metewand_report::{Change, Comparison, Measure, Records, Report};

use crate::{Campaign, Planned, at, temp, write_campaign};

/// Cells of problem `p`: implementations `a`, `b` and `c` on datasets `small` and `tall`, seed 0, eight
/// repetitions (two for `c`), execute times 1 ms to 1.7 ms by repetition, times `factor(implementation, dataset)`.
fn plan(factor: impl Fn(&str, &str) -> u64, divide: impl Fn(&str, &str) -> u64) -> Vec<Planned> {
    let mut plan = Vec::new();
    for implementation in ["a", "b", "c"] {
        for dataset in ["small", "tall"] {
            let repetitions = if implementation == "c" { 2 } else { 8 };
            for repetition in 1..=repetitions {
                let time = (1_000_000 + 100_000 * (repetition - 1)) * factor(implementation, dataset)
                    / divide(implementation, dataset);
                plan.push(Planned::new("p", dataset, implementation).repetition(repetition).time(time));
            }
        }
    }
    plan
}

fn verdict_of<'c>(
    comparison: &'c Comparison,
    implementation: &str,
    dataset: &str,
) -> &'c metewand_report::compare::CellComparison {
    comparison.cells.iter().find(|cell| *cell.implementation == *implementation && *cell.dataset == *dataset).unwrap()
}

#[test]
fn a_known_two_fold_slowdown_is_flagged_in_exactly_those_cells() {
    let dir = temp();
    write_campaign(&at(&dir, "before"), &Campaign::default(), &plan(|_, _| 1, |_, _| 1));
    // After: a on tall and c on small take twice as long; b on small takes half as long.
    let slower = |implementation: &str, dataset: &str| match (implementation, dataset) {
        ("a", "tall") | ("c", "small") => 2,
        _ => 1,
    };
    let faster = |implementation: &str, dataset: &str| if (implementation, dataset) == ("b", "small") { 2 } else { 1 };
    write_campaign(&at(&dir, "after"), &Campaign::default(), &plan(slower, faster));
    let comparison = Comparison::new(&at(&dir, "before"), &at(&dir, "after"), 1.1).unwrap();
    assert_eq!(comparison.cells.len(), 6);
    let worse: Vec<String> =
        comparison.cells.iter().filter(|cell| cell.verdict == Change::Worse).map(|cell| cell.label()).collect();
    assert_eq!(worse, ["p / tall#0 / a#0"], "only a on tall is significantly worse");
    assert!(comparison.regressed());
    let a_tall = verdict_of(&comparison, "a", "tall");
    assert_eq!(a_tall.ratio, Some(2.0));
    let (low, high) = a_tall.ratio_ci.unwrap();
    assert!(low <= 2.0 && 2.0 <= high && low > 1.1, "({low}, {high})");
    // Eight against eight, every B above every A: the exact two-sided p is 2 / C(16, 8).
    assert!(a_tall.exact);
    assert!((a_tall.p_value.unwrap() - 2.0 / 12870.0).abs() < 1e-15);
    let c_small = verdict_of(&comparison, "c", "small");
    assert_eq!((c_small.ratio, c_small.verdict), (Some(2.0), Change::WorseNotSignificant), "two against two");
    assert_eq!(c_small.verdict.label(), "~worse");
    assert_eq!(verdict_of(&comparison, "b", "small").verdict, Change::Better);
    for (implementation, dataset) in [("a", "small"), ("b", "tall"), ("c", "tall")] {
        let cell = verdict_of(&comparison, implementation, dataset);
        assert_eq!((cell.ratio, cell.verdict), (Some(1.0), Change::Same), "{implementation} on {dataset}");
    }
    // The geometric mean of 1, 2, 1/2, 1, 2, 1 is 2^(1/6).
    assert!((comparison.geometric_mean.unwrap() - 2f64.powf(1.0 / 6.0)).abs() < 1e-12);
    // Times spread from 1.0 to 1.7 ms: a coefficient of variation of 18% in each cell of eight on either side (a
    // cell of two says nothing), and no other warning.
    assert_eq!(comparison.warnings.len(), 8, "{:?}", comparison.warnings);
    assert!(
        comparison
            .warnings
            .iter()
            .all(|warning| warning.ends_with("is doubtful: coefficient of variation 18% (above 10%)")),
        "{:?}",
        comparison.warnings
    );
    assert!(
        comparison
            .warnings
            .contains(&"B's cell p tall#0 a#0 is doubtful: coefficient of variation 18% (above 10%)".to_owned())
    );
    let markdown = comparison.markdown();
    assert!(markdown.contains("| p | tall | 0 | a | 0 | 8 | 8 | 1.35 ms | 2.70 ms | 2.00× ("), "{markdown}");
    assert!(markdown.contains("~worse"));
    // With a larger factor the slowdown is the same.
    let lenient = Comparison::new(&at(&dir, "before"), &at(&dir, "after"), 2.5).unwrap();
    assert!(!lenient.regressed());
    assert_eq!(verdict_of(&lenient, "a", "tall").verdict, Change::Same);
}

#[test]
fn differing_environments_identities_and_cells_are_reported() {
    let dir = temp();
    let before = plan(|_, _| 1, |_, _| 1);
    let mut after = before.clone();
    after[0].state = crate::State::Missing;
    after.retain(|planned| planned.implementation != "c");
    after.push(Planned::new("p", "small", "d"));
    write_campaign(&at(&dir, "before"), &Campaign::default(), &before);
    write_campaign(
        &at(&dir, "after"),
        &Campaign { host: "other-host", worker_salt: "-changed", ..Campaign::default() },
        &after,
    );
    let a = Records::read(&[at(&dir, "before")]).unwrap();
    let b = Records::read(&[at(&dir, "after")]).unwrap();
    let comparison = Comparison::of(&a, &b, 1.1);
    assert_eq!((comparison.cells.len(), comparison.only_a, comparison.only_b), (4, 2, 1));
    let warnings = comparison.warnings.join("\n");
    assert!(
        warnings.contains("the environments differ in host: A ran with bench-host, B with other-host"),
        "{warnings}"
    );
    assert!(warnings.contains("the worker identity of implementation a differs"), "{warnings}");
    assert!(warnings.contains("the worker identity of implementation b differs"), "{warnings}");
    assert!(!warnings.contains("implementation c"), "c is only in A: {warnings}");
    assert!(!warnings.contains("kernel"), "{warnings}");
    assert!(warnings.contains("B is incomplete: 1 planned attempts have no terminal record"), "{warnings}");
    assert!(!warnings.contains("A is incomplete"), "{warnings}");
    assert!(comparison.markdown().contains("**Warning:** the environments differ in host"));
    // Same bytes for the same records.
    assert_eq!(Comparison::of(&a, &b, 1.1).json(), comparison.json());
    // Records of two folders given as one side: that side is its first folder, whose attempts are all done (the
    // second's records are not counted against its plan).
    let both = Records::read(&[at(&dir, "before"), at(&dir, "before")]).unwrap();
    let side = Comparison::of(&both, &b, 1.1).a;
    assert_eq!((side.folder.as_str(), side.missing), (at(&dir, "before").to_str().unwrap(), 0));
}

/// Two campaigns where wall time and CPU time disagree: after, every cell takes half as long on the clock but
/// three times the CPU (a parallel implementation), and the same peak memory. `--measure` decides which the
/// comparison, the report's ranking and its tables use, and says so.
#[test]
fn the_measure_decides_what_is_compared_and_ranked() {
    let dir = temp();
    let side = |wall_factor: f64, cpu_factor: f64| {
        let mut plan = Vec::new();
        for implementation in ["serial", "parallel"] {
            let (wall, cpu) = if implementation == "parallel" { (wall_factor, cpu_factor) } else { (1.0, 1.0) };
            for dataset_seed in 0..6 {
                for repetition in 1..=8 {
                    let base = 1_000_000.0 + 10_000.0 * (repetition + dataset_seed) as f64;
                    plan.push(
                        Planned::new("p", "small", implementation)
                            .seed(dataset_seed)
                            .repetition(repetition)
                            .time((base * wall) as u64)
                            .resources((base * cpu) as u64, 30 << 20),
                    );
                }
            }
        }
        plan
    };
    write_campaign(&at(&dir, "before"), &Campaign::default(), &side(1.0, 1.0));
    write_campaign(&at(&dir, "after"), &Campaign::default(), &side(0.5, 3.0));
    let (before, after) = (at(&dir, "before"), at(&dir, "after"));
    let verdicts = |measure: Measure| {
        let comparison = Comparison::by(&before, &after, 1.1, measure, Check::Entries).unwrap();
        let verdicts: Vec<Change> = comparison
            .cells
            .iter()
            .filter(|cell| &*cell.implementation == "parallel")
            .map(|cell| cell.verdict)
            .collect();
        (verdicts, comparison.markdown())
    };
    let (wall, wall_text) = verdicts(Measure::Wall);
    assert_eq!(wall, [Change::Better; 6], "half the wall time");
    assert!(!wall_text.contains("Compared by"), "wall time is not announced: {wall_text}");
    let (cpu, cpu_text) = verdicts(Measure::Cpu);
    assert_eq!(cpu, [Change::Worse; 6], "three times the CPU time");
    assert!(cpu_text.contains("Compared by CPU time"), "{cpu_text}");
    let (memory, memory_text) = verdicts(Measure::Memory);
    assert_eq!(memory, [Change::Same; 6], "the same peak memory");
    assert!(memory_text.contains("| 30.0 MiB | 30.0 MiB |"), "{memory_text}");

    // The report of the after campaign ranks parallel first by wall time and last by CPU time.
    let records = Records::read(&[after]).unwrap();
    let first = |records: Records| {
        let report = Report::new(&records, None);
        let ranking = report.problems[0].ranking.clone().unwrap();
        let times = metewand_report::table::markdown::render(&metewand_report::tables::times(&report.problems[0]));
        (ranking.ranked[0].implementation.clone(), report.title(), times)
    };
    let (fastest, title, times) = first(records.clone());
    assert_eq!((fastest.as_str(), title.as_str()), ("parallel", "campaign main"), "{times}");
    assert!(times.contains("execute time median") && times.contains("CPU time median"), "{times}");
    let (fastest, title, times) = first(records.measured(Measure::Cpu));
    assert_eq!(fastest, "serial", "{times}");
    assert!(title.ends_with("ranked by CPU time (user and system, of the implementation's whole session)"), "{title}");
    assert!(times.contains("| CPU time median [IQR] (95% CI) |"), "{times}");
}

/// A comparison's Markdown table is written a part of its rows at a time: across the parts' edges it is the table
/// made whole, rendered at once.
#[test]
fn a_long_comparison_table_is_written_as_the_whole_table() {
    let dir = temp();
    write_campaign(&at(&dir, "before"), &Campaign::default(), &plan(|_, _| 1, |_, _| 1));
    write_campaign(&at(&dir, "after"), &Campaign::default(), &plan(|_, _| 2, |_, _| 1));
    let mut comparison = Comparison::new(&at(&dir, "before"), &at(&dir, "after"), 1.1).unwrap();
    let cells = comparison.cells.clone();
    comparison.cells = (0..10_000).map(|i| cells[i % cells.len()].clone()).collect();
    for (i, cell) in comparison.cells.iter_mut().enumerate() {
        cell.implementation_seed = i as u64;
    }
    let markdown = comparison.markdown();
    let table = metewand_report::table::markdown::render(&comparison.table());
    assert!(markdown.ends_with(&table));
    assert_eq!(table.lines().count(), 2 + 10_000);
    assert!(markdown.contains("| 9999 |"));
}
