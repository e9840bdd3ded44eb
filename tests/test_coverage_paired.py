"""Paired comparison, pass@k / pass^k (the coverage design: tests/test_coverage_design.py)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from benchreport import paired, passk

# --- paired comparison ---

def test_shared_and_unshared_tasks_are_counted_and_only_shared_ones_used():
    a = {"x": 0.0, "y": 1.0, "z": 0.5}
    b = {"y": 1.0, "z": 1.0, "w": 0.0, "v": 1.0}
    result = paired.paired_comparison(a, b, seed=1)
    assert (result["shared"], result["only_in_a"], result["only_in_b"]) == (2, 1, 2)
    assert result["mean_difference"] == pytest.approx(0.25)


def test_exact_sign_flip_p_value_by_hand():
    # d = (+0.5, +0.25, -0.25), mean sum 0.5. The 8 sign patterns give sums ±1, ±0.5, ±0.5, 0, 0;
    # six of them reach |sum| >= 0.5, so p = 6/8.
    a = {"x": 0.25, "y": 0.5, "z": 0.75}
    b = {"x": 0.75, "y": 0.75, "z": 0.5}
    result = paired.paired_comparison(a, b, seed=1)
    assert result["p_value"] == pytest.approx(6 / 8)
    assert "exact" in result["test"] and "8 sign patterns" in result["test"]
    # All three tasks improve by 1: only the all-plus and all-minus patterns are as extreme.
    assert paired.paired_comparison({"x": 0, "y": 0, "z": 0}, {"x": 1, "y": 1, "z": 1}, seed=1)["p_value"] == 0.25


def test_paired_intervals_are_named_and_match_their_references():
    from scipy import stats

    rng = np.random.default_rng(3)
    a = {f"task-{i}": float(rng.integers(0, 4)) / 3 for i in range(25)}
    b = {task: min(1.0, rate + float(rng.integers(0, 2)) / 3) for task, rate in a.items()}
    result = paired.paired_comparison(a, b, seed=7)
    differences = np.array([b[task] - a[task] for task in sorted(a)])
    t_reference = stats.ttest_1samp(differences, 0).confidence_interval(0.95)
    t_interval = result["intervals"]["t"]
    assert t_interval["method"] == "paired t over shared tasks"
    assert (t_interval["low"], t_interval["high"]) == pytest.approx((t_reference.low, t_reference.high))
    bootstrap = result["intervals"]["bootstrap"]
    assert bootstrap["method"] == "paired bootstrap-percentile over shared tasks" and bootstrap["seed"] == 7
    assert bootstrap["low"] <= result["mean_difference"] <= bootstrap["high"]
    assert "Monte Carlo" in result["test"] and result["p_value"] < 0.01
    assert result == paired.paired_comparison(a, b, seed=7)


def test_monte_carlo_p_value_agrees_with_exact_enumeration():
    a = {f"t{i}": 0.0 for i in range(16)}
    b = {f"t{i}": value for i, value in enumerate([1, 0.5, 0, 0, 1, 0, 0.5, 0, 0, 1, 0, 0, 0.5, 0, 0, 0])}
    exact = paired.paired_comparison(a, b, seed=1)
    b["t16"], a["t16"] = 0.0, 0.0
    sampled = paired.paired_comparison(a, b, seed=1, permutations=40_000)
    assert "exact" in exact["test"] and "Monte Carlo" in sampled["test"]
    assert sampled["p_value"] == pytest.approx(exact["p_value"], abs=0.01)


@pytest.mark.parametrize("a,b", [({}, {}), ({"x": 1.0}, {"x": 0.0, "y": 1.0}), ({"x": 1.0}, {"y": 1.0})])
def test_fewer_than_two_shared_tasks_give_no_claims(a, b):
    result = paired.paired_comparison(a, b, seed=1)
    assert result["p_value"] is None and "at least 2 shared tasks" in result["note"]
    assert all(interval["low"] is None for interval in result["intervals"].values())


def test_paired_rejects_rates_outside_unit_interval():
    with pytest.raises(ValueError):
        paired.paired_comparison({"x": 1.5, "y": 0}, {"x": 0, "y": 0}, seed=1)


# --- pass@k and pass^k ---

def brute_force(n, c, k):
    """Average over every k-subset of the n trials: any passes (pass@k), all pass (pass^k)."""
    outcomes = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(outcomes, k))
    return sum(any(s) for s in subsets) / len(subsets), sum(all(s) for s in subsets) / len(subsets)


@pytest.mark.parametrize("n", range(1, 8))
def test_pass_at_k_and_pass_hat_k_match_enumeration(n):
    for c in range(n + 1):
        for k in range(1, n + 1):
            at, hat = brute_force(n, c, k)
            assert passk.pass_at_k(n, c, k) == pytest.approx(at)
            assert passk.pass_hat_k(n, c, k) == pytest.approx(hat)
        assert passk.pass_at_k(n, c, n + 1) is None and passk.pass_hat_k(n, c, n + 1) is None


def test_benchflow_docstring_examples():
    assert round(passk.pass_at_k(5, 2, 2), 3) == 0.7 and round(passk.pass_hat_k(5, 3, 2), 3) == 0.3


def test_solve_rates_default_ks_and_short_tasks():
    result = passk.solve_rates([10, 12, 20], [5, 12, 0])
    assert result["ks"] == [1, 2, 4, 5, 8, 10]
    assert result["solve_rate"] == pytest.approx(17 / 42)
    first = result["per_k"][0]
    assert first["pass_at_k"] == pytest.approx((0.5 + 1 + 0) / 3) and first["tasks_short_at_k"] == 0
    explicit = passk.solve_rates([2, 4, 6], [1, 4, 0], ks=[3, 1, 7])
    assert explicit["ks"] == [1, 3, 7]
    three, seven = explicit["per_k"][1], explicit["per_k"][2]
    assert (three["tasks_at_k"], three["tasks_short_at_k"]) == (2, 1)
    assert three["pass_at_k"] == pytest.approx((1 + 0) / 2)
    assert three["pass_hat_k"] == pytest.approx((1 + 0) / 2)
    assert seven == {"k": 7, "pass_at_k": None, "pass_hat_k": None, "tasks_at_k": 0, "tasks_short_at_k": 3}


def test_solve_rates_rejects_bad_input():
    with pytest.raises(ValueError):
        passk.solve_rates([3, 0], [1, 0])
    with pytest.raises(ValueError):
        passk.solve_rates([3], [1], ks=[0])
    with pytest.raises(ValueError):
        passk.pass_at_k(3, 4, 1)
