"""Rule trials_table: results/trials.csv, one row per trial of every setting."""

from benchreport import rulejob
from benchreport.files import load_json, write_text
from benchreport.lineage import write_for_rule
from benchreport.trials_table import render_csv, rows

rulejob.start(snakemake)


settings = [
    (load_json(summary), load_json(trials))
    for summary, trials in zip(snakemake.input.summaries, snakemake.input.trials, strict=True)
]
write_text(snakemake.output.table, render_csv(rows(settings)))
write_for_rule(snakemake)
