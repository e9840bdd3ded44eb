"""Rule coverage_design: how often each interval method covers the true pass rate at one shape (the
tries profile: how many tasks were tried how often), measured once per shape and shared by every
setting of that shape, or read from the design cache when the machine keeps one
(`benchreport.design_cache`). Which shapes a run needs is planned by `benchreport.shapes`."""

import os
import resource
import sys
import time

from benchreport import design_cache, rulejob, shapes
from benchreport.coverage_design import coverage_design
from benchreport.files import dump_json, write_text
from benchreport.lineage import write_for_rule

rulejob.start(snakemake)
# BLAS on one thread, whatever the job's threads (the rule's command sets it: run_script's
# one_blas_thread): a BLAS on several threads sums in another order, and the design would move in
# its last bits with --cores. The job's threads share the design's families and blocks.
unpinned = [name for name in rulejob.THREAD_VARIABLES if os.environ.get(name) != "1"]
if unpinned:
    sys.exit(f"coverage_design: {', '.join(unpinned)} must be 1 (rule coverage_design's command sets them)")
shape = snakemake.wildcards.shape
profile = shapes.parse_shape(shape)
params = snakemake.params
start = time.perf_counter()
folder = design_cache.cache_folder()
fields = dict(seed=params.seed, simulations=params.simulations, confidence=params.confidence)
key = design_cache.design_key(shape, code=params.code, **fields) if folder else None
text = design_cache.load(folder, key, profile=profile, **fields) if folder else None
if text is not None:
    print(f"coverage design at {shape} (tasks x tries): read from the cache {folder} ({key})", file=sys.stderr)
else:
    text = dump_json(coverage_design(profile, workers=snakemake.threads, **fields))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(
        f"coverage design at {shape} (tasks x tries), at most {params.simulations} simulated runs per "
        f"Monte-Carlo cell, {snakemake.threads} threads: {time.perf_counter() - start:.1f} s, peak RSS {peak} MiB",
        file=sys.stderr,
    )
    if folder:
        try:
            design_cache.store(folder, key, text)
            print(f"stored in the cache {folder} ({key})", file=sys.stderr)
        except OSError as error:  # a cache that cannot be written costs this run nothing
            print(f"not stored in the cache {folder}: {error}", file=sys.stderr)
write_text(snakemake.output.grid, text)
write_for_rule(snakemake)
