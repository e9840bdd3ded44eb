"""results/trials.csv: every trial of every setting in one table, for a spreadsheet or pandas.

One row per trial (a trial belongs to one setting): the setting's id and what defines it
(agent, model, effort, dataset, BenchFlow version, sandbox, control), then the trial's own
fields from the setting's trials.json, in that file's order; lists are joined with ";". Text
cells that a spreadsheet would run as a formula (starting with = + - @, a tab or a carriage
return) get a leading apostrophe; text cells are quoted, numbers are written as numbers.
"""

from __future__ import annotations

import csv
import io
import json

from .present import formula_safe, spreadsheet_cell

SETTING_FIELDS = (
    "agent",
    "harness_version",
    "model",
    "reasoning_effort",
    "dataset",
    "benchflow_version",
    "sandbox",
    "control",
)


def flat(value):
    """A trial field as one cell's value: lists joined with ";", objects as JSON."""
    if isinstance(value, list):
        return ";".join("" if item is None else str(item) for item in value)
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True)
    return value


def rows(settings: list[tuple[str, dict, dict]]) -> list[dict]:
    """(setting id, what defines it, trials.json) of each setting -> one dict per trial, settings
    in id order. What defines a setting is its key: stats.json's `key`, which summary.json's
    `settings` holds as it is."""
    table = []
    for setting, key, trials in sorted(settings, key=lambda item: item[0]):
        defined = {field: key.get(field) for field in SETTING_FIELDS}
        for trial in trials["trials"]:
            table.append({"setting": setting, **defined, **{name: flat(value) for name, value in trial.items()}})
    return table


def spreadsheet_safe(value):
    """A cell: numbers as they are, booleans as true/false, text with a formula start escaped."""
    if type(value) is str:  # most cells: spreadsheet_cell's rule, without its type checks
        return formula_safe(value)
    return spreadsheet_cell(("true" if value else "false") if isinstance(value, bool) else value)


def render_csv(table: list[dict]) -> str:
    """The CSV text; its columns are every field any row has, in the order first seen."""
    columns = list(dict.fromkeys(key for row in table for key in row)) or ["setting", *SETTING_FIELDS]
    out = io.StringIO()
    # every text cell quoted, so that a tab, a carriage return or a newline stays inside its cell
    writer = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC)
    writer.writerow(columns)
    for row in table:
        writer.writerow(map(spreadsheet_safe, map(row.get, columns)))
    return out.getvalue()
