"""Rule coverage_grid: how often each interval method covers the true pass rate at one shape
(tasks x tries), simulated once per shape and shared by every setting of that shape.

The module also tells stats.smk, before a stats job runs, which grid the setting's headline will
need (`grid_input`, from the ingests' index.json); the workflow imports it at parse time, so
nothing heavy is imported at module level, and the rule's own work is in `main`.
"""

# (no `from __future__ import`: Snakemake's script directive puts its preamble first)
import statistics
from collections import Counter


def coverage_shape(setting: str, indexes: list[dict], on_failure: str) -> tuple[int, int] | None:
    """(tasks, tries) of the coverage grid a setting's headline needs, or None (no task scored),
    from the index.json of the ingests its stats job reads (ingest.settings_index).

    What benchreport.stats computes from the same trials (setting_stats, coverage_shape): the
    tasks with a finished trial, less those whose controls failed when on_failure is "exclude"
    (the oracle did not pass every finished try, or the nop passed one); tries is the median
    number of finished trials per task, rounded. The stats job checks the grid it is given.
    """
    finished, controls, control = Counter(), {}, None
    for index in indexes:
        for other, entry in index["settings"].items():
            kind = entry["key"]["control"]
            if other == setting:
                control = kind
                finished.update({task: counts[0] for task, counts in entry["counts"].items()})
            if kind:
                for task, (trials, passed) in entry["counts"].items():
                    cell = controls.setdefault((kind, task), [0, 0])
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


def grid_input(setting: str, indexes: list[dict], on_failure: str) -> dict:
    """The stats rule's input for a setting's coverage grid, from the ingests its job reads."""
    shape = coverage_shape(setting, indexes, on_failure)
    return {} if shape is None else {"coverage": "results/coverage/{}x{}.json".format(*shape)}


def memory_mb(tasks: int, simulations: int, threads: int = 1) -> int:
    """The rule's mem_mb. Peak RSS measured at 10,000 simulations, one thread: 113 MB at 12 x 3,
    255 at 100 x 25, 356 at 1,000 x 5, 383 at 1,000 x 25: one cell's simulated runs (about three
    float64 arrays of runs x tasks) per thread on top of ~300 MB of interpreter and work blocks of
    bounded size."""
    return 300 + threads * 3 * simulations * tasks * 8 // 2**20


def main(smk) -> None:
    import resource
    import sys
    import time

    from benchreport import rulejob
    from benchreport.coverage import coverage_grid
    from benchreport.files import dump_json, write_text
    from benchreport.lineage import write_for_rule

    rulejob.start(smk)
    tasks, tries = int(smk.wildcards.tasks), int(smk.wildcards.tries)
    params = smk.params
    start = time.perf_counter()
    grid = coverage_grid(tasks, tries, seed=params.seed, simulations=params.simulations,
                         confidence=params.confidence, resamples=params.resamples, workers=smk.threads)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(f"coverage grid at {tasks} tasks x {tries} tries, {params.simulations} simulated runs per cell, "
          f"{smk.threads} threads: "
          f"{time.perf_counter() - start:.1f} s, peak RSS {peak} MiB; bootstrap: {grid['bootstrap']}", file=sys.stderr)
    write_text(smk.output.grid, dump_json(grid))
    write_for_rule(smk, "coverage")


if __name__ == "__main__":
    main(snakemake)  # noqa: F821 (the object Snakemake's script directive provides)
