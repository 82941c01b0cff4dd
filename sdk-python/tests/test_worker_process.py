"""Workers as processes: the example workers of each role, stdout and stdin protection at the
file-descriptor level, failures, and exit statuses.

Each test runs a worker script from ``workers/`` with a clean environment, sends it its requests
on stdin and checks every line of its stdout against the schema (``support.run_script``).
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import support
from support import (
    evaluate,
    execute,
    hello,
    materialize,
    prepare,
    reset,
    run_process,
    run_script,
    shutdown,
)

from metewand.canonical import parse


def _python_3_10() -> str | None:
    """A working Python 3.10 interpreter, to run the workers on the oldest version supported."""
    candidates = [shutil.which("python3.10")]
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    try:
        candidates += [str(path) for path in sorted(pyenv.glob("versions/3.10*/bin/python3.10"))]
    except OSError:
        pass  # another user's pyenv (a PYENV_ROOT this user cannot read) has none to offer
    for candidate in candidates:
        if candidate is None:
            continue
        try:
            check = subprocess.run(
                [candidate, "-c", "import sys; assert sys.version_info[:2] == (3, 10)"],
                capture_output=True,
                check=False,
            )
        except OSError:
            continue
        if check.returncode == 0:
            return candidate
    return None


PYTHON_310 = _python_3_10()


def materialized(tmp_path: Path, rows: int = 25, seed: int = 17) -> Path:
    output = tmp_path / "dataset"
    done = run_script(
        "materializer.py",
        [
            hello("dataset_materializer"),
            materialize(
                output, support.WORKERS_DIR, dataset_parameters={"rows": rows}, dataset_seed=seed
            ),
            shutdown(),
        ],
    )
    assert done.status == 0, done.log
    return output


def centroid(dataset: Path) -> tuple[float, float]:
    points = [
        tuple(float(value) for value in line.split(","))
        for line in (dataset / "points.csv").read_text().splitlines()
    ]
    return (
        sum(point[0] for point in points) / len(points),
        sum(point[1] for point in points) / len(points),
    )


# ---------------------------------------------------------------------------
# The example workers, end to end


def test_the_three_example_workers_run_an_attempt(tmp_path: Path) -> None:
    dataset_dir = tmp_path / "dataset"
    done = run_script(
        "materializer.py",
        [
            hello("dataset_materializer"),
            materialize(dataset_dir, support.WORKERS_DIR, dataset_parameters={"rows": 25}),
            shutdown("2"),
        ],
    )
    assert done.status == 0 and done.log == ""
    assert done.responses[0]["capabilities"] == []
    assert done.responses[1] == {
        "dataset": {"manifest": "dataset-manifest.json"},
        "id": "1",
        "ok": True,
    }
    manifest = support.check_document(dataset_dir / "dataset-manifest.json", "artifact-manifest")
    assert manifest["data"] == {"rows": 25}
    assert [entry["path"] for entry in manifest["files"]] == ["meta/parameters.json", "points.csv"]
    assert len((dataset_dir / "points.csv").read_text().splitlines()) == 25

    result_dir = tmp_path / "result"
    done = run_script(
        "implementation.py",
        [hello("implementation"), prepare(dataset_dir), execute(result_dir), reset(), shutdown()],
    )
    assert done.status == 0 and done.log == ""
    assert done.responses[0]["capabilities"] == ["one_shot"]
    execute_response = done.responses[2]
    assert execute_response["statistics"] == {"points": 25}
    assert execute_response["implementation_time_ns"] > 0
    result = support.check_document(result_dir / "result.json", "result-manifest")
    x, y = centroid(dataset_dir)
    assert math.isclose(result["data"]["x"], x) and math.isclose(result["data"]["y"], y)

    metrics = tmp_path / "metrics" / "metrics.json"
    done = run_script(
        "evaluator.py",
        [hello("problem_evaluator"), evaluate(dataset_dir, result_dir, metrics), shutdown()],
    )
    assert done.status == 0 and done.log == ""
    assert done.responses[1] == {"id": "1", "ok": True, "verdict": "reached"}
    assert support.check_document(metrics, "metrics")["metrics"]["error"] <= 1e-9


def test_the_same_seed_gives_the_same_dataset(tmp_path: Path) -> None:
    first = materialized(tmp_path / "a", seed=5)
    second = materialized(tmp_path / "b", seed=5)
    third = materialized(tmp_path / "c", seed=6)
    manifest = (first / "dataset-manifest.json").read_bytes()
    assert manifest == (second / "dataset-manifest.json").read_bytes()
    assert manifest != (third / "dataset-manifest.json").read_bytes()


def test_a_wrong_answer_is_not_reached(tmp_path: Path) -> None:
    dataset_dir = materialized(tmp_path)
    result_dir = tmp_path / "result"
    run_script(
        "implementation.py",
        [
            hello("implementation"),
            prepare(dataset_dir, implementation_parameters={"offset": 0.5}),
            execute(result_dir),
            shutdown(),
        ],
    )
    metrics = tmp_path / "metrics.json"
    done = run_script(
        "evaluator.py",
        [
            hello("problem_evaluator"),
            evaluate(dataset_dir, result_dir, metrics, problem_parameters={"tolerance": 0.1}),
            shutdown(),
        ],
    )
    assert done.responses[1]["verdict"] == "not_reached"
    assert math.isclose(parse(metrics.read_bytes())["metrics"]["error"], 0.5)


def test_the_workers_run_on_python_3_10(tmp_path: Path) -> None:
    if PYTHON_310 is None:
        support.skip("python3.10", "no python3.10 on PATH or under pyenv")
    dataset_dir = tmp_path / "dataset"
    done = run_process(
        [PYTHON_310, str(support.WORKERS_DIR / "materializer.py")],
        [hello("dataset_materializer"), materialize(dataset_dir, tmp_path), shutdown()],
    )
    assert done.status == 0, done.log
    done = run_process(
        [PYTHON_310, str(support.WORKERS_DIR / "implementation.py")],
        [hello("implementation"), prepare(dataset_dir), execute(tmp_path / "r"), shutdown()],
    )
    assert done.status == 0, done.log
    assert done.responses[2]["statistics"] == {"points": 10}


# ---------------------------------------------------------------------------
# Stdout and stdin protection


@pytest.mark.parametrize("unbuffered", [True, False])
def test_output_from_every_source_goes_to_stderr(tmp_path: Path, unbuffered: bool) -> None:
    dataset_dir = materialized(tmp_path)
    # Output printed before run() is protected only while it sits in print's buffer.
    env = {"PYTHONUNBUFFERED": "1"} if unbuffered else {"NOISE_BEFORE_RUN": "1"}
    requests = [
        hello("implementation"),
        prepare(dataset_dir),
        execute(tmp_path / "r"),
        reset(),
        prepare(dataset_dir, id="4"),
        shutdown(),
    ]
    done = run_script("noisy.py", requests, **env)
    # Every line of stdout is a valid response (run_script checked them), one per request.
    assert done.status == 0, done.log
    assert len(done.responses) == len(requests)
    assert done.responses[2]["statistics"] == {"noise": True}
    noise = [line for line in done.log.splitlines() if line.startswith("noise ")]
    sources = ["print", "sys.__stdout__", "os.write", "puts", "echo", "shell"]
    for where in ["init", "prepare", "execute", "reset"]:
        for source in sources:
            assert f"noise {where}: {source}" in noise, (where, source, done.log)
    assert ("noise before run: buffered print" in noise) is not unbuffered
    assert "stdin: ''" in done.log and "cat read: b''" in done.log


@pytest.mark.parametrize(
    ("script", "requests_for"),
    [
        (
            "materializer.py",
            lambda tmp, dataset: [
                hello("dataset_materializer"),
                materialize(tmp / "o", tmp, dataset_parameters={"noise": True}),
            ],
        ),
        (
            "implementation.py",
            lambda tmp, dataset: [
                hello("implementation"),
                prepare(dataset, implementation_parameters={"noise": True}),
                execute(tmp / "r"),
                reset(),
            ],
        ),
        (
            "evaluator.py",
            lambda tmp, dataset: [
                hello("problem_evaluator"),
                evaluate(dataset, tmp / "r", tmp / "m.json", problem_parameters={"noise": True}),
            ],
        ),
    ],
)
def test_example_workers_with_noise_still_speak_the_protocol(
    tmp_path: Path, script: str, requests_for: Any
) -> None:
    dataset_dir = materialized(tmp_path)
    if script == "evaluator.py":
        run_script(
            "implementation.py",
            [hello("implementation"), prepare(dataset_dir), execute(tmp_path / "r"), shutdown()],
        )
    requests = [*requests_for(tmp_path, dataset_dir), shutdown()]
    done = run_script(script, requests)
    assert done.status == 0, done.log
    assert [response["ok"] for response in done.responses] == [True] * len(requests)
    for source in ["print", "os.write", "subprocess"]:
        assert f": {source}" in done.log


# ---------------------------------------------------------------------------
# Failures


@pytest.mark.parametrize("method", ["prepare", "execute", "reset"])
@pytest.mark.parametrize("code", ["operation_failed", "invalid_request", "exception"])
def test_failures_in_a_process(tmp_path: Path, method: str, code: str) -> None:
    dataset_dir = materialized(tmp_path)
    parameters = {"fail": {method: code}}
    done = run_script(
        "implementation.py",
        [
            hello("implementation"),
            prepare(dataset_dir, implementation_parameters=parameters),
            execute(tmp_path / "r"),
            reset(),
            shutdown(),
        ],
    )
    assert done.status == 0
    index = {"prepare": 1, "execute": 2, "reset": 3}[method]
    error = done.failure(index)
    if code == "exception":
        assert error == {
            "code": "internal_error",
            "message": f"{method} failed: RuntimeError: {method} was asked to raise",
        }
        assert "Traceback (most recent call last):" in done.log
        assert all(b"Traceback" not in line for line in done.lines)
    else:
        assert error == {
            "code": code,
            "details": {"method": method},
            "message": f"{method} was asked to fail",
        }
        assert done.log == ""
    assert done.responses[-1] == {"id": "9", "ok": True}


def test_a_materializer_failure_in_a_process(tmp_path: Path) -> None:
    done = run_script(
        "materializer.py",
        [
            hello("dataset_materializer"),
            materialize(
                tmp_path / "o", tmp_path, dataset_parameters={"fail": {"materialize": "exception"}}
            ),
            shutdown(),
        ],
    )
    assert done.failure(1)["code"] == "internal_error"
    assert "RuntimeError: materialize was asked to raise" in done.log
    assert done.status == 0


@pytest.mark.parametrize("script", ["materializer.py", "implementation.py", "evaluator.py"])
def test_a_process_refuses_another_role_and_its_requests(tmp_path: Path, script: str) -> None:
    role = {
        "materializer.py": "dataset_materializer",
        "implementation.py": "implementation",
        "evaluator.py": "problem_evaluator",
    }[script]
    other = "problem_evaluator" if role != "problem_evaluator" else "implementation"
    foreign = execute(tmp_path) if role != "implementation" else reset()
    if role == "implementation":
        foreign = evaluate(tmp_path, tmp_path, tmp_path / "m.json")
    done = run_script(script, [hello(other), hello(role, id="1"), foreign, shutdown()])
    assert done.failure(0)["code"] == "unsupported_operation"
    assert done.responses[1]["ok"] is True
    assert done.failure(2)["code"] == "unsupported_operation"
    assert done.status == 0


# ---------------------------------------------------------------------------
# Exit statuses


@pytest.mark.parametrize(
    "line",
    [b"this is not json\n", b'{"method":"reset"}\n', b'{"id":"","method":"reset"}\n', b"[]\n"],
)
def test_no_usable_id_exits_with_status_2(line: bytes) -> None:
    done = run_script("implementation.py", [hello("implementation"), line, shutdown()])
    assert done.status == 2
    assert len(done.responses) == 1
    assert done.log.count("\n") == 1
    assert done.log.startswith("metewand: cannot answer a request without a usable id: ")


def test_a_line_over_one_mebibyte_exits_with_status_2() -> None:
    line = b'{"id":"1","method":"reset","pad":"' + b"x" * (2 * 1024 * 1024) + b'"}\n'
    done = run_script("implementation.py", [hello("implementation"), line, shutdown()])
    assert done.status == 2
    assert len(done.responses) == 1
    assert "line exceeds 1048576 bytes" in done.log


def test_an_early_end_of_stream_exits_with_status_2() -> None:
    done = run_script("evaluator.py", [hello("problem_evaluator"), b'{"id":"1","method":"shut'])
    assert done.status == 2
    assert "stream ended inside a line" in done.log


def test_the_end_of_stdin_without_shutdown_exits_with_status_1() -> None:
    done = run_script("materializer.py", [hello("dataset_materializer")])
    assert done.status == 1
    assert done.log == "metewand: the requests ended without shutdown; exiting with status 1\n"


def test_shutdown_exits_with_status_0_at_once() -> None:
    done = run_script("evaluator.py", [shutdown("0"), b"ignored, never read\n"])
    assert done.status == 0
    assert done.responses == [{"id": "0", "ok": True}]


_ENDING = (
    "import atexit, sys, threading, time\n"
    "import metewand\n"
    "def late():\n"
    "    time.sleep({delay})\n"
    "    print('the thread ended', file=sys.stderr, flush=True)\n"
    "class Worker(metewand.{role}):\n"
    "    def __init__(self):\n"
    "        atexit.register(lambda: print('the exit handler ran', file=sys.stderr))\n"
    "        threading.Thread(target=late).start()\n"
    "    def materialize(self, source, parameters, seed, output): pass\n"
    "    def prepare(self, dataset, parameters, seed, problem): pass\n"
    "    def execute(self, result): return {{}}\n"
    "    def evaluate(self, dataset, result, problem): return 'reached', {{}}\n"
    "try:\n"
    "    metewand.run(Worker)\n"
    "finally:\n"
    "    print('the finally clause ran', file=sys.stderr)\n"
)


@pytest.mark.parametrize(
    ("role", "name"), [("Implementation", "implementation"), ("Evaluator", "problem_evaluator")]
)
def test_an_implementation_or_evaluator_leaves_without_finalization(
    tmp_path: Path, role: str, name: str
) -> None:
    # Its output is complete at its answer: after shutdown its exit handlers run and its streams
    # are flushed, but a thread of its own (which the interpreter's exit would wait for) and the
    # code around run are not.
    script = tmp_path / "ending.py"
    script.write_text(_ENDING.format(role=role, delay=2))
    done = run_process([sys.executable, str(script)], [hello(name), shutdown()])
    assert done.status == 0, done.log
    assert [response["ok"] for response in done.responses[1:]] == [True]
    assert "the exit handler ran\n" in done.log
    assert "the thread ended" not in done.log
    assert "the finally clause ran" not in done.log


def test_a_materializer_exits_as_any_program_does(tmp_path: Path) -> None:
    # Its dataset is checked once its process has ended, so everything it would finish counts.
    script = tmp_path / "ending.py"
    script.write_text(_ENDING.format(role="Materializer", delay=0.2))
    done = run_process([sys.executable, str(script)], [hello("dataset_materializer"), shutdown()])
    assert done.status == 0, done.log
    assert "the exit handler ran\n" in done.log
    assert "the thread ended\n" in done.log
    assert "the finally clause ran\n" in done.log


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="no /proc/self/fd")
def test_protocol_descriptors_are_not_inherited(tmp_path: Path) -> None:
    # A subprocess started by the worker gets stderr as its stdout and /dev/null as its stdin;
    # the duplicates the SDK keeps for the protocol are closed in it.
    script = tmp_path / "fds.py"
    script.write_text(
        "import os, subprocess, sys\n"
        "import metewand\n"
        "class Probe(metewand.Implementation):\n"
        "    def prepare(self, dataset, parameters, seed, problem):\n"
        "        pass\n"
        "    def execute(self, result):\n"
        "        child = subprocess.run(\n"
        "            [sys.executable, '-c',\n"
        "             'import os; print(sorted(os.listdir(\"/proc/self/fd\")))'],\n"
        "            stdout=subprocess.PIPE, stdin=None, close_fds=False, check=True)\n"
        "        return {'fds': child.stdout.decode().strip(),\n"
        "                'stdout': os.path.samestat(os.fstat(1), os.fstat(2)),\n"
        "                'stdin': os.readlink('/proc/self/fd/0')}\n"
        "    def reset(self):\n"
        "        pass\n"
        "metewand.run(Probe)\n"
    )
    dataset_dir = materialized(tmp_path)
    done = run_process(
        [sys.executable, str(script)],
        [hello("implementation"), prepare(dataset_dir), execute(tmp_path / "r"), shutdown()],
    )
    assert done.status == 0, done.log
    statistics = done.responses[2]["statistics"]
    assert statistics["stdout"] is True
    assert statistics["stdin"] == os.devnull
    # 0, 1 and 2, and the directory being listed: not the protocol's descriptors.
    assert statistics["fds"] == "['0', '1', '2', '3']"
