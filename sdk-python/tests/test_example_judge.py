"""The least-squares example's judge keeps each dataset's optimum between the attempts one session
serves (reused sessions): what it says of an answer must be what a fresh judge says, whichever dataset
came before, and it solves each dataset once."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from metewand.models.worker_protocol_message import (
    AckResponse,
    EvaluateResponse,
    ExecuteResponse,
    HelloResponse,
    MaterializeResponse,
)
from metewand.testing import WorkerClient

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "least-squares"
PROBLEM = {"lambda": 0.1, "tolerance": 1e-9}


@pytest.fixture(scope="module")
def workers() -> Iterator[dict[str, ModuleType]]:
    """The example's generate, cholesky and judge scripts, with its shared ridge package importable."""
    sys.path.insert(0, str(EXAMPLE))
    try:
        loaded = {}
        for name, script in [
            ("generate", "generate/generate.py"),
            ("cholesky", "cholesky/cholesky.py"),
            ("judge", "judge/judge.py"),
        ]:
            spec = importlib.util.spec_from_file_location(f"least_squares_{name}", EXAMPLE / "workers" / script)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            loaded[name] = module
        yield loaded
    finally:
        sys.path.remove(str(EXAMPLE))


def dataset(workers: dict[str, ModuleType], folder: Path, rows: int, seed: int) -> Path:
    folder.mkdir()
    with WorkerClient.in_process(workers["generate"].Generate) as client:
        assert isinstance(client.hello(), HelloResponse)
        parameters = {"rows": rows, "columns": 5, "noise": 0.1}
        made = client.materialize(source_dir=EXAMPLE, output_dir=folder, parameters=parameters, seed=seed)
        assert isinstance(made, MaterializeResponse), made
    return folder


def answer(workers: dict[str, ModuleType], data: Path, folder: Path, scale: float) -> Path:
    """The exact solution on `data`, every entry multiplied by `scale` (1.0 reaches the optimum)."""
    folder.mkdir()
    with WorkerClient.in_process(workers["cholesky"].Cholesky) as client:
        assert isinstance(client.hello(), HelloResponse)
        assert isinstance(client.prepare(dataset_dir=data, problem_parameters=PROBLEM), AckResponse)
        assert isinstance(client.execute(result_dir=folder), ExecuteResponse)
    if scale != 1.0:
        solution = folder / "solution.json"
        x = json.loads(solution.read_text())["x"]
        solution.write_text(json.dumps({"x": [scale * value for value in x]}))
    return folder


def judged(client: WorkerClient, data: Path, result: Path, metrics: Path) -> tuple[str, dict[str, float]]:
    response = client.evaluate(
        dataset_dir=data, result_dir=result, metrics_path=metrics, problem_parameters=PROBLEM
    )
    assert isinstance(response, EvaluateResponse), response
    return response.verdict, json.loads(metrics.read_text())["metrics"]


def test_one_judge_across_datasets_says_what_a_fresh_judge_says(
    workers: dict[str, ModuleType], tmp_path: Path
) -> None:
    first = dataset(workers, tmp_path / "first", rows=30, seed=1)
    second = dataset(workers, tmp_path / "second", rows=40, seed=2)
    cases = [
        (first, answer(workers, first, tmp_path / "first-exact", 1.0)),
        (second, answer(workers, second, tmp_path / "second-off", 1.5)),
        (second, answer(workers, second, tmp_path / "second-exact", 1.0)),
        (first, answer(workers, first, tmp_path / "first-off", 0.5)),
    ]
    fresh = []
    for number, (data, result) in enumerate(cases):
        with WorkerClient.in_process(workers["judge"].Judge) as client:
            assert isinstance(client.hello(), HelloResponse)
            fresh.append(judged(client, data, result, tmp_path / f"fresh-{number}.json"))
    assert [verdict for verdict, _ in fresh] == ["reached", "not_reached", "reached", "not_reached"]
    assert fresh[0][1]["optimum"] != fresh[2][1]["optimum"]
    with WorkerClient.in_process(workers["judge"].Judge) as client:
        assert isinstance(client.hello(), HelloResponse)
        reused = [
            judged(client, data, result, tmp_path / f"reused-{number}.json")
            for number, (data, result) in enumerate(cases)
        ]
    assert reused == fresh


def test_one_judge_solves_each_dataset_once(
    workers: dict[str, ModuleType], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A reused session's attempts take its datasets in turn: the judge keeps more than the last one's optimum.
    first = dataset(workers, tmp_path / "first", rows=30, seed=1)
    second = dataset(workers, tmp_path / "second", rows=40, seed=2)
    results = {data: answer(workers, data, tmp_path / f"{data.name}-exact", 1.0) for data in (first, second)}
    ridge = workers["judge"].ridge
    solves = []
    solve = ridge.cholesky_solve
    monkeypatch.setattr(ridge, "cholesky_solve", lambda *args: solves.append(1) or solve(*args))
    with WorkerClient.in_process(workers["judge"].Judge) as client:
        assert isinstance(client.hello(), HelloResponse)
        verdicts = [
            judged(client, data, results[data], tmp_path / f"metrics-{number}.json")[0]
            for number, data in enumerate([first, second, first, second, first])
        ]
    assert verdicts == ["reached"] * 5
    assert len(solves) == 2


@pytest.mark.parametrize(
    ("broken", "why"),
    [
        ("not json {", "not JSON"),
        ('{"y": [1.0]}', "not a vector"),
        ('[1.0, 2.0]', "not a vector"),
        ('{"x": [true, false, true, false, true]}', "not a vector"),
        (b"\xff\xfe", "not JSON"),
    ],
)
def test_a_result_the_judge_cannot_read_is_invalid_not_the_judges_failure(
    workers: dict[str, ModuleType], tmp_path: Path, broken: str | bytes, why: str
) -> None:
    data = dataset(workers, tmp_path / "data", rows=30, seed=1)
    result = answer(workers, data, tmp_path / "result", 1.0)
    solution = result / "solution.json"
    if isinstance(broken, bytes):
        solution.write_bytes(broken)
    else:
        solution.write_text(broken)
    with WorkerClient.in_process(workers["judge"].Judge) as client:
        assert isinstance(client.hello(), HelloResponse)
        verdict, metrics = judged(client, data, result, tmp_path / "metrics.json")
    # The judge reads the file as a fresh evaluation does (its manifest's digest is not checked in process).
    assert verdict == "invalid", why
    assert metrics == {"objective": 0.0, "optimum": 0.0, "relative_gap": 0.0, "residual": 0.0}
