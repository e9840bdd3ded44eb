"""Ingest one BenchFlow job folder: attempts, trials, exclusion ledger, cross-check.

One row per attempt folder; attempts of one task collapse to one trial as BenchFlow does on
resume (`load_task_results`): the scored attempt first, then the newest. Newest is read from the
recorded finished_at/started_at, not from file times, which copying or cloning does not keep.
Every file that cannot be used, every value of the wrong type or out of range, every secret
redacted and every second place of one attempt becomes a ledger row naming the file and the reason.
"""

from __future__ import annotations

import bisect
import functools
import json
import math
import os
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from datetime import datetime
from pathlib import Path
from typing import Any

from ..compute import shapes
from . import classify, grader, provenance, settings
from .classify import LEDGER_FIELDS, LEFT_OUT, REVIEWER_RUN, interrupted_row
from .discover import (
    STRAY_RECORDS,
    TRAJECTORY,
    TRIAL_FILES,
    JobFolder,
    attempt_folders,
    linked_away,
    listing,
    redact_text,
    request_prefix,
    review_files,
    safe_part,
    try_folders,
)
from .duplicates import COUNTED_THERE
from .files import (
    MISSING,
    BadFile,
    ReadAhead,
    finite_number,
    json_type_name,
    locate,
    parse_json_bytes,
    printable,
    read_json_file,
    sha256_file,
)
from .identity import TRIAL_NAME, folder_task, recorded_rollout, recorded_task, recorded_text
from .secrets import find, secret_env_values
from .trial import TOKEN_FIELDS, as_columns, check_rows

SAMPLING_KEYS = (*settings.MAX_TOKEN_KEYS, "temperature", "top_p", *settings.EFFORT_KEYS)
SAMPLING_SET = frozenset(SAMPLING_KEYS)
FILE_IGNORED = "file ignored; the attempt still counts"
SUMMARY_IGNORED = "summary.json ignored; the cross-check is skipped"
VALUE_IGNORED = "value not recorded; the attempt still counts"
REDACTED = "value redacted; the attempt still counts"
TASK_KEPT = "the attempt counts under its recorded task"
FOLDER_NOT_READ = "folder not read; nothing under it is counted"
NOT_A_TRIAL = "file not counted: no attempt folder holds it"
# Above this a count, cost (USD) or time (s) is no real run's, and sums of such values overflow.
LIMIT = 1e12
# The most of a recorded text a ledger row quotes (a task name may run to 100,000 characters).
QUOTED = 80


def quoted(value: str) -> str:
    """A recorded text as a ledger row quotes it: in quotes, cut to QUOTED characters."""
    return repr(value[:QUOTED]) + ("…" if len(value) > QUOTED else "")


class JobReader:
    """Reads the files of one job folder, refusing links out of the root, recording hashes."""

    def __init__(self, job: JobFolder):
        self.job = job
        self.dir_str = str(job.path)
        self.root_real = os.path.realpath(job.root)
        self.source_prefix = (Path(job.root) / job.relpath).as_posix()
        self.sources: list[dict] = []
        self.ledger: list[dict] = []

    def source_path(self, relpath: str) -> str:
        """The path a lineage record names (relpath is always a clean relative path)."""
        return f"{self.source_prefix}/{relpath}"

    def locate(self, relpath: str) -> str | None:
        """The readable path of a file, None when it is absent."""
        try:
            return locate(self.dir_str, relpath, self.root_real)[0]
        except BadFile as exc:
            if exc.reason == MISSING:
                return None
            raise

    def json(self, relpath: str):
        """A file's JSON object, None when the file is absent."""
        path = self.locate(relpath)
        if path is None:
            return None
        value, sha = read_json_file(path, relpath)
        self.sources.append({"path": self.source_path(relpath), "sha256": sha})
        return value

    def noted_json(self, folder: str, relpath: str, effect: str):
        """A file's JSON object, None when the file is absent or unusable (then with a ledger row)."""
        try:
            return self.json(relpath)
        except BadFile as exc:
            self.note(folder, exc.path, exc.reason, effect)
            return None

    def review_listing(self, folder: str) -> list[dict]:
        """The files of the attempt's reviews/ and scoring/ folders as grader.trial_grading takes
        them: path, sha256, and the parsed reviewer run (reviews/<id>/result.json)."""
        entries = []
        for path in review_files(f"{self.dir_str}/{folder}"):
            relpath = f"{folder}/{path}"
            try:
                real = locate(self.dir_str, relpath, self.root_real)[0]
                parsed = path.startswith("reviews/") and path.endswith("/result.json")
                if parsed:
                    data, sha = read_json_file(real, relpath)
                else:
                    data, sha = None, sha256_file(real)
            except BadFile as exc:
                self.note(folder, exc.path, exc.reason, FILE_IGNORED)
                continue
            except OSError as exc:
                self.note(folder, relpath, f"the file cannot be read ({exc.strerror})", FILE_IGNORED)
                continue
            self.sources.append({"path": self.source_path(relpath), "sha256": sha})
            entries.append({"path": path, "sha256": sha, "data": data})
        return entries

    def note(self, folder: str, relpath: str, reason: str, effect: str) -> None:
        self.ledger.append(
            dict(zip(LEDGER_FIELDS, (self.job.name or self.job.job_id, folder, relpath, reason, effect)))
        )

    def quantity(self, folder: str, relpath: str, field: str, value, whole: bool = False):
        """A recorded count, cost or time; None (not recorded) when absent, and with a ledger row
        when it is not a finite number in [0, LIMIT] (-1 is a common "unknown" sentinel)."""
        if value is None:
            return None
        number = finite_number(value)
        if number is None:
            problem = (
                "is beyond the largest finite number"
                if isinstance(value, (int, float)) and not isinstance(value, bool)
                else f"is {json_type_name(value)}, not a number"
            )
        elif number < 0:
            problem = f"is {number:g}, below zero"
        elif number > LIMIT:
            problem = f"is {number:.3g}, beyond any real run"
        elif whole and not number.is_integer():
            problem = f"is {number:g}, not a whole number"
        else:
            return int(number) if whole else number
        self.note(folder, relpath, f"{field} {problem}: not recorded", VALUE_IGNORED)
        return None


