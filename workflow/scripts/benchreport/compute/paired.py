"""Compare two settings on the tasks both ran, task by task.

Tasks differ far more than tries do, so the comparison pairs each task with itself: the statistic
is the mean over shared tasks of (rate in b − rate in a). Checking whether two intervals overlap
has almost no power, and a trial-level McNemar test treats correlated tries as independent (it
rejects a true null 10–23% of the time), so neither is offered here.

The test permutes the a/b labels of each task's trials within the task. If both settings pass a
try of a task with the same probability, every relabelling is equally likely given the task's
passes, whatever tries each setting ran, so a's passes on a task are hypergeometric and the
statistic's null distribution is the convolution of those per-task laws: exact on the lattice the
differences live on, or by seeded Monte Carlo draws from it where that lattice is too large. A
sign flip of the per-task differences is not used: it needs each difference symmetric under no
difference, which fails when the tries differ (at 1 try against 10 it rejects a true null about
30% of the time at 5%).

The interval inverts the same conditional test over a common shift θ of the log-odds of passing
(b's odds = a's odds × e^θ on every task, under which a's passes on a task are Fisher's
noncentral hypergeometric given the task's passes): the shifts neither one-sided test rejects at
(1 − confidence)/2, each mapped to the mean difference of the task rates fitted under it. θ = 0 is
difference 0, so the interval excludes 0 exactly when p ≤ 1 − confidence; its coverage of other
differences is measured by benchmarks/bench_paired.py. The paired bootstrap and t intervals are
kept as descriptions of the spread, not tests: with few shared tasks they exclude a true
difference of 0 more often than 1 − confidence.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import numpy.typing as npt
from scipy import optimize, special

from .intervals import bootstrap_tasks, check_confidence, check_resamples, normal_cdf, normal_quantile, t_bounds

BOOTSTRAP_METHOD = "paired bootstrap-percentile over shared tasks (a spread, not a test)"
T_METHOD = "paired t over shared tasks (a spread, not a test)"
PERMUTATION_METHOD = (
    "within-task permutation test inverted over a common log-odds shift between the settings, each "
    "shift given as the mean difference of the task rates fitted under it"
)
PREFERRED = "permutation"
MDD_METHOD = (
    "power of the within-task permutation test at this run's shared tasks and tries (simulated exactly up "
    "to 10 tasks, its normal form above), each task's pooled rate moved apart on the logit scale"
)
# Multiply-adds of one exact convolution beyond which the null distribution is sampled instead.
EXACT_BUDGET = 20_000_000
# The power search: runs simulated per step, bisection steps, the largest logit shift tried (every
# rate then within 1e-8 of 0 or 1), the task count up to which the exact test is simulated, and the
# multiply-adds one simulated step may spend (beyond, the normal form is used).
POWER_SIMULATIONS = 400
POWER_BISECTIONS = 12
LARGEST_LOGIT_SHIFT = 40.0
POWER_EXACT_LIMIT = 10
POWER_BUDGET = 100_000_000
# Where the one-sided tests stop accepting, to this many log-odds (far finer than the 12 places the
# interval is given to).
SHIFT_TOLERANCE = 1e-9
# Sampled statistics this close to the observed one count as equal to it (float noise).
TIE_TOLERANCE = 1e-9
# Each task's fitted log-odds lies in ±FIT_RANGE; halvings of that range in the fit.
FIT_RANGE, FIT_STEPS = 60.0, 100


def _log_choose(n, k):
    return special.gammaln(n + 1) - special.gammaln(k + 1) - special.gammaln(n - k + 1)


def hypergeometric_logs(tries_a, tries_b, total) -> np.ndarray:
    """log C(m, j) + log C(n, t − j) for a's passes j = 0..max m, −inf where j is impossible, for
    arrays of tries m, n and passes t broadcast together (the last axis is j)."""
    tries_a, tries_b, total = (np.asarray(values)[..., None] for values in (tries_a, tries_b, total))
    j = np.arange(int(tries_a.max()) + 1)
    possible = (j <= tries_a) & (j <= total) & (total - j <= tries_b)
    logs = _log_choose(tries_a, np.minimum(j, tries_a)) + _log_choose(tries_b, np.clip(total - j, 0, tries_b))
    return np.where(possible, logs, -np.inf)


def shifted_laws(logs: np.ndarray, log_odds: float) -> np.ndarray:
    """P(a passes j | the task's passes) from `hypergeometric_logs`: hypergeometric at log_odds 0,
    Fisher's noncentral hypergeometric (odds ratio e^−log_odds for a) otherwise."""
    shifted = logs - log_odds * np.arange(logs.shape[-1])
    weights = np.exp(shifted - shifted.max(axis=-1, keepdims=True))
    return weights / weights.sum(axis=-1, keepdims=True)


def lattice(tries_a, tries_b) -> tuple[list[int], int]:
    """(integer step per task, lattice size): one more pass for a on task i lowers the sum of the
    differences by 1/m + 1/n, which is step_i / L for L the least common multiple of those
    fractions' denominators; the size bounds the sum's range on that lattice."""
    fractions = [Fraction(m + n, m * n) for m, n in zip(tries_a, tries_b)]
    scale = math.lcm(*(fraction.denominator for fraction in fractions))
    steps = [int(fraction * scale) for fraction in fractions]
    return steps, 1 + sum(step * int(m) for step, m in zip(steps, tries_a))


def _convolve(steps, laws) -> np.ndarray:
    """The law of Σ_i j_i step_i, one row per run, from each task's law of j (runs × (m_i + 1))."""
    pmf = np.ones((laws[0].shape[0], 1)) if laws else np.ones((1, 1))
    for step, law in zip(steps, laws):
        grown = np.zeros((pmf.shape[0], pmf.shape[1] + step * (law.shape[1] - 1)))
        for j in np.flatnonzero(law.any(axis=0)):
            grown[:, j * step : j * step + pmf.shape[1]] += law[:, j : j + 1] * pmf
        pmf = grown
    return pmf


def _doubled_tail(below: npt.ArrayLike, above: npt.ArrayLike) -> np.ndarray:
    """The two-sided p-value of two one-sided ones: twice the smaller, at most 1."""
    return np.minimum(1.0, 2 * np.minimum(below, above))


class LabelPermutation:
    """The within-task permutation test of one pair of settings, at any common log-odds shift.
    Tasks that passed every try or none are left out of the distribution: relabelling their trials
    changes nothing."""

    def __init__(self, passed_a, tries_a, passed_b, tries_b, permutations: int, seed: int):
        total = np.asarray(passed_a) + np.asarray(passed_b)
        movable = (total > 0) & (total < np.asarray(tries_a) + np.asarray(tries_b))
        tries_a, tries_b, passed = (
            np.asarray(tries_a)[movable],
            np.asarray(tries_b)[movable],
            np.asarray(passed_a)[movable],
        )
        self.logs = hypergeometric_logs(tries_a, tries_b, total[movable]) if movable.any() else None
        self.widths = tries_a + 1
        # the exact test's lattice index (an int) or the Monte Carlo test's statistic
        self.observed: float
        steps, size = lattice(tries_a, tries_b)
        self.exact = size * int(np.sum(self.widths)) <= EXACT_BUDGET
        if self.exact:
            self.steps, self.observed = steps, sum(step * int(j) for step, j in zip(steps, passed))
            self.test = (
                f"within-task permutation of trial labels, exact: the convolution of {len(steps)} tasks' "
                f"hypergeometric laws on a lattice of {size:,} points"
            )
        else:
            self.rates = (tries_a + tries_b) / (tries_a * tries_b)
            self.observed = float(self.rates @ passed)
            self.uniforms = np.random.default_rng((seed, 1)).random((permutations, len(tries_a)))
            # a task's last threshold, and those past it, are never reached: its passes stop at its tries
            self.past_tries = np.arange(int(self.widths.max()) - 1) >= self.widths[:, None] - 1
            self.test = (
                f"within-task permutation of trial labels, Monte Carlo with {permutations} seeded draws "
                "from its exact law, p = (1 + hits)/(1 + draws) per side"
            )

    def tails(self, log_odds: float = 0.0) -> tuple[float, float]:
        """(P(statistic ≤ observed), P(statistic ≥ observed)) when b's odds are a's × e^log_odds on
        every task. The statistic falls as a's passes rise."""
        if self.logs is None:
            return 1.0, 1.0
        laws = shifted_laws(self.logs, log_odds)
        if self.exact:
            pmf = _convolve(self.steps, [law[None, :width] for law, width in zip(laws, self.widths)])[0]
            return float(pmf[self.observed :].sum()), float(pmf[: self.observed + 1].sum())
        # a's passes by inverse distribution function, the same uniforms at every shift: the
        # thresholds below each uniform, counted a column at a time
        thresholds = np.cumsum(laws, axis=1)[:, :-1]
        thresholds[self.past_tries] = np.inf
        passes = np.zeros(self.uniforms.shape, dtype=np.int32)
        for column in thresholds.T:
            passes += self.uniforms >= column
        drawn = passes @ self.rates
        draws = len(drawn)
        below = (1 + np.count_nonzero(drawn >= self.observed - TIE_TOLERANCE)) / (1 + draws)
        above = (1 + np.count_nonzero(drawn <= self.observed + TIE_TOLERANCE)) / (1 + draws)
        return below, above

    def p_value(self) -> float:
        return float(_doubled_tail(*self.tails()))

    def log_odds_interval(self, alpha: float) -> tuple[float | None, float | None]:
        """The smallest and largest common log-odds shifts neither one-sided test rejects at
        alpha/2; None where no shift up to LARGEST_LOGIT_SHIFT is rejected on that side."""

        def crossing(side, far):  # tails()[0] falls as b's odds grow, tails()[1] rises
            def excess(shift):
                return self.tails(shift)[side] - alpha / 2

            if excess(far) > 0:  # `far` accepted: no shift that way is rejected
                return None
            if excess(-far) <= 0:
                return -far
            return optimize.brentq(excess, -far, far, xtol=SHIFT_TOLERANCE)

        return crossing(1, -LARGEST_LOGIT_SHIFT), crossing(0, LARGEST_LOGIT_SHIFT)


def fitted_difference(total, tries_a, tries_b, log_odds: float) -> float:
    """Mean over tasks of (b's rate − a's rate) when b's odds are a's × e^log_odds on every task,
    each task's rates fitted to its passes (m·σ(x) + n·σ(x + log_odds) = passes): 0 at log_odds 0,
    and 0 for a task that passed every try or none."""
    total, tries_a, tries_b = (np.asarray(values, dtype=float) for values in (total, tries_a, tries_b))
    low, high = np.full(total.shape, -FIT_RANGE), np.full(total.shape, FIT_RANGE)
    for _ in range(FIT_STEPS):
        middle = (low + high) / 2
        too_many = tries_a * special.expit(middle) + tries_b * special.expit(middle + log_odds) > total
        low, high = np.where(too_many, low, middle), np.where(too_many, middle, high)
    middle = (low + high) / 2
    movable = (total > 0) & (total < tries_a + tries_b)
    return float(np.mean(np.where(movable, special.expit(middle + log_odds) - special.expit(middle), 0.0)))


def batch_p_values(passed_a, tries_a, passed_b, tries_b) -> np.ndarray:
    """The exact test's p-value of each run (rows of passes) at shared tries per task. The p-value
    is the same with a and b swapped, so the side with fewer tries is the one convolved."""
    if np.sum(tries_a) > np.sum(tries_b):
        passed_a, tries_a, passed_b, tries_b = passed_b, tries_b, passed_a, tries_a
    steps, _ = lattice(tries_a, tries_b)
    laws = shifted_laws(hypergeometric_logs(tries_a, tries_b, passed_a + passed_b), 0.0)
    pmf = _convolve(steps, [laws[:, i, : m + 1] for i, m in enumerate(tries_a)])
    observed = passed_a @ np.asarray(steps)
    rows = np.arange(len(pmf))
    at_least = np.cumsum(pmf[:, ::-1], axis=1)[:, ::-1][rows, observed]
    at_most = np.cumsum(pmf, axis=1)[rows, observed]
    return _doubled_tail(at_least, at_most)


def smallest_p_value(tries_a, tries_b) -> float:
    """The least p the exact test can give at these tries: each task's extreme split (a passes all
    its tries and b none, or the reverse) has probability 1/C(m + n, m)."""
    logs = np.sum(_log_choose(np.asarray(tries_a) + np.asarray(tries_b), np.asarray(tries_a)))
    return float(min(1.0, 2 * np.exp(-logs)))


def _simulated_power(rate_a, tries_a, rate_b, tries_b, alpha: float, seed: int) -> float:
    """The exact test's power at these per-task rates, over POWER_SIMULATIONS runs (the same seed at
    every call, so the estimate moves smoothly with the rates)."""
    rng = np.random.default_rng((seed, 2))
    draws = (POWER_SIMULATIONS, len(tries_a))
    passed_a, passed_b = rng.binomial(tries_a, rate_a, draws), rng.binomial(tries_b, rate_b, draws)
    return float(np.mean(batch_p_values(passed_a, tries_a, passed_b, tries_b) <= alpha))


def _normal_power(rate_a, tries_a, rate_b, tries_b, alpha: float) -> float:
    """The power of the test's normal form: reject when |mean d| ≥ z·√V0, with V0 the permutation
    variance of the mean at each task's expected passes t, Σ E[t(N − t)]/(m n (N − 1)) / k², and
    mean d normal about the true difference."""
    size = len(tries_a)
    mean = np.mean(rate_b - rate_a)
    spread = np.sqrt(np.sum(rate_a * (1 - rate_a) / tries_a + rate_b * (1 - rate_b) / tries_b)) / size
    both = tries_a + tries_b
    expected = tries_a * rate_a + tries_b * rate_b
    variance = tries_a * rate_a * (1 - rate_a) + tries_b * rate_b * (1 - rate_b)
    spread_null = np.sum((both * expected - variance - expected**2) / (tries_a * tries_b * (both - 1))) / size**2
    threshold = normal_quantile(1 - alpha / 2) * np.sqrt(spread_null)
    return float(normal_cdf((mean - threshold) / spread) + normal_cdf((-threshold - mean) / spread))


def simulates(tries_a, tries_b) -> bool:
    """Whether the power at these tries is simulated with the exact test (up to POWER_EXACT_LIMIT
    tasks and POWER_BUDGET multiply-adds a step) rather than taken from its normal form."""
    if len(tries_a) > POWER_EXACT_LIMIT:
        return False  # the lattice's exact fractions are the costly part of a power step
    _, lattice_size = lattice(tries_a, tries_b)
    cost = POWER_SIMULATIONS * lattice_size * int(np.sum(np.minimum(tries_a, tries_b) + 1))
    return cost <= POWER_BUDGET


def power_at_shape(rate_a, tries_a, rate_b, tries_b, alpha: float, seed: int) -> float:
    """The test's power at these per-task rates and tries: simulated where `simulates`, else its
    normal form."""
    if simulates(tries_a, tries_b):
        return _simulated_power(rate_a, tries_a, rate_b, tries_b, alpha, seed)
    return _normal_power(rate_a, tries_a, rate_b, tries_b, alpha)


def pooled_rates(passed_a, tries_a, passed_b, tries_b) -> np.ndarray:
    """Each task's pass rate over both settings, (passes + ½)/(tries + 1): never exactly 0 or 1."""
    return (np.asarray(passed_a) + np.asarray(passed_b) + 0.5) / (np.asarray(tries_a) + np.asarray(tries_b) + 1)


def minimum_detectable_difference(
    pooled, tries_a, tries_b, *, confidence: float, power: float, smallest_p: float, seed: int
) -> dict:
    """The smallest true mean difference the test detects with `power` at these shared tasks and
    tries: each task's rate, `pooled_rates` of a run, moved apart on the logit scale by ±θ/2 for the two settings; θ is
    found by bisection and the difference given is the mean over tasks of the two rates it gives.
    The power is simulated with the exact test up to POWER_EXACT_LIMIT tasks (and POWER_BUDGET) and
    taken from the test's normal form above. None, with the reason, when the test cannot reach the
    level at these tasks and tries or no difference within [0, 1] reaches the power."""
    alpha = 1 - confidence
    tries_a, tries_b = np.asarray(tries_a), np.asarray(tries_b)
    size = len(tries_a)
    result = {
        "power": power,
        "method": MDD_METHOD,
        "value": None,
        "reason": None,
        "simulations": POWER_SIMULATIONS if simulates(tries_a, tries_b) else None,
    }
    if smallest_p > alpha:
        return result | {
            "reason": f"with {size} shared tasks at these tries the p-value cannot go below "
            f"{smallest_p:.4g}, so no difference reaches p < {alpha:.4g}"
        }
    logit = special.logit(pooled)

    def rates(theta):
        return special.expit(logit - theta / 2), special.expit(logit + theta / 2)

    def power_at(theta):
        rate_a, rate_b = rates(theta)
        return power_at_shape(rate_a, tries_a, rate_b, tries_b, alpha, seed)

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


def what_more_buys(pooled, tries_a, tries_b, **settings) -> dict:
    """The minimum detectable difference at the same task rates with twice the shared tasks (each
    task twice) and with twice the tries: what a larger run of either kind would detect."""
    shapes = {
        "twice_the_tasks": [np.tile(values, 2) for values in (pooled, tries_a, tries_b)],
        "twice_the_tries": [pooled, 2 * np.asarray(tries_a), 2 * np.asarray(tries_b)],
    }
    return {
        name: minimum_detectable_difference(*shape, smallest_p=smallest_p_value(*shape[1:]), **settings)["value"]
        for name, shape in shapes.items()
    }


def paired_comparison(
    counts_a: dict[str, tuple[int, int]],
    counts_b: dict[str, tuple[int, int]],
    *,
    seed: int,
    resamples: int = 10_000,
    permutations: int = 10_000,
    confidence: float = 0.95,
    power: float | None = 0.8,
) -> dict:
    """Mean per-task difference b − a on shared tasks, its paired intervals and a permutation p-value.

    counts_a, counts_b: task -> (passes, tries) of that setting on the task, whole numbers with
    0 ≤ passes ≤ tries and tries ≥ 1 (a setting's task rows; the compare command checks its
    input). Tasks only one setting ran are counted, never used. "intervals" holds, clipped to
    [−1, 1], "permutation" (the within-task permutation test inverted over a common log-odds
    shift; the one to read, named in "preferred", with the shifts as "log_odds_low"/
    "log_odds_high"), "bootstrap" (percentile bootstrap of the differences over tasks, numpy
    PCG64 seeded with `seed`) and "t" (paired t). The test's Monte Carlo draws, when needed, use
    a separate stream seeded with (seed, 1); "smallest_p_value" is the least p the test can give
    at these tasks and tries, "minimum_detectable_difference" the difference found with `power`
    (its simulation is seeded (seed, 2); None when `power` is None).
    """
    check_confidence(confidence)
    if power is not None:
        check_confidence(power)
    check_resamples(resamples)
    check_resamples(permutations)
    shared = sorted(set(counts_a) & set(counts_b))
    passed_a, tries_a, passed_b, tries_b = (
        np.array([counts[task][column] for task in shared], dtype=int)
        for counts, column in ((counts_a, 0), (counts_a, 1), (counts_b, 0), (counts_b, 1))
    )
    differences = passed_b / tries_b - passed_a / tries_a
    result = {
        "shared": len(shared),
        "only_in_a": len(set(counts_a) - set(counts_b)),
        "only_in_b": len(set(counts_b) - set(counts_a)),
        "difference": "mean over shared tasks of (rate in b − rate in a)",
        "seed": seed,
        "confidence": confidence,
        "preferred": PREFERRED,
    }
    if len(shared) < 2:
        return result | _too_few_shared(differences, power)
    arrays = (passed_a, tries_a, passed_b, tries_b)
    return result | _compared(arrays, differences, seed, resamples, permutations, confidence, power)


def _too_few_shared(differences: np.ndarray, power: float | None) -> dict:
    """The comparison's numbers where fewer than 2 tasks are shared: none but the mean difference."""
    undefined = {"over": "tasks", "low": None, "high": None}
    return {
        "mean_difference": float(differences.mean()) if differences.size else None,
        "intervals": {
            "permutation": undefined | {"method": PERMUTATION_METHOD, "log_odds_low": None, "log_odds_high": None},
            "bootstrap": undefined | {"method": BOOTSTRAP_METHOD},
            "t": undefined | {"method": T_METHOD},
        },
        "p_value": None,
        "test": None,
        "smallest_p_value": None,
        "minimum_detectable_difference": None
        if power is None
        else {
            "power": power,
            "method": MDD_METHOD,
            "simulations": None,
            "value": None,
            "reason": "fewer than 2 shared tasks",
        },
        "note": f"a paired comparison needs at least 2 shared tasks; there are {differences.size}",
    }


def _compared(arrays, differences, seed, resamples, permutations, confidence, power) -> dict:
    """The comparison's numbers over the shared tasks' (passed_a, tries_a, passed_b, tries_b)."""
    passed_a, tries_a, passed_b, tries_b = arrays
    bootstrap = bootstrap_tasks(differences, resamples, seed, confidence)
    _, t_low, t_high = t_bounds(differences, confidence)
    test = LabelPermutation(passed_a, tries_a, passed_b, tries_b, permutations, seed)
    pooled = pooled_rates(passed_a, tries_a, passed_b, tries_b)
    alpha = 1 - confidence
    smallest = smallest_p_value(tries_a, tries_b) if test.exact else 2 / (1 + permutations)
    return {
        "mean_difference": float(differences.mean()),
        "intervals": {
            "permutation": _permutation_interval(test, passed_a + passed_b, tries_a, tries_b, alpha),
            "bootstrap": bootstrap
            | {"method": BOOTSTRAP_METHOD, "low": max(-1.0, bootstrap["low"]), "high": min(1.0, bootstrap["high"])},
            "t": {"method": T_METHOD, "over": "tasks", "low": max(-1.0, float(t_low)), "high": min(1.0, float(t_high))},
        },
        "p_value": test.p_value(),
        "test": test.test,
        "smallest_p_value": smallest,
        "minimum_detectable_difference": None
        if power is None
        else minimum_detectable_difference(
            pooled, tries_a, tries_b, confidence=confidence, power=power, smallest_p=smallest, seed=seed
        )
        | {"more": what_more_buys(pooled, tries_a, tries_b, confidence=confidence, power=power, seed=seed)},
    }


def _permutation_interval(test: LabelPermutation, total, tries_a, tries_b, alpha: float) -> dict:
    """The accepted log-odds shifts and the mean differences they give (±1 where no shift that far
    is rejected), to 12 places."""
    shifts = test.log_odds_interval(alpha)
    ends = [
        bound if shift is None else round(fitted_difference(total, tries_a, tries_b, shift), 12) + 0.0
        for shift, bound in zip(shifts, (-1.0, 1.0))
    ]
    return {
        "method": PERMUTATION_METHOD,
        "over": "tasks",
        "low": ends[0],
        "high": ends[1],
        "log_odds_low": None if shifts[0] is None else round(shifts[0], 6),
        "log_odds_high": None if shifts[1] is None else round(shifts[1], 6),
    }


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
