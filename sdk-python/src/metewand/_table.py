"""Reading the campaign table (``index/table.json``, schema ``campaign-table``) into columns, for ``metewand.results``.

The table of a million attempts is some 330 MB of JSON; parsed whole, its lists and their items take gigabytes. It is
read a window of a few megabytes at a time instead: each column's items parsed by the standard library's own JSON
parser, checked and packed into ``array``s (``_columns.Columns``) before the next window is read. The table is
written by the executor, but a reader must not fail on it: anything that is not a table of the shape the executor
writes (schema ``campaign-table``: each column as long as the plan, of its type, every code naming a string) gives
None, and the folder is read without it. Standard library only.
"""

from __future__ import annotations

import json
import math
import os
import stat
import sys
from array import array
from collections.abc import Callable
from functools import partial
from itertools import repeat
from typing import Any

from ._columns import ABSENT, ID_WIDTH, NULL, Columns, Texts
from ._folder import INDEX_DIR

TABLE_FILE = "table.json"
"""The campaign table in the index's folder: every planned attempt's row, one column per field."""

_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
# Bytes of a column read and parsed at once: large enough that the parser's own speed dominates, small enough that
# the parsed items of one window are a few tens of megabytes.
WINDOW = 1 << 22

_ID_PREFIX = "mw1-attempt-"
_CODED = (
    "problem", "dataset", "dataset_key", "implementation", "outcome", "verdict", "failure_role", "failure_phase",
    "failure_kind", "timed", "session", "worker_id", "program", "program_sha256",
)
_NUMBERS = (
    "dataset_seed", "implementation_seed", "repetition", "prepare_ns", "execute_ns", "evaluate_ns", "timed_ns",
    "implementation_time_ns", "cpu_ns", "record_size", "peak_memory_bytes", "concurrency",
)
# Columns that are never None in a row the executor writes.
_PLANNED = ("dataset_seed", "implementation_seed", "repetition")
_TEXTS = ("started_at", "failure_message", "record_sha256", "record_stamp")
_COLUMNS = frozenset(("attempt_id",) + _CODED + _NUMBERS + _TEXTS)
# What each record's digest and stamp may be made of (their schema's patterns, JSON's punctuation and null): the two
# columns only a reading that checks the records needs, which a reading that does not passes over unparsed.
_CHECKS = {
    "record_sha256": frozenset(b'0123456789abcdef",null \t\r\n'),
    "record_stamp": frozenset(b'0123456789:.",null \t\r\n'),
}
_NONE = type(None)


class _NotATable(Exception):
    """What was read is not a table as the executor writes it."""


class _CodeOf(dict[str, int]):
    """A code by its text: ``null`` is NULL, digits without a leading zero are their number below NULL; any other
    text is missing (KeyError)."""

    def __missing__(self, text: str) -> int:
        if not (text.isascii() and text.isdigit()) or len(text) > 10 or (text[0] == "0" and text != "0"):
            raise KeyError(text)
        code = int(text)
        if code >= NULL:
            raise KeyError(text)
        if len(self) < 1 << 16:
            self[text] = code
        return code


_CODE_OF = _CodeOf(null=NULL)

# Each byte's value as a digit, 255 for a byte that is no digit.
_DIGIT_VALUES = bytes(byte - 48 if 48 <= byte <= 57 else 255 for byte in range(256))
# Where a code's one significant byte is among its four.
_LOW_BYTE = 0 if sys.byteorder == "little" else 3


def _all_null(text: str) -> int:
    """How many nulls ``text`` is, when it is nothing but nulls separated by commas (a column of failures in a
    campaign that did not fail); 0 otherwise."""
    count = text.count(",") + 1
    return count if text == ("null," * count)[:-1] else 0


