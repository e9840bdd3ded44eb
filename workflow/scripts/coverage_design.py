"""Rule coverage_design: how often each interval method covers the true pass rate at one shape (the
tries profile: how many tasks were tried how often), measured once per shape and shared by every
setting of that shape. Which shapes a run needs is planned by `benchreport.compute.shapes`."""

import os
import resource
import sys
import time

# BLAS on one thread, whatever the job's threads (Snakemake sets these variables to them): a BLAS
# on several threads sums in another order, and the design would move in its last bits with
# --cores. Set before numpy is imported, which reads them as it loads; the job's threads are the
# design's own workers over its families and blocks.
os.environ.update(
    dict.fromkeys(
        (
            "OMP_NUM_THREADS",
            "GOTO_NUM_THREADS",
            "OPENBLAS_NUM_THREADS",
            "MKL_NUM_THREADS",
            "VECLIB_MAXIMUM_THREADS",
            "NUMEXPR_NUM_THREADS",
        ),
        "1",
    )
)

from benchreport.compute import shapes  # noqa: E402
from benchreport.compute.coverage_design import coverage_design  # noqa: E402
from benchreport.pipeline.lineage import start_job, write_for_rule  # noqa: E402
from benchreport.pipeline.outputs import dump_json, write_text

start_job(snakemake)
shape = snakemake.wildcards.shape
profile = shapes.parse_shape(shape)
params = snakemake.params
start = time.perf_counter()
design = coverage_design(
    profile, workers=snakemake.threads, seed=params.seed, simulations=params.simulations, confidence=params.confidence
)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
print(
    f"coverage design at {shape} (tasks x tries), at most {params.simulations} simulated runs per "
    f"Monte-Carlo cell, {snakemake.threads} threads: {time.perf_counter() - start:.1f} s, peak RSS {peak} MiB",
    file=sys.stderr,
)
write_text(snakemake.output.grid, dump_json(design))
write_for_rule(snakemake)
