"""Tests for the restricted JSON parser and the RFC 8785 writer.

The unit tests cover every rule on their own.  The conformance corpora are read
where they lie, from ``$METEWAND_CORPORA`` or ``../shared/corpora`` beside the
checkout; without them those tests skip, except under ``CI=true``.
"""

from __future__ import annotations

import csv
import enum
import math
import os
import random
import struct
import subprocess
import sys
from collections import OrderedDict
from pathlib import Path
from types import EllipsisType
from typing import Any

import pytest
import support

import metewand.canonical
from metewand.canonical import (
    MAX_DEPTH,
    MAX_SAFE_INTEGER,
    CanonicalJSONError,
    dumps,
    parse,
)

# ---------------------------------------------------------------------------
# Helpers


def rejects(data: bytes, rule: str, offset: int | EllipsisType = ...) -> CanonicalJSONError:
    with pytest.raises(CanonicalJSONError) as caught:
        parse(data)
    error = caught.value
    assert error.rule == rule, f"{data[:60]!r}: {error}"
    if offset is not ...:
        assert error.offset == offset, f"{data[:60]!r}: {error}"
    return error


def refuses(value: Any, rule: str) -> CanonicalJSONError:
    with pytest.raises(CanonicalJSONError) as caught:
        dumps(value)
    assert caught.value.rule == rule, str(caught.value)
    assert caught.value.offset is None
    return caught.value


def bits(number: float) -> bytes:
    return struct.pack(">d", number)


# ---------------------------------------------------------------------------
# parse: what the domain accepts


@pytest.mark.parametrize(
    ("data", "value"),
    [
        (b"null", None),
        (b"true", True),
        (b"false", False),
        (b'"text"', "text"),
        (b"[]", []),
        (b"{}", {}),
        (b'{"a":[1,{"b":null}]}', {"a": [1, {"b": None}]}),
        (b" \t\n\r[ 1 , 2 ]\r\n\t ", [1, 2]),
        (b'"\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\u00e9"', '"\\/\b\f\n\r\tA\u00e9'),
        (b'"\\ud83d\\ude00"', "\U0001f600"),
        (b'"\\uD83D\\uDE00"', "\U0001f600"),
        (b'"\\\\ud800"', "\\ud800"),  # an escaped backslash, then plain text
        ('"\U0001f600 \u00e9 \ufeff \uffff"'.encode(), "\U0001f600 \u00e9 \ufeff \uffff"),
        (b'"\x7f"', "\x7f"),
        (b'"\\u0000"', "\x00"),
    ],
)
def test_accepts(data: bytes, value: Any) -> None:
    assert parse(data) == value


def test_accepts_bytearray_and_memoryview() -> None:
    assert parse(bytearray(b"[1]")) == [1]
    assert parse(memoryview(b"[1]")) == [1]


def test_refuses_str_input() -> None:
    with pytest.raises(TypeError):
        parse("[1]")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "literal",
    [b"17", b"17.0", b"1.7e1", b"1.7E+1", b"170e-1", b"0.00017e5", b"17.000000000000000000001"],
)
def test_integral_numbers_are_int_however_spelled(literal: bytes) -> None:
    value = parse(literal)
    assert type(value) is int and value == 17


@pytest.mark.parametrize("literal", [b"-0", b"-0.0", b"0e5", b"-0E-3", b"1e-400", b"-1e-400"])
def test_zero_and_underflow_become_int_zero(literal: bytes) -> None:
    value = parse(literal)
    assert type(value) is int and value == 0


@pytest.mark.parametrize(
    ("literal", "value"),
    [
        (b"9007199254740991", MAX_SAFE_INTEGER),
        (b"-9007199254740991", -MAX_SAFE_INTEGER),
        (b"9007199254740991.0", MAX_SAFE_INTEGER),
        (b"9.007199254740991e15", MAX_SAFE_INTEGER),
    ],
)
def test_safe_integer_edges_are_int(literal: bytes, value: int) -> None:
    parsed = parse(literal)
    assert type(parsed) is int and parsed == value


