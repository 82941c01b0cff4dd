"""What workers read and write besides messages: artifacts, their manifests and metrics documents.

A dataset materializer and an implementation each write one artifact into the directory they are
given, through an ``Output``. Once the worker's method has returned, the SDK closes the files opened
through it, lists every file in the directory (walking it without following links; a symbolic
link, special file, empty directory or unusable name is refused with ``OutputError``), sizes and
hashes each with SHA-256, and writes the manifest last, at its fixed name at the artifact's root:
``dataset-manifest.json`` for a dataset (with ``"complete": true``), ``result.json`` for a result.
A problem evaluator's metrics are written as the envelope ``{"metrics": {...}}`` at the path it is
given. Every document is canonical JSON (RFC 8785).

Workers that consume an artifact (an implementation's ``prepare``, an evaluator's ``evaluate``)
receive it as an ``Artifact``: its directory and its parsed manifest.

The same functions are available directly, for workers and tools that do not use the worker loop:
``write_dataset_manifest``, ``write_result_manifest``, ``write_metrics`` and ``file_records``.
"""

from __future__ import annotations

import os
from pathlib import Path

from .canonical import CanonicalJSONError, dumps

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO, Any

    from .models.artifact_manifest import ArtifactManifest
    from .models.common import FileRecord
    from .models.result_manifest import ResultManifest

__all__ = [
    "CHECKPOINTS_DIR",
    "DATASET_MANIFEST",
    "MAX_DOCUMENT",
    "RESULT_MANIFEST",
    "Artifact",
    "Output",
    "OutputError",
    "copy_checkpoint",
    "file_records",
    "read_dataset",
    "read_result",
    "write_dataset_manifest",
    "write_metrics",
    "write_result_manifest",
]

DATASET_MANIFEST = "dataset-manifest.json"
"""Where a dataset's manifest lies, relative to the dataset's root."""

RESULT_MANIFEST = "result.json"
"""Where a result's manifest lies, relative to the result's root."""

CHECKPOINTS_DIR = "checkpoints"
"""The folder of a streamed result's checkpoints, at the top of its result directory: checkpoint n
is ``checkpoints/<n>/``, a result of its own with its ``result.json``."""

MAX_DOCUMENT = 64 * 1024 * 1024
"""Largest manifest or metrics document Metewand reads from disk, in bytes (64 MiB)."""

# Hashing reads files in pieces of this size, so a large file never sits in memory whole.
_CHUNK = 1024 * 1024

# Opening with O_NOFOLLOW refuses a symbolic link put in place after the walk looked, and
# O_NONBLOCK keeps a FIFO put there from blocking the open.
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)


class OutputError(ValueError):
    """An output directory that no manifest can describe, or a document that cannot be written.

    Raised for a symbolic link, socket, FIFO or device in the output, a directory holding no file,
    a file name that is not UTF-8 or holds a backslash, a file that changed while it was hashed,
    and data with no JSON form. The worker loop answers it with an ``internal_error`` carrying
    this message.
    """


# ---------------------------------------------------------------------------
# Paths


def _path_problem(path: str) -> str | None:
    """What keeps ``path`` from being a manifest path, or None if nothing does.

    A manifest path is what Metewand's validator accepts: a nonempty, normalized, relative UTF-8
    path with ``/`` separators, no backslash, no ``.`` or ``..`` component and no drive letter.
    """
    if not path:
        return "it is empty"
    if "\\" in path:
        return "it holds a backslash"
    if "\x00" in path:
        return "it holds a NUL character"
    if path.startswith("/"):
        return "it is absolute"
    parts = path.split("/")
    if "" in parts:
        return "it has an empty component (a repeated or trailing /)"
    if "." in parts or ".." in parts:
        return "it has a . or .. component"
    first = parts[0]
    if len(first) >= 2 and first[1] == ":" and first[0].isascii() and first[0].isalpha():
        return "it starts with a drive letter"
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return "it is not valid utf-8"
    return None