def _single_digits(text: str) -> tuple[array[int], int] | None:
    """The codes of ``text`` and the largest, when it is codes of one digit each separated by commas (most windows of
    most columns: a campaign's few names, outcomes and kinds), made without a Python object per item."""
    if len(text) % 2 == 0 or text.count(",") != len(text) // 2:
        return None
    try:
        values = text[::2].encode("ascii").translate(_DIGIT_VALUES)
    except UnicodeEncodeError:
        return None
    largest = max(values)
    if largest > 9:
        return None
    wide = bytearray(4 * len(values))
    wide[_LOW_BYTE::4] = values
    codes = array("I")
    codes.frombytes(wide)
    return codes, largest


def _refuse_constant(name: str) -> Any:
    # NaN and the infinities are not JSON: a table that has them is not one the executor wrote.
    raise _NotATable(name)


_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)


class _Reader:
    """A file's bytes by offset, read a window at a time (``os.pread``) and decoded once per window; never more than
    one window held."""

    def __init__(self, descriptor: int, size: int) -> None:
        self.descriptor = descriptor
        self.size = size
        self._start = 0
        self._text = ""
        self._ascii = True
        self._end = 0

    def _load(self, at: int, length: int) -> None:
        chunk = os.pread(self.descriptor, length, at)
        try:
            text = chunk.decode("utf-8")
        except UnicodeDecodeError as error:
            # A window may end inside a character of several bytes: it ends before it instead.
            if error.reason != "unexpected end of data" or error.start < len(chunk) - 3:
                raise _NotATable("not UTF-8") from None
            chunk = chunk[: error.start]
            text = chunk.decode("utf-8")
        self._start, self._end, self._text = at, at + len(chunk), text
        self._ascii = len(text) == len(chunk)

    def window(self, at: int, least: int = 1) -> tuple[str, int]:
        """A decoded window holding at least ``least`` bytes from ``at`` (fewer at the end of the file) and where
        ``at`` is in it."""
        least = min(least, self.size - at)
        held = self._start <= at and at + least <= self._end and (self._ascii or at == self._start)
        if not held:
            self._load(at, max(least, WINDOW))
        return self._text, at - self._start if self._ascii else 0

    def offset(self, position: int) -> int:
        """The file offset of ``position`` in the current window."""
        return self._start + (position if self._ascii else len(self._text[:position].encode("utf-8")))

    def skip(self, at: int) -> tuple[int, str]:
        """The offset of the first byte from ``at`` that is not JSON white space, and that byte."""
        while at < self.size:
            text, position = self.window(at)
            while position < len(text) and text[position] in " \t\r\n":
                position += 1
            if position < len(text):
                return self.offset(position), text[position]
            at = self.offset(position)
        raise _NotATable("cut short")

    def value(self, at: int) -> tuple[Any, int]:
        """The JSON value at ``at`` (a small one: a name, a number, the plan) and the offset after it."""
        least = 1 << 12
        while True:
            text, position = self.window(at, least)
            try:
                value, end = _DECODER.raw_decode(text, position)
            except ValueError:
                if self._end >= self.size or least > WINDOW:
                    raise _NotATable("not a value") from None
                least *= 4
                continue
            return value, self.offset(end)

    def array(self, at: int, take: Any, text_of: Any = None) -> int:
        """Passes the items of the array at ``at`` to ``take`` a window's worth at a time; the offset after it.
        ``text_of``, when given, is offered each window's text of whole items first, and takes it when it can read
        every item of it itself (returning True): otherwise ``json`` parses it."""
        at, first = self.skip(at)
        if first != "[":
            raise _NotATable("not an array")
        at += 1
        least = 1
        while True:
            text, position = self.window(at, least)
            if position >= len(text):
                raise _NotATable("cut short")
            if text_of is not None:
                end = text.find("]", position)
                stop = end if end >= 0 else text.rfind(",", position)
                if stop > position and text_of(text[position:stop]):
                    if end >= 0:
                        return self.offset(end + 1)
                    at, least = self.offset(stop + 1), WINDOW
                    continue
            if text.find("]", position) >= 0:
                # The array may end in this window: parsed to its end, it says so.
                try:
                    items, end = _DECODER.raw_decode("[" + text[position:])
                except ValueError:
                    pass
                else:
                    take(items)
                    return self.offset(position + end - 1)
            comma = text.rfind(",", position)
            try:
                # A comma inside a text leaves that text open, which no parser accepts: a wider window is read.
                items = _DECODER.decode("[" + text[position:comma] + "]") if comma >= 0 else None
            except ValueError:
                items = None
            if not items:
                if self._end >= self.size:
                    raise _NotATable("not an array")
                least = max(least, len(text) - position) * 4
                continue
            take(items)
            at, least = self.offset(comma + 1), WINDOW

    def passed(self, at: int, allowed: frozenset[int]) -> int:
        """The offset after the array at ``at``, whose bytes are all ``allowed`` (none of them a bracket): passed over
        without parsing its items."""
        at, first = self.skip(at)
        if first != "[":
            raise _NotATable("not an array")
        at += 1
        delete = bytes(allowed)
        while at < self.size:
            chunk = os.pread(self.descriptor, WINDOW, at)
            end = chunk.find(b"]")
            if chunk[: None if end < 0 else end].translate(None, delete):
                raise _NotATable("not a column of its kind")
            if end >= 0:
                return at + end + 1
            at += len(chunk)
        raise _NotATable("cut short")

    def members(self, at: int, member: Any) -> int:
        """Calls ``member(name, offset of its value)`` for each member of the object at ``at``, which returns the
        offset after the value; the offset after the object. A name given twice is refused."""
        at, first = self.skip(at)
        if first != "{":
            raise _NotATable("not an object")
        at, next_byte = self.skip(at + 1)
        seen: set[str] = set()
        if next_byte == "}":
            return at + 1
        while True:
            name, at = self.value(at)
            if type(name) is not str or name in seen:
                raise _NotATable("not a name")
            seen.add(name)
            at, colon = self.skip(at)
            if colon != ":":
                raise _NotATable("no colon")
            at = member(name, at + 1)
            at, after = self.skip(at)
            if after == "}":
                return at + 1
            if after != ",":
                raise _NotATable("no comma")
            at, _ = self.skip(at + 1)


