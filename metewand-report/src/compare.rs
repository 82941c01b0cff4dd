//! Comparing two campaign folders, A (before, or one machine) and B (after, or another): attempts are matched by
//! cell (problem, dataset and dataset seed, implementation and implementation seed), and each matched cell gets
//! the ratio of B's median time (the problem's `timed`: execute, or prepare and execute) to A's with a bootstrap
//! 95% interval, the two-sided Mann–Whitney U p-value, and a verdict against a factor. Warnings say when the two
//! ran in different environments or with different identities, which makes their times less comparable.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;
use std::sync::Arc;

use metewand_campaign::index::Check;
use metewand_campaign::parallel::map_parallel;
use serde::Serialize;

use crate::error::ReportError;
use crate::kept::{CellKey, Cells, Kept};
use crate::load::Records;
use crate::measure::Measure;
use crate::stats::{ALPHA, geometric_mean, mann_whitney, median, ratio_of_medians, seed_for, smallest_p};
use crate::table::markdown::{self, escape};
use crate::table::{Cell, Column, Table};
use crate::units;

/// The default factor: B is worse when its median is more than 1.1 times A's.
pub const DEFAULT_FACTOR: f64 = 1.1;

/// How B's time changed from A's in one cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// B's median is below A's divided by the factor, and the difference is significant.
    Better,
    /// B's median is above A's times the factor, and the difference is significant.
    Worse,
    /// The ratio is within the factor either way.
    Same,
    /// Below A's divided by the factor, not significant.
    BetterNotSignificant,
    /// Above A's times the factor, not significant.
    WorseNotSignificant,
    /// One side has no timed attempt.
    Unmatched,
}

impl Change {
    /// How tables write it: `better`, `worse`, `same`, `~better`, `~worse`, `n/a`.
    pub fn label(self) -> &'static str {
        match self {
            Change::Better => "better",
            Change::Worse => "worse",
            Change::Same => "same",
            Change::BetterNotSignificant => "~better",
            Change::WorseNotSignificant => "~worse",
            Change::Unmatched => "n/a",
        }
    }
}

/// One matched cell.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CellComparison {
    /// The problem.
    pub problem: Arc<str>,
    /// The dataset.
    pub dataset: Arc<str>,
    /// The dataset seed.
    pub dataset_seed: u64,
    /// The implementation.
    pub implementation: Arc<str>,
    /// The implementation seed.
    pub implementation_seed: u64,
    /// Timed attempts (with a verdict) in A.
    pub n_a: usize,
    /// Timed attempts in B.
    pub n_b: usize,
    /// A's median ranked time, seconds.
    pub median_a: Option<f64>,
    /// B's median ranked time, seconds.
    pub median_b: Option<f64>,
    /// `median_b / median_a`.
    pub ratio: Option<f64>,
    /// The bootstrap 95% interval of the ratio.
    pub ratio_ci: Option<(f64, f64)>,
    /// The two-sided Mann–Whitney U p-value.
    pub p_value: Option<f64>,
    /// Whether the p-value is exact.
    pub exact: bool,
    /// The smallest p-value the exact test gives samples of these sizes: at or above the significance level, the
    /// cell cannot be significant however its times differ.
    pub smallest_p: f64,
    /// The verdict.
    pub verdict: Change,
}

impl CellComparison {
    /// `problem / dataset#seed / implementation#seed`.
    pub fn label(&self) -> String {
        format!(
            "{} / {}#{} / {}#{}",
            self.problem, self.dataset, self.dataset_seed, self.implementation, self.implementation_seed
        )
    }
}

/// One side of a comparison.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Side {
    /// The folder.
    pub folder: String,
    /// The campaign's name.
    pub name: String,
    /// The repository.
    pub repository: String,
    /// Planned attempts without a terminal record.
    pub missing: usize,
}

