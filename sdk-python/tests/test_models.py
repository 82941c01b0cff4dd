"""The generated models against the shared vectors in schemas/vectors, and their specific rules.

Every valid vector must decode and re-encode to itself; every schema-level invalid vector (a valid
one with one JSON Patch operation applied) must be refused with ModelError at the location the
vector names. Parser-level vectors hold text that only the restricted-domain parser can refuse, so
they are not the models' to test.
"""

from __future__ import annotations

import copy
import importlib
import json
import math
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from metewand._strict import ModelError, check_array, check_integer, check_string
from metewand.models import artifact_manifest, attempt_record, common
from metewand.models import worker_protocol_message as wpm

REPO_ROOT = Path(__file__).resolve().parents[2]
VECTORS_DIR = REPO_ROOT / "schemas" / "vectors"
MODELS_DIR = REPO_ROOT / "sdk-python" / "src" / "metewand" / "models"

WORKER_ID = "mw1-resolved-worker-" + "7c" * 32
SHA256 = "86ec28828e755bf5cb192729b09c7674987125fdd4278bab834073062fb3af7d"


def _module(schema: str) -> Any:
    return importlib.import_module("metewand.models." + schema.replace("-", "_"))


def _load_vectors() -> tuple[list[Any], list[Any]]:
    valid = []
    invalid = []
    for path in sorted(VECTORS_DIR.glob("*.json")):
        with path.open(encoding="utf-8") as file:
            document = json.load(file)
        schema = document["schema"]
        bases = {vector["name"]: vector for vector in document["valid"]}
        for vector in document["valid"]:
            valid.append(
                pytest.param(
                    schema,
                    vector["definition"],
                    vector["instance"],
                    id=f"{schema}: {vector['name']}",
                )
            )
        for vector in document["invalid"]:
            if vector["level"] != "schema":
                continue
            base = bases[vector["base"]]
            invalid.append(
                pytest.param(
                    schema,
                    base["definition"],
                    base["instance"],
                    vector["change"],
                    vector["error_path"],
                    id=f"{schema}: {vector['name']}",
                )
            )
    return valid, invalid


VALID, INVALID = _load_vectors()


def _pointer_tokens(pointer: str) -> list[str]:
    if pointer == "":
        return []
    assert pointer.startswith("/"), pointer
    return [token.replace("~1", "/").replace("~0", "~") for token in pointer[1:].split("/")]


def _apply_patch(document: Any, operation: dict[str, Any]) -> Any:
    """Applies one RFC 6902 operation (add, replace or remove) to a copy of ``document``."""
    document = copy.deepcopy(document)
    tokens = _pointer_tokens(operation["path"])
    op = operation["op"]
    if not tokens:
        assert op == "replace", operation
        return copy.deepcopy(operation["value"])
    parent = document
    for token in tokens[:-1]:
        parent = parent[int(token)] if isinstance(parent, list) else parent[token]
    last = tokens[-1]
    if isinstance(parent, list):
        if op == "add":
            index = len(parent) if last == "-" else int(last)
            assert 0 <= index <= len(parent), operation
            parent.insert(index, copy.deepcopy(operation["value"]))
        elif op == "replace":
            parent[int(last)] = copy.deepcopy(operation["value"])
        else:
            assert op == "remove", operation
            del parent[int(last)]
    else:
        assert isinstance(parent, dict), operation
        if op == "add":
            parent[last] = copy.deepcopy(operation["value"])
        elif op == "replace":
            assert last in parent, operation
            parent[last] = copy.deepcopy(operation["value"])
        else:
            assert op == "remove" and last in parent, operation
            del parent[last]
    return document


def _same_json(actual: Any, expected: Any) -> bool:
    """JSON equality that tells true from 1; an integral float may come back as its integer."""
    if type(expected) is float:
        if type(actual) is int:
            return expected.is_integer() and actual == expected
        return type(actual) is float and actual == expected
    if type(actual) is not type(expected):
        return False
    if isinstance(expected, list):
        return len(actual) == len(expected) and all(map(_same_json, actual, expected))
    if isinstance(expected, dict):
        return actual.keys() == expected.keys() and all(
            _same_json(actual[key], expected[key]) for key in expected
        )
    return bool(actual == expected)