class _Building:
    """The columns of a table as its windows are read, each checked as it comes."""

    def __init__(self, keep_checks: bool) -> None:
        # Each id's 64 digits as its 32 bytes.
        self.ids = bytearray()
        self.codes = {name: array("I") for name in _CODED}
        # The largest code each column gives (-1 for none), and whether it has a null.
        self.largest = dict.fromkeys(_CODED, -1)
        self.nulls: set[str] = set()
        self.numbers = {name: array("q") for name in _NUMBERS}
        self.texts = {name: Texts() for name in _TEXTS}
        self.metrics: dict[str, array[float]] = {}
        self.seen: set[str] = set()
        # The digests and stamps are checked, and kept only when the records are to be checked by them.
        self.keep_checks = keep_checks

    def column(self, reader: _Reader, name: str, at: int) -> int:
        if name not in _COLUMNS:
            raise _NotATable(f"no column {name}")
        self.seen.add(name)
        if name == "attempt_id":
            return reader.array(at, self._ids)
        if name in _CODED:
            return reader.array(at, lambda items: self._codes(name, items), lambda text: self._code_text(name, text))
        if name in _NUMBERS:
            return reader.array(at, partial(_numbers, self.numbers[name]))
        texts = self.texts[name]
        if name in _CHECKS and not self.keep_checks:
            return reader.passed(at, _CHECKS[name])
        return reader.array(at, lambda items: texts.extend(_texts_checked(items)))

    def metric(self, reader: _Reader, name: str, at: int) -> int:
        column = array("d")
        self.metrics[name] = column
        return reader.array(at, lambda items: column.extend(_floats(items)))

    def _code_text(self, name: str, text: str) -> bool:
        """Takes the codes of ``text`` when each of its items is a code or null as the executor writes them (digits,
        nothing around them), looked up rather than parsed."""
        nulls = _all_null(text)
        if nulls:
            self.nulls.add(name)
            self.codes[name].extend(array("I", [NULL]) * nulls)
            return True
        single = _single_digits(text)
        if single is not None:
            codes, largest = single
            self.largest[name] = max(self.largest[name], largest)
            self.codes[name].extend(codes)
            return True
        try:
            codes = array("I", map(_CODE_OF.__getitem__, text.split(",")))
        except KeyError:
            return False
        distinct = set(codes)
        if NULL in distinct:
            self.nulls.add(name)
            distinct.discard(NULL)
        self.largest[name] = max(self.largest[name], max(distinct, default=-1))
        self.codes[name].extend(codes)
        return True

    def _codes(self, name: str, items: list[Any]) -> None:
        kinds = set(map(type, items))
        if not kinds <= {int, _NONE}:
            raise _NotATable("not codes")
        column = self.codes[name]
        if _NONE not in kinds:
            # A code array("I") cannot hold (a negative one) raises OverflowError: not a table.
            column.extend(items)
            self.largest[name] = max(self.largest[name], max(items, default=-1))
            return
        self.nulls.add(name)
        if kinds == {_NONE}:
            column.extend(array("I", [NULL]) * len(items))
            return
        given = [item for item in items if item is not None]
        column.extend(array("I", [NULL if item is None else item for item in items]))
        self.largest[name] = max(self.largest[name], max(given))

    def _ids(self, items: list[Any]) -> None:
        digits = _attempt_digits(items) if set(map(type, items)) <= {str} else None
        if digits is None:
            raise _NotATable("not attempt ids")
        self.ids.extend(bytes.fromhex(digits))


