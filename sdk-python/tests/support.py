"""Helpers for the worker tests: requests, exchanges with a worker, schema checks, and skips.

Every response a test receives goes through ``check_response``, which validates it against the
checked-in schema definition its request calls for (with ``jsonschema``) and checks that the line
is canonical JSON followed by one line feed.

A test that cannot play what its name promises on this machine calls ``skip``, which reads what the
machine must give as ``metewand-testkit`` does (``METEWAND_TEST_REQUIRED``, and under ``CI=true``,
when it is unset, what CI's machine gives) and fails the test instead of skipping it when the
missing thing is required.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, NoReturn

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from metewand.canonical import dumps, parse

REPO_ROOT = Path(__file__).resolve().parents[2]
SCHEMAS_DIR = REPO_ROOT / "schemas"
SDK_SRC = REPO_ROOT / "sdk-python" / "src"
WORKERS_DIR = Path(__file__).resolve().parent / "workers"

TEST_REQUIRED_VAR = "METEWAND_TEST_REQUIRED"
# What the tests need under CI=true when METEWAND_TEST_REQUIRED is unset: metewand-testkit's
# CI_TEST_REQUIRED, character for character (test_requirements.py holds them equal).
CI_TEST_REQUIRED = "slurm,root,setpriv,chromium,two-cpus,corpora,python3.10"


def required(item: str) -> bool:
    """Whether this machine was declared to give ``item`` (``corpora``, ``python3.10``, ...)."""
    listed = os.environ.get(TEST_REQUIRED_VAR)
    if listed is None:
        listed = CI_TEST_REQUIRED if os.environ.get("CI") == "true" else ""
    return item in (entry.strip() for entry in listed.split(","))


def skip(missing: str, why: str) -> NoReturn:
    """Skips the running test for lack of ``missing``, or fails it when ``missing`` is required here.

    The reason starts ``needs <missing>: `` so that the skip log (``conftest.py``) names what was
    missing, as the Rust tests' lines do.
    """
    if required(missing):
        pytest.fail(f"{why}, but this machine must give {missing} ({TEST_REQUIRED_VAR})")
    pytest.skip(f"needs {missing}: {why}")


WORKER_ID = "mw1-resolved-worker-" + "0123456789abcdef" * 4
CONTRACT_ID = "mw1-problem-contract-abc"

# The response definition each request calls for when it succeeds.
SUCCESS_DEFINITIONS = {
    "hello": "hello_response",
    "materialize": "materialize_response",
    "prepare": "ack_response",
    "execute": "execute_response",
    "execute_stream": "execute_response",
    "reset": "ack_response",
    "evaluate": "evaluate_response",
    "shutdown": "ack_response",
}


@cache
def schema_document(name: str) -> dict[str, Any]:
    with (SCHEMAS_DIR / f"{name}.schema.json").open(encoding="utf-8") as file:
        return json.load(file)  # type: ignore[no-any-return]


@cache
def registry() -> Registry[Any]:
    """Every checked-in schema under its ``$id``, so that cross-document references resolve offline."""
    documents = [schema_document(path.name.removesuffix(".schema.json")) for path in SCHEMAS_DIR.glob("*.schema.json")]
    return Registry().with_resources((document["$id"], Resource.from_contents(document)) for document in documents)


@cache
def validator(schema: str, definition: str | None = None) -> Draft202012Validator:
    """A validator for one ``$defs`` entry of a schema (or for its root when None)."""
    document = dict(schema_document(schema))
    if definition is not None:
        # The root lists every message; validating against one entry says which it must be.
        for keyword in ("anyOf", "type", "properties", "required", "additionalProperties"):
            document.pop(keyword, None)
        document["$ref"] = f"#/$defs/{definition}"
    Draft202012Validator.check_schema(document)
    return Draft202012Validator(document, registry=registry())


def assert_valid(value: Any, schema: str, definition: str | None = None) -> None:
    errors = sorted(validator(schema, definition).iter_errors(value), key=str)
    assert not errors, f"{schema} {definition}: {[error.message for error in errors]} in {value}"


def check_line(line: bytes) -> dict[str, Any]:
    """Checks that ``line`` is one canonical JSON object and a line feed; returns the object."""
    assert line.endswith(b"\n") and line.count(b"\n") == 1, line
    value = parse(line[:-1])
    assert dumps(value) == line[:-1], f"not canonical: {line!r}"
    assert isinstance(value, dict)
    return value


def check_response(line: bytes, request: Any) -> dict[str, Any]:
    """Checks a response line against the schema definition ``request`` calls for."""
    response = check_line(line)
    if isinstance(request, bytes):  # a raw line, written as the test wants it
        request = json.loads(request)
    if response.get("ok") is False:
        definition = "failure_response"
    else:
        definition = SUCCESS_DEFINITIONS[request["method"]]
    assert_valid(response, "worker-protocol-message", definition)
    assert response["id"] == request["id"]
    return response


def check_document(path: Path, schema: str) -> dict[str, Any]:
    """Checks that the file at ``path`` is canonical JSON valid against ``schema``'s root."""
    content = path.read_bytes()
    value = parse(content)
    assert dumps(value) == content, f"{path} is not canonical"
    assert_valid(value, schema)
    return value  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------
