"""The run card of one setting (run-card.json) and its run summary in BenchFlow's form.

Two stages, so each runs where its inputs are:

- `card_parts(setting, ingests, excluded)` at the trial_rows stage, over the ingest outputs of
  the job folders the setting draws on: the grader, the benchmark version, the left-out
  accounting (every attempt folder found lands in exactly one category), tokens and cost (every
  trial without a cost named), and the run summary in BenchFlow's `benchflow.run-summary` form.
  Written to card-parts.json beside stats.json, which holds the numbers.
- `build_run_card(stats, environment)` at the report stage, over stats.json, card-parts.json and
  trials.json merged: the ten parts of a checkable result plus the completeness checklist,
  validated against workflow/schemas/run-card.schema.json.

Pure functions: plain data in, plain data out.
"""

from __future__ import annotations

import json
import statistics as pystats
from collections import Counter
from pathlib import Path

from . import completeness, grader, provenance
from .classify import LEFT_OUT, REVIEWER_RUN
from .words import count

SCHEMA = "benchreport.run-card/1"
SAMPLING_KEYS = ("temperature", "top_p", "max_tokens", "max_completion_tokens", "max_output_tokens")
MAX_TOKEN_KEYS = ("max_tokens", "max_completion_tokens", "max_output_tokens")
EFFORT_KEYS = ("reasoning_effort", "thinking", "output_config")
TOKEN_NAMES = {
    "n_input_tokens": "input",
    "n_output_tokens": "output",
    "n_cache_read_tokens": "cache_read",
    "n_cache_creation_tokens": "cache_creation",
    "total_tokens": "total",
}
GATE_KINDS = ("failed", "errored", "verifier_errored", "timed_out")


def _own(setting: str, ingests: list[dict]) -> tuple[list[dict], list[dict]]:
    """(the setting's trial rows, the ingests of the job folders it draws on)."""
    own = [ingest for ingest in ingests if any(trial["setting"] == setting for trial in ingest["trials"])]
    mine = [trial for ingest in own for trial in ingest["trials"] if trial["setting"] == setting]
    return mine, own


# ------------------------------------------------------------------------------------------
# what was left out, and why: every attempt folder in exactly one category


def budget_stop(block) -> dict | None:
    """A summary.json `budget` block (newer BenchFlow) reduced to what the report says."""
    if not isinstance(block, dict):
        return None

    def names_and_count(value):
        if isinstance(value, list):
            return sorted(str(item) for item in value), len(value)
        if isinstance(value, bool) or not isinstance(value, int):
            return [], 0
        return [], value

    cancelled, n_cancelled = names_and_count(block.get("cancelled"))
    not_started, n_not_started = names_and_count(block.get("not_started"))
    return {
        "stopped": bool(block.get("stopped")),
        "reason": block.get("reason") if isinstance(block.get("reason"), str) else None,
        "caps": block.get("caps") if isinstance(block.get("caps"), dict) else None,
        "spent": block.get("spent") if isinstance(block.get("spent"), dict) else None,
        "cancelled": n_cancelled,
        "cancelled_tasks": cancelled,
        "not_started": n_not_started,
        "not_started_tasks": not_started,
    }


def _superseded(trial: dict) -> list[str]:
    """Outcomes of the attempts that were not kept (the kept one is removed once)."""
    outcomes = list(trial.get("attempt_outcomes") or [trial["outcome"]] * trial.get("attempts", 1))
    if trial["outcome"] in outcomes:
        outcomes.remove(trial["outcome"])
    return outcomes


