# Generated from schemas/worker-protocol-message.schema.json by codegen; do not edit. Regenerate with: cargo xtask codegen
"""Metewand worker protocol message, version 1.

Every request the orchestrator sends and every response a worker returns in protocol version 1,
with the checkpoint exchange nested in an execute_stream request. A message is decoded as the
definition its session expects, never as a guess among these. Each request definition also says
which roles accept it (x-accepted-by), the definition of its success response (x-response), the
phase it runs when that is not named after its method (x-phase) and the capability a worker
reports when it serves it (x-capability): annotations that validators ignore, from which the
table of request methods is generated.

Each class checks its constructor's arguments, decodes parsed JSON strictly with from_dict
(raising ModelError with the JSON Pointer of the first value the schema refuses) and encodes with
to_dict. DEFINITIONS maps the schema's definition names to the classes.
"""

from __future__ import annotations

from metewand._strict import (
    ModelError,
    check_array,
    check_boolean,
    check_const,
    check_json_object,
    check_model,
    check_object,
    check_string,
)
from metewand.models.common import (
    SdkInfo,
    _capability,
    _failure_code,
    _message,
    _role,
    _safe_uint,
    _verdict,
    _worker_id,
)

# Annotations are strings (see the __future__ import), so typing is needed only by type checkers.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal
    from metewand.models.common import Capability, FailureCode, Role, Verdict

__all__ = [
    "AckResponse",
    "CheckpointAnswer",
    "CheckpointMessage",
    "DEFINITIONS",
    "EvaluateRequest",
    "EvaluateResponse",
    "ExecuteRequest",
    "ExecuteResponse",
    "ExecuteStreamRequest",
    "Failure",
    "FailureResponse",
    "HelloRequest",
    "HelloResponse",
    "ManifestRef",
    "MaterializeRequest",
    "MaterializeResponse",
    "ModelError",
    "PrepareRequest",
    "ResetRequest",
    "ShutdownRequest",
]


def _path(value: object, path: str) -> str:
    """A nonempty filesystem path."""
    return check_string(value, path, min_length=1)


def _problem_contract_ref(value: object, path: str) -> str:
    """How a request names the problem contract: any nonempty string on the wire (the normative
    examples use mw1-problem-contract-abc). Metewand sends the problem_contract_id it generated.
    """
    return check_string(value, path, min_length=1)


def _request_id(value: object, path: str) -> str:
    """A session-local request identifier, repeated by the response."""
    return check_string(value, path, min_length=1)


class AckResponse:
    """The common acknowledgment of prepare, reset and shutdown."""

    __slots__ = ("id", "ok")

    id: str
    """A session-local request identifier, repeated by the response."""

    ok: Literal[True]

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("id", "ok")

    def __init__(self, *, id: str, ok: Literal[True] = True) -> None:
        self.id = _request_id(id, "/id")
        self.ok = check_const(ok, "/ok", True)

    @classmethod
    def from_dict(cls, data: object) -> AckResponse:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> AckResponse:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.id = _request_id(fields["id"], path + "/id")
        model.ok = check_const(fields["ok"], path + "/ok", True)
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {"id": self.id, "ok": self.ok}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AckResponse):
            return NotImplemented
        return self.id == other.id and self.ok == other.ok

    def __repr__(self) -> str:
        return f"AckResponse(id={self.id!r}, ok={self.ok!r})"