_CANONICAL: dict = {}
_SCALARS = (str, int, float, bool, type(None))


def _canonical(value) -> str:
    """A sampling value as one string; the few values of a run (scalars and flat objects such as
    {"type": "enabled", "budget_tokens": 4096}) are encoded once, not once per request, each
    remembered by its items as they stand and their types (True is not 1). A value holding a
    list or an object makes the key unhashable and is encoded each time."""
    if isinstance(value, str):
        return value
    key: tuple
    if isinstance(value, dict):
        key = (dict, tuple(value.items()), tuple(map(type, value.values())))
    elif isinstance(value, _SCALARS):
        key = (type(value), value)
    else:
        return json.dumps(value, sort_keys=True, separators=(",", ":"))
    try:
        return _CANONICAL[key]
    except KeyError:
        _CANONICAL[key] = json.dumps(value, sort_keys=True, separators=(",", ":"))
        return _CANONICAL[key]
    except TypeError:  # unhashable: a list or an object inside
        return json.dumps(value, sort_keys=True, separators=(",", ":"))


def exchange_parts(exchange: dict) -> tuple[dict, dict, dict]:
    """(request body, response body, metadata) of one llm_trajectory line, {} where absent."""
    part = provenance.as_dict
    return (
        part(part(exchange.get("request")).get("body")),
        part(part(exchange.get("response")).get("body")),
        part(exchange.get("metadata")),
    )


def read_requests(reader: JobReader, folder: str, max_requests: int) -> dict:
    """Served models, effort sent and sampling parameters from the first requests of a trial."""
    relpath = f"{folder}/{TRAJECTORY}"
    empty = {"requests_read": 0, "served_models": [], "sampling": {}, "trajectory": False}
    try:
        path = reader.locate(relpath)
        if path is None:
            return empty
        lines, consumed, sha = request_prefix(path, max_requests)
    except BadFile as exc:
        reader.note(folder, relpath, exc.reason, FILE_IGNORED)
        return empty
    except OSError as exc:
        reader.note(folder, relpath, f"the file cannot be read ({exc.strerror})", FILE_IGNORED)
        return empty
    reader.sources.append({"path": reader.source_path(relpath), "sha256": sha, "bytes": consumed})
    served: set[str] = set()
    sampling: dict[str, set] = {}
    for number, line in enumerate(lines, start=1):
        if line is None:
            reader.note(folder, relpath, f"request line {number} is over 4 MB; not parsed", FILE_IGNORED)
            break
        if line.isspace() or not line:
            continue
        try:
            exchange = parse_json_bytes(line, relpath)
        except BadFile as exc:
            reader.note(folder, relpath, f"line {number}: {exc.reason}", FILE_IGNORED)
            continue
        if not isinstance(exchange, dict):
            continue
        body, response_body, metadata = exchange_parts(exchange)
        model = recorded_text(response_body.get("model")) or recorded_text(metadata.get("provider_model"))
        if model:
            served.add(model)
        for key in body.keys() & SAMPLING_SET:  # the sets are sorted below
            if body[key] is not None:
                sampling.setdefault(key, set()).add(_canonical(body[key]))
    return {
        "requests_read": len(lines),
        "served_models": sorted(served),
        "sampling": {key: sorted(values) for key, values in sorted(sampling.items())},
        "trajectory": True,
    }


def _usage(reader: JobReader, folder: str, relpath: str, result: dict) -> dict:
    agent_result = provenance.as_dict(result.get("agent_result"))
    tokens = {
        field: reader.quantity(folder, relpath, f"agent_result.{field}", agent_result.get(field), whole=True)
        for field in TOKEN_FIELDS
    }
    cost = reader.quantity(folder, relpath, "agent_result.cost_usd", agent_result.get("cost_usd"))
    return {
        "tokens": tokens,
        "cost_usd": cost if cost else None,  # BenchFlow records an unknown cost as null, never 0
        "usage_source": recorded_text(agent_result.get("usage_source")),
        "price_source": recorded_text(agent_result.get("price_source")),
    }


