# Generated from schemas/result-manifest.schema.json by codegen; do not edit. Regenerate with: cargo xtask codegen
"""Metewand result manifest.

The manifest an implementation writes last, at result.json in its result directory: every file of
the result and the data the problem's result schema validates.

Each class checks its constructor's arguments, decodes parsed JSON strictly with from_dict
(raising ModelError with the JSON Pointer of the first value the schema refuses) and encodes with
to_dict. DEFINITIONS maps the schema's definition names to the classes.
"""

from __future__ import annotations

from metewand._strict import (
    ModelError,
    check_array,
    check_integer,
    check_json_object,
    check_model,
    check_object,
    check_string,
)

# Annotations are strings (see the __future__ import), so typing is needed only by type checkers.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["DEFINITIONS", "FileRecord", "ModelError", "ResultManifest"]


def _safe_uint(value: object, path: str) -> int:
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""
    return check_integer(value, path, minimum=0, maximum=9007199254740991)


def _schema_id(value: object, path: str) -> str:
    """The $id of the schema that data claims to satisfy; it must name the schema selected by the
    repository.
    """
    return check_string(value, path, min_length=1)


def _sha256(value: object, path: str) -> str:
    """A lowercase hexadecimal SHA-256 digest."""
    return check_string(value, path, pattern=r"^[0-9a-f]{64}$")


class ResultManifest:
    """Metewand result manifest.

    The manifest an implementation writes last, at result.json in its result directory: every
    file of the result and the data the problem's result schema validates.
    """

    __slots__ = ("data", "files", "schema")

    data: dict[str, Any]
    """A JSON object whose members this schema does not constrain."""

    files: list[FileRecord]

    schema: str | None
    """The $id of the schema that data claims to satisfy; it must name the schema selected by the
    repository.
    """

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("data", "files")

    def __init__(
        self, *, data: dict[str, Any], files: list[FileRecord], schema: str | None = None
    ) -> None:
        self.data = check_json_object(data, "/data")
        self.files = check_array(files, "/files", check_model, FileRecord)
        self.schema = None if schema is None else _schema_id(schema, "/schema")

    @classmethod
    def from_dict(cls, data: object) -> ResultManifest:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> ResultManifest:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
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
            "data": dict(self.data),
            "files": [item.to_dict() for item in self.files],
        }
        if self.schema is not None:
            data["schema"] = self.schema
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ResultManifest):
            return NotImplemented
        return self.data == other.data and self.files == other.files and self.schema == other.schema

    def __repr__(self) -> str:
        return f"ResultManifest(data={self.data!r}, files={self.files!r}, schema={self.schema!r})"


class FileRecord:
    """One file of an artifact: its path relative to the artifact's root, its exact size in bytes
    and the SHA-256 digest of its contents.
    """

    __slots__ = ("path", "sha256", "size")

    path: str

    sha256: str
    """A lowercase hexadecimal SHA-256 digest."""

    size: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("path", "sha256", "size")

    def __init__(self, *, path: str, sha256: str, size: int) -> None:
        self.path = check_string(path, "/path", min_length=1)
        self.sha256 = _sha256(sha256, "/sha256")
        self.size = _safe_uint(size, "/size")

    @classmethod
    def from_dict(cls, data: object) -> FileRecord:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> FileRecord:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.path = check_string(fields["path"], path + "/path", min_length=1)
        model.sha256 = _sha256(fields["sha256"], path + "/sha256")
        model.size = _safe_uint(fields["size"], path + "/size")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {"path": self.path, "sha256": self.sha256, "size": self.size}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FileRecord):
            return NotImplemented
        return self.path == other.path and self.sha256 == other.sha256 and self.size == other.size

    def __repr__(self) -> str:
        return f"FileRecord(path={self.path!r}, sha256={self.sha256!r}, size={self.size!r})"


# The class of each definition in the schema, by its name under $defs (None for the root).
DEFINITIONS: dict[str | None, type] = {None: ResultManifest, "file_record": FileRecord}
