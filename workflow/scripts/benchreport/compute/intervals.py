"""Interval methods for a pass rate: the bounds of each, on whole batches of runs at once
(`coverage_design.batch_intervals` computes every method of `METHODS` from them), and the
single-run intervals a setting prints besides, each {"method", "low", "high", "over", ...}.

"over" names the variability the interval accounts for: "tasks" (resampling or modelling the
task-to-task spread, which carries the try-to-try noise inside each task mean) or "trials"
(treating every trial as independent, which tries of one task are not).
low/high are None when the method is undefined for the data, and then a "note" says why.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

# The normal CDF and quantile and the Student t quantile are computed here, not taken from
# scipy.special, for speed alone: rule report, once a setting, then imports no scipy
# (benchmarks/RESULTS.md). tests/test_intervals.py holds them to scipy's ndtr, ndtri and stdtrit.

STANDARD_NORMAL = NormalDist()
# Sums of task means closer than this count as equal: task means are fractions such as 1/3, and
# the same multiset summed in another order may differ in the last bit.
TIE_TOLERANCE = 1e-9
# Resampled indices are drawn in blocks of about this many, which bounds memory, not the result.
BLOCK_ELEMENTS = 1 << 20


def check_confidence(confidence: float) -> None:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence}")


def _z(confidence: float) -> float:
    """The two-sided normal quantile (the standard library's, within an ulp of scipy's ndtri)."""
    check_confidence(confidence)
    return STANDARD_NORMAL.inv_cdf(0.5 + confidence / 2)


def normal_cdf(x):
    """Φ(x), elementwise (0.5·erfc(-x/√2): no cancellation in the lower tail)."""
    return np.asarray(np.frompyfunc(lambda value: 0.5 * math.erfc(-value / math.sqrt(2)), 1, 1)(x), dtype=float)


def _normal_quantile(p: float) -> float:
    if math.isnan(p):
        return math.nan
    if p <= 0 or p >= 1:
        return -math.inf if p <= 0 else math.inf
    return STANDARD_NORMAL.inv_cdf(p)


def normal_quantile(p):
    """Φ⁻¹(p), elementwise; -inf at 0, inf at 1 and NaN for NaN, as scipy's ndtri."""
    return np.asarray(np.frompyfunc(lambda value: _normal_quantile(float(value)), 1, 1)(p), dtype=float)


