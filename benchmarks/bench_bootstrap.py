"""Time the task bootstrap (10,000 resamples over 1,000 tasks) against a plain-Python loop.

Prints its time and its ratio to the baseline, both measured in the same run on the same data:
    PYTHONPATH=workflow/scripts python3 benchmarks/bench_bootstrap.py
"""

from __future__ import annotations

import random
import statistics
import time

from benchreport.compute.intervals import bootstrap_tasks

TASKS, RESAMPLES = 1_000, 10_000


def python_loop(rates, resamples, seed):
    """The baseline: the same percentile bootstrap, one resample at a time."""
    rng = random.Random(seed)
    n = len(rates)
    means = sorted(sum(rates[rng.randrange(n)] for _ in range(n)) / n for _ in range(resamples))
    return means[int(0.025 * resamples)], means[int(0.975 * resamples) - 1]


def best_of(repeats, function, *args):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function(*args)
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    rng = random.Random(0)
    rates = [rng.choice([0.0, 1 / 3, 2 / 3, 1.0]) for _ in range(TASKS)]
    vectorised = best_of(5, bootstrap_tasks, rates, RESAMPLES, 1)
    baseline = best_of(1, python_loop, rates, RESAMPLES, 1)
    print(f"tasks={TASKS} resamples={RESAMPLES}")
    print(f"benchreport bootstrap_tasks:     {vectorised:.3f} s (best of 5)")
    print(f"plain-Python loop baseline:      {baseline:.3f} s")
    print(f"ratio baseline/bootstrap_tasks:     {baseline / vectorised:.1f}x")
    median = statistics.median([best_of(1, bootstrap_tasks, rates, RESAMPLES, 1) for _ in range(5)])
    print(f"median of 5 bootstrap_tasks runs: {median:.3f} s")


if __name__ == "__main__":
    main()
