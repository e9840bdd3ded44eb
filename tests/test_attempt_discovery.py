"""Every attempt-like folder under a job root (one holding result.json, config.json or
solver.json, not nested in another) ends in a report or in the exclusion ledger, once: wherever
it sits, whatever its name. And a trial folder given as a job root is named as one."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from benchreport.read import discover, ingest
from conftest import EXAMPLE

ORACLE = EXAMPLE / "generated" / "oracle-x3" / "oracle"


def job_of_try(number: int) -> Path:
    return next(path for path in (ORACLE / f"trial-{number:02d}").iterdir() if path.is_dir())


def scattered_layout(root: Path) -> None:
    """Three real job folders with attempt folders where a new user's copies put them: one renamed,
    one moved into a folder of the job folder, a folder holding a result.json alone beside the
    job folders (which makes their parent a job folder of its own), and a copy of a result.json
    in a job folder itself."""
    first, second, third = root / "first", root / "second", root / "third"
    shutil.copytree(job_of_try(2), first)
    shutil.copytree(job_of_try(3), second)
    shutil.copytree(job_of_try(1), third)
    shutil.copy(third / sorted(discover.attempt_folders(third))[0] / "result.json", third / "result.json")
    attempts = sorted(discover.attempt_folders(first))
    (first / attempts[0]).rename(first / "renamed-by-hand")
    (first / "kept-aside").mkdir()
    (first / attempts[1]).rename(first / "kept-aside" / attempts[1])
    (root / "loose").mkdir()
    record = json.loads((second / sorted(discover.attempt_folders(second))[0] / "result.json").read_text())
    record["rollout_name"] = "loose"
    (root / "loose" / "result.json").write_text(json.dumps(record))


def attempt_like(root: Path) -> list[str]:
    """Every folder holding a trial file, not nested in another such folder, as BenchFlow finds
    its trials (a folder nested in a trial is part of it), but for a folder of trial-named
    folders: a job folder with a stray result.json, whose trials those are."""
    found = []
    for current, dirs, files in os.walk(root):
        if set(files) & set(discover.TRIAL_MARKERS) and not any(map(discover.TRIAL_NAME.match, dirs)):
            found.append(Path(current).relative_to(root).as_posix())
            dirs.clear()
        dirs.sort()
    return sorted(found)


def test_every_attempt_like_folder_is_an_attempt_of_one_job_folder(tmp_path):
    scattered_layout(tmp_path)
    jobs = discover.find_job_folders([str(tmp_path)])
    attempts = sorted(
        (Path(job.relpath) / folder).as_posix() for job in jobs for folder in discover.attempt_folders(job.path)
    )
    assert attempts == attempt_like(tmp_path)
    assert len(attempts) == 12 + 12 + 12 + 1
    strays = []
    for job in jobs:
        ingested = ingest.ingest_job(job)
        counts = ingest.job_ledger(ingested)["counts"]
        assert counts["adds_up"] and counts["found"] == len(discover.attempt_folders(job.path)), counts
        strays += [(job.relpath, row["file"]) for row in ingested["ledger"] if row["effect"] == ingest.NOT_A_TRIAL]
    assert strays == [("third", "result.json")]  # the copy in the job folder itself: a ledger row, not a trial


def test_the_run_counts_every_attempt_like_folder(workflow):
    scattered_layout(workflow.path / "jobs")
    (workflow.path / "settings.yaml").write_text(json.dumps({"environment": {"inspect": False}}))
    workflow.run("--configfile", "settings.yaml", roots=["jobs"])
    index = workflow.read("index.md")
    found = re.search(r"(\d+) job folders, (\d+) attempt folders found: (\d+) counted in a report", index)
    assert found and int(found[2]) == len(attempt_like(workflow.path / "jobs")), index[:600]
    assert int(found[1]) == 5 and "the counts add up" in index
    ledger = workflow.read("exclusions.tsv").splitlines()
    assert [line.split("\t")[4] for line in ledger if ingest.NOT_A_TRIAL in line] == ["result.json"]


@pytest.mark.parametrize("inside", ["", "verifier"])
def test_a_trial_folder_as_a_job_root_says_what_it_is_and_what_to_give(workflow, inside):
    shutil.copytree(job_of_try(1), workflow.path / "jobs" / "oracle")
    trial = sorted(discover.attempt_folders(workflow.path / "jobs" / "oracle"))[0]
    root = os.path.join("jobs", "oracle", trial, inside) if inside else os.path.join("jobs", "oracle", trial)
    done = workflow.run(roots=[root], check=False)
    assert done.returncode != 0
    where = f"inside {os.path.join('jobs', 'oracle', trial)}, " if inside else ""
    assert (
        f"job_roots: {root} is {where}a trial folder of a job (it holds result.json): give its job folder's "
        "parent, jobs, as job_roots"
    ) in done.stderr
    assert "Traceback" not in done.stderr and "No BenchFlow job folder found" not in done.stderr


def test_job_folders_whose_names_differ_only_in_a_secret_are_both_counted(tmp_path):
    """Two job folders named alike but for a token: their shown names, and so their ids, are the
    same; both are found, each under an id of its own, and each is ingested."""
    root = tmp_path / "jobs"
    for token in ("glpat-Ab3Cd5Ef7Gh9Ij1Kl3Mn5", "glpat-Zy9Xw8Vu7Ts6Rq5Po4Nm3"):
        shutil.copytree(job_of_try(1), root / f"sonnet-{token}")
    jobs = discover.find_job_folders([str(root)])
    assert len(jobs) == 2 and len({job.job_id for job in jobs}) == 2
    assert jobs[0].name == jobs[1].name and "glpat-" not in jobs[0].name
    assert jobs[1].job_id == f"{jobs[0].job_id}~2"
    assert len(discover.find_jobs([str(root)])) == 2
    found = [ingest.ingest_job(job, 20, ("nop",))["attempt_folders_found"] for job in jobs]
    assert found == [len(discover.attempt_folders(job_of_try(1)))] * 2
