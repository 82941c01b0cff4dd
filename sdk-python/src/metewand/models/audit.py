# Generated from schemas/audit.schema.json by codegen; do not edit. Regenerate with: cargo xtask codegen
"""Metewand audit.

audits/<id>/audit.json in a campaign folder: a sample of the campaign's done attempts run again
in fresh sessions, in another order, each compared with its record (its verdict) and with its
cell's repetitions (its time), written atomically once every re-run has its record. seed draws
the sample and its order (the same seed, the same attempts in the same order); sample is how many
were drawn, done how many done attempts (judged to the end) they were drawn from; a re-run's time
may fall tolerance_percent beyond its cell's fastest and slowest time, and slack_ns beyond that,
for times too short for a percentage to mean anything.

Each class checks its constructor's arguments, decodes parsed JSON strictly with from_dict
(raising ModelError with the JSON Pointer of the first value the schema refuses) and encodes with
to_dict. DEFINITIONS maps the schema's definition names to the classes.
"""

from __future__ import annotations

from metewand._strict import (
    ModelError,
    check_array,
    check_boolean,
    check_model,
    check_object,
    check_string,
)
from metewand.models.attempt_record import _outcome
from metewand.models.common import _attempt_id, _format, _safe_uint, _timestamp, _verdict

# Annotations are strings (see the __future__ import), so typing is needed only by type checkers.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal
    from metewand.models.attempt_record import Outcome
    from metewand.models.common import Verdict

__all__ = ["Audit", "AuditedAttempt", "DEFINITIONS", "Interval", "ModelError", "Observation"]


class Audit:
    """Metewand audit.

    audits/<id>/audit.json in a campaign folder: a sample of the campaign's done attempts run
    again in fresh sessions, in another order, each compared with its record (its verdict) and
    with its cell's repetitions (its time), written atomically once every re-run has its record.
    seed draws the sample and its order (the same seed, the same attempts in the same order);
    sample is how many were drawn, done how many done attempts (judged to the end) they were
    drawn from; a re-run's time may fall tolerance_percent beyond its cell's fastest and slowest
    time, and slack_ns beyond that, for times too short for a percentage to mean anything.
    """

    __slots__ = (
        "attempts",
        "campaign",
        "done",
        "finished_at",
        "format",
        "repository",
        "sample",
        "seed",
        "slack_ns",
        "started_at",
        "tolerance_percent",
    )

    attempts: list[AuditedAttempt]
    """The attempts run again, in the order they ran."""

    campaign: str
    """The campaign's name, as its campaign.json holds it."""

    done: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    finished_at: str
    """An RFC 3339 timestamp in UTC."""

    format: Literal[1]
    """A document's format: 1, the only one this version reads."""

    repository: str
    """The repository the attempts ran again from, as campaign.json names it."""

    sample: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    seed: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    slack_ns: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    started_at: str
    """An RFC 3339 timestamp in UTC."""

    tolerance_percent: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = (
        "attempts",
        "campaign",
        "done",
        "finished_at",
        "format",
        "repository",
        "sample",
        "seed",
        "slack_ns",
        "started_at",
        "tolerance_percent",
    )

    def __init__(
        self,
        *,
        attempts: list[AuditedAttempt],
        campaign: str,
        done: int,
        finished_at: str,
        format: Literal[1] = 1,
        repository: str,
        sample: int,
        seed: int,
        slack_ns: int,
        started_at: str,
        tolerance_percent: int,
    ) -> None:
        self.attempts = check_array(attempts, "/attempts", check_model, AuditedAttempt)
        self.campaign = check_string(campaign, "/campaign")
        self.done = _safe_uint(done, "/done")
        self.finished_at = _timestamp(finished_at, "/finished_at")
        self.format = _format(format, "/format")
        self.repository = check_string(repository, "/repository")
        self.sample = _safe_uint(sample, "/sample")
        self.seed = _safe_uint(seed, "/seed")
        self.slack_ns = _safe_uint(slack_ns, "/slack_ns")
        self.started_at = _timestamp(started_at, "/started_at")
        self.tolerance_percent = _safe_uint(tolerance_percent, "/tolerance_percent")

    @classmethod
    def from_dict(cls, data: object) -> Audit:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Audit:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.attempts = check_array(fields["attempts"], path + "/attempts", AuditedAttempt._decode)
        model.campaign = check_string(fields["campaign"], path + "/campaign")
        model.done = _safe_uint(fields["done"], path + "/done")
        model.finished_at = _timestamp(fields["finished_at"], path + "/finished_at")
        model.format = _format(fields["format"], path + "/format")
        model.repository = check_string(fields["repository"], path + "/repository")
        model.sample = _safe_uint(fields["sample"], path + "/sample")
        model.seed = _safe_uint(fields["seed"], path + "/seed")
        model.slack_ns = _safe_uint(fields["slack_ns"], path + "/slack_ns")
        model.started_at = _timestamp(fields["started_at"], path + "/started_at")
        model.tolerance_percent = _safe_uint(
            fields["tolerance_percent"], path + "/tolerance_percent"
        )
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {
            "attempts": [item.to_dict() for item in self.attempts],
            "campaign": self.campaign,
            "done": self.done,
            "finished_at": self.finished_at,
            "format": self.format,
            "repository": self.repository,
            "sample": self.sample,
            "seed": self.seed,
            "slack_ns": self.slack_ns,
            "started_at": self.started_at,
            "tolerance_percent": self.tolerance_percent,
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Audit):
            return NotImplemented
        return (
            self.attempts == other.attempts
            and self.campaign == other.campaign
            and self.done == other.done
            and self.finished_at == other.finished_at
            and self.format == other.format
            and self.repository == other.repository
            and self.sample == other.sample
            and self.seed == other.seed
            and self.slack_ns == other.slack_ns
            and self.started_at == other.started_at
            and self.tolerance_percent == other.tolerance_percent
        )

    def __repr__(self) -> str:
        return (
            f"Audit(attempts={self.attempts!r}, campaign={self.campaign!r}, done={self.done!r}, "
            f"finished_at={self.finished_at!r}, format={self.format!r}, "
            f"repository={self.repository!r}, sample={self.sample!r}, seed={self.seed!r}, "
            f"slack_ns={self.slack_ns!r}, started_at={self.started_at!r}, "
            f"tolerance_percent={self.tolerance_percent!r})"
        )


