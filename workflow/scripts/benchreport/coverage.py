"""How often each interval method covers the true pass rate at a run's own tasks x tries.

Which interval to print as the headline depends on n and K (../statistics.md: at 3 tasks only
the conservative ones hold, from about 30 tasks the task-level ones do), so the workflow measures
it for each run with a seeded simulation instead of trusting a table.

Every method in `intervals.METHODS` is recomputed here on whole batches of simulated runs at
once. The analytic ones use the same array helpers as `intervals`. The bootstrap ones use, by
default, the exact bootstrap distribution, the limit of infinitely many resamples: with K tries
a task mean is one of K+1 values, so a resample's total passes is a sum of n draws from the
run's K+1 task outcomes, whose distribution is the n-fold convolution of them (done by FFT).
`resamples=B` instead draws B seeded resamples per simulated run, to check that computation.
Bounds are read off the distribution as its inverse cdf, the limit of np.quantile's.
"""

from __future__ import annotations

import numpy as np

from . import intervals

MODEL = (
    "each task's pass probability p_i ~ Beta(μφ, (1−μ)φ) with φ = 1/ρ − 1 (mean μ, correlation ρ "
    "between two tries of one task); {tries} Bernoulli(p_i) tries for each of {tasks} tasks; "
    "an interval covers when it contains μ; an undefined interval counts as not covering"
)
# Slack for floating-point noise in the FFT's cumulative probabilities.
CDF_TOLERANCE = 1e-12


def simulate_passes(rng, n_tasks: int, tries_per_task: int, pass_rate: float, correlation: float,
                    simulations: int) -> np.ndarray:
    """(simulations x n_tasks) pass counts under the beta-binomial model in `MODEL`."""
    spread = 1 / correlation - 1
    probabilities = rng.beta(pass_rate * spread, (1 - pass_rate) * spread, size=(simulations, n_tasks))
    return rng.binomial(tries_per_task, probabilities)


def _power(base: np.ndarray, exponent: int) -> np.ndarray:
    """base**exponent by repeated squaring in place: far faster than numpy's complex power."""
    result = np.ones_like(base)
    while exponent:
        if exponent & 1:
            np.multiply(result, base, out=result)
        np.multiply(base, base, out=base)
        exponent >>= 1
    return result


def _bootstrap_distribution(passes: np.ndarray, tries: int, resamples: int | None, rng) -> np.ndarray:
    """Per run (row), the probability of each resample total of passes 0 … n·K.

    Exact by default: a resample draws n tasks from the run's K+1 task outcomes, so its total is
    their n-fold convolution (an FFT power), computed once per distinct mix of outcomes.
    With `resamples`, the share of B seeded resamples.
    """
    runs, tasks = passes.shape
    outcome_counts = (passes[..., None] == np.arange(tries + 1)).sum(axis=1)
    support = tasks * tries + 1
    if resamples is None:
        mixes, run_mix = np.unique(outcome_counts, axis=0, return_inverse=True)
        length = 1 << (support - 1).bit_length()
        spectrum = _power(np.fft.rfft(mixes / tasks, length, axis=1), tasks)
        pmf = np.fft.irfft(spectrum, length, axis=1)[:, :support].clip(0)
        return (pmf / pmf.sum(axis=1, keepdims=True))[run_mix.ravel()]
    totals = rng.multinomial(tasks, outcome_counts / tasks, size=(resamples, runs)) @ np.arange(tries + 1)
    cells = (totals + support * np.arange(runs)).ravel()
    return np.bincount(cells, minlength=runs * support).reshape(runs, support) / resamples


