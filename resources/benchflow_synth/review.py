"""Small jobs with a rubric reviewer, a dataset version, a budget stop and an unpriced model
(build_review_jobs), for tests.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from .common import REVIEWER, _dumps, _write
from .jobs import write_job
from .summary import _audit_tally, audit_outcome

# --------------------------------------------------------------------------------------------
# review jobs: a rubric reviewer, a dataset version, a budget stop, unpriced models (for tests)
#
# ``build_review_jobs(out_dir)`` writes two small plain jobs by calling ``write_job`` and then
# adding what newer or rubric-reviewed BenchFlow runs record. Guesses, since no real sample
# shows them: the rubric file is named by the task's ``source.file_hashes`` (``rubric.toml``);
# ``reviews/<id>/`` holds the reviewer's own run (``result.json`` with ``purpose: "reviewer"``)
# and ``review.json`` (item scores); ``solver.json`` is the solver's result.json before the
# review; a trial whose review is still pending has ``solver.json`` and no ``result.json``; an
# incomplete review leaves ``rewards`` as ``{"verifier_reward": v}``; the ``budget`` block's
# ``cancelled`` and ``not_started`` are task-name lists, ``caps``/``spent`` objects.
#
# rubric-review/2026-12-01__10-00-00: claude-agent-acp on anthropic/claude-sonnet-4-5, effort
#   high, dataset skillsbench@1.1 (git source at REVIEW_COMMIT), priced by litellm except
#   flaky-retry (cost null). Reviewer (summary.json): claude-agent-acp, anthropic/claude-opus-4-1,
#   effort high. Policy tests-blockers-quality-v1, quality weights (2, 1):
#     api-pagination      verifier 1.0, blockers pass, scores (2, 1) -> passed, reward 5/6
#     config-migration    verifier 1.0, blocker no-secrets-in-logs fails -> failed, reward 0
#     flaky-retry         verifier 0.0, scores (1, 0) -> failed (tests), reward 0
#     schema-diff         verifier 1.0, review error (reviewer timed out) -> no reward
#     cache-invalidation  verifier 1.0, review pending (solver.json only)
#     log-parser          no rubric: the verifier script alone, passed
# budget-stop/2026-12-02__09-00-00: opencode on openai/gpt-5-mini, no price known (price_source
#   null), no dataset, git source at BUDGET_COMMIT. parse-headers passed; dedupe-rows
#   idle_timeout then passed (a retry); merge-configs failed; rate-limiter timed out;
#   tail-follow cancelled by the budget (config.json only); retry-backoff and url-normalize
#   never started. summary.json has a ``budget`` block: a token cap below what was spent.

REVIEW_REPO = "https://github.com/benchflow-ai/skillsbench"
REVIEW_COMMIT = hashlib.sha1(b"benchflow-synth skillsbench v1.1").hexdigest()
BUDGET_REPO = "https://github.com/example/agent-tasks"
BUDGET_COMMIT = hashlib.sha1(b"benchflow-synth agent-tasks main").hexdigest()
REVIEW_POLICY = "tests-blockers-quality-v1"
# the rubric of every reviewed task, in rubric.toml order: (item id, quality weight), where a
# weight of None marks a blocker
REVIEW_RUBRIC = (("no-secrets-in-logs", None), ("tests-untouched", None), ("readable", 2), ("tests-added", 1))
REVIEW_WEIGHTS = tuple(weight for _, weight in REVIEW_RUBRIC if weight is not None)
REVIEW_REVIEWER = dict(REVIEWER, agent="claude-agent-acp", model="anthropic/claude-opus-4-1", reasoning_effort="high")
REVIEW_SETTING = {
    "agent": "claude-agent-acp",
    "agent_name": "claude-agent-acp",
    "model": "anthropic/claude-sonnet-4-5",
    "reasoning_effort": "high",
    "served_model": "claude-sonnet-4-5-20250929",
    "usage_source": "provider_response",
    "price_source": "litellm",
    "dataset_name": "skillsbench",
    "dataset_version": "1.1",
}
BUDGET_SETTING = {
    "agent": "opencode",
    "agent_name": "opencode",
    "model": "openai/gpt-5-mini",
    "reasoning_effort": "low",
    "served_model": "gpt-5-mini-2025-08-07",
    "usage_source": "provider_response",
    "price_source": None,
}
# task -> (verifier attempt, review): review is None (no rubric) or a dict with "status"
# ("complete", "error" or "pending") and, when complete, the "failed" blocker ids and the quality
# "scores" (in REVIEW_WEIGHTS order), when an error, the reviewer's "error" message
REVIEW_TASKS: dict[str, tuple[dict, dict | None]] = {
    "api-pagination": ({"kind": "passed"}, {"status": "complete", "failed": [], "scores": (2, 1)}),
    "config-migration": (
        {"kind": "passed"},
        {"status": "complete", "failed": ["no-secrets-in-logs"], "scores": (2, 2)},
    ),
    "flaky-retry": (
        {"kind": "failed", "reward": 0.0, "cost": None},
        {"status": "complete", "failed": [], "scores": (1, 0)},
    ),
    "schema-diff": ({"kind": "passed"}, {"status": "error", "error": "reviewer timed out after 1800s"}),
    "cache-invalidation": ({"kind": "passed"}, {"status": "pending"}),
    "log-parser": ({"kind": "passed"}, None),
}
BUDGET_TRIALS = [
    {"task": "parse-headers", "attempts": [{"kind": "passed"}]},
    {
        "task": "dedupe-rows",
        "attempts": [{"kind": "agent_error", "error_category": "idle_timeout"}, {"kind": "passed"}],
    },
    {"task": "merge-configs", "attempts": [{"kind": "failed", "reward": 0.0}]},
    {"task": "rate-limiter", "attempts": [{"kind": "agent_error", "error_category": "timeout"}]},
    {"task": "tail-follow", "attempts": [{"kind": "interrupted"}]},
]
BUDGET_NOT_STARTED = ["retry-backoff", "url-normalize"]


def rubric_text(task: str) -> str:
    """The rubric file a reviewed task carries (its sha256 goes into source.file_hashes)."""
    text = f'# rubric for {task}\npolicy = "{REVIEW_POLICY}"\n'
    for item, weight in REVIEW_RUBRIC:
        if weight is None:
            text += f'[[blocker]]\nid = "{item}"\n'
        else:
            text += f'[[quality]]\nid = "{item}"\nweight = {weight}\n'
    return text


def _file_sha(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def _git_source(repo: str, commit: str, ref: str) -> dict:
    """The git part of a ``source`` block (config.json, result.json, summary.json)."""
    return {"type": "git", "repo": repo, "requested_ref": ref, "resolved_sha": commit}


def _source_block(repo: str, commit: str, ref: str, task: str, rubric: bool) -> dict:
    hashes = {
        "instruction.md": _file_sha(f"instruction of {task}\n"),
        "tests/test.sh": _file_sha(f"#!/bin/sh\n# tests of {task}\n"),
    }
    if rubric:
        hashes["rubric.toml"] = _file_sha(rubric_text(task))
    return _git_source(repo, commit, ref) | {
        "path": f"tasks/{task}",
        "dirty": False,
        "file_hashes": dict(sorted(hashes.items())),
    }


def _keep_times(paths: list[Path]) -> dict[Path, tuple[float, float]]:
    return {p: (p.stat().st_atime, p.stat().st_mtime) for p in paths if p.exists()}


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _rewrite_json(path: Path, update: dict, *, copies: tuple[Path, ...] = (), end: str = "\n") -> dict:
    """Apply ``update`` to the JSON object in ``path`` and write it back (to ``copies`` too).

    Each file written keeps its atime and mtime. Returns the updated object.
    """
    times = _keep_times([path, *copies])
    data = _load(path)
    data.update(update)
    text = _dumps(data) + end
    for target in (path, *copies):
        _write(target, text)
        os.utime(target, times[target])
    return data


def _scoring_block(review: dict, verifier_reward: float, rollout: str) -> tuple[dict, dict]:
    """(result.json scoring, rewards) by the tests-blockers-quality-v1 rules."""
    tests_pass = verifier_reward == 1.0
    base = {"schema_version": 1, "policy": REVIEW_POLICY, "status": review["status"]}
    if review["status"] != "complete":
        scoring = base | {
            "passed": False,
            "tests_pass": tests_pass,
            "all_blockers_pass": None,
            "failed_blockers": [],
            "verifier_reward": verifier_reward,
            "rubric_reward": None,
            "reviewer_run": f"{rollout}--review-r1",
            "revision": "scoring/r1.json",
            "error": review["error"],
        }
        return scoring, {"verifier_reward": verifier_reward}
    rubric = sum(s * w for s, w in zip(review["scores"], REVIEW_WEIGHTS)) / (2 * sum(REVIEW_WEIGHTS))
    blockers_pass = not review["failed"]
    passed = tests_pass and blockers_pass
    scoring = base | {
        "passed": passed,
        "tests_pass": tests_pass,
        "all_blockers_pass": blockers_pass,
        "failed_blockers": list(review["failed"]),
        "verifier_reward": verifier_reward,
        "rubric_reward": rubric,
        "reviewer_run": f"{rollout}--review-r1",
        "revision": "scoring/r1.json",
        "error": None,
    }
    return scoring, {"reward": rubric if passed else 0.0, "verifier_reward": verifier_reward, "rubric_reward": rubric}


def _reviewer_result(rollout: str, reviewer: dict, result: dict) -> dict:
    return {
        "task_name": result["task_name"],
        "rollout_name": f"{rollout}--review-r1",
        "purpose": "reviewer",
        "parent_rollout": rollout,
        "rewards": None,
        "agent": reviewer["agent"],
        "agent_name": reviewer["agent"],
        "model": reviewer["model"],
        "scenes": [
            {
                "name": "review",
                "skills_dir": None,
                "roles": [
                    {
                        "name": "reviewer",
                        "agent": reviewer["agent"],
                        "model": reviewer["model"],
                        "reasoning_effort": reviewer["reasoning_effort"],
                        "timeout_sec": 1800,
                        "idle_timeout_sec": None,
                        "skills_dir": None,
                        "capabilities": None,
                        "env_keys": [],
                    }
                ],
                "turns": [{"role": "reviewer", "has_prompt": True}],
            }
        ],
        "started_at": result["finished_at"],
        "finished_at": result["finished_at"],
    }


def _audit_reviewed(result: dict) -> str:
    """classify_audit_outcome with an integrated review."""
    scoring = result.get("scoring")
    if result.get("verifier_error"):
        return "verifier_errored"
    if isinstance(scoring, dict):
        if scoring.get("status") == "complete":
            return "passed" if scoring.get("passed") else "failed"
        return "errored" if result.get("error") else "verifier_errored"
    return audit_outcome(result)


def _update_summary(jobs_dir: Path, jdir: Path, update: dict) -> None:
    """Apply ``update`` to the job's summary.json and its ``<jobs_dir>`` copy, keeping times."""
    _rewrite_json(jdir / "summary.json", update, copies=(Path(jobs_dir) / "summary.json",), end="")


