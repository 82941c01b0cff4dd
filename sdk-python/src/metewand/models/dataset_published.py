# Generated from schemas/dataset-published.schema.json by codegen; do not edit. Regenerate with: cargo xtask codegen
"""Metewand dataset store record.

datasets/<key>.published in a state folder: the executor's record of a dataset entry it published
in the store, canonical JSON, written before the entry is renamed into place. An entry is reused
only when it is valid and its files are exactly this inventory.

Each class checks its constructor's arguments, decodes parsed JSON strictly with from_dict
(raising ModelError with the JSON Pointer of the first value the schema refuses) and encodes with
to_dict. DEFINITIONS maps the schema's definition names to the classes.
"""

from __future__ import annotations

from metewand._strict import ModelError, check_array, check_model, check_object
from metewand.models.common import FileRecord, _format, _sha256, _timestamp, _worker_id

# Annotations are strings (see the __future__ import), so typing is needed only by type checkers.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

__all__ = ["DEFINITIONS", "DatasetPublished", "ModelError"]


class DatasetPublished:
    """Metewand dataset store record.

    datasets/<key>.published in a state folder: the executor's record of a dataset entry it
    published in the store, canonical JSON, written before the entry is renamed into place. An
    entry is reused only when it is valid and its files are exactly this inventory.
    """

    __slots__ = ("files", "format", "key", "manifest", "materialized_at", "materializer")

    files: list[FileRecord]
    """The declared files, in the validator's order."""

    format: Literal[1]
    """A document's format: 1, the only one this version reads."""

    key: str
    """A lowercase hexadecimal SHA-256 digest."""

    manifest: FileRecord
    """One file of an artifact: its path relative to the artifact's root, its exact size in bytes
    and the SHA-256 digest of its contents.
    """

    materialized_at: str
    """An RFC 3339 timestamp in UTC."""

    materializer: str
    """A resolved worker identity."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("files", "format", "key", "manifest", "materialized_at", "materializer")

    def __init__(
        self,
        *,
        files: list[FileRecord],
        format: Literal[1] = 1,
        key: str,
        manifest: FileRecord,
        materialized_at: str,
        materializer: str,
    ) -> None:
        self.files = check_array(files, "/files", check_model, FileRecord)
        self.format = _format(format, "/format")
        self.key = _sha256(key, "/key")
        self.manifest = check_model(manifest, "/manifest", FileRecord)
        self.materialized_at = _timestamp(materialized_at, "/materialized_at")
        self.materializer = _worker_id(materializer, "/materializer")

    @classmethod
    def from_dict(cls, data: object) -> DatasetPublished:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> DatasetPublished:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.files = check_array(fields["files"], path + "/files", FileRecord._decode)
        model.format = _format(fields["format"], path + "/format")
        model.key = _sha256(fields["key"], path + "/key")
        model.manifest = FileRecord._decode(fields["manifest"], path + "/manifest")
        model.materialized_at = _timestamp(fields["materialized_at"], path + "/materialized_at")
        model.materializer = _worker_id(fields["materializer"], path + "/materializer")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {
            "files": [item.to_dict() for item in self.files],
            "format": self.format,
            "key": self.key,
            "manifest": self.manifest.to_dict(),
            "materialized_at": self.materialized_at,
            "materializer": self.materializer,
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DatasetPublished):
            return NotImplemented
        return (
            self.files == other.files
            and self.format == other.format
            and self.key == other.key
            and self.manifest == other.manifest
            and self.materialized_at == other.materialized_at
            and self.materializer == other.materializer
        )

    def __repr__(self) -> str:
        return (
            f"DatasetPublished(files={self.files!r}, format={self.format!r}, key={self.key!r}, "
            f"manifest={self.manifest!r}, materialized_at={self.materialized_at!r}, "
            f"materializer={self.materializer!r})"
        )


# The class of each definition in the schema, by its name under $defs (None for the root).
DEFINITIONS: dict[str | None, type] = {None: DatasetPublished}