/// A comparison of two campaign folders.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    /// A.
    pub a: Side,
    /// B.
    pub b: Side,
    /// The factor.
    pub factor: f64,
    /// The significance level.
    pub alpha: f64,
    /// Cells present in both, in A's plan order.
    pub cells: Vec<CellComparison>,
    /// Cells only A has.
    pub only_a: usize,
    /// Cells only B has.
    pub only_b: usize,
    /// The geometric mean of the ratios of cells with one on both sides.
    pub geometric_mean: Option<f64>,
    /// Cells by verdict label.
    pub by_verdict: BTreeMap<String, usize>,
    /// What makes the two less comparable.
    pub warnings: Vec<String>,
    /// How each side's sessions served its records, where they differ ([`Comparison::sessions_differ`]).
    #[serde(skip)]
    pub sessions_differ: Option<(&'static str, &'static str)>,
    /// What the cells compare (`--measure`): wall time unless said.
    #[serde(skip_serializing_if = "Measure::is_wall")]
    pub measure: Measure,
}

impl Comparison {
    /// Reads and compares folders `a` and `b` with `factor` (greater than 1).
    pub fn new(a: &Path, b: &Path, factor: f64) -> Result<Comparison, ReportError> {
        Comparison::by(a, b, factor, Measure::Wall, Check::Entries)
    }

    /// Reads and compares folders `a` and `b` with `factor` (greater than 1) by `measure`, their index entries
    /// taken as `check` says.
    pub fn by(a: &Path, b: &Path, factor: f64, measure: Measure, check: Check) -> Result<Comparison, ReportError> {
        // One folder after the other, each kept only as its cells once read: two million attempts' records are
        // never held at once.
        let read = |path: &Path, looked_up: bool| -> Result<Kept, ReportError> {
            Ok(Kept::of(&Records::read_any(&[path.to_owned()], false, check)?.measured(measure), looked_up))
        };
        let a = read(a, false)?;
        let b = read(b, true)?;
        Ok(Comparison::kept(&a, &b, factor))
    }

    /// Compares records already read.
    pub fn of(a: &Records, b: &Records, factor: f64) -> Comparison {
        Comparison::kept(&Kept::of(a, false), &Kept::of(b, true), factor)
    }

    /// Compares two sides as kept (`b` with its cells looked up).
    fn kept(a: &Kept, b: &Kept, factor: f64) -> Comparison {
        let (cells_a, cells_b) = (&a.cells, &b.cells);
        // Each matched cell by its places on the two sides: eight bytes a cell where a million are matched.
        let matched: Vec<(usize, usize)> =
            (0..cells_a.len()).filter_map(|place| Some((place, cells_b.place(&cells_a.key(place))?))).collect();
        let compared =
            map_parallel(&matched, |&(a, b)| compare_cell(&cells_a.key(a), cells_a.times(a), cells_b.times(b), factor));
        // A cell of A matches at most one of B's, and each of B's at most one of A's.
        let only_a = cells_a.len() - compared.len();
        let only_b = cells_b.len() - compared.len();
        let mut by_verdict = BTreeMap::new();
        for cell in &compared {
            *by_verdict.entry(cell.verdict.label().to_owned()).or_insert(0) += 1;
        }
        let side = |kept: &Kept| Side {
            folder: kept.folder.path.to_string_lossy().into_owned(),
            name: kept.folder.name.clone(),
            repository: kept.folder.repository.clone(),
            missing: kept.folder.planned - kept.done,
        };
        let (a_side, b_side) = (side(a), side(b));
        let mut warnings = warnings(a, b);
        warnings.extend(noisy_cells(&matched, cells_a, cells_b));
        for (name, side) in [("A", &a_side), ("B", &b_side)] {
            if side.missing > 0 {
                warnings.push(format!(
                    "{name} is incomplete: {} planned attempts have no terminal record, so some cells have fewer \
                     attempts",
                    side.missing
                ));
            }
        }
        Comparison {
            a: a_side,
            b: b_side,
            factor,
            alpha: ALPHA,
            geometric_mean: geometric_mean(compared.iter().filter_map(|cell| cell.ratio)),
            cells: compared,
            only_a,
            only_b,
            by_verdict,
            warnings,
            sessions_differ: sessions_differ(a, b),
            measure: a.measure,
        }
    }

    /// Whether any cell is significantly worse than the factor.
    pub fn regressed(&self) -> bool {
        self.cells.iter().any(|cell| cell.verdict == Change::Worse)
    }

    /// The smallest p-value any matched cell's sample sizes allow (1 without cells): at or above the significance
    /// level, no cell can be significant, and no regression can ever be found.
    pub fn smallest_p(&self) -> f64 {
        self.cells.iter().map(|cell| cell.smallest_p).fold(1.0, f64::min)
    }