class CheckpointAnswer:
    """Answers a checkpoint of the pending execute_stream request, repeating its id and number:
    whether the worker may go on. After continue false the worker ends the stream.
    """

    __slots__ = ("checkpoint", "continue_", "id")

    checkpoint: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    continue_: bool

    id: str
    """A session-local request identifier, repeated by the response."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(("checkpoint", "continue", "id"))
    _REQUIRED = ("checkpoint", "continue", "id")

    def __init__(self, *, checkpoint: int, continue_: bool, id: str) -> None:
        self.checkpoint = _safe_uint(checkpoint, "/checkpoint")
        self.continue_ = check_boolean(continue_, "/continue")
        self.id = _request_id(id, "/id")

    @classmethod
    def from_dict(cls, data: object) -> CheckpointAnswer:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> CheckpointAnswer:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.checkpoint = _safe_uint(fields["checkpoint"], path + "/checkpoint")
        model.continue_ = check_boolean(fields["continue"], path + "/continue")
        model.id = _request_id(fields["id"], path + "/id")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {"checkpoint": self.checkpoint, "continue": self.continue_, "id": self.id}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CheckpointAnswer):
            return NotImplemented
        return (
            self.checkpoint == other.checkpoint
            and self.continue_ == other.continue_
            and self.id == other.id
        )

    def __repr__(self) -> str:
        return (
            f"CheckpointAnswer(checkpoint={self.checkpoint!r}, continue_={self.continue_!r}, "
            f"id={self.id!r})"
        )


class CheckpointMessage:
    """Sent while an execute_stream request is pending, with its id: checkpoint n (1, then one more
    each time) is complete, its manifest at checkpoints/<n>/result.json under the result
    directory. The worker then waits for the answer.
    """

    __slots__ = ("checkpoint", "id", "result")

    checkpoint: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    id: str
    """A session-local request identifier, repeated by the response."""

    result: ManifestRef
    """Where a worker left its manifest, relative to the assigned output directory."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("checkpoint", "id", "result")

    def __init__(self, *, checkpoint: int, id: str, result: ManifestRef) -> None:
        self.checkpoint = _safe_uint(checkpoint, "/checkpoint")
        self.id = _request_id(id, "/id")
        self.result = check_model(result, "/result", ManifestRef)

    @classmethod
    def from_dict(cls, data: object) -> CheckpointMessage:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> CheckpointMessage:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.checkpoint = _safe_uint(fields["checkpoint"], path + "/checkpoint")
        model.id = _request_id(fields["id"], path + "/id")
        model.result = ManifestRef._decode(fields["result"], path + "/result")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {"checkpoint": self.checkpoint, "id": self.id, "result": self.result.to_dict()}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CheckpointMessage):
            return NotImplemented
        return (
            self.checkpoint == other.checkpoint
            and self.id == other.id
            and self.result == other.result
        )

    def __repr__(self) -> str:
        return (
            f"CheckpointMessage(checkpoint={self.checkpoint!r}, id={self.id!r}, "
            f"result={self.result!r})"
        )


