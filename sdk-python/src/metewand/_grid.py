"""The values of a parameter grid's point, read from its name: ``small[rows=200]`` is the point of
grid ``small`` whose ``rows`` is 200 (keys in byte order, values in canonical JSON, as the executor
names points). Results need no repository to say which point a row is.
"""

from __future__ import annotations

import json
from functools import lru_cache
from types import MappingProxyType
from typing import Any

_DECODER = json.JSONDecoder()
_EMPTY: MappingProxyType[str, Any] = MappingProxyType({})


def point_values(name: str) -> dict[str, Any]:
    """The values of the point ``name`` by key; empty for a name that is not a grid's point."""
    base, bracket, rest = name.partition("[")
    if not bracket or not base or not rest.endswith("]"):
        return {}
    inner, values = rest[:-1], {}
    at = 0
    while at < len(inner):
        equals = inner.find("=", at)
        if equals <= at:
            return {}
        try:
            value, end = _DECODER.raw_decode(inner, equals + 1)
        except json.JSONDecodeError:
            return {}
        values[inner[at:equals]] = value
        if end < len(inner) and inner[end] != ",":
            return {}
        at = end + 1
    return values


@lru_cache(maxsize=4096)
def grid_columns(problem: str, dataset: str, implementation: str) -> MappingProxyType[str, Any]:
    """A row's grid columns: ``problem.<key>``, ``dataset.<key>`` and ``implementation.<key>`` for
    each value of the points it names, sorted by column (read-only; empty without a grid)."""
    columns = {
        f"{kind}.{key}": value
        for kind, name in (("problem", problem), ("dataset", dataset), ("implementation", implementation))
        for key, value in point_values(name).items()
    }
    return MappingProxyType(dict(sorted(columns.items()))) if columns else _EMPTY
