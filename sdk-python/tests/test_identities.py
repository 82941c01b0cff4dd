"""The cross-language identity check: Python builds every identity preimage (docs/decisions/identities.md) itself,
from a repository's metewand.toml and files, hashes it with hashlib over the SDK's canonical encoder, and must get
exactly what `metewand check` prints."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest

from metewand.canonical import dumps

REPOSITORY_ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = REPOSITORY_ROOT / "examples" / "least-squares"
SKIPPED = {".git", ".metewand", "__pycache__"}


def metewand_binary() -> Path:
    # `cargo xtask test` builds the binary before the Python tests and names it here.
    configured = os.environ.get("METEWAND_BIN")
    if configured is None:
        pytest.skip("METEWAND_BIN is not set: run these tests through `cargo xtask test`")
    path = Path(configured)
    assert path.is_file(), f"METEWAND_BIN names {path}, which does not exist"
    return path


def sha256_hex(value: Any) -> str:
    return hashlib.sha256(dumps(value)).hexdigest()


def source_digest(directory: Path) -> str:
    records = []

    def walk(folder: Path, prefix: str) -> None:
        for entry in os.scandir(folder):
            if entry.name in SKIPPED:
                continue
            relative = prefix + entry.name
            if entry.is_dir(follow_symlinks=False):
                walk(Path(entry.path), relative + "/")
            else:
                content = Path(entry.path).read_bytes()
                # Executable: any of the owner, group or other execute bits.
                executable = entry.stat(follow_symlinks=False).st_mode & 0o111 != 0
                records.append({
                    "executable": executable,
                    "path": relative,
                    "sha256": hashlib.sha256(content).hexdigest(),
                    "size": len(content),
                })

    walk(directory, "")
    records.sort(key=lambda record: record["path"].encode("utf-8"))
    return "sha256:" + sha256_hex(records)


def schema_catalog(root: Path, manifest: dict[str, Any]) -> dict[str, Any]:
    catalog = {}
    for pattern in manifest.get("schemas", {}).get("files", []):
        for path in sorted(root.glob(pattern)):
            document = json.loads(path.read_text(encoding="utf-8"))
            catalog[document["$id"]] = document
    for path in sorted((REPOSITORY_ROOT / "schemas").glob("*.schema.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        catalog[document["$id"]] = document
    return catalog


def schema_id(reference: Any, catalog: dict[str, Any]) -> str:
    """A declared schema: a catalog id as written, or an inline table under its content-derived id."""
    if isinstance(reference, str):
        return reference
    inline_id = "urn:metewand:inline:" + sha256_hex(reference)
    catalog[inline_id] = reference
    return inline_id


def references(document: Any) -> list[str]:
    found = []
    if isinstance(document, dict):
        for key, value in document.items():
            if key == "$ref" and isinstance(value, str):
                found.append(value.split("#", 1)[0])
            else:
                found.extend(references(value))
    elif isinstance(document, list):
        for item in document:
            found.extend(references(item))
    return found


def closure(roots: list[str], catalog: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    pending = list(roots)
    while pending:
        current = pending.pop()
        if current in found or current not in catalog:
            continue
        found[current] = catalog[current]
        pending.extend(reference for reference in references(catalog[current]) if reference)
    return found


def points(definitions: dict[str, Any]) -> dict[str, Any]:
    """Each definition, a grid's points in its place: ``NAME[key=value,...]`` (keys in byte order, values in
    canonical JSON), each the grid's values merged over ``parameters``."""
    out = {}
    for name, definition in definitions.items():
        grid = definition.get("grid")
        if not grid:
            out[name] = definition
            continue
        keys = sorted(grid, key=str.encode)
        for values in itertools.product(*(grid[key] for key in keys)):
            label = ",".join(f"{key}={dumps(value).decode()}" for key, value in zip(keys, values))
            parameters = {**definition.get("parameters", {}), **dict(zip(keys, values))}
            out[f"{name}[{label}]"] = {**definition, "parameters": parameters}
    return out


