#!/usr/bin/env python3
"""What workers started ahead (`campaign run --ahead`) give on 8 and 16 cores, simulated from parts measured here.

    cargo build --release -p metewand-cli
    python3 metewand-campaign/benches/ahead.py --python DIR/bin/python [--repetitions 4] [--anchor DIR]

1. Runs the benchopt anchor's `mw-numpy/` science (`direct` and `noop` on six numpy datasets, the workers on
   `--python`, an interpreter with numpy, and this checkout's SDK compiled to bytecode) as `metewand campaign run -j 1` with fresh
   sessions, once plainly and once with `--ahead`, and reads the parts of an attempt from the plain run's records
   (means): each worker's `hello` (its start), the timed window (`prepare` and `execute`), what follows it up to the
   record's end (the seal, `evaluate`, the shutdowns, the executor's own work), what precedes the first `hello`, and
   the campaign's time between one record's end and the next one's start.
2. Simulates one slot's steady state at `-j N` on a machine of C cores without SMT, the cores divided as
   `SlotPlan` divides them (one core kept for the executor where a core is left after one per slot, the spare cores
   of an equal division with it; with `--ahead` at `-j 1`, the first core):
   - plain: an attempt costs the gap, what precedes its workers, their starts (side by side where the slot has
     two cores, one after the other on one), the timed window and what follows it;
   - ahead: the next attempt's starts begin when the timed window ends, on the executor's cores (side by side where
     it has two, one after the other on one), so an attempt costs its timed window and the longer of what follows it
     (with the gap and what precedes the workers) and the starts; and the executor's cores must keep up with every
     slot's starts: N slots need N x (both starts) of its cores' time per attempt of each.
   Prints, per machine and `-j`, the campaign's wall time per attempt plainly and ahead, and their ratio; and the
   simulation of this machine at `-j 1` beside the two measured runs, as a check of the model.

The simulation leaves out what the model does not hold: memory bandwidth and caches shared by the slots, the
executor's own threads on its cores (only the starts are counted there), and SMT. Standard library only. Prints
tables; nothing is asserted (performance is not a test).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from campaign import ROOT, parse_time, records
from science import compiled_sdk

AXES = ["--problem", "lstsq", "--dataset", "small", "--dataset", "tall", "--implementation", "direct",
        "--implementation", "noop", "--dataset-seeds", "0,1,2"]


def run(binary: Path, repo: Path, state: Path, out: Path, repetitions: int, extra: list[str],
        env: dict[str, str]) -> float:
    """One `campaign run -j 1`; its wall time per attempt, in seconds."""
    argv = [str(binary), "campaign", "run", str(repo), *AXES, "--repetitions", str(repetitions), "-j", "1",
            "--state-dir", str(state), "--out", str(out), "--quiet", *extra]
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, env=env, check=False)
    wall = time.perf_counter() - started
    # Exit status 3: every attempt has a record, some failed (a deadline under load, say); the run still counts.
    if done.returncode not in (0, 3):
        sys.exit(f"campaign run failed: {(done.stdout + done.stderr).decode()[-800:]}")
    return wall / (12 * repetitions)


def span(record: dict[str, Any], role: str, phase: str) -> tuple[float, float] | None:
    for found in record["phases"]:
        if found["role"] == role and found["phase"] == phase:
            start = parse_time(found["started_at"])
            return start, start + found["duration_ns"] / 1e9
    return None


def parts(found: list[dict[str, Any]]) -> dict[str, float]:
    """The mean parts of an attempt, in seconds, from a plain fresh run's records."""
    rows: dict[str, list[float]] = {"hello_impl": [], "hello_eval": [], "before": [], "timed": [], "after": []}
    for record in found:
        hello_impl, hello_eval = span(record, "implementation", "hello"), span(record, "problem_evaluator", "hello")
        prepare, execute = span(record, "implementation", "prepare"), span(record, "implementation", "execute")
        if record["outcome"] == "failed" or not (hello_impl and hello_eval and prepare and execute):
            continue
        started, finished = parse_time(record["started_at"]), parse_time(record["finished_at"])
        rows["hello_impl"].append(hello_impl[1] - hello_impl[0])
        rows["hello_eval"].append(hello_eval[1] - hello_eval[0])
        # What precedes the workers' starts, and what lies between their starts and prepare, is the executor's.
        starts = max(hello_impl[1], hello_eval[1]) - min(hello_impl[0], hello_eval[0])
        rows["before"].append(prepare[0] - started - starts)
        rows["timed"].append(execute[1] - prepare[0])
        rows["after"].append(finished - execute[1])
    ordered = sorted(found, key=lambda record: record["started_at"])
    gaps = [parse_time(b["started_at"]) - parse_time(a["finished_at"]) for a, b in zip(ordered, ordered[1:])]
    means = {key: statistics.fmean(values) for key, values in rows.items()}
    means["gap"] = statistics.median(gaps)
    return means