def _recount_summary(jobs_dir: Path, jdir: Path, extra: dict) -> None:
    """Recount summary.json's audit buckets over the reviewed result.json files, add ``extra``."""
    last: dict[str, dict] = {}  # Evaluation.run counts the last attempt of each task
    for result in sorted((_load(p) for p in jdir.glob("*/result.json")), key=lambda r: r["started_at"]):
        last[result["task_name"]] = result
    counts, scores = _audit_tally([last[task] for task in sorted(last)], _audit_reviewed)
    _update_summary(jobs_dir, jdir, counts | scores | extra)


def _write_review_job(jobs_dir: Path) -> Path:
    trials = [{"task": task, "attempts": [dict(attempt)]} for task, (attempt, _) in REVIEW_TASKS.items()]
    jdir = write_job(
        jobs_dir, job_name="2026-12-01__10-00-00", setting=REVIEW_SETTING, trials=trials, seed=2101, results_steps=False
    )
    for rdir in sorted(p for p in jdir.iterdir() if p.is_dir()):
        task = rdir.name.rsplit("__", 1)[0]
        review = REVIEW_TASKS[task][1]
        kept = _keep_times([rdir, rdir / "result.json", rdir / "config.json"])
        source = _source_block(REVIEW_REPO, REVIEW_COMMIT, "v1.1", task, review is not None)
        _rewrite_json(rdir / "config.json", {"source": source})
        result = _load(rdir / "result.json")
        result["source"] = source
        if review is not None:
            _write(rdir / "solver.json", _dumps(result) + "\n")
        if review is None:
            _write(rdir / "result.json", _dumps(result) + "\n")
        elif review["status"] == "pending":
            (rdir / "result.json").unlink()
        else:
            verifier_reward = float(result["rewards"]["reward"])
            scoring, rewards = _scoring_block(review, verifier_reward, rdir.name)
            result["rewards"] = rewards
            result["scoring"] = scoring
            _write(rdir / "result.json", _dumps(result) + "\n")
            _write(rdir / "scoring" / "r1.json", _dumps(scoring) + "\n")
            _write(
                rdir / "reviews" / "r1" / "result.json",
                _dumps(_reviewer_result(rdir.name, REVIEW_REVIEWER, result)) + "\n",
            )
            if review["status"] == "complete":
                scores = iter(review["scores"])
                items = [
                    {"id": item, "blocker": True, "passed": item not in review["failed"]}
                    if weight is None
                    else {"id": item, "blocker": False, "weight": weight, "score": next(scores)}
                    for item, weight in REVIEW_RUBRIC
                ]
                _write(rdir / "reviews" / "r1" / "review.json", _dumps({"items": items}) + "\n")
        t = kept[rdir]
        for folder, dirs, files in os.walk(rdir):
            for name in files + dirs:
                os.utime(os.path.join(folder, name), t)
        for path, times in kept.items():
            if path.exists():
                os.utime(path, times)
    summary_source = _git_source(REVIEW_REPO, REVIEW_COMMIT, "v1.1") | {"dirty": False}
    _recount_summary(jobs_dir, jdir, {"reviewer": dict(REVIEW_REVIEWER), "source": summary_source})
    return jdir


