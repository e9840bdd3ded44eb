"""The Trial record (benchreport/trial.py) is what ingest writes: every row of the real BenchFlow
0.7.12 folders and of the generated example matches it, and a row that does not is named."""

from __future__ import annotations

import pytest
from benchreport import discover, ingest, trial
from conftest import EXAMPLE

ROOTS = [str(EXAMPLE / name) for name in ("benchflow-real-jobs", "benchflow-samples", "generated")]


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    found = []
    for job in discover.find_job_folders(ROOTS):
        found += ingest.ingest_job(job)["trials"]
    return found


def test_every_ingested_row_is_a_trial_record(rows):
    assert len(rows) > 100
    assert {f"{row['job']}/{row['folder']}": found for row in rows if (found := trial.problems(row))} == {}
    # the record is the whole row: every field occurs, and each optional one is set somewhere
    assert set().union(*(row.keys() for row in rows)) == set(trial.FIELDS)
    assert any(row["cost_usd"] is not None for row in rows) and any(row["reward"] is None for row in rows)


def test_a_row_that_breaks_the_record_is_named(rows):
    row = dict(rows[0])
    del row["task"]
    row["attempts"] = True  # a bool is not a count
    row["cost_usd"] = "0.1"
    row["stray"] = 1
    found = trial.problems(row)
    assert "missing field task" in found and "field stray is not a Trial field" in found
    assert any(p.startswith("attempts is bool") for p in found) and any(p.startswith("cost_usd is str") for p in found)
    with pytest.raises(TypeError, match=f"{row['folder']} breaks the Trial record: missing field task"):
        trial.check_rows([rows[1], row])
    trial.check_rows(rows[:2])
