"""Checkpoint ingested: every job folder of the run is ingested -> results/ingested.json (the job
folders the run's plan is made from, and the batch whose files under results/ingest/ hold each;
the lineage record holds the sha256 of each index file)."""

from benchreport import rulejob
from benchreport.files import write_json
from benchreport.lineage import write_for_rule

rulejob.start(snakemake)

write_json(snakemake.output.record, {"job_folders": snakemake.params.job_folders, "batches": snakemake.params.batches})
write_for_rule(snakemake)
