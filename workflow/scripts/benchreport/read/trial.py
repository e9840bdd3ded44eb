"""A trial: the row ingest writes to results/ingest/<batch>/trials.json (by column), one per (task, agent, model)
of a job folder with its retries collapsed, and the contract of what stats, trial_rows and the
renderers read from it. JSON rows stay dicts (they are read and written by the thousand); this
record names every field, its type and what it holds, and `check_rows` holds ingest to it."""

from __future__ import annotations

import types
import typing
from typing import TypedDict

from ..pipeline.outputs import load_json


class Trial(TypedDict):
    # where it is
    job: str  # the job folder's name, as outputs show it
    folder: str  # the kept attempt's folder inside the job folder (<task>__<hex>)
    rollout_name: str  # BenchFlow's trial name (result.json rollout_name or trial_name)
    try_index: int | None  # the try this job folder is, from its layout (trial-NN, seed-N, ...)
    try_rule: str | None  # how try_index was decided ("folder", or settings.number_tries' rule)
    try_folders: list[str]  # the layout folders above the job folder that name a try
    attempts: int  # attempt folders of this trial in the job folder (retries included)
    attempt_folders: list[str]  # every one of them
    attempt_outcomes: list[str]  # each attempt's outcome, by started_at
    # what ran
    task: str
    task_digest: str | None  # the task version BenchFlow hashed
    task_path: str | None
    task_variant: str | None
    dataset: str | None
    agent: str | None  # the agent as configured (e.g. claude-agent-acp)
    agent_name: str | None  # the name the agent reported
    model: str | None
    reasoning_effort: str | None
    sandbox: str | None  # the environment it ran in (docker, daytona, ...)
    route: str | None  # the model route (the provider the requests went to)
    seed: int | str | None
    sampling: dict  # sampling parameters read from the first requests of the trajectory
    served_models: list[str]  # models the provider said it served, from the same requests
    harness_version: None  # BenchFlow <= 0.7.12 records none
    benchflow_version: None  # nor its own version
    control: str | None  # "oracle" or "nop" when the agent is a control, else None
    setting: str  # the setting's id (settings.setting_id of setting_key)
    setting_key: dict  # the values that define the setting (agent, model, effort, sampling, ...)
    # when
    started_at: str | None
    finished_at: str | None
    timing: dict  # the phases' seconds (timing.json / result.json), only the ones recorded
    seconds_all_attempts: float  # summed over every attempt
    timed_out: bool  # the agent's error was a timeout (classify.timed_out)
    # the verdict
    complete: bool  # a result.json was written
    review_pending: bool  # only the solver's record: its rubric review has not run yet
    has_scoring: bool  # an integrated review (`scoring`) decided the verdict
    reward: float | None
    gate: bool | None  # the review's own passed verdict, where it gave one
    outcome: str  # passed / failed / errored / unscored / interrupted: what the pass rate counts
    audit: str | None  # the bucket BenchFlow's summary.json counts this trial in (classify.audit_outcome)
    benchflow_bucket: str | None  # audit of the attempt BenchFlow counts (its last), for the cross-check
    error: str | None  # the agent's error, redacted
    error_category: str | None
    verifier_error: str | None
    verifier_error_category: str | None
    grading: dict | None  # how a model graded it, where one did (grader.trial_grading)
    provenance: dict  # the versions and digests the trial recorded (provenance.trial_provenance)
    # what it used
    tokens: dict  # the kept attempt's input, output and cache tokens
    tokens_all_attempts: dict  # summed over every attempt
    cost_usd: float | None  # the kept attempt's cost, None where not recorded
    cost_usd_all_attempts: float | None
    usage_source: str | None  # where BenchFlow took the usage from
    price_source: str | None  # where BenchFlow took the price from
    trajectory: bool  # a trajectory/llm_trajectory.jsonl was read
    requests_read: int  # its requests read (at most ingest.max_requests)


