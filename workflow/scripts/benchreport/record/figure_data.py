"""The numbers behind each figure (results/paper/figures.json), from the settings' stats.json:
the forest plot's points, the heatmap's cells and the cost figure's points with its Pareto
frontier, the only thing decided here. figures.py draws them; report.html prints them.
"""

from __future__ import annotations

from ..present.tables import control_kind, ordered, setting_rows


def pareto_frontier(points: list[dict]) -> list[str]:
    """Settings no other setting beats on both axes (cost no higher and pass rate no lower, one of
    them strictly), ordered by cost. Each point has a "setting", a "cost" and a "rate"."""

    def dominates(p, q):
        return p["cost"] <= q["cost"] and p["rate"] >= q["rate"] and (p["cost"] < q["cost"] or p["rate"] > q["rate"])

    front = [q for q in points if not any(dominates(p, q) for p in points if p is not q)]
    return [p["setting"] for p in sorted(front, key=lambda p: (p["cost"], -p["rate"], p["setting"]))]


def _named(summary: dict) -> dict:
    """A setting as a figure names it: its key, its description and what control it is, if one."""
    return {
        "setting": summary["setting"],
        "description": summary["description"],
        "control": control_kind(summary) or "",
    }


def cost_points(summaries: list[dict]) -> dict:
    """The cost figure: each setting's cost of one run over the task set (its record's `one_run`
    cost measure, with its interval) against its pass rate and headline interval."""
    points, without, measure = [], [], None
    for summary in ordered(summaries):
        headline = summary.get("headline") or {}
        one_run = summary["usage"]["cost_measures"]["one_run"]
        if one_run["value_usd"] is None or summary["pass_rate"]["value"] is None:
            without.append(_named(summary))
            continue
        measure = one_run
        points.append(
            {
                "setting": summary["setting"],
                "description": summary["description"],
                "cost": one_run["value_usd"],
                "cost_low": one_run["interval"]["low"],
                "cost_high": one_run["interval"]["high"],
                "tasks_priced": one_run["denominator_count"],
                "tasks_unpriced": one_run["interval"]["tasks_unpriced"],
                "rate": summary["pass_rate"]["value"],
                "rate_low": headline.get("low"),
                "rate_high": headline.get("high"),
                "rate_method": headline.get("method"),
            }
        )
    frontier = pareto_frontier(points)
    for point in points:
        point["pareto"] = point["setting"] in frontier
    interval = measure["interval"] if measure else None
    return {
        "method": f"{measure['label']}: {measure['numerator']}; interval: {interval['method']}"
        if measure and interval
        else None,
        "seed": interval["seed"] if interval else None,
        "resamples": interval["resamples"] if interval else None,
        "confidence": interval["level"] if interval else None,
        "points": points,
        "frontier": frontier,
        "without_cost": without,
    }


def forest_points(summaries: list[dict]) -> list[dict]:
    """The forest plot's points: the comparison-table rows, under the figure's names."""
    renamed = {"rate": "pass_rate", "low": "interval_low", "high": "interval_high", "method": "interval_method"}
    names = ("setting", "description", "control", "rate", "low", "high", "method", "tasks", "trials")
    return [{name: row[renamed.get(name, name)] for name in names} for row in setting_rows(summaries)]


def heatmap_cells(summaries: list[dict]) -> dict:
    """Per setting and task: passed/trials and the fraction; tasks left out by the controls are
    given from their trials with the reason, tasks a setting did not run are null."""
    rows: list[tuple[dict, dict]] = []  # (the setting as named, its cells by task)
    tasks: set[str] = set()
    for summary in ordered(summaries):
        cells = {}
        for row in summary["per_task"]:
            cells[row["task"]] = {
                "passed": row["passed"],
                "trials": row["trials"],
                "rate": row["rate"],
                "left_out": None,
            }
        for entry in summary["excluded_by_controls"]:
            cells[entry["task"]] = {
                "passed": entry["passed"],
                "trials": entry["trials"],
                "left_out": entry["reason"],
                "rate": entry["rate"],
            }
        tasks.update(cells)
        rows.append((_named(summary), cells))
    order = sorted(tasks)
    return {"tasks": order, "rows": [named | {"cells": [cells.get(task) for task in order]} for named, cells in rows]}


def figures_data(summaries: list[dict]) -> dict:
    return {
        "schema": "benchreport.present.paper-figures/1",
        "forest": forest_points(summaries),
        "heatmap": heatmap_cells(summaries),
        "cost": cost_points(summaries),
    }
