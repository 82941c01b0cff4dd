"""Whole-attempt wall time of the example: `metewand run` (a release binary) on this repository, each attempt in a
fresh state folder (so the dataset is materialized: three worker sessions) and then again reusing it, interleaved
between the binaries given so that they share the machine's load.

    python3 attempt_time.py [--runs N] BINARY [BINARY...]

Prints the median and the quartiles per binary. A measurement, not a test: on a shared machine figures vary with
the other work it does.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1]


def attempt(binary: str, state: Path, out: Path) -> float:
    started = time.perf_counter()
    completed = subprocess.run(
        [binary, "run", str(EXAMPLE), "--problem", "ridge", "--dataset", "small", "--implementation", "cholesky",
         "--state-dir", str(state), "--out", str(out)],
        capture_output=True, text=True, check=False,
    )
    elapsed = time.perf_counter() - started
    if completed.returncode != 0:
        raise SystemExit(f"{binary} failed ({completed.returncode}): {completed.stderr}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("binaries", nargs="+")
    args = parser.parse_args()
    fresh: dict[str, list[float]] = {binary: [] for binary in args.binaries}
    reused: dict[str, list[float]] = {binary: [] for binary in args.binaries}
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        for run in range(args.runs):
            for index, binary in enumerate(args.binaries):
                state = root / f"state-{index}-{run}"
                fresh[binary].append(attempt(binary, state, root / f"fresh-{index}-{run}"))
                reused[binary].append(attempt(binary, state, root / f"reused-{index}-{run}"))
        subprocess.run(["chmod", "-R", "u+w", scratch], check=False)
    for label, table in (("materialized", fresh), ("reused", reused)):
        for binary, times in table.items():
            q1, median, q3 = statistics.quantiles(times, n=4)
            print(f"{label:12} {binary}: median {median * 1000:.0f} ms (quartiles {q1 * 1000:.0f}-{q3 * 1000:.0f} ms, "
                  f"{len(times)} runs)")


if __name__ == "__main__":
    main()
