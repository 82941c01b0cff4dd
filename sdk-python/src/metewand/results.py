"""Read a campaign folder's results into Python: one typed row per planned attempt.

``load(folder)`` reads the plan in ``campaign.json`` and the record of every planned attempt
(``attempts/<id>/attempt.json``), and returns a ``Results``, a sequence of ``AttemptRow`` in plan
order::

    from metewand import results

    rows = results.load(".metewand/campaigns/main")
    for row in rows:
        if row.verdict == "reached":
            print(row.implementation, row.timed_seconds, row.metrics["relative_gap"])
    frame = rows.to_pandas()  # needs pandas: pip install metewand-python[pandas]

The records themselves are read, never ``results.csv`` or ``results.jsonl``, which can lag
behind them; the values the rows share with those files are the same (durations in seconds
rather than nanoseconds). An attempt that has no usable record still has its row, with ``state``
saying why (``missing``: no folder; ``unfinished``: a folder without a record; ``invalid``: a
record that fails its schema or names another attempt) and every field read from the record None
(``metrics`` empty). Only a folder that is not a campaign folder raises, with ``ResultsError``.

Standard library only; pandas is imported by ``to_pandas`` alone.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import overload

from ._strict import ModelError
from .artifacts import MAX_DOCUMENT
from .canonical import CanonicalJSONError, parse
from .models.attempt_record import AttemptRecord
from .models.campaign_file import CampaignFile, PlanEntry

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping
    from typing import Any, Literal, TypeAlias

    State: TypeAlias = Literal["recorded", "missing", "unfinished", "invalid"]

__all__ = [
    "CAMPAIGN_FILE",
    "RECORD_FILE",
    "STATES",
    "AttemptRow",
    "Results",
    "ResultsError",
    "load",
]

CAMPAIGN_FILE = "campaign.json"
"""The plan file of a campaign folder."""

RECORD_FILE = "attempt.json"
"""The record in each attempt's folder, ``attempts/<attempt id>/``."""

STATES = ("recorded", "missing", "unfinished", "invalid")
"""What ``AttemptRow.state`` may say about a planned attempt's record."""

_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
_NS_PER_SECOND = 1e9
_WHERE = "give the folder a campaign run wrote (its --out, by default STATE/campaigns/NAME/)"


class ResultsError(Exception):
    """The folder given to ``load`` is not a campaign folder that can be read.

    ``path`` is the folder or file at fault; the message says what is wrong and what to do.
    """

    path: str

    def __init__(self, path: str, message: str) -> None:
        super().__init__(message)
        self.path = path


@dataclass(frozen=True, slots=True, kw_only=True)
class AttemptRow:
    """One planned attempt: its inputs from the plan, and what its record says.

    The inputs (``attempt_id`` to ``repetition``) are always there. Every field after ``state`` is
    read from the record, and is None unless ``state`` is ``"recorded"`` (and, within a record,
    where the record itself has nothing: a verdict for a failed attempt, the durations of phases
    that never ran).
    """

    attempt_id: str
    problem: str
    dataset: str
    dataset_seed: int
    dataset_key: str
    implementation: str
    implementation_seed: int
    repetition: int
    """From 1."""

    state: State
    """One of ``STATES``: a valid record of this attempt, no folder, a folder without a record, or a
    record that fails its schema or names another attempt (``invalid_reason`` says which)."""

    outcome: str | None
    """``reached``, ``not_reached``, ``not_required``, ``invalid``, ``failed`` or ``cancelled``
    (an attempt a later run starts again)."""

    verdict: str | None
    """The evaluator's verdict, when it gave one."""

    failure_role: str | None
    """The role a failure is attributed to; None for the executor's own failures."""

    failure_phase: str | None
    failure_kind: str | None
    failure_message: str | None

    prepare_seconds: float | None
    """The executor's measure of the ``prepare`` request(s), None when none was sent."""

    execute_seconds: float | None
    """The executor's measure of the ``execute`` request(s), None when none was sent."""

    evaluate_seconds: float | None
    """The executor's measure of the ``evaluate`` request(s), None when none was sent."""

    timed: str | None
    """What the problem ranks implementations by: ``execute`` or ``prepare+execute``."""

    timed_seconds: float | None
    """The implementation's time by ``timed``, only for an attempt with a verdict that neither
    failed nor was cancelled: what reports rank and compare."""

    worker_reported_seconds: float | None
    """What the implementation itself claimed (``implementation_time_ns``): diagnostic only."""

    peak_memory_bytes: int | None
    """The implementation's peak resident memory, when its session ended cleanly."""

    metrics: Mapping[str, float] = field(hash=False)
    """The evaluator's numeric metrics by name (read-only; empty without any)."""

    started_at: str | None
    """When the attempt started (RFC 3339, UTC)."""

    concurrency: int | None
    """How many attempts the campaign ran at once (``-j``) when this one ran."""

    worker_id: str | None
    """The implementation's resolved worker identity."""

    program: str | None
    """The program the implementation ran: where its command found it on ``PATH``, or the file
    itself; None when the record does not say."""

    program_sha256: str | None
    """That program's SHA-256."""

    invalid_reason: str | None
    """Why the record could not be used, for an ``invalid`` row."""


