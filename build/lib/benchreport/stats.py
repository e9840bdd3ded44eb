"""Numbers for one setting: pass rate over tasks, intervals, per-task table, costs, warnings."""

from __future__ import annotations

from collections import Counter, defaultdict

import statistics as pystats

import numpy as np

from . import coverage, intervals, passk
from .settings import describe

OUTCOME_ORDER = ("passed", "failed", "errored", "verifier_errored", "unscored")


def _ratio(numerator, denominator):
    return numerator / denominator if denominator else None


def _try_order(trial: dict) -> tuple:
    return (trial["try_index"] is None, trial["try_index"] or 0, trial["job"], trial["folder"])


def per_task(trials: list[dict]) -> list[dict]:
    by_task = defaultdict(list)
    for trial in trials:
        by_task[trial["task"]].append(trial)
    rows = []
    for task in sorted(by_task):
        group = sorted(by_task[task], key=_try_order)
        passed = sum(trial["outcome"] == "passed" for trial in group)
        costs = [trial["cost_usd_all_attempts"] for trial in group if trial["cost_usd_all_attempts"] is not None]
        rows.append(
            {
                "task": task,
                "trials": len(group),
                "passed": passed,
                "rate": passed / len(group),
                "rewards": [trial["reward"] for trial in group],
                "outcomes": [trial["outcome"] for trial in group],
                "task_digests": sorted({trial["task_digest"] for trial in group if trial["task_digest"]}),
                # over the trials with a recorded cost (all attempts); None when none has one
                "mean_cost_usd": sum(costs) / len(costs) if costs else None,
            }
        )
    return rows


def observed(trials: list[dict], field: str) -> dict:
    """How many trials recorded each value of an observed field (served model, sampling...)."""
    counts = Counter()
    for trial in trials:
        for value in trial.get(field) or []:
            counts[value] += 1
    return dict(sorted(counts.items()))


def sampling_seen(trials: list[dict]) -> dict:
    seen = defaultdict(Counter)
    for trial in trials:
        for key, values in trial["sampling"].items():
            for value in values:
                seen[key][value] += 1
    return {key: dict(sorted(counts.items())) for key, counts in sorted(seen.items())}


def usage(trials: list[dict]) -> dict:
    records = [trial["tokens_all_attempts"] for trial in trials]
    fields = {field for record in records for field in record}
    tokens = {field: sum(record.get(field, 0) for record in records) for field in fields}
    priced = [trial for trial in trials if trial["cost_usd_all_attempts"] is not None]
    cost = round(sum(trial["cost_usd_all_attempts"] for trial in priced), 6) if priced else None
    passed = sum(trial["outcome"] == "passed" for trial in trials)
    times = [trial["timing"].get("total") for trial in trials if trial["timing"].get("total") is not None]
    return {
        "tokens": dict(sorted(tokens.items())),
        "cost_usd": cost,
        "trials_priced": len(priced),
        "trials_unpriced": len(trials) - len(priced),
        "price_sources": dict(sorted(Counter(str(t["price_source"]) for t in trials).items())),
        "usage_sources": dict(sorted(Counter(str(t["usage_source"]) for t in trials).items())),
        "cost_per_passed_trial_usd": round(cost / passed, 6) if cost is not None and passed else None,
        "trial_seconds_min": min(times) if times else None,
        "trial_seconds_max": max(times) if times else None,
        "trial_minutes_all_attempts": round(sum(t["seconds_all_attempts"] for t in trials) / 60, 2),
    }


