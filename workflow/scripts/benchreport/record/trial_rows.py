"""Everything of a setting that needs its trial rows, beside its numbers (stats.py).

Every trial of the setting, one row each (reports/<setting>/trials.json), and what its run card
counts over them (card_parts): the left-out accounting (every attempt folder found lands in exactly one category), the trials
without a cost and why, the grader, the benchmark version, and the run summary in BenchFlow's
`benchflow.run-summary` form. Pure functions: plain data in, plain data out.
"""

from __future__ import annotations

from collections import Counter

from ..compute import stats
from ..read import grader, provenance
from ..read.classify import LEDGER_FIELDS, LEFT_OUT, REVIEWER_RUN
from ..read.trial import recorded_tokens
from .record import CardParts, SettingNumbers, TrialRows

GATE_KINDS = ("failed", "errored", "verifier_errored", "timed_out")
# The Trial fields rule report reads: stats', and those of a verdict's details, the grading and the kept attempt's usage; trial.load_ingests loads no other
# (a test holds this to the field names the stage's code states)
TRIAL_FIELDS = (
    *stats.TRIAL_FIELDS,
    "attempt_outcomes",
    "complete",
    "review_pending",
    "has_scoring",
    "gate",
    "benchflow_bucket",
    "error",
    "error_category",
    "verifier_error",
    "verifier_error_category",
    "grading",
    "provenance",
    "tokens",
    "cost_usd",
)
TRIAL_PARTS = stats.TRIAL_PARTS  # of the timing, the total seconds (a trials table column)


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


def _left_out(setting: str, mine: list[dict], own: list[dict], excluded: set) -> dict:
    found = sum(ingest["attempt_folders_found"] for ingest in own) - sum(
        trial.get("attempts", 1) for ingest in own for trial in ingest["trials"] if trial["setting"] != setting
    )
    files, by_folder = _ledger_counts(own)
    categories = _categories(_trial_counts(mine, excluded) | by_folder)
    accounted = sum(category["folders"] for category in categories)
    budgets = {ingest["job"]["id"]: budget_stop(ingest["job"].get("budget")) for ingest in own}
    stops = [
        {"job": job} | stop
        for job, stop in sorted(budgets.items())
        if stop and (stop["stopped"] or stop["cancelled"] or stop["not_started"])
    ]
    return {
        "folders_found": found,
        "folders_accounted": accounted,
        "adds_up": accounted == found,
        "unaccounted": found - accounted,
        "categories": categories,
        "files_not_read": [
            {key: row.get(key) for key in LEDGER_FIELDS}
            for row in sorted(files, key=lambda row: (row.get("job", ""), row.get("file", "")))
        ],
        "budget_stops": stops,
        "budget_recorded": any(stop is not None for stop in budgets.values()),
        "images_not_inspected": [],  # the report stage, which reads the inspections, fills it in
    }


def _trial_counts(mine: list[dict], excluded: set) -> dict[str, Counter[str]]:
    """The attempt folders of the setting's trials, by category key, each counted by its detail
    (outcome, error category, task, reason)."""
    counts: dict[str, Counter[str]] = {key: Counter() for key in CATEGORIES}
    for trial in mine:
        outcome = trial["outcome"]
        if outcome == "interrupted":
            reason = "rubric review pending" if trial.get("review_pending") else "never finished"
            counts["interrupted"][reason] += trial.get("attempts", 1)
            continue
        for earlier in _superseded(trial):
            if earlier == "interrupted":
                counts["interrupted"]["resumed later"] += 1
            else:
                counts["retried"][earlier] += 1
        if trial["task"] in excluded:
            counts["failed_controls"][trial["task"]] += 1
        elif outcome in ("passed", "failed"):
            counts["scored"][outcome] += 1
        elif outcome == "errored":
            counts["errored"][trial.get("error_category") or "other"] += 1
        elif outcome == "verifier_errored":
            incomplete = "rubric review incomplete" if trial.get("has_scoring") else "verifier_other"
            counts["verifier_errored"][trial.get("verifier_error_category") or incomplete] += 1
        else:
            counts["unscored"]["unscored"] += 1
    return counts


def _ledger_counts(own: list[dict]) -> tuple[list[dict], dict[str, Counter[str]]]:
    """(the ledger rows of files not read that left nothing out, the attempt folders left out
    by the ledger: unreadable ones by reason, and reviewer runs)."""
    unreadable: Counter[str] = Counter()
    reviewer_runs: Counter[str] = Counter()
    files: list[dict] = []
    for ingest in own:
        for row in ingest.get("ledger", []):
            if not str(row.get("effect", "")).startswith(LEFT_OUT):
                files.append(row)
            elif row.get("reason") == REVIEWER_RUN:
                reviewer_runs["reviewer run"] += 1
            else:
                unreadable[row.get("reason") or "unreadable"] += 1
    return files, {"unreadable": unreadable, "reviewer_runs": reviewer_runs}


