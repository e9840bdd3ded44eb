"""Tests of resources/benchflow_synth/, the synthetic BenchFlow 0.7.12 job-folder generator."""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
try:
    import benchflow_synth as synth
except ImportError:  # resources/ not on the pythonpath yet
    sys.path.insert(0, str(REPO / "resources"))
    import benchflow_synth as synth

COMMITTED = REPO / "resources" / "example" / "generated"
REAL_ROOTS = [REPO / "resources" / "example" / "benchflow-real-jobs"]
MAX_EXAMPLE_BYTES = 3 * 1024 * 1024


# ------------------------------------------------------------------------------------------
# helpers


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _assert_same_tree(a: Path, b: Path) -> None:
    fa, fb = _files(a), _files(b)
    assert sorted(fa) == sorted(fb), "file lists differ: " + repr(sorted(set(fa) ^ set(fb))[:10])
    differ = [name for name in fa if fa[name] != fb[name]]
    assert not differ, f"{len(differ)} files differ, e.g. {differ[:5]}"


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _is_attempt_dir(p: Path) -> bool:
    return p.is_dir() and "__" in p.name and (p / "config.json").is_file()


def _job_dirs(root: Path) -> list[Path]:
    """Every BenchFlow job folder (a folder holding <task>__<hex> attempt folders)."""
    jobs = {c.parent.parent for c in root.rglob("config.json") if _is_attempt_dir(c.parent)}
    return sorted(jobs)


def _audit(result: dict) -> str:
    """Independent re-implementation of BenchFlow's classify_audit_outcome (spec 3.3)."""
    if result["verifier_error"]:
        return "verifier_errored"
    rewards = result["rewards"]
    if rewards is not None and isinstance(rewards.get("reward"), (int, float)):
        return "passed" if rewards["reward"] == 1.0 else "failed"
    if result["error"]:
        return "errored"
    return "unscored"


def _final_results(job: Path) -> dict[str, dict]:
    """The last attempt (by started_at) with a result.json, per task."""
    by_task: dict[str, list[tuple[str, Path]]] = {}
    for d in job.iterdir():
        if _is_attempt_dir(d):
            task = d.name.rsplit("__", 1)[0]
            started = _load(d / "config.json")["started_at"]
            by_task.setdefault(task, []).append((started, d))
    finals = {}
    for task, attempts in by_task.items():
        done = [d for _, d in sorted(attempts) if (d / "result.json").is_file()]
        if done:
            finals[task] = _load(done[-1] / "result.json")
    return finals


def _real_root() -> Path:
    for root in REAL_ROOTS:
        if (root / "script-run").is_dir():
            return root
    pytest.skip("no copy of the real BenchFlow 0.7.12 job folders available")


def _real_trial(pattern: str) -> Path:
    hits = sorted(_real_root().glob(pattern))
    assert hits, pattern
    return hits[0]


def _llm_sums(path: Path) -> dict[str, int]:
    sums = {
        "n_input_tokens": 0,
        "n_output_tokens": 0,
        "n_cache_read_tokens": 0,
        "n_cache_creation_tokens": 0,
        "total_tokens": 0,
    }
    for line in path.read_text(encoding="utf-8").splitlines():
        usage = json.loads(line)["response"]["body"]["usage"]
        if "prompt_tokens" in usage:  # openai chat completions: prompt_tokens includes cache
            cached = usage.get("prompt_tokens_details", {}).get("cached_tokens", 0)
            sums["n_input_tokens"] += usage["prompt_tokens"]
            sums["n_cache_read_tokens"] += cached
            sums["n_output_tokens"] += usage["completion_tokens"]
            sums["total_tokens"] += usage["total_tokens"]
        else:  # anthropic messages: input_tokens excludes cache reads and writes
            n_in = usage["input_tokens"] + usage["cache_read_input_tokens"] + usage["cache_creation_input_tokens"]
            sums["n_input_tokens"] += n_in
            sums["n_cache_read_tokens"] += usage["cache_read_input_tokens"]
            sums["n_cache_creation_tokens"] += usage["cache_creation_input_tokens"]
            sums["n_output_tokens"] += usage["output_tokens"]
            sums["total_tokens"] += n_in + usage["output_tokens"]
    return sums


