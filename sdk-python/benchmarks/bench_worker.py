"""Benchmark of the Python SDK: what ``import metewand`` costs, and the worker loop's overhead.

Run it with the interpreter to measure, from anywhere:

    python3 sdk-python/benchmarks/bench_worker.py [--runs 7] [--import-runs 41] [--requests 10000]

It reports medians over the runs (interleaved, so drift affects both sides alike):

1. Import time: the wall time of ``python3 -c "import metewand"`` minus that of
   ``python3 -c pass`` (same interpreter, same environment), once from a copy of the sources
   without bytecode (``PYTHONDONTWRITEBYTECODE=1``, so every run compiles the package) and once
   from a copy compiled with ``compileall``; plus the cumulative time ``-X importtime`` reports
   for ``metewand``, which is free of process start-up noise.
2. The loop: one Python driver sends ``hello``, then the reset requests one at a time, each after
   the previous response (as the orchestrator does), then ``shutdown``, to an implementation
   worker built with the SDK and to a bare Python loop that reads a line, ``json.loads`` it and
   writes a ``json.dumps`` acknowledgment. Wall time covers the whole session (start-up
   included) and the resets alone; CPU time is the worker process's user plus system time, from
   ``wait4``.

This is a measurement, not a test: it asserts nothing and exits 0.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SDK_SRC = Path(__file__).resolve().parents[1] / "src"
WORKER_ID = "mw1-resolved-worker-" + "0123456789abcdef" * 4

SDK_WORKER = """\
import metewand


class Idle(metewand.Implementation):
    def prepare(self, dataset, parameters, seed, problem):
        pass

    def execute(self, result):
        return None

    def reset(self):
        pass


metewand.run(Idle)
"""

BARE_WORKER = """\
import json
import sys

requests = sys.stdin.buffer
responses = sys.stdout.buffer
for line in requests:
    request = json.loads(line)
    if request["method"] == "hello":
        response = {
            "capabilities": ["one_shot"],
            "id": request["id"],
            "ok": True,
            "protocol": 1,
            "sdk": None,
            "worker_id": request["worker_id"],
        }
    else:
        response = {"id": request["id"], "ok": True}
    responses.write(json.dumps(response).encode() + b"\\n")
    responses.flush()
    if request["method"] == "shutdown":
        break
