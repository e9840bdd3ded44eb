"""results/trials.csv and benchreport.load(): every trial of every setting once, with its
setting; text a spreadsheet would run as a formula is escaped, numbers stay numbers."""

from __future__ import annotations

import csv
import io
import json

import benchreport
import pytest
from benchreport.present.trials_table import SETTING_FIELDS, render_csv, spreadsheet_safe
from conftest import AGENT_TRIES
from hypothesis import given, settings
from hypothesis import strategies as st

HOSTILE = ['=HYPERLINK("http://x")', "+1", "-2+3", "@SUM(A1)", "\tx", "\rx"]


def test_formula_like_text_is_escaped_and_numbers_are_not():
    key = {"agent": "=cmd|' /C calc'!A0", "model": "m"}
    trials = {
        "trials": [
            {"task": text, "reward": -0.5, "tokens": 3, "served_models": ["a", "b"], "left_out": None}
            for text in HOSTILE
        ]
    }
    table = list(csv.DictReader(io.StringIO(render_csv([("s", key, trials)]))))
    assert [row["task"] for row in table] == ["'" + text for text in HOSTILE]
    assert {row["agent"] for row in table} == {"'=cmd|' /C calc'!A0"}
    assert {(row["reward"], row["tokens"], row["served_models"], row["left_out"]) for row in table} == {
        ("-0.5", "3", "a;b", "")
    }


def test_every_trial_once_with_its_setting_and_load_gives_the_same(agent_run):
    """The real folders and one agent (conftest.AGENT_TRIES: 3 tries of 3 tasks, 6 passed)."""
    workflow = agent_run
    reports = sorted((workflow.results / "reports").iterdir())
    expected = [
        (report.name, trial["job"], trial["folder"])
        for report in reports
        for trial in json.loads((report / "trials.json").read_text())["trials"]
    ]
    with open(workflow.results / "trials.csv", newline="") as handle:
        table = list(csv.DictReader(handle))
    assert [(row["setting"], row["job"], row["folder"]) for row in table] == expected
    assert len({(row["job"], row["folder"]) for row in table}) == len(table)  # no trial in two settings
    sonnet = [row for row in table if row["model"] == "anthropic/claude-sonnet-4-5"]
    assert sorted((row["task"], row["outcome"]) for row in sonnet) == sorted(
        (task, outcome) for row in AGENT_TRIES for task, outcome in row
    )
    assert (workflow.results / "lineage" / "trials.csv.json").is_file()
    # the rule reads what defines each setting from stats.json; the record (summary.json) says the same
    from_records = [
        (summary["setting"], summary["settings"], json.loads((report / "trials.json").read_text()))
        for report in reports
        for summary in [json.loads((report / "summary.json").read_text())]
    ]
    assert render_csv(from_records) == (workflow.results / "trials.csv").read_text()

    loaded = benchreport.load(workflow.results)
    assert list(loaded.trials["setting"]) == [row["setting"] for row in table]
    assert loaded.trials["reward"].dtype.kind == "f" and list(loaded.trials.columns) == list(table[0])
    assert sorted(loaded.settings["setting"]) == [report.name for report in reports]
    agent = loaded.settings.set_index("setting").loc[sonnet[0]["setting"]]
    assert (agent["trials"], agent["passed"]) == (9, 6) and agent["pass_rate"] == pytest.approx(2 / 3)
    ledger = (workflow.results / "exclusions.tsv").read_text().splitlines()
    assert list(loaded.exclusions.columns) == ledger[0].split("\t") and len(loaded.exclusions) == len(ledger) - 1


def table_as_stated(settings: list) -> str:
    """The table as the module's docstring states it, a row and a cell at a time: each trial a row
    of its setting's id, what defines the setting and its own fields (lists joined with ";",
    objects as JSON); columns in the order first seen; each cell spreadsheet_safe."""
    table = []
    for setting, key, trials in sorted(settings, key=lambda item: item[0]):
        defined = {field: key.get(field) for field in SETTING_FIELDS}
        for trial in trials["trials"]:
            flat = {
                name: ";".join("" if item is None else str(item) for item in value)
                if isinstance(value, list)
                else json.dumps(value, sort_keys=True)
                if isinstance(value, dict)
                else value
                for name, value in trial.items()
            }
            table.append({"setting": setting, **defined, **flat})
    columns = list(dict.fromkeys(name for row in table for name in row)) or ["setting", *SETTING_FIELDS]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC)
    writer.writerow(columns)
    for row in table:
        writer.writerow([spreadsheet_safe(row.get(name)) for name in columns])
    return out.getvalue()


SCALAR = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.sampled_from(HOSTILE + ["", "x"])
VALUE = SCALAR | st.lists(SCALAR, max_size=2) | st.dictionaries(st.sampled_from("ab"), SCALAR, max_size=2)
NAMES = st.sampled_from(["task", "reward", "tokens", "model", "setting", "left_out", "served_models"])


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["s2", "s1", "=s"]),
            st.dictionaries(st.sampled_from(SETTING_FIELDS), VALUE, max_size=3),
            st.lists(st.dictionaries(NAMES, VALUE, max_size=4), max_size=4).map(lambda rows: {"trials": rows}),
        ),
        max_size=3,
    )
)
def test_the_table_made_by_column_is_the_table_as_stated(chosen):
    """Settings out of order or sharing an id, trials lacking fields others have, a trial field
    named as a setting's, lists and objects in a trial or in what defines a setting (not joined
    there), booleans, numbers and formula-like text: the same bytes as a row at a time."""
    assert render_csv(chosen) == table_as_stated(chosen)


def test_columns_of_one_kind_with_empty_cells_are_the_table_as_stated():
    """The columns made by one comprehension (numbers or text, each with empty cells) and the
    others (booleans, lists) next to them, in settings of the same fields and of other fields."""
    trials = {
        "trials": [
            {"reward": 1.0, "task": "=x", "ok": True, "tags": ["a", None]},
            {"reward": None, "task": None, "ok": None, "tags": []},
            {"reward": 2, "task": "t", "ok": False, "tags": ["-b"]},
        ]
    }
    ragged = {"trials": [{"reward": None}, {"task": "@y", "tokens": 3}]}
    chosen = [("s", {"model": ["m", 1]}, trials), ("r", {"agent": "+a"}, ragged), ("e", {}, {"trials": []})]
    assert render_csv(chosen) == table_as_stated(chosen)
    assert ',"",' in render_csv(chosen)  # an empty cell is quoted empty text, as the table always wrote it
