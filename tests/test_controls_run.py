"""Run the oracle and nop controls for real: BenchFlow 0.7.12 on Docker, from the workflow.

Needs a Docker daemon and BenchFlow (tests/lab/setup_benchflow.sh sets both up and prints the
`bench` path, which BENCHREPORT_BENCH names). Skipped without them; failed under BENCHREPORT_CI=1.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from benchflow_synth import write_matrix
from conftest import REPO, docker_missing, require

BENCH = os.environ.get("BENCHREPORT_BENCH", "")
BASE_IMAGE = "local/debian:bookworm"
TINY = REPO / "tests" / "data" / "tiny-task"
# Two tries of each control: each try is one `bench eval run` (30 s for the oracle, 55 s for the
# nop here, most of it BenchFlow starting and stopping containers and its LiteLLM proxy), and two
# already show the try index and the per-try verdicts; the third cost 90 s.
TRIES = 2

# slow: real BenchFlow runs on Docker (CI runs them with -m slow)
pytestmark = pytest.mark.slow


def benchflow_missing() -> str | None:
    if not (BENCH and Path(BENCH).is_file()):
        return "BENCHREPORT_BENCH does not name a BenchFlow `bench`: run tests/lab/setup_benchflow.sh"
    if (reason := docker_missing()) is not None:
        return reason
    if subprocess.run(["docker", "image", "inspect", BASE_IMAGE], capture_output=True).returncode != 0:
        return f"the base image {BASE_IMAGE} is missing: run tests/lab/setup_benchflow.sh"
    return None


@pytest.fixture
def bench() -> str:
    """BenchFlow's `bench`, with a Docker daemon that holds the base image of the tiny tasks."""
    require(benchflow_missing())
    return BENCH


def test_workflow_runs_missing_controls_with_benchflow(bench, workflow):
    shutil.copytree(TINY / "tasks-net", workflow.path / "tasks")
    # the agent's trials record no task digest, so its controls are matched by task name (the
    # digest BenchFlow gives these task folders is its own to compute)
    tries = [
        [
            {"task": task, "attempts": [{"kind": kind}], "task_digest": None}
            for task in ("tiny-hello-net", "tiny-oracle-fails")
        ]
        for kind in ("passed", "failed")
    ]
    setting = {
        "agent": "claude-agent-acp",
        "model": "anthropic/claude-sonnet-4-5",
        "served_model": "claude-sonnet-4-5-20250929",
        "usage_source": "provider_response",
        "price_source": "litellm",
    }
    write_matrix(
        workflow.path / "jobs" / "agent",
        alias="sonnet",
        setting=setting,
        tries=tries,
        seed=5,
        start="2026-11-30 10:00:00",
    )
    run = {
        "enabled": True,
        "command": [bench],
        "tasks_dir": "tasks",
        "agents_dir": str(TINY / "agents"),
        "jobs_dir": "control-jobs",
        "tries": TRIES,
        "nop_agent": "nop-acp",
        "pass_env": ["OPENAI_API_KEY"],
    }
    settings = workflow.path / "controls.yaml"
    settings.write_text(json.dumps({"controls": {"run": run}}))
    env = dict(os.environ, OPENAI_API_KEY="unused-dummy-0xC0FFEE")
    workflow.run("--configfile", str(settings), roots=["jobs"], env=env)

    oracle = json.loads(workflow.read("controls/run-oracle.json"))
    nop = json.loads(workflow.read("controls/run-nop.json"))
    assert oracle["tasks"] == nop["tasks"] == ["tiny-hello-net", "tiny-oracle-fails"]
    assert [r["exit"] for r in oracle["runs"]] == [0] * TRIES
    assert len(nop["runs"]) == TRIES  # a nop trial is errored (suspected_api_error): bench exits 1
    agent = next(
        json.loads(p.read_text())
        for p in (workflow.results / "reports").glob("*/summary.json")
        if json.loads(p.read_text())["settings"]["agent"] == "claude-agent-acp"
    )
    report = workflow.read(f"reports/{agent['setting']}/report.md").replace("\\", "")
    verdicts = agent["controls"]["per_task"]
    # the nop agent never reaches the verifier (suspected_api_error): doing nothing was never shown
    # to fail, so the task's controls are not verified, and it stays in with a warning
    assert verdicts["tiny-hello-net"]["verdict"] == "not verified"
    assert verdicts["tiny-hello-net"]["reasons"] == [f"nop errored {TRIES} of {TRIES}"]
    assert verdicts["tiny-hello-net"]["oracle"]["passed"] == TRIES
    assert verdicts["tiny-hello-net"]["matched_by"] == "task name (no task digest recorded)"
    # the broken reference solution fails every try: the task is left out of the headline
    assert verdicts["tiny-oracle-fails"]["verdict"] == "fails"
    assert verdicts["tiny-oracle-fails"]["reasons"] == [f"oracle passed 0 of {TRIES}"]
    assert [row["task"] for row in agent["excluded_by_controls"]] == ["tiny-oracle-fails"]
    assert agent["counts"]["tasks"] == 1
    assert (
        f"oracle {TRIES}/{TRIES}, nop 0/{TRIES} ({TRIES} errored): not verified (nop errored {TRIES} of {TRIES})"
        in report
    )
    assert "Controls fail (the oracle did not pass every try or the nop passed one) on 1 task" in report
    # the control runs were ingested as job folders with their try index
    tries_seen = sorted(
        t["try"]
        for s in (workflow.results / "reports").glob("oracle*/trials.json")
        for t in json.loads(s.read_text())["trials"]
    )
    assert tries_seen == sorted([*range(1, TRIES + 1)] * 2)
    # the key handed to the agent is nowhere in the results
    for path in workflow.results.rglob("*"):
        if path.is_file():
            assert "0xC0FFEE" not in path.read_text(errors="replace"), path
