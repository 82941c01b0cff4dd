"""The table of request methods, generated from the annotations of the protocol schema's request
definitions: it says what the schema says, and the worker loop serves exactly the methods it gives
each role, those that take a capability only where the worker reports it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support import exchange, hello, prepare, schema_document, shutdown

import metewand
from metewand.models import worker_protocol_message as wpm
from metewand.models.worker_protocol_methods import (
    CAPABILITIES,
    PHASES,
    REQUEST_METHODS,
    REQUESTS,
    RESPONSES,
    ROLE_METHODS,
)

ROLES = ("dataset_materializer", "implementation", "problem_evaluator")


def _requests() -> dict[str, dict[str, Any]]:
    """Each request definition of the schema, by its method, in the order of the root's anyOf."""
    schema = schema_document("worker-protocol-message")
    found = {}
    for entry in schema["anyOf"]:
        name = entry["$ref"].removeprefix("#/$defs/")
        definition = schema["$defs"][name]
        method = definition["properties"].get("method", {}).get("const")
        if method is not None:
            found[method] = {"name": name, **definition}
    return found


def test_the_table_says_what_the_request_definitions_say() -> None:
    requests = _requests()
    assert REQUEST_METHODS == tuple(requests)
    for method, definition in requests.items():
        assert REQUESTS[method] is wpm.DEFINITIONS[definition["name"]]
        assert RESPONSES[method] is wpm.DEFINITIONS[definition["x-response"]]
        assert PHASES[method] == definition.get("x-phase", method)
        assert CAPABILITIES.get(method) == definition.get("x-capability")
    for role in ROLES:
        accepted = [m for m, definition in requests.items() if role in definition["x-accepted-by"]]
        assert ROLE_METHODS[role] == tuple(accepted)
    assert set(ROLE_METHODS) == set(ROLES)


class Points(metewand.Materializer):
    def materialize(
        self, source_dir: Path, parameters: dict[str, Any], seed: int, output: Any
    ) -> None:
        output.data = {}


class Still(metewand.Implementation):
    def prepare(self, dataset: Any, parameters: dict[str, Any], seed: int, problem: Any) -> None:
        pass

    def execute(self, result: Any) -> dict[str, Any] | None:
        result.data = {}
        return None


class Streaming(Still):
    def execute_stream(self, result: Any, checkpoint: Any) -> dict[str, Any] | None:
        result.data = {}
        return None


class Judge(metewand.Evaluator):
    def evaluate(self, dataset: Any, result: Any, problem: Any) -> Any:
        return "reached", {}


WORKERS = {"dataset_materializer": Points, "implementation": Streaming, "problem_evaluator": Judge}


def _refused_for_the_role(answer: dict[str, Any], role: str, method: str) -> bool:
    return answer.get("error") == {
        "code": "unsupported_operation",
        "message": f"this worker serves the {role} role, which has no {method} request",
    }


@pytest.mark.parametrize("role", ROLES)
def test_the_loop_serves_exactly_the_methods_the_table_gives_the_role(role: str) -> None:
    # After hello, every method but shutdown with no fields: a method the role has is answered as
    # its own (a refused second hello, a malformed request, an acknowledged reset), any other is
    # refused as another role's; shutdown, last, ends the session.
    methods = [method for method in REQUEST_METHODS if method != "shutdown"]
    bare = [{"id": f"m{index}", "method": method} for index, method in enumerate(methods)]
    done = exchange(WORKERS[role](), [hello(role), *bare, shutdown()])
    assert done.status == 0
    answers = zip(methods, done.responses[1:-1], strict=True)
    served = {method for method, answer in answers if not _refused_for_the_role(answer, role, method)}
    assert done.responses[-1] == {"id": "9", "ok": True}
    assert served | {"shutdown"} == set(ROLE_METHODS[role])


@pytest.mark.parametrize("method", sorted(CAPABILITIES))
def test_a_method_that_takes_a_capability_is_served_only_by_a_worker_that_reports_it(
    method: str, tmp_path: Path
) -> None:
    # Only execute_stream takes one today: streaming_profile, which an implementation reports when
    # it overrides execute_stream.
    assert (method, CAPABILITIES[method]) == ("execute_stream", "streaming_profile")
    role = next(role for role in ROLES if method in ROLE_METHODS[role])
    dataset = tmp_path / "dataset"
    dataset.mkdir()
    metewand.write_dataset_manifest(dataset, {})
    out = tmp_path / "out"
    request = {"id": "2", "max_checkpoints": 1, "method": method, "result_dir": str(out)}
    for worker, reports in [(Still(), False), (Streaming(), True)]:
        out.mkdir()
        done = exchange(worker, [hello(role), prepare(dataset), request, shutdown()])
        assert (CAPABILITIES[method] in done.responses[0]["capabilities"]) is reports
        answer = done.responses[2]
        if reports:
            assert answer["ok"] is True, answer
        else:
            assert answer["error"]["code"] == "unsupported_operation", answer
            assert not _refused_for_the_role(answer, role, method), "the role has the method"
        out.rename(tmp_path / f"out-{reports}")
