#!/usr/bin/env python3
"""The store benchmark: what a large dataset costs each attempt, this build beside a baseline build (an earlier
binary, given by --baseline), in one run.

    cargo build --release -p metewand-cli -p test-worker
    git worktree add /tmp/before <commit> && cargo build --release -p metewand-cli --manifest-path /tmp/before/Cargo.toml
    python3 metewand-campaign/benches/store.py --baseline /tmp/before/target/release/metewand [--megabytes 256]
        [--source-megabytes 64] [--attempts 12]

The trivial benchmark (the test worker, which reads nothing of its dataset), its materializer replaced by a Python
SDK worker that writes --megabytes of bytes, and --source-megabytes of bytes in the implementation's source (as a
worker that ships its model's weights): the dataset is materialized once, then the store is left alone until it has
settled (5 s, `SETTLED`), as the store of an earlier campaign has. Each binary then runs --attempts
attempts on that dataset (one repetition of each of --attempts implementation seeds: a reused session serves each
cell once), at -j 1, with fresh and with reused sessions, alternated twice. Prints wall time
and the executor's own time per attempt (the record's wall time less the workers' phases, as in campaign.py).

Standard library only. Prints a table; nothing is asserted (performance is not a test).
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

from campaign import ROOT, executor_ms, records, timed, trivial_repo

# How long a store entry must have been left alone before a verification trusts its stamp (`stamped::SETTLED`).
SETTLED_SECONDS = 5

MATERIALIZER = '''
import metewand


class Blob(metewand.Materializer):
    def materialize(self, source_dir, parameters, seed, output):
        with output.open("blob.bin", "wb") as blob:
            for _ in range(parameters["megabytes"]):
                blob.write(bytes([seed % 256]) * (1 << 20))
        output.data = {"seed": seed, "blob": "blob.bin"}


if __name__ == "__main__":
    metewand.run(Blob)
'''


def big_repo(directory: Path, worker: Path, megabytes: int, source_megabytes: int) -> Path:
    repo = trivial_repo(directory, worker)
    with open(repo / "src-solver" / "weights.bin", "wb") as weights:
        for _ in range(source_megabytes):
            weights.write(b"\x01" * (1 << 20))
    (repo / "src-blob").mkdir()
    (repo / "src-blob" / "blob.py").write_text(MATERIALIZER, encoding="utf-8")
    toml = (repo / "metewand.toml").read_text(encoding="utf-8")
    toml += f'''
[workers.blob]
role = "dataset_materializer"
command = ["python3", "blob.py"]
source = "src-blob"
env = {{ PYTHONPATH = "{ROOT / 'sdk-python' / 'src'}" }}

[datasets.big]
materializer = "blob"
parameters = {{ megabytes = {megabytes} }}
output_schema = {{ type = "object", required = ["seed"] }}
'''
    (repo / "metewand.toml").write_text(toml, encoding="utf-8")
    return repo


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", type=Path, default=ROOT / "target" / "release" / "metewand")
    parser.add_argument("--test-worker", type=Path, default=ROOT / "target" / "release" / "test-worker")
    parser.add_argument("--baseline", type=Path, required=True, help="a metewand binary of an earlier build")
    parser.add_argument("--megabytes", type=int, default=256)
    parser.add_argument("--source-megabytes", type=int, default=64)
    parser.add_argument("--attempts", type=int, default=12)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="metewand-store-bench-"))
    try:
        print(f"machine: {os.cpu_count()} logical CPUs, load average {os.getloadavg()}")
        repo = big_repo(work / "big", args.test_worker.resolve(), args.megabytes, args.source_megabytes)
        state = work / "state"
        axes = ["--problem", "answer", "--dataset", "big", "--implementation", "solve", "--dataset-seeds", "0"]
        done = subprocess.run([args.bin, "campaign", "run", repo, *axes, "--quiet", "--state-dir", state, "--out",
                               work / "warm"], capture_output=True, check=False)
        if done.returncode != 0:
            sys.exit(f"materializing failed: {done.stderr.decode()}")
        time.sleep(SETTLED_SECONDS + 1)
        binaries = {"baseline": args.baseline.resolve(), "this build": args.bin.resolve()}
        results: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for round_ in range(2):
            for name, binary in binaries.items():
                for sessions in ("fresh", "reuse"):
                    folder = work / f"{name.replace(' ', '-')}-{sessions}-{round_}"
                    # One repetition of each of --attempts implementation seeds: a reused session serves each cell
                    # once, so repetitions of one cell would each start a session of their own.
                    wall, done = timed([binary, "campaign", "run", repo, *axes, "--implementation-seeds",
                                        f"0..{args.attempts}", "--repetitions", "1", "-j", "1", "--sessions",
                                        sessions, "--quiet", "--state-dir", state, "--out", folder])
                    if done.returncode != 0:
                        sys.exit(f"{name} {sessions} failed: {done.stderr.decode()}")
                    found = records(folder / "attempts")
                    results.setdefault((name, sessions), []).append(
                        (1000 * wall / len(found), executor_ms(found)))
        print(f"\n{args.megabytes} MB dataset, {args.source_megabytes} MB source, {args.attempts} attempts at -j 1; "
              "ms per attempt, wall | executor's own (each run)")
        for (name, sessions), runs in results.items():
            cells = "   ".join(f"{wall:8.1f} | {own:7.1f}" for wall, own in runs)
            median = statistics.median(own for _, own in runs)
            print(f"  {name:<11} {sessions:<6} {cells}   (executor's own, median {median:.1f})")
    finally:
        subprocess.run(["chmod", "-R", "u+w", work], check=False)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
