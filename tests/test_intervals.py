"""Interval functions against reference implementations and the numbers the issue fixes."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as scipy_stats

from benchreport import intervals


@pytest.mark.parametrize("successes,n", [(0, 1), (1, 1), (6, 9), (0, 9), (9, 9), (37, 120), (500, 1000)])
def test_wilson_matches_scipy(successes, n):
    ours = intervals.wilson(successes, n)
    reference = scipy_stats.binomtest(successes, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert ours["low"] == pytest.approx(reference.low, abs=1e-9)
    assert ours["high"] == pytest.approx(reference.high, abs=1e-9)


def test_wilson_numbers_of_the_report_shape():
    nine = intervals.wilson(6, 9)
    assert (round(nine["low"] * 100), round(nine["high"] * 100)) == (35, 88)
    one = intervals.wilson(1, 1)
    assert (round(one["low"] * 100), round(one["high"] * 100)) == (21, 100)


def test_bootstrap_three_tasks_spans_everything():
    interval = intervals.bootstrap_tasks([1.0, 1.0, 0.0], resamples=10_000, seed=20261130)
    assert (interval["low"], interval["high"]) == (0.0, 1.0)
    assert interval["over"] == "tasks" and interval["seed"] == 20261130


def test_bootstrap_agrees_with_scipy_percentile():
    rates = np.random.default_rng(7).uniform(size=60).round(2)
    ours = intervals.bootstrap_tasks(rates, resamples=20_000, seed=1)
    reference = scipy_stats.bootstrap(
        (rates,), np.mean, n_resamples=20_000, method="percentile", random_state=np.random.default_rng(2)
    ).confidence_interval
    assert ours["low"] == pytest.approx(reference.low, abs=0.01)
    assert ours["high"] == pytest.approx(reference.high, abs=0.01)


def test_bootstrap_is_seeded_and_order_free():
    rates = [0.0, 0.2, 1.0, 0.6, 0.4]
    first = intervals.bootstrap_tasks(rates, 5000, seed=3)
    assert first == intervals.bootstrap_tasks(rates, 5000, seed=3)
    assert first != intervals.bootstrap_tasks(rates, 5000, seed=4)
    assert first["low"] <= np.mean(rates) <= first["high"]
