"""Through a real snakemake run: every report carries the ten parts of a checkable result
or says what is missing, and run-card.json / run-summary.json validate against their schemas.

Runs on the real BenchFlow 0.7.12 folders (a script verifier, no dataset version) together with
generated folders that have a rubric reviewer, a dataset version, a budget stop and an unpriced
model (benchflow_synth.build_review_jobs). Expected values come from the job files.
"""

from __future__ import annotations

import json
import re

import benchflow_synth as synth
import jsonschema
import pytest
from conftest import REAL_JOB_ROOTS, REPO
from test_writeup import assert_reads_as_english

SCHEMAS = REPO / "workflow" / "scripts" / "benchreport" / "schemas"


@pytest.fixture(scope="module")
def ran(real_run, tmp_path_factory):
    """The shared real run with the generated review folders added."""
    workflow = real_run.copy(tmp_path_factory.mktemp("parts") / "wf")
    synth.build_review_jobs(workflow.path / "jobs" / "generated")
    workflow.run(roots=[*REAL_JOB_ROOTS, "jobs/generated"])
    reports = {}
    for folder in sorted((workflow.results / "reports").iterdir()):
        card = json.loads((folder / "run-card.json").read_text())
        reports[card["settings"]["agent"] or folder.name, card["settings"]["model_requested"]] = {
            "card": card,
            "report": (folder / "report.md").read_text(),
            "writeup": (folder / "writeup.md").read_text(),
            "run_summary": json.loads((folder / "run-summary.json").read_text()),
        }
    return workflow, reports


def find(reports, agent):
    (match,) = [entry for (name, _), entry in reports.items() if name == agent]
    return match


def load(path):
    return json.loads(path.read_text())


def test_every_report_ends_with_the_ten_part_checklist(ran):
    _, reports = ran
    assert len(reports) >= 4
    for entry in reports.values():
        section = entry["report"].split("## Completeness", 1)[1]
        rows = [
            line for line in section.splitlines() if line.startswith("| ") and not line.startswith(("| Part", "| ---"))
        ]
        assert len(rows) == 10
        statuses = [row.split(" | ")[1] for row in rows]
        assert set(statuses) <= {"present", "partial", "missing"}
        for row, status in zip(rows, statuses):
            missing = row.rstrip(" |").rsplit(" | ", 1)[1]
            assert (missing == "—") == (status == "present"), row  # a partial or missing part says what
        tally = re.search(r"(\d+) of 10 parts present, (\d+) partial, (\d+) missing", section)
        assert tally and [int(x) for x in tally.groups()] == [
            statuses.count(s) for s in ("present", "partial", "missing")
        ]


