"""results/trials.csv: every trial of every setting in one table, for a spreadsheet or pandas.

One row per trial (a trial belongs to one setting): the setting's id and what defines it, then
the trial's own fields from the setting's trials.json, in that file's order; lists are joined
with ";". Text cells are quoted and kept from running as a formula, numbers written as numbers.
"""

from __future__ import annotations

import csv
import io
import json
from operator import itemgetter

from ..read.settings import KEY_FIELDS
from .present import formula_safe, spreadsheet_cell

# the setting's key as cells: each field of settings.KEY_FIELDS but the agent env (an object the
# setting id stands for), whether it is a control last
SETTING_FIELDS = (*(field for field in KEY_FIELDS if field not in ("control", "agent_env")), "control")


def flat(value):
    """A trial field as one cell's value: lists joined with ";", objects as JSON."""
    if isinstance(value, list):
        return ";".join("" if item is None else str(item) for item in value)
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True)
    return value


def columns(settings: list[tuple[str, dict, dict]]) -> dict[str, list]:
    """(setting id, what defines it, trials.json) of each setting -> the table, unescaped, by
    column: one row per trial, settings in id order; the setting's id and what defines it first,
    then every field any trial has, in the order first seen; a cell is the trial's own field
    (flat), else the setting's, else None. What defines a setting is its key: stats.json's `key`,
    which summary.json's `settings` holds as it is.

    Made a setting's field at a time, its values' types asked once (set(map(type, ...))): the
    table holds a cell per trial and field, remade whenever a trial changes."""
    ordered = sorted(settings, key=lambda item: item[0])
    shapes = [dict.fromkeys(map(tuple, trials["trials"])) for _, _, trials in ordered]  # the fields of each trial
    table: dict[str, list] = {
        name: []
        for name in ["setting", *SETTING_FIELDS, *(name for shape in shapes for names in shape for name in names)]
    }
    for (setting, key, trials), shape in zip(ordered, shapes, strict=True):
        defined = {"setting": setting, **{field: key.get(field) for field in SETTING_FIELDS}}
        rows = trials["trials"]
        # where every trial has the same fields (as ingest makes them), each field's values at once
        own = {name: list(map(itemgetter(name), rows)) for name in next(iter(shape))} if len(shape) == 1 else {}
        for name, values in table.items():
            if name in own:
                kinds = set(map(type, own[name]))
                values += map(flat, own[name]) if any(issubclass(kind, (list, dict)) for kind in kinds) else own[name]
            elif len(shape) == 1:  # the setting's value
                values += [defined.get(name)] * len(rows)
            else:  # trials of more than one set of fields: cell by cell
                otherwise = defined.get(name)
                values += [flat(trial[name]) if name in trial else otherwise for trial in rows]
    return table


def spreadsheet_safe(value):
    """A cell: numbers as they are, booleans as true/false, text with a formula start escaped."""
    if type(value) is str:  # most cells: spreadsheet_cell's rule, without its type checks
        return formula_safe(value)
    return spreadsheet_cell(("true" if value else "false") if isinstance(value, bool) else value)


def _column_cells(values: list) -> list:
    """spreadsheet_safe of each of a column's values, asked of their types once: text is
    formula_safe's, numbers stay as they are."""
    kinds = set(map(type, values))
    if kinds <= {str}:
        return list(map(formula_safe, values))
    if kinds <= {int, float}:
        return values
    return list(map(spreadsheet_safe, values))


def render_csv(settings: list[tuple[str, dict, dict]]) -> str:
    """The CSV text of the table (columns), each cell spreadsheet_safe."""
    table = columns(settings)
    out = io.StringIO()
    # every text cell quoted, so that a tab, a carriage return or a newline stays inside its cell
    writer = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC)
    writer.writerow(table)
    writer.writerows(zip(*map(_column_cells, table.values())))
    return out.getvalue()