    /// Whether some cell's samples are large enough to be significant.
    pub fn can_conclude(&self) -> bool {
        self.smallest_p() < self.alpha
    }

    /// Where the two sides' implementation sessions served their records differently (fresh against reused), how
    /// each did: their times are not alike, so a regression between them means nothing.
    pub fn sessions_differ(&self) -> Option<(&'static str, &'static str)> {
        self.sessions_differ
    }

    /// The comparison as Markdown: warnings, the summary, then one row per matched cell.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "# Metewand comparison\n");
        let _ = writeln!(out, "- A: {} (campaign {})", escape(&self.a.folder), escape(&self.a.name));
        let _ = writeln!(out, "- B: {} (campaign {})\n", escape(&self.b.folder), escape(&self.b.name));
        if !self.measure.is_wall() {
            let _ = writeln!(out, "Compared by {} (`--measure`), not wall time.\n", self.measure.describe());
        }
        for warning in &self.warnings {
            let _ = writeln!(out, "**Warning:** {}\n", escape(warning));
        }
        let counts: Vec<String> = self.by_verdict.iter().map(|(verdict, count)| format!("{count} {verdict}")).collect();
        let _ = writeln!(
            out,
            "{} matched cells ({}); {} only in A, {} only in B. Geometric mean of the ratios B/A: {}. A cell is \
             worse when B's median ranked time is above {} times A's, better when below 1/{} of it; `~` marks a \
             difference that is not significant (two-sided Mann–Whitney U, p ≥ {}).\n",
            self.cells.len(),
            if counts.is_empty() { "none".to_owned() } else { counts.join(", ") },
            self.only_a,
            self.only_b,
            self.geometric_mean.map_or("–".to_owned(), units::ratio),
            self.factor,
            self.factor,
            self.alpha
        );
        if !self.cells.is_empty() && !self.can_conclude() {
            let _ = writeln!(
                out,
                "**No cell can be significant:** the smallest p these sample sizes allow is {:.3}, not below {}; \
                 4 timed attempts a side are the least that can be.\n",
                self.smallest_p(),
                self.alpha
            );
        }
        // The table a part at a time (a million cells' rows made whole would hold twelve strings each at once),
        // parts made side by side a few at a time and written in order.
        markdown::head_into(&mut out, &self.table_of(&[]));
        let parts: Vec<&[CellComparison]> = self.cells.chunks(4096).collect();
        for parts in parts.chunks(8) {
            let rows = map_parallel(parts, |cells| {
                let mut rows = String::new();
                markdown::rows_into(&mut rows, &self.table_of(cells));
                rows
            });
            for rows in rows {
                out.push_str(&rows);
            }
        }
        out
    }

    /// One row per matched cell: its names and seeds, the sample sizes, both medians, the ratio with its interval,
    /// the p-value and the verdict.
    pub fn table(&self) -> Table {
        self.table_of(&self.cells)
    }

    /// [`Comparison::table`] of `cells` alone.
    fn table_of(&self, cells: &[CellComparison]) -> Table {
        let columns = vec![
            Column::text("problem"),
            Column::text("dataset"),
            Column::figure("seed"),
            Column::text("implementation"),
            Column::figure("seed"),
            Column::figure("n A"),
            Column::figure("n B"),
            Column::figure("median A"),
            Column::figure("median B"),
            Column::figure("ratio B/A (95% CI)"),
            Column::figure("p"),
            Column::text("verdict"),
        ];
        let mut table = Table::new(columns);
        let none = || "–".to_owned();
        for cell in cells {
            let ratio = match (cell.ratio, cell.ratio_ci) {
                (Some(ratio), Some((low, high))) => {
                    format!("{} ({}–{})", units::ratio(ratio), units::ratio(low), units::ratio(high))
                }
                _ => none(),
            };
            table.push(vec![
                Cell::text(&*cell.problem),
                Cell::text(&*cell.dataset),
                Cell::text(cell.dataset_seed.to_string()),
                Cell::text(&*cell.implementation),
                Cell::text(cell.implementation_seed.to_string()),
                Cell::count(cell.n_a),
                Cell::count(cell.n_b),
                Cell::text(cell.median_a.map_or_else(none, |value| self.measure.value(value))),
                Cell::text(cell.median_b.map_or_else(none, |value| self.measure.value(value))),
                Cell::text(ratio),
                Cell::text(cell.p_value.map_or_else(none, |p| format!("{p:.3}"))),
                Cell::text(cell.verdict.label()),
            ]);
        }
        table
    }

    /// The comparison as JSON (pretty-printed, one trailing newline).
    pub fn json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_else(|error| format!("{{\"error\": \"{error}\"}}"));
        text.push('\n');
        text
    }
}

