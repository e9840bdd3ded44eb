"""Figures of the paper outputs with matplotlib, byte for byte the same on every run.

Determinism: matplotlib's defaults (not the user's matplotlibrc), the Agg and SVG backends, the
DejaVu Sans shipped with matplotlib, text drawn as paths, a fixed `svg.hashsalt` for the ids in the
SVG, and no date or version in the SVG or PNG metadata. Figures are built on `Figure` objects,
never through pyplot's global state. Each function takes the data of `paper.figures_data`.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import textwrap

import matplotlib
import numpy as np

matplotlib.use("Agg")

from matplotlib import cm, patches, ticker  # noqa: E402
from matplotlib import colors as mcolors  # noqa: E402
from matplotlib.collections import PatchCollection  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from .present import level, method, pct, shortened  # noqa: E402
from .tables import HEATMAP_NAMED_TASKS  # noqa: E402

RC = {
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans"],
    "font.size": 9,
    "svg.fonttype": "path",
    "svg.hashsalt": "benchreport-paper",
    "svg.image_inline": True,
    "text.parse_math": False,  # task and model names are text: a "$" in one is not mathtext
    "axes.spines.top": False,
    "axes.spines.right": False,
    "figure.dpi": 100,
    "savefig.dpi": 150,
}
# per format: the metadata left out (a date or version would change the bytes from run to run)
METADATA = {"svg": {"Date": None, "Creator": None, "Format": None, "Type": None}, "png": {"Software": None}}
AGENT_COLOURS = [
    "#0072B2",
    "#D55E00",
    "#009E73",
    "#CC79A7",
    "#E69F00",
    "#56B4E9",
    "#8C564B",
    "#332288",
    "#117733",
    "#882255",
]
CONTROL_COLOUR = "#6E6E6E"


@contextlib.contextmanager
def style():
    """matplotlib's own defaults plus RC, whatever matplotlibrc the user has; restored after."""
    with matplotlib.rc_context():
        matplotlib.rcdefaults()
        matplotlib.rcParams.update(RC)
        yield


def _render(draw, data) -> dict[str, bytes]:
    """The figure `draw` makes of `data`, as the bytes of each format."""
    found = {}
    with style():
        figure = draw(data)
        for fmt, metadata in METADATA.items():
            buffer = io.BytesIO()
            figure.savefig(buffer, format=fmt, metadata=metadata, bbox_inches="tight", pad_inches=0.1)
            found[fmt] = buffer.getvalue()
    return found


# A label drawn at most this many lines long, a task's name on the heatmap at most this many
# characters: a name of 100,000 characters would make a figure too large to draw (figures.json
# holds every name whole; the cut is marked by an ellipsis).
LABEL_LINES = 4
TASK_LABEL = 60


def wrap(text: str, width: int = 42) -> str:
    shown = shortened(text, width * LABEL_LINES)
    return "\n".join(textwrap.wrap(shown, width)) or shown


def colours(points: list[dict]) -> dict[str, str]:
    """A colour per setting: agents in the Okabe-Ito order, controls grey."""
    agents = itertools.cycle(AGENT_COLOURS)
    return {point["setting"]: CONTROL_COLOUR if point.get("control") else next(agents) for point in points}


def _note(figure: Figure, text: str) -> None:
    """A footnote under the figure (saved with a tight bounding box, so it is kept)."""
    if text:
        figure.text(0.01, -0.01, wrap(text, 140), ha="left", va="top", fontsize=7, color="#444444")


# ---------------------------------------------------------------------------------------------


