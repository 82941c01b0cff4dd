# Generated from schemas/campaign-file.schema.json by codegen; do not edit. Regenerate with: cargo xtask codegen
"""Metewand campaign folder index.

campaign.json in a campaign folder: the campaign's name and repository, the axes and attempts of
its last run's plan, and every run with the environment it ran in. Written atomically by each
run; its tasks on Slurm rebuild the plan from it.

Each class checks its constructor's arguments, decodes parsed JSON strictly with from_dict
(raising ModelError with the JSON Pointer of the first value the schema refuses) and encodes with
to_dict. DEFINITIONS maps the schema's definition names to the classes.
"""

from __future__ import annotations

from metewand._strict import (
    ModelError,
    check_array,
    check_boolean,
    check_const,
    check_model,
    check_object,
    check_string,
)
from metewand.models.attempt_record import PythonEnvironment
from metewand.models.common import _attempt_id, _format, _name, _safe_uint, _sha256, _timestamp

# Annotations are strings (see the __future__ import), so typing is needed only by type checkers.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import builtins
    from typing import Any, Literal

__all__ = [
    "CampaignFile",
    "DEFINITIONS",
    "Definition",
    "Environment",
    "ModelError",
    "Noise",
    "Order",
    "PlanEntry",
    "Program",
    "Run",
    "SeedAxis",
]


