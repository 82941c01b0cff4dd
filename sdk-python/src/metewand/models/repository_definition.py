# Generated from schemas/repository-definition.schema.json by codegen; do not edit. Regenerate with: cargo xtask codegen
"""Metewand repository definition.

metewand.toml, a benchmark repository's definition, as its TOML maps into the JSON domain: its
format, schema files, timeouts, budgets and limits, its workers, datasets, problems,
implementations and campaigns. The loader checks the same shape with positions, and then what a
schema cannot say (names that exist, roles that fit, source folders and their digests).

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
    check_integer,
    check_json_object,
    check_map,
    check_model,
    check_object,
    check_positive_number,
    check_string,
)
from metewand.models.attempt_record import _problem_timed, _session_mode, _syscall_group
from metewand.models.common import _capability, _format, _name, _role, _safe_uint

# Annotations are strings (see the __future__ import), so typing is needed only by type checkers.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal, TypeAlias
    from metewand.models.attempt_record import ProblemTimed, SessionMode, SyscallGroup
    from metewand.models.common import Capability, Role

    _WorkerAdapter: TypeAlias = Literal["command"]

    _WorkerDeterministic: TypeAlias = Literal["seeded", "seed-independent"]

    _WorkerIdentityItem: TypeAlias = Literal["environment"]

__all__ = [
    "Budgets",
    "Campaign",
    "DEFINITIONS",
    "Dataset",
    "Implementation",
    "Limits",
    "ModelError",
    "Problem",
    "Profile",
    "PythonEnvironment",
    "RepositoryDefinition",
    "SchemaFiles",
    "SeedRange",
    "Timeouts",
    "Worker",
]

_WORKER_ADAPTER_VALUES: frozenset[_WorkerAdapter] = frozenset({"command"})
"""How the worker speaks the protocol: absent, its command does; \"command\", Metewand's own adapter
does and runs the command once per request, its words' placeholders ({dataset}, {result},
{metrics}, {seed}, {parameters}, {tmp}) replaced.
"""

_WORKER_DETERMINISTIC_VALUES: frozenset[_WorkerDeterministic] = frozenset(
    {"seeded", "seed-independent"}
)
"""How the worker's output depends on its seed."""

_WORKER_IDENTITY_ITEM_VALUES: frozenset[_WorkerIdentityItem] = frozenset({"environment"})


def _checkpoints(value: object, path: str) -> int:
    """The most checkpoints a streamed execution may send."""
    return check_integer(value, path, minimum=1, maximum=1000)