def _timing(reader: JobReader, folder: str, result: dict, relpath: str) -> dict:
    timing = reader.noted_json(folder, f"{folder}/timing.json", FILE_IGNORED + " (its timing comes from result.json)")
    relpath = f"{folder}/timing.json" if timing is not None else relpath
    if timing is None:
        timing = result.get("timing") if isinstance(result.get("timing"), dict) else {}
    phases = {
        phase: reader.quantity(folder, relpath, f"timing.{phase}", value) for phase, value in sorted(timing.items())
    }
    return {phase: value for phase, value in phases.items() if value is not None}


# Fields read as text or as objects: one of another type is not recorded (its fallback is used,
# as when it is absent) with a ledger row, never silently.
TEXT_FIELDS = (
    "task_name",
    "task_id",
    "rollout_name",
    "trial_name",
    "agent",
    "agent_name",
    "model",
    "task_digest",
    "task_variant",
    "started_at",
    "finished_at",
    "error",
    "error_category",
    "verifier_error",
    "verifier_error_category",
)
CONFIG_TEXT_FIELDS = (
    "task_path",
    "agent",
    "model",
    "reasoning_effort",
    "environment",
    "task_digest",
    "task_variant",
    "started_at",
)
OBJECT_FIELDS = ("agent_result", "timing", "scoring", "usage_tracking")


def _note_wrong_types(reader: JobReader, folder: str, relpath: str, record: dict, text_fields, object_fields=()):
    for fields, kind, named in ((text_fields, str, "a string"), (object_fields, dict, "an object")):
        for field in fields:
            if record.get(field) is not None and not isinstance(record[field], kind):
                reader.note(
                    folder,
                    relpath,
                    f"{field} is {json_type_name(record[field])}, not {named}: not recorded",
                    VALUE_IGNORED,
                )


def read_attempt(reader: JobReader, folder: str, max_requests: int, nop_agents) -> dict | None:
    """One attempt row, or None after a ledger row when the attempt cannot be used; `cleaning`
    says what clean_attempts needs to know of it, `agent_env` what collapse makes part of the
    setting."""
    records = _attempt_records(reader, folder)
    if records is None:
        return None
    config, result, solver = records
    # While a rubric review is pending, the solver's result stands in solver.json
    record = result or solver or {}
    record_file = f"{folder}/" + (
        "result.json" if result is not None else "solver.json" if solver is not None else "config.json"
    )
    if record.get("purpose") == "reviewer":
        return {"reviewer": True, "folder": folder}
    _note_wrong_types(reader, folder, record_file, record, TEXT_FIELDS, OBJECT_FIELDS)
    if config:
        _note_wrong_types(reader, folder, f"{folder}/config.json", config, CONFIG_TEXT_FIELDS, ("agent_env",))
    row = _described_attempt(reader, folder, record_file, record, config, result, solver)
    verdict = (
        _unfinished(reader, folder, record_file, solver)
        if result is None
        else _verdict(reader, folder, record_file, record)
    )
    if verdict is None:
        return None
    row.update(verdict)
    row.update(**_usage(reader, folder, record_file, record), **read_requests(reader, folder, max_requests))
    row["cleaning"] = [record_file, secret_env_values(config.get("agent_env"))]  # for clean_attempts
    row["control"] = classify.control_kind(row["agent"], row["task"], row["task_variant"], nop_agents)
    row["agent_env"] = _agent_env(config)
    return row


def _attempt_records(reader: JobReader, folder: str) -> tuple[dict, dict | None, dict | None] | None:
    """The attempt's config.json ({} when absent or unusable), result.json and solver.json (None
    when absent or unusable); None after a ledger row when there is nothing to report."""
    config = (
        reader.noted_json(folder, f"{folder}/config.json", FILE_IGNORED + " (settings come from result.json)") or {}
    )
    try:
        result = reader.json(f"{folder}/result.json")
    except BadFile as exc:
        reader.note(folder, exc.path, exc.reason, LEFT_OUT)
        return None
    solver = reader.noted_json(folder, f"{folder}/solver.json", FILE_IGNORED)
    if result is None and not config and solver is None:
        reader.note(
            folder, f"{folder}/result.json", "no result.json and no usable config.json: nothing to report", LEFT_OUT
        )
        return None
    return config, result, solver


def _recorded_seed(reader: JobReader, folder: str, record_file: str, record: dict, config: dict):
    """The attempt's seed, a number or a name; None, after a ledger row, when it is neither."""
    seed = record.get("seed", config.get("seed"))
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, str))):
        reader.note(
            folder, record_file, f"seed is {json_type_name(seed)}, not a number or a name: not recorded", VALUE_IGNORED
        )
        return None
    return seed


