"""Rule report: report.md, summary.json and writeup.md of one setting."""

import json
import sys

from benchreport.files import write_text
from benchreport.lineage import write_for_rule
from benchreport.render import render_report, render_summary, render_writeup

sys.stderr = open(snakemake.log[0], "w")

stats = json.loads(open(snakemake.input.stats, encoding="utf-8").read())
jobs, ledger = stats["job_folders"], stats["ledger"]
write_text(snakemake.output.report, render_report(stats, jobs, ledger))
write_text(snakemake.output.summary, render_summary(stats, jobs, ledger))
write_text(snakemake.output.writeup, render_writeup(stats, jobs, ledger))
write_for_rule(snakemake, "report")
