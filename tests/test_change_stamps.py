"""The parse-time change stamps (benchreport.pipeline.stamps): which job folders exist, what their last
ingest read, which ingests the stamps make this run redo, and how many cores each gets; without
Snakemake, on copies of real BenchFlow job folders."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from benchreport.pipeline import stamps
from benchreport.pipeline.lineage import lineage_of
from benchreport.read import discover
from conftest import EXAMPLE

JOB = "benchflow-real-jobs/script-run/oracle-x3/oracle/trial-01"


@pytest.fixture
def here(tmp_path, monkeypatch):
    """A working folder holding one real job folder under jobs/ (stamps name paths relative to it)."""
    shutil.copytree(EXAMPLE / JOB, tmp_path / "jobs" / "oracle")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_missing_root_or_one_without_job_folders_is_refused_with_its_name(here):
    with pytest.raises(ValueError, match="these folders do not exist: nowhere"):
        discover.find_jobs(["jobs", "nowhere"])
    (here / "empty").mkdir()
    with pytest.raises(ValueError, match=r"No BenchFlow job folder found under job_roots \(empty\)"):
        discover.find_jobs(["empty"])
    [job] = discover.find_jobs(["jobs"]).values()
    assert job.root == "jobs" and job.relpath.startswith("oracle/")


def test_a_trial_folder_given_as_a_root_is_named_with_the_folder_to_give(here):
    """A trial (attempt) folder, one inside it, or an interrupted one holding config.json alone:
    the message says what it is and names its job folder's parent."""
    [job] = discover.find_jobs(["jobs"]).values()
    trial = job.path / sorted(discover.attempt_folders(job.path))[0]
    interrupted = job.path / "interrupted__0123abcd"
    interrupted.mkdir()
    (interrupted / "config.json").write_text("{}")
    for root, what in (
        (trial, f"{trial} is a trial folder of a job (it holds result.json)"),
        (trial / "verifier", f"{trial / 'verifier'} is inside {trial}, a trial folder of a job (it holds result.json)"),
        (interrupted, f"{interrupted} is a trial folder of a job (it holds config.json)"),
    ):
        with pytest.raises(ValueError) as refused:
            discover.find_jobs(["jobs", str(root)])
        assert str(refused.value) == f"job_roots: {what}: give its job folder's parent, {job.path.parent}, as job_roots"


def test_a_folder_of_jobs_is_no_trial_folder_for_its_config_or_result_json(here):
    """A project's config.json or a stray result.json beside the job folders, a config.json above
    a root of none: the jobs are found, or the message says none is."""
    (here / "config.json").write_text("{}")
    (here / "jobs" / "result.json").write_text("{}")
    assert len(discover.find_jobs(["jobs"])) == 1
    (here / "jobs" / "empty").mkdir()
    with pytest.raises(ValueError, match="No BenchFlow job folder found under job_roots"):
        discover.find_jobs([os.path.join("jobs", "empty")])


def test_recorded_sources_are_read_from_the_lineage_record_of_the_folders_batch(here):
    [job] = discover.find_jobs(["jobs"]).values()
    assert stamps.recorded_sources(job, job.job_id) == {}  # never ingested
    record = here / lineage_of(stamps.ingest_output("jobs/batch"))
    record.parent.mkdir(parents=True)
    inside = f"{job.path.as_posix()}/a__1/result.json"
    sources = [{"path": inside, "sha256": "ab"}, {"path": "elsewhere/x", "sha256": "cd"}]
    record.write_text(json.dumps({"sources": sources}))
    assert stamps.recorded_sources(job, "jobs/batch") == {"a__1/result.json": "ab"}
    assert stamps.recorded_sources(job, job.job_id) == {}  # another batch's record
    record.write_text("{not json")
    assert stamps.recorded_sources(job, "jobs/batch") == {}


def test_a_folder_that_changes_batch_has_its_stamp_touched(here):
    """A folder's stamp is compared with the record of the batch the last parse planned for it:
    when its batch is another one now, the stamp is touched, so that its new batch reads it
    again (and a batch planned in a dry run and never run cannot leave an old record in use)."""
    jobs = discover.find_jobs(["jobs"])
    [(job_id, job)] = jobs.items()
    found, records = stamps.refresh_states(list(jobs.values()), 8)
    stamp = found[job_id]
    past = os.stat(stamp).st_mtime_ns - 10**10
    os.utime(stamp, ns=(past, past))
    assert stamps.plan_batches(jobs, records, found) == {job_id: [job_id]}
    assert os.stat(stamp).st_mtime_ns > past  # no plan saved before: a new batch
    os.utime(stamp, ns=(past, past))
    stamps.plan_batches(jobs, records, found)
    assert os.stat(stamp).st_mtime_ns == past  # the same batch: left alone
    saved = here / stamps.STATE_DIR / stamps.BATCHES
    saved.write_text(json.dumps({job_id: "jobs/another", "jobs/gone": "jobs/gone"}))
    stamps.plan_batches(jobs, records, found)
    assert os.stat(stamp).st_mtime_ns > past
    # the plans of folders planned elsewhere (a control run's) are kept beside it
    assert json.loads(saved.read_text()) == {job_id: job_id, "jobs/gone": "jobs/gone"}