def test_run_card_and_run_summary_validate(ran):
    _, reports = ran
    card_schema = load(SCHEMAS / "run-card.schema.json")
    summary_schema = load(SCHEMAS / "benchflow-run-summary.v1.schema.json")
    for entry in reports.values():
        jsonschema.Draft202012Validator(card_schema).validate(entry["card"])
        jsonschema.Draft202012Validator(summary_schema).validate(entry["run_summary"])
        assert entry["run_summary"] == entry["card"]["run_summary"]
    # the validator is not a formality: a card missing a part or with a wrong type is refused
    broken = dict(next(iter(reports.values()))["card"])
    del broken["completeness"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(card_schema).validate(broken)


def test_a_model_grader_is_named_with_rubric_digests_and_verdicts(ran):
    workflow, reports = ran
    entry = find(reports, "claude-agent-acp")
    report = entry["report"]
    grader = report.split("## Grader", 1)[1].split("\n## ", 1)[0]
    job = next((workflow.path / "jobs" / "generated" / "rubric-review").iterdir())
    summary = load(job / "summary.json")
    reviewer_runs = [load(path) for path in job.glob("*/reviews/*/result.json")]
    assert reviewer_runs
    for run in reviewer_runs:
        assert run["agent"] in grader and run["model"] in grader
    # every rubric digest a result.json records is printed beside its path
    for result_path in job.glob("*/result.json"):
        hashes = (load(result_path).get("source") or {}).get("file_hashes") or {}
        for path, digest in hashes.items():
            if path.endswith("rubric.toml"):
                assert path in grader and digest.removeprefix("sha256:") in grader
    # a verdict beside the verifier reward, per graded trial; the pending one says so
    for result_path in job.glob("*/result.json"):
        scoring = load(result_path).get("scoring")
        if scoring and scoring.get("status") == "complete":
            task = load(result_path)["task_name"]
            [row] = [line for line in grader.splitlines() if line.startswith(f"| {task} |")]
            assert ("passed the rubric gate" in row) == bool(scoring["passed"])
    pending = [path.parent.name for path in job.glob("*/solver.json") if not (path.parent / "result.json").exists()]
    assert pending and "review pending" in grader
    assert summary["dataset_name"] in report.split("\n\n")[2]  # the conditions line
    assert "rubric review pending" in report.split("## What was left out", 1)[1]


def test_a_script_verifier_is_said_and_the_version_is_not_recorded(ran):
    _, reports = ran
    oracle = find(reports, "oracle")
    assert "The verifier was a script" in oracle["report"]
    conditions = oracle["report"].split("\n\n")[2]
    assert conditions.startswith("Conditions: benchmark version not recorded;")
    assert re.search(r"\d+ distinct task digests? over \d+ tasks?", conditions)
    checklist = {item["part"]: item for item in oracle["card"]["completeness"]}
    assert checklist["benchmark_version"]["status"] != "present"


def test_budget_stop_and_unpriced_model_are_said_never_a_silent_zero(ran):
    workflow, reports = ran
    job = next((workflow.path / "jobs" / "generated" / "budget-stop").iterdir())
    budget = load(job / "summary.json")["budget"]
    (entry,) = [
        e for e in reports.values() if any(j.startswith("generated/budget-stop") for j in e["card"]["job_folders"])
    ]
    left_out = entry["report"].split("## What was left out", 1)[1].split("\n## ", 1)[0]
    assert "Budget stop in" in left_out
    for task in budget.get("not_started") or []:
        assert task in left_out
    found = re.search(r"(\d+) attempt folders found; every one is counted above", left_out)
    assert found and int(found.group(1)) == sum(1 for path in job.iterdir() if path.is_dir())
    results = [load(path) for path in job.glob("*/result.json")]
    unpriced = [r for r in results if r["agent_result"].get("price_source") is None]
    assert unpriced
    assert "no price known for this model, so no cost is given" in entry["report"]
    assert "$0.00" not in entry["report"] and "$0.0000" not in entry["report"]
    assert entry["run_summary"]["budget"] == budget


def test_the_writeup_names_what_was_not_controlled_and_the_task_count_limit(ran):
    _, reports = ran
    for entry in reports.values():
        if entry["card"]["settings"]["control"]:
            continue
        writeup = " ".join(entry["writeup"].split())  # the lines are wrapped
        tasks = entry["card"]["tasks_and_tries"]["tasks"]
        assert f"With {tasks} tasks, one task moves the pass rate" in writeup and "cannot support" in writeup
        if not entry["card"]["settings"]["sampling_sent"]:
            assert "the provider's sampling defaults" in writeup


def test_every_writeup_reads_as_english(ran):
    """The generated settings (a rubric reviewer, a dataset version, a budget stop, an unpriced
    model) and the real folders' controls, as the workflow writes them."""
    _, reports = ran
    for entry in reports.values():
        assert_reads_as_english(entry["writeup"])


def test_report_html_carries_each_settings_checklist(ran):
    workflow, reports = ran
    page = (workflow.results / "report.html").read_text()
    assert page.count('<table class="completeness">') == len(reports)
    assert page.count('<tr class="missing">') + page.count('<tr class="partial">') + page.count(
        '<tr class="present">'
    ) == 10 * len(reports)


def test_index_shows_each_settings_checklist_tally(ran):
    workflow, reports = ran
    index = (workflow.results / "index.md").read_text()
    for entry in reports.values():
        statuses = [item["status"] for item in entry["card"]["completeness"]]
        tally = f"{statuses.count('present')} of 10 parts present, {statuses.count('partial')} partial, {statuses.count('missing')} missing"
        [row] = [line for line in index.splitlines() if f"reports/{entry['card']['setting']}/report.md" in line]
        assert tally in row
