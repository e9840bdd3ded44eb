"""results/report.html: one self-contained page over every setting (pure: data in, text out).

Every number links to the trials it came from: a headline number to its setting's section, whose
per-task rows open onto their trials; each trial is listed once. The page stays a few megabytes
however many tries there are: a setting lists the trials of its first tasks up to PAGE_TRIALS
(every task keeps its row, the target of the links), the tables that repeat what the per-task
tables or the ledger hold list at most LISTED_ROWS rows, the ledger LEDGER_ROWS, each saying what
it leaves out and where that is. Jinja2 autoescapes every value; the page's Content Security
Policy allows no script, and it loads nothing from anywhere.
"""

from __future__ import annotations

import base64
import csv
import io
from collections import Counter
from pathlib import Path

import jinja2

from ..record.page import LISTED_ROWS, PAGE_TRIALS, listed
from . import sentences, tables
from .html_setting import (
    anchor,
    breakable,
    environment_row,
    excluded_by_controls,
    per_task_anchor,
    setting_anchor,
    setting_section,
    task_anchor,
    trials_anchor,
)
from .present import interval_text, level, method, pct, signed_pp, usd

TEMPLATES = Path(__file__).parent / "templates"
LEDGER_ROWS = 1000
VERDICT_ORDER = {"fails": 0, "not verified": 1, "holds": 2}  # the controls table lists the worst first
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"


def svg_data_uri(data: bytes) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(data).decode("ascii")


# ---------------------------------------------------------------------------------------------
# the page


def global_environment(summaries: list[dict]) -> list[dict]:
    """Each distinct environment row of every setting once, with the settings it is a row of (the
    setting sections point here instead of repeating it)."""
    rows: dict[tuple, dict] = {}
    for summary in tables.ordered(summaries):
        for row in summary.get("environment") or []:
            shown = environment_row(row)
            key = (
                shown["task"],
                shown["reference"],
                shown["image"],
                *(str(shown[field]) for field in sorted(shown) if field not in ("task", "reference", "image")),
            )
            entry = rows.setdefault(key, shown | {"settings": []})
            entry["settings"].append(
                {"description": summary["description"], "anchor": setting_anchor(summary["setting"])}
            )
    return [rows[key] for key in sorted(rows)]


def controls_overview(summaries: list[dict]) -> list[dict]:
    """Per agent setting, its tasks' control verdicts: the failed ones first, at most LISTED_ROWS
    (the per-task tables carry every task's verdict in their Controls column)."""
    rows = []
    for summary in tables.ordered(summaries):
        if tables.control_kind(summary):
            continue
        controls = summary.get("controls") or {}
        per_task = sorted((controls.get("per_task") or {}).items())
        if len(per_task) > LISTED_ROWS:
            per_task.sort(key=lambda item: VERDICT_ORDER[item[1]["verdict"]])  # stable: by name within
        shown, _ = listed(per_task)
        hidden = Counter(entry.get("verdict") or "none" for _task, entry in per_task[len(shown) :])
        rows.append(
            {
                "description": summary["description"],
                "anchor": anchor("controls", summary["setting"]),
                "section": setting_anchor(summary["setting"]),
                "status": sentences.controls_summary(summary),
                "policy": ", ".join(f"{key}: {value}" for key, value in (controls.get("policy") or {}).items()) or "—",
                "tasks": [
                    {
                        "task": task,
                        "verdict": entry.get("verdict"),
                        "oracle": sentences.control_cell("oracle", entry["oracle"]),
                        "nop": sentences.control_cell("nop", entry["nop"]),
                        "failures": "; ".join(entry["reasons"]),
                        "link": task_anchor(summary["setting"], task),
                    }
                    for task, entry in shown
                ],
                "hidden": ", ".join(f"{verdict} {n:,}" for verdict, n in sorted(hidden.items())),
                "hidden_count": sum(hidden.values()),
                "per_task_anchor": per_task_anchor(summary["setting"]),
            }
        )
    return rows


