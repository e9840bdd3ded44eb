"""results/report.html: one self-contained page over every setting (pure: data in, text out).

The page holds the headline table, the figures (SVG inlined as data: URIs), a section per setting
saying what its report.md says (rendered from summary.json and the trials page_trials chose), the environment, the controls, the
exclusion ledger and the paired comparisons. Every number links to the trials it came from: a
headline number to its setting's section, whose per-task rows open onto their trials. Each trial
is listed once, under its task.

The page stays a few megabytes however many tries there are: a setting lists the trials of its
first tasks, whole and in table order, up to PAGE_TRIALS trials (the rest are in its trials.json
and report.md; every task keeps its row, with the reward of each trial, as the target of the
links), and the tables over tasks or files that repeat what the per-task tables or the ledger hold
(comparisons, controls, what was left out, outcome differences) list at most LISTED_ROWS rows, the
exclusion ledger LEDGER_ROWS, each saying what it leaves out and where that is. Above
paper.HEATMAP_NAMED_TASKS tasks the heatmap's numbers are the per-task tables, not a table of
their own.

Jinja2 autoescapes every value; the page carries a Content Security Policy that allows no script
at all, and it loads nothing from anywhere.
"""

from __future__ import annotations

import base64
import csv
import functools
import hashlib
import io
import re
from pathlib import Path

import jinja2
from markupsafe import Markup

from . import completeness, paper
from .intervals import wilson
from .render import NOT_RECORDED, bucket_difference, num, pct, reward, seconds, usd
from .words import count

TEMPLATES = Path(__file__).parent / "templates"
PAGE_TRIALS = 500
LISTED_ROWS = 200
LEDGER_ROWS = 1000
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"


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


def svg_data_uri(data: bytes) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(data).decode("ascii")


def read_ledger(text: str) -> tuple[list[str], list[dict]]:
    """The exclusion ledger TSV: its header and rows (as the overview stage wrote it)."""
    reader = csv.DictReader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE)
    rows = [dict(row) for row in reader]
    return list(reader.fieldnames or []), rows


# ---------------------------------------------------------------------------------------------
# a setting's section


def trial_row(trial: dict) -> dict:
    if trial.get("reward") is not None:
        verifier = trial.get("verifier") or "ok"
    else:
        verifier = trial.get("verifier") or "—"
    return {
        "try": trial.get("try") or "—",
        "model_outcome": trial.get("model_outcome") or "—",
        "verifier": verifier,
        "reward": reward(trial.get("reward")),
        "outcome": trial.get("outcome") or "—",
        "attempts": trial.get("attempts", 1),
        "tokens": num(trial["tokens"]) if trial.get("tokens") else "—",
        "cost": usd(trial["cost_usd"]) if trial.get("cost_usd") is not None else "—",
        "seconds": seconds(trial.get("seconds")),
        "folder": f"{trial.get('job', '')}/{trial.get('folder', '')}",
        "passed": trial.get("outcome") == "passed",
    }


def page_trials(per_task: list[dict], trials: list[dict]) -> dict:
    """What the page shows of one setting's trials, chosen by the report stage, which reads them
    all, so that the page reads only this: tasks are listed whole, in table order (the counted
    tasks, then those the controls left out), until one does not fit in PAGE_TRIALS; and the
    first LISTED_ROWS trials whose BenchFlow summary bucket differs from the outcome. Counts
    (trials, those left out, per left-out task) are in summary.json."""
    by_task: dict[str, list[dict]] = {}
    excluded: dict[str, list[dict]] = {}
    for trial in trials:
        (excluded if trial.get("left_out") else by_task).setdefault(trial["task"], []).append(trial)
    budget = PAGE_TRIALS  # trials still to list; None once a task did not fit
    listed_tasks = listed_trials = 0

    def take(task_trials: list[dict]) -> list[dict] | None:
        nonlocal budget, listed_tasks, listed_trials
        if budget is None or len(task_trials) > budget:
            budget = None
            return None
        budget -= len(task_trials)
        listed_tasks += 1
        listed_trials += len(task_trials)
        return [trial_row(t) for t in task_trials]

    def taken(groups) -> dict[str, list[dict]]:
        rows = {task: take(task_trials) for task, task_trials in groups}
        return {task: task_rows for task, task_rows in rows.items() if task_rows is not None}

    listed_rows = taken((row["task"], by_task.get(row["task"], [])) for row in per_task)
    excluded_rows = taken(sorted(excluded.items()))
    differences = []
    for trial in trials:
        if "benchflow_bucket" in trial:
            why = bucket_difference(trial)
            if why:
                differences.append({"task": trial["task"], "try": trial.get("try") or "—", "folder": trial.get("folder"),
                                    "why": why})
    differences, differences_hidden = listed(differences)
    return {
        "listed": listed_rows,
        "excluded": excluded_rows,
        "listed_tasks": listed_tasks,
        "listed_trials": listed_trials,
        "differences": differences,
        "differences_hidden": differences_hidden,
    }


