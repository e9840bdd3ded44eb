"""The paper tables: the comparison table over settings and the paired-comparisons table, in
Markdown, CSV and LaTeX (pure: rows from tables.py in, text out). Everything here reads the
settings' result records (summary.json) and comparisons.json, and computes no number.
"""

from __future__ import annotations

import csv
import io
import re

from ..compute.comparisons import more_data_sentence
from .present import cell, level, method, spreadsheet_cell
from .tables import (
    COMPARISONS_NOTE,
    MISSING,
    comparisons_cells,
    comparisons_headers,
    settings_cells,
    settings_headers,
    settings_note,
)

# A LaTeX cell: plain text, or (text, raw LaTeX suffix) for a footnote mark.
LatexCell = str | tuple[str, str]

# ---------------------------------------------------------------------------------------------
# the comparison table over settings


SETTINGS_CSV_FIELDS = [
    "setting",
    "description",
    "control",
    "pass_rate",
    "solve_threshold",
    "interval_low",
    "interval_high",
    "interval_method",
    "confidence",
    "tasks",
    "trials",
    "passed",
    "total_tokens",
    "trials_with_tokens",
    "cost_usd",
    "trials_with_cost",
    "trials_in_all",
    "cost_per_solved_usd",
    "oracle_passed",
    "oracle_trials",
    "nop_passed",
    "nop_trials",
    "tasks_failing_controls",
    "tasks_controls_unverified",
    "controls",
]


def markdown_table(headers: list[str], rows: list[list[str]], align: str) -> list[str]:
    """A Markdown table, a row of MISSING when there is none; `align` holds one of 'l'/'r' per column."""
    lines = ["| " + " | ".join(headers) + " |", "| " + " | ".join("---:" if a == "r" else "---" for a in align) + " |"]
    lines += ["| " + " | ".join(cell(value) for value in row) + " |" for row in rows or [[MISSING] * len(align)]]
    return lines


SETTINGS_ALIGN = "lrllrrrrl"


def settings_markdown(rows: list[dict], confidence: float) -> str:
    """rows: tables.setting_rows, agent settings first."""
    lines = ["# Settings compared", "", settings_note(rows), ""]
    lines += markdown_table(settings_headers(confidence), [settings_cells(row) for row in rows], SETTINGS_ALIGN)
    return "\n".join(lines) + "\n"


def to_csv(fields: list[str], rows: list[dict]) -> str:
    """RFC 4180 CSV (minimal quoting, \\n line ends); None is an empty field, floats in full, and a
    text a spreadsheet would run as a formula is neutralised (present.spreadsheet_cell)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(fields)
    for row in rows:
        writer.writerow([spreadsheet_cell(row.get(field)) for field in fields])
    return buffer.getvalue()


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
    """Footnote marks for a column whose values repeat, as raw LaTeX after each cell, and the
    notes: one note when all agree, else a, b, ..."""
    distinct = list(dict.fromkeys(values))
    if len(distinct) <= 1:
        return ["" for _ in values], distinct
    letters = {value: chr(ord("a") + index) for index, value in enumerate(distinct)}
    marks = [f"\\textsuperscript{{{letters[value]}}}" for value in values]
    return marks, [f"{letters[value]}: {value}" for value in distinct]


def latex_table(
    headers: list[str],
    body: list[list[LatexCell]],
    align: str,
    notes: list[str],
    comment: str,
    midrule_after: int | None = None,
) -> str:
    """A booktabs tabular; cells are plain text, escaped here, or (text, raw LaTeX suffix) for a
    footnote mark."""

    def render(value: LatexCell) -> str:
        text, raw = value if isinstance(value, tuple) else (value, "")
        return latex_escape(text) + raw

    lines = [
        f"% {comment}",
        "% needs \\usepackage{booktabs}",
        f"\\begin{{tabular}}{{@{{}}{align}@{{}}}}",
        "\\toprule",
        " & ".join(render(h) for h in headers) + " \\\\",
        "\\midrule",
    ]
    for index, row in enumerate(body):
        if midrule_after is not None and index == midrule_after and 0 < index < len(body):
            lines.append("\\midrule")
        lines.append(" & ".join(render(value) for value in row) + " \\\\")
    lines.append("\\bottomrule")
    for note in notes:
        lines.append(
            f"\\multicolumn{{{len(align)}}}{{@{{}}p{{0.95\\linewidth}}}}{{\\footnotesize {latex_escape(note)}}} \\\\"
        )
    lines.append("\\end{tabular}")
    return "\n".join(lines) + "\n"


def settings_latex(rows: list[dict], confidence: float) -> str:
    """rows: tables.setting_rows, agent settings first; the interval's method as a footnote mark."""
    marks, method_notes = _marks([method(row["interval_method"]) for row in rows])
    body: list[list[LatexCell]] = []
    for row, mark in zip(rows, marks):
        cells = settings_cells(row)
        body.append([cells[0], cells[1], (cells[2], mark), *cells[4:]])
    headers = [h for index, h in enumerate(settings_headers(confidence)) if index != 3]
    notes = [f"{level(confidence)} intervals: " + "; ".join(method_notes) + "."] if method_notes else []
    notes.append(settings_note(rows))
    align = SETTINGS_ALIGN[:3] + SETTINGS_ALIGN[4:]  # the method is a footnote mark instead
    return latex_table(
        headers,
        body or [[MISSING] * len(align)],
        align,
        notes,
        "results/paper/settings.tex, generated by benchreport from the settings' summary.json",
        midrule_after=sum(not row["control"] for row in rows),
    )


# ---------------------------------------------------------------------------------------------
# the paired-comparisons table


COMPARISONS_CSV_FIELDS = [
    "a",
    "b",
    "a_description",
    "b_description",
    "shared_tasks",
    "only_in_a",
    "only_in_b",
    "mean_difference",
    "permutation_low",
    "permutation_high",
    "bootstrap_low",
    "bootstrap_high",
    "bootstrap_method",
    "t_low",
    "t_high",
    "t_method",
    "p_value",
    "p_value_holm",
    "smallest_p_value",
    "minimum_detectable_difference",
    "test",
    "note",
]

COMPARISONS_ALIGN = "llrrrrlllrrrl"


def comparisons_markdown(rows: list[dict], confidence: float) -> str:
    lines = ["# Paired comparisons", "", COMPARISONS_NOTE, ""]
    lines += markdown_table(
        comparisons_headers(confidence), [comparisons_cells(row) for row in rows], COMPARISONS_ALIGN
    )
    if not rows:
        lines += ["", "No pair of agent settings to compare."]
    for row in rows:
        if row["more_data"]:
            lines += [
                "",
                f"{cell(row['a_description'])} vs {cell(row['b_description'])}: {more_data_sentence(row['more_data'])}",
            ]
    return "\n".join(lines) + "\n"


def comparisons_latex(rows: list[dict], confidence: float) -> str:
    """The test of each pair as a footnote mark on its p-value."""
    cells = [comparisons_cells(row) for row in rows]
    marks, test_notes = _marks([row[-1] or "none" for row in cells])
    body: list[list[LatexCell]] = [[*row[:9], (row[9], mark), *row[10:12]] for row, mark in zip(cells, marks)]
    notes = [COMPARISONS_NOTE]
    if test_notes:
        notes.append("p-values: " + "; ".join(test_notes) + ".")
    align = COMPARISONS_ALIGN[:-1]  # the test is a footnote mark instead
    return latex_table(
        comparisons_headers(confidence)[:-1],
        body or [[MISSING] * len(align)],
        align,
        notes,
        "results/paper/comparisons.tex, generated by benchreport from comparisons.json",
    )
