"""An attempt is counted once however it was copied, through one real workflow run.

Each case is a BenchFlow --matrix run of its own model (so a setting of its own) beside what a user
makes of it: a backup re-indented by a formatter, one saved with CRLF line ends, an attempt folder
copied into another job folder under a new 8-hex suffix, a job folder copied under a new name, and
a copy whose reward was edited. Every attempt must be counted once, each other sighting a ledger
row naming both places, and sightings that disagree counted in neither. In the same run, the odd
inputs that used to skew or stop a run: a start time that is no time, a task name that is not its
folder's, a chain of a thousand nested folders, a task name of 100,000 characters.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess

import pytest
from benchflow_synth import write_matrix
from benchreport.pipeline import stamps
from benchreport.read import discover, duplicates

AGENT = {
    "agent": "claude-agent-acp",
    "served_model": "claude-sonnet-4-5-20250929",
    "usage_source": "provider_response",
    "price_source": "litellm",
}
# try 1 and try 2 of four tasks: 4 of 8 trials pass, 50% over tasks
TWO_TRIES = [["passed", "passed", "failed", "failed"], ["passed", "failed", "passed", "failed"]]
# task-3 ran in try 1 only: 7 trials, 4 passed
TASK_3_ONCE = [["passed", "failed", "passed", "passed"], ["passed", "failed", "failed"]]
CASES = ("reindented", "crlf", "windows", "new_suffix", "renamed", "edited", "bad_start", "other_task")
# inputs that stopped a run: a run of their own
STOPPERS = ("deep", "long_name")
CHAIN = 1000
LONG_NAME = "t" * 100_000


def matrix(root, case, kinds, seed):
    """A --matrix run of `kinds` (per try, per task) for the case's own model; its job folders."""
    tries = [[{"task": f"task-{n}", "attempts": [{"kind": kind}]} for n, kind in enumerate(row)] for row in kinds]
    setting = AGENT | {"model": f"anthropic/model-{case}"}
    write_matrix(root, alias="sonnet", setting=setting, tries=tries, seed=seed, start="2026-11-30 10:00:00")
    return sorted(path for path in root.glob("sonnet/trial-*/*") if path.is_dir())


def json_files(folder):
    return sorted(path for path in folder.rglob("*.json") if path.is_file())


def reindented(data: bytes) -> bytes:
    """As a formatter saves it: four spaces, keys sorted, characters unescaped."""
    return json.dumps(json.loads(data), indent=4, sort_keys=True, ensure_ascii=False).encode()


def crlf(data: bytes) -> bytes:
    """As git's autocrlf or a Windows archiver writes it."""
    return data.replace(b"\n", b"\r\n")


def with_bom(data: bytes) -> bytes:
    """As Notepad saves UTF-8: a byte-order mark first."""
    return b"\xef\xbb\xbf" + data


def utf16(data: bytes) -> bytes:
    """As Windows PowerShell 5 writes text it redirects to a file."""
    return data.decode().encode("utf-16")


def copied(source, destination, change=None):
    shutil.copytree(source, destination)
    for path in json_files(destination) if change else ():
        path.write_bytes(change(path.read_bytes()))
    return destination


def attempt(job, task):
    (folder,) = [path for path in job.iterdir() if path.name.startswith(f"{task}__")]
    return folder


def edit_json(path, change):
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=2))


def build(jobs, cases):
    """Every case under jobs/<case>/ (a job root each): its job folders, by case."""
    made = {}
    for seed, case in enumerate(cases, start=1):
        kinds = TASK_3_ONCE if case == "new_suffix" else TWO_TRIES
        made[case] = matrix(jobs / case / "orig", case, kinds, seed)
    return made


def copies(jobs):
    """The cases of CASES, made of their --matrix runs; their job folders."""
    made = build(jobs, CASES)
    copied(jobs / "reindented" / "orig", jobs / "reindented" / "backup", reindented)
    copied(jobs / "crlf" / "orig", jobs / "crlf" / "backup", crlf)
    copied(jobs / "windows" / "orig", jobs / "windows" / "backup-bom", with_bom)
    copied(jobs / "windows" / "orig", jobs / "windows" / "backup-utf16", utf16)
    first, second = made["new_suffix"]
    shutil.copytree(attempt(first, "task-3"), second / "task-3__0123abcd")
    copied(made["renamed"][0], jobs / "renamed" / "my-best-run", lambda data: crlf(reindented(data)))
    copy = copied(jobs / "edited" / "orig", jobs / "edited" / "copy")
    edited = attempt(copy / made["edited"][0].relative_to(jobs / "edited" / "orig"), "task-0")
    edit_json(edited / "result.json", lambda data: data.update(rewards={"reward": 0.0}))
    # task-1 of try 1 retried: the retry failed; the first attempt, which passed and recorded no
    # end, started an hour before (config.json) at no real time (result.json)
    retried = made["bad_start"][0]
    retry = attempt(retried, "task-1")
    first = shutil.copytree(retry, retried / "task-1__0badbad0")
    edit_json(retry / "result.json", lambda data: data.update(rewards={"reward": 0.0}))
    edit_json(
        first / "result.json",
        lambda data: data.update(started_at="2026-13-45T99:99:99", finished_at=None, rollout_name=first.name),
    )
    edit_json(first / "config.json", lambda data: data.update(started_at="2026-11-30 09:00:00"))
    edit_json(attempt(made["other_task"][0], "task-2") / "result.json", lambda data: data.update(task_name="task-0"))
    return made


