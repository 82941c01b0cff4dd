//! The statistics a report and a comparison print: quantiles, a bootstrap interval of a median and of a ratio of
//! medians (resampled with [`SplitMix64`] from a fixed seed, so the same data always give the same interval), the
//! two-sided Mann–Whitney U test, the Wilcoxon signed-rank test with Holm's adjustment of several p-values, and
//! the geometric mean.
//!
//! Quantiles are R's type 7 (linear interpolation between order statistics: Python's
//! `statistics.quantiles(method="inclusive")`); a bootstrap interval is the percentile interval of
//! [`BOOTSTRAP_RESAMPLES`] resamples.

/// How many resamples a bootstrap interval takes.
pub const BOOTSTRAP_RESAMPLES: usize = 2000;

/// The significance level of a comparison: a cell differs when its Mann–Whitney p-value is below this.
pub const ALPHA: f64 = 0.05;

/// The largest `n1 + n2` for which the Mann–Whitney p-value is exact (samples without ties).
pub const EXACT_LIMIT: usize = 50;

/// SplitMix64 (Steele, Lea and Flood, 2014): a 64-bit generator whose whole state is one counter, so a fixed seed
/// gives one fixed stream on every machine.
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

    /// A uniform number in (0, 1), never either end.
    pub fn open_unit(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// A standard normal number (Box–Muller).
    fn normal(&mut self) -> f64 {
        let (radius, angle) = (self.open_unit(), self.open_unit());
        (-2.0 * radius.ln()).sqrt() * (std::f64::consts::TAU * angle).cos()
    }

    /// A Gamma(shape, 1) number, for `shape` at least 1 (Marsaglia and Tsang, 2000).
    fn gamma(&mut self, shape: f64) -> f64 {
        let d = shape - 1.0 / 3.0;
        let c = 1.0 / (9.0 * d).sqrt();
        loop {
            let x = self.normal();
            let v = (1.0 + c * x).powi(3);
            if v <= 0.0 {
                continue;
            }
            let u = self.open_unit();
            if u < 1.0 - 0.0331 * x.powi(4) || u.ln() < 0.5 * x * x + d * (1.0 - v + v.ln()) {
                return d * v;
            }
        }
    }

    /// A Beta(a, b) number, for `a` and `b` at least 1.
    pub fn beta(&mut self, a: f64, b: f64) -> f64 {
        let x = self.gamma(a);
        x / (x + self.gamma(b))
    }

    /// An index below `n` (Lemire's multiply-and-shift: the high half of a 128-bit product; its bias, below
    /// `n / 2^64`, is far under anything a report prints).
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

/// A seed for the bootstrap of one named cell: FNV-1a of its label, so a cell's interval does not depend on which
/// other cells a report holds.
pub fn seed_for(label: &str) -> u64 {
    label
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3))
}

/// The type-7 quantile `p` (0 to 1) of sorted data, `None` for no data.
pub fn quantile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let h = (sorted.len() - 1) as f64 * p.clamp(0.0, 1.0);
    let low = h.floor() as usize;
    let high = (low + 1).min(sorted.len() - 1);
    Some(sorted[low] + (h - low as f64) * (sorted[high] - sorted[low]))
}

/// The median of sorted data.
pub fn median(sorted: &[f64]) -> Option<f64> {
    quantile(sorted, 0.5)
}

/// A sample's median, quartiles and the bootstrap 95% interval of its median.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Summary {
    /// How many values.
    pub n: usize,
    /// The median.
    pub median: f64,
    /// The first quartile.
    pub q1: f64,
    /// The third quartile.
    pub q3: f64,
    /// The 2.5% point of the bootstrap distribution of the median.
    pub ci_low: f64,
    /// The 97.5% point.
    pub ci_high: f64,
}

