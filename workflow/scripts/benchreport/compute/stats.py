"""Numbers for one setting: pass rate over tasks, intervals, per-task table, costs, warnings."""

from __future__ import annotations

import dataclasses
import statistics as pystats
from collections import Counter, defaultdict
from typing import Any

import numpy as np

from ..present.present import pass_rule
from ..read.settings import EFFORT_KEYS, SAMPLING_PARAMETERS, describe, env_choices
from ..read.trial import TOKEN_FIELDS, recorded_tokens
from ..record.record import (
    CostMeasure,
    Counts,
    Interval,
    MeanReward,
    PassRate,
    RateEstimates,
    Seeds,
    SettingNumbers,
    TaskRow,
    TokenTotals,
    Tries,
    Usage,
)
from . import coverage_design, intervals, passk, shapes
from .verdicts import POLICY, SCORED, version_verdict, worst

# BenchFlow's own rule when no threshold is given: a trial passes at a reward of exactly 1.0
# (rewards lie in [0, 1], so reward ≥ 1.0 is the same rule); config/schema.yaml's default.
BENCHFLOW_SOLVE_THRESHOLD = 1.0
# The Trial fields the numbers read (rule report loads trial_rows.TRIAL_FIELDS, these and more); trial.load_ingests loads no other (a test holds this to the
# field names the stage's code states)
TRIAL_FIELDS = (
    "job",
    "folder",
    "try_index",
    "try_rule",
    "try_folders",
    "attempts",
    "task",
    "task_digest",
    "dataset",
    "agent",
    "agent_name",
    "model",
    "reasoning_effort",
    "sandbox",
    "route",
    "seed",
    "sampling",
    "served_models",
    "harness_version",
    "benchflow_version",
    "control",
    "setting",
    "setting_key",
    "started_at",
    "timing",
    "seconds_all_attempts",
    "timed_out",
    "reward",
    "gate",
    "outcome",
    "tokens_all_attempts",
    "cost_usd_all_attempts",
    "usage_source",
    "price_source",
    "trajectory",
)
# Of a dict field, the keys the stage reads (the rest is not loaded: a test holds this to the
# code): of a trial's timing, its total seconds.
TRIAL_PARTS = {"timing": ("total",)}


def _ratio(numerator, denominator):
    return numerator / denominator if denominator else None


def try_order(trial: dict) -> tuple:
    return (trial["try_index"] is None, trial["try_index"] or 0, trial["job"], trial["folder"])


def trial_id(trial: dict) -> str:
    """A trial's id in every output: its job folder and trial folder ("<job>/<folder>")."""
    return f"{trial['job']}/{trial['folder']}"


def task_rows(trials: list[dict], confidence: float, controls: dict | None) -> list[TaskRow]:
    """One row per task: its trials in try order (with their ids, so that every number computed
    from the rows resolves to its trials), pass fraction and its Wilson interval, mean reward,
    and its controls verdict (`controls`: control_summary, None for a control setting)."""
    by_task = defaultdict(list)
    for trial in trials:
        by_task[trial["task"]].append(trial)
    rows = []
    for task in sorted(by_task):
        group = sorted(by_task[task], key=try_order)
        passed = sum(trial["outcome"] == "passed" for trial in group)
        costs = [trial["cost_usd_all_attempts"] for trial in group if trial["cost_usd_all_attempts"] is not None]
        rewards = [trial["reward"] for trial in group]
        wilson = intervals.wilson(passed, len(group), confidence)
        rows.append(
            TaskRow(
                task=task,
                trials=len(group),
                passed=passed,
                rate=passed / len(group),
                interval=Interval(
                    method="wilson",
                    low=wilson["low"],
                    high=wilson["high"],
                    level=confidence,
                    covers="this task's tries, as if independent",
                ),
                rewards=rewards,
                # a trial with no reward (errored, unscored) counts as 0, as it counts as not passed
                mean_reward=sum(value or 0.0 for value in rewards) / len(group),
                outcomes=[trial["outcome"] for trial in group],
                timed_out=sum(trial["timed_out"] for trial in group),
                task_digests=sorted({trial["task_digest"] for trial in group if trial["task_digest"]}),
                trial_ids=[trial_id(trial) for trial in group],
                mean_cost_usd=sum(costs) / len(costs) if costs else None,
                controls=controls["per_task"][task] if controls else None,
            )
        )
    return rows