def _assert_no_floats(model: Any, where: str = "") -> None:
    """A float outside a free-form object or a member the schema types as a number (annotated
    ``float``) is a missed integer."""
    for name in type(model).__slots__:
        annotation = type(model).__annotations__.get(name, "")
        if "float" in annotation:
            continue
        value = getattr(model, name)
        if isinstance(value, list):
            values = value
        elif isinstance(value, dict) and "Any" not in annotation:
            # A map's values; a free-form object's are its own.
            values = list(value.values())
        else:
            values = [value]
        for item in values:
            assert type(item) is not float, f"{where}/{name} holds the float {item!r}"
            if hasattr(type(item), "__slots__"):
                _assert_no_floats(item, f"{where}/{name}")


def _rebuild(model: Any) -> Any:
    """The model built again through its constructor, from its own attributes."""
    return type(model)(**{name: getattr(model, name) for name in type(model).__slots__})


def test_vectors_are_present() -> None:
    names = sorted(path.stem for path in VECTORS_DIR.glob("*.json"))
    modules = sorted(path.stem for path in MODELS_DIR.glob("*.py") if path.stem != "__init__")
    # The table of request methods is generated from the protocol schema's annotations: no schema's own models.
    modules.remove("worker_protocol_methods")
    assert names, f"no vectors in {VECTORS_DIR}"
    assert [name.replace("-", "_") for name in names] == modules
    assert VALID and INVALID


@pytest.mark.parametrize(("schema", "definition", "instance"), VALID)
def test_valid_vector_round_trips(schema: str, definition: str | None, instance: Any) -> None:
    model_class = _module(schema).DEFINITIONS[definition]
    decoded = model_class.from_dict(instance)
    encoded = decoded.to_dict()
    assert _same_json(encoded, instance), f"{encoded!r} != {instance!r}"
    assert list(encoded) == sorted(encoded)
    _assert_no_floats(decoded)
    assert model_class.from_dict(encoded) == decoded
    assert model_class.from_dict(json.loads(json.dumps(encoded, allow_nan=False))) == decoded
    assert _rebuild(decoded) == decoded
    assert repr(decoded).startswith(model_class.__name__ + "(")


@pytest.mark.parametrize(("schema", "definition", "base", "change", "error_path"), INVALID)
def test_invalid_vector_is_refused(
    schema: str, definition: str | None, base: Any, change: dict[str, Any], error_path: str
) -> None:
    model_class = _module(schema).DEFINITIONS[definition]
    instance = _apply_patch(base, change)
    with pytest.raises(ModelError) as raised:
        model_class.from_dict(instance)
    # Each vector has exactly one defect, and the models report it where JSON Schema does: unknown
    # and missing members at their object, uniqueness and minItems at the array, everything else
    # at the value itself.
    assert raised.value.path == error_path, str(raised.value)
    assert raised.value.message and raised.value.message == raised.value.message.rstrip(".")


# Specific rules, on hand-made messages.


def _hello_request(**changes: Any) -> dict[str, Any]:
    message = {
        "id": "0",
        "method": "hello",
        "protocols": [1],
        "role": "implementation",
        "worker_id": WORKER_ID,
    }
    message.update(changes)
    return message


def _materialize_request(**changes: Any) -> dict[str, Any]:
    message: dict[str, Any] = {
        "dataset_parameters": {"rows": 10},
        "dataset_seed": 17,
        "id": "1",
        "method": "materialize",
        "output_dir": "/private/out",
        "source_dir": "/repo/gen",
    }
    message.update(changes)
    return message


def _refused(model_class: Any, data: Any) -> ModelError:
    with pytest.raises(ModelError) as raised:
        model_class.from_dict(data)
    return raised.value


@pytest.mark.parametrize("value", [True, False])
def test_a_boolean_is_never_an_integer(value: bool) -> None:
    error = _refused(wpm.MaterializeRequest, _materialize_request(dataset_seed=value))
    assert error.path == "/dataset_seed"
    assert error.message == f"expected an integer, got {'true' if value else 'false'}"
    hello = {
        "capabilities": [],
        "id": "0",
        "ok": True,
        "protocol": 1,
        "sdk": None,
        "worker_id": WORKER_ID,
    }
    assert _refused(wpm.HelloResponse, {**hello, "protocol": True}).path == "/protocol"
    assert _refused(wpm.HelloResponse, {**hello, "ok": 1}).path == "/ok"
    assert _refused(wpm.HelloRequest, _hello_request(protocols=[True])).path == "/protocols/0"


