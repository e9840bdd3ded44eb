"""Paper outputs as data: the comparison table over settings, the paired-comparisons table, and
the numbers behind each figure (pure: summaries in, rows and text out).

Everything here reads the settings' summary.json and comparisons.json as the report stage wrote
them and recomputes nothing they already hold, except the cost interval of the cost figure (a
percentile bootstrap over tasks, seeded like the pass-rate interval) and the Pareto frontier.
"""

from __future__ import annotations

import csv
import io
import re

import numpy as np

from .render import cell, pct, usd
from .words import count

CONTROL_ORDER = {"oracle": 0, "nop": 1}
MISSING = "—"
# Up to this many tasks the heatmap names every task and writes passed/trials in each cell, and
# report.html gives its numbers as a table of their own; above it neither would be readable.
HEATMAP_NAMED_TASKS = 40

# ---------------------------------------------------------------------------------------------
# ordering and small formatters


def control_kind(summary: dict) -> str | None:
    """The control a setting is (oracle, nop) or None, from its summary.json ("settings") or its
    stats.json ("key"): the figures are drawn from stats.json, so that they need not wait for
    the report stage; the tables and report.html read summary.json."""
    return (summary["settings"] if "settings" in summary else summary["key"]).get("control")


def is_control(summary: dict) -> bool:
    return bool(control_kind(summary))


def ordered(summaries: list[dict]) -> list[dict]:
    """Agent settings first (by setting id), then controls (oracle, nop, others; then by id)."""

    def key(summary):
        control = control_kind(summary)
        return (bool(control), CONTROL_ORDER.get(control, len(CONTROL_ORDER)) if control else 0, summary["setting"])

    return sorted(summaries, key=key)


def level(confidence: float) -> str:
    """0.95 -> '95%'."""
    return f"{confidence * 100:g}%"


def signed_pp(value) -> str:
    """A difference of rates in percentage points, ASCII signs: '+2 pp', '-18 pp'."""
    if value is None:
        return "n/a"
    points = round(value * 100)
    return f"{points:+d} pp" if points else "0 pp"


def interval_text(low, high, formatter=pct) -> str:
    if low is None or high is None:
        return "not defined"
    return f"{formatter(low)} to {formatter(high)}"


def p_text(value) -> str:
    return "n/a" if value is None else f"{value:.3g}"


def tokens_recorded(summary: dict) -> int | None:
    """Total tokens, or None when no trial of the setting recorded usage at all."""
    usage = summary["usage"]
    sources = usage.get("usage_sources") or {}
    total = (usage.get("tokens") or {}).get("total_tokens")
    if sources and set(sources) <= {"unavailable", "None", None} and not total:
        return None
    return total


def controls_status(summary: dict) -> str:
    """'oracle 35/36, nop 1/36; 2 tasks left out' for an agent setting; 'control (oracle)' else."""
    control = control_kind(summary)
    if control:
        return f"control ({control})"
    controls = summary.get("controls")
    if not controls:
        return "no controls"
    parts = []
    for kind in ("oracle", "nop"):
        seen = controls.get(kind) or {"trials": 0, "passed": 0}
        parts.append(f"{kind} {seen['passed']}/{seen['trials']}" if seen["trials"] else f"no {kind}")
    text = ", ".join(parts)
    if all(part.startswith("no ") for part in parts):
        text = "no oracle or nop on these tasks"
    extra = []
    failing = controls.get("tasks_failing_controls") or []
    if failing:
        if controls.get("policy") == "keep":
            extra.append(f"{count(len(failing), 'task')} failing controls, kept")
        else:
            extra.append(f"{count(len(failing), 'task')} left out")
    without = controls.get("tasks_without_control") or []
    if without:
        extra.append(f"no control on {count(len(without), 'task')}")
    return "; ".join([text, *extra])


# ---------------------------------------------------------------------------------------------
# the comparison table over settings


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
        "interval_low": headline.get("low"),
        "interval_high": headline.get("high"),
        "interval_method": headline.get("method"),
        "confidence": summary.get("confidence", 0.95),
        "tasks": counts["tasks"],
        "trials": counts["trials"],
        "passed": counts["passed"],
        "total_tokens": tokens_recorded(summary),
        "cost_usd": usage.get("cost_usd"),
        "cost_per_solved_usd": usage.get("cost_per_passed_trial_usd"),
        "oracle_passed": (controls.get("oracle") or {}).get("passed"),
        "oracle_trials": (controls.get("oracle") or {}).get("trials"),
        "nop_passed": (controls.get("nop") or {}).get("passed"),
        "nop_trials": (controls.get("nop") or {}).get("trials"),
        "tasks_failing_controls": len(controls.get("tasks_failing_controls") or []) if controls else None,
        "controls": controls_status(summary),
    }