def _described_attempt(reader: JobReader, folder, record_file, record, config, result, solver) -> dict[str, Any]:
    """What the attempt was (its task, agent, model, setting fields, times, grading and
    provenance), before its verdict."""
    task = recorded_task(record, config, folder)
    named = folder_task(folder)
    if named is not None and task != named:
        reader.note(
            folder,
            record_file,
            f"the task recorded, {quoted(task)}, is not the one the folder's name gives, {quoted(named)}: "
            "counted as the recorded task, as BenchFlow counts it",
            TASK_KEPT,
        )
    model = record.get("model", config.get("model")) if result is not None else config.get("model")
    usage = record.get("usage_tracking")
    return {
        "folder": folder,
        "rollout_name": recorded_rollout(record) or folder,
        "task": task,
        "agent": recorded_text(record.get("agent")) or recorded_text(config.get("agent")),
        "agent_name": recorded_text(record.get("agent_name")),
        "model": model if isinstance(model, str) else None,
        "reasoning_effort": recorded_text(config.get("reasoning_effort")),
        "sandbox": recorded_text(config.get("environment"))
        or recorded_text(usage.get("environment") if isinstance(usage, dict) else None),
        "route": _route(config, record),
        "dataset": _dataset(config, record),
        "task_digest": recorded_text(record.get("task_digest")) or recorded_text(config.get("task_digest")),
        "task_path": recorded_text(config.get("task_path")),
        "task_variant": recorded_text(record.get("task_variant")) or recorded_text(config.get("task_variant")),
        "seed": _recorded_seed(reader, folder, record_file, record, config),
        "harness_version": None,  # BenchFlow <= 0.7.12 records no harness version
        "benchflow_version": None,  # nor its own version
        "started_at": _time(reader, folder, record_file, record, "started_at")
        or _time(reader, folder, f"{folder}/config.json", config, "started_at"),
        "finished_at": _time(reader, folder, record_file, record, "finished_at"),
        "complete": result is not None,
        "review_pending": result is None and solver is not None,
        "grading": grader.trial_grading(result, config, solver, reader.review_listing(folder)),
        "provenance": provenance.trial_provenance(result if result is not None else solver, config),
    }


def _unfinished(reader: JobReader, folder: str, record_file: str, solver: dict | None) -> dict:
    """The verdict fields of an attempt with no result.json: unfinished, or its rubric review
    pending (the solver's record, in solver.json, gives its timing and usage): no verdict yet,
    left out of the pass rate, each with its own reason."""
    return {
        "reward": None,
        "gate": None,
        "outcome": "interrupted",
        "audit": None,
        "error": None,
        "error_category": None,
        "verifier_error": None,
        "verifier_error_category": None,
        "timed_out": False,
        "timing": _timing(reader, folder, solver, record_file) if solver is not None else {},
        "has_scoring": False,
    }


def _verdict(reader: JobReader, folder: str, record_file: str, record: dict) -> dict | None:
    """The verdict fields of a finished attempt; None, after a ledger row, when its reward
    cannot be read."""
    has_scoring = isinstance(record.get("scoring"), dict)
    try:
        reward, gate = classify.extract_reward(record)
    except classify.BadReward as exc:
        reader.note(folder, record_file, str(exc), LEFT_OUT)
        return None
    problem = classify.gate_problem(record)
    if problem:
        reader.note(folder, record_file, problem, VALUE_IGNORED)
    error, verifier_error = recorded_text(record.get("error")), recorded_text(record.get("verifier_error"))
    error_category = recorded_text(record.get("error_category"))
    return {
        "reward": reward,
        "gate": gate,
        "outcome": classify.score_outcome(reward, gate, error, verifier_error, has_scoring),
        "audit": classify.audit_outcome(reward, gate, error, verifier_error, has_scoring),
        "error": error,
        "error_category": error_category,
        "verifier_error": verifier_error,
        "verifier_error_category": recorded_text(record.get("verifier_error_category")),
        "timed_out": classify.timed_out(error_category),
        "timing": _timing(reader, folder, record, record_file),
        "has_scoring": has_scoring,
    }


def _time(reader: JobReader, folder: str, relpath: str, record: dict, field: str) -> str | None:
    """A recorded start or end as written, if it is a date and time (an ISO 8601 one, as BenchFlow
    writes `str(datetime.now())`); else not recorded, with a ledger row: "2026-13-45T99:99:99"
    would sort after every real time and so decide which attempt of a task is kept."""
    value = recorded_text(record.get(field))
    if value is None:
        return None
    try:
        datetime.fromisoformat(value)
    except ValueError:
        reader.note(folder, relpath, f"{field} is {quoted(value)}, not a date and time: not recorded", VALUE_IGNORED)
        return None
    return value


def _agent_env(config: dict) -> dict | None:
    """The agent's environment variables as config.json records them (BenchFlow leaves out those
    whose names say they are secret), each value as text, by name; None when none is recorded
    (no usable config.json, or one with no agent_env object)."""
    env = config.get("agent_env")
    if not isinstance(env, dict):
        return None
    return {name: value if isinstance(value, str) else json.dumps(value) for name, value in sorted(env.items())}


# Fields filled from the trajectory's first requests, and from config.json alone: a secret there
# is that file's.
FROM_TRAJECTORY = ("served_models", "sampling")
FROM_CONFIG = ("agent_env",)


def _leaves(value) -> list:
    """Every string and number in a row, dict keys included (timing.json's phase names are the
    file's own keys)."""
    found: list[str | int | float] = []
    pending = [value]
    while pending:
        item = pending.pop()
        if type(item) is dict:
            found.extend(item)
            pending.extend(item.values())
        elif type(item) is list:
            pending.extend(item)
        else:
            found.append(item)
    return found


