#!/usr/bin/env python3
"""An independent computation of the statistics `metewand-report` prints, with the standard library only.

Reads {"samples": [[x, ...], ...], "pairs": [[[a...], [b...]], ...], "seeds": [label, ...], "resamples": B} on
stdin (one seed label per sample and per pair) and writes, for each sample, the median and quartiles
(`statistics.quantiles(method="inclusive")`) and the bootstrap 95% interval of the median; for each pair, the
ratio of medians with its bootstrap interval, the two-sided Mann-Whitney U p-value (exact by enumerating every
split of the pooled sample when it is small and has no ties, the tie-corrected normal approximation with a
continuity correction otherwise, from `statistics.NormalDist`) and the geometric mean of the ratios.

The bootstrap draws the same SplitMix64 stream as the Rust code (that is what makes it reproducible), but builds
each resample as a list and takes `statistics.median` of it, where Rust counts draws per index. A sample of one
value draws nothing (every resample has that median).
"""

from __future__ import annotations

import itertools
import json
import statistics
import sys
from typing import Any

MASK = (1 << 64) - 1


class SplitMix64:
    def __init__(self, seed: int) -> None:
        self.state = seed & MASK

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        return (self.next() * n) >> 64


def fnv(label: str) -> int:
    state = 0xCBF29CE484222325
    for byte in label.encode():
        state = ((state ^ byte) * 0x100000001B3) & MASK
    return state


def resample_median(data: list[float], rng: SplitMix64) -> float:
    if min(data) == max(data):
        return data[0]  # every resample of one value has that median: nothing is drawn
    return statistics.median([data[rng.below(len(data))] for _ in data])


def percentiles(values: list[float]) -> tuple[float, float]:
    cuts = statistics.quantiles(values, n=40, method="inclusive")
    return cuts[0], cuts[-1]


def summary(sample: list[float], label: str, resamples: int) -> dict[str, Any]:
    data = sorted(sample)
    rng = SplitMix64(fnv(label))
    medians = [resample_median(data, rng) for _ in range(resamples)]
    low, high = percentiles(medians)
    if len(data) > 1:
        q1, middle, q3 = statistics.quantiles(data, n=4, method="inclusive")
    else:
        q1 = middle = q3 = data[0]
    return {"median": statistics.median(data), "q2": middle, "q1": q1, "q3": q3, "ci_low": low, "ci_high": high}


def mann_whitney(a: list[float], b: list[float]) -> float:
    pooled = a + b
    n1, n2 = len(a), len(b)
    u = sum(1.0 if x > y else 0.5 if x == y else 0.0 for x in a for y in b)
    if len(set(pooled)) == len(pooled) and n1 + n2 <= 20:
        ranks = sorted(pooled)
        below = above = total = 0
        for chosen in itertools.combinations(range(n1 + n2), n1):
            chosen_set = set(chosen)
            # U of the first sample for this split of the ranks.
            value = sum(1 for i in chosen for j in range(n1 + n2) if j not in chosen_set and ranks[i] > ranks[j])
            total += 1
            below += value <= u
            above += value >= u
        return min(1.0, 2 * min(below, above) / total)
    n = n1 + n2
    counts: dict[float, int] = {}
    for value in pooled:
        counts[value] = counts.get(value, 0) + 1
    ties = sum(t ** 3 - t for t in counts.values())
    variance = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)))
    if variance <= 0:
        return 1.0
    z = max(abs(u - n1 * n2 / 2) - 0.5, 0) / variance ** 0.5
    return min(1.0, 2 * (1 - statistics.NormalDist().cdf(z)))


def main() -> None:
    given = json.load(sys.stdin)
    resamples = given["resamples"]
    labels = iter(given["seeds"])
    samples = [summary(sample, next(labels), resamples) for sample in given["samples"]]
    pairs = []
    for a, b in given["pairs"]:
        rng = SplitMix64(fnv(next(labels)))
        sa, sb = sorted(a), sorted(b)
        ratios = []
        for _ in range(resamples):
            ma = resample_median(sa, rng)
            mb = resample_median(sb, rng)
            ratios.append(mb / ma)
        low, high = percentiles(ratios)
        pairs.append({
            "ratio": statistics.median(b) / statistics.median(a), "ci_low": low, "ci_high": high,
            "p": mann_whitney(a, b),
        })
    ratios_all = [pair["ratio"] for pair in pairs]
    json.dump({"samples": samples, "pairs": pairs, "geometric_mean": statistics.geometric_mean(ratios_all)}, sys.stdout)


if __name__ == "__main__":
    main()