class AuditedAttempt:
    """One attempt run again: what its record says, what the re-run's record (in folder, relative to
    the audit's) says, the interval of its cell's times, and whether either differs.
    """

    __slots__ = (
        "attempt_id",
        "folder",
        "interval",
        "recorded",
        "rerun",
        "time_outside",
        "verdict_changed",
    )

    attempt_id: str
    """A campaign attempt's stable id: SHA-256 of the canonical preimage of its cell and
    repetition.
    """

    folder: str

    interval: Interval
    """The times a re-run of the cell may take: its repetitions' fastest and slowest in the
    campaign, widened by tolerance_percent of each and by slack_ns; repetitions is how many timed
    attempts of the cell the campaign holds.
    """

    recorded: Observation
    """How an attempt ended: its outcome, its verdict and its time by what its problem ranks (null
    when it was not judged to the end).
    """

    rerun: Observation
    """How an attempt ended: its outcome, its verdict and its time by what its problem ranks (null
    when it was not judged to the end).
    """

    time_outside: bool
    """Whether the re-run was timed outside its cell's interval, or not timed at all."""

    verdict_changed: bool
    """Whether the re-run ended with another outcome or verdict than the record."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = (
        "attempt_id",
        "folder",
        "interval",
        "recorded",
        "rerun",
        "time_outside",
        "verdict_changed",
    )

    def __init__(
        self,
        *,
        attempt_id: str,
        folder: str,
        interval: Interval,
        recorded: Observation,
        rerun: Observation,
        time_outside: bool,
        verdict_changed: bool,
    ) -> None:
        self.attempt_id = _attempt_id(attempt_id, "/attempt_id")
        self.folder = check_string(folder, "/folder")
        self.interval = check_model(interval, "/interval", Interval)
        self.recorded = check_model(recorded, "/recorded", Observation)
        self.rerun = check_model(rerun, "/rerun", Observation)
        self.time_outside = check_boolean(time_outside, "/time_outside")
        self.verdict_changed = check_boolean(verdict_changed, "/verdict_changed")

    @classmethod
    def from_dict(cls, data: object) -> AuditedAttempt:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> AuditedAttempt:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.attempt_id = _attempt_id(fields["attempt_id"], path + "/attempt_id")
        model.folder = check_string(fields["folder"], path + "/folder")
        model.interval = Interval._decode(fields["interval"], path + "/interval")
        model.recorded = Observation._decode(fields["recorded"], path + "/recorded")
        model.rerun = Observation._decode(fields["rerun"], path + "/rerun")
        model.time_outside = check_boolean(fields["time_outside"], path + "/time_outside")
        model.verdict_changed = check_boolean(fields["verdict_changed"], path + "/verdict_changed")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {
            "attempt_id": self.attempt_id,
            "folder": self.folder,
            "interval": self.interval.to_dict(),
            "recorded": self.recorded.to_dict(),
            "rerun": self.rerun.to_dict(),
            "time_outside": self.time_outside,
            "verdict_changed": self.verdict_changed,
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AuditedAttempt):
            return NotImplemented
        return (
            self.attempt_id == other.attempt_id
            and self.folder == other.folder
            and self.interval == other.interval
            and self.recorded == other.recorded
            and self.rerun == other.rerun
            and self.time_outside == other.time_outside
            and self.verdict_changed == other.verdict_changed
        )

    def __repr__(self) -> str:
        return (
            f"AuditedAttempt(attempt_id={self.attempt_id!r}, folder={self.folder!r}, "
            f"interval={self.interval!r}, recorded={self.recorded!r}, rerun={self.rerun!r}, "
            f"time_outside={self.time_outside!r}, verdict_changed={self.verdict_changed!r})"
        )


class Interval:
    """The times a re-run of the cell may take: its repetitions' fastest and slowest in the
    campaign, widened by tolerance_percent of each and by slack_ns; repetitions is how many timed
    attempts of the cell the campaign holds.
    """

    __slots__ = ("high_ns", "low_ns", "repetitions")

    high_ns: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    low_ns: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    repetitions: int
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("high_ns", "low_ns", "repetitions")

    def __init__(self, *, high_ns: int, low_ns: int, repetitions: int) -> None:
        self.high_ns = _safe_uint(high_ns, "/high_ns")
        self.low_ns = _safe_uint(low_ns, "/low_ns")
        self.repetitions = _safe_uint(repetitions, "/repetitions")

    @classmethod
    def from_dict(cls, data: object) -> Interval:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Interval:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.high_ns = _safe_uint(fields["high_ns"], path + "/high_ns")
        model.low_ns = _safe_uint(fields["low_ns"], path + "/low_ns")
        model.repetitions = _safe_uint(fields["repetitions"], path + "/repetitions")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {"high_ns": self.high_ns, "low_ns": self.low_ns, "repetitions": self.repetitions}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Interval):
            return NotImplemented
        return (
            self.high_ns == other.high_ns
            and self.low_ns == other.low_ns
            and self.repetitions == other.repetitions
        )

    def __repr__(self) -> str:
        return (
            f"Interval(high_ns={self.high_ns!r}, low_ns={self.low_ns!r}, "
            f"repetitions={self.repetitions!r})"
        )


class Observation:
    """How an attempt ended: its outcome, its verdict and its time by what its problem ranks (null
    when it was not judged to the end).
    """

    __slots__ = ("outcome", "time_ns", "verdict")

    outcome: Outcome
    """How the attempt ended: the validated verdict when every session succeeded, otherwise failed
    or cancelled.
    """

    time_ns: int | None
    """An integer from 0 to 2^53 - 1, exactly representable as an IEEE-754 double."""

    verdict: Verdict | None
    """The problem-owned verdict on an implementation's result."""

    # What from_dict accepts: these members and no others, the required ones always.
    _PROPERTIES = frozenset(__slots__)
    _REQUIRED = ("outcome", "time_ns", "verdict")

    def __init__(self, *, outcome: Outcome, time_ns: int | None, verdict: Verdict | None) -> None:
        self.outcome = _outcome(outcome, "/outcome")
        self.time_ns = None if time_ns is None else _safe_uint(time_ns, "/time_ns")
        self.verdict = None if verdict is None else _verdict(verdict, "/verdict")

    @classmethod
    def from_dict(cls, data: object) -> Observation:
        """Decodes parsed JSON strictly; raises ModelError at the first value the schema refuses."""
        return cls._decode(data, "")

    @classmethod
    def _decode(cls, data: object, path: str) -> Observation:
        """from_dict for a value at the JSON Pointer ``path`` within a larger document."""
        fields = check_object(data, path, cls._PROPERTIES, cls._REQUIRED)
        model = cls.__new__(cls)
        model.outcome = _outcome(fields["outcome"], path + "/outcome")
        model.time_ns = (
            None if fields["time_ns"] is None else _safe_uint(fields["time_ns"], path + "/time_ns")
        )
        model.verdict = (
            None if fields["verdict"] is None else _verdict(fields["verdict"], path + "/verdict")
        )
        return model

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form: members in name order, absent optional members left out."""
        return {"outcome": self.outcome, "time_ns": self.time_ns, "verdict": self.verdict}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Observation):
            return NotImplemented
        return (
            self.outcome == other.outcome
            and self.time_ns == other.time_ns
            and self.verdict == other.verdict
        )

    def __repr__(self) -> str:
        return (
            f"Observation(outcome={self.outcome!r}, time_ns={self.time_ns!r}, "
            f"verdict={self.verdict!r})"
        )


# The class of each definition in the schema, by its name under $defs (None for the root).
DEFINITIONS: dict[str | None, type] = {
    None: Audit,
    "audited_attempt": AuditedAttempt,
    "interval": Interval,
    "observation": Observation,
}
