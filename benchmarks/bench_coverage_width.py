"""How wide the headline is on realistic heterogeneous tasks, against t over task means.

For each shape, the coverage design at the workflow's defaults chooses the headline; runs are
then drawn from logit-normal tasks (σ 0.5, 1, 1.5 on the logit scale; mean pass rate 0.3, 0.5,
0.7), each task tried as often as the shape says, and the headline's median width is divided by
the median width of t over task means (95%) on the same runs. Printed per shape: the headline,
its printed worst-case coverage, the largest and smallest of the nine ratios, and what the
design cost.

    PYTHONPATH=workflow/scripts python3 benchmarks/bench_coverage_width.py [--runs 400] [shape ...]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from benchreport.compute import coverage_design, shapes

SHAPES = ("20x3", "20x10", "50x3", "50x10", "100x3", "100x10", "300x5", "1000x3", "1000x10")
SPREADS = (0.5, 1.0, 1.5)
MEANS = (0.3, 0.5, 0.7)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=400)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("shapes", nargs="*", default=SHAPES)
    args = parser.parse_args()
    print(
        "shape: headline (printed worst case) | headline / t median width over logit-normal cells: max, min | design s"
    )
    for shape in args.shapes:
        profile = shapes.parse_shape(shape)
        start = time.perf_counter()
        design = coverage_design.coverage_design(profile, seed=20261130, workers=args.workers)
        seconds = time.perf_counter() - start
        choice = coverage_design.choose_headline(design)
        name = choice["method"] or choice["best"]
        tries = coverage_design._profile_tries(profile)
        rng = np.random.default_rng(7)
        ratios = []
        for spread in SPREADS:
            for mean in MEANS:
                passes = coverage_design.draw_passes(rng, "logit-normal", spread, mean, tries, args.runs)
                bounds = coverage_design.batch_intervals(
                    passes, tries, methods=[name, "t over task means"], workers=args.workers
                )
                width = {key: np.median(high - low) for key, (low, high) in bounds.items()}
                ratios.append(width[name] / width["t over task means"])
        print(
            f"{shape}: {name} ({choice['worst_coverage']:.2%}{'' if choice['method'] else ', below target'}) | "
            f"max {max(ratios):.3f}, min {min(ratios):.3f} | {seconds:.1f} s",
            flush=True,
        )


if __name__ == "__main__":
    main()
