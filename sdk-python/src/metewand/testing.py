"""Testing workers with pytest, without Metewand's binary: a client for the orchestrator's side.

``WorkerClient`` drives one worker over pipes, as Metewand would: it spawns a command
(``WorkerClient.spawn``) or serves a worker class in this process on a thread
(``WorkerClient.in_process``), sends typed requests built from the generated models in
``metewand.models``, checks that each answer is one frame carrying the request's id, and returns
it decoded strictly as the success model the request calls for, or as a ``FailureResponse``::

    from metewand.models.worker_protocol_message import AckResponse, ExecuteResponse
    from metewand.testing import WorkerClient

    def test_solver_solves(tmp_path):
        with WorkerClient.in_process(Solver) as client:
            client.hello()
            assert isinstance(client.prepare(dataset_dir=str(dataset)), AckResponse)
            executed = client.execute(result_dir=str(tmp_path))
            assert isinstance(executed, ExecuteResponse)
            client.shutdown()
        assert client.exit_status == 0

Every wait is bounded (``timeout`` seconds per answer, 60 by default): a worker that does not
answer, answers with something that is not a frame, or answers another id raises
``WorkerProtocolError``. ``send_line`` writes any bytes (a malformed request, an unusual id) and
returns the next frame parsed but not decoded. Leaving the ``with`` block (or ``close``) ends the
worker: its pipes are closed, a process still running is killed and reaped, a thread is joined.

This module is for tests; workers never import it, and ``import metewand`` does not load it.
"""

from __future__ import annotations

import io
import os
import queue
import subprocess
import threading

from ._strict import ModelError
from .canonical import CanonicalJSONError, parse
from .frames import FrameError, FrameReader, encode_message
from .models import worker_protocol_message as _messages
from .models.worker_protocol_methods import RESPONSES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from types import TracebackType
    from typing import IO, Any

    from .worker import Worker

__all__ = ["DEFAULT_CONTRACT_ID", "DEFAULT_WORKER_ID", "WorkerClient", "WorkerProtocolError"]

DEFAULT_WORKER_ID = "mw1-resolved-worker-" + "0" * 64
"""The worker id ``hello`` sends unless told another."""

DEFAULT_CONTRACT_ID = "mw1-problem-contract-" + "0" * 64
"""The problem contract id ``prepare`` and ``evaluate`` send unless told another."""

# What the reader thread puts in the queue at the end of the stream, or after an unreadable line.
_END = object()


class WorkerProtocolError(AssertionError):
    """The worker broke the protocol: no answer in time, a line that is not a frame, another id,
    or an answer its schema definition refuses. An ``AssertionError``, so pytest shows it as a
    failed expectation about the worker."""