/// One matched cell's ratio, interval, test and verdict.
fn compare_cell(key: &CellKey<'_>, sample_a: &[f64], sample_b: &[f64], factor: f64) -> CellComparison {
    let sorted = |sample: &[f64]| {
        let mut sorted = sample.to_vec();
        sorted.sort_by(f64::total_cmp);
        sorted
    };
    let label = format!("{}\0{}\0{}\0{}\0{}", key.0, key.1, key.2, key.3, key.4);
    let ratio = ratio_of_medians(sample_a, sample_b, seed_for(&label));
    let test = mann_whitney(sample_a, sample_b);
    let verdict = match (ratio, test) {
        (Some((ratio, _, _)), Some(test)) => {
            // Samples too small to reach the level never are significant (the approximation used with ties could
            // otherwise claim what the exact test of the same sizes cannot).
            let significant = test.p < ALPHA && smallest_p(sample_a.len(), sample_b.len()) < ALPHA;
            if ratio > factor {
                if significant { Change::Worse } else { Change::WorseNotSignificant }
            } else if ratio < 1.0 / factor {
                if significant { Change::Better } else { Change::BetterNotSignificant }
            } else {
                Change::Same
            }
        }
        _ => Change::Unmatched,
    };
    CellComparison {
        problem: key.0.clone(),
        dataset: key.1.clone(),
        dataset_seed: key.2,
        implementation: key.3.clone(),
        implementation_seed: key.4,
        n_a: sample_a.len(),
        n_b: sample_b.len(),
        median_a: median(&sorted(sample_a)),
        median_b: median(&sorted(sample_b)),
        ratio: ratio.map(|(ratio, _, _)| ratio),
        ratio_ci: ratio.map(|(_, low, high)| (low, high)),
        p_value: test.map(|test| test.p),
        exact: test.is_some_and(|test| test.exact),
        smallest_p: smallest_p(sample_a.len(), sample_b.len()),
        verdict,
    }
}

/// How each side's implementation sessions served its records, where the two differ: `fresh sessions'`,
/// `reused sessions'` or `fresh and reused sessions'`.
fn sessions_differ(a: &Kept, b: &Kept) -> Option<(&'static str, &'static str)> {
    let modes = |kept: &Kept| match kept.sessions {
        (_, false) => "fresh sessions'",
        (false, true) => "reused sessions'",
        (true, true) => "fresh and reused sessions'",
    };
    let (sessions_a, sessions_b) = (modes(a), modes(b));
    (sessions_a != sessions_b).then_some((sessions_a, sessions_b))
}

/// The most doubtful cells a comparison names one by one; the rest are counted.
const NOISY_CELLS_NAMED: usize = 10;

/// A warning for each matched cell whose times on either side are doubtful ([`crate::stats::noise_of`]): outliers
/// beyond Tukey's fences, a high coefficient of variation; the first [`NOISY_CELLS_NAMED`], then how many more.
fn noisy_cells(matched: &[(usize, usize)], cells_a: &Cells, cells_b: &Cells) -> Vec<String> {
    let mut found = Vec::new();
    for &(a, b) in matched {
        let (problem, dataset, dataset_seed, implementation, implementation_seed) = cells_a.key(a);
        for (side, times) in [("A", cells_a.times(a)), ("B", cells_b.times(b))] {
            let mut sorted = times.to_vec();
            sorted.sort_by(f64::total_cmp);
            for phrase in crate::stats::noise_of(&sorted) {
                found.push(format!(
                    "{side}'s cell {problem} {dataset}#{dataset_seed} {implementation}#{implementation_seed} is \
                     doubtful: {phrase}"
                ));
            }
        }
    }
    if found.len() > NOISY_CELLS_NAMED {
        let more = found.len() - NOISY_CELLS_NAMED;
        found.truncate(NOISY_CELLS_NAMED);
        found.push(format!("and {more} more doubtful cells (outliers or a high coefficient of variation)"));
    }
    found
}