"""


def median(values: list[float]) -> float:
    return statistics.median(values)


# ---------------------------------------------------------------------------
# Import time


def copy_sources(destination: Path, compiled: bool) -> Path:
    target = destination / "src"
    shutil.copytree(SDK_SRC, target, ignore=shutil.ignore_patterns("__pycache__"))
    if compiled:
        compileall.compile_dir(str(target), quiet=1)
    return target


def wall_time(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, env=env, check=True)
    return time.perf_counter() - started


def importtime_of_metewand(env: dict[str, str]) -> float:
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import metewand"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    for line in result.stderr.splitlines():
        # "import time: self [us] | cumulative | imported package"
        parts = [part.strip() for part in line.split("|")]
        if len(parts) == 3 and parts[2] == "metewand":
            return int(parts[1]) / 1e6
    raise RuntimeError("-X importtime did not report metewand")


def measure_import(runs: int) -> dict[str, dict[str, float]]:
    figures = {}
    with tempfile.TemporaryDirectory() as temporary:
        for label, compiled in (("without bytecode", False), ("with bytecode", True)):
            source = copy_sources(Path(temporary) / label.replace(" ", "-"), compiled)
            env = dict(os.environ, PYTHONPATH=str(source), PYTHONDONTWRITEBYTECODE="1")
            # With and without site: site's own imports (.pth files) make start-up noisy.
            commands = {
                "bare": [sys.executable, "-c", "pass"],
                "import": [sys.executable, "-c", "import metewand"],
                "bare -S": [sys.executable, "-S", "-c", "pass"],
                "import -S": [sys.executable, "-S", "-c", "import metewand"],
            }
            for _ in range(3):  # warm the file cache and the interpreter's own bytecode
                for command in commands.values():
                    wall_time(command, env)
            samples: dict[str, list[float]] = {name: [] for name in commands}
            reported = []
            for _ in range(runs):
                for name, command in commands.items():
                    samples[name].append(wall_time(command, env))
                reported.append(importtime_of_metewand(env))
            figure = {name: median(values) for name, values in samples.items()}
            figure["added"] = figure["import"] - figure["bare"]
            figure["added -S"] = figure["import -S"] - figure["bare -S"]
            # Minimums too: on a busy machine start-up jitter exceeds the import's cost, and the
            # fastest runs are the ones least disturbed.
            figure["added min"] = min(samples["import"]) - min(samples["bare"])
            figure["added -S min"] = min(samples["import -S"]) - min(samples["bare -S"])
            figure["importtime"] = median(reported)
            figures[label] = figure
    return figures


# ---------------------------------------------------------------------------
# The loop


def line(message: dict[str, object]) -> bytes:
    return json.dumps(message, separators=(",", ":"), sort_keys=True).encode() + b"\n"


def drive(script: Path, requests: int, env: dict[str, str]) -> dict[str, float]:
    """One session: hello, ``requests`` resets, shutdown. Returns wall and CPU seconds."""
    hello = line(
        {
            "id": "0",
            "method": "hello",
            "protocols": [1],
            "role": "implementation",
            "worker_id": WORKER_ID,
        }
    )
    resets = [line({"id": str(index), "method": "reset"}) for index in range(1, requests + 1)]
    shutdown = line({"id": str(requests + 1), "method": "shutdown"})

    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, str(script)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
    )
    assert process.stdin is not None and process.stdout is not None
    send, receive = process.stdin, process.stdout

    def exchange(request: bytes) -> None:
        send.write(request)
        send.flush()
        response = json.loads(receive.readline())
        if response.get("ok") is not True:
            raise RuntimeError(f"unexpected response {response}")

    exchange(hello)
    loop_started = time.perf_counter()
    for request in resets:
        exchange(request)
    loop_ended = time.perf_counter()
    exchange(shutdown)
    send.close()
    _, status, usage = os.wait4(process.pid, 0)
    ended = time.perf_counter()
    process.returncode = os.waitstatus_to_exitcode(status)
    receive.close()
    if process.returncode != 0:
        raise RuntimeError(f"{script.name} exited with status {process.returncode}")
    return {
        "session": ended - started,
        "resets": loop_ended - loop_started,
        "cpu": usage.ru_utime + usage.ru_stime,
    }


def measure_loop(runs: int, requests: int) -> dict[str, dict[str, float]]:
    with tempfile.TemporaryDirectory() as temporary:
        source = copy_sources(Path(temporary), compiled=True)
        sdk_script = Path(temporary) / "sdk_worker.py"
        sdk_script.write_text(SDK_WORKER)
        bare_script = Path(temporary) / "bare_worker.py"
        bare_script.write_text(BARE_WORKER)
        env = dict(os.environ, PYTHONPATH=str(source))
        env.pop("PYTHONUNBUFFERED", None)
        samples: dict[str, list[dict[str, float]]] = {"sdk": [], "bare": []}
        drive(sdk_script, 100, env)  # warm up
        drive(bare_script, 100, env)
        for _ in range(runs):
            samples["sdk"].append(drive(sdk_script, requests, env))
            samples["bare"].append(drive(bare_script, requests, env))
    return {
        name: {key: median([sample[key] for sample in values]) for key in values[0]}
        for name, values in samples.items()
    }


# ---------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="sessions per worker (at least 5)")
    parser.add_argument("--import-runs", type=int, default=41, help="interpreter starts per case")
    parser.add_argument("--requests", type=int, default=10000, help="reset requests per session")
    arguments = parser.parse_args()
    if arguments.runs < 5 or arguments.import_runs < 5:
        parser.error("medians need at least 5 runs")

    print(f"python {sys.version.split()[0]} ({sys.executable})")
    print(f"\nimport metewand, medians of {arguments.import_runs} runs:")
    for label, figure in measure_import(arguments.import_runs).items():
        print(
            f"  {label}: -X importtime {figure['importtime'] * 1e3:.3f} ms;\n"
            f"    python3 -c pass {figure['bare'] * 1e3:6.2f} ms, "
            f"with the import {figure['import'] * 1e3:6.2f} ms, "
            f"added {figure['added'] * 1e3:+5.2f} ms "
            f"(minimums: {figure['added min'] * 1e3:+5.2f} ms)\n"
            f"    python3 -S -c pass {figure['bare -S'] * 1e3:6.2f} ms, "
            f"with the import {figure['import -S'] * 1e3:6.2f} ms, "
            f"added {figure['added -S'] * 1e3:+5.2f} ms "
            f"(minimums: {figure['added -S min'] * 1e3:+5.2f} ms)"
        )

    print(f"\nhello, {arguments.requests} resets, shutdown; medians of {arguments.runs} sessions:")
    loop = measure_loop(arguments.runs, arguments.requests)
    for name, label in (("sdk", "SDK worker"), ("bare", "bare json loop")):
        figure = loop[name]
        print(
            f"  {label:15} session {figure['session'] * 1e3:8.1f} ms, "
            f"resets {figure['resets'] * 1e3:8.1f} ms "
            f"({figure['resets'] / arguments.requests * 1e6:5.1f} us each), "
            f"worker CPU {figure['cpu'] * 1e3:8.1f} ms"
        )
    sdk, bare = loop["sdk"], loop["bare"]
    print(
        f"  ratio SDK / bare: session wall {sdk['session'] / bare['session']:.2f}x, "
        f"resets wall {sdk['resets'] / bare['resets']:.2f}x, "
        f"worker CPU {sdk['cpu'] / bare['cpu']:.2f}x (target: wall at most 1.5x)"
    )


if __name__ == "__main__":
    main()
