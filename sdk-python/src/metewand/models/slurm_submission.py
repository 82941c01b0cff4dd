# Generated from schemas/slurm-submission.schema.json by codegen; do not edit. Regenerate with: cargo xtask codegen
"""Metewand Slurm submission.

slurm/<n>/submission.json in a campaign folder: what one submission runs and the jobs it queued.
Its tasks read it to find their work.

Each class checks its constructor's arguments, decodes parsed JSON strictly with from_dict
(raising ModelError with the JSON Pointer of the first value the schema refuses) and encodes with
to_dict. DEFINITIONS maps the schema's definition names to the classes.
"""

from __future__ import annotations

from metewand._strict import (
    ModelError,
    check_array,
    check_boolean,
    check_enum,
    check_model,
    check_object,
    check_string,
)
from metewand.models.attempt_record import _session_mode
from metewand.models.common import _attempt_id, _format, _safe_uint, _sha256, _timestamp, _worker_id

# Annotations are strings (see the __future__ import), so typing is needed only by type checkers.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal, TypeAlias
    from metewand.models.attempt_record import SessionMode

    _JobKind: TypeAlias = Literal["datasets", "attempts", "export", "decide"]

__all__ = [
    "DEFINITIONS",
    "Decision",
    "External",
    "Job",
    "ModelError",
    "Sessions",
    "SlurmSubmission",
    "UntilDecided",
]

_JOB_KIND_VALUES: frozenset[_JobKind] = frozenset({"datasets", "attempts", "export", "decide"})
"""What it runs: datasets (an array materializing one dataset a task), attempts (an array running
one pack of attempts a task), export (one job writing results.csv, results.jsonl and
profiles.csv) or decide (with until_decided, in place of export: one job deciding, once the
attempts ended, whether to submit the next round or write the exports).
"""


