#!/usr/bin/env python3
"""The campaign benchmark: each measure beside its baseline, measured in the same run.

    cargo build --release -p metewand-cli -p test-worker
    python3 metewand-campaign/benches/campaign.py [--attempts 200] [--example-attempts 20] [--plan-size 100000]

1. A campaign at -j 1 against the same attempts run one `metewand run` at a time: wall time per attempt, and the
   executor's own time per attempt (wall time less the union of the workers' phases, as the records give them). On
   the trivial direct-protocol worker (the release test worker) and on the example benchmark.
2. -j 2 against -j 1 on the trivial worker: throughput ratio.
3. `campaign plan` and `campaign status` of a plan of --plan-size attempts (records synthesized from a real one),
   each against a plan a tenth the size: wall time and peak RSS.
4. Where an attempt's time goes, from the -j 1 records: each phase of each role, and the executor's remainder
   (source copies, hashing, validation, the record).

Standard library only. Prints a table; nothing is asserted (performance is not a test).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "metewand-campaign" / "tests" / "it" / "fixtures" / "campaign.toml"
EXAMPLE = ROOT / "examples" / "least-squares"


def timed(argv: list[Any]) -> tuple[float, subprocess.CompletedProcess[bytes]]:
    """Wall seconds and the completed process of one command."""
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, check=False)
    return time.perf_counter() - start, done


def peak(argv: list[str]) -> tuple[float, int, int]:
    """Wall seconds, peak RSS (KiB) and exit status of one command. The peak is GNU time's: a child this script
    spawned itself would count this script's own memory, which the kernel carries across the exec."""
    start = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-f", "%M", *argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          check=False)
    elapsed = time.perf_counter() - start
    return elapsed, int(done.stderr.decode().strip().splitlines()[-1]), done.returncode


def parse_time(text: str) -> float:
    whole, _, fraction = text.rstrip("Z").partition(".")
    base = datetime.fromisoformat(whole + "+00:00").timestamp()
    return base + (float("0." + fraction) if fraction else 0.0)


def records(folder: Path) -> list[dict[str, Any]]:
    found = []
    for path in folder.rglob("attempt.json"):
        found.append(json.loads(path.read_text(encoding="utf-8")))
    return found


def busy_seconds(phases: list[dict[str, Any]], within: tuple[float, float] | None = None) -> float:
    """The union of the phases' intervals: a worker's phase overlapping another's (an evaluator judging a checkpoint
    while the implementation runs on) is counted once, so the remainder never goes negative. With `within` (an
    attempt's start and end), only what falls inside it: a worker started ahead said hello before its attempt began."""
    low, high = within if within else (float("-inf"), float("inf"))
    spans = sorted(
        (max(start, low), min(start + phase["duration_ns"] / 1e9, high))
        for phase in phases
        for start in [parse_time(phase["started_at"])]
    )
    total, reach = 0.0, low
    for start, end in spans:
        if end > reach:
            total += end - max(start, reach)
            reach = end
    return total


def executor_ms(found: list[dict[str, Any]]) -> float:
    """Mean executor time per attempt: the record's wall time less the union of the workers' phases within it."""
    total = 0.0
    for record in found:
        start, end = parse_time(record["started_at"]), parse_time(record["finished_at"])
        total += (end - start) - busy_seconds(record["phases"], (start, end))
    return 1000 * total / max(len(found), 1)


def breakdown(found: list[dict[str, Any]]) -> dict[str, float]:
    """Mean milliseconds per attempt by role/phase, and the executor's remainder."""
    sums: dict[str, float] = {}
    for record in found:
        for phase in record["phases"]:
            key = f"{phase['role']}/{phase['phase']}"
            sums[key] = sums.get(key, 0.0) + phase["duration_ns"] / 1e6
    means = {key: value / len(found) for key, value in sorted(sums.items())}
    means["executor (copies, hashing, validation, record)"] = executor_ms(found)
    return means


