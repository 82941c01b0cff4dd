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

The records decide, never ``results.csv`` or ``results.jsonl``, which can lag behind them. The
executor writes beside them a table of every row (``index/table.json``, schema ``campaign-table``)
and an index of the records (``index/*.jsonl``, schema ``campaign-index``). The table is used only
while ``campaign.json`` is the plan it was made from; its rows are then trusted as the records the
executor summarized in them, and only attempts that had no record when it was written are read from
the folder. ``load(folder, check_records=True)`` trusts a row only while its record is exactly the
bytes the row names (its file's stamp unchanged, or its bytes hashing to the row's digest), and
reads the others from the folder: a record changed by hand is found then, not by default. Without a
table, an index entry is used only for its record's very bytes, checked alike; otherwise the record
is parsed and checked against its schema. ``load`` never writes either; the values the rows share
with the exports are the same (durations in seconds rather than nanoseconds). An attempt that has no
usable record still has its row, with ``state`` saying why (``missing``: no folder; ``unfinished``:
a folder without a record; ``invalid``: a record that fails its schema or names another attempt) and
every field read from the record None (``metrics`` empty). Only a folder that is not a campaign
folder raises, with ``ResultsError``.

Standard library only; pandas is imported by ``to_pandas`` alone.
"""

from __future__ import annotations

import errno
import gc
import hashlib
import os
import stat
from collections.abc import Mapping, Sequence
from functools import partial
from types import MappingProxyType
from typing import Any, NamedTuple, overload

from . import _table, derived
from ._columns import ABSENT, Columns
from ._grid import grid_columns
from ._folder import (
    _READ_FLAGS,
    RECORD_FILE,
    _Index,
    _keeps,
    _read_document,
    _reason,
    _Unreadable,
)
from ._strict import ModelError
from .artifacts import MAX_DOCUMENT
from .canonical import CanonicalJSONError, parse

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Literal, TypeAlias

    from .models.attempt_record import AttemptRecord
    from .models.campaign_file import CampaignFile, PlanEntry

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

STATES = ("recorded", "missing", "unfinished", "invalid")
"""What ``AttemptRow.state`` may say about a planned attempt's record."""

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


class AttemptRow(NamedTuple):
    """One planned attempt: its inputs from the plan, and what its record says. A named tuple:
    fields by name (``row.verdict``), ``row._asdict()``, and ``AttemptRow._fields`` for their
    names in order.

    The inputs (``attempt_id`` to ``repetition``) are always there, as is ``grid``, read from their
    names. Every other field after ``state`` is read from the record, and is None unless ``state`` is ``"recorded"`` (and, within a record,
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

    cpu_seconds: float | None
    """The CPU time (user and system) of the implementation's whole session, as ``wait4`` reported it when the
    session ended cleanly: its start-up and every request, not only the timed ones (a reused session's, every
    attempt it served up to its end)."""

    peak_memory_bytes: int | None
    """The implementation's peak resident memory, when its session ended cleanly."""

    metrics: Mapping[str, float]
    """The evaluator's numeric metrics by name (read-only; empty without any)."""

    started_at: str | None
    """When the attempt started (RFC 3339, UTC)."""

    concurrency: int | None
    """How many attempts the campaign ran at once (``-j``) when this one ran."""

    session: str | None
    """How the implementation's session served the attempt: ``fresh`` (a worker process of its own)
    or ``reuse`` (one that serves consecutive attempts, ``campaign run --sessions reuse``); None
    when the record does not say (records written before sessions could be reused were fresh)."""

    worker_id: str | None
    """The implementation's resolved worker identity."""

    program: str | None
    """The program the implementation ran: where its command found it on ``PATH``, or the file
    itself; None when the record does not say."""

    program_sha256: str | None
    """That program's SHA-256."""

    invalid_reason: str | None
    """Why the record could not be used, for an ``invalid`` row."""

    grid: Mapping[str, Any] = MappingProxyType({})
    """A column per grid key of the points the row names, typed as the grid's values:
    ``dataset.rows``, ``implementation.iterations``, ``problem.tolerance`` (read-only; empty when
    no name is a grid's point)."""

    def __hash__(self) -> int:
        # Every field but the metrics and the grid, read-only mappings that cannot be hashed; equal rows still hash
        # alike.
        return hash(self[:_METRICS_AT] + self[_METRICS_AT + 1 : _GRID_AT])


_METRICS_AT = AttemptRow._fields.index("metrics")
_GRID_AT = AttemptRow._fields.index("grid")


class Results(Sequence[AttemptRow]):
    """Every planned attempt of a campaign folder, in plan order, as ``AttemptRow``.

    A read-only sequence (``len``, iteration, indexing; a slice is a ``Results`` too), with the
    campaign's ``name``, its ``repository`` (as ``campaign.json`` records it) and the ``folder``
    it was read from. Rows read through the campaign table are kept as its columns, and each row
    is made when it is indexed or iterated over: equal to the one made before, not the same object.
    """

    __slots__ = ("_rows", "_slots", "folder", "name", "repository")

    def __init__(
        self, rows: Sequence[AttemptRow], *, folder: str, name: str, repository: str
    ) -> None:
        self._rows: tuple[AttemptRow, ...] | Columns = tuple(rows)
        self._slots = range(len(self._rows))
        self.folder = folder
        self.name = name
        self.repository = repository

    @classmethod
    def _of(
        cls, rows: tuple[AttemptRow, ...] | Columns, slots: range, *, folder: str, name: str, repository: str
    ) -> Results:
        """The rows ``slots`` of ``rows``, kept as they are."""
        results = cls((), folder=folder, name=name, repository=repository)
        results._rows, results._slots = rows, slots
        return results

    def __len__(self) -> int:
        return len(self._slots)

    def __iter__(self) -> Iterator[AttemptRow]:
        if isinstance(self._rows, tuple) and self._slots == range(len(self._rows)):
            return iter(self._rows)
        return map(self._rows.__getitem__, self._slots)

    @overload
    def __getitem__(self, index: int) -> AttemptRow: ...

    @overload
    def __getitem__(self, index: slice) -> Results: ...

    def __getitem__(self, index: int | slice) -> AttemptRow | Results:
        if isinstance(index, slice):
            return Results._of(
                self._rows, self._slots[index], folder=self.folder, name=self.name, repository=self.repository
            )
        row: AttemptRow = self._rows[self._slots[index]]
        return row

    def __repr__(self) -> str:
        if isinstance(self._rows, tuple):
            recorded = sum(1 for row in self if row.state == "recorded")
        else:
            recorded = self._rows.recorded(self._slots)
        return f"<Results of {self.name!r}: {len(self)} planned, {recorded} recorded>"

    def to_pandas(self) -> Any:
        """A ``pandas.DataFrame`` with one row per attempt: one column per field of ``AttemptRow``
        but ``metrics`` and ``grid``, then one ``metric.<name>`` column per metric any row has,
        sorted by name, then one column per grid key any row has, sorted (missing values are NaN).

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
        scalars = [name for name in AttemptRow._fields if name not in ("metrics", "grid")]
        data: dict[str, list[Any]]
        if isinstance(self._rows, tuple):
            rows = list(self)
            metric_names = sorted({name for row in rows for name in row.metrics})
            data = {
                name: [row[index] for row in rows]
                for index, name in enumerate(AttemptRow._fields)
                if index not in (_METRICS_AT, _GRID_AT)
            }
            for name in metric_names:
                data["metric." + name] = [row.metrics.get(name) for row in rows]
            grids = [row.grid for row in rows]
        else:
            # Read column by column: a million rows made only to be taken apart again would cost more than pandas.
            columns, slots = self._rows, self._slots
            metric_names = sorted(columns.metric_names(slots))
            data = {name: columns.field(name, slots) for name in scalars}
            for name in metric_names:
                data["metric." + name] = columns.metric(name, slots)
            grids = columns.grids(slots)
        grid_names = sorted({name for grid in grids for name in grid})
        for name in grid_names:
            data[name] = [grid.get(name) for grid in grids]
        names = scalars + ["metric." + name for name in metric_names] + grid_names
        return pandas.DataFrame(data, columns=names)


def load(folder: str | os.PathLike[str], *, check_records: bool = False) -> Results:
    """Reads the campaign folder ``folder``: one ``AttemptRow`` per attempt of its plan, in plan
    order.

    The executor writes each record and, with the exports, the campaign table summarizing them;
    ``load`` trusts the table's rows as the records' by default, for the ``campaign.json`` it was
    made from, and reads from the folder only the attempts that had no record when it was written.
    With ``check_records=True`` it checks every row against its record first (the file's stamp, or
    its bytes' SHA-256) and reads each record that changed since: a record edited or replaced by
    hand is found then, not by default. A folder without a current
    table is read through the index and the records, each checked alike.

    Raises ResultsError when the folder has no readable ``campaign.json`` or that file is not a
    campaign file. A record that cannot be used never raises: its row's ``state`` is
    ``"invalid"`` (or ``"missing"``, ``"unfinished"``).
    """
    root = os.fspath(folder)
    # Rows are made by the hundred thousand and none of them is garbage: collecting while they are
    # made would walk them again and again.
    collecting = gc.isenabled()
    gc.disable()
    try:
        table = _table.read(root, partial(_plan_holds, root), _make_row, keep_checks=check_records)
        if table is not None:
            return _from_table(root, table, check_records)
        content = _plan_bytes(root)
        plan = _parse_plan(os.path.join(root, CAMPAIGN_FILE), content)
        del content
        index = _Index(root, {entry.id for entry in plan.attempts})
        try:
            rows = [
                _row(_inputs(entry), *_found(root, entry.id, index)) for entry in plan.attempts
            ]
        finally:
            index.close()
        return Results(rows, folder=root, name=plan.name, repository=plan.repository)
    finally:
        if collecting:
            gc.enable()


# Where a row's record fails the table's claims: above this many such rows, the index is placed
# (about 5 microseconds a line) rather than each record parsed (about 300 microseconds).
_PARSED_AT_MOST = 1000


def _make_row(values: tuple[Any, ...]) -> AttemptRow:
    row: AttemptRow = tuple.__new__(AttemptRow, values)
    return row


def _from_table(root: str, table: _table.Table, check_records: bool) -> Results:
    """The rows of a folder whose table was made from its plan: from the table, but those whose attempts had no
    record when it was written (and, checking the records, those whose records are not the bytes it names), which
    are read from the folder."""
    columns = table.columns
    # The rows read from the folder instead, with their records' bytes when they were read.
    elsewhere: dict[int, bytes | None] = {}
    if ABSENT in table.record_size:
        elsewhere.update((slot, None) for slot, size in enumerate(table.record_size) if size == ABSENT)
    if check_records:
        _check_rows(root, table, elsewhere)
    # A prepare+execute row whose two times do not add up to its timed time is not the executor's: it is read from
    # its record.
    elsewhere.update((slot, None) for slot in columns.apart() if slot not in elsewhere)
    if elsewhere:
        ids = list(map(columns.attempt_id, elsewhere))
        index = _Index(root, set(ids)) if len(elsewhere) > _PARSED_AT_MOST else None
        try:
            for (slot, content), attempt_id in zip(elsewhere.items(), ids):
                inputs = columns.inputs(slot)
                columns.replaced[slot] = _row(inputs, *_found(root, attempt_id, index, content))
        finally:
            if index is not None:
                index.close()
    return Results._of(columns, range(columns.count), folder=root, name=table.name, repository=table.repository)


def _check_rows(root: str, table: _table.Table, elsewhere: dict[int, bytes | None]) -> None:
    """Adds to ``elsewhere`` each row whose record is not the bytes the table names: a file without the row's stamp
    (one ``stat`` beneath ``attempts/``) whose bytes do not hash to its digest."""
    columns = table.columns
    try:
        attempts: int | None = os.open(os.path.join(root, "attempts"), os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        attempts = None
    try:
        suffix = "/" + RECORD_FILE
        for slot, size in enumerate(table.record_size):
            if slot in elsewhere:
                continue
            attempt_id, stamp = columns.attempt_id(slot), table.record_stamp[slot]
            if attempts is None:
                elsewhere[slot] = None
                continue
            if stamp is not None:
                try:
                    info = os.stat(attempt_id + suffix, dir_fd=attempts, follow_symlinks=False)
                except OSError:
                    elsewhere[slot] = None
                    continue
                if _keeps(info, size, stamp):
                    continue
            # Not stamped yet, or no longer the file hashed: the record's bytes decide.
            _, content, _ = _read_content(root, attempt_id)
            digest = table.record_sha256[slot]
            if content is None or len(content) != size or hashlib.sha256(content).hexdigest() != digest:
                elsewhere[slot] = content
    finally:
        if attempts is not None:
            os.close(attempts)


def _plan_holds(root: str, bound: Any) -> bool:
    """Whether ``campaign.json`` is still the bytes a table's ``plan`` names: by the file's stamp, where the table
    has one and the file keeps it (and its size), without reading the file; otherwise by hashing it, its size and
    SHA-256 against the table's."""
    if type(bound) is not dict or not {"sha256", "size"} <= bound.keys() <= {"sha256", "size", "stamp"}:
        return False
    stamp = bound.get("stamp")
    if type(stamp) is str:
        try:
            info = os.stat(os.path.join(root, CAMPAIGN_FILE), follow_symlinks=False)
        except OSError:
            info = None
        if info is not None and stat.S_ISREG(info.st_mode) and _keeps(info, bound["size"], stamp):
            return True
    elif stamp is not None:
        return False
    return _plan_digest(root) == {"sha256": bound["sha256"], "size": bound["size"]}


def _plan_digest(root: str) -> dict[str, Any]:
    """The size and SHA-256 of ``campaign.json``, read a megabyte at a time: a table is read only for those."""
    path = os.path.join(root, CAMPAIGN_FILE)
    try:
        descriptor = os.open(path, _READ_FLAGS)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise ResultsError(
                path, f"cannot read {path}: it is a symbolic link, which is not followed; {_WHERE}"
            ) from None
        raise _plan_error(root, path, error) from None
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            # _plan_bytes says what it is.
            return {}
        digest, size = hashlib.sha256(), 0
        while chunk := os.read(descriptor, 1 << 20):
            digest.update(chunk)
            size += len(chunk)
    except OSError as error:
        raise _plan_error(root, path, error) from None
    finally:
        os.close(descriptor)
    return {"sha256": digest.hexdigest(), "size": size}


def _plan_bytes(root: str) -> bytes:
    path = os.path.join(root, CAMPAIGN_FILE)
    try:
        # Not bounded like other documents: the plan of a large campaign is larger.
        return _read_document(path, None)
    except _Unreadable as error:
        raise ResultsError(path, f"cannot read {path}: {error}; {_WHERE}") from None
    except OSError as error:
        raise _plan_error(root, path, error) from None


def _plan_error(root: str, path: str, error: OSError) -> ResultsError:
    if error.errno == errno.ENOENT:
        if not os.path.lexists(root):
            return ResultsError(root, f"{root} does not exist; {_WHERE}")
        return ResultsError(root, f"{root} is not a campaign folder: it has no {CAMPAIGN_FILE}; {_WHERE}")
    if error.errno == errno.ENOTDIR:
        return ResultsError(root, f"{root} is not a folder; {_WHERE}")
    return ResultsError(path, f"cannot read {path}: {_reason(error)}; make it readable or {_WHERE}")


def _parse_plan(path: str, content: bytes) -> CampaignFile:
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
        # Imported here: a folder read through its table never parses its plan or a record.
        from .models.campaign_file import CampaignFile

        return CampaignFile.from_dict(document)
    except ModelError as error:
        raise ResultsError(
            path, f"{path} is not a campaign file: {error}; {_WHERE}"
        ) from None


def _read_content(root: str, attempt_id: str) -> tuple[State, bytes | None, str | None]:
    """The row's state so far, the record's bytes when there are some, and why not when it is invalid."""
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
    return "recorded", content, None


def _check_record(content: bytes, attempt_id: str) -> tuple[State, AttemptRecord | None, str | None]:
    """The record in ``content`` checked against its schema and the id it is filed under."""
    try:
        from .models.attempt_record import AttemptRecord

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


def _phase_ns(phases: list[tuple[str, str, int]], phase: str, role: str | None = None) -> int | None:
    # A phase may be sent more than once (a retried request); its times add up.
    durations = [ns for by, name, ns in phases if name == phase and (role is None or by == role)]
    return sum(durations) if durations else None


def _seconds(nanoseconds: int | None) -> float | None:
    return None if nanoseconds is None else nanoseconds / _NS_PER_SECOND


_NOTHING: dict[str, Any] = {
    "outcome": None,
    "verdict": None,
    "failure_role": None,
    "failure_phase": None,
    "failure_kind": None,
    "failure_message": None,
    "prepare_seconds": None,
    "execute_seconds": None,
    "evaluate_seconds": None,
    "timed": None,
    "timed_seconds": None,
    "worker_reported_seconds": None,
    "cpu_seconds": None,
    "peak_memory_bytes": None,
    "metrics": MappingProxyType({}),
    "started_at": None,
    "concurrency": None,
    "session": None,
    "worker_id": None,
    "program": None,
    "program_sha256": None,
}


def _inputs(entry: PlanEntry) -> tuple[str, str, str, int, str, str, int, int]:
    """A row's first fields, from its plan entry."""
    return (
        entry.id,
        entry.problem,
        entry.dataset,
        entry.dataset_seed,
        entry.dataset_key,
        entry.implementation,
        entry.implementation_seed,
        entry.repetition,
    )


def _found(
    root: str, attempt_id: str, index: _Index | None, content: bytes | None = None
) -> tuple[State, str | None, dict[str, Any] | None]:
    """What the folder holds of ``attempt_id``: the row's state, why it is invalid, and its fields read from the
    record (through a matching index entry when ``index`` has one). ``content`` is the record's bytes when they
    have been read already."""
    state: State = "recorded"
    reason: str | None = None
    found = None if index is None else _fields(index.settled(root, attempt_id))
    if found is None:
        if content is None:
            state, content, reason = _read_content(root, attempt_id)
        if content is not None:
            found = None if index is None else _fields(index.entry(attempt_id, content))
            if found is None:
                state, record, reason = _check_record(content, attempt_id)
                if record is not None:
                    found = _from_record(record)
    return state, reason, found


def _row(
    inputs: tuple[str, str, str, int, str, str, int, int],
    state: State,
    reason: str | None,
    found: dict[str, Any] | None,
) -> AttemptRow:
    attempt_id, problem, dataset, dataset_seed, dataset_key, implementation, seed, repetition = inputs
    return AttemptRow(
        attempt_id=attempt_id,
        problem=problem,
        dataset=dataset,
        dataset_seed=dataset_seed,
        dataset_key=dataset_key,
        implementation=implementation,
        implementation_seed=seed,
        repetition=repetition,
        state=state,
        invalid_reason=reason,
        grid=grid_columns(problem, dataset, implementation),
        **(found or _NOTHING),
    )


def _fields(indexed: dict[str, Any] | None) -> dict[str, Any] | None:
    """A row's fields read from an index entry; ``None`` for no entry, or a line that is not an entry as the
    executor writes them (the record is read instead)."""
    if indexed is None:
        return None
    try:
        return _from_entry(indexed)
    except (KeyError, TypeError, AttributeError, IndexError):
        return None


def _numeric(metrics: Mapping[str, Any] | None) -> Mapping[str, float]:
    return MappingProxyType(
        {
            name: float(value)
            for name, value in (metrics or {}).items()
            if isinstance(value, (int, float)) and not isinstance(value, bool)
        }
    )


def _from_record(record: AttemptRecord) -> dict[str, Any]:
    """A row's fields read from a record checked against its schema: the fields of the index entry the executor
    would make of it, read as an entry is."""
    implementation = record.implementation
    failure = record.failure
    program = implementation.program
    resources = implementation.resources
    return _from_entry(
        {
            "outcome": record.outcome,
            "verdict": record.verdict,
            "failure": None if failure is None else {
                "role": failure.role, "phase": failure.phase, "kind": failure.kind, "message": failure.message,
            },
            "phases": [
                {"role": phase.role, "phase": phase.phase, "duration_ns": phase.duration_ns} for phase in record.phases
            ],
            "problem": {"timed": record.problem.timed},
            "implementation": {
                "implementation_time_ns": implementation.implementation_time_ns,
                "cpu_ns": None if resources is None else resources.user_cpu_ns + resources.system_cpu_ns,
                "peak_rss_bytes": None if resources is None else resources.peak_rss_bytes,
                "worker_id": implementation.worker_id,
                "program": None if program is None else {
                    "path": program.path, "path_match": program.path_match, "sha256": program.sha256,
                },
                "session": None if implementation.session is None else {"mode": implementation.session.mode},
            },
            "metrics": record.metrics,
            "started_at": record.started_at,
            "concurrency": None if record.campaign is None else record.campaign.concurrency,
        }
    )


def _from_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """A row's fields read from the index entry of a record (the executor's summary of it, matched to its bytes)."""
    implementation = entry["implementation"]
    failure = entry["failure"]
    program = implementation.get("program")
    timed = entry["problem"].get("timed") or "execute"
    phases = [(phase["role"], phase["phase"], phase["duration_ns"]) for phase in entry["phases"]]
    return {
        "outcome": entry["outcome"],
        "verdict": entry["verdict"],
        "failure_role": None if failure is None else failure["role"],
        "failure_phase": None if failure is None else failure["phase"],
        "failure_kind": None if failure is None else failure["kind"],
        "failure_message": None if failure is None else failure["message"],
        "prepare_seconds": _seconds(_phase_ns(phases, "prepare")),
        "execute_seconds": _seconds(_phase_ns(phases, "execute")),
        "evaluate_seconds": _seconds(_phase_ns(phases, "evaluate")),
        "timed": timed,
        "timed_seconds": derived.timed_seconds(entry["outcome"], entry["verdict"], timed, phases),
        "worker_reported_seconds": _seconds(implementation["implementation_time_ns"]),
        "cpu_seconds": _seconds(implementation["cpu_ns"]),
        "peak_memory_bytes": implementation["peak_rss_bytes"],
        "metrics": _numeric(entry["metrics"]),
        "started_at": entry["started_at"],
        "concurrency": entry["concurrency"],
        "session": _session_mode(implementation.get("session")),
        "worker_id": implementation["worker_id"],
        "program": None if program is None else (program.get("path_match") or program["path"]),
        "program_sha256": None if program is None else program["sha256"],
    }


def _session_mode(session: Any) -> str | None:
    return None if session is None else str(session["mode"])


