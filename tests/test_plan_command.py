"""`python -m benchreport plan`: the variance split of a pilot and the shapes that reach a target,
checked by simulating runs of the shapes it names."""

from __future__ import annotations

import json

import numpy as np
import pytest
from benchreport.compute import paired, plan
from scipy import special, stats
from test_interval_command import run_command as run_in_checkout

PARAMS = plan.DEFAULTS | {"simulations": 1000}


def pilot(tasks=20, tries=3, seed=3):
    rng = np.random.default_rng(seed)
    return rng.binomial(tries, rng.beta(2, 3, tasks)), np.full(tasks, tries)


def run_command(*args, stdin=""):
    return run_in_checkout(*args, stdin=stdin, command="plan")


def test_the_variance_splits_between_and_within_tasks_by_hand():
    # rates 0, 1/2, 1 over 2 tries: within = mean p(1-p)·2/1 = (0 + 0.5 + 0)/3; the rates' variance
    # 1/4 less the part the tries explain (within / 2) leaves the between-task variance
    split = plan.variance_split([0, 1, 2], [2, 2, 2])
    assert split["within"] == pytest.approx(1 / 6) and split["between"] == pytest.approx(0.25 - 1 / 12)
    assert plan.variance_split([1, 1, 1, 1], [2, 2, 2, 2])["between"] == 0.0
    with pytest.raises(ValueError, match="2 tries or more"):
        plan.variance_split([0, 1], [1, 1])


def test_a_planned_shape_reaches_the_half_width_in_the_promised_share():
    """A pilot of 20 tasks × 3 tries; each shape the plan names, simulated afresh from the pilot's
    model, reaches ±8 points in at least 80% of 2,000 runs, and a tenth fewer tasks do not."""
    passed, tries = pilot()
    result = plan.plan(passed, tries, PARAMS, half_width=0.08, difference=None)
    split = plan.variance_split(passed, tries)
    assert result["between_task_variance"] == split["between"] > 0
    named = [shape for shape in result["half_width"]["shapes"] if shape["tasks"]]
    assert [shape["tries"] for shape in named] == list(plan.TRIES)
    assert [shape["tasks"] for shape in named] == sorted((shape["tasks"] for shape in named), reverse=True)
    fresh = PARAMS | {"seed": 99, "simulations": 2000}
    for shape in named:
        assert plan.half_width_share(split, (shape["tasks"], shape["tries"]), 0.08, fresh) >= 0.8
        fewer = (int(shape["tasks"] * 0.9), shape["tries"])
        assert plan.half_width_share(split, fewer, 0.08, fresh) < 0.8


def test_a_planned_shape_detects_the_difference_with_the_promised_power():
    """At the shape the plan names for 5 tries, the exact test, simulated on runs whose task rates
    are moved apart as the plan assumes, rejects in about 80% of 1,000 runs."""
    passed, tries = pilot()
    result = plan.plan(passed, tries, PARAMS, half_width=None, difference=0.15)
    shape = next(shape for shape in result["difference"]["shapes"] if shape["tries"] == 5)
    tasks = shape["tasks"]
    split = plan.variance_split(passed, tries)
    base = special.logit(stats.beta.ppf((np.arange(tasks) + 0.5) / tasks, *plan.beta_parameters(split)))
    shift = next(
        t
        for t in np.linspace(0, 5, 50001)
        if np.mean(special.expit(base + t / 2) - special.expit(base - t / 2)) >= 0.15
    )
    rng = np.random.default_rng(8)
    counts = np.full(tasks, 5)
    passed_a = rng.binomial(5, special.expit(base - shift / 2), (1000, tasks))
    passed_b = rng.binomial(5, special.expit(base + shift / 2), (1000, tasks))
    rejected = np.mean(paired.batch_p_values(passed_a, counts, passed_b, counts) <= 0.05)
    assert rejected >= 0.8 - 3 * np.sqrt(0.8 * 0.2 / 1000)
    fewer = plan.detection_power(split, (tasks - 3, 5), 0.15, PARAMS)
    assert fewer < 0.8 <= shape["power"]


def test_the_command_plans_each_pilot_line_and_names_the_bad_ones():
    passed, tries = pilot()
    good = json.dumps({"id": "pilot", "tasks": [[int(p), int(t)] for p, t in zip(passed, tries)]})
    done = run_command(
        "--half-width",
        "0.1",
        "--simulations",
        "500",
        stdin=f"{good}\nnot json\n{json.dumps({'tasks': [[1, 1], [0, 1]]})}\n",
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr
    first, bad, single = (json.loads(line) for line in done.stdout.splitlines())
    assert first["id"] == "pilot" and first["half_width"]["target"] == 0.1 and "difference" not in first
    assert first == {"id": "pilot"} | plan.plan(passed, tries, plan.DEFAULTS | {"simulations": 500}, 0.1, None)
    assert bad["line"] == 2 and bad["error"] and "2 tries or more" in single["error"]


def test_the_command_plans_each_setting_of_a_results_folder(tmp_path):
    passed, tries = pilot()
    reports = tmp_path / "reports" / "agent--model"
    reports.mkdir(parents=True)
    rows = [{"task": f"t{i}", "passed": int(p), "trials": int(t)} for i, (p, t) in enumerate(zip(passed, tries))]
    (reports / "summary.json").write_text(json.dumps({"setting": "agent--model", "per_task": rows}))
    done = run_command("--results", str(tmp_path), "--difference", "0.2")
    assert done.returncode == 0, done.stderr
    line = json.loads(done.stdout)
    assert line["setting"] == "agent--model" and line["tasks"] == 20 and line["difference"]["shapes"][0]["tasks"] > 0
