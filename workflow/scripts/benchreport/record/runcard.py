"""The run card of one setting (run-card.json), at the report stage.

`build_run_card(record, parts)`: a view of the setting's result record (summary.json) and the
card parts counted over its trial rows (trial_rows.card_parts): the ten parts of a checkable
result plus the completeness checklist and the limits, validated against
benchreport/schemas/run-card.schema.json. The view selects and renames fields and computes
nothing: every value on the card is one the record or the card parts hold.
"""

from __future__ import annotations

import json
from pathlib import Path

from .record import CardParts, SettingResult

SCHEMA = "benchreport.run-card/1"
HEADLINE_FIELDS = ("method", "low", "high", "level", "width", "covers", "reaches_target", "worst_coverage")
INTERVAL_FIELDS = ("method", "low", "high", "over", "seed", "resamples", "label")
TASK_FIELDS = ("task", "trials", "passed", "rate", "task_digests")
IMAGE_FIELDS = ("task", "reference", "source", "status", "reason", "id", "repo_digest", "platform", "task_digests")


def _number(record: SettingResult) -> dict:
    intervals = record["intervals"]
    return {
        "pass_rate": record["pass_rate"]["value"],
        "rule": record["pass_rate"]["rule"],
        "confidence": record["confidence"],
        "headline": {key: record["headline"].get(key) for key in HEADLINE_FIELDS},
        "over_tasks": {key: value for key, value in intervals["over_tasks"].items() if key in INTERVAL_FIELDS},
        "over_trials": {key: value for key, value in intervals["over_trials"].items() if key in INTERVAL_FIELDS},
        "pass_rate_over_trials": record["pass_rate_over_trials"],
        "mean_reward": record["mean_reward"]["value"],
        "scored_trials": None,  # a field of the card's schema that no stage fills
    }


def _tasks_and_tries(record: SettingResult) -> dict:
    tries = record["tries"]
    return {
        "tasks": record["counts"]["tasks"],
        "trials": record["counts"]["trials"],
        "min_tries_wanted": tries["min_wanted"],
        "tries_per_task": tries["per_task"],
        "one_task_moves_points": tries["one_task_moves_points"],
        "tasks_under_min_tries": tries["tasks_under_min_tries"],
        "per_task": [{key: row[key] for key in TASK_FIELDS} for row in record["per_task"]],  # type: ignore[literal-required]
    }


def _environment(record: SettingResult) -> dict:
    return {
        "inspected": record["environment_summary"]["inspected"],
        "tasks": [{key: row.get(key) for key in IMAGE_FIELDS} for row in record["environment"]],
        "not_inspected": record["environment_summary"]["not_inspected"],
    }


def _settings(record: SettingResult) -> dict:
    settings = record["settings"]
    return {
        "control": settings["control"],
        "agent": settings["agent"],
        "agent_names_reported": settings["agent_names_reported"],
        "harness_version": settings["harness_version"],
        "model_requested": settings["model"],
        "models_served": settings["served_models"],
        "effort_requested": settings["reasoning_effort"],
        "effort_sent": settings["effort_sent"],
        "sampling_sent": settings["sampling_sent"],
        "trials_recording_requests": record["trials_recording_requests"],
        "benchflow_version": settings["benchflow_version"],
        "sandbox": settings["sandbox"],
        "agent_env": settings["agent_env"],
        "agent_env_chosen": settings["agent_env_chosen"],
        "routes": settings["routes"],
        "dataset": settings["dataset"],
        "not_recorded": settings["not_recorded"],
    }


def _controls(record: SettingResult) -> dict:
    controls = record["controls"]
    if not controls:
        return {"applicable": False, "note": "this setting is itself a control (oracle or nop)"}
    return {
        "applicable": True,
        "policy": controls["policy"],
        "oracle": controls["oracle"],
        "nop": controls["nop"],
        "tasks_without_oracle": controls["tasks_without_oracle"],
        "tasks_without_nop": controls["tasks_without_nop"],
        "tasks_without_control": controls["tasks_without_control"],
        "tasks_failing_controls": controls["tasks_failing_controls"],
        "tasks_unverified": controls["tasks_unverified"],
        "tasks_holding": controls["tasks_holding"],
        "verdicts": {
            task: {"verdict": entry["verdict"], "reasons": entry["reasons"]}
            for task, entry in controls["per_task"].items()
        },
        "uncovered": controls["uncovered"],
    }


def checkable_parts(record: SettingResult, parts: CardParts) -> dict:
    """The ten parts of a checkable result, as the card shows them: what the completeness
    checklist and the limits are read off (report.build_record)."""
    return {
        "schema": SCHEMA,
        "setting": record["setting"],
        "description": record["description"],
        "job_folders": record["jobs"],
        "result": _number(record),
        "tasks_and_tries": _tasks_and_tries(record),
        "benchmark": record["benchmark"],
        "environment": _environment(record),
        "settings": _settings(record),
        "controls": _controls(record),
        "grader": parts["grader"],
        "left_out": record["left_out_accounting"],
        # the totals and cost measures with every trial that has no cost (card parts)
        "tokens_and_cost": record["usage"] | parts["tokens_and_cost"],
        "trials": parts["trials"],
        "trials_in_full": "trials.json (every field of every trial)",
        "run_summary": parts["run_summary"],
        "seeds": record["seeds"],
        "warnings": record["warnings"],
    }


def build_run_card(record: SettingResult, parts: CardParts) -> dict:
    """run-card.json of one setting: a view of its record and the card parts counted over its
    trial rows."""
    return checkable_parts(record, parts) | {"completeness": record["completeness"], "limits": record["limits"]}


SCHEMAS = Path(__file__).resolve().parents[1] / "schemas"  # package data: found in an installed copy too


# Trial-row fields the card schema constrains by value: to listed values, or to null or a number
# in [0, 1] (#/$defs/rate_or_null); every other field only by JSON type (a string also by not
# being empty).
ENUM_FIELDS = ("outcome", "graded_by")
RATE_FIELDS = ("reward", "verifier_reward")


def _schema_class(item: tuple) -> tuple:
    """What the trial schema can tell apart about one (field, value) of a row."""
    key, value = item
    if key in ENUM_FIELDS:
        return item
    kind = type(value)
    if key in RATE_FIELDS:
        return key, kind, (kind is int or kind is float) and 0 <= value <= 1
    return key, kind, bool(value)


def _representatives(trials: list[dict]) -> list[dict]:
    """One trial row per distinct combination of what the schema can tell apart: validating these
    validates every row, partial-credit rewards included, at a fraction of the cost. Fields are
    taken in the row's own order (the rows are built alike), so a row whose fields come in another
    order is only one more representative."""
    seen: dict[tuple, dict] = {}
    for row in trials:
        seen.setdefault(tuple(map(_schema_class, row.items())), row)
    return list(seen.values())


def validate(card: dict) -> None:
    """Raise jsonschema.ValidationError unless the card and its run summary follow their schemas
    (benchreport/schemas/: ours, and BenchFlow's run-summary v1 as published)."""
    import jsonschema  # a Snakemake dependency; imported here so the report stage alone pays

    checked = card | {"trials": _representatives(card["trials"])}
    for document, name in (
        (checked, "run-card.schema.json"),
        (card["run_summary"], "benchflow-run-summary.v1.schema.json"),
    ):
        jsonschema.Draft202012Validator(json.loads((SCHEMAS / name).read_text(encoding="utf-8"))).validate(document)
