"""How often each interval method covers the true pass rate at a run's own tries profile.

Which interval to print as the headline depends on the number of tasks and their tries (at 3
tasks only the conservative ones hold; from about 30 tasks the task-level ones do away from 0%
and 100%), so the workflow measures it for each run's shape instead of trusting a table.

The design (`coverage_design`): true mean pass rates on a fine logit-spaced grid that avoids
simple fractions (`design_means`), from 0.4% to 99.6%; task heterogeneity from FAMILIES
(beta-binomial over the correlation of two tries of a task, up to 1: tasks that pass every try or
none; logit-normal; mixtures with near-impossible or near-certain tasks); every task tried as
often as in the run. Coverage is exact where that is cheap: every distinct run enumerated, else,
for the methods that read only the sum of task means, that sum's exact distribution; the others
by sequential Monte Carlo that stops at each cell once every method's verdict there is decided,
and for the headline once no cell could lie more than PRECISION below its printed worst case.
Tasks that pass every try or none are computed exactly for every method at every shape, as the
infimum over the means (`_deterministic`): there a run is a 0/1 outcome per task, the coverage
dips are sharpest, and no composite or t interval can hide them between two grid means.
The headline candidates include composite procedures (`intervals.COMPOSITES`): each is one more
method, its bounds a function of the run's data.

Every method in `intervals.METHODS` is recomputed here on whole batches of runs at once
(`batch_intervals`). The bootstrap ones use the exact bootstrap distribution, the limit of
infinitely many resamples: a task mean is one of L+1 values (L the lcm of the tries), so a
resample's total is a sum of n draws from the run's task outcomes, whose distribution is their
n-fold convolution (done by FFT). Bounds are read off the distribution as its inverse cdf, the
limit of np.quantile's; on large runs it is summed over a window around each run's mean instead
(`_windowed_bounds`): the same bounds, for less work.
"""

from __future__ import annotations

import concurrent.futures
import itertools
import math

import numpy as np

from . import intervals

# Bumped whenever the design or a method changes what a coverage file holds.
DESIGN_VERSION = 4
MODEL = (
    "each task's pass probability p_i is drawn from a family with mean μ; the task is tried K_i "
    "times (the run's own tries per task), each try passing with probability p_i; an interval "
    "covers when it contains μ, the mean over tasks the printed pass rate estimates"
)
DESIGN = (
    "true means: {count} values evenly spaced on the logit scale over 0.4%–99.6% (shifted off simple "
    "fractions); families: beta-binomial (correlation 0 to 1, 1 being tasks that pass every try or "
    "none), logit-normal (σ 0.5 to 3), mixtures of near-impossible (p = {near:g}) or near-certain "
    "(p = 1 − {near:g}) tasks with others; exact by enumeration up to {limit} distinct runs, else exact "
    "for the methods reading only the sum of task means, and by sequential Monte Carlo at every {step}th "
    "mean for the others (batches of {batch} runs until each verdict is decided at z = {z:g}; the "
    "headline's cells further, until none could lie more than {precision:g} below its worst case); "
    "tasks that pass every try or none exactly for every method, with the infimum over the means "
    "(just outside every bound); worst case over every cell"
)
FAMILIES = (
    ("beta-binomial", 0.0),
    ("beta-binomial", 0.05),
    ("beta-binomial", 0.2),
    ("beta-binomial", 0.5),
    ("beta-binomial", 0.9),
    ("beta-binomial", 0.97),
    ("beta-binomial", 1.0),
    ("logit-normal", 0.5),
    ("logit-normal", 1.5),
    ("logit-normal", 3.0),
    ("near-impossible mixture", 0.3),
    ("near-impossible mixture", 0.6),
    ("near-impossible mixture", 0.85),
    ("near-certain mixture", 0.3),
    ("near-certain mixture", 0.6),
    ("near-certain mixture", 0.85),
)
# Tasks that pass every try or none (p is 0 or 1): their coverage is computed exactly at every
# shape (`_deterministic`).
DETERMINISTIC = ("beta-binomial", 1.0)
# Pass probability of a near-impossible task (1 − NEAR: near-certain).
NEAR = 0.01
# True means in the design; the Monte-Carlo cells use every MC_STEP-th of them (ends included).
MEANS = 121
MC_STEP = 12
MEAN_PHASE = math.sqrt(2) / 100
# Gauss-Hermite nodes and weights for E[f(Z)], Z standard normal.
_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(64)
HERMITE = (_NODES, _WEIGHTS / _WEIGHTS.sum())
# Enumerate every distinct run when there are at most this many (multisets of outcomes per group).
ENUMERATION_MAX = 25_000
# The sum of task means is convolved when its lattice has fewer than this many points; with
# unequal tries whose lcm is above LATTICE_MAX, on a coarser lattice (`sum_lattice`).
CONVOLUTION_MAX = 1 << 22
LATTICE_MAX = 120
CONVOLUTION_ELEMENTS = 1 << 22
# The sum of task means is read on the lattice of lcm(main tries, rest's lattice) when it has at
# most this many totals (the bounds are evaluated at each), else on the run's `sum_lattice`.
TOTALS_MAX = 1 << 18
# The exact bootstrap with unequal tries runs on the lcm lattice when it has at most this many totals.
BOOTSTRAP_LATTICE_MAX = 1 << 12
# Monte Carlo: runs per batch, and the z of the score bounds that decide a verdict (one-sided 99%).
MC_BATCH = 500
Z_DECIDE = 2.326
# The headline's simulated cells are simulated until none could be below its printed worst case by
# more than this at Z_DECIDE (or `simulations` runs are drawn; `_top_up`).
PRECISION = 0.004
# Methods that would print a point or nothing when every task has the same mean print the
# Clopper-Pearson bound over task means instead.
GUARDED = ("t over task means", "bootstrap-percentile over tasks", "bootstrap-BCa over tasks")
# The row of a method that is not evaluated.
UNEVALUATED = dict.fromkeys(("worst_coverage", "worst_cell", "mean_width", "standard_error", "lower_bound"))
# Methods that read only the sum of task means (coverage exact from its distribution), each with
# its bounds at given sums.
SUM_METHODS = {
    "wilson over task means": intervals.wilson_bounds,
    "clopper-pearson over task means": intervals.clopper_pearson_bounds,
}
# The headline is one of these: built around the mean over tasks, the printed pass rate. Wilson
# over trials and BenchFlow's wilson-clustered centre on the pooled rate over trials instead.
# Listed in the order that breaks a tie in width: a GUARDED method that prints the Clopper-Pearson
# bound at every run (one task) is named as that bound.
HEADLINE_METHODS = (
    "clopper-pearson over task means",
    "wilson over task means",
    "t over task means",
    "bootstrap-percentile over tasks",
    "bootstrap-BCa over tasks",
    *(intervals.composite_name(level, margin) for level, margin in intervals.COMPOSITES),
)
# Methods whose estimate is the pooled rate over trials, not the mean over tasks.
POOLED_METHODS = ("wilson over trials", "wilson-clustered")
NOT_EVALUATED = "not computed: the task means of these tries have no small common lattice for the exact bootstrap"
EXACT = "exact bootstrap distribution (the limit of infinitely many resamples), by convolution"
WINDOWED = (
    ", here over a window of totals around each run's mean that holds all of the distribution but "
    "at most {tail:g} (Bernstein's inequality), its cdf summed from the DFT at the frequencies whose "
    "n-th power reaches {floor:g}: it agrees with the full-length FFT's to about 1e-13; a run with a "
    "level within {margin:g} of 0 or 1 is read off the full-length FFT"
)
# Slack for floating-point noise in the FFT's cumulative probabilities.
CDF_TOLERANCE = 1e-12
BOOTSTRAP_METHODS = ("bootstrap-percentile over tasks", "bootstrap-BCa over tasks")
# Simulated runs are handled in blocks whose work arrays hold about this many numbers each (32 MiB
# of float64): blocks bound memory, never the result, since every run's draws come first.
BLOCK_ELEMENTS = 1 << 22
# The exact distribution is computed by full-length FFT, once per distinct mix of task outcomes,
# unless a run has at least WINDOWED_MIN_TASKS tasks and more than FULL_SUPPORT_MAX possible
# totals (n·K + 1); then over a window (`_windowed_bounds`). With fewer tasks the spectrum has
# too many frequencies that matter for the window to pay.
WINDOWED_MIN_TASKS = 250
FULL_SUPPORT_MAX = 1024
# The window holds all of a run's bootstrap distribution but at most this mass (both tails).
WINDOW_TAIL = 1e-18
# Frequencies whose n-th power is below this are left out of the windowed cdf.
SPECTRUM_FLOOR = 1e-22
# A level whose threshold lies within this of 0 or 1 is read off the full-length distribution.
LEVEL_MARGIN = 1e-9
# The windowed cdf is first evaluated every this many totals, then bisected.
GRID_STEP = 16


def _power(base: np.ndarray, exponent: int) -> np.ndarray:
    """base**exponent by repeated squaring in place: far faster than numpy's complex power."""
    result = np.ones_like(base)
    while exponent:
        if exponent & 1:
            np.multiply(result, base, out=result)
        np.multiply(base, base, out=base)
        exponent >>= 1
    return result