@pytest.fixture(scope="session")
def example(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("synth") / "generated"
    synth.build_example(out)
    return out


CLAUDE = {
    "agent": "claude-agent-acp",
    "model": "anthropic/claude-sonnet-4-5",
    "reasoning_effort": "high",
    "served_model": "claude-sonnet-4-5-20250929",
    "usage_source": "provider_response",
    "price_source": "litellm",
}
OPENAI = {
    "agent": "codex-acp",
    "model": "openai/gpt-5.1",
    "reasoning_effort": "low",
    "served_model": "gpt-5.1-2025-11-13",
    "usage_source": "provider_response",
    "price_source": None,
}


# ------------------------------------------------------------------------------------------
# determinism and the committed example


def test_two_builds_are_byte_identical(example, tmp_path):
    again = tmp_path / "generated"
    synth.build_example(again)
    _assert_same_tree(example, again)


def test_committed_example_equals_a_fresh_build(example):
    assert COMMITTED.is_dir(), "run: python -m benchflow_synth example resources/example/generated (in resources/)"
    _assert_same_tree(example, COMMITTED)


def test_example_is_under_3_mb(example):
    total = sum(len(b) for b in _files(example).values())
    assert total < MAX_EXAMPLE_BYTES, total
    if COMMITTED.is_dir():
        committed = sum(p.stat().st_size for p in COMMITTED.rglob("*") if p.is_file())
        assert committed < MAX_EXAMPLE_BYTES, committed


def test_docstring_grid_matches_the_generated_example():
    grid = "\n".join("    " + line for line in synth.example_outcome_grid().splitlines())
    assert grid in synth.__doc__


def test_docstring_audit_table_matches_the_job_summaries(example):
    table = synth.example_audit_table()
    assert "\n".join("    " + line for line in table.splitlines()) in synth.__doc__
    dirs = {
        "1:claude-high": "claude-sonnet-high-x5",
        "2:claude-low": "claude-sonnet-low-x3",
        "3:codex": "codex-gpt-5.1-x3",
        "4:gemini": "gemini-2.5-pro-x4",
        "5:oracle": "oracle-x3",
        "6:nop": "nop-x3",
        "7:plain": "codex-gpt-5.1-plain",
    }
    for line in table.splitlines()[1:]:
        name, n_try, *rest = line.split()
        if name == "7:plain":
            (job,) = [p for p in (example / dirs[name]).iterdir() if p.is_dir()]
        else:
            (tdir,) = (example / dirs[name]).glob(f"*/trial-{int(n_try):02d}")
            (job,) = [p for p in tdir.iterdir() if p.is_dir()]
        if rest[0] == "(killed:":
            assert not (job / "summary.json").exists()
            continue
        summary = _load(job / "summary.json")
        assert [summary[k] for k in ("total", "passed", "failed", "errored", "verifier_errored")] == [
            int(x) for x in rest
        ], line


def test_same_arguments_same_bytes_for_write_job(tmp_path):
    trials = [
        {"task": "t-a", "attempts": [{"kind": "agent_error", "error_category": "idle_timeout"}, {"kind": "passed"}]},
        {"task": "t-b", "attempts": [{"kind": "failed", "reward": 0.5}]},
    ]
    a = synth.write_job(tmp_path / "a" / "jobs", job_name="2026-11-30__04-23-02", setting=CLAUDE, trials=trials, seed=7)
    b = synth.write_job(tmp_path / "b" / "jobs", job_name="2026-11-30__04-23-02", setting=CLAUDE, trials=trials, seed=7)
    _assert_same_tree(a.parent, b.parent)
    c = synth.write_job(tmp_path / "c" / "jobs", job_name="2026-11-30__04-23-02", setting=CLAUDE, trials=trials, seed=8)
    assert sorted(p.name for p in a.iterdir()) != sorted(p.name for p in c.iterdir())


# ------------------------------------------------------------------------------------------
# summaries


def test_job_summaries_equal_a_recount_of_the_attempt_folders(example):
    jobs = _job_dirs(example)
    assert len(jobs) == 22
    with_summary = 0
    for job in jobs:
        summary_path = job / "summary.json"
        if not summary_path.exists():
            continue
        with_summary += 1
        summary = _load(summary_path)
        finals = _final_results(job)
        counts = {"passed": 0, "failed": 0, "errored": 0, "verifier_errored": 0, "unscored": 0}
        for result in finals.values():
            counts[_audit(result)] += 1
        assert summary["job_name"] == job.name
        assert summary["total"] == len(finals), job
        for key in ("passed", "failed", "errored", "verifier_errored"):
            assert summary[key] == counts[key], (job, key)
        assert (summary["pass"], summary["fail"], summary["error"]) == (
            counts["passed"],
            counts["failed"],
            counts["errored"],
        )
        assert summary["score"] == f"{counts['passed'] / len(finals):.1%}"
        rewards = [r["rewards"]["reward"] for r in finals.values() if r["rewards"]]
        if rewards:
            assert summary["mean_reward"] == pytest.approx(sum(rewards) / len(rewards))
        else:
            assert summary["mean_reward"] is None
        # the jobs-dir-level copy is the same file
        assert (job.parent / "summary.json").read_bytes() == summary_path.read_bytes()
    assert with_summary == 21  # the killed gemini try has none


def test_matrix_summaries_list_every_finished_try(example):
    dirs = sorted(p.parent for p in example.rglob("matrix-summary.json"))
    assert [d.name for d in dirs] == [
        "claude-sonnet-high-x5",
        "claude-sonnet-low-x3",
        "codex-gpt-5.1-x3",
        "nop-x3",
        "oracle-x3",
    ]
    assert not (example / "gemini-2.5-pro-x4" / "matrix-summary.json").exists()
    for d in dirs:
        ms = _load(d / "matrix-summary.json")
        assert list(ms) == ["matrix", "runs", "schema_version", "trials"]
        assert ms["trials"] == len(ms["runs"])
        for run in ms["runs"]:
            tdir = d / run["alias"] / f"trial-{run['trial']:02d}"
            summary = _load(tdir / "summary.json")
            for key in ("passed", "failed", "errored", "verifier_errored", "total"):
                assert run[key] == summary[key]


def test_killed_job_has_no_summary_and_interrupted_attempts(example):
    tdir = example / "gemini-2.5-pro-x4" / "gemini-2.5-pro" / "trial-04"
    assert not (tdir / "summary.json").exists()
    (job,) = [p for p in tdir.iterdir() if p.is_dir()]
    assert not (job / "summary.json").exists()
    attempts = [p for p in job.iterdir() if _is_attempt_dir(p)]
    interrupted = [p for p in attempts if not (p / "result.json").exists()]
    assert len(attempts) == 7 and len(interrupted) == 1  # the grid's try 4: 6 finished, 1 X, 5 never started
    for p in interrupted:
        assert [f.name for f in p.rglob("*") if f.is_file()] == ["config.json"]


# ------------------------------------------------------------------------------------------
# shapes copied from real 0.7.12 output


def test_result_and_config_keys_match_real_0712_files(example):
    oracle_trial = _real_trial("script-run/oracle-x3/oracle/trial-01/*/tiny-hello__*")
    agent_trial = _real_trial("script-run/nop-x3/run-01/*/tiny-hello-net__*")
    refs = {}
    for kind, trial in (("oracle", oracle_trial), ("agent", agent_trial)):
        result, config = _load(trial / "result.json"), _load(trial / "config.json")
        refs[kind] = {
            "result": list(result),
            "config": list(config),
            "agent_result": list(result["agent_result"]),
            "trajectory_summary": list(result["trajectory_summary"]),
            "usage_tracking": list(result["usage_tracking"]),
            "role": list(result["scenes"][0]["roles"][0]),
        }
    real_summary = _load(oracle_trial.parent / "summary.json")
    n_results = 0
    for config_path in example.rglob("config.json"):
        trial = config_path.parent
        config = _load(config_path)
        ref = refs["oracle" if config["agent"] == "oracle" else "agent"]
        assert list(config) == ref["config"], trial
        if not (trial / "result.json").exists():
            continue
        n_results += 1
        result = _load(trial / "result.json")
        assert list(result) == ref["result"], trial
        expected_ar = list(ref["agent_result"])
        if result["agent_result"]["usage_source"] == "agent_native_acp" or (config["agent"] == "gemini-cli"):
            expected_ar.append("usage_details")
        assert list(result["agent_result"]) == expected_ar, trial
        assert list(result["trajectory_summary"]) == ref["trajectory_summary"]
        assert list(result["usage_tracking"]) == ref["usage_tracking"]
        assert list(result["scenes"][0]["roles"][0]) == ref["role"]
        assert result["rollout_name"] == trial.name
        assert result["started_at"] == config["started_at"]
        assert json.loads((trial / "timing.json").read_text()) == result["timing"]
    assert n_results > 250
    for summary_path in example.rglob("summary.json"):
        assert list(_load(summary_path)) == list(real_summary), summary_path


def test_oracle_and_nop_shapes(example):
    trial = next((example / "oracle-x3").rglob("fix-json-parser__*"))
    result = _load(trial / "result.json")
    assert result["model"] == "none" and result["agent"] == "oracle"
    assert result["agent_result"]["usage_source"] == "unavailable"
    assert set(result["timing"]) == {"environment_setup", "verifier", "total"}
    assert (trial / "agent" / "oracle.txt").is_file()
    assert not (trial / "trajectory" / "llm_trajectory.jsonl").exists()
    (event,) = [json.loads(x) for x in (trial / "trajectory" / "acp_trajectory.jsonl").read_text().splitlines()]
    assert list(event) == ["type", "command", "return_code", "stdout"]
    # the nop reports one inert tool call, so BenchFlow scores it, as the real nop-acp-tc runs show
    nop = next((example / "nop-x3" / "nop" / "trial-01").rglob("csv-dedupe__*"))
    real_nop = _real_trial("script-run/nop-tc-x3/nop-tc/trial-01/*/tiny-hello-net__*")
    result, real = _load(nop / "result.json"), _load(real_nop / "result.json")
    assert result["model"] is None and result["rewards"] == real["rewards"] == {"reward": 0.0}
    for key in ("error", "error_category", "verifier_error", "n_tool_calls", "agent_result"):
        assert result[key] == real[key], key
    assert (nop / "verifier" / "reward.txt").read_text() == (real_nop / "verifier" / "reward.txt").read_text()
    assert (nop / "rewards.jsonl").is_file()


def test_timestamps_are_consistent_and_ordered(example):
    for job in _job_dirs(example):
        for trial in job.iterdir():
            if not (trial / "result.json").exists():
                continue
            result = _load(trial / "result.json")
            started = datetime.fromisoformat(result["started_at"])
            finished = datetime.fromisoformat(result["finished_at"])
            assert " " in result["started_at"] and "T" not in result["started_at"]
            assert result["timing"]["total"] == round((finished - started).total_seconds(), 1)
    # tries of one matrix run one after another
    tdirs = sorted((example / "claude-sonnet-high-x5" / "claude-sonnet-4-5-high").iterdir())
    ends, starts = [], []
    for tdir in tdirs:
        (job,) = [p for p in tdir.iterdir() if p.is_dir()]
        times = [_load(p / "result.json") for p in job.iterdir() if (p / "result.json").exists()]
        starts.append(min(datetime.fromisoformat(r["started_at"]) for r in times))
        ends.append(max(datetime.fromisoformat(r["finished_at"]) for r in times))
    for prev_end, next_start in zip(ends, starts[1:]):
        assert prev_end < next_start


# ------------------------------------------------------------------------------------------
# llm trajectories and tokens


def test_llm_token_sums_equal_result_json(example):
    n = 0
    for path in example.rglob("llm_trajectory.jsonl"):
        trial = path.parent.parent
        agent_result = _load(trial / "result.json")["agent_result"]
        sums = _llm_sums(path)
        for key, value in sums.items():
            assert agent_result[key] == value, (trial, key)
        assert agent_result["usage_source"] == "provider_response"
        lines = path.read_text().splitlines()
        assert 3 <= len(lines) <= 10
        n += 1
    assert n > 100


def test_llm_line_format_matches_the_real_sample(tmp_path):
    # one line in BenchFlow 0.7.12's llm_trajectory.jsonl format, kept in the repo as the reference
    sample = REPO / "tests" / "data" / "benchflow-0.7.12" / "llm_trajectory.jsonl"
    job = synth.write_job(
        tmp_path,
        job_name="2026-11-30__04-23-02",
        setting=CLAUDE,
        seed=3,
        trials=[{"task": "t", "attempts": [{"kind": "passed"}]}],
    )
    (path,) = job.rglob("llm_trajectory.jsonl")
    line = json.loads(path.read_text().splitlines()[0])
    ref = json.loads(sample.read_text().splitlines()[0])
    assert list(line) == list(ref)
    assert list(line["request"]) == list(ref["request"])
    assert list(line["request"]["body"]) == list(ref["request"]["body"])
    assert list(line["response"]) == list(ref["response"])
    assert list(line["response"]["body"]) == list(ref["response"]["body"])
    assert list(line["response"]["body"]["usage"]) == list(ref["response"]["body"]["usage"])
    assert list(line["metadata"]) == list(ref["metadata"])
    assert line["request"]["body"]["thinking"] == {"type": "enabled", "budget_tokens": 31999}
    assert line["response"]["body"]["model"] == "claude-sonnet-4-5-20250929"
    assert line["metadata"]["provider_model"] == "claude-sonnet-4-5-20250929"
    result = _load(path.parent.parent / "result.json")
    assert isinstance(result["agent_result"]["cost_usd"], float)


def test_openai_style_effort_and_no_price(tmp_path):
    job = synth.write_job(
        tmp_path,
        job_name="2026-11-30__05-00-00",
        setting=OPENAI,
        seed=5,
        trials=[{"task": "t", "attempts": [{"kind": "failed"}]}],
    )
    (path,) = job.rglob("llm_trajectory.jsonl")
    line = json.loads(path.read_text().splitlines()[0])
    assert line["request"]["path"] == "/v1/chat/completions"
    assert line["request"]["body"]["reasoning_effort"] == "low"
    assert "thinking" not in line["request"]["body"]
    result = _load(path.parent.parent / "result.json")
    assert result["agent_result"]["cost_usd"] is None
    assert result["agent_result"]["price_source"] is None
    assert result["rewards"] == {"reward": 0.0}


# ------------------------------------------------------------------------------------------
# attempt kinds


def test_every_attempt_kind(tmp_path):
    kinds = [
        {"kind": "passed", "tokens": 50_000, "n_tool_calls": 3, "duration": 300},
        {"kind": "failed", "reward": 0.5},
        {"kind": "agent_error"},
        {"kind": "agent_error", "error_category": "install_failure"},
        {"kind": "agent_error_scored", "reward": 1.0},
        {"kind": "verifier_error"},
        {"kind": "suspected_api_error"},
        {"kind": "unscored"},
        {"kind": "interrupted"},
        {"kind": "passed", "cost": 0.0},
    ]
    trials = [{"task": f"task-{i}", "attempts": [a]} for i, a in enumerate(kinds)]
    job = synth.write_job(tmp_path / "jobs", job_name="2026-11-30__06-00-00", setting=CLAUDE, trials=trials, seed=11)

    def trial(i: int) -> Path:
        (p,) = job.glob(f"task-{i}__*")
        assert len(p.name.rsplit("__", 1)[1]) == 8
        return p

    r = [_load(trial(i) / "result.json") if i != 8 else None for i in range(len(kinds))]
    assert r[0]["rewards"] == {"reward": 1.0} and r[0]["n_tool_calls"] == 3
    assert r[0]["timing"]["total"] == pytest.approx(300, abs=0.2)
    assert r[1]["rewards"] == {"reward": 0.5, "correctness": 0.5, "format": 1.0}
    assert json.loads((trial(1) / "verifier" / "reward.json").read_text())["reward"] == 0.5
    assert "meta" in json.loads((trial(1) / "rewards.jsonl").read_text())
    assert r[2]["error_category"] == "timeout" and r[2]["rewards"] is None
    assert "prompt exceeded wall-clock budget" in r[2]["error"]
    assert r[3]["error_category"] == "install_failure" and r[3]["agent_result"]["total_tokens"] == 0
    assert not (trial(3) / "trajectory" / "llm_trajectory.jsonl").exists()
    assert r[4]["error"] and r[4]["rewards"] == {"reward": 1.0}
    assert r[5]["verifier_error"].startswith("verifier crashed: No reward file found at ")
    assert r[5]["verifier_error_category"] == "verifier_failure" and r[5]["rewards"] is None
    assert r[6]["error_category"] == "suspected_api_error"
    assert r[6]["agent_result"]["total_tokens"] == 0 and r[6]["n_tool_calls"] == 0
    assert r[6]["suspected_api_error_info"] == {
        "total_tokens": 0,
        "n_tool_calls": 0,
        "total_requests": 0,
        "failed_requests": 0,
    }
    assert (trial(6) / "verifier" / "reward.txt").read_text() == "0\n"  # the verifier ran; BenchFlow nulls it
    assert not (trial(6) / "rewards.jsonl").exists()
    assert r[7]["rewards"] is None and not r[7]["error"] and not r[7]["verifier_error"]
    assert [f.name for f in trial(8).rglob("*") if f.is_file()] == ["config.json"]
    assert sorted(d.name for d in trial(8).iterdir() if d.is_dir()) == ["agent", "artifacts", "trajectory", "verifier"]
    assert r[9]["agent_result"]["cost_usd"] is None
    summary = _load(job / "summary.json")
    assert summary["total"] == 9  # the interrupted task has no result
    assert (summary["passed"], summary["failed"], summary["errored"], summary["verifier_errored"]) == (3, 1, 3, 1)
    assert summary["score"] == "33.3%"
    assert summary["error_categories"] == {"timeout": 2, "install_failure": 1, "suspected_api_error": 1}
    assert summary["verifier_error_categories"] == {"verifier_failure": 1}
    # job-level results.jsonl concatenates every attempt (not the interrupted one)
    rows = (job / "results.jsonl").read_text().splitlines()
    assert len(rows) == 9


def test_retries_and_killed_job(tmp_path):
    trials = [
        {
            "task": "a",
            "attempts": [
                {"kind": "agent_error", "error_category": "acp_error"},
                {"kind": "verifier_error", "verifier_error_category": "verifier_timeout"},
                {"kind": "failed"},
            ],
        }
    ]
    job = synth.write_job(
        tmp_path / "jobs", job_name="2026-11-30__07-00-00", setting=CLAUDE, trials=trials, seed=2, write_summary=False
    )
    attempts = sorted(job.glob("a__*"), key=lambda p: _load(p / "config.json")["started_at"])
    assert len(attempts) == 3
    results = [_load(p / "result.json") for p in attempts]
    assert [r["error_category"] for r in results] == ["acp_error", None, None]
    assert results[1]["verifier_error_category"] == "verifier_timeout"
    assert results[2]["rewards"] == {"reward": 0.0}
    for before, after in zip(results, results[1:]):
        assert before["finished_at"] < after["started_at"]
    assert not (job / "summary.json").exists()
    assert not (job.parent / "summary.json").exists()
    assert not (job / "results.jsonl").exists()


def test_matrix_layout_and_drift(tmp_path):
    tries = [
        [{"task": "a", "attempts": [{"kind": "passed"}]}],
        [{"task": "a", "attempts": [{"kind": "failed"}], "task_digest": "sha256:" + "0" * 64}],
    ]
    root = synth.write_matrix(
        tmp_path / "m", alias="x", setting=CLAUDE, tries=tries, seed=1, start="2026-11-30 04:00:00"
    )
    ms = _load(root / "matrix-summary.json")
    assert [r["trial"] for r in ms["runs"]] == [1, 2]
    assert ms["runs"][0]["jobs_dir"].endswith("/m/x/trial-01")
    d1 = [_load(p) for p in (root / "x" / "trial-01").rglob("config.json")][0]["task_digest"]
    d2 = [_load(p) for p in (root / "x" / "trial-02").rglob("config.json")][0]["task_digest"]
    assert d1 == synth.default_task_digest("a") and d2 == "sha256:" + "0" * 64
    (job1,) = [p for p in (root / "x" / "trial-01").iterdir() if p.is_dir()]
    assert job1.name == "2026-11-30__04-00-00"


def test_bad_attempts_are_rejected(tmp_path):
    with pytest.raises(ValueError):
        synth.write_job(
            tmp_path, job_name="j", setting=CLAUDE, seed=1, trials=[{"task": "a", "attempts": [{"kind": "nope"}]}]
        )
    with pytest.raises(ValueError):
        synth.write_job(
            tmp_path,
            job_name="j",
            setting=CLAUDE,
            seed=1,
            trials=[{"task": "a", "attempts": [{"kind": "failed", "reward": 1.0}]}],
        )


def test_dataset_fields_and_task_digests(tmp_path):
    setting = {
        **CLAUDE,
        "dataset_name": "skillsbench",
        "dataset_version": "1.1",
        "task_digests": {"a": "sha256:" + "a" * 64},
    }
    job = synth.write_job(
        tmp_path,
        job_name="2026-11-30__08-00-00",
        setting=setting,
        seed=4,
        trials=[{"task": "a", "attempts": [{"kind": "passed"}]}],
    )
    (trial,) = job.glob("a__*")
    config, result = _load(trial / "config.json"), _load(trial / "result.json")
    assert list(config)[-4:] == ["usage_tracking", "dataset_name", "dataset_version", "task_digest"]
    assert list(result)[-5:] == ["loop", "dataset_name", "dataset_version", "task_digest", "sandbox_id"]
    assert config["task_digest"] == result["task_digest"] == "sha256:" + "a" * 64
    summary = _load(job / "summary.json")
    assert (summary["dataset_name"], summary["dataset_version"]) == ("skillsbench", "1.1")
    assert "OPENAI_API_KEY" not in json.dumps(config["agent_env"])
