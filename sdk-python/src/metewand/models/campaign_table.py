# Generated from schemas/campaign-table.schema.json by codegen; do not edit. Regenerate with: cargo xtask codegen
"""Metewand campaign table.

index/table.json in a campaign folder: every planned attempt's row as metewand.results.load gives
it, under the campaign's name as campaign.json has it, one column per field, written by the
executor whenever it writes results.csv and results.jsonl (at the end of a run, by campaign
export). It is bound to the plan it was made from (plan: the size and SHA-256 of campaign.json's
bytes), and each row to the record it was read from (the record's size, SHA-256 and, once the
record had settled, its file's stamp, as its index entry names them). A reader uses the table
only while campaign.json is exactly those bytes, and a row only while its record is exactly its
bytes; every other row is read from the folder as if there were no table. Texts that repeat from
row to row are written once in strings, and their columns hold codes: indexes into strings (a
column's description says \"a code\"). Columns have one item per planned attempt, in the plan's
order. metrics holds the records' numeric metrics: by name, for every name any record has, a
column of numbers with null where a row's record has no such metric.

Each class checks its constructor's arguments, decodes parsed JSON strictly with from_dict
(raising ModelError with the JSON Pointer of the first value the schema refuses) and encodes with
to_dict. DEFINITIONS maps the schema's definition names to the classes.
"""

from __future__ import annotations

from metewand._strict import (
    ModelError,
    check_array,
    check_json_object,
    check_model,
    check_nullable,
    check_object,
    check_string,
)
from metewand.models.campaign_index import _stamp
from metewand.models.common import _attempt_id, _format, _name, _safe_uint, _sha256, _timestamp

# Annotations are strings (see the __future__ import), so typing is needed only by type checkers.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

__all__ = ["CampaignTable", "Columns", "DEFINITIONS", "ModelError", "PlanBytes"]