class Results(Sequence[AttemptRow]):
    """Every planned attempt of a campaign folder, in plan order, as ``AttemptRow``.

    A read-only sequence (``len``, iteration, indexing; a slice is a ``Results`` too), with the
    campaign's ``name``, its ``repository`` (as ``campaign.json`` records it) and the ``folder``
    it was read from.
    """

    __slots__ = ("_rows", "folder", "name", "repository")

    def __init__(
        self, rows: Sequence[AttemptRow], *, folder: str, name: str, repository: str
    ) -> None:
        self._rows = tuple(rows)
        self.folder = folder
        self.name = name
        self.repository = repository

    def __len__(self) -> int:
        return len(self._rows)

    def __iter__(self) -> Iterator[AttemptRow]:
        return iter(self._rows)

    @overload
    def __getitem__(self, index: int) -> AttemptRow: ...

    @overload
    def __getitem__(self, index: slice) -> Results: ...

    def __getitem__(self, index: int | slice) -> AttemptRow | Results:
        if isinstance(index, slice):
            return Results(
                self._rows[index], folder=self.folder, name=self.name, repository=self.repository
            )
        return self._rows[index]

    def __repr__(self) -> str:
        recorded = sum(1 for row in self._rows if row.state == "recorded")
        return f"<Results of {self.name!r}: {len(self._rows)} planned, {recorded} recorded>"

    def to_pandas(self) -> Any:
        """A ``pandas.DataFrame`` with one row per attempt: one column per field of ``AttemptRow``
        but ``metrics``, then one ``metric.<name>`` column per metric any row has, sorted by name
        (missing values are NaN).

        Raises ImportError when pandas is not installed.
        """
        import importlib

        try:
            # importlib rather than an import statement: pandas ships no type information of its
            # own, and this module must type-check without it.
            pandas = importlib.import_module("pandas")
        except ImportError as error:
            raise ImportError(
                "to_pandas needs pandas, which is not installed; install it with "
                "pip install metewand-python[pandas] (or pip install pandas)"
            ) from error
        scalars = [item.name for item in fields(AttemptRow) if item.name != "metrics"]
        metric_names = sorted({name for row in self._rows for name in row.metrics})
        records = []
        for row in self._rows:
            record: dict[str, Any] = {name: getattr(row, name) for name in scalars}
            for name in metric_names:
                record["metric." + name] = row.metrics.get(name)
            records.append(record)
        columns = scalars + ["metric." + name for name in metric_names]
        return pandas.DataFrame.from_records(records, columns=columns)


def load(folder: str | os.PathLike[str]) -> Results:
    """Reads the campaign folder ``folder``: one ``AttemptRow`` per attempt of its plan, in plan
    order.

    Raises ResultsError when the folder has no readable ``campaign.json`` or that file is not a
    campaign file. A record that cannot be used never raises: its row's ``state`` is
    ``"invalid"`` (or ``"missing"``, ``"unfinished"``).
    """
    root = os.fspath(folder)
    plan = _read_plan(root)
    rows = [_row(root, entry) for entry in plan.attempts]
    return Results(rows, folder=root, name=plan.name, repository=plan.repository)


