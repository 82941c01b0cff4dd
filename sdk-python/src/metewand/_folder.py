"""Reading a campaign folder's files without trusting them, for ``metewand.results``.

Two parts of what ``load`` reads: the campaign index (``index/*.jsonl``), whose lines are used only
for records of exactly the bytes they name, and any document of the folder, read without following a
link or blocking on a FIFO, and within a bound. Standard library only.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import stat
from typing import Any

RECORD_FILE = "attempt.json"
"""The record in each attempt's folder, ``attempts/<attempt id>/``."""

INDEX_DIR = "index"
"""The campaign index's folder: parts of one entry per line, each naming its record's size and SHA-256."""

_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)


class _Index:
    """The campaign index (``index/*.jsonl``): where each line naming a planned attempt is, with the size and
    SHA-256 of the record it was made from and, once that record had settled when it was hashed, its file's stamp
    (inode, ctime, mtime). A line is used only for a record of exactly those bytes: a file that still has the
    line's stamp and size (every change to a file moves its ctime), or one that hashes to its digest. The index is
    never written here (the executor rebuilds it), and a folder without one is read record by record.
    """

    def __init__(self, root: str, planned: set[str]) -> None:
        self._files: list[int] = []
        # By attempt id: (part, offset, length, record size, record SHA-256, stamp) of each line naming it.
        self.lines: dict[str, list[tuple[int, int, int, int, str, str | None]]] = {}
        directory = os.path.join(root, INDEX_DIR)
        try:
            names = sorted(name for name in os.listdir(directory) if name.endswith(".jsonl") and name[:1] != ".")
        except OSError:
            return
        for name in names:
            try:
                descriptor = os.open(os.path.join(directory, name), _READ_FLAGS)
            except OSError:
                continue
            try:
                if not stat.S_ISREG(os.fstat(descriptor).st_mode):
                    os.close(descriptor)
                    continue
                with open(os.dup(descriptor), "rb") as part:
                    self._place(part, len(self._files), planned)
            except OSError:
                os.close(descriptor)
                continue
            self._files.append(descriptor)

    def _place(self, part: Any, number: int, planned: set[str]) -> None:
        offset = 0
        for line in part:
            start = offset
            offset += len(line)
            if not line.endswith(b"\n"):
                break  # a last line cut short
            key = _key(line)
            if key is None or key[0] not in planned:
                continue
            attempt_id, size, sha256, stamp = key
            self.lines.setdefault(attempt_id, []).append((number, start, len(line), size, sha256, stamp))

    def settled(self, root: str, attempt_id: str) -> dict[str, Any] | None:
        """The entry of ``attempt_id`` whose stamp and size its record's file still has, if the index has one: that
        file's bytes are those its digest was made from, so it is not read."""
        candidates = self.lines.get(attempt_id)
        if not candidates or all(candidate[5] is None for candidate in candidates):
            return None
        directory = os.path.join(root, "attempts", attempt_id)
        try:
            if not stat.S_ISDIR(os.lstat(directory).st_mode):
                return None
            info = os.lstat(os.path.join(directory, RECORD_FILE))
        except OSError:
            return None
        if not stat.S_ISREG(info.st_mode):
            return None
        for candidate in candidates:
            if _keeps(info, candidate[3], candidate[5]):
                entry = self._read(attempt_id, candidate)
                if entry is not None:
                    return entry
        return None

    def entry(self, attempt_id: str, content: bytes) -> dict[str, Any] | None:
        """The entry of ``attempt_id`` made from exactly ``content``, if the index has one."""
        candidates = self.lines.get(attempt_id)
        if not candidates:
            return None
        size = len(content)
        matching = [candidate for candidate in candidates if candidate[3] == size]
        if not matching:
            return None
        digest = hashlib.sha256(content).hexdigest()
        for candidate in matching:
            if candidate[4] == digest:
                entry = self._read(attempt_id, candidate)
                if entry is not None:
                    return entry
        return None

    def _read(
        self, attempt_id: str, candidate: tuple[int, int, int, int, str, str | None]
    ) -> dict[str, Any] | None:
        """The line of ``candidate`` when it is an entry of ``attempt_id`` saying what ``candidate`` says."""
        number, offset, length, size, sha256, stamp = candidate
        try:
            entry = json.loads(os.pread(self._files[number], length, offset))
        except (OSError, ValueError):
            return None
        record = {"sha256": sha256, "size": size} if stamp is None else {"sha256": sha256, "size": size, "stamp": stamp}
        if (
            isinstance(entry, dict)
            and entry.get("format") == 1
            and entry.get("attempt_id") == attempt_id
            and entry.get("record") == record
        ):
            return entry
        return None

    def close(self) -> None:
        for descriptor in self._files:
            os.close(descriptor)
        self._files = []


_ID_AT = b'{"attempt_id":"'
_RECORD_AT = b'"record":'


def _key(line: bytes) -> tuple[str, int, str, str | None] | None:
    """The attempt id, record size, record SHA-256 and stamp a line names: read at their places in lines as the
    executor writes them (keys in order, ``record`` near the end), and by parsing the line otherwise. What a used
    line says is checked again whole.
    """
    try:
        if line.startswith(_ID_AT):
            at = line.rfind(_RECORD_AT)
            end = line.find(b"}", at)
            if at > 0 and end > 0:
                attempt_id = line[len(_ID_AT) : line.find(b'"', len(_ID_AT))].decode("ascii")
                # {"sha256":"<64 digits>","size":<n>} and maybe ,"stamp":"<stamp>" before the brace.
                record = line[at + len(_RECORD_AT) : end + 1]
                sha256, size, stamp = record[11:75], record[84:-1], None
                if record[:11] == b'{"sha256":"' and record[75:84] == b'","size":':
                    size, _, stamp = size.partition(b',"stamp":"')
                    if size.isdigit() and (not stamp or stamp[-1:] == b'"'):
                        text = stamp[:-1].decode("ascii") if stamp else None
                        return attempt_id, int(size), sha256.decode("ascii"), text
        entry = json.loads(line)
        return _record_key(entry["attempt_id"], entry["record"])
    except (ValueError, TypeError, KeyError, AttributeError):
        return None


def _record_key(attempt_id: Any, record: Any) -> tuple[str, int, str, str | None]:
    stamp = record.get("stamp")
    return str(attempt_id), int(record["size"]), str(record["sha256"]), None if stamp is None else str(stamp)


def _keeps(info: os.stat_result, size: int | None, stamp: str | None) -> bool:
    """Whether the file of ``info`` still has ``size`` and ``stamp`` as an index entry or table row names it,
    ``<inode>:<ctime>:<mtime>`` with times in seconds and nine decimals: without its decimal points, that is the inode
    and both times in nanoseconds (a time before 1970-01-01T00:00:01 never matches, and its record is hashed)."""
    return (
        stamp is not None
        and info.st_size == size
        and f"{info.st_ino}:{info.st_ctime_ns}:{info.st_mtime_ns}" == stamp.replace(".", "")
    )


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
    if limit is None:
        with open(descriptor, "rb") as file:
            return file.read()
    # One byte more than the limit tells a file that grew since fstat from one that fits. Reads ask for what
    # fstat said (os.read allocates what it is asked for), then for what is left of the limit.
    chunks: list[bytes] = []
    left = limit + 1
    try:
        while left > 0 and (chunk := os.read(descriptor, min(left, info.st_size + 1))):
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(descriptor)
    content = b"".join(chunks)
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
