"""The typed parts of a setting's result record (summary.json; schema
benchreport/schemas/setting-result.schema.json).

Rule stats builds these frozen records and rule report assembles them into the record; every
renderer reads the record and computes nothing. `as_json` turns one into the plain data written
to disk (tuples become lists there), so the files stay data and carry no code.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass


@dataclass(frozen=True)
class Interval:
    """An interval at a confidence level, with the method that gave it and what it covers."""

    method: str
    low: float | None
    high: float | None
    level: float
    covers: str


@dataclass(frozen=True)
class TaskRow:
    """One task of a setting: its trials in try order (their ids), passes, rate and its interval."""

    task: str
    trials: int
    passed: int
    rate: float
    interval: Interval
    rewards: tuple
    mean_reward: float
    outcomes: tuple
    timed_out: int
    task_digests: tuple
    trial_ids: tuple
    mean_cost_usd: float | None  # over the trials with a recorded cost (all attempts)
    controls: dict | None = None  # the task's controls verdict (stats.control_summary), agents only


@dataclass(frozen=True)
class CostMeasure:
    """One cost measure, defined once: a label, what is divided by what, and the value.

    `trials` says which trials the numerator covers: "counted" (those the pass rate counts) or
    "all" (every attempt of the setting)."""

    key: str
    label: str
    numerator: str
    denominator: str
    denominator_count: int
    numerator_usd: float | None
    value_usd: float | None
    interval: dict | None
    trials: str


@dataclass(frozen=True)
class LeftOutRow:
    """One thing left out of a setting's numbers or not recorded: an attempt, a file, a task
    (its controls), an image (not inspected), a duplicate; with the reason and the effect."""

    kind: str
    job: str
    folder: str
    file: str
    reason: str
    effect: str
    task: str | None = None
    trials: int | None = None


def as_json(value):
    """A record (or a list of them) as plain data for JSON: dicts and lists (tuples become lists,
    so data read back from disk and data just built compare equal).

    One walk of the values, where dataclasses.asdict deep-copies every leaf first and the walk
    then copies again: 1,000 task rows of 100 tries each took 0.44-0.62 CPU s that way, 0.06-0.08 s
    this way."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {name: as_json(getattr(value, name)) for name in _field_names(type(value))}
    if isinstance(value, dict):
        return {key: as_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        if all(type(item) in _LEAVES for item in value):
            return list(value)
        return [as_json(item) for item in value]
    return value


_LEAVES = frozenset((str, int, float, bool, type(None)))


@functools.cache
def _field_names(cls) -> tuple[str, ...]:
    return tuple(field.name for field in dataclasses.fields(cls))