@pytest.mark.parametrize(
    ("literal", "value"),
    [
        (b"9007199254740992", 2.0**53),
        (b"-9007199254740992", -(2.0**53)),
        (b"9007199254740994", 2.0**53 + 2),
        (b"100000000000000000000", 1e20),
        (b"123456789012345680000", 123456789012345680000.0),
        (b"999999999999999900000", 999999999999999900000.0),
        (b"1152921504606847000", 2.0**60),
        (b"9007199254740992000", 2.0**53 * 1000),
        # Not integer literals: a fraction or exponent is read as the nearest double.
        (b"9007199254740993.0", 2.0**53),
        (b"1e21", 1e21),
        (b"18446744073709551615e0", 18446744073709551616.0),
    ],
)
def test_large_integers_are_float(literal: bytes, value: float) -> None:
    parsed = parse(literal)
    assert type(parsed) is float and bits(parsed) == bits(value)


@pytest.mark.parametrize(
    "literal",
    [
        b"9007199254740993",
        b"-9007199254740993",
        b"18446744073709551615",
        b"1000000000000000000000",  # 1e21, whose canonical spelling is 1e+21
        b"123456789012345678901",
        b"1152921504606846976",  # 2**60 exactly, but spelled 1152921504606847000
        b"-237462374673276894279832749832423479823246327846",
    ],
)
def test_inexact_integer_literals(literal: bytes) -> None:
    rejects(b"[" + literal + b"]", "inexact_integer", 1)


def test_non_integral_numbers_are_float() -> None:
    assert parse(b"0.1") == 0.1 and type(parse(b"0.1")) is float
    assert parse(b"-1.5e-7") == -1.5e-7
    assert parse(b"5e-324") == 5e-324
    assert parse(b"1.7976931348623157e308") == 1.7976931348623157e308
    assert bits(parse(b"2.2250738585072011e-308")) == bits(2.2250738585072011e-308)


# ---------------------------------------------------------------------------
# parse: one test per rule


def test_byte_order_mark() -> None:
    rejects(b"\xef\xbb\xbf{}", "byte_order_mark", 0)
    # Anywhere else it is a character: outside strings not JSON white space.
    rejects(b" \xef\xbb\xbf{}", "malformed", 1)
    assert parse(b'"\xef\xbb\xbf"') == "\ufeff"


@pytest.mark.parametrize(
    ("data", "offset"),
    [
        (b'"\xff"', 1),
        (b'["a", "\xc0\xaf"]', 7),  # overlong
        (b'"\xed\xa0\x80"', 1),  # an encoded surrogate
        (b'"\xf4\x90\x80\x80"', 1),  # beyond U+10FFFF
        (b'"\xe2\x82', 1),  # truncated
        (b"\xff\xfe[\x00]\x00", 0),  # UTF-16 with its byte-order mark
        (b"[1, 2, 3, \x80]", 10),  # a lone continuation byte
    ],
)
def test_invalid_utf8(data: bytes, offset: int) -> None:
    rejects(data, "invalid_utf8", offset)


def test_utf16_without_byte_order_mark_is_not_json() -> None:
    # Its NUL bytes are valid UTF-8, so this is malformed rather than badly encoded.
    rejects("[1]".encode("utf-16-le"), "malformed", 1)


@pytest.mark.parametrize(
    ("data", "offset"),
    [
        (b'{"a":1,"a":2}', 7),
        (b'{"a":1,"\\u0061":2}', 7),  # compared after unescaping
        (b'{"a":1,"b":{"c":1,"c":2},"a":3}', 18),
        (b'[{"x":{}}, {"y":1, "z":2, "y":3}]', 26),
        ('{"\u00e9":1,"\u00e9":2}'.encode(), 8),  # byte offsets, not characters
    ],
)
def test_duplicate_key(data: bytes, offset: int) -> None:
    rejects(data, "duplicate_key", offset)


def test_same_name_in_different_objects_is_fine() -> None:
    assert parse(b'{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}]}') == {
        "a": {"a": {"a": 1}},
        "b": [{"a": 1}, {"a": 2}],
    }


@pytest.mark.parametrize(
    ("data", "offset"),
    [
        (b'"\\ud800"', 1),
        (b'"\\udc00"', 1),
        (b'"\\uDBFF"', 1),
        (b'"ab\\ud800\\u0041"', 3),
        (b'"\\ud800\\ud800\\udc00"', 1),
        (b'"\\udc00\\ud800"', 1),  # inverted pair
        (b'"\\ud800x\\udc00"', 1),
        (b'"\\\\\\ud800"', 3),  # an escaped backslash, then a real escape
        (b'{"\\ud800":1}', 2),
        (b'["ok", {"k": "\\udfff"}]', 14),
        ('["\u00e9", "\\ud800"]'.encode(), 8),
    ],
)
def test_lone_surrogate(data: bytes, offset: int) -> None:
    rejects(data, "lone_surrogate", offset)


