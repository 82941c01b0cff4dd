"""The worker loop in this process, on in-memory streams: every request of every role, every
failure path, and the exit statuses.

Every response is validated against the checked-in worker-protocol-message schema (by
``support.exchange``), and every document the SDK writes against its own schema.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import support
from support import (
    WORKER_ID,
    evaluate,
    exchange,
    execute,
    hello,
    materialize,
    prepare,
    reset,
    shutdown,
)

import metewand
from metewand.frames import MAX_LINE
from metewand.models.artifact_manifest import ArtifactManifest
from metewand.models.result_manifest import ResultManifest

ROLES = ("dataset_materializer", "implementation", "problem_evaluator")
ROLE_METHODS = {
    "dataset_materializer": ("materialize",),
    "implementation": ("prepare", "execute", "reset"),
    "problem_evaluator": ("evaluate",),
}

Hook = Callable[..., Any]


# ---------------------------------------------------------------------------
# Workers whose methods record their arguments and run what a test gives them


class Points(metewand.Materializer):
    def __init__(self, hook: Hook | None = None) -> None:
        self.hook = hook
        self.calls: list[tuple[Any, ...]] = []

    def materialize(
        self, source_dir: Path, parameters: dict[str, Any], seed: int, output: metewand.Output
    ) -> Any:
        self.calls.append((source_dir, parameters, seed, output))
        if self.hook is not None:
            return self.hook(output)
        output.write_text("points.csv", "0.5,0.25\n")
        output.data = {"rows": 1}
        return None


class Solver(metewand.Implementation):
    def __init__(
        self,
        on_prepare: Hook | None = None,
        on_execute: Hook | None = None,
        on_reset: Hook | None = None,
    ) -> None:
        self.on_prepare = on_prepare
        self.on_execute = on_execute
        self.on_reset = on_reset
        self.calls: list[tuple[Any, ...]] = []

    def prepare(
        self,
        dataset: metewand.Artifact,
        parameters: dict[str, Any],
        seed: int,
        problem: metewand.Problem,
    ) -> None:
        self.calls.append(("prepare", dataset, parameters, seed, problem))
        if self.on_prepare is not None:
            self.on_prepare(dataset, parameters, seed, problem)

    def execute(self, result: metewand.Output) -> Any:
        self.calls.append(("execute", result))
        if self.on_execute is not None:
            return self.on_execute(result)
        result.write_text("answer.txt", "42\n")
        result.data = {"answer": 42}
        return {"iterations": 37}

    def reset(self) -> None:
        self.calls.append(("reset",))
        if self.on_reset is not None:
            self.on_reset()


class Judge(metewand.Evaluator):
    def __init__(self, hook: Hook | None = None) -> None:
        self.hook = hook
        self.calls: list[tuple[Any, ...]] = []

    def evaluate(
        self, dataset: metewand.Artifact, result: metewand.Artifact, problem: metewand.Problem
    ) -> Any:
        self.calls.append((dataset, result, problem))
        if self.hook is not None:
            return self.hook()
        return "reached", {"error": 0.0}


def worker_for(role: str) -> metewand.Worker:
    return {"dataset_materializer": Points, "implementation": Solver, "problem_evaluator": Judge}[
        role
    ]()


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    directory = tmp_path / "dataset"
    directory.mkdir()
    (directory / "points.csv").write_text("0.5,0.25\n")
    metewand.write_dataset_manifest(directory, {"rows": 1})
    return directory


@pytest.fixture
def result(tmp_path: Path) -> Path:
    directory = tmp_path / "result"
    directory.mkdir()
    (directory / "answer.txt").write_text("42\n")
    metewand.write_result_manifest(directory, {"answer": 42})
    return directory


def requests_for(method: str, tmp_path: Path, dataset: Path, result: Path) -> list[Any]:
    """The requests that lead to a successful ``method``, after hello."""
    if method == "materialize":
        return [materialize(tmp_path / "out", tmp_path)]
    if method == "prepare":
        return [prepare(dataset)]
    if method == "execute":
        return [prepare(dataset), execute(tmp_path / "out")]
    if method == "reset":
        return [prepare(dataset), reset()]
    if method == "evaluate":
        return [evaluate(dataset, result, tmp_path / "metrics" / "metrics.json")]
    raise AssertionError(method)


# ---------------------------------------------------------------------------
# hello


@pytest.mark.parametrize("role", ROLES)
def test_hello_reports_the_sdk_and_capabilities(role: str) -> None:
    done = exchange(worker_for(role), [hello(role), shutdown()])
    assert done.status == 0
    assert done.responses[0] == {
        "capabilities": ["one_shot"] if role == "implementation" else [],
        "id": "0",
        "ok": True,
        "protocol": 1,
        "sdk": {"name": "metewand-python", "version": metewand.__version__},
        "worker_id": WORKER_ID,
    }
    assert done.responses[1] == {"id": "9", "ok": True}
    assert done.log == ""


def test_hello_selects_version_1_among_several() -> None:
    done = exchange(Solver(), [hello("implementation", protocols=[3, 1, 2]), shutdown()])
    assert done.responses[0]["protocol"] == 1


def test_hello_without_version_1_fails() -> None:
    done = exchange(Solver(), [hello("implementation", protocols=[2, 3]), shutdown()])
    error = done.failure(0)
    assert error["code"] == "unsupported_operation"
    assert "protocol version 1" in error["message"] and "2, 3" in error["message"]
    assert done.status == 0


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("asked", ROLES)
def test_hello_for_another_role_fails(role: str, asked: str) -> None:
    if role == asked:
        return
    done = exchange(worker_for(role), [hello(asked), shutdown()])
    error = done.failure(0)
    assert error == {
        "code": "unsupported_operation",
        "message": f"this worker serves the {role} role, not {asked}",
    }
    assert done.responses[1]["ok"] is True


def test_a_failed_hello_opens_no_session(dataset: Path) -> None:
    done = exchange(
        Solver(),
        [hello("problem_evaluator"), prepare(dataset), hello("implementation"), prepare(dataset)],
    )
    assert done.failure(0)["code"] == "unsupported_operation"
    assert done.failure(1) == {"code": "invalid_request", "message": "prepare before hello"}
    assert done.responses[2]["ok"] is True
    assert done.responses[3] == {"id": "1", "ok": True}
    assert done.status == 1


def test_a_second_hello_is_refused() -> None:
    done = exchange(Solver(), [hello("implementation"), hello("implementation", id="1")])
    assert done.failure(1) == {"code": "invalid_request", "message": "hello was already answered"}


def test_an_invalid_hello_is_refused() -> None:
    done = exchange(
        Solver(),
        [hello("implementation", worker_id="mw1-resolved-worker-abc"), hello("implementation")],
    )
    error = done.failure(0)
    assert error["code"] == "invalid_request"
    assert error["message"].startswith("invalid hello request: /worker_id: ")
    assert done.responses[1]["ok"] is True


@pytest.mark.parametrize("method", ["materialize", "prepare", "execute", "reset", "evaluate"])
def test_requests_before_hello_are_refused(method: str, tmp_path: Path) -> None:
    role = next(role for role in ROLES if method in ROLE_METHODS[role])
    request = {
        "materialize": materialize(tmp_path, tmp_path),
        "prepare": prepare(tmp_path),
        "execute": execute(tmp_path),
        "reset": reset(),
        "evaluate": evaluate(tmp_path, tmp_path, tmp_path / "m.json"),
    }[method]
    done = exchange(worker_for(role), [request, shutdown()])
    assert done.failure(0) == {"code": "invalid_request", "message": f"{method} before hello"}
    assert done.status == 0


def test_shutdown_before_hello_is_acknowledged() -> None:
    done = exchange(Judge(), [shutdown("0")])
    assert done.responses == [{"id": "0", "ok": True}]
    assert done.status == 0


# ---------------------------------------------------------------------------
# Methods and roles


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("method", ["materialize", "prepare", "execute", "reset", "evaluate"])
def test_every_method_of_every_role(
    role: str, method: str, tmp_path: Path, dataset: Path, result: Path
) -> None:
    requests = [hello(role), *requests_for(method, tmp_path, dataset, result), shutdown()]
    done = exchange(worker_for(role), requests)
    assert done.status == 0
    assert len(done.responses) == len(requests)
    answer = done.responses[-2]
    if method in ROLE_METHODS[role]:
        assert answer["ok"] is True, answer
    else:
        # A request the role does not serve is refused, and the session goes on.
        assert answer["ok"] is False
        assert answer["error"] == {
            "code": "unsupported_operation",
            "message": f"this worker serves the {role} role, which has no {method} request",
        }
    assert done.responses[-1] == {"id": "9", "ok": True}


@pytest.mark.parametrize(
    ("request_line", "message"),
    [
        (b'{"id":"1","method":"compute"}\n', 'unknown method "compute"'),
        (b'{"id":"1","method":"Reset"}\n', 'unknown method "Reset"'),
        (b'{"id":"1"}\n', "the request has no method"),
        (b'{"id":"1","method":null}\n', "the request's method is not a string"),
        (b'{"id":"1","method":["reset"]}\n', "the request's method is not a string"),
    ],
)
def test_unknown_methods_are_invalid_requests(request_line: bytes, message: str) -> None:
    done = exchange(Solver(), [hello("implementation"), request_line, shutdown()])
    assert done.failure(1) == {"code": "invalid_request", "message": message}
    assert done.status == 0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"implementation_seed": -1}, "invalid prepare request: /implementation_seed: -1 is less"),
        ({"implementation_seed": 1.5}, "invalid prepare request: /implementation_seed: expected"),
        ({"implementation_seed": True}, "invalid prepare request: /implementation_seed: expected"),
        ({"dataset_dir": ""}, "invalid prepare request: /dataset_dir: "),
        ({"problem_parameters": []}, "invalid prepare request: /problem_parameters: expected"),
        ({"budget": 10}, 'invalid prepare request: unknown property "budget"'),
    ],
)
def test_undecodable_requests_are_invalid_requests(
    change: dict[str, Any], message: str, dataset: Path
) -> None:
    solver = Solver()
    bad = {**prepare(dataset), **change}
    done = exchange(solver, [hello("implementation"), bad, prepare(dataset), shutdown()])
    error = done.failure(1)
    assert error["code"] == "invalid_request"
    assert error["message"].startswith(message), error
    assert "\n" not in error["message"]
    # The worker is not called, and the next request is served.
    assert len(solver.calls) == 1
    assert done.responses[2] == {"id": "1", "ok": True}


def test_a_missing_member_is_an_invalid_request() -> None:
    request = execute(Path("/tmp"))
    del request["result_dir"]
    done = exchange(Solver(), [hello("implementation"), request, shutdown()])
    assert done.failure(1) == {
        "code": "invalid_request",
        "message": 'invalid execute request: missing required property "result_dir"',
    }


def test_a_malformed_shutdown_does_not_end_the_session() -> None:
    done = exchange(
        Judge(), [hello("problem_evaluator"), {"id": "1", "method": "shutdown", "now": True}]
    )
    assert done.failure(1)["code"] == "invalid_request"
    assert done.status == 1


def test_requests_need_not_be_canonical(dataset: Path) -> None:
    solver = Solver()
    line = (
        b' { "problem_parameters" : {"lambda": 1e-1}, "method": "prepare", "id": "7",'
        b' "implementation_seed": 2.3e1, "implementation_parameters": {},'
        b' "problem_contract_id": "c", "dataset_dir": "' + str(dataset).encode() + b'" }\r\n'
    )
    done = exchange(solver, [hello("implementation"), line, shutdown()])
    assert done.responses[1] == {"id": "7", "ok": True}
    seed = solver.calls[0][3]
    assert seed == 23 and type(seed) is int


def test_every_response_is_flushed_before_the_next_request_is_read() -> None:
    class Recording(io.BytesIO):
        def __init__(self) -> None:
            super().__init__()
            self.flushed: list[bytes] = []

        def flush(self) -> None:
            self.flushed.append(self.getvalue())

    class Requests(io.BytesIO):
        def __init__(self, data: bytes, responses: Recording) -> None:
            super().__init__(data)
            self.responses = responses
            self.seen: list[int] = []

        def readline(self, limit: int | None = -1) -> bytes:
            self.seen.append(len(self.responses.flushed))
            return super().readline(limit)

    responses = Recording()
    requests = Requests(support.encode([hello("implementation"), reset(), shutdown()]), responses)
    assert metewand.serve(Solver(), requests, responses, io.StringIO()) == 0
    assert requests.seen == [0, 1, 2]
    assert [value.count(b"\n") for value in responses.flushed] == [1, 2, 3]


# ---------------------------------------------------------------------------
# Materializer


def test_materialize_writes_the_dataset_and_its_manifest(tmp_path: Path) -> None:
    points = Points()
    output = tmp_path / "out"
    source = tmp_path / "source"
    done = exchange(
        points,
        [
            hello("dataset_materializer"),
            materialize(output, source, dataset_parameters={"rows": 3}, dataset_seed=17.0),
            shutdown(),
        ],
    )
    assert done.responses[1] == {
        "dataset": {"manifest": "dataset-manifest.json"},
        "id": "1",
        "ok": True,
    }
    source_dir, parameters, seed, helper = points.calls[0]
    assert source_dir == source and isinstance(source_dir, Path)
    assert parameters == {"rows": 3}
    assert seed == 17 and type(seed) is int
    assert isinstance(helper, metewand.Output) and helper.dir == output
    manifest = support.check_document(output / "dataset-manifest.json", "artifact-manifest")
    assert manifest == {
        "complete": True,
        "data": {"rows": 1},
        "files": [
            {
                "path": "points.csv",
                "sha256": hashlib.sha256(b"0.5,0.25\n").hexdigest(),
                "size": 9,
            }
        ],
    }


def test_materialize_names_the_schema_when_the_class_does(tmp_path: Path) -> None:
    class Described(Points):
        schema = "urn:example:points:1"

    exchange(Described(), [hello("dataset_materializer"), materialize(tmp_path / "o", tmp_path)])
    manifest = support.check_document(tmp_path / "o" / "dataset-manifest.json", "artifact-manifest")
    assert manifest["schema"] == "urn:example:points:1"
    assert "schema" not in support.check_document(
        _materialized(tmp_path / "p"), "artifact-manifest"
    )


def _materialized(output: Path) -> Path:
    exchange(Points(), [hello("dataset_materializer"), materialize(output, output.parent)])
    return output / "dataset-manifest.json"


def test_materialize_must_not_return_data(tmp_path: Path) -> None:
    def returns_data(output: metewand.Output) -> Any:
        return {"rows": 1}

    done = exchange(
        Points(returns_data), [hello("dataset_materializer"), materialize(tmp_path / "o", tmp_path)]
    )
    assert done.failure(1) == {
        "code": "internal_error",
        "message": "materialize failed: materialize returned a dict; it should return None and "
        "put the manifest's data in output.data",
    }
    assert not (tmp_path / "o" / "dataset-manifest.json").exists()


def test_materialize_data_must_be_a_dict(tmp_path: Path) -> None:
    def sets_a_list(output: metewand.Output) -> None:
        output.data = [1, 2]  # type: ignore[assignment]

    done = exchange(
        Points(sets_a_list), [hello("dataset_materializer"), materialize(tmp_path / "o", tmp_path)]
    )
    error = done.failure(1)
    assert error["code"] == "internal_error"
    assert "data must be a dict, got list" in error["message"]


def test_materialize_refuses_a_symbolic_link_in_the_output(tmp_path: Path) -> None:
    def links(output: metewand.Output) -> None:
        output.write_text("real.txt", "x")
        (output.dir / "link.txt").symlink_to("real.txt")

    done = exchange(
        Points(links), [hello("dataset_materializer"), materialize(tmp_path / "o", tmp_path)]
    )
    error = done.failure(1)
    assert error["code"] == "internal_error"
    assert '"link.txt" is a symbolic link' in error["message"]
    assert not (tmp_path / "o" / "dataset-manifest.json").exists()
    assert "symbolic link" in done.log and "Traceback" not in done.log


# ---------------------------------------------------------------------------
# Implementation


def test_prepare_receives_the_dataset_parameters_seed_and_problem(dataset: Path) -> None:
    solver = Solver()
    done = exchange(solver, [hello("implementation"), prepare(dataset), shutdown()])
    assert done.responses[1] == {"id": "1", "ok": True}
    name, artifact, parameters, seed, problem = solver.calls[0]
    assert name == "prepare"
    assert isinstance(artifact, metewand.Artifact)
    assert artifact.dir == dataset
    assert isinstance(artifact.manifest, ArtifactManifest)
    assert artifact.data == {"rows": 1}
    assert [record.path for record in artifact.files] == ["points.csv"]
    assert artifact.schema is None
    assert artifact.path("points.csv").read_text() == "0.5,0.25\n"
    with artifact.open("points.csv") as file:
        assert file.read() == "0.5,0.25\n"
    assert parameters == {"solver": "fast"}
    assert seed == 23
    assert isinstance(problem, metewand.Problem)
    assert problem.contract_id == support.CONTRACT_ID
    assert problem.parameters == {"lambda": 0.1}


def test_execute_writes_the_result_and_reports_statistics_and_time(
    tmp_path: Path, dataset: Path
) -> None:
    def slow(result: metewand.Output) -> dict[str, Any]:
        time.sleep(0.02)
        result.write_json("answer.json", {"value": 42})
        result.data = {"answer": 42}
        return {"iterations": 37, "residual": 1e-9}

    solver = Solver(on_execute=slow)
    started = time.perf_counter_ns()
    done = exchange(
        solver, [hello("implementation"), prepare(dataset), execute(tmp_path / "r"), shutdown()]
    )
    elapsed = time.perf_counter_ns() - started
    response = done.responses[2]
    assert response["result"] == {"manifest": "result.json"}
    assert response["statistics"] == {"iterations": 37, "residual": 1e-9}
    assert 20_000_000 <= response["implementation_time_ns"] <= elapsed
    manifest = support.check_document(tmp_path / "r" / "result.json", "result-manifest")
    assert manifest["data"] == {"answer": 42}
    assert manifest["files"][0]["path"] == "answer.json"
    assert (tmp_path / "r" / "answer.json").read_bytes() == b'{"value":42}'


def test_execute_may_return_no_statistics(tmp_path: Path, dataset: Path) -> None:
    solver = Solver(on_execute=lambda result: None)
    done = exchange(solver, [hello("implementation"), prepare(dataset), execute(tmp_path / "r")])
    assert done.responses[2]["statistics"] == {}
    manifest = support.check_document(tmp_path / "r" / "result.json", "result-manifest")
    assert manifest == {"data": {}, "files": []}


def test_execute_names_the_result_schema_when_the_class_does(tmp_path: Path, dataset: Path) -> None:
    class Described(Solver):
        schema = "urn:example:result:1"

    exchange(Described(), [hello("implementation"), prepare(dataset), execute(tmp_path / "r")])
    manifest = support.check_document(tmp_path / "r" / "result.json", "result-manifest")
    assert manifest["schema"] == "urn:example:result:1"


@pytest.mark.parametrize(
    ("returned", "message"),
    [
        ([1, 2], "execute returned a list; it should return a dict of statistics or None"),
        (42, "execute returned a int; it should return a dict of statistics or None"),
        ({"x": math.nan}, "the statistics execute returned have no json form: "),
        ({"x": {1, 2}}, "the statistics execute returned have no json form: "),
        ({1: "x"}, "the statistics execute returned have no json form: "),
    ],
)
def test_execute_statistics_must_be_json(
    returned: Any, message: str, tmp_path: Path, dataset: Path
) -> None:
    solver = Solver(on_execute=lambda result: returned)
    done = exchange(
        solver, [hello("implementation"), prepare(dataset), execute(tmp_path / "r"), reset()]
    )
    error = done.failure(2)
    assert error["code"] == "internal_error"
    assert error["message"].startswith("execute failed: " + message), error
    assert done.responses[3]["ok"] is True


def test_a_response_over_one_mebibyte_becomes_a_failure(tmp_path: Path, dataset: Path) -> None:
    solver = Solver(on_execute=lambda result: {"blob": "x" * MAX_LINE})
    done = exchange(solver, [hello("implementation"), prepare(dataset), execute(tmp_path / "r")])
    error = done.failure(2)
    assert error["code"] == "internal_error"
    assert error["message"].startswith("execute failed: the execute response cannot be sent: ")


@pytest.mark.parametrize("before", ["nothing", "reset", "failed prepare"])
def test_execute_needs_a_successful_prepare(before: str, tmp_path: Path, dataset: Path) -> None:
    def fails_for_seed_1(dataset: Any, parameters: Any, seed: int, problem: Any) -> None:
        if seed == 1:
            raise metewand.WorkerError("operation_failed", "no")

    requests: list[Any] = [hello("implementation")]
    if before == "reset":
        requests += [prepare(dataset), reset()]
    if before == "failed prepare":
        requests += [prepare(dataset), prepare(dataset, id="q", implementation_seed=1)]
    requests.append(execute(tmp_path / "r", id="e"))
    solver = Solver(on_prepare=fails_for_seed_1)
    done = exchange(solver, requests)
    assert done.failure(len(requests) - 1) == {
        "code": "invalid_request",
        "message": "execute needs a successful prepare first",
    }
    assert not any(call[0] == "execute" for call in solver.calls)


def test_reset_calls_the_worker_and_allows_another_attempt(tmp_path: Path, dataset: Path) -> None:
    solver = Solver()
    done = exchange(
        solver,
        [
            hello("implementation"),
            prepare(dataset, id="1"),
            execute(tmp_path / "a", id="2"),
            reset("3"),
            prepare(dataset, id="4"),
            execute(tmp_path / "b", id="5"),
            reset("6"),
            shutdown("7"),
        ],
    )
    assert [response["ok"] for response in done.responses] == [True] * 8
    assert [call[0] for call in solver.calls] == [
        "prepare",
        "execute",
        "reset",
        "prepare",
        "execute",
        "reset",
    ]


def test_the_default_reset_does_nothing() -> None:
    class Minimal(metewand.Implementation):
        def prepare(self, dataset: Any, parameters: Any, seed: Any, problem: Any) -> None:
            pass

        def execute(self, result: Any) -> None:
            pass

    done = exchange(Minimal, [hello("implementation"), reset(), shutdown()])
    assert done.responses[1] == {"id": "3", "ok": True}


def test_prepare_with_an_unreadable_dataset_is_an_invalid_request(tmp_path: Path) -> None:
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "dataset-manifest.json").write_text('{"complete": false}')
    solver = Solver()
    done = exchange(
        solver,
        [hello("implementation"), prepare(tmp_path / "missing"), prepare(tmp_path / "broken")],
    )
    missing = done.failure(1)
    assert missing["code"] == "invalid_request"
    assert missing["message"].startswith("cannot read the dataset manifest ")
    broken = done.failure(2)
    assert broken["code"] == "invalid_request"
    assert "is invalid: " in broken["message"]
    assert solver.calls == []


def test_files_left_open_are_closed_before_the_manifest(tmp_path: Path, dataset: Path) -> None:
    opened: list[Any] = []

    def leaves_files_open(result: metewand.Output) -> None:
        text = result.open("a/text.txt")
        text.write("é" * 50_000)
        binary = result.open("b.bin", "wb")
        binary.write(b"\x00" * 100_000)
        opened.extend([text, binary])

    solver = Solver(on_execute=leaves_files_open)
    exchange(solver, [hello("implementation"), prepare(dataset), execute(tmp_path / "r")])
    assert all(file.closed for file in opened)
    manifest = support.check_document(tmp_path / "r" / "result.json", "result-manifest")
    assert [(record["path"], record["size"]) for record in manifest["files"]] == [
        ("a/text.txt", 100_000),
        ("b.bin", 100_000),
    ]


# ---------------------------------------------------------------------------
# Evaluator


@pytest.mark.parametrize("verdict", ["reached", "not_reached", "invalid", "not_required"])
def test_evaluate_returns_the_verdict_and_writes_metrics(
    verdict: str, tmp_path: Path, dataset: Path, result: Path
) -> None:
    judge = Judge(lambda: (verdict, {"error": 0.5, "runs": [1, 2]}))
    metrics = tmp_path / "metrics" / "metrics.json"
    done = exchange(
        judge, [hello("problem_evaluator"), evaluate(dataset, result, metrics), shutdown()]
    )
    assert done.responses[1] == {"id": "1", "ok": True, "verdict": verdict}
    assert support.check_document(metrics, "metrics") == {"metrics": {"error": 0.5, "runs": [1, 2]}}
    dataset_artifact, result_artifact, problem = judge.calls[0]
    assert isinstance(dataset_artifact.manifest, ArtifactManifest)
    assert dataset_artifact.dir == dataset
    assert isinstance(result_artifact.manifest, ResultManifest)
    assert result_artifact.dir == result
    assert result_artifact.data == {"answer": 42}
    assert problem.contract_id == support.CONTRACT_ID
    assert problem.parameters == {"lambda": 0.1}


def test_evaluate_names_the_metric_schema_when_the_class_does(
    tmp_path: Path, dataset: Path, result: Path
) -> None:
    class Described(Judge):
        schema = "urn:example:metrics:1"

    metrics = tmp_path / "metrics.json"
    exchange(Described(), [hello("problem_evaluator"), evaluate(dataset, result, metrics)])
    assert support.check_document(metrics, "metrics") == {
        "metrics": {"error": 0.0},
        "schema": "urn:example:metrics:1",
    }


@pytest.mark.parametrize(
    ("returned", "message"),
    [
        ("reached", "evaluate returned a str; it should return (verdict, metrics)"),
        (("reached",), "evaluate returned a tuple of 1 items; it should return (verdict, metrics)"),
        (None, "evaluate returned a NoneType; it should return (verdict, metrics)"),
        (("done", {}), "evaluate returned the verdict 'done'; a verdict is one of invalid, "),
        ((["reached"], {}), "evaluate returned the verdict ['reached']; a verdict is one of "),
        (("reached", [1]), "evaluate returned metrics of type list; metrics are a dict"),
        (("reached", {"x": math.inf}), "the metrics document has no json form: "),
    ],
)
def test_evaluate_must_return_a_verdict_and_metrics(
    returned: Any, message: str, tmp_path: Path, dataset: Path, result: Path
) -> None:
    metrics = tmp_path / "metrics.json"
    done = exchange(
        Judge(lambda: returned),
        [hello("problem_evaluator"), evaluate(dataset, result, metrics), shutdown()],
    )
    error = done.failure(1)
    assert error["code"] == "internal_error"
    assert error["message"].startswith("evaluate failed: " + message), error
    assert not metrics.exists()
    assert done.status == 0


def test_evaluate_accepts_none_for_no_metrics(tmp_path: Path, dataset: Path, result: Path) -> None:
    metrics = tmp_path / "metrics.json"
    exchange(
        Judge(lambda: ["not_required", None]),
        [hello("problem_evaluator"), evaluate(dataset, result, metrics)],
    )
    assert support.check_document(metrics, "metrics") == {"metrics": {}}


@pytest.mark.parametrize("name", ["sorted.f64", "../escape", ""])
def test_a_result_without_the_file_it_names_is_judged_invalid_not_a_crash(
    name: str, tmp_path: Path, dataset: Path, result: Path
) -> None:
    class Strict(Judge):
        def invalid_metrics(self, problem: metewand.Problem, reason: str) -> dict[str, Any]:
            return {"error": None, "reason": reason}

    judge = Strict(lambda: (judge.calls[0][1].require(name), ("reached", {"error": 0.0}))[1])
    metrics = tmp_path / "metrics.json"
    done = exchange(
        judge, [hello("problem_evaluator"), evaluate(dataset, result, metrics), shutdown()]
    )
    assert done.responses[1] == {"id": "1", "ok": True, "verdict": "invalid"}
    written = support.check_document(metrics, "metrics")["metrics"]
    assert written["error"] is None and written["reason"], written
    assert "metewand: the result is invalid: " in done.log
    assert "Traceback" not in done.log
    assert done.status == 0


def test_require_gives_the_path_of_a_declared_file(result: Path) -> None:
    artifact = metewand.read_result(result)
    assert artifact.require("answer.txt") == result / "answer.txt"
    with pytest.raises(metewand.InvalidResult, match="it has no file 'missing.txt'"):
        artifact.require("missing.txt")


def test_field_gives_a_data_member_of_its_type_or_an_invalid_result(result: Path) -> None:
    artifact = metewand.read_result(result)
    assert artifact.field("answer", int) == 42
    assert artifact.field("answer") == 42
    assert artifact.field("answer", (int, float)) == 42
    with pytest.raises(metewand.InvalidResult, match="its data has no member 'solution'"):
        artifact.field("solution", str)
    with pytest.raises(metewand.InvalidResult, match="is int, not str"):
        artifact.field("answer", str)


def test_a_boolean_is_never_taken_for_a_number(tmp_path: Path) -> None:
    directory = tmp_path / "boolean"
    directory.mkdir()
    metewand.write_result_manifest(directory, {"answer": True})
    artifact = metewand.read_result(directory)
    with pytest.raises(metewand.InvalidResult, match="is bool, not int or float"):
        artifact.field("answer", (int, float))
    assert artifact.field("answer", bool) is True


@pytest.mark.parametrize(
    ("contents", "expected"),
    [(b'{"x": [1, 2]}', {"x": [1, 2]}), (b"not json", None), (b"\xff\xfe", None), (b"", None)],
)
def test_json_parses_a_declared_file_or_raises_an_invalid_result(
    tmp_path: Path, contents: bytes, expected: Any
) -> None:
    directory = tmp_path / "json"
    directory.mkdir()
    (directory / "solution.json").write_bytes(contents)
    metewand.write_result_manifest(directory, {"solution": "solution.json"})
    artifact = metewand.read_result(directory)
    if expected is None:
        with pytest.raises(metewand.InvalidResult, match="its file 'solution.json' is not JSON"):
            artifact.json("solution.json")
    else:
        assert artifact.json("solution.json") == expected
    with pytest.raises(metewand.InvalidResult, match="it has no file 'other.json'"):
        artifact.json("other.json")


def test_evaluate_with_an_unreadable_result_is_an_invalid_request(
    tmp_path: Path, dataset: Path
) -> None:
    judge = Judge()
    done = exchange(
        judge,
        [hello("problem_evaluator"), evaluate(dataset, tmp_path / "none", tmp_path / "m.json")],
    )
    error = done.failure(1)
    assert error["code"] == "invalid_request"
    assert error["message"].startswith("cannot read the result manifest ")
    assert judge.calls == []


# ---------------------------------------------------------------------------
# Failures raised by workers


@pytest.mark.parametrize("code", metewand.FAILURE_CODES)
@pytest.mark.parametrize("details", [None, {}, {"iterations": 100, "trace": [1.5, None]}])
def test_worker_errors_become_failures(
    code: str, details: Any, tmp_path: Path, dataset: Path
) -> None:
    def fails(result: metewand.Output) -> None:
        raise metewand.WorkerError(code, "The implementation did not converge.", details)

    done = exchange(
        Solver(on_execute=fails),
        [hello("implementation"), prepare(dataset), execute(tmp_path / "r"), reset(), shutdown()],
    )
    expected: dict[str, Any] = {"code": code, "message": "The implementation did not converge."}
    if details is not None:
        expected["details"] = details
    assert done.failure(2) == expected
    assert done.log == ""
    assert [response["ok"] for response in done.responses] == [True, True, False, True, True]
    assert not (tmp_path / "r" / "result.json").exists()


@pytest.mark.parametrize("method", ["materialize", "prepare", "execute", "reset", "evaluate"])
def test_worker_errors_from_every_method(
    method: str, tmp_path: Path, dataset: Path, result: Path
) -> None:
    def fails(*args: Any) -> None:
        raise metewand.WorkerError("operation_failed", f"{method} failed", {"method": method})

    role = next(role for role in ROLES if method in ROLE_METHODS[role])
    worker: metewand.Worker = {
        "materialize": lambda: Points(fails),
        "prepare": lambda: Solver(on_prepare=fails),
        "execute": lambda: Solver(on_execute=fails),
        "reset": lambda: Solver(on_reset=fails),
        "evaluate": lambda: Judge(fails),
    }[method]()
    requests = [hello(role), *requests_for(method, tmp_path, dataset, result), shutdown()]
    done = exchange(worker, requests)
    assert done.failure(len(requests) - 2) == {
        "code": "operation_failed",
        "message": f"{method} failed",
        "details": {"method": method},
    }
    assert done.status == 0


def test_details_without_a_json_form_are_left_out(tmp_path: Path, dataset: Path) -> None:
    def fails(result: metewand.Output) -> None:
        raise metewand.WorkerError("operation_failed", "diverged", {"residual": math.nan})

    done = exchange(
        Solver(on_execute=fails), [hello("implementation"), prepare(dataset), execute(tmp_path)]
    )
    error = done.failure(2)
    assert error["code"] == "operation_failed"
    assert error["message"].startswith("diverged (details left out: ")
    assert "details" not in error
    assert "failure details left out" in done.log


def test_a_long_failure_message_is_clipped(tmp_path: Path, dataset: Path) -> None:
    def fails(result: metewand.Output) -> None:
        raise metewand.WorkerError("operation_failed", "x" * (2 * MAX_LINE))

    done = exchange(
        Solver(on_execute=fails), [hello("implementation"), prepare(dataset), execute(tmp_path)]
    )
    message = done.failure(2)["message"]
    assert len(message) == 65536 and message.endswith("...")


@pytest.mark.parametrize(
    ("exception", "message"),
    [
        (
            ZeroDivisionError("division by zero"),
            "execute failed: ZeroDivisionError: division by zero",
        ),
        (KeyError("rows"), "execute failed: KeyError: 'rows'"),
        (RuntimeError("first line\nsecond line\n"), "execute failed: RuntimeError: first line"),
        (ValueError(), "execute failed: ValueError"),
        (
            OSError(28, "No space left on device"),
            "execute failed: OSError: [Errno 28] No space left on device",
        ),
        (RuntimeError("bad byte \udcff"), "execute failed: RuntimeError: bad byte \\udcff"),
    ],
)
def test_other_exceptions_become_internal_errors(
    exception: Exception, message: str, tmp_path: Path, dataset: Path
) -> None:
    def raises(result: metewand.Output) -> None:
        raise exception

    done = exchange(
        Solver(on_execute=raises),
        [hello("implementation"), prepare(dataset), execute(tmp_path), reset(), shutdown()],
    )
    assert done.failure(2) == {"code": "internal_error", "message": message}
    # The traceback goes to the log, never into the protocol stream.
    assert "Traceback (most recent call last):" in done.log
    assert "in raises" in done.log
    assert all(b"Traceback" not in line for line in done.lines)
    assert done.responses[3]["ok"] is True and done.status == 0


def test_a_long_exception_message_is_clipped_to_one_line(tmp_path: Path, dataset: Path) -> None:
    def raises(result: metewand.Output) -> None:
        raise RuntimeError("y" * 5000)

    done = exchange(
        Solver(on_execute=raises), [hello("implementation"), prepare(dataset), execute(tmp_path)]
    )
    message = done.failure(2)["message"]
    assert len(message) == 1000 and message.endswith("...")


def test_worker_error_checks_its_arguments() -> None:
    with pytest.raises(ValueError, match="unknown failure code 'failed'"):
        metewand.WorkerError("failed", "x")
    with pytest.raises(ValueError, match="nonempty string"):
        metewand.WorkerError("operation_failed", "")
    with pytest.raises(TypeError, match="dict or None"):
        metewand.WorkerError("operation_failed", "x", [1])  # type: ignore[arg-type]
    error = metewand.WorkerError("operation_failed", "did not converge", {"n": 1})
    assert (error.code, error.message, error.details) == (
        "operation_failed",
        "did not converge",
        {"n": 1},
    )
    assert str(error) == "operation_failed: did not converge"
    assert metewand.FAILURE_CODES == (
        "invalid_request",
        "unsupported_operation",
        "operation_failed",
        "internal_error",
    )


def test_a_bad_worker_error_becomes_an_internal_error(tmp_path: Path, dataset: Path) -> None:
    def raises(result: metewand.Output) -> None:
        raise metewand.WorkerError("diverged", "x")

    done = exchange(
        Solver(on_execute=raises), [hello("implementation"), prepare(dataset), execute(tmp_path)]
    )
    error = done.failure(2)
    assert error["code"] == "internal_error"
    assert error["message"].startswith("execute failed: ValueError: unknown failure code")


def test_system_exit_is_not_swallowed(dataset: Path) -> None:
    def exits(*args: Any) -> None:
        raise SystemExit(3)

    with pytest.raises(SystemExit):
        exchange(Solver(on_prepare=exits), [hello("implementation"), prepare(dataset)])


# ---------------------------------------------------------------------------
# Lines that cannot be answered, framing, and the end of the session


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (b"not json\n", "the line is not json the protocol accepts: "),
        (b'{"id":"1","id":"2","method":"reset"}\n', "the line is not json the protocol accepts: "),
        (b'{"id":"\\ud800","method":"reset"}\n', "the line is not json the protocol accepts: "),
        (
            b'{"id":"1","method":"reset","seed":1e400}\n',
            "the line is not json the protocol accepts: ",
        ),
        (
            b'\xef\xbb\xbf{"id":"1","method":"reset"}\n',
            "the line is not json the protocol accepts: ",
        ),
        (b"\n", "the line is not json the protocol accepts: "),
        (b"null\n", "the message is not a json object"),
        (b'["reset"]\n', "the message is not a json object"),
        (b'"reset"\n', "the message is not a json object"),
        (b'{"method":"reset"}\n', "the request has no id"),
        (b'{"id":null,"method":"reset"}\n', "the request's id is null"),
        (b'{"id":"","method":"reset"}\n', "the request's id is empty"),
        (b'{"id":1,"method":"reset"}\n', "the request's id is not a string"),
        (b'{"id":["1"],"method":"reset"}\n', "the request's id is not a string"),
    ],
)
def test_a_request_without_a_usable_id_ends_the_worker_with_status_2(
    line: bytes, reason: str
) -> None:
    solver = Solver()
    done = exchange(solver, [hello("implementation"), line, reset(), shutdown()])
    assert done.status == 2
    assert len(done.responses) == 1  # the lines after it are never read
    log_lines = done.log.splitlines()
    assert len(log_lines) == 1
    assert log_lines[0].startswith(
        "metewand: cannot answer a request without a usable id: " + reason
    ), log_lines
    assert log_lines[0].endswith("; exiting with status 2")
    assert solver.calls == []


def test_a_line_over_one_mebibyte_ends_the_worker_with_status_2() -> None:
    line = b'{"id":"1","method":"reset","x":"' + b"x" * MAX_LINE + b'"}\n'
    done = exchange(Solver(), [hello("implementation"), line, reset()])
    assert done.status == 2
    assert len(done.responses) == 1
    assert done.log.startswith("metewand: cannot read the next request: line exceeds 1048576 bytes")
    assert done.log.count("\n") == 1


def test_a_line_of_exactly_one_mebibyte_is_read() -> None:
    prefix = b'{"id":"1","method":"reset","x":"'
    line = prefix + b"x" * (MAX_LINE - len(prefix) - 3) + b'"}\n'
    assert len(line) == MAX_LINE
    done = exchange(Solver(), [hello("implementation"), line, shutdown()])
    assert done.failure(1)["message"] == 'invalid reset request: unknown property "x"'
    assert done.status == 0


def test_bytes_after_the_last_line_feed_end_the_worker_with_status_2() -> None:
    done = exchange(Solver(), [hello("implementation"), b'{"id":"1","method":"reset"}'])
    assert done.status == 2
    assert len(done.responses) == 1
    assert done.log.startswith("metewand: cannot read the next request: stream ended inside a line")


@pytest.mark.parametrize("requests", [[], [hello("implementation")]])
def test_the_end_of_the_requests_without_shutdown_is_status_1(requests: list[Any]) -> None:
    done = exchange(Solver(), requests)
    assert done.status == 1
    assert done.log == "metewand: the requests ended without shutdown; exiting with status 1\n"


def test_shutdown_ends_the_loop_with_status_0_and_reads_no_further() -> None:
    done = exchange(Solver(), [hello("implementation"), shutdown("1"), b"not json\n", reset()])
    assert done.status == 0
    assert done.responses == [done.responses[0], {"id": "1", "ok": True}]
    assert done.log == ""


def test_a_closed_response_stream_ends_the_loop_with_status_1() -> None:
    class Closed(io.BytesIO):
        def write(self, data: Any) -> int:
            raise BrokenPipeError(32, "Broken pipe")

    log = io.StringIO()
    requests = io.BytesIO(support.encode([hello("implementation"), reset()]))
    assert metewand.serve(Solver(), requests, Closed(), log) == 1
    assert log.getvalue().startswith("metewand: cannot write a response: ")


def test_serve_accepts_a_worker_class_and_refuses_anything_else() -> None:
    done = exchange(Judge, [hello("problem_evaluator"), shutdown()])
    assert done.status == 0
    with pytest.raises(TypeError, match="not the class int"):
        metewand.serve(int, io.BytesIO(), io.BytesIO())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not str"):
        metewand.serve("worker", io.BytesIO(), io.BytesIO())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not the class Worker"):
        metewand.run(metewand.Worker)  # type: ignore[arg-type]


def test_a_worker_must_implement_its_methods() -> None:
    class Incomplete(metewand.Implementation):
        def prepare(self, dataset: Any, parameters: Any, seed: Any, problem: Any) -> None:
            pass

    with pytest.raises(TypeError, match="execute"):
        Incomplete()  # type: ignore[abstract]


# A fresh interpreter serving hello, prepare, execute and shutdown, which notes the modules loaded
# each time the SDK reads a request: after answering hello, and after answering execute.
_FRESH_WORKER = """
import io, json, sys
import metewand