def trivial_repo(directory: Path, worker: Path) -> Path:
    repo = directory / "repo"
    for source in ("src-gen", "src-solver", "src-other", "src-judge"):
        (repo / source).mkdir(parents=True)
        (repo / source / "README").write_text("the test worker is an executable elsewhere\n", encoding="utf-8")
    text = FIXTURE.read_text(encoding="utf-8").replace("@TEST_WORKER@", str(worker))
    (repo / "metewand.toml").write_text(text.replace('"@SOLVER_ARGS@"', '"--quiet"'), encoding="utf-8")
    return repo


def compare_with_run(
    metewand: Path, repo: Path, name: str, axes: list[str], cells: list[tuple[str, str, str, int, int]], work: Path
) -> dict[str, float]:
    """The campaign at -j 1 and -j 2, and the same attempts as sequential `metewand run` calls."""
    state = work / "state"
    # Warm the store so that neither side materializes.
    for dataset, seed in sorted({(cell[1], cell[3]) for cell in cells}):
        subprocess.run(
            [metewand, "run", repo, "--problem", cells[0][0], "--dataset", dataset, "--implementation", cells[0][2],
             "--dataset-seed", str(seed), "--state-dir", state, "--out", work / f"warm-{dataset}-{seed}"],
            check=False, capture_output=True,
        )
    out: dict[str, float] = {"attempts": len(cells)}
    (work / "runs").mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    for i, (problem, dataset, implementation, dataset_seed, implementation_seed) in enumerate(cells):
        subprocess.run(
            [metewand, "run", repo, "--problem", problem, "--dataset", dataset, "--implementation", implementation,
             "--dataset-seed", str(dataset_seed), "--implementation-seed", str(implementation_seed),
             "--state-dir", state, "--out", work / "runs" / str(i)],
            check=False, capture_output=True,
        )
    out["run_wall_ms"] = 1000 * (time.perf_counter() - start) / len(cells)
    out["run_executor_ms"] = executor_ms(records(work / "runs"))
    for jobs in (1, 2):
        folder = work / f"campaign-j{jobs}"
        wall, done = timed(
            [metewand, "campaign", "run", repo, name, *axes, "-j", str(jobs), "--quiet", "--state-dir", state,
             "--out", folder]
        )
        if done.returncode != 0:
            sys.exit(f"campaign -j {jobs} failed: {done.stderr.decode()}")
        out[f"campaign_j{jobs}_wall_ms"] = 1000 * wall / len(cells)
        found = records(folder / "attempts")
        out[f"campaign_j{jobs}_executor_ms"] = executor_ms(found)
        if jobs == 1:
            out["breakdown"] = breakdown(found)  # type: ignore[assignment]
    return out