@pytest.mark.parametrize(
    ("data", "offset"),
    [
        (b"1e400", 0),
        (b"[-1e400]", 1),
        (b"[1.5E+309]", 1),
        (b'{"a":' + b"1" * 400 + b"}", 5),
        (b"[0, -" + b"9" * 400 + b"]", 4),
    ],
)
def test_number_out_of_range(data: bytes, offset: int) -> None:
    rejects(data, "number_out_of_range", offset)


@pytest.mark.parametrize(
    ("data", "offset"),
    [
        (b"", 0),
        (b" \r\n", 3),
        (b"NaN", 0),
        (b"[Infinity]", 1),
        (b"[1, -Infinity]", 4),
        (b"{'a':1}", 1),
        (b"[01]", 2),
        (b"[1.]", 2),
        (b"[.5]", 1),
        (b"[+1]", 1),
        (b"[1e]", 2),
        (b"[-]", 1),
        (b"[1 2]", 3),
        (b'"\x01"', 1),
        (b'"a\nb"', 2),
        (b'"\\x"', 1),
        (b'"\\u12"', 2),
        (b'"abc', 0),
        (b"[1", 2),
        (b"tru", 0),
        (b"\x0c1", 0),  # form feed is not JSON white space
        ("[\u00a01]".encode(), 1),  # nor is a no-break space
        ("[\u0661]".encode(), 1),  # an Arabic-Indic digit is not a digit here
    ],
)
def test_malformed(data: bytes, offset: int) -> None:
    rejects(data, "malformed", offset)


@pytest.mark.parametrize(("data", "comma"), [(b"[1,]", 2), (b'{"a":1,}', 6), (b"[[],\n]", 3)])
def test_trailing_comma(data: bytes, comma: int) -> None:
    # Where it is reported (the comma, or what follows) depends on the Python version.
    error = rejects(data, "malformed")
    assert error.offset is not None and comma <= error.offset <= len(data) - 1


@pytest.mark.parametrize(
    ("data", "offset"),
    [
        (b"1 2", 2),
        (b"{}x", 2),
        (b"[]]", 2),
        (b"[] \r\n []", 6),
        (b'"a"\r"b"', 4),
        ('"\u00e9" 1'.encode(), 5),
        (b"1 " + b"[" * 200, 2),
        (b"[]" + b"]" * 200, 2),
    ],
)
def test_trailing_data(data: bytes, offset: int) -> None:
    rejects(data, "trailing_data", offset)


# ---------------------------------------------------------------------------
# parse: depth


