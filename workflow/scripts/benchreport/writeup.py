"""The sentences a paper prints of a run: the write-up (writeup.md, BenchFlow's write-up shape,
a short line each), what the run did not control and what its task count cannot support (the
run card's `limits`), from the record and the run card, at the record's confidence level."""

from __future__ import annotations

from .present import count, interval_text, level, method, pct, usd
from .sentences import (
    controls_lines,
    cost_measure,
    coverage_text,
    left_out,
    over_trials_label,
    shape_text,
    tries_phrase,
    warning,
)


def not_controlled(card: dict) -> str | None:
    """What the run did not control or record, as one sentence (None when nothing)."""
    settings = card["settings"]
    parts = []
    if not settings["control"]:
        if not settings["sampling_sent"]:
            parts.append(
                "the provider's sampling defaults (no temperature, top_p or max_tokens was recorded in any request)"
            )
        else:
            absent = [item for item in settings["not_recorded"] if item.startswith("sampling:")]
            parts += [item.replace("sampling: ", "the sampling parameters ") for item in absent]
        if not settings["models_served"]:
            parts.append("which model the provider served")
        if not settings["effort_sent"]:
            parts.append("the effort the requests carried")
    if not settings["harness_version"]:
        parts.append("the harness version")
    if not settings["benchflow_version"]:
        parts.append("the BenchFlow version")
    environment = card["environment"]
    if not environment["inspected"]:
        parts.append("the images the tasks ran in (not inspected)")
    elif environment["not_inspected"]:
        parts.append(f"the images of {count(len(environment['not_inspected']), 'task')} (not inspected as they ran)")
    if (card.get("benchmark") or {}).get("basis") == "not recorded":
        parts.append("the benchmark version (only task digests identify the tasks)")
    if not parts:
        return None
    return "Not controlled or not recorded: " + "; ".join(parts) + "."


def task_count_limits(card: dict) -> str | None:
    """What this number of tasks and tries cannot support, from the run's own interval."""
    part, result = card["tasks_and_tries"], card["result"]
    n = part["tasks"]
    if not n:
        return None
    headline = result["headline"]
    target = level(result["confidence"])
    text = f"With {count(n, 'task')}, one task moves the pass rate by {part['one_task_moves_points']:.0f} points"
    if headline.get("width") is not None:
        text += (
            f" and the {target} interval is {headline['width'] * 100:.0f} points wide: this run alone cannot "
            "support a difference between settings smaller than that, and two settings are compared only "
            "paired on their shared tasks"
        )
    text += "."
    if headline.get("reaches_target") is False:
        text += f" No interval method reaches {target} coverage at {count(n, 'task')}, so the interval itself is approximate."
    if part["tasks_under_min_tries"]:
        text += (
            f" {len(part['tasks_under_min_tries'])} of {count(n, 'task')} have fewer than {part['min_tries_wanted']} "
            "tries, too few to tell a hard task from a flaky one."
        )
    return text


def missing_parts(card: dict) -> str | None:
    missing = [item["title"].lower() for item in card["completeness"] if item["status"] == "missing"]
    return ("Missing, so not claimed: " + "; ".join(missing) + ".") if missing else None


def per_task_line(record: dict, listed: int = 12) -> str:
    """'Per task: a 3/3, b 0/3 (...)' up to `listed` tasks; above, how many always, never and
    sometimes passed, and where the list is."""
    rows = record["per_task"]
    if len(rows) <= listed:
        return (
            "Per task: "
            + ", ".join(
                f"{row['task']} {row['passed']}/{row['trials']}"
                + (
                    f" ({count(row['timed_out'], 'try', 'tries')} stopped at the time limit)"
                    if row["timed_out"]
                    else ""
                )
                for row in rows
            )
            + "."
        )
    always = sum(row["passed"] == row["trials"] for row in rows)
    never = sum(row["passed"] == 0 for row in rows)
    return (
        f"Per task: {always} always passed, {never} never passed, {len(rows) - always - never} sometimes "
        f"(each task's count is in report.md and summary.json, per_task)."
    )


def writeup(record: dict, card: dict) -> list[str]:
    """writeup.md, line by line, in the shape BenchFlow's 'Report a result' page gives: the
    number and its uncertainty first, then the conditions."""
    key, c, headline = record["settings"], record["counts"], record["headline"]
    harness = key.get("harness_version") or "harness version not recorded"
    model = key.get("model") or "no model"
    effort = key.get("reasoning_effort") or "the agent's default effort"
    served = ", ".join(record["settings"].get("served_models") or {})
    tries = card["tasks_and_tries"]["tries_per_task"]
    tries_text = (
        tries_phrase(tries["min"]) + " each"
        if tries and tries["min"] == tries["max"]
        else f"{tries['min']} to {tries['max']} tries each"
        if tries
        else "no tries"
    )
    benchmark = card["benchmark"]
    version = (
        f"at {benchmark['text']}"
        if benchmark and benchmark["basis"] != "not recorded"
        else "(benchmark version not recorded)"
    )
    lines = [
        f"{key.get('agent') or 'agent not recorded'} ({harness}) on {model}"
        + (f" (served: {served})" if served else "")
        + f", {effort};",
        f"BenchFlow {key.get('benchflow_version') or '(version not recorded)'} on "
        f"{key.get('sandbox') or 'an unrecorded sandbox'}; {count(c['tasks'], 'task')} {version}, {tries_text} "
        f"({count(c['trials'], 'trial')}), retries as BenchFlow ran them ({count(c['retried'], 'trial')} retried, "
        f"{count(c['attempts'], 'attempt')} in all).",
        "",
        f"{c['passed']} of {count(c['trials'], 'trial')} passed; pass rate {pct(record['pass_rate']['value'])} "
        f"(mean over the {count(c['tasks'], 'task')}). {level(record['confidence'])} interval: "
        f"{interval_text(headline.get('low'), headline.get('high'))} ({method(headline.get('method'))}"
        + (
            f", {coverage_text(headline)} worst-case coverage at {shape_text(headline['coverage'])}"
            if headline.get("coverage")
            else ""
        )
        + ");",
        f"resampled over tasks: {interval_text(record['intervals']['over_tasks'].get('low'), record['intervals']['over_tasks'].get('high'))}; "
        f"Wilson {over_trials_label(c['trials'])}: "
        f"{interval_text(record['intervals']['over_trials'].get('low'), record['intervals']['over_trials'].get('high'))}"
        + (", which tries of one task aren't." if c["trials"] > c["tasks"] else "."),
        per_task_line(record),
    ]
    lines += controls_lines(record)
    lines.append(left_out(record))
    usage = record["usage"]
    tokens = f"Tokens: {usage['tokens_all_attempts']['total']:,} in all"
    per_solved = usage["cost_measures"]["per_solved_task"]
    if usage["cost_measures"]["spent"]["value_usd"] is None:
        reasons = "; ".join(row["reason"] for row in record.get("unpriced_reasons") or []) or "no trial recorded a cost"
        lines.append(f"{tokens}; no cost: {reasons}.")
    else:
        lines.append(
            f"{tokens}; cost {usd(usage['cost_measures']['spent']['value_usd'])} over every attempt, "
            f"{cost_measure(per_solved, not usage['cost_complete'])}."
        )
    for item in record["warnings"]:
        lines.append(f"Warning: {warning(item)}.")
    for sentence in (card["limits"]["not_controlled"], card["limits"]["task_count"], missing_parts(card)):
        if sentence:
            lines.append(sentence)
    return lines
