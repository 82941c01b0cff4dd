"""Workers in Python: a base class per role, and the loop that serves one over the protocol.

A worker subclasses ``Materializer``, ``Implementation`` or ``Evaluator``, overrides the methods of
its role, and hands an instance to ``run``::

    import metewand

    class Solver(metewand.Implementation):
        def prepare(self, dataset, parameters, seed, problem):
            self.points = dataset.path("points.csv").read_text().split()

        def execute(self, result):
            result.write_text("answer.txt", str(len(self.points)))
            result.data = {"count": len(self.points)}
            return {"iterations": 1}

    if __name__ == "__main__":
        metewand.run(Solver())

``run`` answers ``hello`` (checking the role asked for, echoing the worker id, reporting the SDK and
its capabilities), decodes each request strictly, calls the worker, writes the manifests and the
metrics document, times ``execute``, and turns exceptions into failure responses. It also protects
the protocol: standard output (file descriptor 1) is pointed at standard error, so ``print``,
``os.write(1, ...)``, C extensions and subprocesses cannot write into the protocol stream, and
standard input (descriptor 0) is pointed at ``/dev/null``, so none of them can read requests
meant for the SDK.

``serve`` runs the same loop on streams it is given, without touching the process's descriptors,
for tests and embedding.

Exit statuses: 0 after ``shutdown``; 1 when the request stream ends without ``shutdown`` or the
response stream is closed; 2 when a request cannot be answered (no usable id) or the stream breaks
the framing rules (a line over 1 MiB, bytes after the last line feed).

After ``shutdown``, ``run`` ends an implementation or an evaluator without the interpreter's
finalization (``os._exit``, once the ``atexit`` handlers ran and the standard streams were
flushed): what they answer with is on disk before the answer (an implementation's result is
sealed then; an evaluator's metrics are the document the SDK wrote), and the teardown of a large
import such as numpy's is spared at every session's end. Threads of the worker's own are not
waited for then, and code around the call (a ``finally`` clause, a ``with`` block's exit) does not
run: put what must run at the end in an ``atexit`` handler. A materializer, whose dataset is
checked after its process ended, exits as any Python program does.
"""

from __future__ import annotations

import abc
import os
import sys
from time import perf_counter_ns

from . import __version__
from ._strict import ModelError
from .canonical import CanonicalJSONError, dumps, parse
from .errors import INTERNAL_ERROR, INVALID_REQUEST, UNSUPPORTED_OPERATION, InvalidResult, WorkerError
from .frames import FrameError, FrameReader, encode_message
from .models import common as _common
from .models import worker_protocol_message as _messages
from .models import worker_protocol_methods as _methods

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import IO, Any, BinaryIO, ClassVar, Literal, NoReturn, TextIO

    from .artifacts import Artifact, Output
    from .models.common import Capability, Verdict

__all__ = [
    "EXIT_END_OF_INPUT",
    "EXIT_SHUTDOWN",
    "EXIT_UNANSWERABLE",
    "PROTOCOL_VERSION",
    "SDK_NAME",
    "Evaluator",
    "Implementation",
    "Materializer",
    "Problem",
    "Worker",
    "run",
    "serve",
]

SDK_NAME = "metewand-python"
"""The name the SDK reports in ``hello``, beside its version."""

PROTOCOL_VERSION: Literal[1] = 1
"""The one protocol version this SDK speaks."""

EXIT_SHUTDOWN = 0
"""Exit status after a ``shutdown`` request was acknowledged."""

EXIT_END_OF_INPUT = 1
"""Exit status when the requests end without ``shutdown``, or responses cannot be written."""

EXIT_UNANSWERABLE = 2
"""Exit status after a request without a usable id, or a framing error on the request stream."""

# Longest message the SDK makes from an exception; a failure message is one readable line.
_MESSAGE_LIMIT = 1000
# Longest message an author's WorkerError keeps, so that its response stays far below 1 MiB.
_AUTHOR_MESSAGE_LIMIT = 65536


# ---------------------------------------------------------------------------
# What authors write


class Problem:
    """The problem an attempt is posed: its contract id and its parameters."""

    __slots__ = ("contract_id", "parameters")

    contract_id: str
    """The problem contract's identity (``mw1-problem-contract-...``)."""

    parameters: dict[str, Any]
    """The problem's parameters, as the problem's parameters schema validated them."""

    def __init__(self, contract_id: str, parameters: dict[str, Any]) -> None:
        self.contract_id = contract_id
        self.parameters = parameters

    def __repr__(self) -> str:
        return f"Problem({self.contract_id!r}, {self.parameters!r})"


