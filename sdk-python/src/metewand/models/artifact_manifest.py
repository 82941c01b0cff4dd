# Generated from schemas/artifact-manifest.schema.json by codegen; do not edit. Regenerate with: cargo xtask codegen
"""Metewand dataset manifest.

The manifest a dataset materializer writes last, at dataset-manifest.json in its output
directory: every file of the dataset and the data its output schema validates.

Each class checks its constructor's arguments, decodes parsed JSON strictly with from_dict
(raising ModelError with the JSON Pointer of the first value the schema refuses) and encodes with
to_dict. DEFINITIONS maps the schema's definition names to the classes.
"""

from __future__ import annotations

from metewand._strict import (
    ModelError,
    check_array,
    check_const,
    check_json_object,
    check_model,
    check_object,
)
from metewand.models.common import FileRecord, _schema_id

# Annotations are strings (see the __future__ import), so typing is needed only by type checkers.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

__all__ = ["ArtifactManifest", "DEFINITIONS", "ModelError"]


class ArtifactManifest:
    """Metewand dataset manifest.

    The manifest a dataset materializer writes last, at dataset-manifest.json in its output
    directory: every file of the dataset and the data its output schema validates.
    """

    __slots__ = ("complete", "data", "files", "schema")

    complete: Literal[True]
    """Written only once every file is closed; always true."""

    data: dict[str, Any]
    """A JSON object whose members this schema does not constrain."""

    files: list[FileRecord]

    schema: str | None
    """The $id of the schema that data claims to satisfy; it must name the schema selected by the
    repository.
    """

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("complete", "data", "files")

    def __init__(
        self,
        *,
        complete: Literal[True] = True,
        data: dict[str, Any],
        files: list[FileRecord],
        schema: str | None = None,
    ) -> None:
        self.complete = check_const(complete, "/complete", True)
        self.data = check_json_object(data, "/data")
        self.files = check_array(files, "/files", check_model, FileRecord)
        self.schema = None if schema is None else _schema_id(schema, "/schema")

    @classmethod
    def from_dict(cls, data: object) -> ArtifactManifest:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> ArtifactManifest:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.complete = check_const(fields["complete"], path + "/complete", True)
        model.data = check_json_object(fields["data"], path + "/data")
        model.files = check_array(fields["files"], path + "/files", FileRecord._decode)
        if "schema" in fields:
            model.schema = _schema_id(fields["schema"], path + "/schema")
        else:
            model.schema = None
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        data: dict[str, Any] = {
            "complete": self.complete,
            "data": dict(self.data),
            "files": [item.to_dict() for item in self.files],
        }
        if self.schema is not None:
            data["schema"] = self.schema
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ArtifactManifest):
            return NotImplemented
        return (
            self.complete == other.complete
            and self.data == other.data
            and self.files == other.files
            and self.schema == other.schema
        )

    def __repr__(self) -> str:
        return (
            f"ArtifactManifest(complete={self.complete!r}, data={self.data!r}, "
            f"files={self.files!r}, schema={self.schema!r})"
        )


# The class of each definition in the schema, by its name under $defs (None for the root).
DEFINITIONS: dict[str | None, type] = {None: ArtifactManifest}
