"""Type-I error, power and interval coverage of the paired comparison, by simulation.

Size: under no difference (both settings draw every try of a task from the same per-task pass rate)
with unequal tries (1 vs 10, 1 vs 5, 2 vs 3 at 5, 10, 20 and 50 shared tasks), how often the
within-task permutation test rejects at 5%, beside a sign flip of the same per-task differences
(the test it replaced). Power: with equal tries and a true difference (each task's logit moved
apart by ±θ/2, θ = 8/√(tasks × tries)), how often each test rejects. Coverage: how often the
permutation interval holds the true mean difference under such a shift with unequal tries, and the
power at the minimum detectable difference the comparisons report. Task pass rates come from
four families: beta(0.5, 0.5) (near-impossible and easy tasks), uniform on [0.2, 0.8],
logit-normal with σ = 1.5, and every task at 5% (hard tasks, where unequal tries skew the
differences most).
    PYTHONPATH=workflow/scripts python3 benchmarks/bench_paired.py [replications]
"""

from __future__ import annotations

import sys

import numpy as np
from benchreport.compute import paired
from scipy import special

ALPHA, POWER, SEED = 0.05, 0.8, 20261201
TASKS = (5, 10, 20, 50)
UNEQUAL = ((1, 10), (1, 5), (2, 3))
EQUAL = [(5, 1), (5, 3), (10, 1), (10, 3), (10, 5), (20, 1), (20, 3), (50, 3)]
COVERAGE_SHAPES = [(10, 2, 3), (20, 1, 5), (20, 1, 10), (50, 2, 3)]
SIGN_PATTERNS = 2000
CHUNK = 500  # runs convolved at once
FAMILIES = {
    "beta(0.5,0.5)": lambda rng, shape: rng.beta(0.5, 0.5, size=shape),
    "uniform(0.2,0.8)": lambda rng, shape: rng.uniform(0.2, 0.8, size=shape),
    "logit-normal(0,1.5)": lambda rng, shape: special.expit(rng.normal(0, 1.5, size=shape)),
    "hard (all 0.05)": lambda rng, shape: np.full(shape, 0.05),
}


def permutation_p(passed_a, tries_a, passed_b, tries_b):
    return np.concatenate(
        [
            paired.batch_p_values(passed_a[start : start + CHUNK], tries_a, passed_b[start : start + CHUNK], tries_b)
            for start in range(0, len(passed_a), CHUNK)
        ]
    )


def sign_flip_p(differences, rng):
    """The sign-flip test of the per-task differences, SIGN_PATTERNS random patterns shared by the runs."""
    signs = rng.choice([-1.0, 1.0], size=(SIGN_PATTERNS, differences.shape[1]))
    hits = np.sum(np.abs(differences @ signs.T) >= np.abs(differences.sum(axis=1))[:, None] - 1e-9, axis=1)
    return (1 + hits) / (1 + SIGN_PATTERNS)


def draw(rng, rates_a, tries_a, rates_b, tries_b):
    passed_a, passed_b = rng.binomial(tries_a, rates_a), rng.binomial(tries_b, rates_b)
    return passed_a, passed_b, passed_b / tries_b - passed_a / tries_a


def size_table(replications, rng):
    print("\nsize: rejections at 5% under no difference, unequal tries (limit 0.05 + 2 MC s.e.)")
    limit = ALPHA + 2 * np.sqrt(ALPHA * (1 - ALPHA) / replications)
    worst = 0.0
    for name, family in FAMILIES.items():
        for tries_a, tries_b in UNEQUAL:
            cells = []
            for tasks in TASKS:
                rates = family(rng, (replications, tasks))
                ta, tb = np.full(tasks, tries_a), np.full(tasks, tries_b)
                passed_a, passed_b, differences = draw(rng, rates, ta, rates, tb)
                permutation = np.mean(permutation_p(passed_a, ta, passed_b, tb) <= ALPHA)
                flip = np.mean(sign_flip_p(differences, rng) <= ALPHA)
                worst = max(worst, permutation)
                cells.append(f"{tasks:2d}: {permutation:.3f} / {flip:.3f}")
            print(f"{name:20s} {tries_a} vs {tries_b:2d}  permutation / sign flip  " + "  ".join(cells), flush=True)
    print(f"largest permutation rejection rate {worst:.3f} (limit {limit:.3f})")