class EvaluateRequest:
    """Asks a problem evaluator to judge a result and write its metrics document."""

    __slots__ = (
        "dataset_dir",
        "id",
        "method",
        "metrics_path",
        "problem_contract_id",
        "problem_parameters",
        "result_dir",
    )

    dataset_dir: str
    """A nonempty filesystem path."""

    id: str
    """A session-local request identifier, repeated by the response."""

    method: Literal["evaluate"]

    metrics_path: str
    """A nonempty filesystem path."""

    problem_contract_id: str
    """How a request names the problem contract: any nonempty string on the wire (the normative
    examples use mw1-problem-contract-abc). Metewand sends the problem_contract_id it generated.
    """

    problem_parameters: dict[str, Any]
    """A JSON object whose members this schema does not constrain."""

    result_dir: str
    """A nonempty filesystem path."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = (
        "dataset_dir",
        "id",
        "method",
        "metrics_path",
        "problem_contract_id",
        "problem_parameters",
        "result_dir",
    )

    def __init__(
        self,
        *,
        dataset_dir: str,
        id: str,
        method: Literal["evaluate"] = "evaluate",
        metrics_path: str,
        problem_contract_id: str,
        problem_parameters: dict[str, Any],
        result_dir: str,
    ) -> None:
        self.dataset_dir = _path(dataset_dir, "/dataset_dir")
        self.id = _request_id(id, "/id")
        self.method = check_const(method, "/method", "evaluate")
        self.metrics_path = _path(metrics_path, "/metrics_path")
        self.problem_contract_id = _problem_contract_ref(
            problem_contract_id, "/problem_contract_id"
        )
        self.problem_parameters = check_json_object(problem_parameters, "/problem_parameters")
        self.result_dir = _path(result_dir, "/result_dir")

    @classmethod
    def from_dict(cls, data: object) -> EvaluateRequest:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> EvaluateRequest:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.dataset_dir = _path(fields["dataset_dir"], path + "/dataset_dir")
        model.id = _request_id(fields["id"], path + "/id")
        model.method = check_const(fields["method"], path + "/method", "evaluate")
        model.metrics_path = _path(fields["metrics_path"], path + "/metrics_path")
        model.problem_contract_id = _problem_contract_ref(
            fields["problem_contract_id"], path + "/problem_contract_id"
        )
        model.problem_parameters = check_json_object(
            fields["problem_parameters"], path + "/problem_parameters"
        )
        model.result_dir = _path(fields["result_dir"], path + "/result_dir")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {
            "dataset_dir": self.dataset_dir,
            "id": self.id,
            "method": self.method,
            "metrics_path": self.metrics_path,
            "problem_contract_id": self.problem_contract_id,
            "problem_parameters": dict(self.problem_parameters),
            "result_dir": self.result_dir,
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, EvaluateRequest):
            return NotImplemented
        return (
            self.dataset_dir == other.dataset_dir
            and self.id == other.id
            and self.method == other.method
            and self.metrics_path == other.metrics_path
            and self.problem_contract_id == other.problem_contract_id
            and self.problem_parameters == other.problem_parameters
            and self.result_dir == other.result_dir
        )

    def __repr__(self) -> str:
        return (
            f"EvaluateRequest(dataset_dir={self.dataset_dir!r}, id={self.id!r}, "
            f"method={self.method!r}, metrics_path={self.metrics_path!r}, "
            f"problem_contract_id={self.problem_contract_id!r}, "
            f"problem_parameters={self.problem_parameters!r}, result_dir={self.result_dir!r})"
        )


class EvaluateResponse:
    """The evaluator's verdict, returned after it has written the metrics document."""

    __slots__ = ("id", "ok", "verdict")

    id: str
    """A session-local request identifier, repeated by the response."""

    ok: Literal[True]

    verdict: Verdict
    """The problem-owned verdict on an implementation's result."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("id", "ok", "verdict")

    def __init__(self, *, id: str, ok: Literal[True] = True, verdict: Verdict) -> None:
        self.id = _request_id(id, "/id")
        self.ok = check_const(ok, "/ok", True)
        self.verdict = _verdict(verdict, "/verdict")

    @classmethod
    def from_dict(cls, data: object) -> EvaluateResponse:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> EvaluateResponse:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.id = _request_id(fields["id"], path + "/id")
        model.ok = check_const(fields["ok"], path + "/ok", True)
        model.verdict = _verdict(fields["verdict"], path + "/verdict")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {"id": self.id, "ok": self.ok, "verdict": self.verdict}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, EvaluateResponse):
            return NotImplemented
        return self.id == other.id and self.ok == other.ok and self.verdict == other.verdict

    def __repr__(self) -> str:
        return f"EvaluateResponse(id={self.id!r}, ok={self.ok!r}, verdict={self.verdict!r})"


class ExecuteRequest:
    """Asks a prepared implementation to solve the problem, writing its result in the assigned
    directory.
    """

    __slots__ = ("id", "method", "result_dir")

    id: str
    """A session-local request identifier, repeated by the response."""

    method: Literal["execute"]

    result_dir: str
    """A nonempty filesystem path."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("id", "method", "result_dir")

    def __init__(self, *, id: str, method: Literal["execute"] = "execute", result_dir: str) -> None:
        self.id = _request_id(id, "/id")
        self.method = check_const(method, "/method", "execute")
        self.result_dir = _path(result_dir, "/result_dir")

    @classmethod
    def from_dict(cls, data: object) -> ExecuteRequest:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> ExecuteRequest:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.id = _request_id(fields["id"], path + "/id")
        model.method = check_const(fields["method"], path + "/method", "execute")
        model.result_dir = _path(fields["result_dir"], path + "/result_dir")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {"id": self.id, "method": self.method, "result_dir": self.result_dir}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ExecuteRequest):
            return NotImplemented
        return (
            self.id == other.id
            and self.method == other.method
            and self.result_dir == other.result_dir
        )

    def __repr__(self) -> str:
        return (
            f"ExecuteRequest(id={self.id!r}, method={self.method!r}, "
            f"result_dir={self.result_dir!r})"
        )


