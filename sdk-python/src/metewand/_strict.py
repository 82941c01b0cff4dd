"""Checks shared by the generated models in ``metewand.models``.

Each check takes a decoded JSON value and the JSON Pointer (RFC 6901) of its location, and either
returns the value in its canonical Python form or raises ``ModelError`` naming that location. The
rules are JSON Schema's, applied to what ``json.loads`` produces: ``bool`` is never a number, a
float with an integral value is the integer it equals, and string lengths count code points.

Every generated model imports this module, and every worker imports the models, so it stays small
and imports nothing at load time: ``re``, ``json`` and ``typing`` are imported when first needed.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    _T = TypeVar("_T")

__all__ = [
    "ModelError",
    "check_array",
    "check_boolean",
    "check_const",
    "check_enum",
    "check_integer",
    "check_json_object",
    "check_model",
    "check_object",
    "check_string",
    "literal_alias",
]


class ModelError(ValueError):
    """A value that its model does not accept.

    ``path`` is the JSON Pointer of the offending value within the document ("" for the document
    itself) and ``message`` says what is wrong with it.
    """

    path: str
    message: str

    def __init__(self, path: str, message: str) -> None:
        super().__init__(path, message)
        self.path = path
        self.message = message

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


def _describe(value: object) -> str:
    """A short JSON-like rendering of ``value`` for error messages."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if type(value) is int or type(value) is float:
        return repr(value)
    if isinstance(value, str):
        import json

        text = json.dumps(value, ensure_ascii=False)
        return text if len(text) <= 80 else text[:76] + '..."'
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    # Not a JSON value at all, e.g. a tuple or a model instance where a dict belongs.
    return f"a Python {type(value).__name__}"


def _quote(text: str) -> str:
    import json

    return json.dumps(text, ensure_ascii=False)


def check_object(
    value: object, path: str, properties: frozenset[str], required: tuple[str, ...]
) -> dict[str, Any]:
    """Checks that ``value`` is an object with only ``properties``, and all ``required`` ones."""
    if not isinstance(value, dict):
        raise ModelError(path, f"expected an object, got {_describe(value)}")
    for key in value:
        if key not in properties:
            # Reported at the object, as JSON Schema's additionalProperties reports it.
            name = _quote(key) if isinstance(key, str) else _describe(key)
            raise ModelError(path, f"unknown property {name}")
    for key in required:
        if key not in value:
            raise ModelError(path, f"missing required property {_quote(key)}")
    return value


def check_json_object(value: object, path: str) -> dict[str, Any]:
    """Checks that ``value`` is an object with string keys, and returns a shallow copy of it."""
    if not isinstance(value, dict):
        raise ModelError(path, f"expected an object, got {_describe(value)}")
    for key in value:
        if not isinstance(key, str):
            raise ModelError(path, f"property names must be strings, got {_describe(key)}")
    return dict(value)


def check_map(
    value: object,
    path: str,
    item: Callable[..., _T],
    *args: object,
    key: Callable[[object, str], str] | None = None,
) -> dict[str, _T]:
    """Checks an object whose members all have one type: each name with ``key(name, path)``, if
    given, and each value with ``item(value, path, *args)``."""
    if not isinstance(value, dict):
        raise ModelError(path, f"expected an object, got {_describe(value)}")
    members: dict[str, _T] = {}
    for name, element in value.items():
        if not isinstance(name, str):
            raise ModelError(path, f"property names must be strings, got {_describe(name)}")
        member = f"{path}/{name.replace('~', '~0').replace('/', '~1')}"
        if key is not None:
            key(name, member)
        members[name] = item(element, member, *args)
    return members


def check_positive_number(value: object, path: str) -> float:
    """Checks a finite number greater than zero (an integer or a float, not a boolean)."""
    if type(value) is not int and type(value) is not float:
        raise ModelError(path, f"expected a number, got {_describe(value)}")
    # nan fails both comparisons.
    if not 0 < value < float("inf"):
        raise ModelError(path, f"{_describe(value)} is not a finite number greater than zero")
    return value


# Compiled on first use of each pattern, so that importing the models compiles nothing.
_matchers: dict[str, Callable[[str], object]] = {}


def check_string(
    value: object, path: str, *, min_length: int = 0, pattern: str | None = None
) -> str:
    """Checks a string's length in code points and, if given, that ``pattern`` matches all of it."""
    if not isinstance(value, str):
        raise ModelError(path, f"expected a string, got {_describe(value)}")
    if len(value) < min_length:
        unit = "character" if min_length == 1 else "characters"
        raise ModelError(path, f"{_describe(value)} is shorter than {min_length} {unit}")
    if pattern is not None:
        match = _matchers.get(pattern)
        if match is None:
            import re

            # fullmatch, because "$" alone would also match before a final "\n"; ASCII, because
            # the schema dialect's \d means [0-9] only.
            match = _matchers[pattern] = re.compile(pattern, re.ASCII).fullmatch
        if match(value) is None:
            raise ModelError(
                path, f"{_describe(value)} does not match the pattern {_quote(pattern)}"
            )
    return value