class SlurmSubmission:
    """Metewand Slurm submission.

    slurm/<n>/submission.json in a campaign folder: what one submission runs and the jobs it
    queued. Its tasks read it to find their work.
    """

    __slots__ = (
        "attempts",
        "binary",
        "concurrency",
        "datasets",
        "externals",
        "format",
        "jobs",
        "number",
        "pack_size",
        "sessions",
        "state_dir",
        "submitted_at",
        "sweep_processes",
        "until_decided",
    )

    attempts: list[str]
    """The attempt ids to run, pack i being attempts[i*K .. (i+1)*K] for the pack size K."""

    binary: str
    """The metewand the tasks run, by absolute path."""

    concurrency: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    datasets: list[str]
    """The keys of the datasets to materialize, dataset task i materializing datasets[i]."""

    externals: list[External] | None
    """The external folders (campaign submit --with) the campaign's implementations come from, in
    the order they were given; every task joins them to the repository again and runs nothing if
    one's identity changed. Absent when there are none.
    """

    format: Literal[1]
    """A document's format: 1, the only one this version reads."""

    jobs: list[Job]
    """The jobs, in the order they were submitted."""

    number: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    pack_size: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    sessions: Sessions | None
    """How each task's implementation sessions serve its attempts, the warm-up cycles of a reused
    one, and the workers never reused; absent in submissions made before sessions could be
    reused, which ran fresh ones.
    """

    state_dir: str
    """The state folder (the dataset store), absolute."""

    submitted_at: str
    """An RFC 3339 timestamp in UTC."""

    sweep_processes: bool
    """Whether workers' processes are kept together by the freezing sweep rather than a PID
    namespace.
    """

    until_decided: UntilDecided | None
    """A round of campaign submit --until-decided: the cap on a cell's repetitions (max_repetitions;
    the tasks plan with that many, so that repetition k has the id it has in a plan of k), the
    test's level and resolution its decide job decides with, and the options the next round is
    submitted with (max_parallel as --max-parallel); absent in a submission without
    --until-decided.
    """

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = (
        "attempts",
        "binary",
        "concurrency",
        "datasets",
        "format",
        "jobs",
        "number",
        "pack_size",
        "state_dir",
        "submitted_at",
        "sweep_processes",
    )

    def __init__(
        self,
        *,
        attempts: list[str],
        binary: str,
        concurrency: int,
        datasets: list[str],
        externals: list[External] | None = None,
        format: Literal[1] = 1,
        jobs: list[Job],
        number: int,
        pack_size: int,
        sessions: Sessions | None = None,
        state_dir: str,
        submitted_at: str,
        sweep_processes: bool,
        until_decided: UntilDecided | None = None,
    ) -> None:
        self.attempts = check_array(attempts, "/attempts", _attempt_id)
        self.binary = check_string(binary, "/binary", min_length=1)
        self.concurrency = _safe_uint(concurrency, "/concurrency")
        self.datasets = check_array(datasets, "/datasets", _sha256)
        self.externals = (
            None
            if externals is None
            else check_array(externals, "/externals", check_model, External)
        )
        self.format = _format(format, "/format")
        self.jobs = check_array(jobs, "/jobs", check_model, Job)
        self.number = _safe_uint(number, "/number")
        self.pack_size = _safe_uint(pack_size, "/pack_size")
        self.sessions = None if sessions is None else check_model(sessions, "/sessions", Sessions)
        self.state_dir = check_string(state_dir, "/state_dir", min_length=1)
        self.submitted_at = _timestamp(submitted_at, "/submitted_at")
        self.sweep_processes = check_boolean(sweep_processes, "/sweep_processes")
        self.until_decided = (
            None
            if until_decided is None
            else check_model(until_decided, "/until_decided", UntilDecided)
        )

    @classmethod
    def from_dict(cls, data: object) -> SlurmSubmission:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> SlurmSubmission:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.attempts = check_array(fields["attempts"], path + "/attempts", _attempt_id)
        model.binary = check_string(fields["binary"], path + "/binary", min_length=1)
        model.concurrency = _safe_uint(fields["concurrency"], path + "/concurrency")
        model.datasets = check_array(fields["datasets"], path + "/datasets", _sha256)
        if "externals" in fields:
            model.externals = check_array(
                fields["externals"], path + "/externals", External._decode
            )
        else:
            model.externals = None
        model.format = _format(fields["format"], path + "/format")
        model.jobs = check_array(fields["jobs"], path + "/jobs", Job._decode)
        model.number = _safe_uint(fields["number"], path + "/number")
        model.pack_size = _safe_uint(fields["pack_size"], path + "/pack_size")
        if "sessions" in fields:
            model.sessions = Sessions._decode(fields["sessions"], path + "/sessions")
        else:
            model.sessions = None
        model.state_dir = check_string(fields["state_dir"], path + "/state_dir", min_length=1)
        model.submitted_at = _timestamp(fields["submitted_at"], path + "/submitted_at")
        model.sweep_processes = check_boolean(fields["sweep_processes"], path + "/sweep_processes")
        if "until_decided" in fields:
            model.until_decided = UntilDecided._decode(
                fields["until_decided"], path + "/until_decided"
            )
        else:
            model.until_decided = None
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        data: dict[str, Any] = {
            "attempts": list(self.attempts),
            "binary": self.binary,
            "concurrency": self.concurrency,
            "datasets": list(self.datasets),
        }
        if self.externals is not None:
            data["externals"] = [item.to_dict() for item in self.externals]
        data["format"] = self.format
        data["jobs"] = [item.to_dict() for item in self.jobs]
        data["number"] = self.number
        data["pack_size"] = self.pack_size
        if self.sessions is not None:
            data["sessions"] = self.sessions.to_dict()
        data["state_dir"] = self.state_dir
        data["submitted_at"] = self.submitted_at
        data["sweep_processes"] = self.sweep_processes
        if self.until_decided is not None:
            data["until_decided"] = self.until_decided.to_dict()
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SlurmSubmission):
            return NotImplemented
        return (
            self.attempts == other.attempts
            and self.binary == other.binary
            and self.concurrency == other.concurrency
            and self.datasets == other.datasets
            and self.externals == other.externals
            and self.format == other.format
            and self.jobs == other.jobs
            and self.number == other.number
            and self.pack_size == other.pack_size
            and self.sessions == other.sessions
            and self.state_dir == other.state_dir
            and self.submitted_at == other.submitted_at
            and self.sweep_processes == other.sweep_processes
            and self.until_decided == other.until_decided
        )

    def __repr__(self) -> str:
        return (
            f"SlurmSubmission(attempts={self.attempts!r}, binary={self.binary!r}, "
            f"concurrency={self.concurrency!r}, datasets={self.datasets!r}, "
            f"externals={self.externals!r}, format={self.format!r}, jobs={self.jobs!r}, "
            f"number={self.number!r}, pack_size={self.pack_size!r}, sessions={self.sessions!r}, "
            f"state_dir={self.state_dir!r}, submitted_at={self.submitted_at!r}, "
            f"sweep_processes={self.sweep_processes!r}, until_decided={self.until_decided!r})"
        )


