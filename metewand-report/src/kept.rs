//! One side of a comparison as it is kept once its folder is read ([`Kept`]): its cells' times and what the
//! comparison's warnings need, so that a comparison of two folders of a million attempts drops each folder's records
//! before it reads the other.

use std::collections::HashMap;
use std::sync::Arc;

use crate::load::{Folder, Identities, Records};
use crate::measure::Measure;

/// (problem, dataset, dataset seed, implementation, implementation seed) by name (each shared by every cell that
/// names it).
pub(crate) type CellKey<'r> = (&'r Arc<str>, &'r Arc<str>, u64, &'r Arc<str>, u64);

/// The same, by the numbers of one side's names.
type Numbered = (u32, u32, u64, u32, u64);

/// One folder's records as a comparison keeps them.
pub(crate) struct Kept {
    pub(crate) folder: Folder,
    pub(crate) identities: Identities,
    /// Whether any of its records were served by fresh sessions, and by reused ones.
    pub(crate) sessions: (bool, bool),
    /// Its attempts with a terminal record.
    pub(crate) done: usize,
    pub(crate) measure: Measure,
    pub(crate) cells: Cells,
}

impl Kept {
    /// `records` (of one folder) as a comparison keeps them, its cells found by their names where `looked_up` (the
    /// side the other side's cells are looked up in).
    pub(crate) fn of(records: &Records, looked_up: bool) -> Kept {
        let (mut sessions, mut done) = ((false, false), 0);
        for (attempt, record) in records.recorded() {
            if record.reused {
                sessions.1 = true;
            } else {
                sessions.0 = true;
            }
            // Counted against the first folder's plan, as its side is told (records of several folders given to
            // `Comparison::of` would otherwise count more done than it planned).
            done += usize::from(record.terminal() && attempt.folder == 0);
        }
        Kept {
            folder: records.folders[0].clone(),
            identities: records.identities.clone(),
            sessions,
            done,
            measure: records.measure,
            cells: Cells::of(records, looked_up),
        }
    }
}

/// Each cell of one side, in plan order of first appearance: its key, and its ranked times (the problem's `timed`)
/// of attempts with a verdict (a streamed attempt's time to `reached`, when it reached).
pub(crate) struct Cells {
    /// The side's problem, dataset and implementation names, by number.
    names: [Vec<Arc<str>>; 3],
    keys: Vec<Numbered>,
    /// Every cell's times, cell after cell: those of cell `i` are `times[ends[i - 1]..ends[i]]` (a campaign of a
    /// million cells keeps one list, not a million).
    times: Vec<f64>,
    ends: Vec<usize>,
    /// Where the side's cells are looked up: the cells' places in the order of their keys, and each name's number.
    /// Empty otherwise.
    sorted: Vec<u32>,
    numbers: [HashMap<Arc<str>, u32>; 3],
}

impl Cells {
    /// The cells of `records`. Attempts are grouped into cells by sorting them by their keys, not through a map
    /// keyed by cell: a map of a million cells costs about 90 MB beside the million attempts' records.
    fn of(records: &Records, looked_up: bool) -> Cells {
        let shared = |names: &[String]| names.iter().map(|name| Arc::from(name.as_str())).collect::<Vec<Arc<str>>>();
        let names = [shared(&records.problems), shared(&records.datasets), shared(&records.implementations)];
        let key = |at: u32| {
            let attempt = &records.attempts[at as usize];
            (
                attempt.problem,
                attempt.dataset,
                attempt.dataset_seed,
                attempt.implementation,
                attempt.implementation_seed,
            )
        };
        // The attempts by key, each cell's in plan order (a stable sort): the first of each is where its cell first
        // appears, and cells are numbered in that order.
        let mut order: Vec<u32> = (0..records.attempts.len() as u32).collect();
        order.sort_by_key(|&at| key(at));
        let mut firsts: Vec<u32> = Vec::new();
        for (i, &at) in order.iter().enumerate() {
            if i == 0 || key(order[i - 1]) != key(at) {
                firsts.push(at);
            }
        }
        firsts.sort_unstable();
        let keys: Vec<Numbered> = firsts.iter().map(|&at| key(at)).collect();
        // Each attempt's cell: its place among the cells, found by its key.
        let mut by_key: Vec<u32> = (0..keys.len() as u32).collect();
        by_key.sort_unstable_by_key(|&place| keys[place as usize]);
        let place_of = |at: u32| {
            let key = key(at);
            by_key.binary_search_by_key(&key, |&place| keys[place as usize]).map(|found| by_key[found] as usize)
        };
        drop(order);
        let seconds =
            |at: u32| records.attempts[at as usize].record.as_ref().and_then(|record| record.compared_seconds());
        // Each timed attempt's place (`u32::MAX` for one without a time), then its time put in its cell's place.
        let mut counts = vec![0usize; keys.len()];
        let places: Vec<u32> = (0..records.attempts.len() as u32)
            .map(|at| match (seconds(at), place_of(at)) {
                (Some(_), Ok(place)) => {
                    counts[place] += 1;
                    place as u32
                }
                _ => u32::MAX,
            })
            .collect();
        let mut next: Vec<usize> = counts
            .iter()
            .scan(0, |end, count| {
                *end += count;
                Some(*end - count)
            })
            .collect();
        let ends: Vec<usize> = next.iter().zip(&counts).map(|(start, count)| start + count).collect();
        let mut times = vec![0.0; ends.last().copied().unwrap_or(0)];
        for (at, place) in places.into_iter().enumerate() {
            if let (Some(seconds), Some(next)) = (seconds(at as u32), next.get_mut(place as usize)) {
                times[*next] = seconds;
                *next += 1;
            }
        }
        let numbers = if looked_up {
            names
                .clone()
                .map(|names| names.into_iter().enumerate().map(|(number, name)| (name, number as u32)).collect())
        } else {
            by_key = Vec::new();
            Default::default()
        };
        Cells { names, keys, times, ends, sorted: by_key, numbers }
    }

    /// How many cells there are.
    pub(crate) fn len(&self) -> usize {
        self.keys.len()
    }

    /// The key of the cell at `place`.
    pub(crate) fn key(&self, place: usize) -> CellKey<'_> {
        let (problem, dataset, dataset_seed, implementation, implementation_seed) = self.keys[place];
        let [problems, datasets, implementations] = &self.names;
        (
            &problems[problem as usize],
            &datasets[dataset as usize],
            dataset_seed,
            &implementations[implementation as usize],
            implementation_seed,
        )
    }

    /// The times of the cell at `place`, in the order its attempts are planned.
    pub(crate) fn times(&self, place: usize) -> &[f64] {
        let start = if place == 0 { 0 } else { self.ends[place - 1] };
        &self.times[start..self.ends[place]]
    }

    /// The place of the cell `key` names on this side, where it has one (and its cells are looked up).
    pub(crate) fn place(&self, key: &CellKey<'_>) -> Option<usize> {
        let (problem, dataset, dataset_seed, implementation, implementation_seed) = *key;
        let [problems, datasets, implementations] = &self.numbers;
        let numbered = (
            *problems.get(&**problem)?,
            *datasets.get(&**dataset)?,
            dataset_seed,
            *implementations.get(&**implementation)?,
            implementation_seed,
        );
        let found = self.sorted.binary_search_by_key(&numbered, |&place| self.keys[place as usize]).ok()?;
        Some(self.sorted[found] as usize)
    }
}
