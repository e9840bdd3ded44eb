"""Controls: oracle and nop on the same tasks, from the real BenchFlow control folders."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from benchflow_synth import write_matrix
from benchreport.read import controls
from conftest import AGENT, AGENT_JOB_ROOTS, EXAMPLE, agent_on, real_digests


def summary_of(workflow, agent):
    for path in (workflow.results / "reports").glob("*/summary.json"):
        data = json.loads(path.read_text())
        if data["settings"]["agent"] == agent:
            return data
    raise AssertionError(f"no report for {agent}")


def cell(summary, task, kind):
    found = summary["controls"]["per_task"][task][kind]
    return found and {key: found[key] for key in ("trials", "passed", "scored", "errored")}


def test_real_control_folders_gate_an_agent_run(agent_run):
    """The agent of agent_run (conftest.AGENT_TRIES) on two tasks the real controls ran on and one
    they did not."""
    workflow = agent_run
    summary = summary_of(workflow, "claude-agent-acp")
    verdicts = summary["controls"]["per_task"]
    # oracle-x3 (matrix, model "none") and oracle-single-plain (model null) on tiny-hello
    assert cell(summary, "tiny-hello", "oracle") == {"trials": 4, "passed": 4, "scored": 4, "errored": 0}
    # nop-x3 (3 plain runs) + the aborted nop matrix: suspected_api_error, errored, never scored;
    # nop-tc-x3: scored 0. Both nop agents are named in config.controls.nop_agents.
    assert cell(summary, "tiny-hello-net", "nop") == {"trials": 7, "passed": 0, "scored": 3, "errored": 4}
    # an errored nop proves nothing: the task's controls are not verified, and the report says why
    assert verdicts["tiny-hello-net"]["verdict"] == "not verified"
    assert verdicts["tiny-hello-net"]["reasons"] == ["no oracle ran", "nop errored 4 of 7"]
    assert verdicts["no-control-task"]["verdict"] == "not verified"
    assert verdicts["no-control-task"]["reasons"] == ["no nop ran", "no oracle ran"]
    assert summary["controls"]["tasks_without_control"] == ["no-control-task"]
    report = workflow.read(f"reports/{summary['setting']}/report.md")
    assert "no oracle, nop 0/7 (4 errored): not verified (no oracle ran; nop errored 4 of 7)" in report.replace(
        "\\", ""
    )
    assert "kept in the headline (controls.on_unverified: keep)" in report.replace("\\", "")
    # control trials never count in the agent's numbers
    assert summary["counts"]["trials"] == 9 and summary["counts"]["tasks"] == 3
    card = json.loads(workflow.read(f"reports/{summary['setting']}/run-card.json"))
    assert card["controls"]["verdicts"]["tiny-hello-net"]["verdict"] == "not verified"


def test_unverified_controls_leave_tasks_out_when_config_says_so(agent_run, tmp_path):
    workflow = agent_run.copy(tmp_path / "wf")
    exclude = workflow.path / "exclude.yaml"
    exclude.write_text(json.dumps({"controls": {"on_unverified": "exclude"}}))
    workflow.run("--configfile", str(exclude), roots=AGENT_JOB_ROOTS)
    summary = summary_of(workflow, "claude-agent-acp")
    left = {row["task"]: row for row in summary["excluded_by_controls"]}
    # tiny-hello too: its oracle passed every try, but no nop ran on it
    assert set(left) == {"no-control-task", "tiny-hello", "tiny-hello-net"} and summary["counts"]["tasks"] == 0
    assert left["tiny-hello"]["reason"] == "controls not verified: no nop ran"
    assert left["tiny-hello-net"]["reason"] == "controls not verified: no oracle ran; nop errored 4 of 7"
    tsv = workflow.read("exclusions.tsv")
    assert f"task\t{summary['setting']}\t\t\ttask tiny-hello-net\tcontrols not verified: no oracle ran; nop" in tsv


def test_a_control_covers_only_the_task_version_it_ran_on(workflow):
    """Two versions (task digests) of one task: the oracle and nop ran on the first; the agent's
    trials on the second are named as not covered and the task is not verified."""
    old, new = "sha256:" + "1" * 64, "sha256:" + "2" * 64
    control = {"agent": "oracle", "model": None}
    nop = {"agent": "nop", "model": None}
    for alias, setting, kind in (("oracle", control, "passed"), ("nop", nop, "failed")):
        tries = [[{"task": "two-versions", "attempts": [{"kind": kind}], "task_digest": old}]] * 2
        write_matrix(
            workflow.path / "jobs" / alias,
            alias=alias,
            setting=setting,
            tries=tries,
            seed=5,
            start="2026-11-30 09:00:00",
        )
    tries = [
        [{"task": "two-versions", "attempts": [{"kind": "passed"}], "task_digest": digest}]
        for digest in (old, old, new)
    ]
    write_matrix(
        workflow.path / "jobs" / "agent",
        alias="sonnet",
        setting=AGENT,
        tries=tries,
        seed=3,
        start="2026-11-30 10:00:00",
    )
    workflow.run(roots=["jobs"])
    summary = summary_of(workflow, "claude-agent-acp")
    entry = summary["controls"]["per_task"]["two-versions"]
    versions = {version["digest"]: version for version in entry["versions"]}
    assert versions[old]["verdict"] == "holds" and versions[old]["agent_trials"] == 2
    assert versions[new]["verdict"] == "not verified" and versions[new]["oracle"] is None
    assert entry["verdict"] == "not verified"
    [uncovered] = summary["controls"]["uncovered"]
    assert uncovered["task"] == "two-versions" and uncovered["digest"] == new and uncovered["trials"] == 1
    report = workflow.read(f"reports/{summary['setting']}/report.md").replace("\\", "")
    assert "Not covered by a control: two-versions on digest 22222222…, 1 trial" in report


@pytest.mark.slow
def test_failed_controls_leave_the_task_out_or_warn(workflow):
    shutil.copytree(EXAMPLE / "benchflow-samples", workflow.path / "jobs" / "samples")
    # the real oracle-matrix: spec-pass passes 2/2, spec-partial scores 0.5 (oracle fails) 2/2
    agent_on(
        [[("spec-pass", "passed"), ("spec-partial", "passed")]] * 3,
        workflow.path / "jobs" / "agent",
        real_digests(workflow.path / "jobs" / "samples"),
    )
    # what the controls decide is in each setting's report: nothing run-level is needed
    workflow.run("reports", roots=["jobs"])
    summary = summary_of(workflow, "claude-agent-acp")
    assert summary["counts"]["tasks"] == 1 and summary["counts"]["left_out_by_controls"] == 3
    report = workflow.read(f"reports/{summary['setting']}/report.md").replace("\\", "")
    assert "spec-partial (oracle passed 0 of 2)" in report
    assert (
        "| task | — | task spec-partial | controls fail: oracle passed 0 of 2 | 3 trials (3 passed) left out" in report
    )

    keep = workflow.path / "keep.yaml"
    keep.write_text(json.dumps({"controls": {"on_failure": "keep"}}))
    workflow.run("reports", "--configfile", str(keep), roots=["jobs"])
    summary = summary_of(workflow, "claude-agent-acp")
    assert summary["counts"]["tasks"] == 2
    [kept] = [w for w in summary["warnings"] if w["kind"] == "controls fails, kept"]
    assert kept["tasks"][0]["task"] == "spec-partial" and kept["tasks"][0]["reasons"] == ["oracle passed 0 of 2"]


def test_tasks_lacking_a_control_kind():
    entries = [
        {"a": {"key": {"control": None}, "tasks": ["t1", "t2", "t3"]}},
        {"o": {"key": {"control": "oracle"}, "tasks": ["t1"]}, "n": {"key": {"control": "nop"}, "tasks": ["t2"]}},
    ]
    assert controls.tasks_lacking(entries, "oracle") == ["t2", "t3"]
    assert controls.tasks_lacking(entries, "nop") == ["t1", "t3"]


def test_bench_commands_keep_secret_values_out():
    run = {
        "command": ["bench"],
        "tasks_dir": "tasks",
        "tries": 2,
        "oracle_agent": "oracle",
        "nop_agent": "nop-acp",
        "nop_args": ["--agent-idle-timeout", "0"],
        "pass_env": ["OPENAI_API_KEY"],
    }
    commands = controls.bench_commands("nop", ["t1"], run, Path("/j"))
    assert len(commands) == 2
    assert commands[1][commands[1].index("--jobs-dir") + 1] == "/j/nop/trial-02"
    assert commands[0][-4:] == ["--agent-idle-timeout", "0", "--agent-env", "OPENAI_API_KEY=${OPENAI_API_KEY}"]
    assert commands[0][commands[0].index("--include") + 1] == "t1"