def control_summary(tasks: list[str], control_trials: list[dict]) -> dict:
    """Per task and in all: how the oracle and nop trials on these tasks did, and the verdict.

    A task's controls hold when the oracle passed every try and the nop passed none; an errored
    nop trial counts as not passed (and is shown as errored). A task with neither is "no control".
    """
    summary = {"oracle": {"trials": 0, "passed": 0}, "nop": {"trials": 0, "passed": 0}, "per_task": {}}
    wanted = set(tasks)
    for trial in sorted(control_trials, key=lambda t: (t["task"], _try_order(t))):
        if trial["task"] not in wanted or trial["outcome"] == "interrupted":
            continue
        kind = trial["control"]
        cell = summary["per_task"].setdefault(trial["task"], {}).setdefault(kind, {"trials": 0, "passed": 0, "errored": 0})
        passed = trial["outcome"] == "passed"
        cell["trials"] += 1
        cell["passed"] += passed
        cell["errored"] += trial["outcome"] in ("errored", "verifier_errored")
        summary[kind]["trials"] += 1
        summary[kind]["passed"] += passed
    for task in sorted(wanted):
        cells = summary["per_task"].setdefault(task, {})
        failures = []
        oracle, nop = cells.get("oracle"), cells.get("nop")
        if oracle and oracle["passed"] < oracle["trials"]:
            failures.append(f"oracle passed {oracle['passed']}/{oracle['trials']}")
        if nop and nop["passed"] > 0:
            failures.append(f"nop passed {nop['passed']}/{nop['trials']}")
        cells["verdict"] = "no control" if not (oracle or nop) else ("failed" if failures else "held")
        cells["failures"] = failures
    summary["tasks_without_control"] = sorted(t for t in wanted if summary["per_task"][t]["verdict"] == "no control")
    summary["tasks_failing_controls"] = sorted(t for t in wanted if summary["per_task"][t]["verdict"] == "failed")
    return summary


def controls_text(cells: dict) -> str:
    """'oracle 3/3, nop 0/3 (1 errored)' for one task, or 'no control'."""
    parts = []
    for kind in ("oracle", "nop"):
        if kind in cells:
            cell = cells[kind]
            text = f"{kind} {cell['passed']}/{cell['trials']}"
            if kind == "nop" and cell["errored"]:
                text += f" ({cell['errored']} errored)"
            parts.append(text)
    return ", ".join(parts) or "no control"


COVERS = {"tasks": "tasks and the tries within them", "trials": "trials, as if independent"}


def interval_methods(tasks: list[dict], params: dict) -> dict:
    """Every interval method on this setting's (trials, passes) per task."""
    trials = np.array([row["trials"] for row in tasks])
    passes = np.array([row["passed"] for row in tasks])
    found = {}
    for name, method in intervals.METHODS.items():
        try:
            found[name] = method(trials, passes, seed=params["seed"], resamples=params["resamples"],
                                 confidence=params["confidence"])
        except ValueError as exc:
            found[name] = {"method": name, "low": None, "high": None, "note": str(exc)}
    return found


def coverage_shape(tasks: list[dict]) -> tuple[int, int]:
    """(tasks, tries) at which the headline's coverage is simulated: the scored tasks, and the
    median number of trials per task, rounded (at least 1)."""
    return len(tasks), max(1, round(pystats.median(row["trials"] for row in tasks)))


def check_grid(grid: dict, shape: tuple[int, int], params: dict) -> dict:
    """The grid, once it is known to be the one this setting's headline needs."""
    found = (grid["n_tasks"], grid["tries_per_task"], grid["seed"], grid["simulations"], grid["confidence"])
    wanted = (*shape, params["seed"], params["coverage_simulations"], params["confidence"])
    if found != wanted:
        raise ValueError(
            "the coverage grid given is for (tasks, tries, seed, simulations, confidence) = "
            f"{found}, but this setting's headline needs {wanted}"
        )
    return grid


def headline_interval(tasks: list[dict], methods: dict, params: dict, grid_for=None) -> dict:
    """The narrowest method whose simulated worst-case coverage at this run's own tasks and tries
    reaches the confidence level; when none does, the best one, and a sentence saying so.

    grid_for(tasks, tries) returns the coverage grid at that shape (the workflow computes it
    once per shape, rule coverage_grid); without it, the grid is simulated here.
    """
    if not tasks:
        return {"method": None, "low": None, "high": None, "text": "no task was scored", "coverage": None}
    shape = coverage_shape(tasks)
    if grid_for is None:
        grid = coverage.coverage_grid(*shape, seed=params["seed"], simulations=params["coverage_simulations"],
                                      confidence=params["confidence"])
    else:
        grid = check_grid(grid_for(*shape), shape, params)
    choice = coverage.choose_headline(grid, target=params["confidence"])
    name = choice["method"] or choice["best"]
    summary = {
        "n_tasks": grid["n_tasks"],
        "tries_per_task": grid["tries_per_task"],
        "simulations": grid["simulations"],
        "seed": grid["seed"],
        "model": grid["model"],
        "bootstrap": grid["bootstrap"],
        "pass_rates": grid["pass_rates"],
        "correlations": grid["correlations"],
        "methods": {
            method: {key: row[key] for key in ("worst_coverage", "worst_cell", "mean_width")}
            for method, row in grid["methods"].items()
        },
    }
    return methods[name] | {
        "reaches_target": choice["method"] is not None,
        "worst_coverage": choice["worst_coverage"],
        "text": choice["text"],
        "covers": COVERS[methods[name].get("over", "tasks")],
        "coverage": summary,
    }


