"""One setting's section of results/report.html, and the anchors every link of the page uses
(pure: the setting's summary.json and page.json in, the section's data out; html_report.py
places it in templates/report.html.j2)."""

from __future__ import annotations

import hashlib
import re
from html import escape

from markupsafe import Markup

from ..record import completeness
from ..record.page import listed
from . import sentences
from .present import NOT_RECORDED, count, interval_text, level, pct, reward

# Where an identifier (a path, an image reference, a digest, a folder name) may wrap: after a
# double underscore, a hyphen, a slash, a colon or an at sign. Nowhere else: no mid-word break.
BREAK_AFTER = re.compile(r"(__|[-/:@])")


def breakable(text) -> Markup:
    """An identifier as HTML that wraps only at BREAK_AFTER (a <wbr> there), escaped."""
    return Markup(BREAK_AFTER.sub(r"\1<wbr>", escape(str(text), quote=True)))


def anchor(prefix: str, *parts: str) -> str:
    """A stable HTML id: a readable slug plus a short hash of the exact text (no collisions)."""
    text = "\x1f".join(parts)
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:48]
    return f"{prefix}-{slug}-{hashlib.sha256(text.encode()).hexdigest()[:8]}"


def setting_anchor(setting: str) -> str:
    return anchor("setting", setting)


def task_anchor(setting: str, task: str) -> str:
    return anchor("task", setting, task)


def trials_anchor(setting: str) -> str:
    return anchor("trials", setting)


def per_task_anchor(setting: str) -> str:
    return anchor("pertask", setting)


def excluded_by_controls(summary: dict, page: dict) -> list[dict]:
    """Tasks left out of the headline because their controls failed (summary.json), with the
    trials the page lists of them."""
    return [
        {
            "task": entry["task"],
            "reason": entry["reason"],
            "n_trials": entry["trials"],
            "passed": entry["passed"],
            "trials": page["excluded"].get(entry["task"]),
            "anchor": task_anchor(summary["setting"], entry["task"]),
        }
        for entry in summary["excluded_by_controls"]
    ]


def setting_fields(summary: dict) -> list[tuple[str, str]]:
    settings = summary["settings"]
    served = settings.get("served_models") or {}
    effort = settings.get("effort_sent") or {}
    digests = sorted({d for row in summary["per_task"] for d in row.get("task_digests", [])})
    return [
        ("Agent (harness)", settings.get("agent") or "—"),
        ("Agent name reported", ", ".join(settings.get("agent_names_reported") or []) or "—"),
        ("Harness version", settings.get("harness_version") or NOT_RECORDED),
        ("Model requested", settings.get("model") or "—"),
        (
            "Model served",
            ", ".join(f"{model} ({n} trials)" for model, n in served.items())
            or "not recorded (no provider call captured)",
        ),
        ("Effort requested", settings.get("reasoning_effort") or "—"),
        ("Effort sent", "; ".join(f"{key}: {', '.join(values)}" for key, values in effort.items()) or "not recorded"),
        ("Route", ", ".join(settings.get("routes") or []) or "—"),
        ("Task set", settings.get("dataset") or f"no dataset@version; {len(digests)} task digests"),
        ("BenchFlow version", settings.get("benchflow_version") or NOT_RECORDED),
        ("Sandbox", settings.get("sandbox") or "—"),
        ("Control", settings.get("control") or "no (an agent run)"),
    ]


def environment_row(row: dict) -> dict:
    return {
        "task": row["task"],
        "reference": row.get("reference") or "—",
        "note": row.get("note"),
        "source": row.get("source") or "—",
        "image": row.get("id") or row.get("status") or "—",
        "repo_digest": row.get("repo_digest") or "—",
        "platform": row.get("platform") or "—",
        "task_digests": ", ".join(row.get("task_digests") or []) or "—",
    }


def crosscheck_rows(summary: dict) -> list[dict]:
    rows = []
    for job in summary.get("job_folders", []):
        check = job.get("benchflow_summary") or {}
        bf, ours = sentences.crosscheck_counts(check)
        rows.append({"job": job["id"], "benchflow": bf, "recount": ours, "agrees": sentences.crosscheck_agrees(check)})
    return rows


