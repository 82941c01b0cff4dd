# Generated from schemas/dataset-materialization.schema.json by codegen; do not edit. Regenerate with: cargo xtask codegen
"""Metewand dataset materialization.

datasets/<key>.json in a campaign folder: how the dataset of one key (dataset: its name) was
obtained alone, before the attempts that need it, canonical JSON, written atomically.

Each class checks its constructor's arguments, decodes parsed JSON strictly with from_dict
(raising ModelError with the JSON Pointer of the first value the schema refuses) and encodes with
to_dict. DEFINITIONS maps the schema's definition names to the classes.
"""

from __future__ import annotations

from metewand._strict import (
    ModelError,
    check_array,
    check_boolean,
    check_enum,
    check_model,
    check_object,
)
from metewand.models.attempt_record import AttemptFailure, PhaseRecord, WorkerSession
from metewand.models.common import (
    FileRecord,
    _format,
    _log_path,
    _name,
    _safe_uint,
    _sha256,
    _timestamp,
)

# Annotations are strings (see the __future__ import), so typing is needed only by type checkers.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal, TypeAlias

    _DatasetMaterializationOutcome: TypeAlias = Literal["ok", "failed", "cancelled"]

__all__ = ["DEFINITIONS", "DatasetMaterialization", "ModelError"]

_DATASET_MATERIALIZATION_OUTCOME_VALUES: frozenset[_DatasetMaterializationOutcome] = frozenset(
    {"ok", "failed", "cancelled"}
)
"""How it ended: ok (the dataset is in the store, verified, reused or materialized), failed (failure
says how) or cancelled.
"""


