"""Tests for protocol line frames: encoding, the 1 MiB limit and the bounded reader."""

from __future__ import annotations

import io
import os
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from metewand.canonical import CanonicalJSONError
from metewand.frames import MAX_LINE, FrameError, FrameReader, encode_message


def string_line(size: int) -> bytes:
    """A complete line of exactly ``size`` bytes holding one JSON string."""
    return b'"' + b"x" * (size - 3) + b'"\n'


class EndlessLine(io.RawIOBase):
    """An unbuffered stream of one line that never ends, counting what it hands out."""

    def __init__(self) -> None:
        self.served = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        size = len(buffer)
        buffer[:size] = b"x" * size
        self.served += size
        return size


class EndlessReadline:
    """A duck-typed stream with only readline(limit), handing the line out lazily."""

    def __init__(self, piece: int) -> None:
        self.piece = piece
        self.served = 0

    def readline(self, limit: int = -1) -> bytes:
        size = self.piece if limit < 0 else min(self.piece, limit)
        self.served += size
        return b"x" * size


class Trickle:
    """A duck-typed stream with only read(n), returning at most ``step`` bytes a call."""

    def __init__(self, data: bytes, step: int) -> None:
        self.data = data
        self.step = step
        self.position = 0

    def read(self, size: int = -1) -> bytes:
        size = self.step if size < 0 else min(size, self.step)
        piece = self.data[self.position : self.position + size]
        self.position += len(piece)
        return piece


MakeReaders = Callable[[bytes], "list[FrameReader]"]


@pytest.fixture
def readers() -> Iterator[MakeReaders]:
    """Puts the same bytes behind each kind of stream the reader handles."""
    pipes: list[tuple[Any, threading.Thread]] = []

    def make(data: bytes) -> list[FrameReader]:
        read_fd, write_fd = os.pipe()
        writer = threading.Thread(target=_write_all, args=(write_fd, data), daemon=True)
        writer.start()
        pipe = os.fdopen(read_fd, "rb")
        pipes.append((pipe, writer))
        return [
            FrameReader(io.BytesIO(data)),
            FrameReader(io.BufferedReader(io.BytesIO(data), buffer_size=7)),
            FrameReader(Trickle(data, 5)),
            FrameReader(Trickle(data, 1 << 20)),
            FrameReader(pipe),
        ]

    yield make
    for pipe, writer in pipes:
        pipe.close()  # a writer still blocked on a full pipe gets a broken pipe
        writer.join(timeout=10)


def _write_all(fd: int, data: bytes) -> None:
    try:
        with os.fdopen(fd, "wb") as pipe:
            pipe.write(data)
    except BrokenPipeError:
        pass


# ---------------------------------------------------------------------------
# Encoding


def test_max_line_is_one_mebibyte() -> None:
    assert MAX_LINE == 1048576


def test_encode_message_is_canonical_json_and_one_line_feed() -> None:
    message = {"method": "hello", "id": "0", "protocols": [1.0], "text": "a\nb"}
    assert encode_message(message) == (
        b'{"id":"0","method":"hello","protocols":[1],"text":"a\\nb"}\n'
    )


def test_encode_message_limit_counts_the_line_feed() -> None:
    exact = encode_message("x" * (MAX_LINE - 3))
    assert len(exact) == MAX_LINE and exact.endswith(b'"\n')
    with pytest.raises(FrameError) as caught:
        encode_message("x" * (MAX_LINE - 2))
    assert caught.value.rule == "line_too_long"
    assert isinstance(caught.value, ValueError)


def test_encode_message_passes_canonical_errors_through() -> None:
    with pytest.raises(CanonicalJSONError) as caught:
        encode_message({"x": float("nan")})
    assert caught.value.rule == "not_finite"


# ---------------------------------------------------------------------------
# Reading


def test_multiple_frames_then_clean_eof(readers: MakeReaders) -> None:
    data = b'{"id":"0"}\n[1,2]\n\n  "s"  \n'
    for reader in readers(data):
        assert reader.read_frame() == b'{"id":"0"}'
        assert reader.read_frame() == b"[1,2]"
        assert reader.read_frame() == b""
        assert reader.read_frame() == b'  "s"  '
        assert reader.read_frame() is None
        assert reader.read_frame() is None


