"""Restricted JSON in, canonical JSON out.

``parse`` accepts exactly the restricted JSON domain every Metewand component
reads: UTF-8 without a byte-order mark, one value surrounded only by JSON white
space, no duplicate member names, strings of Unicode scalar values, numbers read
as the nearest IEEE-754 double (never silently rounding an integer literal), and
nesting at most 128 deep.  ``dumps`` writes the RFC 8785 (JSON Canonicalization
Scheme) form of a value, which ``parse`` reads back to an equal value.

Numbers come back as ``int`` when their value is an integer within
±(2**53 - 1), however they were spelled (``17.0``, ``1.7e1`` and ``-0`` all give
an ``int``), and as ``float`` otherwise.

When a document breaks several rules at once, the rule reported is one of them,
not necessarily the first in the text.
"""

from __future__ import annotations

# typing costs more to import than this whole module, and annotations here are
# never evaluated, so it is only imported for type checkers.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Callable, Iterator
    from typing import Any

__all__ = [
    "MAX_DEPTH",
    "MAX_SAFE_INTEGER",
    "CanonicalJSONError",
    "dumps",
    "parse",
]

MAX_DEPTH = 128
"""Deepest nesting of arrays and objects, counted together, that is accepted."""

MAX_SAFE_INTEGER = 2**53 - 1
"""Bound of the integers that doubles hold without gaps; within it numbers are read as int."""

_INFINITY = float("inf")
_WHITESPACE = " \t\n\r"
_BOM = b"\xef\xbb\xbf"


class CanonicalJSONError(ValueError):
    """A document outside the restricted domain, or a value with no canonical form.

    ``rule`` names the broken rule with a short stable name; ``offset`` is the
    byte offset in the parsed document where the problem was found, or None
    when it is not known (and always None for ``dumps``).

    ``parse`` rules: ``byte_order_mark``, ``invalid_utf8``, ``malformed``
    (not JSON, including NaN and Infinity), ``trailing_data``, ``too_deep``,
    ``duplicate_key``, ``lone_surrogate``, ``number_out_of_range`` and
    ``inexact_integer``.  ``dumps`` rules: ``unsupported_type``,
    ``key_not_string``, ``not_finite``, ``inexact_integer``,
    ``number_out_of_range``, ``lone_surrogate`` and ``too_deep``.
    """

    def __init__(self, rule: str, message: str, offset: int | None = None) -> None:
        super().__init__(message if offset is None else f"{message} at byte {offset}")
        self.rule = rule
        self.message = message
        self.offset = offset


