"""Interval functions against reference implementations and the numbers the issue fixes."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
from benchreport.compute import coverage_design, intervals
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as scipy_stats


@pytest.mark.parametrize("successes,n", [(0, 1), (1, 1), (6, 9), (0, 9), (9, 9), (37, 120), (500, 1000)])
def test_wilson_matches_scipy(successes, n):
    ours = intervals.wilson(successes, n)
    reference = scipy_stats.binomtest(successes, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert ours["low"] == pytest.approx(reference.low, abs=1e-9)
    assert ours["high"] == pytest.approx(reference.high, abs=1e-9)


@pytest.mark.parametrize("n", [1, 2, 3, 9, 50, 1000])
def test_wilson_and_clopper_pearson_edges_are_exact(n):
    """0 passes: the lower bound is exactly 0 (Wilson's formula gives ~1e-17); all passes: the
    upper bound is exactly 1."""
    for bounds in (intervals.wilson_bounds, intervals.clopper_pearson_bounds):
        low, high = bounds(np.array([0, n]), n, 0.95)
        assert low[0] == 0.0 and high[1] == 1.0, bounds.__name__
        assert 0 < high[0] < 1 and 0 < low[1] < 1
    assert intervals.wilson(0, n)["low"] == 0.0 and intervals.wilson(n, n)["high"] == 1.0


@pytest.mark.parametrize("successes,n", [(0, 1), (1, 1), (6, 9), (0, 9), (9, 9), (37, 120), (500, 1000)])
def test_clopper_pearson_matches_scipy(successes, n):
    reference = scipy_stats.binomtest(successes, n).proportion_ci(confidence_level=0.95, method="exact")
    low, high = intervals.clopper_pearson_bounds(successes, n, 0.95)
    assert low == pytest.approx(reference.low, abs=1e-12) and high == pytest.approx(reference.high, abs=1e-12)


def run(trials, passes) -> dict:
    """Every method's interval of one run, as the workflow computes it."""
    return coverage_design.run_intervals(trials, passes)


def test_clopper_pearson_over_task_means_reads_the_sum_of_task_means():
    """Fractional sums: the beta quantiles at s = Σx̄ (scipy's beta.ppf), around the mean over tasks."""
    rates = [1.0, 2 / 3, 0.0, 1 / 3]
    found = run([3] * 4, [3, 2, 0, 1])["clopper-pearson over task means"]
    s, n = sum(rates), len(rates)
    assert found["low"] == pytest.approx(scipy_stats.beta.ppf(0.025, s, n - s + 1), abs=1e-12)
    assert found["high"] == pytest.approx(scipy_stats.beta.ppf(0.975, s + 1, n - s), abs=1e-12)
    assert found["estimate"] == pytest.approx(0.5) and found["low"] < 0.5 < found["high"]


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


# --- BCa, t, Wilson over task means, BenchFlow's wilson-clustered, every method of METHODS ---

CONTINUOUS_RATES = np.random.default_rng(7).uniform(size=60).round(2)
# Agent-like task means (K = 3): mostly all-or-nothing, skewed towards failure.
AGENT_RATES = np.random.default_rng(11).choice([0, 1 / 3, 2 / 3, 1], p=[0.5, 0.1, 0.1, 0.3], size=40)


@pytest.mark.parametrize("rates", [CONTINUOUS_RATES, AGENT_RATES], ids=["continuous", "agent-like"])
def test_bca_agrees_with_scipy(rates):
    tries = 100 if rates is CONTINUOUS_RATES else 3
    ours = run(np.full(rates.size, tries), np.round(rates * tries))["bootstrap-BCa over tasks"]
    reference = scipy_stats.bootstrap(
        (rates,), np.mean, n_resamples=50_000, method="BCa", rng=np.random.default_rng(2)
    ).confidence_interval
    assert ours["method"] == "bootstrap-BCa over tasks" and ours["over"] == "tasks"
    assert ours["low"] == pytest.approx(reference.low, abs=0.01)
    assert ours["high"] == pytest.approx(reference.high, abs=0.01)


@pytest.mark.parametrize("rates", [CONTINUOUS_RATES, AGENT_RATES, [1, 1, 0], [0.2, 0.4]])
def test_t_interval_matches_scipy(rates):
    ours = intervals.t_task_means(rates)
    reference = scipy_stats.ttest_1samp(rates, 0).confidence_interval(confidence_level=0.95)
    assert ours["low"] == pytest.approx(max(0.0, reference.low), abs=1e-12)
    assert ours["high"] == pytest.approx(min(1.0, reference.high), abs=1e-12)
    assert ours["estimate"] == pytest.approx(np.mean(rates))


DEGREES = [
    1,
    2,
    3,
    4,
    5,
    7,
    9,
    10,
    19,
    20,
    21,
    29,
    39,
    40,
    41,
    99,
    100,
    199,
    499,
    999,
    1_000,
    4_999,
    24_999,
    100_000,
    2.5,
    0.5,
]
LEVELS = [0.5 + c / 2 for c in (0.01, 0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 0.999)] + [0.6, 0.75, 0.7500001, 1 - 1e-9]


@pytest.mark.parametrize("df", DEGREES)
def test_t_quantile_matches_scipys_stdtrit(df):
    from scipy.special import stdtrit

    for p in LEVELS:
        for level in (p, 1 - p):
            assert intervals.t_quantile(df, level) == pytest.approx(stdtrit(df, level), rel=1e-12), (df, level)
    assert intervals.t_quantile(df, 0.5) == 0.0


@given(st.floats(0.05, 2e5), st.floats(1e-6, 0.499))
@settings(max_examples=300, deadline=None)
def test_t_quantile_matches_stdtrit_anywhere(df, p):
    from scipy.special import stdtrit

    for level in (p, 1 - p):
        assert intervals.t_quantile(df, level) == pytest.approx(stdtrit(df, level), rel=1e-11)


@pytest.mark.parametrize("p", [0.5000001, 0.5 + 1e-12, 0.51, 0.6, 0.74, 0.76, 0.9, 0.975, 0.999, 1 - 1e-12])
def test_t_quantile_keeps_its_digits_near_the_median(p):
    """Closed forms at 1 and 2 degrees of freedom; near the median, where scipy's stdtrit keeps
    about nine digits (3.1415926533e-07 for tan(π·(0.5000001 − ½)) = 3.1415926519e-07)."""
    cauchy = math.tan(math.pi * (p - 0.5)) if p < 0.75 else 1 / math.tan(math.pi * (1 - p))  # exact arguments
    assert intervals.t_quantile(1, p) == pytest.approx(cauchy, rel=1e-14)
    assert intervals.t_quantile(2, p) == pytest.approx((2 * p - 1) / math.sqrt(2 * p * (1 - p)), rel=1e-14)


def test_normal_cdf_and_quantile_match_ndtr_and_ndtri_on_arrays_and_scalars():
    from scipy.special import ndtr, ndtri

    x = np.array([-40.0, -8.5, -3.0, -1.0, -1e-9, 0.0, 0.3, 1.96, 5.0, 9.0, np.inf, -np.inf, np.nan])
    np.testing.assert_allclose(intervals.normal_cdf(x), ndtr(x), rtol=1e-13, atol=0)
    p = np.array([0.0, 1e-300, 1e-12, 0.001, 0.025, 0.3, 0.5, 0.7, 0.975, 1 - 1e-12, 1.0, np.nan])
    np.testing.assert_allclose(intervals.normal_quantile(p), ndtri(p), rtol=1e-14, atol=0)
    assert intervals.normal_quantile(0.975) == pytest.approx(ndtri(0.975), rel=1e-15)
    assert np.ndim(intervals.normal_cdf(0.5)) == 0 and float(intervals.normal_cdf(0.5)) == pytest.approx(ndtr(0.5))


def test_t_quantile_refuses_what_has_no_quantile():
    for df, p in ((0, 0.9), (-1, 0.9), (5, 0), (5, 1), (5, float("nan"))):
        with pytest.raises(ValueError):
            intervals.t_quantile(df, p)


def test_t_interval_needs_two_tasks():
    assert intervals.t_task_means([0.5])["low"] is None
    assert "at least 2" in intervals.t_task_means([])["note"]


@pytest.mark.parametrize("rates", [[1, 1, 0], [1.0] * 5, [0, 0, 0, 0], [1, 0] * 10])
def test_wilson_on_task_means_with_whole_sums_matches_scipy(rates):
    ours = run([1] * len(rates), rates)["wilson over task means"]
    reference = scipy_stats.binomtest(int(sum(rates)), len(rates)).proportion_ci(0.95, method="wilson")
    assert (ours["method"], ours["over"]) == ("wilson over task means", "tasks")
    assert ours["low"] == pytest.approx(reference.low, abs=1e-12)
    assert ours["high"] == pytest.approx(reference.high, abs=1e-12)


def hand_wilson(successes, n, z):
    """The Wilson formula written out once more, as benchflow-format.md §3.10 gives it."""
    p = successes / n
    den = 1 + z**2 / n
    centre = (p + z**2 / (2 * n)) / den
    half = z * np.sqrt(p * (1 - p) / n + z**2 / (4 * n**2)) / den
    return max(0.0, centre - half), min(1.0, centre + half)


def test_wilson_clustered_hand_computed_three_tasks():
    # 3/3, 3/3, 0/3: N = 9, p = 2/3, independent variance p(1-p)/N = 2/81,
    # clustered = (3/2) * ((3-2)² + (3-2)² + (0-2)²) / 81 = 1/9, design effect 4.5, n_eff = 2.
    ours = run([3, 3, 3], [3, 3, 0])["wilson-clustered"]
    assert ours["over"] == "tasks"
    assert intervals.clustered_sample_size([3, 3, 3], [3, 3, 0])[1] == pytest.approx(2.0)
    low, high = hand_wilson(4 / 3, 2, scipy_stats.norm.ppf(0.975))
    assert (ours["low"], ours["high"]) == pytest.approx((low, high), abs=1e-12)
    benchflow = hand_wilson(4 / 3, 2, 1.96)  # BenchFlow fixes z = 1.96
    assert (ours["low"], ours["high"]) == pytest.approx(benchflow, abs=1e-4)


def test_wilson_clustered_hand_computed_unequal_trials():
    # (1 of 2, 4 of 4, 0 of 6): N = 12, p = 5/12, independent = (5/12)(7/12)/12 = 35/1728,
    # Σ(c - p n)² = (1 - 10/12)² + (4 - 20/12)² + (0 - 30/12)² = (1 + 196 + 225)/36 = 211/18,
    # clustered = (3/2)(211/18)/144 = 211/1728, design effect 211/35, n_eff = 12·35/211 = 420/211,
    # Wilson on p·n_eff = 175/211 successes of 420/211.
    ours = run([2, 4, 6], [1, 4, 0])["wilson-clustered"]
    assert intervals.clustered_sample_size([2, 4, 6], [1, 4, 0])[1] == pytest.approx(420 / 211, abs=1e-12)
    assert ours["estimate"] == pytest.approx(5 / 12)
    expected = hand_wilson(175 / 211, 420 / 211, 1.959963984540054)
    assert (ours["low"], ours["high"]) == pytest.approx(expected, abs=1e-12)


def test_wilson_clustered_special_cases_follow_benchflow():
    everything = run([3, 3, 3], [3, 3, 3])["wilson-clustered"]  # no variance: n_eff = number of tasks
    assert intervals.clustered_sample_size([3, 3, 3], [3, 3, 3])[1] == 3
    assert (everything["low"], everything["high"]) == pytest.approx(hand_wilson(3, 3, 1.959963984540054))
    independent = intervals.clustered_sample_size([3, 3, 3, 3], [1, 2, 1, 2])  # design effect < 1: n_eff = N
    assert independent[1] == 12
    # one try each, or one task: Wilson over the trials, as BenchFlow falls back to
    for trials, passes in (([1, 1, 1], [1, 1, 0]), ([4], [3])):
        fallback = run(trials, passes)["wilson-clustered"]
        plain = intervals.wilson(sum(passes), sum(trials))
        assert (fallback["low"], fallback["high"]) == pytest.approx((plain["low"], plain["high"]), abs=1e-15)


def test_every_method_gives_the_contract_shape():
    assert set(intervals.METHODS) == {
        "wilson over trials",
        "t over task means",
        "bootstrap-percentile over tasks",
        "bootstrap-BCa over tasks",
        "wilson over task means",
        "wilson-clustered",
        "clopper-pearson over task means",
        "t at 97% over task means, clopper-pearson within 20 tasks of 0 or n",
        "t at 98% over task means, clopper-pearson within 10 tasks of 0 or n",
    }
    found = run([3, 3, 3], [3, 3, 0])
    assert list(found) == list(intervals.METHODS)
    for name, interval in found.items():
        assert {"method", "low", "high", "over", "estimate"} <= set(interval), name
        assert interval["method"] == name and interval["over"] in ("tasks", "trials")
        assert 0 <= interval["low"] <= interval["high"] <= 1
    over_trials = found["wilson over trials"]
    assert (round(over_trials["low"] * 100), round(over_trials["high"] * 100)) == (35, 88)
    bootstrap = found["bootstrap-percentile over tasks"]
    assert (bootstrap["low"], bootstrap["high"]) == (0.0, 1.0)


@pytest.mark.parametrize(
    "trials,passes", [([3, 3], [4, 1]), ([3, 0], [1, 0]), ([3, 3], [-1, 0]), ([3, 3], [1]), ([2.5, 3], [1, 1])]
)
def test_methods_reject_impossible_counts(trials, passes):
    with pytest.raises(ValueError):
        run(np.array(trials), np.array(passes))


def test_bad_arguments_raise_value_error():
    with pytest.raises(ValueError):
        intervals.wilson(5, 3)
    with pytest.raises(ValueError):
        intervals.wilson(1, 3, confidence=1.5)
    with pytest.raises(ValueError):
        intervals.bootstrap_tasks([0.5, 1], resamples=0, seed=1)
    with pytest.raises(ValueError):
        intervals.t_task_means([0.5, 1.5])
    with pytest.raises(ValueError):
        coverage_design.run_intervals([2, 2], [1, 2], confidence=0)


def test_ten_thousand_resamples_of_a_thousand_tasks_take_well_under_a_second():
    rates = np.random.default_rng(0).choice([0, 1 / 3, 2 / 3, 1], size=1000)
    start = time.perf_counter()
    intervals.bootstrap_tasks(rates, 10_000, seed=1)
    assert time.perf_counter() - start < 1.0


def test_a_composite_reads_t_away_from_the_bounds_and_clopper_pearson_near_them():
    """t at its own level where the sum of task means is at least the margin from 0 and from n,
    Clopper-Pearson at the confidence level elsewhere, in the batch the design measures."""
    rng = np.random.default_rng(4)
    name = intervals.composite_name(0.97, 20)
    for rates in (rng.choice([0, 1 / 3, 2 / 3, 1], 100, p=[0.1, 0.3, 0.4, 0.2]), np.r_[np.ones(19), np.zeros(81)]):
        found = run([3] * rates.size, np.round(rates * 3))[name]
        if 20 <= rates.sum() <= 80:
            reference = scipy_stats.ttest_1samp(rates, 0).confidence_interval(confidence_level=0.97)
            expected = (reference.low, reference.high)
        else:
            expected = tuple(float(side) for side in intervals.clopper_pearson_bounds(rates.sum(), rates.size, 0.95))
        assert (found["low"], found["high"]) == pytest.approx(expected, abs=1e-12), rates.sum()
    same = run([2] * 100, [1] * 100)[name]  # no spread: no t interval
    assert (same["low"], same["high"]) == pytest.approx(tuple(intervals.clopper_pearson_bounds(50.0, 100, 0.95)))