def synthesize(metewand: Path, repo: Path, size: int, work: Path, template: dict[str, Any]) -> Path:
    """A campaign folder whose every attempt of a `size`-attempt plan has a valid record."""
    seeds = size // 2  # campaign main: 2 dataset seeds x 1 implementation x N implementation seeds x 1 repetition
    axes = ["--implementation-seeds", f"0..{seeds}", "--repetitions", "1"]
    listed = subprocess.run(
        [metewand, "campaign", "plan", repo, "main", *axes, "--list", "--state-dir", work / "state"],
        check=True, capture_output=True, text=True,
    ).stdout
    folder = work / f"synthetic-{size}"
    (folder / "attempts").mkdir(parents=True)
    (folder / "datasets").mkdir()
    entries = []
    for line in listed.splitlines():
        if not line.startswith("attempt "):
            continue
        _, attempt_id, problem, dataset, dataset_seed, implementation, implementation_seed, repetition = line.split()
        entries.append({
            "id": attempt_id, "problem": problem, "dataset": dataset, "dataset_seed": int(dataset_seed),
            "dataset_key": "0" * 64, "implementation": implementation, "implementation_seed": int(implementation_seed),
            "repetition": int(repetition),
        })
        record = dict(template)
        record["campaign"] = {"attempt_id": attempt_id, "concurrency": 1, "name": "main", "repetition": 1}
        (folder / "attempts" / attempt_id).mkdir()
        (folder / "attempts" / attempt_id / "attempt.json").write_text(json.dumps(record), encoding="utf-8")
    campaign = {
        "format": 1, "name": "main", "repository": str(repo.resolve()),
        "definition": {"name": "main", "problems": ["answer"], "datasets": ["small"], "implementations": ["solve"],
                       "dataset_seeds": {"first": 0, "count": 2}, "implementation_seeds": {"first": 0, "count": seeds},
                       "repetitions": 1},
        "attempts": entries, "runs": [],
    }
    (folder / "campaign.json").write_text(json.dumps(campaign), encoding="utf-8")
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", type=Path, default=ROOT / "target" / "release" / "metewand")
    parser.add_argument("--test-worker", type=Path, default=ROOT / "target" / "release" / "test-worker")
    parser.add_argument("--attempts", type=int, default=200)
    parser.add_argument("--example-attempts", type=int, default=20)
    parser.add_argument("--plan-size", type=int, default=100_000)
    args = parser.parse_args()
    metewand = args.bin.resolve()
    work = Path(tempfile.mkdtemp(prefix="metewand-campaign-bench-"))
    try:
        print(f"machine: {os.cpu_count()} logical CPUs, load average {os.getloadavg()}")
        repo = trivial_repo(work / "trivial", args.test_worker.resolve())
        per_seed = args.attempts // 4
        axes = ["--implementation-seeds", f"0..{per_seed}", "--repetitions", "2"]
        cells = [("answer", "small", "solve", d, s) for d in (0, 1) for s in range(per_seed) for _ in (1, 2)]
        trivial = compare_with_run(metewand, repo, "main", axes, cells, work / "trivial")
        example_seeds = max(args.example_attempts // 2, 1)
        example_axes = ["--dataset", "small", "--implementation", "cholesky-direct", "--dataset-seeds", "0",
                        "--implementation-seeds", f"0..{example_seeds}", "--repetitions", "2"]
        example_cells = [("ridge", "small", "cholesky-direct", 0, s) for s in range(example_seeds) for _ in (1, 2)]
        example = compare_with_run(metewand, EXAMPLE, "main", example_axes, example_cells, work / "example")
        for title, result in (("trivial direct-protocol worker", trivial), ("example (least squares)", example)):
            print(f"\n{title}: {int(result['attempts'])} attempts, ms per attempt (wall | executor's own)")
            print(f"  metewand run, one at a time   {result['run_wall_ms']:8.1f} | {result['run_executor_ms']:6.1f}")
            for jobs in (1, 2):
                print(f"  campaign -j {jobs}                 {result[f'campaign_j{jobs}_wall_ms']:8.1f} | "
                      f"{result[f'campaign_j{jobs}_executor_ms']:6.1f}")
            print(f"  -j 2 throughput / -j 1        {result['campaign_j1_wall_ms'] / result['campaign_j2_wall_ms']:8.2f}x")
            print("  where a -j 1 attempt's time goes (ms):")
            for key, value in result["breakdown"].items():  # type: ignore[attr-defined]
                print(f"    {key:48} {value:7.2f}")
        template = records(work / "trivial" / "campaign-j1" / "attempts")[0]
        print("\nplan and status (records synthesized): wall s, peak RSS MiB")
        for size in (args.plan_size // 10, args.plan_size):
            folder = synthesize(metewand, repo, size, work, template)
            seeds = size // 2
            plan = peak([str(metewand), "campaign", "plan", str(repo), "main", "--implementation-seeds", f"0..{seeds}",
                         "--repetitions", "1", "--out", str(folder), "--state-dir", str(work / "state")])
            status = peak([str(metewand), "campaign", "status", str(folder)])
            print(f"  {size:7} attempts: plan {plan[0]:6.3f} s {plan[1] / 1024:7.1f} MiB (exit {plan[2]}) | "
                  f"status {status[0]:6.3f} s {status[1] / 1024:7.1f} MiB (exit {status[2]})")
            shutil.rmtree(folder)
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(work)], check=False)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