def interval_methods(summary: dict) -> list[dict]:
    methods = summary.get("methods") or {}
    headline = summary.get("headline") or {}
    coverage = ((headline.get("coverage") or {}).get("methods")) or {}
    return [
        {
            "name": name,
            "headline": name == headline.get("method"),
            "interval": "undefined" + (f": {found['note']}" if found.get("note") else "")
            if found.get("low") is None
            else interval_text(found.get("low"), found.get("high")),
            "covers": "tasks and the tries within them"
            if found.get("over") == "tasks"
            else "trials, as if independent",
            "worst": pct(cov["worst_coverage"], 1) if cov.get("worst_coverage") is not None else "n/a",
            "width": pct(cov["mean_width"]) if cov.get("mean_width") is not None else "n/a",
        }
        for name, found in methods.items()
        for cov in [coverage.get(name) or {}]
    ]


def trials_sentence(summary: dict, page: dict, tasks: int) -> str:
    setting = summary["setting"]
    left_out = summary["counts"]["left_out_by_controls"]
    total, listed_trials = summary["counts"]["trials"] + left_out, page["listed_trials"]
    where = (
        f"Every trial is in results/reports/{setting}/trials.json and in "
        f"results/reports/{setting}/report.md, under Trials."
    )
    if listed_trials == total:
        text = f"All {count(total, 'trial')} are listed once, under their task: open a task for its trials"
        if left_out:
            text += (
                f" ({total - left_out:,} counted, in this table; {left_out:,} left out by the controls, in the "
                "table after it)"
            )
        return f"{text}. {where}"
    return (
        f"The trials of the first {page['listed_tasks']:,} of {count(tasks, 'task')} are listed once, under their "
        f"task ({listed_trials:,} of {count(total, 'trial')}): open a task for its trials. The other "
        f"{total - listed_trials:,} are not in this page, to keep it small; every task's row still gives the "
        f"reward of each of its trials. {where}"
    )


def setting_section(summary: dict, page: dict) -> dict:
    setting = summary["setting"]
    confidence = summary["confidence"]
    per_task = [
        {
            "task": row["task"],
            "anchor": task_anchor(setting, row["task"]),
            "trials": row["trials"],
            "passed": row["passed"],
            "rate": pct(row["rate"]),
            "rate_value": row["rate"],
            "interval": interval_text(row["interval"]["low"], row["interval"]["high"]),
            "rewards": " ".join(reward(value) for value in row.get("rewards", [])),
            "controls": sentences.task_controls(row.get("controls") if summary.get("controls") else None),
            "trial_rows": page["listed"].get(row["task"]),
        }
        for row in summary["per_task"]
    ]
    excluded = excluded_by_controls(summary, page)
    left_out, left_out_hidden = listed(summary.get("left_out") or [])
    # completeness_html escapes every value; Markup keeps its table as HTML
    checklist = Markup(completeness_html(summary["completeness"])) if summary.get("completeness") else None
    return {
        "completeness": checklist,
        "setting": setting,
        "description": summary["description"],
        "control": summary["settings"].get("control"),
        "anchor": setting_anchor(setting),
        "trials_anchor": trials_anchor(setting),
        "per_task_anchor": per_task_anchor(setting),
        "controls_anchor": anchor("controls", setting),
        "first": sentences.first_line(summary),
        "method": sentences.headline_method(summary),
        "warnings": [sentences.warning(item) for item in summary["warnings"]],
        "controls": sentences.controls_lines(summary),
        "per_task": per_task,
        "excluded": excluded,
        "trials_sentence": trials_sentence(summary, page, len(per_task) + len(excluded)),
        "level": level(confidence),
        "outcomes": sentences.outcomes(summary),
        "usage": sentences.tokens_and_cost(summary),
        "sampling": sentences.sampling(summary),
        "seeds": sentences.seeds(summary),
        "methods": interval_methods(summary),
        "solve_rates": sentences.solve_rates(summary),
        "left_out_sentence": sentences.left_out(summary),
        "fields": setting_fields(summary),
        "jobs": [job["id"] for job in summary.get("job_folders", [])],
        "environment": len(summary.get("environment") or []),
        "left_out": left_out,
        "left_out_hidden": left_out_hidden,
        "crosscheck": crosscheck_rows(summary),
        "differences": page["differences"],
        "differences_hidden": page["differences_hidden"],
    }


def completeness_html(items: list[dict]) -> str:
    """The same checklist as an escaped HTML table, for report.html."""
    rows = "".join(
        f'<tr class="{item["status"]}"><td>{escape(item["title"])}</td><td>{item["status"]}</td>'
        f"<td>{escape('; '.join(item['missing']) or '—')}</td></tr>"
        for item in items
    )
    return (
        '<table class="completeness"><thead><tr><th>Part</th><th>Status</th><th>What is missing</th></tr></thead>'
        f"<tbody>{rows}</tbody></table><p>{escape(completeness.tally(items))}.</p>"
    )
