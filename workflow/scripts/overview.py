"""Rule overview: results/index.md (every setting, the accounting) and results/exclusions.tsv."""

from benchreport.pipeline.lineage import start_job, write_for_rule
from benchreport.pipeline.outputs import load_json, write_text
from benchreport.present.overview import combined_ledger, render_index, render_ledger_tsv

start_job(snakemake)


job_ledgers = [ledger for path in snakemake.input.ledgers for ledger in load_json(path)["jobs"].values()]
summaries = [load_json(path) for path in snakemake.input.summaries]
ledger = combined_ledger(job_ledgers, summaries)
write_text(snakemake.output.index, render_index(summaries, job_ledgers, ledger))
write_text(snakemake.output.exclusions, render_ledger_tsv(ledger))
write_for_rule(snakemake)
