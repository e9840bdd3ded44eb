"""results/trials.csv and benchreport.load(): every trial of every setting once, with its
setting; text a spreadsheet would run as a formula is escaped, numbers stay numbers."""

from __future__ import annotations

import csv
import io
import json

import benchreport
import pytest
from benchreport.trials_table import render_csv, rows
from conftest import AGENT_TRIES

HOSTILE = ['=HYPERLINK("http://x")', "+1", "-2+3", "@SUM(A1)", "\tx", "\rx"]


def test_formula_like_text_is_escaped_and_numbers_are_not():
    key = {"agent": "=cmd|' /C calc'!A0", "model": "m"}
    trials = {
        "trials": [
            {"task": text, "reward": -0.5, "tokens": 3, "served_models": ["a", "b"], "left_out": None}
            for text in HOSTILE
        ]
    }
    table = list(csv.DictReader(io.StringIO(render_csv(rows([("s", key, trials)])))))
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
    assert render_csv(rows(from_records)) == (workflow.results / "trials.csv").read_text()

    loaded = benchreport.load(workflow.results)
    assert list(loaded.trials["setting"]) == [row["setting"] for row in table]
    assert loaded.trials["reward"].dtype.kind == "f" and list(loaded.trials.columns) == list(table[0])
    assert sorted(loaded.settings["setting"]) == [report.name for report in reports]
    agent = loaded.settings.set_index("setting").loc[sonnet[0]["setting"]]
    assert (agent["trials"], agent["passed"]) == (9, 6) and agent["pass_rate"] == pytest.approx(2 / 3)
    ledger = (workflow.results / "exclusions.tsv").read_text().splitlines()
    assert list(loaded.exclusions.columns) == ledger[0].split("\t") and len(loaded.exclusions) == len(ledger) - 1