impl Summary {
    /// The summary of `values` (any order), its bootstrap drawn from `seed`; `None` for no values.
    pub fn of(values: &[f64], seed: u64) -> Option<Summary> {
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let median = median(&sorted)?;
        let mut rng = SplitMix64::new(seed);
        let mut scratch = Vec::new();
        let mut medians: Vec<f64> =
            (0..BOOTSTRAP_RESAMPLES).map(|_| resampled_median(&sorted, &mut rng, &mut scratch)).collect();
        medians.sort_by(f64::total_cmp);
        Some(Summary {
            n: sorted.len(),
            median,
            q1: quantile(&sorted, 0.25)?,
            q3: quantile(&sorted, 0.75)?,
            ci_low: quantile(&medians, 0.025)?,
            ci_high: quantile(&medians, 0.975)?,
        })
    }
}

/// Above this many values, a resample's median is drawn from the distribution of its order statistics
/// ([`median_of_order_statistics`]) rather than from `n` counted draws ([`median_of_draws`]): the same bootstrap
/// distribution, at a cost that does not grow with `n`.
pub const DRAWN_LIMIT: usize = 1000;

/// The median of one resample (n draws with replacement) of sorted data: [`median_of_draws`] up to
/// [`DRAWN_LIMIT`] values, [`median_of_order_statistics`] beyond, and no draw at all from data of one value (a
/// single attempt, most often), whose every resample has that median. NaN for no data.
pub fn resampled_median(sorted: &[f64], rng: &mut SplitMix64, counts: &mut Vec<u32>) -> f64 {
    match (sorted.first(), sorted.last()) {
        (None, _) | (_, None) => return f64::NAN,
        (Some(first), Some(last)) if first == last => return *first,
        _ => {}
    }
    if sorted.len() > DRAWN_LIMIT {
        return median_of_order_statistics(sorted, rng);
    }
    median_of_draws(sorted, rng, counts)
}

/// The median of one resample of sorted data, drawn as `n` indices. The draws are counted per index and the middle
/// order statistics found by one pass over the counts: linear in n, with no sort. NaN for no data.
pub fn median_of_draws(sorted: &[f64], rng: &mut SplitMix64, counts: &mut Vec<u32>) -> f64 {
    let n = sorted.len();
    if n == 0 {
        return f64::NAN;
    }
    counts.clear();
    counts.resize(n, 0);
    for _ in 0..n {
        counts[rng.below(n)] += 1;
    }
    // The order statistics at 0-based ranks (n-1)/2 and n/2: equal for odd n.
    let (first, second) = ((n - 1) / 2, n / 2);
    let mut seen = 0usize;
    let mut low = None;
    for (index, &count) in counts.iter().enumerate() {
        seen += count as usize;
        if low.is_none() && seen > first {
            low = Some(sorted[index]);
        }
        if seen > second {
            return (low.unwrap_or(sorted[index]) + sorted[index]) / 2.0;
        }
    }
    sorted[n - 1]
}

/// The median of one resample of sorted data, drawn in constant time. A draw is the index `floor(n U)` of a uniform
/// `U`, so the resample's `m`-th smallest index is `floor(n U(m))`, where `U(m)`, the `m`-th smallest of `n`
/// uniforms, is Beta(m, n - m + 1); the next one above it is the smallest of the `n - m` uniforms left above
/// `U(m)`. Both middle order statistics are drawn so, with no resample built. NaN for no data.
pub fn median_of_order_statistics(sorted: &[f64], rng: &mut SplitMix64) -> f64 {
    let n = sorted.len();
    if n < 2 {
        return sorted.first().copied().unwrap_or(f64::NAN);
    }
    let index = |u: f64| ((n as f64 * u) as usize).min(n - 1);
    // The 1-based rank of the lower middle.
    let m = n.div_ceil(2);
    let low = rng.beta(m as f64, (n - m + 1) as f64);
    if n % 2 == 1 {
        return sorted[index(low)];
    }
    let high = low + (1.0 - low) * (1.0 - rng.open_unit().powf(1.0 / (n - m) as f64));
    (sorted[index(low)] + sorted[index(high)]) / 2.0
}