def _log_beta_half(a: float) -> float:
    """ln B(a, ½) = ½ ln π − (ln Γ(a+½) − ln Γ(a)); the difference from a = 20 on by its
    asymptotic series (error < 2e-17 there), where two lgamma values would lose digits to their
    size."""
    if a < 20:
        ratio = math.lgamma(a + 0.5) - math.lgamma(a)
    else:
        ratio = (
            0.5 * math.log(a)
            - 1 / (8 * a)
            + 1 / (192 * a**3)
            - 1 / (640 * a**5)
            + 17 / (14336 * a**7)
            - 31 / (18432 * a**9)
        )
    return 0.5 * math.log(math.pi) - ratio


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the regularized incomplete beta I_x(a, b) (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    fraction = d
    for m in range(1, 100_000):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            fraction *= c * d
        if abs(c * d - 1.0) < 1e-16:
            break
    return fraction


def _t_probability(t: float, df: float, central: bool) -> float:
    """P(0 < T < t) when `central`, else P(T > t), for t > 0 and df degrees of freedom.

    2·P(T > t) = I_x(df/2, ½) at x = df/(df+t²) and 2·P(0 < T < t) = I_{1−x}(½, df/2); each side
    is summed by the continued fraction where it converges, and the asked probability is taken
    from the side that is small (no cancellation in either tail)."""
    a, square = df / 2, t * t
    x, rest = df / (df + square), square / (df + square)  # x and 1 − x, each without cancellation
    front = math.exp(-a * math.log1p(square / df) + 0.5 * math.log(rest) - _log_beta_half(a))
    if x < (a + 1) / (a + 2.5):
        tail = 0.5 * front * _beta_fraction(a, 0.5, x) / a
        return 0.5 - tail if central else tail
    inner = front * _beta_fraction(0.5, a, rest)  # I_{1-x}(½, a) = front · fraction / ½
    return inner if central else 0.5 - inner


def _t_density(t: float, df: float) -> float:
    return math.exp(-0.5 * math.log(df) - _log_beta_half(df / 2) - (df + 1) / 2 * math.log1p(t * t / df))


def t_quantile(df: float, p: float) -> float:
    """The p quantile of Student's t with df degrees of freedom (df > 0, 0 < p < 1).

    Starts from the Cornish-Fisher expansion around the normal quantile and solves, for |t|,
    P(0 < T < |t|) = |p − ½| (p between ¼ and ¾) or P(T > |t|) = min(p, 1 − p) by Newton's
    method, kept inside a bracket (bisection when a step leaves it).
    """
    if not df > 0 or not 0 < p < 1:
        raise ValueError(f"t_quantile needs df > 0 and 0 < p < 1, got df={df}, p={p}")
    if p == 0.5:
        return 0.0
    # |t| solves one equation whichever side p is on; each target is exact in floating point
    central = 0.25 < p < 0.75
    target = abs(p - 0.5) if central else min(p, 1 - p)

    def excess(t):  # increasing in t; zero at the quantile
        value = _t_probability(t, df, central)
        return value - target if central else target - value

    z = abs(STANDARD_NORMAL.inv_cdf(p))
    guess = (
        z
        + (z**3 + z) / (4 * df)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3)
    )
    low, high = 0.0, max(guess, 1.0)
    while excess(high) < 0:
        low, high = high, 2 * high
    t = min(max(guess, low), high) if guess > 0 else high / 2
    for _ in range(200):
        error = excess(t)
        if error < 0:
            low = t
        else:
            high = t
        following = t - error / _t_density(t, df)
        if not low < following < high:
            following = (low + high) / 2
        if abs(following - t) <= 4e-16 * abs(t) or high - low <= 4e-16 * high:
            return math.copysign(following, p - 0.5)
        t = following
    return math.copysign(t, p - 0.5)


def check_resamples(resamples: int) -> None:
    if int(resamples) != resamples or resamples < 1:
        raise ValueError(f"resamples must be a positive integer, got {resamples}")


def wilson_bounds(successes, n, confidence: float):
    """Wilson score bounds, elementwise over arrays (n > 0)."""
    z = _z(confidence)
    successes, n = np.asarray(successes, dtype=float), np.asarray(n, dtype=float)
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    # at 0 successes (all) the bound is 0 (1) in exact arithmetic; in floating point it is ~1e-17 off
    low = np.where(successes <= 0, 0.0, np.maximum(0.0, centre - half))
    high = np.where(successes >= n, 1.0, np.minimum(1.0, centre + half))
    return low, high


def clopper_pearson_bounds(successes, n, confidence: float):
    """Clopper-Pearson bounds, elementwise: the α/2 quantile of Beta(s, n−s+1) and the 1−α/2
    quantile of Beta(s+1, n−s), with s possibly fractional (a sum of task means); exactly 0 at
    s = 0 and 1 at s = n. scipy is imported here, not at module level (see above)."""
    from scipy.special import betaincinv

    check_confidence(confidence)
    alpha = 1 - confidence
    successes, n = np.broadcast_arrays(np.asarray(successes, dtype=float), np.asarray(n, dtype=float))
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.where(successes > 0, betaincinv(np.maximum(successes, 1e-300), n - successes + 1, alpha / 2), 0.0)
        high = np.where(successes < n, betaincinv(successes + 1, np.maximum(n - successes, 1e-300), 1 - alpha / 2), 1.0)
    return low, high


def wilson(successes: float, n: float, confidence: float = 0.95) -> dict:
    """Wilson score interval for successes out of n independent trials."""
    if n <= 0:
        check_confidence(confidence)
        return {"method": "wilson", "low": None, "high": None, "over": "trials"}
    if not 0 <= successes <= n:
        raise ValueError(f"successes must lie in [0, n], got {successes} of {n}")
    low, high = wilson_bounds(successes, n, confidence)
    return {"method": "wilson", "low": float(low), "high": float(high), "over": "trials"}


