# Generated from schemas/bundle-manifest.schema.json by codegen; do not edit. Regenerate with: cargo xtask codegen
"""Metewand bundle manifest.

manifest.json, the first entry of a bundle (a tar archive compressed with zstd) and the root of
an unpacked one: every other file of the bundle with its size and SHA-256, in the UTF-8 byte
order of their paths, and what the files are. It is canonical JSON; its own SHA-256 is the
bundle's digest, which bundle, verify and report print. A reader refuses a bundle whose manifest
is not canonical, whose entries are not exactly these files in this order, or any of whose files
differs from its record here.

Each class checks its constructor's arguments, decodes parsed JSON strictly with from_dict
(raising ModelError with the JSON Pointer of the first value the schema refuses) and encodes with
to_dict. DEFINITIONS maps the schema's definition names to the classes.
"""

from __future__ import annotations

from metewand._strict import (
    ModelError,
    check_array,
    check_const,
    check_model,
    check_object,
    check_string,
)
from metewand.models.common import FileRecord, _sha256, _worker_id

# Annotations are strings (see the __future__ import), so typing is needed only by type checkers.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

__all__ = ["BundleManifest", "Campaign", "DEFINITIONS", "ModelError", "Worker"]


class BundleManifest:
    """Metewand bundle manifest.

    manifest.json, the first entry of a bundle (a tar archive compressed with zstd) and the root
    of an unpacked one: every other file of the bundle with its size and SHA-256, in the UTF-8
    byte order of their paths, and what the files are. It is canonical JSON; its own SHA-256 is
    the bundle's digest, which bundle, verify and report print. A reader refuses a bundle whose
    manifest is not canonical, whose entries are not exactly these files in this order, or any of
    whose files differs from its record here.
    """

    __slots__ = ("campaigns", "datasets", "files", "format", "metewand_version", "workers")

    campaigns: list[Campaign]
    """The campaign folders, each under campaigns/, in the order they were given."""

    datasets: list[str]
    """The keys of the datasets the bundle holds, each as datasets/<key>/ with the store's record
    datasets/<key>.published; empty unless the bundle was made with its datasets.
    """

    files: list[FileRecord]
    """Every file of the bundle but the manifest, in the UTF-8 byte order of their paths, each path
    at most once.
    """

    format: Literal[1]
    """The manifest's format: 1, the only one this version reads."""

    metewand_version: str
    """The version of Metewand that wrote the bundle."""

    workers: list[Worker]
    """The repository's workers, whose sources are under repository/ beside its metewand.toml and
    its schema files.
    """

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("campaigns", "datasets", "files", "format", "metewand_version", "workers")

    def __init__(
        self,
        *,
        campaigns: list[Campaign],
        datasets: list[str],
        files: list[FileRecord],
        format: Literal[1] = 1,
        metewand_version: str,
        workers: list[Worker],
    ) -> None:
        self.campaigns = check_array(campaigns, "/campaigns", check_model, Campaign)
        self.datasets = check_array(datasets, "/datasets", _sha256)
        self.files = check_array(files, "/files", check_model, FileRecord)
        self.format = check_const(format, "/format", 1)
        self.metewand_version = check_string(metewand_version, "/metewand_version", min_length=1)
        self.workers = check_array(workers, "/workers", check_model, Worker)

    @classmethod
    def from_dict(cls, data: object) -> BundleManifest:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> BundleManifest:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.campaigns = check_array(fields["campaigns"], path + "/campaigns", Campaign._decode)
        model.datasets = check_array(fields["datasets"], path + "/datasets", _sha256)
        model.files = check_array(fields["files"], path + "/files", FileRecord._decode)
        model.format = check_const(fields["format"], path + "/format", 1)
        model.metewand_version = check_string(
            fields["metewand_version"], path + "/metewand_version", min_length=1
        )
        model.workers = check_array(fields["workers"], path + "/workers", Worker._decode)
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {
            "campaigns": [item.to_dict() for item in self.campaigns],
            "datasets": list(self.datasets),
            "files": [item.to_dict() for item in self.files],
            "format": self.format,
            "metewand_version": self.metewand_version,
            "workers": [item.to_dict() for item in self.workers],
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BundleManifest):
            return NotImplemented
        return (
            self.campaigns == other.campaigns
            and self.datasets == other.datasets
            and self.files == other.files
            and self.format == other.format
            and self.metewand_version == other.metewand_version
            and self.workers == other.workers
        )

    def __repr__(self) -> str:
        return (
            f"BundleManifest(campaigns={self.campaigns!r}, datasets={self.datasets!r}, "
            f"files={self.files!r}, format={self.format!r}, "
            f"metewand_version={self.metewand_version!r}, workers={self.workers!r})"
        )


class Campaign:
    """One campaign folder of the bundle."""

    __slots__ = ("folder", "name")

    folder: str
    """The folder's name under campaigns/."""

    name: str
    """The campaign's name, as its campaign.json has it."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("folder", "name")

    def __init__(self, *, folder: str, name: str) -> None:
        self.folder = check_string(folder, "/folder", min_length=1)
        self.name = check_string(name, "/name")

    @classmethod
    def from_dict(cls, data: object) -> Campaign:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Campaign:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.folder = check_string(fields["folder"], path + "/folder", min_length=1)
        model.name = check_string(fields["name"], path + "/name")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {"folder": self.folder, "name": self.name}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Campaign):
            return NotImplemented
        return self.folder == other.folder and self.name == other.name

    def __repr__(self) -> str:
        return f"Campaign(folder={self.folder!r}, name={self.name!r})"


class Worker:
    """One worker of the repository: where its source is in the bundle and the digest of that
    tree.
    """

    __slots__ = ("name", "source", "tree", "worker_id")

    name: str
    """The worker's name in metewand.toml."""

    source: str
    """The folder of its source in the bundle, under repository/."""

    tree: str
    """The digest of its source tree, as its identity is computed from it (sha256:<hex>)."""

    worker_id: str
    """A resolved worker identity."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("name", "source", "tree", "worker_id")

    def __init__(self, *, name: str, source: str, tree: str, worker_id: str) -> None:
        self.name = check_string(name, "/name", min_length=1)
        self.source = check_string(source, "/source", min_length=1)
        self.tree = check_string(tree, "/tree", pattern=r"^sha256:[0-9a-f]{64}$")
        self.worker_id = _worker_id(worker_id, "/worker_id")

    @classmethod
    def from_dict(cls, data: object) -> Worker:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Worker:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.name = check_string(fields["name"], path + "/name", min_length=1)
        model.source = check_string(fields["source"], path + "/source", min_length=1)
        model.tree = check_string(fields["tree"], path + "/tree", pattern=r"^sha256:[0-9a-f]{64}$")
        model.worker_id = _worker_id(fields["worker_id"], path + "/worker_id")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {
            "name": self.name,
            "source": self.source,
            "tree": self.tree,
            "worker_id": self.worker_id,
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Worker):
            return NotImplemented
        return (
            self.name == other.name
            and self.source == other.source
            and self.tree == other.tree
            and self.worker_id == other.worker_id
        )

    def __repr__(self) -> str:
        return (
            f"Worker(name={self.name!r}, source={self.source!r}, tree={self.tree!r}, "
            f"worker_id={self.worker_id!r})"
        )


# The class of each definition in the schema, by its name under $defs (None for the root).
DEFINITIONS: dict[str | None, type] = {None: BundleManifest, "campaign": Campaign, "worker": Worker}