def _relative_path(name: str | os.PathLike[str]) -> str:
    """``name`` as a checked relative path, for files an author names; ValueError if unusable."""
    path = os.fspath(name)
    if not isinstance(path, str):
        raise TypeError(f"file names are str or os.PathLike[str], not {type(path).__name__}")
    problem = _path_problem(path)
    if problem is not None:
        raise ValueError(f"{_show(path)} cannot name a file of an artifact: {problem}")
    return path


def _show(path: str) -> str:
    """``path`` quoted for a message; undecodable bytes of a file name are shown escaped."""
    text = path.encode("utf-8", "backslashreplace").decode("utf-8")
    return '"' + text + '"'


# ---------------------------------------------------------------------------
# Listing and hashing


def file_records(directory: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Lists every file under ``directory`` as ``{"path", "sha256", "size"}`` records.

    Paths are relative to ``directory``, with ``/`` separators, sorted by their UTF-8 bytes; the
    digest is the lowercase hex SHA-256 of the contents. The walk does not follow links. Raises
    OutputError for a symbolic link, a special file, a directory holding no file, a name a
    manifest cannot hold, or a file that changed size while it was read.
    """
    return _file_records(os.fspath(directory), None)


def _file_records(
    directory: str, skip: str | None, skip_dir: str | None = None, copy_to: str | None = None
) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    _walk(directory, "", records, skip, skip_dir, copy_to)
    records.sort(key=lambda record: record["path"].encode("utf-8"))
    return records


def _walk(
    directory: str,
    prefix: str,
    records: list[dict[str, Any]],
    skip: str | None,
    skip_dir: str | None = None,
    copy_to: str | None = None,
) -> int:
    """Appends the records of the files below ``directory`` (but ``skip_dir``, a directory at its
    top: a streamed result's checkpoints); returns how many it found. With ``copy_to``, each file
    is also copied to the same relative path under it, hashed as it is copied."""
    found = 0
    with os.scandir(directory) as entries:
        listed = list(entries)
    for entry in listed:
        relative = prefix + entry.name
        if relative == skip_dir and entry.is_dir(follow_symlinks=False):
            continue
        problem = _path_problem(relative)
        if problem is not None:
            raise OutputError(f"{_show(relative)} cannot be listed in a manifest: {problem}")
        if entry.is_symlink():
            raise OutputError(
                f"{_show(relative)} is a symbolic link; an artifact holds only regular files "
                "and directories"
            )
        if entry.is_dir(follow_symlinks=False):
            if relative == skip:
                raise OutputError(f"{_show(relative)} is a directory, but the manifest goes there")
            if copy_to is not None:
                os.mkdir(os.path.join(copy_to, relative))
            inside = _walk(entry.path, relative + "/", records, None, None, copy_to)
            if inside == 0:
                raise OutputError(
                    f"directory {_show(relative)} holds no file; an artifact may not hold empty "
                    "directories"
                )
            found += inside
        elif entry.is_file(follow_symlinks=False):
            # The manifest itself is not one of the files it lists (it cannot hash itself), and
            # an earlier one is about to be replaced.
            if relative != skip:
                copy = None if copy_to is None else os.path.join(copy_to, relative)
                records.append(_record(entry.path, relative, copy))
                found += 1
        else:
            raise OutputError(
                f"{_show(relative)} is not a regular file or a directory; an artifact holds only "
                "regular files and directories"
            )
    return found


def _record(path: str, relative: str, copy: str | None = None) -> dict[str, Any]:
    """The file record of ``path``; with ``copy``, the file is also written there, and the record
    is of the bytes written (read once, hashed and copied in one pass)."""
    import hashlib
    import stat

    try:
        descriptor = os.open(path, _READ_FLAGS)
    except OSError as error:
        raise OutputError(f"cannot read {_show(relative)}: {error.strerror}") from None
    # Plain descriptors rather than file objects: a checkpoint copies its files inside the timed
    # execute, and a file object costs three more system calls each (its fstat, isatty, tell).
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise OutputError(f"{_show(relative)} stopped being a regular file while it was listed")
        # In a folder _walk made; a link in the copy's place is refused (O_NOFOLLOW).
        target = None if copy is None else os.open(copy, _WRITE_FLAGS, 0o666)
        try:
            digest = hashlib.sha256()
            # Sized to the file (one byte more, to see it grow): a fresh megabyte for a small file
            # costs more than hashing it, inside the timed execute.
            buffer = bytearray(min(_CHUNK, info.st_size + 1))
            view = memoryview(buffer)
            size = 0
            while True:
                count = os.readv(descriptor, [buffer])
                if not count:
                    break
                digest.update(view[:count])
                if target is not None:
                    _write_all(target, view[:count])
                size += count
        finally:
            if target is not None:
                os.close(target)
    finally:
        os.close(descriptor)
    if size != info.st_size:
        raise OutputError(f"{_show(relative)} changed size while it was hashed")
    return {"path": relative, "sha256": digest.hexdigest(), "size": size}


def _write_all(descriptor: int, data: bytes | memoryview) -> None:
    """Writes all of ``data`` to ``descriptor`` (a write to a file may take only part of it)."""
    view = memoryview(data)
    while view:
        view = view[os.write(descriptor, view) :]


# ---------------------------------------------------------------------------
# Writing documents


def write_dataset_manifest(
    directory: str | os.PathLike[str],
    data: dict[str, Any] | None = None,
    *,
    schema: str | None = None,
) -> Path:
    """Writes ``dataset-manifest.json`` in ``directory``, listing every file already there.

    Call it last, once every file of the dataset is written and closed: the manifest carries
    ``"complete": true``. ``data`` is the object the dataset definition's output schema validates
    (``{}`` when None); ``schema``, when given, is that schema's ``$id``. The directory is
    created if missing. Returns the manifest's path. Raises OutputError when the directory cannot
    be described (see ``file_records``).
    """
    from .models.artifact_manifest import ArtifactManifest
    from .models.common import FileRecord

    root = os.fspath(directory)
    os.makedirs(root, exist_ok=True)
    data = _check_data(data, "the dataset manifest's data")
    schema = _check_schema(schema)
    records = [FileRecord(**record) for record in _file_records(root, DATASET_MANIFEST)]
    manifest = ArtifactManifest(complete=True, data=data, files=records, schema=schema)
    path = os.path.join(root, DATASET_MANIFEST)
    _write_document(path, manifest.to_dict(), "manifest")
    return Path(path)


def write_result_manifest(
    directory: str | os.PathLike[str],
    data: dict[str, Any] | None = None,
    *,
    schema: str | None = None,
    streamed: bool = False,
) -> Path:
    """Writes ``result.json`` in ``directory``, listing every file already there.

    Call it last, once every file of the result is written and closed. ``data`` is the object the
    problem's result schema validates (``{}`` when None); ``schema``, when given, is that schema's
    ``$id``. With ``streamed``, the directory's top-level ``checkpoints/`` (a streamed result's
    checkpoints, each a result of its own) is left out. The directory is created if missing.
    Returns the manifest's path. Raises OutputError when the directory cannot be described (see
    ``file_records``).
    """
    from .models.common import FileRecord
    from .models.result_manifest import ResultManifest

    root = os.fspath(directory)
    os.makedirs(root, exist_ok=True)
    data = _check_data(data, "the result manifest's data")
    schema = _check_schema(schema)
    skip_dir = CHECKPOINTS_DIR if streamed else None
    records = [FileRecord(**record) for record in _file_records(root, RESULT_MANIFEST, skip_dir)]
    manifest = ResultManifest(data=data, files=records, schema=schema)
    path = os.path.join(root, RESULT_MANIFEST)
    _write_document(path, manifest.to_dict(), "manifest")
    return Path(path)


def write_metrics(
    path: str | os.PathLike[str],
    metrics: dict[str, Any] | None = None,
    *,
    schema: str | None = None,
) -> Path:
    """Writes the metrics envelope ``{"metrics": {...}}`` at ``path``, creating its directory.

    ``metrics`` is the object the problem's metric schema validates (``{}`` when None);
    ``schema``, when given, is that schema's ``$id``. Returns the document's path.
    """
    from .models.metrics import Metrics

    metrics = _check_data(metrics, "the metrics")
    envelope = Metrics(metrics=metrics, schema=_check_schema(schema))
    target = os.fspath(path)
    parent = os.path.dirname(target)
    if parent:
        os.makedirs(parent, exist_ok=True)
    _write_document(target, envelope.to_dict(), "metrics document")
    return Path(target)


def _check_data(data: object, what: str) -> dict[str, Any]:
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise OutputError(f"{what} must be a dict, got {type(data).__name__}")
    for key in data:
        if not isinstance(key, str):
            raise OutputError(f"{what} must have str keys, got {type(key).__name__} {key!r}")
    return data


def _check_schema(schema: object) -> str | None:
    if schema is not None and (not isinstance(schema, str) or not schema):
        raise OutputError(f"a schema id must be a nonempty str or None, got {schema!r}")
    return schema


def _write_document(path: str, document: dict[str, Any], what: str) -> None:
    try:
        content = dumps(document)
    except CanonicalJSONError as error:
        raise OutputError(f"the {what} has no json form: {error}") from None
    if len(content) > MAX_DOCUMENT:
        raise OutputError(
            f"the {what} would be {len(content)} bytes, more than the {MAX_DOCUMENT} bytes "
            "Metewand reads"
        )
    descriptor = os.open(path, _WRITE_FLAGS, 0o666)
    try:
        _write_all(descriptor, content)
    finally:
        os.close(descriptor)


# ---------------------------------------------------------------------------
# What workers are given


def copy_checkpoint(output: Output, number: int, *, schema: str | None = None) -> str:
    """Copies what ``output`` holds now (every file but its manifest and its ``checkpoints/``)
    into ``checkpoints/<number>/`` and writes that checkpoint's ``result.json`` with
    ``output.data``; returns the manifest's path relative to ``output.dir``. Raises OutputError as
    ``file_records`` does, or when the checkpoint's folder already exists."""
    from .models.common import FileRecord
    from .models.result_manifest import ResultManifest

    root = os.fspath(output.dir)
    target = os.path.join(root, CHECKPOINTS_DIR, str(number))
    try:
        try:
            os.mkdir(target)
        except FileNotFoundError:
            # The first checkpoint: checkpoints/ is made with it.
            os.makedirs(target)
    except FileExistsError:
        raise OutputError(f"{_show(CHECKPOINTS_DIR + '/' + str(number))} already exists") from None
    # Each file is read once, copied and hashed in the same pass; the manifest lists what was
    # written, so the copy is not walked and hashed again.
    copied = _file_records(root, RESULT_MANIFEST, CHECKPOINTS_DIR, copy_to=target)
    data = _check_data(output.data, "the result manifest's data")
    records = [FileRecord(**record) for record in copied]
    manifest = ResultManifest(data=data, files=records, schema=_check_schema(schema))
    _write_document(os.path.join(target, RESULT_MANIFEST), manifest.to_dict(), "manifest")
    return f"{CHECKPOINTS_DIR}/{number}/{RESULT_MANIFEST}"