def setting_rows(summaries: list[dict]) -> list[dict]:
    return [setting_row(summary) for summary in ordered(summaries)]


def cost_per_solved_text(row: dict) -> str:
    if row["cost_usd"] is None:
        return "n/a (no cost recorded)"
    if row["cost_per_solved_usd"] is None:
        return "n/a (none passed)"
    return usd(row["cost_per_solved_usd"])


def tokens_text(row: dict) -> str:
    return "not recorded" if row["total_tokens"] is None else f"{row['total_tokens']:,}"


SETTINGS_CSV_FIELDS = [
    "setting", "description", "control", "pass_rate", "interval_low", "interval_high", "interval_method",
    "confidence", "tasks", "trials", "passed", "total_tokens", "cost_usd", "cost_per_solved_usd",
    "oracle_passed", "oracle_trials", "nop_passed", "nop_trials", "tasks_failing_controls", "controls",
]


def settings_headers(confidence: float) -> list[str]:
    return ["Setting", "Pass rate", f"{level(confidence)} interval", "Interval method", "Tasks", "Trials",
            "Tokens", "Cost per solved task", "Controls"]


def settings_cells(row: dict) -> list[str]:
    """The formatted cells of one row (plain text; each output format escapes them its way)."""
    return [
        row["description"],
        pct(row["pass_rate"]),
        interval_text(row["interval_low"], row["interval_high"]),
        row["interval_method"] or "none defined",
        f"{row['tasks']:,}",
        f"{row['trials']:,}",
        tokens_text(row),
        cost_per_solved_text(row),
        row["controls"],
    ]


SETTINGS_NOTE = (
    "Pass rate: mean over tasks of each task's fraction of passing trials. Interval: the setting's "
    "headline interval, method named. Tokens: over all attempts. Cost per solved task: the recorded cost "
    "of all the setting's trials divided by its passed trials. Controls: oracle and nop trials passed on "
    "the same tasks, and the tasks left out of the pass rate because a control failed. Agent settings "
    "first, controls after."
)


def markdown_table(headers: list[str], rows: list[list[str]], align: str) -> list[str]:
    """A Markdown table; `align` holds one of 'l'/'r' per column."""
    lines = ["| " + " | ".join(headers) + " |",
             "| " + " | ".join("---:" if a == "r" else "---" for a in align) + " |"]
    lines += ["| " + " | ".join(cell(value) for value in row) + " |" for row in rows]
    return lines


SETTINGS_ALIGN = "lrllrrrrl"


def settings_markdown(rows: list[dict], confidence: float) -> str:
    lines = ["# Settings compared", "", SETTINGS_NOTE, ""]
    agents = [row for row in rows if not row["control"]]
    controls = [row for row in rows if row["control"]]
    body = [settings_cells(row) for row in agents + controls]
    if not body:
        body = [[MISSING] * len(SETTINGS_ALIGN)]
    lines += markdown_table(settings_headers(confidence), body, SETTINGS_ALIGN)
    return "\n".join(lines) + "\n"