/// The ratio `median(b) / median(a)` and the bootstrap 95% interval of that ratio, both samples resampled
/// independently from `seed`; `None` when either sample is empty or `a`'s median is not positive.
pub fn ratio_of_medians(a: &[f64], b: &[f64], seed: u64) -> Option<(f64, f64, f64)> {
    let sort = |values: &[f64]| {
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        sorted
    };
    let (a, b) = (sort(a), sort(b));
    let ratio = median(&b)? / median(&a)?;
    if !ratio.is_finite() {
        return None;
    }
    let constant = |sorted: &[f64]| sorted.first() == sorted.last();
    if constant(&a) && constant(&b) {
        // Every resample gives this ratio.
        return Some((ratio, ratio, ratio));
    }
    let mut rng = SplitMix64::new(seed);
    let mut scratch = Vec::new();
    let mut ratios: Vec<f64> = (0..BOOTSTRAP_RESAMPLES)
        .map(|_| {
            let ma = resampled_median(&a, &mut rng, &mut scratch);
            let mb = resampled_median(&b, &mut rng, &mut scratch);
            mb / ma
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    Some((ratio, quantile(&ratios, 0.025)?, quantile(&ratios, 0.975)?))
}

/// The two-sided Mann–Whitney U test of two samples.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct MannWhitney {
    /// U of the first sample: the number of pairs (x from `a`, y from `b`) with x > y, ties counting one half.
    pub u: f64,
    /// The two-sided p-value.
    pub p: f64,
    /// Whether `p` is exact (small samples without ties) or the normal approximation.
    pub exact: bool,
}

/// The two-sided Mann–Whitney U test; `None` when a sample is empty. Exact (the permutation distribution of U,
/// counted by recurrence) when the samples have no ties and `n1 + n2 <= EXACT_LIMIT`; otherwise the normal
/// approximation with the tie correction of the variance and a continuity correction of 1/2.
pub fn mann_whitney(a: &[f64], b: &[f64]) -> Option<MannWhitney> {
    let (n1, n2) = (a.len(), b.len());
    if n1 == 0 || n2 == 0 {
        return None;
    }
    // Ranks of the pooled sample, ties given their mean rank.
    let mut pooled: Vec<(f64, bool)> = a.iter().map(|&x| (x, true)).chain(b.iter().map(|&y| (y, false))).collect();
    pooled.sort_by(|x, y| x.0.total_cmp(&y.0));
    let n = pooled.len();
    let mut rank_sum_a = 0.0;
    let mut tie_term = 0.0;
    let mut i = 0;
    while i < n {
        let mut j = i;
        while j + 1 < n && pooled[j + 1].0 == pooled[i].0 {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        let t = (j - i + 1) as f64;
        tie_term += t * t * t - t;
        rank_sum_a += pooled[i..=j].iter().filter(|(_, from_a)| *from_a).count() as f64 * rank;
        i = j + 1;
    }
    let (f1, f2) = (n1 as f64, n2 as f64);
    let u = rank_sum_a - f1 * (f1 + 1.0) / 2.0;
    if tie_term == 0.0 && n <= EXACT_LIMIT {
        let counts = u_distribution(n1, n2);
        let total: f64 = counts.iter().sum();
        let k = u.round() as usize;
        let below: f64 = counts[..=k].iter().sum::<f64>() / total;
        let above: f64 = counts[k..].iter().sum::<f64>() / total;
        return Some(MannWhitney { u, p: (2.0 * below.min(above)).min(1.0), exact: true });
    }
    let mean = f1 * f2 / 2.0;
    let variance = f1 * f2 / 12.0 * ((n as f64 + 1.0) - tie_term / (n as f64 * (n as f64 - 1.0)));
    if variance <= 0.0 {
        // Every value equal: no evidence of any difference.
        return Some(MannWhitney { u, p: 1.0, exact: false });
    }
    let z = ((u - mean).abs() - 0.5).max(0.0) / variance.sqrt();
    Some(MannWhitney { u, p: (2.0 * normal_upper_tail(z)).min(1.0), exact: false })
}

/// The smallest two-sided p-value the exact Mann–Whitney U test gives samples of sizes `n1` and `n2` (one of the two
/// extreme arrangements): 2 / C(n1 + n2, n1), at most 1; 1 when a sample is empty. Two samples of 2 cannot go below
/// 1/3, of 3 below 1/10; 4 a side is the least that can reach p < 0.05.
pub fn smallest_p(n1: usize, n2: usize) -> f64 {
    if n1 == 0 || n2 == 0 {
        return 1.0;
    }
    // C(n1 + n2, n1) built up one factor at a time, exact in f64 for every size a campaign has.
    let arrangements = (0..n1).fold(1.0_f64, |c, i| c * (n2 + 1 + i) as f64 / (i + 1) as f64);
    (2.0 / arrangements).min(1.0)
}

/// How many of the C(n1+n2, n1) arrangements give each U from 0 to n1·n2 (as f64: C(50, 25) exceeds 2^53 but its
/// ratios are all a p-value needs). The recurrence adds the largest pooled value to either sample.
fn u_distribution(n1: usize, n2: usize) -> Vec<f64> {
    // table[i][j] is the distribution for samples of sizes i and j.
    let mut table: Vec<Vec<Vec<f64>>> = vec![vec![Vec::new(); n2 + 1]; n1 + 1];
    for i in 0..=n1 {
        for j in 0..=n2 {
            table[i][j] = if i == 0 || j == 0 {
                vec![1.0]
            } else {
                let mut counts = vec![0.0; i * j + 1];
                // The largest value in the first sample exceeds all j of the second: U grows by j.
                for (u, count) in table[i - 1][j].iter().enumerate() {
                    counts[u + j] += count;
                }
                for (u, count) in table[i][j - 1].iter().enumerate() {
                    counts[u] += count;
                }
                counts
            };
        }
    }
    std::mem::take(&mut table[n1][n2])
}

/// P(Z > z) for a standard normal Z, from the complementary error function.
pub fn normal_upper_tail(z: f64) -> f64 {
    0.5 * erfc(z / std::f64::consts::SQRT_2)
}

/// The complementary error function (Numerical Recipes' Chebyshev fit `erfcc`, relative error below 1.2e-7 for
/// every argument: far below the precision a p-value is printed with).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98 + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let value = t * poly.exp();
    if x >= 0.0 { value } else { 2.0 - value }
}

/// The geometric mean of positive finite values; `None` when there are none.
pub fn geometric_mean(values: impl IntoIterator<Item = f64>) -> Option<f64> {
    let (sum, count) = values
        .into_iter()
        .filter(|value| value.is_finite() && *value > 0.0)
        .fold((0.0, 0usize), |(sum, count), value| (sum + value.ln(), count + 1));
    (count > 0).then(|| (sum / count as f64).exp())
}

/// The largest number of nonzero differences for which the signed-rank p-value is exact (differences without ties).
pub const EXACT_SIGNED_LIMIT: usize = 50;

/// The two-sided Wilcoxon signed-rank test of paired differences.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct SignedRank {
    /// The sum of the ranks of the positive differences (|d| ranked from 1, ties given their mean rank).
    pub w_plus: f64,
    /// How many differences are not zero (a zero says nothing of either direction and is dropped).
    pub n: usize,
    /// The two-sided p-value.
    pub p: f64,
    /// Whether `p` is exact (differences without ties in |d|) or the normal approximation.
    pub exact: bool,
}

