"""Time `python -m benchreport interval` on a batch of runs against a floor measured in the same run.

The batch: RUNS runs of TASKS tasks x TRIES tries (one JSON line each). The floor reads the same
lines, parses them and computes each run's pass rate and one Wilson interval in plain Python,
which is what any tool must do at least. Both are timed as subprocesses (interpreter start
included), best of REPEATS. With --before DIR (a workflow/scripts folder of another version, e.g.
from `git archive`), the command is timed with that code too:
    python3 benchmarks/bench_interval.py [--runs 10000 --tasks 50 --tries 3] [--before DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent.parent / "workflow" / "scripts"
REPEATS = 3
FLOOR = r"""
import json, math, sys
z = 1.959963984540054
for line in open(sys.argv[1]):
    tasks = json.loads(line)["tasks"]
    rate = sum(p / k for p, k in tasks) / len(tasks)
    n = len(tasks)
    centre = (rate + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    print(json.dumps({"pass_rate": rate, "low": centre - half, "high": centre + half}))
"""


def best_of(command, scripts=SCRIPTS):
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, cwd=scripts)
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--tasks", type=int, default=50)
    parser.add_argument("--tries", type=int, default=3)
    parser.add_argument("--before", type=Path, help="a workflow/scripts folder of the version to compare with")
    args = parser.parse_args()
    rng = random.Random(0)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "runs.jsonl"
        with path.open("w") as handle:
            for _ in range(args.runs):
                rate = rng.random()
                tasks = [[sum(rng.random() < rate for _ in range(args.tries)), args.tries] for _ in range(args.tasks)]
                handle.write(json.dumps({"tasks": tasks}) + "\n")
        floor = best_of([sys.executable, "-c", FLOOR, str(path)])
        command = best_of([sys.executable, "-m", "benchreport", "interval", str(path)])
        before = args.before and best_of(
            [sys.executable, "-m", "benchreport", "interval", str(path)], args.before.resolve()
        )
    print(
        f"{args.runs} runs of {args.tasks} tasks x {args.tries} tries, best of {REPEATS}, "
        f"load average {' '.join(f'{value:.1f}' for value in os.getloadavg())} on {os.cpu_count()} cores"
    )
    print(f"  floor (parse + pass rate + one Wilson interval, plain Python): {floor:.2f} s")
    print(
        f"  python -m benchreport interval (coverage design + every method): {command:.2f} s "
        f"= {command / floor:.1f}x the floor"
    )
    if before:
        print(f"  the same with --before's code: {before:.2f} s = {before / floor:.1f}x the floor")


if __name__ == "__main__":
    main()