# Strings already found printable and free of secrets, per set of known secret values: most of a
# row (agent, model, dataset, sampling values, a task's name) repeats from attempt to attempt.
_CLEAN: dict[tuple, set] = {}
# digits and separators only (a time, a count): no key, token or password is made of these
_NUMERIC = re.compile(r"[0-9 .:+TZ-]*\Z")
CLEAN_MEMORY = 200_000


def _cleaned(value, known_values, found: list):
    """The value with every string printable and its secrets redacted, and every number beyond
    the largest finite one (JSON's 1e309) dropped; `found` gets what was changed."""
    if isinstance(value, str):
        text, kinds = redact_text(printable(value), known_values)
        found.extend(f"a secret ({kind})" for kind in kinds)
        return text
    if isinstance(value, float) and not math.isfinite(value):
        found.append("a number beyond the largest finite one")
        return None
    if isinstance(value, dict):
        return {_cleaned(key, known_values, found): _cleaned(item, known_values, found) for key, item in value.items()}
    if isinstance(value, list):
        return [_cleaned(item, known_values, found) for item in value]
    return value


# What read_attempt notes for ingest_job, not data: never cleaned, removed before a row is kept.
BOOKKEEPING = ("cleaning",)


def _clean_row(reader: JobReader, row: dict, known_values: tuple) -> None:
    """Make every string of an attempt row printable, redact the secrets in it and drop numbers
    beyond the largest finite one; one ledger row per field and kind, never the value."""
    record_file = row["cleaning"][0]
    folder = row["folder"]
    for field in [field for field in row if field not in BOOKKEEPING]:
        found: list[str] = []
        row[field] = _cleaned(row[field], known_values, found)
        relpath = (
            f"{folder}/{TRAJECTORY}"
            if field in FROM_TRAJECTORY
            else f"{folder}/config.json"
            if field in FROM_CONFIG
            else record_file
        )
        if (
            field == "timing"
            and found
            and reader.source_path(f"{folder}/timing.json") in {source["path"] for source in reader.sources}
        ):
            relpath = f"{folder}/timing.json"  # the phases came from timing.json, not the record
        _note_cleaned(reader, folder, relpath, field, found)


def _note_cleaned(reader: JobReader, folder: str, relpath: str, where: str, found: list[str]) -> None:
    """One ledger row per kind of change _cleaned made in `where`, never the value."""
    for what in sorted(set(found)):
        reader.note(
            folder,
            relpath,
            f"{what} in {where} was {'redacted' if 'secret' in what else 'dropped'}",
            REDACTED if "secret" in what else VALUE_IGNORED,
        )


def _holding_secrets(texts: list[str], known: tuple) -> set[str]:
    """The texts in which secrets.find may find something, by one search over them all, joined
    by newlines (a search costs little more per text than per string). A span found across the
    newline after a text (a private-key block opened in one text and closed in another) marks
    every text it covers: find merges overlapping spans, so a secret of a text inside one would
    otherwise be missed."""
    starts, at = [], 0
    for text in texts:
        starts.append(at)
        at += len(text) + 1
    found = set()
    for start, end, _ in find("\n".join(texts), known):
        found.update(texts[bisect.bisect_right(starts, start) - 1 : bisect.bisect_right(starts, end - 1)])
    return found


def clean_attempts(reader: JobReader, attempts: list[dict]) -> None:
    """_clean_row every attempt row that needs it (in place), before any of it becomes a setting id
    or a file name: a key pasted as the model name, a token inside a sampling value or quoted in
    an error, a lone surrogate, a 1e309. A row is left as it is when its numbers are finite and no
    string of it is flagged: unprintable, redacted before, or marked by _holding_secrets (one
    search over the strings of all rows not seen clean before)."""
    # a secret agent_env value of one attempt is redacted in every attempt of the job folder, as
    # the bundle redacts it in every file
    known = tuple(sorted({value for attempt in attempts for value in attempt["cleaning"][1]}))
    clean = _CLEAN.setdefault(known, set())
    if len(clean) > CLEAN_MEMORY:
        clean.clear()
    seen = []  # per row: its strings, and whether a number in it is not finite
    for row in attempts:
        found: list = []
        for field, value in row.items():
            if type(value) is dict or type(value) is list:
                found.extend(_leaves(value) if field not in BOOKKEEPING else ())
            else:
                found.append(value)
        seen.append(
            (
                {leaf for leaf in found if type(leaf) is str},
                not all(map(math.isfinite, [leaf for leaf in found if type(leaf) is float])),
            )
        )
    fresh = sorted({text for strings, _ in seen for text in strings - clean if not _NUMERIC.match(text)})
    flagged = _holding_secrets(fresh, known)
    # a string redacted before this read (a bundle's inputs) gets the ledger row it got then
    flagged.update(text for text in fresh if printable(text) is not text or "[REDACTED:" in text)
    clean.update(fresh)
    clean.difference_update(flagged)
    for row, (strings, not_finite) in zip(attempts, seen):
        if not_finite or not flagged.isdisjoint(strings):
            _clean_row(reader, row, known)
    for attempt in attempts:
        del attempt["cleaning"]


