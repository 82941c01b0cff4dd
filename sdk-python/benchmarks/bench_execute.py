"""Benchmark: the SDK inside the timed window. The example's cholesky through the SDK against the same solve
speaking the protocol directly, first execute of a fresh process and later ones.

    cargo build --release -p metewand-cli
    python3 sdk-python/benchmarks/bench_execute.py [--runs 15] [--executes 5]

A driver plays the executor: it starts each worker (fresh process), answers nothing itself, sends ``hello``, then
``--executes`` times ``prepare``, ``execute`` (into an empty folder) and ``reset``, and times each ``execute`` from
writing the request to reading the response, as the executor does. The dataset is the example's ``small`` (seed
0), materialized once by ``metewand run``. The two workers alternate, run by run, so drift affects both alike.
Printed: the medians of the first execute and of the later ones for each worker, and the SDK's excess (the
median of the differences paired run by run).

This is a measurement, not a test: it asserts nothing and exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "least-squares"
BINARY = ROOT / "target" / "release" / "metewand"
SDK = ROOT / "sdk-python" / "src"
WORKER_ID = "mw1-resolved-worker-" + "0123456789abcdef" * 4


def materialize(temp: Path) -> tuple[Path, dict[str, object]]:
    """The dataset folder of ``small`` seed 0 and the ``prepare`` parameters a real attempt sent."""
    state = temp / "state"
    argv = [str(BINARY), "run", str(EXAMPLE), "--problem", "ridge", "--dataset", "small"]
    argv += ["--implementation", "cholesky", "--state-dir", str(state), "--out", str(temp / "attempt")]
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    record = json.loads((temp / "attempt" / "attempt.json").read_text())
    dataset = state / "datasets" / record["dataset"]["key"]
    prepare = {
        "dataset_dir": str(dataset),
        "implementation_parameters": {},
        "implementation_seed": 0,
        "problem_contract_id": record["problem"]["contract_id"],
        "problem_parameters": record["problem"]["parameters"],
    }
    return dataset, prepare


def session(script: str, prepare: dict[str, object], executes: int, scratch: Path) -> list[float]:
    """The seconds of each execute of one fresh worker process."""
    # As in a session: the worker's own folder, with the shared `ridge` package reachable.
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": f"{SDK}:{EXAMPLE}"}
    folder, name = script.split("/")
    worker = subprocess.Popen(
        [sys.executable, name],
        cwd=EXAMPLE / "workers" / folder,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        bufsize=1,
    )
    assert worker.stdin is not None and worker.stdout is not None
    counter = 0

    def ask(method: str, **params: object) -> dict[str, object]:
        nonlocal counter
        counter += 1
        worker.stdin.write(json.dumps({"id": f"r{counter}", "method": method, **params}) + "\n")
        worker.stdin.flush()
        response = json.loads(worker.stdout.readline())
        if not response.get("ok"):
            sys.exit(f"{script}: {method}: {response}")
        return response

    ask("hello", protocols=[1], role="implementation", worker_id=WORKER_ID)
    times = []
    for index in range(executes):
        ask("prepare", **prepare)
        result = scratch / f"{Path(script).stem}-{time.monotonic_ns()}-{index}"
        result.mkdir()
        started = time.perf_counter()
        ask("execute", result_dir=str(result))
        times.append(time.perf_counter() - started)
        ask("reset")
    ask("shutdown")
    worker.wait()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--executes", type=int, default=5)
    options = parser.parse_args()
    if not BINARY.exists():
        sys.exit("build it first: cargo build --release -p metewand-cli")
    workers = {"sdk": "cholesky/cholesky.py", "direct": "direct-protocol/direct_protocol.py"}
    first: dict[str, list[float]] = {name: [] for name in workers}
    later: dict[str, list[float]] = {name: [] for name in workers}
    with tempfile.TemporaryDirectory() as temp:
        _, prepare = materialize(Path(temp))
        for run in range(options.runs):
            order = list(workers) if run % 2 == 0 else list(reversed(workers))
            for name in order:
                times = session(workers[name], prepare, options.executes, Path(temp))
                first[name].append(times[0])
                later[name].extend(times[1:])
    ms = lambda seconds: f"{seconds * 1e3:7.3f} ms"  # noqa: E731
    print(f"cholesky on small, {options.runs} fresh processes each, {options.executes} executes per process")
    for name in workers:
        print(f"  {name:6}  first execute {ms(statistics.median(first[name]))}"
              f"   later executes {ms(statistics.median(later[name]))}")
    # Paired run by run (the two workers ran one after the other), so that the machine's drift cancels.
    for label, series in [("first", first), ("later", later)]:
        excess = statistics.median(s - d for s, d in zip(series["sdk"], series["direct"]))
        print(f"  SDK excess, {label} execute (median of paired differences): {excess * 1e3:+.3f} ms")


if __name__ == "__main__":
    main()