def excluded_by_controls(summary: dict, page: dict) -> list[dict]:
    """Tasks left out of the headline because their controls failed (summary.json), with the
    trials the page lists of them."""
    return [
        {"task": entry["task"], "reason": entry["reason"], "n_trials": entry["trials"], "passed": entry["passed"],
         "trials": page["excluded"].get(entry["task"]), "anchor": task_anchor(summary["setting"], entry["task"])}
        for entry in summary["excluded_by_controls"]
    ]


def headline_sentences(summary: dict) -> dict:
    counts = summary["counts"]
    headline = summary.get("headline") or {}
    over_tasks = (summary.get("intervals") or {}).get("over_tasks") or {}
    over_trials = (summary.get("intervals") or {}).get("over_trials") or {}
    confidence = summary.get("confidence", 0.95)
    mean_reward = summary.get("mean_reward")
    first = (
        f"{count(counts['trials'], 'trial')} of {count(counts['tasks'], 'task')}, {summary['description']}: "
        f"{counts['passed']} passed ({pct(summary['pass_rate']['value'])}, {paper.level(confidence)} interval "
        f"{paper.interval_text(headline.get('low'), headline.get('high'))}, {headline.get('method') or 'none defined'}), "
        f"mean reward {'n/a' if mean_reward is None else f'{mean_reward:.2f}'}, {counts.get('with_error', 0)} with an error."
    )
    parts = [f"Pass rate: {summary['pass_rate']['rule']}."]
    if headline.get("text"):
        parts.append(f"Headline interval: {headline['text']}.")
    if headline.get("worst_coverage") is not None:
        parts.append(f"Its simulated worst-case coverage at these tasks and tries: {pct(headline['worst_coverage'], 2)}"
                     + (f"; it covers {headline['covers']}." if headline.get("covers") else "."))
    if over_tasks:
        resamples = over_tasks.get("resamples")
        parts.append(
            f"Interval over tasks, resampled: {paper.interval_text(over_tasks.get('low'), over_tasks.get('high'))} "
            f"(percentile bootstrap over the {count(counts['tasks'], 'task')}"
            + (f", {resamples:,} resamples" if resamples else "")
            + (f", seed {over_tasks['seed']}" if over_tasks.get("seed") is not None else "") + ")."
        )
    if over_trials:
        tail = ", which tries of one task are not" if counts["trials"] > counts["tasks"] else ""
        parts.append(f"Wilson over trials: {paper.interval_text(over_trials.get('low'), over_trials.get('high'))} "
                     f"{over_trials.get('label', '')}{tail}.")
    return {"first": first, "method": " ".join(parts)}


def controls_sentences(summary: dict) -> list[str]:
    controls = summary.get("controls")
    if not controls:
        return []
    oracle, nop = controls.get("oracle") or {}, controls.get("nop") or {}
    if not (oracle.get("trials") or nop.get("trials")):
        return ["Controls on the same tasks: none found (no oracle or nop trial on these tasks), so a broken task "
                "cannot be told from a hard one."]
    text = (f"Controls on the same tasks: oracle {oracle.get('passed', 0)}/{oracle.get('trials', 0)}, "
            f"nop {nop.get('passed', 0)}/{nop.get('trials', 0)}")
    without = controls.get("tasks_without_control") or []
    if without:
        text += f"; no control on {count(len(without), 'task')}: {', '.join(without)}"
    lines = [text + "."]
    failing = [(task, entry) for task, entry in sorted((controls.get("per_task") or {}).items())
               if entry.get("verdict") == "failed"]
    if failing:
        listed = ", ".join(f"{task} ({'; '.join(entry.get('failures') or [])})" for task, entry in failing)
        if controls.get("policy") == "keep":
            lines.append(f"Kept in the headline although their controls failed (policy keep): {listed}.")
        else:
            lines.append("Left out of the headline because their controls failed (the oracle must pass every try, "
                         f"the nop none): {listed}.")
    return lines


