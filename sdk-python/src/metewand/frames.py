"""Line frames for the worker protocol: one canonical JSON message per line.

A complete line, its ``\\n`` included, is at most ``MAX_LINE`` bytes.
``FrameReader`` never holds more than that for one line: a longer line is an
error as soon as the limit is passed, before the rest of it is read.  Bytes
after the last ``\\n`` at the end of the stream are an early end of stream.
``\\r`` is not a line terminator; before the ``\\n`` it is part of the line,
where it is JSON white space.
"""

from __future__ import annotations

import io

from .canonical import CanonicalJSONError, dumps, parse

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is slow to import and only needed by type checkers
    from collections.abc import Callable
    from typing import Any

__all__ = ["MAX_LINE", "FrameError", "FrameReader", "encode_message"]

MAX_LINE = 1048576
"""Largest complete line, its ``\\n`` included, in bytes (1 MiB)."""

# Largest single read from a stream without readline.  Such reads return what
# is available, so this caps the memory of one call, not the wait.
_CHUNK = 65536


class FrameError(ValueError):
    """A frame that cannot be read or written.

    ``rule`` is ``line_too_long``, ``early_eof``, ``null_message``,
    ``unusable`` (the reader failed earlier), or the rule of the canonical
    JSON error that rejected the line's content, in which case ``offset`` is
    the byte offset within the line and the CanonicalJSONError is the cause.
    """

    def __init__(self, rule: str, message: str, offset: int | None = None) -> None:
        super().__init__(message if offset is None else f"{message} at byte {offset}")
        self.rule = rule
        self.message = message
        self.offset = offset


def encode_message(value: Any) -> bytes:
    """Return ``value``'s canonical JSON followed by one ``\\n``.

    Raises FrameError if the line would exceed MAX_LINE bytes, and
    CanonicalJSONError if the value has no canonical form.
    """
    line = dumps(value) + b"\n"
    if len(line) > MAX_LINE:
        raise FrameError(
            "line_too_long", f"message line of {len(line)} bytes exceeds {MAX_LINE} bytes"
        )
    return line


class FrameReader:
    """Reads complete lines from a blocking binary stream, one at a time.

    The stream needs ``readline(limit)`` (files, pipes opened with
    ``os.fdopen(fd, "rb")``, ``sys.stdin.buffer``, ``io.BytesIO``) or else
    ``read1(n)`` or ``read(n)`` returning whatever is available (unbuffered
    files are read that way).  After a line that is too long or an early end
    of stream the reader is unusable, since where the next line begins is
    unknown.
    """

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self._readline: Callable[[int], bytes] | None = None
        self._read: Callable[[int], bytes] | None = None
        # An unbuffered file's readline fetches one byte per system call.
        if not isinstance(stream, io.RawIOBase):
            self._readline = getattr(stream, "readline", None)
        if self._readline is None:
            self._read = getattr(stream, "read1", None) or getattr(stream, "read", None)
            if self._read is None:
                raise TypeError("frame reader needs a stream with readline or read")
        # Bytes read past the last line returned; only for streams without readline.
        self._pending = bytearray()
        self._failure: str | None = None

    def read_frame(self) -> bytes | None:
        """Return the next line without its ``\\n``, or None at a clean end of stream."""
        if self._failure is not None:
            raise FrameError("unusable", f"frame reader is unusable after {self._failure}")
        if self._readline is not None:
            return self._read_line_with_readline(self._readline)
        return self._read_line_with_read(self._read)  # type: ignore[arg-type]

    def read_message(self) -> Any:
        """Return the next line's value, or None at a clean end of stream.

        The line must hold one restricted-domain JSON document.  A line
        holding ``null`` is refused, so that None only ever means the end.
        """
        line = self.read_frame()
        if line is None:
            return None
        try:
            value = parse(line)
        except CanonicalJSONError as exc:
            raise FrameError(exc.rule, exc.message, exc.offset) from exc
        if value is None:
            raise FrameError("null_message", "a message cannot be null")
        return value

    def _read_line_with_readline(self, readline: Callable[[int], bytes]) -> bytes | None:
        # A blocking readline returns a whole line in one call; the loop is for
        # streams that hand lines over in pieces.
        pieces = []
        size = 0
        while True:
            piece = readline(MAX_LINE - size)
            if not piece:
                break
            _require_bytes(piece)
            pieces.append(piece)
            size += len(piece)
            if size > MAX_LINE:  # a stream that ignored the limit
                self._fail_too_long()
            if piece[-1] == 0x0A:  # \n
                line = pieces[0] if len(pieces) == 1 else b"".join(pieces)
                return bytes(line[:-1])
            if size == MAX_LINE:
                self._fail_too_long()
        if size:
            self._fail_early_eof(size)
        return None

    def _read_line_with_read(self, read: Callable[[int], bytes]) -> bytes | None:
        pending = self._pending
        searched = 0
        while True:
            index = pending.find(b"\n", searched)
            if index >= MAX_LINE:  # a stream that ignored the read size
                self._fail_too_long()
            if index >= 0:
                line = bytes(pending[:index])
                del pending[: index + 1]
                return line
            searched = len(pending)
            if searched >= MAX_LINE:
                self._fail_too_long()
            chunk = read(min(_CHUNK, MAX_LINE - searched))
            if not chunk:
                if pending:
                    self._fail_early_eof(len(pending))
                return None
            _require_bytes(chunk)
            pending += chunk

    def _fail_too_long(self) -> None:
        self._failure = "a line too long"
        self._pending.clear()
        raise FrameError("line_too_long", f"line exceeds {MAX_LINE} bytes without a line feed")

    def _fail_early_eof(self, size: int) -> None:
        self._failure = "an early end of stream"
        self._pending.clear()
        raise FrameError(
            "early_eof", f"stream ended inside a line, {size} bytes after the last line feed"
        )


def _require_bytes(piece: Any) -> None:
    if not isinstance(piece, (bytes, bytearray)):
        raise TypeError(f"frame reader needs a binary stream, got {type(piece).__name__}")