def _left_out(setting: str, mine: list[dict], own: list[dict], excluded: set, environment) -> dict:
    found = sum(ingest["attempt_folders_found"] for ingest in own) - sum(
        trial.get("attempts", 1) for ingest in own for trial in ingest["trials"] if trial["setting"] != setting
    )
    scored, errored, verifier_errored, unscored = Counter(), Counter(), Counter(), 0
    failed_controls, retried, interrupted = Counter(), Counter(), Counter()
    for trial in mine:
        outcome = trial["outcome"]
        if outcome == "interrupted":
            reason = "rubric review pending" if trial.get("review_pending") else "never finished"
            interrupted[reason] += trial.get("attempts", 1)
            continue
        for earlier in _superseded(trial):
            if earlier == "interrupted":
                interrupted["resumed later"] += 1
            else:
                retried[earlier] += 1
        if trial["task"] in excluded:
            failed_controls[trial["task"]] += 1
        elif outcome in ("passed", "failed"):
            scored[outcome] += 1
        elif outcome == "errored":
            errored[trial.get("error_category") or "other"] += 1
        elif outcome == "verifier_errored":
            incomplete = "rubric review incomplete" if trial.get("has_scoring") else "verifier_other"
            verifier_errored[trial.get("verifier_error_category") or incomplete] += 1
        else:
            unscored += 1
    unreadable, reviewer_runs, files = Counter(), 0, []
    for ingest in own:
        for row in ingest.get("ledger", []):
            if not str(row.get("effect", "")).startswith(LEFT_OUT):
                files.append(row)
            elif row.get("reason") == REVIEWER_RUN:
                reviewer_runs += 1
            else:
                unreadable[row.get("reason") or "unreadable"] += 1
    categories = [
        _category("scored", "scored (passed or failed)", "counted in the pass rate", scored),
        _category("errored", "errored, by category", "counted as not passed", errored),
        _category("verifier_errored", "verifier errored, by category", "counted as not passed", verifier_errored),
        _category("unscored", "unscored (no reward, no error)", "counted as not passed", Counter({"unscored": unscored}) if unscored else Counter()),
        _category("failed_controls", "trials of tasks that failed their controls", "left out of the headline", failed_controls),
        _category("retried", "earlier attempts BenchFlow retried, by their outcome", "left out (the kept attempt is the scored one, then the newest); their tokens and cost are counted", retried),
        _category("interrupted", "interrupted attempts (config.json, no result.json)", "left out", interrupted),
        _category("unreadable", "attempt folders that could not be read", "left out", unreadable),
        _category("reviewer_runs", "reviewer runs (purpose: reviewer), not trials", "left out", Counter({"reviewer run": reviewer_runs}) if reviewer_runs else Counter()),
    ]
    accounted = sum(category["folders"] for category in categories)
    budgets = {ingest["job"]["id"]: budget_stop(ingest["job"].get("budget")) for ingest in own}
    stops = [{"job": job} | stop for job, stop in sorted(budgets.items()) if stop and (stop["stopped"] or stop["cancelled"] or stop["not_started"])]
    return {
        "folders_found": found,
        "folders_accounted": accounted,
        "adds_up": accounted == found,
        "unaccounted": found - accounted,
        "categories": categories,
        "files_not_read": [
            {key: row.get(key) for key in ("job", "folder", "file", "reason", "effect")}
            for row in sorted(files, key=lambda row: (row.get("job", ""), row.get("file", "")))
        ],
        "budget_stops": stops,
        "budget_recorded": any(stop is not None for stop in budgets.values()),
        "images_not_inspected": images_not_inspected(environment),
    }


def _category(key: str, label: str, effect: str, counts: Counter) -> dict:
    return {"key": key, "label": label, "effect": effect, "folders": sum(counts.values()), "by": dict(sorted(counts.items()))}


def images_not_inspected(environment) -> list[dict]:
    """Tasks whose image was not inspected as it ran (render.environment_rows rows)."""
    return [
        {"task": row["task"], "status": row["status"], "reason": row.get("reason")}
        for row in sorted(environment or [], key=lambda row: row["task"])
        if row.get("status") != "inspected"
    ]


# ------------------------------------------------------------------------------------------
# tokens and cost


UNPRICED = {  # cause -> the sentence the report prints
    "interrupted": "interrupted before BenchFlow wrote its usage, so no cost is given",
    "control": "a control: no model was called, so there is no cost",
    "agent-reported usage": "usage reported by the agent itself (native or subscription login), which BenchFlow "
    "does not price, so no cost is given",
    "no usage captured": "no usage was captured (no call went through BenchFlow's gateway), so no cost is given",
    "no price known": "no price known for this model, so no cost is given",
    "no cost from the price table": "the price table gave no cost for these calls (BenchFlow records an unknown "
    "or zero cost as null), so no cost is given",
}
NO_COST_NEEDED = ("interrupted", "control")


def unpriced_cause(trial: dict) -> str:
    """Why a trial has no cost: a key of UNPRICED."""
    total = (trial.get("tokens_all_attempts") or trial.get("tokens") or {}).get("total_tokens") or 0
    if trial.get("outcome") == "interrupted":
        return "interrupted"
    if trial.get("control") and not total:
        return "control"
    if trial.get("usage_source") == "agent_native_acp":
        return "agent-reported usage"
    if trial.get("usage_source") in (None, "unavailable"):
        return "no usage captured"
    return "no price known" if trial.get("price_source") is None else "no cost from the price table"


