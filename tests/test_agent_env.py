"""A setting is everything BenchFlow recorded that can change a score, the agent's env included.

Through one real workflow run over BenchFlow 0.7.12 job folders: an agent run as one job per try
(`run-1` ... `run-4`, as the real nop runs are laid out), whose fourth try ran with one more
agent env variable, as a real run with DISABLE_PROMPT_CACHING=1 did; and one job folder whose
trials ran with two values of a variable. The first are two settings, the second is flagged as
mixing them, and every report, write-up and run card shows the env each setting ran with.
"""

from __future__ import annotations

import hashlib
import json

import pytest
from benchflow_synth import write_job
from benchreport.read import discover, ingest, settings
from conftest import AGENT, EXAMPLE

# what BenchFlow 0.7.12 itself puts in a claude agent's env (the real runs' config.json)
BENCHFLOW_ENV = {"BENCHFLOW_PROVIDER_MODEL": AGENT["model"], "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
TASKS = ("task-a", "task-b", "task-c")
MIXED = AGENT | {"model": "anthropic/claude-haiku-4-5", "served_model": "claude-haiku-4-5-20251001"}
MIXED_ENV = {"BENCHFLOW_PROVIDER_MODEL": MIXED["model"], "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
# a key pasted as the value of a variable whose name BenchFlow does not take for a secret
PASTED_KEY = "sk-ant-api03-" + "Q" * 40


def trials(kinds):
    return [{"task": task, "attempts": [{"kind": kind}]} for task, kind in zip(TASKS, kinds)]


def build(jobs):
    for number, kinds in enumerate(
        (["passed", "failed", "passed"], ["passed", "passed", "failed"], ["failed", "failed", "passed"]), start=1
    ):
        write_job(
            jobs / f"run-{number}",
            job_name=f"2026-11-30__1{number}-00-00",
            setting=AGENT,
            trials=trials(kinds),
            seed=number,
        )
    fourth = AGENT | {"agent_env": BENCHFLOW_ENV | {"DISABLE_PROMPT_CACHING": "1"}}
    write_job(jobs / "run-4", job_name="2026-11-30__14-00-00", setting=fourth, trials=trials(["passed"] * 3), seed=4)
    # one job folder: task-a and task-b ran with COIN_PASS_PCT=50, task-c with 80 (its folder moved in)
    first = write_job(
        jobs / "mixed",
        job_name="2026-12-01__10-00-00",
        setting=MIXED | {"agent_env": MIXED_ENV | {"COIN_PASS_PCT": "50"}},
        trials=trials(["passed", "failed"]),
        seed=5,
    )
    other = write_job(
        jobs.parent / "elsewhere",
        job_name="2026-12-01__10-00-00",
        setting=MIXED | {"agent_env": MIXED_ENV | {"COIN_PASS_PCT": "80", "PROXY_HEADER": PASTED_KEY}},
        trials=[{"task": "task-c", "attempts": [{"kind": "passed"}]}],
        seed=6,
    )
    for folder in other.iterdir():
        if folder.is_dir():
            folder.rename(first / folder.name)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """setting description -> (summary.json, report.md, writeup.md, run-card.json), and the run."""
    from conftest import copy_workflow

    workflow = copy_workflow(tmp_path_factory.mktemp("agent-env") / "wf")
    build(workflow.path / "jobs")
    (workflow.path / "settings.yaml").write_text(json.dumps({"environment": {"inspect": False}}))
    workflow.run("--configfile", "settings.yaml", roots=["jobs"])
    found = {}
    for folder in (workflow.results / "reports").iterdir():
        summary = json.loads((folder / "summary.json").read_text())
        found[summary["description"]] = (
            summary,
            (folder / "report.md").read_text(),
            (folder / "writeup.md").read_text(),
            json.loads((folder / "run-card.json").read_text()),
        )
    return workflow, found


SONNET = "claude-agent-acp on anthropic/claude-sonnet-4-5"


def test_a_try_with_one_more_env_variable_is_a_setting_of_its_own(run):
    workflow, found = run
    three, fourth = found[SONNET], found[f"{SONNET}, agent env DISABLE_PROMPT_CACHING=1"]
    assert three[0]["counts"]["trials"] == 9 and fourth[0]["counts"]["trials"] == 3
    assert three[0]["settings"]["agent_env"] == BENCHFLOW_ENV
    assert fourth[0]["settings"]["agent_env"] == BENCHFLOW_ENV | {"DISABLE_PROMPT_CACHING": "1"}
    index = workflow.read("index.md")
    assert f"| {SONNET} |" in index and f"| {SONNET}, agent env DISABLE_PROMPT_CACHING=1 |" in index


def test_each_report_write_up_and_run_card_shows_the_env_and_what_benchflow_drops(run):
    _, found = run
    for description, (_, report, writeup, card) in found.items():
        if not description.startswith(SONNET):
            continue
        extra = "DISABLE_PROMPT_CACHING" in description
        env = BENCHFLOW_ENV | ({"DISABLE_PROMPT_CACHING": "1"} if extra else {})
        listed = ", ".join(f"{name}={value}" for name, value in env.items())
        assert f"Agent env as config.json records it: {listed}." in report
        assert "KEY, TOKEN, SECRET, AUTH, SESSION, PASSWORD or the like (MAX_THINKING_TOKENS among them)" in report
        assert "the BenchFlow version, which BenchFlow writes nowhere in a job folder" in report
        said = "Agent env DISABLE_PROMPT_CACHING=1." if extra else "Agent env as BenchFlow sets it."
        assert said in " ".join(writeup.split())
        assert "secret-named agent env variables (BenchFlow drops them)" in " ".join(writeup.split())
        assert card["settings"]["agent_env"] == env
        assert any("MAX_THINKING_TOKENS" in item for item in card["settings"]["not_recorded"])


def test_a_job_folder_whose_trials_differ_in_env_is_flagged(run):
    workflow, found = run
    mixed = [item for description, item in found.items() if "claude-haiku-4-5" in description]
    assert sorted(item[0]["counts"]["trials"] for item in mixed) == [1, 2]
    for summary, report, _, _ in mixed:
        [flagged] = summary["mixed_settings"]
        assert flagged["differ"] == ["agent_env"] and flagged["agent_env_names"] == ["COIN_PASS_PCT", "PROXY_HEADER"]
        assert "which differ in agent env (COIN_PASS_PCT, PROXY_HEADER)" in report
    assert "which differ in agent env (COIN_PASS_PCT, PROXY_HEADER)" in workflow.read("index.md")


def test_an_env_value_that_is_a_key_is_redacted(run):
    workflow, found = run
    for path in workflow.results.rglob("*"):
        if path.is_file():
            assert PASTED_KEY.encode() not in path.read_bytes(), path
    (eighty,) = [item for description, item in found.items() if "COIN_PASS_PCT=80" in description]
    assert eighty[0]["settings"]["agent_env"]["PROXY_HEADER"].startswith("[REDACTED:")


def test_a_run_given_no_agent_env_keeps_its_setting_id():
    """The id hashes what a run chose of its env beyond BenchFlow's own: the example's settings,
    run with no --agent-env, have the ids they had before the env was part of a setting; one
    more variable, one less, or no env recorded, each an id of its own."""
    roots = [str(EXAMPLE / name) for name in ("benchflow-real-jobs", "benchflow-samples", "generated")]
    keys = {}
    for job in discover.find_job_folders(roots):
        for setting, entry in ingest.ingest_job(job, 20, ["nop-acp", "nop-acp-tc"])["settings"].items():
            keys[setting] = entry["key"]
    assert len(keys) == 8
    for setting, key in keys.items():
        assert key["agent_env"], setting
        before = {name: value for name, value in key.items() if name != "agent_env"}
        assert setting.endswith("--" + hashlib.sha256(json.dumps(before, sort_keys=True).encode()).hexdigest()[:6])
    key = next(key for key in keys.values() if not key["control"])
    ids = {settings.setting_id(key)}
    for env in (key["agent_env"] | {"DISABLE_PROMPT_CACHING": "1"}, dict(list(key["agent_env"].items())[1:]), None):
        ids.add(settings.setting_id(key | {"agent_env": env}))
    assert len(ids) == 4
