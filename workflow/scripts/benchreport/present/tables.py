"""The rows and cells of the tables over settings and over paired comparisons, and the order of
settings, shared by every output that tabulates them (paper.py's Markdown, CSV and LaTeX,
html_report.py's page, figure_data.py's forest plot): a presentation module, like present.py, so
that no renderer imports another. Pure: summaries in, rows (numbers unformatted) and plain-text
cells out; each output format escapes the cells its way.
"""

from __future__ import annotations

from . import sentences
from .present import NOT_RECORDED, count, interval_text, level, method, p_text, pass_rule, pct, points, signed_pp, usd

CONTROL_ORDER = {"oracle": 0, "nop": 1}
MISSING = "—"
# Up to this many tasks the heatmap names every task and writes passed/trials in each cell, and
# report.html gives its numbers as a table of their own; above it neither would be readable.
HEATMAP_NAMED_TASKS = 40


def control_kind(summary: dict) -> str | None:
    """The control a setting is (oracle, nop) or None, from its summary.json ("settings") or its
    stats.json ("key"): the figures are drawn from stats.json, so that they need not wait for
    the report stage; the tables and report.html read summary.json."""
    return (summary["settings"] if "settings" in summary else summary["key"]).get("control")


def ordered(summaries: list[dict]) -> list[dict]:
    """Agent settings first (by setting id), then controls (oracle, nop, others; then by id)."""

    def key(summary):
        control = control_kind(summary)
        return (bool(control), CONTROL_ORDER.get(control, len(CONTROL_ORDER)) if control else 0, summary["setting"])

    return sorted(summaries, key=key)


def setting_row(summary: dict) -> dict:
    """One row of the comparison table, as data (numbers unformatted)."""
    headline = summary.get("headline") or {}
    counts, usage = summary["counts"], summary["usage"]
    controls = summary.get("controls") or {}
    return {
        "setting": summary["setting"],
        "description": summary["description"],
        "control": control_kind(summary) or "",
        "pass_rate": summary["pass_rate"]["value"],
        "solve_threshold": summary["pass_rate"]["solve_threshold"],
        "interval_low": headline.get("low"),
        "interval_high": headline.get("high"),
        "interval_method": headline.get("method"),
        "confidence": summary["confidence"],
        "tasks": counts["tasks"],
        "trials": counts["trials"],
        "passed": counts["passed"],
        "total_tokens": usage["tokens_all_attempts"]["total"],
        "trials_with_tokens": usage["tokens_all_attempts"]["trials_recorded"],
        "cost_usd": usage["cost_measures"]["spent"]["value_usd"],
        "trials_with_cost": usage["trials_priced"],
        "trials_in_all": usage["trials"],
        "cost_per_solved_usd": usage["cost_measures"]["per_solved_task"]["value_usd"],
        "oracle_passed": (controls.get("oracle") or {}).get("passed"),
        "oracle_trials": (controls.get("oracle") or {}).get("trials"),
        "nop_passed": (controls.get("nop") or {}).get("passed"),
        "nop_trials": (controls.get("nop") or {}).get("trials"),
        "tasks_failing_controls": len(controls.get("tasks_failing_controls") or []) if controls else None,
        "tasks_controls_unverified": len(controls.get("tasks_unverified") or []) if controls else None,
        "controls": sentences.controls_summary(summary),
    }


def setting_rows(summaries: list[dict]) -> list[dict]:
    return [setting_row(summary) for summary in ordered(summaries)]


def tokens_text(row: dict) -> str:
    """'28,458,551', '14,728,688 (47 of 48 trials)' where some trials recorded none, 'not recorded'."""
    if row["total_tokens"] is None:
        return NOT_RECORDED
    text = f"{row['total_tokens']:,}"
    if row["trials_with_tokens"] < row["trials_in_all"]:
        text += f" ({row['trials_with_tokens']:,} of {count(row['trials_in_all'], 'trial')})"
    return text


PASS_RATE_NOTE = "Pass rate: mean over tasks of each task's fraction of passing trials"
SETTINGS_NOTE_REST = (
    "Interval: the setting's "
    "headline interval, method named. Tokens: over all attempts of the trials that recorded usage (how many, "
    "where not all did). Cost per solved task: the recorded cost of the counted trials (all their attempts) "
    "divided by the counted tasks with at least one passing trial. Controls: oracle and nop trials passed on the same tasks, and how many tasks' controls hold, "
    "fail or are not verified. Agent settings first, controls after."
)
SETTINGS_NOTE = f"{PASS_RATE_NOTE}. {SETTINGS_NOTE_REST}"


