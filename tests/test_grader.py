"""The grader (benchreport.read.grader): who graded each trial, on real BenchFlow 0.7.12 job folders
(no model grades there: the verifier is a script, though summary.json configures a reviewer)
and on generated jobs with an integrated rubric review (resources/benchflow_synth/
review-jobs). Expectations come from the job files, read here, not from the code under test."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import benchflow_synth as synth
import pytest
from benchreport.read import grader
from benchreport.record import report
from conftest import EXAMPLE

REAL_ROOTS = [
    EXAMPLE / "benchflow-real-jobs",
    EXAMPLE / "benchflow-samples" / "v0.7.12-real",
]


def load(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))


def job_dirs(root: Path) -> list[Path]:
    """Folders holding <task>__<hex> attempt folders (found here without benchreport.read.discover)."""
    return sorted({marker.parent.parent for marker in root.rglob("config.json") if "__" in marker.parent.name})


def review_listing(trial: Path) -> list[dict]:
    """What ingest must pass as `reviews`: the files under reviews/ and scoring/, with sha256,
    and the parsed JSON of reviews/<id>/result.json (the reviewer's own run)."""
    entries = []
    for sub in ("reviews", "scoring"):
        for path in sorted((trial / sub).rglob("*")) if (trial / sub).is_dir() else []:
            if path.is_file():
                rel = path.relative_to(trial).as_posix()
                data = load(path) if path.name == "result.json" else None
                entries.append({"path": rel, "sha256": hashlib.sha256(path.read_bytes()).hexdigest(), "data": data})
    return entries


def trial_row(job: Path, trial: Path) -> dict:
    """A trial row as the report has it, graded by the functions under test."""
    read = {
        name: load(trial / name) if (trial / name).is_file() else None
        for name in ("result.json", "config.json", "solver.json")
    }
    result = read["result.json"] or {}
    rewards = result.get("rewards") if isinstance(result.get("rewards"), dict) else {}
    return {
        "task": trial.name.rsplit("__", 1)[0],
        "job": job.name,
        "folder": trial.name,
        "try_index": None,
        "reward": rewards.get("reward"),
        "outcome": None,
        "grading": grader.trial_grading(
            read["result.json"], read["config.json"], read["solver.json"], review_listing(trial)
        ),
    }


@pytest.fixture(scope="module")
def review_jobs(tmp_path_factory) -> dict[str, Path]:
    return synth.build_review_jobs(tmp_path_factory.mktemp("review-jobs"))


# ------------------------------------------------------------------------------------------
# real job folders: the verifier is a script


@pytest.mark.parametrize("root", REAL_ROOTS, ids=lambda root: root.name)
def test_no_model_grades_the_real_jobs_and_the_report_says_the_verifier_was_a_script(root):
    jobs = job_dirs(root)
    assert jobs, f"no job folder under {root}"
    for job in jobs:
        trials = [child for child in sorted(job.iterdir()) if child.is_dir()]
        results = [load(t / "result.json") for t in trials if (t / "result.json").is_file()]
        assert not any("scoring" in result for result in results)  # what the files say
        rows = [trial_row(job, trial) for trial in trials]
        assert all(row["grading"] is None for row in rows)
        summary = load(job / "summary.json") if (job / "summary.json").is_file() else None
        configured = grader.reviewer_config(summary)
        description = grader.describe_grader(rows, [configured])
        assert description["kind"] == "script" and not description["model_graded"]
        assert description["graded_trials"] == 0 and description["script_trials"] == len(trials)
        assert description["sentence"].startswith("The verifier was a script")
        assert ("graded the trial " if len(trials) == 1 else f"any of the {len(trials)} trials") in description[
            "sentence"
        ]
        if summary and isinstance(summary.get("reviewer"), dict):
            # 0.7.12 writes a reviewer block for every job: configured, never used here
            assert configured["agent"] == summary["reviewer"]["agent"]
            assert configured["image"] == summary["reviewer"]["image"]
            assert description["reviewer_configured_unused"]
            assert f"({summary['reviewer']['agent']})" in description["sentence"]
        assert description["missing"] == [] and description["per_trial"] == []


def test_reviewer_config_of_the_real_oracle_run_reads_every_field():
    summary = load(REAL_ROOTS[1] / "oracle-run" / "2026-11-30__04-23-02" / "summary.json")
    block = summary["reviewer"]
    config = grader.reviewer_config(summary)
    assert (config["agent"], config["model"], config["reasoning_effort"]) == (
        block["agent"],
        block["model"],
        block["reasoning_effort"],
    )
    assert config["timeout_sec"] == block["timeout_sec"] and config["open_network"] is block["open_network"]
    assert grader.reviewer_config({"job_name": "x"}) is None and grader.reviewer_config(None) is None


# ------------------------------------------------------------------------------------------
# generated job with an integrated rubric review


def _rows(job: Path) -> dict[str, dict]:
    return {row["task"]: row for row in (trial_row(job, t) for t in sorted(job.iterdir()) if t.is_dir())}


def test_rubric_review_job_is_described_from_its_files(review_jobs):
    job = review_jobs["rubric-review"]
    rows = _rows(job)
    summary = load(job / "summary.json")
    reviewed = sorted(t.name.rsplit("__", 1)[0] for t in job.iterdir() if (t / "solver.json").is_file())
    description = grader.describe_grader(list(rows.values()), [grader.reviewer_config(summary)])
    assert description["graded_trials"] == len(reviewed) == 5
    assert description["kind"] == "mixed" and description["script_trials"] == len(rows) - len(reviewed)
    assert sorted(row["task"] for row in description["per_trial"]) == reviewed
    # the reviewer read from the reviewer's own runs agrees with summary.json's reviewer block
    block = summary["reviewer"]
    assert [(r["agent"], r["model"], r["reasoning_effort"]) for r in description["reviewers"]] == [
        (block["agent"], block["model"], block["reasoning_effort"])
    ]
    assert description["reviewer_source"] == "reviewer runs under reviews/"
    assert description["policies"] == sorted({load(p)["policy"] for p in job.glob("*/scoring/*.json")})
    assert f"agent {block['agent']}, {block['model']}, effort {block['reasoning_effort']}" in description["sentence"]
    assert "graded by the verifier script alone" in description["sentence"]


def test_rubric_file_and_digest_come_from_the_recorded_source(review_jobs):
    rows = _rows(review_jobs["rubric-review"])
    for task, row in rows.items():
        if row["grading"] is None:
            continue
        expected = "sha256:" + hashlib.sha256(synth.rubric_text(task).encode()).hexdigest()
        record = "solver.json" if row["grading"]["status"] == "pending" else "result.json"
        assert row["grading"]["rubric"] == [
            {"path": f"tasks/{task}/rubric.toml", "sha256": expected, "from": f"{record} source.file_hashes"}
        ]
    description = grader.describe_grader(list(rows.values()))
    assert len(description["rubrics"]) == 5  # one rubric file per reviewed task, each recorded
    assert all(rubric["sha256"] and rubric["trials"] == 1 for rubric in description["rubrics"])
    assert "rubric.toml (sha256:" in description["sentence"]


def _rubric_reward(review: dict) -> float:
    """docs/rubric-review.md: sum(score * weight) / (2 * sum of non-blocker weights)."""
    quality = [item for item in review["items"] if not item["blocker"]]
    return sum(item["score"] * item["weight"] for item in quality) / (2 * sum(item["weight"] for item in quality))


def test_each_trials_model_verdict_stands_beside_its_verifier_reward(review_jobs):
    job = review_jobs["rubric-review"]
    rows = _rows(job)
    per_trial = {row["task"]: row for row in grader.describe_grader(list(rows.values()))["per_trial"]}
    for trial in (t for t in job.iterdir() if (t / "solver.json").is_file()):
        task = trial.name.rsplit("__", 1)[0]
        solver = load(trial / "solver.json")  # the verifier's result before the review
        assert per_trial[task]["verifier_reward"] == solver["rewards"]["reward"]
        if (trial / "reviews" / "r1" / "review.json").is_file():
            review = load(trial / "reviews" / "r1" / "review.json")
            assert per_trial[task]["rubric_reward"] == pytest.approx(_rubric_reward(review))
            blockers_failed = [item["id"] for item in review["items"] if item["blocker"] and not item["passed"]]
            assert per_trial[task]["failed_blockers"] == blockers_failed
            gate = solver["rewards"]["reward"] == 1.0 and not blockers_failed
            assert per_trial[task]["gate_passed"] is gate
            assert per_trial[task]["model_verdict"].startswith("passed" if gate else "failed")
    assert (
        per_trial["config-migration"]["model_verdict"] == "failed the rubric gate (blockers failed: no-secrets-in-logs)"
    )
    assert per_trial["flaky-retry"]["model_verdict"] == "failed the rubric gate (tests failed)"
    assert per_trial["schema-diff"]["status"] == "error" and "timed out" in per_trial["schema-diff"]["model_verdict"]
    assert per_trial["cache-invalidation"]["status"] == "pending"
    assert per_trial["cache-invalidation"]["model_verdict"].startswith("review pending")


def test_trials_without_a_verdict_are_named_as_missing(review_jobs):
    rows = list(_rows(review_jobs["rubric-review"]).values())
    missing = grader.describe_grader(rows)["missing"]
    without = sum(row["grading"] is not None and row["grading"]["status"] in ("pending", "error") for row in rows)
    assert without == 2
    assert missing == [f"a verdict for {without} graded trials (review pending or failed)"]


def test_markdown_section_has_one_row_per_graded_trial(review_jobs):
    description = grader.describe_grader(list(_rows(review_jobs["rubric-review"]).values()))
    text = report.grader_markdown(description)
    rows = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith(("| Task", "| ---"))]
    assert len(rows) == description["graded_trials"]
    assert "| Verifier reward | Model verdict |" in text and "None" not in text