def usage_sentence(summary: dict) -> str:
    usage = summary["usage"]
    tokens = usage.get("tokens") or {}
    text = (f"Tokens {num(tokens.get('total_tokens'))} ({num(tokens.get('n_input_tokens'))} input incl. "
            f"{num(tokens.get('n_cache_read_tokens'))} cache reads, {num(tokens.get('n_output_tokens'))} output), "
            "over all attempts; ")
    if usage.get("cost_usd") is not None:
        sources = ", ".join(f"{source} {n}" for source, n in (usage.get("price_sources") or {}).items())
        text += f"cost {usd(usage['cost_usd'])} over {usage.get('trials_priced')} priced trials (price source: {sources})"
        if usage.get("trials_unpriced"):
            text += f", {usage['trials_unpriced']} trials without a price"
        if usage.get("cost_per_passed_trial_usd") is not None:
            text += f", {usd(usage['cost_per_passed_trial_usd'])} per passed trial"
    else:
        sources = ", ".join(f"{source} {n}" for source, n in (usage.get("usage_sources") or {}).items())
        text += f"no cost: no trial recorded one (usage source: {sources}; BenchFlow records an unknown cost as null)"
    text += (f"; trial time {seconds(usage.get('trial_seconds_min'))} to {seconds(usage.get('trial_seconds_max'))} s, "
             f"{usage.get('trial_minutes_all_attempts')} trial-minutes in all.")
    return text


def sampling_sentence(summary: dict) -> str:
    sampling = summary.get("sampling") or {}
    if sampling:
        parts = []
        for key, values in sampling.items():
            parts.append(key + " " + ", ".join(f"{value} ({n} trials)" for value, n in values.items()))
        missing = [key for key in ("max_tokens", "temperature", "top_p") if key not in sampling]
        return ("Sampling the model requests carried (the first requests of each trial, with how many trials sent "
                f"each value): {'; '.join(parts)}. Not recorded: {', '.join(missing) or 'nothing'}.")
    if (summary.get("settings") or {}).get("served_models"):
        return ("Sampling the model requests carried: none recorded in the first requests "
                "(BenchFlow 0.7.12 keeps no max_tokens, temperature or top_p).")
    return "Sampling the model requests carried: none recorded (no trial has a trajectory/llm_trajectory.jsonl)."


def seeds_sentence(summary: dict) -> str:
    seeds = summary.get("seeds") or {}
    text = f"Seeds: resampling seed {seeds.get('resampling_seed')} ({seeds.get('generator')}"
    if seeds.get("resamples"):
        text += f", {seeds['resamples']:,} resamples"
    text += "); "
    if seeds.get("trial_seeds"):
        text += "trial seeds recorded: " + ", ".join(str(seed) for seed in seeds["trial_seeds"])
    else:
        text += "the job folders record no agent or sampling seed"
    return text + "."


def outcomes_sentence(summary: dict) -> str:
    c = summary["counts"]
    text = "Per-task intervals are Wilson over that task's trials."
    if c.get("errored") or c.get("verifier_errored") or c.get("unscored"):
        text += (f" Outcomes other than pass or fail: {c.get('errored', 0)} errored, {c.get('verifier_errored', 0)} with "
                 f"a verifier error, {c.get('unscored', 0)} unscored; each counts as not passed.")
    text += f" {c.get('retried', 0)} trials were retried ({c.get('attempts', 0)} attempts in all)."
    return text


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
        ("Model served", ", ".join(f"{model} ({n} trials)" for model, n in served.items())
         or "not recorded (no provider call captured)"),
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
        theirs, recount = check.get("benchflow"), check.get("recount_last_attempts") or {}
        if theirs:
            bf = " / ".join(str(theirs.get(k)) for k in ("total", "passed", "failed", "errored", "verifier_errored"))
        elif check.get("summary_status") == "absent":
            bf = "no summary.json (the job did not finish)"
        else:
            bf = "summary.json unusable (see what was left out)"
        ours = " / ".join(str(recount.get(k)) for k in ("total", "passed", "failed", "errored", "verifier_errored"))
        if recount.get("unscored"):
            ours += f" (+{recount['unscored']} unscored)"
        agrees = "yes" if check.get("matches") else ("n/a" if not theirs else "NO: summary.json disagrees with the trial folders")
        rows.append({"job": job["id"], "benchflow": bf, "recount": ours, "agrees": agrees})
    return rows