class DatasetMaterialization:
    """Metewand dataset materialization.

    datasets/<key>.json in a campaign folder: how the dataset of one key (dataset: its name) was
    obtained alone, before the attempts that need it, canonical JSON, written atomically.
    """

    __slots__ = (
        "dataset",
        "failure",
        "files",
        "finished_at",
        "format",
        "key",
        "log",
        "materializer",
        "outcome",
        "phases",
        "reused",
        "seed",
        "started_at",
    )

    dataset: str
    """A name the repository's manifest gives: a dataset's, an implementation's, a problem's or a
    campaign's.
    """

    failure: AttemptFailure | None
    """What ended the attempt: the role and phase it is attributed to (null for the executor's own
    failures), its kind and message, and the worker's code and details when it sent them.
    """

    files: list[FileRecord] | None
    """The validated files of an artifact, in UTF-8 byte order of their paths."""

    finished_at: str
    """An RFC 3339 timestamp in UTC."""

    format: Literal[1]
    """A document's format: 1, the only one this version reads."""

    key: str
    """A lowercase hexadecimal SHA-256 digest."""

    log: str | None
    """The materializer's log, relative to the folder it ran in, if its session started."""

    materializer: WorkerSession
    """A worker session: the resolved identity, and what the worker reported in hello (capabilities
    is null when the handshake did not complete; sdk is null for a direct protocol worker or when
    the handshake did not complete). identity (what worker_id is the digest of) is absent from
    records written before it was recorded; program is recorded once the worker answered hello,
    when the executor could read it (a program over 512 MiB is not hashed), and environment with
    it when that program is Python; confinement is recorded once the worker started, resources
    when its session shut down cleanly (never for a reused session), session (for an evaluator)
    once it answered hello; each is absent otherwise.
    """

    outcome: Literal["ok", "failed", "cancelled"]
    """How it ended: ok (the dataset is in the store, verified, reused or materialized), failed
    (failure says how) or cancelled.
    """

    phases: list[PhaseRecord]
    """One entry per request sent to the materializer."""

    reused: bool | None
    """Whether a verified store entry was reused; null if the store was never reached."""

    seed: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    started_at: str
    """An RFC 3339 timestamp in UTC."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = (
        "dataset",
        "failure",
        "files",
        "finished_at",
        "format",
        "key",
        "log",
        "materializer",
        "outcome",
        "phases",
        "reused",
        "seed",
        "started_at",
    )

    def __init__(
        self,
        *,
        dataset: str,
        failure: AttemptFailure | None,
        files: list[FileRecord] | None,
        finished_at: str,
        format: Literal[1] = 1,
        key: str,
        log: str | None,
        materializer: WorkerSession,
        outcome: Literal["ok", "failed", "cancelled"],
        phases: list[PhaseRecord],
        reused: bool | None,
        seed: int,
        started_at: str,
    ) -> None:
        self.dataset = _name(dataset, "/dataset")
        self.failure = None if failure is None else check_model(failure, "/failure", AttemptFailure)
        self.files = (
            None if files is None else check_array(files, "/files", check_model, FileRecord)
        )
        self.finished_at = _timestamp(finished_at, "/finished_at")
        self.format = _format(format, "/format")
        self.key = _sha256(key, "/key")
        self.log = None if log is None else _log_path(log, "/log")
        self.materializer = check_model(materializer, "/materializer", WorkerSession)
        self.outcome = check_enum(outcome, "/outcome", _DATASET_MATERIALIZATION_OUTCOME_VALUES)
        self.phases = check_array(phases, "/phases", check_model, PhaseRecord)
        self.reused = None if reused is None else check_boolean(reused, "/reused")
        self.seed = _safe_uint(seed, "/seed")
        self.started_at = _timestamp(started_at, "/started_at")

    @classmethod
    def from_dict(cls, data: object) -> DatasetMaterialization:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> DatasetMaterialization:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.dataset = _name(fields["dataset"], path + "/dataset")
        model.failure = (
            None
            if fields["failure"] is None
            else AttemptFailure._decode(fields["failure"], path + "/failure")
        )
        model.files = (
            None
            if fields["files"] is None
            else check_array(fields["files"], path + "/files", FileRecord._decode)
        )
        model.finished_at = _timestamp(fields["finished_at"], path + "/finished_at")
        model.format = _format(fields["format"], path + "/format")
        model.key = _sha256(fields["key"], path + "/key")
        model.log = None if fields["log"] is None else _log_path(fields["log"], path + "/log")
        model.materializer = WorkerSession._decode(fields["materializer"], path + "/materializer")
        model.outcome = check_enum(
            fields["outcome"], path + "/outcome", _DATASET_MATERIALIZATION_OUTCOME_VALUES
        )
        model.phases = check_array(fields["phases"], path + "/phases", PhaseRecord._decode)
        model.reused = (
            None if fields["reused"] is None else check_boolean(fields["reused"], path + "/reused")
        )
        model.seed = _safe_uint(fields["seed"], path + "/seed")
        model.started_at = _timestamp(fields["started_at"], path + "/started_at")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {
            "dataset": self.dataset,
            "failure": None if self.failure is None else self.failure.to_dict(),
            "files": None if self.files is None else [item.to_dict() for item in self.files],
            "finished_at": self.finished_at,
            "format": self.format,
            "key": self.key,
            "log": self.log,
            "materializer": self.materializer.to_dict(),
            "outcome": self.outcome,
            "phases": [item.to_dict() for item in self.phases],
            "reused": self.reused,
            "seed": self.seed,
            "started_at": self.started_at,
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DatasetMaterialization):
            return NotImplemented
        return (
            self.dataset == other.dataset
            and self.failure == other.failure
            and self.files == other.files
            and self.finished_at == other.finished_at
            and self.format == other.format
            and self.key == other.key
            and self.log == other.log
            and self.materializer == other.materializer
            and self.outcome == other.outcome
            and self.phases == other.phases
            and self.reused == other.reused
            and self.seed == other.seed
            and self.started_at == other.started_at
        )

    def __repr__(self) -> str:
        return (
            f"DatasetMaterialization(dataset={self.dataset!r}, failure={self.failure!r}, "
            f"files={self.files!r}, finished_at={self.finished_at!r}, format={self.format!r}, "
            f"key={self.key!r}, log={self.log!r}, materializer={self.materializer!r}, "
            f"outcome={self.outcome!r}, phases={self.phases!r}, reused={self.reused!r}, "
            f"seed={self.seed!r}, started_at={self.started_at!r})"
        )


# The class of each definition in the schema, by its name under $defs (None for the root).
DEFINITIONS: dict[str | None, type] = {None: DatasetMaterialization}
