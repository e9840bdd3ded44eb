"""Render a setting's numbers as report.md, writeup.md and summary.json (pure: data in, text out)."""

from __future__ import annotations

import json
from pathlib import Path

import jinja2

from .files import dump_json
from .intervals import wilson

TEMPLATES = Path(__file__).parent / "templates"
NOT_RECORDED = "not recorded"
def pct(value, digits: int = 0) -> str:
    return "n/a" if value is None else f"{value * 100:.{digits}f}%"


def num(value) -> str:
    if value is None:
        return NOT_RECORDED
    return f"{value:,}" if isinstance(value, int) else f"{value:,.3g}"


def usd(value) -> str:
    return "n/a" if value is None else f"${value:,.4f}" if value < 1 else f"${value:,.2f}"


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


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=False,  # Markdown; every interpolated value goes through `cell` or a formatter
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(pct=pct, num=num, usd=usd, reward=reward, cell=cell, bar=bar)
    env.globals.update(NOT_RECORDED=NOT_RECORDED)
    return env


def _context(stats: dict, jobs: list[dict], ledger: list[dict]) -> dict:
    differences = [(trial, bucket_difference(trial)) for trial in stats["trials"]]
    per_task = [
        row | {"interval": wilson(row["passed"], row["trials"], stats["confidence"])} for row in stats["per_task"]
    ]
    return {
        "s": stats,
        "c": stats["counts"],
        "per_task": per_task,
        "jobs": jobs,
        "ledger": ledger,
        "differences": [(trial, why) for trial, why in differences if why],
        "sampling_keys": ", ".join(stats["sampling"]) if stats["sampling"] else "",
        "json": lambda value: json.dumps(value, sort_keys=True),
    }


def render_report(stats: dict, jobs: list[dict], ledger: list[dict]) -> str:
    return _environment().get_template("report.md.j2").render(**_context(stats, jobs, ledger))


def render_writeup(stats: dict, jobs: list[dict], ledger: list[dict]) -> str:
    text = _environment().get_template("writeup.md.j2").render(**_context(stats, jobs, ledger))
    return " ".join(text.split()) + "\n"


def render_summary(stats: dict, jobs: list[dict], ledger: list[dict]) -> str:
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
        "per_task": stats["per_task"],
        "usage": stats["usage"],
        "sampling": stats["sampling"],
        "controls": stats["controls"],
        "warnings": stats["warnings"],
        "seeds": stats["seeds"],
        "job_folders": [
            {"id": job["id"], "try_index": job["try_index"], "benchflow_summary": job["crosscheck"]} for job in jobs
        ],
        "left_out": ledger + [{"job": t["job"], "folder": t["folder"], "file": f"{t['folder']}/result.json",
                               "reason": "interrupted: config.json but no result.json (the attempt never finished)",
                               "effect": "trial left out of the pass rate"} for t in stats["interrupted"]],
        "trials": stats["trials"],
    }
    return dump_json(summary)