def interval_methods(summary: dict) -> list[dict]:
    methods = summary.get("methods") or {}
    headline = summary.get("headline") or {}
    coverage = ((headline.get("coverage") or {}).get("methods")) or {}
    rows = []
    for name, method in methods.items():
        cov = coverage.get(name) or {}
        if method.get("low") is None:
            interval = "undefined" + (f": {method['note']}" if method.get("note") else "")
        else:
            interval = paper.interval_text(method.get("low"), method.get("high"))
        rows.append({
            "name": name,
            "headline": name == headline.get("method"),
            "interval": interval,
            "covers": "tasks and the tries within them" if method.get("over") == "tasks" else "trials, as if independent",
            "worst": pct(cov["worst_coverage"], 1) if cov.get("worst_coverage") is not None else "n/a",
            "width": pct(cov["mean_width"]) if cov.get("mean_width") is not None else "n/a",
        })
    return rows


def solve_rates_sentence(summary: dict) -> str:
    rates = summary.get("solve_rates") or {}
    per_k = rates.get("per_k") or []
    if not per_k:
        return ""
    parts = [f"k={row.get('k')}: pass@k {pct(row.get('pass_at_k'))}, pass^k {pct(row.get('pass_hat_k'))} "
             f"({count(row.get('tasks_at_k', 0), 'task')})" for row in per_k]
    return ("pass@k and pass^k (unbiased estimators over tasks with at least k trials; descriptive, not the headline): "
            + "; ".join(parts) + ".")


@functools.cache
def task_interval(passed: int, trials: int, confidence: float) -> str:
    """A task's Wilson interval as text; tasks share few (passed, trials) pairs, and each interval
    costs a normal quantile."""
    interval = wilson(passed, trials, confidence)
    return paper.interval_text(interval["low"], interval["high"])


def listed(rows: list, limit: int = LISTED_ROWS) -> tuple[list, int]:
    """The first `limit` rows, and how many are left out."""
    return rows[:limit], max(0, len(rows) - limit)


def trials_sentence(summary: dict, page: dict, tasks: int) -> str:
    setting = summary["setting"]
    left_out = summary["counts"]["left_out_by_controls"]
    total, listed_trials = summary["counts"]["trials"] + left_out, page["listed_trials"]
    where = (f"Every trial is in results/reports/{setting}/trials.json and in "
             f"results/reports/{setting}/report.md, under Trials.")
    if listed_trials == total:
        text = f"All {count(total, 'trial')} are listed once, under their task: open a task for its trials"
        if left_out:
            text += (f" ({total - left_out:,} counted, in this table; {left_out:,} left out by the controls, in the "
                     "table after it)")
        return f"{text}. {where}"
    return (f"The trials of the first {page['listed_tasks']:,} of {count(tasks, 'task')} are listed once, under their "
            f"task ({listed_trials:,} of {count(total, 'trial')}): open a task for its trials. The other "
            f"{total - listed_trials:,} are not in this page, to keep it small; every task's row still gives the "
            f"reward of each of its trials. {where}")


