# Generated from schemas/campaign-index.schema.json by codegen; do not edit. Regenerate with: cargo xtask codegen
"""Metewand campaign index entry.

One line of an index part, index/<part>.jsonl in a campaign folder: what readers (status, plan,
report, compare, export, load) need of one attempt's record, with the size and SHA-256 of the
record's bytes. The executor appends an entry after writing the record; each writer (a local run,
a Slurm task, a reader that rebuilt entries) appends to a part of its own. An entry is used only
while attempts/<attempt_id>/attempt.json is exactly those bytes; otherwise the record itself is
read and a new entry written. concurrency is how many attempts the campaign ran at once when this
one ran; metrics are the record's metrics that are numbers.

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
    check_object,
    check_string,
)
from metewand.models.attempt_record import (
    Cpus,
    Origin,
    ProfilePoint,
    Session,
    WorkerProgram,
    _failure_kind,
    _outcome,
    _problem_timed,
)
from metewand.models.common import (
    _attempt_id,
    _format,
    _log_path,
    _message,
    _name,
    _phase,
    _problem_contract_id,
    _role,
    _safe_uint,
    _sha256,
    _timestamp,
    _verdict,
    _worker_id,
)

# Annotations are strings (see the __future__ import), so typing is needed only by type checkers.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal
    from metewand.models.attempt_record import FailureKind, Outcome, ProblemTimed
    from metewand.models.common import Phase, Role, Verdict

__all__ = [
    "CampaignIndex",
    "DEFINITIONS",
    "Dataset",
    "Failure",
    "Implementation",
    "IndexedSession",
    "ModelError",
    "PhaseTime",
    "Problem",
    "RecordBytes",
]


def _stamp(value: object, path: str) -> str:
    """What the record's file was when its bytes were last hashed to `sha256`, as
    `<inode>:<ctime>:<mtime>` (times in seconds with nine decimals): written only when the file's
    ctime was at least 5 seconds older than that hashing. While the file's inode, ctime, mtime
    and size are still these, the entry is used without hashing the record again; any write,
    rename, link or change of mode since moves its ctime. An entry without a stamp is used only
    after hashing.
    """
    return check_string(
        value, path, pattern=r"^[0-9]{1,20}:[0-9]{1,20}\.[0-9]{9}:[0-9]{1,20}\.[0-9]{9}$"
    )


class CampaignIndex:
    """Metewand campaign index entry.

    One line of an index part, index/<part>.jsonl in a campaign folder: what readers (status,
    plan, report, compare, export, load) need of one attempt's record, with the size and SHA-256
    of the record's bytes. The executor appends an entry after writing the record; each writer (a
    local run, a Slurm task, a reader that rebuilt entries) appends to a part of its own. An
    entry is used only while attempts/<attempt_id>/attempt.json is exactly those bytes; otherwise
    the record itself is read and a new entry written. concurrency is how many attempts the
    campaign ran at once when this one ran; metrics are the record's metrics that are numbers.
    """

    __slots__ = (
        "attempt_id",
        "concurrency",
        "dataset",
        "evaluator",
        "failure",
        "finished_at",
        "format",
        "implementation",
        "metrics",
        "outcome",
        "phases",
        "problem",
        "record",
        "started_at",
        "verdict",
    )

    attempt_id: str
    """A campaign attempt's stable id: SHA-256 of the canonical preimage of its cell and
    repetition.
    """

    concurrency: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    dataset: Dataset
    """The dataset's name and its materializer's session."""

    evaluator: IndexedSession
    """A worker session: its resolved worker identity and, when the record says, the program it
    ran.
    """

    failure: Failure | None
    """The record's failure: its role and phase (null for the executor's own), kind and message, and
    log, the failing session's log relative to the attempt's folder when it has one.
    """

    finished_at: str
    """An RFC 3339 timestamp in UTC."""

    format: Literal[1]
    """A document's format: 1, the only one this version reads."""

    implementation: Implementation
    """The implementation's name and worker, how its session served the attempt, the CPUs it ran on
    and a streamed attempt's profile (each absent in entries of records that do not say), what it
    claimed of its own time, and its session's CPU time and peak resident memory when it ended
    cleanly. origin is the record's, for an implementation from outside the repository.
    """

    metrics: dict[str, Any]
    """A JSON object whose members this schema does not constrain."""

    outcome: Outcome
    """How the attempt ended: the validated verdict when every session succeeded, otherwise failed
    or cancelled.
    """

    phases: list[PhaseTime]
    """The record's phases, in order, as far as readers add them up."""

    problem: Problem
    """The problem's name and contract id, and what it ranks by (absent for records written before
    it was recorded).
    """

    record: RecordBytes
    """The record's bytes this entry was made from."""

    started_at: str
    """An RFC 3339 timestamp in UTC."""

    verdict: Verdict | None
    """The problem-owned verdict on an implementation's result."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = (
        "attempt_id",
        "concurrency",
        "dataset",
        "evaluator",
        "failure",
        "finished_at",
        "format",
        "implementation",
        "metrics",
        "outcome",
        "phases",
        "problem",
        "record",
        "started_at",
        "verdict",
    )

    def __init__(
        self,
        *,
        attempt_id: str,
        concurrency: int,
        dataset: Dataset,
        evaluator: IndexedSession,
        failure: Failure | None,
        finished_at: str,
        format: Literal[1] = 1,
        implementation: Implementation,
        metrics: dict[str, Any],
        outcome: Outcome,
        phases: list[PhaseTime],
        problem: Problem,
        record: RecordBytes,
        started_at: str,
        verdict: Verdict | None,
    ) -> None:
        self.attempt_id = _attempt_id(attempt_id, "/attempt_id")
        self.concurrency = _safe_uint(concurrency, "/concurrency")
        self.dataset = check_model(dataset, "/dataset", Dataset)
        self.evaluator = check_model(evaluator, "/evaluator", IndexedSession)
        self.failure = None if failure is None else check_model(failure, "/failure", Failure)
        self.finished_at = _timestamp(finished_at, "/finished_at")
        self.format = _format(format, "/format")
        self.implementation = check_model(implementation, "/implementation", Implementation)
        self.metrics = check_json_object(metrics, "/metrics")
        self.outcome = _outcome(outcome, "/outcome")
        self.phases = check_array(phases, "/phases", check_model, PhaseTime)
        self.problem = check_model(problem, "/problem", Problem)
        self.record = check_model(record, "/record", RecordBytes)
        self.started_at = _timestamp(started_at, "/started_at")
        self.verdict = None if verdict is None else _verdict(verdict, "/verdict")

    @classmethod
    def from_dict(cls, data: object) -> CampaignIndex:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> CampaignIndex:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.attempt_id = _attempt_id(fields["attempt_id"], path + "/attempt_id")
        model.concurrency = _safe_uint(fields["concurrency"], path + "/concurrency")
        model.dataset = Dataset._decode(fields["dataset"], path + "/dataset")
        model.evaluator = IndexedSession._decode(fields["evaluator"], path + "/evaluator")
        model.failure = (
            None
            if fields["failure"] is None
            else Failure._decode(fields["failure"], path + "/failure")
        )
        model.finished_at = _timestamp(fields["finished_at"], path + "/finished_at")
        model.format = _format(fields["format"], path + "/format")
        model.implementation = Implementation._decode(
            fields["implementation"], path + "/implementation"
        )
        model.metrics = check_json_object(fields["metrics"], path + "/metrics")
        model.outcome = _outcome(fields["outcome"], path + "/outcome")
        model.phases = check_array(fields["phases"], path + "/phases", PhaseTime._decode)
        model.problem = Problem._decode(fields["problem"], path + "/problem")
        model.record = RecordBytes._decode(fields["record"], path + "/record")
        model.started_at = _timestamp(fields["started_at"], path + "/started_at")
        model.verdict = (
            None if fields["verdict"] is None else _verdict(fields["verdict"], path + "/verdict")
        )
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {
            "attempt_id": self.attempt_id,
            "concurrency": self.concurrency,
            "dataset": self.dataset.to_dict(),
            "evaluator": self.evaluator.to_dict(),
            "failure": None if self.failure is None else self.failure.to_dict(),
            "finished_at": self.finished_at,
            "format": self.format,
            "implementation": self.implementation.to_dict(),
            "metrics": dict(self.metrics),
            "outcome": self.outcome,
            "phases": [item.to_dict() for item in self.phases],
            "problem": self.problem.to_dict(),
            "record": self.record.to_dict(),
            "started_at": self.started_at,
            "verdict": self.verdict,
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CampaignIndex):
            return NotImplemented
        return (
            self.attempt_id == other.attempt_id
            and self.concurrency == other.concurrency
            and self.dataset == other.dataset
            and self.evaluator == other.evaluator
            and self.failure == other.failure
            and self.finished_at == other.finished_at
            and self.format == other.format
            and self.implementation == other.implementation
            and self.metrics == other.metrics
            and self.outcome == other.outcome
            and self.phases == other.phases
            and self.problem == other.problem
            and self.record == other.record
            and self.started_at == other.started_at
            and self.verdict == other.verdict
        )

    def __repr__(self) -> str:
        return (
            f"CampaignIndex(attempt_id={self.attempt_id!r}, concurrency={self.concurrency!r}, "
            f"dataset={self.dataset!r}, evaluator={self.evaluator!r}, failure={self.failure!r}, "
            f"finished_at={self.finished_at!r}, format={self.format!r}, "
            f"implementation={self.implementation!r}, metrics={self.metrics!r}, "
            f"outcome={self.outcome!r}, phases={self.phases!r}, problem={self.problem!r}, "
            f"record={self.record!r}, started_at={self.started_at!r}, verdict={self.verdict!r})"
        )


class Dataset:
    """The dataset's name and its materializer's session."""

    __slots__ = ("materializer", "name")

    materializer: IndexedSession
    """A worker session: its resolved worker identity and, when the record says, the program it
    ran.
    """

    name: str
    """A name the repository's manifest gives: a dataset's, an implementation's, a problem's or a
    campaign's.
    """

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("materializer", "name")

    def __init__(self, *, materializer: IndexedSession, name: str) -> None:
        self.materializer = check_model(materializer, "/materializer", IndexedSession)
        self.name = _name(name, "/name")

    @classmethod
    def from_dict(cls, data: object) -> Dataset:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Dataset:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.materializer = IndexedSession._decode(fields["materializer"], path + "/materializer")
        model.name = _name(fields["name"], path + "/name")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {"materializer": self.materializer.to_dict(), "name": self.name}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Dataset):
            return NotImplemented
        return self.materializer == other.materializer and self.name == other.name

    def __repr__(self) -> str:
        return f"Dataset(materializer={self.materializer!r}, name={self.name!r})"


class Failure:
    """The record's failure: its role and phase (null for the executor's own), kind and message, and
    log, the failing session's log relative to the attempt's folder when it has one.
    """

    __slots__ = ("kind", "log", "message", "phase", "role")

    kind: FailureKind
    """What ended a failed or cancelled attempt."""

    log: str | None
    """A worker's stderr log, as a path relative to the folder the document that names it
    describes.
    """

    message: str
    """A message for the reader: what failed, in words."""

    phase: Phase | None
    """A phase of a worker session, named after its request's method."""

    role: Role | None
    """The role a worker process serves."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("kind", "log", "message", "phase", "role")

    def __init__(
        self,
        *,
        kind: FailureKind,
        log: str | None,
        message: str,
        phase: Phase | None,
        role: Role | None,
    ) -> None:
        self.kind = _failure_kind(kind, "/kind")
        self.log = None if log is None else _log_path(log, "/log")
        self.message = _message(message, "/message")
        self.phase = None if phase is None else _phase(phase, "/phase")
        self.role = None if role is None else _role(role, "/role")

    @classmethod
    def from_dict(cls, data: object) -> Failure:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Failure:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.kind = _failure_kind(fields["kind"], path + "/kind")
        model.log = None if fields["log"] is None else _log_path(fields["log"], path + "/log")
        model.message = _message(fields["message"], path + "/message")
        model.phase = None if fields["phase"] is None else _phase(fields["phase"], path + "/phase")
        model.role = None if fields["role"] is None else _role(fields["role"], path + "/role")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {
            "kind": self.kind,
            "log": self.log,
            "message": self.message,
            "phase": self.phase,
            "role": self.role,
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Failure):
            return NotImplemented
        return (
            self.kind == other.kind
            and self.log == other.log
            and self.message == other.message
            and self.phase == other.phase
            and self.role == other.role
        )

    def __repr__(self) -> str:
        return (
            f"Failure(kind={self.kind!r}, log={self.log!r}, message={self.message!r}, "
            f"phase={self.phase!r}, role={self.role!r})"
        )


class Implementation:
    """The implementation's name and worker, how its session served the attempt, the CPUs it ran on
    and a streamed attempt's profile (each absent in entries of records that do not say), what it
    claimed of its own time, and its session's CPU time and peak resident memory when it ended
    cleanly. origin is the record's, for an implementation from outside the repository.
    """

    __slots__ = (
        "cpu_ns",
        "cpus",
        "environment",
        "implementation_time_ns",
        "name",
        "origin",
        "peak_rss_bytes",
        "profile",
        "program",
        "session",
        "worker_id",
    )

    cpu_ns: int | None
    """The CPU time (user and system) of the implementation's session, when it ended cleanly."""

    cpus: Cpus | None
    """The CPUs the implementation's worker was started on (its affinity), ascending, and how it was
    held there: locked (chosen for its campaign slot, and a seccomp filter refuses
    sched_setaffinity, so no process of the worker can leave them), advisory (chosen, but the
    worker could change its affinity), inherited (none chosen: the executor's own CPUs, as with
    -j 1).
    """

    environment: str | None
    """A lowercase hexadecimal SHA-256 digest."""

    implementation_time_ns: int | None
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    name: str
    """A name the repository's manifest gives: a dataset's, an implementation's, a problem's or a
    campaign's.
    """

    origin: Origin | None
    """Where an implementation from outside the benchmark repository came from: an external folder
    holding metewand-implementation.toml (metewand run --implementation-from, campaign run
    --with, judge), by its canonical absolute path. Absent for the repository's own
    implementations.
    """

    peak_rss_bytes: int | None
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    profile: list[ProfilePoint] | None
    """A streamed attempt's checkpoints, each with the executor's time to it and the evaluator's
    metrics and verdict, as the record has them.
    """

    program: WorkerProgram | None
    """The program the worker's process was running when it answered hello, as the executor found
    it: the path the kernel names for /proc/<pid>/exe, that file's SHA-256, and path_match, the
    PATH match of the command's first word (or the absolute path it names), when that is another
    path (a link such as a virtual environment's python3, a script, a shim); path_match is absent
    when the command names its program by a relative path, inside the worker's source, which
    worker_id already covers.
    """

    session: Session | None
    """How a worker's session served the attempt: fresh (a worker process of its own, the default)
    or reuse (one worker process serving consecutive attempts of the same worker on a campaign
    slot or Slurm task; an implementation's is reset between them). index counts the attempts the
    session served before this one (0 for its first); warmup is the number of discarded prepare
    and execute cycles an implementation's session ran before its first attempt (0 for an
    evaluator's). started_on, for a fresh session started ahead of its attempt (while the slot's
    previous attempt ran), is the CPUs it was started on and said hello on, outside every timed
    slot's, before it was moved to the attempt's CPUs; absent for a session its attempt started.
    Absent from records written before sessions could be reused.
    """

    worker_id: str
    """A resolved worker identity."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("cpu_ns", "implementation_time_ns", "name", "peak_rss_bytes", "worker_id")

    def __init__(
        self,
        *,
        cpu_ns: int | None,
        cpus: Cpus | None = None,
        environment: str | None = None,
        implementation_time_ns: int | None,
        name: str,
        origin: Origin | None = None,
        peak_rss_bytes: int | None,
        profile: list[ProfilePoint] | None = None,
        program: WorkerProgram | None = None,
        session: Session | None = None,
        worker_id: str,
    ) -> None:
        self.cpu_ns = None if cpu_ns is None else _safe_uint(cpu_ns, "/cpu_ns")
        self.cpus = None if cpus is None else check_model(cpus, "/cpus", Cpus)
        self.environment = None if environment is None else _sha256(environment, "/environment")
        self.implementation_time_ns = (
            None
            if implementation_time_ns is None
            else _safe_uint(implementation_time_ns, "/implementation_time_ns")
        )
        self.name = _name(name, "/name")
        self.origin = None if origin is None else check_model(origin, "/origin", Origin)
        self.peak_rss_bytes = (
            None if peak_rss_bytes is None else _safe_uint(peak_rss_bytes, "/peak_rss_bytes")
        )
        self.profile = (
            None if profile is None else check_array(profile, "/profile", check_model, ProfilePoint)
        )
        self.program = None if program is None else check_model(program, "/program", WorkerProgram)
        self.session = None if session is None else check_model(session, "/session", Session)
        self.worker_id = _worker_id(worker_id, "/worker_id")

    @classmethod
    def from_dict(cls, data: object) -> Implementation:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Implementation:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.cpu_ns = (
            None if fields["cpu_ns"] is None else _safe_uint(fields["cpu_ns"], path + "/cpu_ns")
        )
        if "cpus" in fields:
            model.cpus = Cpus._decode(fields["cpus"], path + "/cpus")
        else:
            model.cpus = None
        if "environment" in fields:
            model.environment = _sha256(fields["environment"], path + "/environment")
        else:
            model.environment = None
        model.implementation_time_ns = (
            None
            if fields["implementation_time_ns"] is None
            else _safe_uint(fields["implementation_time_ns"], path + "/implementation_time_ns")
        )
        model.name = _name(fields["name"], path + "/name")
        if "origin" in fields:
            model.origin = Origin._decode(fields["origin"], path + "/origin")
        else:
            model.origin = None
        model.peak_rss_bytes = (
            None
            if fields["peak_rss_bytes"] is None
            else _safe_uint(fields["peak_rss_bytes"], path + "/peak_rss_bytes")
        )
        if "profile" in fields:
            model.profile = check_array(fields["profile"], path + "/profile", ProfilePoint._decode)
        else:
            model.profile = None
        if "program" in fields:
            model.program = WorkerProgram._decode(fields["program"], path + "/program")
        else:
            model.program = None
        if "session" in fields:
            model.session = Session._decode(fields["session"], path + "/session")
        else:
            model.session = None
        model.worker_id = _worker_id(fields["worker_id"], path + "/worker_id")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        data: dict[str, Any] = {"cpu_ns": self.cpu_ns}
        if self.cpus is not None:
            data["cpus"] = self.cpus.to_dict()
        if self.environment is not None:
            data["environment"] = self.environment
        data["implementation_time_ns"] = self.implementation_time_ns
        data["name"] = self.name
        if self.origin is not None:
            data["origin"] = self.origin.to_dict()
        data["peak_rss_bytes"] = self.peak_rss_bytes
        if self.profile is not None:
            data["profile"] = [item.to_dict() for item in self.profile]
        if self.program is not None:
            data["program"] = self.program.to_dict()
        if self.session is not None:
            data["session"] = self.session.to_dict()
        data["worker_id"] = self.worker_id
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Implementation):
            return NotImplemented
        return (
            self.cpu_ns == other.cpu_ns
            and self.cpus == other.cpus
            and self.environment == other.environment
            and self.implementation_time_ns == other.implementation_time_ns
            and self.name == other.name
            and self.origin == other.origin
            and self.peak_rss_bytes == other.peak_rss_bytes
            and self.profile == other.profile
            and self.program == other.program
            and self.session == other.session
            and self.worker_id == other.worker_id
        )

    def __repr__(self) -> str:
        return (
            f"Implementation(cpu_ns={self.cpu_ns!r}, cpus={self.cpus!r}, "
            f"environment={self.environment!r}, "
            f"implementation_time_ns={self.implementation_time_ns!r}, name={self.name!r}, "
            f"origin={self.origin!r}, peak_rss_bytes={self.peak_rss_bytes!r}, "
            f"profile={self.profile!r}, program={self.program!r}, session={self.session!r}, "
            f"worker_id={self.worker_id!r})"
        )


class IndexedSession:
    """A worker session: its resolved worker identity and, when the record says, the program it
    ran.
    """

    __slots__ = ("environment", "program", "worker_id")

    environment: str | None
    """A lowercase hexadecimal SHA-256 digest."""

    program: WorkerProgram | None
    """The program the worker's process was running when it answered hello, as the executor found
    it: the path the kernel names for /proc/<pid>/exe, that file's SHA-256, and path_match, the
    PATH match of the command's first word (or the absolute path it names), when that is another
    path (a link such as a virtual environment's python3, a script, a shim); path_match is absent
    when the command names its program by a relative path, inside the worker's source, which
    worker_id already covers.
    """

    worker_id: str
    """A resolved worker identity."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("worker_id",)

    def __init__(
        self,
        *,
        environment: str | None = None,
        program: WorkerProgram | None = None,
        worker_id: str,
    ) -> None:
        self.environment = None if environment is None else _sha256(environment, "/environment")
        self.program = None if program is None else check_model(program, "/program", WorkerProgram)
        self.worker_id = _worker_id(worker_id, "/worker_id")

    @classmethod
    def from_dict(cls, data: object) -> IndexedSession:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> IndexedSession:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        if "environment" in fields:
            model.environment = _sha256(fields["environment"], path + "/environment")
        else:
            model.environment = None
        if "program" in fields:
            model.program = WorkerProgram._decode(fields["program"], path + "/program")
        else:
            model.program = None
        model.worker_id = _worker_id(fields["worker_id"], path + "/worker_id")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        data: dict[str, Any] = {}
        if self.environment is not None:
            data["environment"] = self.environment
        if self.program is not None:
            data["program"] = self.program.to_dict()
        data["worker_id"] = self.worker_id
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, IndexedSession):
            return NotImplemented
        return (
            self.environment == other.environment
            and self.program == other.program
            and self.worker_id == other.worker_id
        )

    def __repr__(self) -> str:
        return (
            f"IndexedSession(environment={self.environment!r}, program={self.program!r}, "
            f"worker_id={self.worker_id!r})"
        )


