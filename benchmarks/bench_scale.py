"""Time the whole workflow on N job folders x M trials against a bare read of the same files.

In one run, over the same generated folders (resources/benchflow_synth/, `scale`):
  (a) the floor: a bare script that reads and json-parses every file ingest must read (each
      attempt's result.json, config.json, timing.json and solver.json, the files under its
      reviews/ and scoring/ folders, each job's summary.json, the first 20 lines of each
      trajectory/llm_trajectory.jsonl), nothing else and nothing twice (bench_ingest.py holds
      ingest to it per job folder);
  (b) a cold `snakemake --cores 2` in a fresh copy of the workflow (empty results/ and
      .snakemake/), Docker inspection off (--cold-repeats K: the median of K, each in a fresh
      copy);
  (c) the run after one trial's result.json changed its reward (the median of --repeats runs);
  (d) a run with nothing changed (the median of --repeats runs);
  (e) peak memory: the largest sum of RSS over the snakemake process tree (psutil, polled every
      50 ms) and the largest single process (getrusage of the waited-for children);
  (f) Snakemake's own floor: a workflow of one rule whose output is there, in a folder of its own,
      run by the same interpreter and environment (the median of --repeats runs): Snakemake's
      start, parse and DAG with nothing to do, which no run of any workflow here takes less than,
      so it bounds what (c) and (d) can reach (c/b <= 0.05 asks c <= 0.05·b);
  (p) the peer: BenchFlow 0.7.12's own `bench eval metrics <jobs> --json` on the same folders
      (a best-of-K score, no interval, no report), --repeats rounds interleaved with (c) and (d),
      its median. --install-peer makes a Python 3.12 venv with BenchFlow for it
      (benchmarks/install_peer.sh); --peer names a `bench` already installed.
Prints b/a, b/p, c/b, d/b, and the same on CPU seconds. Nothing is asserted: the numbers are
for reading.

    python benchmarks/bench_scale.py --jobs 10 --trials 100
    python benchmarks/bench_scale.py --jobs 100 --trials 1000 --requests 20 --request-kb 5
    python benchmarks/bench_scale.py --shape 50x200 --install-peer   # one of SHAPES, with the peer
    python benchmarks/bench_scale.py ... --profile   # + dry run, discovery, ingest, stats, py-spy

The snakemake runs use this interpreter. To measure the workflow with exactly what it declares
(no other package's import hooks or plugins), run it from a fresh venv:
    python3 -m venv /tmp/venv-bench && /tmp/venv-bench/bin/pip install -r requirements.txt psutil
    /tmp/venv-bench/bin/python benchmarks/bench_scale.py --jobs 100 --trials 1000 --requests 20 --request-kb 5

The snakemake runs cache compiled bytecode as Python does by default: PYTHONDONTWRITEBYTECODE is
removed from their environment (--dont-write-bytecode keeps it), since with it every rule job
compiles the package's modules again (~0.03 s a job here). The script says whether it was set.

Generated data and workflow copies go under --tmp (default /tmp/benchreport-scale); a build
is reused when its stamp matches the arguments (--regenerate to force).
"""

from __future__ import annotations

import argparse
import cProfile
import importlib.metadata
import io
import json
import os
import pkgutil
import platform
import pstats
import re
import resource
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "resources"))
sys.path.insert(0, str(REPO / "workflow" / "scripts"))

import benchflow_synth as synth  # noqa: E402 (from resources/, put on the path above)

MAX_REQUESTS = 20

# The four folder shapes of the speed targets (job folders x trials, request lines x KiB per
# trial); the last with real-sized trajectories. The generator cycles its four settings over the
# job folders, so 50 x 200 is 200 tasks with 12-13 tries in each of four settings (--settings 1:
# 200 tasks x 50 tries in one).
SHAPES = {
    "10x100": dict(jobs=10, trials=100, requests=1, request_kb=1),
    "50x200": dict(jobs=50, trials=200, requests=1, request_kb=1),
    "100x1000": dict(jobs=100, trials=1000, requests=1, request_kb=1),
    "100x1000-trajectories": dict(jobs=100, trials=1000, requests=20, request_kb=5),
}
HERTZ = os.sysconf("SC_CLK_TCK")


# ------------------------------------------------------------------------------------------
# the machine


