"""Rule controls: run BenchFlow's oracle or nop on the tasks that have no such control."""

from pathlib import Path

from benchreport.pipeline.lineage import start_job, write_for_rule
from benchreport.pipeline.outputs import load_json, write_json
from benchreport.read.controls import run_controls, tasks_lacking

log = start_job(snakemake)

indexes = [index for path in snakemake.input.indexes for index in load_json(path)["jobs"].values()]
tasks = tasks_lacking([index["settings"] for index in indexes], snakemake.wildcards.kind)
manifest = run_controls(
    snakemake.wildcards.kind, tasks, snakemake.params.run, Path(snakemake.params.run["jobs_dir"]), log
)
write_json(snakemake.output.manifest, manifest)
write_for_rule(snakemake)
