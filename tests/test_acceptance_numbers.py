"""The numbers the report must print, on BenchFlow-format folders, through a real snakemake run
(one run, two settings: a model with three tasks, another with one trial)."""

from __future__ import annotations

import json

import pytest
from benchflow_synth import write_matrix

SETTING = {
    "agent": "claude-agent-acp",
    "model": "anthropic/claude-sonnet-4-5",
    "served_model": "claude-sonnet-4-5-20250929",
    "usage_source": "provider_response",
    "price_source": "litellm",
}


ONE_TRIAL = SETTING | {"model": "anthropic/claude-haiku-4-5", "served_model": "claude-haiku-4-5-20251001"}


def outcomes(*kinds):
    return [{"task": f"task-{index}", "attempts": [{"kind": kind}]} for index, kind in enumerate(kinds)]


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, object]:
    """model -> the report folder of its setting, from one workflow run over both job folders."""
    from conftest import copy_workflow

    workflow = copy_workflow(tmp_path_factory.mktemp("acceptance") / "wf")
    tries = [outcomes("passed", "passed", "failed") for _ in range(3)]
    write_matrix(
        workflow.path / "jobs" / "claude",
        alias="sonnet",
        setting=SETTING,
        tries=tries,
        seed=1,
        start="2026-11-30 10:00:00",
    )
    write_matrix(
        workflow.path / "jobs" / "one",
        alias="haiku",
        setting=ONE_TRIAL,
        tries=[outcomes("passed")],
        seed=2,
        start="2026-11-30 10:00:00",
    )
    # the numbers checked are each setting's report's (target reports): nothing run-level
    workflow.run("reports", roots=["jobs"])
    found = {}
    for folder in (workflow.results / "reports").iterdir():
        found[json.loads((folder / "summary.json").read_text())["settings"]["model"]] = folder
    assert set(found) == {SETTING["model"], ONE_TRIAL["model"]}
    return found


def test_three_tasks_3_of_3_3_of_3_0_of_3(reports):
    report_dir = reports[SETTING["model"]]
    report = (report_dir / "report.md").read_text()
    summary = json.loads((report_dir / "summary.json").read_text())
    assert "9 trials of 3 tasks" in report
    # the headline is the narrowest method whose coverage at 3 tasks x 3 tries (exact: every distinct
    # run enumerated) reaches 95%: t with 2 degrees of freedom, which spans everything here
    assert "6 passed (pass = reward ≥ 1.0: 67%, 95% interval 0% to 100% over tasks, t over task means)" in report
    assert summary["headline"]["method"] == "t over task means" and summary["headline"]["reaches_target"]
    assert summary["headline"]["worst_coverage"] >= 0.95 and summary["headline"]["coverage_standard_error"] == 0
    # the two intervals BenchFlow's report prints, each named
    assert "Interval over tasks, resampled: 0% to 100% (percentile bootstrap over the 3 tasks" in report
    assert "Wilson over trials: 35% to 88% if the 9 trials were independent" in report
    assert summary["intervals"]["over_tasks"]["method"] == "bootstrap-percentile over tasks"
    assert summary["intervals"]["over_tasks"]["seed"] == 20261130
    assert "Seeds: resampling seed 20261130" in report
    assert [row["passed"] for row in summary["per_task"]] == [3, 3, 0]
    assert "| task-2 | 3 | 0 | 0% |" in report
    writeup = (report_dir / "writeup.md").read_text()
    # BenchFlow's write-up shape: the number and its uncertainty, then the resampled and Wilson intervals
    assert writeup.startswith("claude-agent-acp (harness version not recorded) on anthropic/claude-sonnet-4-5")
    assert (
        "\n6 of 9 trials passed (pass = reward ≥ 1.0); pass rate 67% (mean over the 3 tasks). 95% interval: 0% to "
        "100% (t over\ntask means" in writeup
    )
    assert (
        "\nresampled over tasks: 0% to 100%; Wilson if the 9 trials were independent: 35% to 88%, which tries "
        "of one task aren't.\n"
    ) in writeup
    assert "\nPer task: task-0 3/3, task-1 3/3, task-2 0/3.\n" in writeup


def test_one_passing_trial(reports):
    report_dir = reports[ONE_TRIAL["model"]]
    report = (report_dir / "report.md").read_text()
    assert "1 trial of 1 task," in report
    assert "Wilson over trials: 21% to 100% from a single trial" in report
    assert "Warning: the only task has fewer than 3 trials: task-0" in report
