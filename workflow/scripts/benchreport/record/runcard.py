"""The run card of one setting (run-card.json), at the report stage.

`build_run_card(stats, environment)` over a setting's numbers, card parts and trial rows merged
(trial_rows.setting_parts): the ten parts of a checkable result plus the completeness checklist,
validated against benchreport/schemas/run-card.schema.json. Pure functions: plain data in, plain
data out.
"""

from __future__ import annotations

import json
import statistics as pystats
from pathlib import Path

from ..present import writeup
from ..present.sentences import EFFORT_KEYS, ENV_DROPPED, ENV_NOT_RECORDED
from . import completeness

SCHEMA = "benchreport.run-card/1"
# The sampling parameters the card lists as sent: the part of what ingest reads off a request
# (ingest.SAMPLING_KEYS, effort and thinking included) that sets how the model samples.
SAMPLING_PARAMETERS = ("temperature", "top_p", "max_tokens", "max_completion_tokens", "max_output_tokens")
MAX_TOKEN_KEYS = ("max_tokens", "max_completion_tokens", "max_output_tokens")


def images_not_inspected(environment) -> list[dict]:
    """Tasks whose image was not inspected as it ran (report.environment_rows rows)."""
    return [
        {"task": row["task"], "status": row["status"], "reason": row.get("reason")}
        for row in sorted(environment or [], key=lambda row: row["task"])
        if row.get("status") != "inspected"
    ]


# ------------------------------------------------------------------------------------------
# the report stage: the card


def _number(stats: dict) -> dict:
    headline = stats.get("headline") or {}
    intervals = stats.get("intervals") or {}
    keep = ("method", "low", "high", "over", "seed", "resamples", "label")
    return {
        "pass_rate": stats["pass_rate"]["value"],
        "rule": stats["pass_rate"]["rule"],
        "confidence": stats["confidence"],
        "headline": {
            key: headline.get(key)
            for key in ("method", "low", "high", "level", "width", "covers", "reaches_target", "worst_coverage")
        },
        "over_tasks": {key: value for key, value in (intervals.get("over_tasks") or {}).items() if key in keep},
        "over_trials": {key: value for key, value in (intervals.get("over_trials") or {}).items() if key in keep},
        "pass_rate_over_trials": stats.get("pass_rate_over_trials"),
        "mean_reward": (stats.get("mean_reward") or {}).get("value"),
        "scored_trials": stats.get("scored_trials"),
    }


def _tasks_and_tries(stats: dict, min_tries: int) -> dict:
    rows = stats.get("per_task") or []
    tries = [row["trials"] for row in rows]
    return {
        "tasks": len(rows),
        "trials": stats["counts"]["trials"],
        "min_tries_wanted": min_tries,
        "tries_per_task": {"min": min(tries), "median": pystats.median(tries), "max": max(tries)} if tries else None,
        "one_task_moves_points": 100 / len(rows) if rows else None,
        "tasks_under_min_tries": sorted(row["task"] for row in rows if row["trials"] < min_tries),
        "per_task": [
            {
                "task": row["task"],
                "trials": row["trials"],
                "passed": row["passed"],
                "rate": row["rate"],
                "task_digests": row.get("task_digests", []),
            }
            for row in rows
        ],
    }


def _environment(environment) -> dict:
    rows = list(environment or [])
    return {
        "inspected": bool(rows),
        "tasks": [
            {
                key: row.get(key)
                for key in (
                    "task",
                    "reference",
                    "source",
                    "status",
                    "reason",
                    "id",
                    "repo_digest",
                    "platform",
                    "task_digests",
                )
            }
            for row in sorted(rows, key=lambda row: row["task"])
        ],
        "not_inspected": sorted(row["task"] for row in rows if row.get("status") != "inspected"),
    }


def _settings(stats: dict) -> dict:
    key, sampling = stats["key"], stats.get("sampling") or {}
    served = stats.get("served_models") or {}
    control = key.get("control")
    effort_sent = {name: values for name, values in sampling.items() if name in EFFORT_KEYS}
    sampling_sent = {name: values for name, values in sampling.items() if name in SAMPLING_PARAMETERS}
    recording = stats.get("trials_recording_requests", 0)
    missing = []
    if not key.get("agent"):
        missing.append("the agent (harness)")
    if not key.get("harness_version"):
        missing.append("the harness version")
    if not key.get("benchflow_version"):
        missing.append("the BenchFlow version")
    missing.append(ENV_NOT_RECORDED if key.get("agent_env") is None else ENV_DROPPED)
    if not key.get("sandbox"):
        missing.append("the sandbox")
    if not control:
        if not key.get("model"):
            missing.append("the model requested")
        if not served:
            missing.append("the model served (no provider call was captured)")
        absent = [name for name in ("temperature", "top_p") if name not in sampling_sent]
        if not any(name in sampling_sent for name in MAX_TOKEN_KEYS):
            absent.append("max_tokens")
        if absent:
            missing.append(
                "sampling: " + ", ".join(absent) + " not recorded in any request (the provider's defaults applied)"
            )
        if not effort_sent:
            missing.append(
                f"the effort sent (requested {key['reasoning_effort']}; none seen in the recorded requests)"
                if key.get("reasoning_effort")
                else "the effort (none requested, none seen in the recorded requests)"
            )
    return {
        "control": control,
        "agent": key.get("agent"),
        "agent_names_reported": stats.get("agent_names", []),
        "harness_version": key.get("harness_version"),
        "model_requested": key.get("model"),
        "models_served": served,
        "effort_requested": key.get("reasoning_effort"),
        "effort_sent": effort_sent,
        "sampling_sent": sampling_sent,
        "trials_recording_requests": recording,
        "benchflow_version": key.get("benchflow_version"),
        "sandbox": key.get("sandbox"),
        "agent_env": key.get("agent_env"),
        "agent_env_chosen": stats["agent_env_chosen"],
        "routes": stats.get("routes", []),
        "dataset": key.get("dataset"),
        "not_recorded": missing,
    }


