"""The rows of a campaign table kept as columns, for ``metewand.results``: a row is made only when it is asked for.

A million ``AttemptRow`` of some thirty fields each take gigabytes; their columns take a few hundred bytes a row:
the ids' digits as bytes, texts that repeat as codes into one list (``NULL`` for None), numbers in ``array``s. Every
number of a row is a count, a size or a duration in nanoseconds, never negative, so -1 says None; a metric is never
NaN in a table (its JSON cannot say NaN), so NaN says that a row has no such metric. Standard library only.
"""

from __future__ import annotations

from array import array
from itertools import accumulate
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

from ._grid import grid_columns

_ID_PREFIX = "mw1-attempt-"
ID_WIDTH = len(_ID_PREFIX) + 64
"""The length of every attempt id: its prefix and the 64 hexadecimal digits of its 32 bytes."""

ABSENT = -1
"""A number column's None."""

_NS_PER_SECOND = 1e9
_EMPTY: Mapping[str, float] = MappingProxyType({})


NULL = 0xFFFFFFFF
"""A code column's None (``array("I")``): no table has that many strings."""


class Texts:
    """A column of texts, each a row's text or None: the texts joined into one, and where each row's ends."""

    __slots__ = ("_ends", "_joined", "_none")

    def __init__(self) -> None:
        self._joined: list[str] | str = []
        self._ends = array("q")
        # A byte per row, 1 for None.
        self._none = bytearray()

    def extend(self, values: list[str | None]) -> None:
        """Adds ``values`` (texts or None, nothing else) after the rows so far."""
        assert isinstance(self._joined, list)
        at = self._ends[-1] if self._ends else 0
        kinds = set(map(type, values))
        nones = 0 if type(None) not in kinds else len(values) if kinds == {type(None)} else values.count(None)
        if nones == len(values):
            self._none.extend(b"\x01" * nones)
            self._ends.extend(array("q", [at]) * nones)
            return
        if nones:
            self._none.extend(bytes(value is None for value in values))
            values = ["" if value is None else value for value in values]
        else:
            self._none.extend(bytes(len(values)))
        texts: list[str] = values  # type: ignore[assignment]
        self._ends.extend(accumulate(map(len, texts), initial=at))
        # accumulate gives the start of the first text too: it is the end of the text before.
        del self._ends[len(self._ends) - len(texts) - 1]
        self._joined.append("".join(texts))

    def close(self) -> None:
        """Joins the texts added so far into one: nothing is added after."""
        if isinstance(self._joined, list):
            self._joined = "".join(self._joined)

    def __len__(self) -> int:
        return len(self._ends)

    def __getitem__(self, slot: int) -> str | None:
        if self._none[slot]:
            return None
        assert isinstance(self._joined, str)
        return self._joined[self._ends[slot - 1] if slot else 0 : self._ends[slot]]