def _route(config: dict, record: dict) -> str | None:
    tracking = provenance.as_dict(record.get("usage_tracking"))
    parts = [recorded_text(tracking.get("endpoint_kind")), recorded_text(config.get("acp_transport"))]
    return "/".join(part for part in parts if part) or None


def _dataset(config: dict, record: dict) -> str | None:
    name = recorded_text(record.get("dataset_name")) or recorded_text(config.get("dataset_name"))
    version = recorded_text(record.get("dataset_version")) or recorded_text(config.get("dataset_version"))
    if not name:
        return None
    return f"{name}@{version}" if version else name


def _rank(attempt: dict) -> tuple:
    """Scored first, then a finished attempt, then the newest, then the folder name."""
    when = attempt.get("finished_at") or attempt.get("started_at") or ""
    return (attempt["reward"] is not None, attempt["complete"], when, attempt["folder"])


def collapse(attempts: list[dict], job: JobFolder) -> list[dict]:
    """One trial per (task, agent, model): the best attempt, with every attempt's cost summed."""
    groups: dict[tuple, list[dict]] = {}
    for attempt in attempts:
        groups.setdefault((attempt["task"], attempt["agent"] or "", attempt["model"] or ""), []).append(attempt)
    trials, ids = [], {}  # a job folder's trials share a few settings: each id is hashed once
    layout = try_folders(job.relpath)
    for _, group in sorted(groups.items()):
        best = max(group, key=_rank)
        trial = {field: value for field, value in best.items() if field != "agent_env"}  # in the key
        trial["job"] = job.name or job.job_id
        trial["try_index"] = job.try_index
        trial["try_rule"] = "folder" if job.try_index is not None else None  # number_tries may renumber
        trial["try_folders"] = list(layout)
        trial["attempts"] = len(group)
        trial["attempt_folders"] = sorted(attempt["folder"] for attempt in group)
        ran = sorted(group, key=lambda a: (a.get("started_at") or "", a["folder"]))  # in the order they ran
        trial["attempt_outcomes"] = [attempt["outcome"] for attempt in ran]
        # each token count summed over the attempts that recorded it, None where none did
        counted = {
            field: [a["tokens"][field] for a in group if a["tokens"][field] is not None] for field in best["tokens"]
        }
        trial["tokens_all_attempts"] = {field: sum(counts) if counts else None for field, counts in counted.items()}
        costs = [attempt["cost_usd"] for attempt in group if attempt["cost_usd"] is not None]
        trial["cost_usd_all_attempts"] = round(sum(costs), 10) if costs else None
        trial["seconds_all_attempts"] = round(sum(attempt["timing"].get("total") or 0.0 for attempt in group), 3)
        key = settings.setting_key(best)
        env = key["agent_env"]  # the one field that is not a text or None (settings.KEY_FIELDS)
        values = (
            *(value for name, value in key.items() if name != "agent_env"),
            None if env is None else tuple(env.items()),
        )
        if values not in ids:
            ids[values] = settings.setting_id(key)
        trial["setting"] = ids[values]
        trial["setting_key"] = key
        finished = [attempt for attempt in ran if attempt["complete"]]
        trial["benchflow_bucket"] = finished[-1]["audit"] if finished else None  # BenchFlow counts the last
        trials.append(trial)
    return sorted(trials, key=lambda trial: (trial["setting"], trial["task"], trial["folder"]))


def settings_index(trials: list[dict]) -> dict:
    """Per setting of a job folder: its key, its tasks, and the counts from which the workflow
    plans, before any stats job runs, the shape (tasks x tries) of the coverage design each
    setting's headline needs (`shapes.index_counts`)."""
    by_setting = defaultdict(list)
    for trial in trials:
        by_setting[trial["setting"]].append(trial)
    return {
        setting: {
            "key": mine[0]["setting_key"],
            "tasks": sorted({trial["task"] for trial in mine}),
            "counts": shapes.index_counts(mine),
        }
        for setting, mine in sorted(by_setting.items())
    }


def crosscheck(summary, trials: list[dict]) -> dict:
    """BenchFlow's summary.json counts the last finished attempt of each task with its audit
    buckets (a trial's benchflow_bucket); recount them that way so every difference from our
    outcomes can be named."""
    buckets = [trial["benchflow_bucket"] for trial in trials if trial["benchflow_bucket"] is not None]
    recount = Counter(buckets)
    recount_dict = {bucket: recount.get(bucket, 0) for bucket in classify.AUDIT_BUCKETS}
    recount_dict["total"] = len(buckets)
    reported = None
    if isinstance(summary, dict):
        reported = {field: summary.get(field) for field in ("total", "passed", "failed", "errored", "verifier_errored")}
    matches = reported is not None and all(reported[field] == recount_dict[field] for field in reported)
    return {"benchflow": reported, "recount_last_attempts": recount_dict, "matches": matches}


# The paths of an attempt folder asked for ahead of read_attempt: its trial files and trajectory.
ATTEMPT_PATHS = len(TRIAL_FILES) + 1


def _attempt_files(reader: JobReader, folders: list[str]):
    """The files read_attempt reads of each folder, ATTEMPT_PATHS of them, its trajectory None
    when its trajectory folder is a link (locate checks where that leads first)."""
    for folder in folders:
        base = f"{reader.dir_str}/{folder}"
        yield from (f"{base}/{name}" for name in TRIAL_FILES)
        trajectory = f"{base}/{TRAJECTORY}"
        yield None if os.path.islink(os.path.dirname(trajectory)) else trajectory


