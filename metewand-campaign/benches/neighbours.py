#!/usr/bin/env python3
"""The neighbour benchmark: how much a hostile neighbour slot inflates an honest attempt's execute time at -j 2.

    cargo build --release -p metewand-cli
    python3 metewand-campaign/benches/neighbours.py [--rounds 8]

A copy of the example benchmark gains two implementations: `burner`, whose worker starts 4 processes that each
call `setsid`, try to widen their CPU affinity to every CPU, and spin, then holds its execute for a few seconds;
and `idle`, which only holds its execute. Each round runs four one-dataset campaigns at -j 2, in alternating
order: cholesky on a dataset of 8000 rows beside `idle` (the baseline) and beside `burner`, each with the slots' CPU sets (the
default) and with `--share-cpus` (no CPU sets). Printed: the median executor-measured execute time of cholesky
in each of the four, the ratio beside the burners to beside the idle neighbour with and without CPU sets, and
the CPUs and binding the records give.

Standard library only. Prints a table; nothing is asserted (performance is not a test).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "least-squares"
METEWAND = ROOT / "target" / "release" / "metewand"
HOLD_SECONDS = 4.0

NEIGHBOUR = '''"""A neighbour for the benchmark: {what}, then holds its execute for {hold} s."""

import os
import subprocess
import sys
import time

import metewand

SPIN = """
import os
os.setsid()
try:
    os.sched_setaffinity(0, range(os.cpu_count() or 1))
except OSError:
    pass
while True:
    pass
"""

if {burn}:
    for _ in range(4):
        subprocess.Popen(
            [sys.executable, "-c", SPIN],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )


class Neighbour(metewand.Implementation):
    def prepare(self, dataset, parameters, seed, problem):
        pass

    def execute(self, result):
        time.sleep({hold})
        result.write_json("solution.json", {{"x": []}})
        result.data = {{"solution": "solution.json", "objective": 0.0}}
        return {{}}


if __name__ == "__main__":
    metewand.run(Neighbour)
'''


def build(repo: Path) -> None:
    shutil.copytree(EXAMPLE, repo)
    sdk = ROOT / "sdk-python" / "src"
    toml = (repo / "metewand.toml").read_text().replace("${repo}/../../sdk-python/src", str(sdk))
    for name, burn, what in [("burner", True, "starts 4 CPU burners"), ("idle", False, "starts nothing")]:
        (repo / "workers" / f"{name}.py").write_text(NEIGHBOUR.format(what=what, hold=HOLD_SECONDS, burn=burn))
        toml += f"""
[workers.{name}]
role = "implementation"
command = ["python3", "{name}.py"]
source = "workers"
env = {{ PYTHONPATH = "{sdk}" }}

[implementations.{name}]
worker = "{name}"
parameters = {{}}

[campaigns.beside-{name}]
problems = ["ridge"]
datasets = ["wide"]
implementations = ["{name}", "cholesky"]
"""
    # Larger than `tall`, so that cholesky's execute (about half a second) dwarfs the neighbours' start-up.
    toml += """
[datasets.wide]
materializer = "generate"
parameters = { rows = 8000, columns = 40, noise = 0.1 }
parameters_schema = "urn:example:least-squares:dataset-parameters:1"
output_schema = "urn:example:least-squares:dataset:1"
"""
    (repo / "metewand.toml").write_text(toml)


def run(repo: Path, state: Path, out: Path, neighbour: str, share: bool) -> tuple[float, str]:
    """Cholesky's execute seconds in one campaign beside `neighbour`, and its CPUs and binding."""
    argv = [str(METEWAND), "campaign", "run", str(repo), f"beside-{neighbour}", "-j", "2", "--quiet"]
    argv += ["--state-dir", str(state), "--out", str(out)] + (["--share-cpus"] if share else [])
    subprocess.run(argv, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for record_path in (out / "attempts").glob("*/attempt.json"):
        record = json.loads(record_path.read_text())
        if record["implementation"]["name"] != "cholesky":
            continue
        if record["outcome"] != "reached":
            sys.exit(f"cholesky beside {neighbour}: {record['outcome']}: {record['failure']}")
        (execute,) = [p for p in record["phases"] if p["role"] == "implementation" and p["phase"] == "execute"]
        cpus = record["implementation"]["cpus"]
        return execute["duration_ns"] / 1e9, f"{cpus['list']} {cpus['binding']}"
    sys.exit(f"no cholesky record in {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=8)
    args = parser.parse_args()
    if not METEWAND.exists():
        sys.exit("build it first: cargo build --release -p metewand-cli")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        repo = root / "repo"
        build(repo)
        cells = [(share, neighbour) for share in (False, True) for neighbour in ("idle", "burner")]
        times: dict[tuple[bool, str], list[float]] = {cell: [] for cell in cells}
        placement: dict[tuple[bool, str], str] = {}
        # The dataset is materialized once, outside the measured runs.
        run(repo, root / "state", root / "warm", "idle", False)
        for round_ in range(args.rounds):
            order = cells if round_ % 2 == 0 else list(reversed(cells))
            for share, neighbour in order:
                out = root / f"{'shared' if share else 'sets'}-{neighbour}-{round_}"
                seconds, placement[(share, neighbour)] = run(repo, root / "state", out, neighbour, share)
                times[(share, neighbour)].append(seconds)
        print(f"cholesky on 8000 x 40, -j 2, {args.rounds} rounds, executor-measured execute medians")
        for share in (False, True):
            label = "shared CPUs (--share-cpus)" if share else "CPU sets per slot"
            idle = statistics.median(times[(share, "idle")])
            burner = statistics.median(times[(share, "burner")])
            print(f"{label:28} beside idle {idle * 1e3:9.1f} ms   beside 4 setsid burners {burner * 1e3:9.1f} ms"
                  f"   ratio {burner / idle:5.2f}x   cholesky on {placement[(share, 'burner')]}")


if __name__ == "__main__":
    main()