def _inverse_cdf(cdf: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """Per run, the smallest total whose cdf reaches the run's level (NaN level → NaN)."""
    defined = np.isfinite(levels)
    index = (cdf >= np.where(defined, levels, 0)[:, None] - CDF_TOLERANCE).argmax(axis=1)
    return np.where(defined, index, np.nan)


def _bootstrap_bounds(passes, tries, confidence, resamples, rng):
    """Percentile and BCa bounds of each run, read off its bootstrap distribution."""
    runs, tasks = passes.shape
    pmf = _bootstrap_distribution(passes, tries, resamples, rng)
    cdf = np.cumsum(pmf, axis=1)
    totals = passes.sum(axis=1)
    rows = np.arange(runs)
    share_below = np.where(totals > 0, cdf[rows, totals - 1], 0.0) + pmf[rows, totals] / 2
    acceleration = intervals.bootstrap_acceleration(passes / tries)
    alpha = 1 - confidence
    percentile_levels = (np.full(runs, alpha / 2), np.full(runs, 1 - alpha / 2))
    bca_levels = intervals.bca_levels(share_below, acceleration, confidence)
    scale = tasks * tries
    return {
        "bootstrap-percentile over tasks": tuple(_inverse_cdf(cdf, levels) / scale for levels in percentile_levels),
        "bootstrap-BCa over tasks": tuple(_inverse_cdf(cdf, levels) / scale for levels in bca_levels),
    }


def batch_intervals(passes: np.ndarray, tries_per_task: int, *, confidence: float = 0.95,
                    resamples: int | None = None, rng=None) -> dict:
    """Every `intervals.METHODS` interval for many runs at once.

    passes: (runs x tasks) pass counts, every task tried `tries_per_task` times.
    Returns name -> (low, high) arrays, NaN where the method is undefined for that run.
    `rng` (a numpy Generator) is needed only with `resamples`.
    """
    passes = np.asarray(passes)
    runs, tasks = passes.shape
    rates = passes / tries_per_task
    trials = np.full(passes.shape, tries_per_task)
    if tasks >= 2:
        _, t_low, t_high = intervals.t_bounds(rates, confidence)
        t_bounds = (np.maximum(0.0, t_low), np.minimum(1.0, t_high))
    else:
        t_bounds = (np.full(runs, np.nan), np.full(runs, np.nan))
    pooled, effective, _, _ = intervals.clustered_sample_size(trials, passes)
    bounds = {
        "wilson over trials": intervals.wilson_bounds(passes.sum(axis=1), tasks * tries_per_task, confidence),
        "t over task means": t_bounds,
        "wilson over task means": intervals.wilson_bounds(rates.sum(axis=1), tasks, confidence),
        "wilson-clustered": intervals.wilson_bounds(pooled * effective, effective, confidence),
    }
    bounds |= _bootstrap_bounds(passes, tries_per_task, confidence, resamples, rng)
    return {name: bounds[name] for name in intervals.METHODS}


def _check_grid_arguments(n_tasks, tries_per_task, simulations, pass_rates, correlations, resamples):
    for name, value in (("n_tasks", n_tasks), ("tries_per_task", tries_per_task), ("simulations", simulations)):
        if int(value) != value or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value}")
    if resamples is not None and (int(resamples) != resamples or resamples < 1):
        raise ValueError(f"resamples must be None or a positive integer, got {resamples}")
    if not pass_rates or not correlations:
        raise ValueError("the grid needs at least one pass rate and one correlation")
    if any(not 0 < value < 1 for value in (*pass_rates, *correlations)):
        raise ValueError("pass rates and correlations must lie strictly between 0 and 1")