class Decision:
    """What the round's decide job decided, written by it: next_submission, the next round's
    submission; or, when no round was needed, how many pairs were compared and how many are
    separated, tied and still undecided at the cap; or, failure, why it failed, in one sentence.
    """

    __slots__ = (
        "decided_at",
        "failure",
        "next_submission",
        "pairs",
        "separated",
        "tied",
        "undecided",
    )

    decided_at: str
    """An RFC 3339 timestamp in UTC."""

    failure: str | None
    """Why the decide job failed, in one sentence."""

    next_submission: int | None
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    pairs: int | None
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    separated: int | None
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    tied: int | None
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    undecided: int | None
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("decided_at",)

    def __init__(
        self,
        *,
        decided_at: str,
        failure: str | None = None,
        next_submission: int | None = None,
        pairs: int | None = None,
        separated: int | None = None,
        tied: int | None = None,
        undecided: int | None = None,
    ) -> None:
        self.decided_at = _timestamp(decided_at, "/decided_at")
        self.failure = None if failure is None else check_string(failure, "/failure")
        self.next_submission = (
            None if next_submission is None else _safe_uint(next_submission, "/next_submission")
        )
        self.pairs = None if pairs is None else _safe_uint(pairs, "/pairs")
        self.separated = None if separated is None else _safe_uint(separated, "/separated")
        self.tied = None if tied is None else _safe_uint(tied, "/tied")
        self.undecided = None if undecided is None else _safe_uint(undecided, "/undecided")

    @classmethod
    def from_dict(cls, data: object) -> Decision:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Decision:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.decided_at = _timestamp(fields["decided_at"], path + "/decided_at")
        if "failure" in fields:
            model.failure = check_string(fields["failure"], path + "/failure")
        else:
            model.failure = None
        if "next_submission" in fields:
            model.next_submission = _safe_uint(fields["next_submission"], path + "/next_submission")
        else:
            model.next_submission = None
        if "pairs" in fields:
            model.pairs = _safe_uint(fields["pairs"], path + "/pairs")
        else:
            model.pairs = None
        if "separated" in fields:
            model.separated = _safe_uint(fields["separated"], path + "/separated")
        else:
            model.separated = None
        if "tied" in fields:
            model.tied = _safe_uint(fields["tied"], path + "/tied")
        else:
            model.tied = None
        if "undecided" in fields:
            model.undecided = _safe_uint(fields["undecided"], path + "/undecided")
        else:
            model.undecided = None
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        data: dict[str, Any] = {"decided_at": self.decided_at}
        if self.failure is not None:
            data["failure"] = self.failure
        if self.next_submission is not None:
            data["next_submission"] = self.next_submission
        if self.pairs is not None:
            data["pairs"] = self.pairs
        if self.separated is not None:
            data["separated"] = self.separated
        if self.tied is not None:
            data["tied"] = self.tied
        if self.undecided is not None:
            data["undecided"] = self.undecided
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Decision):
            return NotImplemented
        return (
            self.decided_at == other.decided_at
            and self.failure == other.failure
            and self.next_submission == other.next_submission
            and self.pairs == other.pairs
            and self.separated == other.separated
            and self.tied == other.tied
            and self.undecided == other.undecided
        )

    def __repr__(self) -> str:
        return (
            f"Decision(decided_at={self.decided_at!r}, failure={self.failure!r}, "
            f"next_submission={self.next_submission!r}, pairs={self.pairs!r}, "
            f"separated={self.separated!r}, tied={self.tied!r}, undecided={self.undecided!r})"
        )


