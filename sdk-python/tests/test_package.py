"""The package as a worker author meets it: its public names, its import cost, its metadata."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import metewand

SDK_DIR = Path(__file__).resolve().parents[1]


def _new_modules(code: str) -> list[str]:
    # -S leaves out site, which in some environments imports typing or re itself.
    program = (
        "import sys; before = set(sys.modules); " + code + "; "
        "print(sorted(set(sys.modules) - before))"
    )
    result = subprocess.run(
        [sys.executable, "-S", "-c", program],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(SDK_DIR / "src")},
    )
    return json.loads(result.stdout.replace("'", '"'))  # type: ignore[no-any-return]


def test_import_metewand_loads_nothing_else() -> None:
    assert _new_modules("import metewand") == ["metewand"]


def test_a_worker_loads_only_what_the_loop_needs() -> None:
    loaded = _new_modules("from metewand import Implementation, WorkerError")
    heavy = {
        "typing",
        "re",
        "json",
        "pathlib",
        "hashlib",
        "traceback",
        "inspect",
        "dataclasses",
        "subprocess",
        "threading",
        "logging",
        "importlib",
    }
    assert sorted(heavy & set(loaded)) == []


def test_public_names_resolve() -> None:
    assert sorted(metewand.__all__) == sorted(metewand._EXPORTS)
    for name in metewand.__all__:
        assert getattr(metewand, name) is not None
        assert name in dir(metewand)
    assert set(metewand.__all__) >= {
        "Materializer",
        "Implementation",
        "Evaluator",
        "WorkerError",
        "run",
        "serve",
        "Output",
        "Artifact",
        "Problem",
        "write_dataset_manifest",
        "write_result_manifest",
        "write_metrics",
        "file_records",
    }
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        _ = metewand.nothing  # type: ignore[attr-defined]
    from metewand import Implementation

    assert Implementation is metewand.worker.Implementation


def test_metadata() -> None:
    with (SDK_DIR / "pyproject.toml").open("rb") as file:
        project = tomllib.load(file)["project"]
    assert project["name"] == "metewand-python"
    assert project["version"] == metewand.__version__ == "0.1.0"
    assert project["requires-python"] == ">=3.10"
    assert project["dependencies"] == []
    assert project["readme"] == "README.md"
    assert (SDK_DIR / "README.md").is_file()
    assert (SDK_DIR / "src" / "metewand" / "py.typed").is_file()


def test_roles() -> None:
    assert metewand.Materializer.role == "dataset_materializer"
    assert metewand.Implementation.role == "implementation"
    assert metewand.Evaluator.role == "problem_evaluator"
    assert metewand.Implementation.capabilities == ("one_shot",)
    assert metewand.Materializer.capabilities == metewand.Evaluator.capabilities == ()
    assert metewand.worker.SDK_NAME == "metewand-python"