def division(cores: int, jobs: int, ahead: bool) -> tuple[int, int]:
    """Each slot's cores and the executor's (0: it shares the slots'), as `SlotPlan` divides `cores` flat cores."""
    if jobs == 1:
        return (cores - 1, 1) if ahead and cores >= 2 else (cores, 0)
    if cores < jobs:
        return (0, 0)
    if cores == jobs:
        return (1, 0)
    each = (cores - 1) // jobs
    return each, cores - each * jobs


def per_attempt(part: dict[str, float], cores: int, jobs: int, ahead: bool) -> float | None:
    """The campaign's wall time per attempt at `-j jobs` on `cores` cores, plainly or with workers started ahead;
    None where the division gives a slot no core, or ahead keeps none for the executor."""
    slot, executor = division(cores, jobs, ahead)
    if slot == 0 or (ahead and executor == 0):
        return None
    hellos = (part["hello_impl"], part["hello_eval"])
    rest = part["gap"] + part["before"] + part["after"]
    if not ahead:
        starts = max(hellos) if slot >= 2 else sum(hellos)
        return (rest + starts + part["timed"]) / jobs
    starts = max(hellos) if executor >= 2 else sum(hellos)
    cycle = part["timed"] + max(rest, starts)
    # The executor's cores serve every slot's starts: together they cannot start more than they have time for.
    cycle = max(cycle, jobs * sum(hellos) / executor)
    return cycle / jobs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", type=Path, default=ROOT / "target" / "release" / "metewand")
    parser.add_argument("--sdk", type=Path, default=ROOT / "sdk-python" / "src")
    parser.add_argument("--anchor", type=Path, default=ROOT.parent / "shared" / "anchors" / "benchopt")
    parser.add_argument("--python", type=Path, required=True, help="an interpreter with numpy, for the workers")
    parser.add_argument("--repetitions", type=int, default=4)
    parser.add_argument("--cores", default="8,16")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="metewand-ahead-"))
    try:
        repo = work / "repo"
        shutil.copytree(args.anchor / "mw-numpy", repo)
        template = (repo / "metewand.toml.in").read_text()
        sdk = compiled_sdk(args.sdk, work, args.python)
        (repo / "metewand.toml").write_text(template.replace("@SDK@", str(sdk)))
        env = dict(os.environ, PATH=f"{args.python.absolute().parent}:{os.environ['PATH']}")
        state = work / "state"
        print(f"machine: {os.cpu_count()} logical CPUs, load average {os.getloadavg()}", flush=True)
        run(args.bin, repo, state, work / "warm", 1, [], env)
        plain = run(args.bin, repo, state, work / "plain", args.repetitions, [], env)
        ahead = run(args.bin, repo, state, work / "ahead", args.repetitions, ["--ahead"], env)
        part = parts(records(work / "plain"))
        print("the parts of an attempt, ms: " + ", ".join(f"{key} {1e3 * value:.1f}" for key, value in part.items()))
        here = len(os.sched_getaffinity(0))
        model = [per_attempt(part, here, 1, flag) for flag in (False, True)]
        print(f"this machine ({here} CPUs) at -j 1, ms per attempt: measured plain {1e3 * plain:.1f}, ahead "
              f"{1e3 * ahead:.1f}; simulated plain {1e3 * (model[0] or 0):.1f}, ahead {1e3 * (model[1] or 0):.1f}")
        print("| cores | -j | slot cores, executor's (plain / ahead) | plain ms per attempt | ahead | ratio |")
        print("| --- | --- | --- | --- | --- | --- |")
        for cores in map(int, args.cores.split(",")):
            for jobs in sorted({1, 2, 3, 4, cores // 4, cores // 2, cores // 2 + 1, cores - 1, cores} - {0}):
                plain_ms, ahead_ms = (per_attempt(part, cores, jobs, flag) for flag in (False, True))
                if plain_ms is None:
                    continue
                shown = "%d, %d / %d, %d" % (*division(cores, jobs, False), *division(cores, jobs, True))
                ahead_text = "-" if ahead_ms is None else f"{1e3 * ahead_ms:.1f}"
                ratio = "-" if ahead_ms is None else f"{ahead_ms / plain_ms:.2f}"
                print(f"| {cores} | {jobs} | {shown} | {1e3 * plain_ms:.1f} | {ahead_text} | {ratio} |")
        print(f"machine: load average {os.getloadavg()} at the end")
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(work)], check=False)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