class PhaseTime:
    """One request sent: by whom it was served, which phase, and how long the executor waited for
    its answer.
    """

    __slots__ = ("duration_ns", "phase", "role")

    duration_ns: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    phase: Phase
    """A phase of a worker session, named after its request's method."""

    role: Role
    """The role a worker process serves."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("duration_ns", "phase", "role")

    def __init__(self, *, duration_ns: int, phase: Phase, role: Role) -> None:
        self.duration_ns = _safe_uint(duration_ns, "/duration_ns")
        self.phase = _phase(phase, "/phase")
        self.role = _role(role, "/role")

    @classmethod
    def from_dict(cls, data: object) -> PhaseTime:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> PhaseTime:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.duration_ns = _safe_uint(fields["duration_ns"], path + "/duration_ns")
        model.phase = _phase(fields["phase"], path + "/phase")
        model.role = _role(fields["role"], path + "/role")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {"duration_ns": self.duration_ns, "phase": self.phase, "role": self.role}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PhaseTime):
            return NotImplemented
        return (
            self.duration_ns == other.duration_ns
            and self.phase == other.phase
            and self.role == other.role
        )

    def __repr__(self) -> str:
        return (
            f"PhaseTime(duration_ns={self.duration_ns!r}, phase={self.phase!r}, role={self.role!r})"
        )


class Problem:
    """The problem's name and contract id, and what it ranks by (absent for records written before
    it was recorded).
    """

    __slots__ = ("contract_id", "name", "timed")

    contract_id: str
    """A problem contract id as Metewand generates it: mw1-problem-contract- and the 64 lowercase
    hexadecimal digits of its digest.
    """

    name: str
    """A name the repository's manifest gives: a dataset's, an implementation's, a problem's or a
    campaign's.
    """

    timed: ProblemTimed | None
    """What a problem ranks implementations by: the executor's time of the implementation's execute
    request, or of prepare and execute together.
    """

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("contract_id", "name")

    def __init__(self, *, contract_id: str, name: str, timed: ProblemTimed | None = None) -> None:
        self.contract_id = _problem_contract_id(contract_id, "/contract_id")
        self.name = _name(name, "/name")
        self.timed = None if timed is None else _problem_timed(timed, "/timed")

    @classmethod
    def from_dict(cls, data: object) -> Problem:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Problem:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.contract_id = _problem_contract_id(fields["contract_id"], path + "/contract_id")
        model.name = _name(fields["name"], path + "/name")
        if "timed" in fields:
            model.timed = _problem_timed(fields["timed"], path + "/timed")
        else:
            model.timed = None
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        data: dict[str, Any] = {"contract_id": self.contract_id, "name": self.name}
        if self.timed is not None:
            data["timed"] = self.timed
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Problem):
            return NotImplemented
        return (
            self.contract_id == other.contract_id
            and self.name == other.name
            and self.timed == other.timed
        )

    def __repr__(self) -> str:
        return (
            f"Problem(contract_id={self.contract_id!r}, name={self.name!r}, timed={self.timed!r})"
        )


class RecordBytes:
    """The record's bytes this entry was made from."""

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
    def from_dict(cls, data: object) -> RecordBytes:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> RecordBytes:
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
        if not isinstance(other, RecordBytes):
            return NotImplemented
        return self.sha256 == other.sha256 and self.size == other.size and self.stamp == other.stamp

    def __repr__(self) -> str:
        return f"RecordBytes(sha256={self.sha256!r}, size={self.size!r}, stamp={self.stamp!r})"


# The class of each definition in the schema, by its name under $defs (None for the root).
DEFINITIONS: dict[str | None, type] = {
    None: CampaignIndex,
    "dataset": Dataset,
    "failure": Failure,
    "implementation": Implementation,
    "indexed_session": IndexedSession,
    "phase_time": PhaseTime,
    "problem": Problem,
    "record_bytes": RecordBytes,
}