FIELDS = typing.get_type_hints(Trial)
# The token counts of an attempt's agent_result, the keys of a trial's `tokens`.
TOKEN_FIELDS = ("n_input_tokens", "n_output_tokens", "n_cache_read_tokens", "n_cache_creation_tokens", "total_tokens")

# The usage sources under which BenchFlow took no usage: it then writes a 0 for every token count
# (an oracle or nop, an agent whose calls went around its gateway), or no count at all.
NO_USAGE_SOURCES = (None, "unavailable")


def recorded_tokens(trial: dict) -> dict | None:
    """A trial's token counts over all its attempts, or None where none was recorded: no count at
    all (an interrupted trial), or only zeros beside a usage source that says none was taken. A
    0 under a source that took usage is a count (no call was made), and stays one."""
    tokens = trial["tokens_all_attempts"]
    counts = [value for value in tokens.values() if value is not None]
    if not counts or (trial["usage_source"] in NO_USAGE_SOURCES and not any(counts)):
        return None
    return tokens


def _accepted(kind) -> tuple[tuple[type, ...], bool]:
    """The runtime types a field's annotation accepts, and whether a bool is one of them (a bool
    is an int to isinstance, but not a count). A float field takes an int (JSON writes 1.0 as 1)."""
    parts = typing.get_args(kind) if isinstance(kind, types.UnionType) else (kind,)
    accepted = tuple(typing.get_origin(part) or part for part in parts)
    if float in accepted:
        accepted += (int,)
    return accepted, bool in accepted


# Worked out once: ingest checks every row it writes, so the check stays a dict lookup and an
# isinstance per field, not a reading of the annotations per value.
ACCEPTED = {name: _accepted(kind) for name, kind in FIELDS.items()}


def problems(row: dict) -> list[str]:
    """What in a row does not match the record: missing or extra fields, values of another type."""
    found = []
    if row.keys() != FIELDS.keys():
        found += [f"missing field {name}" for name in FIELDS if name not in row]
        found += [f"field {name} is not a Trial field" for name in row if name not in FIELDS]
    for name, (accepted, takes_bool) in ACCEPTED.items():
        value = row.get(name)
        if name in row and (not isinstance(value, accepted) or (isinstance(value, bool) and not takes_bool)):
            found.append(f"{name} is {type(value).__name__}, the record says {FIELDS[name]}")
    return found


def _column_holds(name: str, rows: list[dict]) -> bool:
    """Whether every row's value of a field has a type its annotation accepts, checked once per
    type found in the column (isinstance(value, t) is issubclass(type(value), t))."""
    accepted, takes_bool = ACCEPTED[name]
    return all(
        issubclass(kind, accepted) and (takes_bool or not issubclass(kind, bool))
        for kind in {type(row[name]) for row in rows}
    )


def check_rows(rows: list[dict]) -> None:
    """Hold ingest to the record: a mismatch is this program's error, not the input's (the
    input's errors are ledger rows by then), so it stops the job and names the field.

    Checked by column, which is cheaper than row by row: the fields of every row, then the few
    types each field's values have; only when something is off are the rows looked at one by
    one, to name the first that is."""
    if all(row.keys() == FIELDS.keys() for row in rows) and all(_column_holds(name, rows) for name in ACCEPTED):
        return
    for row in rows:
        wrong = problems(row)
        if wrong:
            raise TypeError(f"trial {row.get('job')}/{row.get('folder')} breaks the Trial record: " + "; ".join(wrong))


# Fields whose values repeat from row to row: the job folder's name, setting and key, the model,
# agent and route, a task's name, version and provenance, the sampling its requests carried.
# load_ingests holds each value of these once across every file it reads (a file holds each of
# its values once already: `as_columns`).
SHARED = (
    "job",
    "setting",
    "task",
    "task_digest",
    "task_path",
    "dataset",
    "agent",
    "agent_name",
    "model",
    "reasoning_effort",
    "route",
    "sandbox",
    "usage_source",
    "price_source",
    "outcome",
    "audit",
    "benchflow_bucket",
    "try_rule",
    "setting_key",
    "provenance",
    "sampling",
    "served_models",
    "try_folders",
    "attempt_outcomes",
)
# (field, field it usually equals): summed over every attempt, the tokens are the kept attempt's
# when there was one attempt, as nearly every trial has.
SAME_WHEN_EQUAL = (("tokens_all_attempts", "tokens"),)