# ------------------------------------------------------------------------------------------
# unit rules


def test_rubric_sources_in_order_of_preference():
    digest = "ab" * 32
    source = {"path": "tasks/t", "file_hashes": {"rubric.md": f"sha256:{'cd' * 32}", "tests/x": f"sha256:{'ef' * 32}"}}
    listing = [{"path": "reviews/r1/rubric.md", "sha256": "12" * 32}]
    explicit = {
        "scoring": {"status": "complete", "rubric_path": "rubrics/t.md", "rubric_sha256": digest},
        "source": source,
    }
    assert grader.rubric_files(explicit) == [
        {"path": "rubrics/t.md", "sha256": f"sha256:{digest}", "from": "result.json scoring"}
    ]
    assert grader.rubric_files({"source": source}, {"review": {"rubric": "r.toml"}})[0]["from"] == "config.json review"
    assert grader.rubric_files({"source": source}) == [
        {"path": "tasks/t/rubric.md", "sha256": f"sha256:{'cd' * 32}", "from": "result.json source.file_hashes"}
    ]
    assert grader.rubric_files({}, {}, listing) == [
        {"path": "reviews/r1/rubric.md", "sha256": f"sha256:{'12' * 32}", "from": "reviews/ listing"}
    ]
    assert grader.rubric_files({}, {}, []) == []