def comparison_sections(comparisons: dict, summaries: list[dict]) -> list[dict]:
    by_id = {summary["setting"]: summary for summary in summaries}
    sections = []
    for pair in comparisons.get("pairs", []):
        row = tables.comparison_row(pair)
        per_task = pair.get("per_task", [])
        largest = len(per_task) > LISTED_ROWS
        if largest:  # the tasks that differ most, then by name
            per_task = sorted(per_task, key=lambda r: (-abs(r.get("difference") or 0), r["task"]))[:LISTED_ROWS]
        sections.append(
            {
                "anchor": anchor("pair", pair["a"], pair["b"]),
                "cells": tables.comparisons_cells(row),
                "a_anchor": setting_anchor(pair["a"]) if pair["a"] in by_id else None,
                "b_anchor": setting_anchor(pair["b"]) if pair["b"] in by_id else None,
                "per_task": [
                    {
                        "task": r["task"],
                        "a": pct(r.get("rate_a")),
                        "b": pct(r.get("rate_b")),
                        "difference": signed_pp(r.get("difference")),
                        "a_link": task_anchor(pair["a"], r["task"]),
                        "b_link": task_anchor(pair["b"], r["task"]),
                    }
                    for r in per_task
                ],
                "per_task_total": len(pair.get("per_task", [])),
                "largest": largest,
                "note": pair.get("note"),
                "test": pair.get("test"),
            }
        )
    return sections


def heatmap_table(figures_data: dict) -> dict | None:
    """The heatmap's numbers as a settings-by-tasks table, up to tables.HEATMAP_NAMED_TASKS tasks
    (above that the per-task tables hold them)."""
    heat = figures_data["heatmap"]
    if len(heat["tasks"]) > tables.HEATMAP_NAMED_TASKS:
        return None
    rows = []
    for row in heat["rows"]:
        cells = [
            None
            if entry is None
            else {
                "text": f"{entry['passed']}/{entry['trials']}",
                "left_out": entry["left_out"],
                "link": task_anchor(row["setting"], task),
            }
            for task, entry in zip(heat["tasks"], row["cells"])
        ]
        rows.append({"description": row["description"], "anchor": setting_anchor(row["setting"]), "cells": cells})
    return {"tasks": heat["tasks"], "rows": rows}


def figure_captions(figures_data: dict) -> dict[str, str]:
    cost = figures_data["cost"]
    methods = sorted({method(p["method"]) for p in figures_data["forest"]})
    without = [w["description"] for w in cost["without_cost"]]
    cost_caption = (
        "Cost against pass rate. Horizontal: the cost of one run over the task set (the sum over the setting's counted "
        "tasks of each task's mean recorded cost per trial)"
        + (
            f" with a {level(cost['confidence'])} percentile bootstrap interval over tasks ({cost['resamples']:,} "
            f"resamples, seed {cost['seed']})"
            if cost["points"]
            else ""
        )
        + "; vertical: the pass rate with its headline interval. The dashed staircase is the Pareto frontier of the "
        "point estimates."
    )
    cost_caption += (
        (" Not drawn, because no cost was recorded: " + ", ".join(without) + ".")
        if without
        else " Every setting recorded a cost."
    )
    return {
        "forest": (
            "Pass rate per setting with its headline interval (" + "; ".join(methods) + "). Agent settings first, "
            "controls (squares) after the dashed line."
        ),
        "heatmap": (
            "Fraction of trials passed per setting and task"
            + (
                " (passed/trials in each cell)"
                if len(figures_data["heatmap"]["tasks"]) <= tables.HEATMAP_NAMED_TASKS
                else ", tasks numbered in name order"
            )
            + ". Hatched cells were left out of the setting's pass rate by the task's controls; "
            "grey cells were not run."
        ),
        "cost": cost_caption,
    }


