"""Type-I error and power of the paired comparisons, by simulation at small numbers of shared tasks.

Under no difference (both settings draw every try of a task from the same per-task pass rate),
prints how often each paired interval excludes 0: the sign-flip interval must stay at or under
1 − confidence, the bootstrap and t intervals need not. With a true difference equal to the
minimum detectable difference the runs report (their median), prints how often the sign-flip test
rejects (the power the report claims is POWER). Task pass rates come from three families: beta(0.5, 0.5)
(near-impossible and easy tasks), uniform on [0.2, 0.8], and logit-normal with σ = 1.5.
    PYTHONPATH=workflow/scripts python3 benchmarks/bench_paired.py [replications]
"""

from __future__ import annotations

import sys

import numpy as np
from benchreport import paired

CONFIDENCE, POWER, SEED = 0.95, 0.8, 20261201
REPORTS = 40  # runs whose reported minimum detectable difference gives the median tried
SHAPES = [(5, 1), (5, 3), (10, 1), (10, 3), (10, 5), (20, 1), (20, 3), (50, 3)]
FAMILIES = {
    "beta(0.5,0.5)": lambda rng, n: rng.beta(0.5, 0.5, size=n),
    "uniform(0.2,0.8)": lambda rng, n: rng.uniform(0.2, 0.8, size=n),
    "logit-normal(0,1.5)": lambda rng, n: 1 / (1 + np.exp(-rng.normal(0, 1.5, size=n))),
}


def excludes(interval, value=0.0):
    return interval["low"] > value or interval["high"] < value


def run(rates_a, rates_b, seed, tries=None):
    """One comparison; with `tries`, its minimum detectable difference too (the costly part)."""
    tasks = [f"t{i}" for i in range(len(rates_a))]
    counts = None if tries is None else (dict.fromkeys(tasks, tries),) * 2
    return paired.paired_comparison(
        dict(zip(tasks, rates_a)),
        dict(zip(tasks, rates_b)),
        seed=seed,
        resamples=2000,
        permutations=2000,
        confidence=CONFIDENCE,
        power=POWER,
        tries=counts,
    )


def type_one(family, n, tries, replications, rng):
    counts = dict.fromkeys(("permutation", "bootstrap", "t"), 0)
    for replication in range(replications):
        p = family(rng, n)
        result = run(rng.binomial(tries, p) / tries, rng.binomial(tries, p) / tries, replication)
        for name in counts:
            counts[name] += excludes(result["intervals"][name])
    return {name: count / replications for name, count in counts.items()}


def apart(p, theta):
    logit = np.log(p / (1 - p))
    return 1 / (1 + np.exp(-(logit - theta / 2))), 1 / (1 + np.exp(-(logit + theta / 2)))


def shift_for(p, difference):
    """The logit shift θ that moves rates p apart (±θ/2) by `difference` on average."""
    low, high = 0.0, 40.0
    for _ in range(50):
        middle = (low + high) / 2
        a, b = apart(p, middle)
        low, high = (middle, high) if np.mean(b - a) < difference else (low, middle)
    return high


def power_at_reported(family, n, tries, replications, rng, reports=REPORTS):
    """The median minimum detectable difference δ the runs report under no difference, then how
    often the test rejects when the true rates move apart by δ on average (±θ/2 on the logit
    scale around each run's true task rates, the model the report assumes)."""
    reported = []
    for replication in range(reports):
        p = family(rng, n)
        value = run(rng.binomial(tries, p) / tries, rng.binomial(tries, p) / tries, replication, tries)[
            "minimum_detectable_difference"
        ]["value"]
        if value is not None:
            reported.append(value)
    if not reported:
        return None
    delta = float(np.median(reported))
    rejected = 0
    for replication in range(replications):
        p = np.clip(family(rng, n), 1e-6, 1 - 1e-6)
        a, b = apart(p, shift_for(p, delta))
        result = run(rng.binomial(tries, a) / tries, rng.binomial(tries, b) / tries, replication)
        rejected += result["p_value"] <= 1 - CONFIDENCE
    return delta, rejected / replications


def main():
    replications = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    rng = np.random.default_rng(SEED)
    print(f"replications={replications} confidence={CONFIDENCE} power={POWER} seed={SEED}")
    print(
        "type-I error (interval excludes 0 under no difference), then power at the reported "
        "minimum detectable difference"
    )
    for name, family in FAMILIES.items():
        for n, tries in SHAPES:
            error = type_one(family, n, tries, replications, rng)
            found = power_at_reported(family, n, tries, replications // 2, rng)
            power = "none reported" if found is None else f"reported {found[0]:.3f}: power {found[1]:.3f}"
            print(
                f"{name:20s} {n:3d} tasks x {tries} tries: sign-flip {error['permutation']:.3f}  "
                f"bootstrap {error['bootstrap']:.3f}  t {error['t']:.3f} | {power}",
                flush=True,
            )


if __name__ == "__main__":
    main()