def test_read_message_parses_each_line(readers: MakeReaders) -> None:
    for reader in readers(encode_message({"b": 1, "a": [17.0]}) + b'{"id":"1"}\n'):
        assert reader.read_message() == {"a": [17], "b": 1}
        assert reader.read_message() == {"id": "1"}
        assert reader.read_message() is None


def test_empty_stream_is_a_clean_eof(readers: MakeReaders) -> None:
    for reader in readers(b""):
        assert reader.read_frame() is None
        assert reader.read_message() is None


def test_early_eof(readers: MakeReaders) -> None:
    for reader in readers(b'{"id":"0"}\n{"id":'):
        assert reader.read_frame() == b'{"id":"0"}'
        with pytest.raises(FrameError) as caught:
            reader.read_frame()
        assert caught.value.rule == "early_eof"
        with pytest.raises(FrameError) as again:
            reader.read_frame()
        assert again.value.rule == "unusable"


def test_a_line_of_exactly_one_mebibyte(readers: MakeReaders) -> None:
    line = string_line(MAX_LINE)
    for reader in readers(line + b"[]\n"):
        frame = reader.read_frame()
        assert frame is not None and len(frame) == MAX_LINE - 1
        assert reader.read_message() == []
        assert reader.read_frame() is None
    assert FrameReader(io.BytesIO(line)).read_message() == "x" * (MAX_LINE - 3)


def test_a_line_one_byte_too_long(readers: MakeReaders) -> None:
    for reader in readers(string_line(MAX_LINE + 1) + b"[]\n"):
        with pytest.raises(FrameError) as caught:
            reader.read_frame()
        assert caught.value.rule == "line_too_long"
        with pytest.raises(FrameError) as again:
            reader.read_frame()
        assert again.value.rule == "unusable"


def test_a_full_line_without_line_feed_at_eof_is_too_long() -> None:
    # MAX_LINE bytes and no line feed: the line could only end beyond the limit.
    with pytest.raises(FrameError) as caught:
        FrameReader(io.BytesIO(b"x" * MAX_LINE)).read_frame()
    assert caught.value.rule == "line_too_long"
    with pytest.raises(FrameError) as short:
        FrameReader(io.BytesIO(b"x" * (MAX_LINE - 1))).read_frame()
    assert short.value.rule == "early_eof"


@pytest.mark.parametrize("piece", [1, 4096, MAX_LINE, 3 * MAX_LINE])
def test_an_endless_line_is_refused_after_bounded_reading(piece: int) -> None:
    stream = EndlessReadline(piece)
    with pytest.raises(FrameError) as caught:
        FrameReader(stream).read_frame()
    assert caught.value.rule == "line_too_long"
    assert stream.served <= MAX_LINE + 1


