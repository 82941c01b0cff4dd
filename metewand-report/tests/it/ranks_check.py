#!/usr/bin/env python3
"""An independent computation of a problem's ranking, with the standard library only.

Reads {"rankings": [{"cells": [[[t, ...] per instance] per implementation], "seed": label}, ...], "resamples": B,
"differences": [[d, ...], ...]} on stdin and writes, for each ranking, each implementation's mean rank over the
instances with the 2.5% and 97.5% quantiles of its bootstrap distribution; for each list of differences, the
two-sided Wilcoxon signed-rank p-value: exact by enumerating every assignment of signs to the nonzero differences
when their magnitudes have no ties, the tie-corrected normal approximation with a continuity correction otherwise.

An empty cell (no judged attempt) has an infinite median and ranks last. The bootstrap draws the same SplitMix64
stream as the Rust code, in the order the Rust documentation states: per resample, per slot, one instance index,
then each implementation's resample of that instance's cell, built as a list here and given to
`statistics.median` (a cell of one distinct value draws nothing). Cells of more than 32 values, whose medians Rust
draws from their order statistics, are not given to it.
"""

from __future__ import annotations

import itertools
import json
import math
import statistics
import sys
from typing import Any

MASK = (1 << 64) - 1
INF = float("inf")


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


def fnv1a(label: str) -> int:
    value = 0xCBF29CE484222325
    for byte in label.encode():
        value = ((value ^ byte) * 0x100000001B3) & MASK
    return value


def ranks(values: list[float]) -> list[float]:
    """Mid-ranks by sorting: equal values share the mean of the positions they occupy."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    result = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for position in range(start, end + 1):
            result[order[position]] = (start + end) / 2 + 1
        start = end + 1
    return result


def interval(values: list[float]) -> tuple[float, float]:
    """The type-7 2.5% and 97.5% quantiles: the first and last of the 39 cut points into 40 parts."""
    cuts = statistics.quantiles(values, n=40, method="inclusive")
    return cuts[0], cuts[-1]


def cell_median(times: list[float]) -> float:
    return statistics.median(times) if times else INF


def resample_median(times: list[float], rng: SplitMix64) -> float:
    if not times:
        return INF
    if min(times) == max(times):
        return times[0]
    ordered = sorted(times)
    return statistics.median([ordered[rng.below(len(ordered))] for _ in ordered])


def ranking(cells: list[list[list[float]]], label: str, resamples: int) -> list[dict[str, float]]:
    k, n = len(cells), len(cells[0])
    mean = [0.0] * k
    for instance in range(n):
        for i, rank in enumerate(ranks([cell_median(cells[i][instance]) for i in range(k)])):
            mean[i] += rank
    rng = SplitMix64(fnv1a(label))
    boot: list[list[float]] = [[] for _ in range(k)]
    for _ in range(resamples):
        totals = [0.0] * k
        for _ in range(n):
            instance = rng.below(n)
            values = [resample_median(cells[i][instance], rng) for i in range(k)]
            for i, rank in enumerate(ranks(values)):
                totals[i] += rank
        for i in range(k):
            boot[i].append(totals[i] / n)
    out = []
    for i in range(k):
        low, high = interval(boot[i])
        out.append({"mean": mean[i] / n, "low": low, "high": high})
    return out


def signed_rank(differences: list[float]) -> float:
    nonzero = [d for d in differences if d != 0 and not math.isnan(d)]
    if not nonzero:
        return 1.0
    magnitudes = [abs(d) for d in nonzero]
    rank = ranks(magnitudes)
    w_plus = sum(r for r, d in zip(rank, nonzero) if d > 0)
    n = len(nonzero)
    if len(set(magnitudes)) == n and n <= 16:
        sums = [sum(r for r, sign in zip(rank, signs) if sign) for signs in itertools.product([0, 1], repeat=n)]
        below = sum(1 for s in sums if s <= w_plus) / len(sums)
        above = sum(1 for s in sums if s >= w_plus) / len(sums)
        return min(1.0, 2 * min(below, above))
    counts: dict[float, int] = {}
    for m in magnitudes:
        counts[m] = counts.get(m, 0) + 1
    ties = sum(t**3 - t for t in counts.values())
    mean = n * (n + 1) / 4
    variance = n * (n + 1) * (2 * n + 1) / 24 - ties / 48
    z = max(abs(w_plus - mean) - 0.5, 0) / math.sqrt(variance)
    return min(1.0, 2 * (1 - statistics.NormalDist().cdf(z)))


def main() -> None:
    data: dict[str, Any] = json.load(sys.stdin)
    for problem in data["rankings"]:
        for row in problem["cells"]:
            for cell in row:
                cell.sort()
    json.dump(
        {
            "rankings": [ranking(r["cells"], r["seed"], data["resamples"]) for r in data["rankings"]],
            "signed_rank": [signed_rank(d) for d in data["differences"]],
        },
        sys.stdout,
    )


if __name__ == "__main__":
    main()