def _controls(stats: dict) -> dict:
    controls = stats.get("controls")
    if not controls:
        return {"applicable": False, "note": "this setting is itself a control (oracle or nop)"}
    per_task = controls.get("per_task", {})
    return {
        "applicable": True,
        "policy": controls.get("policy"),
        "oracle": controls["oracle"],
        "nop": controls["nop"],
        "tasks_without_oracle": sorted(task for task, entry in per_task.items() if not entry["oracle"]),
        "tasks_without_nop": sorted(task for task, entry in per_task.items() if not entry["nop"]),
        "tasks_without_control": controls.get("tasks_without_control", []),
        "tasks_failing_controls": controls.get("tasks_failing_controls", []),
        "tasks_unverified": controls.get("tasks_unverified", []),
        "tasks_holding": controls.get("tasks_holding", []),
        "verdicts": {
            task: {"verdict": entry["verdict"], "reasons": entry["reasons"]} for task, entry in sorted(per_task.items())
        },
        "uncovered": controls.get("uncovered", []),
    }


# What the card keeps of each trial: where it is, what it scored and who graded it. Every other
# field of a trial is in the setting's trials.json, which the card names.
TRIAL_FIELDS = ("task", "try", "job", "folder", "outcome", "reward", "attempts", "tokens", "cost_usd", "seconds")


def _trials(stats: dict, grading: dict | None) -> list[dict]:
    verdicts = {(row["job"], row["folder"]): row for row in (grading or {}).get("per_trial", [])}
    rows = []
    for trial in list(stats.get("trials") or []) + list(stats.get("interrupted") or []):
        graded = verdicts.get((trial["job"], trial["folder"]))
        rows.append(
            {field: trial.get(field) for field in TRIAL_FIELDS}
            | {
                "left_out": trial.get("left_out") or ("interrupted" if trial["outcome"] == "interrupted" else None),
                "graded_by": "model" if graded else "script",
                "verifier_reward": graded["verifier_reward"] if graded else trial.get("reward"),
                "model_verdict": graded["model_verdict"] if graded else None,
            }
        )
    return sorted(rows, key=lambda row: (row["task"], row["try"] is None, row["try"] or 0, row["job"], row["folder"]))


def build_run_card(stats: dict, environment=None, *, min_tries: int = 3) -> dict:
    """run-card.json of one setting: its numbers with the card parts and trial rows merged in, plus
    the task image rows of the report (report.environment_rows); `min_tries` is the config's
    statistics.min_trials_per_task. Parts that these lack are null and marked missing."""
    left = stats.get("left_out_accounting")
    if left is not None:
        left = left | {"images_not_inspected": images_not_inspected(environment)}
    card = {
        "schema": SCHEMA,
        "setting": stats["setting"],
        "description": stats["description"],
        "job_folders": sorted(job["id"] for job in stats.get("job_folders", [])) or stats.get("jobs", []),
        "result": _number(stats),
        "tasks_and_tries": _tasks_and_tries(stats, min_tries),
        "benchmark": stats.get("benchmark"),
        "environment": _environment(environment),
        "settings": _settings(stats),
        "controls": _controls(stats),
        "grader": stats.get("grader"),
        "left_out": left,
        # the totals and cost measures (stats) with every trial that has no cost (card parts)
        "tokens_and_cost": stats["usage"] | stats["tokens_and_cost"]
        if stats.get("usage") and stats.get("tokens_and_cost")
        else None,
        "trials": _trials(stats, stats.get("grader")),
        "trials_in_full": "trials.json (every field of every trial)",
        "run_summary": stats.get("run_summary"),
        "seeds": stats.get("seeds"),
        "warnings": stats.get("warnings", []),
    }
    card["completeness"] = completeness.checklist(card)
    card["limits"] = {
        "not_controlled": writeup.not_controlled(card),
        "task_count": writeup.task_count_limits(card),
    }
    return card


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
    validates every row (jsonschema takes ~0.2 ms a row, 5 s at 25,000 trials), partial-credit
    rewards included. Fields are taken in the row's own order (the rows are built alike), so a
    row whose fields come in another order is only one more representative."""
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
        if document is None:
            continue
        schema = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
        jsonschema.Draft202012Validator(schema).validate(document)