class Worker(abc.ABC):
    """What the roles share; subclass ``Materializer``, ``Implementation`` or ``Evaluator``."""

    role: ClassVar[str]
    """The role this worker serves, as ``hello`` names it."""

    capabilities: ClassVar[tuple[Capability, ...]] = ()
    """The capabilities reported in ``hello``."""

    schema: str | None = None
    """The ``$id`` of the schema the worker's output claims (the dataset's output schema, the
    problem's result schema or its metric schema), written into the manifest or metrics document.
    None leaves it out, and Metewand uses the schema the repository selected."""


class Materializer(Worker):
    """A dataset materializer: builds a dataset from its parameters and seed.

    Override ``materialize``; the SDK writes ``dataset-manifest.json`` (with ``"complete": true``)
    once it returns::

        class Points(metewand.Materializer):
            def materialize(self, source_dir, parameters, seed, output):
                rng = random.Random(seed)
                rows = parameters.get("rows", 100)
                with output.open("points.csv") as file:
                    for _ in range(rows):
                        file.write(f"{rng.random()},{rng.random()}\\n")
                output.data = {"rows": rows}

        metewand.run(Points())
    """

    role = "dataset_materializer"

    @abc.abstractmethod
    def materialize(
        self, source_dir: Path, parameters: dict[str, Any], seed: int, output: Output
    ) -> None:
        """Writes the dataset's files into ``output`` and sets ``output.data``.

        ``source_dir`` is the worker's own source directory (a private copy), ``parameters`` the
        dataset parameters and ``seed`` the dataset seed (0 to 2**53 - 1). Raise WorkerError to
        report a failure.
        """


class Implementation(Worker):
    """An implementation: solves the problem on a dataset.

    Override ``prepare`` and ``execute`` (and ``reset`` if ``prepare`` leaves state that must not
    outlive an attempt). The SDK times ``execute`` and writes ``result.json`` once it returns::

        class Solver(metewand.Implementation):
            def prepare(self, dataset, parameters, seed, problem):
                self.points = load(dataset.path("points.csv"))
                self.tolerance = problem.parameters["tolerance"]

            def execute(self, result):
                answer, iterations = solve(self.points, self.tolerance)
                result.write_json("answer.json", answer)
                result.data = {"objective": answer["objective"]}
                return {"iterations": iterations}

        metewand.run(Solver())
    """

    role = "implementation"
    capabilities = ("one_shot",)

    @abc.abstractmethod
    def prepare(
        self, dataset: Artifact, parameters: dict[str, Any], seed: int, problem: Problem
    ) -> None:
        """Gets ready for ``execute``: everything an attempt needs arrives here.

        ``dataset`` is the dataset (its directory and parsed manifest), ``parameters`` the
        implementation parameters, ``seed`` the implementation seed (0 to 2**53 - 1) and
        ``problem`` the problem's contract id and parameters. Raise WorkerError to report a
        failure.
        """

    @abc.abstractmethod
    def execute(self, result: Output) -> dict[str, Any] | None:
        """Solves the problem, writing the result into ``result`` and setting ``result.data``.

        Returns diagnostic statistics (a dict of JSON values, or None for none). The SDK measures
        the time this method takes and reports it as ``implementation_time_ns``. Raise
        WorkerError to report a failure.
        """

    def execute_stream(
        self, result: Output, checkpoint: Callable[[], bool]
    ) -> dict[str, Any] | None:
        """Solves the problem as ``execute`` does, handing over the points of its convergence
        profile on the way; override it to stream (the worker then reports ``streaming_profile``).

        Whenever what ``result`` holds (its files and ``result.data``) is an answer worth judging,
        call ``checkpoint()``: the SDK copies it into ``checkpoints/<n>/`` of the result directory,
        tells Metewand, and blocks until Metewand has sealed it and answers. The clock is stopped
        while it waits. ``checkpoint()`` returns whether to go on: on False, return (the last
        allowed checkpoint, or a budget nearly spent), and calling it again is an error. What
        ``result`` holds when the method returns is the final result, judged as ``execute``'s::

            def execute_stream(self, result, checkpoint):
                x = self.start
                for iteration in range(self.iterations):
                    x = self.step(x)
                    result.data = {"x": x}
                    if iteration % 10 == 9 and not checkpoint():
                        break
                result.data = {"x": x}

        The copy is made inside the timed window, so keep a checkpoint's files small. The default
        does not stream.
        """
        raise NotImplementedError("this implementation does not stream")

    def reset(self) -> None:
        """Forgets what ``prepare`` set up, so the process can serve another attempt.

        The default does nothing.
        """