def page_context(
    summaries: list[dict],
    pages: dict[str, dict],
    comparisons: dict,
    ledger_tsv: str,
    figures_svg: dict[str, bytes],
    figures_data: dict,
) -> dict:
    """pages: setting -> its page_trials."""
    ordered = tables.ordered(summaries)
    confidence = ordered[0]["confidence"] if ordered else None  # one config, so one level
    captions = figure_captions(figures_data)
    headline = [  # the settings table's rows, each with its cells and the anchors it links to
        row
        | {
            "cells": tables.settings_cells(row),
            "anchor": setting_anchor(row["setting"]),
            "per_task_anchor": per_task_anchor(row["setting"]),
            "trials_anchor": trials_anchor(row["setting"]),
            "controls_anchor": anchor("controls", row["setting"])
            if not row["control"]
            else setting_anchor(row["setting"]),
        }
        for row in tables.setting_rows(ordered)
    ]
    # the exclusion ledger as the tables stage wrote it
    reader = csv.DictReader(io.StringIO(ledger_tsv), delimiter="\t", quoting=csv.QUOTE_NONE)
    ledger, ledger_hidden = listed([dict(row) for row in reader], LEDGER_ROWS)
    header = list(reader.fieldnames or [])
    # each row with the settings its setting column names (overview.combined_ledger)
    shown = {s["setting"]: {"description": s["description"], "anchor": setting_anchor(s["setting"])} for s in ordered}
    ledger_rows = [
        {
            "cells": [(field, row.get(field) or "—") for field in header],
            "settings": [shown[setting] for setting in row["setting"].split(", ") if setting in shown],
        }
        for row in ledger
    ]
    return {
        "csp": CSP,
        "page_trials": f"{PAGE_TRIALS:,}",
        "level": level(confidence),
        "settings_note": tables.settings_note(headline),
        "headers": tables.settings_headers(confidence),
        "headline": headline,
        "n_agents": sum(1 for row in headline if not row["control"]),
        "figures": [
            {"key": key, "title": title, "caption": captions[key], "uri": svg_data_uri(figures_svg[key]), "alt": alt}
            for key, title, alt in (
                ("forest", "Pass rate per setting", "Forest plot: pass rate and headline interval per setting"),
                ("heatmap", "Per-task pass fraction", "Heatmap: fraction of trials passed, setting by task"),
                (
                    "cost",
                    "Cost against pass rate",
                    "Scatter plot: cost of one run against pass rate, with the Pareto frontier",
                ),
            )
        ],
        "heatmap": heatmap_table(figures_data),
        "heatmap_tasks": len(figures_data["heatmap"]["tasks"]),
        "cost_rows": [
            {
                "description": point["description"],
                "anchor": trials_anchor(point["setting"]),
                "cost": usd(point["cost"]),
                "interval": interval_text(point["cost_low"], point["cost_high"], usd),
                "tasks": f"{point['tasks_priced']} of {point['tasks_priced'] + len(point['tasks_unpriced'])}",
                "rate": pct(point["rate"]),
                "pareto": "yes" if point["pareto"] else "no",
            }
            for point in figures_data["cost"]["points"]
        ],
        "cost_method": figures_data["cost"]["method"],
        "comparison_headers": tables.comparisons_headers(confidence),
        "comparisons": comparison_sections(comparisons, ordered),
        "comparisons_note": tables.COMPARISONS_NOTE,
        "sections": [setting_section(summary, pages[summary["setting"]]) for summary in ordered],
        "environment": global_environment(ordered),
        "inspection": sentences.inspection(ordered[0]) if ordered else "",
        "controls": controls_overview(ordered),
        "ledger_header": header,
        "ledger": ledger_rows,
        "ledger_hidden": ledger_hidden,
        "controls_left_out": [  # every task a setting's controls left out
            {
                "description": summary["description"],
                "task": entry["task"],
                "trials": entry["n_trials"],
                "reason": entry["reason"],
                "policy": (summary.get("controls") or {}).get("policy"),
                "link": entry["anchor"],
            }
            for summary in ordered
            for entry in excluded_by_controls(summary, pages[summary["setting"]])
        ],
    }


def render_page(*inputs) -> str:
    """report.html from page_context's inputs."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.globals.update(task_link=task_anchor)
    env.filters.update(breakable=breakable)
    return env.get_template("report.html.j2").render(**page_context(*inputs))