def machine() -> list[str]:
    import psutil

    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = psutil.virtual_memory()
    disk = shutil.disk_usage("/tmp")
    versions = {}
    for name in ("snakemake", "numpy", "scipy"):
        try:
            versions[name] = __import__(name).__version__
        except Exception:  # noqa: BLE001
            versions[name] = "?"
    return [
        f"cpu: {os.cpu_count()} x {cpu} (nproc {len(os.sched_getaffinity(0))})",
        f"memory: {memory.total / 2**30:.1f} GiB total, {memory.available / 2**30:.1f} GiB available",
        f"/tmp: {disk.free / 2**30:.0f} GiB free of {disk.total / 2**30:.0f} GiB",
        f"os: {platform.platform()}",
        f"python {platform.python_version()}, " + ", ".join(f"{name} {version}" for name, version in versions.items()),
        f"interpreter: {sys.executable} ({'a venv' if sys.prefix != sys.base_prefix else 'not a venv'}, "
        f"{len({dist.metadata['Name'] for dist in importlib.metadata.distributions()})} distributions installed)",
        "snakemake executor plugins installed (each is imported at every snakemake start): "
        + (
            ", ".join(
                sorted(
                    module.name.removeprefix("snakemake_executor_plugin_")
                    for module in pkgutil.iter_modules()
                    if module.name.startswith("snakemake_executor_plugin_")
                )
            )
            or "none"
        ),
        f"load average at start: {' '.join(Path('/proc/loadavg').read_text().split()[:3])}",
    ]


def busy_seconds() -> float:
    """CPU seconds spent busy by every core since boot (/proc/stat)."""
    fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(x) for x in fields[:8])
    return (user + nice + system + irq + softirq + steal) / HERTZ


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


# ------------------------------------------------------------------------------------------
# the data


def estimate_bytes(jobs: int, trials: int, requests: int, request_kb: float) -> int:
    """Disk the build takes: trajectories plus ~12 small files and 5 folders per trial."""
    line = max(request_kb * 1024, 1100)
    return int(jobs * trials * (0.85 * requests * line + 17 * 4096))


def generate(data: Path, args) -> float:
    stamp = data / ".bench-scale.json"
    wanted = {
        "jobs": args.jobs,
        "trials": args.trials,
        "seed": args.seed,
        "requests": args.requests,
        "request_kb": args.request_kb,
        "synth_sha": synth_digest(),
    }
    if not args.regenerate and stamp.is_file() and json.loads(stamp.read_text()) == wanted:
        print(f"reusing {data} (same arguments, same generator)")
        return 0.0
    need = estimate_bytes(args.jobs, args.trials, args.requests, args.request_kb)
    if data.exists():
        shutil.rmtree(data)
    free = shutil.disk_usage(data.parent if data.parent.exists() else "/tmp").free
    print(f"generating about {need / 2**30:.1f} GiB into {data} ({free / 2**30:.0f} GiB free)")
    if need > 0.8 * free:
        sys.exit(
            f"not enough disk: ~{need / 2**30:.1f} GiB needed, {free / 2**30:.0f} GiB "
            "free; lower --requests or --request-kb"
        )
    start = time.perf_counter()
    synth.build_scale(
        data / "jobs",
        jobs=args.jobs,
        trials=args.trials,
        seed=args.seed,
        request_kb=args.request_kb,
        requests=args.requests,
        workers=args.workers,
        settings=args.settings,
    )
    elapsed = time.perf_counter() - start
    stamp.write_text(json.dumps(wanted))
    return elapsed


def data_name(args) -> str:
    """The folders' name under --tmp: what the generator was given (bench_ingest and bench_bundle
    name theirs the same way, so they reuse one another's folders)."""
    return f"{args.jobs}x{args.trials}-r{args.requests}-k{args.request_kb:g}-s{args.seed}" + (
        f"-settings{args.settings}" if args.settings != len(synth.SCALE_SETTINGS) else ""
    )


def synth_digest() -> str:
    import hashlib

    files = sorted((REPO / "resources" / "benchflow_synth").glob("*.py"))
    return hashlib.sha256(b"".join(path.read_bytes() for path in files)).hexdigest()[:16]


def data_size(root: Path) -> tuple[int, int, int]:
    files = size = trajectory = 0
    for folder, _, names in os.walk(root):
        for name in names:
            st = os.stat(os.path.join(folder, name))
            files += 1
            size += st.st_size
            if name == "llm_trajectory.jsonl":
                trajectory += st.st_size
    return files, size, trajectory


# ------------------------------------------------------------------------------------------
# (a) the floor