impl SignedRank {
    /// Whether the differences lean positive: `w_plus` above its mean under no difference, `n (n + 1) / 4`.
    pub fn positive(&self) -> bool {
        let n = self.n as f64;
        self.w_plus > n * (n + 1.0) / 4.0
    }
}

/// The two-sided Wilcoxon signed-rank test of `differences` (infinite ones allowed: they rank above every finite
/// one; NaN is read as zero). Zeros are dropped. Exact (the distribution of `W+` over every assignment of signs,
/// counted by recurrence) when the nonzero differences have no ties in magnitude and number at most
/// [`EXACT_SIGNED_LIMIT`]; otherwise the normal approximation with the tie correction of the variance and a
/// continuity correction of 1/2. With no nonzero difference, `p` is 1.
pub fn signed_rank(differences: &[f64]) -> SignedRank {
    let mut nonzero: Vec<f64> = differences.iter().copied().filter(|d| *d != 0.0 && !d.is_nan()).collect();
    nonzero.sort_by(|a, b| a.abs().total_cmp(&b.abs()));
    let n = nonzero.len();
    if n == 0 {
        return SignedRank { w_plus: 0.0, n: 0, p: 1.0, exact: true };
    }
    let mut w_plus = 0.0;
    let mut tie_term = 0.0;
    let mut i = 0;
    while i < n {
        let mut j = i;
        while j + 1 < n && nonzero[j + 1].abs() == nonzero[i].abs() {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        let t = (j - i + 1) as f64;
        tie_term += t * t * t - t;
        w_plus += nonzero[i..=j].iter().filter(|d| **d > 0.0).count() as f64 * rank;
        i = j + 1;
    }
    let f = n as f64;
    if tie_term == 0.0 && n <= EXACT_SIGNED_LIMIT {
        // counts[w]: how many subsets of the ranks 1..=n sum to w.
        let mut counts = vec![0.0_f64; n * (n + 1) / 2 + 1];
        counts[0] = 1.0;
        for rank in 1..=n {
            for w in (rank..counts.len()).rev() {
                counts[w] += counts[w - rank];
            }
        }
        let total: f64 = counts.iter().sum();
        let k = w_plus.round() as usize;
        let below = counts[..=k].iter().sum::<f64>() / total;
        let above = counts[k..].iter().sum::<f64>() / total;
        return SignedRank { w_plus, n, p: (2.0 * below.min(above)).min(1.0), exact: true };
    }
    let mean = f * (f + 1.0) / 4.0;
    let variance = f * (f + 1.0) * (2.0 * f + 1.0) / 24.0 - tie_term / 48.0;
    if variance <= 0.0 {
        return SignedRank { w_plus, n, p: 1.0, exact: false };
    }
    let z = ((w_plus - mean).abs() - 0.5).max(0.0) / variance.sqrt();
    SignedRank { w_plus, n, p: (2.0 * normal_upper_tail(z)).min(1.0), exact: false }
}

/// The smallest two-sided p-value the exact signed-rank test gives `n` differences (all of one sign): `2 / 2^n`,
/// at most 1. Fewer than 6 can never reach p < 0.05.
pub fn smallest_signed_p(n: usize) -> f64 {
    (2.0 / 2f64.powi(n.min(1000) as i32)).min(1.0)
}

/// Holm's step-down adjustment of `p` (Holm, 1979): the `i`-th smallest of `m` p-values is multiplied by
/// `m - i + 1` (from `i = 1`), capped at 1 and made no smaller than the one before it. A hypothesis is rejected
/// at level alpha when its adjusted p-value is below alpha, which keeps the chance of any false rejection among
/// the `m` at most alpha. The adjusted values are returned in the order of `p`.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let mut adjusted = vec![0.0; m];
    let mut running: f64 = 0.0;
    for (i, &index) in order.iter().enumerate() {
        running = running.max(((m - i) as f64 * p[index]).min(1.0));
        adjusted[index] = running;
    }
    adjusted
}

