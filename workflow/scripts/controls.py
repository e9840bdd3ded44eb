"""Rule controls: run BenchFlow's oracle or nop on the tasks that have no such control."""

import json
from pathlib import Path

from benchreport import rulejob
from benchreport.controls import run_controls
from benchreport.files import write_json
from benchreport.lineage import write_for_rule

log = rulejob.start(snakemake)

tasks = json.loads(snakemake.params.tasks)
manifest = run_controls(
    snakemake.wildcards.kind, tasks, snakemake.params.run, Path(snakemake.params.run["jobs_dir"]), log
)
write_json(snakemake.output.manifest, manifest)
write_for_rule(snakemake)