def draw_forest(data: dict) -> Figure:
    points = data["forest"]
    palette = colours(points)
    n = max(1, len(points))
    figure = Figure(figsize=(8.0, 1.2 + 0.38 * n), layout="constrained")
    axes = figure.add_subplot()
    methods = sorted({method(p["method"]) for p in points})
    for index, point in enumerate(points):
        y = n - 1 - index
        colour = palette[point["setting"]]
        if point["rate"] is None:
            axes.text(50, y, "no task scored", ha="center", va="center", fontsize=8)
            continue
        if point["low"] is not None and point["high"] is not None:
            axes.plot(
                [point["low"] * 100, point["high"] * 100], [y, y], color=colour, linewidth=2.2, solid_capstyle="butt"
            )
        marker = "s" if point["control"] else "o"
        axes.plot([point["rate"] * 100], [y], marker=marker, color=colour, markersize=6, linestyle="none")
        if point["low"] is None or point["high"] is None:
            label = f"{pct(point['rate'])} (no interval)"
        else:
            label = f"{pct(point['rate'])} [{point['low'] * 100:.0f}, {point['high'] * 100:.0f}]"
        if len(methods) > 1:
            label += f"  {method(point['method'])}"
        axes.text(1.02, y, label, transform=axes.get_yaxis_transform(), va="center", fontsize=8)
    controls_start = next((i for i, p in enumerate(points) if p["control"]), None)
    if controls_start:
        axes.axhline(n - controls_start - 0.5, color="#BBBBBB", linewidth=0.8, linestyle=(0, (4, 3)))
    axes.set_yticks(range(n))
    axes.set_yticklabels(
        [wrap(p["description"], 48) + (" *" if p["control"] else "") for p in reversed(points)], fontsize=8
    )
    axes.set_ylim(-0.6, n - 0.4)
    _percent_scale(axes, "x")
    axes.grid(axis="x", color="#E5E5E5", linewidth=0.6)
    axes.set_axisbelow(True)
    method_text = methods[0] if len(methods) == 1 else "per setting, named on the right"
    axes.set_xlabel(f"Pass rate (mean over tasks) with its headline interval: {method_text}", fontsize=8)
    axes.set_title("Pass rate per setting", fontsize=10, loc="left")
    _note(figure, "* control (oracle or nop). Square markers: controls; circles: agent settings.")
    if not points:
        axes.text(50, 0, "no setting", ha="center", va="center")
    return figure


def _percent_scale(axes, axis: str) -> None:
    """The "x" or "y" axis from 0% to 100%, a tick every 20 points."""
    getattr(axes, f"set_{axis}lim")(-2, 102)
    getattr(axes, f"set_{axis}ticks")([0, 20, 40, 60, 80, 100])
    getattr(axes, f"set_{axis}ticklabels")(["0%", "20%", "40%", "60%", "80%", "100%"])


# Above this many tasks the columns get no white separators (they would hide cells a pixel wide).
HEATMAP_SEPARATED_TASKS = 120


def heatmap_grid(heat: dict) -> tuple:
    """(rates, left_out): rows x tasks arrays; rates masked where a setting did not run a task."""
    rows, n_tasks = heat["rows"], len(heat["tasks"])
    rates = np.zeros((len(rows), n_tasks))
    missing = np.ones((len(rows), n_tasks), dtype=bool)
    left_out = np.zeros((len(rows), n_tasks), dtype=bool)
    for r, row in enumerate(rows):
        for c, entry in enumerate(row["cells"]):
            if entry is not None:
                rates[r, c] = entry["rate"]
                missing[r, c] = False
                left_out[r, c] = bool(entry["left_out"])
    return np.ma.masked_array(rates, mask=missing), left_out