def _numbers(column: array[int], items: list[Any]) -> None:
    """Adds ``items``, numbers or None, to ``column``."""
    start = len(column)
    try:
        # Items that are all numbers are taken as they are; anything else (a None, a text, a fraction) raises.
        column.extend(items)
    except TypeError:
        del column[start:]
    else:
        # A number the table gives is never negative: ABSENT is a null's alone.
        if min(items, default=0) < 0:
            raise _NotATable("a number out of range")
        return
    kinds = set(map(type, items))
    if not kinds <= {int, _NONE}:
        raise _NotATable("not numbers")
    if kinds == {_NONE}:
        column.extend(array("q", [ABSENT]) * len(items))
        return
    if min((item for item in items if item is not None), default=0) < 0:
        raise _NotATable("a number out of range")
    column.extend([ABSENT if item is None else item for item in items])


def _texts_checked(items: list[Any]) -> list[Any]:
    if not set(map(type, items)) <= {str, _NONE}:
        raise _NotATable("not texts")
    return items


def _floats(items: list[Any]) -> list[float]:
    if not set(map(type, items)) <= {int, float, _NONE}:
        raise _NotATable("not numbers")
    try:
        return [math.nan if item is None else float(item) for item in items]
    except OverflowError:
        raise _NotATable("a number out of range") from None


def _attempt_digits(ids: list[str]) -> str | None:
    """The digits of ``ids`` in one text when every text of them is an attempt id, ``mw1-attempt-`` and 64 lowercase
    hexadecimal digits (the schema's pattern), checked over them all at once; None otherwise."""
    if set(map(len, ids)) - {ID_WIDTH} or not all(map(str.startswith, ids, repeat(_ID_PREFIX))):
        return None
    # With each id its prefix and 64 more, the digits are all that is left only if no id holds a second prefix.
    digits = "".join(ids).replace(_ID_PREFIX, "")
    hexadecimal = digits.isascii() and not digits.encode().translate(None, b"0123456789abcdef")
    return digits if len(digits) == 64 * len(ids) and hexadecimal else None


