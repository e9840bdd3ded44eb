"""What report.html lists of one setting's trials (results/settings/<setting>/page.json).

Chosen at the report stage, which reads every trial of the setting, so that the page, which
covers every setting, reads only this: whole tasks up to PAGE_TRIALS trials, and the first
LISTED_ROWS trials whose BenchFlow bucket differs from benchreport's outcome.
"""

from __future__ import annotations

from ..present import sentences
from ..present.present import num, reward, seconds, usd

PAGE_TRIALS = 500
LISTED_ROWS = 200


def trial_row(trial: dict) -> dict:
    return {
        "try": trial.get("try") or "—",
        "agent_execution": trial.get("agent_execution") or "—",
        "verifier": trial.get("verifier") or ("ok" if trial.get("reward") is not None else "—"),
        "reward": reward(trial.get("reward")),
        "outcome": trial.get("outcome") or "—",
        "attempts": trial.get("attempts", 1),
        "tokens": num(trial["tokens"]) if trial.get("tokens") is not None else "—",
        "cost": usd(trial["cost_usd"]) if trial.get("cost_usd") is not None else "—",
        "seconds": seconds(trial.get("seconds")),
        "folder": f"{trial.get('job', '')}/{trial.get('folder', '')}",
        "passed": trial.get("outcome") == "passed",
    }


def page_trials(per_task: list[dict], trials: list[dict]) -> dict:
    """What the page shows of one setting's trials: tasks listed whole, in table order (the counted
    tasks, then those the controls left out), until one does not fit in PAGE_TRIALS, and the
    differences. Counts (trials, those left out, per left-out task) are in summary.json."""
    by_task: dict[str, list[dict]] = {}
    excluded: dict[str, list[dict]] = {}
    for trial in trials:
        (excluded if trial.get("left_out") else by_task).setdefault(trial["task"], []).append(trial)
    budget: int | None = PAGE_TRIALS  # trials still to list; None once a task did not fit
    listed_tasks = listed_trials = 0

    def take(task_trials: list[dict]) -> list[dict] | None:
        nonlocal budget, listed_tasks, listed_trials
        if budget is None or len(task_trials) > budget:
            budget = None
            return None
        budget -= len(task_trials)
        listed_tasks += 1
        listed_trials += len(task_trials)
        return [trial_row(t) for t in task_trials]

    def taken(groups) -> dict[str, list[dict]]:
        rows = {task: take(task_trials) for task, task_trials in groups}
        return {task: task_rows for task, task_rows in rows.items() if task_rows is not None}

    listed_rows = taken((row["task"], by_task.get(row["task"], [])) for row in per_task)
    excluded_rows = taken(sorted(excluded.items()))
    differences = []
    for trial in trials:
        if "benchflow_bucket" in trial:
            why = sentences.bucket_difference(trial)
            if why:
                differences.append(
                    {"task": trial["task"], "try": trial.get("try") or "—", "folder": trial.get("folder"), "why": why}
                )
    differences, differences_hidden = listed(differences)
    return {
        "listed": listed_rows,
        "excluded": excluded_rows,
        "listed_tasks": listed_tasks,
        "listed_trials": listed_trials,
        "differences": differences,
        "differences_hidden": differences_hidden,
    }


def listed(rows: list, limit: int = LISTED_ROWS) -> tuple[list, int]:
    """The first `limit` rows, and how many are left out."""
    return rows[:limit], max(0, len(rows) - limit)
