"""Which attempt a record is, and whether two records of one attempt say the same.

BenchFlow names each attempt once, when it starts (`<task>__<8 hex of a uuid4>`, its
rollout_name) and records it with its task and started_at; a copy, a renamed folder or a file
re-indented or saved with other line ends keeps all three. So an attempt is known by those fields,
never by its folder's name or its file's bytes, and two records of one attempt are compared by
the values they hold, not by how the JSON is written (`content`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

# How BenchFlow names an attempt folder (rollout/_setup.py: f"{task_path.name}__{uuid4().hex[:8]}")
TRIAL_NAME = re.compile(r"^(?P<task>.+)__[0-9a-f]{8}$")

# The file that records an attempt, first found: its result, the solver's while a rubric review
# is pending, else the config it was started with.
RECORD_FILES = ("result.json", "solver.json", "config.json")


def recorded_text(value) -> str | None:
    """A recorded text field: a string with something in it, else None."""
    return value if isinstance(value, str) and value.strip() else None


def folder_task(folder: str) -> str | None:
    """The task an attempt folder's name gives (`<task>__<8 hex>`), if it is named so."""
    match = TRIAL_NAME.match(folder)
    return match.group("task") if match else None


def recorded_task(record: dict, config: dict, folder: str) -> str:
    """The task as BenchFlow groups attempts (task_name, or the legacy task_id), else the task
    folder the config names, else the attempt folder's name."""
    return (
        recorded_text(record.get("task_name"))
        or recorded_text(record.get("task_id"))
        or (Path(recorded_text(config.get("task_path")) or "").name or None)
        or folder_task(folder)
        or folder
    )


def recorded_rollout(record: dict) -> str | None:
    """BenchFlow's name for the attempt (rollout_name; trial_name before 0.4)."""
    return recorded_text(record.get("rollout_name")) or recorded_text(record.get("trial_name"))


def attempt_identity(record: dict, config: dict, folder: str) -> list | None:
    """[rollout name, task, started_at] of an attempt, None when it records neither a rollout name
    nor a start (then only the same bytes show one attempt twice)."""
    rollout = recorded_rollout(record)
    started = recorded_text(record.get("started_at")) or recorded_text(config.get("started_at"))
    if rollout is None and started is None:
        return None
    return [rollout, recorded_task(record, config, folder), started]


# Integers a double holds exactly: within them 1 and 1.0 are one value, as JSON (and a tool that
# writes 1.0 as 1) has it; a larger integer is compared as it is.
EXACT_INTEGERS = 2**53


def _same_numbers(value):
    if isinstance(value, dict):
        return {key: _same_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_same_numbers(item) for item in value]
    if type(value) is int and -EXACT_INTEGERS <= value <= EXACT_INTEGERS:
        return float(value)
    return value


def content(value) -> str | None:
    """A record's values as one text, the same however the file was written: keys in any order,
    any indentation or line ends, escaped or plain characters, 1 or 1.0. None for values nested
    too deeply to be written out, which are like no other."""
    try:
        return json.dumps(_same_numbers(value), sort_keys=True, separators=(",", ":"))
    except RecursionError:
        return None


def same_content(records: list) -> bool:
    """Whether the records hold the same values (content)."""
    contents = [content(record) for record in records]
    return None not in contents and len(set(contents)) == 1


def differing_fields(records: list[dict]) -> list[str]:
    """The top-level fields whose values are not the same in every one of the records."""
    names = sorted({name for record in records for name in record})
    return [name for name in names if not same_content([record.get(name) for record in records])]