def check_enum(value: object, path: str, allowed: frozenset[_T]) -> _T:
    """Checks that ``value`` is one of the strings in ``allowed``."""
    if not isinstance(value, str):
        raise ModelError(path, f"expected a string, got {_describe(value)}")
    if value not in allowed:
        choices = ", ".join(_quote(str(choice)) for choice in sorted(allowed, key=str))
        raise ModelError(path, f"{_describe(value)} is not one of {choices}")
    return value


def check_integer(
    value: object, path: str, *, minimum: int | None = None, maximum: int | None = None
) -> int:
    """Checks an integer and its range; a float with an integral value becomes that integer."""
    if type(value) is int:
        number = value
    # A float is accepted only when it is exactly an integer (17.0 from "1.7e1"), not inf or nan.
    elif type(value) is float and value.is_integer():
        number = int(value)
    else:
        raise ModelError(path, f"expected an integer, got {_describe(value)}")
    # Messages show the value as it came, so 1e300 is not spelled out in 301 digits.
    if minimum is not None and number < minimum:
        raise ModelError(path, f"{_describe(value)} is less than the minimum {minimum}")
    if maximum is not None and number > maximum:
        raise ModelError(path, f"{_describe(value)} is greater than the maximum {maximum}")
    return number


def check_boolean(value: object, path: str) -> bool:
    """Checks that ``value`` is true or false."""
    if type(value) is not bool:
        raise ModelError(path, f"expected a boolean, got {_describe(value)}")
    return value


def check_const(value: object, path: str, expected: _T) -> _T:
    """Checks that ``value`` is the JSON value ``expected``: a string, a boolean or an integer."""
    if type(value) is type(expected) and value == expected:
        return expected
    # JSON Schema compares numbers by value, so 1.0 is the constant 1; True is not, whatever
    # Python says.
    if type(expected) is int and type(value) is float and value == expected:
        return expected
    if isinstance(expected, str):
        wanted = _quote(expected)
    else:
        wanted = _describe(expected)
    raise ModelError(path, f"expected {wanted}, got {_describe(value)}")


def check_array(
    value: object,
    path: str,
    item: Callable[..., _T],
    *args: object,
    min_items: int = 0,
    unique: bool = False,
) -> list[_T]:
    """Checks an array: its length, each item with ``item(value, path, *args)``, its uniqueness.

    Uniqueness is decided on the checked items, so 1 and 1.0 in an integer array are duplicates, as
    in JSON Schema; it is offered only for arrays of strings, integers and booleans.
    """
    if not isinstance(value, list):
        raise ModelError(path, f"expected an array, got {_describe(value)}")
    if len(value) < min_items:
        unit = "item" if min_items == 1 else "items"
        raise ModelError(path, f"expected at least {min_items} {unit}, got {len(value)}")
    items = [item(element, f"{path}/{index}", *args) for index, element in enumerate(value)]
    if unique:
        seen: dict[object, int] = {}
        for index, element in enumerate(items):
            # A bool would collide with 1 and 0, but the item checks keep them out of number arrays.
            first = seen.setdefault(element, index)
            if first != index:
                raise ModelError(path, f"item {index} repeats item {first}")
    return items


def check_nullable(value: object, path: str, item: Callable[..., _T], *args: object) -> _T | None:
    """None for a null, and ``item(value, path, *args)`` otherwise: an array's nullable items."""
    if value is None:
        return None
    return item(value, path, *args)


def check_model(value: object, path: str, model: type[_T]) -> _T:
    """Checks that ``value`` is already an instance of ``model``, for the models' constructors."""
    if not isinstance(value, model):
        wanted = model.__name__
        raise ModelError(path, f"expected an instance of {wanted}, got {_describe(value)}")
    return value


def literal_alias(
    namespace: dict[str, Any], name: str, aliases: dict[str, frozenset[str]]
) -> object:
    """Builds the ``typing.Literal`` alias ``name`` on first access, as a module ``__getattr__``.

    The generated modules declare their Literal aliases for type checkers only, so that importing
    them does not import ``typing``; this makes the same names work at run time too.
    """
    values = aliases.get(name)
    if values is None:
        raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
    from typing import Literal

    alias = Literal[tuple(sorted(values))]  # type: ignore[valid-type]
    namespace[name] = alias
    return alias
