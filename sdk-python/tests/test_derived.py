"""An attempt's time by what its problem ranks (``timed``), pinned on the shared vectors' records:
the same records and answers as ``metewand-protocol/tests/it/timed.rs`` pins in Rust, and the same
answer from ``metewand.results``, which reads a row's time through ``metewand.derived``."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from metewand import results
from metewand.derived import judged, timed_seconds
from metewand.models.attempt_record import AttemptRecord
from support import SCHEMAS_DIR

REACHED = "successful attempt with verdict reached"
STREAMED = "successful attempt whose implementation streamed two checkpoints"
FAILED = "failed attempt: the implementation reported a failure in execute"
CANCELLED = "cancelled attempt, interrupted during execute on a reused dataset"


def vector(name: str) -> dict[str, Any]:
    with (SCHEMAS_DIR / "vectors" / "attempt-record.json").open(encoding="utf-8") as file:
        valid = json.load(file)["valid"]
    return copy.deepcopy(next(vector["instance"] for vector in valid if vector["name"] == name))


def same(record: dict[str, Any]) -> None:
    pass


def execute(record: dict[str, Any]) -> None:
    record["problem"]["timed"] = "execute"


def prepare_execute(record: dict[str, Any]) -> None:
    record["problem"]["timed"] = "prepare+execute"


def retried(record: dict[str, Any]) -> None:
    again = dict(next(phase for phase in record["phases"] if phase["phase"] == "execute"), duration_ns=1)
    record["phases"].append(again)


def without_prepare(record: dict[str, Any]) -> None:
    prepare_execute(record)
    record["phases"] = [phase for phase in record["phases"] if phase["phase"] != "prepare"]


def others_too(record: dict[str, Any]) -> None:
    prepare_execute(record)
    for name in ("prepare", "execute"):
        other = dict(next(phase for phase in record["phases"] if phase["phase"] == name), role="problem_evaluator")
        record["phases"].append(other)


def failed_with_verdict(record: dict[str, Any]) -> None:
    record["verdict"] = "reached"


CASES: list[tuple[str, str, Callable[[dict[str, Any]], None], float | None]] = [
    (REACHED, "timed absent: execute", same, 4.713005871),
    (REACHED, "execute", execute, 4.713005871),
    (REACHED, "prepare+execute", prepare_execute, 4.725099326),
    (REACHED, "a retried execute counts too", retried, 4.713005872),
    (REACHED, "prepare+execute without a prepare", without_prepare, None),
    (REACHED, "another role's requests do not count", others_too, 4.725099326),
    ("successful attempt with verdict not_reached", "judged: not reached", same, 4.713005871),
    ("successful attempt with verdict invalid", "judged: invalid", same, 4.713005871),
    (STREAMED, "streamed: its execute", same, 4.713005871),
    (STREAMED, "streamed, prepare+execute", prepare_execute, 4.725099326),
    (FAILED, "failed", same, None),
    (FAILED, "failed, with a verdict", failed_with_verdict, None),
    (CANCELLED, "cancelled", same, None),
]


@pytest.mark.parametrize(("name", "case", "change", "expected"), CASES, ids=[case for _, case, _, _ in CASES])
def test_an_attempts_time_by_timed_is_pinned_and_results_reads_it_alike(
    name: str, case: str, change: Callable[[dict[str, Any]], None], expected: float | None
) -> None:
    data = vector(name)
    change(data)
    record = AttemptRecord.from_dict(data)
    phases = [(phase.role, phase.phase, phase.duration_ns) for phase in record.phases]
    seconds = timed_seconds(record.outcome, record.verdict, record.problem.timed, phases)
    # Exactly these doubles: every reader adds the same seconds.
    assert seconds == expected
    assert results._from_record(record)["timed_seconds"] == expected


def test_only_an_attempt_judged_to_the_end_is_timed() -> None:
    assert judged("reached", "reached") and judged("not_reached", "not_reached")
    assert not judged("failed", "reached") and not judged("cancelled", None) and not judged("failed", None)
