# Generated from schemas/worker-protocol-message.schema.json by codegen; do not edit. Regenerate with: cargo xtask codegen
"""Metewand worker protocol request methods, from schemas/worker-protocol-message.schema.json.

Which roles accept each request method, the phase its request runs, the capability a worker reports
when it serves it, and the definitions of its request and of its success response (a failure
response answers any request), read from the annotations of the request definitions (x-accepted-by,
x-response, x-phase, x-capability).
"""

from __future__ import annotations

from metewand.models.worker_protocol_message import (
    AckResponse,
    EvaluateRequest,
    EvaluateResponse,
    ExecuteRequest,
    ExecuteResponse,
    ExecuteStreamRequest,
    HelloRequest,
    HelloResponse,
    MaterializeRequest,
    MaterializeResponse,
    PrepareRequest,
    ResetRequest,
    ShutdownRequest,
)

# Annotations are strings (see the __future__ import), so typing is needed only by type checkers.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any
    from metewand.models.common import Capability, Phase

__all__ = [
    "CAPABILITIES",
    "PHASES",
    "REQUESTS",
    "REQUEST_METHODS",
    "RESPONSES",
    "ROLE_METHODS",
]

# Every request method, in the order of the schema's anyOf.
REQUEST_METHODS: tuple[str, ...] = (
    "hello",
    "materialize",
    "prepare",
    "execute",
    "execute_stream",
    "reset",
    "evaluate",
    "shutdown",
)

# The methods a worker of each role accepts (x-accepted-by), in the order of REQUEST_METHODS.
ROLE_METHODS: dict[str, tuple[str, ...]] = {
    "dataset_materializer": ("hello", "materialize", "shutdown"),
    "implementation": ("hello", "prepare", "execute", "execute_stream", "reset", "shutdown"),
    "problem_evaluator": ("hello", "evaluate", "shutdown"),
}

# The phase each method's request runs (x-phase, or the phase named after the method).
PHASES: dict[str, Phase] = {
    "hello": "hello",
    "materialize": "materialize",
    "prepare": "prepare",
    "execute": "execute",
    "execute_stream": "execute",
    "reset": "reset",
    "evaluate": "evaluate",
    "shutdown": "shutdown",
}

# The capability a worker reports to serve a method (x-capability), for the methods that need one.
CAPABILITIES: dict[str, Capability] = {
    "execute_stream": "streaming_profile",
}

# The model of each method's request.
REQUESTS: dict[str, Any] = {
    "hello": HelloRequest,
    "materialize": MaterializeRequest,
    "prepare": PrepareRequest,
    "execute": ExecuteRequest,
    "execute_stream": ExecuteStreamRequest,
    "reset": ResetRequest,
    "evaluate": EvaluateRequest,
    "shutdown": ShutdownRequest,
}

# The model of each method's success response (x-response); a FailureResponse answers any.
RESPONSES: dict[str, Any] = {
    "hello": HelloResponse,
    "materialize": MaterializeResponse,
    "prepare": AckResponse,
    "execute": ExecuteResponse,
    "execute_stream": ExecuteResponse,
    "reset": AckResponse,
    "evaluate": EvaluateResponse,
    "shutdown": AckResponse,
}
