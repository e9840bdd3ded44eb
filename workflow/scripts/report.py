"""Rule report: the setting's result record (summary.json) and everything rendered from it alone:
report.md, writeup.md, run-card.json, run-summary.json, and the trials report.html lists of it."""

from benchreport import runcard
from benchreport.files import load_json, write_json, write_text
from benchreport.lineage import finish_job, start_job, write_for_rule
from benchreport.page import page_trials
from benchreport.report import (
    build_record,
    environment_rows,
    render_report,
    render_summary,
    render_writeup,
    validate_record,
)

start_job(snakemake)


trials = load_json(snakemake.input.trials)
stats = load_json(snakemake.input.stats) | load_json(snakemake.input.card) | trials
records = {path: load_json(path) for path in snakemake.input.get("images", [])}
environment = environment_rows(snakemake.params.task_images, records, stats["per_task"] + stats["excluded_by_controls"])
card = runcard.build_run_card(stats, environment, min_tries=snakemake.params.min_tries)
runcard.validate(card)
record = build_record(stats, environment, card)
validate_record(record)
write_text(snakemake.output.summary, render_summary(record))
write_text(snakemake.output.report, render_report(record, card, trials))
write_text(snakemake.output.writeup, render_writeup(record, card))
write_json(snakemake.output.run_card, card)
write_json(snakemake.output.run_summary, card["run_summary"])
write_json(snakemake.output.page, {"setting": stats["setting"]} | page_trials(stats["per_task"], stats["trials"]))
write_for_rule(snakemake)
finish_job()
