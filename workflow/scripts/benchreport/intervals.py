"""Interval methods for a pass rate. Each returns {"method", "low", "high", "over"}.

"over" names the variability the interval accounts for: "tasks" (resampling or modelling the
task-to-task spread, which carries the try-to-try noise inside each task mean) or "trials"
(treating every trial as independent, which tries of one task are not; ../statistics.md).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import norm


def _z(confidence: float) -> float:
    return float(norm.ppf(0.5 + confidence / 2))


def wilson(successes: float, n: float, confidence: float = 0.95) -> dict:
    """Wilson score interval for successes out of n independent trials."""
    if n <= 0:
        return {"method": "wilson", "low": None, "high": None, "over": "trials"}
    z = _z(confidence)
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return {
        "method": "wilson",
        "low": max(0.0, centre - half),
        "high": min(1.0, centre + half),
        "over": "trials",
    }


def bootstrap_tasks(task_rates, resamples: int, seed: int, confidence: float = 0.95) -> dict:
    """Percentile bootstrap of the mean task pass fraction, resampling whole tasks.

    Vectorised: one (resamples x tasks) index draw from numpy's PCG64 seeded with `seed`.
    """
    rates = np.asarray(task_rates, dtype=float)
    result = {"method": "bootstrap-percentile over tasks", "over": "tasks", "seed": seed, "resamples": resamples}
    if rates.size == 0:
        return result | {"low": None, "high": None}
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, rates.size, size=(resamples, rates.size))
    means = rates[draws].mean(axis=1)
    alpha = 1 - confidence
    low, high = np.quantile(means, [alpha / 2, 1 - alpha / 2])
    return result | {"low": float(low), "high": float(high)}
