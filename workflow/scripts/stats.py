"""Rule stats: the numbers of one setting from the ingested job folders it draws on."""

import sys

from benchreport.files import dump_json, load_json, write_text
from benchreport.lineage import write_for_rule
from benchreport.stats import setting_stats

sys.stderr = open(snakemake.log[0], "w")

setting = snakemake.wildcards.setting
ingests = [load_json(path) for path in snakemake.input.trials]
trials = [trial for ingest in ingests for trial in ingest["trials"]]
own_jobs = [ingest for ingest in ingests if any(t["setting"] == setting for t in ingest["trials"])]
params = snakemake.params.stats | {"failed_control": snakemake.params.failed_control}
stats = setting_stats(setting, trials, params)
stats["job_folders"] = [ingest["job"] | {"crosscheck": ingest["crosscheck"]} for ingest in own_jobs]
stats["ledger"] = [row for ingest in own_jobs for row in ingest["ledger"]]
write_text(snakemake.output.stats, dump_json(stats))
write_for_rule(snakemake, "stats")