def to_csv(fields: list[str], rows: list[dict]) -> str:
    """RFC 4180 CSV (minimal quoting, \\n line ends); None is an empty field, floats in full."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(fields)
    for row in rows:
        writer.writerow(["" if row.get(field) is None else row.get(field) for field in fields])
    return buffer.getvalue()


def settings_csv(rows: list[dict]) -> str:
    return to_csv(SETTINGS_CSV_FIELDS, rows)


# ---------------------------------------------------------------------------------------------
# LaTeX

LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    "—": "---",
    "–": "--",
    "−": "-",
    "×": r"$\times$",
    "\n": " ",
    "\r": " ",
    "\t": " ",
}
_LATEX_PATTERN = re.compile("|".join(re.escape(char) for char in LATEX_SPECIAL))


def latex_escape(text) -> str:
    """Text safe in a LaTeX text-mode cell: every special character escaped, one pass."""
    text = MISSING if text is None or text == "" else str(text)
    return _LATEX_PATTERN.sub(lambda match: LATEX_SPECIAL[match.group(0)], text)


def _marks(values: list[str]) -> tuple[list[str], list[str]]:
    """Footnote letters for a column whose values repeat: one note when all agree, else a, b, ..."""
    distinct = list(dict.fromkeys(values))
    if len(distinct) <= 1:
        return ["" for _ in values], distinct
    letters = {value: chr(ord("a") + index) for index, value in enumerate(distinct)}
    return [letters[value] for value in values], [f"{letters[value]}: {value}" for value in distinct]


def latex_table(headers: list[str], body: list[list[str]], align: str, notes: list[str],
                midrule_after: int | None = None, comment: str = "") -> str:
    """A booktabs tabular; cells are plain text, escaped here, or (text, raw LaTeX suffix) for a
    footnote mark."""

    def render(value) -> str:
        text, raw = value if isinstance(value, tuple) else (value, "")
        return latex_escape(text) + raw

    lines = [f"% {comment}" if comment else "% generated by benchreport", "% needs \\usepackage{booktabs}",
             f"\\begin{{tabular}}{{@{{}}{align}@{{}}}}", "\\toprule",
             " & ".join(render(h) for h in headers) + " \\\\", "\\midrule"]
    for index, row in enumerate(body):
        if midrule_after is not None and index == midrule_after and 0 < index < len(body):
            lines.append("\\midrule")
        lines.append(" & ".join(render(value) for value in row) + " \\\\")
    lines.append("\\bottomrule")
    for note in notes:
        lines.append(f"\\multicolumn{{{len(align)}}}{{@{{}}p{{0.95\\linewidth}}}}{{\\footnotesize {latex_escape(note)}}} \\\\")
    lines.append("\\end{tabular}")
    return "\n".join(lines) + "\n"


def settings_latex(rows: list[dict], confidence: float) -> str:
    agents = [row for row in rows if not row["control"]]
    controls = [row for row in rows if row["control"]]
    ordered_rows = agents + controls
    methods = [row["interval_method"] or "none defined" for row in ordered_rows]
    marks, method_notes = _marks(methods)
    body = []
    for row, mark in zip(ordered_rows, marks):
        cells = settings_cells(row)
        interval = (cells[2], f"\\textsuperscript{{{mark}}}" if mark else "")
        body.append([cells[0], cells[1], interval, *cells[4:]])
    headers = [h for index, h in enumerate(settings_headers(confidence)) if index != 3]
    notes = [f"{level(confidence)} intervals: " + "; ".join(method_notes) + "."] if method_notes else []
    notes.append(SETTINGS_NOTE)
    if not body:
        body = [[MISSING] * 8]
    return latex_table(headers, body, "lrlrrrrl", notes, midrule_after=len(agents),
                       comment="results/paper/settings.tex, generated by benchreport from the settings' summary.json")


# ---------------------------------------------------------------------------------------------
# the paired-comparisons table


def comparison_row(pair: dict) -> dict:
    intervals = pair.get("intervals") or {}
    boot, t = intervals.get("bootstrap") or {}, intervals.get("t") or {}
    return {
        "a": pair["a"],
        "b": pair["b"],
        "a_description": pair.get("a_description", pair["a"]),
        "b_description": pair.get("b_description", pair["b"]),
        "shared_tasks": pair.get("shared"),
        "only_in_a": pair.get("only_in_a"),
        "only_in_b": pair.get("only_in_b"),
        "mean_difference": pair.get("mean_difference"),
        "bootstrap_low": boot.get("low"),
        "bootstrap_high": boot.get("high"),
        "bootstrap_method": boot.get("method"),
        "t_low": t.get("low"),
        "t_high": t.get("high"),
        "t_method": t.get("method"),
        "p_value": pair.get("p_value"),
        "test": pair.get("test") or "",
        "note": pair.get("note") or "",
    }


def comparison_rows(comparisons: dict) -> list[dict]:
    return [comparison_row(pair) for pair in comparisons.get("pairs", [])]


COMPARISONS_CSV_FIELDS = [
    "a", "b", "a_description", "b_description", "shared_tasks", "only_in_a", "only_in_b", "mean_difference",
    "bootstrap_low", "bootstrap_high", "bootstrap_method", "t_low", "t_high", "t_method", "p_value", "test", "note",
]

COMPARISONS_NOTE = (
    "Difference: mean over the tasks both settings ran of (pass rate of B minus pass rate of A), in "
    "percentage points. Intervals are paired over tasks; the p-value is a two-sided sign-flip permutation "
    "test over tasks. Controls are not compared."
)


def comparisons_headers(confidence: float) -> list[str]:
    return ["A", "B", "Shared tasks", "Only A", "Only B", "Difference (B - A)",
            f"{level(confidence)} interval (paired bootstrap)", f"{level(confidence)} interval (paired t)",
            "p-value", "Test"]


def comparisons_cells(row: dict) -> list[str]:
    return [
        row["a_description"],
        row["b_description"],
        "" if row["shared_tasks"] is None else str(row["shared_tasks"]),
        "" if row["only_in_a"] is None else str(row["only_in_a"]),
        "" if row["only_in_b"] is None else str(row["only_in_b"]),
        signed_pp(row["mean_difference"]),
        interval_text(row["bootstrap_low"], row["bootstrap_high"], signed_pp),
        interval_text(row["t_low"], row["t_high"], signed_pp),
        p_text(row["p_value"]),
        row["test"] + (f" ({row['note']})" if row["note"] else ""),
    ]


COMPARISONS_ALIGN = "llrrrrllrl"


def comparisons_markdown(rows: list[dict], confidence: float) -> str:
    lines = ["# Paired comparisons", "", COMPARISONS_NOTE, ""]
    body = [comparisons_cells(row) for row in rows] or [[MISSING] * len(COMPARISONS_ALIGN)]
    lines += markdown_table(comparisons_headers(confidence), body, COMPARISONS_ALIGN)
    if not rows:
        lines += ["", "No pair of agent settings to compare."]
    return "\n".join(lines) + "\n"


def comparisons_csv(rows: list[dict]) -> str:
    return to_csv(COMPARISONS_CSV_FIELDS, rows)


def comparisons_latex(rows: list[dict], confidence: float) -> str:
    tests = [comparisons_cells(row)[-1] or "none" for row in rows]
    marks, test_notes = _marks(tests)
    body = []
    for row, mark in zip(rows, marks):
        cells = comparisons_cells(row)
        p_cell = (cells[8], f"\\textsuperscript{{{mark}}}" if mark else "")
        body.append([*cells[:8], p_cell])
    headers = comparisons_headers(confidence)[:-1]
    notes = [COMPARISONS_NOTE]
    if test_notes:
        notes.append("p-values: " + "; ".join(test_notes) + ".")
    if not body:
        body = [[MISSING] * 9]
    return latex_table(headers, body, "llrrrrllr", notes,
                       comment="results/paper/comparisons.tex, generated by benchreport from comparisons.json")


# ---------------------------------------------------------------------------------------------
# numbers behind the figures


def task_costs(summary: dict) -> tuple[list[float], list[str]]:
    """Per counted task, the mean recorded cost of its counted trials; and the tasks with none."""
    costs, unpriced = [], []
    for row in summary["per_task"]:
        if row["mean_cost_usd"] is None:
            unpriced.append(row["task"])
        else:
            costs.append(float(row["mean_cost_usd"]))
    return costs, unpriced


def bootstrap_total(values: list[float], *, seed: int, resamples: int, confidence: float) -> dict:
    """Percentile bootstrap over tasks of the total: resample whole tasks with replacement (numpy
    PCG64 seeded with `seed`), sum each resample, read the central `confidence` quantiles."""
    data = np.sort(np.asarray(values, dtype=float))
    estimate = float(data.sum())
    if data.size == 0:
        return {"estimate": None, "low": None, "high": None}
    rng = np.random.default_rng(seed)
    totals = np.empty(resamples)
    block = max(1, (1 << 20) // data.size)
    for start in range(0, resamples, block):
        stop = min(resamples, start + block)
        totals[start:stop] = data[rng.integers(0, data.size, size=(stop - start, data.size))].sum(axis=1)
    alpha = 1 - confidence
    low, high = np.quantile(totals, [alpha / 2, 1 - alpha / 2])
    return {"estimate": estimate, "low": float(low), "high": float(high)}


COST_METHOD = (
    "cost of one run over the task set: the sum over the setting's counted tasks of each task's mean "
    "recorded cost per trial; interval: percentile bootstrap resampling whole tasks"
)


def pareto_frontier(points: list[dict]) -> list[str]:
    """Settings no other setting beats on both axes (cost no higher and pass rate no lower, one of
    them strictly), ordered by cost. Each point is {"setting", "cost", "rate"}."""

    def dominates(p, q):
        return p["cost"] <= q["cost"] and p["rate"] >= q["rate"] and (p["cost"] < q["cost"] or p["rate"] > q["rate"])

    front = [q for q in points if not any(dominates(p, q) for p in points if p is not q)]
    return [p["setting"] for p in sorted(front, key=lambda p: (p["cost"], -p["rate"], p["setting"]))]


def cost_points(summaries: list[dict], *, seed: int, resamples: int, confidence: float) -> dict:
    points, without = [], []
    for summary in ordered(summaries):
        headline = summary.get("headline") or {}
        costs, unpriced = task_costs(summary)
        if summary["usage"].get("cost_usd") is None or not costs or summary["pass_rate"]["value"] is None:
            without.append({"setting": summary["setting"], "description": summary["description"],
                            "control": control_kind(summary) or ""})
            continue
        interval = bootstrap_total(costs, seed=seed, resamples=resamples, confidence=confidence)
        points.append({
            "setting": summary["setting"],
            "description": summary["description"],
            "cost": interval["estimate"],
            "cost_low": interval["low"],
            "cost_high": interval["high"],
            "tasks_priced": len(costs),
            "tasks_unpriced": unpriced,
            "rate": summary["pass_rate"]["value"],
            "rate_low": headline.get("low"),
            "rate_high": headline.get("high"),
            "rate_method": headline.get("method"),
        })
    frontier = pareto_frontier([{"setting": p["setting"], "cost": p["cost"], "rate": p["rate"]} for p in points])
    for point in points:
        point["pareto"] = point["setting"] in frontier
    return {
        "method": COST_METHOD,
        "seed": seed,
        "resamples": resamples,
        "confidence": confidence,
        "points": points,
        "frontier": frontier,
        "without_cost": without,
    }


def forest_points(summaries: list[dict]) -> list[dict]:
    """The forest plot's points: the comparison-table rows, under the figure's names."""
    names = {"setting": "setting", "description": "description", "control": "control", "rate": "pass_rate",
             "low": "interval_low", "high": "interval_high", "method": "interval_method", "tasks": "tasks",
             "trials": "trials"}
    return [{name: row[field] for name, field in names.items()} for row in setting_rows(summaries)]


def heatmap_cells(summaries: list[dict]) -> dict:
    """Per setting and task: passed/trials and the fraction; tasks left out by the controls are
    given from their trials with the reason, tasks a setting did not run are null."""
    rows, tasks = [], set()
    for summary in ordered(summaries):
        cells = {}
        for row in summary["per_task"]:
            cells[row["task"]] = {"passed": row["passed"], "trials": row["trials"], "rate": row["rate"], "left_out": None}
        for entry in summary["excluded_by_controls"]:
            cells[entry["task"]] = {"passed": entry["passed"], "trials": entry["trials"],
                                    "left_out": entry["reason"], "rate": entry["passed"] / entry["trials"]}
        tasks.update(cells)
        rows.append({"setting": summary["setting"], "description": summary["description"],
                     "control": control_kind(summary) or "", "cells": cells})
    order = sorted(tasks)
    return {
        "tasks": order,
        "rows": [{k: v for k, v in row.items() if k != "cells"} | {"cells": [row["cells"].get(task) for task in order]}
                 for row in rows],
    }


def figures_data(summaries: list[dict], *, seed: int, resamples: int, confidence: float) -> dict:
    return {
        "schema": "benchreport.paper-figures/1",
        "forest": forest_points(summaries),
        "heatmap": heatmap_cells(summaries),
        "cost": cost_points(summaries, seed=seed, resamples=resamples, confidence=confidence),
    }


def first_confidence(summaries: list[dict], default: float = 0.95) -> float:
    for summary in summaries:
        if summary.get("confidence"):
            return summary["confidence"]
    return default