def observed(trials: list[dict], field: str) -> dict:
    """How many trials recorded each value of an observed field (served model, sampling...)."""
    return dict(sorted(Counter(value for trial in trials for value in trial.get(field) or []).items()))


def sampling_seen(trials: list[dict]) -> dict:
    seen: defaultdict[str, Counter[str]] = defaultdict(Counter)
    for trial in trials:
        for key, values in trial["sampling"].items():
            seen[key].update(values)
    return {key: dict(sorted(counts.items())) for key, counts in sorted(seen.items())}


def token_totals(trials: list[dict]) -> TokenTotals:
    """TokenTotals over these trials, in one pass over them rather than a pass per count (for speed)."""
    totals = dict.fromkeys(TOKEN_FIELDS)
    recorded = 0
    for trial in trials:
        tokens = recorded_tokens(trial)
        if tokens is None:
            continue
        recorded += 1
        for key in TOKEN_FIELDS:
            if tokens.get(key) is not None:
                totals[key] = (totals[key] or 0) + tokens[key]
    return TokenTotals(
        input=totals["n_input_tokens"],
        output=totals["n_output_tokens"],
        cache_read=totals["n_cache_read_tokens"],
        cache_creation=totals["n_cache_creation_tokens"],
        total=totals["total_tokens"],
        trials_recorded=recorded,
        trials=len(trials),
    )


def _cost(trials: list[dict]) -> tuple[float | None, int]:
    """(the recorded cost over all attempts of these trials, rounded to 1e-6 USD, or None when
    none has one; how many have one)."""
    costs = [trial["cost_usd_all_attempts"] for trial in trials if trial["cost_usd_all_attempts"] is not None]
    return (round(sum(costs), 6) if costs else None), len(costs)


def _measure(
    key: str,
    label: str,
    numerator: str,
    denominator: str,
    value,
    n: int,
    trials: str,
    numerator_usd=None,
    interval=None,
) -> CostMeasure:
    return CostMeasure(
        key=key,
        label=label,
        numerator=numerator,
        denominator=denominator,
        denominator_count=n,
        numerator_usd=numerator_usd,
        value_usd=value,
        interval=interval,
        trials=trials,
    )


