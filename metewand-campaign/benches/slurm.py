#!/usr/bin/env python3
"""The Slurm benchmark: the example campaign on the single-node cluster against the local pool, measured in the same
run, and what one array task costs.

    cargo build --release -p metewand-cli
    sudo xtask/slurm-cluster.sh start      # or any cluster that sbatch reaches
    python3 metewand-campaign/benches/slurm.py [--parallel 2] [--packs 8,1] [--empty-tasks 16]

1. The example's campaign `main` (48 attempts, 6 datasets): `campaign run -j P` against `campaign submit
   --max-parallel P --pack K` for each K, wall time from the command's start until the last job ended (the export
   job included). Both in fresh folders and fresh state folders, so both materialize every dataset.
2. Slurm's own cost per task: an array of trivial tasks (`true`) under the same throttle, wall time x P / tasks.
3. Metewand's own cost per task: `campaign work` of a pack whose attempts are all recorded (it loads the
   repository, rebuilds the plan, takes the lock, skips every attempt).
4. A check that both ways recorded the same attempt ids and outcomes.

Standard library only. Prints a table; nothing is asserted (performance is not a test).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "least-squares"
BINARY = ROOT / "target" / "release" / "metewand"
ACTIVE = {"PENDING", "REQUEUED", "RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED", "SIGNALING", "STAGE_OUT"}


def run(argv: list[Any]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(arg) for arg in argv], capture_output=True, text=True, check=False)
    if done.returncode not in (0, 3):
        sys.exit(f"{' '.join(map(str, argv))} failed ({done.returncode}): {done.stderr.strip()}")
    return done


def active(jobs: list[int]) -> bool:
    out = run(["squeue", "--noheader", "--array", "--states=all", "--format=%T", "--jobs",
               ",".join(map(str, jobs))]).stdout
    return any(line.strip() in ACTIVE for line in out.splitlines())


def wait(jobs: list[int]) -> None:
    while active(jobs):
        time.sleep(0.1)


def job_ids(folder: Path) -> list[int]:
    ids = []
    for path in sorted((folder / "slurm").glob("*/submission.json")):
        ids.extend(job["job_id"] for job in json.loads(path.read_text())["jobs"])
    return ids


def outcomes(folder: Path) -> dict[str, tuple[str, Any]]:
    found = {}
    for path in (folder / "attempts").glob("*/attempt.json"):
        record = json.loads(path.read_text())
        found[path.parent.name] = (record["outcome"], record["verdict"])
    return found


def local(tmp: Path, parallel: int) -> tuple[float, Path]:
    out = tmp / "local"
    start = time.perf_counter()
    run([BINARY, "campaign", "run", EXAMPLE, "main", "-j", parallel, "--quiet", "--out", out,
         "--state-dir", tmp / "state-local"])
    return time.perf_counter() - start, out


def slurm(tmp: Path, parallel: int, pack: int) -> tuple[float, Path, int]:
    out = tmp / f"slurm-{pack}"
    start = time.perf_counter()
    run([BINARY, "campaign", "submit", EXAMPLE, "main", "--max-parallel", parallel, "--pack", pack, "--out", out,
         "--state-dir", tmp / f"state-slurm-{pack}"])
    submitted = time.perf_counter() - start
    jobs = job_ids(out)
    wait(jobs)
    tasks = sum(job["tasks"] for path in (out / "slurm").glob("*/submission.json")
                for job in json.loads(path.read_text())["jobs"])
    print(f"  --pack {pack}: submit returned after {submitted:.2f} s; {len(jobs)} jobs, {tasks} tasks",
          file=sys.stderr)
    return time.perf_counter() - start, out, tasks


def empty_tasks(tmp: Path, parallel: int, count: int, max_array: int) -> float:
    script = tmp / "true.sh"
    script.write_text("#!/bin/bash\ntrue\n")
    start = time.perf_counter()
    jobs = []
    first = 0
    while first < count:
        tasks = min(count - first, max_array)
        dependency = [f"--dependency=afterany:{jobs[-1]}"] if jobs else []
        jobs.append(int(run(["sbatch", "--parsable", f"--array=0-{tasks - 1}%{parallel}", "--time=1",
                             f"--output={tmp}/true-%A_%a.out", *dependency, script]).stdout.split(";")[0]))
        first += tasks
    wait(jobs)
    return (time.perf_counter() - start) * parallel / count


def work_fixed_cost(folder: Path, repeat: int = 5) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        run([BINARY, "campaign", "work", folder, "--submission", "1", "--pack", "0"])
    return (time.perf_counter() - start) / repeat


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parallel", type=int, default=2)
    parser.add_argument("--packs", default="8,1")
    parser.add_argument("--empty-tasks", type=int, default=16)
    args = parser.parse_args()
    if not BINARY.exists():
        sys.exit("build first: cargo build --release -p metewand-cli")
    config = run(["scontrol", "show", "config"]).stdout
    max_array = int(re.search(r"MaxArraySize\s*=\s*(\d+)", config).group(1))
    slots = run(["sinfo", "--noheader", "--format=%c %h"]).stdout.split()
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        local_wall, local_out = local(tmp, args.parallel)
        rows = []
        checks = []
        for pack in [int(k) for k in args.packs.split(",")]:
            wall, out, tasks = slurm(tmp, args.parallel, pack)
            rows.append((pack, wall, tasks))
            checks.append(outcomes(out) == outcomes(local_out))
        scheduling = empty_tasks(tmp, args.parallel, args.empty_tasks, max_array)
        fixed = work_fixed_cost(tmp / f"slurm-{rows[0][0]}")
        attempts = len(outcomes(local_out))
    print(f"cluster: MaxArraySize {max_array}, CPUs and oversubscription {' '.join(slots)}; "
          f"load average at the start {load:.2f}")
    print()
    print("| measure | local pool (same run) | Slurm |")
    print("| --- | --- | --- |")
    for pack, wall, tasks in rows:
        print(f"| the example, {attempts} attempts, -j {args.parallel} / --max-parallel {args.parallel} "
              f"--pack {pack} ({tasks} tasks) | {local_wall:.1f} s | {wall:.1f} s ({wall / local_wall:.2f}x) |")
    print(f"| Slurm's cost per task (an array of {args.empty_tasks} `true` tasks at %{args.parallel}) | - | "
          f"{scheduling:.2f} s |")
    print(f"| Metewand's own cost per task (`campaign work` of a recorded pack) | - | {fixed * 1000:.0f} ms |")
    for (pack, _, _), same in zip(rows, checks):
        print(f"| same attempt ids, outcomes and verdicts as the local pool, --pack {pack} | - | "
              f"{'yes' if same else 'NO'} |")


if __name__ == "__main__":
    main()
