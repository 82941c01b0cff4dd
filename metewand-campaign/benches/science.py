#!/usr/bin/env python3
"""The same numpy science in benchopt and in Metewand, paired in one run: each harness's cost per unit and fixed cost,
fitted with an interval.

    cargo build --release -p metewand-cli
    python3 metewand-campaign/benches/science.py [--rounds 5] [--venv DIR] [--anchor ../shared/anchors/benchopt] \
        [--baseline-bin OLD/metewand --baseline-sdk OLD/sdk-python/src]

The benchopt anchor's folder holds the science twice: `bench/` as a benchopt benchmark and `mw-numpy/` as a Metewand
repository (the same `default_rng` data, 200 x 50 and 20000 x 50, seeds 0-2; the solvers `direct`, lstsq once, and
`noop`, zeros; the same objective). A unit is one solver on one dataset once: 12 units a repetition.

1. Makes (or reuses, with --venv) a virtual environment holding benchopt 1.10.0, numpy, pandas and pyarrow, from PyPI;
   the Metewand workers run on its interpreter, with a copy of this checkout's SDK compiled to bytecode as `pip
   install` leaves it (a confined worker cannot write the `__pycache__` of a source folder).
2. Materializes the six datasets once (one unmeasured `campaign run`).
3. Each round runs, at 1, 4 and 8 repetitions, three series one after the other, in an order drawn anew each round
   (seeded by the round; turning one order would keep each series after the same one, and a run leaves the machine
   in a state the next one feels): benchopt (`-s direct -s noop -j 1`), `metewand campaign run -j 1
   --sessions reuse` and `metewand campaign run -j 1` (fresh sessions). Every run's wall time is one point. With
   --baseline-bin or --baseline-sdk, the same two Metewand series of an earlier build (its binary, its SDK, in a
   state folder of their own) are run in the same rounds: a change's before and after, each beside benchopt.
4. Fits, per series, wall = fixed + units x per-unit by least squares over every point of every round, and the same
   fit within each round; the interval is Student's t at 95% over the rounds' fits. Prints every round's fit, the
   pooled one with its interval, each one less the science (benchopt's solver time, the executor-measured
   `execute`), the same fits of the runs' CPU time (user and system, every process of the run: what other work on
   the machine inflates far less than the wall time), the ratios to benchopt's, and where a reused attempt's time
   goes (its records' phases, the executor's own remainder, and the fitted cost less the record).

Standard library only (the environment it makes holds the rest). Prints tables; nothing is asserted (performance is
not a test). The machine's load is printed before and after: a run beside other work says so.
"""

from __future__ import annotations

import argparse
import csv
import math
import resource
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from anchor import environment
from campaign import ROOT, breakdown, parse_time, records

REPETITIONS = (1, 4, 8)
UNITS = 12
AXES = ["--problem", "lstsq", "--dataset", "small", "--dataset", "tall", "--implementation", "direct",
        "--implementation", "noop", "--dataset-seeds", "0,1,2"]
SERIES = ("benchopt", "metewand reused", "metewand fresh")
BASELINE = ("baseline reused", "baseline fresh")
# Student's t at 97.5% by degrees of freedom; beyond the table the normal's 1.96 is close enough.
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
        12: 2.179, 15: 2.131, 20: 2.086}


def compiled_sdk(source: Path, copy: Path, python: Path) -> Path:
    """A copy at `copy` of the SDK at `source`, compiled by `python` as `pip install` leaves it: a confined worker
    cannot write the `__pycache__` of a source folder, so an SDK without one is compiled at every worker's start."""
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([str(python), "-m", "compileall", "-q", str(copy)], check=True, capture_output=True)
    return copy


