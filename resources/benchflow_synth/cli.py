"""The command line: `python -m benchflow_synth {example,grid,scale,review-jobs} …`."""

from __future__ import annotations

import argparse
import os
import shutil
from pathlib import Path

from .example import build_example, example_outcome_grid
from .review import build_review_jobs
from .scale import SCALE_REQUEST_KB, SCALE_REQUESTS, build_scale

# --------------------------------------------------------------------------------------------
# CLI


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="benchflow_synth", description="Write synthetic BenchFlow 0.7.12 job folders (deterministic)."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("example", help="(re)write the embedded example folder")
    ex.add_argument("out_dir", type=Path, help="e.g. resources/example/generated (deleted first)")
    sub.add_parser("grid", help="print the example's outcome grid")
    sc = sub.add_parser("scale", help="write N job folders x M trials (for benchmarks)")
    sc.add_argument("out_dir", type=Path, help="output folder (deleted first)")
    sc.add_argument("--jobs", type=int, required=True, help="job folders (N)")
    sc.add_argument("--trials", type=int, required=True, help="trials per job folder (M)")
    sc.add_argument("--seed", type=int, default=0)
    sc.add_argument(
        "--request-kb",
        type=float,
        default=SCALE_REQUEST_KB,
        help=f"KiB per llm_trajectory.jsonl line (default {SCALE_REQUEST_KB}; 0: unpadded, about 1 KB)",
    )
    sc.add_argument(
        "--requests",
        type=int,
        default=SCALE_REQUESTS,
        help=f"request lines per trial that reached the model (default {SCALE_REQUESTS})",
    )
    sc.add_argument(
        "--workers",
        type=int,
        default=os.cpu_count() or 1,
        help="processes writing job folders (the bytes do not depend on it)",
    )
    sc.add_argument(
        "--results-steps", action="store_true", help="write the trainer steps into results.jsonl rows (bigger)"
    )
    sub.add_parser(
        "review-jobs",
        help="write small jobs with a rubric reviewer, a dataset "
        "version, a budget stop and an unpriced model (for tests)",
    ).add_argument("out_dir", type=Path, help="output folder (deleted first)")
    args = parser.parse_args(argv)
    if args.command == "grid":
        print(example_outcome_grid())
        return 0
    out = args.out_dir
    if out.resolve() in (Path("/").resolve(), Path.home().resolve(), Path.cwd().resolve()):
        parser.error(f"refusing to delete {out}")
    if out.exists():
        if not out.is_dir():
            parser.error(f"{out} exists and is not a directory")
        shutil.rmtree(out)
    if args.command == "review-jobs":
        build_review_jobs(out)
    elif args.command == "scale":
        if args.jobs < 1 or args.trials < 1 or args.requests < 1 or args.request_kb < 0:
            parser.error("--jobs, --trials and --requests must be >= 1, --request-kb >= 0")
        build_scale(
            out,
            jobs=args.jobs,
            trials=args.trials,
            seed=args.seed,
            request_kb=args.request_kb,
            requests=args.requests,
            workers=args.workers,
            results_steps=args.results_steps,
        )
    else:
        build_example(out)
    n_files = n_bytes = 0
    for folder, _, files in os.walk(out):
        n_files += len(files)
        n_bytes += sum(os.stat(os.path.join(folder, name)).st_size for name in files)
    print(f"wrote {n_files} files, {n_bytes} bytes under {out}")
    return 0