class Evaluator(Worker):
    """A problem evaluator: judges an implementation's result on a dataset.

    Override ``evaluate``, returning the verdict and the metrics; the SDK writes the metrics
    document::

        class Judge(metewand.Evaluator):
            def evaluate(self, dataset, result, problem):
                error = abs(result.data["objective"] - dataset.data["optimum"])
                verdict = "reached" if error <= problem.parameters["tolerance"] else "not_reached"
                return verdict, {"error": error}

        metewand.run(Judge())
    """

    role = "problem_evaluator"

    @abc.abstractmethod
    def evaluate(
        self, dataset: Artifact, result: Artifact, problem: Problem
    ) -> tuple[Verdict, dict[str, Any]]:
        """Judges ``result`` on ``dataset`` and returns ``(verdict, metrics)``.

        The verdict is ``"reached"``, ``"not_reached"``, ``"invalid"`` (the result does not
        answer the problem) or ``"not_required"``; the metrics are a dict of JSON values. Raise
        WorkerError to report a failure, or InvalidResult (``result.require`` raises it for a file
        the result does not have) to judge the result ``invalid``.
        """

    def invalid_metrics(self, problem: Problem, reason: str) -> dict[str, Any]:
        """The metrics of a result judged ``invalid`` by an ``InvalidResult``: they must satisfy the
        problem's metric schema. The default is ``{}``; override it when the schema requires members.
        """
        return {}


# ---------------------------------------------------------------------------
# Running a worker


def run(worker: Worker | type[Worker]) -> NoReturn:
    """Serves ``worker`` on standard input and output until ``shutdown``, then exits.

    ``worker`` is a ``Materializer``, ``Implementation`` or ``Evaluator`` subclass, which is
    then instantiated with no arguments once stdout is protected (so its ``__init__`` may print
    freely), or an instance of one. Call it as early as possible in the worker's script: output
    written before it may already have reached the protocol stream. Never returns; the exit
    status is 0 after ``shutdown`` (see the module documentation for the others).
    """
    _check_worker(worker)
    requests, responses = _take_standard_streams()
    status = serve(worker, requests, responses, sys.stderr)
    if status == EXIT_SHUTDOWN and _complete_at_answer(worker):
        _leave(status)
    sys.exit(status)


def serve(
    worker: Worker | type[Worker],
    requests: BinaryIO,
    responses: BinaryIO,
    log: TextIO | None = None,
) -> int:
    """Serves ``worker`` on the given binary streams until ``shutdown``; returns the exit status.

    ``worker`` is as for ``run``. Requests are read from ``requests`` and each response is written
    to ``responses`` and flushed. Diagnostics (tracebacks, the reason the loop stopped) go to
    ``log``, by default ``sys.stderr``. Unlike ``run``, this leaves the process's standard
    streams alone.
    """
    _check_worker(worker)
    if isinstance(worker, type):
        worker = worker()
    if log is None:
        log = sys.stderr
    reader = FrameReader(requests)
    session = _Session(worker, responses, log, reader)
    while True:
        try:
            line = reader.read_frame()
        except FrameError as error:
            _log(log, f"metewand: cannot read the next request: {error}; exiting with status 2")
            return EXIT_UNANSWERABLE
        if line is None:
            _log(log, "metewand: the requests ended without shutdown; exiting with status 1")
            return EXIT_END_OF_INPUT
        try:
            status = session.handle(line)
        except _ResponsesClosed as error:
            _log(log, f"metewand: cannot write a response: {error}; exiting with status 1")
            return EXIT_END_OF_INPUT
        except _StreamLost as lost:
            _log(log, f"metewand: {lost}; exiting with status {lost.status}")
            return lost.status
        if status is not None:
            return status


