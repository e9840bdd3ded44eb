"""Rule html_report: results/report.html, one self-contained page over every setting."""

from benchreport.pipeline.lineage import start_job, write_for_rule
from benchreport.pipeline.outputs import load_json, write_text
from benchreport.present.html_report import render_page

start_job(snakemake)


summaries = [load_json(path) for path in snakemake.input.summaries]
pages = {page["setting"]: page for page in map(load_json, snakemake.input.pages)}
comparisons = load_json(snakemake.input.comparisons)
with open(snakemake.input.exclusions, encoding="utf-8") as handle:
    ledger = handle.read()
svgs = {}
for name in ("forest", "heatmap", "cost"):
    with open(snakemake.input[f"{name}_svg"], "rb") as handle:
        svgs[name] = handle.read()
page = render_page(summaries, pages, comparisons, ledger, svgs, load_json(snakemake.input.figures))
write_text(snakemake.output.html, page)
write_for_rule(snakemake)
