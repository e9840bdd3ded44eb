"""Time what the coverage design adds to a cold run, at the shapes of the speed targets
(200 tasks x 50 tries: at most 2 s; 1,000 x 100: at most 5 s) and a few others.

Rule coverage_design runs alone (the stats jobs wait for it), so what it adds is its whole job: a
Python process that imports the package, computes the design on the rule's threads and writes
the file. Each shape is timed that way, as a subprocess (best of --repeats), beside two baselines
measured in the same run, so that figures taken under different machine load compare as ratios
(the CPU seconds of each process tree are printed too: less sensitive to other load):
  - start: a subprocess that only imports numpy, scipy.special and benchreport.compute.coverage_design (what
    any job computing intervals pays before it starts),
  - unit: a fixed numpy workload (200 real FFTs of length 2^16 and their inverse), in-process.
With --before DIR (a workflow/scripts folder of another version, e.g. from `git archive`), the
same shapes are timed with that code too.

    PYTHONPATH=workflow/scripts python3 benchmarks/bench_coverage.py [--workers 2] [--before DIR] [shape ...]

A shape is written as the coverage files are named: 200x50, or 4x3+6x4 with unequal tries.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

SCRIPTS = Path(__file__).resolve().parent.parent / "workflow" / "scripts"
SHAPES = ("200x50", "1000x100", "1000x25", "100x3", "50x3", "10x5", "180x50+20x49")
START = "import numpy, scipy.special, benchreport.compute.coverage_design"
# What rule coverage_design's script does (workflow/scripts/coverage_design.py), less Snakemake.
JOB = """
import sys
from benchreport.compute import coverage_design, shapes
from benchreport.pipeline.outputs import dump_json, write_text
design = coverage_design.coverage_design(shapes.parse_shape(sys.argv[1]), seed=20261130, simulations=10000,
                                  confidence=0.95, workers=int(sys.argv[2]))
write_text(sys.argv[3], dump_json(design))
choice = coverage_design.choose_headline(design)
print(choice["method"] or "none (best " + choice["best"] + ")", f"{choice['worst_coverage']:.2%}")
"""


def calibration() -> float:
    """Seconds of a fixed workload: 200 real FFTs of length 2^16 and their inverse."""
    data = np.random.default_rng(0).random((200, 1 << 16))
    start = time.perf_counter()
    np.fft.irfft(np.fft.rfft(data, axis=1), axis=1)
    return time.perf_counter() - start


def timed(code: str, scripts: Path, *args) -> tuple[float, float, str]:
    """(seconds, CPU seconds, stdout) of `python -c code args` with the package from `scripts`."""
    environment = os.environ | {"PYTHONPATH": str(scripts)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", code, *args], env=environment, capture_output=True, text=True, check=True
    )
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return seconds, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, done.stdout.strip()


def best(code: str, scripts: Path, repeats: int, *args) -> tuple[float, float, str]:
    """The fastest of `repeats` runs (wall seconds, its CPU seconds, its stdout)."""
    return min(timed(code, scripts, *args) for _ in range(repeats))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--before", type=Path, help="a workflow/scripts folder of the version to compare with")
    parser.add_argument("shapes", nargs="*", default=SHAPES)
    args = parser.parse_args()
    versions = [("now", SCRIPTS)] + ([("before", args.before.resolve())] if args.before else [])
    unit = min(calibration() for _ in range(3))
    start, start_cpu, _ = best(START, SCRIPTS, args.repeats)
    print(
        f"load average {' '.join(f'{value:.1f}' for value in os.getloadavg())} on {os.cpu_count()} cores; "
        f"{args.workers} workers; best of {args.repeats}"
    )
    print(
        f"  baselines: unit (fixed numpy FFT workload) {unit:.3f} s; start (python + numpy, scipy.special, "
        f"benchreport.compute.coverage_design imported) {start:.2f} s ({start_cpu:.2f} s CPU)"
    )
    with tempfile.TemporaryDirectory() as folder:
        for name in args.shapes:
            cells = []
            for label, scripts in versions:
                seconds, cpu, headline = best(
                    JOB, scripts, args.repeats, name, str(args.workers), f"{folder}/{label}.json"
                )
                cells.append(
                    f"{label} {seconds:.2f} s ({cpu:.2f} s CPU) = {seconds / start:.1f} starts = "
                    f"{seconds / unit:.0f} units ({headline})"
                )
            same = ""
            if len(versions) > 1:
                same = (
                    "; same bytes"
                    if Path(folder, "now.json").read_bytes() == Path(folder, "before.json").read_bytes()
                    else "; bytes differ"
                )
            print(f"  {name}: " + "; ".join(cells) + same)
    print(f"load average at the end {' '.join(f'{value:.1f}' for value in os.getloadavg())}")


if __name__ == "__main__":
    main()