class Table:
    """A campaign table read whole: its name, repository, columns and, when asked for, what each row's record was
    (size, SHA-256, stamp) for checking the records against."""

    def __init__(self, name: str, repository: str, columns: Columns, record_size: array[int], checks: Any) -> None:
        self.name = name
        self.repository = repository
        self.columns = columns
        self.record_size = record_size
        self.record_sha256: Texts = checks["record_sha256"]
        self.record_stamp: Texts = checks["record_stamp"]


def read(root: str, plan_holds: Callable[[Any], bool], make: Any, *, keep_checks: bool) -> Table | None:
    """The folder's campaign table when ``plan_holds`` says the plan it names (``plan``: the size and SHA-256 of
    ``campaign.json``, with the file's stamp where it had settled) is the folder's, and it has the shape the executor
    writes; None otherwise. ``make`` makes a row of its values."""
    try:
        descriptor = os.open(os.path.join(root, INDEX_DIR, TABLE_FILE), _READ_FLAGS)
    except OSError:
        return None
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            return None
        return _read(_Reader(descriptor, info.st_size), plan_holds, make, keep_checks)
    except (_NotATable, OSError, ValueError, OverflowError, MemoryError):
        return None
    finally:
        os.close(descriptor)


def _read(reader: _Reader, plan_holds: Callable[[Any], bool], make: Any, keep_checks: bool) -> Table | None:
    building = _Building(keep_checks)
    top: dict[str, Any] = {}

    def member(name: str, at: int) -> int:
        top[name] = None
        if name == "columns":
            return reader.members(at, lambda column, start: building.column(reader, column, start))
        if name == "metrics":
            return reader.members(at, lambda metric, start: building.metric(reader, metric, start))
        if name == "strings":
            strings: list[Any] = []
            top[name] = strings
            return reader.array(at, strings.extend)
        top[name], end = reader.value(reader.skip(at)[0])
        return end

    if _trailing(reader, reader.members(0, member)):
        return None
    strings = top.get("strings")
    if not (
        top.keys() == {"columns", "format", "metrics", "name", "plan", "repository", "strings"}
        and top["format"] == 1
        and type(top["format"]) is int
        and type(top["name"]) is str
        and type(top["repository"]) is str
        and type(strings) is list
        and set(map(type, strings)) <= {str}
        and building.seen == _COLUMNS
        # Last: it may hash campaign.json.
        and plan_holds(top["plan"])
    ):
        return None
    ids = building.ids
    count = len(ids) // 32
    lengths = {len(column) for column in building.codes.values()}
    lengths |= {len(column) for column in building.numbers.values()}
    lengths |= {len(column) for column in building.metrics.values()}
    lengths |= {len(building.texts[name]) for name in ("started_at", "failure_message")}
    if lengths - {count}:
        return None
    # A code names a string, or is NULL (None); the inputs from the plan are never None.
    planned = {"problem", "dataset", "dataset_key", "implementation"}
    if max(building.largest.values()) >= len(strings) or building.nulls & planned:
        return None
    for name in _PLANNED:
        if ABSENT in building.numbers[name]:
            return None
    for texts_column in building.texts.values():
        texts_column.close()
    if keep_checks and {len(building.texts[name]) for name in ("record_sha256", "record_stamp")} != {count}:
        return None
    columns = Columns(
        ids=ids,
        texts={**dict(enumerate(strings)), NULL: None},
        codes=building.codes,
        numbers=building.numbers,
        failure_message=building.texts["failure_message"],
        started_at=building.texts["started_at"],
        metrics=building.metrics,
        make=make,
    )
    return Table(top["name"], top["repository"], columns, building.numbers["record_size"], building.texts)


def _trailing(reader: _Reader, at: int) -> bool:
    """Whether anything but white space follows the table."""
    try:
        reader.skip(at)
    except _NotATable:
        return False
    return True