@pytest.mark.parametrize(
    "value,expected",
    [
        ("AB" * 32, "sha256:" + "ab" * 32),
        ("sha256:" + "0f" * 32, "sha256:" + "0f" * 32),
        ("sha256:abc", None),
        (42, None),
    ],
)
def test_digests_are_normalised_or_refused(value, expected):
    assert grader.sha256_text(value) == expected


def test_an_unrecorded_reviewer_model_effort_and_rubric_are_named():
    scoring = {
        "status": "complete",
        "passed": True,
        "tests_pass": True,
        "all_blockers_pass": True,
        "verifier_reward": 1.0,
        "rubric_reward": 0.75,
        "policy": "tests-blockers-quality-v1",
    }
    row = {
        "task": "t",
        "job": "j",
        "folder": "t__00000000",
        "reward": 0.75,
        "outcome": "passed",
        "grading": grader.trial_grading({"scoring": scoring, "rewards": {"reward": 0.75}}),
    }
    reviewer = {"agent": "opencode", "model": None, "reasoning_effort": None}
    description = grader.describe_grader([row], [reviewer])
    assert description["kind"] == "model"
    assert description["missing"] == [
        "the reviewer's model (summary.json reviewer.model is null)",
        "the reviewer's effort",
        "the rubric file (1 of 1 graded trials name none)",
    ]
    assert "model not recorded (the reviewer agent's default), effort not recorded" in description["sentence"]
    assert description["per_trial"][0]["model_verdict"] == "passed the rubric gate"


def test_a_folder_with_only_solver_json_is_a_pending_review_with_the_verifiers_reward():
    grading = grader.trial_grading(None, {"task_path": "t"}, {"rewards": {"reward": 0.0}})
    assert grading["status"] == "pending" and grading["verifier_reward"] == 0.0 and grading["gate_passed"] is None


def test_a_secret_in_a_review_error_is_redacted():
    key = "sk-ant-" + "a1" * 20
    grading = grader.trial_grading({"scoring": {"status": "error", "error": f"auth failed for {key}"}})
    assert key not in grading["error"] and key not in grading["verdict"]


def test_a_task_graded_against_two_rubric_versions_is_named():
    def row(folder, digest):
        scoring = {
            "status": "complete",
            "passed": False,
            "tests_pass": False,
            "rubric_sha256": digest,
            "rubric_path": "rubric.md",
        }
        return {
            "task": "t",
            "job": "j",
            "folder": folder,
            "reward": 0.0,
            "outcome": "failed",
            "grading": grader.trial_grading({"scoring": scoring}),
        }

    same = grader.describe_grader(
        [row("t__1", "aa" * 32), row("t__2", "aa" * 32)], [{"agent": "a", "model": "m", "reasoning_effort": "low"}]
    )
    assert same["missing"] == [] and same["rubrics"][0]["trials"] == 2
    drift = grader.describe_grader(
        [row("t__1", "aa" * 32), row("t__2", "bb" * 32)], [{"agent": "a", "model": "m", "reasoning_effort": "low"}]
    )
    assert drift["missing"] == ["one rubric per task: t were graded against different rubric versions"]
