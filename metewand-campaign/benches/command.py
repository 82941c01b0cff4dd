#!/usr/bin/env python3
"""A command worker's cost per attempt against the same program behind the Python SDK, in one run.

    cargo build --release -p metewand-cli
    python3 metewand-campaign/benches/command.py [--attempts 40] [--binary target/release/metewand]

One Python program, `solve.py`, sums the integers of a dataset's `values.txt` two ways: as a command (`python3
solve.py DATASET`, run by Metewand's adapter once per `execute`: `adapter = "command"`) and as an SDK worker
(`python3 solve.py --sdk`, which speaks the protocol itself through `sdk-python/src`). Both are implementations of
one campaign, their attempts interleaved at -j 1 over --attempts dataset seeds each, beside one materializer and one
evaluator (commands both). From the records, for each implementation: the median ranked time (`execute` as the
executor measured it), the median of the implementation's phases added up (its whole session: `hello`, `prepare`,
`execute`, `shutdown`), and the median wall time of an attempt (`finished_at - started_at`). The SDK worker is the
baseline: the command pays a process start per request inside `execute`, the SDK worker one interpreter start per
session outside it.

Standard library only. Prints a table; nothing is asserted (performance is not a test).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SOLVE = '''"""The sum of a dataset's values.txt: as a command (`solve.py DATASET`) or an SDK worker (`solve.py --sdk`)."""
import json
import sys


def solve(path):
    with open(path, encoding="utf-8") as file:
        return {"sum": sum(int(line) for line in file)}


if sys.argv[1:2] == ["--sdk"]:
    import metewand

    class Sum(metewand.Implementation):
        def prepare(self, dataset, parameters, seed, problem):
            self.values = dataset.path("values.txt")

        def execute(self, result):
            result.data = solve(self.values)
            return {}

    metewand.run(Sum)
else:
    print(json.dumps(solve(sys.argv[1] + "/values.txt")))
'''

TOML = """format = 1

[workers.make]
role = "dataset_materializer"
adapter = "command"
command = ["sh", "-c", "seq 1 1000 > {{dataset}}/values.txt; echo '{{\\"count\\": 1000}}'"]
source = "src"

[workers.cmd]
role = "implementation"
adapter = "command"
command = ["python3", "solve.py", "{{dataset}}"]
source = "src"

[workers.sdk]
role = "implementation"
command = ["python3", "solve.py", "--sdk"]
env = {{ PYTHONPATH = "{sdk}" }}
source = "src"

[workers.judge]
role = "problem_evaluator"
adapter = "command"
command = ["sh", "-c", "echo '{{\\"verdict\\": \\"reached\\", \\"metrics\\": {{}}}}'"]
source = "src"

[datasets.seq]
materializer = "make"
output_schema = {{ type = "object" }}

[problems.sum]
evaluator = "judge"
result_schema = {{ type = "object", required = ["sum"] }}
metric_schema = {{ type = "object" }}

[implementations.cmd]
worker = "cmd"

[implementations.sdk]
worker = "sdk"

[campaigns.main]
implementations = ["cmd", "sdk"]
dataset_seeds = {{ from = 0, count = {attempts} }}
"""


def seconds(text: str) -> float:
    whole, _, fraction = text.rstrip("Z").partition(".")
    return datetime.fromisoformat(whole + "+00:00").timestamp() + (float("0." + fraction) if fraction else 0.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attempts", type=int, default=40, help="dataset seeds, an attempt of each implementation each")
    parser.add_argument("--binary", type=Path, default=ROOT / "target" / "release" / "metewand")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as place:
        repo = Path(place) / "repo"
        (repo / "src").mkdir(parents=True)
        (repo / "src" / "solve.py").write_text(SOLVE, encoding="utf-8")
        sdk = ROOT / "sdk-python" / "src"
        (repo / "metewand.toml").write_text(TOML.format(sdk=sdk, attempts=args.attempts), encoding="utf-8")
        state = Path(place) / "state"
        done = subprocess.run(
            [str(args.binary), "campaign", "run", str(repo), "main", "-q", "--state-dir", str(state)],
            capture_output=True,
            check=False,
        )
        if done.returncode != 0:
            sys.exit(f"the campaign failed ({done.returncode}): {done.stderr.decode()}")
        by: dict[str, dict[str, list[float]]] = {}
        for path in sorted((state / "campaigns" / "main" / "attempts").glob("*/attempt.json")):
            record = json.loads(path.read_text(encoding="utf-8"))
            name = record["implementation"]["name"]
            phases = [phase for phase in record["phases"] if phase["role"] == "implementation"]
            times = by.setdefault(name, {"execute": [], "session": [], "attempt": []})
            times["execute"] += [p["duration_ns"] / 1e6 for p in phases if p["phase"] == "execute"]
            times["session"].append(sum(p["duration_ns"] for p in phases) / 1e6)
            times["attempt"].append((seconds(record["finished_at"]) - seconds(record["started_at"])) * 1e3)
    print(f"{args.attempts} attempts of each, interleaved at -j 1; medians, the SDK worker as the baseline\n")
    print("| | command worker | SDK worker (baseline) | ratio |")
    print("| --- | --- | --- | --- |")
    for key, what in [
        ("execute", "execute, as ranked"),
        ("session", "the implementation's phases added up"),
        ("attempt", "an attempt, wall"),
    ]:
        command, baseline = statistics.median(by["cmd"][key]), statistics.median(by["sdk"][key])
        print(f"| {what} | {command:.2f} ms | {baseline:.2f} ms | {command / baseline:.2f} |")


if __name__ == "__main__":
    main()
