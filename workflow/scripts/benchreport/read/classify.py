"""BenchFlow's scoring rules, restated: reward, outcome, audit bucket, control kind."""

from __future__ import annotations

from .files import finite_number, json_type_name

AUDIT_BUCKETS = ("passed", "failed", "errored", "verifier_errored", "unscored")
DEFAULT_NOP_AGENTS = ("nop", "noop", "empty")
INTERRUPTED_REASON = "interrupted: config.json but no result.json (the attempt never finished)"
PENDING_REASON = "rubric review pending: solver.json but no result.json yet (no verdict to count)"
# The fields of a ledger row, in order.
LEDGER_FIELDS = ("job", "folder", "file", "reason", "effect")
# Ingest's ledger effect for an attempt folder it could not use, and the reason for a reviewer run.
LEFT_OUT = "attempt left out"
REVIEWER_RUN = "a reviewer run (purpose: reviewer), not a trial"


def interrupted_row(trial: dict, folder: str) -> dict:
    """The ledger row of a trial with no verdict, for one of its attempt folders (a job folder's
    ledger lists each attempt folder; a setting's report and summary, the trial's own folder)."""
    reason = PENDING_REASON if trial.get("review_pending") else INTERRUPTED_REASON
    return dict(
        zip(LEDGER_FIELDS, (trial["job"], folder, f"{folder}/result.json", reason, "trial left out of the pass rate"))
    )


class BadReward(ValueError):
    """A reward BenchFlow itself would refuse: not a finite number in [0, 1]."""


def check_reward(value) -> float | None:
    """The reward as a float, None when absent; BadReward for a value no verifier may give."""
    if value is None:
        return None
    number = finite_number(value)
    if number is None:
        shown = repr(value) if isinstance(value, (str, float)) else json_type_name(value)
        raise BadReward(f"reward is {shown}, not a finite number")
    if not 0.0 <= number <= 1.0:
        raise BadReward(f"reward is {number:g}, outside [0, 1]")
    return number


def extract_reward(result: dict) -> tuple[float | None, bool | None]:
    """(reward, gate verdict) as `_utils/scoring.py::extract_reward` reads them.

    With an integrated review (`scoring`), the envelope decides: its reward and `passed` when
    complete, nothing otherwise. Else `rewards.reward` (or a legacy top-level `reward`).
    """
    scoring = result.get("scoring")
    if isinstance(scoring, dict):
        if scoring.get("status") != "complete":
            return None, None
        rewards = result.get("rewards")
        value = rewards.get("reward") if isinstance(rewards, dict) else None
        passed = scoring.get("passed")
        # a verdict that is not a boolean ("false" is a true string) is none: the reward decides
        return check_reward(value), passed if isinstance(passed, bool) else None if "passed" in scoring else False
    rewards = result.get("rewards")
    if rewards is None:
        return check_reward(result.get("reward")), None
    if not isinstance(rewards, dict):
        raise BadReward(f"rewards is {json_type_name(rewards)}, not an object")
    return check_reward(rewards.get("reward")), None


def gate_problem(result: dict) -> str | None:
    """Why a complete review's recorded verdict cannot be used, if it cannot (see extract_reward)."""
    scoring = result.get("scoring")
    if not isinstance(scoring, dict) or scoring.get("status") != "complete" or "passed" not in scoring:
        return None
    passed = scoring["passed"]
    if isinstance(passed, bool):
        return None
    shown = repr(passed)[:40] if isinstance(passed, (str, int, float)) else json_type_name(passed)
    return f"scoring.passed is {shown}, not a boolean: no verdict recorded, the reward decides"


def timed_out(error_category) -> bool:
    """The agent ran out of its wall-clock budget: BenchFlow's `timeout` category (a trial's
    execution `timed_out`). The verifier still scores what it left, so such a trial is passed or
    failed by its reward like any other, and errored without one."""
    return error_category == "timeout"


def is_pass(reward: float | None, gate: bool | None) -> bool:
    """Pass means the review gate said so, else a reward of exactly 1.0 (partial credit fails)."""
    if gate is not None:
        return gate
    return reward == 1.0


def score_outcome(reward, gate, error, verifier_error, has_scoring: bool = False) -> str:
    """The score bucket (§3.2), the reward first; 'unscored' when nothing at all was recorded.

    A rubric review that did not complete (a `scoring` block without a reward) is errored when
    the agent errored, else verifier_errored, as BenchFlow counts it."""
    if reward is not None:
        return "passed" if is_pass(reward, gate) else "failed"
    if has_scoring:
        return "errored" if error else "verifier_errored"
    if error:
        return "errored"
    if verifier_error:
        return "verifier_errored"
    return "unscored"


def audit_outcome(reward, gate, error, verifier_error, has_scoring: bool) -> str:
    """The bucket BenchFlow's summary.json counts (§3.3): a verifier error first."""
    if verifier_error:
        return "verifier_errored"
    if has_scoring:
        if reward is not None:
            return "passed" if is_pass(reward, gate) else "failed"
        return "errored" if error else "verifier_errored"
    if reward is not None:
        return "passed" if reward == 1.0 else "failed"
    if error:
        return "errored"
    return "unscored"


def control_kind(agent, task_name, task_variant, nop_agents) -> str | None:
    """'oracle', 'nop' or None, by BenchFlow's 0.9 rule; the model field is never consulted
    (a matrix oracle records the string "none")."""
    agent = (agent or "").lower()
    task_name = task_name or ""
    variant = (task_variant or "").lower()
    if agent == "oracle" or variant.startswith("oracle") or task_name.endswith("__o"):
        return "oracle"
    nop = {name.lower() for name in (*DEFAULT_NOP_AGENTS, *nop_agents)}
    if agent in nop or variant.startswith("empty") or task_name.endswith("__e"):
        return "nop"
    return None
