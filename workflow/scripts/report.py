"""Rule report: report.md, summary.json, writeup.md, run-card.json and run-summary.json of one setting,
and the trials report.html lists of it."""

import json

from benchreport import rulejob, runcard
from benchreport.files import dump_json, load_json, write_text
from benchreport.html import page_trials
from benchreport.lineage import write_for_rule
from benchreport.render import environment_rows, render_report, render_summary, render_writeup

rulejob.start(snakemake)


stats = load_json(snakemake.input.stats) | load_json(snakemake.input.card) | load_json(snakemake.input.trials)
records = {path: load_json(path) for path in snakemake.input.get("images", [])}
environment = environment_rows(json.loads(snakemake.params.task_images), records, stats["per_task"])
card = runcard.build_run_card(stats, environment, min_tries=snakemake.params.min_tries)
runcard.validate(card)
write_text(snakemake.output.report, render_report(stats, environment, card))
write_text(snakemake.output.summary, render_summary(stats, environment, card))
write_text(snakemake.output.writeup, render_writeup(stats, environment, card))
write_text(snakemake.output.run_card, dump_json(card))
write_text(snakemake.output.run_summary, dump_json(card["run_summary"]))
write_text(snakemake.output.page, dump_json({"setting": stats["setting"]} | page_trials(stats["per_task"], stats["trials"])))
write_for_rule(snakemake, "report")