def _check_worker(worker: object) -> None:
    roles = (Materializer, Implementation, Evaluator)
    if isinstance(worker, roles) or (isinstance(worker, type) and issubclass(worker, roles)):
        return
    what = f"the class {worker.__name__}" if isinstance(worker, type) else type(worker).__name__
    raise TypeError(
        "a worker is a metewand.Materializer, metewand.Implementation or metewand.Evaluator "
        f"subclass or an instance of one, not {what}"
    )


def _complete_at_answer(worker: Worker | type[Worker]) -> bool:
    """Whether ``worker``'s output is complete at its answer: an implementation's result (sealed
    then), an evaluator's metrics (the document the SDK wrote)."""
    roles = (Implementation, Evaluator)
    return isinstance(worker, roles) or (isinstance(worker, type) and issubclass(worker, roles))


def _leave(status: int) -> NoReturn:
    """Ends the process after an acknowledged ``shutdown`` without the interpreter's finalization.

    Tearing down the modules of an interpreter that imported numpy takes about 8 ms, at every
    session's end; an implementation's or evaluator's output is on disk before its answer. The
    exit handlers (``atexit``, ``logging``'s flush among them) still run and the standard streams
    are flushed; other threads are not waited for.
    """
    import atexit

    try:
        atexit._run_exitfuncs()
    except BaseException:  # a handler's exit or error changes nothing: the status is shutdown's
        pass
    _flush(sys.stdout, sys.stderr)
    os._exit(status)


def _flush(*streams: IO[str] | None) -> None:
    """Flushes each of ``streams`` that exists; one that is closed or broken is left as it is."""
    for stream in streams:
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass


def _take_standard_streams() -> tuple[BinaryIO, BinaryIO]:
    """Moves the protocol to private descriptors and points fd 0 at /dev/null, fd 1 at stderr."""
    try:
        # os.dup makes descriptors that subprocesses do not inherit (PEP 446), so the protocol's
        # ends stay with this process alone.
        protocol_in = os.dup(0)
        protocol_out = os.dup(1)
    except OSError as error:
        _log(sys.stderr, f"metewand: cannot take standard input and output: {error}")
        sys.exit(EXIT_UNANSWERABLE)
    try:
        os.dup2(2, 1)
    except OSError:  # no stderr at all: what would have gone there is dropped
        _point_at_devnull(1, os.O_WRONLY)
    # Text that print() left buffered before this point now goes to stderr too.
    _flush(sys.stdout, sys.__stdout__)
    sys.stdout = sys.stderr
    _point_at_devnull(0, os.O_RDONLY)
    requests = open(protocol_in, "rb")
    responses = open(protocol_out, "wb")
    return requests, responses


def _point_at_devnull(descriptor: int, flags: int) -> None:
    null = os.open(os.devnull, flags)
    try:
        os.dup2(null, descriptor)
    finally:
        os.close(null)


def _log(log: IO[str], line: str) -> None:
    try:
        log.write(line + "\n")
        log.flush()
    except (OSError, ValueError):  # stderr is closed; nothing else can be done with the line
        pass


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _printable(text: str) -> str:
    """``text`` without lone surrogates (from undecodable file names), which JSON cannot carry."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def _describe_exception(error: BaseException) -> str:
    """``Type: first line of the message``, the one line an internal_error carries."""
    lines = str(error).strip().splitlines()
    name = type(error).__qualname__
    return f"{name}: {lines[0].strip()}" if lines else name


class _ResponsesClosed(Exception):
    """The response stream refused a write; nothing more can be answered."""


class _StreamLost(BaseException):
    """A checkpoint's answer could not be read: the stream of requests broke or ended. A
    ``BaseException``, so that an author's ``except Exception`` around ``checkpoint()`` cannot
    swallow it: nothing more can be answered."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class _Misuse(Exception):
    """A worker broke a rule of the SDK (a wrong return value, say); answered as internal_error
    with this message alone, since a traceback into the SDK would not help."""


# ---------------------------------------------------------------------------
# The session