class ExecuteResponse:
    """Names the result manifest and carries diagnostic statistics and the worker's own timing, or
    null.
    """

    __slots__ = ("id", "implementation_time_ns", "ok", "result", "statistics")

    id: str
    """A session-local request identifier, repeated by the response."""

    implementation_time_ns: int | None
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    ok: Literal[True]

    result: ManifestRef
    """Where a worker left its manifest, relative to the assigned output directory."""

    statistics: dict[str, Any]
    """A JSON object whose members this schema does not constrain."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("id", "implementation_time_ns", "ok", "result", "statistics")

    def __init__(
        self,
        *,
        id: str,
        implementation_time_ns: int | None,
        ok: Literal[True] = True,
        result: ManifestRef,
        statistics: dict[str, Any],
    ) -> None:
        self.id = _request_id(id, "/id")
        self.implementation_time_ns = (
            None
            if implementation_time_ns is None
            else _safe_uint(implementation_time_ns, "/implementation_time_ns")
        )
        self.ok = check_const(ok, "/ok", True)
        self.result = check_model(result, "/result", ManifestRef)
        self.statistics = check_json_object(statistics, "/statistics")

    @classmethod
    def from_dict(cls, data: object) -> ExecuteResponse:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> ExecuteResponse:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.id = _request_id(fields["id"], path + "/id")
        model.implementation_time_ns = (
            None
            if fields["implementation_time_ns"] is None
            else _safe_uint(fields["implementation_time_ns"], path + "/implementation_time_ns")
        )
        model.ok = check_const(fields["ok"], path + "/ok", True)
        model.result = ManifestRef._decode(fields["result"], path + "/result")
        model.statistics = check_json_object(fields["statistics"], path + "/statistics")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {
            "id": self.id,
            "implementation_time_ns": self.implementation_time_ns,
            "ok": self.ok,
            "result": self.result.to_dict(),
            "statistics": dict(self.statistics),
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ExecuteResponse):
            return NotImplemented
        return (
            self.id == other.id
            and self.implementation_time_ns == other.implementation_time_ns
            and self.ok == other.ok
            and self.result == other.result
            and self.statistics == other.statistics
        )

    def __repr__(self) -> str:
        return (
            f"ExecuteResponse(id={self.id!r}, "
            f"implementation_time_ns={self.implementation_time_ns!r}, ok={self.ok!r}, "
            f"result={self.result!r}, statistics={self.statistics!r})"
        )


class ExecuteStreamRequest:
    """Asks a prepared implementation that reported streaming_profile to solve the problem like
    execute, sending at most max_checkpoints checkpoints on the way and waiting for each answer.
    The stream ends with an execute response or a failure.
    """

    __slots__ = ("id", "max_checkpoints", "method", "result_dir")

    id: str
    """A session-local request identifier, repeated by the response."""

    max_checkpoints: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    method: Literal["execute_stream"]

    result_dir: str
    """A nonempty filesystem path."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("id", "max_checkpoints", "method", "result_dir")

    def __init__(
        self,
        *,
        id: str,
        max_checkpoints: int,
        method: Literal["execute_stream"] = "execute_stream",
        result_dir: str,
    ) -> None:
        self.id = _request_id(id, "/id")
        self.max_checkpoints = _safe_uint(max_checkpoints, "/max_checkpoints")
        self.method = check_const(method, "/method", "execute_stream")
        self.result_dir = _path(result_dir, "/result_dir")

    @classmethod
    def from_dict(cls, data: object) -> ExecuteStreamRequest:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> ExecuteStreamRequest:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.id = _request_id(fields["id"], path + "/id")
        model.max_checkpoints = _safe_uint(fields["max_checkpoints"], path + "/max_checkpoints")
        model.method = check_const(fields["method"], path + "/method", "execute_stream")
        model.result_dir = _path(fields["result_dir"], path + "/result_dir")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {
            "id": self.id,
            "max_checkpoints": self.max_checkpoints,
            "method": self.method,
            "result_dir": self.result_dir,
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ExecuteStreamRequest):
            return NotImplemented
        return (
            self.id == other.id
            and self.max_checkpoints == other.max_checkpoints
            and self.method == other.method
            and self.result_dir == other.result_dir
        )

    def __repr__(self) -> str:
        return (
            f"ExecuteStreamRequest(id={self.id!r}, max_checkpoints={self.max_checkpoints!r}, "
            f"method={self.method!r}, result_dir={self.result_dir!r})"
        )