def read_attempts(reader: JobReader, folders: list[str], max_requests: int, nop_agents) -> list:
    """read_attempt of each folder in turn, the files of the next ones asked for from the disk
    once it is seen reading from it (files.ReadAhead)."""
    ahead = ReadAhead(_attempt_files(reader, folders))
    rows = []
    for folder in folders:
        rows.append(read_attempt(reader, folder, max_requests, nop_agents))
        ahead.advance(ATTEMPT_PATHS)
    return rows


def _unlisted(job: JobFolder) -> str | None:
    """Why the job folder cannot be listed, if it cannot (a link below the root is not listed)."""
    linked = linked_away(job)
    if linked:
        return linked
    try:
        listing(job.path)
    except PermissionError:
        return "the folder cannot be read (permission denied)"
    except OSError as exc:
        return f"the folder cannot be read ({exc.strerror})"
    return None


def _clean_job_part(reader: JobReader, value, relpath: str, where: str):
    """A job-level part of the ingest (from summary.json) cleaned as _clean_row cleans a row."""
    found: list[str] = []
    value = _cleaned(value, (), found)
    _note_cleaned(reader, "", relpath, where, found)
    return value


def shown_names(names) -> dict[str, str]:
    """Each folder or file name as the outputs show it: redact_text(printable(name)). The ASCII
    names are searched at once (_holding_secrets), and only those it marks and the others one by
    one: in ASCII text joined by newlines a search finds a span wherever the search of one name
    alone does (a newline stops every pattern where a name's end does, and only a label closes a
    mark), so a name it does not mark holds nothing to redact."""
    printed = {name: printable(name) for name in names}
    marked = _holding_secrets(sorted({text for text in printed.values() if text.isascii()}), ())
    return {
        name: redact_text(text)[0] if text in marked or not text.isascii() else text for name, text in printed.items()
    }


def ingest_job(job: JobFolder, max_requests: int = 20, nop_agents=(), duplicates: dict | None = None) -> dict:
    """Every row of one job folder. `duplicates` (duplicates.find) names the attempt folders
    counted in another job folder ("" for all of them): each gets a ledger row and is not read."""
    reader = JobReader(job)
    duplicates = duplicates or {}
    unlisted = _unlisted(job)
    if unlisted:
        reader.note("", ".", unlisted, FOLDER_NOT_READ)
    summary, summary_status = (None, "absent") if unlisted or "" in duplicates else _read_summary(reader)
    folders = [] if unlisted else attempt_folders(job.path)
    if not unlisted:
        _note_folder_contents(reader, job)
    for part in [job.label, *([] if job.relpath == "." else job.relpath.split("/"))]:
        for kind in sorted(set(safe_part(part)[2])):
            reader.note("", ".", f"a secret ({kind}) in the folder's name was redacted", REDACTED)
    elsewhere = {folder: duplicates.get("", duplicates.get(folder)) for folder in folders}
    for folder, reason in elsewhere.items():
        if reason:
            reader.note(folder, f"{folder}/result.json", reason, LEFT_OUT)
    readable = [folder for folder in folders if not elsewhere[folder]]
    attempts = []  # those that can be used; a reviewer run is a ledger row
    for folder, row in zip(readable, read_attempts(reader, readable, max_requests, nop_agents)):
        if row is not None and row.get("reviewer"):
            reader.note(folder, f"{folder}/result.json", REVIEWER_RUN, LEFT_OUT)
        elif row is not None:
            attempts.append(row)
    clean_attempts(reader, attempts)
    trials = collapse(attempts, job)
    check = crosscheck(summary, trials)
    check["summary_status"] = summary_status
    # cleaned before the ledger is shown: cleaning adds ledger rows
    described = _clean_job_part(reader, _job_description(job, summary), "summary.json", "the job's summary.json")
    crosscheck_part = _clean_job_part(reader, check, "summary.json", "the job's summary.json")
    check_rows(trials)
    return {
        "job": described,
        "attempt_folders_found": len(folders),
        "attempts": len(attempts),
        "trials": trials,
        "ledger": sorted(_shown_ledger(reader), key=lambda row: (row["folder"], row["file"], row["reason"])),
        "crosscheck": crosscheck_part,
        "settings": settings_index(trials),
        "tasks": _task_index(trials),
        "sources": _shown_sources(reader),
    }


def _read_summary(reader: JobReader) -> tuple[dict | None, str]:
    """The job's summary.json and whether it was absent, read or unusable (a ledger row)."""
    try:
        summary = reader.json("summary.json")
    except BadFile as exc:
        reader.note("", exc.path, exc.reason, SUMMARY_IGNORED)
        return None, "unusable"
    return summary, "absent" if summary is None else "read"