def _tokens(rows: list[dict], field: str) -> dict:
    records = [row.get(field) or {} for row in rows]
    return {name: sum(record.get(key) or 0 for record in records) for key, name in TOKEN_NAMES.items()}


def _cost(rows: list[dict], field: str) -> tuple[float | None, int]:
    costs = [row[field] for row in rows if row.get(field) is not None]
    return (round(sum(costs), 6) if costs else None), len(costs)


def tokens_and_cost(trials: list[dict], kept: list[dict]) -> dict:
    """Tokens (input incl. cache, output, cache reads, cache writes) and cost, over every attempt
    of the setting (retries and left-out trials included) and over the kept trials; cost per
    solved task; every trial without a cost named with the reason. Never a silent $0."""
    all_cost, priced_all = _cost(trials, "cost_usd_all_attempts")
    kept_cost, priced_kept = _cost(kept, "cost_usd")
    unpriced = [
        {"task": trial["task"], "job": trial.get("job"), "folder": trial.get("folder"), "model": trial.get("model"),
         "usage_source": trial.get("usage_source"), "price_source": trial.get("price_source"),
         "cause": unpriced_cause(trial), "reason": UNPRICED[unpriced_cause(trial)]}
        for trial in sorted(trials, key=lambda t: (t["task"], t.get("job") or "", t.get("folder") or ""))
        if trial.get("cost_usd_all_attempts") is None
    ]
    missing_cost = [row for row in unpriced if row["cause"] not in NO_COST_NEEDED]
    solved = sorted({trial["task"] for trial in kept if trial["outcome"] == "passed"})
    passed = sum(trial["outcome"] == "passed" for trial in kept)
    causes = Counter(row["cause"] for row in unpriced)
    models = {}
    for row in unpriced:
        models.setdefault(row["cause"], set()).add(row["model"] or "no model")
    return {
        "all_attempts": {"trials": len(trials), "attempts": sum(t.get("attempts", 1) for t in trials),
                         "tokens": _tokens(trials, "tokens_all_attempts"), "cost_usd": all_cost, "priced_trials": priced_all},
        "kept_trials": {"trials": len(kept), "tokens": _tokens(kept, "tokens"), "cost_usd": kept_cost, "priced_trials": priced_kept},
        "token_note": "input counts include cache reads and cache writes, as BenchFlow normalises them",
        "cost_complete": not missing_cost,
        "cost_is_lower_bound": bool(missing_cost) and all_cost is not None,
        "solved_tasks": len(solved),
        "passed_trials": passed,
        "cost_per_solved_task_usd": round(all_cost / len(solved), 6) if all_cost is not None and solved else None,
        "cost_per_passed_trial_usd": round(all_cost / passed, 6) if all_cost is not None and passed else None,
        "cost_rule": "cost over every attempt of the setting (retries and left-out trials included) divided by "
        "the tasks with at least one passing kept trial (per solved task) or by the passing kept trials",
        "unpriced_trials": len(unpriced),
        "unpriced_needing_cost": len(missing_cost),
        "unpriced_reasons": [
            {"cause": cause, "reason": UNPRICED[cause], "trials": number, "models": sorted(models[cause])}
            for cause, number in sorted(causes.items())
        ],
        "unpriced": unpriced,
    }


# ------------------------------------------------------------------------------------------
# BenchFlow's run-summary form (benchflow-run-summary.v1.schema.json)


def _score_bucket(trial: dict) -> str:
    """BenchFlow's score bucket (§3.2): a trial with nothing recorded counts as errored (ingest
    already puts an incomplete rubric review in errored or verifier_errored)."""
    return "errored" if trial["outcome"] == "unscored" else trial["outcome"]


def _timed_out(trial: dict) -> bool:
    return trial.get("error_category") == "timeout" or trial.get("model_outcome") == "timed out"