class Failure:
    """A structured failure reported by a worker."""

    __slots__ = ("code", "details", "message")

    code: FailureCode
    """A worker-owned failure code."""

    details: dict[str, Any] | None
    """A JSON object whose members this schema does not constrain."""

    message: str
    """A message for the reader: what failed, in words."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("code", "message")

    def __init__(
        self, *, code: FailureCode, details: dict[str, Any] | None = None, message: str
    ) -> None:
        self.code = _failure_code(code, "/code")
        self.details = None if details is None else check_json_object(details, "/details")
        self.message = _message(message, "/message")

    @classmethod
    def from_dict(cls, data: object) -> Failure:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Failure:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.code = _failure_code(fields["code"], path + "/code")
        if "details" in fields:
            model.details = check_json_object(fields["details"], path + "/details")
        else:
            model.details = None
        model.message = _message(fields["message"], path + "/message")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        data: dict[str, Any] = {"code": self.code}
        if self.details is not None:
            data["details"] = dict(self.details)
        data["message"] = self.message
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Failure):
            return NotImplemented
        return (
            self.code == other.code
            and self.details == other.details
            and self.message == other.message
        )

    def __repr__(self) -> str:
        return f"Failure(code={self.code!r}, details={self.details!r}, message={self.message!r})"


class FailureResponse:
    """A structured failure, valid in answer to any request."""

    __slots__ = ("error", "id", "ok")

    error: Failure
    """A structured failure reported by a worker."""

    id: str
    """A session-local request identifier, repeated by the response."""

    ok: Literal[False]

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("error", "id", "ok")

    def __init__(self, *, error: Failure, id: str, ok: Literal[False] = False) -> None:
        self.error = check_model(error, "/error", Failure)
        self.id = _request_id(id, "/id")
        self.ok = check_const(ok, "/ok", False)

    @classmethod
    def from_dict(cls, data: object) -> FailureResponse:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> FailureResponse:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.error = Failure._decode(fields["error"], path + "/error")
        model.id = _request_id(fields["id"], path + "/id")
        model.ok = check_const(fields["ok"], path + "/ok", False)
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {"error": self.error.to_dict(), "id": self.id, "ok": self.ok}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FailureResponse):
            return NotImplemented
        return self.error == other.error and self.id == other.id and self.ok == other.ok

    def __repr__(self) -> str:
        return f"FailureResponse(error={self.error!r}, id={self.id!r}, ok={self.ok!r})"


class HelloRequest:
    """Opens a session: fixes the role and the resolved worker identity and offers protocol
    versions.
    """

    __slots__ = ("id", "method", "protocols", "role", "worker_id")

    id: str
    """A session-local request identifier, repeated by the response."""

    method: Literal["hello"]

    protocols: list[int]
    """Protocol versions offered by the orchestrator: at least one, each at most once."""

    role: Role
    """The role a worker process serves."""

    worker_id: str
    """A resolved worker identity."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("id", "method", "protocols", "role", "worker_id")

    def __init__(
        self,
        *,
        id: str,
        method: Literal["hello"] = "hello",
        protocols: list[int],
        role: Role,
        worker_id: str,
    ) -> None:
        self.id = _request_id(id, "/id")
        self.method = check_const(method, "/method", "hello")
        self.protocols = check_array(protocols, "/protocols", _safe_uint, min_items=1, unique=True)
        self.role = _role(role, "/role")
        self.worker_id = _worker_id(worker_id, "/worker_id")

    @classmethod
    def from_dict(cls, data: object) -> HelloRequest:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> HelloRequest:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.id = _request_id(fields["id"], path + "/id")
        model.method = check_const(fields["method"], path + "/method", "hello")
        model.protocols = check_array(
            fields["protocols"], path + "/protocols", _safe_uint, min_items=1, unique=True
        )
        model.role = _role(fields["role"], path + "/role")
        model.worker_id = _worker_id(fields["worker_id"], path + "/worker_id")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {
            "id": self.id,
            "method": self.method,
            "protocols": list(self.protocols),
            "role": self.role,
            "worker_id": self.worker_id,
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HelloRequest):
            return NotImplemented
        return (
            self.id == other.id
            and self.method == other.method
            and self.protocols == other.protocols
            and self.role == other.role
            and self.worker_id == other.worker_id
        )

    def __repr__(self) -> str:
        return (
            f"HelloRequest(id={self.id!r}, method={self.method!r}, protocols={self.protocols!r}, "
            f"role={self.role!r}, worker_id={self.worker_id!r})"
        )