# Requests


def hello(role: str, id: str = "0", **changes: Any) -> dict[str, Any]:
    request = {"id": id, "method": "hello", "protocols": [1], "role": role, "worker_id": WORKER_ID}
    request.update(changes)
    return request


def materialize(
    output_dir: Path, source_dir: Path, id: str = "1", **changes: Any
) -> dict[str, Any]:
    request = {
        "dataset_parameters": {"rows": 10},
        "dataset_seed": 17,
        "id": id,
        "method": "materialize",
        "output_dir": str(output_dir),
        "source_dir": str(source_dir),
    }
    request.update(changes)
    return request


def prepare(dataset_dir: Path, id: str = "1", **changes: Any) -> dict[str, Any]:
    request = {
        "dataset_dir": str(dataset_dir),
        "id": id,
        "implementation_parameters": {"solver": "fast"},
        "implementation_seed": 23,
        "method": "prepare",
        "problem_contract_id": CONTRACT_ID,
        "problem_parameters": {"lambda": 0.1},
    }
    request.update(changes)
    return request


def execute(result_dir: Path, id: str = "2", **changes: Any) -> dict[str, Any]:
    request = {"id": id, "method": "execute", "result_dir": str(result_dir)}
    request.update(changes)
    return request


def reset(id: str = "3") -> dict[str, Any]:
    return {"id": id, "method": "reset"}


def evaluate(
    dataset_dir: Path, result_dir: Path, metrics_path: Path, id: str = "1", **changes: Any
) -> dict[str, Any]:
    request = {
        "dataset_dir": str(dataset_dir),
        "id": id,
        "method": "evaluate",
        "metrics_path": str(metrics_path),
        "problem_contract_id": CONTRACT_ID,
        "problem_parameters": {"lambda": 0.1},
        "result_dir": str(result_dir),
    }
    request.update(changes)
    return request


def shutdown(id: str = "9") -> dict[str, Any]:
    return {"id": id, "method": "shutdown"}


def encode(requests: list[Any]) -> bytes:
    """Request lines: a dict is written canonically, bytes are sent as they are."""
    return b"".join(
        request if isinstance(request, bytes) else dumps(request) + b"\n" for request in requests
    )


# ---------------------------------------------------------------------------
# Exchanges


@dataclass
class Exchange:
    status: int
    responses: list[dict[str, Any]]
    log: str
    lines: list[bytes] = field(default_factory=list)

    def failure(self, index: int) -> dict[str, Any]:
        response = self.responses[index]
        assert response["ok"] is False, response
        return response["error"]  # type: ignore[no-any-return]


def _checked(output: bytes, requests: list[Any]) -> tuple[list[bytes], list[dict[str, Any]]]:
    lines = output.splitlines(keepends=True)
    assert len(lines) <= len(requests), lines
    # Responses answer requests in order; a request that could not be answered ends the list.
    responses = [
        check_response(line, request) for line, request in zip(lines, requests, strict=False)
    ]
    return lines, responses


def exchange(worker: Any, requests: list[Any]) -> Exchange:
    """Runs ``metewand.serve`` in this process on in-memory streams."""
    import metewand

    output = io.BytesIO()
    log = io.StringIO()
    status = metewand.serve(worker, io.BytesIO(encode(requests)), output, log)
    lines, responses = _checked(output.getvalue(), requests)
    return Exchange(status, responses, log.getvalue(), lines)


def worker_env(**extra: str) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": str(SDK_SRC),
        "LANG": "C.UTF-8",
    }
    env.update(extra)
    return env


def run_process(
    command: list[str], requests: list[Any], env: dict[str, str] | None = None
) -> Exchange:
    """Runs a worker process, sends it every request at once and checks what it answered."""
    completed = subprocess.run(
        command,
        input=encode(requests),
        capture_output=True,
        env=worker_env() if env is None else env,
        timeout=60,
        check=False,
    )
    lines, responses = _checked(completed.stdout, requests)
    return Exchange(completed.returncode, responses, completed.stderr.decode(), lines)


def run_script(name: str, requests: list[Any], **env: str) -> Exchange:
    return run_process([sys.executable, str(WORKERS_DIR / name)], requests, worker_env(**env))