def draw_heatmap(data: dict) -> Figure:
    """One image for the cells (one draw call whatever the number of tasks), the left-out cells
    hatched by one collection, passed/trials written in the cells and every task named only up to
    tables.HEATMAP_NAMED_TASKS tasks (above it the columns are numbered, tasks in name order as in
    figures.json)."""
    heat = data["heatmap"]
    tasks, rows = heat["tasks"], heat["rows"]
    n_rows, n_tasks = max(1, len(rows)), max(1, len(tasks))
    labelled = len(tasks) <= HEATMAP_NAMED_TASKS
    labels = [shortened(task, TASK_LABEL) for task in tasks]
    # a column per task, wide enough for its name where named
    if labelled:
        width = max(7.0, 3.2 + 0.38 * n_tasks)
        label_height = 0.065 * max((len(label) for label in labels), default=4)
    else:
        width = max(7.0, min(16.0, 3.2 + 0.1 * n_tasks))
        label_height = 0.3
    figure = Figure(figsize=(width, 1.9 + 0.36 * n_rows + label_height), layout="constrained")
    axes = figure.add_subplot()
    cmap = matplotlib.colormaps["viridis"].with_extremes(bad="#F2F2F2")
    norm = mcolors.Normalize(vmin=0, vmax=1)
    # the cells as one image, separated by white lines, the left-out ones hatched
    rates, left_out = heatmap_grid(heat)
    if rows and tasks:
        # row 0 on top; interpolation "none": SVG keeps one pixel per cell, drawn pixelated
        axes.imshow(
            rates,
            cmap=cmap,
            norm=norm,
            aspect="auto",
            interpolation="none",
            origin="upper",
            extent=(-0.5, n_tasks - 0.5, n_rows - 0.5, -0.5),
        )
    separated = len(tasks) <= HEATMAP_SEPARATED_TASKS
    axes.set_xticks([x + 0.5 for x in range(n_tasks - 1)] if separated else [], minor=True)
    axes.set_yticks([y + 0.5 for y in range(n_rows - 1)], minor=True)
    axes.grid(which="minor", axis="both" if separated else "y", color="white", linewidth=1)
    hatched = [patches.Rectangle((c - 0.5, r - 0.5), 1, 1) for r, c in zip(*left_out.nonzero())]
    if hatched:
        axes.add_collection(
            PatchCollection(hatched, facecolor="none", edgecolor="white", hatch="////", linewidth=1 if separated else 0)
        )
    if labelled:
        # passed/trials in each cell, white on a dark cell
        for r, row in enumerate(rows):
            for c, entry in enumerate(row["cells"]):
                if entry is None:
                    continue
                light = mcolors.rgb_to_hsv(cmap(norm(entry["rate"]))[:3])[2] < 0.6 or entry["rate"] < 0.55
                axes.text(
                    c,
                    r,
                    f"{entry['passed']}/{entry['trials']}",
                    ha="center",
                    va="center",
                    fontsize=6.5,
                    color="white" if light else "black",
                )
        axes.set_xticks(range(len(tasks)))
        axes.set_xticklabels(labels, rotation=60, ha="right", rotation_mode="anchor", fontsize=7)
    else:  # task numbers from 1 along the x axis: the first task, then round numbers
        numbers = [max(1, int(v)) for v in ticker.MaxNLocator(nbins=10, integer=True).tick_values(1, len(tasks))]
        numbers = sorted({n for n in numbers if 1 <= n <= len(tasks)} | {1})
        axes.set_xticks([n - 1 for n in numbers])
        axes.set_xticklabels([f"{n:,}" for n in numbers], fontsize=7)
        axes.set_xlabel(
            f"Task 1 to {len(tasks):,}, in name order (too many to name here; the names are in figures.json, "
            "heatmap.tasks)",
            fontsize=7.5,
        )
    axes.set_xlim(-0.5, n_tasks - 0.5)
    axes.set_ylim(n_rows - 0.5, -0.5)
    axes.set_yticks(range(len(rows)))
    axes.set_yticklabels(
        [wrap(row["description"], 44) + (" *" if row["control"] else "") for row in rows], fontsize=7.5
    )
    for side in ("top", "right", "left", "bottom"):
        axes.spines[side].set_visible(False)
    axes.tick_params(which="both", length=0)
    controls_start = next((i for i, row in enumerate(rows) if row["control"]), None)
    if controls_start:
        axes.axhline(controls_start - 0.5, color="black", linewidth=1.2)
    figure.colorbar(
        cm.ScalarMappable(norm=norm, cmap=cmap), ax=axes, label="Fraction of trials passed", fraction=0.03, pad=0.01
    )
    axes.set_title("Per-task pass fraction" + (" (passed/trials)" if labelled else ""), fontsize=10, loc="left")
    _note(
        figure,
        "* control. Hatched: left out of the setting's pass rate because the task's controls failed. "
        "Light grey: the setting did not run the task.",
    )
    return figure