class _Session:
    """One worker's side of a protocol session: state and one handler per request, ``_<method>``
    for each method the generated table of request methods gives the worker's role."""

    def __init__(
        self, worker: Worker, responses: BinaryIO, log: TextIO, requests: FrameReader
    ) -> None:
        self._worker = worker
        self._requests = requests
        self._role = worker.role
        self._responses = responses
        self._log = log
        self._greeted = False
        self._prepared = False
        self._shutting_down = False
        self._operations: dict[str, Any] = {
            method: getattr(self, "_" + method) for method in _methods.ROLE_METHODS[self._role]
        }

    def handle(self, line: bytes) -> int | None:
        """Answers one request line; returns the exit status once the loop must end."""
        try:
            request = parse(line)
        except CanonicalJSONError as error:
            return self._unanswerable(f"the line is not json the protocol accepts: {error}")
        if type(request) is not dict:
            return self._unanswerable("the message is not a json object")
        request_id = request.get("id")
        if request_id is None:
            return self._unanswerable(
                "the request has no id" if "id" not in request else "the request's id is null"
            )
        if type(request_id) is not str:
            return self._unanswerable("the request's id is not a string")
        if not request_id:
            return self._unanswerable("the request's id is empty")

        method: Any = request.get("method")
        operation = self._operations.get(method) if type(method) is str else None
        if operation is None:
            response = self._refuse(request_id, method, "method" in request)
        else:
            response = self._answer(request_id, method, operation, request)
        self._send(response)
        # Only an acknowledged shutdown ends the loop; a malformed one was answered as such.
        return EXIT_SHUTDOWN if self._shutting_down else None

    def _unanswerable(self, reason: str) -> int:
        _log(
            self._log,
            f"metewand: cannot answer a request without a usable id: {reason}; "
            "exiting with status 2",
        )
        return EXIT_UNANSWERABLE

    def _refuse(self, request_id: str, method: object, present: bool) -> bytes:
        if not present:
            return self._failure(request_id, INVALID_REQUEST, "the request has no method")
        if type(method) is not str:
            return self._failure(
                request_id, INVALID_REQUEST, "the request's method is not a string"
            )
        if method in _methods.REQUESTS:
            return self._failure(
                request_id,
                UNSUPPORTED_OPERATION,
                f"this worker serves the {self._role} role, which has no {method} request",
            )
        return self._failure(request_id, INVALID_REQUEST, f"unknown method {_quote(method)}")

    def _answer(
        self, request_id: str, method: str, operation: Any, request: dict[str, Any]
    ) -> bytes:
        try:
            if not self._greeted and method != "hello" and method != "shutdown":
                raise WorkerError(INVALID_REQUEST, f"{method} before hello")
            try:
                message = _methods.REQUESTS[method].from_dict(request)
            except ModelError as error:
                raise WorkerError(INVALID_REQUEST, f"invalid {method} request: {error}") from None
            response = operation(message).to_dict()
            try:
                return encode_message(response)
            except (CanonicalJSONError, FrameError) as error:
                raise _Misuse(f"the {method} response cannot be sent: {error}") from None
        except WorkerError as error:
            return self._failure(request_id, error.code, error.message, error.details)
        except _Misuse as error:
            message = _clip(f"{method} failed: {error}", _MESSAGE_LIMIT)
            _log(self._log, f"metewand: {message}")
            return self._failure(request_id, INTERNAL_ERROR, message)
        except Exception as error:
            message = _clip(f"{method} failed: {_describe_exception(error)}", _MESSAGE_LIMIT)
            self._log_traceback(message, error)
            return self._failure(request_id, INTERNAL_ERROR, message)

    def _failure(
        self,
        request_id: str,
        code: str,
        message: str,
        details: dict[str, Any] | None = None,
    ) -> bytes:
        message = _clip(_printable(message), _AUTHOR_MESSAGE_LIMIT)
        error: dict[str, Any] = {"code": code, "message": message}
        if details is not None:
            error["details"] = details
        try:
            return encode_message({"error": error, "id": request_id, "ok": False})
        except (CanonicalJSONError, FrameError) as problem:
            # The failure still gets through, without the details that could not.
            _log(self._log, f"metewand: failure details left out: {problem}")
            error.pop("details", None)
            error["message"] = _clip(f"{message} (details left out: {problem})", _MESSAGE_LIMIT)
            return encode_message({"error": error, "id": request_id, "ok": False})

    def _send(self, line: bytes) -> None:
        try:
            self._responses.write(line)
            self._responses.flush()
        except (OSError, ValueError) as error:
            raise _ResponsesClosed(str(error)) from None

    def _log_traceback(self, message: str, error: BaseException) -> None:
        import traceback

        try:
            self._log.write(f"metewand: {message} (answered internal_error); traceback:\n")
            traceback.print_exception(type(error), error, error.__traceback__, file=self._log)
            self._log.flush()
        except (OSError, ValueError):
            pass

    # -- one handler per request; each returns the response model or raises

    def _hello(self, request: _messages.HelloRequest) -> Any:
        if self._greeted:
            raise WorkerError(INVALID_REQUEST, "hello was already answered")
        if request.role != self._role:
            raise WorkerError(
                UNSUPPORTED_OPERATION,
                f"this worker serves the {self._role} role, not {request.role}",
            )
        if PROTOCOL_VERSION not in request.protocols:
            offered = ", ".join(str(version) for version in request.protocols)
            raise WorkerError(
                UNSUPPORTED_OPERATION,
                f"this worker speaks protocol version {PROTOCOL_VERSION}, which was not "
                f"offered (offered: {offered})",
            )
        self._greeted = True
        _preload(_streams(self._worker))
        return _messages.HelloResponse(
            capabilities=_capabilities(self._worker),
            id=request.id,
            protocol=PROTOCOL_VERSION,
            sdk=_common.SdkInfo(name=SDK_NAME, version=__version__),
            worker_id=request.worker_id,
        )

    def _shutdown(self, request: _messages.ShutdownRequest) -> Any:
        self._shutting_down = True
        return _messages.AckResponse(id=request.id)

    def _materialize(self, request: _messages.MaterializeRequest) -> Any:
        from pathlib import Path

        from .artifacts import DATASET_MANIFEST, Output, write_dataset_manifest

        worker: Materializer = self._worker  # type: ignore[assignment]
        output = Output(request.output_dir, DATASET_MANIFEST)
        returned = worker.materialize(
            Path(request.source_dir), request.dataset_parameters, request.dataset_seed, output
        )
        if returned is not None:
            raise _Misuse(
                f"materialize returned a {type(returned).__name__}; it should return None and "
                "put the manifest's data in output.data"
            )
        _finish(output, write_dataset_manifest, worker.schema)
        return _messages.MaterializeResponse(
            dataset=_messages.ManifestRef(manifest=DATASET_MANIFEST), id=request.id
        )

    def _prepare(self, request: _messages.PrepareRequest) -> Any:
        from .artifacts import read_dataset

        worker: Implementation = self._worker  # type: ignore[assignment]
        # A failed prepare leaves nothing to execute.
        self._prepared = False
        dataset = _read_input(read_dataset, request.dataset_dir)
        problem = Problem(request.problem_contract_id, request.problem_parameters)
        worker.prepare(
            dataset, request.implementation_parameters, request.implementation_seed, problem
        )
        self._prepared = True
        return _messages.AckResponse(id=request.id)

    def _execute(self, request: _messages.ExecuteRequest) -> Any:
        from .artifacts import RESULT_MANIFEST, Output, write_result_manifest

        worker: Implementation = self._worker  # type: ignore[assignment]
        if not self._prepared:
            raise WorkerError(INVALID_REQUEST, "execute needs a successful prepare first")
        output = Output(request.result_dir, RESULT_MANIFEST)
        started = perf_counter_ns()
        statistics = worker.execute(output)
        elapsed = perf_counter_ns() - started
        statistics = _check_statistics(statistics)
        _finish(output, write_result_manifest, worker.schema)
        return _messages.ExecuteResponse(
            id=request.id,
            implementation_time_ns=min(elapsed, 2**53 - 1),
            result=_messages.ManifestRef(manifest=RESULT_MANIFEST),
            statistics=statistics,
        )

    def _execute_stream(self, request: _messages.ExecuteStreamRequest) -> Any:
        from .artifacts import RESULT_MANIFEST, Output, write_result_manifest

        worker: Implementation = self._worker  # type: ignore[assignment]
        if not _streams(worker):
            raise WorkerError(
                UNSUPPORTED_OPERATION, "this implementation does not stream: it has no execute_stream"
            )
        if not self._prepared:
            raise WorkerError(INVALID_REQUEST, "execute_stream needs a successful prepare first")
        output = Output(request.result_dir, RESULT_MANIFEST)
        stream = _Stream(self, request, output, worker.schema)
        started = perf_counter_ns()
        statistics = worker.execute_stream(output, stream.checkpoint)
        # The waits for the answers are Metewand's sealing, not the implementation's work.
        elapsed = perf_counter_ns() - started - stream.waited_ns
        statistics = _check_statistics(statistics)
        output.close_files()
        _output_step(write_result_manifest, output.dir, output.data, schema=worker.schema, streamed=True)
        return _messages.ExecuteResponse(
            id=request.id,
            implementation_time_ns=min(elapsed, 2**53 - 1),
            result=_messages.ManifestRef(manifest=RESULT_MANIFEST),
            statistics=statistics,
        )

    def _reset(self, request: _messages.ResetRequest) -> Any:
        self._prepared = False
        self._worker.reset()  # type: ignore[attr-defined]
        return _messages.AckResponse(id=request.id)

    def _evaluate(self, request: _messages.EvaluateRequest) -> Any:
        from .artifacts import read_dataset, read_result, write_metrics

        worker: Evaluator = self._worker  # type: ignore[assignment]
        dataset = _read_input(read_dataset, request.dataset_dir)
        result = _read_input(read_result, request.result_dir)
        problem = Problem(request.problem_contract_id, request.problem_parameters)
        try:
            evaluation = worker.evaluate(dataset, result, problem)
        except InvalidResult as invalid:
            reason = str(invalid) or "the result does not answer the problem"
            _log(self._log, f"metewand: the result is invalid: {reason}")
            evaluation = ("invalid", worker.invalid_metrics(problem, reason))
        verdict, metrics = _check_evaluation(evaluation)
        _output_step(write_metrics, request.metrics_path, metrics, schema=worker.schema)
        return _messages.EvaluateResponse(id=request.id, verdict=verdict)