def nested_arrays(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


def nested_objects(depth: int) -> bytes:
    return b'{"a":' * (depth - 1) + b"{}" + b"}" * (depth - 1)


def test_depth_limit_arrays() -> None:
    value = parse(nested_arrays(MAX_DEPTH))
    for _ in range(MAX_DEPTH - 1):
        value = value[0]
    assert value == []
    rejects(nested_arrays(MAX_DEPTH + 1), "too_deep", MAX_DEPTH)


def test_depth_limit_objects() -> None:
    assert parse(nested_objects(MAX_DEPTH))
    rejects(nested_objects(MAX_DEPTH + 1), "too_deep", 5 * MAX_DEPTH)


def test_depth_counts_arrays_and_objects_together() -> None:
    mixed_ok = b'[{"a":' * 64 + b"null" + b"}]" * 64
    assert parse(mixed_ok)
    mixed_deep = b'[{"a":' * 64 + b"[]" + b"}]" * 64
    rejects(mixed_deep, "too_deep", 6 * 64)


def test_depth_is_the_deepest_point_not_the_bracket_count() -> None:
    wide = b"[" + b",".join([nested_arrays(MAX_DEPTH - 1)] * 50) + b"]"
    assert len(parse(wide)) == 50
    many = b'{"a":[' + b",".join([b'{"b":[]}'] * 1000) + b"]}"
    assert len(parse(many)["a"]) == 1000


def test_brackets_inside_strings_do_not_count() -> None:
    text = b'["' + b"[{" * 200 + b'\\"' + b"[" * 200 + b'"]'
    assert parse(text) == ["[{" * 200 + '"' + "[" * 200]
    # The string ends at the second quote; the brackets after it count.
    rejects(b'["[[[\\"", ' + b"[" * 200, "too_deep", 10 + MAX_DEPTH - 1)


@pytest.mark.parametrize(
    "data",
    [
        b"[" * 100000,
        b"[" * 100000 + b"]" * 100000,
        b'{"a":' * 100000,
        b'[{"a":' * 50000 + b"1" + b"}]" * 50000,
        b"[" * 100000 + b"1,",
    ],
)
def test_very_deep_input_is_an_error_not_a_crash(data: bytes) -> None:
    rejects(data, "too_deep")


# ---------------------------------------------------------------------------
# The errors themselves


def test_errors_are_value_errors_with_plain_messages() -> None:
    samples = [
        b"\xef\xbb\xbf1",
        b'"\xff"',
        b"[" * 200,
        b'{"a":1,"a":1}',
        b'"\\ud800"',
        b"1e999",
        b"9007199254740993",
        b"[1,]",
        b"1 1",
        b"NaN",
    ]
    rules = set()
    for data in samples:
        with pytest.raises(ValueError) as caught:
            parse(data)
        error = caught.value
        assert isinstance(error, CanonicalJSONError)
        rules.add(error.rule)
        assert not error.message[:1].isupper()
        assert not error.message.endswith(".")
        assert isinstance(error.offset, int)
        assert str(error) == f"{error.message} at byte {error.offset}"
    assert rules == {
        "byte_order_mark",
        "invalid_utf8",
        "too_deep",
        "duplicate_key",
        "lone_surrogate",
        "number_out_of_range",
        "inexact_integer",
        "malformed",
        "trailing_data",
    }


# ---------------------------------------------------------------------------
# dumps


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.0, "1"),
        (-0.0, "0"),
        (0.0, "0"),
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (1e-7, "1e-7"),
        (0.000001, "0.000001"),
        (123e-20, "1.23e-18"),
        (1.5e-5, "0.000015"),
        (-1.5e-9, "-1.5e-9"),
        (1e16, "10000000000000000"),
        (1.5e300, "1.5e+300"),
        (0.1, "0.1"),
        (333333333.33333329, "333333333.3333333"),
        (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (2.0**60, "1152921504606847000"),
        (0, "0"),
        (-17, "-17"),
        (MAX_SAFE_INTEGER, "9007199254740991"),
        (-MAX_SAFE_INTEGER, "-9007199254740991"),
        (2**53, "9007199254740992"),
        (-(2**53), "-9007199254740992"),
        (2**60, "1152921504606847000"),
        (10**21, "1e+21"),
        (True, "true"),
        (False, "false"),
        (None, "null"),
    ],
)
def test_dumps_scalars(value: Any, text: str) -> None:
    assert dumps(value) == text.encode()


def test_dumps_bool_is_not_an_integer() -> None:
    assert dumps([True, 1, False, 0]) == b"[true,1,false,0]"
    assert dumps({"t": True}) == b'{"t":true}'


@pytest.mark.parametrize("value", [2**53 + 1, -(2**53) - 1, 2**64 - 1, 10**21 + 1])
def test_dumps_refuses_inexact_integers(value: int) -> None:
    refuses(value, "inexact_integer")
    refuses([value], "inexact_integer")


def test_dumps_refuses_integers_beyond_any_double() -> None:
    refuses(10**400, "number_out_of_range")
    refuses(-(10**5000), "number_out_of_range")


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_dumps_refuses_non_finite(value: float) -> None:
    refuses(value, "not_finite")
    refuses({"x": value}, "not_finite")


def test_dumps_string_escaping() -> None:
    controls = "".join(chr(code) for code in range(0x20))
    expected = (
        '"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007'
        "\\b\\t\\n\\u000b\\f\\r\\u000e\\u000f"
        "\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017"
        '\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f"'
    )
    assert dumps(controls) == expected.encode()
    assert dumps('"\\/') == b'"\\"\\\\/"'
    literal = "\x7f \u00e9 \u2028 \u2029 \ufeff \U0001f600"
    assert dumps(literal) == b'"' + literal.encode() + b'"'


def test_dumps_sorts_by_utf16_code_units() -> None:
    value = {"\ue000": 1, "\U0001f600": 2, "a": 3, "": 4, "\u00e9": 5, "aa": 6, "B": 7}
    assert dumps(value) == (
        '{"":4,"B":7,"a":3,"aa":6,"\u00e9":5,"\U0001f600":2,"\ue000":1}'.encode()
    )
    # In code point order the two would be the other way round.
    assert sorted(["\ue000", "\U0001f600"]) == ["\ue000", "\U0001f600"]


