# Generated from schemas/attempt-record.schema.json by codegen; do not edit. Regenerate with: cargo xtask codegen
"""Metewand attempt record.

What metewand run records about one attempt, written canonically and atomically as attempt.json.
Every field is present; a field is null where the session that would fill it did not run or did
not get that far. Durations are integer nanoseconds measured by the executor's monotonic clock;
timestamps are RFC 3339 UTC.

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
    check_json_object,
    check_model,
    check_object,
    check_string,
    literal_alias,
)
from metewand.models.common import (
    FileRecord,
    SdkInfo,
    _attempt_id,
    _capability,
    _failure_code,
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
    import builtins
    from typing import Any, Literal, TypeAlias
    from metewand.models.common import Capability, FailureCode, Phase, Role, Verdict

    FailureKind: TypeAlias = Literal[
        "spawn_failed",
        "worker_failure",
        "protocol_violation",
        "phase_timeout",
        "scientific_timeout",
        "worker_exit",
        "resource_limit",
        "invalid_output",
        "dataset_modified",
        "cancelled",
        "executor_error",
    ]

    Outcome: TypeAlias = Literal[
        "reached",
        "not_reached",
        "not_required",
        "invalid",
        "failed",
        "cancelled",
    ]

    ProblemTimed: TypeAlias = Literal["execute", "prepare+execute"]

    SessionMode: TypeAlias = Literal["fresh", "reuse"]

    SyscallGroup: TypeAlias = Literal[
        "bpf",
        "io_uring",
        "keyctl",
        "memfd_create",
        "perf_event_open",
        "userfaultfd",
    ]

    _ConfinementCapabilities: TypeAlias = Literal["none", "kept"]

    _ConfinementFilesystem: TypeAlias = Literal["landlock", "none"]

    _ConfinementIpc: TypeAlias = Literal["namespace", "host"]

    _ConfinementMounts: TypeAlias = Literal["private", "host"]

    _ConfinementNetwork: TypeAlias = Literal["namespace", "denied", "allowed", "unrestricted"]

    _ConfinementProcesses: TypeAlias = Literal["pid-namespace", "sweep"]

    _ConfinementSignals: TypeAlias = Literal["scoped", "unscoped"]

    _ConfinementSyscallFilter: TypeAlias = Literal["default", "none"]

    _CpusBinding: TypeAlias = Literal["locked", "advisory", "inherited"]

    _OriginKind: TypeAlias = Literal["external"]

    _ResourceLimitMechanism: TypeAlias = Literal["rlimit", "pid_max", "cgroup", "watched", "none"]
else:

    def __getattr__(name: str) -> object:
        # The Literal aliases are built on first use, so that importing this module does not
        # import typing.
        return literal_alias(globals(), name, _LITERAL_ALIASES)


__all__ = [
    "AttemptFailure",
    "AttemptRecord",
    "Campaign",
    "Confinement",
    "Cpus",
    "DEFINITIONS",
    "Dataset",
    "FAILURE_KIND_VALUES",
    "FailureKind",
    "HostUser",
    "Implementation",
    "Logs",
    "ModelError",
    "OUTCOME_VALUES",
    "Origin",
    "Outcome",
    "PROBLEM_TIMED_VALUES",
    "PhaseRecord",
    "Problem",
    "ProblemTimed",
    "ProfilePoint",
    "PythonDistribution",
    "PythonEnvironment",
    "ResourceLimit",
    "ResourceLimits",
    "Resources",
    "SESSION_MODE_VALUES",
    "SYSCALL_GROUP_VALUES",
    "Session",
    "SessionMode",
    "SyscallGroup",
    "WorkerIdentity",
    "WorkerProgram",
    "WorkerSession",
]

FAILURE_KIND_VALUES: frozenset[FailureKind] = frozenset(
    {
        "spawn_failed",
        "worker_failure",
        "protocol_violation",
        "phase_timeout",
        "scientific_timeout",
        "worker_exit",
        "resource_limit",
        "invalid_output",
        "dataset_modified",
        "cancelled",
        "executor_error",
    }
)
"""What ended a failed or cancelled attempt."""

OUTCOME_VALUES: frozenset[Outcome] = frozenset(
    {"reached", "not_reached", "not_required", "invalid", "failed", "cancelled"}
)
"""How the attempt ended: the validated verdict when every session succeeded, otherwise failed or
cancelled.
"""

PROBLEM_TIMED_VALUES: frozenset[ProblemTimed] = frozenset({"execute", "prepare+execute"})
"""What a problem ranks implementations by: the executor's time of the implementation's execute
request, or of prepare and execute together.
"""

SESSION_MODE_VALUES: frozenset[SessionMode] = frozenset({"fresh", "reuse"})
"""How implementation sessions serve attempts: fresh (each attempt starts its own worker process) or
reuse (one worker process serves consecutive attempts of its worker, reset between them).
"""

SYSCALL_GROUP_VALUES: frozenset[SyscallGroup] = frozenset(
    {"bpf", "io_uring", "keyctl", "memfd_create", "perf_event_open", "userfaultfd"}
)
"""A group of system calls the default filter refuses unless a worker declares it."""

_CONFINEMENT_CAPABILITIES_VALUES: frozenset[_ConfinementCapabilities] = frozenset({"none", "kept"})

_CONFINEMENT_FILESYSTEM_VALUES: frozenset[_ConfinementFilesystem] = frozenset({"landlock", "none"})

_CONFINEMENT_IPC_VALUES: frozenset[_ConfinementIpc] = frozenset({"namespace", "host"})

_CONFINEMENT_MOUNTS_VALUES: frozenset[_ConfinementMounts] = frozenset({"private", "host"})

_CONFINEMENT_NETWORK_VALUES: frozenset[_ConfinementNetwork] = frozenset(
    {"namespace", "denied", "allowed", "unrestricted"}
)

_CONFINEMENT_PROCESSES_VALUES: frozenset[_ConfinementProcesses] = frozenset(
    {"pid-namespace", "sweep"}
)

_CONFINEMENT_SIGNALS_VALUES: frozenset[_ConfinementSignals] = frozenset({"scoped", "unscoped"})

_CONFINEMENT_SYSCALL_FILTER_VALUES: frozenset[_ConfinementSyscallFilter] = frozenset(
    {"default", "none"}
)

_CPUS_BINDING_VALUES: frozenset[_CpusBinding] = frozenset({"locked", "advisory", "inherited"})

_ORIGIN_KIND_VALUES: frozenset[_OriginKind] = frozenset({"external"})
"""external: the one origin other than the repository."""

_RESOURCE_LIMIT_MECHANISM_VALUES: frozenset[_ResourceLimitMechanism] = frozenset(
    {"rlimit", "pid_max", "cgroup", "watched", "none"}
)

_LITERAL_ALIASES = {
    "FailureKind": FAILURE_KIND_VALUES,
    "Outcome": OUTCOME_VALUES,
    "ProblemTimed": PROBLEM_TIMED_VALUES,
    "SessionMode": SESSION_MODE_VALUES,
    "SyscallGroup": SYSCALL_GROUP_VALUES,
}


def _failure_kind(value: object, path: str) -> FailureKind:
    """What ended a failed or cancelled attempt."""
    return check_enum(value, path, FAILURE_KIND_VALUES)


def _outcome(value: object, path: str) -> Outcome:
    """How the attempt ended: the validated verdict when every session succeeded, otherwise failed
    or cancelled.
    """
    return check_enum(value, path, OUTCOME_VALUES)


def _problem_timed(value: object, path: str) -> ProblemTimed:
    """What a problem ranks implementations by: the executor's time of the implementation's execute
    request, or of prepare and execute together.
    """
    return check_enum(value, path, PROBLEM_TIMED_VALUES)


def _session_mode(value: object, path: str) -> SessionMode:
    """How implementation sessions serve attempts: fresh (each attempt starts its own worker
    process) or reuse (one worker process serves consecutive attempts of its worker, reset
    between them).
    """
    return check_enum(value, path, SESSION_MODE_VALUES)


def _syscall_group(value: object, path: str) -> SyscallGroup:
    """A group of system calls the default filter refuses unless a worker declares it."""
    return check_enum(value, path, SYSCALL_GROUP_VALUES)


def _tree_digest(value: object, path: str) -> str:
    """A tree digest: SHA-256 over the canonical JSON of the folder's files
    (docs/decisions/identities.md).
    """
    return check_string(value, path, pattern=r"^sha256:[0-9a-f]{64}$")


class AttemptRecord:
    """Metewand attempt record.

    What metewand run records about one attempt, written canonically and atomically as
    attempt.json. Every field is present; a field is null where the session that would fill it
    did not run or did not get that far. Durations are integer nanoseconds measured by the
    executor's monotonic clock; timestamps are RFC 3339 UTC.
    """

    __slots__ = (
        "campaign",
        "dataset",
        "evaluator",
        "failure",
        "finished_at",
        "implementation",
        "logs",
        "metewand_version",
        "metrics",
        "outcome",
        "phases",
        "problem",
        "repository",
        "started_at",
        "verdict",
    )

    campaign: Campaign | None
    """The campaign the attempt ran in; null for an attempt run alone (metewand run)."""

    dataset: Dataset
    """The dataset the attempt ran on."""

    evaluator: WorkerSession
    """A worker session: the resolved identity, and what the worker reported in hello (capabilities
    is null when the handshake did not complete; sdk is null for a direct protocol worker or when
    the handshake did not complete). identity (what worker_id is the digest of) is absent from
    records written before it was recorded; program is recorded once the worker answered hello,
    when the executor could read it (a program over 512 MiB is not hashed), and environment with
    it when that program is Python; confinement is recorded once the worker started, resources
    when its session shut down cleanly (never for a reused session), session (for an evaluator)
    once it answered hello; each is absent otherwise.
    """

    failure: AttemptFailure | None
    """What ended the attempt: the role and phase it is attributed to (null for the executor's own
    failures), its kind and message, and the worker's code and details when it sent them.
    """

    finished_at: str
    """An RFC 3339 timestamp in UTC."""

    implementation: Implementation
    """The implementation attempted: its identity, what it reported and was selected for, its
    parameters and seed, the worker-reported time (diagnostic only), its statistics and its
    validated result files. identity (what worker_id is the digest of) is absent from records
    written before it was recorded; program is recorded once the worker answered hello, when the
    executor could read it (a program over 512 MiB is not hashed), and environment with it when
    that program is Python; confinement and cpus are recorded once the worker started, resources
    when its session shut down cleanly (never for a reused session, which serves more than one
    attempt); session once the worker answered hello; profile once every checkpoint of a streamed
    execution was judged; each is absent otherwise. origin is present only for an implementation
    from outside the benchmark repository.
    """

    logs: Logs
    """Each role's stderr log, relative to the attempt folder; null for a session that did not
    run.
    """

    metewand_version: str
    """The version of Metewand that ran the attempt."""

    metrics: dict[str, Any] | None
    """A JSON object whose members this schema does not constrain."""

    outcome: Outcome
    """How the attempt ended: the validated verdict when every session succeeded, otherwise failed
    or cancelled.
    """

    phases: list[PhaseRecord]
    """One entry per request sent, in the order they were sent."""

    problem: Problem
    """The problem posed; timed is what reports and comparisons rank the implementation by (its
    [problems.P] timed: execute, or prepare+execute), absent from records written before it was
    recorded (read as execute).
    """

    repository: str
    """The benchmark repository's canonical absolute path."""

    started_at: str
    """An RFC 3339 timestamp in UTC."""

    verdict: Verdict | None
    """The problem-owned verdict on an implementation's result."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = (
        "campaign",
        "dataset",
        "evaluator",
        "failure",
        "finished_at",
        "implementation",
        "logs",
        "metewand_version",
        "metrics",
        "outcome",
        "phases",
        "problem",
        "repository",
        "started_at",
        "verdict",
    )

    def __init__(
        self,
        *,
        campaign: Campaign | None,
        dataset: Dataset,
        evaluator: WorkerSession,
        failure: AttemptFailure | None,
        finished_at: str,
        implementation: Implementation,
        logs: Logs,
        metewand_version: str,
        metrics: dict[str, Any] | None,
        outcome: Outcome,
        phases: list[PhaseRecord],
        problem: Problem,
        repository: str,
        started_at: str,
        verdict: Verdict | None,
    ) -> None:
        self.campaign = None if campaign is None else check_model(campaign, "/campaign", Campaign)
        self.dataset = check_model(dataset, "/dataset", Dataset)
        self.evaluator = check_model(evaluator, "/evaluator", WorkerSession)
        self.failure = None if failure is None else check_model(failure, "/failure", AttemptFailure)
        self.finished_at = _timestamp(finished_at, "/finished_at")
        self.implementation = check_model(implementation, "/implementation", Implementation)
        self.logs = check_model(logs, "/logs", Logs)
        self.metewand_version = check_string(metewand_version, "/metewand_version", min_length=1)
        self.metrics = None if metrics is None else check_json_object(metrics, "/metrics")
        self.outcome = _outcome(outcome, "/outcome")
        self.phases = check_array(phases, "/phases", check_model, PhaseRecord)
        self.problem = check_model(problem, "/problem", Problem)
        self.repository = check_string(repository, "/repository", min_length=1)
        self.started_at = _timestamp(started_at, "/started_at")
        self.verdict = None if verdict is None else _verdict(verdict, "/verdict")

    @classmethod
    def from_dict(cls, data: object) -> AttemptRecord:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> AttemptRecord:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.campaign = (
            None
            if fields["campaign"] is None
            else Campaign._decode(fields["campaign"], path + "/campaign")
        )
        model.dataset = Dataset._decode(fields["dataset"], path + "/dataset")
        model.evaluator = WorkerSession._decode(fields["evaluator"], path + "/evaluator")
        model.failure = (
            None
            if fields["failure"] is None
            else AttemptFailure._decode(fields["failure"], path + "/failure")
        )
        model.finished_at = _timestamp(fields["finished_at"], path + "/finished_at")
        model.implementation = Implementation._decode(
            fields["implementation"], path + "/implementation"
        )
        model.logs = Logs._decode(fields["logs"], path + "/logs")
        model.metewand_version = check_string(
            fields["metewand_version"], path + "/metewand_version", min_length=1
        )
        model.metrics = (
            None
            if fields["metrics"] is None
            else check_json_object(fields["metrics"], path + "/metrics")
        )
        model.outcome = _outcome(fields["outcome"], path + "/outcome")
        model.phases = check_array(fields["phases"], path + "/phases", PhaseRecord._decode)
        model.problem = Problem._decode(fields["problem"], path + "/problem")
        model.repository = check_string(fields["repository"], path + "/repository", min_length=1)
        model.started_at = _timestamp(fields["started_at"], path + "/started_at")
        model.verdict = (
            None if fields["verdict"] is None else _verdict(fields["verdict"], path + "/verdict")
        )
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {
            "campaign": None if self.campaign is None else self.campaign.to_dict(),
            "dataset": self.dataset.to_dict(),
            "evaluator": self.evaluator.to_dict(),
            "failure": None if self.failure is None else self.failure.to_dict(),
            "finished_at": self.finished_at,
            "implementation": self.implementation.to_dict(),
            "logs": self.logs.to_dict(),
            "metewand_version": self.metewand_version,
            "metrics": None if self.metrics is None else dict(self.metrics),
            "outcome": self.outcome,
            "phases": [item.to_dict() for item in self.phases],
            "problem": self.problem.to_dict(),
            "repository": self.repository,
            "started_at": self.started_at,
            "verdict": self.verdict,
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AttemptRecord):
            return NotImplemented
        return (
            self.campaign == other.campaign
            and self.dataset == other.dataset
            and self.evaluator == other.evaluator
            and self.failure == other.failure
            and self.finished_at == other.finished_at
            and self.implementation == other.implementation
            and self.logs == other.logs
            and self.metewand_version == other.metewand_version
            and self.metrics == other.metrics
            and self.outcome == other.outcome
            and self.phases == other.phases
            and self.problem == other.problem
            and self.repository == other.repository
            and self.started_at == other.started_at
            and self.verdict == other.verdict
        )

    def __repr__(self) -> str:
        return (
            f"AttemptRecord(campaign={self.campaign!r}, dataset={self.dataset!r}, "
            f"evaluator={self.evaluator!r}, failure={self.failure!r}, "
            f"finished_at={self.finished_at!r}, implementation={self.implementation!r}, "
            f"logs={self.logs!r}, metewand_version={self.metewand_version!r}, "
            f"metrics={self.metrics!r}, outcome={self.outcome!r}, phases={self.phases!r}, "
            f"problem={self.problem!r}, repository={self.repository!r}, "
            f"started_at={self.started_at!r}, verdict={self.verdict!r})"
        )


class AttemptFailure:
    """What ended the attempt: the role and phase it is attributed to (null for the executor's own
    failures), its kind and message, and the worker's code and details when it sent them.
    """

    __slots__ = ("code", "details", "kind", "message", "phase", "role")

    code: FailureCode | None
    """A worker-owned failure code."""

    details: dict[str, Any] | None
    """A JSON object whose members this schema does not constrain."""

    kind: FailureKind
    """What ended a failed or cancelled attempt."""

    message: str
    """A message for the reader: what failed, in words."""

    phase: Phase | None
    """A phase of a worker session, named after its request's method."""

    role: Role | None
    """The role a worker process serves."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("code", "details", "kind", "message", "phase", "role")

    def __init__(
        self,
        *,
        code: FailureCode | None,
        details: dict[str, Any] | None,
        kind: FailureKind,
        message: str,
        phase: Phase | None,
        role: Role | None,
    ) -> None:
        self.code = None if code is None else _failure_code(code, "/code")
        self.details = None if details is None else check_json_object(details, "/details")
        self.kind = _failure_kind(kind, "/kind")
        self.message = _message(message, "/message")
        self.phase = None if phase is None else _phase(phase, "/phase")
        self.role = None if role is None else _role(role, "/role")

    @classmethod
    def from_dict(cls, data: object) -> AttemptFailure:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> AttemptFailure:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.code = (
            None if fields["code"] is None else _failure_code(fields["code"], path + "/code")
        )
        model.details = (
            None
            if fields["details"] is None
            else check_json_object(fields["details"], path + "/details")
        )
        model.kind = _failure_kind(fields["kind"], path + "/kind")
        model.message = _message(fields["message"], path + "/message")
        model.phase = None if fields["phase"] is None else _phase(fields["phase"], path + "/phase")
        model.role = None if fields["role"] is None else _role(fields["role"], path + "/role")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {
            "code": self.code,
            "details": None if self.details is None else dict(self.details),
            "kind": self.kind,
            "message": self.message,
            "phase": self.phase,
            "role": self.role,
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AttemptFailure):
            return NotImplemented
        return (
            self.code == other.code
            and self.details == other.details
            and self.kind == other.kind
            and self.message == other.message
            and self.phase == other.phase
            and self.role == other.role
        )

    def __repr__(self) -> str:
        return (
            f"AttemptFailure(code={self.code!r}, details={self.details!r}, kind={self.kind!r}, "
            f"message={self.message!r}, phase={self.phase!r}, role={self.role!r})"
        )


class Campaign:
    """Which campaign ([campaigns.NAME], or ad-hoc when built from flags alone), attempt and
    repetition (from 1) an attempt is, and how many attempts the campaign ran at once
    (concurrency, -j).
    """

    __slots__ = ("attempt_id", "concurrency", "name", "repetition")

    attempt_id: str
    """A campaign attempt's stable id: SHA-256 of the canonical preimage of its cell and
    repetition.
    """

    concurrency: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    name: str
    """A name the repository's manifest gives: a dataset's, an implementation's, a problem's or a
    campaign's.
    """

    repetition: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("attempt_id", "concurrency", "name", "repetition")

    def __init__(self, *, attempt_id: str, concurrency: int, name: str, repetition: int) -> None:
        self.attempt_id = _attempt_id(attempt_id, "/attempt_id")
        self.concurrency = _safe_uint(concurrency, "/concurrency")
        self.name = _name(name, "/name")
        self.repetition = _safe_uint(repetition, "/repetition")

    @classmethod
    def from_dict(cls, data: object) -> Campaign:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Campaign:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.attempt_id = _attempt_id(fields["attempt_id"], path + "/attempt_id")
        model.concurrency = _safe_uint(fields["concurrency"], path + "/concurrency")
        model.name = _name(fields["name"], path + "/name")
        model.repetition = _safe_uint(fields["repetition"], path + "/repetition")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {
            "attempt_id": self.attempt_id,
            "concurrency": self.concurrency,
            "name": self.name,
            "repetition": self.repetition,
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Campaign):
            return NotImplemented
        return (
            self.attempt_id == other.attempt_id
            and self.concurrency == other.concurrency
            and self.name == other.name
            and self.repetition == other.repetition
        )

    def __repr__(self) -> str:
        return (
            f"Campaign(attempt_id={self.attempt_id!r}, concurrency={self.concurrency!r}, "
            f"name={self.name!r}, repetition={self.repetition!r})"
        )


class Confinement:
    """What the kernel stopped a worker from doing (ARCHITECTURE.md, Confinement): Landlock
    filesystem rules (with the kernel's ABI) or none; the network: a namespace of the worker's
    own with only loopback, TCP denied (Landlock TCP rules without a namespace), allowed (the
    worker declared network = true) or unrestricted; processes in their own PID namespace or
    found by the sweep, and user_namespace true when that PID namespace was made inside a user
    namespace of the worker's own mapping the orchestrator's uid and gid (how it is made without
    CAP_SYS_ADMIN); signals and abstract unix sockets scoped to the worker's domain or not;
    System V IPC and POSIX queues in an IPC namespace of the worker's own or the host's;
    capabilities none (every set emptied, no_new_privs) or kept; mounts private (a mount
    namespace hiding the state, the repository and the host's temporary and runtime folders,
    showing the worker's own inputs and outputs and a /proc of its PID namespace) or host.;
    limits: each resource limit of the session with its value (null for none) and how it was
    enforced (resource_limits).; syscall_filter: the system call filter (default: clone3,
    io_uring, keyrings beyond the session's own, bpf, perf_event_open, userfaultfd, kexec,
    module, swap and reboot calls refused, and memfds and System V objects where a memory limit
    needs it) or none, and syscalls the groups of calls the worker declared, which its filter
    allowed; user: the host uid and gid the worker ran as (run by root, an identity of its own,
    never 0 where root could give it one). user_namespace, ipc, capabilities, mounts, limits,
    syscall_filter, syscalls and user are absent from records written before they were recorded.
    """

    __slots__ = (
        "capabilities",
        "filesystem",
        "ipc",
        "landlock_abi",
        "limits",
        "mounts",
        "network",
        "processes",
        "signals",
        "syscall_filter",
        "syscalls",
        "user",
        "user_namespace",
    )

    capabilities: Literal["none", "kept"] | None

    filesystem: Literal["landlock", "none"]

    ipc: Literal["namespace", "host"] | None

    landlock_abi: int | None
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    limits: ResourceLimits | None
    """A session's resource limits ([limits] in metewand.toml): memory_bytes, the address space of
    each of the worker's processes; processes, the tasks its PID namespace may hold;
    output_bytes, what its output folder and TMPDIR may take together.
    """

    mounts: Literal["private", "host"] | None

    network: Literal["namespace", "denied", "allowed", "unrestricted"]

    processes: Literal["pid-namespace", "sweep"]

    signals: Literal["scoped", "unscoped"]

    syscall_filter: Literal["default", "none"] | None

    syscalls: list[SyscallGroup] | None
    """Groups of system calls a worker declared (metewand.toml's syscalls), each at most once."""

    user: HostUser | None
    """A host user and group id (the identity a worker ran as)."""

    user_namespace: bool | None

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("filesystem", "landlock_abi", "network", "processes", "signals")

    def __init__(
        self,
        *,
        capabilities: Literal["none", "kept"] | None = None,
        filesystem: Literal["landlock", "none"],
        ipc: Literal["namespace", "host"] | None = None,
        landlock_abi: int | None,
        limits: ResourceLimits | None = None,
        mounts: Literal["private", "host"] | None = None,
        network: Literal["namespace", "denied", "allowed", "unrestricted"],
        processes: Literal["pid-namespace", "sweep"],
        signals: Literal["scoped", "unscoped"],
        syscall_filter: Literal["default", "none"] | None = None,
        syscalls: list[SyscallGroup] | None = None,
        user: HostUser | None = None,
        user_namespace: bool | None = None,
    ) -> None:
        self.capabilities = (
            None
            if capabilities is None
            else check_enum(capabilities, "/capabilities", _CONFINEMENT_CAPABILITIES_VALUES)
        )
        self.filesystem = check_enum(filesystem, "/filesystem", _CONFINEMENT_FILESYSTEM_VALUES)
        self.ipc = None if ipc is None else check_enum(ipc, "/ipc", _CONFINEMENT_IPC_VALUES)
        self.landlock_abi = (
            None if landlock_abi is None else _safe_uint(landlock_abi, "/landlock_abi")
        )
        self.limits = None if limits is None else check_model(limits, "/limits", ResourceLimits)
        self.mounts = (
            None if mounts is None else check_enum(mounts, "/mounts", _CONFINEMENT_MOUNTS_VALUES)
        )
        self.network = check_enum(network, "/network", _CONFINEMENT_NETWORK_VALUES)
        self.processes = check_enum(processes, "/processes", _CONFINEMENT_PROCESSES_VALUES)
        self.signals = check_enum(signals, "/signals", _CONFINEMENT_SIGNALS_VALUES)
        self.syscall_filter = (
            None
            if syscall_filter is None
            else check_enum(syscall_filter, "/syscall_filter", _CONFINEMENT_SYSCALL_FILTER_VALUES)
        )
        self.syscalls = (
            None
            if syscalls is None
            else check_array(syscalls, "/syscalls", _syscall_group, unique=True)
        )
        self.user = None if user is None else check_model(user, "/user", HostUser)
        self.user_namespace = (
            None if user_namespace is None else check_boolean(user_namespace, "/user_namespace")
        )

    @classmethod
    def from_dict(cls, data: object) -> Confinement:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Confinement:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        if "capabilities" in fields:
            model.capabilities = check_enum(
                fields["capabilities"], path + "/capabilities", _CONFINEMENT_CAPABILITIES_VALUES
            )
        else:
            model.capabilities = None
        model.filesystem = check_enum(
            fields["filesystem"], path + "/filesystem", _CONFINEMENT_FILESYSTEM_VALUES
        )
        if "ipc" in fields:
            model.ipc = check_enum(fields["ipc"], path + "/ipc", _CONFINEMENT_IPC_VALUES)
        else:
            model.ipc = None
        model.landlock_abi = (
            None
            if fields["landlock_abi"] is None
            else _safe_uint(fields["landlock_abi"], path + "/landlock_abi")
        )
        if "limits" in fields:
            model.limits = ResourceLimits._decode(fields["limits"], path + "/limits")
        else:
            model.limits = None
        if "mounts" in fields:
            model.mounts = check_enum(
                fields["mounts"], path + "/mounts", _CONFINEMENT_MOUNTS_VALUES
            )
        else:
            model.mounts = None
        model.network = check_enum(
            fields["network"], path + "/network", _CONFINEMENT_NETWORK_VALUES
        )
        model.processes = check_enum(
            fields["processes"], path + "/processes", _CONFINEMENT_PROCESSES_VALUES
        )
        model.signals = check_enum(
            fields["signals"], path + "/signals", _CONFINEMENT_SIGNALS_VALUES
        )
        if "syscall_filter" in fields:
            model.syscall_filter = check_enum(
                fields["syscall_filter"],
                path + "/syscall_filter",
                _CONFINEMENT_SYSCALL_FILTER_VALUES,
            )
        else:
            model.syscall_filter = None
        if "syscalls" in fields:
            model.syscalls = check_array(
                fields["syscalls"], path + "/syscalls", _syscall_group, unique=True
            )
        else:
            model.syscalls = None
        if "user" in fields:
            model.user = HostUser._decode(fields["user"], path + "/user")
        else:
            model.user = None
        if "user_namespace" in fields:
            model.user_namespace = check_boolean(fields["user_namespace"], path + "/user_namespace")
        else:
            model.user_namespace = None
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        data: dict[str, Any] = {}
        if self.capabilities is not None:
            data["capabilities"] = self.capabilities
        data["filesystem"] = self.filesystem
        if self.ipc is not None:
            data["ipc"] = self.ipc
        data["landlock_abi"] = self.landlock_abi
        if self.limits is not None:
            data["limits"] = self.limits.to_dict()
        if self.mounts is not None:
            data["mounts"] = self.mounts
        data["network"] = self.network
        data["processes"] = self.processes
        data["signals"] = self.signals
        if self.syscall_filter is not None:
            data["syscall_filter"] = self.syscall_filter
        if self.syscalls is not None:
            data["syscalls"] = list(self.syscalls)
        if self.user is not None:
            data["user"] = self.user.to_dict()
        if self.user_namespace is not None:
            data["user_namespace"] = self.user_namespace
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Confinement):
            return NotImplemented
        return (
            self.capabilities == other.capabilities
            and self.filesystem == other.filesystem
            and self.ipc == other.ipc
            and self.landlock_abi == other.landlock_abi
            and self.limits == other.limits
            and self.mounts == other.mounts
            and self.network == other.network
            and self.processes == other.processes
            and self.signals == other.signals
            and self.syscall_filter == other.syscall_filter
            and self.syscalls == other.syscalls
            and self.user == other.user
            and self.user_namespace == other.user_namespace
        )

    def __repr__(self) -> str:
        return (
            f"Confinement(capabilities={self.capabilities!r}, filesystem={self.filesystem!r}, "
            f"ipc={self.ipc!r}, landlock_abi={self.landlock_abi!r}, limits={self.limits!r}, "
            f"mounts={self.mounts!r}, network={self.network!r}, processes={self.processes!r}, "
            f"signals={self.signals!r}, syscall_filter={self.syscall_filter!r}, "
            f"syscalls={self.syscalls!r}, user={self.user!r}, "
            f"user_namespace={self.user_namespace!r})"
        )


class Cpus:
    """The CPUs the implementation's worker was started on (its affinity), ascending, and how it was
    held there: locked (chosen for its campaign slot, and a seccomp filter refuses
    sched_setaffinity, so no process of the worker can leave them), advisory (chosen, but the
    worker could change its affinity), inherited (none chosen: the executor's own CPUs, as with
    -j 1).
    """

    __slots__ = ("binding", "list")

    binding: Literal["locked", "advisory", "inherited"]

    list: builtins.list[int]
    """CPU numbers, ascending, at least one, each at most once."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("binding", "list")

    def __init__(
        self, *, binding: Literal["locked", "advisory", "inherited"], list: builtins.list[int]
    ) -> None:
        self.binding = check_enum(binding, "/binding", _CPUS_BINDING_VALUES)
        self.list = check_array(list, "/list", _safe_uint, min_items=1, unique=True)

    @classmethod
    def from_dict(cls, data: object) -> Cpus:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Cpus:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.binding = check_enum(fields["binding"], path + "/binding", _CPUS_BINDING_VALUES)
        model.list = check_array(
            fields["list"], path + "/list", _safe_uint, min_items=1, unique=True
        )
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {"binding": self.binding, "list": list(self.list)}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Cpus):
            return NotImplemented
        return self.binding == other.binding and self.list == other.list

    def __repr__(self) -> str:
        return f"Cpus(binding={self.binding!r}, list={self.list!r})"


class Dataset:
    """The dataset the attempt ran on."""

    __slots__ = ("files", "key", "materializer", "name", "parameters", "reused", "seed")

    files: list[FileRecord] | None
    """The validated files of an artifact, in UTF-8 byte order of their paths."""

    key: str
    """A lowercase hexadecimal SHA-256 digest."""

    materializer: WorkerSession
    """A worker session: the resolved identity, and what the worker reported in hello (capabilities
    is null when the handshake did not complete; sdk is null for a direct protocol worker or when
    the handshake did not complete). identity (what worker_id is the digest of) is absent from
    records written before it was recorded; program is recorded once the worker answered hello,
    when the executor could read it (a program over 512 MiB is not hashed), and environment with
    it when that program is Python; confinement is recorded once the worker started, resources
    when its session shut down cleanly (never for a reused session), session (for an evaluator)
    once it answered hello; each is absent otherwise.
    """

    name: str
    """A name the repository's manifest gives: a dataset's, an implementation's, a problem's or a
    campaign's.
    """

    parameters: dict[str, Any]
    """A JSON object whose members this schema does not constrain."""

    reused: bool | None
    """Whether a verified dataset from the store was used instead of materializing one; null when
    the store was not consulted.
    """

    seed: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("files", "key", "materializer", "name", "parameters", "reused", "seed")

    def __init__(
        self,
        *,
        files: list[FileRecord] | None,
        key: str,
        materializer: WorkerSession,
        name: str,
        parameters: dict[str, Any],
        reused: bool | None,
        seed: int,
    ) -> None:
        self.files = (
            None if files is None else check_array(files, "/files", check_model, FileRecord)
        )
        self.key = _sha256(key, "/key")
        self.materializer = check_model(materializer, "/materializer", WorkerSession)
        self.name = _name(name, "/name")
        self.parameters = check_json_object(parameters, "/parameters")
        self.reused = None if reused is None else check_boolean(reused, "/reused")
        self.seed = _safe_uint(seed, "/seed")

    @classmethod
    def from_dict(cls, data: object) -> Dataset:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Dataset:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.files = (
            None
            if fields["files"] is None
            else check_array(fields["files"], path + "/files", FileRecord._decode)
        )
        model.key = _sha256(fields["key"], path + "/key")
        model.materializer = WorkerSession._decode(fields["materializer"], path + "/materializer")
        model.name = _name(fields["name"], path + "/name")
        model.parameters = check_json_object(fields["parameters"], path + "/parameters")
        model.reused = (
            None if fields["reused"] is None else check_boolean(fields["reused"], path + "/reused")
        )
        model.seed = _safe_uint(fields["seed"], path + "/seed")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {
            "files": None if self.files is None else [item.to_dict() for item in self.files],
            "key": self.key,
            "materializer": self.materializer.to_dict(),
            "name": self.name,
            "parameters": dict(self.parameters),
            "reused": self.reused,
            "seed": self.seed,
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Dataset):
            return NotImplemented
        return (
            self.files == other.files
            and self.key == other.key
            and self.materializer == other.materializer
            and self.name == other.name
            and self.parameters == other.parameters
            and self.reused == other.reused
            and self.seed == other.seed
        )

    def __repr__(self) -> str:
        return (
            f"Dataset(files={self.files!r}, key={self.key!r}, materializer={self.materializer!r}, "
            f"name={self.name!r}, parameters={self.parameters!r}, reused={self.reused!r}, "
            f"seed={self.seed!r})"
        )


class HostUser:
    """A host user and group id (the identity a worker ran as)."""

    __slots__ = ("gid", "uid")

    gid: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    uid: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("gid", "uid")

    def __init__(self, *, gid: int, uid: int) -> None:
        self.gid = _safe_uint(gid, "/gid")
        self.uid = _safe_uint(uid, "/uid")

    @classmethod
    def from_dict(cls, data: object) -> HostUser:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> HostUser:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.gid = _safe_uint(fields["gid"], path + "/gid")
        model.uid = _safe_uint(fields["uid"], path + "/uid")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {"gid": self.gid, "uid": self.uid}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HostUser):
            return NotImplemented
        return self.gid == other.gid and self.uid == other.uid

    def __repr__(self) -> str:
        return f"HostUser(gid={self.gid!r}, uid={self.uid!r})"


class Implementation:
    """The implementation attempted: its identity, what it reported and was selected for, its
    parameters and seed, the worker-reported time (diagnostic only), its statistics and its
    validated result files. identity (what worker_id is the digest of) is absent from records
    written before it was recorded; program is recorded once the worker answered hello, when the
    executor could read it (a program over 512 MiB is not hashed), and environment with it when
    that program is Python; confinement and cpus are recorded once the worker started, resources
    when its session shut down cleanly (never for a reused session, which serves more than one
    attempt); session once the worker answered hello; profile once every checkpoint of a streamed
    execution was judged; each is absent otherwise. origin is present only for an implementation
    from outside the benchmark repository.
    """

    __slots__ = (
        "capabilities",
        "confinement",
        "cpus",
        "environment",
        "files",
        "identity",
        "implementation_time_ns",
        "name",
        "origin",
        "parameters",
        "profile",
        "program",
        "resources",
        "sdk",
        "seed",
        "selected",
        "session",
        "statistics",
        "worker_id",
    )

    capabilities: list[Capability] | None
    """Capability names, each at most once."""

    confinement: Confinement | None
    """What the kernel stopped a worker from doing (ARCHITECTURE.md, Confinement): Landlock
    filesystem rules (with the kernel's ABI) or none; the network: a namespace of the worker's
    own with only loopback, TCP denied (Landlock TCP rules without a namespace), allowed (the
    worker declared network = true) or unrestricted; processes in their own PID namespace or
    found by the sweep, and user_namespace true when that PID namespace was made inside a user
    namespace of the worker's own mapping the orchestrator's uid and gid (how it is made without
    CAP_SYS_ADMIN); signals and abstract unix sockets scoped to the worker's domain or not;
    System V IPC and POSIX queues in an IPC namespace of the worker's own or the host's;
    capabilities none (every set emptied, no_new_privs) or kept; mounts private (a mount
    namespace hiding the state, the repository and the host's temporary and runtime folders,
    showing the worker's own inputs and outputs and a /proc of its PID namespace) or host.;
    limits: each resource limit of the session with its value (null for none) and how it was
    enforced (resource_limits).; syscall_filter: the system call filter (default: clone3,
    io_uring, keyrings beyond the session's own, bpf, perf_event_open, userfaultfd, kexec,
    module, swap and reboot calls refused, and memfds and System V objects where a memory limit
    needs it) or none, and syscalls the groups of calls the worker declared, which its filter
    allowed; user: the host uid and gid the worker ran as (run by root, an identity of its own,
    never 0 where root could give it one). user_namespace, ipc, capabilities, mounts, limits,
    syscall_filter, syscalls and user are absent from records written before they were recorded.
    """

    cpus: Cpus | None
    """The CPUs the implementation's worker was started on (its affinity), ascending, and how it was
    held there: locked (chosen for its campaign slot, and a seccomp filter refuses
    sched_setaffinity, so no process of the worker can leave them), advisory (chosen, but the
    worker could change its affinity), inherited (none chosen: the executor's own CPUs, as with
    -j 1).
    """

    environment: PythonEnvironment | None
    """The Python distributions a worker imports, recorded when its program is a Python interpreter
    or a script run by one (docs/decisions/environments.md): the site-packages folders read (a
    virtual environment's, else the interpreter's prefix's), each dist-info folder's name and
    version from METADATA and the SHA-256 of its RECORD file, sorted by normalized name, and
    digest, the SHA-256 of the canonical JSON of [{name, record_sha256, version}, ...] in that
    order; absent for a program that is not Python and in records written before environments
    were recorded.
    """

    files: list[FileRecord] | None
    """The validated files of an artifact, in UTF-8 byte order of their paths."""

    identity: WorkerIdentity | None
    """What worker_id is the digest of (docs/decisions/identities.md): command and env as declared
    (before ${repo} expansion; env maps names to strings), source the source directory's tree
    digest, include each include folder as declared to its tree digest, network when the worker
    declared it, and environment, the digest of the Python environment its interpreter imports
    (or of its python.requirements declaration, when it has one), when it declared identity =
    [\"environment\"]. Kept so that a reader can say which part of a worker changed between two
    records.
    """

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

    parameters: dict[str, Any]
    """A JSON object whose members this schema does not constrain."""

    profile: list[ProfilePoint] | None
    """With streaming_profile selected: every checkpoint the implementation streamed, in order, each
    validated like a result and judged by the evaluator. Present once every checkpoint was
    judged, absent otherwise.
    """

    program: WorkerProgram | None
    """The program the worker's process was running when it answered hello, as the executor found
    it: the path the kernel names for /proc/<pid>/exe, that file's SHA-256, and path_match, the
    PATH match of the command's first word (or the absolute path it names), when that is another
    path (a link such as a virtual environment's python3, a script, a shim); path_match is absent
    when the command names its program by a relative path, inside the worker's source, which
    worker_id already covers.
    """

    resources: Resources | None
    """A worker's resource use as wait4 reports it when it is reaped: user and system CPU time (its
    own and its waited-for descendants') and peak resident memory.
    """

    sdk: SdkInfo | None
    """The worker SDK that answered hello, by package name and version."""

    seed: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    selected: list[Capability]
    """Capability names, each at most once."""

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

    statistics: dict[str, Any] | None
    """A JSON object whose members this schema does not constrain."""

    worker_id: str
    """A resolved worker identity."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = (
        "capabilities",
        "files",
        "implementation_time_ns",
        "name",
        "parameters",
        "sdk",
        "seed",
        "selected",
        "statistics",
        "worker_id",
    )

    def __init__(
        self,
        *,
        capabilities: list[Capability] | None,
        confinement: Confinement | None = None,
        cpus: Cpus | None = None,
        environment: PythonEnvironment | None = None,
        files: list[FileRecord] | None,
        identity: WorkerIdentity | None = None,
        implementation_time_ns: int | None,
        name: str,
        origin: Origin | None = None,
        parameters: dict[str, Any],
        profile: list[ProfilePoint] | None = None,
        program: WorkerProgram | None = None,
        resources: Resources | None = None,
        sdk: SdkInfo | None,
        seed: int,
        selected: list[Capability],
        session: Session | None = None,
        statistics: dict[str, Any] | None,
        worker_id: str,
    ) -> None:
        self.capabilities = (
            None
            if capabilities is None
            else check_array(capabilities, "/capabilities", _capability, unique=True)
        )
        self.confinement = (
            None if confinement is None else check_model(confinement, "/confinement", Confinement)
        )
        self.cpus = None if cpus is None else check_model(cpus, "/cpus", Cpus)
        self.environment = (
            None
            if environment is None
            else check_model(environment, "/environment", PythonEnvironment)
        )
        self.files = (
            None if files is None else check_array(files, "/files", check_model, FileRecord)
        )
        self.identity = (
            None if identity is None else check_model(identity, "/identity", WorkerIdentity)
        )
        self.implementation_time_ns = (
            None
            if implementation_time_ns is None
            else _safe_uint(implementation_time_ns, "/implementation_time_ns")
        )
        self.name = _name(name, "/name")
        self.origin = None if origin is None else check_model(origin, "/origin", Origin)
        self.parameters = check_json_object(parameters, "/parameters")
        self.profile = (
            None if profile is None else check_array(profile, "/profile", check_model, ProfilePoint)
        )
        self.program = None if program is None else check_model(program, "/program", WorkerProgram)
        self.resources = (
            None if resources is None else check_model(resources, "/resources", Resources)
        )
        self.sdk = None if sdk is None else check_model(sdk, "/sdk", SdkInfo)
        self.seed = _safe_uint(seed, "/seed")
        self.selected = check_array(selected, "/selected", _capability, unique=True)
        self.session = None if session is None else check_model(session, "/session", Session)
        self.statistics = (
            None if statistics is None else check_json_object(statistics, "/statistics")
        )
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
        model.capabilities = (
            None
            if fields["capabilities"] is None
            else check_array(
                fields["capabilities"], path + "/capabilities", _capability, unique=True
            )
        )
        if "confinement" in fields:
            model.confinement = Confinement._decode(fields["confinement"], path + "/confinement")
        else:
            model.confinement = None
        if "cpus" in fields:
            model.cpus = Cpus._decode(fields["cpus"], path + "/cpus")
        else:
            model.cpus = None
        if "environment" in fields:
            model.environment = PythonEnvironment._decode(
                fields["environment"], path + "/environment"
            )
        else:
            model.environment = None
        model.files = (
            None
            if fields["files"] is None
            else check_array(fields["files"], path + "/files", FileRecord._decode)
        )
        if "identity" in fields:
            model.identity = WorkerIdentity._decode(fields["identity"], path + "/identity")
        else:
            model.identity = None
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
        model.parameters = check_json_object(fields["parameters"], path + "/parameters")
        if "profile" in fields:
            model.profile = check_array(fields["profile"], path + "/profile", ProfilePoint._decode)
        else:
            model.profile = None
        if "program" in fields:
            model.program = WorkerProgram._decode(fields["program"], path + "/program")
        else:
            model.program = None
        if "resources" in fields:
            model.resources = Resources._decode(fields["resources"], path + "/resources")
        else:
            model.resources = None
        model.sdk = None if fields["sdk"] is None else SdkInfo._decode(fields["sdk"], path + "/sdk")
        model.seed = _safe_uint(fields["seed"], path + "/seed")
        model.selected = check_array(
            fields["selected"], path + "/selected", _capability, unique=True
        )
        if "session" in fields:
            model.session = Session._decode(fields["session"], path + "/session")
        else:
            model.session = None
        model.statistics = (
            None
            if fields["statistics"] is None
            else check_json_object(fields["statistics"], path + "/statistics")
        )
        model.worker_id = _worker_id(fields["worker_id"], path + "/worker_id")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        data: dict[str, Any] = {
            "capabilities": None if self.capabilities is None else list(self.capabilities),
        }
        if self.confinement is not None:
            data["confinement"] = self.confinement.to_dict()
        if self.cpus is not None:
            data["cpus"] = self.cpus.to_dict()
        if self.environment is not None:
            data["environment"] = self.environment.to_dict()
        data["files"] = None if self.files is None else [item.to_dict() for item in self.files]
        if self.identity is not None:
            data["identity"] = self.identity.to_dict()
        data["implementation_time_ns"] = self.implementation_time_ns
        data["name"] = self.name
        if self.origin is not None:
            data["origin"] = self.origin.to_dict()
        data["parameters"] = dict(self.parameters)
        if self.profile is not None:
            data["profile"] = [item.to_dict() for item in self.profile]
        if self.program is not None:
            data["program"] = self.program.to_dict()
        if self.resources is not None:
            data["resources"] = self.resources.to_dict()
        data["sdk"] = None if self.sdk is None else self.sdk.to_dict()
        data["seed"] = self.seed
        data["selected"] = list(self.selected)
        if self.session is not None:
            data["session"] = self.session.to_dict()
        data["statistics"] = None if self.statistics is None else dict(self.statistics)
        data["worker_id"] = self.worker_id
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Implementation):
            return NotImplemented
        return (
            self.capabilities == other.capabilities
            and self.confinement == other.confinement
            and self.cpus == other.cpus
            and self.environment == other.environment
            and self.files == other.files
            and self.identity == other.identity
            and self.implementation_time_ns == other.implementation_time_ns
            and self.name == other.name
            and self.origin == other.origin
            and self.parameters == other.parameters
            and self.profile == other.profile
            and self.program == other.program
            and self.resources == other.resources
            and self.sdk == other.sdk
            and self.seed == other.seed
            and self.selected == other.selected
            and self.session == other.session
            and self.statistics == other.statistics
            and self.worker_id == other.worker_id
        )

    def __repr__(self) -> str:
        return (
            f"Implementation(capabilities={self.capabilities!r}, confinement={self.confinement!r}, "
            f"cpus={self.cpus!r}, environment={self.environment!r}, files={self.files!r}, "
            f"identity={self.identity!r}, implementation_time_ns={self.implementation_time_ns!r}, "
            f"name={self.name!r}, origin={self.origin!r}, parameters={self.parameters!r}, "
            f"profile={self.profile!r}, program={self.program!r}, resources={self.resources!r}, "
            f"sdk={self.sdk!r}, seed={self.seed!r}, selected={self.selected!r}, "
            f"session={self.session!r}, statistics={self.statistics!r}, "
            f"worker_id={self.worker_id!r})"
        )


class Logs:
    """Each role's stderr log, relative to the attempt folder; null for a session that did not
    run.
    """

    __slots__ = ("dataset_materializer", "implementation", "problem_evaluator")

    dataset_materializer: str | None
    """A worker's stderr log, as a path relative to the folder the document that names it
    describes.
    """

    implementation: str | None
    """A worker's stderr log, as a path relative to the folder the document that names it
    describes.
    """

    problem_evaluator: str | None
    """A worker's stderr log, as a path relative to the folder the document that names it
    describes.
    """

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("dataset_materializer", "implementation", "problem_evaluator")

    def __init__(
        self,
        *,
        dataset_materializer: str | None,
        implementation: str | None,
        problem_evaluator: str | None,
    ) -> None:
        self.dataset_materializer = (
            None
            if dataset_materializer is None
            else _log_path(dataset_materializer, "/dataset_materializer")
        )
        self.implementation = (
            None if implementation is None else _log_path(implementation, "/implementation")
        )
        self.problem_evaluator = (
            None
            if problem_evaluator is None
            else _log_path(problem_evaluator, "/problem_evaluator")
        )

    @classmethod
    def from_dict(cls, data: object) -> Logs:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Logs:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.dataset_materializer = (
            None
            if fields["dataset_materializer"] is None
            else _log_path(fields["dataset_materializer"], path + "/dataset_materializer")
        )
        model.implementation = (
            None
            if fields["implementation"] is None
            else _log_path(fields["implementation"], path + "/implementation")
        )
        model.problem_evaluator = (
            None
            if fields["problem_evaluator"] is None
            else _log_path(fields["problem_evaluator"], path + "/problem_evaluator")
        )
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {
            "dataset_materializer": self.dataset_materializer,
            "implementation": self.implementation,
            "problem_evaluator": self.problem_evaluator,
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Logs):
            return NotImplemented
        return (
            self.dataset_materializer == other.dataset_materializer
            and self.implementation == other.implementation
            and self.problem_evaluator == other.problem_evaluator
        )

    def __repr__(self) -> str:
        return (
            f"Logs(dataset_materializer={self.dataset_materializer!r}, "
            f"implementation={self.implementation!r}, problem_evaluator={self.problem_evaluator!r})"
        )


class Origin:
    """Where an implementation from outside the benchmark repository came from: an external folder
    holding metewand-implementation.toml (metewand run --implementation-from, campaign run
    --with, judge), by its canonical absolute path. Absent for the repository's own
    implementations.
    """

    __slots__ = ("folder", "kind")

    folder: str
    """The external folder's canonical absolute path."""

    kind: Literal["external"]
    """external: the one origin other than the repository."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("folder", "kind")

    def __init__(self, *, folder: str, kind: Literal["external"]) -> None:
        self.folder = check_string(folder, "/folder", min_length=1)
        self.kind = check_enum(kind, "/kind", _ORIGIN_KIND_VALUES)

    @classmethod
    def from_dict(cls, data: object) -> Origin:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Origin:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.folder = check_string(fields["folder"], path + "/folder", min_length=1)
        model.kind = check_enum(fields["kind"], path + "/kind", _ORIGIN_KIND_VALUES)
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {"folder": self.folder, "kind": self.kind}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Origin):
            return NotImplemented
        return self.folder == other.folder and self.kind == other.kind

    def __repr__(self) -> str:
        return f"Origin(folder={self.folder!r}, kind={self.kind!r})"


class PhaseRecord:
    """One request sent: by whom it was served, when it was written, and how long the executor
    waited for its answer.
    """

    __slots__ = ("duration_ns", "ok", "phase", "role", "started_at")

    duration_ns: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    ok: bool
    """Whether the worker answered with its success shape."""

    phase: Phase
    """A phase of a worker session, named after its request's method."""

    role: Role
    """The role a worker process serves."""

    started_at: str
    """An RFC 3339 timestamp in UTC."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("duration_ns", "ok", "phase", "role", "started_at")

    def __init__(
        self, *, duration_ns: int, ok: bool, phase: Phase, role: Role, started_at: str
    ) -> None:
        self.duration_ns = _safe_uint(duration_ns, "/duration_ns")
        self.ok = check_boolean(ok, "/ok")
        self.phase = _phase(phase, "/phase")
        self.role = _role(role, "/role")
        self.started_at = _timestamp(started_at, "/started_at")

    @classmethod
    def from_dict(cls, data: object) -> PhaseRecord:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> PhaseRecord:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.duration_ns = _safe_uint(fields["duration_ns"], path + "/duration_ns")
        model.ok = check_boolean(fields["ok"], path + "/ok")
        model.phase = _phase(fields["phase"], path + "/phase")
        model.role = _role(fields["role"], path + "/role")
        model.started_at = _timestamp(fields["started_at"], path + "/started_at")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {
            "duration_ns": self.duration_ns,
            "ok": self.ok,
            "phase": self.phase,
            "role": self.role,
            "started_at": self.started_at,
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PhaseRecord):
            return NotImplemented
        return (
            self.duration_ns == other.duration_ns
            and self.ok == other.ok
            and self.phase == other.phase
            and self.role == other.role
            and self.started_at == other.started_at
        )

    def __repr__(self) -> str:
        return (
            f"PhaseRecord(duration_ns={self.duration_ns!r}, ok={self.ok!r}, phase={self.phase!r}, "
            f"role={self.role!r}, started_at={self.started_at!r})"
        )


class Problem:
    """The problem posed; timed is what reports and comparisons rank the implementation by (its
    [problems.P] timed: execute, or prepare+execute), absent from records written before it was
    recorded (read as execute).
    """

    __slots__ = ("contract_id", "name", "parameters", "timed")

    contract_id: str
    """A problem contract id as Metewand generates it: mw1-problem-contract- and the 64 lowercase
    hexadecimal digits of its digest.
    """

    name: str
    """A name the repository's manifest gives: a dataset's, an implementation's, a problem's or a
    campaign's.
    """

    parameters: dict[str, Any]
    """A JSON object whose members this schema does not constrain."""

    timed: ProblemTimed | None
    """What a problem ranks implementations by: the executor's time of the implementation's execute
    request, or of prepare and execute together.
    """

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("contract_id", "name", "parameters")

    def __init__(
        self,
        *,
        contract_id: str,
        name: str,
        parameters: dict[str, Any],
        timed: ProblemTimed | None = None,
    ) -> None:
        self.contract_id = _problem_contract_id(contract_id, "/contract_id")
        self.name = _name(name, "/name")
        self.parameters = check_json_object(parameters, "/parameters")
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
        model.parameters = check_json_object(fields["parameters"], path + "/parameters")
        if "timed" in fields:
            model.timed = _problem_timed(fields["timed"], path + "/timed")
        else:
            model.timed = None
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        data: dict[str, Any] = {
            "contract_id": self.contract_id,
            "name": self.name,
            "parameters": dict(self.parameters),
        }
        if self.timed is not None:
            data["timed"] = self.timed
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Problem):
            return NotImplemented
        return (
            self.contract_id == other.contract_id
            and self.name == other.name
            and self.parameters == other.parameters
            and self.timed == other.timed
        )

    def __repr__(self) -> str:
        return (
            f"Problem(contract_id={self.contract_id!r}, name={self.name!r}, "
            f"parameters={self.parameters!r}, timed={self.timed!r})"
        )


class ProfilePoint:
    """One checkpoint of a streamed execution: its number, the executor's time to it from the
    execute_stream request (less the intervals the worker was held stopped while earlier
    checkpoints were sealed), and the evaluator's metrics and verdict for it.
    """

    __slots__ = ("checkpoint", "metrics", "time_ns", "verdict")

    checkpoint: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    metrics: dict[str, Any]
    """A JSON object whose members this schema does not constrain."""

    time_ns: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    verdict: Verdict
    """The problem-owned verdict on an implementation's result."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("checkpoint", "metrics", "time_ns", "verdict")

    def __init__(
        self, *, checkpoint: int, metrics: dict[str, Any], time_ns: int, verdict: Verdict
    ) -> None:
        self.checkpoint = _safe_uint(checkpoint, "/checkpoint")
        self.metrics = check_json_object(metrics, "/metrics")
        self.time_ns = _safe_uint(time_ns, "/time_ns")
        self.verdict = _verdict(verdict, "/verdict")

    @classmethod
    def from_dict(cls, data: object) -> ProfilePoint:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> ProfilePoint:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.checkpoint = _safe_uint(fields["checkpoint"], path + "/checkpoint")
        model.metrics = check_json_object(fields["metrics"], path + "/metrics")
        model.time_ns = _safe_uint(fields["time_ns"], path + "/time_ns")
        model.verdict = _verdict(fields["verdict"], path + "/verdict")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {
            "checkpoint": self.checkpoint,
            "metrics": dict(self.metrics),
            "time_ns": self.time_ns,
            "verdict": self.verdict,
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ProfilePoint):
            return NotImplemented
        return (
            self.checkpoint == other.checkpoint
            and self.metrics == other.metrics
            and self.time_ns == other.time_ns
            and self.verdict == other.verdict
        )

    def __repr__(self) -> str:
        return (
            f"ProfilePoint(checkpoint={self.checkpoint!r}, metrics={self.metrics!r}, "
            f"time_ns={self.time_ns!r}, verdict={self.verdict!r})"
        )


class PythonDistribution:
    """An installed Python distribution: its Name and Version as its METADATA says, and the SHA-256
    of its RECORD file when it has one.
    """

    __slots__ = ("name", "record_sha256", "version")

    name: str

    record_sha256: str | None
    """A lowercase hexadecimal SHA-256 digest."""

    version: str

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("name", "version")

    def __init__(self, *, name: str, record_sha256: str | None = None, version: str) -> None:
        self.name = check_string(name, "/name")
        self.record_sha256 = (
            None if record_sha256 is None else _sha256(record_sha256, "/record_sha256")
        )
        self.version = check_string(version, "/version")

    @classmethod
    def from_dict(cls, data: object) -> PythonDistribution:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> PythonDistribution:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.name = check_string(fields["name"], path + "/name")
        if "record_sha256" in fields:
            model.record_sha256 = _sha256(fields["record_sha256"], path + "/record_sha256")
        else:
            model.record_sha256 = None
        model.version = check_string(fields["version"], path + "/version")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        data: dict[str, Any] = {"name": self.name}
        if self.record_sha256 is not None:
            data["record_sha256"] = self.record_sha256
        data["version"] = self.version
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PythonDistribution):
            return NotImplemented
        return (
            self.name == other.name
            and self.record_sha256 == other.record_sha256
            and self.version == other.version
        )

    def __repr__(self) -> str:
        return (
            f"PythonDistribution(name={self.name!r}, record_sha256={self.record_sha256!r}, "
            f"version={self.version!r})"
        )


class PythonEnvironment:
    """The Python distributions a worker imports, recorded when its program is a Python interpreter
    or a script run by one (docs/decisions/environments.md): the site-packages folders read (a
    virtual environment's, else the interpreter's prefix's), each dist-info folder's name and
    version from METADATA and the SHA-256 of its RECORD file, sorted by normalized name, and
    digest, the SHA-256 of the canonical JSON of [{name, record_sha256, version}, ...] in that
    order; absent for a program that is not Python and in records written before environments
    were recorded.
    """

    __slots__ = ("digest", "distributions", "site_packages")

    digest: str
    """A lowercase hexadecimal SHA-256 digest."""

    distributions: list[PythonDistribution]

    site_packages: list[str]

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("digest", "distributions", "site_packages")

    def __init__(
        self, *, digest: str, distributions: list[PythonDistribution], site_packages: list[str]
    ) -> None:
        self.digest = _sha256(digest, "/digest")
        self.distributions = check_array(
            distributions, "/distributions", check_model, PythonDistribution
        )
        self.site_packages = check_array(site_packages, "/site_packages", check_string)

    @classmethod
    def from_dict(cls, data: object) -> PythonEnvironment:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> PythonEnvironment:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.digest = _sha256(fields["digest"], path + "/digest")
        model.distributions = check_array(
            fields["distributions"], path + "/distributions", PythonDistribution._decode
        )
        model.site_packages = check_array(
            fields["site_packages"], path + "/site_packages", check_string
        )
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {
            "digest": self.digest,
            "distributions": [item.to_dict() for item in self.distributions],
            "site_packages": list(self.site_packages),
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PythonEnvironment):
            return NotImplemented
        return (
            self.digest == other.digest
            and self.distributions == other.distributions
            and self.site_packages == other.site_packages
        )

    def __repr__(self) -> str:
        return (
            f"PythonEnvironment(digest={self.digest!r}, distributions={self.distributions!r}, "
            f"site_packages={self.site_packages!r})"
        )


class ResourceLimit:
    """One resource limit of a session: its value (null when there was none) and how it was
    enforced: rlimit (a resource limit of the worker's processes: RLIMIT_AS for memory_bytes,
    RLIMIT_NPROC counted in a user namespace of the worker's own for processes), pid_max (the
    pid_max of the worker's own PID namespace, Linux 6.14 and later), cgroup (memory.max or
    pids.max of a cgroup of the worker's own, in the cgroup v2 subtree delegated to the user
    running metewand), watched (measured by metewand while the worker ran, the worker killed once
    past it) or none.
    """

    __slots__ = ("mechanism", "value")

    mechanism: Literal["rlimit", "pid_max", "cgroup", "watched", "none"]

    value: int | None
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("mechanism", "value")

    def __init__(
        self,
        *,
        mechanism: Literal["rlimit", "pid_max", "cgroup", "watched", "none"],
        value: int | None,
    ) -> None:
        self.mechanism = check_enum(mechanism, "/mechanism", _RESOURCE_LIMIT_MECHANISM_VALUES)
        self.value = None if value is None else _safe_uint(value, "/value")

    @classmethod
    def from_dict(cls, data: object) -> ResourceLimit:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> ResourceLimit:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.mechanism = check_enum(
            fields["mechanism"], path + "/mechanism", _RESOURCE_LIMIT_MECHANISM_VALUES
        )
        model.value = (
            None if fields["value"] is None else _safe_uint(fields["value"], path + "/value")
        )
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {"mechanism": self.mechanism, "value": self.value}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ResourceLimit):
            return NotImplemented
        return self.mechanism == other.mechanism and self.value == other.value

    def __repr__(self) -> str:
        return f"ResourceLimit(mechanism={self.mechanism!r}, value={self.value!r})"


class ResourceLimits:
    """A session's resource limits ([limits] in metewand.toml): memory_bytes, the address space of
    each of the worker's processes; processes, the tasks its PID namespace may hold;
    output_bytes, what its output folder and TMPDIR may take together.
    """

    __slots__ = ("memory_bytes", "output_bytes", "processes")

    memory_bytes: ResourceLimit
    """One resource limit of a session: its value (null when there was none) and how it was
    enforced: rlimit (a resource limit of the worker's processes: RLIMIT_AS for memory_bytes,
    RLIMIT_NPROC counted in a user namespace of the worker's own for processes), pid_max (the
    pid_max of the worker's own PID namespace, Linux 6.14 and later), cgroup (memory.max or
    pids.max of a cgroup of the worker's own, in the cgroup v2 subtree delegated to the user
    running metewand), watched (measured by metewand while the worker ran, the worker killed once
    past it) or none.
    """

    output_bytes: ResourceLimit
    """One resource limit of a session: its value (null when there was none) and how it was
    enforced: rlimit (a resource limit of the worker's processes: RLIMIT_AS for memory_bytes,
    RLIMIT_NPROC counted in a user namespace of the worker's own for processes), pid_max (the
    pid_max of the worker's own PID namespace, Linux 6.14 and later), cgroup (memory.max or
    pids.max of a cgroup of the worker's own, in the cgroup v2 subtree delegated to the user
    running metewand), watched (measured by metewand while the worker ran, the worker killed once
    past it) or none.
    """

    processes: ResourceLimit
    """One resource limit of a session: its value (null when there was none) and how it was
    enforced: rlimit (a resource limit of the worker's processes: RLIMIT_AS for memory_bytes,
    RLIMIT_NPROC counted in a user namespace of the worker's own for processes), pid_max (the
    pid_max of the worker's own PID namespace, Linux 6.14 and later), cgroup (memory.max or
    pids.max of a cgroup of the worker's own, in the cgroup v2 subtree delegated to the user
    running metewand), watched (measured by metewand while the worker ran, the worker killed once
    past it) or none.
    """

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("memory_bytes", "output_bytes", "processes")

    def __init__(
        self, *, memory_bytes: ResourceLimit, output_bytes: ResourceLimit, processes: ResourceLimit
    ) -> None:
        self.memory_bytes = check_model(memory_bytes, "/memory_bytes", ResourceLimit)
        self.output_bytes = check_model(output_bytes, "/output_bytes", ResourceLimit)
        self.processes = check_model(processes, "/processes", ResourceLimit)

    @classmethod
    def from_dict(cls, data: object) -> ResourceLimits:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> ResourceLimits:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.memory_bytes = ResourceLimit._decode(fields["memory_bytes"], path + "/memory_bytes")
        model.output_bytes = ResourceLimit._decode(fields["output_bytes"], path + "/output_bytes")
        model.processes = ResourceLimit._decode(fields["processes"], path + "/processes")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {
            "memory_bytes": self.memory_bytes.to_dict(),
            "output_bytes": self.output_bytes.to_dict(),
            "processes": self.processes.to_dict(),
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ResourceLimits):
            return NotImplemented
        return (
            self.memory_bytes == other.memory_bytes
            and self.output_bytes == other.output_bytes
            and self.processes == other.processes
        )

    def __repr__(self) -> str:
        return (
            f"ResourceLimits(memory_bytes={self.memory_bytes!r}, "
            f"output_bytes={self.output_bytes!r}, processes={self.processes!r})"
        )


class Resources:
    """A worker's resource use as wait4 reports it when it is reaped: user and system CPU time (its
    own and its waited-for descendants') and peak resident memory.
    """

    __slots__ = ("peak_rss_bytes", "system_cpu_ns", "user_cpu_ns")

    peak_rss_bytes: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    system_cpu_ns: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    user_cpu_ns: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("peak_rss_bytes", "system_cpu_ns", "user_cpu_ns")

    def __init__(self, *, peak_rss_bytes: int, system_cpu_ns: int, user_cpu_ns: int) -> None:
        self.peak_rss_bytes = _safe_uint(peak_rss_bytes, "/peak_rss_bytes")
        self.system_cpu_ns = _safe_uint(system_cpu_ns, "/system_cpu_ns")
        self.user_cpu_ns = _safe_uint(user_cpu_ns, "/user_cpu_ns")

    @classmethod
    def from_dict(cls, data: object) -> Resources:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Resources:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.peak_rss_bytes = _safe_uint(fields["peak_rss_bytes"], path + "/peak_rss_bytes")
        model.system_cpu_ns = _safe_uint(fields["system_cpu_ns"], path + "/system_cpu_ns")
        model.user_cpu_ns = _safe_uint(fields["user_cpu_ns"], path + "/user_cpu_ns")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {
            "peak_rss_bytes": self.peak_rss_bytes,
            "system_cpu_ns": self.system_cpu_ns,
            "user_cpu_ns": self.user_cpu_ns,
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Resources):
            return NotImplemented
        return (
            self.peak_rss_bytes == other.peak_rss_bytes
            and self.system_cpu_ns == other.system_cpu_ns
            and self.user_cpu_ns == other.user_cpu_ns
        )

    def __repr__(self) -> str:
        return (
            f"Resources(peak_rss_bytes={self.peak_rss_bytes!r}, "
            f"system_cpu_ns={self.system_cpu_ns!r}, user_cpu_ns={self.user_cpu_ns!r})"
        )


class Session:
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

    __slots__ = ("index", "mode", "started_on", "warmup")

    index: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    mode: SessionMode
    """How implementation sessions serve attempts: fresh (each attempt starts its own worker
    process) or reuse (one worker process serves consecutive attempts of its worker, reset
    between them).
    """

    started_on: list[int] | None
    """CPU numbers, ascending, at least one, each at most once."""

    warmup: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("index", "mode", "warmup")

    def __init__(
        self, *, index: int, mode: SessionMode, started_on: list[int] | None = None, warmup: int
    ) -> None:
        self.index = _safe_uint(index, "/index")
        self.mode = _session_mode(mode, "/mode")
        self.started_on = (
            None
            if started_on is None
            else check_array(started_on, "/started_on", _safe_uint, min_items=1, unique=True)
        )
        self.warmup = _safe_uint(warmup, "/warmup")

    @classmethod
    def from_dict(cls, data: object) -> Session:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Session:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.index = _safe_uint(fields["index"], path + "/index")
        model.mode = _session_mode(fields["mode"], path + "/mode")
        if "started_on" in fields:
            model.started_on = check_array(
                fields["started_on"], path + "/started_on", _safe_uint, min_items=1, unique=True
            )
        else:
            model.started_on = None
        model.warmup = _safe_uint(fields["warmup"], path + "/warmup")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        data: dict[str, Any] = {"index": self.index, "mode": self.mode}
        if self.started_on is not None:
            data["started_on"] = list(self.started_on)
        data["warmup"] = self.warmup
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Session):
            return NotImplemented
        return (
            self.index == other.index
            and self.mode == other.mode
            and self.started_on == other.started_on
            and self.warmup == other.warmup
        )

    def __repr__(self) -> str:
        return (
            f"Session(index={self.index!r}, mode={self.mode!r}, started_on={self.started_on!r}, "
            f"warmup={self.warmup!r})"
        )


class WorkerIdentity:
    """What worker_id is the digest of (docs/decisions/identities.md): command and env as declared
    (before ${repo} expansion; env maps names to strings), source the source directory's tree
    digest, include each include folder as declared to its tree digest, network when the worker
    declared it, and environment, the digest of the Python environment its interpreter imports
    (or of its python.requirements declaration, when it has one), when it declared identity =
    [\"environment\"]. Kept so that a reader can say which part of a worker changed between two
    records.
    """

    __slots__ = ("command", "env", "environment", "include", "network", "source")

    command: list[str]

    env: dict[str, Any]
    """A JSON object whose members this schema does not constrain."""

    environment: str | None
    """A lowercase hexadecimal SHA-256 digest."""

    include: dict[str, Any] | None
    """A JSON object whose members this schema does not constrain."""

    network: bool | None

    source: str
    """A tree digest: SHA-256 over the canonical JSON of the folder's files
    (docs/decisions/identities.md).
    """

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("command", "env", "source")

    def __init__(
        self,
        *,
        command: list[str],
        env: dict[str, Any],
        environment: str | None = None,
        include: dict[str, Any] | None = None,
        network: bool | None = None,
        source: str,
    ) -> None:
        self.command = check_array(command, "/command", check_string)
        self.env = check_json_object(env, "/env")
        self.environment = None if environment is None else _sha256(environment, "/environment")
        self.include = None if include is None else check_json_object(include, "/include")
        self.network = None if network is None else check_boolean(network, "/network")
        self.source = _tree_digest(source, "/source")

    @classmethod
    def from_dict(cls, data: object) -> WorkerIdentity:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> WorkerIdentity:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.command = check_array(fields["command"], path + "/command", check_string)
        model.env = check_json_object(fields["env"], path + "/env")
        if "environment" in fields:
            model.environment = _sha256(fields["environment"], path + "/environment")
        else:
            model.environment = None
        if "include" in fields:
            model.include = check_json_object(fields["include"], path + "/include")
        else:
            model.include = None
        if "network" in fields:
            model.network = check_boolean(fields["network"], path + "/network")
        else:
            model.network = None
        model.source = _tree_digest(fields["source"], path + "/source")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        data: dict[str, Any] = {"command": list(self.command), "env": dict(self.env)}
        if self.environment is not None:
            data["environment"] = self.environment
        if self.include is not None:
            data["include"] = dict(self.include)
        if self.network is not None:
            data["network"] = self.network
        data["source"] = self.source
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, WorkerIdentity):
            return NotImplemented
        return (
            self.command == other.command
            and self.env == other.env
            and self.environment == other.environment
            and self.include == other.include
            and self.network == other.network
            and self.source == other.source
        )

    def __repr__(self) -> str:
        return (
            f"WorkerIdentity(command={self.command!r}, env={self.env!r}, "
            f"environment={self.environment!r}, include={self.include!r}, "
            f"network={self.network!r}, source={self.source!r})"
        )


class WorkerProgram:
    """The program the worker's process was running when it answered hello, as the executor found
    it: the path the kernel names for /proc/<pid>/exe, that file's SHA-256, and path_match, the
    PATH match of the command's first word (or the absolute path it names), when that is another
    path (a link such as a virtual environment's python3, a script, a shim); path_match is absent
    when the command names its program by a relative path, inside the worker's source, which
    worker_id already covers.
    """

    __slots__ = ("path", "path_match", "sha256")

    path: str

    path_match: str | None

    sha256: str
    """A lowercase hexadecimal SHA-256 digest."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("path", "sha256")

    def __init__(self, *, path: str, path_match: str | None = None, sha256: str) -> None:
        self.path = check_string(path, "/path", min_length=1)
        self.path_match = (
            None if path_match is None else check_string(path_match, "/path_match", min_length=1)
        )
        self.sha256 = _sha256(sha256, "/sha256")

    @classmethod
    def from_dict(cls, data: object) -> WorkerProgram:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> WorkerProgram:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.path = check_string(fields["path"], path + "/path", min_length=1)
        if "path_match" in fields:
            model.path_match = check_string(
                fields["path_match"], path + "/path_match", min_length=1
            )
        else:
            model.path_match = None
        model.sha256 = _sha256(fields["sha256"], path + "/sha256")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        data: dict[str, Any] = {"path": self.path}
        if self.path_match is not None:
            data["path_match"] = self.path_match
        data["sha256"] = self.sha256
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, WorkerProgram):
            return NotImplemented
        return (
            self.path == other.path
            and self.path_match == other.path_match
            and self.sha256 == other.sha256
        )

    def __repr__(self) -> str:
        return (
            f"WorkerProgram(path={self.path!r}, path_match={self.path_match!r}, "
            f"sha256={self.sha256!r})"
        )


class WorkerSession:
    """A worker session: the resolved identity, and what the worker reported in hello (capabilities
    is null when the handshake did not complete; sdk is null for a direct protocol worker or when
    the handshake did not complete). identity (what worker_id is the digest of) is absent from
    records written before it was recorded; program is recorded once the worker answered hello,
    when the executor could read it (a program over 512 MiB is not hashed), and environment with
    it when that program is Python; confinement is recorded once the worker started, resources
    when its session shut down cleanly (never for a reused session), session (for an evaluator)
    once it answered hello; each is absent otherwise.
    """

    __slots__ = (
        "capabilities",
        "confinement",
        "environment",
        "identity",
        "program",
        "resources",
        "sdk",
        "session",
        "worker_id",
    )

    capabilities: list[Capability] | None
    """Capability names, each at most once."""

    confinement: Confinement | None
    """What the kernel stopped a worker from doing (ARCHITECTURE.md, Confinement): Landlock
    filesystem rules (with the kernel's ABI) or none; the network: a namespace of the worker's
    own with only loopback, TCP denied (Landlock TCP rules without a namespace), allowed (the
    worker declared network = true) or unrestricted; processes in their own PID namespace or
    found by the sweep, and user_namespace true when that PID namespace was made inside a user
    namespace of the worker's own mapping the orchestrator's uid and gid (how it is made without
    CAP_SYS_ADMIN); signals and abstract unix sockets scoped to the worker's domain or not;
    System V IPC and POSIX queues in an IPC namespace of the worker's own or the host's;
    capabilities none (every set emptied, no_new_privs) or kept; mounts private (a mount
    namespace hiding the state, the repository and the host's temporary and runtime folders,
    showing the worker's own inputs and outputs and a /proc of its PID namespace) or host.;
    limits: each resource limit of the session with its value (null for none) and how it was
    enforced (resource_limits).; syscall_filter: the system call filter (default: clone3,
    io_uring, keyrings beyond the session's own, bpf, perf_event_open, userfaultfd, kexec,
    module, swap and reboot calls refused, and memfds and System V objects where a memory limit
    needs it) or none, and syscalls the groups of calls the worker declared, which its filter
    allowed; user: the host uid and gid the worker ran as (run by root, an identity of its own,
    never 0 where root could give it one). user_namespace, ipc, capabilities, mounts, limits,
    syscall_filter, syscalls and user are absent from records written before they were recorded.
    """

    environment: PythonEnvironment | None
    """The Python distributions a worker imports, recorded when its program is a Python interpreter
    or a script run by one (docs/decisions/environments.md): the site-packages folders read (a
    virtual environment's, else the interpreter's prefix's), each dist-info folder's name and
    version from METADATA and the SHA-256 of its RECORD file, sorted by normalized name, and
    digest, the SHA-256 of the canonical JSON of [{name, record_sha256, version}, ...] in that
    order; absent for a program that is not Python and in records written before environments
    were recorded.
    """

    identity: WorkerIdentity | None
    """What worker_id is the digest of (docs/decisions/identities.md): command and env as declared
    (before ${repo} expansion; env maps names to strings), source the source directory's tree
    digest, include each include folder as declared to its tree digest, network when the worker
    declared it, and environment, the digest of the Python environment its interpreter imports
    (or of its python.requirements declaration, when it has one), when it declared identity =
    [\"environment\"]. Kept so that a reader can say which part of a worker changed between two
    records.
    """

    program: WorkerProgram | None
    """The program the worker's process was running when it answered hello, as the executor found
    it: the path the kernel names for /proc/<pid>/exe, that file's SHA-256, and path_match, the
    PATH match of the command's first word (or the absolute path it names), when that is another
    path (a link such as a virtual environment's python3, a script, a shim); path_match is absent
    when the command names its program by a relative path, inside the worker's source, which
    worker_id already covers.
    """

    resources: Resources | None
    """A worker's resource use as wait4 reports it when it is reaped: user and system CPU time (its
    own and its waited-for descendants') and peak resident memory.
    """

    sdk: SdkInfo | None
    """The worker SDK that answered hello, by package name and version."""

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
    _REQUIRED = ("capabilities", "sdk", "worker_id")

    def __init__(
        self,
        *,
        capabilities: list[Capability] | None,
        confinement: Confinement | None = None,
        environment: PythonEnvironment | None = None,
        identity: WorkerIdentity | None = None,
        program: WorkerProgram | None = None,
        resources: Resources | None = None,
        sdk: SdkInfo | None,
        session: Session | None = None,
        worker_id: str,
    ) -> None:
        self.capabilities = (
            None
            if capabilities is None
            else check_array(capabilities, "/capabilities", _capability, unique=True)
        )
        self.confinement = (
            None if confinement is None else check_model(confinement, "/confinement", Confinement)
        )
        self.environment = (
            None
            if environment is None
            else check_model(environment, "/environment", PythonEnvironment)
        )
        self.identity = (
            None if identity is None else check_model(identity, "/identity", WorkerIdentity)
        )
        self.program = None if program is None else check_model(program, "/program", WorkerProgram)
        self.resources = (
            None if resources is None else check_model(resources, "/resources", Resources)
        )
        self.sdk = None if sdk is None else check_model(sdk, "/sdk", SdkInfo)
        self.session = None if session is None else check_model(session, "/session", Session)
        self.worker_id = _worker_id(worker_id, "/worker_id")

    @classmethod
    def from_dict(cls, data: object) -> WorkerSession:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> WorkerSession:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.capabilities = (
            None
            if fields["capabilities"] is None
            else check_array(
                fields["capabilities"], path + "/capabilities", _capability, unique=True
            )
        )
        if "confinement" in fields:
            model.confinement = Confinement._decode(fields["confinement"], path + "/confinement")
        else:
            model.confinement = None
        if "environment" in fields:
            model.environment = PythonEnvironment._decode(
                fields["environment"], path + "/environment"
            )
        else:
            model.environment = None
        if "identity" in fields:
            model.identity = WorkerIdentity._decode(fields["identity"], path + "/identity")
        else:
            model.identity = None
        if "program" in fields:
            model.program = WorkerProgram._decode(fields["program"], path + "/program")
        else:
            model.program = None
        if "resources" in fields:
            model.resources = Resources._decode(fields["resources"], path + "/resources")
        else:
            model.resources = None
        model.sdk = None if fields["sdk"] is None else SdkInfo._decode(fields["sdk"], path + "/sdk")
        if "session" in fields:
            model.session = Session._decode(fields["session"], path + "/session")
        else:
            model.session = None
        model.worker_id = _worker_id(fields["worker_id"], path + "/worker_id")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        data: dict[str, Any] = {
            "capabilities": None if self.capabilities is None else list(self.capabilities),
        }
        if self.confinement is not None:
            data["confinement"] = self.confinement.to_dict()
        if self.environment is not None:
            data["environment"] = self.environment.to_dict()
        if self.identity is not None:
            data["identity"] = self.identity.to_dict()
        if self.program is not None:
            data["program"] = self.program.to_dict()
        if self.resources is not None:
            data["resources"] = self.resources.to_dict()
        data["sdk"] = None if self.sdk is None else self.sdk.to_dict()
        if self.session is not None:
            data["session"] = self.session.to_dict()
        data["worker_id"] = self.worker_id
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, WorkerSession):
            return NotImplemented
        return (
            self.capabilities == other.capabilities
            and self.confinement == other.confinement
            and self.environment == other.environment
            and self.identity == other.identity
            and self.program == other.program
            and self.resources == other.resources
            and self.sdk == other.sdk
            and self.session == other.session
            and self.worker_id == other.worker_id
        )

    def __repr__(self) -> str:
        return (
            f"WorkerSession(capabilities={self.capabilities!r}, confinement={self.confinement!r}, "
            f"environment={self.environment!r}, identity={self.identity!r}, "
            f"program={self.program!r}, resources={self.resources!r}, sdk={self.sdk!r}, "
            f"session={self.session!r}, worker_id={self.worker_id!r})"
        )


# The class of each definition in the schema, by its name under $defs (None for the root).
DEFINITIONS: dict[str | None, type] = {
    None: AttemptRecord,
    "attempt_failure": AttemptFailure,
    "campaign": Campaign,
    "confinement": Confinement,
    "cpus": Cpus,
    "dataset": Dataset,
    "host_user": HostUser,
    "implementation": Implementation,
    "logs": Logs,
    "origin": Origin,
    "phase_record": PhaseRecord,
    "problem": Problem,
    "profile_point": ProfilePoint,
    "python_distribution": PythonDistribution,
    "python_environment": PythonEnvironment,
    "resource_limit": ResourceLimit,
    "resource_limits": ResourceLimits,
    "resources": Resources,
    "session": Session,
    "worker_identity": WorkerIdentity,
    "worker_program": WorkerProgram,
    "worker_session": WorkerSession,
}