def setting_section(summary: dict, page: dict) -> dict:
    setting = summary["setting"]
    confidence = summary.get("confidence", 0.95)
    per_task = []
    for row in summary["per_task"]:
        per_task.append({
            "task": row["task"],
            "anchor": task_anchor(setting, row["task"]),
            "trials": row["trials"],
            "passed": row["passed"],
            "rate": pct(row["rate"]),
            "rate_value": row["rate"],
            "interval": task_interval(row["passed"], row["trials"], confidence),
            "rewards": " ".join(reward(value) for value in row.get("rewards", [])),
            "controls": row.get("controls") or "(a control itself)",
            "trial_rows": page["listed"].get(row["task"]),
        })
    excluded = excluded_by_controls(summary, page)
    sentences = headline_sentences(summary)
    left_out, left_out_hidden = listed(summary.get("left_out") or [])
    # the checklist arrives escaped from completeness.render_html; Markup keeps it as HTML
    checklist = Markup(completeness.render_html(summary["completeness"])) if summary.get("completeness") else None
    return {
        "completeness": checklist,
        "setting": setting,
        "description": summary["description"],
        "control": summary["settings"].get("control"),
        "anchor": setting_anchor(setting),
        "trials_anchor": trials_anchor(setting),
        "per_task_anchor": per_task_anchor(setting),
        "controls_anchor": anchor("controls", setting),
        "first": sentences["first"],
        "method": sentences["method"],
        "warnings": summary.get("warnings") or [],
        "controls": controls_sentences(summary),
        "per_task": per_task,
        "excluded": excluded,
        "trials_sentence": trials_sentence(summary, page, len(per_task) + len(excluded)),
        "level": paper.level(confidence),
        "outcomes": outcomes_sentence(summary),
        "usage": usage_sentence(summary),
        "sampling": sampling_sentence(summary),
        "seeds": seeds_sentence(summary),
        "methods": interval_methods(summary),
        "solve_rates": solve_rates_sentence(summary),
        "fields": setting_fields(summary),
        "jobs": [job["id"] for job in summary.get("job_folders", [])],
        "environment": len(summary.get("environment") or []),
        "left_out": left_out,
        "left_out_hidden": left_out_hidden,
        "crosscheck": crosscheck_rows(summary),
        "differences": page["differences"],
        "differences_hidden": page["differences_hidden"],
    }


# ---------------------------------------------------------------------------------------------
# the page


def global_environment(summaries: list[dict]) -> list[dict]:
    """Each distinct environment row of every setting once, with the settings it is a row of (the
    setting sections point here instead of repeating it)."""
    rows = {}
    for summary in paper.ordered(summaries):
        for row in summary.get("environment") or []:
            shown = environment_row(row)
            key = (shown["task"], shown["reference"], shown["image"],
                   *(str(shown[field]) for field in sorted(shown) if field not in ("task", "reference", "image")))
            entry = rows.setdefault(key, shown | {"settings": []})
            entry["settings"].append({"description": summary["description"], "anchor": setting_anchor(summary["setting"])})
    return [rows[key] for key in sorted(rows)]


def controls_overview(summaries: list[dict]) -> list[dict]:
    """Per agent setting, its tasks' control verdicts: the failed ones first, at most LISTED_ROWS
    (the per-task tables carry every task's verdict in their Controls column)."""
    rows = []
    for summary in paper.ordered(summaries):
        if paper.is_control(summary):
            continue
        controls = summary.get("controls") or {}
        per_task = sorted((controls.get("per_task") or {}).items())
        if len(per_task) > LISTED_ROWS:
            per_task.sort(key=lambda item: item[1].get("verdict") != "failed")  # stable: by name within
        shown, _ = listed(per_task)
        hidden: dict[str, int] = {}
        for _task, entry in per_task[len(shown):]:
            verdict = entry.get("verdict") or "none"
            hidden[verdict] = hidden.get(verdict, 0) + 1
        rows.append({
            "description": summary["description"],
            "anchor": anchor("controls", summary["setting"]),
            "section": setting_anchor(summary["setting"]),
            "status": paper.controls_status(summary),
            "policy": controls.get("policy") or "—",
            "tasks": [
                {
                    "task": task,
                    "verdict": entry.get("verdict"),
                    "oracle": _control_cell(entry.get("oracle")),
                    "nop": _control_cell(entry.get("nop")),
                    "failures": "; ".join(entry.get("failures") or []),
                    "link": task_anchor(summary["setting"], task),
                }
                for task, entry in shown
            ],
            "hidden": ", ".join(f"{verdict} {n:,}" for verdict, n in sorted(hidden.items())),
            "hidden_count": sum(hidden.values()),
            "per_task_anchor": per_task_anchor(summary["setting"]),
        })
    return rows


