"""Who graded a trial: the task's verifier script alone, or also a model (BenchFlow's rubric review).

BenchFlow 0.7.x runs an automatic rubric review on tasks that have a rubric. Its traces in a
job folder are the job summary.json `reviewer` block (how the reviewer is configured; 0.7.12
writes it for every job, used or not), the `scoring` envelope in a trial's result.json, the
trial's `solver.json` (the solver's result while the review is pending), `scoring/<id>.json`
and `reviews/<id>/` (the reviewer's own run, `purpose: "reviewer"`). A trial graded by a model
passes when its tests pass (verifier reward 1.0) and every rubric blocker passes; its reward is
then the rubric reward.

Where the rubric file itself is named is not documented for 0.7.x. It is looked for, in order:
explicit `rubric_path`/`rubric_sha256` keys in the scoring envelope or config.json `review`
block, the task's recorded source provenance (`source.file_hashes`, a file named rubric*), then
the reviews/ listing. Anything not found is reported as not recorded, never guessed.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import PurePosixPath

from .files import finite_number
from .provenance import NOT_RECORDED
from .provenance import as_dict as _dict
from .provenance import text_or_none as _text
from .secrets import redact_text

RUBRIC_PATH_KEYS = ("rubric_path", "rubric_file", "rubric")
RUBRIC_DIGEST_KEYS = ("rubric_sha256", "rubric_digest")
POLICY_RULE = {
    "tests-blockers-quality-v1": "a trial passes when its tests pass (verifier reward 1.0) and every "
    "rubric blocker passes; its reward is then the rubric reward, else 0",
}
HEX64 = re.compile(r"^(?:sha256:)?([0-9a-fA-F]{64})$")


def _short_error(value) -> str | None:
    text = _text(value)
    if not text:
        return None
    text = redact_text(text)[0]
    return text if len(text) <= 200 else text[:197] + "..."


def sha256_text(value) -> str | None:
    """'sha256:<64 hex>' from a bare or prefixed digest, None for anything else."""
    match = HEX64.match(value.strip()) if isinstance(value, str) else None
    return f"sha256:{match.group(1).lower()}" if match else None


# ------------------------------------------------------------------------------------------
# per job and per attempt (ingest calls these)


def reviewer_config(summary) -> dict | None:
    """The job's configured rubric reviewer, from summary.json `reviewer` (0.7.12), else None."""
    block = _dict(summary).get("reviewer") if isinstance(summary, dict) else None
    if not isinstance(block, dict):
        return None
    keys = block.get("agent_env_keys")
    return {
        "agent": _text(block.get("agent")),
        "model": _text(block.get("model")),
        "reasoning_effort": _text(block.get("reasoning_effort")),
        "environment": _text(block.get("environment")),
        "image": _text(block.get("image")),
        "timeout_sec": finite_number(block.get("timeout_sec")),
        "open_network": block.get("open_network") if isinstance(block.get("open_network"), bool) else None,
        "agent_env_keys": sorted(str(key) for key in keys) if isinstance(keys, list) else [],
    }


def _rubric_from_block(block: dict, origin: str) -> list[dict]:
    path = next((_text(block.get(key)) for key in RUBRIC_PATH_KEYS if _text(block.get(key))), None)
    digest = next((sha256_text(block.get(key)) for key in RUBRIC_DIGEST_KEYS if sha256_text(block.get(key))), None)
    return [{"path": path, "sha256": digest, "from": origin}] if path or digest else []


def _is_rubric_name(path: str) -> bool:
    return PurePosixPath(path).name.lower().startswith("rubric")