def expected_identities(root: Path, seed: int) -> list[str]:
    manifest = tomllib.loads((root / "metewand.toml").read_text(encoding="utf-8"))
    catalog = schema_catalog(root, manifest)
    lines = []
    sources, workers = {}, {}
    for name, worker in manifest["workers"].items():
        sources[name] = source_digest(root / worker["source"])
        preimage = {"command": worker["command"], "env": worker.get("env", {}), "role": worker["role"], "source": sources[name]}
        if worker.get("network", False):
            # Declared network access is part of the identity; a worker without the key keeps the preimage above.
            preimage["network"] = True
        if worker.get("include"):
            # So are the include folders, each by its tree digest; a worker without any keeps the preimage above.
            preimage["include"] = {folder: source_digest(root / folder) for folder in worker["include"]}
        if "environment" in worker.get("identity", []):
            # Of a worker whose environment Metewand builds, the digest of its declaration: the requirements file's
            # bytes, or a pyproject's dependencies a line each. What an interpreter imports is read by the check only.
            declared = root / worker["python"]["requirements"]
            if declared.name == "pyproject.toml":
                dependencies = tomllib.loads(declared.read_text(encoding="utf-8"))["project"]["dependencies"]
                text = "".join(f"{dependency}\n" for dependency in dependencies).encode()
            else:
                text = declared.read_bytes()
            preimage["environment"] = hashlib.sha256(text).hexdigest()
        workers[name] = "mw1-resolved-worker-" + sha256_hex(preimage)
    for name in sorted(sources):
        lines.append(f"source {name} {sources[name]}")
    for name in sorted(workers):
        lines.append(f"worker {name} {workers[name]}")
    for name, problem in sorted(manifest.get("problems", {}).items()):
        named = {key: schema_id(problem[key], catalog) for key in ("metric_schema", "result_schema")}
        parameters_schema = schema_id(problem["parameters_schema"], catalog) if "parameters_schema" in problem else None
        roots = [*named.values(), *([parameters_schema] if parameters_schema else [])]
        preimage = {
            "evaluator": workers[problem["evaluator"]],
            "metric_schema": named["metric_schema"],
            "parameters_schema": parameters_schema,
            "result_schema": named["result_schema"],
            "schemas": closure(roots, catalog),
        }
        lines.append(f"contract {name} mw1-problem-contract-{sha256_hex(preimage)}")
    for name, dataset in sorted(points(manifest.get("datasets", {})).items()):
        output_schema = schema_id(dataset["output_schema"], catalog)
        parameters_schema = schema_id(dataset["parameters_schema"], catalog) if "parameters_schema" in dataset else None
        roots = [output_schema, *([parameters_schema] if parameters_schema else [])]
        preimage = {
            "materializer": workers[dataset["materializer"]],
            "output_schema": output_schema,
            "parameters": dataset.get("parameters", {}),
            "parameters_schema": parameters_schema,
            "schemas": closure(roots, catalog),
            "seed": seed,
        }
        lines.append(f"dataset {name} {seed} {sha256_hex(preimage)}")
    return lines