def run_summary(trials: list[dict], *, job_dir: str | None, job_name: str, budget=None, gate: dict | None = None) -> dict:
    """A `benchflow.run-summary` document over finished trials (ingest or stats trial rows).

    BenchFlow's own rules: pass_rate = passed / total over trials (not the report's mean over
    tasks), score buckets with unscored counted as errored, timed_out whether scored or not.
    Resume reuse is not recorded in a job folder, so `reused` is 0 and `ran` is the total;
    `exit_code` is benchreport's gate (1 when a configured gate check failed), not BenchFlow's
    process exit code, which no job file records.
    """
    # BenchFlow counts result.json files: an interrupted attempt has none, nor a trial whose
    # rubric review is pending (ingest marks it interrupted; its result stands in solver.json)
    finished = [trial for trial in trials if trial["outcome"] != "interrupted"]
    buckets = Counter(_score_bucket(trial) for trial in finished)
    total = len(finished)
    rewards = [trial["reward"] for trial in finished if trial.get("reward") is not None]
    counts = {kind: buckets.get(kind, 0) for kind in ("passed", "failed", "errored", "verifier_errored")}
    counts["timed_out"] = sum(_timed_out(trial) for trial in finished)
    gate = gate or {}
    fail_under = gate.get("fail_under")
    fail_on = [kind for kind in gate.get("fail_on") or [] if kind in GATE_KINDS]
    pass_rate = counts["passed"] / total if total else 0.0
    failures = []
    if fail_under is not None and pass_rate < fail_under:
        failures.append(f"pass rate {pass_rate:.1%} is under {fail_under:.1%}")
    failures += [f"{counts[kind]} {kind.replace('_', ' ')} trials" for kind in fail_on if counts[kind]]
    return {
        "kind": "benchflow.run-summary",
        "schema_version": 1,
        "job_dir": job_dir,
        "job_name": job_name,
        "total": total,
        **counts,
        "pass_rate": pass_rate,
        "mean_reward": sum(rewards) / len(rewards) if rewards else None,
        "reused": 0,
        "ran": total,
        "gate": {"fail_under": fail_under, "fail_on": fail_on, "failed": failures},
        "exit_code": 1 if failures else 0,
        "budget": budget if isinstance(budget, dict) else None,
        "benchreport_notes": [
            "pass_rate is BenchFlow's passed / total over trials, not the report's mean over tasks",
            "reused is not recorded in job folders and is given as 0; ran is the total",
            "exit_code is the gate's verdict, not BenchFlow's process exit code",
        ],
    }


def _merged_budget(own: list[dict]):
    blocks = {ingest["job"]["id"]: ingest["job"].get("budget") for ingest in own if isinstance(ingest["job"].get("budget"), dict)}
    if len(blocks) == 1 and len(own) == 1:
        return next(iter(blocks.values()))
    return {"per_job": dict(sorted(blocks.items()))} if blocks else None


# ------------------------------------------------------------------------------------------
# the trial_rows stage: everything that needs the ingest rows


def card_parts(setting: str, ingests: list[dict], excluded: set[str], *, benchmark_config: str | None = None,
               gate: dict | None = None) -> dict:
    """The parts of the run card computed from ingest rows, card-parts.json: the job folders the
    setting draws on (with BenchFlow's crosscheck) and their ledger rows, the grader, the
    benchmark version, the left-out accounting, tokens and cost, the run summary. `excluded`: the
    tasks the controls leave out of the setting's numbers (see stats.setting_trial_rows).

    Reads per trial: setting, task, job, folder, try_index, outcome, reward, attempts,
    attempt_outcomes, error_category, verifier_error_category, has_scoring, control, model, tokens,
    tokens_all_attempts, cost_usd, cost_usd_all_attempts, usage_source, price_source,
    task_digest, dataset, and (once ingest provides them) `grading` and `provenance`; per job:
    id, attempt_folders_found, ledger, and (once provided) job.reviewer, job.provenance, job.budget.
    """
    mine, own = _own(setting, ingests)
    finished = [trial for trial in mine if trial["outcome"] != "interrupted"]
    kept = [trial for trial in finished if trial["task"] not in excluded]
    graded_or_finished = [trial for trial in mine if trial["outcome"] != "interrupted" or trial.get("grading")]
    job_dir = own[0]["job"]["id"] if len(own) == 1 else None
    return {
        "job_folders": [ingest["job"] | {"crosscheck": ingest["crosscheck"]} for ingest in own],
        "ledger": [row for ingest in own for row in ingest["ledger"]],
        "grader": grader.describe_grader(graded_or_finished, [ingest["job"].get("reviewer") for ingest in own]),
        "benchmark": provenance.benchmark_version(mine, [ingest["job"].get("provenance") for ingest in own], benchmark_config),
        "left_out_accounting": _left_out(setting, mine, own, excluded, None),
        "tokens_and_cost": tokens_and_cost(mine, kept),
        "run_summary": run_summary(finished, job_dir=job_dir, job_name=setting, budget=_merged_budget(own), gate=gate),
    }


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
        "headline": {key: headline.get(key) for key in ("method", "low", "high", "covers", "reaches_target", "worst_coverage", "text")},
        "over_tasks": {key: value for key, value in (intervals.get("over_tasks") or {}).items() if key in keep},
        "over_trials": {key: value for key, value in (intervals.get("over_trials") or {}).items() if key in keep},
        "pass_rate_over_trials": stats.get("pass_rate_over_trials"),
        "mean_reward": stats.get("mean_reward"),
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
        "tasks_under_min_tries": sorted(row["task"] for row in rows if row["trials"] < min_tries),
        "per_task": [
            {"task": row["task"], "trials": row["trials"], "passed": row["passed"], "rate": row["rate"],
             "task_digests": row.get("task_digests", [])}
            for row in rows
        ],
    }