def draw_cost(data: dict) -> Figure:
    cost = data["cost"]
    points = cost["points"]
    palette = colours(data["forest"])
    figure = Figure(figsize=(8.0, 5.0), layout="constrained")
    axes = figure.add_subplot()
    for point in points:  # at its cost and pass rate, with both intervals as error bars
        colour = palette.get(point["setting"], AGENT_COLOURS[0])
        yerr = None
        if point["rate_low"] is not None and point["rate_high"] is not None:
            yerr = [[(point["rate"] - point["rate_low"]) * 100], [(point["rate_high"] - point["rate"]) * 100]]
        axes.errorbar(
            [point["cost"]],
            [point["rate"] * 100],
            xerr=[[point["cost"] - point["cost_low"]], [point["cost_high"] - point["cost"]]],
            yerr=yerr,
            fmt="o",
            color=colour,
            ecolor=colour,
            elinewidth=1.3,
            capsize=3,
            markersize=6,
            label=wrap(point["description"], 90) + (" (on the frontier)" if point["pareto"] else ""),
        )
    _percent_scale(axes, "y")
    if points:  # the best pass rate reachable at each cost: a staircase through the frontier's settings
        high = max(p["cost_high"] for p in points)
        right = high * 1.08 if high > 0 else 1.0
        axes.set_xlim(0, right)
        frontier = [p for setting in cost["frontier"] for p in points if p["setting"] == setting]
        xs = [p["cost"] for p in frontier] + [right]
        ys = [p["rate"] * 100 for p in frontier] + [frontier[-1]["rate"] * 100]
        axes.step(
            xs,
            ys,
            where="post",
            color="#333333",
            linewidth=1,
            linestyle=(0, (4, 2)),
            zorder=0,
            label="Pareto frontier: no other setting is both cheaper and better",
        )
        axes.plot(
            xs[:-1],
            ys[:-1],
            linestyle="none",
            marker="o",
            markersize=11,
            markerfacecolor="none",
            markeredgecolor="#333333",
            markeredgewidth=1,
            zorder=3,
        )
    else:
        axes.set_xlim(0, 1)
        axes.text(0.5, 50, "no setting recorded a cost", ha="center", va="center")
    axes.xaxis.set_major_formatter(ticker.FuncFormatter(lambda value, _: f"${value:,.2f}"))
    axes.grid(color="#E5E5E5", linewidth=0.6)
    axes.set_axisbelow(True)
    axes.set_xlabel(
        "Cost of one run over the task set (USD): sum over tasks of mean cost per trial"
        + (f", {level(cost['confidence'])} bootstrap over tasks" if cost["confidence"] else ""),
        fontsize=8,
    )
    axes.set_ylabel("Pass rate, headline interval", fontsize=8)
    axes.set_title("Cost against pass rate", fontsize=10, loc="left")
    if points:
        axes.legend(loc="upper left", bbox_to_anchor=(0.0, -0.12), fontsize=7, frameon=False, ncol=1)
    # which settings are not drawn for want of a cost, and which are drawn at a partial one
    without = [w["description"] for w in cost["without_cost"]]
    note = f"Not drawn, no cost recorded: {', '.join(without)}." if without else ""
    partial = [p for p in cost["points"] if p["tasks_unpriced"]]
    if partial:
        note += (
            " Cost covers only the priced tasks of: "
            + ", ".join(
                f"{p['description']} ({p['tasks_priced']} of {p['tasks_priced'] + len(p['tasks_unpriced'])})"
                for p in partial
            )
            + "."
        )
    _note(figure, note.strip())
    return figure


def render_all(data: dict) -> dict[str, dict[str, bytes]]:
    """{"forest": {"svg": bytes, "png": bytes}, "heatmap": {...}, "cost": {...}}."""
    return {
        "forest": _render(draw_forest, data),
        "heatmap": _render(draw_heatmap, data),
        "cost": _render(draw_cost, data),
    }