class HelloResponse:
    """Selects protocol 1, repeats the resolved worker identity and reports the worker's SDK and
    capabilities.
    """

    __slots__ = ("capabilities", "id", "ok", "protocol", "sdk", "worker_id")

    capabilities: list[Capability]
    """Capability names, each at most once."""

    id: str
    """A session-local request identifier, repeated by the response."""

    ok: Literal[True]

    protocol: Literal[1]

    sdk: SdkInfo | None
    """The worker SDK that answered hello, by package name and version."""

    worker_id: str
    """A resolved worker identity."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("capabilities", "id", "ok", "protocol", "sdk", "worker_id")

    def __init__(
        self,
        *,
        capabilities: list[Capability],
        id: str,
        ok: Literal[True] = True,
        protocol: Literal[1] = 1,
        sdk: SdkInfo | None,
        worker_id: str,
    ) -> None:
        self.capabilities = check_array(capabilities, "/capabilities", _capability, unique=True)
        self.id = _request_id(id, "/id")
        self.ok = check_const(ok, "/ok", True)
        self.protocol = check_const(protocol, "/protocol", 1)
        self.sdk = None if sdk is None else check_model(sdk, "/sdk", SdkInfo)
        self.worker_id = _worker_id(worker_id, "/worker_id")

    @classmethod
    def from_dict(cls, data: object) -> HelloResponse:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> HelloResponse:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.capabilities = check_array(
            fields["capabilities"], path + "/capabilities", _capability, unique=True
        )
        model.id = _request_id(fields["id"], path + "/id")
        model.ok = check_const(fields["ok"], path + "/ok", True)
        model.protocol = check_const(fields["protocol"], path + "/protocol", 1)
        model.sdk = None if fields["sdk"] is None else SdkInfo._decode(fields["sdk"], path + "/sdk")
        model.worker_id = _worker_id(fields["worker_id"], path + "/worker_id")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {
            "capabilities": list(self.capabilities),
            "id": self.id,
            "ok": self.ok,
            "protocol": self.protocol,
            "sdk": None if self.sdk is None else self.sdk.to_dict(),
            "worker_id": self.worker_id,
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HelloResponse):
            return NotImplemented
        return (
            self.capabilities == other.capabilities
            and self.id == other.id
            and self.ok == other.ok
            and self.protocol == other.protocol
            and self.sdk == other.sdk
            and self.worker_id == other.worker_id
        )

    def __repr__(self) -> str:
        return (
            f"HelloResponse(capabilities={self.capabilities!r}, id={self.id!r}, ok={self.ok!r}, "
            f"protocol={self.protocol!r}, sdk={self.sdk!r}, worker_id={self.worker_id!r})"
        )


class ManifestRef:
    """Where a worker left its manifest, relative to the assigned output directory."""

    __slots__ = ("manifest",)

    manifest: str
    """A nonempty filesystem path."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("manifest",)

    def __init__(self, *, manifest: str) -> None:
        self.manifest = _path(manifest, "/manifest")

    @classmethod
    def from_dict(cls, data: object) -> ManifestRef:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> ManifestRef:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.manifest = _path(fields["manifest"], path + "/manifest")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {"manifest": self.manifest}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ManifestRef):
            return NotImplemented
        return self.manifest == other.manifest

    def __repr__(self) -> str:
        return f"ManifestRef(manifest={self.manifest!r})"