def solve_rates(tasks: list[dict]) -> dict | None:
    if not tasks:
        return None
    return passk.solve_rates([row["trials"] for row in tasks], [row["passed"] for row in tasks])


def _setting_trials(setting: str, all_trials: list[dict], failed_control: str) -> tuple:
    """(its trials, the finished ones, the interrupted ones, the control summary or None, task ->
    why its controls leave it out): what the numbers and the trial rows of a setting both start from."""
    mine = [trial for trial in all_trials if trial["setting"] == setting]
    finished = [trial for trial in mine if trial["outcome"] != "interrupted"]
    interrupted = [trial for trial in mine if trial["outcome"] == "interrupted"]
    controls = None
    excluded_tasks = {}
    if not mine[0]["setting_key"]["control"]:
        control_trials = [trial for trial in all_trials if trial["control"]]
        controls = control_summary(sorted({t["task"] for t in finished}), control_trials)
        controls["policy"] = failed_control
        if failed_control == "exclude":
            excluded_tasks = {task: controls["per_task"][task]["failures"] for task in controls["tasks_failing_controls"]}
    return mine, finished, interrupted, controls, excluded_tasks


def setting_stats(setting: str, all_trials: list[dict], params: dict, grid_for=None) -> dict:
    """The numbers of one setting as plain data: what its report prints but the trial rows and what
    the run card counts from them (setting_trial_rows, runcard.card_parts). grid_for: see
    headline_interval."""
    mine, finished, interrupted, controls, excluded_tasks = _setting_trials(setting, all_trials, params["failed_control"])
    key = mine[0]["setting_key"]
    counted = [trial for trial in finished if trial["task"] not in excluded_tasks]
    left_out_counts = {task: [0, 0] for task in excluded_tasks}  # task -> [trials, passed]
    for trial in finished:
        if trial["task"] in left_out_counts:
            left_out_counts[trial["task"]][0] += 1
            left_out_counts[trial["task"]][1] += trial["outcome"] == "passed"
    tasks = per_task(counted)
    rates = [row["rate"] for row in tasks]
    passed = sum(row["passed"] for row in tasks)
    n_trials = len(counted)
    rewards = [trial["reward"] for trial in counted if trial["reward"] is not None]
    outcomes = Counter(trial["outcome"] for trial in counted)
    confidence = params["confidence"]
    warnings = []
    short = [row["task"] for row in tasks if row["trials"] < params["min_trials_per_task"]]
    if short:
        warnings.append(
            f"{len(short)} of {len(tasks)} tasks have fewer than {params['min_trials_per_task']} trials: "
            + ", ".join(short)
        )
    for field, label in (("served_models", "served model"),):
        values = observed(counted, field)
        if len(values) > 1:
            warnings.append(
                f"mixed settings: the {label} differs across trials ("
                + "; ".join(f"{value}: {count} trials" for value, count in values.items())
                + ")"
            )
    for key_name, values in sampling_seen(counted).items():
        if len(values) > 1 and key_name in ("reasoning_effort", "thinking", "output_config"):
            warnings.append(
                f"mixed settings: requests sent different {key_name} values ("
                + "; ".join(f"{value}: {count} trials" for value, count in values.items())
                + ")"
            )
    drift = [row["task"] for row in tasks if len(row["task_digests"]) > 1]
    if drift:
        warnings.append("task drift: these tasks ran with different task digests: " + ", ".join(drift))
    if controls and params["failed_control"] == "keep" and controls["tasks_failing_controls"]:
        warnings.append(
            "kept despite failed controls: "
            + "; ".join(f"{task} ({', '.join(controls['per_task'][task]['failures'])})" for task in controls["tasks_failing_controls"])
        )
    for row in tasks:
        row["controls"] = controls_text(controls["per_task"][row["task"]]) if controls else None
    methods = interval_methods(tasks, params) if tasks else {}
    headline = headline_interval(tasks, methods, params, grid_for)
    return {
        "setting": setting,
        "description": describe(key),
        "key": key,
        "agent_names": sorted({t["agent_name"] for t in mine if t["agent_name"]}),
        "routes": sorted({t["route"] for t in mine if t["route"]}),
        "served_models": observed(counted, "served_models"),
        "jobs": sorted({trial["job"] for trial in mine}),
        "counts": {
            "tasks": len(tasks),
            "trials": n_trials,
            "passed": passed,
            **{outcome: outcomes.get(outcome, 0) for outcome in OUTCOME_ORDER if outcome != "passed"},
            "with_error": outcomes.get("errored", 0) + outcomes.get("verifier_errored", 0),
            "retried": sum(trial["attempts"] > 1 for trial in counted),
            "attempts": sum(trial["attempts"] for trial in mine),
            "interrupted_left_out": len(interrupted),
            "left_out_by_controls": len(finished) - len(counted),
        },
        "pass_rate": {
            "value": _ratio(sum(rates), len(rates)),
            "rule": "mean over tasks of each task's fraction of passing trials (pass = reward 1.0)",
        },
        "pass_rate_over_trials": _ratio(passed, n_trials),
        "intervals": {
            "over_tasks": intervals.bootstrap_tasks(rates, params["resamples"], params["seed"], confidence),
            "over_trials": intervals.wilson(passed, n_trials, confidence)
            | {"label": f"if the {n_trials} trials were independent" if n_trials != 1 else "from a single trial"},
        },
        "confidence": confidence,
        "headline": headline,
        "methods": methods,
        "solve_rates": solve_rates(tasks),
        "mean_reward": _ratio(sum(rewards), len(rewards)),
        "scored_trials": len(rewards),
        "per_task": tasks,
        "usage": usage(finished),
        "sampling": sampling_seen(counted),
        "trials_recording_requests": sum(trial["trajectory"] for trial in counted),
        "controls": controls,
        "excluded_by_controls": [
            {"task": task, "reason": "; ".join(reasons), "trials": left_out_counts[task][0],
             "passed": left_out_counts[task][1]}
            for task, reasons in sorted(excluded_tasks.items())
        ],
        "warnings": warnings,
        "seeds": {
            "resampling_seed": params["seed"],
            "generator": "numpy PCG64 via numpy.random.default_rng",
            "resamples": params["resamples"],
            "trial_seeds": sorted({str(t["seed"]) for t in mine if t["seed"] is not None}),
        },
    }


