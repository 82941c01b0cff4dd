"""The shared vectors in schemas/vectors against the Python canonical parser and writer.

Parser-level invalid vectors hold text that only the restricted-domain parser can refuse
(duplicate keys, lone surrogates, numbers out of range, and so on): ``parse`` must refuse each.
Every valid instance must survive ``dumps`` and ``parse`` with its value unchanged, and its
canonical bytes must be a fixed point. The Rust tests check the same vectors the same way, so the
two languages agree on the domain.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from metewand.canonical import CanonicalJSONError, dumps, parse

VECTORS_DIR = Path(__file__).resolve().parents[2] / "schemas" / "vectors"


def _load() -> tuple[list[Any], list[Any]]:
    valid = []
    parser_invalid = []
    for path in sorted(VECTORS_DIR.glob("*.json")):
        with path.open(encoding="utf-8") as file:
            document = json.load(file)
        schema = document["schema"]
        for vector in document["valid"]:
            valid.append(pytest.param(vector["instance"], id=f"{schema}: {vector['name']}"))
        for vector in document["invalid"]:
            if vector["level"] == "parser":
                parser_invalid.append(
                    pytest.param(vector["text"], id=f"{schema}: {vector['name']}")
                )
    return valid, parser_invalid


VALID, PARSER_INVALID = _load()


def same_json(actual: Any, expected: Any) -> bool:
    """JSON equality: numbers by value (17 is 17.0), but booleans are never numbers."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(actual) is type(expected) and actual == expected
    if isinstance(expected, (int, float)):
        return type(actual) in (int, float) and actual == expected
    if isinstance(expected, dict):
        return (
            isinstance(actual, dict)
            and actual.keys() == expected.keys()
            and all(same_json(actual[key], expected[key]) for key in expected)
        )
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(actual) == len(expected)
            and all(same_json(a, e) for a, e in zip(actual, expected, strict=True))
        )
    return type(actual) is type(expected) and actual == expected


def test_the_vectors_are_there() -> None:
    assert len(VALID) >= 100
    assert len(PARSER_INVALID) >= 15


@pytest.mark.parametrize("text", PARSER_INVALID)
def test_parser_level_invalid_vectors_are_refused(text: str) -> None:
    # surrogatepass: a vector may spell a byte sequence that is not valid UTF-8 on purpose.
    with pytest.raises(CanonicalJSONError):
        parse(text.encode("utf-8", "surrogatepass"))


@pytest.mark.parametrize("instance", VALID)
def test_valid_vectors_round_trip_through_their_canonical_bytes(instance: Any) -> None:
    canonical = dumps(instance)
    reparsed = parse(canonical)
    assert same_json(reparsed, instance)
    assert dumps(reparsed) == canonical