def rubric_files(result, config=None, reviews=None, record_name: str = "result.json") -> list[dict]:
    """The rubric file(s) a trial was graded against: path, sha256 and where that was read.
    `record_name` names the file `result` was read from (solver.json while a review is pending)."""
    result, config = _dict(result), _dict(config)
    for origin, block in (
        (f"{record_name} scoring", result.get("scoring")),
        ("config.json review", config.get("review")),
    ):
        found = _rubric_from_block(_dict(block), origin)
        if found:
            return found
    for origin, record in ((f"{record_name} source.file_hashes", result), ("config.json source.file_hashes", config)):
        source = _dict(record.get("source"))
        hashes = _dict(source.get("file_hashes"))
        base = _text(source.get("path"))
        found = [
            {"path": f"{base}/{rel}" if base else rel, "sha256": sha256_text(digest), "from": origin}
            for rel, digest in sorted(hashes.items())
            if isinstance(rel, str) and _is_rubric_name(rel)
        ]
        if found:
            return found
    return [
        {"path": entry["path"], "sha256": sha256_text(entry.get("sha256")), "from": "reviews/ listing"}
        for entry in sorted(reviews or [], key=lambda item: str(item.get("path")))
        if isinstance(entry, dict) and isinstance(entry.get("path"), str) and _is_rubric_name(entry["path"])
    ]


def _reviewer_run(reviews) -> dict | None:
    """Agent, model and effort of the reviewer's own run, from a parsed reviews/<id>/result.json."""
    for entry in reviews or []:
        data = _dict(entry.get("data")) if isinstance(entry, dict) else {}
        if data.get("purpose") != "reviewer":
            continue
        effort = None
        for scene in data.get("scenes") or []:
            for role in _dict(scene).get("roles") or []:
                effort = effort or _text(_dict(role).get("reasoning_effort"))
        return {"agent": _text(data.get("agent")), "model": _text(data.get("model")), "reasoning_effort": effort}
    return None


def _blockers(value) -> list[str]:
    if not isinstance(value, list):
        return []
    names = []
    for item in value:
        if isinstance(item, str):
            names.append(item)
        elif isinstance(item, dict):
            names.append(str(item.get("id") or item.get("name") or item.get("title") or "unnamed blocker"))
    return names


def verdict_text(grading: dict) -> str:
    """The model's outcome for one trial in a few words."""
    status = grading["status"]
    if status == "pending":
        return "review pending (solver.json only, no verdict)"
    if status == "error":
        return "review failed" + (f": {grading['error']}" if grading["error"] else "")
    if status != "complete":
        return "no verdict recorded"
    if grading["gate_passed"]:
        return "passed the rubric gate"
    reasons = []
    if grading["tests_pass"] is False:
        reasons.append("tests failed")
    if grading["failed_blockers"]:
        reasons.append("blockers failed: " + ", ".join(grading["failed_blockers"]))
    elif grading["all_blockers_pass"] is False:
        reasons.append("a blocker failed")
    return "failed the rubric gate" + (f" ({'; '.join(reasons)})" if reasons else "")


def trial_grading(result, config=None, solver=None, reviews=None) -> dict | None:
    """How a model graded one attempt, or None when nothing says a model graded it.

    `result`, `config`, `solver`: the parsed result.json, config.json and solver.json of the
    attempt (None when absent). `reviews`: the files under the attempt's `reviews/` and
    `scoring/` folders as [{"path": "reviews/<id>/<file>", "sha256": "<hex>", "data": parsed
    JSON or None}]; `data` is only needed for `reviews/<id>/result.json` (the reviewer's run).
    """
    result, config, solver = _dict(result), _dict(config), _dict(solver)
    scoring = result.get("scoring") if isinstance(result.get("scoring"), dict) else None
    reviews = [entry for entry in (reviews or []) if isinstance(entry, dict)]
    if not (scoring or solver or reviews or isinstance(config.get("review"), dict)):
        return None
    rewards = _dict(result.get("rewards")) or _dict(solver.get("rewards"))
    if scoring:
        status = _text(scoring.get("status")) or "unknown"
    elif solver and not result:
        status = "pending"
    else:
        status = "unknown"
    scoring = scoring or {}
    verifier_reward = finite_number(scoring.get("verifier_reward"))
    if verifier_reward is None:
        verifier_reward = finite_number(rewards.get("verifier_reward"))
    if verifier_reward is None and not scoring:
        verifier_reward = finite_number(rewards.get("reward"))  # no review yet: the verifier's own
    rubric_reward = finite_number(scoring.get("rubric_reward"))
    if rubric_reward is None:
        rubric_reward = finite_number(rewards.get("rubric_reward"))
    grading = {
        "status": status,
        "policy": _text(scoring.get("policy")),
        "verifier_reward": verifier_reward,
        "rubric_reward": rubric_reward,
        "gate_passed": scoring.get("passed")
        if status == "complete" and isinstance(scoring.get("passed"), bool)
        else None,
        "tests_pass": scoring.get("tests_pass") if isinstance(scoring.get("tests_pass"), bool) else None,
        "all_blockers_pass": scoring.get("all_blockers_pass")
        if isinstance(scoring.get("all_blockers_pass"), bool)
        else None,
        "failed_blockers": _blockers(scoring.get("failed_blockers")),
        "revision": _text(scoring.get("revision")),
        "reviewer_run": _text(scoring.get("reviewer_run")),
        "error": _short_error(scoring.get("error")),
        "reviewer": _reviewer_run(reviews),
        "rubric": rubric_files(result, config, reviews)
        if result
        else rubric_files(solver, config, reviews, "solver.json"),
        "review_files": len(reviews),
    }
    grading["verdict"] = verdict_text(grading)
    return grading