def test_dumps_rfc8785_sorting_example() -> None:
    # RFC 8785 section 3.2.3.
    value = {
        "\u20ac": "Euro Sign",
        "\r": "Carriage Return",
        "\ufb33": "Hebrew Letter Dalet With Dagesh",
        "1": "One",
        "\U0001f600": "Emoji: Grinning Face",
        "\u0080": "Control",
        "\u00f6": "Latin Small Letter O With Diaeresis",
    }
    names = [name for name in parse(dumps(value))]
    assert names == ["\r", "1", "\u0080", "\u00f6", "\u20ac", "\U0001f600", "\ufb33"]


def test_dumps_containers() -> None:
    assert dumps({"b": [1, (2, 3)], "a": {}}) == b'{"a":{},"b":[1,[2,3]]}'
    assert dumps([]) == b"[]"
    assert dumps(()) == b"[]"


def test_dumps_accepts_subclasses_as_their_base_type() -> None:
    class Level(enum.IntEnum):
        HIGH = 3

    class Name(str):
        pass

    value = OrderedDict([("z", Level.HIGH), (Name("a"), Name("x"))])
    assert dumps(value) == b'{"a":"x","z":3}'


@pytest.mark.parametrize("value", [{1: 2}, {None: 1}, {("a",): 1}, [{"ok": {2.5: 1}}]])
def test_dumps_refuses_non_str_keys(value: Any) -> None:
    refuses(value, "key_not_string")


@pytest.mark.parametrize("value", [{1, 2}, b"bytes", object(), [1, 2j], {"a": range(3)}])
def test_dumps_refuses_other_types(value: Any) -> None:
    refuses(value, "unsupported_type")


@pytest.mark.parametrize("value", ["\ud800", ["a\udc00b"], {"\udbff": 1}, {"k": "\ud83d"}])
def test_dumps_refuses_lone_surrogates(value: Any) -> None:
    refuses(value, "lone_surrogate")


def test_dumps_depth_limit() -> None:
    value: Any = []
    for _ in range(MAX_DEPTH - 1):
        value = [value]
    assert dumps(value) == nested_arrays(MAX_DEPTH)
    refuses([value], "too_deep")
    refuses({"a": value}, "too_deep")


def test_dumps_very_deep_value_is_an_error_not_a_crash() -> None:
    value: Any = None
    for _ in range(100000):
        value = {"a": [value]}
    refuses(value, "too_deep")


def test_dumps_refuses_a_container_holding_itself() -> None:
    cyclic: list[Any] = []
    cyclic.append(cyclic)
    refuses(cyclic, "too_deep")


# ---------------------------------------------------------------------------
# Round trips


def random_double(rng: random.Random) -> float:
    while True:
        number = struct.unpack(">d", rng.getrandbits(64).to_bytes(8, "big"))[0]
        if math.isfinite(number):
            return number


def random_string(rng: random.Random) -> str:
    # ASCII, the BMP below the surrogates, and the two sides of the UTF-16 ordering trap.
    return "".join(
        chr(rng.choice([rng.randrange(0x20, 0x80), rng.randrange(0, 0xD800), 0x1F600, 0xE000]))
        for _ in range(rng.randrange(6))
    )


def random_value(rng: random.Random, depth: int = 0) -> Any:
    choice = rng.randrange(9 if depth < 6 else 7)
    if choice == 0:
        return random_double(rng)
    if choice == 1:
        return rng.choice([0.5, -1e-7, 1e21, 123e-20, 1e20, 0.1, rng.random()])
    if choice == 2:
        if rng.random() < 0.2:
            return rng.randrange(-(2**60), 2**60)
        return rng.randrange(-1000, 1000)
    if choice == 3:
        return random_string(rng)
    if choice == 4:
        return rng.choice([True, False, None])
    if choice == 5:
        return 2.0 ** rng.randrange(-1074, 1024)
    if choice == 6:
        return float(rng.randrange(-(2**53), 2**53))
    if choice == 7:
        return {random_string(rng): random_value(rng, depth + 1) for _ in range(rng.randrange(5))}
    return [random_value(rng, depth + 1) for _ in range(rng.randrange(5))]