def power_table(replications, rng):
    print("\npower at 5%, equal tries, logit shift θ = 8/√(tasks × tries): permutation / sign flip")
    for name, family in FAMILIES.items():
        cells = []
        for tasks, tries in EQUAL:
            theta = 8 / np.sqrt(tasks * tries)
            logit = special.logit(np.clip(family(rng, (replications, tasks)), 1e-6, 1 - 1e-6))
            counts = np.full(tasks, tries)
            passed_a, passed_b, differences = draw(
                rng, special.expit(logit - theta / 2), counts, special.expit(logit + theta / 2), counts
            )
            permutation = np.mean(permutation_p(passed_a, counts, passed_b, counts) <= ALPHA)
            flip = np.mean(sign_flip_p(differences, rng) <= ALPHA)
            cells.append(f"{tasks}x{tries} {permutation:.2f}/{flip:.2f}")
        print(f"{name:20s} " + "  ".join(cells), flush=True)


def coverage_table(replications, rng):
    print("\ninterval coverage of the true mean difference, unequal tries, logit shift θ (0 = no difference)")
    for name, family in FAMILIES.items():
        cells = []
        for tasks, tries_a, tries_b in COVERAGE_SHAPES:
            for theta in (0.0, 1.0):
                held = 0
                ta, tb = np.full(tasks, tries_a), np.full(tasks, tries_b)
                for _ in range(replications):
                    logit = special.logit(np.clip(family(rng, tasks), 1e-6, 1 - 1e-6))
                    rate_a, rate_b = special.expit(logit - theta / 2), special.expit(logit + theta / 2)
                    passed_a, passed_b, _ = draw(rng, rate_a, ta, rate_b, tb)
                    interval = paired.paired_comparison(
                        {i: (int(passed_a[i]), tries_a) for i in range(tasks)},
                        {i: (int(passed_b[i]), tries_b) for i in range(tasks)},
                        seed=1,
                        resamples=200,
                        power=None,
                    )["intervals"]["permutation"]
                    held += interval["low"] <= np.mean(rate_b - rate_a) <= interval["high"]
                cells.append(f"{tasks}x({tries_a} vs {tries_b}) θ={theta:g}: {held / replications:.3f}")
        print(f"{name:20s} " + "  ".join(cells), flush=True)


def detectable_table(replications, rng, reports=20):
    """The median minimum detectable difference δ the runs report under no difference, then how
    often the test rejects when the true rates move apart by δ on average (±θ/2 on the logit scale
    around each run's true task rates, the model the report assumes)."""
    print(f"\npower at the reported minimum detectable difference (claimed {POWER}), equal tries")
    for name, family in FAMILIES.items():
        cells = []
        for tasks, tries in EQUAL:
            counts = np.full(tasks, tries)
            reported = []
            for replication in range(reports):
                rates = family(rng, tasks)
                passed_a, passed_b, _ = draw(rng, rates, counts, rates, counts)
                found = paired.paired_comparison(
                    {i: (int(passed_a[i]), tries) for i in range(tasks)},
                    {i: (int(passed_b[i]), tries) for i in range(tasks)},
                    seed=replication,
                    resamples=200,
                )["minimum_detectable_difference"]["value"]
                if found is not None:
                    reported.append(found)
            if not reported:
                cells.append(f"{tasks}x{tries} none")
                continue
            delta = float(np.median(reported))
            logit = special.logit(np.clip(family(rng, (replications, tasks)), 1e-6, 1 - 1e-6))
            low, high = np.zeros(replications), np.full(replications, 40.0)
            for _ in range(50):  # each run's shift that moves its rates apart by delta on average
                middle = (low + high) / 2
                apart = np.mean(
                    special.expit(logit + middle[:, None] / 2) - special.expit(logit - middle[:, None] / 2), axis=1
                )
                low, high = np.where(apart < delta, middle, low), np.where(apart < delta, high, middle)
            passed_a, passed_b, _ = draw(
                rng, special.expit(logit - high[:, None] / 2), counts, special.expit(logit + high[:, None] / 2), counts
            )
            power = np.mean(permutation_p(passed_a, counts, passed_b, counts) <= ALPHA)
            cells.append(f"{tasks}x{tries} {delta:.3f}: {power:.2f}")
        print(f"{name:20s} " + "  ".join(cells), flush=True)


def main():
    replications = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    rng = np.random.default_rng(SEED)
    print(f"replications={replications} alpha={ALPHA} seed={SEED} (coverage: replications/10 per cell)")
    size_table(replications, rng)
    power_table(replications, rng)
    coverage_table(max(50, replications // 10), rng)
    detectable_table(replications // 2, rng)


if __name__ == "__main__":
    main()