def cost_of_one_run(tasks: list[TaskRow], params: dict) -> dict | None:
    """The sum over counted tasks of each task's mean recorded cost per trial (what one try of
    every task costs), with a percentile bootstrap over tasks (whole tasks resampled, seeded like
    the pass-rate interval); over the tasks with a recorded cost (those without are named), None
    when no task has one."""
    costs = [row["mean_cost_usd"] for row in tasks if row["mean_cost_usd"] is not None]
    if not costs:
        return None
    data = np.asarray(costs, dtype=float)
    rng = np.random.default_rng(params["seed"])
    resamples = params["resamples"]
    totals = np.empty(resamples)
    block = max(1, 2_000_000 // data.size)
    for begin in range(0, resamples, block):
        stop = min(resamples, begin + block)
        totals[begin:stop] = data[rng.integers(0, data.size, size=(stop - begin, data.size))].sum(axis=1)
    tail = (1 - params["confidence"]) / 2
    low, high = np.quantile(totals, [tail, 1 - tail])
    return {
        "estimate": round(float(data.sum()), 6),
        "low": round(float(low), 6),
        "high": round(float(high), 6),
        "method": "percentile bootstrap over tasks",
        "level": params["confidence"],
        "resamples": resamples,
        "seed": params["seed"],
        "tasks_unpriced": [row["task"] for row in tasks if row["mean_cost_usd"] is None],
    }


def usage(mine: list[dict], counted: list[dict], tasks: list[TaskRow], params: dict) -> Usage:
    """Tokens and every cost measure of a setting, each defined once, with what is divided by what.

    `mine`: every trial of the setting (interrupted and left-out ones included: money spent);
    `counted`: the trials the pass rate counts; `tasks`: their per-task rows.
    """
    spent, priced_all = _cost(mine)
    counted_cost, priced_counted = _cost(counted)
    # a control calls no model and an interrupted trial wrote no usage: neither needs a cost
    missing = [
        t for t in mine if t["cost_usd_all_attempts"] is None and not t["control"] and t["outcome"] != "interrupted"
    ]
    times = [trial["timing"].get("total") for trial in counted if trial["timing"].get("total") is not None]
    return Usage(
        tokens_all_attempts=token_totals(mine),
        tokens_counted=token_totals(counted),
        attempts=sum(trial["attempts"] for trial in mine),
        trials=len(mine),
        trials_priced=priced_all,
        counted_trials=len(counted),
        counted_trials_priced=priced_counted,
        cost_complete=not missing,
        cost_is_lower_bound=spent is not None and bool(missing),
        cost_measures={
            measure["key"]: measure
            for measure in _cost_measures((spent, priced_all), (counted_cost, priced_counted), tasks, params)
        },
        price_sources=dict(sorted(Counter(str(t["price_source"]) for t in mine).items())),
        usage_sources=dict(sorted(Counter(str(t["usage_source"]) for t in mine).items())),
        token_note="input counts include cache reads and cache writes, as BenchFlow normalises them",
        trial_seconds_min=min(times) if times else None,
        trial_seconds_max=max(times) if times else None,
        trial_minutes_all_attempts=round(sum(t["seconds_all_attempts"] for t in mine) / 60, 2),
    )


def _cost_measures(all_attempts: tuple, counted: tuple, tasks: list[TaskRow], params: dict) -> list[CostMeasure]:
    """The cost measures of `usage`, each with its numerator, denominator and the trials it covers;
    `all_attempts` and `counted` are _cost of every trial and of the counted ones."""
    (spent, priced_all), (counted_cost, priced_counted) = all_attempts, counted
    solved = sum(row["passed"] > 0 for row in tasks)
    passed = sum(row["passed"] for row in tasks)
    one_run = cost_of_one_run(tasks, params)
    return [
        _measure(
            "spent",
            "cost of every attempt",
            "the recorded cost of every attempt of the setting (retries, "
            "interrupted trials and tasks the controls left out included)",
            "",
            spent,
            priced_all,
            "all",
        ),
        _measure(
            "counted",
            "cost of the counted trials",
            "the recorded cost of the counted trials, all their attempts",
            "",
            counted_cost,
            priced_counted,
            "counted",
        ),
        _measure(
            "per_solved_task",
            "cost per solved task",
            "the cost of the counted trials",
            "the counted tasks with at least one passing trial",
            round(counted_cost / solved, 6) if counted_cost is not None and solved else None,
            solved,
            "counted",
            numerator_usd=counted_cost,
        ),
        _measure(
            "per_passed_trial",
            "cost per passed trial",
            "the cost of the counted trials",
            "the counted trials that passed",
            round(counted_cost / passed, 6) if counted_cost is not None and passed else None,
            passed,
            "counted",
            numerator_usd=counted_cost,
        ),
        _measure(
            "one_run",
            "cost of one run over the task set",
            "the sum over the counted tasks of each task's mean recorded cost per trial",
            "",
            one_run["estimate"] if one_run else None,
            len(tasks) - len(one_run["tasks_unpriced"]) if one_run else 0,
            "counted",
            interval=one_run,
        ),
    ]


def _cell(trials: list[dict]) -> dict:
    """How one control kind did on one version of a task."""
    return {
        "trials": len(trials),
        "passed": sum(trial["outcome"] == "passed" for trial in trials),
        "scored": sum(trial["outcome"] in SCORED for trial in trials),
        "errored": sum(trial["outcome"] in ("errored", "verifier_errored") for trial in trials),
        "trial_ids": [trial_id(trial) for trial in trials],
    }


def control_summary(agent_trials: list[dict], control_trials: list[dict]) -> dict:
    """Per task and in all: the controls on the same version of each task, and their verdict.

    A task version is its task digest: an agent trial is covered only by oracle and nop trials
    of the digest it ran on. Where the agent's trials record no digest, the task name stands for
    the version (said in `matched_by`). A task's verdict is the worst over the versions its agent
    trials ran on (fails, then not verified, then holds); agent trials on a version no control
    ran on are listed in `uncovered` (task, digest, trials).
    """
    summary: dict[str, Any] = {
        "oracle": {"trials": 0, "passed": 0},
        "nop": {"trials": 0, "passed": 0},
        "per_task": {},
        "uncovered": [],
    }
    wanted: defaultdict[str, list[dict]] = defaultdict(list)
    for trial in agent_trials:
        wanted[trial["task"]].append(trial)
    # task -> (kind, digest) -> trials
    by_version: defaultdict[str, defaultdict[tuple[str, str | None], list[dict]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for trial in sorted(control_trials, key=lambda t: (t["task"], try_order(t))):
        if trial["task"] not in wanted or trial["outcome"] == "interrupted":
            continue
        by_version[trial["task"]][trial["control"], trial["task_digest"]].append(trial)
        summary[trial["control"]]["trials"] += 1
        summary[trial["control"]]["passed"] += trial["outcome"] == "passed"
    for task in sorted(wanted):
        summary["per_task"][task], uncovered = _task_controls(task, wanted[task], by_version[task])
        summary["uncovered"] += uncovered
    for verdict, key in (
        ("fails", "tasks_failing_controls"),
        ("not verified", "tasks_unverified"),
        ("holds", "tasks_holding"),
    ):
        summary[key] = sorted(t for t, entry in summary["per_task"].items() if entry["verdict"] == verdict)
    for kind in ("oracle", "nop"):
        summary[f"tasks_without_{kind}"] = [t for t, entry in summary["per_task"].items() if not entry[kind]]
    summary["tasks_without_control"] = sorted(
        t for t, entry in summary["per_task"].items() if not entry["oracle"] and not entry["nop"]
    )
    return summary


def _task_controls(task: str, agents: list[dict], controls: dict) -> tuple[dict, list[dict]]:
    """(one task's controls entry, the versions of it its agent trials ran on that no control ran
    on). `controls`: (kind, digest) -> the control trials of the task."""
    versions = sorted({trial["task_digest"] for trial in agents}, key=lambda d: (d is None, d or ""))
    per_version, uncovered = [], []
    for digest in versions:
        on_version = [trial for trial in agents if trial["task_digest"] == digest]
        cells = {}
        for kind in ("oracle", "nop"):
            same = [t for (k, d), ts in controls.items() if k == kind and (digest is None or d == digest) for t in ts]
            cells[kind] = _cell(same) if same else None
        verdict, reasons = version_verdict(cells["oracle"], cells["nop"])
        per_version.append(
            {
                "digest": digest,
                "agent_trials": len(on_version),
                "oracle": cells["oracle"],
                "nop": cells["nop"],
                "verdict": verdict,
                "reasons": reasons,
            }
        )
        if not cells["oracle"] and not cells["nop"] and any(k for (k, d) in controls):
            uncovered.append(
                {
                    "task": task,
                    "digest": digest,
                    "trials": len(on_version),
                    "trial_ids": [trial_id(t) for t in on_version],
                }
            )
    verdict = worst({p["verdict"] for p in per_version})
    # a version no control ran on is said once, not as "no oracle ran; no nop ran" beside the
    # counts of the controls that ran on the task's other versions
    task_reasons = {
        reason
        for p in per_version
        if p["verdict"] == verdict and (p["oracle"] or p["nop"] or not uncovered)
        for reason in p["reasons"]
    }
    if uncovered and verdict != "fails":
        task_reasons.add("no control on the version some agent trials ran on")
    totals = {kind: _merge([p[kind] for p in per_version if p[kind]]) for kind in ("oracle", "nop")}
    entry = {
        "verdict": verdict,
        "reasons": sorted(task_reasons),
        "oracle": totals["oracle"],
        "nop": totals["nop"],
        "versions": per_version,
        "matched_by": "task name (no task digest recorded)" if versions == [None] else "task digest",
    }
    return entry, uncovered


def _merge(cells: list[dict]) -> dict | None:
    """One control kind's cells over the versions of a task (versions hold disjoint trials)."""
    if not cells:
        return None
    merged = {key: sum(cell[key] for cell in cells) for key in ("trials", "passed", "scored", "errored")}
    return merged | {"trial_ids": sorted({i for cell in cells for i in cell["trial_ids"]})}


def interval_methods(tasks: list[TaskRow], params: dict) -> dict:
    """Every interval method on this setting's (trials, passes) per task, computed as the coverage
    design computes them (the bootstrap ones from the exact bootstrap distribution), so that the
    headline is the interval whose coverage was measured."""
    return coverage_design.run_intervals(
        [row["trials"] for row in tasks], [row["passed"] for row in tasks], params["confidence"]
    )


def check_grid(grid: dict, shape, params: dict) -> dict:
    """The coverage design, once it is known to be the one this setting's headline needs: the
    workflow planned its shape from the ingests' counts (`shapes.planned_profile`), by the rules
    that made these task rows, so a difference is a bug, reported as such."""
    found = (
        [tuple(group) for group in grid["tries_profile"]],
        grid.get("design_version"),
        grid["seed"],
        grid["simulations"],
        grid["confidence"],
    )
    wanted = (
        list(shape),
        coverage_design.DESIGN_VERSION,
        params["seed"],
        params["coverage_simulations"],
        params["confidence"],
    )
    if found != wanted:
        raise ValueError(
            "the coverage design given is for (tries profile, design version, seed, simulations, confidence) = "
            f"{found}, but this setting's headline needs {wanted}: the shape planned from the ingests' counts "
            "(benchreport.compute.shapes.planned_profile) and the task rows disagree, which is a bug"
        )
    return grid


def headline_interval(tasks: list[TaskRow], methods: dict, params: dict, grid_for=None) -> dict:
    """The narrowest method whose worst-case coverage at this run's own tries profile reaches the
    confidence level (`coverage_design.choose_headline`); when none does, the best one, and a sentence
    saying so.

    grid_for(profile) returns the coverage design at that profile (in the workflow, the file rule
    coverage_design wrote at the shape it planned); it is checked to be the one this profile needs.
    Without it (library use) the design is computed here.
    """
    if not tasks:
        return {"method": None, "low": None, "high": None, "text": "no task was scored", "coverage": None}
    shape = shapes.tries_profile(row["trials"] for row in tasks)
    if grid_for is None:
        grid = coverage_design.coverage_design(
            shape, seed=params["seed"], simulations=params["coverage_simulations"], confidence=params["confidence"]
        )
    else:
        grid = check_grid(grid_for(shape), shape, params)
    return coverage_design.headline(methods, grid, params["confidence"]) | {"covers": "tasks and the tries within them"}


def solve_rates(tasks: list[TaskRow]) -> dict | None:
    """pass@k and pass^k as BenchFlow counts them (passk): n is a task's scored trials (passed or
    failed; errored, verifier-errored and unscored trials have no reward and are left out, never
    failures), and a task with no scored trial is left out. None when no task has one."""
    scored = [sum(outcome in SCORED for outcome in row["outcomes"]) for row in tasks]
    kept = [(n, row["passed"]) for n, row in zip(scored, tasks) if n]
    if not kept:
        return None
    result = passk.solve_rates([n for n, _ in kept], [c for _, c in kept])
    left_out = sum(row["trials"] for row in tasks) - sum(scored)
    return result | {
        "counting": "BenchFlow's: over scored trials only; trials with no reward (errored, verifier errored, "
        "unscored) are left out of n, not counted as failures, and tasks with none scored are left out",
        "tasks": len(kept),
        "trials": sum(scored),
        "unscored_left_out": left_out,
        "tasks_without_scored_trial": [row["task"] for n, row in zip(scored, tasks) if not n],
        "min_trials_per_task": min(n for n, _ in kept),
        "max_trials_per_task": max(n for n, _ in kept),
    }


def mean_reward(tasks: list[TaskRow], confidence: float) -> MeanReward:
    """The mean over tasks of each task's mean reward, with a Student t interval over those task
    means: partial credit is a continuous score, which the pass-rate methods (built for passes out
    of tries) do not fit, and a t interval needs no resampling (docs/methods.md)."""
    means = [row["mean_reward"] for row in tasks]
    return MeanReward(
        value=_ratio(sum(means), len(means)),
        rule="mean over tasks of each task's mean reward (a trial with no reward counts as 0)",
        trials="per_task",
        interval=intervals.t_task_means(means, confidence) | {"level": confidence},
    )


@dataclasses.dataclass(frozen=True)
class SettingTrials:
    """A setting's trials sorted by its controls, once: what its numbers (setting_stats) and its
    trial rows (trial_rows.setting_trial_rows) both start from."""

    setting: str
    mine: list[dict]  # every trial of the setting
    finished: list[dict]  # those not interrupted
    interrupted: list[dict]
    controls: dict | None  # control_summary over its tasks; None for a control setting
    excluded_tasks: dict[str, list[str]]  # task -> why its controls leave it out
    solve_threshold: float  # the reward at which a trial passes (at_threshold)


def at_threshold(trials: list[dict], solve_threshold: float) -> list[dict]:
    """The trials with a scored agent trial's outcome decided at this threshold, as BenchFlow's
    `solve_rates` decides it: a rubric review's verdict where it gave one, else reward ≥ threshold.
    A control keeps ingest's verdict (reward 1.0): the workflow plans each headline's coverage
    shape from ingest's counts of control passes (`shapes.planned_profile`), which a control
    judged here would contradict; so does a trial that recorded no reward. A trial whose outcome
    does not change is the same dict."""
    rescored = []
    for trial in trials:
        if (
            trial["outcome"] in SCORED
            and trial["gate"] is None
            and not trial["control"]
            and trial["reward"] is not None
        ):
            outcome = "passed" if trial["reward"] >= solve_threshold else "failed"
            if outcome != trial["outcome"]:
                trial = trial | {"outcome": outcome}
        rescored.append(trial)
    return rescored


def setting_trials(
    setting: str, all_trials: list[dict], policy: dict, solve_threshold: float = BENCHFLOW_SOLVE_THRESHOLD
) -> SettingTrials:
    """The setting's trials out of `all_trials` (its own and the controls on its tasks), each
    passed or failed at `solve_threshold`, sorted by its controls. `policy`: the config's
    controls.on_failure and controls.on_unverified."""
    all_trials = at_threshold(all_trials, solve_threshold)
    mine = [trial for trial in all_trials if trial["setting"] == setting]
    finished = [trial for trial in mine if trial["outcome"] != "interrupted"]
    interrupted = [trial for trial in mine if trial["outcome"] == "interrupted"]
    controls = None
    excluded_tasks: dict[str, list[str]] = {}
    if not mine[0]["setting_key"]["control"]:
        controls = control_summary(finished, [trial for trial in all_trials if trial["control"]])
        controls["policy"] = {"on_failure": policy["on_failure"], "on_unverified": policy["on_unverified"]}
        for verdict, key in POLICY.items():
            if policy[key] == "exclude":
                said = "controls fail" if verdict == "fails" else "controls not verified"
                excluded_tasks |= {
                    task: [f"{said}: " + "; ".join(entry["reasons"])]
                    for task, entry in controls["per_task"].items()
                    if entry["verdict"] == verdict
                }
    return SettingTrials(setting, mine, finished, interrupted, controls, excluded_tasks, solve_threshold)


def mixed_settings(setting: str, all_trials: list[dict]) -> list[dict]:
    """Each job folder this setting draws trials from whose trials span several settings: the
    settings, how many trials went to each, the setting keys that differ and, of the agent env,
    the variables the runs chose differently (env_choices: a variable BenchFlow sets to the
    model differs with the model, and is not named)."""
    mine = {trial["job"] for trial in all_trials if trial["setting"] == setting}
    keys: defaultdict[str, dict[str, dict]] = defaultdict(dict)
    counts: defaultdict[str, Counter[str]] = defaultdict(Counter)
    for trial in all_trials:
        if trial["job"] in mine:
            keys[trial["job"]][trial["setting"]] = trial["setting_key"]
            counts[trial["job"]][trial["setting"]] += 1
    found = []
    for job in sorted(mine):
        if len(keys[job]) > 1:
            differ = {
                name
                for key in keys[job].values()
                for name in key
                if name != "agent_env" and len({str(other.get(name)) for other in keys[job].values()}) > 1
            }
            chosen = [env_choices(key) for key in keys[job].values()]
            names = _env_differences(chosen)
            if names or len({str(choices) for choices in chosen}) > 1:
                differ.add("agent_env")
            found.append(
                {
                    "job": job,
                    "differ": sorted(differ),
                    "agent_env_names": names,
                    "settings": [{"setting": other, "trials": counts[job][other]} for other in sorted(keys[job])],
                }
            )
    return found


def _env_differences(chosen: list[dict | None]) -> list[str]:
    """The agent env variables that runs' env_choices give differently: set to another value, or
    set in one and left as BenchFlow sets it (or unset) in another; every variable any of them
    chose where one recorded no env."""
    names = sorted({name for choices in chosen if choices for name in [*choices["set"], *choices["unset"]]})

    def value(choices, name):
        if choices is None:
            return None
        return choices["set"].get(name, "unset" if name in choices["unset"] else "as BenchFlow sets it")

    return [name for name in names if len({str(value(choices, name)) for choices in chosen}) > 1]


def under_min_tries(tasks: list[TaskRow], min_tries: int) -> list[str]:
    """The tasks (in task order) with fewer finished trials than the config's minimum."""
    return [row["task"] for row in tasks if row["trials"] < min_tries]


def tries(tasks: list[TaskRow], min_tries: int) -> Tries:
    """How many tries the tasks had, against the config's minimum, and what one task weighs."""
    counts = [row["trials"] for row in tasks]
    return Tries(
        min_wanted=min_tries,
        per_task={"min": min(counts), "median": pystats.median(counts), "max": max(counts)} if counts else None,
        one_task_moves_points=100 / len(tasks) if tasks else None,
        tasks_under_min_tries=under_min_tries(tasks, min_tries),
    )


def _warnings(
    tasks: list[TaskRow], counted: list[dict], controls, params: dict, mixed: list[dict], solve_threshold: float
) -> list[dict]:
    """What a reader must know before trusting the number, each as {kind, ...data}; the sentences
    are written by the presentation layer (sentences.warning)."""
    warnings = []
    short = under_min_tries(tasks, params["min_trials_per_task"])
    if short:
        warnings.append(
            {"kind": "few tries", "tasks": short, "of": len(tasks), "minimum": params["min_trials_per_task"]}
        )
    for job in mixed:
        warnings.append({"kind": "mixed settings in a job folder"} | job)
    served = observed(counted, "served_models")
    if len(served) > 1:
        warnings.append({"kind": "mixed settings", "field": "served model", "values": served})
    for key_name, values in sampling_seen(counted).items():
        if len(values) > 1 and key_name in EFFORT_KEYS:
            warnings.append({"kind": "mixed settings", "field": key_name, "values": values})
    drift = [row["task"] for row in tasks if len(row["task_digests"]) > 1]
    if drift:
        warnings.append({"kind": "task drift", "tasks": drift})
    if controls:
        uncovered = controls["uncovered"]
        if uncovered:
            warnings.append({"kind": "version without control", "versions": uncovered})
        for verdict, key in POLICY.items():
            tasks_hit = [t for t, e in controls["per_task"].items() if e["verdict"] == verdict]
            if tasks_hit and controls["policy"][key] == "keep":
                warnings.append(
                    {
                        "kind": f"controls {verdict}, kept",
                        "tasks": [{"task": t, "reasons": controls["per_task"][t]["reasons"]} for t in tasks_hit],
                    }
                )
    partial = [
        {"task": row["task"], "rewards": rewards}
        for row in tasks
        if (rewards := sorted({r for r in row["rewards"] if r is not None and 0 < r < solve_threshold}))
    ]
    if partial:
        warnings.append({"kind": "partial rewards failed", "tasks": partial, "solve_threshold": solve_threshold})
    return warnings


def setting_stats(split: SettingTrials, all_trials: list[dict], params: dict, grid_for=None) -> SettingNumbers:
    """The numbers of one setting (stats.json; trial_rows.setting_parts adds what the run card counts
    over its trial rows, and rule report the environment): every number its outputs print,
    computed here once. `all_trials`: those `split` was sorted from. grid_for: see
    headline_interval."""
    setting, mine, finished = split.setting, split.mine, split.finished
    controls, excluded_tasks = split.controls, split.excluded_tasks
    key = mine[0]["setting_key"]
    counted = [trial for trial in finished if trial["task"] not in excluded_tasks]
    confidence = params["confidence"]
    tasks = task_rows(counted, confidence, controls)
    left_out_tasks = task_rows([trial for trial in finished if trial["task"] in excluded_tasks], confidence, controls)
    mixed = mixed_settings(setting, all_trials)
    sampling = sampling_seen(counted)
    return SettingNumbers(
        schema="benchreport.compute.stats/1",
        setting=setting,
        description=describe(key),
        key=key,
        # what the run chose of its agent's env, beyond what BenchFlow sets itself
        agent_env_chosen=env_choices(key),
        agent_names=sorted({t["agent_name"] for t in mine if t["agent_name"]}),
        routes=sorted({t["route"] for t in mine if t["route"]}),
        served_models=observed(counted, "served_models"),
        jobs=sorted({trial["job"] for trial in mine}),
        counts=_counts(split, counted, tasks, left_out_tasks),
        **_pass_rate(tasks, len(counted), params, grid_for, split.solve_threshold),
        solve_rates=solve_rates(tasks),
        mean_reward=mean_reward(tasks, confidence),
        per_task=tasks,
        usage=usage(mine, counted, tasks, params),
        sampling=sampling,
        tries=tries(tasks, params["min_trials_per_task"]),
        effort_sent={name: values for name, values in sampling.items() if name in EFFORT_KEYS},
        sampling_sent={name: values for name, values in sampling.items() if name in SAMPLING_PARAMETERS},
        trials_recording_requests=sum(trial["trajectory"] for trial in counted),
        # which rule numbered the tries (settings.number_tries): folder, seed or started_at
        try_numbering=dict(sorted(Counter(str(trial["try_rule"]) for trial in counted).items())),
        controls=controls,
        excluded_by_controls=[
            {"task": row["task"], "reason": "; ".join(excluded_tasks[row["task"]])}
            | {name: row[name] for name in ("trials", "passed", "rate", "task_digests", "trial_ids")}
            for row in left_out_tasks
        ],
        mixed_settings=mixed,
        warnings=_warnings(tasks, counted, controls, params, mixed, split.solve_threshold),
        seeds=Seeds(
            resampling_seed=params["seed"],
            generator="numpy PCG64 via numpy.random.default_rng",
            resamples=params["resamples"],
            trial_seeds=sorted({str(t["seed"]) for t in mine if t["seed"] is not None}),
        ),
    )


def _pass_rate(tasks: list[TaskRow], n_trials: int, params: dict, grid_for, solve_threshold: float) -> RateEstimates:
    """The pass rate over tasks and over trials, each interval method on it and the headline."""
    confidence = params["confidence"]
    rates = [row["rate"] for row in tasks]
    passed = sum(row["passed"] for row in tasks)
    methods = interval_methods(tasks, params) if tasks else {}
    headline = headline_interval(tasks, methods, params, grid_for)
    over_trials = intervals.wilson(passed, n_trials, confidence)
    return RateEstimates(
        pass_rate=PassRate(
            value=_ratio(sum(rates), len(rates)),
            rule=f"mean over tasks of each task's fraction of passing trials ({pass_rule(solve_threshold)})",
            trials="per_task",
            solve_threshold=solve_threshold,
        ),
        pass_rate_over_trials=_ratio(passed, n_trials),
        intervals={
            "over_tasks": intervals.bootstrap_tasks(rates, params["resamples"], params["seed"], confidence)
            | {"level": confidence},
            "over_trials": over_trials | {"level": confidence, "trials_counted": n_trials},
        },
        confidence=confidence,
        headline=headline
        | {
            "level": confidence,
            "width": None
            if headline["low"] is None or headline["high"] is None
            else headline["high"] - headline["low"],
        },
        methods=methods,
    )


def _counts(split: SettingTrials, counted: list[dict], tasks: list[TaskRow], left_out_tasks: list[TaskRow]) -> Counts:
    """The setting's trials counted: by outcome over the counted ones, and those left out."""
    outcomes = Counter(trial["outcome"] for trial in counted)
    return Counts(
        tasks=len(tasks),
        trials=len(counted),
        passed=sum(row["passed"] for row in tasks),
        failed=outcomes.get("failed", 0),
        errored=outcomes.get("errored", 0),
        verifier_errored=outcomes.get("verifier_errored", 0),
        unscored=outcomes.get("unscored", 0),
        with_error=outcomes.get("errored", 0) + outcomes.get("verifier_errored", 0),
        timed_out=sum(trial["timed_out"] for trial in counted),
        retried=sum(trial["attempts"] > 1 for trial in counted),
        attempts=sum(trial["attempts"] for trial in split.mine),
        interrupted_left_out=len(split.interrupted),
        left_out_by_controls=len(split.finished) - len(counted),
        tasks_left_out_by_controls=len(left_out_tasks),
    )
