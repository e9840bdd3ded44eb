"""Time the coverage design at the shapes of the speed targets (200 tasks x 50 tries, 1,000 x 100)
and a few others, against a fixed numpy workload timed in the same run (so that figures taken
under different machine load can be compared as ratios):
    PYTHONPATH=workflow/scripts python3 benchmarks/bench_coverage.py [--workers 2] [shape ...]
A shape is written as the coverage files are named: 200x50, or 4x3+6x4 with unequal tries.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from benchreport import coverage, shapes

SHAPES = ("200x50", "1000x100", "100x3", "50x3", "10x5", "180x50+20x49")


def calibration() -> float:
    """Seconds of a fixed workload: 200 real FFTs of length 2^16 and their inverse."""
    data = np.random.default_rng(0).random((200, 1 << 16))
    start = time.perf_counter()
    np.fft.irfft(np.fft.rfft(data, axis=1), axis=1)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("shapes", nargs="*", default=SHAPES)
    args = parser.parse_args()
    coverage.coverage_design(((3, 3),), seed=1)  # imports, scipy's first call
    unit = min(calibration() for _ in range(3))
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; calibration {unit:.3f} s; "
          f"{args.workers} workers")
    for name in args.shapes:
        start = time.perf_counter()
        design = coverage.coverage_design(shapes.parse_shape(name), seed=20261130, workers=args.workers)
        seconds = time.perf_counter() - start
        choice = coverage.choose_headline(design)
        evaluations = sorted({row["evaluation"].split(",")[0].split(" (")[0] for row in design["methods"].values()})
        print(f"  {name}: {seconds:.2f} s = {seconds / unit:.1f} calibrations; headline "
              f"{choice['method'] or 'none (best ' + choice['best'] + ')'} at {choice['worst_coverage']:.2%}; "
              f"{'; '.join(evaluations)}")


if __name__ == "__main__":
    main()