def _control_cell(entry: dict | None) -> str:
    if not entry or not entry.get("trials"):
        return "—"
    text = f"{entry.get('passed', 0)}/{entry['trials']}"
    if entry.get("errored"):
        text += f" ({entry['errored']} errored)"
    return text


def ledger_settings(summaries: list[dict]) -> dict[tuple[str, str], list[dict]]:
    """(job, folder) -> the settings whose summary lists that ledger row."""
    found: dict[tuple[str, str], list[dict]] = {}
    for summary in paper.ordered(summaries):
        for row in summary.get("left_out") or []:
            if row.get("job"):
                found.setdefault((row["job"], row.get("folder", "")), []).append(
                    {"description": summary["description"], "anchor": setting_anchor(summary["setting"])})
    return found


def comparison_sections(comparisons: dict, summaries: list[dict]) -> list[dict]:
    by_id = {summary["setting"]: summary for summary in summaries}
    sections = []
    for pair in comparisons.get("pairs", []):
        row = paper.comparison_row(pair)
        per_task = pair.get("per_task", [])
        largest = len(per_task) > LISTED_ROWS
        if largest:  # the tasks that differ most, then by name
            per_task = sorted(per_task, key=lambda r: (-abs(r.get("difference") or 0), r["task"]))[:LISTED_ROWS]
        sections.append({
            "anchor": anchor("pair", pair["a"], pair["b"]),
            "cells": paper.comparisons_cells(row),
            "a_anchor": setting_anchor(pair["a"]) if pair["a"] in by_id else None,
            "b_anchor": setting_anchor(pair["b"]) if pair["b"] in by_id else None,
            "per_task": [
                {
                    "task": r["task"],
                    "a": pct(r.get("rate_a")),
                    "b": pct(r.get("rate_b")),
                    "difference": paper.signed_pp(r.get("difference")),
                    "a_link": task_anchor(pair["a"], r["task"]),
                    "b_link": task_anchor(pair["b"], r["task"]),
                }
                for r in per_task
            ],
            "per_task_total": len(pair.get("per_task", [])),
            "largest": largest,
            "note": pair.get("note"),
            "test": pair.get("test"),
        })
    return sections


def heatmap_table(figures_data: dict) -> dict | None:
    """The heatmap's numbers as a settings-by-tasks table, up to paper.HEATMAP_NAMED_TASKS tasks
    (above that the per-task tables hold them)."""
    heat = figures_data["heatmap"]
    if len(heat["tasks"]) > paper.HEATMAP_NAMED_TASKS:
        return None
    rows = []
    for row in heat["rows"]:
        cells = []
        for task, entry in zip(heat["tasks"], row["cells"]):
            if entry is None:
                cells.append(None)
            else:
                cells.append({"text": f"{entry['passed']}/{entry['trials']}", "left_out": entry["left_out"],
                              "link": task_anchor(row["setting"], task)})
        rows.append({"description": row["description"], "anchor": setting_anchor(row["setting"]), "cells": cells})
    return {"tasks": heat["tasks"], "rows": rows}


def cost_table(figures_data: dict) -> list[dict]:
    rows = []
    for point in figures_data["cost"]["points"]:
        rows.append({
            "description": point["description"],
            "anchor": trials_anchor(point["setting"]),
            "cost": usd(point["cost"]),
            "interval": paper.interval_text(point["cost_low"], point["cost_high"], usd),
            "tasks": f"{point['tasks_priced']} of {point['tasks_priced'] + len(point['tasks_unpriced'])}",
            "rate": pct(point["rate"]),
            "pareto": "yes" if point["pareto"] else "no",
        })
    return rows


