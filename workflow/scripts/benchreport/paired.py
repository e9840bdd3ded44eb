"""Compare two settings on the tasks both ran, task by task.

Tasks differ far more than tries do, so the comparison pairs each task with itself:
d_i = rate_b,i − rate_a,i over the shared tasks. Checking whether two intervals overlap has almost
no power, and a trial-level McNemar test treats correlated tries as independent (it rejects a
true null 10–23% of the time), so neither is offered here.

The interval to read is the sign-flip permutation test inverted over shifts of the mean
difference: the test is exact whatever the tasks look like, so its interval excludes a true
difference at most 1 − confidence of the time at any number of shared tasks (benchmarks/
bench_paired.py measures it). The paired bootstrap and t intervals are kept beside it; under no
difference they exclude 0 more often than that at 5–10 shared tasks.
"""

from __future__ import annotations

import functools

import numpy as np

from .intervals import (
    BLOCK_ELEMENTS,
    bootstrap_tasks,
    check_confidence,
    check_resamples,
    normal_cdf,
    normal_quantile,
    t_bounds,
)

# Largest number of shared tasks whose 2^n sign patterns are enumerated exactly.
EXACT_LIMIT = 16
BOOTSTRAP_METHOD = "paired bootstrap-percentile over shared tasks"
T_METHOD = "paired t over shared tasks"
PERMUTATION_METHOD = "sign-flip permutation test inverted over shifts of the mean difference"
PREFERRED = "permutation"
MDD_METHOD = (
    "power of the sign-flip test at this run's shared tasks and tries (simulated exactly up to 10 "
    "tasks, its normal form above), each task's pooled rate moved apart on the logit scale"
)
# The power search: runs simulated per step, bisection steps, the largest logit shift tried (every
# rate then within 1e-8 of 0 or 1), and the task count up to which the exact test is simulated.
POWER_SIMULATIONS = 400
POWER_BISECTIONS = 12
LARGEST_LOGIT_SHIFT = 40.0
POWER_EXACT_LIMIT = 10
# Permuted statistics this close to the observed one count as at least as extreme (float noise).
TIE_TOLERANCE = 1e-12
# A shift this close to where a pattern ties the data counts as a tie (float noise; on the scale
# of the differences, wider than TIE_TOLERANCE on the mean's).
BOUND_TOLERANCE = 1e-9


def _differences(rates_a: dict, rates_b: dict) -> tuple[list[str], np.ndarray]:
    shared = sorted(set(rates_a) & set(rates_b))
    differences = np.array([rates_b[task] - rates_a[task] for task in shared], dtype=float)
    if not np.all(np.isfinite(differences)) or np.any(np.abs(differences) > 1):
        raise ValueError("task pass rates must be finite numbers in [0, 1]")
    return shared, differences


