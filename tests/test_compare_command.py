"""`python -m benchreport compare`: JSON lines in, one paired comparison out per line, by the
workflow's code."""

from __future__ import annotations

import json

import numpy as np
import pytest
from benchreport.compute import compare, comparisons
from test_interval_command import run_command as run_in_checkout

COMPARISONS = [
    {
        "id": "hard tasks",
        "a": [[0, 1], [1, 1], [0, 1], [0, 1], [0, 1]],
        "b": [[1, 10], [0, 10], [2, 10], [0, 10], [1, 10]],
    },
    {"a": [[0, 3], [1, 3], [0, 3], [2, 3]], "b": [[3, 3], [3, 3], [2, 3], [3, 3]]},
    {"id": "one task", "a": [[1, 2]], "b": [[2, 2]]},
]


def run_command(*args, stdin=""):
    return run_in_checkout(*args, stdin=stdin, command="compare")


def test_each_line_is_the_comparison_the_workflow_computes(tmp_path):
    text = "".join(json.dumps(line) + "\n" for line in COMPARISONS)
    done = run_command(stdin=text)
    assert done.returncode == 0, done.stderr
    path = tmp_path / "pairs.jsonl"
    path.write_text(text)
    assert run_command(str(path)).stdout == done.stdout
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [line.get("id") for line in lines] == [line.get("id") for line in COMPARISONS]
    for given, line in zip(COMPARISONS, lines):
        record = comparisons.compare_counts(*compare.parse_comparison(given), compare.DEFAULTS, power=None)
        interval = record["intervals"]["permutation"]
        assert (line["p_value"], line["low"], line["high"]) == (record["p_value"], interval["low"], interval["high"])
        assert line["method"] == interval["method"] and line["test"] == record["test"] and line["level"] == 0.95
    hard, better, one = lines
    assert hard["mean_difference"] == pytest.approx(0.08 - 0.2) and hard["p_value"] > 0.05
    assert better["p_value"] < 0.05 < better["low"] and better["high"] <= 1
    assert one["p_value"] is None and one["low"] is None and "at least 2 shared tasks" in one["note"]


def test_level_seed_and_draws_are_the_callers():
    line = json.dumps(COMPARISONS[1])
    wider = json.loads(run_command("--confidence", "0.99", stdin=line).stdout)
    usual = json.loads(run_command(stdin=line).stdout)
    assert wider["level"] == 0.99 and wider["low"] < usual["low"] and wider["p_value"] == usual["p_value"]
    assert (
        json.loads(run_command("--seed", "3", "--permutations", "50", stdin=line).stdout)["p_value"] == usual["p_value"]
    )


def test_null_comparisons_with_unequal_tries_keep_the_level():
    """Through the command: 300 comparisons of 10 shared tasks, a tried twice and b three times,
    no difference; at most 5% rejected, + 2 Monte Carlo standard errors."""
    rng = np.random.default_rng(23)
    lines = []
    for _ in range(300):
        rates = rng.uniform(0.2, 0.8, 10)
        a, b = rng.binomial(2, rates), rng.binomial(3, rates)
        lines.append(json.dumps({"a": [[int(p), 2] for p in a], "b": [[int(p), 3] for p in b]}))
    done = run_command(stdin="\n".join(lines))
    rejected = [json.loads(line)["p_value"] <= 0.05 for line in done.stdout.splitlines()]
    assert len(rejected) == 300 and np.mean(rejected) <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / 300)


def test_lines_that_are_not_comparisons_get_an_error_line_and_a_failing_exit():
    bad = [
        "not json",
        json.dumps([1, 2]),
        json.dumps({"a": [[1, 2]]}),
        json.dumps({"a": [], "b": []}),
        json.dumps({"a": [[1, 2], [0, 1]], "b": [[1, 2]]}),
        json.dumps({"a": [[3, 2]], "b": [[1, 2]]}),
        json.dumps({"a": [[1.5, 2]], "b": [[1, 2]]}),
        json.dumps({"a": [[1, 0]], "b": [[1, 2]]}),
        json.dumps({"a": [[True, 2]], "b": [[1, 2]]}),
    ]
    done = run_command(stdin="\n".join([json.dumps(COMPARISONS[0]), *bad]) + "\n")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines[0]["id"] == "hard tasks" and "p_value" in lines[0]
    assert [line["line"] for line in lines[1:]] == list(range(2, 2 + len(bad)))
    assert all(line["error"] and len(line) == 2 for line in lines[1:])