def _declared_name(value: object, path: str) -> str:
    """A name a table declares a worker, dataset, problem, implementation or campaign under: a
    letter or digit, then letters, digits, _, - or .
    """
    return check_string(value, path, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def _env_name(value: object, path: str) -> str:
    """An environment variable's name: not empty, without =; the loader also refuses NUL."""
    return check_string(value, path, pattern=r"^[^=]+$")


def _positive_count(value: object, path: str) -> int:
    """A whole number of at least 1, within the safe range."""
    return check_integer(value, path, minimum=1, maximum=9007199254740991)


def _process_text(value: object, path: str) -> str:
    """An argument or environment value: no substitution but ${repo} ($${ is a literal ${); the
    loader also refuses NUL, which a pattern cannot name.
    """
    return check_string(value, path, pattern=r"^(?:[^$]|\$+(?:[^${]|\{repo\})|\$*\$\$\{)*\$*$")


def _schema_ref(value: object, path: str) -> str | dict[str, Any]:
    """A schema: the id of one in the catalog, or an inline schema."""
    if isinstance(value, str):
        return check_string(value, path)
    return check_json_object(value, path)


def _seconds(value: object, path: str) -> float:
    """A positive number of seconds."""
    return check_positive_number(value, path)


def _seeds(value: object, path: str) -> list[int] | SeedRange:
    """A seed axis: the seeds listed, or a range of them."""
    if isinstance(value, list):
        return check_array(value, path, _safe_uint, min_items=1, unique=True)
    if isinstance(value, SeedRange):
        return value
    return SeedRange._decode(value, path)


def _tolerance(value: object, path: str) -> float:
    """How far a numeric metric judged again (verify --rejudge) may differ from the recorded one,
    relative to the larger of the two and 1; absent: equal. For an evaluator whose metrics vary
    between runs of the same judgement; not part of the problem's contract.
    """
    return check_positive_number(value, path)


def _warmup(value: object, path: str) -> int:
    """Discarded cycles a reused session runs before its first attempt, at most 1000."""
    return check_integer(value, path, minimum=0, maximum=1000)


class RepositoryDefinition:
    """Metewand repository definition.

    metewand.toml, a benchmark repository's definition, as its TOML maps into the JSON domain:
    its format, schema files, timeouts, budgets and limits, its workers, datasets, problems,
    implementations and campaigns. The loader checks the same shape with positions, and then what
    a schema cannot say (names that exist, roles that fit, source folders and their digests).
    """

    __slots__ = (
        "budgets",
        "campaigns",
        "datasets",
        "format",
        "implementations",
        "limits",
        "problems",
        "schemas",
        "timeouts",
        "workers",
    )

    budgets: Budgets | None
    """[budgets]: the longest a whole materialization, implementation or evaluation session may
    take.
    """

    campaigns: dict[str, Campaign] | None
    """The campaigns, by name."""

    datasets: dict[str, Dataset] | None
    """The datasets, by name."""

    format: Literal[1]
    """A document's format: 1, the only one this version reads."""

    implementations: dict[str, Implementation] | None
    """The implementations, by name."""

    limits: Limits | None
    """[limits]: what a worker process may use, each at least 1."""

    problems: dict[str, Problem] | None
    """The problems, by name."""

    schemas: SchemaFiles | None
    """[schemas]: the repository's schema files."""

    timeouts: Timeouts | None
    """[timeouts]: the longest each phase may take, for the phases declared; the others keep their
    defaults.
    """

    workers: dict[str, Worker] | None
    """The workers, by name."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("format",)

    def __init__(
        self,
        *,
        budgets: Budgets | None = None,
        campaigns: dict[str, Campaign] | None = None,
        datasets: dict[str, Dataset] | None = None,
        format: Literal[1] = 1,
        implementations: dict[str, Implementation] | None = None,
        limits: Limits | None = None,
        problems: dict[str, Problem] | None = None,
        schemas: SchemaFiles | None = None,
        timeouts: Timeouts | None = None,
        workers: dict[str, Worker] | None = None,
    ) -> None:
        self.budgets = None if budgets is None else check_model(budgets, "/budgets", Budgets)
        self.campaigns = (
            None
            if campaigns is None
            else check_map(campaigns, "/campaigns", check_model, Campaign, key=_declared_name)
        )
        self.datasets = (
            None
            if datasets is None
            else check_map(datasets, "/datasets", check_model, Dataset, key=_declared_name)
        )
        self.format = _format(format, "/format")
        self.implementations = (
            None
            if implementations is None
            else check_map(
                implementations, "/implementations", check_model, Implementation, key=_declared_name
            )
        )
        self.limits = None if limits is None else check_model(limits, "/limits", Limits)
        self.problems = (
            None
            if problems is None
            else check_map(problems, "/problems", check_model, Problem, key=_declared_name)
        )
        self.schemas = None if schemas is None else check_model(schemas, "/schemas", SchemaFiles)
        self.timeouts = None if timeouts is None else check_model(timeouts, "/timeouts", Timeouts)
        self.workers = (
            None
            if workers is None
            else check_map(workers, "/workers", check_model, Worker, key=_declared_name)
        )

    @classmethod
    def from_dict(cls, data: object) -> RepositoryDefinition:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> RepositoryDefinition:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        if "budgets" in fields:
            model.budgets = Budgets._decode(fields["budgets"], path + "/budgets")
        else:
            model.budgets = None
        if "campaigns" in fields:
            model.campaigns = check_map(
                fields["campaigns"], path + "/campaigns", Campaign._decode, key=_declared_name
            )
        else:
            model.campaigns = None
        if "datasets" in fields:
            model.datasets = check_map(
                fields["datasets"], path + "/datasets", Dataset._decode, key=_declared_name
            )
        else:
            model.datasets = None
        model.format = _format(fields["format"], path + "/format")
        if "implementations" in fields:
            model.implementations = check_map(
                fields["implementations"],
                path + "/implementations",
                Implementation._decode,
                key=_declared_name,
            )
        else:
            model.implementations = None
        if "limits" in fields:
            model.limits = Limits._decode(fields["limits"], path + "/limits")
        else:
            model.limits = None
        if "problems" in fields:
            model.problems = check_map(
                fields["problems"], path + "/problems", Problem._decode, key=_declared_name
            )
        else:
            model.problems = None
        if "schemas" in fields:
            model.schemas = SchemaFiles._decode(fields["schemas"], path + "/schemas")
        else:
            model.schemas = None
        if "timeouts" in fields:
            model.timeouts = Timeouts._decode(fields["timeouts"], path + "/timeouts")
        else:
            model.timeouts = None
        if "workers" in fields:
            model.workers = check_map(
                fields["workers"], path + "/workers", Worker._decode, key=_declared_name
            )
        else:
            model.workers = None
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        data: dict[str, Any] = {}
        if self.budgets is not None:
            data["budgets"] = self.budgets.to_dict()
        if self.campaigns is not None:
            data["campaigns"] = {key: item.to_dict() for key, item in self.campaigns.items()}
        if self.datasets is not None:
            data["datasets"] = {key: item.to_dict() for key, item in self.datasets.items()}
        data["format"] = self.format
        if self.implementations is not None:
            data["implementations"] = {key: item.to_dict() for key, item in self.implementations.items()}
        if self.limits is not None:
            data["limits"] = self.limits.to_dict()
        if self.problems is not None:
            data["problems"] = {key: item.to_dict() for key, item in self.problems.items()}
        if self.schemas is not None:
            data["schemas"] = self.schemas.to_dict()
        if self.timeouts is not None:
            data["timeouts"] = self.timeouts.to_dict()
        if self.workers is not None:
            data["workers"] = {key: item.to_dict() for key, item in self.workers.items()}
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RepositoryDefinition):
            return NotImplemented
        return (
            self.budgets == other.budgets
            and self.campaigns == other.campaigns
            and self.datasets == other.datasets
            and self.format == other.format
            and self.implementations == other.implementations
            and self.limits == other.limits
            and self.problems == other.problems
            and self.schemas == other.schemas
            and self.timeouts == other.timeouts
            and self.workers == other.workers
        )

    def __repr__(self) -> str:
        return (
            f"RepositoryDefinition(budgets={self.budgets!r}, campaigns={self.campaigns!r}, "
            f"datasets={self.datasets!r}, format={self.format!r}, "
            f"implementations={self.implementations!r}, limits={self.limits!r}, "
            f"problems={self.problems!r}, schemas={self.schemas!r}, timeouts={self.timeouts!r}, "
            f"workers={self.workers!r})"
        )


class Budgets:
    """[budgets]: the longest a whole materialization, implementation or evaluation session may
    take.
    """

    __slots__ = ("evaluation", "implementation", "materialization")

    evaluation: float | None
    """A positive number of seconds."""

    implementation: float | None
    """A positive number of seconds."""

    materialization: float | None
    """A positive number of seconds."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ()

    def __init__(
        self,
        *,
        evaluation: float | None = None,
        implementation: float | None = None,
        materialization: float | None = None,
    ) -> None:
        self.evaluation = None if evaluation is None else _seconds(evaluation, "/evaluation")
        self.implementation = (
            None if implementation is None else _seconds(implementation, "/implementation")
        )
        self.materialization = (
            None if materialization is None else _seconds(materialization, "/materialization")
        )

    @classmethod
    def from_dict(cls, data: object) -> Budgets:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Budgets:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        if "evaluation" in fields:
            model.evaluation = _seconds(fields["evaluation"], path + "/evaluation")
        else:
            model.evaluation = None
        if "implementation" in fields:
            model.implementation = _seconds(fields["implementation"], path + "/implementation")
        else:
            model.implementation = None
        if "materialization" in fields:
            model.materialization = _seconds(fields["materialization"], path + "/materialization")
        else:
            model.materialization = None
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        data: dict[str, Any] = {}
        if self.evaluation is not None:
            data["evaluation"] = self.evaluation
        if self.implementation is not None:
            data["implementation"] = self.implementation
        if self.materialization is not None:
            data["materialization"] = self.materialization
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Budgets):
            return NotImplemented
        return (
            self.evaluation == other.evaluation
            and self.implementation == other.implementation
            and self.materialization == other.materialization
        )

    def __repr__(self) -> str:
        return (
            f"Budgets(evaluation={self.evaluation!r}, implementation={self.implementation!r}, "
            f"materialization={self.materialization!r})"
        )