def _environment(environment) -> dict:
    rows = list(environment or [])
    return {
        "inspected": bool(rows),
        "tasks": [
            {key: row.get(key) for key in ("task", "reference", "source", "status", "reason", "id", "repo_digest", "platform", "task_digests")}
            for row in sorted(rows, key=lambda row: row["task"])
        ],
        "not_inspected": sorted(row["task"] for row in rows if row.get("status") != "inspected"),
    }


def _settings(stats: dict) -> dict:
    key, sampling = stats["key"], stats.get("sampling") or {}
    served = stats.get("served_models") or {}
    control = key.get("control")
    effort_sent = {name: values for name, values in sampling.items() if name in EFFORT_KEYS}
    sampling_sent = {name: values for name, values in sampling.items() if name in SAMPLING_KEYS}
    recording = stats.get("trials_recording_requests", 0)
    missing = []
    if not key.get("agent"):
        missing.append("the agent (harness)")
    if not key.get("harness_version"):
        missing.append("the harness version")
    if not key.get("benchflow_version"):
        missing.append("the BenchFlow version")
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
            missing.append("sampling: " + ", ".join(absent) + " not recorded in any request (the provider's defaults applied)")
        if not effort_sent:
            missing.append(
                f"the effort sent (requested {key['reasoning_effort']}; none seen in the recorded requests)"
                if key.get("reasoning_effort") else "the effort (none requested, none seen in the recorded requests)"
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
        "tasks_without_oracle": sorted(task for task, cells in per_task.items() if "oracle" not in cells),
        "tasks_without_nop": sorted(task for task, cells in per_task.items() if "nop" not in cells),
        "tasks_without_control": controls.get("tasks_without_control", []),
        "tasks_failing_controls": controls.get("tasks_failing_controls", []),
    }


# What the card keeps of each trial: where it is, what it scored and who graded it. Every other
# field of a trial is in the setting's trials.json, which the card names.
TRIAL_FIELDS = ("task", "try", "job", "folder", "outcome", "reward", "attempts", "tokens", "cost_usd", "seconds")


def _trials(stats: dict, grading: dict | None) -> list[dict]:
    verdicts = {(row["job"], row["folder"]): row for row in (grading or {}).get("per_trial", [])}
    rows = []
    for trial in list(stats.get("trials") or []) + list(stats.get("interrupted") or []):
        graded = verdicts.get((trial["job"], trial["folder"]))
        rows.append({field: trial.get(field) for field in TRIAL_FIELDS} | {
            "left_out": trial.get("left_out") or ("interrupted" if trial["outcome"] == "interrupted" else None),
            "graded_by": "model" if graded else "script",
            "verifier_reward": graded["verifier_reward"] if graded else trial.get("reward"),
            "model_verdict": graded["model_verdict"] if graded else None,
        })
    return sorted(rows, key=lambda row: (row["task"], row["try"] is None, row["try"] or 0, row["job"], row["folder"]))


