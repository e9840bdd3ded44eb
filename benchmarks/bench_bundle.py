"""Time the bundle and verify against the cold run on N job folders x M trials, with peak memory.

On the folders benchmarks/bench_scale.py generates (the same arguments, the same build):
  (a) a cold `snakemake --cores 2` in a fresh copy of the workflow (Docker inspection off);
  (b) `snakemake --cores 2 bundle` after it (the archive alone: every other output is there);
  (c) `benchreport verify` of that archive in an empty folder (--cores 2);
each with its wall time and the peak summed RSS of its process tree (psutil, every 50 ms).
Prints b/a and c/a. Nothing is asserted: the numbers are for reading.

    python benchmarks/bench_bundle.py --jobs 10 --trials 1000
    python benchmarks/bench_bundle.py --jobs 100 --trials 1000 --requests 20 --request-kb 5
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import bench_scale as scale


def timed(command: list[str], cwd: Path, log: Path, env: dict) -> dict:
    start = time.perf_counter()
    with open(log, "w") as handle:
        process = subprocess.Popen(command, cwd=cwd, stdout=handle, stderr=subprocess.STDOUT, env=env)
        monitor = scale.TreeMemory(process.pid)
        monitor.start()
        code = process.wait()
        monitor.stop.set()
    wall = time.perf_counter() - start
    monitor.join()
    if code != 0:
        print(log.read_text(errors="replace")[-4000:])
        raise SystemExit(f"{command[:4]} failed with {code}; log: {log}")
    return {"wall": wall, "tree_rss": monitor.peak}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=10)
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--requests", type=int, default=scale.synth.SCALE_REQUESTS)
    parser.add_argument("--request-kb", type=float, default=scale.synth.SCALE_REQUEST_KB)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--tmp", type=Path, default=Path("/tmp/benchreport-scale"))
    parser.add_argument("--regenerate", action="store_true")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="keep the workflow copy and cold run of an earlier call (its time is saved there)",
    )
    args = parser.parse_args(argv)

    name = f"{args.jobs}x{args.trials}-r{args.requests}-k{args.request_kb:g}-s{args.seed}"
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
        print("(a) the cold run of an earlier call (--reuse)")
    else:
        scale.copy_workflow(workdir)
        cold = timed(scale.snakemake_command(jobs_root), workdir, workdir / "bench-cold.log", env)
        saved.write_text(json.dumps(cold))
    print(f"(a) cold run: {cold['wall']:.1f} s, peak tree RSS {scale.fmt_bytes(cold['tree_rss'])}")
    command = scale.snakemake_command(jobs_root)
    command.insert(command.index("snakemake") + 1, "bundle")  # after --configfile/--config it would be read as one
    packed = timed(command, workdir, workdir / "bench-bundle.log", env)
    archive = workdir / "results" / "bundle" / "benchreport.tar.gz"
    print(
        f"(b) bundle: {packed['wall']:.1f} s ({packed['wall'] / cold['wall']:.2f}x cold), peak tree RSS "
        f"{scale.fmt_bytes(packed['tree_rss'])}; {scale.fmt_bytes(archive.stat().st_size)} archive"
    )
    env["PYTHONPATH"] = str(scale.REPO / "workflow" / "scripts")
    with tempfile.TemporaryDirectory(dir=args.tmp) as empty:
        checked = timed(
            [sys.executable, "-m", "benchreport", "verify", str(archive), "--cores", "2"],
            Path(empty),
            workdir / "bench-verify.log",
            env,
        )
    print(
        f"(c) verify: {checked['wall']:.1f} s ({checked['wall'] / cold['wall']:.2f}x cold), peak tree RSS "
        f"{scale.fmt_bytes(checked['tree_rss'])}"
    )
    for line in (workdir / "bench-verify.log").read_text(errors="replace").splitlines():
        if line.startswith(("manifest:", "re-run: ", "REFUSED", "MANIFEST")) and "steps (" not in line:
            print("    " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
