"""Rule ingest: one batch of BenchFlow job folders (stamps.ingest_batches) -> trials.json (every
row), index.json (their settings), tasks.json (the task paths and digests their trials name) and
ledger.json (their accounting and what was left out), each {"jobs": {job id: that folder's}}."""

import json
import sys
from pathlib import Path

from benchreport.pipeline.lineage import finish_job, start_job, write_for_rule
from benchreport.pipeline.outputs import write_json
from benchreport.pipeline.stamps import location_file
from benchreport.read.discover import JobFolder
from benchreport.read.ingest import ingest_batch

start_job(snakemake)

jobs = [
    JobFolder(**params, **json.loads(location_file(state).read_text()))
    for params, state in zip(snakemake.params.jobs, snakemake.input.state, strict=True)
]
read = ingest_batch(
    jobs,
    [json.loads(Path(path).read_text(encoding="utf-8")) for path in snakemake.input.duplicates],
    snakemake.params.max_requests,
    snakemake.params.nop_agents,
    workers=snakemake.threads,
)
results = {job.job_id: result for job, result in zip(jobs, read, strict=True)}
for job_id, result in results.items():
    counts = result["job_ledger"]["counts"]
    print(
        f"ingest {job_id}: {counts['found']} attempt folders, {counts['in_reports']} in reports, "
        f"{len(result['ledger'])} ledger rows",
        file=sys.stderr,
    )


def per_job(part):
    return {"jobs": {job_id: part(result) for job_id, result in results.items()}}


write_json(
    snakemake.output.trials,
    per_job(lambda result: {key: value for key, value in result.items() if key not in ("sources", "job_ledger")}),
)
write_json(snakemake.output.index, per_job(lambda result: {key: result[key] for key in ("job", "settings")}))
write_json(snakemake.output.tasks, per_job(lambda result: {"job": result["job"]["id"], "tasks": result["tasks"]}))
write_json(snakemake.output.ledger, per_job(lambda result: result["job_ledger"]))
# the folders' sources one after the other, and how many each has (lineage.trial_sources)
write_for_rule(
    snakemake,
    sources=[source for result in results.values() for source in result["sources"]],
    extra={"sources_per_job": {job_id: len(result["sources"]) for job_id, result in results.items()}},
)
finish_job()