def _note_folder_contents(reader: JobReader, job: JobFolder) -> None:
    """A ledger row for each trial record in the job folder itself and each linked attempt folder."""
    for name in STRAY_RECORDS:
        if os.path.isfile(job.path / name) and not os.path.islink(job.path / name):
            reader.note(
                "", name, "a trial record in the job folder itself, outside any <task>__<8 hex>/ folder", NOT_A_TRIAL
            )
    for entry in listing(job.path):
        if entry.is_symlink() and (TRIAL_NAME.match(entry.name) or entry.is_dir()):
            target, root = os.path.realpath(entry.path), reader.root_real
            where = "inside" if target == root or target.startswith(root + os.sep) else "outside"
            reason = f"a link to a folder {where} the job root, in place of an attempt folder; links are not followed"
            reader.note(entry.name, entry.name, reason, FOLDER_NOT_READ)


def _task_index(trials: list[dict]) -> dict[str, dict[str, list[str]]]:
    """task -> the task paths and digests its trials name, sorted."""
    tasks: dict[str, dict[str, set[str]]] = {}
    for trial in trials:
        seen = tasks.setdefault(trial["task"], {"paths": set(), "digests": set()})
        seen["paths"].update([trial["task_path"]] if trial["task_path"] else [])
        seen["digests"].update([trial["task_digest"]] if trial["task_digest"] else [])
    return {task: {k: sorted(v) for k, v in sorted(seen.items())} for task, seen in sorted(tasks.items())}


def _job_description(job: JobFolder, summary) -> dict:
    """The job folder as the outputs name it, with what its summary.json says of the run."""
    budget = summary.get("budget") if isinstance(summary, dict) and isinstance(summary.get("budget"), dict) else None
    return {
        "id": job.name or job.job_id,
        "key": job.job_id,
        "label": safe_part(job.label)[1] if job.label else job.job_id.split("/")[0],
        "relpath": redact_text(job.relpath)[0],  # the real path (the bundle reads it), a secret aside
        "try_index": job.try_index,
        "alias": job.alias,
        "reviewer": grader.reviewer_config(summary),
        "provenance": provenance.job_provenance(summary),
        "budget": budget,
    }


def _shown_ledger(reader: JobReader) -> list[dict]:
    """The ledger rows with each text printable and any secret in it redacted."""
    return [
        {key: redact_text(printable(value))[0] if isinstance(value, str) else value for key, value in row.items()}
        for row in reader.ledger
    ]


def _shown_sources(reader: JobReader) -> list[dict]:
    """The files read, sorted by path, each path's names as the outputs show them."""
    # every source path is the job folder's path and a relpath under it: the first is shown once
    relpaths = [source["path"][len(reader.source_prefix) + 1 :].split("/") for source in reader.sources]
    shown = shown_names({name for names in relpaths for name in names} | set(reader.source_prefix.split("/")))
    shown_prefix = "/".join(shown[name] for name in reader.source_prefix.split("/")) + "/"
    return sorted(
        (
            {**source, "path": shown_prefix + "/".join(shown[name] for name in names)}
            for source, names in zip(reader.sources, relpaths)
        ),
        key=lambda source: source["path"],
    )


def job_ledger(ingest: dict) -> dict:
    """A job folder's accounting (attempt folders found = counted + interrupted + left out) and
    every row of what was left out, interrupted attempts included: all the run-level overview
    needs, small enough that it never reads the trials."""
    trials = ingest["trials"]
    counted = sum(t["attempts"] for t in trials if t["outcome"] != "interrupted")
    interrupted = sum(t["attempts"] for t in trials if t["outcome"] == "interrupted")
    left_out = [row for row in ingest["ledger"] if row["effect"].startswith(LEFT_OUT)]
    duplicates = sum(1 for row in left_out if row["reason"].endswith(COUNTED_THERE))
    rows = list(ingest["ledger"])
    for trial in trials:
        if trial["outcome"] == "interrupted":
            rows.extend(interrupted_row(trial, folder) for folder in trial["attempt_folders"])
    found = ingest["attempt_folders_found"]
    return {
        "counts": {
            "job": ingest["job"]["id"],
            "found": found,
            "in_reports": counted,
            "interrupted": interrupted,
            "left_out": len(left_out) - duplicates,
            "duplicates": duplicates,
            "adds_up": found == counted + interrupted + len(left_out),
        },
        "ledger": rows,
    }


def _written_ingest(job: JobFolder, duplicates: dict, max_requests: int, nop_agents) -> dict:
    """ingest_job as rule ingest writes it: with its job_ledger, the trials as columns."""
    ingest = ingest_job(job, max_requests, nop_agents, duplicates)
    return ingest | {"trials": as_columns(ingest["trials"]), "job_ledger": job_ledger(ingest)}


def ingest_batch(
    jobs: Sequence[JobFolder], duplicates: Sequence[dict], max_requests: int, nop_agents, workers: int = 1
) -> list[dict]:
    """Each job folder's ingest (`duplicates` as ingest_job takes them), in order, as rule ingest
    writes it: with `job_ledger`, the trials as columns (as_columns). The folders are read side
    by side on `workers` processes when there are more than one."""
    read = functools.partial(_written_ingest, max_requests=max_requests, nop_agents=nop_agents)
    if workers > 1 and len(jobs) > 1:
        with ProcessPoolExecutor(min(workers, len(jobs))) as pool:
            return list(pool.map(read, jobs, duplicates))
    return list(map(read, jobs, duplicates))
