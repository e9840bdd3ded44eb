"""Rule overview: results/index.md (every setting, the accounting) and results/exclusions.tsv."""

import json
import sys

from benchreport.files import write_text
from benchreport.lineage import write_for_rule
from benchreport.overview import ledger_rows, render_index, render_ledger_tsv

sys.stderr = open(snakemake.log[0], "w")


def load(path):
    return json.loads(open(path, encoding="utf-8").read())


ingests = [load(path) for path in snakemake.input.trials]
summaries = [load(path) for path in snakemake.input.summaries]
write_text(snakemake.output.index, render_index(summaries, ingests))
write_text(snakemake.output.exclusions, render_ledger_tsv(ledger_rows(ingests)))
write_for_rule(snakemake, "overview")
