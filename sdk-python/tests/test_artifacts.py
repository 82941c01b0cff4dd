"""Manifests, metrics documents and the output and artifact helpers.

File records must hold exact sizes and SHA-256 digests, in UTF-8 byte order of their paths; the
manifest is written last and never lists itself; anything that is not a regular file or a
directory holding files is refused.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
import support

import metewand
import metewand.artifacts
from metewand import OutputError, file_records
from metewand.canonical import CanonicalJSONError, dumps


def write(root: Path, relative: str, content: bytes) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)


def record(relative: str, content: bytes) -> dict[str, Any]:
    return {"path": relative, "sha256": hashlib.sha256(content).hexdigest(), "size": len(content)}


# ---------------------------------------------------------------------------
# Listing


def test_records_hold_sizes_and_digests_in_utf8_order(tmp_path: Path) -> None:
    files = {
        "b.txt": b"b",
        "a-b": b"dash",
        "a.b": b"dot",
        "a/b": b"slash",
        "a/c/d.bin": bytes(range(256)) * 5000,
        "empty": b"",
        "Z": b"capital",
        "\u00e9t\u00e9.csv": "été".encode(),
        "\uffff": b"bmp",
        "\U0001f600": b"emoji",
    }
    for relative, content in files.items():
        write(tmp_path, relative, content)
    records = file_records(tmp_path)
    assert records == [record(name, files[name]) for name in sorted(files, key=str.encode)]
    # Whole paths compare byte by byte: "-" and "." sort before "/", so "a-b" and "a.b" come
    # before everything in the directory "a".
    assert [entry["path"] for entry in records][:5] == ["Z", "a-b", "a.b", "a/b", "a/c/d.bin"]
    assert records[-2:] == [record("\uffff", b"bmp"), record("\U0001f600", b"emoji")]


def test_large_files_are_hashed_in_pieces(tmp_path: Path) -> None:
    content = os.urandom(3 * 1024 * 1024 + 17)
    write(tmp_path, "big.bin", content)
    assert file_records(tmp_path) == [record("big.bin", content)]


def test_an_empty_directory_lists_nothing(tmp_path: Path) -> None:
    assert file_records(tmp_path) == []


def test_a_symbolic_link_to_a_file_is_refused(tmp_path: Path) -> None:
    write(tmp_path, "data.csv", b"1")
    (tmp_path / "alias.csv").symlink_to("data.csv")
    with pytest.raises(OutputError, match=r'^"alias.csv" is a symbolic link; an artifact holds'):
        file_records(tmp_path)


def test_a_symbolic_link_to_a_directory_is_refused_not_followed(tmp_path: Path) -> None:
    write(tmp_path, "real/data.csv", b"1")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "linked").symlink_to(tmp_path / "real", target_is_directory=True)
    with pytest.raises(OutputError, match=r'^"sub/linked" is a symbolic link'):
        file_records(tmp_path)


def test_a_dangling_symbolic_link_is_refused(tmp_path: Path) -> None:
    (tmp_path / "gone").symlink_to(tmp_path / "nowhere")
    with pytest.raises(OutputError, match="symbolic link"):
        file_records(tmp_path)


def test_a_fifo_is_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(OutputError, match=r'^"pipe" is not a regular file or a directory'):
        file_records(tmp_path)


@pytest.mark.parametrize("layout", ["empty", "empty/inner"])
def test_a_directory_without_files_is_refused(tmp_path: Path, layout: str) -> None:
    write(tmp_path, "kept.txt", b"x")
    (tmp_path / layout).mkdir(parents=True)
    with pytest.raises(OutputError, match=r"holds no file; an artifact may not hold empty"):
        file_records(tmp_path)


def test_a_name_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    descriptor = os.open(os.path.join(os.fsencode(tmp_path), b"caf\xe9"), os.O_CREAT | os.O_WRONLY)
    os.close(descriptor)
    with pytest.raises(
        OutputError, match=r'^"caf\\udce9" cannot be listed in a manifest: it is not'
    ):
        file_records(tmp_path)


def test_a_name_with_a_backslash_is_refused(tmp_path: Path) -> None:
    write(tmp_path, "dir\\file", b"x")
    with pytest.raises(OutputError, match="it holds a backslash"):
        file_records(tmp_path)


def test_a_name_like_a_drive_is_refused(tmp_path: Path) -> None:
    write(tmp_path, "C:data", b"x")
    with pytest.raises(OutputError, match="it starts with a drive letter"):
        file_records(tmp_path)


# ---------------------------------------------------------------------------
# Manifests


def test_the_dataset_manifest(tmp_path: Path) -> None:
    write(tmp_path, "points.csv", b"1,2\n")
    write(tmp_path, "meta/info.json", b"{}")
    path = metewand.write_dataset_manifest(tmp_path, {"rows": 1}, schema="urn:example:points:1")
    assert path == tmp_path / "dataset-manifest.json"
    manifest = support.check_document(path, "artifact-manifest")
    assert manifest == {
        "complete": True,
        "data": {"rows": 1},
        "files": [record("meta/info.json", b"{}"), record("points.csv", b"1,2\n")],
        "schema": "urn:example:points:1",
    }


def test_the_result_manifest(tmp_path: Path) -> None:
    write(tmp_path, "answer.txt", b"42")
    path = metewand.write_result_manifest(tmp_path, {"answer": 42.5})
    assert path == tmp_path / "result.json"
    manifest = support.check_document(path, "result-manifest")
    assert manifest == {"data": {"answer": 42.5}, "files": [record("answer.txt", b"42")]}


def test_manifests_default_to_empty_data(tmp_path: Path) -> None:
    manifest = support.check_document(metewand.write_result_manifest(tmp_path), "result-manifest")
    assert manifest == {"data": {}, "files": []}


def test_a_manifest_never_lists_itself_and_replaces_an_old_one(tmp_path: Path) -> None:
    write(tmp_path, "x", b"x")
    write(tmp_path, "dataset-manifest.json", b"stale")
    write(tmp_path, "sub/dataset-manifest.json", b"not at the root, so a file like any other")
    metewand.write_dataset_manifest(tmp_path)
    metewand.write_dataset_manifest(tmp_path, {"again": True})
    manifest = support.check_document(tmp_path / "dataset-manifest.json", "artifact-manifest")
    assert [entry["path"] for entry in manifest["files"]] == ["sub/dataset-manifest.json", "x"]
    assert manifest["data"] == {"again": True}


def test_a_directory_at_the_manifest_name_is_refused(tmp_path: Path) -> None:
    write(tmp_path, "result.json/inner", b"x")
    with pytest.raises(OutputError, match="is a directory, but the manifest goes there"):
        metewand.write_result_manifest(tmp_path)


def test_a_symbolic_link_at_the_manifest_name_is_refused(tmp_path: Path) -> None:
    write(tmp_path, "elsewhere.json", b"x")
    (tmp_path / "result.json").symlink_to("elsewhere.json")
    with pytest.raises(OutputError, match="symbolic link"):
        metewand.write_result_manifest(tmp_path)
    assert (tmp_path / "elsewhere.json").read_bytes() == b"x"


def test_the_manifest_is_written_after_every_file_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for index in range(5):
        write(tmp_path, f"part-{index}.bin", bytes([index]) * 1000)
    opened: list[tuple[str, bool]] = []
    real_open = os.open

    def spy(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        opened.append((os.path.basename(os.fsdecode(path)), bool(flags & os.O_WRONLY)))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(metewand.artifacts.os, "open", spy)
    metewand.write_dataset_manifest(tmp_path)
    monkeypatch.undo()
    assert sorted(opened[:-1]) == [(f"part-{index}.bin", False) for index in range(5)]
    assert opened[-1] == ("dataset-manifest.json", True)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([1], "the dataset manifest's data must be a dict, got list"),
        ({1: 2}, "the dataset manifest's data must have str keys, got int 1"),
        ({"x": float("nan")}, "the manifest has no json form: "),
    ],
)
def test_manifest_data_must_be_a_json_object(tmp_path: Path, data: Any, message: str) -> None:
    with pytest.raises(OutputError, match="^" + message.replace("(", r"\(")):
        metewand.write_dataset_manifest(tmp_path, data)
    assert not (tmp_path / "dataset-manifest.json").exists()


def test_a_schema_id_must_be_a_nonempty_string(tmp_path: Path) -> None:
    with pytest.raises(OutputError, match="a schema id must be a nonempty str"):
        metewand.write_result_manifest(tmp_path, schema="")


def test_the_metrics_document(tmp_path: Path) -> None:
    path = metewand.write_metrics(tmp_path / "work" / "metrics" / "metrics.json", {"error": 1e-3})
    assert path == tmp_path / "work" / "metrics" / "metrics.json"
    assert support.check_document(path, "metrics") == {"metrics": {"error": 0.001}}
    metewand.write_metrics(path, schema="urn:example:metrics:1")
    assert support.check_document(path, "metrics") == {
        "metrics": {},
        "schema": "urn:example:metrics:1",
    }


# ---------------------------------------------------------------------------
# Output


def test_output_writes_files_under_its_directory(tmp_path: Path) -> None:
    output = metewand.Output(tmp_path / "new", "result.json")
    assert output.dir == tmp_path / "new" and output.dir.is_dir()
    assert output.data == {}
    assert output.write_text("a/b/c.txt", "été") == tmp_path / "new" / "a" / "b" / "c.txt"
    assert (tmp_path / "new" / "a" / "b" / "c.txt").read_bytes() == "été".encode()
    output.write_bytes(PurePosixPath("raw.bin"), b"\x00\x01")
    output.write_json("value.json", {"b": [1.0, 2.5], "a": "x"})
    assert (tmp_path / "new" / "value.json").read_bytes() == b'{"a":"x","b":[1,2.5]}'
    with output.open("opened.txt") as file:
        file.write("ü")
    assert (tmp_path / "new" / "opened.txt").read_bytes() == "ü".encode()
    path = output.path("deep/er/file.npy")
    assert path.parent.is_dir() and not path.exists()
    assert repr(output) == f"Output({str(tmp_path / 'new')!r})"


def test_output_write_json_refuses_values_without_a_json_form(tmp_path: Path) -> None:
    output = metewand.Output(tmp_path, "result.json")
    with pytest.raises(CanonicalJSONError):
        output.write_json("x.json", {"x": float("inf")})


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("", "it is empty"),
        ("/etc/passwd", "it is absolute"),
        ("a//b", "it has an empty component"),
        ("a/", "it has an empty component"),
        (".", "it has a . or .. component"),
        ("a/../b", "it has a . or .. component"),
        ("./a", "it has a . or .. component"),
        ("a\\b", "it holds a backslash"),
        ("C:/x", "it starts with a drive letter"),
        ("a\x00b", "it holds a NUL character"),
        ("\udcff", "it is not valid utf-8"),
    ],
)
def test_output_refuses_names_a_manifest_cannot_hold(
    tmp_path: Path, name: str, problem: str
) -> None:
    output = metewand.Output(tmp_path, "result.json")
    with pytest.raises(ValueError, match="cannot name a file of an artifact: " + problem):
        output.path(name)


def test_output_refuses_the_manifest_name_and_bytes(tmp_path: Path) -> None:
    output = metewand.Output(tmp_path, "dataset-manifest.json")
    with pytest.raises(ValueError, match="reserved for the manifest"):
        output.write_text("dataset-manifest.json", "{}")
    output.write_text("sub/dataset-manifest.json", "{}")
    with pytest.raises(TypeError, match="not bytes"):
        output.path(b"x")  # type: ignore[arg-type]


def test_output_close_files_closes_what_open_returned(tmp_path: Path) -> None:
    output = metewand.Output(tmp_path, "result.json")
    first = output.open("one.bin", "wb")
    first.write(b"1" * 10000)
    second = output.open("two.txt")
    second.close()
    output.close_files()
    assert first.closed and (tmp_path / "one.bin").stat().st_size == 10000


def test_a_checkpoint_copies_every_file_in_one_pass_and_lists_what_it_wrote(tmp_path: Path) -> None:
    files = {
        "x.json": b'{"x":1}',
        "a/b/c.bin": bytes(range(256)) * 9000,
        "a/d.txt": b"d",
        "empty": b"",
    }
    for relative, content in files.items():
        write(tmp_path, relative, content)
    output = metewand.Output(tmp_path, "result.json")
    output.data = {"step": 1}
    assert metewand.artifacts.copy_checkpoint(output, 1) == "checkpoints/1/result.json"
    copy = tmp_path / "checkpoints" / "1"
    expected = [record(name, files[name]) for name in sorted(files, key=str.encode)]
    # The copy is what was there, and its manifest lists exactly the bytes a walk of it finds.
    walked = [entry for entry in file_records(copy) if entry["path"] != "result.json"]
    assert walked == expected
    manifest = json.loads((copy / "result.json").read_text())
    assert manifest["files"] == expected and manifest["data"] == {"step": 1}
    # The next checkpoint leaves the earlier ones out of what it copies.
    write(tmp_path, "x.json", b'{"x":2}')
    assert metewand.artifacts.copy_checkpoint(output, 2) == "checkpoints/2/result.json"
    assert record("x.json", b'{"x":2}') in file_records(tmp_path / "checkpoints" / "2")
    with pytest.raises(OutputError, match=r'^"checkpoints/2" already exists$'):
        metewand.artifacts.copy_checkpoint(output, 2)


def test_a_checkpoint_of_an_output_holding_a_link_is_refused(tmp_path: Path) -> None:
    write(tmp_path, "data.csv", b"1")
    (tmp_path / "alias.csv").symlink_to("data.csv")
    output = metewand.Output(tmp_path, "result.json")
    with pytest.raises(OutputError, match=r'^"alias.csv" is a symbolic link; an artifact holds'):
        metewand.artifacts.copy_checkpoint(output, 1)
    assert not (tmp_path / "checkpoints" / "1" / "result.json").exists()


def open_descriptors() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd")
def test_a_copy_that_fails_leaves_no_descriptor_open(tmp_path: Path) -> None:
    # A file copied into a checkpoint is read and written through plain descriptors, which no
    # file object closes when the copy stops half-way.
    write(tmp_path, "x.json", b'{"x":1}')
    (tmp_path / "elsewhere").symlink_to(tmp_path / "target")
    os.mkfifo(tmp_path / "pipe")
    before = open_descriptors()
    # A link where the copy goes is not followed.
    with pytest.raises(OSError):
        metewand.artifacts._record(str(tmp_path / "x.json"), "x.json", str(tmp_path / "elsewhere"))
    assert not (tmp_path / "target").exists()
    # A file listed as regular that is something else by the time it is read.
    with pytest.raises(OutputError, match=r'^"pipe" stopped being a regular file while it was listed$'):
        metewand.artifacts._record(str(tmp_path / "pipe"), "pipe", str(tmp_path / "copy"))
    assert not (tmp_path / "copy").exists()
    assert open_descriptors() == before


# ---------------------------------------------------------------------------
# Reading artifacts


def test_read_dataset_and_result(tmp_path: Path) -> None:
    write(tmp_path / "d", "points.csv", b"1,2\n")
    metewand.write_dataset_manifest(tmp_path / "d", {"rows": 1}, schema="urn:x")
    dataset = metewand.read_dataset(tmp_path / "d")
    assert dataset.dir == tmp_path / "d"
    assert dataset.data == {"rows": 1} and dataset.schema == "urn:x"
    assert [(entry.path, entry.size) for entry in dataset.files] == [("points.csv", 4)]
    assert dataset.path("points.csv") == tmp_path / "d" / "points.csv"
    with dataset.open("points.csv", "rb") as file:
        assert file.read() == b"1,2\n"
    with pytest.raises(ValueError, match="it has a . or .. component"):
        dataset.path("../d/points.csv")
    assert repr(dataset).startswith(f"Artifact({str(tmp_path / 'd')!r}, ArtifactManifest(")

    metewand.write_result_manifest(tmp_path / "r", {"x": 1})
    result = metewand.read_result(tmp_path / "r")
    assert result.data == {"x": 1} and result.files == [] and result.schema is None


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read the dataset manifest "),
        (b"{", "is invalid: "),
        (b'{"a":1,"a":2}', "is invalid: duplicate member name"),
        (
            b'{"complete":true,"data":{},"files":[],"extra":1}',
            'is invalid: unknown property "extra"',
        ),
        (b'{"complete":false,"data":{},"files":[]}', "is invalid: /complete: expected true"),
        (b'{"data":{},"files":[]}', 'is invalid: missing required property "complete"'),
    ],
)
def test_read_dataset_refuses_a_bad_manifest(
    tmp_path: Path, content: bytes | None, message: str
) -> None:
    if content is not None:
        (tmp_path / "dataset-manifest.json").write_bytes(content)
    with pytest.raises(OutputError, match=message):
        metewand.read_dataset(tmp_path)


def test_read_result_refuses_a_directory_and_a_link(tmp_path: Path) -> None:
    (tmp_path / "a" / "result.json").mkdir(parents=True)
    with pytest.raises(OutputError, match="is not a regular file"):
        metewand.read_result(tmp_path / "a")
    (tmp_path / "b").mkdir()
    metewand.write_result_manifest(tmp_path / "b")
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "result.json").symlink_to(tmp_path / "b" / "result.json")
    with pytest.raises(OutputError, match="cannot read the result manifest"):
        metewand.read_result(tmp_path / "c")


def test_documents_are_canonical_bytes(tmp_path: Path) -> None:
    path = metewand.write_result_manifest(tmp_path, {"z": 1.0, "a": [1e21, -0.0, "é"]})
    content = path.read_bytes()
    assert content == dumps({"data": {"a": [1e21, 0, "é"], "z": 1}, "files": []})
    assert content == '{"data":{"a":[1e+21,0,"é"],"z":1},"files":[]}'.encode()