class CampaignTable:
    """Metewand campaign table.

    index/table.json in a campaign folder: every planned attempt's row as metewand.results.load
    gives it, under the campaign's name as campaign.json has it, one column per field, written by
    the executor whenever it writes results.csv and results.jsonl (at the end of a run, by
    campaign export). It is bound to the plan it was made from (plan: the size and SHA-256 of
    campaign.json's bytes), and each row to the record it was read from (the record's size,
    SHA-256 and, once the record had settled, its file's stamp, as its index entry names them). A
    reader uses the table only while campaign.json is exactly those bytes, and a row only while
    its record is exactly its bytes; every other row is read from the folder as if there were no
    table. Texts that repeat from row to row are written once in strings, and their columns hold
    codes: indexes into strings (a column's description says \"a code\"). Columns have one item
    per planned attempt, in the plan's order. metrics holds the records' numeric metrics: by
    name, for every name any record has, a column of numbers with null where a row's record has
    no such metric.
    """

    __slots__ = ("columns", "format", "metrics", "name", "plan", "repository", "strings")

    columns: Columns
    """One column per field of a row."""

    format: Literal[1]
    """A document's format: 1, the only one this version reads."""

    metrics: dict[str, Any]
    """A JSON object whose members this schema does not constrain."""

    name: str
    """A name the repository's manifest gives: a dataset's, an implementation's, a problem's or a
    campaign's.
    """

    plan: PlanBytes
    """The bytes of campaign.json the table was made from: their size and SHA-256, and the file's
    stamp where it had settled when the table was made from it (written as an index entry's stamp
    is). While the file still has that stamp and size, a reader uses the table without hashing
    campaign.json; otherwise it hashes the file and compares size and sha256.
    """

    repository: str
    """The benchmark repository, as campaign.json has it."""

    strings: list[str]
    """Every text a code names, once."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("columns", "format", "metrics", "name", "plan", "repository", "strings")

    def __init__(
        self,
        *,
        columns: Columns,
        format: Literal[1] = 1,
        metrics: dict[str, Any],
        name: str,
        plan: PlanBytes,
        repository: str,
        strings: list[str],
    ) -> None:
        self.columns = check_model(columns, "/columns", Columns)
        self.format = _format(format, "/format")
        self.metrics = check_json_object(metrics, "/metrics")
        self.name = _name(name, "/name")
        self.plan = check_model(plan, "/plan", PlanBytes)
        self.repository = check_string(repository, "/repository")
        self.strings = check_array(strings, "/strings", check_string)

    @classmethod
    def from_dict(cls, data: object) -> CampaignTable:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> CampaignTable:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.columns = Columns._decode(fields["columns"], path + "/columns")
        model.format = _format(fields["format"], path + "/format")
        model.metrics = check_json_object(fields["metrics"], path + "/metrics")
        model.name = _name(fields["name"], path + "/name")
        model.plan = PlanBytes._decode(fields["plan"], path + "/plan")
        model.repository = check_string(fields["repository"], path + "/repository")
        model.strings = check_array(fields["strings"], path + "/strings", check_string)
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {
            "columns": self.columns.to_dict(),
            "format": self.format,
            "metrics": dict(self.metrics),
            "name": self.name,
            "plan": self.plan.to_dict(),
            "repository": self.repository,
            "strings": list(self.strings),
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CampaignTable):
            return NotImplemented
        return (
            self.columns == other.columns
            and self.format == other.format
            and self.metrics == other.metrics
            and self.name == other.name
            and self.plan == other.plan
            and self.repository == other.repository
            and self.strings == other.strings
        )

    def __repr__(self) -> str:
        return (
            f"CampaignTable(columns={self.columns!r}, format={self.format!r}, "
            f"metrics={self.metrics!r}, name={self.name!r}, plan={self.plan!r}, "
            f"repository={self.repository!r}, strings={self.strings!r})"
        )


class Columns:
    """One column per field of a row."""

    __slots__ = (
        "attempt_id",
        "concurrency",
        "cpu_ns",
        "dataset",
        "dataset_key",
        "dataset_seed",
        "evaluate_ns",
        "execute_ns",
        "failure_kind",
        "failure_message",
        "failure_phase",
        "failure_role",
        "implementation",
        "implementation_seed",
        "implementation_time_ns",
        "outcome",
        "peak_memory_bytes",
        "prepare_ns",
        "problem",
        "program",
        "program_sha256",
        "record_sha256",
        "record_size",
        "record_stamp",
        "repetition",
        "session",
        "started_at",
        "timed",
        "timed_ns",
        "verdict",
        "worker_id",
    )

    attempt_id: list[str]
    """Each planned attempt's id, in the plan's order."""

    concurrency: list[int | None]
    """How many attempts the campaign ran at once when this one ran."""

    cpu_ns: list[int | None]
    """The CPU time (user and system) of the implementation's session, when it ended cleanly."""

    dataset: list[int]
    """The dataset's name (a code)."""

    dataset_key: list[int]
    """The dataset's key (a code)."""

    dataset_seed: list[int]
    """The dataset seed."""

    evaluate_ns: list[int | None]
    """The same of evaluate requests."""

    execute_ns: list[int | None]
    """The same of execute requests."""

    failure_kind: list[int | None]
    """The failure's kind (a code), null without a failure."""

    failure_message: list[str | None]
    """The failure's message, null without a failure."""

    failure_phase: list[int | None]
    """The failure's phase (a code), null without one."""

    failure_role: list[int | None]
    """The failure's role (a code), null without one."""

    implementation: list[int]
    """The implementation's name (a code)."""

    implementation_seed: list[int]
    """The implementation seed."""

    implementation_time_ns: list[int | None]
    """What the implementation claimed of its own time."""

    outcome: list[int | None]
    """The record's outcome (a code)."""

    peak_memory_bytes: list[int | None]
    """The implementation's peak resident memory, when its session ended cleanly."""

    prepare_ns: list[int | None]
    """The executor's measure of every prepare request, added up; null when none was sent."""

    problem: list[int]
    """The problem's name (a code)."""

    program: list[int | None]
    """The program the implementation ran (a code): where its command found it on PATH, or the file
    itself.
    """

    program_sha256: list[int | None]
    """That program's SHA-256 (a code)."""

    record_sha256: list[str | None]
    """That record's SHA-256; null where record_size is."""

    record_size: list[int | None]
    """The size of the record the row was read from; null where the attempt had no record with an
    index entry (no folder, no record, or an invalid one), whose row the reader reads from the
    folder itself.
    """

    record_stamp: list[str | None]
    """That record's file's stamp, as its index entry names it; null where the entry has none (the
    record had not settled), so that the reader hashes the record.
    """

    repetition: list[int]
    """The repetition, from 1."""

    session: list[int | None]
    """How the implementation's session served the attempt (a code: fresh or reuse), null where the
    record does not say.
    """

    started_at: list[str | None]
    """When the attempt started."""

    timed: list[int | None]
    """What the problem ranks implementations by (a code: execute or prepare+execute)."""

    timed_ns: list[int | None]
    """The implementation's time by timed (its own requests only), only for an attempt with a
    verdict that neither failed nor was cancelled.
    """

    verdict: list[int | None]
    """The evaluator's verdict (a code), null without one."""

    worker_id: list[int | None]
    """The implementation's resolved worker identity (a code)."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = (
        "attempt_id",
        "concurrency",
        "cpu_ns",
        "dataset",
        "dataset_key",
        "dataset_seed",
        "evaluate_ns",
        "execute_ns",
        "failure_kind",
        "failure_message",
        "failure_phase",
        "failure_role",
        "implementation",
        "implementation_seed",
        "implementation_time_ns",
        "outcome",
        "peak_memory_bytes",
        "prepare_ns",
        "problem",
        "program",
        "program_sha256",
        "record_sha256",
        "record_size",
        "record_stamp",
        "repetition",
        "session",
        "started_at",
        "timed",
        "timed_ns",
        "verdict",
        "worker_id",
    )

    def __init__(
        self,
        *,
        attempt_id: list[str],
        concurrency: list[int | None],
        cpu_ns: list[int | None],
        dataset: list[int],
        dataset_key: list[int],
        dataset_seed: list[int],
        evaluate_ns: list[int | None],
        execute_ns: list[int | None],
        failure_kind: list[int | None],
        failure_message: list[str | None],
        failure_phase: list[int | None],
        failure_role: list[int | None],
        implementation: list[int],
        implementation_seed: list[int],
        implementation_time_ns: list[int | None],
        outcome: list[int | None],
        peak_memory_bytes: list[int | None],
        prepare_ns: list[int | None],
        problem: list[int],
        program: list[int | None],
        program_sha256: list[int | None],
        record_sha256: list[str | None],
        record_size: list[int | None],
        record_stamp: list[str | None],
        repetition: list[int],
        session: list[int | None],
        started_at: list[str | None],
        timed: list[int | None],
        timed_ns: list[int | None],
        verdict: list[int | None],
        worker_id: list[int | None],
    ) -> None:
        self.attempt_id = check_array(attempt_id, "/attempt_id", _attempt_id)
        self.concurrency = check_array(concurrency, "/concurrency", check_nullable, _safe_uint)
        self.cpu_ns = check_array(cpu_ns, "/cpu_ns", check_nullable, _safe_uint)
        self.dataset = check_array(dataset, "/dataset", _safe_uint)
        self.dataset_key = check_array(dataset_key, "/dataset_key", _safe_uint)
        self.dataset_seed = check_array(dataset_seed, "/dataset_seed", _safe_uint)
        self.evaluate_ns = check_array(evaluate_ns, "/evaluate_ns", check_nullable, _safe_uint)
        self.execute_ns = check_array(execute_ns, "/execute_ns", check_nullable, _safe_uint)
        self.failure_kind = check_array(failure_kind, "/failure_kind", check_nullable, _safe_uint)
        self.failure_message = check_array(
            failure_message, "/failure_message", check_nullable, check_string
        )
        self.failure_phase = check_array(
            failure_phase, "/failure_phase", check_nullable, _safe_uint
        )
        self.failure_role = check_array(failure_role, "/failure_role", check_nullable, _safe_uint)
        self.implementation = check_array(implementation, "/implementation", _safe_uint)
        self.implementation_seed = check_array(
            implementation_seed, "/implementation_seed", _safe_uint
        )
        self.implementation_time_ns = check_array(
            implementation_time_ns, "/implementation_time_ns", check_nullable, _safe_uint
        )
        self.outcome = check_array(outcome, "/outcome", check_nullable, _safe_uint)
        self.peak_memory_bytes = check_array(
            peak_memory_bytes, "/peak_memory_bytes", check_nullable, _safe_uint
        )
        self.prepare_ns = check_array(prepare_ns, "/prepare_ns", check_nullable, _safe_uint)
        self.problem = check_array(problem, "/problem", _safe_uint)
        self.program = check_array(program, "/program", check_nullable, _safe_uint)
        self.program_sha256 = check_array(
            program_sha256, "/program_sha256", check_nullable, _safe_uint
        )
        self.record_sha256 = check_array(record_sha256, "/record_sha256", check_nullable, _sha256)
        self.record_size = check_array(record_size, "/record_size", check_nullable, _safe_uint)
        self.record_stamp = check_array(record_stamp, "/record_stamp", check_nullable, _stamp)
        self.repetition = check_array(repetition, "/repetition", _safe_uint)
        self.session = check_array(session, "/session", check_nullable, _safe_uint)
        self.started_at = check_array(started_at, "/started_at", check_nullable, _timestamp)
        self.timed = check_array(timed, "/timed", check_nullable, _safe_uint)
        self.timed_ns = check_array(timed_ns, "/timed_ns", check_nullable, _safe_uint)
        self.verdict = check_array(verdict, "/verdict", check_nullable, _safe_uint)
        self.worker_id = check_array(worker_id, "/worker_id", check_nullable, _safe_uint)

    @classmethod
    def from_dict(cls, data: object) -> Columns:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Columns:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.attempt_id = check_array(fields["attempt_id"], path + "/attempt_id", _attempt_id)
        model.concurrency = check_array(
            fields["concurrency"], path + "/concurrency", check_nullable, _safe_uint
        )
        model.cpu_ns = check_array(fields["cpu_ns"], path + "/cpu_ns", check_nullable, _safe_uint)
        model.dataset = check_array(fields["dataset"], path + "/dataset", _safe_uint)
        model.dataset_key = check_array(fields["dataset_key"], path + "/dataset_key", _safe_uint)
        model.dataset_seed = check_array(fields["dataset_seed"], path + "/dataset_seed", _safe_uint)
        model.evaluate_ns = check_array(
            fields["evaluate_ns"], path + "/evaluate_ns", check_nullable, _safe_uint
        )
        model.execute_ns = check_array(
            fields["execute_ns"], path + "/execute_ns", check_nullable, _safe_uint
        )
        model.failure_kind = check_array(
            fields["failure_kind"], path + "/failure_kind", check_nullable, _safe_uint
        )
        model.failure_message = check_array(
            fields["failure_message"], path + "/failure_message", check_nullable, check_string
        )
        model.failure_phase = check_array(
            fields["failure_phase"], path + "/failure_phase", check_nullable, _safe_uint
        )
        model.failure_role = check_array(
            fields["failure_role"], path + "/failure_role", check_nullable, _safe_uint
        )
        model.implementation = check_array(
            fields["implementation"], path + "/implementation", _safe_uint
        )
        model.implementation_seed = check_array(
            fields["implementation_seed"], path + "/implementation_seed", _safe_uint
        )
        model.implementation_time_ns = check_array(
            fields["implementation_time_ns"],
            path + "/implementation_time_ns",
            check_nullable,
            _safe_uint,
        )
        model.outcome = check_array(
            fields["outcome"], path + "/outcome", check_nullable, _safe_uint
        )
        model.peak_memory_bytes = check_array(
            fields["peak_memory_bytes"], path + "/peak_memory_bytes", check_nullable, _safe_uint
        )
        model.prepare_ns = check_array(
            fields["prepare_ns"], path + "/prepare_ns", check_nullable, _safe_uint
        )
        model.problem = check_array(fields["problem"], path + "/problem", _safe_uint)
        model.program = check_array(
            fields["program"], path + "/program", check_nullable, _safe_uint
        )
        model.program_sha256 = check_array(
            fields["program_sha256"], path + "/program_sha256", check_nullable, _safe_uint
        )
        model.record_sha256 = check_array(
            fields["record_sha256"], path + "/record_sha256", check_nullable, _sha256
        )
        model.record_size = check_array(
            fields["record_size"], path + "/record_size", check_nullable, _safe_uint
        )
        model.record_stamp = check_array(
            fields["record_stamp"], path + "/record_stamp", check_nullable, _stamp
        )
        model.repetition = check_array(fields["repetition"], path + "/repetition", _safe_uint)
        model.session = check_array(
            fields["session"], path + "/session", check_nullable, _safe_uint
        )
        model.started_at = check_array(
            fields["started_at"], path + "/started_at", check_nullable, _timestamp
        )
        model.timed = check_array(fields["timed"], path + "/timed", check_nullable, _safe_uint)
        model.timed_ns = check_array(
            fields["timed_ns"], path + "/timed_ns", check_nullable, _safe_uint
        )
        model.verdict = check_array(
            fields["verdict"], path + "/verdict", check_nullable, _safe_uint
        )
        model.worker_id = check_array(
            fields["worker_id"], path + "/worker_id", check_nullable, _safe_uint
        )
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {
            "attempt_id": list(self.attempt_id),
            "concurrency": [item for item in self.concurrency],
            "cpu_ns": [item for item in self.cpu_ns],
            "dataset": list(self.dataset),
            "dataset_key": list(self.dataset_key),
            "dataset_seed": list(self.dataset_seed),
            "evaluate_ns": [item for item in self.evaluate_ns],
            "execute_ns": [item for item in self.execute_ns],
            "failure_kind": [item for item in self.failure_kind],
            "failure_message": [item for item in self.failure_message],
            "failure_phase": [item for item in self.failure_phase],
            "failure_role": [item for item in self.failure_role],
            "implementation": list(self.implementation),
            "implementation_seed": list(self.implementation_seed),
            "implementation_time_ns": [item for item in self.implementation_time_ns],
            "outcome": [item for item in self.outcome],
            "peak_memory_bytes": [item for item in self.peak_memory_bytes],
            "prepare_ns": [item for item in self.prepare_ns],
            "problem": list(self.problem),
            "program": [item for item in self.program],
            "program_sha256": [item for item in self.program_sha256],
            "record_sha256": [item for item in self.record_sha256],
            "record_size": [item for item in self.record_size],
            "record_stamp": [item for item in self.record_stamp],
            "repetition": list(self.repetition),
            "session": [item for item in self.session],
            "started_at": [item for item in self.started_at],
            "timed": [item for item in self.timed],
            "timed_ns": [item for item in self.timed_ns],
            "verdict": [item for item in self.verdict],
            "worker_id": [item for item in self.worker_id],
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Columns):
            return NotImplemented
        return (
            self.attempt_id == other.attempt_id
            and self.concurrency == other.concurrency
            and self.cpu_ns == other.cpu_ns
            and self.dataset == other.dataset
            and self.dataset_key == other.dataset_key
            and self.dataset_seed == other.dataset_seed
            and self.evaluate_ns == other.evaluate_ns
            and self.execute_ns == other.execute_ns
            and self.failure_kind == other.failure_kind
            and self.failure_message == other.failure_message
            and self.failure_phase == other.failure_phase
            and self.failure_role == other.failure_role
            and self.implementation == other.implementation
            and self.implementation_seed == other.implementation_seed
            and self.implementation_time_ns == other.implementation_time_ns
            and self.outcome == other.outcome
            and self.peak_memory_bytes == other.peak_memory_bytes
            and self.prepare_ns == other.prepare_ns
            and self.problem == other.problem
            and self.program == other.program
            and self.program_sha256 == other.program_sha256
            and self.record_sha256 == other.record_sha256
            and self.record_size == other.record_size
            and self.record_stamp == other.record_stamp
            and self.repetition == other.repetition
            and self.session == other.session
            and self.started_at == other.started_at
            and self.timed == other.timed
            and self.timed_ns == other.timed_ns
            and self.verdict == other.verdict
            and self.worker_id == other.worker_id
        )

    def __repr__(self) -> str:
        return (
            f"Columns(attempt_id={self.attempt_id!r}, concurrency={self.concurrency!r}, "
            f"cpu_ns={self.cpu_ns!r}, dataset={self.dataset!r}, dataset_key={self.dataset_key!r}, "
            f"dataset_seed={self.dataset_seed!r}, evaluate_ns={self.evaluate_ns!r}, "
            f"execute_ns={self.execute_ns!r}, failure_kind={self.failure_kind!r}, "
            f"failure_message={self.failure_message!r}, failure_phase={self.failure_phase!r}, "
            f"failure_role={self.failure_role!r}, implementation={self.implementation!r}, "
            f"implementation_seed={self.implementation_seed!r}, "
            f"implementation_time_ns={self.implementation_time_ns!r}, outcome={self.outcome!r}, "
            f"peak_memory_bytes={self.peak_memory_bytes!r}, prepare_ns={self.prepare_ns!r}, "
            f"problem={self.problem!r}, program={self.program!r}, "
            f"program_sha256={self.program_sha256!r}, record_sha256={self.record_sha256!r}, "
            f"record_size={self.record_size!r}, record_stamp={self.record_stamp!r}, "
            f"repetition={self.repetition!r}, session={self.session!r}, "
            f"started_at={self.started_at!r}, timed={self.timed!r}, timed_ns={self.timed_ns!r}, "
            f"verdict={self.verdict!r}, worker_id={self.worker_id!r})"
        )


class PlanBytes:
    """The bytes of campaign.json the table was made from: their size and SHA-256, and the file's
    stamp where it had settled when the table was made from it (written as an index entry's stamp
    is). While the file still has that stamp and size, a reader uses the table without hashing
    campaign.json; otherwise it hashes the file and compares size and sha256.
    """

    __slots__ = ("sha256", "size", "stamp")

    sha256: str
    """A lowercase hexadecimal SHA-256 digest."""

    size: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    stamp: str | None
    """What the record's file was when its bytes were last hashed to `sha256`, as
    `<inode>:<ctime>:<mtime>` (times in seconds with nine decimals): written only when the file's
    ctime was at least 5 seconds older than that hashing. While the file's inode, ctime, mtime
    and size are still these, the entry is used without hashing the record again; any write,
    rename, link or change of mode since moves its ctime. An entry without a stamp is used only
    after hashing.
    """

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("sha256", "size")

    def __init__(self, *, sha256: str, size: int, stamp: str | None = None) -> None:
        self.sha256 = _sha256(sha256, "/sha256")
        self.size = _safe_uint(size, "/size")
        self.stamp = None if stamp is None else _stamp(stamp, "/stamp")

    @classmethod
    def from_dict(cls, data: object) -> PlanBytes:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> PlanBytes:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.sha256 = _sha256(fields["sha256"], path + "/sha256")
        model.size = _safe_uint(fields["size"], path + "/size")
        if "stamp" in fields:
            model.stamp = _stamp(fields["stamp"], path + "/stamp")
        else:
            model.stamp = None
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        data: dict[str, Any] = {"sha256": self.sha256, "size": self.size}
        if self.stamp is not None:
            data["stamp"] = self.stamp
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PlanBytes):
            return NotImplemented
        return self.sha256 == other.sha256 and self.size == other.size and self.stamp == other.stamp

    def __repr__(self) -> str:
        return f"PlanBytes(sha256={self.sha256!r}, size={self.size!r}, stamp={self.stamp!r})"


# The class of each definition in the schema, by its name under $defs (None for the root).
DEFINITIONS: dict[str | None, type] = {
    None: CampaignTable,
    "columns": Columns,
    "plan_bytes": PlanBytes,
}