class Nothing(metewand.Implementation):
    def prepare(self, dataset, parameters, seed, problem):
        pass

    def execute(self, result):
        result.path("answer.txt").write_text("0\\n")

loaded = []

class Requests(io.BytesIO):
    def readline(self, limit=-1):
        loaded.append(set(sys.modules))
        return super().readline(limit)

metewand.serve(Nothing, Requests(sys.stdin.buffer.read()), io.BytesIO(), sys.stderr)
print(json.dumps({"hello": sorted(loaded[1] - loaded[0]), "later": sorted(loaded[3] - loaded[1])}))
"""


def test_everything_a_request_needs_is_loaded_before_hello_is_answered(
    dataset: Path, tmp_path: Path
) -> None:
    # What a fresh process's first prepare or execute imported would be timed in it.
    requests = [hello("implementation"), prepare(dataset), execute(tmp_path / "out"), shutdown()]
    (tmp_path / "out").mkdir()
    completed = subprocess.run(
        [sys.executable, "-c", _FRESH_WORKER],
        input=support.encode(requests),
        capture_output=True,
        env=support.worker_env(),
        timeout=60,
        check=True,
    )
    loaded = json.loads(completed.stdout)
    assert loaded["later"] == [], loaded
    assert {"metewand.artifacts", "metewand.models.result_manifest", "hashlib"} <= set(
        loaded["hello"]
    ), loaded
