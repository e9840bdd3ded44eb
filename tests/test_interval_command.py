"""`python -m benchreport interval`: JSON lines in, one headline per run out, by the workflow's code."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
import yaml
from benchreport.compute import compare, interval
from benchreport.compute.stats import headline_interval, interval_methods
from conftest import REPO

RUNS = [
    {"id": "benchflow", "tasks": [[3, 3], [3, 3], [0, 3]]},
    {"id": "one", "tasks": [[1, 1]]},
    {"rewards": [[1.0, 0.0, 1], [0.99, 0.0], [1.0]]},
    {"id": "zero", "tasks": [[0, 2]] * 12},
    {"id": "unequal", "tasks": [[1, 4], [2, 3], [0, 4], [3, 3], [4, 4], [0, 3], [1, 4], [2, 4], [3, 4], [0, 3]]},
]


def run_command(*args, stdin="", command="interval"):
    """`python -m benchreport <command>` in the checkout's package (also for compare and plan)."""
    return subprocess.run(
        [sys.executable, "-m", "benchreport", command, *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=REPO / "workflow" / "scripts",
        check=False,
    )


@pytest.mark.parametrize("module", [interval, compare])
def test_the_defaults_are_the_workflows(module):
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["statistics"]
    assert {key: config[key] for key in module.DEFAULTS} == module.DEFAULTS


def test_stdin_and_a_file_give_one_line_per_run_as_the_stats_stage_computes_it(tmp_path):
    text = "".join(json.dumps(run) + "\n" for run in RUNS)
    done = run_command(stdin=text)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    path = tmp_path / "runs.jsonl"
    path.write_text(text)
    assert run_command(str(path)).stdout == done.stdout
    assert len(lines) == len(RUNS)
    for run, line in zip(RUNS, lines):
        assert line.get("id") == run.get("id")
        pairs = run.get("tasks") or [[sum(r == 1.0 for r in rewards), len(rewards)] for rewards in run["rewards"]]
        tasks = [{"passed": passed, "trials": tries} for passed, tries in pairs]
        headline = headline_interval(tasks, interval_methods(tasks, interval.DEFAULTS), interval.DEFAULTS)
        assert (line["method"], line["low"], line["high"]) == (headline["method"], headline["low"], headline["high"])
        assert line["coverage"] == headline["worst_coverage"] and line["reaches_target"] == headline["reaches_target"]
        assert line["coverage_lower_bound"] == headline["coverage_lower_bound"]
        assert line["level"] == 0.95 and line["low"] <= line["pass_rate"] <= line["high"]
        assert line["pass_rate"] == pytest.approx(np.mean([passed / tries for passed, tries in pairs]))
        assert set(line["methods"]) >= {"wilson over trials", "clopper-pearson over task means"}
    benchflow, one, rewards, zero, unequal = lines
    # the numbers BenchFlow's page quotes as Wilson intervals
    trials_interval = benchflow["methods"]["wilson over trials"]
    assert (round(trials_interval["low"] * 100), round(trials_interval["high"] * 100)) == (35, 88)
    assert (round(one["methods"]["wilson over trials"]["low"] * 100), one["methods"]["wilson over trials"]["high"]) == (
        21,
        1.0,
    )
    assert (
        rewards["tasks"] == 3 and rewards["trials"] == 6 and rewards["pass_rate"] == pytest.approx((2 / 3 + 0 + 1) / 3)
    )
    assert zero["low"] == 0.0 and 0 < zero["high"] < 1 and zero["shape"] == "12x2"
    assert unequal["shape"] == "4x3+6x4"


def test_lines_that_are_not_runs_get_an_error_line_and_a_failing_exit():
    bad = [
        "not json",
        json.dumps({"tasks": [[4, 3]]}),
        json.dumps({"tasks": []}),
        json.dumps({"rewards": [[2.0]]}),
        json.dumps({"tasks": [[1, 2]], "rewards": [[1.0]]}),
        json.dumps({"tasks": [[1.5, 2]]}),
    ]
    done = run_command(stdin="\n".join([json.dumps(RUNS[0]), *bad]) + "\n")
    assert done.returncode == 1
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines[0]["id"] == "benchflow" and "method" in lines[0]
    assert [line["line"] for line in lines[1:]] == [2, 3, 4, 5, 6, 7]
    assert all(line["error"] for line in lines[1:])


def test_a_batch_of_one_shape_costs_one_design(monkeypatch):
    designs = []
    original = interval.coverage_design.coverage_design
    monkeypatch.setattr(
        interval.coverage_design, "coverage_design", lambda *a, **k: designs.append(a) or original(*a, **k)
    )
    rng = np.random.default_rng(0)
    lines = [json.dumps({"tasks": [[int(p), 2] for p in rng.binomial(2, 0.4, size=30)]}) for _ in range(300)]
    found = interval.headlines(lines)
    assert len(found) == 300 and len(designs) == 1
    assert len({line["method"] for line in found}) == 1