class SignFlips:
    """The sign patterns of the test, kept as two sums per pattern so that the p-value at any
    shift δ of the mean difference costs one pass over the patterns: with s a pattern,
    Σ s_i (d_i − δ) = Σ s_i d_i − δ Σ s_i."""

    def __init__(self, differences: np.ndarray, permutations: int, seed: int):
        size = differences.size
        self.size, self.total = size, float(differences.sum())
        if size <= EXACT_LIMIT:
            signs = _all_signs(size)
            self.flipped, self.sign_sums = signs @ differences, signs.sum(axis=1)
            self.exact = True
            self.test = f"sign-flip permutation, exact over all {len(signs)} sign patterns"
            return
        # eight signs per random byte: a tenth of the time of drawing each sign as an integer
        # (0.4 s per pair at 10,000 draws over 1,000 tasks); the signs are unpacked a block of rows
        # at a time, which gives the same sums without an 80 MB matrix (0.1 -> 0.03 s per pair)
        rng = np.random.default_rng((seed, 1))
        packed = rng.integers(0, 256, size=(permutations, -(-size // 8)), dtype=np.uint8)
        rows = max(1, BLOCK_ELEMENTS // size)
        # both sums in one product: the differences and a column of ones
        columns = np.column_stack([differences, np.ones(size)])
        sums = np.concatenate(
            [
                (1.0 - 2.0 * np.unpackbits(packed[start : start + rows], axis=1, count=size)) @ columns
                for start in range(0, permutations, rows)
            ]
        )
        self.flipped, self.sign_sums = sums[:, 0], sums[:, 1]
        self.exact = False
        self.test = f"sign-flip permutation, Monte Carlo with {permutations} seeded draws, p = (1 + hits)/(1 + draws)"

    def p_value(self, shift: float = 0.0) -> float:
        """Two-sided p of H0: the d_i − shift are symmetric about 0, statistic |mean|."""
        observed = abs(self.total / self.size - shift)
        permuted = np.abs(self.flipped / self.size - shift * self.sign_sums / self.size)
        return self._p(int(np.count_nonzero(permuted >= observed - TIE_TOLERANCE)))

    def smallest_p_value(self) -> float:
        """The smallest p any data can give with this many tasks: only the all-plus and all-minus
        patterns as extreme (exact), or no draw as extreme (Monte Carlo)."""
        return 2 / len(self.flipped) if self.exact else 1 / (1 + len(self.flipped))

    def _p(self, hits):
        return hits / len(self.flipped) if self.exact else (1 + hits) / (1 + len(self.flipped))

    def interval(self, alpha: float) -> tuple[float, float]:
        """The smallest interval in [−1, 1] holding every shift δ the test does not reject at
        `alpha`. Pattern s is as extreme as the data at δ where (a − δb)² ≥ (S − nδ)², with
        a = Σ s_i d_i, b = Σ s_i, S = Σ d_i: for |b| < n the closed interval between
        (S − a)/(n − b) and (S + a)/(n + b); for b = ±n every δ. So p(δ) is a count of intervals
        holding δ, largest at their ends, and the ends of the accepted set are among them. Each
        interval is widened by BOUND_TOLERANCE while counting, so a shift the p-value accepts is
        never left out.
        """
        n, total = self.size, self.total
        inner = np.abs(self.sign_sums) < n - 0.5
        always = len(self.flipped) - int(np.count_nonzero(inner))
        a, b = self.flipped[inner], self.sign_sums[inner]
        first, second = (total - a) / (n - b), (total + a) / (n + b)
        lows = np.sort(np.minimum(first, second) - BOUND_TOLERANCE)
        highs = np.sort(np.maximum(first, second) + BOUND_TOLERANCE)
        if self._p(always) > alpha:  # not even a shift past every difference is rejected
            return -1.0, 1.0

        def accepted(points):
            hits = always + np.searchsorted(lows, points, "right") - np.searchsorted(highs, points, "left")
            return points[self._p(hits) > alpha]

        # the accepted set starts where an interval opens and ends where one closes; the ends are
        # given unwidened, to 12 places (a tie computed as 1e-17 is 0)
        mean = total / n
        low = min([mean, *(accepted(lows)[:1] + BOUND_TOLERANCE)])
        high = max([mean, *(accepted(highs)[-1:] - BOUND_TOLERANCE)])
        return max(-1.0, round(float(low), 12) + 0.0), min(1.0, round(float(high), 12) + 0.0)


@functools.cache
def _all_signs(size: int) -> np.ndarray:
    """Every pattern of `size` signs, one per row."""
    return 1.0 - 2.0 * (np.arange(2**size)[:, None] >> np.arange(size) & 1)


def _simulated_power(rate_a, tries_a, rate_b, tries_b, alpha: float, seed: int) -> float:
    """The exact sign-flip test's power at these per-task rates, over POWER_SIMULATIONS runs (the
    same seed at every call, so the estimate moves smoothly with the rates)."""
    rng = np.random.default_rng((seed, 2))
    draws = (POWER_SIMULATIONS, len(tries_a))
    differences = rng.binomial(tries_b, rate_b, draws) / tries_b - rng.binomial(tries_a, rate_a, draws) / tries_a
    size = len(tries_a)
    # patterns x runs; einsum, not BLAS: its threads only fight each other on a loaded machine
    flipped = np.abs(np.einsum("pk,rk->pr", _all_signs(size), differences))
    observed = np.abs(differences.sum(axis=1))
    return float(np.mean(np.mean(flipped >= observed - TIE_TOLERANCE * size, axis=0) <= alpha))


def _normal_power(rate_a, tries_a, rate_b, tries_b, alpha: float) -> float:
    """The power of the test's normal form, reject when |Σd| ≥ z·√(Σd²), with Σd normal and Σd²
    at its mean: the sign-flip test at many tasks."""
    mean = rate_b - rate_a
    variance = rate_a * (1 - rate_a) / tries_a + rate_b * (1 - rate_b) / tries_b
    threshold = normal_quantile(1 - alpha / 2) * np.sqrt(np.sum(variance + mean**2))
    spread = np.sqrt(np.sum(variance))
    return float(normal_cdf((mean.sum() - threshold) / spread) + normal_cdf((-threshold - mean.sum()) / spread))


def minimum_detectable_difference(
    passed_a, tries_a, passed_b, tries_b, *, confidence: float, power: float, smallest_p: float, seed: int
) -> dict:
    """The smallest true mean difference the sign-flip test detects with `power` at this run's own
    shared tasks and tries: each task's rate is its pooled rate over both settings ((passes + ½)/
    (tries + 1), never exactly 0 or 1), moved apart on the logit scale by ±θ/2 for the two
    settings; θ is found by bisection and the difference given is the mean over tasks of the two
    rates it gives. The power is simulated with the exact test up to POWER_EXACT_LIMIT tasks and
    taken from the test's normal form above. None, with the reason, when the test cannot reach
    the level at this many tasks or no difference within [0, 1] reaches the power."""
    alpha = 1 - confidence
    size = len(tries_a)
    result = {
        "power": power,
        "method": MDD_METHOD,
        "value": None,
        "reason": None,
        "simulations": POWER_SIMULATIONS if size <= POWER_EXACT_LIMIT else None,
    }
    if smallest_p > alpha:
        return result | {
            "reason": f"with {size} shared tasks the sign-flip p-value cannot go below "
            f"{smallest_p:.4g}, so no difference reaches p < {alpha:.4g}"
        }
    tries_a, tries_b = np.asarray(tries_a), np.asarray(tries_b)
    pooled = (np.asarray(passed_a) + np.asarray(passed_b) + 0.5) / (tries_a + tries_b + 1)
    logit = np.log(pooled / (1 - pooled))

    def rates(theta):
        return 1 / (1 + np.exp(-(logit - theta / 2))), 1 / (1 + np.exp(-(logit + theta / 2)))

    def power_at(theta):
        rate_a, rate_b = rates(theta)
        if size <= POWER_EXACT_LIMIT:
            return _simulated_power(rate_a, tries_a, rate_b, tries_b, alpha, seed)
        return _normal_power(rate_a, tries_a, rate_b, tries_b, alpha)

    low, high = 0.0, LARGEST_LOGIT_SHIFT
    if power_at(high) < power:
        return result | {
            "reason": f"no difference within [0, 1] is detected with {power:.0%} power at "
            f"{size} shared tasks and these tries"
        }
    for _ in range(POWER_BISECTIONS):
        middle = (low + high) / 2
        low, high = (low, middle) if power_at(middle) >= power else (middle, high)
    rate_a, rate_b = rates(high)
    return result | {"value": float(np.mean(rate_b - rate_a))}


def paired_comparison(
    rates_a: dict[str, float],
    rates_b: dict[str, float],
    *,
    seed: int,
    resamples: int = 10_000,
    permutations: int = 10_000,
    confidence: float = 0.95,
    power: float = 0.8,
    tries: tuple[dict, dict] | None = None,
) -> dict:
    """Mean per-task difference b − a on shared tasks, its paired intervals and a permutation p-value.

    rates_a, rates_b: task -> that setting's pass rate on the task. Tasks only one setting ran
    are counted, never used. "intervals" holds, clipped to [−1, 1], "permutation" (the sign-flip
    test inverted: every shift of the mean difference it does not reject; the one to read,
    named in "preferred"), "bootstrap" (percentile bootstrap of the differences over tasks, numpy
    PCG64 seeded with `seed`) and "t" (paired t). The p-value's Monte Carlo draws, when needed,
    use a separate stream seeded with (seed, 1); "smallest_p_value" is the least p the test can
    give at this many tasks, "minimum_detectable_difference" the difference found with `power`
    (it needs `tries`: task -> trials of each setting; the power simulation is seeded (seed, 2)).
    """
    check_confidence(confidence)
    check_confidence(power)
    check_resamples(resamples)
    check_resamples(permutations)
    shared, differences = _differences(rates_a, rates_b)
    result = {
        "shared": len(shared),
        "only_in_a": len(set(rates_a) - set(rates_b)),
        "only_in_b": len(set(rates_b) - set(rates_a)),
        "difference": "mean over shared tasks of (rate in b − rate in a)",
        "seed": seed,
        "confidence": confidence,
        "preferred": PREFERRED,
    }
    if len(shared) < 2:
        undefined = {"over": "tasks", "low": None, "high": None}
        return result | {
            "mean_difference": float(differences.mean()) if shared else None,
            "intervals": {
                "permutation": undefined | {"method": PERMUTATION_METHOD},
                "bootstrap": undefined | {"method": BOOTSTRAP_METHOD},
                "t": undefined | {"method": T_METHOD},
            },
            "p_value": None,
            "test": None,
            "smallest_p_value": None,
            "minimum_detectable_difference": {
                "power": power,
                "method": MDD_METHOD,
                "simulations": POWER_SIMULATIONS,
                "value": None,
                "reason": "fewer than 2 shared tasks",
            },
            "note": f"a paired comparison needs at least 2 shared tasks; there are {len(shared)}",
        }
    bootstrap = bootstrap_tasks(differences, resamples, seed, confidence)
    _, t_low, t_high = t_bounds(differences, confidence)
    flips = SignFlips(differences, permutations, seed)
    alpha = 1 - confidence
    smallest = flips.smallest_p_value()
    return result | {
        "mean_difference": float(differences.mean()),
        "intervals": {
            "permutation": dict(zip(("low", "high"), flips.interval(alpha)), method=PERMUTATION_METHOD, over="tasks"),
            "bootstrap": bootstrap
            | {"method": BOOTSTRAP_METHOD, "low": max(-1.0, bootstrap["low"]), "high": min(1.0, bootstrap["high"])},
            "t": {"method": T_METHOD, "over": "tasks", "low": max(-1.0, float(t_low)), "high": min(1.0, float(t_high))},
        },
        "p_value": flips.p_value(),
        "test": flips.test,
        "smallest_p_value": smallest,
        "minimum_detectable_difference": _detectable(
            shared, rates_a, rates_b, tries, confidence=confidence, power=power, smallest_p=smallest, seed=seed
        ),
    }


def _detectable(shared, rates_a, rates_b, tries, **settings) -> dict:
    if tries is None:
        return {
            "power": settings["power"],
            "method": MDD_METHOD,
            "simulations": POWER_SIMULATIONS,
            "value": None,
            "reason": "the tries per task were not given",
        }
    (tries_a, tries_b) = ([tries_of[task] for task in shared] for tries_of in tries)
    passed_a = np.round([rates_a[task] * tries[0][task] for task in shared])
    passed_b = np.round([rates_b[task] * tries[1][task] for task in shared])
    return minimum_detectable_difference(passed_a, tries_a, passed_b, tries_b, **settings)


def holm(p_values: list[float | None]) -> list[float | None]:
    """Holm's step-down adjustment over the p-values given (None stays None and is not counted):
    the k-th smallest of m becomes max over j ≤ k of min(1, (m − j + 1) p_(j))."""
    order = sorted((p, index) for index, p in enumerate(p_values) if p is not None)
    adjusted: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, (p, index) in enumerate(order):
        running = max(running, min(1.0, (len(order) - rank) * p))
        adjusted[index] = running
    return adjusted
