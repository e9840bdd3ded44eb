"""`python -m benchreport plan`: the shape the next run needs, from a pilot's per-task counts.

A run's pass rate is the mean over k tasks of each task's rate over r tries, so its variance splits
into the spread of the tasks' true rates (between tasks, σ_b²) and the spread of tries around them
(within a task, σ_w² per try): Var = (σ_b² + σ_w²/r)/k. More tries shrink only the second part,
more tasks both. From a pilot's counts the plan estimates both parts, models the tasks' true rates
as a beta distribution with the pilot's mean and between-task variance, and for each number of
tries finds by seeded simulation the fewest tasks whose runs reach a target half-width of the t
interval over tasks in at least the promised share of runs, and the fewest shared tasks at which
the paired comparison detects a given mean difference with the wanted power (the model of
`paired.minimum_detectable_difference`: the beta's quantiles moved apart on the logit scale).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from scipy import special, stats

from . import paired

DEFAULTS = {"seed": 20261130, "confidence": 0.95, "simulations": 2000, "assurance": 0.8, "power": 0.8}
TRIES = (1, 2, 3, 5, 10)
# The most tasks a plan names; a target that needs more is called out of reach.
MOST_TASKS = 5000
HALF_WIDTH_METHOD = (
    "t interval over tasks, half-width t·s/√k, runs simulated from the pilot's beta of task rates; a "
    "shape counts when its simulated share is at least the promised one plus 2 standard errors"
)
DIFFERENCE_METHOD = "power of the within-task permutation test, the beta's quantiles moved apart on the logit scale"


def variance_split(passed, tries) -> dict:
    """Mean pass rate, between-task variance of the true rates and within-task variance per try:
    σ_w² as the mean unbiased p(1 − p) of the tasks with 2 tries or more, σ_b² as the variance of
    the task rates less the part the tries explain (at least 0)."""
    passed, tries = np.asarray(passed, dtype=float), np.asarray(tries, dtype=float)
    rates = passed / tries
    several = tries >= 2
    if len(rates) < 2 or not several.any():
        raise ValueError("a plan needs at least 2 tasks and a task with 2 tries or more")
    within = float(np.mean(rates[several] * (1 - rates[several]) * tries[several] / (tries[several] - 1)))
    between = max(0.0, float(np.var(rates, ddof=1) - np.mean(within / tries)))
    return {"mean": float(rates.mean()), "between": between, "within": within}


def beta_parameters(split: dict) -> tuple[float, float] | None:
    """The beta with the pilot's mean and between-task variance; None when the tasks show no spread
    (every task at the mean)."""
    mean, between = min(max(split["mean"], 1e-6), 1 - 1e-6), split["between"]
    if between <= 0:
        return None
    concentration = max(mean * (1 - mean) / min(between, 0.999 * mean * (1 - mean)) - 1, 1e-6)
    return mean * concentration, (1 - mean) * concentration


def half_width_share(split: dict, shape: tuple[int, int], target: float, params: dict) -> float:
    """The share of simulated runs of `shape` (tasks, tries) whose t interval over tasks has a
    half-width of at most `target`."""
    tasks, tries = shape
    rng = np.random.default_rng((params["seed"], tasks, tries))
    size = (params["simulations"], tasks)
    beta = beta_parameters(split)
    true = np.full(size, split["mean"]) if beta is None else rng.beta(*beta, size)
    rates = rng.binomial(tries, true) / tries
    half = stats.t.ppf(0.5 + params["confidence"] / 2, tasks - 1) * rates.std(axis=1, ddof=1) / np.sqrt(tasks)
    return float(np.mean(half <= target))


def detection_power(split: dict, shape: tuple[int, int], difference: float, params: dict) -> float:
    """The paired test's power at `shape` (shared tasks, tries each) when the two settings' rates
    are the beta's quantiles moved apart on the logit scale by a mean of `difference`."""
    tasks, tries = shape
    beta = beta_parameters(split)
    quantiles = (np.arange(tasks) + 0.5) / tasks
    base = np.full(tasks, split["mean"]) if beta is None else stats.beta.ppf(quantiles, *beta)
    logit = special.logit(np.clip(base, 1e-6, 1 - 1e-6))
    low, high = 0.0, paired.LARGEST_LOGIT_SHIFT
    for _ in range(60):
        middle = (low + high) / 2
        apart = np.mean(special.expit(logit + middle / 2) - special.expit(logit - middle / 2))
        low, high = (middle, high) if apart < difference else (low, middle)
    counts = np.full(tasks, tries)
    rate_a, rate_b = special.expit(logit - high / 2), special.expit(logit + high / 2)
    return paired.power_at_shape(rate_a, counts, rate_b, counts, 1 - params["confidence"], params["seed"])


