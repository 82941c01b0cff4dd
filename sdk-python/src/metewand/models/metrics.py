# Generated from schemas/metrics.schema.json by codegen; do not edit. Regenerate with: cargo xtask codegen
"""Metewand metrics envelope.

The document a problem evaluator writes at its assigned metrics path: the metrics the problem's
metric schema validates.

Each class checks its constructor's arguments, decodes parsed JSON strictly with from_dict
(raising ModelError with the JSON Pointer of the first value the schema refuses) and encodes with
to_dict. DEFINITIONS maps the schema's definition names to the classes.
"""

from __future__ import annotations

from metewand._strict import ModelError, check_json_object, check_object
from metewand.models.common import _schema_id

# Annotations are strings (see the __future__ import), so typing is needed only by type checkers.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["DEFINITIONS", "Metrics", "ModelError"]


class Metrics:
    """Metewand metrics envelope.

    The document a problem evaluator writes at its assigned metrics path: the metrics the
    problem's metric schema validates.
    """

    __slots__ = ("metrics", "schema")

    metrics: dict[str, Any]
    """A JSON object whose members this schema does not constrain."""

    schema: str | None
    """The $id of the schema that data claims to satisfy; it must name the schema selected by the
    repository.
    """

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("metrics",)

    def __init__(self, *, metrics: dict[str, Any], schema: str | None = None) -> None:
        self.metrics = check_json_object(metrics, "/metrics")
        self.schema = None if schema is None else _schema_id(schema, "/schema")

    @classmethod
    def from_dict(cls, data: object) -> Metrics:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Metrics:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.metrics = check_json_object(fields["metrics"], path + "/metrics")
        if "schema" in fields:
            model.schema = _schema_id(fields["schema"], path + "/schema")
        else:
            model.schema = None
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        data: dict[str, Any] = {"metrics": dict(self.metrics)}
        if self.schema is not None:
            data["schema"] = self.schema
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Metrics):
            return NotImplemented
        return self.metrics == other.metrics and self.schema == other.schema

    def __repr__(self) -> str:
        return f"Metrics(metrics={self.metrics!r}, schema={self.schema!r})"


# The class of each definition in the schema, by its name under $defs (None for the root).
DEFINITIONS: dict[str | None, type] = {None: Metrics}
