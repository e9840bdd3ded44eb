"""A job's summary.json as BenchFlow's Evaluation.run writes it, with BenchFlow's audit rule for
each attempt's bucket.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .common import REVIEWER, TIMING_PHASES, TRUSTED_USAGE
from .plan import _norm_setting

# --------------------------------------------------------------------------------------------
# job summary (Evaluation.run)


def audit_outcome(result: dict) -> str:
    """BenchFlow 0.7.12 classify_audit_outcome, without integrated review."""
    if result.get("verifier_error"):
        return "verifier_errored"
    rewards = result.get("rewards")
    reward = rewards.get("reward") if isinstance(rewards, dict) else None
    if isinstance(reward, (int, float)) and not isinstance(reward, bool):
        return "passed" if reward == 1.0 else "failed"
    if result.get("error"):
        return "errored"
    return "unscored"


def _reward_of(result: dict) -> float | None:
    rewards = result.get("rewards")
    reward = rewards.get("reward") if isinstance(rewards, dict) else None
    if isinstance(reward, (int, float)) and not isinstance(reward, bool) and math.isfinite(reward):
        return float(reward)
    return None


def _round1(x: float) -> float:
    return round(float(x), 1)


def _audit_tally(results: list[dict], classify: Callable[[dict], str] = audit_outcome) -> tuple[dict, dict]:
    """summary.json's audit buckets and its scores + mean reward, each in summary key order.

    ``classify`` maps a result.json to its audit bucket (``audit_outcome`` or, for reviewed
    results, ``_audit_reviewed``).
    """
    total = len(results)
    buckets = {"passed": 0, "failed": 0, "errored": 0, "verifier_errored": 0, "unscored": 0}
    for r in results:
        buckets[classify(r)] += 1
    passed, failed = buckets["passed"], buckets["failed"]
    errored, verrored = buckets["errored"], buckets["verifier_errored"]
    rewards = [x for x in (_reward_of(r) for r in results) if x is not None]
    score_ratio = passed / total if total else 0.0
    excl = passed / (passed + failed) if (passed + failed) else 0.0
    counts = {
        "total": total,
        "passed": passed,
        "failed": failed,
        "errored": errored,
        "verifier_errored": verrored,
        "pass": passed,
        "fail": failed,
        "error": errored,
    }
    scores = {
        "score": f"{score_ratio:.1%}",
        "score_ratio": score_ratio,
        "score_excl_errors": f"{excl:.1%}",
        "score_excl_errors_ratio": excl,
        "mean_reward": math.fsum(rewards) / len(rewards) if rewards else None,
    }
    return counts, scores


def job_summary(results: list[dict], *, job_name: str, setting: dict, elapsed_sec: float) -> dict:
    """summary.json for one job, from the result.json of each task's final attempt."""
    s = _norm_setting(setting)
    total = len(results)
    counts, scores = _audit_tally(results)
    cats: dict[str, int] = {}
    vcats: dict[str, int] = {}
    for r in results:
        if r.get("error"):
            c = r.get("error_category") or "other"
            cats[c] = cats.get(c, 0) + 1
        if r.get("verifier_error"):
            c = r.get("verifier_error_category") or "verifier_other"
            vcats[c] = vcats.get(c, 0) + 1

    completed = [
        r for r in results if r.get("rewards") is not None and not r.get("error") and not r.get("verifier_error")
    ]
    covered = [r for r in completed if r["agent_result"].get("usage_source") in TRUSTED_USAGE]

    def tot(field: str) -> int:
        return sum(r["agent_result"].get(field) or 0 for r in covered)

    total_cost = round(sum(r["agent_result"].get("cost_usd") or 0.0 for r in covered), 10)
    tools = [int(r.get("n_tool_calls") or 0) for r in results]
    summaries = [r["trajectory_summary"] for r in results if r.get("trajectory_summary")]
    steps = [int(t.get("steps") or 0) for t in summaries]
    tc_steps = [int(t.get("tool_call_steps") or 0) for t in summaries]

    out: dict[str, Any] = {
        "job_name": job_name,
        "reviewer": dict(REVIEWER),
        "agent": s["agent"],
        "model": s["model"],
        "environment": s["environment"],
        "concurrency": s["concurrency"],
        "agent_idle_timeout_sec": s["agent_idle_timeout_sec"],
        "usage_tracking": {"requested": "auto"},
        "loop": {"strategy": "single-shot"},
        **counts,
        "idle_timeout": sum(1 for r in results if r.get("error_category") == "idle_timeout"),
        "error_categories": cats or None,
        "verifier_error_categories": vcats or None,
        **scores,
        "elapsed_sec": elapsed_sec,
        "memory_score": None,
        "memory_score_coverage": 0.0,
        "memory": {"scored": 0, "avg_score": None, "score": None},
        "memory_scores": {},
        "total_skill_invocations": 0,
        "avg_skill_invocations": 0.0,
        "total_input_tokens": tot("n_input_tokens"),
        "total_output_tokens": tot("n_output_tokens"),
        "total_cache_read_tokens": tot("n_cache_read_tokens"),
        "total_cache_creation_tokens": tot("n_cache_creation_tokens"),
        "total_tokens": tot("total_tokens"),
        "total_cost_usd": total_cost,
        "avg_cost_per_trial_usd": round(total_cost / len(covered), 10) if covered else None,
        "telemetry_coverage": len(covered) / len(completed) if completed else 0.0,
        "total_tool_calls": sum(tools),
        "avg_tool_calls_per_task": sum(tools) / len(tools) if tools else 0.0,
        "max_tool_calls_per_task": max(tools) if tools else 0,
        "total_trajectory_steps": sum(steps),
        "avg_trajectory_steps_per_task": sum(steps) / len(steps) if steps else 0.0,
        "max_trajectory_steps_per_task": max(steps) if steps else 0,
        "total_trajectory_tool_call_steps": sum(tc_steps),
        "avg_trajectory_tool_call_steps_per_task": sum(tc_steps) / len(tc_steps) if tc_steps else 0.0,
        "max_trajectory_tool_call_steps_per_task": max(tc_steps) if tc_steps else 0,
        "trajectory_summary_coverage": len(summaries) / total if total else 0.0,
    }
    timings = [r["timing"] for r in results if isinstance(r.get("timing"), dict) and r["timing"]]
    out["timing_coverage"] = len(timings) / total if total else 0.0
    for phase in TIMING_PHASES:
        values = [float(t[phase]) for t in timings if isinstance(t.get(phase), (int, float))]
        out[f"{phase}_time_sec"] = _round1(sum(values)) if values else 0.0
        out[f"avg_{phase}_time_sec"] = _round1(sum(values) / len(values)) if values else None
        out[f"max_{phase}_time_sec"] = _round1(max(values)) if values else None
    if s["dataset_name"] is not None:
        out["dataset_name"] = s["dataset_name"]
        out["dataset_version"] = s["dataset_version"]
    return out
