"""An independent check of the headline's coverage: task families and shapes the design never
sees, simulated here with code of its own (numpy and scipy only), every simulated run sent
through `benchreport interval` (the code path of the workflow's headline). Wherever the headline
says the target is reached, its true coverage must be at least 94.5%, and the printed coverage
must not overstate the truth by more than 1.5 points."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from benchreport.compute import interval
from scipy import stats as scipy_stats

RUNS = 2000


def probabilities(rng, family, mean, size):
    """Task pass probabilities with the given mean, from families outside the design's."""
    if family == "uniform":  # flat on the widest interval around the mean inside [0, 1]
        half = min(mean, 1 - mean)
        return rng.uniform(mean - half, mean + half, size)
    if family == "probit-normal":  # Φ(a + 1.2 Z) has mean Φ(a / √(1 + 1.2²))
        return scipy_stats.norm.cdf(scipy_stats.norm.ppf(mean) * math.sqrt(1 + 1.44) + 1.2 * rng.standard_normal(size))
    if family == "two-point":  # almost Bernoulli: 0.3% or 99.7%
        return np.where(rng.random(size) < (mean - 0.003) / 0.994, 0.997, 0.003)
    if family == "skewed-beta":  # Beta(0.4, b): many tasks near 0, a long tail
        return rng.beta(0.4, 0.4 * (1 - mean) / mean, size)
    raise ValueError(family)


SHAPES = {
    "11 x 2": [2] * 11,
    "14 mixed 2/3/5": [2] * 5 + [3] * 6 + [5] * 3,
    "37 x 1": [1] * 37,
}
# Run with -m slow (CI): a second shape of equal tries and a second of mixed tries, and larger
# shapes, where the design simulates every method but the two on the sum of task means and the
# bootstrap is read over a window (from coverage_design.WINDOWED_MIN_TASKS tasks).
SLOW_SHAPES = {
    "25 x 6": [6] * 25,
    "23 mixed 1-5": [1, 2, 3, 4, 5] * 4 + [2, 3, 4],
    "150 x 10": [10] * 150,
    "64 mixed 1-8": list(range(1, 9)) * 8,
}
FAMILIES = ("uniform", "probit-normal", "two-point", "skewed-beta")


@pytest.mark.parametrize("shape", [*SHAPES, *(pytest.param(name, marks=pytest.mark.slow) for name in SLOW_SHAPES)])
def test_wherever_the_target_is_said_to_be_reached_it_is(shape):
    """Every (family, mean) cell's runs go through one `benchreport interval` batch, as a
    researcher's would: one design for the shape, each run's headline from it."""
    tries = np.array((SHAPES | SLOW_SHAPES)[shape])
    rng = np.random.default_rng(sum(map(ord, shape)))
    means = np.concatenate([[0.011, 0.989], rng.uniform(0.02, 0.98, 2)])
    cells, lines = [], []
    for family in FAMILIES:
        for mean in means:
            if family == "two-point" and not 0.003 < mean < 0.997:
                continue
            p = probabilities(rng, family, mean, (RUNS, tries.size))
            passes = rng.binomial(tries, p)
            cells.append((family, mean))
            lines += [json.dumps({"tasks": [[int(c), int(k)] for c, k in zip(row, tries)]}) for row in passes]
    found = interval.headlines(lines)
    assert len({(line["method"], line["reaches_target"], line["coverage"]) for line in found}) == 1
    first = found[0]
    assert first["reaches_target"]  # the headline reaches the target at 10+ tasks
    for number, (family, mean) in enumerate(cells):
        mine = found[number * RUNS : (number + 1) * RUNS]
        covered = np.mean([line["low"] <= mean <= line["high"] for line in mine])
        error = math.sqrt(max(covered * (1 - covered), 0.05 * 0.95) / RUNS)
        assert covered >= 0.945 - 3 * error, (shape, family, mean, first["method"], covered)
        assert first["coverage"] <= covered + 0.015 + 3 * error, (shape, family, mean, covered)