/// The coefficient of variation above which a cell's times are warned of as noisy.
pub const NOISY_VARIATION: f64 = 0.10;

/// What makes a cell's times (`sorted`, ascending) doubtful, one phrase each: times beyond Tukey's fences (1.5
/// interquartile ranges past the quartiles), and a coefficient of variation above [`NOISY_VARIATION`]; nothing with
/// fewer than 4 times, where neither says anything.
pub fn noise_of(sorted: &[f64]) -> Vec<String> {
    let mut found = Vec::new();
    if sorted.len() < 4 {
        return found;
    }
    let (Some(q1), Some(q3)) = (quantile(sorted, 0.25), quantile(sorted, 0.75)) else { return found };
    let fence = 1.5 * (q3 - q1);
    let outliers = sorted.iter().filter(|&&time| time < q1 - fence || time > q3 + fence).count();
    if outliers > 0 {
        found.push(format!("{outliers} of {} times beyond Tukey's fences (1.5 IQR past the quartiles)", sorted.len()));
    }
    let n = sorted.len() as f64;
    let mean = sorted.iter().sum::<f64>() / n;
    let variance = sorted.iter().map(|time| (time - mean).powi(2)).sum::<f64>() / (n - 1.0);
    if mean > 0.0 && variance.sqrt() / mean > NOISY_VARIATION {
        found.push(format!(
            "coefficient of variation {:.0}% (above {:.0}%)",
            100.0 * variance.sqrt() / mean,
            100.0 * NOISY_VARIATION
        ));
    }
    found
}