def as_columns(rows: list[dict]) -> dict:
    """The rows as ingest writes them (trials.json's `trials`): per field, in the record's order,
    its distinct values in the order first seen (`values`) and each row's place among them
    (`at`). Two values are one when their repr is, which tells 1, 1.0 and True apart as JSON
    does. Read back (`load_ingests`), a repeated value is decoded once, not once per row."""
    columns = {}
    for name in FIELDS:
        column = [row[name] for row in rows]
        keys = list(map(repr, column))
        distinct = dict(zip(keys, column))  # in the order first seen; values of one key are equal
        place = {key: number for number, key in enumerate(distinct)}
        columns[name] = {"values": list(distinct.values()), "at": list(map(place.__getitem__, keys))}
    return columns


def load_ingests(paths, fields=FIELDS, parts=None, jobs=None) -> list[dict]:
    """The ingests of the job folders `jobs` (a list, in whose order they come; None: every one,
    in the files' order) in the batches' trials.json files `paths`, each folder's columns
    (`as_columns`) made rows again, for a stage that holds a whole setting's rows at once (stats,
    trial_rows). A row keeps only `fields` (the stage's TRIAL_FIELDS, what its code reads), in the
    record's order, and of a dict field named in `parts` only the keys listed (its TRIAL_PARTS);
    each repeated value is one object across the rows: safe, since the stages set a row's fields
    but never change a value inside one."""
    keep = tuple(name for name in FIELDS if name in fields)  # the record's order, whatever the list's
    parts = {name: wanted for name, wanted in (parts or {}).items() if name in keep}
    shared: dict[str, dict] = {name: {} for name in (*SHARED, *parts) if name in keep}
    same = [(name, other) for name, other in SAME_WHEN_EQUAL if name in keep and other in keep]
    wanted = None if jobs is None else {job_id: place for place, job_id in enumerate(jobs)}
    ingests = []
    for path in paths:
        for job_id, ingest in load_json(path)["jobs"].items():
            if wanted is None or job_id in wanted:
                ingest["trials"] = _kept_rows(ingest["trials"], keep, parts, shared, same)
                ingests.append((job_id, ingest))
    if wanted is not None:
        missing = sorted(set(wanted) - {job_id for job_id, _ in ingests})
        if missing:  # the plan and the files disagree: no report may leave a folder out unsaid
            raise ValueError(f"no ingest of {', '.join(missing)} in {', '.join(map(str, paths))}")
        ingests.sort(key=lambda pair: wanted[pair[0]])
    return [ingest for _, ingest in ingests]


def _kept_rows(columns: dict, keep: tuple, parts: dict, shared: dict, same: list) -> list[dict]:
    """One file's rows as load_ingests keeps them (`shared`: field -> the objects seen so far
    across files, by repr). Parts are cut and values shared once per distinct value of the file;
    the rows are made from the columns by one `map` each. The file's own columns are let go on
    return, before the next file is read."""
    made = {}
    for name in keep:
        values = columns[name]["values"]
        if name in parts:
            values = [{key: value[key] for key in parts[name] if key in value} for value in values]
        if name in shared:
            values = list(map(shared[name].setdefault, map(repr, values), values))
        made[name] = list(map(values.__getitem__, columns[name]["at"]))
    for name, other in same:
        pairs = zip(made[name], made[other])
        made[name] = [mine if mine != theirs else theirs for mine, theirs in pairs]
    return [dict(zip(keep, row)) for row in zip(*made.values())]