FLOOR = r"""
import json, os, re, sys, time
MAX = int(sys.argv[2])
ATTEMPT = re.compile(r"^.+__[0-9a-f]{8}$")
start = time.perf_counter()
files = parsed_bytes = lines_parsed = 0
in_trajectories = 0.0
pending = [sys.argv[1]]
while pending:
    current = pending.pop()
    with os.scandir(current) as it:
        dirs = [e.path for e in it if e.is_dir(follow_symlinks=False)]
    attempts = [d for d in dirs if ATTEMPT.match(os.path.basename(d))]
    if not attempts:
        pending.extend(dirs)
        continue
    try:
        with open(os.path.join(current, "summary.json"), "rb") as f:
            data = f.read()
        json.loads(data); files += 1; parsed_bytes += len(data)
    except FileNotFoundError:
        pass
    for attempt in attempts:
        for name in ("result.json", "config.json", "timing.json", "solver.json"):
            try:
                with open(os.path.join(attempt, name), "rb") as f:
                    data = f.read()
            except FileNotFoundError:
                continue
            json.loads(data); files += 1; parsed_bytes += len(data)
        for sub in ("reviews", "scoring"):  # every file read; a reviewer's result.json parsed
            for folder, _, names in os.walk(os.path.join(attempt, sub)):
                for name in names:
                    with open(os.path.join(folder, name), "rb") as f:
                        data = f.read()
                    files += 1
                    if sub == "reviews" and name == "result.json":
                        json.loads(data); parsed_bytes += len(data)
        t0 = time.perf_counter()
        try:
            f = open(os.path.join(attempt, "trajectory", "llm_trajectory.jsonl"), "rb")
        except FileNotFoundError:
            continue
        with f:
            files += 1
            for _ in range(MAX):
                line = f.readline()
                if not line:
                    break
                json.loads(line); lines_parsed += 1; parsed_bytes += len(line)
        in_trajectories += time.perf_counter() - t0
print(json.dumps({"seconds": time.perf_counter() - start, "cpu": time.process_time(),
                  "trajectory_seconds": in_trajectories, "files": files,
                  "bytes": parsed_bytes, "lines": lines_parsed}))
"""


def run_floor(jobs_root: Path) -> dict:
    start = time.perf_counter()
    process = subprocess.run(
        [sys.executable, "-c", FLOOR, str(jobs_root), str(MAX_REQUESTS)], capture_output=True, text=True, check=True
    )
    result = json.loads(process.stdout)
    result["wall"] = time.perf_counter() - start
    return result


# ------------------------------------------------------------------------------------------
# (b)-(e) snakemake runs