class Output:
    """The directory a worker writes one artifact into, and the data its manifest will carry.

    A materializer's ``materialize`` and an implementation's ``execute`` receive one. Write files
    through it (or under ``output.dir`` any way you like) and set ``output.data`` to the object
    the manifest carries (the dataset's description, or the result the problem's result schema
    validates)::

        output.write_text("points.csv", text)
        with output.open("arrays/x.bin", "wb") as file:
            file.write(payload)
        numpy.save(output.path("arrays/y.npy"), y)  # any library that writes to a path
        output.data = {"rows": 100}

    Names are relative paths with ``/`` separators; directories are created as needed. When the
    method returns, the SDK closes what ``open`` returned, then writes the manifest listing every
    file in the directory; a file opened some other way must be closed by then. The manifest's
    own name is reserved.
    """

    dir: Path
    """The output directory."""

    data: dict[str, Any]
    """The manifest's ``data`` object; ``{}`` unless the worker sets it."""

    def __init__(self, directory: str | os.PathLike[str], manifest: str) -> None:
        self.dir = Path(directory)
        self.data = {}
        self._manifest = manifest
        self._opened: list[IO[Any]] = []
        os.makedirs(self.dir, exist_ok=True)

    def path(self, name: str | os.PathLike[str]) -> Path:
        """The path of the file ``name`` in the output, with its directory created."""
        relative = _relative_path(name)
        if relative == self._manifest:
            raise ValueError(f"{_show(relative)} is reserved for the manifest the SDK writes")
        path = self.dir / relative
        if "/" in relative:
            path.parent.mkdir(parents=True, exist_ok=True)
        return path

    def open(self, name: str | os.PathLike[str], mode: str = "w", **kwargs: Any) -> IO[Any]:
        """Opens the file ``name`` in the output, as ``open`` would; text is UTF-8 by default.

        The SDK closes the file, if it is still open, before it hashes the output.
        """
        if "b" not in mode:
            kwargs.setdefault("encoding", "utf-8")
        file = open(self.path(name), mode, **kwargs)
        self._opened.append(file)
        return file

    def write_text(self, name: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> Path:
        """Writes ``text`` to the file ``name`` in the output; returns its path."""
        path = self.path(name)
        with open(path, "w", encoding=encoding) as file:
            file.write(text)
        return path

    def write_bytes(self, name: str | os.PathLike[str], data: bytes) -> Path:
        """Writes ``data`` to the file ``name`` in the output; returns its path."""
        path = self.path(name)
        with open(path, "wb") as file:
            file.write(data)
        return path

    def write_json(self, name: str | os.PathLike[str], value: Any) -> Path:
        """Writes ``value`` as canonical JSON (RFC 8785) to the file ``name``; returns its path.

        Canonical output is byte-for-byte reproducible. NaN and infinities have no JSON form and
        raise CanonicalJSONError.
        """
        return self.write_bytes(name, dumps(value))

    def close_files(self) -> None:
        """Closes every file ``open`` returned that is still open; the SDK calls it at the end."""
        opened, self._opened = self._opened, []
        for file in opened:
            if not file.closed:
                file.close()

    def __repr__(self) -> str:
        return f"Output({str(self.dir)!r})"


class Artifact:
    """A dataset or result that another worker wrote: its directory and its parsed manifest.

    An implementation's ``prepare`` receives the dataset; an evaluator's ``evaluate`` receives the
    dataset and the result. Metewand validated both before handing them over::

        rows = dataset.data["rows"]
        with dataset.open("points.csv") as file:
            ...
        for record in dataset.files:
            print(record.path, record.size, record.sha256)
    """

    __slots__ = ("dir", "manifest")

    dir: Path
    """The artifact's directory."""

    manifest: ArtifactManifest | ResultManifest
    """The parsed manifest (``metewand.models.artifact_manifest.ArtifactManifest`` for a dataset,
    ``metewand.models.result_manifest.ResultManifest`` for a result)."""

    def __init__(
        self, directory: str | os.PathLike[str], manifest: ArtifactManifest | ResultManifest
    ) -> None:
        self.dir = Path(directory)
        self.manifest = manifest

    @property
    def data(self) -> dict[str, Any]:
        """The manifest's ``data`` object."""
        return self.manifest.data

    @property
    def files(self) -> list[FileRecord]:
        """The manifest's file records (``path``, ``size``, ``sha256``), in UTF-8 byte order."""
        return self.manifest.files

    @property
    def schema(self) -> str | None:
        """The schema ``$id`` the manifest names for its data, or None."""
        return self.manifest.schema

    def path(self, name: str | os.PathLike[str]) -> Path:
        """The path of the file ``name`` in the artifact."""
        return self.dir / _relative_path(name)

    def require(self, name: str | os.PathLike[str]) -> Path:
        """The path of the file ``name``, which the manifest must declare.

        For an evaluator reading a result: a name the result's data gives that its manifest does
        not declare raises ``InvalidResult``, which the SDK turns into the verdict ``invalid``
        (the implementation's fault) instead of a crash of the evaluator.
        """
        from .errors import InvalidResult

        try:
            relative = _relative_path(name)
        except (TypeError, ValueError) as bad:
            # The name comes from the result's own data: a name that cannot be a file's is its fault too.
            raise InvalidResult(str(bad)) from None
        if not any(record.path == relative for record in self.files):
            declared = ", ".join(repr(record.path) for record in self.files[:5]) or "none"
            raise InvalidResult(f"it has no file {relative!r} (it declares: {declared})")
        return self.dir / relative

    def field(self, key: str, kind: type | tuple[type, ...] = object) -> Any:
        """The data's member ``key``, which must be there and an instance of ``kind`` (``bool`` is
        never taken for a number).

        For an evaluator reading a result: a missing member or one of another type raises
        ``InvalidResult``, so the result is judged ``invalid`` (the implementation's fault) rather
        than the evaluator failing::

            solution = result.json(result.field("solution", str))
        """
        from .errors import InvalidResult

        if key not in self.data:
            raise InvalidResult(f"its data has no member {key!r}")
        value = self.data[key]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        numbers = any(issubclass(candidate, (int, float)) for candidate in kinds)
        if not isinstance(value, kinds) or (numbers and isinstance(value, bool) and bool not in kinds):
            names = " or ".join(candidate.__name__ for candidate in kinds)
            raise InvalidResult(f"its data's member {key!r} is {type(value).__name__}, not {names}")
        return value

    def json(self, name: str | os.PathLike[str]) -> Any:
        """The parsed JSON of the file ``name``, which the manifest must declare (``require``).

        For an evaluator reading a result: a file that is missing, not UTF-8 or not JSON raises
        ``InvalidResult`` (the result is judged ``invalid``), never an error of the evaluator.
        """
        import json

        from .errors import InvalidResult

        path = self.require(name)
        try:
            with open(path, encoding="utf-8") as file:
                return json.load(file)
        except (UnicodeDecodeError, ValueError, RecursionError) as bad:
            raise InvalidResult(f"its file {str(name)!r} is not JSON: {bad}") from None

    def open(self, name: str | os.PathLike[str], mode: str = "r", **kwargs: Any) -> IO[Any]:
        """Opens the file ``name`` in the artifact, as ``open`` would; text is UTF-8 by default."""
        if "b" not in mode:
            kwargs.setdefault("encoding", "utf-8")
        return open(self.path(name), mode, **kwargs)

    def __repr__(self) -> str:
        return f"Artifact({str(self.dir)!r}, {self.manifest!r})"


def read_dataset(directory: str | os.PathLike[str]) -> Artifact:
    """Reads the dataset in ``directory`` through its ``dataset-manifest.json``.

    Raises OutputError when the manifest cannot be read or is not a valid dataset manifest.
    """
    from .models.artifact_manifest import ArtifactManifest

    return _read(directory, DATASET_MANIFEST, ArtifactManifest, "dataset")


def read_result(directory: str | os.PathLike[str]) -> Artifact:
    """Reads the result in ``directory`` through its ``result.json``.

    Raises OutputError when the manifest cannot be read or is not a valid result manifest.
    """
    from .models.result_manifest import ResultManifest

    return _read(directory, RESULT_MANIFEST, ResultManifest, "result")


def _read(directory: str | os.PathLike[str], name: str, model: Any, what: str) -> Artifact:
    import stat

    from ._strict import ModelError
    from .canonical import parse

    path = os.path.join(os.fspath(directory), name)
    try:
        descriptor = os.open(path, _READ_FLAGS)
    except OSError as error:
        raise OutputError(f"cannot read the {what} manifest {path}: {error.strerror}") from None
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise OutputError(f"the {what} manifest {path} is not a regular file")
        if info.st_size > MAX_DOCUMENT:
            raise OutputError(
                f"the {what} manifest {path} is {info.st_size} bytes, more than {MAX_DOCUMENT} "
                "bytes"
            )
    except BaseException:
        os.close(descriptor)
        raise
    with open(descriptor, "rb") as file:
        # One byte more than the limit tells a file that grew since fstat from one that fits.
        content = file.read(MAX_DOCUMENT + 1)
    if len(content) > MAX_DOCUMENT:
        raise OutputError(f"the {what} manifest {path} is more than {MAX_DOCUMENT} bytes")
    try:
        manifest = model.from_dict(parse(content))
    except (CanonicalJSONError, ModelError) as error:
        raise OutputError(f"the {what} manifest {path} is invalid: {error}") from None
    return Artifact(directory, manifest)
