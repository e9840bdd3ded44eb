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

Cost: every cell draws all its runs first, then goes through them in blocks of bounded memory.
From WINDOWED_MIN_TASKS tasks up (where a full-length FFT per run is what costs), the
distribution is summed over a window around each run's mean instead (`_windowed_bounds`): the
same bounds, in a fraction of the time.
"""

from __future__ import annotations

import concurrent.futures

import numpy as np

from . import intervals

MODEL = (
    "each task's pass probability p_i ~ Beta(μφ, (1−μ)φ) with φ = 1/ρ − 1 (mean μ, correlation ρ "
    "between two tries of one task); {tries} Bernoulli(p_i) tries for each of {tasks} tasks; "
    "an interval covers when it contains μ; an undefined interval counts as not covering"
)
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
# as it always was, unless a run has at least WINDOWED_MIN_TASKS tasks and more than
# FULL_SUPPORT_MAX possible totals (n·K + 1); then over a window (see `_windowed_bounds`), which
# is 2-15x cheaper there and agrees with it to ~1e-13 in the cdf. With fewer tasks the spectrum
# has too many frequencies that matter for the window to pay.
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


def _outcome_counts(passes: np.ndarray, tries: int) -> np.ndarray:
    """Per run (row), how many tasks passed 0, 1, … K times."""
    runs = passes.shape[0]
    cells = passes + (tries + 1) * np.arange(runs)[:, None]
    return np.bincount(cells.ravel(), minlength=runs * (tries + 1)).reshape(runs, tries + 1)


def _full_pmf(mixes: np.ndarray, tasks: int, tries: int) -> np.ndarray:
    """Per row of outcome counts, the probability of each resample total 0 … n·K: the n-fold
    convolution of the row's K+1 task outcomes, by a full-length FFT power."""
    support = tasks * tries + 1
    length = 1 << (support - 1).bit_length()
    spectrum = _power(np.fft.rfft(mixes / tasks, length, axis=1), tasks)
    pmf = np.fft.irfft(spectrum, length, axis=1)[:, :support].clip(0)
    return pmf / pmf.sum(axis=1, keepdims=True)