def stoppers(jobs):
    """The cases of STOPPERS: a chain of CHAIN folders in an attempt's reviews/, a task name of
    100,000 characters."""
    made = build(jobs, STOPPERS)
    chain = attempt(made["deep"][0], "task-0") / "reviews"
    chain.mkdir()
    folder = os.open(chain, os.O_RDONLY)
    for _ in range(CHAIN):
        os.mkdir("d", dir_fd=folder)
        inner = os.open("d", os.O_RDONLY, dir_fd=folder)
        os.close(folder)
        folder = inner
    os.close(folder)
    edit_json(attempt(made["long_name"][0], "task-0") / "result.json", lambda data: data.update(task_name=LONG_NAME))
    return made


def workflow_run(workflow, make, cases):
    """The workflow run over the cases `make` builds under its jobs/: (workflow, its ledger rows,
    model -> its setting's summary.json, the cases' job folders)."""
    made = make(workflow.path / "jobs")
    settings = workflow.path / "settings.yaml"
    settings.write_text(json.dumps({"environment": {"inspect": False}}))
    workflow.run("--configfile", str(settings), roots=[f"jobs/{case}" for case in cases])
    with open(workflow.results / "exclusions.tsv", newline="") as handle:
        ledger = list(csv.DictReader(handle, delimiter="\t"))
    summaries = {
        json.loads(path.read_text())["settings"]["model"]: json.loads(path.read_text())
        for path in (workflow.results / "reports").glob("*/summary.json")
    }
    return workflow, ledger, summaries, made


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    from conftest import copy_workflow

    return workflow_run(copy_workflow(tmp_path_factory.mktemp("identity") / "wf"), copies, CASES)


@pytest.fixture(scope="module")
def stopped(tmp_path_factory):
    from conftest import copy_workflow

    workflow = copy_workflow(tmp_path_factory.mktemp("stoppers") / "wf")
    try:
        yield workflow_run(workflow, stoppers, STOPPERS)
    finally:
        # a thousand nested folders are more than shutil.rmtree's recursion (pytest's clean-up)
        subprocess.run(["rm", "-rf", str(workflow.path / "jobs" / "deep")], check=True)


def counts(summaries, case):
    record = summaries[f"anthropic/model-{case}"]
    return record["counts"]["trials"], record["counts"]["passed"], record["pass_rate"]["value"]


@pytest.mark.parametrize("case,copies", [("reindented", 8), ("crlf", 8), ("windows", 16), ("renamed", 4)])
def test_a_reencoded_copy_is_the_same_attempts(run, case, copies):
    """Every attempt of the copies (both tries; try 1's job folder for the renamed one) is counted
    once: 8 trials, 4 passed, 50%, and each second sighting is a ledger row naming the first, the
    one ingest reads (a copy with a byte-order mark or in UTF-16 is not JSON as BenchFlow writes it,
    and its summary.json a ledger row of its own)."""
    workflow, ledger, summaries, _ = run
    assert counts(summaries, case) == (8, 4, 0.5)
    found = [row for row in ledger if row["job"].startswith(f"{case}/") and row["folder"]]
    assert len(found) == copies, found
    for row in found:
        assert row["reason"].startswith(f"the same attempt as {case}/"), row
        assert case != "windows" or row["reason"].startswith("the same attempt as windows/orig/")
        assert "the same values, written differently" in row["reason"] and row["effect"] == "attempt left out"
        assert f"/{row['folder']} (its rollout name, task and started_at" in row["reason"]
    assert len({row["job"] for row in found}) == copies // 4
    assert "the counts add up" in workflow.read("index.md")