class Campaign:
    """[campaigns.NAME]: a campaign's axes (problems, datasets and implementations by name, by
    default every one declared; dataset and implementation seeds, by default [0]; repetitions, by
    default 1) and how its implementation sessions serve its attempts (warmup only with sessions
    = \"reuse\", which the loader checks).
    """

    __slots__ = (
        "dataset_seeds",
        "datasets",
        "implementation_seeds",
        "implementations",
        "problems",
        "repetitions",
        "sessions",
        "warmup",
    )

    dataset_seeds: list[int] | SeedRange | None
    """A seed axis: the seeds listed, or a range of them."""

    datasets: list[str] | None
    """Names, at least one, each once."""

    implementation_seeds: list[int] | SeedRange | None
    """A seed axis: the seeds listed, or a range of them."""

    implementations: list[str] | None
    """Names, at least one, each once."""

    problems: list[str] | None
    """Names, at least one, each once."""

    repetitions: int | None
    """A whole number of at least 1, within the safe range."""

    sessions: SessionMode | None
    """How implementation sessions serve attempts: fresh (each attempt starts its own worker
    process) or reuse (one worker process serves consecutive attempts of its worker, reset
    between them).
    """

    warmup: int | None
    """Discarded cycles a reused session runs before its first attempt, at most 1000."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ()

    def __init__(
        self,
        *,
        dataset_seeds: list[int] | SeedRange | None = None,
        datasets: list[str] | None = None,
        implementation_seeds: list[int] | SeedRange | None = None,
        implementations: list[str] | None = None,
        problems: list[str] | None = None,
        repetitions: int | None = None,
        sessions: SessionMode | None = None,
        warmup: int | None = None,
    ) -> None:
        self.dataset_seeds = (
            None if dataset_seeds is None else _seeds(dataset_seeds, "/dataset_seeds")
        )
        self.datasets = (
            None
            if datasets is None
            else check_array(datasets, "/datasets", _name, min_items=1, unique=True)
        )
        self.implementation_seeds = (
            None
            if implementation_seeds is None
            else _seeds(implementation_seeds, "/implementation_seeds")
        )
        self.implementations = (
            None
            if implementations is None
            else check_array(implementations, "/implementations", _name, min_items=1, unique=True)
        )
        self.problems = (
            None
            if problems is None
            else check_array(problems, "/problems", _name, min_items=1, unique=True)
        )
        self.repetitions = (
            None if repetitions is None else _positive_count(repetitions, "/repetitions")
        )
        self.sessions = None if sessions is None else _session_mode(sessions, "/sessions")
        self.warmup = None if warmup is None else _warmup(warmup, "/warmup")

    @classmethod
    def from_dict(cls, data: object) -> Campaign:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Campaign:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        if "dataset_seeds" in fields:
            model.dataset_seeds = _seeds(fields["dataset_seeds"], path + "/dataset_seeds")
        else:
            model.dataset_seeds = None
        if "datasets" in fields:
            model.datasets = check_array(
                fields["datasets"], path + "/datasets", _name, min_items=1, unique=True
            )
        else:
            model.datasets = None
        if "implementation_seeds" in fields:
            model.implementation_seeds = _seeds(
                fields["implementation_seeds"], path + "/implementation_seeds"
            )
        else:
            model.implementation_seeds = None
        if "implementations" in fields:
            model.implementations = check_array(
                fields["implementations"],
                path + "/implementations",
                _name,
                min_items=1,
                unique=True,
            )
        else:
            model.implementations = None
        if "problems" in fields:
            model.problems = check_array(
                fields["problems"], path + "/problems", _name, min_items=1, unique=True
            )
        else:
            model.problems = None
        if "repetitions" in fields:
            model.repetitions = _positive_count(fields["repetitions"], path + "/repetitions")
        else:
            model.repetitions = None
        if "sessions" in fields:
            model.sessions = _session_mode(fields["sessions"], path + "/sessions")
        else:
            model.sessions = None
        if "warmup" in fields:
            model.warmup = _warmup(fields["warmup"], path + "/warmup")
        else:
            model.warmup = None
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        data: dict[str, Any] = {}
        if self.dataset_seeds is not None:
            data["dataset_seeds"] = list(self.dataset_seeds) if isinstance(self.dataset_seeds, list) else self.dataset_seeds.to_dict() if isinstance(self.dataset_seeds, SeedRange) else self.dataset_seeds
        if self.datasets is not None:
            data["datasets"] = list(self.datasets)
        if self.implementation_seeds is not None:
            data["implementation_seeds"] = list(self.implementation_seeds) if isinstance(self.implementation_seeds, list) else self.implementation_seeds.to_dict() if isinstance(self.implementation_seeds, SeedRange) else self.implementation_seeds
        if self.implementations is not None:
            data["implementations"] = list(self.implementations)
        if self.problems is not None:
            data["problems"] = list(self.problems)
        if self.repetitions is not None:
            data["repetitions"] = self.repetitions
        if self.sessions is not None:
            data["sessions"] = self.sessions
        if self.warmup is not None:
            data["warmup"] = self.warmup
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Campaign):
            return NotImplemented
        return (
            self.dataset_seeds == other.dataset_seeds
            and self.datasets == other.datasets
            and self.implementation_seeds == other.implementation_seeds
            and self.implementations == other.implementations
            and self.problems == other.problems
            and self.repetitions == other.repetitions
            and self.sessions == other.sessions
            and self.warmup == other.warmup
        )

    def __repr__(self) -> str:
        return (
            f"Campaign(dataset_seeds={self.dataset_seeds!r}, datasets={self.datasets!r}, "
            f"implementation_seeds={self.implementation_seeds!r}, "
            f"implementations={self.implementations!r}, problems={self.problems!r}, "
            f"repetitions={self.repetitions!r}, sessions={self.sessions!r}, warmup={self.warmup!r})"
        )


class Dataset:
    """[datasets.NAME]: a dataset, its materializer and its parameters."""

    __slots__ = ("grid", "materializer", "output_schema", "parameters", "parameters_schema")

    grid: dict[str, Any] | None
    """A parameter grid beside parameters: each key names a nonempty list of at most 1,000 values
    (any JSON), and each combination of the lists' values, merged over parameters, is one point.
    The loader checks the lists with their positions, and refuses a key that parameters has and a
    product of more than 100,000 points.
    """

    materializer: str
    """The dataset_materializer worker that builds it."""

    output_schema: str | dict[str, Any]
    """A schema: the id of one in the catalog, or an inline schema."""

    parameters: dict[str, Any] | None
    """A JSON object whose members this schema does not constrain."""

    parameters_schema: str | dict[str, Any] | None
    """A schema: the id of one in the catalog, or an inline schema."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("materializer", "output_schema")

    def __init__(
        self,
        *,
        grid: dict[str, Any] | None = None,
        materializer: str,
        output_schema: str | dict[str, Any],
        parameters: dict[str, Any] | None = None,
        parameters_schema: str | dict[str, Any] | None = None,
    ) -> None:
        self.grid = None if grid is None else check_json_object(grid, "/grid")
        self.materializer = check_string(materializer, "/materializer")
        self.output_schema = _schema_ref(output_schema, "/output_schema")
        self.parameters = (
            None if parameters is None else check_json_object(parameters, "/parameters")
        )
        self.parameters_schema = (
            None
            if parameters_schema is None
            else _schema_ref(parameters_schema, "/parameters_schema")
        )

    @classmethod
    def from_dict(cls, data: object) -> Dataset:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Dataset:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        if "grid" in fields:
            model.grid = check_json_object(fields["grid"], path + "/grid")
        else:
            model.grid = None
        model.materializer = check_string(fields["materializer"], path + "/materializer")
        model.output_schema = _schema_ref(fields["output_schema"], path + "/output_schema")
        if "parameters" in fields:
            model.parameters = check_json_object(fields["parameters"], path + "/parameters")
        else:
            model.parameters = None
        if "parameters_schema" in fields:
            model.parameters_schema = _schema_ref(
                fields["parameters_schema"], path + "/parameters_schema"
            )
        else:
            model.parameters_schema = None
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        data: dict[str, Any] = {}
        if self.grid is not None:
            data["grid"] = dict(self.grid)
        data["materializer"] = self.materializer
        data["output_schema"] = dict(self.output_schema) if isinstance(self.output_schema, dict) else self.output_schema
        if self.parameters is not None:
            data["parameters"] = dict(self.parameters)
        if self.parameters_schema is not None:
            data["parameters_schema"] = dict(self.parameters_schema) if isinstance(self.parameters_schema, dict) else self.parameters_schema
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Dataset):
            return NotImplemented
        return (
            self.grid == other.grid
            and self.materializer == other.materializer
            and self.output_schema == other.output_schema
            and self.parameters == other.parameters
            and self.parameters_schema == other.parameters_schema
        )

    def __repr__(self) -> str:
        return (
            f"Dataset(grid={self.grid!r}, materializer={self.materializer!r}, "
            f"output_schema={self.output_schema!r}, parameters={self.parameters!r}, "
            f"parameters_schema={self.parameters_schema!r})"
        )


