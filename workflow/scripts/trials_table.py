"""Rule trials_table: results/trials.csv, one row per trial of every setting."""

from benchreport.pipeline.lineage import finish_job, start_job, write_for_rule
from benchreport.pipeline.outputs import load_json, write_text
from benchreport.present.trials_table import render_csv

start_job(snakemake)


settings = []
for stats, trials in zip(snakemake.input.stats, snakemake.input.trials, strict=True):
    numbers = load_json(stats)
    settings.append((numbers["setting"], numbers["key"], load_json(trials)))
write_text(snakemake.output.table, render_csv(settings))
write_for_rule(snakemake)
finish_job()