def normalized(value: Any) -> Any:
    """What parse gives back for a value: integral safe numbers as int, tuples as lists."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        if float(value).is_integer() and abs(value) <= MAX_SAFE_INTEGER:
            return int(value)
        return float(value)
    if isinstance(value, dict):
        return {name: normalized(item) for name, item in value.items()}
    return [normalized(item) for item in value]


def test_round_trip_and_idempotence() -> None:
    rng = random.Random(8785)
    for _ in range(3000):
        value = random_value(rng)
        try:
            canonical = dumps(value)
        except CanonicalJSONError as exc:
            # Random ints beyond 2**53 are usually not doubles.
            assert exc.rule == "inexact_integer"
            continue
        parsed = parse(canonical)
        assert parsed == normalized(value)
        assert dumps(parsed) == canonical


def test_random_doubles_round_trip_bit_for_bit() -> None:
    rng = random.Random(1)
    for _ in range(20000):
        number = random_double(rng)
        parsed = parse(dumps(number))
        assert bits(float(parsed)) == bits(number) or number == 0


@pytest.mark.parametrize(
    "data",
    [
        b'{ "b" : [ 1.0 , 2e0, -0 ] , "a" : "\\u00e9\\n" , "c" : { } }',
        b"[1E21, 1e20, 0.0000001, 1.5e-5, 17.0, 9007199254740992]",
        b'{"\\ue000":1,"\\ud83d\\ude00":2}',
    ],
)
def test_canonical_form_of_noncanonical_input(data: bytes) -> None:
    canonical = dumps(parse(data))
    assert dumps(parse(canonical)) == canonical


def test_canonical_form_examples() -> None:
    assert dumps(parse(b'{ "b" : [ 1.0 , 2e0, -0 ] , "a" : "\\u00e9\\n" }')) == (
        '{"a":"\u00e9\\n","b":[1,2,0]}'.encode()
    )
    assert dumps(parse(b"[1E21, 1e20, 0.0000001, 1.5e-5, 9007199254740992]")) == (
        b"[1e+21,100000000000000000000,1e-7,0.000015,9007199254740992]"
    )


# ---------------------------------------------------------------------------
# Without json's C accelerator


FALLBACK_SCRIPT = """
import sys
sys.modules["_json"] = None  # as on an interpreter built without it
from metewand.canonical import CanonicalJSONError, dumps, parse
for line in sys.stdin:
    try:
        print("ok", dumps(parse(bytes.fromhex(line))).hex())
    except CanonicalJSONError as error:
        print("error", error.rule)
"""

FALLBACK_INPUTS = [
    b'{"b":[1.0,2e0,-0,1e21,1e-7,"\\u00e9\\n\\ud83d\\ude00"],"a":{"\\ue000":1,"\\ud83d\\ude00":2}}',
    b'{"a":1,"a":2}',
    b'"\\ud800"',
    b"1e400",
    b"9007199254740993",
    b"9007199254740992",
    b"NaN",
    "[\u0661]".encode(),
    "[1\u0661]".encode(),  # the pure-Python scanner's digit pattern is Unicode
    b"[1,]",
    b"[] x",
    b'"\x01"',
    b"\xef\xbb\xbf[]",
    b"[" * 129 + b"]" * 129,
    b"[" * 128 + b"]" * 128,
]


def outcome(data: bytes) -> str:
    try:
        return "ok " + dumps(parse(data)).hex()
    except CanonicalJSONError as error:
        return "error " + error.rule


def test_same_results_without_the_c_accelerator() -> None:
    source_root = Path(metewand.canonical.__file__).resolve().parent.parent
    environment = dict(os.environ, PYTHONPATH=str(source_root))
    finished = subprocess.run(
        [sys.executable, "-c", FALLBACK_SCRIPT],
        input="".join(data.hex() + "\n" for data in FALLBACK_INPUTS),
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
        check=True,
    )
    assert finished.stdout.splitlines() == [outcome(data) for data in FALLBACK_INPUTS]


FRESH_SCRIPT = """
import sys
sys.path.insert(0, sys.argv[1])
import metewand
before = set(sys.modules)
from metewand.canonical import CanonicalJSONError, parse
from metewand.frames import encode_message
assert parse(b'{"id":"0","protocols":[1],"x":[2.5,"\\\\n",true,null]}')["x"][0] == 2.5
encode_message({"id": "0", "ok": True, "x": [2.5, "\\n"]})
print(" ".join(sorted(set(sys.modules) - before)))
for data in (b"[1 2]", b'"abc', b"[1,]", b"1 x"):
    try:
        parse(data)
    except CanonicalJSONError as error:
        print(error.rule, error.offset)
