"""Discovery, classification and ingest on the real BenchFlow 0.7.12 folders and edits of them."""

from __future__ import annotations

import json
import os
import shutil
import pytest

from benchreport import classify, discover, forked, ingest
from conftest import EXAMPLE

REAL = [str(EXAMPLE / "benchflow-real-jobs"), str(EXAMPLE / "benchflow-samples")]


def test_discovers_plain_and_matrix_layouts():
    jobs = {job.job_id: job for job in discover.find_job_folders(REAL)}
    assert len(jobs) == 14
    matrix = jobs["benchflow-real-jobs/script-run/oracle-x3/oracle/trial-02/2026-11-30__04-36-33"]
    assert (matrix.try_index, matrix.alias) == (2, "oracle")
    plain = jobs["benchflow-samples/v0.7.12-real/oracle-run/2026-11-30__04-23-02"]
    assert plain.try_index is None
    # the jobs-dir copy of summary.json next to a job folder is not a job
    assert "benchflow-samples/v0.7.12-real/oracle-run" not in jobs


def test_roots_with_the_same_name_get_distinct_labels(tmp_path):
    for side in ("a", "b"):
        shutil.copytree(EXAMPLE / "benchflow-real-jobs/extra", tmp_path / side / "jobs")
    jobs = discover.find_job_folders([str(tmp_path / "a/jobs"), str(tmp_path / "b/jobs")])
    assert len({job.job_id for job in jobs}) == len(jobs) == 4


@pytest.mark.parametrize(
    "reward,error,verifier_error,outcome,audit",
    [
        (1.0, None, None, "passed", "passed"),
        (0.5, None, None, "failed", "failed"),
        (1.0, "timed out", None, "passed", "passed"),
        (1.0, None, "crashed", "passed", "verifier_errored"),
        (None, "boom", None, "errored", "errored"),
        (None, None, "crashed", "verifier_errored", "verifier_errored"),
        (None, None, None, "unscored", "unscored"),
    ],
)
def test_outcome_rules(reward, error, verifier_error, outcome, audit):
    assert classify.score_outcome(reward, None, error, verifier_error) == outcome
    assert classify.audit_outcome(reward, None, error, verifier_error, False) == audit


@pytest.mark.parametrize("value", ["1", float("nan"), float("inf"), -0.1, 1.5, True, [1]])
def test_rewards_no_verifier_may_give_are_refused(value):
    with pytest.raises(classify.BadReward):
        classify.extract_reward({"rewards": {"reward": value}})


def test_controls_are_classified_whatever_the_model_says():
    assert classify.control_kind("oracle", "t", None, ()) == "oracle"
    assert classify.control_kind("claude", "t__o", None, ()) == "oracle"
    assert classify.control_kind("nop-acp", "t", None, ("nop-acp",)) == "nop"
    assert classify.control_kind("claude", "t", "empty-1", ()) == "nop"
    assert classify.control_kind("claude", "t", None, ()) is None


def job_copy(tmp_path, relpath):
    shutil.copytree(EXAMPLE / "benchflow-samples", tmp_path / "root")
    return next(j for j in discover.find_job_folders([str(tmp_path / "root")]) if j.relpath == relpath)


def test_retries_collapse_scored_first_then_newest(tmp_path):
    job = job_copy(tmp_path, "v0.7.12-real/oracle-run/2026-11-30__04-23-02")
    # a second, later attempt of spec-pass that errored without a reward
    retry = job.path / "spec-pass__aaaaaaaa"
    shutil.copytree(job.path / "spec-pass__3d1c0484", retry)
    data = json.loads((retry / "result.json").read_text())
    data.update(rewards=None, error="agent idle for 600s", error_category="idle_timeout",
                started_at="2026-11-30 05:00:00.000000", finished_at="2026-11-30 05:01:00.000000")
    (retry / "result.json").write_text(json.dumps(data))
    result = ingest.ingest_job(job)
    trial = next(t for t in result["trials"] if t["task"] == "spec-pass")
    assert (trial["folder"], trial["outcome"], trial["attempts"]) == ("spec-pass__3d1c0484", "passed", 2)
    assert trial["attempt_outcomes"] == ["passed", "errored"]
    # BenchFlow's summary would count the last attempt: the difference is recorded per trial
    assert trial["benchflow_bucket"] == "errored"