class _Unreadable(Exception):
    """A file that could not be read as a document, with why in lowercase."""


def _read_document(path: str, limit: int | None) -> bytes:
    # Never follows a link or blocks on a FIFO: only a regular file is read.
    try:
        descriptor = os.open(path, _READ_FLAGS)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise _Unreadable("it is a symbolic link, which is not followed") from None
        raise
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise _Unreadable(f"it is a {_describe(info.st_mode)}, not a file")
        if limit is not None and info.st_size > limit:
            raise _Unreadable(f"it is {info.st_size} bytes, more than the {limit} read")
    except BaseException:
        os.close(descriptor)
        raise
    with open(descriptor, "rb") as file:
        if limit is None:
            return file.read()
        # One byte more than the limit tells a file that grew since fstat from one that fits.
        content = file.read(limit + 1)
    if len(content) > limit:
        raise _Unreadable(f"it is more than the {limit} bytes read")
    return content


def _describe(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "folder"
    if stat.S_ISFIFO(mode):
        return "fifo"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "special file"


def _reason(error: OSError) -> str:
    text = error.strerror or str(error)
    return text[:1].lower() + text[1:]


def _read_plan(root: str) -> CampaignFile:
    path = os.path.join(root, CAMPAIGN_FILE)
    try:
        # Not bounded like other documents: the plan of a large campaign is larger.
        content = _read_document(path, None)
    except _Unreadable as error:
        raise ResultsError(path, f"cannot read {path}: {error}; {_WHERE}") from None
    except OSError as error:
        if error.errno == errno.ENOENT:
            if not os.path.lexists(root):
                raise ResultsError(root, f"{root} does not exist; {_WHERE}") from None
            raise ResultsError(
                root, f"{root} is not a campaign folder: it has no {CAMPAIGN_FILE}; {_WHERE}"
            ) from None
        if error.errno == errno.ENOTDIR:
            raise ResultsError(root, f"{root} is not a folder; {_WHERE}") from None
        raise ResultsError(
            path, f"cannot read {path}: {_reason(error)}; make it readable or {_WHERE}"
        ) from None
    try:
        document = parse(content)
    except CanonicalJSONError as error:
        raise ResultsError(
            path, f"{path} is not a campaign file: {error}; {_WHERE}"
        ) from None
    # Another version's document is refused as such, not as a mismatch somewhere inside it.
    if isinstance(document, dict) and "format" in document and document["format"] != 1:
        raise ResultsError(
            path,
            f"{path} has format {document['format']!r}, which this metewand-python does not read "
            "(it reads format 1); read it with the metewand-python of the metewand that wrote it",
        )
    try:
        return CampaignFile.from_dict(document)
    except ModelError as error:
        raise ResultsError(
            path, f"{path} is not a campaign file: {error}; {_WHERE}"
        ) from None


def _read_record(root: str, attempt_id: str) -> tuple[State, AttemptRecord | None, str | None]:
    """The row's state, the record when it is valid, and why it is not when it is invalid."""
    directory = os.path.join(root, "attempts", attempt_id)
    path = os.path.join(directory, RECORD_FILE)
    if os.path.islink(directory):
        return "invalid", None, "the attempt's folder is a symbolic link, which is not followed"
    try:
        content = _read_document(path, MAX_DOCUMENT)
    except _Unreadable as error:
        return "invalid", None, f"{RECORD_FILE} cannot be read: {error}"
    except OSError as error:
        if error.errno == errno.ENOENT:
            return ("unfinished" if os.path.lexists(directory) else "missing"), None, None
        return "invalid", None, f"{RECORD_FILE} cannot be read: {_reason(error)}"
    try:
        record = AttemptRecord.from_dict(parse(content))
    except (CanonicalJSONError, ModelError) as error:
        return "invalid", None, f"{RECORD_FILE} fails the attempt-record schema: {error}"
    if record.campaign is None:
        reason = f"{RECORD_FILE} has no campaign field: it was not written by a campaign"
        return "invalid", None, reason
    if record.campaign.attempt_id != attempt_id:
        reason = f"{RECORD_FILE} names attempt {record.campaign.attempt_id}, not {attempt_id}"
        return "invalid", None, reason
    return "recorded", record, None


def _phase_ns(record: AttemptRecord, phase: str, role: str | None = None) -> int | None:
    # A phase may be sent more than once (a retried request); its times add up.
    durations = [
        item.duration_ns
        for item in record.phases
        if item.phase == phase and (role is None or item.role == role)
    ]
    return sum(durations) if durations else None


def _seconds(nanoseconds: int | None) -> float | None:
    return None if nanoseconds is None else nanoseconds / _NS_PER_SECOND


def _row(root: str, entry: PlanEntry) -> AttemptRow:
    state, record, reason = _read_record(root, entry.id)
    outcome = verdict = failure_role = failure_phase = failure_kind = failure_message = None
    prepare_seconds = execute_seconds = evaluate_seconds = None
    timed = timed_seconds = worker_reported_seconds = peak_memory_bytes = None
    metrics: dict[str, float] = {}
    started_at = concurrency = worker_id = program = program_sha256 = None
    if record is not None:
        outcome, verdict, started_at = record.outcome, record.verdict, record.started_at
        if record.failure is not None:
            failure_role, failure_phase = record.failure.role, record.failure.phase
            failure_kind, failure_message = record.failure.kind, record.failure.message
        prepare_seconds = _seconds(_phase_ns(record, "prepare"))
        execute_seconds = _seconds(_phase_ns(record, "execute"))
        evaluate_seconds = _seconds(_phase_ns(record, "evaluate"))
        timed = record.problem.timed or "execute"  # records written before it was recorded
        timed_seconds = _timed_seconds(record, timed)
        implementation = record.implementation
        worker_reported_seconds = _seconds(implementation.implementation_time_ns)
        if implementation.resources is not None:
            peak_memory_bytes = implementation.resources.peak_rss_bytes
        metrics = {
            name: float(value)
            for name, value in (record.metrics or {}).items()
            if isinstance(value, (int, float)) and not isinstance(value, bool)
        }
        if record.campaign is not None:
            concurrency = record.campaign.concurrency
        worker_id = implementation.worker_id
        if implementation.program is not None:
            program = implementation.program.path_match or implementation.program.path
            program_sha256 = implementation.program.sha256
    return AttemptRow(
        attempt_id=entry.id,
        problem=entry.problem,
        dataset=entry.dataset,
        dataset_seed=entry.dataset_seed,
        dataset_key=entry.dataset_key,
        implementation=entry.implementation,
        implementation_seed=entry.implementation_seed,
        repetition=entry.repetition,
        state=state,
        outcome=outcome,
        verdict=verdict,
        failure_role=failure_role,
        failure_phase=failure_phase,
        failure_kind=failure_kind,
        failure_message=failure_message,
        prepare_seconds=prepare_seconds,
        execute_seconds=execute_seconds,
        evaluate_seconds=evaluate_seconds,
        timed=timed,
        timed_seconds=timed_seconds,
        worker_reported_seconds=worker_reported_seconds,
        peak_memory_bytes=peak_memory_bytes,
        metrics=MappingProxyType(metrics),
        started_at=started_at,
        concurrency=concurrency,
        worker_id=worker_id,
        program=program,
        program_sha256=program_sha256,
        invalid_reason=reason,
    )


def _timed_seconds(record: AttemptRecord, timed: str) -> float | None:
    # Only an attempt judged to the end is timed, and only by the implementation's own requests,
    # as reports rank and compare it.
    if record.verdict is None or record.outcome in ("failed", "cancelled"):
        return None
    execute = _seconds(_phase_ns(record, "execute", "implementation"))
    if timed == "execute":
        return execute
    prepare = _seconds(_phase_ns(record, "prepare", "implementation"))
    return None if prepare is None or execute is None else prepare + execute