class MaterializeRequest:
    """Asks a dataset materializer to build a dataset in its assigned output directory."""

    __slots__ = ("dataset_parameters", "dataset_seed", "id", "method", "output_dir", "source_dir")

    dataset_parameters: dict[str, Any]
    """A JSON object whose members this schema does not constrain."""

    dataset_seed: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    id: str
    """A session-local request identifier, repeated by the response."""

    method: Literal["materialize"]

    output_dir: str
    """A nonempty filesystem path."""

    source_dir: str
    """A nonempty filesystem path."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("dataset_parameters", "dataset_seed", "id", "method", "output_dir", "source_dir")

    def __init__(
        self,
        *,
        dataset_parameters: dict[str, Any],
        dataset_seed: int,
        id: str,
        method: Literal["materialize"] = "materialize",
        output_dir: str,
        source_dir: str,
    ) -> None:
        self.dataset_parameters = check_json_object(dataset_parameters, "/dataset_parameters")
        self.dataset_seed = _safe_uint(dataset_seed, "/dataset_seed")
        self.id = _request_id(id, "/id")
        self.method = check_const(method, "/method", "materialize")
        self.output_dir = _path(output_dir, "/output_dir")
        self.source_dir = _path(source_dir, "/source_dir")

    @classmethod
    def from_dict(cls, data: object) -> MaterializeRequest:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> MaterializeRequest:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.dataset_parameters = check_json_object(
            fields["dataset_parameters"], path + "/dataset_parameters"
        )
        model.dataset_seed = _safe_uint(fields["dataset_seed"], path + "/dataset_seed")
        model.id = _request_id(fields["id"], path + "/id")
        model.method = check_const(fields["method"], path + "/method", "materialize")
        model.output_dir = _path(fields["output_dir"], path + "/output_dir")
        model.source_dir = _path(fields["source_dir"], path + "/source_dir")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {
            "dataset_parameters": dict(self.dataset_parameters),
            "dataset_seed": self.dataset_seed,
            "id": self.id,
            "method": self.method,
            "output_dir": self.output_dir,
            "source_dir": self.source_dir,
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MaterializeRequest):
            return NotImplemented
        return (
            self.dataset_parameters == other.dataset_parameters
            and self.dataset_seed == other.dataset_seed
            and self.id == other.id
            and self.method == other.method
            and self.output_dir == other.output_dir
            and self.source_dir == other.source_dir
        )

    def __repr__(self) -> str:
        return (
            f"MaterializeRequest(dataset_parameters={self.dataset_parameters!r}, "
            f"dataset_seed={self.dataset_seed!r}, id={self.id!r}, method={self.method!r}, "
            f"output_dir={self.output_dir!r}, source_dir={self.source_dir!r})"
        )


class MaterializeResponse:
    """Names the dataset manifest beneath the assigned output directory."""

    __slots__ = ("dataset", "id", "ok")

    dataset: ManifestRef
    """Where a worker left its manifest, relative to the assigned output directory."""

    id: str
    """A session-local request identifier, repeated by the response."""

    ok: Literal[True]

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("dataset", "id", "ok")

    def __init__(self, *, dataset: ManifestRef, id: str, ok: Literal[True] = True) -> None:
        self.dataset = check_model(dataset, "/dataset", ManifestRef)
        self.id = _request_id(id, "/id")
        self.ok = check_const(ok, "/ok", True)

    @classmethod
    def from_dict(cls, data: object) -> MaterializeResponse:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> MaterializeResponse:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.dataset = ManifestRef._decode(fields["dataset"], path + "/dataset")
        model.id = _request_id(fields["id"], path + "/id")
        model.ok = check_const(fields["ok"], path + "/ok", True)
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {"dataset": self.dataset.to_dict(), "id": self.id, "ok": self.ok}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MaterializeResponse):
            return NotImplemented
        return self.dataset == other.dataset and self.id == other.id and self.ok == other.ok

    def __repr__(self) -> str:
        return f"MaterializeResponse(dataset={self.dataset!r}, id={self.id!r}, ok={self.ok!r})"


class PrepareRequest:
    """Gives an implementation all attempt-specific state before it executes."""

    __slots__ = (
        "dataset_dir",
        "id",
        "implementation_parameters",
        "implementation_seed",
        "method",
        "problem_contract_id",
        "problem_parameters",
    )

    dataset_dir: str
    """A nonempty filesystem path."""

    id: str
    """A session-local request identifier, repeated by the response."""

    implementation_parameters: dict[str, Any]
    """A JSON object whose members this schema does not constrain."""

    implementation_seed: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    method: Literal["prepare"]

    problem_contract_id: str
    """How a request names the problem contract: any nonempty string on the wire (the normative
    examples use mw1-problem-contract-abc). Metewand sends the problem_contract_id it generated.
    """

    problem_parameters: dict[str, Any]
    """A JSON object whose members this schema does not constrain."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = (
        "dataset_dir",
        "id",
        "implementation_parameters",
        "implementation_seed",
        "method",
        "problem_contract_id",
        "problem_parameters",
    )

    def __init__(
        self,
        *,
        dataset_dir: str,
        id: str,
        implementation_parameters: dict[str, Any],
        implementation_seed: int,
        method: Literal["prepare"] = "prepare",
        problem_contract_id: str,
        problem_parameters: dict[str, Any],
    ) -> None:
        self.dataset_dir = _path(dataset_dir, "/dataset_dir")
        self.id = _request_id(id, "/id")
        self.implementation_parameters = check_json_object(
            implementation_parameters, "/implementation_parameters"
        )
        self.implementation_seed = _safe_uint(implementation_seed, "/implementation_seed")
        self.method = check_const(method, "/method", "prepare")
        self.problem_contract_id = _problem_contract_ref(
            problem_contract_id, "/problem_contract_id"
        )
        self.problem_parameters = check_json_object(problem_parameters, "/problem_parameters")

    @classmethod
    def from_dict(cls, data: object) -> PrepareRequest:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> PrepareRequest:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.dataset_dir = _path(fields["dataset_dir"], path + "/dataset_dir")
        model.id = _request_id(fields["id"], path + "/id")
        model.implementation_parameters = check_json_object(
            fields["implementation_parameters"], path + "/implementation_parameters"
        )
        model.implementation_seed = _safe_uint(
            fields["implementation_seed"], path + "/implementation_seed"
        )
        model.method = check_const(fields["method"], path + "/method", "prepare")
        model.problem_contract_id = _problem_contract_ref(
            fields["problem_contract_id"], path + "/problem_contract_id"
        )
        model.problem_parameters = check_json_object(
            fields["problem_parameters"], path + "/problem_parameters"
        )
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {
            "dataset_dir": self.dataset_dir,
            "id": self.id,
            "implementation_parameters": dict(self.implementation_parameters),
            "implementation_seed": self.implementation_seed,
            "method": self.method,
            "problem_contract_id": self.problem_contract_id,
            "problem_parameters": dict(self.problem_parameters),
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PrepareRequest):
            return NotImplemented
        return (
            self.dataset_dir == other.dataset_dir
            and self.id == other.id
            and self.implementation_parameters == other.implementation_parameters
            and self.implementation_seed == other.implementation_seed
            and self.method == other.method
            and self.problem_contract_id == other.problem_contract_id
            and self.problem_parameters == other.problem_parameters
        )

    def __repr__(self) -> str:
        return (
            f"PrepareRequest(dataset_dir={self.dataset_dir!r}, id={self.id!r}, "
            f"implementation_parameters={self.implementation_parameters!r}, "
            f"implementation_seed={self.implementation_seed!r}, method={self.method!r}, "
            f"problem_contract_id={self.problem_contract_id!r}, "
            f"problem_parameters={self.problem_parameters!r})"
        )


