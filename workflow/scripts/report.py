"""Rule report: report.md, summary.json and writeup.md of one setting."""

import json
import sys

from benchreport.files import load_json, write_text
from benchreport.lineage import write_for_rule
from benchreport.render import environment_rows, render_report, render_summary, render_writeup

sys.stderr = open(snakemake.log[0], "w")


stats = load_json(snakemake.input.stats)
records = {path: load_json(path) for path in snakemake.input.get("images", [])}
environment = environment_rows(json.loads(snakemake.params.task_images), records, stats["per_task"])
write_text(snakemake.output.report, render_report(stats, environment))
write_text(snakemake.output.summary, render_summary(stats, environment))
write_text(snakemake.output.writeup, render_writeup(stats, environment))
write_for_rule(snakemake, "report")