class Side:
    """One build's Metewand series: its binary, and the anchor's repository naming its SDK, with a state folder of
    its own."""

    def __init__(self, name: str, binary: Path, sdk: Path, anchor: Path, work: Path, python: Path) -> None:
        self.bin = binary.resolve()
        self.repo = work / f"repo-{name}"
        shutil.copytree(anchor / "mw-numpy", self.repo)
        template = (self.repo / "metewand.toml.in").read_text()
        compiled = compiled_sdk(sdk, work / f"sdk-{name}", python)
        (self.repo / "metewand.toml").write_text(template.replace("@SDK@", str(compiled)))
        self.state = work / f"state-{name}"
        self.reused_records: list[dict[str, Any]] = []


class Bench:
    """One run's folders, binaries and counters."""

    def __init__(self, args: argparse.Namespace, work: Path, python: Path) -> None:
        self.work = work
        self.python = python
        self.anchor = args.anchor.resolve()
        self.env = dict(os.environ, PATH=f"{python.parent}:{os.environ['PATH']}")
        # benchopt writes its outputs (and caches) into the benchmark's folder, so it gets a copy.
        self.bench = work / "bench"
        shutil.copytree(self.anchor / "bench", self.bench)
        self.sides = {"metewand": Side("metewand", args.bin, args.sdk, self.anchor, work, python)}
        if args.baseline_bin or args.baseline_sdk:
            self.sides["baseline"] = Side("baseline", args.baseline_bin or args.bin, args.baseline_sdk or args.sdk,
                                          self.anchor, work, python)
        self.runs = 0

    def benchopt(self, repetitions: int) -> tuple[float, float, float]:
        """One benchopt run: its wall time, its solvers' time and its processes' CPU time, in seconds."""
        argv = [str(self.python.parent / "benchopt"), "run", str(self.bench), "--no-plot", "--no-cache",
                "-d", "simulated", "-s", "direct", "-s", "noop", "-n", "1", "-r", str(repetitions), "-j", "1",
                "--output", "paired"]
        started, cpu = time.perf_counter(), children_cpu()
        done = subprocess.run(argv, capture_output=True, env=self.env, cwd=self.work, check=False)
        wall, cpu = time.perf_counter() - started, children_cpu() - cpu
        if done.returncode != 0:
            sys.exit(f"benchopt failed: {done.stderr.decode()[-800:]}")
        found = list(self.bench.rglob("paired*.parquet"))
        science = subprocess.run(
            [str(self.python), "-c", "import sys, pandas; print(sum(pandas.read_parquet(p)['time'].sum() "
             "for p in sys.argv[1:]))", *map(str, found)],
            capture_output=True, check=True, text=True).stdout
        for path in found:
            path.unlink()
        return wall, float(science), cpu

    def metewand(self, side: Side, repetitions: int, extra: list[str], keep: bool = False
                 ) -> tuple[float, float, float]:
        """One `campaign run` of `side`: its wall time, the executor-measured `execute` time of its attempts and its
        processes' CPU time, in seconds."""
        self.runs += 1
        out = self.work / f"campaign-{self.runs}"
        argv = [str(side.bin), "campaign", "run", str(side.repo), *AXES, "--repetitions", str(repetitions), "-j", "1",
                "--state-dir", str(side.state), "--out", str(out), "--quiet", *extra]
        started, cpu = time.perf_counter(), children_cpu()
        done = subprocess.run(argv, capture_output=True, env=self.env, check=False)
        wall, cpu = time.perf_counter() - started, children_cpu() - cpu
        # Exit status 3 is a run whose every attempt has a record, some of them failed (a deadline under load, say):
        # its time counts as any run's, and its failures are said.
        if done.returncode not in (0, 3):
            sys.exit(f"campaign run failed: {(done.stdout + done.stderr).decode()[-800:]}")
        with (out / "results.csv").open() as file:
            rows = list(csv.DictReader(file))
        for row in rows:
            if row["outcome"] == "failed":
                print(f"  a failed attempt ({' '.join(extra) or 'fresh'}, r={repetitions}): {row['failure_role']} "
                      f"{row['failure_phase']} {row['failure_kind']}", flush=True)
        column = next(name for name in rows[0] if "execute" in name)
        science = sum(int(row[column]) for row in rows if row[column]) / 1e9
        if keep:
            side.reused_records += records(out)
        subprocess.run(["chmod", "-R", "u+w", str(out)], check=False)
        shutil.rmtree(out)
        return wall, science, cpu

    def series(self) -> tuple[str, ...]:
        """The series of this run: benchopt's, then each side's reused and fresh ones."""
        return SERIES + (BASELINE if "baseline" in self.sides else ())

    def one(self, series: str, repetitions: int) -> tuple[float, float, float]:
        if series == "benchopt":
            return self.benchopt(repetitions)
        name, sessions = series.split()
        side = self.sides[name]
        if sessions == "reused":
            return self.metewand(side, repetitions, ["--sessions", "reuse"], keep=repetitions == REPETITIONS[-1])
        return self.metewand(side, repetitions, [])


