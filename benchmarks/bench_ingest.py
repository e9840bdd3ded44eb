"""Ingest's CPU seconds against a floor that reads exactly the bytes ingest must read.

Per job folder, in a fresh process each (as rule ingest runs a folder of 1,000 attempt folders or
more in a job of its own):
  floor:  a plain Python loop that opens, reads and json.loads what ingest reads, nothing else:
          the job's summary.json; per attempt folder its config.json, result.json, solver.json
          and timing.json whole, the first --max-requests lines of
          trajectory/llm_trajectory.jsonl one by one, and every file under reviews/ and scoring/
          (reviews/<id>/result.json parsed);
  ingest: what workflow/scripts/ingest.py does between its imports and its exit:
          benchreport.read.ingest.ingest_job, then its four outputs written as it writes them
          (trials.json's rows as columns, outputs.write_json) and the sources (the bulk of the
          lineage record) serialised with outputs.dump_json.
CPU seconds are user + sys of the process and the processes it forks (getrusage), counted from
the end of its imports: "work". The processes' start (interpreter and imports) is printed
apart. Prints ingest work / floor work per shape; nothing is asserted.

    python benchmarks/bench_ingest.py --shape 100x1000 --jobs 10   # 10 of the shape's folders
    python benchmarks/bench_ingest.py --shape 100x1000-trajectories --jobs 10
    python benchmarks/bench_ingest.py --jobs 1 --trials 20000   # one large folder
    python benchmarks/bench_ingest.py --shape 100x1000 --jobs 1 --profile      # cProfile, in process

The folders are bench_scale.py's (resources/benchflow_synth scale), built under --tmp and
reused when their stamp matches.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

import bench_scale  # noqa: E402 (the shapes and the generator, from this folder)

FLOOR = r"""
import json, os, re, resource, sys, time
def cpu():
    return sum(getattr(resource.getrusage(who), f) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
               for f in ("ru_utime", "ru_stime"))
job, MAX = sys.argv[1], int(sys.argv[2])
start_cpu, wall = cpu(), time.perf_counter()
ATTEMPT = re.compile(r"^.+__[0-9a-f]{8}$")
files = parsed_bytes = 0
def parse(path, whole=True):
    global files, parsed_bytes
    try:
        with open(path, "rb") as handle:
            files += 1
            if whole:
                data = handle.read()
                parsed_bytes += len(data)
                return json.loads(data)
            for _ in range(MAX):
                line = handle.readline()
                if not line:
                    break
                parsed_bytes += len(line)
                json.loads(line)
    except FileNotFoundError:
        return None
parse(f"{job}/summary.json")
with os.scandir(job) as entries:
    attempts = sorted(e.path for e in entries if e.is_dir(follow_symlinks=False) and (
        ATTEMPT.match(e.name) or any(os.path.exists(f"{e.path}/{m}") for m in ("result.json", "config.json", "solver.json"))))
for attempt in attempts:
    for name in ("config.json", "result.json", "solver.json", "timing.json"):
        parse(f"{attempt}/{name}")
    parse(f"{attempt}/trajectory/llm_trajectory.jsonl", whole=False)
    for sub in ("reviews", "scoring"):
        for folder, _, names in os.walk(f"{attempt}/{sub}"):
            for name in names:
                path = f"{folder}/{name}"
                if sub == "reviews" and name == "result.json":
                    parse(path)
                else:
                    with open(path, "rb") as handle:
                        files += 1
                        parsed_bytes += len(handle.read())
print(json.dumps({"start": start_cpu, "work": cpu() - start_cpu, "wall": time.perf_counter() - wall,
                  "files": files, "bytes": parsed_bytes, "attempts": len(attempts)}))
"""

INGEST = r"""
import json, os, resource, sys, time
def cpu():
    return sum(getattr(resource.getrusage(who), f) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
               for f in ("ru_utime", "ru_stime"))
sys.path.insert(0, sys.argv[1])
import benchreport.read.ingest
from benchreport.read.discover import find_job_folders
from benchreport.pipeline.outputs import dump_json, write_json, write_text
from benchreport.read.ingest import ingest_job, job_ledger
from benchreport.read.trial import as_columns
assert benchreport.read.ingest.__file__.startswith(sys.argv[1]), benchreport.read.ingest.__file__
root, relpath, out, MAX = sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
job = next(job for job in find_job_folders([root]) if job.relpath == relpath)
start_cpu, wall = cpu(), time.perf_counter()
result = ingest_job(job, MAX, ["nop-agent"], duplicates={})
# the four outputs as workflow/scripts/ingest.py writes them; the sources as its lineage record holds them
write_json(f"{out}/trials.json", {k: as_columns(v) if k == "trials" else v for k, v in result.items() if k != "sources"})
write_json(f"{out}/index.json", {k: result[k] for k in ("job", "settings")})
write_json(f"{out}/tasks.json", {"job": result["job"]["id"], "tasks": result["tasks"]})
write_json(f"{out}/ledger.json", job_ledger(result))
write_text(f"{out}/sources.json", dump_json({"sources": result["sources"]}))
print(json.dumps({"start": start_cpu, "work": cpu() - start_cpu, "wall": time.perf_counter() - wall,
                  "trials": len(result["trials"]), "sources": len(result["sources"])}))