class CampaignFile:
    """Metewand campaign folder index.

    campaign.json in a campaign folder: the campaign's name and repository, the axes and attempts
    of its last run's plan, and every run with the environment it ran in. Written atomically by
    each run; its tasks on Slurm rebuild the plan from it.
    """

    __slots__ = ("attempts", "definition", "format", "name", "repository", "runs")

    attempts: list[PlanEntry]
    """Every attempt of the last run's plan."""

    definition: Definition
    """A campaign's axes after the command line's flags."""

    format: Literal[1]
    """A document's format: 1, the only one this version reads."""

    name: str
    """A name the repository's manifest gives: a dataset's, an implementation's, a problem's or a
    campaign's.
    """

    repository: str
    """The repository's canonical path."""

    runs: list[Run]
    """Every run in this folder, oldest first."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("attempts", "definition", "format", "name", "repository", "runs")

    def __init__(
        self,
        *,
        attempts: list[PlanEntry],
        definition: Definition,
        format: Literal[1] = 1,
        name: str,
        repository: str,
        runs: list[Run],
    ) -> None:
        self.attempts = check_array(attempts, "/attempts", check_model, PlanEntry)
        self.definition = check_model(definition, "/definition", Definition)
        self.format = _format(format, "/format")
        self.name = _name(name, "/name")
        self.repository = check_string(repository, "/repository")
        self.runs = check_array(runs, "/runs", check_model, Run)

    @classmethod
    def from_dict(cls, data: object) -> CampaignFile:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> CampaignFile:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.attempts = check_array(fields["attempts"], path + "/attempts", PlanEntry._decode)
        model.definition = Definition._decode(fields["definition"], path + "/definition")
        model.format = _format(fields["format"], path + "/format")
        model.name = _name(fields["name"], path + "/name")
        model.repository = check_string(fields["repository"], path + "/repository")
        model.runs = check_array(fields["runs"], path + "/runs", Run._decode)
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {
            "attempts": [item.to_dict() for item in self.attempts],
            "definition": self.definition.to_dict(),
            "format": self.format,
            "name": self.name,
            "repository": self.repository,
            "runs": [item.to_dict() for item in self.runs],
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CampaignFile):
            return NotImplemented
        return (
            self.attempts == other.attempts
            and self.definition == other.definition
            and self.format == other.format
            and self.name == other.name
            and self.repository == other.repository
            and self.runs == other.runs
        )

    def __repr__(self) -> str:
        return (
            f"CampaignFile(attempts={self.attempts!r}, definition={self.definition!r}, "
            f"format={self.format!r}, name={self.name!r}, repository={self.repository!r}, "
            f"runs={self.runs!r})"
        )


class Definition:
    """A campaign's axes after the command line's flags."""

    __slots__ = (
        "dataset_seeds",
        "datasets",
        "implementation_seeds",
        "implementations",
        "name",
        "problems",
        "repetitions",
    )

    dataset_seeds: SeedAxis
    """A seed axis: either list (the seeds listed), or first and count (count consecutive seeds from
    first); a reader refuses any other combination.
    """

    datasets: list[str]
    """Dataset names."""

    implementation_seeds: SeedAxis
    """A seed axis: either list (the seeds listed), or first and count (count consecutive seeds from
    first); a reader refuses any other combination.
    """

    implementations: list[str]
    """Implementation names."""

    name: str
    """A name the repository's manifest gives: a dataset's, an implementation's, a problem's or a
    campaign's.
    """

    problems: list[str]
    """Problem names."""

    repetitions: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = (
        "dataset_seeds",
        "datasets",
        "implementation_seeds",
        "implementations",
        "name",
        "problems",
        "repetitions",
    )

    def __init__(
        self,
        *,
        dataset_seeds: SeedAxis,
        datasets: list[str],
        implementation_seeds: SeedAxis,
        implementations: list[str],
        name: str,
        problems: list[str],
        repetitions: int,
    ) -> None:
        self.dataset_seeds = check_model(dataset_seeds, "/dataset_seeds", SeedAxis)
        self.datasets = check_array(datasets, "/datasets", _name)
        self.implementation_seeds = check_model(
            implementation_seeds, "/implementation_seeds", SeedAxis
        )
        self.implementations = check_array(implementations, "/implementations", _name)
        self.name = _name(name, "/name")
        self.problems = check_array(problems, "/problems", _name)
        self.repetitions = _safe_uint(repetitions, "/repetitions")

    @classmethod
    def from_dict(cls, data: object) -> Definition:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Definition:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.dataset_seeds = SeedAxis._decode(fields["dataset_seeds"], path + "/dataset_seeds")
        model.datasets = check_array(fields["datasets"], path + "/datasets", _name)
        model.implementation_seeds = SeedAxis._decode(
            fields["implementation_seeds"], path + "/implementation_seeds"
        )
        model.implementations = check_array(
            fields["implementations"], path + "/implementations", _name
        )
        model.name = _name(fields["name"], path + "/name")
        model.problems = check_array(fields["problems"], path + "/problems", _name)
        model.repetitions = _safe_uint(fields["repetitions"], path + "/repetitions")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {
            "dataset_seeds": self.dataset_seeds.to_dict(),
            "datasets": list(self.datasets),
            "implementation_seeds": self.implementation_seeds.to_dict(),
            "implementations": list(self.implementations),
            "name": self.name,
            "problems": list(self.problems),
            "repetitions": self.repetitions,
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Definition):
            return NotImplemented
        return (
            self.dataset_seeds == other.dataset_seeds
            and self.datasets == other.datasets
            and self.implementation_seeds == other.implementation_seeds
            and self.implementations == other.implementations
            and self.name == other.name
            and self.problems == other.problems
            and self.repetitions == other.repetitions
        )

    def __repr__(self) -> str:
        return (
            f"Definition(dataset_seeds={self.dataset_seeds!r}, datasets={self.datasets!r}, "
            f"implementation_seeds={self.implementation_seeds!r}, "
            f"implementations={self.implementations!r}, name={self.name!r}, "
            f"problems={self.problems!r}, repetitions={self.repetitions!r})"
        )


class Environment:
    """The machine and programs of one run; a value that could not be read is null."""

    __slots__ = (
        "cpu_model",
        "git_commit",
        "git_dirty",
        "host",
        "kernel",
        "logical_cpus",
        "memory_bytes",
        "metewand_version",
        "noise",
        "os",
        "workers",
    )

    cpu_model: str | None
    """The CPU model."""

    git_commit: str | None
    """The repository's git commit, when it is a git checkout."""

    git_dirty: bool | None
    """Whether the checkout has uncommitted changes."""

    host: str | None
    """The host name."""

    kernel: str | None
    """The kernel release."""

    logical_cpus: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    memory_bytes: int | None
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    metewand_version: str
    """Metewand's version."""

    noise: Noise | None
    """What skews times on the machine, read from the kernel when the run started (what `metewand
    doctor` shows); a value that could not be read is null. Absent in a folder written before
    runs recorded it.
    """

    os: str | None
    """The OS (/proc/sys/kernel/ostype)."""

    workers: list[Program]
    """Each worker's program, in the order of the workers' names."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = (
        "cpu_model",
        "git_commit",
        "git_dirty",
        "host",
        "kernel",
        "logical_cpus",
        "memory_bytes",
        "metewand_version",
        "os",
        "workers",
    )

    def __init__(
        self,
        *,
        cpu_model: str | None,
        git_commit: str | None,
        git_dirty: bool | None,
        host: str | None,
        kernel: str | None,
        logical_cpus: int,
        memory_bytes: int | None,
        metewand_version: str,
        noise: Noise | None = None,
        os: str | None,
        workers: list[Program],
    ) -> None:
        self.cpu_model = None if cpu_model is None else check_string(cpu_model, "/cpu_model")
        self.git_commit = None if git_commit is None else check_string(git_commit, "/git_commit")
        self.git_dirty = None if git_dirty is None else check_boolean(git_dirty, "/git_dirty")
        self.host = None if host is None else check_string(host, "/host")
        self.kernel = None if kernel is None else check_string(kernel, "/kernel")
        self.logical_cpus = _safe_uint(logical_cpus, "/logical_cpus")
        self.memory_bytes = (
            None if memory_bytes is None else _safe_uint(memory_bytes, "/memory_bytes")
        )
        self.metewand_version = check_string(metewand_version, "/metewand_version")
        self.noise = None if noise is None else check_model(noise, "/noise", Noise)
        self.os = None if os is None else check_string(os, "/os")
        self.workers = check_array(workers, "/workers", check_model, Program)

    @classmethod
    def from_dict(cls, data: object) -> Environment:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Environment:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.cpu_model = (
            None
            if fields["cpu_model"] is None
            else check_string(fields["cpu_model"], path + "/cpu_model")
        )
        model.git_commit = (
            None
            if fields["git_commit"] is None
            else check_string(fields["git_commit"], path + "/git_commit")
        )
        model.git_dirty = (
            None
            if fields["git_dirty"] is None
            else check_boolean(fields["git_dirty"], path + "/git_dirty")
        )
        model.host = (
            None if fields["host"] is None else check_string(fields["host"], path + "/host")
        )
        model.kernel = (
            None if fields["kernel"] is None else check_string(fields["kernel"], path + "/kernel")
        )
        model.logical_cpus = _safe_uint(fields["logical_cpus"], path + "/logical_cpus")
        model.memory_bytes = (
            None
            if fields["memory_bytes"] is None
            else _safe_uint(fields["memory_bytes"], path + "/memory_bytes")
        )
        model.metewand_version = check_string(
            fields["metewand_version"], path + "/metewand_version"
        )
        if "noise" in fields:
            model.noise = Noise._decode(fields["noise"], path + "/noise")
        else:
            model.noise = None
        model.os = None if fields["os"] is None else check_string(fields["os"], path + "/os")
        model.workers = check_array(fields["workers"], path + "/workers", Program._decode)
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        data: dict[str, Any] = {
            "cpu_model": self.cpu_model,
            "git_commit": self.git_commit,
            "git_dirty": self.git_dirty,
            "host": self.host,
            "kernel": self.kernel,
            "logical_cpus": self.logical_cpus,
            "memory_bytes": self.memory_bytes,
            "metewand_version": self.metewand_version,
        }
        if self.noise is not None:
            data["noise"] = self.noise.to_dict()
        data["os"] = self.os
        data["workers"] = [item.to_dict() for item in self.workers]
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Environment):
            return NotImplemented
        return (
            self.cpu_model == other.cpu_model
            and self.git_commit == other.git_commit
            and self.git_dirty == other.git_dirty
            and self.host == other.host
            and self.kernel == other.kernel
            and self.logical_cpus == other.logical_cpus
            and self.memory_bytes == other.memory_bytes
            and self.metewand_version == other.metewand_version
            and self.noise == other.noise
            and self.os == other.os
            and self.workers == other.workers
        )

    def __repr__(self) -> str:
        return (
            f"Environment(cpu_model={self.cpu_model!r}, git_commit={self.git_commit!r}, "
            f"git_dirty={self.git_dirty!r}, host={self.host!r}, kernel={self.kernel!r}, "
            f"logical_cpus={self.logical_cpus!r}, memory_bytes={self.memory_bytes!r}, "
            f"metewand_version={self.metewand_version!r}, noise={self.noise!r}, os={self.os!r}, "
            f"workers={self.workers!r})"
        )


class Noise:
    """What skews times on the machine, read from the kernel when the run started (what `metewand
    doctor` shows); a value that could not be read is null. Absent in a folder written before
    runs recorded it.
    """

    __slots__ = (
        "aslr",
        "governors",
        "isolated_cpus",
        "load",
        "smt",
        "swap_total_bytes",
        "swap_used_bytes",
        "turbo",
    )

    aslr: int | None
    """Address space layout randomization (kernel.randomize_va_space: 0 off, 1 partial, 2 full),
    which moves code and data between runs.
    """

    governors: list[str]
    """The CPU frequency governors of the CPUs, each once, in name order (performance keeps the
    frequency up); empty where the kernel offers no frequency scaling.
    """

    isolated_cpus: str | None
    """The CPUs isolated from the scheduler (isolcpus), in the kernel's list form; empty when
    none.
    """

    load: str | None
    """The load averages over 1, 5 and 15 minutes, as the kernel writes them (\"0.42 0.50
    0.61\").
    """

    smt: bool | None
    """Whether simultaneous multithreading is active: two logical CPUs of one core share its
    units.
    """

    swap_total_bytes: int | None
    """The swap space configured."""

    swap_used_bytes: int | None
    """The swap space in use: pages a worker touches may have to come back from disk."""

    turbo: bool | None
    """Whether the CPUs may boost above their base frequency (Intel's turbo, the cpufreq boost
    switch), which makes a time depend on temperature and on what else runs.
    """

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = (
        "aslr",
        "governors",
        "isolated_cpus",
        "load",
        "smt",
        "swap_total_bytes",
        "swap_used_bytes",
        "turbo",
    )

    def __init__(
        self,
        *,
        aslr: int | None,
        governors: list[str],
        isolated_cpus: str | None,
        load: str | None,
        smt: bool | None,
        swap_total_bytes: int | None,
        swap_used_bytes: int | None,
        turbo: bool | None,
    ) -> None:
        self.aslr = None if aslr is None else _safe_uint(aslr, "/aslr")
        self.governors = check_array(governors, "/governors", check_string)
        self.isolated_cpus = (
            None if isolated_cpus is None else check_string(isolated_cpus, "/isolated_cpus")
        )
        self.load = None if load is None else check_string(load, "/load")
        self.smt = None if smt is None else check_boolean(smt, "/smt")
        self.swap_total_bytes = (
            None if swap_total_bytes is None else _safe_uint(swap_total_bytes, "/swap_total_bytes")
        )
        self.swap_used_bytes = (
            None if swap_used_bytes is None else _safe_uint(swap_used_bytes, "/swap_used_bytes")
        )
        self.turbo = None if turbo is None else check_boolean(turbo, "/turbo")

    @classmethod
    def from_dict(cls, data: object) -> Noise:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Noise:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.aslr = None if fields["aslr"] is None else _safe_uint(fields["aslr"], path + "/aslr")
        model.governors = check_array(fields["governors"], path + "/governors", check_string)
        model.isolated_cpus = (
            None
            if fields["isolated_cpus"] is None
            else check_string(fields["isolated_cpus"], path + "/isolated_cpus")
        )
        model.load = (
            None if fields["load"] is None else check_string(fields["load"], path + "/load")
        )
        model.smt = None if fields["smt"] is None else check_boolean(fields["smt"], path + "/smt")
        model.swap_total_bytes = (
            None
            if fields["swap_total_bytes"] is None
            else _safe_uint(fields["swap_total_bytes"], path + "/swap_total_bytes")
        )
        model.swap_used_bytes = (
            None
            if fields["swap_used_bytes"] is None
            else _safe_uint(fields["swap_used_bytes"], path + "/swap_used_bytes")
        )
        model.turbo = (
            None if fields["turbo"] is None else check_boolean(fields["turbo"], path + "/turbo")
        )
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {
            "aslr": self.aslr,
            "governors": list(self.governors),
            "isolated_cpus": self.isolated_cpus,
            "load": self.load,
            "smt": self.smt,
            "swap_total_bytes": self.swap_total_bytes,
            "swap_used_bytes": self.swap_used_bytes,
            "turbo": self.turbo,
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Noise):
            return NotImplemented
        return (
            self.aslr == other.aslr
            and self.governors == other.governors
            and self.isolated_cpus == other.isolated_cpus
            and self.load == other.load
            and self.smt == other.smt
            and self.swap_total_bytes == other.swap_total_bytes
            and self.swap_used_bytes == other.swap_used_bytes
            and self.turbo == other.turbo
        )

    def __repr__(self) -> str:
        return (
            f"Noise(aslr={self.aslr!r}, governors={self.governors!r}, "
            f"isolated_cpus={self.isolated_cpus!r}, load={self.load!r}, smt={self.smt!r}, "
            f"swap_total_bytes={self.swap_total_bytes!r}, "
            f"swap_used_bytes={self.swap_used_bytes!r}, turbo={self.turbo!r})"
        )


class Order:
    """The order the run took its attempts in: interleaved, each dataset's cells (problem,
    implementation and implementation seed) taken in turn so that one cell's repetitions are
    never back to back while another cell of the dataset has attempts left, the turn among cells
    rotating each round from an order drawn with the seed. Absent in a folder written before runs
    recorded it.
    """

    __slots__ = ("rule", "seed")

    rule: Literal["interleaved"]
    """How the attempts were ordered."""

    seed: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("rule", "seed")

    def __init__(self, *, rule: Literal["interleaved"] = "interleaved", seed: int) -> None:
        self.rule = check_const(rule, "/rule", "interleaved")
        self.seed = _safe_uint(seed, "/seed")

    @classmethod
    def from_dict(cls, data: object) -> Order:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Order:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.rule = check_const(fields["rule"], path + "/rule", "interleaved")
        model.seed = _safe_uint(fields["seed"], path + "/seed")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {"rule": self.rule, "seed": self.seed}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Order):
            return NotImplemented
        return self.rule == other.rule and self.seed == other.seed

    def __repr__(self) -> str:
        return f"Order(rule={self.rule!r}, seed={self.seed!r})"


class PlanEntry:
    """One attempt of the plan: its id and inputs."""

    __slots__ = (
        "dataset",
        "dataset_key",
        "dataset_seed",
        "id",
        "implementation",
        "implementation_seed",
        "problem",
        "repetition",
    )

    dataset: str
    """A name the repository's manifest gives: a dataset's, an implementation's, a problem's or a
    campaign's.
    """

    dataset_key: str
    """A lowercase hexadecimal SHA-256 digest."""

    dataset_seed: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    id: str
    """A campaign attempt's stable id: SHA-256 of the canonical preimage of its cell and
    repetition.
    """

    implementation: str
    """A name the repository's manifest gives: a dataset's, an implementation's, a problem's or a
    campaign's.
    """

    implementation_seed: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    problem: str
    """A name the repository's manifest gives: a dataset's, an implementation's, a problem's or a
    campaign's.
    """

    repetition: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = (
        "dataset",
        "dataset_key",
        "dataset_seed",
        "id",
        "implementation",
        "implementation_seed",
        "problem",
        "repetition",
    )

    def __init__(
        self,
        *,
        dataset: str,
        dataset_key: str,
        dataset_seed: int,
        id: str,
        implementation: str,
        implementation_seed: int,
        problem: str,
        repetition: int,
    ) -> None:
        self.dataset = _name(dataset, "/dataset")
        self.dataset_key = _sha256(dataset_key, "/dataset_key")
        self.dataset_seed = _safe_uint(dataset_seed, "/dataset_seed")
        self.id = _attempt_id(id, "/id")
        self.implementation = _name(implementation, "/implementation")
        self.implementation_seed = _safe_uint(implementation_seed, "/implementation_seed")
        self.problem = _name(problem, "/problem")
        self.repetition = _safe_uint(repetition, "/repetition")

    @classmethod
    def from_dict(cls, data: object) -> PlanEntry:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> PlanEntry:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.dataset = _name(fields["dataset"], path + "/dataset")
        model.dataset_key = _sha256(fields["dataset_key"], path + "/dataset_key")
        model.dataset_seed = _safe_uint(fields["dataset_seed"], path + "/dataset_seed")
        model.id = _attempt_id(fields["id"], path + "/id")
        model.implementation = _name(fields["implementation"], path + "/implementation")
        model.implementation_seed = _safe_uint(
            fields["implementation_seed"], path + "/implementation_seed"
        )
        model.problem = _name(fields["problem"], path + "/problem")
        model.repetition = _safe_uint(fields["repetition"], path + "/repetition")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {
            "dataset": self.dataset,
            "dataset_key": self.dataset_key,
            "dataset_seed": self.dataset_seed,
            "id": self.id,
            "implementation": self.implementation,
            "implementation_seed": self.implementation_seed,
            "problem": self.problem,
            "repetition": self.repetition,
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PlanEntry):
            return NotImplemented
        return (
            self.dataset == other.dataset
            and self.dataset_key == other.dataset_key
            and self.dataset_seed == other.dataset_seed
            and self.id == other.id
            and self.implementation == other.implementation
            and self.implementation_seed == other.implementation_seed
            and self.problem == other.problem
            and self.repetition == other.repetition
        )

    def __repr__(self) -> str:
        return (
            f"PlanEntry(dataset={self.dataset!r}, dataset_key={self.dataset_key!r}, "
            f"dataset_seed={self.dataset_seed!r}, id={self.id!r}, "
            f"implementation={self.implementation!r}, "
            f"implementation_seed={self.implementation_seed!r}, problem={self.problem!r}, "
            f"repetition={self.repetition!r})"
        )


class Program:
    """A worker command's program: its first PATH match, the file it resolves to through links, that
    file's SHA-256, and its #! line when it is a script.
    """

    __slots__ = ("command", "environment", "path_match", "resolved", "script", "sha256", "worker")

    command: str
    """The command's first word as declared."""

    environment: PythonEnvironment | None
    """The Python distributions a worker imports, recorded when its program is a Python interpreter
    or a script run by one (docs/decisions/environments.md): the site-packages folders read (a
    virtual environment's, else the interpreter's prefix's), each dist-info folder's name and
    version from METADATA and the SHA-256 of its RECORD file, sorted by normalized name, and
    digest, the SHA-256 of the canonical JSON of [{name, record_sha256, version}, ...] in that
    order; absent for a program that is not Python and in records written before environments
    were recorded.
    """

    path_match: str | None
    """The first match on PATH (or the path itself when it has a /)."""

    resolved: str | None
    """The file it resolves to through symbolic links."""

    script: str | None
    """Its #! line, when it is a script (a version manager's shim is one: every start pays for
    it).
    """

    sha256: str | None
    """A lowercase hexadecimal SHA-256 digest."""

    worker: str
    """The worker's name in the repository."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("command", "path_match", "resolved", "script", "sha256", "worker")

    def __init__(
        self,
        *,
        command: str,
        environment: PythonEnvironment | None = None,
        path_match: str | None,
        resolved: str | None,
        script: str | None,
        sha256: str | None,
        worker: str,
    ) -> None:
        self.command = check_string(command, "/command")
        self.environment = (
            None
            if environment is None
            else check_model(environment, "/environment", PythonEnvironment)
        )
        self.path_match = None if path_match is None else check_string(path_match, "/path_match")
        self.resolved = None if resolved is None else check_string(resolved, "/resolved")
        self.script = None if script is None else check_string(script, "/script")
        self.sha256 = None if sha256 is None else _sha256(sha256, "/sha256")
        self.worker = check_string(worker, "/worker")

    @classmethod
    def from_dict(cls, data: object) -> Program:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Program:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.command = check_string(fields["command"], path + "/command")
        if "environment" in fields:
            model.environment = PythonEnvironment._decode(
                fields["environment"], path + "/environment"
            )
        else:
            model.environment = None
        model.path_match = (
            None
            if fields["path_match"] is None
            else check_string(fields["path_match"], path + "/path_match")
        )
        model.resolved = (
            None
            if fields["resolved"] is None
            else check_string(fields["resolved"], path + "/resolved")
        )
        model.script = (
            None if fields["script"] is None else check_string(fields["script"], path + "/script")
        )
        model.sha256 = (
            None if fields["sha256"] is None else _sha256(fields["sha256"], path + "/sha256")
        )
        model.worker = check_string(fields["worker"], path + "/worker")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        data: dict[str, Any] = {"command": self.command}
        if self.environment is not None:
            data["environment"] = self.environment.to_dict()
        data["path_match"] = self.path_match
        data["resolved"] = self.resolved
        data["script"] = self.script
        data["sha256"] = self.sha256
        data["worker"] = self.worker
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Program):
            return NotImplemented
        return (
            self.command == other.command
            and self.environment == other.environment
            and self.path_match == other.path_match
            and self.resolved == other.resolved
            and self.script == other.script
            and self.sha256 == other.sha256
            and self.worker == other.worker
        )

    def __repr__(self) -> str:
        return (
            f"Program(command={self.command!r}, environment={self.environment!r}, "
            f"path_match={self.path_match!r}, resolved={self.resolved!r}, script={self.script!r}, "
            f"sha256={self.sha256!r}, worker={self.worker!r})"
        )


class Run:
    """One run of the campaign in this folder."""

    __slots__ = ("concurrency", "environment", "order", "started_at")

    concurrency: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    environment: Environment
    """The machine and programs of one run; a value that could not be read is null."""

    order: Order | None
    """The order the run took its attempts in: interleaved, each dataset's cells (problem,
    implementation and implementation seed) taken in turn so that one cell's repetitions are
    never back to back while another cell of the dataset has attempts left, the turn among cells
    rotating each round from an order drawn with the seed. Absent in a folder written before runs
    recorded it.
    """

    started_at: str
    """An RFC 3339 timestamp in UTC."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("concurrency", "environment", "started_at")

    def __init__(
        self,
        *,
        concurrency: int,
        environment: Environment,
        order: Order | None = None,
        started_at: str,
    ) -> None:
        self.concurrency = _safe_uint(concurrency, "/concurrency")
        self.environment = check_model(environment, "/environment", Environment)
        self.order = None if order is None else check_model(order, "/order", Order)
        self.started_at = _timestamp(started_at, "/started_at")

    @classmethod
    def from_dict(cls, data: object) -> Run:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Run:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.concurrency = _safe_uint(fields["concurrency"], path + "/concurrency")
        model.environment = Environment._decode(fields["environment"], path + "/environment")
        if "order" in fields:
            model.order = Order._decode(fields["order"], path + "/order")
        else:
            model.order = None
        model.started_at = _timestamp(fields["started_at"], path + "/started_at")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        data: dict[str, Any] = {
            "concurrency": self.concurrency,
            "environment": self.environment.to_dict(),
        }
        if self.order is not None:
            data["order"] = self.order.to_dict()
        data["started_at"] = self.started_at
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Run):
            return NotImplemented
        return (
            self.concurrency == other.concurrency
            and self.environment == other.environment
            and self.order == other.order
            and self.started_at == other.started_at
        )

    def __repr__(self) -> str:
        return (
            f"Run(concurrency={self.concurrency!r}, environment={self.environment!r}, "
            f"order={self.order!r}, started_at={self.started_at!r})"
        )