def children_cpu() -> float:
    """The user and system CPU time of every waited-for descendant so far, in seconds: a cost that other work on the
    machine inflates far less than wall time."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def fit(points: list[tuple[float, float]]) -> tuple[float, float]:
    """Least squares of y = a + b x: (b, a), the slope first."""
    xs, ys = [x for x, _ in points], [y for _, y in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in points) / sxx
    return slope, my - slope * mx


def half_width(values: list[float]) -> float:
    """The 95% t interval's half width of the mean of `values`."""
    if len(values) < 2:
        return math.nan
    df = len(values) - 1
    t = T975.get(df) or next((T975[k] for k in sorted(T975) if k >= df), 1.96)
    return t * statistics.stdev(values) / math.sqrt(len(values))


def report(points: dict[str, list[list[tuple[int, float, float, float]]]]) -> dict[str, float]:
    """Every round's fit, the pooled fit with its interval, the same less the science, and the ratios; returns
    each series' pooled cost per unit."""
    pooled: dict[str, tuple[float, float, float, float]] = {}
    pooled_cpu: dict[str, tuple[float, float]] = {}
    for series in points:
        rounds = points[series]
        per_round = [fit([(u, w) for u, w, _, _ in runs]) for runs in rounds]
        less = [fit([(u, w - s) for u, w, s, _ in runs]) for runs in rounds]
        cpu = [fit([(u, c) for u, _, _, c in runs]) for runs in rounds]
        print(f"{series}: by round, per unit ms / fixed s: "
              + "; ".join(f"{1e3 * b:.1f} / {a:.2f}" for b, a in per_round))
        everything = [(u, w) for runs in rounds for u, w, _, _ in runs]
        slope, fixed = fit(everything)
        harness, _ = fit([(u, w - s) for runs in rounds for u, w, s, _ in runs])
        cpu_slope, cpu_fixed = fit([(u, c) for runs in rounds for u, _, _, c in runs])
        pooled_cpu[series] = (cpu_slope, cpu_fixed)
        slope_hw = half_width([b for b, _ in per_round])
        fixed_hw = half_width([a for _, a in per_round])
        pooled[series] = (slope, fixed, harness, slope_hw)
        print(f"{series}: per unit {1e3 * slope:.1f} ms +- {1e3 * slope_hw:.1f}, fixed {fixed:.3f} s +- "
              f"{fixed_hw:.3f}; less the science per unit {1e3 * harness:.1f} ms "
              f"+- {1e3 * half_width([b for b, _ in less]):.1f}")
        print(f"{series}: CPU per unit {1e3 * cpu_slope:.1f} ms +- {1e3 * half_width([b for b, _ in cpu]):.1f}, "
              f"fixed {cpu_fixed:.3f} s +- {half_width([a for _, a in cpu]):.3f}; by round: "
              + "; ".join(f"{1e3 * b:.1f} / {a:.2f}" for b, a in cpu))
    base = pooled["benchopt"]
    for series in list(points)[1:]:
        slope, fixed, harness, _ = pooled[series]
        print(f"{series} against benchopt: per unit {slope / base[0]:.2f}x, fixed {fixed / base[1]:.2f}x, "
              f"less the science {harness / base[2]:.2f}x; CPU per unit "
              f"{pooled_cpu[series][0] / pooled_cpu['benchopt'][0]:.2f}x, fixed "
              f"{pooled_cpu[series][1] / pooled_cpu['benchopt'][1]:.2f}x")
    return {series: values[0] for series, values in pooled.items()}