def setting_trial_rows(setting: str, all_trials: list[dict], failed_control: str) -> tuple[dict, set[str]]:
    """(reports/<setting>/trials.json: every trial of the setting, one row each, and why it was left
    out if it was; the tasks the controls leave out). Apart from the numbers (setting_stats), so
    that the stages that read only the numbers neither load 25,000 rows (1,000 tasks x 25 tries)
    nor wait for them to be written."""
    _, finished, interrupted, _, excluded_tasks = _setting_trials(setting, all_trials, failed_control)
    rows = {
        "setting": setting,
        "trials": [
            _trial_ref(trial) | {"left_out": "; ".join(excluded_tasks[trial["task"]]) if trial["task"] in excluded_tasks else None}
            for trial in sorted(finished, key=lambda t: (t["task"], _try_order(t)))
        ],
        "interrupted": [_trial_ref(trial) for trial in sorted(interrupted, key=_try_order)],
    }
    return rows, set(excluded_tasks)


def _trial_ref(trial: dict) -> dict:
    """What the trials table shows, and where each number came from."""
    execution = "completed"
    if trial["outcome"] == "interrupted":
        execution = "interrupted"
    elif trial["error"]:
        execution = "timed out" if trial["error_category"] == "timeout" else f"error: {trial['error_category'] or 'other'}"
    return {
        "task": trial["task"],
        "try": trial["try_index"],
        "job": trial["job"],
        "folder": trial["folder"],
        "attempts": trial["attempts"],
        "attempt_outcomes": trial["attempt_outcomes"],
        "model_outcome": execution,
        "verifier": trial["verifier_error_category"] or ("error" if trial["verifier_error"] else None),
        "reward": trial["reward"],
        "outcome": trial["outcome"],
        "benchflow_bucket": trial["benchflow_bucket"],
        "tokens": trial["tokens_all_attempts"].get("total_tokens"),
        "cost_usd": trial["cost_usd_all_attempts"],
        "seconds": trial["timing"].get("total"),
        "served_models": trial["served_models"],
        "task_digest": trial["task_digest"],
    }