# key -> (label, effect) of each category of attempt folder, in the order the report lists them
CATEGORIES = {
    "scored": ("scored (passed or failed)", "counted in the pass rate"),
    "errored": ("errored, by category", "counted as not passed"),
    "verifier_errored": ("verifier errored, by category", "counted as not passed"),
    "unscored": ("unscored (no reward, no error)", "counted as not passed"),
    "failed_controls": ("trials of tasks that failed their controls", "left out of the headline"),
    "retried": (
        "earlier attempts BenchFlow retried, by their outcome",
        "left out (the kept attempt is the scored one, then the newest); their tokens and cost are counted",
    ),
    "interrupted": ("interrupted attempts (config.json, no result.json)", "left out"),
    "unreadable": ("attempt folders that could not be read", "left out"),
    "reviewer_runs": ("reviewer runs (purpose: reviewer), not trials", "left out"),
}


def _categories(counts: dict[str, Counter[str]]) -> list[dict]:
    return [
        {
            "key": key,
            "label": label,
            "effect": effect,
            "folders": sum(counts[key].values()),
            "by": dict(sorted(counts[key].items())),
        }
        for key, (label, effect) in CATEGORIES.items()
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


def unpriced_trials(trials: list[dict]) -> dict:
    """Every trial of the setting without a cost, named with the reason, and the reasons counted
    (the totals and cost measures are the stats stage's, stats.usage). Never a silent $0."""
    unpriced = [
        {
            "task": trial["task"],
            "job": trial.get("job"),
            "folder": trial.get("folder"),
            "model": trial.get("model"),
            "usage_source": trial.get("usage_source"),
            "price_source": trial.get("price_source"),
            "cause": unpriced_cause(trial),
            "reason": UNPRICED[unpriced_cause(trial)],
        }
        for trial in sorted(trials, key=lambda t: (t["task"], t.get("job") or "", t.get("folder") or ""))
        if trial.get("cost_usd_all_attempts") is None
    ]
    causes = Counter(row["cause"] for row in unpriced)
    models: dict[str, set[str]] = {}
    for row in unpriced:
        models.setdefault(row["cause"], set()).add(row["model"] or "no model")
    return {
        "unpriced_trials": len(unpriced),
        "unpriced_needing_cost": sum(row["cause"] not in NO_COST_NEEDED for row in unpriced),
        "unpriced_reasons": [
            {"cause": cause, "reason": UNPRICED[cause], "trials": number, "models": sorted(models[cause])}
            for cause, number in sorted(causes.items())
        ],
        "unpriced": unpriced,
    }


# ------------------------------------------------------------------------------------------
# BenchFlow's run-summary form (benchflow-run-summary.v1.schema.json)


def run_summary(
    trials: list[dict], *, job_dir: str | None, job_name: str, budget=None, gate: dict | None = None
) -> dict:
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
    # BenchFlow's score buckets: a trial with nothing recorded counts as errored (ingest already
    # puts an incomplete rubric review in errored or verifier_errored)
    buckets = Counter("errored" if trial["outcome"] == "unscored" else trial["outcome"] for trial in finished)
    total = len(finished)
    rewards = [trial["reward"] for trial in finished if trial.get("reward") is not None]
    counts = {kind: buckets.get(kind, 0) for kind in ("passed", "failed", "errored", "verifier_errored")}
    counts["timed_out"] = sum(trial["timed_out"] for trial in finished)
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
    blocks = {
        ingest["job"]["id"]: ingest["job"].get("budget")
        for ingest in own
        if isinstance(ingest["job"].get("budget"), dict)
    }
    if len(blocks) == 1 and len(own) == 1:
        return next(iter(blocks.values()))
    return {"per_job": dict(sorted(blocks.items()))} if blocks else None


# ------------------------------------------------------------------------------------------
# the trial_rows stage: everything that needs the ingest rows


# What the run card keeps of each trial: where it is, what it scored and who graded it. Every other
# field of a trial is in the setting's trials.json, which the card names.
CARD_TRIAL_FIELDS = ("task", "try", "job", "folder", "outcome", "reward", "attempts", "tokens", "cost_usd", "seconds")


def card_trials(rows: TrialRows, grading: dict) -> list[dict]:
    """The run card's trial rows: every trial, interrupted ones too, beside the grader's verdict."""
    verdicts = {(row["job"], row["folder"]): row for row in grading["per_trial"]}
    card = []
    for trial in rows["trials"] + rows["interrupted"]:
        graded = verdicts.get((trial["job"], trial["folder"]))
        card.append(
            {field: trial.get(field) for field in CARD_TRIAL_FIELDS}
            | {
                "left_out": trial.get("left_out") or ("interrupted" if trial["outcome"] == "interrupted" else None),
                "graded_by": "model" if graded else "script",
                "verifier_reward": graded["verifier_reward"] if graded else trial.get("reward"),
                "model_verdict": graded["model_verdict"] if graded else None,
            }
        )
    return sorted(card, key=lambda row: (row["task"], row["try"] is None, row["try"] or 0, row["job"], row["folder"]))


def card_parts(
    setting: str,
    ingests: list[dict],
    excluded: set[str],
    rows: TrialRows,
    *,
    benchmark_config: str | None = None,
    gate: dict | None = None,
) -> CardParts:
    """The parts of the run card computed from ingest rows. `excluded`: the tasks the controls
    leave out of the setting's numbers (stats.SettingTrials.excluded_tasks); `rows`: its
    trials.json rows (setting_trial_rows), which the card lists with the grader's verdicts."""
    own = [ingest for ingest in ingests if any(trial["setting"] == setting for trial in ingest["trials"])]
    mine = [trial for ingest in own for trial in ingest["trials"] if trial["setting"] == setting]
    finished = [trial for trial in mine if trial["outcome"] != "interrupted"]
    graded_or_finished = [trial for trial in mine if trial["outcome"] != "interrupted" or trial.get("grading")]
    job_dir = own[0]["job"]["id"] if len(own) == 1 else None
    grading = grader.describe_grader(graded_or_finished, [ingest["job"].get("reviewer") for ingest in own])
    return CardParts(
        job_folders=[ingest["job"] | {"crosscheck": ingest["crosscheck"]} for ingest in own],
        ledger=[row for ingest in own for row in ingest["ledger"]],
        grader=grading,
        benchmark=provenance.benchmark_version(
            mine, [ingest["job"].get("provenance") for ingest in own], benchmark_config
        ),
        left_out_accounting=_left_out(setting, mine, own, excluded),
        tokens_and_cost=unpriced_trials(mine),
        run_summary=run_summary(finished, job_dir=job_dir, job_name=setting, budget=_merged_budget(own), gate=gate),
        trials=card_trials(rows, grading),
    )


def setting_trial_rows(split: stats.SettingTrials) -> TrialRows:
    """reports/<setting>/trials.json: every trial of the setting, one row each, and why it was
    left out if it was."""
    finished, interrupted, excluded_tasks = split.finished, split.interrupted, split.excluded_tasks

    def row(trial: dict) -> dict:
        left_out = "; ".join(excluded_tasks[trial["task"]]) if trial["task"] in excluded_tasks else None
        return _trial_ref(trial) | {"left_out": left_out}

    return TrialRows(
        setting=split.setting,
        trials=[row(trial) for trial in sorted(finished, key=lambda t: (t["task"], stats.try_order(t)))],
        interrupted=[_trial_ref(trial) for trial in sorted(interrupted, key=stats.try_order)],
    )


def _trial_ref(trial: dict) -> dict:
    """What the trials table shows, and where each number came from."""
    execution = "completed"
    if trial["outcome"] == "interrupted":
        execution = "interrupted"
    elif trial["error"]:
        execution = (
            "timed out" if trial["error_category"] == "timeout" else f"error: {trial['error_category'] or 'other'}"
        )
    return {
        "id": stats.trial_id(trial),
        "task": trial["task"],
        "try": trial["try_index"],
        "try_rule": trial["try_rule"],
        "job": trial["job"],
        "folder": trial["folder"],
        "attempts": trial["attempts"],
        "attempt_outcomes": trial["attempt_outcomes"],
        "agent_execution": execution,
        "verifier": trial["verifier_error_category"] or ("error" if trial["verifier_error"] else None),
        "reward": trial["reward"],
        "outcome": trial["outcome"],
        "benchflow_bucket": trial["benchflow_bucket"],
        "tokens": (recorded_tokens(trial) or {}).get("total_tokens"),
        "cost_usd": trial["cost_usd_all_attempts"],
        "seconds": trial["timing"].get("total"),
        "served_models": trial["served_models"],
        "task_digest": trial["task_digest"],
    }


def setting_parts(
    setting: str,
    ingests: list[dict],
    params: dict,
    grid_for=None,
    *,
    benchmark_config: str | None = None,
    gate: dict | None = None,
) -> tuple[SettingNumbers, TrialRows, CardParts]:
    """(stats.json: the numbers, trials.json: the trial rows, the run card's parts counted over the
    rows) of one setting, from the ingests of the job folders it draws on (their tries numbered:
    settings.number_ingest_tries), its trials sorted by its controls once. `params`: the config's
    statistics block with "controls", its controls policy."""
    trials = [trial for ingest in ingests for trial in ingest["trials"]]
    split = stats.setting_trials(setting, trials, params["controls"], params["solve_threshold"])
    numbers = stats.setting_stats(split, trials, params, grid_for)
    rows = setting_trial_rows(split)
    parts = card_parts(setting, ingests, set(split.excluded_tasks), rows, benchmark_config=benchmark_config, gate=gate)
    return numbers, rows, parts
