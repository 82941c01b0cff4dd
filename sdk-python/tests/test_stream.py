"""execute_stream in the SDK: an implementation that overrides it reports streaming_profile and
hands over its checkpoints, each a result of its own in checkpoints/<n>/, waiting for each answer;
metewand.testing drives it and holds it to the stream's rules."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from support import WORKERS_DIR

from metewand import Implementation
from metewand.artifacts import Artifact, Output, read_result
from metewand.models.worker_protocol_message import (
    AckResponse,
    CheckpointMessage,
    ExecuteResponse,
    FailureResponse,
    HelloResponse,
)
from metewand.testing import WorkerClient, WorkerProtocolError
from metewand.worker import Problem


class Halving(Implementation):
    """Halves its estimate at each step and checkpoints after each, writing it to a file too."""

    def prepare(
        self, dataset: Artifact, parameters: dict[str, Any], seed: int, problem: Problem
    ) -> None:
        self.steps = int(parameters.get("steps", 5))

    def execute(self, result: Output) -> dict[str, Any] | None:
        result.data = {"estimate": 0.0}
        return None

    def execute_stream(self, result: Output, checkpoint: Any) -> dict[str, Any] | None:
        estimate = 1.0
        taken = 0
        for taken in range(1, self.steps + 1):
            estimate /= 2
            result.write_json("estimate.json", estimate)
            result.data = {"estimate": estimate}
            if not checkpoint():
                break
        return {"steps": taken}


class Misusing(Halving):
    """Goes on calling checkpoint() after it returned False."""

    def execute_stream(self, result: Output, checkpoint: Any) -> dict[str, Any] | None:
        result.data = {"estimate": 1.0}
        while True:
            checkpoint()


def started(client: WorkerClient, tmp_path: Path, steps: int = 5) -> Path:
    dataset = tmp_path / "dataset"
    dataset.mkdir()
    (dataset / "dataset-manifest.json").write_text('{"complete":true,"data":{},"files":[]}')
    hello = client.hello()
    assert isinstance(hello, HelloResponse)
    assert hello.capabilities == ["one_shot", "streaming_profile"]
    assert isinstance(client.prepare(dataset_dir=dataset, parameters={"steps": steps}), AckResponse)
    result = tmp_path / "result"
    result.mkdir()
    return result


def test_each_checkpoint_is_a_result_of_its_own_and_the_final_result_leaves_them_out(
    tmp_path: Path,
) -> None:
    with WorkerClient.in_process(Halving) as client:
        result = started(client, tmp_path)
        checkpoints, final = client.execute_stream(result_dir=result, max_checkpoints=3)
        assert isinstance(client.shutdown(), AckResponse)
    assert client.exit_status == 0
    assert [checkpoint.checkpoint for checkpoint in checkpoints] == [1, 2, 3]
    assert isinstance(final, ExecuteResponse) and final.statistics == {"steps": 3}
    for n in (1, 2, 3):
        artifact = read_result(result / "checkpoints" / str(n))
        assert artifact.data == {"estimate": 0.5**n}
        assert [record.path for record in artifact.files] == ["estimate.json"]
        assert json.loads(artifact.path("estimate.json").read_text()) == 0.5**n
    manifest = json.loads((result / "result.json").read_text())
    assert [record["path"] for record in manifest["files"]] == ["estimate.json"]
    assert manifest["data"] == {"estimate": 0.125}


def test_an_answer_that_says_stop_ends_the_stream(tmp_path: Path) -> None:
    with WorkerClient.in_process(Halving) as client:
        result = started(client, tmp_path)
        checkpoints, final = client.execute_stream(
            result_dir=result, max_checkpoints=10, answer=lambda checkpoint: checkpoint.checkpoint < 2
        )
        client.shutdown()
    assert len(checkpoints) == 2
    assert isinstance(final, ExecuteResponse) and final.statistics == {"steps": 2}
    assert not (result / "checkpoints" / "3").exists()


def test_the_reported_time_leaves_out_the_waits_for_the_answers(tmp_path: Path) -> None:
    # Each answer comes a second after its checkpoint, as when Metewand holds the worker while it seals:
    # five halvings take far less than the five seconds the worker spends waiting.
    def slow(checkpoint: CheckpointMessage) -> bool:
        time.sleep(1.0)
        return True

    with WorkerClient.in_process(Halving) as client:
        result = started(client, tmp_path)
        checkpoints, final = client.execute_stream(result_dir=result, max_checkpoints=5, answer=slow)
        client.shutdown()
    assert len(checkpoints) == 5
    assert isinstance(final, ExecuteResponse)
    assert 0 < final.implementation_time_ns < 1_000_000_000


def test_calling_checkpoint_after_it_said_stop_is_a_failure(tmp_path: Path) -> None:
    with WorkerClient.in_process(Misusing) as client:
        result = started(client, tmp_path)
        checkpoints, final = client.execute_stream(result_dir=result, max_checkpoints=2)
        client.shutdown()
    assert len(checkpoints) == 2
    assert isinstance(final, FailureResponse) and final.error.code == "internal_error"
    assert "after it returned False" in final.error.message


def test_an_implementation_that_does_not_stream_refuses_execute_stream(tmp_path: Path) -> None:
    class OneShot(Halving):
        execute_stream = Implementation.execute_stream  # type: ignore[assignment]

    with WorkerClient.in_process(OneShot) as client:
        hello = client.hello()
        assert isinstance(hello, HelloResponse) and hello.capabilities == ["one_shot"]
        refused = client.send_line(
            b'{"id":"1","max_checkpoints":3,"method":"execute_stream","result_dir":"/nowhere"}\n'
        )
        client.shutdown()
    assert refused["ok"] is False and refused["error"]["code"] == "unsupported_operation"


def test_the_client_refuses_a_stream_that_breaks_its_rules(tmp_path: Path) -> None:
    # A worker that announces checkpoint 2 first, spoken directly on the pipes.
    script = tmp_path / "skipping.py"
    script.write_text(
        "import sys\n"
        "for line in sys.stdin:\n"
        "    if '\"hello\"' in line:\n"
        "        print('{\"capabilities\":[\"streaming_profile\"],\"id\":\"0\",\"ok\":true,"
        "\"protocol\":1,\"sdk\":null,\"worker_id\":\"' + 'mw1-resolved-worker-' + '0' * 64 + '\"}',"
        " flush=True)\n"
        "    else:\n"
        "        print('{\"checkpoint\":2,\"id\":\"1\",\"result\":{\"manifest\":"
        "\"checkpoints/2/result.json\"}}', flush=True)\n"
    )
    with WorkerClient.spawn([sys.executable, str(script)], "implementation", timeout=10) as client:
        client.hello()
        with pytest.raises(WorkerProtocolError, match="checkpoint 2 came where checkpoint 1"):
            client.execute_stream(result_dir=tmp_path, max_checkpoints=3)


def test_a_stream_cut_while_a_checkpoint_waits_ends_the_worker(tmp_path: Path) -> None:
    # The worker's own process: its stdin closes while it waits for checkpoint 1's answer.
    dataset = tmp_path / "dataset"
    dataset.mkdir()
    (dataset / "dataset-manifest.json").write_text('{"complete":true,"data":{},"files":[]}')
    (tmp_path / "result").mkdir()
    worker = tmp_path / "halving.py"
    worker.write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        "import metewand\n"
        "from test_stream import Halving\n"
        "metewand.run(Halving)\n"
    )
    requests = [
        {"id": "0", "method": "hello", "protocols": [1], "role": "implementation",
         "worker_id": "mw1-resolved-worker-" + "0" * 64},
        {"dataset_dir": str(dataset), "id": "1", "implementation_parameters": {},
         "implementation_seed": 1, "method": "prepare",
         "problem_contract_id": "mw1-problem-contract-" + "0" * 64, "problem_parameters": {}},
        {"id": "2", "max_checkpoints": 3, "method": "execute_stream",
         "result_dir": str(tmp_path / "result")},
    ]
    lines = "".join(
        json.dumps(request, separators=(",", ":"), sort_keys=True) + "\n" for request in requests
    )
    done = subprocess.run(
        [sys.executable, str(worker)], input=lines.encode(), capture_output=True, timeout=60,
        cwd=WORKERS_DIR, env={"PYTHONPATH": str(Path(__file__).parents[1] / "src")},
    )
    assert done.returncode == 1, done.stderr
    assert b"the requests ended before checkpoint 1 was answered" in done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    checkpoint = CheckpointMessage.from_dict(answers[-1])
    assert (checkpoint.checkpoint, checkpoint.id) == (1, "2")
