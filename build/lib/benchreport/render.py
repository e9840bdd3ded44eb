"""Render a setting's numbers as report.md, writeup.md and summary.json (pure: data in, text out)."""

from __future__ import annotations

from pathlib import Path

import jinja2

from . import completeness, grader, runcard
from .classify import interrupted_row
from .environment import repo_digest_text
from .files import dump_json
from .intervals import wilson
from .words import count, pct

TEMPLATES = Path(__file__).parent / "templates"
NOT_RECORDED = "not recorded"
GRADED_BY = {"script": "graded by the verifier script", "model": "graded by a model",
             "mixed": "graded partly by a model, partly by the verifier script alone"}


def num(value) -> str:
    if value is None:
        return NOT_RECORDED
    return f"{value:,}" if isinstance(value, int) else f"{value:,.3g}"


def usd(value) -> str:
    return "n/a" if value is None else f"${value:,.4f}" if value < 1 else f"${value:,.2f}"


def seconds(value) -> str:
    if value is None:
        return "—"
    return f"{value:,.0f}" if value >= 100 else f"{value:.1f}"


def reward(value) -> str:
    return "—" if value is None else f"{value:g}"


def cell(value) -> str:
    """Text safe inside a Markdown table cell: no pipes, no newlines, no raw HTML."""
    text = "—" if value is None or value == "" else str(value)
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace("|", "\\|").replace("\r", " ").replace("\n", " ")


def bar(rate, width: int = 10) -> str:
    filled = round((rate or 0) * width)
    return "█" * filled + "░" * (width - filled)


def bucket_difference(trial: dict) -> str | None:
    """Why BenchFlow's summary bucket for a trial differs from benchreport's outcome, in words."""
    theirs, ours = trial["benchflow_bucket"], trial["outcome"]
    if theirs is None or theirs == ours:
        return None
    if trial["attempts"] > 1:
        return (f"BenchFlow's summary counts the last of {trial['attempts']} attempts ({theirs}); "
                f"benchreport keeps the scored attempt first, then the newest, as BenchFlow does on resume ({ours})")
    if theirs == "verifier_errored":
        return "the verifier reported an error but still wrote a reward; BenchFlow's summary counts the verifier error first, benchreport counts the reward"
    if theirs == "unscored":
        return "BenchFlow's summary has no unscored bucket: the trial is in its total and in none of its counts"
    return f"BenchFlow's summary says {theirs}, benchreport {ours}"


def _jinja() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=False,  # Markdown; every interpolated value goes through `cell` or a formatter
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(pct=pct, num=num, usd=usd, reward=reward, cell=cell, bar=bar, count=count, seconds=seconds)
    env.globals.update(NOT_RECORDED=NOT_RECORDED)
    return env


def environment_rows(resolutions: list[dict], records: dict, per_task: list[dict]) -> list[dict]:
    """Per task: the image it ran in as inspected, beside its task digest."""
    digests = {row["task"]: row["task_digests"] for row in per_task}
    rows = []
    for resolved in sorted(resolutions, key=lambda item: item["task"]):
        task = resolved["task"]
        record = records[resolved["record"]]
        image = record.get("image") or {}
        rows.append(
            {
                "task": task,
                "reference": resolved["reference"],
                "source": resolved["source"],
                "status": record["status"],
                "reason": record.get("reason"),
                "note": record.get("note"),
                "id": image.get("Id"),
                "repo_digest": repo_digest_text(record) if image else None,
                "platform": record.get("platform"),
                "daemon_version": record.get("daemon_version"),
                "task_digests": digests.get(task, []),
            }
        )
    return rows


ENVIRONMENT_HINTS = {
    "image missing": "BenchFlow removes its bf__<task> images after each trial; name the image in "
    "config (environment.images), point environment.tasks_dirs at the task definitions, or set "
    "environment.build_missing",
    "daemon unavailable": "no Docker daemon answered",
}


def environment_left_out(rows: list[dict]) -> list[dict]:
    """One ledger row per kind of failed inspection, naming the tasks it hit."""
    failed = {}
    for row in rows:
        if row["status"] not in ("inspected", "rebuilt"):
            failed.setdefault(row["status"], []).append(row["task"])
    return [
        {"job": "", "folder": "", "file": f"task images ({len(tasks)})",
         "reason": f"{status}: {ENVIRONMENT_HINTS.get(status, 'see the environment table')}",
         "effect": "environment not recorded for " + ", ".join(tasks)}
        for status, tasks in sorted(failed.items())
    ]


