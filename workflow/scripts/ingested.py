"""Checkpoint ingested: every job folder of the run is ingested -> results/ingested.json (the job
folders the run's plan is made from, and the batch whose files under results/ingest/ hold each;
the lineage record holds the sha256 of each index file)."""

from benchreport.pipeline.lineage import start_job, write_for_rule
from benchreport.pipeline.outputs import write_json

start_job(snakemake)

write_json(snakemake.output.record, {"job_folders": snakemake.params.job_folders, "batches": snakemake.params.batches})
write_for_rule(snakemake)
