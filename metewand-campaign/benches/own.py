#!/usr/bin/env python3
"""The executor's own time per attempt, this build beside a baseline build (an earlier binary, given by --baseline),
alternated in one run.

    cargo build --release -p metewand-cli
    git worktree add /tmp/before <commit> && cargo build --release -p metewand-cli --manifest-path /tmp/before/Cargo.toml
    python3 metewand-campaign/benches/own.py --baseline /tmp/before/target/release/metewand [--rounds 2] \
        [--repetitions N --attempts K]

The example's `main` campaign (48 attempts) at -j 1, its datasets and source copies made first (one campaign run, not
measured) and left to settle (as in store.py), then
each binary with fresh and with reused sessions, alternated --rounds times. The executor's own time of an attempt is
its record's wall time less the union of its workers' phases (as in campaign.py): what the executor does between and
around the workers' requests (folders, confinement, source and dataset checks, seals, stops, validation), not the
record's writing, which comes after `finished_at`. Prints the median and the mean per attempt of each run.

With --repetitions N, the campaign is planned with N repetitions a cell (48 N attempts, a plan the executor holds
in memory) and each run is stopped (SIGINT, as Ctrl-C) once K attempts have records: the own time of those K, and
the executor's peak resident memory, which a fork of each worker copies (page tables, copy-on-write) where a child
started in the executor's memory does not.

Standard library only. Prints a table; nothing is asserted (performance is not a test).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from campaign import EXAMPLE, ROOT, busy_seconds, parse_time, records, timed
from store import SETTLED_SECONDS


def own_ms(record: dict[str, Any]) -> float:
    """One attempt's own time: its record's wall time less the union of its workers' phases within it."""
    start, end = parse_time(record["started_at"]), parse_time(record["finished_at"])
    return 1000 * ((end - start) - busy_seconds(record["phases"], (start, end)))


def stopped_at(argv: list[Any], folder: Path, attempts: int) -> tuple[float, int]:
    """Runs a campaign until `attempts` of its attempts have records, then stops it as Ctrl-C does; its wall seconds
    and its peak resident memory (KiB, sampled every 50 ms)."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak_kib = 0
    while process.poll() is None:
        time.sleep(0.05)
        try:
            status = Path(f"/proc/{process.pid}/status").read_text()
        except OSError:
            break
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                peak_kib = max(peak_kib, int(line.split()[1]))
        if len(list((folder / "attempts").glob("*/attempt.json"))) >= attempts:
            break
    process.send_signal(signal.SIGINT)
    process.wait()
    return time.perf_counter() - start, peak_kib


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", type=Path, default=ROOT / "target" / "release" / "metewand")
    parser.add_argument("--baseline", type=Path, required=True, help="a metewand binary of an earlier build")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--repetitions", type=int, help="plan N repetitions a cell and stop each run early")
    parser.add_argument("--attempts", type=int, default=48, help="with --repetitions, the records a run stops at")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="metewand-own-bench-"))
    try:
        print(f"machine: {os.cpu_count()} logical CPUs, load average {os.getloadavg()}")
        state = work / "state"
        done = subprocess.run([args.bin, "campaign", "run", EXAMPLE, "main", "--quiet", "--state-dir", state,
                               "--out", work / "warm"], capture_output=True, check=False)
        if done.returncode != 0:
            sys.exit(f"making the datasets failed: {done.stderr.decode()}")
        time.sleep(SETTLED_SECONDS + 1)
        binaries = {"baseline": args.baseline.resolve(), "this build": args.bin.resolve()}
        results: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
        for round_ in range(args.rounds):
            for name, binary in binaries.items():
                for sessions in ("fresh", "reuse"):
                    folder = work / f"{name.replace(' ', '-')}-{sessions}-{round_}"
                    argv = [binary, "campaign", "run", EXAMPLE, "main", "-j", "1", "--sessions", sessions, "--quiet",
                            "--state-dir", state, "--out", folder]
                    peak_kib = 0
                    if args.repetitions:
                        argv += ["--repetitions", str(args.repetitions)]
                        wall, peak_kib = stopped_at(argv, folder, args.attempts)
                    else:
                        wall, done = timed(argv)
                        if done.returncode != 0:
                            sys.exit(f"{name} {sessions} failed: {done.stderr.decode()}")
                    own = [own_ms(record) for record in records(folder / "attempts")]
                    results.setdefault((name, sessions), []).append(
                        (1000 * wall / len(own), statistics.median(own), statistics.mean(own), peak_kib / 1024))
        plan = f"{args.repetitions} repetitions a cell, stopped at {args.attempts} records" if args.repetitions else \
            "48 attempts"
        print(f"\nthe example's main campaign at -j 1 ({plan}); ms per attempt: wall | executor's own, median / mean"
              " (each run)" + ("; the executor's peak RSS" if args.repetitions else ""))
        for (name, sessions), runs in results.items():
            cells = "   ".join(f"{wall:6.1f} | {median:5.2f} / {mean:5.2f}" + (f" {rss:4.0f} MiB" if rss else "")
                               for wall, median, mean, rss in runs)
            print(f"  {name:<11} {sessions:<6} {cells}")
    finally:
        subprocess.run(["chmod", "-R", "u+w", work], check=False)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