def fewest_tasks(reaches) -> int | None:
    """The fewest tasks (2 to MOST_TASKS) at which `reaches(tasks)` holds, by doubling then
    bisection (the share and the power grow with the tasks); None past MOST_TASKS."""
    low, high = 1, 2
    while not reaches(high):
        if high >= MOST_TASKS:
            return None
        low, high = high, min(2 * high, MOST_TASKS)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if reaches(middle) else (middle, high)
    return high


def shapes(measure, needed: float, name: str) -> list[dict]:
    """For each number of tries in TRIES, the fewest tasks whose `measure((tasks, tries))` reaches
    `needed`, and that measure there as `name` (None past MOST_TASKS)."""
    found = []
    for count in TRIES:
        tasks = fewest_tasks(lambda k, count=count: measure((k, count)) >= needed)
        found.append({"tries": count, "tasks": tasks, name: None if tasks is None else measure((tasks, count))})
    return found


def plan(passed, tries, params: dict, half_width: float | None, difference: float | None) -> dict:
    """The variance split of a pilot and, for each number of tries in TRIES, the fewest tasks that
    reach `half_width` in `assurance` of the runs and detect `difference` with `power`."""
    split = variance_split(passed, tries)
    result = {
        "tasks": len(passed),
        "trials": int(np.sum(tries)),
        "pass_rate": split["mean"],
        "between_task_variance": split["between"],
        "within_task_variance": split["within"],
        "level": params["confidence"],
    }
    if half_width is not None:
        # the simulated share must clear the promise by its own noise, so that runs of the shape
        # reach the target in at least the promised share
        assurance = params["assurance"]
        needed = assurance + 2 * np.sqrt(assurance * (1 - assurance) / params["simulations"])
        result["half_width"] = {
            "target": half_width,
            "assurance": assurance,
            "method": HALF_WIDTH_METHOD,
            "simulations": params["simulations"],
            "shapes": shapes(lambda shape: half_width_share(split, shape, half_width, params), needed, "share"),
        }
    if difference is not None:
        result["difference"] = {
            "target": difference,
            "power": params["power"],
            "method": DIFFERENCE_METHOD,
            "shapes": shapes(lambda shape: detection_power(split, shape, difference, params), params["power"], "power"),
        }
    return result


def pilots(source: str, lines, params: dict, half_width, difference):
    """One plan per pilot: each JSON line of `lines` ({"tasks": [[passed, tries], …]} or
    {"rewards": …}, as `interval` reads), or each setting of a results folder `source` when
    `lines` is None; {"error": …} for a pilot a plan cannot use."""
    from ..pipeline.outputs import load_json
    from .interval import json_records, parse_run

    # (what labels the pilot's output, its (tries, passed) or None when the pilot is an error)
    found: list[tuple[dict, tuple[list, list] | None]]
    if lines is None:
        found = []
        for path in sorted(Path(source, "reports").glob("*/summary.json")):
            try:
                record = load_json(path)
                rows = record["per_task"]
                counts = ([row["trials"] for row in rows], [row["passed"] for row in rows])
                found.append(({"setting": record["setting"]}, counts))
            except (ValueError, KeyError, TypeError):
                raise ValueError(f"{path}: not a readable result record") from None
        if not found:
            raise ValueError(f"{source}: no reports/<setting>/summary.json to plan from")
    else:
        found = [
            (record, None) if parsed is None else ({} if record.get("id") is None else {"id": record["id"]}, parsed)
            for record, parsed in json_records(lines, parse_run)
        ]
    results = []
    for label, parsed in found:
        if parsed is None:
            results.append(label)
            continue
        tries, passed = parsed
        try:
            results.append(label | plan(passed, tries, params, half_width, difference))
        except ValueError as error:
            results.append(label | {"error": str(error)})
    return results