/// What differs between the two folders' environments and identities.
fn warnings(a: &Kept, b: &Kept) -> Vec<String> {
    let mut warnings = Vec::new();
    let (fa, fb) = (&a.folder, &b.folder);
    if fa.repository != fb.repository {
        warnings.push(format!("the repositories differ: A is {}, B is {}", fa.repository, fb.repository));
    }
    if let Some((sessions_a, sessions_b)) = sessions_differ(a, b) {
        warnings.push(format!(
            "the sessions differ: A's times are {sessions_a}, B's {sessions_b} (a reused session pays no start-up and \
             may keep state between the attempts it serves, so its times are not a fresh one's)"
        ));
    }
    let describe = |kept: &Kept| -> BTreeMap<&'static str, Vec<String>> {
        let mut fields: BTreeMap<&'static str, Vec<String>> = BTreeMap::new();
        for run in &kept.folder.runs {
            let env = &run.environment;
            let mut put = |name: &'static str, value: String| {
                let values = fields.entry(name).or_default();
                if !values.contains(&value) {
                    values.push(value);
                }
            };
            let show = |value: &Option<String>| value.clone().unwrap_or_else(|| "unknown".to_owned());
            put("Metewand version", env.metewand_version.clone());
            put("host", show(&env.host));
            put("OS", show(&env.os));
            put("kernel", show(&env.kernel));
            put("CPU", show(&env.cpu_model));
            put("logical CPUs", env.logical_cpus.to_string());
            put("memory", env.memory_bytes.map_or("unknown".to_owned(), |bytes| bytes.to_string()));
            put("concurrency (-j)", run.concurrency.to_string());
            for program in &env.workers {
                let worker = &program.worker;
                put(
                    "worker programs",
                    format!(
                        "{worker}: {}",
                        program.sha256.map_or_else(|| "not found".to_owned(), |sha| sha.to_string())
                    ),
                );
            }
        }
        fields
    };
    let (env_a, env_b) = (describe(a), describe(b));
    for (field, values_a) in &env_a {
        let values_b = env_b.get(field).cloned().unwrap_or_default();
        let (mut sorted_a, mut sorted_b) = (values_a.clone(), values_b.clone());
        sorted_a.sort();
        sorted_b.sort();
        if sorted_a != sorted_b {
            warnings.push(format!(
                "the environments differ in {field}: A ran with {}, B with {}",
                values_a.join("; "),
                if values_b.is_empty() { "none recorded".to_owned() } else { values_b.join("; ") }
            ));
        }
    }
    // Each side's Python workers as their last run found them: which distributions differ, by name.
    let python = |kept: &Kept| {
        let mut found = BTreeMap::new();
        for run in &kept.folder.runs {
            for program in &run.environment.workers {
                if let Some(environment) = &program.environment {
                    found.insert(program.worker.clone(), environment.distributions.clone());
                }
            }
        }
        found
    };
    let (python_a, python_b) = (python(a), python(b));
    for (worker, distributions_a) in &python_a {
        if let Some(distributions_b) = python_b.get(worker) {
            let difference = metewand_campaign::changes::environment_difference(distributions_a, distributions_b);
            if !difference.is_empty() {
                warnings.push(format!("the Python distributions of worker {worker} differ from A to B: {difference}"));
            }
        }
    }
    for ((kind, what), map_a, map_b) in [
        (("implementation", "worker identity"), &a.identities.implementations, &b.identities.implementations),
        (("problem", "contract id"), &a.identities.contracts, &b.identities.contracts),
        (("problem", "evaluator's identity"), &a.identities.evaluators, &b.identities.evaluators),
        (("dataset", "materializer's identity"), &a.identities.materializers, &b.identities.materializers),
    ] {
        for (name, ids_a) in map_a {
            if let Some(ids_b) = map_b.get(name)
                && ids_a != ids_b
            {
                let join =
                    |ids: &std::collections::BTreeSet<String>| ids.iter().cloned().collect::<Vec<_>>().join(", ");
                warnings.push(format!(
                    "the {what} of {kind} {name} differs (its source, command or schemas changed): A {}, B {}",
                    join(ids_a),
                    join(ids_b)
                ));
            }
        }
    }
    warnings
}