# ------------------------------------------------------------------------------------------
# per setting (stats/report call this)


def _reviewer_text(reviewer: dict) -> str:
    model = reviewer.get("model") or "model not recorded (the reviewer agent's default)"
    effort = reviewer.get("reasoning_effort") or NOT_RECORDED
    return f"agent {reviewer.get('agent') or NOT_RECORDED}, {model}, effort {effort}"


def _rubric_text(rubric: dict) -> str:
    digest = rubric["sha256"] or "sha256 not recorded"
    return f"{rubric['path'] or 'path not recorded'} ({digest})"


def describe_grader(trials: list[dict], reviewers=()) -> dict:
    """The grader of a setting, from its trial rows and its job folders' reviewer blocks.

    `trials`: rows with task, job, folder, try_index (or try), reward, outcome and `grading`
    (what `trial_grading` returned for the kept attempt; None or absent when no model graded).
    `reviewers`: `reviewer_config` of each job folder the setting draws on (None where absent).
    """
    graded = [trial for trial in trials if trial.get("grading")]
    configured = [block for block in reviewers if block]
    used = [trial["grading"]["reviewer"] for trial in graded if trial["grading"].get("reviewer")]
    statuses = Counter(trial["grading"]["status"] for trial in graded)
    rubrics = Counter(
        (rubric["path"], rubric["sha256"], rubric["from"]) for trial in graded for rubric in trial["grading"]["rubric"]
    )
    policies = sorted({trial["grading"]["policy"] for trial in graded if trial["grading"]["policy"]})
    # who reviewed: the reviewer's own run where it was read, else the job's configured reviewer
    seen = Counter(
        (block.get("agent"), block.get("model"), block.get("reasoning_effort")) for block in (used or configured)
    )
    reviewer_rows = [
        {"agent": agent, "model": model, "reasoning_effort": effort, "count": count}
        for (agent, model, effort), count in _counted(seen)
    ]
    images = sorted({block["image"] for block in configured if block.get("image")})
    kind = "script" if not graded else ("model" if len(graded) == len(trials) else "mixed")
    missing = _missing(graded, reviewer_rows, rubrics, statuses) if graded else []
    description = {
        "kind": kind,
        "model_graded": bool(graded),
        "trials": len(trials),
        "graded_trials": len(graded),
        "script_trials": len(trials) - len(graded),
        "statuses": dict(sorted(statuses.items())),
        "policies": policies,
        "policy_rules": {policy: POLICY_RULE[policy] for policy in policies if policy in POLICY_RULE},
        "reviewers": reviewer_rows,
        "reviewer_source": "reviewer runs under reviews/"
        if used
        else ("summary.json reviewer" if configured else None),
        "reviewer_images": images,
        "reviewer_configured_unused": bool(configured) and not graded,
        "rubrics": [
            {"path": path, "sha256": sha, "from": origin, "trials": count}
            for (path, sha, origin), count in _counted(rubrics)
        ],
        "missing": missing,
        "per_trial": [_per_trial(trial) for trial in sorted(graded, key=_order)],
    }
    description["sentence"] = grader_sentence(description, configured)
    return description