class External:
    """One external folder of a submission: its path, and its identity when the submission was made
    (the digest of its metewand-implementation.toml and its workers' identities,
    docs/decisions/identities.md).
    """

    __slots__ = ("folder", "identity")

    folder: str
    """The folder, by its absolute canonical path."""

    identity: str
    """A lowercase hexadecimal SHA-256 digest."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("folder", "identity")

    def __init__(self, *, folder: str, identity: str) -> None:
        self.folder = check_string(folder, "/folder", min_length=1)
        self.identity = _sha256(identity, "/identity")

    @classmethod
    def from_dict(cls, data: object) -> External:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> External:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.folder = check_string(fields["folder"], path + "/folder", min_length=1)
        model.identity = _sha256(fields["identity"], path + "/identity")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {"folder": self.folder, "identity": self.identity}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, External):
            return NotImplemented
        return self.folder == other.folder and self.identity == other.identity

    def __repr__(self) -> str:
        return f"External(folder={self.folder!r}, identity={self.identity!r})"


class Job:
    """One job of a submission."""

    __slots__ = ("first", "job_id", "kind", "script", "tasks")

    first: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    job_id: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    kind: Literal["datasets", "attempts", "export", "decide"]
    """What it runs: datasets (an array materializing one dataset a task), attempts (an array
    running one pack of attempts a task), export (one job writing results.csv, results.jsonl and
    profiles.csv) or decide (with until_decided, in place of export: one job deciding, once the
    attempts ended, whether to submit the next round or write the exports).
    """

    script: str
    """Its batch script, relative to the campaign folder."""

    tasks: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("first", "job_id", "kind", "script", "tasks")

    def __init__(
        self,
        *,
        first: int,
        job_id: int,
        kind: Literal["datasets", "attempts", "export", "decide"],
        script: str,
        tasks: int,
    ) -> None:
        self.first = _safe_uint(first, "/first")
        self.job_id = _safe_uint(job_id, "/job_id")
        self.kind = check_enum(kind, "/kind", _JOB_KIND_VALUES)
        self.script = check_string(script, "/script", min_length=1)
        self.tasks = _safe_uint(tasks, "/tasks")

    @classmethod
    def from_dict(cls, data: object) -> Job:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Job:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.first = _safe_uint(fields["first"], path + "/first")
        model.job_id = _safe_uint(fields["job_id"], path + "/job_id")
        model.kind = check_enum(fields["kind"], path + "/kind", _JOB_KIND_VALUES)
        model.script = check_string(fields["script"], path + "/script", min_length=1)
        model.tasks = _safe_uint(fields["tasks"], path + "/tasks")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {
            "first": self.first,
            "job_id": self.job_id,
            "kind": self.kind,
            "script": self.script,
            "tasks": self.tasks,
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Job):
            return NotImplemented
        return (
            self.first == other.first
            and self.job_id == other.job_id
            and self.kind == other.kind
            and self.script == other.script
            and self.tasks == other.tasks
        )

    def __repr__(self) -> str:
        return (
            f"Job(first={self.first!r}, job_id={self.job_id!r}, kind={self.kind!r}, "
            f"script={self.script!r}, tasks={self.tasks!r})"
        )


class Sessions:
    """How each task's implementation sessions serve its attempts, the warm-up cycles of a reused
    one, and the workers never reused; absent in submissions made before sessions could be
    reused, which ran fresh ones.
    """

    __slots__ = ("ahead", "mode", "refused", "warmup")

    ahead: bool | None
    """With fresh sessions, whether each task starts the workers of the attempt it runs next while
    one runs, on a core of its allocation kept off its workers' CPUs (only where the allocation
    has two cores or more); absent (in submissions made before) is false.
    """

    mode: SessionMode
    """How implementation sessions serve attempts: fresh (each attempt starts its own worker
    process) or reuse (one worker process serves consecutive attempts of its worker, reset
    between them).
    """

    refused: list[str]
    """The implementation workers whose sessions are not reused (they did not pass the conformance
    kit's reset-then-again when the submission was made).
    """

    warmup: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("mode", "refused", "warmup")

    def __init__(
        self, *, ahead: bool | None = None, mode: SessionMode, refused: list[str], warmup: int
    ) -> None:
        self.ahead = None if ahead is None else check_boolean(ahead, "/ahead")
        self.mode = _session_mode(mode, "/mode")
        self.refused = check_array(refused, "/refused", _worker_id)
        self.warmup = _safe_uint(warmup, "/warmup")

    @classmethod
    def from_dict(cls, data: object) -> Sessions:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Sessions:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        if "ahead" in fields:
            model.ahead = check_boolean(fields["ahead"], path + "/ahead")
        else:
            model.ahead = None
        model.mode = _session_mode(fields["mode"], path + "/mode")
        model.refused = check_array(fields["refused"], path + "/refused", _worker_id)
        model.warmup = _safe_uint(fields["warmup"], path + "/warmup")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        data: dict[str, Any] = {}
        if self.ahead is not None:
            data["ahead"] = self.ahead
        data["mode"] = self.mode
        data["refused"] = list(self.refused)
        data["warmup"] = self.warmup
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sessions):
            return NotImplemented
        return (
            self.ahead == other.ahead
            and self.mode == other.mode
            and self.refused == other.refused
            and self.warmup == other.warmup
        )

    def __repr__(self) -> str:
        return (
            f"Sessions(ahead={self.ahead!r}, mode={self.mode!r}, refused={self.refused!r}, "
            f"warmup={self.warmup!r})"
        )


class UntilDecided:
    """A round of campaign submit --until-decided: the cap on a cell's repetitions (max_repetitions;
    the tasks plan with that many, so that repetition k has the id it has in a plan of k), the
    test's level and resolution its decide job decides with, and the options the next round is
    submitted with (max_parallel as --max-parallel); absent in a submission without
    --until-decided.
    """

    __slots__ = (
        "account",
        "alpha",
        "decision",
        "max_parallel",
        "max_repetitions",
        "partition",
        "resolution",
        "sbatch_args",
        "time",
    )

    account: str | None
    """--account."""

    alpha: str
    """The test's significance level, in (0, 0.5], as a decimal number written as text (as --alpha
    took it).
    """

    decision: Decision | None
    """What the round's decide job decided, written by it: next_submission, the next round's
    submission; or, when no round was needed, how many pairs were compared and how many are
    separated, tied and still undecided at the cap; or, failure, why it failed, in one sentence.
    """

    max_parallel: int | None
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    max_repetitions: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    partition: str | None
    """--partition."""

    resolution: str | None
    """The relative difference under which a pair is tied, as a decimal number written as text;
    absent: no pair is tied.
    """

    sbatch_args: list[str]
    """--sbatch-arg, in order."""

    time: str | None
    """--time, as given; absent: worked out from the repository."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("alpha", "max_repetitions", "sbatch_args")

    def __init__(
        self,
        *,
        account: str | None = None,
        alpha: str,
        decision: Decision | None = None,
        max_parallel: int | None = None,
        max_repetitions: int,
        partition: str | None = None,
        resolution: str | None = None,
        sbatch_args: list[str],
        time: str | None = None,
    ) -> None:
        self.account = None if account is None else check_string(account, "/account")
        self.alpha = check_string(alpha, "/alpha")
        self.decision = None if decision is None else check_model(decision, "/decision", Decision)
        self.max_parallel = (
            None if max_parallel is None else _safe_uint(max_parallel, "/max_parallel")
        )
        self.max_repetitions = _safe_uint(max_repetitions, "/max_repetitions")
        self.partition = None if partition is None else check_string(partition, "/partition")
        self.resolution = None if resolution is None else check_string(resolution, "/resolution")
        self.sbatch_args = check_array(sbatch_args, "/sbatch_args", check_string)
        self.time = None if time is None else check_string(time, "/time")

    @classmethod
    def from_dict(cls, data: object) -> UntilDecided:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> UntilDecided:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        if "account" in fields:
            model.account = check_string(fields["account"], path + "/account")
        else:
            model.account = None
        model.alpha = check_string(fields["alpha"], path + "/alpha")
        if "decision" in fields:
            model.decision = Decision._decode(fields["decision"], path + "/decision")
        else:
            model.decision = None
        if "max_parallel" in fields:
            model.max_parallel = _safe_uint(fields["max_parallel"], path + "/max_parallel")
        else:
            model.max_parallel = None
        model.max_repetitions = _safe_uint(fields["max_repetitions"], path + "/max_repetitions")
        if "partition" in fields:
            model.partition = check_string(fields["partition"], path + "/partition")
        else:
            model.partition = None
        if "resolution" in fields:
            model.resolution = check_string(fields["resolution"], path + "/resolution")
        else:
            model.resolution = None
        model.sbatch_args = check_array(fields["sbatch_args"], path + "/sbatch_args", check_string)
        if "time" in fields:
            model.time = check_string(fields["time"], path + "/time")
        else:
            model.time = None
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        data: dict[str, Any] = {}
        if self.account is not None:
            data["account"] = self.account
        data["alpha"] = self.alpha
        if self.decision is not None:
            data["decision"] = self.decision.to_dict()
        if self.max_parallel is not None:
            data["max_parallel"] = self.max_parallel
        data["max_repetitions"] = self.max_repetitions
        if self.partition is not None:
            data["partition"] = self.partition
        if self.resolution is not None:
            data["resolution"] = self.resolution
        data["sbatch_args"] = list(self.sbatch_args)
        if self.time is not None:
            data["time"] = self.time
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, UntilDecided):
            return NotImplemented
        return (
            self.account == other.account
            and self.alpha == other.alpha
            and self.decision == other.decision
            and self.max_parallel == other.max_parallel
            and self.max_repetitions == other.max_repetitions
            and self.partition == other.partition
            and self.resolution == other.resolution
            and self.sbatch_args == other.sbatch_args
            and self.time == other.time
        )

    def __repr__(self) -> str:
        return (
            f"UntilDecided(account={self.account!r}, alpha={self.alpha!r}, "
            f"decision={self.decision!r}, max_parallel={self.max_parallel!r}, "
            f"max_repetitions={self.max_repetitions!r}, partition={self.partition!r}, "
            f"resolution={self.resolution!r}, sbatch_args={self.sbatch_args!r}, time={self.time!r})"
        )


# The class of each definition in the schema, by its name under $defs (None for the root).
DEFINITIONS: dict[str | None, type] = {
    None: SlurmSubmission,
    "decision": Decision,
    "external": External,
    "job": Job,
    "sessions": Sessions,
    "until_decided": UntilDecided,
}
