"""Time the bundle and verify against the cold run on N job folders x M trials, with peak memory.

On the folders benchmarks/bench_scale.py generates (the same arguments, the same build):
  (a) a cold `snakemake --cores 2` in a fresh copy of the workflow (Docker inspection off);
  (b) `snakemake --cores 2 bundle` after it (the archive alone: every other output is there);
  (c) `benchreport verify` of that archive in an empty folder (--cores 2);
each with its wall time, its CPU seconds (the tree's, from getrusage of the children), the peak
summed RSS of its process tree (psutil, every 50 ms), the largest single process (getrusage) and
the load average around it. Prints b/a and c/a against the cold run of the same call, with the
targets (peak tree RSS <= 1 GiB; bundle <= 2x, verify <= 3x the cold run at 100 x 1,000).
Nothing is asserted: the numbers are for reading. With --shape 100x1000 the folders are the
target shape's (one request line of 1 KiB a trial), as bench_scale.py builds them.

    python benchmarks/bench_bundle.py --jobs 10 --trials 1000
    python benchmarks/bench_bundle.py --shape 100x1000

With --against DIR... (other checkouts of the repository, e.g. `git worktree add` of another
commit) it runs no verify: rule bundle alone is run --rounds times in each copy's workflow, swapped
into the one workdir (whose other outputs the cold run made), the copies' order alternating by
round, and prints each copy's median seconds of the whole call and of the bundle's phases as its
log gives them.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import bench_scale as scale


def timed(command: list[str], cwd: Path, log: Path, env: dict) -> dict:
    """Run a command: wall and CPU seconds, peak summed RSS of its tree, its largest process and
    the load average at the start and at the end."""
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with open(log, "w") as handle:
        process = subprocess.Popen(command, cwd=cwd, stdout=handle, stderr=subprocess.STDOUT, env=env)
        monitor = scale.TreeMemory(process.pid)
        monitor.start()
        code = process.wait()
        monitor.stop.set()
    wall = time.perf_counter() - start
    monitor.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if code != 0:
        print(log.read_text(errors="replace")[-4000:])
        raise SystemExit(f"{command[:4]} failed with {code}; log: {log}")
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return {
        "wall": wall,
        "cpu": cpu,
        "tree_rss": monitor.peak,
        # ru_maxrss of the children is the largest one process reached so far (KiB on Linux)
        "largest_rss": after.ru_maxrss * 1024,
        "load": [load, os.getloadavg()[0]],
    }


def line(label: str, run: dict, cold: dict | None = None) -> str:
    ratio = f" = {run['wall'] / cold['wall']:.2f}x cold" if cold else ""
    return (
        f"{label}: {run['wall']:.1f} s{ratio}, CPU {run.get('cpu', float('nan')):.1f} s; peak tree RSS "
        f"{scale.fmt_bytes(run['tree_rss'])} (largest process so far {scale.fmt_bytes(run.get('largest_rss', 0))}); "
        f"load {run.get('load', [float('nan')] * 2)[0]:.1f} -> {run.get('load', [float('nan')] * 2)[1]:.1f}"
    )


# The bundle log's steps that end each phase (workflow/scripts/bundle.py's progress lines).
PHASE_ENDS = {
    "collect": "files to scan",
    "scan": "first pass done",
    "write": "second pass done",
    "crate": "files, ",
}


def phases(log: str) -> dict[str, float]:
    """Seconds of each phase of the bundle job, from the seconds its log gives each step."""
    ends: dict[str, float] = {}
    for said in log.splitlines():
        found = re.match(r"\s*([\d.]+) s  (.*)", said)
        for phase, words in PHASE_ENDS.items():
            if found and words in found.group(2) and phase not in ends:
                ends[phase] = float(found.group(1))
    starts = [0.0, *list(ends.values())[:-1]]
    return {phase: end - start for (phase, end), start in zip(ends.items(), starts)} | {"job": ends["crate"]}


def against(copies: list[Path], rounds: int, workdir: Path, jobs_root: Path, env: dict) -> None:
    """Rule bundle in each copy's workflow, alternating, `rounds` times; the medians."""
    runs: dict[Path, list[dict]] = {copy: [] for copy in copies}
    for number in range(rounds):
        for copy in copies if number % 2 == 0 else copies[::-1]:
            shutil.rmtree(workdir / "results" / "bundle", ignore_errors=True)
            shutil.rmtree(workdir / "workflow")
            shutil.copytree(copy / "workflow", workdir / "workflow", ignore=shutil.ignore_patterns("__pycache__"))
            command = scale.snakemake_command(jobs_root)
            command.insert(command.index("snakemake") + 1, "bundle")
            run = timed(command, workdir, workdir / "bench-bundle.log", env)
            run |= phases((workdir / "logs" / "bundle" / "bundle.log").read_text())
            runs[copy].append(run)
            print(f"round {number} {copy}: " + ", ".join(f"{key} {run[key]:.1f} s" for key in ("wall", *PHASE_ENDS)))
    for copy, done in runs.items():
        medians = {key: statistics.median(run[key] for run in done) for key in ("wall", "cpu", "job", *PHASE_ENDS)}
        print(
            f"{copy}: medians of {len(done)}: "
            + ", ".join(f"{key} {value:.2f} s" for key, value in medians.items())
            + f"; peak tree RSS {scale.fmt_bytes(max(run['tree_rss'] for run in done))}"
        )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shape", choices=sorted(scale.SHAPES), help="one of bench_scale.py's target shapes")
    parser.add_argument("--jobs", type=int, default=10)
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--requests", type=int, default=scale.synth.SCALE_REQUESTS)
    parser.add_argument("--request-kb", type=float, default=scale.synth.SCALE_REQUEST_KB)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--settings", type=int, default=len(scale.synth.SCALE_SETTINGS), help="as bench_scale.py's --settings"
    )
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--tmp", type=Path, default=Path("/tmp/benchreport-scale"))
    parser.add_argument("--regenerate", action="store_true")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="keep the cold run of an earlier call (its results and time are saved there); the workflow "
        "code is copied again, so only rule bundle re-runs, with this code",
    )
    parser.add_argument("--json", type=Path, help="also write the three runs' figures to this file")
    parser.add_argument("--against", type=Path, nargs="+", help="other checkouts: rule bundle alone, A/B")
    parser.add_argument("--rounds", type=int, default=4, help="with --against: runs of each copy")
    args = parser.parse_args(argv)
    if args.shape:
        for key, value in scale.SHAPES[args.shape].items():
            setattr(args, key, value)

    name = scale.data_name(args)
    data = args.tmp / f"data-{name}"
    data.mkdir(parents=True, exist_ok=True)
    scale.generate(data, args)
    jobs_root = data / "jobs"
    files, size, _ = scale.data_size(jobs_root)
    print(f"data: {args.jobs} job folders x {args.trials} trials; {files:,} files, {scale.fmt_bytes(size)}")
    workdir = args.tmp / f"wf-bundle-{name}"
    saved = workdir / "bench-cold.json"
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if args.reuse and saved.is_file():
        cold = json.loads(saved.read_text())
        shutil.rmtree(workdir / "results" / "bundle", ignore_errors=True)
        shutil.rmtree(workdir / "workflow")
        shutil.copytree(scale.REPO / "workflow", workdir / "workflow", ignore=shutil.ignore_patterns("__pycache__"))
        print("(a) the cold run of an earlier call (--reuse; the ratios are to it, not to one of this call)")
    else:
        scale.copy_workflow(workdir)
        cold = timed(scale.snakemake_command(jobs_root), workdir, workdir / "bench-cold.log", env)
        saved.write_text(json.dumps(cold))
    print(line("(a) cold run", cold))
    if args.against:
        against([scale.REPO, *(copy.resolve() for copy in args.against)], args.rounds, workdir, jobs_root, env)
        return 0
    command = scale.snakemake_command(jobs_root)
    command.insert(command.index("snakemake") + 1, "bundle")  # after --configfile/--config it would be read as one
    packed = timed(command, workdir, workdir / "bench-bundle.log", env)
    archive = workdir / "results" / "bundle" / "benchreport.tar.gz"
    print(line("(b) bundle", packed, cold) + f"; {scale.fmt_bytes(archive.stat().st_size)} archive")
    env["PYTHONPATH"] = str(scale.REPO / "workflow" / "scripts")
    with tempfile.TemporaryDirectory(dir=args.tmp) as empty:
        checked = timed(
            [sys.executable, "-m", "benchreport", "verify", str(archive), "--cores", "2"],
            Path(empty),
            workdir / "bench-verify.log",
            env,
        )
    print(line("(c) verify", checked, cold))
    print("targets at 100 x 1,000: bundle <= 2x and verify <= 3x the cold run; peak tree RSS <= 1,024 MiB")
    if args.json:
        args.json.write_text(json.dumps({"cold": cold, "bundle": packed, "verify": checked}, indent=1))
    for said in (workdir / "bench-verify.log").read_text(errors="replace").splitlines():
        if said.startswith(("manifest:", "re-run: ", "REFUSED", "MANIFEST", "verify: ")) and "steps (" not in said:
            print("    " + said)
    return 0


if __name__ == "__main__":
    sys.exit(main())