class ResetRequest:
    """Asks an implementation to forget the prepared attempt."""

    __slots__ = ("id", "method")

    id: str
    """A session-local request identifier, repeated by the response."""

    method: Literal["reset"]

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("id", "method")

    def __init__(self, *, id: str, method: Literal["reset"] = "reset") -> None:
        self.id = _request_id(id, "/id")
        self.method = check_const(method, "/method", "reset")

    @classmethod
    def from_dict(cls, data: object) -> ResetRequest:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> ResetRequest:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.id = _request_id(fields["id"], path + "/id")
        model.method = check_const(fields["method"], path + "/method", "reset")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {"id": self.id, "method": self.method}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ResetRequest):
            return NotImplemented
        return self.id == other.id and self.method == other.method

    def __repr__(self) -> str:
        return f"ResetRequest(id={self.id!r}, method={self.method!r})"


class ShutdownRequest:
    """The final request of every session."""

    __slots__ = ("id", "method")

    id: str
    """A session-local request identifier, repeated by the response."""

    method: Literal["shutdown"]

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("id", "method")

    def __init__(self, *, id: str, method: Literal["shutdown"] = "shutdown") -> None:
        self.id = _request_id(id, "/id")
        self.method = check_const(method, "/method", "shutdown")

    @classmethod
    def from_dict(cls, data: object) -> ShutdownRequest:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> ShutdownRequest:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.id = _request_id(fields["id"], path + "/id")
        model.method = check_const(fields["method"], path + "/method", "shutdown")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {"id": self.id, "method": self.method}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ShutdownRequest):
            return NotImplemented
        return self.id == other.id and self.method == other.method

    def __repr__(self) -> str:
        return f"ShutdownRequest(id={self.id!r}, method={self.method!r})"


# The class of each definition in the schema, by its name under $defs (None for the root).
DEFINITIONS: dict[str | None, type] = {
    "ack_response": AckResponse,
    "checkpoint_answer": CheckpointAnswer,
    "checkpoint_message": CheckpointMessage,
    "evaluate_request": EvaluateRequest,
    "evaluate_response": EvaluateResponse,
    "execute_request": ExecuteRequest,
    "execute_response": ExecuteResponse,
    "execute_stream_request": ExecuteStreamRequest,
    "failure": Failure,
    "failure_response": FailureResponse,
    "hello_request": HelloRequest,
    "hello_response": HelloResponse,
    "manifest_ref": ManifestRef,
    "materialize_request": MaterializeRequest,
    "materialize_response": MaterializeResponse,
    "prepare_request": PrepareRequest,
    "reset_request": ResetRequest,
    "shutdown_request": ShutdownRequest,
}