class WorkerClient:
    """The orchestrator's side of one worker session; see the module documentation."""

    def __init__(
        self,
        requests: IO[bytes],
        responses: IO[bytes],
        role: str,
        *,
        timeout: float = 60.0,
        process: subprocess.Popen[bytes] | None = None,
        thread: threading.Thread | None = None,
        status: list[int] | None = None,
        log: io.StringIO | None = None,
    ) -> None:
        """Use ``spawn`` or ``in_process``; this wraps streams that are already connected."""
        self.role = role
        self.timeout = timeout
        self._requests = requests
        self._process = process
        self._thread = thread
        self._status = status if status is not None else []
        self._log = log
        self._stderr: list[bytes] = []
        self._next_id = 0
        self._frames: queue.Queue[Any] = queue.Queue()
        self._reader = threading.Thread(
            target=self._read, args=(responses,), name="metewand-testing-reader", daemon=True
        )
        self._reader.start()
        self._stderr_thread: threading.Thread | None = None
        if process is not None and process.stderr is not None:
            self._stderr_thread = threading.Thread(
                target=self._drain, args=(process.stderr,), name="metewand-testing-stderr", daemon=True
            )
            self._stderr_thread.start()

    # -- starting a worker

    @classmethod
    def spawn(
        cls,
        command: Sequence[str | os.PathLike[str]],
        role: str,
        *,
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        timeout: float = 60.0,
    ) -> WorkerClient:
        """Starts ``command`` (argv) as a worker of ``role`` with stdin and stdout as the protocol
        and stderr collected (``stderr``). ``env`` replaces the environment when given (Metewand
        gives a worker only ``PATH``, ``LANG``, ``LC_ALL``, ``TMPDIR`` and its declared variables)."""
        process = subprocess.Popen(
            [os.fspath(part) for part in command],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=dict(env) if env is not None else None,
        )
        assert process.stdin is not None and process.stdout is not None
        return cls(process.stdin, process.stdout, role, timeout=timeout, process=process)

    @classmethod
    def in_process(cls, worker: Worker | type[Worker], *, timeout: float = 60.0) -> WorkerClient:
        """Serves ``worker`` (a role subclass or an instance of one) with ``metewand.serve`` on a
        thread of this process, over two pipes; what it logs is in ``stderr``. Faster than a
        process, and the worker's state can be inspected, but its stdout is not protected (only
        ``run`` does that)."""
        from .worker import _check_worker, serve

        _check_worker(worker)
        role = worker.role
        request_read, request_write = os.pipe()
        response_read, response_write = os.pipe()
        requests_in = open(request_read, "rb")
        responses_out = open(response_write, "wb")
        log = io.StringIO()
        status: list[int] = []

        def serving() -> None:
            try:
                status.append(serve(worker, requests_in, responses_out, log))
            finally:
                responses_out.close()
                requests_in.close()

        thread = threading.Thread(target=serving, name="metewand-testing-worker", daemon=True)
        thread.start()
        return cls(
            open(request_write, "wb"),
            open(response_read, "rb"),
            role,
            timeout=timeout,
            thread=thread,
            status=status,
            log=log,
        )

    # -- typed requests

    def hello(
        self, *, worker_id: str = DEFAULT_WORKER_ID, role: str | None = None, protocols: Sequence[int] = (1,)
    ) -> _messages.HelloResponse | _messages.FailureResponse:
        """Sends ``hello`` for this client's role (or ``role``)."""
        answer: _messages.HelloResponse | _messages.FailureResponse = self.send(
            _messages.HelloRequest(
                id=self._allocate(),
                protocols=list(protocols),
                role=role if role is not None else self.role,  # type: ignore[arg-type]
                worker_id=worker_id,
            )
        )
        return answer

    def materialize(
        self,
        *,
        source_dir: str | os.PathLike[str],
        output_dir: str | os.PathLike[str],
        parameters: dict[str, Any] | None = None,
        seed: int = 0,
    ) -> _messages.MaterializeResponse | _messages.FailureResponse:
        """Sends ``materialize``."""
        answer: _messages.MaterializeResponse | _messages.FailureResponse = self.send(
            _messages.MaterializeRequest(
                dataset_parameters=parameters if parameters is not None else {},
                dataset_seed=seed,
                id=self._allocate(),
                output_dir=os.fspath(output_dir),
                source_dir=os.fspath(source_dir),
            )
        )
        return answer

    def prepare(
        self,
        *,
        dataset_dir: str | os.PathLike[str],
        parameters: dict[str, Any] | None = None,
        seed: int = 0,
        problem_parameters: dict[str, Any] | None = None,
        contract_id: str = DEFAULT_CONTRACT_ID,
    ) -> _messages.AckResponse | _messages.FailureResponse:
        """Sends ``prepare``."""
        answer: _messages.AckResponse | _messages.FailureResponse = self.send(
            _messages.PrepareRequest(
                dataset_dir=os.fspath(dataset_dir),
                id=self._allocate(),
                implementation_parameters=parameters if parameters is not None else {},
                implementation_seed=seed,
                problem_contract_id=contract_id,
                problem_parameters=problem_parameters if problem_parameters is not None else {},
            )
        )
        return answer

    def execute(
        self, *, result_dir: str | os.PathLike[str]
    ) -> _messages.ExecuteResponse | _messages.FailureResponse:
        """Sends ``execute``."""
        answer: _messages.ExecuteResponse | _messages.FailureResponse = self.send(
            _messages.ExecuteRequest(id=self._allocate(), result_dir=os.fspath(result_dir))
        )
        return answer

    def execute_stream(
        self,
        *,
        result_dir: str | os.PathLike[str],
        max_checkpoints: int,
        answer: Callable[[_messages.CheckpointMessage], bool] | None = None,
    ) -> tuple[list[_messages.CheckpointMessage], _messages.ExecuteResponse | _messages.FailureResponse]:
        """Sends ``execute_stream`` and answers each checkpoint as Metewand would: ``continue`` is
        what ``answer`` returns for it (True by default), and False for the last allowed one.
        Returns the checkpoints in order and the final answer. Raises ``WorkerProtocolError`` for a
        checkpoint that breaks the stream's rules: another id, a number out of order or past
        ``max_checkpoints``, one after ``continue: false``, or a manifest elsewhere than
        ``checkpoints/<n>/result.json``."""
        request = _messages.ExecuteStreamRequest(
            id=self._allocate(), max_checkpoints=max_checkpoints, result_dir=os.fspath(result_dir)
        )
        line = encode_message(request.to_dict())
        checkpoints: list[_messages.CheckpointMessage] = []
        stopped = False
        while True:
            value = self.send_line(line)
            if not isinstance(value, dict) or value.get("id") != request.id:
                got = value.get("id") if isinstance(value, dict) else value
                raise WorkerProtocolError(
                    f"execute_stream {request.id!r} was answered with the id {got!r}"
                )
            if "ok" in value:
                model = _messages.FailureResponse if value["ok"] is False else _messages.ExecuteResponse
                try:
                    final: _messages.ExecuteResponse | _messages.FailureResponse = model.from_dict(value)
                except ModelError as error:
                    raise WorkerProtocolError(
                        f"the answer to execute_stream is not a valid {model.__name__}: {error}"
                    ) from None
                return checkpoints, final
            try:
                checkpoint = _messages.CheckpointMessage.from_dict(value)
            except ModelError as error:
                raise WorkerProtocolError(f"not a valid checkpoint message: {error}") from None
            number = len(checkpoints) + 1
            if stopped:
                raise WorkerProtocolError(f"checkpoint {checkpoint.checkpoint} came after continue false")
            if checkpoint.checkpoint != number or number > max_checkpoints:
                raise WorkerProtocolError(
                    f"checkpoint {checkpoint.checkpoint} came where checkpoint {number} of at most "
                    f"{max_checkpoints} belongs"
                )
            expected = f"checkpoints/{number}/result.json"
            if checkpoint.result.manifest != expected:
                raise WorkerProtocolError(
                    f"checkpoint {number} names its manifest {checkpoint.result.manifest!r}, "
                    f"not {expected!r}"
                )
            checkpoints.append(checkpoint)
            go_on = (answer(checkpoint) if answer is not None else True) and number < max_checkpoints
            stopped = not go_on
            reply = _messages.CheckpointAnswer(checkpoint=number, continue_=go_on, id=request.id)
            line = encode_message(reply.to_dict())

    def reset(self) -> _messages.AckResponse | _messages.FailureResponse:
        """Sends ``reset``."""
        answer: _messages.AckResponse | _messages.FailureResponse = self.send(_messages.ResetRequest(id=self._allocate()))
        return answer

    def evaluate(
        self,
        *,
        dataset_dir: str | os.PathLike[str],
        result_dir: str | os.PathLike[str],
        metrics_path: str | os.PathLike[str],
        problem_parameters: dict[str, Any] | None = None,
        contract_id: str = DEFAULT_CONTRACT_ID,
    ) -> _messages.EvaluateResponse | _messages.FailureResponse:
        """Sends ``evaluate``."""
        answer: _messages.EvaluateResponse | _messages.FailureResponse = self.send(
            _messages.EvaluateRequest(
                dataset_dir=os.fspath(dataset_dir),
                id=self._allocate(),
                metrics_path=os.fspath(metrics_path),
                problem_contract_id=contract_id,
                problem_parameters=problem_parameters if problem_parameters is not None else {},
                result_dir=os.fspath(result_dir),
            )
        )
        return answer

    def shutdown(self) -> _messages.AckResponse | _messages.FailureResponse:
        """Sends ``shutdown``; after an acknowledgment, waits (``timeout``) for the worker to end,
        so that ``exit_status`` is set."""
        response = self.send(_messages.ShutdownRequest(id=self._allocate()))
        if isinstance(response, _messages.AckResponse):
            self._requests.close()
            self._wait(self.timeout)
        return response  # type: ignore[no-any-return]

    # -- any request

    def send(self, request: Any) -> Any:
        """Sends a request model (from ``metewand.models.worker_protocol_message``) and returns the
        answer decoded as the success model its method calls for, or as a ``FailureResponse``.
        Raises ``WorkerProtocolError`` unless the answer is one frame with the request's id that
        its schema definition accepts."""
        method = request.method
        value = self.send_line(encode_message(request.to_dict()))
        if not isinstance(value, dict) or value.get("id") != request.id:
            got = value.get("id") if isinstance(value, dict) else value
            raise WorkerProtocolError(f"{method} {request.id!r} was answered with the id {got!r}")
        model = _messages.FailureResponse if value.get("ok") is False else RESPONSES[method]
        try:
            return model.from_dict(value)
        except ModelError as error:
            raise WorkerProtocolError(
                f"the answer to {method} is not a valid {model.__name__}: {error}"
            ) from None

    def send_line(self, line: bytes) -> Any:
        """Writes ``line`` exactly as given (it need not be a request, or even JSON) and returns
        the next frame the worker writes, parsed in the restricted JSON domain but not decoded.
        Raises ``WorkerProtocolError`` when none comes within ``timeout`` seconds or the worker's
        output is not a frame."""
        try:
            self._requests.write(line)
            self._requests.flush()
        except (OSError, ValueError) as error:
            raise WorkerProtocolError(f"the worker's stdin is closed: {error}") from None
        try:
            frame = self._frames.get(timeout=self.timeout)
        except queue.Empty:
            raise WorkerProtocolError(f"no answer within {self.timeout} s") from None
        if frame is _END:
            self._frames.put(_END)
            raise WorkerProtocolError(f"the worker ended without answering{self._ended()}")
        if isinstance(frame, Exception):
            self._frames.put(_END)
            raise WorkerProtocolError(f"the worker's output is not a frame: {frame}")
        return frame

    # -- the end

    @property
    def exit_status(self) -> int | None:
        """The worker's exit status (``serve``'s return value in process), once it has ended."""
        if self._process is not None:
            return self._process.poll()
        return self._status[0] if self._status else None

    @property
    def stderr(self) -> str:
        """What the worker wrote to stderr (its log, in process) so far."""
        if self._log is not None:
            return self._log.getvalue()
        return b"".join(self._stderr).decode("utf-8", "replace")

    def close(self) -> None:
        """Ends the worker: closes its stdin, kills and reaps a process still running after a
        short grace, joins the threads."""
        try:
            self._requests.close()
        except OSError:
            pass
        if not self._wait(1.0) and self._process is not None:
            self._process.kill()
            self._process.wait()
        # The streams end with the worker (unless something it started holds them, hence the bound).
        self._reader.join(self.timeout)
        if self._stderr_thread is not None:
            self._stderr_thread.join(self.timeout)
        if self._process is not None:
            for stream in (self._process.stdout, self._process.stderr):
                if stream is not None:
                    stream.close()

    def __enter__(self) -> WorkerClient:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    # -- inside

    def _allocate(self) -> str:
        request_id = str(self._next_id)
        self._next_id += 1
        return request_id

    def _wait(self, timeout: float) -> bool:
        """Waits for the worker to end; true if it did."""
        if self._process is not None:
            try:
                self._process.wait(timeout)
            except subprocess.TimeoutExpired:
                return False
            return True
        assert self._thread is not None
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _ended(self) -> str:
        self._wait(1.0)
        status = self.exit_status
        return "" if status is None else f" (exit status {status})"

    def _read(self, responses: IO[bytes]) -> None:
        reader = FrameReader(responses)
        try:
            while True:
                line = reader.read_frame()
                if line is None:
                    break
                try:
                    self._frames.put(parse(line))
                except CanonicalJSONError as error:
                    self._frames.put(error)
                    break
        except (FrameError, OSError, ValueError) as error:
            self._frames.put(error)
        finally:
            self._frames.put(_END)

    def _drain(self, stderr: IO[bytes]) -> None:
        try:
            for chunk in iter(lambda: stderr.read1(65536), b""):  # type: ignore[attr-defined]
                self._stderr.append(chunk)
        except (OSError, ValueError):
            pass