def settings_note(rows: list[dict]) -> str:
    """SETTINGS_NOTE with the rule the rows' pass rates were counted by ("pass = reward ≥ 1.0")."""
    rules = sorted({pass_rule(row["solve_threshold"]) for row in rows})
    return f"{PASS_RATE_NOTE} ({'; '.join(rules)}). {SETTINGS_NOTE_REST}" if rules else SETTINGS_NOTE


def settings_headers(confidence: float | None) -> list[str]:
    return [
        "Setting",
        "Pass rate",
        f"{level(confidence)} interval",
        "Interval method",
        "Tasks",
        "Trials",
        "Tokens",
        "Cost per solved task",
        "Controls",
    ]


def settings_cells(row: dict) -> list[str]:
    """The formatted cells of one row (plain text; each output format escapes them its way)."""
    return [
        row["description"],
        pct(row["pass_rate"]),
        interval_text(row["interval_low"], row["interval_high"]),
        method(row["interval_method"]),
        f"{row['tasks']:,}",
        f"{row['trials']:,}",
        tokens_text(row),
        "n/a (no cost recorded)"
        if row["cost_usd"] is None
        else "n/a (none solved)"
        if row["cost_per_solved_usd"] is None
        else usd(row["cost_per_solved_usd"]),
        row["controls"],
    ]


def comparison_row(pair: dict) -> dict:
    intervals = pair.get("intervals") or {}
    boot, t = intervals.get("bootstrap") or {}, intervals.get("t") or {}
    flips = intervals.get("permutation") or {}
    detectable = pair.get("minimum_detectable_difference") or {}
    return {
        "a": pair["a"],
        "b": pair["b"],
        "a_description": pair.get("a_description", pair["a"]),
        "b_description": pair.get("b_description", pair["b"]),
        "shared_tasks": pair.get("shared"),
        "only_in_a": pair.get("only_in_a"),
        "only_in_b": pair.get("only_in_b"),
        "mean_difference": pair.get("mean_difference"),
        "permutation_low": flips.get("low"),
        "permutation_high": flips.get("high"),
        "bootstrap_low": boot.get("low"),
        "bootstrap_high": boot.get("high"),
        "bootstrap_method": boot.get("method"),
        "t_low": t.get("low"),
        "t_high": t.get("high"),
        "t_method": t.get("method"),
        "p_value": pair.get("p_value"),
        "p_value_holm": pair.get("p_value_holm"),
        "smallest_p_value": pair.get("smallest_p_value"),
        "minimum_detectable_difference": detectable.get("value"),
        # what twice the tasks or twice the tries would detect (comparisons.more_data_sentence)
        "more_data": detectable if detectable.get("more") else None,
        "test": pair.get("test") or "",
        "note": pair.get("note") or "",
    }


def comparison_rows(comparisons: dict) -> list[dict]:
    return [comparison_row(pair) for pair in comparisons.get("pairs", [])]


COMPARISONS_NOTE = (
    "Difference: mean over the tasks both settings ran of (pass rate of B minus pass rate of A), in "
    "percentage points. The p-value is a two-sided within-task permutation test (the A and B labels of a "
    "task's trials permuted within the task, exact whatever the tries), Holm-adjusted over all the pairs "
    "beside it; the permutation interval is that test inverted over a common shift in log-odds, and the one "
    "to read. The paired bootstrap and t intervals are spreads, not tests: at few tasks they exclude a true "
    "difference more often than their level says. Smallest p: the least p-value the shared tasks and tries "
    "allow. Detectable: the difference the test finds with the configured power at these tasks and tries. "
    "Controls are not compared."
)


def comparisons_headers(confidence: float | None) -> list[str]:
    return [
        "A",
        "B",
        "Shared tasks",
        "Only A",
        "Only B",
        "Difference (B - A)",
        f"{level(confidence)} interval (permutation)",
        f"{level(confidence)} spread (paired bootstrap, not a test)",
        f"{level(confidence)} spread (paired t, not a test)",
        "p-value (Holm)",
        "Smallest p",
        "Detectable",
        "Test",
    ]


def comparisons_cells(row: dict) -> list[str]:
    return [
        row["a_description"],
        row["b_description"],
        "" if row["shared_tasks"] is None else str(row["shared_tasks"]),
        "" if row["only_in_a"] is None else str(row["only_in_a"]),
        "" if row["only_in_b"] is None else str(row["only_in_b"]),
        signed_pp(row["mean_difference"]),
        interval_text(row["permutation_low"], row["permutation_high"], signed_pp),
        interval_text(row["bootstrap_low"], row["bootstrap_high"], signed_pp),
        interval_text(row["t_low"], row["t_high"], signed_pp),
        f"{p_text(row['p_value'])} ({p_text(row['p_value_holm'])})",
        p_text(row["smallest_p_value"]),
        points(row["minimum_detectable_difference"]),
        row["test"] + (f" ({row['note']})" if row["note"] else ""),
    ]
