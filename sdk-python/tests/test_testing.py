"""metewand.testing: the client that drives a worker from pytest, on each role's example worker
(spawned as a process, and served in process from its class), and on workers that break the
protocol, which it must report instead of hanging or guessing."""

from __future__ import annotations

import importlib.util
import re
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest
from support import SDK_SRC, WORKERS_DIR

from metewand.models.worker_protocol_message import (
    AckResponse,
    EvaluateRequest,
    EvaluateResponse,
    ExecuteResponse,
    FailureResponse,
    HelloRequest,
    HelloResponse,
    MaterializeResponse,
)
from metewand.testing import DEFAULT_WORKER_ID, WorkerClient, WorkerProtocolError

ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(SDK_SRC)}


def spawn(script: str, role: str, **options: float) -> WorkerClient:
    return WorkerClient.spawn(
        [sys.executable, WORKERS_DIR / script], role, cwd=WORKERS_DIR, env=ENV, **options
    )


def example(name: str) -> ModuleType:
    """One of the example worker scripts, imported under a name of its own."""
    spec = importlib.util.spec_from_file_location(f"example_{name}", WORKERS_DIR / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_dataset(client: WorkerClient, output: Path) -> None:
    output.mkdir()
    hello = client.hello()
    assert isinstance(hello, HelloResponse) and hello.worker_id == DEFAULT_WORKER_ID
    assert hello.sdk is not None and hello.sdk.name == "metewand-python"
    done = client.materialize(
        source_dir=WORKERS_DIR, output_dir=output, parameters={"rows": 10}, seed=3
    )
    assert isinstance(done, MaterializeResponse), done
    assert done.dataset.manifest == "dataset-manifest.json"
    assert isinstance(client.shutdown(), AckResponse)


def solve(client: WorkerClient, dataset: Path, result: Path) -> ExecuteResponse:
    result.mkdir()
    hello = client.hello()
    assert isinstance(hello, HelloResponse) and hello.capabilities == ["one_shot"]
    assert isinstance(client.prepare(dataset_dir=dataset), AckResponse)
    executed = client.execute(result_dir=result)
    assert isinstance(executed, ExecuteResponse), executed
    assert isinstance(client.shutdown(), AckResponse)
    return executed


def judge(client: WorkerClient, dataset: Path, result: Path, metrics: Path) -> EvaluateResponse:
    assert isinstance(client.hello(), HelloResponse)
    judged = client.evaluate(
        dataset_dir=dataset, result_dir=result, metrics_path=metrics, problem_parameters={}
    )
    assert isinstance(judged, EvaluateResponse), judged
    assert isinstance(client.shutdown(), AckResponse)
    return judged


def test_spawned_example_workers_of_each_role_run_an_attempt(tmp_path: Path) -> None:
    dataset, result, metrics = tmp_path / "dataset", tmp_path / "result", tmp_path / "metrics.json"
    with spawn("materializer.py", "dataset_materializer") as client:
        make_dataset(client, dataset)
    assert client.exit_status == 0
    with spawn("implementation.py", "implementation") as client:
        executed = solve(client, dataset, result)
    assert client.exit_status == 0
    assert executed.result.manifest == "result.json" and executed.statistics == {"points": 10}
    with spawn("evaluator.py", "problem_evaluator") as client:
        assert judge(client, dataset, result, metrics).verdict == "reached"
    assert client.exit_status == 0
    assert metrics.is_file()


def test_worker_classes_run_in_process(tmp_path: Path) -> None:
    dataset, result, metrics = tmp_path / "dataset", tmp_path / "result", tmp_path / "metrics.json"
    with WorkerClient.in_process(example("materializer").Points) as client:
        make_dataset(client, dataset)
    assert client.exit_status == 0
    with WorkerClient.in_process(example("implementation").Centroid) as client:
        solve(client, dataset, result)
    with WorkerClient.in_process(example("evaluator").CentroidJudge()) as client:
        assert judge(client, dataset, result, metrics).verdict == "reached"
    assert client.exit_status == 0


def test_refusals_come_back_as_failure_responses(tmp_path: Path) -> None:
    with spawn("implementation.py", "implementation") as client:
        assert isinstance(client.hello(), HelloResponse)
        again = client.hello()
        assert isinstance(again, FailureResponse) and again.error.code == "invalid_request"
        other = client.send(
            EvaluateRequest(
                dataset_dir=str(tmp_path),
                id="other-role",
                metrics_path=str(tmp_path / "m.json"),
                problem_contract_id="mw1-problem-contract-abc",
                problem_parameters={},
                result_dir=str(tmp_path),
            )
        )
        assert isinstance(other, FailureResponse) and other.error.code == "unsupported_operation"
        early = client.execute(result_dir=tmp_path)
        assert isinstance(early, FailureResponse) and early.error.code == "invalid_request"
        raw = client.send_line(b'{"id":"raw","method":"prepare"}\n')
        assert raw["id"] == "raw" and raw["ok"] is False
        assert raw["error"]["code"] == "invalid_request"
        unusual = "été 🚀\t\"x\""
        echoed = client.send(
            HelloRequest(id=unusual, protocols=[1], role="implementation", worker_id=DEFAULT_WORKER_ID)
        )
        assert echoed.id == unusual
        assert isinstance(client.shutdown(), AckResponse)
    assert client.exit_status == 0


def script(tmp_path: Path, body: str) -> list[str]:
    path = tmp_path / "worker.py"
    path.write_text("import sys\nfor line in sys.stdin:\n" + body)
    return [sys.executable, str(path)]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('    print(\'{"id":"elsewhere","ok":true}\', flush=True)\n', "answered with the id"),
        ("    print('not json', flush=True)\n", "not a frame"),
        ("    sys.exit(3)\n", "ended without answering (exit status 3)"),
        (
            '    print(\'{"capabilities":[],"id":"0","ok":true}\', flush=True)\n',
            "not a valid HelloResponse",
        ),
    ],
)
def test_protocol_violations_are_reported(tmp_path: Path, body: str, message: str) -> None:
    with WorkerClient.spawn(script(tmp_path, body), "implementation") as client:
        with pytest.raises(WorkerProtocolError, match=re.escape(message)):
            client.hello()


def test_a_worker_that_never_answers_is_reported_and_ended(tmp_path: Path) -> None:
    # It says its pid on stderr, so that the test can look for the process without the client.
    path = tmp_path / "worker.py"
    path.write_text(
        "import os, sys\n"
        "print(os.getpid(), file=sys.stderr, flush=True)\n"
        "for line in sys.stdin:\n"
        "    pass\n"
    )
    command = [sys.executable, str(path)]
    with WorkerClient.spawn(command, "implementation", timeout=0.5) as client:
        with pytest.raises(WorkerProtocolError, match="no answer within"):
            client.hello()
    pid = int(client.stderr)
    # Reaped by close() itself, before anything asked for its status: not even a zombie is left.
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
    # The client ended it: closing its stdin ended the loop, so it exited 0 (killed, it would be
    # -SIGKILL).
    assert client.exit_status == 0