def build_run_card(stats: dict, environment=None, *, min_tries: int = 3) -> dict:
    """run-card.json of one setting: stats.json with card-parts.json and trials.json merged in, plus
    the task image rows of the report (render.environment_rows); `min_tries` is the config's
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
        "tokens_and_cost": stats.get("tokens_and_cost"),
        "trials": _trials(stats, stats.get("grader")),
        "trials_in_full": "trials.json (every field of every trial)",
        "run_summary": stats.get("run_summary"),
        "seeds": stats.get("seeds"),
        "warnings": stats.get("warnings", []),
    }
    card["completeness"] = completeness.checklist(card)
    card["limits"] = {
        "not_controlled": completeness.not_controlled(card),
        "task_count": completeness.task_count_limits(card),
    }
    return card


SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"


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
    seen = {}
    for row in trials:
        seen.setdefault(tuple(map(_schema_class, row.items())), row)
    return list(seen.values())


def validate(card: dict) -> None:
    """Raise jsonschema.ValidationError unless the card and its run summary follow their schemas
    (workflow/schemas/: ours, and BenchFlow's run-summary v1 as published)."""
    import jsonschema  # a Snakemake dependency; imported here so the report stage alone pays

    checked = card | {"trials": _representatives(card["trials"])}
    for document, name in ((checked, "run-card.schema.json"), (card["run_summary"], "benchflow-run-summary.v1.schema.json")):
        if document is None:
            continue
        schema = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
        jsonschema.Draft202012Validator(schema).validate(document)


# ------------------------------------------------------------------------------------------
# Markdown for the report's sections


def left_out_markdown(accounting: dict, cell=str) -> str:
    """The 'What was left out' section: one table whose folder counts add up."""
    lines = [
        "| What | Attempt folders | Effect | Detail |",
        "| --- | ---: | --- | --- |",
    ]
    for category in accounting["categories"]:
        if category["folders"]:
            detail = ", ".join(f"{name} {count}" for name, count in category["by"].items())
            lines.append(f"| {cell(category['label'])} | {category['folders']} | {cell(category['effect'])} | {cell(detail)} |")
    verdict = "every one is counted above" if accounting["adds_up"] else f"{accounting['unaccounted']} are NOT accounted for above"
    lines += ["", f"{accounting['folders_found']} attempt folders found; {verdict}."]
    for stop in accounting["budget_stops"]:
        lines.append(
            f"Budget stop in {cell(stop['job'])}: {cell(stop['reason'] or 'no reason recorded')}; "
            f"{count(stop['cancelled'], 'task')} cancelled (their folders, if any, are counted above), "
            f"{stop['not_started']} never started (no folder)"
            + (f": {cell(', '.join(stop['not_started_tasks']))}" if stop["not_started_tasks"] else "") + "."
        )
    if not accounting["budget_stops"]:
        lines.append("Budget stops: none" + ("" if accounting["budget_recorded"] else " (no summary.json records a budget)") + ".")
    for row in accounting["files_not_read"]:
        lines.append(f"File not read: {cell(row['file'])} in {cell(row['job'])}: {cell(row['reason'])} ({cell(row['effect'])}).")
    by_status = {}
    for row in accounting["images_not_inspected"]:
        by_status.setdefault(row["status"], []).append(row["task"])
    for status, tasks in sorted(by_status.items()):
        lines.append(f"Images not inspected ({cell(status)}) for {count(len(tasks), 'task')}: {cell(', '.join(tasks))}.")
    return "\n".join(lines) + "\n"


def tokens_and_cost_markdown(usage: dict, usd=lambda value: f"${value:,.4f}") -> str:
    """One paragraph: tokens over all attempts and kept trials, cost, and who has no cost, why."""
    every, kept = usage["all_attempts"], usage["kept_trials"]

    def tokens(block):
        t = block["tokens"]
        return (f"{t['total']:,} tokens ({t['input']:,} input, of which {t['cache_read']:,} cache reads and "
                f"{t['cache_creation']:,} cache writes; {t['output']:,} output)")

    text = (f"Over all {every['attempts']} attempts (retries included): {tokens(every)}. "
            f"Over the {kept['trials']} kept trials: {tokens(kept)}. ")
    if every["cost_usd"] is None:
        text += "No cost: no trial has one. "
    else:
        bound = "at least " if usage["cost_is_lower_bound"] else ""
        text += f"Cost {bound}{usd(every['cost_usd'])} over all attempts ({every['priced_trials']} priced trials)"
        if kept["cost_usd"] is not None:
            text += f", {usd(kept['cost_usd'])} over the kept trials"
        if usage["cost_per_solved_task_usd"] is not None:
            text += f"; {bound}{usd(usage['cost_per_solved_task_usd'])} per solved task ({usage['solved_tasks']} solved)"
        text += ". "
    for row in usage["unpriced_reasons"]:
        text += f"{count(row['trials'], 'trial')} without a cost ({', '.join(row['models'])}): {row['reason']}. "
    return text.strip() + "\n"