def test_an_integral_float_is_the_integer_it_equals() -> None:
    request = wpm.MaterializeRequest.from_dict(
        _materialize_request(dataset_seed=json.loads("1.7e1"))
    )
    assert request.dataset_seed == 17 and type(request.dataset_seed) is int
    assert type(request.to_dict()["dataset_seed"]) is int
    hello = wpm.HelloRequest.from_dict(_hello_request(protocols=[1.0, 2]))
    assert [type(p) for p in hello.protocols] == [int, int]
    response = wpm.HelloResponse.from_dict(
        {
            "capabilities": [],
            "id": "0",
            "ok": True,
            "protocol": 1.0,
            "sdk": None,
            "worker_id": WORKER_ID,
        }
    )
    assert response.protocol == 1 and type(response.protocol) is int
    execute = wpm.ExecuteResponse.from_dict(
        {
            "id": "2",
            "implementation_time_ns": 1.8342011e7,
            "ok": True,
            "result": {"manifest": "result.json"},
            "statistics": {"iterations": 37.0},
        }
    )
    assert (
        execute.implementation_time_ns == 18342011 and type(execute.implementation_time_ns) is int
    )
    # Free-form objects are not the schema's to type: their numbers are kept as given.
    assert type(execute.statistics["iterations"]) is float
    record = {"path": "a.csv", "sha256": SHA256, "size": 26214.0}
    assert type(common.FileRecord.from_dict(record).size) is int


@pytest.mark.parametrize(
    "value", [17.5, -0.5, math.inf, -math.inf, math.nan, "17", None, [17], {"value": 17}]
)
def test_a_non_integer_is_refused(value: Any) -> None:
    error = _refused(wpm.MaterializeRequest, _materialize_request(dataset_seed=value))
    assert error.path == "/dataset_seed"
    assert error.message.startswith("expected an integer, got ")


def test_integer_range_messages() -> None:
    error = _refused(wpm.MaterializeRequest, _materialize_request(dataset_seed=9007199254740992))
    assert (
        str(error) == "/dataset_seed: 9007199254740992 is greater than the maximum 9007199254740991"
    )
    error = _refused(wpm.MaterializeRequest, _materialize_request(dataset_seed=1e300))
    assert str(error) == "/dataset_seed: 1e+300 is greater than the maximum 9007199254740991"
    error = _refused(wpm.MaterializeRequest, _materialize_request(dataset_seed=-1))
    assert str(error) == "/dataset_seed: -1 is less than the minimum 0"
    assert wpm.MaterializeRequest.from_dict(_materialize_request(dataset_seed=9007199254740991))


@pytest.mark.parametrize("suffix", ["\n", "\r\n", " ", "\x00"])
def test_a_pattern_must_match_the_whole_string(suffix: str) -> None:
    error = _refused(wpm.HelloRequest, _hello_request(worker_id=WORKER_ID + suffix))
    assert error.path == "/worker_id"
    assert "does not match the pattern" in error.message
    assert (
        _refused(wpm.HelloRequest, _hello_request(worker_id="x" + WORKER_ID)).path == "/worker_id"
    )


def test_patterns_are_ascii_only() -> None:
    assert check_string("0123", "/n", pattern=r"^\d+$") == "0123"
    # ARABIC-INDIC DIGIT ONE and TWO are digits to Unicode, not to JSON Schema's \d.
    with pytest.raises(ModelError):
        check_string("\u0661\u0662", "/n", pattern=r"^\d+$")
    timestamp = "2025-06-03T14:07:12Z"
    assert check_string(
        timestamp, "", pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$"
    )


def test_min_length_counts_code_points() -> None:
    # One code point, but two UTF-16 code units and four UTF-8 bytes.
    with pytest.raises(ModelError, match="shorter than 2 characters"):
        check_string("\U0001f600", "", min_length=2)
    assert check_string("\U0001f600\u00e9", "", min_length=2)
    error = _refused(wpm.HelloRequest, _hello_request(id=""))
    assert str(error) == '/id: "" is shorter than 1 character'


def test_unique_items_compare_json_values() -> None:
    error = _refused(wpm.HelloRequest, _hello_request(protocols=[1, 1.0]))
    assert (error.path, error.message) == ("/protocols", "item 1 repeats item 0")
    hello = {"capabilities": ["one_shot", "one_shot"], "id": "0", "ok": True, "protocol": 1}
    error = _refused(wpm.HelloResponse, {**hello, "sdk": None, "worker_id": WORKER_ID})
    assert error.path == "/capabilities"
    # true is not 1, so it is refused as a type error rather than counted as a duplicate.
    assert _refused(wpm.HelloRequest, _hello_request(protocols=[1, True])).path == "/protocols/1"
    assert check_array([1, 2], "", check_integer, unique=True) == [1, 2]