class Implementation:
    """[implementations.NAME]: an implementation, its worker, its parameters and the capabilities it
    selects.
    """

    __slots__ = ("capabilities", "grid", "parameters", "parameters_schema", "worker")

    capabilities: list[Capability] | None
    """The capabilities an implementation's sessions select, each once (default: one_shot); the
    loader refuses the reserved ones too.
    """

    grid: dict[str, Any] | None
    """A parameter grid beside parameters: each key names a nonempty list of at most 1,000 values
    (any JSON), and each combination of the lists' values, merged over parameters, is one point.
    The loader checks the lists with their positions, and refuses a key that parameters has and a
    product of more than 100,000 points.
    """

    parameters: dict[str, Any] | None
    """A JSON object whose members this schema does not constrain."""

    parameters_schema: str | dict[str, Any] | None
    """A schema: the id of one in the catalog, or an inline schema."""

    worker: str
    """The implementation worker that runs it."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("worker",)

    def __init__(
        self,
        *,
        capabilities: list[Capability] | None = None,
        grid: dict[str, Any] | None = None,
        parameters: dict[str, Any] | None = None,
        parameters_schema: str | dict[str, Any] | None = None,
        worker: str,
    ) -> None:
        self.capabilities = (
            None
            if capabilities is None
            else check_array(capabilities, "/capabilities", _capability, unique=True)
        )
        self.grid = None if grid is None else check_json_object(grid, "/grid")
        self.parameters = (
            None if parameters is None else check_json_object(parameters, "/parameters")
        )
        self.parameters_schema = (
            None
            if parameters_schema is None
            else _schema_ref(parameters_schema, "/parameters_schema")
        )
        self.worker = check_string(worker, "/worker")

    @classmethod
    def from_dict(cls, data: object) -> Implementation:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Implementation:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        if "capabilities" in fields:
            model.capabilities = check_array(
                fields["capabilities"], path + "/capabilities", _capability, unique=True
            )
        else:
            model.capabilities = None
        if "grid" in fields:
            model.grid = check_json_object(fields["grid"], path + "/grid")
        else:
            model.grid = None
        if "parameters" in fields:
            model.parameters = check_json_object(fields["parameters"], path + "/parameters")
        else:
            model.parameters = None
        if "parameters_schema" in fields:
            model.parameters_schema = _schema_ref(
                fields["parameters_schema"], path + "/parameters_schema"
            )
        else:
            model.parameters_schema = None
        model.worker = check_string(fields["worker"], path + "/worker")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        data: dict[str, Any] = {}
        if self.capabilities is not None:
            data["capabilities"] = list(self.capabilities)
        if self.grid is not None:
            data["grid"] = dict(self.grid)
        if self.parameters is not None:
            data["parameters"] = dict(self.parameters)
        if self.parameters_schema is not None:
            data["parameters_schema"] = dict(self.parameters_schema) if isinstance(self.parameters_schema, dict) else self.parameters_schema
        data["worker"] = self.worker
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Implementation):
            return NotImplemented
        return (
            self.capabilities == other.capabilities
            and self.grid == other.grid
            and self.parameters == other.parameters
            and self.parameters_schema == other.parameters_schema
            and self.worker == other.worker
        )

    def __repr__(self) -> str:
        return (
            f"Implementation(capabilities={self.capabilities!r}, grid={self.grid!r}, "
            f"parameters={self.parameters!r}, parameters_schema={self.parameters_schema!r}, "
            f"worker={self.worker!r})"
        )


class Limits:
    """[limits]: what a worker process may use, each at least 1."""

    __slots__ = ("cpu_seconds", "memory_bytes", "output_bytes", "processes")

    cpu_seconds: int | None
    """A whole number of at least 1, within the safe range."""

    memory_bytes: int | None
    """A whole number of at least 1, within the safe range."""

    output_bytes: int | None
    """A whole number of at least 1, within the safe range."""

    processes: int | None
    """A whole number of at least 1, within the safe range."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ()

    def __init__(
        self,
        *,
        cpu_seconds: int | None = None,
        memory_bytes: int | None = None,
        output_bytes: int | None = None,
        processes: int | None = None,
    ) -> None:
        self.cpu_seconds = (
            None if cpu_seconds is None else _positive_count(cpu_seconds, "/cpu_seconds")
        )
        self.memory_bytes = (
            None if memory_bytes is None else _positive_count(memory_bytes, "/memory_bytes")
        )
        self.output_bytes = (
            None if output_bytes is None else _positive_count(output_bytes, "/output_bytes")
        )
        self.processes = None if processes is None else _positive_count(processes, "/processes")

    @classmethod
    def from_dict(cls, data: object) -> Limits:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Limits:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        if "cpu_seconds" in fields:
            model.cpu_seconds = _positive_count(fields["cpu_seconds"], path + "/cpu_seconds")
        else:
            model.cpu_seconds = None
        if "memory_bytes" in fields:
            model.memory_bytes = _positive_count(fields["memory_bytes"], path + "/memory_bytes")
        else:
            model.memory_bytes = None
        if "output_bytes" in fields:
            model.output_bytes = _positive_count(fields["output_bytes"], path + "/output_bytes")
        else:
            model.output_bytes = None
        if "processes" in fields:
            model.processes = _positive_count(fields["processes"], path + "/processes")
        else:
            model.processes = None
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        data: dict[str, Any] = {}
        if self.cpu_seconds is not None:
            data["cpu_seconds"] = self.cpu_seconds
        if self.memory_bytes is not None:
            data["memory_bytes"] = self.memory_bytes
        if self.output_bytes is not None:
            data["output_bytes"] = self.output_bytes
        if self.processes is not None:
            data["processes"] = self.processes
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Limits):
            return NotImplemented
        return (
            self.cpu_seconds == other.cpu_seconds
            and self.memory_bytes == other.memory_bytes
            and self.output_bytes == other.output_bytes
            and self.processes == other.processes
        )

    def __repr__(self) -> str:
        return (
            f"Limits(cpu_seconds={self.cpu_seconds!r}, memory_bytes={self.memory_bytes!r}, "
            f"output_bytes={self.output_bytes!r}, processes={self.processes!r})"
        )