def _write_budget_job(jobs_dir: Path) -> Path:
    jdir = write_job(
        jobs_dir,
        job_name="2026-12-02__09-00-00",
        setting=BUDGET_SETTING,
        trials=BUDGET_TRIALS,
        seed=2202,
        results_steps=False,
    )
    spent = 0
    for rdir in sorted(p for p in jdir.iterdir() if p.is_dir()):
        task = rdir.name.rsplit("__", 1)[0]
        source = _source_block(BUDGET_REPO, BUDGET_COMMIT, "main", task, False)
        _rewrite_json(rdir / "config.json", {"source": source})
        if (rdir / "result.json").exists():  # the cancelled trial has config.json only
            result = _rewrite_json(rdir / "result.json", {"source": source})
            spent += result["agent_result"]["total_tokens"]
    cap = (spent // 100_000) * 100_000
    budget = {
        "caps": {"tokens": cap, "usd": None},
        "spent": {"tokens": spent, "usd": None},
        "stopped": True,
        "reason": f"token cap reached ({cap:,} tokens)",
        "cancelled": ["tail-follow"],
        "not_started": list(BUDGET_NOT_STARTED),
    }
    _update_summary(jobs_dir, jdir, {"budget": budget})
    return jdir


def build_review_jobs(out_dir: Path) -> dict[str, Path]:
    """Write the two review jobs (see the comment above) under ``out_dir``; return their folders.

    ``out_dir/rubric-review/2026-12-01__10-00-00`` and ``out_dir/budget-stop/2026-12-02__09-00-00``.
    Same bytes every time, like everything here.
    """
    out_dir = Path(out_dir)
    return {
        "rubric-review": _write_review_job(out_dir / "rubric-review"),
        "budget-stop": _write_budget_job(out_dir / "budget-stop"),
    }