def test_min_items() -> None:
    error = _refused(wpm.HelloRequest, _hello_request(protocols=[]))
    assert str(error) == "/protocols: expected at least 1 item, got 0"


def test_enums_and_constants() -> None:
    error = _refused(wpm.HelloRequest, _hello_request(role="Implementation"))
    assert error.path == "/role"
    assert error.message.startswith('"Implementation" is not one of "dataset_materializer"')
    error = _refused(wpm.HelloRequest, _hello_request(method="execute"))
    assert str(error) == '/method: expected "hello", got "execute"'
    assert common.ROLE_VALUES == frozenset(
        {"dataset_materializer", "implementation", "problem_evaluator"}
    )


def test_objects_refuse_unknown_and_missing_members() -> None:
    error = _refused(wpm.HelloRequest, _hello_request(extra=1))
    assert (error.path, error.message) == ("", 'unknown property "extra"')
    assert str(error) == 'unknown property "extra"'
    message = _hello_request()
    del message["role"]
    error = _refused(wpm.HelloRequest, message)
    assert (error.path, error.message) == ("", 'missing required property "role"')
    not_objects: list[object] = [None, [], "{}", 1, (("id", "0"),)]
    for not_an_object in not_objects:
        assert _refused(wpm.HelloRequest, not_an_object).path == ""
    nested = {
        "error": {"code": "internal_error", "message": "boom", "stack": "..."},
        "id": "0",
        "ok": False,
    }
    assert _refused(wpm.FailureResponse, nested).path == "/error"
    assert _refused(wpm.FailureResponse, {1: "x"}).message == "unknown property 1"


def test_free_form_objects() -> None:
    error = _refused(wpm.MaterializeRequest, _materialize_request(dataset_parameters={1: "one"}))
    assert error.path == "/dataset_parameters"
    parameters = {"rows": 10, "nested": {"a": [1, 2]}}
    request = wpm.MaterializeRequest.from_dict(_materialize_request(dataset_parameters=parameters))
    parameters["rows"] = 11  # a shallow copy: the model does not see later changes to the top level
    assert request.dataset_parameters["rows"] == 10


def test_absent_and_empty_free_form_objects_stay_apart() -> None:
    base: dict[str, Any] = {
        "error": {"code": "operation_failed", "message": "did not converge"},
        "id": "3",
        "ok": False,
    }
    without = wpm.FailureResponse.from_dict(base)
    assert without.error.details is None
    assert "details" not in without.to_dict()["error"]
    with_empty = wpm.FailureResponse.from_dict({**base, "error": {**base["error"], "details": {}}})
    assert with_empty.error.details == {}
    assert with_empty.to_dict()["error"]["details"] == {}
    assert without != with_empty
    assert _refused(
        wpm.FailureResponse, {**base, "error": {**base["error"], "details": None}}
    ).path == ("/error/details")


def test_nullable_members_are_always_encoded() -> None:
    message = {
        "id": "2",
        "implementation_time_ns": None,
        "ok": True,
        "result": {"manifest": "result.json"},
        "statistics": {},
    }
    encoded = wpm.ExecuteResponse.from_dict(message).to_dict()
    assert encoded == message and "implementation_time_ns" in encoded
    del message["implementation_time_ns"]
    assert (
        _refused(wpm.ExecuteResponse, message).message
        == 'missing required property "implementation_time_ns"'
    )


def test_to_dict_orders_members_by_name() -> None:
    manifest = artifact_manifest.ArtifactManifest(
        data={},
        files=[common.FileRecord(path="a", sha256=SHA256, size=1)],
        schema="urn:x",
    )
    assert list(manifest.to_dict()) == ["complete", "data", "files", "schema"]
    assert list(manifest.to_dict()["files"][0]) == ["path", "sha256", "size"]
    assert list(artifact_manifest.ArtifactManifest(data={}, files=[]).to_dict()) == [
        "complete",
        "data",
        "files",
    ]