def install_peer(tmp: Path) -> str:
    """BenchFlow in a Python 3.12 venv of the benchmark's own; the path of its `bench`."""
    out = subprocess.run(
        ["bash", str(REPO / "benchmarks" / "install_peer.sh"), str(tmp / "peer")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return out.strip().splitlines()[-1]


def run_peer(bench: str, jobs_root: Path) -> dict:
    """One timed `bench eval metrics --json` over the whole jobs folder."""
    cpu0 = children_cpu()
    start = time.perf_counter()
    process = subprocess.run([bench, "eval", "metrics", str(jobs_root), "--json"], capture_output=True, text=True)
    wall = time.perf_counter() - start
    if process.returncode != 0:
        raise SystemExit(f"bench eval metrics failed with {process.returncode}:\n" + process.stderr[-2000:])
    total = json.loads(process.stdout).get("total")
    return {"wall": wall, "cpu": children_cpu() - cpu0, "trials": total}


# (f): the least a Snakemake run takes here, whatever the workflow
BARE_SNAKEFILE = 'rule one:\n    output:\n        "one.txt",\n    shell:\n        "echo one > {output}"\n'


def run_bare_snakemake(folder: Path, repeats: int) -> dict:
    """The median of `repeats` runs of a one-rule workflow with nothing to do (its output made by a
    first run, which also compiles Snakemake's bytecode)."""
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    (folder / "Snakefile").write_text(BARE_SNAKEFILE)
    command = [sys.executable, "-m", "snakemake", "--cores", "2", "-q"]
    walls = []
    for _ in range(repeats + 1):
        start = time.perf_counter()
        subprocess.run(command, cwd=folder, env=SNAKEMAKE_ENV, capture_output=True, check=True)
        walls.append(time.perf_counter() - start)
    shutil.rmtree(folder, ignore_errors=True)
    return {"nothing to do": statistics.median(walls[1:]), "runs": walls[1:]}


# the config a benchmark's copy of the workflow runs with (--configfile bench.yaml): no Docker
BENCH_CONFIG = "# a benchmark's copy: no Docker\nenvironment:\n  inspect: false\n"


# What a run of the workflow reads of the repository: the Snakefile, its config, its code, and
# the workflow profile Snakemake reads beside the Snakefile where a revision has one.
WORKFLOW_PATHS = ("Snakefile", "config", "workflow", "profiles")


def copy_workflow(destination: Path, coverage_simulations: int | None = None) -> Path:
    if destination.exists():
        shutil.rmtree(destination)
    destination.mkdir(parents=True)
    for name in WORKFLOW_PATHS:
        if not (REPO / name).exists():
            continue
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, destination / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(REPO / name, destination / name)
    text = BENCH_CONFIG
    if coverage_simulations:
        text += f"statistics:\n  coverage_simulations: {coverage_simulations}\n"
    (destination / "bench.yaml").write_text(text)
    return destination


def git_state() -> str:
    def git(*args):
        return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=False).stdout

    commit = git("rev-parse", "--short", "HEAD").strip() or "?"
    prefixes = tuple(f"{name}/" if (REPO / name).is_dir() else name for name in WORKFLOW_PATHS)
    dirty = [line[3:] for line in git("status", "--porcelain").splitlines() if line[3:].startswith(prefixes)]
    return commit + (f" + uncommitted changes to {len(dirty)} workflow files" if dirty else "")


# The environment of the snakemake runs (main may remove PYTHONDONTWRITEBYTECODE from it).
SNAKEMAKE_ENV = dict(os.environ)


def snakemake_command(jobs_root: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "snakemake",
        "--cores",
        "2",
        "--configfile",
        "bench.yaml",
        "--config",
        f'job_roots=["{jobs_root}"]',
        *extra,
    ]


class TreeMemory(threading.Thread):
    """Polls the summed RSS of a process and all its descendants."""

    def __init__(self, pid: int, interval: float = 0.05):
        super().__init__(daemon=True)
        import psutil

        self.root = psutil.Process(pid)
        self.interval = interval
        self.peak = 0
        self.peak_processes = 0
        self.stop = threading.Event()

    def run(self):
        import psutil

        while not self.stop.is_set():
            try:
                procs = [self.root, *self.root.children(recursive=True)]
            except psutil.Error:
                break
            total = 0
            for proc in procs:
                try:
                    total += proc.memory_info().rss
                except psutil.Error:
                    pass
            if total > self.peak:
                self.peak, self.peak_processes = total, len(procs)
            self.stop.wait(self.interval)


def run_snakemake(
    workdir: Path, jobs_root: Path, label: str, *extra: str, spy: Path | None = None, env: dict | None = None
) -> dict:
    """One timed snakemake run (in SNAKEMAKE_ENV, `env` added); with `spy`, py-spy samples its main
    process into that file."""
    command = snakemake_command(jobs_root, *extra)
    log = workdir / f"bench-{label}.log"
    cpu0, busy0 = children_cpu(), busy_seconds()
    started = time.time()
    start = time.perf_counter()
    sampler = None
    with open(log, "w") as handle:
        process = subprocess.Popen(
            command, cwd=workdir, stdout=handle, stderr=subprocess.STDOUT, env=SNAKEMAKE_ENV | (env or {})
        )
        if spy is not None:
            sampler = subprocess.Popen(
                [
                    "py-spy",
                    "record",
                    "--nonblocking",
                    "--rate",
                    "50",
                    "--format",
                    "raw",
                    "--output",
                    str(spy),
                    "--pid",
                    str(process.pid),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        monitor = TreeMemory(process.pid)
        monitor.start()
        returncode = process.wait()
        monitor.stop.set()
    wall = time.perf_counter() - start
    if sampler is not None:
        sampler.wait(timeout=60)
    cpu, busy = children_cpu() - cpu0, busy_seconds() - busy0
    monitor.join()
    text = log.read_text(errors="replace")
    if returncode != 0:
        print(text[-4000:])
        raise SystemExit(f"snakemake ({label}) failed with {returncode}; log: {log}")
    rules, intervals = rule_times(workdir, started)
    before_first, no_job = idle_time(intervals, started, wall)
    return {
        "label": label,
        "wall": wall,
        "before_first_job": before_first,
        "no_job_running": no_job,
        "cpu": cpu,
        "other_cores": max(0.0, (busy - cpu) / wall) if wall else 0.0,
        "tree_rss": monitor.peak,
        "tree_processes": monitor.peak_processes,
        "max_process_rss": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024,
        "jobs": finished_jobs(text),
        "rules": rules,
        "log": str(log),
    }


def finished_jobs(text: str) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for rule in re.findall(r"Finished jobid: \d+ \(Rule: ([\w]+)\)", text):
        counts[rule] += 1
    return dict(sorted(counts.items()))


def rule_times(workdir: Path, since: float) -> dict[str, dict]:
    """Per rule: jobs and summed/max seconds, from .snakemake/metadata (records since `since`)."""
    jobs = {}
    folder = workdir / ".snakemake" / "metadata"
    if not folder.is_dir():
        return {}
    for entry in os.scandir(folder):
        try:
            record = json.loads(Path(entry.path).read_text())
        except (OSError, ValueError):
            continue
        if not record.get("starttime") or record.get("endtime", 0) < since:
            continue
        jobs[(record["rule"], record.get("job_hash"))] = (record["starttime"], record["endtime"])
    out: dict[str, dict] = {}
    for (rule, _), (begin, end) in jobs.items():
        entry = out.setdefault(rule, {"jobs": 0, "seconds": 0.0, "max": 0.0})
        entry["jobs"] += 1
        entry["seconds"] += end - begin
        entry["max"] = max(entry["max"], end - begin)
    return dict(sorted(out.items(), key=lambda item: -item[1]["seconds"])), sorted(jobs.values())


def idle_time(intervals: list[tuple[float, float]], since: float, wall: float) -> tuple[float, float]:
    """(seconds before the first job started, seconds of the run with no job running)."""
    if not intervals:
        return wall, wall
    covered, current = 0.0, None
    for begin, end in intervals:
        if current is None or begin > current[1]:
            if current is not None:
                covered += current[1] - current[0]
            current = [begin, end]
        else:
            current[1] = max(current[1], end)
    covered += current[1] - current[0]
    return intervals[0][0] - since, wall - covered


def edit_one_trial(jobs_root: Path) -> tuple[str, Path, bytes, os.stat_result]:
    """Flip the reward of one scored trial in the middle job folder.

    Returns a description, the path, and its original bytes and stat (to put it back after)."""
    from benchreport.read.discover import attempt_folders, find_job_folders

    jobs = find_job_folders([str(jobs_root)])
    job = jobs[len(jobs) // 2]
    for name in attempt_folders(job.path):
        path = job.path / name / "result.json"
        if not path.is_file():
            continue
        result = json.loads(path.read_text())
        rewards = result.get("rewards")
        if (
            isinstance(rewards, dict)
            and rewards.get("reward") in (0.0, 1.0)
            and not result.get("error")
            and not result.get("verifier_error")
        ):
            original, stat = path.read_bytes(), path.stat()
            before = rewards["reward"]
            rewards["reward"] = 1.0 - before
            path.write_text(json.dumps(result, indent=2) + "\n")
            return (f"{path.relative_to(jobs_root)} (reward {before} -> {1.0 - before})", path, original, stat)
    raise SystemExit("no scored trial to edit")


# ------------------------------------------------------------------------------------------
# profile


def profile_dry_run(workdir: Path, jobs_root: Path, label: str) -> dict:
    start = time.perf_counter()
    process = subprocess.run(
        snakemake_command(jobs_root, "-n", "--quiet", "rules"),
        cwd=workdir,
        capture_output=True,
        text=True,
        check=False,
        env=SNAKEMAKE_ENV,
    )
    wall = time.perf_counter() - start
    text = process.stdout + process.stderr
    counts = {}
    block = re.search(r"Job stats:\n.*?\n-+\s+-+\n(.*?)\n\n", text + "\n\n", re.DOTALL)
    if block:
        for line in block.group(1).splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[1].isdigit():
                counts[parts[0]] = int(parts[1])
    return {"label": label, "wall": wall, "jobs": counts, "returncode": process.returncode}


def profile_discovery(jobs_root: Path, scratch: Path) -> dict:
    from benchreport.pipeline import stamps
    from benchreport.read import discover

    out = {}
    start = time.perf_counter()
    jobs = discover.find_job_folders([str(jobs_root)])
    out["find_job_folders"] = time.perf_counter() - start
    state = scratch / "stamp-state"
    if state.exists():
        shutil.rmtree(state)
    start = time.perf_counter()
    stamps.refresh_folders(jobs, MAX_REQUESTS, state, lambda job: {})
    out["stamps_first_run"] = time.perf_counter() - start
    start = time.perf_counter()
    stamps.refresh_folders(jobs, MAX_REQUESTS, state, lambda job: {})
    out["stamps_unchanged"] = time.perf_counter() - start
    start = time.perf_counter()
    for job in jobs:
        stamps.stat_state(job)
    out["stat_state_only"] = time.perf_counter() - start
    out["job_folders"] = len(jobs)
    return out


def top_functions(profile: cProfile.Profile, sort: str, limit: int) -> str:
    stream = io.StringIO()
    stats = pstats.Stats(profile, stream=stream)
    stats.strip_dirs().sort_stats(sort).print_stats(limit)
    lines = stream.getvalue().splitlines()
    keep = [line for line in lines if line.strip() and not line.startswith(("   Ordered", "   List"))]
    return "\n".join(keep[-(limit + 1) :])


def profile_ingest(jobs_root: Path) -> dict:
    from benchreport.read.discover import find_job_folders
    from benchreport.read.ingest import ingest_job

    jobs = find_job_folders([str(jobs_root)])
    job = jobs[len(jobs) // 2]
    start = time.perf_counter()
    ingest_job(job, MAX_REQUESTS)
    plain = time.perf_counter() - start
    profile = cProfile.Profile()
    profile.enable()
    ingest_job(job, MAX_REQUESTS)
    profile.disable()
    return {
        "job": job.job_id,
        "seconds": plain,
        "tottime": top_functions(profile, "tottime", 14),
        "cumulative": top_functions(profile, "cumulative", 22),
    }


def profile_stats(workdir: Path) -> dict:
    import yaml
    from benchreport.compute.stats import setting_stats, setting_trials
    from snakemake.utils import validate

    config = yaml.safe_load((workdir / "config" / "config.yaml").read_text())
    validate(config, str(workdir / "config" / "schema.yaml"))  # the schema's defaults filled in
    bench = yaml.safe_load((workdir / "bench.yaml").read_text()) or {}
    params = config["statistics"] | bench.get("statistics", {}) | {"failed_control": config["controls"]["on_failure"]}
    from benchreport.pipeline.lineage import ingest_file, ingested_batches
    from benchreport.read.trial import load_ingests

    paths = [workdir / ingest_file(batch, "trials") for batch in ingested_batches(workdir)]
    trials = [trial for ingest in load_ingests(paths) for trial in ingest["trials"]]
    settings = sorted({trial["setting"] for trial in trials})
    out = {"settings": {}}
    profile = cProfile.Profile()  # one setting only: at 1,000 tasks one call takes minutes
    start = time.perf_counter()
    profile.enable()
    setting_stats(setting_trials(settings[0], trials, params["controls"]), trials, params)
    profile.disable()
    out["settings"][settings[0]] = time.perf_counter() - start
    out["cumulative"] = top_functions(profile, "cumulative", 16)
    return out


def py_spy_summary(raw: Path, limit: int = 40) -> str:
    """Inclusive share per function of py-spy's collapsed stacks (main snakemake process)."""
    inclusive: dict[str, int] = defaultdict(int)
    own: dict[str, int] = defaultdict(int)
    total = 0
    for line in raw.read_text(errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        n = int(count)
        total += n
        frames = [re.sub(r" \(.*?/site-packages/", " (", frame) for frame in stack.split(";")]
        for frame in set(frames):
            if "<frozen" not in frame and "__create_fn__" not in frame:
                inclusive[frame] += n
        own[frames[-1]] += n
    rows = [f"samples: {total}", "inclusive %  self %  function"]
    for frame, n in sorted(inclusive.items(), key=lambda item: -item[1])[:limit]:
        rows.append(f"{100 * n / total:10.1f}  {100 * own.get(frame, 0) / total:6.1f}  {frame[:140]}")
    return "\n".join(rows)


# ------------------------------------------------------------------------------------------


def fmt_bytes(n: float) -> str:
    return f"{n / 2**20:,.0f} MiB"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--shape",
        choices=sorted(SHAPES),
        help="one of the target shapes (sets --jobs, --trials, --requests, --request-kb)",
    )
    parser.add_argument(
        "--peer",
        default=os.environ.get("BENCHREPORT_BENCH"),
        help="BenchFlow's `bench` to time as the peer (default: $BENCHREPORT_BENCH)",
    )
    parser.add_argument(
        "--install-peer",
        action="store_true",
        help="install BenchFlow 0.7.12 in a Python 3.12 venv under --tmp for the peer",
    )
    parser.add_argument("--jobs", type=int, default=10, help="job folders (N)")
    parser.add_argument("--trials", type=int, default=100, help="trials per job folder (M)")
    parser.add_argument(
        "--requests", type=int, default=synth.SCALE_REQUESTS, help="request lines per trial's llm_trajectory.jsonl"
    )
    parser.add_argument("--request-kb", type=float, default=synth.SCALE_REQUEST_KB, help="KiB per request line")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--settings",
        type=int,
        default=len(synth.SCALE_SETTINGS),
        help="settings the job folders cycle through (1: every folder one try of the same tasks, "
        "so 100 x 1,000 is 1,000 tasks x 100 tries, the coverage target's shape)",
    )
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes generating the folders")
    parser.add_argument("--tmp", type=Path, default=Path("/tmp/benchreport-scale"))
    parser.add_argument("--regenerate", action="store_true")
    parser.add_argument(
        "--profile", action="store_true", help="also: dry runs, discovery/stamp files, one ingest, stats"
    )
    parser.add_argument(
        "--py-spy", action="store_true", help="sample the main snakemake process of the cold run with py-spy"
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=3,
        help="edited-trial and nothing-changed runs, each; (c) and (d) are their medians",
    )
    parser.add_argument(
        "--cold-repeats",
        type=int,
        default=1,
        help="cold runs, each in a fresh copy; (b) is their median (a cold run varies by seconds)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the workflow copy")
    parser.add_argument(
        "--dont-write-bytecode",
        action="store_true",
        help="keep PYTHONDONTWRITEBYTECODE in the snakemake runs' environment if it is set",
    )
    parser.add_argument(
        "--coverage-simulations",
        type=int,
        default=None,
        help="override statistics.coverage_simulations (default: the config's)",
    )
    args = parser.parse_args(argv)
    if args.shape:
        for key, value in SHAPES[args.shape].items():
            setattr(args, key, value)
    if args.install_peer:
        args.peer = install_peer(args.tmp)

    print("machine")
    for line in machine():
        print("  " + line)
    if "PYTHONDONTWRITEBYTECODE" in os.environ:
        if not args.dont_write_bytecode:
            del SNAKEMAKE_ENV["PYTHONDONTWRITEBYTECODE"]
        print(
            "  PYTHONDONTWRITEBYTECODE is set here; the snakemake runs "
            + (
                "keep it (--dont-write-bytecode)"
                if args.dont_write_bytecode
                else "run without it (Python's default: compiled modules are cached)"
            )
        )
    name = data_name(args)
    data = args.tmp / f"data-{name}"
    data.mkdir(parents=True, exist_ok=True)
    jobs_root = data / "jobs"
    generated = generate(data, args)
    files, size, trajectory = data_size(jobs_root)
    print(
        f"data: {args.jobs} job folders x {args.trials} trials, {args.requests} requests x "
        f"{args.request_kb:g} KiB; {files:,} files, {fmt_bytes(size)} "
        f"({fmt_bytes(trajectory)} in llm_trajectory.jsonl)"
        + (f"; generated in {generated:.1f} s with {args.workers} workers" if generated else "")
    )

    floors = [run_floor(jobs_root) for _ in range(2)]
    floor = min(floors, key=lambda f: f["seconds"])
    print(
        f"(a) floor: {floor['seconds']:.2f} s, cpu {floor['cpu']:.2f} s (runs: "
        + ", ".join(f"{f['seconds']:.2f}" for f in floors)
        + f"; {floor['files']:,} files, {floor['lines']:,} request lines, "
        f"{fmt_bytes(floor['bytes'])} parsed; {floor['trajectory_seconds']:.2f} s of it in "
        "the llm_trajectory.jsonl lines)"
    )

    print(
        f"workflow: commit {git_state()} (copied now)"
        + (f"; statistics.coverage_simulations = {args.coverage_simulations}" if args.coverage_simulations else "")
    )
    workdir = copy_workflow(args.tmp / f"wf-{name}", args.coverage_simulations)

    def spy(label):
        if not (args.py_spy and shutil.which("py-spy")):
            return None
        return workdir / f"py-spy-{label}.txt"

    peers = []

    def peer_round():
        if args.peer:
            peers.append(run_peer(args.peer, jobs_root))

    peer_round()
    runs = {"cold": run_snakemake(workdir, jobs_root, "cold", spy=spy("cold"))}
    colds = [runs["cold"]]
    for repeat in range(2, args.cold_repeats + 1):  # more cold runs, each in a fresh copy
        label = f"cold-{repeat}"
        fresh = copy_workflow(args.tmp / f"wf-{label}-{name}", args.coverage_simulations)
        runs[label] = run_snakemake(fresh, jobs_root, label)
        colds.append(runs[label])
        shutil.rmtree(fresh, ignore_errors=True)
    edited_runs, nochange_runs = [], []
    edited, edited_path, original, stat = edit_one_trial(jobs_root)
    try:
        for repeat in range(1, args.repeats + 1):
            if repeat > 1:  # the same trial again, its reward flipped back
                edited = edit_one_trial(jobs_root)[0]
            label = f"edited-{repeat}"
            runs[label] = run_snakemake(workdir, jobs_root, label, spy=spy(label))
            edited_runs.append(runs[label]["wall"])
            if repeat > 1:
                peer_round()
        for repeat in range(1, args.repeats + 1):
            label = f"nochange-{repeat}"
            runs[label] = run_snakemake(workdir, jobs_root, label, spy=spy(label))
            nochange_runs.append(runs[label]["wall"])
        if args.profile:
            dry = profile_dry_run(workdir, jobs_root, "dry run, stamp state present")
    finally:  # leave the generated data as generated
        edited_path.write_bytes(original)
        os.utime(edited_path, ns=(stat.st_atime_ns, stat.st_mtime_ns))

    bare = run_bare_snakemake(args.tmp / f"bare-{name}", args.repeats)
    a, b = floor["seconds"], statistics.median(run["wall"] for run in colds)
    c, d = statistics.median(edited_runs), statistics.median(nochange_runs)
    cold_walls = ", ".join(f"{run['wall']:.2f}" for run in colds)
    print(f"(b) cold run:      {b:8.2f} s   median of {len(colds)} runs ({cold_walls} s)")
    print(
        f"(c) edited trial:  {c:8.2f} s   median of {len(edited_runs)} runs, each after flipping "
        f"the reward of {edited.split(' (')[0]} ({', '.join(f'{w:.2f}' for w in edited_runs)} s)"
    )
    print(
        f"(d) nothing new:   {d:8.2f} s   median of {len(nochange_runs)} runs "
        f"({', '.join(f'{w:.2f}' for w in nochange_runs)} s)"
    )
    print(
        f"(f) Snakemake alone, nothing to do: {bare['nothing to do']:.2f} s   median of {args.repeats} runs "
        f"({', '.join(f'{w:.2f}' for w in bare['runs'])} s); c/b <= 0.05 asks c <= {0.05 * b:.2f} s, d/f = "
        f"{d / bare['nothing to do']:.2f}"
    )
    peak = max(run["tree_rss"] for run in runs.values())
    single = max(run["max_process_rss"] for run in runs.values())
    print(
        f"(e) peak memory:   {fmt_bytes(peak)} summed over the process tree, {fmt_bytes(single)} largest single process"
    )
    if peers:
        p = statistics.median(peer["wall"] for peer in peers)
        rounds = ", ".join(f"{peer['wall']:.2f}" for peer in peers)
        print(
            f"(p) BenchFlow metrics: {p:8.2f} s   median of {len(peers)} rounds "
            f"({rounds} s; {peers[0]['trials']} trials)"
        )
    print(
        f"ratios: b/a = {b / a:.2f}, c/b = {c / b:.3f}, d/b = {d / b:.3f}" + (f", b/p = {b / p:.2f}" if peers else "")
    )
    ca, cb = floor["cpu"], statistics.median(run["cpu"] for run in colds)
    cc = statistics.median(runs[f"edited-{k}"]["cpu"] for k in range(1, args.repeats + 1))
    cd = statistics.median(runs[f"nochange-{k}"]["cpu"] for k in range(1, args.repeats + 1))
    cp = statistics.median(peer["cpu"] for peer in peers) if peers else None
    print(
        f"same on CPU seconds (less sensitive to other load): a {ca:.2f}, b {cb:.2f}, "
        f"c {cc:.2f}, d {cd:.2f}"
        + (f", p {cp:.2f}" if peers else "")
        + f"; b/a = {cb / ca:.2f}, c/b = {cc / cb:.3f}, d/b = {cd / cb:.3f}"
        + (f", b/p = {cb / cp:.2f}" if peers else "")
    )
    print(f"load average when done: {os.getloadavg()[0]:.2f}")
    print(
        "targets (2 cores): b/p <= 1.0 at 10,000 and 100,000 trials (2.0 at 1,000); c/b <= 0.05; "
        "d < 1 s at 1,000 trials, < 2 s at 100,000; peak tree RSS <= 1 GiB"
    )
    print("\nper run: wall, CPU of the tree, other load, peak tree RSS, jobs run")
    for run in runs.values():
        print(
            f"  {run['label']:9s} {run['wall']:8.2f} s  cpu {run['cpu']:8.2f} s  "
            f"other {run['other_cores']:.2f} cores  rss {fmt_bytes(run['tree_rss'])} "
            f"({run['tree_processes']} procs)  jobs {run['jobs']}"
        )
    print("\nper rule (from .snakemake/metadata): jobs, summed s, max s")
    for run in runs.values():
        print(f"  {run['label']}:")
        for rule, entry in run["rules"].items():
            print(f"    {rule:14s} {entry['jobs']:5d} {entry['seconds']:9.2f} {entry['max']:8.2f}")
        print(
            f"    parse + DAG before the first job: {run['before_first_job']:.2f} s; "
            f"no job running for {run['no_job_running']:.2f} s of {run['wall']:.2f} s"
        )

    report = {
        "args": vars(args) | {"tmp": str(args.tmp)},
        "machine": machine(),
        "commit": git_state(),
        "floor": floors,
        "snakemake_alone": bare,
        "runs": runs,
        "peer": peers,
        "edited": edited,
        "generated_seconds": generated,
        "files": files,
        "bytes": size,
    }
    for label in runs:
        raw = workdir / f"py-spy-{label}.txt"
        if args.py_spy and raw.exists():
            text = py_spy_summary(raw)
            print(f"\npy-spy (50 Hz, CPU samples only), main snakemake process, {label} run:\n" + text)
            report.setdefault("py_spy", {})[label] = text
    if args.profile:
        print("\nprofile")
        print(f"  snakemake -n (after the runs): {dry['wall']:.2f} s, jobs {dry['jobs']}")
        fresh = copy_workflow(args.tmp / f"wf-dry-{name}", args.coverage_simulations)
        dry_cold = profile_dry_run(fresh, jobs_root, "dry run, fresh copy")
        print(f"  snakemake -n (fresh copy, no stamp state): {dry_cold['wall']:.2f} s, jobs {dry_cold['jobs']}")
        shutil.rmtree(fresh, ignore_errors=True)
        discovery = profile_discovery(jobs_root, args.tmp / f"scratch-{name}")
        print(
            "  discovery: "
            + ", ".join(
                f"{key} {value:.2f} s" if isinstance(value, float) else f"{key} {value}"
                for key, value in discovery.items()
            )
        )
        ingest = profile_ingest(jobs_root)
        print(f"  ingest_job({ingest['job']}): {ingest['seconds']:.2f} s")
        print("  by own time:\n" + ingest["tottime"])
        print("  by cumulative time:\n" + ingest["cumulative"])
        stats = profile_stats(workdir)
        print("  setting_stats (under cProfile): " + ", ".join(f"{k} {v:.2f} s" for k, v in stats["settings"].items()))
        print(stats["cumulative"])
        report["profile"] = {
            "dry_warm": dry,
            "dry_fresh": dry_cold,
            "discovery": discovery,
            "ingest": ingest,
            "stats": stats,
        }
    out = args.tmp / f"report-{name}.json"
    out.write_text(json.dumps(report, indent=1, default=str))
    print(f"\nreport: {out}")
    if not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