class Columns:
    """Every row of a campaign table as columns, the rows read from the folder instead (``replaced``) by their slot.

    ``texts`` is the table's strings by code, and None by ``NULL``. ``codes`` holds a column
    per coded field, ``numbers`` a column per number (``dataset_seed``, ``implementation_seed``, ``repetition``,
    ``peak_memory_bytes``, ``concurrency``, and each ``*_ns``), ``metrics`` a column per metric name in sorted order.
    """

    __slots__ = (
        "_codes", "_failure_message", "_ids", "_metrics", "_names", "_numbers", "_started_at", "_texts",
        "_together", "count", "make", "replaced",
    )

    def __init__(
        self,
        *,
        ids: bytearray,
        texts: dict[int, str | None],
        codes: dict[str, array[int]],
        numbers: dict[str, array[int]],
        failure_message: Texts,
        started_at: Texts,
        metrics: dict[str, array[float]],
        make: Any,
    ) -> None:
        self.count = len(ids) // 32
        self.make = make
        self.replaced: dict[int, Any] = {}
        self._ids = ids
        self._texts = texts
        self._codes = codes
        self._numbers = numbers
        self._failure_message = failure_message
        self._started_at = started_at
        self._names = sorted(metrics)
        self._metrics = [metrics[name] for name in self._names]
        # prepare+execute rows add up their two phases in seconds, as reports do; its code, if the table has one.
        self._together = next((code for code, text in texts.items() if text == "prepare+execute"), -1)

    def __len__(self) -> int:
        return self.count

    def attempt_id(self, slot: int) -> str:
        return _ID_PREFIX + self._ids[slot * 32 : (slot + 1) * 32].hex()

    def __getitem__(self, slot: int) -> Any:
        """Row ``slot``, made now."""
        replaced = self.replaced.get(slot)
        if replaced is not None:
            return replaced
        return self.make(self._values(slot))

    def inputs(self, slot: int) -> tuple[str, str, str, int, str, str, int, int]:
        """Row ``slot``'s inputs, from the plan: its first eight fields."""
        texts, codes, numbers = self._texts, self._codes, self._numbers
        return (
            self.attempt_id(slot),
            texts[codes["problem"][slot]],  # type: ignore[return-value]
            texts[codes["dataset"][slot]],
            numbers["dataset_seed"][slot],
            texts[codes["dataset_key"][slot]],
            texts[codes["implementation"][slot]],
            numbers["implementation_seed"][slot],
            numbers["repetition"][slot],
        )

    def apart(self) -> list[int]:
        """The prepare+execute rows whose prepare and execute times do not add up to their timed time. Prepare and
        execute are requests only an implementation is sent, so the executor's rows always add up."""
        if self._together < 0:
            return []
        timed, numbers = self._codes["timed"], self._numbers
        prepare, execute, timed_ns = numbers["prepare_ns"], numbers["execute_ns"], numbers["timed_ns"]
        return [
            slot
            for slot, code in enumerate(timed)
            if code == self._together
            and timed_ns[slot] != ABSENT
            and (prepare[slot] == ABSENT or execute[slot] == ABSENT or prepare[slot] + execute[slot] != timed_ns[slot])
        ]

    def _values(self, slot: int) -> tuple[Any, ...]:
        texts, codes, numbers = self._texts, self._codes, self._numbers
        problem, dataset = texts[codes["problem"][slot]], texts[codes["dataset"][slot]]
        implementation = texts[codes["implementation"][slot]]
        prepare, execute = numbers["prepare_ns"][slot], numbers["execute_ns"][slot]
        metrics: Mapping[str, float] = _EMPTY
        if self._names:
            metrics = MappingProxyType(
                {name: value for name, column in zip(self._names, self._metrics) if (value := column[slot]) == value}
            )
        return (
            self.attempt_id(slot),
            problem,
            dataset,
            numbers["dataset_seed"][slot],
            texts[codes["dataset_key"][slot]],
            implementation,
            numbers["implementation_seed"][slot],
            numbers["repetition"][slot],
            "recorded",
            texts[codes["outcome"][slot]],
            texts[codes["verdict"][slot]],
            texts[codes["failure_role"][slot]],
            texts[codes["failure_phase"][slot]],
            texts[codes["failure_kind"][slot]],
            self._failure_message[slot],
            None if prepare < 0 else prepare / _NS_PER_SECOND,
            None if execute < 0 else execute / _NS_PER_SECOND,
            _seconds(numbers["evaluate_ns"][slot]),
            texts[codes["timed"][slot]],
            self._timed_seconds(slot),
            _seconds(numbers["implementation_time_ns"][slot]),
            _seconds(numbers["cpu_ns"][slot]),
            _number(numbers["peak_memory_bytes"][slot]),
            metrics,
            self._started_at[slot],
            _number(numbers["concurrency"][slot]),
            texts[codes["session"][slot]],
            texts[codes["worker_id"][slot]],
            texts[codes["program"][slot]],
            texts[codes["program_sha256"][slot]],
            None,
            grid_columns(problem, dataset, implementation),
        )

    def recorded(self, slots: range) -> int:
        """How many of the rows ``slots`` are ``recorded``: every row of the table, and those read instead that are."""
        elsewhere = [row for slot, row in self.replaced.items() if slot in slots]
        return len(slots) - sum(1 for row in elsewhere if row.state != "recorded")

    def field(self, name: str, slots: range) -> list[Any]:
        """The values of field ``name`` of the rows ``slots``, as their rows have them, read column by column."""
        if name in ("metrics", "grid"):
            raise ValueError(f"{name} is a mapping per row, read by metric or key")
        values = self._field(name)
        for slot, row in self.replaced.items():
            values[slot] = getattr(row, name)
        return values if slots == range(self.count) else [values[slot] for slot in slots]

    def _field(self, name: str) -> list[Any]:
        count = self.count
        if name == "attempt_id":
            return list(map(self.attempt_id, range(count)))
        if name == "state":
            return ["recorded"] * count
        if name == "invalid_reason":
            return [None] * count
        if name == "failure_message":
            return list(map(self._failure_message.__getitem__, range(count)))
        if name == "started_at":
            return list(map(self._started_at.__getitem__, range(count)))
        if name == "timed_seconds":
            return [self._timed_seconds(slot) for slot in range(count)]
        if name in self._codes:
            return list(map(self._texts.__getitem__, self._codes[name]))
        if name.endswith("_seconds"):
            column = self._numbers[_NANOSECONDS[name]]
            return [None if value < 0 else value / _NS_PER_SECOND for value in column]
        column = self._numbers[name]
        if name in ("dataset_seed", "implementation_seed", "repetition"):
            return column.tolist()
        return [None if value < 0 else value for value in column]

    def _timed_seconds(self, slot: int) -> float | None:
        timed_ns = self._numbers["timed_ns"][slot]
        if timed_ns < 0:
            return None
        if self._codes["timed"][slot] == self._together:
            # The table's sum is of nanoseconds; rows add prepare's and execute's seconds, as reports do.
            prepare, execute = self._numbers["prepare_ns"][slot], self._numbers["execute_ns"][slot]
            return prepare / _NS_PER_SECOND + execute / _NS_PER_SECOND
        return timed_ns / _NS_PER_SECOND

    def metric_names(self, slots: range) -> set[str]:
        """Every metric name some row of ``slots`` has."""
        names = {name for slot, row in self.replaced.items() if slot in slots for name in row.metrics}
        kept: Iterable[int] = slots
        if self.replaced:
            kept = [slot for slot in slots if slot not in self.replaced]
        for name, column in zip(self._names, self._metrics):
            values = column if kept == range(self.count) else map(column.__getitem__, kept)
            if name not in names and any(value == value for value in values):
                names.add(name)
        return names

    def metric(self, name: str, slots: range) -> list[float | None]:
        """Metric ``name`` of the rows ``slots``, None where a row has none."""
        column = self._metrics[self._names.index(name)] if name in self._names else None
        values: list[float | None] = []
        for slot in slots:
            replaced = self.replaced.get(slot)
            if replaced is not None:
                values.append(replaced.metrics.get(name))
            elif column is None or column[slot] != column[slot]:
                values.append(None)
            else:
                values.append(column[slot])
        return values

    def grids(self, slots: range) -> list[Mapping[str, Any]]:
        """Each row's grid columns, read from its names."""
        texts, codes = self._texts, self._codes
        problems, datasets, implementations = codes["problem"], codes["dataset"], codes["implementation"]
        grids: list[Mapping[str, Any]] = [
            grid_columns(texts[problems[slot]], texts[datasets[slot]], texts[implementations[slot]])
            for slot in slots
        ]
        return grids


_NANOSECONDS = {
    "prepare_seconds": "prepare_ns",
    "execute_seconds": "execute_ns",
    "evaluate_seconds": "evaluate_ns",
    "worker_reported_seconds": "implementation_time_ns",
    "cpu_seconds": "cpu_ns",
}


def _seconds(nanoseconds: int) -> float | None:
    return None if nanoseconds < 0 else nanoseconds / _NS_PER_SECOND


def _number(value: int) -> int | None:
    return None if value < 0 else value
