"""Before and after on the same folders: two revisions of the workflow, each in its own copy,
their edited-trial and nothing-changed runs interleaved (A B, then B A, ...) so that both see
the same machine. For a change smaller than the drift of one machine over minutes: here the
same cold run moved by 15 % within an hour, the peer's by 40 %.

    python benchmarks/bench_ab.py --before fc48bc2 --after HEAD \\
        --jobs-root /tmp/benchreport-scale/data-100x1000-r1-k1-s0-settings1/jobs --rounds 4
    python benchmarks/bench_ab.py --before fc48bc2 --shape 50x200 --settings 1 --cold-rounds 2

--jobs-root is a folder of job folders; --shape (and --settings) names one of bench_scale.py's
shapes instead, whose folders it generates under /tmp/benchreport-scale as bench_scale.py does
(or reuses, where that call made them). Each copy first
runs cold once (printed, not compared: the first one also fills the page cache). Then each round
flips the reward of one trial (bench_scale.edit_one_trial; the next round flips it back) and runs
both copies, then runs both again with nothing changed; which copy goes first alternates, so an
even number of rounds puts each first equally often. Prints every run, the medians and
after / before, and the peak memory of each copy's runs (RSS summed over the snakemake process
tree). The trial is put back as it was at the end. With --cold-rounds N, N more cold
runs of each copy come after those first two and before the rounds, each in a fresh copy of its
revision, the copies alternating likewise, and their medians are compared too.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

import bench_scale


def copy_revision(revision: str, destination: Path) -> Path:
    """The workflow (bench_scale.WORKFLOW_PATHS, those the revision has) as committed at
    `revision`, with bench_scale's config (no Docker)."""
    destination.mkdir(parents=True)
    present = subprocess.run(
        ["git", "ls-tree", "--name-only", revision, *bench_scale.WORKFLOW_PATHS],
        cwd=bench_scale.REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    archive = subprocess.run(
        ["git", "archive", revision, *present],
        cwd=bench_scale.REPO,
        capture_output=True,
        check=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(destination)], input=archive, check=True)
    (destination / "bench.yaml").write_text(bench_scale.BENCH_CONFIG)
    return destination


def shape_folders(shape: str, settings: int) -> Path:
    """The job folders of one of bench_scale's shapes, generated as bench_scale.py does (reused
    where they are already there, made by the same generator)."""
    args = argparse.Namespace(
        **bench_scale.SHAPES[shape], seed=0, settings=settings, regenerate=False, workers=os.cpu_count() or 1
    )
    data = Path("/tmp/benchreport-scale") / f"data-{bench_scale.data_name(args)}"
    data.mkdir(parents=True, exist_ok=True)
    bench_scale.generate(data, args)
    return data / "jobs"


def in_turn(copies: dict, number: int) -> list[str]:
    """The copies' labels in round `number`'s order: each goes first in every other round."""
    return list(copies) if number % 2 == 0 else list(reversed(copies))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", required=True, help="a git revision")
    parser.add_argument("--after", default="HEAD", help="a git revision (default HEAD)")
    folders = parser.add_mutually_exclusive_group(required=True)
    folders.add_argument("--jobs-root", type=Path, help="a folder of BenchFlow job folders")
    folders.add_argument("--shape", choices=sorted(bench_scale.SHAPES), help="one of bench_scale.py's shapes")
    parser.add_argument(
        "--settings",
        type=int,
        default=len(bench_scale.synth.SCALE_SETTINGS),
        help="with --shape: the settings its job folders cycle through (as bench_scale.py's --settings)",
    )
    parser.add_argument("--rounds", type=int, default=4, help="an even number (default 4)")
    parser.add_argument(
        "--cold-rounds",
        type=int,
        default=0,
        help="an even number of cold runs of each copy, each in a fresh copy, the copies alternating (default 0)",
    )
    parser.add_argument("--tmp", type=Path, default=Path("/tmp/benchreport-ab"))
    args = parser.parse_args(argv)

    if args.rounds < 2 or args.rounds % 2 or args.cold_rounds % 2:
        raise SystemExit("--rounds, --cold-rounds: even numbers, so that each copy runs first as often as the other")
    if args.tmp.exists():
        raise SystemExit(f"{args.tmp} exists: remove it or name another --tmp")
    bench_scale.SNAKEMAKE_ENV.pop("PYTHONDONTWRITEBYTECODE", None)  # as bench_scale runs them
    if args.shape:
        args.jobs_root = shape_folders(args.shape, args.settings)
    revisions = {"before": args.before, "after": args.after}
    copies = {label: copy_revision(revision, args.tmp / label) for label, revision in revisions.items()}
    print(f"before: {args.before}, after: {args.after}, folders: {args.jobs_root}")
    print(f"interpreter: {sys.executable}; load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    peaks = dict.fromkeys(copies, 0)

    def timed(label: str, workdir: Path, kind: str) -> dict:
        run = bench_scale.run_snakemake(workdir, args.jobs_root, kind)
        peaks[label] = max(peaks[label], run["tree_rss"])
        return run

    for label, workdir in copies.items():
        run = timed(label, workdir, "cold")
        print(f"cold {label}: {run['wall']:.2f} s, CPU {run['cpu']:.2f} s", flush=True)

    walls = {(kind, label): [] for kind in ("cold", "edited", "nothing changed") for label in copies}
    cpus = {key: [] for key in walls}
    for number in range(args.cold_rounds):
        for label in in_turn(copies, number):
            workdir = copy_revision(revisions[label], args.tmp / f"{label}-cold-{number}")
            run = timed(label, workdir, "cold")
            walls["cold", label].append(run["wall"])
            cpus["cold", label].append(run["cpu"])
            print(f"cold round {number + 1} {label}: {run['wall']:.2f} s, CPU {run['cpu']:.2f} s", flush=True)
            shutil.rmtree(workdir)

    edited = None
    try:
        for number in range(args.rounds):
            change = bench_scale.edit_one_trial(args.jobs_root)
            edited = edited or change  # the file as it was before the first round
            for kind in ("edited", "nothing changed"):
                for label in in_turn(copies, number):
                    run = timed(label, copies[label], f"{kind}-{number}".replace(" ", "-"))
                    walls[kind, label].append(run["wall"])
                    cpus[kind, label].append(run["cpu"])
                    print(f"round {number + 1} {kind} {label}: {run['wall']:.2f} s, CPU {run['cpu']:.2f} s", flush=True)
    finally:
        if edited is not None:
            _, path, original, stat = edited
            path.write_bytes(original)
            os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))

    for kind in ("cold", "edited", "nothing changed") if args.cold_rounds else ("edited", "nothing changed"):
        before, after = (statistics.median(walls[kind, label]) for label in copies)
        cpu_before, cpu_after = (statistics.median(cpus[kind, label]) for label in copies)
        print(
            f"{kind}: before {before:.2f} s, after {after:.2f} s, after / before {after / before:.3f}; "
            f"CPU before {cpu_before:.2f} s, after {cpu_after:.2f} s, after / before {cpu_after / cpu_before:.3f}"
        )
    print("peak tree RSS: " + ", ".join(f"{label} {bench_scale.fmt_bytes(peak)}" for label, peak in peaks.items()))
    print(f"load average when done: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