class SeedAxis:
    """A seed axis: either list (the seeds listed), or first and count (count consecutive seeds from
    first); a reader refuses any other combination.
    """

    __slots__ = ("count", "first", "list")

    count: int | None
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    first: int | None
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    list: builtins.list[int] | None
    """The seeds listed."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ()

    def __init__(
        self,
        *,
        count: int | None = None,
        first: int | None = None,
        list: builtins.list[int] | None = None,
    ) -> None:
        self.count = None if count is None else _safe_uint(count, "/count")
        self.first = None if first is None else _safe_uint(first, "/first")
        self.list = None if list is None else check_array(list, "/list", _safe_uint)

    @classmethod
    def from_dict(cls, data: object) -> SeedAxis:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> SeedAxis:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        if "count" in fields:
            model.count = _safe_uint(fields["count"], path + "/count")
        else:
            model.count = None
        if "first" in fields:
            model.first = _safe_uint(fields["first"], path + "/first")
        else:
            model.first = None
        if "list" in fields:
            model.list = check_array(fields["list"], path + "/list", _safe_uint)
        else:
            model.list = None
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        data: dict[str, Any] = {}
        if self.count is not None:
            data["count"] = self.count
        if self.first is not None:
            data["first"] = self.first
        if self.list is not None:
            data["list"] = list(self.list)
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SeedAxis):
            return NotImplemented
        return self.count == other.count and self.first == other.first and self.list == other.list

    def __repr__(self) -> str:
        return f"SeedAxis(count={self.count!r}, first={self.first!r}, list={self.list!r})"


# The class of each definition in the schema, by its name under $defs (None for the root).
DEFINITIONS: dict[str | None, type] = {
    None: CampaignFile,
    "definition": Definition,
    "environment": Environment,
    "noise": Noise,
    "order": Order,
    "plan_entry": PlanEntry,
    "program": Program,
    "run": Run,
    "seed_axis": SeedAxis,
}