def _rates(task_rates) -> np.ndarray:
    """Task means as a sorted array, so that results never depend on the order of the tasks."""
    rates = np.sort(np.asarray(task_rates, dtype=float).ravel())
    if rates.size and not (np.all(np.isfinite(rates)) and rates[0] >= 0 and rates[-1] <= 1):
        raise ValueError("task rates must be finite numbers in [0, 1]")
    return rates


def bootstrap_tasks(task_rates, resamples: int, seed: int, confidence: float = 0.95) -> dict:
    """Percentile bootstrap of the mean task pass fraction, resampling whole tasks.

    Vectorised: (resamples x tasks) index draws from numpy's PCG64 seeded with `seed`, over the
    task means in sorted order, so the result depends on the tasks' values, not their order.
    Drawn in row blocks to bound memory; the index stream, hence the result, equals one
    (resamples x tasks) draw. Works on any values (paired.py feeds it per-task differences in
    [-1, 1]).
    """
    check_confidence(confidence)
    check_resamples(resamples)
    values = np.sort(np.asarray(task_rates, dtype=float).ravel())
    result = {"method": "bootstrap-percentile over tasks", "over": "tasks", "seed": seed, "resamples": resamples}
    if values.size == 0:
        return result | {"low": None, "high": None}
    rng = np.random.default_rng(seed)
    rows = max(1, BLOCK_ELEMENTS // values.size)
    means = np.concatenate(
        [
            values[rng.integers(0, values.size, size=(min(rows, resamples - start), values.size))].mean(axis=1)
            for start in range(0, resamples, rows)
        ]
    )
    alpha = 1 - confidence
    low, high = np.quantile(means, [alpha / 2, 1 - alpha / 2])
    return result | {"low": float(low), "high": float(high)}


def bootstrap_acceleration(rates) -> np.ndarray:
    """BCa acceleration of the mean from the jackknife, along the last axis.

    For the mean the jackknife influence values are the deviations d_i = x_i - x̄, so
    a = Σd³ / (6 (Σd²)^1.5) (Efron & Tibshirani 1993, eq. 14.15); NaN when all tasks are equal.
    """
    deviations = rates - rates.mean(axis=-1, keepdims=True)
    squares = (deviations**2).sum(axis=-1)
    # Equal task means are equal floats, but their computed mean may differ from them in the
    # last bit, so "no spread" is tested on the values themselves.
    spread = np.ptp(rates, axis=-1) > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(spread, (deviations**3).sum(axis=-1) / (6 * squares**1.5), np.nan)


def bca_levels(share_below, acceleration, confidence: float):
    """The percentile levels BCa reads off the bootstrap distribution.

    share_below = P(bootstrap mean < estimate) + P(= estimate)/2, as scipy counts it.
    NaN where undefined (no spread, or every bootstrap mean on one side of the estimate).
    """
    alpha = 1 - confidence
    with np.errstate(invalid="ignore", divide="ignore"):
        bias = normal_quantile(share_below)
        levels = []
        for z_alpha in (_normal_quantile(alpha / 2), _normal_quantile(1 - alpha / 2)):
            shifted = bias + z_alpha
            levels.append(normal_cdf(bias + shifted / (1 - acceleration * shifted)))
    defined = np.isfinite(bias) & np.isfinite(acceleration)
    return np.where(defined, levels[0], np.nan), np.where(defined, levels[1], np.nan)


def t_bounds(values, confidence: float, spread=None):
    """mean, mean - t·sd/√n, mean + t·sd/√n along the last axis (n ≥ 2), not clipped. `spread`:
    (mean, sd) of the values when already computed (`mean_and_sd`)."""
    check_confidence(confidence)
    values = np.asarray(values, dtype=float)
    n = values.shape[-1]
    mean, sd = mean_and_sd(values) if spread is None else spread
    half = t_quantile(n - 1, 0.5 + confidence / 2) * sd / np.sqrt(n)
    return mean, mean - half, mean + half


def mean_and_sd(values):
    """The mean and the sample standard deviation (n − 1) along the last axis."""
    return values.mean(axis=-1), values.std(axis=-1, ddof=1)


def t_task_means(task_rates, confidence: float = 0.95) -> dict:
    """Student t interval over task means, mean ± t_{n-1}·sd/√n (Miller 2024), clipped to [0, 1].

    The t quantile with n-1 degrees of freedom, not 1.96, because with few tasks the sd itself is
    uncertain (Cameron, Gelbach, Miller 2008). Undefined with fewer than 2 tasks.
    """
    check_confidence(confidence)
    rates = _rates(task_rates)
    result = {"method": "t over task means", "over": "tasks", "estimate": float(rates.mean()) if rates.size else None}
    if rates.size < 2:
        return result | {"low": None, "high": None, "note": "the t interval needs at least 2 tasks"}
    _, low, high = t_bounds(rates, confidence)
    return result | {"low": max(0.0, float(low)), "high": min(1.0, float(high))}


def near_bounds(sums, tasks, margin: float):
    """Whether a composite procedure reads Clopper-Pearson: the sum of task means within `margin`
    of 0 or of the number of tasks (elementwise)."""
    sums = np.asarray(sums, dtype=float)
    # a sum of fractions such as 1/3 may miss a whole margin in the last bit
    return (sums < margin - TIE_TOLERANCE) | (sums > tasks - margin + TIE_TOLERANCE)


def composite_name(level: float, margin: float) -> str:
    return f"t at {level:.0%} over task means, clopper-pearson within {margin:g} tasks of 0 or n"


def clustered_sample_size(trials, passes):
    """BenchFlow's design-effect sample size along the last axis (tasks), as BenchFlow's
    `pass_at_k.py::solve_rate_interval` computes it.

    Returns (pooled pass rate Σc/N, effective number of trials N / max(1, design effect)). The
    clustered formula applies with at least 2 tasks and some task tried more than once; otherwise
    the effective number is N itself (plain Wilson over the trials, as BenchFlow falls back to).
    """
    trials, passes = np.asarray(trials, dtype=float), np.asarray(passes, dtype=float)
    tasks = trials.shape[-1]
    total = trials.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        pooled = passes.sum(axis=-1) / total
        independent = pooled * (1 - pooled) / total
        clustered = tasks / max(tasks - 1, 1) * ((passes - pooled[..., None] * trials) ** 2).sum(axis=-1) / total**2
        design_effect = np.where(independent > 0, clustered / independent, np.nan)
        effective = np.where(independent > 0, total / np.maximum(1.0, design_effect), tasks)
    applies = (trials.max(axis=-1, initial=0) > 1) & (tasks >= 2)
    return pooled, np.where(applies, effective, total)


def task_counts(trials_per_task, passes_per_task) -> tuple[np.ndarray, np.ndarray]:
    """Validated per-task (scored trials, passes) as integer arrays.

    A task needs at least one scored trial: without one it has no pass rate, so callers leave
    it out (and say so) before calling.
    """
    trials = np.asarray(trials_per_task).ravel()
    passes = np.asarray(passes_per_task).ravel()
    if trials.shape != passes.shape:
        raise ValueError(f"{trials.size} trial counts but {passes.size} pass counts")
    if trials.size and not (np.array_equal(trials, np.round(trials)) and np.array_equal(passes, np.round(passes))):
        raise ValueError("trial and pass counts must be whole numbers")
    trials, passes = trials.astype(np.int64), passes.astype(np.int64)
    if np.any(trials < 1):
        raise ValueError("every task needs at least one scored trial")
    if np.any(passes < 0) or np.any(passes > trials):
        raise ValueError("pass counts must lie between 0 and the task's number of trials")
    return trials, passes


# The composite procedures the coverage design weighs: (level of the t part, margin in tasks).
COMPOSITES = ((0.97, 20), (0.98, 10))
# Every interval method, by the name that labels it in reports (docs/methods.md says what each is).
METHODS = (
    "wilson over trials",
    "t over task means",
    "bootstrap-percentile over tasks",
    "bootstrap-BCa over tasks",
    "wilson over task means",
    "wilson-clustered",
    "clopper-pearson over task means",
    *(composite_name(level, margin) for level, margin in COMPOSITES),
)
