"""What Metewand's documents answer beyond their fields, beside the generated models of
``metewand.models``: pure functions of a document's fields, so that every reader asks them the same
way. The Rust crate ``metewand-protocol`` answers each alike (``documents.rs``), and both pin the
same answers for the same records.

Standard library only, and nothing imported at load time.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["judged", "timed_seconds"]

_NS_PER_SECOND = 1e9


def judged(outcome: str, verdict: str | None) -> bool:
    """Whether an attempt that ended ``outcome`` with ``verdict`` was judged to the end: it has a
    verdict and neither failed nor was cancelled. Only such an attempt is timed."""
    return verdict is not None and outcome not in ("failed", "cancelled")


def timed_seconds(
    outcome: str, verdict: str | None, timed: str | None, phases: Iterable[tuple[str, str, int]]
) -> float | None:
    """An attempt's time by what its problem ranks (``timed``: ``execute``, or ``prepare+execute``;
    ``None`` for records written before it was recorded, read as ``execute``), in seconds.

    ``phases`` are the record's phases as (role, phase, nanoseconds). The time is the executor's of
    the implementation's own execute requests, and of its prepare requests with ``prepare+execute``,
    a request sent more than once counting each time; with both, the prepare seconds and the
    execute seconds are added, each converted on its own, as reports add them. None unless the
    attempt was judged to the end and the implementation was sent every request the time is of.
    """
    if not judged(outcome, verdict):
        return None
    phases = list(phases)

    def seconds(of: str) -> float | None:
        durations = [ns for role, phase, ns in phases if role == "implementation" and phase == of]
        return sum(durations) / _NS_PER_SECOND if durations else None

    execute = seconds("execute")
    if timed in (None, "execute"):
        return execute
    prepare = seconds("prepare")
    return None if prepare is None or execute is None else prepare + execute
