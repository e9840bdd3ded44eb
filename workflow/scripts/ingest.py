"""Rule ingest: one BenchFlow job folder -> trials.json (every row), index.json (its settings),
tasks.json (the task paths and digests its trials name) and ledger.json (its accounting and what
was left out)."""

import json
import sys
from pathlib import Path

from benchreport import rulejob
from benchreport.discover import JobFolder, location_file
from benchreport.files import write_json
from benchreport.ingest import ingest_job, job_ledger
from benchreport.lineage import write_for_rule
from benchreport.trial import as_columns

rulejob.start(snakemake)

job = JobFolder(**snakemake.params.job, **json.loads(location_file(snakemake.input.state).read_text()))
result = ingest_job(
    job,
    snakemake.params.max_requests,
    snakemake.params.nop_agents,
    workers=snakemake.threads,
    duplicates=json.loads(Path(snakemake.input.duplicates).read_text(encoding="utf-8")),
)
print(
    f"ingest {job.job_id}: {result['attempt_folders_found']} attempt folders, "
    f"{len(result['trials'])} trials, {len(result['ledger'])} ledger rows ({snakemake.threads} threads)",
    file=sys.stderr,
)
write_json(
    snakemake.output.trials,
    {key: as_columns(value) if key == "trials" else value for key, value in result.items() if key != "sources"},
)
write_json(snakemake.output.index, {key: result[key] for key in ("job", "settings")})
write_json(snakemake.output.tasks, {"job": result["job"]["id"], "tasks": result["tasks"]})
write_json(snakemake.output.ledger, job_ledger(result))
write_for_rule(snakemake, sources=result["sources"])
rulejob.finish()
