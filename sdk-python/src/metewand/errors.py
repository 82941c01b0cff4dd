"""The failure a worker reports on purpose: ``WorkerError`` and its four codes.

Raising ``WorkerError`` from a worker's method answers the request with a structured failure that
carries the error's code, message and details. Any other exception raised there is answered as an
``internal_error`` instead, with its traceback written to stderr.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "FAILURE_CODES",
    "INTERNAL_ERROR",
    "INVALID_REQUEST",
    "InvalidResult",
    "OPERATION_FAILED",
    "UNSUPPORTED_OPERATION",
    "WorkerError",
]

INVALID_REQUEST = "invalid_request"
"""The request cannot be carried out as written (for example, what it points at is unusable)."""

UNSUPPORTED_OPERATION = "unsupported_operation"
"""The worker does not do what was asked (another role, another protocol version)."""

OPERATION_FAILED = "operation_failed"
"""The work was attempted and failed: the usual code for a scientific failure."""

INTERNAL_ERROR = "internal_error"
"""The worker itself went wrong; the SDK uses it for every exception other than WorkerError."""

FAILURE_CODES = (INVALID_REQUEST, UNSUPPORTED_OPERATION, OPERATION_FAILED, INTERNAL_ERROR)
"""The four failure codes of protocol version 1."""


class InvalidResult(Exception):
    """Raised from ``evaluate`` when the result does not answer the problem: a file it names is not
    in it, its data has the wrong shape. The SDK answers with the verdict ``invalid`` and the
    evaluator's ``invalid_metrics``, and logs the reason: the implementation's fault, recorded as
    its result's verdict, not as the evaluator's failure::

        path = result.require(result.data["solution"])  # InvalidResult when the file is missing
    """


class WorkerError(Exception):
    """A failure a worker reports on purpose, with one of the four codes of ``FAILURE_CODES``.

    Raised from ``materialize``, ``prepare``, ``execute``, ``reset`` or ``evaluate``, it becomes
    the request's failure response: ``code``, ``message`` (nonempty) and, when given, ``details``
    (a dict of JSON values, for example the state a solver reached)::

        raise WorkerError("operation_failed", "the solver did not converge", {"iterations": 100})
    """

    code: str
    message: str
    details: dict[str, Any] | None

    def __init__(self, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        if code not in FAILURE_CODES:
            expected = ", ".join(FAILURE_CODES)
            raise ValueError(f"unknown failure code {code!r}; expected one of {expected}")
        if not isinstance(message, str) or not message:
            raise ValueError(f"a failure message must be a nonempty string, got {message!r}")
        if details is not None and not isinstance(details, dict):
            raise TypeError(f"failure details must be a dict or None, got {type(details).__name__}")
        super().__init__(code, message, details)
        self.code = code
        self.message = message
        self.details = details

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"