def coverage_grid(n_tasks: int, tries_per_task: int, *, seed: int, simulations: int = 10_000,
                  pass_rates=(0.1, 0.3, 0.5, 0.7, 0.9), correlations=(0.1, 0.5, 0.9),
                  confidence: float = 0.95, resamples: int | None = None) -> dict:
    """Coverage of every `intervals.METHODS` method at n_tasks x tries_per_task, by simulation.

    For each (true pass rate μ, correlation ρ) cell, in grid order, `simulations` runs are drawn
    from numpy's PCG64 seeded from `seed`, so the same arguments give the same output; resamples,
    if any, come from a second stream spawned from the same seed, so the simulated runs do not
    depend on `resamples`. Per method: worst coverage over the grid and its cell, mean width,
    and the grid.
    """
    _check_grid_arguments(n_tasks, tries_per_task, simulations, pass_rates, correlations, resamples)
    intervals.check_confidence(confidence)
    data_seed, resampling_seed = np.random.SeedSequence(seed).spawn(2)
    data_rng, resampling_rng = np.random.default_rng(data_seed), np.random.default_rng(resampling_seed)
    cells = {name: [] for name in intervals.METHODS}
    for pass_rate in pass_rates:
        for correlation in correlations:
            passes = simulate_passes(data_rng, n_tasks, tries_per_task, pass_rate, correlation, simulations)
            bounds = batch_intervals(passes, tries_per_task, confidence=confidence, resamples=resamples,
                                     rng=resampling_rng)
            for name, (low, high) in bounds.items():
                defined = ~np.isnan(low)
                cells[name].append({
                    "pass_rate": float(pass_rate),
                    "correlation": float(correlation),
                    "coverage": float(np.mean(defined & (low <= pass_rate) & (pass_rate <= high))),
                    "mean_width": float(np.mean(high[defined] - low[defined])) if defined.any() else None,
                    "undefined": float(np.mean(~defined)),
                })
    methods = {}
    for name, grid in cells.items():
        worst = min(grid, key=lambda cell: cell["coverage"])
        widths = [cell["mean_width"] for cell in grid if cell["mean_width"] is not None]
        methods[name] = {
            "worst_coverage": worst["coverage"],
            "worst_cell": {"pass_rate": worst["pass_rate"], "correlation": worst["correlation"]},
            "mean_width": float(np.mean(widths)) if widths else None,
            "grid": grid,
        }
    return {
        "n_tasks": n_tasks,
        "tries_per_task": tries_per_task,
        "seed": seed,
        "generator": "numpy PCG64 via numpy.random.default_rng(SeedSequence(seed).spawn(2)): runs, resamples",
        "simulations": simulations,
        # Monte-Carlo standard error of one cell's coverage when the true coverage is 95%.
        "standard_error_at_95": float(np.sqrt(0.95 * 0.05 / simulations)),
        "confidence": confidence,
        "model": MODEL.format(tries=tries_per_task, tasks=n_tasks),
        "bootstrap": (
            "exact bootstrap distribution (the limit of infinitely many resamples), by convolution"
            if resamples is None
            else f"{resamples} resamples per simulated run"
        ),
        "pass_rates": [float(value) for value in pass_rates],
        "correlations": [float(value) for value in correlations],
        "methods": methods,
    }


def choose_headline(grid: dict, target: float = 0.95) -> dict:
    """The narrowest method (mean width over the grid) whose worst-case coverage reaches `target`.

    When none does, names the method with the highest worst-case coverage and says so in words.
    """
    methods = grid["methods"]
    setting = f"{grid['n_tasks']} tasks × {grid['tries_per_task']} tries"
    holding = [name for name, row in methods.items() if row["worst_coverage"] >= target]
    if holding:
        name = min(holding, key=lambda method: methods[method]["mean_width"])
        row = methods[name]
        return {
            "method": name,
            "worst_coverage": row["worst_coverage"],
            "mean_width": row["mean_width"],
            "text": f"{name}: the narrowest method covering at least {target:.0%} at {setting} "
                    f"(worst case {row['worst_coverage']:.1%})",
        }
    best = max(methods, key=lambda method: methods[method]["worst_coverage"])
    return {
        "method": None,
        "best": best,
        "worst_coverage": methods[best]["worst_coverage"],
        "text": f"no method reaches {target:.0%} coverage at {setting}; the best, {best}, covers "
                f"{methods[best]['worst_coverage']:.1%} in its worst case",
    }