def figure_captions(figures_data: dict) -> dict[str, str]:
    cost = figures_data["cost"]
    methods = sorted({p["method"] or "none defined" for p in figures_data["forest"]})
    without = [w["description"] for w in cost["without_cost"]]
    cost_caption = (
        "Cost against pass rate. Horizontal: the cost of one run over the task set (the sum over the setting's counted "
        "tasks of each task's mean recorded cost per trial) with a percentile bootstrap interval over tasks "
        f"({cost['resamples']:,} resamples, seed {cost['seed']}); vertical: the pass rate with its headline interval. "
        "The dashed staircase is the Pareto frontier of the point estimates."
    )
    cost_caption += (" Not drawn, because no cost was recorded: " + ", ".join(without) + ".") if without else \
        " Every setting recorded a cost."
    return {
        "forest": ("Pass rate per setting with its headline interval (" + "; ".join(methods) + "). Agent settings first, "
                   "controls (squares) after the dashed line."),
        "heatmap": ("Fraction of trials passed per setting and task"
                    + (" (passed/trials in each cell)" if len(figures_data["heatmap"]["tasks"]) <= paper.HEATMAP_NAMED_TASKS
                       else ", tasks numbered in name order")
                    + ". Hatched cells were left out of the setting's pass rate because the task's controls failed; "
                    "grey cells were not run."),
        "cost": cost_caption,
    }


def page_context(summaries: list[dict], pages: dict[str, dict], comparisons: dict, ledger_tsv: str,
                 figures_svg: dict[str, bytes], figures_data: dict) -> dict:
    """pages: setting -> its page_trials."""
    ordered = paper.ordered(summaries)
    confidence = paper.first_confidence(ordered)
    headline = []
    for row in paper.setting_rows(ordered):
        headline.append(row | {
            "cells": paper.settings_cells(row),
            "anchor": setting_anchor(row["setting"]),
            "per_task_anchor": per_task_anchor(row["setting"]),
            "trials_anchor": trials_anchor(row["setting"]),
            "controls_anchor": anchor("controls", row["setting"]) if not row["control"] else setting_anchor(row["setting"]),
        })
    header, ledger = read_ledger(ledger_tsv)
    placed = ledger_settings(ordered)
    ledger, ledger_hidden = listed(ledger, LEDGER_ROWS)
    ledger_rows = [{"cells": [row.get(field) or "—" for field in header],
                    "settings": placed.get((row.get("job", ""), row.get("folder", "")), [])} for row in ledger]
    controls_left_out = []
    for summary in ordered:
        for entry in excluded_by_controls(summary, pages[summary["setting"]]):
            controls_left_out.append({"description": summary["description"], "task": entry["task"],
                                      "trials": entry["n_trials"], "reason": entry["reason"],
                                      "policy": (summary.get("controls") or {}).get("policy"),
                                      "link": entry["anchor"]})
    captions = figure_captions(figures_data)
    figures = [
        {"key": key, "title": title, "caption": captions[key], "uri": svg_data_uri(figures_svg[key]),
         "alt": alt}
        for key, title, alt in (
            ("forest", "Pass rate per setting", "Forest plot: pass rate and headline interval per setting"),
            ("heatmap", "Per-task pass fraction", "Heatmap: fraction of trials passed, setting by task"),
            ("cost", "Cost against pass rate", "Scatter plot: cost of one run against pass rate, with the Pareto frontier"),
        )
    ]
    return {
        "csp": CSP,
        "page_trials": f"{PAGE_TRIALS:,}",
        "level": paper.level(confidence),
        "settings_note": paper.SETTINGS_NOTE,
        "headers": paper.settings_headers(confidence),
        "headline": headline,
        "n_agents": sum(1 for row in headline if not row["control"]),
        "figures": figures,
        "heatmap": heatmap_table(figures_data),
        "heatmap_tasks": len(figures_data["heatmap"]["tasks"]),
        "cost_rows": cost_table(figures_data),
        "cost_method": figures_data["cost"]["method"],
        "comparison_headers": paper.comparisons_headers(confidence),
        "comparisons": comparison_sections(comparisons, ordered),
        "comparisons_note": paper.COMPARISONS_NOTE,
        "sections": [setting_section(summary, pages[summary["setting"]]) for summary in ordered],
        "environment": global_environment(ordered),
        "controls": controls_overview(ordered),
        "ledger_header": header,
        "ledger": ledger_rows,
        "ledger_hidden": ledger_hidden,
        "controls_left_out": controls_left_out,
    }


def _jinja() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def render_page(summaries: list[dict], pages: dict[str, dict], comparisons: dict, ledger_tsv: str,
                figures_svg: dict[str, bytes], figures_data: dict) -> str:
    context = page_context(summaries, pages, comparisons, ledger_tsv, figures_svg, figures_data)
    return _jinja().get_template("report.html.j2").render(**context)
