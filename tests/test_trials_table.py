"""results/trials.csv and benchreport.load(): every trial of every setting once, with its
setting; text a spreadsheet would run as a formula is escaped, numbers stay numbers."""

from __future__ import annotations

import csv
import io
import json

import benchreport
from benchflow_synth import write_matrix
from benchreport.trials_table import render_csv, rows

SETTING = {"agent": "claude-agent-acp", "model": "anthropic/claude-sonnet-4-5",
           "served_model": "claude-sonnet-4-5-20250929", "usage_source": "provider_response",
           "price_source": "litellm"}
HOSTILE = ["=HYPERLINK(\"http://x\")", "+1", "-2+3", "@SUM(A1)", "\tx", "\rx"]


def test_formula_like_text_is_escaped_and_numbers_are_not():
    summary = {"setting": "s", "settings": {"agent": "=cmd|' /C calc'!A0", "model": "m"}}
    trials = {"trials": [{"task": text, "reward": -0.5, "tokens": 3, "served_models": ["a", "b"], "left_out": None}
                         for text in HOSTILE]}
    table = list(csv.DictReader(io.StringIO(render_csv(rows([(summary, trials)])))))
    assert [row["task"] for row in table] == ["'" + text for text in HOSTILE]
    assert {row["agent"] for row in table} == {"'=cmd|' /C calc'!A0"}
    assert {(row["reward"], row["tokens"], row["served_models"], row["left_out"]) for row in table} == {
        ("-0.5", "3", "a;b", "")}


def test_every_trial_once_with_its_setting_and_load_gives_the_same(workflow, real_jobs):
    write_matrix(workflow.path / "jobs" / "agent", alias="sonnet", setting=SETTING, seed=4,
                 start="2026-11-30 10:00:00",
                 tries=[[{"task": task, "attempts": [{"kind": kind}]} for task, kind in
                         (("alpha", "passed"), ("beta", "failed"))]] * 2)
    workflow.run(roots=[*real_jobs, "jobs/agent"])
    reports = sorted((workflow.results / "reports").iterdir())
    expected = [(report.name, trial["job"], trial["folder"]) for report in reports
                for trial in json.loads((report / "trials.json").read_text())["trials"]]
    with open(workflow.results / "trials.csv", newline="") as handle:
        table = list(csv.DictReader(handle))
    assert [(row["setting"], row["job"], row["folder"]) for row in table] == expected
    assert len({(row["job"], row["folder"]) for row in table}) == len(table)  # no trial in two settings
    sonnet = [row for row in table if row["model"] == "anthropic/claude-sonnet-4-5"]
    assert sorted((row["task"], row["outcome"]) for row in sonnet) == [("alpha", "passed")] * 2 + [("beta", "failed")] * 2
    assert (workflow.results / "lineage" / "trials.csv.json").is_file()

    loaded = benchreport.load(workflow.results)
    assert list(loaded.trials["setting"]) == [row["setting"] for row in table]
    assert loaded.trials["reward"].dtype.kind == "f" and list(loaded.trials.columns) == list(table[0])
    assert sorted(loaded.settings["setting"]) == [report.name for report in reports]
    agent = loaded.settings.set_index("setting").loc[sonnet[0]["setting"]]
    assert (agent["trials"], agent["passed"], agent["pass_rate"]) == (4, 2, 0.5)
    ledger = (workflow.results / "exclusions.tsv").read_text().splitlines()
    assert list(loaded.exclusions.columns) == ledger[0].split("\t") and len(loaded.exclusions) == len(ledger) - 1