def _full_blocks(counts: np.ndarray, tasks: int, tries: int):
    """(runs, pmf) blocks of the exact distribution over totals 0 … n·K, computed once per
    distinct mix of outcomes; each block's work arrays hold about BLOCK_ELEMENTS numbers."""
    mixes, run_mix = np.unique(counts, axis=0, return_inverse=True)
    run_mix = run_mix.ravel()
    order = np.argsort(run_mix, kind="stable")
    rows = max(1, BLOCK_ELEMENTS // (1 << (tasks * tries).bit_length()))
    for start in range(0, len(order), rows):
        runs = order[start:start + rows]
        # runs are sorted by mix, so the block's mixes are one range of at most `rows` of them
        first, last = run_mix[runs[0]], run_mix[runs[-1]]
        yield runs, _full_pmf(mixes[first:last + 1], tasks, tries)[run_mix[runs] - first]


def _resampled_pmf(counts: np.ndarray, tasks: int, tries: int, resamples: int, rng) -> np.ndarray:
    """Per run, the share of B seeded resamples with each total 0 … n·K (drawn for all runs at once)."""
    runs = counts.shape[0]
    support = tasks * tries + 1
    totals = rng.multinomial(tasks, counts / tasks, size=(resamples, runs)) @ np.arange(tries + 1)
    cells = (totals + support * np.arange(runs)).ravel()
    return np.bincount(cells, minlength=runs * support).reshape(runs, support) / resamples


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
    """Percentile and BCa total bounds of each run, read off its distribution over 0 … n·K."""
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
        runs = order[start:start + max(1, 2 * BLOCK_ELEMENTS // width_of(reach))]
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


def _bootstrap_bounds(passes, tries, confidence, resamples, rng, bootstrap="auto"):
    """Percentile and BCa bounds of each run, read off its bootstrap distribution."""
    runs, tasks = passes.shape
    counts = _outcome_counts(passes, tries)
    totals = passes.sum(axis=1)
    redo = np.arange(runs)
    if resamples is None and _windowed(bootstrap, tasks, tries):
        found, redo = _windowed_bounds(counts, tasks, tries, totals, confidence)
    else:
        found = {name: (np.full(runs, np.nan), np.full(runs, np.nan)) for name in BOOTSTRAP_METHODS}
    if redo.size:
        acceleration = intervals.bootstrap_acceleration(passes[redo] / tries)
        if resamples is not None:
            blocks = [(np.arange(runs), _resampled_pmf(counts, tasks, tries, resamples, rng))]
        else:
            blocks = _full_blocks(counts[redo], tasks, tries)
        for block_runs, pmf in blocks:
            bounds = _read_full(pmf, totals[redo][block_runs], acceleration[block_runs], confidence)
            for name in BOOTSTRAP_METHODS:
                for column, total in zip(found[name], bounds[name]):
                    column[redo[block_runs]] = total
    return {name: tuple(column / (tasks * tries) for column in pair) for name, pair in found.items()}


def _windowed(bootstrap: str, tasks: int, tries: int) -> bool:
    if bootstrap not in ("auto", "full", "windowed"):
        raise ValueError(f"bootstrap must be 'auto', 'full' or 'windowed', got {bootstrap!r}")
    return bootstrap == "windowed" or (
        bootstrap == "auto" and tasks >= WINDOWED_MIN_TASKS and tasks * tries + 1 > FULL_SUPPORT_MAX
    )


def batch_intervals(passes: np.ndarray, tries_per_task: int, *, confidence: float = 0.95,
                    resamples: int | None = None, rng=None, bootstrap: str = "auto") -> dict:
    """Every `intervals.METHODS` interval for many runs at once.

    passes: (runs x tasks) pass counts, every task tried `tries_per_task` times.
    Returns name -> (low, high) arrays, NaN where the method is undefined for that run.
    `rng` (a numpy Generator) is needed only with `resamples`. `bootstrap` picks how the exact
    distribution is computed: "full" (full-length FFT), "windowed", or "auto" (windowed from
    WINDOWED_MIN_TASKS tasks and above FULL_SUPPORT_MAX possible totals). Runs go through in
    blocks, which bounds memory; with `resamples` all runs go at once, so that the resample
    stream stays the one drawn before (memory then grows with runs x n·K).
    """
    passes = np.asarray(passes)
    runs, tasks = passes.shape
    _windowed(bootstrap, tasks, tries_per_task)
    rows = runs if resamples is not None else max(1, BLOCK_ELEMENTS // tasks)
    blocks = [_block_intervals(passes[start:start + rows], tries_per_task, confidence, resamples, rng, bootstrap)
              for start in range(0, runs, rows)]
    return {name: tuple(np.concatenate([block[name][side] for block in blocks]) for side in (0, 1))
            for name in intervals.METHODS}


def _block_intervals(passes, tries_per_task, confidence, resamples, rng, bootstrap) -> dict:
    runs, tasks = passes.shape
    rates = passes / tries_per_task
    # every task has the same number of trials: a read-only view, not a (runs x tasks) array
    trials = np.broadcast_to(float(tries_per_task), passes.shape)
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
    bounds |= _bootstrap_bounds(passes, tries_per_task, confidence, resamples, rng, bootstrap)
    return bounds


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


def _cell(n_tasks, tries_per_task, pass_rate, correlation, seeds, *, simulations, confidence,
          resamples, bootstrap) -> dict:
    """method -> this (μ, ρ) cell's coverage, mean width and undefined share."""
    data_seed, resampling_seed = seeds.spawn(2)
    passes = simulate_passes(np.random.default_rng(data_seed), n_tasks, tries_per_task, pass_rate, correlation,
                             simulations)
    bounds = batch_intervals(passes, tries_per_task, confidence=confidence, resamples=resamples,
                             rng=np.random.default_rng(resampling_seed), bootstrap=bootstrap)
    found = {}
    for name, (low, high) in bounds.items():
        defined = ~np.isnan(low)
        found[name] = {
            "pass_rate": float(pass_rate),
            "correlation": float(correlation),
            "coverage": float(np.mean(defined & (low <= pass_rate) & (pass_rate <= high))),
            "mean_width": float(np.mean(high[defined] - low[defined])) if defined.any() else None,
            "undefined": float(np.mean(~defined)),
        }
    return found


def coverage_grid(n_tasks: int, tries_per_task: int, *, seed: int, simulations: int = 10_000,
                  pass_rates=(0.1, 0.3, 0.5, 0.7, 0.9), correlations=(0.1, 0.5, 0.9),
                  confidence: float = 0.95, resamples: int | None = None, bootstrap: str = "auto",
                  workers: int = 1) -> dict:
    """Coverage of every `intervals.METHODS` method at n_tasks x tries_per_task, by simulation.

    Each (true pass rate μ, correlation ρ) cell draws its `simulations` runs from its own numpy
    PCG64 stream, spawned in grid order from `seed` (and resamples, if any, from a second stream
    spawned from the cell's), so the same arguments give the same output however many `workers`
    threads share the cells (numpy's FFT and random draws release the GIL), and the simulated
    runs do not depend on `resamples`. Per method: worst coverage over the grid and its cell,
    mean width, and the grid. `bootstrap`: see `batch_intervals`; the output's "bootstrap" says
    which ran.
    """
    _check_grid_arguments(n_tasks, tries_per_task, simulations, pass_rates, correlations, resamples)
    intervals.check_confidence(confidence)
    windowed = _windowed(bootstrap, n_tasks, tries_per_task)
    grid_cells = [(pass_rate, correlation) for pass_rate in pass_rates for correlation in correlations]
    cell_seeds = np.random.SeedSequence(seed).spawn(len(grid_cells))

    def run(position):
        pass_rate, correlation = grid_cells[position]
        return _cell(n_tasks, tries_per_task, pass_rate, correlation, cell_seeds[position], simulations=simulations,
                     confidence=confidence, resamples=resamples, bootstrap=bootstrap)

    with concurrent.futures.ThreadPoolExecutor(max(1, workers)) as pool:
        found = list(pool.map(run, range(len(grid_cells))))
    cells = {name: [cell[name] for cell in found] for name in intervals.METHODS}
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
        "generator": ("numpy PCG64 via numpy.random.default_rng: cell i (grid order) draws its runs from "
                      "SeedSequence(seed).spawn(cells)[i].spawn(2)[0], its resamples from [1]"),
        "simulations": simulations,
        # Monte-Carlo standard error of one cell's coverage when the true coverage is 95%.
        "standard_error_at_95": float(np.sqrt(0.95 * 0.05 / simulations)),
        "confidence": confidence,
        "model": MODEL.format(tries=tries_per_task, tasks=n_tasks),
        "bootstrap": (
            f"{resamples} resamples per simulated run" if resamples is not None
            else EXACT + WINDOWED.format(tail=WINDOW_TAIL, floor=SPECTRUM_FLOOR, margin=LEVEL_MARGIN) if windowed
            else EXACT
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