def _streams(worker: Worker) -> bool:
    """Whether an implementation overrides ``execute_stream``."""
    method = getattr(type(worker), "execute_stream", None)
    return method is not None and method is not Implementation.execute_stream


def _capabilities(worker: Worker) -> list[Capability]:
    """What ``hello`` reports: the class's ``capabilities``, and ``streaming_profile`` for an
    implementation that streams."""
    reported: list[Capability] = list(getattr(worker, "capabilities", ()))
    if _streams(worker) and "streaming_profile" not in reported:
        reported.append("streaming_profile")
    return reported


class _Stream:
    """One ``execute_stream``: its checkpoints, each copied, announced and answered in turn."""

    def __init__(
        self,
        session: _Session,
        request: _messages.ExecuteStreamRequest,
        output: Output,
        schema: str | None,
    ) -> None:
        self._session = session
        self._id = request.id
        self._max = request.max_checkpoints
        self._output = output
        self._schema = schema
        self._sent = 0
        self._stopped = False
        self.waited_ns = 0
        """How long the checkpoints waited for their answers, in all."""

    def checkpoint(self) -> bool:
        """Writes what the output holds as the next checkpoint, and waits for its answer."""
        from .artifacts import copy_checkpoint

        if self._stopped:
            raise _Misuse("checkpoint() was called after it returned False; return instead")
        number = self._sent + 1
        self._output.close_files()
        try:
            manifest = copy_checkpoint(self._output, number, schema=self._schema)
        except OSError as error:
            raise _Misuse(f"checkpoint {number} cannot be written: {error}") from None
        except ValueError as error:
            raise _Misuse(str(error)) from None
        message = _messages.CheckpointMessage(
            checkpoint=number, id=self._id, result=_messages.ManifestRef(manifest=manifest)
        )
        sent = perf_counter_ns()
        self._session._send(encode_message(message.to_dict()))
        self._sent = number
        answer = self._answer(number)
        self.waited_ns += perf_counter_ns() - sent
        if not answer.continue_ or number >= self._max:
            self._stopped = True
        return answer.continue_ and not self._stopped

    def _answer(self, number: int) -> _messages.CheckpointAnswer:
        try:
            line = self._session._requests.read_frame()
        except FrameError as error:
            raise _StreamLost(
                f"cannot read the answer to checkpoint {number}: {error}", EXIT_UNANSWERABLE
            ) from None
        if line is None:
            raise _StreamLost(
                f"the requests ended before checkpoint {number} was answered", EXIT_END_OF_INPUT
            )
        try:
            answer = _messages.CheckpointAnswer.from_dict(parse(line))
        except (CanonicalJSONError, ModelError) as error:
            raise _StreamLost(
                f"checkpoint {number} was answered with something else: {error}", EXIT_UNANSWERABLE
            ) from None
        if answer.id != self._id or answer.checkpoint != number:
            raise _StreamLost(
                f"checkpoint {number} of request {self._id!r} was answered as checkpoint "
                f"{answer.checkpoint} of request {answer.id!r}",
                EXIT_UNANSWERABLE,
            )
        return answer