def _outcome_counts(passes: np.ndarray, tries: int) -> np.ndarray:
    """Per run (row), how many tasks passed 0, 1, … K times."""
    runs = passes.shape[0]
    cells = passes + (tries + 1) * np.arange(runs)[:, None]
    return np.bincount(cells.ravel(), minlength=runs * (tries + 1)).reshape(runs, tries + 1)


def _full_pmf(mixes: np.ndarray, tasks: int, tries: int) -> np.ndarray:
    """Per row of outcome counts over 0 … K, the probability of each resample total 0 … n·K: the
    n-fold convolution of the row's K+1 task outcomes, by a full-length FFT power."""
    support = tasks * tries + 1
    length = 1 << (support - 1).bit_length()
    spectrum = _power(np.fft.rfft(mixes / tasks, length, axis=1), tasks)
    pmf = np.fft.irfft(spectrum, length, axis=1)[:, :support].clip(0)
    return pmf / pmf.sum(axis=1, keepdims=True)


def _full_blocks(counts: np.ndarray, tasks: int, tries: int):
    """(runs, pmf, offset) blocks of the exact distribution, computed once per distinct mix of
    outcomes over the only totals it can reach: with lo and hi the lowest and highest outcome the
    run's tasks show, n·lo … n·hi, so pmf[:, t] is the probability of total offset + t (offset =
    n·lo). Near a mean of 0 or 1, where the design decides most methods, a run shows few
    outcomes, and its FFT is a fraction of the length n·K + 1 would take. Each block's work
    arrays hold about BLOCK_ELEMENTS numbers."""
    mixes, run_mix = np.unique(counts, axis=0, return_inverse=True)
    run_mix = run_mix.ravel()
    present = mixes > 0
    lowest = present.argmax(axis=1)
    spans = tries - present[:, ::-1].argmax(axis=1) - lowest
    for span in np.unique(spans):
        chosen = np.flatnonzero(spans[run_mix] == span)
        order = chosen[np.argsort(run_mix[chosen], kind="stable")]
        rows = max(1, BLOCK_ELEMENTS // (1 << int(tasks * span).bit_length()))
        for start in range(0, len(order), rows):
            runs = order[start : start + rows]
            block_mixes, inverse = np.unique(run_mix[runs], return_inverse=True)
            # only the outcomes lo … lo + span of each mix
            shifted = np.take_along_axis(mixes[block_mixes], lowest[block_mixes, None] + np.arange(span + 1), axis=1)
            yield runs, _full_pmf(shifted, tasks, int(span))[inverse.ravel()], tasks * lowest[run_mix[runs]]


def _levels(share_below, acceleration, confidence) -> dict:
    """Per bootstrap method, the (low, high) levels of the bootstrap distribution it reads."""
    alpha = 1 - confidence
    runs = len(share_below)
    return {
        "bootstrap-percentile over tasks": (np.full(runs, alpha / 2), np.full(runs, 1 - alpha / 2)),
        "bootstrap-BCa over tasks": intervals.bca_levels(share_below, acceleration, confidence),
    }


def _inverse_cdf(cdf: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """Per run, the smallest total whose cdf reaches the run's level (NaN level → NaN)."""
    defined = np.isfinite(levels)
    index = (cdf >= np.where(defined, levels, 0)[:, None] - CDF_TOLERANCE).argmax(axis=1)
    return np.where(defined, index, np.nan)


def _read_full(pmf, totals, acceleration, confidence) -> dict:
    """Percentile and BCa total bounds of each run, read off its distribution over the totals
    0, 1, … of its row (`totals` on the same scale)."""
    cdf = np.cumsum(pmf, axis=1)
    rows = np.arange(len(pmf))
    share_below = np.where(totals > 0, cdf[rows, totals - 1], 0.0) + pmf[rows, totals] / 2
    levels = _levels(share_below, acceleration, confidence)
    return {name: tuple(_inverse_cdf(cdf, level) for level in pair) for name, pair in levels.items()}


def _window_half_widths(counts: np.ndarray, tasks: int, tries: int) -> np.ndarray:
    """Per run, a distance t from the mean beyond which the resample total lies with probability
    below WINDOW_TAIL: Bernstein's inequality for a sum of n draws in [0, K] with the run's variance,
    P(|S − ES| ≥ t) ≤ 2·exp(−t² / (2(v + K·t/3)))."""
    values = np.arange(tries + 1)
    shares = counts / tasks
    mean = shares @ values
    variance = tasks * np.maximum(shares @ values**2 - mean**2, 0.0)
    log_bound = np.log(2 / WINDOW_TAIL)
    linear = log_bound * tries / 3
    return linear + np.sqrt(linear**2 + 2 * log_bound * variance)


def _acceleration(counts: np.ndarray, tasks: int, tries: int) -> np.ndarray:
    """`intervals.bootstrap_acceleration` of each run's task means, from its outcome counts (K+1
    numbers instead of n; equal to it but for rounding in the last bits)."""
    shares = counts / tasks
    deviations = np.arange(tries + 1) / tries - (shares @ np.arange(tries + 1))[:, None] / tries
    squares = shares * deviations**2
    with np.errstate(invalid="ignore", divide="ignore"):
        value = tasks * (squares * deviations).sum(axis=1) / (6 * (tasks * squares.sum(axis=1)) ** 1.5)
    return np.where((counts > 0).sum(axis=1) > 1, value, np.nan)


def _window_cdf(shares: np.ndarray, tasks: int, width: int, first: np.ndarray):
    """The cdf of each run's resample total over its window of totals first … first + W − 1,
    from the DFT of its n-fold circular convolution of length W, with no inverse FFT.

    With φ(f) = Σ_j q_j·ω^{−jf} (ω = e^{2πi/W}, q the run's outcome shares) and
    Φ_f = φ(f)ⁿ·ω^{f·first} (shifted so that position 0 is total `first`), the cdf at
    position x (−1 … W−1) is

        F(x) = Σ_{s≤x} p(s) = (Φ₀·(x+1) + Σ_f c_f·Re(A_f − A_f·ω^{f(x+1)})) / (W·Φ₀),

    summing over frequencies 0 < f ≤ W/2, with A_f = Φ_f / (1 − ω^f) and c_f = 2 (for f and
    W − f) but 1 at f = W/2; F(−1) = 0 and F(W−1) = 1. Frequencies whose n-th power is below
    SPECTRUM_FLOOR for every run are left out (together they move F by at most
    W·SPECTRUM_FLOOR); which ones those are comes from |φ(f)|² = r₀ + 2 Σ_d r_d·cos(2π·d·f/W),
    r being the autocorrelation of q (one matrix product, in float32 since it is only compared
    with the floor). Returns F at given positions (runs x points), and F at one vector of
    positions shared by every run (by matrix products).
    """
    outcomes = shares.shape[1]
    lags = np.arange(outcomes)
    angles = 2 * np.pi * np.arange(width) / width
    cosines, sines = np.cos(angles), np.sin(angles)
    autocorrelation = np.stack([(shares[:, : outcomes - d] * shares[:, d:]).sum(axis=1) for d in lags], axis=1)
    basis = cosines[np.outer(lags, np.arange(width // 2 + 1)) % width].astype(np.float32)
    basis[1:] *= 2
    magnitude = autocorrelation.astype(np.float32) @ basis
    kept = np.flatnonzero((magnitude >= np.float32(SPECTRUM_FLOOR ** (2 / tasks) * (1 - 1e-4))).any(axis=0))
    turns = np.outer(lags, kept) % width
    spectrum = _power(shares @ cosines[turns] - 1j * (shares @ sines[turns]), tasks)
    turns = kept * first[:, None] % width
    spectrum *= cosines[turns] + 1j * sines[turns]
    frequencies = kept[1:]
    weight = np.where(2 * frequencies == width, 1.0, 2.0)
    terms = spectrum[:, 1:] * weight / (1 - (cosines[frequencies] + 1j * sines[frequencies]))
    constant = terms.real.sum(axis=1)
    mass = spectrum[:, 0].real
    rows = max(1, BLOCK_ELEMENTS // (4 * max(1, frequencies.size)))

    def cdf(positions):
        """F at positions (runs x points)."""
        found = np.empty(positions.shape)
        for start in range(0, len(positions), rows):
            part = slice(start, start + rows)
            turns = frequencies * (positions[part, :, None] + 1)
            turns %= width
            wave = np.einsum("rpf,rf->rp", cosines[turns], terms[part].real)
            wave -= np.einsum("rpf,rf->rp", sines[turns], terms[part].imag)
            found[part] = mass[part, None] * (positions[part] + 1) + constant[part, None] - wave
        return found / (width * mass[:, None])

    def grid(positions):
        """F at the same positions (a vector) for every run: two matrix products."""
        turns = np.outer(frequencies, positions + 1) % width
        wave = terms.real @ cosines[turns] - terms.imag @ sines[turns]
        return (mass[:, None] * (positions + 1) + constant[:, None] - wave) / (width * mass[:, None])

    return cdf, grid


def _windowed_bounds(counts: np.ndarray, tasks: int, tries: int, totals: np.ndarray, confidence: float):
    """Percentile and BCa total bounds of each run from its distribution over a window of W totals.

    A circular convolution of length W folds the distribution modulo W; when the window holds all
    of it but WINDOW_TAIL around the run's mean (its observed total), the folded mass is below
    that. Each level is found by bisection on the window's cdf (`_window_cdf`). Runs are sorted
    by the half-width they need, so each block uses a short W. Returns the bounds and the runs
    to read off the full distribution instead (a level within LEVEL_MARGIN of 0 or 1).
    """
    support = tasks * tries + 1
    half = _window_half_widths(counts, tasks, tries)
    acceleration = _acceleration(counts, tasks, tries)
    order = np.argsort(half, kind="stable")

    def width_of(run):  # even, so that W/2 is a frequency
        return 2 * int(np.ceil(half[run])) + 2

    found = {name: (np.full(len(counts), np.nan), np.full(len(counts), np.nan)) for name in BOOTSTRAP_METHODS}
    redo = np.zeros(len(counts), dtype=bool)
    start = 0
    while start < len(order):
        # windows grow along `order`: size the block by the widest window it could reach
        reach = order[min(len(order), start + max(1, 2 * BLOCK_ELEMENTS // width_of(order[start]))) - 1]
        runs = order[start : start + max(1, 2 * BLOCK_ELEMENTS // width_of(reach))]
        start += len(runs)
        width = min(width_of(runs[-1]), support + support % 2)
        first = np.clip(totals[runs] - (width - 1) // 2, 0, max(0, support - width))
        cdf, grid = _window_cdf(counts[runs] / tasks, tasks, width, first)
        at = (totals[runs] - first)[:, None]
        share_below = cdf(np.hstack([at - 1, at])).mean(axis=1)
        levels = [level for pair in _levels(share_below, acceleration[runs], confidence).values() for level in pair]
        defined = np.isfinite(np.stack(levels, axis=1))
        threshold = np.where(defined, np.stack(levels, axis=1), 0) - CDF_TOLERANCE
        extreme = (threshold < LEVEL_MARGIN) | (threshold > 1 - LEVEL_MARGIN)
        redo[runs] = (defined & (threshold > 0) & extreme).any(axis=1)
        # F(−1) = 0 and F(W−1) = 1: find F(low) < threshold ≤ F(high) on a grid of GRID_STEP,
        # then halve the interval
        coarse = np.minimum(np.arange(0, width + GRID_STEP, GRID_STEP), width) - 1
        above = (grid(coarse)[:, None, :] < threshold[..., None]).sum(axis=2).clip(1, len(coarse) - 1)
        low, high = coarse[above - 1], coarse[above]
        while (high - low > 1).any():
            middle = (low + high) // 2
            reached = cdf(middle) >= threshold
            low, high = np.where(reached, low, middle), np.where(reached, middle, high)
        # a level at or below the tolerance is reached at total 0, as in `_inverse_cdf`
        total = np.where(defined, np.where(threshold <= 0, 0, first[:, None] + high), np.nan)
        for column, (name, side) in enumerate((name, side) for name in BOOTSTRAP_METHODS for side in (0, 1)):
            found[name][side][runs] = total[:, column]
    return found, np.flatnonzero(redo)


def _bootstrap_bounds(passes, tries, confidence, bootstrap):
    """Percentile and BCa bounds of each run, read off its bootstrap distribution."""
    runs, tasks = passes.shape
    counts = _outcome_counts(passes, tries)
    totals = passes.sum(axis=1)
    redo = np.arange(runs)
    if _windowed(bootstrap, tasks, tries):
        found, redo = _windowed_bounds(counts, tasks, tries, totals, confidence)
    else:
        found = {name: (np.full(runs, np.nan), np.full(runs, np.nan)) for name in BOOTSTRAP_METHODS}
    if redo.size:
        acceleration = intervals.bootstrap_acceleration(passes[redo] / tries)
        for block_runs, pmf, offset in _full_blocks(counts[redo], tasks, tries):
            bounds = _read_full(pmf, totals[redo][block_runs] - offset, acceleration[block_runs], confidence)
            for name in BOOTSTRAP_METHODS:
                for column, total in zip(found[name], bounds[name]):
                    column[redo[block_runs]] = total + offset
    return {name: tuple(column / (tasks * tries) for column in pair) for name, pair in found.items()}


def _windowed(bootstrap: str, tasks: int, tries: int) -> bool:
    if bootstrap not in ("auto", "full", "windowed"):
        raise ValueError(f"bootstrap must be 'auto', 'full' or 'windowed', got {bootstrap!r}")
    return bootstrap == "windowed" or (
        bootstrap == "auto" and tasks >= WINDOWED_MIN_TASKS and tasks * tries + 1 > FULL_SUPPORT_MAX
    )


def lattice(tries) -> int:
    """The common denominator of the task means: lcm of the tries per task."""
    return math.lcm(*{int(value) for value in np.atleast_1d(tries)})


def batch_intervals(
    passes: np.ndarray,
    tries,
    *,
    confidence: float = 0.95,
    bootstrap: str = "auto",
    methods=None,
    workers: int = 1,
) -> dict:
    """Every `intervals.METHODS` interval (or those in `methods`) for many runs at once.

    passes: (runs x tasks) pass counts; tries: the tries of every task (one number) or of each
    task (a vector over the columns). Returns name -> (low, high) arrays, NaN where the method is
    undefined for that run, except for GUARDED methods, which print the Clopper-Pearson bound over
    task means where they give no interval of positive width (every task with the same mean,
    BCa undefined): so the headline is never "n/a" and never a point. The bootstrap methods are
    left out when the task means have no common lattice of at most BOOTSTRAP_LATTICE_MAX totals
    (unequal tries with a large lcm; see `bootstrap_available`). `bootstrap` picks how the exact
    distribution is computed: "full" (full-length FFT), "windowed", or "auto" (windowed from
    WINDOWED_MIN_TASKS tasks and above FULL_SUPPORT_MAX possible totals). Runs go through in
    blocks, which bounds memory. `workers` threads share the blocks (numpy's FFT releases the
    GIL); each run's bounds are its own, whatever the blocks.
    """
    passes = np.asarray(passes)
    runs, tasks = passes.shape
    tries = np.broadcast_to(np.asarray(tries, dtype=np.int64), (tasks,))
    _windowed(bootstrap, tasks, int(tries[0]))
    wanted = [name for name in intervals.METHODS if methods is None or name in methods]
    if not bootstrap_available(tries):
        wanted = [name for name in wanted if name not in BOOTSTRAP_METHODS]
    rows = max(1, min(BLOCK_ELEMENTS // tasks, -(-runs // max(1, workers))))

    def block(start):
        return _block_intervals(passes[start : start + rows], tries, confidence, bootstrap, wanted)

    with concurrent.futures.ThreadPoolExecutor(max(1, workers)) as pool:
        blocks = list(pool.map(block, range(0, runs, rows)))
    return {name: tuple(np.concatenate([block[name][side] for block in blocks]) for side in (0, 1)) for name in wanted}


def bootstrap_available(tries) -> bool:
    """Whether the exact bootstrap can be computed: equal tries, or a small common lattice."""
    tries = np.atleast_1d(tries)
    return bool((tries == tries[0]).all()) or tries.size * lattice(tries) + 1 <= BOOTSTRAP_LATTICE_MAX


def _block_intervals(passes, tries, confidence, bootstrap, wanted) -> dict:
    runs, tasks = passes.shape
    rates = passes / tries
    sums = rates.sum(axis=1)
    # the sum takes few distinct values (at most n·L + 1): scipy's beta inverse once per value
    distinct, inverse = np.unique(sums, return_inverse=True)
    bounds = {
        "clopper-pearson over task means": tuple(
            side[inverse] for side in intervals.clopper_pearson_bounds(distinct, tasks, confidence)
        )
    }
    composites = {intervals.composite_name(level, margin): (level, margin) for level, margin in intervals.COMPOSITES}
    spread = intervals.mean_and_sd(rates) if tasks >= 2 and not set(wanted).isdisjoint(composites) else None
    if "t over task means" in wanted:
        if tasks >= 2:
            _, t_low, t_high = intervals.t_bounds(rates, confidence, spread)
            bounds["t over task means"] = (np.maximum(0.0, t_low), np.minimum(1.0, t_high))
        else:
            bounds["t over task means"] = (np.full(runs, np.nan), np.full(runs, np.nan))
    if "wilson over trials" in wanted:
        bounds["wilson over trials"] = intervals.wilson_bounds(passes.sum(axis=1), tries.sum(), confidence)
    if "wilson over task means" in wanted:
        bounds["wilson over task means"] = intervals.wilson_bounds(sums, tasks, confidence)
    if "wilson-clustered" in wanted:
        pooled, effective = intervals.clustered_sample_size(np.broadcast_to(tries, passes.shape), passes)
        bounds["wilson-clustered"] = intervals.wilson_bounds(pooled * effective, effective, confidence)
    if any(name in wanted for name in BOOTSTRAP_METHODS):
        # task means on one lattice of L = lcm(tries) steps: the bootstrap of the scaled counts
        step = lattice(tries)
        bounds |= _bootstrap_bounds(passes * (step // tries), step, confidence, bootstrap)
    guard = bounds["clopper-pearson over task means"]
    for name in GUARDED:
        if name in wanted:
            low, high = bounds[name]
            point = ~(high > low)  # NaN or zero width
            bounds[name] = (np.where(point, guard[0], low), np.where(point, guard[1], high))
    for name, (level, margin) in composites.items():
        if name in wanted:
            low = high = np.full(runs, np.nan)
            if tasks >= 2:
                _, low, high = intervals.t_bounds(rates, level, spread)
            use = (high > low) & ~intervals.near_bounds(sums, tasks, margin)
            bounds[name] = (
                np.where(use, np.maximum(0.0, low), guard[0]),
                np.where(use, np.minimum(1.0, high), guard[1]),
            )
    return {name: bounds[name] for name in wanted}


# --- the coverage design ---


def _logit(value):
    return np.log(value) - np.log1p(-value)


def design_means(count: int) -> np.ndarray:
    """`count` true mean pass rates, evenly spaced on the logit scale from 0.4% to 99.6% and
    shifted by an irrational phase, so that none is a simple fraction (a lattice point of some
    method at some number of tasks)."""
    edge = float(-_logit(np.float64(0.004)))
    return 1 / (1 + np.exp(-(np.linspace(-edge, edge, count) + MEAN_PHASE)))


def _binomial_pmf(tries: int, probabilities: np.ndarray) -> np.ndarray:
    """P(j passes of `tries`) for each probability (last axis j = 0 … K)."""
    from scipy.special import gammaln, xlog1py, xlogy

    j = np.arange(tries + 1)
    p = np.asarray(probabilities, dtype=float)[..., None]
    # xlogy(j, p) is j·log(p) but at j = 0 (xlog1py likewise): the logarithm taken once per
    # probability, not once per count, gives the same bits for a fraction of the work
    with np.errstate(invalid="ignore"):  # 0 · −inf at p = 0 or 1, in the columns set next
        passes, fails = j * xlogy(1, p), (tries - j) * xlog1py(1, -p)
    passes[..., 0], fails[..., -1] = xlogy(0, p[..., 0]), xlog1py(0, -p[..., 0])
    log = gammaln(tries + 1) - gammaln(j + 1) - gammaln(tries - j + 1) + passes + fails
    return np.exp(log)


def _logit_normal_location(means: np.ndarray, spread: float) -> np.ndarray:
    """The location m with E[expit(m + σZ)] = μ, by bisection on Gauss-Hermite quadrature."""
    nodes, weights = HERMITE
    low, high = np.full(means.shape, -60.0), np.full(means.shape, 60.0)
    for _ in range(60):
        middle = (low + high) / 2
        mean = (weights / (1 + np.exp(-(middle[:, None] + spread * nodes)))).sum(axis=1)
        low, high = np.where(mean < means, middle, low), np.where(mean < means, high, middle)
    return (low + high) / 2


def _mixture_rest(family: str, share: float, means: np.ndarray) -> np.ndarray:
    """The pass probability q of the other tasks, w·p₀ + (1−w)·q = μ (NaN if q leaves [0, 1])."""
    near = NEAR if family == "near-impossible mixture" else 1 - NEAR
    rest = (means - share * near) / (1 - share)
    return np.where((rest >= 0) & (rest <= 1), rest, np.nan)


def task_mean_pmf(family: str, parameter: float, means: np.ndarray, tries: int) -> np.ndarray:
    """(means x K+1): the probability that a task passes j of K tries, integrated over the
    family's task pass probabilities with mean μ; NaN rows where the family cannot have mean μ."""
    from scipy.special import betaln, gammaln

    means = np.asarray(means, dtype=float)
    if family == "beta-binomial":
        if parameter == 0:
            return _binomial_pmf(tries, means)
        if parameter == 1:  # deterministic tasks: p is 0 or 1
            pmf = np.zeros((means.size, tries + 1))
            pmf[:, 0], pmf[:, -1] = 1 - means, means
            return pmf
        spread = 1 / parameter - 1
        a, b = (means * spread)[:, None], ((1 - means) * spread)[:, None]
        j = np.arange(tries + 1)
        log = gammaln(tries + 1) - gammaln(j + 1) - gammaln(tries - j + 1) + betaln(j + a, tries - j + b) - betaln(a, b)
        return np.exp(log)
    if family == "logit-normal":
        nodes, weights = HERMITE
        location = _logit_normal_location(means, parameter)
        probabilities = 1 / (1 + np.exp(-(location[:, None] + parameter * nodes)))
        return np.einsum(
            "mn,mnj->mj", np.broadcast_to(weights, probabilities.shape), _binomial_pmf(tries, probabilities)
        )
    rest = _mixture_rest(family, parameter, means)
    near = NEAR if family == "near-impossible mixture" else 1 - NEAR
    return parameter * _binomial_pmf(tries, np.full(means.shape, near)) + (1 - parameter) * _binomial_pmf(tries, rest)


def draw_passes(rng, family: str, parameter: float, mean: float, tries, simulations: int) -> np.ndarray:
    """(simulations x tasks) pass counts: each task's pass probability drawn from the family (mean
    μ), then Binomial(K_i, p_i) with the task's own tries. Tasks of equal tries are independent
    and alike, so a run's tasks of K tries are drawn at once as how many pass 0 … K times (a
    multinomial over `task_mean_pmf`), in increasing order of passes: every method reads a run
    whatever the order of its tasks, and this is (K + 1)/n of the work of drawing task by task."""
    tries = np.asarray(tries)
    passes = np.empty((simulations, tries.size), dtype=np.int64)
    for group_tries in np.unique(tries).tolist():
        columns = np.flatnonzero(tries == group_tries)
        pmf = task_mean_pmf(family, parameter, np.array([mean]), group_tries)[0].clip(0)
        counts = rng.multinomial(columns.size, pmf / pmf.sum(), size=simulations)
        outcomes = np.tile(np.arange(group_tries + 1), simulations)
        passes[:, columns] = np.repeat(outcomes, counts.ravel()).reshape(simulations, columns.size)
    return passes


def _profile_tries(profile) -> np.ndarray:
    """The tries of every task, group by group, from a profile ((tries, tasks), …)."""
    return np.concatenate([np.full(count, tries, dtype=np.int64) for tries, count in profile])


def _multisets(profile) -> int:
    return math.prod(math.comb(count + tries, tries) for tries, count in profile)


def _enumerate(profile):
    """Every distinct run up to the order of tasks within a group of equal tries: (passes rows,
    per-group outcome counts, per-group indices of each row)."""
    per_group = []
    for tries, count in profile:
        rows = np.array(list(itertools.combinations_with_replacement(range(tries + 1), count)), dtype=np.int64)
        per_group.append((rows, _outcome_counts(rows, tries)))
    index = np.indices([len(rows) for rows, _ in per_group]).reshape(len(per_group), -1)
    passes = np.hstack([rows[index[g]] for g, (rows, _) in enumerate(per_group)])
    return passes, [counts for _, counts in per_group], index


def _log_multinomial_constant(counts: np.ndarray) -> np.ndarray:
    from scipy.special import gammaln

    return gammaln(counts.sum(axis=1) + 1) - gammaln(counts + 1).sum(axis=1)


def _unfilled(names, families, means) -> dict:
    """name -> (coverage, width), each a (families x means) table of NaN for the families to fill."""
    return {
        name: (np.full((len(families), len(means)), np.nan), np.full((len(families), len(means)), np.nan))
        for name in names
    }


def _enumerated(profile, families, means, confidence, bootstrap, workers=1) -> dict:
    """name -> (families x means) exact coverage and width, over every distinct run. `workers`
    threads share the runs' intervals and then the families (numpy releases the GIL in each
    family's products), each family computed as alone: the same numbers whatever the threads."""
    passes, group_counts, index = _enumerate(profile)
    tries = _profile_tries(profile)
    bounds = batch_intervals(passes, tries, confidence=confidence, bootstrap=bootstrap, workers=workers)
    covers = {
        name: ((low[:, None] <= means) & (means <= high[:, None])).astype(float) for name, (low, high) in bounds.items()
    }
    widths = {name: np.where(np.isfinite(low), high - low, 0.0) for name, (low, high) in bounds.items()}
    constants = sum(_log_multinomial_constant(counts)[index[g]] for g, counts in enumerate(group_counts))
    found = _unfilled(bounds, families, means)

    def one_family(f):
        family, parameter = families[f]
        probabilities = np.repeat(constants[:, None], len(means), axis=1)
        valid = np.ones(len(means), dtype=bool)
        for g, ((group_tries, _), counts) in enumerate(zip(profile, group_counts)):
            pmf = task_mean_pmf(family, parameter, means, group_tries)
            valid &= np.isfinite(pmf).all(axis=1)
            term = counts @ np.log(np.maximum(np.nan_to_num(pmf), 1e-300)).T
            probabilities += term if len(profile) == 1 else term[index[g]]
        np.exp(probabilities, out=probabilities)
        for name in bounds:
            found[name][0][f] = np.where(valid, np.einsum("rm,rm->m", probabilities, covers[name]), np.nan)
            found[name][1][f] = np.where(valid, widths[name] @ probabilities, np.nan)

    with concurrent.futures.ThreadPoolExecutor(max(1, workers)) as pool:
        list(pool.map(one_family, range(len(families))))
    return found


def _deterministic(profile, means, confidence, bootstrap, workers=1) -> dict | None:
    """name -> (worst coverage, the mean where it is reached, mean width at each of `means`) of
    every method when each task's pass probability is 0 or 1 (DETERMINISTIC, correlation 1): a
    run is then how many tasks k_g of each group pass every try, with probability
    Π_g C(n_g, k_g) · μ^k (1 − μ)^(n − k), k = Σ k_g. None when there are more than
    ENUMERATION_MAX such runs.

    The worst case is the infimum over means[0] … means[-1], not a grid's minimum: between two
    neighbouring bounds of the method's intervals the runs whose interval covers μ stay the same,
    so the coverage moves smoothly there and jumps only at a bound, down where μ leaves a run's
    closed interval; it is evaluated at `means` and just outside every bound."""
    sizes = [count + 1 for _, count in profile]
    if math.prod(sizes) > ENUMERATION_MAX:
        return None
    passing = np.indices(sizes).reshape(len(profile), -1)  # groups x runs
    passes = np.hstack(
        [
            np.where(np.arange(count) < passing[g][:, None], group_tries, 0)
            for g, (group_tries, count) in enumerate(profile)
        ]
    )
    # every task mean is 0 or 1 whatever the tries: the methods over task means read the runs as
    # one try per task (the bootstrap then convolves 2 outcomes, not K + 1); the pooled ones
    # count trials
    settings = {"confidence": confidence, "bootstrap": bootstrap, "workers": workers}
    bounds = batch_intervals((passes > 0).astype(np.int64), 1, **settings)
    bounds |= batch_intervals(passes, _profile_tries(profile), methods=POOLED_METHODS, **settings)
    probabilities = _all_or_none_probabilities(profile, passing)
    on_means = probabilities(means)
    chunk = max(1, BLOCK_ELEMENTS // len(passes))

    def method(item):
        name, (low, high) = item
        # a run's interval is closed: the coverage is lowest just outside a bound
        points = np.concatenate([means, np.nextafter(low, 0), np.nextafter(high, 1)])
        points = points[np.isfinite(points)]
        points = np.unique(points[(points >= means[0]) & (points <= means[-1])])
        coverage = np.concatenate(
            [
                (probabilities(part) * ((low[:, None] <= part) & (part <= high[:, None]))).sum(axis=0)
                for part in np.split(points, range(chunk, len(points), chunk))
            ]
        )
        worst = int(np.argmin(coverage))
        return name, (
            float(coverage[worst]),
            float(points[worst]),
            np.where(np.isfinite(low), high - low, 0.0) @ on_means,
        )

    with concurrent.futures.ThreadPoolExecutor(max(1, workers)) as pool:
        return dict(pool.map(method, bounds.items()))


def _all_or_none_probabilities(profile, passing):
    """The probabilities of the runs in which k_g tasks of each group pass every try and the rest
    none (`passing`, groups x runs), as a function of μ: runs x points, all strictly inside (0, 1)."""
    from scipy.special import gammaln

    tasks, passed = sum(count for _, count in profile), passing.sum(axis=0)[:, None]
    constant = sum(
        gammaln(count + 1) - gammaln(passing[g] + 1) - gammaln(count - passing[g] + 1)
        for g, (_, count) in enumerate(profile)
    )[:, None]
    return lambda points: np.exp(constant + passed * np.log(points) + (tasks - passed) * np.log1p(-points))


def sum_lattice(tries) -> int:
    """The L on which `_convolved` sums task means: the lcm of the tries when it is the largest
    tries or at most LATTICE_MAX, else the multiple of the largest tries nearest LATTICE_MAX below
    (a task mean j/K then counts as the nearest multiple of 1/L: at most 1/(2L) off)."""
    tries = np.atleast_1d(tries)
    step, largest = lattice(tries), int(tries.max())
    return step if step == largest or step <= LATTICE_MAX else largest * max(1, LATTICE_MAX // largest)


def _positions(tries: int, step: int) -> np.ndarray:
    """Where a task with j of `tries` passes sits on the lattice of `step` (rounded half up)."""
    return (2 * np.arange(tries + 1) * step + tries) // (2 * tries)


def sum_layout(profile) -> tuple[tuple[int, int], tuple, int, int]:
    """How `_convolved` splits the sum of task means: the main group (tries K, tasks), the rest
    (the other groups), the lattice 1/L of the rest's task means (`sum_lattice`; 1 if none) and
    the lattice 1/Λ of the totals, Λ = lcm(K, L). The main group is the one with the most
    outcomes in its sum (tasks·K); when n·Λ is above TOTALS_MAX, every task mean is on the
    run's `sum_lattice` L instead (Λ = L, the main group one whose tries divide it)."""
    profile, tries = tuple(profile), _profile_tries(profile)

    def split(candidates):  # the candidate group with the most outcomes, and every other group
        index = max(candidates, key=lambda i: (profile[i][0] * profile[i][1], profile[i][0], -i))
        return profile[index], profile[:index] + profile[index + 1 :]

    main, rest = split(range(len(profile)))
    step = sum_lattice([group_tries for group_tries, _ in rest]) if rest else 1
    totals = math.lcm(main[0], step)
    if tries.size * totals + 1 > TOTALS_MAX:
        totals = sum_lattice(tries)
        main, rest = split([i for i, (group_tries, _) in enumerate(profile) if totals % group_tries == 0])
        step = totals
    return main, rest, step, totals


def _sum_window(pmfs, groups, step, cells, width, centre, support):
    """Per cell, the distribution of the sum over `groups` of each task's position on the lattice
    of `step` (`_positions`), over the window of totals first … first + width − 1: a circular
    convolution of that length (by FFT), which folds onto the window only the mass outside it."""
    from scipy import fft

    spectrum = np.ones((len(cells), width // 2 + 1), dtype=complex)
    for group_tries, count in groups:
        placed = np.zeros((len(cells), width))
        np.add.at(placed, (slice(None), _positions(group_tries, step) % width), pmfs[group_tries][cells])
        spectrum *= _power(fft.rfft(placed, axis=1), count)
    folded = fft.irfft(spectrum, width, axis=1).clip(0)
    if width >= support:
        return np.zeros(len(cells), dtype=np.int64), folded[:, :support]
    first = np.clip(np.round(centre[cells]).astype(np.int64) - width // 2, 0, support - width)
    return first, np.take_along_axis(folded, (first[:, None] + np.arange(width)) % width, axis=1)


def _window_widths(pmfs, groups, step, support, count):
    """Per cell (of `count`), the mean of the sum `_sum_window` computes and the window width
    that holds all of its distribution but at most WINDOW_TAIL (Bernstein's inequality: each
    task adds at most `step`)."""
    centre, variance = np.zeros(count), np.zeros(count)
    for group_tries, tasks in groups:
        values, pmf = _positions(group_tries, step), np.nan_to_num(pmfs[group_tries])
        first = pmf @ values
        centre += tasks * first
        variance += tasks * np.maximum(pmf @ values**2 - first**2, 0)
    log_bound = math.log(2 / WINDOW_TAIL)
    half = log_bound * step / 3 + np.sqrt((log_bound * step / 3) ** 2 + 2 * log_bound * variance)
    return centre, np.array([min(_fast_length(2 * math.ceil(h) + 2), _fast_length(support)) for h in half])


def _fast_length(count: int) -> int:
    """The shortest of 2^k, 1.25·2^k and 1.5·2^k that holds `count`: the FFT is about as fast on
    these as on powers of two, which waste up to half the window; and few distinct lengths keep
    the cells in few batches."""
    power = 1 << max(int(count) - 1, 1).bit_length()
    return min(length for length in (power, power * 5 // 8, power * 3 // 4) if length >= count)


def _convolved(profile, families, means, confidence, workers=1) -> dict:
    """name -> (families x means) coverage and width of the SUM_METHODS, from the distribution of
    the sum of task means S, on the lattice 1/Λ of `sum_layout`. S = B/K + U/L: B the passes of
    the main group's tasks (K tries each), U the rest's sum on the lattice 1/L; each is convolved
    by FFT over a window of its totals that holds all of its distribution but at most WINDOW_TAIL
    (`_window_widths`). Both bounds grow with S, so the runs an interval covering μ comes from
    are an interval of totals: for each U, a range of B, read off B's cdf. Widths are computed at
    the Monte-Carlo means only (every MC_STEP-th, all the design reads): S's distribution there
    by one more convolution. Exact when the rest's tries all divide L (`sum_lattice`).
    `workers` threads share the families."""
    main_group, rest, step, totals = sum_layout(profile)
    main_tries, main_tasks = main_group
    main = [main_group]  # a profile of the main group alone
    tasks = sum(count for _, count in profile)
    scale_main, scale_rest = totals // main_tries, totals // step
    main_support, rest_support = main_tasks * main_tries + 1, sum(count for _, count in rest) * step + 1
    covering, spreads = _sum_intervals(tasks, totals, means, confidence)
    found = _unfilled(covering, families, means)

    def family(f):
        name, parameter = families[f]
        pmfs = {group_tries: task_mean_pmf(name, parameter, means, group_tries) for group_tries, _ in profile}
        valid = np.flatnonzero(np.isfinite(pmfs[profile[0][0]]).all(axis=1))
        main_centre, main_widths = _window_widths(pmfs, main, main_tries, main_support, len(means))
        rest_centre, rest_widths = _window_widths(pmfs, rest, step, rest_support, len(means))
        pairs = np.stack([main_widths[valid], rest_widths[valid]], axis=1)
        for main_width, rest_width in np.unique(pairs, axis=0):
            cells = valid[(pairs == (main_width, rest_width)).all(axis=1)]
            chunk = max(1, CONVOLUTION_ELEMENTS // int(main_width + 4 * rest_width))
            for start in range(0, len(cells), chunk):
                block = cells[start : start + chunk]
                main_first, main_pmf = _sum_window(
                    pmfs, main, main_tries, block, int(main_width), main_centre, main_support
                )
                rest_first, rest_pmf = _sum_window(pmfs, rest, step, block, int(rest_width), rest_centre, rest_support)
                offsets = scale_rest * (rest_first[:, None] + np.arange(rest_pmf.shape[1]))
                for method, (reach, past) in covering.items():
                    found[method][0][f, block] = _covered(
                        main_first, main_pmf, scale_main, offsets, rest_pmf, reach[block], past[block]
                    )
                mc = block % MC_STEP == 0  # the Monte-Carlo means
                if mc.any():
                    widths = _widths(main_first[mc], main_pmf[mc], scale_main, offsets[mc], rest_pmf[mc], spreads)
                    for method, width in widths.items():
                        found[method][1][f, block[mc]] = width

    with concurrent.futures.ThreadPoolExecutor(max(1, workers)) as pool:
        list(pool.map(family, range(len(families))))
    return found


def _sum_intervals(tasks, totals, means, confidence) -> tuple[dict, dict]:
    """Per SUM_METHODS method, its intervals at every sum of task means on the lattice 1/totals:
    (for each of `means`, the totals reach … past − 1 whose interval covers it; each total's width)."""
    sums = np.arange(tasks * totals + 1) / totals
    bounds = {name: bounds_at(sums, tasks, confidence) for name, bounds_at in SUM_METHODS.items()}
    covering = {
        name: (np.searchsorted(high, means, side="left"), np.searchsorted(low, means, side="right"))
        for name, (low, high) in bounds.items()
    }
    return covering, {name: high - low for name, (low, high) in bounds.items()}


def _covered(main_first, main_pmf, scale_main, offsets, rest_pmf, reach, past):
    """Per cell, P(reach ≤ T < past) for T = scale_main·B + the rest's total (at `offsets`, each
    with its probability in `rest_pmf`), B's distribution over the window from `main_first`."""
    main_cdf = np.hstack([np.zeros((len(main_pmf), 1)), np.cumsum(main_pmf, axis=1)])

    def below(total):  # P(scale_main·B < total − offset), per cell and rest total
        passes = -((offsets - total[:, None]) // scale_main)  # ceil((total − offset) / scale_main)
        return np.take_along_axis(main_cdf, np.clip(passes - main_first[:, None], 0, main_pmf.shape[1]), axis=1)

    return (rest_pmf * np.maximum(below(past) - below(reach), 0)).sum(axis=1)


def _widths(main_first, main_pmf, scale_main, offsets, rest_pmf, spreads):
    """method -> per cell, the mean of its width (`spreads`: high − low at each total): S's
    distribution on the lattice of the totals, the main group's placed every `scale_main` totals
    convolved with the rest's at `offsets`."""
    from scipy import fft

    span = scale_main * (main_pmf.shape[1] - 1) + offsets[0, -1] - offsets[0, 0] + 1
    width = _fast_length(span)
    placed_main = np.zeros((len(main_pmf), width))
    placed_main[:, : scale_main * main_pmf.shape[1] : scale_main] = main_pmf
    placed_rest = np.zeros((len(main_pmf), width))
    np.put_along_axis(placed_rest, offsets - offsets[:, :1], rest_pmf, axis=1)
    pmf = fft.irfft(fft.rfft(placed_main, axis=1) * fft.rfft(placed_rest, axis=1), width, axis=1)
    totals = scale_main * main_first[:, None] + offsets[:, :1] + np.arange(width)
    inside = totals < next(iter(spreads.values())).size  # the window may reach past the last total
    pmf = pmf.clip(0) * inside
    return {method: (pmf * spread[np.where(inside, totals, 0)]).sum(axis=1) for method, spread in spreads.items()}


def futility_bound(target: float, simulations: int) -> float:
    """The coverage a cell must show to let a method qualify: its lower bound after `simulations`
    runs reaches the target only from about target + Z_DECIDE·√(target(1−target)/simulations) up.
    A method whose upper bound at a cell is below this could not qualify even if simulated to the
    end, so it is simulated no further."""
    return target + Z_DECIDE * math.sqrt(target * (1 - target) / simulations)


def _score_bounds(covered, runs, z):
    """Wilson score bounds of a binomial proportion (exactly 0 and 1 at the edges)."""
    return intervals.wilson_bounds(covered, runs, intervals.STANDARD_NORMAL.cdf(z) * 2 - 1)


def _simulated(profile, families, means, methods, target, *, exact=(), **settings) -> dict:
    """name -> per-cell (covered, runs, summed width) by sequential Monte Carlo.

    The analytic methods go first, visiting cells hardest first (means nearest 0 or 1, then in
    family order); the bootstrap ones (a hundred times dearer per run) then visit the cells in
    increasing order of the lowest coverage the analytic ones showed there, so that where they
    fail they are found to fail at the first cells they visit. At each cell a method draws batches
    of MC_BATCH runs from the cell's own seeded stream (the same runs for every method) until its
    score bound at Z_DECIDE is above the target or below `futility_bound`, or `simulations` runs
    are drawn. A method found below `futility_bound` at some cell cannot qualify and is not
    simulated further; its worst coverage is then the lowest seen. The families in `exact` are
    computed elsewhere and not simulated.
    """
    tries = _profile_tries(profile)
    cells = [
        (f, m)
        for f in range(len(families))
        for m in range(len(means))
        if families[f] not in exact
        and not (
            families[f][0].endswith("mixture")
            and np.isnan(_mixture_rest(families[f][0], families[f][1], means[m : m + 1])[0])
        )
    ]
    cells.sort(key=lambda cell: (-abs(float(_logit(means[cell[1]]))), cell[0], cell[1]))
    found: dict[str, dict] = {name: {} for name in methods}
    cheap = [name for name in methods if name not in BOOTSTRAP_METHODS]
    _sequential(cells, cheap, found, tries, families, means, target, **settings)
    lowest = {
        cell: min((tally[cell][0] / tally[cell][1] for tally in found.values() if cell in tally), default=1.0)
        for cell in cells
    }
    cells.sort(key=lambda cell: lowest[cell])  # stable: hardest first among equals
    bootstraps = [name for name in methods if name in BOOTSTRAP_METHODS]
    _sequential(cells, bootstraps, found, tries, families, means, target, **settings)
    return found


def _sequential(
    cells, methods, found, tries, families, means, target, *, seed, simulations, confidence, bootstrap, workers
):
    """`_simulated`'s visit of `cells` in order for `methods`, into found[name][cell]."""
    alive = set(methods)
    futile = futility_bound(target, simulations)
    for f, m in cells:
        family, parameter = families[f]
        rng = np.random.default_rng(np.random.SeedSequence([seed, DESIGN_VERSION, f, m]))
        undecided = [name for name in methods if name in alive]
        tally = {name: [0, 0, 0.0] for name in undecided}  # covered, runs, summed width
        drawn = 0
        while undecided and drawn < simulations:
            size = min(MC_BATCH, simulations - drawn)
            passes = draw_passes(rng, family, parameter, means[m], tries, size)
            drawn += size
            bounds = batch_intervals(
                passes, tries, confidence=confidence, bootstrap=bootstrap, methods=undecided, workers=workers
            )
            for name in undecided:
                low, high = bounds[name]
                tally[name][0] += int(np.count_nonzero((low <= means[m]) & (means[m] <= high)))
                tally[name][1] += size
                tally[name][2] += float(np.nansum(high - low))
            still = []
            for name in undecided:
                low, high = _score_bounds(tally[name][0], tally[name][1], Z_DECIDE)
                if high < futile:
                    alive.discard(name)
                elif low < target:
                    still.append(name)
            undecided = still
        for name, (covered, runs, width) in tally.items():
            found[name][(f, m)] = (covered, runs, width)
        if not alive:
            return


def _top_up(name, found, printed, tries, families, means, *, seed, simulations, confidence, bootstrap, workers):
    """Simulates further the cells of `name` (a method that qualifies) that could hold its true
    worst case below its printed one by more than PRECISION: those whose score bound at Z_DECIDE
    is below its printed worst case (the lowest over every family, `printed` if none simulated is
    lower) less PRECISION, until it is not or `simulations` runs are counted. A cell's stream is
    drawn again from its start, and the method counts only the runs past those it counted: as if
    it had never stopped there. So the printed worst case is within PRECISION of every simulated
    cell's lower bound, and the worst cell's standard error at most PRECISION / Z_DECIDE where it
    stops short of `simulations`."""
    cells = found[name]

    def open_cells():  # the cells to simulate further, given the lowest estimate so far
        lowest = min(printed, *(covered / runs for covered, runs, _ in cells.values()))
        return [
            cell
            for cell, (covered, runs, _) in sorted(cells.items())
            if runs < simulations and _score_bounds(covered, runs, Z_DECIDE)[0] < lowest - PRECISION
        ]

    while chosen := open_cells():
        for f, m in chosen:
            family, parameter = families[f]
            rng = np.random.default_rng(np.random.SeedSequence([seed, DESIGN_VERSION, f, m]))
            drawn = 0
            while cells[(f, m)][1] < simulations:
                covered, runs, width = cells[(f, m)]
                lowest = min(printed, *(c / r for c, r, _ in cells.values()))
                if runs <= drawn and _score_bounds(covered, runs, Z_DECIDE)[0] >= lowest - PRECISION:
                    break
                size = min(MC_BATCH, simulations - drawn)
                passes = draw_passes(rng, family, parameter, means[m], tries, size)
                if runs <= drawn:
                    low, high = batch_intervals(
                        passes, tries, confidence=confidence, bootstrap=bootstrap, methods=[name], workers=workers
                    )[name]
                    hits = int(np.count_nonzero((low <= means[m]) & (means[m] <= high)))
                    cells[(f, m)] = (covered + hits, runs + size, width + float(np.nansum(high - low)))
                drawn += size


def coverage_design(
    profile,
    *,
    seed: int,
    simulations: int = 10_000,
    confidence: float = 0.95,
    target: float | None = None,
    bootstrap: str = "auto",
    workers: int = 1,
) -> dict:
    """Every `intervals.METHODS` method's coverage at one tries profile ((tries, tasks), …) over
    the design (see the module's docstring), the Monte Carlo seeded from `seed`. Per method: the
    worst cell, its coverage with its Monte Carlo standard error and a lower bound at Z_DECIDE
    (the chooser's), and the mean width at the Monte-Carlo means. `workers` threads share the
    work without changing a number.
    """
    profile = tuple((int(tries), int(count)) for tries, count in profile)
    _check_design_arguments(profile, simulations)
    intervals.check_confidence(confidence)
    target = confidence if target is None else target
    settings = dict(seed=seed, simulations=simulations, confidence=confidence, bootstrap=bootstrap, workers=workers)
    means = design_means(MEANS)
    determined = _deterministic(profile, means, confidence, bootstrap, workers)
    if _multisets(profile) <= ENUMERATION_MAX:
        exact = _enumerated(profile, FAMILIES, means, confidence, bootstrap, workers)
        evaluation = dict.fromkeys(exact, "exact, every distinct run enumerated")
        simulated: dict = {}
    else:
        exact, evaluation = _summed(profile, means, confidence, workers)
        simulated, how = _simulated_rest(profile, means, exact, determined, target, settings)
        evaluation |= dict.fromkeys(simulated, how)
    rows = {
        name: _exact_row(cover, width, FAMILIES, means, determined and determined[name])
        for name, (cover, width) in exact.items()
    }
    for name, cells in simulated.items():
        rows[name] = _simulated_row(cells, FAMILIES, means[::MC_STEP], determined and determined[name])
    _refine_headline(profile, rows, simulated, determined, target, settings)
    methods = {
        name: rows[name] | {"evaluation": evaluation[name]}
        if name in rows
        else UNEVALUATED | {"evaluation": NOT_EVALUATED}
        for name in intervals.METHODS
    }
    return _design_record(profile, means, methods, target, settings)


def _simulated_rest(profile, means, exact, determined, target, settings) -> tuple[dict, str]:
    """(name -> its Monte-Carlo cells, how they were evaluated) of every method not in `exact`
    that can be computed at this profile; the DETERMINISTIC family's cells are left to
    `_deterministic` where it found them."""
    tries = _profile_tries(profile)
    rest = [
        name
        for name in intervals.METHODS
        if name not in exact and (name not in BOOTSTRAP_METHODS or bootstrap_available(tries))
    ]
    deterministic = () if determined is None else (DETERMINISTIC,)
    simulated = _simulated(profile, FAMILIES, means[::MC_STEP], rest, target, exact=deterministic, **settings)
    how = "simulated (sequential Monte Carlo)" + (
        "" if determined is None else "; tasks that pass every try or none: exact, every distinct run enumerated"
    )
    return simulated, how


def _summed(profile, means, confidence, workers) -> tuple[dict, dict]:
    """(name -> (families x means) coverage and width, name -> how it was evaluated) of the
    SUM_METHODS from the distribution of the sum of task means, where that is small enough."""
    _, rest_groups, step, totals = sum_layout(profile)
    if sum(count for _, count in profile) * totals >= CONVOLUTION_MAX:
        return {}, {}
    rounded = sorted({group_tries for group_tries, _ in rest_groups if step % group_tries})
    how = (
        "from the distribution of the sum of task means, those of tasks with "
        f"{' or '.join(map(str, rounded))} tries rounded to a multiple of 1/{step}"
        if rounded
        else "exact, from the distribution of the sum of task means"
    )
    exact = _convolved(profile, FAMILIES, means, confidence, workers)
    return exact, dict.fromkeys(exact, how)


def _refine_headline(profile, rows, simulated, determined, target, settings) -> None:
    """Simulates the headline's cells further, until none could be far below its printed worst
    case (`_top_up`), for each simulated method in turn that becomes the headline; updates `rows`."""
    tries, mc_means = _profile_tries(profile), design_means(MEANS)[::MC_STEP]
    refined = set()
    while (
        name := choose_headline(
            {"tries_profile": profile, "methods": rows | dict.fromkeys(set(HEADLINE_METHODS) - set(rows), {})}, target
        )["method"]
    ) in simulated:
        if name in refined:
            break
        refined.add(name)
        _top_up(name, simulated, rows[name]["worst_coverage"], tries, FAMILIES, mc_means, **settings)
        rows[name] = _simulated_row(simulated[name], FAMILIES, mc_means, determined and determined[name])


def _design_record(profile, means, methods, target, settings) -> dict:
    """The coverage design's record: the profile, how it was evaluated and each method's row."""
    tries = _profile_tries(profile)
    median = sorted(tries.tolist())[(tries.size - 1) // 2 : tries.size // 2 + 1]
    return {
        "n_tasks": int(tries.size),
        "tries_per_task": max(1, round(sum(median) / len(median))),
        "tries_profile": [list(group) for group in profile],
        "design_version": DESIGN_VERSION,
        "seed": settings["seed"],
        "generator": (
            "numpy PCG64: the Monte-Carlo cell of family f (in `families`) and mean m (in "
            f"`simulated_pass_rates`) draws its runs, batch after batch, from SeedSequence([seed, "
            f"{DESIGN_VERSION}, f, m])"
        ),
        "simulations": settings["simulations"],
        "confidence": settings["confidence"],
        "target": target,
        "decision_z": Z_DECIDE,
        "model": MODEL,
        "design": DESIGN.format(
            count=MEANS,
            step=MC_STEP,
            near=NEAR,
            limit=ENUMERATION_MAX,
            batch=MC_BATCH,
            z=Z_DECIDE,
            precision=PRECISION,
        ),
        "families": [{"family": family, "parameter": parameter} for family, parameter in FAMILIES],
        "bootstrap": EXACT
        + (
            WINDOWED.format(tail=WINDOW_TAIL, floor=SPECTRUM_FLOOR, margin=LEVEL_MARGIN)
            if _windowed(settings["bootstrap"], tries.size, int(tries[0]))
            else ""
        ),
        "pass_rates": [float(value) for value in means],
        "simulated_pass_rates": [float(value) for value in means[::MC_STEP]],
        "correlations": [parameter for family, parameter in FAMILIES if family == "beta-binomial"],
        "methods": methods,
    }


def _exact_row(cover, width, families, means, determined=None) -> dict:
    """The row of a method computed exactly on the grid of `means`; with `determined` (its
    `_deterministic` result), the DETERMINISTIC family's worst case is its infimum over the means."""
    entries = [
        _entry(family, parameter, float(np.nanmin(cover[f])), float(means[np.nanargmin(cover[f])]))
        for f, (family, parameter) in enumerate(families)
    ]
    if determined is not None:
        entries[families.index(DETERMINISTIC)] |= {"worst_coverage": determined[0], "pass_rate": determined[1]}
    return _row(entries, {}, width[:, ::MC_STEP])


def _simulated_row(cells, families, means, determined=None) -> dict:
    """The row of a method simulated at `cells` ((family, mean) -> (covered, runs, summed width));
    with `determined`, the DETERMINISTIC family's is exact (`_deterministic`)."""
    estimates = {cell: covered / runs for cell, (covered, runs, _) in cells.items()}
    entries, bounds = [], {}
    for f, (family, parameter) in enumerate(families):
        if determined is not None and (family, parameter) == DETERMINISTIC:
            entries.append(_entry(family, parameter, determined[0], determined[1]))
            continue
        mine = [cell for cell in cells if cell[0] == f]
        if mine:
            low = min(mine, key=lambda cell: (estimates[cell], cell))
            entries.append(_entry(family, parameter, estimates[low], float(means[low[1]]), simulations=cells[low][1]))
            bounds[f] = min(float(_score_bounds(c, r, Z_DECIDE)[0]) for c, r, _ in (cells[cell] for cell in mine))
    widths = [width / runs for _, runs, width in cells.values()]
    if determined is not None:
        widths += list(determined[2][::MC_STEP])
    if not cells:
        return dict(UNEVALUATED)
    return _row(entries, bounds, np.array(widths)) | {
        "cells_simulated": len(cells),
        "simulated_runs": int(sum(runs for _, runs, _ in cells.values())),
    }


def _entry(family, parameter, coverage, pass_rate, **simulated) -> dict:
    """A method's worst case in one family (`simulations` where simulated)."""
    return {"family": family, "parameter": parameter, "worst_coverage": coverage, "pass_rate": pass_rate} | simulated


def _row(entries, bounds, widths) -> dict:
    """A method's row from its worst case in each family (`entries`, in family order, with
    "simulations" where simulated) and the lower bound of each simulated family's coverage
    (`bounds`, by family index): its worst cell over every family, the standard error there, the
    lowest bound (a bound on the worst cell's coverage whenever each cell's bound holds; exact
    coverage is its own), and the mean of its widths (NaN cells left out)."""
    f = min(range(len(entries)), key=lambda i: (entries[i]["worst_coverage"], i))
    worst = entries[f]
    coverage, runs = worst["worst_coverage"], worst.get("simulations")
    lower = min([bounds.get(i, entry["worst_coverage"]) for i, entry in enumerate(entries)])
    return {
        "worst_coverage": coverage,
        "standard_error": 0.0 if runs is None else math.sqrt(max(coverage * (1 - coverage), 1 / runs) / runs),
        "lower_bound": lower,
        "worst_cell": {"pass_rate": worst["pass_rate"], "family": worst["family"], "parameter": worst["parameter"]}
        | ({} if runs is None else {"simulations": runs}),
        "mean_width": float(np.nanmean(widths)),
        "by_family": [
            {key: entry[key] for key in ("family", "parameter", "worst_coverage", "pass_rate")} for entry in entries
        ],
    }


def _check_design_arguments(profile, simulations):
    if not profile or any(tries < 1 or count < 1 for tries, count in profile):
        raise ValueError(f"a tries profile needs positive (tries, tasks) groups, got {profile}")
    if int(simulations) != simulations or simulations < 1:
        raise ValueError(f"simulations must be a positive integer, got {simulations}")


def choose_headline(design: dict, target: float = 0.95) -> dict:
    """Among HEADLINE_METHODS (those built around the mean over tasks), the narrowest whose worst-case
    coverage has a lower bound (exact, or at Z_DECIDE over its Monte-Carlo error) reaching `target`.

    When none does, names the candidate with the highest worst-case coverage and says so in words.
    """
    methods = design["methods"]
    setting = profile_text(design["tries_profile"])
    tasks = sum(count for _, count in design["tries_profile"])
    candidates = [
        name
        for name in HEADLINE_METHODS
        if methods[name].get("worst_coverage") is not None and name not in _only_their_fallback(tasks)
    ]
    holding = [name for name in candidates if methods[name]["lower_bound"] >= target]
    if holding:
        name = min(holding, key=lambda method: (methods[method]["mean_width"], HEADLINE_METHODS.index(method)))
        row = methods[name]
        return {
            "method": name,
            "worst_coverage": row["worst_coverage"],
            "mean_width": row["mean_width"],
            "text": f"{name}: the narrowest method covering at least {target:.0%} at {setting} "
            f"(worst case {row['worst_coverage']:.1%})",
        }
    best = max(candidates, key=lambda method: (methods[method]["worst_coverage"], -HEADLINE_METHODS.index(method)))
    return {
        "method": None,
        "best": best,
        "worst_coverage": methods[best]["worst_coverage"],
        "text": f"no method reaches {target:.0%} coverage at {setting}; the best, {best}, covers "
        f"{methods[best]['worst_coverage']:.1%} in its worst case",
    }


def _only_their_fallback(tasks: int) -> set[str]:
    """The composites that, at this many tasks, are their Clopper-Pearson fallback on every run
    (the sum of task means can never be `margin` away from both 0 and n): the same intervals under
    another name, whose simulated coverage would make the choice between the two hang on the seed."""
    return {intervals.composite_name(level, margin) for level, margin in intervals.COMPOSITES if tasks < 2 * margin}


def profile_text(profile) -> str:
    """'10 tasks × 3 tries', or '4 tasks × 3 tries + 6 tasks × 4 tries'."""
    return " + ".join(f"{count} tasks × {tries} tries" for tries, count in profile)


def runs_intervals(passes: np.ndarray, tries, confidence: float = 0.95, workers: int = 1) -> list[dict]:
    """Per run (row of `passes`, every run with the same tries per task), every method's interval
    as a dict {method, over, estimate, low, high[, note]}: `batch_intervals` (on `workers`
    threads), which the coverage design measures, so a run's headline is the interval whose
    coverage was measured."""
    passes = np.asarray(passes, dtype=np.int64)
    tries = np.broadcast_to(np.asarray(tries, dtype=np.int64), passes.shape[1:])
    bounds = batch_intervals(passes, tries, confidence=confidence, workers=workers)
    rates = passes / tries
    estimates = {"tasks": rates.mean(axis=1).tolist(), "pooled": (passes.sum(axis=1) / tries.sum()).tolist()}
    same = (np.ptp(rates, axis=1) == 0).tolist()
    columns = {}
    for name in intervals.METHODS:
        if name in bounds:
            low, high = (np.where(np.isnan(side), None, side).tolist() for side in bounds[name])  # type: ignore[attr-defined]  # numpy's stubs read where(c, None, y) as where(c)
        else:
            low = high = [None] * len(passes)
        columns[name] = (
            low,
            high,
            estimates["pooled" if name in POOLED_METHODS else "tasks"],
            "trials" if name == "wilson over trials" else "tasks",
        )
    found = []
    for run in range(len(passes)):
        row = {}
        for name, (low, high, estimate, over) in columns.items():
            entry = {"method": name, "over": over, "estimate": estimate[run], "low": low[run], "high": high[run]}
            if name not in bounds:
                entry["note"] = NOT_EVALUATED
            elif name in GUARDED and same[run]:
                entry["note"] = "every task has the same pass fraction: the Clopper-Pearson bound over task means"
            row[name] = entry
        found.append(row)
    return found


def run_intervals(trials_per_task, passes_per_task, confidence: float = 0.95) -> dict:
    """`runs_intervals` of one run given its per-task trials and passes (validated)."""
    trials, passes = intervals.task_counts(trials_per_task, passes_per_task)
    if trials.size == 0:
        return {}
    return runs_intervals(passes[None, :], trials, confidence)[0]


def headline(methods: dict, design: dict, target: float) -> dict:
    """A run's headline: its interval by the method `choose_headline` picks from the design at its
    profile, with that method's coverage (`headline_fields`)."""
    name, fields = headline_fields(design, target)
    return methods[name] | fields


def headline_fields(design: dict, target: float) -> tuple[str, dict]:
    """(the headline method, what the headline adds to its interval): whether it reaches the
    target, its coverage with its Monte-Carlo error and bound, the sentence, and the design
    summarised (the methods' rows without their per-family detail). The same for every run of
    one profile, so a batch computes it once."""
    choice = choose_headline(design, target)
    name = choice["method"] or choice["best"]
    row = design["methods"][name]
    shape = ("n_tasks", "tries_per_task", "tries_profile", "design_version", "simulations", "seed")
    summary = {key: design[key] for key in (*shape, "model", "design", "bootstrap", "correlations", "families")}
    summary |= {
        "pass_rates": design["simulated_pass_rates"],
        "all_pass_rates": design["pass_rates"],
        "methods": {
            method: {key: value for key, value in found.items() if key != "by_family"}
            for method, found in design["methods"].items()
        },
    }
    return name, {
        "reaches_target": choice["method"] is not None,
        "worst_coverage": row["worst_coverage"],
        "coverage_standard_error": row["standard_error"],
        "coverage_lower_bound": row["lower_bound"],
        "coverage_evaluation": row["evaluation"],
        "text": choice["text"],
        "coverage": summary,
    }