@pytest.mark.parametrize("workers", [2, 3])
def test_reading_in_forked_shares_gives_the_same_ingest(tmp_path, monkeypatch, workers):
    """An edited trial's folder is read by two processes (ingest_threads in common.smk): every
    row, ledger row and source comes out as one process reads them, bad files included."""
    job = job_copy(tmp_path, "v0.7.12-real/oracle-run/2026-11-30__04-23-02")
    (job.path / "spec-fail__67b8813a/result.json").unlink()  # interrupted
    (job.path / "spec-pass__3d1c0484/timing.json").write_text("[1, 2]")  # a ledger row
    alone = ingest.ingest_job(job, 20, workers=workers)  # below PARALLEL_MIN_ATTEMPTS: one process
    monkeypatch.setattr(ingest, "PARALLEL_MIN_ATTEMPTS", 1)
    pools = []
    get_context = forked.multiprocessing.get_context
    monkeypatch.setattr(forked.multiprocessing, "get_context", lambda kind: pools.append(kind) or get_context(kind))
    shared = ingest.ingest_job(job, 20, workers=workers)
    assert pools == ["fork"]  # read in forked processes
    assert shared == alone and alone["ledger"] and alone["sources"]
    assert any(t["outcome"] == "interrupted" for t in shared["trials"])


def test_interrupted_attempt_and_bad_files(tmp_path):
    job = job_copy(tmp_path, "v0.7.12-real/oracle-run/2026-11-30__04-23-02")
    (job.path / "spec-fail__67b8813a/result.json").unlink()
    (job.path / "spec-pass__3d1c0484/timing.json").write_text("[1, 2]")
    os.symlink("/etc/hostname", job.path / "spec-noreward__0b4011b0/config.json.tmp")
    (job.path / "spec-noreward__0b4011b0/config.json").unlink()
    os.rename(job.path / "spec-noreward__0b4011b0/config.json.tmp", job.path / "spec-noreward__0b4011b0/config.json")
    result = ingest.ingest_job(job)
    by_task = {t["task"]: t for t in result["trials"]}
    assert by_task["spec-fail"]["outcome"] == "interrupted"
    reasons = {(row["file"], row["reason"]) for row in result["ledger"]}
    assert ("spec-pass__3d1c0484/timing.json", "holds a list, not a JSON object") in reasons
    assert ("spec-noreward__0b4011b0/config.json", "is a link pointing outside the job root; it was not read") in reasons
    assert all(not source["path"].startswith("/etc") for source in result["sources"])
    assert by_task["spec-noreward"]["outcome"] == "verifier_errored"  # result.json still read


def test_sampling_reads_only_the_first_requests(tmp_path):
    job = job_copy(tmp_path, "v0.7.12-real/oracle-run/2026-11-30__04-23-02")
    sample = EXAMPLE / "llm_trajectory-sample.jsonl"  # the exact 0.7.12 line (benchflow-samples)
    trajectory = job.path / "spec-pass__3d1c0484/trajectory/llm_trajectory.jsonl"
    body = sample.read_bytes().rstrip(b"\n") + b"\n"
    trajectory.write_bytes(body * 25 + b"{not json\n")
    result = ingest.ingest_job(job, max_requests=20)
    trial = next(t for t in result["trials"] if t["task"] == "spec-pass")
    assert trial["requests_read"] == 20
    assert trial["served_models"] == ["claude-haiku-4-5-20251001"]
    assert trial["sampling"] == {"thinking": ['{"budget_tokens":1024,"type":"enabled"}']}
    source = next(s for s in result["sources"] if s["path"].endswith("llm_trajectory.jsonl"))
    assert source["bytes"] == len(body) * 20
    assert not result["ledger"]  # the bad 26th line is never read
