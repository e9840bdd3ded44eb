"""The printed worst case is the true one, deterministic tasks included, and a composite headline
where it is narrower and honest: checked through `benchreport interval`, the researcher's path."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from benchreport.compute import coverage_design, interval, intervals
from scipy import stats as scipy_stats

SIMULATIONS = 40_000


def deterministic_headlines(tasks: int, tries: int) -> list[dict]:
    """`benchreport interval` of every run of deterministic tasks: k tasks pass every try, the rest none."""
    lines = [json.dumps({"tasks": [[tries, tries]] * k + [[0, tries]] * (tasks - k)}) for k in range(tasks + 1)]
    return interval.headlines(lines, workers=2)


def coverage(found: list[dict], means: np.ndarray) -> np.ndarray:
    """Exact coverage of the printed intervals at each mean: k passing tasks ~ Binomial(n, μ)."""
    low = np.array([line["low"] for line in found])
    high = np.array([line["high"] for line in found])
    k = np.arange(len(found))
    return np.array([scipy_stats.binom.pmf(k, len(found) - 1, mu)[(low <= mu) & (mu <= high)].sum() for mu in means])


@pytest.mark.parametrize("shape", [(12, 2), (30, 2)])
def test_deterministic_tasks_are_covered_as_often_as_printed(shape):
    """Tasks that pass every try or none (a correlation-1 beta-binomial): the headline's true
    worst case over the design's means, found at both sides of every printed bound, is the printed
    one, and runs simulated at that mean are covered as often."""
    tasks, tries = shape
    found = deterministic_headlines(tasks, tries)
    assert len({(line["method"], line["coverage"]) for line in found}) == 1
    printed = found[0]["coverage"]
    means = coverage_design.design_means(coverage_design.MEANS)
    edges = np.array([side for line in found for side in (line["low"], line["high"])])
    points = np.concatenate([means, edges, np.nextafter(edges, 0), np.nextafter(edges, 1)])
    points = points[(points >= means[0]) & (points <= means[-1])]
    exact = coverage(found, points)
    worst = points[np.argmin(exact)]
    assert exact.min() >= 0.945
    assert abs(exact.min() - printed) <= 0.005, (exact.min(), printed)
    rng = np.random.default_rng(sum(shape))
    passing = rng.binomial(tasks, worst, SIMULATIONS)
    covered = np.array([line["low"] <= worst <= line["high"] for line in found])[passing].mean()
    error = math.sqrt(covered * (1 - covered) / SIMULATIONS)
    assert abs(covered - printed) <= 4 * error, (covered, printed, worst)


def test_a_composite_is_the_headline_where_it_is_narrower_and_honest():
    """At 100 tasks x 3 tries a composite procedure (t away from 0 and 1, Clopper-Pearson near
    them) qualifies under every family and is narrower than Clopper-Pearson on task means on
    heterogeneous tasks; deterministic tasks sent through `benchreport interval` are covered at
    least as often as printed."""
    design = coverage_design.coverage_design(((3, 100),), seed=20261130, workers=2)
    choice = coverage_design.choose_headline(design)
    name = choice["method"]
    assert name in {intervals.composite_name(level, margin) for level, margin in intervals.COMPOSITES}
    row = design["methods"][name]
    assert row["lower_bound"] >= 0.95 and row["standard_error"] <= 0.0025
    assert {(entry["family"], entry["parameter"]) for entry in row["by_family"]} == set(coverage_design.FAMILIES)
    rng = np.random.default_rng(8)
    p = 1 / (1 + np.exp(-rng.normal(0, 1, (300, 100))))
    bounds = coverage_design.batch_intervals(rng.binomial(3, p), 3)
    width = {key: np.median(high - low) for key, (low, high) in bounds.items()}
    assert width[name] < 0.8 * width["clopper-pearson over task means"]
    assert width[name] <= 1.2 * width["t over task means"]
    found = deterministic_headlines(100, 3)
    assert {line["method"] for line in found} == {name}
    means = coverage_design.design_means(coverage_design.MEANS)
    assert coverage(found, means).min() >= found[0]["coverage"] - 1e-9