def _counted(counter: Counter) -> list[tuple[tuple, int]]:
    """(key, count) in the order of the keys' text, which may hold None."""
    return sorted(counter.items(), key=lambda item: tuple(str(v) for v in item[0]))


def _missing(graded: list[dict], reviewer_rows: list[dict], rubrics: Counter, statuses: Counter) -> list[str]:
    """What a reader of model-graded trials needs and the setting does not record."""
    missing = []
    if not reviewer_rows:
        missing.append("the reviewer (no summary.json reviewer block and no reviewer run read)")
    if any(not row["model"] for row in reviewer_rows):
        missing.append("the reviewer's model (summary.json reviewer.model is null)")
    if any(not row["reasoning_effort"] for row in reviewer_rows):
        missing.append("the reviewer's effort")
    unrubric = sum(not trial["grading"]["rubric"] for trial in graded)
    if unrubric:
        missing.append(f"the rubric file ({unrubric} of {len(graded)} graded trials name none)")
    elif any(sha is None for _, sha, _ in rubrics):
        missing.append("the rubric file's sha256")
    by_task: dict[str | None, set[str]] = {}
    for trial in graded:
        by_task.setdefault(trial.get("task"), set()).update(
            r["sha256"] for r in trial["grading"]["rubric"] if r["sha256"]
        )
    drifted = sorted(str(task) for task, digests in by_task.items() if len(digests) > 1)
    if drifted:
        missing.append("one rubric per task: " + ", ".join(drifted) + " were graded against different rubric versions")
    without_verdict = statuses.get("pending", 0) + statuses.get("error", 0) + statuses.get("unknown", 0)
    if without_verdict:
        missing.append(f"a verdict for {without_verdict} graded trials (review pending or failed)")
    return missing


def _order(trial: dict) -> tuple:
    tried = trial.get("try_index", trial.get("try"))
    return (trial.get("task") or "", tried is None, tried or 0, trial.get("job") or "", trial.get("folder") or "")


def _per_trial(trial: dict) -> dict:
    grading = trial["grading"]
    return {
        "task": trial.get("task"),
        "try": trial.get("try_index", trial.get("try")),
        "job": trial.get("job"),
        "folder": trial.get("folder"),
        "verifier_reward": grading["verifier_reward"],
        "model_verdict": grading["verdict"],
        "rubric_reward": grading["rubric_reward"],
        "gate_passed": grading["gate_passed"],
        "failed_blockers": grading["failed_blockers"],
        "status": grading["status"],
        "reward": trial.get("reward"),
        "outcome": trial.get("outcome"),
    }


def grader_sentence(description: dict, configured=()) -> str:
    """One paragraph for the report: who graded, against what, and what is not recorded."""
    n, k = description["trials"], description["graded_trials"]
    if not k:
        text = (
            f"The verifier was a script: no model graded {'the trial' if n == 1 else f'any of the {n:,} trials'} "
            "(no result.json carries a "
            "rubric review `scoring` block and no trial folder holds solver.json or reviews/)."
        )
        if configured:
            agents = sorted({block.get("agent") or NOT_RECORDED for block in configured})
            text += (
                f" summary.json configures a rubric reviewer ({', '.join(agents)}) for tasks that have a rubric;"
                + (" it was not reviewed." if n == 1 else " none of these trials was reviewed.")
            )
        return text
    who = "; ".join(_reviewer_text(row) for row in description["reviewers"]) or "reviewer not recorded"
    text = f"A model graded {k} of {n} trials: {who}."
    for policy in description["policies"]:
        rule = description["policy_rules"].get(policy)
        text += f" Policy {policy}" + (f": {rule}." if rule else ".")
    if description["rubrics"]:
        text += " Rubric " + "; ".join(_rubric_text(rubric) for rubric in description["rubrics"]) + "."
    if description["script_trials"]:
        others = description["script_trials"]
        text += f" The other {others} trial{' was' if others == 1 else 's were'} graded by the verifier script alone."
    if description["missing"]:
        text += " Not recorded: " + "; ".join(description["missing"]) + "."
    return text