def check(root: Path, seed: int) -> list[str]:
    completed = subprocess.run(
        [metewand_binary(), "check", str(root), "--dataset-seed", str(seed)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    return completed.stdout.splitlines()


@pytest.mark.parametrize("seed", [0, 17, 9007199254740991])
def test_the_example_repository_identities_agree(seed: int) -> None:
    assert check(EXAMPLE, seed) == expected_identities(EXAMPLE, seed)


def test_inline_schemas_references_and_undeclared_env_agree(tmp_path: Path) -> None:
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "point.schema.json").write_text(
        json.dumps({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "urn:test:point:1",
            "type": "object",
            "properties": {"x": {"$ref": "urn:test:number:1"}},
        }),
        encoding="utf-8",
    )
    (tmp_path / "schemas" / "number.schema.json").write_text(
        json.dumps({"$id": "urn:test:number:1", "type": "number"}), encoding="utf-8"
    )
    for worker in ("gen", "solve", "judge"):
        (tmp_path / worker / "sub").mkdir(parents=True)
        (tmp_path / worker / "main.py").write_text(f"# {worker}\n", encoding="utf-8")
        (tmp_path / worker / "run.sh").write_text("#!/bin/sh\n", encoding="utf-8")
        (tmp_path / worker / "run.sh").chmod(0o750 if worker == "solve" else 0o640)
        (tmp_path / worker / "sub" / "données é.txt").write_bytes(b"\x00\x01 binary")
        (tmp_path / worker / "__pycache__").mkdir()
        (tmp_path / worker / "__pycache__" / "skipped.pyc").write_bytes(b"ignored")
    (tmp_path / "requirements.txt").write_text("--no-index\nnumpy==2.1.3  # pinned\n", encoding="utf-8")
    (tmp_path / "judge" / "pyproject.toml").write_text(
        '[project]\nname = "judge"\ndependencies = ["scipy==1.14.1", "numpy==2.1.3"]\n', encoding="utf-8"
    )
    (tmp_path / "metewand.toml").write_text(
        """
format = 1
[schemas]
files = ["schemas/*.schema.json"]
[workers.gen]
role = "dataset_materializer"
command = ["python3", "main.py", "--flag"]
source = "gen"
env = { PYTHONPATH = "${repo}/lib", MODE = "fast" }
[workers.solve]
role = "implementation"
command = ["python3", "main.py"]
source = "solve"
network = true
python = { requirements = "requirements.txt" }
identity = ["environment"]
[workers.judge]
role = "problem_evaluator"
command = ["python3", "main.py"]
source = "judge"
network = false
python = { requirements = "judge/pyproject.toml" }
identity = ["environment"]
[datasets.points]
materializer = "gen"
parameters = { rows = 3, scale = 0.5, label = "é", nested = { list = [1, 2.5, "x"] } }
output_schema = { type = "object", properties = { rows = { type = "integer" } } }
[problems.fit]
evaluator = "judge"
parameters = { tolerance = 1e-9 }
parameters_schema = { type = "object" }
result_schema = "urn:test:point:1"
metric_schema = "urn:test:number:1"
[implementations.exact]
worker = "solve"
""",
        encoding="utf-8",
    )
    for seed in (0, 5):
        assert check(tmp_path, seed) == expected_identities(tmp_path, seed)


def seeds_of(axis: Any) -> list[int]:
    if axis is None:
        return [0]
    if isinstance(axis, dict):
        return list(range(axis["from"], axis["from"] + axis["count"]))
    return list(axis)


def expected_attempts(root: Path, campaign: str) -> list[str]:
    """Every attempt of `[campaigns.NAME]` in plan order, with its id: SHA-256 of the canonical
    {"contract_id", "dataset_key", "implementation", "implementation_parameters", "implementation_seed",
    "problem_parameters", "repetition"}, `implementation` being the worker's resolved identity, and
    "profile" {"checkpoints"} added for an attempt that streams."""
    manifest = tomllib.loads((root / "metewand.toml").read_text(encoding="utf-8"))
    spec = manifest["campaigns"][campaign]
    dataset_seeds = seeds_of(spec.get("dataset_seeds"))
    identities: dict[str, dict[str, str]] = {"worker": {}, "contract": {}, "dataset": {}}
    for seed in dataset_seeds:
        for line in expected_identities(root, seed):
            kind, name, *rest = line.split(" ")
            if kind == "dataset":
                identities["dataset"][f"{name} {rest[0]}"] = rest[1]
            elif kind in identities:
                identities[kind][name] = rest[0]
    lines = []
    for problem in spec.get("problems", sorted(manifest["problems"])):
        for dataset in spec.get("datasets", sorted(manifest["datasets"])):
            for dataset_seed in dataset_seeds:
                for implementation in spec.get("implementations", sorted(manifest["implementations"])):
                    declared = manifest["implementations"][implementation]
                    for implementation_seed in seeds_of(spec.get("implementation_seeds")):
                        for repetition in range(1, spec.get("repetitions", 1) + 1):
                            preimage = {
                                "contract_id": identities["contract"][problem],
                                "dataset_key": identities["dataset"][f"{dataset} {dataset_seed}"],
                                "implementation": identities["worker"][declared["worker"]],
                                "implementation_parameters": declared.get("parameters", {}),
                                "implementation_seed": implementation_seed,
                                "problem_parameters": manifest["problems"][problem].get("parameters", {}),
                                "repetition": repetition,
                            }
                            profile = manifest["problems"][problem].get("profile")
                            if profile and "streaming_profile" in declared.get("capabilities", []):
                                preimage["profile"] = {"checkpoints": profile["checkpoints"]}
                            attempt_id = "mw1-attempt-" + sha256_hex(preimage)
                            lines.append(
                                f"attempt {attempt_id} {problem} {dataset} {dataset_seed} {implementation} "
                                f"{implementation_seed} {repetition}"
                            )
    return lines


@pytest.mark.parametrize(("campaign", "count"), [("main", 48), ("profile", 36)])
def test_the_example_campaign_attempt_ids_agree(tmp_path: Path, campaign: str, count: int) -> None:
    completed = subprocess.run(
        [metewand_binary(), "campaign", "plan", str(EXAMPLE), campaign, "--list", "--state-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    printed = [line for line in completed.stdout.splitlines() if line.startswith("attempt ")]
    expected = expected_attempts(EXAMPLE, campaign)
    assert len(expected) == count
    assert printed == expected