"""


def run(code: str, *args) -> dict:
    process = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True)
    if process.returncode:
        raise SystemExit(process.stderr[-3000:])
    return json.loads(process.stdout)


def measure(jobs_root: Path, out: Path, max_requests: int, codes: dict, repeats: int) -> dict:
    """Per job folder, `repeats` rounds of the floor and of each code's ingest, interleaved (the
    load moves); the least work of each is kept, and the start of that same run."""
    from benchreport.read.discover import find_job_folders

    jobs = find_job_folders([str(jobs_root)])
    totals = {name: {"start": 0.0, "work": 0.0, "wall": 0.0} for name in ["floor", *codes]}
    files = attempts = 0
    for job in jobs:
        run(FLOOR, job.path, max_requests)  # the page cache warm for all
        best: dict[str, dict] = {}
        for _ in range(repeats):
            found = {"floor": run(FLOOR, job.path, max_requests)}
            for name, scripts in codes.items():
                target = out / name / job.job_id
                found[name] = run(INGEST, scripts, job.root, job.relpath, target, max_requests)
            for name, one in found.items():
                if name not in best or one["work"] < best[name]["work"]:
                    best[name] = one
        for name, one in best.items():
            for key in ("start", "work", "wall"):
                totals[name][key] += one[key]
        files += best["floor"]["files"]
        attempts += best["floor"]["attempts"]
    return {"jobs": len(jobs), "files": files, "attempts": attempts, "totals": totals}


def profile(jobs_root: Path, max_requests: int, out: Path) -> None:
    """The INGEST snippet on the first job folder, in this process, under cProfile."""
    import cProfile
    import pstats

    from benchreport.read.discover import find_job_folders

    job = find_job_folders([str(jobs_root)])[0]
    scripts = str(REPO / "workflow" / "scripts")
    sys.argv = ["ingest", scripts, job.root, job.relpath, str(out), str(max_requests), "1"]
    namespace = {"__name__": "__main__"}
    profiler = cProfile.Profile()
    profiler.runctx(compile(INGEST, "INGEST", "exec"), namespace, namespace)
    stats = pstats.Stats(profiler).strip_dirs()
    stats.sort_stats("tottime").print_stats(25)
    stats.sort_stats("cumulative").print_stats(30)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shape", choices=sorted(bench_scale.SHAPES), help="one of bench_scale's target shapes")
    parser.add_argument("--jobs", type=int, help="job folders (default: the shape's; fewer keep its per-folder size)")
    parser.add_argument("--trials", type=int, default=1000, help="trials per job folder")
    parser.add_argument("--requests", type=int, default=1, help="request lines per trajectory")
    parser.add_argument("--request-kb", type=float, default=1, help="KiB per request line")
    parser.add_argument("--max-requests", type=int, default=bench_scale.MAX_REQUESTS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--settings", type=int, default=len(bench_scale.synth.SCALE_SETTINGS), help="as bench_scale.py's --settings"
    )
    parser.add_argument("--tmp", type=Path, default=Path("/tmp/benchreport-ingest"))
    parser.add_argument("--regenerate", action="store_true")
    parser.add_argument("--profile", action="store_true", help="cProfile one folder's ingest in this process")
    parser.add_argument("--repeats", type=int, default=3, help="rounds per folder; the least CPU of each is kept")
    parser.add_argument(
        "--before",
        help="the workflow/scripts folder of other code (e.g. `git archive` of a commit) to measure beside",
    )
    args = parser.parse_args(argv)
    jobs = args.jobs
    if args.shape:
        for key, value in bench_scale.SHAPES[args.shape].items():
            setattr(args, key, value)
    args.jobs = jobs or args.jobs or 10
    name = bench_scale.data_name(args)
    data = args.tmp / f"data-{name}"
    data.mkdir(parents=True, exist_ok=True)
    generate_args = argparse.Namespace(**vars(args), workers=os.cpu_count() or 1)
    bench_scale.generate(data, generate_args)
    print(f"load average at start: {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")
    if args.profile:
        profile(data / "jobs", args.max_requests, args.tmp / "out-profile")
        return 0
    codes = {"ingest": REPO / "workflow" / "scripts"}
    if args.before:
        codes["before"] = Path(args.before).resolve()
    found = measure(data / "jobs", args.tmp / f"out-{name}", args.max_requests, codes, args.repeats)
    totals = found["totals"]
    floor = totals["floor"]
    print(
        f"{name}: {found['jobs']} job folders, {found['attempts']:,} attempt folders, "
        f"{found['files']:,} files read by the floor; least of {args.repeats} rounds per folder"
    )
    for code in codes:
        ingest = totals[code]
        print(
            f"  {code}: CPU s (work) {ingest['work']:.2f} against the floor's {floor['work']:.2f}: "
            f"{ingest['work'] / floor['work']:.2f}x; with each process's start "
            f"{ingest['work'] + ingest['start']:.2f} against {floor['work'] + floor['start']:.2f}: "
            f"{(ingest['work'] + ingest['start']) / (floor['work'] + floor['start']):.2f}x; "
            f"wall (work) {ingest['wall']:.2f} s against {floor['wall']:.2f} s"
        )
    print(f"load average when done: {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO / "workflow" / "scripts"))
    sys.exit(main())
