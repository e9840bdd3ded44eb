"""The scale generator of resources/benchflow_synth/ (N job folders x M trials, for benchmarks).

Small builds only: 5 job folders x 20 trials (4 settings, so one of them has two tries).
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
try:
    import benchflow_synth as synth
except ImportError:  # resources/ not on the pythonpath yet
    sys.path.insert(0, str(REPO / "resources"))
    import benchflow_synth as synth

from benchreport.read.discover import find_job_folders  # noqa: E402 (after the generator's path is set)
from benchreport.read.ingest import ingest_job  # noqa: E402

JOBS, TRIALS, REQUESTS, REQUEST_KB = 5, 20, 4, 3


def _tree(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under root with its bytes and mtime (both are meant to be deterministic)."""
    found = {}
    for folder, _, files in os.walk(root):
        for name in files:
            path = Path(folder, name)
            found[path.relative_to(root).as_posix()] = (path.read_bytes(), path.stat().st_mtime_ns)
    return found


@pytest.fixture(scope="module")
def scale(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("scale") / "jobs"
    synth.build_scale(out, jobs=JOBS, trials=TRIALS, seed=7, request_kb=REQUEST_KB, requests=REQUESTS, workers=1)
    return out


def test_two_builds_are_byte_identical_whatever_the_workers(scale, tmp_path):
    again = tmp_path / "jobs"
    assert (
        synth.main(
            [
                "scale",
                str(again),
                "--jobs",
                str(JOBS),
                "--trials",
                str(TRIALS),
                "--seed",
                "7",
                "--request-kb",
                str(REQUEST_KB),
                "--requests",
                str(REQUESTS),
                "--workers",
                "2",
            ]
        )
        == 0
    )
    first, second = _tree(scale), _tree(again)
    assert sorted(first) == sorted(second)
    differ = [name for name in first if first[name] != second[name]]
    assert not differ, differ[:5]


def test_another_seed_gives_other_outcomes(scale, tmp_path):
    other = tmp_path / "jobs"
    synth.build_scale(other, jobs=1, trials=TRIALS, seed=8, request_kb=0, requests=1)
    spec7 = synth.scale_job_specs(1, TRIALS, 7)[0]
    spec8 = synth.scale_job_specs(1, TRIALS, 8)[0]
    assert synth.scale_trials(spec7, TRIALS, 7) != synth.scale_trials(spec8, TRIALS, 8)


def test_matrix_layout_settings_and_try_indexes(scale):
    jobs = find_job_folders([str(scale)])
    assert len(jobs) == JOBS
    by_alias: dict[str, list[int]] = {}
    for job in jobs:
        parts = job.relpath.split("/")
        assert len(parts) == 4 and parts[2] == f"trial-{job.try_index:02d}", job.relpath
        assert parts[1] == job.alias
        by_alias.setdefault(job.alias, []).append(job.try_index)
    aliases = [s["alias"] for s in synth.SCALE_SETTINGS]
    assert {alias: sorted(tries) for alias, tries in by_alias.items()} == {
        aliases[0]: [1, 2],
        aliases[1]: [1],
        aliases[2]: [1],
        aliases[3]: [1],
    }
    for spec in synth.scale_job_specs(JOBS, TRIALS, 7):
        matrix = json.loads((scale / spec["jobs_dir"] / "matrix-summary.json").read_text())
        assert matrix["trials"] == len(by_alias[spec["alias"]])
        assert [run["trial"] for run in matrix["runs"]] == sorted(by_alias[spec["alias"]])


def test_one_setting_makes_every_job_folder_a_try_of_the_same_tasks():
    """bench_scale.py --settings 1: N job folders are N tries of one setting (the coverage
    target's shape, tasks x tries in one setting), each in its own trial-NN folder."""
    specs = synth.scale_job_specs(5, TRIALS, 7, settings=1)
    assert {spec["setting_index"] for spec in specs} == {0}
    assert [spec["try"] for spec in specs] == [1, 2, 3, 4, 5]
    assert {spec["jobs_dir"] for spec in specs} == {f"{synth.SCALE_SETTINGS[0]['dir']}-x5"}
    assert synth.scale_job_specs(5, TRIALS, 7) != specs  # the default cycles four settings
    with pytest.raises(ValueError):
        synth.scale_job_specs(5, TRIALS, 7, settings=0)


def test_ingest_reads_every_trial_and_recounts_benchflow(scale):
    outcomes = Counter()
    settings = set()
    for job in find_job_folders([str(scale)]):
        result = ingest_job(job, max_requests=20)
        assert result["ledger"] == [], result["ledger"][:3]
        assert result["attempts"] == result["attempt_folders_found"]
        assert len(result["trials"]) == TRIALS
        assert result["crosscheck"]["matches"], result["crosscheck"]
        assert result["crosscheck"]["summary_status"] == "read"
        trials = {trial["task"]: trial for trial in result["trials"]}
        assert sorted(trials) == synth.scale_task_names(TRIALS)
        spec = next(
            s for s in synth.scale_job_specs(JOBS, TRIALS, 7) if s["alias"] == job.alias and s["try"] == job.try_index
        )
        planned = {t["task"]: t["attempts"] for t in synth.scale_trials(spec, TRIALS, 7)}
        for task, attempts in planned.items():
            trial = trials[task]
            assert trial["attempts"] == len(attempts), task
            if [a["kind"] for a in attempts] == ["interrupted"]:
                assert trial["outcome"] == "interrupted" and not trial["complete"]
            else:
                assert trial["complete"], task
            if trial["complete"] and trial["trajectory"]:
                assert trial["requests_read"] == REQUESTS
        for trial in result["trials"]:
            outcomes[trial["outcome"]] += 1
            settings.add(trial["setting"])
            if len(trial["attempt_outcomes"]) > 1:
                outcomes["retried"] += 1
    assert len(settings) == 4
    # the cases every job holds at least once
    for outcome in ("passed", "failed", "errored", "verifier_errored", "unscored", "interrupted"):
        assert outcomes[outcome] >= JOBS, outcomes
    assert outcomes["retried"] >= 2 * JOBS, outcomes


def test_trajectory_sizes_follow_the_arguments(scale, tmp_path):
    n_files = 0
    for path in scale.rglob("llm_trajectory.jsonl"):
        data = path.read_bytes()
        assert not data.endswith(b"\n")
        lines = data.split(b"\n")
        assert len(lines) == REQUESTS, path
        assert {len(line) for line in lines} == {REQUEST_KB * 1024}, path
        first = json.loads(lines[0])
        assert first["metadata"]["input_shape"]["n_messages"] == len(first["request"]["body"]["messages"])
        n_files += 1
    assert n_files >= JOBS * TRIALS * 0.7
    # the token counts in result.json are still the sums over the lines
    path = next(scale.rglob("llm_trajectory.jsonl"))
    result = json.loads((path.parent.parent / "result.json").read_text())
    usage = [json.loads(line)["response"]["body"]["usage"] for line in path.read_text().splitlines()]
    out = sum(u.get("output_tokens", u.get("completion_tokens", 0)) for u in usage)
    assert result["agent_result"]["n_output_tokens"] == out
    # unpadded, other request count
    small = tmp_path / "small"
    synth.build_scale(small, jobs=1, trials=8, seed=1, request_kb=0, requests=2)
    sizes = [len(line) for p in small.rglob("llm_trajectory.jsonl") for line in p.read_bytes().split(b"\n")]
    assert sizes and len(sizes) % 2 == 0 and max(sizes) < 2048
    # bigger than the default example's lines, and a request count above max_requests
    big = tmp_path / "big"
    synth.build_scale(big, jobs=1, trials=6, seed=1, request_kb=40, requests=25)
    for p in big.rglob("llm_trajectory.jsonl"):
        lines = p.read_bytes().split(b"\n")
        assert len(lines) == 25 and {len(line) for line in lines} == {40 * 1024}
