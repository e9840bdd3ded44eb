"""Rule coverage_grid: how often each interval method covers the true pass rate at one shape (the
tries profile: how many tasks were tried how often), measured once per shape and shared by every
setting of that shape.

The module also tells stats.smk, before a stats job runs, which grid the setting's headline will
need (`grid_input`, from the ingests' index.json); the workflow imports it at parse time, so
nothing heavy is imported at module level, and the rule's own work is in `main`.
"""

# (no `from __future__ import`: Snakemake's script directive puts its preamble first)
from collections import Counter

from benchreport import shapes


def coverage_shape(setting: str, indexes: list[dict], on_failure: str) -> tuple[tuple[int, int], ...] | None:
    """The tries profile of the coverage design a setting's headline needs, or None (no task scored),
    from the index.json of the ingests its stats job reads (ingest.settings_index).

    What benchreport.stats computes from the same trials (setting_stats, coverage_shape): the
    tasks with a finished trial, less those whose controls failed when on_failure is "exclude"
    (the oracle did not pass every finished try, or the nop passed one), and each one's number of
    finished trials (`shapes.tries_profile`). The stats job checks the design it is given.
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
    return shapes.tries_profile(counts)


def grid_input(setting: str, indexes: list[dict], on_failure: str) -> dict:
    """The stats rule's input for a setting's coverage grid, from the ingests its job reads."""
    shape = coverage_shape(setting, indexes, on_failure)
    return {} if shape is None else {"coverage": f"results/coverage/{shapes.shape_name(shape)}.json"}


def memory_mb(shape: str, threads: int = 1) -> int:
    """The rule's mem_mb at a shape (its file name): ~300 MB of interpreter and numpy, work blocks
    of bounded size (coverage.BLOCK_ELEMENTS, CONVOLUTION_ELEMENTS) per thread, and one
    Monte-Carlo batch (about six float64 arrays of MC_BATCH runs x tasks)."""
    tasks = sum(count for _, count in shapes.parse_shape(shape))
    return 300 + threads * (200 + 6 * 500 * tasks * 8 // 2**20)


def main(smk) -> None:
    import resource
    import sys
    import time

    from benchreport import rulejob
    from benchreport.coverage import coverage_design
    from benchreport.files import dump_json, write_text
    from benchreport.lineage import write_for_rule

    rulejob.start(smk)
    profile = shapes.parse_shape(smk.wildcards.shape)
    params = smk.params
    start = time.perf_counter()
    design = coverage_design(profile, seed=params.seed, simulations=params.simulations,
                             confidence=params.confidence, workers=smk.threads)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(f"coverage design at {smk.wildcards.shape} (tasks x tries), at most {params.simulations} simulated runs "
          f"per Monte-Carlo cell, {smk.threads} threads: {time.perf_counter() - start:.1f} s, peak RSS {peak} MiB",
          file=sys.stderr)
    write_text(smk.output.grid, dump_json(design))
    write_for_rule(smk, "coverage")


if __name__ == "__main__":
    main(snakemake)  # noqa: F821 (the object Snakemake's script directive provides)