class Problem:
    """[problems.NAME]: a problem, its evaluator, its parameters and the schemas of its results and
    metrics.
    """

    __slots__ = (
        "evaluator",
        "grid",
        "metric_schema",
        "parameters",
        "parameters_schema",
        "profile",
        "rejudge_tolerance",
        "result_schema",
        "timed",
    )

    evaluator: str
    """The problem_evaluator worker that evaluates it."""

    grid: dict[str, Any] | None
    """A parameter grid beside parameters: each key names a nonempty list of at most 1,000 values
    (any JSON), and each combination of the lists' values, merged over parameters, is one point.
    The loader checks the lists with their positions, and refuses a key that parameters has and a
    product of more than 100,000 points.
    """

    metric_schema: str | dict[str, Any]
    """A schema: the id of one in the catalog, or an inline schema."""

    parameters: dict[str, Any] | None
    """A JSON object whose members this schema does not constrain."""

    parameters_schema: str | dict[str, Any] | None
    """A schema: the id of one in the catalog, or an inline schema."""

    profile: Profile | None
    """A problem's streamed profile: the most checkpoints an execution may send (1 to 1000)."""

    rejudge_tolerance: float | None
    """How far a numeric metric judged again (verify --rejudge) may differ from the recorded one,
    relative to the larger of the two and 1; absent: equal. For an evaluator whose metrics vary
    between runs of the same judgement; not part of the problem's contract.
    """

    result_schema: str | dict[str, Any]
    """A schema: the id of one in the catalog, or an inline schema."""

    timed: ProblemTimed | None
    """What a problem ranks implementations by: the executor's time of the implementation's execute
    request, or of prepare and execute together.
    """

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("evaluator", "metric_schema", "result_schema")

    def __init__(
        self,
        *,
        evaluator: str,
        grid: dict[str, Any] | None = None,
        metric_schema: str | dict[str, Any],
        parameters: dict[str, Any] | None = None,
        parameters_schema: str | dict[str, Any] | None = None,
        profile: Profile | None = None,
        rejudge_tolerance: float | None = None,
        result_schema: str | dict[str, Any],
        timed: ProblemTimed | None = None,
    ) -> None:
        self.evaluator = check_string(evaluator, "/evaluator")
        self.grid = None if grid is None else check_json_object(grid, "/grid")
        self.metric_schema = _schema_ref(metric_schema, "/metric_schema")
        self.parameters = (
            None if parameters is None else check_json_object(parameters, "/parameters")
        )
        self.parameters_schema = (
            None
            if parameters_schema is None
            else _schema_ref(parameters_schema, "/parameters_schema")
        )
        self.profile = None if profile is None else check_model(profile, "/profile", Profile)
        self.rejudge_tolerance = (
            None
            if rejudge_tolerance is None
            else _tolerance(rejudge_tolerance, "/rejudge_tolerance")
        )
        self.result_schema = _schema_ref(result_schema, "/result_schema")
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
        model.evaluator = check_string(fields["evaluator"], path + "/evaluator")
        if "grid" in fields:
            model.grid = check_json_object(fields["grid"], path + "/grid")
        else:
            model.grid = None
        model.metric_schema = _schema_ref(fields["metric_schema"], path + "/metric_schema")
        if "parameters" in fields:
            model.parameters = check_json_object(fields["parameters"], path + "/parameters")
        else:
            model.parameters = None
        if "parameters_schema" in fields:
            model.parameters_schema = _schema_ref(
                fields["parameters_schema"], path + "/parameters_schema"
            )
        else:
            model.parameters_schema = None
        if "profile" in fields:
            model.profile = Profile._decode(fields["profile"], path + "/profile")
        else:
            model.profile = None
        if "rejudge_tolerance" in fields:
            model.rejudge_tolerance = _tolerance(
                fields["rejudge_tolerance"], path + "/rejudge_tolerance"
            )
        else:
            model.rejudge_tolerance = None
        model.result_schema = _schema_ref(fields["result_schema"], path + "/result_schema")
        if "timed" in fields:
            model.timed = _problem_timed(fields["timed"], path + "/timed")
        else:
            model.timed = None
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        data: dict[str, Any] = {"evaluator": self.evaluator}
        if self.grid is not None:
            data["grid"] = dict(self.grid)
        data["metric_schema"] = dict(self.metric_schema) if isinstance(self.metric_schema, dict) else self.metric_schema
        if self.parameters is not None:
            data["parameters"] = dict(self.parameters)
        if self.parameters_schema is not None:
            data["parameters_schema"] = dict(self.parameters_schema) if isinstance(self.parameters_schema, dict) else self.parameters_schema
        if self.profile is not None:
            data["profile"] = self.profile.to_dict()
        if self.rejudge_tolerance is not None:
            data["rejudge_tolerance"] = self.rejudge_tolerance
        data["result_schema"] = dict(self.result_schema) if isinstance(self.result_schema, dict) else self.result_schema
        if self.timed is not None:
            data["timed"] = self.timed
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Problem):
            return NotImplemented
        return (
            self.evaluator == other.evaluator
            and self.grid == other.grid
            and self.metric_schema == other.metric_schema
            and self.parameters == other.parameters
            and self.parameters_schema == other.parameters_schema
            and self.profile == other.profile
            and self.rejudge_tolerance == other.rejudge_tolerance
            and self.result_schema == other.result_schema
            and self.timed == other.timed
        )

    def __repr__(self) -> str:
        return (
            f"Problem(evaluator={self.evaluator!r}, grid={self.grid!r}, "
            f"metric_schema={self.metric_schema!r}, parameters={self.parameters!r}, "
            f"parameters_schema={self.parameters_schema!r}, profile={self.profile!r}, "
            f"rejudge_tolerance={self.rejudge_tolerance!r}, result_schema={self.result_schema!r}, "
            f"timed={self.timed!r})"
        )


