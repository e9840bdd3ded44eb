"""Rule coverage_grid: how often each interval method covers the true pass rate at one shape
(tasks x tries), simulated once per shape and shared by every setting of that shape.

The module also tells stats.smk, before a stats job runs, which grid the setting's headline will
need (`grid_input`); the workflow imports it at parse time, so nothing heavy is imported at
module level, and the rule's own work is in `main`.
"""

# (no `from __future__ import`: Snakemake's script directive puts its preamble first)
import hashlib
import json
import os
import statistics
from collections import Counter
from pathlib import Path

# Per ingest (trials.json), what its trials tell about shapes, kept on disk by the file's size and
# mtime, so that each version of a file is read once, not at every start of snakemake.
DIGEST_CACHE = Path(".snakemake", "benchreport-coverage-shapes")
_DIGESTS: dict[str, tuple[list[int], dict]] = {}


def digest_trials(trials: list[dict]) -> dict:
    """setting -> its control kind and, per task, [trials that finished, trials that passed];
    interrupted trials are left out, as in the stats."""
    digest = {}
    for trial in trials:
        if trial["outcome"] != "interrupted":
            entry = digest.setdefault(trial["setting"], {"control": trial["control"], "tasks": {}})
            counts = entry["tasks"].setdefault(trial["task"], [0, 0])
            counts[0] += 1
            counts[1] += trial["outcome"] == "passed"
    return digest


def trial_digest(path: str, cache_dir: Path = DIGEST_CACHE) -> dict:
    """`digest_trials` of one ingest's trials.json, read once per version of the file."""
    info = os.stat(path)
    stamp = [info.st_size, info.st_mtime_ns]
    if path in _DIGESTS and _DIGESTS[path][0] == stamp:
        return _DIGESTS[path][1]
    cache = cache_dir / (hashlib.sha256(path.encode()).hexdigest()[:32] + ".json")
    try:
        stored = json.loads(cache.read_text(encoding="utf-8"))
        digest = stored["digest"] if stored["stamp"] == stamp else None
    except (OSError, ValueError, KeyError):
        digest = None
    if digest is None:
        with open(path, encoding="utf-8") as handle:
            digest = digest_trials(json.load(handle)["trials"])
        cache.parent.mkdir(parents=True, exist_ok=True)
        partial = cache.with_suffix(".tmp")
        partial.write_text(json.dumps({"stamp": stamp, "digest": digest}), encoding="utf-8")
        partial.replace(cache)
    _DIGESTS[path] = (stamp, digest)
    return digest


def coverage_shape(setting: str, digests: list[dict], on_failure: str) -> tuple[int, int] | None:
    """(tasks, tries) of the coverage grid a setting's headline needs, or None (no task scored).

    What benchreport.stats computes from the same trials (setting_stats, coverage_shape): the
    tasks with a finished trial, less those whose controls failed when on_failure is "exclude"
    (the oracle did not pass every finished try, or the nop passed one); tries is the median
    number of finished trials per task, rounded. The stats job checks the grid it is given.
    """
    finished, controls, control = Counter(), {}, None
    for digest in digests:
        for other, entry in digest.items():
            if other == setting:
                control = entry["control"]
                finished.update({task: counts[0] for task, counts in entry["tasks"].items()})
            if entry["control"]:
                for task, (trials, passed) in entry["tasks"].items():
                    cell = controls.setdefault((entry["control"], task), [0, 0])
                    cell[0] += trials
                    cell[1] += passed

    def failed(task):
        oracle, nop = controls.get(("oracle", task)), controls.get(("nop", task))
        return bool(oracle and oracle[1] < oracle[0]) or bool(nop and nop[1] > 0)

    exclude = not control and on_failure == "exclude"
    counts = [trials for task, trials in finished.items() if not (exclude and failed(task))]
    if not counts:
        return None
    return len(counts), max(1, round(statistics.median(counts)))


def grid_input(setting: str, ingests: list[str], on_failure: str) -> dict:
    """The stats rule's input for a setting's coverage grid, from the ingests its job reads."""
    shape = coverage_shape(setting, [trial_digest(path) for path in ingests], on_failure)
    return {} if shape is None else {"coverage": "results/coverage/{}x{}.json".format(*shape)}


def memory_mb(tasks: int, simulations: int) -> int:
    """The rule's mem_mb. Peak RSS measured at 10,000 simulations: 113 MB at 12 x 3, 255 at
    100 x 25, 356 at 1,000 x 5, 383 at 1,000 x 25: one cell's simulated runs (about three float64
    arrays of runs x tasks) on top of ~300 MB of interpreter and work blocks of bounded size."""
    return 300 + 3 * simulations * tasks * 8 // 2**20


def main(smk) -> None:
    import resource
    import sys
    import time

    from benchreport.coverage import coverage_grid
    from benchreport.files import dump_json, write_text
    from benchreport.lineage import write_for_rule

    sys.stderr = open(smk.log[0], "w")
    tasks, tries = int(smk.wildcards.tasks), int(smk.wildcards.tries)
    params = smk.params
    start = time.perf_counter()
    grid = coverage_grid(tasks, tries, seed=params.seed, simulations=params.simulations,
                         confidence=params.confidence, resamples=params.resamples)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(f"coverage grid at {tasks} tasks x {tries} tries, {params.simulations} simulated runs per cell: "
          f"{time.perf_counter() - start:.1f} s, peak RSS {peak} MiB; bootstrap: {grid['bootstrap']}", file=sys.stderr)
    write_text(smk.output.grid, dump_json(grid))
    write_for_rule(smk, "coverage")


if __name__ == "__main__":
    main(snakemake)  # noqa: F821 (the object Snakemake's script directive provides)
