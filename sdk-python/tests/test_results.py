"""metewand.results against a real campaign folder: the example benchmark run by the metewand binary, then
damaged by hand (records deleted, truncated, swapped, edited) to check what each row says."""

from __future__ import annotations

import csv
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from array import array
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from metewand import _table, results
from metewand.results import AttemptRow, Results, ResultsError, load

REPOSITORY_ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = REPOSITORY_ROOT / "examples" / "least-squares"


def metewand_binary() -> Path:
    # `cargo xtask test` builds the binary before the Python tests and names it here; by hand, the debug build.
    configured = os.environ.get("METEWAND_BIN")
    if configured is None:
        path = REPOSITORY_ROOT / "target" / "debug" / "metewand"
        if not path.is_file():
            pytest.skip("METEWAND_BIN is not set and target/debug/metewand is not built")
        return path
    path = Path(configured).resolve()
    assert path.is_file(), f"METEWAND_BIN names {path}, which does not exist"
    return path


def make_writable(folder: Path) -> None:
    # Published datasets are read-only; the temporary folder must still be removable.
    for directory, _, _ in os.walk(folder):
        os.chmod(directory, 0o755)


@pytest.fixture(scope="module")
def campaign_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One campaign run, shared: cholesky (reached) and cg-too-few (not reached) on the small dataset."""
    base = tmp_path_factory.mktemp("campaign")
    completed = subprocess.run(
        [
            metewand_binary(), "campaign", "run", str(EXAMPLE),
            "--problem", "ridge", "--dataset", "small",
            "--implementation", "cholesky", "--implementation", "cg-too-few",
            "--out", str(base / "campaign"), "--state-dir", str(base / "state"), "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    yield base / "campaign"
    make_writable(base)


@pytest.fixture
def campaign(campaign_run: Path, tmp_path: Path) -> Path:
    """A copy of the campaign folder of this test's own, to damage."""
    return Path(shutil.copytree(campaign_run, tmp_path / "campaign", symlinks=True))


def plan_of(folder: Path) -> list[dict[str, Any]]:
    attempts: list[dict[str, Any]] = json.loads((folder / "campaign.json").read_text(encoding="utf-8"))["attempts"]
    return attempts


def record_path(folder: Path, attempt_id: str) -> Path:
    return folder / "attempts" / attempt_id / "attempt.json"


def record_of(folder: Path, attempt_id: str) -> dict[str, Any]:
    record: dict[str, Any] = json.loads(record_path(folder, attempt_id).read_text(encoding="utf-8"))
    return record


def phase_ns(record: dict[str, Any], phase: str) -> int:
    durations = [item["duration_ns"] for item in record["phases"] if item["phase"] == phase]
    assert durations, f"the record has no {phase} phase"
    return sum(durations)


def row_named(rows: Results, implementation: str) -> AttemptRow:
    (row,) = [row for row in rows if row.implementation == implementation]
    return row


def test_one_row_per_planned_attempt_as_recorded(campaign_run: Path) -> None:
    rows = load(campaign_run)
    plan = plan_of(campaign_run)
    assert len(rows) == len(plan) == 2
    assert [row.attempt_id for row in rows] == [entry["id"] for entry in plan]
    assert rows.folder == str(campaign_run)
    assert rows.name == json.loads((campaign_run / "campaign.json").read_text(encoding="utf-8"))["name"]
    for row, entry in zip(rows, plan):
        record = record_of(campaign_run, entry["id"])
        assert (row.problem, row.dataset, row.dataset_seed, row.dataset_key) == (
            entry["problem"], entry["dataset"], entry["dataset_seed"], entry["dataset_key"]
        )
        assert (row.implementation, row.implementation_seed, row.repetition) == (
            entry["implementation"], entry["implementation_seed"], entry["repetition"]
        )
        assert row.state == "recorded"
        assert row.invalid_reason is None
        assert row.outcome == record["outcome"]
        assert row.verdict == record["verdict"]
        assert (row.failure_role, row.failure_phase, row.failure_kind, row.failure_message) == (None,) * 4
        assert row.execute_seconds == phase_ns(record, "execute") / 1e9
        assert row.prepare_seconds == phase_ns(record, "prepare") / 1e9
        assert row.evaluate_seconds == phase_ns(record, "evaluate") / 1e9
        assert row.execute_seconds is not None and row.execute_seconds > 0
        assert row.timed == "execute"
        assert row.timed_seconds == row.execute_seconds
        assert row.worker_reported_seconds == record["implementation"]["implementation_time_ns"] / 1e9
        assert row.peak_memory_bytes == record["implementation"]["resources"]["peak_rss_bytes"]
        resources = record["implementation"]["resources"]
        assert row.cpu_seconds == (resources["user_cpu_ns"] + resources["system_cpu_ns"]) / 1e9
        assert dict(row.metrics) == record["metrics"]
        assert {"objective", "optimum", "relative_gap"} <= set(row.metrics)
        assert all(type(value) is float for value in row.metrics.values())
        assert row.started_at == record["started_at"]
        assert row.concurrency == 1
        assert row.session == record["implementation"]["session"]["mode"] == "fresh"
        assert row.worker_id == record["implementation"]["worker_id"]
        program = record["implementation"].get("program")
        if program is None:
            assert row.program is None and row.program_sha256 is None
        else:
            assert row.program == program.get("path_match", program["path"])
            assert row.program_sha256 == program["sha256"]

    assert row_named(rows, "cholesky").verdict == "reached"
    assert row_named(rows, "cholesky").outcome == "reached"
    too_few = row_named(rows, "cg-too-few")
    assert too_few.verdict is not None and too_few.verdict != "reached"
    assert too_few.metrics["relative_gap"] > row_named(rows, "cholesky").metrics["relative_gap"]


