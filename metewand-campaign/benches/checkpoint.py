#!/usr/bin/env python3
"""What a streamed checkpoint adds to the measured time, this build beside a baseline build (an earlier binary, given
by --baseline), alternated in one run.

    cargo build --release -p metewand-cli -p test-worker
    git worktree add /tmp/before <commit> && cargo build --release -p metewand-cli --manifest-path /tmp/before/Cargo.toml
    python3 metewand-campaign/benches/checkpoint.py --baseline /tmp/before/target/release/metewand \
        [--baseline-sdk /tmp/before/sdk-python/src] [--numpy VENV/bin/python] [--steps 20] [--step-ms 1] \
        [--attempts 10] [--rounds 2]

The trivial benchmark (the test worker materializes and judges) with an SDK implementation of its own: a solver of
--steps steps of about --step-ms of arithmetic each, which on a problem with a profile hands over a checkpoint after
every step (a result of one small file and its manifest), and on one without does the same steps and no checkpoint.
With --numpy, the steps are numpy's instead (gradient descent on a least-squares problem of 4000 rows and 100
columns, its iterate saved with `numpy.save` after each step), run by the interpreter given.
Each binary runs --attempts attempts of each problem at -j 1 in fresh sessions, alternated --rounds times; the
solver runs on this checkout's SDK, and on the baseline's side on --baseline-sdk where it is given. What a
checkpoint adds is the streamed attempt's measured `execute` less the unstreamed one's, per checkpoint (of the medians,
and of the least of each, which on a loaded machine is the attempt that waited least for a CPU):
the SDK's copy of the checkpoint and its message, the executor's reading it and stopping the worker (the held interval
begins only once every thread of it is stopped), and the worker's resuming after the answer; the interval the worker
is held stopped while the checkpoint is sealed is not in it.

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
from pathlib import Path

from campaign import ROOT, records, timed, trivial_repo

SDK = ROOT / "sdk-python" / "src"

SOLVER = '''
import metewand


def step(x):
    # STEP iterations of arithmetic: about --step-ms of one core (see repo_with_solver).
    for _ in range(STEP):
        x = (x * 1103515245 + 12345) % 2147483648
    return x


class Steps(metewand.Implementation):
    def prepare(self, dataset, parameters, seed, problem):
        self.seed = seed

    def execute(self, result):
        x = self.seed
        for _ in range(STEPS):
            x = step(x)
            result.write_json("x.json", {"x": x})
            result.data = {"seed": self.seed}
        return {"x": x}

    def execute_stream(self, result, checkpoint):
        x = self.seed
        for _ in range(STEPS):
            x = step(x)
            result.write_json("x.json", {"x": x})
            result.data = {"seed": self.seed}
            if not checkpoint():
                break
        return {"x": x}


if __name__ == "__main__":
    metewand.run(Steps)
'''

NUMPY_SOLVER = '''
import numpy as np
import metewand


class Steps(metewand.Implementation):
    """Gradient descent on a least-squares problem of its own: STEPS steps of ITERATIONS iterations."""

    def prepare(self, dataset, parameters, seed, problem):
        rng = np.random.default_rng(seed)
        self.A = rng.standard_normal((4000, 100))
        self.b = rng.standard_normal(4000)
        # At most the inverse of the gradient's Lipschitz constant (the squared Frobenius norm bounds it).
        self.rate = 1.0 / float(np.sum(self.A * self.A))
        self.seed = seed

    def step(self, x):
        for _ in range(ITERATIONS):
            x = x - self.rate * (self.A.T @ (self.A @ x - self.b))
        return x

    def execute(self, result):
        x = np.zeros(100)
        for _ in range(STEPS):
            x = self.step(x)
            np.save(result.path("x.npy"), x)
            result.data = {"seed": self.seed}
        return {}

    def execute_stream(self, result, checkpoint):
        x = np.zeros(100)
        for _ in range(STEPS):
            x = self.step(x)
            np.save(result.path("x.npy"), x)
            result.data = {"seed": self.seed}
            if not checkpoint():
                break
        return {}


if __name__ == "__main__":
    metewand.run(Steps)
'''


def repo_with_solver(
    directory: Path, worker: Path, steps: int, step_ms: float, sdk: Path, numpy: bool = False
) -> Path:
    repo = trivial_repo(directory, worker)
    (repo / "src-steps").mkdir()
    if numpy:
        # About 8 iterations (of a 4000 x 100 matrix) per millisecond on the development machine.
        solver = NUMPY_SOLVER.replace("STEPS", str(steps)).replace("ITERATIONS", str(max(1, round(8 * step_ms))))
    else:
        # About 7,000 iterations of the loop per millisecond on the development machine (the best of 20 timings).
        solver = SOLVER.replace("STEPS", str(steps)).replace("STEP)", f"{int(7000 * step_ms)})")
    (repo / "src-steps" / "steps.py").write_text(solver, encoding="utf-8")
    toml = (repo / "metewand.toml").read_text(encoding="utf-8")
    toml += f'''
[workers.steps]
role = "implementation"
command = ["python3", "steps.py"]
source = "src-steps"
env = {{ PYTHONPATH = "{sdk}" }}

[problems.answer-profile]
evaluator = "judge"
parameters = {{}}
result_schema = {{ type = "object", required = ["seed"] }}
metric_schema = {{ type = "object", required = ["error"] }}
profile = {{ checkpoints = {steps} }}

[implementations.steps]
worker = "steps"
parameters = {{}}
capabilities = ["one_shot", "streaming_profile"]
'''
    (repo / "metewand.toml").write_text(toml, encoding="utf-8")
    return repo


def execute_ms(folder: Path) -> list[float]:
    """The measured `execute` of every attempt in a campaign folder, in ms."""
    found = []
    for record in records(folder / "attempts"):
        for phase in record["phases"]:
            if phase["role"] == "implementation" and phase["phase"] == "execute":
                found.append(phase["duration_ns"] / 1e6)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", type=Path, default=ROOT / "target" / "release" / "metewand")
    parser.add_argument("--test-worker", type=Path, default=ROOT / "target" / "release" / "test-worker")
    parser.add_argument("--baseline", type=Path, required=True, help="a metewand binary of an earlier build")
    parser.add_argument("--baseline-sdk", type=Path, default=SDK,
                        help="the SDK the baseline's solver runs (an earlier sdk-python/src; this one's by default)")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--step-ms", type=float, default=1.0)
    parser.add_argument("--attempts", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--numpy", type=Path, metavar="PYTHON",
                        help="a numpy solver instead, run by this interpreter (one that imports numpy; its folder "
                             "goes first on PATH, where the worker's python3 is found)")
    args = parser.parse_args()
    if args.numpy:
        os.environ["PATH"] = f"{args.numpy.absolute().parent}:{os.environ['PATH']}"
    work = Path(tempfile.mkdtemp(prefix="metewand-checkpoint-bench-"))
    try:
        print(f"machine: {os.cpu_count()} logical CPUs, load average {os.getloadavg()}")
        worker = args.test_worker.resolve()
        solver = (args.steps, args.step_ms)
        numpy = args.numpy is not None
        sides = {
            "baseline": (args.baseline.resolve(),
                         repo_with_solver(work / "baseline", worker, *solver, args.baseline_sdk.resolve(), numpy)),
            "this build": (args.bin.resolve(), repo_with_solver(work / "this", worker, *solver, SDK, numpy)),
        }
        state = work / "state"
        # One attempt made per problem is enough; only `execute` is compared.
        axes = ["--dataset", "small", "--implementation", "steps", "--dataset-seeds", "0",
                "--implementation-seeds", f"0..{args.attempts}", "--repetitions", "1", "-j", "1", "--quiet",
                "--state-dir", state]
        rows: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
        for round_ in range(args.rounds):
            for name, (binary, repo) in sides.items():
                found = {}
                for problem in ("answer", "answer-profile"):
                    folder = work / f"{name.replace(' ', '-')}-{problem}-{round_}"
                    _, done = timed([binary, "campaign", "run", repo, "--problem", problem, *axes, "--out", folder])
                    if done.returncode != 0:
                        sys.exit(f"{name} {problem} failed: {done.stderr.decode()}")
                    found[problem] = execute_ms(folder)
                # The median, and the least (on a loaded machine, the attempt that waited least for a CPU).
                for statistic, pick in (("median", statistics.median), ("least", min)):
                    plain, streamed = pick(found["answer"]), pick(found["answer-profile"])
                    added = 1000 * (streamed - plain) / args.steps
                    rows.setdefault((name, statistic), []).append((plain, streamed, added))
        kind = "numpy's gradient steps" if numpy else "steps"
        print(f"\n{args.steps} {kind} of about {args.step_ms} ms, {args.attempts} attempts each, -j 1, fresh sessions; "
              "measured execute, ms: unstreamed | streamed | added per checkpoint, us (each run)")
        for (name, statistic), runs in rows.items():
            cells = "   ".join(f"{plain:7.2f} | {streamed:7.2f} | {added:6.0f}" for plain, streamed, added in runs)
            print(f"  {name:<11} {statistic:<6} {cells}")
    finally:
        subprocess.run(["chmod", "-R", "u+w", work], check=False)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
