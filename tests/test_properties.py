"""Properties every interval method should have, checked on generated runs (hypothesis), each
interval computed as the workflow computes it (`coverage_design.run_intervals`).

Which property holds for which method, and why:

- Inside [0, 1] and containing its own point estimate ("estimate": the pooled Σc/Σn for the two
  Wilson-over-trials methods, the mean of the task means for the rest): all, whenever the
  interval is defined.
- Independent of the order of the tasks: all, up to floating-point rounding of sums (the exact
  bootstrap reads only how many tasks had each outcome).
- Not narrower after a task is removed: false in general for every method (removing an outlier
  task narrows them all; see the last test). The honest version removes a task whose pass rate
  equals the estimate, which leaves the estimate and the spread of the others unchanged:
  - exactly, for Wilson over trials, Wilson over task means and the t interval;
  - exactly for wilson-clustered while at least 2 tasks remain: with a single task BenchFlow falls
    back to Wilson over that task's trials, which can be narrower than the clustered interval of
    two identical tasks (shown in a test below);
  - for the percentile and BCa bootstraps, only up to the discreteness of the bootstrap
    distribution, even with infinitely many resamples: quantiles of a distribution on the lattice
    of possible means jump, so each endpoint may round by one lattice step 1/(n·K). We check the
    exact bootstrap from `coverage_design.batch_intervals` with that tolerance of two steps.
"""

from __future__ import annotations

import numpy as np
import pytest
from benchreport.compute import coverage_design, intervals
from hypothesis import given, settings
from hypothesis import strategies as st

PROPERTY_SETTINGS = settings(max_examples=150, deadline=None, derandomize=True, database=None)
ANALYTIC = ("wilson over trials", "wilson over task means", "t over task means")
BOOTSTRAPS = ("bootstrap-percentile over tasks", "bootstrap-BCa over tasks")


def run_all(trials, passes) -> dict:
    return coverage_design.run_intervals(trials, passes)


def width(interval) -> float:
    """Width, with an undefined interval counting as infinitely wide (it claims nothing)."""
    return np.inf if interval["low"] is None else interval["high"] - interval["low"]


@st.composite
def runs(draw, equal_tries=False, min_tasks=1):
    """(trials per task, passes per task): 1–12 tasks of 1–5 tries."""
    tasks = draw(st.integers(min_tasks, 12))
    if equal_tries:
        trials = [draw(st.integers(1, 5))] * tasks
    else:
        trials = draw(st.lists(st.integers(1, 5), min_size=tasks, max_size=tasks))
    passes = [draw(st.integers(0, n)) for n in trials]
    return trials, passes


@PROPERTY_SETTINGS
@given(runs())
def test_every_interval_lies_in_unit_range_and_contains_its_estimate(run):
    for name, interval in run_all(*run).items():
        if interval["low"] is None:
            assert interval["high"] is None and interval.get("note"), name
            continue
        assert 0 <= interval["low"] <= interval["estimate"] + 1e-12, name
        assert interval["estimate"] - 1e-12 <= interval["high"] <= 1, name


@PROPERTY_SETTINGS
@given(runs(), st.randoms(use_true_random=False))
def test_intervals_do_not_depend_on_the_order_of_tasks(run, random):
    trials, passes = run
    order = list(range(len(trials)))
    random.shuffle(order)
    before = run_all(trials, passes)
    after = run_all([trials[i] for i in order], [passes[i] for i in order])
    for name in intervals.METHODS:
        for key in ("low", "high", "estimate"):
            assert before[name][key] == pytest.approx(after[name][key], abs=1e-12), (name, key)


def with_a_task_at_the_estimate(trials, passes):
    """Add a task of m·K tries passing Σc of them: its rate equals both the pooled rate and,
    with K tries per task, the mean of the task means, so neither estimate moves."""
    return [*trials, sum(trials)], [*passes, sum(passes)]


@PROPERTY_SETTINGS
@given(runs(equal_tries=True))
def test_removing_a_task_equal_to_the_estimate_never_narrows_the_analytic_intervals(run):
    smaller = run_all(*run)
    larger = run_all(*with_a_task_at_the_estimate(*run))
    for name in ANALYTIC:
        assert width(smaller[name]) >= width(larger[name]) - 1e-12, name


@PROPERTY_SETTINGS
@given(runs(equal_tries=True, min_tasks=2))
def test_removing_a_task_equal_to_the_estimate_never_narrows_wilson_clustered_while_two_tasks_remain(run):
    smaller = run_all(*run)["wilson-clustered"]
    larger = run_all(*with_a_task_at_the_estimate(*run))["wilson-clustered"]
    assert width(smaller) >= width(larger) - 1e-12


def test_benchflow_fallback_for_one_task_can_be_narrower_than_two_identical_tasks():
    """One task passing 5/5: Wilson over its 5 trials. Two such tasks: no variance, so BenchFlow
    sets n_eff to the number of tasks, 2: a wider interval from more data."""
    one = run_all([5], [5])["wilson-clustered"]
    two = run_all([5, 5], [5, 5])["wilson-clustered"]
    assert (one["low"], one["high"]) == pytest.approx((intervals.wilson(5, 5)["low"], 1.0))
    assert width(one) < width(two)


@st.composite
def runs_with_a_whole_mean(draw):
    """K tries for each of 2–12 tasks, total passes a multiple of the number of tasks, so that a
    task at the mean also has K tries (the exact bootstrap needs equal tries)."""
    trials, passes = draw(runs(equal_tries=True, min_tasks=2))
    excess = sum(passes) % len(passes)
    for index, count in enumerate(passes):
        taken = min(excess, count)
        passes[index] -= taken
        excess -= taken
    return trials[0], passes


@PROPERTY_SETTINGS
@given(runs_with_a_whole_mean())
def test_removing_a_task_equal_to_the_mean_narrows_the_exact_bootstrap_by_at_most_lattice_rounding(run):
    tries, passes = run
    lattice_step = 1 / (len(passes) * tries)
    smaller = coverage_design.batch_intervals(np.array([passes]), tries)
    larger = coverage_design.batch_intervals(np.array([[*passes, sum(passes) // len(passes)]]), tries)
    for name in BOOTSTRAPS:
        (low_small,), (high_small,) = smaller[name]
        (low_large,), (high_large,) = larger[name]
        if np.isnan(low_small) or np.isnan(low_large):
            continue
        assert high_small - low_small >= high_large - low_large - 2 * lattice_step - 1e-12, name


def test_removing_an_outlier_task_narrows_every_interval():
    """Why the property above is restricted: four tasks at 3/3 and one at 0/3, then without it."""
    with_outlier = run_all([3] * 5, [3, 3, 3, 3, 0])
    without = run_all([3] * 4, [3, 3, 3, 3])
    for name in intervals.METHODS:
        if name in coverage_design.GUARDED:  # no spread left: the Clopper-Pearson bound instead
            assert "same pass fraction" in without[name]["note"], name
        else:
            assert width(without[name]) < width(with_outlier[name]), name