class _Rejected(Exception):
    """Raised from inside the json scanner's hooks, which cannot know where they are.

    Deliberately not a ValueError, so nothing between the hook and ``parse``
    mistakes it for a decoding error of its own.
    """

    def __init__(self, rule: str, message: str, token: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message
        self.token = token


# ---------------------------------------------------------------------------
# Parsing


def parse(data: bytes) -> Any:
    """Parse one restricted-domain JSON document and return its value.

    Objects become ``dict``, arrays ``list``, strings ``str``, ``true``/``false``
    ``bool``, ``null`` None, and numbers ``int`` or ``float`` as described in
    the module documentation.  Raises CanonicalJSONError for anything outside
    the domain.
    """
    if not isinstance(data, bytes):
        if not isinstance(data, (bytearray, memoryview)):
            raise TypeError(f"parse expects bytes, not {type(data).__name__}")
        data = bytes(data)
    if data.startswith(_BOM):
        raise CanonicalJSONError("byte_order_mark", "byte order mark before the json text", 0)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CanonicalJSONError("invalid_utf8", "invalid utf-8", exc.start) from None

    # The scanner recurses once per level, so anything too deep must be refused
    # before it gets there.  A document with few brackets cannot be deep.
    if data.count(b"[") + data.count(b"{") > MAX_DEPTH:
        _check_depth(data)

    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = _scan(text, start)
    except StopIteration as exc:
        raise CanonicalJSONError(
            "malformed", "expecting a value", _byte_offset(text, exc.value)
        ) from None
    except _Rejected as exc:
        raise _locate(text, exc) from None
    except ValueError as exc:
        # The scanner's own JSONDecodeError: a syntax error.
        pos = getattr(exc, "pos", None)
        raise CanonicalJSONError(
            "malformed",
            _lower_message(getattr(exc, "msg", str(exc))),
            None if pos is None else _byte_offset(text, pos),
        ) from None

    # Every surrogate left in the value came from an escape the scanner could
    # not pair, and the raw text can only hold such an escape if it spells one.
    if b"\\" in data and _may_spell_surrogate(data):
        _check_surrogates(text, start, end)

    if end != len(text):
        after = text[end:]
        trailing = end + len(after) - len(after.lstrip(_WHITESPACE))
        if trailing != len(text):
            raise CanonicalJSONError(
                "trailing_data", "data after the json value", _byte_offset(text, trailing)
            )
    return value


_scan_once: Callable[[str, int], tuple[Any, int]] | None = None


def _scan(text: str, start: int) -> tuple[Any, int]:
    scan_once = _scan_once or _scanner()
    try:
        return scan_once(text, start)
    except SystemError:
        # Before Python 3.12 the C scanner can only report a syntax error once
        # json.decoder has been imported, and otherwise fails like this.
        import json.decoder  # noqa: F401

        return scan_once(text, start)


def _scanner() -> Callable[[str, int], tuple[Any, int]]:
    # Built on first use.  json's C scanner is taken straight from _json: the
    # json package imports and compiles regular expressions, which in a fresh
    # interpreter costs several times what the scanner itself does.
    global _scan_once
    if _scan_once is None:
        try:
            from _json import make_scanner
        except ImportError:  # no C accelerator: json's own pure-Python decoder
            from json.decoder import JSONDecoder

            _scan_once = JSONDecoder(
                object_pairs_hook=_make_object,
                parse_float=_parse_fraction,
                parse_int=_parse_integer,
                parse_constant=_refuse_constant,
                strict=True,
            ).scan_once  # type: ignore[attr-defined]  # CPython's, undocumented and not in the stubs
        else:
            # The C scanner reads a decoder's attributes, which the settings carry.
            _scan_once = make_scanner(_ScannerSettings())  # type: ignore[arg-type]
    return _scan_once


class _ScannerSettings:
    """The attributes json's C scanner reads from the decoder it works for."""

    def __init__(self) -> None:
        self.strict = True
        self.object_hook = None
        self.object_pairs_hook = _make_object
        self.parse_float = _parse_fraction
        self.parse_int = _parse_integer
        self.parse_constant = _refuse_constant


def _make_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen = set()
        for name, _ in pairs:
            if name in seen:
                raise _Rejected("duplicate_key", f"duplicate member name {name!r}", name)
            seen.add(name)
    return obj


def _parse_integer(literal: str) -> int | float:
    # Fifteen characters hold at most fifteen digits: always a safe integer.
    # isascii() guards the pure-Python scanner, whose digit pattern is Unicode.
    if len(literal) < 16 and literal.isascii():
        return int(literal)
    return _parse_long_integer(literal)


def _parse_long_integer(literal: str) -> int | float:
    if not literal.isascii():
        raise _Rejected("malformed", "number with non-ascii digits", literal)
    if len(literal) <= 17:
        value = int(literal)
        if -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
            return value
    # float() rounds correctly however long the literal is, and gives an
    # infinity rather than an error when it overflows.
    number = float(literal)
    if number == _INFINITY or number == -_INFINITY:
        raise _Rejected("number_out_of_range", f"number out of range: {_clip(literal)}", literal)
    if _format_float(number) != literal:
        raise _Rejected(
            "inexact_integer",
            f"integer literal {_clip(literal)} is not exactly a double's canonical spelling",
            literal,
        )
    return number


def _parse_fraction(literal: str) -> int | float:
    if not literal.isascii():
        raise _Rejected("malformed", "number with non-ascii digits", literal)
    number = float(literal)
    if number == _INFINITY or number == -_INFINITY:
        raise _Rejected("number_out_of_range", f"number out of range: {_clip(literal)}", literal)
    if number.is_integer() and -MAX_SAFE_INTEGER <= number <= MAX_SAFE_INTEGER:
        return int(number)
    return number


def _refuse_constant(literal: str) -> Any:
    raise _Rejected("malformed", f"{literal!r} is not a json value", literal)


def _clip(literal: str) -> str:
    return literal if len(literal) <= 40 else literal[:37] + "..."


def _lower_message(message: str) -> str:
    # json's own messages: "Expecting value", "Invalid control character at", ...
    if message.endswith(" at"):
        message = message[:-3]
    return message[:1].lower() + message[1:]


def _byte_offset(text: str, index: int) -> int:
    if text.isascii():
        return index
    return len(text[:index].encode("utf-8"))


_patterns: dict[str, re.Pattern[Any]] = {}


def _pattern(name: str, source: str | bytes, flags: int = 0) -> re.Pattern[Any]:
    # Compiled on first use: importing re is costly in a fresh interpreter,
    # and only uncommon documents need it.
    compiled = _patterns.get(name)
    if compiled is None:
        import re

        compiled = _patterns[name] = re.compile(source, flags | re.DOTALL)
    return compiled


# A string, even one left unterminated (which swallows the rest of the text,
# as it would for the parser), so that brackets inside strings are not counted.
_STRING_BYTES = rb'"[^"\\]*(?:\\.[^"\\]*)*"?'
_NOT_QUOTES_OR_BRACKETS = bytes(b for b in range(256) if b not in b'"[]{}')
_ONE_KIND_OF_BRACKET = bytes.maketrans(b"{}", b"[]")


def _check_depth(data: bytes) -> None:
    # A quick bound first, from C-speed byte operations.  Dropping escaped
    # backslashes and then escaped quotes leaves only the quotes that delimit
    # strings (runs of backslashes start at an escape, so pairing them from
    # the left is right).  Keeping just quotes and brackets, removing each
    # adjacent pair of quotes (an empty string, or two strings with no bracket
    # between them) and then whatever lies between the remaining pairs leaves
    # the brackets outside strings.
    unescaped = data
    if b"\\" in data:
        unescaped = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    skeleton = unescaped.translate(None, _NOT_QUOTES_OR_BRACKETS)
    if b'"' in skeleton:
        skeleton = skeleton.replace(b'""', b"")
        if b'"' in skeleton:
            skeleton = b"".join(skeleton.split(b'"')[0::2])
    # Each pass removes the innermost level of every balanced group, so a
    # balanced skeleton no deeper than the limit is gone within that many
    # passes.  Anything left is too deep, unbalanced, or followed by more
    # brackets; the exact walk below decides which.
    skeleton = skeleton.translate(_ONE_KIND_OF_BRACKET)
    for _ in range(MAX_DEPTH):
        if not skeleton:
            return
        skeleton = skeleton.replace(b"[]", b"")
    if not skeleton:
        return

    # Too deep somewhere; walk it again exactly, stopping where the parser
    # itself would stop (the end of the first complete value), to find where.
    # Brackets after a first value that is not a container are trailing data.
    first = len(data) - len(data.lstrip(b" \t\n\r"))
    if data[first : first + 1] not in (b"[", b"{"):
        return
    depth = 0
    tokens = _pattern("bracket_tokens", _STRING_BYTES + rb"|[\[\]{}]")
    for match in tokens.finditer(data, first):
        char = data[match.start()]
        if char == 0x5B or char == 0x7B:  # [ {
            depth += 1
            if depth > MAX_DEPTH:
                raise CanonicalJSONError(
                    "too_deep", f"nesting deeper than {MAX_DEPTH} levels", match.start()
                )
        elif char == 0x5D or char == 0x7D:  # ] }
            depth -= 1
            if depth <= 0:
                return


def _may_spell_surrogate(data: bytes) -> bool:
    # Substring searches rather than a regular expression, so that the common
    # case does not import re.  Escapes are spelled with a lowercase u.
    if b"\\u" not in data:
        return False
    lowered = data.lower()
    return any(prefix in lowered for prefix in _SURROGATE_ESCAPE_PREFIXES)


_SURROGATE_ESCAPE_PREFIXES = tuple(b"\\ud" + bytes([digit]) for digit in b"89abcdef")


def _check_surrogates(text: str, start: int, end: int) -> None:
    # The text is valid JSON here, so every backslash starts an escape and
    # taking escapes left to right (a "\\" pair included) aligns them exactly.
    escapes = _pattern("escapes", r"\\(?:u([dD][89a-fA-F][0-9a-fA-F]{2})|.)")
    high = None
    for match in escapes.finditer(text, start, end):
        unit = match.group(1)
        if high is not None:
            if unit is not None and unit[1] in "cdefCDEF" and match.start() == high.end():
                high = None
                continue
            _lone_surrogate(text, high)
        if unit is None:
            continue
        if unit[1] in "89abAB":
            high = match
        else:
            _lone_surrogate(text, match)
    if high is not None:
        _lone_surrogate(text, high)


def _lone_surrogate(text: str, match: re.Match[str]) -> None:
    raise CanonicalJSONError(
        "lone_surrogate",
        f"lone surrogate escape {match.group().lower()}",
        _byte_offset(text, match.start()),
    )


# Tokens of a JSON text; only used to find where a hook's complaint lies,
# within a prefix the scanner has already found well-formed.
_TOKENS = (
    r'"[^"\\]*(?:\\.[^"\\]*)*"?'
    r"|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?"
    r"|-?[A-Za-z]+"
    r"|[\[\]{}:,]"
)


def _tokens(text: str) -> Iterator[re.Match[str]]:
    return _pattern("tokens", _TOKENS).finditer(text)


def _locate(text: str, rejected: _Rejected) -> CanonicalJSONError:
    if rejected.rule == "duplicate_key":
        found = _first_duplicate(text)
        if found is not None:
            index, name = found
            return CanonicalJSONError(
                "duplicate_key",
                f"duplicate member name {name!r}",
                _byte_offset(text, index),
            )
        return CanonicalJSONError(rejected.rule, rejected.message)
    for match in _tokens(text):
        if match.group() == rejected.token:
            return CanonicalJSONError(
                rejected.rule, rejected.message, _byte_offset(text, match.start())
            )
    return CanonicalJSONError(rejected.rule, rejected.message)


def _first_duplicate(text: str) -> tuple[int, str] | None:
    from json.decoder import scanstring  # type: ignore[attr-defined]  # CPython's, not in the stubs

    # One entry per open container: the names seen so far, or None for an array.
    open_containers: list[set[str] | None] = []
    expect_name = False
    for match in _tokens(text):
        char = text[match.start()]
        if char == "{":
            open_containers.append(set())
            expect_name = True
            continue
        if char == "[":
            open_containers.append(None)
        elif char == "]" or char == "}":
            if open_containers:
                open_containers.pop()
        elif char == ",":
            expect_name = bool(open_containers) and open_containers[-1] is not None
            continue
        elif char == '"' and expect_name:
            names = open_containers[-1]
            name = scanstring(text, match.start() + 1)[0]
            assert names is not None
            if name in names:
                return match.start(), name
            names.add(name)
        expect_name = False
    return None


# ---------------------------------------------------------------------------
# Canonical writing


def dumps(value: Any) -> bytes:
    """Return the RFC 8785 canonical UTF-8 bytes of ``value``.

    Accepts dict (str keys), list, tuple, str, int, float, bool and None,
    nested at most 128 deep.  Members are sorted by the UTF-16 code units of
    their names; numbers take their ECMAScript shortest round-trip form.
    Raises CanonicalJSONError for a value with no canonical form: another
    type, a non-str key, NaN or an infinity, an int beyond ±(2**53 - 1) that
    is not exactly a double, a string holding a lone surrogate, or too deep a
    nesting (which includes a container that contains itself).
    """
    text = _encode(value, 0)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise CanonicalJSONError(
            "lone_surrogate", f"string holds a lone surrogate {exc.object[exc.start]!r}"
        ) from None


_quote: Callable[[str], str] | None = None


def _quoter() -> Callable[[str], str]:
    # json's C string encoder escapes exactly what RFC 8785 escapes, in the
    # same spelling (\b \t \n \f \r \" \\ and lowercase \u00xx), and leaves
    # everything else, lone surrogates included, for the UTF-8 step to judge.
    global _quote
    if _quote is None:
        try:
            from _json import encode_basestring
        except ImportError:
            from json.encoder import py_encode_basestring as encode_basestring

        _quote = encode_basestring
    return _quote


def _encode(value: Any, depth: int) -> str:
    kind = type(value)
    if kind is str:
        return (_quote or _quoter())(value)
    if kind is int:
        return _format_int(value)
    if kind is float:
        return _format_float(value)
    if kind is dict:
        return _encode_object(value, depth + 1)
    if kind is list or kind is tuple:
        return _encode_array(value, depth + 1)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    # Subclasses (IntEnum, OrderedDict, ...) are written as their base type.
    if isinstance(value, str):
        return (_quote or _quoter())(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return _format_int(int(value))
    if isinstance(value, float):
        return _format_float(float(value))
    if isinstance(value, dict):
        return _encode_object(value, depth + 1)
    if isinstance(value, (list, tuple)):
        return _encode_array(value, depth + 1)
    raise CanonicalJSONError("unsupported_type", f"no json form for {kind.__name__}")


def _too_deep() -> CanonicalJSONError:
    return CanonicalJSONError(
        "too_deep", f"nesting deeper than {MAX_DEPTH} levels (or a container holding itself)"
    )


def _encode_object(obj: dict[Any, Any], depth: int) -> str:
    if depth > MAX_DEPTH:
        raise _too_deep()
    quote = _quote or _quoter()
    names = list(obj)
    try:
        joined = "".join(names)
    except TypeError:
        bad = next(name for name in names if not isinstance(name, str))
        raise CanonicalJSONError("key_not_string", f"member name {bad!r} is not a str") from None
    # Code point order is UTF-16 order unless a name holds a character at or
    # above U+E000, which sorts before a supplementary character by code point
    # but after its surrogates in UTF-16.
    if joined.isascii() or max(joined) < "\ue000":
        names.sort()
    else:
        names.sort(key=_utf16_units)
    parts: list[str] = []
    append = parts.append
    for name in names:
        value = obj[name]
        kind = type(value)
        # The common leaves are written here to save a call per member.
        if kind is str:
            append(quote(name) + ":" + quote(value))
        elif kind is float:
            append(quote(name) + ":" + _format_float(value))
        elif kind is int and -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
            append(quote(name) + ":" + int.__repr__(value))
        else:
            append(quote(name) + ":" + _encode(value, depth))
    return "{" + ",".join(parts) + "}"


def _utf16_units(name: str) -> bytes:
    # surrogatepass keeps sorting going; the lone surrogate is refused later.
    return name.encode("utf-16-be", "surrogatepass")


def _encode_array(items: list[Any] | tuple[Any, ...], depth: int) -> str:
    if depth > MAX_DEPTH:
        raise _too_deep()
    quote = _quote or _quoter()
    parts: list[str] = []
    append = parts.append
    for value in items:
        kind = type(value)
        if kind is str:
            append(quote(value))
        elif kind is float:
            append(_format_float(value))
        elif kind is int and -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
            append(int.__repr__(value))
        else:
            append(_encode(value, depth))
    return "[" + ",".join(parts) + "]"


def _format_int(value: int) -> str:
    if -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
        return int.__repr__(value)
    try:
        number = float(value)
    except OverflowError:
        # Not str(value): very long ints refuse to be converted to text.
        raise CanonicalJSONError(
            "number_out_of_range", f"integer of {value.bit_length()} bits is beyond any double"
        ) from None
    if number != value:
        raise CanonicalJSONError(
            "inexact_integer", f"integer {_clip(str(value))} is not exactly a double"
        )
    return _format_float(number)


def _format_float(number: float) -> str:
    """The ECMAScript Number.prototype.toString form of a finite double."""
    # repr gives the shortest digits that round-trip, as ECMAScript does, and
    # uses positional notation exactly for 1e-4 <= |x| < 1e16, where
    # ECMAScript does too; only its integral ".0" differs there.
    text = float.__repr__(number)
    if "e" in text or "n" in text:
        return _format_float_exponent(text)
    if text.endswith(".0"):
        text = text[:-2]
        if text == "-0":
            return "0"
    return text


def _format_float_exponent(text: str) -> str:
    if "n" in text:
        raise CanonicalJSONError("not_finite", f"{text} has no json form")
    sign = ""
    if text[0] == "-":
        sign = "-"
        text = text[1:]
    mantissa, _, exponent = text.partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).rstrip("0")
    # The value is 0.<digits> * 10**point, with digits[0] nonzero.
    point = len(whole) + int(exponent)
    count = len(digits)
    if count <= point <= 21:
        return sign + digits + "0" * (point - count)
    if 0 < point <= 21:
        return sign + digits[:point] + "." + digits[point:]
    if -6 < point <= 0:
        return sign + "0." + "0" * -point + digits
    power = point - 1
    head = digits[0] + ("." + digits[1:] if count > 1 else "")
    return f"{sign}{head}e{'+' if power > 0 else '-'}{abs(power)}"