def test_a_stamp_compares_the_sources_the_batch_the_last_parse_planned_recorded(here):
    """refresh_states reads a folder's last ingest from the batch plan_batches saved: a folder
    whose file was touched but holds the same bytes keeps its stamp only if that record is found."""
    jobs = discover.find_jobs(["jobs"])
    [job] = jobs.values()
    found, records = stamps.refresh_states(list(jobs.values()), 8)
    stamps.plan_batches(jobs, records, found)
    saved = json.loads((here / stamps.STATE_DIR / stamps.BATCHES).read_text())
    assert saved == {job.job_id: job.job_id}
    (here / stamps.STATE_DIR / stamps.BATCHES).write_text(json.dumps({job.job_id: "jobs/elsewhere"}))
    assert stamps._planned_batches(here / stamps.STATE_DIR) == {job.job_id: "jobs/elsewhere"}
    (here / stamps.STATE_DIR / stamps.BATCHES).write_text("[1, 2]")
    assert stamps._planned_batches(here / stamps.STATE_DIR) == {}


def test_a_cluster_jobs_parse_reads_the_stamps_and_batches_its_run_left(here):
    """planned_states gives what refresh_states and plan_batches gave the run's own parse, without
    a stat, a hash or a write, even when a file changed since (that run did not plan it)."""
    shutil.copytree(here / "jobs" / "oracle", here / "jobs" / "oracle-again")
    jobs = discover.find_jobs(["jobs"])
    found, records = stamps.refresh_states(list(jobs.values()), 8)
    batches = stamps.plan_batches(jobs, records, found)
    before = {path: path.stat().st_mtime_ns for path in (here / stamps.STATE_DIR).iterdir()}
    attempt = next(path for path in (here / "jobs" / "oracle").iterdir() if path.is_dir())
    (attempt / "result.json").write_text("{}")
    assert stamps.planned_states(jobs, 8) == (found, batches)
    assert {path: path.stat().st_mtime_ns for path in (here / stamps.STATE_DIR).iterdir()} == before


def test_batches_join_small_folders_of_one_matrix_cell_up_to_the_bound():
    relpaths = [
        "m/cell-a/trial-01/t1",
        "m/cell-a/trial-02/t2",
        "m/cell-a/trial-03/t3",
        "m/cell-b/trial-01/t1",
        "plain/run-1",
        "plain/run-2",
        "plain/run-3",
        "other/run-1",
        "other/run-2",
    ]
    jobs = {job.job_id: job for job in (discover._job_folder("jobs", "jobs", relpath) for relpath in relpaths)}
    bound = stamps.BATCH_ATTEMPTS
    attempts = dict.fromkeys(jobs, bound // 3)
    attempts["jobs/plain/run-2"] = bound  # a large folder: a batch of its own
    batches = stamps.ingest_batches(jobs, attempts)
    assert batches == {
        "jobs/m/cell-a/trial-01/t1": [
            "jobs/m/cell-a/trial-01/t1",
            "jobs/m/cell-a/trial-02/t2",
            "jobs/m/cell-a/trial-03/t3",
        ],
        "jobs/m/cell-b/trial-01/t1": ["jobs/m/cell-b/trial-01/t1"],
        # folders outside a matrix, side by side, may be any agent's: each alone
        "jobs/other/run-1": ["jobs/other/run-1"],
        "jobs/other/run-2": ["jobs/other/run-2"],
        "jobs/plain/run-1": ["jobs/plain/run-1"],
        "jobs/plain/run-2": ["jobs/plain/run-2"],
        "jobs/plain/run-3": ["jobs/plain/run-3"],
    }
    # the cell one attempt folder past the bound: its third folder no longer fits beside the first two
    attempts["jobs/m/cell-a/trial-03/t3"] += bound - 3 * (bound // 3) + 1
    assert stamps.ingest_batches(jobs, attempts)["jobs/m/cell-a/trial-03/t3"] == ["jobs/m/cell-a/trial-03/t3"]
    # every folder in exactly one batch, in job id order
    members = [job_id for batch in batches.values() for job_id in batch]
    assert members == sorted(jobs)
    # a large folder is alone whatever the folders beside it count, none included
    cell = {job_id: job for job_id, job in jobs.items() if "/cell-a/" in job_id}
    first, second, third = sorted(cell)
    counts = {first: 0, second: bound, third: 3}
    assert stamps.ingest_batches(cell, counts) == {first: [first], second: [second], third: [third]}
    counts = {first: 0, second: 0, third: bound}
    assert stamps.ingest_batches(cell, counts) == {first: [first, second], third: [third]}