def test_an_attempt_copied_into_another_job_folder_under_a_new_name(run):
    _, ledger, summaries, made = run
    assert counts(summaries, "new_suffix")[:2] == (7, 4)
    first = made["new_suffix"][0]
    original = next(path.name for path in first.iterdir() if path.name.startswith("task-3__"))
    (row,) = [row for row in ledger if row["folder"] == "task-3__0123abcd"]
    assert row["job"].startswith("new_suffix/orig/sonnet/trial-02/")
    assert f"the same attempt as new_suffix/orig/sonnet/trial-01/{first.name}/{original}" in row["reason"]


def test_sightings_that_disagree_are_counted_in_neither(run):
    _, ledger, summaries, made = run
    assert counts(summaries, "edited")[:2] == (7, 3)  # try 1's task-0 passed in one place, failed in the other
    found = [row for row in ledger if row["job"].startswith("edited/") and row["folder"].startswith("task-0__")]
    found = [row for row in found if "none is counted" in row["reason"]]
    assert sorted(row["job"].split("/")[1] for row in found) == ["copy", "orig"], found
    for row in found:
        assert "differs in rewards" in row["reason"] and row["effect"] == "attempt left out"
        other = "orig" if row["job"].startswith("edited/copy/") else "copy"
        assert f"edited/{other}/sonnet/trial-01/" in row["reason"]


def test_a_start_that_is_no_time_does_not_decide_which_attempt_is_kept(run):
    """task-1 of try 1 was retried; the retry failed. The first attempt's start, 2026-13-45,
    would sort after every real time and make the passed first attempt the one kept."""
    workflow, ledger, summaries, made = run
    (row,) = [row for row in ledger if row["folder"] == "task-1__0badbad0"]
    assert "started_at is '2026-13-45T99:99:99', not a date and time: not recorded" in row["reason"]
    trials = json.loads(
        (workflow.results / "reports" / summaries["anthropic/model-bad_start"]["setting"] / "trials.json").read_text()
    )["trials"]
    job = made["bad_start"][0].name
    (kept,) = [trial for trial in trials if trial["task"] == "task-1" and trial["job"].endswith(job)]
    assert kept["attempts"] == 2 and kept["outcome"] == "failed" and kept["folder"] != "task-1__0badbad0"


def test_a_task_name_that_is_not_its_folders_is_said(run):
    _, ledger, _, _ = run
    (row,) = [row for row in ledger if row["job"].startswith("other_task/") and row["folder"].startswith("task-2__")]
    assert "the task recorded, 'task-0', is not the one the folder's name gives, 'task-2'" in row["reason"]


def test_a_thousand_nested_folders_and_a_long_task_name_leave_the_run_reporting(stopped):
    workflow, ledger, summaries, _ = stopped
    assert counts(summaries, "deep") == (8, 4, 0.5)
    tasks = [row["task"] for row in summaries["anthropic/model-long_name"]["per_task"]]
    assert LONG_NAME in tasks
    (row,) = [row for row in ledger if row["job"].startswith("long_name/") and row["folder"].startswith("task-0__")]
    assert f"'{'t' * 80}'…" in row["reason"] and len(row["reason"]) < 300
    for name in ("heatmap.svg", "heatmap.png", "forest.svg", "cost.svg"):
        assert (workflow.results / "paper" / name).stat().st_size > 0


def test_state_an_earlier_version_left_is_read_again(tmp_path):
    """The stat cache of a job folder as a version that compared record sizes left it ([relpath, size] per attempt folder): the parse reads the records again, and an attempt
    copied into the folder is still found."""

    (job,) = matrix(tmp_path / "jobs", "earlier", TWO_TRIES[:1], seed=1)
    shutil.copytree(attempt(job, "task-0"), job / "task-0__0123abcd")
    (folder,) = discover.find_job_folders([str(tmp_path / "jobs")])
    state = tmp_path / "state"
    state.mkdir()
    records = stamps.refresh_state(folder, 20, state, lambda: {})[1]
    sizes = {name: [record[0], 1000] for name, record in records.items()}
    (cache,) = state.glob("*.json")
    earlier = json.loads(cache.read_text())
    earlier.pop("records_format", None)
    cache.write_text(json.dumps(earlier | {"records": sizes}))
    again = stamps.refresh_state(folder, 20, state, lambda: {})[1]
    assert again == records
    (row,) = duplicates.find([folder], [str(tmp_path / "jobs")], {folder.job_id: again})[folder.job_id].values()
    assert row.startswith("the same attempt as task-0__")


def test_index_counts_each_second_sighting_as_a_duplicate(run):
    """index.md's accounting names the attempts seen twice apart from the unusable ones."""
    workflow, ledger, _, _ = run
    seen_twice = sum(1 for row in ledger if row["reason"].endswith(duplicates.COUNTED_THERE))
    assert seen_twice and f"{seen_twice} duplicates counted once" in workflow.read("index.md")
