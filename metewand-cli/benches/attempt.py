"""Benchmark: one whole `metewand run` attempt on the example against the same science without Metewand.

    cargo build --release -p metewand-cli
    python3 metewand-cli/benches/attempt.py [--runs N] [--dataset small|tall] [--binary PATH]

The baseline runs the example's three computations (draw the dataset, solve by Cholesky, judge the answer) in
three `python3` processes that write and read the same files, with no SDK, no protocol, no copies and no hashing.
Metewand is measured twice: with a fresh state folder (the dataset is materialized, validated and published) and
with the dataset already in the store (re-verified and reused). It then times the parts the difference is made of:
a bare `python3` start, `import metewand`, the repository check (`metewand check`), and reads the executor's own
phase timings from attempt.json. Standard library only; nothing is written outside a temporary folder.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EXAMPLE = os.path.join(ROOT, "examples", "least-squares")
RIDGE = EXAMPLE  # the folder that holds the shared `ridge` package
BINARY = os.path.join(ROOT, "target", "release", "metewand")
SDK = os.path.join(ROOT, "sdk-python", "src")

PARAMETERS = {"small": (200, 20, 0.01), "tall": (2000, 40, 0.1)}

GENERATE = """
import random, sys
rows, columns, noise, out = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
rng = random.Random(0)
truth = [rng.gauss(0.0, 1.0) for _ in range(columns)]
with open(out + "/matrix.csv", "w") as matrix, open(out + "/rhs.csv", "w") as rhs:
    for _ in range(rows):
        row = [rng.gauss(0.0, 1.0) for _ in range(columns)]
        matrix.write(",".join(repr(v) for v in row) + "\\n")
        rhs.write(repr(sum(a * x for a, x in zip(row, truth)) + rng.gauss(0.0, noise)) + "\\n")
"""

SOLVE = """
import json, sys
import ridge
out = sys.argv[1]
a, b = ridge.read_matrix(out + "/matrix.csv"), ridge.read_vector(out + "/rhs.csv")
gram, rhs = ridge.normal_equations(a, b, 0.1)
x = ridge.cholesky_solve(gram, rhs)
with open(out + "/solution.json", "w") as file:
    json.dump({"x": x}, file)
"""

JUDGE = """
import json, math, sys
import ridge
out = sys.argv[1]
a, b = ridge.read_matrix(out + "/matrix.csv"), ridge.read_vector(out + "/rhs.csv")
with open(out + "/solution.json") as file:
    x = json.load(file)["x"]
gram, rhs = ridge.normal_equations(a, b, 0.1)
optimum = ridge.objective(a, b, 0.1, ridge.cholesky_solve(gram, rhs))
gap = (ridge.objective(a, b, 0.1, x) - optimum) / max(optimum, math.ulp(1.0))
assert gap <= 1e-9
"""


def timed(command, **kwargs):
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, **kwargs)
    return time.perf_counter() - started


def baseline(dataset, scratch):
    rows, columns, noise = PARAMETERS[dataset]
    os.makedirs(scratch)
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": RIDGE, "PYTHONDONTWRITEBYTECODE": "1"}
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", GENERATE, str(rows), str(columns), str(noise), scratch], check=True, env=env)
    subprocess.run([sys.executable, "-c", SOLVE, scratch], check=True, env=env)
    subprocess.run([sys.executable, "-c", JUDGE, scratch], check=True, env=env)
    return time.perf_counter() - started


def attempt(dataset, state, out):
    command = [BINARY, "run", EXAMPLE, "--problem", "ridge", "--dataset", dataset, "--implementation", "cholesky",
               "--state-dir", state, "--out", out]
    elapsed = timed(command)
    with open(os.path.join(out, "attempt.json"), encoding="utf-8") as file:
        record = json.load(file)
    assert record["outcome"] == "reached", record["failure"]
    return elapsed, record


def ms(seconds):
    return f"{seconds * 1000:8.1f} ms"


def main():
    global BINARY
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--dataset", choices=sorted(PARAMETERS), default="small")
    parser.add_argument("--binary", default=BINARY, help="the metewand to measure (another build, for a comparison)")
    options = parser.parse_args()
    BINARY = options.binary
    if not os.path.exists(BINARY):
        sys.exit(f"{BINARY} is missing: run `cargo build --release -p metewand-cli` first")
    with tempfile.TemporaryDirectory() as temp:
        direct, fresh, reused, phases = [], [], [], {}
        python_start = [timed([sys.executable, "-c", "pass"]) for _ in range(options.runs)]
        sdk_import = [timed([sys.executable, "-c", "import metewand, metewand.models"], env={"PYTHONPATH": SDK})
                      for _ in range(options.runs)]
        check = [timed([BINARY, "check", EXAMPLE]) for _ in range(options.runs)]
        shared_state = os.path.join(temp, "shared-state")
        attempt(options.dataset, shared_state, os.path.join(temp, "warm"))
        for run in range(options.runs):
            direct.append(baseline(options.dataset, os.path.join(temp, f"direct-{run}")))
            elapsed, record = attempt(options.dataset, os.path.join(temp, f"state-{run}"), os.path.join(temp, f"f{run}"))
            fresh.append(elapsed)
            for phase in record["phases"]:
                key = f'{phase["role"]} {phase["phase"]}'
                phases.setdefault(key, []).append(phase["duration_ns"] / 1e9)
            elapsed, record = attempt(options.dataset, shared_state, os.path.join(temp, f"r{run}"))
            assert record["dataset"]["reused"] is True
            reused.append(elapsed)
        median = statistics.median
        print(f"dataset {options.dataset}, {options.runs} runs, medians")
        print(f"  direct science, 3 python3 processes  {ms(median(direct))}")
        print(f"  metewand run, dataset materialized   {ms(median(fresh))}  ratio {median(fresh) / median(direct):.2f}")
        print(f"  metewand run, dataset reused         {ms(median(reused))}  ratio {median(reused) / median(direct):.2f}")
        print("where the time goes")
        print(f"  python3 start (-c pass)              {ms(median(python_start))}")
        print(f"  python3 start + import metewand      {ms(median(sdk_import))}")
        print(f"  metewand check (load, hash, compile) {ms(median(check))}")
        for key, values in phases.items():
            print(f"  {key:<37}{ms(median(values))}")
        accounted = sum(median(values) for values in phases.values())
        print(f"  sum of the executor's phase timings  {ms(accounted)}")
        print(f"  rest (check, copies, validation, I/O){ms(median(fresh) - accounted)}")


if __name__ == "__main__":
    main()