def where_reused_time_goes(name: str, side: Side, rounds: int, slope: float) -> None:
    """Mean ms per reused attempt of `side`, from the records of its reused runs at the most repetitions."""
    found = side.reused_records
    if not found:
        return
    print(f"a reused attempt of {name} ({len(found)} records of {rounds} runs), mean ms:")
    for key, value in breakdown(found).items():
        print(f"  {key:50} {value:7.2f}")
    walls = statistics.fmean(parse_time(r["finished_at"]) - parse_time(r["started_at"]) for r in found)
    print(f"  {'the record, started to finished':50} {1e3 * walls:7.2f}")
    print(f"  {'the fitted cost per unit less the record':50} {1e3 * (slope - walls):7.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", type=Path, default=ROOT / "target" / "release" / "metewand")
    parser.add_argument("--sdk", type=Path, default=ROOT / "sdk-python" / "src")
    parser.add_argument("--anchor", type=Path, default=ROOT.parent / "shared" / "anchors" / "benchopt")
    parser.add_argument("--venv", type=Path, help="the environment to make or reuse (default: a temporary one)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--baseline-bin", type=Path, help="an earlier build's binary, run as the baseline series")
    parser.add_argument("--baseline-sdk", type=Path, help="an earlier build's SDK sources, for the baseline series")
    args = parser.parse_args()
    if not (args.anchor / "mw-numpy").is_dir() or not (args.anchor / "bench").is_dir():
        sys.exit(f"science.py: no bench/ and mw-numpy/ in {args.anchor}; give the anchor's folder with --anchor")
    if not args.bin.is_file():
        sys.exit(f"science.py: no metewand at {args.bin}; build it with cargo build --release -p metewand-cli")
    if args.baseline_bin and not args.baseline_bin.is_file():
        sys.exit(f"science.py: no metewand at {args.baseline_bin}; give an earlier build's binary with --baseline-bin")
    work = Path(tempfile.mkdtemp(prefix="metewand-science-"))
    try:
        python = environment(args.venv.resolve() if args.venv else work / "venv")
        bench = Bench(args, work, python)
        print(f"machine: {os.cpu_count()} logical CPUs, load average {os.getloadavg()}", flush=True)
        for side in bench.sides.values():
            bench.metewand(side, 1, [])
        every = bench.series()
        points: dict[str, list[list[tuple[int, float, float, float]]]] = {series: [] for series in every}
        for round_ in range(args.rounds):
            for series in every:
                points[series].append([])
            order = random.Random(round_).sample(every, len(every))
            for repetitions in REPETITIONS:
                for series in order:
                    wall, science, cpu = bench.one(series, repetitions)
                    points[series][-1].append((UNITS * repetitions, wall, science, cpu))
            print(f"round {round_ + 1} ({', '.join(order)}): " + "; ".join(
                f"{series} " + " ".join(f"{wall:.2f}" for _, wall, _, _ in points[series][-1]) + " s (CPU "
                + " ".join(f"{cpu:.2f}" for _, _, _, cpu in points[series][-1]) + " s)"
                for series in every) + f" (load average {os.getloadavg()[0]:.2f})", flush=True)
        slopes = report(points)
        for name, side in bench.sides.items():
            where_reused_time_goes(name, side, args.rounds, slopes[f"{name} reused"])
        print(f"machine: load average {os.getloadavg()} at the end")
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(work)], check=False)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