def _preload(streams: bool) -> None:
    """Loads, and uses once, everything the requests after ``hello`` need.

    Run before ``hello`` is answered, which is start-up: what a request imports or builds on its
    first call (the artifact helpers, the manifest models and their patterns, the JSON scanner and
    encoder, SHA-256) would otherwise be timed inside it, and a fresh process's first ``execute``
    would cost milliseconds its later ones do not. Importing ``metewand`` stays cheap: nothing here
    runs until a worker is greeted. What only a worker that ``streams`` uses (``shutil``, for a
    checkpoint's copy inside the timed window) is loaded for that worker alone, and what only a
    failure uses (``traceback``) is loaded when one comes, after any timed window: each is
    milliseconds of every worker's start.
    """
    import hashlib
    import stat  # noqa: F401
    from pathlib import Path  # noqa: F401

    if streams:
        import shutil  # noqa: F401

    from . import artifacts
    from .models import artifact_manifest, metrics, result_manifest

    # Hashing a file as a result's are hashed: the SDK's own source stands in for one.
    artifacts._record(artifacts.__file__, "artifacts.py")
    digest = hashlib.sha256(b"").hexdigest()
    record = {"path": "a", "sha256": digest, "size": 0}
    document = {"data": {"x": [0.5, "\u00e9", True, None]}, "files": [record]}
    result_manifest.ResultManifest.from_dict(parse(dumps(document)))
    artifact_manifest.ArtifactManifest.from_dict(parse(dumps({**document, "complete": True})))
    metrics.Metrics.from_dict(parse(dumps({"metrics": {"x": 0.5}})))


