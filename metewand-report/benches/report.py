#!/usr/bin/env python3
"""The report benchmark: `metewand report` and `metewand compare` on synthesized campaign folders, each measure
beside a baseline measured in the same run.

    cargo build --release -p metewand-cli
    python3 metewand-report/benches/report.py [--records 100000] [--example] [--keep DIR]

1. Synthesizes campaign folders of --records attempts (records made from a real record of the test worker's
   benchmark, `tests/it/fixtures/record.json`: 5 implementations x 4 datasets x N/2000 dataset seeds x 100
   repetitions, log-normal execute times, about 2% failed and 3% not reached), a second one with two
   implementations 1.5x slower for `compare`, and one a tenth the size.
2. Times each command with GNU time (wall seconds and peak RSS): `metewand campaign status` of the same folder
   (the baseline: it reads the same records), `report` as HTML and as JSON, `compare`, and `report` of the
   tenth-size folder.
3. With --example, runs the example campaign (`campaign run examples/least-squares main -j 2`) into a temporary
   folder and reports the size of its HTML report.

Standard library only. Prints a table; nothing is asserted (performance is not a test).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "metewand-report" / "tests" / "it" / "fixtures" / "record.json"
IMPLEMENTATIONS = ["cholesky", "qr", "cg", "lsqr", "svd"]
DATASETS = ["small", "tall", "wide", "sparse"]
REPETITIONS = 100


def synthesize(folder: Path, size: int, slower: dict[str, float], seed: int) -> None:
    """A campaign folder whose every planned attempt has a record."""
    template = json.loads(TEMPLATE.read_text(encoding="utf-8"))
    rng = random.Random(seed)
    seeds = max(size // (len(IMPLEMENTATIONS) * len(DATASETS) * REPETITIONS), 1)
    (folder / "attempts").mkdir(parents=True)
    (folder / "datasets").mkdir()
    entries = []
    index = 0
    for dataset_index, dataset in enumerate(DATASETS):
        for dataset_seed in range(seeds):
            for implementation_index, implementation in enumerate(IMPLEMENTATIONS):
                for repetition in range(1, REPETITIONS + 1):
                    attempt_id = "mw1-attempt-" + hashlib.sha256(f"{index}".encode()).hexdigest()
                    index += 1
                    entries.append({
                        "id": attempt_id, "problem": "answer", "dataset": dataset, "dataset_seed": dataset_seed,
                        "dataset_key": hashlib.sha256(f"{dataset}{dataset_seed}".encode()).hexdigest(),
                        "implementation": implementation, "implementation_seed": 0, "repetition": repetition,
                    })
                    record = json.loads(json.dumps(template))
                    record["campaign"] = {"attempt_id": attempt_id, "concurrency": 2, "name": "main",
                                          "repetition": repetition}
                    record["dataset"]["name"] = dataset
                    record["dataset"]["seed"] = dataset_seed
                    record["implementation"]["name"] = implementation
                    median = 1e6 * (1 + implementation_index) * (1 + dataset_index) * slower.get(implementation, 1.0)
                    for phase in record["phases"]:
                        if phase["phase"] == "execute":
                            phase["duration_ns"] = int(median * math.exp(rng.gauss(0, 0.2)))
                    draw = rng.random()
                    if draw < 0.02:
                        record["outcome"] = "failed"
                        record["verdict"] = None
                        record["metrics"] = None
                        record["failure"] = {"role": "implementation", "phase": "execute", "kind": "phase_timeout",
                                             "message": "the execute phase passed its limit", "code": None,
                                             "details": None}
                    elif draw < 0.05:
                        record["outcome"] = record["verdict"] = "not_reached"
                        record["metrics"] = {"error": rng.random()}
                    else:
                        record["metrics"] = {"error": rng.random() * 1e-6}
                    directory = folder / "attempts" / attempt_id
                    directory.mkdir()
                    (directory / "attempt.json").write_text(json.dumps(record), encoding="utf-8")
    environment = {"metewand_version": "0.1.0", "host": "bench", "os": "Linux", "kernel": "6.1", "cpu_model": "cpu",
                   "logical_cpus": 2, "memory_bytes": 1 << 34, "workers": [], "git_commit": None, "git_dirty": None}
    campaign = {
        "format": 1, "name": "main", "repository": "/bench/repo",
        "definition": {"name": "main", "problems": ["answer"], "datasets": DATASETS, "implementations": IMPLEMENTATIONS,
                       "dataset_seeds": {"first": 0, "count": seeds}, "implementation_seeds": {"list": [0]},
                       "repetitions": REPETITIONS},
        "attempts": entries,
        "runs": [{"started_at": "2026-01-01T00:00:00Z", "concurrency": 2, "environment": environment}],
    }
    (folder / "campaign.json").write_text(json.dumps(campaign), encoding="utf-8")


def measure(argv: list[Any]) -> tuple[float, float, int]:
    """Wall seconds, peak RSS (MiB) and exit status of one command, from GNU time."""
    done = subprocess.run(["/usr/bin/time", "-f", "%e %M", *map(str, argv)], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, check=False)
    wall, kib = done.stderr.decode().strip().splitlines()[-1].split()
    return float(wall), int(kib) / 1024, done.returncode


def best(argv: list[Any], runs: int) -> tuple[float, float, int]:
    """The fastest of `runs` runs (and its peak RSS)."""
    return min((measure(argv) for _ in range(runs)), key=lambda result: result[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", type=Path, default=ROOT / "target" / "release" / "metewand")
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3, help="runs per measure; the fastest is shown")
    parser.add_argument("--example", action="store_true", help="also run the example campaign and report its HTML size")
    parser.add_argument("--keep", type=Path, help="synthesize into this folder and keep it")
    args = parser.parse_args()
    metewand = args.bin.resolve()
    work = args.keep.resolve() if args.keep else Path(tempfile.mkdtemp(prefix="metewand-report-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        print(f"machine: {os.cpu_count()} logical CPUs, load average {os.getloadavg()}")
        a, b, tenth = work / "a", work / "b", work / "tenth"
        for folder, size, slower, seed in ((a, args.records, {}, 1), (b, args.records, {"cg": 1.5, "svd": 1.5}, 2),
                                           (tenth, args.records // 10, {}, 3)):
            if not folder.exists():
                synthesize(folder, size, slower, seed)
        rows = [
            ("campaign status (baseline)", [metewand, "campaign", "status", a]),
            ("report, HTML", [metewand, "report", a, "--out", work / "a.html"]),
            ("report, JSON", [metewand, "report", a, "--format", "json", "--out", work / "a.json"]),
            ("compare", [metewand, "compare", a, b]),
            (f"report, HTML, {args.records // 10} records", [metewand, "report", tenth, "--out", work / "tenth.html"]),
        ]
        print(f"\n{args.records} records per folder; fastest of {args.runs} runs\n")
        print(f"{'command':40} {'wall s':>8} {'peak MiB':>9} {'exit':>5}")
        for name, argv in rows:
            wall, mib, status = best(argv, args.runs)
            print(f"{name:40} {wall:8.3f} {mib:9.1f} {status:5}")
        print(f"\nHTML report of {args.records} records: {(work / 'a.html').stat().st_size} bytes")
        if args.example:
            example = work / "example"
            done = subprocess.run([metewand, "campaign", "run", ROOT / "examples" / "least-squares", "main", "-j", "2",
                                   "--quiet", "--out", example, "--state-dir", work / "state"],
                                  capture_output=True, check=False)
            if done.returncode != 0:
                sys.exit(f"the example campaign failed: {done.stderr.decode()}")
            wall, mib, _ = best([metewand, "report", example, "--out", work / "example.html"], args.runs)
            size = (work / "example.html").stat().st_size
            print(f"example campaign (48 attempts): HTML report {size} bytes, written in {wall:.3f} s, {mib:.1f} MiB")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
