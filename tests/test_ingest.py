"""Discovery, classification and ingest on the real BenchFlow 0.7.12 folders and edits of them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from benchreport.pipeline import planning, stamps
from benchreport.read import classify, discover, duplicates, ingest
from conftest import EXAMPLE, REPO, scan_and_spool

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
    data.update(
        rewards=None,
        error="agent idle for 600s",
        error_category="idle_timeout",
        started_at="2026-11-30 05:00:00.000000",
        finished_at="2026-11-30 05:01:00.000000",
    )
    (retry / "result.json").write_text(json.dumps(data))
    result = ingest.ingest_job(job)
    trial = next(t for t in result["trials"] if t["task"] == "spec-pass")
    assert (trial["folder"], trial["outcome"], trial["attempts"]) == ("spec-pass__3d1c0484", "passed", 2)
    assert trial["attempt_outcomes"] == ["passed", "errored"]
    # BenchFlow's summary would count the last attempt: the difference is recorded per trial
    assert trial["benchflow_bucket"] == "errored"


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
    assert (
        "spec-noreward__0b4011b0/config.json",
        "is a link pointing outside the job root; it was not read",
    ) in reasons
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


def oracle_jobs(tmp_path):
    """jobs/A/<job>, a backup copy `A (copy)` beside it, and a link to the jobs folder."""
    jobs = tmp_path / "jobs"
    shutil.copytree(EXAMPLE / "benchflow-samples/v0.7.12-real/oracle-run", jobs / "A")
    shutil.copytree(jobs / "A", jobs / "A (copy)")
    os.symlink("jobs", tmp_path / "jobs-link")
    return jobs


def test_an_attempt_reached_in_several_places_is_counted_once(tmp_path):
    """Nested roots, a link to a root and a backup copy: 4 attempts, found 20 times, counted
    once each, and every other place has a ledger row naming the one that counts."""
    jobs = oracle_jobs(tmp_path)
    roots = [str(jobs), str(jobs / "A"), str(tmp_path / "jobs-link")]
    found = discover.find_job_folders(roots)
    assert len(found) == 5
    _, records = stamps.refresh_folders(found, 20, tmp_path / "state", lambda job: {})
    found_twice = duplicates.find(found, roots, records)
    by_id = {job.job_id: job for job in found}
    kept = by_id["jobs/A/2026-11-30__04-23-02"]
    assert kept.job_id not in found_twice
    assert (
        found_twice["A/2026-11-30__04-23-02"]
        == found_twice["jobs-link/A/2026-11-30__04-23-02"]
        == {
            "": f"the same folder as {kept.name} (one real folder reached twice, through overlapping job_roots or a "
            "link); counted once, there"
        }
    )
    assert found_twice["jobs-link/A (copy)/2026-11-30__04-23-02"][""].startswith("the same folder as jobs/A (copy)/")
    copy = found_twice["jobs/A (copy)/2026-11-30__04-23-02"]
    assert sorted(copy) == [
        "spec-fail__67b8813a",
        "spec-noreward__0b4011b0",
        "spec-partial__0702bc7f",
        "spec-pass__3d1c0484",
    ]
    assert copy["spec-pass__3d1c0484"].startswith(f"the same attempt as {kept.name}/spec-pass__3d1c0484")
    ingests = [ingest.ingest_job(job, duplicates=found_twice.get(job.job_id)) for job in found]
    assert sum(len(result["trials"]) for result in ingests) == 4
    for result in ingests:
        counts = ingest.job_ledger(result)["counts"]
        assert counts["found"] == 4 and counts["adds_up"]
    # edited, the copy is an attempt of its own again
    result_json = jobs / "A (copy)/2026-11-30__04-23-02/spec-pass__3d1c0484/result.json"
    result_json.write_text(result_json.read_text().replace("04:23:02", "05:23:02"))
    _, records = stamps.refresh_folders(found, 20, tmp_path / "state", lambda job: {})
    again = duplicates.find(found, roots, records)
    assert "spec-pass__3d1c0484" not in again["jobs/A (copy)/2026-11-30__04-23-02"]


def test_an_unreadable_job_folder_is_a_ledger_row(tmp_path):
    """Without root's file-permission capabilities (as any other user runs): the folder is
    found, its ingest is a ledger row, and the folder beside it still reports."""
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv (util-linux) is needed to drop the capabilities")
    shutil.copytree(EXAMPLE / "benchflow-samples/v0.7.12-real/oracle-run", tmp_path / "readable")
    shutil.copytree(EXAMPLE / "benchflow-samples/v0.7.12-real/oracle-run", tmp_path / "locked")
    (tmp_path / "locked").chmod(0)
    code = (
        "import json; from benchreport.read.discover import find_job_folders; from benchreport.read.ingest import ingest_job;"
        f"print(json.dumps({{j.job_id: ingest_job(j) for j in find_job_folders([{str(tmp_path)!r}])}}))"
    )
    drop = "-dac_override,-dac_read_search"
    done = subprocess.run(
        ["setpriv", f"--bounding-set={drop}", f"--inh-caps={drop}", sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO / "workflow" / "scripts")},
    )
    (tmp_path / "locked").chmod(0o755)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    locked = found[f"{tmp_path.name}/locked"]
    assert locked["trials"] == [] and locked["ledger"] == [
        {
            "job": f"{tmp_path.name}/locked",
            "folder": "",
            "file": ".",
            "reason": "the folder cannot be read (permission denied)",
            "effect": ingest.FOLDER_NOT_READ,
        }
    ]
    assert ingest.job_ledger(locked)["counts"]["adds_up"]
    assert len(found[f"{tmp_path.name}/readable/2026-11-30__04-23-02"]["trials"]) == 4


@pytest.mark.parametrize("passed,gate", [("false", None), ("true", None), (1, None), (False, False), (True, True)])
def test_a_review_verdict_must_be_a_boolean(passed, gate):
    record = {"scoring": {"status": "complete", "passed": passed}, "rewards": {"reward": 0.0}}
    assert classify.extract_reward(record) == (0.0, gate)
    assert (classify.gate_problem(record) is None) == isinstance(passed, bool)
    assert classify.score_outcome(0.0, gate, None, None, True) == ("passed" if passed is True else "failed")


def test_stale_outputs_are_removed(tmp_path):
    results = tmp_path / "results"
    for path in (
        "reports/kept/report.md",
        "reports/gone/report.md",
        "settings/gone/stats.json",
        "lineage/reports/gone/report.md.json",
        "lineage/settings/kept/stats.json.json",
        "ingest/root/old/trials.json",
        "ingest/root/old/ledger.json",
        "lineage/ingest/root/old/trials.json.json",
        "ingest/root/old/new/trials.json",
        "coverage/10x3.json",
        "coverage/4x3+6x4.json",
        "lineage/coverage/10x3.json.json",
        "lineage/coverage/4x3+6x4.json.json",
        "environment/images/kept-image.json",
        "environment/images/gone-image.json",
        "lineage/environment/images/gone-image.json.json",
    ):
        (results / path).parent.mkdir(parents=True, exist_ok=True)
        (results / path).write_text("{}")
    planned = {"coverage/4x3+6x4.json", "environment/images/kept-image.json"}
    removed = planning.remove_stale_outputs(results, {"kept"}, {"root/old/new"}, planned)
    assert removed == sorted(
        f"{results}/{path}"
        for path in (
            "reports/gone",
            "settings/gone",
            "lineage/reports/gone",
            "ingest/root/old/trials.json",
            "ingest/root/old/ledger.json",
            "lineage/ingest/root/old/trials.json.json",
            "coverage/10x3.json",
            "lineage/coverage/10x3.json.json",
            "environment/images/gone-image.json",
            "lineage/environment/images/gone-image.json.json",
        )
    )
    assert (results / "ingest/root/old/new/trials.json").is_file() and (results / "reports/kept/report.md").is_file()
    assert not (results / "lineage/ingest/root").exists()
    assert {path.relative_to(results).as_posix() for path in results.rglob("*.json*") if "coverage" in path.parts} == {
        "coverage/4x3+6x4.json",
        "lineage/coverage/4x3+6x4.json.json",
    }
    assert (results / "environment/images/kept-image.json").is_file()
    assert planning.remove_stale_outputs(results, {"kept"}, {"root/old/new"}, planned) == []


def ingest_all(root) -> list[dict]:
    """ingest_job of every job folder under root, without the lineage sources (file hashes)."""
    return [
        {k: v for k, v in ingest.ingest_job(job).items() if k != "sources"}
        for job in discover.find_job_folders([str(root)])
    ]


def test_ingest_of_redacted_files_equals_the_redacted_ingest(tmp_path):
    """The bundle's inputs are redacted by the bundle writer, the original's values by ingest:
    both must give the same rows and ledger, or a bundle with a secret in it fails its verify.
    Planted: a key quoted in an error, the same key and a password as agent_env values of
    another attempt, and that password quoted in a third attempt's error (one job folder: ingest
    reads one at a time, so a value known in one is not known in another)."""
    from benchflow_synth import write_matrix
    from benchreport.archive import bundle

    key, password = "sk-ant-api03-PLANTEDplantedPLANTED0123456789abcdef", "hunter2-hunter2"
    tries = [
        [
            {"task": t, "attempts": [{"kind": k}]}
            for t, k in (("alpha", "passed"), ("beta", "failed"), ("gamma", "failed"))
        ]
    ]
    write_matrix(
        tmp_path / "original" / "jobs",
        alias="a",
        setting={"agent": "claude-agent-acp", "model": "m"},
        tries=tries,
        seed=9,
        start="2026-11-30 10:00:00",
    )
    results = sorted((tmp_path / "original").rglob("result.json"))
    configs = sorted((tmp_path / "original").rglob("config.json"))
    for path, error in (
        (results[0], f"provider said: invalid x-api-key {key}"),
        (results[-1], f"login {password} failed"),
    ):
        data = json.loads(path.read_text())
        data["error"] = error
        path.write_text(json.dumps(data, indent=2))
    data = json.loads(configs[1].read_text())
    data["agent_env"] = {"ANTHROPIC_API_KEY": key, "MY_DB_PASSWORD": password}
    configs[1].write_text(json.dumps(data, indent=2))

    original = ingest_all(tmp_path / "original" / "jobs")
    plan = {}
    for job in discover.find_job_folders([str(tmp_path / "original" / "jobs")]):
        files = bundle.job_files(
            {"relpath": job.relpath, "id": job.job_id}, job.root, trajectories=False, max_requests=20
        )[0]
        plan.update({f"{job.relpath}/{relpath}": source for relpath, source in files.items()})
    entries = scan_and_spool(plan, set(), tmp_path)[0]
    for name in entries:
        (tmp_path / "redacted" / "jobs" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "redacted" / "jobs" / name).write_bytes(entries[name])
    assert key.encode() not in b"".join(entries[name] for name in entries)
    again = ingest_all(tmp_path / "redacted" / "jobs")
    assert json.dumps(again, sort_keys=True) == json.dumps(original, sort_keys=True)
    reasons = {row["reason"] for one in original for row in one["ledger"]}
    assert {"a secret (anthropic api key) in error was redacted", "a secret (secret) in error was redacted"} <= reasons
    assert key not in json.dumps(original) and password not in json.dumps(original)


def test_a_job_folder_that_is_a_link_is_a_ledger_row_and_never_read(tmp_path):
    """A link to a job folder outside the root (whose summary.json is a FIFO: reading it would
    hang) and one to a job folder inside it: each a job with one ledger row and nothing read; the
    real folder counted once, where it is."""
    from benchreport.archive import bundle

    shutil.copytree(EXAMPLE / "benchflow-samples/v0.7.12-real/oracle-run", tmp_path / "root" / "oracle-run")
    shutil.copytree(EXAMPLE / "benchflow-samples/v0.7.12-real/oracle-run", tmp_path / "outside" / "oracle-run")
    outside_job = tmp_path / "outside" / "oracle-run" / "2026-11-30__04-23-02"
    (outside_job / "summary.json").unlink()
    os.mkfifo(outside_job / "summary.json")
    os.symlink(outside_job, tmp_path / "root" / "elsewhere")
    os.symlink("oracle-run", tmp_path / "root" / "latest")
    jobs = {job.relpath: job for job in discover.find_job_folders([str(tmp_path / "root")])}
    assert set(jobs) == {"elsewhere", "latest", "oracle-run/2026-11-30__04-23-02"}
    assert duplicates.find(list(jobs.values()), [str(tmp_path / "root")], {}) == {}
    for relpath, words in (
        ("elsewhere", "outside the job root"),
        ("latest", "a link to oracle-run in the same job root"),
    ):
        assert stamps.stat_state(jobs[relpath]) == ({}, {})
        result = ingest.ingest_job(jobs[relpath])
        assert result["trials"] == [] and result["sources"] == []
        (row,) = result["ledger"]
        assert row["file"] == "." and words in row["reason"] and row["effect"].startswith("folder not read")
        assert bundle.job_files(
            {"relpath": relpath, "id": relpath}, str(tmp_path / "root"), trajectories=False, max_requests=20
        ) == ({}, [], [])
    assert len(ingest.ingest_job(jobs["oracle-run/2026-11-30__04-23-02"])["trials"]) == 4


def test_an_attempt_folder_that_is_a_link_is_a_ledger_row(tmp_path):
    job = job_copy(tmp_path, "v0.7.12-real/oracle-run/2026-11-30__04-23-02")
    shutil.move(job.path / "spec-pass__3d1c0484", tmp_path / "moved")
    os.symlink(tmp_path / "moved", job.path / "spec-pass__3d1c0484")
    result = ingest.ingest_job(job)
    assert sorted(t["task"] for t in result["trials"]) == ["spec-fail", "spec-noreward", "spec-partial"]
    (row,) = [row for row in result["ledger"] if row["folder"] == "spec-pass__3d1c0484"]
    assert "a link to a folder outside the job root" in row["reason"]


def test_a_secret_inside_a_span_begun_in_another_string_is_still_redacted(tmp_path):
    """clean_attempts searches the rows' strings joined: a private-key block opened in one trial's
    error and closed in another's spans the strings between them, and a key standing alone in one
    of those is still found and redacted."""
    job = job_copy(tmp_path, "v0.7.12-real/oracle-run/2026-11-30__04-23-02")
    key = "sk-ant-" + "abcdefghij" * 3
    errors = {
        "spec-fail__67b8813a": "a -----BEGIN RSA PRIVATE KEY-----",
        "spec-pass__3d1c0484": f"b the agent printed {key}",
    }
    for folder, error in errors.items():
        data = json.loads((job.path / folder / "result.json").read_text())
        data["error"] = error
        (job.path / folder / "result.json").write_text(json.dumps(data))
    (job.path / "oracle-closing__00000000").mkdir()
    data["error"] = "c -----END RSA PRIVATE KEY-----"
    (job.path / "oracle-closing__00000000/result.json").write_text(json.dumps(data))
    result = ingest.ingest_job(job)
    assert key not in json.dumps(result)
    assert "b the agent printed [REDACTED:anthropic api key]" in [t["error"] for t in result["trials"]]