def test_constructors_check_their_arguments() -> None:
    request = wpm.HelloRequest(id="0", protocols=[1], role="implementation", worker_id=WORKER_ID)
    assert request.method == "hello"
    assert request == wpm.HelloRequest.from_dict(_hello_request())
    assert request != wpm.HelloRequest.from_dict(_hello_request(id="1"))
    with pytest.raises(ModelError) as raised:
        wpm.HelloRequest(id="", protocols=[1], role="implementation", worker_id=WORKER_ID)
    assert raised.value.path == "/id"
    with pytest.raises(TypeError):
        wpm.HelloRequest("0", [1], "implementation", WORKER_ID)  # type: ignore
    # A nested model is given as an instance, not as a dict.
    with pytest.raises(ModelError) as raised:
        wpm.MaterializeResponse(id="1", dataset={"manifest": "m.json"})  # type: ignore[arg-type]
    assert raised.value.path == "/dataset"
    response = wpm.MaterializeResponse(
        id="1", dataset=wpm.ManifestRef(manifest="dataset-manifest.json")
    )
    assert response.to_dict() == {
        "dataset": {"manifest": "dataset-manifest.json"},
        "id": "1",
        "ok": True,
    }
    with pytest.raises(ModelError) as raised:
        artifact_manifest.ArtifactManifest(data={}, files=[{"path": "a"}])  # type: ignore[list-item]
    assert raised.value.path == "/files/0"
    assert repr(response) == (
        "MaterializeResponse(dataset=ManifestRef(manifest='dataset-manifest.json'), "
        "id='1', ok=True)"
    )


def test_model_error() -> None:
    error = ModelError("/a~1b/0", "expected a string, got 1")
    assert isinstance(error, ValueError)
    assert (error.path, error.message, str(error)) == (
        "/a~1b/0",
        "expected a string, got 1",
        "/a~1b/0: expected a string, got 1",
    )
    copied = pickle.loads(pickle.dumps(error))
    assert (copied.path, copied.message) == (error.path, error.message)


def test_definitions() -> None:
    assert attempt_record.DEFINITIONS[None] is attempt_record.AttemptRecord
    assert artifact_manifest.DEFINITIONS[None] is artifact_manifest.ArtifactManifest
    assert None not in wpm.DEFINITIONS  # the protocol's root is a union, decoded by definition
    assert wpm.DEFINITIONS["hello_request"] is wpm.HelloRequest
    assert attempt_record.DEFINITIONS["worker_session"] is attempt_record.WorkerSession
    for module in (artifact_manifest, attempt_record, wpm):
        for name, model_class in module.DEFINITIONS.items():
            assert callable(model_class.from_dict) and callable(model_class.to_dict), name
            # A member named like a Python keyword is the attribute with a trailing underscore.
            members = {slot.removesuffix("_") if slot == "continue_" else slot for slot in model_class.__slots__}
            assert members == model_class._PROPERTIES, name


def test_a_member_named_like_a_keyword_is_an_attribute_with_a_trailing_underscore() -> None:
    answer = wpm.CheckpointAnswer(checkpoint=3, continue_=False, id="2")
    assert answer.to_dict() == {"checkpoint": 3, "continue": False, "id": "2"}
    decoded = wpm.CheckpointAnswer.from_dict({"checkpoint": 3, "continue": True, "id": "2"})
    assert decoded.continue_ is True
    with pytest.raises(ModelError) as raised:
        wpm.CheckpointAnswer.from_dict({"checkpoint": 3, "continue_": True, "id": "2"})
    assert raised.value.path == ""
    with pytest.raises(ModelError) as raised:
        wpm.CheckpointAnswer(checkpoint=3, continue_="yes", id="2")  # type: ignore[arg-type]
    assert raised.value.path == "/continue"
    assert repr(answer) == "CheckpointAnswer(checkpoint=3, continue_=False, id='2')"


def test_literal_aliases_are_built_on_demand() -> None:
    from typing import Literal

    assert common.Role == Literal["dataset_materializer", "implementation", "problem_evaluator"]
    outcomes = tuple(attempt_record.OUTCOME_VALUES)
    assert attempt_record.Outcome == Literal[outcomes]  # type: ignore[valid-type]
    with pytest.raises(AttributeError):
        _ = wpm.NoSuchName  # type: ignore[attr-defined]


def test_generated_files_say_so() -> None:
    for path in sorted(MODELS_DIR.glob("*.py")):
        first_line = path.read_text(encoding="utf-8").splitlines()[0]
        assert first_line.startswith("# Generated from schemas/"), path
        assert "do not edit" in first_line and "cargo xtask codegen" in first_line, path


def test_importing_the_models_stays_cheap() -> None:
    # -S leaves out site, which in some environments imports typing or re itself.
    code = (
        "import sys; before = set(sys.modules); import metewand.models.worker_protocol_message, "
        "metewand.models.attempt_record; print(sorted(set(sys.modules) - before))"
    )
    result = subprocess.run(
        [sys.executable, "-S", "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(REPO_ROOT / "sdk-python" / "src")},
    )
    loaded = json.loads(result.stdout.replace("'", '"'))
    assert [name for name in loaded if not name.startswith(("metewand", "__future__"))] == []
