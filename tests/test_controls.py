"""Controls: oracle and nop on the same tasks, from the real BenchFlow control folders."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchflow_synth import write_matrix
from benchreport import controls
from conftest import EXAMPLE

AGENT = {
    "agent": "claude-agent-acp",
    "model": "anthropic/claude-sonnet-4-5",
    "served_model": "claude-sonnet-4-5-20250929",
    "usage_source": "provider_response",
    "price_source": "litellm",
}


def agent_on(tasks_by_try, root):
    tries = [[{"task": task, "attempts": [{"kind": kind}]} for task, kind in row] for row in tasks_by_try]
    write_matrix(root, alias="sonnet", setting=AGENT, tries=tries, seed=3, start="2026-11-30 10:00:00")


def summary_of(workflow, agent):
    for path in (workflow.results / "reports").glob("*/summary.json"):
        data = json.loads(path.read_text())
        if data["settings"]["agent"] == agent:
            return data
    raise AssertionError(f"no report for {agent}")


def test_real_control_folders_gate_an_agent_run(workflow):
    shutil.copytree(EXAMPLE / "benchflow-real-jobs", workflow.path / "jobs" / "real")
    agent_on([[("tiny-hello", "passed"), ("tiny-hello-net", "failed"), ("no-control-task", "passed")]] * 3,
             workflow.path / "jobs" / "agent")
    workflow.run(roots=["jobs"])
    summary = summary_of(workflow, "claude-agent-acp")
    verdicts = summary["controls"]["per_task"]
    # oracle-x3 (matrix, model "none") and oracle-single-plain (model null) on tiny-hello
    assert verdicts["tiny-hello"]["oracle"] == {"trials": 4, "passed": 4, "errored": 0}
    # nop-x3 (3 plain runs) + the aborted nop matrix: suspected_api_error, errored, not passed;
    # nop-tc-x3: scored 0. Both nop agents are named in config.controls.nop_agents.
    assert verdicts["tiny-hello-net"]["nop"] == {"trials": 7, "passed": 0, "errored": 4}
    assert verdicts["tiny-hello-net"]["verdict"] == "held"
    assert verdicts["no-control-task"]["verdict"] == "no control"
    assert summary["controls"]["tasks_without_control"] == ["no-control-task"]
    report = workflow.read(f"reports/{summary['setting']}/report.md")
    assert "Controls on the same tasks: oracle 4/4, nop 0/7; no control on 1 task: no-control-task." in report
    assert "| tiny-hello-net | 3 | 0 | 0% |" in report and "nop 0/7 (4 errored)" in report
    # control trials never count in the agent's numbers
    assert summary["counts"]["trials"] == 9 and summary["counts"]["tasks"] == 3


@pytest.mark.slow
def test_failed_controls_leave_the_task_out_or_warn(workflow):
    shutil.copytree(EXAMPLE / "benchflow-samples", workflow.path / "jobs" / "samples")
    # the real oracle-matrix: spec-pass passes 2/2, spec-partial scores 0.5 (oracle fails) 2/2
    agent_on([[("spec-pass", "passed"), ("spec-partial", "passed")]] * 3, workflow.path / "jobs" / "agent")
    workflow.run(roots=["jobs"])
    summary = summary_of(workflow, "claude-agent-acp")
    assert summary["counts"]["tasks"] == 1 and summary["counts"]["left_out_by_controls"] == 3
    report = workflow.read(f"reports/{summary['setting']}/report.md")
    assert "spec-partial (oracle passed 0/3)" in report
    assert "| task spec-partial (3 trials) | controls failed: oracle passed 0/3 | left out of the headline |" in report

    keep = workflow.path / "keep.yaml"
    keep.write_text(json.dumps({"controls": {"on_failure": "keep"}}))
    workflow.run("--configfile", str(keep), roots=["jobs"])
    summary = summary_of(workflow, "claude-agent-acp")
    assert summary["counts"]["tasks"] == 2
    assert any("kept despite failed controls: spec-partial (oracle passed 0/3)" in w for w in summary["warnings"])


def test_tasks_lacking_a_control_kind():
    entries = [
        {"a": {"key": {"control": None}, "tasks": ["t1", "t2", "t3"]}},
        {"o": {"key": {"control": "oracle"}, "tasks": ["t1"]}, "n": {"key": {"control": "nop"}, "tasks": ["t2"]}},
    ]
    assert controls.tasks_lacking(entries, "oracle") == ["t2", "t3"]
    assert controls.tasks_lacking(entries, "nop") == ["t1", "t3"]


def test_bench_commands_keep_secret_values_out():
    run = {"command": ["bench"], "tasks_dir": "tasks", "tries": 2, "oracle_agent": "oracle", "nop_agent": "nop-acp",
           "nop_args": ["--agent-idle-timeout", "0"], "pass_env": ["OPENAI_API_KEY"]}
    commands = controls.bench_commands("nop", ["t1"], run, Path("/j"))
    assert len(commands) == 2
    assert commands[1][commands[1].index("--jobs-dir") + 1] == "/j/nop/trial-02"
    assert commands[0][-4:] == ["--agent-idle-timeout", "0", "--agent-env", "OPENAI_API_KEY=${OPENAI_API_KEY}"]
    assert commands[0][commands[0].index("--include") + 1] == "t1"
