//! The order a campaign runs its attempts in (DESIGN §26): interleaved, so that a drift of the machine over a run
//! (a CPU that heats and slows, a neighbour's job, a filling page cache) falls on every implementation alike rather
//! than on whichever cell ran its repetitions while it lasted.
//!
//! Within each dataset (a key: its attempts wait for one materialization), the cells (problem, implementation and
//! implementation seed) take turns: at each step the cell with the most attempts left, other than the one just
//! taken, runs its next attempt; among cells with as many left, the turn goes by an order drawn once with the seed,
//! rotated by one each round, so that no cell is always first after the others. One cell's attempts are therefore
//! never back to back while another cell of the dataset has attempts left. The seed is drawn from the campaign's
//! name, so a resumed run orders what is left as the first run would have, and each run records the rule and the
//! seed in `campaign.json`.

use std::collections::HashMap;

use crate::plan::CampaignPlan;

/// SplitMix64 (Steele, Lea and Flood, 2014): a generator whose whole state is one counter, so that a seed gives
/// one stream on every machine: a campaign's order, an audit's sample.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator starting from `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The next 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `bound` (at least 1), by the high half of a 128-bit product (Lemire's multiply-and-shift; its
    /// bias, below `bound / 2^64`, is far under anything a draw of attempts could show).
    pub fn below(&mut self, bound: usize) -> usize {
        ((u128::from(self.next_u64()) * bound as u128) >> 64) as usize
    }

    /// `items` shuffled in place (Fisher–Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for last in (1..items.len()).rev() {
            let other = self.below(last + 1);
            items.swap(last, other);
        }
    }
}

/// The seed a campaign's order is drawn with: the first 53 bits of the SHA-256 of its name (a seed is a JSON
/// integer everywhere it is recorded).
pub fn order_seed(campaign: &str) -> u64 {
    let digest = metewand_runtime::Sha256Digest::of(campaign.as_bytes()).to_string();
    u64::from_str_radix(&digest[..16], 16).expect("a digest is hexadecimal") >> 11
}

/// `indices` (plan indices of one dataset key, in plan order) in the interleaved order drawn with `seed` (see the
/// module documentation). A cell's own attempts keep their order.
pub fn interleave(plan: &CampaignPlan<'_>, indices: &[usize], seed: u64) -> Vec<usize> {
    let mut cells: Vec<Vec<usize>> = Vec::new();
    let mut by_cell: HashMap<(u32, u32, u64), usize> = HashMap::new();
    for &index in indices {
        let attempt = &plan.attempts()[index];
        let cell = (attempt.problem, attempt.implementation, attempt.implementation_seed.get());
        let slot = *by_cell.entry(cell).or_insert_with(|| {
            cells.push(Vec::new());
            cells.len() - 1
        });
        cells[slot].push(index);
    }
    let count = cells.len();
    if count < 2 {
        return indices.to_vec();
    }
    // The turn among cells with as many attempts left: an order drawn with the seed, rotated by one each round.
    let mut drawn: Vec<usize> = (0..count).collect();
    SplitMix64::new(seed).shuffle(&mut drawn);
    let mut turn = vec![0; count];
    for (position, &cell) in drawn.iter().enumerate() {
        turn[cell] = position;
    }
    let mut next = vec![0; count];
    let mut ordered = Vec::with_capacity(indices.len());
    let mut previous = None;
    for step in 0..indices.len() {
        let round = step / count;
        let left = |cell: usize| cells[cell].len() - next[cell];
        let priority = |cell: usize| (left(cell), std::cmp::Reverse((turn[cell] + count - round % count) % count));
        let chosen = (0..count)
            .filter(|&cell| left(cell) > 0 && Some(cell) != previous)
            .max_by_key(|&cell| priority(cell))
            .or(previous)
            .expect("an attempt is left");
        ordered.push(cells[chosen][next[chosen]]);
        next[chosen] += 1;
        previous = Some(chosen);
    }
    ordered
}
