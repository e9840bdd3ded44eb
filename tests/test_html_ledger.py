"""The exclusion ledger of results/report.html: the columns of results/exclusions.tsv, the setting
named in one column, linked to its section, on every row that is a row of a setting."""

from __future__ import annotations

import csv
import io
import json
from html.parser import HTMLParser

from benchreport.present.html_setting import setting_anchor
from conftest import REAL_JOB_ROOTS, REAL_ROOTS, agent_on, real_digests


class LedgerTable(HTMLParser):
    """The header cells and rows (each cell's text and link targets) of #ledger-table."""

    def __init__(self):
        super().__init__()
        self.inside, self.header, self.rows, self.cell = False, [], [], None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table" and attrs.get("id") == "ledger-table":
            self.inside = True
        elif self.inside and tag == "tr":
            self.row = []
        elif self.inside and tag in ("td", "th"):
            self.cell = {"text": "", "links": [], "header": tag == "th"}
        elif self.inside and tag == "a" and self.cell is not None:
            self.cell["links"].append(attrs["href"])

    def handle_endtag(self, tag):
        if self.inside and tag == "table":
            self.inside = False
        elif self.inside and tag in ("td", "th"):
            self.row.append(self.cell)
            self.cell = None
        elif self.inside and tag == "tr":
            if self.row and self.row[0]["header"]:
                self.header = [cell["text"] for cell in self.row]
            else:
                self.rows.append(self.row)

    def handle_data(self, data):
        if self.cell is not None:
            self.cell["text"] += data


def test_the_ledger_names_each_rows_settings_in_one_column(real_run_copy):
    """An agent with one unreadable attempt (an attempt row) on a task whose controls cannot
    vouch for it, left out (a task row), beside the real controls, whose images no daemon
    inspects (image rows)."""
    run = real_run_copy
    tries = [[("tiny-hello", "passed"), ("spec-fail", "failed")]] * 3
    agent_on(tries, run.path / "jobs" / "agent", real_digests(run.path / "jobs" / REAL_ROOTS[0]))
    broken = sorted((run.path / "jobs" / "agent").rglob("result.json"))[0]
    broken.write_text("{not json")
    (run.path / "settings.yaml").write_text(json.dumps({"controls": {"on_unverified": "exclude"}}))
    run.run("--configfile", "settings.yaml", roots=[*REAL_JOB_ROOTS, "jobs/agent"])
    table = LedgerTable()
    table.feed(run.read("report.html"))
    tsv = list(csv.DictReader(io.StringIO(run.read("exclusions.tsv")), delimiter="\t"))
    header = run.read("exclusions.tsv").splitlines()[0].split("\t")
    assert table.header == header and [name.lower() for name in header].count("setting") == 1
    assert len(table.rows) == len(tsv) and all(len(row) == len(header) for row in table.rows)

    summaries = [json.loads(path.read_text()) for path in sorted(run.results.glob("reports/*/summary.json"))]
    listed_by = {}
    for summary in summaries:
        for row in summary["left_out"]:
            if row["job"]:
                listed_by.setdefault((row["job"], row["folder"], row["file"]), set()).add(summary["setting"])
    column = header.index("setting")
    for row, cells in zip(tsv, table.rows):
        expected = (
            set(row["setting"].split(", "))
            if row["setting"]
            else listed_by.get((row["job"], row["folder"], row["file"]), set())
        )
        links = cells[column]["links"]
        assert len(links) == len(set(links)), cells[column]
        assert set(links) == {f"#{setting_anchor(setting)}" for setting in expected}, row
    kinds = {row["kind"] for row, cells in zip(tsv, table.rows) if cells[column]["links"]}
    assert {"attempt", "image", "task"} <= kinds, kinds