/// The fewest times in a cell a drift is looked for in.
pub const DRIFT_ATTEMPTS: usize = 8;
/// The Mann–Kendall p-value below which a cell's times are said to drift.
pub const DRIFT_ALPHA: f64 = 0.01;

/// The Mann–Kendall statistic of `in_order`: over every pair of places `i < j`, the number of pairs whose later
/// value is greater less the number whose later value is smaller (values ordered by `total_cmp`, equal ones adding
/// nothing). Counted in O(n log n) rather than pair by pair: of the `n(n-1)/2` pairs, those of equal values are
/// counted from the sorted values, and the decreasing ones are the inversions a merge sort counts as it sorts, so
/// that a cell of 500,000 times takes milliseconds, not minutes.
pub fn mann_kendall_s(in_order: &[f64]) -> i64 {
    use std::cmp::Ordering;
    let n = in_order.len();
    let (mut from, mut to) = (in_order.to_vec(), vec![0.0; n]);
    let mut decreasing: u64 = 0;
    let mut width = 1;
    while width < n {
        for start in (0..n).step_by(2 * width) {
            let (middle, end) = ((start + width).min(n), (start + 2 * width).min(n));
            let (mut i, mut j) = (start, middle);
            for slot in &mut to[start..end] {
                // A value of the right half smaller than the left half's next is smaller than all that remain of
                // it, each of which comes earlier in the order: that many decreasing pairs.
                if j < end && (i == middle || from[j].total_cmp(&from[i]) == Ordering::Less) {
                    *slot = from[j];
                    decreasing += (middle - i) as u64;
                    j += 1;
                } else {
                    *slot = from[i];
                    i += 1;
                }
            }
        }
        std::mem::swap(&mut from, &mut to);
        width *= 2;
    }
    let mut equal: u64 = 0;
    let mut run: u64 = 1;
    for pair in from.windows(2) {
        if pair[0].total_cmp(&pair[1]) == Ordering::Equal {
            run += 1;
        } else {
            equal += run * (run - 1) / 2;
            run = 1;
        }
    }
    equal += run * (run - 1) / 2;
    let pairs = (n as u64) * (n as u64).saturating_sub(1) / 2;
    let increasing = pairs - equal - decreasing;
    increasing as i64 - decreasing as i64
}

/// A trend of a cell's times over the run's order (`in_order`: the times, in the order their attempts started),
/// by the Mann–Kendall test: Kendall's tau against the order and its two-sided p-value (normal approximation with
/// continuity correction, without a tie correction), as one phrase when p is below [`DRIFT_ALPHA`] with at least
/// [`DRIFT_ATTEMPTS`] times: the machine changed under the cell (a throttling CPU, a neighbour's job).
pub fn drift_of(in_order: &[f64]) -> Option<String> {
    let n = in_order.len();
    if n < DRIFT_ATTEMPTS {
        return None;
    }
    let s = mann_kendall_s(in_order);
    let nf = n as f64;
    let variance = nf * (nf - 1.0) * (2.0 * nf + 5.0) / 18.0;
    let z = (s.abs() as f64 - 1.0).max(0.0) / variance.sqrt();
    let p = (2.0 * normal_upper_tail(z)).min(1.0);
    let tau = s as f64 / (nf * (nf - 1.0) / 2.0);
    (p < DRIFT_ALPHA).then(|| {
        let way = if s > 0 { "rise" } else { "fall" };
        format!("times {way} over the run (Kendall's tau {tau:.2} against the order, p = {p:.3})")
    })
}