OVERSIZED_LINE = b"[" + b"0," * (MAX_LINE // 2) + b"0]\n"


class CarelessReadline:
    def readline(self, limit: int = -1) -> bytes:
        return OVERSIZED_LINE


class CarelessRead:
    def read(self, size: int = -1) -> bytes:
        return OVERSIZED_LINE


@pytest.mark.parametrize("stream", [CarelessReadline(), CarelessRead()], ids=["readline", "read"])
def test_a_stream_that_ignores_the_limit_still_meets_it(stream: Any) -> None:
    with pytest.raises(FrameError) as caught:
        FrameReader(stream).read_frame()
    assert caught.value.rule == "line_too_long"


def test_an_endless_line_through_unbuffered_and_buffered_files() -> None:
    raw = EndlessLine()
    with pytest.raises(FrameError) as caught:
        FrameReader(raw).read_frame()
    assert caught.value.rule == "line_too_long"
    assert raw.served <= MAX_LINE

    raw = EndlessLine()
    buffered = io.BufferedReader(raw, buffer_size=8192)
    with pytest.raises(FrameError):
        FrameReader(buffered).read_frame()
    assert raw.served <= MAX_LINE + 8192


def test_an_endless_line_through_read_only() -> None:
    class EndlessRead:
        served = 0

        def read(self, size: int) -> bytes:
            self.served += size
            return b"x" * size

    stream = EndlessRead()
    with pytest.raises(FrameError) as caught:
        FrameReader(stream).read_frame()
    assert caught.value.rule == "line_too_long"
    assert stream.served <= MAX_LINE


def test_carriage_return_is_part_of_the_line(readers: MakeReaders) -> None:
    for reader in readers(b'{"a":1}\r\n{"b":2}\r{"c":3}\n\r\n'):
        assert reader.read_frame() == b'{"a":1}\r'
        assert reader.read_frame() == b'{"b":2}\r{"c":3}'
        assert reader.read_frame() == b"\r"
        assert reader.read_frame() is None


def test_carriage_return_before_line_feed_is_json_white_space() -> None:
    reader = FrameReader(io.BytesIO(b'{"a":1}\r\n{"b":2}\r{"c":3}\n\r\n[]\n'))
    assert reader.read_message() == {"a": 1}
    with pytest.raises(FrameError) as trailing:
        reader.read_message()
    assert trailing.value.rule == "trailing_data" and trailing.value.offset == 8
    with pytest.raises(FrameError) as empty:
        reader.read_message()
    assert empty.value.rule == "malformed"
    # A bad line does not break the framing.
    assert reader.read_message() == []


@pytest.mark.parametrize(
    ("line", "rule"),
    [
        (b'{"id":"0","id":"1"}', "duplicate_key"),
        (b'"\\ud800"', "lone_surrogate"),
        (b"\xef\xbb\xbf{}", "byte_order_mark"),
        (b'{"a":"\xff"}', "invalid_utf8"),
        (b"[1e400]", "number_out_of_range"),
        (b"18446744073709551615", "inexact_integer"),
        (b"[" * 129 + b"]" * 129, "too_deep"),
        (b"{", "malformed"),
        (b"{} {}", "trailing_data"),
    ],
)
def test_content_errors_keep_their_rule(line: bytes, rule: str) -> None:
    reader = FrameReader(io.BytesIO(line + b"\n" + b'{"ok":true}\n'))
    with pytest.raises(FrameError) as caught:
        reader.read_message()
    error = caught.value
    assert error.rule == rule
    assert isinstance(error.__cause__, CanonicalJSONError)
    assert error.offset == error.__cause__.offset
    assert reader.read_message() == {"ok": True}


def test_a_null_message_is_not_the_end() -> None:
    reader = FrameReader(io.BytesIO(b"null\n[]\n"))
    with pytest.raises(FrameError) as caught:
        reader.read_message()
    assert caught.value.rule == "null_message"
    assert reader.read_message() == []


def test_frames_arrive_one_at_a_time_over_a_pipe() -> None:
    # The reader must return each line as soon as it is complete, without
    # waiting to fill a buffer, or a request and its response would deadlock.
    read_fd, write_fd = os.pipe()
    with os.fdopen(read_fd, "rb") as incoming, os.fdopen(write_fd, "wb", buffering=0) as outgoing:
        reader = FrameReader(incoming)
        for index in range(3):
            outgoing.write(encode_message({"id": str(index)}))
            assert reader.read_message() == {"id": str(index)}
        outgoing.write(b"[1]\n")
        outgoing.close()
        assert reader.read_message() == [1]
        assert reader.read_message() is None


def test_frames_arrive_one_at_a_time_over_an_unbuffered_pipe() -> None:
    read_fd, write_fd = os.pipe()
    with os.fdopen(read_fd, "rb", buffering=0) as incoming:
        with os.fdopen(write_fd, "wb", buffering=0) as outgoing:
            reader = FrameReader(incoming)
            outgoing.write(b'[1]\n{"a"')
            assert reader.read_message() == [1]
            outgoing.write(b":2}\n")
            assert reader.read_message() == {"a": 2}
        assert reader.read_frame() is None


def test_text_streams_are_refused() -> None:
    with pytest.raises(TypeError):
        FrameReader(io.StringIO("[]\n")).read_frame()
    with pytest.raises(TypeError):
        FrameReader(object())