def _quote(text: str) -> str:
    return dumps(text).decode("utf-8")


def _read_input(read: Any, directory: str) -> Artifact:
    from .artifacts import OutputError

    try:
        return read(directory)  # type: ignore[no-any-return]
    except OutputError as error:
        # Metewand hands over only validated artifacts, so an unreadable one is a bad request.
        raise WorkerError(INVALID_REQUEST, str(error)) from None


def _finish(output: Output, write: Any, schema: str | None) -> None:
    # Every file the worker opened through the output is closed before anything is hashed, and
    # the manifest, which names them all, is written last.
    output.close_files()
    _output_step(write, output.dir, output.data, schema=schema)


def _output_step(write: Any, *args: Any, **kwargs: Any) -> None:
    from .artifacts import OutputError

    try:
        write(*args, **kwargs)
    except OutputError as error:
        raise _Misuse(str(error)) from None


def _check_statistics(statistics: object) -> dict[str, Any]:
    if statistics is None:
        return {}
    if not isinstance(statistics, dict):
        raise _Misuse(
            f"execute returned a {type(statistics).__name__}; it should return a dict of "
            "statistics or None"
        )
    try:
        dumps(statistics)
    except CanonicalJSONError as error:
        raise _Misuse(f"the statistics execute returned have no json form: {error}") from None
    return statistics


def _check_evaluation(returned: object) -> tuple[Verdict, dict[str, Any]]:
    if not isinstance(returned, (tuple, list)) or len(returned) != 2:
        raise _Misuse(f"evaluate returned {_kind(returned)}; it should return (verdict, metrics)")
    verdict, metrics = returned
    if not isinstance(verdict, str) or verdict not in _common.VERDICT_VALUES:
        choices = ", ".join(sorted(_common.VERDICT_VALUES))
        raise _Misuse(f"evaluate returned the verdict {verdict!r}; a verdict is one of {choices}")
    if metrics is None:
        metrics = {}
    if not isinstance(metrics, dict):
        raise _Misuse(
            f"evaluate returned metrics of type {type(metrics).__name__}; metrics are a dict"
        )
    return verdict, metrics


def _kind(value: object) -> str:
    if isinstance(value, (tuple, list)):
        return f"a {type(value).__name__} of {len(value)} items"
    return f"a {type(value).__name__}"