class Profile:
    """A problem's streamed profile: the most checkpoints an execution may send (1 to 1000)."""

    __slots__ = ("checkpoints",)

    checkpoints: int
    """The most checkpoints a streamed execution may send."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("checkpoints",)

    def __init__(self, *, checkpoints: int) -> None:
        self.checkpoints = _checkpoints(checkpoints, "/checkpoints")

    @classmethod
    def from_dict(cls, data: object) -> Profile:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Profile:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.checkpoints = _checkpoints(fields["checkpoints"], path + "/checkpoints")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {"checkpoints": self.checkpoints}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Profile):
            return NotImplemented
        return self.checkpoints == other.checkpoints

    def __repr__(self) -> str:
        return f"Profile(checkpoints={self.checkpoints!r})"


class PythonEnvironment:
    """[workers.NAME] python: the Python environment Metewand builds for the worker, whose python3
    it runs.
    """

    __slots__ = ("requirements",)

    requirements: str
    """A pinned requirements file, or a pyproject.toml whose [project] dependencies are read,
    relative to the repository.
    """

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("requirements",)

    def __init__(self, *, requirements: str) -> None:
        self.requirements = check_string(requirements, "/requirements")

    @classmethod
    def from_dict(cls, data: object) -> PythonEnvironment:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> PythonEnvironment:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.requirements = check_string(fields["requirements"], path + "/requirements")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {"requirements": self.requirements}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PythonEnvironment):
            return NotImplemented
        return self.requirements == other.requirements

    def __repr__(self) -> str:
        return f"PythonEnvironment(requirements={self.requirements!r})"


class SchemaFiles:
    """[schemas]: the repository's schema files."""

    __slots__ = ("files",)

    files: list[str] | None
    """Globs relative to the repository, each matching at least one file."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ()

    def __init__(self, *, files: list[str] | None = None) -> None:
        self.files = None if files is None else check_array(files, "/files", check_string)

    @classmethod
    def from_dict(cls, data: object) -> SchemaFiles:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> SchemaFiles:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        if "files" in fields:
            model.files = check_array(fields["files"], path + "/files", check_string)
        else:
            model.files = None
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        data: dict[str, Any] = {}
        if self.files is not None:
            data["files"] = list(self.files)
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SchemaFiles):
            return NotImplemented
        return self.files == other.files

    def __repr__(self) -> str:
        return f"SchemaFiles(files={self.files!r})"


class SeedRange:
    """count consecutive seeds from from; the loader also refuses a range that passes the largest
    safe integer.
    """

    __slots__ = ("count", "from_")

    count: int
    """A whole number of at least 1, within the safe range."""

    from_: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(("count", "from"))
    _REQUIRED = ("count", "from")

    def __init__(self, *, count: int, from_: int) -> None:
        self.count = _positive_count(count, "/count")
        self.from_ = _safe_uint(from_, "/from")

    @classmethod
    def from_dict(cls, data: object) -> SeedRange:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> SeedRange:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.count = _positive_count(fields["count"], path + "/count")
        model.from_ = _safe_uint(fields["from"], path + "/from")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {"count": self.count, "from": self.from_}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SeedRange):
            return NotImplemented
        return self.count == other.count and self.from_ == other.from_

    def __repr__(self) -> str:
        return f"SeedRange(count={self.count!r}, from_={self.from_!r})"


class Timeouts:
    """[timeouts]: the longest each phase may take, for the phases declared; the others keep their
    defaults.
    """

    __slots__ = ("evaluate", "execute", "hello", "materialize", "prepare", "reset", "shutdown")

    evaluate: float | None
    """A positive number of seconds."""

    execute: float | None
    """A positive number of seconds."""

    hello: float | None
    """A positive number of seconds."""

    materialize: float | None
    """A positive number of seconds."""

    prepare: float | None
    """A positive number of seconds."""

    reset: float | None
    """A positive number of seconds."""

    shutdown: float | None
    """A positive number of seconds."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ()

    def __init__(
        self,
        *,
        evaluate: float | None = None,
        execute: float | None = None,
        hello: float | None = None,
        materialize: float | None = None,
        prepare: float | None = None,
        reset: float | None = None,
        shutdown: float | None = None,
    ) -> None:
        self.evaluate = None if evaluate is None else _seconds(evaluate, "/evaluate")
        self.execute = None if execute is None else _seconds(execute, "/execute")
        self.hello = None if hello is None else _seconds(hello, "/hello")
        self.materialize = None if materialize is None else _seconds(materialize, "/materialize")
        self.prepare = None if prepare is None else _seconds(prepare, "/prepare")
        self.reset = None if reset is None else _seconds(reset, "/reset")
        self.shutdown = None if shutdown is None else _seconds(shutdown, "/shutdown")

    @classmethod
    def from_dict(cls, data: object) -> Timeouts:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Timeouts:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        if "evaluate" in fields:
            model.evaluate = _seconds(fields["evaluate"], path + "/evaluate")
        else:
            model.evaluate = None
        if "execute" in fields:
            model.execute = _seconds(fields["execute"], path + "/execute")
        else:
            model.execute = None
        if "hello" in fields:
            model.hello = _seconds(fields["hello"], path + "/hello")
        else:
            model.hello = None
        if "materialize" in fields:
            model.materialize = _seconds(fields["materialize"], path + "/materialize")
        else:
            model.materialize = None
        if "prepare" in fields:
            model.prepare = _seconds(fields["prepare"], path + "/prepare")
        else:
            model.prepare = None
        if "reset" in fields:
            model.reset = _seconds(fields["reset"], path + "/reset")
        else:
            model.reset = None
        if "shutdown" in fields:
            model.shutdown = _seconds(fields["shutdown"], path + "/shutdown")
        else:
            model.shutdown = None
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        data: dict[str, Any] = {}
        if self.evaluate is not None:
            data["evaluate"] = self.evaluate
        if self.execute is not None:
            data["execute"] = self.execute
        if self.hello is not None:
            data["hello"] = self.hello
        if self.materialize is not None:
            data["materialize"] = self.materialize
        if self.prepare is not None:
            data["prepare"] = self.prepare
        if self.reset is not None:
            data["reset"] = self.reset
        if self.shutdown is not None:
            data["shutdown"] = self.shutdown
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Timeouts):
            return NotImplemented
        return (
            self.evaluate == other.evaluate
            and self.execute == other.execute
            and self.hello == other.hello
            and self.materialize == other.materialize
            and self.prepare == other.prepare
            and self.reset == other.reset
            and self.shutdown == other.shutdown
        )

    def __repr__(self) -> str:
        return (
            f"Timeouts(evaluate={self.evaluate!r}, execute={self.execute!r}, hello={self.hello!r}, "
            f"materialize={self.materialize!r}, prepare={self.prepare!r}, reset={self.reset!r}, "
            f"shutdown={self.shutdown!r})"
        )