def test_rows_say_a_reused_session_served_them(tmp_path: Path) -> None:
    completed = subprocess.run(
        [
            metewand_binary(), "campaign", "run", str(EXAMPLE),
            "--problem", "ridge", "--dataset", "small", "--implementation", "cholesky",
            # Two cells: a reused session serves each cell once, so two repetitions of one would be two sessions.
            "--implementation-seeds", "0..2",
            "--sessions", "reuse",
            "--out", str(tmp_path / "campaign"), "--state-dir", str(tmp_path / "state"), "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    try:
        assert completed.returncode == 0, completed.stderr
        rows = load(tmp_path / "campaign")
        assert [row.session for row in rows] == ["reuse", "reuse"]
        assert [row.verdict for row in rows] == ["reached", "reached"]
        indices = sorted(
            record_of(tmp_path / "campaign", row.attempt_id)["implementation"]["session"]["index"] for row in rows
        )
        assert indices == [0, 1]
        # A reused session's attempt says no start-up of its own and no peak memory (its session had not ended).
        assert all(row.peak_memory_bytes is None for row in rows)
    finally:
        make_writable(tmp_path)


def test_rows_agree_with_the_export_where_they_overlap(campaign_run: Path) -> None:
    with (campaign_run / "results.csv").open(encoding="utf-8", newline="") as file:
        exported = list(csv.DictReader(file))
    rows = load(campaign_run)
    assert [line["attempt_id"] for line in exported] == [row.attempt_id for row in rows]
    for line, row in zip(exported, rows):
        assert line["outcome"] == row.outcome
        assert line["verdict"] == (row.verdict or "")
        for phase in ("prepare", "execute", "evaluate"):
            assert int(line[f"{phase}_ns"]) / 1e9 == getattr(row, f"{phase}_seconds")
        assert int(line["implementation_time_ns"]) / 1e9 == row.worker_reported_seconds
        assert int(line["peak_memory_bytes"]) == row.peak_memory_bytes
        assert int(line["cpu_ns"]) / 1e9 == row.cpu_seconds
        assert line["started_at"] == row.started_at
        metrics = {
            name.removeprefix("metric."): float(value) for name, value in line.items() if name.startswith("metric.")
        }
        assert metrics == dict(row.metrics)


def test_results_is_a_read_only_sequence(campaign_run: Path) -> None:
    rows = load(str(campaign_run))
    assert list(rows) == [rows[0], rows[1]]
    assert rows[-1] == rows[1]
    head = rows[:1]
    assert isinstance(head, Results) and len(head) == 1 and head[0] == rows[0] and head.name == rows.name
    assert rows.count(rows[0]) == 1 and rows.index(rows[1]) == 1
    assert list(rows[::-1]) == [rows[1], rows[0]] and list(rows[::-1][1:]) == [rows[0]] and not rows[2:]
    with pytest.raises(IndexError):
        rows[2]
    with pytest.raises(AttributeError):
        rows[0].outcome = "failed"  # type: ignore[misc]
    with pytest.raises(TypeError):
        rows[0].metrics["objective"] = 0.0  # type: ignore[index]
    assert hash(rows[0]) == hash(load(campaign_run)[0])
    assert "2 planned, 2 recorded" in repr(rows)


def test_records_are_read_not_the_exports(campaign: Path) -> None:
    # The record of a failed attempt, edited by hand after the export was written.
    entry = plan_of(campaign)[0]
    record = record_of(campaign, entry["id"])
    record.update(
        outcome="failed",
        verdict=None,
        metrics=None,
        failure={
            "code": "operation_failed",
            "details": None,
            "kind": "worker_failure",
            "message": "the solver did not converge",
            "phase": "execute",
            "role": "implementation",
        },
    )
    record_path(campaign, entry["id"]).write_text(json.dumps(record), encoding="utf-8")
    row = load(campaign, check_records=True)[0]
    assert row.state == "recorded"
    assert (row.outcome, row.verdict) == ("failed", None)
    assert (row.failure_role, row.failure_phase, row.failure_kind) == ("implementation", "execute", "worker_failure")
    assert row.failure_message == "the solver did not converge"
    assert dict(row.metrics) == {}
    # The executor still measured the requests it sent, but a failed attempt is not ranked.
    assert row.execute_seconds == phase_ns(record, "execute") / 1e9
    assert row.timed_seconds is None
    assert "failed" not in (campaign / "results.csv").read_text(encoding="utf-8")


def test_prepare_and_execute_timed_problems_add_both(campaign: Path) -> None:
    entry = plan_of(campaign)[1]
    record = record_of(campaign, entry["id"])
    record["problem"]["timed"] = "prepare+execute"
    record["metrics"]["label"] = "not a number"
    record["metrics"]["flag"] = True
    record_path(campaign, entry["id"]).write_text(json.dumps(record), encoding="utf-8")
    row = load(campaign, check_records=True)[1]
    assert row.timed == "prepare+execute"
    assert row.timed_seconds == phase_ns(record, "prepare") / 1e9 + phase_ns(record, "execute") / 1e9
    assert row.timed_seconds != row.execute_seconds
    # Only numeric metrics are kept, as in the export.
    assert set(row.metrics) == {"objective", "optimum", "relative_gap", "residual"}
    # The table the next export writes gives the very same row: the same sum, in seconds, even for times whose sum
    # in seconds is not their sum's (1e-9 + 2e-9 is not 3e-9 in floating point).
    for phase in record["phases"]:
        if phase["role"] == "implementation" and phase["phase"] in ("prepare", "execute"):
            phase["duration_ns"] = 1 if phase["phase"] == "prepare" else 2
    record_path(campaign, entry["id"]).write_text(json.dumps(record), encoding="utf-8")
    row = load(campaign, check_records=True)[1]
    assert row.timed_seconds == 1 / 1e9 + 2 / 1e9 != 3 / 1e9
    export(campaign, check_records=True)
    assert read_table(campaign)["columns"]["timed_ns"][1] == 3
    assert load(campaign)[1] == row


def index_lines(folder: Path) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = []
    for part in sorted((folder / "index").glob("*.jsonl")):
        lines.extend(json.loads(line) for line in part.read_text(encoding="utf-8").splitlines())
    return lines


def test_rows_read_through_the_index_are_the_rows_read_from_the_records(campaign: Path) -> None:
    # The run left one entry per record, each naming its record's bytes.
    entries = index_lines(campaign)
    assert sorted(entry["attempt_id"] for entry in entries) == sorted(entry["id"] for entry in plan_of(campaign))
    for entry in entries:
        content = record_path(campaign, entry["attempt_id"]).read_bytes()
        assert entry["record"] == {"sha256": hashlib.sha256(content).hexdigest(), "size": len(content)}
    through_index = list(load(campaign))
    shutil.rmtree(campaign / "index")
    assert list(load(campaign)) == through_index
    assert not (campaign / "index").exists(), "load never writes the index"


def test_an_entry_is_used_only_for_the_very_bytes_it_names(campaign: Path) -> None:
    # The index alone: the table would be read before it.
    (campaign / "index" / "table.json").unlink()
    entry = plan_of(campaign)[0]
    record = record_of(campaign, entry["id"])
    before = load(campaign)[0]
    assert before.outcome == "reached"
    # The index says reached for the old bytes; the record now says otherwise, with the same length.
    text = record_path(campaign, entry["id"]).read_text(encoding="utf-8")
    edited = text.replace('"outcome":"reached"', '"outcome":"invalid"').replace(
        '"verdict":"reached"', '"verdict":"invalid"'
    )
    assert edited != text and record["outcome"] == "reached"
    record_path(campaign, entry["id"]).write_text(edited, encoding="utf-8")
    row = load(campaign)[0]
    assert (row.outcome, row.verdict, row.timed_seconds) == ("invalid", "invalid", before.timed_seconds)


def stamp_of(path: Path) -> str:
    info = os.lstat(path)
    ctime, mtime = divmod(info.st_ctime_ns, 10**9), divmod(info.st_mtime_ns, 10**9)
    return f"{info.st_ino}:{ctime[0]}.{ctime[1]:09d}:{mtime[0]}.{mtime[1]:09d}"


def rewrite_entries(folder: Path, attempt_id: str, change: Any) -> None:
    for part in (folder / "index").glob("*.jsonl"):
        lines = []
        for line in part.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            if entry["attempt_id"] == attempt_id:
                change(entry)
            lines.append(json.dumps(entry, separators=(",", ":")) + "\n")
        part.write_text("".join(lines), encoding="utf-8")


def test_a_stamped_entry_is_used_without_hashing_only_while_its_file_keeps_the_stamp(campaign: Path) -> None:
    # The index alone: the table would be read before it.
    (campaign / "index" / "table.json").unlink()
    expected = list(load(campaign))
    # The copy's records have just been written: once they have settled, the executor's next checked reading stamps
    # their entries (5 seconds, as the campaign-index schema says).
    time.sleep(5.5)
    status = [metewand_binary(), "campaign", "status", "--check-records", str(campaign)]
    completed = subprocess.run(status, capture_output=True, text=True, check=False)
    assert completed.returncode == 0, completed.stderr
    stamped = [entry for entry in index_lines(campaign) if "stamp" in entry["record"]]
    assert sorted(entry["attempt_id"] for entry in stamped) == sorted(row.attempt_id for row in expected)
    for entry in stamped:
        assert entry["record"]["stamp"] == stamp_of(record_path(campaign, entry["attempt_id"]))
    assert list(load(campaign)) == expected
    # An entry that says another outcome and a digest its record never had, keeping the stamp, is used as it is:
    # the record is not hashed ...
    attempt_id = expected[0].attempt_id
    other = "cancelled" if expected[0].outcome != "cancelled" else "failed"

    def forge(entry: dict[str, Any]) -> None:
        entry["outcome"] = other
        entry["record"]["sha256"] = "0" * 64

    rewrite_entries(campaign, attempt_id, forge)
    assert load(campaign)[0].outcome == other
    # ... until its file changes in any way (a change of mode moves its ctime): then it is hashed, the entry
    # refused and the record read.
    os.chmod(record_path(campaign, attempt_id), 0o600)
    assert list(load(campaign)) == expected


@pytest.mark.parametrize(
    "damage",
    [
        "cut short",
        "not json",
        "another attempt's id",
        "a field missing",
        "a record that is not an object",
    ],
)
def test_broken_index_lines_fall_back_to_the_records(campaign: Path, damage: str) -> None:
    (campaign / "index" / "table.json").unlink()
    expected = list(load(campaign))
    (part,) = (campaign / "index").glob("*.jsonl")
    lines = part.read_text(encoding="utf-8").splitlines(keepends=True)
    ids = [entry["id"] for entry in plan_of(campaign)]
    if damage == "cut short":
        text = "".join(lines)[:-10]
    elif damage == "not json":
        text = "".join("{" + line[5:] for line in lines)
    elif damage == "another attempt's id":
        text = "".join(line.replace(ids[0], ids[1]) if ids[0] in line else line.replace(ids[1], ids[0]) for line in lines)
    elif damage == "a field missing":
        text = "".join(line.replace('"implementation":{', '"implement":{') for line in lines)
    else:
        text = "".join(line.replace('"record":{', '"record":5,"recorded":{') for line in lines)
    part.write_text(text, encoding="utf-8")
    assert list(load(campaign)) == expected


def table_path(folder: Path) -> Path:
    return folder / "index" / "table.json"


def read_table(folder: Path) -> dict[str, Any]:
    table: dict[str, Any] = json.loads(table_path(folder).read_text(encoding="utf-8"))
    return table


def write_table(folder: Path, table: dict[str, Any]) -> None:
    table_path(folder).write_text(json.dumps(table, separators=(",", ":")), encoding="utf-8")


def forge_outcome(table: dict[str, Any], slot: int, outcome: str) -> None:
    """Makes row ``slot`` of the table say ``outcome``, a text the table may not have had."""
    if outcome not in table["strings"]:
        table["strings"].append(outcome)
    table["columns"]["outcome"][slot] = table["strings"].index(outcome)


def export(folder: Path, *, check_records: bool = False) -> None:
    """``campaign export``; with ``check_records``, of records changed by hand since their entries were written."""
    checked = ["--check-records"] if check_records else []
    completed = subprocess.run(
        [metewand_binary(), "campaign", "export", *checked, str(folder)], capture_output=True, text=True, check=False
    )
    assert completed.returncode == 0, completed.stderr


@pytest.mark.parametrize("parsed_at_most", [results._PARSED_AT_MOST, 0])
def test_rows_read_through_the_table_are_the_rows_read_from_the_records(
    campaign: Path, parsed_at_most: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With 0, rows the table cannot give are read through the index rather than record by record.
    monkeypatch.setattr(results, "_PARSED_AT_MOST", parsed_at_most)
    table = read_table(campaign)
    plan = (campaign / "campaign.json").read_bytes()
    assert table["plan"] == {"sha256": hashlib.sha256(plan).hexdigest(), "size": len(plan)}
    assert table["columns"]["attempt_id"] == [entry["id"] for entry in plan_of(campaign)]
    through_table = list(load(campaign))
    table_path(campaign).unlink()
    through_index = list(load(campaign))
    shutil.rmtree(campaign / "index")
    assert through_table == through_index == list(load(campaign))
    # The same holds of rows the table has no record for, and of rows whose records changed since.
    damage_remove_record(campaign, plan_of(campaign)[0]["id"])
    export(campaign)
    assert read_table(campaign)["columns"]["record_size"][0] is None
    damage_break_schema(campaign, plan_of(campaign)[1]["id"])
    through_table = list(load(campaign, check_records=True))
    assert [row.state for row in through_table] == ["unfinished", "invalid"]
    table_path(campaign).unlink()
    assert list(load(campaign)) == through_table


def test_a_table_row_is_used_only_for_the_very_bytes_it_names(campaign: Path) -> None:
    expected = list(load(campaign))
    first = expected[0].attempt_id
    # A row that says another outcome for the record's very bytes is used as it is: the table is read ...
    table = read_table(campaign)
    forge_outcome(table, 0, "cancelled")
    write_table(campaign, table)
    assert load(campaign)[0].outcome == "cancelled"
    assert list(load(campaign))[1:] == expected[1:]
    # ... only while campaign.json is the plan the table was made from ...
    table["plan"]["sha256"] = "0" * 64
    write_table(campaign, table)
    assert list(load(campaign)) == expected
    table["plan"]["sha256"] = hashlib.sha256((campaign / "campaign.json").read_bytes()).hexdigest()
    write_table(campaign, table)
    assert load(campaign)[0].outcome == "cancelled"
    # ... and, when the records are checked, the row only while its record is the bytes it names.
    path = record_path(campaign, first)
    path.write_bytes(path.read_bytes().replace(b'"outcome":"reached"', b'"outcome":"invalid"'))
    assert load(campaign)[0].outcome == "cancelled"
    assert load(campaign, check_records=True)[0].outcome == "invalid"


def test_a_record_replaced_by_hand_is_found_only_when_the_records_are_checked(campaign: Path) -> None:
    expected = list(load(campaign))
    # Another attempt's record, refiled under the first id: a record the executor never summarized.
    first, second = plan_of(campaign)[0]["id"], plan_of(campaign)[1]["id"]
    record = record_of(campaign, second)
    record["campaign"]["attempt_id"] = first
    record_path(campaign, first).write_text(json.dumps(record), encoding="utf-8")
    assert expected[0].outcome != expected[1].outcome
    # By default the table's row is trusted as the record it summarized: the record is not read.
    assert list(load(campaign)) == expected
    # Checking the records finds it changed, and reads it.
    rows = load(campaign, check_records=True)
    assert (rows[0].outcome, rows[0].verdict) == (expected[1].outcome, expected[1].verdict)
    assert rows[0].started_at == expected[1].started_at and rows[0].implementation == expected[0].implementation
    assert rows[0].execute_seconds == phase_ns(record, "execute") / 1e9
    assert rows[1] == expected[1]
    # So does a reading without the table, which checks every index entry against its record.
    table_path(campaign).unlink()
    assert list(load(campaign)) == list(rows)


def test_a_stamped_table_row_is_used_without_hashing_only_while_its_file_keeps_the_stamp(campaign: Path) -> None:
    expected = list(load(campaign))
    # Once the copy's records have settled, the next export stamps the table's rows as the index's entries.
    time.sleep(5.5)
    export(campaign, check_records=True)
    table = read_table(campaign)
    ids = table["columns"]["attempt_id"]
    assert table["columns"]["record_stamp"] == [stamp_of(record_path(campaign, attempt_id)) for attempt_id in ids]
    assert list(load(campaign, check_records=True)) == expected
    # A row that says another outcome and a digest its record never had, keeping the stamp, is used as it is ...
    forge_outcome(table, 0, "cancelled")
    table["columns"]["record_sha256"][0] = "0" * 64
    write_table(campaign, table)
    assert load(campaign, check_records=True)[0].outcome == "cancelled"
    # ... until its file changes in any way: then it is hashed, the row refused and the record read.
    os.chmod(record_path(campaign, ids[0]), 0o600)
    assert list(load(campaign, check_records=True)) == expected
    # A record gone since is gone from the rows too.
    shutil.rmtree(campaign / "attempts" / ids[1])
    assert [row.state for row in load(campaign, check_records=True)] == ["recorded", "missing"]


def test_a_table_stamped_with_its_plan_is_used_without_hashing_the_plan_only_while_the_file_keeps_the_stamp(
    campaign: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = list(load(campaign))
    plan_path = campaign / "campaign.json"
    # Once campaign.json has settled, an export binds the table to its stamp too.
    time.sleep(5.5)
    export(campaign, check_records=True)
    table = read_table(campaign)
    assert table["plan"]["stamp"] == stamp_of(plan_path)
    assert table["plan"]["size"] == plan_path.stat().st_size
    hashed: list[str] = []
    digest = results._plan_digest
    monkeypatch.setattr(results, "_plan_digest", lambda root: hashed.append(root) or digest(root))
    assert list(load(campaign)) == expected and hashed == []
    # A table naming other bytes but the file's stamp is used as it is, campaign.json not read ...
    forge_outcome(table, 0, "cancelled")
    table["plan"]["sha256"] = "0" * 64
    write_table(campaign, table)
    assert load(campaign)[0].outcome == "cancelled" and hashed == []
    # ... until the file changes in any way: then it is hashed, and a table naming other bytes is not used.
    os.chmod(plan_path, 0o600)
    assert list(load(campaign)) == expected and len(hashed) == 1
    # The same bytes under another stamp: hashed, and used.
    table["plan"]["sha256"] = hashlib.sha256(plan_path.read_bytes()).hexdigest()
    write_table(campaign, table)
    assert load(campaign)[0].outcome == "cancelled" and len(hashed) == 2
    # A stamp that is not text, or a member the schema does not have: not used.
    for plan in ({**table["plan"], "stamp": 7}, {**table["plan"], "other": 1}):
        write_table(campaign, {**table, "plan": plan})
        assert list(load(campaign)) == expected


@pytest.mark.parametrize("window", [7, 100, _table.WINDOW])
def test_a_table_is_read_a_window_at_a_time_whatever_its_texts_hold(
    campaign: Path, window: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = list(load(campaign))
    table = read_table(campaign)
    # Texts that hold the array's own punctuation, escapes and characters of several bytes, in a table written as
    # the executor writes it (UTF-8, not escaped).
    messages = ['a, b] and "c" \\ d', "é, ∑]\u00e9"]
    table["columns"]["failure_message"] = messages
    table["strings"].append("x], [y")
    text = json.dumps(table, separators=(",", ":"), ensure_ascii=False)
    table_path(campaign).write_text(text, encoding="utf-8")
    monkeypatch.setattr(_table, "WINDOW", window)
    rows = load(campaign)
    assert [row.failure_message for row in rows] == messages
    assert [row._replace(failure_message=None) for row in rows] == expected


def test_codes_looked_up_are_the_codes_parsed(campaign: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    damage_remove_record(campaign, plan_of(campaign)[0]["id"])
    export(campaign, check_records=True)
    # A row with no record has a null for every code but its inputs'; the other row says what only the table says.
    table = read_table(campaign)
    assert table["columns"]["outcome"][0] is None
    forge_outcome(table, 1, "cancelled")
    write_table(campaign, table)
    looked_up = list(load(campaign))
    assert [row.state for row in looked_up] == ["unfinished", "recorded"] and looked_up[1].outcome == "cancelled"
    monkeypatch.setattr(_table, "_single_digits", lambda text: None)
    monkeypatch.setattr(_table, "_all_null", lambda text: 0)
    assert list(load(campaign)) == looked_up
    monkeypatch.setattr(_table._Building, "_code_text", lambda self, name, text: False)
    assert list(load(campaign)) == looked_up


def test_one_digit_codes_and_nulls_are_read_without_an_object_each_and_nothing_else_is() -> None:
    assert _table._single_digits("0,3,9,3") == (array("I", [0, 3, 9, 3]), 9)
    assert _table._single_digits("7") == (array("I", [7]), 7)
    for text in ["", "0,", ",0", "10,1", "0,,1", "0, 1", "0,\t", "\t,1", "null,1", "\u0663,1", "0;1", "-1,1", "1,2,a"]:
        assert _table._single_digits(text) is None, text
    assert [_table._all_null(text) for text in ["null", "null,null,null"]] == [1, 3]
    for text in ["", "null,", ",null", "null,,null", "null, null", "nullnull,", ",nullnull", "null,0", "Null"]:
        assert _table._all_null(text) == 0, text


def break_table(table: dict[str, Any], damage: str) -> Any:
    columns = table["columns"]
    if damage == "another format":
        table["format"] = 2
    elif damage == "a column missing":
        del columns["timed_ns"]
    elif damage == "a column too short":
        columns["verdict"].pop()
    elif damage == "a code naming no string":
        columns["outcome"][0] = len(table["strings"])
    elif damage == "a negative code":
        columns["outcome"][0] = -1
    elif damage == "a code that is a boolean":
        columns["outcome"][0] = True
    elif damage == "a text where a number belongs":
        columns["record_size"][0] = "4120"
    elif damage == "an id that leaves the folder":
        columns["attempt_id"][0] = "../" + columns["attempt_id"][0]
    elif damage == "an id in capitals":
        columns["attempt_id"][0] = columns["attempt_id"][0].upper()
    elif damage == "an id of two prefixes":
        columns["attempt_id"][0] = "mw1-attempt-" + columns["attempt_id"][0][:64]
    elif damage == "an id one digit short":
        columns["attempt_id"][0] = columns["attempt_id"][0][:-1]
    elif damage == "a metric that is text":
        next(iter(table["metrics"].values()))[0] = "0.5"
    elif damage == "a metric that is not a number":
        next(iter(table["metrics"].values()))[0] = float("nan")
    elif damage == "not an object":
        return [table]
    return table


@pytest.mark.parametrize(
    "damage",
    [
        "another format",
        "a column missing",
        "a column too short",
        "a code naming no string",
        "a negative code",
        "a code that is a boolean",
        "a text where a number belongs",
        "an id that leaves the folder",
        "an id in capitals",
        "an id of two prefixes",
        "an id one digit short",
        "a metric that is text",
        "a metric that is not a number",
        "not an object",
        "cut short",
        "more after it",
        "a column twice",
        "a link",
    ],
)
def test_a_broken_table_is_not_read(campaign: Path, damage: str) -> None:
    expected = list(load(campaign))
    table = read_table(campaign)
    # Were the broken table read, its first row would say so.
    forge_outcome(table, 0, "cancelled")
    if damage == "cut short":
        table_path(campaign).write_text(json.dumps(table)[:-10], encoding="utf-8")
    elif damage == "more after it":
        table_path(campaign).write_text(json.dumps(table) + " {}", encoding="utf-8")
    elif damage == "a column twice":
        outcome = json.dumps(table["columns"]["outcome"])
        text = json.dumps(table).replace('"outcome": ', f'"outcome": {outcome}, "outcome": ', 1)
        table_path(campaign).write_text(text, encoding="utf-8")
    elif damage == "a link":
        write_table(campaign, table)
        table_path(campaign).rename(campaign / "table.json")
        table_path(campaign).symlink_to(campaign / "table.json")
    else:
        table_path(campaign).write_text(json.dumps(break_table(table, damage)), encoding="utf-8")
    assert list(load(campaign)) == expected


def damage_remove_folder(campaign: Path, attempt_id: str) -> None:
    shutil.rmtree(campaign / "attempts" / attempt_id)


def damage_remove_record(campaign: Path, attempt_id: str) -> None:
    record_path(campaign, attempt_id).unlink()


def damage_truncate(campaign: Path, attempt_id: str) -> None:
    path = record_path(campaign, attempt_id)
    path.write_bytes(path.read_bytes()[:100])


def damage_break_schema(campaign: Path, attempt_id: str) -> None:
    record = record_of(campaign, attempt_id)
    record["outcome"] = "splendid"
    record_path(campaign, attempt_id).write_text(json.dumps(record), encoding="utf-8")


def damage_name_another_attempt(campaign: Path, attempt_id: str) -> None:
    other = next(entry["id"] for entry in plan_of(campaign) if entry["id"] != attempt_id)
    shutil.copyfile(record_path(campaign, other), record_path(campaign, attempt_id))


def damage_drop_campaign(campaign: Path, attempt_id: str) -> None:
    record = record_of(campaign, attempt_id)
    record["campaign"] = None
    record_path(campaign, attempt_id).write_text(json.dumps(record), encoding="utf-8")


def damage_link(campaign: Path, attempt_id: str) -> None:
    path = record_path(campaign, attempt_id)
    path.rename(path.with_name("elsewhere.json"))
    path.symlink_to("elsewhere.json")


def damage_link_folder(campaign: Path, attempt_id: str) -> None:
    folder = campaign / "attempts" / attempt_id
    folder.rename(campaign / "elsewhere")
    folder.symlink_to(campaign / "elsewhere", target_is_directory=True)


def damage_folder_in_place(campaign: Path, attempt_id: str) -> None:
    path = record_path(campaign, attempt_id)
    path.unlink()
    path.mkdir()


@pytest.mark.parametrize(
    ("damage", "state", "reason"),
    [
        (damage_remove_folder, "missing", None),
        (damage_remove_record, "unfinished", None),
        (damage_truncate, "invalid", "fails the attempt-record schema"),
        (damage_break_schema, "invalid", "/outcome"),
        (damage_name_another_attempt, "invalid", "names attempt"),
        (damage_drop_campaign, "invalid", "no campaign field"),
        (damage_link, "invalid", "symbolic link"),
        (damage_link_folder, "invalid", "folder is a symbolic link"),
        (damage_folder_in_place, "invalid", "folder"),
    ],
)
def test_an_unusable_record_still_has_its_row(campaign: Path, damage: Any, state: str, reason: str | None) -> None:
    plan = plan_of(campaign)
    damaged, intact = plan[0]["id"], plan[1]["id"]
    damage(campaign, damaged)
    rows = load(campaign, check_records=True)
    assert [row.attempt_id for row in rows] == [damaged, intact]
    row = rows[0]
    assert row.state == state
    assert (row.problem, row.implementation, row.dataset_key) == (
        plan[0]["problem"], plan[0]["implementation"], plan[0]["dataset_key"]
    )
    from_record = [
        name for name in AttemptRow._fields
        if name not in {"attempt_id", "problem", "dataset", "dataset_seed", "dataset_key", "implementation",
                             "implementation_seed", "repetition", "state", "metrics", "invalid_reason", "grid"}
    ]
    assert {name: getattr(row, name) for name in from_record} == dict.fromkeys(from_record)
    assert dict(row.metrics) == {}
    if reason is None:
        assert row.invalid_reason is None
    else:
        assert row.invalid_reason is not None and reason in row.invalid_reason
    # The other attempt is read as usual.
    assert rows[1].state == "recorded" and rows[1].outcome == record_of(campaign, intact)["outcome"]
    # Without the table, the records are checked by default.
    table_path(campaign).unlink()
    assert list(load(campaign)) == list(rows)


def write_plan_file(folder: Path, content: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "campaign.json").write_text(content, encoding="utf-8")
    return folder


def refused(folder: Path) -> str:
    with pytest.raises(ResultsError) as caught:
        load(folder)
    message = str(caught.value)
    assert str(folder) in message
    assert not message[:1].isupper() and "\n" not in message
    assert "campaign" in message
    assert caught.value.path.startswith(str(folder))
    return message


def test_a_folder_that_is_not_a_campaign_folder_is_refused(tmp_path: Path) -> None:
    assert issubclass(ResultsError, Exception)
    assert "has no campaign.json" in refused(tmp_path)
    assert "does not exist" in refused(tmp_path / "nowhere")
    (tmp_path / "file").write_text("", encoding="utf-8")
    assert "not a folder" in refused(tmp_path / "file")
    assert "not a campaign file" in refused(write_plan_file(tmp_path / "garbage", "{not json"))
    assert "not a campaign file" in refused(write_plan_file(tmp_path / "other", '{"format": 1, "name": "x"}'))
    assert "format 2" in refused(write_plan_file(tmp_path / "newer", '{"format": 2}'))
    (tmp_path / "folder" / "campaign.json").mkdir(parents=True)
    assert "cannot read" in refused(tmp_path / "folder")


def test_a_plan_with_no_attempt_run_yet(campaign: Path) -> None:
    shutil.rmtree(campaign / "attempts")
    # Checked against the records, the table's rows are all read from the folder ...
    assert [row.state for row in load(campaign, check_records=True)] == ["missing", "missing"]
    # ... as they are with no table, as before any run wrote one.
    shutil.rmtree(campaign / "index")
    assert [row.state for row in load(campaign)] == ["missing", "missing"]


def test_to_pandas(campaign_run: Path) -> None:
    pandas = pytest.importorskip("pandas")
    rows = load(campaign_run)
    frame = rows.to_pandas()
    assert isinstance(frame, pandas.DataFrame)
    # Every field but the two mappings, then a column per metric (and per grid key: this campaign has no grid).
    scalars = [name for name in AttemptRow._fields if name not in ("metrics", "grid")]
    metrics = ["metric.objective", "metric.optimum", "metric.relative_gap", "metric.residual"]
    assert list(frame.columns) == scalars + metrics
    assert list(frame["attempt_id"]) == [row.attempt_id for row in rows]
    assert list(frame["execute_seconds"]) == [row.execute_seconds for row in rows]
    assert list(frame["metric.relative_gap"]) == [row.metrics["relative_gap"] for row in rows]
    assert list(frame["verdict"]) == [row.verdict for row in rows]


def test_to_pandas_reads_the_tables_columns_as_the_rows_have_them(campaign: Path) -> None:
    pandas = pytest.importorskip("pandas")
    # One row read from its folder instead of the table (its record gone since), one from the table, a metric only
    # the table's row has.
    damage_remove_folder(campaign, plan_of(campaign)[0]["id"])
    through_table = load(campaign, check_records=True)
    assert [row.state for row in through_table] == ["missing", "recorded"]
    table_path(campaign).unlink()
    through_records = load(campaign)
    assert list(through_table) == list(through_records)
    for part in (slice(None), slice(1, None), slice(None, 1), slice(None, None, -1)):
        frame, expected = through_table[part].to_pandas(), through_records[part].to_pandas()
        pandas.testing.assert_frame_equal(frame, expected)
    assert "metric.residual" not in through_table[:1].to_pandas().columns


def test_to_pandas_without_pandas(campaign_run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # None in sys.modules makes any import of the name fail, whether pandas is installed or not.
    monkeypatch.setitem(sys.modules, "pandas", None)
    rows = load(campaign_run)
    with pytest.raises(ImportError, match=r"pip install metewand-python\[pandas\]"):
        rows.to_pandas()


def test_loading_does_not_import_pandas(campaign_run: Path) -> None:
    code = (
        f"import sys; from metewand import results; results.load({str(campaign_run)!r}); "
        "print('pandas' in sys.modules)"
    )
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert completed.stdout.strip() == "False"
    assert results.STATES == ("recorded", "missing", "unfinished", "invalid")


def test_rows_have_a_typed_column_per_grid_key(tmp_path: Path) -> None:
    """The example's ``sweep`` is a grid over rows: a row of one of its points has ``dataset.rows``, a number,
    whether it is read through the table or from the records; a row of a plain dataset has no grid column."""
    completed = subprocess.run(
        [
            metewand_binary(), "campaign", "run", str(EXAMPLE),
            "--problem", "ridge", "--dataset", "sweep[rows=800]", "--dataset", "small",
            "--implementation", "cholesky", "--dataset-seeds", "0", "--repetitions", "1",
            "--out", str(tmp_path / "campaign"), "--state-dir", str(tmp_path / "state"), "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    folder = tmp_path / "campaign"
    try:
        through_table = load(folder)
        table_path(folder).unlink()
        from_records = load(folder)
        assert list(through_table) == list(from_records)
        for rows in (through_table, from_records):
            grids = {row.dataset: dict(row.grid) for row in rows}
            assert grids == {"sweep[rows=800]": {"dataset.rows": 800}, "small": {}}
            assert type(grids["sweep[rows=800]"]["dataset.rows"]) is int
        with open(folder / "results.csv", newline="", encoding="utf-8") as file:
            exported = {line["dataset"]: line["dataset.rows"] for line in csv.DictReader(file)}
        assert exported == {"sweep[rows=800]": "800", "small": ""}
    finally:
        make_writable(tmp_path)


def test_a_points_values_are_read_from_its_name() -> None:
    from metewand._grid import grid_columns, point_values

    assert point_values('solver[name="a,b]",tol=1e-06]') == {"name": "a,b]", "tol": 1e-06}
    assert point_values("small") == {}
    assert point_values("broken[rows=]") == {}
    assert dict(grid_columns("ridge[lambda=0.5]", "sweep[rows=200]", "cg[iterations=10]")) == {
        "dataset.rows": 200, "implementation.iterations": 10, "problem.lambda": 0.5,
    }
