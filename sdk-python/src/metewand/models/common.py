# Generated from schemas/common.schema.json by codegen; do not edit. Regenerate with: cargo xtask codegen
"""Metewand common definitions.

The definitions Metewand's other schemas share, each defined once and referenced across documents
as urn:metewand:schema:common:1#/$defs/<name>. No document is an instance of this schema itself.

Each class checks its constructor's arguments, decodes parsed JSON strictly with from_dict
(raising ModelError with the JSON Pointer of the first value the schema refuses) and encodes with
to_dict. DEFINITIONS maps the schema's definition names to the classes.
"""

from __future__ import annotations

from metewand._strict import (
    ModelError,
    check_const,
    check_enum,
    check_integer,
    check_object,
    check_string,
    literal_alias,
)

# Annotations are strings (see the __future__ import), so typing is needed only by type checkers.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal, TypeAlias

    Capability: TypeAlias = Literal[
        "one_shot",
        "applicability",
        "fresh_sequence",
        "streaming_profile",
    ]

    FailureCode: TypeAlias = Literal[
        "invalid_request",
        "unsupported_operation",
        "operation_failed",
        "internal_error",
    ]

    Phase: TypeAlias = Literal[
        "hello",
        "materialize",
        "prepare",
        "execute",
        "reset",
        "evaluate",
        "shutdown",
    ]

    Role: TypeAlias = Literal["dataset_materializer", "implementation", "problem_evaluator"]

    Verdict: TypeAlias = Literal["invalid", "reached", "not_reached", "not_required"]
else:

    def __getattr__(name: str) -> object:
        # The Literal aliases are built on first use, so that importing this module does not
        # import typing.
        return literal_alias(globals(), name, _LITERAL_ALIASES)


__all__ = [
    "CAPABILITY_VALUES",
    "Capability",
    "DEFINITIONS",
    "FAILURE_CODE_VALUES",
    "FailureCode",
    "FileRecord",
    "ModelError",
    "PHASE_VALUES",
    "Phase",
    "ROLE_VALUES",
    "Role",
    "SdkInfo",
    "VERDICT_VALUES",
    "Verdict",
]

CAPABILITY_VALUES: frozenset[Capability] = frozenset(
    {"one_shot", "applicability", "fresh_sequence", "streaming_profile"}
)
"""A capability name a worker may report."""

FAILURE_CODE_VALUES: frozenset[FailureCode] = frozenset(
    {"invalid_request", "unsupported_operation", "operation_failed", "internal_error"}
)
"""A worker-owned failure code."""

PHASE_VALUES: frozenset[Phase] = frozenset(
    {"hello", "materialize", "prepare", "execute", "reset", "evaluate", "shutdown"}
)
"""A phase of a worker session, named after its request's method."""

ROLE_VALUES: frozenset[Role] = frozenset(
    {"dataset_materializer", "implementation", "problem_evaluator"}
)
"""The role a worker process serves."""

VERDICT_VALUES: frozenset[Verdict] = frozenset(
    {"invalid", "reached", "not_reached", "not_required"}
)
"""The problem-owned verdict on an implementation's result."""

_LITERAL_ALIASES = {
    "Capability": CAPABILITY_VALUES,
    "FailureCode": FAILURE_CODE_VALUES,
    "Phase": PHASE_VALUES,
    "Role": ROLE_VALUES,
    "Verdict": VERDICT_VALUES,
}


def _attempt_id(value: object, path: str) -> str:
    """A campaign attempt's stable id: SHA-256 of the canonical preimage of its cell and
    repetition.
    """
    return check_string(value, path, pattern=r"^mw1-attempt-[0-9a-f]{64}$")


def _capability(value: object, path: str) -> Capability:
    """A capability name a worker may report."""
    return check_enum(value, path, CAPABILITY_VALUES)


def _failure_code(value: object, path: str) -> FailureCode:
    """A worker-owned failure code."""
    return check_enum(value, path, FAILURE_CODE_VALUES)


def _format(value: object, path: str) -> Literal[1]:
    """A document's format: 1, the only one this version reads."""
    return check_const(value, path, 1)


def _log_path(value: object, path: str) -> str:
    """A worker's stderr log, as a path relative to the folder the document that names it
    describes.
    """
    return check_string(value, path, min_length=1)


def _message(value: object, path: str) -> str:
    """A message for the reader: what failed, in words."""
    return check_string(value, path, min_length=1)


def _name(value: object, path: str) -> str:
    """A name the repository's manifest gives: a dataset's, an implementation's, a problem's or a
    campaign's.
    """
    return check_string(value, path, min_length=1)


def _phase(value: object, path: str) -> Phase:
    """A phase of a worker session, named after its request's method."""
    return check_enum(value, path, PHASE_VALUES)


def _problem_contract_id(value: object, path: str) -> str:
    """A problem contract id as Metewand generates it: mw1-problem-contract- and the 64 lowercase
    hexadecimal digits of its digest.
    """
    return check_string(value, path, pattern=r"^mw1-problem-contract-[0-9a-f]{64}$")


def _role(value: object, path: str) -> Role:
    """The role a worker process serves."""
    return check_enum(value, path, ROLE_VALUES)


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


def _timestamp(value: object, path: str) -> str:
    """An RFC 3339 timestamp in UTC."""
    return check_string(
        value,
        path,
        pattern=r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\.[0-9]{1,9})?Z$",
    )


def _verdict(value: object, path: str) -> Verdict:
    """The problem-owned verdict on an implementation's result."""
    return check_enum(value, path, VERDICT_VALUES)


def _worker_id(value: object, path: str) -> str:
    """A resolved worker identity."""
    return check_string(value, path, pattern=r"^mw1-resolved-worker-[0-9a-f]{64}$")


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


class SdkInfo:
    """The worker SDK that answered hello, by package name and version."""

    __slots__ = ("name", "version")

    name: str
    version: str

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("name", "version")

    def __init__(self, *, name: str, version: str) -> None:
        self.name = check_string(name, "/name", min_length=1)
        self.version = check_string(version, "/version", min_length=1)

    @classmethod
    def from_dict(cls, data: object) -> SdkInfo:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> SdkInfo:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.name = check_string(fields["name"], path + "/name", min_length=1)
        model.version = check_string(fields["version"], path + "/version", min_length=1)
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {"name": self.name, "version": self.version}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SdkInfo):
            return NotImplemented
        return self.name == other.name and self.version == other.version

    def __repr__(self) -> str:
        return f"SdkInfo(name={self.name!r}, version={self.version!r})"


# The class of each definition in the schema, by its name under $defs (None for the root).
DEFINITIONS: dict[str | None, type] = {"file_record": FileRecord, "sdk_info": SdkInfo}