class Worker:
    """[workers.NAME]: a worker program, its role, and what it may use."""

    __slots__ = (
        "adapter",
        "command",
        "deterministic",
        "env",
        "identity",
        "include",
        "network",
        "python",
        "result_data",
        "role",
        "source",
        "syscalls",
    )

    adapter: Literal["command"] | None
    """How the worker speaks the protocol: absent, its command does; \"command\", Metewand's own
    adapter does and runs the command once per request, its words' placeholders ({dataset},
    {result}, {metrics}, {seed}, {parameters}, {tmp}) replaced.
    """

    command: list[str]
    """The program and its arguments; ${repo} is the repository's path. The loader also refuses an
    empty program name.
    """

    deterministic: Literal["seeded", "seed-independent"] | None
    """How the worker's output depends on its seed."""

    env: dict[str, str] | None
    """Environment variables; ${repo} is the repository's path."""

    identity: list[Literal["environment"]] | None
    """What the worker's identity covers beside its declaration and its files: \"environment\", the
    Python distributions its interpreter imports (name, version and RECORD digest of each), or
    for a worker that declares python.requirements, that declaration's digest.
    """

    include: list[str] | None
    """Folders outside the source copied beside it, relative to the repository."""

    network: bool | None
    """Whether the worker may reach the network."""

    python: PythonEnvironment | None
    """[workers.NAME] python: the Python environment Metewand builds for the worker, whose python3
    it runs.
    """

    result_data: str | None
    """With adapter = \"command\": the file, relative to the folder the command writes (a
    materializer's dataset, an implementation's result), that holds the one JSON object of the
    manifest's data; without it, the data is what the command prints on stdout.
    """

    role: Role
    """The role a worker process serves."""

    source: str
    """The worker's source directory, relative to the repository (. for the repository)."""

    syscalls: list[SyscallGroup] | None
    """Groups of system calls the worker may make beyond the default filter."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("command", "role", "source")

    def __init__(
        self,
        *,
        adapter: Literal["command"] | None = None,
        command: list[str],
        deterministic: Literal["seeded", "seed-independent"] | None = None,
        env: dict[str, str] | None = None,
        identity: list[Literal["environment"]] | None = None,
        include: list[str] | None = None,
        network: bool | None = None,
        python: PythonEnvironment | None = None,
        result_data: str | None = None,
        role: Role,
        source: str,
        syscalls: list[SyscallGroup] | None = None,
    ) -> None:
        self.adapter = (
            None if adapter is None else check_enum(adapter, "/adapter", _WORKER_ADAPTER_VALUES)
        )
        self.command = check_array(command, "/command", _process_text, min_items=1)
        self.deterministic = (
            None
            if deterministic is None
            else check_enum(deterministic, "/deterministic", _WORKER_DETERMINISTIC_VALUES)
        )
        self.env = None if env is None else check_map(env, "/env", _process_text, key=_env_name)
        self.identity = (
            None
            if identity is None
            else check_array(identity, "/identity", check_enum, _WORKER_IDENTITY_ITEM_VALUES)
        )
        self.include = None if include is None else check_array(include, "/include", check_string)
        self.network = None if network is None else check_boolean(network, "/network")
        self.python = None if python is None else check_model(python, "/python", PythonEnvironment)
        self.result_data = (
            None if result_data is None else check_string(result_data, "/result_data", min_length=1)
        )
        self.role = _role(role, "/role")
        self.source = check_string(source, "/source")
        self.syscalls = (
            None if syscalls is None else check_array(syscalls, "/syscalls", _syscall_group)
        )

    @classmethod
    def from_dict(cls, data: object) -> Worker:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Worker:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        if "adapter" in fields:
            model.adapter = check_enum(fields["adapter"], path + "/adapter", _WORKER_ADAPTER_VALUES)
        else:
            model.adapter = None
        model.command = check_array(
            fields["command"], path + "/command", _process_text, min_items=1
        )
        if "deterministic" in fields:
            model.deterministic = check_enum(
                fields["deterministic"], path + "/deterministic", _WORKER_DETERMINISTIC_VALUES
            )
        else:
            model.deterministic = None
        if "env" in fields:
            model.env = check_map(fields["env"], path + "/env", _process_text, key=_env_name)
        else:
            model.env = None
        if "identity" in fields:
            model.identity = check_array(
                fields["identity"], path + "/identity", check_enum, _WORKER_IDENTITY_ITEM_VALUES
            )
        else:
            model.identity = None
        if "include" in fields:
            model.include = check_array(fields["include"], path + "/include", check_string)
        else:
            model.include = None
        if "network" in fields:
            model.network = check_boolean(fields["network"], path + "/network")
        else:
            model.network = None
        if "python" in fields:
            model.python = PythonEnvironment._decode(fields["python"], path + "/python")
        else:
            model.python = None
        if "result_data" in fields:
            model.result_data = check_string(
                fields["result_data"], path + "/result_data", min_length=1
            )
        else:
            model.result_data = None
        model.role = _role(fields["role"], path + "/role")
        model.source = check_string(fields["source"], path + "/source")
        if "syscalls" in fields:
            model.syscalls = check_array(fields["syscalls"], path + "/syscalls", _syscall_group)
        else:
            model.syscalls = None
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        data: dict[str, Any] = {}
        if self.adapter is not None:
            data["adapter"] = self.adapter
        data["command"] = list(self.command)
        if self.deterministic is not None:
            data["deterministic"] = self.deterministic
        if self.env is not None:
            data["env"] = dict(self.env)
        if self.identity is not None:
            data["identity"] = list(self.identity)
        if self.include is not None:
            data["include"] = list(self.include)
        if self.network is not None:
            data["network"] = self.network
        if self.python is not None:
            data["python"] = self.python.to_dict()
        if self.result_data is not None:
            data["result_data"] = self.result_data
        data["role"] = self.role
        data["source"] = self.source
        if self.syscalls is not None:
            data["syscalls"] = list(self.syscalls)
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Worker):
            return NotImplemented
        return (
            self.adapter == other.adapter
            and self.command == other.command
            and self.deterministic == other.deterministic
            and self.env == other.env
            and self.identity == other.identity
            and self.include == other.include
            and self.network == other.network
            and self.python == other.python
            and self.result_data == other.result_data
            and self.role == other.role
            and self.source == other.source
            and self.syscalls == other.syscalls
        )

    def __repr__(self) -> str:
        return (
            f"Worker(adapter={self.adapter!r}, command={self.command!r}, "
            f"deterministic={self.deterministic!r}, env={self.env!r}, identity={self.identity!r}, "
            f"include={self.include!r}, network={self.network!r}, python={self.python!r}, "
            f"result_data={self.result_data!r}, role={self.role!r}, source={self.source!r}, "
            f"syscalls={self.syscalls!r})"
        )


# The class of each definition in the schema, by its name under $defs (None for the root).
DEFINITIONS: dict[str | None, type] = {
    None: RepositoryDefinition,
    "budgets": Budgets,
    "campaign": Campaign,
    "dataset": Dataset,
    "implementation": Implementation,
    "limits": Limits,
    "problem": Problem,
    "profile": Profile,
    "python_environment": PythonEnvironment,
    "schema_files": SchemaFiles,
    "seed_range": SeedRange,
    "timeouts": Timeouts,
    "worker": Worker,
}