def trial_rows(trials: list[dict]) -> list[str]:
    """The Trials table's rows, each as one string: the table has a row per trial (25,000 at
    1,000 tasks x 25 tries), and formatting them here takes a third of the time Jinja takes."""
    rows = []
    for t in trials:
        verifier = (t["verifier"] or "ok") if t["reward"] is not None else cell(t["verifier"])
        outcome = t["outcome"] + (" (left out: controls)" if t["left_out"] else "")
        tokens = num(t["tokens"]) if t["tokens"] else "—"
        cost = usd(t["cost_usd"]) if t["cost_usd"] is not None else "—"
        rows.append(
            f"| {cell(t['task'])} | {t['try'] or '—'} | {cell(t['model_outcome'])} | {verifier} | {reward(t['reward'])} "
            f"| {outcome} | {t['attempts']} | {tokens} | {cost} | {seconds(t['seconds'])} "
            f"| `{cell(t['job'])}/{cell(t['folder'])}` |"
        )
    return rows


def _context(stats: dict, environment: list[dict], card: dict) -> dict:
    jobs, ledger = stats["job_folders"], stats["ledger"] + environment_left_out(environment)
    per_task = [
        row | {"interval": wilson(row["passed"], row["trials"], stats["confidence"])} for row in stats["per_task"]
    ]
    return {
        "s": stats,
        "c": stats["counts"],
        "per_task": per_task,
        "jobs": jobs,
        "ledger": ledger,
        "interrupted_rows": [interrupted_row(t, t["folder"]) for t in stats["interrupted"]],
        "environment": environment,
        "card": card,
        "graded_by": GRADED_BY[card["grader"]["kind"]],
        "sections": {
            "grader": grader.render_markdown(card["grader"], cell),
            "left_out": runcard.left_out_markdown(card["left_out"], cell),
            "tokens_and_cost": runcard.tokens_and_cost_markdown(card["tokens_and_cost"], usd),
            "completeness": completeness.render_markdown(card["completeness"], cell),
            "limits": completeness.writeup_sentences(card),
        },
    }


def render_report(stats: dict, environment: list[dict], card: dict) -> str:
    differences = [(trial, bucket_difference(trial)) for trial in stats["trials"]]
    context = _context(stats, environment, card) | {
        "trial_rows": trial_rows(stats["trials"]),
        "differences": [(trial, why) for trial, why in differences if why],
    }
    return _jinja().get_template("report.md.j2").render(**context)


def render_writeup(stats: dict, environment: list[dict], card: dict) -> str:
    text = _jinja().get_template("writeup.md.j2").render(**_context(stats, environment, card))
    return " ".join(text.split()) + "\n"


def render_summary(stats: dict, environment: list[dict], card: dict) -> str:
    jobs, ledger = stats["job_folders"], stats["ledger"] + environment_left_out(environment)
    summary = {
        "schema": "benchreport.setting-summary/1",
        "setting": stats["setting"],
        "description": stats["description"],
        "settings": stats["key"]
        | {
            "agent_names_reported": stats["agent_names"],
            "served_models": stats["served_models"],
            "effort_sent": {k: v for k, v in stats["sampling"].items() if k in ("reasoning_effort", "thinking", "output_config")},
            "routes": stats["routes"],
        },
        "counts": stats["counts"],
        "pass_rate": stats["pass_rate"],
        "pass_rate_over_trials": stats["pass_rate_over_trials"],
        "mean_reward": stats["mean_reward"],
        "confidence": stats["confidence"],
        "intervals": stats["intervals"],
        "headline": stats["headline"],
        "methods": stats["methods"],
        "solve_rates": stats["solve_rates"],
        "per_task": stats["per_task"],
        "usage": stats["usage"],
        "sampling": stats["sampling"],
        "controls": stats["controls"],
        "environment": environment,
        "warnings": stats["warnings"],
        "seeds": stats["seeds"],
        "job_folders": [
            {"id": job["id"], "try_index": job["try_index"], "benchflow_summary": job["crosscheck"]} for job in jobs
        ],
        "left_out": ledger + [interrupted_row(t, t["folder"]) for t in stats["interrupted"]],
        "excluded_by_controls": stats["excluded_by_controls"],
        # the trial rows are in trials.json beside this file (rule trial_rows writes them)
        "completeness": card["completeness"],
    }
    return dump_json(summary)