"""


def test_fresh_interpreter() -> None:
    # Without site, nothing has imported json or re yet: parsing and writing
    # must not need them, and syntax errors must still be reported (before
    # Python 3.12 the C scanner needs json.decoder loaded to report them).
    source_root = Path(metewand.canonical.__file__).resolve().parent.parent
    finished = subprocess.run(
        [sys.executable, "-S", "-c", FRESH_SCRIPT, str(source_root)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    loaded, *errors = finished.stdout.splitlines()
    assert not {"json", "json.decoder", "re", "typing"} & set(loaded.split())
    assert errors[0] == "malformed 3"
    assert errors[1] == "malformed 0"
    assert errors[2].startswith("malformed ")
    assert errors[3] == "trailing_data 2"


# ---------------------------------------------------------------------------
# Conformance corpora, read in place


def corpora_path() -> Path:
    configured = os.environ.get("METEWAND_CORPORA")
    if configured:
        return Path(configured)
    repo_root = Path(__file__).resolve().parent.parent.parent
    return repo_root.parent / "shared" / "corpora"


CORPORA: Path | None = corpora_path() if corpora_path().is_dir() else None


def require_corpora() -> Path:
    if CORPORA is None:
        support.skip(
            "corpora",
            f"no conformance corpora at {corpora_path()} (set METEWAND_CORPORA to their folder)",
        )
    return CORPORA


def suite_expectations() -> list[Any]:
    if CORPORA is None:
        return [pytest.param(None, None, id="corpora-absent")]
    rows = []
    table_path = CORPORA / "JSONTestSuite" / "expectations.tsv"
    with open(table_path, encoding="utf-8", newline="") as table:
        for row in csv.DictReader(table, delimiter="\t"):
            rows.append(pytest.param(row["file"], row["expect"], id=row["file"]))
    return rows


def jcs_names() -> list[Any]:
    if CORPORA is None:
        return [pytest.param(None, id="corpora-absent")]
    return sorted((CORPORA / "jcs" / "input").iterdir())


@pytest.mark.parametrize(("name", "expect"), suite_expectations())
def test_json_test_suite(name: str | None, expect: str | None) -> None:
    corpora = require_corpora()
    suite = corpora / "JSONTestSuite"
    data = (suite / "test_parsing" / name).read_bytes()  # type: ignore[operator]
    assert expect in ("accept", "reject")
    if expect == "reject":
        with pytest.raises(CanonicalJSONError):
            parse(data)
        return
    canonical = (suite / "canonical" / name).read_bytes()  # type: ignore[operator]
    value = parse(data)
    assert dumps(value) == canonical
    assert parse(canonical) == value


def test_json_test_suite_expectations_cover_every_file() -> None:
    corpora = require_corpora()
    suite = corpora / "JSONTestSuite"
    with open(suite / "expectations.tsv", encoding="utf-8", newline="") as table:
        rows = list(csv.DictReader(table, delimiter="\t"))
    named = {row["file"] for row in rows}
    assert named == {path.name for path in (suite / "test_parsing").iterdir()}
    accepted = {row["file"] for row in rows if row["expect"] == "accept"}
    assert accepted == {path.name for path in (suite / "canonical").iterdir()}


@pytest.mark.parametrize("source", jcs_names())
def test_jcs_reference_vectors(source: Path | None) -> None:
    corpora = require_corpora()
    assert source is not None
    expected = (corpora / "jcs" / "output" / source.name).read_bytes()
    assert dumps(parse(source.read_bytes())) == expected


def test_es6_number_formatting() -> None:
    corpora = require_corpora()
    wrong = []
    rows = 0
    with open(corpora / "es6-numbers.csv", encoding="ascii", newline="") as table:
        for hex_bits, expected in csv.reader(table):
            rows += 1
            number = struct.unpack(">d", bytes.fromhex(hex_bits.zfill(16)))[0]
            written = dumps(number).decode()
            if written != expected:
                wrong.append(f"{hex_bits}: wrote {written}, expected {expected}")
                continue
            parsed = parse(expected.encode())
            # -0 is written 0, which reads back as +0 by design.
            if bits(float(parsed)) != bits(number) and number != 0:
                wrong.append(f"{hex_bits}: {expected} reads back as {parsed!r}")
    assert rows > 20000
    assert not wrong, "\n".join(wrong[:20])
